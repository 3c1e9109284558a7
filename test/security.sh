#!/usr/bin/env bash
# Security (issue #25): the attacks of ordinary login roles, alice and bob
# (no superuser), replayed against the extension on the throwaway cluster of
# test/lib.sh, each asserting that it now fails:
#   1. slime_gc() must not call bob's slime_refs(his_domain) (it would run as
#      the GC's superuser: ALTER ROLE bob SUPERUSER);
#   2. alice's loader and lease calls must not call bob's format() and ||
#      from a shared schema (bob would grant himself her table); and no
#      function of the extension that is not C lacks a pinned search_path;
#   3. slime_loader_create must refuse bob's tables, and tables of the wrong
#      shape (issue #24);
#   8. bob and carol, granted the use of alice's loader, reach it only
#      through its functions: they cannot read or write arena_worlds (tokens,
#      holders, expiry, the cached file), insert saves past the fence, or
#      use, renew, release or take over another role's lease;
#   6. bob cannot stop or stall slime_gc(): composite types and another
#      session's temporary table are skipped with a WARNING, the old advisory
#      lock no longer matters, and no save pins while bob holds it;
#      slime_store() is not PUBLIC (carol cannot fill the store by hand), the
#      trigger still stores for her own table;
#   7. bob's open transaction after a save makes slime_gc() give up its turn
#      (slime.gc_lock_wait) instead of holding alice's saves behind it;
#  10. alice's open transaction, which stored a chunk new to the store, does
#      not hold bob's save of the same chunk (issue #33, item 2): through the
#      store trigger and through a loader, his save finishes at once, the
#      chunk kept inline in his value;
#  11. alice's lock on her own tables does not stop slime_gc() (issue #33,
#      item 3): it removes the garbage of bob's tracked table while she holds
#      ACCESS EXCLUSIVE on a tracked and an untracked table of hers, never
#      reads the tracked one and says it skipped the other;
#   9. alice's own pg_dump of her schema restores values whose chunks are
#      missing: slime_verify_refs says so, and the README's ways (a copy of
#      slime_store_entries added back with slime_store_add; a binary COPY of
#      slime_resolve) restore them whole; as a database's owner, her
#      pg_dump of the whole database succeeds and restores whole.
# Creates the databases slime_security(_restore, _owned, _owned_restore) and
# the roles alice, bob and carol, and drops them at the end. Usage: bash test/security.sh (PG* name the server)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$SLIME_ROOT"
DB=slime_security
slime_tally_init
SERVER_LOG=${SLIME_PGTMP:+$SLIME_PGTMP/server.log}
tmp=$(mktemp -d /tmp/slime-security.XXXXXX)
bg_pids=()
cleanup() {
    # end the background sessions this script started (by application_name)
    psql -X -q -d postgres -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE application_name LIKE 'slime_security_%'" >/dev/null 2>&1 || true
    local p
    for p in "${bg_pids[@]}"; do wait "$p" 2>/dev/null || true; done
    psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "DROP DATABASE IF EXISTS ${DB}_restore" \
        -c "DROP DATABASE IF EXISTS ${DB}_owned" -c "DROP DATABASE IF EXISTS ${DB}_owned_restore" \
        -c "DROP ROLE IF EXISTS alice" \
        -c "DROP ROLE IF EXISTS bob" -c "DROP ROLE IF EXISTS carol" >/dev/null 2>&1 || true
    rm -rf "$tmp"
}
slime_on_exit cleanup

# as ROLE, in the test database: psql that stops on the first error
as() { local role=$1; shift; PGUSER=$role PGDATABASE=$DB slime_psql "$@"; }
# one value, unaligned, as ROLE
q() { local role=$1; shift; PGUSER=$role PGDATABASE=$DB psql -X -q -At -v ON_ERROR_STOP=1 -c "$*"; }
# check LABEL EXPECTED ACTUAL
check() { if [ "$2" = "$3" ]; then result OK "$1"; else result FAIL "$1 (expected '$2', got '$3')"; fi; }
# a session of ROLE running each SQL argument in turn in the background
# (named for cleanup)
bg() {
    local role=$1 name=$2 a args=(); shift 2
    for a in "$@"; do args+=(-c "$a"); done
    PGAPPNAME=slime_security_$name PGUSER=$role PGDATABASE=$DB psql -X -q "${args[@]}" >"$tmp/$name.out" 2>&1 &
    bg_pids+=($!)
}
# wait until the background session NAME is idle in transaction or waiting
wait_session() {
    local i
    for ((i = 0; i < 100; i++)); do
        [ "$(psql -X -At -d postgres -c "SELECT count(*) FROM pg_stat_activity
            WHERE application_name = 'slime_security_$1' AND state <> 'active' OR
                  application_name = 'slime_security_$1' AND wait_event IN ('PgSleep')")" = 1 ] && return 0
        sleep 0.1
    done
    echo "session $1 never got there: $(cat "$tmp/$1.out")" >&2
    return 1
}

slime_log "security: set-up (database $DB, roles alice and bob)"
slime_psql -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "DROP ROLE IF EXISTS alice" \
    -c "DROP ROLE IF EXISTS bob" -c "DROP ROLE IF EXISTS carol" -c "CREATE DATABASE $DB" \
    -c "CREATE ROLE alice LOGIN" -c "CREATE ROLE bob LOGIN" -c "CREATE ROLE carol LOGIN" >/dev/null
