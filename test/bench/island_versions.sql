-- test/bench/island_versions.sql — the island of bench_save_profile.sh and
-- bench_load_split.sh (issue #34), for psql -v corpus=DIR: the first
-- complete 5x5 chunks of a 1.21.1 region of the corpus in 20 versions
-- (files: k, f), version v editing 1 + v % 5 chunks of version v - 1 (8
-- bytes of a sky light array); a loader isl whose world w holds version 0
-- under a lease, and a bytea table bb (ASP's MySQL loader's shape) with
-- version 0 in row w.
CREATE EXTENSION slime;
SELECT slime_loader_create('isl');
SELECT setseed(0.1);
CREATE TABLE isl0 AS SELECT slime_agg(slime_put_chunk(NULL, c.x, c.z, slime_chunk_nbt(w, c.x, c.z))) w
FROM (SELECT slime_import_region(pg_read_binary_file(:'corpus' || '/anvil-1.18plus/prismarine-provider-anvil/1.21.1/r.0.0.mca'), 0, 0) w) s,
LATERAL (SELECT a.x x0, a.z z0 FROM slime_chunks(s.w) a WHERE (SELECT count(*) FROM slime_chunks(s.w) b
  WHERE b.x BETWEEN a.x AND a.x + 4 AND b.z BETWEEN a.z AND a.z + 4) = 25 ORDER BY a.x, a.z LIMIT 1) m,
slime_chunks(w) c WHERE c.x BETWEEN m.x0 AND m.x0 + 4 AND c.z BETWEEN m.z0 AND m.z0 + 4;
CREATE TABLE files (k int PRIMARY KEY, f bytea);
-- version v edits 1 + v % 5 chunks of version v - 1 (the first has 25 chunks)
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
CREATE TABLE bb (name text PRIMARY KEY, world bytea);
SELECT slime_lease_acquire('isl', 'w', 'bench', '1 day');
SELECT slime_loader_save('isl', 'w', (SELECT token FROM isl_worlds), f) FROM files WHERE k = 0;
INSERT INTO bb SELECT 'w', f FROM files WHERE k = 0;
