-- Box snapshots: slime_extract (a box as a Sponge schematic) and slime_paste.

-- a 1.18+ section: palette of n (air, then minecraft:b<k>_<salt>, every third
-- with properties written unsorted), indices packed without spanning
CREATE FUNCTION schem_section(y int, n int, salt int) RETURNS bytea LANGUAGE sql IMMUTABLE
AS $$ SELECT nbt_compound('', nbt_byte('Y', y),
        nbt_compound('block_states',
          nbt_list_compounds('palette', VARIADIC (SELECT array_agg(CASE
              WHEN k = 0 THEN nbt_compound('', nbt_string('Name', 'minecraft:air'))
              WHEN k % 3 = 0 THEN nbt_compound('', nbt_string('Name', format('minecraft:b%s_%s', k, salt)),
                                      nbt_compound('Properties', nbt_string('half', 'top'), nbt_string('facing', 'east')))
              ELSE nbt_compound('', nbt_string('Name', format('minecraft:b%s_%s', k, salt))) END ORDER BY k)
            FROM generate_series(0, n - 1) k)),
          CASE WHEN n > 1 THEN (
            WITH p AS (SELECT greatest(4, ceil(log(2, n))::int) AS bits),
                 e AS (SELECT i, ((i::bigint * 2654435761 + salt * 97 + y * 13) % 1000003) % n AS v FROM generate_series(0, 4095) i)
            SELECT nbt_long_array('data', VARIADIC (
              SELECT array_agg(w ORDER BY l) FROM (
                SELECT e.i / (64 / p.bits) AS l, bit_or(e.v << ((e.i % (64 / p.bits)) * p.bits)) AS w
                FROM e, p GROUP BY 1) q))
          ) ELSE ''::bytea END),
        nbt_compound('biomes', nbt_list_strings('palette', 'minecraft:plains'))) $$;

-- a 1.18+ chunk: sections Y = -1..1 (palettes of 1 to 40), a chest, light and
-- heightmaps, and a tag slime knows nothing about
CREATE FUNCTION schem_chunk(x int, z int, salt int) RETURNS bytea LANGUAGE sql IMMUTABLE
AS $$ SELECT nbt_compound('',
        nbt_int('DataVersion', 3700), nbt_int('xPos', x), nbt_int('zPos', z), nbt_int('yPos', -1),
        nbt_string('Status', 'minecraft:full'), nbt_byte('isLightOn', 1),
        nbt_compound('Heightmaps', nbt_long_array('WORLD_SURFACE', 1, 2, 3)),
        nbt_list_compounds('sections', schem_section(-1, 1 + salt % 3, salt),
                           schem_section(0, 17 + salt, salt), schem_section(1, 40 - salt, salt)),
        nbt_list_compounds('block_entities',
            nbt_compound('', nbt_string('id', 'minecraft:chest'), nbt_int('x', x * 16 + 6 + salt % 5),
                         nbt_int('y', 5), nbt_int('z', z * 16 + 8 + salt % 4), nbt_string('CustomName', format('chest %s', salt)))),
        nbt_string('CustomTag', 'untouched')) $$;

-- a world of 3 x 3 such chunks, (0,0) to (2,2)
CREATE TABLE arena AS
SELECT slime_agg(slime_put_chunk(NULL, x, z, schem_chunk(x, z, x + 3 * z))) AS world
FROM generate_series(0, 2) x, generate_series(0, 2) z;
SELECT slime_info(world) ->> 'chunks' AS chunks FROM arena;

