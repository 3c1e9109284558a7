#!/usr/bin/env bash
# test/bench/bench_shard.sh — islands sharded over two nodes behind a
# postgres_fdw coordinator, against the same clients on one node, in one run:
#
#   11.1 bulk save of BENCH_SHARD_ISLANDS (2,000) islands, and bytes at rest
#       (tables and chunk stores) sharded, on one node, and without the store;
#   11.2 pgbench (-c 2 -j 2) saves and loads through the coordinator against
#       the same scripts on one node; WAL, full-page images and CPU per save
#       and per load (every postgres process of every node, /proc);
#   11.3 analytics over two shards (pushed down, async) against one node:
#       per-island totals (GROUP BY id) and network totals;
#   11.4 bytes on the wire (ss, loopback TCP) and CPU on both ends
#       (/proc/self/schedstat of each backend) per value read through
#       postgres_fdw against a local read: base64 and hex text forms (hex is
#       what 0.1.0-0.3.0 sent), slime.input_check full and structure, loads
#       through the resolving view, reference forms;
#   11.5 moving a partition to a new node with logical replication while
#       saves run (the README recipe): copy, catch-up, write pause, GC;
#   11.6 what 100 million islands would take, from these figures and the
#       seeds' rates (1.73M islands, ~23 KB, 3,300 saves and 900 loads a
#       minute).
#
#     bash test/bench/bench_shard.sh           # Debian 12, as root, repo root
#
# Islands: 10-chunk blocks (2x5) of seven corpus regions of 1.18+ worlds (206
# sources, 21.5 KB on average: the seeds' islands are ~23 KB), island i the
# source i mod 206 with one chunk of its own (a Stamp tag), so about ten
# islands share a source's chunks, as islands made from templates do.
# Nodes: throwaway clusters (test/lib.sh) on 127.0.0.1 and unix sockets, with
# fsync, synchronous_commit and full_page_writes on (logged tables, WAL as
# in production), wal_level logical. Every node runs on this one machine:
# the shards share its cores with the coordinator, the one node and the
# other engineers' work, so ratios matter, absolute figures little.
# Never fails on numbers. Environment: SLIME_CORPUS, BENCH_SHARD_ISLANDS
# (2000), BENCH_SECONDS (10: pgbench seconds per variant, two halves),
# BENCH_SHARD_READS (1000 values per read pass), SLIME_BENCH_BUILT (1:
# skip deps and build, as run.sh sets it).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib.sh
. "$HERE/../lib.sh"
cd "$SLIME_ROOT"

t_start=$(date +%s)
N=${BENCH_SHARD_ISLANDS:-2000}
SECS=${BENCH_SECONDS:-10}
READS=${BENCH_SHARD_READS:-1000}
PGBENCH=$SLIME_PG_BIN/pgbench

slime_bench_begin shard
BG_PIDS=()
slime_on_exit 'for p in "${BG_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done'
CORPUS=$(slime_corpus) || exit 1

# ---- nodes -------------------------------------------------------------------
export SLIME_PG_LISTEN=127.0.0.1
export SLIME_PG_CONF="fsync = on
synchronous_commit = on
full_page_writes = on
wal_level = logical
max_wal_size = 4GB
checkpoint_timeout = 30min"
slime_log "bench_shard: starting coord, shard1, shard2 and one (the one-node baseline)"
for n in coord shard1 shard2 one; do slime_node_start "$n"; done
Q() { local n=$1; shift; slime_node_psql "$n" -At "$@"; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "n/a" }'; }
div() { awk -v a="$1" -v b="$2" -v p="${3:-0}" 'BEGIN { if (b > 0) printf "%.*f", p, a / b; else printf "n/a" }'; }
now() { date +%s.%N; }

