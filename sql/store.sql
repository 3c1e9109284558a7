-- The chunk store: chunks kept once, values that refer to them, history,
-- garbage collection, privileges, and reading format version 1.

-- A table of island saves; each save is a full world value. The trigger
-- stores the chunks of every saved value once and keeps only references in
-- the row, so the application saves with plain INSERT.
CREATE TABLE island_saves (
    island   int,
    save_no  int,
    world    slime,
    PRIMARY KEY (island, save_no)
);
CREATE TRIGGER island_saves_store BEFORE INSERT OR UPDATE ON island_saves
    FOR EACH ROW EXECUTE FUNCTION slime_store_trigger();

-- save 1 of two islands cloned from one template: the template's chunks are stored once
INSERT INTO island_saves VALUES (1, 1, test_world(3)), (2, 1, test_world(3));
SELECT island, slime_info(world) ->> 'store_refs' AS refs,
       octet_length(world::bytea) AS row_bytes
FROM island_saves ORDER BY island;
SELECT count(*) AS entries FROM slime_store;

-- a value and its reference form are equal: same content, same content hash
SELECT world = test_world(3) AS same_world,
       slime_content_hash(world) = slime_content_hash(test_world(3)) AS same_hash
FROM island_saves WHERE island = 1;

-- every accessor reads both forms alike
SELECT slime_chunk_nbt(world, 1, 2) = slime_chunk_nbt(test_world(3), 1, 2) AS nbt,
       slime_export_region(world, 0, 0) = slime_export_region(test_world(3), 0, 0) AS region_file,
       (SELECT count(*) FROM slime_block_entities(world)) AS block_entities,
       (SELECT count(*) FROM slime_entities(world)) AS entities
FROM island_saves WHERE island = 1;
SELECT x, z, raw_bytes, stored_bytes IS NULL AS in_store, hash = (
           SELECT c.hash FROM slime_chunks(test_world(3)) c WHERE c.x = 0 AND c.z = 0) AS same_hash
FROM island_saves, slime_chunks(world) WHERE island = 1 AND x = 0 AND z = 0;

-- slime_resolve gives back the self-contained value, byte for byte
SELECT slime_resolve(world)::bytea = test_world(3)::bytea AS identical,
       slime_info(slime_resolve(world)) ->> 'store_refs' AS refs
FROM island_saves WHERE island = 1;

-- save 2 of island 1 changes one chunk: one new store entry
INSERT INTO island_saves
SELECT 1, 2, slime_put_chunk(world, 1, 1, test_chunk(1, 1, 3701)) FROM island_saves
WHERE island = 1 AND save_no = 1;
SELECT count(*) AS entries FROM slime_store;
-- the edited chunk kept its entities (a reference chunk is resolved before one part is replaced)
SELECT slime_chunk_nbt(world, 1, 1, 'entities') = test_entities(1, 1) AS entities_kept,
       slime_chunk_nbt(world, 1, 1) = test_chunk(1, 1, 3701) AS region_replaced
FROM island_saves WHERE island = 1 AND save_no = 2;

-- an UPDATE that leaves the world alone stores nothing again
UPDATE island_saves SET save_no = save_no + 10 WHERE island = 2;
UPDATE island_saves SET save_no = save_no - 10 WHERE island = 2;

-- roll island 1 back to save 1: the rollback is a new save equal to save 1
INSERT INTO island_saves
SELECT island, 3, world FROM island_saves WHERE island = 1 AND save_no = 1;
SELECT save_no, world = (SELECT world FROM island_saves WHERE island = 1 AND save_no = 1) AS like_save_1
FROM island_saves WHERE island = 1 ORDER BY save_no;
SELECT count(*) AS entries FROM slime_store;

-- prune history and collect: the chunk only save 2 held goes
DELETE FROM island_saves WHERE island = 1 AND save_no = 2;
SELECT removed_entries, kept_entries FROM slime_gc();
SELECT removed_entries FROM slime_gc();
SELECT island, save_no, slime_verify(slime_resolve(world)) AS resolves
FROM island_saves ORDER BY island, save_no;

-- slime_store() by hand: the same reference form the trigger makes
SELECT slime_store(test_world(2, 40, 40)) = test_world(2, 40, 40) AS stored;
SELECT slime_info(slime_store(test_world(2, 40, 40))) ->> 'store_refs' AS refs;
-- its entries are unreferenced until a row holds the value
SELECT removed_entries FROM slime_gc();

-- values in slime[] columns and materialized views are roots too
CREATE TABLE snapshots (worlds slime[]);
INSERT INTO snapshots SELECT ARRAY[slime_store(test_world(1, 50, 50))];
CREATE MATERIALIZED VIEW stored_view AS SELECT slime_store(test_world(1, 60, 60)) AS world;
SELECT removed_entries FROM slime_gc();
SELECT slime_chunk_json(worlds[1], 50, 50) -> 'xPos' AS x FROM snapshots;
DROP MATERIALIZED VIEW stored_view;
DROP TABLE snapshots;
SELECT removed_entries FROM slime_gc();

-- GC needs READ COMMITTED
\set SHOW_CONTEXT never
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT * FROM slime_gc();
ROLLBACK;
\set SHOW_CONTEXT errors
-- a column it cannot scan (slime inside a composite type) is skipped with a
-- WARNING naming it: no role can stop the collection (test/security.sh)
CREATE TYPE boxed AS (w slime);
CREATE TABLE boxes (b boxed);
SELECT removed_entries FROM slime_gc();
DROP TABLE boxes;
DROP TYPE boxed;