-- the SQLSTATE and message of a failing statement
CREATE FUNCTION schem_error(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE st text; msg text;
BEGIN
	EXECUTE q;
	RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
	RETURN st || ': ' || msg;
END $$;

-- a small box as Sponge v3 and v2, read back through the NBT-as-JSON mapping
-- (slime_nbt_to_json reads gzip): palette keys are block states with sorted
-- properties, Data holds varints in y, z, x order, positions are relative
SELECT jsonb_pretty(slime_nbt_to_json(slime_extract(world, 1, 5, 2, 3, 5, 2))) FROM arena;
SELECT jsonb_pretty(slime_nbt_to_json(slime_extract(world, 3, 5, 2, 1, 5, 2, 2))) FROM arena;

-- the restore guarantee: snapshot, change the world, paste the snapshot back
CREATE TABLE snap AS SELECT slime_extract(world, 5, -10, 7, 31, 20, 31) AS s FROM arena;
CREATE TABLE changed AS
SELECT slime_paste(slime_put_chunk(world, 1, 1, schem_chunk(1, 1, 8)),
                   slime_extract(world, 0, -16, 0, 9, 19, 9), 8, -12, 10) AS world
FROM arena;
CREATE TABLE restored AS
SELECT slime_paste(c.world, s.s, 5, -10, 7) AS world FROM changed c, snap s;
-- every block of the box, through the block decoder
SELECT count(*) AS blocks,
       count(*) FILTER (WHERE slime_block(c.world, x, y, z) IS DISTINCT FROM slime_block(a.world, x, y, z)) AS changed,
       count(*) FILTER (WHERE slime_block(r.world, x, y, z) IS DISTINCT FROM coalesce(slime_block(a.world, x, y, z), 'minecraft:air')) AS differ
FROM arena a, changed c, restored r,
     generate_series(5, 31) x, generate_series(-10, 20) y, generate_series(7, 31) z
WHERE (x + y + z) % 5 = 0;
-- the same box extracted again is the same schematic
SELECT slime_extract(r.world, 5, -10, 7, 31, 20, 31) = s.s AS same_snapshot FROM restored r, snap s;
-- every block entity of the world is back, and chunks the box misses are the same bytes
CREATE FUNCTION schem_box_entities(w slime) RETURNS text[] LANGUAGE sql STABLE
AS $$ SELECT array_agg(b::text ORDER BY b::text) FROM slime_block_entities(w) b
      WHERE b.x BETWEEN 5 AND 31 AND b.y BETWEEN -10 AND 20 AND b.z BETWEEN 7 AND 31 $$;
SELECT cardinality(schem_box_entities(a.world)) AS in_box,
       schem_box_entities(c.world) = schem_box_entities(a.world) AS same_when_changed,
       schem_box_entities(r.world) = schem_box_entities(a.world) AS same_block_entities
FROM arena a, changed c, restored r;
SELECT o.x, o.z, o.hash = n.hash AS same_bytes
FROM slime_chunks((SELECT world FROM arena)) o JOIN slime_chunks((SELECT world FROM restored)) n USING (x, z)
ORDER BY o.x, o.z;
-- a rewritten chunk: relit and heightmaps recomputed by Minecraft, everything else kept
SELECT c ->> 'isLightOn' AS light, c ? 'Heightmaps' AS heightmaps, c ->> 'CustomTag' AS custom, c -> 'yPos' AS ypos
FROM (SELECT slime_chunk_json(world, 1, 1) AS c FROM restored) q;
-- a whole section of one state keeps no data (as Minecraft writes it)
SELECT slime_chunk_json(world, 1, 1) #> '{sections,0,block_states,palette}' AS before,
       slime_chunk_json(slime_paste(world, slime_extract(world, 0, -16, 0, 15, -1, 15), 16, -16, 16), 1, 1)
         #> '{sections,0,block_states}' AS after
FROM arena;

-- a snapshot pasted over the blocks it holds changes nothing: every chunk keeps
-- its bytes; one changed block changes its chunk only (relit, heightmaps dropped)
CREATE TABLE arena_reset AS
SELECT slime_paste(world, slime_extract(world, 0, -16, 0, 47, 31, 47), 0, -16, 0) AS same,
       slime_paste(world, nbt_compound('Schematic', nbt_int('Version', 2),
         nbt_head(2, 'Width') || int2send(1::int2), nbt_head(2, 'Height') || int2send(1::int2),
         nbt_head(2, 'Length') || int2send(1::int2), nbt_compound('Palette', nbt_int('minecraft:gold_block', 0)),
         nbt_byte_array('BlockData', '\x00'::bytea)), 5, 5, 5) AS one
FROM arena;
SELECT o.x, o.z, o.hash = s.hash AS same_unchanged, o.hash = b.hash AS same_one_block
FROM slime_chunks((SELECT world FROM arena)) o
JOIN slime_chunks((SELECT same FROM arena_reset)) s USING (x, z)
JOIN slime_chunks((SELECT one FROM arena_reset)) b USING (x, z)
ORDER BY o.x, o.z;
SELECT x, z, slime_chunk_json(one, x, z) ->> 'isLightOn' AS light, slime_chunk_json(one, x, z) ? 'Heightmaps' AS heightmaps
FROM arena_reset, (VALUES (0, 0), (1, 0)) v(x, z) ORDER BY x;

-- v2 restores alike, and the function reads values held by the chunk store
SELECT slime_paste(c.world, slime_extract(a.world, 5, -10, 7, 31, 20, 31, 2), 5, -10, 7) = r.world AS v2_same
FROM arena a, changed c, restored r;
SELECT slime_paste(slime_store(c.world), s.s, 5, -10, 7) = r.world AS store_same
FROM changed c, snap s, restored r;

-- a box over a missing chunk: air there; air pastes back over it, blocks do not
SELECT slime_block(w, 41, 0, 0) AS kept, slime_block(w, 49, 0, 0) AS no_chunk
FROM (SELECT slime_paste(world, slime_extract(world, 40, 0, 0, 50, 3, 3), 40, 0, 0) AS w FROM arena) q;
SELECT schem_error($$SELECT slime_paste(world, slime_extract(world, 0, 0, 0, 20, 3, 3), 40, 0, 0) FROM arena$$);

-- Sponge v1 (TileEntities with ContentVersion) and MCEdit (numeric ids), plain NBT
SELECT slime_block(w, 1, 0, 1) AS v1_block, (SELECT b.nbt FROM slime_block_entities(w) b WHERE b.x = 1 AND b.y = 0) AS v1_block_entity
FROM (SELECT slime_paste(world, nbt_compound('Schematic', nbt_int('Version', 1),
        nbt_head(2, 'Width') || int2send(2::int2), nbt_head(2, 'Height') || int2send(1::int2),
        nbt_head(2, 'Length') || int2send(2::int2),
        nbt_compound('Palette', nbt_int('minecraft:barrel[open=false,facing=up]', 0), nbt_int('stone', 1)),
        nbt_byte_array('BlockData', '\x01010100'::bytea),
        nbt_list_compounds('TileEntities', nbt_compound('', nbt_head(11, 'Pos') || int4send(3) || int4send(1) || int4send(0) || int4send(1),
            nbt_string('Id', 'minecraft:barrel'), nbt_int('ContentVersion', 1), nbt_string('CustomName', 'loot')))), 0, 0, 0) AS w
      FROM arena) q;
SELECT slime_block(w, 0, 1, 0) AS stone, slime_block(w, 1, 1, 0) AS granite, slime_block(w, 0, 1, 1) AS log,
       slime_block(w, 1, 1, 1) AS unknown_data
FROM (SELECT slime_paste(world, nbt_compound('Schematic',
        nbt_head(2, 'Width') || int2send(2::int2), nbt_head(2, 'Height') || int2send(1::int2),
        nbt_head(2, 'Length') || int2send(2::int2), nbt_string('Materials', 'Alpha'),
        nbt_byte_array('Blocks', '\x01011101'::bytea), nbt_byte_array('Data', '\x0001040f'::bytea)), 0, 1, 0) AS w
      FROM arena) q;

-- errors: malformed schematics 22P03, bad arguments 22023, caps 54000, pre-1.13 chunks 0A000
SELECT schem_error($$SELECT slime_paste(world, '\x1f8b0800'::bytea, 0, 0, 0) FROM arena$$);
SELECT schem_error($$SELECT slime_paste(world, nbt_compound('Schematic', nbt_int('Version', 2),
        nbt_head(2, 'Width') || int2send(2::int2), nbt_head(2, 'Height') || int2send(1::int2),
        nbt_head(2, 'Length') || int2send(1::int2), nbt_compound('Palette', nbt_int('minecraft:stone', 0)),
        nbt_byte_array('BlockData', '\x0080'::bytea)), 0, 0, 0) FROM arena$$);
SELECT schem_error($$SELECT slime_paste(world, nbt_compound('Schematic', nbt_int('Version', 2),
        nbt_head(2, 'Width') || int2send(2::int2), nbt_head(2, 'Height') || int2send(1::int2),
        nbt_head(2, 'Length') || int2send(1::int2), nbt_compound('Palette', nbt_int('minecraft:stone', 0)),
        nbt_byte_array('BlockData', '\x0003'::bytea)), 0, 0, 0) FROM arena$$);
SELECT schem_error($$SELECT slime_paste(world, nbt_compound('Schematic', nbt_int('Version', 2),
        nbt_head(2, 'Width') || int2send(0::int2), nbt_head(2, 'Height') || int2send(1::int2),
        nbt_head(2, 'Length') || int2send(1::int2)), 0, 0, 0) FROM arena$$);
SELECT schem_error($$SELECT slime_paste(world, nbt_compound('', nbt_head(9, 'size') || '\x0300000000'::bytea, nbt_head(9, 'palette') || '\x0a00000000'::bytea), 0, 0, 0) FROM arena$$);
SELECT schem_error($$SELECT slime_paste(world, slime_extract(world, 0, 0, 0, 3, 3, 3), 0, 60, 0) FROM arena$$);
SELECT schem_error($$SELECT slime_extract(world, 0, 0, 0, 1, 1, 1, 4) FROM arena$$);
SELECT schem_error($$SELECT slime_extract(world, 0, 0, 0, 70000, 0, 0) FROM arena$$);
SET slime.max_world_size = '1MB';
SELECT schem_error($$SELECT slime_extract(world, 0, 0, 0, 1023, 1, 1023) FROM arena$$);
RESET slime.max_world_size;
SELECT schem_error($$SELECT slime_paste(slime_put_chunk(NULL, 0, 0, nbt_compound('', nbt_int('DataVersion', 1343),
        nbt_compound('Level', nbt_list_compounds('Sections', nbt_compound('', nbt_byte('Y', 0),
          nbt_byte_array('Blocks', decode(repeat('01', 4096), 'hex')), nbt_byte_array('Data', decode(repeat('00', 2048), 'hex'))))))),
        s, 0, 0, 0) FROM (SELECT slime_extract(world, 0, 0, 0, 1, 1, 1) AS s FROM arena) q$$);
-- STRICT: a NULL argument gives NULL
SELECT slime_extract(NULL, 0, 0, 0, 1, 1, 1) IS NULL AS null_world, slime_paste(world, NULL, 0, 0, 0) IS NULL AS null_schematic FROM arena;
SELECT proname, provolatile, proparallel, proisstrict FROM pg_proc
WHERE proname IN ('slime_extract', 'slime_paste') ORDER BY proname;

DROP TABLE arena, snap, changed, restored, arena_reset;
DROP FUNCTION schem_chunk(int, int, int), schem_section(int, int, int), schem_error(text), schem_box_entities(slime);