# as on a cluster upgraded from before PG 15: everyone may create in public,
# where the extension goes; a shared schema every server may create in
as postgres >/dev/null <<'SQL'
GRANT CREATE ON SCHEMA public TO PUBLIC;
CREATE SCHEMA shared;
GRANT USAGE, CREATE ON SCHEMA shared TO PUBLIC;
CREATE SCHEMA alice AUTHORIZATION alice;
CREATE SCHEMA bob AUTHORIZATION bob;
SQL
warn=$(as postgres -c "CREATE EXTENSION slime" 2>&1)
case "$warn" in
    *"WARNING:  roles other than superusers and postgres may create objects in schema public, where extension slime lives: PUBLIC, alice, bob, carol"*)
        result OK "CREATE EXTENSION warns that PUBLIC may create in its schema" ;;
    *) result FAIL "CREATE EXTENSION did not warn about CREATE on its schema: $warn" ;;
esac
# a tiny 1.18+ chunk (DataVersion 3700) as a slime value: chunk(N) differs per N
CHUNK_FN="CREATE FUNCTION public.chunk(n integer) RETURNS slime LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS \$\$ SELECT public.slime_put_chunk(NULL, n, 0,
    '\\x0a000003000b4461746156657273696f6e00000e740300016e'::bytea || int4send(n) || '\\x00'::bytea) \$\$"
as postgres >/dev/null -c "$CHUNK_FN"
# bob stores by hand below (slime[] columns): the README's grant (item 6)
as postgres >/dev/null -c "GRANT EXECUTE ON FUNCTION slime_store(slime) TO bob"
check "the test's chunk is a slime value" 1 "$(q alice "SELECT (slime_info(chunk(1)) ->> 'chunks')")"

# ---- 2 (rule). No function of the extension that is not C lacks a pinned search_path.
unpinned=$(q postgres "SELECT string_agg(p.oid::regprocedure::text, ', ')
    FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
    JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'slime'
    WHERE p.prolang NOT IN (SELECT oid FROM pg_language WHERE lanname IN ('c', 'internal'))
      AND NOT coalesce('search_path=pg_catalog, pg_temp' = ANY (p.proconfig), false)
      -- a procedure that commits cannot carry SET: it pins with set_config in each transaction
      AND NOT (p.prokind = 'p' AND p.prosrc LIKE '%PERFORM pg_catalog.set_config(''search_path'', ''pg_catalog, pg_temp'', true);%')")
check "every SQL and plpgsql function of the extension pins search_path = pg_catalog, pg_temp" "" "$unpinned"

# ---- 1. slime_gc() and bob's slime_refs overload for his domain -------------
slime_log "security: 1. slime_gc() and a domain overload of slime_refs"
as bob >/dev/null <<'SQL'
CREATE TABLE bob.called (who text, what text);
GRANT USAGE ON SCHEMA bob TO PUBLIC;
GRANT INSERT ON bob.called TO PUBLIC;
CREATE DOMAIN public.bobworld AS slime;
CREATE TABLE bob.worlds (w public.bobworld, history public.bobworld[]);
-- an exact match for slime_refs(t.w) with w of his domain: it would win
CREATE FUNCTION public.slime_refs(w public.bobworld) RETURNS bytea[] LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO bob.called VALUES (current_user, 'slime_refs');
    BEGIN
        EXECUTE 'ALTER ROLE bob SUPERUSER';
    EXCEPTION WHEN OTHERS THEN NULL;
    END;
    RETURN '{}';
END $$;
INSERT INTO bob.worlds VALUES (slime_store(chunk(1)), ARRAY[slime_store(chunk(2))]::public.bobworld[]);
-- an entry nothing refers to, so that the scan reaches his table
SELECT slime_store(chunk(3)) IS NOT NULL;
SQL
gc=$(q postgres "SELECT removed_entries || ' ' || kept_entries FROM slime_gc()")
check "slime_gc() with bob's overload in place: removes the unreferenced entry, keeps his two" "1 2" "$gc"
check "bob's slime_refs was not called by slime_gc()" 0 "$(q postgres "SELECT count(*) FROM bob.called")"
check "bob is still not a superuser" f "$(q postgres "SELECT rolsuper FROM pg_roles WHERE rolname = 'bob'")"
check "bob's values still read" t "$(q bob "SELECT slime_verify(w) AND slime_verify(history[1]) FROM bob.worlds")"

# ---- 2. the loader and lease functions and bob's format() and || -----------
slime_log "security: 2. loader and lease functions and bob's format() and ||"
as bob >/dev/null <<'SQL'
-- they record who called them and grant bob every table they are shown
CREATE FUNCTION shared.format(f text, r regclass) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO bob.called VALUES (current_user, 'format(text, regclass)');
    EXECUTE pg_catalog.format('GRANT ALL ON %s TO bob', r);
    RETURN pg_catalog.format(f, r);
END $$;
CREATE FUNCTION shared.format(f text, a text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO bob.called VALUES (current_user, 'format(text, text)');
    RETURN pg_catalog.format(f, a);
END $$;
CREATE FUNCTION shared.bobcat(a name, b name) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO bob.called VALUES (current_user, '||(name, name)');
    RETURN a::text OPERATOR(pg_catalog.||) b::text;
END $$;
CREATE OPERATOR shared.|| (LEFTARG = name, RIGHTARG = name, FUNCTION = shared.bobcat);
SQL
for path in "alice, shared, public" "alice, public, shared"; do
    q postgres "DELETE FROM bob.called" >/dev/null
    out=$(as alice -At 2>&1 <<SQL
SET search_path = $path;
SELECT slime_loader_create('arena');
SELECT slime_lease_acquire('arena', 'sky', 'server-a', '1 min');
SELECT slime_loader_save('arena', 'sky', 1, slime_to_slimefile(chunk(4)));
SELECT slime_lease_renew('arena', 'sky', 1, '1 min');
SELECT slime_loader_rollback('arena', 'sky', 1, 1);
SELECT length(slime_loader_load('arena', 'sky')) > 0;
SELECT slime_loader_prune('arena', 'sky', 1);
SELECT slime_loader_delete('arena', 'sky', 1);
SELECT slime_lease_release('arena', 'sky', 1);
DROP TABLE alice.arena, alice.arena_worlds;
SQL
    ) || { result FAIL "alice's loader calls with search_path $path failed: $out"; continue; }
    check "path $path: alice's loader calls worked" "arena 1 1 t 2 t 1 1 t" "$(echo $out)"
    check "path $path: bob's format() and || were never called" "" \
        "$(q postgres "SELECT string_agg(DISTINCT what, ', ') FROM bob.called")"
done
as alice >/dev/null -c "SET search_path = alice, shared, public" -c "SELECT slime_loader_create('arena')"
check "bob has no privilege on alice's tables" "false false" \
    "$(q postgres "SELECT has_table_privilege('bob', 'alice.arena', 'SELECT') || ' ' ||
                          has_table_privilege('bob', 'alice.arena_worlds', 'UPDATE')")"

# ---- 3. slime_loader_create and tables that exist -----------------------------
slime_log "security: 3. slime_loader_create and existing tables"
as bob >/dev/null <<'SQL'
CREATE TABLE shared.pvp_worlds (world text NOT NULL PRIMARY KEY, holder text, token bigint NOT NULL DEFAULT 0,
    expires timestamptz, saves bigint NOT NULL DEFAULT 0, file bytea);
CREATE FUNCTION bob.spy() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN INSERT INTO bob.called VALUES (current_user, 'trigger'); RETURN NEW; END $$;
CREATE TRIGGER spy BEFORE INSERT OR UPDATE ON shared.pvp_worlds FOR EACH ROW EXECUTE FUNCTION bob.spy();
GRANT ALL ON shared.pvp_worlds TO PUBLIC;
SQL
q postgres "DELETE FROM bob.called" >/dev/null
err=$(as alice -c "SET search_path = shared, public" -c "SELECT slime_loader_create('pvp')" 2>&1 || true)
case "$err" in
    *"ERROR:  loader table shared.pvp_worlds exists and belongs to role bob, not to alice"*)
        result OK "slime_loader_create refuses bob's table, saying whose it is" ;;
    *) result FAIL "slime_loader_create and bob's table: $err" ;;
