-- Storage at rest: slime_settle() rewrites what the extension owns and
-- nobody wrote for older_than into the densest form: chunk store entries
-- (same bytes, same hash, fewer stored bytes) and the cached files of
-- loader worlds with no running lease. Values in users' tables stay as
-- they are.
\set SHOW_CONTEXT never
\set VERBOSITY terse
-- the block totals here decode chunks read out of packs (what they do for a
-- value without a contents summary): from a summary they read no store entry
-- (summary.sql)
SET slime.read_summaries = off;

-- a block of a layered terrain: stone with coal ore, 3 layers of dirt, air
CREATE FUNCTION terrain_block(x int, y int, z int) RETURNS bigint LANGUAGE sql IMMUTABLE
AS $$ SELECT CASE WHEN y > 60 + ((x * 3 + z * 5) / 7) % 6 THEN 2
                  WHEN y > 57 + ((x * 3 + z * 5) / 7) % 6 THEN 1
                  WHEN hashint4(x * 7919 + y * 104729 + z * 1299709) % 23 = 0 THEN 3
                  ELSE 0 END::bigint $$;
-- a 1.20 chunk of 8 sections of it (4 bits a block, 16 blocks a long)
CREATE FUNCTION terrain_chunk(x int, z int, edit int DEFAULT 0) RETURNS bytea LANGUAGE sql IMMUTABLE
AS $$ SELECT nbt_compound('',
        nbt_int('DataVersion', 3700), nbt_int('xPos', x), nbt_int('zPos', z), nbt_int('yPos', -4),
        nbt_string('Status', 'minecraft:full'),
        nbt_list_compounds('sections', VARIADIC ARRAY(SELECT
            nbt_compound('', nbt_byte('Y', sy),
                nbt_compound('block_states',
                    nbt_list_compounds('palette', nbt_compound('', nbt_string('Name', 'minecraft:stone')),
                        nbt_compound('', nbt_string('Name', 'minecraft:dirt')),
                        nbt_compound('', nbt_string('Name', 'minecraft:air')),
                        nbt_compound('', nbt_string('Name', 'minecraft:coal_ore'))),
                    nbt_long_array('data', VARIADIC ARRAY(
                        SELECT (SELECT sum(CASE WHEN edit > 0 AND sy = -4 AND b < edit THEN 3
                                                ELSE terrain_block(x * 16 + (b & 15), sy * 16 + 64 + (b >> 8),
                                                                   z * 16 + ((b >> 4) & 15)) END << (4 * j))::bigint
                                FROM generate_series(0, 15) j, LATERAL (SELECT i * 16 + j AS b) k)
                        FROM generate_series(0, 255) i ORDER BY i))))
            FROM generate_series(-4, 3) sy ORDER BY sy))) $$;

CREATE TABLE settle_saves (id int PRIMARY KEY, world slime);
CREATE TRIGGER settle_saves_store BEFORE INSERT OR UPDATE ON settle_saves
    FOR EACH ROW EXECUTE FUNCTION slime_store_trigger();
INSERT INTO settle_saves
SELECT 1, slime_agg(slime_put_chunk(NULL, x, z, terrain_chunk(x, z)))
FROM generate_series(0, 2) x, generate_series(0, 2) z;

-- what readers see now, and the store as it is
CREATE TABLE settle_seen AS
SELECT id, slime_resolve(world)::bytea AS resolved, slime_content_hash(world) AS content_hash,
       world::bytea AS row_bytes
FROM settle_saves;
CREATE TABLE settle_before AS SELECT hash, data FROM slime_store;

-- every entry remembers when it was written; none is settled yet
SELECT count(*) AS entries, bool_and(NOT settled) AS none_settled,
       bool_and(stored_at <= now()) AS stored_at_set
FROM slime_store;

-- the default waits 15 minutes: entries written just now stay as they are
SELECT * FROM slime_settle();

-- older_than => '0': every entry is rewritten into its densest form, in
-- batches (a NOTICE after each batch here, progress => '0')
SELECT what, items = (SELECT count(*) FROM settle_before) AS every_entry,
       bytes_after < bytes_before AS smaller
FROM slime_settle(older_than => '0', batch_size => 4, progress => '0')
WHERE what = 'store entries';

-- content, content hashes and the rows of users' tables never change
SELECT s.resolved = slime_resolve(t.world)::bytea AS same_content,
       s.content_hash = slime_content_hash(t.world) AS same_hash,
       s.row_bytes = t.world::bytea AS same_row
FROM settle_seen s JOIN settle_saves t USING (id);

-- every entry keeps its key and passes the store's checks; a batch of
-- entries went into one pack (slime_store_packs): a packed row holds u8 2
-- and its index in the pack, and the packs hold fewer bytes than the
-- entries did
SELECT count(*) AS entries, bool_and(s.settled) AS all_settled,
       bool_and(s.pack IS NOT NULL AND get_byte(s.data, 0) = 2 AND octet_length(s.data) = 5) AS all_packed,
       count(DISTINCT s.pack) AS packs
FROM slime_store s JOIN settle_before b USING (hash);
SELECT (SELECT sum(octet_length(data)) FROM slime_store_packs) < (SELECT sum(octet_length(data)) FROM settle_before)
       AS packs_smaller;
SELECT count(*) AS problems FROM slime_store_verify();
-- a copy of a packed entry (slime_store_entries, for backups) is whole: the
-- raw form (u8 0), which slime_store_add takes back
SELECT count(*) AS copies, bool_and(get_byte(e.data, 0) = 0) AS raw_form,
       bool_and(slime_store_entry_check(e.hash, e.data) IS NULL) AS copies_check
