#!/usr/bin/env bash
# test/ha.sh — high availability on Patroni and etcd (issue #35): failover
# under live saves, nothing acknowledged lost.
#
# A real HA cluster on loopback addresses only (127.0.35.x), in a temporary
# directory, every process stopped by its pid on exit (also when a check
# fails): Debian's etcd-server 3.4 (one member), three PostgreSQL 15 nodes
# under Debian's patroni 3.0 (bin_dir: SLIME_PG_BIN; synchronous_mode and
# synchronous_mode_strict; session_preload_libraries = 'slime'; the
# extension created by the post_bootstrap script), and Debian's pgbouncer
# 1.18 in transaction pooling mode, which a Patroni callback points at the
# leader. Installs those packages (and a JDK, pgJDBC, curl, jq) when missing.
#
# For the whole run, three clients save:
#   A   the AdvancedSlimePaper loader (test/ha/HaClient.java, pgJDBC) through
#       the multi-host URL (targetServerType=primary), worlds a1 and a2;
#   B   the same loader through pgbouncer (prepareThreshold=0), b1 and b2;
#   S   psql through a multi-host conninfo (target_session_attrs=read-write),
#       INSERTs into a table with slime_store_trigger(), island sql-1.
# Each logs every save it saw commit: world, save number, token, content
# hash, the server's address, when it started and ended.
#
# Events, each fired right after A's save number (A's saves when the cluster
# was last whole) + SLIME_HA_GAP (default 20) is acknowledged, never at a
# random time; the cluster is whole again (a leader, a synchronous standby
# and a second replica streaming) before the next:
#   1. kill -9 of the leader's postmaster (primary_start_timeout 0: Patroni
#      fails over to the synchronous standby instead of restarting it, "if
#      possible": when it cannot reach the replicas' REST APIs in time, as on
#      a loaded machine, it restarts the postmaster in place; the checks
#      below then hold on the old leader, and the OK line says so)
#   2. the leader's Patroni stopped (kill -9): the node is cut off from etcd
#      while its PostgreSQL runs on as a primary; once another node leads,
#      its Patroni is started again (the cut healed) and makes it a replica
#   3. kill -9 of the (new) leader's postmaster
#   4. patronictl switchover to the synchronous standby
# After each, on the new leader:
#   - every save a client saw commit is there, by content hash (and the
#     loader's with the token it was made under);
#   - saves resumed by themselves: each client's first save acknowledged by
#     the new leader, and the time from the event to it;
#   - leases: a token granted before the event (10 min) still saves; a lease
#     that expired meanwhile (1 s) is refused (55000, "expired"); another
#     holder gets none of the clients' worlds; per world the tokens of its
#     saves never go down (no stale writer wrote after a newer one);
#   - the store: checked saves pruned, slime_gc() removes their chunks,
#     slime_settle() runs, slime_store_verify() clean, every kept value's
#     references resolve;
#   - a coordinator (a throwaway cluster, test/lib.sh) whose postgres_fdw
#     server names the three nodes with target_session_attrs 'read-write'
#     (doc/sharding.md) reads and saves through it on the new leader, with
#     nothing repointed.
# Then every client's whole log against the last leader, the three nodes
# equal, and the loader's calls through pgbouncer in transaction, statement
# and session pooling (prepareThreshold=0; the driver's default meets a
# clear error behind a transaction pool). Ends with "N passed, N failed".
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$SLIME_ROOT"

SLIME_DEPS+=(patroni etcd-server etcd-client pgbouncer curl jq default-jdk-headless libpostgresql-jdbc-java junit5 libzstd-jni-java)
slime_install_deps
slime_build_install
make -s java PG_CONFIG="$SLIME_PG_CONFIG"
make -s java-test PG_CONFIG="$SLIME_PG_CONFIG" SLIME_JAVA_RUN=0
slime_tally_init

# Patroni's timing, tuned down for the test (README: 30/10/10 by default)
TTL=10 LOOP_WAIT=1 RETRY_TIMEOUT=3
GAP=${SLIME_HA_GAP:-20}             # A's saves between a whole cluster and the next event
WAIT_MS=60000                       # bound on every wait for the cluster or the clients
NET=127.0.35
NODES=(node1 node2 node3)
declare -A ADDR=([node1]=$NET.1 [node2]=$NET.2 [node3]=$NET.3)
ETCD_ADDR=$NET.10
BOUNCER_ADDR=$NET.20

# one run at a time (the addresses are fixed)
exec {halock}>/tmp/slime-ha.lock
flock -w 900 "$halock" || { echo "ha: another test/ha.sh holds /tmp/slime-ha.lock" >&2; exit 1; }

# ports: PostgreSQL P, Patroni's REST API P+1, etcd P+2 (clients) and P+3
# (peers), pgbouncer P+4; the first base with none of them listened on
listening() { slime_port_used "$1"; }
for ((P = 26400; P < 26900; P += 10)); do
    listening $P || listening $((P + 1)) || listening $((P + 2)) || listening $((P + 3)) ||
        listening $((P + 4)) || break
done
RP=$((P + 1)) EC=$((P + 2)) EP=$((P + 3)) BP=$((P + 4))

WORK=$(mktemp -d /tmp/slime-ha.XXXXXX)
chmod 755 "$WORK"
AS_PG=(setpriv --reuid=postgres --regid=postgres --init-groups)
declare -A PATRONI_PID=()
ETCD_PID="" BOUNCER_PID=""
CLIENT_PIDS=()
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b - a) / 1000 }'; }
now_ms() { date +%s%3N; }

