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
