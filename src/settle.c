/*
 * settle.c - the C parts of slime_settle() (SQL, issue #22): a chunk store
 * entry rewritten into its densest form (0.5.0-0.6.0; packs since 0.7.0 are
 * packset.c's), and the cached files of a loader's cold worlds put in their
 * cold form (sl_sfcold.h), as the loader tables' owner.
 */
#include "slime.h"

#include "catalog/namespace.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "access/htup_details.h"
#include "catalog/pg_class.h"

#include "sl_sfcold.h"
#include "sl_sfhot.h"
#include "sl_slimefile.h"
#include "sl_store.h"

PG_FUNCTION_INFO_V1(slime_store_entry_settle);
/* A store entry rewritten into its densest form; NULL when it does not match its key. */
Datum
slime_store_entry_settle(PG_FUNCTION_ARGS)
{
	bytea	   *hash = PG_GETARG_BYTEA_PP(0);
	bytea	   *data = PG_GETARG_BYTEA_PP(1);
	sl_buf		out = {0};
	sl_err		err;
	bytea	   *r;

	if (VARSIZE_ANY_EXHDR(hash) != 32 ||
		sl_store_entry_settle((const uint8_t *) VARDATA_ANY(hash),
							  (const uint8_t *) VARDATA_ANY(data), VARSIZE_ANY_EXHDR(data),
							  slime_limits(), &out, &err))
		PG_RETURN_NULL();
	r = (bytea *) slime_from_bytes(out.data, out.len);
	sl_buf_free(&out);
	PG_RETURN_BYTEA_P(r);
}

/*
 * The worlds of a loader (w, its worlds table %1$s; %2$s its saves table)
 * whose cached file settles: a version-13 file a load can write again, in
 * its framed (SLFR) or hot (SLHF) form, or as it came (another is a world no
 * version-13 file holds), with no lease running and no save newer than $1;
 * the first $2 of them by name. The file predicate is that of the worlds
 * table's index <name>_warm (slime_settle_index), word for word: that index
 * finds them, in this order. No row is locked: slime_settle_loader_refs and
 * slime_settle_loader_files read the same batch.
 */
static const char cold_worlds_sql[] =
	" FROM %1$s w WHERE w.file IS NOT NULL"
	"  AND (pg_catalog.substring(w.file, 1, 8) OPERATOR(pg_catalog.=) '\\x534c465201b10b0d'::pg_catalog.bytea"
	"   OR pg_catalog.substring(w.file, 1, 8) OPERATOR(pg_catalog.=) '\\x534c484601b10b0d'::pg_catalog.bytea"
	"   OR pg_catalog.substring(w.file, 1, 3) OPERATOR(pg_catalog.=) '\\xb10b0d'::pg_catalog.bytea)"
	"  AND (w.holder IS NULL OR w.expires OPERATOR(pg_catalog.<=) pg_catalog.clock_timestamp())"
	"  AND NOT EXISTS (SELECT 1 FROM %2$s s WHERE s.world OPERATOR(pg_catalog.=) w.world"
	"                   AND s.saved_at OPERATOR(pg_catalog.>) $1)%3$s"
	" ORDER BY w.world LIMIT $2";

/*
 * The clause of cold_worlds_sql (%3$s) that leaves out the worlds of saves
 * table saves with a pending save (their frames are its only copy; see
 * slime_loader_catch_up), empty when the loader has no _pending table.
 */
static char *
not_pending(Oid saves)
{
	Oid			p = slime_loader_pending_of(saves);

	if (!OidIsValid(p))
		return "";
	return psprintf(" AND NOT EXISTS (SELECT FROM %s p WHERE p.world OPERATOR(pg_catalog.=) w.world)",
					slime_rel_qualified(p));
}

/* Run q (cold_worlds_sql's $1 cutoff and $2 batch) in a new SPI connection; one statement. */
static void
run_cold(const char *q, Datum cutoff, int32 batch, int expect)
{
	Oid			types[2] = {TIMESTAMPTZOID, INT4OID};
	Datum		args[2] = {cutoff, Int32GetDatum(batch)};

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute_with_args(q, 2, types, args, NULL, false, 0) != expect)
		elog(ERROR, "settling the cold files of a loader failed: %s", q);
}

