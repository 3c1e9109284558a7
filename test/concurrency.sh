#!/usr/bin/env bash
# test/concurrency.sh — many sessions saving and loading the same and
# different worlds at once.
#
# On its own throwaway cluster (test/lib.sh; log_line_prefix carries the
# SQLSTATE so every ERROR can be counted by code), a table of 40 worlds
# (ids 1-4 hot, drawn 70% of the time; 5-40 cold) imported from corpus
# region files, and pgbench (PostgreSQL 15's, -c 8 -j 2) running four
# custom scripts side by side:
#   save     BEGIN; read slime_info; UPDATE .. slime_put_chunk of one chunk
#            (NBT from a seed table), with the hash column set in the same
#            statement; END
#   load     slime_chunk_nbt + slime_info of one world, and the stored hash
#            column must equal slime_content_hash (same snapshot)
#   replace  the whole value replaced by another seed world
#   verify   the full check of one world (value::bytea::slime = value)
# twice: at READ COMMITTED, then at REPEATABLE READ, where serialization
# failures are expected and retried (pgbench --max-tries).  After each run
# every value gets the full check and its hash column is compared.
#
# Then the chunk store, in its own database: a table of island saves with
# slime_store_trigger() (8 islands seeded from 4 corpus worlds) and pgbench
# (-c 6 -j 2) running side by side:
#   save     INSERT a new save of an island: a save of it with one chunk
#            changed (a tag set in its NBT, so one new store entry and every
#            other chunk reused), and in the same row "expect", the content
#            hash of that value before the trigger stored it
#   prune    DELETE all but the newest 3 saves of an island (garbage)
#   gc       slime_gc(), results logged (must remove entries during the run)
#   load     one chunk's NBT and block entities, and all the block entities,
#            of a save (the oldest, those prune and GC take, as often as the
#            newest), read through the store
#   loadall  a whole save resolved and fully checked, hash = expect
# twice: at READ COMMITTED with the saves table tracked (slime_track: the GC
# takes its references from counts the saves log), then with the save
# script at REPEATABLE READ (saving from any of the kept saves, with a pause
# after the snapshot, so that GC takes entries the snapshot relied on:
# 40001, retried) and the table untracked (the GC reads it).  After each
# run: every save resolves and passes slime_verify, its content hash equals
# "expect", it is in reference form, every island still has a save,
# slime_store_verify() is empty; then a final slime_gc(), after which the
# store holds exactly the chunks the saves refer to (a second GC removes
# nothing), at most one new entry per save, and the same checks again.
#
# Then the same store scripts once more with slime_settle() (issue #22)
# beside them, and a loader (slime_loader_create) in the same database:
#   settle   slime_settle(older_than => '0') in small batches, results logged
#            (must pack store entries and put cold loader files in their
#            cold form); CALL slime_settle_batches(older_than => '0'), a batch
#            a commit; and one pack's entries made unsettled again, so that
#            the next settle repacks them (and deletes the pack it leaves)
#   lsave    lease one of 4 loader worlds, save one of 4 slime files into it
#            (keep 3), release the lease: the world is cold at once
#   lload    a loader world's load (its cached file, or given back from
#            its cold form) holds the newest save's content (one snapshot)
# with the checks above, every loader world loading its newest save, and
# no packed entry without its pack nor (after the last slime_gc()) a pack
# without an entry.
#
#
# Then a second loader: memoised slime_loader_save calls racing
# slime_loader_delete and slime_gc(); a third with deferred saves racing
# catch-ups, loads (each must give the newest save, pending or not) and
# slime_gc(); last, a settle batch holding only its own worlds (see those
# sections).
# Fails on: a pgbench client aborted or a non-zero exit, any ERROR in the
# server log whose SQLSTATE is not 40001/40P01, a script that ran no
# transaction, any damaged value, any backend killed by a signal, any
# chunk-store check above.
# Duration of each of the four runs: SLIME_CONCURRENCY_SECONDS (default 20,
# for CI; use several minutes on a developer machine).  Ends with
# "N passed, N failed".
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

slime_suite_begin concurrency
SECS=${SLIME_CONCURRENCY_SECONDS:-20}
CLIENTS=${SLIME_CONCURRENCY_CLIENTS:-8}
PGBENCH=$SLIME_PG_BIN/pgbench
[ -x "$PGBENCH" ] || { echo "concurrency: $PGBENCH missing (package postgresql-15)" >&2; failed=1; finish; }
HOT=4
NWORLDS=40

