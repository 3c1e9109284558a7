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
 * Settle the cached file of up to batch worlds of a loader whose lease is
 * not running and whose newest save is not newer than cutoff, when it is a
 * version-13 file in its hot form (sl_sfhot.h): it is replaced by its cold
 * form against the newest save's chunks (slime_loader_file_cold of schema
 * ext; a file it cannot hold, or a hot form that fails its checksum, is
 * dropped, and a load writes it again from the value). A version-13 file
 * kept as it came (0.9.0 and earlier: no checksum) is not trusted: the cold
 * form is made of the file written from the newest save. A file of an
 * older version is kept: no version-13 file holds its world. Counts into
 * files/bytes/after (the files' sizes before and after); returns the chunk
 * hashes of those worlds' newest saves, each world's after a NULL
 * (*no_refs when there are none). Runs as the tables' owner.
 */
static Datum
settle_cold_files(Oid saves, Oid worlds, const char *ext, Datum cutoff, int32 batch,
				  int64 *files, int64 *bytes, int64 *after, bool *no_refs)
{
	const char *w = slime_rel_qualified(worlds);
	const char *s = slime_rel_qualified(saves);
	Oid			frames = slime_loader_frames_of(saves);
	const char *f = OidIsValid(frames) ? slime_rel_qualified(frames) : NULL;
	/* a framed form's file, assembled from its frames (none without the table: written from the save) */
	char	   *file = f ? psprintf("CASE WHEN pg_catalog.substring(w.file, 1, 4) OPERATOR(pg_catalog.=) "
									"'\\x534c4652'::pg_catalog.bytea THEN %s.slime_loader_file_framed(w.file, "
									"ARRAY(SELECT f.key OPERATOR(pg_catalog.||) f.frame FROM %s f "
									"WHERE f.world OPERATOR(pg_catalog.=) w.world)) ELSE w.file END", ext, f) :
		pstrdup("w.file");
	/* the frames of the worlds settled go with their framed form */
	char	   *drop = f ? psprintf(", dropped AS (DELETE FROM %s f USING gone g "
									"WHERE f.world OPERATOR(pg_catalog.=) g.world) ", f) :
		pstrdup(" ");
	/* what a world keeps of its file: a framed form's frames count too */
	char	   *size = f ? psprintf(" OPERATOR(pg_catalog.+) COALESCE((SELECT pg_catalog.sum(pg_catalog.octet_length(f.frame))"
									"::pg_catalog.int4 FROM %s f WHERE f.world OPERATOR(pg_catalog.=) w.world), 0)", f) :
		pstrdup("");
	char	   *q = psprintf(
		"WITH cold AS MATERIALIZED ("
		" SELECT w.world, pg_catalog.octet_length(w.file)%6$s AS n FROM %1$s w"
		" WHERE w.file IS NOT NULL"
		/*
		 * a version-13 file a load can write again, in its framed (SLFR) or
		 * hot (SLHF) form, or as it came; another is a world no v13 file
		 * holds. The predicate of the worlds table's index <name>_warm
		 * (slime_settle_index), word for word: that index finds them.
		 */
		"  AND (pg_catalog.substring(w.file, 1, 8) OPERATOR(pg_catalog.=) '\\x534c465201b10b0d'::pg_catalog.bytea"
		"   OR pg_catalog.substring(w.file, 1, 8) OPERATOR(pg_catalog.=) '\\x534c484601b10b0d'::pg_catalog.bytea"
		"   OR pg_catalog.substring(w.file, 1, 3) OPERATOR(pg_catalog.=) '\\xb10b0d'::pg_catalog.bytea)"
		"  AND (w.holder IS NULL OR w.expires OPERATOR(pg_catalog.<=) pg_catalog.clock_timestamp())"
		"  AND NOT EXISTS (SELECT 1 FROM %2$s s WHERE s.world OPERATOR(pg_catalog.=) w.world"
		"                   AND s.saved_at OPERATOR(pg_catalog.>) $1)"
		" LIMIT $2 FOR NO KEY UPDATE OF w SKIP LOCKED), "
		"gone AS (UPDATE %1$s w SET file = %3$s.slime_loader_file_cold(%4$s,"
		"   (SELECT s.data FROM %2$s s WHERE s.world OPERATOR(pg_catalog.=) w.world"
		"     AND s.save OPERATOR(pg_catalog.=) w.saves))"
		" FROM cold c"
		" WHERE w.world OPERATOR(pg_catalog.=) c.world AND w.file IS NOT NULL"
		"  AND (w.holder IS NULL OR w.expires OPERATOR(pg_catalog.<=) pg_catalog.clock_timestamp())"
		" RETURNING c.n, COALESCE(pg_catalog.octet_length(w.file), 0) AS m, w.world, w.saves)%5$s"
		"SELECT pg_catalog.count(*), COALESCE(pg_catalog.sum(n), 0)::pg_catalog.int8,"
		" COALESCE(pg_catalog.sum(m), 0)::pg_catalog.int8,"
		/*
		 * the chunks of their newest saves, each world's after a NULL, then
		 * those only its older saves hold, newest save first, for
		 * slime_settle_gather: a pack codes each older version of a chunk
		 * against the newer one before it
		 */
		" (SELECT pg_catalog.array_agg(r.h ORDER BY g.world, r.i) FROM gone g,"
		"   LATERAL (SELECT %3$s.slime_refs((SELECT s.data FROM %2$s s"
		"     WHERE s.world OPERATOR(pg_catalog.=) g.world AND s.save OPERATOR(pg_catalog.=) g.saves)) AS a) n,"
		"   LATERAL (SELECT NULL::pg_catalog.bytea, 0::pg_catalog.int8 UNION ALL"
		"    SELECT * FROM pg_catalog.unnest(n.a) WITH ORDINALITY UNION ALL"
		"    SELECT o.h, 4294967296 OPERATOR(pg_catalog.+) pg_catalog.min(o.k) FROM"
		"     (SELECT u.h, pg_catalog.row_number() OVER (ORDER BY s.save DESC, u.i) AS k FROM %2$s s,"
		"       pg_catalog.unnest(%3$s.slime_refs(s.data)) WITH ORDINALITY u(h, i)"
		"      WHERE s.world OPERATOR(pg_catalog.=) g.world AND s.save OPERATOR(pg_catalog.<>) g.saves) o"
		"     WHERE o.h OPERATOR(pg_catalog.<>) ALL (n.a) GROUP BY o.h) r(h, i))"
		" FROM gone",
		w, s, ext, file, drop, size);
	Oid			types[2] = {TIMESTAMPTZOID, INT4OID};
	Datum		args[2] = {cutoff, Int32GetDatum(batch)};
	bool		isnull;
	Datum		refs;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute_with_args(q, 2, types, args, NULL, false, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "settling the cold files of %s failed", w);
	*files = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	*bytes = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
	*after = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3, &isnull));
	refs = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 4, no_refs);
	if (!*no_refs)
		refs = SPI_datumTransfer(refs, false, -1);
	SPI_finish();
	return refs;
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

