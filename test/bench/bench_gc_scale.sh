#!/usr/bin/env bash
# test/bench/bench_gc_scale.sh — slime_gc() and slime_settle() as a network
# grows (issue #32): maintenance must cost what changed since its last run.
#
# Islands as the issue makes them: a 25-chunk template cut from a real 1.18
# region (prismarine-provider-anvil/1.18.2/r.0.0.mca, chunks 0..4 x 0..4),
# plus one chunk of their own (the region's chunk (0,5) moved to a place of
# the island's own), saved through slime_store_trigger() into a tracked
# table (slime_track), and the same islands as the worlds of a loader (its
# saves table and its <name>_worlds rows filled directly, each world's file
# in the cold form slime_settle() leaves). One database grows through
# BENCH_SIZES (default "2000 8000 10000 100000"); at each size, on durable
# settings (fsync, synchronous_commit, full_page_writes on; logged tables):
#   gc idle      slime_gc() with nothing to do (median of 3 runs)
#   gc 0.9.0     0.9.0's slime_gc() (its SQL, kept in the database as
#                bench_gc_0_9) with nothing to do, up to BENCH_OLD_MAX
#                islands (8000: it is quadratic, 2.6 hours at 100,000)
#   gc saves     slime_gc() after BENCH_SAVES (1,000) saves: that many
#                islands' own chunk replaced (one statement): as many new
#                entries and as many garbage; their loader worlds given a new
#                save (the older one pruned), BENCH_WARM (100) of them a warm
#                (version 13) file
#   settle idle  slime_settle(older_than => '0') with nothing to do (median of 3)
#   settle saves slime_settle(older_than => '0') after those saves: the new
#                entries packed, the warm files put in their cold form (each
#                costs the cold form's zstd-19, ~0.1 s: hence only 100)
# and what a collection after saves read (removed, candidates, values read;
# rows read from the islands, the loader's tables and the store, from
# pg_stat_xact_all_tables). Then, at the largest size, save latency
# (pgbench, BENCH_CLIENTS clients, BENCH_SECONDS each; a save is an UPDATE
# of one island's own chunk): alone, while slime_gc() runs back to back in
# one session (on 2 cores it takes one of them from 2 saving clients), and
# while slime_gc() and slime_settle(older_than => '0') each run every second.
# The lock>20ms column counts saves that waited more than 20 ms for a lock
# (log_lock_waits).
#
#     bash test/bench/bench_gc_scale.sh     # as root, repo root; a throwaway
#                                           # cluster of its own
#
# Ratios printed: gc saves at each size against the first size at or above
# 10,000 (target: <= 2x at the largest), p99 beside the maintenance against
# alone (target <= 2x). Never fails on numbers. SLIME_BENCH_BUILT=1 skips the
# build. About 15 minutes at the default sizes on 2 shared cores, most of it
# building 100,000 islands and their loader worlds.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib.sh
. "$HERE/../lib.sh"
cd "$SLIME_ROOT"

read -r -a SIZES <<<"${BENCH_SIZES:-2000 8000 10000 100000}"
OLD_MAX=${BENCH_OLD_MAX:-8000}
SAVES=${BENCH_SAVES:-1000}
WARM=${BENCH_WARM:-100}
SECS=${BENCH_SECONDS:-20}
CLIENTS=${BENCH_CLIENTS:-2}
DB=slime_bench_gc_scale

slime_bench_begin gcscale
[ -n "${work:-}" ] && [ -d "$work" ] || { echo "bench_gc_scale: no work directory" >&2; exit 1; }
CORPUS=$(slime_corpus) || exit 1
if [ -z "${PGHOST:-}" ]; then
    SLIME_PG_CONF=$'fsync = on\nsynchronous_commit = on\nfull_page_writes = on\nshared_buffers = 256MB\nmax_wal_size = 4GB\nlog_lock_waits = on\ndeadlock_timeout = 20ms\nlog_line_prefix = '"'"'%m [%p] %a '"'"''
    slime_cluster_start
else
    slime_warn "using the cluster of PGHOST=$PGHOST: its fsync and synchronous_commit settings apply"
fi
chmod 777 "$work"
q() { slime_psql -d "$DB" -At -F ' ' "$@"; }
# ms SQL: the time of one statement in milliseconds (psql \timing)
ms() { q -c '\timing on' -c "$1" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -n 1; }
median3() { printf '%s\n' "$@" | sort -n | sed -n 2p; }

