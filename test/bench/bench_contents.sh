#!/usr/bin/env bash
# test/bench/bench_contents.sh
#
# Contents without decoding (issue #32, part 2): block totals over every
# island against a header-only read of the same rows, and "which islands
# hold X" through a GIN index over slime_block_names, with values' contents
# summaries (0.10.0) and decoding their chunks as before
# (slime.read_summaries = off, on BENCH_BEFORE islands: decoding all of
# them takes minutes).
#
# Islands are made as the issue makes them: a 25-chunk template cut from a
# real 1.18 region of the shared corpus (prismarine-provider-anvil 1.18.2,
# chunks 0..4 x 0..4), plus one chunk of their own each (another chunk of
# the same region, taken in turn, at (5, 0), with an int tag naming the
# island so that no two are the same), saved into a table with
# slime_store_trigger() (reference form: the template's chunks stored once).
#
# Knobs (environment): BENCH_ISLANDS (10000), BENCH_RUNS (7: each timing is
# the median of that many runs, the worst beside it), BENCH_BEFORE (1000),
# BENCH_DB (slime_bench_contents), BENCH_TABLE (islands: a table with int
# id and slime world columns), BENCH_FILL (1; 0: measure BENCH_TABLE as it
# is, for test/bench/bench_scale.sh), BENCH_X (the block looked for; default:
# the block the fewest islands hold, found from the own chunks). Runs on the
# cluster named by the PG* variables, else on a throwaway one with durable
# settings (fsync, synchronous_commit and full_page_writes on). Logged
# tables. Prints a table of figures; never fails on numbers.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib.sh
. "$HERE/../lib.sh"

N=${BENCH_ISLANDS:-10000}
RUNS=${BENCH_RUNS:-7}
BEFORE=${BENCH_BEFORE:-1000}
DB=${BENCH_DB:-slime_bench_contents}
T=${BENCH_TABLE:-islands}
FILL=${BENCH_FILL:-1}
CORPUS=$(slime_corpus) || exit 1
if [ -z "${PGHOST:-}" ]; then
    SLIME_PG_CONF="fsync = on
synchronous_commit = on
full_page_writes = on
slime.loader_verify = off
${SLIME_PG_CONF:-}" slime_cluster_start
fi
q() { slime_psql -d "$DB" -At "$@"; }

if [ "$FILL" = 1 ]; then
    slime_log "bench_contents: $N islands in $DB.$T"
    dropdb --if-exists "$DB" >/dev/null 2>&1 || true
    createdb "$DB"
    q -c "CREATE EXTENSION slime" >/dev/null
    t0=$EPOCHREALTIME
    q -v corpus="$CORPUS" >/dev/null <<EOF
CREATE TABLE bench_region AS
SELECT slime_import_region(pg_read_binary_file(:'corpus' || '/anvil-1.18plus/prismarine-provider-anvil/1.18.2/r.0.0.mca'), 0, 0) AS r;
CREATE TABLE bench_template AS
SELECT slime_store(slime_agg(slime_put_chunk(NULL, c.x, c.z, slime_chunk_nbt(r, c.x, c.z)))) AS w
FROM bench_region, slime_chunks(r) c WHERE c.x BETWEEN 0 AND 4 AND c.z BETWEEN 0 AND 4;
CREATE TABLE bench_own AS
SELECT (row_number() OVER (ORDER BY c.x, c.z) - 1)::int AS k, slime_chunk_nbt(r, c.x, c.z) AS nbt
FROM bench_region, slime_chunks(r) c WHERE NOT (c.x BETWEEN 0 AND 4 AND c.z BETWEEN 0 AND 4);
CREATE TABLE $T (id int PRIMARY KEY, world slime);
CREATE TRIGGER ${T}_store BEFORE INSERT OR UPDATE ON $T FOR EACH ROW EXECUTE FUNCTION slime_store_trigger();
-- island i: the template and own chunk k = i mod 255 with an int tag "bench" = i added to its root
INSERT INTO $T
SELECT i, slime_put_chunk(t.w, 5, 0, slime_chunk_relocate(
           substr(o.nbt, 1, length(o.nbt) - 1) || '\\x03'::bytea || int2send(5::int2) || 'bench'::bytea
           || int4send(i) || '\\x00'::bytea, 5, 0))
