-- The game-server path: a loader save converts only the chunks of a slime
-- file that changed since the world's previous save (the memo), gives the
-- value converting the whole file gives, and takes slime files of every
-- version. The test clusters run with slime.loader_verify = on: every save
-- is also checked against a conversion of the whole file.
\set SHOW_CONTEXT never
SHOW slime.loader_verify;
SELECT slime_loader_create('gs')::text AS saves_table;
\d gs_worlds

-- a 3x3-chunk island, and a version of it with one chunk changed
CREATE TABLE gs_files AS
SELECT 1 AS v, slime_to_slimefile(slime_agg(slime_put_chunk(NULL, x, z, sf_chunk(x, z)))) AS f
FROM generate_series(0, 2) x, generate_series(0, 2) z;
INSERT INTO gs_files
SELECT 2, slime_to_slimefile(slime_put_chunk(slime_from_slimefile(f), 1, 1,
           decode(replace(encode(sf_chunk(1, 1), 'hex'), encode('chest', 'hex'), encode('crate', 'hex')), 'hex')))
FROM gs_files WHERE v = 1;

-- slime_loader_convert: the value (in reference form: every chunk in the
-- store), the memo of the file's chunk records, how many chunks it reused
SELECT c.reused, octet_length(c.memo) AS memo_bytes,
       slime_info(c.data) ->> 'store_refs' AS refs,
       slime_content_hash(c.data) = slime_content_hash(slime_from_slimefile(f)) AS same_value
FROM gs_files, slime_loader_convert(f, NULL) c WHERE v = 1;
-- with the memo of version 1: version 1 again reuses all 9 chunks, version 2
-- all but the one that changed; the value is the same as a whole conversion
CREATE TABLE gs_memo AS SELECT c.memo FROM gs_files, slime_loader_convert(f, NULL) c WHERE v = 1;
SELECT v, c.reused, slime_content_hash(c.data) = slime_content_hash(slime_from_slimefile(f)) AS same_value
FROM gs_files, gs_memo, slime_loader_convert(f, gs_memo.memo) c ORDER BY v;
-- a memo is a cache: one that does not decode is none
SELECT c.reused FROM gs_files, slime_loader_convert(f, '\x534c4d31'::bytea) c WHERE v = 2;
-- a memo whose entry names another stored chunk than the record became
-- (the first entry's store key overwritten by the second's): its checksum
-- no longer matches, so it is no memo and every chunk is converted (one
-- forged with a matching checksum is caught by slime.loader_verify's check,
-- which test/unit/test_lmemo.c replays)
SELECT c.reused, slime_content_hash(c.data) = slime_content_hash(slime_from_slimefile(f)) AS same_value
FROM gs_files, gs_memo,
     slime_loader_convert(f, overlay(memo PLACING substring(memo FROM 21 + 80 + 4 + get_byte(memo, 100) + 28 FOR 32)
                                     FROM 21 + 28 FOR 32)) c
WHERE v = 1;
-- a memo of 0.9.0 (version 1, no contents summaries) is none either: the
-- first save after the upgrade converts every chunk
SELECT c.reused FROM gs_files, gs_memo,
     slime_loader_convert(f, overlay(memo PLACING 'SLM1'::bytea FROM 1 FOR 4)) c
WHERE v = 1;
-- only the extension's owner runs it (it writes the store)
SELECT has_function_privilege('public', 'slime_loader_convert(bytea, bytea)', 'execute') AS public_may_convert;

-- saves through the loader keep the memo in <name>_worlds
SELECT slime_lease_acquire('gs', 'isle', 'alice', '1 min') AS token;
SELECT slime_loader_save('gs', 'isle', 1, f) AS save FROM gs_files WHERE v = 1;
SELECT slime_loader_save('gs', 'isle', 1, f) AS save FROM gs_files WHERE v = 2;
SELECT saves, octet_length(memo) AS memo_bytes, file = (SELECT f FROM gs_files WHERE v = 2) AS file_as_given
FROM gs_worlds;
SELECT save, slime_content_hash(data) = slime_content_hash(slime_from_slimefile(f)) AS same_value
FROM gs JOIN gs_files ON v = save ORDER BY save;