slime_log "bench_gc_scale: database $DB"
dropdb --if-exists "$DB" >/dev/null 2>&1 || true
createdb "$DB"
q >/dev/null -v corpus="$CORPUS" <<'SQL'
CREATE EXTENSION slime;
CREATE TABLE islands (id int PRIMARY KEY, world slime);
CREATE TRIGGER islands_store BEFORE INSERT OR UPDATE ON islands
    FOR EACH ROW EXECUTE FUNCTION slime_store_trigger();
SELECT slime_track('islands');
CREATE TABLE region AS SELECT slime_import_region(pg_read_binary_file(:'corpus' ||
    '/anvil-1.18plus/prismarine-provider-anvil/1.18.2/r.0.0.mca'), 0, 0) AS r;
INSERT INTO islands
SELECT 0, slime_agg(slime_put_chunk(NULL, c.x, c.z, slime_chunk_nbt(r, c.x, c.z)))
FROM region, slime_chunks(r) c WHERE c.x BETWEEN 0 AND 4 AND c.z BETWEEN 0 AND 4;
CREATE TABLE own AS SELECT slime_chunk_nbt(r, 0, 5) AS nbt FROM region;
DROP TABLE region;
-- a chunk NBT (root compound) with one more tag, Stamp: long n (new content for a save)
CREATE FUNCTION stamp(nbt bytea, n bigint) RETURNS bytea LANGUAGE sql IMMUTABLE STRICT AS $$
  SELECT substring(nbt FROM 1 FOR length(nbt) - 1) || '\x04'::bytea || '\x0005'::bytea
         || convert_to('Stamp', 'UTF8') || int8send(n) || '\x00'::bytea $$;
-- a loader holding the same islands (its tables filled directly, as their owner)
SELECT slime_loader_create('ldr');
CREATE TABLE warm AS SELECT slime_to_slimefile(world) AS file FROM islands WHERE id = 0;
CREATE TABLE cold AS SELECT slime_loader_file_cold(warm.file, world) AS file FROM islands, warm WHERE id = 0;
SQL
# 0.9.0's slime_gc() for the "before" column: its SQL, as sql/slime--0.4.0--0.5.0.sql has it
sed -n '/^CREATE OR REPLACE FUNCTION slime_gc(OUT removed_entries/,/^\$\$;/p' sql/slime--0.4.0--0.5.0.sql |
    sed 's/FUNCTION slime_gc(/FUNCTION bench_gc_0_9(/; s/@extschema@/public/g' | q >/dev/null
q -c "SELECT slime_gc()" >/dev/null

