-- slime_gc() costs what changed since its last run (issue #32). A table with
-- slime_track()'s trigger is tracked: what each write adds to and takes from
-- the store's references is logged, a collection folds the log into counts
-- and never reads the table; untracked tables are read as a semi-join with
-- the few candidates. In a database of its own, so that the counts below
-- are this test's.
\getenv corpus SLIME_CORPUS
\if :{?corpus}
\else
\echo '*** CORPUS MISSING: set SLIME_CORPUS to the shared corpus directory ***'
\quit
\endif
CREATE DATABASE regress_slime_gc;
\c regress_slime_gc
SET client_min_messages = warning;
CREATE EXTENSION slime;
RESET client_min_messages;

-- rows this backend read from tables that are not catalogs (the islands,
-- the store, the extension's own) and has not reported yet: inside one
-- transaction block they only grow, so a difference is what a statement
-- read. The collection's own counters are not trusted for this.
CREATE FUNCTION rows_read() RETURNS bigint LANGUAGE sql AS $$
	SELECT sum(coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0))::bigint
	FROM pg_stat_xact_all_tables
	WHERE schemaname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') $$;

-- islands as a network makes them: a 25-chunk template cut from a real 1.18
-- region (island 0), and islands that are the template plus one chunk of
-- their own, saved through the store trigger into a tracked table
CREATE TABLE islands (id int PRIMARY KEY, world slime);
CREATE TRIGGER islands_store BEFORE INSERT OR UPDATE ON islands
    FOR EACH ROW EXECUTE FUNCTION slime_store_trigger();
SELECT slime_track('islands');
CREATE TABLE region AS SELECT slime_import_region(pg_read_binary_file(:'corpus' ||
    '/anvil-1.18plus/prismarine-provider-anvil/1.18.2/r.0.0.mca'), 0, 0) AS r;
INSERT INTO islands
SELECT 0, slime_agg(slime_put_chunk(NULL, c.x, c.z, slime_chunk_nbt(r, c.x, c.z)))
FROM region, slime_chunks(r) c WHERE c.x BETWEEN 0 AND 4 AND c.z BETWEEN 0 AND 4;
-- island i's own chunk: a small chunk of the region, moved to (1000 + i, 0)
CREATE TABLE own AS SELECT slime_chunk_nbt(r, 0, 5) AS nbt FROM region;
DROP TABLE region;
CREATE FUNCTION add_islands(lo int, hi int) RETURNS void LANGUAGE sql AS $$
	INSERT INTO islands
	SELECT i, slime_put_chunk(t.world, 1000 + i, 0, slime_chunk_relocate(own.nbt, 1000 + i, 0))
	FROM islands t, own, generate_series(lo, hi) i WHERE t.id = 0 $$;
-- rows read from one table so far (by a scan: seq; by key: idx), as rows_read()
CREATE FUNCTION rows_read_of(t regclass, how text) RETURNS bigint LANGUAGE sql AS $$
	SELECT CASE how WHEN 'seq' THEN coalesce(seq_tup_read, 0) ELSE coalesce(idx_tup_fetch, 0) END
	FROM pg_stat_xact_all_tables WHERE relid = t $$;
SELECT slime_info(world) ->> 'chunks' AS chunks, slime_info(world) ->> 'store_refs' AS refs
FROM islands WHERE id = 0;
SELECT rel, columns, tracked, why_not FROM slime_tracking();

-- 2,000 islands; the first collection of a new database reads everything
-- once (no counts yet), the next has nothing to do
SELECT add_islands(1, 2000);
SELECT removed_entries, candidates, values_read FROM slime_gc();
BEGIN;
SELECT rows_read() AS before \gset
SELECT removed_entries, candidates, values_read, columns_scanned FROM slime_gc();
SELECT rows_read() - :before AS rows_2000 \gset
COMMIT;
-- 8,000 islands: a collection with nothing to do reads as many rows as at
-- 2,000 (0.9.0's read every value and, per store row, all their
-- references: four times the islands, 21 times the time)
SELECT add_islands(2001, 8000);
SELECT removed_entries, candidates, values_read FROM slime_gc();
BEGIN;
SELECT rows_read() AS before \gset
SELECT removed_entries, candidates, values_read, columns_scanned FROM slime_gc();
SELECT rows_read() - :before AS rows_8000 \gset
COMMIT;
SELECT :rows_8000 = :rows_2000 AS same_rows_read, :rows_8000 < 100 AS few_rows_read;
-- the counter sees a pass: slime_gc(full => true) reads every island again
BEGIN;
SELECT rows_read() AS before \gset
SELECT removed_entries, candidates, values_read FROM slime_gc(full => true);
SELECT rows_read() - :before > 8000 AS read_every_island;
COMMIT;
SELECT count(*) AS entries FROM slime_store;

-- 1,000 saves: islands 1..1000 move their own chunk; the old ones are the
-- garbage, found from the log: no island is read, nor is the store scanned
UPDATE islands SET world = slime_put_chunk(slime_delete_chunk(world, 1000 + id, 0), 20000 + id, 0,
    slime_chunk_relocate(own.nbt, 20000 + id, 0))
FROM own WHERE id BETWEEN 1 AND 1000;
BEGIN;
SELECT rows_read_of('islands', 'seq') + rows_read_of('islands', 'idx') AS islands_before,
       rows_read_of('slime_store', 'seq') AS scanned_before, rows_read_of('slime_store', 'idx') AS keyed_before \gset
SELECT removed_entries, kept_entries, candidates, values_read, columns_scanned FROM slime_gc();
SELECT rows_read_of('islands', 'seq') + rows_read_of('islands', 'idx') - :islands_before AS islands_read,
       rows_read_of('slime_store', 'seq') - :scanned_before AS store_rows_scanned,
       rows_read_of('slime_store', 'idx') - :keyed_before > 0 AS store_read_by_key;
COMMIT;
SELECT count(*) AS entries FROM slime_store;
-- deleted islands: their own chunks go, the template's stay
DELETE FROM islands WHERE id > 7000;
SELECT removed_entries, kept_entries, values_read FROM slime_gc();
SELECT count(*) FILTER (WHERE slime_verify_refs(world)) AS sound, count(*) AS islands FROM islands
WHERE id IN (0, 1, 999, 1000, 1001, 7000);

-- an untracked table is read, as a semi-join of its values' references with
-- the candidates: here the copies keep what the deleted islands held
CREATE TABLE copies AS SELECT id, world FROM islands WHERE id BETWEEN 6001 AND 6010;
DELETE FROM islands WHERE id BETWEEN 6001 AND 6020;
SELECT removed_entries, kept_entries, values_read, columns_scanned, untracked FROM slime_gc();
SELECT count(*) FILTER (WHERE slime_verify_refs(world)) AS sound FROM copies;
SELECT rel, tracked, why_not FROM slime_tracking() WHERE rel = 'copies'::regclass;
-- its deletes are not logged: what only it held is looked for at every run
-- (read again while it holds any), and goes once the table lets go of it
SELECT removed_entries, kept_entries, values_read FROM slime_gc();
DROP TABLE copies;
SELECT removed_entries, kept_entries, values_read, untracked FROM slime_gc();
-- with no candidate, an untracked table is not read at all
CREATE TABLE copies AS SELECT id, world FROM islands WHERE id BETWEEN 1 AND 100;
SELECT removed_entries, values_read, columns_scanned, untracked FROM slime_gc();

-- a tracked table whose trigger is disabled is read as an untracked one;
-- enabled again, it is counted once more (writes meanwhile were not logged)
ALTER TABLE islands DISABLE TRIGGER slime_track;
SELECT tracked, why_not FROM slime_tracking() WHERE rel = 'islands'::regclass;
DELETE FROM islands WHERE id BETWEEN 5001 AND 5010;
INSERT INTO islands SELECT id + 100000, world FROM copies WHERE id <= 5;
SELECT removed_entries, kept_entries, values_read > 5000 AS read_islands FROM slime_gc();
SELECT slime_track('islands');
SELECT removed_entries, tables_tracked, values_read > 5000 AS counted_again FROM slime_gc();
DROP TABLE copies;
SELECT removed_entries, values_read, columns_scanned FROM slime_gc();
SELECT count(*) FILTER (WHERE slime_verify_refs(world)) AS sound, count(*) AS islands FROM islands
WHERE id % 500 = 0 OR id > 100000;
-- TRUNCATE (the table's storage changes) counts it again, from nothing
CREATE TABLE scratch (w slime);
CREATE TRIGGER scratch_store BEFORE INSERT OR UPDATE ON scratch
    FOR EACH ROW EXECUTE FUNCTION slime_store_trigger();
SELECT slime_track('scratch');
INSERT INTO scratch SELECT slime_put_chunk(world, 9, 9, slime_chunk_relocate(own.nbt, 9, 9))
FROM islands, own WHERE id = 0;
SELECT removed_entries, candidates FROM slime_gc();
TRUNCATE scratch;
SELECT removed_entries, columns_scanned FROM slime_gc();
-- a dropped tracked table's counts go with it
INSERT INTO scratch SELECT slime_put_chunk(world, 9, 9, slime_chunk_relocate(own.nbt, 9, 9))
FROM islands, own WHERE id = 0;
SELECT removed_entries FROM slime_gc();
DROP TABLE scratch;
SELECT removed_entries, kept_entries, values_read FROM slime_gc();
SELECT count(*) AS tracked FROM slime_store_tracked;

-- the tracking trigger only runs AFTER INSERT OR UPDATE OR DELETE FOR EACH
-- ROW, on every row (a narrower one would miss writes)
CREATE TABLE wrong (w slime);
CREATE TRIGGER wrong_track AFTER INSERT ON wrong FOR EACH ROW EXECUTE FUNCTION slime_track_trigger();
\set VERBOSITY terse
INSERT INTO wrong SELECT world FROM islands WHERE id = 0;
\set VERBOSITY default
SELECT tracked, why_not FROM slime_tracking() WHERE rel = 'wrong'::regclass;
DROP TABLE wrong;

-- a loader's saves table is tracked
SELECT slime_loader_create('gc_loader')::text AS loader;
SELECT rel, tracked FROM slime_tracking() WHERE rel::text LIKE 'gc_loader%';

-- the values still read, and the store holds exactly what they refer to
SELECT count(*) FILTER (WHERE slime_verify_refs(world)) AS sound, count(*) AS islands FROM islands
WHERE id % 500 = 0 OR id > 100000;
SELECT (SELECT count(*) FROM slime_store) =
       (SELECT count(DISTINCT h) FROM islands, unnest(slime_refs(world)) h) AS store_is_what_islands_hold;
SELECT removed_entries FROM slime_gc(full => true);

\c contrib_regression
DROP DATABASE regress_slime_gc;
