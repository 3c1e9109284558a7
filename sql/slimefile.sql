-- Slime files: slime_to_slimefile writes version 13, slime_from_slimefile
-- reads it (and every older version); the files are made here.

-- a 1.20 chunk with two sections (a gap at Y=-3), light, height maps,
-- block ticks, Paper's chunk PDC, and fields a slime file cannot carry
CREATE FUNCTION sf_chunk(x int, z int, dv int DEFAULT 3700) RETURNS bytea LANGUAGE sql IMMUTABLE
AS $$ SELECT nbt_compound('',
        nbt_int('DataVersion', dv), nbt_int('xPos', x), nbt_int('zPos', z), nbt_int('yPos', -4),
        nbt_string('Status', 'minecraft:full'), nbt_long('LastUpdate', 1000), nbt_long('InhabitedTime', 5),
        nbt_list_compounds('sections',
            nbt_compound('', nbt_byte('Y', -5), nbt_byte_array('SkyLight', decode(repeat('ff', 2048), 'hex'))),
            nbt_compound('', nbt_byte('Y', -4),
                nbt_compound('block_states',
                    nbt_list_compounds('palette', nbt_compound('', nbt_string('Name', 'minecraft:bedrock')))),
                nbt_compound('biomes', nbt_list_strings('palette', 'minecraft:plains')),
                nbt_byte_array('BlockLight', decode(repeat('00', 2048), 'hex'))),
            nbt_compound('', nbt_byte('Y', -2),
                nbt_compound('block_states',
                    nbt_list_compounds('palette', nbt_compound('', nbt_string('Name', 'minecraft:air')),
                                                  nbt_compound('', nbt_string('Name', 'minecraft:stone'))),
                    nbt_long_array('data', VARIADIC array_fill(1::bigint, ARRAY[256]))),
                nbt_compound('biomes', nbt_list_strings('palette', 'minecraft:desert')),
                nbt_byte_array('SkyLight', decode(repeat('0f', 2048), 'hex')))),
        nbt_compound('Heightmaps', nbt_long_array('MOTION_BLOCKING', 1, 2, 3)),
        nbt_list_compounds('block_entities',
            nbt_compound('', nbt_string('id', 'minecraft:chest'),
                         nbt_int('x', x * 16 + 1), nbt_int('y', -60), nbt_int('z', z * 16 + 2))),
        nbt_list_compounds('block_ticks',
            nbt_compound('', nbt_string('i', 'minecraft:stone'), nbt_int('x', x * 16), nbt_int('y', -40),
                         nbt_int('z', z * 16), nbt_int('t', 3), nbt_int('p', 0))),
        nbt_compound('ChunkBukkitValues', nbt_string('plugin:key', 'value')),
        nbt_compound('structures', nbt_compound('References', nbt_long_array('minecraft:village', 7)))) $$;

CREATE FUNCTION sf_poi(x int, z int) RETURNS bytea LANGUAGE sql IMMUTABLE
AS $$ SELECT nbt_compound('', nbt_int('DataVersion', 3700),
        nbt_compound('Sections', nbt_compound('0', nbt_byte('Valid', 1),
            nbt_list_compounds('Records', nbt_compound('', nbt_string('type', 'minecraft:home'),
                                                           nbt_int('free_tickets', 1)))))) $$;

CREATE TABLE sf_world AS
SELECT slime_agg(w) AS world FROM (
    SELECT slime_put_chunk(slime_put_chunk(slime_put_chunk(NULL, x, z, sf_chunk(x, z)),
                                           x, z, test_entities(x, z), 'entities'),
                           x, z, sf_poi(x, z), 'poi') AS w
    FROM generate_series(-1, 0) x, generate_series(0, 1) z) s;

-- the file: magic B1 0B, version 13, DataVersion, flags POI | BLOCK_TICKS
CREATE TABLE sf_file AS SELECT slime_to_slimefile(world) AS f FROM sf_world;
SELECT encode(substring(f FROM 1 FOR 8), 'hex') AS header FROM sf_file;

-- read back: the same chunks, block entities, entities, POI
CREATE TABLE sf_back AS SELECT slime_from_slimefile(f) AS world FROM sf_file;
SELECT slime_info(world) -> 'chunks' AS chunks, slime_info(world) -> 'entity_chunks' AS entity_chunks,
       slime_info(world) -> 'poi_chunks' AS poi_chunks, slime_info(world) -> 'data_version' AS dv
FROM sf_back;
SELECT x, y, z, id FROM slime_block_entities((SELECT world FROM sf_back)) ORDER BY x, z;
SELECT id, x, z FROM slime_entities((SELECT world FROM sf_back)) ORDER BY x, z;
SELECT block, count FROM slime_block_counts((SELECT world FROM sf_back)) ORDER BY block;
SELECT slime_block((SELECT world FROM sf_back), 0, -64, 0) AS bottom,
       slime_block((SELECT world FROM sf_back), 0, -32, 0) AS stone;

