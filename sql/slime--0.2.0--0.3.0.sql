-- slime 0.2.0 -> 0.3.0: value format v3 (a compact, compressed chunk
-- directory; frames that share a zstd prefix). Nothing in the catalog
-- changes for the values: every value written before stays readable as it
-- is, new values are written as v3, and slime_recompress(world) rewrites an
-- old one. New: world loaders with leases (below).
\echo Use "ALTER EXTENSION slime UPDATE TO '0.3.0'" to load this file. \quit

-- World loaders (README, "Game servers: a loader with leases"): a table of
-- saves <name> (one slime value per save, in the chunk store, numbered per
-- world) beside <name>_worlds (one row per world: its lease, its save
-- counter and the newest save's file). Every write carries a fencing token;
-- the lease row's lock, taken by the write itself, orders it before any
-- later grant.

-- The <name>_worlds table that goes with the saves table tbl.
CREATE FUNCTION slime_loader_worlds(tbl regclass) RETURNS regclass
LANGUAGE sql STABLE STRICT
AS $$
	SELECT format('%I.%I', n.nspname, c.relname || '_worlds')::regclass
	FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
	WHERE c.oid = tbl
$$;

-- Raise unless token is the current, unexpired lease of world in the worlds
-- table wtbl; returns with that lease row locked until the transaction ends.
CREATE FUNCTION slime_lease_check(wtbl regclass, world text, token bigint) RETURNS void
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
	cur record;
BEGIN
	EXECUTE format('SELECT holder, token, expires FROM %s WHERE world = $1 FOR UPDATE', wtbl)
		INTO cur USING world;
	IF cur IS NULL OR cur.token IS DISTINCT FROM token OR cur.holder IS NULL
	   OR cur.expires <= pg_catalog.clock_timestamp() THEN
		RAISE EXCEPTION 'lease of world "%" is not held by token %', world, token
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  DETAIL = CASE WHEN cur.token IS NULL THEN 'The world has never been leased.'
							WHEN cur.token IS DISTINCT FROM token THEN format('The current token is %s.', cur.token)
							WHEN cur.holder IS NULL THEN 'The lease was released.'
							ELSE format('The lease expired at %s.', cur.expires) END,
				  HINT = 'Acquire the lease again (slime_lease_acquire) and reload the world before saving.';
	END IF;
END
$$;

-- BEFORE INSERT OR UPDATE on a saves table: the row's token must be its
-- world's current lease (TG_ARGV[0]: the worlds table); an insert gets the
-- world's next save number, drawn under the lease row's lock, and clears
-- the world's cached file (slime_loader_save sets it again).
CREATE FUNCTION slime_lease_fence() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
	PERFORM @extschema@.slime_lease_check(TG_ARGV[0]::regclass, NEW.world, NEW.token);
	IF TG_OP = 'INSERT' THEN
		EXECUTE format('UPDATE %s SET saves = saves + 1, file = NULL WHERE world = $1 RETURNING saves', TG_ARGV[0])
			INTO NEW.save USING NEW.world;
		NEW.saved_at := pg_catalog.clock_timestamp();
	END IF;
	RETURN NEW;
END
$$;

-- Create the saves table name and name_worlds (in the current schema) unless
-- they exist; the saves go through the chunk store.
CREATE FUNCTION slime_loader_create(name text) RETURNS regclass
LANGUAGE plpgsql VOLATILE STRICT
AS $$
DECLARE
	s text := pg_catalog.current_schema();
	worlds text;
	saves text;
BEGIN
	IF s IS NULL THEN
		RAISE EXCEPTION 'no schema to create loader table "%" in', name USING ERRCODE = 'invalid_schema_name';
	END IF;
	IF octet_length(name) NOT BETWEEN 1 AND 56 THEN
		RAISE EXCEPTION 'loader table name "%" must be 1 to 56 bytes long', name
			USING ERRCODE = 'invalid_name';
	END IF;
	worlds := format('%I.%I', s, name || '_worlds');
	saves := format('%I.%I', s, name);
	-- two servers starting at once: one creates, the other finds the tables;
	-- tables that exist are left alone (no lock taken on them)
	PERFORM pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('slime_loader_create'), pg_catalog.hashtext(name));
	IF pg_catalog.to_regclass(worlds) IS NULL THEN
		EXECUTE format($ddl$
			CREATE TABLE %1$s (
				world    text NOT NULL PRIMARY KEY,
				holder   text,
				token    bigint NOT NULL DEFAULT 0,
				expires  timestamptz,
				saves    bigint NOT NULL DEFAULT 0,
				file     bytea
			);
			ALTER TABLE %1$s ALTER COLUMN file SET STORAGE EXTERNAL
			$ddl$, worlds);
	END IF;
	IF pg_catalog.to_regclass(saves) IS NULL THEN
		EXECUTE format($ddl$
			CREATE TABLE %1$s (
				world    text NOT NULL REFERENCES %2$s (world),
				save     bigint NOT NULL,
				saved_at timestamptz NOT NULL,
				token    bigint NOT NULL,
				data     @extschema@.slime NOT NULL,
				PRIMARY KEY (world, save)
			);
			CREATE TRIGGER %3$I BEFORE INSERT OR UPDATE ON %1$s
				FOR EACH ROW EXECUTE FUNCTION @extschema@.slime_lease_fence(%2$L);
			CREATE TRIGGER %4$I BEFORE INSERT OR UPDATE ON %1$s
				FOR EACH ROW EXECUTE FUNCTION @extschema@.slime_store_trigger()
			$ddl$, saves, worlds, name || '_fence', name || '_store');
	END IF;
	RETURN saves::regclass;
