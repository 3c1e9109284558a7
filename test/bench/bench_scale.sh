#!/usr/bin/env bash
# test/bench/bench_scale.sh
#
# A network's worth of islands (issue #32, part 3; test/bench/README.md,
# section 18). Islands are made as a network makes them
# (bench_scale_islands.sql: a 5x5-chunk template cut from a real 1.18+
# region, four of them, 0-3 chunks varied per island, plus one chunk of
# its own) and kept three ways, each in a database of its own store:
#   (1) plain:  a table with slime_store_trigger() (database bench_scale_plain);
#   (2) loader: slime_loader_create('ldr'), each island's slime file saved
#       with slime_loader_save (database bench_scale_loader);
#   (3) bytea:  the same slime files in a bytea table, ASP's MySQL loader's
#       shape (table files, also in bench_scale_loader: it has no store).
# The islands grow through BENCH_SCALE_SIZES (ascending; each size adds to
# the previous one) and at each size the script measures: fill rate; bytes
# per island counting every relation (the extension's tables, their TOAST
# and indexes, the loader's tables); store entries and packs; TOAST value
# ids used; the settle of the fill; slime_gc() and slime_settle() after the
# fill, with nothing to do and after 1,000 saves; saves (pgbench -M
# prepared, BENCH_CLIENTS) alone, while slime_gc() and slime_settle_batches() each
# run in a loop of its own (0.5 s between runs), and while a VACUUM loop
# (paced as autovacuum is) runs beside those two; WAL per save; block
# totals over every island against a header-only read; the "holds X"
# lookup (through a GIN index on
# slime_block_names(world) when the extension has that function, else
# slime_block_counts); VACUUM (FREEZE) time; backend memory. It prints the
# table after each size and all of it at the end (kept in
# build/bench/bench_scale-last.txt).
#
# Durable settings for everything measured (fsync, synchronous_commit,
# full_page_writes on, logged tables); the fill's sessions run with
# synchronous_commit off (their commits are batches of BENCH_FILL_BATCH
# islands). The cluster named by the PG* variables, or a throwaway one
# (slime_cluster_start, with the settings above, shared_buffers 1GB,
# max_wal_size 8GB, wal_keep_size 6GB (pg_waldump reads the settle's WAL),
# slime.loader_verify off as in production). Unless SLIME_BENCH_BUILT=1,
# it installs the Debian packages it needs and builds and installs the
# extension first (slime_build_install). The whole
# script runs at nice BENCH_NICE (10), the server it starts too.
#
# Knobs (environment): BENCH_SCALE_SIZES ("10000 100000"), BENCH_CLIENTS
# (4), BENCH_SECONDS (20, each timed save phase), BENCH_FILL_JOBS (2
# sessions), BENCH_FILL_BATCH (500), BENCH_SAVE_POOL (8000 next versions
# per size), BENCH_GC_TIMEOUT (600 s, each GC), BENCH_SETTLE_TIMEOUT (600
# s, each settle but the fill's), BENCH_SCAN_TIMEOUT (600 s, each scan over
# every island), BENCH_SCALE_KINDS ("plain loader bytea", "plain" or
# "loader": one kind alone in the cluster),
# BENCH_FILES_SETTLE (600 s for the settle of
# the loader's files at each size), BENCH_DISK_RESERVE (12 GB left free),
# BENCH_FREEZE (1: time VACUUM (FREEZE)), BENCH_KEEP (0; 1 keeps the
# databases of a cluster given by PG*), BENCH_ROUNDS (3 rounds of 1,000
# saves, each with the GC and the settle after it; their medians),
# BENCH_STATEMENTS (0; N > 0 is a diagnosis, not a figure run: the
# throwaway cluster loads pg_stat_statements with track = all, and after
# each GC and settle the details list the N statements, nested ones
# included, that took the most time in it), BENCH_HUGE_PAGES (0; 1: the
# throwaway cluster's shared memory in 2 MB pages, huge_pages = on, the
# pages it needs added to vm.nr_hugepages for the run and given back at
# its end; needs root. A new backend maps shared memory page by page as it
# first touches it: in 4 kB pages, the first touches of a GC in a store
# ten times larger cost more than its work; bench README section 18).
#
# A statement that runs out of its time is reported as "did not finish in
# N s"; a GC that did not finish is not run again at that size. The loader
# and the bytea table stop at the first size whose files the disk cannot
# hold (they need about 150 KB an island before settling); the plain table
# goes on while its store fits. Never fails on numbers; exits non-zero only
# when something could not be run.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib.sh
. "$HERE/../lib.sh"

SIZES=${BENCH_SCALE_SIZES:-10000 100000}
CLIENTS=${BENCH_CLIENTS:-4}
SECS=${BENCH_SECONDS:-20}
JOBS=${BENCH_FILL_JOBS:-2}
BATCH=${BENCH_FILL_BATCH:-500}
POOL=${BENCH_SAVE_POOL:-8000}
GC_TO=${BENCH_GC_TIMEOUT:-600}
SCAN_TO=${BENCH_SCAN_TIMEOUT:-600}
SETTLE_TO=${BENCH_SETTLE_TIMEOUT:-600}
FILES_TO=${BENCH_FILES_SETTLE:-600}
RESERVE=${BENCH_DISK_RESERVE:-12}
FREEZE=${BENCH_FREEZE:-1}
NICE=${BENCH_NICE:-10}
SAVES_N=1000
ROUNDS=${BENCH_ROUNDS:-3}
STMTS=${BENCH_STATEMENTS:-0}
DBP=bench_scale_plain
DBL=bench_scale_loader

prev=0
for n in $SIZES; do
    if ! [[ $n =~ ^[0-9]+$ ]] || [ "$n" -le "$prev" ] || [ "$n" -lt 100 ]; then
        echo "BENCH_SCALE_SIZES must be ascending integers of at least 100, not '$SIZES'" >&2
        exit 2
    fi
    prev=$n
done
renice -n "$NICE" -p $$ >/dev/null
CORPUS=$(slime_corpus) || exit 1
# the Debian packages and the extension, built and installed, unless
# SLIME_BENCH_BUILT=1 (the caller did it)
if [ "${SLIME_BENCH_BUILT:-0}" != 1 ]; then
    slime_install_deps
    slime_build_install || { echo "bench_scale: the build failed" >&2; exit 1; }
fi
OWN_CLUSTER=0
# huge_pages_for SIZE: 2 MB pages for shared_buffers of SIZE (kB, MB or GB)
# and the rest of the server's shared memory (a tenth more, and 128 MB)
huge_pages_for() {
    local n=${1%[kMG]B} u=${1##*[0-9]}
    case $u in kB) n=$((n / 1024)) ;; GB) n=$((n * 1024)) ;; MB) ;; *) return 1 ;; esac
    echo $((n * 11 / 10 / 2 + 64))
}
if [ -n "${PGHOST:-}" ] && [ "${BENCH_HUGE_PAGES:-0}" = 1 ]; then
    slime_warn "BENCH_HUGE_PAGES=1 is for the throwaway cluster: the cluster of PGHOST keeps its own pages"
elif [ "${BENCH_HUGE_PAGES:-0}" = 1 ]; then
    need=$(huge_pages_for "${BENCH_SHARED_BUFFERS:-1GB}") ||
        { echo "bench_scale: BENCH_SHARED_BUFFERS must end in kB, MB or GB" >&2; exit 2; }
    slime_huge_pages "$need" ||
        { echo "bench_scale: could not reserve $need huge pages (BENCH_HUGE_PAGES=1 needs root and the memory free)" >&2; exit 1; }
    export SLIME_PG_CONF="huge_pages = on
${SLIME_PG_CONF:-}"
fi
if [ -z "${PGHOST:-}" ]; then
    STMTS_CONF=""
    [ "$STMTS" = 0 ] || STMTS_CONF="shared_preload_libraries = 'pg_stat_statements'
pg_stat_statements.track = all
pg_stat_statements.max = 10000
track_io_timing = on"
    export SLIME_LOADER_VERIFY=${SLIME_LOADER_VERIFY:-off}
    export SLIME_PG_CONF="fsync = on
