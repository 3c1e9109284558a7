#!/usr/bin/env bash
# test/sanitize.sh — the extension under AddressSanitizer + UBSan.
#
#   1. builds slime.so with -fsanitize=address,undefined in a scratch copy of
#      the sources (so the tree's normal objects stay as they are) and
#      installs it into a private copy of the server (test/lib.sh
#      slime_private_pg), so that every other cluster of the machine keeps
#      loading the normal build and other suites run beside this one;
#   2. starts a throwaway cluster (test/lib.sh) and restarts its postmaster
#      with LD_PRELOAD=libasan: the server binary is not instrumented, so the
#      ASan runtime must be in the process before slime.so is loaded;
#   3. runs `make installcheck` and test/pgdump.sh against it
#      (SANITIZE_PGDUMP=0 skips the latter). The regression tests are the
#      Makefile's REGRESS but corpus (SANITIZE_REGRESS names others): it
#      took 150 of the 226 s the 19 tests took under ASan; the regress
#      suite runs it on the normal build, and the fuzz targets run the
#      core's readers on seeds cut from the corpus under ASan;
#   4. fails when any ASan/UBSan report was written, when the server log
#      has "terminated by signal", or when the backends did not run with
#      the ASan runtime;
#   5. removes the private copy (also when anything above failed).
#
# The compiler is PGXS's (gcc); CC=clang works too (then the runtime is
# clang's libclang_rt.asan). Flags go through PGXS's COPT, which appends
# to CFLAGS and LDFLAGS and leaves the Makefile's PG_CFLAGS alone (a
# command-line PG_CFLAGS+=... would replace them). Logs are kept in
# $SANITIZE_LOGDIR (default: a fresh /tmp/slime-san.XXXXXX, removed on
# success).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$SLIME_ROOT"

SAN_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
CC=${CC:-$("$SLIME_PG_CONFIG" --cc)}
case $CC in
    *clang*) ASAN_LIB=$("$CC" -print-file-name=libclang_rt.asan-x86_64.so) ;;
    *) ASAN_LIB=$("$CC" -print-file-name=libasan.so) ;;
esac
[ -f "$ASAN_LIB" ] || { echo "sanitize: ASan runtime not found ($ASAN_LIB)" >&2; exit 1; }

if corpus=$(slime_corpus); then export SLIME_CORPUS=$corpus; else exit 1; fi

keep_logs=0
LOGDIR=${SANITIZE_LOGDIR:-}
if [ -z "$LOGDIR" ]; then LOGDIR=$(mktemp -d /tmp/slime-san.XXXXXX); else keep_logs=1; mkdir -p "$LOGDIR"; fi
SRC=$(mktemp -d /tmp/slime-san-src.XXXXXX)

# ---- a private server to install the sanitized build into -------------------
PRIV=$(mktemp -d /tmp/slime-san-pg.XXXXXX)
slime_on_exit 'rm -rf "$SRC" "$PRIV"'
SLIME_PG_BIN=$(slime_private_pg "$PRIV") || { echo "sanitize: cannot copy the server" >&2; exit 1; }
SLIME_PG_CONFIG=$SLIME_PG_BIN/pg_config
PATH="$SLIME_PG_BIN:$PATH"
export SLIME_PG_BIN SLIME_PG_CONFIG PATH

# ---- 1. sanitized build from a scratch copy ---------------------------------
slime_log "sanitize: building slime.so with $CC $SAN_FLAGS"
cp -r Makefile slime.control src sql expected "$SRC"/
find "$SRC" \( -name '*.o' -o -name '*.bc' -o -name '*.so' \) -delete
mkdir -p "$SRC/test"
mkmake() { make -C "$SRC" PG_CONFIG="$SLIME_PG_CONFIG" CC="$CC" with_llvm=no COPT="$SAN_FLAGS" "$@"; }
mkmake -s -j2 >"$LOGDIR/build.log" 2>&1 || { cat "$LOGDIR/build.log" >&2; exit 1; }
nm -D "$SRC/slime.so" | grep '__asan_init' >/dev/null ||
    { echo "sanitize: slime.so has no ASan instrumentation" >&2; exit 1; }
mkmake -s install >>"$LOGDIR/build.log" 2>&1 || { cat "$LOGDIR/build.log" >&2; exit 1; }

# ---- 2. cluster, restarted with the ASan runtime preloaded ------------------
slime_cluster_start
SAN_DIR=$SLIME_PGTMP/san            # writable by the server's OS user
mkdir -p "$SAN_DIR"
chown postgres:postgres "$SAN_DIR"

# LD_PRELOAD alone hangs the postmaster: a preloaded DSO is initialized after
# the libraries postgres links (libgpg-error, gnutls), whose constructors call
# bindtextdomain(); its malloc is the ASan runtime's first call and
# initializing ASan inside that leaves glibc's _nl_state_lock broken, so
# postgres's own bindtextdomain() waits forever. A two-line shim marked
# DF_1_INITFIRST (-z initfirst) calls __asan_init() before any other
# constructor runs.
SHIM=$SLIME_PGTMP/asan_initfirst.so
printf '%s\n' 'extern void __asan_init(void);' \
    '__attribute__((constructor)) static void slime_asan_first(void) { __asan_init(); }' \
    >"$SLIME_PGTMP/asan_initfirst.c"
