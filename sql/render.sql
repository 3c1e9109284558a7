-- Top-down maps: slime_render_map (PNG) and slime_render_map_colors (the
-- map colour of every block column, base * 4 + shade, 0 transparent).

-- A 1.20 chunk whose section Y=0 is laid out row by row (z):
--   y=0 stone everywhere; z=0..3 grass at y=1; z=4 grass up to y=2 (higher
--   than the row north of it); z=5 grass at y=1 (lower); z=6..9 water y=1..3
--   over the stone; z=10 glass at y=5 over grass at y=1 (the map looks
--   through glass); z=11 a modded block at y=1; z=12 waterlogged leaves at
--   y=1; z=13..15 bare stone.
-- palette: 0 air, 1 stone, 2 grass_block, 3 water, 4 glass, 5 mymod:gizmo, 6 oak_leaves (waterlogged)
CREATE FUNCTION map_idx(x int, y int, z int) RETURNS int LANGUAGE sql IMMUTABLE
AS $$ SELECT CASE
    WHEN y = 0 THEN 1
    WHEN z <= 3 AND y = 1 THEN 2
    WHEN z = 4 AND y <= 2 THEN 2
    WHEN z = 5 AND y = 1 THEN 2
    WHEN z BETWEEN 6 AND 9 AND y <= 3 THEN 3
    WHEN z = 10 AND y = 1 THEN 2
    WHEN z = 10 AND y = 5 THEN 4
    WHEN z = 11 AND y = 1 THEN 5
    WHEN z = 12 AND y = 1 THEN 6
    ELSE 0 END $$;
CREATE FUNCTION map_chunk(x int, z int) RETURNS bytea LANGUAGE sql IMMUTABLE
AS $$ SELECT nbt_compound('',
        nbt_int('DataVersion', 3700), nbt_int('xPos', x), nbt_int('zPos', z), nbt_int('yPos', -4),
        nbt_string('Status', 'minecraft:full'),
        nbt_list_compounds('sections',
          nbt_compound('', nbt_byte('Y', 0),
            nbt_compound('block_states',
              nbt_list_compounds('palette',
                nbt_compound('', nbt_string('Name', 'minecraft:air')),
                nbt_compound('', nbt_string('Name', 'minecraft:stone')),
                nbt_compound('', nbt_string('Name', 'minecraft:grass_block'),
                             nbt_compound('Properties', nbt_string('snowy', 'false'))),
                nbt_compound('', nbt_string('Name', 'minecraft:water'),
                             nbt_compound('Properties', nbt_string('level', '0'))),
                nbt_compound('', nbt_string('Name', 'minecraft:glass')),
                nbt_compound('', nbt_string('Name', 'mymod:gizmo')),
                nbt_compound('', nbt_string('Name', 'minecraft:oak_leaves'),
                             nbt_compound('Properties', nbt_string('waterlogged', 'true')))),
              nbt_long_array('data', VARIADIC (
                SELECT array_agg(l ORDER BY y, z) FROM (
                  SELECT y, z, sum(map_idx(x, y, z)::bigint << (4 * x))::bigint AS l
                  FROM generate_series(0, 15) y, generate_series(0, 15) z, generate_series(0, 15) x
                  GROUP BY y, z) r))),
            nbt_compound('biomes', nbt_list_strings('palette', 'minecraft:plains'))))) $$;

-- A 1.12 chunk: stone at y=0, sand (12) on top at x=1, z=0, the rest bare.
CREATE FUNCTION map_legacy_chunk(x int, z int) RETURNS bytea LANGUAGE sql IMMUTABLE
AS $$ SELECT nbt_compound('', nbt_int('DataVersion', 1343),
        nbt_compound('Level', nbt_int('xPos', x), nbt_int('zPos', z),
          nbt_list_compounds('Sections',
            nbt_compound('', nbt_byte('Y', 0),
              nbt_byte_array('Blocks', decode(repeat('01', 256) || '000c' || repeat('00', 3838), 'hex')),
              nbt_byte_array('Data', decode(repeat('00', 2048), 'hex')))))) $$;

-- chunks (0,0) modern and (2,0) legacy; (1,0) missing: 48 x 16 block columns
CREATE TABLE maps (id int PRIMARY KEY, world slime);
INSERT INTO maps VALUES (1, slime_put_chunk(slime_put_chunk(NULL, 0, 0, map_chunk(0, 0)),
                                            2, 0, map_legacy_chunk(2, 0)));

-- a PNG: signature, IHDR 48 x 16, 8-bit indexed colour
SELECT substring(png FROM 1 FOR 8) = '\x89504e470d0a1a0a'::bytea AS signature,
       encode(substring(png FROM 13 FOR 4), 'escape') AS chunk,
       (get_byte(png, 16) << 24 | get_byte(png, 17) << 16 | get_byte(png, 18) << 8 | get_byte(png, 19)) AS width,
       (get_byte(png, 20) << 24 | get_byte(png, 21) << 16 | get_byte(png, 22) << 8 | get_byte(png, 23)) AS height,
       get_byte(png, 24) AS bit_depth, get_byte(png, 25) AS color_type
FROM (SELECT slime_render_map(world) AS png FROM maps WHERE id = 1) s;
-- the palette is Minecraft's: entry base * 4 + shade; grass (1) flat (1) is #6D9930
SELECT encode(substring(png FROM 38 FOR 4), 'escape') AS chunk,
       encode(substring(png FROM 42 + 5 * 3 FOR 3), 'hex') AS grass_flat,
       encode(substring(png FROM 42 + (12 * 4 + 2) * 3 FOR 3), 'hex') AS water_light