-- what a slime file keeps of a chunk, and what it does not (LastUpdate,
-- InhabitedTime, structures, the light-only section Y=-5)
SELECT jsonb_object_keys(slime_chunk_json((SELECT world FROM sf_back), 0, 1)) AS key ORDER BY 1;
SELECT s -> 'Y' AS y, (SELECT array_agg(k ORDER BY k) FROM jsonb_object_keys(s) k) AS keys
FROM jsonb_array_elements(slime_chunk_json((SELECT world FROM sf_back), 0, 1) -> 'sections') s;
SELECT (slime_chunk_json(b.world, 0, 1) -> 'sections' -> 0 -> 'block_states')
       = (slime_chunk_json(w.world, 0, 1) -> 'sections' -> 1 -> 'block_states') AS same_block_states,
       (slime_chunk_json(b.world, 0, 1) -> 'Heightmaps') = (slime_chunk_json(w.world, 0, 1) -> 'Heightmaps') AS same_heightmaps,
       (slime_chunk_json(b.world, 0, 1) -> 'block_ticks') = (slime_chunk_json(w.world, 0, 1) -> 'block_ticks') AS same_ticks,
       (slime_chunk_json(b.world, 0, 1) -> 'ChunkBukkitValues') = (slime_chunk_json(w.world, 0, 1) -> 'ChunkBukkitValues') AS same_pdc,
       slime_chunk_json(b.world, 0, 1, 'entities') = slime_chunk_json(w.world, 0, 1, 'entities') AS same_entities,
       slime_chunk_json(b.world, 0, 1, 'poi') = slime_chunk_json(w.world, 0, 1, 'poi') AS same_poi
FROM sf_back b, sf_world w;
-- the world compound keeps the file's header and extra compound
SELECT slime_nbt_to_json(slime_level(world)) AS world_compound FROM sf_back;

-- a file written by this writer comes back byte for byte, and so does the value
SELECT slime_to_slimefile(b.world) = f AS same_file FROM sf_back b, sf_file;
SELECT slime_from_slimefile(slime_to_slimefile(world)) = world AS same_value,
       slime_content_hash(slime_from_slimefile(slime_to_slimefile(world))) = slime_content_hash(world) AS same_hash
FROM sf_back;

-- reference-form values are written alike (the store is read)
SELECT slime_to_slimefile(slime_store(world)) = f AS from_store FROM sf_back, sf_file;

-- what a version-13 file cannot hold
SELECT slime_to_slimefile(world, 12) FROM sf_back;
SELECT slime_to_slimefile(slime_put_chunk(world, 5, 5, test_chunk(5, 5, 1343))) FROM sf_back;
SELECT slime_to_slimefile(slime_put_chunk(world, 5, 5, test_chunk(5, 5, 3800))) FROM sf_back;
SELECT slime_to_slimefile(slime_put_chunk(NULL, 5, 5, test_entities(5, 5), 'entities'));
SELECT slime_to_slimefile(slime_put_chunk(NULL, 5, 5, nbt_compound('', nbt_int('DataVersion', 3700), nbt_int('yPos', -4),
        nbt_list_compounds('sections', nbt_compound('', nbt_byte('Y', -10),
            nbt_compound('block_states', nbt_list_compounds('palette',
                nbt_compound('', nbt_string('Name', 'minecraft:stone')))))))));
SELECT slime_to_slimefile(slime_put_chunk(NULL, 5, 5, nbt_compound('', nbt_int('DataVersion', 3700),
        nbt_list_compounds('sections', nbt_compound('', nbt_byte('Y', 0),
            nbt_byte_array('SkyLight', '\x00ff'::bytea))))));
-- an empty world has no DataVersion to write
SELECT slime_to_slimefile(slime_delete_chunk(test_world(1), 0, 0));

-- malformed files: each error names the field and its offset
SELECT slime_from_slimefile('\x1234'::bytea);
SELECT slime_from_slimefile('\xb10b0e'::bytea);
SELECT slime_from_slimefile(substring(f FROM 1 FOR 6)) FROM sf_file;
SELECT slime_from_slimefile(substring(f FROM 1 FOR 20)) FROM sf_file;
SELECT slime_from_slimefile(substring(f FROM 1 FOR octet_length(f) - 1)) FROM sf_file;
SELECT slime_from_slimefile(f || '\x00'::bytea) FROM sf_file;
-- a declared raw size that lies
SELECT slime_from_slimefile(overlay(f PLACING int4send(('x' || encode(substring(f FROM 13 FOR 4), 'hex'))::bit(32)::int + 1)
                                    FROM 13 FOR 4))
FROM sf_file;
-- a raw size past the cap
SET slime.max_world_size = '64kB';
SELECT slime_from_slimefile(overlay(f PLACING int4send(1000000) FROM 13 FOR 4)) FROM sf_file;
RESET slime.max_world_size;

-- SQLSTATEs: malformed 22P03, caps 54000, what version 13 cannot hold 0A000
DO $$
DECLARE
	f bytea := (SELECT f FROM sf_file);
	st text;
BEGIN
	BEGIN
		PERFORM slime_from_slimefile(substring(f FROM 1 FOR 20));
	EXCEPTION WHEN OTHERS THEN GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE; RAISE NOTICE 'truncated: %', st;
	END;
	SET LOCAL slime.max_world_size = '64kB';
	BEGIN
		PERFORM slime_from_slimefile(overlay(f PLACING int4send(1000000) FROM 13 FOR 4));
	EXCEPTION WHEN OTHERS THEN GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE; RAISE NOTICE 'too big: %', st;
	END;
	BEGIN
		PERFORM slime_to_slimefile(slime_put_chunk(NULL, 5, 5, test_chunk(5, 5, 1343)));
	EXCEPTION WHEN OTHERS THEN GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE; RAISE NOTICE 'pre-1.18: %', st;
	END;
END $$;

DROP TABLE sf_world, sf_file, sf_back;
