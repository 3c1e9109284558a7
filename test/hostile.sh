#!/usr/bin/env bash
# Hostile input through SQL: thousands of mutated region files, slime values
# and NBT documents fed through every public function of a running server
# (the throwaway cluster of test/lib.sh). Passes when every call ends with a
# correct result or an ERROR, no backend dies by a signal, the backend's peak
# memory stays under a stated bound, and statement_timeout and
# pg_cancel_backend stop a long call within a second.
#
# Usage: bash test/hostile.sh [ITERATIONS]   (PG* variables name the server)
set -euo pipefail
cd "$(dirname "$0")/.."
ITER=${1:-${SLIME_HOSTILE_ITERATIONS:-3000}}
CORPUS=${SLIME_CORPUS:-$(cd .. && pwd)/shared/corpus}
MEM_CAP_MB=${SLIME_HOSTILE_MEM_CAP_MB:-1024}
if [ ! -d "$CORPUS" ]; then
	echo "*** CORPUS MISSING: $CORPUS; set SLIME_CORPUS ***" >&2
	echo "0 passed, 1 failed"
	exit 1
fi
DB=slime_hostile
psql -q -X -v ON_ERROR_STOP=1 -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
export PGDATABASE=$DB
# the lenient imports name every skipped chunk in a WARNING: keep them out
export PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=error"
failed=0
passed=0
check() { if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi; }
# the server log: test/lib.sh's cluster writes $SLIME_PGTMP/server.log
log_file=${SLIME_SERVER_LOG:-${SLIME_PGTMP:+$SLIME_PGTMP/server.log}}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# a < b for decimal numbers
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

psql -q -X -v ON_ERROR_STOP=1 -c "CREATE EXTENSION slime" -f test/hostile.sql
psql -q -X -v ON_ERROR_STOP=1 -v corpus="$CORPUS" <<'SQL'

CREATE TABLE seed_files (id serial, kind text, data bytea);
-- region-format files, each with the argument of slime_import_region it is for
CREATE TEMP TABLE seed_regions AS
SELECT p, pg_read_binary_file(:'corpus' || '/' || p) AS data,
       CASE WHEN p LIKE 'poi/%' THEN 'poi' WHEN p LIKE 'entities-%' THEN 'entities' ELSE 'region' END AS arg
FROM unnest(ARRAY[
  'anvil-1.13-1.17/querz-nbt/r.0.0.mca', 'anvil-1.18plus/querz-nbt/21w44a/r.-1.-1.mca',
  'anvil-1.13-1.17/mcaselector/import-source/r.-1.-1.mca', 'anvil-1.18plus/amulet-core/1_18_vanilla/r.-1.2.mca',
  'poi/amulet-core/1_18_vanilla/r.1.1.mca', 'entities-1.17plus/amulet-core/1_17_1_superflat/r.0.0.mca',
  'damaged/twoolie-nbt/regiontest.mca', 'damaged/querz-nbt/r.2.2.mca']) p;
INSERT INTO seed_files (kind, data) SELECT 'region', data FROM seed_regions ORDER BY p;
-- values of them (imported at 0,0 leniently: chunks relocated to their slots)
CREATE TEMP TABLE seed_values AS
SELECT p, CASE arg WHEN 'poi' THEN slime_import_region(NULL, 0, 0, poi => data, strict => false)
                   WHEN 'entities' THEN slime_import_region(NULL, 0, 0, entities => data, strict => false)
                   ELSE slime_import_region(data, 0, 0, strict => false) END AS v
FROM seed_regions;
INSERT INTO seed_files (kind, data) SELECT 'value', v::bytea FROM seed_values ORDER BY p;
-- the same values at the archive level: mutations reach the block codec's decoder
INSERT INTO seed_files (kind, data) SELECT 'value', slime_recompress(v, 20)::bytea FROM seed_values ORDER BY p;
INSERT INTO seed_files (kind, data)
SELECT 'nbt', slime_chunk_nbt(v, c.x, c.z) FROM seed_values s, slime_chunks(v) c WHERE v IS NOT NULL LIMIT 20;
INSERT INTO seed_files (kind, data)
SELECT 'level', pg_read_binary_file(:'corpus' || '/level-dat/amulet-core/1_18_vanilla/level.dat');
-- slime files: the corpus ones (v1, v3) and version 13 written from a 1.18+ region
INSERT INTO seed_files (kind, data)
SELECT 'slimefile', pg_read_binary_file(:'corpus' || '/slime/jaxkdev-slimeworld/' || f)
FROM unnest(ARRAY['test.slime', 'world.slime']) f;
INSERT INTO seed_files (kind, data)
SELECT 'slimefile', slime_to_slimefile(slime_import_region(
  pg_read_binary_file(:'corpus' || '/anvil-1.18plus/amulet-core/1_18_vanilla/r.-1.2.mca'), -1, 2));