# stop PID [SECONDS]: SIGTERM, then SIGKILL after SECONDS (default 20); waits until it is gone
stop_pid() {
    local p=$1 t
    [ -n "$p" ] && slime_alive "$p" || return 0
    kill -CONT "$p" 2>/dev/null || true
    kill "$p" 2>/dev/null || true
    for ((t = 0; t < ${2:-20} * 10; t++)); do slime_alive "$p" || return 0; sleep 0.1; done
    kill -9 "$p" 2>/dev/null || true
    for ((t = 0; t < 50; t++)); do slime_alive "$p" || return 0; sleep 0.1; done
}
# the postmaster of node N, when one runs on its data dir
postmaster_pid() {
    local f=$WORK/$1/data/postmaster.pid p
    [ -f "$f" ] || return 1
    p=$(head -n 1 "$f")
    slime_alive "$p" && grep -qa "$WORK/$1/data" "/proc/$p/cmdline" 2>/dev/null && echo "$p"
}
cleanup() {
    local p n
    # shellcheck disable=SC2046  # pids
    for p in "${CLIENT_PIDS[@]}"; do kill $(slime_children "$p") "$p" 2>/dev/null || true; done
    # each Patroni stops its PostgreSQL (fast) on SIGTERM; a postmaster left
    # (its Patroni killed) is stopped by its own pid
    for n in "${NODES[@]}"; do stop_pid "${PATRONI_PID[$n]:-}" 30; done
    for n in "${NODES[@]}"; do
        if p=$(postmaster_pid "$n"); then kill -QUIT "$p" 2>/dev/null || true; stop_pid "$p" 10; fi
    done
    stop_pid "$BOUNCER_PID"
    stop_pid "$ETCD_PID"
    if [ "${failed:-1}" != 0 ] && [ -d "$WORK" ] && [ "${SLIME_HA_KEEP:-0}" = 1 ]; then
        echo "ha: work dir kept: $WORK"
    else
        rm -rf "$WORK"
    fi
}
slime_on_exit cleanup

TOOL=$SLIME_ROOT/build/slimetool
"$TOOL" gen-world "$WORK/seed" --size 3 >/dev/null
cp=$(make -s --no-print-directory java-classpath PG_CONFIG="$SLIME_PG_CONFIG")
javac --release 17 -cp "$cp" -d "$WORK/classes" test/ha/HaClient.java
chmod -R a+rX "$WORK"

# ---- etcd: one member ---------------------------------------------------------
slime_log "ha: etcd on $ETCD_ADDR:$EC, three Patroni nodes on $NET.1-3 (PostgreSQL :$P, REST :$RP), pgbouncer on $BOUNCER_ADDR:$BP"
etcd --name ha-etcd --data-dir "$WORK/etcd" \
    --listen-client-urls "http://$ETCD_ADDR:$EC" --advertise-client-urls "http://$ETCD_ADDR:$EC" \
    --listen-peer-urls "http://$ETCD_ADDR:$EP" --initial-advertise-peer-urls "http://$ETCD_ADDR:$EP" \
    --initial-cluster "ha-etcd=http://$ETCD_ADDR:$EP" --initial-cluster-state new \
    --initial-cluster-token slime-ha >"$WORK/etcd.log" 2>&1 &
ETCD_PID=$!
for ((t = 0; t < 100; t++)); do
    etcdctl --endpoints="http://$ETCD_ADDR:$EC" endpoint health >/dev/null 2>&1 && break
    slime_alive "$ETCD_PID" || break
    sleep 0.1
done
etcdctl --endpoints="http://$ETCD_ADDR:$EC" endpoint health >/dev/null 2>&1 ||
    { echo "ha: etcd did not start:"; tail -n 20 "$WORK/etcd.log"; exit 1; }

# ---- Patroni ------------------------------------------------------------------
# post_bootstrap: runs once, on the node that initialises the cluster, before
# any replica exists; Patroni passes a conninfo of its superuser
cat >"$WORK/post_bootstrap.sh" <<'EOF'
#!/bin/sh
set -e
psql -X -q -v ON_ERROR_STOP=1 -d "$1" -c "CREATE DATABASE islands" -c '\c islands' \
    -c "CREATE EXTENSION slime" -c "CREATE ROLE game_server LOGIN" \
    -c "GRANT USAGE, CREATE ON SCHEMA public TO game_server"
EOF
# on_role_change callback: when this node becomes the leader, pgbouncer's
# databases point at it (the config rewritten, then RELOAD)
cat >"$WORK/bouncer_follow.sh" <<EOF
#!/bin/sh
# bouncer_follow.sh ADDRESS ACTION ROLE SCOPE (Patroni appends the last three)
case "\$3" in master|primary) ;; *) exit 0 ;; esac
sed "s/@LEADER@/\$1/" "$WORK/bouncer/pgbouncer.ini.in" >"$WORK/bouncer/pgbouncer.ini.tmp" &&
    mv "$WORK/bouncer/pgbouncer.ini.tmp" "$WORK/bouncer/pgbouncer.ini" &&
    psql -X -q -h $BOUNCER_ADDR -p $BP -U postgres -d pgbouncer -c RELOAD &&
    echo "\$(date +%s%3N) pgbouncer -> \$1" >>"$WORK/bouncer/follow.log"
EOF
chmod 755 "$WORK/post_bootstrap.sh" "$WORK/bouncer_follow.sh"