# node_cpu NODE: CPU seconds of every process of the node so far (the
# postmaster, its live children, and the children it has reaped)
node_cpu() {
    local pm p f sum=0 line
    pm=$(head -n 1 "${SLIME_NODE_DIR[$1]}/data/postmaster.pid")
    for p in $pm $(slime_children "$pm"); do
        line=$(cat "/proc/$p/stat" 2>/dev/null) || continue
        f=${line##*) }
        # fields after "comm": state=1 ... utime=12 stime=13 cutime=14 cstime=15
        sum=$(awk -v s="$sum" -v l="$f" -v pm="$([ "$p" = "$pm" ] && echo 1 || echo 0)" \
                  'BEGIN { split(l, a, " "); t = a[12] + a[13]; if (pm) t += a[14] + a[15]; print s + t }')
    done
    awk -v t="$sum" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.3f", t / hz }'
}
wal_lsn() { Q "$1" -c "SELECT pg_current_wal_lsn()"; }
# wal_between NODE LSN1 LSN2: "bytes fpi_bytes" of the WAL in between (pg_walinspect)
wal_between() {
    Q "$1" -F ' ' -c "SELECT coalesce(sum(combined_size), 0), coalesce(sum(fpi_size), 0)
                      FROM pg_get_wal_stats('$2', '$3')"
}
DATA_NODES=(shard1 shard2 one)
for n in "${DATA_NODES[@]}" coord; do Q "$n" -c "CREATE EXTENSION pg_walinspect" >/dev/null; done

# ---- schema and islands ------------------------------------------------------
slime_shard_sql p0 p2 | Q shard1 >/dev/null
slime_shard_sql p1 p3 | Q shard2 >/dev/null
C=$CORPUS/anvil-1.18plus
{
    slime_shard_server_sql shard1 127.0.0.1 "${SLIME_NODE_PORT[shard1]}" batch_size 50
    slime_shard_server_sql shard2 127.0.0.1 "${SLIME_NODE_PORT[shard2]}" batch_size 50
    # the same node, sending the hex text form 0.1.0-0.3.0 wrote
    slime_shard_server_sql shard1_hex 127.0.0.1 "${SLIME_NODE_PORT[shard1]}" options '-c slime.text_output=hex'
    slime_shard_coord_sql shard1 shard2 shard1 shard2
    slime_stamp_sql
    # the README's coordinator settings: values from the shards were checked
    # when stored, values from clients are checked again by the shard
    echo "ALTER DATABASE postgres SET slime.input_check = structure;"
    echo "ALTER DATABASE postgres SET enable_partitionwise_aggregate = on;"
    cat <<EOF
CREATE TABLE regions AS SELECT r.i, slime_import_region(pg_read_binary_file(r.p), r.rx, r.rz) AS w FROM (VALUES
    (1, $(slime_sq "$C/prismarine-provider-anvil/1.19.4/r.0.0.mca"), 0, 0),
    (2, $(slime_sq "$C/querz-nbt/parsers/r.0.0.mca"), 0, 0),
    (3, $(slime_sq "$C/pumpkin/bench_root_tmp/r.0.0.mca"), 0, 0),
    (4, $(slime_sq "$C/minestom/anvil_vanilla_sample/r.2.1.mca"), 2, 1),
    (5, $(slime_sq "$C/prismarine-provider-anvil/1.18.2/r.0.0.mca"), 0, 0),
    (6, $(slime_sq "$C/prismarine-provider-anvil/1.21.1/r.0.0.mca"), 0, 0),
    (7, $(slime_sq "$C/prismarine-provider-anvil/1.20.6/r.0.0.mca"), 0, 0)) r(i, p, rx, rz);
-- sources: every full 2x5 block of chunks of those regions
CREATE TABLE src AS
SELECT row_number() OVER (ORDER BY i, bx, bz)::int AS k, w FROM (
    SELECT r.i, c.x >> 1 AS bx, c.z / 5 AS bz, count(*) AS n,
           slime_agg(slime_put_chunk(NULL, c.x, c.z, slime_chunk_nbt(r.w, c.x, c.z))) AS w
    FROM regions r, slime_chunks(r.w) c GROUP BY 1, 2, 3) s WHERE n = 10;
-- island i: source i mod |src| with its first chunk stamped i; (cx, cz) is
-- the chunk a save changes
CREATE TABLE island_values (id bigint PRIMARY KEY, cx int, cz int, world slime);
INSERT INTO island_values
SELECT g, c.x, c.z, slime_put_chunk(s.w, c.x, c.z, stamp(slime_chunk_nbt(s.w, c.x, c.z), g))
FROM generate_series(1, $N) g
JOIN src s ON s.k = 1 + (g - 1) % (SELECT count(*) FROM src)
CROSS JOIN LATERAL (SELECT x, z FROM slime_chunks(s.w) ORDER BY x, z LIMIT 1) c;
DROP TABLE regions;
EOF
} >"$work/coord.sql"
slime_step "bench_shard: $N islands from corpus regions (coordinator)" "$work/coord.log" Q coord -f "$work/coord.sql"
read -r NSRC AVG <<<"$(Q coord -F ' ' -c "SELECT (SELECT count(*) FROM src), avg(octet_length(world::bytea))::int FROM island_values")"

# the one node: the same values, a table with the store (and its load view,
# so that the pgbench scripts are the same text), one without, the sources
# alone in a database of their own (a store where nothing is shared)
{
    echo "CREATE EXTENSION slime;"
    slime_stamp_sql
    cat <<'EOF'
CREATE TABLE island_values (id bigint PRIMARY KEY, cx int, cz int, world slime);
CREATE TABLE islands (id bigint PRIMARY KEY, world slime NOT NULL, saved_at timestamptz NOT NULL DEFAULT now());
CREATE TRIGGER islands_store BEFORE INSERT OR UPDATE ON islands FOR EACH ROW EXECUTE FUNCTION slime_store_trigger();
CREATE VIEW islands_loads AS SELECT id, slime_resolve(world) AS world, saved_at FROM islands;
CREATE TABLE islands_plain (id bigint PRIMARY KEY, world slime NOT NULL, saved_at timestamptz NOT NULL DEFAULT now());
CREATE DATABASE solo;
EOF
} | Q one >/dev/null
Q coord -c "\\copy island_values TO STDOUT (FORMAT binary)" | Q one -c "\\copy island_values FROM STDIN (FORMAT binary)" >/dev/null
SLIME_NODE_DB=solo Q one -c "CREATE EXTENSION slime" \
    -c "CREATE TABLE src (k int, w slime)" -c "CREATE TABLE src_plain (k int, w slime)" \
    -c "CREATE TRIGGER src_store BEFORE INSERT ON src FOR EACH ROW EXECUTE FUNCTION slime_store_trigger()" >/dev/null
Q coord -c "\\copy src TO STDOUT (FORMAT binary)" | SLIME_NODE_DB=solo Q one -c "\\copy src FROM STDIN (FORMAT binary)" >/dev/null
Q coord -c "\\copy src TO STDOUT (FORMAT binary)" | SLIME_NODE_DB=solo Q one -c "\\copy src_plain FROM STDIN (FORMAT binary)" >/dev/null

# ---- 11.1 bulk save and bytes at rest --------------------------------------------
slime_log "bench_shard: 11.1 bulk save of $N islands, sharded and on one node"
t0=$(now); Q coord -c "INSERT INTO islands (id, world) SELECT id, world FROM island_values" >/dev/null
t1=$(now); Q one -c "INSERT INTO islands (id, world) SELECT id, world FROM island_values" >/dev/null
t2=$(now); Q one -c "INSERT INTO islands_plain (id, world) SELECT id, world FROM island_values" >/dev/null
t3=$(now)
BULK_COORD=$(secs "$t0" "$t1"); BULK_ONE=$(secs "$t1" "$t2"); BULK_PLAIN=$(secs "$t2" "$t3")
for n in coord "${DATA_NODES[@]}"; do Q "$n" -c "VACUUM ANALYZE" -c "CHECKPOINT" >/dev/null; done
size_of() { Q "$1" -c "SELECT sum(pg_total_relation_size(c.oid))::bigint FROM pg_class c
                       WHERE c.relkind IN ('r', 'm') AND c.relname LIKE '$2'"; }
S_SHARDS=$(( $(size_of shard1 'islands_p%') + $(size_of shard2 'islands_p%') ))
S_STORES=$(( $(size_of shard1 slime_store) + $(size_of shard2 slime_store) ))
S_ONE=$(size_of one islands); S_ONE_STORE=$(size_of one slime_store); S_PLAIN=$(size_of one islands_plain)
E_SHARDS=$(( $(Q shard1 -c "SELECT count(*) FROM slime_store") + $(Q shard2 -c "SELECT count(*) FROM slime_store") ))
E_ONE=$(Q one -c "SELECT count(*) FROM slime_store")
SOLO_STORE=$(SLIME_NODE_DB=solo Q one -c "SELECT pg_total_relation_size('src') + pg_total_relation_size('slime_store')")
SOLO_PLAIN=$(SLIME_NODE_DB=solo Q one -c "SELECT pg_total_relation_size('src_plain')")

# ---- 11.2 saves and loads: pgbench through the coordinator and on one node -------
cat >"$work/save.sql" <<EOF
\\set id random(1, $N)
\\set u random(1, 2000000000)
UPDATE islands SET world = (SELECT slime_put_chunk(v.world, v.cx, v.cz, stamp(slime_chunk_nbt(v.world, v.cx, v.cz), :u))
                            FROM island_values v WHERE v.id = :id), saved_at = now() WHERE id = :id;
EOF
sed 's/UPDATE islands SET/UPDATE islands_plain SET/' "$work/save.sql" >"$work/save-plain.sql"
# a save whose value is ready (as a game server sends it): what the coordinator adds to a save
cat >"$work/save-pass.sql" <<EOF
\\set id random(1, $N)
UPDATE islands SET world = (SELECT world FROM island_values WHERE id = :id), saved_at = now() WHERE id = :id;
EOF
cat >"$work/load.sql" <<EOF
\\set id random(1, $N)
SELECT world FROM islands_loads WHERE id = :id;
EOF
declare -A TX=() TIME=() WAL=() FPI=() CPU_DATA=() CPU_COORD=()
# slice VARIANT NODE SCRIPT SECONDS: one pgbench run against NODE; adds up
# transactions, WAL and CPU of the data nodes behind NODE (the shards for
# the coordinator) and of the coordinator per variant
slice() {
    local v=$1 node=$2 script=$3 s=$4 out n lsn0=() lsn1=() c0 c1 cc0 cc1 i w=0 f=0 wb fb t0 t1 nodes
    if [ "$node" = coord ]; then nodes=(shard1 shard2); else nodes=("$node"); fi
    for n in "${nodes[@]}"; do Q "$n" -c "CHECKPOINT" >/dev/null; done
    for i in "${!nodes[@]}"; do lsn0[i]=$(wal_lsn "${nodes[i]}"); done
    c0=0; for n in "${nodes[@]}"; do c0=$(awk -v a="$c0" -v b="$(node_cpu "$n")" 'BEGIN { print a + b }'); done
    cc0=$(node_cpu coord); t0=$(now)
    out=$(PGHOST=${SLIME_NODE_HOST[$node]} PGPORT=${SLIME_NODE_PORT[$node]} PGUSER=postgres \
          "$PGBENCH" -n -c 2 -j 2 -T "$s" -f "$script" postgres 2>&1) || { echo "$out" >&2; exit 1; }
    t1=$(now)
    c1=0; for n in "${nodes[@]}"; do c1=$(awk -v a="$c1" -v b="$(node_cpu "$n")" 'BEGIN { print a + b }'); done
    cc1=$(node_cpu coord)
    for i in "${!nodes[@]}"; do
        lsn1[i]=$(wal_lsn "${nodes[i]}")
        read -r wb fb <<<"$(wal_between "${nodes[i]}" "${lsn0[i]}" "${lsn1[i]}")"
        w=$((w + wb)); f=$((f + fb))
    done
    TX[$v]=$(( ${TX[$v]:-0} + $(awk '/^number of transactions actually processed/ { print $NF }' <<<"$out") ))
    TIME[$v]=$(awk -v a="${TIME[$v]:-0}" -v b="$(secs "$t0" "$t1")" 'BEGIN { print a + b }')
    WAL[$v]=$(( ${WAL[$v]:-0} + w )); FPI[$v]=$(( ${FPI[$v]:-0} + f ))
    CPU_DATA[$v]=$(awk -v a="${CPU_DATA[$v]:-0}" -v b="$c0" -v c="$c1" 'BEGIN { print a + c - b }')
    CPU_COORD[$v]=$(awk -v a="${CPU_COORD[$v]:-0}" -v b="$cc0" -v c="$cc1" 'BEGIN { print a + c - b }')
}
VARIANTS=("save-coord|coord|$work/save.sql" "save-one|one|$work/save.sql" "save-plain|one|$work/save-plain.sql"
          "pass-coord|coord|$work/save-pass.sql" "load-coord|coord|$work/load.sql" "load-one|one|$work/load.sql")
half=$(awk -v s="$SECS" 'BEGIN { h = int(s / 2); print h < 1 ? 1 : h }')
slime_log "bench_shard: 11.2 pgbench -c 2 -j 2, ${#VARIANTS[@]} variants x 2 slices of ${half}s"
order=("${VARIANTS[@]}")
for ((i = ${#VARIANTS[@]} - 1; i >= 0; i--)); do order+=("${VARIANTS[i]}"); done
for v in "${order[@]}"; do
    IFS='|' read -r name node script <<<"$v"
    slice "$name" "$node" "$script" "$half"
done
tps() { div "${TX[$1]}" "${TIME[$1]}" 1; }
per_tx() { div "$2" "${TX[$1]}" "${3:-0}"; }          # per_tx VARIANT TOTAL [DECIMALS]
ms_tx() { awk -v c="$2" -v n="${TX[$1]}" 'BEGIN { if (n > 0) printf "%.2f", 1000 * c / n; else printf "n/a" }'; }

# ---- 11.3 analytics -----------------------------------------------------------------
PER_ISLAND_Q="SELECT id, slime_block_totals(world) AS blocks, slime_block_entity_totals(world) AS block_entities
    FROM islands GROUP BY id"
PER_ISLAND="SELECT sum(octet_length(blocks::text) + octet_length(block_entities::text)) FROM ($PER_ISLAND_Q) s"
TOTALS_COORD="SELECT jsonb_object_agg(k, n) FROM (SELECT k, sum(v::bigint) AS n FROM (
    SELECT slime_block_totals(world) FROM islands_0 UNION ALL SELECT slime_block_totals(world) FROM islands_1
    UNION ALL SELECT slime_block_totals(world) FROM islands_2 UNION ALL SELECT slime_block_totals(world) FROM islands_3) p(t),
    jsonb_each_text(t) e(k, v) GROUP BY k) s"
TOTALS_ONE="SELECT slime_block_totals(world) FROM islands"
run_once() {       # run_once NODE SQL: elapsed seconds
    local t0 t1
    t0=$(now); Q "$1" -c "SET enable_partitionwise_aggregate = on" -c "$2" >/dev/null; t1=$(now)
    secs "$t0" "$t1"
}
best() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b < a) ? b : a }'; }
slime_log "bench_shard: 11.3 analytics, best of 3, alternating"
A_PER_COORD=""; A_PER_ONE=""; A_TOT_COORD=""; A_TOT_ONE=""
for _ in 1 2 3; do
    A_PER_COORD=$(best "$A_PER_COORD" "$(run_once coord "$PER_ISLAND")")
    A_PER_ONE=$(best "$A_PER_ONE" "$(run_once one "$PER_ISLAND")")
    A_TOT_COORD=$(best "$A_TOT_COORD" "$(run_once coord "$TOTALS_COORD")")
    A_TOT_ONE=$(best "$A_TOT_ONE" "$(run_once one "$TOTALS_ONE")")
done
SAME=$( [ "$(Q coord -c "$TOTALS_COORD")" = "$(Q one -c "$TOTALS_ONE")" ] && echo equal || echo DIFFERENT)
Q coord -c "SET enable_partitionwise_aggregate = on" -c "EXPLAIN (VERBOSE, COSTS OFF) $PER_ISLAND_Q" >"$work/explain.txt"
for n in coord one; do
    Q "$n" -c "SET enable_partitionwise_aggregate = on" -c "EXPLAIN (ANALYZE, VERBOSE) $PER_ISLAND" >"$work/explain-analyze-$n.txt"
done

# ---- 11.4 bytes and CPU per value read ------------------------------------------------
slime_log "bench_shard: 11.4 reading $READS values through postgres_fdw and locally"
Q shard1 >/dev/null <<'EOF'
CREATE TABLE plain_p (id bigint PRIMARY KEY, world slime);
CREATE TABLE stored_p (id bigint PRIMARY KEY, world slime);
CREATE TRIGGER stored_p_store BEFORE INSERT ON stored_p FOR EACH ROW EXECUTE FUNCTION slime_store_trigger();
CREATE VIEW stored_p_load AS SELECT id, slime_resolve(world) AS world FROM stored_p;
-- this backend: its client's port and its CPU time so far (ns)
CREATE VIEW backend_cpu AS SELECT inet_client_port() AS port,
    split_part(pg_read_file('/proc/self/schedstat'), ' ', 1)::bigint AS ns;
EOF
Q coord >/dev/null <<EOF
CREATE FOREIGN TABLE plain_b64 (id bigint, world slime) SERVER shard1 OPTIONS (table_name 'plain_p');
CREATE FOREIGN TABLE plain_hex (id bigint, world slime) SERVER shard1_hex OPTIONS (table_name 'plain_p');
CREATE FOREIGN TABLE stored_b64 (id bigint, world slime) SERVER shard1 OPTIONS (table_name 'stored_p');
CREATE FOREIGN TABLE load_b64 (id bigint, world slime) SERVER shard1 OPTIONS (table_name 'stored_p_load');
CREATE FOREIGN TABLE load_hex (id bigint, world slime) SERVER shard1_hex OPTIONS (table_name 'stored_p_load');
CREATE FOREIGN TABLE cpu_b64 (port int, ns bigint) SERVER shard1 OPTIONS (table_name 'backend_cpu');
CREATE FOREIGN TABLE cpu_hex (port int, ns bigint) SERVER shard1_hex OPTIONS (table_name 'backend_cpu');
INSERT INTO plain_b64 SELECT id, world FROM island_values WHERE id <= $READS;
INSERT INTO stored_b64 SELECT id, world FROM island_values WHERE id <= $READS;
EOF
Q shard1 -c "VACUUM ANALYZE plain_p" -c "VACUUM ANALYZE stored_p" >/dev/null
VALUE_BYTES=$(Q shard1 -c "SELECT sum(octet_length(world::bytea)) FROM plain_p")
REF_BYTES=$(Q shard1 -c "SELECT sum(octet_length(world::bytea)) FROM stored_p")
PASSES=3
# read_remote LABEL CPU_TABLE QUERY CHECK: PASSES runs of QUERY in one
# coordinator session; wire bytes of the coordinator's connection (ss),
# CPU ns of the shard backend (through CPU_TABLE) and of this backend
read_remote() {
    local label=$1 cpu=$2 query=$3 check=$4
    {
        echo "SET slime.input_check = $check;"
        echo "SELECT port AS p FROM $cpu \\gset"
        echo "\\setenv P :p"
        echo "SELECT ns AS s0 FROM $cpu \\gset"
        echo "SELECT split_part(pg_read_file('/proc/self/schedstat'), ' ', 1)::bigint AS c0, extract(epoch FROM clock_timestamp()) AS t0 \\gset"
        echo "\\! ss -Htin \"( sport = :\$P )\" | grep -o 'bytes_received:[0-9]*' | cut -d: -f2 > '$work/ss0'"
        for ((i = 0; i < PASSES; i++)); do echo "$query;"; done
        echo "SELECT extract(epoch FROM clock_timestamp()) - :t0 AS el, split_part(pg_read_file('/proc/self/schedstat'), ' ', 1)::bigint - :c0 AS cc \\gset"
        echo "\\! ss -Htin \"( sport = :\$P )\" | grep -o 'bytes_received:[0-9]*' | cut -d: -f2 > '$work/ss1'"
        echo "SELECT ns - :s0 AS sc FROM $cpu \\gset"
        echo "\\echo READ :el :cc :sc"
    } >"$work/read.sql"
    local el cc sc b0 b1
    read -r el cc sc <<<"$(Q coord -q -f "$work/read.sql" | sed -n 's/^READ //p')"
    b0=$(cat "$work/ss0"); b1=$(cat "$work/ss1")
    printf '%s|%s|%s|%s|%s\n' "$label" "$(( (b1 - b0) / (PASSES * READS) ))" \
        "$(div "$sc" "$((PASSES * READS * 1000))" 1)" "$(div "$cc" "$((PASSES * READS * 1000))" 1)" \
        "$(div "$el" "$PASSES" 3)"
}
{
    # local: the same read in one shard1 session
    {
        echo "SELECT split_part(pg_read_file('/proc/self/schedstat'), ' ', 1)::bigint AS c0, extract(epoch FROM clock_timestamp()) AS t0 \\gset"
        for ((i = 0; i < PASSES; i++)); do echo "SELECT sum(octet_length(world::bytea)) FROM plain_p;"; done
        echo "SELECT extract(epoch FROM clock_timestamp()) - :t0 AS el, split_part(pg_read_file('/proc/self/schedstat'), ' ', 1)::bigint - :c0 AS cc \\gset"
        echo "\\echo LOCAL1 :el :cc"
        echo "SELECT split_part(pg_read_file('/proc/self/schedstat'), ' ', 1)::bigint AS c0, extract(epoch FROM clock_timestamp()) AS t0 \\gset"
        for ((i = 0; i < PASSES; i++)); do echo "SELECT sum(octet_length(slime_resolve(world)::bytea)) FROM stored_p;"; done
        echo "SELECT extract(epoch FROM clock_timestamp()) - :t0 AS el, split_part(pg_read_file('/proc/self/schedstat'), ' ', 1)::bigint - :c0 AS cc \\gset"
        echo "\\echo LOCAL2 :el :cc"
    } >"$work/local.sql"
    Q shard1 -q -f "$work/local.sql" >"$work/local.out"
    read -r el cc <<<"$(sed -n 's/^LOCAL1 //p' "$work/local.out")"
    echo "local read on the shard (self-contained values)|0|$(div "$cc" "$((PASSES * READS * 1000))" 1)|-|$(div "$el" "$PASSES" 3)"
    # OFFSET 0: the values come to the coordinator (the sum alone would be pushed down)
    READ_Q="SELECT sum(octet_length(world::bytea)) FROM (SELECT world FROM"
    read_remote "postgres_fdw, base64 (0.4.0), full input check" cpu_b64 "$READ_Q plain_b64 OFFSET 0) s" full
    read_remote "postgres_fdw, base64, input_check = structure" cpu_b64 "$READ_Q plain_b64 OFFSET 0) s" structure
    read_remote "postgres_fdw, hex (0.1.0-0.3.0), full input check" cpu_hex "$READ_Q plain_hex OFFSET 0) s" full
    read_remote "postgres_fdw, hex, input_check = structure" cpu_hex "$READ_Q plain_hex OFFSET 0) s" structure
    read -r el cc <<<"$(sed -n 's/^LOCAL2 //p' "$work/local.out")"
    echo "local load on the shard (slime_resolve of the store form)|0|$(div "$cc" "$((PASSES * READS * 1000))" 1)|-|$(div "$el" "$PASSES" 3)"
    read_remote "load through the resolving view, base64, full check" cpu_b64 "$READ_Q load_b64 OFFSET 0) s" full
    read_remote "load through the resolving view, hex, full check" cpu_hex "$READ_Q load_hex OFFSET 0) s" full
    read_remote "the stored reference form through postgres_fdw, base64" cpu_b64 "$READ_Q stored_b64 OFFSET 0) s" full
} >"$work/reads.txt"

# ---- 11.5 moving partition 3 from shard2 to a new node, saves running -----------
slime_log "bench_shard: 11.5 moving partition 3 from shard2 to shard3 with logical replication"
slime_node_start shard3
P2=${SLIME_NODE_PORT[shard2]}
slime_shard_sql p3 | Q shard3 >/dev/null
# the sentinel row: once it arrives, every transaction committed before it has
Q shard2 -c "CREATE TABLE move_marker (id int PRIMARY KEY, n bigint)" \
         -c "CREATE PUBLICATION move_store FOR TABLE slime_store WITH (publish = 'insert')" \
         -c "CREATE PUBLICATION move_p3 FOR TABLE islands_p3, move_marker" >/dev/null
Q shard3 -c "CREATE TABLE move_marker (id int PRIMARY KEY, n bigint)" >/dev/null
slime_shard_server_sql shard3 127.0.0.1 "${SLIME_NODE_PORT[shard3]}" | Q coord >/dev/null
E3_0=$(Q shard3 -c "SELECT count(*) FROM slime_store")

# saves through the coordinator all along (2 clients, 20 saves a second)
touch "$work/saving"
(
    while [ -f "$work/saving" ]; do
        PGHOST=${SLIME_NODE_HOST[coord]} PGPORT=${SLIME_NODE_PORT[coord]} PGUSER=postgres \
            "$PGBENCH" -n -c 2 -j 2 -R 20 -T 2 -f "$work/save.sql" postgres >>"$work/move-saves.out" 2>&1 ||
            echo "pgbench exit $?" >>"$work/move-saves.out"
    done
) &
BG_PIDS+=($!)
sleep 2

# 1. a slot whose snapshot the copy reads (kept open by a replication connection)
coproc REPL { PGHOST=127.0.0.1 PGPORT=$P2 PGUSER=postgres psql -X -At "dbname=postgres replication=database" 2>&1; }
echo "CREATE_REPLICATION_SLOT move_p3 LOGICAL pgoutput EXPORT_SNAPSHOT;" >&"${REPL[1]}"
read -r slot_line <&"${REPL[0]}"
SNAP=$(cut -d'|' -f3 <<<"$slot_line")
# 2. at that snapshot: the store first (replica role: entries shard3 holds are
#    skipped), then the rows, so that no row is there before its chunks
copy_at_snapshot() {   # copy_at_snapshot TABLE: rows, bytes
    local t0 t1
    t0=$(now)
    Q shard2 -c "BEGIN ISOLATION LEVEL REPEATABLE READ" -c "SET TRANSACTION SNAPSHOT '$SNAP'" \
             -c "\\copy $1 TO pstdout (FORMAT binary)" |
        tee >(wc -c >"$work/copy-bytes") |
        Q shard3 -c "SET session_replication_role = replica" -c "\\copy $1 FROM pstdin (FORMAT binary)" >/dev/null
    t1=$(now)
    sleep 0.2
    echo "$(Q shard2 -c "BEGIN ISOLATION LEVEL REPEATABLE READ" -c "SET TRANSACTION SNAPSHOT '$SNAP'" \
                     -c "SELECT count(*) FROM $1" | tail -n 1) $(cat "$work/copy-bytes") $(secs "$t0" "$t1")"
}
read -r MV_STORE_ROWS MV_STORE_BYTES MV_STORE_SECS <<<"$(copy_at_snapshot slime_store)"
read -r MV_ROWS MV_ROW_BYTES MV_ROW_SECS <<<"$(copy_at_snapshot islands_p3)"
E3_1=$(Q shard3 -c "SELECT count(*) FROM slime_store")
echo '\q' >&"${REPL[1]}"
wait "$REPL_PID" 2>/dev/null || true
# 3. stream what committed after the snapshot, in commit order (a save's
#    entries and its row in one transaction)
t0=$(now)
Q shard3 -c "CREATE SUBSCRIPTION move_p3 CONNECTION 'host=127.0.0.1 port=$P2 user=postgres dbname=postgres'
             PUBLICATION move_store, move_p3 WITH (create_slot = false, slot_name = 'move_p3', copy_data = false)" >/dev/null
marker() {         # marker N: write sentinel N on shard2, wait for it on shard3 (seconds, or "timeout")
    local t0 t
    t0=$(now)
    Q shard2 -c "INSERT INTO move_marker VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET n = EXCLUDED.n" >/dev/null
    for ((t = 0; t < 600; t++)); do
        [ "$(Q shard3 -c "SELECT n FROM move_marker WHERE id = 1")" = "$1" ] && { secs "$t0" "$(now)"; return 0; }
        sleep 0.05
    done
    echo timeout
}
MV_CATCHUP=$(marker 1)
t1=$(now)
sleep 3
MV_LAG=$(Q shard2 -c "SELECT pg_current_wal_lsn() - confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = 'move_p3'")
MV_STREAM=$(marker 2)
# 4. cutover: saves through the coordinator wait on the lock; the last ones
#    reach shard3 (sentinel); the two copies must be equal; the partition is
#    swapped for one on shard3 in the same transaction
CONTENT="SELECT count(*) || ' ' || md5(string_agg(id || ':' || encode(slime_content_hash(world), 'hex'), ',' ORDER BY id))
         FROM islands_p3"
coproc CO { slime_node_psql coord -At 2>&1; }
echo "BEGIN; LOCK TABLE islands, islands_loads IN EXCLUSIVE MODE; SELECT 'locked';" >&"${CO[1]}"
read -r line <&"${CO[0]}"
tc0=$(now)
MV_SENTINEL=$(marker 3)
OLD=$(Q shard2 -c "$CONTENT"); NEW=$(Q shard3 -c "$CONTENT")
MISSING=$(Q shard3 -c "SELECT count(*) FROM islands_p3, unnest(slime_refs(world)) r(h)
                       WHERE NOT EXISTS (SELECT 1 FROM slime_store s WHERE s.hash = r.h)")
cat >&"${CO[1]}" <<'EOF'
ALTER TABLE islands DETACH PARTITION islands_3;
ALTER TABLE islands_loads DETACH PARTITION islands_loads_3;
ALTER FOREIGN TABLE islands_3 RENAME TO islands_3_old;
ALTER FOREIGN TABLE islands_loads_3 RENAME TO islands_loads_3_old;
CREATE FOREIGN TABLE islands_3 PARTITION OF islands FOR VALUES WITH (MODULUS 4, REMAINDER 3)
    SERVER shard3 OPTIONS (table_name 'islands_p3');
CREATE FOREIGN TABLE islands_loads_3 PARTITION OF islands_loads FOR VALUES WITH (MODULUS 4, REMAINDER 3)
    SERVER shard3 OPTIONS (table_name 'islands_p3_load');
COMMIT;
SELECT 'switched';
EOF
read -r line <&"${CO[0]}"
tc1=$(now)
echo '\q' >&"${CO[1]}"
MV_PAUSE=$(secs "$tc0" "$tc1")
Q shard3 -c "DROP SUBSCRIPTION move_p3" >/dev/null
sleep 3
rm -f "$work/saving"
wait "${BG_PIDS[@]}" 2>/dev/null || true
BG_PIDS=()
MV_SAVES=$(awk '/^number of transactions actually processed/ { n += $NF } END { print n + 0 }' "$work/move-saves.out")
MV_ERRORS=$(grep -c 'pgbench exit\|aborted' "$work/move-saves.out" || true)
MV_LOADS=$(Q coord -F ' ' -c "SELECT count(*), count(*) FILTER (WHERE slime_verify(world)) FROM islands_loads_3")
# 5. GC: shard3 drops what came along for shard2's other partition; shard2
#    drops partition 3 and collects its chunks
MV_GC3=$(Q shard3 -F ' ' -c "SELECT removed_entries, pg_size_pretty(removed_bytes), kept_entries FROM slime_gc()")
Q shard2 -c "DROP TABLE islands_p3 CASCADE" -c "DROP PUBLICATION move_store" -c "DROP PUBLICATION move_p3" >/dev/null 2>&1
Q coord -c "DROP FOREIGN TABLE islands_3_old, islands_loads_3_old" >/dev/null
MV_GC2=$(Q shard2 -F ' ' -c "SELECT removed_entries, pg_size_pretty(removed_bytes), kept_entries FROM slime_gc()")

# ---- report --------------------------------------------------------------------------
MB() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
KB() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1024 }'; }
{
echo "== 11. Sharding: two shards behind a postgres_fdw coordinator against one node (bench_shard.sh) =="
echo "$N islands from $NSRC corpus sources (10 chunks, $(KB "$AVG") KB a value on average); PostgreSQL $(Q one -c "SHOW server_version"), $(nproc) cores"
echo "shared by all nodes and by other work on the machine; fsync, synchronous_commit, full_page_writes on"
echo
echo "11.1 bulk save (one INSERT ... SELECT of all islands) and bytes at rest"
printf '  %-44s %10s %12s\n' "" "seconds" "islands/s"
printf '  %-44s %10s %12s\n' "through the coordinator (2 shards, store)" "$BULK_COORD" "$(div "$N" "$BULK_COORD")"
printf '  %-44s %10s %12s\n' "one node, store" "$BULK_ONE" "$(div "$N" "$BULK_ONE")"
printf '  %-44s %10s %12s\n' "one node, no store" "$BULK_PLAIN" "$(div "$N" "$BULK_PLAIN")"
echo "  ratio coordinator / one node (time): $(ratio "$BULK_COORD" "$BULK_ONE")"
printf '  %-44s %12s %12s %10s\n' "" "total MB" "KB/island" "entries"
printf '  %-44s %12s %12s %10s\n' "2 shards: tables + stores" "$(MB $((S_SHARDS + S_STORES)))" "$(KB "$(div $((S_SHARDS + S_STORES)) "$N")")" "$E_SHARDS"
printf '  %-44s %12s %12s %10s\n' "one node: table + store" "$(MB $((S_ONE + S_ONE_STORE)))" "$(KB "$(div $((S_ONE + S_ONE_STORE)) "$N")")" "$E_ONE"
printf '  %-44s %12s %12s %10s\n' "one node: self-contained values, no store" "$(MB "$S_PLAIN")" "$(KB "$(div "$S_PLAIN" "$N")")" "-"
printf '  %-44s %12s %12s %10s\n' "the $NSRC sources alone, store (nothing shared)" "$(MB "$SOLO_STORE")" "$(KB "$(div "$SOLO_STORE" "$NSRC")")" "-"
printf '  %-44s %12s %12s %10s\n' "the $NSRC sources alone, no store" "$(MB "$SOLO_PLAIN")" "$(KB "$(div "$SOLO_PLAIN" "$NSRC")")" "-"
echo "  cross-shard dedupe not done: the shards hold $E_SHARDS store entries where one node holds $E_ONE ($(ratio "$E_SHARDS" "$E_ONE")x)"
echo
echo "11.2 pgbench -c 2 -j 2, ${SECS}s per variant in two halves, alternating; save = slime_put_chunk of one chunk"
echo "    of the island's value (built on the node the client talks to) written over the island; load = the"
echo "    island self-contained (resolving view / slime_resolve) as text; CPU: every process of the data nodes"
printf '  %-22s %8s %9s %11s %10s %12s %12s\n' variant tps "ratio" "WAL KB/tx" "FPI KB/tx" "data CPU ms" "coord CPU ms"
for v in save-coord save-one save-plain pass-coord load-coord load-one; do
    case $v in save-coord) r=$(ratio "$(tps "$v")" "$(tps save-one)") ;; load-coord) r=$(ratio "$(tps "$v")" "$(tps load-one)") ;;
               pass-coord) r=- ;; *) r=1.00 ;; esac
    printf '  %-22s %8s %9s %11s %10s %12s %12s\n' "$v" "$(tps "$v")" "$r" \
        "$(KB "$(per_tx "$v" "${WAL[$v]}")")" "$(KB "$(per_tx "$v" "${FPI[$v]}")")" \
        "$(ms_tx "$v" "${CPU_DATA[$v]}")" "$(ms_tx "$v" "${CPU_COORD[$v]}")"
