#!/usr/bin/env bash
# test/bench/bench_settle.sh — storage at rest (issue #22): what
# slime_settle() gains in bytes and costs in time, per corpus era and on
# loader islands, every figure a ratio against a baseline of the same run.
#
#   1. the block codec alone (build/bench_bcodec): per era, zstd-19 with long
#      matching per region (the baseline), the block codec per region, its
#      encode and decode MB/s of raw NBT;
#   2. per era, every region file (lenient import, default level) saved
#      through the chunk store into a table of its own database: the bytes
#      at rest (table + indexes + store, after VACUUM FULL) after slime_gc(),
#      then after slime_settle(older_than => '0'), against 1's zstd-19 long;
#      settle throughput (MB/s of raw NBT); every chunk read back through the
#      store before and after; slime_block_totals over the stored rows
#      against the same worlds as self-contained default-level values;
#   3. a loader (slime_loader_create) of 8 islands of 5x5 chunks (the 15x15
#      chunks of prismarine-provider-anvil/1.21.1/r.0.0.mca), each saved 11
#      times (one chunk changed a save, keep 11), after slime_gc(): loader
#      tables + store against a bytea row a world (the newest file), before
#      and after settling; loads (pgbench, one client, BENCH_SECONDS each)
#      of a cold island (no lease: its file dropped) and of a hot one (a
#      lease running) against a bytea select.
#
#     bash test/bench/bench_settle.sh      # Debian 12, as root, repo root
#
# Builds and installs the extension unless SLIME_BENCH_BUILT=1; uses the
# cluster named by the PG* variables or a throwaway one (test/lib.sh); its
# databases are dropped at the end. Prints the tables on stdout; never fails
# on numbers. A few minutes on 2 cores (most of it zstd-19 and the block
# codec). BENCH_SECONDS (5) per load variant. SETTLE_PARTS="2" (default
# "1 2 3") runs only the parts named (ratios against table 1 print n/a
# without it).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib.sh
. "$HERE/../lib.sh"
cd "$SLIME_ROOT"

SECS=${BENCH_SECONDS:-5}
part() { [[ " ${SETTLE_PARTS:-1 2 3} " == *" $1 "* ]]; }
ERAS=(anvil-1.2-1.12 anvil-1.13-1.17 anvil-1.18plus mcregion)

slime_bench_begin settle
CORPUS=$(slime_corpus) || exit 1
slime_step "build build/bench_bcodec" "$work/build-bcodec.log" \
    make build/bench_bcodec PG_CONFIG="$SLIME_PG_CONFIG"
if [ -z "${PGHOST:-}" ]; then
    slime_log "start a throwaway cluster"
    slime_cluster_start
fi
q() { local db=$1; shift; slime_psql -At -F ' ' -d "$db" "$@"; }
dbs=()
drop_dbs() { local d; for d in "${dbs[@]}"; do slime_psql -d postgres -c "DROP DATABASE IF EXISTS $d" >/dev/null 2>&1 || true; done; }
slime_on_exit drop_dbs
newdb() {
    dbs+=("$1")
    slime_psql -d postgres -c "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1" >/dev/null
    q "$1" -c "CREATE EXTENSION slime" -f "$HERE/bench_settle_util.sql" >/dev/null
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else printf "n/a" }'; }

# ---- 1. the codec alone ------------------------------------------------------
declare -A Z19 RAW
: >"$work/bcodec.txt"
part 1 && slime_log "1. build/bench_bcodec (zstd-19 long and the block codec per region)" &&
    ./build/bench_bcodec "$CORPUS" >"$work/bcodec.txt" 2>"$work/bcodec.err"
while read -r era _ _ raw _ z19 _; do
    Z19[$era]=$z19; RAW[$era]=$raw
done < <(grep -E "^($(IFS='|'; echo "${ERAS[*]}")) " "$work/bcodec.txt")