FROM settle_saves t, slime_store_entries(t.world) e;

-- every accessor reads dense entries
SELECT count(*) AS blocks_kinds, sum(count) AS blocks FROM settle_saves, slime_block_counts(world);
SELECT slime_chunk_nbt(world, 1, 2) = terrain_chunk(1, 2) AS chunk_nbt FROM settle_saves;

-- idempotent: nothing is left to do
SELECT * FROM slime_settle('0');

-- new saves refer to settled entries as to any other
INSERT INTO settle_saves
SELECT 2, slime_agg(slime_put_chunk(NULL, x, z, terrain_chunk(x, z)))
FROM generate_series(1, 3) x, generate_series(0, 2) z;
SELECT slime_resolve(world) = (SELECT slime_agg(slime_put_chunk(NULL, x, z, terrain_chunk(x, z)))
                               FROM generate_series(1, 3) x, generate_series(0, 2) z) AS same_world
FROM settle_saves WHERE id = 2;
SELECT items FROM slime_settle('0') WHERE what = 'store entries';

-- an entry that does not match its key is left as it is, with a warning
CREATE TABLE settle_bad AS SELECT sha256('settle') AS hash, data FROM settle_before LIMIT 1;
INSERT INTO slime_store (hash, data) SELECT hash, data FROM settle_bad;
SELECT slime_store_entry_settle(hash, data) IS NULL AS refused FROM settle_bad;
SELECT what, items FROM slime_settle('0') WHERE what = 'store entries';
SELECT s.data = b.data AS unchanged FROM slime_store s JOIN settle_bad b USING (hash);
DELETE FROM slime_store WHERE hash = sha256('settle');

-- garbage collection removes settled entries no value refers to; a pack
-- goes with the last entry that points into it
DELETE FROM settle_saves WHERE id = 2;
SELECT removed_entries AS removed FROM slime_gc();
SELECT count(*) AS packs_without_entries FROM slime_store_packs p
WHERE NOT EXISTS (SELECT 1 FROM slime_store s WHERE s.pack = p.id);
SELECT count(*) AS entries_without_pack FROM slime_store s
WHERE s.pack IS NOT NULL AND NOT EXISTS (SELECT 1 FROM slime_store_packs p WHERE p.id = s.pack);

-- a pack a collection leaves with fewer live entries than half those it
-- holds is repacked by the next settle after the next collection (which
-- sets its rows unsettled, outside the lock its delete holds), and its dead
-- bytes go with it; one left half alive or more stays as it is
INSERT INTO settle_saves
SELECT 3, slime_agg(slime_put_chunk(NULL, x, z, terrain_chunk(x, z)))
FROM generate_series(10, 12) x, generate_series(0, 2) z;
INSERT INTO settle_saves
SELECT 4, slime_agg(slime_put_chunk(NULL, 10, z, terrain_chunk(10, z))) FROM generate_series(0, 2) z;
INSERT INTO settle_saves
SELECT 6, slime_agg(slime_put_chunk(NULL, 11, z, terrain_chunk(11, z))) FROM generate_series(0, 1) z;
SELECT items FROM slime_settle('0') WHERE what = 'store entries';
CREATE TABLE settle_pack_9 AS
SELECT p.id, slime_pack_entries(p.data) AS entries, octet_length(p.data) AS bytes
FROM slime_store_packs p WHERE p.id = (SELECT max(id) FROM slime_store_packs);
SELECT entries FROM settle_pack_9;
DELETE FROM settle_saves WHERE id = 3;
SELECT removed_entries AS removed FROM slime_gc();
SELECT count(*) AS rows_left, bool_and(settled) AS kept FROM slime_store s JOIN settle_pack_9 p ON s.pack = p.id;
DELETE FROM settle_saves WHERE id = 6;
SELECT removed_entries AS removed FROM slime_gc();
SELECT count(*) AS rows_left, bool_and(NOT settled) AS to_repack
FROM slime_store s JOIN settle_pack_9 p ON s.pack = p.id;
SELECT removed_entries AS removed FROM slime_gc();
SELECT count(*) AS rows_left, bool_and(NOT settled) AS to_repack
FROM slime_store s JOIN settle_pack_9 p ON s.pack = p.id;
SELECT items FROM slime_settle('0') WHERE what = 'store entries';
SELECT count(*) AS old_pack_left FROM slime_store_packs JOIN settle_pack_9 USING (id);
SELECT slime_pack_entries(p.data) AS entries, octet_length(p.data) < o.bytes AS smaller
FROM slime_store_packs p, settle_pack_9 o WHERE p.id = (SELECT max(id) FROM slime_store_packs);
SELECT slime_resolve(world) = (SELECT slime_agg(slime_put_chunk(NULL, 10, z, terrain_chunk(10, z)))
                               FROM generate_series(0, 2) z) AS same_world
FROM settle_saves WHERE id = 4;
DELETE FROM settle_saves WHERE id = 4;
SELECT removed_entries AS removed FROM slime_gc();
DROP TABLE settle_pack_9;

