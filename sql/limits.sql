-- Caps are settings (superuser only), each tested at the limit and one past it.
SELECT slime_info(test_world(1)) IS NOT NULL AS loaded;
SHOW slime.max_chunk_size;
SHOW slime.max_world_size;
SHOW slime.max_nbt_depth;

-- a chunk of exactly n bytes: a compound holding one byte array
CREATE FUNCTION chunk_of_size(n int) RETURNS bytea LANGUAGE sql IMMUTABLE
AS $$ SELECT nbt_head(10, '') || nbt_head(7, 'a') || int4send(n - 12) || decode(repeat('00', n - 12), 'hex') || '\x00'::bytea $$;
SELECT octet_length(chunk_of_size(65536)) AS bytes;

-- nesting depth
SET slime.max_nbt_depth = 10;
SELECT slime_nbt_to_json(nbt_head(10, '') || decode(repeat('0a000161', 9), 'hex') || decode(repeat('00', 10), 'hex')) IS NOT NULL AS depth_10;
SELECT slime_nbt_to_json(nbt_head(10, '') || decode(repeat('0a000161', 10), 'hex') || decode(repeat('00', 11), 'hex'));
RESET slime.max_nbt_depth;

-- one chunk's uncompressed size, when stored and when decompressed from a region file
CREATE TABLE big AS SELECT slime_export_region(slime_put_chunk(NULL, 0, 0, chunk_of_size(65537)), 0, 0) AS region;
SET slime.max_chunk_size = '64kB';
SELECT slime_info(slime_put_chunk(NULL, 0, 0, chunk_of_size(65536))) ->> 'raw_bytes' AS at_limit;
SELECT slime_put_chunk(NULL, 0, 0, chunk_of_size(65537));
SELECT slime_import_region(region, 0, 0) FROM big;
RESET slime.max_chunk_size;
SELECT slime_info(slime_import_region(region, 0, 0)) ->> 'raw_bytes' AS default_cap FROM big;

-- a whole value's uncompressed size, when written and when read
CREATE TABLE two_big AS SELECT slime_put_chunk(slime_put_chunk(NULL, 0, 0, chunk_of_size(40000)), 1, 0, chunk_of_size(30000)) AS world;
SET slime.max_world_size = '64kB';
SELECT slime_info(slime_put_chunk(slime_put_chunk(NULL, 0, 0, chunk_of_size(40000)), 1, 0, chunk_of_size(25536))) ->> 'raw_bytes' AS at_limit;
SELECT slime_put_chunk(slime_put_chunk(NULL, 0, 0, chunk_of_size(40000)), 1, 0, chunk_of_size(25537));
SELECT slime_chunk_nbt(world, 0, 0) FROM two_big;
SELECT world::text::slime FROM two_big;
-- merging stops as soon as the chunks gathered pass the cap
SELECT slime_agg(slime_put_chunk(NULL, i, 0, chunk_of_size(40000))) FROM generate_series(1, 3) i;
RESET slime.max_world_size;
SELECT octet_length(slime_chunk_nbt(world, 0, 0)) AS default_cap FROM two_big;

-- palette length of a chunk section (a 1.20 section whose palette has n entries)
CREATE FUNCTION section_with_palette(n int) RETURNS bytea LANGUAGE sql IMMUTABLE
AS $$ SELECT nbt_compound('', nbt_int('DataVersion', 3700),
        nbt_list_compounds('sections', nbt_compound('', nbt_byte('Y', 0),
          nbt_compound('block_states',
            nbt_list_compounds('palette', VARIADIC (SELECT array_agg(nbt_compound('', nbt_string('Name', 'minecraft:block_' || i)) ORDER BY i)
                                                    FROM generate_series(1, n) i)),
            nbt_long_array('data', VARIADIC array_fill(0::bigint,
                           ARRAY[ceil(4096.0 / (64 / greatest(4, ceil(log(2, n))::int)))::int])))))) $$;
SET slime.max_palette = 16;
SELECT count(*) AS states FROM slime_block_counts(slime_put_chunk(NULL, 0, 0, section_with_palette(16)));
-- the cap bounds what decoding a section costs: counts decoded are refused;
-- a value's contents summary, counted under the default caps when it was
-- written, is read without decoding anything, so it answers
SET slime.read_summaries = off;
SELECT count(*) FROM slime_block_counts(slime_put_chunk(NULL, 0, 0, section_with_palette(17)));
RESET slime.read_summaries;
SELECT count(*) AS states_from_summary FROM slime_block_counts(slime_put_chunk(NULL, 0, 0, section_with_palette(17)));
RESET slime.max_palette;
SELECT count(*) AS states FROM slime_block_counts(slime_put_chunk(NULL, 0, 0, section_with_palette(17)));
SHOW slime.max_palette;

-- only superusers may change the caps, and how much input is checked: in a
-- session that has loaded the library, a non-superuser's SET fails at once
CREATE ROLE slime_player;
SET ROLE slime_player;
SET slime.max_chunk_size = '1GB';
SET slime.input_check = structure;
SHOW slime.input_check;
RESET ROLE;
SET slime.input_check = structure;
SHOW slime.input_check;
RESET slime.input_check;
-- a new session loads the library only when it first uses slime, so before
-- that PostgreSQL takes the SET as a placeholder and drops it with a warning
-- at the first use; with the library preloaded the SET itself fails
ALTER ROLE slime_player LOGIN;
SELECT current_user AS superuser \gset
\c - slime_player
SET slime.input_check = structure;
SELECT slime_info(NULL) AS loads_the_library;
SHOW slime.input_check;
\c - :superuser
ALTER ROLE slime_player SET session_preload_libraries = 'slime';
\c - slime_player
SET slime.input_check = structure;
SHOW slime.input_check;
\c - :superuser
DROP ROLE slime_player;