esac
as alice -c "SET search_path = shared, public" -c "SELECT slime_lease_acquire('shared.pvp', 'x', 'a', '1 min')" \
    >/dev/null 2>&1 || true
check "no save table was made beside bob's, and bob's trigger never ran as alice" "0" \
    "$(q postgres "SELECT count(*) + (to_regclass('shared.pvp') IS NOT NULL)::int FROM bob.called")"
# issue #24: a table of the caller's own, of another shape
as alice >/dev/null -c "CREATE TABLE alice.islands (id bigint PRIMARY KEY, world slime)"
err=$(as alice -c "SET search_path = alice, public" -c "SELECT slime_loader_create('islands')" 2>&1 || true)
case "$err" in
    *"ERROR:  table alice.islands exists but is not a loader's saves table"*"DETAIL:  It has the columns (id bigint not null, world public.slime)"*)
        result OK "slime_loader_create refuses islands (id bigint PRIMARY KEY, world slime), naming its columns" ;;
    *) result FAIL "slime_loader_create and a table of another shape: $err" ;;
esac
check "...and leaves no islands_worlds behind" "" "$(q alice "SELECT to_regclass('alice.islands_worlds')")"
as alice >/dev/null -c "CREATE TABLE alice.dunes_worlds (world text NOT NULL PRIMARY KEY, holder text, token bigint NOT NULL DEFAULT 0,
    expires timestamptz, saves bigint NOT NULL DEFAULT 0, file bytea)" \
    -c "CREATE TABLE alice.dunes (world text NOT NULL, save bigint NOT NULL, saved_at timestamptz NOT NULL,
    token bigint NOT NULL, data slime NOT NULL, PRIMARY KEY (world, save))"
err=$(as alice -c "SET search_path = alice, public" -c "SELECT slime_loader_create('dunes')" 2>&1 || true)
case "$err" in
    *"ERROR:  table alice.dunes exists but lacks a loader's triggers"*)
        result OK "slime_loader_create refuses a saves table without the fence and store triggers" ;;
    *) result FAIL "slime_loader_create and a saves table without triggers: $err" ;;
esac
check "slime_loader_create finds alice's own loader again" "arena" \
    "$(q alice "SET search_path = alice, public; SELECT slime_loader_create('arena')" | tail -n 1)"

