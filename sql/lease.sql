-- World loaders with leases: what a game server (or two) sees. A loader is
-- a saves table and its _worlds table; every write carries a fencing token
-- that the database checks in the statement that writes.
\set SHOW_CONTEXT never
SELECT slime_loader_create('isl');
SELECT slime_loader_create('isl');     -- a second server starting: nothing to do
-- a table of the name that is not a loader's is refused, never adopted
-- (another role's is too: test/security.sh)
CREATE TABLE arena (id bigint PRIMARY KEY, world slime);
SELECT slime_loader_create('arena');
DROP TABLE arena;
\d isl

-- a 2x2-chunk island as the slime file a server hands over
CREATE TABLE lease_files AS
SELECT n, slime_to_slimefile(slime_agg(slime_put_chunk(NULL, x, z, sf_chunk(x, z, 3700 + n * 0)))) AS f
FROM generate_series(1, 1) n, generate_series(0, 1) x, generate_series(0, 1) z GROUP BY n;

-- alice acquires the lease of "sky": token 1
SELECT slime_lease_acquire('isl', 'sky', 'alice', '10 s') AS alice_token;
-- bob is refused while it runs (NULL, no error)
SELECT slime_lease_acquire('isl', 'sky', 'bob', '10 s') AS bob_token;
-- alice saves under her token: save 1
SELECT slime_loader_save('isl', 'sky', 1, f) AS save FROM lease_files;
-- the newest save comes back as a slime file with the same world in it
SELECT slime_from_slimefile(slime_loader_load('isl', 'sky')) = slime_from_slimefile(f) AS same_world,
       sf_same_file(slime_loader_load('isl', 'sky'), f) AS same_file
FROM lease_files;
SELECT slime_loader_load('isl', 'nowhere') IS NULL AS unknown_world_is_null;

-- a token nobody was granted is refused, nothing written
SELECT slime_loader_save('isl', 'sky', 7, f) FROM lease_files;
-- so is a write with no lease at all
SELECT slime_loader_save('isl', 'moon', 1, f) FROM lease_files;

-- the lease runs on the database clock: once it expires, bob gets token 2
SELECT slime_lease_acquire('isl', 'sea', 'carol', '100 ms') AS carol_token;
SELECT pg_sleep(0.3);
SELECT slime_lease_acquire('isl', 'sea', 'dave', '10 s') AS dave_token;
-- carol's late save (the fencing token is stale) is refused, nothing written
SELECT slime_loader_save('isl', 'sea', 1, f) FROM lease_files;
SELECT slime_lease_renew('isl', 'sea', 1, '10 s') AS carol_renews;
SELECT count(*) AS sea_saves FROM isl WHERE world = 'sea';

-- renew keeps a running lease; the same holder acquiring again gets a new
-- token, which makes the old one stale
SELECT slime_lease_renew('isl', 'sky', 1, '20 s') AS alice_renews;
SELECT slime_lease_acquire('isl', 'sky', 'alice', '10 s') AS alice_again;
SELECT slime_loader_save('isl', 'sky', 1, f) FROM lease_files;
SELECT slime_loader_save('isl', 'sky', 2, f) AS save FROM lease_files;

-- release: the token can no longer write, the next grant is token 3
SELECT slime_lease_release('isl', 'sky', 2) AS released;
SELECT slime_lease_release('isl', 'sky', 2) AS released_twice;
SELECT slime_loader_save('isl', 'sky', 2, f) FROM lease_files;
SELECT slime_lease_acquire('isl', 'sky', 'bob', '10 s') AS bob_token;

-- the fence is a trigger on the saves table: a plain INSERT is checked too
INSERT INTO isl (world, token, data) SELECT 'sky', 2, slime_from_slimefile(f) FROM lease_files;
INSERT INTO isl (world, token, data) SELECT 'sky', 3, slime_from_slimefile(f) FROM lease_files;

-- history: saves numbered per world, each in the chunk store
SELECT world, save, token, slime_info(data) ->> 'store_refs' AS refs FROM isl ORDER BY world, save;
-- a save that changes one chunk (a chest becomes a crate) adds one store entry
SELECT count(*) AS entries_before FROM slime_store \gset
CREATE TABLE lease_changed AS
SELECT slime_to_slimefile(slime_put_chunk(slime_from_slimefile(f), 0, 0,
           decode(replace(encode(sf_chunk(0, 0), 'hex'), encode('chest', 'hex'), encode('crate', 'hex')), 'hex'))) AS f
FROM lease_files;
SELECT slime_loader_save('isl', 'sky', 3, f) AS save FROM lease_changed;
SELECT count(*) - :entries_before AS new_entries FROM slime_store;
SELECT id FROM slime_block_entities(slime_from_slimefile(slime_loader_load('isl', 'sky'))) ORDER BY x, z;

-- rollback to save 1: a new save 5 equal to it, made under the lease
SELECT slime_loader_rollback('isl', 'sky', 1, 3) AS save;
SELECT save, data = (SELECT data FROM isl WHERE world = 'sky' AND save = 1) AS like_save_1
FROM isl WHERE world = 'sky' ORDER BY save;
-- a load gives back the newest save: a version-13 file as it was saved, else
-- (after a rollback, a plain INSERT, an older file) written from the value
SELECT slime_from_slimefile(slime_loader_load('isl', 'sky')) = data AS loads_save_5
FROM isl WHERE world = 'sky' AND save = 5;
SELECT slime_loader_rollback('isl', 'sky', 99, 3);
SELECT slime_loader_rollback('isl', 'sky', 1, 2);

-- retention: keep the newest 2 saves of the world
SELECT slime_loader_save('isl', 'sky', 3, f, keep => 2) AS save FROM lease_changed;
SELECT save FROM isl WHERE world = 'sky' ORDER BY save;
SELECT slime_loader_prune('isl', 'sky', 0);

-- a file that is not a slime file is refused, nothing stored
SELECT slime_loader_save('isl', 'sky', 3, '\xb10b0d00ff'::bytea);
-- (a slime file of any version slime_from_slimefile reads is saved: sql/loader.sql
-- and the Java suite, which saves the corpus's v1, v3, v12 and v13 files)
SELECT slime_lease_acquire('isl', 'sky', 'bob', '0 s');
SELECT save FROM isl WHERE world = 'sky' ORDER BY save;

-- delete: every save goes, the lease and the counter stay, so tokens keep growing
SELECT slime_loader_delete('isl', 'sky', 2);
SELECT slime_loader_delete('isl', 'sky', 3) AS deleted;
SELECT slime_loader_load('isl', 'sky') IS NULL AS gone;
SELECT slime_lease_release('isl', 'sky', 3) AS released;
SELECT slime_lease_acquire('isl', 'sky', 'alice', '10 s') AS alice_token;
SELECT slime_loader_save('isl', 'sky', 4, f) AS save FROM lease_files;
SELECT world, holder, token, saves FROM isl_worlds ORDER BY world;

-- the fence lets through only the row slime_loader_save is inserting: just
-- after a save, in the same transaction, an insert with a stale token, or
-- with the save's own world and number, is still checked
BEGIN;
SELECT slime_loader_save('isl', 'sky', 4, f) AS save FROM lease_files \gset
SELECT :save AS save, slime_loader_fenced('isl', 'sky', :save) AS fenced_after;
SAVEPOINT s;
INSERT INTO isl (world, save, saved_at, token, data) SELECT 'sky', 3, now(), 3, data FROM isl LIMIT 1;
ROLLBACK TO s;
INSERT INTO isl (world, save, saved_at, token, data) SELECT 'sky', :save, now(), 4, data FROM isl LIMIT 1;
SELECT save, token FROM isl WHERE world = 'sky' ORDER BY save;
ROLLBACK;

-- sharing a loader: its owner grants a server role the loader's use (SELECT
-- and INSERT on the saves table) and nothing on isl_worlds; the server
-- reaches leases and saves through the functions only (they run as the
-- loader's owner), and a lease is bound to the role that acquired it
CREATE ROLE regress_server;
CREATE ROLE regress_other;
GRANT SELECT, INSERT ON isl TO regress_server, regress_other;
GRANT SELECT ON lease_files TO regress_server, regress_other;
-- code of the owner's that runs for a server (here a trigger SETting a
-- parameter for the session) changes nothing in the server's session
CREATE FUNCTION isl_sets() RETURNS trigger LANGUAGE plpgsql AS
$$BEGIN PERFORM pg_catalog.set_config('work_mem', '7MB', false); RAISE NOTICE 'work_mem set to %', pg_catalog.current_setting('work_mem'); RETURN NEW; END$$;
CREATE TRIGGER isl_sets BEFORE INSERT ON isl FOR EACH ROW EXECUTE FUNCTION isl_sets();
SET ROLE regress_server;
SELECT slime_loader_create('isl')::text AS found;
SELECT slime_lease_acquire('isl', 'moon', 'server-9', '10 s') AS token;
SELECT slime_loader_save('isl', 'moon', 1, f) AS save FROM lease_files;
SELECT current_setting('work_mem') <> '7MB' AS unchanged;
SELECT sf_same_file(slime_loader_load('isl', 'moon'), f) AS loads FROM lease_files;
SELECT token FROM isl_worlds;
INSERT INTO isl (world, token, data) SELECT 'moon', 1, slime_from_slimefile(f) FROM lease_files;
SELECT slime_loader_prune('isl', 'moon', 1);
RESET ROLE;
DROP TRIGGER isl_sets ON isl;
DROP FUNCTION isl_sets();
SELECT world, holder, token, leased_by FROM isl_worlds WHERE world = 'moon';
-- another server's role cannot use that lease's token, nor take the lease
-- by giving the same holder name
SET ROLE regress_other;
SELECT slime_loader_save('isl', 'moon', 1, f) FROM lease_files;
SELECT slime_lease_acquire('isl', 'moon', 'server-9', '10 s') AS same_holder_other_role;
RESET ROLE;
REVOKE ALL ON isl FROM regress_server, regress_other;
REVOKE ALL ON lease_files FROM regress_server, regress_other;
DROP ROLE regress_server, regress_other;

-- the functions that write are VOLATILE, the load STABLE
SELECT proname, provolatile FROM pg_proc
WHERE proname LIKE 'slime\_lease\_%' OR proname LIKE 'slime\_loader\_%' ORDER BY proname;

DROP TABLE isl, isl_worlds, isl_frames, lease_files, lease_changed;
SELECT removed_entries > 0 AS collected FROM slime_gc();