synchronous_commit = on
full_page_writes = on
shared_buffers = ${BENCH_SHARED_BUFFERS:-1GB}
max_wal_size = 8GB
checkpoint_timeout = 15min
wal_keep_size = 6GB
maintenance_work_mem = 256MB
$STMTS_CONF
${SLIME_PG_CONF:-}"
    slime_cluster_start
    OWN_CLUSTER=1
fi
WORK=$(mktemp -d /tmp/slime-benchscale.XXXXXX)
chmod 777 "$WORK"
BGPIDS=()
# stop what this script started in the background (by pid: those still this
# shell's children; a pid that ended long ago may be another process's now),
# then the work dir
cleanup() {
    local p kids
    # a run that ends early says so, and keeps its server's log (rc: the
    # exit status test/lib.sh's exit hooks keep)
    if [ "$FINISHED" != 1 ]; then
        echo "bench_scale: ended early (exit status ${rc:-?}${SIGNAL:+, $SIGNAL})" >&2
        if [ "$OWN_CLUSTER" = 1 ] && [ -n "${SLIME_PGTMP:-}" ] && [ -f "$SLIME_PGTMP/server.log" ]; then
            mkdir -p "$SLIME_ROOT/build/bench"
            cp "$SLIME_PGTMP/server.log" "$SLIME_ROOT/build/bench/bench_scale-server-last.log" &&
                echo "bench_scale: its server's log is in build/bench/bench_scale-server-last.log" >&2
        fi
    fi
    touch "$WORK/maint.stop" "$WORK/mem.stop" 2>/dev/null || true
    kids=" $(slime_children $$)"
    for p in "${BGPIDS[@]}"; do [[ $kids != *" $p "* ]] || kill "$p" 2>/dev/null || true; done
    if [ "$OWN_CLUSTER" = 0 ] && [ "${BENCH_KEEP:-0}" != 1 ]; then
        dropdb --if-exists "$DBP" >/dev/null 2>&1 || true
        dropdb --if-exists "$DBL" >/dev/null 2>&1 || true
    fi
    rm -rf "$WORK"
}
slime_on_exit cleanup
FINISHED=0 SIGNAL=""
# shellcheck disable=SC2064  # the signal's name is expanded when the trap is set
for s in HUP INT TERM; do trap "SIGNAL=SIG$s; exit 1" "$s"; done
RES=$WORK/results.tsv
DETAIL=$WORK/detail.txt
: >"$RES"
: >"$DETAIL"
OUTDIR=$SLIME_ROOT/build/bench
mkdir -p "$OUTDIR"

say() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
# sq DB SQL...: one psql session, unaligned, quiet
sq() { local db=$1; shift; PGAPPNAME=bench_scale slime_psql -At -d "$db" "$@"; }
# res KEY VALUE: a cell of the table, for the size being measured
res() { printf '%s\t%s\t%s\n' "$SIZE" "$1" "$2" >>"$RES"; }
# detail TEXT: a line of the details printed after the table
detail() { printf '%s\n' "$*" >>"$DETAIL"; }
# f EXPR: awk arithmetic, printed with the given format (default %.1f)
f() { awk "BEGIN { printf \"${2:-%.1f}\", $1 }"; }
# n_fmt N: 1234567 -> 1,234,567
n_fmt() { printf '%s' "$1" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta'; }
export LC_NUMERIC=C

# ---- a statement timed in a new session, its backend's memory sampled --------
# q DB TIMEOUT SQL [TIMES]: runs SQL (one statement; TIMEOUT s, 0 = none) in
# a new session, TIMES times (1); sets Q_STATUS (ok or timeout), Q_MS (the
# last run's \timing), Q_FIRST_MS (the first's: a new session's first call
# also loads the library and fills the catalog caches), Q_OUT (the last
# run's output, one line a run), Q_MEM (peak private memory of its backend,
# RssAnon, MB, sampled every 0.2 s; "-" when not seen). Any error but the
# timeout ends the script.
QN=0
q() {
    local db=$1 to=$2 sql=$3 times=${4:-1} app ppid pid="" rc=0 peak=0 v i runs=()
    QN=$((QN + 1))
    app=bench_scale_q$QN
    for ((i = 0; i < times; i++)); do runs+=(-c "$sql"); done
    PGAPPNAME=$app psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" -c "SET statement_timeout = '${to}s'" \
        -c '\timing on' "${runs[@]}" >"$WORK/q.out" 2>"$WORK/q.err" &
    ppid=$!
    while slime_alive "$ppid"; do
        if [ -z "$pid" ]; then
            pid=$(PGAPPNAME=bench_scale psql -X -At -d "$db" \
                -c "SELECT pid FROM pg_stat_activity WHERE application_name = '$app'" 2>/dev/null || true)
        fi
        if [ -n "$pid" ] && [ -r "/proc/$pid/status" ]; then
            v=$(awk '/^RssAnon/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
            [ -n "$v" ] && [ "$v" -gt "$peak" ] && peak=$v
        fi
        sleep 0.2
    done
    wait "$ppid" || rc=$?
    Q_OUT=$(grep -v -e '^Time: ' -e '^Timing is on' "$WORK/q.out" || true)
    Q_MS=$(sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' "$WORK/q.out" | tail -n 1)
    Q_FIRST_MS=$(sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' "$WORK/q.out" | head -n 1)
    [ "$times" = 1 ] || Q_OUT=$(printf '%s\n' "$Q_OUT" | tail -n 1)
    if [ "$peak" -gt 0 ]; then Q_MEM=$((peak / 1024)); else Q_MEM=-; fi
    if [ "$rc" = 0 ]; then
        Q_STATUS=ok
    elif grep -q 'statement timeout' "$WORK/q.err"; then
        Q_STATUS=timeout
        Q_MS=$((to * 1000))
    else
        echo "bench_scale: statement failed in $db: $sql" >&2
        cat "$WORK/q.err" >&2
        exit 1
    fi
    [ -n "$Q_MS" ] || Q_MS=0
}
# secs_cell: "12.3 s" or "did not finish in N s" for the last q
secs_cell() {
    if [ "$Q_STATUS" = ok ]; then f "$Q_MS / 1000" "%.2f s"; else printf 'did not finish in %s s' "$1"; fi
}

# ---- memory of every backend, sampled during a phase --------------------------
# mem_start / mem_stop: the peak private memory (RssAnon) of any backend of
# the cluster between them, MB, in MEM_PEAK ("-" without the cluster's pid)
MEM_PID=""
mem_start() {
    rm -f "$WORK/mem.stop" "$WORK/mem.peak"
    if [ -z "${PGDATA:-}" ] || [ ! -r "$PGDATA/postmaster.pid" ]; then MEM_PID=""; return 0; fi
    local pm
    pm=$(head -n 1 "$PGDATA/postmaster.pid")
    (
        peak=0
        while [ ! -e "$WORK/mem.stop" ]; do
            for p in $(slime_children "$pm"); do
                v=$(awk '/^RssAnon/ { print $2 }' "/proc/$p/status" 2>/dev/null || true)
                [ -n "$v" ] && [ "$v" -gt "$peak" ] && peak=$v
            done
            echo "$peak" >"$WORK/mem.peak"
            sleep 1
        done
    ) &
    MEM_PID=$!
    BGPIDS+=("$MEM_PID")
}
mem_stop() {
    MEM_PEAK=-
    [ -n "$MEM_PID" ] || return 0
    touch "$WORK/mem.stop"
    wait "$MEM_PID" || true
    [ -s "$WORK/mem.peak" ] && MEM_PEAK=$(($(cat "$WORK/mem.peak") / 1024))
    MEM_PID=""
}

# ---- set-up --------------------------------------------------------------------
say "bench_scale: sizes $SIZES; $CLIENTS clients, $SECS s a save phase, fill $JOBS sessions x $BATCH islands"
sq postgres -c "SELECT 'server ' || version()" -c "SELECT name || ' = ' || setting FROM pg_settings
    WHERE name IN ('fsync', 'synchronous_commit', 'full_page_writes', 'shared_buffers', 'max_wal_size',
                   'autovacuum', 'max_parallel_workers_per_gather', 'huge_pages') ORDER BY name" >"$WORK/settings.txt"
for s in fsync synchronous_commit full_page_writes; do
    grep -q "^$s = on" "$WORK/settings.txt" || slime_warn "$s is not on in this cluster: figures are not durable ones"
done
for db in "$DBP" "$DBL"; do
    dropdb --if-exists "$db" >/dev/null 2>&1
    createdb "$db"
    sq "$db" -c "CREATE EXTENSION slime" >/dev/null
    [ "$STMTS" = 0 ] || sq "$db" -c "CREATE EXTENSION pg_stat_statements" >/dev/null
    sq "$db" -v corpus="$CORPUS" -f "$HERE/bench_scale_islands.sql" >/dev/null
    sq "$db" -f "$HERE/bench_scale_util.sql" >/dev/null
done
HAS_NAMES=$(sq "$DBP" -c "SELECT to_regprocedure('slime_block_names(slime)') IS NOT NULL")
sq "$DBP" >/dev/null <<EOF
CREATE TABLE islands (id bigint PRIMARY KEY, world slime NOT NULL);
CREATE TRIGGER islands_store BEFORE INSERT OR UPDATE ON islands
    FOR EACH ROW EXECUTE FUNCTION slime_store_trigger();
CREATE TABLE nextv (k int PRIMARY KEY, v bytea NOT NULL);
-- as "Running it" has a DBA do: the GC tracks the table (it never reads it),
-- and the totals get the workers its heap's size would not give them
SELECT slime_track('islands');
ALTER TABLE islands SET (parallel_workers = 2);
EOF
if [ "$HAS_NAMES" = t ]; then
    # as a network would have it from the start: every fill and save keeps it
    sq "$DBP" -c "CREATE INDEX islands_block_names ON islands USING gin (slime_block_names(world))" >/dev/null
fi
sq "$DBL" >/dev/null <<EOF
SELECT slime_loader_create('ldr');
-- the templates' chunks in the store before the first island, in the form
-- a loader save stores them (bench_scale_islands.sql stores them as values):
-- each saved as a world of its own, then deleted
SELECT count(slime_loader_save('ldr', 'template-' || t, slime_lease_acquire('ldr', 'template-' || t, 'bench', '1 day'),
    slime_to_slimefile(world), 10)) FROM templates;
SELECT count(slime_loader_delete('ldr', 'template-' || t, slime_lease_acquire('ldr', 'template-' || t, 'bench', '1 day')))
    FROM templates;
CREATE TABLE files (id bigint PRIMARY KEY, file bytea NOT NULL);
CREATE TABLE nextf (k int PRIMARY KEY, file bytea NOT NULL);
EOF
for ((j = 1; j <= JOBS; j++)); do
    sq "$DBP" -c "CREATE UNLOGGED TABLE stage_$j (id bigint, v bytea)" >/dev/null
    sq "$DBL" -c "CREATE UNLOGGED TABLE stage_$j (id bigint, v bytea)" \
        -c "CREATE UNLOGGED TABLE fstage_$j (id bigint, file bytea)" >/dev/null
done
sq "$DBP" -c "SELECT 'template ' || t || ': ' || (slime_info(world) ->> 'chunks') || ' chunks, DataVersion '
    || (slime_info(world) #>> '{data_version,min}') || ', ' || length(slime_to_slimefile(world)) || ' bytes as a slime file; '
    || m || ' full chunks in its region' FROM templates ORDER BY t" >"$WORK/templates.txt"

# the saves, one pgbench script a kind: save number n of a client takes next
# version k (a new one until the pool is used up) into island i, an island
# of k's template
for kind in plain loader bytea; do
    {
        echo '\set k (:client_id + :clients * :n + :off) % :pool'
        echo '\set n :n + 1'
        echo '\set i 4 * random(1, :quarter - 1) + :k % 4'
        case $kind in
        plain) echo 'UPDATE islands SET world = slime(p.v) FROM nextv p WHERE islands.id = :i AND p.k = :k;' ;;
        loader) echo "SELECT slime_loader_save('ldr', 'island-' || :i::text, slime_lease_acquire('ldr', 'island-' || :i::text, 'bench', '1 day'), p.file, 10) FROM nextf p WHERE p.k = :k;" ;;
        bytea) echo 'UPDATE files SET file = p.file FROM nextf p WHERE files.id = :i AND p.k = :k;' ;;
        esac
    } >"$WORK/save-$kind.sql"
done
declare -A OFF=([plain]=0 [loader]=0 [bytea]=0)
declare -A GC_DNF=()
declare -A TABLES=([plain]="{islands}" [loader]="{ldr,ldr_worlds,ldr_frames}" [bytea]="{files}")
declare -A WITHEXT=([plain]=true [loader]=true [bytea]=false)
declare -A KDB=([plain]=$DBP [loader]=$DBL [bytea]=$DBL)
declare -A BPI_EST=([plain]=30000 [loader]=180000 [bytea]=170000)
# BENCH_SCALE_KINDS: "plain loader bytea" (all three), "plain" or "loader"
# (one kind alone in the cluster, as a network keeps its islands one way;
# the loader and the bytea table are filled together, from the same files)
KINDS=${BENCH_SCALE_KINDS:-plain loader bytea}
case $KINDS in
"plain loader bytea" | plain | loader) ;;
*) echo "BENCH_SCALE_KINDS must be 'plain loader bytea', 'plain' or 'loader', not '$KINDS'" >&2; exit 2 ;;
esac

