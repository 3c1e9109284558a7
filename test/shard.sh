#!/usr/bin/env bash
# test/shard.sh — islands sharded over several nodes with PostgreSQL's own
# machinery: declarative hash partitioning with postgres_fdw foreign
# partitions, analytics pushed down to the shards, and a synchronous
# streaming standby that is promoted when its primary dies.
#
# Four throwaway clusters (test/lib.sh nodes: unix sockets in their own
# /tmp/slime-pg.* dirs only, stopped by their own data dir on exit):
#   coord           the coordinator: postgres_fdw servers shard1 and shard2
#                   (extensions 'slime', async_capable), the partitioned
#                   table islands (4 hash partitions on id) and islands_loads
#                   (the same partitions through each shard's resolving view),
#                   and islands_local, the same data on one node, to compare
#   shard1, shard2  two partitions each (islands_p0/p2, islands_p1/p3) with
#                   slime_store_trigger(), so chunks go to the shard's store
#   shard1_standby  a hot standby of shard1; shard1 commits synchronously
#                   (synchronous_standby_names names it)
# The islands: SLIME_SHARD_ISLANDS (default 10,000) small worlds made from a
# slimetool gen-world island, each with a chunk of its own (a stamp tag),
# some with chunks removed, saved through the coordinator and on one node.
#
# Checks, each against islands_local (one node):
#   1. rows on both shards; every value equal through the coordinator; loads
#      (the shard resolves) byte for byte; a save's new chunk lands in the
#      store of the shard that holds the row, not in the other
#   2. analytics pushed down (EXPLAIN VERBOSE: the slime aggregates and
#      functions in every Remote SQL, async foreign scans, partitionwise
#      aggregation, no local aggregate of world values): per-island block and
#      block entity totals, network totals, a WHERE and a HAVING; equal
#      results
#   3. the standby serves loads and analytics (directly and through the
#      coordinator) equal to its primary's
#   4. slime_gc() on one shard removes its garbage and leaves the other
#      shard's store alone; GC on the coordinator scans no foreign table
#   5. CLIENTS psql sessions save (a new world through the coordinator and
#      the same into islands_local, one transaction) and load each save back
#      through the coordinator; shard1's primary is SIGKILLed mid-run, its
#      standby promoted and the coordinator's server repointed
#   6. every acknowledged save is on the promoted node (an unacknowledged one
#      may be: in flight at the kill), every value of every island reads back
#      equal, the analytics again equal; saves and loads run on the promoted
#      shard
# Ends with "N passed, N failed". SLIME_SHARD_SECONDS (default 6): how long
# the clients run before the kill.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

slime_tally_init
N=${SLIME_SHARD_ISLANDS:-10000}
CLIENTS=${SLIME_SHARD_CLIENTS:-4}
RUN_SECONDS=${SLIME_SHARD_SECONDS:-6}
TOOL=$SLIME_ROOT/build/slimetool
[ -x "$TOOL" ] || slime_build_tool
[ -x "$SLIME_PG_BIN/pg_basebackup" ] || { echo "shard: $SLIME_PG_BIN/pg_basebackup missing" >&2; exit 1; }

WORK=$(mktemp -d /tmp/slime-shard.XXXXXX)
chmod 755 "$WORK"
slime_on_exit 'rm -rf "$WORK"'
CLIENT_PIDS=()
slime_on_exit 'for p in "${CLIENT_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done'
"$TOOL" gen-world "$WORK/seed" --size 3 >/dev/null
chmod -R a+rX "$WORK"

