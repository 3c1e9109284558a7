#!/usr/bin/env bash
# test/fuzz/sql-replay.sh [BUILD_DIR] — put what the fuzzers found through the
# SQL functions of a running server.
#
# Every input of the libFuzzer targets that SQL can take (BUILD_DIR/fuzz-corpus
# and BUILD_DIR/fuzz-seeds, default build/, and test/fuzz/regress) goes through
# every function that reads its kind, as test/hostile.sh does with its own
# mutations (test/hostile.sql: hostile_input):
#   value      slime values (the bytes before the target's store records)
#   region     region files;  slimefile  slime files
#   nbt        NBT documents (the nbt and blocks targets; blocks' first byte
#              picks a DataVersion and is dropped)
#   schematic  schematics (schem: after its three position bytes)
# The store, codec and stream targets' inputs reach SQL inside values and
# region files only. Passes when every call returned or raised an ERROR other
# than XX000, and no backend died (the server log is read). Prints the inputs,
# the calls per function and the backends lost.
#
# Uses the cluster in the PG* environment, else starts a throwaway one (and
# installs the extension first). After a campaign:
#   nice -n 19 make fuzz FUZZ_SECONDS=1800 FUZZ_JOBS=2 && bash test/fuzz/sql-replay.sh
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cd "$SLIME_ROOT"
BUILD=$(cd "${1:-build}" && pwd -P)

if [ -z "${PGHOST:-}" ] || [ -z "${PGPORT:-}" ]; then
    slime_build_install >/dev/null
    slime_cluster_start
fi
log_file=${SLIME_SERVER_LOG:-${SLIME_PGTMP:+$SLIME_PGTMP/server.log}}
[ -n "$log_file" ] && [ -f "$log_file" ] ||
    { echo "sql-replay: cannot find the server log (set SLIME_SERVER_LOG)" >&2; exit 1; }
DB=slime_sql_replay
dropdb --if-exists "$DB" 2>/dev/null || true
createdb "$DB"
export PGDATABASE=$DB
export PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=error"
list=$(mktemp)
slime_on_exit "rm -f '$list'; dropdb --if-exists $DB 2>/dev/null || true"

# "kind|skip|path" for every input file the server can read
for t in value region slimefile nbt blocks schem; do
    case $t in
        blocks) kind=nbt skip=1 ;;
        schem) kind=schematic skip=3 ;;
        *) kind=$t skip=0 ;;
    esac
    for d in "$BUILD/fuzz-corpus/$t" "$BUILD/fuzz-seeds/$t" "$SLIME_ROOT/test/fuzz/regress/$t"; do
        [ -d "$d" ] || continue
        find "$d" -maxdepth 1 -type f -size -1024k -printf "$kind|$skip|%p\n"
    done
done >"$list"
chmod a+r "$list"
echo "sql-replay: $(wc -l <"$list") inputs from $BUILD and test/fuzz/regress"

psql -q -X -v ON_ERROR_STOP=1 -c "CREATE EXTENSION slime" -f test/hostile.sql
psql -q -X -v ON_ERROR_STOP=1 -v list="$list" -v corpus="$(slime_corpus)" <<'SQL'
CREATE TABLE inputs (id serial, kind text, data bytea);
INSERT INTO inputs (kind, data)
SELECT f[1], substring(pg_read_binary_file(f[3]) FROM f[2]::int + 1)
FROM (SELECT string_to_array(l, '|') AS f
      FROM regexp_split_to_table(pg_read_file(:'list'), E'\n') l WHERE l <> '') s;
-- a value input is the value, then the target's store records: cut it at the
-- header's total_len (u32le at byte 28) when that falls inside the input
CREATE FUNCTION u32le(b bytea, o int) RETURNS bigint LANGUAGE sql IMMUTABLE AS
  'SELECT get_byte(b, o) + get_byte(b, o + 1) * 256 + get_byte(b, o + 2) * 65536 + get_byte(b, o + 3) * 16777216::bigint';
UPDATE inputs SET data = substring(data FOR u32le(data, 28)::int)
WHERE kind = 'value' AND octet_length(data) >= 112 AND substring(data FOR 4) = 'SLIM'::bytea
  AND u32le(data, 28) BETWEEN 112 AND octet_length(data) - 1;
INSERT INTO hostile_world SELECT slime_import_region(
  pg_read_binary_file(:'corpus' || '/anvil-1.18plus/amulet-core/1_18_vanilla/r.-1.2.mca'), -1, 2);
INSERT INTO hostile_chunk SELECT slime_chunk_nbt(w, c.x, c.z) FROM hostile_world, slime_chunks(w) c LIMIT 1;
SQL
start_lines=$(wc -l <"$log_file")
t0=$SECONDS
psql -q -X -v ON_ERROR_STOP=1 <<'SQL'
DO $$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT kind, data FROM inputs ORDER BY id LOOP
    PERFORM hostile_input(r.kind, r.data);
  END LOOP;
END $$;
SQL
echo "sql-replay: $(psql -X -At -c "SELECT sum(n) || ' inputs (' || string_agg(kind || ' ' || n, ', ') || ')'
    FROM (SELECT kind, count(*) AS n FROM inputs GROUP BY kind ORDER BY kind) s") in $((SECONDS - t0)) s"
psql -X -c "SELECT fn AS function, ok, errors FROM outcomes ORDER BY fn"
calls=$(psql -X -At -c "SELECT sum(ok + errors) FROM outcomes")
internal=$(psql -X -At -c "SELECT coalesce(sum(ok + errors), 0) FROM outcomes WHERE fn LIKE '% XX000'")
lost=$(tail -n +"$((start_lines + 1))" "$log_file" | grep -cE "terminated by signal|server process .* was terminated" || true)
psql -X -c "SELECT state, n, example FROM error_states ORDER BY n DESC"
caller=$(psql -X -At -c "SELECT coalesce(sum(n), 0) FROM error_states WHERE state IN ('23505', '02000')")
echo "sql-replay: $calls calls, $internal internal errors (XX000), $caller errors with a caller's SQLSTATE (23505, 02000), $lost backends lost"
[ "$internal" = 0 ] && [ "$caller" = 0 ] && [ "$lost" = 0 ] && psql -X -At -c "SELECT 1" >/dev/null
