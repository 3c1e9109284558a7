-- Contents without decoding: every value carries a summary of what it holds
-- (block states by name, biomes, block entities and entities by id), written
-- with it and read from its header slice (doc/format.md, "Contents summary").

-- what a world holds, decoded (slime.read_summaries = off) or from its summary
CREATE FUNCTION contents(w slime, decoded boolean) RETURNS jsonb LANGUAGE plpgsql
SET search_path = public, pg_catalog AS $$
DECLARE
	r jsonb;
BEGIN
	PERFORM set_config('slime.read_summaries', CASE WHEN decoded THEN 'off' ELSE 'on' END, true);
	SELECT jsonb_build_object(
	         'blocks', (SELECT coalesce(jsonb_object_agg(block, count), '{}') FROM slime_block_counts(w)),
	         'biomes', (SELECT coalesce(jsonb_object_agg(biome, count), '{}') FROM slime_biome_counts(w)),
	         'block_entities', (SELECT slime_block_entity_totals(w)),
	         'entities', (SELECT slime_entity_totals(w)),
	         'names', CASE WHEN decoded
	                       THEN (SELECT coalesce(jsonb_agg(block ORDER BY block COLLATE "C"), '[]') FROM slime_block_counts(w))
	                       ELSE to_jsonb(slime_block_names(w)) END)
	  INTO r;
	PERFORM set_config('slime.read_summaries', 'on', true);
	RETURN r;
END $$;
-- a world whose summary answers exactly what decoding its chunks answers
CREATE FUNCTION summary_ok(w slime) RETURNS boolean LANGUAGE sql
SET search_path = public, pg_catalog AS $$
SELECT (slime_info(w) ->> 'summary')::boolean AND contents(w, false) = contents(w, true) $$;

-- an island: two 1.20 chunks (stone, hoppers and their block entities, a
-- plains biome), a 1.12 chunk (numeric ids, a desert 2D biome array) and
-- entities of 1.17+ (a pig in its entities/ document)
CREATE TABLE isles (id int PRIMARY KEY, world slime);
INSERT INTO isles VALUES (1,
  slime_put_chunk(slime_put_chunk(slime_put_chunk(slime_put_chunk(NULL,
    0, 0, modern_chunk(0, 0, 3)), 1, 0, modern_chunk(1, 0)), 5, 5, legacy_chunk(5, 5)),
    0, 0, test_entities(0, 0), 'entities'));
SELECT slime_info(world) -> 'summary' AS has_summary, summary_ok(world) FROM isles;
SELECT jsonb_pretty(contents(world, false)) FROM isles;

-- every function that writes a value writes the summary of what it holds:
-- counted when its chunks are new, kept from the value it came from (less
-- and plus the chunks it changes) otherwise
CREATE TEMP TABLE made AS
SELECT 'put a chunk' AS how, slime_put_chunk(world, 2, 0, modern_chunk(2, 0, 2)) AS w FROM isles
UNION ALL SELECT 'replace a chunk', slime_put_chunk(world, 1, 0, modern_chunk(1, 0, 0)) FROM isles
UNION ALL SELECT 'drop a document', slime_put_chunk(world, 0, 0, NULL, 'entities') FROM isles
UNION ALL SELECT 'delete a chunk', slime_delete_chunk(world, 5, 5) FROM isles
UNION ALL SELECT 'delete a missing chunk', slime_delete_chunk(world, 9, 9) FROM isles
UNION ALL SELECT 'merge', slime_merge(world, slime_put_chunk(NULL, 7, 7, legacy_chunk(7, 7))) FROM isles
UNION ALL SELECT 'aggregate', (SELECT slime_agg(slime_put_chunk(NULL, x, 0, modern_chunk(x, 0, x))) FROM generate_series(0, 3) x)
UNION ALL SELECT 'level.dat', slime_with_level(world, nbt_compound('', nbt_compound('Data', nbt_int('DataVersion', 3700)))) FROM isles
UNION ALL SELECT 'recompress', slime_recompress(world, 19) FROM isles
UNION ALL SELECT 'archive level', slime_recompress(world, 20) FROM isles
UNION ALL SELECT 'paste', slime_paste(world, slime_extract(world, 0, 0, 0, 31, 0, 15), 0, 1, 0) FROM isles
UNION ALL SELECT 'slime file', slime_from_slimefile(slime_to_slimefile(slime_delete_chunk(world, 5, 5))) FROM isles
UNION ALL SELECT 'region file', slime_import_region(slime_export_region(world, 0, 0), 0, 0) FROM isles;
SELECT how, summary_ok(w) FROM made ORDER BY how;
-- (the paste copied the bottom layer of both 1.20 chunks, 510 stone and 2
-- hoppers, one layer up)
SELECT (contents(w, false) -> 'blocks') - 'minecraft:air' AS pasted FROM made WHERE how = 'paste';

