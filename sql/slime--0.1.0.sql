-- slime 0.1.0: the slime type, region import/export, accessors.
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
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION slime_export_external(world slime, rx integer, rz integer, kind text DEFAULT 'region')
	RETURNS TABLE(x integer, z integer, data bytea)
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
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
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION slime_nbt_to_json(nbt bytea) RETURNS jsonb
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- chunk-level edits (a save of only the chunks that changed)
CREATE FUNCTION slime_put_chunk(world slime, x integer, z integer, nbt bytea, kind text DEFAULT 'region')
	RETURNS slime
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION slime_delete_chunk(world slime, x integer, z integer) RETURNS slime
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- rewrite at another zstd level (e.g. 19 for cold data); content and hash unchanged
CREATE FUNCTION slime_recompress(world slime, level integer DEFAULT NULL) RETURNS slime
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- contents
CREATE FUNCTION slime_block_entities(world slime)
	RETURNS TABLE(x integer, y integer, z integer, id text, nbt jsonb)
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION slime_block_entities(world slime, chunk_x integer, chunk_z integer)
	RETURNS TABLE(x integer, y integer, z integer, id text, nbt jsonb)
	AS 'MODULE_PATHNAME', 'slime_chunk_block_entities' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION slime_entities(world slime)
	RETURNS TABLE(id text, uuid uuid, x float8, y float8, z float8, nbt jsonb)
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION slime_chunk_json(world slime, x integer, z integer, kind text DEFAULT 'region')
	RETURNS jsonb
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION slime_json_to_nbt(json jsonb) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- blocks and biomes
CREATE FUNCTION slime_block(world slime, x integer, y integer, z integer) RETURNS text
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION slime_block_counts(world slime) RETURNS TABLE(block text, count bigint)
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION slime_biome_counts(world slime) RETURNS TABLE(biome text, count bigint)
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- totals across worlds; partial states combine, so parallel query splits the work
CREATE FUNCTION slime_block_totals_transfn(internal, slime) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION slime_biome_totals_transfn(internal, slime) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
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
