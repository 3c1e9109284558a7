-- What worlds hold, as rows: block entities, entities, chunks as JSON.

CREATE TABLE bases (id int PRIMARY KEY, owner text, world slime);
INSERT INTO bases VALUES (1, 'alex', test_world(3)), (2, 'steve', test_world(2, 100, 100)),
                           (3, 'notch', slime_put_chunk(NULL, 0, 0, test_chunk(0, 0)));

-- every block entity, with its position, id and NBT as JSON
SELECT x, y, z, id, nbt ->> 'keepPacked' AS keep_packed
FROM slime_block_entities((SELECT world FROM bases WHERE id = 2)) ORDER BY x, z;
-- one chunk's block entities: only its frame is read
SELECT x, y, z, id FROM slime_block_entities((SELECT world FROM bases WHERE id = 1), 2, 1);
SELECT count(*) FROM slime_block_entities((SELECT world FROM bases WHERE id = 1), 9, 9);

-- an operator's questions: who has the most chests; totals across the table
SELECT owner, count(*) AS chests
FROM bases, slime_block_entities(world) b WHERE b.id = 'minecraft:chest'
GROUP BY owner ORDER BY chests DESC, owner;
SELECT b.id, count(*) FROM bases, slime_block_entities(world) b GROUP BY b.id;

-- entities from entities/ data (1.17+) and from chunks (older worlds)
SELECT id, uuid, x, y, z, nbt -> 'Pos' AS pos
FROM slime_entities((SELECT world FROM bases WHERE id = 2)) ORDER BY x, z;
SELECT owner, count(*) AS pigs FROM bases, slime_entities(world) e WHERE e.id = 'minecraft:pig'
GROUP BY owner ORDER BY owner;
-- UUIDs: int[4] (1.16+) or UUIDMost/UUIDLeast (older)
SELECT e.uuid FROM slime_entities(slime_put_chunk(NULL, 0, 0, nbt_compound('',
         nbt_int('DataVersion', 3700), nbt_list_compounds('Entities',
           nbt_compound('', nbt_string('id', 'minecraft:cow'),
                        nbt_head(11, 'UUID') || int4send(4) || int4send(1) || int4send(2) || int4send(3) || int4send(4)),
           nbt_compound('', nbt_string('id', 'Cow'), nbt_long('UUIDMost', -1), nbt_long('UUIDLeast', 255))))
       , 'entities')) e;

-- a chunk as JSON, and back: slime_json_to_nbt inverts the mapping
SELECT slime_chunk_json(world, 0, 0) -> 'block_entities' -> 0 ->> 'id' AS id,
       slime_chunk_json(world, 0, 0, 'entities') -> 'Position' AS position,
       slime_chunk_json(world, 5, 5) IS NULL AS absent
FROM bases WHERE id = 1;
SELECT slime_nbt_to_json(slime_json_to_nbt(slime_chunk_json(world, 1, 1))) = slime_chunk_json(world, 1, 1) AS same_tree,
       octet_length(slime_json_to_nbt(slime_chunk_json(world, 1, 1))) = octet_length(slime_chunk_nbt(world, 1, 1)) AS same_size
FROM bases WHERE id = 1;

-- every NBT type survives the trip
CREATE TABLE typed AS SELECT nbt_compound('',
    nbt_byte('b', -2), nbt_head(2, 's') || int2send(300::int2), nbt_int('i', 7), nbt_long('l', -9223372036854775808),
    nbt_head(5, 'f') || '\x3dcccccd'::bytea, nbt_double('d', 0.1), nbt_double('big', 1e300), nbt_double('tiny', 5e-324),
    nbt_double('negzero', '-0'::float8), nbt_head(6, 'nan') || '\x7ff8000000000000'::bytea,
    nbt_head(7, 'ba') || int4send(3) || '\x01ff7f'::bytea,
    nbt_head(11, 'ia') || int4send(2) || int4send(1) || int4send(-1),
    nbt_head(12, 'la') || int4send(1) || int8send(-1),
    nbt_string('str', 'grüß'), nbt_head(8, 'emoji') || int2send(6::int2) || '\xeda0bcedbeae'::bytea,
    nbt_head(8, 'utf8_emoji') || int2send(4::int2) || '\xf09f8eae'::bytea, nbt_head(8, 'nul') || int2send(3::int2) || '\x61c080'::bytea,
    nbt_head(9, 'empty') || '\x00'::bytea || int4send(0),
    nbt_head(9, 'empty_int') || '\x03'::bytea || int4send(0),
    nbt_compound('wrapped', nbt_int('byte', 1)),
    nbt_list_doubles('pos', 1.5, -2.25)) AS nbt;
SELECT jsonb_pretty(slime_nbt_to_json(nbt)) FROM typed;
-- jsonb orders keys its own way, so the bytes differ in order only
SELECT octet_length(slime_json_to_nbt(slime_nbt_to_json(nbt))) = octet_length(nbt) AS same_size FROM typed;
SELECT slime_nbt_to_json(slime_json_to_nbt(slime_nbt_to_json(nbt))) = slime_nbt_to_json(nbt) AS same_tree FROM typed;

-- JSON the mapping cannot read
SELECT slime_json_to_nbt('{"a": null}');
SELECT slime_json_to_nbt('{"a": [1, "x"]}');
SELECT slime_json_to_nbt('{"a": 4294967296}');
SELECT slime_json_to_nbt('{"a": {"byte": 300}}');
SELECT slime_json_to_nbt('{"a": {"list": "bogus"}}');
SELECT slime_json_to_nbt('{"a": {"int_array": "x"}}');
SELECT slime_json_to_nbt('{"a": {"compound": 5}}');
SELECT slime_json_to_nbt('{"a": {"mutf8": 5}}');
SELECT slime_json_to_nbt('{"a": {"mutf8": "abc"}}');
SELECT slime_json_to_nbt('{"a": {"mutf8": "zz"}}');
SELECT slime_json_to_nbt('{"a": {"float": "x"}}');
SELECT slime_json_to_nbt('{"a": {"byte_array": [1, 2.5]}}');
SELECT slime_json_to_nbt('{"a": {"long": 1.5}}');
SELECT slime_json_to_nbt('[[1], ["x"]]') IS NOT NULL AS nested_lists_of_differing_types;
SELECT slime_json_to_nbt('7') AS int_root, slime_json_to_nbt('"s"') AS string_root;
SET slime.max_nbt_depth = 64;
SELECT slime_json_to_nbt(('{"a": ' || repeat('[', 63) || repeat(']', 63) || '}')::jsonb) IS NOT NULL AS depth_64;
SELECT slime_json_to_nbt(('{"a": ' || repeat('[', 64) || repeat(']', 64) || '}')::jsonb);
RESET slime.max_nbt_depth;
