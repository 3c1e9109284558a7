#!/usr/bin/env bash
# test/webmap.sh — slimetool map-server over a throwaway cluster: corpus
# worlds in a table, the server on 127.0.0.1 as a role that may only
# SELECT, then
#   - the HTTP contract with curl: the page and its files, /api/worlds
#     (pages, bounds and chunk counts as slime_info gives them), tiles equal
#     to slime_render_tile's bytes, ETag / If-None-Match / 304 and
#     Cache-Control, 404 for unknown keys and files, 400 for malformed
#     paths, hostile keys answered 400/404 with the database unchanged,
#     405 for other methods, concurrent requests, an access log line per
#     request that a path cannot forge, reconnection after a database
#     restart; a decoded NUL in a path (400, never a shorter path) and keys
#     that only the key type's input parser would take (' 7', '+7', '07':
#     404); every option of --help documented in README;
#   - slow clients (issue #33): 300 connections that never end their
#     headers from 30 loopback addresses, 300 more from one address, and
#     tiles whose query sleeps, for 25 s, while a legitimate client's
#     requests must each be answered within curl --max-time 2
#     (test/webmap/slowloris.cjs);
#   - the page in headless Chromium (Debian's `chromium`, installed here
#     when missing) driven by playwright-core from npm (installed into
#     build/webmap-test): tiles load, the screenshot's pixels are the tile
#     PNGs' colours, the picker and the coordinates work
#     (test/webmap/browser.cjs);
#   - SIGTERM: the server stops cleanly.
# SLIME_WEBMAP_SCREENSHOT=PATH keeps the screenshot (make doc-webmap: doc/img/webmap.png).
# Prints "N passed, N failed".
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$SLIME_ROOT"

SLIME_DEPS+=(chromium)
command -v npm >/dev/null || SLIME_DEPS+=(nodejs npm)
slime_install_deps
slime_build_install
make -s webmap PG_CONFIG="$SLIME_PG_CONFIG"
slime_suite_begin webmap
REGIONS=("anvil-1.2-1.12/pymclevel/AnvilWorld/r.0.0.mca 0 0"
         "anvil-1.18plus/querz-nbt/parsers/r.0.0.mca 0 0"
         "anvil-1.13-1.17/amulet-core/1_16_5_dimension/r.-1.-1.mca -1 -1"
         "mcregion/cu_minecraft/r.0.0.mcr 0 0")
KEYS=("anvilworld" "querz-1.18" "amulet/nether é" "cu-mcregion")
slime_suite_regions
slime_suite_cluster webmap

# ---- playwright-core from npm (never a browser download: Chromium is Debian's)
TESTMODS=$SLIME_ROOT/build/webmap-test
if [ ! -f "$TESTMODS/node_modules/playwright-core/package.json" ] ||
   ! cmp -s test/webmap/package.json "$TESTMODS/package.json"; then
    mkdir -p "$TESTMODS"
    cp test/webmap/package.json "$TESTMODS/"
    (cd "$TESTMODS" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --no-audit --no-fund --loglevel=error)
fi

# ---- the worlds: four corpus regions, one of them in reference form ---------
{
    echo "CREATE EXTENSION slime;"
    echo "CREATE TABLE worlds (name text PRIMARY KEY, world slime);"
    for i in "${!REGIONS[@]}"; do
        read -r p rx rz <<<"${REGIONS[$i]}"
        w="slime_import_region(pg_read_binary_file($(slime_sq "$CORPUS/$p")), $rx, $rz)"
        [ "${KEYS[$i]}" = cu-mcregion ] && w="slime_store($w)"
        echo "INSERT INTO worlds VALUES ($(slime_sq "${KEYS[$i]}"), $w);"
    done
    echo "INSERT INTO worlds VALUES ('no world yet', NULL);"
    # the role of README 'A web map of every world': it may only read
    echo "CREATE ROLE slime_map LOGIN;"
    echo "GRANT SELECT ON worlds, slime_store TO slime_map;"
    # an integer key: what does not parse as one is not there either
    echo "CREATE TABLE numbered (id int PRIMARY KEY, world slime);"
    echo "INSERT INTO numbered SELECT 7, world FROM worlds WHERE name = 'anvilworld';"
    echo "GRANT SELECT ON numbered TO slime_map;"
} >"$WORK/setup.sql"
slime_psql -f "$WORK/setup.sql" >/dev/null
state() {
    slime_psql -At -c "SELECT md5(string_agg(name || ':' || coalesce(encode(slime_content_hash(world), 'hex'), '-'), ',' ORDER BY name))
                              || ' ' || (SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace)
                       FROM worlds"
}
STATE0=$(state)

