#!/usr/bin/env bash
# test/bench/bench_gc.sh
#
# Store saves while slime_gc() runs: save latency (p50, p99, max) and rate
# with no GC, with slime_gc() running back to back, and with the GC of
# extension 0.3.0 emulated (the same function called with the store locked
# SHARE ROW EXCLUSIVE first, as 0.3.0's slime_gc() locked it for its whole
# scan). Saves are pgbench clients (BENCH_CLIENTS, 2) inserting a copy of one
# of 21 corpus islands (self-contained values of 5x5 chunks) into a table
# with slime_store_trigger(), so every save hashes its chunks and finds
# them in the store; the GC scans those rows and BENCH_GC_ROWS (100,000)
# reference-form values in a second table. Each cell runs BENCH_SECONDS (20).
# Logged tables; the cluster named by the PG* variables or a throwaway one.
# Prints a table; never fails on numbers.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib.sh
. "$HERE/../lib.sh"

SECS=${BENCH_SECONDS:-20}
CLIENTS=${BENCH_CLIENTS:-2}
ROWS=${BENCH_GC_ROWS:-100000}
CORPUS=$(slime_corpus) || exit 1
[ -n "${PGHOST:-}" ] || slime_cluster_start
WORK=$(mktemp -d /tmp/slime-benchgc.XXXXXX)
chmod 777 "$WORK"
slime_on_exit "rm -rf '$WORK'"
DB=slime_bench_gc

slime_log "bench_gc: $ROWS reference-form values and the seed islands in database $DB"
dropdb --if-exists "$DB" >/dev/null 2>&1 || true
createdb "$DB"
slime_psql -d "$DB" -c "CREATE EXTENSION slime" >/dev/null
slime_psql -d "$DB" -v corpus="$CORPUS" -f "$HERE/seed_islands.sql" >/dev/null
slime_psql -d "$DB" >/dev/null <<EOF
CREATE TABLE saves (id bigserial PRIMARY KEY, island int, world slime);
CREATE TRIGGER saves_store BEFORE INSERT OR UPDATE ON saves
    FOR EACH ROW EXECUTE FUNCTION slime_store_trigger();
INSERT INTO saves (island, world) SELECT id, world FROM seeds;
CREATE TABLE archive (id int, world slime);
INSERT INTO archive SELECT g, s.world FROM generate_series(1, $ROWS) g
    JOIN saves s ON s.island = 1 + g % (SELECT count(*) FROM seeds);
-- garbage for the first GC: saves of islands with one chunk changed, deleted
INSERT INTO saves (island, world)
SELECT id, slime_put_chunk(world, 0, 0, slime_json_to_nbt(slime_chunk_json(world, 0, 0) || jsonb_build_object('g', g)))
FROM seeds, generate_series(1, 20) g WHERE slime_chunk_nbt(world, 0, 0) IS NOT NULL;
DELETE FROM saves WHERE id > (SELECT count(*) FROM seeds);
VACUUM ANALYZE;
EOF
NSEEDS=$(slime_psql -d "$DB" -At -c "SELECT count(*) FROM seeds")
slime_psql -d "$DB" -At -c "SELECT count(*) || ' seeds, ' || sum(length(world::bytea)) / count(*) || ' bytes each on average; '
    || (SELECT count(*) FROM slime_store) || ' store entries' FROM seeds"

cat >"$WORK/save.sql" <<EOF
\\set i random(1, $NSEEDS)
INSERT INTO saves (island, world) SELECT id, world FROM seeds WHERE id = :i;
EOF

# gc_loop MODE: slime_gc() back to back until $WORK/stop exists; logs durations
gc_loop() {
    local sql
    if [ "$1" = locked ]; then
        sql="BEGIN; LOCK TABLE slime_store IN SHARE ROW EXCLUSIVE MODE; SELECT * FROM slime_gc(); COMMIT;"
    else
        sql="SELECT * FROM slime_gc();"
    fi
    while [ ! -e "$WORK/stop" ]; do
        local t0=$EPOCHREALTIME
        slime_psql -d "$DB" -At -c "$sql" >>"$WORK/gc-$1.out"
        echo "$t0 $EPOCHREALTIME" >>"$WORK/gc-$1.times"
    done
}

# cell LABEL MODE: pgbench saves for SECS with GC mode MODE (none, twophase, locked)
cell() {
    local label=$1 mode=$2 gcpid="" dir="$WORK/$2"
    mkdir -p "$dir" && chmod 777 "$dir"
    rm -f "$WORK/stop"
    slime_psql -d "$DB" -c "DELETE FROM saves WHERE id > $NSEEDS" -c "VACUUM saves" >/dev/null
    if [ "$mode" != none ]; then
        gc_loop "$mode" &
        gcpid=$!
        sleep 0.5
    fi
    (cd "$dir" && pgbench -n -c "$CLIENTS" -j "$CLIENTS" -T "$SECS" -f "$WORK/save.sql" -l "$DB" \
        >"$dir/pgbench.out" 2>&1) || { cat "$dir/pgbench.out" >&2; return 1; }
    touch "$WORK/stop"
    [ -z "$gcpid" ] || wait "$gcpid"
    # pgbench log: client tx latency_us script epoch epoch_us
    cat "$dir"/pgbench_log.* | awk '{ print $3 / 1000 }' | sort -n >"$dir/lat"
    awk -v l="$label" -v s="$SECS" -v gc="$WORK/gc-$mode.times" '
        { v[NR] = $1 }
        END {
            n = NR; p50 = v[int(n * 0.50) + 1]; p99 = v[int(n * 0.99) + 1]; mx = v[n]
            runs = 0; tot = 0; gmax = 0
            while ((getline line < gc) > 0) { split(line, t, " "); d = t[2] - t[1]; runs++; tot += d; if (d > gmax) gmax = d }
            printf "%-40s %8.1f %9.2f %9.2f %9.1f %6d %10s\n", l, n / s, p50, p99, mx, runs,
                   runs ? sprintf("%.2f", tot / runs) : "-"
        }' "$dir/lat"
}

printf '\n== Saves while slime_gc() runs (%s clients, %s s per cell, %s + %s rows scanned) ==\n\n' \
    "$CLIENTS" "$SECS" "$ROWS" "$NSEEDS"
printf '%-40s %8s %9s %9s %9s %6s %10s\n' "" "saves/s" "p50 ms" "p99 ms" "max ms" "GCs" "GC s avg"
cell "no GC" none
cell "slime_gc(), two phases, back to back" twophase
cell "0.3.0's GC (store locked for the scan)" locked
printf '\nfirst GC of the run removed: '
head -1 "$WORK/gc-twophase.out" 2>/dev/null || echo "-"
dropdb "$DB"
