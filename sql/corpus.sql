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

-- what a world holds, from its contents summary or decoded (slime.read_summaries off)
CREATE FUNCTION corpus_contents(w slime, decoded boolean) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
	r jsonb;
BEGIN
	PERFORM set_config('slime.read_summaries', CASE WHEN decoded THEN 'off' ELSE 'on' END, true);
	SELECT jsonb_build_object(
	         'blocks', (SELECT coalesce(jsonb_object_agg(block, count), '{}') FROM slime_block_counts(w)),
	         'biomes', (SELECT coalesce(jsonb_object_agg(biome, count), '{}') FROM slime_biome_counts(w)),
	         'block_entities', slime_block_entity_totals(w), 'entities', slime_entity_totals(w),
	         'names', CASE WHEN decoded
	                       THEN (SELECT coalesce(jsonb_agg(block ORDER BY block COLLATE "C"), '[]') FROM slime_block_counts(w))
	                       ELSE to_jsonb(slime_block_names(w)) END)
	  INTO r;
	PERFORM set_config('slime.read_summaries', 'on', true);
	RETURN r;
END $$;
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

-- every block entity and entity of the input files, each once: the counts
-- match the corpus's own analysis (SOURCES.md, an independent reader):
-- 1.13-1.17 1531/2, 1.18+ 7/0, 1.2-1.12 gzip 13/0, entities 0/150, mcregion 2/89
SELECT era, (SELECT count(*) FROM slime_block_entities(world)) AS block_entities,
       (SELECT count(DISTINCT (x, y, z)) FROM slime_block_entities(world)) AS positions,
       (SELECT count(*) FROM slime_entities(world)) AS entities,
       (SELECT count(DISTINCT uuid) FROM slime_entities(world)) AS uuids
FROM corpus_worlds ORDER BY era;

-- blocks: the most common ones per era, legacy ids under modern names
SELECT era, (SELECT string_agg(block || ' ' || count, ', ' ORDER BY count DESC, block)
             FROM (SELECT * FROM slime_block_counts(world) ORDER BY count DESC, block LIMIT 3) t) AS top_blocks
FROM corpus_worlds WHERE kind = 'region' ORDER BY era;
SELECT era, (SELECT string_agg(biome, ', ' ORDER BY count DESC, biome)
             FROM (SELECT * FROM slime_biome_counts(world) ORDER BY count DESC, biome LIMIT 2) t) AS top_biomes
FROM corpus_worlds WHERE kind = 'region' ORDER BY era;

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

-- a region file under another region's coordinates: refused strictly, naming
-- the slot, where the chunk says it is and the region holding that; a lenient
-- import relocates each chunk to its slot as Minecraft does (a WARNING each)
SELECT slime_import_region(pg_read_binary_file(:'corpus' || '/anvil-1.18plus/amulet-core/1_18_vanilla/r.-1.1.mca'), 0, 0);
SET client_min_messages = error;
SELECT (slime_info(w) ->> 'chunks')::int AS relocated, slime_nbt_to_json(slime_chunk_nbt(w, c.x, c.z)) -> 'xPos' = to_jsonb(c.x) AS xpos_rewritten
FROM (SELECT slime_import_region(pg_read_binary_file(:'corpus' || '/anvil-1.18plus/amulet-core/1_18_vanilla/r.-1.1.mca'), 0, 0, strict => false) AS w) s,
     LATERAL (SELECT * FROM slime_chunks(w) LIMIT 1) c;
