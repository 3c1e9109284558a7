-- slime 0.2.0 -> 0.3.0: value format v3 (a compact, compressed chunk
-- directory; frames that share a zstd prefix). Nothing in the catalog
-- changes: every value written before stays readable as it is, new values
-- are written as v3, and slime_recompress(world) rewrites an old one.
\echo Use "ALTER EXTENSION slime UPDATE TO '0.3.0'" to load this file. \quit

