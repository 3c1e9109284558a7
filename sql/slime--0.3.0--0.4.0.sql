-- slime 0.3.0 -> 0.4.0
\echo Use "ALTER EXTENSION slime UPDATE TO '0.4.0'" to load this file. \quit


-- ---- sharding (issue #13): analytics that postgres_fdw pushes down, and
-- logical replication of the chunk store between nodes --------------------

-- Block entities counted by id across worlds: {"minecraft:chest": n, ...}.
-- An aggregate, so postgres_fdw runs it on the shards (GROUP BY the
-- distribution column, or per foreign partition); parallel like the others.
CREATE FUNCTION slime_block_entity_totals_transfn(internal, slime) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE PARALLEL SAFE;
CREATE AGGREGATE slime_block_entity_totals(slime) (
	SFUNC = slime_block_entity_totals_transfn, STYPE = internal,
	COMBINEFUNC = slime_totals_combinefn, SERIALFUNC = slime_totals_serialfn,
	DESERIALFUNC = slime_totals_deserialfn, FINALFUNC = slime_totals_finalfn,
	PARALLEL = SAFE
);

-- Logical replication of slime_store into a node that stores chunks of its
-- own: a replicated entry the node already holds (same hash, so the same
-- bytes) is skipped instead of stopping the subscription on a duplicate key.
-- ENABLE REPLICA: it fires only in replication workers (and sessions with
-- session_replication_role = replica), never for ordinary saves.
CREATE FUNCTION slime_store_replica_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	IF EXISTS (SELECT 1 FROM @extschema@.slime_store s WHERE s.hash = NEW.hash) THEN
		RETURN NULL;
	END IF;
	RETURN NEW;
END $$;
CREATE TRIGGER slime_store_replica_insert BEFORE INSERT ON slime_store
	FOR EACH ROW EXECUTE FUNCTION slime_store_replica_insert();
ALTER TABLE slime_store ENABLE REPLICA TRIGGER slime_store_replica_insert;