# ---- the nodes ---------------------------------------------------------------
slime_log "shard: starting the coordinator, two shards and a standby of shard1"
slime_node_start coord
slime_node_start shard2
SLIME_PG_CONF="synchronous_commit = on
synchronous_standby_names = 'shard1_standby'" slime_node_start shard1
slime_standby_start shard1_standby shard1
# shellcheck disable=SC2034  # finish() shows this log's crashes on failure
SERVER_LOG=${SLIME_NODE_DIR[coord]}/server.log
C() { slime_node_psql coord "$@"; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
S1() { slime_node_psql shard1 "$@"; }
S2() { slime_node_psql shard2 "$@"; }
SB() { slime_node_psql shard1_standby "$@"; }

slime_shard_sql p0 p2 | S1
slime_shard_sql p1 p3 | S2
{
    slime_shard_server_sql shard1 "${SLIME_NODE_HOST[shard1]}" "${SLIME_NODE_PORT[shard1]}" batch_size 50
    slime_shard_server_sql shard2 "${SLIME_NODE_HOST[shard2]}" "${SLIME_NODE_PORT[shard2]}" batch_size 50
    slime_shard_server_sql shard1_ro "${SLIME_NODE_HOST[shard1_standby]}" "${SLIME_NODE_PORT[shard1_standby]}"
    slime_shard_coord_sql shard1 shard2 shard1 shard2
    # partition 0 as the standby serves it
    echo "CREATE FOREIGN TABLE standby_p0 (id bigint, world slime, saved_at timestamptz)
              SERVER shard1_ro OPTIONS (table_name 'islands_p0');"
    slime_stamp_sql
    cat <<EOF
CREATE TABLE islands_local (id bigint PRIMARY KEY, world slime NOT NULL, saved_at timestamptz NOT NULL DEFAULT now());
CREATE TRIGGER islands_local_store BEFORE INSERT OR UPDATE ON islands_local
    FOR EACH ROW EXECUTE FUNCTION slime_store_trigger();
CREATE TABLE seed AS SELECT slime_import_region(pg_read_binary_file($(slime_sq "$WORK/seed/region/r.0.0.mca")), 0, 0,
    entities => pg_read_binary_file($(slime_sq "$WORK/seed/entities/r.0.0.mca")),
    poi => pg_read_binary_file($(slime_sq "$WORK/seed/poi/r.0.0.mca"))) AS world;
CREATE TABLE seed_chunks AS SELECT c.x, c.z, slime_chunk_nbt(s.world, c.x, c.z) AS nbt
    FROM seed s, slime_chunks(s.world) c;
-- island g: the seed with chunk (g % 2, g / 2 % 2) stamped g, some chunks removed
-- (the chest, the hoppers, the composter and the pig are in chunk (1,1))
CREATE TABLE gen AS
SELECT g AS id, slime_put_chunk(w, c.x, c.z, stamp(c.nbt, g)) AS world
FROM generate_series(1, $N) g CROSS JOIN seed s
CROSS JOIN LATERAL (SELECT CASE WHEN g % 5 = 0 THEN slime_delete_chunk(s.world, 2, 2) ELSE s.world END) w1(w1)
CROSS JOIN LATERAL (SELECT CASE WHEN g % 7 = 0 THEN slime_delete_chunk(w1, 2, 1) ELSE w1 END) w2(w2)
CROSS JOIN LATERAL (SELECT CASE WHEN g % 11 = 0 THEN slime_delete_chunk(w2, 1, 1) ELSE w2 END) w3(w)
JOIN seed_chunks c ON c.x = g % 2 AND c.z = g / 2 % 2;
ALTER TABLE gen ADD PRIMARY KEY (id);
EOF
} >"$WORK/coord.sql"
slime_log "shard: generating $N islands on the coordinator"
C -f "$WORK/coord.sql" >/dev/null
t0=$(date +%s.%N)
C -c "INSERT INTO islands (id, world) SELECT id, world FROM gen"
t1=$(date +%s.%N)
C -c "INSERT INTO islands_local (id, world) SELECT id, world FROM gen"
t2=$(date +%s.%N)
C -c "ANALYZE"
echo "  saved $N islands through the coordinator in $(secs "$t0" "$t1") s, on one node in $(secs "$t1" "$t2") s"

# ---- 1. rows, values, loads, where a save's chunks go -------------------------
read -r n1 n2 e1 e2 <<<"$( (S1 -At -c "SELECT (SELECT count(*) FROM islands_p0) + (SELECT count(*) FROM islands_p2)"
                            S2 -At -c "SELECT (SELECT count(*) FROM islands_p1) + (SELECT count(*) FROM islands_p3)"
                            S1 -At -c "SELECT count(*) FROM slime_store"
                            S2 -At -c "SELECT count(*) FROM slime_store") | paste -sd ' ')"
el=$(C -At -c "SELECT count(*) FROM slime_store")
if [ $((n1 + n2)) = "$N" ] && [ "$n1" -gt 0 ] && [ "$n2" -gt 0 ]; then
    result OK "1: $N islands over two shards ($n1 on shard1, $n2 on shard2)"
