-- Deferred loader saves (issue #34): with slime.loader_defer on, a save to
-- a loader that has its <name>_pending table checks the file, keeps what a
-- load gives back (its frames and directory) and a pending row, and
-- converts nothing; slime_loader_catch_up() converts the pending saves in
-- order, each into its row of the saves table, the same row a save that
-- converts writes.
\set SHOW_CONTEXT never
\set VERBOSITY terse
\getenv corpus SLIME_CORPUS
\if :{?corpus}
\else
\echo '*** CORPUS MISSING: set SLIME_CORPUS to the shared corpus directory ***'
\quit
\endif
SELECT slime_loader_create('dq') IS NOT NULL AS made;
-- no _pending table: nothing is deferred, nothing to catch up
SELECT slime_loader_pending('dq') IS NULL AS none, slime_loader_catch_up('dq') AS converted;
SELECT slime_loader_defer_table('dq')::text AS pending, slime_loader_defer_table('dq')::text AS again;
SELECT setseed(0.1);
-- an island of 25 chunks of a 1.21.1 region, in 18 versions of 1-5 edited chunks
CREATE TABLE dq0 AS SELECT slime_agg(slime_put_chunk(NULL, c.x, c.z, slime_chunk_nbt(w, c.x, c.z))) w
FROM (SELECT slime_import_region(pg_read_binary_file(:'corpus' || '/anvil-1.18plus/prismarine-provider-anvil/1.21.1/r.0.0.mca'), 0, 0) w) s,
LATERAL (SELECT a.x x0, a.z z0 FROM slime_chunks(s.w) a WHERE (SELECT count(*) FROM slime_chunks(s.w) b
  WHERE b.x BETWEEN a.x AND a.x + 4 AND b.z BETWEEN a.z AND a.z + 4) = 25 ORDER BY a.x, a.z LIMIT 1) m,
slime_chunks(w) c WHERE c.x BETWEEN m.x0 AND m.x0 + 4 AND c.z BETWEEN m.z0 AND m.z0 + 4;
CREATE TABLE dq_files (k int PRIMARY KEY, f bytea);
DO $$
DECLARE w slime := (SELECT dq0.w FROM dq0); c record;
BEGIN
  FOR v IN 0..17 LOOP
    FOR e IN 1..(CASE WHEN v = 0 THEN 0 ELSE 1 + v % 5 END) LOOP
      SELECT k.x, k.z, n, position('\x070008536b794c6967687400000800'::bytea IN n) p INTO c
      FROM slime_chunks(w) k, LATERAL (SELECT slime_chunk_nbt(w, k.x, k.z) n) q
      WHERE position('\x070008536b794c6967687400000800'::bytea IN n) > 0 ORDER BY random() LIMIT 1;
      w := slime_put_chunk(w, c.x, c.z, overlay(c.n PLACING int8send(1000 * v + e) FROM c.p + 15 + (8 * (v * 5 + e)) % 2040 FOR 8));
    END LOOP;
    INSERT INTO dq_files VALUES (v, slime_to_slimefile(w));
  END LOOP;
END $$;
-- the file a load gives holds save k's world
CREATE FUNCTION dq_newest(k int) RETURNS boolean LANGUAGE sql AS $$
  SELECT slime_content_hash(slime_from_slimefile(slime_loader_load('dq', 'w'))) = slime_content_hash(slime_from_slimefile(f))
  FROM dq_files WHERE dq_files.k = $1 $$;
-- each save of the saves table holds the world of its file (save n: file n - 1)
CREATE FUNCTION dq_saves_hold() RETURNS TABLE (save bigint, same boolean) LANGUAGE sql AS $$
  SELECT s.save, slime_content_hash(s.data) = slime_content_hash(slime_from_slimefile(f.f))
  FROM dq s JOIN dq_files f ON f.k = s.save - 1 ORDER BY s.save $$;
SELECT slime_lease_acquire('dq', 'w', 'test', '1 day') AS token \gset
-- a world's first save converts (a deferred save needs the memo of one)
SET slime.loader_defer = on;
SELECT slime_loader_save('dq', 'w', :token, f) FROM dq_files WHERE k = 0;
SELECT slime_loader_save('dq', 'w', :token, f) FROM dq_files WHERE k BETWEEN 1 AND 5 ORDER BY k;
SELECT (SELECT count(*) FROM dq) AS saves, (SELECT count(*) FROM dq_pending) AS pending,
       (SELECT count(*) FROM dq_frames) > 25 AS frames_kept_for_them;
SELECT dq_newest(5);
SELECT slime_loader_catch_up('dq');
SELECT (SELECT count(*) FROM dq) AS saves, (SELECT count(*) FROM dq_pending) AS pending, (SELECT count(*) FROM dq_frames) AS frames;
SELECT * FROM dq_saves_hold();
SELECT dq_newest(5);
-- a save that converts catches its world up first
SELECT slime_loader_save('dq', 'w', :token, f) FROM dq_files WHERE k BETWEEN 6 AND 8 ORDER BY k;
SET slime.loader_defer = off;
SELECT slime_loader_save('dq', 'w', :token, f) FROM dq_files WHERE k = 9;
SELECT (SELECT count(*) FROM dq) AS saves, (SELECT count(*) FROM dq_pending) AS pending;
SELECT * FROM dq_saves_hold() WHERE save > 6;
-- keep applies at the catch-up: the saves it leaves out are never converted
SET slime.loader_defer = on;
SELECT slime_loader_save('dq', 'w', :token, f, 3) FROM dq_files WHERE k BETWEEN 10 AND 15 ORDER BY k;
SELECT slime_loader_catch_up('dq', 'w');
SELECT array_agg(save ORDER BY save) FROM dq;
SELECT * FROM dq_saves_hold();
SELECT dq_newest(15);
-- rollback to a save still pending, prune and delete count pending saves
SELECT slime_loader_save('dq', 'w', :token, f) FROM dq_files WHERE k = 16;
SELECT slime_loader_rollback('dq', 'w', 17, :token, keep => 3);
SELECT dq_newest(16), (SELECT count(*) FROM dq_pending) AS pending;
SELECT slime_loader_save('dq', 'w', :token, f) FROM dq_files WHERE k = 17;
SELECT slime_loader_prune('dq', 'w', 2);
SELECT array_agg(save ORDER BY save), (SELECT count(*) FROM dq_pending) AS pending FROM dq;
SELECT slime_loader_save('dq', 'w', :token, f) FROM dq_files WHERE k = 15;
SELECT slime_loader_delete('dq', 'w', :token);
SELECT (SELECT count(*) FROM dq) AS saves, (SELECT count(*) FROM dq_pending) AS pending, (SELECT count(*) FROM dq_frames) AS frames,
       slime_loader_load('dq', 'w') IS NULL AS no_file;
-- settle leaves a world with a pending save as it is; caught up, it settles
SELECT slime_loader_save('dq', 'w', :token, f) FROM dq_files WHERE k = 0;
SELECT slime_loader_save('dq', 'w', :token, f) FROM dq_files WHERE k = 1;
SELECT slime_lease_release('dq', 'w', :token);
SELECT count(*) >= 0 AS settled FROM slime_settle(older_than => '0');
SELECT (SELECT count(*) FROM dq_pending) AS pending, (SELECT encode(substring(file, 1, 4), 'escape') FROM dq_worlds) AS form, dq_newest(1);
-- what a schedule runs: batches of worlds, a commit after each
CALL slime_loader_catch_up_batches('dq', 1);
SELECT count(*) >= 0 AS settled FROM slime_settle(older_than => '0');
SELECT (SELECT count(*) FROM dq_pending) AS pending, (SELECT encode(substring(file, 1, 4), 'escape') FROM dq_worlds) AS form,
       (SELECT count(*) FROM dq_frames) AS frames, dq_newest(1);
SELECT slime_lease_acquire('dq', 'w', 'test', '1 day') AS token \gset
-- a save that cannot be deferred (its world's memo does not decode) converts,
-- after the world's pending saves
SELECT slime_loader_save('dq', 'w', :token, f) FROM dq_files WHERE k = 3;
UPDATE dq_worlds SET memo = '\x00';
SELECT slime_loader_save('dq', 'w', :token, f) FROM dq_files WHERE k = 4;
SELECT (SELECT count(*) FROM dq_pending) AS pending, dq_newest(4);
SELECT s.save, slime_content_hash(s.data) = slime_content_hash(slime_from_slimefile(f.f)) AS same
FROM dq s JOIN dq_files f ON f.k = s.save - 20 WHERE s.save > 22 ORDER BY s.save;
-- a damaged frame of a pending save: a load raises, never gives another world
SELECT slime_loader_save('dq', 'w', :token, f) FROM dq_files WHERE k = 2;
UPDATE dq_frames SET frame = overlay(frame PLACING '\xff'::bytea FROM 20 FOR 1)
WHERE key = (SELECT substring(file FROM 22 FOR 16) FROM dq_worlds);
SELECT octet_length(slime_loader_load('dq', 'w'));
-- the frames are the pending save's only copy: the catch-up warns and
-- leaves it while it is the world's newest save (a load keeps failing) ...
SELECT slime_loader_catch_up('dq', 'w');
SELECT slime_loader_catch_up('dq');
SELECT count(*) AS still_pending FROM dq_pending;
-- ... and drops it, lost, once a newer save stands: here one that converts
-- (catching the world up first); its load warns and writes the file from it
SET slime.loader_defer = off;
SELECT slime_loader_save('dq', 'w', :token, f) FROM dq_files WHERE k = 5;
SELECT count(*) AS still_pending FROM dq_pending;
SELECT dq_newest(5);
-- a role with no right on the loader cannot catch it up
CREATE ROLE dq_nobody;
SET ROLE dq_nobody;
SELECT slime_loader_catch_up('dq');
SELECT slime_loader_defer_table('dq');
RESET ROLE;
DROP ROLE dq_nobody;
-- the newest save gone from the saves table (deleted by hand), and not
-- pending: a load gives the newest save that is left, as the saves table says
SELECT slime_content_hash(slime_from_slimefile(slime_loader_load('dq', 'w'))) =
       (SELECT slime_content_hash(data) FROM dq ORDER BY save DESC LIMIT 1) AS newest_before;
DELETE FROM dq WHERE save = (SELECT max(save) FROM dq);
SELECT slime_content_hash(slime_from_slimefile(slime_loader_load('dq', 'w'))) =
       (SELECT slime_content_hash(data) FROM dq ORDER BY save DESC LIMIT 1) AS newest_left;
-- a loader of the longest name (56 bytes): CREATE TABLE cuts its _pending
-- table's name to 63 bytes, and the loader finds the table by that name
\set long 'dq_long_loader_name_of_fifty_six_bytes_xxxxxxxxxxxxxxxxx'
SELECT slime_loader_create(:'long') IS NOT NULL AS made;
SELECT slime_loader_defer_table(:'long')::text AS pending, slime_loader_pending(:'long')::text AS found;
SELECT slime_lease_acquire(:'long', 'w', 'test', '1 day') AS ltoken \gset
SET slime.loader_defer = on;
SELECT slime_loader_save(:'long', 'w', :ltoken, f) FROM dq_files WHERE k BETWEEN 0 AND 2 ORDER BY k;
SELECT count(*) AS pending FROM dq_long_loader_name_of_fifty_six_bytes_xxxxxxxxxxxxxxxxx_pendin;
SELECT slime_content_hash(slime_from_slimefile(slime_loader_load(:'long', 'w'))) = slime_content_hash(slime_from_slimefile(f)) AS newest
FROM dq_files WHERE k = 2;
SELECT slime_loader_catch_up(:'long') AS converted;
SELECT slime_loader_delete(:'long', 'w', :ltoken) AS deleted;
DROP TABLE dq_long_loader_name_of_fifty_six_bytes_xxxxxxxxxxxxxxxxx_pendin, dq_long_loader_name_of_fifty_six_bytes_xxxxxxxxxxxxxxxxx_frames,
  dq_long_loader_name_of_fifty_six_bytes_xxxxxxxxxxxxxxxxx, dq_long_loader_name_of_fifty_six_bytes_xxxxxxxxxxxxxxxxx_worlds;
RESET slime.loader_defer;
DROP TABLE dq_pending, dq_frames, dq, dq_worlds, dq0, dq_files;
DROP FUNCTION dq_newest(int), dq_saves_hold();
