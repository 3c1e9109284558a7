# shellcheck shell=bash
# test/lib.sh — shared helpers for slime's set-up and test scripts.
# Source it (". test/lib.sh"); it defines functions and a few variables and
# runs nothing by itself.  All functions return non-zero on failure.

SLIME_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SLIME_PG_BIN=${SLIME_PG_BIN:-/usr/lib/postgresql/15/bin}
SLIME_PG_CONFIG=$SLIME_PG_BIN/pg_config
SLIME_DEPS=(build-essential postgresql-15 postgresql-server-dev-15
            libzstd-dev libdeflate-dev liblz4-dev libxxhash-dev nettle-dev libspng-dev zlib1g-dev
            libpq-dev libmicrohttpd-dev python3)

# PG 15's own client tools (psql, pg_dump, pg_restore) first, not pg_wrapper.
case ":$PATH:" in *":$SLIME_PG_BIN:"*) ;; *) PATH="$SLIME_PG_BIN:$PATH" ;; esac
export PATH

slime_log()  { printf '\n== %s\n' "$*" >&2; }
slime_warn() { printf 'WARNING: %s\n' "$*" >&2; }

# ---- exit hooks: several scripts may each want cleanup on EXIT -------------
SLIME_EXIT_HOOKS=()
slime_on_exit() {            # slime_on_exit "command string"
    SLIME_EXIT_HOOKS+=("$1")
    trap _slime_run_exit_hooks EXIT
}
_slime_run_exit_hooks() {
    local rc=$? i
    for ((i = ${#SLIME_EXIT_HOOKS[@]} - 1; i >= 0; i--)); do
        eval "${SLIME_EXIT_HOOKS[i]}" || true
    done
    SLIME_EXIT_HOOKS=()
    return $rc
}

# slime_huge_pages N: N more 2 MB huge pages reserved (vm.nr_hugepages),
# given back on EXIT, after the clusters started later have stopped; fails,
# reserving nothing, without root or when the kernel cannot find N free
slime_huge_pages() {
    local before
    before=$(cat /proc/sys/vm/nr_hugepages) || return 1
    echo $((before + $1)) >/proc/sys/vm/nr_hugepages 2>/dev/null || return 1
    if [ "$(awk '/^HugePages_Free/ { print $2 }' /proc/meminfo)" -lt "$1" ]; then
        echo "$before" >/proc/sys/vm/nr_hugepages
        return 1
    fi
    slime_on_exit "echo $before >/proc/sys/vm/nr_hugepages 2>/dev/null || true"
}

# ---- dependencies -----------------------------------------------------------
# Installs only the Debian packages that are missing; a no-op (fast, no
# network) when everything is there already.
slime_install_deps() {
    local missing=() p st
    for p in "${SLIME_DEPS[@]}"; do
        st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
        [ "$st" = installed ] || missing+=("$p")
    done
    if [ ${#missing[@]} -eq 0 ]; then
        echo "deps: all ${#SLIME_DEPS[@]} packages present" >&2
        return 0
    fi
    echo "deps: installing ${missing[*]}" >&2
    slime_apt "${missing[@]}"
}

# slime_apt PKG...: apt-get update, then installs PKG..., one apt at a time:
# suites of both lanes of test/run-all.sh install what they need, and two
# apt-gets at once fail on dpkg's lock (ours is taken first; an apt of
# someone else's is waited for up to 10 minutes).
slime_apt() {
    (
        exec 9>/tmp/slime-apt.lock
        flock 9
        export DEBIAN_FRONTEND=noninteractive
        apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null 9>&- || exit 1
        apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "$@" >/dev/null 9>&- || exit 1
    )
}

# ---- build ------------------------------------------------------------------
# slime_build_install: builds and installs the extension, then the
# command-line tool.  Returns 1 when the extension fails to build or
# install, 2 when only build/slimetool fails.
slime_build_install() {
    slime_build_locked _slime_build_install
}
_slime_build_install() {
    (
        cd "$SLIME_ROOT" || exit 1
        make -j2 PG_CONFIG="$SLIME_PG_CONFIG" || exit 1
        make install PG_CONFIG="$SLIME_PG_CONFIG" || exit 1
    ) || return 1
    slime_build_tool || return 2
}

# slime_build_locked CMD...: runs CMD holding the tree's build lock.  The
# suites of test/run-all.sh's two lanes build and install from one tree at
# the same time (each suite runs slime_build_install, the fuzz suite's SQL
# replay too, valgrind and fuzz build their own targets): two `make install`
# writing the same files at once fail, and two makes writing one target
# leave a torn file.  The lock serializes them; a tree already built makes
# nothing, so the wait is short.  (The descriptor is closed for CMD's
# children: nothing started here outlives the build.)
slime_build_locked() {
    mkdir -p "$SLIME_ROOT/build"
    (
        exec 9>"$SLIME_ROOT/build/.build.lock"
        flock 9
        "$@" 9>&-
    )
}

# slime_build_tool: `make tool` (build/slimetool); its absence is tolerated
# while src/tool/slimetool.c does not exist, with a message.
slime_build_tool() {
    if [ ! -f "$SLIME_ROOT/src/tool/slimetool.c" ]; then
        echo "NOTE: src/tool/slimetool.c does not exist yet: build/slimetool not built" >&2
        return 0
    fi
    (cd "$SLIME_ROOT" && make -j2 tool PG_CONFIG="$SLIME_PG_CONFIG") ||
        { echo "ERROR: make tool (build/slimetool) failed" >&2; return 1; }
}

# slime_java_bench_prepare OUTDIR SRC...: what a Java benchmark of the
# loader needs (test/bench): the JDK, pgJDBC, JUnit 5 and zstd-jni from
# Debian, the extension built and installed, the corpus (SLIME_CORPUS,
# exported), the loader's test classes (for their helpers, not run), and
# SRC... compiled into OUTDIR; the classpath in SLIME_JAVA_CP.
slime_java_bench_prepare() {
    local out=$1
    shift
    SLIME_DEPS+=(default-jdk-headless libpostgresql-jdbc-java junit5 libzstd-jni-java)
    slime_install_deps >&2
    slime_build_install >&2
    SLIME_CORPUS=$(slime_corpus)
    export SLIME_CORPUS
    (cd "$SLIME_ROOT" && make -s java-test PG_CONFIG="$SLIME_PG_CONFIG" SLIME_JAVA_RUN=0 >&2)
    SLIME_JAVA_CP=$(cd "$SLIME_ROOT" && make -s --no-print-directory java-classpath PG_CONFIG="$SLIME_PG_CONFIG")
    rm -rf "$out"
    javac --release 17 -cp "$SLIME_JAVA_CP" -d "$out" "$@"
}

# ---- corpus -----------------------------------------------------------------
# Prints the absolute path of the shared corpus (SLIME_CORPUS overrides
# ../shared/corpus); loud error and status 1 when it is missing.
slime_corpus() {
    local c=${SLIME_CORPUS:-$SLIME_ROOT/../shared/corpus}
    if [ -d "$c" ] && [ -n "$(ls -A "$c" 2>/dev/null)" ]; then
        (cd "$c" && pwd -P)
        return 0
    fi
    {
        echo "######################################################################"
        echo "ERROR: slime test corpus NOT FOUND at: $c"
        echo "  Expected ../shared/corpus beside the repository, or set SLIME_CORPUS."
        echo "  Tests that need real Minecraft files cannot run without it."
        echo "######################################################################"
    } >&2
    return 1
}

# ---- a private copy of the server ---------------------------------------------
# slime_private_pg DIR: prints the bin directory of a copy of this PostgreSQL
# 15 (its programs, libraries, share and server headers, at the same places
# relative to each other under DIR; PostgreSQL finds them relative to its
# programs), into which `make install PG_CONFIG=<bin>/pg_config` installs a
# slime.so that no other cluster of the machine loads. A suite that installs
# another build (test/sanitize.sh) runs beside the others this way.
slime_private_pg() {
    local dir=$1 p
    mkdir -p "$dir" && chmod 755 "$dir" || return 1    # the server's OS user runs its programs
    for p in "$("$SLIME_PG_CONFIG" --bindir)/.." "$("$SLIME_PG_CONFIG" --sharedir)" \
             "$("$SLIME_PG_CONFIG" --includedir)"; do
        p=$(cd "$p" && pwd -P) || return 1
        (cd / && cp -a --parents "${p#/}" "$dir") || return 1
    done
    (cd "$dir$(cd "$("$SLIME_PG_CONFIG" --bindir)" && pwd -P)" && pwd)
}

# ---- TCP ports ----------------------------------------------------------------
# Test servers take ports below the kernel's ephemeral range (32768-60999 by
# default), where no outgoing connection's local end can sit.
SLIME_PORT_BASE=${SLIME_PORT_BASE:-25432}

# slime_port_used PORT [STATE]: true when a TCP socket of this machine (a
# listener, or either end of a connection; with STATE, only a socket in that
# state, as /proc/net/tcp writes it) has PORT as its local port. Reads
# /proc/net/tcp{,6}: needs no package.
slime_port_used() {
    awk -v p="$(printf ':%04X' "$1")" -v st="${2:-}" \
        'FNR > 1 && (st == "" || $4 == st) && substr($2, length($2) - 4) == p { f = 1 }
        END { exit !f }' /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# slime_port_listening PORT: true when a TCP listener has PORT
slime_port_listening() { slime_port_used "$1" 0A; }

# slime_port_pick FROM: prints the first port from FROM on (200 tried) that
# no TCP socket uses
slime_port_pick() {
    local port=$1
    while [ "$port" -lt $(($1 + 200)) ]; do
        slime_port_used "$port" || { echo "$port"; return 0; }
        port=$((port + 1))
    done
    echo "no free TCP port in $1..$(($1 + 199))" >&2
    return 1
}

# ---- throwaway cluster ------------------------------------------------------
# slime_cluster_start [--keep]
# initdb (as OS user postgres, trust auth) into a fresh /tmp/slime-pg.XXXXXX,
# starts it on a unix socket in that dir only (and on TCP at the address
# SLIME_PG_LISTEN when set, e.g. 127.0.0.1 for JDBC), and exports PGHOST
# PGPORT PGUSER PGDATABASE PGDATA SLIME_PGTMP.  SLIME_PG_CONF, when set, is
# appended to postgresql.conf (later lines win over the defaults below).
# Without --keep, the cluster is stopped and removed on EXIT.
# shellcheck disable=SC2120  # --keep is for the callers in other scripts
slime_cluster_start() {
    local keep=0 tmp port lockfd try
    [ "${1:-}" = --keep ] && keep=1
    id postgres >/dev/null 2>&1 || { echo "no OS user 'postgres' (install postgresql-15)" >&2; return 1; }

    tmp=$(mktemp -d /tmp/slime-pg.XXXXXX) || return 1
    chmod 755 "$tmp"                  # others may reach the socket
    chown postgres:postgres "$tmp"
    SLIME_PGTMP=$tmp
    export SLIME_PGTMP PGDATA="$tmp/data"
    [ $keep = 1 ] || slime_on_exit "slime_cluster_stop '$tmp'"

    runuser -u postgres -- "$SLIME_PG_BIN/initdb" -D "$PGDATA" -A trust -U postgres \
        -E UTF8 --locale=C -N >"$tmp/initdb.log" 2>&1 ||
        { cat "$tmp/initdb.log" >&2; return 1; }

    cat >>"$PGDATA/postgresql.conf" <<EOF

# ---- slime throwaway test cluster ----
listen_addresses = '${SLIME_PG_LISTEN:-}'
unix_socket_directories = '$tmp'
shared_preload_libraries = ''
fsync = off
synchronous_commit = off
full_page_writes = off
max_wal_size = 1GB
slime.loader_verify = ${SLIME_LOADER_VERIFY:-on}
${SLIME_PG_CONF:-}
EOF
    # The socket lives in our own dir, so the port only has to avoid TCP
    # sockets. Suites run side by side (test/run-all.sh): a port is chosen
    # and taken (the server listening) under one lock. A connection's local
    # end can still take a port between the choice and the bind: then the
    # next port is tried (the last "port =" line wins)
    exec {lockfd}>/tmp/slime-ports.lock
    flock "$lockfd"
    port=$SLIME_PORT_BASE
    for try in 1 2 3 4 5; do
        port=$(slime_port_pick "$port") || { exec {lockfd}>&-; return 1; }
        echo "port = $port" >>"$PGDATA/postgresql.conf"
        # (the server must not inherit the lock's descriptor: it would hold
        # the lock for as long as it runs)
        (cd / && runuser -u postgres -- "$SLIME_PG_BIN/pg_ctl" -D "$PGDATA" \
            -l "$tmp/server.log" -w -t 60 start >/dev/null {lockfd}>&-) && break
        if [ $try -lt 5 ] && grep -q 'Address already in use' "$tmp/server.log"; then
            port=$((port + 1))
            continue
        fi
        exec {lockfd}>&-
        echo "pg_ctl start failed; server log:" >&2; cat "$tmp/server.log" >&2; return 1
    done
    exec {lockfd}>&-
    export PGHOST=$tmp PGPORT=$port PGUSER=postgres PGDATABASE=postgres
    echo "cluster: PGHOST=$PGHOST PGPORT=$PGPORT (log $tmp/server.log)" >&2
}

# slime_cluster_stop [TMPDIR] — stops the cluster (pg_ctl -D of its own data
# dir; nothing to stop when its postmaster is gone) and removes its dir.
slime_cluster_stop() {
    local tmp=${1:-${SLIME_PGTMP:-}}
    case "$tmp" in /tmp/slime-pg.*) ;; *) return 0 ;; esac   # never rm elsewhere
    if [ -f "$tmp/data/postmaster.pid" ] && slime_alive "$(head -n 1 "$tmp/data/postmaster.pid")"; then
        (cd / && runuser -u postgres -- "$SLIME_PG_BIN/pg_ctl" -D "$tmp/data" \
            -m fast -w -t 60 stop >/dev/null 2>&1) ||
            slime_warn "pg_ctl stop failed for $tmp"
    fi
    rm -rf "$tmp"
    [ "$tmp" = "${SLIME_PGTMP:-}" ] && unset SLIME_PGTMP PGDATA
    return 0
}

# slime_step LABEL LOG command...: run a step quietly into LOG; when it
# fails, print the log's tail and exit 1.
slime_step() {
    local label=$1 log=$2; shift 2
    slime_log "$label"
    if ! "$@" >"$log" 2>&1; then
        tail -n 40 "$log" >&2
        echo "ERROR: $label failed (log above)" >&2
        exit 1
    fi
}

# slime_bench_begin NAME: a work dir /tmp/slime-bench-NAME.* in $work
# (removed at exit); unless SLIME_BENCH_BUILT=1, the Debian packages of
# SLIME_DEPS installed and the extension built and installed (log in $work).
slime_bench_begin() {
    work=$(mktemp -d "/tmp/slime-bench-$1.XXXXXX") || return 1
    chmod 755 "$work"
    slime_on_exit "rm -rf '$work'"
    if [ "${SLIME_BENCH_BUILT:-0}" != 1 ]; then
        slime_install_deps
        slime_step "build and install the extension" "$work/build.log" \
            bash -c ". '$SLIME_ROOT/test/lib.sh' && slime_build_install"
    fi
}

# psql that stops on the first error and reads no ~/.psqlrc.
slime_psql() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }

# Gone = no /proc entry, or a zombie nobody reaped yet.
slime_alive() { [ -r "/proc/$1/stat" ] && [ "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)" != Z ]; }

# slime_children PID: the pids whose parent is PID (from /proc; procps may be absent)
slime_children() {
    local f line rest
    for f in /proc/[0-9]*/stat; do
        line=$(cat "$f" 2>/dev/null) || continue
        rest=${line##*) }                   # "state ppid ..."
        rest=${rest#* }
        [ "${rest%% *}" = "$1" ] && { f=${f#/proc/}; printf '%s ' "${f%/stat}"; }
    done
    return 0
}

# slime_cluster_kill MODE [DATADIR]: SIGKILL the postmaster of DATADIR
# (default $PGDATA), found by its postmaster.pid (MODE all: and every child
# at the same moment; MODE orphan: the children are left to notice,
# stragglers killed after 10 s); then wait until every one of them is gone.
slime_cluster_kill() {
    local mode=$1 data=${2:-$PGDATA} pm kids p t
    pm=$(head -n 1 "$data/postmaster.pid")
    kids=$(slime_children "$pm")
    echo "kill: SIGKILL postmaster $pm of $data ($mode; children: $kids)"
    if [ "$mode" = all ]; then
        # shellcheck disable=SC2086
        kill -9 "$pm" $kids 2>/dev/null || true
    else
        kill -9 "$pm"
    fi
    local left=()
    for ((t = 0; t < 300; t++)); do
        left=()
        for p in $pm $kids; do slime_alive "$p" && left+=("$p"); done
        [ ${#left[@]} = 0 ] && break
        if [ "$t" = 100 ]; then
            echo "kill: still alive after 10 s, SIGKILL: ${left[*]}"
            kill -9 "${left[@]}" 2>/dev/null || true
        fi
        sleep 0.1
    done
    [ ${#left[@]} = 0 ] || { echo "kill: server processes did not go away: ${left[*]}" >&2; return 1; }
    # The new postmaster refuses to start while the old pid still exists,
    # zombies included: wait for init to reap them.
    for ((t = 0; t < 300; t++)); do
        left=()
        for p in $pm $kids; do [ -e "/proc/$p" ] && left+=("$p"); done
        [ ${#left[@]} = 0 ] && return 0
        sleep 0.1
    done
    # init does not reap here: the processes are dead (zombies), so the lock
    # file is stale; put it aside as an administrator would.
    echo "kill: zombies not reaped after 30 s (${left[*]}); moving the stale postmaster.pid aside"
    mv "$data/postmaster.pid" "$data/../postmaster.pid.stale"
}

# ---- several nodes in one script (test/shard.sh, bench_shard.sh) ------------
# A node is a throwaway cluster with a name: its socket dir and port are in
# SLIME_NODE_HOST[NAME] and SLIME_NODE_PORT[NAME], its dir in
# SLIME_NODE_DIR[NAME]; the PG* environment is left as it was. Every node is
# stopped by its own data dir on EXIT.
# shellcheck disable=SC2034  # read by the scripts that start nodes
declare -A SLIME_NODE_DIR=() SLIME_NODE_HOST=() SLIME_NODE_PORT=()

# Put PGHOST PGPORT SLIME_PGTMP PGDATA back as they were ("" = unset).
_slime_env_restore() {
    local v val i=1
    for v in PGHOST PGPORT SLIME_PGTMP PGDATA; do
        val=${!i}; i=$((i + 1))
        if [ -n "$val" ]; then export "$v=$val"; else unset "$v"; fi
    done
}

# slime_node_start NAME: a fresh cluster (slime_cluster_start; SLIME_PG_CONF
# and SLIME_PG_LISTEN apply).
slime_node_start() {
    local name=$1 host=${PGHOST-} port=${PGPORT-} tmp=${SLIME_PGTMP-} data=${PGDATA-} rc=0
    # shellcheck disable=SC2119  # not a cluster of the caller's environment
    slime_cluster_start --keep || rc=1
    if [ -n "${SLIME_PGTMP:-}" ] && [ "$SLIME_PGTMP" != "$tmp" ]; then
        slime_on_exit "slime_cluster_stop '$SLIME_PGTMP'"
        SLIME_NODE_DIR[$name]=$SLIME_PGTMP
        SLIME_NODE_HOST[$name]=$SLIME_PGTMP
        SLIME_NODE_PORT[$name]=$PGPORT
    fi
    _slime_env_restore "$host" "$port" "$tmp" "$data"
    return $rc
}

# slime_standby_start NAME PRIMARY: a streaming hot standby of node PRIMARY
# (pg_basebackup -R over its socket, application_name NAME, which
# synchronous_standby_names on the primary can name) in its own
# /tmp/slime-pg.XXXXXX, on its own socket and port; synchronous_standby_names
# is cleared there, so that it commits alone once promoted.
slime_standby_start() {
    local name=$1 primary=$2 tmp port
    tmp=$(mktemp -d /tmp/slime-pg.XXXXXX) || return 1
    chmod 755 "$tmp"
    chown postgres:postgres "$tmp"
    slime_on_exit "slime_cluster_stop '$tmp'"
    port=$(slime_port_pick $((SLIME_NODE_PORT[$primary] + 1))) || return 1
    runuser -u postgres -- "$SLIME_PG_BIN/pg_basebackup" -D "$tmp/data" -R -X stream -c fast -N \
        -d "host=${SLIME_NODE_HOST[$primary]} port=${SLIME_NODE_PORT[$primary]} user=postgres application_name=$name" \
        >"$tmp/basebackup.log" 2>&1 || { cat "$tmp/basebackup.log" >&2; return 1; }
    cat >>"$tmp/data/postgresql.conf" <<EOF

# ---- slime throwaway standby of $primary ----
port = $port
unix_socket_directories = '$tmp'
synchronous_standby_names = ''
hot_standby = on
EOF
    (cd / && runuser -u postgres -- "$SLIME_PG_BIN/pg_ctl" -D "$tmp/data" \
        -l "$tmp/server.log" -w -t 60 start >/dev/null) ||
        { echo "pg_ctl start of standby $name failed; server log:" >&2; cat "$tmp/server.log" >&2; return 1; }
    # shellcheck disable=SC2034  # read by the scripts that start nodes
    SLIME_NODE_DIR[$name]=$tmp
    SLIME_NODE_HOST[$name]=$tmp
    SLIME_NODE_PORT[$name]=$port
    echo "standby $name of $primary: PGHOST=$tmp PGPORT=$port (log $tmp/server.log)" >&2
}

# slime_node_psql NAME [psql args]: slime_psql against node NAME.
slime_node_psql() {
    local name=$1; shift
    PGHOST=${SLIME_NODE_HOST[$name]} PGPORT=${SLIME_NODE_PORT[$name]} PGUSER=postgres \
        PGDATABASE=${SLIME_NODE_DB:-postgres} slime_psql "$@"
}

# Pass/fail counting for the suite scripts (crash.sh, concurrency.sh):
# `result OK|FAIL text` counts one check; `finish` prints the server log's
# crashes on failure, warns when slime.so changed under the run, prints
# "N passed, N failed" and exits. SERVER_LOG names the log to show.
slime_tally_init() {
    passed=0
    failed=0
    SO_PATH=$("$SLIME_PG_CONFIG" --pkglibdir)/slime.so
    SO_SUM=$(md5sum "$SO_PATH" 2>/dev/null || true)
}
result() {
    if [ "$1" = OK ]; then passed=$((passed + 1)); echo "ok:     $2"
    else failed=$((failed + 1)); echo "FAILED: $2"; fi
}
finish() {
    if [ "$failed" != 0 ] && [ -f "${SERVER_LOG:-}" ]; then
        echo "---- server log: crashes and errors (last 30) ----"
        grep -E 'terminated by signal|PANIC|TRAP|FATAL|ERROR|AddressSanitizer' "$SERVER_LOG" | tail -n 30 || true
    fi
    if [ "$(md5sum "$SO_PATH" 2>/dev/null || true)" != "$SO_SUM" ]; then
        echo "WARNING: $SO_PATH was reinstalled during this run (another make install or" \
             "test/sanitize.sh?): new backends loaded a different build; results are unreliable"
    fi
    echo "$passed passed, $failed failed"
    [ "$failed" = 0 ]
    exit $?
}

# ---- suites on a throwaway cluster (crash.sh, concurrency.sh) ---------------
# The set-up they share, in this order: slime_suite_begin NAME,
# slime_suite_regions, slime_suite_cluster TAG, then the suite writes its
# schema into "$WORK/setup.sql" and runs slime_suite_setup VAR. For scripts
# under `set -e`, called as plain commands: a failing step ends the script
# (steps are not guarded with ||, which would switch set -e off inside them).

# Quote a string as an SQL literal ('it''s').
slime_sq() { local s=${1//\'/\'\'}; printf "'%s'" "$s"; }

# Start suite NAME (used in its messages): pass/fail counting, CORPUS set (or finish as failed).
slime_suite_begin() {
    SLIME_SUITE=$1
    slime_tally_init
    if ! CORPUS=$(slime_corpus); then failed=1; finish; fi
}

# Check that every region of REGIONS ("path rx rz") is in the corpus (or finish as failed).
slime_suite_regions() {
    local r
    for r in "${REGIONS[@]}"; do
        [ -f "$CORPUS/${r%% *}" ] ||
            { echo "$SLIME_SUITE: corpus file missing: $CORPUS/${r%% *}" >&2; failed=1; finish; }
    done
}

# Start a throwaway cluster (slime_cluster_start) and a work dir WORK
# (/tmp/slime-TAG.XXXXXX), both removed on exit; SERVER_LOG names the server log.
slime_suite_cluster() {
    slime_log "$SLIME_SUITE: starting a throwaway cluster"
    # shellcheck disable=SC2119  # no --keep: the cluster goes on exit
    slime_cluster_start
    WORK=$(mktemp -d "/tmp/slime-$1.XXXXXX")
    slime_on_exit 'rm -rf "$WORK"'
    SERVER_LOG=$SLIME_PGTMP/server.log
}

# Run "$WORK/setup.sql" and put the row count of its table seed_chunks in
# variable VAR (exit 1 when it has none).
slime_suite_setup() {
    local n
    slime_psql -f "$WORK/setup.sql" >/dev/null
    n=$(slime_psql -At -c "SELECT count(*) FROM seed_chunks")
    [ "$n" -gt 0 ] || { echo "$SLIME_SUITE: no seed chunks" >&2; exit 1; }
    printf -v "$1" '%s' "$n"
}

# ---- a sharded islands table (test/shard.sh, bench_shard.sh) ----------------
# The schema of README "Growing from one node to many", as SQL on stdout.
# On a shard, partition P is the table islands_P (id bigint primary key,
# world slime, saved_at) with slime_store_trigger() and the view
# islands_P_load (its values self-contained, for loads through the
# coordinator); the coordinator has islands and islands_loads, hash
# partitioned on id, each partition a postgres_fdw foreign table.

# slime_shard_sql P...: a shard node holding partitions P... (e.g. p0 p2)
slime_shard_sql() {
    local p
    echo "CREATE EXTENSION IF NOT EXISTS slime;"
    for p in "$@"; do
        cat <<EOF
CREATE TABLE islands_$p (id bigint PRIMARY KEY, world slime NOT NULL, saved_at timestamptz NOT NULL DEFAULT now());
CREATE TRIGGER islands_${p}_store BEFORE INSERT OR UPDATE ON islands_$p
    FOR EACH ROW EXECUTE FUNCTION slime_store_trigger();
CREATE VIEW islands_${p}_load AS SELECT id, slime_resolve(world) AS world, saved_at FROM islands_$p;
EOF
    done
}

# slime_shard_server_sql NAME HOST PORT [OPTION VALUE]...: a postgres_fdw
# server for a node (extensions 'slime', async_capable) and the mapping of
# postgres to it
slime_shard_server_sql() {
    local name=$1 host=$2 port=$3 opts=""
    shift 3
    while [ $# -ge 2 ]; do opts+=", $1 $(slime_sq "$2")"; shift 2; done
    cat <<EOF
CREATE EXTENSION IF NOT EXISTS slime;
CREATE EXTENSION IF NOT EXISTS postgres_fdw;
CREATE SERVER $name FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '$host', port '$port',
    dbname 'postgres', extensions 'slime', async_capable 'true'$opts);
CREATE USER MAPPING FOR postgres SERVER $name OPTIONS (user 'postgres');
EOF
}

# slime_shard_coord_sql SERVER...: the coordinator's islands and
# islands_loads, one hash partition per argument (MODULUS = their number),
# partition r (islands_r, islands_loads_r) on the r-th server's islands_pr
slime_shard_coord_sql() {
    local t r remote servers=("$@")
    echo "CREATE EXTENSION IF NOT EXISTS slime; CREATE EXTENSION IF NOT EXISTS postgres_fdw;"
    for t in islands islands_loads; do
        echo "CREATE TABLE $t (id bigint NOT NULL, world slime NOT NULL,
                  saved_at timestamptz NOT NULL DEFAULT now()) PARTITION BY HASH (id);"
        for ((r = 0; r < ${#servers[@]}; r++)); do
            if [ "$t" = islands ]; then remote=islands_p$r; else remote=islands_p${r}_load; fi
            echo "CREATE FOREIGN TABLE ${t}_$r PARTITION OF $t FOR VALUES WITH (MODULUS ${#servers[@]}, REMAINDER $r)
                  SERVER ${servers[r]} OPTIONS (table_name '$remote');"
        done
    done
}

# slime_stamp_sql: the SQL function stamp(nbt, n): a chunk NBT (root compound)
# with one more tag, Stamp: long n (new content for a save)
slime_stamp_sql() {
    cat <<'EOF'
CREATE FUNCTION stamp(nbt bytea, n bigint) RETURNS bytea LANGUAGE sql IMMUTABLE STRICT AS $$
  SELECT substring(nbt FROM 1 FOR length(nbt) - 1) || '\x04'::bytea || '\x0005'::bytea
         || convert_to('Stamp', 'UTF8') || int8send(n) || '\x00'::bytea $$;
EOF
}
