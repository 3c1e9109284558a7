#!/usr/bin/env bash
# test/bench/bench_save_profile.sh — where a loader save's backend CPU goes
# (issue #34): a 25-chunk island (the first complete 5x5 chunks of a 1.21.1
# region of the corpus) in 20 versions, each with 1-5 chunks edited (8
# bytes of a sky light array), saved in turn by pgbench, one client, as
# slime_loader_save(..., keep => 10) and as a bytea row's INSERT .. ON
# CONFLICT DO UPDATE (ASP's MySQL loader), on a durable throwaway cluster
# (fsync, synchronous_commit, full_page_writes on; slime.loader_verify off,
# as in production). The files are read from a table on the server: the
# timings are of the backend alone, so their ratio is lower than
# bench_frames.sh's, whose clients send each file. Then `perf record`
# (DWARF call graphs: libzstd has no frame pointers) of the loader's
# backend, split into the parts of a save (test/bench/save_profile.py).
# Needs perf (linux-perf) for the split; prints the timings without it.
# Never fails on a number.
#   BENCH_SECONDS: each pgbench slice (8); three slices of each side.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cd "$SLIME_ROOT"
corpus=$(slime_corpus)
secs=${BENCH_SECONDS:-8}
out=$(mktemp -d /tmp/slime-profile.XXXXXX)
chmod 755 "$out"
slime_on_exit "rm -rf '$out'"
SLIME_PG_CONF=$(printf 'fsync = on\nsynchronous_commit = on\nfull_page_writes = on\nshared_buffers = 256MB') \
    SLIME_LOADER_VERIFY=off slime_cluster_start >&2
slime_psql -X -q -v ON_ERROR_STOP=1 -v corpus="$corpus" <<'SQL' >/dev/null
CREATE EXTENSION slime;
SELECT slime_loader_create('isl');
SELECT setseed(0.1);
CREATE TABLE isl0 AS SELECT slime_agg(slime_put_chunk(NULL, c.x, c.z, slime_chunk_nbt(w, c.x, c.z))) w
FROM (SELECT slime_import_region(pg_read_binary_file(:'corpus' || '/anvil-1.18plus/prismarine-provider-anvil/1.21.1/r.0.0.mca'), 0, 0) w) s,
LATERAL (SELECT a.x x0, a.z z0 FROM slime_chunks(s.w) a WHERE (SELECT count(*) FROM slime_chunks(s.w) b
  WHERE b.x BETWEEN a.x AND a.x + 4 AND b.z BETWEEN a.z AND a.z + 4) = 25 ORDER BY a.x, a.z LIMIT 1) m,
slime_chunks(w) c WHERE c.x BETWEEN m.x0 AND m.x0 + 4 AND c.z BETWEEN m.z0 AND m.z0 + 4;
CREATE TABLE files (k int PRIMARY KEY, f bytea);
-- version v edits 1 + v % 5 chunks of version v - 1 (the first has 25 chunks)
DO $$
DECLARE w slime := (SELECT isl0.w FROM isl0); c record;
BEGIN
  FOR v IN 0..19 LOOP
    FOR e IN 1..(CASE WHEN v = 0 THEN 0 ELSE 1 + v % 5 END) LOOP
      SELECT k.x, k.z, n, position('\x070008536b794c6967687400000800'::bytea IN n) p INTO c
      FROM slime_chunks(w) k, LATERAL (SELECT slime_chunk_nbt(w, k.x, k.z) n) q
      WHERE position('\x070008536b794c6967687400000800'::bytea IN n) > 0 ORDER BY random() LIMIT 1;
      w := slime_put_chunk(w, c.x, c.z, overlay(c.n PLACING int8send(1000 * v + e) FROM c.p + 15 + (8 * (v * 5 + e)) % 2040 FOR 8));
    END LOOP;
    INSERT INTO files VALUES (v, slime_to_slimefile(w));
  END LOOP;
END $$;
CREATE TABLE bb (name text PRIMARY KEY, world bytea);
CREATE SEQUENCE s1;
CREATE SEQUENCE s2;
SELECT slime_lease_acquire('isl', 'w', 'bench', '1 day');
SELECT slime_loader_save('isl', 'w', (SELECT token FROM isl_worlds), f) FROM files WHERE k = 0;
INSERT INTO bb SELECT 'w', f FROM files WHERE k = 0;
SQL
token=$(slime_psql -X -Atc "SELECT token FROM isl_worlds")
echo "SELECT slime_loader_save('isl', 'w', $token, (SELECT f FROM files WHERE k = (SELECT nextval('s1') % 20)), 10);" >"$out/save_slime.sql"
echo "INSERT INTO bb SELECT 'w', f FROM files WHERE k = (SELECT nextval('s2') % 20) ON CONFLICT (name) DO UPDATE SET world = EXCLUDED.world;" >"$out/save_bytea.sql"

tps() {
    pgbench -n -M prepared -T "$secs" -f "$out/$1.sql" -h "$PGHOST" -p "$PGPORT" -U "$PGUSER" "$PGDATABASE" 2>&1 |
        sed -n 's/^tps = \([0-9.]*\).*/\1/p'
}
echo "island: 25 chunks, $(slime_psql -X -Atc "SELECT avg(octet_length(f))::int FROM files") bytes a file on average, 20 versions saved in turn"
echo "| saves, $secs-s slices, 1 client | slime loader (saves/s) | bytea row (saves/s) | ratio |"
echo "|---|---:|---:|---:|"
for round in 1 2 3; do
    s=$(tps save_slime) b=$(tps save_bytea)
    awk -v r="$round" -v s="$s" -v b="$b" 'BEGIN { printf "| round %d | %.1f | %.1f | %.2fx |\n", r, s, b, s / b }'
done

command -v perf >/dev/null || { echo "no perf: the split of a save is not measured"; exit 0; }
pgbench -n -M prepared -T 14 -f "$out/save_slime.sql" -h "$PGHOST" -p "$PGPORT" -U "$PGUSER" "$PGDATABASE" >/dev/null 2>&1 &
sleep 2
pid=$(slime_psql -X -Atc "SELECT pid FROM pg_stat_activity WHERE query LIKE '%slime_loader_save%' AND pid <> pg_backend_pid() LIMIT 1")
perf record -F 1000 --call-graph dwarf,32768 -p "$pid" -o "$out/perf.data" -- sleep 8 >/dev/null 2>&1 || true
wait
perf script -i "$out/perf.data" 2>/dev/null | python3 "$SLIME_ROOT/test/bench/save_profile.py"