# patroni_yml NODE: the node's Patroni configuration
patroni_yml() {
    local n=$1 a=${ADDR[$1]}
    cat <<EOF
scope: slime-ha
namespace: /slime-ha/
name: $n
restapi:
  listen: $a:$RP
  connect_address: $a:$RP
etcd3:
  hosts: $ETCD_ADDR:$EC
bootstrap:
  dcs:
    ttl: $TTL
    loop_wait: $LOOP_WAIT
    retry_timeout: $RETRY_TIMEOUT
    primary_start_timeout: 0
    synchronous_mode: true
    synchronous_mode_strict: true
    postgresql:
      use_pg_rewind: true
      use_slots: true
      parameters:
        session_preload_libraries: slime
        synchronous_commit: 'on'
        wal_log_hints: 'on'
        max_connections: 60
        max_wal_senders: 10
        max_replication_slots: 10
        wal_retrieve_retry_interval: 1s
        fsync: 'off'
        slime.loader_verify: 'on'
  initdb:
    - encoding: UTF8
    - locale: C
  post_bootstrap: $WORK/post_bootstrap.sh
postgresql:
  listen: $a:$P
  connect_address: $a:$P
  data_dir: $WORK/$n/data
  bin_dir: $SLIME_PG_BIN
  pgpass: $WORK/$n/pgpass
  authentication:
    superuser:
      username: postgres
    replication:
      username: replicator
  parameters:
    unix_socket_directories: $WORK/$n
  basebackup:
    - checkpoint: fast
  pg_hba:
    - local all all trust
    - host all all 127.0.0.0/8 trust
    - host replication replicator 127.0.0.0/8 trust
  callbacks:
    on_role_change: $WORK/bouncer_follow.sh $a
EOF
}
start_patroni() {
    local n=$1
    mkdir -p "$WORK/$n"
    patroni_yml "$n" >"$WORK/$n.yml"
    chown -R postgres:postgres "$WORK/$n" "$WORK/$n.yml"
    (cd "$WORK/$n" && HOME=$WORK/$n exec "${AS_PG[@]}" patroni "$WORK/$n.yml") >>"$WORK/$n/patroni.log" 2>&1 &
    PATRONI_PID[$n]=$!
}

