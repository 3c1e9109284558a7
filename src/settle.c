/*
 * settle.c - the C parts of slime_settle() (SQL, issue #22): a chunk store
 * entry rewritten into its densest form, and the cached files of a loader's
 * cold worlds dropped, as the loader tables' owner.
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
 * Drop the cached file of up to batch worlds of a loader whose lease is not
 * running and whose newest save is not newer than cutoff, when it is a
 * version-13 file (one a load writes again from the value: a file of an
 * older version is kept because no version-13 file holds its world); counts into
 * files/bytes (the files' sizes). Runs as the tables' owner.
 */
static void
drop_cold_files(Oid saves, Oid worlds, Datum cutoff, int32 batch, int64 *files, int64 *bytes)
{
	const char *w = slime_rel_qualified(worlds);
	const char *s = slime_rel_qualified(saves);
	char	   *q = psprintf(
		"WITH cold AS MATERIALIZED ("
		" SELECT w.world, pg_catalog.octet_length(w.file) AS n FROM %s w"
		" WHERE w.file IS NOT NULL"
		/* a version-13 file a load can write again; another is a world no v13 file holds */
		"  AND pg_catalog.substring(w.file, 1, 3) OPERATOR(pg_catalog.=) '\\xb10b0d'::pg_catalog.bytea"
		"  AND (w.holder IS NULL OR w.expires OPERATOR(pg_catalog.<=) pg_catalog.clock_timestamp())"
		"  AND NOT EXISTS (SELECT 1 FROM %s s WHERE s.world OPERATOR(pg_catalog.=) w.world"
		"                   AND s.saved_at OPERATOR(pg_catalog.>) $1)"
		" LIMIT $2 FOR NO KEY UPDATE OF w SKIP LOCKED), "
		"gone AS (UPDATE %s w SET file = NULL FROM cold c"
		" WHERE w.world OPERATOR(pg_catalog.=) c.world AND w.file IS NOT NULL"
		"  AND (w.holder IS NULL OR w.expires OPERATOR(pg_catalog.<=) pg_catalog.clock_timestamp())"
		" RETURNING c.n) "
		"SELECT pg_catalog.count(*), COALESCE(pg_catalog.sum(n), 0)::pg_catalog.int8 FROM gone",
		w, s, w);
	Oid			types[2] = {TIMESTAMPTZOID, INT4OID};
	Datum		args[2] = {cutoff, Int32GetDatum(batch)};
	bool		isnull;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute_with_args(q, 2, types, args, NULL, false, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "dropping the cold files of %s failed", w);
	*files = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	*bytes = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
	SPI_finish();
}

PG_FUNCTION_INFO_V1(slime_settle_loader_files);
/*
 * slime_settle_loader_files(saves regclass, cutoff timestamptz, batch int,
 * OUT files bigint, OUT bytes bigint): drop the cached files of up to batch
 * cold worlds of the loader whose saves table is saves. The statement runs
 * as the owner of the loader's tables (a restricted operation with the
 * search_path pinned, as VACUUM runs index functions), so that a trigger or
 * an index expression on them never runs with the caller's rights; the two
 * tables must have one owner, else nothing is done.
 */
Datum
slime_settle_loader_files(PG_FUNCTION_ARGS)
{
	Oid			saves = PG_GETARG_OID(0);
	Datum		cutoff = PG_GETARG_DATUM(1);
	int32		batch = PG_GETARG_INT32(2);
	Oid			worlds = slime_loader_worlds_of(saves);
	int64		files = 0;
	int64		bytes = 0;
	TupleDesc	td;
	Datum		vals[2];
	bool		nulls[2] = {false, false};

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
		drop_cold_files(saves, worlds, cutoff, batch, &files, &bytes);
		slime_unbecome(&rc);
	}
	vals[0] = Int64GetDatum(files);
	vals[1] = Int64GetDatum(bytes);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(td), vals, nulls)));
}
