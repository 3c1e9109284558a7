-- slime 0.11.0 -> 0.12.0
\echo Use "ALTER EXTENSION slime UPDATE TO '0.12.0'" to load this file. \quit

-- ==== a settle's loader files hold no world longer than a statement (issue #32)
-- Until 0.11.0 slime_settle() put every cold loader world's file in its
-- cold form in one loop that max_batches did not bound, inside the call's
-- one transaction, making the cold forms while it held the worlds' rows:
-- a lease or a save of any of those worlds waited for the whole call, and
-- CALL slime_settle_batches() did all of them in one transaction too. Now
-- a batch of worlds is a batch (max_batches counts it; the procedure
-- commits after it), its chunks are gathered first
-- (slime_settle_loader_refs, new), and slime_settle_loader_files makes the
-- cold forms with no row locked, then locks and writes, in one statement,
-- the rows still as they were made of.

-- The chunks of the worlds whose files the next batch settles.
CREATE FUNCTION slime_settle_loader_refs(saves regclass, cutoff timestamptz, batch integer) RETURNS bytea[]
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT;
REVOKE ALL ON FUNCTION slime_settle_loader_refs(regclass, timestamptz, integer) FROM PUBLIC;

-- A batch of a loader's cold files settled; the chunks come from
-- slime_settle_loader_refs now.
DROP FUNCTION slime_settle_loader_files(regclass, timestamptz, integer);
CREATE FUNCTION slime_settle_loader_files(saves regclass, cutoff timestamptz, batch integer,
		OUT files bigint, OUT bytes bigint, OUT bytes_after bigint)
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT;
REVOKE ALL ON FUNCTION slime_settle_loader_files(regclass, timestamptz, integer) FROM PUBLIC;

-- slime_settle(): as in 0.8.0 (sql/slime--0.7.0--0.8.0.sql), but a batch of
-- a loader's worlds is a batch, gathered before its files are settled.
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
	refs bytea[];
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
				-- a batch of worlds counts against max_batches as a batch of
				-- entries does. Their chunks are gathered first: only the
				-- last statement locks their rows (until the transaction
				-- ends), so a lease or a save of one waits for no more
				EXIT WHEN batches >= max_batches;
				refs := @extschema@.slime_settle_loader_refs(ldr.saves, cutoff, batch_size);
				EXIT WHEN refs IS NULL;
				SELECT * INTO g FROM @extschema@.slime_settle_gather(refs, batch_size);
				g_items := g_items + g.items;
				g_before := g_before + g.bytes_before;
				g_after := g_after + g.bytes_after;
				PERFORM @extschema@.slime_settle_warn(g.bad, g.first_bad);
				SELECT * INTO r FROM @extschema@.slime_settle_loader_files(ldr.saves, cutoff, batch_size);
				IF r.files > 0 THEN
					batches := batches + 1;
				END IF;
				f_items := f_items + r.files;
				f_bytes := f_bytes + r.bytes;
				f_after := f_after + r.bytes_after;
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

-- slime_settle_batches: as in 0.8.0; a call does one batch of either kind.
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
	nf bigint;
	r record;
BEGIN
	entries := 0; bytes_before := 0; bytes_after := 0; files := 0;
	LOOP
		PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
		n := 0;
		nf := 0;
		FOR r IN SELECT s.what, s.items, s.bytes_before AS b0, s.bytes_after AS b1
				 FROM @extschema@.slime_settle(older_than + (pg_catalog.now() - started), batch_size, 1, NULL) s
		LOOP
			IF r.what = 'store entries' THEN
				n := r.items;
				entries := entries + r.items;
				bytes_before := bytes_before + r.b0;
				bytes_after := bytes_after + r.b1;
			ELSIF r.what = 'loader files' THEN
				nf := r.items;
				files := files + r.items;
			END IF;
		END LOOP;
		COMMIT;
		PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
		-- a call does one batch: of store entries while any are left, then
		-- of a loader's files; one that settled neither is the last
		EXIT WHEN n = 0 AND nf = 0;
		IF pg_catalog.clock_timestamp() - reported >= progress THEN
			RAISE NOTICE 'slime_settle_batches: % store entries and % loader files settled so far', entries, files
				USING DETAIL = pg_catalog.format('%s bytes before, %s after, %s s.', bytes_before, bytes_after,
					pg_catalog.round(EXTRACT(epoch FROM pg_catalog.clock_timestamp() - started), 1));
			reported := pg_catalog.clock_timestamp();
		END IF;
	END LOOP;
END
$$;