done
echo "  (ratio: against the same script on one node; save-plain: one node without the chunk store;"
echo "   pass-coord: a ready value written through the coordinator, nothing new to store: what the coordinator adds)"
echo
echo "11.3 analytics over $N islands, best of 3 (pushed down: async foreign scans, partitionwise aggregation)"
printf '  %-52s %10s %10s %8s\n' "" "2 shards s" "1 node s" "ratio"
printf '  %-52s %10s %10s %8s\n' "per island: block and block entity totals, GROUP BY id" "$A_PER_COORD" "$A_PER_ONE" "$(ratio "$A_PER_COORD" "$A_PER_ONE")"
printf '  %-52s %10s %10s %8s\n' "network block totals (per partition, summed)" "$A_TOT_COORD" "$A_TOT_ONE" "$(ratio "$A_TOT_COORD" "$A_TOT_ONE")"
echo "  network totals: $SAME to one node's"
echo
echo "11.4 reading $READS values ($(KB "$(div "$VALUE_BYTES" "$READS")") KB each; stored reference form $(div "$REF_BYTES" "$READS") B) x $PASSES passes"
echo "    wire: bytes the coordinator's connection received (ss) per value; CPU per value (schedstat)"
printf '  %-56s %11s %12s %12s %9s\n' "" "wire B/val" "shard us/val" "coord us/val" "s/pass"
while IFS='|' read -r label wire scpu ccpu el; do
    printf '  %-56s %11s %12s %12s %9s\n' "$label" "$wire" "$scpu" "$ccpu" "$el"
