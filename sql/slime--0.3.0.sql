-- slime 0.3.0: the slime type (value format v3 written), region import/export, accessors, the chunk store.
\echo Use "CREATE EXTENSION slime" to load this file. \quit

CREATE TYPE slime;

CREATE FUNCTION slime_in(cstring) RETURNS slime
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION slime_out(slime) RETURNS cstring
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION slime_recv(internal) RETURNS slime
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION slime_send(slime) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE slime (
	INPUT = slime_in,
	OUTPUT = slime_out,
	RECEIVE = slime_recv,
	SEND = slime_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = int4,
	STORAGE = external
);

COMMENT ON TYPE slime IS 'one dimension of a Minecraft world: chunks, entities, POI and world data, zstd-compressed';

-- casts: the value bytes, checked on the way in
CREATE FUNCTION slime(bytea) RETURNS slime
	AS 'MODULE_PATHNAME', 'slime_from_bytea' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION slime_bytes(slime) RETURNS bytea
	AS 'MODULE_PATHNAME', 'slime_to_bytea' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (bytea AS slime) WITH FUNCTION slime(bytea);
CREATE CAST (slime AS bytea) WITH FUNCTION slime_bytes(slime);

-- equality by content hash
CREATE FUNCTION slime_eq(slime, slime) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION slime_ne(slime, slime) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION slime_hash(slime) RETURNS integer
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION slime_content_hash(slime) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR = (
	LEFTARG = slime, RIGHTARG = slime, PROCEDURE = slime_eq,
	COMMUTATOR = '=', NEGATOR = '<>', RESTRICT = eqsel, JOIN = eqjoinsel, HASHES
);
CREATE OPERATOR <> (
	LEFTARG = slime, RIGHTARG = slime, PROCEDURE = slime_ne,
	COMMUTATOR = '<>', NEGATOR = '=', RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR CLASS slime_hash_ops DEFAULT FOR TYPE slime USING hash AS
	OPERATOR 1 = (slime, slime),
	FUNCTION 1 slime_hash(slime);

-- external chunk files (c.<x>.<z>.mcc) handed to the importer
CREATE TYPE slime_mcc AS (kind text, x integer, z integer, data bytea);

CREATE FUNCTION slime_mcc(x integer, z integer, data bytea, kind text DEFAULT 'region')
	RETURNS slime_mcc
	AS $$ SELECT ROW(kind, x, z, data)::slime_mcc $$
	LANGUAGE SQL IMMUTABLE STRICT PARALLEL SAFE;

-- import
CREATE FUNCTION slime_import_region(region bytea, rx integer, rz integer,
		entities bytea DEFAULT NULL, poi bytea DEFAULT NULL,
		strict boolean DEFAULT true, external slime_mcc[] DEFAULT NULL)
	RETURNS slime
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION slime_merge(VARIADIC worlds slime[]) RETURNS slime
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION slime_agg_transfn(internal, slime) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION slime_agg_finalfn(internal) RETURNS slime
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE slime_agg(slime) (
	SFUNC = slime_agg_transfn,
	STYPE = internal,
	FINALFUNC = slime_agg_finalfn,
	PARALLEL = SAFE
);

CREATE FUNCTION slime_with_level(world slime, level_dat bytea) RETURNS slime
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION slime_level(world slime) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- export
CREATE FUNCTION slime_export_region(world slime, rx integer, rz integer, kind text DEFAULT 'region')
	RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION slime_export_external(world slime, rx integer, rz integer, kind text DEFAULT 'region')
	RETURNS TABLE(x integer, z integer, data bytea)
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION slime_regions(world slime)
	RETURNS TABLE(rx integer, rz integer, region_chunks integer, entity_chunks integer, poi_chunks integer)
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- accessors
CREATE FUNCTION slime_info(world slime) RETURNS jsonb
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION slime_chunks(world slime)
	RETURNS TABLE(x integer, z integer, data_version integer, raw_bytes integer, stored_bytes integer, hash bytea)
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION slime_chunk_nbt(world slime, x integer, z integer, kind text DEFAULT 'region')
	RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION slime_nbt_to_json(nbt bytea) RETURNS jsonb
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- chunk-level edits (a save of only the chunks that changed)
CREATE FUNCTION slime_put_chunk(world slime, x integer, z integer, nbt bytea, kind text DEFAULT 'region')
	RETURNS slime
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE PARALLEL SAFE;
CREATE FUNCTION slime_delete_chunk(world slime, x integer, z integer) RETURNS slime
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- rewrite at another zstd level (e.g. 19 for cold data); content and hash unchanged
CREATE FUNCTION slime_recompress(world slime, level integer DEFAULT NULL) RETURNS slime
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- contents
CREATE FUNCTION slime_block_entities(world slime)
	RETURNS TABLE(x integer, y integer, z integer, id text, nbt jsonb)
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION slime_block_entities(world slime, chunk_x integer, chunk_z integer)
	RETURNS TABLE(x integer, y integer, z integer, id text, nbt jsonb)
	AS 'MODULE_PATHNAME', 'slime_chunk_block_entities' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION slime_entities(world slime)
	RETURNS TABLE(id text, uuid uuid, x float8, y float8, z float8, nbt jsonb)
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION slime_chunk_json(world slime, x integer, z integer, kind text DEFAULT 'region')
	RETURNS jsonb
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION slime_json_to_nbt(json jsonb) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- blocks and biomes
CREATE FUNCTION slime_block(world slime, x integer, y integer, z integer) RETURNS text
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION slime_block_counts(world slime) RETURNS TABLE(block text, count bigint)
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION slime_biome_counts(world slime) RETURNS TABLE(biome text, count bigint)
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;

-- totals across worlds; partial states combine, so parallel query splits the work
CREATE FUNCTION slime_block_totals_transfn(internal, slime) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE PARALLEL SAFE;
CREATE FUNCTION slime_biome_totals_transfn(internal, slime) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE PARALLEL SAFE;
CREATE FUNCTION slime_totals_combinefn(internal, internal) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION slime_totals_serialfn(internal) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION slime_totals_deserialfn(bytea, internal) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION slime_totals_finalfn(internal) RETURNS jsonb
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE slime_block_totals(slime) (
	SFUNC = slime_block_totals_transfn, STYPE = internal,
	COMBINEFUNC = slime_totals_combinefn, SERIALFUNC = slime_totals_serialfn,
	DESERIALFUNC = slime_totals_deserialfn, FINALFUNC = slime_totals_finalfn,
	PARALLEL = SAFE
);
CREATE AGGREGATE slime_biome_totals(slime) (
	SFUNC = slime_biome_totals_transfn, STYPE = internal,
	COMBINEFUNC = slime_totals_combinefn, SERIALFUNC = slime_totals_serialfn,
	DESERIALFUNC = slime_totals_deserialfn, FINALFUNC = slime_totals_finalfn,
	PARALLEL = SAFE
);

-- the full check on demand (input runs it unless slime.input_check = structure)
CREATE FUNCTION slime_verify(world slime) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

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
