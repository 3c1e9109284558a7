-- slime 0.3.0 -> 0.4.0
\echo Use "ALTER EXTENSION slime UPDATE TO '0.4.0'" to load this file. \quit

-- ---- slime_gc() in two phases --------------------------------------------
-- 0.3.0's slime_gc() held SHARE ROW EXCLUSIVE on the store for its whole
-- scan, so every save waited for it (minutes at a million islands). Now:
--   1. It takes the advisory lock (1936484717, 1700751203) ('slim', 'e_gc')
--      for the rest of its transaction. slime_store() tries that lock
--      in share mode without waiting: when it gets it, no collection is
--      running and none can take a snapshot before the save commits; when
--      it does not, a collection is running and the save writes the hashes
--      its value relies on to slime_store_pins (in the save's transaction).
--   2. Scan, blocking no save: the entries no slime value in the database
--      refers to, under one snapshot taken after the lock, are candidates.
--   3. SHARE ROW EXCLUSIVE on the store (every save holds ROW EXCLUSIVE to
--      its commit, so this waits for saves in flight and holds new ones for
--      the delete only); delete the candidates no pin names; empty the pins.
-- A value committed before the scan's snapshot is seen by the scan; one
-- committed after it was saved while the collection ran, so it pinned what
-- it relies on, and its pins are visible once phase 3 holds its lock.
CREATE UNLOGGED TABLE slime_store_pins (hash bytea NOT NULL);
COMMENT ON TABLE slime_store_pins IS 'slime: chunks saves relied on while slime_gc() ran (emptied by slime_gc())';
REVOKE ALL ON slime_store_pins FROM PUBLIC;

CREATE OR REPLACE FUNCTION slime_gc(OUT removed_entries bigint, OUT removed_bytes bigint,
		OUT kept_entries bigint, OUT kept_bytes bigint, OUT columns_scanned integer)
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET row_security = off
AS $$
DECLARE
	col record;
	parts text[] := '{}';
	candidates bytea[];
	seen_entries bigint;
	seen_bytes bigint;
BEGIN
	IF current_setting('transaction_isolation') <> 'read committed' THEN
		RAISE EXCEPTION 'slime_gc() must run at the READ COMMITTED isolation level'
			USING ERRCODE = 'invalid_transaction_state',
				  HINT = 'Its scan must see every value committed before it took its lock.';
	END IF;
	-- 1. from here on, saves pin what they rely on
	PERFORM pg_catalog.pg_advisory_xact_lock(1936484717, 1700751203);
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
	-- 2. the scan, under one snapshot; saves go on
	EXECUTE format('WITH live AS MATERIALIZED (%s), '
				   'entry AS (SELECT s.hash, octet_length(s.data) AS n, '
				   'NOT EXISTS (SELECT 1 FROM live WHERE live.h = s.hash) AS dead '
				   'FROM @extschema@.slime_store s) '
				   'SELECT array_agg(hash) FILTER (WHERE dead), count(*), coalesce(sum(n), 0) FROM entry',
				   CASE WHEN columns_scanned = 0 THEN 'SELECT NULL::bytea AS h WHERE false'
						ELSE array_to_string(parts, ' UNION ALL ') END)
		INTO candidates, seen_entries, seen_bytes;
	-- 3. the delete, under a lock that waits for saves in flight
	LOCK TABLE @extschema@.slime_store IN SHARE ROW EXCLUSIVE MODE;
	WITH gone AS (
		DELETE FROM @extschema@.slime_store s USING unnest(candidates) c(h)
		WHERE s.hash = c.h
		  AND NOT EXISTS (SELECT 1 FROM @extschema@.slime_store_pins p WHERE p.hash = s.hash)
		RETURNING octet_length(s.data) AS n)
	SELECT count(*), coalesce(sum(n), 0) INTO removed_entries, removed_bytes FROM gone;
	DELETE FROM @extschema@.slime_store_pins;
	kept_entries := seen_entries - removed_entries;
	kept_bytes := seen_bytes - removed_bytes;
END
$$;
REVOKE ALL ON FUNCTION slime_gc() FROM PUBLIC;


-- ---- top-down maps (issue 14): slime_render_map, slime_render_map_colors ----
-- STABLE: a value in reference form reads its chunks from the store, as
-- slime_block_counts does; not STRICT, so that a NULL y_max means the top.
CREATE FUNCTION slime_render_map(world slime, y_max integer DEFAULT NULL, scale integer DEFAULT 1)
	RETURNS bytea AS 'MODULE_PATHNAME' LANGUAGE C STABLE PARALLEL SAFE;
CREATE FUNCTION slime_render_map_colors(world slime, y_max integer DEFAULT NULL)
	RETURNS bytea AS 'MODULE_PATHNAME' LANGUAGE C STABLE PARALLEL SAFE;


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