cc -shared -fPIC -Wl,-z,initfirst "$SLIME_PGTMP/asan_initfirst.c" -o "$SHIM"
chmod 755 "$SHIM"
PRELOAD="$ASAN_LIB:$SHIM"
(cd / && timeout -k 5 30 runuser -u postgres -- env LD_PRELOAD="$PRELOAD" \
    ASAN_OPTIONS=detect_leaks=0 "$SLIME_PG_BIN/postgres" --version >/dev/null) ||
    { echo "sanitize: postgres does not start with LD_PRELOAD=$PRELOAD" >&2; exit 1; }

slime_log "sanitize: restarting the postmaster with LD_PRELOAD=$PRELOAD"
(cd / && runuser -u postgres -- env \
    LD_PRELOAD="$PRELOAD" \
    ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:disable_coredump=1:log_path=$SAN_DIR/asan" \
    UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$SAN_DIR/ubsan" \
    "$SLIME_PG_BIN/pg_ctl" -D "$PGDATA" -l "$SLIME_PGTMP/server.log" -m fast -w -t 60 restart \
    >/dev/null) || {
    cat "$SLIME_PGTMP/server.log" >&2
    # a postmaster that hangs before writing postmaster.pid: end it by PID
    # (its data directory is our own mktemp path) before the dir is removed
    for p in $(pgrep -u postgres -f -- "-D $PGDATA" || true); do kill -9 "$p" 2>/dev/null || true; done
    exit 1
}

# A backend that has loaded slime must have the ASan runtime mapped.
pid=$(slime_psql -At -c "LOAD 'slime'; SELECT pg_backend_pid();" 2>&1 | tail -n 1)
postmaster=$(head -n 1 "$PGDATA/postmaster.pid")
grep -q "$(basename "$ASAN_LIB")" "/proc/$postmaster/maps" ||
    { echo "sanitize: the postmaster ($postmaster) has no ASan runtime mapped" >&2; exit 1; }
echo "sanitize: postmaster $postmaster runs with $(basename "$ASAN_LIB"); LOAD 'slime' ok (backend $pid)"

# ---- 3. the workload ----------------------------------------------------------
rc=0
SAN_REGRESS=${SANITIZE_REGRESS:-$(sed -n 's/^REGRESS = //p' Makefile | sed 's/\(^\| \)corpus\( \|$\)/ /' | xargs)}
slime_log "sanitize: make installcheck ($SAN_REGRESS)"
if ! mkmake installcheck REGRESS="$SAN_REGRESS" >"$LOGDIR/installcheck.log" 2>&1; then
    rc=1
    cat "$LOGDIR/installcheck.log"
    [ -f "$SRC/test/regress-out/regression.diffs" ] && head -n 200 "$SRC/test/regress-out/regression.diffs"
else
    grep -E 'tests passed|ok ' "$LOGDIR/installcheck.log" || true
fi
if [ "${SANITIZE_PGDUMP:-1}" = 1 ]; then
    slime_log "sanitize: test/pgdump.sh"
    if ! bash test/pgdump.sh >"$LOGDIR/pgdump.log" 2>&1; then
        rc=1
        tail -n 40 "$LOGDIR/pgdump.log"
    else
        tail -n 3 "$LOGDIR/pgdump.log"
    fi
fi

# ---- 4. verdict ----------------------------------------------------------------
# stop the server first: every backend has exited and written its reports
(cd / && runuser -u postgres -- "$SLIME_PG_BIN/pg_ctl" -D "$PGDATA" -m fast -w -t 120 stop \
    >/dev/null) || { echo "sanitize: pg_ctl stop failed" >&2; rc=1; }
cp "$SLIME_PGTMP/server.log" "$LOGDIR/server.log"
shopt -s nullglob
reports=("$SAN_DIR"/asan* "$SAN_DIR"/ubsan*)
cp -p "${reports[@]}" "$LOGDIR/" 2>/dev/null || true
# empty report files are no reports
nonempty=()
for f in "${reports[@]}"; do [ -s "$f" ] && nonempty+=("$f"); done
if [ ${#nonempty[@]} -gt 0 ]; then
    rc=1
    echo "sanitize: ${#nonempty[@]} sanitizer report(s):" >&2
    for f in "${nonempty[@]}"; do echo "---- $(basename "$f")"; head -n 60 "$f"; done
fi
slime_cluster_stop
if grep -E 'terminated by signal|was terminated by|server process .* exited with exit code' \
    "$LOGDIR/server.log"; then
    rc=1
    echo "sanitize: a backend died (see above, full log $LOGDIR/server.log)" >&2
fi
if grep -qE 'runtime error:|AddressSanitizer|LeakSanitizer' "$LOGDIR/server.log"; then
    rc=1
    echo "sanitize: sanitizer output in the server log:" >&2
    grep -E -A20 'runtime error:|AddressSanitizer' "$LOGDIR/server.log" | head -n 60
fi

# ---- 5. verdict ------------------------------------------------------------------
if [ "$rc" = 0 ]; then
    echo "sanitize: passed (installcheck$([ "${SANITIZE_PGDUMP:-1}" = 1 ] && echo ' + pgdump') under ASan+UBSan; no reports; no backend crashes)"
    [ "$keep_logs" = 1 ] || rm -rf "$LOGDIR"
else
    echo "sanitize: FAILED (logs in $LOGDIR)" >&2
fi
exit "$rc"