# ---- the server ---------------------------------------------------------------
port=18080
port=$(slime_port_pick "$port")
BASE=http://127.0.0.1:$port
./build/slimetool map-server --dsn "host=$PGHOST port=$PGPORT dbname=$PGDATABASE user=slime_map" \
    --table worlds --key name --column world --listen "127.0.0.1:$port" --threads 4 \
    2>"$WORK/server.log" &
SERVER=$!
slime_on_exit "slime_alive $SERVER && kill $SERVER"
for _ in $(seq 100); do curl -s -o /dev/null "$BASE/" && break; sleep 0.1; done

# get PATH [curl args...]: the status in $CODE, the body in $WORK/body, the
# headers in $WORK/headers; REQUESTS counts the requests sent
REQUESTS=0
get() {
    local path=$1; shift
    REQUESTS=$((REQUESTS + 1))
    rm -f "$WORK/body" "$WORK/headers"
    CODE=$(curl -s --path-as-is -o "$WORK/body" -D "$WORK/headers" -w '%{http_code}' "$@" "$BASE$path") ||
        CODE="curl failed ($?)"
    touch "$WORK/body"
}
header() { grep -i "^$1:" "$WORK/headers" | head -n 1 | cut -d' ' -f2- | tr -d '\r'; }
expect() {  # expect CODE PATH [curl args...]
    local want=$1; shift
    get "$@"
    if [ "$CODE" = "$want" ]; then result OK "$want for $1"; else result FAIL "$1: $CODE, expected $want"; fi
}
urlenc() { node -e 'process.stdout.write(encodeURIComponent(process.argv[1]))' "$1"; }
slime_log "webmap: the HTTP contract"

# every option of map-server --help is in README's section
sed -n '/^### A web map of every world/,/^### /p' README.md >"$WORK/readme-map"
if ./build/slimetool map-server --help >"$WORK/help"; then
    missing=$(grep -o -- '--[a-z-]*' "$WORK/help" | sort -u | while read -r o; do
        grep -q -- "\`$o" "$WORK/readme-map" || echo "$o"; done)
    [ -z "$missing" ] && result OK "map-server --help: $(grep -o -- '--[a-z-]*' "$WORK/help" | sort -u | wc -l) options, each in README's map-server section" ||
        result FAIL "options of --help missing from README: $missing"
else result FAIL "map-server --help did not exit 0"; fi

# the page and its files, served by the server itself
expect 200 /
grep -q '/static/leaflet.js' "$WORK/body" && result OK "the page loads Leaflet from the server" || result FAIL "page without /static/leaflet.js"
expect 200 /static/leaflet.js
[ "$(header Content-Type)" = "text/javascript; charset=utf-8" ] && result OK "leaflet.js is JavaScript" || result FAIL "leaflet.js type $(header Content-Type)"
expect 200 /static/map.js
expect 404 /static/nothing.js
expect 404 /static/../../etc/passwd
expect 404 /etc/passwd
expect 405 / -X POST -d x=1

# /api/worlds: every world with a value, chunk counts and bounds as slime_info has them
expect 200 /api/worlds
node -e '
  const got = JSON.parse(require("fs").readFileSync(process.argv[1]));
  const want = process.argv[2].trim().split("\n").map((l) => l.split("|"));
  const ok = got.next === null && got.worlds.length === want.length && want.every(([k, n, x0, z0, x1, z1], i) => {
    const w = got.worlds[i];
    return w.key === k && w.chunks === +n && w.bounds.min_x === 16 * x0 && w.bounds.min_z === 16 * z0 &&
           w.bounds.max_x === 16 * x1 + 15 && w.bounds.max_z === 16 * z1 + 15;
  });
  process.exit(ok ? 0 : 1);' "$WORK/body" "$(slime_psql -At -c "SELECT name, i->>'chunks', i->'bounds'->>'min_x', i->'bounds'->>'min_z',
      i->'bounds'->>'max_x', i->'bounds'->>'max_z' FROM (SELECT name, slime_info(world) i FROM worlds WHERE world IS NOT NULL) s ORDER BY name")" &&
    result OK "/api/worlds: keys, chunk counts and block bounds of slime_info" || result FAIL "/api/worlds: $(cat "$WORK/body")"