else result FAIL "1: rows on the shards: $n1 + $n2, expected $N"; fi
echo "  chunk store: shard1 $e1 + shard2 $e2 = $((e1 + e2)) entries; one node $el (chunks shared by islands on both shards are stored on each)"
res=$(C -At -F ' ' -c "SELECT count(*), count(*) FILTER (WHERE s.world = l.world)
                       FROM islands s JOIN islands_local l USING (id)")
[ "$res" = "$N $N" ] && result OK "1: every value equal through the coordinator ($res)" ||
    result FAIL "1: values through the coordinator: $res (rows, equal)"
res=$(C -At -F ' ' -c "SELECT count(*), count(*) FILTER (WHERE s.world::bytea = g.world::bytea
                                                   AND (slime_info(s.world) ->> 'store_refs')::int = 0)
                       FROM islands_loads s JOIN gen g USING (id)")
[ "$res" = "$N $N" ] && result OK "1: every load through the coordinator self-contained and byte for byte ($res)" ||
    result FAIL "1: loads through the coordinator: $res (rows, identical)"

# a save of island K: its new chunk goes to the store of the shard holding it
new_value() {      # new_value ID STAMP: SQL of island ID's world with chunk (0,1) stamped STAMP
    echo "(SELECT slime_put_chunk(g.world, 0, 1, stamp(c.nbt, $2)) FROM gen g, seed_chunks c
           WHERE g.id = $1 AND c.x = 0 AND c.z = 1)"
}
for k in 42 43; do
    hash=$(C -At -c "SELECT encode(c.hash, 'hex') FROM slime_chunks($(new_value $k 900000$k)) c WHERE c.x = 0 AND c.z = 1")
    part=$(C -At -c "SELECT tableoid::regclass FROM islands WHERE id = $k")
    C -c "UPDATE islands SET world = $(new_value $k 900000$k) WHERE id = $k" \
      -c "UPDATE islands_local SET world = $(new_value $k 900000$k) WHERE id = $k"
    h1=$(S1 -At -c "SELECT count(*) FROM slime_store WHERE hash = '\\x$hash'")
    h2=$(S2 -At -c "SELECT count(*) FROM slime_store WHERE hash = '\\x$hash'")
    case $part in islands_0|islands_2) want="1 0" ;; *) want="0 1" ;; esac
    [ "$h1 $h2" = "$want" ] && result OK "1: island $k ($part) saved through the coordinator: its new chunk is in its shard's store only" ||
        result FAIL "1: island $k ($part): new chunk in shard1/shard2 stores: $h1 $h2, expected $want"
done