# ---- fill ------------------------------------------------------------------------
# fill_job J FIRST LAST: session J's batches (J, J + JOBS, ...) of islands
# FIRST..LAST into every kind of KINDS; each statement's time in fill-J.tsv
fill_job() {
    local j=$1 first=$2 last=$3 a b t0 t1 t2 t3 t4 t5 t6 log="$WORK/fill-$1.tsv"
    export PGOPTIONS="-c synchronous_commit=off"
    for ((a = first + (j - 1) * BATCH; a <= last; a += JOBS * BATCH)); do
        b=$((a + BATCH - 1))
        [ "$b" -le "$last" ] || b=$last
        t0=$EPOCHREALTIME
        sq "$DBP" -c "INSERT INTO stage_$j SELECT g, slime_bytes(island(g)) FROM generate_series($a, $b) g"
        t1=$EPOCHREALTIME
        printf 'gen\t%s\t%s\n' $((b - a + 1)) "$(f "$t1 - $t0" %.3f)" >>"$log"
        if [[ " $KINDS " == *" plain "* ]]; then
            sq "$DBP" -c "INSERT INTO islands SELECT id, slime(v) FROM stage_$j"
            t2=$EPOCHREALTIME
            printf 'plain\t%s\t%s\n' $((b - a + 1)) "$(f "$t2 - $t1" %.3f)" >>"$log"
        fi
        if [[ " $KINDS " == *" loader "* ]]; then
            sq "$DBP" -c "COPY stage_$j TO STDOUT (FORMAT binary)" | sq "$DBL" -c "COPY stage_$j FROM STDIN (FORMAT binary)"
            t3=$EPOCHREALTIME
            sq "$DBL" -c "INSERT INTO fstage_$j SELECT id, slime_to_slimefile(slime(v)) FROM stage_$j"
            t4=$EPOCHREALTIME
            [[ " $KINDS " != *" bytea "* ]] || sq "$DBL" -c "INSERT INTO files SELECT id, file FROM fstage_$j"
            t5=$EPOCHREALTIME
            sq "$DBL" -c "SELECT count(slime_loader_save('ldr', 'island-' || id,
                slime_lease_acquire('ldr', 'island-' || id, 'bench', '1 day'), file, 10)) FROM fstage_$j" >/dev/null
            t6=$EPOCHREALTIME
            sq "$DBL" -c "TRUNCATE stage_$j, fstage_$j"
            printf 'file\t%s\t%s\nloader\t%s\t%s\n' $((b - a + 1)) "$(f "$t4 - $t3" %.3f)" \
                $((b - a + 1)) "$(f "$t6 - $t5" %.3f)" >>"$log"
            [[ " $KINDS " != *" bytea "* ]] || printf 'bytea\t%s\t%s\n' $((b - a + 1)) "$(f "$t5 - $t4" %.3f)" >>"$log"
        fi
        sq "$DBP" -c "TRUNCATE stage_$j"
    done
}

