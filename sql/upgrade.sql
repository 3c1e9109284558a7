-- Upgrading from 0.1.0: values written before stay readable, the store
-- arrives, and the functions that may read it become STABLE.
CREATE DATABASE regress_slime_upgrade;
\c regress_slime_upgrade
CREATE EXTENSION slime VERSION '0.1.0';
CREATE TABLE t (w slime);
INSERT INTO t SELECT slime_put_chunk(NULL, 0, 0, '\x0a0000030001610000002a00'::bytea);
ALTER EXTENSION slime UPDATE TO '0.2.0';
SELECT extversion FROM pg_extension WHERE extname = 'slime';
SELECT slime_chunk_json(w, 0, 0) FROM t;
CREATE TRIGGER t_store BEFORE INSERT ON t FOR EACH ROW EXECUTE FUNCTION slime_store_trigger();
INSERT INTO t SELECT w FROM t;
SELECT slime_info(w) ->> 'store_refs' AS refs, count(*) OVER (PARTITION BY slime_content_hash(w)) AS equal_values FROM t ORDER BY 1;
SELECT proname, provolatile FROM pg_proc
WHERE proname IN ('slime_chunk_json', 'slime_info', 'slime_block_counts', 'slime_resolve') ORDER BY proname;
-- 0.3.0: new values are written as format v3 (store.sql reads a v1 literal;
-- the unit tests read v2), and slime_recompress rewrites any value as v3, equal to it
ALTER EXTENSION slime UPDATE TO '0.3.0';
SELECT extversion FROM pg_extension WHERE extname = 'slime';
SELECT slime_info(w) ->> 'format_version' AS version, slime_chunk_json(w, 0, 0) FROM t ORDER BY 1;
SELECT slime_info(slime_recompress(w)) ->> 'format_version' AS rewritten,
       slime_recompress(w) = w AS equal, slime_verify(slime_recompress(w)) AS ok FROM t;
ALTER EXTENSION slime UPDATE TO '0.4.0';
SELECT extversion FROM pg_extension WHERE extname = 'slime';
ALTER EXTENSION slime UPDATE TO '0.5.0';
SELECT extversion FROM pg_extension WHERE extname = 'slime';
-- a loader with a lease running across the update to 0.6.0
SELECT slime_loader_create('up')::text AS loader;
SELECT slime_lease_acquire('up', 'isle', 'server-1', '1 hour') AS token;
ALTER EXTENSION slime UPDATE TO '0.6.0';
SELECT extversion FROM pg_extension WHERE extname = 'slime';
-- 0.6.0 binds leases to roles: the worlds table gains leased_by; the lease
-- taken before has none, so its token is refused until the same holder
-- acquires the world again (once; then only that role may)
SELECT attname FROM pg_attribute WHERE attrelid = 'up_worlds'::regclass AND attnum > 0 ORDER BY attnum;
SELECT slime_lease_renew('up', 'isle', 1, '1 hour') AS old_token_renews;
SELECT slime_lease_acquire('up', 'isle', 'server-2', '1 hour') AS other_holder;
SELECT slime_lease_acquire('up', 'isle', 'server-1', '1 hour') AS token;
SELECT slime_lease_renew('up', 'isle', 2, '1 hour') AS renews, leased_by = current_user AS bound FROM up_worlds;
-- between make install and ALTER EXTENSION UPDATE (issue #33): the entry
-- points of this library that rely on its own release's SQL objects say so
-- (a scheduled slime_settle() sits in exactly this window); leases (above)
-- and values still work
\set SHOW_CONTEXT never
SELECT * FROM slime_settle(older_than => '0');
\set SHOW_CONTEXT errors
SELECT slime_chunk_json(w, 0, 0) FROM t LIMIT 1;
ALTER EXTENSION slime UPDATE TO '0.7.0';
SELECT extversion FROM pg_extension WHERE extname = 'slime';
ALTER EXTENSION slime UPDATE TO '0.8.0';
SELECT extversion FROM pg_extension WHERE extname = 'slime';
ALTER EXTENSION slime UPDATE TO '0.9.0';
SELECT extversion FROM pg_extension WHERE extname = 'slime';
ALTER EXTENSION slime UPDATE TO '0.10.0';
SELECT extversion FROM pg_extension WHERE extname = 'slime';
ALTER EXTENSION slime UPDATE TO '0.11.0';
SELECT extversion FROM pg_extension WHERE extname = 'slime';
ALTER EXTENSION slime UPDATE TO '0.12.0';
SELECT extversion FROM pg_extension WHERE extname = 'slime';
ALTER EXTENSION slime UPDATE TO '0.13.0';
SELECT extversion FROM pg_extension WHERE extname = 'slime';
-- 0.10.0 tracks the tables that have the store trigger (the loader's saves
-- table among them); its first slime_gc() finds no counts and reads every
-- table once (removing nothing they refer to), the next reads no value
SELECT rel, tracked FROM slime_tracking() ORDER BY rel::text;
SELECT removed_entries, kept_entries, values_read > 0 AS read_every_table FROM slime_gc();
SELECT removed_entries, values_read FROM slime_gc();
SELECT count(*) FILTER (WHERE slime_verify_refs(w)) AS sound, count(*) AS rows FROM t;
DROP TABLE up, up_worlds;
-- every function that is not C pins its search_path (README, "Security"):
-- no rows
SELECT p.oid::regprocedure AS unpinned FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'slime'
WHERE p.prolang NOT IN (SELECT oid FROM pg_language WHERE lanname IN ('c', 'internal'))
  AND NOT coalesce('search_path=pg_catalog, pg_temp' = ANY (p.proconfig), false)
  -- a procedure that commits cannot carry SET: it pins with set_config in each transaction
  AND NOT (p.prokind = 'p' AND p.prosrc LIKE '%PERFORM pg_catalog.set_config(''search_path'', ''pg_catalog, pg_temp'', true);%');
-- the upgraded extension has the same objects as a fresh install
SELECT count(*) AS objects FROM pg_depend d JOIN pg_extension e ON d.refobjid = e.oid
WHERE e.extname = 'slime' AND d.deptype = 'e';
\c contrib_regression
DROP DATABASE regress_slime_upgrade;
SELECT count(*) AS objects FROM pg_depend d JOIN pg_extension e ON d.refobjid = e.oid
WHERE e.extname = 'slime' AND d.deptype = 'e';
