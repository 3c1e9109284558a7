-- The slime type: building values, reading them back, input and output.

-- a value holds chunks; slime_put_chunk stores one chunk's NBT
CREATE TABLE islands (id int PRIMARY KEY, world slime);
INSERT INTO islands VALUES (1, test_world(3)), (2, test_world(1, 10, -10));

-- metadata comes from the header and directory, without decompression
SELECT id, slime_info(world) - 'hash' - 'stored_bytes' - 'raw_bytes' AS info FROM islands ORDER BY id;
SELECT id, (slime_info(world) ->> 'stored_bytes')::int < (slime_info(world) ->> 'raw_bytes')::int AS compressed
FROM islands ORDER BY id;

-- one row per chunk, in canonical order (regions in Morton order, region-file slot order inside one)
SELECT x, z, data_version, raw_bytes = octet_length(test_chunk(x, z)) + octet_length(test_entities(x, z)) AS raw_ok,
       stored_bytes > 0 AS stored, octet_length(hash) AS hash_len
FROM slime_chunks((SELECT world FROM islands WHERE id = 1));

-- a chunk's NBT comes back byte for byte, per kind
SELECT slime_chunk_nbt(world, 1, 2) = test_chunk(1, 2) AS region_same,
       slime_chunk_nbt(world, 1, 2, 'entities') = test_entities(1, 2) AS entities_same,
       slime_chunk_nbt(world, 1, 2, 'poi') IS NULL AS no_poi,
       slime_chunk_nbt(world, 7, 7) IS NULL AS absent
FROM islands WHERE id = 1;
SELECT slime_chunk_nbt(world, 0, 0, 'level') FROM islands WHERE id = 1;

-- NBT as JSON: ints plain, other numbers typed, lists as arrays
SELECT jsonb_pretty(slime_nbt_to_json(slime_chunk_nbt(world, 1, 2))) FROM islands WHERE id = 1;
SELECT slime_nbt_to_json(test_entities(0, 0)) -> 'Entities' -> 0 -> 'Pos' AS pos;

-- canonical: the same chunks give the same bytes whatever the build order
SELECT slime_put_chunk(slime_put_chunk(NULL, 0, 0, test_chunk(0, 0)), 1, 0, test_chunk(1, 0))::bytea
     = slime_put_chunk(slime_put_chunk(NULL, 1, 0, test_chunk(1, 0)), 0, 0, test_chunk(0, 0))::bytea AS same_bytes;

-- replacing and deleting chunks
SELECT slime_info(slime_delete_chunk(world, 0, 0)) ->> 'chunks' AS after_delete,
       slime_chunk_nbt(slime_put_chunk(world, 0, 0, test_chunk(0, 0, 3800)), 0, 0) = test_chunk(0, 0, 3800) AS replaced,
       slime_info(slime_put_chunk(world, 0, 0, NULL, 'entities')) ->> 'entity_chunks' AS entities_after_removal
FROM islands WHERE id = 1;

-- a chunk goes where its NBT says it is: NBT naming another position, or of
-- another kind, is refused (invalid_parameter_value) naming both, with a hint
SELECT slime_put_chunk(NULL, 3, 4, test_chunk(0, 0));
SELECT slime_put_chunk(NULL, 3, 4, test_entities(0, 0), 'entities');
SELECT slime_put_chunk(NULL, 0, 0, test_entities(0, 0));
SELECT slime_put_chunk(NULL, 0, 0, test_chunk(0, 0), 'poi');
SELECT slime_put_chunk(NULL, -1, 33, nbt_compound('', nbt_compound('Level', nbt_int('xPos', 31), nbt_int('zPos', -2))));
-- moved as the hint says (slime_chunk_relocate rewrites xPos/zPos, Level.xPos/zPos
-- or Position in place); NBT naming no position, and a POI chunk, go in anywhere
SELECT slime_nbt_to_json(slime_chunk_nbt(slime_put_chunk(NULL, 3, 4, slime_chunk_relocate(test_chunk(0, 0), 3, 4)), 3, 4))
       = slime_nbt_to_json(test_chunk(0, 0)) || '{"xPos": 3, "zPos": 4}' AS moved,
       slime_nbt_to_json(slime_chunk_relocate(test_entities(0, 0), -7, 40)) -> 'Position' AS entities_moved,
       slime_nbt_to_json(slime_chunk_relocate(nbt_compound('', nbt_compound('Level', nbt_int('xPos', 31), nbt_int('zPos', -2))), -1, 33)) AS pre_1_18_moved,
       slime_info(slime_put_chunk(NULL, 3, 4, nbt_compound('', nbt_int('DataVersion', 3700)))) ->> 'chunks' AS no_position,
       slime_info(slime_put_chunk(NULL, 3, 4, nbt_compound('', nbt_int('DataVersion', 3700),
                  nbt_compound('Sections', VARIADIC '{}'::bytea[])), 'poi')) ->> 'poi_chunks' AS poi;
