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
slime_psql -X -q -v ON_ERROR_STOP=1 -v corpus="$corpus" -f "$SLIME_ROOT/test/bench/island_versions.sql" >/dev/null
slime_psql -X -q -c "CREATE SEQUENCE s1" -c "CREATE SEQUENCE s2"
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
