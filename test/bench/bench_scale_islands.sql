-- test/bench/bench_scale_islands.sql: what bench_scale.sh makes islands of, as a
-- network makes them. psql -v corpus=DIR (the shared corpus). Creates:
--   templates(t, world, x0, z0, m): four 5x5-chunk windows of fully generated
--     chunks cut from three real 1.18+ regions (1.19.4, 1.18.2, 1.21.x), all
--     of which slime_to_slimefile can write; m = the full chunks of its region;
--   tchunks(t, x, z, v): each template chunk as a one-chunk value;
--   pool(t, k, nbt): every full chunk of template t's region (k from 0);
--   island(i): island i (from 1), 26 chunks: template 1 + i % 4, in which
--     (i / 4) % 4 chunks (on the diagonal, 0-3) are other chunks of its
--     region, plus one chunk of its own east of the window; every chunk
--     not the template's carries ChunkBukkitValues {stamp: i * 8 + slot} (a
--     Paper plugin's chunk data, which a slime file keeps), so it is new
--     content; in one island of 1,000 (i % 1000 = 1) the own chunk's
--     bedrock is minecraft:barrier, a block no template holds (the rare
--     "holds X");
--   next_version(i, stamp): a save of an island of template 1 + i % 4: its
--     own chunk and one diagonal chunk drawn anew from the pool and
--     stamped with stamp (negative: never an island's); saves are made of
--     these, so that each writes two new chunks.
-- Everything is deterministic: the same i gives the same island.
CREATE TABLE templates (t int PRIMARY KEY, world slime NOT NULL, x0 int NOT NULL, z0 int NOT NULL, m int);
CREATE TABLE pool (t int, k int, nbt bytea NOT NULL, PRIMARY KEY (t, k));
CREATE TEMP TABLE src AS SELECT * FROM (VALUES
  (1, :'corpus' || '/anvil-1.18plus/prismarine-provider-anvil/1.19.4/r.0.0.mca', 0, 0, 0, 7),
  (2, :'corpus' || '/anvil-1.18plus/querz-nbt/parsers/r.0.0.mca', 0, 0, 7, 0),
  (3, :'corpus' || '/anvil-1.18plus/minestom/anvil_vanilla_sample/r.2.1.mca', 2, 1, 69, 34),
  (4, :'corpus' || '/anvil-1.18plus/prismarine-provider-anvil/1.19.4/r.0.0.mca', 0, 0, 7, 7)) v(t, f, rx, rz, x0, z0);
CREATE TEMP TABLE regions AS
SELECT f, slime_import_region(pg_read_binary_file(f), min(rx), min(rz)) AS region FROM src GROUP BY f;
INSERT INTO pool
SELECT s.t, row_number() OVER (PARTITION BY s.t ORDER BY c.x, c.z) - 1, slime_chunk_nbt(r.region, c.x, c.z)
FROM src s JOIN regions r USING (f), slime_chunks(r.region) c
WHERE slime_chunk_json(r.region, c.x, c.z) ->> 'Status' IN ('full', 'minecraft:full');
INSERT INTO templates
SELECT s.t, w, s.x0, s.z0, (SELECT count(*) FROM pool p WHERE p.t = s.t)
FROM src s JOIN regions r USING (f),
  LATERAL (SELECT slime_agg(slime_put_chunk(NULL, c.x, c.z, slime_chunk_nbt(r.region, c.x, c.z))) AS w
           FROM slime_chunks(r.region) c WHERE c.x BETWEEN s.x0 AND s.x0 + 4 AND c.z BETWEEN s.z0 AND s.z0 + 4) a;
CREATE TABLE tchunks AS
SELECT t.t, c.x, c.z, slime_put_chunk(NULL, c.x, c.z, slime_chunk_nbt(t.world, c.x, c.z)) AS v
FROM templates t, slime_chunks(t.world) c;
ANALYZE templates, pool, tchunks;
-- tracked, as a network's tables with slime values are: slime_gc() never reads them
SELECT slime_track('templates');
SELECT slime_track('tchunks');
-- the templates' chunks in the store before the first island, as a network
-- stores a template once: otherwise the fill's sessions store them at once,
-- and a batch that finds them being stored by another keeps them inline
-- (slime_store: it never waits), 150 KB more for each of its islands
UPDATE templates SET world = slime_store(world);

-- chunk NBT (a root compound) with ChunkBukkitValues {stamp: n} appended
CREATE FUNCTION pdc(nbt bytea, n bigint) RETURNS bytea LANGUAGE sql IMMUTABLE STRICT AS $$
  SELECT substring(nbt FROM 1 FOR length(nbt) - 1) || '\x0a0011'::bytea || convert_to('ChunkBukkitValues', 'UTF8')
         || '\x040005'::bytea || convert_to('stamp', 'UTF8') || int8send(n) || '\x0000'::bytea $$;
-- chunk NBT with its palette's minecraft:bedrock named minecraft:barrier (same length)
CREATE FUNCTION barrier(nbt bytea) RETURNS bytea LANGUAGE sql IMMUTABLE STRICT AS $$
  SELECT decode(replace(encode(nbt, 'hex'), encode('\x0011'::bytea || convert_to('minecraft:bedrock', 'UTF8'), 'hex'),
                        encode('\x0011'::bytea || convert_to('minecraft:barrier', 'UTF8'), 'hex')), 'hex') $$;

-- template t with chunk slot j (0: the own chunk at (x0 + 5, z0 + 2); 1-3:
-- (x0 + j, z0 + j)) replaced, for j in slots, by pool chunk (seed + 37 j) mod
-- m stamped with stamp * 8 + j; the own chunk turned to barrier when asked
CREATE FUNCTION make_island(tt int, slots int[], seed bigint, stamp bigint, mark boolean) RETURNS slime
LANGUAGE sql STABLE AS $$
  SELECT slime_agg(v) FROM (
    SELECT c.v FROM templates t JOIN tchunks c USING (t)
    WHERE t.t = tt AND NOT (c.x - t.x0 = c.z - t.z0 AND c.x - t.x0 = ANY (slots))
    UNION ALL
    SELECT slime_put_chunk(NULL, xz.x, xz.z, CASE WHEN j = 0 AND mark THEN barrier(n) ELSE n END)
    FROM templates t, unnest(slots) j,
      LATERAL (SELECT t.x0 + CASE WHEN j = 0 THEN 5 ELSE j END AS x, t.z0 + CASE WHEN j = 0 THEN 2 ELSE j END AS z) xz,
      LATERAL (SELECT pdc(slime_chunk_relocate(p.nbt, xz.x, xz.z), stamp * 8 + j) AS n FROM pool p
               WHERE p.t = t.t AND p.k = (seed + 37 * j) % t.m) c
    WHERE t.t = tt) s
$$;
CREATE FUNCTION island(i bigint) RETURNS slime LANGUAGE sql STABLE AS $$
  SELECT make_island(1 + (i % 4)::int, ARRAY(SELECT generate_series(0, ((i / 4) % 4)::int)), i / 4, i, i % 1000 = 1)
$$;
CREATE FUNCTION next_version(i bigint, stamp bigint) RETURNS slime LANGUAGE sql STABLE AS $$
  SELECT make_island(1 + (i % 4)::int, ARRAY[0, 1 + (i % 3)::int], i / 4 + abs(stamp) % 1009, stamp, false)
$$;
