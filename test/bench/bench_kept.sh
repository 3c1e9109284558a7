#!/usr/bin/env bash
# test/bench/bench_kept.sh — what the checksums of a loader's kept files and
# memo cost (issue #33 item 1), and what the forms 0.9.0 and earlier kept
# cost now that they are read as absent; every figure a ratio against a
# baseline of the same run.
#
#   loads (pgbench, BENCH_CLIENTS clients, BENCH_SECONDS each) of 8 islands
#   (the 5x5-chunk blocks of a 1.21 region, as bench_settle.sh makes them)
#   and of the 124-chunk AdvancedSlimePaper hub of the corpus, against a
#   bytea select of the same file (and that select put in the hot form:
#   what the XXH64 and the copy cost on their own):
#     hot      the hot form (SLHF: the XXH64 checked, the file copied out);
#     raw      a file kept as it came by 0.9.0 (no checksum: read as
#              absent, the file written from the newest save);
#     cold3    the cold form of version 3 (its header's XXH64 checked, warmed);
#     cold2    a cold form of version 2 (no checksum over its header: read
#              as absent, the file written from the newest save);
#     verify2  what checking a version 2 form instead would cost: warmed
#              (as a version 3 form is), then converted whole and compared
#              with the newest save (slime_from_slimefile(...) = data);
#   saves (pgbench, each client its own islands) of a file with one chunk
#   changed: with the world's SLM2 memo (all but one chunk reused) against
#   with its SLM1 memo (read as absent: every chunk converted, which the
#   first save of each world after the update to 0.10.0 pays once).
# Each figure is the best tps of BENCH_RUNS runs (after a warm-up run) and
# the worst transaction's latency (ms) in them.
#
#     bash test/bench/bench_kept.sh      # Debian 12, as root, repo root
#
# Builds and installs the extension unless SLIME_BENCH_BUILT=1; starts a
# throwaway cluster with fsync, synchronous_commit and full_page_writes on
# and slime.loader_verify off (as a game server saves) unless the PG*
# variables name one. Never fails on a number. BENCH_SECONDS (5) a run,
# BENCH_RUNS (3), BENCH_CLIENTS (2).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib.sh
. "$HERE/../lib.sh"
cd "$SLIME_ROOT"

SECS=${BENCH_SECONDS:-5}
CLIENTS=${BENCH_CLIENTS:-2}
slime_bench_begin kept
CORPUS=$(slime_corpus) || exit 1
if [ -z "${PGHOST:-}" ]; then
    slime_log "start a throwaway cluster (durable)"
    SLIME_PG_CONF=$'fsync = on\nsynchronous_commit = on\nfull_page_writes = on' SLIME_LOADER_VERIFY=off slime_cluster_start
    slime_on_exit "slime_cluster_stop '$SLIME_PGTMP'"
fi
db=slime_bench_kept
slime_psql -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null
slime_on_exit "slime_psql -d postgres -c 'DROP DATABASE IF EXISTS $db' >/dev/null 2>&1 || true"
q() { slime_psql -At -F ' ' -d "$db" "$@"; }

R=$CORPUS/anvil-1.18plus/prismarine-provider-anvil/1.21.1/r.0.0.mca
HUB=$CORPUS/slime/crawlspace/hub.slime
slime_log "8 islands and the hub, saved through a loader"
q >/dev/null <<SQL
CREATE EXTENSION slime;
SELECT slime_loader_create('ldr');
CREATE TABLE region AS SELECT slime_import_region(pg_read_binary_file($(slime_sq "$R")), 0, 0) AS w;
-- island k: the 5x5 block k of the region's 15x15 chunks; its file, and the
-- same with chunk m = 0 changed (air made cave air) for the saves
CREATE TABLE island_files AS
SELECT k, slime_to_slimefile(slime_agg(slime_put_chunk(NULL, c.x, c.z, slime_chunk_nbt(r.w, c.x, c.z)))) AS f,
       slime_to_slimefile(slime_agg(slime_put_chunk(NULL, c.x, c.z, CASE WHEN (c.x % 5) * 5 + c.z % 5 = 0
           THEN slime_json_to_nbt(replace(slime_chunk_json(r.w, c.x, c.z)::text, 'minecraft:air"', 'minecraft:cave_air"')::jsonb)
           ELSE slime_chunk_nbt(r.w, c.x, c.z) END))) AS g
