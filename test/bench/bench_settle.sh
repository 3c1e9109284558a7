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
#      at rest (table + indexes + store + packs, after VACUUM FULL) after
#      slime_gc(), after slime_settle(older_than => '0') into fast packs
#      (zstd-19) and after repacking them dense (the block codec, the
#      default), against 1's zstd-19 long; settle throughput (MB/s of raw
#      NBT); every chunk read back through the store; slime_block_totals
#      over the stored rows against the same worlds as self-contained
#      default-level values (best of 3 in a session, and a first scan in a
#      new session, which has decoded no pack and kept no counts);
#   3. a loader (slime_loader_create) of 8 islands of 5x5 chunks (the 15x15
#      chunks of prismarine-provider-anvil/1.21.1/r.0.0.mca), each saved 11
#      times (save s changes chunks 0..s-1: one more changed chunk a save,
#      keep 11), after slime_gc(): loader tables + store + packs against a
#      bytea row a world (the newest file), before and after settling
#      (dense, then repacked fast, and 0.6.0's settle on the same islands),
#      where the bytes go (every relation and fork), and per island from
#      BENCH_ISLANDS (72) islands against 8; loads (pgbench, one client,
#      BENCH_SECONDS each) of a cold island (no lease: its file in the cold
#      form) and of a hot one (a lease running) against a bytea select, and
#      each cold island's first load in a new session;
#   4. each AdvancedSlimePaper file of the corpus, saved once through a
#      loader and settled cold: bytes against a bytea row holding the file,
#      its first load and its loads against a bytea select.
#
#     bash test/bench/bench_settle.sh      # Debian 12, as root, repo root
#
# Builds and installs the extension unless SLIME_BENCH_BUILT=1; uses the
# cluster named by the PG* variables or a throwaway one (test/lib.sh); its
# databases are dropped at the end. Prints the tables on stdout; never fails
# on numbers. A few minutes on 2 cores (most of it zstd-19 and the block
# codec). BENCH_SECONDS (5) per load variant. SETTLE_PARTS="2" (default
# "1 2 3 4") runs only the parts named (ratios against table 1 print n/a
# without it).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib.sh
. "$HERE/../lib.sh"
cd "$SLIME_ROOT"

SECS=${BENCH_SECONDS:-5}
part() { [[ " ${SETTLE_PARTS:-1 2 3 4} " == *" $1 "* ]]; }
MANY=${BENCH_ISLANDS:-72}
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
# settled twice: into fast packs (slime.settle_codec = fast: zstd-19), then
# repacked into dense ones (the default: the block codec)
settle_into() {     # settle_into DB CODEC: the settle's ms, then VACUUM FULL
    q "$1" -c "SET slime.settle_codec = $2" -c "SELECT best_ms('SELECT * FROM slime_settle(''0'')', 1)" | tail -1
    q "$1" -c "VACUUM FULL ANALYZE" >/dev/null
}
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
    read_q="SELECT best_ms('SELECT sum(octet_length(slime_chunk_nbt(world, c.x, c.z))) FROM stored, slime_chunks(world) c', 3)"
    tot_q="SELECT best_ms('SELECT slime_block_totals(world) FROM stored', 3)"
    # the same with every entry read hashed against its key, as 0.7.0 read
    tot_hash_q="SET slime.store_read_check = hash; $tot_q"
    read_before=$(q "$db" -c "$read_q")
    tot_plain=$(q "$db" -c "SELECT best_ms('SELECT slime_block_totals(world) FROM plain', 3)")
    tot_before=$(q "$db" -c "$tot_q")
    tot_before_hash=$(q "$db" -c "$tot_hash_q" | tail -1)
    row="$raw $entries_raw $plain $before $read_before $tot_plain $tot_before"
    for codec in fast dense; do
        [ $codec = dense ] && q "$db" -c "UPDATE slime_store SET settled = false" >/dev/null
        settle=$(settle_into "$db" $codec)
        row="$row $(q "$db" -c "SELECT at_rest('stored')") $settle $(q "$db" -c "$read_q") $(q "$db" -c "$tot_q")"
    done
    packed=$(q "$db" -c "SELECT round(100.0 * count(*) FILTER (WHERE pack IS NOT NULL) / greatest(count(*), 1)) FROM slime_store")
    tot_dense_hash=$(q "$db" -c "$tot_hash_q" | tail -1)
    # a first scan in a new session (no pack decoded there, no counts kept), plain and dense: the best of 3 sessions
    first() { local t i; for i in 1 2 3; do q "$db" -c "SELECT best_ms('SELECT slime_block_totals(world) FROM $1', 1)"; done |
        sort -n | head -1; }
    tot_plain_first=$(first plain)
    tot_dense_first=$(first stored)
    OUT[$era]="$row $packed $tot_before_hash $tot_dense_hash $tot_plain_first $tot_dense_first"
