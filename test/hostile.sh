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

psql -q -X -v ON_ERROR_STOP=1 -v corpus="$CORPUS" <<'SQL'
CREATE EXTENSION slime;
-- a constructor that skips the input check, as damage on disk would:
-- the accessors must stand any bytes, not only checked ones
CREATE FUNCTION slime_unchecked(bytea) RETURNS slime AS 'slime', 'slime_to_bytea' LANGUAGE C STRICT;

CREATE TABLE seed_files (id serial, kind text, data bytea);
INSERT INTO seed_files (kind, data)
SELECT 'region', pg_read_binary_file(:'corpus' || '/' || p) FROM unnest(ARRAY[
  'anvil-1.13-1.17/querz-nbt/r.0.0.mca', 'anvil-1.18plus/querz-nbt/21w44a/r.-1.-1.mca',
  'anvil-1.13-1.17/mcaselector/import-source/r.-1.-1.mca', 'anvil-1.18plus/amulet-core/1_18_vanilla/r.-1.2.mca',
  'poi/amulet-core/1_18_vanilla/r.1.1.mca', 'entities-1.17plus/amulet-core/1_17_1_superflat/r.0.0.mca',
  'damaged/twoolie-nbt/regiontest.mca', 'damaged/querz-nbt/r.2.2.mca']) p;
INSERT INTO seed_files (kind, data)
SELECT 'value', slime_import_region(data, 0, 0, strict => false)::bytea FROM seed_files WHERE kind = 'region';
-- the same values at the archive level: mutations reach the block codec's decoder
INSERT INTO seed_files (kind, data)
SELECT 'value', slime_recompress(slime_import_region(data, 0, 0, strict => false), 20)::bytea
FROM seed_files WHERE kind = 'region';
INSERT INTO seed_files (kind, data)
SELECT 'nbt', slime_chunk_nbt(slime_import_region(data, 0, 0, strict => false), c.x, c.z)
FROM seed_files s, slime_chunks(slime_import_region(s.data, 0, 0, strict => false)) c
WHERE s.kind = 'region' LIMIT 20;
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
CREATE TABLE schem_world AS SELECT slime_import_region(
  pg_read_binary_file(:'corpus' || '/anvil-1.18plus/amulet-core/1_18_vanilla/r.-1.2.mca'), -1, 2) AS w;
-- chunk store entries, key || entry: as saves write them (zstd) and as
-- slime_settle() leaves them (the dense form, zstd-19); hostile_store's value
-- refers to them, so a damaged entry is also read through the value
CREATE TABLE hostile_store (id int, world slime);
CREATE TRIGGER hostile_store_store BEFORE INSERT ON hostile_store
  FOR EACH ROW EXECUTE FUNCTION slime_store_trigger();
INSERT INTO hostile_store SELECT 1, slime_import_region(
  pg_read_binary_file(:'corpus' || '/anvil-1.18plus/amulet-core/1_18_vanilla/r.-1.2.mca'), -1, 2);
INSERT INTO seed_files (kind, data) SELECT 'entry', hash || data FROM slime_store ORDER BY hash LIMIT 6;
SELECT count(*) FROM slime_settle('0');
INSERT INTO seed_files (kind, data)
SELECT 'entry', hash || data FROM slime_store WHERE get_byte(data, 0) = 1 ORDER BY hash LIMIT 10;
-- the entry under key k replaced by e while one chunk of the value is read
-- through it, then put back (an error rolls the replacement back with it)
CREATE FUNCTION read_through(k bytea, e bytea) RETURNS void LANGUAGE plpgsql AS $$
DECLARE old bytea;
BEGIN
  UPDATE slime_store s SET data = e FROM slime_store o WHERE s.hash = k AND o.hash = k RETURNING o.data INTO old;
  PERFORM octet_length(slime_chunk_nbt(h.world, c.x, c.z)), (SELECT count(*) FROM slime_block_counts(slime_put_chunk(NULL, c.x, c.z, slime_chunk_nbt(h.world, c.x, c.z))))
    FROM hostile_store h, slime_chunks(h.world) c WHERE c.hash = k;
  UPDATE slime_store SET data = old WHERE hash = k;
END $$;
DELETE FROM seed_files WHERE data IS NULL;

-- one mutation of b: bit flip, truncation, splice, a length field set to
-- 0, -1 or 2^31-1, or a random overwrite
CREATE FUNCTION mutate(b bytea, other bytea) RETURNS bytea LANGUAGE plpgsql AS $$
DECLARE
  n int := octet_length(b);
  k int := floor(random() * 6);
  o int;