# ---- 8. leases as an access boundary --------------------------------------------
# bob and carol are servers of alice's loader arena: they may use it through
# its functions (GRANT SELECT, INSERT on the saves table) and hold nothing on
# arena_worlds. On 0.5.0 a server needed write access to arena_worlds, so
# every attack below marked "0.5.0: succeeded" worked there.
slime_log "security: 8. servers use alice's loader through its functions only"
as alice >/dev/null -c "GRANT USAGE ON SCHEMA alice TO bob, carol"
err=$(as carol -c "SELECT slime_lease_acquire('alice.arena', 'sky', 'server-c', '1 min')" 2>&1 || true)
case "$err" in *"ERROR:  permission denied to write loader arena"*"HINT:  The loader's owner grants its use: GRANT SELECT, INSERT ON arena TO carol."*)
    result OK "a role alice granted nothing cannot take a lease of her loader" ;;
    *) result FAIL "carol's lease before any grant: $err" ;; esac
as alice >/dev/null -c "GRANT SELECT, INSERT ON alice.arena TO bob, carol"
out=$(as carol -At 2>&1 <<'SQL'
SET search_path = alice, public;
SELECT slime_loader_create('arena');
SELECT slime_lease_acquire('arena', 'sky', 'server-c', '1 min');
SELECT slime_loader_save('arena', 'sky', 1, slime_to_slimefile(chunk(14)));
SELECT slime_from_slimefile(slime_loader_load('arena', 'sky')) = slime_from_slimefile(slime_to_slimefile(chunk(14)));
SELECT slime_lease_renew('arena', 'sky', 1, '1 min');
SELECT slime_loader_rollback('arena', 'sky', 1, 1);
SELECT count(*) FROM arena WHERE world = 'sky';
SQL
) || true
check "carol, granted SELECT and INSERT on arena, uses the loader through its functions" "arena 1 1 t t 2 2" "$(echo $out)"
denied() {  # LABEL ROLE SQL: the statement fails with permission denied
    local e
    e=$(as "$2" -c "$3" 2>&1 || true)
    case "$e" in *"ERROR:  permission denied"*) result OK "$1" ;; *) result FAIL "$1: $e" ;; esac
}
denied "bob cannot read carol's token in arena_worlds (0.5.0: succeeded)" bob "SELECT token FROM alice.arena_worlds"
denied "bob cannot rewrite holder, token or expires (0.5.0: succeeded)" bob \
    "UPDATE alice.arena_worlds SET holder = 'bob', token = token + 1, expires = now() + interval '1 hour'"
denied "bob cannot put a token back to an old value (0.5.0: succeeded)" bob "UPDATE alice.arena_worlds SET token = 1"
denied "bob cannot replace the cached file a load gives back (0.5.0: succeeded)" bob \
    "UPDATE alice.arena_worlds SET file = slime_to_slimefile(chunk(15))"
denied "bob cannot insert a save directly, past slime_loader_save" bob \
    "INSERT INTO alice.arena (world, token, data) VALUES ('sky', 1, chunk(15))"
denied "bob cannot prune the history: slime_loader_prune needs DELETE on arena" bob \
    "SELECT slime_loader_prune('alice.arena', 'sky', 1)"
denied "bob cannot call the functions' _as_owner twins directly" bob \
    "SELECT slime_lease_acquire_as_owner('alice.arena', 'sky', 'bob', '1 hour')"
err=$(as bob -c "SELECT slime_loader_save('alice.arena', 'sky', 1, slime_to_slimefile(chunk(15)))" 2>&1 || true)
case "$err" in *'ERROR:  lease of world "sky" is not held by token 1'*"DETAIL:  Role bob holds no lease of it."*)
    result OK "bob's save with carol's token (guessed or replayed) is refused (0.5.0: succeeded)" ;;
    *) result FAIL "bob's save with carol's token: $err" ;; esac
check "bob cannot renew or release carol's lease with her token (0.5.0: succeeded)" "f f" \
    "$(q bob "SELECT slime_lease_renew('alice.arena', 'sky', 1, '1 hour')") $(q bob "SELECT slime_lease_release('alice.arena', 'sky', 1)")"
check "bob cannot take carol's running lease by giving her holder name (0.5.0: succeeded)" "" \
    "$(q bob "SELECT slime_lease_acquire('alice.arena', 'sky', 'server-c', '1 min')")"
err=$(as bob -c "SELECT slime_loader_delete('alice.arena', 'sky', 1)" 2>&1 || true)
case "$err" in *'is not held by token 1'*) result OK "bob cannot delete the world under carol's token (0.5.0: succeeded)" ;;
    *) result FAIL "bob's delete with carol's token: $err" ;; esac
check "carol's lease, saves and file are as she left them" "3 t t" \
    "$(echo $(as carol -At -c "SELECT slime_loader_save('alice.arena', 'sky', 1, slime_to_slimefile(chunk(16)))" \
        -c "SELECT slime_from_slimefile(slime_loader_load('alice.arena', 'sky')) = slime_from_slimefile(slime_to_slimefile(chunk(16)))" \
        -c "SELECT slime_lease_release('alice.arena', 'sky', 1)"))"
# the functions run as alice (the loader's owner), never as the server: her
# trigger on arena_worlds records who ran it
as alice >/dev/null <<'SQL'
CREATE TABLE alice.ran (who name);
CREATE FUNCTION alice.note() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN INSERT INTO alice.ran VALUES (current_user); RETURN NEW; END $$;
CREATE TRIGGER note BEFORE UPDATE ON alice.arena_worlds FOR EACH ROW EXECUTE FUNCTION alice.note();
SQL
check "bob's lease on alice's loader runs her code as alice, not as bob" "2 alice" \
    "$(q bob "SELECT slime_lease_acquire('alice.arena', 'sky', 'server-b', '1 min')") $(q alice "SELECT string_agg(DISTINCT who, ',') FROM alice.ran")"