[ "$(header Content-Type)" = application/json ] && result OK "/api/worlds is JSON" || result FAIL "/api/worlds type"
expect 200 "/api/worlds?limit=2"
next=$(node -e 'const b = JSON.parse(require("fs").readFileSync(process.argv[1])); process.stdout.write(b.worlds.length === 2 ? b.next : "")' "$WORK/body")
expect 200 "/api/worlds?limit=3&after=$(urlenc "$next")"
node -e 'const b = JSON.parse(require("fs").readFileSync(process.argv[1])); process.exit(b.worlds.length === 2 && b.next === null ? 0 : 1)' "$WORK/body" &&
    result OK "/api/worlds pages: limit and after" || result FAIL "/api/worlds second page: $(cat "$WORK/body")"
expect 400 "/api/worlds?limit=0"
expect 400 "/api/worlds?limit=abc"

# tiles: the bytes of slime_render_tile, with ETag and Cache-Control
sql_tile() {  # sql_tile KEY Z X Y > file
    slime_psql -At -c "SELECT encode(slime_render_tile(world, $2, $3, $4), 'base64') FROM worlds WHERE name = $(slime_sq "$1")" | base64 -d
}
for t in "querz-1.18|0|0|0" "querz-1.18|-2|0|0" "querz-1.18|3|5|7" "anvilworld|0|1|1" "amulet/nether é|0|-1|-1" \
         "cu-mcregion|-1|0|0" "anvilworld|0|-9|40"; do
    IFS='|' read -r k z x y <<<"$t"
    path="/tiles/$(urlenc "$k")/$z/$x/$y.png"
    expect 200 "$path"
    sql_tile "$k" "$z" "$x" "$y" >"$WORK/sql.png"
    cmp -s "$WORK/body" "$WORK/sql.png" && [ "$(header Content-Type)" = image/png ] &&
        result OK "$path is slime_render_tile's PNG ($(stat -c %s "$WORK/body") bytes)" || result FAIL "$path differs from slime_render_tile"
