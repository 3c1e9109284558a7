-- test/bench/bench_scale_util.sql: the measuring helpers of bench_scale.sh.

-- The TOAST values a table holds (chunk 0 of each): how many of its TOAST
-- table's 2^32 value ids it uses now.
CREATE FUNCTION bench_toast_values(t regclass) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  tt regclass := (SELECT NULLIF(c.reltoastrelid, 0)::regclass FROM pg_class c WHERE c.oid = t);
  n bigint;
BEGIN
  IF tt IS NULL THEN
    RETURN 0;
  END IF;
  EXECUTE format('SELECT count(*) FROM %s WHERE chunk_seq = 0', tt) INTO n;
  RETURN n;
END $$;

-- The tables named, and with with_ext every table of the extension.
CREATE FUNCTION bench_tables(names text[], with_ext boolean) RETURNS SETOF regclass LANGUAGE sql AS $$
  SELECT n::regclass FROM unnest(names) n
  UNION
  SELECT c.oid::regclass FROM pg_depend d JOIN pg_class c ON c.oid = d.objid
  WHERE with_ext AND d.classid = 'pg_class'::regclass AND d.deptype = 'e' AND c.relkind = 'r'
    AND d.refobjid = (SELECT e.oid FROM pg_extension e WHERE e.extname = 'slime')
$$;

-- Per table: heap (with its FSM and VM), TOAST (with its index), indexes,
-- TOAST values held, rows.
CREATE FUNCTION bench_rels(names text[], with_ext boolean)
RETURNS TABLE (rel text, heap bigint, toast bigint, idx bigint, toast_values bigint, nrows bigint)
LANGUAGE plpgsql AS $$
DECLARE
  t regclass;
  tt oid;
BEGIN
  FOR t IN SELECT b FROM bench_tables(names, with_ext) b ORDER BY b::text LOOP
    tt := (SELECT c.reltoastrelid FROM pg_class c WHERE c.oid = t);
    rel := t::text;
    toast := CASE WHEN tt = 0 THEN 0 ELSE pg_total_relation_size(tt) END;
    heap := pg_table_size(t) - toast;
    idx := pg_indexes_size(t);
    toast_values := bench_toast_values(t);
    EXECUTE format('SELECT count(*) FROM %s', t) INTO nrows;
    RETURN NEXT;
  END LOOP;
END $$;

-- Every index of those tables and its size.
CREATE FUNCTION bench_indexes(names text[], with_ext boolean)
RETURNS TABLE (idx text, bytes bigint) LANGUAGE sql AS $$
  SELECT i.indexrelid::regclass::text, pg_relation_size(i.indexrelid)
  FROM pg_index i WHERE i.indrelid IN (SELECT bench_tables(names, with_ext))
  ORDER BY 1
$$;

-- The bytes of the values a kind keeps (pg_column_size: as stored, TOAST
-- or not), without page overhead or free space: what the relations would
-- take if packed full. Store rows count their key too.
CREATE FUNCTION bench_live_bytes(kind text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  store bigint := 0;
BEGIN
  IF kind IN ('plain', 'loader') THEN
    store := (SELECT coalesce(sum(pg_column_size(s.data) + pg_column_size(s.hash)), 0) FROM slime_store s)
           + (SELECT coalesce(sum(pg_column_size(p.data)), 0) FROM slime_store_packs p);
  END IF;
  IF kind = 'plain' THEN
    RETURN store + (SELECT coalesce(sum(pg_column_size(i.world)), 0) FROM islands i);
  ELSIF kind = 'loader' THEN
    RETURN store + (SELECT coalesce(sum(pg_column_size(l.data)), 0) FROM ldr l)
           + (SELECT coalesce(sum(coalesce(pg_column_size(w.file), 0) + coalesce(pg_column_size(w.memo), 0)), 0) FROM ldr_worlds w)
           -- a warm world's framed file: its frames, a row each, beside its directory
           + (SELECT coalesce(sum(pg_column_size(f.key) + pg_column_size(f.frame)), 0) FROM ldr_frames f);
  ELSE
    RETURN (SELECT coalesce(sum(pg_column_size(f.file)), 0) FROM files f);
  END IF;
END $$;
