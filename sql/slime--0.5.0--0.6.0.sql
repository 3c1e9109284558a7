-- slime 0.5.0 -> 0.6.0
\echo Use "ALTER EXTENSION slime UPDATE TO '0.6.0'" to load this file. \quit

-- Each section below belongs to one piece of work; keep them apart so that
-- they merge cleanly. A fresh install runs 0.2.0 and every upgrade after it,
-- so what is defined here is also what a new database gets. The rules of
-- 0.4.0--0.5.0's security section hold here too: every function that is not
-- C pins search_path = pg_catalog, pg_temp and qualifies what it calls.

-- ==== security (issue #25) ==================================================

-- Leases as an access boundary (README, "Security", "Sharing a loader").
-- A role uses another role's loader through its functions only, and needs
-- no privilege on the _worlds table (which holds the tokens and the files
-- loads give back): each function checks that its caller holds, on the
-- saves table, the privilege that stands for what it does -- SELECT to load,
-- INSERT to take leases and save, DELETE to prune -- and then runs as the
-- owner of the loader's tables, in a restricted operation with its
-- search_path pinned (src/lguard.c). A lease is bound to the role that
-- acquired it (the column leased_by): another role's token, guessed or
-- replayed, is refused. The fence refuses writes to the saves table by roles
-- other than its owner that do not come through the functions.

-- The role that called the loader function running now (the lease checks
-- bind leases to it), else the current user.
CREATE FUNCTION slime_loader_caller() RETURNS name
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE;

-- Worlds tables made before 0.6.0 get leased_by. Leases that run across the
-- upgrade have none: the same holder acquires the world again, once.
DO $$
DECLARE
	w regclass;
BEGIN
	FOR w IN SELECT DISTINCT @extschema@.slime_loader_worlds(t.tgrelid)
			 FROM pg_catalog.pg_trigger t
			 WHERE t.tgfoid OPERATOR(pg_catalog.=) '@extschema@.slime_lease_fence()'::pg_catalog.regprocedure LOOP
		EXECUTE pg_catalog.format('ALTER TABLE %s ADD COLUMN IF NOT EXISTS leased_by pg_catalog.name', w);
	END LOOP;
END
$$;

-- Raise unless token is the current, unexpired lease of world in the worlds
-- table wtbl, acquired by the role calling the loader function (or, for a
-- plain INSERT, the current user); returns with that lease row locked until
-- the transaction ends. Another role's lease is not described further.
CREATE OR REPLACE FUNCTION slime_lease_check(wtbl regclass, world text, token bigint) RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	cur record;
	caller name := @extschema@.slime_loader_caller();
BEGIN
	EXECUTE pg_catalog.format('SELECT holder, token, expires, leased_by FROM %s WHERE world OPERATOR(pg_catalog.=) $1 FOR UPDATE', wtbl)
		INTO cur USING world;
	IF cur IS NULL OR cur.token IS DISTINCT FROM token OR cur.holder IS NULL
	   OR cur.expires <= pg_catalog.clock_timestamp() OR cur.leased_by IS DISTINCT FROM caller THEN
		RAISE EXCEPTION 'lease of world "%" is not held by token %', world, token
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  DETAIL = CASE WHEN cur.token IS NULL THEN 'The world has never been leased.'
							WHEN cur.leased_by IS DISTINCT FROM caller AND cur.holder IS NOT NULL
								 AND cur.expires > pg_catalog.clock_timestamp()
								THEN pg_catalog.format('Role %s holds no lease of it.', caller)
							WHEN cur.token IS DISTINCT FROM token THEN pg_catalog.format('The current token is %s.', cur.token)
							WHEN cur.holder IS NULL THEN 'The lease was released.'
							WHEN cur.leased_by IS DISTINCT FROM caller THEN pg_catalog.format('Role %s holds no lease of it.', caller)
							ELSE pg_catalog.format('The lease expired at %s.', cur.expires) END,
				  HINT = 'Acquire the lease again (slime_lease_acquire) and reload the world before saving.';
	END IF;
END
$$;

-- The fence (slime_lease_fence, defined once in the game-server section
-- below) refuses writes to a saves table by roles other than its owner that
-- do not come through the loader's functions.

-- The lease and loader functions a role other than the owner may call:
-- each is C (src/lguard.c) and runs its twin <name>_as_owner, below, as the
-- owner of the loader's tables once the caller holds INSERT (DELETE for
-- prune) on the saves table. The twins are not PUBLIC.
-- Raise unless a lease's time to live is positive.
CREATE FUNCTION slime_lease_ttl_check(ttl interval) RETURNS void
LANGUAGE plpgsql IMMUTABLE STRICT
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
	IF ttl OPERATOR(pg_catalog.<=) interval '0' THEN
		RAISE EXCEPTION 'lease time to live must be positive, not %', ttl USING ERRCODE = 'invalid_parameter_value';
	END IF;
