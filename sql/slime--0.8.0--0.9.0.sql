-- slime 0.8.0 -> 0.9.0
\echo Use "ALTER EXTENSION slime UPDATE TO '0.9.0'" to load this file. \quit

-- Each section below belongs to one piece of work; keep them apart so that
-- they merge cleanly. A fresh install runs 0.2.0 and every upgrade after it,
-- so what is defined here is also what a new database gets. Every function
-- that is not C pins search_path = pg_catalog, pg_temp and qualifies what it
-- calls.

-- ==== storage at rest (issue #22) ===========================================
-- 0.9.0 changes the library only; its SQL objects are 0.8.0's. The version
-- marks what its slime_settle() writes, which 0.8.0's library cannot read
-- (doc/format.md):
-- - dense packs and settled entries in block codec version 5 (0xB5:
--   heightmaps modelled, the structure at zstd level 14);
-- - cold loader files in cold form version 2 (the prefix in the order of
--   the world's gathered pack, read in place there).
-- Both read every older version. Block totals and counts over packed
-- entries keep each entry's counts for the session (slime.pack_cache_size),
-- and cold loads read a gathered world's chunks out of its pack after one
-- store lookup.