END
$$;

-- Grant the lease of world to holder for ttl (by the database clock) when
-- it is free, expired or already holder's; the new token is larger than
-- every token granted for world before. NULL while another holder's runs.
CREATE FUNCTION slime_lease_acquire(tbl regclass, world text, holder text, ttl interval) RETURNS bigint
LANGUAGE plpgsql VOLATILE STRICT
AS $$
DECLARE
	granted bigint;
BEGIN
	IF ttl <= interval '0' THEN
		RAISE EXCEPTION 'lease time to live must be positive, not %', ttl USING ERRCODE = 'invalid_parameter_value';
	END IF;
	EXECUTE format($q$
		INSERT INTO %s AS w (world, holder, token, expires)
		VALUES ($1, $2, 1, pg_catalog.clock_timestamp() + $3)
		ON CONFLICT (world) DO UPDATE
			SET holder = $2, token = w.token + 1, expires = pg_catalog.clock_timestamp() + $3
			WHERE w.holder IS NULL OR w.holder = $2 OR w.expires <= pg_catalog.clock_timestamp()
		RETURNING token $q$, @extschema@.slime_loader_worlds(tbl))
		INTO granted USING world, holder, ttl;
	RETURN granted;
END
$$;

-- Extend the running lease token of world to ttl from now; false when
-- token is not the world's current, unexpired lease.
CREATE FUNCTION slime_lease_renew(tbl regclass, world text, token bigint, ttl interval) RETURNS boolean
LANGUAGE plpgsql VOLATILE STRICT
AS $$
DECLARE
	n integer;
