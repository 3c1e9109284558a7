#!/usr/bin/env bash
# test/bench/bench_store.sh — what the chunk store (slime_store, the
# slime_store_trigger() trigger) saves in bytes and costs in save
# throughput, against plain self-contained values measured in the same run:
#
#   1. 10,000 islands cloned from ONE template island (a 5x5 block of fully
#      generated 1.18+ chunks), 1-5 chunks edited each: bytes per island in
#      a plain table vs a table with the trigger plus the store;
#   2. 100 successive saves of one corpus region (3 chunks changed per
#      save): 100 full copies vs 100 rows through the trigger plus the store;
#   3. save throughput with pgbench (-c 2 -j 2): INSERT of a pre-made island
#      into a plain table vs into a table with the trigger, and a re-save of
#      an unchanged island already in reference form;
#   4. granularity: what a section-level store would hold for 1 and 2
#      (build/bench_granularity over the store's own entries).
#
#     bash test/bench/bench_store.sh          # Debian 12, as root, repo root
#
# Installs what it needs, builds and installs the extension (skipped when
# SLIME_BENCH_BUILT=1, as run.sh sets it), builds build/bench_size,
# build/bench_granularity and build/bench_client, and uses the cluster named
# by the PG* variables or, without PGHOST, a throwaway cluster of its own
# (test/lib.sh). It works in two databases of its own, dropped at the end.
# Prints the tables on stdout; never fails on numbers, only when something
# cannot be run. About 2.5 minutes on 2 cores.
#
# Environment: SLIME_CORPUS, SLIME_BENCH_LEVEL (zstd level of the values and
# of the store; unset: the defaults, 3), BENCH_CLONES (10000), BENCH_SAVES
# (100), BENCH_SECONDS (10: pgbench seconds per variant, run as two
# alternating halves), BENCH_ENTRY_OVERHEAD (60: bytes per store row assumed
# in 5.4).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib.sh
. "$HERE/../lib.sh"
cd "$SLIME_ROOT"

t_start=$(date +%s)
CLONES=${BENCH_CLONES:-10000}
SAVES=${BENCH_SAVES:-100}
SECS=${BENCH_SECONDS:-10}
OVERHEAD=${BENCH_ENTRY_OVERHEAD:-60}
CLIENT=$SLIME_ROOT/build/bench_client
DB1=slime_bench_store_1
DB2=slime_bench_store_2
[ "$SAVES" -ge 2 ] || { echo "ERROR: BENCH_SAVES must be at least 2" >&2; exit 1; }
[ "$CLONES" -ge 1 ] || { echo "ERROR: BENCH_CLONES must be at least 1" >&2; exit 1; }

SLIME_DEPS+=(libpq-dev)
slime_bench_begin store
CORPUS=$(slime_corpus) || exit 1
export SLIME_CORPUS=$CORPUS
slime_step "build build/bench_size and build/bench_granularity" "$work/build-progs.log" \
    make build/bench_size build/bench_granularity PG_CONFIG="$SLIME_PG_CONFIG"
slime_step "build build/bench_client" "$work/build-client.log" \
    make -C "$SLIME_ROOT" build/bench_client PG_CONFIG="$SLIME_PG_CONFIG"

if [ -z "${PGHOST:-}" ]; then
    slime_log "start a throwaway cluster"
    slime_cluster_start
fi
if [ -n "${SLIME_BENCH_LEVEL:-}" ]; then
    export PGOPTIONS="${PGOPTIONS:-} -c slime.compression_level=$SLIME_BENCH_LEVEL"
fi

q() { local db=$1; shift; slime_psql -At -d "$db" "$@"; }
drop_dbs() { slime_psql -d postgres -c "DROP DATABASE IF EXISTS $DB1" -c "DROP DATABASE IF EXISTS $DB2" >/dev/null 2>&1 || true; }
drop_dbs
slime_on_exit drop_dbs
for db in $DB1 $DB2; do
    slime_psql -d postgres -c "CREATE DATABASE $db" >/dev/null
    q "$db" -c "CREATE EXTENSION slime" -c "ALTER TABLE slime_store SET (autovacuum_enabled = false)" >/dev/null
done
LEVEL=$(q "$DB1" -c "LOAD '\$libdir/slime'" -c "SHOW slime.compression_level")
PGVER=$(q "$DB1" -c "SHOW server_version")

