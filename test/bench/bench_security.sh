#!/usr/bin/env bash
# test/bench/bench_security.sh
#
# What the hardening of issue #25 costs, as ratios against the unhardened
# form measured in the same run:
#   1. the pinned search_path (SET clause) on the loader's plpgsql functions:
#      BENCH_CALLS (2000) slime_lease_renew calls (the cheapest call) and
#      BENCH_CALLS / 4 slime_loader_save calls of a 4-chunk island, pinned
#      against the same functions with the SET clause removed;
#   2. slime_gc() over BENCH_TABLES (500) tables with a slime column (one
#      reference-form value each: the per-table lock wait and the cast to the
#      extension's type are the new costs) against 0.4.0's slime_gc body.
#   3. the loader's access boundary (0.6.0): slime_lease_renew through its
#      check of the caller's privilege and the switch to the loader's owner
#      (src/lguard.c) against its twin slime_lease_renew_as_owner called
#      directly (the same body, no check, no switch);
#   4. what binding store reads to the role that stored an entry would add
#      (not built, README "Security"): reading a 16-chunk reference-form
#      value (slime_resolve) against the same read after a lookup of each of
#      its chunks in an owner table (hash, role), emulated in SQL.
# Each cell is timed inside the server (clock_timestamp around a loop),
# BENCH_ROUNDS (5) pairs of A then B: the best time of each and the median
# of the pairs' ratios. Logged tables; the cluster named
# by the PG* variables or a throwaway one. Prints a table; never fails on numbers.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib.sh
. "$HERE/../lib.sh"

CALLS=${BENCH_CALLS:-2000}
TABLES=${BENCH_TABLES:-500}
ROUNDS=${BENCH_ROUNDS:-5}
[ -n "${PGHOST:-}" ] || slime_cluster_start
DB=slime_bench_security
dropdb --if-exists "$DB" >/dev/null 2>&1 || true
createdb "$DB"
slime_on_exit "dropdb --if-exists '$DB' >/dev/null 2>&1 || true"
export PGDATABASE=$DB

# 0.4.0's slime_gc(), as slime_gc_040, from its upgrade script
old_gc=$(sed -n '/^CREATE OR REPLACE FUNCTION slime_gc(/,/^\$\$;/p' "$SLIME_ROOT/sql/slime--0.3.0--0.4.0.sql" |
    sed -e 's/FUNCTION slime_gc(/FUNCTION slime_gc_040(/' -e 's/@extschema@/public/g')
slime_psql >/dev/null <<EOF
CREATE EXTENSION slime;
$old_gc
CREATE FUNCTION chunk(n integer) RETURNS slime LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS \$\$ SELECT public.slime_put_chunk(NULL, n % 2, n / 2,
    '\x0a000003000b4461746156657273696f6e00000e740300016e'::bytea || int4send(n) || '\x00'::bytea) \$\$;
SELECT slime_loader_create('isl');
SELECT slime_lease_acquire('isl', 'w', 'bench', '1 hour');
CREATE TABLE island AS SELECT slime_to_slimefile(slime_agg(chunk(n))) AS f FROM generate_series(0, 3) n;
CREATE TABLE refval AS SELECT slime_store(slime_agg(chunk(n))) AS v FROM generate_series(0, 15) n;
CREATE TABLE owners (hash bytea, role oid, PRIMARY KEY (hash, role));
INSERT INTO owners SELECT h, r FROM refval, unnest(slime_refs(v)) h, generate_series(10, 40) r;
DO \$\$
BEGIN
    FOR i IN 1..$TABLES LOOP
        EXECUTE format('CREATE TABLE t%s (w slime)', i);
        EXECUTE format('INSERT INTO t%s VALUES (slime_store(chunk(%s)))', i, i);
    END LOOP;
END \$\$;
-- time_ms(sql, n): milliseconds for n runs of sql, inside the server
CREATE FUNCTION time_ms(sql text, n integer) RETURNS numeric LANGUAGE plpgsql AS \$\$
DECLARE t0 timestamptz := clock_timestamp();
BEGIN
    FOR i IN 1..n LOOP EXECUTE sql; END LOOP;
    RETURN round(extract(epoch FROM clock_timestamp() - t0)::numeric * 1000, 1);