done

# ---- parts 3 and 4: loaders ---------------------------------------------------
# sizes DB: relations and logical bytes of the loader (saves, worlds, store, packs)
sizes() {
    q "$1" -c "SELECT at_rest('ldr') + pg_total_relation_size('ldr_worlds'),
        (SELECT sum(octet_length(data::bytea)) FROM ldr) + (SELECT coalesce(sum(octet_length(file)), 0) FROM ldr_worlds)
        + (SELECT coalesce(sum(octet_length(memo)), 0) FROM ldr_worlds)
        + (SELECT sum(octet_length(data)) FROM slime_store) + (SELECT coalesce(sum(octet_length(data)), 0) FROM slime_store_packs)"
}
bytea_sizes() { q "$1" -c "SELECT pg_total_relation_size('bytea_worlds'), sum(octet_length(data)) FROM bytea_worlds"; }
# tps of one pgbench script, one client, in database $db
tps() { PGDATABASE=$db "$SLIME_PG_BIN/pgbench" -n -c 1 -T "${2:-$SECS}" -M prepared -f "$work/$1.sql" 2>/dev/null |
        awk '/^tps/ { printf "%.1f", $3 }'; }

if part 3; then
# ---- 3. loader islands -------------------------------------------------------
R=$CORPUS/anvil-1.18plus/prismarine-provider-anvil/1.21.1/r.0.0.mca
# islands DB N: a loader of N islands, 11 saves each, then slime_gc() and a
# bytea table of each world's newest file. Island k is the 5x5 block k % 9
# of the region's 15x15 chunks, moved 32 chunks east per 9 islands (so no
# two islands share a chunk); save s changes chunks 0 .. s-1 (air becomes
# cave air: a change a slime file keeps), one new chunk a save, keep 11.
islands() {
    local db=$1 n=$2
    newdb "$db"
    q "$db" >/dev/null <<SQL
SELECT slime_loader_create('ldr');
CREATE TABLE region AS SELECT slime_import_region(pg_read_binary_file($(slime_sq "$R")), 0, 0) AS w;
CREATE TABLE island_chunks AS
SELECT k, c.x + 32 * (k / 9) AS x, c.z, (c.x % 5) * 5 + c.z % 5 AS m, slime_chunk_json(r.w, c.x, c.z) AS j
FROM region r, generate_series(0, $n - 1) k, slime_chunks(r.w) c
WHERE c.x >= (k % 9 % 3) * 5 AND c.x < (k % 9 % 3) * 5 + 5 AND c.z >= (k % 9 / 3) * 5 AND c.z < (k % 9 / 3) * 5 + 5;
SELECT slime_lease_acquire('ldr', 'i' || k, 'bench', '1 hour') FROM generate_series(0, $n - 1) k;
DO \$\$
BEGIN
  FOR s IN 0 .. 10 LOOP
    PERFORM slime_loader_save('ldr', 'i' || k, 1, slime_to_slimefile(w), 11)
    FROM (SELECT k, slime_agg(slime_put_chunk(NULL, x, z, slime_chunk_relocate(slime_json_to_nbt(
                   CASE WHEN m < s THEN replace(j::text, 'minecraft:air"', 'minecraft:cave_air"')::jsonb ELSE j END), x, z))) AS w
          FROM island_chunks GROUP BY k) i;
  END LOOP;
END \$\$;
CREATE TABLE bytea_worlds(world text PRIMARY KEY, data bytea);
ALTER TABLE bytea_worlds ALTER COLUMN data SET STORAGE EXTERNAL;
INSERT INTO bytea_worlds SELECT world, file FROM ldr_worlds;
DROP TABLE region;
SELECT removed_entries FROM slime_gc();
VACUUM FULL ANALYZE;
SQL
}
slime_log "3. a loader of 8 islands, 11 saves each"
db=slime_bench_settle_loader
islands "$db" 8
l_saves=$(q "$db" -c "SELECT count(*) FROM ldr")
l_entries=$(q "$db" -c "SELECT count(*) FROM slime_store")
read -r l_bytea l_bytea_logical <<<"$(bytea_sizes "$db")"
read -r l_before l_before_logical <<<"$(sizes "$db")"
l_raw=$(q "$db" -c "SELECT sum(n) FROM (SELECT DISTINCT c.hash, c.raw_bytes AS n FROM ldr, slime_chunks(data) c) d")
printf '%s\n' '\set w random(0, 7)' "SELECT data FROM bytea_worlds WHERE world = 'i' || :w;" >"$work/load-bytea.sql"
printf '%s\n' '\set w random(0, 7)' "SELECT slime_loader_load('ldr', 'i' || :w);" >"$work/load-slime.sql"
# first_ms: the mean time of each island's first load in a new session (its packs not yet decoded there)
first_ms() { local w t=0; for w in 0 1 2 3 4 5 6 7; do
        t=$(awk -v t="$t" -v m="$(q "$db" -c "SELECT best_ms('SELECT slime_loader_load(''ldr'', ''i$w'')', 1)")" 'BEGIN { print t + m }'); done
    awk -v t="$t" 'BEGIN { printf "%.2f", t / 8 }'; }
