#!/usr/bin/env bash
# test/bench/bench_frame_levels.sh — what stands between the loader and the
# bytea row on loads and on disk at a few worlds (issue #34), measured:
#   1. the bytes a load sends and checks: the frames of the island of
#      island_versions.sql (saved 5 times) and of the corpus's
#      slime/crawlspace/hub.slime (saved once), each saved by the loader,
#      compressed again frame by frame at zstd levels 3 to 19 beside the
#      bytea row's file, with zstd's speed at each level (what a save or a
#      catch-up would spend writing its chunks so), and the XXH64 every load
#      checks the frames with (build/bench_frame_levels);
#   2. the floor: the extension's tables (heap, TOAST, indexes, every fork)
#      in a database with nothing stored, after VACUUM FULL, with and without
#      a loader's tables: what the disk ratio counts before any world.
# Durable throwaway cluster on loopback; installs what it needs. Never
# fails on a number.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cd "$SLIME_ROOT"

slime_install_deps >&2
slime_build_install >&2
corpus=$(slime_corpus)
work=$(mktemp -d /tmp/slime-bench.XXXXXX)
slime_on_exit "rm -rf '$work'"
slime_step "build build/bench_frame_levels" "$work/build.log" \
    make build/bench_frame_levels PG_CONFIG="$SLIME_PG_CONFIG"
SLIME_PG_CONF=$(printf 'fsync = on\nsynchronous_commit = on\nfull_page_writes = on\nshared_buffers = 256MB') \
    SLIME_LOADER_VERIFY=off SLIME_PG_LISTEN=127.0.0.1 slime_cluster_start >&2

echo "## 1. The bytes a load sends and checks"
echo
slime_psql -X -q -v ON_ERROR_STOP=1 -v corpus="$corpus" -f test/bench/island_versions.sql >/dev/null
token=$(slime_psql -X -Atc "SELECT token FROM isl_worlds")
for k in 1 2 3 4 5; do
    slime_psql -X -q -c "SELECT slime_loader_save('isl', 'w', $token, (SELECT f FROM files WHERE k = $k), 10)" >/dev/null
done
slime_psql -X -Atc "SELECT frame FROM isl_frames WHERE world = 'w'" |
    ./build/bench_frame_levels "the island (island_versions.sql, version 5)" \
        "$(slime_psql -X -Atc "SELECT octet_length(f) FROM files WHERE k = 5")"
echo
slime_psql -X -q -v ON_ERROR_STOP=1 -v hub="$corpus/slime/crawlspace/hub.slime" <<'SQL' >/dev/null
SELECT slime_loader_create('hubl');
SELECT slime_lease_acquire('hubl', 'hub', 'bench', '1 day');
SELECT slime_loader_save('hubl', 'hub', (SELECT token FROM hubl_worlds WHERE world = 'hub'), pg_read_binary_file(:'hub'));
SQL
slime_psql -X -Atc "SELECT frame FROM hubl_frames WHERE world = 'hub'" |
    ./build/bench_frame_levels "slime/crawlspace/hub.slime (the file ASP wrote)" \
        "$(slime_psql -X -Atc "SELECT octet_length(pg_read_binary_file('$corpus/slime/crawlspace/hub.slime'))")"
echo
echo "## 2. The floor: a database with nothing stored, after VACUUM FULL"
echo
slime_psql -X -q -c "CREATE DATABASE floor" >/dev/null
PGDATABASE=floor slime_psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
CREATE EXTENSION slime;
\o /dev/null
SELECT slime_loader_create('ldr');
\o
VACUUM FULL;
\pset footer off
SELECT CASE WHEN c.relname LIKE 'ldr%' THEN 'the loader' ELSE 'the extension' END AS tables,
       count(*) AS relations,
       sum(pg_total_relation_size(c.oid)) AS bytes,
       string_agg(c.relname || ' ' || pg_total_relation_size(c.oid), ', ' ORDER BY pg_total_relation_size(c.oid) DESC, c.relname) AS each
FROM pg_class c
WHERE c.relkind = 'r' AND (c.relname LIKE 'ldr%' OR c.oid IN (
    SELECT d.objid FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
    WHERE e.extname = 'slime' AND d.classid = 'pg_class'::regclass AND d.deptype = 'e'))
GROUP BY 1 ORDER BY 1 DESC;
SQL