/*
 * The chunks of the newest saves of the worlds whose files the next batch
 * settles (cold_worlds_sql), each world's after a NULL, then those only
 * its older saves hold, newest save first, for slime_settle_gather: a pack
 * codes each older version of a chunk against the newer one before it.
 * *isnull when there are no such worlds.
 */
static Datum
cold_world_refs(Oid saves, Oid worlds, const char *ext, Datum cutoff, int32 batch, bool *isnull)
{
	const char *s = slime_rel_qualified(saves);
	char	   *cand = psprintf(cold_worlds_sql, slime_rel_qualified(worlds), s, not_pending(saves));
	char	   *q = psprintf(
		"WITH g AS MATERIALIZED (SELECT w.world, w.saves%3$s) "
		"SELECT pg_catalog.array_agg(r.h ORDER BY g.world, r.i) FROM g,"
		" LATERAL (SELECT %2$s.slime_refs((SELECT s.data FROM %1$s s"
		"   WHERE s.world OPERATOR(pg_catalog.=) g.world AND s.save OPERATOR(pg_catalog.=) g.saves)) AS a) n,"
		" LATERAL (SELECT NULL::pg_catalog.bytea, 0::pg_catalog.int8 UNION ALL"
		"  SELECT * FROM pg_catalog.unnest(n.a) WITH ORDINALITY UNION ALL"
		"  SELECT o.h, 4294967296 OPERATOR(pg_catalog.+) pg_catalog.min(o.k) FROM"
		"   (SELECT u.h, pg_catalog.row_number() OVER (ORDER BY s.save DESC, u.i) AS k FROM %1$s s,"
		"     pg_catalog.unnest(%2$s.slime_refs(s.data)) WITH ORDINALITY u(h, i)"
		"    WHERE s.world OPERATOR(pg_catalog.=) g.world AND s.save OPERATOR(pg_catalog.<>) g.saves) o"
		"   WHERE o.h OPERATOR(pg_catalog.<>) ALL (n.a) GROUP BY o.h) r(h, i)",
		s, ext, cand);
	Datum		refs;

	run_cold(q, cutoff, batch, SPI_OK_SELECT);
	if (SPI_processed != 1)
		elog(ERROR, "the chunks of a loader's cold worlds were not read");
	refs = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, isnull);
	if (!*isnull)
		refs = SPI_datumTransfer(refs, false, -1);
	SPI_finish();
	return refs;
}

/* An array of the n datums of column col of tt's rows (of type t), NULLs kept. */
static Datum
column_array(SPITupleTable *tt, int n, int col, Oid t)
{
	Datum	   *d = palloc(sizeof(Datum) * (n + 1));
	bool	   *nulls = palloc(sizeof(bool) * (n + 1));
	int16		len;
	bool		byval;
	char		align;
	int			dims[1] = {n};
	int			lbs[1] = {1};

	for (int i = 0; i < n; i++)
		d[i] = SPI_getbinval(tt->vals[i], tt->tupdesc, col, &nulls[i]);
	get_typlenbyvalalign(t, &len, &byval, &align);
	return PointerGetDatum(construct_md_array(d, nulls, 1, dims, lbs, t, len, byval, align));
}

/*
 * Settle the cached file of the next batch of a loader's cold worlds
 * (cold_worlds_sql): the version-13 file in its hot or framed form (sl_sfhot.h)
 * is replaced by its cold form against the newest save's chunks
 * (slime_loader_file_cold of schema ext; a file it cannot hold, or a hot
 * form that fails its checksum, is dropped, and a load writes it again from
 * the value). A version-13 file kept as it came (0.9.0 and earlier: no
 * checksum) is not trusted: the cold form is made of the file written from
 * the newest save. A file of an older version is kept: no version-13 file
 * holds its world.
 *
 * The cold forms are made first, with no row locked; then one statement
 * locks the rows that are still the versions they were made of (a save, a
 * lease taken or given back since makes a new one), skipping any another
 * transaction holds, and writes them. So a lease or a save of one of these
 * worlds waits at most for that statement and its transaction's end, not
 * for the making. Counts into files/bytes/after (the files' sizes before
 * and after). Runs as the tables' owner.
 */