hot_bytea=$(tps load-bytea); hot_before=$(tps load-slime)
# settle with every lease running (hot): only store entries settle
l_settle_hot=$(q "$db" -c "SELECT best_ms('SELECT * FROM slime_settle(''0'')', 1)")
hot_after=$(tps load-slime); hot_bytea2=$(tps load-bytea)
# the leases released (cold): settle keeps the files' cold forms
q "$db" -c "UPDATE ldr_worlds SET holder = NULL, expires = NULL" >/dev/null
read -r files files_before files_after <<<"$(q "$db" -c "SELECT items, bytes_before, bytes_after FROM slime_settle('0') WHERE what = 'loader files'")"
q "$db" -c "VACUUM FULL ANALYZE" >/dev/null
read -r l_after l_after_logical <<<"$(sizes "$db")"
cold_first=$(first_ms); cold_after=$(tps load-slime); cold_bytea=$(tps load-bytea)
# each island alone (2 s of pgbench each) against a bytea select of its own
# file: the islands' files are 6-180 KB, and the mix above weighs the large
# ones; prints "worst best" x bytea
per_island() { local w; for w in 0 1 2 3 4 5 6 7; do
        echo "SELECT slime_loader_load('ldr', 'i$w');" >"$work/one-slime.sql"
        echo "SELECT data FROM bytea_worlds WHERE world = 'i$w';" >"$work/one-bytea.sql"
        ratio "$(tps one-slime 2)" "$(tps one-bytea 2)"; echo; done | sort -n | sed -n '1p;$p' | tr '\n' ' '; }
cold_islands=$(per_island)
# where the bytes go: every relation of the loader and the store, by fork
q "$db" -c "SELECT c.relname, c.relkind, pg_relation_size(c.oid, 'main'), pg_relation_size(c.oid, 'fsm') + pg_relation_size(c.oid, 'vm')
    FROM pg_class c WHERE c.oid IN (
        SELECT u.r FROM unnest(ARRAY['ldr', 'ldr_worlds', 'slime_store', 'slime_store_packs', 'slime_store_pins']::regclass[]) t(t),
             LATERAL (SELECT t.t::oid UNION ALL SELECT indexrelid FROM pg_index WHERE indrelid = t.t
                      UNION ALL SELECT reltoastrelid FROM pg_class WHERE oid = t.t AND reltoastrelid <> 0
                      UNION ALL SELECT i.indexrelid FROM pg_index i, pg_class x WHERE x.oid = t.t AND i.indrelid = x.reltoastrelid) u(r))
    ORDER BY 3 DESC, 1" >"$work/relations.txt"