done
path=/tiles/querz-1.18/0/0/0.png
get "$path"
etag=$(header ETag)
hash=$(slime_psql -At -c "SELECT encode(slime_content_hash(world), 'hex') FROM worlds WHERE name = 'querz-1.18'")
[[ "$etag" == \"$hash-* ]] && result OK "the ETag is the value's content hash and the tile: $etag" || result FAIL "ETag $etag"
[ "$(header Cache-Control)" = "public, max-age=60" ] && result OK "Cache-Control: $(header Cache-Control)" || result FAIL "Cache-Control $(header Cache-Control)"
get /tiles/querz-1.18/0/1/0.png
[ "$(header ETag)" != "$etag" ] && result OK "another tile, another ETag" || result FAIL "two tiles share an ETag"
expect 304 "$path" -H "If-None-Match: $etag"
[ ! -s "$WORK/body" ] && [ "$(header ETag)" = "$etag" ] && result OK "304: no body, the same ETag" || result FAIL "304 with a body or without its ETag"
expect 304 "$path" -H "If-None-Match: \"other\", W/$etag"
expect 304 "$path" -H "If-None-Match: *"
expect 200 "$path" -H 'If-None-Match: "0000-t1-0.0.0"'
expect 200 /tiles/anvilworld/0/0/0.png -H "If-None-Match: $etag"

# not found, malformed, hostile
expect 404 /tiles/nosuchworld/0/0/0.png
expect 404 "/tiles/nosuchworld/0/0/0.png" -H "If-None-Match: $etag"
expect 404 "/tiles/$(urlenc 'no world yet')/0/0/0.png"
for p in /tiles/querz-1.18/0/0/x.png /tiles/querz-1.18/0/0.png /tiles/querz-1.18/0/0/0 /tiles//0/0/0.png \
         /tiles/querz-1.18/9/0/0.png /tiles/querz-1.18/-5/0/0.png /tiles/querz-1.18/0/99999999999/0.png \
         "/tiles/a%0Ab/0/0/0.png" "/tiles/a%00b/0/0/0.png" "/tiles/%FF/0/0/0.png" "/tiles/$(printf 'k%.0s' {1..300})/0/0/0.png"; do
    expect 400 "$p"
done
for k in "1;DROP TABLE worlds;--" "' OR '1'='1" "querz-1.18'; DELETE FROM worlds; --" "\$\$; TRUNCATE worlds; \$\$" "anvilworld\\"; do
    expect 404 "/tiles/$(urlenc "$k")/0/0/0.png"
    expect 404 "/tiles/$(urlenc "$k")/0/0/0.png" -H "If-None-Match: $etag"
done
# a NUL decoded from %00 is refused, never a path cut short at it (index.html%00.png served index.html)
expect 400 "/static/index.html%00.png"
expect 400 "/%00"
expect 400 "/tiles/querz-1.18%00junk/0/0/0.png"
expect 400 "/api/worlds?after=querz%00x"
expect 404 "/tiles/%20%20querz-1.18/0/0/0.png"
[ "$(state)" = "$STATE0" ] && result OK "the database is unchanged (every value's hash, the tables)" || result FAIL "the database changed"
if slime_psql -U slime_map -c "DELETE FROM worlds" >/dev/null 2>&1; then result FAIL "slime_map could write"
else result OK "the server's role cannot write"; fi
grep -q '"GET /tiles/a\\x0ab/0/0/0.png HTTP/1.1" 400' "$WORK/server.log" &&
    result OK "a newline in a path is escaped in the log" || result FAIL "log line of a path with a newline"

# concurrency: 48 tiles of three worlds, 8 at a time, each equal to a sequential fetch
for z in 0 -1 1; do for x in -1 0 1 2; do for k in querz-1.18 anvilworld amulet%2Fnether%20%C3%A9; do
    echo "/tiles/$k/$z/$x/$((x % 2)).png"
done; done; done >"$WORK/paths"
n=$(wc -l <"$WORK/paths")
REQUESTS=$((REQUESTS + 2 * n))
mkdir -p "$WORK/par" "$WORK/seq"
# shellcheck disable=SC2016
xargs -P 8 -I{} sh -c 'f=$(echo "{}" | tr / _); curl -s -o "$1/par/$f" -w "%{http_code}\n" "$2{}"' _ "$WORK" "$BASE" <"$WORK/paths" >"$WORK/codes"
while read -r p; do curl -s -o "$WORK/seq/$(echo "$p" | tr / _)" "$BASE$p"; done <"$WORK/paths"
[ "$(grep -c '^200$' "$WORK/codes")" = "$n" ] && diff -r -q "$WORK/par" "$WORK/seq" >/dev/null &&
    result OK "$n concurrent tile requests: all 200, each equal to a sequential fetch" || result FAIL "concurrent tiles: $(sort "$WORK/codes" | uniq -c | tr '\n' ' ')"

# a second server over a table keyed by integers (schema-qualified name)
port2=$((port + 1))
port2=$(slime_port_pick "$port2")
./build/slimetool map-server --dsn "host=$PGHOST port=$PGPORT dbname=$PGDATABASE user=slime_map" \
    --table public.numbered --key id --column world --listen "127.0.0.1:$port2" --threads 2 \
    2>"$WORK/server2.log" &
SERVER2=$!
slime_on_exit "slime_alive $SERVER2 && kill $SERVER2"
for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port2/" && break; sleep 0.1; done
BASE1=$BASE
REQUESTS1=$REQUESTS
BASE=http://127.0.0.1:$port2
expect 200 /tiles/7/0/0/0.png
expect 404 /tiles/8/0/0/0.png
expect 404 "/tiles/$(urlenc "7; DROP TABLE numbered")/0/0/0.png"
expect 404 "/tiles/99999999999999999999/0/0/0.png" -H "If-None-Match: $etag"
# the key is the key's text form (as /api/worlds lists it), not whatever int4's parser takes
for k in "%207" "%20%207" "+7" "07" "7%20"; do
    expect 404 "/tiles/$k/0/0/0.png"
    expect 404 "/tiles/$k/0/0/0.png" -H "If-None-Match: $etag"
done
expect 200 /api/worlds
grep -q '"key": "7", "chunks": 516' "$WORK/body" && result OK "integer keys listed as text" || result FAIL "worlds of numbered: $(cat "$WORK/body")"
BASE=$BASE1
REQUESTS=$REQUESTS1
kill -TERM "$SERVER2"; wait "$SERVER2" || true
[ "$(slime_psql -At -c "SELECT count(*) FROM numbered")" = 1 ] && result OK "numbered is unchanged" || result FAIL "numbered changed"

# a database restart: the pooled connections are gone, the next requests reconnect
(cd / && runuser -u postgres -- "$SLIME_PG_BIN/pg_ctl" -D "$PGDATA" -l "$SERVER_LOG" -m fast -w -t 60 restart >/dev/null)
expect 200 /tiles/querz-1.18/0/0/0.png
expect 200 /api/worlds
expect 304 /tiles/querz-1.18/0/0/0.png -H "If-None-Match: $etag"

# ---- slow clients (issue #33, item 4) --------------------------------------------
# A third server over a view that adds worlds whose queries sleep ('slow'
# 60 s, 'sleepy' 2 s: slow tiles), with the default connection limits. The attack, for 25 s, from
# loopback addresses other than the legitimate client's 127.0.0.1 (a cap per
# address would otherwise refuse the test's own client along with them):
#   spread: 300 connections from 127.0.0.2..127.0.0.31 (10 an address, under
#           the cap), each a header line every 2 s, never ending its headers
#           (faster than any idle timeout: only the request deadline ends them),
#           reopened a second after the server closes one;
#   one:    300 connections from 127.0.0.40 alone, a header line every 10 s
#           (the issue's form): the per-address cap holds 32;
#   two loops of /tiles/slow/..., each query sleeping until --query-timeout 5.
# Meanwhile the legitimate client asks for the page, a file and tiles in turn,
# each with curl --max-time 2: every answer must come, whole and right.
slime_log "webmap: 600 slow clients and slow tiles for 25 s"
{   # (in a schema of its own: state() counts public's relations)
    echo "CREATE SCHEMA attack;"
    echo "CREATE VIEW attack.worlds AS SELECT name, world FROM worlds"
    echo "  UNION ALL SELECT 'slow', w.world FROM worlds w, pg_sleep(60) WHERE w.name = 'anvilworld'"
    echo "  UNION ALL SELECT 'sleepy', w.world FROM worlds w, pg_sleep(2) WHERE w.name = 'anvilworld';"
    echo "GRANT USAGE ON SCHEMA attack TO slime_map;"
    echo "GRANT SELECT ON attack.worlds TO slime_map;"
} | slime_psql >/dev/null
port3=$((port2 + 1))
port3=$(slime_port_pick "$port3")
./build/slimetool map-server --dsn "host=$PGHOST port=$PGPORT dbname=$PGDATABASE user=slime_map" \
    --table attack.worlds --key name --column world --listen "127.0.0.1:$port3" --query-timeout 5 \
    2>"$WORK/server3.log" &
SERVER3=$!
slime_on_exit "slime_alive $SERVER3 && kill $SERVER3"
BASE3=http://127.0.0.1:$port3
for _ in $(seq 100); do curl -s -o /dev/null "$BASE3/" && break; sleep 0.1; done
node test/webmap/slowloris.cjs "$port3" 25 spread:300:127.0.0.2:30:2000 one:300:127.0.0.40:1:10000 \
    >"$WORK/attack.log" 2>&1 &
ATTACK=$!
slime_on_exit "slime_alive $ATTACK && kill $ATTACK"
for _ in $(seq 100); do grep -q '^ready$' "$WORK/attack.log" && break; sleep 0.1; done
held=$(ss -Htn state established "( sport = :$port3 )" | wc -l)
SLOW=()
for i in 1 2; do
    for _ in 1 2 3 4; do
        curl -s -o /dev/null --max-time 30 -w '%{http_code}\n' "$BASE3/tiles/slow/0/0/0.png" || echo "curl failed ($?)"
    done >"$WORK/slow$i" &
    SLOW+=($!)
done
: >"$WORK/legit"
n=0
while slime_alive "$ATTACK"; do
    case $((n % 4)) in
        0) p=/ ;; 1) p=/static/leaflet.js ;; 2) p=/tiles/querz-1.18/0/0/0.png ;; 3) p=/tiles/anvilworld/0/1/1.png ;;
    esac
    n=$((n + 1))
    out=$(curl -s --max-time 2 -o "$WORK/legit.body" -w '%{http_code} %{time_total}' "$BASE3$p") || out="curl failed ($?)"
    code=${out%% *}
    if [ "$code" = 200 ] && [ -s "$WORK/legit.body" ]; then echo "ok $p ${out#* }" >>"$WORK/legit"
    else echo "$(date +%T.%N | cut -c1-12) $p: $code" >>"$WORK/legit"; fi
    sleep 0.1