END
$$;

CREATE FUNCTION slime_lease_acquire_as_owner(tbl regclass, world text, holder text, ttl interval) RETURNS bigint
LANGUAGE plpgsql VOLATILE STRICT
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	granted bigint;
BEGIN
	PERFORM @extschema@.slime_lease_ttl_check(ttl);
	-- "already holder's" means the same holder and the same role; a lease
	-- from before 0.6.0 (no role) goes to the same holder once
	EXECUTE pg_catalog.format($q$
		INSERT INTO %s AS w (world, holder, token, expires, leased_by)
		VALUES ($1, $2, 1, pg_catalog.clock_timestamp() OPERATOR(pg_catalog.+) $3, $4)
		ON CONFLICT (world) DO UPDATE
			SET holder = $2, token = w.token OPERATOR(pg_catalog.+) 1,
				expires = pg_catalog.clock_timestamp() OPERATOR(pg_catalog.+) $3, leased_by = $4
			WHERE w.holder IS NULL OR w.expires OPERATOR(pg_catalog.<=) pg_catalog.clock_timestamp()
			   OR w.holder OPERATOR(pg_catalog.=) $2 AND (w.leased_by OPERATOR(pg_catalog.=) $4 OR w.leased_by IS NULL)
		RETURNING token $q$, @extschema@.slime_loader_worlds(tbl))
		INTO granted USING world, holder, ttl, @extschema@.slime_loader_caller();
	RETURN granted;
END
$$;
REVOKE ALL ON FUNCTION slime_lease_acquire_as_owner(regclass, text, text, interval) FROM PUBLIC;