static void
settle_cold_files(Oid saves, Oid worlds, const char *ext, Datum cutoff, int32 batch,
				  int64 *files, int64 *bytes, int64 *after)
{
	const char *w = slime_rel_qualified(worlds);
	const char *s = slime_rel_qualified(saves);
	Oid			frames = slime_loader_frames_of(saves);
	const char *f = OidIsValid(frames) ? slime_rel_qualified(frames) : NULL;
	/* a framed form's file, assembled from its frames (none without the table: written from the save) */
	char	   *file = f ? psprintf("CASE WHEN pg_catalog.substring(c.file, 1, 4) OPERATOR(pg_catalog.=) "
									"'\\x534c4652'::pg_catalog.bytea THEN %s.slime_loader_file_framed(c.file, "
									"ARRAY(SELECT f.key OPERATOR(pg_catalog.||) f.frame FROM %s f "
									"WHERE f.world OPERATOR(pg_catalog.=) c.world)) ELSE c.file END", ext, f) :
		pstrdup("c.file");
	/* what a world keeps of its file: a framed form's frames count too */
	char	   *size = f ? psprintf(" OPERATOR(pg_catalog.+) COALESCE((SELECT pg_catalog.sum(pg_catalog.octet_length(f.frame))"
									"::pg_catalog.int4 FROM %s f WHERE f.world OPERATOR(pg_catalog.=) w.world), 0)", f) :
		pstrdup("");
	/* the frames of the worlds settled go with their framed form */
	char	   *drop = f ? psprintf(", dropped AS (DELETE FROM %s f USING gone g "
									"WHERE f.world OPERATOR(pg_catalog.=) g.world) ", f) :
		pstrdup(" ");
	char	   *make = psprintf(
		"SELECT c.world, c.t, c.n, %3$s.slime_loader_file_cold(%4$s,"
		" (SELECT s.data FROM %2$s s WHERE s.world OPERATOR(pg_catalog.=) c.world"
		"   AND s.save OPERATOR(pg_catalog.=) c.saves))"
		" FROM (SELECT w.world, w.ctid AS t, w.saves, w.file,"
		"  (pg_catalog.octet_length(w.file)%5$s)::pg_catalog.int8 AS n%1$s) c",
		psprintf(cold_worlds_sql, w, s, not_pending(saves)), s, ext, file, size);
	char	   *write = psprintf(
		"WITH c AS (SELECT * FROM ROWS FROM (pg_catalog.unnest($1::pg_catalog.text[]),"
		"  pg_catalog.unnest($2::pg_catalog.tid[]), pg_catalog.unnest($3::pg_catalog.int8[]),"
		"  pg_catalog.unnest($4::pg_catalog.bytea[])) u(world, t, n, f)), "
		"l AS (SELECT w.world, c.n, c.f FROM %1$s w JOIN c ON w.world OPERATOR(pg_catalog.=) c.world"
		"  AND w.ctid OPERATOR(pg_catalog.=) c.t"
		" WHERE w.file IS NOT NULL"
		"  AND (w.holder IS NULL OR w.expires OPERATOR(pg_catalog.<=) pg_catalog.clock_timestamp())"
		" FOR NO KEY UPDATE OF w SKIP LOCKED), "
		"gone AS (UPDATE %1$s w SET file = l.f FROM l WHERE w.world OPERATOR(pg_catalog.=) l.world"
		" RETURNING l.n, COALESCE(pg_catalog.octet_length(w.file), 0) AS m, w.world)%2$s"
		"SELECT pg_catalog.count(*), COALESCE(pg_catalog.sum(n), 0)::pg_catalog.int8,"
		" COALESCE(pg_catalog.sum(m), 0)::pg_catalog.int8 FROM gone",
		w, drop);
	Oid			types[4] = {TEXTARRAYOID, TIDARRAYOID, INT8ARRAYOID, BYTEAARRAYOID};
	Datum		args[4];
	SPITupleTable *made;
	int			n;
	bool		isnull;

	run_cold(make, cutoff, batch, SPI_OK_SELECT);
	made = SPI_tuptable;
	n = (int) SPI_processed;
	if (n > 0)
	{
		args[0] = column_array(made, n, 1, TEXTOID);
		args[1] = column_array(made, n, 2, TIDOID);
		args[2] = column_array(made, n, 3, INT8OID);
		args[3] = column_array(made, n, 4, BYTEAOID);
		if (SPI_execute_with_args(write, 4, types, args, NULL, false, 1) != SPI_OK_SELECT || SPI_processed != 1)
			elog(ERROR, "settling the cold files of %s failed", w);
		*files = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
		*bytes = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
		*after = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3, &isnull));
	}
	SPI_finish();
}

