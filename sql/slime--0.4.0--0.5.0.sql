-- slime 0.4.0 -> 0.5.0
\echo Use "ALTER EXTENSION slime UPDATE TO '0.5.0'" to load this file. \quit

-- Each section below belongs to one piece of work; keep them apart so that
-- they merge cleanly. A fresh install runs 0.2.0 and every upgrade after it,
-- so what is defined here is also what a new database gets.

-- ==== security (issue #25) ==================================================

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

-- Create the saves table name and name_worlds in schema (by default the
-- caller's current schema: the default is evaluated before the function's
-- own search_path applies) unless they exist; the saves go through the
-- chunk store. A worlds table made before 0.5.0 gets its memo column.
DROP FUNCTION slime_loader_create(text);
CREATE FUNCTION slime_loader_create(name text, schema text DEFAULT pg_catalog.current_schema())
RETURNS regclass
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	s text := schema;
	worlds text;
	saves text;
BEGIN
	IF name IS NULL THEN
		RETURN NULL;
	END IF;
	IF s IS NULL THEN
		RAISE EXCEPTION 'no schema to create loader table "%" in', name USING ERRCODE = 'invalid_schema_name';
	END IF;
	IF pg_catalog.octet_length(name) NOT BETWEEN 1 AND 56 THEN
		RAISE EXCEPTION 'loader table name "%" must be 1 to 56 bytes long', name
			USING ERRCODE = 'invalid_name';
	END IF;
	worlds := pg_catalog.format('%I.%I', s, name OPERATOR(pg_catalog.||) '_worlds');
	saves := pg_catalog.format('%I.%I', s, name);
	-- two servers starting at once: one creates, the other finds the tables;
	-- tables that exist are left alone (no lock taken on them) but for the memo
	PERFORM pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('slime_loader_create'), pg_catalog.hashtext(name));
	IF pg_catalog.to_regclass(worlds) IS NULL THEN
		EXECUTE pg_catalog.format($ddl$
			CREATE TABLE %1$s (
				world    text NOT NULL PRIMARY KEY,
				holder   text,
				token    bigint NOT NULL DEFAULT 0,
				expires  timestamptz,
				saves    bigint NOT NULL DEFAULT 0,
				file     bytea,
				memo     bytea
			);
			ALTER TABLE %1$s ALTER COLUMN file SET STORAGE EXTERNAL;
			ALTER TABLE %1$s ALTER COLUMN memo SET STORAGE EXTERNAL
			$ddl$, worlds);
	ELSIF NOT EXISTS (SELECT FROM pg_catalog.pg_attribute
					  WHERE attrelid OPERATOR(pg_catalog.=) pg_catalog.to_regclass(worlds)
						AND attname OPERATOR(pg_catalog.=) 'memo' AND NOT attisdropped) THEN
		EXECUTE pg_catalog.format('ALTER TABLE %1$s ADD COLUMN IF NOT EXISTS memo bytea; '
								  'ALTER TABLE %1$s ALTER COLUMN memo SET STORAGE EXTERNAL', worlds);
	END IF;
	IF pg_catalog.to_regclass(saves) IS NULL THEN
		EXECUTE pg_catalog.format($ddl$
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
			$ddl$, saves, worlds, name OPERATOR(pg_catalog.||) '_fence', name OPERATOR(pg_catalog.||) '_store');
	END IF;
	RETURN saves::regclass;
END
$$;

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