SELECT slime_chunk_relocate(nbt_compound('', nbt_int('DataVersion', 3700)), 3, 4);
SELECT slime_chunk_relocate(nbt_compound('', nbt_long('xPos', 0), nbt_long('zPos', 0)), 3, 4);
DO $$ BEGIN PERFORM slime_put_chunk(NULL, 3, 4, test_chunk(0, 0));
EXCEPTION WHEN invalid_parameter_value THEN RAISE NOTICE 'sqlstate %', SQLSTATE; END $$;

-- text and binary forms round-trip and are checked alike
SELECT count(*) AS text_round_trip FROM islands WHERE world::text::slime = world;
SELECT count(*) AS bytea_round_trip FROM islands WHERE world::bytea::slime = world;
SELECT left(world::text, 12) AS text_form FROM islands WHERE id = 2;
-- the text form is "b64:" and standard base64 of the value bytes (since 0.4.0)
SELECT count(*) AS standard_base64 FROM islands
WHERE decode(substr(world::text, 5), 'base64') = world::bytea
  AND octet_length(world::text) = 4 + (octet_length(world::bytea) + 2) / 3 * 4;
-- the hex form 0.1.0 to 0.3.0 wrote ("\x" + hex digits, what their dumps hold) reads forever,
-- in either case; slime.text_output = hex writes it again
SELECT count(*) AS hex_reads FROM islands
WHERE ('\x' || encode(world::bytea, 'hex'))::slime = world
  AND ('\x' || upper(encode(world::bytea, 'hex')))::slime::bytea = world::bytea;
SET slime.text_output = hex;
SELECT left(world::text, 10) AS hex_text_form, world::text = '\x' || encode(world::bytea, 'hex') AS as_before,
       world::text::slime = world AS round_trip
FROM islands WHERE id = 2;
RESET slime.text_output;
SELECT world::text = 'b64:' || translate(encode(world::bytea, 'base64'), E'\n', '') AS base64_again
FROM islands WHERE id = 2;
SELECT world = test_world(3) AS equal, world <> test_world(2) AS not_equal FROM islands WHERE id = 1;
SELECT count(*) AS distinct_worlds
FROM (SELECT world FROM (SELECT world FROM islands UNION ALL SELECT world FROM islands) u GROUP BY world) t;

