#!/usr/bin/env bash
# test/crash.sh — crash safety of stored slime values.
#
# On its own throwaway cluster (test/lib.sh; synchronous_commit and
# full_page_writes switched back on, since the throwaway defaults would
# make acknowledged commits losable; fsync stays off: a killed process
# loses nothing the kernel already has), two phases, each ended by SIGKILL:
#
#   a. bulk import: CRASH_IMPORT_CLIENTS psql sessions, many short
#      transactions, each INSERTing a world imported server-side from a
#      corpus region file (pg_read_binary_file + slime_import_region),
#      two in three also edited with slime_put_chunk.  After a few seconds
#      the postmaster and all its children are killed with SIGKILL at once.
#   b. save burst: CRASH_SAVE_CLIENTS sessions UPDATE a few shared rows
#      (SELECT .. FOR UPDATE, then slime_put_chunk of one chunk stamped
#      with a unique number, so every saved value has a content hash never
#      seen before).  Only the postmaster is killed; its orphaned backends
#      are left to notice (stragglers are SIGKILLed after 10 s).
#
# Each client logs "P id old new" before and "C id old new" after every
# COMMIT the server acknowledged (old/new: content hashes, old "-" for an
# INSERT).  After the restart (crash recovery) every row gets the full
# check: value::bytea::slime = value (structure, CRCs, frame checksums,
# NBT, content hash), the stored hash column and the logged hash.
#   a: every committed id present with its logged hash; rows the client
#      never saw committed only from a transaction in flight ("P" only).
#   b: per row, the committed updates form one chain old -> new from the
#      hash before the burst; the row must hold the chain's end, or a value
#      one in-flight update further.
#   c. the chunk store (issue #32): CRASH_STORE_CLIENTS sessions save
#      one-chunk edits of islands (and now and then replace an island
#      whole) through slime_store_trigger() into a tracked table
#      (slime_track), while one more runs slime_gc() back to back, so that
#      entries go and come while the log, the counts and the pins are
#      written. All processes are killed at once. slime_gc()'s log and counts
#      are unlogged: recovery empties them, and the first collection after
#      it reads every table once. Every committed island must still read
#      all its chunks (slime_verify_refs) before that collection and after,
#      and after it the store holds exactly the chunks the islands refer to.
# Plus: the whole table reads back (seq scan and index scan agree), and a
# VACUUM after recovery passes.  Prints "committed N, intact N, in-flight
# visible K, damaged D" per phase, then "N passed, N failed"; exit 1 on any
# mismatch.  SLIME_CRASH_SECONDS (default 5) is how long each phase runs
# before the kill.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
RANDOM=4242   # nothing random: the clients' statements and the kill points are the same each run

slime_suite_begin crash
RUN_SECONDS=${SLIME_CRASH_SECONDS:-5}
CLIENTS_A=${CRASH_IMPORT_CLIENTS:-3}
CLIENTS_B=${CRASH_SAVE_CLIENTS:-4}
CLIENTS_C=${CRASH_STORE_CLIENTS:-3}
HOT_ROWS=6                               # rows the save burst fights over