RESET client_min_messages;
-- region, entities and POI files given as one another, or from another region
SELECT slime_import_region(pg_read_binary_file(:'corpus' || '/entities-1.17plus/amulet-core/1_18_superflat/r.0.0.mca'), 0, 0);
SELECT slime_import_region(NULL, 0, 0, entities => pg_read_binary_file(:'corpus' || '/anvil-1.18plus/amulet-core/1_18_superflat/r.0.0.mca'));
SELECT slime_import_region(NULL, 0, 0, poi => pg_read_binary_file(:'corpus' || '/entities-1.17plus/amulet-core/1_18_superflat/r.0.0.mca'));
SELECT slime_import_region(NULL, 1, 0, entities => pg_read_binary_file(:'corpus' || '/entities-1.17plus/amulet-core/1_18_superflat/r.0.0.mca'));
-- files of other kinds say what they are and what reads them
SELECT slime_import_region(pg_read_binary_file(:'corpus' || '/level-dat/amulet-core/1_18_vanilla/level.dat'), 0, 0);
SELECT slime_import_region(pg_read_binary_file(:'corpus' || '/schematic/fastasyncworldedit/sponge2.schem'), 0, 0);
SELECT slime_import_region(pg_read_binary_file(:'corpus' || '/slime/jaxkdev-slimeworld/test.slime'), 0, 0);
SELECT slime_import_region(slime_import_region(pg_read_binary_file(:'corpus' || '/anvil-1.18plus/amulet-core/1_18_vanilla/r.-1.2.mca'), -1, 2)::bytea, -1, 2);

-- a loader world saved from a slime file no version-13 file can hold (v1,
-- pre-1.18 chunks): settling keeps its cached file, the only form a load
-- can give back, even with no lease running
SELECT slime_loader_create('old_isl')::text AS saves_table;
SELECT slime_lease_acquire('old_isl', 'old', 'srv', '1 hour') AS token;
SELECT slime_loader_save('old_isl', 'old', 1, pg_read_binary_file(:'corpus' || '/slime/jaxkdev-slimeworld/test.slime')) AS save;
SELECT slime_lease_release('old_isl', 'old', 1) AS released;
SELECT items AS files_dropped FROM slime_settle('0') WHERE what = 'loader files';
SELECT slime_loader_load('old_isl', 'old') = pg_read_binary_file(:'corpus' || '/slime/jaxkdev-slimeworld/test.slime') AS loads_as_given;
-- once a newer save replaced that file, rolling back to it is refused
-- naming the chunk and what it lacks (these chunks have no DataVersion)
SELECT slime_lease_acquire('old_isl', 'old', 'srv', '1 hour') AS token;
SELECT slime_loader_save('old_isl', 'old', 2, pg_read_binary_file(:'corpus' || '/slime/jaxkdev-slimeworld/world.slime')) AS save;
SELECT slime_loader_rollback('old_isl', 'old', 1, 2);
DROP TABLE old_isl, old_isl_worlds;

-- AdvancedSlimePaper worlds from the wild (a version-13 hub of 124 chunks, a
-- version-12 skyblock island) saved through a loader and settled with no
-- lease running: each cached file takes its cold form, and a cold load gives
-- a file of the content a load gave before settling (its blocks written
-- again at slime.loader_level, so not the same bytes)
SELECT slime_loader_create('asp')::text AS saves_table;
CREATE TEMP TABLE asp_files AS
SELECT name, pg_read_binary_file(:'corpus' || '/slime/' || name) AS file
FROM (VALUES ('crawlspace/hub.slime'), ('newsky/skyblock.slime')) v(name);
CREATE TEMP TABLE asp_tokens AS SELECT name, slime_lease_acquire('asp', name, 'srv', '1 hour') AS token FROM asp_files;
SELECT f.name, slime_loader_save('asp', f.name, t.token, f.file) AS save FROM asp_files f JOIN asp_tokens t USING (name) ORDER BY 1;
CREATE TEMP TABLE asp_hot AS SELECT name, slime_loader_load('asp', name) AS file FROM asp_files;
SELECT name, slime_lease_release('asp', name, token) AS released FROM asp_tokens ORDER BY 1;
SELECT items AS files_cold FROM slime_settle('0') WHERE what = 'loader files';
SELECT w.world, substr(w.file, 1, 4) = '\x534c4346'::bytea AS cold_form, octet_length(w.file) * 5 < octet_length(f.file) AS a_fifth_or_less,
       l.file = h.file AS same_bytes,
       slime_info(slime_from_slimefile(l.file)) ->> 'hash' = slime_info(slime_from_slimefile(h.file)) ->> 'hash' AS same_content
FROM asp_worlds w JOIN asp_files f ON f.name = w.world JOIN asp_hot h ON h.name = w.world,
     LATERAL (SELECT slime_loader_load('asp', w.world) AS file) l