done
wait "$ATTACK" || true
wait "${SLOW[@]}" || true
bad=$(grep -vc '^ok ' "$WORK/legit" || true)
[ "$bad" = 0 ] && [ "$n" -ge 10 ] &&
    result OK "while the slow clients were held: $n requests of the legitimate client, each answered 200 within 2 s (the slowest in $(awk '/^ok / { if ($3 > m) m = $3 } END { printf "%.3f", m }' "$WORK/legit") s)" ||
    result FAIL "legitimate client under attack: $bad of $n not answered 200 within 2 s: $(grep -v '^ok ' "$WORK/legit" | head -n 5 | tr '\n' ' ')"
read -r _ a_conn a_held a_closed a_first < <(grep '^spread ' "$WORK/attack.log" | tr '=' ' ' | awk '{ print $1, $3, $5, $7, $9 }')
read -r _ o_conn o_held o_closed _ < <(grep '^one ' "$WORK/attack.log" | tr '=' ' ' | awk '{ print $1, $3, $5, $7, $9 }')
[ "${a_held:-}" = 300 ] && [ "${a_closed:-0}" -ge 300 ] &&
    result OK "300 slow clients from 30 addresses: all held ($held connections established at the server), each cut by --request-timeout ($a_closed closes; the earliest after ${a_first} ms)" ||
    result FAIL "the spread attack: $(grep '^spread ' "$WORK/attack.log")"