# fill FIRST LAST: JOBS sessions side by side; a kind's rate is the islands
# over its statements' time summed over the sessions, divided by JOBS
fill() {
    local first=$1 last=$2 j pids=() kind
    rm -f "$WORK"/fill-*.tsv
    mem_start
    local t0=$EPOCHREALTIME
    for ((j = 1; j <= JOBS; j++)); do
        fill_job "$j" "$first" "$last" &
        pids+=($!)
        BGPIDS+=($!)
    done
    for j in "${pids[@]}"; do wait "$j" || { echo "bench_scale: a fill session failed" >&2; exit 1; }; done
    local wall
    wall=$(f "$EPOCHREALTIME - $t0" %.0f)
    mem_stop
    res mem.fill "$MEM_PEAK"
    for kind in gen file $KINDS; do
        cat "$WORK"/fill-*.tsv | awk -F'\t' -v k="$kind" -v j="$JOBS" '$1 == k { n += $2; s += $3 }
            END { if (s > 0) printf "%.1f\n", n / (s / j) }' >"$WORK/rate"
        [ -s "$WORK/rate" ] && res "$kind.fill" "$(cat "$WORK/rate")"
    done
    detail "size $SIZE: fill of islands $first..$last took $wall s of wall time ($JOBS sessions)"
}

# ---- sizes -----------------------------------------------------------------------
# sizes KIND: bytes per island over every relation of KIND, TOAST values,
# store entries and packs; the relations in the details
sizes() {
    local kind=$1 db=${KDB[$1]} tot
    sq "$db" -F $'\t' -c "SELECT * FROM bench_rels('${TABLES[$kind]}', ${WITHEXT[$kind]})" >"$WORK/rels.tsv"
    tot=$(awk -F'\t' '{ s += $2 + $3 + $4 } END { print s + 0 }' "$WORK/rels.tsv")
    BPI[$kind]=$(f "$tot / $SIZE" %.0f)
    BPI_EST[$kind]=${BPI[$kind]}
    {
        echo "size $SIZE, $kind: relation, heap, TOAST, indexes, TOAST values, rows (bytes)"
        awk -F'\t' '{ printf "    %-22s %14s %14s %12s %10s %10s\n", $1, $2, $3, $4, $5, $6 }' "$WORK/rels.tsv"
        sq "$db" -F $'\t' -c "SELECT * FROM bench_indexes('${TABLES[$kind]}', ${WITHEXT[$kind]})" |
            awk -F'\t' '{ printf "    index %-30s %14s\n", $1, $2 }'
    } >>"$DETAIL"
    res "$kind.live" "$(n_fmt "$(f "$(sq "$db" -c "SELECT bench_live_bytes('$kind')") / $SIZE" %.0f)")"
    local tv
    tv=$(awk -F'\t' -v n="$SIZE" '$5 > 0 || $1 ~ /^slime_store(_packs)?$/ { printf "%s%s %.2f", (k++ ? ", " : ""), $1, $5 / n }' "$WORK/rels.tsv")
    res "$kind.toast" "$tv"
    if [ "$kind" != bytea ]; then
        res "$kind.entries" "$(sq "$db" -c "SELECT to_char(count(*), 'FM999,999,999') || ' / ' ||
            to_char((SELECT count(*) FROM slime_store_packs), 'FM999,999,999') FROM slime_store")"
    fi
}

# ---- maintenance -----------------------------------------------------------------
# stmts_reset DB / stmts_detail DB WHAT: with BENCH_STATEMENTS=N, the
# statement counts start again, and the N statements that took the most
# time since go to the details (time, calls, blocks found in shared buffers /
# read into them, ms reading)
stmts_reset() { [ "$STMTS" = 0 ] || sq "$1" -c "SELECT pg_stat_statements_reset()" >/dev/null; }
stmts_detail() {
    [ "$STMTS" = 0 ] && return 0
    detail "size $SIZE, $2: the $STMTS statements that took the most time (ms, calls, blocks hit / read, ms reading, rows: query)"
    detail "$(sq "$1" -c "SELECT format('  %s ms, %s calls, %s / %s blocks, %s ms reading, %s rows: %s',
            round(total_exec_time::numeric, 1), calls, shared_blks_hit, shared_blks_read,
            round(blk_read_time::numeric, 1), rows, left(regexp_replace(query, '\s+', ' ', 'g'), 220))
        FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
        ORDER BY total_exec_time DESC LIMIT $STMTS")"
}
# gc KIND KEY: slime_gc() timed (BENCH_GC_TIMEOUT); skipped after one that did not finish
gc() {
    local kind=$1 key=$2 db=${KDB[$1]}
    if [ -n "${GC_DNF[$kind]:-}" ]; then
        LAST_MS=0 LAST_OK=skipped LAST_N=0
        res "$kind.$key" "not run (${GC_DNF[$kind]})"
        return 0
    fi
    say "  $kind: slime_gc() ($key)"
    local rd0 rd1 dk0 dk1
    rd0=$(sq "$db" -c "$READSTAT")
    dk0=$(disk_read)
    stmts_reset "$db"
    q "$db" "$GC_TO" "SELECT to_jsonb(g) FROM slime_gc() g"
    stmts_detail "$db" "$kind, GC $key"
    dk1=$(disk_read)
    rd1=$(sq "$db" -c "$READSTAT")
    res mem.gc "$Q_MEM"
    LAST_MS=$Q_MS LAST_OK=$Q_STATUS
    LAST_N=$(echo "$Q_OUT" | sed -n 's/.*"removed_entries": \([0-9]*\).*/\1/p')
    # what it read: blocks into shared buffers / found there / KB from the disks
    LAST_RD="$((${rd1%|*} - ${rd0%|*})) / $((${rd1#*|} - ${rd0#*|})) / $(((dk1 - dk0) / 1024))"
    if [ "$Q_STATUS" = ok ]; then
        res "$kind.$key" "$(secs_cell) ($LAST_N removed)"
        detail "size $SIZE, $kind, GC $key: $Q_OUT; blocks read into shared buffers / found there / KB read from disk: $LAST_RD"
    else
        GC_DNF[$kind]="GC did not finish in $GC_TO s"
        res "$kind.$key" "$(secs_cell "$GC_TO")"
    fi
}
# settle KIND KEY: slime_settle('0') timed
settle() {
    local kind=$1 key=$2 db=${KDB[$1]}
    say "  $kind: slime_settle('0') ($key)"
    stmts_reset "$db"
    q "$db" "$SETTLE_TO" "SELECT string_agg(what || ' ' || items, ', ') FROM slime_settle('0', progress => '1 day')"
    stmts_detail "$db" "$kind, settle $key"
    res mem.settle "$Q_MEM"
    LAST_MS=$Q_MS LAST_OK=$Q_STATUS
    LAST_N=$(echo "$Q_OUT" | sed -n 's/.*store entries \([0-9]*\).*/\1/p')
    if [ "$Q_STATUS" = ok ]; then
        res "$kind.$key" "$(f "$Q_MS" "%.1f ms") ($Q_OUT)"
    else
        res "$kind.$key" "$(secs_cell "$SETTLE_TO")"
    fi
}
# settle_fill KIND: the settle of what the fill wrote (store entries; the
# loader's worlds are leased, so their files wait), per entry; its WAL, and
# of it the full-page images (pg_stat_wal) and the checkpoints that began
# meanwhile: the first change to a page after a checkpoint logs the whole
# page, so a settle that spans checkpoints logs more an entry
settle_fill() {
    local kind=$1 db=${KDB[$1]} n0 n1 lsn0 w0 w1 ne
    say "  $kind: settle of the fill"
    # every size's settle starts just after a checkpoint, as it would on a
    # server that checkpoints every few minutes
    sq "$db" -c "CHECKPOINT" >/dev/null
    n0=$(sq "$db" -c "SELECT count(*) FROM slime_store WHERE NOT settled")
    lsn0=$(sq "$db" -c "SELECT pg_current_wal_lsn()")
    w0=$(sq "$db" -c "$WALSTAT")
    q "$db" 0 "CALL slime_settle_batches('0', progress => '1 day')"
    res mem.settle "$Q_MEM"
    w1=$(sq "$db" -c "$WALSTAT")
    n1=$(sq "$db" -c "SELECT count(*) FROM slime_store WHERE NOT settled")
    ne=$((n0 - n1 + (n0 == n1)))
    res "$kind.settle_fill" "$(f "$Q_MS / 1000" %.1f) s: $(n_fmt $((n0 - n1))) entries, $(f "$Q_MS / $ne" %.2f) ms each, WAL $(f "$(sq "$db" -c "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '$lsn0')") / 1024 / $ne" %.1f) KB each, $(f "(${w1%|*} - ${w0%|*}) / $ne" %.2f) page images each; $((${w1#*|} - ${w0#*|})) checkpoints began"
    wal_kinds "$db" "$lsn0" "size $SIZE, $kind, settle of the fill"
}
# wal_kinds DB LSN WHAT: the kinds of WAL record from LSN on with their
# page images (pg_waldump --stats=record over the cluster's own pg_wal, the
# eight largest) in the details; the bench's own cluster only, whose
# wal_keep_size keeps the segments
wal_kinds() {
    local db=$1 lsn0=$2 what=$3 lsn1
    [ "$OWN_CLUSTER" = 1 ] && [ -d "$PGDATA/pg_wal" ] || return 0
    lsn1=$(sq "$db" -c "SELECT pg_current_wal_insert_lsn()")
    {
        echo "$what: WAL records by kind (pg_waldump --stats=record, $lsn0..$lsn1; the eight largest)"
        "$SLIME_PG_BIN/pg_waldump" --stats=record -p "$PGDATA/pg_wal" -s "$lsn0" -e "$lsn1" >"$WORK/waldump" 2>&1 ||
            { sed 's/^/    pg_waldump: /' "$WORK/waldump" | head -n 3; return 0; }
        grep -v -e '^Type' -e '^----' -e '^Total' "$WORK/waldump" | awk 'NF >= 10' |
            sort -t')' -k4 -rn | head -n 8 | sed 's/^/    /'
        grep '^Total' "$WORK/waldump" | sed 's/^/    /'
    } >>"$DETAIL"
}
# pg_stat_wal's full-page images | checkpoints begun (pg_stat_bgwriter)
WALSTAT="SELECT w.wal_fpi || '|' || (b.checkpoints_timed + b.checkpoints_req) FROM pg_stat_wal w, pg_stat_bgwriter b"
# settle_files: the loader's files made cold, BENCH_FILES_SETTLE s at most:
# leases released 200 worlds at a time, slime_settle('0') after each
settle_files() {
    local t0=$EPOCHREALTIME done=0 n left cold total ms=0
    say "  loader: settle of the files (at most $FILES_TO s)"
    while :; do
        left=$(sq "$DBL" -c "SELECT count(*) FROM ldr_worlds WHERE holder = 'bench' AND expires > now()")
        [ "$left" -gt 0 ] || break
        [ "$(f "$EPOCHREALTIME - $t0 < $FILES_TO" %d)" = 1 ] || break
        sq "$DBL" -c "SELECT count(slime_lease_release('ldr', world, token)) FROM (SELECT world, token FROM ldr_worlds
            WHERE holder = 'bench' AND expires > now() ORDER BY world LIMIT 200) w" >/dev/null
        q "$DBL" 0 "SELECT items FROM slime_settle('0', progress => '1 day') WHERE what = 'loader files'"
        res mem.settle "$Q_MEM"
        n=$Q_OUT
        done=$((done + n))
        ms=$(f "$ms + $Q_MS" %.1f)
    done
    cold=$(sq "$DBL" -c "SELECT count(*) FROM ldr_worlds WHERE substring(file FROM 1 FOR 4) = '\\x534c4346'::bytea")
    total=$(sq "$DBL" -c "SELECT count(*) FROM ldr_worlds")
    res loader.settle_files "$(f "$ms / 1000" %.1f) s: $(n_fmt "$done") files, $(f "$ms / ($done + ($done == 0))" %.0f) ms each"
    res loader.cold "$(n_fmt "$cold") of $(n_fmt "$total") worlds"
}