BEGIN
  IF n = 0 THEN RETURN other; END IF;
  -- aim half the mutations at the header, where the lengths and offsets live
  o := CASE WHEN random() < 0.5 THEN floor(random() * least(n, 8192)) ELSE floor(random() * n) END;
  CASE k
    WHEN 0 THEN RETURN set_byte(b, o, get_byte(b, o) # (1 << floor(random() * 8)::int));
    WHEN 1 THEN RETURN substring(b FROM 1 FOR o);
    WHEN 2 THEN RETURN substring(b FROM 1 FOR o) || substring(other FROM floor(random() * octet_length(other))::int + 1);
    WHEN 3 THEN RETURN overlay(b PLACING (ARRAY['\x00000000'::bytea, '\xffffffff', '\x7fffffff', '\xffffff7f'])[1 + floor(random() * 4)::int]
                              FROM least(o, greatest(n - 4, 0)) + 1);
    WHEN 4 THEN RETURN overlay(b PLACING decode(md5(random()::text) || md5(random()::text), 'hex') FROM o + 1);
    ELSE RETURN set_byte(set_byte(b, o, get_byte(b, o) # 255), (o * 7919) % n, floor(random() * 256)::int);
  END CASE;
END $$;

CREATE TABLE outcomes (fn text, ok bigint DEFAULT 0, errors bigint DEFAULT 0, PRIMARY KEY (fn));

-- NBT that converts to JSON must come back from JSON as the same tree:
-- any failure there is a bug, reported as an internal error
CREATE FUNCTION json_invariant(b bytea) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  j jsonb := slime_nbt_to_json(b);
BEGIN
  BEGIN
    IF slime_nbt_to_json(slime_json_to_nbt(j)) IS DISTINCT FROM j THEN
      RAISE EXCEPTION 'JSON round trip changed the tree';
    END IF;
  EXCEPTION WHEN others THEN
    RAISE EXCEPTION 'JSON round trip failed: %', SQLERRM USING ERRCODE = 'XX000';
  END;
END $$;

-- call one function on one input; count its result or error
CREATE FUNCTION try(p_fn text, p_sql text, p_arg bytea) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  BEGIN
    EXECUTE p_sql USING p_arg;
    INSERT INTO outcomes VALUES (p_fn, 1, 0) ON CONFLICT ON CONSTRAINT outcomes_pkey DO UPDATE SET ok = outcomes.ok + 1;
  EXCEPTION WHEN others THEN
    -- an internal error (XX000) would mean an unhandled case: count it apart
    IF SQLSTATE = 'XX000' THEN
      RAISE WARNING 'internal error in %: %', p_fn, SQLERRM;
      p_fn := p_fn || ' XX000';
    END IF;
    INSERT INTO outcomes VALUES (p_fn, 0, 1) ON CONFLICT ON CONSTRAINT outcomes_pkey DO UPDATE SET errors = outcomes.errors + 1;
  END;
END $$;
SQL

psql -q -X -v ON_ERROR_STOP=1 -v iter="$ITER" <<'SQL'
SET hostile.iter = :'iter';
SELECT setseed(0.42);
DO $$
DECLARE
  s record;
  other bytea;
  m bytea;
  i int;
BEGIN
  FOR i IN 1 .. current_setting('hostile.iter')::int LOOP
    SELECT * INTO s FROM seed_files ORDER BY random() LIMIT 1;
    SELECT data INTO other FROM seed_files ORDER BY random() LIMIT 1;
    m := mutate(s.data, other);
    IF s.kind = 'region' THEN
      PERFORM try('slime_import_region', 'SELECT slime_import_region($1, 0, 0)', m);
      PERFORM try('slime_import_region lenient', 'SELECT slime_info(slime_import_region($1, 0, 0, strict => false))', m);
      PERFORM try('slime_import_region entities', 'SELECT slime_import_region(NULL, 0, 0, entities => $1, strict => false)', m);
      PERFORM try('export after lenient import', 'SELECT slime_export_region(slime_import_region($1, 0, 0, strict => false), 0, 0)', m);
      PERFORM try('slime_import_region external', 'SELECT slime_import_region($1, 0, 0, strict => false, external => ARRAY[slime_mcc(0, 0, $1)])', m);
    ELSIF s.kind = 'slimefile' THEN
      PERFORM try('slime_from_slimefile', 'SELECT slime_info(slime_from_slimefile($1))', m);
      PERFORM try('slime_to_slimefile(slime_from_slimefile)', 'SELECT slime_to_slimefile(slime_from_slimefile($1))', m);
    ELSIF s.kind = 'entry' THEN
      m := substring(s.data FOR 32) || mutate(substring(s.data FROM 33), substring(other FROM 33));
      PERFORM try('slime_store_entry_check', 'SELECT slime_store_entry_check(substring($1 FOR 32), substring($1 FROM 33))', m);
      PERFORM try('slime_store_entry_settle', 'SELECT slime_store_entry_settle(substring($1 FOR 32), substring($1 FROM 33))', m);
      PERFORM try('read through a damaged entry', 'SELECT read_through(substring($1 FOR 32), substring($1 FROM 33))', m);
    ELSIF s.kind = 'schematic' THEN
      PERFORM try('slime_paste', 'SELECT slime_paste((SELECT w FROM schem_world), $1, -30, 60, 1030)', m);
    ELSIF s.kind = 'value' THEN
      PERFORM try('bytea::slime', 'SELECT $1::slime', m);
      PERFORM try('slime_in', 'SELECT (''\x'' || encode($1, ''hex''))::slime', m);
      PERFORM try('slime_info unchecked', 'SELECT slime_info(slime_unchecked($1))', m);
      PERFORM try('slime_chunks unchecked', 'SELECT count(*) FROM slime_chunks(slime_unchecked($1))', m);
      PERFORM try('slime_chunk_nbt unchecked', 'SELECT slime_chunk_nbt(slime_unchecked($1), 0, 0)', m);
      PERFORM try('slime_export_region unchecked', 'SELECT slime_export_region(slime_unchecked($1), 0, 0)', m);
      PERFORM try('slime_regions unchecked', 'SELECT count(*) FROM slime_regions(slime_unchecked($1))', m);
      PERFORM try('slime_level unchecked', 'SELECT slime_level(slime_unchecked($1))', m);
      PERFORM try('slime_merge unchecked', 'SELECT slime_merge(slime_unchecked($1))', m);
      PERFORM try('slime_recompress unchecked', 'SELECT slime_recompress(slime_unchecked($1), 1)', m);
      PERFORM try('slime = unchecked', 'SELECT slime_unchecked($1) = slime_unchecked($1)', m);
      PERFORM try('slime_verify unchecked', 'SELECT slime_verify(slime_unchecked($1))', m);
      PERFORM try('slime_block_totals unchecked', 'SELECT slime_block_totals(slime_unchecked($1))', m);
      PERFORM try('slime_chunk_json unchecked', 'SELECT slime_chunk_json(slime_unchecked($1), 0, 0)', m);
      PERFORM try('slime_to_slimefile unchecked', 'SELECT slime_to_slimefile(slime_unchecked($1))', m);
      PERFORM try('slime_extract unchecked', 'SELECT slime_extract(slime_unchecked($1), -40, 0, -40, 40, 100, 40)', m);
      PERFORM try('slime_store unchecked', 'SELECT slime_info(slime_store(slime_unchecked($1)))', m);
      PERFORM try('slime_resolve unchecked', 'SELECT slime_info(slime_resolve(slime_unchecked($1)))', m);
      PERFORM try('slime_refs unchecked', 'SELECT slime_refs(slime_unchecked($1))', m);
      PERFORM try('slime_render_map unchecked', 'SELECT slime_render_map(slime_unchecked($1))', m);
    ELSE
      PERFORM try('slime_nbt_to_json', 'SELECT slime_nbt_to_json($1)', m);
      PERFORM try('json round trip', 'SELECT json_invariant($1)', m);
      PERFORM try('slime_block_counts', 'SELECT count(*) FROM slime_block_counts(slime_put_chunk(NULL, 0, 0, $1))', m);
      PERFORM try('slime_biome_counts', 'SELECT count(*) FROM slime_biome_counts(slime_put_chunk(NULL, 0, 0, $1))', m);
      PERFORM try('slime_block', 'SELECT slime_block(slime_put_chunk(NULL, 0, 0, $1), 3, 64, 5)', m);
      PERFORM try('slime_render_map', 'SELECT slime_render_map(slime_put_chunk(NULL, 0, 0, $1), scale => 2)', m);
      PERFORM try('slime_render_map_colors y_max', 'SELECT slime_render_map_colors(slime_put_chunk(NULL, 0, 0, $1), 40)', m);
      PERFORM try('slime_block_entities', 'SELECT count(*) FROM slime_block_entities(slime_put_chunk(NULL, 0, 0, $1))', m);
      PERFORM try('slime_entities', 'SELECT count(*) FROM slime_entities(slime_put_chunk(NULL, 0, 0, $1))', m);
      PERFORM try('slime_put_chunk', 'SELECT slime_put_chunk(NULL, 0, 0, $1)', m);
      PERFORM try('slime_extract', 'SELECT slime_extract(slime_put_chunk(NULL, 0, 0, $1), 0, -64, 0, 15, 319, 15)', m);
      PERFORM try('slime_with_level', 'SELECT slime_with_level(slime_put_chunk(NULL, 0, 0, (SELECT data FROM seed_files WHERE kind = ''nbt'' LIMIT 1)), $1)', m);
    END IF;
  END LOOP;
END $$;
SQL

echo "hostile inputs: $ITER mutated files/values/NBT documents"
psql -X -c "SELECT fn AS function, ok, errors FROM outcomes ORDER BY fn"
internal=$(psql -X -At -c "SELECT coalesce(sum(ok + errors), 0) FROM outcomes WHERE fn LIKE '% XX000'")
calls=$(psql -X -At -c "SELECT sum(ok + errors) FROM outcomes")
echo "calls: $calls, internal errors (XX000): $internal"
check [ "$internal" = 0 ]
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
SELECT slime_agg(slime_import_region(pg_read_binary_file(:'corpus' || '/' || p), x, z)) AS world
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