/* Warn that the damaged file kept for the save o is dropped (why), and close o. */
static void
warn_dropped(const char *why, slime_open_value *o)
{
	char		hex[65];

	sl_hash_hex(o->v.hdr.hash, hex);
	sl_value_close(&o->v);
	ereport(WARNING,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("a loader world's kept slime file is damaged and is dropped: %s", why),
			 errdetail("It was kept for the save of content hash %s, which is read as usual: a load writes the file from it, if a version-13 file holds it.",
					   hex)));
}

PG_FUNCTION_INFO_V1(slime_loader_file_cold);
/*
 * slime_loader_file_cold(file bytea, world slime): the cold form of the
 * version-13 file a loader world's row keeps (file) against the chunks of
 * world (the save it was kept for), or NULL when the file is not one the
 * cold form holds, or (a WARNING) is damaged. A hot form is used once its
 * checksum passes. A file kept as it came (0.9.0 and earlier: no checksum)
 * is not trusted: the cold form is made of the file written from world
 * instead or, when version 13 cannot hold world, of the file kept when its
 * whole conversion is world.
 */
Datum
slime_loader_file_cold(PG_FUNCTION_ARGS)
{
	bytea	   *kept = PG_GETARG_BYTEA_PP(0);
	const uint8_t *file = (const uint8_t *) VARDATA_ANY(kept);
	size_t		len = VARSIZE_ANY_EXHDR(kept);
	bool		hot = sl_sfhot_is(file, len);
	slime_open_value o;
	sl_sfcold_ref *refs = NULL;
	uint32_t	n = 0;
	sl_buf		prefix = {0};
	const uint8_t *pdata;
	size_t		plen;
	sl_buf		out = {0};
	sl_buf		written = {0};
	sl_err		err;
	bytea	   *r;

	slime_open(&o, PG_GETARG_DATUM(1), true);
	/* a damaged file is not made into a cold form that would vouch for it */
	if (hot && sl_sfhot_open(file, len, &file, &len, &err))
	{
		warn_dropped(err.msg, &o);
		PG_RETURN_NULL();
	}
	if (!hot && sl_slimefile_write(&o.v, SL_DEFAULT_LEVEL, slime_limits(), &written, NULL, &err) == 0)
	{
		/* kept as it came (no checksum): the file the save writes instead */
		file = written.data;
		len = written.len;
	}
	else if (!hot)
	{
		/* a world version 13 cannot hold: its file as it came, when it holds the save */
		if (err.code != SL_ERR_UNSUPPORTED)
			slime_raise(&err, false);
		if (!slime_loader_file_holds(file, len, &o))
		{
			warn_dropped("it does not hold the save it was kept for", &o);
			PG_RETURN_NULL();
		}
	}
	/* the prefix in hash order (version 2 on): a load finds it as the world's gathered pack holds it */
	if (sl_sfcold_refs(&o.v, &refs, &n, &err) ||
		sl_sfcold_prefix_hashed(&o.v, refs, n, NULL, NULL, 0, &prefix, &pdata, &plen, &err))
		slime_raise(&err, false);
	sl_free(refs);
	sl_value_close(&o.v);
	if (sl_sfcold_encode(file, len, SL_SFCOLD_VERSION, pdata, plen, slime_limits(), &out, &err))
	{
		if (err.code != SL_ERR_UNSUPPORTED)
			slime_raise(&err, false);
		PG_RETURN_NULL();
	}
	r = (bytea *) slime_from_bytes(out.data, out.len);
	sl_buf_free(&out);
	sl_buf_free(&prefix);
	sl_buf_free(&written);
	PG_RETURN_BYTEA_P(r);
}

