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