# ---- 2. analytics pushed down, equal to one node ------------------------------
PER_ISLAND="SELECT id, slime_block_totals(world) AS blocks, slime_block_entity_totals(world) AS block_entities
FROM islands GROUP BY id"
per_part() {       # per_part AGG: the aggregate over each foreign partition, as rows
    echo "SELECT $1(world) FROM islands_0 UNION ALL SELECT $1(world) FROM islands_1
          UNION ALL SELECT $1(world) FROM islands_2 UNION ALL SELECT $1(world) FROM islands_3"
}
sum_counts() {     # sum_counts QUERY: the jsonb counts of QUERY's rows summed
    echo "(SELECT jsonb_object_agg(k, n) FROM (SELECT k, sum(v::bigint) AS n
           FROM ($1) p(t), jsonb_each_text(t) e(k, v) GROUP BY k) s)"
}
WHERE_Q="SELECT id FROM islands WHERE slime_info(world) @> '{\"chunks\": 8}' ORDER BY id"
HAVING_Q="SELECT id FROM islands GROUP BY id HAVING NOT slime_block_entity_totals(world) @? '\$.\"minecraft:chest\"' ORDER BY id"
explain() { C -At -c "SET enable_partitionwise_aggregate = on" -c "EXPLAIN (VERBOSE, COSTS OFF) $1"; }
explain "$PER_ISLAND" >"$WORK/explain-per-island.txt"
explain "$(per_part slime_block_totals)" >"$WORK/explain-totals.txt"
explain "$WHERE_Q" >"$WORK/explain-where.txt"
explain "$HAVING_Q" >"$WORK/explain-having.txt"
echo "  EXPLAIN VERBOSE of the per-island analytics query:"
sed 's/^/    /' "$WORK/explain-per-island.txt"
# pushed NAME FILE PATTERN: 4 async foreign scans whose Remote SQL all match, no local aggregate
pushed() {
    local scans remote
    scans=$(grep -c 'Async Foreign Scan' "$2" || true)
    remote=$(grep 'Remote SQL:' "$2" | grep -c -- "$3" || true)
    if [ "$scans" = 4 ] && [ "$remote" = 4 ] && ! grep -q 'Partial Aggregate\|HashAggregate\|GroupAggregate' "$2"; then
        result OK "2: $1 pushed down: 4 async foreign scans, Remote SQL with $3"
    else
        result FAIL "2: $1 not pushed down ($scans async scans, $remote Remote SQL with $3):"; cat "$2"
    fi
}
pushed "per-island totals (partitionwise)" "$WORK/explain-per-island.txt" 'public.slime_block_totals(world), public.slime_block_entity_totals(world) FROM public.islands_p[0-3] GROUP BY 1'
pushed "network totals (per partition)" "$WORK/explain-totals.txt" 'SELECT public.slime_block_totals(world) FROM public.islands_p'
pushed "WHERE slime_info(world) @> ..." "$WORK/explain-where.txt" 'WHERE ((public.slime_info(world) @>'
pushed "HAVING slime_block_entity_totals(world) @? ..." "$WORK/explain-having.txt" 'HAVING ((NOT (public.slime_block_entity_totals(world) @?'