PG_FUNCTION_INFO_V1(slime_settle_loader_files);
/*
 * slime_settle_loader_files(saves regclass, cutoff timestamptz, batch int,
 * OUT files bigint, OUT bytes bigint, OUT bytes_after bigint, OUT refs
 * bytea[]): settle the cached files of up to batch cold worlds of the
 * loader whose saves table is saves (settle_cold_files); refs: their
 * newest saves' chunks, each world's after a NULL, for
 * slime_settle_gather. The statement runs as the owner of the
 * loader's tables (a restricted operation with the search_path pinned, as
 * VACUUM runs index functions), so that a trigger or an index expression on
 * them never runs with the caller's rights; the two tables must have one
 * owner, else nothing is done.
 */
Datum
slime_settle_loader_files(PG_FUNCTION_ARGS)
{
	Oid			saves = PG_GETARG_OID(0);
	Datum		cutoff = PG_GETARG_DATUM(1);
	int32		batch = PG_GETARG_INT32(2);
	Oid			worlds = slime_loader_worlds_of(saves);
	const char *ext = quote_identifier(get_namespace_name(get_func_namespace(fcinfo->flinfo->fn_oid)));
	int64		n[3] = {0, 0, 0};
	TupleDesc	td;
	Datum		vals[4];
	bool		nulls[4] = {false, false, false, true};

	slime_require_sql("slime_settle", NULL);
	if (get_call_result_type(fcinfo, NULL, &td) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "slime_settle_loader_files must return a record");
	if (batch < 1)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("batch size must be positive, not %d", batch)));
	if (OidIsValid(worlds) && slime_rel_owner(worlds) != slime_rel_owner(saves))
		ereport(WARNING,
				(errmsg("loader tables %s and %s have different owners; their files are left as they are",
						slime_rel_qualified(saves), slime_rel_qualified(worlds))));
	else if (OidIsValid(worlds))
	{
		slime_role_ctx rc;

		slime_become(slime_rel_owner(worlds), SECURITY_RESTRICTED_OPERATION, &rc);
		vals[3] = settle_cold_files(saves, worlds, ext, cutoff, batch, &n[0], &n[1], &n[2], &nulls[3]);
		slime_unbecome(&rc);
	}
	for (int i = 0; i < 3; i++)
		vals[i] = Int64GetDatum(n[i]);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(td), vals, nulls)));
}