-- a memo that names chunks slime_gc() removed: those chunks are converted
-- again, the save neither fails nor stores a wrong value
SELECT slime_loader_delete('gs', 'isle', 1) AS deleted;
SELECT removed_entries > 0 AS collected FROM slime_gc();
SELECT c.reused FROM gs_files, gs_worlds w, slime_loader_convert(f, w.memo) c WHERE v = 2;
SELECT slime_loader_save('gs', 'isle', 1, f) AS save FROM gs_files WHERE v = 2;
SELECT slime_content_hash(data) = slime_content_hash(slime_from_slimefile(f)) AS same_value,
       slime_from_slimefile(slime_loader_load('gs', 'isle')) = slime_from_slimefile(f) AS loads_back
FROM gs, gs_files WHERE v = 2 AND save = 3;

-- every slime file slime_from_slimefile reads can be saved. One whose world
-- a version-13 file cannot hold (here chunks of 1.17, DataVersion 2730) is
-- given back by loads exactly as it came; history and analytics work on it
CREATE TABLE gs_old AS SELECT overlay(f PLACING int4send(2730) FROM 4 FOR 4) AS f FROM gs_files WHERE v = 1;
SELECT slime_to_slimefile(slime_from_slimefile(f)) FROM gs_old;
SELECT slime_loader_save('gs', 'isle', 1, f) AS save FROM gs_old;
SELECT slime_loader_load('gs', 'isle') = f AS loads_as_given FROM gs_old;
SELECT save, slime_info(data) #>> '{data_version,min}' AS dv, slime_info(data) ->> 'chunks' AS chunks,
       (SELECT count(*) FROM slime_block_entities(data)) AS block_entities
FROM gs WHERE world = 'isle' ORDER BY save;
-- rollback to it works while it is the newest save (its file is kept) ...
SELECT slime_loader_rollback('gs', 'isle', 4, 1) AS save;
SELECT slime_loader_load('gs', 'isle') = f AS loads_as_given FROM gs_old;
-- ... and is refused, saying why, once a newer save replaced that file
SELECT slime_loader_save('gs', 'isle', 1, f) AS save FROM gs_files WHERE v = 1;
SELECT slime_loader_rollback('gs', 'isle', 4, 1);
-- a save of version-13-writable chunks rolls back as before
SELECT slime_loader_rollback('gs', 'isle', 3, 1) AS save;
SELECT slime_from_slimefile(slime_loader_load('gs', 'isle')) = slime_from_slimefile(f) AS loads_save_3
FROM gs_files WHERE v = 2;

-- a worlds table made before 0.5.0 (no memo column) gets it from slime_loader_create
ALTER TABLE gs_worlds DROP COLUMN memo;
SELECT slime_loader_create('gs')::text AS saves_table;
SELECT attname FROM pg_attribute WHERE attrelid = 'gs_worlds'::regclass AND attname = 'memo';
-- slime_loader_worlds: the worlds table of a saves table
SELECT slime_loader_worlds('gs')::text AS worlds;
SELECT slime_loader_worlds('gs_files');

-- a role with no privilege on the chunk store saves through its own loader:
-- the store's entries are looked up and written as the store's owner
CREATE ROLE regress_gs_server;
CREATE SCHEMA gs_server AUTHORIZATION regress_gs_server;
GRANT SELECT ON gs_files TO regress_gs_server;
SET ROLE regress_gs_server;
SET search_path = gs_server, public;
SELECT slime_loader_create('isles')::text AS saves_table;
SELECT slime_lease_acquire('isles', 'isle', 'server-1', '1 min') AS token;
SELECT slime_loader_save('isles', 'isle', 1, f) AS save FROM gs_files ORDER BY v;
SELECT slime_loader_load('isles', 'isle') = f AS loads_as_given FROM gs_files WHERE v = 2;
SELECT count(*) FROM slime_store;     -- which it cannot read itself
RESET ROLE;
RESET search_path;
REVOKE SELECT ON gs_files FROM regress_gs_server;
DROP SCHEMA gs_server CASCADE;
DROP ROLE regress_gs_server;

DROP TABLE gs, gs_worlds, gs_files, gs_memo, gs_old;
SELECT removed_entries > 0 AS collected FROM slime_gc();