# compare_analytics LABEL [per-island]: every analytics result through the
# coordinator equals one node's (per-island: the per-island totals only)
compare_analytics() {
    local res t0 t1 t2
    t0=$(date +%s.%N)
    res=$(C -At -F ' ' -c "SET enable_partitionwise_aggregate = on" -c "
        WITH s AS ($PER_ISLAND),
             o AS (SELECT id, slime_block_totals(world) AS blocks, slime_block_entity_totals(world) AS block_entities
                   FROM islands_local GROUP BY id)
        SELECT count(*), count(*) FILTER (WHERE s.blocks = o.blocks AND s.block_entities = o.block_entities)
        FROM s JOIN o USING (id)")
    t1=$(date +%s.%N)
    [ "$res" = "$N $N" ] && result OK "$1: per-island block and block entity totals equal to one node's ($res)" ||
        result FAIL "$1: per-island totals: $res (islands, equal)"
    if [ "${2:-}" = per-island ]; then
        echo "  per-island totals over two shards and one node side by side: $(secs "$t0" "$t1") s"
        return 0
    fi
    res=$(C -At -F ' ' -c "SELECT $(sum_counts "$(per_part slime_block_totals)") = slime_block_totals(world),
                                  $(sum_counts "$(per_part slime_block_entity_totals)") = slime_block_entity_totals(world)
                           FROM islands_local")
    t2=$(date +%s.%N)
    [ "$res" = "t t" ] && result OK "$1: network block and block entity totals equal to one node's" ||
        result FAIL "$1: network totals equal: $res"
    res=$(C -At -c "SELECT array($WHERE_Q) = array(${WHERE_Q//FROM islands /FROM islands_local }),
                           array($HAVING_Q) = array(${HAVING_Q//FROM islands /FROM islands_local }),
                           cardinality(array($WHERE_Q)) > 0 AND cardinality(array($HAVING_Q)) > 0")
    [ "$res" = "t|t|t" ] && result OK "$1: WHERE and HAVING pushed down select the same islands as one node" ||
        result FAIL "$1: WHERE/HAVING results: $res"
    echo "  per-island totals over two shards and one node side by side: $(secs "$t0" "$t1") s; network totals both ways: $(secs "$t1" "$t2") s"
}
compare_analytics 2

# ---- 3. the hot standby serves loads and analytics ----------------------------
wait_standby() {   # until the standby has replayed what shard1 has written
    local lsn t
    lsn=$(S1 -At -c "SELECT pg_current_wal_lsn()")
    for ((t = 0; t < 300; t++)); do
        [ "$(SB -At -c "SELECT pg_last_wal_replay_lsn() >= '$lsn'")" = t ] && return 0
        sleep 0.1
    done
    return 1
}
STANDBY_Q="SELECT slime_block_totals(world), md5(string_agg(encode(slime_content_hash(world), 'hex'), ',' ORDER BY id))"
if wait_standby; then
    a=$(S1 -At -c "$STANDBY_Q FROM islands_p0" -c "SELECT md5(string_agg(md5(world::bytea), ',' ORDER BY id)) FROM islands_p0_load")
    b=$(SB -At -c "$STANDBY_Q FROM islands_p0" -c "SELECT md5(string_agg(md5(world::bytea), ',' ORDER BY id)) FROM islands_p0_load")
    c=$(C -At -c "SELECT (SELECT slime_block_totals(world) FROM standby_p0) = (SELECT slime_block_totals(world) FROM islands_0)")
    if [ "$a" = "$b" ] && [ -n "$a" ] && [ "$c" = t ]; then
        result OK "3: the standby serves analytics and loads of shard1 equal to its primary's (directly and through the coordinator)"
    else result FAIL "3: standby differs from its primary (through the coordinator: $c)"; fi
else
    result FAIL "3: the standby did not catch up within 30 s"
fi

# ---- 4. GC on one shard leaves the other alone --------------------------------
# garbage on both shards: 40 islands saved again (their old stamped chunks unreferenced)
C -c "UPDATE islands i SET world = $(new_value i.id "800000 + i.id") WHERE id BETWEEN 101 AND 140" \
  -c "UPDATE islands_local i SET world = $(new_value i.id "800000 + i.id") WHERE id BETWEEN 101 AND 140"
read -r e1 e2 <<<"$( (S1 -At -c "SELECT count(*) FROM slime_store"; S2 -At -c "SELECT count(*) FROM slime_store") | paste -sd ' ')"
g2=$(S2 -At -F ' ' -c "SELECT removed_entries, kept_entries FROM slime_gc()")
f1=$(S1 -At -c "SELECT count(*) FROM slime_store")
gc=$(C -At -F ' ' -c "SELECT columns_scanned FROM slime_gc()")
read -r f1b f2b <<<"$( (S1 -At -c "SELECT count(*) FROM slime_store"; S2 -At -c "SELECT count(*) FROM slime_store") | paste -sd ' ')"
g1=$(S1 -At -F ' ' -c "SELECT removed_entries, kept_entries FROM slime_gc()")
echo "  stores before GC: shard1 $e1, shard2 $e2; slime_gc() on shard2: removed/kept $g2; on shard1: $g1; coordinator GC scanned $gc columns"
if [ "${g2%% *}" -gt 0 ] && [ "$f1" = "$e1" ] && [ "$f1b" = "$e1" ] && [ "$f2b" = "${g2##* }" ] && [ "${g1%% *}" -gt 0 ] &&
   [ "$gc" = "$(C -At -c "SELECT count(*) FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
                          WHERE c.relkind IN ('r', 'm') AND a.atttypid = 'slime'::regtype AND NOT a.attisdropped")" ]; then
    result OK "4: GC on shard2 removed its garbage and left shard1's store alone; the coordinator's GC scanned its own tables only"
else
    result FAIL "4: GC isolation: shard1 $e1 -> $f1 -> $f1b, shard2 $e2 -> gc $g2 -> $f2b, shard1 gc $g1, coordinator scanned $gc"
fi
res=$(C -At -F ' ' -c "SELECT count(*), count(*) FILTER (WHERE s.world = l.world) FROM islands_loads s JOIN islands_local l USING (id)
                       WHERE id BETWEEN 1 AND 200")
[ "$res" = "200 200" ] && result OK "4: after GC on both shards the islands saved again load equal ($res)" ||
    result FAIL "4: loads after GC: $res"

# ---- 5. saves and loads through the coordinator; shard1's primary dies --------
# save_sql K COUNT: client K's saves (COUNT of them; 0: until an error) of the
# islands it owns (id % CLIENTS = K - 1), each followed by a load through the
# coordinator. Logs "P id hash" before and "C id hash" after each commit the
# server acknowledged, "L id ok|BAD" for the load.
save_sql() {
    local k=$1 count=$2 n=0 id
    RANDOM=$((k * 1000 + PHASE))   # the same islands each run
    while [ "$count" = 0 ] || [ $n -lt "$count" ]; do
        n=$((n + 1))
        id=$(( (RANDOM * 32768 + RANDOM) % (N / CLIENTS) * CLIENTS + k ))
        [ "$id" -le "$N" ] || id=$k
        printf '%s\n' \
            "SELECT v, encode(slime_content_hash(v), 'hex') AS h FROM ($(new_value "$id" "$((k * 1000000000 + PHASE * 100000000 + n))") OFFSET 0) s(v) \\gset" \
            "\\echo P $id :h" "BEGIN;" \
            "UPDATE islands SET world = :'v', saved_at = now() WHERE id = $id;" \
            "UPDATE islands_local SET world = :'v', saved_at = now() WHERE id = $id;" \
            "COMMIT;" "\\echo C $id :h" \
            "SELECT CASE WHEN slime_content_hash(world) = decode(:'h', 'hex') AND slime_verify(world) THEN 'ok' ELSE 'BAD' END AS r
               FROM islands_loads WHERE id = $id \\gset" \
            "\\echo L $id :r" || return 0
    done
}
start_clients() {  # start_clients COUNT
    local k
    CLIENT_PIDS=()
    for ((k = 1; k <= CLIENTS; k++)); do
        { save_sql "$k" "$1" | PGHOST=${SLIME_NODE_HOST[coord]} PGPORT=${SLIME_NODE_PORT[coord]} \
              psql -X -q -At -v ON_ERROR_STOP=1 >"$WORK/p$PHASE.$k.out" 2>"$WORK/p$PHASE.$k.err"; } &
        CLIENT_PIDS+=($!)
    done
}
wait_clients() {   # wait_clients SECONDS: wait for the clients, killing those still running after SECONDS
    local t p left
    for ((t = 0; t < $1 * 10; t++)); do
        left=0
        for p in "${CLIENT_PIDS[@]}"; do slime_alive "$p" && left=1; done
        [ $left = 0 ] && break
        sleep 0.1
    done
    for p in "${CLIENT_PIDS[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
    CLIENT_PIDS=()
}

PHASE=1
slime_log "shard: $CLIENTS clients saving and loading through the coordinator; SIGKILL of shard1's primary after ${RUN_SECONDS}s"
start_clients 0
sleep "$RUN_SECONDS"
alive=0
for p in "${CLIENT_PIDS[@]}"; do slime_alive "$p" && alive=$((alive + 1)); done
[ "$alive" = "$CLIENTS" ] || { echo "shard: only $alive of $CLIENTS clients still running before the kill:"; cat "$WORK"/p1.*.err; }
slime_cluster_kill all "${SLIME_NODE_DIR[shard1]}/data"
wait_clients 20
acks=$(cat "$WORK"/p1.*.out | grep -c '^C ' || true)
echo "  phase 1: $acks saves acknowledged before the kill; how the clients ended: $(for ((k = 1; k <= CLIENTS; k++)); do
    grep -v '^\s' "$WORK/p1.$k.err" | head -n 1 | sed 's/^psql:<stdin>:[0-9]*: //'; done | sort | uniq -c | sed 's/^ *//' | paste -sd ';' -)"
[ "$alive" = "$CLIENTS" ] && [ "$acks" -gt 0 ] && result OK "5: $CLIENTS clients saved and loaded through the coordinator until the kill ($acks saves)" ||
    result FAIL "5: clients: $alive of $CLIENTS running at the kill, $acks saves acknowledged"
if grep -h '^L .* BAD' "$WORK"/p1.*.out; then result FAIL "5: a load through the coordinator differed from the save before it"; fi

slime_log "shard: promoting shard1_standby, repointing the coordinator's server shard1"
t0=$(date +%s.%N)
(cd / && runuser -u postgres -- "$SLIME_PG_BIN/pg_ctl" -D "${SLIME_NODE_DIR[shard1_standby]}/data" -w -t 60 promote >/dev/null)
C -c "ALTER SERVER shard1 OPTIONS (SET host '${SLIME_NODE_HOST[shard1_standby]}', SET port '${SLIME_NODE_PORT[shard1_standby]}')"
t1=$(date +%s.%N)
[ "$(SB -At -c "SELECT pg_is_in_recovery()")" = f ] && result OK "5: standby promoted and the coordinator repointed in $(secs "$t0" "$t1") s" ||
    result FAIL "5: the standby is still in recovery after pg_ctl promote"

# ---- 6. nothing acknowledged lost; everything reads back ----------------------
# per island saved: the last acknowledged hash ("-" for none), then the
# hashes in flight after it; an island with no acknowledged save may also
# hold what it held before, which one node still holds
cat "$WORK"/p1.*.out | awk '$1 == "P" { p[$2] = p[$2] " " $3 } $1 == "C" { c[$2] = $3; p[$2] = "" }
    END { for (id in p) printf "%s %s%s\n", id, (id in c ? c[id] : "-"), p[id] }' |
    sort -n >"$WORK/expect.txt"
ids=$(cut -d' ' -f1 "$WORK/expect.txt" | paste -sd, -)
C -At -F ' ' -c "SELECT id, encode(slime_content_hash(world), 'hex') FROM islands_local WHERE id IN (${ids:-0}) ORDER BY id" >"$WORK/before.txt"
C -At -F ' ' -c "SELECT id, encode(slime_content_hash(world), 'hex') FROM islands WHERE id IN (${ids:-0}) ORDER BY id" >"$WORK/actual.txt"
read -r lost inflight <<<"$(awk 'FILENAME ~ /before/ { before[$1] = $2; next }
    FILENAME ~ /expect/ { want[$1] = $0; next }
    { split(want[$1], w, " "); ok = 0
      if (w[2] == $2 || (w[2] == "-" && before[$1] == $2)) ok = 1
      for (i = 3; i in w; i++) if (w[i] == $2) { ok = 1; fl++ }
      if (!ok) { lost++; print "lost: island " $1 " holds " $2 ", acknowledged " w[2] > "/dev/stderr" } }
    END { print lost + 0, fl + 0 }' "$WORK/before.txt" "$WORK/expect.txt" "$WORK/actual.txt")"
nsaved=$(wc -l <"$WORK/expect.txt")
if [ "$lost" = 0 ] && [ "$(wc -l <"$WORK/actual.txt")" = "$nsaved" ]; then
    result OK "6: every acknowledged save is on the promoted shard ($nsaved islands saved; $inflight unacknowledged saves in flight at the kill are there too)"
else
    result FAIL "6: $lost islands lost an acknowledged save ($nsaved saved, $(wc -l <"$WORK/actual.txt") found)"
fi
# an in-flight save the shard committed but the coordinator did not: one node gets it too
# (a CTE: UPDATE ... FROM a foreign table on a view fails, postgres_fdw asks it for ctid)
C -c "WITH s AS MATERIALIZED (SELECT id, world FROM islands_loads WHERE id IN (${ids:-0}))
      UPDATE islands_local l SET world = s.world FROM s WHERE s.id = l.id AND s.world <> l.world"
res=$(C -At -F ' ' -c "SELECT count(*), count(*) FILTER (WHERE s.world = l.world AND slime_verify(s.world))
                       FROM islands_loads s JOIN islands_local l USING (id)")
[ "$res" = "$N $N" ] && result OK "6: every island loads back through the coordinator after the promotion, equal to one node's ($res)" ||
    result FAIL "6: loads after the promotion: $res (islands, equal)"
compare_analytics 6 per-island

PHASE=2
start_clients 15
wait_clients 120
res=$(cat "$WORK"/p2.*.out | awk '$1 == "C" { c++ } $1 == "L" && $3 == "ok" { l++ } END { print c + 0, l + 0 }')
if [ "$res" = "$((CLIENTS * 15)) $((CLIENTS * 15))" ] && ! grep -q . "$WORK"/p2.*.err; then
    result OK "6: saves and loads through the coordinator on the promoted shard ($res saves and loads)"
else
    result FAIL "6: after the promotion: $res saves and good loads of $((CLIENTS * 15))"; cat "$WORK"/p2.*.err | head -n 20
fi
res=$(C -At -F ' ' -c "SELECT count(*), count(*) FILTER (WHERE s.world = l.world) FROM islands s JOIN islands_local l USING (id)")
[ "$res" = "$N $N" ] && result OK "6: every value still equal to one node's ($res)" || result FAIL "6: values: $res"
finish