-- values saved through the chunk store keep it: the reference form's
-- summary counts the chunks the store holds for it, and loads decode nothing
CREATE TABLE isle_saves (id int, world slime);
CREATE TRIGGER isle_saves_store BEFORE INSERT OR UPDATE ON isle_saves
	FOR EACH ROW EXECUTE FUNCTION slime_store_trigger();
INSERT INTO isle_saves SELECT 1, world FROM isles;
INSERT INTO isle_saves SELECT 2, w FROM made WHERE how = 'put a chunk';
SELECT id, (slime_info(world) ->> 'store_refs')::int AS refs, summary_ok(world),
       slime_resolve(world) = world AS same_content, summary_ok(slime_resolve(world)) AS resolved_ok
FROM isle_saves ORDER BY id;
-- edits of the reference form keep it too (a deleted chunk is read from the store to count it)
SELECT summary_ok(slime_delete_chunk(world, 1, 0)) AS deleted_ok,
       summary_ok(slime_put_chunk(world, 0, 0, modern_chunk(0, 0, 1))) AS put_ok
FROM isle_saves WHERE id = 1;
-- counts and totals from the summary read no store entry: a damaged entry
-- is refused by what reads its chunk, decoding included, not by them
CREATE TEMP TABLE entry AS
SELECT s.hash, s.data FROM slime_store s, isle_saves i, unnest(slime_refs(i.world)) h
WHERE i.id = 1 AND s.hash = h ORDER BY s.hash LIMIT 1;
UPDATE slime_store s SET data = (SELECT data FROM slime_store WHERE hash <> e.hash ORDER BY hash LIMIT 1)
FROM entry e WHERE s.hash = e.hash;
SET slime.store_read_check = hash;
SELECT slime_block_totals(world) IS NOT NULL AS counted FROM isle_saves WHERE id = 1;
SET slime.read_summaries = off;
SELECT slime_block_totals(world) IS NOT NULL AS counted FROM isle_saves WHERE id = 1;
RESET slime.read_summaries;
RESET slime.store_read_check;
UPDATE slime_store s SET data = e.data FROM entry e WHERE s.hash = e.hash;
-- slime_verify counts the chunks again (a value holding none in the store),
-- slime_verify_refs those of the store too
SELECT slime_verify(world) AS verified FROM isles;
SELECT slime_verify_refs(world) AS verified_refs FROM isle_saves WHERE id = 1;

-- which islands hold a block: a GIN index over slime_block_names finds them
-- without decoding a chunk (the names are sorted, air included)
SELECT slime_block_names(world) FROM isles;
CREATE TABLE archipelago (id int PRIMARY KEY, world slime);
INSERT INTO archipelago
SELECT i, slime_put_chunk(NULL, 0, 0, CASE WHEN i % 7 = 0 THEN modern_chunk(0, 0, 1) ELSE legacy_chunk(0, 0) END)
FROM generate_series(1, 50) i;
CREATE INDEX archipelago_blocks ON archipelago USING gin (slime_block_names(world));
ANALYZE archipelago;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM archipelago WHERE slime_block_names(world) @> ARRAY['minecraft:hopper'];
SELECT array_agg(id ORDER BY id) AS with_hoppers FROM archipelago WHERE slime_block_names(world) @> ARRAY['minecraft:hopper'];
RESET enable_seqscan;