# ---- 2. the corpus through the store, settled ------------------------------
declare -A OUT
for era in "${ERAS[@]}"; do
    part 2 || break
    db=slime_bench_settle_$(echo "$era" | tr -c 'a-z0-9\n' '_')
    slime_log "2. $era: import through the store, slime_gc(), slime_settle()"
    newdb "$db"
    find "$CORPUS/$era" -name '*.mca' -o -name '*.mcr' | sort >"$work/files"
    {
        echo "CREATE TABLE plain(id int PRIMARY KEY, world slime);"
        echo "CREATE TABLE stored(id int PRIMARY KEY, world slime);"
        echo "CREATE TRIGGER stored_store BEFORE INSERT ON stored FOR EACH ROW EXECUTE FUNCTION slime_store_trigger();"
        i=0
        while read -r f; do
            i=$((i + 1))
            echo "INSERT INTO plain SELECT $i, slime_import_region(pg_read_binary_file($(slime_sq "$f")), 0, 0, strict => false);"
        done <"$work/files"
        echo "INSERT INTO stored SELECT id, world FROM plain;"
        echo "SELECT removed_entries FROM slime_gc();"
        echo "VACUUM FULL ANALYZE;"
    } >"$work/import.sql"
    q "$db" -f "$work/import.sql" >/dev/null 2>"$work/import.err"
    raw=$(q "$db" -c "SELECT sum(raw_bytes) FROM stored, slime_chunks(world)")
    entries_raw=$(q "$db" -c "SELECT sum(n) FROM (SELECT DISTINCT c.hash, c.raw_bytes AS n FROM stored, slime_chunks(world) c) d")
    before=$(q "$db" -c "SELECT at_rest('stored')")
    plain=$(q "$db" -c "SELECT pg_total_relation_size('plain')")
    read_before=$(q "$db" -c "SELECT best_ms('SELECT sum(octet_length(slime_chunk_nbt(world, c.x, c.z))) FROM stored, slime_chunks(world) c', 3)")
    tot_plain=$(q "$db" -c "SELECT best_ms('SELECT slime_block_totals(world) FROM plain', 3)")
    tot_before=$(q "$db" -c "SELECT best_ms('SELECT slime_block_totals(world) FROM stored', 3)")
    settle=$(q "$db" -c "SELECT best_ms('SELECT * FROM slime_settle(''0'')', 1)")
    q "$db" -c "VACUUM FULL ANALYZE" >/dev/null
    after=$(q "$db" -c "SELECT at_rest('stored')")
    read_after=$(q "$db" -c "SELECT best_ms('SELECT sum(octet_length(slime_chunk_nbt(world, c.x, c.z))) FROM stored, slime_chunks(world) c', 3)")
    tot_after=$(q "$db" -c "SELECT best_ms('SELECT slime_block_totals(world) FROM stored', 3)")
    dense=$(q "$db" -c "SELECT round(100.0 * count(*) FILTER (WHERE get_byte(data, 0) = 1) / greatest(count(*), 1)) FROM slime_store")
    OUT[$era]="$raw $entries_raw $plain $before $after $settle $read_before $read_after $tot_plain $tot_before $tot_after $dense"
done

if part 3; then
# ---- 3. loader islands -------------------------------------------------------
slime_log "3. a loader of 8 islands, 11 saves each"
db=slime_bench_settle_loader
newdb "$db"
R=$CORPUS/anvil-1.18plus/prismarine-provider-anvil/1.21.1/r.0.0.mca
q "$db" >/dev/null <<SQL
SELECT slime_loader_create('ldr');
CREATE TABLE region AS SELECT slime_import_region(pg_read_binary_file($(slime_sq "$R")), 0, 0) AS w;
-- island k: the 5x5 block k of the region's 15x15 chunks
CREATE TABLE island_chunks AS
SELECT k, c.x, c.z, (c.x % 5) * 5 + c.z % 5 AS m, slime_chunk_json(r.w, c.x, c.z) AS j
FROM region r, generate_series(0, 7) k, slime_chunks(r.w) c
WHERE c.x >= (k % 3) * 5 AND c.x < (k % 3) * 5 + 5 AND c.z >= (k / 3) * 5 AND c.z < (k / 3) * 5 + 5;
SELECT slime_lease_acquire('ldr', 'i' || k, 'bench', '1 hour') FROM generate_series(0, 7) k;
-- save s: chunks 0 .. s-1 of the island changed (edits accumulate), one new chunk a save
DO \$\$
BEGIN
  FOR s IN 0 .. 10 LOOP
    PERFORM slime_loader_save('ldr', 'i' || k, 1, slime_to_slimefile(w), 11)
    FROM (SELECT k, slime_agg(slime_put_chunk(NULL, x, z, slime_json_to_nbt(
                   CASE WHEN m < s THEN j || jsonb_build_object('SlimeBenchSave', m) ELSE j END))) AS w
          FROM island_chunks GROUP BY k) i;
  END LOOP;