CREATE FUNCTION slime_lease_renew_as_owner(tbl regclass, world text, token bigint, ttl interval) RETURNS boolean
LANGUAGE plpgsql VOLATILE STRICT
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	n integer;
BEGIN
	PERFORM @extschema@.slime_lease_ttl_check(ttl);
	EXECUTE pg_catalog.format('UPDATE %s SET expires = pg_catalog.clock_timestamp() OPERATOR(pg_catalog.+) $3
					WHERE world OPERATOR(pg_catalog.=) $1 AND token OPERATOR(pg_catalog.=) $2 AND holder IS NOT NULL
					  AND expires OPERATOR(pg_catalog.>) pg_catalog.clock_timestamp()
					  AND leased_by OPERATOR(pg_catalog.=) $4', @extschema@.slime_loader_worlds(tbl))
		USING world, token, ttl, @extschema@.slime_loader_caller();
	GET DIAGNOSTICS n = ROW_COUNT;
	RETURN n > 0;
END
$$;
REVOKE ALL ON FUNCTION slime_lease_renew_as_owner(regclass, text, bigint, interval) FROM PUBLIC;

CREATE FUNCTION slime_lease_release_as_owner(tbl regclass, world text, token bigint) RETURNS boolean
LANGUAGE plpgsql VOLATILE STRICT
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	n integer;
BEGIN
	EXECUTE pg_catalog.format('UPDATE %s SET holder = NULL, expires = NULL
					WHERE world OPERATOR(pg_catalog.=) $1 AND token OPERATOR(pg_catalog.=) $2 AND holder IS NOT NULL
					  AND leased_by OPERATOR(pg_catalog.=) $3', @extschema@.slime_loader_worlds(tbl))
		USING world, token, @extschema@.slime_loader_caller();
	GET DIAGNOSTICS n = ROW_COUNT;
	RETURN n > 0;
END
$$;
REVOKE ALL ON FUNCTION slime_lease_release_as_owner(regclass, text, bigint) FROM PUBLIC;

-- rollback, delete and prune keep their bodies: the functions are renamed
-- to their twins, and C functions of the old names take their place
ALTER FUNCTION slime_loader_rollback(regclass, text, bigint, bigint, integer) RENAME TO slime_loader_rollback_as_owner;
ALTER FUNCTION slime_loader_delete(regclass, text, bigint) RENAME TO slime_loader_delete_as_owner;
ALTER FUNCTION slime_loader_prune(regclass, text, integer) RENAME TO slime_loader_prune_as_owner;
REVOKE ALL ON FUNCTION slime_loader_rollback_as_owner(regclass, text, bigint, bigint, integer) FROM PUBLIC;
REVOKE ALL ON FUNCTION slime_loader_delete_as_owner(regclass, text, bigint) FROM PUBLIC;
REVOKE ALL ON FUNCTION slime_loader_prune_as_owner(regclass, text, integer) FROM PUBLIC;

CREATE OR REPLACE FUNCTION slime_lease_acquire(tbl regclass, world text, holder text, ttl interval) RETURNS bigint
	AS 'MODULE_PATHNAME', 'slime_loader_write_as_owner' LANGUAGE C VOLATILE STRICT;
CREATE OR REPLACE FUNCTION slime_lease_renew(tbl regclass, world text, token bigint, ttl interval) RETURNS boolean
	AS 'MODULE_PATHNAME', 'slime_loader_write_as_owner' LANGUAGE C VOLATILE STRICT;
CREATE OR REPLACE FUNCTION slime_lease_release(tbl regclass, world text, token bigint) RETURNS boolean
	AS 'MODULE_PATHNAME', 'slime_loader_write_as_owner' LANGUAGE C VOLATILE STRICT;
CREATE FUNCTION slime_loader_rollback(tbl regclass, world text, save bigint, token bigint, keep integer DEFAULT NULL)
RETURNS bigint
	AS 'MODULE_PATHNAME', 'slime_loader_write_as_owner' LANGUAGE C VOLATILE;
CREATE FUNCTION slime_loader_delete(tbl regclass, world text, token bigint) RETURNS bigint
	AS 'MODULE_PATHNAME', 'slime_loader_write_as_owner' LANGUAGE C VOLATILE STRICT;
CREATE FUNCTION slime_loader_prune(tbl regclass, world text, keep integer) RETURNS bigint
	AS 'MODULE_PATHNAME', 'slime_loader_delete_as_owner' LANGUAGE C VOLATILE;
-- slime_loader_save and slime_loader_load (C already) check and switch the same way.

-- Raise unless tbl, which slime_loader_create found, has the shape it makes
-- (a saves table with the fence and store triggers when wtbl, its worlds
-- table, is given, else a worlds table) and is the caller's or a
-- superuser's -- or, when granted, another role's loader the caller was
-- granted (its functions then run as that role): its worlds table must then
-- have the current columns, which only its owner can add.
DROP FUNCTION slime_loader_check(regclass, regclass);
CREATE FUNCTION slime_loader_check(tbl regclass, wtbl regclass, granted boolean DEFAULT false) RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	owner name;
	cols text;
	base text;
	extras bigint;
	want text := CASE WHEN wtbl IS NULL
		THEN 'world text not null, holder text, token bigint not null, expires timestamp with time zone, '
			 'saves bigint not null, file bytea'
		ELSE 'world text not null, save bigint not null, saved_at timestamp with time zone not null, '
			 'token bigint not null, data ' OPERATOR(pg_catalog.||)
			 pg_catalog.format_type('@extschema@.slime'::pg_catalog.regtype, NULL) OPERATOR(pg_catalog.||) ' not null' END;
BEGIN
	SELECT r.rolname INTO owner
	FROM pg_catalog.pg_class c JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) c.relowner
	WHERE c.oid OPERATOR(pg_catalog.=) tbl AND (r.rolname OPERATOR(pg_catalog.=) CURRENT_USER OR r.rolsuper OR granted);
	IF owner IS NULL THEN
		RAISE EXCEPTION 'loader table % exists and belongs to role %, not to %', tbl,
			(SELECT pg_catalog.pg_get_userbyid(c.relowner) FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) tbl),
			CURRENT_USER
			USING ERRCODE = 'insufficient_privilege',
				  DETAIL = 'Its triggers, defaults and constraints would run that role''s code in every save of yours.',
				  HINT = 'Drop or rename it; or have its owner make the loader (slime_loader_create) and grant you its use: GRANT SELECT, INSERT ON its saves table TO you.';
	END IF;
	-- a worlds table made before 0.5.0 lacks memo, before 0.6.0 leased_by:
	-- what it has of the two is counted apart (extras)
	SELECT pg_catalog.string_agg(c.col, ', ' ORDER BY c.attnum),
		   pg_catalog.string_agg(c.col, ', ' ORDER BY c.attnum) FILTER (WHERE NOT c.extra),
		   pg_catalog.count(*) FILTER (WHERE c.extra)
		INTO cols, base, extras
	FROM (SELECT a.attnum, a.attname OPERATOR(pg_catalog.||) ' ' OPERATOR(pg_catalog.||)
				 pg_catalog.format_type(a.atttypid, a.atttypmod) OPERATOR(pg_catalog.||)
				 CASE WHEN a.attnotnull THEN ' not null' ELSE '' END AS col,
				 wtbl IS NULL AND (a.attname, a.atttypid) IN (('memo', 'pg_catalog.bytea'::pg_catalog.regtype),
															 ('leased_by', 'pg_catalog.name'::pg_catalog.regtype)) AS extra
		  FROM pg_catalog.pg_attribute a
		  WHERE a.attrelid OPERATOR(pg_catalog.=) tbl AND a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped) c;
	IF base IS DISTINCT FROM want OR granted AND wtbl IS NULL AND extras OPERATOR(pg_catalog.<>) 2
			OR (SELECT c.relkind FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) tbl)
			OPERATOR(pg_catalog.<>) 'r' THEN
		RAISE EXCEPTION 'table % exists but is not a loader''s % table', tbl,
			CASE WHEN wtbl IS NULL THEN 'worlds' ELSE 'saves' END
			USING ERRCODE = 'wrong_object_type',
				  DETAIL = pg_catalog.format('It has the columns (%s); a loader''s has (%s).', cols,
					  want OPERATOR(pg_catalog.||) CASE WHEN wtbl IS NULL THEN ', memo bytea, leased_by name' ELSE '' END),
				  HINT = CASE WHEN granted THEN 'Its owner brings it up to date by calling slime_loader_create once.'
						 ELSE 'Pick another name for the loader, or rename the table.' END;
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