# grow FROM TO: islands FROM..TO and their loader worlds, in statements of
# 10,000 (the loader's fence, which wants a lease for every save, is off
# while its tables are filled directly)
grow() {
    local lo=$1 hi=$2 a b
    for ((a = lo; a <= hi; a += 10000)); do
        b=$((a + 9999 < hi ? a + 9999 : hi))
        q >/dev/null <<SQL
ALTER TABLE ldr DISABLE TRIGGER ldr_fence;
INSERT INTO islands
SELECT i, slime_put_chunk(t.world, 1000 + i, 0, slime_chunk_relocate(own.nbt, 1000 + i, 0))
FROM islands t, own, generate_series($a, $b) i WHERE t.id = 0;
INSERT INTO ldr_worlds (world, saves, file) SELECT 'w' || i, 1, cold.file FROM cold, generate_series($a, $b) i;
INSERT INTO ldr (world, save, saved_at, token, data)
SELECT 'w' || id, 1, now() - interval '1 hour', 0, world FROM islands WHERE id BETWEEN $a AND $b;
ALTER TABLE ldr ENABLE TRIGGER ldr_fence;
SQL
    done
    q -c "VACUUM ANALYZE" >/dev/null
}
# saves N: N islands' own chunk replaced (a tag of the round in its NBT: new
# content, one new entry and one garbage each); their loader worlds given a
# new save of the same value (keeping one save), BENCH_WARM of their files
# warm (version 13) again
ROUND=0
saves() {
    ROUND=$((ROUND + 1))
    q >/dev/null <<SQL
ALTER TABLE ldr DISABLE TRIGGER ldr_fence;
CREATE TEMP TABLE pick AS SELECT id FROM islands WHERE id > 0 ORDER BY md5(id::text || '$ROUND') LIMIT $1;
UPDATE islands SET world = slime_put_chunk(world, 1000 + id, 0,
    slime_chunk_relocate(stamp(own.nbt, $ROUND), 1000 + id, 0))
FROM own WHERE id IN (SELECT id FROM pick);
INSERT INTO ldr (world, save, saved_at, token, data)
SELECT 'w' || i.id, w.saves + 1, now() - interval '1 hour', 0, i.world
FROM islands i JOIN ldr_worlds w ON w.world = 'w' || i.id WHERE i.id IN (SELECT id FROM pick);
DELETE FROM ldr l USING ldr_worlds w
WHERE l.world = w.world AND l.save <= w.saves AND w.world IN (SELECT 'w' || id FROM pick);
UPDATE ldr_worlds w SET saves = saves + 1,
    file = CASE WHEN w.world IN (SELECT 'w' || id FROM pick ORDER BY id LIMIT $WARM) THEN warm.file ELSE w.file END
FROM warm WHERE w.world IN (SELECT 'w' || id FROM pick);
ALTER TABLE ldr ENABLE TRIGGER ldr_fence;
SQL
}
# reads SQL: what SQL (one value) said, and the rows it read from the
# islands, the loader's tables and the store (inside one transaction block)
reads() {
    q <<SQL | paste -sd ';' | sed 's/;/; /'
BEGIN;
CREATE TEMP TABLE r0 AS SELECT relid, coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) AS n
FROM pg_stat_xact_all_tables WHERE relname IN ('islands', 'ldr', 'ldr_worlds', 'slime_store');
$1;
SELECT string_agg(s.relname || ' ' || (coalesce(s.seq_tup_read, 0) + coalesce(s.idx_tup_fetch, 0) - r0.n), ', ' ORDER BY s.relname)
FROM pg_stat_xact_all_tables s JOIN r0 USING (relid);
COMMIT;
SQL
}
SETTLE="SELECT count(*) FROM slime_settle(older_than => '0')"

printf '\n== slime_gc() and slime_settle() as the islands grow (durable settings; %s saves a round; ms) ==\n\n' "$SAVES"
printf '%8s %8s %9s %10s %10s %10s %10s  %s\n' islands entries "gc idle" "gc 0.9.0" "gc saves" \
    "settle" "settle" "gc after saves: removed; candidates; values read; rows read"
printf '%8s %8s %9s %10s %10s %10s %10s\n' "" "" "" "idle" "" "idle" "saves"
have=0
declare -A GCS=()
for n in "${SIZES[@]}"; do
    slime_log "bench_gc_scale: $n islands"
    grow $((have + 1)) "$n"
    have=$n
    q -c "SELECT slime_gc()" -c "$SETTLE" -c "SELECT slime_gc()" -c "VACUUM ANALYZE" >/dev/null
    idle=$(median3 "$(ms "SELECT slime_gc()")" "$(ms "SELECT slime_gc()")" "$(ms "SELECT slime_gc()")")
    old=-
    if [ "$n" -le "$OLD_MAX" ]; then old=$(ms "SELECT bench_gc_0_9()"); fi
    sidle=$(median3 "$(ms "$SETTLE")" "$(ms "$SETTLE")" "$(ms "$SETTLE")")
    # one round to see what a collection after saves reads, one to time it
    saves "$SAVES"
    what=$(reads "SELECT removed_entries || '; ' || candidates || '; ' || values_read FROM slime_gc()")
    q -c "$SETTLE" >/dev/null
    saves "$SAVES"
    gcs=$(ms "SELECT slime_gc()")
    GCS[$n]=$gcs
    ssaves=$(ms "$SETTLE")
    q -c "SELECT slime_gc()" >/dev/null
    entries=$(q -c "SELECT count(*) FROM slime_store")
    printf '%8s %8s %9s %10s %10s %10s %10s  %s\n' "$n" "$entries" "$idle" "$old" "$gcs" "$sidle" "$ssaves" "$what"
