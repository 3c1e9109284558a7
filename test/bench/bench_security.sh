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
# Each cell is timed inside the server (clock_timestamp around a loop), best
# of BENCH_ROUNDS (3), A and B alternating. Logged tables; the cluster named
# by the PG* variables or a throwaway one. Prints a table; never fails on numbers.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib.sh
. "$HERE/../lib.sh"

CALLS=${BENCH_CALLS:-2000}
TABLES=${BENCH_TABLES:-500}
ROUNDS=${BENCH_ROUNDS:-3}
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

best() { # best SQL: the smallest of ROUNDS runs of a psql -At query
    local b="" v i
    for ((i = 0; i < ROUNDS; i++)); do
        v=$(psql -X -At -c "$1")
        if [ -z "$b" ] || awk -v a="$v" -v b="$b" 'BEGIN { exit !(a < b) }'; then b=$v; fi
    done
    echo "$b"
}
renew="SELECT time_ms('SELECT slime_lease_renew(''isl'', ''w'', 1, ''1 hour'')', $CALLS)"
save="SELECT time_ms('SELECT slime_loader_save(''isl'', ''w'', 1, (SELECT f FROM island), keep => 1)', $((CALLS / 4)))"
psql -X -q -c "SELECT pin(false)"; r_off=$(best "$renew"); s_off=$(best "$save")
psql -X -q -c "SELECT pin(true)"; r_on=$(best "$renew"); s_on=$(best "$save")
psql -X -q -c "SELECT pin(false)"; r_off2=$(best "$renew"); s_off2=$(best "$save")
psql -X -q -c "SELECT pin(true)"
gc_old=$(best "SELECT time_ms('SELECT slime_gc_040()', 1)")
gc_new=$(best "SELECT time_ms('SELECT slime_gc()', 1)")
gc_old2=$(best "SELECT time_ms('SELECT slime_gc_040()', 1)")

min() { awk -v a="$1" -v b="$2" 'BEGIN { print (a < b) ? a : b }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", a / b }'; }
r_off=$(min "$r_off" "$r_off2"); s_off=$(min "$s_off" "$s_off2"); gc_old=$(min "$gc_old" "$gc_old2")
printf '\n%-52s %12s %12s %8s\n' "what (best of $ROUNDS)" "unhardened" "hardened" "ratio"
printf '%-52s %10s ms %10s ms %8s\n' "$CALLS x slime_lease_renew" "$r_off" "$r_on" "$(ratio "$r_on" "$r_off")"
printf '%-52s %10s ms %10s ms %8s\n' "$((CALLS / 4)) x slime_loader_save (4-chunk island, keep 1)" "$s_off" "$s_on" "$(ratio "$s_on" "$s_off")"
printf '%-52s %10s ms %10s ms %8s\n' "slime_gc(), $TABLES tables (0.4.0 body vs 0.5.0)" "$gc_old" "$gc_new" "$(ratio "$gc_new" "$gc_old")"