ORDER BY 1;
-- saved again, every chunk reused from the memo: the value's summary, kept
-- from the memo's chunk summaries, answers what decoding its chunks answers
CREATE TEMP TABLE asp_again AS SELECT name, slime_lease_acquire('asp', name, 'srv', '1 hour') AS token FROM asp_files;
SELECT f.name, slime_loader_save('asp', f.name, t.token, f.file) AS save FROM asp_files f JOIN asp_again t USING (name) ORDER BY 1;
SELECT world, save, s = d AS summary_same, (SELECT count(*) FROM jsonb_object_keys(s -> 'blocks')) AS block_names
FROM asp, LATERAL (SELECT corpus_contents(data, false) AS s, corpus_contents(data, true) AS d) c ORDER BY 1, 2;
DROP TABLE asp, asp_worlds, asp_files, asp_tokens, asp_hot, asp_again;

-- slime_info's chunks counts chunk positions, the rows of slime_chunks; each
-- position holds a region, entities and/or POI document, and the kind counts
-- count the positions holding that kind, so chunks is not their sum.
-- slime_chunks' raw_bytes adds up a position's documents of every kind
WITH w AS (SELECT slime_import_region(pg_read_binary_file(:'corpus' || '/anvil-1.18plus/amulet-core/1_18_superflat/r.0.0.mca'), 0, 0,
               entities => pg_read_binary_file(:'corpus' || '/entities-1.17plus/amulet-core/1_18_superflat/r.0.0.mca')) AS world)
SELECT i -> 'chunks' AS chunks, i -> 'region_chunks' AS region, i -> 'entity_chunks' AS entities, i -> 'poi_chunks' AS poi,
       (SELECT count(*) FROM slime_chunks(world)) AS chunk_rows,
       (SELECT count(*) FROM slime_chunks(world) c WHERE slime_chunk_nbt(world, c.x, c.z, 'entities') IS NOT NULL) AS rows_with_entities,
       (SELECT bool_and(c.raw_bytes = coalesce(length(slime_chunk_nbt(world, c.x, c.z, 'region')), 0)
                        + coalesce(length(slime_chunk_nbt(world, c.x, c.z, 'entities')), 0)
                        + coalesce(length(slime_chunk_nbt(world, c.x, c.z, 'poi')), 0))
          FROM slime_chunks(world) c) AS raw_bytes_all_kinds
FROM w, slime_info(w.world) i;

-- totals over settled chunks: the region worlds saved through the chunk
-- contents summaries: every corpus world of every era (region, entities and
-- POI files; 1.2-1.12 numeric ids and 2D biomes, 1.13-1.17 palettes, 1.18+
-- sections, McRegion) answers from its summary exactly what decoding every
-- chunk answers: block and biome counts, block entities and entities by id,
-- the block names
SELECT era, (slime_info(world) ->> 'summary')::boolean AS summary, s = d AS same_as_decoded,
       (SELECT count(*) FROM jsonb_object_keys(s -> 'blocks')) AS block_names,
       (SELECT count(*) FROM jsonb_object_keys(s -> 'entities')) AS entity_ids
FROM corpus_worlds, LATERAL (SELECT corpus_contents(world, false) AS s, corpus_contents(world, true) AS d) c
ORDER BY era;
-- the totals over every world, from the summaries and decoded; and the
-- worlds' reference forms (the summary kept by the store's trigger)
CREATE FUNCTION corpus_all_totals() RETURNS jsonb LANGUAGE sql AS $$
  SELECT jsonb_build_array(slime_block_totals(world), slime_biome_totals(world),
                           slime_block_entity_totals(world), slime_entity_totals(world)) FROM corpus_worlds $$;
CREATE FUNCTION corpus_all_totals_decoded() RETURNS jsonb LANGUAGE sql
SET slime.read_summaries = off AS $$ SELECT corpus_all_totals() $$;
SELECT corpus_all_totals() = corpus_all_totals_decoded() AS totals_same;
CREATE TABLE corpus_saved (era text, world slime);
CREATE TRIGGER corpus_saved_store BEFORE INSERT ON corpus_saved
    FOR EACH ROW EXECUTE FUNCTION slime_store_trigger();
