-- helpers of bench_settle.sh
-- bytes at rest of a table of values in reference form: the table (heap,
-- TOAST, indexes) and the whole chunk store (its table and packs)
CREATE FUNCTION at_rest(t regclass) RETURNS bigint LANGUAGE sql AS $$
  SELECT pg_total_relation_size(t) + pg_total_relation_size('slime_store')
         + pg_total_relation_size('slime_store_packs') $$;
-- the best of n runs of a statement, in milliseconds
CREATE FUNCTION best_ms(q text, n int) RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz; best numeric;
BEGIN
  FOR i IN 1 .. n LOOP
    t0 := clock_timestamp();
    EXECUTE q;
    best := least(best, 1000 * extract(epoch FROM clock_timestamp() - t0));
  END LOOP;
  RETURN round(best, 1);
END $$;
