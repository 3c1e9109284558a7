-- test/hostile.sql: the SQL side of the hostile-input checks, shared by
-- test/hostile.sh (mutations of seed files) and test/fuzz/sql-replay.sh (what
-- the libFuzzer campaign found, through the same functions). Defines, in the
-- current database (which has the slime extension):
--   mutate(b, other)           one random mutation of b
--   outcomes                   per function: calls that returned, calls that raised
--   error_states               per SQLSTATE raised: how often, one example
--   try(fn, sql, arg)          run one call, count its outcome (XX000 apart)
--   hostile_input(kind, b)     put b through every function that reads its kind:
--                              region, slimefile, schematic, entry (32-byte key,
--                              then a store entry), pack (8-byte id, then a pack),
--                              cold, hot (a loader's kept file in its cold or hot
--                              form, loaded as hostile.sh's loader world's: the
--                              load is an error or a file of kept_files), value,
--                              nbt (else NBT)
-- A constructor that skips the input check, as damage on disk would: the
-- accessors must stand any bytes, not only checked ones.
CREATE FUNCTION slime_unchecked(bytea) RETURNS slime AS 'slime', 'slime_to_bytea' LANGUAGE C STRICT;
-- the world schematics are pasted into and the level slime_with_level is given
CREATE TABLE hostile_world (w slime);
CREATE TABLE hostile_chunk (nbt bytea);
-- a value whose chunks are in the store, read through damaged entries
CREATE TABLE hostile_store (id int, world slime);
CREATE TRIGGER hostile_store_store BEFORE INSERT ON hostile_store
  FOR EACH ROW EXECUTE FUNCTION slime_store_trigger();

-- the entry under key k replaced by e while one chunk of the value is read
-- through it, then put back (an error rolls the replacement back with it)
CREATE FUNCTION read_through(k bytea, e bytea) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  old bytea;
  old_pack bigint;
BEGIN
  UPDATE slime_store s SET data = e, pack = NULL FROM slime_store o WHERE s.hash = k AND o.hash = k
    RETURNING o.data, o.pack INTO old, old_pack;
  PERFORM octet_length(slime_chunk_nbt(h.world, c.x, c.z)), (SELECT count(*) FROM slime_block_counts(slime_put_chunk(NULL, c.x, c.z, slime_chunk_nbt(h.world, c.x, c.z))))
    FROM hostile_store h, slime_chunks(h.world) c WHERE c.hash = k;
  UPDATE slime_store SET data = old, pack = old_pack WHERE hash = k;
END $$;

-- a damaged pack (p: its id, 8 bytes, then its bytes) read through every
-- chunk of hostile_store's value that points into it
CREATE FUNCTION read_through_pack(p bytea) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  pid bigint := ('x' || encode(substring(p FOR 8), 'hex'))::bit(64)::bigint;
  old bytea;
  r record;
  got bytea;
  file_before text;