[ "${o_held:-}" = 32 ] &&
    result OK "300 slow clients from one address: --max-per-address held 32 ($o_conn connections made, $o_closed closed by the server)" ||
    result FAIL "the one-address attack: $(grep '^one ' "$WORK/attack.log")"
grep -q '^map-server: closed [0-9]* connections whose request had not arrived whole in 10 s' "$WORK/server3.log" &&
    result OK "the server logs the connections its request deadline closed" || result FAIL "no request-deadline line in the log"
slow=$(cat "$WORK/slow1" "$WORK/slow2" | sort | uniq -c | tr -s ' \n' ' ')
[ "$(grep -c '^503$' "$WORK/slow1" "$WORK/slow2" | awk -F: '{ s += $2 } END { print s }')" = 8 ] &&
    result OK "8 slow tiles, two at a time: each 503 at --query-timeout, never holding the others" || result FAIL "slow tiles: $slow"
# (10 lines and a count every 10 s, where each refused connection would write one)
[ "$(grep -c '^libmicrohttpd: ' "$WORK/server3.log")" -le 100 ] &&
    result OK "libmicrohttpd's messages about the attack are bounded ($(grep -c '^libmicrohttpd: ' "$WORK/server3.log") lines while the server refused or closed $o_closed connections of one address)" ||
    result FAIL "libmicrohttpd flooded the log: $(grep -c '^libmicrohttpd: ' "$WORK/server3.log") lines"
kill -TERM "$SERVER3"; wait "$SERVER3" && rc=0 || rc=$?
[ "$rc" = 0 ] && result OK "the attacked server stopped cleanly" || result FAIL "the attacked server: exit $rc"

# a full queue answers at once: one worker, a queue of one; while tile A
# sleeps 2 s on the worker (seen in pg_stat_activity), B and C arrive: one
# waits its turn, the other gets 503 and Retry-After at once
./build/slimetool map-server --dsn "host=$PGHOST port=$PGPORT dbname=$PGDATABASE user=slime_map application_name=queue1" \
    --table attack.worlds --key name --column world --listen "127.0.0.1:$port3" --threads 1 --queue 1 \
    2>"$WORK/server4.log" &