# Regions that import strictly, of several eras and sizes: "path rx rz".
REGIONS=(
    "anvil-1.2-1.12/amulet-core/1_12_2/r.0.0.mca 0 0"
    "anvil-1.13-1.17/mcaselector/anvil113/r.0.0.mca 0 0"
    "anvil-1.13-1.17/mcaselector/anvil115/r.0.0.mca 0 0"
    "anvil-1.13-1.17/amulet-core/1_13/r.-1.-1.mca -1 -1"
    "anvil-1.18plus/amulet-core/1_18_superflat/r.0.0.mca 0 0"
    "anvil-1.18plus/amulet-core/1_18_vanilla/r.-1.1.mca -1 1"
    "anvil-1.18plus/querz-nbt/21w44a/r.15.-9.mca 15 -9"
    "anvil-1.18plus/prismarine-provider-anvil/1.18.2/r.0.0.mca 0 0"
    "anvil-1.18plus/prismarine-provider-anvil/1.21.1/r.0.0.mca 0 0"
)
slime_suite_regions
NREG=${#REGIONS[@]}

slime_suite_cluster crash
CLIENT_PIDS=()
# on exit, before WORK and the cluster go: the clients still running, by pid
slime_on_exit 'for p in "${CLIENT_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done'

{
    echo "ALTER SYSTEM SET synchronous_commit = on;"
    echo "ALTER SYSTEM SET full_page_writes = on;"
    echo "SELECT pg_reload_conf();"
    cat <<'SQL'
CREATE EXTENSION slime;
CREATE TABLE worlds(id bigint PRIMARY KEY, world slime, hash bytea);
CREATE TABLE regions(i int PRIMARY KEY, path text, rx int, rz int);
CREATE TABLE seed_chunks(i int PRIMARY KEY, nbt bytea);
-- a chunk NBT (root compound) with one more tag, Stamp: long n, so that
-- every edit stores content never stored before
CREATE FUNCTION stamp(nbt bytea, n bigint) RETURNS bytea LANGUAGE sql IMMUTABLE STRICT AS $$
  SELECT substring(nbt FROM 1 FOR length(nbt) - 1) || '\x04'::bytea || '\x0005'::bytea
         || convert_to('Stamp', 'UTF8') || int8send(n) || '\x00'::bytea $$;
-- the full check of one stored value; ok false with the reason, never an ERROR
CREATE FUNCTION row_state(w slime, h bytea, OUT ok boolean, OUT chash text, OUT why text)
LANGUAGE plpgsql AS $$
BEGIN
  ok := false;
  chash := encode(slime_content_hash(w), 'hex');
  IF NOT (w::bytea::slime = w) THEN why := 'value::bytea::slime <> value'; RETURN; END IF;
  IF h IS DISTINCT FROM slime_content_hash(w) THEN why := 'hash column differs'; RETURN; END IF;
  ok := true;
EXCEPTION WHEN OTHERS THEN
  why := SQLSTATE || ': ' || SQLERRM;
END $$;
CREATE TABLE clog(kind text, id bigint, old text, new text);
SQL
    i=0
    for r in "${REGIONS[@]}"; do
        read -r p rx rz <<<"$r"
        echo "INSERT INTO regions VALUES ($i, $(slime_sq "$CORPUS/$p"), $rx, $rz);"
        i=$((i + 1))
    done
    # a few real chunks of different eras to put
    echo "INSERT INTO seed_chunks SELECT row_number() OVER () - 1, nbt FROM (
            SELECT slime_chunk_nbt(w, c.x, c.z) AS nbt
            FROM (SELECT slime_import_region(pg_read_binary_file(path), rx, rz) w FROM regions
                  WHERE i IN (1, 4, 7)) s, LATERAL (SELECT * FROM slime_chunks(w) LIMIT 3) c) t;"
} >"$WORK/setup.sql"
slime_suite_setup NSEED
[ "$(slime_psql -At -c "SHOW synchronous_commit")" = on ] || { echo "crash: synchronous_commit not on" >&2; exit 1; }