as alice >/dev/null -c "DROP TRIGGER note ON alice.arena_worlds" -c "DROP TABLE alice.ran" -c "DROP FUNCTION alice.note()"
# a table that is not a loader's, with a _worlds beside it, is not run as its owner
as alice >/dev/null -c "CREATE TABLE alice.fake (world text, token bigint, data slime)" \
    -c "CREATE TABLE alice.fake_worlds (LIKE alice.arena_worlds INCLUDING ALL)" -c "GRANT SELECT, INSERT ON alice.fake TO bob"
err=$(as bob -c "SELECT slime_lease_acquire('alice.fake', 'x', 'b', '1 min')" 2>&1 || true)
case "$err" in *"ERROR:  fake is not a loader's saves table"*) result OK "the functions refuse a table that is not a loader's" ;;
    *) result FAIL "bob's lease on alice.fake: $err" ;; esac

# ---- 6. bob cannot stop or stall slime_gc() -----------------------------------
slime_log "security: 6. composite types, temporary tables and the old advisory lock"
as bob >/dev/null <<'SQL'
CREATE TYPE bob.crate AS (label text, w slime);
CREATE TABLE bob.crates (c bob.crate, many bob.crate[]);
INSERT INTO bob.crates VALUES (ROW('a', chunk(5)), ARRAY[ROW('b', chunk(6))::bob.crate]);
SQL
bg bob temp "CREATE TEMP TABLE mine (w slime)" "INSERT INTO mine VALUES (chunk(7))" "SELECT pg_sleep(60)"
bg bob lockx "SELECT pg_advisory_lock(1936484717, 1700751203); SELECT pg_sleep(60)"
wait_session temp && wait_session lockx
out=$(PGOPTIONS="-c slime.gc_lock_wait=5s" as postgres -At -c "SELECT columns_scanned FROM slime_gc()" 2>&1 || true)
case "$out" in
    *"WARNING:  slime_gc() skipped column bob.crates.c"*"WARNING:  slime_gc() skipped column bob.crates.many"*"WARNING:  slime_gc() skipped temporary table pg_temp_"*".mine of another session"*)
        result OK "slime_gc() finishes, skipping bob's composite columns and temporary table with a WARNING each" ;;
    *) result FAIL "slime_gc() with bob's composites, temp table and advisory lock: $out" ;;
esac
case "$out" in *"removed nothing"*) result FAIL "slime_gc() gave up behind bob's exclusive advisory lock: $out" ;;
    *[0-9]) result OK "bob's exclusive advisory lock on the 0.4.0 key does not hold slime_gc() back" ;;
    *) result FAIL "slime_gc() beside bob's exclusive advisory lock: $out" ;; esac
as alice >/dev/null -c "CREATE TABLE alice.saves (w slime)" \
    -c "CREATE TRIGGER s BEFORE INSERT ON alice.saves FOR EACH ROW EXECUTE FUNCTION slime_store_trigger()" \
    -c "INSERT INTO alice.saves VALUES (chunk(8))"
check "alice's save while bob holds that lock pins nothing" 0 "$(q postgres "SELECT count(*) FROM slime_store_pins")"
psql -X -q -d postgres -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
    WHERE application_name = 'slime_security_lockx'" >/dev/null
bg bob locks "SELECT pg_advisory_lock_shared(1936484717, 1700751203); SELECT pg_sleep(60)"
wait_session locks
out=$(PGOPTIONS="-c slime.gc_lock_wait=5s" as postgres -At -c "SELECT columns_scanned FROM slime_gc()" 2>&1 || true)
case "$out" in *"removed nothing"*) result FAIL "slime_gc() gave up behind bob's shared advisory lock: $out" ;;
    *[0-9]) result OK "bob's shared advisory lock on the 0.4.0 key does not hold slime_gc() back" ;;
    *) result FAIL "slime_gc() beside bob's shared advisory lock: $out" ;; esac
err=$(as bob -c "SELECT slime_gc_lock()" 2>&1 || true)
case "$err" in *"permission denied for function slime_gc_lock"*) result OK "bob cannot take the GC's lock" ;;
    *) result FAIL "bob and slime_gc_lock(): $err" ;; esac
psql -X -q -d postgres -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
    WHERE application_name IN ('slime_security_temp', 'slime_security_locks')" >/dev/null
# slime_store() is not PUBLIC: carol (no grant) cannot fill the store by
# hand; her own table's trigger still stores what that table refers to
err=$(as carol -c "SELECT slime_store(chunk(20))" 2>&1 || true)
case "$err" in *"ERROR:  permission denied for function slime_store"*)
    result OK "carol cannot put entries nothing refers to in the store (slime_store() is not PUBLIC; 0.5.0: it was)" ;;
    *) result FAIL "carol's slime_store(): $err" ;; esac
err=$(as carol -c "SELECT slime_store_add(hash, data) FROM slime_store_entries(slime_store(chunk(8)))" 2>&1 || true)
case "$err" in *"ERROR:  permission denied for function slime_store"*) result OK "nor through slime_store_add()" ;;
    *) result FAIL "carol's slime_store_add(): $err" ;; esac