-- schematics: corpus ones (gzip) and the same as plain NBT, pasted into a 1.18 region
INSERT INTO seed_files (kind, data)
SELECT 'schematic', d FROM unnest(ARRAY['fastasyncworldedit/sponge2.schem', 'prismarine-schematic/spongeV3.schem',
    'prismarine-schematic/viking-house1.schematic', 'pymclevel/CreativeInABox.schematic']) f,
  LATERAL (SELECT pg_read_binary_file(:'corpus' || '/schematic/' || f) AS g) q,
  LATERAL (VALUES (g), (slime_json_to_nbt(slime_nbt_to_json(g)))) v(d);
-- chunk store entries, key || entry: as saves write them (zstd) and as
-- slime_settle() wrote them before 0.7.0 (the dense form, slime_store_entry_settle: block codec version 5 streams now); hostile_store's value
-- refers to them, so a damaged entry is also read through it (read_through)
INSERT INTO hostile_store SELECT 1, slime_import_region(
  pg_read_binary_file(:'corpus' || '/anvil-1.18plus/amulet-core/1_18_vanilla/r.-1.2.mca'), -1, 2);
INSERT INTO seed_files (kind, data) SELECT 'entry', hash || data FROM slime_store ORDER BY hash LIMIT 6;
INSERT INTO seed_files (kind, data)
SELECT 'entry', hash || slime_store_entry_settle(hash, data) FROM slime_store ORDER BY hash LIMIT 10;
SELECT count(*) FROM slime_settle('0', batch_size => 16);
-- packs, id || pack: what slime_settle() settles entries into since 0.7.0 (dense frames: block codec version 5)
INSERT INTO seed_files (kind, data) SELECT 'pack', int8send(id) || data FROM slime_store_packs ORDER BY id LIMIT 4;
-- a loader world's cached file in its cold form (the file compressed against
-- its chunks) and the pack its chunks were gathered into, which its load reads
SELECT slime_loader_create('hostile_ldr');
SELECT slime_lease_acquire('hostile_ldr', 'w', 'hostile', '1 hour');
SELECT slime_loader_save('hostile_ldr', 'w', 1, data) FROM seed_files WHERE kind = 'slimefile' ORDER BY id DESC LIMIT 1;
SELECT slime_lease_release('hostile_ldr', 'w', 1);
-- the form a save keeps (framed: its directory; hot: the file and its checksum), and what a load may give
INSERT INTO seed_files (kind, data) SELECT 'hot', file FROM hostile_ldr_worlds WHERE substring(file FOR 4) IN ('SLHF', 'SLFR');
INSERT INTO kept_files SELECT 'hot', md5(slime_loader_load('hostile_ldr', 'w'));
INSERT INTO kept_files SELECT 'value', md5(slime_to_slimefile(s.data))
FROM hostile_ldr s JOIN hostile_ldr_worlds w ON w.world = s.world AND w.saves = s.save;
SELECT count(*) FROM slime_settle('0');
INSERT INTO seed_files (kind, data) SELECT 'cold', file FROM hostile_ldr_worlds WHERE substring(file FOR 4) = 'SLCF';
INSERT INTO kept_files SELECT 'cold', md5(slime_loader_load('hostile_ldr', 'w'));
INSERT INTO seed_files (kind, data) SELECT 'pack', int8send(id) || data FROM slime_store_packs WHERE gathered ORDER BY id DESC LIMIT 1;
DELETE FROM seed_files WHERE data IS NULL;
INSERT INTO hostile_world SELECT slime_import_region(
  pg_read_binary_file(:'corpus' || '/anvil-1.18plus/amulet-core/1_18_vanilla/r.-1.2.mca'), -1, 2);
INSERT INTO hostile_chunk SELECT data FROM seed_files WHERE kind = 'nbt' LIMIT 1;

SQL

# The mutations go in batches of 2,000, a transaction each: one transaction of
# many thousands of subtransactions (each call is one) slows to a crawl. One
# session keeps random()'s sequence across them, so ITER inputs are the same
# whatever the batching.
{
	echo "SELECT setseed(0.42);"
	left=$ITER
	while [ "$left" -gt 0 ]; do
		n=$((left < 2000 ? left : 2000))
		left=$((left - n))
		cat <<SQL
DO \$\$
DECLARE
  s record;
  other bytea;
  m bytea;
BEGIN
  FOR i IN 1 .. $n LOOP
    SELECT * INTO s FROM seed_files ORDER BY random() LIMIT 1;
    SELECT data INTO other FROM seed_files ORDER BY random() LIMIT 1;
    -- a store entry keeps its key, a pack its id: what follows is mutated
    m := CASE WHEN s.kind = 'entry' THEN substring(s.data FOR 32) || mutate(substring(s.data FROM 33), substring(other FROM 33))
              WHEN s.kind = 'pack' THEN substring(s.data FOR 8) || mutate(substring(s.data FROM 9), substring(other FROM 9))
              ELSE mutate(s.data, other) END;
    PERFORM hostile_input(s.kind, m);
  END LOOP;
END \$\$;
SQL
	done
} | psql -q -X -v ON_ERROR_STOP=1 >/dev/null

