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

-- ==== loader files that cannot lie (issue #33) ====
-- What a loader world's row keeps carries a checksum over what it gives
-- back (doc/format.md, "The loader's kept files"; src/keptfile.c): a save
-- keeps the file in its hot form ("SLHF": the file, then its XXH64),
-- slime_settle() makes the cold form of version 3 (an XXH64 over its
-- header), and the memo is "SLM2" (an XXH64 over it). Forms kept by 0.9.0
-- and earlier (files as they came, cold forms of versions 1 and 2, "SLM1"
-- memos) are read as absent: a load writes the file from the world's newest
-- save, a save converts every chunk once. No table changes: the forms live
-- in the columns they lived in.

-- The hot form of a slime file, as a loader world's row keeps it.
CREATE FUNCTION slime_loader_file_hot(file bytea) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- slime_loader_rollback's body (as in 0.5.0): a file written from the save
-- rolled back to is kept in the hot form, as a save keeps its file; a kept
-- form (hot, cold) moves with its save as it is.
CREATE OR REPLACE FUNCTION slime_loader_rollback_as_owner(tbl regclass, world text, save bigint, token bigint, keep integer DEFAULT NULL)
RETURNS bigint
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	wtbl regclass := @extschema@.slime_loader_worlds(tbl);
	old @extschema@.slime;
	f bytea;
	saved bigint;
BEGIN
	EXECUTE pg_catalog.format('SELECT data FROM %s WHERE world OPERATOR(pg_catalog.=) $1 AND save OPERATOR(pg_catalog.=) $2', tbl)
		INTO old USING world, save;
	IF old IS NULL THEN
		RAISE EXCEPTION 'world "%" has no save %', world, save USING ERRCODE = 'no_data_found';
	END IF;
	EXECUTE pg_catalog.format('SELECT file FROM %s WHERE world OPERATOR(pg_catalog.=) $1 AND saves OPERATOR(pg_catalog.=) $2', wtbl)
		INTO f USING world, save;
	IF f IS NULL THEN
		BEGIN
			f := @extschema@.slime_loader_file_hot(@extschema@.slime_to_slimefile(old));
		EXCEPTION WHEN feature_not_supported THEN
			RAISE EXCEPTION 'world "%": save % cannot be rolled back to: no slime file a load could give back holds its world', world, save
				USING ERRCODE = 'feature_not_supported',
					  DETAIL = SQLERRM,
					  HINT = 'The file such a save came from is kept only while it is the newest save; save the world again from that file.';
		END;
	END IF;
	saved := @extschema@.slime_loader_insert(tbl, world, token, old, keep);
	EXECUTE pg_catalog.format('UPDATE %s SET file = $2 WHERE world OPERATOR(pg_catalog.=) $1', wtbl) USING world, f;
	RETURN saved;
END
$$;

-- ==== a world's own data (issue #36) =================================
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
-- ==== contents without decoding (issue #32) =================================
-- Every value written from 0.10.0 carries a contents summary (doc/format.md,
-- "Contents summary"): the counts of its block states, biomes, block entities
-- and entities, read from its header slice. The counts, totals and
-- slime_block_names read it; values written before (no summary) still answer
-- by decoding, and slime_recompress(world) writes one. No value is rewritten
-- here (README, "Upgrading": a pass over every value of every table is what
-- maintenance must not cost).

-- every block name a world holds, sorted; IMMUTABLE, for a GIN expression index
CREATE FUNCTION slime_block_names(world slime) RETURNS text[]
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 100;

-- entities counted by id across worlds, as slime_block_entity_totals counts block entities
CREATE FUNCTION slime_entity_totals_transfn(internal, slime) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE PARALLEL SAFE COST 100;
CREATE AGGREGATE slime_entity_totals(slime) (
	SFUNC = @extschema@.slime_entity_totals_transfn, STYPE = internal,
	COMBINEFUNC = @extschema@.slime_totals_combinefn, SERIALFUNC = @extschema@.slime_totals_serialfn,
	DESERIALFUNC = @extschema@.slime_totals_deserialfn, FINALFUNC = @extschema@.slime_totals_finalfn,
	PARALLEL = SAFE
);

-- a value without a summary has it written by slime_recompress, and a chunk
-- slime_delete_chunk drops leaves the summary: both read stored chunks now
ALTER FUNCTION slime_recompress(slime, integer) STABLE;
ALTER FUNCTION slime_delete_chunk(slime, integer, integer) STABLE;

-- what the planner is told they cost. At 0.9.0's COST 1 a totals aggregate
-- looked as cheap as count(*), and no parallel plan paid its setup (issue
-- #32: serial at 10 ms an island). Reading a summary takes about 15 us,
-- some 5,000 cpu_operator_costs, but COST 1000 and more already make
-- postgres_fdw keep per-island totals (GROUP BY the distribution column) on
-- the coordinator: its pushed-down aggregate counts every transition as
-- startup cost, and when the totals tie the local plan's earlier start
-- wins. COST 100 gets parallel plans for every table past
-- min_parallel_table_scan_size and keeps that pushdown
-- (test/bench/README.md, section 15).
ALTER FUNCTION slime_block_totals_transfn(internal, slime) COST 100;
ALTER FUNCTION slime_biome_totals_transfn(internal, slime) COST 100;
ALTER FUNCTION slime_block_entity_totals_transfn(internal, slime) COST 100;
ALTER FUNCTION slime_block_counts(slime) COST 100;
ALTER FUNCTION slime_biome_counts(slime) COST 100;
