#!/usr/bin/env bash
# test/run-all.sh — every slime test, in order:
#   deps → build+install → unit (make unit) → throwaway cluster →
#   regress (make installcheck) → corpus (test/corpus.sh) → pgdump (test/pgdump.sh)
#   → world (test/world.sh: world folders -> table -> folders, identical)
#   → hostile (test/hostile.sh) → security (test/security.sh: the attacks of
#     ordinary roles alice and bob, issue #25, each asserted to fail)
#   → doc (test/doc.sh: every SQL block of README.md as written, own cluster)
#   → crash, concurrency, schedule (own clusters; schedule: pg_cron) → shard (test/shard.sh: a coordinator,
#     two shards and a standby; postgres_fdw, promotion)
#   → ha (test/ha.sh: Patroni, etcd and pgbouncer; failover under live saves)
#   → java (test/java.sh: the AdvancedSlimePaper loader's JUnit tests)
#   → webmap (test/webmap.sh: slimetool map-server with curl and headless Chromium);
#   beside those, from the unit suite on, a second lane (niced; SLIME_LANES=1:
#   after them): sanitize (test/sanitize.sh: the extension under ASan+UBSan,
#   in a private copy of the server)
#   → valgrind (build/unit under memcheck) → bcodec (the block codec's corpus
#     round trip, test/bench/bench_bcodec.c --check) → fuzz (make fuzz-regress, then
#     make fuzz-ci: FUZZ_RUNS inputs a target from the fixed seed FUZZ_SEED,
#     then test/fuzz/sql-replay.sh: seeds and findings through SQL)
# Prints a summary ending with one line "N passed, N failed" (one count per
# suite, plus "tool" for build/slimetool once src/tool/slimetool.c exists)
# and exits non-zero when any suite failed.  SLIME_SUITES="regress corpus"
# runs only the suites it names (a developer's shortcut; the others print
# "skipped" and count neither way).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$SLIME_ROOT"

SUITES=(unit regress corpus pgdump world hostile security doc crash concurrency schedule shard ha java webmap sanitize valgrind bcodec fuzz)
declare -A RESULT=()      # suite -> "passed" | "FAILED (...)"
declare -A TIME=()
START=$SECONDS
export SLIME_LOGDIR SLIME_PG_CONFIG
SLIME_LOGDIR=$(mktemp -d /tmp/slime-run.XXXXXX)
slime_on_exit 'rm -rf "$SLIME_LOGDIR"'

summary() {
    local s passed=0 failed=0
    # the end of each failed suite's output, next to the table (a CI log
    # shown from its end keeps why, not only that)
    for s in "${SUITES[@]}"; do
        case "${RESULT[$s]:-}" in passed|skipped|"") continue ;; esac
        [ -s "$SLIME_LOGDIR/suite-$s.log" ] || continue
        echo
        echo "==================== the end of suite $s (${RESULT[$s]}) ===================="
        tail -n 40 "$SLIME_LOGDIR/suite-$s.log"
    done
    echo
    echo "==================== slime test summary ===================="
    for s in "${SUITES[@]}"; do
        printf '  %-11s %-52s %5ss\n' "$s" "${RESULT[$s]:-FAILED (not run)}" "${TIME[$s]:-0}"
        case "${RESULT[$s]:-}" in
            passed) passed=$((passed + 1)) ;;
            skipped) ;;
            *) failed=$((failed + 1)) ;;
        esac
    done
    echo "  total time $((SECONDS - START))s"
    echo "$passed passed, $failed failed"
    [ "$failed" = 0 ]
}

