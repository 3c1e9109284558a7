-- test/bench/bench_save_buffers.sql: the shared buffers one loader save and
-- one load touch (EXPLAIN (ANALYZE, BUFFERS) counts what the function's own
-- statements touch too). hub.slime (149 chunks) is saved, then saved again
-- five times with one chunk changed each time; the last three saves and a
-- load are measured. :corpus is the shared corpus.
\set ON_ERROR_STOP 1
CREATE EXTENSION IF NOT EXISTS slime;
SELECT slime_loader_create('bsb') IS NOT NULL AS loader;
SELECT slime_lease_acquire('bsb', 'hub', 'bench', '1 hour') AS t \gset
CREATE TEMP TABLE bsb_src AS
SELECT pg_read_binary_file(:'corpus' || '/slime/crawlspace/hub.slime') AS f,
       slime_from_slimefile(pg_read_binary_file(:'corpus' || '/slime/crawlspace/hub.slime')) AS w;
CREATE TEMP TABLE bsb_pos AS SELECT row_number() OVER (ORDER BY x, z) AS i, x, z FROM bsb_src, slime_chunks(w);
-- version k: the k-th chunk's position holds the (k + 50)-th chunk's blocks
CREATE TEMP TABLE bsb_files AS
SELECT k, slime_to_slimefile(slime_put_chunk(w, a.x, a.z, slime_chunk_relocate(slime_chunk_nbt(w, b.x, b.z), a.x, a.z)), 13) AS f
FROM bsb_src, generate_series(1, 5) k JOIN bsb_pos a ON a.i = k JOIN bsb_pos b ON b.i = k + 50;
SELECT slime_loader_save('bsb', 'hub', :t, f) AS first_save FROM bsb_src;
SELECT count(*) AS frames, sum(octet_length(frame)) AS frame_bytes FROM bsb_frames;
SELECT slime_loader_save('bsb', 'hub', :t, f) AS save FROM bsb_files WHERE k IN (1, 2) ORDER BY k;
\echo a save with one chunk changed (three times), then a load:
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT slime_loader_save('bsb', 'hub', :t, f) FROM bsb_files WHERE k = 3;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT slime_loader_save('bsb', 'hub', :t, f) FROM bsb_files WHERE k = 4;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT slime_loader_save('bsb', 'hub', :t, f) FROM bsb_files WHERE k = 5;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT slime_loader_load('bsb', 'hub');
DROP TABLE bsb, bsb_worlds, bsb_frames;