FROM (SELECT slime_render_map(world) AS png FROM maps WHERE id = 1) s;
-- scale 2: two pixels per column each way
SELECT (get_byte(png, 18) << 8 | get_byte(png, 19)) AS width, (get_byte(png, 22) << 8 | get_byte(png, 23)) AS height
FROM (SELECT slime_render_map(world, scale => 2) AS png FROM maps WHERE id = 1) s;

-- the colours: one byte per column, row by row from the north-west corner
CREATE FUNCTION px(c bytea, x int, z int) RETURNS text LANGUAGE sql IMMUTABLE
AS $$ SELECT CASE WHEN get_byte(c, z * 48 + x) = 0 THEN 'transparent'
                  ELSE (get_byte(c, z * 48 + x) / 4) || '/' || (get_byte(c, z * 48 + x) % 4) END $$;
SELECT octet_length(slime_render_map_colors(world)) AS columns FROM maps WHERE id = 1;
-- base/shade (shade 0 darker, 1 flat, 2 lighter); base 1 grass, 11 stone, 12 water, 2 sand
SELECT z, px(c, 0, z) AS x0, px(c, 1, z) AS x1, px(c, 20, z) AS missing_chunk,
       px(c, 32, z) AS legacy_x32, px(c, 33, z) AS legacy_x33
FROM (SELECT slime_render_map_colors(world) AS c FROM maps WHERE id = 1) s, generate_series(0, 15) z
ORDER BY z;
-- y_max: nothing above y=0 is drawn, so chunk (0,0) is all stone
SELECT count(DISTINCT px(c, x, z)) AS colours, min(px(c, x, z)) AS colour
FROM (SELECT slime_render_map_colors(world, y_max => 0) AS c FROM maps WHERE id = 1) s,
     generate_series(0, 15) x, generate_series(0, 15) z;
-- below every block: transparent
SELECT px(c, 0, 0) FROM (SELECT slime_render_map_colors(world, -1) AS c FROM maps WHERE id = 1) s;
-- the same map from the reference form (through the chunk store)
SELECT slime_render_map(slime_store(world)) = slime_render_map(world) AS same FROM maps WHERE id = 1;
-- NULLs
SELECT slime_render_map(NULL) IS NULL AS null_world, slime_render_map(world, NULL, NULL) IS NOT NULL AS defaults
FROM maps WHERE id = 1;

-- the size cap: an error before anything is allocated
SET slime.max_render_pixels = 256;
SELECT slime_render_map(world) FROM maps WHERE id = 1;
SELECT octet_length(slime_render_map(slime_put_chunk(NULL, 5, 5, map_chunk(5, 5)))) > 0 AS one_chunk_fits;
RESET slime.max_render_pixels;
SELECT slime_render_map(world, scale => 0) FROM maps WHERE id = 1;
SELECT slime_render_map(world, scale => 100000) FROM maps WHERE id = 1;
-- a chunk whose block data does not fit its palette: an error naming it
SELECT slime_render_map(slime_put_chunk(NULL, 3, 4, nbt_compound('', nbt_int('DataVersion', 3700),
    nbt_list_compounds('sections', nbt_compound('', nbt_byte('Y', 0),
      nbt_compound('block_states',
        nbt_list_compounds('palette', nbt_compound('', nbt_string('Name', 'minecraft:air')),
                                      nbt_compound('', nbt_string('Name', 'minecraft:stone'))),
        nbt_long_array('data', VARIADIC array_fill(x'7777777777777777'::bigint, ARRAY[256]))))))));

-- Tiles for slippy maps: slime_render_tile(world, zoom, x, y), 256 x 256
-- PNGs; zoom z draws 2^z pixels a block (-4..4), tile (x, y) covers blocks
-- from x * 256 / 2^z and y * 256 / 2^z.
SELECT substring(png FROM 1 FOR 8) = '\x89504e470d0a1a0a'::bytea AS signature,
       (get_byte(png, 18) << 8 | get_byte(png, 19)) AS width, (get_byte(png, 22) << 8 | get_byte(png, 23)) AS height
FROM maps, LATERAL (VALUES (slime_render_tile(world, 0, 0, 0)), (slime_render_tile(world, -4, 0, 0)),
                           (slime_render_tile(world, 4, 0, 0)), (slime_render_tile(world, 0, -3, 2))) t(png)
WHERE id = 1;
-- zoom 4, tile (0,0) is chunk (0,0) at 16 pixels a block: the map of that chunk at scale 16
SELECT slime_render_tile(w, 4, 0, 0) = slime_render_map(w, scale => 16) AS same_pixels
FROM (SELECT slime_put_chunk(NULL, 0, 0, map_chunk(0, 0)) AS w) s;
-- at zoom 0 tile (0,0) covers both chunks: not the empty tile; tiles away from the world are
SELECT slime_render_tile(world, 0, 0, 0) <> slime_render_tile(world, 0, -1, 0) AS drawn,
       slime_render_tile(world, 0, -1, 0) = slime_render_tile(world, -4, 1000, -1000) AS empty_alike
FROM maps WHERE id = 1;
-- the reference form draws the same; NULL in, NULL out
SELECT slime_render_tile(slime_store(world), -1, 0, 0) = slime_render_tile(world, -1, 0, 0) AS same,
       slime_render_tile(world, NULL, 0, 0) IS NULL AS strict
FROM maps WHERE id = 1;
SELECT provolatile, proisstrict, proparallel FROM pg_proc WHERE proname = 'slime_render_tile';
-- zooms past 4 or below -4 are refused
SELECT slime_render_tile(world, 5, 0, 0) FROM maps WHERE id = 1;
SELECT slime_render_tile(world, -5, 0, 0) FROM maps WHERE id = 1;