# pg_total_relation_size of a list of relations, summed.
relsize() { q "$1" -c "SELECT sum(pg_total_relation_size(r))::bigint FROM unnest('{$2}'::regclass[]) r"; }
# store: entries, data bytes, relation bytes
store_stats() { q "$1" -F' ' -c "SELECT count(*), coalesce(sum(octet_length(data)), 0),
                                        pg_total_relation_size('slime_store') FROM slime_store"; }
dump_store() { q "$1" -c "\\copy (SELECT hash, data FROM slime_store) TO '$2' WITH (FORMAT binary)" >/dev/null; }
granularity() { ./build/bench_granularity --level "$LEVEL" "$1" > "$2"; }
gv() { awk -v k="$2" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }' "$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else printf "n/a" }'; }
div() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.0f", a / b; else printf "n/a" }'; }

# ============================================================================
# 1. islands cloned from one template
# ============================================================================
slime_log "bench_store: 5.1 template island and $CLONES clones (bench_size --emit-clones, streamed into COPY)"
./build/bench_size --emit-clones "$work/template.bin" --clones 0 >/dev/null 2>"$work/template.log" ||
    { cat "$work/template.log" >&2; echo "ERROR: bench_size --emit-clones failed" >&2; exit 1; }
q "$DB1" >/dev/null <<'SQL'
CREATE TABLE w1_plain (id int PRIMARY KEY, world slime) WITH (autovacuum_enabled = false);
CREATE TABLE w1_trig (id int PRIMARY KEY, world slime) WITH (autovacuum_enabled = false);
CREATE TRIGGER w1_trig_store BEFORE INSERT OR UPDATE ON w1_trig
    FOR EACH ROW EXECUTE FUNCTION slime_store_trigger();
CREATE TABLE w1_template (id int PRIMARY KEY, world slime);
CREATE TRIGGER w1_template_store BEFORE INSERT OR UPDATE ON w1_template
    FOR EACH ROW EXECUTE FUNCTION slime_store_trigger();
SQL
PGDATABASE=$DB1 "$CLIENT" copy w1_template "$work/template.bin" 0 0 >/dev/null
dump_store "$DB1" "$work/w1-template.copy"
# the clones (index 1..N of the stream; 0 is the template) into the plain table
if ! ./build/bench_size --emit-clones /dev/fd/3 --clones "$CLONES" 3>&1 >"$work/clones.info" 2>"$work/clones.log" |
     PGDATABASE=$DB1 PGOPTIONS="${PGOPTIONS:-} -c slime.input_check=structure" \
         "$CLIENT" copy w1_plain - 1 >"$work/w1-copy.out"; then
    tail -n 20 "$work/clones.log" >&2
    echo "ERROR: generating or loading the clones failed" >&2
    exit 1
fi
CLONES_INFO=$(grep -E '^(template|clones):' "$work/clones.info")

# ============================================================================
# 3a. save throughput, before the clones' chunks are in the store
# ============================================================================
pgb() {                      # pgb SCRIPT SECONDS [PGOPTIONS] -> tps
    local out
    if ! out=$(PGOPTIONS="${PGOPTIONS:-} ${3:-}" pgbench -n -c 2 -j 2 -T "$2" -f "$1" "$DB1" 2>&1); then
        echo "$out" >&2
        echo "ERROR: pgbench failed" >&2
        return 1
    fi
    awk '/^tps = / { print $3; exit }' <<<"$out"
}
prep_slice() {               # empty the target; before "trig", also collect the store
    case $1 in
        plain) q "$DB1" -c "TRUNCATE sav_plain" -c "CHECKPOINT" >/dev/null ;;
        ref)   q "$DB1" -c "TRUNCATE sav_trig" -c "CHECKPOINT" >/dev/null ;;
        trig)  q "$DB1" >/dev/null <<'SQL'