/*
 * Whether the loader whose saves table is saves has a worlds table (put in
 * *worlds) whose files a settle may rewrite: both tables must have one
 * owner, else (a WARNING) nothing is done.
 */
static bool
settle_loader_of(Oid saves, Oid *worlds)
{
	*worlds = slime_loader_worlds_of(saves);
	if (!OidIsValid(*worlds))
		return false;
	if (slime_rel_owner(*worlds) == slime_rel_owner(saves))
		return true;
	ereport(WARNING,
			(errmsg("loader tables %s and %s have different owners; their files are left as they are",
					slime_rel_qualified(saves), slime_rel_qualified(*worlds))));
	return false;
}

/* The schema of the function fcinfo calls, quoted. */
static const char *
settle_ext(FunctionCallInfo fcinfo)
{
	return quote_identifier(get_namespace_name(get_func_namespace(fcinfo->flinfo->fn_oid)));
}

PG_FUNCTION_INFO_V1(slime_settle_loader_refs);
/*
 * slime_settle_loader_refs(saves regclass, cutoff timestamptz, batch int)
 * RETURNS bytea[]: the chunks of the worlds whose files the next
 * slime_settle_loader_files(saves, cutoff, batch) settles (cold_world_refs),
 * for slime_settle_gather to run first; NULL when there are none. Reads as
 * the owner of the loader's tables, as slime_settle_loader_files does.
 */
Datum
slime_settle_loader_refs(PG_FUNCTION_ARGS)
{
	Oid			saves = PG_GETARG_OID(0);
	Oid			worlds;
	bool		isnull = true;
	Datum		refs = (Datum) 0;

	slime_settle_check_batch(PG_GETARG_INT32(2));
	if (settle_loader_of(saves, &worlds))
	{
		slime_role_ctx rc;

		slime_become(slime_rel_owner(worlds), SECURITY_RESTRICTED_OPERATION, &rc);
		refs = cold_world_refs(saves, worlds, settle_ext(fcinfo), PG_GETARG_DATUM(1), PG_GETARG_INT32(2),
							   &isnull);
		slime_unbecome(&rc);
	}
	if (isnull)
		PG_RETURN_NULL();
	PG_RETURN_DATUM(refs);
}

PG_FUNCTION_INFO_V1(slime_settle_loader_files);
/*
 * slime_settle_loader_files(saves regclass, cutoff timestamptz, batch int,
 * OUT files bigint, OUT bytes bigint, OUT bytes_after bigint): settle the
 * cached files of up to batch cold worlds of the loader whose saves table
 * is saves (settle_cold_files). The statements run as the owner of the
 * loader's tables (a restricted operation with the search_path pinned, as
 * VACUUM runs index functions), so that a trigger or an index expression on
 * them never runs with the caller's rights.
 */
Datum
slime_settle_loader_files(PG_FUNCTION_ARGS)
{
	Oid			saves = PG_GETARG_OID(0);
	Oid			worlds;
	int64		n[3] = {0, 0, 0};
	TupleDesc	td;
	Datum		vals[3];
	bool		nulls[3] = {false, false, false};

	slime_settle_check_batch(PG_GETARG_INT32(2));
	if (get_call_result_type(fcinfo, NULL, &td) != TYPEFUNC_COMPOSITE || td->natts != 3)
		elog(ERROR, "slime_settle_loader_files must return a record of 3 columns");
	if (settle_loader_of(saves, &worlds))
	{
		slime_role_ctx rc;

		slime_become(slime_rel_owner(worlds), SECURITY_RESTRICTED_OPERATION, &rc);
		settle_cold_files(saves, worlds, settle_ext(fcinfo), PG_GETARG_DATUM(1), PG_GETARG_INT32(2),
						  &n[0], &n[1], &n[2]);
		slime_unbecome(&rc);
	}
	for (int i = 0; i < 3; i++)
		vals[i] = Int64GetDatum(n[i]);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(td), vals, nulls)));
}