END \$\$;
CREATE TABLE bytea_worlds(world text PRIMARY KEY, data bytea);
ALTER TABLE bytea_worlds ALTER COLUMN data SET STORAGE EXTERNAL;
INSERT INTO bytea_worlds SELECT world, file FROM ldr_worlds;
SELECT removed_entries FROM slime_gc();
VACUUM FULL ANALYZE;
SQL
l_saves=$(q "$db" -c "SELECT count(*) FROM ldr")
l_bytea=$(q "$db" -c "SELECT pg_total_relation_size('bytea_worlds')")
l_before=$(q "$db" -c "SELECT at_rest('ldr') + pg_total_relation_size('ldr_worlds')")
logical="SELECT (SELECT sum(octet_length(data::bytea)) FROM ldr) + (SELECT coalesce(sum(octet_length(file)), 0) FROM ldr_worlds)
                + (SELECT sum(octet_length(data)) FROM slime_store)"
l_bytea_logical=$(q "$db" -c "SELECT sum(octet_length(data)) FROM bytea_worlds")
l_before_logical=$(q "$db" -c "$logical")
l_raw=$(q "$db" -c "SELECT sum(n) FROM (SELECT DISTINCT c.hash, c.raw_bytes AS n FROM ldr, slime_chunks(data) c) d")
cat >"$work/load-bytea.sql" <<'EOF'
\set w random(0, 7)
SELECT data FROM bytea_worlds WHERE world = 'i' || :w;
EOF
cat >"$work/load-slime.sql" <<'EOF'
\set w random(0, 7)
SELECT slime_loader_load('ldr', 'i' || :w);
EOF
# tps of one pgbench script, one client
tps() { PGDATABASE=$db "$SLIME_PG_BIN/pgbench" -n -c 1 -T "$SECS" -M prepared -f "$work/$1.sql" 2>/dev/null |
        awk '/^tps/ { printf "%.1f", $3 }'; }
hot_bytea=$(tps load-bytea); hot_before=$(tps load-slime)
# settle with every lease running (hot): only store entries settle
l_settle_hot=$(q "$db" -c "SELECT best_ms('SELECT * FROM slime_settle(''0'')', 1)")
hot_after=$(tps load-slime); hot_bytea2=$(tps load-bytea)
# the leases released (cold): settle drops the files
q "$db" -c "UPDATE ldr_worlds SET holder = NULL, expires = NULL" >/dev/null
files=$(q "$db" -c "SELECT items FROM slime_settle('0') WHERE what = 'loader files'")
q "$db" -c "VACUUM FULL ANALYZE" >/dev/null
l_after=$(q "$db" -c "SELECT at_rest('ldr') + pg_total_relation_size('ldr_worlds')")
l_after_logical=$(q "$db" -c "$logical")
cold_after=$(tps load-slime); cold_bytea=$(tps load-bytea)
fi

# ---- the tables ----------------------------------------------------------------
echo
echo "slime bench_settle: $(date -u +%F), zstd $(zstd --version 2>/dev/null | grep -o 'v[0-9.]*' | head -1), corpus $CORPUS"
echo
part 1 && echo "1. The block codec, one input per region file (build/bench_bcodec)" &&
    sed -n '2,$p' "$work/bcodec.txt" && echo