BEGIN
  -- differential (issue #33): each chunk read out of the damaged pack is an
  -- error or the bytes it had before; other bytes are an internal error
  -- (XX000), which fails the suite
  CREATE TEMP TABLE IF NOT EXISTS pack_chunks_before (id int, x int, z int, nbt bytea);
  TRUNCATE pack_chunks_before;
  INSERT INTO pack_chunks_before
    SELECT h.id, c.x, c.z, slime_chunk_nbt(h.world, c.x, c.z)
    FROM hostile_store h, slime_chunks(h.world) c JOIN slime_store s ON s.hash = c.hash WHERE s.pack = pid;
  IF to_regclass('hostile_ldr_worlds') IS NOT NULL THEN
    file_before := md5(slime_loader_load('hostile_ldr', 'w'));
  END IF;
  UPDATE slime_store_packs s SET data = substring(p FROM 9) FROM slime_store_packs o
    WHERE s.id = pid AND o.id = pid RETURNING o.data INTO old;
  FOR r IN SELECT * FROM pack_chunks_before LOOP
    SELECT slime_chunk_nbt(h.world, r.x, r.z) INTO got FROM hostile_store h WHERE h.id = r.id;
    IF got IS DISTINCT FROM r.nbt THEN
      RAISE EXCEPTION 'a damaged pack gave other bytes for chunk (%,%)', r.x, r.z USING ERRCODE = 'internal_error';
    END IF;
  END LOOP;
  -- a cold loader world (hostile.sh's) reads the pack its chunks were gathered into
  IF file_before IS NOT NULL AND md5(slime_loader_load('hostile_ldr', 'w')) <> file_before THEN
    RAISE EXCEPTION 'a damaged pack gave another file to a cold load' USING ERRCODE = 'internal_error';
  END IF;
  UPDATE slime_store_packs SET data = old WHERE slime_store_packs.id = pid;
END $$;

-- a damaged cold form (hostile.sh's loader world keeps one) loaded
-- the files a load of hostile.sh's loader world may give (md5): the file
-- as saved (its hot form), as warmed from its cold form, and as written
-- from its newest save (a form of 0.9.0 and earlier is read as absent)
CREATE TABLE kept_files (what text PRIMARY KEY, md5 text);

-- the loader world's kept file replaced by c while the world is loaded,
-- then put back: differential (issue #33): the load is an error or one of
-- kept_files; another file is an internal error (XX000), which fails the suite
CREATE FUNCTION load_kept(c bytea) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  old bytea;
  got bytea;
BEGIN
  UPDATE hostile_ldr_worlds s SET file = c FROM hostile_ldr_worlds o
    WHERE s.world = 'w' AND o.world = 'w' RETURNING o.file INTO old;
  got := slime_loader_load('hostile_ldr', 'w');
  IF got IS NOT NULL AND md5(got) NOT IN (SELECT md5 FROM kept_files) THEN
    RAISE EXCEPTION 'a damaged kept file gave another file (% bytes)', octet_length(got) USING ERRCODE = 'internal_error';
  END IF;
  UPDATE hostile_ldr_worlds SET file = old WHERE world = 'w';
END $$;

-- one mutation of b: bit flip, truncation, splice, a length field set to
-- 0, -1 or 2^31-1, or a random overwrite
CREATE FUNCTION mutate(b bytea, other bytea) RETURNS bytea LANGUAGE plpgsql AS $$
DECLARE
  n int := octet_length(b);
  k int := floor(random() * 6);
  o int;
BEGIN
  IF n = 0 THEN RETURN other; END IF;
  -- aim half the mutations at the header, where the lengths and offsets live
  o := CASE WHEN random() < 0.5 THEN floor(random() * least(n, 8192)) ELSE floor(random() * n) END;
  CASE k
    WHEN 0 THEN RETURN set_byte(b, o, get_byte(b, o) # (1 << floor(random() * 8)::int));
    WHEN 1 THEN RETURN substring(b FROM 1 FOR o);
    WHEN 2 THEN RETURN substring(b FROM 1 FOR o) || substring(other FROM floor(random() * octet_length(other))::int + 1);
    WHEN 3 THEN RETURN overlay(b PLACING (ARRAY['\x00000000'::bytea, '\xffffffff', '\x7fffffff', '\xffffff7f'])[1 + floor(random() * 4)::int]
                              FROM least(o, greatest(n - 4, 0)) + 1);
    WHEN 4 THEN RETURN overlay(b PLACING decode(md5(random()::text) || md5(random()::text), 'hex') FROM o + 1);
    ELSE RETURN set_byte(set_byte(b, o, get_byte(b, o) # 255), (o * 7919) % n, floor(random() * 256)::int);
  END CASE;
END $$;

CREATE TABLE outcomes (fn text, ok bigint DEFAULT 0, errors bigint DEFAULT 0, PRIMARY KEY (fn));
-- the SQLSTATE of every error raised: XX000 (an unhandled case), 23505 (a
-- duplicate) and 02000 (not found) are the caller's codes, never input's
CREATE TABLE error_states (state text PRIMARY KEY, n bigint, example text);

-- NBT that converts to JSON must come back from JSON as the same tree:
-- any failure there is a bug, reported as an internal error
CREATE FUNCTION json_invariant(b bytea) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  j jsonb := slime_nbt_to_json(b);
BEGIN
  BEGIN
    IF slime_nbt_to_json(slime_json_to_nbt(j)) IS DISTINCT FROM j THEN
      RAISE EXCEPTION 'JSON round trip changed the tree';
    END IF;
  EXCEPTION WHEN others THEN
    RAISE EXCEPTION 'JSON round trip failed: %', SQLERRM USING ERRCODE = 'XX000';
  END;
END $$;

-- call one function on one input; count its result or error
CREATE FUNCTION try(p_fn text, p_sql text, p_arg bytea) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  BEGIN
    EXECUTE p_sql USING p_arg;
    INSERT INTO outcomes VALUES (p_fn, 1, 0) ON CONFLICT ON CONSTRAINT outcomes_pkey DO UPDATE SET ok = outcomes.ok + 1;
  EXCEPTION WHEN others THEN
    -- an internal error (XX000) would mean an unhandled case: count it apart
    IF SQLSTATE = 'XX000' THEN
      RAISE WARNING 'internal error in %: %', p_fn, SQLERRM;
      p_fn := p_fn || ' XX000';
    END IF;
    INSERT INTO outcomes VALUES (p_fn, 0, 1) ON CONFLICT ON CONSTRAINT outcomes_pkey DO UPDATE SET errors = outcomes.errors + 1;
    INSERT INTO error_states VALUES (SQLSTATE, 1, p_fn || ': ' || left(SQLERRM, 200))
      ON CONFLICT (state) DO UPDATE SET n = error_states.n + 1;
  END;
END $$;

-- put one input through every function that reads its kind
CREATE FUNCTION hostile_input(p_kind text, p_input bytea) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF p_kind = 'region' THEN
    PERFORM try('slime_import_region', 'SELECT slime_import_region($1, 0, 0)', p_input);
    PERFORM try('slime_import_region lenient', 'SELECT slime_info(slime_import_region($1, 0, 0, strict => false))', p_input);
    PERFORM try('slime_import_region entities', 'SELECT slime_import_region(NULL, 0, 0, entities => $1, strict => false)', p_input);
    PERFORM try('export after lenient import', 'SELECT slime_export_region(slime_import_region($1, 0, 0, strict => false), 0, 0)', p_input);
    PERFORM try('slime_import_region external', 'SELECT slime_import_region($1, 0, 0, strict => false, external => ARRAY[slime_mcc(0, 0, $1)])', p_input);
  ELSIF p_kind = 'slimefile' THEN
    PERFORM try('slime_from_slimefile', 'SELECT slime_info(slime_from_slimefile($1))', p_input);
    PERFORM try('slime_to_slimefile(slime_from_slimefile)', 'SELECT slime_to_slimefile(slime_from_slimefile($1))', p_input);
  ELSIF p_kind = 'schematic' THEN
    PERFORM try('slime_paste', 'SELECT slime_paste((SELECT w FROM hostile_world), $1, -30, 60, 1030)', p_input);
  ELSIF p_kind = 'entry' THEN
    PERFORM try('slime_store_entry_check', 'SELECT slime_store_entry_check(substring($1 FOR 32), substring($1 FROM 33))', p_input);
    PERFORM try('slime_store_entry_settle', 'SELECT slime_store_entry_settle(substring($1 FOR 32), substring($1 FROM 33))', p_input);
    PERFORM try('read through a damaged entry', 'SELECT read_through(substring($1 FOR 32), substring($1 FROM 33))', p_input);
  ELSIF p_kind = 'cold' THEN
    PERFORM try('slime_loader_load of a damaged cold form', 'SELECT load_kept($1)', p_input);
  ELSIF p_kind = 'hot' THEN
    PERFORM try('slime_loader_load of a damaged hot form', 'SELECT load_kept($1)', p_input);
  ELSIF p_kind = 'pack' THEN
    PERFORM try('read through a damaged pack', 'SELECT read_through_pack($1)', p_input);
  ELSIF p_kind = 'value' THEN
    PERFORM try('bytea::slime', 'SELECT $1::slime', p_input);
    PERFORM try('slime_in', 'SELECT (''\x'' || encode($1, ''hex''))::slime', p_input);
    PERFORM try('slime_info unchecked', 'SELECT slime_info(slime_unchecked($1))', p_input);
    PERFORM try('slime_chunks unchecked', 'SELECT count(*) FROM slime_chunks(slime_unchecked($1))', p_input);
    PERFORM try('slime_chunk_nbt unchecked', 'SELECT slime_chunk_nbt(slime_unchecked($1), 0, 0)', p_input);
    PERFORM try('slime_export_region unchecked', 'SELECT slime_export_region(slime_unchecked($1), 0, 0)', p_input);
    PERFORM try('slime_regions unchecked', 'SELECT count(*) FROM slime_regions(slime_unchecked($1))', p_input);
    PERFORM try('slime_level unchecked', 'SELECT slime_level(slime_unchecked($1))', p_input);
    PERFORM try('slime_merge unchecked', 'SELECT slime_merge(slime_unchecked($1))', p_input);
    PERFORM try('slime_recompress unchecked', 'SELECT slime_recompress(slime_unchecked($1), 1)', p_input);
    PERFORM try('slime = unchecked', 'SELECT slime_unchecked($1) = slime_unchecked($1)', p_input);
    PERFORM try('slime_verify unchecked', 'SELECT slime_verify(slime_unchecked($1))', p_input);
    PERFORM try('slime_block_totals unchecked', 'SELECT slime_block_totals(slime_unchecked($1))', p_input);
    PERFORM try('slime_block_counts unchecked', 'SELECT count(*) FROM slime_block_counts(slime_unchecked($1))', p_input);
    PERFORM try('slime_block_names unchecked', 'SELECT slime_block_names(slime_unchecked($1))', p_input);
    PERFORM try('slime_entity_totals unchecked', 'SELECT slime_entity_totals(slime_unchecked($1))', p_input);
    PERFORM try('slime_delete_chunk unchecked', 'SELECT slime_info(slime_delete_chunk(slime_unchecked($1), 0, 0))', p_input);
    PERFORM try('slime_put_chunk unchecked', 'SELECT slime_info(slime_put_chunk(slime_unchecked($1), 0, 0, (SELECT nbt FROM hostile_chunk)))', p_input);
    PERFORM try('slime_chunk_json unchecked', 'SELECT slime_chunk_json(slime_unchecked($1), 0, 0)', p_input);
    PERFORM try('slime_to_slimefile unchecked', 'SELECT slime_to_slimefile(slime_unchecked($1))', p_input);
    PERFORM try('slime_extract unchecked', 'SELECT slime_extract(slime_unchecked($1), -40, 0, -40, 40, 100, 40)', p_input);
    PERFORM try('slime_store unchecked', 'SELECT slime_info(slime_store(slime_unchecked($1)))', p_input);
    PERFORM try('slime_resolve unchecked', 'SELECT slime_info(slime_resolve(slime_unchecked($1)))', p_input);
    PERFORM try('slime_refs unchecked', 'SELECT slime_refs(slime_unchecked($1))', p_input);
    PERFORM try('slime_render_map unchecked', 'SELECT slime_render_map(slime_unchecked($1))', p_input);
    PERFORM try('slime_render_tile unchecked', 'SELECT slime_render_tile(slime_unchecked($1), -1, 0, 0)', p_input);
  ELSE
    PERFORM try('slime_nbt_to_json', 'SELECT slime_nbt_to_json($1)', p_input);
    PERFORM try('slime_file_json nbt', 'SELECT slime_file_json(''playerdata/x.dat'', $1)', p_input);
    PERFORM try('slime_file_json json', 'SELECT slime_file_json(''stats/x.json'', $1)', p_input);
    PERFORM try('json round trip', 'SELECT json_invariant($1)', p_input);
    PERFORM try('slime_block_counts', 'SELECT count(*) FROM slime_block_counts(slime_put_chunk(NULL, 0, 0, $1))', p_input);
    PERFORM try('slime_biome_counts', 'SELECT count(*) FROM slime_biome_counts(slime_put_chunk(NULL, 0, 0, $1))', p_input);
    PERFORM try('slime_block_names', 'SELECT slime_block_names(slime_put_chunk(NULL, 0, 0, $1))', p_input);
    PERFORM try('slime_entity_totals', 'SELECT slime_entity_totals(slime_put_chunk(NULL, 0, 0, $1))', p_input);
    PERFORM try('slime_block', 'SELECT slime_block(slime_put_chunk(NULL, 0, 0, $1), 3, 64, 5)', p_input);
    PERFORM try('slime_render_map', 'SELECT slime_render_map(slime_put_chunk(NULL, 0, 0, $1), scale => 2)', p_input);
    PERFORM try('slime_render_tile', 'SELECT slime_render_tile(slime_put_chunk(NULL, 0, 0, $1), -2, 0, 0)', p_input);
    PERFORM try('slime_render_map_colors y_max', 'SELECT slime_render_map_colors(slime_put_chunk(NULL, 0, 0, $1), 40)', p_input);
    PERFORM try('slime_block_entities', 'SELECT count(*) FROM slime_block_entities(slime_put_chunk(NULL, 0, 0, $1))', p_input);
    PERFORM try('slime_entities', 'SELECT count(*) FROM slime_entities(slime_put_chunk(NULL, 0, 0, $1))', p_input);
    PERFORM try('slime_put_chunk', 'SELECT slime_put_chunk(NULL, 0, 0, $1)', p_input);
    PERFORM try('slime_extract', 'SELECT slime_extract(slime_put_chunk(NULL, 0, 0, $1), 0, -64, 0, 15, 319, 15)', p_input);
    PERFORM try('slime_with_level', 'SELECT slime_with_level(slime_put_chunk(NULL, 0, 0, (SELECT nbt FROM hostile_chunk)), $1)', p_input);
  END IF;
END $$;
