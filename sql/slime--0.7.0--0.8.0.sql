-- slime 0.7.0 -> 0.8.0
\echo Use "ALTER EXTENSION slime UPDATE TO '0.8.0'" to load this file. \quit

-- Each section below belongs to one piece of work; keep them apart so that
-- they merge cleanly. A fresh install runs 0.2.0 and every upgrade after it,
-- so what is defined here is also what a new database gets. Every function
-- that is not C pins search_path = pg_catalog, pg_temp and qualifies what it
-- calls.

-- ==== storage at rest (issue #22) ===========================================
-- 0.8.0 changes the library only: reads through the chunk store check the
-- frame an entry comes out of rather than hash it again
-- (slime.store_read_check, README "Security"); the block codec reads and
-- writes the same streams.