FROM generate_series(1, $N) i JOIN bench_own o ON o.k = i % (SELECT count(*) FROM bench_own), bench_template t;
VACUUM ANALYZE;
EOF
    printf 'filled %s islands in %.1f s\n' "$N" "$(echo "$EPOCHREALTIME - $t0" | bc -l)"
fi

# the timing helpers: median and worst of runs of a query, in ms; and two
# queries run in turn (a, b, a, b, ...), each pair's ratio b / a, so that
# the load of a shared machine weighs on both alike
q >/dev/null <<'EOF'
CREATE OR REPLACE FUNCTION bench_ms(query text, runs int, OUT median float8, OUT worst float8)
LANGUAGE plpgsql AS $$
DECLARE
	t timestamptz;
	ms float8[] := '{}';
BEGIN
	FOR i IN 1 .. runs LOOP
		t := clock_timestamp();
		EXECUTE query;
		ms := ms || (extract(epoch FROM clock_timestamp() - t) * 1000)::float8;
	END LOOP;
	SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY m), max(m) INTO median, worst FROM unnest(ms) m;
END $$;
CREATE OR REPLACE FUNCTION bench_pair(a text, b text, runs int, OUT ratio float8, OUT worst float8)
LANGUAGE plpgsql AS $$
DECLARE
	t timestamptz;
	ta float8;
	r float8[] := '{}';
BEGIN
	FOR i IN 1 .. runs LOOP
		t := clock_timestamp();
		EXECUTE a;
		ta := extract(epoch FROM clock_timestamp() - t);
		t := clock_timestamp();
		EXECUTE b;
		r := r || (extract(epoch FROM clock_timestamp() - t) / ta)::float8;
	END LOOP;
	SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x), max(x) INTO ratio, worst FROM unnest(r) x;
END $$;
EOF

q -c "SELECT count(*) || ' islands, ' || round(avg(pg_column_size(world))) || ' bytes a value (' ||
      count(*) FILTER (WHERE (slime_info(world) ->> 'summary')::boolean) || ' with a summary), heap ' ||
      pg_size_pretty(pg_relation_size('$T')) || ' (' || (SELECT relpages FROM pg_class WHERE oid = '$T'::regclass) ||
      ' pages), ' || (SELECT count(*) FROM slime_store) || ' store entries' FROM $T"

