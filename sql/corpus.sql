-- Real worlds from the shared corpus (read in place; SLIME_CORPUS names it).
\getenv corpus SLIME_CORPUS
\if :{?corpus}
\else
\echo '*** CORPUS MISSING: set SLIME_CORPUS to the shared corpus directory ***'
\quit
\endif

CREATE TABLE corpus_files (era text, path text, rx int, rz int, kind text);
INSERT INTO corpus_files VALUES
  ('1.2-1.12', 'anvil-1.2-1.12/amulet-core/1_12_2/r.0.0.mca', 0, 0, 'region'),
  ('1.2-1.12 gzip', 'anvil-1.2-1.12/pymclevel/PrimordialDesert/r.0.0.mca', 0, 0, 'region'),
  ('1.13-1.17', 'anvil-1.13-1.17/mcaselector/anvil116/r.0.0.mca', 0, 0, 'region'),
  ('1.18+', 'anvil-1.18plus/minestom/anvil_vanilla_sample/r.2.1.mca', 2, 1, 'region'),
  ('1.18+ lz4', 'anvil-1.18plus/pumpkin/World-DIM0/r.0.0.mca', 0, 0, 'region'),
  ('1.18+ unpadded', 'anvil-1.18plus/bingley-tag/r.0.-1.mca', 0, -1, 'region'),
  ('mcregion', 'mcregion/pymclevel/PyTestWorld/r.0.0.mcr', 0, 0, 'region'),
  ('entities', 'entities-1.17plus/amulet-core/1_18_vanilla/r.0.1.mca', 0, 1, 'entities'),
  ('poi', 'poi/amulet-core/1_18_vanilla/r.1.1.mca', 1, 1, 'poi');

CREATE TABLE corpus_worlds AS
SELECT era, rx, rz, kind, pg_read_binary_file(:'corpus' || '/' || path) AS file,
       CASE kind WHEN 'region' THEN slime_import_region(pg_read_binary_file(:'corpus' || '/' || path), rx, rz)
                 WHEN 'entities' THEN slime_import_region(NULL, rx, rz, entities => pg_read_binary_file(:'corpus' || '/' || path))
                 ELSE slime_import_region(NULL, rx, rz, poi => pg_read_binary_file(:'corpus' || '/' || path)) END AS world
FROM corpus_files;

SELECT era, slime_info(world) -> 'chunks' AS chunks, slime_info(world) -> 'data_version' AS data_version,
       round((slime_info(world) ->> 'stored_bytes')::numeric / octet_length(file), 2) < 1 AS smaller_than_file
FROM corpus_worlds ORDER BY era;

-- region -> slime -> region -> slime gives the same value, byte for byte,
-- and every chunk's NBT comes back identical
CREATE TABLE corpus_again AS
SELECT era, kind, world, slime_import_region(CASE kind WHEN 'region' THEN slime_export_region(world, rx, rz) END, rx, rz,
                                CASE kind WHEN 'entities' THEN slime_export_region(world, rx, rz, 'entities') END,
                                CASE kind WHEN 'poi' THEN slime_export_region(world, rx, rz, 'poi') END) AS again
FROM corpus_worlds;
SELECT era, again::bytea = world::bytea AS round_trip FROM corpus_again ORDER BY era;
SELECT era, count(*) AS chunks,
       count(*) FILTER (WHERE slime_chunk_nbt(world, c.x, c.z, kind) = slime_chunk_nbt(again, c.x, c.z, kind)) AS identical
FROM corpus_again, slime_chunks(world) c
GROUP BY era ORDER BY era;

-- a chunk read as JSON
SELECT slime_nbt_to_json(slime_chunk_nbt(world, 32 * rx, 32 * rz)) -> 'Level' -> 'xPos' AS xpos
FROM corpus_worlds WHERE era = '1.2-1.12';
-- level.dat
SELECT slime_nbt_to_json(pg_read_binary_file(:'corpus' || '/level-dat/amulet-core/1_18_vanilla/level.dat')) -> 'Data' -> 'LevelName' AS level_name;

-- damaged files from the wild
SELECT slime_import_region(pg_read_binary_file(:'corpus' || '/damaged/querz-nbt/r.2.2.mca'), 2, 2);
SELECT slime_info(slime_import_region(pg_read_binary_file(:'corpus' || '/damaged/querz-nbt/r.2.2.mca'), 2, 2, strict => false)) -> 'chunks' AS repaired;
SELECT slime_import_region(pg_read_binary_file(:'corpus' || '/damaged/twoolie-nbt/regiontest.mca'), 0, 0);
SELECT slime_info(slime_import_region(pg_read_binary_file(:'corpus' || '/damaged/twoolie-nbt/regiontest.mca'), 0, 0, strict => false)) -> 'chunks' AS readable;
SELECT slime_nbt_to_json(pg_read_binary_file(:'corpus' || '/damaged/querz-nbt/max_depth_reached.dat'));
SELECT slime_nbt_to_json(pg_read_binary_file(:'corpus' || '/damaged/querz-nbt/invalid_data_tag.dat'));
