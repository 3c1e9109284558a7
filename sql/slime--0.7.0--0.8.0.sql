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

-- Packs that deletes leave mostly dead are repacked. 0.7.0 freed a pack
-- with the last store row pointing into it, so a pack kept the bytes of
-- every entry slime_gc() removed from it while one of its entries lived:
-- under retention (old saves deleted, their chunks collected) the packs'
-- bytes grew without bound. Now the statement that deletes store rows also
-- sets unsettled the rows of each pack it left with fewer live entries
-- than half those the pack holds, so the next slime_settle() repacks them
-- (oldest first, as any entry) and frees the old pack: a pack's dead bytes
-- stay below its live ones.
CREATE FUNCTION slime_pack_entries(data bytea) RETURNS integer
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
	-- the u32le entry count after the magic and the version (doc/format.md,
	-- "Packs"); substring reads only the head of a stored pack
	SELECT pg_catalog.get_byte(h, 2) OPERATOR(pg_catalog.+) (pg_catalog.get_byte(h, 3) OPERATOR(pg_catalog.<<) 8)
		OPERATOR(pg_catalog.+) (pg_catalog.get_byte(h, 4) OPERATOR(pg_catalog.<<) 16)
		OPERATOR(pg_catalog.+) (pg_catalog.get_byte(h, 5) OPERATOR(pg_catalog.<<) 24)
	FROM (SELECT pg_catalog.substring(data, 1, 6) AS h) s
$$;

CREATE OR REPLACE FUNCTION slime_store_free_packs() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
	DELETE FROM @extschema@.slime_store_packs p
	WHERE NOT EXISTS (SELECT 1 FROM @extschema@.slime_store s WHERE s.pack OPERATOR(pg_catalog.=) p.id);
	UPDATE @extschema@.slime_store s SET settled = false
	FROM (SELECT l.pack
		  FROM (SELECT x.pack, pg_catalog.count(*) AS live FROM @extschema@.slime_store x
				WHERE x.pack IN (SELECT g.pack FROM gone g WHERE g.pack IS NOT NULL)
				GROUP BY x.pack) l
		  JOIN @extschema@.slime_store_packs p ON p.id OPERATOR(pg_catalog.=) l.pack
		  WHERE l.live OPERATOR(pg_catalog.*) 2 OPERATOR(pg_catalog.<) @extschema@.slime_pack_entries(p.data)) d
	WHERE s.pack OPERATOR(pg_catalog.=) d.pack AND s.settled;
	RETURN NULL;
END
$$;
DROP TRIGGER slime_store_free_packs ON slime_store;
CREATE TRIGGER slime_store_free_packs AFTER DELETE ON slime_store
	REFERENCING OLD TABLE AS gone
	FOR EACH STATEMENT EXECUTE FUNCTION slime_store_free_packs();
