#!/usr/bin/env bash
# test/bench/bench_tile.sh — map tiles (issue #23): slime_render_tile over
# dense 1.18+ corpus regions, in the database and through slimetool
# map-server.
#
#   (i)  every zoom 0 tile (1 block a pixel) and every zoom -2 tile (4 blocks
#        a pixel) of each region, BENCH_TILE_ROUNDS times (5), through a
#        prepared statement with binary results (build/bench_client tiles):
#        median and worst call, against the same statement reading only
#        slime_content_hash (baseline: the round trip and the value's
#        metadata, what a 304 costs), and slime_render_map of the region;
#   (ii) the zoom 0 tiles of the densest region over HTTP (curl against
#        map-server on 127.0.0.1, 4 threads): 200 (drawn) and 304 (If-None-Match).
#
# Uses the cluster named by the PG* variables; without PGHOST it starts a
# throwaway cluster. Table tilebench is an ordinary logged table. Never
# fails on numbers.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib.sh
. "$HERE/../lib.sh"

ROUNDS=${BENCH_TILE_ROUNDS:-5}
REGIONS=("anvil-1.18plus/querz-nbt/parsers/r.0.0.mca 0 0"
         "anvil-1.18plus/prismarine-provider-anvil/1.19.4/r.0.0.mca 0 0"
         "anvil-1.18plus/minestom/anvil_vanilla_sample/r.2.1.mca 2 1"
         "anvil-1.18plus/bingley-tag/r.0.-1.mca 0 -1")
CORPUS=$(slime_corpus) || exit 1
make -s -C "$SLIME_ROOT" build/bench_client webmap PG_CONFIG="$SLIME_PG_CONFIG" >&2
[ -n "${PGHOST:-}" ] || slime_cluster_start
WORK=$(mktemp -d /tmp/slime-bench-tile.XXXXXX)
slime_on_exit 'rm -rf "$WORK"'

{
    echo "CREATE EXTENSION IF NOT EXISTS slime;"
    echo "DROP TABLE IF EXISTS tilebench; CREATE TABLE tilebench (name text PRIMARY KEY, world slime);"
    for r in "${REGIONS[@]}"; do
        read -r p rx rz <<<"$r"
        echo "INSERT INTO tilebench VALUES ($(slime_sq "$p"), slime_import_region(pg_read_binary_file($(slime_sq "$CORPUS/$p")), $rx, $rz));"
    done
    echo "VACUUM ANALYZE tilebench;"
} | slime_psql >/dev/null

echo "== (i) slime_render_tile, $ROUNDS rounds of every tile, prepared, binary results ($(nproc) cores, $(date -u +%F))"
for z in 0 -2; do
    echo "-- zoom $z ($((1 << -z)) block(s) a pixel)"
    "$SLIME_ROOT/build/bench_client" tiles "$ROUNDS" "$z"
done

echo
echo "== (ii) map-server: the zoom 0 tiles of ${REGIONS[0]%% *} over HTTP (curl time_total)"
port=18180
port=$(slime_port_pick "$port")
"$SLIME_ROOT/build/slimetool" map-server --dsn "" --table tilebench --key name --column world \
    --listen "127.0.0.1:$port" --threads 4 2>"$WORK/server.log" &
server=$!
slime_on_exit "kill $server 2>/dev/null || true"
for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
key=$(node -e 'process.stdout.write(encodeURIComponent(process.argv[1]))' "${REGIONS[0]%% *}")
read -r x0 z0 x1 z1 < <(slime_psql -At -F' ' -c "SELECT floor((i->'bounds'->>'min_x')::int / 16.0), floor((i->'bounds'->>'min_z')::int / 16.0),
    floor((i->'bounds'->>'max_x')::int / 16.0), floor((i->'bounds'->>'max_z')::int / 16.0)
    FROM (SELECT slime_info(world) i FROM tilebench WHERE name = $(slime_sq "${REGIONS[0]%% *}")) s")
: >"$WORK/200"; : >"$WORK/304"
for _ in $(seq "$ROUNDS"); do
    for y in $(seq "$z0" "$z1"); do for x in $(seq "$x0" "$x1"); do
        u="http://127.0.0.1:$port/tiles/$key/0/$x/$y.png"
        etag=$(curl -s -o /dev/null -D - -w '%{time_total}\n' "$u" | tee -a "$WORK/headers" | tr -d '\r' |
               awk -v f="$WORK/200" '/^[Ee][Tt]ag:/ { e = $2 } /^[0-9.]+$/ { print $1 >> f } END { print e }')
        curl -s -o /dev/null -H "If-None-Match: $etag" -w '%{http_code} %{time_total}\n' "$u" >>"$WORK/304"
    done; done
done
stats() { sort -n | awk '{ a[NR] = $1 } END { printf "%d requests, median %.2f ms, worst %.2f ms", NR, a[int((NR + 1) / 2)] * 1000, a[NR] * 1000 }'; }
echo "200 (drawn):          $(stats <"$WORK/200")"
echo "304 (If-None-Match):  $(awk '$1 == 304 { print $2 }' "$WORK/304" | stats)  ($(awk '$1 != 304' "$WORK/304" | wc -l) not 304)"
kill -TERM "$server"; wait "$server" || true
