-- slime 0.9.0 -> 0.10.0
\echo Use "ALTER EXTENSION slime UPDATE TO '0.10.0'" to load this file. \quit

-- Each section below belongs to one piece of work; keep them apart so that
-- they merge cleanly. A fresh install runs 0.2.0 and every upgrade after it,
-- so what is defined here is also what a new database gets. Every function
-- that is not C pins search_path = pg_catalog, pg_temp and qualifies what it
-- calls.

-- ==== packs that cannot lie (issue #33, item 1) =============================
-- 0.10.0's slime_settle() writes pack version 2, whose directory carries a
-- checksum (doc/format.md, "Packs"), which 0.9.0's library cannot read.
-- Entries of version 1 packs are checked against their keys when read.

-- ==== loader files that cannot lie (issue #33) ====
-- What a loader world's row keeps carries a checksum over what it gives
-- back (doc/format.md, "The loader's kept files"; src/keptfile.c): a save
-- keeps the file in its hot form ("SLHF": the file, then its XXH64),
-- slime_settle() makes the cold form of version 3 (an XXH64 over its
-- header), and the memo is "SLM2" (an XXH64 over it). Forms kept by 0.9.0
-- and earlier (files as they came, cold forms of versions 1 and 2, "SLM1"
-- memos) are read as absent: a load writes the file from the world's newest
-- save, a save converts every chunk once. No table changes: the forms live
-- in the columns they lived in.

-- The hot form of a slime file, as a loader world's row keeps it.
CREATE FUNCTION slime_loader_file_hot(file bytea) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- slime_loader_rollback's body (as in 0.5.0): a file written from the save
-- rolled back to is kept in the hot form, as a save keeps its file; a kept
-- form (hot, cold) moves with its save as it is.
CREATE OR REPLACE FUNCTION slime_loader_rollback_as_owner(tbl regclass, world text, save bigint, token bigint, keep integer DEFAULT NULL)
RETURNS bigint
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	wtbl regclass := @extschema@.slime_loader_worlds(tbl);
	old @extschema@.slime;
	f bytea;
	saved bigint;
BEGIN
	EXECUTE pg_catalog.format('SELECT data FROM %s WHERE world OPERATOR(pg_catalog.=) $1 AND save OPERATOR(pg_catalog.=) $2', tbl)
		INTO old USING world, save;
	IF old IS NULL THEN
		RAISE EXCEPTION 'world "%" has no save %', world, save USING ERRCODE = 'no_data_found';
	END IF;
	EXECUTE pg_catalog.format('SELECT file FROM %s WHERE world OPERATOR(pg_catalog.=) $1 AND saves OPERATOR(pg_catalog.=) $2', wtbl)
		INTO f USING world, save;
	IF f IS NULL THEN
		BEGIN
			f := @extschema@.slime_loader_file_hot(@extschema@.slime_to_slimefile(old));
		EXCEPTION WHEN feature_not_supported THEN
			RAISE EXCEPTION 'world "%": save % cannot be rolled back to: no slime file a load could give back holds its world', world, save
				USING ERRCODE = 'feature_not_supported',
					  DETAIL = SQLERRM,
					  HINT = 'The file such a save came from is kept only while it is the newest save; save the world again from that file.';
		END;
	END IF;
	saved := @extschema@.slime_loader_insert(tbl, world, token, old, keep);
	EXECUTE pg_catalog.format('UPDATE %s SET file = $2 WHERE world OPERATOR(pg_catalog.=) $1', wtbl) USING world, f;
	RETURN saved;
END
$$;

-- ==== a world's own data (issue #36) =================================
-- A world folder's own files (player data, stats and advancements, maps,
-- raids, scoreboards, data packs: everything but its chunk files) live in a
-- table beside the world rows, (world text, path text, data bytea), which
-- clients/import-world.sh makes as <table>_files and slimetool copy-world
-- --files fills; these read them. slime_level() writes level.dat the way
-- the game of its DataVersion gzips it (0.10.0's library).

-- A world file as JSON by its name: NBT (.dat, .dat_old, .nbt, ...; gzip,
-- zlib or plain) by the lossless mapping of slime_nbt_to_json, JSON (.json,
-- .mcmeta) as it is, NULL for a file of bytes only (zip, png, uid.dat).
CREATE FUNCTION slime_file_json(path text, data bytea) RETURNS jsonb
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- What slime_file_json reads a world file as, by its name: nbt, json or bytes.
CREATE FUNCTION slime_file_kind(path text) RETURNS text
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
-- ==== contents without decoding (issue #32) =================================
-- Every value written from 0.10.0 carries a contents summary (doc/format.md,
-- "Contents summary"): the counts of its block states, biomes, block entities
-- and entities, read from its header slice. The counts, totals and
-- slime_block_names read it; values written before (no summary) still answer
-- by decoding, and slime_recompress(world) writes one. No value is rewritten
-- here (README, "Upgrading": a pass over every value of every table is what
-- maintenance must not cost).

-- every block name a world holds, sorted; IMMUTABLE, for a GIN expression index
CREATE FUNCTION slime_block_names(world slime) RETURNS text[]
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 100;

-- entities counted by id across worlds, as slime_block_entity_totals counts block entities
CREATE FUNCTION slime_entity_totals_transfn(internal, slime) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE PARALLEL SAFE COST 100;
CREATE AGGREGATE slime_entity_totals(slime) (
	SFUNC = @extschema@.slime_entity_totals_transfn, STYPE = internal,
	COMBINEFUNC = @extschema@.slime_totals_combinefn, SERIALFUNC = @extschema@.slime_totals_serialfn,
	DESERIALFUNC = @extschema@.slime_totals_deserialfn, FINALFUNC = @extschema@.slime_totals_finalfn,
	PARALLEL = SAFE
);

-- a value without a summary has it written by slime_recompress, and a chunk
-- slime_delete_chunk drops leaves the summary: both read stored chunks now
ALTER FUNCTION slime_recompress(slime, integer) STABLE;
ALTER FUNCTION slime_delete_chunk(slime, integer, integer) STABLE;

-- what the planner is told they cost. At 0.9.0's COST 1 a totals aggregate
-- looked as cheap as count(*), and no parallel plan paid its setup (issue
-- #32: serial at 10 ms an island). Reading a summary takes about 15 us,
-- some 5,000 cpu_operator_costs, but COST 1000 and more already make
-- postgres_fdw keep per-island totals (GROUP BY the distribution column) on
-- the coordinator: its pushed-down aggregate counts every transition as
-- startup cost, and when the totals tie the local plan's earlier start
-- wins. COST 100 gets parallel plans for every table past
-- min_parallel_table_scan_size and keeps that pushdown
-- (test/bench/README.md, section 15).
ALTER FUNCTION slime_block_totals_transfn(internal, slime) COST 100;
ALTER FUNCTION slime_biome_totals_transfn(internal, slime) COST 100;
ALTER FUNCTION slime_block_entity_totals_transfn(internal, slime) COST 100;
ALTER FUNCTION slime_block_counts(slime) COST 100;
ALTER FUNCTION slime_biome_counts(slime) COST 100;


-- ==== garbage collection that costs what changed (issue #32; #33, items 2 and 3) ====
-- slime_gc() of 0.4.0-0.9.0 read every slime value in the database on every
-- run, and its test for a live entry ran once per store row over all of them
-- (quadratic: 2,000 islands 2.6 s, 8,000 islands 55 s). References are now
-- counted as values are written, and a collection reads what changed since
-- the last one (doc/format.md, "Garbage collection"; README, "Running it"):
--   * a table with slime_track()'s trigger is *tracked*: the row trigger
--     slime_track_trigger() logs what each write adds to and takes from its
--     values' references (slime_store_refs_log), and slime_gc() folds the
--     log into per-table counts (slime_store_refs). A tracked table is never
--     read by a collection (so a role's lock on it holds no collection up),
--     except once, when its counts start: the first collection after its
--     trigger was made, changed, or its rows were rewritten (TRUNCATE,
--     ALTER TABLE ... TYPE, VACUUM FULL: slime_store_tracked keeps what the
--     counts were made for);
--   * new store entries are logged by the store's own trigger;
--   * the candidates of a run are the entries logged new and those whose
--     counts fell to zero since the last run; a candidate no count holds is
--     looked for in the columns of untracked tables (a semi-join of their
--     references with the candidates), and removed when found nowhere. One
--     found there only is a candidate of every later run too
--     (slime_store_recheck): an untracked table's deletes are not logged; so
--     is one a save pinned while the run went on (the save may not commit);
--   * the log, the counts and what they were made for are derived state in
--     unlogged tables, never dumped: after a crash, a restore or this
--     upgrade, the first slime_gc() finds no state and runs in full (every
--     table read once, every entry a candidate), as slime_gc(full => true)
--     does. We chose this over counting at ALTER EXTENSION UPDATE time: the
--     update stays instant and holds no lock for a scan, and the full run
--     keeps the collection's lock protocol (saves go on meanwhile).
CREATE UNLOGGED TABLE slime_store_refs_log (
	rel oid NOT NULL,				-- the table written; 0: new store entries
	hashes bytea[] NOT NULL,
	deltas integer[] NOT NULL		-- per hash: values that gained (+) or lost (-) it
);
COMMENT ON TABLE slime_store_refs_log IS 'slime: store references tracked tables gained and lost, and new store entries, since the last slime_gc()';
CREATE UNLOGGED TABLE slime_store_refs (
	hash bytea NOT NULL,
	rel oid NOT NULL,
	refs bigint NOT NULL,			-- values of the table that refer to the entry
	PRIMARY KEY (hash, rel)
) WITH (fillfactor = 90);
CREATE INDEX slime_store_refs_rel ON slime_store_refs (rel);
COMMENT ON TABLE slime_store_refs IS 'slime: per tracked table, how many of its values refer to each store entry (slime_gc())';
CREATE UNLOGGED TABLE slime_store_tracked (
	rel oid PRIMARY KEY,
	fingerprint text NOT NULL		-- the trigger, the table's storage and slime columns the counts were made for
);
COMMENT ON TABLE slime_store_tracked IS 'slime: the tracked tables whose references slime_store_refs counts';
CREATE UNLOGGED TABLE slime_store_gc_state (
	one boolean PRIMARY KEY DEFAULT true CHECK (one),
	last_run timestamptz NOT NULL,
	last_full timestamptz NOT NULL
);
COMMENT ON TABLE slime_store_gc_state IS 'slime: when slime_gc() last ran (no row: the next run reads everything)';
CREATE UNLOGGED TABLE slime_store_recheck (hash bytea PRIMARY KEY);
COMMENT ON TABLE slime_store_recheck IS 'slime: candidates the next slime_gc() looks at again (held by untracked tables only, or pinned)';
CREATE UNLOGGED TABLE slime_store_pack_check (id bigint NOT NULL);
COMMENT ON TABLE slime_store_pack_check IS 'slime: packs store rows moved out of, for slime_gc() to free when empty';
REVOKE ALL ON slime_store_refs_log, slime_store_refs, slime_store_tracked, slime_store_gc_state,
	slime_store_recheck, slime_store_pack_check FROM PUBLIC;

-- How many values slime_refs() has read in this session (slime_gc() reports its share).
CREATE FUNCTION slime_gc_values_read() RETURNS bigint
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT;
REVOKE ALL ON FUNCTION slime_gc_values_read() FROM PUBLIC;

-- The tracking trigger (src/gctrack.c); slime_track() puts it on a table.
CREATE FUNCTION slime_track_trigger() RETURNS trigger
	AS 'MODULE_PATHNAME' LANGUAGE C;

-- New store entries are candidates of the next collection. ENABLE ALWAYS:
-- entries a logical replication subscription brings are logged too.
CREATE FUNCTION slime_store_log_new() RETURNS trigger
	AS 'MODULE_PATHNAME' LANGUAGE C;
REVOKE ALL ON FUNCTION slime_store_log_new() FROM PUBLIC;
CREATE TRIGGER slime_store_log_new AFTER INSERT ON slime_store
	FOR EACH ROW EXECUTE FUNCTION slime_store_log_new();
ALTER TABLE slime_store ENABLE ALWAYS TRIGGER slime_store_log_new;

-- The packs store rows move out of (slime_settle() repacking, thinning) are
-- checked by the next collection, which frees those left empty: two settles
-- repacking one pack's entries at once may each leave it to the other.
-- (0.7.0-0.9.0 found such packs with a pass over the store in every delete.)
CREATE FUNCTION slime_store_pack_moves() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
	INSERT INTO @extschema@.slime_store_pack_check (id)
	SELECT DISTINCT m.pack FROM moved m WHERE m.pack IS NOT NULL;
	RETURN NULL;
END
$$;
REVOKE ALL ON FUNCTION slime_store_pack_moves() FROM PUBLIC;
CREATE TRIGGER slime_store_pack_moves AFTER UPDATE ON slime_store
	REFERENCING OLD TABLE AS moved
	FOR EACH STATEMENT EXECUTE FUNCTION slime_store_pack_moves();

-- How many store rows point into each pack, as the statements deleting store
-- rows (slime_gc()'s) leave them: set when slime_settle() makes the pack
-- (or counted once, when a pack of 0.9.0 first loses a row), then kept.
-- Derived state (unlogged: counted again after a crash); packs
-- slime_settle() moves rows out of are counted again by the next
-- collection (slime_store_pack_check).
CREATE UNLOGGED TABLE slime_store_pack_live (id bigint PRIMARY KEY, live integer NOT NULL);
COMMENT ON TABLE slime_store_pack_live IS 'slime: live store rows per pack, kept by the deletes of slime_gc()';
-- The packs a delete left less than half alive: the next collection sets
-- their rows unsettled (for slime_settle() to repack), outside the store
-- lock its delete holds (0.8.0-0.9.0 did it in the delete, every save
-- waiting meanwhile).
CREATE UNLOGGED TABLE slime_store_pack_thin (id bigint PRIMARY KEY);
COMMENT ON TABLE slime_store_pack_thin IS 'slime: packs less than half alive, whose rows the next slime_gc() sets unsettled';
REVOKE ALL ON slime_store_pack_live, slime_store_pack_thin FROM PUBLIC;
-- a new pack (slime_settle()) starts with every entry it holds alive: its
-- rows point into it in the same transaction
CREATE FUNCTION slime_store_pack_born() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
	INSERT INTO @extschema@.slime_store_pack_live AS k (id, live)
	VALUES (NEW.id, @extschema@.slime_pack_entries(NEW.data))
	ON CONFLICT (id) DO UPDATE SET live = excluded.live;
	RETURN NULL;
END
$$;
REVOKE ALL ON FUNCTION slime_store_pack_born() FROM PUBLIC;
CREATE TRIGGER slime_store_pack_born AFTER INSERT ON slime_store_packs
	FOR EACH ROW EXECUTE FUNCTION slime_store_pack_born();

-- A statement deleting store rows frees the packs it left empty and notes
-- those it left less than half alive (0.8.0's rule), from the packs of the
-- rows it deleted and their kept counts: cost what was deleted. 0.7.0-0.9.0
-- looked at every pack (a pass over the store), counted the live rows of
-- each pack a delete touched (a pack's worth of rows per deleted entry) and
-- set the thin ones' rows unsettled while the delete held the store.
CREATE OR REPLACE FUNCTION slime_store_free_packs() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	touched bigint[];
BEGIN
	WITH g AS (SELECT g.pack, pg_catalog.count(*)::integer AS n FROM gone g WHERE g.pack IS NOT NULL GROUP BY g.pack),
		 u AS (UPDATE @extschema@.slime_store_pack_live k SET live = k.live OPERATOR(pg_catalog.-) g.n
			   FROM g WHERE k.id OPERATOR(pg_catalog.=) g.pack RETURNING k.id),
		 i AS (INSERT INTO @extschema@.slime_store_pack_live (id, live)
			   SELECT g.pack, (SELECT pg_catalog.count(*) FROM @extschema@.slime_store s
							   WHERE s.pack OPERATOR(pg_catalog.=) g.pack)
			   FROM g WHERE NOT EXISTS (SELECT 1 FROM @extschema@.slime_store_pack_live k
										WHERE k.id OPERATOR(pg_catalog.=) g.pack)
			   RETURNING id)
	SELECT pg_catalog.array_agg(t.id) INTO touched FROM (SELECT u.id FROM u UNION ALL SELECT i.id FROM i) t;
	IF touched IS NULL THEN
		RETURN NULL;
	END IF;
	-- empty: freed (found empty by its key, whatever the count says)
	WITH f AS (DELETE FROM @extschema@.slime_store_packs p
			   USING @extschema@.slime_store_pack_live k
			   WHERE p.id OPERATOR(pg_catalog.=) ANY (touched) AND k.id OPERATOR(pg_catalog.=) p.id
				 AND k.live OPERATOR(pg_catalog.<=) 0
				 AND NOT EXISTS (SELECT 1 FROM @extschema@.slime_store s WHERE s.pack OPERATOR(pg_catalog.=) p.id)
			   RETURNING p.id)
	DELETE FROM @extschema@.slime_store_pack_live k USING f WHERE k.id OPERATOR(pg_catalog.=) f.id;
	-- less than half alive: its rows are set unsettled, for slime_settle() to
	-- repack, by the next collection (slime_store_pack_thin)
	INSERT INTO @extschema@.slime_store_pack_thin (id)
	SELECT p.id FROM @extschema@.slime_store_packs p
	JOIN @extschema@.slime_store_pack_live k ON k.id OPERATOR(pg_catalog.=) p.id
	WHERE p.id OPERATOR(pg_catalog.=) ANY (touched)
	  AND k.live OPERATOR(pg_catalog.*) 2 OPERATOR(pg_catalog.<) @extschema@.slime_pack_entries(p.data)
	ON CONFLICT DO NOTHING;
	RETURN NULL;
END
$$;

-- Track tbl's references (a table holding slime or slime[] columns): the
-- trigger slime_track, AFTER INSERT OR UPDATE OR DELETE FOR EACH ROW, ENABLE
-- ALWAYS (so that rows logical replication or session_replication_role =
-- replica write are counted too). On a partitioned table, its partitions get
-- it. Needs the rights CREATE TRIGGER needs (the table's owner). The next
-- slime_gc() reads the table once to start its counts, and never again.
CREATE FUNCTION slime_track(tbl regclass) RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_trigger t
				   WHERE t.tgrelid OPERATOR(pg_catalog.=) tbl AND t.tgname OPERATOR(pg_catalog.=) 'slime_track') THEN
		EXECUTE pg_catalog.format('CREATE TRIGGER slime_track AFTER INSERT OR UPDATE OR DELETE ON %s '
								  'FOR EACH ROW EXECUTE FUNCTION @extschema@.slime_track_trigger()', tbl);
	END IF;
	EXECUTE pg_catalog.format('ALTER TABLE %s ENABLE ALWAYS TRIGGER slime_track', tbl);
END
$$;

-- Every table (and materialized view) with slime values, and whether
-- slime_gc() tracks it: columns (those holding slime), kinds (1 slime, 2
-- slime[], 3 inside a composite type: never read), why_not (NULL when
-- tracked: what to fix), readable (false: another session's temporary
-- table, an unpopulated materialized view), fingerprint (what the counts of
-- a tracked table are made for: its trigger's row, its storage, its slime
-- columns' rows; any change makes the next collection count it again).
CREATE FUNCTION slime_tracking(OUT rel regclass, OUT columns name[], OUT kinds integer[],
		OUT tracked boolean, OUT why_not text, OUT readable boolean, OUT fingerprint text)
RETURNS SETOF record
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
	SELECT c.oid::pg_catalog.regclass, a.cols, a.kinds,
		   w.why IS NULL,
		   w.why,
		   NOT (c.relpersistence OPERATOR(pg_catalog.=) 't'
				AND c.relnamespace OPERATOR(pg_catalog.<>) pg_catalog.pg_my_temp_schema()
				OR c.relkind OPERATOR(pg_catalog.=) 'm' AND NOT c.relispopulated),
		   pg_catalog.concat_ws('/', tr.tg, c.relfilenode, a.atts)
	FROM pg_catalog.pg_class c
	JOIN LATERAL (
		SELECT pg_catalog.array_agg(x.attname ORDER BY x.attnum) AS cols,
			   pg_catalog.array_agg(@extschema@.slime_type_holds(x.atttypid) ORDER BY x.attnum) AS kinds,
			   pg_catalog.string_agg(x.attnum::text OPERATOR(pg_catalog.||) ':' OPERATOR(pg_catalog.||) x.xmin::text,
									 ',' ORDER BY x.attnum) AS atts
		FROM pg_catalog.pg_attribute x
		WHERE x.attrelid OPERATOR(pg_catalog.=) c.oid AND x.attnum OPERATOR(pg_catalog.>) 0 AND NOT x.attisdropped
		  -- a type made by initdb (OID below 16384) holds no slime value
		  AND x.atttypid OPERATOR(pg_catalog.>=) 16384::pg_catalog.oid
		  AND @extschema@.slime_type_holds(x.atttypid) OPERATOR(pg_catalog.>) 0) a ON a.cols IS NOT NULL
	CROSS JOIN LATERAL (
		SELECT pg_catalog.count(*) AS n,
			   pg_catalog.bool_and(t.tgtype OPERATOR(pg_catalog.=) 29 AND t.tgqual IS NULL
								   AND pg_catalog.cardinality(t.tgattr::pg_catalog.int2[]) OPERATOR(pg_catalog.=) 0
								   AND t.tgconstraint OPERATOR(pg_catalog.=) 0) AS shape,
			   pg_catalog.bool_and(t.tgenabled OPERATOR(pg_catalog.=) 'A') AS always,
			   pg_catalog.min(t.oid::text OPERATOR(pg_catalog.||) ':' OPERATOR(pg_catalog.||) t.xmin::text) AS tg
		FROM pg_catalog.pg_trigger t
		WHERE t.tgrelid OPERATOR(pg_catalog.=) c.oid
		  AND t.tgfoid OPERATOR(pg_catalog.=) '@extschema@.slime_track_trigger()'::pg_catalog.regprocedure) tr
	CROSS JOIN LATERAL (
		SELECT CASE
			WHEN c.relkind OPERATOR(pg_catalog.=) 'm' THEN 'a materialized view has no triggers'
			WHEN tr.n OPERATOR(pg_catalog.=) 0 THEN pg_catalog.format('no tracking trigger: SELECT slime_track(%L)', c.oid::pg_catalog.regclass)
			WHEN tr.n OPERATOR(pg_catalog.>) 1 THEN 'more than one slime_track_trigger() trigger'
			WHEN NOT tr.shape THEN 'its slime_track_trigger() trigger is not AFTER INSERT OR UPDATE OR DELETE FOR EACH ROW, for every row'
			WHEN NOT tr.always THEN pg_catalog.format('its tracking trigger is disabled or not ENABLE ALWAYS: SELECT slime_track(%L)', c.oid::pg_catalog.regclass)
			END AS why) w
	WHERE c.relkind IN ('r', 'm')
$$;

-- Wait for ACCESS SHARE on tbl as slime_gc() waits for a lock
-- (slime_gc_try_lock): got it (true), another session held it for longer
-- than slime.gc_lock_wait (false), or the table was dropped meanwhile
-- (NULL); the lock goes by name, so a table renamed meanwhile is found again.
CREATE FUNCTION slime_gc_lock_table(tbl regclass) RETURNS boolean
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	qname text;
	got boolean;
BEGIN
	LOOP
		qname := (SELECT pg_catalog.format('%I.%I', n.nspname, c.relname)
				  FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
				  WHERE c.oid OPERATOR(pg_catalog.=) tbl);
		IF qname IS NULL THEN
			RETURN NULL;
		END IF;
		-- a query takes the lock: LOCK TABLE refuses materialized views
		got := @extschema@.slime_gc_try_lock(pg_catalog.format('SELECT FROM ONLY %s LIMIT 0', qname), 100);
		IF got IS NOT NULL AND pg_catalog.to_regclass(qname) IS NOT DISTINCT FROM tbl THEN
			RETURN got;
		END IF;
	END LOOP;
END
$$;
REVOKE ALL ON FUNCTION slime_gc_lock_table(regclass) FROM PUBLIC;

-- The references of tbl's slime and slime[] columns (cols, kinds) as a
-- query of one column h, a row per value and hash (each value's distinct
-- hashes). Each column is cast to the extension's own type, so that no
-- overload a role made for its domain is called.
CREATE FUNCTION slime_gc_refs_sql(tbl regclass, cols name[], kinds integer[]) RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
	SELECT pg_catalog.string_agg(CASE k.kind
		WHEN 1 THEN pg_catalog.format('SELECT r.h FROM ONLY %s t, '
			'pg_catalog.unnest(@extschema@.slime_refs(t.%I::@extschema@.slime)) r(h)', tbl, k.col)
		ELSE pg_catalog.format('SELECT r.h FROM ONLY %s t, pg_catalog.unnest(t.%I) v(w), '
			'pg_catalog.unnest(@extschema@.slime_refs(v.w::@extschema@.slime)) r(h)', tbl, k.col) END,
		' UNION ALL ')
	FROM ROWS FROM (pg_catalog.unnest(cols), pg_catalog.unnest(kinds)) k(col, kind)
	WHERE k.kind IN (1, 2)
$$;
REVOKE ALL ON FUNCTION slime_gc_refs_sql(regclass, name[], integer[]) FROM PUBLIC;

-- Start (or start again) the counts of tracked table tbl from one read of
-- it: its old counts go (their hashes are returned, candidates of this
-- run), its log rows are consumed under the same snapshot as the read, and
-- what it was counted for is kept. NULL when it could not be read (locked
-- past slime.gc_lock_wait, or dropped meanwhile: *gone).
CREATE FUNCTION slime_gc_count_table(tbl regclass, cols name[], kinds integer[], fingerprint text,
		OUT released bytea[], OUT gone boolean)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	got boolean := @extschema@.slime_gc_lock_table(tbl);
BEGIN
	gone := got IS NULL;
	IF NOT coalesce(got, false) THEN
		RETURN;
	END IF;
	WITH d AS (DELETE FROM @extschema@.slime_store_refs x WHERE x.rel OPERATOR(pg_catalog.=) tbl RETURNING x.hash)
	SELECT coalesce(pg_catalog.array_agg(d.hash), '{}') INTO released FROM d;
	IF @extschema@.slime_gc_refs_sql(tbl, cols, kinds) IS NOT NULL THEN
		-- one statement, one snapshot: the log rows it consumes are those of the writes it reads
		EXECUTE pg_catalog.format('WITH l AS (DELETE FROM @extschema@.slime_store_refs_log x '
				'WHERE x.rel OPERATOR(pg_catalog.=) $1), s AS (%s) '
				'INSERT INTO @extschema@.slime_store_refs (hash, rel, refs) '
				'SELECT s.h, $1, pg_catalog.count(*) FROM s GROUP BY s.h',
				@extschema@.slime_gc_refs_sql(tbl, cols, kinds))
			USING tbl::pg_catalog.oid;
	ELSE
		DELETE FROM @extschema@.slime_store_refs_log x WHERE x.rel OPERATOR(pg_catalog.=) tbl;
	END IF;
	INSERT INTO @extschema@.slime_store_tracked AS r (rel, fingerprint) VALUES (tbl, fingerprint)
	ON CONFLICT (rel) DO UPDATE SET fingerprint = excluded.fingerprint;
END
$$;
REVOKE ALL ON FUNCTION slime_gc_count_table(regclass, name[], integer[], text) FROM PUBLIC;

-- slime_gc(): the lock protocol of 0.4.0-0.9.0 (sql/slime--0.3.0--0.4.0.sql
-- and --0.4.0--0.5.0.sql: its lock, then one snapshot's reads while saves go
-- on, pinning; then SHARE ROW EXCLUSIVE on the store for the delete), with
-- the candidates and the reads of what changed (above). full reads every
-- table again and takes every entry as a candidate, as the first run after a
-- crash, a restore or the update to 0.10.0 does by itself. Its result:
-- removed_*; kept_* (the candidates it kept); columns_scanned (columns it
-- read); tables_tracked (tables whose references it took from their
-- counts); candidates; values_read (slime values it read); untracked (tables
-- it had to read, or would have had there been candidates: track them);
-- skipped (tables and columns it could not read: their references were not
-- protected in this run).
ALTER FUNCTION slime_gc() RENAME TO slime_gc_0_9;
CREATE FUNCTION slime_gc(full boolean DEFAULT false,
		OUT removed_entries bigint, OUT removed_bytes bigint,
		OUT kept_entries bigint, OUT kept_bytes bigint, OUT columns_scanned integer,
		OUT tables_tracked integer, OUT candidates bigint, OUT values_read bigint,
		OUT untracked text[], OUT skipped text[])
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET row_security = off
SET lock_timeout = 0
SET max_parallel_workers_per_gather = 0
SET jit = off
AS $$
DECLARE
	reads0 bigint := @extschema@.slime_gc_values_read();
	do_full boolean;
	tb record;
	cl record;
	res record;
	registered oid[] := '{}';		-- tables whose counts hold after this run
	waiting oid[] := '{}';			-- tracked tables it could not count: their log waits
	u_rel oid[] := '{}';			-- untracked tables' readable columns
	u_cols text[] := '{}';
	u_kinds text[] := '{}';
	cand bytea[] := '{}';
	dead bytea[];
	found bytea[];
	broken oid[];
	qsql text;
	i integer;
	got boolean;
BEGIN
	IF pg_catalog.current_setting('transaction_isolation') OPERATOR(pg_catalog.<>) 'read committed' THEN
		RAISE EXCEPTION 'slime_gc() must run at the READ COMMITTED isolation level'
			USING ERRCODE = 'invalid_transaction_state',
				  HINT = 'Its scan must see every value committed before it took its lock.';
	END IF;
	removed_entries := 0; removed_bytes := 0; kept_entries := 0; kept_bytes := 0; candidates := 0;
	columns_scanned := 0; tables_tracked := 0; untracked := '{}'; skipped := '{}';
	-- 1. from here on, saves pin what they rely on (this waits for the saves
	--    in flight, which hold the lock in share mode, and for settles)
	IF NOT @extschema@.slime_gc_try_lock('SELECT @extschema@.slime_gc_lock()', 100) THEN
		RAISE WARNING 'slime_gc() removed nothing: saves kept their transactions open for longer than slime.gc_lock_wait'
			USING HINT = 'A session that called slime_store() or saved through its trigger and has not committed holds the GC back; see pg_stat_activity.';
		values_read := 0;
		RETURN;
	END IF;
	do_full := $1 OR NOT EXISTS (SELECT 1 FROM @extschema@.slime_store_gc_state);
	-- the pins of the runs before: their saves have ended (those still in
	-- flight pinned under this run's lock, their rows not visible here)
	DELETE FROM @extschema@.slime_store_pins;
	-- entries only untracked tables held at the last run, or saves pinned, are looked at again
	WITH h AS (DELETE FROM @extschema@.slime_store_recheck RETURNING hash)
	SELECT coalesce(pg_catalog.array_agg(h.hash), '{}') INTO cand FROM h;
	-- 2. every table with slime values: tracked ones by their counts (read
	--    once when their counts start), untracked ones read below
	FOR tb IN SELECT s.*, k.fingerprint AS counted_for
			 FROM @extschema@.slime_tracking() s
			 LEFT JOIN @extschema@.slime_store_tracked k ON k.rel OPERATOR(pg_catalog.=) s.rel::pg_catalog.oid
			 ORDER BY s.rel::pg_catalog.oid
	LOOP
		FOR cl IN SELECT * FROM ROWS FROM (pg_catalog.unnest(tb.columns), pg_catalog.unnest(tb.kinds)) x(col, kind) WHERE x.kind OPERATOR(pg_catalog.=) 3 LOOP
			RAISE WARNING 'slime_gc() skipped column %.%: it holds slime values inside a composite type, which it cannot scan',
				tb.rel, cl.col
				USING HINT = 'Store entries that only such values refer to are collected; keep self-contained values there (slime_resolve).';
			skipped := skipped OPERATOR(pg_catalog.||) pg_catalog.format('%s.%I', tb.rel, cl.col);
		END LOOP;
		-- (a full run counts every tracked table again; one it cannot read
		-- keeps the counts it had)
		IF tb.tracked AND NOT do_full AND tb.counted_for IS NOT DISTINCT FROM tb.fingerprint THEN
			registered := registered OPERATOR(pg_catalog.||) tb.rel::pg_catalog.oid;
			tables_tracked := tables_tracked OPERATOR(pg_catalog.+) 1;
			CONTINUE;
		END IF;
		CONTINUE WHEN NOT tb.readable AND tb.why_not IS NOT DISTINCT FROM 'a materialized view has no triggers';
		IF NOT tb.readable THEN
			RAISE WARNING 'slime_gc() skipped temporary table % of another session: it cannot scan it', tb.rel
				USING HINT = 'Store entries that only its values refer to are collected; keep self-contained values in temporary tables (slime_resolve), or track the table (slime_track).';
			skipped := skipped OPERATOR(pg_catalog.||) tb.rel::text;
			waiting := waiting OPERATOR(pg_catalog.||) tb.rel::pg_catalog.oid;
			CONTINUE;
		END IF;
		IF tb.tracked THEN
			-- its counts start (again) from one read of it
			SELECT * INTO res FROM @extschema@.slime_gc_count_table(tb.rel, tb.columns, tb.kinds, tb.fingerprint);
			IF res.gone THEN
				CONTINUE;
			ELSIF res.released IS NULL THEN
				RAISE WARNING 'slime_gc() skipped table %: another session held a lock on it for longer than slime.gc_lock_wait', tb.rel
					USING DETAIL = 'Its references are counted from its next read; store entries only its values written before it was tracked refer to are collected.';
				skipped := skipped OPERATOR(pg_catalog.||) tb.rel::text;
				waiting := waiting OPERATOR(pg_catalog.||) tb.rel::pg_catalog.oid;
				CONTINUE;
			END IF;
			cand := cand OPERATOR(pg_catalog.||) res.released;
			registered := registered OPERATOR(pg_catalog.||) tb.rel::pg_catalog.oid;
			tables_tracked := tables_tracked OPERATOR(pg_catalog.+) 1;
			columns_scanned := columns_scanned OPERATOR(pg_catalog.+)
				(SELECT pg_catalog.count(*)::integer FROM pg_catalog.unnest(tb.kinds) k WHERE k IN (1, 2));
			CONTINUE;
		END IF;
		untracked := untracked OPERATOR(pg_catalog.||) tb.rel::text;
		FOR cl IN SELECT * FROM ROWS FROM (pg_catalog.unnest(tb.columns), pg_catalog.unnest(tb.kinds)) x(col, kind) WHERE x.kind IN (1, 2) LOOP
			u_rel := u_rel OPERATOR(pg_catalog.||) tb.rel::pg_catalog.oid;
			u_cols := u_cols OPERATOR(pg_catalog.||) cl.col::text;
			u_kinds := u_kinds OPERATOR(pg_catalog.||) cl.kind::text;
		END LOOP;
	END LOOP;
	-- tables counted before and no longer (dropped, their trigger gone or
	-- changed past counting): their counts go, their entries are candidates
	WITH gone AS (DELETE FROM @extschema@.slime_store_tracked k
				  WHERE k.rel OPERATOR(pg_catalog.<>) ALL (registered) AND k.rel OPERATOR(pg_catalog.<>) ALL (waiting)
				  RETURNING k.rel),
		 d AS (DELETE FROM @extschema@.slime_store_refs x USING gone g WHERE x.rel OPERATOR(pg_catalog.=) g.rel
			   RETURNING x.hash)
	SELECT cand OPERATOR(pg_catalog.||) coalesce(pg_catalog.array_agg(d.hash), '{}') INTO cand FROM d;
	-- 3. the log into the counts: what tracked tables' writes changed since
	--    the last run; new entries and entries some table's count of fell are
	--    candidates (the log of tables it could not count waits)
	WITH l AS (DELETE FROM @extschema@.slime_store_refs_log x WHERE x.rel OPERATOR(pg_catalog.<>) ALL (waiting)
			   RETURNING x.rel, x.hashes, x.deltas),
		 d AS (SELECT l.rel, u.h, pg_catalog.sum(u.d)::bigint AS delta
			   FROM l, ROWS FROM (pg_catalog.unnest(l.hashes), pg_catalog.unnest(l.deltas)) u(h, d) GROUP BY l.rel, u.h),
		 up AS (INSERT INTO @extschema@.slime_store_refs AS x (hash, rel, refs)
				SELECT d.h, d.rel, d.delta FROM d
				WHERE d.rel OPERATOR(pg_catalog.=) ANY (registered) AND d.delta OPERATOR(pg_catalog.<>) 0
				ON CONFLICT (hash, rel) DO UPDATE SET refs = x.refs OPERATOR(pg_catalog.+) excluded.refs
				RETURNING x.rel, x.refs)
	SELECT cand OPERATOR(pg_catalog.||) coalesce((SELECT pg_catalog.array_agg(d.h) FROM d
						WHERE d.rel OPERATOR(pg_catalog.=) 0
						   OR d.delta OPERATOR(pg_catalog.<) 0 AND d.rel OPERATOR(pg_catalog.=) ANY (registered)), '{}'),
		   (SELECT pg_catalog.array_agg(DISTINCT up.rel) FROM up WHERE up.refs OPERATOR(pg_catalog.<) 0)
		INTO cand, broken;
	-- a count below zero: writes bypassed the trigger; the table is counted again
	FOR tb IN SELECT s.* FROM @extschema@.slime_tracking() s WHERE s.rel::pg_catalog.oid OPERATOR(pg_catalog.=) ANY (broken) LOOP
		RAISE WARNING 'slime_gc() counted table % again: its references were miscounted', tb.rel
			USING HINT = 'Something wrote it without its tracking trigger.';
		SELECT * INTO res FROM @extschema@.slime_gc_count_table(tb.rel, tb.columns, tb.kinds, tb.fingerprint);
		IF res.released IS NULL THEN
			RAISE WARNING 'slime_gc() removed nothing: table % could not be read again', tb.rel;
			INSERT INTO @extschema@.slime_store_recheck (hash) SELECT DISTINCT pg_catalog.unnest(cand) ON CONFLICT DO NOTHING;
			values_read := @extschema@.slime_gc_values_read() OPERATOR(pg_catalog.-) reads0;
			RETURN;
		END IF;
		cand := cand OPERATOR(pg_catalog.||) res.released;
		columns_scanned := columns_scanned OPERATOR(pg_catalog.+) 1;
	END LOOP;
	-- from here on an incremental run looks its candidates up by key (the
	-- planner would scan a small store for a big share of it; the share is
	-- what changed, the scan what did not). The untracked tables' reads
	-- below are scans whatever this says: they have no other way.
	IF NOT do_full THEN
		PERFORM pg_catalog.set_config('enable_seqscan', 'off', true);
	END IF;
	DELETE FROM @extschema@.slime_store_refs x
	WHERE x.hash OPERATOR(pg_catalog.=) ANY (cand) AND x.refs OPERATOR(pg_catalog.<=) 0;
	-- 4. the candidates no count holds
	IF do_full THEN
		SELECT pg_catalog.count(*), coalesce(pg_catalog.sum(pg_catalog.octet_length(s.data)), 0)
			INTO candidates, kept_bytes FROM @extschema@.slime_store s;
		SELECT pg_catalog.array_agg(s.hash) INTO dead FROM @extschema@.slime_store s
		WHERE NOT EXISTS (SELECT 1 FROM @extschema@.slime_store_refs x
						  WHERE x.hash OPERATOR(pg_catalog.=) s.hash AND x.refs OPERATOR(pg_catalog.>) 0);
	ELSE
		-- by key (an array's index scan), whatever share of the store they are
		SELECT pg_catalog.count(*), coalesce(pg_catalog.sum(pg_catalog.octet_length(s.data)), 0),
			   coalesce(pg_catalog.array_agg(s.hash), '{}')
			INTO candidates, kept_bytes, cand
		FROM @extschema@.slime_store s WHERE s.hash OPERATOR(pg_catalog.=) ANY (cand);
		dead := ARRAY(SELECT pg_catalog.unnest(cand) EXCEPT
					  SELECT x.hash FROM @extschema@.slime_store_refs x
					  WHERE x.hash OPERATOR(pg_catalog.=) ANY (cand) AND x.refs OPERATOR(pg_catalog.>) 0);
	END IF;
	-- ... nor the waiting log of a tracked table it could not count: those
	-- wait for the run that counts it
	IF pg_catalog.cardinality(waiting) OPERATOR(pg_catalog.>) 0 AND dead IS NOT NULL THEN
		SELECT pg_catalog.array_agg(DISTINCT u.h) INTO found
		FROM @extschema@.slime_store_refs_log l, ROWS FROM (pg_catalog.unnest(l.hashes), pg_catalog.unnest(l.deltas)) u(h, d)
		WHERE l.rel OPERATOR(pg_catalog.=) ANY (waiting) AND u.d OPERATOR(pg_catalog.>) 0
		  AND u.h IN (SELECT pg_catalog.unnest(dead));
		IF found IS NOT NULL THEN
			dead := ARRAY(SELECT pg_catalog.unnest(dead) EXCEPT SELECT pg_catalog.unnest(found));
			INSERT INTO @extschema@.slime_store_recheck (hash) SELECT pg_catalog.unnest(found) ON CONFLICT DO NOTHING;
		END IF;
	END IF;
	-- 5. untracked tables: their references among the candidates left (a
	--    semi-join with them, never a pass per store row); none to read when
	--    no candidate is left
	FOR i IN 1 .. pg_catalog.cardinality(u_rel) LOOP
		EXIT WHEN coalesce(pg_catalog.cardinality(dead), 0) OPERATOR(pg_catalog.=) 0;
		IF i OPERATOR(pg_catalog.=) 1 OR u_rel[i] OPERATOR(pg_catalog.<>) u_rel[i OPERATOR(pg_catalog.-) 1] THEN
			got := @extschema@.slime_gc_lock_table(u_rel[i]::pg_catalog.regclass);
			IF NOT got THEN
				RAISE WARNING 'slime_gc() skipped table %: another session held a lock on it for longer than slime.gc_lock_wait', u_rel[i]::pg_catalog.regclass
					USING DETAIL = 'It is not tracked, so its values were not read: store entries only they refer to are collected.',
						  HINT = pg_catalog.format('Track it: SELECT slime_track(%L).', u_rel[i]::pg_catalog.regclass);
				skipped := skipped OPERATOR(pg_catalog.||) u_rel[i]::pg_catalog.regclass::text;
			END IF;
		END IF;
		CONTINUE WHEN got IS NOT TRUE;
		qsql := @extschema@.slime_gc_refs_sql(u_rel[i]::pg_catalog.regclass, ARRAY[u_cols[i]::name], ARRAY[u_kinds[i]::integer]);
		EXECUTE pg_catalog.format('SELECT pg_catalog.array_agg(DISTINCT f.h) FROM (%s) f '
								  'WHERE f.h IN (SELECT pg_catalog.unnest($1))', qsql)
			USING dead INTO found;
		columns_scanned := columns_scanned OPERATOR(pg_catalog.+) 1;
		IF found IS NOT NULL THEN
			dead := ARRAY(SELECT pg_catalog.unnest(dead) EXCEPT SELECT pg_catalog.unnest(found));
			INSERT INTO @extschema@.slime_store_recheck (hash) SELECT pg_catalog.unnest(found) ON CONFLICT DO NOTHING;
		END IF;
	END LOOP;
	-- the rows of the packs deletes left less than half alive are unsettled,
	-- for slime_settle() to repack (saves do not wait for this)
	WITH t AS (DELETE FROM @extschema@.slime_store_pack_thin RETURNING id)
	UPDATE @extschema@.slime_store s SET settled = false
	FROM t WHERE s.pack OPERATOR(pg_catalog.=) t.id AND s.settled;
	-- packs rows moved out of (slime_settle() repacking, which this
	-- collection excludes): freed when empty, else their count kept again
	IF do_full THEN
		DELETE FROM @extschema@.slime_store_pack_live;
		DELETE FROM @extschema@.slime_store_packs p
		WHERE NOT EXISTS (SELECT 1 FROM @extschema@.slime_store s WHERE s.pack OPERATOR(pg_catalog.=) p.id);
	ELSE
		WITH c AS (DELETE FROM @extschema@.slime_store_pack_check RETURNING id),
			 n AS (SELECT DISTINCT c.id, (SELECT pg_catalog.count(*) FROM @extschema@.slime_store s
										  WHERE s.pack OPERATOR(pg_catalog.=) c.id) AS live FROM c),
			 f AS (DELETE FROM @extschema@.slime_store_packs p USING n
				   WHERE p.id OPERATOR(pg_catalog.=) n.id AND n.live OPERATOR(pg_catalog.=) 0),
			 d AS (DELETE FROM @extschema@.slime_store_pack_live k USING n
				   WHERE k.id OPERATOR(pg_catalog.=) n.id AND n.live OPERATOR(pg_catalog.=) 0)
		INSERT INTO @extschema@.slime_store_pack_live AS k (id, live)
		SELECT n.id, n.live FROM n WHERE n.live OPERATOR(pg_catalog.>) 0
		  AND EXISTS (SELECT 1 FROM @extschema@.slime_store_packs p WHERE p.id OPERATOR(pg_catalog.=) n.id)
		ON CONFLICT (id) DO UPDATE SET live = excluded.live;
	END IF;
	DELETE FROM @extschema@.slime_store_pack_check;
	INSERT INTO @extschema@.slime_store_gc_state AS s (one, last_run, last_full)
	VALUES (true, pg_catalog.now(), pg_catalog.now())
	ON CONFLICT (one) DO UPDATE SET last_run = excluded.last_run,
		last_full = CASE WHEN do_full THEN excluded.last_full ELSE s.last_full END;
	-- 6. the delete, under a lock that waits for saves in flight, 100 ms at
	--    a time: a transaction kept open after a save makes the GC give up
	--    its turn, not hold every later save behind it. One statement while
	--    saves wait: a candidate a save pinned is looked at again by the
	--    next run (that save may roll back)
	IF coalesce(pg_catalog.cardinality(dead), 0) OPERATOR(pg_catalog.>) 0 THEN
		IF NOT @extschema@.slime_gc_try_lock('LOCK TABLE @extschema@.slime_store IN SHARE ROW EXCLUSIVE MODE', 100) THEN
			RAISE WARNING 'slime_gc() removed nothing: saves kept their transactions open for longer than slime.gc_lock_wait'
				USING HINT = 'A session that called slime_store() or saved through its trigger and has not committed holds the GC back; see pg_stat_activity.';
			-- what it would have removed, the next run looks at again
			INSERT INTO @extschema@.slime_store_recheck (hash) SELECT DISTINCT pg_catalog.unnest(dead) ON CONFLICT DO NOTHING;
			removed_entries := 0; removed_bytes := 0; kept_entries := candidates;
			values_read := @extschema@.slime_gc_values_read() OPERATOR(pg_catalog.-) reads0;
			RETURN;
		END IF;
		WITH gone AS (
				DELETE FROM @extschema@.slime_store s
				WHERE s.hash OPERATOR(pg_catalog.=) ANY (dead)
				  AND s.hash NOT IN (SELECT p.hash FROM @extschema@.slime_store_pins p)
				RETURNING s.hash, pg_catalog.octet_length(s.data) AS n),
			 again AS (
				INSERT INTO @extschema@.slime_store_recheck (hash)
				SELECT d.h FROM pg_catalog.unnest(dead) d(h) WHERE d.h NOT IN (SELECT gone.hash FROM gone)
				ON CONFLICT DO NOTHING)
		SELECT pg_catalog.count(*), coalesce(pg_catalog.sum(gone.n), 0) INTO removed_entries, removed_bytes FROM gone;
	END IF;
	kept_entries := candidates OPERATOR(pg_catalog.-) removed_entries;
	kept_bytes := kept_bytes OPERATOR(pg_catalog.-) removed_bytes;
	values_read := @extschema@.slime_gc_values_read() OPERATOR(pg_catalog.-) reads0;
END
$$;
REVOKE ALL ON FUNCTION slime_gc(boolean) FROM PUBLIC;
-- the roles granted 0.9.0's slime_gc() keep it
DO $$
DECLARE
	g record;
BEGIN
	FOR g IN SELECT DISTINCT pg_catalog.pg_get_userbyid(x.grantee) AS grantee
			 FROM pg_catalog.pg_proc p, pg_catalog.aclexplode(p.proacl) x
			 WHERE p.oid OPERATOR(pg_catalog.=) '@extschema@.slime_gc_0_9()'::pg_catalog.regprocedure
			   AND x.privilege_type OPERATOR(pg_catalog.=) 'EXECUTE' AND x.grantee OPERATOR(pg_catalog.<>) 0
			   AND x.grantee OPERATOR(pg_catalog.<>) p.proowner
	LOOP
		EXECUTE pg_catalog.format('GRANT EXECUTE ON FUNCTION @extschema@.slime_gc(boolean) TO %I', g.grantee);
	END LOOP;
END
$$;
DROP FUNCTION slime_gc_0_9();

-- slime_settle() finds the loader worlds whose cached file is warm (a
-- version-13 file, not yet in its cold form) through a partial index of
-- them, not by reading every world's file (0.7.0-0.9.0: a pass over the
-- worlds table, a TOAST read a world, in every settle). The index holds the
-- worlds saved since their file was last settled: what changed.
CREATE FUNCTION slime_settle_index(worlds regclass, name text) RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	nsp name := (SELECT n.nspname FROM pg_catalog.pg_class c
				 JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
				 WHERE c.oid OPERATOR(pg_catalog.=) worlds);
BEGIN
	IF pg_catalog.to_regclass(pg_catalog.format('%I.%I', nsp, name OPERATOR(pg_catalog.||) '_warm')) IS NULL THEN
		-- the predicate of slime_settle_loader_files (src/settle.c), word for word:
		-- a version-13 file in its framed (SLFR) or hot (SLHF) form, or as it came
		EXECUTE pg_catalog.format('CREATE INDEX %I ON %s (world) '
			'WHERE (pg_catalog.substring(file, 1, 8) OPERATOR(pg_catalog.=) ''\x534c465201b10b0d''::pg_catalog.bytea '
			'OR pg_catalog.substring(file, 1, 8) OPERATOR(pg_catalog.=) ''\x534c484601b10b0d''::pg_catalog.bytea '
			'OR pg_catalog.substring(file, 1, 3) OPERATOR(pg_catalog.=) ''\xb10b0d''::pg_catalog.bytea)',
			name OPERATOR(pg_catalog.||) '_warm', worlds);
	END IF;
END
$$;

-- A loader's saves table is tracked (slime_gc() never reads it): new
-- loaders get slime_track() with their triggers, older ones when their
-- owner calls slime_loader_create again (and by the update, below).
CREATE OR REPLACE FUNCTION slime_loader_create(name text, in_schema name DEFAULT pg_catalog.current_schema())
RETURNS regclass
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	worlds text;
	saves text;
	w regclass;
	s regclass;
BEGIN
	IF name IS NULL THEN
		RAISE EXCEPTION 'loader table name must not be NULL' USING ERRCODE = 'null_value_not_allowed';
	END IF;
	IF in_schema IS NULL THEN
		RAISE EXCEPTION 'no schema to create loader table "%" in', name USING ERRCODE = 'invalid_schema_name';
	END IF;
	IF pg_catalog.octet_length(name) NOT BETWEEN 1 AND 56 THEN
		RAISE EXCEPTION 'loader table name "%" must be 1 to 56 bytes long', name
			USING ERRCODE = 'invalid_name';
	END IF;
	worlds := pg_catalog.format('%I.%I', in_schema, name OPERATOR(pg_catalog.||) '_worlds');
	saves := pg_catalog.format('%I.%I', in_schema, name);
	-- two servers starting at once: one creates, the other finds the tables
	PERFORM pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('slime_loader_create'), pg_catalog.hashtext(name));
	w := pg_catalog.to_regclass(worlds);
	s := pg_catalog.to_regclass(saves);
	IF w IS NOT NULL AND s IS NOT NULL AND pg_catalog.has_table_privilege(s, 'INSERT')
	   AND (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) w)
		   OPERATOR(pg_catalog.=) (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) s)
	   AND (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) s)
		   OPERATOR(pg_catalog.<>) (SELECT r.oid FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) CURRENT_USER) THEN
		PERFORM @extschema@.slime_loader_check(w, NULL, true);
		PERFORM @extschema@.slime_loader_check(s, w, true);
		RETURN s;
	END IF;
	IF w IS NULL THEN
		EXECUTE pg_catalog.format($ddl$
			CREATE TABLE %1$s (
				world     pg_catalog.text NOT NULL PRIMARY KEY,
				holder    pg_catalog.text,
				token     pg_catalog.int8 NOT NULL DEFAULT 0,
				expires   pg_catalog.timestamptz,
				saves     pg_catalog.int8 NOT NULL DEFAULT 0,
				file      pg_catalog.bytea,
				memo      pg_catalog.bytea,
				leased_by pg_catalog.name
			);
			ALTER TABLE %1$s ALTER COLUMN file SET STORAGE EXTERNAL;
			ALTER TABLE %1$s ALTER COLUMN memo SET STORAGE EXTERNAL
			$ddl$, worlds);
		w := pg_catalog.to_regclass(worlds);
		PERFORM @extschema@.slime_settle_index(w, name);
		PERFORM @extschema@.slime_loader_frames_table(w, name);
	ELSE
		PERFORM @extschema@.slime_loader_check(w, NULL);
		IF NOT EXISTS (SELECT FROM pg_catalog.pg_attribute a
					   WHERE a.attrelid OPERATOR(pg_catalog.=) w AND a.attname OPERATOR(pg_catalog.=) 'memo' AND NOT a.attisdropped) THEN
			EXECUTE pg_catalog.format('ALTER TABLE %1$s ADD COLUMN memo pg_catalog.bytea; '
									  'ALTER TABLE %1$s ALTER COLUMN memo SET STORAGE EXTERNAL', worlds);
		END IF;
		IF NOT EXISTS (SELECT FROM pg_catalog.pg_attribute a
					   WHERE a.attrelid OPERATOR(pg_catalog.=) w AND a.attname OPERATOR(pg_catalog.=) 'leased_by' AND NOT a.attisdropped) THEN
			EXECUTE pg_catalog.format('ALTER TABLE %s ADD COLUMN leased_by pg_catalog.name', worlds);
		END IF;
		PERFORM @extschema@.slime_settle_index(w, name);
		PERFORM @extschema@.slime_loader_frames_table(w, name);
	END IF;
	IF s IS NULL THEN
		EXECUTE pg_catalog.format($ddl$
			CREATE TABLE %1$s (
				world    pg_catalog.text NOT NULL REFERENCES %2$s (world),
				save     pg_catalog.int8 NOT NULL,
				saved_at pg_catalog.timestamptz NOT NULL,
				token    pg_catalog.int8 NOT NULL,
				data     @extschema@.slime NOT NULL,
				PRIMARY KEY (world, save)
			);
			CREATE TRIGGER %3$I BEFORE INSERT OR UPDATE ON %1$s
				FOR EACH ROW EXECUTE FUNCTION @extschema@.slime_lease_fence(%2$L);
			CREATE TRIGGER %4$I BEFORE INSERT OR UPDATE ON %1$s
				FOR EACH ROW EXECUTE FUNCTION @extschema@.slime_store_trigger()
			$ddl$, saves, worlds, name OPERATOR(pg_catalog.||) '_fence', name OPERATOR(pg_catalog.||) '_store');
		PERFORM @extschema@.slime_track(saves::pg_catalog.regclass);
	ELSE
		PERFORM @extschema@.slime_loader_check(s, w);
		-- a loader made before 0.10.0 whose table the update could not track
		IF NOT EXISTS (SELECT 1 FROM @extschema@.slime_tracking() k
					   WHERE k.rel OPERATOR(pg_catalog.=) s AND k.tracked) THEN
			PERFORM @extschema@.slime_track(s);
		END IF;
	END IF;
	RETURN saves::pg_catalog.regclass;
END
$$;

-- The update tracks every table that has the store trigger (the loaders'
-- saves tables among them; a partitioned table's partitions through it).
-- A table whose trigger the update cannot make (the extension's owner is not
-- a superuser and does not own it) is named in a WARNING: its owner runs
-- SELECT slime_track('table'). Until then slime_gc() reads it, as before.
DO $$
DECLARE
	t record;
BEGIN
	FOR t IN SELECT DISTINCT g.tgrelid::pg_catalog.regclass AS rel
			 FROM pg_catalog.pg_trigger g
			 WHERE g.tgfoid OPERATOR(pg_catalog.=) '@extschema@.slime_store_trigger()'::pg_catalog.regprocedure
			   AND g.tgparentid OPERATOR(pg_catalog.=) 0
			 ORDER BY 1
	LOOP
		BEGIN
			PERFORM @extschema@.slime_track(t.rel);
		EXCEPTION WHEN insufficient_privilege THEN
			RAISE WARNING 'slime_gc() will read table % until it is tracked: its owner runs SELECT slime_track(%L)', t.rel, t.rel::text;
		END;
	END LOOP;
	-- the loaders' worlds tables get the index of warm files
	FOR t IN SELECT g.tgrelid::pg_catalog.regclass AS saves,
					@extschema@.slime_loader_worlds(g.tgrelid::pg_catalog.regclass) AS worlds
			 FROM pg_catalog.pg_trigger g
			 WHERE g.tgfoid OPERATOR(pg_catalog.=) '@extschema@.slime_lease_fence()'::pg_catalog.regprocedure
			 ORDER BY 1
	LOOP
		BEGIN
			PERFORM @extschema@.slime_settle_index(t.worlds,
				(SELECT c.relname FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) t.saves));
		EXCEPTION WHEN insufficient_privilege OR undefined_table THEN
			RAISE WARNING 'slime_settle() will read every world of loader % for warm files until its owner calls slime_loader_create again', t.saves;
		END;
	END LOOP;
END
$$;

-- ==== the game-server path writes what changed (issue #34) ==================
-- A loader's save keeps a version-13 file in its framed form (doc/format.md,
-- "The loader's kept files"; src/core/sl_sfframes.h): the world's row keeps a
-- directory, and the chunk block's zstd frames (a chunk record each, small
-- ones grouped) live in <name>_frames, one row a frame, so that a save
-- writes the frames of the chunks that changed, not the whole file, and a
-- load concatenates the frames, compressing nothing. slime_loader_create
-- makes the table (and the update, below, for the loaders there are); a
-- loader without it keeps saving the hot form.

-- The <name>_frames table of a loader's saves table, NULL when it has none.
CREATE FUNCTION slime_loader_frames(tbl regclass) RETURNS regclass
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;

-- The hot form of the file of a framed form (dir) whose frames are given as
-- key || frame, for slime_settle(); NULL (and a WARNING) when it is damaged.
CREATE FUNCTION slime_loader_file_framed(dir bytea, frames bytea[]) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Make the <name>_frames table beside a loader's worlds table, unless it is
-- there: a frame a row, its key the XXH3-128 of its raw bytes; rows up to a
-- page stay in the heap (the frames are zstd already: no TOAST, no pglz).
-- No foreign key: dropping a loader's tables needs no CASCADE, and the
-- loader's functions delete a world's frames with its kept file
-- (slime_loader_delete; a save, the frames its new directory does not name;
-- slime_settle(), those of the worlds it makes cold).
CREATE FUNCTION slime_loader_frames_table(worlds regclass, name text) RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	nsp name := (SELECT n.nspname FROM pg_catalog.pg_class c
				 JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
				 WHERE c.oid OPERATOR(pg_catalog.=) worlds);
	frames text := pg_catalog.format('%I.%I', nsp, name OPERATOR(pg_catalog.||) '_frames');
BEGIN
	IF pg_catalog.to_regclass(frames) IS NULL THEN
		EXECUTE pg_catalog.format($ddl$
			CREATE TABLE %1$s (
				world pg_catalog.text NOT NULL,
				key   pg_catalog.bytea NOT NULL,
				frame pg_catalog.bytea NOT NULL,
				PRIMARY KEY (world, key)
			) WITH (toast_tuple_target = 8160);
			ALTER TABLE %1$s ALTER COLUMN frame SET STORAGE EXTERNAL
			$ddl$, frames);
	END IF;
END
$$;

-- Deleting a world's saves drops its kept file, and with it its frames.
CREATE OR REPLACE FUNCTION slime_loader_delete_as_owner(tbl regclass, world text, token bigint) RETURNS bigint
LANGUAGE plpgsql VOLATILE STRICT
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	n bigint;
	f regclass := @extschema@.slime_loader_frames(tbl);
BEGIN
	PERFORM @extschema@.slime_lease_check(@extschema@.slime_loader_worlds(tbl), world, token);
	n := @extschema@.slime_loader_remove(tbl, world, 0);
	EXECUTE pg_catalog.format('UPDATE %s SET file = NULL WHERE world OPERATOR(pg_catalog.=) $1',
							  @extschema@.slime_loader_worlds(tbl)) USING world;
	IF f IS NOT NULL THEN
		EXECUTE pg_catalog.format('DELETE FROM %s WHERE world OPERATOR(pg_catalog.=) $1', f) USING world;
	END IF;
	RETURN n;
END
$$;

-- The update makes no table (a table made by an extension's script would be
-- one of its members, left out of pg_dump): a loader made before 0.10.0
-- keeps saving whole files (the hot form) until its owner calls
-- slime_loader_create again, which makes the frames table.
DO $$
DECLARE
	t record;
BEGIN
	FOR t IN SELECT g.tgrelid::pg_catalog.regclass AS saves
			 FROM pg_catalog.pg_trigger g
			 WHERE g.tgfoid OPERATOR(pg_catalog.=) '@extschema@.slime_lease_fence()'::pg_catalog.regprocedure
			   AND @extschema@.slime_loader_frames(g.tgrelid::pg_catalog.regclass) IS NULL
			 ORDER BY 1
	LOOP
		RAISE NOTICE 'loader % saves whole files until its owner calls slime_loader_create again', t.saves;
	END LOOP;
END
$$;