-- slime.settle_codec = fast: packs coded with zstd-19 (larger, read at
-- zstd's speed); the default, dense, codes them with the block codec
INSERT INTO settle_saves
SELECT 5, slime_agg(slime_put_chunk(NULL, x, z, terrain_chunk(x, z)))
FROM generate_series(30, 32) x, generate_series(0, 2) z;
SET slime.settle_codec = fast;
SELECT items FROM slime_settle('0') WHERE what = 'store entries';
RESET slime.settle_codec;
-- (the first byte of the frame of a pack's whole entries: pack_frame_at, sql/setup.sql)
SELECT bool_and((get_byte(p.data, pack_frame_at(p.data)::int) = 40) = (p.id = m.id)) AS newest_zstd_others_not,
       bool_and(p.id = m.id OR get_byte(p.data, pack_frame_at(p.data)::int) & 240 = 176) AS others_block_codec
FROM slime_store_packs p, (SELECT max(id) AS id FROM slime_store_packs) m;
SELECT slime_resolve(world) = (SELECT slime_agg(slime_put_chunk(NULL, x, z, terrain_chunk(x, z)))
                               FROM generate_series(30, 32) x, generate_series(0, 2) z) AS same_world
FROM settle_saves WHERE id = 5;
-- packed entries made unsettled again (to change codecs, say) are
-- repacked; the packs they leave empty are deleted
CREATE TABLE settle_packs_before AS SELECT id FROM slime_store_packs;
UPDATE slime_store SET settled = false WHERE pack IS NOT NULL;
SELECT items FROM slime_settle('0') WHERE what = 'store entries';
SELECT count(*) AS old_packs_left FROM slime_store_packs JOIN settle_packs_before USING (id);
SELECT count(*) AS entries, bool_and(settled AND pack IS NOT NULL) AS all_packed FROM slime_store;
SELECT bool_and(slime_verify_refs(world)) AS refs_ok FROM settle_saves;
DROP TABLE settle_packs_before;
-- with slime.store_read_check = hash, a reader checks an entry it reads out
-- of a pack against its key once and remembers it; a row pointing at that
-- entry under another key is still refused (its own bytes are checked)
BEGIN;
SET LOCAL slime.store_read_check = hash;
SELECT slime_resolve(world) IS NOT NULL AS read_and_checked FROM settle_saves WHERE id = 5;
-- (block totals keep the counts of each packed entry they read, with the key it hashed to)
SELECT slime_block_totals(world) = slime_block_totals(slime_resolve(world)) AS same_totals
FROM settle_saves WHERE id = 5;
UPDATE slime_store t SET data = f.data, pack = f.pack
FROM (SELECT s.data, s.pack FROM slime_store s
      WHERE s.hash = (SELECT h FROM settle_saves, unnest(slime_refs(world)) h WHERE id = 5 ORDER BY h OFFSET 1 LIMIT 1)) f
WHERE t.hash = (SELECT h FROM settle_saves, unnest(slime_refs(world)) h WHERE id = 5 ORDER BY h LIMIT 1);
DO $$
BEGIN
	PERFORM slime_resolve(world) FROM settle_saves WHERE id = 5;
	RAISE NOTICE 'read';
EXCEPTION WHEN data_corrupted THEN
	RAISE NOTICE 'refused (%)', SQLSTATE;
END
$$;
-- so are block totals, though they kept that entry's counts
DO $$
BEGIN
	PERFORM slime_block_totals(world) FROM settle_saves WHERE id = 5;
	RAISE NOTICE 'counted';
EXCEPTION WHEN data_corrupted THEN
	RAISE NOTICE 'refused (%)', SQLSTATE;
END
$$;
-- slime_verify_refs hashes every entry, whatever the setting
SET LOCAL slime.store_read_check = checksum;
SELECT slime_verify_refs(world) AS refs_ok FROM settle_saves WHERE id = 5;
ROLLBACK;
-- slime.pack_cache_size bounds the decoded packs a backend keeps (64MB);
-- at 0 it keeps only the pack being read, and reads give the same bytes
SHOW slime.pack_cache_size;
SET slime.pack_cache_size = 0;
SELECT bool_and(slime_verify_refs(world)) AS refs_ok_keeping_one_pack FROM settle_saves;
SELECT count(*) AS chunks_read FROM settle_saves, slime_chunks(world) c
WHERE slime_chunk_nbt(world, c.x, c.z) IS NOT NULL;
RESET slime.pack_cache_size;
-- a damaged pack is an error for its readers (the frame's checksum), block
-- totals too: counts kept of a pack are used only while its row is the same
SELECT slime_block_totals(world) IS NOT NULL AS counted FROM settle_saves WHERE id = 5;
UPDATE slime_store_packs SET data = overlay(data placing '\xffff'::bytea from 200)
WHERE id = (SELECT max(id) FROM slime_store_packs);
-- (the pack's id, which depends on the tests before, left out)
DO $$
DECLARE
	f text;
BEGIN
	FOREACH f IN ARRAY ARRAY['slime_resolve', 'slime_block_totals'] LOOP
		BEGIN
			EXECUTE format('SELECT %s(world) FROM settle_saves WHERE id = 5', f);
		EXCEPTION WHEN data_corrupted THEN
			RAISE NOTICE '%: %', f, regexp_replace(SQLERRM, 'pack \d+', 'pack N');
		END;
	END LOOP;
END
$$;
-- issue #33: a pack's directory damaged in pairs that cancel (an entry's
-- length up, a later one's down by as much, so the frame still decodes to
-- their sum) is an error for the chunks of that pack, never other bytes:
-- the directory has a checksum, and each entry the first 8 bytes of its key
INSERT INTO settle_saves
SELECT 6, slime_agg(slime_put_chunk(NULL, x, z, terrain_chunk(x, z)))
FROM generate_series(40, 42) x, generate_series(0, 1) z;
SELECT items FROM slime_settle('0') WHERE what = 'store entries';
CREATE TABLE pack6 AS
SELECT p.id, p.data, get_byte(p.data, 1) AS version, get_byte(p.data, 2) AS entries
FROM slime_store_packs p WHERE p.id = (SELECT max(id) FROM slime_store_packs);
SELECT version, entries FROM pack6;
CREATE TABLE chunks6 AS
SELECT c.x, c.z, slime_chunk_nbt(world, c.x, c.z) AS nbt FROM settle_saves, slime_chunks(world) c WHERE id = 6;
-- each chunk of world 6 read on its own: refused, the bytes it had, or other bytes
CREATE FUNCTION reads6(OUT refused int, OUT same int, OUT wrong int) LANGUAGE plpgsql
AS $$
DECLARE
	c record;
	got bytea;
BEGIN
	refused := 0; same := 0; wrong := 0;
	FOR c IN SELECT * FROM chunks6 LOOP
		BEGIN
			SELECT slime_chunk_nbt(world, c.x, c.z) INTO got FROM settle_saves WHERE id = 6;
			IF got = c.nbt THEN same := same + 1; ELSE wrong := wrong + 1; END IF;
		EXCEPTION WHEN data_corrupted THEN
			refused := refused + 1;
		END;
	END LOOP;
END
$$;
-- every pair of entries, every length that can give 32 bytes (or what it has)
CREATE FUNCTION cancelling_damage(row_bytes int, OUT pairs int, OUT refused int, OUT same int, OUT wrong int)
LANGUAGE plpgsql AS $$
DECLARE
	good bytea := (SELECT data FROM slime_store_packs WHERE id = (SELECT id FROM pack6));
	n int := get_byte(good, 2);
	a int; z int; c int; d bigint; r record;
BEGIN
	pairs := 0; refused := 0; same := 0; wrong := 0;
	FOR a IN 0 .. n - 2 LOOP
		FOR z IN a + 1 .. n - 1 LOOP
			FOR c IN 0 .. 2 LOOP
				d := least(32, u32le(good, 6 + row_bytes * z + 4 * c));
				CONTINUE WHEN d = 0;
				UPDATE slime_store_packs SET data =
					put_u32le(put_u32le(good, 6 + row_bytes * a + 4 * c, u32le(good, 6 + row_bytes * a + 4 * c) + d),
							  6 + row_bytes * z + 4 * c, u32le(good, 6 + row_bytes * z + 4 * c) - d)
				WHERE id = (SELECT id FROM pack6);
				r := reads6();
				pairs := pairs + 1;
				refused := refused + r.refused; same := same + r.same; wrong := wrong + r.wrong;
			END LOOP;
		END LOOP;
	END LOOP;
	UPDATE slime_store_packs SET data = good WHERE id = (SELECT id FROM pack6);
END
$$;
SELECT * FROM reads6();
SELECT * FROM cancelling_damage(28);
-- a key prefix, a base, a delta length or the directory's checksum changed
-- alone: refused too
UPDATE slime_store_packs SET data = set_byte(data, 6 + 28 * 2 + 12, get_byte(data, 6 + 28 * 2 + 12) # 1)
WHERE id = (SELECT id FROM pack6);
SELECT * FROM reads6();
UPDATE slime_store_packs SET data = set_byte(data, 6 + 28 * 2 + 20, get_byte(data, 6 + 28 * 2 + 20) # 1)
WHERE id = (SELECT id FROM pack6);
SELECT * FROM reads6();
UPDATE slime_store_packs SET data = set_byte(data, 6 + 28 * 2 + 24, get_byte(data, 6 + 28 * 2 + 24) # 1)
WHERE id = (SELECT id FROM pack6);
SELECT * FROM reads6();
UPDATE slime_store_packs p SET data = set_byte(p.data, 6 + 28 * pack6.entries, get_byte(p.data, 6 + 28 * pack6.entries) # 1)
FROM pack6 WHERE p.id = pack6.id;
SELECT * FROM reads6();
UPDATE slime_store_packs p SET data = pack6.data FROM pack6 WHERE p.id = pack6.id;
-- a store row pointing at another entry of the pack, or into another pack,
-- is refused (the entry's key prefix is not its key); block totals that
-- kept the counts of the entry it points at are refused too
SELECT slime_block_totals(world) IS NOT NULL AS counted FROM settle_saves WHERE id = 6;
CREATE TABLE rows6 AS
SELECT s.hash, s.data, s.pack FROM slime_store s, pack6 WHERE s.pack = pack6.id ORDER BY s.data;
UPDATE slime_store s SET data = '\x0201000000'::bytea
WHERE s.hash = (SELECT hash FROM rows6 WHERE data = '\x0200000000'::bytea);
SELECT * FROM reads6();
DO $$
BEGIN
	PERFORM slime_block_totals(world) FROM settle_saves WHERE id = 6;
	RAISE NOTICE 'counted';
EXCEPTION WHEN data_corrupted THEN
	RAISE NOTICE 'refused: %', regexp_replace(SQLERRM, '[0-9a-f]{64}', 'H');
END
$$;
UPDATE slime_store s SET data = '\x0200000000'::bytea, pack = (SELECT min(id) FROM slime_store_packs)
WHERE s.hash = (SELECT hash FROM rows6 WHERE data = '\x0200000000'::bytea);
SELECT * FROM reads6();
UPDATE slime_store s SET data = r.data, pack = r.pack FROM rows6 r WHERE s.hash = r.hash;
SELECT * FROM reads6();
-- a version 1 pack (0.7.0 to 0.9.0 wrote them: no key prefixes, no
-- checksum over its directory) is still read, each entry hashed against its
-- key, so the same damage gives the chunk's bytes or an error, never others
UPDATE slime_store_packs p SET data =
	set_byte(substring(pack6.data, 1, 6), 1, 1)
	|| (SELECT string_agg(substring(pack6.data, 7 + 28 * i, 12), ''::bytea ORDER BY i)
	    FROM generate_series(0, pack6.entries - 1) i)
	|| substring(pack6.data, 7 + 28 * pack6.entries + 8)
FROM pack6 WHERE p.id = pack6.id;
SELECT * FROM reads6();
SELECT pairs, refused > 0 AS some_refused, wrong FROM cancelling_damage(12);
UPDATE slime_store_packs p SET data = pack6.data FROM pack6 WHERE p.id = pack6.id;
SELECT * FROM reads6();
-- versions of one chunk settled in one batch: a settle batch codes every
-- entry whole (version 3 with no base); only a loader world's gathered
-- history codes versions against each other (below), and every version
-- reads back as it was
INSERT INTO settle_saves
SELECT 7 + v, slime_agg(slime_put_chunk(NULL, x, 0, terrain_chunk(x, 0, v)))
FROM generate_series(0, 2) v, generate_series(50, 51) x GROUP BY v;
SELECT items FROM slime_settle('0') WHERE what = 'store entries';
SELECT get_byte(p.data, 1) AS version, get_byte(p.data, 2) AS entries,
       (SELECT count(*) FROM generate_series(0, get_byte(p.data, 2) - 1) i WHERE u32le(p.data, 6 + 28 * i + 20) > 0) AS based,
       (SELECT max(u32le(p.data, 6 + 28 * i + 24)) FROM generate_series(0, get_byte(p.data, 2) - 1) i) AS largest_delta
FROM slime_store_packs p WHERE p.id = (SELECT max(id) FROM slime_store_packs);
SELECT id, bool_and(slime_chunk_nbt(world, x, 0) = terrain_chunk(x, 0, id - 7)) AS same
FROM settle_saves, generate_series(50, 51) x WHERE id BETWEEN 7 AND 9 GROUP BY id ORDER BY id;
DELETE FROM settle_saves WHERE id BETWEEN 6 AND 9;
DROP TABLE pack6, chunks6, rows6;
DROP FUNCTION cancelling_damage(int), reads6();
DELETE FROM settle_saves WHERE id = 5;
SELECT removed_entries AS removed FROM slime_gc();

-- loaders: a world with no running lease and no recent save keeps its
-- cached file in the cold form ("SLCF": the file's blocks compressed against
-- the newest save's chunks, a small part of the file); its next load gives
-- the version-13 file back from it
SELECT slime_loader_create('cold_isl');
CREATE TABLE settle_files AS
SELECT slime_to_slimefile(slime_agg(slime_put_chunk(NULL, x, z, sf_chunk(x, z)))) AS f
FROM generate_series(0, 1) x, generate_series(0, 1) z;
SELECT slime_lease_acquire('cold_isl', w, 'srv', '1 hour') AS token FROM (VALUES ('hot'), ('cold')) v(w);
SELECT slime_loader_save('cold_isl', w, 1, f) AS save FROM settle_files, (VALUES ('hot'), ('cold')) v(w);
SELECT slime_lease_release('cold_isl', 'cold', 1) AS released;
-- saved just now: both keep their file under the default older_than
SELECT what, items FROM slime_settle() WHERE what = 'loader files';
-- the cold world's chunks, which the settle's first step packed beside
-- whatever else was cold, are gathered into a pack of their own
-- (a framed form's bytes are its directory's and its frames')
SELECT octet_length(file) + (SELECT sum(octet_length(frame)) FROM cold_isl_frames r WHERE r.world = w.world) AS kept_bytes
FROM cold_isl_worlds w WHERE world = 'cold' \gset
SELECT what, items,
       CASE what WHEN 'loader files' THEN bytes_before = :kept_bytes END AS file_bytes,
       CASE what WHEN 'loader files' THEN bytes_after < bytes_before / 2 END AS cold_form_smaller
FROM slime_settle('0') WHERE what <> 'store entries';
-- (the cold world's frames went with its framed form)
SELECT world, file IS NOT NULL AS has_file, convert_from(substring(file, 1, 4), 'UTF8') AS form,
       (SELECT count(*) FROM cold_isl_frames r WHERE r.world = w.world) AS frames
FROM cold_isl_worlds w ORDER BY world;
CREATE VIEW cold_isl_packs AS
SELECT w.world, count(DISTINCT s.pack) AS packs, bool_and(p.gathered) AS gathered,
       sum(slime_pack_entries(p.data)) / count(*) AS pack_entries
FROM cold_isl_worlds w JOIN cold_isl l ON l.world = w.world AND l.save = w.saves,
     unnest(slime_refs(l.data)) h JOIN slime_store s ON s.hash = h JOIN slime_store_packs p ON p.id = s.pack
GROUP BY w.world;
SELECT * FROM cold_isl_packs WHERE world = 'cold';
-- idempotent: a cold form is not settled again, nor its chunks gathered
SELECT what, items FROM slime_settle('0') WHERE what <> 'store entries';
-- both load the same file; the cold form gives back the file's blocks,
-- compressed again at slime.loader_level (1, fast, as a save's new chunks),
-- so in the file's very bytes only at the level it was written at (3); the
-- framed form gives back the chunk block in frames of its own
SELECT w, sf_same_file(slime_loader_load('cold_isl', w), f) AS same_file,
       slime_loader_load('cold_isl', w) = f AS same_bytes
FROM settle_files, (VALUES ('hot'), ('cold')) v(w) ORDER BY w;
SET slime.loader_level = 3;
SELECT slime_loader_load('cold_isl', 'cold') = f AS same_bytes_at_3 FROM settle_files;
RESET slime.loader_level;
-- the next save of the cold world caches its file again
SELECT slime_lease_acquire('cold_isl', 'cold', 'srv', '1 hour') AS token;
SELECT slime_loader_save('cold_isl', 'cold', 2, f) AS save FROM settle_files;
SELECT world, file IS NOT NULL AS has_file FROM cold_isl_worlds ORDER BY world;
-- a chunk in a gathered pack stays there: the other world, gone cold with
-- the same chunks, gathers none, and reads them where they are
SELECT slime_lease_release('cold_isl', 'hot', 1) AS released;
SELECT what, items FROM slime_settle('0') WHERE what <> 'store entries';
SELECT * FROM cold_isl_packs ORDER BY world;
SELECT slime_from_slimefile(slime_loader_load('cold_isl', 'hot')) = slime_from_slimefile(f) AS same_world
FROM settle_files;
DROP VIEW cold_isl_packs;
-- a cold world's history (from 0.11.0): the chunks only its older saves
-- hold are gathered into its pack after its newest save's, and each older
-- version of a chunk is coded against the newer one before it (the base
-- and delta fields of its directory row) when that makes the pack
-- smaller; every save reads back as it was saved. Here chunk (80,0)
-- changes at each of 4 saves (a few more of its blocks made coal ore).
SELECT slime_lease_acquire('cold_isl', 'hist', 'srv', '1 hour') AS token;
CREATE TABLE hist_files AS
SELECT v, slime_to_slimefile(slime_agg(slime_put_chunk(NULL, x, z,
           terrain_chunk(x, z, CASE WHEN x = 80 AND z = 0 THEN 5 * v ELSE 0 END)))) AS f
FROM generate_series(0, 3) v, generate_series(80, 81) x, generate_series(0, 1) z GROUP BY v;
SELECT slime_loader_save('cold_isl', 'hist', 1, f) IS NOT NULL AS saved FROM hist_files WHERE v = 0;
SELECT slime_loader_save('cold_isl', 'hist', 1, f) IS NOT NULL AS saved FROM hist_files WHERE v = 1;
SELECT slime_loader_save('cold_isl', 'hist', 1, f) IS NOT NULL AS saved FROM hist_files WHERE v = 2;
SELECT slime_loader_save('cold_isl', 'hist', 1, f) IS NOT NULL AS saved FROM hist_files WHERE v = 3;
SELECT slime_lease_release('cold_isl', 'hist', 1) AS released;
SELECT what, items FROM slime_settle('0') WHERE what <> 'store entries';
SELECT count(DISTINCT s.pack) AS packs, count(*) AS entries, bool_and(p.gathered) AS gathered,
       count(*) FILTER (WHERE get_byte(p.data, 1) = 3
                          AND get_byte(p.data, 6 + 28 * (s.data_index) + 20) > 0) AS coded_against_another
FROM (SELECT DISTINCT h FROM cold_isl l, unnest(slime_refs(l.data)) h WHERE l.world = 'hist') r
JOIN LATERAL (SELECT s.pack, get_byte(s.data, 1) + (get_byte(s.data, 2) << 8) AS data_index
              FROM slime_store s WHERE s.hash = r.h) s ON true
JOIN slime_store_packs p ON p.id = s.pack;
SELECT l.save - min(l.save) OVER () AS v,
       slime_chunk_nbt(l.data, 80, 0) = slime_chunk_nbt(slime_from_slimefile(h.f), 80, 0) AS same_chunk,
       sf_same_file(slime_to_slimefile(l.data), h.f) AS same_file
FROM cold_isl l JOIN hist_files h ON h.v = l.save - (SELECT min(save) FROM cold_isl WHERE world = 'hist')
WHERE l.world = 'hist' ORDER BY l.save;
DROP TABLE hist_files;
-- a cold load reads the chunks the cold form was made against in place in
-- the world's gathered pack (the form's version 2 keeps them in hash order,
-- as the pack does), after one store lookup; the frame's checksum vouches
-- for the file. Every way to find them gives the same bytes (at level 3):
CREATE TABLE settle_one AS SELECT slime_to_slimefile(slime_put_chunk(NULL, 0, 0, sf_chunk(0, 0))) AS f;
SELECT slime_lease_acquire('cold_isl', 'one', 'srv', '1 hour') AS one_token \gset
SELECT slime_loader_save('cold_isl', 'one', :one_token, f) AS save FROM settle_one;
SELECT slime_lease_release('cold_isl', 'one', :one_token) AS released;
SELECT what, items FROM slime_settle('0') WHERE what = 'loader files';
SELECT get_byte(file, 4) AS cold_version FROM cold_isl_worlds WHERE world = 'one';
SET slime.loader_level = 3;
SELECT slime_loader_load('cold_isl', 'one') = f AS same_bytes FROM settle_one;
-- every entry checked against its key
SET slime.store_read_check = hash;
SELECT slime_loader_load('cold_isl', 'one') = f AS same_bytes_hashed FROM settle_one;
RESET slime.store_read_check;
-- issue #33: the frame's checksum covers the blocks' bytes, not the file's
-- 8 header bytes (DataVersion, world flags) nor where the chunk block ends
-- and the extra block starts, so version 3 carries an XXH64 of its 21
-- header bytes after them. Every byte of the header and of that checksum
-- damaged in turn, the two lengths changed so that they cancel (the chunk
-- block's up by d and the extra block's down by d, or the other way: the
-- frame still decodes to their sum), and one byte in 7 of the frame: each
-- load gives the file, never another one: a damaged cold form is never
-- decoded into a file, the load warns (data_corrupted) and writes the file
-- from the save (the version byte 3 made 2 reads as a cold form of 0.9.0,
-- below; a version this build does not know is refused)
CREATE TABLE cold_one AS SELECT file FROM cold_isl_worlds WHERE world = 'one';
CREATE FUNCTION cold_damage(k bytea, OUT damaged int, OUT refused int, OUT same int, OUT wrong int)
LANGUAGE plpgsql SET client_min_messages = error AS $$
DECLARE
	m bytea;
	got bytea;
	f bytea := (SELECT f FROM settle_one);
BEGIN
	damaged := 0; refused := 0; same := 0; wrong := 0;
	FOR m IN
		SELECT set_byte(k, o, get_byte(k, o) # 1) FROM generate_series(0, 28) o UNION ALL
		SELECT put_u32le(put_u32le(k, 13, u32le(k, 13) + d * s), 17, u32le(k, 17) - d * s)
		FROM unnest(ARRAY[1, 8, 32]) d, unnest(ARRAY[1, -1]) s
		WHERE u32le(k, 13) >= d AND u32le(k, 17) >= d UNION ALL
		SELECT set_byte(k, o, get_byte(k, o) # 1) FROM generate_series(29, octet_length(k) - 1, 7) o
	LOOP
		UPDATE cold_isl_worlds SET file = m WHERE world = 'one';
		damaged := damaged + 1;
		BEGIN
			got := slime_loader_load('cold_isl', 'one');
			IF got = f THEN same := same + 1; ELSE wrong := wrong + 1; END IF;
		EXCEPTION WHEN data_corrupted OR feature_not_supported THEN
			refused := refused + 1;
		END;
	END LOOP;
	UPDATE cold_isl_worlds SET file = k WHERE world = 'one';
END
$$;
SELECT u32le(file, 13) > 32 AS chunk_block, u32le(file, 17) > 32 AS extra_block FROM cold_one;
SELECT * FROM cold_damage((SELECT file FROM cold_one));
\set VERBOSITY terse
UPDATE cold_isl_worlds SET file = set_byte(file, 8, get_byte(file, 8) # 1) WHERE world = 'one';
SELECT slime_loader_load('cold_isl', 'one') = f AS from_the_save FROM settle_one;
UPDATE cold_isl_worlds SET file = put_u32le(put_u32le(file, 13, u32le(file, 13) + 8), 17, u32le(file, 17) - 8)
WHERE world = 'one';
SELECT slime_loader_load('cold_isl', 'one') = f AS from_the_save FROM settle_one;
\set VERBOSITY default
-- a cold form of 0.8.0 or 0.9.0 (version 1: the chunks in directory order,
-- for one chunk the same prefix; version 2: version 3 without the header's
-- checksum) is read as absent: the load writes the file from the newest
-- save, so the same damage gives the file, never another one
UPDATE cold_isl_worlds SET file = (SELECT set_byte(substring(file FOR 21), 4, 2) || substring(file FROM 30) FROM cold_one)
WHERE world = 'one';
SELECT slime_loader_load('cold_isl', 'one') = f AS same_bytes_v2 FROM settle_one;
SELECT * FROM cold_damage((SELECT file FROM cold_isl_worlds WHERE world = 'one'));
UPDATE cold_isl_worlds SET file = set_byte(file, 4, 1) WHERE world = 'one';
SELECT * FROM cold_damage((SELECT file FROM cold_isl_worlds WHERE world = 'one'));
-- it stays until the world's next save; slime_settle() leaves it as it is
SELECT what, items FROM slime_settle('0') WHERE what = 'loader files';
SELECT get_byte(file, 4) AS cold_version FROM cold_isl_worlds WHERE world = 'one';
UPDATE cold_isl_worlds SET file = (SELECT file FROM cold_one) WHERE world = 'one';
-- a framed form (what a save keeps) damaged while its world is cold is not
-- made into a cold form that would vouch for it: slime_settle() drops it
-- with a WARNING, and the next load writes the file from the save; a file
-- kept as it came by 0.9.0 or earlier is not trusted either: the cold form
-- is made of the file the save writes
SELECT slime_lease_acquire('cold_isl', 'one', 'srv', '1 hour') AS one_token \gset
SELECT slime_loader_save('cold_isl', 'one', :one_token, f) AS save FROM settle_one;
SELECT slime_lease_release('cold_isl', 'one', :one_token) AS released;
UPDATE cold_isl_worlds SET file = set_byte(file, 40, get_byte(file, 40) # 1) WHERE world = 'one';
\set VERBOSITY terse
SELECT what, items, bytes_after FROM slime_settle('0') WHERE what = 'loader files';
\set VERBOSITY default
SELECT file IS NULL AS dropped FROM cold_isl_worlds WHERE world = 'one';
SELECT slime_loader_load('cold_isl', 'one') = f AS same_bytes FROM settle_one;
UPDATE cold_isl_worlds SET file = (SELECT set_byte(f, 40, get_byte(f, 40) # 1) FROM settle_one) WHERE world = 'one';
SELECT what, items FROM slime_settle('0') WHERE what = 'loader files';
SELECT get_byte(file, 4) AS cold_version FROM cold_isl_worlds WHERE world = 'one';
SELECT slime_loader_load('cold_isl', 'one') = f AS same_bytes FROM settle_one;
DROP FUNCTION cold_damage(bytea);
-- a cold world ('hot', gone cold above) whose first chunk in hash order is
-- no longer packed: read chunk by chunk through the store
UPDATE slime_store s SET data = slime_store_entry_read(s.hash), pack = NULL
FROM cold_isl_worlds w JOIN cold_isl l ON l.world = w.world AND l.save = w.saves
WHERE w.world = 'hot' AND s.hash = (slime_refs(l.data))[1]
RETURNING substring(w.file, 1, 4) = 'SLCF'::bytea AS cold_form, s.pack IS NULL AS unpacked;
SELECT slime_loader_load('cold_isl', 'hot') = f AS same_bytes_unpacked FROM settle_files;
RESET slime.loader_level;

-- arguments are checked
SELECT * FROM slime_settle('-1 s');
SELECT * FROM slime_settle('0', batch_size => 0);
-- max_batches bounds the work of one call
INSERT INTO settle_saves
SELECT 3, slime_agg(slime_put_chunk(NULL, x, z, terrain_chunk(x, z)))
FROM generate_series(10, 12) x, generate_series(0, 2) z;
SELECT items FROM slime_settle('0', batch_size => 2, max_batches => 1) WHERE what = 'store entries';
SELECT items FROM slime_settle('0') WHERE what = 'store entries';
-- a batch of a loader's worlds is a batch too (0.11.0 settled every cold
-- world in one call, whatever max_batches): three worlds saved, then given
-- back, settle a world a call at batch_size 1, the first by name first
SELECT count(slime_loader_save('cold_isl', w, slime_lease_acquire('cold_isl', w, 'srv', '1 hour'), f)) AS saved
FROM settle_files, (VALUES ('m1'), ('m2'), ('m3')) v(w);
SELECT items FROM slime_settle('0') WHERE what = 'loader files';   -- leased: none
SELECT count(slime_lease_release('cold_isl', world, token)) AS released FROM cold_isl_worlds WHERE world LIKE 'm_';
SELECT what, items FROM slime_settle('0', batch_size => 1, max_batches => 1) WHERE items > 0;
SELECT world, substring(file, 1, 4) = 'SLCF'::bytea AS cold_form FROM cold_isl_worlds WHERE world LIKE 'm_' ORDER BY world;
SELECT what, items FROM slime_settle('0', batch_size => 2, max_batches => 1) WHERE items > 0;
SELECT count(*) FILTER (WHERE substring(file, 1, 4) = 'SLCF'::bytea) AS cold_forms FROM cold_isl_worlds WHERE world LIKE 'm_';
SELECT w, sf_same_file(slime_loader_load('cold_isl', w), f) AS same_file FROM settle_files, (VALUES ('m1'), ('m2'), ('m3')) v(w);

-- slime_settle_batches: the same work, each batch committed on its own (a
-- cancel keeps what is done); it leaves the caller's search_path as it was
INSERT INTO settle_saves
SELECT 4, slime_agg(slime_put_chunk(NULL, x, z, terrain_chunk(x, z)))
FROM generate_series(20, 22) x, generate_series(0, 2) z;
SHOW search_path;
CALL slime_settle_batches('0', batch_size => 4) \gset
SELECT :entries AS entries, :bytes_after < :bytes_before AS smaller, :files AS files;
-- a call does one batch, of store entries, then of a loader's worlds (three at batch_size 1)
SELECT count(slime_loader_save('cold_isl', w, slime_lease_acquire('cold_isl', w, 'srv', '1 hour'), f)) AS saved
FROM settle_files, (VALUES ('m1'), ('m2'), ('m3')) v(w);
SELECT count(slime_lease_release('cold_isl', world, token)) AS released FROM cold_isl_worlds WHERE world LIKE 'm_';
CALL slime_settle_batches('0', batch_size => 1) \gset
SELECT :entries AS entries, :files AS files;
SHOW search_path;
SELECT count(*) FILTER (WHERE NOT settled) AS unsettled FROM slime_store;
CALL slime_settle_batches('0');
-- it commits, so not inside a transaction block
BEGIN;
CALL slime_settle_batches('0');
ROLLBACK;

-- only roles granted EXECUTE may run it (it writes the store as its owner)
CREATE ROLE regress_settle_user;
SET ROLE regress_settle_user;
SELECT * FROM slime_settle('0');
SELECT * FROM slime_settle_loader_files('cold_isl', now(), 10);
SELECT slime_settle_loader_refs('cold_isl', now(), 10);
CALL slime_settle_batches('0');
RESET ROLE;
DROP ROLE regress_settle_user;
DROP TABLE settle_saves, settle_seen, settle_before, settle_bad, settle_files, settle_one, cold_one, cold_isl, cold_isl_worlds, cold_isl_frames;
