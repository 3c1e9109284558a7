-- slime 0.9.0 -> 0.10.0
\echo Use "ALTER EXTENSION slime UPDATE TO '0.10.0'" to load this file. \quit

-- Each section below belongs to one piece of work; keep them apart so that
-- they merge cleanly. A fresh install runs 0.2.0 and every upgrade after it,
-- so what is defined here is also what a new database gets. Every function
-- that is not C pins search_path = pg_catalog, pg_temp and qualifies what it
-- calls.

-- ==== packs that cannot lie (issue #33, item 1) =============================
-- 0.10.0's slime_settle() writes pack version 2, whose directory carries a
-- checksum (doc/format.md, "Packs"), which 0.9.0's library cannot read.
-- Entries of version 1 packs are checked against their keys when read.

-- ==== a world's own data (issue #36) ========================================
-- A world folder's own files (player data, stats and advancements, maps,
-- raids, scoreboards, data packs: everything but its chunk files) live in a
-- table beside the world rows, (world text, path text, data bytea), which
-- clients/import-world.sh makes as <table>_files and slimetool copy-world
-- --files fills; these read them. slime_level() writes level.dat the way
-- the game of its DataVersion gzips it (0.10.0's library).

-- A world file as JSON by its name: NBT (.dat, .dat_old, .nbt, ...; gzip,
-- zlib or plain) by the lossless mapping of slime_nbt_to_json, JSON (.json,
-- .mcmeta) as it is, NULL for a file of bytes only (zip, png, uid.dat).
CREATE FUNCTION slime_file_json(path text, data bytea) RETURNS jsonb
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- What slime_file_json reads a world file as, by its name: nbt, json or bytes.
CREATE FUNCTION slime_file_kind(path text) RETURNS text
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
