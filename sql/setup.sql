-- Set-up shared by the regression tests: the extension and small NBT
-- builders, so that tests can write chunks as readable SQL.
CREATE EXTENSION slime;

-- a tag header: type byte, u16 name length, UTF-8 name
CREATE FUNCTION nbt_head(t int, name text) RETURNS bytea LANGUAGE sql IMMUTABLE
AS $$ SELECT set_byte('\x00'::bytea, 0, t) || int2send(octet_length(name)::int2) || convert_to(name, 'UTF8') $$;

CREATE FUNCTION nbt_byte(name text, v int) RETURNS bytea LANGUAGE sql IMMUTABLE
AS $$ SELECT nbt_head(1, name) || set_byte('\x00'::bytea, 0, v & 255) $$;
CREATE FUNCTION nbt_int(name text, v int) RETURNS bytea LANGUAGE sql IMMUTABLE
AS $$ SELECT nbt_head(3, name) || int4send(v) $$;
CREATE FUNCTION nbt_long(name text, v bigint) RETURNS bytea LANGUAGE sql IMMUTABLE
AS $$ SELECT nbt_head(4, name) || int8send(v) $$;
CREATE FUNCTION nbt_double(name text, v float8) RETURNS bytea LANGUAGE sql IMMUTABLE
AS $$ SELECT nbt_head(6, name) || float8send(v) $$;
CREATE FUNCTION nbt_string(name text, s text) RETURNS bytea LANGUAGE sql IMMUTABLE
AS $$ SELECT nbt_head(8, name) || int2send(octet_length(s)::int2) || convert_to(s, 'UTF8') $$;
CREATE FUNCTION nbt_compound(name text, VARIADIC items bytea[]) RETURNS bytea LANGUAGE sql IMMUTABLE
AS $$ SELECT nbt_head(10, name) || coalesce((SELECT string_agg(i, ''::bytea) FROM unnest(items) i), '') || '\x00'::bytea $$;
-- a list of compounds, each built with nbt_compound('', ...)
CREATE FUNCTION nbt_list_compounds(name text, VARIADIC items bytea[]) RETURNS bytea LANGUAGE sql IMMUTABLE
AS $$ SELECT nbt_head(9, name) || '\x0a'::bytea || int4send(cardinality(items))
             || coalesce((SELECT string_agg(substring(i FROM 4), ''::bytea) FROM unnest(items) i), '') $$;
CREATE FUNCTION nbt_list_doubles(name text, VARIADIC items float8[]) RETURNS bytea LANGUAGE sql IMMUTABLE
AS $$ SELECT nbt_head(9, name) || '\x06'::bytea || int4send(cardinality(items))
             || coalesce((SELECT string_agg(float8send(i), ''::bytea) FROM unnest(items) i), '') $$;

CREATE FUNCTION nbt_list_strings(name text, VARIADIC items text[]) RETURNS bytea LANGUAGE sql IMMUTABLE
AS $$ SELECT nbt_head(9, name) || '\x08'::bytea || int4send(cardinality(items))
             || coalesce((SELECT string_agg(int2send(octet_length(i)::int2) || convert_to(i, 'UTF8'), ''::bytea) FROM unnest(items) i), '') $$;
CREATE FUNCTION nbt_long_array(name text, VARIADIC items bigint[]) RETURNS bytea LANGUAGE sql IMMUTABLE
AS $$ SELECT nbt_head(12, name) || int4send(cardinality(items))
             || coalesce((SELECT string_agg(int8send(i), ''::bytea ORDER BY o) FROM unnest(items) WITH ORDINALITY u(i, o)), '') $$;
CREATE FUNCTION nbt_byte_array(name text, bytes bytea) RETURNS bytea LANGUAGE sql IMMUTABLE
AS $$ SELECT nbt_head(7, name) || int4send(octet_length(bytes)) || bytes $$;

-- a small 1.20-style chunk with a chest, as Minecraft writes it in region/
CREATE FUNCTION test_chunk(x int, z int, dv int DEFAULT 3700) RETURNS bytea LANGUAGE sql IMMUTABLE
AS $$ SELECT nbt_compound('',
        nbt_int('DataVersion', dv), nbt_int('xPos', x), nbt_int('zPos', z), nbt_int('yPos', -4),
        nbt_string('Status', 'minecraft:full'), nbt_long('LastUpdate', 1000),
        nbt_list_compounds('block_entities',
            nbt_compound('', nbt_string('id', 'minecraft:chest'),
                         nbt_int('x', x * 16 + 1), nbt_int('y', 64), nbt_int('z', z * 16 + 2),
                         nbt_byte('keepPacked', 0)))) $$;