END \$\$;
-- pin(on): the loader functions with or without their SET search_path clause
CREATE FUNCTION pin(pinned boolean) RETURNS void LANGUAGE plpgsql AS \$\$
DECLARE f regprocedure;
BEGIN
    FOR f IN SELECT p.oid FROM pg_proc p WHERE p.proname ~ '^slime_(loader|lease)_' AND p.prolang <> 13 LOOP
        EXECUTE format(CASE WHEN pinned THEN 'ALTER FUNCTION %s SET search_path = pg_catalog, pg_temp'
                            ELSE 'ALTER FUNCTION %s RESET search_path' END, f);
    END LOOP;
END \$\$;
VACUUM ANALYZE;
EOF

t() { psql -X -At -c "$1"; }
# cell LABEL SQL_A SQL_B [SETUP_A SETUP_B]: ROUNDS pairs, A then B (after
# SETUP_A / SETUP_B); prints the best time of each and the median of the
# per-pair ratios B/A (pairs measured back to back share the machine's load)
cell() {
    local label=$1 a=$2 b=$3 sa=${4:-} sb=${5:-} i ta tb ratios=() besta="" bestb=""
    for ((i = 0; i < ROUNDS; i++)); do
        [ -z "$sa" ] || psql -X -q -c "$sa" >/dev/null
        ta=$(t "$a")
        [ -z "$sb" ] || psql -X -q -c "$sb" >/dev/null
        tb=$(t "$b")
        ratios+=("$(awk -v a="$ta" -v b="$tb" 'BEGIN { printf "%.3f", b / a }')")
        besta=$(awk -v x="$ta" -v y="${besta:-$ta}" 'BEGIN { print (x < y) ? x : y }')
        bestb=$(awk -v x="$tb" -v y="${bestb:-$tb}" 'BEGIN { print (x < y) ? x : y }')
    done
    printf '%-52s %10s ms %10s ms %8sx\n' "$label" "$besta" "$bestb" \
        "$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{ r[NR] = $1 } END { printf "%.2f", r[int((NR + 1) / 2)] }')"
}
renew="SELECT time_ms('SELECT slime_lease_renew(''isl'', ''w'', 1, ''1 hour'')', $CALLS)"
save="SELECT time_ms('SELECT slime_loader_save(''isl'', ''w'', 1, (SELECT f FROM island), keep => 1)', $((CALLS / 4)))"
printf '\n%-52s %13s %13s %9s\n' "what (best of $ROUNDS; median ratio)" "unhardened" "hardened" "ratio"
cell "$CALLS x slime_lease_renew" "$renew" "$renew" "SELECT pin(false)" "SELECT pin(true)"
cell "$((CALLS / 4)) x slime_loader_save (4-chunk island, keep 1)" "$save" "$save" "SELECT pin(false)" "SELECT pin(true)"
cell "$CALLS x slime_lease_renew: twin vs access check (0.6.0)" \
    "SELECT time_ms('SELECT slime_lease_renew_as_owner(''isl'', ''w'', 1, ''1 hour'')', $CALLS)" "$renew"
read="SELECT time_ms('SELECT slime_resolve(v) FROM refval', $((CALLS / 4)))"
bound="SELECT time_ms('SELECT slime_resolve(v) FROM refval WHERE NOT EXISTS (SELECT FROM unnest(slime_refs(v)) h
    WHERE NOT EXISTS (SELECT FROM owners o WHERE o.hash = h AND o.role = 10))', $((CALLS / 4)))"
cell "$((CALLS / 4)) x read 16 chunks: plain vs owner lookup (emulated)" "$read" "$bound"
cell "slime_gc(), $TABLES tables (0.4.0 body vs 0.5.0)" "SELECT time_ms('SELECT slime_gc_040()', 1)" \
    "SELECT time_ms('SELECT slime_gc()', 1)"