-- bad input is rejected with the reason
SELECT 'not hex'::slime;
SELECT '\x00'::slime;
SELECT '\x534c494d0100'::slime;
SELECT '\x534'::slime;
SELECT '\x53zz'::slime;
SELECT 'b64:'::slime;
SELECT 'b64:U0xJTQ=='::slime;
SELECT 'b64:U0xJTQ'::slime;
SELECT 'b64:U0xJ TQ=='::slime;
SELECT 'b64:U0xJTR=='::slime;
SELECT 'B64:U0xJTQ=='::slime;
-- flip one byte inside the compressed payload: caught by the checksums
SELECT set_byte(world::bytea, octet_length(world::bytea) - 3,
                get_byte(world::bytea, octet_length(world::bytea) - 3) # 1)::slime
FROM islands WHERE id = 2;
-- flip one byte of the metadata (the stored content hash): caught by the header checksum
SELECT set_byte(world::bytea, 12, get_byte(world::bytea, 12) # 1)::slime FROM islands WHERE id = 2;
-- truncate
SELECT substring(world::bytea FROM 1 FOR 200)::slime FROM islands WHERE id = 2;
-- chunk NBT must be one well-formed document
SELECT slime_put_chunk(NULL, 0, 0, '\x0a000001'::bytea);
SELECT slime_put_chunk(NULL, 0, 0, '\x0300014100000001'::bytea);
SELECT slime_put_chunk(NULL, 0, 0, test_chunk(0, 0), 'tiles');
-- negative and huge array lengths, a list of End tags, nesting past 512 levels
SELECT slime_put_chunk(NULL, 0, 0, nbt_head(10, '') || nbt_head(7, 'a') || int4send(-1) || '\x00'::bytea);
SELECT slime_put_chunk(NULL, 0, 0, nbt_head(10, '') || nbt_head(12, 'a') || int4send(2147483647) || '\x00'::bytea);
SELECT slime_put_chunk(NULL, 0, 0, nbt_head(10, '') || nbt_head(9, 'a') || '\x00'::bytea || int4send(5) || '\x00'::bytea);
SELECT slime_put_chunk(NULL, 0, 0, nbt_head(10, '') || decode(repeat('0a000161', 600), 'hex') || decode(repeat('00', 601), 'hex'));
SELECT slime_nbt_to_json(nbt_head(10, '') || decode(repeat('0a000161', 511), 'hex') || decode(repeat('00', 512), 'hex')) IS NOT NULL AS depth_512_ok;

-- the zstd level is a setting; recompressing keeps the content and its hash
SHOW slime.compression_level;
SELECT slime_recompress(world, 19) = world AS same_content,
       slime_content_hash(slime_recompress(world, 19)) = slime_content_hash(world) AS same_hash,
       slime_recompress(world, 19)::bytea <> world::bytea AS new_bytes,
       slime_recompress(slime_recompress(world, 19), 3)::bytea = world::bytea AS back_to_default
FROM islands WHERE id = 1;
-- level 20 is the archive level: the same content, every chunk byte for byte
SELECT slime_recompress(world, 20) = world AS same_content,
       slime_verify(slime_recompress(world, 20)) AS verified,
       bool_and(slime_chunk_nbt(slime_recompress(world, 20), c.x, c.z) = slime_chunk_nbt(world, c.x, c.z)) AS same_chunks,
       slime_recompress(slime_recompress(world, 20), 3)::bytea = world::bytea AS back_to_default
FROM islands, LATERAL slime_chunks(world) c WHERE id = 1 GROUP BY world;
SET slime.compression_level = 12;
SELECT test_world(3)::bytea = slime_recompress(test_world(3), 12)::bytea AS setting_used;
RESET slime.compression_level;
SELECT slime_recompress(world, 0) FROM islands WHERE id = 1;
SET slime.compression_level = 30;

-- slime.input_check = structure checks the layout only (fast saves); the
-- content is still checked on every read, and slime_verify() runs the full check
SHOW slime.input_check;
SET slime.input_check = structure;
CREATE TABLE lazily AS
SELECT set_byte(world::bytea, octet_length(world::bytea) - 3,
                get_byte(world::bytea, octet_length(world::bytea) - 3) # 1)::slime AS world
FROM islands WHERE id = 2;
SELECT slime_info(world) ->> 'chunks' AS header_reads_fine FROM lazily;
SELECT slime_chunk_nbt(world, 10, -10) FROM lazily;
SELECT slime_verify(world) FROM lazily;
SELECT slime_verify(world) FROM islands ORDER BY id;
-- structure still rejects what it can see without decompressing
SELECT set_byte(world::bytea, 12, get_byte(world::bytea, 12) # 1)::slime FROM islands WHERE id = 2;
RESET slime.input_check;
SELECT world::text::slime FROM lazily;
