-- slime 0.4.0 -> 0.5.0
\echo Use "ALTER EXTENSION slime UPDATE TO '0.5.0'" to load this file. \quit

-- Each section below belongs to one piece of work; keep them apart so that
-- they merge cleanly. A fresh install runs 0.2.0 and every upgrade after it,
-- so what is defined here is also what a new database gets.

-- ==== security (issue #25) ==================================================

-- README, "Security". The rules this section holds the extension to:
--   * every function that is not C runs with search_path pinned to
--     pg_catalog, pg_temp (so no role's function or operator in another
--     schema is ever called by one of ours) and names the extension's own
--     objects as @extschema@.x (test/security.sh checks pg_proc for this);
--   * generated SQL casts a column to the extension's own type before it
--     calls one of our functions on it, so that no overload a role made for
--     its domain is picked instead;
--   * the extension belongs in a schema where only trusted roles can create
--     objects: installing or updating it warns otherwise (below, at the end).

-- The GC's lock: an advisory lock tag no SQL function can take (src/store.c),
-- taken exclusively for the transaction; saves try it in share mode.
CREATE FUNCTION slime_gc_lock() RETURNS void
	AS 'MODULE_PATHNAME' LANGUAGE C STRICT;
REVOKE ALL ON FUNCTION slime_gc_lock() FROM PUBLIC;

-- Run lock_sql (a statement that takes a lock) under lock_timeout =
-- attempt_ms, again after a short pause while it times out, for at most
-- slime.gc_lock_wait; whether it got the lock (kept to the transaction's
-- end), or NULL when the table it locks was dropped meanwhile.
-- Waiting in a queue for at most attempt_ms at a time is what keeps a GC
-- from holding up the saves queued behind it.
CREATE FUNCTION slime_gc_try_lock(lock_sql text, attempt_ms integer) RETURNS boolean
LANGUAGE plpgsql VOLATILE STRICT
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	deadline timestamptz := pg_catalog.clock_timestamp()
		OPERATOR(pg_catalog.+) coalesce(pg_catalog.current_setting('slime.gc_lock_wait', true), '10s')::pg_catalog.interval;
BEGIN
	LOOP
		BEGIN
			PERFORM pg_catalog.set_config('lock_timeout', attempt_ms::text, true);
			EXECUTE lock_sql;
			RETURN true;
		EXCEPTION
			WHEN lock_not_available THEN
				IF pg_catalog.clock_timestamp() >= deadline THEN
					RETURN false;
				END IF;
			WHEN undefined_table THEN
				RETURN NULL;
		END;
		PERFORM pg_catalog.pg_sleep(attempt_ms * (0.5 + pg_catalog.random()) / 1000.0);
	END LOOP;
END
$$;
REVOKE ALL ON FUNCTION slime_gc_try_lock(text, integer) FROM PUBLIC;

-- slime_gc(): as in 0.4.0 (sql/slime--0.3.0--0.4.0.sql explains the three
-- phases), hardened against ordinary roles (issue #25):
--   * every generated call casts the column to @extschema@.slime, so a
--     role's slime_refs(its_domain) in the extension's schema is never the
--     function called (it would run with the GC's rights);
--   * a column it cannot scan (slime inside a composite type, another
--     session's temporary table) is skipped with a WARNING naming it,
--     instead of stopping the collection;
--   * no lock is waited on for more than slime.gc_lock_wait in total, and
--     none for more than 100 ms at a time (slime_gc_try_lock); when a lock
--     cannot be had, the GC ends with a WARNING naming what held it up,
--     having removed nothing, rather than stall the saves queued behind it.
--   * its own lock is one ordinary roles cannot take (slime_gc_lock()).
CREATE OR REPLACE FUNCTION slime_gc(OUT removed_entries bigint, OUT removed_bytes bigint,
		OUT kept_entries bigint, OUT kept_bytes bigint, OUT columns_scanned integer)
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET row_security = off
SET lock_timeout = 0
AS $$
DECLARE
	col record;
	parts text[] := '{}';
	locked regclass;
	qname text;
	got boolean;
	candidates bytea[];
	seen_entries bigint;
	seen_bytes bigint;
BEGIN
	IF pg_catalog.current_setting('transaction_isolation') <> 'read committed' THEN
		RAISE EXCEPTION 'slime_gc() must run at the READ COMMITTED isolation level'
			USING ERRCODE = 'invalid_transaction_state',
				  HINT = 'Its scan must see every value committed before it took its lock.';
	END IF;
	removed_entries := 0;
	removed_bytes := 0;
	-- 1. from here on, saves pin what they rely on (this waits for the saves
	--    in flight, which hold the lock in share mode)
	IF NOT @extschema@.slime_gc_try_lock('SELECT @extschema@.slime_gc_lock()', 100) THEN
		RAISE WARNING 'slime_gc() removed nothing: saves kept their transactions open for longer than slime.gc_lock_wait'
			USING HINT = 'A session that called slime_store() or saved through its trigger and has not committed holds the GC back; see pg_stat_activity.';
		RETURN;
	END IF;
	FOR col IN
		SELECT c.oid::pg_catalog.regclass AS rel, a.attname, @extschema@.slime_type_holds(a.atttypid) AS kind,
			   c.relpersistence OPERATOR(pg_catalog.=) 't'
				   AND c.relnamespace OPERATOR(pg_catalog.<>) pg_catalog.pg_my_temp_schema() AS other_temp,
			   c.relkind OPERATOR(pg_catalog.=) 'm' AND NOT c.relispopulated AS unpopulated
		FROM pg_catalog.pg_class c JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) c.oid
		WHERE c.relkind IN ('r', 'm') AND a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped
		  AND @extschema@.slime_type_holds(a.atttypid) OPERATOR(pg_catalog.>) 0
		ORDER BY c.oid, a.attnum
	LOOP
		IF col.kind OPERATOR(pg_catalog.=) 3 THEN
			RAISE WARNING 'slime_gc() skipped column %.%: it holds slime values inside a composite type, which it cannot scan',
				col.rel, col.attname
				USING HINT = 'Store entries that only such values refer to are collected; keep self-contained values there (slime_resolve).';
			CONTINUE;
		END IF;
		IF col.other_temp THEN
			RAISE WARNING 'slime_gc() skipped temporary table % of another session: it cannot scan it', col.rel
				USING HINT = 'Store entries that only its values refer to are collected; keep self-contained values in temporary tables (slime_resolve).';
			CONTINUE;
		END IF;
		CONTINUE WHEN col.unpopulated;
		-- a table locked by another session holds the scan back no longer than
		-- the lock wait (a query takes the lock: LOCK TABLE refuses materialized
		-- views). The lock goes by name: a table renamed meanwhile is looked up
		-- again, one dropped meanwhile holds no values and is skipped.
		IF locked IS DISTINCT FROM col.rel THEN
			LOOP
				qname := (SELECT pg_catalog.format('%I.%I', n.nspname, c.relname)
						  FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
						  WHERE c.oid OPERATOR(pg_catalog.=) col.rel);
				EXIT WHEN qname IS NULL;
				got := @extschema@.slime_gc_try_lock(pg_catalog.format('SELECT FROM ONLY %s LIMIT 0', qname), 100);
				EXIT WHEN got IS NOT NULL AND pg_catalog.to_regclass(qname) IS NOT DISTINCT FROM col.rel;
			END LOOP;
			CONTINUE WHEN qname IS NULL;
			IF NOT got THEN
				RAISE WARNING 'slime_gc() removed nothing: table % stayed locked by another session for longer than slime.gc_lock_wait', col.rel;
				RETURN;
			END IF;
			locked := col.rel;
		END IF;
		parts := parts OPERATOR(pg_catalog.||) CASE col.kind
			WHEN 1 THEN pg_catalog.format('SELECT r.h FROM ONLY %s t, '
				'pg_catalog.unnest(@extschema@.slime_refs(t.%I::@extschema@.slime)) r(h)', col.rel, col.attname)
			ELSE pg_catalog.format('SELECT r.h FROM ONLY %s t, pg_catalog.unnest(t.%I) v(w), '
				'pg_catalog.unnest(@extschema@.slime_refs(v.w::@extschema@.slime)) r(h)', col.rel, col.attname) END;
	END LOOP;
	columns_scanned := pg_catalog.cardinality(parts);
	-- 2. the scan, under one snapshot; saves go on
	EXECUTE pg_catalog.format('WITH live AS MATERIALIZED (%s), '
				   'entry AS (SELECT s.hash, pg_catalog.octet_length(s.data) AS n, '
				   'NOT EXISTS (SELECT 1 FROM live WHERE live.h OPERATOR(pg_catalog.=) s.hash) AS dead '
				   'FROM @extschema@.slime_store s) '
				   'SELECT pg_catalog.array_agg(hash) FILTER (WHERE dead), pg_catalog.count(*), '
				   'coalesce(pg_catalog.sum(n), 0) FROM entry',
				   CASE WHEN columns_scanned OPERATOR(pg_catalog.=) 0 THEN 'SELECT NULL::bytea AS h WHERE false'
						ELSE pg_catalog.array_to_string(parts, ' UNION ALL ') END)
		INTO candidates, seen_entries, seen_bytes;
	kept_entries := seen_entries;
	kept_bytes := seen_bytes;
	-- 3. the delete, under a lock that waits for saves in flight, 100 ms at
	--    a time: a transaction kept open after a save makes the GC give up
	--    its turn, not hold every later save behind it
	IF NOT @extschema@.slime_gc_try_lock('LOCK TABLE @extschema@.slime_store IN SHARE ROW EXCLUSIVE MODE', 100) THEN
		RAISE WARNING 'slime_gc() removed nothing: saves kept their transactions open for longer than slime.gc_lock_wait'
			USING HINT = 'A session that called slime_store() or saved through its trigger and has not committed holds the GC back; see pg_stat_activity.';
		RETURN;
	END IF;
	WITH gone AS (
		DELETE FROM @extschema@.slime_store s USING pg_catalog.unnest(candidates) c(h)
		WHERE s.hash OPERATOR(pg_catalog.=) c.h
		  AND NOT EXISTS (SELECT 1 FROM @extschema@.slime_store_pins p WHERE p.hash OPERATOR(pg_catalog.=) s.hash)
		RETURNING pg_catalog.octet_length(s.data) AS n)
	SELECT pg_catalog.count(*), coalesce(pg_catalog.sum(n), 0) INTO removed_entries, removed_bytes FROM gone;
	DELETE FROM @extschema@.slime_store_pins;
	kept_entries := seen_entries OPERATOR(pg_catalog.-) removed_entries;
	kept_bytes := seen_bytes OPERATOR(pg_catalog.-) removed_bytes;
END
$$;

-- The check slime_verify() does not make (it reads no table): every chunk a
-- value holds by reference is in the store and matches (README, "Security":
-- a schema dumped without superuser has no store rows).
CREATE FUNCTION slime_verify_refs(world slime) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;

-- Pinned paths for the functions of 0.3.0 and 0.4.0 that had none: with
-- pg_catalog first and alone, an unqualified format(), || or = in them can
-- only be the built-in one (their own objects were named @extschema@.x).
ALTER FUNCTION slime_loader_worlds(regclass) SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION slime_lease_check(regclass, text, bigint) SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION slime_lease_fence() SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION slime_lease_acquire(regclass, text, text, interval) SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION slime_lease_renew(regclass, text, bigint, interval) SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION slime_lease_release(regclass, text, bigint) SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION slime_loader_insert(regclass, text, bigint, slime, integer) SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION slime_loader_save(regclass, text, bigint, bytea, integer) SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION slime_loader_remove(regclass, text, integer) SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION slime_loader_prune(regclass, text, integer) SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION slime_loader_rollback(regclass, text, bigint, bigint, integer) SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION slime_loader_delete(regclass, text, bigint) SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION slime_loader_load(regclass, text) SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION slime_store_replica_insert() SET search_path = pg_catalog, pg_temp;

CREATE OR REPLACE FUNCTION slime_mcc(x integer, z integer, data bytea, kind text DEFAULT 'region')
	RETURNS slime_mcc
	AS $$ SELECT ROW(kind, x, z, data)::@extschema@.slime_mcc $$
	LANGUAGE SQL IMMUTABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp;

-- slime_loader_create: with a pinned path, current_schema() inside the
-- function would be pg_catalog, so the schema is a parameter whose default
-- the caller evaluates (its own current schema, as before). Tables that
-- exist are used only when the caller owns them (or a superuser does) and
-- they have a loader's shape: another role's table, with its triggers,
-- would run that role's code as every server that saves into it.
DROP FUNCTION slime_loader_create(text);
-- (with the memo column of the game-server section's saves)
CREATE FUNCTION slime_loader_create(name text, in_schema name DEFAULT pg_catalog.current_schema())
RETURNS regclass
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	worlds text;
	saves text;
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
	IF pg_catalog.to_regclass(worlds) IS NULL THEN
		EXECUTE pg_catalog.format($ddl$
			CREATE TABLE %1$s (
				world    pg_catalog.text NOT NULL PRIMARY KEY,
				holder   pg_catalog.text,
				token    pg_catalog.int8 NOT NULL DEFAULT 0,
				expires  pg_catalog.timestamptz,
				saves    pg_catalog.int8 NOT NULL DEFAULT 0,
				file     pg_catalog.bytea,
				memo     pg_catalog.bytea
			);
			ALTER TABLE %1$s ALTER COLUMN file SET STORAGE EXTERNAL;
			ALTER TABLE %1$s ALTER COLUMN memo SET STORAGE EXTERNAL
			$ddl$, worlds);
	ELSE
		PERFORM @extschema@.slime_loader_check(worlds::pg_catalog.regclass, NULL);
		IF NOT EXISTS (SELECT FROM pg_catalog.pg_attribute
					   WHERE attrelid OPERATOR(pg_catalog.=) pg_catalog.to_regclass(worlds)
						 AND attname OPERATOR(pg_catalog.=) 'memo' AND NOT attisdropped) THEN
			EXECUTE pg_catalog.format('ALTER TABLE %1$s ADD COLUMN IF NOT EXISTS memo pg_catalog.bytea; '
									  'ALTER TABLE %1$s ALTER COLUMN memo SET STORAGE EXTERNAL', worlds);
		END IF;
	END IF;
	IF pg_catalog.to_regclass(saves) IS NULL THEN
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
	ELSE
		PERFORM @extschema@.slime_loader_check(saves::pg_catalog.regclass, worlds::pg_catalog.regclass);
	END IF;
	RETURN saves::pg_catalog.regclass;
END
$$;

-- Raise unless tbl, which slime_loader_create found, is the caller's (or a
-- superuser's) and has the shape it makes: a saves table with the fence and
-- store triggers when wtbl (its worlds table) is given, else a worlds table.
CREATE FUNCTION slime_loader_check(tbl regclass, wtbl regclass) RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	owner name;
	cols text;
	want text := CASE WHEN wtbl IS NULL
		THEN 'world text not null, holder text, token bigint not null, expires timestamp with time zone, '
			 'saves bigint not null, file bytea'
		ELSE 'world text not null, save bigint not null, saved_at timestamp with time zone not null, '
			 'token bigint not null, data ' OPERATOR(pg_catalog.||)
			 pg_catalog.format_type('@extschema@.slime'::pg_catalog.regtype, NULL) OPERATOR(pg_catalog.||) ' not null' END;
BEGIN
	SELECT r.rolname INTO owner
	FROM pg_catalog.pg_class c JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) c.relowner
	WHERE c.oid OPERATOR(pg_catalog.=) tbl AND (r.rolname OPERATOR(pg_catalog.=) CURRENT_USER OR r.rolsuper);
	IF owner IS NULL THEN
		RAISE EXCEPTION 'loader table % exists and belongs to role %, not to %', tbl,
			(SELECT pg_catalog.pg_get_userbyid(c.relowner) FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) tbl),
			CURRENT_USER
			USING ERRCODE = 'insufficient_privilege',
				  DETAIL = 'Its triggers, defaults and constraints would run that role''s code in every save of yours.',
				  HINT = 'Drop or rename it, or have its owner (or a superuser) create the loader, then use the tables as the role that owns them.';
	END IF;
	SELECT pg_catalog.string_agg(a.attname OPERATOR(pg_catalog.||) ' ' OPERATOR(pg_catalog.||)
			pg_catalog.format_type(a.atttypid, a.atttypmod) OPERATOR(pg_catalog.||)
			CASE WHEN a.attnotnull THEN ' not null' ELSE '' END, ', ' ORDER BY a.attnum) INTO cols
	FROM pg_catalog.pg_attribute a
	WHERE a.attrelid OPERATOR(pg_catalog.=) tbl AND a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped;
	-- a worlds table has the memo column of 0.5.0's loader saves, unless made before
	IF cols IS DISTINCT FROM want AND (wtbl IS NOT NULL OR cols IS DISTINCT FROM want OPERATOR(pg_catalog.||) ', memo bytea')
			OR (SELECT c.relkind FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) tbl)
			OPERATOR(pg_catalog.<>) 'r' THEN
		RAISE EXCEPTION 'table % exists but is not a loader''s % table', tbl,
			CASE WHEN wtbl IS NULL THEN 'worlds' ELSE 'saves' END
			USING ERRCODE = 'wrong_object_type',
				  DETAIL = pg_catalog.format('It has the columns (%s); a loader''s has (%s).', cols, want),
				  HINT = 'Pick another name for the loader, or rename the table.';
	END IF;
	IF wtbl IS NOT NULL AND (SELECT pg_catalog.count(*) FROM pg_catalog.pg_trigger t
			WHERE t.tgrelid OPERATOR(pg_catalog.=) tbl AND NOT t.tgisinternal AND t.tgenabled OPERATOR(pg_catalog.<>) 'D'
			  AND (t.tgfoid OPERATOR(pg_catalog.=) '@extschema@.slime_store_trigger()'::pg_catalog.regprocedure
				   OR t.tgfoid OPERATOR(pg_catalog.=) '@extschema@.slime_lease_fence()'::pg_catalog.regprocedure
					  AND t.tgnargs OPERATOR(pg_catalog.=) 1
					  AND pg_catalog.to_regclass(pg_catalog.convert_from(pg_catalog.rtrim(t.tgargs, '\x00'::bytea), 'UTF8'))
						  OPERATOR(pg_catalog.=) wtbl)) OPERATOR(pg_catalog.<>) 2 THEN
		RAISE EXCEPTION 'table % exists but lacks a loader''s triggers', tbl
			USING ERRCODE = 'wrong_object_type',
				  DETAIL = pg_catalog.format('A loader''s saves table has slime_lease_fence(''%s'') and slime_store_trigger() BEFORE INSERT OR UPDATE.', wtbl),
				  HINT = 'Pick another name for the loader, or rename the table.';
	END IF;
END
$$;

-- Installing or updating into a schema where roles other than the
-- extension's owner and superusers may create objects: warn. Such a role
-- can put objects beside the extension's that the unwary resolve to.
DO $$
DECLARE
	who text;
BEGIN
	SELECT pg_catalog.string_agg(r.rolname::pg_catalog.text, ', ' ORDER BY r.rolname) INTO who
	FROM (SELECT 'PUBLIC'::pg_catalog.name AS rolname
		  WHERE EXISTS (SELECT 1 FROM pg_catalog.pg_namespace n, pg_catalog.aclexplode(n.nspacl) a
						WHERE n.oid OPERATOR(pg_catalog.=) '@extschema@'::pg_catalog.regnamespace
						  AND a.grantee OPERATOR(pg_catalog.=) 0 AND a.privilege_type OPERATOR(pg_catalog.=) 'CREATE')
		  UNION ALL
		  SELECT r.rolname FROM pg_catalog.pg_roles r
		  WHERE NOT r.rolsuper AND r.rolname OPERATOR(pg_catalog.<>) CURRENT_USER
			AND NOT pg_catalog.starts_with(r.rolname, 'pg_')
			AND pg_catalog.has_schema_privilege(r.oid, '@extschema@'::pg_catalog.regnamespace::pg_catalog.oid, 'CREATE')) r;
	IF who IS NOT NULL THEN
		RAISE WARNING 'roles other than superusers and % may create objects in schema %, where extension slime lives: %',
			CURRENT_USER, '@extschema@'::pg_catalog.regnamespace, who
			USING HINT = 'Keep the extension in a schema only trusted roles can create in: REVOKE CREATE ON SCHEMA @extschema@ FROM PUBLIC, and from the roles named (README, "Security").';
	END IF;
END
$$;

-- ==== game-server path (issue #21) ===========================================
-- Saves cost what changed: slime_loader_save converts only the chunks of a
-- file that differ from the world's previous save. <name>_worlds gets a
-- memo column: per chunk of the newest save, the length and XXH3-128 of its
-- record in the slime file and the store entry it became (src/core/sl_lmemo.h).
-- A record the memo knows byte for byte, whose entry the store still holds,
-- is added as a reference to that entry; the value is the one converting
-- the whole file gives (slime.loader_verify = on checks it on every save).
-- Every slime file slime_from_slimefile reads can be saved: one whose world
-- a version-13 file cannot hold is given back by loads exactly as it came.

-- The <name>_worlds table that goes with the saves table tbl: now in C (a
-- syscache lookup; the SQL join it replaces cost a plan on every save and load).
CREATE OR REPLACE FUNCTION slime_loader_worlds(tbl regclass) RETURNS regclass
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT;

-- A slime file as the reference form of its value and the memo of its chunk
-- records, reusing the chunks prev (a previous save's memo) knows; reused:
-- how many. Puts the entries of the other chunks in the store (so only the
-- extension's owner may call it; slime_loader_save runs it for the loader).
CREATE FUNCTION slime_loader_convert(file bytea, prev bytea, OUT data slime, OUT memo bytea,
		OUT reused integer)
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE
	SET search_path = pg_catalog, pg_temp;
REVOKE ALL ON FUNCTION slime_loader_convert(bytea, bytea) FROM PUBLIC;

-- slime_loader_create (security section) makes worlds tables with the memo
-- column and adds it to one made before 0.5.0.

-- Loader tables made before 0.5.0: their worlds tables get the memo column.
DO $$
DECLARE
	w regclass;
BEGIN
	FOR w IN SELECT DISTINCT @extschema@.slime_loader_worlds(t.tgrelid)
			 FROM pg_catalog.pg_trigger t
			 WHERE t.tgfoid OPERATOR(pg_catalog.=) '@extschema@.slime_lease_fence()'::pg_catalog.regprocedure LOOP
		EXECUTE pg_catalog.format('ALTER TABLE %1$s ADD COLUMN IF NOT EXISTS memo bytea; '
								  'ALTER TABLE %1$s ALTER COLUMN memo SET STORAGE EXTERNAL', w);
	END LOOP;
END
$$;

-- Save a slime file (any version) as world's next save under lease token;
-- keep the newest keep saves of world (NULL: all). Returns the save number.
-- Only the chunks that differ from the memo (the world's previous save) are
-- converted. A load gives back a version-13 file as it came, another file
-- written as version 13 when its world fits one, else as it came. In C
-- (src/loader.c): its three statements are prepared once per saves table,
-- with every operator qualified; the fence trigger checks the lease.
CREATE OR REPLACE FUNCTION slime_loader_save(tbl regclass, world text, token bigint, file bytea, keep integer DEFAULT NULL)
RETURNS bigint
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE;

-- The newest save of world as a slime file, or NULL: the file kept in the
-- world's row while its save is the newest (the file it was saved from, or
-- that file written as version 13), else version 13 written from the value.
-- In C (src/loader.c), its statements prepared once per saves table.
CREATE OR REPLACE FUNCTION slime_loader_load(tbl regclass, world text) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT;

-- Make save number save of world its newest save again (a new save equal to
-- it) under lease token; returns the new save's number. A save whose world a
-- version-13 slime file cannot hold is refused unless it is the newest save
-- (whose file is kept): loads could not give it back.
CREATE OR REPLACE FUNCTION slime_loader_rollback(tbl regclass, world text, save bigint, token bigint, keep integer DEFAULT NULL)
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
			f := @extschema@.slime_to_slimefile(old);
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


-- ==== storage at rest (issue #22) ============================================
-- Cold data settles into the densest form (README, "Storage at rest";
-- doc/format.md, "Chunk store"). slime_store gains two columns: stored_at,
-- when the entry was written (entries never change content, so "untouched
-- for older_than" means "written at least older_than ago"; entries stored
-- before 0.5.0 count as written long ago), and settled, set once
-- slime_settle() has rewritten it.
ALTER TABLE slime_store ADD COLUMN stored_at timestamptz NOT NULL DEFAULT '-infinity';
ALTER TABLE slime_store ALTER COLUMN stored_at SET DEFAULT pg_catalog.now();
ALTER TABLE slime_store ADD COLUMN settled boolean NOT NULL DEFAULT false;
CREATE INDEX slime_store_unsettled ON slime_store (stored_at) WHERE NOT settled;

-- A store entry rewritten into its densest form (the dense entry form, or a
-- zstd-19 frame where that is smaller; zstd-19 is not tried when the dense
-- form is below 0.85x the entry), decoded and compared with its bytes before
-- it is returned; NULL when the entry does not match its key.
CREATE FUNCTION slime_store_entry_settle(hash bytea, data bytea) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Drop the cached files of up to batch worlds of the loader whose saves
-- table is saves: worlds with no running lease and no save newer than
-- cutoff. Runs as the loader tables' owner (src/settle.c).
CREATE FUNCTION slime_settle_loader_files(saves regclass, cutoff timestamptz, batch integer,
		OUT files bigint, OUT bytes bigint)
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT;
REVOKE ALL ON FUNCTION slime_settle_loader_files(regclass, timestamptz, integer) FROM PUBLIC;

-- Rewrite into the densest form what the extension owns and nobody wrote for
-- older_than: store entries (same bytes, same hash, smaller), then the cached
-- files of loader worlds with no running lease (a load writes the file from
-- the newest save's value instead). batch_size entries or worlds a
-- statement; at most max_batches store batches (NULL: all); a NOTICE every
-- progress while it runs. Idempotent.
-- SECURITY DEFINER because it rewrites slime_store, which only the
-- extension's owner may write (as slime_gc() deletes from it); EXECUTE is
-- revoked from PUBLIC. What it runs on loader tables runs as their owner
-- (slime_settle_loader_files). It holds slime_gc()'s lock in
-- share mode: a collection and a settle wait for each other, and saves go on.
-- The GC's lock (slime_gc_lock) in share mode, to the end of the transaction.
CREATE FUNCTION slime_gc_lock_shared() RETURNS void
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE;
REVOKE ALL ON FUNCTION slime_gc_lock_shared() FROM PUBLIC;

CREATE FUNCTION slime_settle(older_than interval DEFAULT '15 minutes', batch_size integer DEFAULT 100,
		max_batches integer DEFAULT NULL, progress interval DEFAULT '10 seconds')
RETURNS TABLE (what text, items bigint, bytes_before bigint, bytes_after bigint)
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	cutoff timestamptz;
	started timestamptz := pg_catalog.clock_timestamp();
	reported timestamptz := pg_catalog.clock_timestamp();
	batches integer := 0;
	n bigint;
	b0 bigint;
	b1 bigint;
	bad bytea[];
	e_items bigint := 0;
	e_before bigint := 0;
	e_after bigint := 0;
	f_items bigint := 0;
	f_bytes bigint := 0;
	ldr record;
	r record;
BEGIN
	IF older_than IS NULL OR older_than < interval '0' THEN
		RAISE EXCEPTION 'older_than must be a non-negative interval, not %', older_than
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF batch_size IS NULL OR batch_size < 1 OR max_batches < 0 THEN
		RAISE EXCEPTION 'batch_size must be positive and max_batches not negative'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	cutoff := pg_catalog.now() - older_than;
	PERFORM @extschema@.slime_gc_lock_shared();
	-- 1. store entries, oldest first
	LOOP
		EXIT WHEN batches >= max_batches;
		WITH batch AS MATERIALIZED (
			SELECT s.hash, s.data FROM @extschema@.slime_store s
			WHERE NOT s.settled AND s.stored_at <= cutoff
			ORDER BY s.stored_at LIMIT batch_size
			FOR NO KEY UPDATE SKIP LOCKED),
		dense AS MATERIALIZED (
			SELECT b.hash, pg_catalog.octet_length(b.data) AS before,
				   @extschema@.slime_store_entry_settle(b.hash, b.data) AS data
			FROM batch b),
		done AS (
			UPDATE @extschema@.slime_store s
			SET data = CASE WHEN pg_catalog.octet_length(d.data) < d.before THEN d.data ELSE s.data END,
				settled = true
			FROM dense d WHERE s.hash = d.hash
			RETURNING s.hash, d.before, pg_catalog.octet_length(s.data) AS after, d.data IS NULL AS bad)
		SELECT pg_catalog.count(*), COALESCE(pg_catalog.sum(done.before), 0), COALESCE(pg_catalog.sum(done.after), 0),
			   pg_catalog.array_agg(done.hash) FILTER (WHERE done.bad)
			INTO n, b0, b1, bad FROM done;
		EXIT WHEN n = 0;
		batches := batches + 1;
		e_items := e_items + n;
		e_before := e_before + b0;
		e_after := e_after + b1;
		IF bad IS NOT NULL THEN
			RAISE WARNING 'slime_settle: % store entries do not match their keys and were left as they are', pg_catalog.cardinality(bad)
				USING DETAIL = pg_catalog.format('First: %s.', pg_catalog.encode(bad[1], 'hex')),
					  HINT = 'SELECT * FROM slime_store_verify() lists what is wrong with them.';
		END IF;
		IF pg_catalog.clock_timestamp() - reported >= progress THEN
			RAISE NOTICE 'slime_settle: % store entries settled so far', e_items
				USING DETAIL = pg_catalog.format('%s bytes before, %s after, %s s.', e_before, e_after,
					pg_catalog.round(EXTRACT(epoch FROM pg_catalog.clock_timestamp() - started), 1));
			reported := pg_catalog.clock_timestamp();
		END IF;
	END LOOP;
	-- 2. the cached files of cold loader worlds
	FOR ldr IN
		SELECT t.tgrelid::regclass AS saves FROM pg_catalog.pg_trigger t
		WHERE t.tgfoid = pg_catalog.to_regprocedure('@extschema@.slime_lease_fence()')
		ORDER BY t.tgrelid
	LOOP
		LOOP
			SELECT * INTO r FROM @extschema@.slime_settle_loader_files(ldr.saves, cutoff, batch_size);
			f_items := f_items + r.files;
			f_bytes := f_bytes + r.bytes;
			EXIT WHEN r.files < batch_size;
		END LOOP;
	END LOOP;
	IF pg_catalog.clock_timestamp() - started >= progress THEN
		RAISE NOTICE 'slime_settle: done: % store entries, % loader files', e_items, f_items
			USING DETAIL = pg_catalog.format('Store entries %s bytes before, %s after; loader files %s bytes; %s s.',
				e_before, e_after, f_bytes,
				pg_catalog.round(EXTRACT(epoch FROM pg_catalog.clock_timestamp() - started), 1));
	END IF;
	RETURN QUERY VALUES ('store entries', e_items, e_before, e_after),
						('loader files', f_items, f_bytes, 0::bigint);
END
$$;
REVOKE ALL ON FUNCTION slime_settle(interval, integer, integer, interval) FROM PUBLIC;

-- slime_settle() in batches that commit one by one: what is done stays done
-- when the run is cancelled, and no lock outlives its batch. A procedure
-- (CALL) that commits cannot carry SET search_path, so it pins it for each
-- of its transactions with set_config(..., is_local => true) as its first
-- statement, and qualifies everything. It runs as its caller, who needs
-- EXECUTE on slime_settle(); not PUBLIC either. The cutoff is fixed when it
-- starts, so that saves going on meanwhile cannot keep it running.
CREATE PROCEDURE slime_settle_batches(older_than interval DEFAULT '15 minutes', batch_size integer DEFAULT 100,
		progress interval DEFAULT '10 seconds',
		INOUT entries bigint DEFAULT NULL, INOUT bytes_before bigint DEFAULT NULL,
		INOUT bytes_after bigint DEFAULT NULL, INOUT files bigint DEFAULT NULL)
LANGUAGE plpgsql
AS $$
DECLARE
	started timestamptz := pg_catalog.now();	-- the first transaction's start
	reported timestamptz := pg_catalog.clock_timestamp();
	n bigint;
	r record;
BEGIN
	entries := 0; bytes_before := 0; bytes_after := 0; files := 0;
	LOOP
		PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
		n := 0;
		FOR r IN SELECT s.what, s.items, s.bytes_before AS b0, s.bytes_after AS b1
				 FROM @extschema@.slime_settle(older_than + (pg_catalog.now() - started), batch_size, 1, NULL) s
		LOOP
			IF r.what = 'store entries' THEN
				n := r.items;
				entries := entries + r.items;
				bytes_before := bytes_before + r.b0;
				bytes_after := bytes_after + r.b1;
			ELSE
				files := files + r.items;
			END IF;
		END LOOP;
		COMMIT;
		PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
		EXIT WHEN n < batch_size;
		IF pg_catalog.clock_timestamp() - reported >= progress THEN
			RAISE NOTICE 'slime_settle_batches: % store entries settled so far', entries
				USING DETAIL = pg_catalog.format('%s bytes before, %s after, %s s.', bytes_before, bytes_after,
					pg_catalog.round(EXTRACT(epoch FROM pg_catalog.clock_timestamp() - started), 1));
			reported := pg_catalog.clock_timestamp();
		END IF;
	END LOOP;
END
$$;
REVOKE ALL ON PROCEDURE slime_settle_batches(interval, integer, interval, bigint, bigint, bigint, bigint) FROM PUBLIC;

-- ==== web map (issue #23) =============================================
-- One 256 x 256 PNG tile of a world's top-down map, for slippy maps (zoom
-- -4..4: 2^zoom pixels a block; tile x, y in units of 256 / 2^zoom blocks).
-- STABLE like slime_render_map: a value in reference form reads the store.
CREATE FUNCTION slime_render_tile(world slime, z integer, x integer, y integer)
	RETURNS bytea AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