INSERT INTO corpus_saved SELECT era, world FROM corpus_worlds;
SELECT bool_and(corpus_contents(s.world, false) = corpus_contents(w.world, false)) AS stored_same,
       bool_and((slime_info(s.world) ->> 'store_refs')::int = (slime_info(s.world) ->> 'chunks')::int) AS all_refs
FROM corpus_saved s JOIN corpus_worlds w USING (era);
DROP TABLE corpus_saved;
DROP FUNCTION corpus_all_totals_decoded(), corpus_all_totals();

-- store and settled into fast packs (zstd-19), then repacked dense (the
-- block codec), give the same block and biome totals as the values
-- themselves, per era: on a first scan, on a second (the counts kept of
-- packed entries), with every entry hashed against its key, and keeping no
-- pack nor count (slime.pack_cache_size = 0). The stored worlds' totals are
-- decoded (slime.read_summaries off), the values' read from their summaries
CREATE TABLE corpus_stored (era text, world slime);
CREATE TRIGGER corpus_stored_store BEFORE INSERT ON corpus_stored
    FOR EACH ROW EXECUTE FUNCTION slime_store_trigger();
INSERT INTO corpus_stored SELECT era, world FROM corpus_worlds WHERE kind = 'region';
CREATE TABLE corpus_totals AS
SELECT era, slime_block_totals(world) AS blocks, slime_biome_totals(world) AS biomes
FROM corpus_worlds WHERE kind = 'region' GROUP BY era;
CREATE FUNCTION corpus_same_totals() RETURNS TABLE (era text, blocks bool, biomes bool) LANGUAGE sql
SET slime.read_summaries = off AS $$
  SELECT t.era, s.blocks = t.blocks, s.biomes = t.biomes
  FROM corpus_totals t
  LEFT JOIN (SELECT era, slime_block_totals(world) AS blocks, slime_biome_totals(world) AS biomes
             FROM corpus_stored GROUP BY era) s USING (era)
  ORDER BY t.era $$;
-- (a settle running longer than 10 s prints progress: kept out)
SET client_min_messages = warning;
SET slime.settle_codec = fast;
SELECT what, items > 0 AS settled FROM slime_settle('0') WHERE what = 'store entries';
SELECT * FROM corpus_same_totals();
SELECT * FROM corpus_same_totals();
SET slime.store_read_check = hash;
SELECT * FROM corpus_same_totals();
RESET slime.store_read_check;
SET slime.pack_cache_size = 0;
SELECT * FROM corpus_same_totals();
RESET slime.pack_cache_size;
RESET slime.settle_codec;
CREATE TABLE corpus_refs AS SELECT DISTINCT h FROM corpus_stored, unnest(slime_refs(world)) h;
UPDATE slime_store SET settled = false WHERE pack IS NOT NULL AND hash IN (SELECT h FROM corpus_refs);
SELECT what, items > 0 AS settled FROM slime_settle('0') WHERE what = 'store entries';
-- (the first byte of the frame of a version 3 pack's whole entries:
-- pack_frame_at, sql/setup.sql)
SELECT count(*) > 0 AS dense_packs FROM slime_store_packs p, LATERAL (SELECT pack_frame_at(p.data) AS at) f
WHERE get_byte(p.data, 1) = 3
  AND CASE WHEN f.at < octet_length(p.data) THEN get_byte(p.data, f.at::int) END = 181;
SELECT * FROM corpus_same_totals();
SELECT * FROM corpus_same_totals();
SET slime.store_read_check = hash;
SELECT * FROM corpus_same_totals();
SELECT * FROM corpus_same_totals();
RESET slime.store_read_check;
SET slime.pack_cache_size = 0;
SELECT * FROM corpus_same_totals();
RESET slime.pack_cache_size;
DROP TABLE corpus_stored, corpus_totals;
DROP FUNCTION corpus_same_totals();
RESET client_min_messages;
SELECT removed_entries > 0 AS collected FROM slime_gc();
SELECT count(*) AS entries_left FROM slime_store WHERE hash IN (SELECT h FROM corpus_refs);
DROP TABLE corpus_refs;
DROP FUNCTION corpus_contents(slime, boolean);