-- the matching entities/ chunk with one pig
CREATE FUNCTION test_entities(x int, z int) RETURNS bytea LANGUAGE sql IMMUTABLE
AS $$ SELECT nbt_compound('',
        nbt_int('DataVersion', 3700),
        nbt_head(11, 'Position') || int4send(2) || int4send(x) || int4send(z),
        nbt_list_compounds('Entities',
            nbt_compound('', nbt_string('id', 'minecraft:pig'),
                         nbt_list_doubles('Pos', x * 16 + 0.5, 65.0, z * 16 + 0.5)))) $$;

-- a world of n x n chunks starting at (x0, z0), with entities
CREATE FUNCTION test_world(n int, x0 int DEFAULT 0, z0 int DEFAULT 0) RETURNS slime LANGUAGE sql IMMUTABLE
AS $$ SELECT slime_agg(slime_put_chunk(slime_put_chunk(NULL, x, z, test_chunk(x, z)),
                                       x, z, test_entities(x, z), 'entities'))
      FROM generate_series(x0, x0 + n - 1) x, generate_series(z0, z0 + n - 1) z $$;

-- Whether two version-13 slime files hold the same file: the same header,
-- the same raw length of the chunk block, the same extra block and the same
-- world. A loader's load gives the file saved back from its framed form:
-- the chunk block's raw bytes as saved, in zstd frames of their own
-- (doc/format.md, "The loader's kept files"), so the same file, not the
-- same bytes; test/java.sh compares the raw bytes through zstd-jni.
CREATE FUNCTION sf_be32(b bytea, at int) RETURNS bigint LANGUAGE sql IMMUTABLE
AS $$ SELECT (get_byte(b, at)::bigint << 24) | (get_byte(b, at + 1) << 16) | (get_byte(b, at + 2) << 8) | get_byte(b, at + 3) $$;
CREATE FUNCTION sf_same_file(a bytea, b bytea) RETURNS boolean LANGUAGE sql IMMUTABLE
AS $$ SELECT substring(a FOR 8) = substring(b FOR 8)
         AND substring(a FROM 13 FOR 4) = substring(b FROM 13 FOR 4)
         AND substring(a FROM 17 + sf_be32(a, 8)::int) = substring(b FROM 17 + sf_be32(b, 8)::int)
         AND slime_from_slimefile(a) = slime_from_slimefile(b) $$;

-- little-endian u32 fields of stored forms (packs, cold forms, memos), read
-- and written in place by the tests that damage them
CREATE FUNCTION u32le(b bytea, at int) RETURNS bigint LANGUAGE sql IMMUTABLE
AS $$ SELECT get_byte(b, at)::bigint + (get_byte(b, at + 1)::bigint << 8)
             + (get_byte(b, at + 2)::bigint << 16) + (get_byte(b, at + 3)::bigint << 24) $$;
CREATE FUNCTION put_u32le(b bytea, at int, v bigint) RETURNS bytea LANGUAGE sql IMMUTABLE
AS $$ SELECT set_byte(set_byte(set_byte(set_byte(b, at, (v & 255)::int), at + 1, ((v >> 8) & 255)::int),
                                at + 2, ((v >> 16) & 255)::int), at + 3, ((v >> 24) & 255)::int) $$;
-- where the frame of a version 3 pack's whole entries starts: after its
-- 6-byte header, 28 bytes an entry, the directory's 8-byte checksum and the
-- delta frames, whose lengths are the last 4 bytes of each entry's 28 (a
-- count the pack's bytes cannot hold is taken as the most they can)
CREATE FUNCTION pack_frame_at(b bytea) RETURNS bigint LANGUAGE sql IMMUTABLE
AS $$ SELECT 14 + 28 * n + COALESCE(sum(u32le(b, 6 + 28 * i + 24)), 0)
      FROM (SELECT least(u32le(b, 2), (octet_length(b) - 14) / 28)::int AS n) c, generate_series(0, n - 1) i
      GROUP BY n $$;

SELECT slime_info(test_world(2)) ->> 'chunks' AS chunks;