SERVER4=$!
slime_on_exit "slime_alive $SERVER4 && kill $SERVER4"
for _ in $(seq 100); do curl -s -o /dev/null "$BASE3/" && break; sleep 0.1; done
curl -s -o /dev/null -w '%{http_code}\n' --max-time 20 "$BASE3/tiles/sleepy/0/0/0.png" >"$WORK/q.A" &
QA=$!
for _ in $(seq 100); do
    [ "$(slime_psql -At -c "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'queue1' AND wait_event = 'PgSleep'")" = 1 ] && break
    sleep 0.05
done
for t in B C; do
    curl -s -o "$WORK/q.$t.body" -D "$WORK/q.$t.headers" -w '%{http_code}\n' --max-time 20 "$BASE3/tiles/sleepy/0/0/0.png" >"$WORK/q.$t" &
    eval "Q$t=\$!"
done
wait "$QA" "$QB" "$QC" || true
codes="$(cat "$WORK/q.A") $(sort "$WORK/q.B" "$WORK/q.C" | tr '\n' ' ')"
busy=$(grep -l 'the server is busy' "$WORK/q.B.body" "$WORK/q.C.body" 2>/dev/null | head -n 1)
[ "$codes" = "200 200 503 " ] && [ -n "$busy" ] && grep -qi '^Retry-After: 1' "${busy%.body}.headers" &&
    result OK "--threads 1 --queue 1: the third tile at once is 503 with Retry-After, the second waits and is drawn" ||
    result FAIL "a full queue: A, then B and C sorted: $codes"
kill -TERM "$SERVER4"; wait "$SERVER4" || true

# ---- the page in a real browser -------------------------------------------------
slime_log "webmap: the page in headless Chromium"
SHOT=$WORK/webmap.png
REQUESTS_BEFORE_BROWSER=$(grep -c '" [0-9][0-9][0-9] ' "$WORK/server.log" || true)
if node test/webmap/browser.cjs "$TESTMODS/node_modules/playwright-core" "$BASE/" "$SHOT" "$WORK/chromium-profile" \
        anvilworld "amulet/nether é" >"$WORK/browser.log" 2>&1; then rc=0; else rc=$?; fi
while read -r line; do
    case "$line" in
        "ok:     "*) result OK "browser: ${line#ok:     }" ;;
        "FAILED: "*) result FAIL "browser: ${line#FAILED: }" ;;
    esac
done <"$WORK/browser.log"
[ "$rc" = 0 ] && result OK "the browser check exited 0" || { result FAIL "the browser check exited $rc"; tail -n 20 "$WORK/browser.log"; }
if [ -n "${SLIME_WEBMAP_SCREENSHOT:-}" ] && [ -s "$SHOT" ]; then cp "$SHOT" "$SLIME_WEBMAP_SCREENSHOT"; fi

# ---- the access log and SIGTERM -------------------------------------------------
lines=$(grep -c '^127\.0\.0\.1 - - \[.*\] "[A-Z]* .* HTTP/1\.1" [0-9][0-9][0-9] [0-9]* [0-9.]*ms$' "$WORK/server.log" || true)
# (the first request is the wait for the server to answer)
[ "$REQUESTS_BEFORE_BROWSER" = $((REQUESTS + 1)) ] && [ "$lines" -gt "$REQUESTS_BEFORE_BROWSER" ] &&
    result OK "an access log line per request ($REQUESTS_BEFORE_BROWSER for as many curl requests, $lines with the browser's)" ||
    result FAIL "access log: $REQUESTS_BEFORE_BROWSER lines for $((REQUESTS + 1)) requests"
kill -TERM "$SERVER"
for _ in $(seq 100); do slime_alive "$SERVER" || break; sleep 0.1; done
if slime_alive "$SERVER"; then result FAIL "the server is still running 10 s after SIGTERM"
else
    wait "$SERVER" && rc=0 || rc=$?
    [ "$rc" = 0 ] && grep -q '^map-server: stopped$' "$WORK/server.log" &&
        result OK "SIGTERM: the server stopped cleanly (exit 0)" || result FAIL "SIGTERM: exit $rc"
fi
[ "$(state)" = "$STATE0" ] && result OK "the database is unchanged at the end" || result FAIL "the database changed"
grep -v '^127\.0\.0\.1 - - ' "$WORK/server.log" | head -n 20 >&2 || true
finish
