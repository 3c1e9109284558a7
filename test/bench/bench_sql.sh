#!/usr/bin/env bash
# test/bench/bench_sql.sh [ISLANDS_FILE]
#
# SQL-level benchmarks of slime, over libpq (build/bench_client):
#   (i)   one chunk read from a 1024-chunk value vs from a 1-chunk value
#   (ii)  island save/load throughput, slime column vs bytea column
#   (iii) peak backend memory (VmHWM) during slime_import_region
#   (iv)  block-count / block-entity scans (once those functions exist)
#   (v)   parallel block totals; (vi) slime_render_map against
#         slime_block_counts over the 1024-chunk value (BENCH_RENDER_ROUNDS, 7)
#
# Uses the cluster named by the PG* variables (as test/bench/run.sh sets
# them); without PGHOST it starts a throwaway cluster of its own. The
# extension must be installed (make install). ISLANDS_FILE holds island
# values as written by `bench_size --emit-islands`; without it (ii) is
# skipped. Knobs: BENCH_CHUNK_CALLS (2000), BENCH_SECONDS (10),
# BENCH_THREADS (2). Never fails on numbers.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib.sh
. "$HERE/../lib.sh"

ISLANDS=${1:-}
CALLS=${BENCH_CHUNK_CALLS:-2000}
SECS=${BENCH_SECONDS:-10}
THREADS=${BENCH_THREADS:-2}
PAR_WORLDS=${BENCH_PARALLEL_WORLDS:-10000}
RENDER_ROUNDS=${BENCH_RENDER_ROUNDS:-7}
CLIENT=$SLIME_ROOT/build/bench_client
ERAS=(anvil-1.2-1.12 anvil-1.13-1.17 anvil-1.18plus mcregion)

CORPUS=$(slime_corpus) || exit 1
for e in "${ERAS[@]}"; do
    [ -d "$CORPUS/$e" ] || { echo "ERROR: corpus era $CORPUS/$e is missing" >&2; exit 1; }
done

make -s -C "$SLIME_ROOT" build/bench_client PG_CONFIG="$SLIME_PG_CONFIG" >&2

if [ -z "${PGHOST:-}" ]; then
    slime_cluster_start
fi
# the server encodes what it builds (corpus, 1024-chunk value) at this level
if [ -n "${SLIME_BENCH_LEVEL:-}" ]; then
    export PGOPTIONS="${PGOPTIONS:-} -c slime.compression_level=$SLIME_BENCH_LEVEL"
fi

q() { slime_psql -At "$@"; }
sq() { printf "%s" "${1//\'/\'\'}"; }   # SQL string literal body