TRUNCATE sav_trig;
SELECT slime_gc();
VACUUM slime_store;
CHECKPOINT;
SQL
        ;;
    esac
}
half=$(awk -v s="$SECS" 'BEGIN { h = int(s / 2); print h < 1 ? 1 : h }')
# variants "KIND|SCRIPT|PGOPTIONS", run as slices of half the time each in
# the order 1 2 .. n n .. 2 1; prints the mean tps of each, in order
alternate() {
    local v kind script opts t tps=() i n=$#
    local order=("$@")
    for ((i = n - 1; i >= 0; i--)); do order+=("${order[i]}"); done
    for ((i = 0; i < n; i++)); do tps[i]=0; done
    for ((i = 0; i < 2 * n; i++)); do
        v=${order[i]}; kind=${v%%|*}; v=${v#*|}; script=${v%%|*}; opts=${v#*|}
        prep_slice "$kind"
        t=$(pgb "$script" "$half" "$opts")
        tps[i < n ? i : 2 * n - 1 - i]=$(awk -v a="${tps[i < n ? i : 2 * n - 1 - i]}" -v b="$t" 'BEGIN { print a + b }')
    done
    for ((i = 0; i < n; i++)); do awk -v a="${tps[i]}" 'BEGIN { printf "%.1f ", a / 2 }'; done
    echo
}
cat >"$work/plain.sql" <<EOF
\\set id random(1, $CLONES)
INSERT INTO sav_plain (id, world) SELECT :id, world FROM w1_plain WHERE id = :id;
EOF
cat >"$work/trig.sql" <<EOF
\\set id random(1, $CLONES)
INSERT INTO sav_trig (id, world) SELECT :id, world FROM w1_plain WHERE id = :id;
EOF
cat >"$work/ref.sql" <<EOF
\\set id random(1, $CLONES)
INSERT INTO sav_trig (id, world) SELECT :id, world FROM w1_trig WHERE id = :id;
EOF
q "$DB1" >/dev/null <<'SQL'
CREATE TABLE sav_plain (id int, world slime) WITH (autovacuum_enabled = false);
CREATE TABLE sav_trig (id int, world slime) WITH (autovacuum_enabled = false);
CREATE TRIGGER sav_trig_store BEFORE INSERT OR UPDATE ON sav_trig
    FOR EACH ROW EXECUTE FUNCTION slime_store_trigger();
ANALYZE w1_plain;
SQL
slime_log "bench_store: 5.3 pgbench, plain vs trigger ($((6 * half)) s)"
alternate "plain|$work/plain.sql|" "trig|$work/trig.sql|" >"$work/tps-a.txt"
read -r TPS_PLAIN_A TPS_TRIG <"$work/tps-a.txt"

# back to a store that holds only the template's chunks, compacted
q "$DB1" >/dev/null <<'SQL'
DROP TABLE sav_trig;
TRUNCATE sav_plain;
SELECT slime_gc();
VACUUM FULL slime_store;
SQL

# ---- 1. the same clones through the trigger ---------------------------------
slime_log "bench_store: 5.1 the clones through the trigger (INSERT ... SELECT)"
q "$DB1" -c "INSERT INTO w1_trig SELECT id, world FROM w1_plain ORDER BY id" >/dev/null
# the template's table goes; its chunks stay as long as a clone holds them
gc_removed=$(q "$DB1" -c "DROP TABLE w1_template" -c "SELECT removed_entries FROM slime_gc()" | tail -1)
[ "$gc_removed" = 0 ] || q "$DB1" -c "VACUUM FULL slime_store" >/dev/null
W1_PLAIN_REL=$(relsize "$DB1" w1_plain)
W1_TRIG_REL=$(relsize "$DB1" w1_trig)
W1_PLAIN_VAL=$(q "$DB1" -c "SELECT sum(octet_length(world::bytea))::bigint FROM w1_plain")
W1_TRIG_VAL=$(q "$DB1" -c "SELECT sum(octet_length(world::bytea))::bigint FROM w1_trig")
st=$(store_stats "$DB1")
read -r W1_ENTRIES W1_STORE_DATA W1_STORE_REL <<<"$st"
W1_ROWS=$(q "$DB1" -c "SELECT count(*) FROM w1_trig")
W1_DIFF=$(q "$DB1" -c "SELECT count(*) FROM w1_plain p JOIN w1_trig t USING (id) WHERE p.world <> t.world")
dump_store "$DB1" "$work/w1.copy"

# ---- 3b. re-save of an unchanged island in reference form -------------------
q "$DB1" >/dev/null <<'SQL'
CREATE TABLE sav_trig (id int, world slime) WITH (autovacuum_enabled = false);
CREATE TRIGGER sav_trig_store BEFORE INSERT OR UPDATE ON sav_trig
    FOR EACH ROW EXECUTE FUNCTION slime_store_trigger();
VACUUM ANALYZE w1_trig;
SQL
slime_log "bench_store: 5.3 pgbench, plain vs reference-form re-save ($((4 * half)) s)"
alternate "plain|$work/plain.sql|" "ref|$work/ref.sql|" >"$work/tps-b.txt"
read -r TPS_PLAIN_B TPS_REF <"$work/tps-b.txt"

# ============================================================================
# 2. successive saves of one region
# ============================================================================
slime_log "bench_store: 5.2 $SAVES saves of one region (bench_size --emit-saves)"
./build/bench_size --emit-saves "$work/saves.bin" --saves "$SAVES" >"$work/saves.info" 2>"$work/saves.log" ||
    { cat "$work/saves.log" >&2; echo "ERROR: bench_size --emit-saves failed" >&2; exit 1; }
SAVES_INFO=$(grep '^saves:' "$work/saves.info")
q "$DB2" >/dev/null <<'SQL'
CREATE TABLE w2_edits (id int PRIMARY KEY, world slime);
CREATE TABLE w2_plain (id int PRIMARY KEY, world slime) WITH (autovacuum_enabled = false);
CREATE TABLE w2_trig (id int PRIMARY KEY, world slime) WITH (autovacuum_enabled = false);
CREATE TRIGGER w2_trig_store BEFORE INSERT OR UPDATE ON w2_trig
    FOR EACH ROW EXECUTE FUNCTION slime_store_trigger();
-- save s (2..N) = save s-1 with the 3 chunks of edits 3(s-2)+1 .. 3(s-1) put in
CREATE FUNCTION w2_edit(w slime, s int) RETURNS slime LANGUAGE plpgsql AS $$
DECLARE e record;
BEGIN
  FOR e IN SELECT c.x, c.z, slime_chunk_nbt(ed.world, c.x, c.z) AS nbt
           FROM w2_edits ed, slime_chunks(ed.world) c
           WHERE ed.id BETWEEN 3 * (s - 2) + 1 AND 3 * (s - 1) ORDER BY ed.id LOOP
    w := slime_put_chunk(w, e.x, e.z, e.nbt);
  END LOOP;
  RETURN w;
END $$;
SQL
PGDATABASE=$DB2 "$CLIENT" copy w2_edits "$work/saves.bin" 0 >/dev/null
q "$DB2" -c "INSERT INTO w2_trig SELECT 1, world FROM w2_edits WHERE id = 0" >/dev/null
st=$(store_stats "$DB2")
W2_FIRST_REL=$(( $(relsize "$DB2" w2_trig) + ${st##* } ))
dump_store "$DB2" "$work/w2-first.copy"
q "$DB2" >/dev/null <<SQL
DO \$\$ BEGIN
  FOR s IN 2..$SAVES LOOP
    INSERT INTO w2_trig SELECT s, w2_edit(world, s) FROM w2_trig WHERE id = s - 1;
  END LOOP;
END \$\$;
INSERT INTO w2_plain SELECT id, slime_resolve(world) FROM w2_trig ORDER BY id;
SQL
W2_PLAIN_REL=$(relsize "$DB2" w2_plain)
W2_TRIG_REL=$(relsize "$DB2" w2_trig)
W2_PLAIN_VAL=$(q "$DB2" -c "SELECT sum(octet_length(world::bytea))::bigint FROM w2_plain")
W2_TRIG_VAL=$(q "$DB2" -c "SELECT sum(octet_length(world::bytea))::bigint FROM w2_trig")
st=$(store_stats "$DB2")
read -r W2_ENTRIES W2_STORE_DATA W2_STORE_REL <<<"$st"
W2_DIFF=$(q "$DB2" -c "SELECT count(*) FROM w2_plain p JOIN w2_trig t USING (id) WHERE p.world <> t.world")
W2_DISTINCT=$(q "$DB2" -c "SELECT count(DISTINCT slime_content_hash(world)) FROM w2_plain")
# the self-contained path gives the same bytes: save 2 by put_chunk on save 1
W2_SAME=$(q "$DB2" -c "SELECT w2_edit(p1.world, 2)::bytea = p2.world::bytea FROM w2_plain p1, w2_plain p2
                       WHERE p1.id = 1 AND p2.id = 2")
dump_store "$DB2" "$work/w2.copy"

# ============================================================================
# 4. granularity
# ============================================================================
slime_log "bench_store: 5.4 section-level store (bench_granularity)"
granularity "$work/w1-template.copy" "$work/g1t.out"
granularity "$work/w1.copy" "$work/g1.out"
granularity "$work/w2-first.copy" "$work/g2f.out"
granularity "$work/w2.copy" "$work/g2.out"

# ============================================================================
# print
# ============================================================================
row() { printf '%-46s %16s %16s\n' "$@"; }
{
printf '\n== 5. The chunk store (bench_store): slime_store + slime_store_trigger vs plain values ==\n'
printf '   PostgreSQL %s, store and values at zstd level %s, %s cores, %s UTC\n' \
    "$PGVER" "$LEVEL" "$(nproc)" "$(date -u '+%Y-%m-%d %H:%M')"
printf '   Sizes are exact and repeatable. Timings (5.3) are NOISY: the machine is\n'
printf '   shared with other test runs, and their ratios move by tens of percent.\n'

printf '\n== 5.1 %s islands cloned from one template island ==\n' "$CLONES"
sed 's/^/   /' <<<"$CLONES_INFO"
printf '   (a) plain: (id int PRIMARY KEY, world slime), binary COPY (slime.input_check = structure)\n'
printf '   (b) trigger: same table with slime_store_trigger, INSERT .. SELECT from (a);\n'
printf '       + slime_store\n\n'
row "per island (total / $W1_ROWS)" "relation bytes" "value bytes"
row "(a) plain table" "$(div "$W1_PLAIN_REL" "$W1_ROWS")" "$(div "$W1_PLAIN_VAL" "$W1_ROWS")"
row "(b) table, reference form" "$(div "$W1_TRIG_REL" "$W1_ROWS")" "$(div "$W1_TRIG_VAL" "$W1_ROWS")"
row "(b) slime_store" "$(div "$W1_STORE_REL" "$W1_ROWS")" "$(div "$W1_STORE_DATA" "$W1_ROWS")"
row "(b) table + store" "$(div $((W1_TRIG_REL + W1_STORE_REL)) "$W1_ROWS")" \
    "$(div $((W1_TRIG_VAL + W1_STORE_DATA)) "$W1_ROWS")"
row "(b) / (a)" "$(ratio $((W1_TRIG_REL + W1_STORE_REL)) "$W1_PLAIN_REL")" \
    "$(ratio $((W1_TRIG_VAL + W1_STORE_DATA)) "$W1_PLAIN_VAL")"
printf '   store entries: %s (%s bytes of entry data each on average); store bytes\n' \
    "$W1_ENTRIES" "$(div "$W1_STORE_DATA" "$W1_ENTRIES")"
printf '   beyond entry data (tuple, index, TOAST): %s per entry\n' \
    "$(div $((W1_STORE_REL - W1_STORE_DATA)) "$W1_ENTRIES")"
[ "$W1_DIFF" = 0 ] || printf '   WARNING: %s islands differ between (a) and (b) (slime <>)\n' "$W1_DIFF"

printf '\n== 5.2 %s successive saves of one region, 3 chunks changed per save ==\n' "$SAVES"
sed 's/^/   /' <<<"$SAVES_INFO"
printf '   (b) trigger: save 1 inserted whole, then each save = the previous row (reference\n'
printf '       form) with its 3 chunks put in by slime_put_chunk, INSERTed through the trigger\n'
printf '   (a) plain: the same %s values self-contained (slime_resolve of each (b) row)\n\n' "$SAVES"
row "all $SAVES saves" "relation bytes" "value bytes"
row "(a) plain table, $SAVES full copies" "$W2_PLAIN_REL" "$W2_PLAIN_VAL"
row "(b) table, reference form" "$W2_TRIG_REL" "$W2_TRIG_VAL"
row "(b) slime_store" "$W2_STORE_REL" "$W2_STORE_DATA"
row "(b) table + store" "$((W2_TRIG_REL + W2_STORE_REL))" "$((W2_TRIG_VAL + W2_STORE_DATA))"
row "(b) / (a)" "$(ratio $((W2_TRIG_REL + W2_STORE_REL)) "$W2_PLAIN_REL")" \
    "$(ratio $((W2_TRIG_VAL + W2_STORE_DATA)) "$W2_PLAIN_VAL")"
w2_inc=$(div $((W2_TRIG_REL + W2_STORE_REL - W2_FIRST_REL)) $((SAVES - 1)))
row "per save after the first: (a)" "$(div "$W2_PLAIN_REL" "$SAVES")" ""
row "per save after the first: (b) table + store" "$w2_inc" ""
row "per save after the first: (b) / (a)" \
    "$(ratio $((W2_TRIG_REL + W2_STORE_REL - W2_FIRST_REL)) $(( (SAVES - 1) * W2_PLAIN_REL / SAVES )))" ""
printf '   store entries: %s (%s after save 1); %s distinct saves (content hash)\n' \
    "$W2_ENTRIES" "$(gv "$work/g2f.out" entries)" "$W2_DISTINCT"
[ "$W2_DIFF" = 0 ] || printf '   WARNING: %s saves differ between (a) and (b) (slime <>)\n' "$W2_DIFF"
[ "$W2_SAME" = t ] || printf '   WARNING: save 2 by slime_put_chunk on the self-contained save 1 is not byte-identical to (a)\n'

printf '\n== 5.3 Save throughput: pgbench -c 2 -j 2, %s s per variant as 2 alternating halves ==\n' "$((2 * half))"
printf '   \\set id random(1, %s)\n' "$CLONES"
printf '   INSERT INTO t (id, world) SELECT :id, world FROM seeds WHERE id = :id;\n'
printf '   seeds: the islands of 5.1 ((a) self-contained, (b) reference form); t: no\n'
printf '   index, emptied before each slice. Run A: before 5.1 (b) is loaded, slime_gc() +\n'
printf '   VACUUM before each trigger slice, so the store holds only the template'"'"'s chunks\n'
printf '   and the first save of an island stores its 1-5 edited chunks (a repeated id finds\n'
printf '   them). Run B: after it; a reference-form save stores nothing, it checks that the\n'
printf '   25 chunks it refers to are in the store.\n'
printf '   NOISY: other test runs share the machine.\n\n'
printf '%-62s %10s %10s\n' "" "tps" "ratio"
printf '%-62s %10s %10s\n' "A: plain table <- self-contained seed" "$TPS_PLAIN_A" "1.000"
printf '%-62s %10s %10s\n' "    trigger table <- self-contained seed (new chunks)" "$TPS_TRIG" \
    "$(ratio "$TPS_TRIG" "$TPS_PLAIN_A")"
printf '%-62s %10s %10s\n' "B: plain table <- self-contained seed" "$TPS_PLAIN_B" "1.000"
printf '%-62s %10s %10s\n' "    trigger table <- reference-form seed (re-save)" "$TPS_REF" \
    "$(ratio "$TPS_REF" "$TPS_PLAIN_B")"

printf '\n== 5.4 Granularity: the chunk store vs a section-level store (computed) ==\n'
printf '   from the store entries of 5.1 and 5.2 (build/bench_granularity): each distinct\n'
printf '   section ("sections" items, 1.18+; Level.Sections before) one entry, plus one entry\n'
printf '   per distinct chunk remainder (the chunk without its sections + a 32-byte hash per\n'
printf '   section + entities and POI); every entry one checksummed zstd-%s frame, as the store\n' "$LEVEL"
printf '   writes them. ASSUMPTION: %s bytes per store row (tuple header, hash, index entry)\n' "$OVERHEAD"
printf '   on both sides. The rows of the tables are the same at both levels.\n\n'
g4() {                       # g4 FILE BASEFILE N: all columns of one workload
    local f=$1 b=$2 n=$3
    awk -v o="$OVERHEAD" -v n="$n" '
        FNR == NR { base[$1] = $2; next }
        { cur[$1] = $2 }
        END {
            split("entries chunk_zstd sections_distinct section_items sections_zstd remainders_distinct remainders_zstd", ks, " ")
            for (i in ks) { k = ks[i]; if (!(k in cur)) cur[k] = 0; if (!(k in base)) base[k] = 0; inc[k] = (cur[k] - base[k]) / n }
            ct = cur["chunk_zstd"] + o * cur["entries"]
            st = cur["sections_zstd"] + cur["remainders_zstd"] + o * (cur["sections_distinct"] + cur["remainders_distinct"])
            ci = inc["chunk_zstd"] + o * inc["entries"]
            si = inc["sections_zstd"] + inc["remainders_zstd"] + o * (inc["sections_distinct"] + inc["remainders_distinct"])
            printf "c_entries %d %.1f\n", cur["entries"], inc["entries"]
            printf "c_bytes %d %.0f\n", cur["chunk_zstd"], inc["chunk_zstd"]
            printf "c_total %d %.0f\n", ct, ci
            printf "s_sections %d/%d %.1f\n", cur["sections_distinct"], cur["section_items"], inc["sections_distinct"]
            printf "s_sbytes %d %.0f\n", cur["sections_zstd"], inc["sections_zstd"]
            printf "s_rem %d %.1f\n", cur["remainders_distinct"], inc["remainders_distinct"]
            printf "s_rbytes %d %.0f\n", cur["remainders_zstd"], inc["remainders_zstd"]
            printf "s_total %d %.0f\n", st, si
            printf "r_data %.3f %.3f\n", (cur["sections_zstd"] + cur["remainders_zstd"]) / cur["chunk_zstd"],
                   (inc["chunk_zstd"] > 0 ? (inc["sections_zstd"] + inc["remainders_zstd"]) / inc["chunk_zstd"] : 0)
            printf "r_total %.3f %.3f\n", st / ct, (ci > 0 ? si / ci : 0)
        }' "$b" "$f"
}
g4 "$work/g1.out" "$work/g1t.out" "$W1_ROWS" >"$work/g1.tab"
g4 "$work/g2.out" "$work/g2f.out" $((SAVES - 1)) >"$work/g2.tab"
gcol() { awk -v k="$2" -v c="$3" '$1 == k { print $c }' "$1"; }
printf '%-40s %13s %11s %13s %11s\n' "" "1: all" "1: /island" "2: all" "2: /save>1"
for spec in "c_entries|chunk level: entries" "c_bytes|chunk level: entry bytes (zstd)" \
            "c_total|chunk level: + $OVERHEAD B/entry" \
            "s_sections|section level: sections (distinct/all)" "s_sbytes|section level: section bytes" \
            "s_rem|section level: remainders" "s_rbytes|section level: remainder bytes" \
            "s_total|section level: total + $OVERHEAD B/entry" \
            "r_data|section / chunk, entry bytes" "r_total|section / chunk, + $OVERHEAD B/entry"; do
    k=${spec%%|*}; label=${spec#*|}
    printf '%-40s %13s %11s %13s %11s\n' "$label" "$(gcol "$work/g1.tab" "$k" 2)" "$(gcol "$work/g1.tab" "$k" 3)" \
        "$(gcol "$work/g2.tab" "$k" 2)" "$(gcol "$work/g2.tab" "$k" 3)"
done
printf '   "/island": (all - the template'"'"'s entries) / %s islands; "/save>1": (all - save 1'"'"'s\n' "$W1_ROWS"
printf '   entries) / %s saves. Chunk-level entry bytes recomputed = bytes in slime_store: %s.\n' \
    "$((SAVES - 1))" \
    "$( [ "$(gv "$work/g1.out" chunk_zstd)" = "$W1_STORE_DATA" ] && [ "$(gv "$work/g2.out" chunk_zstd)" = "$W2_STORE_DATA" ] && echo yes || echo NO)"
printf '   Measured slime_store bytes beyond entry data (tuple, index, TOAST pages): %s per\n' \
    "$(div $((W1_STORE_REL - W1_STORE_DATA)) "$W1_ENTRIES")"
printf '   entry in 5.1, %s in 5.2 (chunk entries are mostly over the ~2 KB TOAST\n' \
    "$(div $((W2_STORE_REL - W2_STORE_DATA)) "$W2_ENTRIES")"
printf '   threshold; section entries average %s bytes).\n' \
    "$(div $(( $(gv "$work/g1.out" sections_zstd) + $(gv "$work/g2.out" sections_zstd) )) \
           $(( $(gv "$work/g1.out" sections_distinct) + $(gv "$work/g2.out" sections_distinct) )))"
rd=$(( $(gv "$work/g1.out" rewrite_differs) + $(gv "$work/g2.out" rewrite_differs) ))
[ "$rd" = 0 ] || printf '   NOTE: %s region documents are not rewritten byte for byte by sl_nbt_write\n' "$rd"
printf '\nbench_store: %s s\n' "$(($(date +%s) - t_start))"
} 