# run_suite NAME TIMEOUT_SECONDS FUNCTION — runs one suite function in a
# child bash under `timeout` and records its result.
run_suite() {
    local name=$1 limit=$2 fn=$3 t0=$SECONDS rc=0
    if [ -n "${SLIME_SUITES:-}" ] && [[ " $SLIME_SUITES " != *" $name "* ]]; then
        RESULT[$name]=skipped
        return 0
    fi
    slime_log "suite $name"
    timeout -k 15 "$limit" bash -c ". '$SLIME_ROOT/test/lib.sh'; set -euo pipefail; $(declare -f "$fn"); $fn" \
        > >(tee "$SLIME_LOGDIR/suite-$name.log") 2>&1 || rc=$?
    # (a process substitution, not a pipe: a daemon a suite leaves behind
    # holding its output open cannot keep the run waiting for tee)
    TIME[$name]=$((SECONDS - t0))
    if [ "$rc" = 0 ]; then RESULT[$name]=passed
    elif [ "$rc" = 124 ]; then RESULT[$name]="FAILED (timed out after ${limit}s)"
    else RESULT[$name]="FAILED (exit $rc)"; fi
    echo "-- suite $name: ${RESULT[$name]} in ${TIME[$name]}s" >&2
}

# Without deps or a build nothing can be tested: every suite fails at once.
abort_all() {
    local s
    for s in "${SUITES[@]}"; do RESULT[$s]="FAILED ($1)"; done
    summary || true
    exit 1
}

# ---- suites (each runs in its own bash; keep them self-contained) ----------
suite_unit() {
    make unit PG_CONFIG="$SLIME_PG_CONFIG" 2>&1 | tee "$SLIME_LOGDIR/unit.log"
    # make's status is checked by pipefail; also insist on "N passed, 0 failed"
    grep -Eq '^[0-9]+ passed, 0 failed' "$SLIME_LOGDIR/unit.log" ||
        { echo "unit: no '<N> passed, 0 failed' line in make unit output" >&2; exit 1; }
    # the glue, the core and the tool read as layers: no file calls one that calls it back
    python3 test/layers.py src src/core src/tool
}

