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
-- issue #33: what a memo entry says (the store key, DataVersion, timestamp
-- and lengths a record became) goes into the value without the record
-- being parsed, so the memo carries a CRC-32 of itself (version 2, "SLM2",
-- after its header), and from 0.11.0 is kept as version 3 ("SLM3": the
-- version 2 memo in a zstd frame, whose checksum covers it too). A memo
-- damaged anywhere is no memo (every chunk is converted and the value is
-- the file's) or, for a byte of the zstd frame's header that does not
-- change what it decodes to (its window size), the same memo: never
-- another value. Here every byte flipped in turn, and a run of 32 bytes
-- overwritten with others (test/unit/test_lmemo.c takes version 2 apart
-- field by field: lengths, DataVersions and timestamps changed so that
-- they cancel, two entries' store keys swapped)
SELECT substring(memo FOR 4) AS magic FROM gs_memo;
-- a save of file version 1 with memo m: reused (chunks taken from the memo), and whether the value is the file's
CREATE FUNCTION convert_with(m bytea, OUT reused int, OUT right_value boolean) LANGUAGE sql
AS $$ SELECT c.reused, slime_content_hash(c.data) = slime_content_hash(slime_from_slimefile(f))
      FROM gs_files, slime_loader_convert(f, m) c WHERE v = 1 $$;
CREATE FUNCTION memo_damage(OUT refused int, OUT same int, OUT wrong int) LANGUAGE plpgsql
AS $$
DECLARE
	good bytea := (SELECT memo FROM gs_memo);
	all_reused int := (SELECT c.reused FROM convert_with(good) c);
	m bytea;
	r record;
BEGIN
	refused := 0; same := 0; wrong := 0;
	FOR m IN
		SELECT set_byte(good, o, get_byte(good, o) # 1) FROM generate_series(0, octet_length(good) - 1) o UNION ALL
		SELECT overlay(good PLACING substring(good FROM 9 FOR 32) FROM octet_length(good) / 2 FOR 32)
	LOOP
		r := convert_with(m);
		IF NOT r.right_value THEN
			wrong := wrong + 1;
		ELSIF r.reused = 0 THEN
			refused := refused + 1;
		ELSIF r.reused = all_reused THEN
			same := same + 1;
		ELSE
			wrong := wrong + 1;
		END IF;
	END LOOP;
END
$$;
SELECT * FROM convert_with((SELECT memo FROM gs_memo));
SELECT refused > 0 AS some_refused, refused + same = octet_length(memo) + 1 AS every_one_refused_or_same, wrong
FROM memo_damage(), gs_memo;
DROP FUNCTION memo_damage(), convert_with(bytea);
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
CREATE TEMP TABLE gs_keys_1 AS SELECT key, xmin::text AS x FROM gs_frames;
SELECT slime_loader_save('gs', 'isle', 1, f) AS save FROM gs_files WHERE v = 2;
-- the file a load gives back is kept in its framed form (issue #34): the
-- world's row keeps a directory ("SLFR", version 1, the file's header, each
-- frame's key, lengths and XXH64, the extra block, then an XXH64 of it
-- all) and gs_frames the chunk block's zstd frames, a row each (chunk
-- records under 16 KiB grouped: this island's nine make three); a load
-- concatenates them
SELECT saves, octet_length(memo) AS memo_bytes, substring(file FOR 5) AS framed_form,
       substring(file FROM 6 FOR 8) = (SELECT substring(f FOR 8) FROM gs_files WHERE v = 2) AS file_header,
       (SELECT count(*) FROM gs_frames r WHERE r.world = w.world) AS frames,
       sf_same_file(slime_loader_load('gs', 'isle'), (SELECT f FROM gs_files WHERE v = 2)) AS loads_the_file
FROM gs_worlds w;
-- a load reads the frames by index scan; the setting it holds for that
-- (enable_bitmapscan off) ends with the load, not with its transaction
BEGIN;
SELECT octet_length(slime_loader_load('gs', 'isle')) > 0 AS loaded;
SELECT current_setting('enable_bitmapscan') AS bitmap_scans_after_a_load;
COMMIT;
-- the second save wrote only the frame of the group whose chunk changed,
-- and removed the one it replaced; the others' rows are untouched
SELECT (SELECT count(*) FROM gs_frames r WHERE NOT EXISTS (SELECT 1 FROM gs_keys_1 k WHERE k.key = r.key)) AS written,
       (SELECT count(*) FROM gs_keys_1 k WHERE NOT EXISTS (SELECT 1 FROM gs_frames r WHERE k.key = r.key)) AS removed,
       (SELECT count(*) FROM gs_frames r JOIN gs_keys_1 k ON k.key = r.key AND k.x = r.xmin::text) AS untouched;
-- a damaged byte of it is never handed to the game server (a version-13
-- file's zstd blocks carry no checksum): every frame is checked against its
-- length and XXH64 in the directory, and the directory against its own; a
-- load that finds damage, or a frame missing, warns (data_corrupted, naming
-- the loader, the world and the frame) and writes the file from the save,
-- as a load with no kept file does. Every byte of the directory, and of a
-- frame every byte of its first 64 and last 16 and one in 61 between:
CREATE TABLE gs_kept AS SELECT file FROM gs_worlds WHERE world = 'isle';
CREATE TABLE gs_kept_frames AS SELECT key, frame FROM gs_frames WHERE world = 'isle';
CREATE FUNCTION load_damaged(what text, k bytea, f bytea, OUT refused int, OUT same int, OUT wrong int) LANGUAGE plpgsql
SET client_min_messages = error
AS $$
DECLARE
	n int := octet_length(k);
	o int;
	got bytea;
BEGIN
	refused := 0; same := 0; wrong := 0;
	FOR o IN SELECT g FROM generate_series(0, n - 1) g WHERE what = 'directory' OR g < 64 OR g >= n - 16 OR g % 61 = 0 LOOP
		IF what = 'directory' THEN
			UPDATE gs_worlds SET file = set_byte(k, o, get_byte(k, o) # 16) WHERE world = 'isle';
		ELSE
			UPDATE gs_frames SET frame = set_byte(k, o, get_byte(k, o) # 16)
			WHERE world = 'isle' AND key = (SELECT key FROM gs_kept_frames ORDER BY key LIMIT 1);
		END IF;
		BEGIN
			got := slime_loader_load('gs', 'isle');
			IF sf_same_file(got, f) THEN same := same + 1; ELSE wrong := wrong + 1; END IF;
		EXCEPTION WHEN data_corrupted OR feature_not_supported THEN
			refused := refused + 1;
		END;
	END LOOP;
	UPDATE gs_worlds SET file = (SELECT file FROM gs_kept) WHERE world = 'isle';
	UPDATE gs_frames r SET frame = k.frame FROM gs_kept_frames k WHERE r.world = 'isle' AND r.key = k.key;
END
$$;
SELECT 'directory' AS damaged, * FROM load_damaged('directory', (SELECT file FROM gs_kept), (SELECT f FROM gs_files WHERE v = 2))
UNION ALL
SELECT 'frame', * FROM load_damaged('frame', (SELECT frame FROM gs_kept_frames ORDER BY key LIMIT 1), (SELECT f FROM gs_files WHERE v = 2));
\set VERBOSITY terse
-- the warning: a frame missing, then a byte of one changed
DELETE FROM gs_frames WHERE world = 'isle' AND key = (SELECT key FROM gs_kept_frames ORDER BY key DESC LIMIT 1);
SELECT sf_same_file(l, f) AS from_the_save FROM (SELECT slime_loader_load('gs', 'isle') OFFSET 0) s(l), gs_files WHERE v = 2;
INSERT INTO gs_frames SELECT 'isle', key, frame FROM gs_kept_frames ON CONFLICT DO NOTHING;
-- a save reads nothing of the kept file but its directory: it reuses the
-- frames the previous directory names unread (a load checks them) and
-- writes only those of the groups whose chunks changed, so a damaged frame
-- of an unchanged group stays, and each load warns and writes the file from
-- the save, until a save changes that group or slime_settle() makes the
-- world cold (in a transaction rolled back, so that the saves below keep
-- their numbers)
BEGIN;
UPDATE gs_frames SET frame = set_byte(frame, 30, get_byte(frame, 30) # 1)
WHERE world = 'isle' AND key = (SELECT key FROM gs_kept_frames ORDER BY key LIMIT 1);
SELECT slime_loader_save('gs', 'isle', 1, f) AS save FROM gs_files WHERE v = 2;
SELECT sf_same_file(l, f) AS from_the_save,
       (SELECT count(*) FROM gs_frames r JOIN gs_kept_frames k USING (key, frame) WHERE r.world = 'isle') AS frames_as_kept
FROM (SELECT slime_loader_load('gs', 'isle') OFFSET 0) s(l), gs_files WHERE v = 2;
ROLLBACK;
UPDATE gs_worlds SET file = set_byte(file, 9, get_byte(file, 9) # 1) WHERE world = 'isle';
SELECT sf_same_file(l, f) AS from_the_save FROM (SELECT slime_loader_load('gs', 'isle') OFFSET 0) s(l), gs_files WHERE v = 2;
UPDATE gs_worlds SET file = (SELECT file FROM gs_kept) WHERE world = 'isle';
\set VERBOSITY default
-- a file kept by 0.9.0 or earlier (as it came: no checksum) is read as
-- absent: the load writes the file from the newest save, so the same
-- damage gives the world's own file
UPDATE gs_worlds w SET file = set_byte(f, 4, get_byte(f, 4) # 1) FROM gs_files WHERE v = 2 AND world = 'isle';
SELECT slime_loader_load('gs', 'isle') = slime_to_slimefile(data) AS from_the_save,
       slime_from_slimefile(slime_loader_load('gs', 'isle')) = slime_from_slimefile(f) AS same_world
FROM gs, gs_files WHERE v = 2 AND world = 'isle' AND save = 2;
UPDATE gs_worlds SET file = (SELECT file FROM gs_kept) WHERE world = 'isle';
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
SELECT sf_same_file(slime_loader_load('gs', 'isle'), f) AS loads_as_given FROM gs_old;
-- kept by 0.9.0 or earlier as it came, it cannot be written from the save:
-- it is given back when its whole conversion is that save, and refused
-- when a damaged byte makes it another world
UPDATE gs_worlds SET file = (SELECT f FROM gs_old) WHERE world = 'isle';
SELECT slime_loader_load('gs', 'isle') = f AS loads_as_given FROM gs_old;
UPDATE gs_worlds SET file = (SELECT set_byte(f, 5, get_byte(f, 5) # 1) FROM gs_old) WHERE world = 'isle';
\set VERBOSITY terse
SELECT slime_loader_load('gs', 'isle');
\set VERBOSITY default
UPDATE gs_worlds SET file = (SELECT slime_loader_file_hot(f) FROM gs_old) WHERE world = 'isle';
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
-- (the file it writes from the save is kept in the hot form too)
SELECT substring(file FOR 5) AS hot_form FROM gs_worlds WHERE world = 'isle';

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
SELECT sf_same_file(slime_loader_load('isles', 'isle'), f) AS loads_as_given FROM gs_files WHERE v = 2;
SELECT count(*) FROM slime_store;     -- which it cannot read itself
RESET ROLE;
RESET search_path;
REVOKE SELECT ON gs_files FROM regress_gs_server;
DROP SCHEMA gs_server CASCADE;
DROP ROLE regress_gs_server;

DROP TABLE gs, gs_worlds, gs_frames, gs_files, gs_memo, gs_old, gs_kept, gs_kept_frames;
DROP FUNCTION load_damaged(text, bytea, bytea);
SELECT removed_entries > 0 AS collected FROM slime_gc();
