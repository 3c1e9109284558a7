-- Sharding: slime values and functions through postgres_fdw (a loopback
-- server stands in for a shard node), the analytics it pushes down, and the
-- chunk store under logical replication. test/shard.sh runs the real thing
-- on separate nodes.
CREATE EXTENSION postgres_fdw;
DO $$ BEGIN
  EXECUTE format('CREATE SERVER shard FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host %L, port %L, dbname %L, '
                 'extensions %L, async_capable %L)', current_setting('unix_socket_directories'),
                 current_setting('port'), current_database(), 'slime', 'true');
END $$;
CREATE USER MAPPING FOR CURRENT_USER SERVER shard;

-- the shard's side: a partition with the chunk store trigger, and a view
-- that loads its values self-contained
CREATE SCHEMA shard_node;
CREATE TABLE shard_node.plots_0 (id int PRIMARY KEY, world slime);
CREATE TABLE shard_node.plots_1 (id int PRIMARY KEY, world slime);
CREATE TRIGGER plots_0_store BEFORE INSERT OR UPDATE ON shard_node.plots_0
    FOR EACH ROW EXECUTE FUNCTION slime_store_trigger();
CREATE TRIGGER plots_1_store BEFORE INSERT OR UPDATE ON shard_node.plots_1
    FOR EACH ROW EXECUTE FUNCTION slime_store_trigger();
CREATE VIEW shard_node.plots_0_load AS SELECT id, slime_resolve(world) AS world FROM shard_node.plots_0;
CREATE VIEW shard_node.plots_1_load AS SELECT id, slime_resolve(world) AS world FROM shard_node.plots_1;

-- the coordinator's side: hash partitions on the distribution column
CREATE TABLE sharded (id int NOT NULL, world slime) PARTITION BY HASH (id);
CREATE FOREIGN TABLE sharded_0 PARTITION OF sharded FOR VALUES WITH (MODULUS 2, REMAINDER 0)
    SERVER shard OPTIONS (schema_name 'shard_node', table_name 'plots_0');
CREATE FOREIGN TABLE sharded_1 PARTITION OF sharded FOR VALUES WITH (MODULUS 2, REMAINDER 1)
    SERVER shard OPTIONS (schema_name 'shard_node', table_name 'plots_1');
CREATE TABLE sharded_load (id int NOT NULL, world slime) PARTITION BY HASH (id);
CREATE FOREIGN TABLE sharded_load_0 PARTITION OF sharded_load FOR VALUES WITH (MODULUS 2, REMAINDER 0)
    SERVER shard OPTIONS (schema_name 'shard_node', table_name 'plots_0_load');
CREATE FOREIGN TABLE sharded_load_1 PARTITION OF sharded_load FOR VALUES WITH (MODULUS 2, REMAINDER 1)
    SERVER shard OPTIONS (schema_name 'shard_node', table_name 'plots_1_load');

-- the same worlds on one node, for comparison
CREATE TABLE one_node (id int PRIMARY KEY, world slime);
INSERT INTO one_node
SELECT g, CASE g % 3 WHEN 0 THEN test_world(2, g, 0)
                     WHEN 1 THEN slime_put_chunk(slime_put_chunk(NULL, 0, 0, modern_chunk(0, 0, g % 4)), 1, 0, modern_chunk(1, 0))
                     ELSE slime_put_chunk(test_world(1), 5, 5, modern_chunk(5, 5, 2)) END
FROM generate_series(1, 12) g;

-- saves through the coordinator: each row lands on its partition, where the
-- trigger moves its chunks into the store
INSERT INTO sharded SELECT * FROM one_node;
SELECT count(*) AS rows, count(*) FILTER (WHERE (slime_info(world) ->> 'store_refs')::int > 0) AS by_reference
FROM shard_node.plots_0;
SELECT (SELECT count(*) FROM shard_node.plots_0) + (SELECT count(*) FROM shard_node.plots_1) AS both_partitions;
-- values cross postgres_fdw in text form; what the coordinator reads is the
-- row's reference form (header, directory, hashes), equal to the world
SELECT count(*) AS equal FROM sharded s JOIN one_node o USING (id) WHERE s.world = o.world;
-- loads through the view come back self-contained and byte for byte
SELECT count(*) AS identical FROM sharded_load s JOIN one_node o USING (id)
WHERE s.world::bytea = o.world::bytea AND (slime_info(s.world) ->> 'store_refs')::int = 0;
-- ... so every function reads them on the coordinator
SELECT count(*) AS same_counts FROM sharded_load s JOIN one_node o USING (id)
WHERE (SELECT array_agg(c ORDER BY c) FROM slime_block_counts(s.world) c)
      IS NOT DISTINCT FROM (SELECT array_agg(c ORDER BY c) FROM slime_block_counts(o.world) c)
  AND (SELECT count(*) FROM slime_block_entities(s.world)) = (SELECT count(*) FROM slime_block_entities(o.world))
  AND slime_export_region(s.world, 0, 0) IS NOT DISTINCT FROM slime_export_region(o.world, 0, 0);
