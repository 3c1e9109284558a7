-- slime 0.4.0 -> 0.5.0
\echo Use "ALTER EXTENSION slime UPDATE TO '0.5.0'" to load this file. \quit

-- Each section below belongs to one piece of work; keep them apart so that
-- they merge cleanly. A fresh install runs 0.2.0 and every upgrade after it,
-- so what is defined here is also what a new database gets.

-- ==== security (issue #25) ==================================================

-- ==== game-server path (issue #21) ===========================================

-- ==== storage at rest (issue #22) ============================================
-- Cold data settles into the densest form (README, "Storage at rest";
-- doc/format.md, "Chunk store"). slime_store gains two columns: stored_at,
-- when the entry was written (entries never change content, so "untouched
-- for older_than" means "written at least older_than ago"; entries stored
-- before 0.5.0 count as written long ago), and settled, set once
-- slime_settle() has rewritten it.
ALTER TABLE slime_store ADD COLUMN stored_at timestamptz NOT NULL DEFAULT '-infinity';
ALTER TABLE slime_store ALTER COLUMN stored_at SET DEFAULT pg_catalog.now();
ALTER TABLE slime_store ADD COLUMN settled boolean NOT NULL DEFAULT false;
CREATE INDEX slime_store_unsettled ON slime_store (stored_at) WHERE NOT settled;

-- A store entry rewritten into its densest form (the dense entry form, or a
-- zstd-19 frame where that is smaller; zstd-19 is not tried when the dense
-- form is below 0.85x the entry), decoded and compared with its bytes before
-- it is returned; NULL when the entry does not match its key.
CREATE FUNCTION slime_store_entry_settle(hash bytea, data bytea) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Drop the cached files of up to batch worlds of the loader whose saves
-- table is saves: worlds with no running lease and no save newer than
-- cutoff. Runs as the loader tables' owner (src/settle.c).
CREATE FUNCTION slime_settle_loader_files(saves regclass, cutoff timestamptz, batch integer,
		OUT files bigint, OUT bytes bigint)
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT;
REVOKE ALL ON FUNCTION slime_settle_loader_files(regclass, timestamptz, integer) FROM PUBLIC;

-- Rewrite into the densest form what the extension owns and nobody wrote for
-- older_than: store entries (same bytes, same hash, smaller), then the cached
-- files of loader worlds with no running lease (a load writes the file from
-- the newest save's value instead). batch_size entries or worlds a
-- statement; at most max_batches store batches (NULL: all); a NOTICE every
-- progress while it runs. Idempotent.
-- SECURITY DEFINER because it rewrites slime_store, which only the
-- extension's owner may write (as slime_gc() deletes from it); EXECUTE is
-- revoked from PUBLIC. What it runs on loader tables runs as their owner
-- (slime_settle_loader_files). It holds the advisory lock of slime_gc() in
-- share mode: a collection and a settle wait for each other, and saves go on.
CREATE FUNCTION slime_settle(older_than interval DEFAULT '15 minutes', batch_size integer DEFAULT 100,
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
	n bigint;
	b0 bigint;
	b1 bigint;
	bad bytea[];
	e_items bigint := 0;
	e_before bigint := 0;
	e_after bigint := 0;
	f_items bigint := 0;
	f_bytes bigint := 0;
	ldr record;
	r record;
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
	PERFORM pg_catalog.pg_advisory_xact_lock_shared(1936484717, 1700751203);
	-- 1. store entries, oldest first
	LOOP
		EXIT WHEN batches >= max_batches;
		WITH batch AS MATERIALIZED (
			SELECT s.hash, s.data FROM @extschema@.slime_store s
			WHERE NOT s.settled AND s.stored_at <= cutoff
			ORDER BY s.stored_at LIMIT batch_size
			FOR NO KEY UPDATE SKIP LOCKED),
		dense AS MATERIALIZED (
			SELECT b.hash, pg_catalog.octet_length(b.data) AS before,
				   @extschema@.slime_store_entry_settle(b.hash, b.data) AS data
			FROM batch b),
		done AS (
			UPDATE @extschema@.slime_store s
			SET data = CASE WHEN pg_catalog.octet_length(d.data) < d.before THEN d.data ELSE s.data END,
				settled = true
			FROM dense d WHERE s.hash = d.hash
			RETURNING s.hash, d.before, pg_catalog.octet_length(s.data) AS after, d.data IS NULL AS bad)
		SELECT pg_catalog.count(*), COALESCE(pg_catalog.sum(done.before), 0), COALESCE(pg_catalog.sum(done.after), 0),
			   pg_catalog.array_agg(done.hash) FILTER (WHERE done.bad)
			INTO n, b0, b1, bad FROM done;
		EXIT WHEN n = 0;
		batches := batches + 1;
		e_items := e_items + n;
		e_before := e_before + b0;
		e_after := e_after + b1;
		IF bad IS NOT NULL THEN
			RAISE WARNING 'slime_settle: % store entries do not match their keys and were left as they are', pg_catalog.cardinality(bad)
				USING DETAIL = pg_catalog.format('First: %s.', pg_catalog.encode(bad[1], 'hex')),
					  HINT = 'SELECT * FROM slime_store_verify() lists what is wrong with them.';
		END IF;
		IF pg_catalog.clock_timestamp() - reported >= progress THEN
			RAISE NOTICE 'slime_settle: % store entries settled so far', e_items
				USING DETAIL = pg_catalog.format('%s bytes before, %s after, %s s.', e_before, e_after,
					pg_catalog.round(EXTRACT(epoch FROM pg_catalog.clock_timestamp() - started), 1));
			reported := pg_catalog.clock_timestamp();
		END IF;
	END LOOP;
	-- 2. the cached files of cold loader worlds
	FOR ldr IN
		SELECT t.tgrelid::regclass AS saves FROM pg_catalog.pg_trigger t
		WHERE t.tgfoid = pg_catalog.to_regprocedure('@extschema@.slime_lease_fence()')
		ORDER BY t.tgrelid
	LOOP
		LOOP
			SELECT * INTO r FROM @extschema@.slime_settle_loader_files(ldr.saves, cutoff, batch_size);
			f_items := f_items + r.files;
			f_bytes := f_bytes + r.bytes;
			EXIT WHEN r.files < batch_size;
		END LOOP;
	END LOOP;
	IF pg_catalog.clock_timestamp() - started >= progress THEN
		RAISE NOTICE 'slime_settle: done: % store entries, % loader files', e_items, f_items
			USING DETAIL = pg_catalog.format('Store entries %s bytes before, %s after; loader files %s bytes; %s s.',
				e_before, e_after, f_bytes,
				pg_catalog.round(EXTRACT(epoch FROM pg_catalog.clock_timestamp() - started), 1));
	END IF;
	RETURN QUERY VALUES ('store entries', e_items, e_before, e_after),
						('loader files', f_items, f_bytes, 0::bigint);
END
$$;
REVOKE ALL ON FUNCTION slime_settle(interval, integer, integer, interval) FROM PUBLIC;

-- slime_settle() in batches that commit one by one: what is done stays done
-- when the run is cancelled, and no lock outlives its batch. A procedure
-- (CALL) that commits cannot carry SET search_path, so it pins it for each
-- of its transactions with set_config(..., is_local => true) as its first
-- statement, and qualifies everything. It runs as its caller, who needs
-- EXECUTE on slime_settle(); not PUBLIC either. The cutoff is fixed when it
-- starts, so that saves going on meanwhile cannot keep it running.
CREATE PROCEDURE slime_settle_batches(older_than interval DEFAULT '15 minutes', batch_size integer DEFAULT 100,
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
			ELSE
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
REVOKE ALL ON PROCEDURE slime_settle_batches(interval, integer, interval, bigint, bigint, bigint, bigint) FROM PUBLIC;
