-- slime 0.4.0 -> 0.5.0
\echo Use "ALTER EXTENSION slime UPDATE TO '0.5.0'" to load this file. \quit

-- Each section below belongs to one piece of work; keep them apart so that
-- they merge cleanly. A fresh install runs 0.2.0 and every upgrade after it,
-- so what is defined here is also what a new database gets.

-- ==== security (issue #25) ==================================================

-- ==== game-server path (issue #21) ===========================================

-- ==== storage at rest (issue #22) ============================================

-- ==== web map (issue #23) ====================================================
-- One 256 x 256 PNG tile of a world's top-down map, for slippy maps (zoom
-- -4..4: 2^zoom pixels a block; tile x, y in units of 256 / 2^zoom blocks).
-- STABLE like slime_render_map: a value in reference form reads the store.
CREATE FUNCTION slime_render_tile(world slime, z integer, x integer, y integer)
	RETURNS bytea AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
