-- slime 0.12.0 -> 0.13.0
\echo Use "ALTER EXTENSION slime UPDATE TO '0.13.0'" to load this file. \quit

-- ==== deferred loader saves (issue #34)
-- A save converts the chunks that changed into store entries, counts their
-- contents and writes the save's value: about a third of its CPU. With
-- slime.loader_defer on, a save to a loader that has its <name>_pending
-- table checks the file (the records that changed are read in full, as
-- before), keeps its frames and directory (what a load gives back) and a
-- pending row (the directory and the list of the file's records), and
-- converts nothing; slime_loader_catch_up() converts the pending saves
-- later, each into its row of the saves table, in order. src/loader.c,
-- doc/format.md "Deferred saves".

-- The <name>_pending table of a saves table, when it has one of its owner (NULL: none).
CREATE FUNCTION slime_loader_pending(tbl regclass) RETURNS regclass
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT;

-- Make the <name>_pending table of loader tbl (or return the one it has), so
-- that its saves may be deferred; owned by tbl's owner, no rights to others.
-- Only a role that may act as tbl's owner can make it.
CREATE FUNCTION slime_loader_defer_table(tbl regclass) RETURNS regclass
LANGUAGE plpgsql VOLATILE STRICT
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	nsp name;
	rel name;
	owner oid;
	p regclass := @extschema@.slime_loader_pending(tbl);
BEGIN
	PERFORM @extschema@.slime_loader_worlds(tbl);
	SELECT n.nspname, c.relname, c.relowner INTO nsp, rel, owner
	FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
	WHERE c.oid OPERATOR(pg_catalog.=) tbl;
	IF NOT pg_catalog.pg_has_role(owner, 'USAGE') THEN
		RAISE EXCEPTION 'only the owner of % can make its _pending table', tbl USING ERRCODE = 'insufficient_privilege';
	END IF;
	IF p IS NOT NULL THEN
		RETURN p;
	END IF;
	EXECUTE pg_catalog.format(
		'CREATE TABLE %I.%I (world pg_catalog.text NOT NULL, save pg_catalog.int8 NOT NULL, '
		'saved_at pg_catalog.timestamptz NOT NULL, token pg_catalog.int8 NOT NULL, keep pg_catalog.int4, '
		'dir pg_catalog.bytea NOT NULL, records pg_catalog.bytea NOT NULL, PRIMARY KEY (world, save))',
		nsp, rel OPERATOR(pg_catalog.||) '_pending');
	EXECUTE pg_catalog.format('ALTER TABLE %I.%I OWNER TO %I', nsp, rel OPERATOR(pg_catalog.||) '_pending',
							  (SELECT rolname FROM pg_catalog.pg_roles WHERE oid OPERATOR(pg_catalog.=) owner));
	EXECUTE pg_catalog.format('REVOKE ALL ON %I.%I FROM PUBLIC', nsp, rel OPERATOR(pg_catalog.||) '_pending');
	RETURN @extschema@.slime_loader_pending(tbl);
END
$$;

-- Convert the pending saves of world (NULL: of the max_worlds worlds whose
-- pending saves wait longest, NULL for all, those whose row a save holds
-- skipped), in order; how many were converted. For a role with INSERT on
-- tbl, as its owner. The worlds' rows stay locked until the transaction
-- ends (a save of one waits): slime_loader_catch_up_batches() commits
-- after each batch.
CREATE FUNCTION slime_loader_catch_up(tbl regclass, world text DEFAULT NULL, max_worlds integer DEFAULT 50)
RETURNS bigint
	AS 'MODULE_PATHNAME' LANGUAGE C VOLATILE;

-- Catch a loader up in batches of max_worlds worlds, committing after each,
-- until a batch converts nothing; saves counts the saves converted. What
-- a schedule runs (CALL; not inside a transaction block).
CREATE PROCEDURE slime_loader_catch_up_batches(tbl regclass, max_worlds integer DEFAULT 50,
		INOUT saves bigint DEFAULT NULL)
LANGUAGE plpgsql
AS $$
DECLARE
	n bigint;
BEGIN
	saves := 0;
	LOOP
		PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
		n := @extschema@.slime_loader_catch_up(tbl, NULL, max_worlds);
		saves := saves OPERATOR(pg_catalog.+) n;
		COMMIT;
		EXIT WHEN n OPERATOR(pg_catalog.=) 0;
	END LOOP;
END
$$;

-- A delete takes the world's pending saves with its saves.
CREATE OR REPLACE FUNCTION slime_loader_delete_as_owner(tbl regclass, world text, token bigint) RETURNS bigint
LANGUAGE plpgsql VOLATILE STRICT
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	n bigint;
	f regclass := @extschema@.slime_loader_frames(tbl);
	p regclass := @extschema@.slime_loader_pending(tbl);
	m bigint := 0;
BEGIN
	PERFORM @extschema@.slime_lease_check(@extschema@.slime_loader_worlds(tbl), world, token);
	n := @extschema@.slime_loader_remove(tbl, world, 0);
	IF p IS NOT NULL THEN
		EXECUTE pg_catalog.format('DELETE FROM %s WHERE world OPERATOR(pg_catalog.=) $1', p) USING world;
		GET DIAGNOSTICS m = ROW_COUNT;
	END IF;
	EXECUTE pg_catalog.format('UPDATE %s SET file = NULL WHERE world OPERATOR(pg_catalog.=) $1',
							  @extschema@.slime_loader_worlds(tbl)) USING world;
	IF f IS NOT NULL THEN
		EXECUTE pg_catalog.format('DELETE FROM %s WHERE world OPERATOR(pg_catalog.=) $1', f) USING world;
	END IF;
	RETURN n OPERATOR(pg_catalog.+) m;
END
$$;

-- A prune counts the world's pending saves: they are converted first.
CREATE OR REPLACE FUNCTION slime_loader_prune_as_owner(tbl regclass, world text, keep integer) RETURNS bigint
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
	IF keep IS NULL THEN
		RETURN 0;
	END IF;
	IF keep < 1 THEN
		RAISE EXCEPTION 'a loader keeps at least one save, not %', keep USING ERRCODE = 'invalid_parameter_value';
	END IF;
	PERFORM @extschema@.slime_loader_catch_up(tbl, world);
	RETURN @extschema@.slime_loader_remove(tbl, world, keep);
END
$$;

-- A rollback may go back to a save still pending: the world is caught up first.
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
	PERFORM @extschema@.slime_loader_catch_up(tbl, world);
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
