-- slime 0.10.0 -> 0.11.0
\echo Use "ALTER EXTENSION slime UPDATE TO '0.11.0'" to load this file. \quit

-- 0.11.0 changes no SQL object. Its library writes chunk store packs of
-- version 3 (doc/format.md, "Chunk store", "Packs"): slime_settle()
-- gathers a cold loader world's older saves' chunks into its pack after
-- its newest save's, and an entry there naming the chunk position of an
-- earlier entry (another version of the same chunk) may be coded as a
-- zstd frame against that entry. Packs of versions 1 and 2 stay and
-- read as before. A build before 0.11.0 cannot read a version 3 pack, so a
-- dump of a store settled by 0.11.0 restores only into 0.11.0 or later.
-- A loader's save writes the world's memo in version 3 (SLM3: version 2 in
-- a zstd frame); version 2 memos are read as before.