echo "hostile inputs: $ITER mutated files/values/NBT documents"
psql -X -c "SELECT fn AS function, ok, errors FROM outcomes ORDER BY fn"
internal=$(psql -X -At -c "SELECT coalesce(sum(ok + errors), 0) FROM outcomes WHERE fn LIKE '% XX000'")
calls=$(psql -X -At -c "SELECT sum(ok + errors) FROM outcomes")
echo "calls: $calls, internal errors (XX000): $internal"
check [ "$internal" = 0 ]
psql -X -c "SELECT state, n, example FROM error_states ORDER BY n DESC"
caller=$(psql -X -At -c "SELECT coalesce(sum(n), 0) FROM error_states WHERE state IN ('23505', '02000')")
echo "errors with a caller's SQLSTATE (23505 duplicate, 02000 not found): $caller"
check [ "$caller" = 0 ]
check [ "$calls" -gt 0 ]

# no backend may have died
if [ -n "$log_file" ] && [ -f "$log_file" ]; then
	if grep -E "terminated by signal|server process .* was terminated" "$log_file"; then
		echo "FAIL: a backend died (see $log_file)"
		failed=$((failed + 1))
	else
		echo "server log: no backend terminated by a signal"
		passed=$((passed + 1))
	fi
else
	echo "FAIL: cannot find the server log to check for crashes"
	failed=$((failed + 1))
fi
check psql -X -At -c "SELECT 1" >/dev/null

# peak memory of a backend working through the hostile inputs, sampled
# from /proc while it runs
pid_file="$tmp/pid"
( psql -X -At <<'SQL' >"$pid_file" 2>/dev/null
SELECT pg_backend_pid();
\o /dev/null
SELECT setseed(0.7);
DO $$
DECLARE s record; m bytea;
BEGIN
  FOR i IN 1 .. 300 LOOP
    SELECT * INTO s FROM seed_files WHERE kind IN ('region', 'value') ORDER BY random() LIMIT 1;
    m := mutate(s.data, s.data);
    PERFORM try('memory pass', CASE s.kind WHEN 'region' THEN 'SELECT slime_import_region($1, 0, 0, strict => false)'
                               ELSE 'SELECT count(*) FROM slime_chunks(slime_unchecked($1))' END, m);
  END LOOP;
END $$;
SELECT pg_sleep(2);
SQL
) &
sleep 1
bpid=$(head -1 "$pid_file")
hwm=0
while kill -0 "$bpid" 2>/dev/null; do
	v=$(awk '/VmHWM/ {print $2}' "/proc/$bpid/status" 2>/dev/null || echo 0)
	[ -n "$v" ] && [ "$v" -gt "$hwm" ] && hwm=$v
	sleep 0.2
done
wait || true
echo "backend peak memory (VmHWM) through 300 hostile calls: $((hwm / 1024)) MB (bound: $MEM_CAP_MB MB)"
check [ "$hwm" -gt 0 ]
check [ "$((hwm / 1024))" -lt "$MEM_CAP_MB" ]

# a long call stops within a second of statement_timeout and of pg_cancel_backend
psql -q -X -v ON_ERROR_STOP=1 -v corpus="$CORPUS" <<'SQL'
CREATE TABLE big AS
-- two files moved to other regions (relocated: a lenient import) so that all four fit one world
SELECT slime_agg(slime_import_region(pg_read_binary_file(:'corpus' || '/' || p), x, z, strict => false)) AS world
FROM (VALUES ('anvil-1.18plus/querz-nbt/parsers/r.0.0.mca', 0, 0), ('anvil-1.18plus/bingley-tag/r.0.-1.mca', 0, -1),
             ('anvil-1.13-1.17/hephaistos/issue_3/r.0.0.mca', 1, 0), ('anvil-1.2-1.12/pymclevel/AnvilWorld/r.0.0.mca', 1, 1)) v(p, x, z);
SQL
long_call="SELECT slime_recompress(world, 19) FROM big"
t0=$(date +%s.%N)
out=$(psql -X -c "SET statement_timeout = '1s'" -c "$long_call" 2>&1 || true)
t1=$(date +%s.%N)
elapsed=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
echo "statement_timeout 1s: stopped after ${elapsed}s: $(echo "$out" | grep -o 'canceling statement.*' | head -1)"
check grep -q "canceling statement due to statement timeout" <<<"$out"
check lt "$elapsed" 2.0

psql -X -c "$long_call" >/dev/null 2>"$tmp/cancel.err" &
cpid=$!
sleep 1
bpid=$(psql -X -At -c "SELECT pid FROM pg_stat_activity WHERE query LIKE 'SELECT slime_recompress%' AND pid <> pg_backend_pid() LIMIT 1")
t0=$(date +%s.%N)
psql -X -At -c "SELECT pg_cancel_backend($bpid)" >/dev/null
wait "$cpid" || true
t1=$(date +%s.%N)
elapsed=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
echo "pg_cancel_backend: call ended ${elapsed}s after the cancel: $(grep -o 'canceling statement.*' "$tmp/cancel.err" | head -1)"
check grep -q "canceling statement due to user request" "$tmp/cancel.err"
check lt "$elapsed" 1.0

psql -q -X -d postgres -c "DROP DATABASE $DB"
echo "hostile: $passed passed, $failed failed"
[ "$failed" = 0 ]
