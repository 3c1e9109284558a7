-- A world's own files (issue #36): every file of a world folder that is not
-- a chunk file, as clients/import-world.sh keeps them beside the world rows
-- (TABLE_files: world, path, data bytea), read in SQL; and level.dat as the
-- game writes it.
\getenv corpus SLIME_CORPUS
\if :{?corpus}
\else
\echo '*** CORPUS MISSING: set SLIME_CORPUS to the shared corpus directory ***'
\quit
\endif

CREATE TABLE isle_files (world text, path text, data bytea, PRIMARY KEY (world, path));
-- gzip as the game writes it: slime_level() of a value holding the document
CREATE FUNCTION gz(nbt bytea) RETURNS bytea LANGUAGE sql IMMUTABLE
AS $$ SELECT slime_level(slime_with_level(test_world(1), nbt)) $$;
CREATE FUNCTION item(slot int, id text, count int) RETURNS bytea LANGUAGE sql IMMUTABLE
AS $$ SELECT nbt_compound('', nbt_byte('Slot', slot), nbt_string('id', id), nbt_byte('Count', count)) $$;
INSERT INTO isle_files VALUES
  -- a player of the layout before 26.1 (gzip NBT) and one of 26.1's (plain NBT)
  ('isle', 'playerdata/736c696d-6500-0002-8100-000000000001.dat',
   gz(nbt_compound('', nbt_int('DataVersion', 3700), nbt_list_doubles('Pos', 40.5, 65, 40.5),
      nbt_list_compounds('Inventory', item(0, 'minecraft:diamond_pickaxe', 1), item(1, 'minecraft:bread', 5))))),
  ('isle', 'players/data/736c696d-6500-0002-8100-000000000002.dat',
   nbt_compound('', nbt_int('DataVersion', 4774),
      nbt_list_compounds('Inventory', nbt_compound('', nbt_byte('Slot', 9), nbt_string('id', 'minecraft:cobblestone'),
                                                   nbt_int('count', 64))))),
  ('isle', 'stats/736c696d-6500-0002-8100-000000000001.json',
   convert_to('{"stats":{"minecraft:custom":{"minecraft:jump":12}},"DataVersion":3700}', 'UTF8')),
  ('isle', 'data/map_0.dat', gz(nbt_compound('', nbt_compound('data', nbt_byte('scale', 0),
      nbt_byte_array('colors', '\x000606'::bytea)), nbt_int('DataVersion', 3700)))),
  ('isle', 'datapacks/pack.zip', '\x504b0506000000000000000000000000000000000000'::bytea),
  ('isle', 'uid.dat', '\x0a0000000000000000000000000000ff'::bytea);

-- what each file reads as, by its name: NBT (gzip or plain), JSON, or bytes
-- only (a zip, Bukkit's uid.dat: 16 raw bytes, not NBT)
SELECT path, slime_file_kind(path) AS kind, slime_file_json(path, data) IS NOT NULL AS read
FROM isle_files ORDER BY path;
SELECT slime_file_json(path, data) AS map FROM isle_files WHERE path = 'data/map_0.dat';

-- every player's inventory, in either layout (playerdata/ before 26.1,
-- players/data/ from 26.1 snapshot 6 on; Count a byte before 1.20.5, count
-- an int since)
SELECT substring(f.path FROM '([0-9a-f-]{36})\.dat$') AS player, (i -> 'Slot' ->> 'byte')::int AS slot,
       i ->> 'id' AS item, coalesce(i ->> 'count', i -> 'Count' ->> 'byte')::int AS count
FROM isle_files f, jsonb_array_elements(slime_file_json(f.path, f.data) -> 'Inventory') i
WHERE f.path ~ '^(playerdata|players/data)/[^/]+\.dat$'
ORDER BY 1, 2;
-- stats are JSON
SELECT slime_file_json(path, data) -> 'stats' -> 'minecraft:custom' AS custom
FROM isle_files WHERE path LIKE 'stats/%';

-- a damaged file is an error naming it (in the message or its context),
-- never a NULL or a guess
SELECT slime_file_json('playerdata/x.dat', substring(data FROM 1 FOR 20)) FROM isle_files
WHERE path LIKE 'playerdata/%';
SELECT slime_file_json('stats/x.json', '\x7b2273223a'::bytea);
SELECT slime_file_json('stats/x.json', '\x7b7d00'::bytea);
SELECT slime_file_json('stats/x.json', '\x22ff22'::bytea);

-- level.dat as the game of its DataVersion writes it: Java's
-- GZIPOutputStream over zlib level 6, OS byte 255 from 1.17 (DataVersion
-- 2724, Java 16) on, 0 before. Every level.dat the game wrote comes back
-- byte for byte from its world compound (Minestom, pymclevel and Pumpkin
-- compress theirs otherwise: copy-world keeps those bytes as a file)
CREATE TABLE level_files AS
SELECT f AS file, pg_read_binary_file(:'corpus' || '/level-dat/' || f) AS data
FROM unnest(ARRAY['amulet-core/1_12_2/level.dat', 'amulet-core/1_16_5_dimension/level.dat',
                  'amulet-core/1_17_1_caves_and_cliffs/level.dat', 'bingley-tag/level.dat',
                  'cu_minecraft/level.dat', 'mcaselector/generator-level.dat',
                  'minestom/anvil_vanilla_sample/level.dat']) f;
SELECT file, slime_nbt_to_json(data) -> 'Data' -> 'DataVersion' AS dv, get_byte(data, 9) AS os,
       slime_level(slime_with_level(test_world(1), data)) = data AS same_bytes
FROM level_files ORDER BY file;
-- 26.1 snapshot 6's level.dat: spawn and difficulty moved into compounds,
-- world generation and game rules out to data/minecraft/
SELECT jsonb_object_keys(slime_nbt_to_json(data) -> 'Data') AS tag
FROM level_files WHERE file LIKE 'mcaselector/%' ORDER BY 1;
DROP TABLE isle_files, level_files;
DROP FUNCTION gz(bytea), item(int, text, int);
