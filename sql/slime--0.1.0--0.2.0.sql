-- slime 0.1.0 -> 0.2.0: value format v2 (chunk hashes in the directory, store
-- references), the chunk store. Functions that may read the store become STABLE.
\echo Use "ALTER EXTENSION slime UPDATE TO '0.2.0'" to load this file. \quit

ALTER FUNCTION slime_chunk_nbt(slime, integer, integer, text) STABLE;
ALTER FUNCTION slime_put_chunk(slime, integer, integer, bytea, text) STABLE;
ALTER FUNCTION slime_export_region(slime, integer, integer, text) STABLE;
ALTER FUNCTION slime_export_external(slime, integer, integer, text) STABLE;
ALTER FUNCTION slime_block_entities(slime) STABLE;
ALTER FUNCTION slime_block_entities(slime, integer, integer) STABLE;
ALTER FUNCTION slime_entities(slime) STABLE;
ALTER FUNCTION slime_chunk_json(slime, integer, integer, text) STABLE;
ALTER FUNCTION slime_block(slime, integer, integer, integer) STABLE;
ALTER FUNCTION slime_block_counts(slime) STABLE;
ALTER FUNCTION slime_biome_counts(slime) STABLE;
ALTER FUNCTION slime_block_totals_transfn(internal, slime) STABLE;
ALTER FUNCTION slime_biome_totals_transfn(internal, slime) STABLE;

-- the chunk store: chunks kept once, keyed by the SHA-256 of their bytes
-- (doc/format.md, "Chunk store"; README, "Deduplicated storage")
CREATE TABLE slime_store (
	hash bytea PRIMARY KEY CHECK (octet_length(hash) = 32),
	data bytea NOT NULL
);
ALTER TABLE slime_store ALTER COLUMN data SET STORAGE EXTERNAL;
COMMENT ON TABLE slime_store IS 'slime chunk store: one zstd-compressed chunk per SHA-256 of its bytes';
REVOKE ALL ON slime_store FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('slime_store', '');

CREATE FUNCTION slime_refs(world slime) RETURNS bytea[]
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION slime_resolve(world slime) RETURNS slime
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION slime_store_entry_check(hash bytea, data bytea) RETURNS text
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION slime_type_holds(typ oid) RETURNS integer
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;

-- Put a value's chunks in the store and return its reference form; a value
-- that already refers to the store is checked (every chunk it refers to must
-- be there). Runs as the extension's owner; src/store.c explains the locking
-- that keeps slime_gc() from collecting a chunk being saved.
CREATE FUNCTION slime_store(world slime) RETURNS slime
	AS 'MODULE_PATHNAME' LANGUAGE C STRICT SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp;

CREATE FUNCTION slime_store_trigger() RETURNS trigger
	AS 'MODULE_PATHNAME' LANGUAGE C;

-- Remove the store entries no slime value in the database refers to. It
-- scans every slime and slime[] column (tables, materialized views, this
-- session's temporary tables) while holding SHARE ROW EXCLUSIVE on the
-- store, so saves wait for it and it waits for saves in progress.
CREATE FUNCTION slime_gc(OUT removed_entries bigint, OUT removed_bytes bigint,
		OUT kept_entries bigint, OUT kept_bytes bigint, OUT columns_scanned integer)
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET row_security = off
AS $$
DECLARE
	col record;
	parts text[] := '{}';
BEGIN
	IF current_setting('transaction_isolation') <> 'read committed' THEN
		RAISE EXCEPTION 'slime_gc() must run at the READ COMMITTED isolation level'
			USING ERRCODE = 'invalid_transaction_state',
				  HINT = 'Its scan must see every value committed before it took the store lock.';
	END IF;
	LOCK TABLE @extschema@.slime_store IN SHARE ROW EXCLUSIVE MODE;
	FOR col IN
		SELECT c.oid::regclass AS rel, a.attname, @extschema@.slime_type_holds(a.atttypid) AS kind,
			   c.relpersistence = 't' AND c.relnamespace <> pg_my_temp_schema() AS other_temp,
			   c.relkind = 'm' AND NOT c.relispopulated AS unpopulated
		FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
		WHERE c.relkind IN ('r', 'm') AND a.attnum > 0 AND NOT a.attisdropped
		  AND @extschema@.slime_type_holds(a.atttypid) > 0
		ORDER BY c.oid, a.attnum
	LOOP
		IF col.kind = 3 THEN
			RAISE EXCEPTION 'column %.% holds slime values inside a composite type, which slime_gc() cannot scan',
				col.rel, col.attname USING ERRCODE = 'feature_not_supported';
		END IF;
		IF col.other_temp THEN
			RAISE EXCEPTION 'temporary table % of another session has a slime column, which slime_gc() cannot scan',
				col.rel USING ERRCODE = 'object_in_use';
		END IF;
		CONTINUE WHEN col.unpopulated;
		parts := parts || CASE col.kind
			WHEN 1 THEN format('SELECT r.h FROM ONLY %s t, unnest(@extschema@.slime_refs(t.%I)) r(h)',
							   col.rel, col.attname)
			ELSE format('SELECT r.h FROM ONLY %s t, unnest(t.%I) v(w), unnest(@extschema@.slime_refs(v.w)) r(h)',
						col.rel, col.attname) END;
	END LOOP;
	columns_scanned := cardinality(parts);
	EXECUTE format('WITH live AS MATERIALIZED (%s), '
				   'gone AS (DELETE FROM @extschema@.slime_store s '
				   'WHERE NOT EXISTS (SELECT 1 FROM live WHERE live.h = s.hash) '
				   'RETURNING octet_length(s.data) AS n) '
				   'SELECT count(*), coalesce(sum(n), 0) FROM gone',
				   CASE WHEN columns_scanned = 0 THEN 'SELECT NULL::bytea AS h WHERE false'
						ELSE array_to_string(parts, ' UNION ALL ') END)
		INTO removed_entries, removed_bytes;
	SELECT count(*), coalesce(sum(octet_length(s.data)), 0) INTO kept_entries, kept_bytes
		FROM @extschema@.slime_store s;
END
$$;
REVOKE ALL ON FUNCTION slime_gc() FROM PUBLIC;

-- Every store entry whose bytes do not match its key, with what is wrong.
CREATE FUNCTION slime_store_verify(OUT hash bytea, OUT problem text) RETURNS SETOF record
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
	SELECT s.hash, p.problem
	FROM @extschema@.slime_store s,
		 LATERAL (SELECT @extschema@.slime_store_entry_check(s.hash, s.data) AS problem) p
	WHERE p.problem IS NOT NULL
$$;
REVOKE ALL ON FUNCTION slime_store_verify() FROM PUBLIC;

-- Slime files (Slime Region Format of Hypixel, SWM and AdvancedSlimePaper):
-- every version read, version 13 written (doc/format.md, "Slime files").
CREATE FUNCTION slime_from_slimefile(file bytea) RETURNS slime
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION slime_to_slimefile(world slime, version integer DEFAULT 13) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;

-- Box snapshots: a box of a world as a Sponge schematic (v3, or v2) and a
-- schematic (Sponge v1-v3, MCEdit) pasted into a world (doc/format.md, "Schematics").
CREATE FUNCTION slime_extract(world slime, x1 integer, y1 integer, z1 integer,
							  x2 integer, y2 integer, z2 integer, version integer DEFAULT 3)
	RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION slime_paste(world slime, schematic bytea, x integer, y integer, z integer)
	RETURNS slime
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