# cluster: the members as "name role state" lines, from the first REST API that answers
cluster() {
    local n
    for n in "${NODES[@]}"; do
        curl -sf -m 1 "http://${ADDR[$n]}:$RP/cluster" 2>/dev/null |
            jq -r '.members[] | "\(.name) \(.role) \(.state) \(.lag // "-") \(.timeline // "-")"' 2>/dev/null && return 0
    done
    return 1
}
leader() { cluster | awk '$2 == "leader" && $3 == "running" { print $1 }'; }
sync_standby() { cluster | awk '$2 == "sync_standby" && $3 == "running" { print $1 }'; }
# on NODE psql args...: psql to NODE's database islands as postgres
on() { local n=$1; shift; PGCONNECT_TIMEOUT=3 slime_psql -h "${ADDR[$n]}" -p "$P" -U postgres -d islands "$@"; }
# whole: a leader, two replicas streaming from it (one synchronous), on its timeline
whole() {
    local l c
    l=$(leader) && [ -n "$l" ] || return 1
    [ "$(sync_standby | wc -l)" = 1 ] || return 1
    c=$(on "$l" -At -c "SELECT count(*) FILTER (WHERE state = 'streaming'), count(*) FILTER (WHERE sync_state = 'sync')
                         FROM pg_stat_replication" 2>/dev/null) || return 1
    [ "$c" = "2|1" ]
}
# wait_for WHAT COMMAND...: until COMMAND succeeds (WAIT_MS at most); false when it never did
wait_for() {
    local what=$1 t0
    shift
    t0=$(now_ms)
    until "$@"; do
        if [ $(($(now_ms) - t0)) -gt $WAIT_MS ]; then echo "ha: $what: not within $((WAIT_MS / 1000)) s" >&2; return 1; fi
        sleep 0.1
    done
}

slime_log "ha: bootstrapping node1, then node2 and node3 as its replicas"
start_patroni node1
wait_for "node1 leading" bash -c "[ \"\$(curl -s -o /dev/null -w '%{http_code}' -m 1 http://${ADDR[node1]}:$RP/primary)\" = 200 ]" ||
    { tail -n 30 "$WORK/node1/patroni.log"; exit 1; }
start_patroni node2
start_patroni node3
if wait_for "three nodes streaming" whole; then
    result OK "setup: etcd (1 member), 3 Patroni nodes: $(cluster | awk '{ printf "%s%s %s", s, $1, $2; s = ", " }')"
else
    result FAIL "setup: the cluster did not come up: $(cluster | paste -sd ';')"
    tail -n 20 "$WORK"/node*/patroni.log
    finish
fi
L=$(leader)
res=$(on "$L" -At -c "SELECT current_setting('session_preload_libraries'), current_setting('synchronous_commit'),
                              (SELECT extversion FROM pg_extension WHERE extname = 'slime'),
                              current_setting('slime.loader_verify')")
# the version slime.control installs (this checkout's)
ver=$(sed -n "s/^default_version = '\(.*\)'$/\1/p" "$SLIME_ROOT/slime.control")
[ "$res" = "slime|on|$ver|on" ] && result OK "setup: the extension (post_bootstrap), session_preload_libraries = slime, synchronous_commit = on ($res)" ||
    result FAIL "setup: settings on the leader: $res"
res=$(curl -s "http://${ADDR[$L]}:$RP/config" | jq -c '{ttl, loop_wait, retry_timeout, synchronous_mode, synchronous_mode_strict, primary_start_timeout}')
echo "  dynamic configuration in etcd: $res"

# ---- pgbouncer ----------------------------------------------------------------
mkdir -p "$WORK/bouncer"
printf '"postgres" ""\n"game_server" ""\n' >"$WORK/bouncer/users.txt"
cat >"$WORK/bouncer/pgbouncer.ini.in" <<EOF
[databases]
islands = host=@LEADER@ port=$P dbname=islands
islands_statement = host=@LEADER@ port=$P dbname=islands pool_mode=statement
islands_session = host=@LEADER@ port=$P dbname=islands pool_mode=session
islands_one = host=@LEADER@ port=$P dbname=islands pool_size=1

[pgbouncer]
listen_addr = $BOUNCER_ADDR
listen_port = $BP
unix_socket_dir =
auth_type = trust
auth_file = $WORK/bouncer/users.txt
admin_users = postgres
pool_mode = transaction
default_pool_size = 4
ignore_startup_parameters = extra_float_digits
server_login_retry = 1
server_connect_timeout = 2
query_wait_timeout = 30
logfile = $WORK/bouncer/pgbouncer.log
EOF
sed "s/@LEADER@/${ADDR[$L]}/" "$WORK/bouncer/pgbouncer.ini.in" >"$WORK/bouncer/pgbouncer.ini"
chown -R postgres:postgres "$WORK/bouncer"
"${AS_PG[@]}" pgbouncer "$WORK/bouncer/pgbouncer.ini" >"$WORK/bouncer/stderr.log" 2>&1 &
BOUNCER_PID=$!
wait_for "pgbouncer listening" slime_port_listening "$BP" || { cat "$WORK/bouncer/stderr.log"; exit 1; }

# ---- the schema and the files the loader saves ----------------------------------
NFILES=${SLIME_HA_FILES:-1500}
{
    slime_stamp_sql
    cat <<EOF
CREATE TABLE seed AS SELECT slime_import_region(pg_read_binary_file($(slime_sq "$WORK/seed/region/r.0.0.mca")), 0, 0,
    entities => pg_read_binary_file($(slime_sq "$WORK/seed/entities/r.0.0.mca")),
    poi => pg_read_binary_file($(slime_sq "$WORK/seed/poi/r.0.0.mca"))) AS world;
CREATE TABLE seed_chunk AS SELECT slime_chunk_nbt(world, 1, 1) AS nbt FROM seed;
-- file n: the seed with Paper's chunk data of chunk (0,0) set to n (a slime
-- file keeps it), as the slime file a server saves
CREATE TABLE ha_files (n int PRIMARY KEY, file bytea NOT NULL, hash bytea NOT NULL);
INSERT INTO ha_files
SELECT n, f, slime_content_hash(slime_from_slimefile(f))
FROM generate_series(1, $NFILES) n, seed s,
     LATERAL (SELECT slime_to_slimefile(slime_put_chunk(s.world, 0, 0, slime_json_to_nbt(slime_chunk_json(s.world, 0, 0)
                     || jsonb_build_object('ChunkBukkitValues', jsonb_build_object('slime:ha', n)))))) f(f);
GRANT SELECT ON ha_files TO game_server;
-- client S: saves through the chunk store trigger
CREATE TABLE sql_saves (island text, n int, world slime NOT NULL, PRIMARY KEY (island, n));
CREATE TRIGGER sql_saves_store BEFORE INSERT OR UPDATE ON sql_saves
    FOR EACH ROW EXECUTE FUNCTION slime_store_trigger();
-- the acknowledged saves of a client log, loaded for a check
CREATE TABLE acks (world text, n int, token bigint, hash text, server text, t0 bigint, t1 bigint);
EOF
} >"$WORK/schema.sql"
t0=$(now_ms)
on "$L" -f "$WORK/schema.sql" >/dev/null
echo "  $NFILES files for the loader made in $(secs "$t0" "$(now_ms)") s ($(on "$L" -At -c "SELECT pg_size_pretty(sum(length(file))) FROM ha_files"))"

# ---- a coordinator: postgres_fdw to whichever node leads ---------------------------
slime_node_start coord
slime_node_psql coord -c "CREATE EXTENSION slime" -c "CREATE EXTENSION postgres_fdw" \
    -c "CREATE SERVER shard FOREIGN DATA WRAPPER postgres_fdw OPTIONS (
            host '${ADDR[node1]},${ADDR[node2]},${ADDR[node3]}', port '$P,$P,$P',
            target_session_attrs 'read-write', connect_timeout '3', dbname 'islands', extensions 'slime')" \
    -c "CREATE USER MAPPING FOR postgres SERVER shard OPTIONS (user 'postgres')" \
    -c "CREATE FOREIGN TABLE shard_saves (island text, n int, world slime) SERVER shard OPTIONS (table_name 'sql_saves')"