-- slime_loader_create: as in 0.5.0, with leased_by in new worlds tables
-- (and added to older ones); and a loader of another role, both of whose
-- tables that role owns, is found for a role it granted INSERT on its saves
-- table: that role then uses it through the functions.
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
	ELSE
		PERFORM @extschema@.slime_loader_check(s, w);
	END IF;
	RETURN saves::pg_catalog.regclass;
END
$$;

-- Who may add to the store (README, "Security"). slime_store() is no longer
-- PUBLIC: a role could fill the store with entries nothing refers to. The
-- store trigger still stores for every role (it calls slime_store() by OID,
-- src/store.c): what it stores, the role's own table refers to. A role that
-- stores by hand (slime[] columns, restores) is granted EXECUTE on
-- slime_store(slime) and slime_store_add(bytea, bytea) by a DBA.
REVOKE EXECUTE ON FUNCTION slime_store(slime) FROM PUBLIC;

-- Backups without superuser (README, "Security", "Backups without
-- superuser"). The store entries a value refers to, to be copied beside a
-- dump of the tables that hold such values; whoever holds a value may read
-- them (slime_resolve gives the same chunks).
CREATE FUNCTION slime_store_entries(world slime, OUT hash bytea, OUT data bytea) RETURNS SETOF record
LANGUAGE sql STABLE STRICT SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
	SELECT s.hash, s.data FROM @extschema@.slime_store s
	WHERE s.hash OPERATOR(pg_catalog.=) ANY (@extschema@.slime_refs(world))
$$;

-- Put a store entry (as slime_store_entries gives it) into the store unless
-- there, once it is found to match its hash; whether it was added. For the
-- restore of such a copy: not PUBLIC, as slime_store(). Entries nothing
-- refers to are removed by the next slime_gc(): restore the values first,
-- or in the same transaction.
CREATE FUNCTION slime_store_add(hash bytea, data bytea) RETURNS boolean
LANGUAGE plpgsql VOLATILE STRICT SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
#variable_conflict use_variable
DECLARE
	problem text := @extschema@.slime_store_entry_check(hash, data);
	n integer;
BEGIN
	IF problem IS NOT NULL THEN
		RAISE EXCEPTION 'store entry % does not match its hash: %', pg_catalog.encode(hash, 'hex'), problem
			USING ERRCODE = 'data_corrupted';
	END IF;
	INSERT INTO @extschema@.slime_store AS s (hash, data) VALUES (hash, data) ON CONFLICT DO NOTHING;
	GET DIAGNOSTICS n = ROW_COUNT;
	RETURN n OPERATOR(pg_catalog.>) 0;
END
$$;
REVOKE ALL ON FUNCTION slime_store_add(bytea, bytea) FROM PUBLIC;

-- The database's owner reads the store, so that its whole-database pg_dump
-- (which dumps the store's rows with the extension) does not fail on it.
-- Not for superusers, who need no grant; ALTER DATABASE ... OWNER TO does
-- not move it (README says how to).
DO $$
DECLARE
	dba name := (SELECT pg_catalog.pg_get_userbyid(d.datdba) FROM pg_catalog.pg_database d
				 WHERE d.datname OPERATOR(pg_catalog.=) pg_catalog.current_database());
BEGIN
	IF NOT (SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) dba) THEN
		EXECUTE pg_catalog.format('GRANT SELECT ON @extschema@.slime_store TO %I', dba);
	END IF;
END
$$;

-- ==== game-server path (issue #21) ===========================================

-- A save checks its lease once. slime_loader_save (C) locks the world's row
-- and checks the lease with one prepared statement before it converts, then
-- draws the save number and writes the file and memo in one update. The
-- fence trigger lets that one row through instead of checking the lease and
-- updating the world's row again with dynamic SQL; every other insert or
-- update of a saves table is fenced as before.

-- Whether the row (world, save) going into the saves table tbl is the save
-- slime_loader_save is inserting in this (sub)transaction, its lease checked
-- and its number drawn (backend-local; true only during that insert).
CREATE FUNCTION slime_loader_fenced(tbl regclass, world text, save bigint) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE STRICT;

-- BEFORE INSERT OR UPDATE on a saves table: only its owner writes it
-- directly (security section); the row's token must be its world's current
-- lease, held by the writing role (TG_ARGV[0]: the worlds table); an insert
-- gets the world's next save number, drawn under the lease row's lock, and
-- clears the world's cached file. slime_loader_save's own insert has done both.
CREATE OR REPLACE FUNCTION slime_lease_fence() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
	-- slime_loader_save's own row (it runs as the owner, lease checked)
	IF TG_OP OPERATOR(pg_catalog.=) 'INSERT' AND @extschema@.slime_loader_fenced(TG_RELID, NEW.world, NEW.save) THEN
		RETURN NEW;
	END IF;
	-- only the table's owner (or a member of that role) writes it directly;
	-- other roles through the loader's functions, which run as the owner (#25)
	IF NOT pg_catalog.pg_has_role((SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) TG_RELID), 'USAGE') THEN
		RAISE EXCEPTION 'permission denied to write loader table % directly', TG_RELID::pg_catalog.regclass
			USING ERRCODE = 'insufficient_privilege',
				  HINT = 'Roles other than its owner save through slime_loader_save and the lease functions.';
	END IF;
	PERFORM @extschema@.slime_lease_check(TG_ARGV[0]::pg_catalog.regclass, NEW.world, NEW.token);
	IF TG_OP OPERATOR(pg_catalog.=) 'INSERT' THEN
		EXECUTE pg_catalog.format('UPDATE %s SET saves = saves OPERATOR(pg_catalog.+) 1, file = NULL '
								  'WHERE world OPERATOR(pg_catalog.=) $1 RETURNING saves', TG_ARGV[0])
			INTO NEW.save USING NEW.world;
		NEW.saved_at := pg_catalog.clock_timestamp();
	END IF;
	RETURN NEW;
END
$$;

-- ==== storage at rest (issue #22) ============================================

-- ==== web map (issue #23) ====================================================

-- ==== first hour (issue #24) =================================================

-- slime_put_chunk refuses NBT naming another position than (x, z); this is
-- how a chunk is moved (a template chunk copied elsewhere): its xPos/zPos
-- (Level.xPos/zPos before 1.18, entities' Position) rewritten, as Minecraft
-- relocates a chunk it finds in the wrong slot. Plain NBT out.
CREATE FUNCTION slime_chunk_relocate(nbt bytea, x integer, z integer) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