-- a chunk whose blocks cannot be counted (its data does not fit its
-- palette): the summary says so, and the blocks are decoded, which names
-- the chunk as before; its other tables still answer from the summary
CREATE TEMP TABLE broken AS
SELECT slime_put_chunk(world, 3, 3, nbt_compound('', nbt_int('DataVersion', 3700), nbt_int('xPos', 3), nbt_int('zPos', 3),
  nbt_list_compounds('sections', nbt_compound('', nbt_byte('Y', 2),
    nbt_compound('block_states', nbt_list_compounds('palette', nbt_compound('', nbt_string('Name', 'minecraft:air')),
                                                    nbt_compound('', nbt_string('Name', 'minecraft:stone'))),
                 nbt_long_array('data', 1, 2)),
    nbt_compound('biomes', nbt_list_strings('palette', 'minecraft:desert')))))) AS w FROM isles;
SELECT count(*) FROM broken, slime_block_counts(w);
SELECT b.* FROM broken, slime_biome_counts(w) b ORDER BY biome;
SELECT slime_block_names(w) FROM broken;
SELECT slime_block_totals(w) FROM broken;

-- values written before 0.10.0 (here: with slime.write_summaries off, as
-- 0.9.0 wrote them) have none; they answer by decoding, and
-- slime_recompress or slime_store writes it
SET slime.write_summaries = off;
CREATE TEMP TABLE old AS SELECT slime_recompress(world) AS w FROM isles;
INSERT INTO isle_saves SELECT 3, w FROM old;
RESET slime.write_summaries;
SELECT slime_info(w) -> 'summary' AS has_summary, contents(w, false) = contents(w, true) AS decoded_same,
       contents(w, false) = (SELECT contents(world, false) FROM isles) AS same_answers
FROM old;
SELECT slime_info(world) -> 'summary' AS has_summary FROM isle_saves WHERE id = 3;
-- slime_block_names is IMMUTABLE (it can be indexed), so it reads no store:
-- a reference form without a summary is an error saying what writes one
SELECT slime_block_names(world) FROM isle_saves WHERE id = 3;
SELECT summary_ok(slime_recompress(w)) AS recompressed, summary_ok(slime_recompress(world)) AS recompressed_refs,
       summary_ok(slime_store(w)) AS stored
FROM old, isle_saves WHERE id = 3;
-- finding the values to rewrite after the upgrade
SELECT id FROM isle_saves WHERE NOT (slime_info(world) ->> 'summary')::boolean;

-- the summary is part of the metadata: a damaged byte of it is caught by the
-- header checksum on input, whatever slime.input_check says (a summary this
-- small is stored as it is: its names can be found in the value's bytes)
CREATE TEMP TABLE at AS
SELECT position('granite'::bytea IN w::bytea) - 1 AS byte, w AS world
FROM (SELECT slime_put_chunk(NULL, 5, 5, legacy_chunk(5, 5)) AS w) s;
SELECT byte > 44 AS in_metadata FROM at;
SELECT set_byte(world::bytea, byte, get_byte(world::bytea, byte) # 4)::slime FROM at;
SET slime.input_check = structure;
SELECT set_byte(world::bytea, byte, get_byte(world::bytea, byte) # 4)::slime FROM at;
RESET slime.input_check;

-- entities by id across worlds, as block entities are (parallel, like the other totals)
SELECT slime_entity_totals(world) FROM isle_saves;

DROP TABLE isles, isle_saves, archipelago;
DROP FUNCTION summary_ok(slime), contents(slime, boolean);
SELECT removed_entries > 0 AS collected FROM slime_gc();
