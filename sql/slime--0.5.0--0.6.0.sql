-- slime 0.5.0 -> 0.6.0
\echo Use "ALTER EXTENSION slime UPDATE TO '0.6.0'" to load this file. \quit

-- Each section below belongs to one piece of work; keep them apart so that
-- they merge cleanly. A fresh install runs 0.2.0 and every upgrade after it,
-- so what is defined here is also what a new database gets. The rules of
-- 0.4.0--0.5.0's security section hold here too: every function that is not
-- C pins search_path = pg_catalog, pg_temp and qualifies what it calls.

-- ==== security (issue #25) ==================================================

-- ==== game-server path (issue #21) ===========================================

-- A save checks its lease once. slime_loader_save (C) locks the world's row
-- and checks the lease with one prepared statement before it converts, then
-- draws the save number and writes the file and memo in one update. The
-- fence trigger lets that one row through instead of checking the lease and
-- updating the world's row again with dynamic SQL; every other insert or
-- update of a saves table is fenced as before.

-- Whether the row (world, save) going into the saves table tbl is the save
-- slime_loader_save is inserting in this (sub)transaction, its lease checked
-- and its number drawn (backend-local; true only during that insert).
CREATE FUNCTION slime_loader_fenced(tbl regclass, world text, save bigint) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT;

-- BEFORE INSERT OR UPDATE on a saves table: the row's token must be its
-- world's current lease (TG_ARGV[0]: the worlds table); an insert gets the
-- world's next save number, drawn under the lease row's lock, and clears
-- the world's cached file. slime_loader_save's own insert has done both.
CREATE OR REPLACE FUNCTION slime_lease_fence() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
	IF TG_OP OPERATOR(pg_catalog.=) 'INSERT' AND @extschema@.slime_loader_fenced(TG_RELID, NEW.world, NEW.save) THEN
		RETURN NEW;
	END IF;
	PERFORM @extschema@.slime_lease_check(TG_ARGV[0]::pg_catalog.regclass, NEW.world, NEW.token);
	IF TG_OP OPERATOR(pg_catalog.=) 'INSERT' THEN
		EXECUTE pg_catalog.format('UPDATE %s SET saves = saves OPERATOR(pg_catalog.+) 1, file = NULL '
								  'WHERE world OPERATOR(pg_catalog.=) $1 RETURNING saves', TG_ARGV[0])
			INTO NEW.save USING NEW.world;
		NEW.saved_at := pg_catalog.clock_timestamp();
	END IF;
	RETURN NEW;
END
$$;

-- ==== storage at rest (issue #22) ============================================

-- ==== web map (issue #23) ====================================================

-- ==== first hour (issue #24) =================================================

-- slime_put_chunk refuses NBT naming another position than (x, z); this is
-- how a chunk is moved (a template chunk copied elsewhere): its xPos/zPos
-- (Level.xPos/zPos before 1.18, entities' Position) rewritten, as Minecraft
-- relocates a chunk it finds in the wrong slot. Plain NBT out.
CREATE FUNCTION slime_chunk_relocate(nbt bytea, x integer, z integer) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