-- the trigger only runs as a BEFORE row trigger
CREATE TABLE wrong (world slime);
CREATE TRIGGER wrong_store AFTER INSERT ON wrong FOR EACH ROW EXECUTE FUNCTION slime_store_trigger();
INSERT INTO wrong VALUES (test_world(1));
DROP TABLE wrong;

-- every chunk the saves refer to is in the store and matches
SELECT bool_and(slime_verify_refs(world)) AS every_save_sound FROM island_saves;
-- damage: a store entry whose bytes do not match its hash, and a missing one
CREATE TABLE damaged AS SELECT world FROM island_saves WHERE island = 2;
SET client_min_messages = warning;
UPDATE slime_store SET data = (SELECT s2.data FROM slime_store s2 WHERE s2.hash <> slime_store.hash LIMIT 1)
WHERE hash = (SELECT hash FROM slime_chunks((SELECT world FROM damaged)) WHERE x = 2 AND z = 2);
RESET client_min_messages;
SELECT problem FROM slime_store_verify();
-- slime_verify reads no table and passes the value; slime_verify_refs reads
-- each referenced chunk from the store
SELECT slime_verify(world), slime_verify_refs(world) FROM damaged;
-- every way into the store checks an entry against its key, so a read
-- checks the entry's frame (its checksum holds: these are another entry's
-- sound bytes) and sizes, not its SHA-256 (slime.store_read_check =
-- checksum); only a write around those ways (this UPDATE, by the store's
-- owner) can get it there. slime.store_read_check = hash hashes every read.
SELECT count(*) FROM damaged, slime_block_entities(world);
SET slime.store_read_check = hash;
SELECT count(*) FROM damaged, slime_block_entities(world);
RESET slime.store_read_check;
DELETE FROM slime_store WHERE hash = (SELECT hash FROM slime_chunks((SELECT world FROM damaged)) WHERE x = 2 AND z = 2);
SELECT slime_chunk_nbt(world, 2, 2) FROM damaged;
SELECT slime_chunk_nbt(world, 0, 0) IS NOT NULL AS other_chunks_fine FROM damaged;
SELECT slime_verify_refs(world) FROM damaged;
-- saving a value that refers to a missing chunk is refused
INSERT INTO island_saves SELECT 2, 2, world FROM damaged;
DROP TABLE damaged;

-- privileges: the store is not readable, and a role that cannot read a
-- table's worlds cannot reach their chunks (it never learns their hashes)
CREATE ROLE regress_slime_owner;
CREATE ROLE regress_slime_other;
GRANT CREATE, USAGE ON SCHEMA public TO regress_slime_owner;
SET ROLE regress_slime_owner;
CREATE TABLE owned_saves (world slime);
CREATE TRIGGER owned_store BEFORE INSERT ON owned_saves FOR EACH ROW EXECUTE FUNCTION slime_store_trigger();
INSERT INTO owned_saves VALUES (test_world(1, 70, 70));
SELECT slime_chunk_json(world, 70, 70) -> 'xPos' AS x FROM owned_saves;
SELECT count(*) FROM slime_store;
SELECT * FROM slime_gc();
SET ROLE regress_slime_other;
SELECT count(*) FROM owned_saves;
SELECT count(*) FROM slime_store;
SELECT * FROM slime_store_verify();
-- given the table, the other role reads the chunks through the store
RESET ROLE;
GRANT SELECT ON owned_saves TO regress_slime_other;
SET ROLE regress_slime_other;
SELECT slime_chunk_json(world, 70, 70) -> 'zPos' AS z FROM owned_saves;
RESET ROLE;
DROP TABLE owned_saves;
REVOKE CREATE, USAGE ON SCHEMA public FROM regress_slime_owner;
DROP ROLE regress_slime_owner;
DROP ROLE regress_slime_other;

-- a value written in format version 1 (by slimetool import-region
-- --format-version 1, from test_world(2)'s exported region files) is read
-- as it is and equals the same content in version 2
\set v1 '\\x534c494d01000000040000000100000070000000000100000c01000018020000740e0000740e000000000000000000000100000001000000b40400000000000000000000ffffffff5791849000000000030bafaefcad41e80881efe94ca10559c0bfb01695599af8de4ace19bbc6a0070000000000000000740e0000000000000000000000000000b800000075000000000000000100000000000000740e000000000000000000002d010000b800000075000000000000000000000001000000740e000000000000000000005a020000b800000075000000000000000100000001000000740e0000000000000000000087030000b800000075000000000000000c0100000c010000b404000028b52ffd64b403f5070072cc2a2e80a9690c983954864cc8844c400e584ab1b29d5e42328b9049dbc56f383fc1e125198cb0894276ac095bbd894c01d9c86c640e210065400e35e8230814113676d3f02c860173a3bc2fc2c6bcf8259d22d72cd5c939957f9233e897e42c92b38dea10012c3d65267f27eadbb7952e4c11a4189e1b09f6ba4eb21236ba03e785a2208e8175b847a4d57b788e90758ba09899b8ae2bc226992c1f618b2cb37dbe822f3e54c1ad2b58ccde092120f0821921ea06303620d281c4f254520340f2057649395841e7ed589a047cc739781e4519d5243002038e2a8cff15acc65b3cb350f0edd5891808dcb0f22dc7eeff85f6c4fb3c842d866d026be401f8e3b308'
SELECT slime_info(:'v1'::slime) ->> 'format_version' AS version,
       :'v1'::slime = test_world(2) AS equal,
       slime_verify(:'v1'::slime) AS verified,
       slime_chunk_nbt(:'v1'::slime, 1, 0) = test_chunk(1, 0) AS chunk;
SELECT slime_info(slime_store(:'v1'::slime)) ->> 'format_version' AS stored_as;

DROP TABLE island_saves;
SELECT removed_entries > 0 AS collected, kept_entries FROM slime_gc();