done <"$work/reads.txt"
echo
echo "11.5 moving partition 3 (of 4) from shard2 to a new node with logical replication, saves running through"
echo "    the coordinator (2 clients, 20 saves/s); snapshot copy (store, then rows), then streaming"
echo "  copy at the slot's snapshot: store $MV_STORE_ROWS entries ($(MB "$MV_STORE_BYTES") MB) in $MV_STORE_SECS s, $((E3_1 - E3_0)) new on shard3;"
echo "                               rows $MV_ROWS ($(MB "$MV_ROW_BYTES") MB) in $MV_ROW_SECS s"
echo "  streaming: caught up $MV_CATCHUP s after the subscription; lag while saving $MV_LAG bytes; sentinel round trip $MV_STREAM s"
echo "  cutover: saves through the coordinator paused $MV_PAUSE s (lock, sentinel $MV_SENTINEL s, checks, partition swapped)"
echo "  copies at the cutover: shard2 '$OLD' / shard3 '$NEW' -> $([ "$OLD" = "$NEW" ] && echo equal || echo DIFFERENT);" \
     "references missing on shard3: $MISSING"
echo "  saves during the move: $MV_SAVES ($MV_ERRORS pgbench runs with errors); partition 3 loads through the coordinator (rows, verified): $MV_LOADS"
echo "  GC after the move: shard3 removed/kept $MV_GC3 (what came along for shard2's other partition);"
echo "                     shard2, partition 3 dropped: $MV_GC2"
echo
SAVES_S=$(awk 'BEGIN { printf "%.0f", 3300 / 60 * 100e6 / 1.73e6 }')
LOADS_S=$(awk 'BEGIN { printf "%.0f", 900 / 60 * 100e6 / 1.73e6 }')
echo "11.6 100 million islands at the seeds' rates scaled (3,300 saves and 900 loads a minute for 1.73M islands):"
echo "    $SAVES_S saves/s, $LOADS_S loads/s"
WALS=$(awk -v w="$(per_tx save-coord "${WAL[save-coord]}")" -v s="$SAVES_S" 'BEGIN { printf "%.0f", w * s / 1048576 }')
WALS_NOFPI=$(awk -v w="$(per_tx save-coord "${WAL[save-coord]}")" -v f="$(per_tx save-coord "${FPI[save-coord]}")" -v s="$SAVES_S" 'BEGIN { printf "%.0f", (w - f) * s / 1048576 }')
WALP=$(awk -v w="$(per_tx save-plain "${WAL[save-plain]}")" -v s="$SAVES_S" 'BEGIN { printf "%.0f", w * s / 1048576 }')
WALP_NOFPI=$(awk -v w="$(per_tx save-plain "${WAL[save-plain]}")" -v f="$(per_tx save-plain "${FPI[save-plain]}")" -v s="$SAVES_S" 'BEGIN { printf "%.0f", (w - f) * s / 1048576 }')
echo "  WAL: $WALS MB/s with the chunk store ($WALS_NOFPI MB/s without full-page images), $WALP MB/s without it ($WALP_NOFPI without FPIs)"
echo "  storage (tables, TOAST, indexes, store; no WAL, no standby): with the store as shared here" \
     "$(awk -v b="$(div $((S_SHARDS + S_STORES)) "$N")" 'BEGIN { printf "%.2f", b * 100e6 / 1e12 }') TB;" \
     "with nothing shared $(awk -v b="$(div "$SOLO_STORE" "$NSRC")" 'BEGIN { printf "%.2f", b * 100e6 / 1e12 }') TB;" \
     "without the store $(awk -v b="$(div "$S_PLAIN" "$N")" 'BEGIN { printf "%.2f", b * 100e6 / 1e12 }') TB"
