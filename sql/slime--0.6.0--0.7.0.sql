-- slime 0.6.0 -> 0.7.0
\echo Use "ALTER EXTENSION slime UPDATE TO '0.7.0'" to load this file. \quit

-- Each section below belongs to one piece of work; keep them apart so that
-- they merge cleanly. A fresh install runs 0.2.0 and every upgrade after it,
-- so what is defined here is also what a new database gets. Every function
-- that is not C pins search_path = pg_catalog, pg_temp and qualifies what it
-- calls.

-- ==== game-server path (issue #21) ==========================================

-- ==== storage at rest (issue #22) ===========================================
-- Settled store entries live in packs (doc/format.md, "Chunk store"): one
-- row of slime_store_packs holds many entries' documents in one frame
-- (the block codec, or zstd-19 with slime.settle_codec = fast), and a
-- packed store row keeps its hash, its pack's id and u8 0x02 with its index
-- in the pack as data. Entries settled before 0.7.0 keep their own forms.
CREATE SEQUENCE slime_store_pack_ids;
CREATE TABLE slime_store_packs (
	id bigint PRIMARY KEY DEFAULT pg_catalog.nextval('slime_store_pack_ids'),
	data bytea NOT NULL
);
ALTER SEQUENCE slime_store_pack_ids OWNED BY slime_store_packs.id;
ALTER TABLE slime_store_packs ALTER COLUMN data SET STORAGE EXTERNAL;
COMMENT ON TABLE slime_store_packs IS 'slime: settled chunk store entries, many to a frame (slime_settle)';
REVOKE ALL ON slime_store_packs FROM PUBLIC;
REVOKE ALL ON SEQUENCE slime_store_pack_ids FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('slime_store_packs', '');
SELECT pg_catalog.pg_extension_config_dump('slime_store_pack_ids', '');
ALTER TABLE slime_store ADD COLUMN pack bigint;

-- The database's owner reads the packs as it reads the store (0.6.0), so
-- that its whole-database pg_dump does not fail on them.
DO $$
DECLARE
	dba name := (SELECT pg_catalog.pg_get_userbyid(d.datdba) FROM pg_catalog.pg_database d
				 WHERE d.datname OPERATOR(pg_catalog.=) pg_catalog.current_database());
BEGIN
	IF NOT (SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) dba) THEN
		EXECUTE pg_catalog.format('GRANT SELECT ON @extschema@.slime_store_packs, @extschema@.slime_store_pack_ids TO %I', dba);
	END IF;
END
$$;

-- A pack is freed with the last store row that points into it: whatever
-- deletes store rows (slime_gc()'s phase 3) deletes, in the same
-- statement's trigger, every pack no remaining row names (one pass over the
-- store, as the collection's own scan). Packs are only made by
-- slime_settle(), whose new packs come with their rows in one transaction,
-- and only new packs gain rows, so a pack found empty stays empty. This
-- also frees a pack two settles repacking its entries at once each left
-- to the other (neither saw the other's rows go).
CREATE FUNCTION slime_store_free_packs() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
	DELETE FROM @extschema@.slime_store_packs p
	WHERE NOT EXISTS (SELECT 1 FROM @extschema@.slime_store s WHERE s.pack OPERATOR(pg_catalog.=) p.id);
	RETURN NULL;
END
$$;
REVOKE ALL ON FUNCTION slime_store_free_packs() FROM PUBLIC;
CREATE TRIGGER slime_store_free_packs AFTER DELETE ON slime_store
	FOR EACH STATEMENT EXECUTE FUNCTION slime_store_free_packs();

-- One batch of slime_settle(): up to batch unsettled entries stored by
-- cutoff, checked against their keys, packed into one new pack (src/pack.c).
CREATE FUNCTION slime_settle_pack(cutoff timestamptz, batch integer,
		OUT items bigint, OUT bytes_before bigint, OUT bytes_after bigint,
		OUT bad bigint, OUT first_bad bytea)
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT;
REVOKE ALL ON FUNCTION slime_settle_pack(timestamptz, integer) FROM PUBLIC;

-- A store entry as a reader gets it: a packed one read out of its pack, in
-- the raw entry form (u8 0x00, its canonical bytes), which slime_store_add
-- takes back.
CREATE FUNCTION slime_store_entry_read(hash bytea) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT;
REVOKE ALL ON FUNCTION slime_store_entry_read(bytea) FROM PUBLIC;

CREATE OR REPLACE FUNCTION slime_store_verify(OUT hash bytea, OUT problem text) RETURNS SETOF record
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
	SELECT s.hash, p.problem
	FROM @extschema@.slime_store s,
		 LATERAL (SELECT @extschema@.slime_store_entry_check(s.hash,
			CASE WHEN s.pack IS NULL THEN s.data
				 ELSE COALESCE(@extschema@.slime_store_entry_read(s.hash), '\x'::bytea) END) AS problem) p
	WHERE p.problem IS NOT NULL
$$;

CREATE OR REPLACE FUNCTION slime_store_entries(world slime, OUT hash bytea, OUT data bytea) RETURNS SETOF record
LANGUAGE sql STABLE STRICT SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
	SELECT s.hash, CASE WHEN s.pack IS NULL THEN s.data ELSE @extschema@.slime_store_entry_read(s.hash) END
	FROM @extschema@.slime_store s
	WHERE s.hash OPERATOR(pg_catalog.=) ANY (@extschema@.slime_refs(world))
$$;

-- Cold loader files: slime_settle() no longer drops the cached file of a
-- cold world but keeps its cold form (magic "SLCF", doc/format.md "The
-- loader's cold files"): the file's blocks as one zstd-19 frame against the
-- newest save's chunks, a few KB; a load gives the version-13 file back.
CREATE FUNCTION slime_loader_file_cold(file bytea, world slime) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
DROP FUNCTION slime_settle_loader_files(regclass, timestamptz, integer);
CREATE FUNCTION slime_settle_loader_files(saves regclass, cutoff timestamptz, batch integer,
		OUT files bigint, OUT bytes bigint, OUT bytes_after bigint)
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT;
REVOKE ALL ON FUNCTION slime_settle_loader_files(regclass, timestamptz, integer) FROM PUBLIC;

-- slime_settle(): as in 0.5.0 (sql/slime--0.4.0--0.5.0.sql), but a batch of
-- store entries becomes one pack (slime_settle_pack) instead of each entry
-- being coded alone, and cold loader files keep their cold form.
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
	PERFORM @extschema@.slime_gc_lock_shared();
	-- 1. store entries, oldest first, a pack a batch
	LOOP
		EXIT WHEN batches >= max_batches;
		SELECT * INTO r FROM @extschema@.slime_settle_pack(cutoff, batch_size);
		EXIT WHEN r.items = 0;
		batches := batches + 1;
		e_items := e_items + r.items;
		e_before := e_before + r.bytes_before;
		e_after := e_after + r.bytes_after;
		IF r.bad > 0 THEN
			RAISE WARNING 'slime_settle: % store entries do not match their keys and were left as they are', r.bad
				USING DETAIL = pg_catalog.format('First: %s.', pg_catalog.encode(r.first_bad, 'hex')),
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
			f_after := f_after + r.bytes_after;
			EXIT WHEN r.files < batch_size;
		END LOOP;
	END LOOP;
	IF pg_catalog.clock_timestamp() - started >= progress THEN
		RAISE NOTICE 'slime_settle: done: % store entries, % loader files', e_items, f_items
			USING DETAIL = pg_catalog.format('Store entries %s bytes before, %s after; loader files %s bytes before, %s after; %s s.',
				e_before, e_after, f_bytes, f_after,
				pg_catalog.round(EXTRACT(epoch FROM pg_catalog.clock_timestamp() - started), 1));
	END IF;
	RETURN QUERY VALUES ('store entries', e_items, e_before, e_after),
						('loader files', f_items, f_bytes, f_after);
END
$$;