# ---- the clients --------------------------------------------------------------
# shellcheck disable=SC2317  # the generators run in pipelines started below
# Each is "generator | psql": psql stops at the first error (the lost
# connection); the generator then dies of SIGPIPE.
import_sql() {      # import_sql K — endless INSERT transactions of client K
    local k=$1 n=0 id ri ci x z expr
    while :; do
        n=$((n + 1)); id=$((k * 1000000 + n))
        ri=$(((n + k) % NREG)); ci=$((n % NSEED))
        expr="slime_import_region(pg_read_binary_file(r.path), r.rx, r.rz)"
        if [ $((n % 3)) != 0 ]; then
            x=$((n % 32)); z=$((n * 7 % 32))
            expr="slime_put_chunk($expr, r.rx * 32 + $x, r.rz * 32 + $z,
                                  slime_chunk_relocate(stamp((SELECT nbt FROM seed_chunks WHERE i = $ci), $id),
                                                       r.rx * 32 + $x, r.rz * 32 + $z))"
        fi
        printf '%s\n' "BEGIN;" \
            "INSERT INTO worlds(id, world, hash) SELECT $id, w, slime_content_hash(w)
               FROM (SELECT $expr AS w FROM regions r WHERE r.i = $ri) s
               RETURNING encode(hash, 'hex') AS h \\gset" \
            "\\echo P $id - :h" "COMMIT;" "\\echo C $id - :h" || return 0
    done
}
save_sql() {        # save_sql K — endless one-chunk UPDATE transactions of client K
    local k=$1 n=0 id x z ci
    while :; do
        n=$((n + 1)); id=${HOT_IDS[RANDOM % ${#HOT_IDS[@]}]}
        x=$((RANDOM % 6)); z=$((RANDOM % 6)); ci=$((RANDOM % NSEED))
        printf '%s\n' "BEGIN;" \
            "SELECT encode(hash, 'hex') AS old FROM worlds WHERE id = $id FOR UPDATE \\gset" \
            "UPDATE worlds SET (world, hash) = (SELECT w, slime_content_hash(w) FROM
               (SELECT slime_put_chunk(worlds.world, $x, $z, slime_chunk_relocate(
                   stamp((SELECT nbt FROM seed_chunks WHERE i = $ci), $(((k + 1) * 1000000000 + n))), $x, $z)) AS w) s)
               WHERE id = $id RETURNING encode(hash, 'hex') AS h \\gset" \
            "\\echo P $id :old :h" "COMMIT;" "\\echo C $id :old :h" || return 0
    done
}
seeded() {          # seeded SEED COMMAND...: COMMAND with RANDOM seeded, in this (sub)shell
    RANDOM=$1
    shift
    "$@"
}
start_clients() {   # start_clients GENERATOR N PHASE [ON_ERROR_STOP]
    local gen=$1 n=$2 phase=$3 stop=${4:-1} k phase_seed
    phase_seed=$(($(printf '%d' "'$phase") * 100))
    CLIENT_PIDS=()
    for ((k = 1; k <= n; k++)); do
        # each client's statements come from its own seeded RANDOM, the same
        # each run (seeded in the generator's own subshell: bash reseeds
        # RANDOM in every subshell, so a seed set around the pipe is lost)
        { seeded $((phase_seed + k)) "$gen" "$k" | psql -X -q -At -v ON_ERROR_STOP="$stop" \
              >"$WORK/$phase.$k.out" 2>"$WORK/$phase.$k.err"; } &
        CLIENT_PIDS+=($!)
    done
}

restart() {
    local before
    before=$(grep -c 'database system was interrupted\|not properly shut down' "$SERVER_LOG" || true)
    (cd / && runuser -u postgres -- "$SLIME_PG_BIN/pg_ctl" -D "$PGDATA" -l "$SERVER_LOG" -w -t 120 start \
        >"$WORK/pg_ctl.out" 2>&1) ||
        { echo "crash: restart failed:" >&2; cat "$WORK/pg_ctl.out" >&2; tail -n 30 "$SERVER_LOG" >&2; return 1; }
    local after
    after=$(grep -c 'database system was interrupted\|not properly shut down' "$SERVER_LOG" || true)
    [ "$after" -gt "$before" ] || { echo "crash: no crash recovery reported in the server log" >&2; return 1; }
    grep 'redo done\|redo starts' "$SERVER_LOG" | tail -n 2 | sed 's/^/  server: /'
}

# run_phase PHASE GENERATOR CLIENTS MODE [TOLERATED]: clients, sleep, crash,
# restart, logs.  TOLERATED: a regex of errors the README documents as
# retryable; with it, a client goes on past a failed statement (as one that
# retries would), and those errors are counted, not failures.
run_phase() {
    local phase=$1 gen=$2 n=$3 mode=$4 tolerated=${5:-} p k bad=0
    slime_log "crash: phase $phase: $n clients for ${RUN_SECONDS}s, then SIGKILL"
    start_clients "$gen" "$n" "$phase" "$([ -n "$tolerated" ] && echo 0 || echo 1)"
    sleep "$RUN_SECONDS.$((RANDOM % 10))"
    for ((k = 0; k < n; k++)); do
        slime_alive "${CLIENT_PIDS[k]}" || { echo "crash: client $((k + 1)) ended before the kill:"; cat "$WORK/$phase.$((k + 1)).err"; bad=1; }
    done
    slime_cluster_kill "$mode" || return 1
    for p in "${CLIENT_PIDS[@]}"; do wait "$p" || true; done
    CLIENT_PIDS=()
    restart || return 1
    # anything but the lost connection from a client is a failure
    if grep -h -v -i 'server closed the connection\|terminated abnormally\|before or while processing\|connection to server was lost\|unexpected postmaster exit\|terminating connection\|no connection to the server\|could not send data\|could not receive data\|SSL SYSCALL\|^\s*$\|^psql:<stdin>:[0-9]*: *$\|This probably means' \
            "$WORK/$phase".*.err | { if [ -n "$tolerated" ]; then grep -v -E "$tolerated"; else cat; fi; } \
            >"$WORK/$phase.unexpected"; then
        echo "crash: unexpected client errors in phase $phase:"; head -n 20 "$WORK/$phase.unexpected"; bad=1
    fi
    [ -z "$tolerated" ] || echo "crash: phase $phase: $(cat "$WORK/$phase".*.err | grep -c -E "$tolerated") tolerated error lines (retryable, the clients went on)"
    echo "crash: how the clients ended: $(for ((k = 1; k <= n; k++)); do
        grep -v '^\s' "$WORK/$phase.$k.err" | head -n 1 | sed 's/^psql:<stdin>:[0-9]*: //'; done |
        sort | uniq -c | sed 's/^ *\([0-9]*\) \(.*\)/\2 (x\1)/' | paste -sd ';' -)"
    cat "$WORK/$phase".*.out | awk 'NF == 4 && ($1 == "P" || $1 == "C")' >"$WORK/$phase.log"
    echo "crash: phase $phase: $(grep -c '^C' "$WORK/$phase.log" || true) commits acknowledged to the clients"
    return $bad
}

# readable FOR: the whole table reads back, seq scan and index scan agree
readable() {
    local out
    out=$(slime_psql -At <<'SQL'
SET enable_indexscan = off; SET enable_bitmapscan = off; SET enable_indexonlyscan = off;
SELECT count(*) || ' ' || coalesce(sum(octet_length(world::bytea)), 0) FROM worlds;
RESET enable_indexscan; RESET enable_bitmapscan; RESET enable_indexonlyscan; SET enable_seqscan = off;
SELECT count(*) FROM worlds WHERE id > -9223372036854775807;
SQL
) || { result FAIL "$1: the table does not read back in full"; return 0; }
    local seq bytes idx
    read -r seq bytes idx <<<"$(tr '\n' ' ' <<<"$out")"
    if [ "$seq" = "$idx" ] && [ "$bytes" -gt 0 ]; then
        result OK "$1: table readable in full: $seq rows, $bytes value bytes, index scan agrees"
    else
        result FAIL "$1: seq scan $seq rows ($bytes bytes), index scan $idx rows"
    fi
    slime_psql -c "COPY worlds TO STDOUT (FORMAT binary)" | wc -c >"$WORK/copy.bytes" ||
        result FAIL "$1: COPY worlds TO STDOUT failed"
}

# ---- phase a: bulk import -------------------------------------------------------
if run_phase a import_sql "$CLIENTS_A" all; then result OK "a: crash and recovery"
else result FAIL "a: crash and recovery"; fi
server_up() { slime_psql -At -c "SELECT 1" >/dev/null 2>&1 || { result FAIL "the server is not up after phase $1"; finish; }; }
server_up a

if res=$(slime_psql -At -F ' ' <<SQL
\\copy clog FROM '$WORK/a.log' (DELIMITER ' ')
CREATE TABLE a_state AS SELECT id, (row_state(world, hash)).* FROM worlds;
CREATE TEMP VIEW a_c AS SELECT DISTINCT id, new FROM clog WHERE kind = 'C';
CREATE TEMP VIEW a_p AS SELECT DISTINCT id, new FROM clog WHERE kind = 'P' AND id NOT IN (SELECT id FROM a_c);
SELECT (SELECT count(*) FROM a_c),
       (SELECT count(*) FROM a_c JOIN a_state s USING (id) WHERE s.ok AND s.chash = a_c.new),
       (SELECT count(*) FROM a_p JOIN a_state s USING (id) WHERE s.ok AND s.chash = a_p.new),
       (SELECT count(*) FROM a_state WHERE NOT ok),
       (SELECT count(*) FROM a_c WHERE id NOT IN (SELECT id FROM a_state)),
       (SELECT count(*) FROM a_state WHERE id NOT IN (SELECT id FROM a_c) AND id NOT IN (SELECT id FROM a_p)),
       (SELECT count(*) FROM a_p JOIN a_state s USING (id) WHERE NOT (s.ok AND s.chash = a_p.new)),
       (SELECT count(*) FROM a_p);
SELECT 'damaged: ' || id || ' ' || coalesce(why, 'hash differs from the logged one') FROM a_state s
 WHERE NOT ok OR chash <> ALL (SELECT new FROM clog WHERE clog.id = s.id) LIMIT 10;
TRUNCATE clog;
SQL
); then
    read -r com intact infl dam missing phantom badinfl pend <<<"$(head -n 1 <<<"$res")"
    tail -n +2 <<<"$res"
    echo "phase a (bulk import): committed $com, intact $intact, in-flight visible $infl (of $pend in flight), damaged $dam"
    [ "$missing" = 0 ] || echo "  $missing committed ids missing"
    [ "$phantom" = 0 ] || echo "  $phantom rows no client wrote"
    if [ "$com" -ge 10 ] && [ "$intact" = "$com" ] && [ "$dam" = 0 ] && [ "$missing" = 0 ] &&
       [ "$phantom" = 0 ] && [ "$badinfl" = 0 ]; then
        result OK "a: every committed import present and intact"
    else result FAIL "a: committed imports lost or damaged (or fewer than 10 commits)"; fi
else
    result FAIL "a: checking the table failed"
fi
readable a

# ---- phase b: save burst ------------------------------------------------------
# the rows fought over: the largest ones phase a left, and their hashes now
mapfile -t HOT_IDS < <(slime_psql -At -c "SELECT id FROM a_state WHERE ok
                         ORDER BY (SELECT octet_length(world::bytea) FROM worlds w WHERE w.id = a_state.id) DESC, id LIMIT $HOT_ROWS")
if [ ${#HOT_IDS[@]} -lt 2 ]; then
    result FAIL "b: phase a left fewer than 2 intact rows to update"
    finish
fi
slime_psql -c "CREATE TABLE b_initial AS SELECT id, encode(hash, 'hex') AS h0 FROM worlds WHERE id IN ($(IFS=,; echo "${HOT_IDS[*]}"))" ||
    { result FAIL "b: recording the hashes before the burst"; finish; }

if run_phase b save_sql "$CLIENTS_B" orphan; then result OK "b: crash and recovery"
else result FAIL "b: crash and recovery"; fi
server_up b

if res=$(slime_psql -At -F ' ' <<SQL
\\copy clog FROM '$WORK/b.log' (DELIMITER ' ')
CREATE TABLE b_state AS SELECT id, (row_state(world, hash)).* FROM worlds;
CREATE TEMP TABLE b_links AS
  SELECT id, old, new, bool_or(kind = 'C') AS committed FROM clog GROUP BY id, old, new;
-- follow the links from each row's hash before the burst
CREATE TEMP TABLE b_walk AS
WITH RECURSIVE walk(id, h, nc, np, depth) AS (
  SELECT id, h0, 0, 0, 0 FROM b_initial
  UNION ALL
  SELECT w.id, l.new, w.nc + l.committed::int, w.np + (NOT l.committed)::int, w.depth + 1
  FROM walk w JOIN b_links l ON l.id = w.id AND l.old = w.h WHERE w.depth < 100000)
SELECT * FROM walk;
CREATE TEMP TABLE b_rows AS
SELECT i.id,
       (SELECT count(*) FROM b_links l WHERE l.id = i.id AND l.committed) AS ncommit,
       s.ok, s.chash, s.why,
       (SELECT max(nc) FROM b_walk w WHERE w.id = i.id AND w.h = s.chash) AS reached,
       (SELECT min(np) FROM b_walk w WHERE w.id = i.id AND w.h = s.chash
          AND w.nc = (SELECT count(*) FROM b_links l WHERE l.id = i.id AND l.committed)) AS inflight
FROM b_initial i LEFT JOIN b_state s USING (id);
SELECT (SELECT count(*) FROM b_links WHERE committed),
       (SELECT coalesce(sum(ncommit), 0) FROM b_rows WHERE ok AND reached = ncommit AND inflight IS NOT NULL),
       (SELECT coalesce(sum(inflight), 0) FROM b_rows WHERE ok AND reached = ncommit),
       (SELECT count(*) FROM b_state WHERE NOT ok),
       (SELECT count(*) FROM b_rows WHERE NOT coalesce(ok AND reached = ncommit AND inflight IS NOT NULL, false)),
       (SELECT count(*) FROM b_rows);
SELECT 'row ' || id || ': ' || ncommit || ' committed updates, value reached after ' || coalesce(reached::text, 'none')
       || coalesce(' (' || why || ')', '')
FROM b_rows WHERE NOT coalesce(ok AND reached = ncommit AND inflight IS NOT NULL, false);
SQL
); then
    read -r com intact infl dam badrows nrows <<<"$(head -n 1 <<<"$res")"
    tail -n +2 <<<"$res"
    echo "phase b (save burst, $nrows rows): committed $com, intact $intact, in-flight visible $infl, damaged $dam"
    if [ "$com" -ge 10 ] && [ "$intact" = "$com" ] && [ "$dam" = 0 ] && [ "$badrows" = 0 ]; then
        result OK "b: every row holds its last committed save (or the one in flight), intact"
    else result FAIL "b: committed saves lost or damaged (or fewer than 10 commits)"; fi
else
    result FAIL "b: checking the table failed"
fi
readable b

# ---- phase c: the chunk store, saves and slime_gc() ----------------------------
slime_psql >/dev/null <<'SQL' || { result FAIL "c: setting up the store"; finish; }
CREATE TABLE isles(id int PRIMARY KEY, world slime);
CREATE TRIGGER isles_store BEFORE INSERT OR UPDATE ON isles FOR EACH ROW EXECUTE FUNCTION slime_store_trigger();
SELECT slime_track('isles');
SELECT slime_track('worlds');   -- phases a and b's table: tracked, so that collections do not read it
-- 12 islands: two 5x5-chunk windows of a corpus region, six of each
INSERT INTO isles
SELECT k, slime_agg(slime_put_chunk(NULL, c.x, c.z, slime_chunk_nbt(r.w, c.x, c.z)))
FROM (SELECT slime_import_region(pg_read_binary_file(path), rx, rz) w FROM regions WHERE i = 7) r,
     generate_series(1, 12) k, slime_chunks(r.w) c
WHERE c.x - 32 * (SELECT rx FROM regions WHERE i = 7) BETWEEN (k % 2) * 5 AND (k % 2) * 5 + 4
  AND c.z - 32 * (SELECT rz FROM regions WHERE i = 7) BETWEEN 0 AND 4
GROUP BY k;
SELECT count(*) FROM slime_gc();
SQL
# shellcheck disable=SC2317  # run by run_phase
store_sql() {       # store_sql K — client 1: slime_gc() back to back; the others: saves
    local k=$1 n=0 id x z ci
    while :; do
        n=$((n + 1))
        if [ "$k" = 1 ]; then
            printf '%s\n' "SELECT removed_entries FROM slime_gc();" || return 0
            continue
        fi
        id=$((1 + RANDOM % 12)); x=$((RANDOM % 5)); z=$((RANDOM % 5)); ci=$((RANDOM % NSEED))
        if [ $((n % 10)) = 0 ]; then
            # an island replaced whole by another's edit: every chunk only it held goes
            printf '%s\n' "UPDATE isles SET world = (SELECT o.world FROM isles o WHERE o.id = $((1 + (id % 12)))) WHERE id = $id;" || return 0
        else
            printf '%s\n' "UPDATE isles SET world = (SELECT slime_put_chunk(isles.world, c.x, c.z, slime_chunk_relocate(
                   stamp((SELECT nbt FROM seed_chunks WHERE i = $ci), $(((k + 1) * 1000000000 + n))), c.x, c.z))
                   FROM (SELECT x, z FROM slime_chunks(isles.world) ORDER BY x, z OFFSET $((x * 5 + z)) LIMIT 1) c)
                 WHERE id = $id;" || return 0
        fi
    done
}
# A save copying another island's value whose chunks slime_gc() collected
# while the statement ran fails with serialization_failure and is retried
# (README, "The chunk store"): tolerated here, and counted.
C_RETRY='was collected by slime_gc\(\) while this statement ran|^HINT:  Retry the transaction\.$'
if run_phase c store_sql $((CLIENTS_C + 1)) all "$C_RETRY"; then result OK "c: crash and recovery"
else result FAIL "c: crash and recovery"; fi
server_up c
# nothing a committed island refers to was lost, before and after the first
# collection after recovery (its state is unlogged: gone, so it reads all)
if res=$(slime_psql -At -F ' ' <<'SQL'
SELECT (SELECT count(*) FROM isles), (SELECT count(*) FROM isles WHERE slime_verify_refs(world)),
       (SELECT count(*) FROM slime_store_gc_state), (SELECT count(*) FROM slime_store_refs);
SELECT removed_entries AS removed, candidates AS cands FROM slime_gc() \gset
SELECT :removed, :cands = (SELECT count(*) FROM slime_store) + :removed;
SELECT (SELECT count(*) FROM isles WHERE slime_verify_refs(world)),
       (SELECT count(*) FROM slime_store) = (SELECT count(DISTINCT h) FROM isles, unnest(slime_refs(world)) h);
UPDATE isles SET world = (SELECT world FROM isles WHERE id = 1) WHERE id = 2;
SELECT removed_entries >= 0, values_read FROM slime_gc();
SELECT (SELECT count(*) FROM isles WHERE slime_verify_refs(world)),
       (SELECT count(*) FROM slime_store) = (SELECT count(DISTINCT h) FROM isles, unnest(slime_refs(world)) h);
SQL
); then
    read -r n ok0 state counts removed full ok1 exact1 ok_after values ok2 exact2 <<<"$(tr '\n' ' ' <<<"$res")"
    echo "phase c (store): $n islands; after recovery: $ok0 read every chunk; GC state rows $state, counts $counts;" \
         "first slime_gc(): removed $removed (read everything: $full); then $ok1 read, store exact: $exact1;" \
         "a later one read $values values"
    if [ "$n" = 12 ] && [ "$ok0" = 12 ] && [ "$state" = 0 ] && [ "$counts" = 0 ] && [ "$full" = t ] &&
       [ "$ok1" = 12 ] && [ "$exact1" = t ] && [ "$values" = 0 ] && [ "$ok2" = 12 ] && [ "$exact2" = t ]; then
        result OK "c: no chunk a committed island refers to was lost; the first slime_gc() after recovery read everything, the next none"
    else result FAIL "c: store after the crash"; fi
else
    result FAIL "c: checking the store failed"
fi
grep -c '^[0-9]' "$WORK"/c.1.out >/dev/null 2>&1 &&
    echo "phase c: slime_gc() ran $(grep -c '^[0-9]' "$WORK/c.1.out") times before the kill"

# VACUUM after recovery, then every value once more
if slime_psql -c "VACUUM (ANALYZE) worlds" &&
   [ "$(slime_psql -At -c "SELECT count(*) FROM worlds WHERE NOT (row_state(world, hash)).ok")" = 0 ]; then
    result OK "VACUUM after recovery; every value still passes the full check"
else
    result FAIL "VACUUM after recovery or the final full check"
fi
if grep -q 'terminated by signal [^9]\|PANIC' "$SERVER_LOG"; then
    result FAIL "server log has a PANIC or a backend killed by a signal other than our SIGKILL"
    grep 'terminated by signal [^9]\|PANIC' "$SERVER_LOG" | head -n 5
fi
finish