as postgres >/dev/null -c "CREATE SCHEMA carol AUTHORIZATION carol"
check "carol's own table with the store trigger stores its values" "1 t" \
    "$(echo $(as carol -At -c "CREATE TABLE carol.saves (w slime)" \
        -c "CREATE TRIGGER s BEFORE INSERT ON carol.saves FOR EACH ROW EXECUTE FUNCTION slime_store_trigger()" \
        -c "INSERT INTO carol.saves VALUES (chunk(21))" \
        -c "SELECT slime_info(w) ->> 'store_refs' FROM carol.saves" -c "SELECT slime_verify_refs(w) FROM carol.saves"))"
# bob drops one table and renames another while the GC waits for their locks
as bob >/dev/null -c "CREATE TABLE bob.gone (w slime)" -c "CREATE TABLE bob.moved (w slime)" \
    -c "INSERT INTO bob.gone VALUES (slime_store(chunk(12)))" -c "INSERT INTO bob.moved VALUES (slime_store(chunk(13)))"
bg bob drop "BEGIN; LOCK TABLE bob.gone IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(1.5); DROP TABLE bob.gone; COMMIT"
bg bob rename "BEGIN; LOCK TABLE bob.moved IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(3);
    ALTER TABLE bob.moved RENAME TO moved2; COMMIT"
wait_session drop && wait_session rename
out=$(PGOPTIONS="-c client_min_messages=error" as postgres -At -c "SELECT columns_scanned FROM slime_gc()" 2>&1 || true)
case "$out" in *[0-9]) result OK "slime_gc() finishes past a table dropped and one renamed while it waited" ;;
    *) result FAIL "slime_gc() and bob's dropped and renamed tables: $out" ;; esac
check "...and kept the renamed table's chunk" t "$(q bob "SELECT slime_verify_refs(w) FROM bob.moved2")"

# ---- 7. an open transaction after a save, and the GC's delete -----------------
slime_log "security: 7. bob keeps a save's transaction open while slime_gc() runs"
# b1 saves and stays open: the GC waits for it before its scan (phase 1);
# b2 saves while the GC waits, so it pins, and stays open: it holds the
# store's ROW EXCLUSIVE, which the GC's delete (phase 3) of the garbage must wait for
as bob >/dev/null -c "CREATE TABLE bob.saves (w slime)" \
    -c "CREATE TRIGGER s BEFORE INSERT ON bob.saves FOR EACH ROW EXECUTE FUNCTION slime_store_trigger()"
# garbage for the GC to delete: an entry nothing refers to
q postgres "SELECT slime_store(chunk(38)) IS NOT NULL" >/dev/null
bg bob b1 "BEGIN; INSERT INTO bob.saves VALUES (chunk(9)); SELECT pg_sleep(3); COMMIT"
wait_session b1
PGAPPNAME=slime_security_gc PGOPTIONS="-c slime.gc_lock_wait=4s" PGUSER=postgres PGDATABASE=$DB \
    psql -X -At -c "SELECT removed_entries FROM slime_gc()" >"$tmp/gc.out" 2>&1 &
gc_pid=$!
bg_pids+=("$gc_pid")
sleep 1
bg bob b2 "BEGIN; SELECT slime_store(chunk(10)) IS NOT NULL; SELECT pg_sleep(60); COMMIT"
wait_session b2
sleep 2.5        # b1 commits: the GC scans, then waits for b2's lock
t0=$(date +%s%N)
out=$(PGOPTIONS="-c statement_timeout=5s" as alice -c "INSERT INTO alice.saves VALUES (chunk(11))" 2>&1) &&
    result OK "alice saves while bob's open transaction holds the GC's delete back ($(( ($(date +%s%N) - t0) / 1000000 )) ms)" ||
    result FAIL "alice's save behind the GC: $out"
wait "$gc_pid" || true
case "$(cat "$tmp/gc.out")" in
    *"WARNING:  slime_gc() removed nothing: saves kept their transactions open"*0)
        result OK "slime_gc() gives up its turn with a WARNING after slime.gc_lock_wait" ;;
    *) result FAIL "slime_gc() behind bob's open transaction: $(cat "$tmp/gc.out")" ;;
esac
psql -X -q -d postgres -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
    WHERE application_name = 'slime_security_b2'" >/dev/null
check "once bob is gone, slime_gc() runs to the end" 1 "$(PGOPTIONS="-c client_min_messages=error" q postgres "SELECT count(*) FROM slime_gc() WHERE kept_entries > 0")"
check "...and empties the pins" 0 "$(q postgres "SELECT count(*) FROM slime_store_pins")"
check "alice's values still read" 2 "$(q alice "SELECT count(*) FROM alice.saves WHERE slime_verify(w)")"

# ---- 10. an open transaction's new store entry and another role's save ---------
slime_log "security: 10. alice's open transaction does not hold bob's save of the same chunk"
as alice >/dev/null -c "CREATE TABLE alice.isles (w slime)" \
    -c "CREATE TRIGGER s BEFORE INSERT OR UPDATE ON alice.isles FOR EACH ROW EXECUTE FUNCTION slime_store_trigger()" \
    -c "SELECT slime_track('alice.isles')" -c "SELECT slime_loader_create('ldr', 'alice')" \
    -c "SELECT slime_lease_acquire('alice.ldr', 'w', 'server-a', '10 min')"