# ---- saves -----------------------------------------------------------------------
# maint_loop KIND DIR WHAT: WHAT (gc: slime_gc(), settle: CALL
# slime_settle_batches('0'), a batch a transaction, as the README's schedule
# runs it (until 2026-12-06 slime_settle('0'): one transaction, whose cold
# loader worlds' leases waited for its end), vacuum: VACUUM of KIND's
# tables, as autovacuum would) back to back, 0.5 s
# apart, until $WORK/maint.stop; each run in DIR/maint.log. A VACUUM paces
# itself as autovacuum does (the cluster's autovacuum_vacuum_cost_delay and
# _limit): what runs beside a network's saves is autovacuum, and a manual
# VACUUM's default is no pause at all (the runs until 2026-12-05: one read
# 1.2 GB from disk in 20 s)
VACUUM_COST="SELECT set_config('vacuum_cost_delay', current_setting('autovacuum_vacuum_cost_delay'), false),
    set_config('vacuum_cost_limit', CASE current_setting('autovacuum_vacuum_cost_limit') WHEN '-1'
        THEN current_setting('vacuum_cost_limit') ELSE current_setting('autovacuum_vacuum_cost_limit') END, false)"
maint_loop() {
    local kind=$1 dir=$2 what=$3 db=${KDB[$1]} t0 st sql pre="SELECT 1"
    [ "$what" != vacuum ] || pre=$VACUUM_COST
    case $what-$kind in
    gc-*) sql="SELECT * FROM slime_gc()" ;;
    settle-*) sql="CALL slime_settle_batches('0', progress => '1 day')" ;;
    vacuum-plain) sql="VACUUM islands, slime_store, slime_store_packs" ;;
    vacuum-loader) sql="VACUUM ldr, ldr_worlds, ldr_frames, slime_store, slime_store_packs" ;;
    vacuum-bytea) sql="VACUUM files" ;;
    esac
    while [ ! -e "$WORK/maint.stop" ]; do
        t0=$EPOCHREALTIME
        st=ok
        PGAPPNAME=bench_scale_maint_$what slime_psql -At -d "$db" -c "SET statement_timeout = '$((SECS + 5))s'" \
            -c "$pre" -c "$sql" >/dev/null 2>>"$dir/maint.err" || st=stopped
        printf '%s\t%s\t%s\n' "$what" "$st" "$(f "$EPOCHREALTIME - $t0" %.2f)" >>"$dir/maint.log"
        sleep 0.5
    done
}