# seed worlds: "path rx rz"
REGIONS=(
    "anvil-1.2-1.12/amulet-core/1_12_2/r.0.0.mca 0 0"
    "anvil-1.13-1.17/mcaselector/anvil113/r.0.0.mca 0 0"
    "anvil-1.13-1.17/amulet-core/1_13/r.-1.-1.mca -1 -1"
    "anvil-1.18plus/amulet-core/1_18_superflat/r.0.0.mca 0 0"
    "anvil-1.18plus/amulet-core/1_18_vanilla/r.-1.1.mca -1 1"
    "anvil-1.18plus/querz-nbt/21w44a/r.15.-9.mca 15 -9"
    "anvil-1.18plus/prismarine-provider-anvil/1.18.2/r.0.0.mca 0 0"
    "anvil-1.18plus/prismarine-provider-anvil/1.21.1/r.0.0.mca 0 0"
)
slime_suite_regions
NSEEDS=${#REGIONS[@]}

slime_suite_cluster conc

{
    cat <<'SQL'
ALTER SYSTEM SET log_line_prefix = '%m [%p] %e ';
SELECT pg_reload_conf();
CREATE EXTENSION slime;
CREATE TABLE seeds(id int PRIMARY KEY, world slime, hash bytea);
CREATE TABLE seed_chunks(i int PRIMARY KEY, nbt bytea);
CREATE TABLE worlds(id bigint PRIMARY KEY, world slime, hash bytea);
-- the stored hash column must match the value it was written with
CREATE FUNCTION consistent(w slime, h bytea) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  IF h IS DISTINCT FROM slime_content_hash(w) THEN
    RAISE EXCEPTION 'hash column % differs from slime_content_hash %', h, slime_content_hash(w)
      USING ERRCODE = 'XX000';
  END IF;
  RETURN true;
END $$;
CREATE FUNCTION fully_intact(w slime, h bytea) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  IF NOT (w::bytea::slime = w) THEN
    RAISE EXCEPTION 'value::bytea::slime <> value' USING ERRCODE = 'XX000';
  END IF;
  RETURN consistent(w, h);
END $$;
-- the same checks, for the end: false with no ERROR
CREATE FUNCTION damaged(w slime, h bytea) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  PERFORM fully_intact(w, h);
  RETURN NULL;
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
SQL
    i=1
    for r in "${REGIONS[@]}"; do
        read -r p rx rz <<<"$r"
        echo "INSERT INTO seeds SELECT $i, w, slime_content_hash(w)
              FROM (SELECT slime_import_region(pg_read_binary_file($(slime_sq "$CORPUS/$p")), $rx, $rz) w) s;"
        i=$((i + 1))
    done
    echo "INSERT INTO seed_chunks SELECT row_number() OVER () - 1, nbt FROM (
            SELECT slime_chunk_nbt(s.world, c.x, c.z) AS nbt FROM seeds s,
                   LATERAL (SELECT * FROM slime_chunks(s.world) LIMIT 2) c ORDER BY s.id, c.x, c.z) t;"
    echo "INSERT INTO worlds SELECT g, s.world, s.hash FROM generate_series(1, $NWORLDS) g
            JOIN seeds s ON s.id = 1 + (g - 1) % $NSEEDS;"
    echo "ANALYZE;"
} >"$WORK/setup.sql"
slime_suite_setup NCHUNKS

# ---- pgbench scripts -------------------------------------------------------
PICK="\\set id CASE WHEN random(1, 100) <= 70 THEN random(1, $HOT) ELSE random($((HOT + 1)), $NWORLDS) END"
cat >"$WORK/save.sql" <<EOF
$PICK
\\set x random(0, 7)
\\set z random(0, 7)
\\set k random(0, $((NCHUNKS - 1)))
BEGIN;
SELECT slime_info(world)->>'chunks' FROM worlds WHERE id = :id;
UPDATE worlds SET (world, hash) = (SELECT w, slime_content_hash(w) FROM
  (SELECT slime_put_chunk(worlds.world, :x, :z, slime_chunk_relocate((SELECT nbt FROM seed_chunks WHERE i = :k), :x, :z)) AS w) s)
  WHERE id = :id;
END;
EOF
cat >"$WORK/load.sql" <<EOF
$PICK
\\set x random(0, 7)
\\set z random(0, 7)
SELECT octet_length(slime_chunk_nbt(world, :x, :z)), slime_info(world), consistent(world, hash)
  FROM worlds WHERE id = :id;
EOF
cat >"$WORK/replace.sql" <<EOF
$PICK
\\set k random(1, $NSEEDS)
UPDATE worlds SET (world, hash) = (SELECT world, hash FROM seeds WHERE id = :k) WHERE id = :id;
EOF
cat >"$WORK/verify.sql" <<EOF
$PICK
SELECT fully_intact(world, hash) FROM worlds WHERE id = :id;
EOF
SCRIPTS=(save@4 load@8 replace@1 verify@1)

