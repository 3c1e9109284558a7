-- slime 0.3.0 -> 0.4.0
\echo Use "ALTER EXTENSION slime UPDATE TO '0.4.0'" to load this file. \quit


-- ---- top-down maps (issue 14): slime_render_map, slime_render_map_colors ----
-- STABLE: a value in reference form reads its chunks from the store, as
-- slime_block_counts does; not STRICT, so that a NULL y_max means the top.
CREATE FUNCTION slime_render_map(world slime, y_max integer DEFAULT NULL, scale integer DEFAULT 1)
	RETURNS bytea AS 'MODULE_PATHNAME' LANGUAGE C STABLE PARALLEL SAFE;
CREATE FUNCTION slime_render_map_colors(world slime, y_max integer DEFAULT NULL)
	RETURNS bytea AS 'MODULE_PATHNAME' LANGUAGE C STABLE PARALLEL SAFE;
