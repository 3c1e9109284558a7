-- slime 0.7.0 -> 0.8.0
\echo Use "ALTER EXTENSION slime UPDATE TO '0.8.0'" to load this file. \quit

-- Each section below belongs to one piece of work; keep them apart so that
-- they merge cleanly. A fresh install runs 0.2.0 and every upgrade after it,
-- so what is defined here is also what a new database gets. Every function
-- that is not C pins search_path = pg_catalog, pg_temp and qualifies what it
-- calls.

-- ==== storage at rest (issue #22) ===========================================
-- Reads through the chunk store check the frame an entry comes out of
-- rather than hash it again (slime.store_read_check, README "Security"): a
-- library change, no SQL.

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

-- The store rows of each pack (packed rows only): the packs a settle or a
-- collection leaves are counted through it, not by a pass over the store.
CREATE INDEX slime_store_pack ON slime_store (pack) WHERE pack IS NOT NULL;

-- Set unsettled the rows of each of packs that holds fewer live rows than
-- half its entries, for the next slime_settle() to repack; how many.
CREATE FUNCTION slime_store_thin_packs(packs bigint[]) RETURNS bigint
LANGUAGE sql
SET search_path = pg_catalog, pg_temp
AS $$
	WITH thin AS (
		UPDATE @extschema@.slime_store s SET settled = false
		FROM (SELECT l.pack
			  FROM (SELECT x.pack, pg_catalog.count(*) AS live FROM @extschema@.slime_store x
					WHERE x.pack OPERATOR(pg_catalog.=) ANY (packs) GROUP BY x.pack) l
			  JOIN @extschema@.slime_store_packs p ON p.id OPERATOR(pg_catalog.=) l.pack
			  WHERE l.live OPERATOR(pg_catalog.*) 2 OPERATOR(pg_catalog.<) @extschema@.slime_pack_entries(p.data)) d
		WHERE s.pack OPERATOR(pg_catalog.=) d.pack AND s.settled
		RETURNING 1)
	SELECT pg_catalog.count(*) FROM thin
$$;
REVOKE ALL ON FUNCTION slime_store_thin_packs(bigint[]) FROM PUBLIC;

CREATE OR REPLACE FUNCTION slime_store_free_packs() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
	DELETE FROM @extschema@.slime_store_packs p
	WHERE NOT EXISTS (SELECT 1 FROM @extschema@.slime_store s WHERE s.pack OPERATOR(pg_catalog.=) p.id);
	PERFORM @extschema@.slime_store_thin_packs(ARRAY(SELECT DISTINCT g.pack FROM gone g WHERE g.pack IS NOT NULL));
	RETURN NULL;
END
$$;
DROP TRIGGER slime_store_free_packs ON slime_store;
CREATE TRIGGER slime_store_free_packs AFTER DELETE ON slime_store
	REFERENCING OLD TABLE AS gone
	FOR EACH STATEMENT EXECUTE FUNCTION slime_store_free_packs();

-- A cold world's chunks are gathered into packs of their own. Its chunks
-- lie in the packs of every settle that found some of them cold, beside
-- other worlds' chunks of the same time, and its first load decoded all of
-- those packs whole. When slime_settle() puts a world's file in its cold
-- form, it also packs the chunks of the world's newest save, world by
-- world, into packs marked gathered (slime_settle_gather); a chunk in a
-- gathered pack is not moved again, so a chunk two worlds share stays with
-- the first, and the packs the chunks leave are freed or thinned as above.
ALTER TABLE slime_store_packs ADD COLUMN gathered boolean NOT NULL DEFAULT false;
CREATE FUNCTION slime_settle_gather(hashes bytea[], batch integer,
		OUT items bigint, OUT bytes_before bigint, OUT bytes_after bigint,
		OUT bad bigint, OUT first_bad bytea)
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT;
REVOKE ALL ON FUNCTION slime_settle_gather(bytea[], integer) FROM PUBLIC;
DROP FUNCTION slime_settle_loader_files(regclass, timestamptz, integer);
CREATE FUNCTION slime_settle_loader_files(saves regclass, cutoff timestamptz, batch integer,
		OUT files bigint, OUT bytes bigint, OUT bytes_after bigint, OUT refs bytea[])
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT;
REVOKE ALL ON FUNCTION slime_settle_loader_files(regclass, timestamptz, integer) FROM PUBLIC;

-- Warn of a settle batch's entries that do not match their keys (bad of
-- them, first_bad the first), if any.
CREATE FUNCTION slime_settle_warn(bad bigint, first_bad bytea) RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
	IF bad > 0 THEN
		RAISE WARNING 'slime_settle: % store entries do not match their keys and were left as they are', bad
			USING DETAIL = pg_catalog.format('First: %s.', pg_catalog.encode(first_bad, 'hex')),
				  HINT = 'SELECT * FROM slime_store_verify() lists what is wrong with them.';
	END IF;