suite_regress() {
    local f t n=0
    for f in sql/*.sql; do
        case "$f" in sql/slime--*|'sql/*.sql') continue ;; esac
        n=$((n + 1)); t=$(basename "$f" .sql)
        [ -f "expected/$t.out" ] || echo "regress: WARNING expected/$t.out missing" >&2
    done
    if [ "$n" = 0 ]; then
        echo "regress: no regression tests found (sql/*.sql besides sql/slime--*.sql)" >&2
        exit 1
    fi
    rm -rf test/regress-out
    if ! make installcheck PG_CONFIG="$SLIME_PG_CONFIG"; then
        if [ -f test/regress-out/regression.diffs ]; then
            echo "---- test/regress-out/regression.diffs (first 400 lines) ----"
            head -n 400 test/regress-out/regression.diffs
            echo "---- end of diffs ($(wc -l <test/regress-out/regression.diffs) lines) ----"
        else
            echo "regress: test/regress-out/regression.diffs not found (was test/regress-out replaced by another run?)"
        fi
        exit 1
    fi
}

suite_corpus() {
    if [ ! -f test/corpus.sh ]; then
        echo "corpus: test/corpus.sh does not exist (yet): counted as a failure" >&2
        exit 1
    fi
    bash test/corpus.sh
}

suite_pgdump() { bash test/pgdump.sh; }

# The block codec (sl_bcodec) on the corpus: every region file's chunks as
# one input in every stream version, and every chunk alone in version 5
# (test/bench/bench_bcodec.c --check); exits 1 on the first difference.
suite_bcodec() {
    slime_build_locked make -s build/bench_bcodec PG_CONFIG="$SLIME_PG_CONFIG"
    ./build/bench_bcodec --check "${SLIME_CORPUS:?the shared corpus is missing}" 2>/dev/null
}

# Every corpus world folder and generated worlds through copy-world, a table
# and export-world back to folders, compared byte for byte (shared cluster).
suite_world() { bash test/world.sh; }

# Thousands of mutated files, values and NBT through every SQL function;
# crash, memory and cancel checks (shared cluster).
suite_hostile() { bash test/hostile.sh; }

# Ordinary login roles (alice, bob) replaying the attacks of issue #25 on
# the extension: each must fail (shared cluster; own database and roles).
suite_security() { bash test/security.sh; }

# Every ```sql block of README.md, in order, as written, on a cluster of its
# own (the README creates roles); blocks marked <!-- doctest: skip REASON -->
# are counted, not run.
suite_doc() { bash test/doc.sh; }

# SIGKILL of the postmaster during a bulk import and a save burst, then
# recovery; every committed world intact (own cluster).
suite_crash() { bash test/crash.sh; }

# pgbench: many sessions saving and loading the same and different worlds
# (own cluster; SLIME_CONCURRENCY_SECONDS, default 20).
suite_concurrency() { bash test/concurrency.sh; }

# slime_settle() scheduled with pg_cron (installed from Debian when missing)
# on a throwaway cluster that preloads it; waits for the job's first run.
suite_schedule() { bash test/schedule.sh; }

# Islands sharded over two shard nodes behind a postgres_fdw coordinator,
# analytics pushed down, a synchronous standby promoted mid-run (four
# clusters of its own, unix sockets only).
suite_shard() { bash test/shard.sh; }

# Three nodes under Patroni with etcd and pgbouncer (Debian's, installed when
# missing) on 127.0.35.x: the loader and a SQL client save while the leader
# is killed twice, cut off and switched over; nothing acknowledged lost.
suite_ha() { bash test/ha.sh; }

# The AdvancedSlimePaper loader (clients/java): installs a JDK, pgJDBC and
# JUnit 5 from Debian, JUnit tests on its own cluster (on 127.0.0.1).
suite_java() { bash test/java.sh; }

# slimetool map-server on its own cluster: the HTTP contract with curl, then
# the page in headless Chromium (Debian's) driven by playwright-core (npm).
suite_webmap() { bash test/webmap.sh; }

# Rebuilds and installs slime.so with ASan+UBSan, runs installcheck and the
# pg_dump test on its own throwaway cluster, reinstalls the normal build.
suite_sanitize() { bash test/sanitize.sh; }

suite_valgrind() {
    if ! command -v valgrind >/dev/null; then
        echo "valgrind: installing the Debian package valgrind" >&2
        slime_apt valgrind
    fi
    slime_build_locked make -s build/unit PG_CONFIG="$SLIME_PG_CONFIG"
    # SLIME_UNIT_QUICK: the every-byte truncation loops cut at every 13th
    # byte past the first 256 (the full loops run in the unit suite)
    SLIME_UNIT_QUICK=1 valgrind -q --error-exitcode=1 --leak-check=full \
        --errors-for-leak-kinds=definite,possible ./build/unit 2>&1 |
        tee "$SLIME_LOGDIR/valgrind.log" | tail -n 20
    grep -Eq '^[0-9]+ passed, 0 failed' "$SLIME_LOGDIR/valgrind.log" ||
        { echo "valgrind: no '<N> passed, 0 failed' line from build/unit" >&2; exit 1; }
}

# Replays test/fuzz/regress/ and the seeds, then a repeatable run of every
# target: FUZZ_RUNS inputs from the fixed seed FUZZ_SEED (make fuzz-ci), so the
# stage fails only when the code changed; then the seeds and saved findings go
# through the SQL functions (test/fuzz/sql-replay.sh, own cluster). The
# open-ended campaign (a random seed, `make fuzz FUZZ_SECONDS=1800`) runs on
# developer machines.
suite_fuzz() {
    if ! command -v clang >/dev/null || ! echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' |
        clang -x c -fsanitize=fuzzer - -o /dev/null 2>/dev/null; then
        echo "fuzz: installing the Debian packages clang libclang-rt-14-dev" >&2
        slime_apt clang libclang-rt-14-dev
    fi
    slime_build_locked make -s fuzz-build fuzz-seeds PG_CONFIG="$SLIME_PG_CONFIG"
    make -s fuzz-regress PG_CONFIG="$SLIME_PG_CONFIG"
    make -s fuzz-ci PG_CONFIG="$SLIME_PG_CONFIG" FUZZ_RUNS="${FUZZ_RUNS:-10000}" FUZZ_SEED="${FUZZ_SEED:-1}"
    # the seeds and saved findings through the SQL functions (own cluster)
    env -u PGHOST -u PGPORT -u PGDATABASE bash test/fuzz/sql-replay.sh build
}

# ---- run --------------------------------------------------------------------
slime_log "installing dependencies"
slime_install_deps || abort_all "dependency install failed"

slime_log "building and installing"
build_rc=0
slime_build_install || build_rc=$?
[ "$build_rc" = 1 ] && abort_all "extension build failed"
# Once the tool's source exists, its build counts as one more entry; a tool
# that does not build fails the run, but the extension suites still run.
if [ -f src/tool/slimetool.c ]; then
    SUITES=(tool "${SUITES[@]}")
    TIME[tool]=0
    if [ "$build_rc" = 0 ]; then RESULT[tool]=passed; else RESULT[tool]="FAILED (make tool)"; fi
fi

# The corpus: fail loudly and early when missing (suites re-check it); the
# regression tests read its absolute path from SLIME_CORPUS.
if corpus=$(slime_corpus); then export SLIME_CORPUS=$corpus; fi

run_suite unit 600 suite_unit

# A second lane: the suites that need neither the shared cluster nor the
# system's slime.so (sanitize installs its build into a private copy of the
# server; valgrind and fuzz are CPU work, fuzz's SQL replay on a cluster of
# its own) run beside the others, niced so that the timed ones of the first
# lane keep the CPU they ask for. Their results come back through a file;
# their output is printed after the first lane's.
LANE_B=(sanitize valgrind bcodec fuzz)
lane_b() {
    run_suite sanitize 900 suite_sanitize
    run_suite valgrind 900 suite_valgrind
    run_suite bcodec 600 suite_bcodec
    run_suite fuzz 1200 suite_fuzz
    local s
    for s in "${LANE_B[@]}"; do
        printf '%s\t%s\t%s\n' "$s" "${RESULT[$s]:-FAILED (not run)}" "${TIME[$s]:-0}"
    done >"$SLIME_LOGDIR/lane_b.results"
}
lane_b_pid=
if [ "${SLIME_LANES:-2}" = 2 ]; then
    (renice -n 10 -p "$BASHPID" >/dev/null 2>&1 || true; lane_b) >"$SLIME_LOGDIR/lane_b.log" 2>&1 &
    lane_b_pid=$!
fi

slime_log "starting throwaway cluster"
if slime_cluster_start; then
    run_suite regress 600 suite_regress
    run_suite corpus 900 suite_corpus
    run_suite pgdump 600 suite_pgdump
    run_suite world 600 suite_world
    run_suite hostile 600 suite_hostile
    run_suite security 300 suite_security
    slime_cluster_stop
else
    for s in regress corpus pgdump world hostile security; do RESULT[$s]="FAILED (cluster did not start)"; done
fi

run_suite doc 300 suite_doc
run_suite crash 300 suite_crash
run_suite concurrency 420 suite_concurrency
run_suite schedule 300 suite_schedule
run_suite shard 420 suite_shard
run_suite ha 480 suite_ha
run_suite java 600 suite_java
run_suite webmap 600 suite_webmap

if [ -n "$lane_b_pid" ]; then
    slime_log "waiting for the second lane (${LANE_B[*]})"
    wait "$lane_b_pid" || true
    echo "==================== second lane: ${LANE_B[*]} ===================="
    cat "$SLIME_LOGDIR/lane_b.log"
    while IFS=$'\t' read -r s r t; do RESULT[$s]=$r; TIME[$s]=$t; done <"$SLIME_LOGDIR/lane_b.results" || true
else
    lane_b
fi

summary