X=${BENCH_X:-}
if [ -z "$X" ]; then
    # the block the fewest islands hold: a selective question
    X=$(q -c "SELECT b.block FROM (SELECT id, world FROM $T ORDER BY id LIMIT 2000) s, slime_block_counts(world) b
              GROUP BY 1 ORDER BY count(*), 1 LIMIT 1")
fi
slime_log "index: CREATE INDEX ON $T USING gin (slime_block_names(world))"
t0=$EPOCHREALTIME
q -c "SET client_min_messages = warning" -c "DROP INDEX IF EXISTS ${T}_blocks" -c "CREATE INDEX ${T}_blocks ON $T USING gin (slime_block_names(world))" \
  -c "ANALYZE $T" >/dev/null
IDX_S=$(echo "$EPOCHREALTIME - $t0" | bc -l)
IDX_SIZE=$(q -c "SELECT pg_size_pretty(pg_relation_size('${T}_blocks'))")
HOLD=$(q -c "SELECT count(*) FROM $T WHERE slime_block_names(world) @> ARRAY['$X']")

HEADER="SELECT sum((slime_info(world) ->> 'chunks')::int) FROM $T"
TOTALS="SELECT slime_block_totals(world) FROM $T"
LOOKUP="SELECT id FROM $T WHERE slime_block_names(world) @> ARRAY['$X']"
SUB="(SELECT * FROM $T ORDER BY id LIMIT $BEFORE) s"
# row LABEL SETTINGS QUERY RUNS ROWS: median and worst ms, per island
row() {
    local r
    r=$(q -c "$2" -c "SELECT round(median::numeric, 2) || ' ' || round(worst::numeric, 2) FROM bench_ms(\$q\$$3\$q\$, $4)" | tail -1)
    # shellcheck disable=SC2086
    set -- "$1" $r "$5"
    printf '%-58s %10s %10s %12.2f\n' "$1" "$2" "$3" "$(echo "$2 * 1000 / $4" | bc -l)"
}
printf '\n== Contents without decoding: %s islands, median of %s runs ==\n\n' "$(q -c "SELECT count(*) FROM $T")" "$RUNS"
printf '%-58s %10s %10s %12s\n' "" "median ms" "worst ms" "us/island"
ROWS=$(q -c "SELECT count(*) FROM $T")
row "header-only read, sum(slime_info -> chunks)" "SET max_parallel_workers_per_gather = 2" "$HEADER" "$RUNS" "$ROWS"
row "block totals, summaries (the planner's plan)" "SET max_parallel_workers_per_gather = 2" "$TOTALS" "$RUNS" "$ROWS"
row "block totals, summaries, serial" "SET max_parallel_workers_per_gather = 0" "$TOTALS" "$RUNS" "$ROWS"
row "biome totals, summaries (the planner's plan)" "SET max_parallel_workers_per_gather = 2" "SELECT slime_biome_totals(world) FROM $T" "$RUNS" "$ROWS"
row "\"holds $X\" through the index ($HOLD islands)" "SET enable_seqscan = on" "$LOOKUP" "$RUNS" "$ROWS"
row "header-only read, first $BEFORE islands" "SET max_parallel_workers_per_gather = 0" "SELECT sum((slime_info(world) ->> 'chunks')::int) FROM $SUB" "$RUNS" "$BEFORE"
row "block totals decoded (read_summaries off), first $BEFORE" "SET slime.read_summaries = off" "SELECT slime_block_totals(world) FROM $SUB" 1 "$BEFORE"
row "\"holds $X\" decoded (slime_block_counts), first $BEFORE" "SET slime.read_summaries = off" \
    "SELECT id FROM $SUB WHERE EXISTS (SELECT 1 FROM slime_block_counts(world) c WHERE c.block = '$X')" 1 "$BEFORE"
# ratio LABEL SETTINGS: block totals / header-only read, runs in turn (the header read serial)
ratio() {
    q -c "$2" -c "SELECT round(ratio::numeric, 2) || ' (worst pair ' || round(worst::numeric, 2) || ')'
                  FROM bench_pair(\$q\$$HEADER\$q\$, \$q\$$TOTALS\$q\$, $RUNS)" | tail -1 |
        sed "s/^/block totals \/ header-only read, $1 (target <= 3): /"
}
echo
ratio "the planner's plan" "SET max_parallel_workers_per_gather = 2"
ratio "both serial" "SET max_parallel_workers_per_gather = 0"
printf 'GIN index over slime_block_names: %s, built in %.1f s\n' "$IDX_SIZE" "$IDX_S"

printf '\n== Plans (max_parallel_workers_per_gather = 2) ==\n'
q -c "EXPLAIN (COSTS OFF) $TOTALS"
printf -- '-- with the totals function costs of 0.9.0 (COST 1; 0.10.0: COST 100):\n'
q -c "BEGIN" -c "ALTER FUNCTION slime_block_totals_transfn(internal, slime) COST 1" -c "EXPLAIN (COSTS OFF) $TOTALS" -c "ROLLBACK"
q -c "EXPLAIN (COSTS OFF) $LOOKUP"