part 2 || exit 0
echo "2. Regions saved through the chunk store, after slime_gc(), then slime_settle(older_than => '0')"
echo "   bytes at rest = table + indexes + store (pg_total_relation_size after VACUUM FULL); z19l = zstd-19 long per region (table 1)"
printf '%-16s %11s %11s %11s %11s %7s %7s %7s %9s %9s %9s %7s %7s %7s %6s\n' era "raw NBT" "z19l" "plain" "store" "st/z19" "settled" "se/z19" "settle" "read" "read" "totals" "totals" "totals" "dense"
printf '%-16s %11s %11s %11s %11s %7s %11s %7s %9s %9s %9s %7s %7s %7s %6s\n' "" "" "" "values" "default" "" "" "" "MB/s" "MB/s bef" "MB/s aft" "plain" "before" "after" "%"
for era in "${ERAS[@]}"; do
    read -r raw eraw plain before after settle rb ra tp tb ta dense <<<"${OUT[$era]}"
    z=${Z19[$era]:-0}
    printf '%-16s %11s %11s %11s %11s %7s %11s %7s %9.1f %9.1f %9.1f %7s %7s %7s %6s\n' "$era" "$raw" "$z" "$plain" "$before" \
        "$(ratio "$before" "$z")" "$after" "$(ratio "$after" "$z")" \
        "$(awk -v r="$eraw" -v t="$settle" 'BEGIN { print r / t / 1000 }')" \
        "$(awk -v r="$raw" -v t="$rb" 'BEGIN { print r / t / 1000 }')" \
        "$(awk -v r="$raw" -v t="$ra" 'BEGIN { print r / t / 1000 }')" \
        "1.000" "$(ratio "$tb" "$tp")" "$(ratio "$ta" "$tp")" "$dense"
done
echo "   settle MB/s: raw NBT of the distinct entries over the slime_settle() call; read: every chunk's NBT through the store;"
echo "   totals: slime_block_totals over the stored rows, time / the same worlds as self-contained default-level values (best of 3)"
part 3 || exit 0
echo
echo "3. Loader islands: 8 islands of 5x5 chunks (1.21.1), 11 saves each ($l_saves saves kept), after slime_gc()"
printf '   %-52s %10s %7s %10s %7s\n' "" relations "x bytea" logical "x bytea"
printf '   %-52s %10s %7s %10s %7s\n' "a bytea row a world (the newest file)" "$l_bytea" 1.000 "$l_bytea_logical" 1.000
printf '   %-52s %10s %7s %10s %7s\n' "loader (saves + worlds with files + store)" "$l_before" "$(ratio "$l_before" "$l_bytea")" \
    "$l_before_logical" "$(ratio "$l_before_logical" "$l_bytea_logical")"
printf '   %-52s %10s %7s %10s %7s\n' "after slime_settle('0'), leases released ($files files dropped)" "$l_after" "$(ratio "$l_after" "$l_bytea")" \
    "$l_after_logical" "$(ratio "$l_after_logical" "$l_bytea_logical")"
echo "   relations: pg_total_relation_size after VACUUM FULL; logical: octet_length of the rows' values, the files and the store entries"
echo "   settling the islands' $l_raw bytes of distinct chunk NBT: $(awk -v r="$l_raw" -v t="$l_settle_hot" 'BEGIN { printf "%.1f MB/s", r / t / 1000 }')"
printf '   %-52s %10s %7s\n' "loads (pgbench -c 1, $SECS s each)" "tps" "x bytea"
printf '   %-52s %10s %7s\n' "bytea select" "$hot_bytea" 1.000
printf '   %-52s %10s %7s\n' "hot island (lease running), before settling" "$hot_before" "$(ratio "$hot_before" "$hot_bytea")"
printf '   %-52s %10s %7s\n' "hot island, after settling" "$hot_after" "$(ratio "$hot_after" "$hot_bytea2")"
printf '   %-52s %10s %7s\n' "cold island (no lease, file dropped), after settling" "$cold_after" "$(ratio "$cold_after" "$cold_bytea")"
