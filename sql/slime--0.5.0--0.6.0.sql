-- slime 0.5.0 -> 0.6.0
\echo Use "ALTER EXTENSION slime UPDATE TO '0.6.0'" to load this file. \quit

-- Each section below belongs to one piece of work; keep them apart so that
-- they merge cleanly. A fresh install runs 0.2.0 and every upgrade after it,
-- so what is defined here is also what a new database gets. The rules of
-- 0.4.0--0.5.0's security section hold here too: every function that is not
-- C pins search_path = pg_catalog, pg_temp and qualifies what it calls.

-- ==== security (issue #25) ==================================================

-- ==== game-server path (issue #21) ===========================================

-- ==== storage at rest (issue #22) ============================================

-- ==== web map (issue #23) ====================================================

-- ==== first hour (issue #24) =================================================

-- slime_put_chunk refuses NBT naming another position than (x, z); this is
-- how a chunk is moved (a template chunk copied elsewhere): its xPos/zPos
-- (Level.xPos/zPos before 1.18, entities' Position) rewritten, as Minecraft
-- relocates a chunk it finds in the wrong slot. Plain NBT out.
CREATE FUNCTION slime_chunk_relocate(nbt bytea, x integer, z integer) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