# lockwatch_start DB FILE: every 0.1 s (one session, psql's \watch), the
# saves in progress (pgbench's active sessions), those of them waiting on a
# lock, and what each waits on (the lock's kind and relation, and the
# application of the first session holding it up), into FILE
lockwatch_start() {
    PGAPPNAME=bench_scale_watch psql -X -q -At -F '|' -d "$1" >"$2" 2>/dev/null <<'EOF' &
SELECT count(*) FILTER (WHERE a.wait_event_type = 'Lock'), count(*),
       coalesce(string_agg(l.locktype || coalesce(':' || l.relation::regclass::text, '')
                           || '<-' || coalesce(nullif(b.application_name, ''), '?'), ' ')
                FILTER (WHERE a.wait_event_type = 'Lock'), '')
FROM pg_stat_activity a LEFT JOIN pg_locks l ON l.pid = a.pid AND NOT l.granted
LEFT JOIN pg_stat_activity b ON b.pid = (pg_blocking_pids(a.pid))[1]
WHERE a.application_name = 'pgbench' AND a.state = 'active'
\watch 0.1
EOF
    LW_PID=$!
    BGPIDS+=("$LW_PID")
}
# lockwatch_stop FILE: the watch ended; LW_CELL: the share of sampled saves
# in progress that were waiting on a lock, and on what
lockwatch_stop() {
    kill "$LW_PID" 2>/dev/null || true
    wait "$LW_PID" 2>/dev/null || true
    LW_CELL=$(awk -F'|' 'NF >= 2 { n++; w += $1; a += $2; m = split($3, r, " "); for (i = 1; i <= m; i++) on[r[i]]++ }
        END { printf "%.1f%% of %d saves in progress (%d samples)", (a ? 100 * w / a : 0), a, n
              for (k in on) printf "; %s %d", k, on[k] }' "$1")
}

# saves KIND TAG MODE MAINT: pgbench saves of KIND, MODE t (SAVES_N saves)
# or T (BENCH_SECONDS), beside the maintenance loops MAINT names (words of
# gc, settle, vacuum; none when empty; the bytea table has only vacuum);
# sets S_N (saves) and a cell: saves/s; p50 / p99 / max ms
SEED=1
saves() {
    local kind=$1 tag=$2 mode=$3 maint=$4 db=${KDB[$1]} dir count lsn0 mpid="" av0 av1 p rd0 rd1 dk0 dk1
    dir="$WORK/pgb-$SIZE-$kind-$tag"
    mkdir -p "$dir"
    chmod 777 "$dir"
    if [ "$mode" = t ]; then count=(-t $((SAVES_N / CLIENTS))); else count=(-T "$SECS"); fi
    say "  $kind: saves ($tag)"
    lsn0=$(sq "$db" -c "SELECT pg_current_wal_lsn()")
    av0=$(sq "$db" -c "SELECT sum(autovacuum_count) FROM pg_stat_user_tables")
    rd0=$(sq "$db" -c "$READSTAT")
    dk0=$(disk_read)
    if [ -n "$maint" ]; then
        rm -f "$WORK/maint.stop"
        local what
        for what in $maint; do
            [ "$kind" != bytea ] || [ "$what" = vacuum ] || continue
            maint_loop "$kind" "$dir" "$what" &
            mpid="$mpid $!"
            BGPIDS+=("$!")
        done
        sleep 1
    fi
    mem_start
    lockwatch_start "$db" "$dir/locks"
    SEED=$((SEED + 1))
    (cd "$dir" && pgbench -n -M prepared -c "$CLIENTS" -j "$((CLIENTS < 2 ? CLIENTS : 2))" "${count[@]}" \
        --random-seed="$SEED" -D n=0 -D off="${OFF[$kind]}" -D pool="$POOL" -D clients="$CLIENTS" \
        -D quarter=$((SIZE / 4)) -f "$WORK/save-$kind.sql" -l "$db" >"$dir/pgbench.out" 2>&1) ||
        { cat "$dir/pgbench.out" >&2; exit 1; }
    mem_stop
    res mem.saves "$MEM_PEAK"
    lockwatch_stop "$dir/locks"
    res "$kind.locks.$tag" "$LW_CELL"
    if [ -n "$mpid" ]; then
        touch "$WORK/maint.stop"
        # cancel the runs in progress (our own sessions, by their name) until the loops end
        for p in $mpid; do
            while slime_alive "$p"; do
                sq "$db" -c "SELECT count(pg_cancel_backend(pid)) FROM pg_stat_activity
                    WHERE application_name LIKE 'bench\_scale\_maint\_%'" >/dev/null
                sleep 0.3
            done
            wait "$p" || true
        done
    fi
    av1=$(sq "$db" -c "SELECT sum(autovacuum_count) FROM pg_stat_user_tables")
    dk1=$(disk_read)
    sleep 1 # the pgbench backends' last statistics
    rd1=$(sq "$db" -c "$READSTAT")
    local wal tps
    wal=$(sq "$db" -c "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '$lsn0')")
    tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$dir/pgbench.out" | tail -n 1)
    cat "$dir"/pgbench_log.* | awk '{ print $3 / 1000 }' | sort -n >"$dir/lat"
    S_N=$(wc -l <"$dir/lat")
    OFF[$kind]=$((OFF[$kind] + S_N))
    res "$kind.$tag" "$(awk -v tps="$tps" '{ v[NR] = $1 } END { n = NR
        printf "%.0f/s; %.1f / %.1f / %.0f ms", tps, v[int(n * 0.50) + 1], v[int(n * 0.99) + 1], v[n] }' "$dir/lat")"
    [ -n "$maint" ] || res "$kind.wal.$tag" "$(f "$wal / 1024 / $S_N" %.1f)"
    [ -n "$maint" ] || res "$kind.reads.$tag" "$(f "(${rd1%|*} - ${rd0%|*}) / $S_N" %.1f) / $(f "(${rd1#*|} - ${rd0#*|}) / $S_N" %.0f) / $(f "($dk1 - $dk0) / 1024 / $S_N" %.1f)"
    if [ -n "$maint" ]; then
        res "$kind.${tag}_runs" "$(awk -F'\t' '{ n[$1]++; if ($2 == "ok") d[$1]++; s[$1] += $3 }
            END { for (k in n) printf "%s %d (%d done, %.1f s), ", k, n[k], d[k], s[k] }' "$dir/maint.log" | sed 's/, $//'); autovacuum $((av1 - av0))"
    fi
    detail "size $SIZE, $kind, saves $tag: $S_N saves, next versions $((OFF[$kind] - S_N))..$((OFF[$kind] - 1)) of a pool of $POOL (mod), WAL $wal bytes, autovacuum runs $((av1 - av0)), blocks read into shared buffers $((${rd1%|*} - ${rd0%|*})) (found there $((${rd1#*|} - ${rd0#*|}))), read from the machine's disks $((dk1 - dk0)) bytes"
}

# rounds KIND: ROUNDS rounds of 1,000 saves, each followed by slime_gc()
# and slime_settle('0'), the median of each with every round beside it:
# one GC of a fraction of a second moves with whatever else the machine
# did that second, and the targets compare two sizes' figures
rounds() {
    local kind=$1 r gms=() gn=() grd=() sms=() sn=() bad=""
    for ((r = 1; r <= ROUNDS; r++)); do
        saves "$kind" "s1000$([ "$r" = 1 ] || echo "_$r")" t ""
        gc "$kind" "gc_1000_$r"
        [ "$LAST_OK" = ok ] || bad="gc $LAST_OK"
        gms+=("$(f "$LAST_MS / 1000" %.2f)") gn+=("${LAST_N:-0}") grd+=("${LAST_RD:--}")
        settle "$kind" "settle_1000_$r"
        [ "$LAST_OK" = ok ] || bad="${bad:+$bad, }settle $LAST_OK"
        sms+=("$(f "$LAST_MS" %.0f)") sn+=("${LAST_N:-0}")
    done
    res "$kind.gc_1000" "$(median "${gms[@]}") s${bad:+ ($bad)}; rounds $(join ' / ' "${gms[@]}") s; removed $(join ' / ' "${gn[@]}")"
    res "$kind.gc_1000_reads" "$(join '; ' "${grd[@]}")"
    res "$kind.settle_1000" "$(median "${sms[@]}") ms${bad:+ ($bad)}; rounds $(join ' / ' "${sms[@]}") ms; entries $(join ' / ' "${sn[@]}")"
}
# median N...: the middle one (the lower middle of an even count)
median() { printf '%s\n' "$@" | sort -g | sed -n "$((($# + 1) / 2))p"; }
# join SEP WORD...: the words with SEP between them
join() { local sep=$1 out=$2; shift 2; for w in "$@"; do out="$out$sep$w"; done; printf '%s' "$out"; }

# blocks the database read into shared buffers | found there (pg_stat_database)
READSTAT="SELECT blks_read || '|' || blks_hit FROM pg_stat_database WHERE datname = current_database()"
# disk_read: bytes read from the machine's disks so far (/proc/diskstats,
# whole disks, 512-byte sectors): what shared buffers and the page cache missed
disk_read() {
    awk '$3 ~ /^(sd[a-z]+|vd[a-z]+|xvd[a-z]+|nvme[0-9]+n[0-9]+)$/ { s += $6 } END { printf "%.0f\n", s * 512 }' /proc/diskstats 2>/dev/null || echo 0
}

# pool: this size's next versions (new content: stamps of this size)
pool() {
    local j a b per pids=()
    say "  next versions for the saves ($POOL)"
    sq "$DBP" -c "TRUNCATE nextv" >/dev/null
    sq "$DBL" -c "TRUNCATE nextf" >/dev/null
    per=$(((POOL + JOBS - 1) / JOBS))
    for ((j = 0; j < JOBS; j++)); do
        a=$((j * per))
        b=$((a + per - 1))
        [ "$b" -lt "$POOL" ] || b=$((POOL - 1))
        (
            export PGOPTIONS="-c synchronous_commit=off"
            if [[ " $KINDS " == *" plain "* ]]; then
                sq "$DBP" -c "INSERT INTO nextv SELECT k, slime_bytes(next_version(k, -($SIZE::bigint * 100000 + k))) FROM generate_series($a, $b) k"
            fi
            if [[ " $KINDS " == *" loader "* ]]; then
                sq "$DBL" -c "INSERT INTO nextf SELECT k, slime_to_slimefile(next_version(k, -($SIZE::bigint * 100000 + k))) FROM generate_series($a, $b) k"
            fi
        ) &
        pids+=($!)
        BGPIDS+=($!)
    done
    for j in "${pids[@]}"; do wait "$j" || { echo "bench_scale: making next versions failed" >&2; exit 1; }; done
    sq "$DBP" -c "ANALYZE nextv" >/dev/null
    sq "$DBL" -c "ANALYZE nextf" >/dev/null
    OFF=([plain]=0 [loader]=0 [bytea]=0)
}

# ---- scans (plain) ---------------------------------------------------------------
scans() {
    say "  plain: block totals, header-only read, holds X"
    q "$DBP" "$SCAN_TO" "SELECT sum((slime_info(world) ->> 'chunks')::int) FROM islands"
    local hdr_ms=$Q_MS hdr_st=$Q_STATUS
    res plain.header "$(f "$Q_MS" "%.0f ms")"
    q "$DBP" "$SCAN_TO" "SELECT md5(slime_block_totals(world)::text) FROM islands"
    res mem.totals "$Q_MEM"
    if [ "$Q_STATUS" = ok ]; then
        res plain.totals "$(f "$Q_MS / 1000" %.1f) s, $(f "$Q_MS / $SIZE" %.2f) ms an island"
        [ "$hdr_st" != ok ] || res plain.totals_x "$(f "$Q_MS / $hdr_ms" %.1f)"
    else
        res plain.totals "did not finish in $SCAN_TO s (over $(f "$SCAN_TO * 1000 / $SIZE" %.1f) ms an island)"
    fi
    res plain.workers "$(sq "$DBP" -c "EXPLAIN SELECT slime_block_totals(world) FROM islands" |
        sed -n 's/.*Workers Planned: \([0-9]*\).*/\1/p' | head -n 1 | grep . || echo 0)"
    local x how
    for x in minecraft:barrier minecraft:diamond_ore; do
        if [ "$HAS_NAMES" = t ]; then
            how="GIN index"
            sq "$DBP" -c "EXPLAIN SELECT count(*) FROM islands WHERE slime_block_names(world) @> ARRAY['$x']" |
                grep -q 'Bitmap Index Scan on islands_block_names' || how="no index in the plan"
            # as an application asks it: in a session that has run a query
            # before (the third of three; the first also loads the library
            # and fills the catalog caches, reported beside it)
            q "$DBP" "$SCAN_TO" "SELECT count(*) FROM islands WHERE slime_block_names(world) @> ARRAY['$x']" 3
            how="$how; a new session's first $(f "$Q_FIRST_MS" %.1f) ms"
        else
            how="slime_block_counts (no slime_block_names)"
            q "$DBP" "$SCAN_TO" "SELECT count(*) FROM islands WHERE EXISTS
                (SELECT 1 FROM slime_block_counts(world) b WHERE b.block = '$x')"
        fi
        res mem.holds "$Q_MEM"
        if [ "$Q_STATUS" = ok ]; then
            res "plain.holds.$x" "$(f "$Q_MS" "%.1f ms"): $(n_fmt "$Q_OUT") islands ($how)"
        else
            res "plain.holds.$x" "did not finish in $SCAN_TO s ($how)"
        fi
        # without the index, diamond_ore costs the same pass again: skip it
        [ "$HAS_NAMES" = t ] || break
    done
}

# freeze KIND: VACUUM (FREEZE) of KIND's tables, what an anti-wraparound pass costs
freeze() {
    local kind=$1 db=${KDB[$1]} lsn0 tabs
    [ "$FREEZE" = 1 ] || return 0
    tabs=$(sq "$db" -c "SELECT string_agg(b::text, ', ') FROM bench_tables('${TABLES[$kind]}', ${WITHEXT[$kind]}) b")
    say "  $kind: VACUUM (FREEZE) $tabs"
    lsn0=$(sq "$db" -c "SELECT pg_current_wal_lsn()")
    q "$db" 0 "VACUUM (FREEZE) $tabs"
    res "$kind.freeze" "$(f "$Q_MS / 1000" %.1f) s, WAL $(f "$(sq "$db" -c "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '$lsn0')") / 1048576" %.0f) MB"
}

# ---- the table -----------------------------------------------------------------
ROWS=(
"gen.fill|island values made in SQL (not stored), islands/s"
"file.fill|their slime files written (slime_to_slimefile), islands/s"
"plain.fill|(1) plain + trigger: fill, islands/s"
"loader.fill|(2) loader: first saves, islands/s"
"bytea.fill|(3) bytea: fill, islands/s"
"bytea.bpi|(3) bytea: bytes an island (every relation)"
"plain.bpi|(1) plain + store: bytes an island (x bytea)"
"loader.bpi|(2) loader + store: bytes an island (x bytea)"
"bytea.live|(3) bytea: bytes of the values an island (no page overhead, free space)"
"plain.live|(1) plain + store: bytes of the values an island"
"loader.live|(2) loader + store: bytes of the values an island"
"loader.cold|(2) loader worlds whose file is cold"
"plain.entries|(1) store entries / packs"
"loader.entries|(2) store entries / packs"
"plain.toast|(1) TOAST values an island, per table"
"loader.toast|(2) TOAST values an island, per table"
"bytea.toast|(3) TOAST values an island"
"plain.settle_fill|(1) settle of the fill"
"loader.settle_fill|(2) settle of the fill (store entries)"
"loader.settle_files|(2) settle of the files (cold forms, gathering)"
"plain.vacuum|(1) VACUUM ANALYZE after the fill"
"loader.vacuum|(2)+(3) VACUUM ANALYZE after the fill"
"plain.gc_fill|(1) slime_gc() after the fill"
"plain.settle_gc|(1) slime_settle() after that GC"
"plain.gc_thin|(1) slime_gc() again (sets the rows of the packs the first left thin unsettled)"
"plain.settle_thin|(1) slime_settle() after it (repacks them)"
"plain.gc_idle|(1) slime_gc(), nothing to do"
"plain.settle_idle|(1) slime_settle(), nothing to do"
"plain.gc_1000|(1) slime_gc() after 1,000 saves (median of the rounds)"
"plain.gc_1000_reads|(1) ... each round: blocks read into shared buffers / found there / KB read from disk"
"plain.settle_1000|(1) slime_settle() after 1,000 saves (median of the rounds)"
"loader.gc_fill|(2) slime_gc() after the fill"
"loader.settle_gc|(2) slime_settle() after that GC"
"loader.gc_thin|(2) slime_gc() again (sets the rows of the packs the first left thin unsettled)"
"loader.settle_thin|(2) slime_settle() after it (repacks them)"
"loader.gc_idle|(2) slime_gc(), nothing to do"
"loader.settle_idle|(2) slime_settle(), nothing to do"
"loader.gc_1000|(2) slime_gc() after 1,000 saves (median of the rounds)"
"loader.gc_1000_reads|(2) ... each round: blocks read into shared buffers / found there / KB read from disk"
"loader.settle_1000|(2) slime_settle() after 1,000 saves (median of the rounds)"
"plain.s1000|(1) 1,000 saves: saves/s; p50 / p99 / max"
"plain.alone|(1) saves alone: saves/s; p50 / p99 / max"
"plain.gcsettle|(1) saves while GC, settle loops"
"plain.gcsettle_runs|(1) maintenance runs meanwhile"
"plain.locks.gcsettle|(1) saves beside GC, settle: waiting on a lock"
"plain.maint|(1) saves while GC, settle, VACUUM loops"
"plain.maint_runs|(1) maintenance runs meanwhile"
"plain.locks.alone|(1) saves alone: waiting on a lock (sampled every 0.1 s)"
"plain.locks.maint|(1) saves beside maintenance: waiting on a lock"
"plain.wal.alone|(1) WAL a save, KB"
"plain.reads.alone|(1) saves alone, a save: blocks read into shared buffers / found there / KB read from disk"
"loader.s1000|(2) 1,000 saves: saves/s; p50 / p99 / max"
"loader.alone|(2) saves alone: saves/s; p50 / p99 / max"
"loader.gcsettle|(2) saves while GC, settle loops"
"loader.gcsettle_runs|(2) maintenance runs meanwhile"
"loader.locks.gcsettle|(2) saves beside GC, settle: waiting on a lock"
"loader.maint|(2) saves while GC, settle, VACUUM loops"
"loader.maint_runs|(2) maintenance runs meanwhile"
"loader.locks.alone|(2) saves alone: waiting on a lock (sampled every 0.1 s)"
"loader.locks.maint|(2) saves beside maintenance: waiting on a lock"
"loader.wal.alone|(2) WAL a save, KB"
"loader.reads.alone|(2) saves alone, a save: blocks read into shared buffers / found there / KB read from disk"
"bytea.alone|(3) saves alone: saves/s; p50 / p99 / max"
"bytea.maint|(3) saves while VACUUM loops"
"bytea.maint_runs|(3) maintenance runs meanwhile"
"bytea.locks.alone|(3) saves alone: waiting on a lock (sampled every 0.1 s)"
"bytea.locks.maint|(3) saves beside maintenance: waiting on a lock"
"bytea.wal.alone|(3) WAL a save, KB"
"bytea.reads.alone|(3) saves alone, a save: blocks read into shared buffers / found there / KB read from disk"
"plain.totals|(1) slime_block_totals over every island"
"plain.header|(1) header-only read of the same rows"
"plain.totals_x|(1) totals / header-only read"
"plain.workers|(1) parallel workers planned for the totals"
"plain.holds.minecraft:barrier|(1) holds minecraft:barrier (1 island in 1,000)"
"plain.holds.minecraft:diamond_ore|(1) holds minecraft:diamond_ore (every island)"
"plain.freeze|(1) VACUUM (FREEZE) of its tables"
"loader.freeze|(2) VACUUM (FREEZE) of its tables"
"bytea.freeze|(3) VACUUM (FREEZE) of its table"
"mem.fill|peak private memory of a backend, MB: fill"
"mem.saves|... saves (pgbench backends)"
"mem.settle|... slime_settle"
"mem.gc|... slime_gc"
"mem.totals|... block totals"
"mem.holds|... holds X"
)
# render: the table of every size measured so far (mem.*: the largest value)
render() {
    local sizes
    sizes=$(cut -f1 "$RES" | awk '!seen[$0]++' | tr '\n' ' ')
    printf '\n| islands |'
    for s in $sizes; do printf ' %s |' "$(n_fmt "$s")"; done
    printf '\n|---|'
    for s in $sizes; do printf -- '---:|'; done
    printf '\n'
    local row key label
    for row in "${ROWS[@]}"; do
        key=${row%%|*}
        label=${row#*|}
        awk -F'\t' -v k="$key" '$2 == k' "$RES" | grep -q . || continue
        printf '| %s |' "$label"
        for s in $sizes; do
            printf ' %s |' "$(awk -F'\t' -v k="$key" -v s="$s" '
                $1 == s && $2 == k { if (k ~ /^mem\./) { if ($3 != "-" && $3 + 0 > m + 0) m = $3 } else v = $3 }
                END { if (k ~ /^mem\./) print (m == "" ? "-" : m); else print (v == "" ? "-" : v) }' "$RES")"
        done
        printf '\n'
    done
}

# ---- the sizes -----------------------------------------------------------------
# need KINDS: bytes the islands SIZE adds take for KINDS (1.3x the bytes an
# island measured at the size before, or a guess), plus the reserve
need() {
    local s=0 k
    for k in $1; do s=$((s + BPI_EST[$k] * 13 * (SIZE - prev) / 10)); done
    echo $((s + RESERVE * 1024 * 1024 * 1024))
}
declare -A BPI=()
prev=0
for SIZE in $SIZES; do
    # disk: what the kinds still run need for the islands added, by the bytes
    # an island measured at the size before (or a guess), plus a reserve
    free=$(df -B1 --output=avail "${PGDATA:-/tmp}" 2>/dev/null | tail -n 1 | tr -d ' ')
    [ -n "$free" ] || free=$(df -B1 --output=avail /tmp | tail -n 1 | tr -d ' ')
    if [[ " $KINDS " == *" loader "* ]] && [ "$(need "$KINDS")" -gt "$free" ]; then
        msg="the loader and the bytea table stop at $(n_fmt "$prev") islands: $(n_fmt "$SIZE") needs about $(($(need "$KINDS") / 1073741824)) GB with $RESERVE GB kept free, $((free / 1073741824)) GB are free"
        say "$msg"
        detail "$msg"
        [ "$KINDS" != loader ] || break
        KINDS="plain"
    fi
    if [ "$(need plain)" -gt "$free" ]; then
        msg="stops at $(n_fmt "$prev") islands: $(n_fmt "$SIZE") needs about $(($(need plain) / 1073741824)) GB for the plain table and its store, $((free / 1073741824)) GB are free"
        say "$msg"
        detail "$msg"
        break
    fi
    say "size $SIZE: fill islands $((prev + 1))..$SIZE into: $KINDS"
    fill $((prev + 1)) "$SIZE"
    for kind in $KINDS; do
        [ "$kind" != bytea ] || continue
        settle_fill "$kind"
        [ "$kind" != loader ] || settle_files
    done
    # the collection a schedule runs after the fill, before the sizes: it
    # consumes the GC's log of the fill's references (1.3 KB an island)
    for kind in plain loader; do
        [[ " $KINDS " == *" $kind "* ]] || continue
        gc "$kind" gc_fill
        settle "$kind" settle_gc
        # the packs that GC's deletes left less than half alive: the next
        # collection sets their rows unsettled and the settle after it
        # repacks them; only then is there nothing to do
        gc "$kind" gc_thin
        settle "$kind" settle_thin
    done
    say "  VACUUM ANALYZE"
    if [[ " $KINDS " == *" plain "* ]]; then
        q "$DBP" 0 "VACUUM ANALYZE"
        res plain.vacuum "$(secs_cell)"
    fi
    if [[ " $KINDS " == *" loader "* ]]; then
        q "$DBL" 0 "VACUUM ANALYZE"
        res loader.vacuum "$(secs_cell)"
    fi
    for kind in $KINDS; do sizes "$kind"; done
    [[ " $KINDS " != *" bytea "* ]] || res bytea.bpi "$(n_fmt "${BPI[bytea]}")"
    for kind in plain loader; do
        [[ " $KINDS " == *" $kind "* ]] || continue
        if [[ " $KINDS " == *" bytea "* ]]; then
            res "$kind.bpi" "$(n_fmt "${BPI[$kind]}") ($(f "${BPI[$kind]} / ${BPI[bytea]}" %.3f))"
        else
            res "$kind.bpi" "$(n_fmt "${BPI[$kind]}")"
        fi
    done
    for kind in plain loader; do
        [[ " $KINDS " == *" $kind "* ]] || continue
        gc "$kind" gc_idle
        settle "$kind" settle_idle
    done
    pool
    for kind in plain loader; do
        [[ " $KINDS " == *" $kind "* ]] || continue
        rounds "$kind"
    done
    for kind in $KINDS; do
        saves "$kind" alone T ""
        [ "$kind" = bytea ] || saves "$kind" gcsettle T "gc settle"
        saves "$kind" maint T "gc settle vacuum"
    done
    [[ " $KINDS " != *" plain "* ]] || scans
    for kind in $KINDS; do freeze "$kind"; done
    say "size $SIZE done"
    render >&2
    prev=$SIZE
done

{
    printf '\n== bench_scale (issue #32): %s ==\n\n' "$(date -u +%Y-%m-%dT%H:%MZ)"
    cat "$WORK/settings.txt"
    echo "commit $(git -C "$SLIME_ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'), slime_block_names: $HAS_NAMES"
    echo "$CLIENTS clients, $SECS s a save phase, fill $JOBS sessions x $BATCH islands a batch, save pool $POOL, GC timeout $GC_TO s, scan timeout $SCAN_TO s"
    cat "$WORK/templates.txt"
    render
    printf '\nDetails:\n'
    cat "$DETAIL"
} | tee "$OUTDIR/bench_scale-last.txt"
FINISHED=1
