-- bench_keyfloor.sql: what a chunk store entry's key costs in PostgreSQL
-- (bench README section 14, issue #22): 100,000 SHA-256 keys kept three
-- ways, bytes an entry after VACUUM FULL. Plain SQL, no extension:
--   psql -X -d postgres -f test/bench/bench_keyfloor.sql
-- Creates and drops its tables in a schema of its own.
CREATE SCHEMA keyfloor;
SET search_path = keyfloor;
-- today's store row: key, 5-byte packed pointer, stored_at, settled, pack;
-- its primary key and the partial index on pack
CREATE TABLE rows_now (hash bytea PRIMARY KEY, data bytea, stored_at timestamptz NOT NULL,
                       settled boolean NOT NULL, pack bigint);
CREATE INDEX rows_now_pack ON rows_now (pack) WHERE pack IS NOT NULL;
INSERT INTO rows_now
SELECT sha256(i::text::bytea), '\x0200000000', now(), true, i / 100 FROM generate_series(1, 100000) i;
-- no row an entry: each pack's 8-byte key prefixes as an array under GIN
CREATE TABLE dir_gin (pack bigint PRIMARY KEY, keys bigint[]);
INSERT INTO dir_gin
SELECT i / 100, array_agg(('x' || encode(substr(sha256(i::text::bytea), 1, 8), 'hex'))::bit(64)::bigint ORDER BY i)
FROM generate_series(1, 100000) i GROUP BY i / 100;
CREATE INDEX dir_gin_keys ON dir_gin USING gin (keys) WITH (fastupdate = off);
-- a narrow row an entry: 8-byte prefix, pack, slot, a btree on the prefix
CREATE TABLE rows_narrow (prefix bigint, pack int, slot smallint);
INSERT INTO rows_narrow
SELECT ('x' || encode(substr(sha256(i::text::bytea), 1, 8), 'hex'))::bit(64)::bigint, i / 100, i % 100
FROM generate_series(1, 100000) i;
CREATE INDEX rows_narrow_prefix ON rows_narrow (prefix);
VACUUM FULL ANALYZE rows_now;
VACUUM FULL ANALYZE dir_gin;
VACUUM FULL ANALYZE rows_narrow;
SELECT t AS layout, pg_relation_size(t) AS heap, pg_indexes_size(t) AS indexes,
       round(pg_total_relation_size(t) / 100000.0, 1) AS bytes_an_entry
FROM unnest(ARRAY['rows_now', 'dir_gin', 'rows_narrow']::regclass[]) t;
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA keyfloor CASCADE;
RESET client_min_messages;