# check_coordinator LABEL K: through the coordinator (a new session), save K
# copies island sql-1's newest save as island fdw; it must be on the leader.
# A session that cannot connect is tried again, a new one a second later, up
# to 10 times, as a client would: the old leader, demoted by its Patroni
# while the check runs, ends the connections it accepted ("terminating
# connection due to administrator command"). The insert does nothing when a
# try before it saved K and lost its connection after.
check_coordinator() {
    local res try
    for ((try = 1; try <= 10; try++)); do
        res=$(slime_node_psql coord -At -c "INSERT INTO shard_saves SELECT 'fdw', $2, world FROM shard_saves
                                            WHERE island = 'sql-1' ORDER BY n DESC LIMIT 1 ON CONFLICT DO NOTHING" \
                                      -c "SELECT count(*) FROM shard_saves WHERE island = 'fdw'" 2>&1) || true
        grep -q 'could not connect\|terminating connection\|server closed the connection' <<<"$res" || break
        sleep 1
    done
    if [ "$res" = "$2" ] && [ "$(on "$L" -At -c "SELECT count(*) FROM sql_saves WHERE island = 'fdw' AND n = $2")" = 1 ]; then
        result OK "$1: the coordinator's foreign server (3 hosts, target_session_attrs 'read-write') reads and saves on the leader ($L), nothing repointed ($try session$([ "$try" = 1 ] || echo s))"
    else
        result FAIL "$1: through the coordinator: $res"
    fi
}

# ---- the clients ----------------------------------------------------------------
HOSTS="${ADDR[node1]}:$P,${ADDR[node2]}:$P,${ADDR[node3]}:$P"
URL_A="jdbc:postgresql://$HOSTS/islands?user=game_server&targetServerType=primary&connectTimeout=3&socketTimeout=20"
URL_B="jdbc:postgresql://$BOUNCER_ADDR:$BP/islands?user=game_server&prepareThreshold=0&connectTimeout=3&socketTimeout=20"
CONNINFO_S="host=${ADDR[node1]},${ADDR[node2]},${ADDR[node3]} port=$P,$P,$P dbname=islands user=postgres target_session_attrs=read-write connect_timeout=3"
STOP=$WORK/stop
java_client() {    # java_client NAME URL WORLDS
    java -cp "$cp:$WORK/classes" dev.slime.asp.HaClient save "$2" skyblock "server-$1" "$3" 100 "$STOP" \
        >"$WORK/$1.log" 2>"$WORK/$1.err" &
    CLIENT_PIDS+=($!)
}
# client S: save n is an INSERT of the seed with chunk (1,1) stamped n; a
# save whose connection failed is run again (ON CONFLICT: it may have
# committed) until it is acknowledged, for WAIT_MS at most
sql_client() {
    local n=1 t0 out
    while [ ! -e "$STOP" ]; do
        t0=$(now_ms)
        until out=$(timeout -s KILL 25 psql -X -q -At -v ON_ERROR_STOP=1 -F ' ' "$CONNINFO_S" \
                -c "INSERT INTO sql_saves SELECT 'sql-1', $n, slime_put_chunk(s.world, 1, 1, stamp(c.nbt, $n))
                    FROM seed s, seed_chunk c ON CONFLICT DO NOTHING" \
                -c "SELECT encode(slime_content_hash(world), 'hex'), host(inet_server_addr())
                    FROM sql_saves WHERE island = 'sql-1' AND n = $n" 2>>"$WORK/S.err"); do
            if [ $(($(now_ms) - t0)) -gt $WAIT_MS ]; then echo "FAIL sql-1 $n"; return 1; fi
            echo "RETRY sql-1 $n"
            sleep 0.2
        done
        echo "ACK sql-1 $n 0 $out $t0 $(now_ms)"
        n=$((n + 1))
        sleep 0.1
    done
}
slime_log "ha: clients A (loader, multi-host URL), B (loader, pgbouncer), S (psql, store trigger) saving"
java_client A "$URL_A" a1,a2
java_client B "$URL_B" b1,b2
sql_client >"$WORK/S.log" 2>>"$WORK/S.err" &
CLIENT_PIDS+=($!)
acks() { grep -c '^ACK' "$WORK/$1.log" 2>/dev/null || true; }
clients_saving() { [ "$(acks A)" -gt 0 ] && [ "$(acks B)" -gt 0 ] && [ "$(acks S)" -gt 0 ]; }
wait_for "the first saves of A, B and S" clients_saving ||
    { result FAIL "clients: no saves ($(acks A) $(acks B) $(acks S))"; cat "$WORK"/{A,B}.err "$WORK/S.err" | tail -n 20; finish; }
TOKENS=$(grep -h '^LEASE' "$WORK/A.log" "$WORK/B.log" | paste -sd ' ')
echo "  leases of the clients: $TOKENS"

# ---- checks after an event --------------------------------------------------------
# game SQL: psql as game_server to the leader (leases are the calling role's)
game() { PGCONNECT_TIMEOUT=3 psql -X -q -At -h "${ADDR[$L]}" -p "$P" -U game_server -d islands "$@"; }
declare -A CHECKED=([A]=0 [B]=0 [S]=0)
TOTAL_CHECKED=0
# probe_before K: the probe leases of event K, granted on the leader before it
probe_before() {
    LONG_TOKEN=$(game -v ON_ERROR_STOP=1 -c "SELECT slime_lease_acquire('skyblock', 'probe-long-$1', 'server-p', '10 min')")
    SHORT_TOKEN=$(game -v ON_ERROR_STOP=1 -c "SELECT slime_lease_acquire('skyblock', 'probe-short-$1', 'server-p', '1 s')")
    game -v ON_ERROR_STOP=1 -c "SELECT slime_loader_save('skyblock', 'probe-long-$1', $LONG_TOKEN, file) FROM ha_files WHERE n = 1" \
        -c "SELECT slime_loader_save('skyblock', 'probe-short-$1', $SHORT_TOKEN, file) FROM ha_files WHERE n = 1" >/dev/null
}
# check_acks LABEL CLIENT...: every save the clients acknowledged (lines
# after those checked before) is on the leader with its content hash (the
# loader's: under its token); then the checked saves are pruned but the
# newest of each world
check_acks() {
    local label=$1 c lines total=0 missing loaded
    shift
    on "$L" -c "TRUNCATE acks"
    for c in "$@"; do
        lines=$(grep -c '^ACK' "$WORK/$c.log" || true)
        grep '^ACK' "$WORK/$c.log" | head -n "$lines" | tail -n +$((CHECKED[$c] + 1)) | cut -d' ' -f2- |
            on "$L" -c "\\copy acks FROM pstdin (FORMAT text, DELIMITER ' ')"
        total=$((total + lines - CHECKED[$c]))
        CHECKED[$c]=$lines
    done
    loaded=$(on "$L" -At -c "SELECT count(*) FROM acks")
    [ "$loaded" = "$total" ] || { result FAIL "$label: $loaded of the $total acknowledged saves of $* loaded for the check"; return 0; }
    TOTAL_CHECKED=$((TOTAL_CHECKED + total))
    missing=$(on "$L" -At -c "
        SELECT count(*) FROM acks a
        WHERE NOT EXISTS (SELECT 1 FROM skyblock s WHERE s.world = a.world AND s.token = a.token
                                                     AND encode(slime_content_hash(s.data), 'hex') = a.hash)
          AND NOT EXISTS (SELECT 1 FROM sql_saves q WHERE q.island = a.world AND q.n = a.n
                                                      AND encode(slime_content_hash(q.world), 'hex') = a.hash)")
    if [ "$missing" = 0 ] && [ "$total" -gt 0 ]; then
        result OK "$label: every acknowledged save is on the leader ($L) by content hash: $total saves of $* checked"
    else
        result FAIL "$label: $missing of $total acknowledged saves of $* missing on the leader ($L)"
        on "$L" -c "SELECT * FROM acks a WHERE NOT EXISTS (SELECT 1 FROM skyblock s WHERE s.world = a.world
                    AND encode(slime_content_hash(s.data), 'hex') = a.hash) AND a.world NOT LIKE 'sql%' LIMIT 5"
    fi
}
# check_store LABEL: prune what is checked, slime_gc(), slime_settle(), verify
check_store() {
    local res gc
    res=$(on "$L" -At -c "
        WITH k AS (SELECT world, max(n) AS n FROM acks GROUP BY world),
             s AS (DELETE FROM sql_saves q USING k WHERE q.island = k.world AND q.n < k.n RETURNING 1),
             l AS (DELETE FROM skyblock d USING k, acks a
                   WHERE a.world = k.world AND a.n = k.n AND d.world = k.world
                     AND d.save < (SELECT min(save) FROM skyblock x WHERE x.world = k.world
                                   AND encode(slime_content_hash(x.data), 'hex') = a.hash) RETURNING 1)
        SELECT (SELECT count(*) FROM s) + (SELECT count(*) FROM l)")
    gc=$(on "$L" -At -F ' ' -c "SELECT removed_entries, kept_entries FROM slime_gc()")
    on "$L" -c "SELECT * FROM slime_settle()" >/dev/null
    res="$res $gc $(on "$L" -At -F ' ' -c "
        SELECT (SELECT count(*) FROM slime_store_verify()),
               (SELECT count(*) FROM skyblock WHERE NOT slime_verify_refs(data)),
               (SELECT count(*) FROM sql_saves WHERE NOT slime_verify_refs(world)),
               (SELECT count(*) FROM skyblock_worlds w WHERE w.world ~ '^[ab][12]$'
                                                   AND slime_loader_load('skyblock', w.world) IS NULL)")"
    read -r pruned removed kept bad badl bads noload <<<"$res"
    if [ "$removed" -gt 0 ] && [ "$bad $badl $bads $noload" = "0 0 0 0" ]; then
        result OK "$1: store whole on $L: $pruned checked saves pruned, slime_gc() removed $removed entries (kept $kept), slime_settle() ran, slime_store_verify() clean, every reference resolves, every world loads"
    else
        result FAIL "$1: store on $L: pruned $pruned, gc removed $removed kept $kept, store_verify $bad, bad refs $badl/$bads, worlds not loading $noload"
    fi
}
# check_leases K: the probe leases of event K and the clients' worlds on the new leader
check_leases() {
    local k=$1 out err res
    out=$(game -c "SELECT slime_loader_save('skyblock', 'probe-long-$k', $LONG_TOKEN, file) FROM ha_files WHERE n = 2" 2>&1) &&
        [[ "$out" =~ ^[0-9]+$ ]] && res=ok || res="refused: $out"
    [ "$res" = ok ] && result OK "E$k leases: token $LONG_TOKEN granted before the event (10 min) saves on the new leader" ||
        result FAIL "E$k leases: the 10-min token granted before the event: $res"
    # the 1-s lease: expired by the new leader's clock once the save is tried
    game -c "SELECT pg_sleep(greatest(0, extract(epoch FROM expires - clock_timestamp()) + 0.1)::float8)
             FROM skyblock_worlds WHERE world = 'probe-short-$k'" >/dev/null
    err=$(game -v ON_ERROR_STOP=1 -v VERBOSITY=verbose -c "SELECT slime_loader_save('skyblock', 'probe-short-$k', $SHORT_TOKEN, file) FROM ha_files WHERE n = 2" 2>&1) &&
        res="saved" || res=$err
    if grep -q '55000' <<<"$res" && grep -q 'expired' <<<"$res"; then
        result OK "E$k leases: the 1-s lease granted before the event is refused after it ($(grep -o 'ERROR: .*' <<<"$res" | head -n 1 | cut -c1-90); $(grep -o 'DETAIL: .*' <<<"$res" | head -n 1 | cut -c1-60))"
    else
        result FAIL "E$k leases: a save under the expired 1-s lease: $res"
    fi
    # another holder: the expired lease is granted to it (a larger token), the clients' running leases are not
    res=$(game -F ' ' -c "SELECT slime_lease_acquire('skyblock', 'probe-short-$k', 'server-q', '1 min') > $SHORT_TOKEN,
                                 (SELECT count(*) FROM unnest(ARRAY['a1', 'a2', 'b1', 'b2', 'probe-long-$k']) w
                                  WHERE slime_lease_acquire('skyblock', w, 'server-q', '1 min') IS NOT NULL)")
    [ "$res" = "t 0" ] && result OK "E$k leases: another holder gets the expired lease (a larger token) and none of the 5 running ones" ||
        result FAIL "E$k leases: another holder's grants (expired one larger, running ones granted): $res"
    # fencing: per world the tokens of its saves never go down
    res=$(on "$L" -At -c "SELECT count(*) FROM (SELECT token < max(token) OVER (PARTITION BY world ORDER BY save
                                                  ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS stale
                                                  FROM skyblock) s WHERE stale")
    res2=$(grep -h '^ACK' "$WORK/A.log" "$WORK/B.log" | awk '!seen[$2 " " $4]++ { n[$2]++ } END { for (w in n) if (n[w] != 1) bad++; print bad + 0 }')
    [ "$res $res2" = "0 0" ] && result OK "E$k leases: no save under a token older than one before it, and each client world saved under one token (no second writer)" ||
        result FAIL "E$k leases: $res saves after a newer token; $res2 worlds saved under two tokens"
}

declare -a REPORT=()
# event K NAME ACTION [HEAL]: fire ACTION after A's save (saves when whole) +
# GAP, run HEAL once another node leads, then check
event() {
    local k=$1 name=$2 action=$3 heal=${4:-} base point old t_ev t_new new c first line whole_ms pm_before pm inplace
    base=$(acks A)
    point=$((base + GAP))
    wait_for "A's save $point" bash -c "[ \$(grep -c '^ACK' '$WORK/A.log') -ge $point ]" ||
        { result FAIL "E$k: client A stopped saving at $(acks A)"; tail -n 5 "$WORK/A.err"; return 1; }
    old=$L
    probe_before "$k"
    slime_log "ha: event $k: $name (leader $old) after A's save $point"
    pm_before=$(postmaster_pid "$old" || true)
    t_ev=$(now_ms)
    $action "$old"
    # the new leader; or, when Patroni found no failover possible at that
    # moment (its primary_start_timeout 0 fails over "if possible": the
    # replicas' REST answers in time, which a loaded machine can miss), the
    # old leader running again on a new postmaster: Patroni restarted it in
    # place, and the clients must resume on it
    new=
    inplace=
    t_new=$t_ev
    while [ $(($(now_ms) - t_ev)) -lt $WAIT_MS ]; do
        new=$(leader 2>/dev/null || true)
        [ -n "$new" ] && [ "$new" != "$old" ] && { t_new=$(now_ms); break; }
        if [ "$action" = kill_postmaster ] && [ "$new" = "$old" ] && [ -n "$pm_before" ] &&
            pm=$(postmaster_pid "$old") && [ "$pm" != "$pm_before" ]; then
            inplace=" (Patroni restarted its PostgreSQL in place, postmaster $pm_before -> $pm: no failover possible at that moment)"
            t_new=$(now_ms)
            break
        fi
        new=
        sleep 0.1
    done
    [ -n "$new" ] || { result FAIL "E$k: no new leader within $((WAIT_MS / 1000)) s: $(cluster | paste -sd ';')"; return 1; }
    [ -z "$heal" ] || $heal "$old"
    L=$new
    # saves resume: each client's first save acknowledged by the new leader
    for c in A B S; do
        first=
        while [ $(($(now_ms) - t_ev)) -lt $WAIT_MS ]; do
            # (restarted in place: saves acknowledged once the new postmaster runs, not the old one's last)
            line=$(awk -v a="${ADDR[$new]}" -v t="$([ -n "$inplace" ] && echo "$t_new" || echo "$t_ev")" \
                '$1 == "ACK" && $6 == a && $8 > t { print; exit }' "$WORK/$c.log")
            [ -n "$line" ] && { first=$(awk '{ print $8 }' <<<"$line"); break; }
            sleep 0.1
        done
        if [ -n "$first" ]; then t_res[$c]=$(secs "$t_ev" "$first"); else t_res[$c]=never; fi
    done
    if [ "${t_res[A]}" != never ] && [ "${t_res[B]}" != never ] && [ "${t_res[S]}" != never ]; then
        result OK "E$k: $name: $new leads after $(secs "$t_ev" "$t_new") s$inplace; saves resumed by themselves on it after A ${t_res[A]} s, B ${t_res[B]} s, S ${t_res[S]} s"
    else
        result FAIL "E$k: $name: saves did not resume on $new (A ${t_res[A]}, B ${t_res[B]}, S ${t_res[S]})"
        tail -n 3 "$WORK/A.err" "$WORK/B.err" "$WORK/S.err"
    fi
    check_acks "E$k" A B S
    check_leases "$k"
    check_store "E$k"
    check_coordinator "E$k" "$k"
    # the old leader back as a replica, the cluster whole again
    if wait_for "the cluster whole again" whole; then
        whole_ms=$(now_ms)
        result OK "E$k: the cluster whole again $(secs "$t_ev" "$whole_ms") s after the event: $(cluster | awk '{ printf "%s%s %s", s, $1, $2; s = ", " }')"
    else
        result FAIL "E$k: the cluster not whole again: $(cluster | paste -sd ';')"
        tail -n 20 "$WORK/$old/patroni.log"
        return 1
    fi
    REPORT+=("$k|$name|$old -> $new|after A's save $point|$(secs "$t_ev" "$t_new")|${t_res[A]}|${t_res[B]}|${t_res[S]}|$(secs "$t_ev" "$whole_ms")")
}
declare -A t_res=()

kill_postmaster() {
    local pm
    pm=$(postmaster_pid "$1") || { echo "ha: no postmaster on $1" >&2; return 1; }
    echo "  kill -9 of $1's postmaster $pm"
    kill -9 "$pm"
}
stop_patroni() {
    echo "  kill -9 of $1's Patroni ${PATRONI_PID[$1]} (its PostgreSQL $(postmaster_pid "$1") runs on)"
    kill -9 "${PATRONI_PID[$1]}"
    wait "${PATRONI_PID[$1]}" 2>/dev/null || true
}
restart_patroni() {
    echo "  $1's Patroni started again (the primary it left running: $(postmaster_pid "$1" || echo none))"
    start_patroni "$1"
}
switchover() {
    local cand
    cand=$(sync_standby)
    echo "  patronictl switchover --leader $1 --candidate $cand"
    "${AS_PG[@]}" patronictl -c "$WORK/$1.yml" switchover --leader "$1" --candidate "$cand" --force >"$WORK/switchover.log" 2>&1 ||
        cat "$WORK/switchover.log"
}

event 1 "kill -9 of the leader's postmaster" kill_postmaster &&
event 2 "Patroni of the leader stopped (kill -9)" stop_patroni restart_patroni &&
event 3 "kill -9 of the leader's postmaster" kill_postmaster &&
event 4 "patronictl switchover" switchover || true

# ---- the run's end ---------------------------------------------------------------
slime_log "ha: stopping the clients"
touch "$STOP"
for p in "${CLIENT_PIDS[@]}"; do
    for ((t = 0; t < 300; t++)); do slime_alive "$p" || break; sleep 0.1; done
    kill "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || result FAIL "a client ended with an error"
done
CLIENT_PIDS=()
if grep -h '^FAIL' "$WORK/A.log" "$WORK/B.log" "$WORK/S.log"; then result FAIL "a client gave up a save"; fi
echo "  saves acknowledged: A $(acks A), B $(acks B), S $(acks S); S ran $(grep -c '^RETRY' "$WORK/S.log" || true) attempts again after a lost or refused connection (A and B: the loader's own retries)"
check_acks "end" A B S
echo "  over the run $TOTAL_CHECKED acknowledged saves checked, each on the leader that followed it (of A $(acks A), B $(acks B), S $(acks S))"
# the three nodes hold the same
wait_for "the cluster whole" whole || true
lsn=$(on "$L" -At -c "SELECT pg_current_wal_lsn()")
for n in "${NODES[@]}"; do
    [ "$n" = "$L" ] && continue
    wait_for "$n replaying $lsn" bash -c "[ \"\$(PGCONNECT_TIMEOUT=3 psql -X -At -h ${ADDR[$n]} -p $P -U postgres -d islands -c \"SELECT pg_last_wal_replay_lsn() >= '$lsn'\")\" = t ]" || true
done
DIGEST="SELECT md5(string_agg(world || ' ' || save || ' ' || token || ' ' || encode(slime_content_hash(data), 'hex'), ',' ORDER BY world, save))
               || ' ' || (SELECT md5(string_agg(encode(hash, 'hex'), ',' ORDER BY hash)) FROM slime_store)
               || ' ' || (SELECT count(*) FROM slime_store) FROM skyblock"
digests=$(for n in "${NODES[@]}"; do on "$n" -At -c "$DIGEST"; done | sort -u)
[ "$(wc -l <<<"$digests")" = 1 ] && result OK "end: the three nodes hold the same saves and store ($(cut -d' ' -f3 <<<"$digests") entries)" ||
    result FAIL "end: the nodes differ: $digests"

# ---- pgbouncer: which pooling modes the loader works in -------------------------------
slime_log "ha: the loader's calls through pgbouncer"
BURL="jdbc:postgresql://$BOUNCER_ADDR:$BP"
compat() {         # compat LABEL DB PARAMS TABLE: every loader call, OK/ERR lines
    java -cp "$cp:$WORK/classes" dev.slime.asp.HaClient compat "$BURL/$2?user=game_server$3" "$4" >"$WORK/compat-$1.log" 2>&1 || true
    local bad
    bad=$(grep -v '^OK\|^ERR saveWorld-stale-token StaleLeaseException' "$WORK/compat-$1.log" | grep -v '^OK acquireLease-other-holder granted false' || true)
    if [ -z "$bad" ] && [ "$(grep -c '^OK\|^ERR' "$WORK/compat-$1.log")" = 15 ] &&
       grep -q '^OK acquireLease-other-holder granted false' "$WORK/compat-$1.log" &&
       grep -q '^ERR saveWorld-stale-token StaleLeaseException' "$WORK/compat-$1.log"; then
        result OK "pgbouncer $1 pooling ($2$3): all 15 loader calls work (leases: another holder refused, a superseded token refused)"
    else
        result FAIL "pgbouncer $1 pooling: $(paste -sd ';' "$WORK/compat-$1.log")"
    fi
}
compat transaction islands "&prepareThreshold=0" compat_tx
compat statement islands_statement "&prepareThreshold=0" compat_st
compat session islands_session "" compat_se
java -cp "$cp:$WORK/classes" dev.slime.asp.HaClient prepared "$BURL/islands_one?user=game_server" prepared_a >"$WORK/prep-default.log" 2>&1 || true
java -cp "$cp:$WORK/classes" dev.slime.asp.HaClient prepared "$BURL/islands_one?user=game_server&prepareThreshold=0" prepared_b >"$WORK/prep-zero.log" 2>&1 || true
if grep -q '^ERR .*prepareThreshold=0' "$WORK/prep-default.log" && grep -q '^OK ' "$WORK/prep-zero.log"; then
    result OK "pgbouncer transaction pooling, the driver's default prepareThreshold: a clear error ($(grep -o 'ERROR: [^(]*' "$WORK/prep-default.log" | head -n 1)+ the fix named); with prepareThreshold=0 the same calls work"
else
    result FAIL "pgbouncer prepared statements: default: $(cat "$WORK/prep-default.log"); prepareThreshold=0: $(cat "$WORK/prep-zero.log")"
fi

# ---- the run's figures ----------------------------------------------------------------
echo
echo "  event | what | leader | fired | new leader (s) | resume A / B / S (s) | whole again (s)"
for r in "${REPORT[@]}"; do
    IFS='|' read -r k name lead at tn ta tb ts tw <<<"$r"
    echo "  $k | $name | $lead | $at | $tn | $ta / $tb / $ts | $tw"
done
echo "  Patroni: ttl $TTL s, loop_wait $LOOP_WAIT s, retry_timeout $RETRY_TIMEOUT s (target: saves resume within ttl + 10 s = $((TTL + 10)) s)"
finish