done
base=""
for n in "${SIZES[@]}"; do if [ -z "$base" ] && [ "$n" -ge 10000 ]; then base=$n; fi; done
if [ -n "$base" ]; then
    printf '\ngc after %s saves, against %s islands:' "$SAVES" "$base"
    for n in "${SIZES[@]}"; do
        if [ "$n" -ge "$base" ]; then printf ' %s: %.2fx' "$n" "$(echo "${GCS[$n]} / ${GCS[$base]}" | bc -l)"; fi
    done
    printf '   (target at the largest size <= 2x)\n'
fi

# ---- save latency at the largest size: alone, and beside the maintenance ----
cat >"$work/save.sql" <<EOF
\\set i random(1, $have)
\\set u random(1, 2000000000)
UPDATE islands SET world = slime_put_chunk(world, 1000 + :i, 0, slime_chunk_relocate(stamp(own.nbt, :u), 1000 + :i, 0))
FROM own WHERE id = :i;
EOF
# maint_start MODE: the maintenance beside the saves, each in one session
# (psql \watch; the psql processes' pids in $work/maint.pids, which
# maint_stop ends): gc, slime_gc() back to back; second, slime_gc() and
# slime_settle() each every second
maint_start() {
    : >"$work/maint.pids"
    if [ "$1" = gc ]; then
        psql -X -q -At -d "$DB" <<<'SELECT removed_entries FROM slime_gc() \watch 0.001' >"$work/$1.gc" 2>&1 &
        echo $! >>"$work/maint.pids"
    else
        psql -X -q -At -d "$DB" <<<'SELECT removed_entries FROM slime_gc() \watch 1' >"$work/$1.gc" 2>&1 &
        echo $! >>"$work/maint.pids"
        psql -X -q -At -d "$DB" <<<"SELECT count(*) FROM slime_settle(older_than => '0') \\watch 1" >/dev/null 2>&1 &
        echo $! >>"$work/maint.pids"
    fi
}
maint_stop() {
    local p
    while read -r p; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done <"$work/maint.pids"
}
# cell LABEL MODE (alone, gc, settle, both): pgbench saves, a line of the table
cell() {
    local dir="$work/$2" off=0 waits=-
    mkdir -p "$dir" && chmod 777 "$dir"
    if [ -n "${SLIME_PGTMP:-}" ]; then off=$(($(stat -c %s "$SLIME_PGTMP/server.log") + 1)); fi
    if [ "$2" != alone ]; then maint_start "$2"; sleep 1; fi
    (cd "$dir" && pgbench -n -c "$CLIENTS" -j "$CLIENTS" -T "$SECS" -f "$work/save.sql" -l "$DB" >"$dir/pgbench.out" 2>&1) ||
        { cat "$dir/pgbench.out" >&2; maint_stop; return 1; }
    if [ "$2" != alone ]; then maint_stop; fi
    cat "$dir"/pgbench_log.* | awk '{ print $3 / 1000 }' | sort -n >"$dir/lat"
    # saves that waited more than deadlock_timeout (20 ms) for a lock (log_lock_waits)
    if [ "$off" -gt 0 ]; then waits=$(tail -c +"$off" "$SLIME_PGTMP/server.log" | grep -c ' pgbench LOG:  process [0-9]* still waiting' || true); fi
    awk -v l="$1" -v s="$SECS" -v w="$waits" -v runs="$(grep -c '^[0-9]' "$work/$2.gc" 2>/dev/null || true)" '{ v[NR] = $1 } END {
        printf "%-42s %8.1f %9.2f %9.2f %9.1f %6s %9s\n", l, NR / s, v[int(NR * 0.50) + 1], v[int(NR * 0.99) + 1], v[NR], runs, w }' "$dir/lat"
}
p99() { awk '{ v[NR] = $1 } END { print v[int(NR * 0.99) + 1] }' "$work/$1/lat"; }
printf '\n== saves at %s islands (%s clients, %s s each) ==\n\n' "$have" "$CLIENTS" "$SECS"
printf '%-42s %8s %9s %9s %9s %6s %9s\n' "" "saves/s" "p50 ms" "p99 ms" "max ms" "GCs" "lock>20ms"
cell "alone" alone
cell "beside slime_gc() back to back" gc
cell "beside slime_gc() and slime_settle() every second" second
printf '\np99 against alone: beside slime_gc() back to back %.2fx, beside both every second %.2fx (target <= 2x)\n' \
    "$(echo "$(p99 gc) / $(p99 alone)" | bc -l)" "$(echo "$(p99 second) / $(p99 alone)" | bc -l)"
dropdb "$DB"