-- a save of a loaded value, changed on the coordinator
UPDATE sharded SET world = (SELECT slime_put_chunk(world, 9, 9, modern_chunk(9, 9, 5)) FROM sharded_load WHERE id = 4)
WHERE id = 4;
UPDATE one_node SET world = slime_put_chunk(world, 9, 9, modern_chunk(9, 9, 5)) WHERE id = 4;
SELECT s.world = o.world AS saved FROM sharded s JOIN one_node o USING (id) WHERE id = 4;

-- IMMUTABLE slime functions and operators run on the shard (extensions 'slime')
EXPLAIN (VERBOSE, COSTS OFF)
SELECT id FROM sharded WHERE slime_info(world) @> '{"chunks": 2}' AND world <> (SELECT world FROM one_node WHERE id = 1);
SELECT array_agg(id ORDER BY id) AS two_chunks FROM sharded WHERE slime_info(world) @> '{"chunks": 2}';
SELECT array_agg(id ORDER BY id) AS two_chunks FROM one_node WHERE slime_info(world) @> '{"chunks": 2}';

-- analytics: aggregates run on the shard, every partition at once (async
-- foreign scans); grouped by the distribution column, partitionwise
SET enable_partitionwise_aggregate = on;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT id, slime_block_totals(world) AS blocks, slime_block_entity_totals(world) AS block_entities
FROM sharded GROUP BY id;
SELECT count(*) AS same_per_world FROM (
    SELECT id, slime_block_totals(world) AS b, slime_block_entity_totals(world) AS e FROM sharded GROUP BY id) s
JOIN (SELECT id, slime_block_totals(world) AS b, slime_block_entity_totals(world) AS e FROM one_node GROUP BY id) o
USING (id) WHERE s.b = o.b AND s.e = o.e;
-- who has hoppers: the HAVING runs on the shard too (jsonpath, no collation)
EXPLAIN (VERBOSE, COSTS OFF)
SELECT id FROM sharded GROUP BY id HAVING slime_block_entity_totals(world) @? '$."minecraft:hopper"';
SELECT array_agg(id ORDER BY id) AS with_hoppers FROM (
    SELECT id FROM sharded GROUP BY id HAVING slime_block_entity_totals(world) @? '$."minecraft:hopper"') s;
SELECT array_agg(DISTINCT o.id ORDER BY o.id) AS with_hoppers FROM one_node o, slime_block_entities(world) b
WHERE b.id = 'minecraft:hopper';
-- network totals: one aggregate per foreign partition, summed on the coordinator
EXPLAIN (VERBOSE, COSTS OFF)
SELECT t FROM (SELECT slime_block_totals(world) FROM sharded_0 UNION ALL
               SELECT slime_block_totals(world) FROM sharded_1) p(t);
SELECT (SELECT jsonb_object_agg(k, n) FROM (
          SELECT k, sum(v::bigint) AS n FROM (SELECT slime_block_totals(world) FROM sharded_0 UNION ALL
                                              SELECT slime_block_totals(world) FROM sharded_1) p(t),
                 jsonb_each_text(t) e(k, v) GROUP BY k) s)
     = (SELECT slime_block_totals(world) FROM one_node) AS same_totals;
RESET enable_partitionwise_aggregate;

-- slime_block_entity_totals is the aggregate of slime_block_entities by id
SELECT slime_block_entity_totals(world) FROM one_node;
SELECT jsonb_object_agg(id, n) = (SELECT slime_block_entity_totals(world) FROM one_node) AS same
FROM (SELECT b.id, count(*) AS n FROM one_node, slime_block_entities(world) b GROUP BY b.id) s;
SELECT slime_block_entity_totals(world) IS NULL AS no_rows FROM one_node WHERE false;

-- slime_gc() on the coordinator scans no foreign table (and a shard's GC
-- only its own tables)
SELECT columns_scanned = (SELECT count(*) FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
                          WHERE c.relkind IN ('r', 'm') AND a.atttypid = 'slime'::regtype AND NOT a.attisdropped)
       AS local_columns_only FROM slime_gc();

-- logical replication into a node that stores chunks of its own: a
-- replicated store entry it already holds is skipped (replica role only)
SELECT count(*) > 0 AS has_entries FROM slime_store;
SET session_replication_role = replica;
INSERT INTO slime_store SELECT * FROM slime_store;
RESET session_replication_role;
\set VERBOSITY terse
INSERT INTO slime_store SELECT * FROM slime_store LIMIT 1;
\set VERBOSITY default

DROP TABLE sharded, sharded_load, one_node;
DROP SCHEMA shard_node CASCADE;
DROP SERVER shard CASCADE;
DROP EXTENSION postgres_fdw;
