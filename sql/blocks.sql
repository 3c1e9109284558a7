-- Blocks and biomes: the block at a position, counts per world, totals.

-- a 1.20 section: palette [air, stone, hopper], 4 bits per block, 16 per long;
-- the bottom layer (y = 0..0, 256 blocks) is stone with one hopper at x=3, z=0
CREATE FUNCTION modern_chunk(x int, z int, hoppers int DEFAULT 1) RETURNS bytea LANGUAGE sql IMMUTABLE
AS $$ SELECT nbt_compound('',
        nbt_int('DataVersion', 3700), nbt_int('xPos', x), nbt_int('zPos', z), nbt_int('yPos', -4),
        nbt_string('Status', 'minecraft:full'),
        nbt_list_compounds('sections',
          nbt_compound('', nbt_byte('Y', 0),
            nbt_compound('block_states',
              nbt_list_compounds('palette',
                nbt_compound('', nbt_string('Name', 'minecraft:air')),
                nbt_compound('', nbt_string('Name', 'minecraft:stone')),
                nbt_compound('', nbt_string('Name', 'minecraft:hopper'),
                             nbt_compound('Properties', nbt_string('facing', 'down'), nbt_string('enabled', 'true')))),
              nbt_long_array('data', VARIADIC (SELECT array_agg(CASE WHEN i = 0 AND hoppers > 0 THEN x'1111111111112111'::bigint
                                                                     WHEN i < 16 THEN x'1111111111111111'::bigint ELSE 0 END ORDER BY i)
                                               FROM generate_series(0, 255) i))),
            nbt_compound('biomes', nbt_list_strings('palette', 'minecraft:plains')))),
        nbt_list_compounds('block_entities', VARIADIC (SELECT coalesce(array_agg(
            nbt_compound('', nbt_string('id', 'minecraft:hopper'), nbt_int('x', x * 16 + 3), nbt_int('y', 0), nbt_int('z', z * 16))),
            ARRAY[]::bytea[]) FROM generate_series(1, hoppers)))) $$;

-- a 1.12 chunk: Level.Sections with Blocks/Data, section Y=0 layer 0 stone,
-- one granite (1:1) at x=1, z=0, and Biomes byte[256] all desert (2)
CREATE FUNCTION legacy_chunk(x int, z int) RETURNS bytea LANGUAGE sql IMMUTABLE
AS $$ SELECT nbt_compound('', nbt_int('DataVersion', 1343),
        nbt_compound('Level', nbt_int('xPos', x), nbt_int('zPos', z),
          nbt_byte_array('Biomes', decode(repeat('02', 256), 'hex')),
          nbt_list_compounds('Sections',
            nbt_compound('', nbt_byte('Y', 0),
              nbt_byte_array('Blocks', decode(repeat('01', 256) || repeat('00', 3840), 'hex')),
              nbt_byte_array('Data', decode('10' || repeat('00', 2047), 'hex')),
              nbt_byte_array('BlockLight', decode(repeat('00', 2048), 'hex')),
              nbt_byte_array('SkyLight', decode(repeat('ff', 2048), 'hex')))))) $$;

CREATE TABLE plots (id int PRIMARY KEY, owner text, world slime);
INSERT INTO plots VALUES
  (1, 'alex', slime_put_chunk(slime_put_chunk(NULL, 0, 0, modern_chunk(0, 0, 3)), 1, 0, modern_chunk(1, 0))),
  (2, 'steve', slime_put_chunk(NULL, -1, -1, modern_chunk(-1, -1, 0))),
  (3, 'notch', slime_put_chunk(NULL, 0, 0, legacy_chunk(0, 0)));

-- the block at a world position, with its properties sorted by name
SELECT slime_block(world, 0, 0, 0) AS stone, slime_block(world, 3, 0, 0) AS hopper,
       slime_block(world, 3, 1, 0) AS above, slime_block(world, 19, 0, 0) AS next_chunk,
       slime_block(world, 100, 0, 100) AS no_chunk, slime_block(world, 0, 200, 0) AS no_section
FROM plots WHERE id = 1;
SELECT slime_block(world, -16, 0, -16) AS negative FROM plots WHERE id = 2;
-- legacy ids under their modern names
SELECT slime_block(world, 0, 0, 0) AS stone, slime_block(world, 1, 0, 0) AS granite, slime_block(world, 0, 5, 0) AS air
FROM plots WHERE id = 3;

-- counts per world, air included
SELECT * FROM slime_block_counts((SELECT world FROM plots WHERE id = 1)) ORDER BY block;
SELECT * FROM slime_block_counts((SELECT world FROM plots WHERE id = 3)) ORDER BY block;
SELECT * FROM slime_biome_counts((SELECT world FROM plots WHERE id = 3));
SELECT * FROM slime_biome_counts((SELECT world FROM plots WHERE id = 1));

-- an operator's questions
-- top islands by hopper count (lag): from block entities, or from blocks
SELECT owner, count(*) AS hoppers FROM plots, slime_block_entities(world) b
WHERE b.id = 'minecraft:hopper' GROUP BY owner ORDER BY hoppers DESC;
SELECT owner, c.count AS hoppers FROM plots, slime_block_counts(world) c
WHERE c.block = 'minecraft:hopper' ORDER BY hoppers DESC;
-- totals across every world, as one jsonb (an aggregate that runs in parallel)
SELECT jsonb_pretty(slime_block_totals(world)) FROM plots;
SELECT slime_biome_totals(world) FROM plots;
-- the same totals through the set-returning function
SELECT c.block, sum(c.count) FROM plots, slime_block_counts(world) c GROUP BY c.block ORDER BY c.block;

-- the aggregate plan splits over parallel workers
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT slime_block_totals(world) FROM plots;
SELECT slime_block_totals(world) = (SELECT slime_block_totals(world) FROM plots) AS parallel_same FROM plots;
RESET ALL;

-- damaged block data is an error naming the chunk and section
SELECT slime_block_counts(slime_put_chunk(NULL, 0, 0, nbt_compound('', nbt_int('DataVersion', 3700),
  nbt_list_compounds('sections', nbt_compound('', nbt_byte('Y', 2),
    nbt_compound('block_states', nbt_list_compounds('palette', nbt_compound('', nbt_string('Name', 'minecraft:air')),
                                                    nbt_compound('', nbt_string('Name', 'minecraft:stone'))),
                 nbt_long_array('data', 1, 2)))))));
SELECT slime_block_counts(slime_put_chunk(NULL, 0, 0, nbt_compound('', nbt_int('DataVersion', 3700),
  nbt_list_compounds('sections', nbt_compound('', nbt_byte('Y', 0),
    nbt_compound('block_states', nbt_list_compounds('palette',
        nbt_compound('', nbt_string('Name', 'minecraft:air')), nbt_compound('', nbt_string('Name', 'minecraft:stone'))),
      nbt_long_array('data', VARIADIC array_fill(x'7777777777777777'::bigint, ARRAY[256]))))))));
-- an unknown legacy id (0x1fc: Blocks fc, Add 1) gets the documented fallback name
SELECT * FROM slime_block_counts(slime_put_chunk(NULL, 0, 0, nbt_compound('', nbt_int('DataVersion', 1343),
  nbt_compound('Level', nbt_list_compounds('Sections', nbt_compound('', nbt_byte('Y', 0),
    nbt_byte_array('Blocks', decode(repeat('fc', 4096), 'hex')),
    nbt_byte_array('Add', decode(repeat('11', 2048), 'hex')),
    nbt_byte_array('Data', decode(repeat('33', 2048), 'hex')))))))) ORDER BY 1;