# check_values LABEL: every value passes the full check
check_values() {
    local res n bad
    res=$(slime_psql -At -F ' ' -c "SELECT count(*), count(damaged(world, hash)) FROM worlds" \
              -c "SELECT 'damaged: ' || id || ' ' || d FROM (SELECT id, damaged(world, hash) d FROM worlds) s
                  WHERE d IS NOT NULL LIMIT 10") ||
        { result FAIL "$1: the final check query failed"; return 0; }
    read -r n bad <<<"$(head -n 1 <<<"$res")"
    tail -n +2 <<<"$res"
    if [ "$bad" = 0 ] && [ "$n" = "$NWORLDS" ]; then
        result OK "$1: all $n values pass the full check (value::bytea::slime = value, hash column); damaged 0"
    else
        result FAIL "$1: $bad of $n values damaged (expected $NWORLDS rows)"
    fi
}

# bench LABEL DB ISOLATION SCRIPT@WEIGHT...: pgbench -c $CLIENTS (or
# $BENCH_CLIENTS) -j 2 -T $SECS
# with these scripts ($WORK/SCRIPT.sql) in database DB; prints the totals,
# per script and the server ERRORs by SQLSTATE; counts one check for
# pgbench itself and the server log, one for a backend killed by a signal.
bench() {
    local label=$1 db=$2 iso=$3 rc=0 off s args=() bad=0 clients=${BENCH_CLIENTS:-$CLIENTS}
    shift 3
    for s in "$@"; do args+=(-f "$WORK/${s%@*}.sql@${s#*@}"); done
    slime_log "concurrency: $label: pgbench -c $clients -j 2 -T $SECS at $iso${BENCH_NOTE:-} (database $db)"
    off=$(($(stat -c %s "$SERVER_LOG") + 1))
    PGOPTIONS="-c default_transaction_isolation=${iso// /\\ }" \
        "$PGBENCH" -n -c "$clients" -j 2 -T "$SECS" --max-tries=50 --failures-detailed \
        "${args[@]}" "$db" >"$WORK/$label.out" 2>"$WORK/$label.err" || rc=$?
    tail -c +"$off" "$SERVER_LOG" >"$WORK/$label.serverlog"

    # totals and per script
    grep -E '^(number of (transactions actually processed|failed transactions|serialization failures|deadlock failures|transactions retried)|total number of retries|tps =)' \
        "$WORK/$label.out" | sed 's/^/  /' || true
    awk '/^SQL script [0-9]+:/ { name = $4; sub(/.*\//, "", name); sub(/\.sql$/, "", name) }
         name && /^ - [0-9]+ transactions/ { gsub(/[(),]/, ""); n = $2; tps = $NF }
         name && /^ - number of failed transactions/ { f = $6 }
         name && /^ - number of transactions retried/ {
             printf "  script %-12s %7d transactions, tps %8.1f, failed %s, retried %s\n", name, n, tps, f, $6 }' "$WORK/$label.out"
    # ERRORs in the server log by SQLSTATE (log_line_prefix '%m [%p] %e ')
    awk '{ for (i = 1; i < NF; i++) if ($(i + 1) == "ERROR:") { n[$i]++; break } }
         END { for (c in n) printf "%s %d\n", c, n[c] }' "$WORK/$label.serverlog" | sort >"$WORK/$label.states"
    if [ -s "$WORK/$label.states" ]; then
        echo "  server ERRORs by SQLSTATE: $(awk '{ printf "%s%s x%s", sep, $1, $2; sep = ", " }' "$WORK/$label.states")"
    else
        echo "  server ERRORs by SQLSTATE: none"
    fi

    if [ "$rc" != 0 ] || grep -q 'aborted' "$WORK/$label.out" "$WORK/$label.err"; then
        result FAIL "$label: pgbench exit $rc or a client aborted"
        grep -v '^\s*$' "$WORK/$label.err" | grep -v 'could not serialize\|deadlock detected' | head -n 20 || true
        bad=1
    fi
    if awk '$1 != "40001" && $1 != "40P01" { found = 1 } END { exit !found }' "$WORK/$label.states"; then
        result FAIL "$label: server ERRORs other than 40001/40P01:"
        grep -E ' ERROR: ' "$WORK/$label.serverlog" | grep -v ' 40001 ERROR: \| 40P01 ERROR: ' | head -n 10
        bad=1
    fi
    for s in "$@"; do
        s=${s%@*}
        if ! awk -v f="$WORK/$s.sql" '/^SQL script [0-9]+:/ { on = ($4 == f) }
                on && /^ - [0-9]+ transactions/ { n = $2 } END { exit !(n > 0) }' "$WORK/$label.out"; then
            result FAIL "$label: script $s ran no transaction"; bad=1
        fi
    done
    [ "$bad" = 0 ] && result OK "$label: pgbench ran, only expected errors ($(grep '^number of failed' "$WORK/$label.out" | sed 's/number of //'))"
    if grep -q 'terminated by signal\|PANIC' "$WORK/$label.serverlog"; then
        result FAIL "$label: a backend died (server log):"; grep 'terminated by signal\|PANIC' "$WORK/$label.serverlog" | head -n 5
    fi
    return 0
}

# run LABEL ISOLATION: the four scripts on the worlds table, then the full check
run() {
    bench "$1" "$PGDATABASE" "$2" "${SCRIPTS[@]}"
    check_values "$1"
}

run read-committed "read committed"
run repeatable-read "repeatable read"
if [ -f "$WORK/repeatable-read.states" ] && ! grep -q '^40001 ' "$WORK/repeatable-read.states"; then
    echo "NOTE: no serialization failure at repeatable read this time (expected some on the hot rows)"
fi

# ---- the chunk store: saves, pruning, GC and loads at once -----------------
# Database slime_store_conc: island saves through slime_store_trigger(),
# seeded from corpus worlds (two islands per seed world, so they share every
# chunk at first). Each save is one of the island's saves with one chunk
# changed (a tag set in its NBT, so the chunk is new and all others are
# reused from the store); "expect" is the content hash of that value before
# the trigger stored it.
SDB=slime_store_conc
STORE_SEEDS=(1 2 3 5)       # indexes (1-based) into REGIONS
NISLANDS=8
KEEP=3                      # prune keeps the newest KEEP saves of an island
STORE_CLIENTS=${SLIME_CONCURRENCY_STORE_CLIENTS:-6}
{
    echo "CREATE EXTENSION slime;"
    cat <<'SQL'
CREATE TABLE seeds(id int PRIMARY KEY, world slime);
CREATE TABLE saves(id bigserial PRIMARY KEY, island int NOT NULL, world slime NOT NULL,
                   expect bytea NOT NULL);
CREATE INDEX ON saves(island, id);
CREATE TRIGGER saves_store BEFORE INSERT OR UPDATE ON saves
    FOR EACH ROW EXECUTE FUNCTION slime_store_trigger();
-- saves is tracked (slime_gc() takes its references from their counts;
-- the repeatable-read run below drops its tracking trigger, so that the GC
-- reads it as an untracked table)
SELECT slime_track('saves');
CREATE TABLE gc_log AS SELECT clock_timestamp() AS at, * FROM slime_gc() WITH NO DATA;
-- what is wrong with one save (NULL: nothing): reference form, content hash
-- equal to the hash recorded before storing, resolves and passes the full check
CREATE FUNCTION save_problem(w slime, e bytea) RETURNS text LANGUAGE plpgsql STABLE AS $$
DECLARE r slime;
BEGIN
  IF coalesce((slime_info(w)->>'store_refs')::int, 0) = 0 THEN
    RETURN 'not in reference form (store_refs 0)';
  END IF;
  IF slime_content_hash(w) IS DISTINCT FROM e THEN
    RETURN 'slime_content_hash ' || encode(slime_content_hash(w), 'hex') || ' <> expect ' || encode(e, 'hex');
  END IF;
  r := slime_resolve(w);
  IF NOT slime_verify(r) THEN RETURN 'slime_verify(slime_resolve(world)) is false'; END IF;
  IF slime_content_hash(r) IS DISTINCT FROM e THEN RETURN 'the resolved value''s content hash <> expect'; END IF;
  IF coalesce((slime_info(r)->>'store_refs')::int, -1) <> 0 THEN RETURN 'slime_resolve left references'; END IF;
  RETURN NULL;
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
-- the same, as an ERROR (XX000) for the pgbench scripts
CREATE FUNCTION check_save(w slime, e bytea) RETURNS boolean LANGUAGE plpgsql STABLE AS $$
DECLARE p text := save_problem(w, e);
BEGIN
  IF p IS NOT NULL THEN RAISE EXCEPTION 'save check: %', p USING ERRCODE = 'XX000'; END IF;
  RETURN true;
END $$;
SQL
    i=1
    for k in "${STORE_SEEDS[@]}"; do
        read -r p rx rz <<<"${REGIONS[k - 1]}"
        echo "INSERT INTO seeds VALUES ($i, slime_import_region(pg_read_binary_file($(slime_sq "$CORPUS/$p")), $rx, $rz));"
        i=$((i + 1))
    done
    echo "INSERT INTO saves(island, world, expect) SELECT g, s.world, slime_content_hash(s.world)
            FROM generate_series(1, $NISLANDS) g JOIN seeds s ON s.id = 1 + (g - 1) % ${#STORE_SEEDS[@]} ORDER BY g;"
    # a loader of 4 worlds, one save each, from 4 slime files (5x5-chunk corners of a 1.21 region)
    read -r p rx rz <<<"${REGIONS[7]}"
    cat <<SQL
SELECT slime_loader_create('ldr');
CREATE TABLE ldr_files AS
SELECT k, slime_to_slimefile(slime_agg(slime_put_chunk(NULL, c.x, c.z, slime_chunk_nbt(r.w, c.x, c.z)))) AS f
FROM (SELECT slime_import_region(pg_read_binary_file($(slime_sq "$CORPUS/$p")), $rx, $rz) AS w) r,
     generate_series(0, 3) k, slime_chunks(r.w) c
WHERE c.x >= 32 * $rx + (k % 2) * 5 AND c.x < 32 * $rx + (k % 2) * 5 + 5
  AND c.z >= 32 * $rz + (k / 2) * 5 AND c.z < 32 * $rz + (k / 2) * 5 + 5
GROUP BY k;
SELECT slime_loader_save('ldr', 'w' || k, slime_lease_acquire('ldr', 'w' || k, 'setup', '1 min'), f, 3)
FROM ldr_files ORDER BY k;
UPDATE ldr_worlds SET holder = NULL, expires = NULL;
CREATE TABLE settle_log(at timestamptz, what text, items bigint, bytes_before bigint, bytes_after bigint);
-- what is wrong with a loader world's load (NULL: nothing): it must hold
-- the newest save's content; one snapshot (STABLE)
CREATE FUNCTION load_problem(w text) RETURNS text LANGUAGE plpgsql STABLE AS \$\$
DECLARE f bytea := slime_loader_load('ldr', w); e bytea;
BEGIN
  SELECT slime_content_hash(data) INTO e FROM ldr WHERE world = w ORDER BY save DESC LIMIT 1;
  IF f IS NULL THEN RETURN 'no file loaded'; END IF;
  IF slime_content_hash(slime_from_slimefile(f)) IS DISTINCT FROM e THEN
    RETURN 'the loaded file does not hold the newest save';
  END IF;
  RETURN NULL;
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END \$\$;
CREATE FUNCTION check_load(w text) RETURNS boolean LANGUAGE plpgsql STABLE AS \$\$
DECLARE p text := load_problem(w);
BEGIN
  IF p IS NOT NULL THEN RAISE EXCEPTION 'load check of %: %', w, p USING ERRCODE = 'XX000'; END IF;
  RETURN true;
END \$\$;
SQL
    echo "ANALYZE;"
} >"$WORK/store-setup.sql"
slime_log "concurrency: chunk store database $SDB (${#STORE_SEEDS[@]} seed worlds, $NISLANDS islands)"
createdb "$SDB"
slime_psql -d "$SDB" -f "$WORK/store-setup.sql" >/dev/null
slime_psql -d "$SDB" -At -F ' ' -c "SELECT count(*), sum((slime_info(world)->>'store_refs')::int),
       (SELECT count(*) FROM slime_store) FROM saves" |
    { read -r n refs entries; echo "  $n saves holding $refs chunk references; $entries store entries"; }
SEED_ENTRIES=$(slime_psql -d "$SDB" -At -c "SELECT count(*) FROM slime_store")

# (a) save: a new save of an island = one of its saves with one chunk
# changed. At READ COMMITTED the base is the latest save; at REPEATABLE
# READ any of the newest KEEP (a rollback to an older save, which prune and
# GC may take meanwhile: slime_store() must then fail with 40001, retried).
store_save() {     # store_save [ISOLATION]: the script text
    echo "\\set isl random(1, $NISLANDS)"
    echo "\\set u random(1, 2000000000)"
    if [ -n "${1:-}" ]; then
        # the snapshot is taken by the first query, a moment before the save
        echo "\\set o random(0, $((KEEP - 1)))"
        echo "BEGIN ISOLATION LEVEL $1;"
        echo "SELECT count(*) FROM saves WHERE island = :isl;"
        echo "\\sleep 10 ms"
    fi
    cat <<'EOF'
INSERT INTO saves(island, world, expect)
SELECT :isl, w, slime_content_hash(w) FROM (
  SELECT slime_put_chunk(s.world, c.x, c.z,
           slime_json_to_nbt(slime_chunk_json(s.world, c.x, c.z) || jsonb_build_object('SlimeConcurrencySave', :u))) AS w
EOF
    if [ -n "${1:-}" ]; then
        echo "  FROM (SELECT world FROM saves WHERE island = :isl ORDER BY id DESC LIMIT 1 OFFSET :o) s"
    else
        echo "  FROM (SELECT world FROM saves WHERE island = :isl ORDER BY id DESC LIMIT 1) s"
    fi
    cat <<'EOF'
  CROSS JOIN LATERAL (SELECT x, z FROM slime_chunks(s.world) ORDER BY random() LIMIT 1) c
  OFFSET 0) t;
EOF
    if [ -n "${1:-}" ]; then echo "END;"; fi
}
store_save >"$WORK/store-save.sql"
store_save "REPEATABLE READ" >"$WORK/store-save-rr.sql"
# (b) prune: all but the newest KEEP saves of an island (their chunks become garbage)
cat >"$WORK/store-prune.sql" <<EOF
\\set isl random(1, $NISLANDS)
DELETE FROM saves WHERE island = :isl AND id < (
  SELECT min(id) FROM (SELECT id FROM saves WHERE island = :isl ORDER BY id DESC LIMIT $KEEP) k);
EOF
# (c) gc, its results kept for the report
cat >"$WORK/store-gc.sql" <<'EOF'
INSERT INTO gc_log SELECT clock_timestamp(), * FROM slime_gc();
EOF
# (d) load: one chunk's NBT and block entities of a save, the oldest ones
# (those prune and GC are about to take) as often as the newest
cat >"$WORK/store-load.sql" <<EOF
\\set isl random(1, $NISLANDS)
\\set o random(0, $KEEP)
SELECT octet_length(slime_chunk_nbt(s.world, c.x, c.z)),
       (SELECT count(*) FROM slime_block_entities(s.world, c.x, c.z)),
       (SELECT count(*) FROM slime_block_entities(s.world))
  FROM (SELECT world FROM saves WHERE island = :isl ORDER BY id LIMIT 1 OFFSET :o) s
  CROSS JOIN LATERAL (SELECT x, z FROM slime_chunks(s.world) ORDER BY random() LIMIT 1) c;
EOF
# ... and the whole save: resolved, fully checked, hash as recorded
cat >"$WORK/store-loadall.sql" <<EOF
\\set isl random(1, $NISLANDS)
\\set o random(0, $KEEP)
SELECT check_save(world, expect) FROM saves WHERE island = :isl ORDER BY id LIMIT 1 OFFSET :o;
EOF

# (e) settle, its results kept for the report
cat >"$WORK/store-settle.sql" <<'EOF'
INSERT INTO settle_log SELECT clock_timestamp(), * FROM slime_settle(older_than => '0', batch_size => 20);
EOF
# ... and the procedure, a batch a transaction
cat >"$WORK/store-settle-batches.sql" <<'EOF'
CALL slime_settle_batches(older_than => '0', batch_size => 10);
EOF
# (e') one pack's entries unsettled again: the next settle repacks them
cat >"$WORK/store-repack.sql" <<'EOF'
UPDATE slime_store SET settled = false WHERE pack = (SELECT min(pack) FROM slime_store);
EOF
# (f) a loader save: lease a world, save one of the files, release (the world is cold then)
cat >"$WORK/loader-save.sql" <<'EOF'
\set w random(0, 3)
\set k random(0, 3)
SELECT coalesce(slime_lease_acquire('ldr', 'w' || :w, 'c' || :client_id, '1 min'), 0) AS tok \gset
\if :tok > 0
SELECT slime_loader_save('ldr', 'w' || :w, :tok, f, 3) FROM ldr_files WHERE k = :k;
SELECT slime_lease_release('ldr', 'w' || :w, :tok);
\endif
EOF
# (g) a loader load holds the newest save
cat >"$WORK/loader-load.sql" <<'EOF'
\set w random(0, 3)
SELECT check_load('w' || :w);
EOF

# check_store LABEL: every save intact, every island still there, store entries intact
check_store() {
    local res n bad refs0 isl sv
    res=$(slime_psql -d "$SDB" -At -F ' ' \
              -c "SELECT count(*), count(save_problem(world, expect)),
                         count(*) FILTER (WHERE coalesce((slime_info(world)->>'store_refs')::int, 0) = 0),
                         count(DISTINCT island), (SELECT count(*) FROM slime_store_verify()) FROM saves" \
              -c "SELECT 'bad save: ' || id || ' (island ' || island || ') ' || p
                  FROM (SELECT id, island, save_problem(world, expect) p FROM saves) s
                  WHERE p IS NOT NULL ORDER BY id LIMIT 10" \
              -c "SELECT 'bad store entry: ' || encode(hash, 'hex') || ' ' || problem FROM slime_store_verify() LIMIT 10") ||
        { result FAIL "$1: the check query failed"; return 0; }
    read -r n bad refs0 isl sv <<<"$(head -n 1 <<<"$res")"
    tail -n +2 <<<"$res"
    if [ "$n" -gt 0 ] && [ "$bad" = 0 ] && [ "$refs0" = 0 ]; then
        result OK "$1: all $n saves resolve (slime_verify(slime_resolve(world))), content hash = expect, reference form"
    else
        result FAIL "$1: $bad of $n saves bad, $refs0 not in reference form"
    fi
    if [ "$isl" = "$NISLANDS" ]; then result OK "$1: every island ($isl) still has a save"
    else result FAIL "$1: $isl islands of $NISLANDS have a save"; fi
    if [ "$sv" = 0 ]; then result OK "$1: slime_store_verify() empty"
    else result FAIL "$1: slime_store_verify() lists $sv entries"; fi
}

# run_store LABEL SAVE_SCRIPT NOTE [SCRIPT@WEIGHT...]: the store scripts (and
# any others given) side by side at READ COMMITTED (the save script sets its
# own level), then the checks, a GC, the checks again
run_store() {
    local label=$1 save=$2 note=$3 n refs total runs removed gc1 gc2 live missing extra inserted
    shift 3
    slime_psql -d "$SDB" -c "TRUNCATE gc_log"
    inserted=$(slime_psql -d "$SDB" -At -c "SELECT last_value FROM saves_id_seq")
    BENCH_CLIENTS=$STORE_CLIENTS BENCH_NOTE=$note \
        bench "$label" "$SDB" "read committed" "$save@6" store-prune@2 store-gc@1 store-load@4 store-loadall@1 "$@"
    read -r runs removed <<<"$(slime_psql -d "$SDB" -At -F ' ' -c "SELECT count(*), coalesce(sum(removed_entries), 0) FROM gc_log")"
    inserted=$(( $(slime_psql -d "$SDB" -At -c "SELECT last_value FROM saves_id_seq") - inserted ))
    echo "  $inserted save ids drawn (saves committed, retried or failed); slime_gc() ran $runs times during the run, removed $removed entries"
    if [ "$runs" -gt 0 ] && [ "$removed" -gt 0 ]; then
        result OK "$label: slime_gc() collected garbage while saves ran ($runs runs, $removed entries)"
    else
        result FAIL "$label: slime_gc() ran $runs times and removed $removed entries during the run (expected garbage from prune)"
    fi
    check_store "$label"

    # a final GC: afterwards the store holds exactly what the rows refer to
    gc1=$(slime_psql -d "$SDB" -At -F ' ' -c "SELECT * FROM slime_gc()") ||
        { result FAIL "$label: final slime_gc() failed"; return 0; }
    gc2=$(slime_psql -d "$SDB" -At -c "SELECT removed_entries FROM slime_gc()") || gc2="(second slime_gc() failed)"
    echo "  final slime_gc(): removed_entries removed_bytes kept_entries kept_bytes columns_scanned tables_tracked candidates values_read untracked skipped = $gc1"
    read -r live missing extra <<<"$(slime_psql -d "$SDB" -At -F ' ' -c "
        WITH live AS (SELECT r FROM saves, unnest(slime_refs(world)) r
                      UNION SELECT r FROM ldr, unnest(slime_refs(data)) r)
        SELECT (SELECT count(*) FROM live),
               (SELECT count(*) FROM live WHERE NOT EXISTS (SELECT 1 FROM slime_store s WHERE s.hash = live.r)),
               (SELECT count(*) FROM slime_store s WHERE NOT EXISTS (SELECT 1 FROM live WHERE live.r = s.hash))")"
    if [ "$gc2" = 0 ] && [ "$missing" = 0 ] && [ "$extra" = 0 ]; then
        result OK "$label: after a final slime_gc() the store holds exactly the $live chunks the saves refer to (a second GC removes 0)"
    else
        result FAIL "$label: after the final GC: $missing referenced chunks missing, $extra unreferenced entries, second GC removed $gc2"
    fi
    # deduplication: each save ever made adds at most its one changed chunk
    read -r n refs <<<"$(slime_psql -d "$SDB" -At -F ' ' -c "
        SELECT count(*), sum((slime_info(world)->>'store_refs')::int) FROM saves")"
    total=$(slime_psql -d "$SDB" -At -c "SELECT last_value FROM saves_id_seq")
    if [ "$live" -le $((SEED_ENTRIES + total)) ]; then
        result OK "$label: chunks shared: $n saves hold $refs references to $live entries (at most $SEED_ENTRIES seed chunks + 1 per save, $total saves so far)"
    else
        result FAIL "$label: $live live entries, more than the seeds' $SEED_ENTRIES plus one per save ($total)"
    fi
    check_store "$label, after the final GC"
    return 0
}

# check_settle LABEL: settle worked during the run, every loader world loads its newest save
check_settle() {
    local entries files gathered bad
    read -r entries files gathered <<<"$(slime_psql -d "$SDB" -At -F ' ' -c "
        SELECT coalesce(sum(items) FILTER (WHERE what = 'store entries'), 0),
               coalesce(sum(items) FILTER (WHERE what = 'loader files'), 0),
               coalesce(sum(items) FILTER (WHERE what = 'gathered entries'), 0) FROM settle_log")"
    echo "  slime_settle() ran $(slime_psql -d "$SDB" -At -c "SELECT count(*) FILTER (WHERE what = 'store entries') FROM settle_log") times: $entries store entries settled, $files loader files put in their cold form, $gathered entries gathered"
    if [ "$entries" -gt 0 ] && [ "$files" -gt 0 ]; then
        result OK "$1: slime_settle() packed store entries and settled cold loader files while saves, loads and slime_gc() ran"
    else
        result FAIL "$1: slime_settle() settled $entries store entries and $files loader files during the run"
    fi
    read -r packs lost empty <<<"$(slime_psql -d "$SDB" -At -F ' ' -c "
        SELECT (SELECT count(*) FROM slime_store_packs),
               (SELECT count(*) FROM slime_store s WHERE s.pack IS NOT NULL
                  AND NOT EXISTS (SELECT 1 FROM slime_store_packs p WHERE p.id = s.pack)),
               (SELECT count(*) FROM slime_store_packs p WHERE NOT EXISTS (SELECT 1 FROM slime_store s WHERE s.pack = p.id))")"
    if [ "$packs" -gt 0 ] && [ "$lost" = 0 ] && [ "$empty" = 0 ]; then
        result OK "$1: $packs packs, every packed entry's pack there, no pack without an entry"
    else
        result FAIL "$1: $packs packs, $lost packed entries without their pack, $empty packs without an entry"
    fi
    bad=$(slime_psql -d "$SDB" -At -c "SELECT string_agg(world || ': ' || p, '; ')
        FROM (SELECT world, load_problem(world) p FROM ldr_worlds) s WHERE p IS NOT NULL")
    if [ -z "$bad" ]; then result OK "$1: every loader world loads its newest save"
    else result FAIL "$1: loader loads: $bad"; fi
}

run_store store-read-committed store-save " (saves tracked)"
slime_psql -d "$SDB" -c "DROP TRIGGER slime_track ON saves" >/dev/null
run_store store-repeatable-read store-save-rr " (save script at repeatable read; saves not tracked: the GC reads them)"
slime_psql -d "$SDB" -c "SELECT slime_track('saves')" >/dev/null
if [ -f "$WORK/store-repeatable-read.states" ] && ! grep -q '^40001 ' "$WORK/store-repeatable-read.states"; then
    echo "NOTE: no serialization failure in the chunk-store run at repeatable read this time"
fi
run_store store-settle store-save " (with slime_settle and a loader)" store-settle@1 store-settle-batches@1 store-repack@1 loader-save@2 loader-load@2
check_settle store-settle

# ---- the loader's memoised saves racing deletes and slime_gc() ---------------
# A loader (slime_loader_create) in the store database: NISLANDS worlds, each
# saved again and again from 4 slime files of the same 25-chunk island that
# differ in one chunk of their own (so a save converts one or two chunks and
# takes the others from the memo), slime_loader_delete of a world (its memo
# then names chunks no save holds) and slime_gc() side by side. The cluster
# runs with slime.loader_verify = on: a save whose value differs from a whole
# conversion of its file raises XX000. Afterwards every save is one of its
# world's files (content hash), resolves and passes the full check.
read -r p rx rz <<<"${REGIONS[7]}"
slime_psql -d "$SDB" >/dev/null <<SQL
SELECT slime_loader_create('isl');
SELECT slime_lease_acquire('isl', 'w' || g, 'conc', '1 day') FROM generate_series(1, $NISLANDS) g;
CREATE TABLE loader_files AS
WITH base AS (SELECT slime_agg(slime_put_chunk(NULL, c.x, c.z, slime_chunk_nbt(w, c.x, c.z))) w
              FROM (SELECT slime_import_region(pg_read_binary_file($(slime_sq "$CORPUS/$p")), $rx, $rz) w) r,
                   slime_chunks(w) c WHERE c.x < $rx * 32 + 5 AND c.z < $rz * 32 + 5)
SELECT g AS island, k, slime_to_slimefile(slime_put_chunk(w, c.x, c.z,
         overlay(n PLACING int8send(g * 100 + k) FROM position(hm IN n) + 21 FOR 8))) AS f
FROM base, (SELECT '\\x000f4d4f54494f4e5f424c4f434b494e4700000025'::bytea hm) h,   -- MOTION_BLOCKING, 37 longs
     generate_series(1, $NISLANDS) g, generate_series(1, 4) k,
     LATERAL (SELECT x, z FROM slime_chunks(w) WHERE position(hm IN slime_chunk_nbt(w, x, z)) > 0
              ORDER BY x, z OFFSET k LIMIT 1) c,
     LATERAL (SELECT slime_chunk_nbt(w, c.x, c.z) n) e;
SQL
printf '%s\n' "\\set isl random(1, $NISLANDS)" "\\set k random(1, 4)" \
    "SELECT slime_loader_save('isl', 'w' || :isl, 1, f, 2) FROM loader_files WHERE island = :isl AND k = :k;" \
    >"$WORK/memo-save.sql"
printf '%s\n' "\\set isl random(1, $NISLANDS)" "SELECT slime_loader_delete('isl', 'w' || :isl, 1);" \
    >"$WORK/memo-delete.sql"
slime_psql -d "$SDB" -c "TRUNCATE gc_log" >/dev/null
BENCH_CLIENTS=$STORE_CLIENTS BENCH_NOTE=" (memoised loader saves)" \
    bench loader "$SDB" "read committed" memo-save@6 memo-delete@1 store-gc@1
read -r runs removed <<<"$(slime_psql -d "$SDB" -At -F ' ' -c "SELECT count(*), coalesce(sum(removed_entries), 0) FROM gc_log")"
if [ "$runs" -gt 0 ] && [ "$removed" -gt 0 ]; then
    result OK "loader: slime_gc() collected the chunks of deleted worlds while memoised saves ran ($runs runs, $removed entries)"
else
    result FAIL "loader: slime_gc() ran $runs times and removed $removed entries during the run"
fi
read -r n bad sv <<<"$(slime_psql -d "$SDB" -At -F ' ' -c "
    SELECT count(*),
           count(*) FILTER (WHERE NOT slime_verify(slime_resolve(s.data)) OR NOT EXISTS (
               SELECT 1 FROM loader_files l WHERE 'w' || l.island = s.world
                 AND slime_content_hash(slime_from_slimefile(l.f)) = slime_content_hash(s.data))),
           (SELECT count(*) FROM slime_store_verify())
    FROM isl s")"
if [ "$n" -gt 0 ] && [ "$bad" = 0 ] && [ "$sv" = 0 ]; then
    result OK "loader: all $n saves resolve, pass the full check and are the value of one of their world's files; slime_store_verify() empty"
else
    result FAIL "loader: $bad of $n saves bad, slime_store_verify() lists $sv entries"
fi
# ---- deferred saves racing catch-ups, loads and slime_gc() --------------------
# A third loader with its _pending table (0.13.0): NISLANDS worlds, each
# saved first by a save that converts, then again and again with
# slime.loader_defer on from the memoised saves' 4 files (each save logged
# with its file, in its own transaction), beside slime_loader_catch_up() of
# batches of 2 worlds (SKIP LOCKED) and of one world (waiting for its row),
# loads and slime_gc(). A load, in a REPEATABLE READ transaction, must give
# the file of the newest save the log names under the same snapshot, pending
# or converted (else XX000). Afterwards a last catch-up leaves nothing
# pending; every save row holds its logged file's content, resolves and
# passes the full check; every world loads its newest save; and
# slime_store_verify() is empty.
slime_psql -d "$SDB" >/dev/null <<SQL
SELECT slime_loader_create('dfr');
SELECT slime_loader_defer_table('dfr');
CREATE TABLE dfr_log (world text, save bigint, k int, PRIMARY KEY (world, save));
CREATE TABLE dfr_caught (n bigint);
CREATE TABLE dfr_hash AS SELECT 'd' || island AS world, k, slime_content_hash(slime_from_slimefile(f)) AS h FROM loader_files;
INSERT INTO dfr_log SELECT 'd' || g, slime_loader_save('dfr', 'd' || g, slime_lease_acquire('dfr', 'd' || g, 'conc', '1 day'), f, 3), 1
FROM generate_series(1, $NISLANDS) g JOIN loader_files ON island = g AND k = 1;
CREATE FUNCTION dfr_newest(w text) RETURNS boolean LANGUAGE plpgsql AS \$\$
BEGIN
  IF slime_content_hash(slime_from_slimefile(slime_loader_load('dfr', w))) IS DISTINCT FROM
     (SELECT h.h FROM dfr_log l JOIN dfr_hash h USING (world, k) WHERE l.world = w ORDER BY l.save DESC LIMIT 1) THEN
    RAISE EXCEPTION 'world %: its load is not its newest save', w USING ERRCODE = 'XX000';
  END IF;
  RETURN true;
END \$\$;
SQL
printf '%s\n' "\\set isl random(1, $NISLANDS)" "\\set k random(1, 4)" "BEGIN;" "SET LOCAL slime.loader_defer = on;" \
    "INSERT INTO dfr_log SELECT 'd' || :isl, slime_loader_save('dfr', 'd' || :isl, w.token, f, 3), :k FROM loader_files, dfr_worlds w WHERE island = :isl AND k = :k AND w.world = 'd' || :isl;" \
    "END;" >"$WORK/dfr-save.sql"
printf '%s\n' "INSERT INTO dfr_caught SELECT slime_loader_catch_up('dfr', NULL, 2);" >"$WORK/dfr-catch.sql"
printf '%s\n' "\\set isl random(1, $NISLANDS)" "INSERT INTO dfr_caught SELECT slime_loader_catch_up('dfr', 'd' || :isl);" \
    >"$WORK/dfr-catch-one.sql"
printf '%s\n' "\\set isl random(1, $NISLANDS)" "BEGIN ISOLATION LEVEL REPEATABLE READ;" "SELECT dfr_newest('d' || :isl);" "END;" \
    >"$WORK/dfr-load.sql"
BENCH_CLIENTS=$STORE_CLIENTS BENCH_NOTE=" (deferred saves)" \
    bench deferred "$SDB" "read committed" dfr-save@5 dfr-catch@1 dfr-catch-one@1 dfr-load@2 store-gc@1
read -r caught pend logged conv <<<"$(slime_psql -d "$SDB" -At -F ' ' -c "
    SELECT (SELECT coalesce(sum(n), 0) FROM dfr_caught), (SELECT count(*) FROM dfr_pending), (SELECT count(*) FROM dfr_log),
           slime_loader_catch_up('dfr', NULL, NULL)")"
read -r n bad left newest sv <<<"$(slime_psql -d "$SDB" -At -F ' ' -c "
    SELECT count(*),
           count(*) FILTER (WHERE NOT slime_verify(slime_resolve(s.data)) OR NOT EXISTS (
               SELECT 1 FROM dfr_log l JOIN dfr_hash h USING (world, k)
               WHERE l.world = s.world AND l.save = s.save AND h.h = slime_content_hash(s.data))),
           (SELECT count(*) FROM dfr_pending),
           (SELECT count(*) FILTER (WHERE dfr_newest(world)) FROM dfr_worlds),
           (SELECT count(*) FROM slime_store_verify())
    FROM dfr s")"
if [ "$caught" -gt 0 ] && [ "$n" -gt 0 ] && [ "$bad" = 0 ] && [ "$left" = 0 ] && [ "$newest" = "$NISLANDS" ] && [ "$sv" = 0 ]; then
    result OK "deferred: $logged saves logged, $caught converted by catch-ups during the run, $pend pending at the end ($conv converted by the last catch-up, the rest past keep); all $n saves rows hold their logged file, resolve and pass the full check; all $NISLANDS worlds load their newest save; slime_store_verify() empty"
else
    result FAIL "deferred: $caught saves converted during the run, $pend pending at the end, $left after the last catch-up; $bad of $n saves rows bad; $newest of $NISLANDS worlds load their newest save; slime_store_verify() lists $sv entries"
fi
# ---- a settle batch holds only its own worlds --------------------------------
# Four worlds saved (their store entries settled while they are leased).
# slime_settle(batch_size => 1, max_batches => 1) puts one cold loader
# world's file in its cold form (the first by name) and holds that world's
# row until its transaction ends; while it is held open, every other cold
# world's lease is taken at once (0.11.0 settled every cold world in the
# call, whatever max_batches, so each lease waited for the whole call), and
# the settled one's lease waits (lock_timeout: 55P03). Then
# CALL slime_settle_batches(batch_size => 1) settles every world left, a
# commit each.
slime_psql -d "$SDB" >/dev/null <<SQL
SELECT slime_loader_create('held');
SELECT slime_loader_save('held', 'h' || k, slime_lease_acquire('held', 'h' || k, 'setup', '1 min'), f, 3)
FROM ldr_files ORDER BY k;
SELECT count(*) FROM slime_settle('0');   -- the saves' store entries (the worlds leased)
UPDATE held_worlds SET holder = NULL, expires = NULL;
SQL
"$SLIME_PG_BIN/psql" -X -q -d "$SDB" -At -v ON_ERROR_STOP=1 >"$WORK/held-settle.out" 2>&1 <<'SQL' &
SET application_name = 'held_settle';
BEGIN;
SELECT items FROM slime_settle('0', batch_size => 1, max_batches => 1) WHERE what = 'loader files';
SELECT pg_sleep(300);
COMMIT;
SQL
held_pid=$!
for _ in $(seq 1 300); do
    st=$(slime_psql -d "$SDB" -At -c "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'held_settle' AND query LIKE 'SELECT pg_sleep%'")
    [ "$st" = 1 ] && break
    sleep 0.1
done
got=$(slime_psql -d "$SDB" -At -F ' ' 2>&1 <<'SQL'
SET lock_timeout = '10s';
SELECT string_agg(world, ',' ORDER BY world) FROM held_worlds w
WHERE w.world <> 'h0' AND slime_lease_acquire('held', w.world, 'other', '1 min') IS NOT NULL;
SET lock_timeout = '200ms';
SELECT slime_lease_acquire('held', 'h0', 'other', '1 min');
SQL
) || true
slime_psql -d "$SDB" -At -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'held_settle'" >/dev/null
wait "$held_pid" 2>/dev/null || true
if [ "$(head -n 1 "$WORK/held-settle.out")" = 1 ] && printf '%s\n' "$got" | grep -qx 'h1,h2,h3' &&
   printf '%s\n' "$got" | grep -q 'canceling statement due to lock timeout'; then
    result OK "settle: a batch of one held open locks its world only (the other 3 leased at once; its own lease waits)"
else
    result FAIL "settle: a batch of one held open: settled $(head -n 1 "$WORK/held-settle.out"), leases: $got"
fi
read -r files cold <<<"$(slime_psql -d "$SDB" -q -At -F ' ' <<'SQL'
UPDATE held_worlds SET holder = NULL, expires = NULL;
CALL slime_settle_batches('0', batch_size => 1) \gset
SELECT :files, count(*) FROM held_worlds WHERE substring(file, 1, 4) = 'SLCF'::bytea;
SQL
)"
if [ "$files" = 4 ] && [ "$cold" = 4 ]; then
    result OK "settle: CALL slime_settle_batches(batch_size => 1) settled all 4 cold files, a batch a commit"
else
    result FAIL "settle: CALL slime_settle_batches(batch_size => 1) settled ${files:-?} files; ${cold:-?} of 4 in cold form"
fi
finish