END
$$;
REVOKE ALL ON FUNCTION slime_settle_warn(bigint, bytea) FROM PUBLIC;

-- slime_settle(): as in 0.7.0 (sql/slime--0.6.0--0.7.0.sql), but the
-- chunks of the worlds whose files it puts in their cold form are gathered
-- (slime_settle_gather), a third row saying how many.
CREATE OR REPLACE FUNCTION slime_settle(older_than interval DEFAULT '15 minutes', batch_size integer DEFAULT 100,
		max_batches integer DEFAULT NULL, progress interval DEFAULT '10 seconds')
RETURNS TABLE (what text, items bigint, bytes_before bigint, bytes_after bigint)
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	cutoff timestamptz;
	started timestamptz := pg_catalog.clock_timestamp();
	reported timestamptz := pg_catalog.clock_timestamp();
	batches integer := 0;
	e_items bigint := 0;
	e_before bigint := 0;
	e_after bigint := 0;
	f_items bigint := 0;
	f_bytes bigint := 0;
	f_after bigint := 0;
	g_items bigint := 0;
	g_before bigint := 0;
	g_after bigint := 0;
	ldr record;
	g record;
	r record;
	pass integer;
BEGIN
	IF older_than IS NULL OR older_than < interval '0' THEN
		RAISE EXCEPTION 'older_than must be a non-negative interval, not %', older_than
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF batch_size IS NULL OR batch_size < 1 OR max_batches < 0 THEN
		RAISE EXCEPTION 'batch_size must be positive and max_batches not negative'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	cutoff := pg_catalog.now() - older_than;
	PERFORM @extschema@.slime_gc_lock_shared();
	FOR pass IN 1 .. 2 LOOP
		-- 1. store entries, oldest first, a pack a batch (again after 2., for
		-- the rows of the packs that gathering left less than half alive)
		LOOP
			EXIT WHEN batches >= max_batches;
			SELECT * INTO r FROM @extschema@.slime_settle_pack(cutoff, batch_size);
			EXIT WHEN r.items = 0;
			batches := batches + 1;
			e_items := e_items + r.items;
			e_before := e_before + r.bytes_before;
			e_after := e_after + r.bytes_after;
			PERFORM @extschema@.slime_settle_warn(r.bad, r.first_bad);
			IF pg_catalog.clock_timestamp() - reported >= progress THEN
				RAISE NOTICE 'slime_settle: % store entries settled so far', e_items
					USING DETAIL = pg_catalog.format('%s bytes before, %s after, %s s.', e_before, e_after,
						pg_catalog.round(EXTRACT(epoch FROM pg_catalog.clock_timestamp() - started), 1));
				reported := pg_catalog.clock_timestamp();
			END IF;
		END LOOP;
		EXIT WHEN pass = 2;
		-- 2. the cached files of cold loader worlds, and the chunks of their
		-- newest saves gathered into packs of their own
		FOR ldr IN
			SELECT t.tgrelid::regclass AS saves FROM pg_catalog.pg_trigger t
			WHERE t.tgfoid = pg_catalog.to_regprocedure('@extschema@.slime_lease_fence()')
			ORDER BY t.tgrelid
		LOOP
			LOOP
				SELECT * INTO r FROM @extschema@.slime_settle_loader_files(ldr.saves, cutoff, batch_size);
				f_items := f_items + r.files;
				f_bytes := f_bytes + r.bytes;
				f_after := f_after + r.bytes_after;
				IF r.refs IS NOT NULL THEN
					SELECT * INTO g FROM @extschema@.slime_settle_gather(r.refs, batch_size);
					g_items := g_items + g.items;
					g_before := g_before + g.bytes_before;
					g_after := g_after + g.bytes_after;
					PERFORM @extschema@.slime_settle_warn(g.bad, g.first_bad);
				END IF;
				EXIT WHEN r.files < batch_size;
			END LOOP;
		END LOOP;
	END LOOP;
	IF pg_catalog.clock_timestamp() - started >= progress THEN
		RAISE NOTICE 'slime_settle: done: % store entries, % loader files, % entries gathered', e_items, f_items, g_items
			USING DETAIL = pg_catalog.format('Store entries %s bytes before, %s after; loader files %s bytes before, %s after; %s s.',
				e_before, e_after, f_bytes, f_after,
				pg_catalog.round(EXTRACT(epoch FROM pg_catalog.clock_timestamp() - started), 1));
	END IF;
	RETURN QUERY VALUES ('store entries', e_items, e_before, e_after),
						('loader files', f_items, f_bytes, f_after),
						('gathered entries', g_items, g_before, g_after);