as bob >/dev/null -c "CREATE TABLE bob.isles (w slime)" \
    -c "CREATE TRIGGER s BEFORE INSERT OR UPDATE ON bob.isles FOR EACH ROW EXECUTE FUNCTION slime_store_trigger()" \
    -c "SELECT slime_track('bob.isles')" -c "SELECT slime_loader_create('ldr', 'bob')" \
    -c "SELECT slime_lease_acquire('bob.ldr', 'w', 'server-b', '10 min')"
# alice saves chunks 30 and 32 (new to the store) and keeps her transaction
# open; bob saves chunk 30 (and one of his own) the same two ways, his
# loader's file also holding chunk 31, which his save stores: a value of a
# reference and a chunk kept inline, whose contents summary is checked
# against the whole file's (slime.loader_verify is on)
bg alice a30 "BEGIN; INSERT INTO alice.isles VALUES (chunk(30));
    SELECT slime_loader_save('alice.ldr', 'w', 1, slime_to_slimefile(chunk(32))); SELECT pg_sleep(12); COMMIT"
wait_session a30
out=$(PGOPTIONS="-c statement_timeout=3s" as bob -At -c "INSERT INTO bob.isles VALUES (chunk(30))" 2>&1) &&
    result OK "bob's save of a chunk alice's open transaction is storing finishes (statement_timeout 3 s; she sleeps 12 s)" ||
    result FAIL "bob's save behind alice's open transaction: $out"
out=$(PGOPTIONS="-c statement_timeout=3s" as bob -At -c "SELECT slime_loader_save('bob.ldr', 'w', 1, slime_to_slimefile(slime_merge(chunk(32), chunk(31))))" 2>&1) &&
    result OK "...and so does his loader save of another such chunk" ||
    result FAIL "bob's loader save behind alice's open transaction: $out"
check "his values keep that chunk inline (chunk 31 by reference), and read" "0|t 1|t|true" \
    "$(echo $(q bob "SELECT slime_info(w) ->> 'store_refs', slime_verify(w) FROM bob.isles WHERE slime_info(w) ->> 'store_refs' = '0'") \
            $(q bob "SELECT slime_info(data) ->> 'store_refs', slime_from_slimefile(slime_loader_load('bob.ldr', 'w')) = slime_from_slimefile(slime_to_slimefile(slime_merge(chunk(32), chunk(31)))), slime_info(data) ->> 'summary' FROM bob.ldr"))"
psql -X -q -d postgres -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
    WHERE application_name = 'slime_security_a30'" >/dev/null
check "once alice is gone (her transaction rolled back), bob's values still read" "t t" \
    "$(echo $(q bob "SELECT bool_and(slime_verify_refs(w)) FROM bob.isles") $(q bob "SELECT slime_verify_refs(data) FROM bob.ldr"))"

# ---- 11. a role's lock on its own tables and slime_gc() --------------------------
slime_log "security: 11. alice locks her tables; slime_gc() collects the rest"
as alice >/dev/null -c "CREATE TABLE alice.hidden (w slime)" -c "INSERT INTO alice.hidden VALUES (chunk(33))" \
    -c "INSERT INTO alice.isles VALUES (chunk(34))"
PGOPTIONS="-c client_min_messages=error" q postgres "SELECT removed_entries FROM slime_gc()" >/dev/null
# garbage of bob's tracked table: two saves, then their rows gone
as bob >/dev/null -c "INSERT INTO bob.isles VALUES (chunk(35)), (chunk(36))" -c "DELETE FROM bob.isles WHERE slime_info(w) ->> 'store_refs' = '1'"
bg alice lock "BEGIN; LOCK TABLE alice.isles, alice.hidden IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(60)"
wait_session lock
out=$(PGOPTIONS="-c slime.gc_lock_wait=2s" as postgres -At -F ' ' -c "SELECT removed_entries, skipped FROM slime_gc()" 2>&1 || true)
case "$out" in
    *"WARNING:  slime_gc() skipped table alice.hidden: another session held a lock on it"*"2 {"*"alice.hidden}")
        result OK "slime_gc() removes bob's garbage while alice holds ACCESS EXCLUSIVE on her tables, and names the untracked one it skipped (0.9.0: removed nothing)" ;;
    *) result FAIL "slime_gc() beside alice's locked tables: $out" ;;
esac
case "$out" in *alice.isles*) result FAIL "slime_gc() waited for alice's tracked table: $out" ;;
    *) result OK "...never waiting for her tracked table, whose references it has counted" ;; esac
psql -X -q -d postgres -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
    WHERE application_name = 'slime_security_lock'" >/dev/null
check "alice's tracked table still reads" "t" "$(q alice "SELECT bool_and(slime_verify_refs(w)) FROM alice.isles")"
check "...and so do bob's table and loader" "t t" \
    "$(echo $(q bob "SELECT bool_and(slime_verify_refs(w)) FROM bob.isles") $(q bob "SELECT slime_verify_refs(data) FROM bob.ldr"))"

# ---- 9. a backup made without superuser ----------------------------------------
slime_log "security: 9. alice backs up her schema without superuser"
pg_dump -U alice -d $DB -t alice.saves -f "$tmp/alice.sql"
slime_psql -d postgres -c "DROP DATABASE IF EXISTS ${DB}_restore" -c "CREATE DATABASE ${DB}_restore" >/dev/null
PGDATABASE=${DB}_restore slime_psql -c "CREATE EXTENSION slime" -c "CREATE SCHEMA alice AUTHORIZATION alice" \
    -f "$tmp/alice.sql" >/dev/null 2>&1
