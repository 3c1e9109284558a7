-- Region files in and out: import, export, merging, world data, damage.

CREATE TABLE w AS SELECT test_world(3, 30, -2) AS world;

-- which regions a value touches (chunks 30..32 x -2..0 straddle four regions)
SELECT * FROM slime_regions((SELECT world FROM w)) ORDER BY rx, rz;

-- export region files (zlib, 4 KiB sectors) and import them back
CREATE TABLE files AS
SELECT r.rx, r.rz, slime_export_region(world, r.rx, r.rz) AS region,
       slime_export_region(world, r.rx, r.rz, 'entities') AS entities
FROM w, slime_regions(world) r;
SELECT rx, rz, octet_length(region) % 4096 AS padding, octet_length(region) >= 8192 + 4096 AS sized,
       get_byte(region, 8192 + 4) AS compression
FROM files ORDER BY rx, rz;
SELECT slime_export_region(world, 5, 5) IS NULL AS empty_region FROM w;

-- region -> slime -> region: each region's import equals that part of the world;
-- merging all regions gives back exactly the original value
SELECT slime_agg(slime_import_region(region, rx, rz, entities)) = (SELECT world FROM w) AS merged_same,
       slime_agg(slime_import_region(region, rx, rz, entities))::bytea = (SELECT world::bytea FROM w) AS same_bytes
FROM files;
SELECT slime_merge(slime_import_region(a.region, a.rx, a.rz), slime_import_region(b.region, b.rx, b.rz)) IS NOT NULL AS merged
FROM files a, files b WHERE (a.rx, a.rz) = (0, -1) AND (b.rx, b.rz) = (1, 0);

-- the same chunk twice is an error that names it
SELECT slime_merge(world, world) FROM w;
SELECT slime_agg(world) FROM (SELECT world FROM w UNION ALL SELECT world FROM w) t;

-- world data (level.dat), gzip in and out
SELECT slime_info(slime_with_level(world, nbt_compound('', nbt_compound('Data', nbt_int('DataVersion', 3700),
          nbt_string('LevelName', 'island'))))) ->> 'has_level' AS has_level FROM w;
SELECT slime_nbt_to_json(slime_level(slime_with_level(world, nbt_compound('', nbt_compound('Data',
          nbt_string('LevelName', 'island')))))) AS level FROM w;
SELECT get_byte(slime_level(slime_with_level(world, nbt_compound('', nbt_int('x', 1)))), 0) = 31 AS gzip FROM w;
SELECT slime_level(world) IS NULL AS no_level, slime_info(slime_with_level(slime_with_level(world,
          nbt_compound('', nbt_int('x', 1))), NULL)) ->> 'has_level' AS removed FROM w;
SELECT slime_with_level(world, '\x1f8b0800'::bytea) FROM w;

-- external chunks (c.X.Z.mcc): the region holds a stub with type 2+128
CREATE TABLE ext AS
SELECT set_byte(set_byte(overlay(region PLACING '\x00000001'::bytea FROM 8193), 8196, 130), 3, 1) AS stub,
       substring(region FROM 8198 FOR get_byte(region, 8194) * 256 + get_byte(region, 8195) - 1) AS mcc
FROM (SELECT slime_export_region(slime_put_chunk(NULL, 0, 0, test_chunk(0, 0)), 0, 0) AS region) r;
SELECT slime_import_region(stub, 0, 0) FROM ext;
SELECT slime_chunk_nbt(slime_import_region(stub, 0, 0, external => ARRAY[slime_mcc(0, 0, mcc)]), 0, 0)
       = test_chunk(0, 0) AS external_read
FROM ext;
SELECT slime_import_region(stub, 0, 0, strict => false) IS NOT NULL AS lenient FROM ext;

-- a chunk too big for 255 sectors goes to an external file, as Minecraft writes it
CREATE TABLE huge AS
SELECT slime_put_chunk(NULL, 3, 4, nbt_compound('', nbt_int('DataVersion', 3700),
         nbt_byte_array('noise', (SELECT string_agg(decode(md5(i::text), 'hex'), ''::bytea) FROM generate_series(1, 70000) i))))
       AS world;
SELECT octet_length(slime_export_region(world, 0, 0)) AS region_bytes,
       get_byte(slime_export_region(world, 0, 0), 8192 + 4) AS compression FROM huge;
SELECT x, z, octet_length(data) > 255 * 4096 AS needs_mcc FROM huge, slime_export_external(world, 0, 0);
SELECT slime_import_region(slime_export_region(world, 0, 0), 0, 0,
         external => ARRAY(SELECT slime_mcc(e.x, e.z, e.data) FROM slime_export_external(world, 0, 0) e)) = world AS round_trip
FROM huge;

-- damaged files: strict (the default) fails naming the chunk and offset;
-- strict => false imports the readable chunks and names the others
CREATE TABLE two AS SELECT slime_export_region(slime_put_chunk(slime_put_chunk(NULL, 0, 0, test_chunk(0, 0)),
                                               1, 0, test_chunk(1, 0)), 0, 0) AS region;
SELECT slime_import_region(substring(region FROM 1 FOR 100), 0, 0) FROM two;
SELECT slime_import_region(substring(region FROM 1 FOR 8192), 0, 0) FROM two;
SELECT slime_info(slime_import_region(substring(region FROM 1 FOR 8192), 0, 0, strict => false)) ->> 'chunks' AS cut_after_header FROM two;
SELECT slime_info(slime_import_region(''::bytea, 0, 0)) ->> 'chunks' AS empty_file;
-- unknown compression type in the second chunk
SELECT slime_import_region(set_byte(region, 3 * 4096 + 4, 79), 0, 0) FROM two;
SELECT slime_info(slime_import_region(set_byte(region, 3 * 4096 + 4, 79), 0, 0, strict => false)) ->> 'chunks' AS kept FROM two;
-- garbage zlib
SELECT slime_import_region(overlay(region PLACING '\xdeadbeefdeadbeef'::bytea FROM 3 * 4096 + 6), 0, 0) FROM two;
-- a length field far past the sectors
SELECT slime_import_region(overlay(region PLACING '\x7fffffff'::bytea FROM 2 * 4096 + 1), 0, 0) FROM two;
-- a location pointing into the header, and one past the end of the file
SELECT slime_import_region(overlay(region PLACING '\x00000101'::bytea FROM 1), 0, 0) FROM two;
SELECT slime_import_region(overlay(region PLACING '\x00100001'::bytea FROM 1), 0, 0) FROM two;
-- both chunks claiming the same sector
SELECT slime_import_region(overlay(region PLACING '\x00000201'::bytea FROM 5), 0, 0) FROM two;
SELECT slime_import_region(region, NULL, 0) FROM two;
SELECT slime_import_region(NULL, 0, 0) IS NULL AS nothing;
