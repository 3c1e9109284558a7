-- test/bench/seed_islands.sql: table seeds(id, world), the 5x5-chunk
-- windows of two dense prismarine-provider-anvil regions (1.21.1 and
-- 1.18.2) that hold chunks, 21 self-contained islands of 25 (or 20) chunks.
-- psql -v corpus=DIR (the shared corpus); used by bench_gc.sh, bench_ab.sh.
CREATE TABLE seeds AS
SELECT row_number() OVER (ORDER BY f, x0, z0)::int AS id, w AS world
FROM (VALUES (:'corpus' || '/anvil-1.18plus/prismarine-provider-anvil/1.21.1/r.0.0.mca', 10),
             (:'corpus' || '/anvil-1.18plus/prismarine-provider-anvil/1.18.2/r.0.0.mca', 15)) r(f, nx),
     LATERAL (SELECT slime_import_region(pg_read_binary_file(f), 0, 0) AS region) i,
     LATERAL generate_series(0, nx, 5) x0, LATERAL generate_series(0, 10, 5) z0,
     LATERAL (SELECT slime_agg(slime_put_chunk(NULL, c.x, c.z, slime_chunk_nbt(region, c.x, c.z))) AS w
              FROM slime_chunks(region) c
              WHERE c.x BETWEEN x0 AND x0 + 4 AND c.z BETWEEN z0 AND z0 + 4) s
WHERE w IS NOT NULL;