# ---- the corpus, one value per region file ---------------------------------
slime_log "bench_sql: loading the corpus region files"
{
    echo "SET client_min_messages = warning;"
    echo "DROP TABLE IF EXISTS corpus, chunk_src, chunkbench, islands, islands_bytea;"
    echo "DROP EXTENSION IF EXISTS slime CASCADE;"
    echo "CREATE EXTENSION slime;"
    echo "CREATE TABLE corpus (id serial PRIMARY KEY, era text, path text, world slime);"
    for e in "${ERAS[@]}"; do
        while IFS= read -r f; do
            b=${f##*/}; rx=0; rz=0
            if [[ $b =~ ^r\.(-?[0-9]+)\.(-?[0-9]+)\.mc[ar]$ ]]; then
                rx=${BASH_REMATCH[1]}; rz=${BASH_REMATCH[2]}
            fi
            echo "INSERT INTO corpus (era, path, world) VALUES ('$e', '$(sq "${f#"$CORPUS"/}")'," \
                 "slime_import_region(pg_read_binary_file('$(sq "$f")'), $rx, $rz));"
        done < <(find "$CORPUS/$e" -type f \( -name '*.mca' -o -name '*.mcr' \) | LC_ALL=C sort)
    done
    echo "VACUUM ANALYZE corpus;"
} | slime_psql >/dev/null

# ---- (i) one chunk from a 1024-chunk value vs from a 1-chunk value ---------
# 1024 real 1.18+ chunks from two vanilla-written regions, laid out on the
# 32x32 chunk positions of region 0,0; ids 1..1024 hold each alone (built with
# slime_put_chunk), id 0 holds all of them (slime_agg of those).
slime_log "bench_sql: (i) building the 1024-chunk value"
slime_psql >/dev/null <<'EOF'
CREATE TABLE chunk_src AS
SELECT (row_number() OVER (ORDER BY c.path, ch.z, ch.x) - 1)::int AS n,
       slime_chunk_nbt(c.world, ch.x, ch.z) AS nbt
FROM corpus c, LATERAL slime_chunks(c.world) ch
WHERE c.path IN ('anvil-1.18plus/prismarine-provider-anvil/1.19.4/r.0.0.mca',
                 'anvil-1.18plus/querz-nbt/parsers/r.0.0.mca');
DELETE FROM chunk_src WHERE n >= 1024;
DO $$ BEGIN
  IF (SELECT count(*) FROM chunk_src) <> 1024 THEN
    RAISE EXCEPTION 'need 1024 source chunks, found %', (SELECT count(*) FROM chunk_src);
  END IF;
END $$;
CREATE TABLE chunkbench (id int PRIMARY KEY, x int, z int, world slime);
ALTER TABLE chunkbench ALTER COLUMN world SET STORAGE EXTERNAL;
INSERT INTO chunkbench
SELECT n + 1, n % 32, n / 32, slime_put_chunk(NULL, n % 32, n / 32, slime_chunk_relocate(nbt, n % 32, n / 32)) FROM chunk_src;
INSERT INTO chunkbench
SELECT 0, NULL, NULL, slime_agg(world ORDER BY id) FROM chunkbench WHERE id > 0;
VACUUM ANALYZE chunkbench;
EOF
big_info=$(q -c "SELECT format('%s chunks, %s frames, %s bytes (%s raw)', slime_info(world)->>'chunks',
                   slime_info(world)->>'frames', slime_info(world)->>'stored_bytes',
                   slime_info(world)->>'raw_bytes') FROM chunkbench WHERE id = 0")
small_avg=$(q -c "SELECT round(avg(octet_length(world::bytea))) FROM chunkbench WHERE id > 0")
toast_ok=$(q -c "SELECT bool_and(pg_column_compression(world) IS NULL) FROM chunkbench")

# ---- (iii) largest region file ----------------------------------------------
largest=$(for e in "${ERAS[@]}"; do
              find "$CORPUS/$e" -type f \( -name '*.mca' -o -name '*.mcr' \) -printf '%s %p\n'
          done | sort -n | tail -1 | cut -d' ' -f2-)
lb=${largest##*/}; lrx=0; lrz=0
if [[ $lb =~ ^r\.(-?[0-9]+)\.(-?[0-9]+)\.mc[ar]$ ]]; then
    lrx=${BASH_REMATCH[1]}; lrz=${BASH_REMATCH[2]}
fi

# ---- run and print ------------------------------------------------------------
slime_log "bench_sql: running (about $((4 * SECS + 30)) s)"
{
    printf '\n== 3. SQL: PostgreSQL %s, server encoder level %s ==\n' \
        "$(q -c "SHOW server_version")" "$(q -c "LOAD '\$libdir/slime'" -c "SHOW slime.compression_level" 2>/dev/null || echo '?')"
    printf '\n== 3(i). One chunk via SELECT slime_chunk_nbt(world, x, z) FROM t WHERE id = $1 ==\n'
    printf '   prepared, binary result; %s calls each, random positions, best of 5 alternating rounds\n' "$CALLS"
    printf '   1024-chunk value: %s; 1-chunk values: avg %s bytes;\n' "$big_info" "$small_avg"
    printf '   STORAGE external (no value compressed by PostgreSQL: %s)\n\n' \
        "$([ "$toast_ok" = t ] && echo yes || echo NO)"
    "$CLIENT" chunkread "$CALLS"

    printf '\n== 3(ii). Island save/load over the binary protocol: slime vs bytea ==\n'
    if [ -n "$ISLANDS" ] && [ -s "$ISLANDS" ]; then
        printf '   save: INSERT .. ON CONFLICT (id) DO UPDATE, value as a binary parameter;\n'
        printf '   load: SELECT world FROM t WHERE id = $1, binary result\n'
        printf '   slime.input_check = full (the default: every save decompresses and checks the value)\n'
        "$CLIENT" islands "$ISLANDS" "$SECS" "$THREADS"
        printf '\n   slime.input_check = structure (saves check the layout; content is checked on read)\n'
        PGOPTIONS="${PGOPTIONS:-} -c slime.input_check=structure" "$CLIENT" islands "$ISLANDS" "$SECS" "$THREADS"
    else
        printf '   skipped: no island file (run bench_size --emit-islands FILE, pass FILE)\n'
    fi

    printf '\n== 3(iii). Peak backend memory: slime_import_region(pg_read_binary_file(f), rx, rz) ==\n'
    printf '   the largest region file of the corpus; VmHWM from /proc/<backend pid>/status\n'
    "$CLIENT" hwm "$largest" "$lrx" "$lrz"

    printf '\n== 3(iv). Block-count / block-entity scans ==\n'
    if [ "$(q -c "SELECT EXISTS (SELECT FROM pg_proc
                                 WHERE proname IN ('slime_block_counts', 'slime_block_entities'))")" = t ]; then
        printf '   over every corpus value, against slime_chunks (decompression only)\n'
        "$CLIENT" scan
    else
        printf '   n/a (issue 5): slime_block_counts / slime_block_entities do not exist yet\n'
    fi

    printf '\n== 3(v). Parallel aggregate over %s worlds: slime_block_totals(world) ==\n' "$PAR_WORLDS"
    # small worlds of 1-4 corpus chunks each (real chunks of every era, laid
    # out along x), cut from the corpus values
    q -q <<SQL >/dev/null
SET client_min_messages = warning;
DROP TABLE IF EXISTS par_worlds;
CREATE TEMP TABLE par_chunks AS
SELECT n, slime_put_chunk(NULL, n::int, 0, slime_chunk_relocate(slime_chunk_nbt(world, x, z), n::int, 0)) AS one
FROM (SELECT v.world, c.x, c.z, row_number() OVER () AS n FROM corpus v, slime_chunks(v.world) c) t
WHERE n <= 400;
-- 100 distinct small worlds of 1-4 chunks, each repeated to fill the table
CREATE TEMP TABLE par_kinds AS
SELECT k, (SELECT slime_agg(one) FROM par_chunks WHERE n % 100 = k AND n <= 100 * (1 + k % 4)) AS world
FROM generate_series(0, 99) k;
CREATE TABLE par_worlds AS
SELECT g AS id, world FROM generate_series(1, $PAR_WORLDS) g JOIN par_kinds ON k = g % 100;
ALTER TABLE par_worlds SET (parallel_workers = 2);
VACUUM ANALYZE par_worlds;
SQL
    par_time() {
        q <<SQL | awk '/^Execution Time/ {print $3}'
SET max_parallel_workers_per_gather = $1;
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
EXPLAIN (ANALYZE, TIMING OFF, FORMAT TEXT) SELECT slime_block_totals(world) FROM par_worlds;
SQL
    }
    best0=999999999 best2=999999999
    for _ in 1 2 3; do
        t=$(par_time 0); t=${t%.*}; [ "$t" -lt "$best0" ] && best0=$t
        t=$(par_time 2); t=${t%.*}; [ "$t" -lt "$best2" ] && best2=$t
    done
    printf '   %s worlds, %s chunks; best of 3, EXPLAIN ANALYZE execution time\n\n' "$PAR_WORLDS" \
        "$(q -c "SELECT sum((slime_info(world) ->> 'chunks')::int) FROM par_worlds")"
    printf '   %-44s %10s\n' "serial (max_parallel_workers_per_gather = 0)" "$best0 ms"
    printf '   %-44s %10s\n' "parallel (2 workers + leader)" "$best2 ms"
    printf '   %-44s %10s\n' "speed-up" "$(awk -v a="$best0" -v b="$best2" 'BEGIN { printf "%.2fx", a / b }')"

    printf '\n== 3(vi). slime_render_map against slime_block_counts over the 1024-chunk value ==\n'
    # the same decoding plus one pass (and the PNG); client-side \timing of
    # each statement in one session, alternating, best of BENCH_RENDER_ROUNDS
    {
        echo '\timing on'
        for _ in $(seq "$RENDER_ROUNDS"); do
            echo "SELECT count(*) FROM chunkbench, slime_block_counts(world) WHERE id = 0;"
            echo "SELECT octet_length(slime_render_map(world)) FROM chunkbench WHERE id = 0;"
        done
    } | q | awk '/^Time:/ { n++; t = $2 + 0; if (n % 2) { if (!c || t < c) c = t } else { if (!r || t < r) r = t } }
                 END { printf "   best of %d rounds each\n\n   %-44s %10.1f ms\n   %-44s %10.1f ms\n   %-44s %10.2fx (target <= 1.5x)\n",
                              '"$RENDER_ROUNDS"', "slime_block_counts (every block counted)", c,
                              "slime_render_map (512 x 512 PNG)", r, "ratio", r / c }'
}