echo "  data-node CPU: saves $(awk -v c="$(ms_tx save-coord "${CPU_DATA[save-coord]}")" -v s="$SAVES_S" 'BEGIN { printf "%.1f", c * s / 1000 }') cores," \
     "loads $(awk -v c="$(ms_tx load-coord "${CPU_DATA[load-coord]}")" -v s="$LOADS_S" 'BEGIN { printf "%.1f", c * s / 1000 }') cores;" \
     "coordinators: saves $(awk -v c="$(ms_tx pass-coord "${CPU_COORD[pass-coord]}")" -v s="$SAVES_S" 'BEGIN { printf "%.1f", c * s / 1000 }') cores (a ready value passed on)," \
     "loads $(awk -v c="$(ms_tx load-coord "${CPU_COORD[load-coord]}")" -v s="$LOADS_S" 'BEGIN { printf "%.1f", c * s / 1000 }') cores"
echo "  (cores as fast as this machine's; through the coordinator a save's value is built by the coordinator"
echo "   (save-coord), which a game server does itself: the shards' CPU is the write alone)"
echo
echo "EXPLAIN VERBOSE of the per-island analytics query:"
sed 's/^/  /' "$work/explain.txt"
echo
echo "EXPLAIN ANALYZE of the per-island analytics (summed), through the coordinator and on one node:"
sed 's/^/  /' "$work/explain-analyze-coord.txt"
sed 's/^/  /' "$work/explain-analyze-one.txt"
echo
echo "bench_shard: $(($(date +%s) - t_start)) s"
} | tee "$work/report.txt"
mkdir -p build/bench
cp "$work/report.txt" build/bench/shard-last-run.txt