# the same, repacked fast (zstd-19)
q "$db" -c "UPDATE slime_store SET settled = false" >/dev/null
settle_into "$db" fast >/dev/null
read -r l_fast l_fast_logical <<<"$(sizes "$db")"
fast_first=$(first_ms); cold_fast=$(tps load-slime); cold_bytea3=$(tps load-bytea)
# churn: 11 more saves an island (save s turns the cave air of chunks
# 0..s into void air: new entries), the retention (keep 11) deleting the
# first 11, slime_gc(): how much of the packs is dead, what is set to be
# repacked; then slime_settle('0') with the leases released
packs_live() { q "$db" -c "SELECT (SELECT coalesce(sum(slime_pack_entries(data)), 0) FROM slime_store_packs),
    count(*) FILTER (WHERE pack IS NOT NULL), count(*) FILTER (WHERE pack IS NOT NULL AND NOT settled) FROM slime_store"; }
q "$db" >/dev/null <<SQL
CREATE TABLE lease_tokens AS
SELECT k, slime_lease_acquire('ldr', 'i' || k, 'bench', '1 hour') AS token FROM generate_series(0, 7) k;
DO \$\$
BEGIN
  FOR s IN 0 .. 10 LOOP
    PERFORM slime_loader_save('ldr', 'i' || i.k, t.token, slime_to_slimefile(w), 11)
    FROM (SELECT k, slime_agg(slime_put_chunk(NULL, x, z, slime_chunk_relocate(slime_json_to_nbt(
                   CASE WHEN m <= s THEN replace(j::text, 'minecraft:air"', 'minecraft:void_air"')::jsonb ELSE j END), x, z))) AS w
          FROM island_chunks GROUP BY k) i JOIN lease_tokens t USING (k);
  END LOOP;
END \$\$;
SELECT removed_entries FROM slime_gc();
SQL
read -r ch_entries ch_live ch_repack <<<"$(packs_live)"
q "$db" -c "VACUUM FULL ANALYZE" >/dev/null
read -r ch_before ch_before_logical <<<"$(sizes "$db")"
q "$db" -c "UPDATE ldr_worlds SET holder = NULL, expires = NULL" -c "SELECT * FROM slime_settle('0')" -c "VACUUM FULL ANALYZE" >/dev/null
read -r ch_after_entries ch_after_live _ <<<"$(packs_live)"
read -r ch_after ch_after_logical <<<"$(sizes "$db")"

# 0.6.0's settle on the same islands, for comparison: every entry coded
# alone (slime_store_entry_settle, kept where smaller), the cold files dropped
slime_log "3. the same islands settled as 0.6.0 did"
db=slime_bench_settle_loader_06
islands "$db" 8
q "$db" -c "UPDATE ldr_worlds SET holder = NULL, expires = NULL, file = NULL" \
       -c "UPDATE slime_store s SET data = CASE WHEN octet_length(d.d) < octet_length(s.data) THEN d.d ELSE s.data END, settled = true
           FROM (SELECT hash, slime_store_entry_settle(hash, data) AS d FROM slime_store) d WHERE d.hash = s.hash" \
       -c "VACUUM FULL ANALYZE" >/dev/null
read -r l_06 l_06_logical <<<"$(sizes "$db")"
first_06=$(first_ms); cold_06=$(tps load-slime); cold_bytea6=$(tps load-bytea)

slime_log "3. per island: a loader of $MANY islands"
dbm=slime_bench_settle_loader_many
islands "$dbm" "$MANY"
read -r m_bytea m_bytea_logical <<<"$(bytea_sizes "$dbm")"
q "$dbm" -c "UPDATE ldr_worlds SET holder = NULL, expires = NULL" >/dev/null
q "$dbm" -c "SELECT * FROM slime_settle('0')" >/dev/null
q "$dbm" -c "VACUUM FULL ANALYZE" >/dev/null
read -r m_after m_after_logical <<<"$(sizes "$dbm")"
q "$dbm" -c "UPDATE slime_store SET settled = false" >/dev/null
settle_into "$dbm" fast >/dev/null
read -r m_fast m_fast_logical <<<"$(sizes "$dbm")"
per() { awk -v a="$1" -v b="$2" -v n="$((MANY - 8))" 'BEGIN { printf "%.0f", (a - b) / n }'; }
fi

# ---- 4. real slime files ---------------------------------------------------------
# each AdvancedSlimePaper file of the corpus (slime/*/*.slime, written by
# others) saved once through a loader of its own database, slime_gc(), then
# settled with its lease released (dense packs, the file in its cold form):
# logical and relation bytes against a bytea row holding the file; the cold
# world's first load in a new session, its loads (pgbench, 2 s) against a
# bytea select of the file, and whether it gives back what a load gave
# before settling
: >"$work/asp.txt"
if part 4; then
while read -r f; do
    slime_log "4. ${f#"$CORPUS"/}"
    db=slime_bench_settle_asp
    newdb "$db"
    q "$db" >/dev/null <<SQL
SELECT slime_loader_create('ldr');
SELECT slime_loader_save('ldr', 'w', slime_lease_acquire('ldr', 'w', 'bench', '1 hour'), pg_read_binary_file($(slime_sq "$f")), 11);
CREATE TABLE bytea_worlds(world text PRIMARY KEY, data bytea);
ALTER TABLE bytea_worlds ALTER COLUMN data SET STORAGE EXTERNAL;
INSERT INTO bytea_worlds VALUES ('w', pg_read_binary_file($(slime_sq "$f")));
SELECT removed_entries FROM slime_gc();
VACUUM FULL ANALYZE;
SQL
    read -r a_brel a_blog <<<"$(bytea_sizes "$db")"
    read -r _ a_before <<<"$(sizes "$db")"
    q "$db" -c "CREATE TABLE hot AS SELECT slime_loader_load('ldr', 'w') AS f" -c "UPDATE ldr_worlds SET holder = NULL, expires = NULL" \
           -c "SELECT * FROM slime_settle('0')" -c "VACUUM FULL ANALYZE" >/dev/null
    read -r a_rel a_log <<<"$(sizes "$db")"
    a_first=$(q "$db" -c "SELECT best_ms('SELECT slime_loader_load(''ldr'', ''w'')', 1)")
    echo "SELECT slime_loader_load('ldr', 'w');" >"$work/one-slime.sql"
    echo "SELECT data FROM bytea_worlds WHERE world = 'w';" >"$work/one-bytea.sql"
    a_cold=$(tps one-slime 2); a_bytea=$(tps one-bytea 2)
    a_info=$(q "$db" -c "SELECT slime_info(s.data)->>'chunks', CASE WHEN l.f = h.f THEN 'bytes'
            WHEN slime_info(slime_from_slimefile(l.f))->>'hash' = slime_info(slime_from_slimefile(h.f))->>'hash' THEN 'content'
            ELSE 'DIFFERS' END
        FROM ldr s, hot h, slime_loader_load('ldr', 'w') l(f)")
    echo "${f#"$CORPUS"/slime/} $a_info $a_blog $a_before $a_log $a_brel $a_rel $a_first $a_cold $a_bytea" >>"$work/asp.txt"
done < <(find "$CORPUS/slime" -name '*.slime' | sort)
fi

# ---- the tables ----------------------------------------------------------------
echo
echo "slime bench_settle: $(date -u +%F), zstd $(zstd --version 2>/dev/null | grep -o 'v[0-9.]*' | head -1), corpus $CORPUS"
echo
part 1 && echo "1. The block codec, one input per region file (build/bench_bcodec)" &&
    sed -n '2,$p' "$work/bcodec.txt" && echo
mbs() { awk -v r="$1" -v t="$2" 'BEGIN { printf "%.1f", r / t / 1000 }'; }
if part 2; then
echo "2. Regions saved through the chunk store, after slime_gc(), then slime_settle(older_than => '0')"
echo "   bytes at rest = table + indexes + store + packs (pg_total_relation_size after VACUUM FULL); z19l = zstd-19 long per region (table 1)"
echo "   fast: packs of zstd-19 (slime.settle_codec = fast); dense: the same entries repacked with the block codec (the default)"
fmt='%-16s %10s %9s %9s %9s %6s %9s %6s %9s %6s %7s %7s %6s %6s %6s %6s %6s %6s %6s %6s %6s %4s\n'
printf "$fmt" era "raw NBT" z19l plain store st/z fast fa/z dense de/z settle settle read read read totals totals totals totals totals totals pk
printf "$fmt" "" "" "" values default "" packs "" packs "" "fa MB/s" "de MB/s" before fast dense before fast dense "bef #" "den #" "den 1" %
for era in "${ERAS[@]}"; do
    read -r raw eraw plain before rb tp tb fa fs fr ft de ds dr dt packed tbh dth tp1 dt1 <<<"${OUT[$era]}"
    z=${Z19[$era]:-0}
    printf "$fmt" "$era" "$raw" "$z" "$plain" "$before" \
        "$(ratio "$before" "$z")" "$fa" "$(ratio "$fa" "$z")" "$de" "$(ratio "$de" "$z")" \
        "$(mbs "$eraw" "$fs")" "$(mbs "$eraw" "$ds")" "$(mbs "$raw" "$rb")" "$(mbs "$raw" "$fr")" "$(mbs "$raw" "$dr")" \
        "$(ratio "$tb" "$tp")" "$(ratio "$ft" "$tp")" "$(ratio "$dt" "$tp")" \
        "$(ratio "$tbh" "$tp")" "$(ratio "$dth" "$tp")" "$(ratio "$dt1" "$tp1")" "$packed"
done
echo "   settle MB/s: raw NBT of the distinct entries over the slime_settle() call; read MB/s: every chunk's NBT through the store;"
echo "   totals: slime_block_totals over the stored rows, time / the same worlds as self-contained default-level values (best of 3);"
echo "   #: with slime.store_read_check = hash (every entry read hashed against its key, as 0.7.0 read); pk: entries packed;"
echo "   1: a first scan in a new session (no pack decoded, no counts kept there) over dense packs / over the values (best of 3 sessions)"
fi
if part 3; then
echo
echo "3. Loader islands: 8 islands of 5x5 chunks (1.21.1), 11 saves each ($l_saves saves kept, $l_entries store entries), after slime_gc()"
lfmt='   %-58s %10s %7s %10s %7s\n'
printf "$lfmt" "" relations "x bytea" logical "x bytea"
printf "$lfmt" "a bytea row a world (the newest file)" "$l_bytea" 1.000 "$l_bytea_logical" 1.000
printf "$lfmt" "loader (saves + worlds with files + store)" "$l_before" "$(ratio "$l_before" "$l_bytea")" \
    "$l_before_logical" "$(ratio "$l_before_logical" "$l_bytea_logical")"
printf "$lfmt" "after slime_settle('0'), leases released (dense packs)" "$l_after" "$(ratio "$l_after" "$l_bytea")" \
    "$l_after_logical" "$(ratio "$l_after_logical" "$l_bytea_logical")"
printf "$lfmt" "the same, repacked fast" "$l_fast" "$(ratio "$l_fast" "$l_bytea")" \
    "$l_fast_logical" "$(ratio "$l_fast_logical" "$l_bytea_logical")"
printf "$lfmt" "0.6.0's settle (each entry alone, cold files dropped)" "$l_06" "$(ratio "$l_06" "$l_bytea")" \
    "$l_06_logical" "$(ratio "$l_06_logical" "$l_bytea_logical")"
printf "$lfmt" "per island more, $MANY islands against 8, dense packs" "$(per "$m_after" "$l_after")" \
    "$(ratio "$(per "$m_after" "$l_after")" "$(per "$m_bytea" "$l_bytea")")" "$(per "$m_after_logical" "$l_after_logical")" \
    "$(ratio "$(per "$m_after_logical" "$l_after_logical")" "$(per "$m_bytea_logical" "$l_bytea_logical")")"
printf "$lfmt" "per island more, $MANY islands against 8, fast packs" "$(per "$m_fast" "$l_fast")" \
    "$(ratio "$(per "$m_fast" "$l_fast")" "$(per "$m_bytea" "$l_bytea")")" "$(per "$m_fast_logical" "$l_fast_logical")" \
    "$(ratio "$(per "$m_fast_logical" "$l_fast_logical")" "$(per "$m_bytea_logical" "$l_bytea_logical")")"
echo "   relations: pg_total_relation_size after VACUUM FULL; logical: octet_length of the saves' values, the files (or their cold forms),"
echo "   the memos, the store entries and the packs; $files cold files: $files_before bytes as files, $files_after as cold forms"
echo "   settling the islands' $l_raw bytes of distinct chunk NBT (dense packs): $(mbs "$l_raw" "$l_settle_hot") MB/s"
echo "   churn (fast packs above, then 11 more saves an island, keep 11, slime_gc()): the packs hold $ch_entries entries, $ch_live live,"
echo "   $ch_repack of them set to be repacked; loader $ch_before bytes ($(ratio "$ch_before" "$l_bytea")x bytea), logical $ch_before_logical;"
echo "   after slime_settle('0'): packs hold $ch_after_entries entries, $ch_after_live live; loader $ch_after bytes ($(ratio "$ch_after" "$l_bytea")x), logical $ch_after_logical"
echo "   where the settled loader's bytes go (dense packs; relation, kind, main fork, fsm + vm):"
sed 's/^/     /' "$work/relations.txt"
tfmt='   %-58s %10s %7s\n'
printf "$tfmt" "loads (pgbench -c 1, $SECS s each)" "tps" "x bytea"
printf "$tfmt" "bytea select" "$hot_bytea" 1.000
printf "$tfmt" "hot island (lease running), before settling" "$hot_before" "$(ratio "$hot_before" "$hot_bytea")"
printf "$tfmt" "hot island, after settling" "$hot_after" "$(ratio "$hot_after" "$hot_bytea2")"
printf "$tfmt" "cold island (no lease, cold form), dense packs" "$cold_after" "$(ratio "$cold_after" "$cold_bytea")"
printf "$tfmt" "cold island, fast packs" "$cold_fast" "$(ratio "$cold_fast" "$cold_bytea3")"
read -r ci_worst ci_best <<<"$cold_islands"
printf "$tfmt" "cold island, dense packs, each island alone: worst" "" "$ci_worst"
printf "$tfmt" "                                              best" "" "$ci_best"
printf "$tfmt" "cold island, 0.6.0's settle (file written from the value)" "$cold_06" "$(ratio "$cold_06" "$cold_bytea6")"
echo "   a cold island's first load in a new session (its packs not decoded there yet), mean of the 8, ms:"
echo "   dense packs $cold_first, fast packs $fast_first, 0.6.0's settle $first_06"
echo "   (each slime row's x bytea is against the bytea select run right after it)"
fi
if part 4 && [ -s "$work/asp.txt" ]; then
echo
echo "4. Real slime files (slime/*/*.slime, AdvancedSlimePaper worlds written by others), one save each through a loader,"
echo "   slime_gc(), then settled with the lease released (dense packs, the file in its cold form)"
afmt='   %-31s %6s %9s %9s %6s %9s %6s %9s %9s %6s %8s %8s %5s
'
printf "$afmt" file chunks "file" "loader" "x file" settled "x file" "rel." "rel." "x" "first" "cold" "same"
printf "$afmt" "" "" bytes "logical" "" logical "" bytea settled bytea "load ms" "x bytea" "as"
while read -r name chunks same blog before log brel rel first cold bytea; do
    printf "$afmt" "$name" "$chunks" "$blog" "$before" "$(ratio "$before" "$blog")" "$log" "$(ratio "$log" "$blog")" \
        "$brel" "$rel" "$(ratio "$rel" "$brel")" "$first" "$(ratio "$cold" "$bytea")" "$same"
done <"$work/asp.txt"
echo "   logical: as in 3 (the save's value, the file or its cold form, the memo, store entries and packs); rel.: pg_total_relation_size"
echo "   after VACUUM FULL (a database each: its fixed pages weigh on small files); cold x bytea: pgbench -c 1, 2 s each, slime_loader_load"
echo "   against a bytea select of the file; same as: a cold load gives the bytes a load gave before settling, or a file of the same"
echo "   content (the content hash of slime_from_slimefile: a cold load writes the blocks again at slime.loader_level)"
fi