check "her dump restores values that pass slime_verify, and slime_verify_refs finds what is missing" "2 2" \
    "$(PGDATABASE=${DB}_restore psql -X -At -c "SELECT count(*) FILTER (WHERE slime_verify(w)) || ' ' ||
        count(*) FILTER (WHERE NOT slime_verify_refs(w)) FROM alice.saves" 2>/dev/null)"
# the README's way: copy the self-contained values, load them through the trigger
PGUSER=alice PGDATABASE=$DB psql -X -q -c "\copy (SELECT slime_resolve(w) FROM alice.saves) TO '$tmp/alice.copy' (FORMAT binary)"
PGDATABASE=${DB}_restore slime_psql -c "TRUNCATE alice.saves" \
    -c "\copy alice.saves FROM '$tmp/alice.copy' (FORMAT binary)" >/dev/null
check "a binary COPY of slime_resolve(w), loaded through the trigger, restores every chunk" "2 2" \
    "$(PGDATABASE=${DB}_restore psql -X -At -c "SELECT count(*) FILTER (WHERE slime_verify_refs(w)) || ' ' ||
        count(*) FILTER (WHERE slime_info(w) ->> 'store_refs' = '1') FROM alice.saves")"

# the README's way with pg_dump: the schema's dump, and beside it a copy of
# the store entries its values refer to (slime_store_entries), added back
# with slime_store_add by a role granted it
PGUSER=alice PGDATABASE=$DB psql -X -q -c "\copy (SELECT DISTINCT e.hash, e.data FROM alice.saves, slime_store_entries(w) e) TO '$tmp/alice-store.copy' (FORMAT binary)"
slime_psql -d postgres -c "DROP DATABASE ${DB}_restore" -c "CREATE DATABASE ${DB}_restore" >/dev/null
PGDATABASE=${DB}_restore slime_psql -c "CREATE EXTENSION slime" -c "CREATE SCHEMA alice AUTHORIZATION alice" \
    -c "GRANT EXECUTE ON FUNCTION slime_store_add(bytea, bytea) TO alice" -f "$tmp/alice.sql" >/dev/null 2>&1
check "her dump and the copy of slime_store_entries, added with slime_store_add, restore every chunk" "2 2" \
    "$(PGUSER=alice PGDATABASE=${DB}_restore psql -X -q -At -v ON_ERROR_STOP=1 \
        -c "CREATE TEMP TABLE e (hash bytea, data bytea)" -c "\copy e FROM '$tmp/alice-store.copy' (FORMAT binary)" \
        -c "SELECT count(*) FILTER (WHERE slime_store_add(hash, data)) FROM e" \
        -c "SELECT count(*) FILTER (WHERE slime_verify_refs(w)) FROM alice.saves" | tr '\n' ' ' | sed 's/ $//')"
err=$(PGUSER=alice PGDATABASE=${DB}_restore psql -X -q -c "SELECT slime_store_add(hash, overlay(data PLACING '\xff' FROM 9)) FROM slime_store_entries((SELECT w FROM alice.saves LIMIT 1))" 2>&1 || true)
case "$err" in *"ERROR:  store entry "*" does not match its hash"*) result OK "slime_store_add refuses an entry that does not match its hash" ;;
    *) result FAIL "slime_store_add and a bad entry: $err" ;; esac
# a database's owner (alice, no superuser) dumps the whole database: the
# dump includes the store (0.5.0: pg_dump failed on slime_store)
slime_psql -d postgres -c "CREATE DATABASE ${DB}_owned OWNER alice" -c "CREATE DATABASE ${DB}_owned_restore" >/dev/null
PGDATABASE=${DB}_owned slime_psql -c "CREATE EXTENSION slime" -c "$CHUNK_FN" >/dev/null 2>&1
PGUSER=alice PGDATABASE=${DB}_owned slime_psql >/dev/null -c "CREATE TABLE saves (w slime)" \
    -c "CREATE TRIGGER s BEFORE INSERT ON saves FOR EACH ROW EXECUTE FUNCTION slime_store_trigger()" \
    -c "INSERT INTO saves SELECT chunk(n) FROM generate_series(30, 32) n"
if pg_dump -U alice -d ${DB}_owned -f "$tmp/owned.sql" 2>"$tmp/owned.err"; then
    result OK "the database owner's pg_dump of the whole database succeeds"
else
    result FAIL "the database owner's pg_dump: $(cat "$tmp/owned.err")"
fi
# without the grant 0.6.0 gives the database's owner, as on 0.5.0, it fails
PGDATABASE=${DB}_owned slime_psql -c "REVOKE SELECT ON slime_store FROM alice" >/dev/null
case "$(pg_dump -U alice -d ${DB}_owned -f /dev/null 2>&1)" in *"permission denied for table slime_store"*)
    result OK "...which fails without the owner's SELECT on slime_store (as on 0.5.0)" ;;
    *) result FAIL "the database owner's pg_dump without the grant did not fail on slime_store" ;; esac
PGDATABASE=${DB}_owned slime_psql -c "GRANT SELECT ON slime_store TO alice" >/dev/null
PGDATABASE=${DB}_owned_restore slime_psql -f "$tmp/owned.sql" >/dev/null 2>&1 || true
check "...and restores with every chunk" "3" \
    "$(PGDATABASE=${DB}_owned_restore psql -X -At -c "SELECT count(*) FILTER (WHERE slime_verify_refs(w)) FROM saves" 2>&1)"

finish