BEGIN
	IF ttl <= interval '0' THEN
		RAISE EXCEPTION 'lease time to live must be positive, not %', ttl USING ERRCODE = 'invalid_parameter_value';
	END IF;
	EXECUTE format('UPDATE %s SET expires = pg_catalog.clock_timestamp() + $3
					WHERE world = $1 AND token = $2 AND holder IS NOT NULL
					  AND expires > pg_catalog.clock_timestamp()', @extschema@.slime_loader_worlds(tbl))
		USING world, token, ttl;
	GET DIAGNOSTICS n = ROW_COUNT;
	RETURN n > 0;
END
$$;

-- End the lease token of world; false when it was not the current one.
CREATE FUNCTION slime_lease_release(tbl regclass, world text, token bigint) RETURNS boolean
LANGUAGE plpgsql VOLATILE STRICT
AS $$
DECLARE
	n integer;
BEGIN
	EXECUTE format('UPDATE %s SET holder = NULL, expires = NULL
					WHERE world = $1 AND token = $2 AND holder IS NOT NULL', @extschema@.slime_loader_worlds(tbl))
		USING world, token;
	GET DIAGNOSTICS n = ROW_COUNT;
	RETURN n > 0;
END
$$;

-- Insert data as world's next save under lease token (the fence trigger
-- checks it), then keep the newest keep saves (NULL: all); the save's number.
CREATE FUNCTION slime_loader_insert(tbl regclass, world text, token bigint, data @extschema@.slime, keep integer)
RETURNS bigint
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
	saved bigint;
BEGIN
	EXECUTE format('INSERT INTO %s (world, token, data) VALUES ($1, $2, $3) RETURNING save', tbl)
		INTO saved USING world, token, data;
	PERFORM @extschema@.slime_loader_prune(tbl, world, keep);
	RETURN saved;
END
$$;

-- Save a slime file (any version) as world's next save under lease token;
-- keep the newest keep saves of world (NULL: all). Returns the save number.
CREATE FUNCTION slime_loader_save(tbl regclass, world text, token bigint, file bytea, keep integer DEFAULT NULL)
RETURNS bigint
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
	v @extschema@.slime := @extschema@.slime_from_slimefile(file);
	i jsonb := @extschema@.slime_info(v);
	saved bigint;
BEGIN
	IF world IS NULL OR token IS NULL OR file IS NULL THEN
		RAISE EXCEPTION 'world, token and file must not be NULL' USING ERRCODE = 'null_value_not_allowed';
	END IF;
	-- what slime_to_slimefile cannot write back is refused now, not at load
	IF (i ->> 'chunks')::int > 0 AND (coalesce((i #>> '{data_version,min}')::int, 0) < 2844
	    OR (i #>> '{data_version,min}') IS DISTINCT FROM (i #>> '{data_version,max}')) THEN
		RAISE EXCEPTION 'world "%": a loader keeps only worlds of 1.18+ chunks of one DataVersion (this file has %..%)',
			world, i #>> '{data_version,min}', i #>> '{data_version,max}'
			USING ERRCODE = 'feature_not_supported',
				  HINT = 'slime_to_slimefile writes version 13 slime files, which hold such chunks only.';
	END IF;
	saved := @extschema@.slime_loader_insert(tbl, world, token, v, keep);
	-- a version-13 file (what ASP 4 writes) is what a load gives back: kept as it came
	IF pg_catalog.get_byte(file, 2) = 13 THEN
		EXECUTE format('UPDATE %s SET file = $2 WHERE world = $1', @extschema@.slime_loader_worlds(tbl))
			USING world, file;
	END IF;
	RETURN saved;
END
$$;

-- Delete all but the newest keep saves of world (0: every save), with no
-- check; how many went.
CREATE FUNCTION slime_loader_remove(tbl regclass, world text, keep integer) RETURNS bigint
LANGUAGE plpgsql VOLATILE STRICT
AS $$
DECLARE
	n bigint;
BEGIN
	EXECUTE format('DELETE FROM %1$s WHERE world = $1 AND save <= (SELECT max(save) - $2 FROM %1$s WHERE world = $1)', tbl)
		USING world, keep;
	GET DIAGNOSTICS n = ROW_COUNT;
	RETURN n;
END
$$;

-- Delete all but the newest keep saves of world (NULL: none); how many went.
CREATE FUNCTION slime_loader_prune(tbl regclass, world text, keep integer) RETURNS bigint
LANGUAGE plpgsql VOLATILE
AS $$
BEGIN
	IF keep IS NULL THEN
		RETURN 0;
	END IF;
	IF keep < 1 THEN
		RAISE EXCEPTION 'a loader keeps at least one save, not %', keep USING ERRCODE = 'invalid_parameter_value';
	END IF;
	RETURN @extschema@.slime_loader_remove(tbl, world, keep);
END
$$;

-- Make save number save of world its newest save again (a new save equal to
-- it) under lease token; returns the new save's number.
CREATE FUNCTION slime_loader_rollback(tbl regclass, world text, save bigint, token bigint, keep integer DEFAULT NULL)
RETURNS bigint
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
	old @extschema@.slime;
BEGIN
	EXECUTE format('SELECT data FROM %s WHERE world = $1 AND save = $2', tbl) INTO old USING world, save;
	IF old IS NULL THEN
		RAISE EXCEPTION 'world "%" has no save %', world, save USING ERRCODE = 'no_data_found';
	END IF;
	RETURN @extschema@.slime_loader_insert(tbl, world, token, old, keep);
END
$$;

-- Delete every save of world under lease token (the lease and the save
-- counter stay); how many saves went.
CREATE FUNCTION slime_loader_delete(tbl regclass, world text, token bigint) RETURNS bigint
LANGUAGE plpgsql VOLATILE STRICT
AS $$
DECLARE
	n bigint;
BEGIN
	PERFORM @extschema@.slime_lease_check(@extschema@.slime_loader_worlds(tbl), world, token);
	n := @extschema@.slime_loader_remove(tbl, world, 0);
	EXECUTE format('UPDATE %s SET file = NULL WHERE world = $1', @extschema@.slime_loader_worlds(tbl)) USING world;
	RETURN n;
END
$$;

-- The newest save of world as a version-13 slime file, or NULL: the file
-- it was saved from when that was version 13 and it is still the newest
-- save, else written from the value.
CREATE FUNCTION slime_loader_load(tbl regclass, world text) RETURNS bytea
LANGUAGE plpgsql STABLE STRICT
AS $$
DECLARE
	f bytea;
BEGIN
	EXECUTE format('SELECT w.file FROM %s w JOIN %s s ON s.world = w.world AND s.save = w.saves
					WHERE w.world = $1 AND w.file IS NOT NULL', @extschema@.slime_loader_worlds(tbl), tbl)
		INTO f USING world;
	IF f IS NULL THEN
		EXECUTE format('SELECT @extschema@.slime_to_slimefile(data) FROM %s WHERE world = $1
						ORDER BY save DESC LIMIT 1', tbl)
			INTO f USING world;
	END IF;
	RETURN f;
END
$$;