FROM region r, generate_series(0, 7) k, slime_chunks(r.w) c
WHERE c.x >= (k % 3) * 5 AND c.x < (k % 3) * 5 + 5 AND c.z >= (k / 3) * 5 AND c.z < (k / 3) * 5 + 5
GROUP BY k;
INSERT INTO island_files SELECT 8, pg_read_binary_file($(slime_sq "$HUB")), NULL;
DROP TABLE region;
-- worlds i0..i7 and hub: one save each; every form of their file, side by side
SELECT slime_lease_acquire('ldr', CASE k WHEN 8 THEN 'hub' ELSE 'i' || k END, 'bench', '1 hour') FROM island_files;
SELECT slime_loader_save('ldr', CASE k WHEN 8 THEN 'hub' ELSE 'i' || k END, 1, f, 2) FROM island_files;
CREATE TABLE forms (world text, form text, file bytea, PRIMARY KEY (world, form));
ALTER TABLE forms ALTER COLUMN file SET STORAGE EXTERNAL;
INSERT INTO forms SELECT world, 'hot', file FROM ldr_worlds;
INSERT INTO forms SELECT world, 'raw', substring(file FROM 6 FOR octet_length(file) - 13) FROM ldr_worlds;
UPDATE ldr_worlds SET holder = NULL, expires = NULL;
SELECT count(*) FROM slime_settle('0');
INSERT INTO forms SELECT world, 'cold3', file FROM ldr_worlds;
INSERT INTO forms SELECT world, 'cold2', set_byte(substring(file FOR 21), 4, 2) || substring(file FROM 30) FROM ldr_worlds;
-- the baseline: the file a load gives, as a bytea row
CREATE TABLE bytea_worlds (world text PRIMARY KEY, data bytea);
ALTER TABLE bytea_worlds ALTER COLUMN data SET STORAGE EXTERNAL;
INSERT INTO bytea_worlds SELECT world, file FROM forms WHERE form = 'raw';
VACUUM ANALYZE;
SQL
# the worlds' files in form $1
use_form() { q -c "UPDATE ldr_worlds w SET file = f.file FROM forms f WHERE f.world = w.world AND f.form = '$1'" \
    -c "VACUUM ANALYZE ldr_worlds" >/dev/null; }

# pgbench of script $1 for $SECS seconds on $CLIENTS clients: "tps worst_ms"
run1() {
    local dir
    dir=$(mktemp -d "$work/log.XXXX")
    (cd "$dir" && PGDATABASE=$db "$SLIME_PG_BIN/pgbench" -n -c "$CLIENTS" -j "$CLIENTS" -T "$SECS" -M prepared \
        -l -f "$work/$1.sql" >"$dir/out" 2>&1) || { echo "0 0"; return 0; }
    awk '/^tps/ { t = $3 } END { printf "%.1f ", t }' "$dir/out"
    cat "$dir"/pgbench_log.* | awk '$3 > m { m = $3 } END { printf "%.1f\n", m / 1000 }'
}
# the best tps of BENCH_RUNS (3) runs of script $1, and the worst latency of them all
run() {
    local i t w bt=0 bw=0
    for ((i = 0; i < ${BENCH_RUNS:-3}; i++)); do
        read -r t w <<<"$(run1 "$1")"
        bt=$(awk -v a="$t" -v b="$bt" 'BEGIN { print (a > b) ? a : b }')
        bw=$(awk -v a="$w" -v b="$bw" 'BEGIN { print (a > b) ? a : b }')
    done
    echo "$bt $bw"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else printf "n/a" }'; }

# loads: the islands (a random one a transaction) and the hub
pick_island='\set w random(0, 7)'
for form in hot raw cold3 cold2; do
    printf '%s\n' "$pick_island" "SELECT slime_loader_load('ldr', 'i' || :w);" >"$work/islands-$form.sql"
    echo "SELECT slime_loader_load('ldr', 'hub');" >"$work/hub-$form.sql"
