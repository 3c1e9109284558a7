#!/usr/bin/env bash
# test/defer_wip.sh — WORK IN PROGRESS (branch defer, not in main): deferred loader
# saves (slime.loader_defer, <name>_pending, slime_loader_catch_up) on a throwaway
# cluster, the pending table and the catch-up function made by hand (no SQL
# version carries them yet). Prints; checks by eye: every "same"/"newest" t.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$SLIME_ROOT"
corpus=$(slime_corpus)
slime_cluster_start >&2
slime_psql -X -v ON_ERROR_STOP=1 -v corpus="$corpus" <<'SQL'
\set QUIET on
CREATE EXTENSION slime;
SELECT slime_loader_create('isl') \gset
CREATE TABLE isl_pending (world text NOT NULL, save int8 NOT NULL, saved_at timestamptz NOT NULL, token int8 NOT NULL,
  keep int, dir bytea NOT NULL, records bytea NOT NULL, PRIMARY KEY (world, save));
CREATE FUNCTION slime_loader_catch_up(tbl regclass, world text DEFAULT NULL) RETURNS bigint AS '$libdir/slime' LANGUAGE C;
SELECT setseed(0.1);
CREATE TABLE isl0 AS SELECT slime_agg(slime_put_chunk(NULL, c.x, c.z, slime_chunk_nbt(w, c.x, c.z))) w
FROM (SELECT slime_import_region(pg_read_binary_file(:'corpus' || '/anvil-1.18plus/prismarine-provider-anvil/1.21.1/r.0.0.mca'), 0, 0) w) s,
LATERAL (SELECT a.x x0, a.z z0 FROM slime_chunks(s.w) a WHERE (SELECT count(*) FROM slime_chunks(s.w) b
  WHERE b.x BETWEEN a.x AND a.x + 4 AND b.z BETWEEN a.z AND a.z + 4) = 25 ORDER BY a.x, a.z LIMIT 1) m,
slime_chunks(w) c WHERE c.x BETWEEN m.x0 AND m.x0 + 4 AND c.z BETWEEN m.z0 AND m.z0 + 4;
CREATE TABLE files (k int PRIMARY KEY, f bytea);
DO $$
DECLARE w slime := (SELECT isl0.w FROM isl0); c record;
BEGIN
  FOR v IN 0..19 LOOP
    FOR e IN 1..(CASE WHEN v = 0 THEN 0 ELSE 1 + v % 5 END) LOOP
      SELECT k.x, k.z, n, position('\x070008536b794c6967687400000800'::bytea IN n) p INTO c
      FROM slime_chunks(w) k, LATERAL (SELECT slime_chunk_nbt(w, k.x, k.z) n) q
      WHERE position('\x070008536b794c6967687400000800'::bytea IN n) > 0 ORDER BY random() LIMIT 1;
      w := slime_put_chunk(w, c.x, c.z, overlay(c.n PLACING int8send(1000 * v + e) FROM c.p + 15 + (8 * (v * 5 + e)) % 2040 FOR 8));
    END LOOP;
    INSERT INTO files VALUES (v, slime_to_slimefile(w));
  END LOOP;
END $$;
SELECT slime_lease_acquire('isl', 'w', 'test', '1 day') AS token \gset
\set QUIET off
-- the first save converts; then deferred
SELECT slime_loader_save('isl', 'w', :token, f) FROM files WHERE k = 0;
SET slime.loader_defer = on;
SELECT slime_loader_save('isl', 'w', :token, f) FROM files WHERE k BETWEEN 1 AND 5 ORDER BY k;
SELECT (SELECT count(*) FROM isl) saves, (SELECT count(*) FROM isl_pending) pending, (SELECT count(*) FROM isl_frames) frames;
-- a load gives the newest (pending) save's world
SELECT slime_content_hash(slime_from_slimefile(slime_loader_load('isl', 'w'))) = slime_content_hash(slime_from_slimefile(f)) AS newest FROM files WHERE k = 5;
SELECT slime_loader_catch_up('isl');
SELECT (SELECT count(*) FROM isl) saves, (SELECT count(*) FROM isl_pending) pending, (SELECT count(*) FROM isl_frames) frames;
SELECT s.save, slime_content_hash(s.data) = slime_content_hash(slime_from_slimefile(f.f)) AS same FROM isl s JOIN files f ON f.k = s.save - 1 ORDER BY s.save;
SELECT slime_content_hash(slime_from_slimefile(slime_loader_load('isl', 'w'))) = slime_content_hash(slime_from_slimefile(f)) AS newest FROM files WHERE k = 5;
-- deferred, then a converting save catches up first
SELECT slime_loader_save('isl', 'w', :token, f) FROM files WHERE k BETWEEN 6 AND 8 ORDER BY k;
SET slime.loader_defer = off;
SELECT slime_loader_save('isl', 'w', :token, f) FROM files WHERE k = 9;
SELECT (SELECT count(*) FROM isl) saves, (SELECT count(*) FROM isl_pending) pending;
SELECT s.save, slime_content_hash(s.data) = slime_content_hash(slime_from_slimefile(f.f)) AS same FROM isl s JOIN files f ON f.k = s.save - 1 WHERE s.save > 6 ORDER BY s.save;
-- keep applies at the catch-up: those past it are never converted
SET slime.loader_defer = on;
SELECT slime_loader_save('isl', 'w', :token, f, 3) FROM files WHERE k BETWEEN 10 AND 15 ORDER BY k;
SELECT slime_loader_catch_up('isl', 'w');
SELECT array_agg(save ORDER BY save) FROM isl;
SELECT slime_content_hash(data) = (SELECT slime_content_hash(slime_from_slimefile(f)) FROM files WHERE k = 15) FROM isl WHERE save = 16;
SELECT slime_content_hash(slime_from_slimefile(slime_loader_load('isl', 'w'))) = slime_content_hash(slime_from_slimefile(f)) AS newest FROM files WHERE k = 15;
-- settle leaves a world with a pending save as it is, and settles it once caught up
SELECT slime_loader_save('isl', 'w', :token, f) FROM files WHERE k = 16;
SELECT slime_lease_release('isl', 'w', :token);
SELECT count(*) > 0 FROM slime_settle(older_than => '0');
SELECT (SELECT count(*) FROM isl_pending) pending, (SELECT substring(file, 1, 4) FROM isl_worlds) form;
SELECT slime_content_hash(slime_from_slimefile(slime_loader_load('isl', 'w'))) = slime_content_hash(slime_from_slimefile(f)) AS newest FROM files WHERE k = 16;
SELECT slime_loader_catch_up('isl');
SELECT count(*) > 0 FROM slime_settle(older_than => '0');
SELECT (SELECT count(*) FROM isl_pending) pending, (SELECT substring(file, 1, 4) FROM isl_worlds) form, (SELECT count(*) FROM isl_frames) frames;
SELECT slime_content_hash(slime_from_slimefile(slime_loader_load('isl', 'w'))) = slime_content_hash(slime_from_slimefile(f)) AS newest FROM files WHERE k = 16;
SELECT slime_lease_acquire('isl', 'w', 'test', '1 day') AS token \gset
-- a damaged frame of a pending save: the load is an error, never another world
SELECT slime_loader_save('isl', 'w', :token, f) FROM files WHERE k = 17;
UPDATE isl_frames SET frame = overlay(frame PLACING '\xff'::bytea FROM 20 FOR 1) WHERE key = (SELECT substring(file FROM 22 FOR 16) FROM isl_worlds);
SELECT octet_length(slime_loader_load('isl', 'w'));
SQL