END
$$;

-- slime_settle_batches: as in 0.5.0; the gathered entries are not files.
CREATE OR REPLACE PROCEDURE slime_settle_batches(older_than interval DEFAULT '15 minutes', batch_size integer DEFAULT 100,
		progress interval DEFAULT '10 seconds',
		INOUT entries bigint DEFAULT NULL, INOUT bytes_before bigint DEFAULT NULL,
		INOUT bytes_after bigint DEFAULT NULL, INOUT files bigint DEFAULT NULL)
LANGUAGE plpgsql
AS $$
DECLARE
	started timestamptz := pg_catalog.now();	-- the first transaction's start
	reported timestamptz := pg_catalog.clock_timestamp();
	n bigint;
	r record;
BEGIN
	entries := 0; bytes_before := 0; bytes_after := 0; files := 0;
	LOOP
		PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
		n := 0;
		FOR r IN SELECT s.what, s.items, s.bytes_before AS b0, s.bytes_after AS b1
				 FROM @extschema@.slime_settle(older_than + (pg_catalog.now() - started), batch_size, 1, NULL) s
		LOOP
			IF r.what = 'store entries' THEN
				n := r.items;
				entries := entries + r.items;
				bytes_before := bytes_before + r.b0;
				bytes_after := bytes_after + r.b1;
			ELSIF r.what = 'loader files' THEN
				files := files + r.items;
			END IF;
		END LOOP;
		COMMIT;
		PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
		EXIT WHEN n < batch_size;
		IF pg_catalog.clock_timestamp() - reported >= progress THEN
			RAISE NOTICE 'slime_settle_batches: % store entries settled so far', entries
				USING DETAIL = pg_catalog.format('%s bytes before, %s after, %s s.', bytes_before, bytes_after,
					pg_catalog.round(EXTRACT(epoch FROM pg_catalog.clock_timestamp() - started), 1));
			reported := pg_catalog.clock_timestamp();
		END IF;
	END LOOP;
END
$$;

-- slime_settle() and slime_store_entry_settle() write block codec version 4
-- (0xB4, doc/format.md "Frames"): a library change, no SQL.