done
printf '%s\n' "$pick_island" "SELECT data FROM bytea_worlds WHERE world = 'i' || :w;" >"$work/islands-bytea.sql"
echo "SELECT data FROM bytea_worlds WHERE world = 'hub';" >"$work/hub-bytea.sql"
printf '%s\n' "$pick_island" "SELECT slime_loader_file_hot(data) FROM bytea_worlds WHERE world = 'i' || :w;" >"$work/islands-wrap.sql"
echo "SELECT slime_loader_file_hot(data) FROM bytea_worlds WHERE world = 'hub';" >"$work/hub-wrap.sql"
# (with the cold forms of version 3 in place; each world has one save)
printf '%s\n' "$pick_island" "SELECT slime_from_slimefile(slime_loader_load('ldr', 'i' || :w)) = data FROM ldr WHERE world = 'i' || :w;" >"$work/islands-verify2.sql"
echo "SELECT slime_from_slimefile(slime_loader_load('ldr', 'hub')) = data FROM ldr WHERE world = 'hub';" >"$work/hub-verify2.sql"

slime_log "loads, $CLIENTS clients, best of ${BENCH_RUNS:-3} runs of ${SECS}s"
use_form hot
run1 islands-hot >/dev/null; run1 hub-hot >/dev/null     # warm the caches
printf '\n| load, %s clients | islands tps | x bytea | worst ms | hub tps | x bytea | worst ms |\n|---|---:|---:|---:|---:|---:|---:|\n' "$CLIENTS"
read -r ib iw <<<"$(run islands-bytea)"
read -r hb hw <<<"$(run hub-bytea)"
printf '| bytea select of the file | %s | 1.000 | %s | %s | 1.000 | %s |\n' "$ib" "$iw" "$hb" "$hw"
read -r it iw <<<"$(run islands-wrap)"
read -r ht hw <<<"$(run hub-wrap)"
printf '| the same, put in the hot form (the XXH64 and the copy a hot load adds) | %s | %s | %s | %s | %s | %s |\n' \
    "$it" "$(ratio "$it" "$ib")" "$iw" "$ht" "$(ratio "$ht" "$hb")" "$hw"
for form in hot raw cold3 cold2 verify2; do
    use_form "${form/verify2/cold3}"
    read -r it iw <<<"$(run "islands-$form")"
    read -r ht hw <<<"$(run "hub-$form")"
    printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$form" "$it" "$(ratio "$it" "$ib")" "$iw" "$ht" "$(ratio "$ht" "$hb")" "$hw"
done

# saves: client c saves islands c, c + CLIENTS, ... in turn, each time with
# the memo of the save before it (SLM2) or that memo as 0.9.0 wrote it (SLM1)
slime_log "saves, $CLIENTS clients, best of ${BENCH_RUNS:-3} runs of ${SECS}s"
q >/dev/null <<SQL
UPDATE ldr_worlds SET file = NULL;
CREATE TABLE memos (world text PRIMARY KEY, slm2 bytea, slm1 bytea);
SELECT slime_lease_acquire('ldr', 'i' || k, 'bench', '1 hour') AS token FROM generate_series(0, 7) k;
SELECT slime_loader_save('ldr', 'i' || k, 2, f, 2) FROM island_files WHERE k < 8;
INSERT INTO memos SELECT world, memo, 'SLM1'::bytea || substring(memo FROM 5 FOR octet_length(memo) - 12)
FROM ldr_worlds WHERE world LIKE 'i%';
SQL
for m in slm2 slm1; do
    printf '%s\n' "\\set w (:client_id + $CLIENTS * random(0, 7 / $CLIENTS)) % 8" \
        "UPDATE ldr_worlds SET memo = (SELECT $m FROM memos WHERE world = 'i' || :w) WHERE world = 'i' || :w;" \
        "SELECT slime_loader_save('ldr', 'i' || :w, 2, g, 2) FROM island_files WHERE k = :w;" >"$work/save-$m.sql"
done
printf '\n| save of one changed chunk, %s clients | tps | x with SLM2 | worst ms |\n|---|---:|---:|---:|\n' "$CLIENTS"
read -r s2 w2 <<<"$(run save-slm2)"
read -r s1 w1 <<<"$(run save-slm1)"
printf '| the memo of the save before (SLM2: 24 of 25 chunks reused) | %s | 1.000 | %s |\n' "$s2" "$w2"
printf '| that memo as 0.9.0 wrote it (SLM1: read as absent) | %s | %s | %s |\n' "$s1" "$(ratio "$s1" "$s2")" "$w1"
