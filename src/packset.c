/*
 * packset.c - slime_settle()'s batches that write the chunk store's packs
 * (issue #22): unsettled entries packed oldest first (slime_settle_pack),
 * and the chunks of cold worlds gathered into packs of their own
 * (slime_settle_gather); packs they leave empty are deleted and those left
 * less than half alive thinned (slime_store_thin_packs). A pack's format is
 * sl_pack.h's; reading packs is pack.c's.
 */
#include "slime.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/snapmgr.h"

#include "sl_pack.h"
#include "sl_store.h"

/*
 * Gathered entries start a new pack with each world once the pack holds
 * this many (smaller worlds share one): a cold world's first load decodes
 * about its own chunks.
 */
#define GATHER_MIN 16

/* The statements of a settle batch, each with the store's schema for %1$s. */
enum
{
	PQ_BATCH,					/* up to $2 unsettled entries stored by $1, oldest first, locked */
	PQ_GATHER,					/* entries $1 (in that order; a NULL starts a world: w counts them) not in a
								 * gathered pack nor settled alone, locked */
	PQ_INSERT,					/* a pack; its id */
	PQ_INSERT_GATHERED,			/* a pack of gathered entries; its id */
	PQ_POINT,					/* entries $2 now point into pack $1 with data $3 */
	PQ_SETTLED,					/* entries $1 left as they are, settled */
	PQ_FREE,					/* packs $1 (repacked from) that no entry points into any more */
	PQ_THIN,					/* packs $1 (repacked from) less than half alive: repacked next */
	PQ_COUNT
};
static const char *const pack_sql[PQ_COUNT] = {
	"SELECT s.hash, s.data, s.pack FROM %1$s.slime_store s WHERE NOT s.settled "
	"AND s.stored_at OPERATOR(pg_catalog.<=) $1 ORDER BY s.stored_at LIMIT $2 "
	"FOR NO KEY UPDATE OF s SKIP LOCKED",
	"SELECT s.hash, s.data, s.pack, u.w FROM %1$s.slime_store s "
	"JOIN (SELECT v.h, pg_catalog.min(v.i) AS i, pg_catalog.min(v.w) AS w FROM "
	"      (SELECT u.h, u.i, pg_catalog.count(*) FILTER (WHERE u.h IS NULL) OVER (ORDER BY u.i) AS w "
	"       FROM ROWS FROM (pg_catalog.unnest($1::pg_catalog.bytea[])) WITH ORDINALITY u(h, i)) v "
	"      WHERE v.h IS NOT NULL GROUP BY v.h) u "
	"ON s.hash OPERATOR(pg_catalog.=) u.h "
	"LEFT JOIN %1$s.slime_store_packs p ON p.id OPERATOR(pg_catalog.=) s.pack "
	"WHERE CASE WHEN s.pack IS NULL THEN NOT s.settled ELSE NOT p.gathered END "
	"ORDER BY u.i FOR NO KEY UPDATE OF s SKIP LOCKED",
	"INSERT INTO %1$s.slime_store_packs (data) VALUES ($1) RETURNING id",
	"INSERT INTO %1$s.slime_store_packs (data, gathered) VALUES ($1, true) RETURNING id",
	"UPDATE %1$s.slime_store s SET pack = $1, data = u.d, settled = true "
	"FROM ROWS FROM (pg_catalog.unnest($2::pg_catalog.bytea[]), pg_catalog.unnest($3::pg_catalog.bytea[])) u(h, d) "
	"WHERE s.hash OPERATOR(pg_catalog.=) u.h",
	"UPDATE %1$s.slime_store s SET settled = true WHERE s.hash OPERATOR(pg_catalog.=) ANY ($1)",
	"DELETE FROM %1$s.slime_store_packs p WHERE p.id OPERATOR(pg_catalog.=) ANY ($1) "
	"AND NOT EXISTS (SELECT 1 FROM %1$s.slime_store s WHERE s.pack OPERATOR(pg_catalog.=) p.id)",
	"SELECT %1$s.slime_store_thin_packs($1)"
};

/* Run pack statement q of schema nsp with args; SPI's result code must be expect. */
static void
run_pack(int q, const char *nsp, int nargs, Oid *types, Datum *args, int expect)
{
	char	   *sql = psprintf(pack_sql[q], nsp);

	if (SPI_execute_with_args(sql, nargs, types, args, NULL, false, 0) != expect)
		elog(ERROR, "chunk store pack statement failed: %s", sql);
}

/* A bytea[] of n datums. */
static Datum
bytea_array(Datum *d, int n)
{
	return PointerGetDatum(construct_array(d, n, BYTEAOID, -1, false, TYPALIGN_INT));
}

/*
 * Pack the canonical bytes of n entries (all[off[i]..off[i+1])), keyed by
 * hash[i], into out, and check that the pack gives every one of them back
 * under its key. A gathered pack (a world's chunks, then those of its older
 * saves) codes the versions of a chunk against each other.
 */
static void
encode_checked(const sl_buf *all, const size_t *off, const Datum *hash, int n, bool gathered, sl_buf *out)
{
	sl_pack_codec codec = slime_settle_dense() ? SL_PACK_DENSE : SL_PACK_FAST;
	const uint8_t **e = palloc(sizeof(uint8_t *) * n);
	const uint8_t **key = palloc(sizeof(uint8_t *) * n);
	size_t	   *size = palloc(sizeof(size_t) * n);
	sl_pack		p;
	sl_buf		back = {0};
	sl_err		err;

	for (int i = 0; i < n; i++)
	{
		bytea	   *h = DatumGetByteaPP(hash[i]);

		if (VARSIZE_ANY_EXHDR(h) != 32)
			elog(ERROR, "a chunk store key is not 32 bytes");
		e[i] = all->data + off[i];
		key[i] = (const uint8_t *) VARDATA_ANY(h);
		size[i] = off[i + 1] - off[i];
	}
	if ((gathered ? sl_pack_encode_history(e, size, key, n, codec, out, &err) :
		 sl_pack_encode(e, size, key, n, codec, out, &err)) ||
		sl_pack_open(out->data, out->len, slime_limits(), &p, &err))
		slime_raise(&err, false);
	for (int i = 0; i < n; i++)
	{
		back.len = 0;
		if (sl_pack_entry(&p, i, &back, &err))
			slime_raise(&err, false);
		if (back.len != size[i] || memcmp(back.data, e[i], size[i]) != 0 || sl_pack_entry_is(&p, i, key[i]) != 1)
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("a chunk store pack does not give back entry %d of its batch", i)));
	}
	sl_pack_free(&p);
	sl_buf_free(&back);
}

/*
 * Pack entries hash[0..n) (their canonical bytes all->data + off[i], stored
 * in before bytes) into one new pack and point their rows into it, unless
 * the pack is not smaller; then they are settled as they are (added to
 * keep). Returns the bytes they take after.
 */
static int64
pack_group(const char *nsp, bool gathered, const sl_buf *all, const size_t *off, Datum *hash,
		   int n, int64 before, Datum *keep, int *nkeep)
{
	sl_buf		pack = {0};
	Datum		args[3];
	Oid			types[3] = {INT8OID, BYTEAARRAYOID, BYTEAARRAYOID};
	Oid			t = BYTEAOID;
	Datum	   *point = palloc(sizeof(Datum) * n);
	bool		isnull;
	int64		after = (int64) SL_PACKED_SIZE * n;

	encode_checked(all, off, hash, n, gathered, &pack);
	after += (int64) pack.len;
	if (after >= before)
	{
		memcpy(keep + *nkeep, hash, sizeof(Datum) * n);
		*nkeep += n;
		sl_buf_free(&pack);
		return before;
	}
	args[0] = PointerGetDatum(slime_from_bytes(pack.data, pack.len));
	sl_buf_free(&pack);
	run_pack(gathered ? PQ_INSERT_GATHERED : PQ_INSERT, nsp, 1, &t, args, SPI_OK_INSERT_RETURNING);
	args[0] = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	for (int i = 0; i < n; i++)
	{
		uint8_t		p[SL_PACKED_SIZE] = {SL_ENTRY_PACKED};

		sl_put_u32le(p + 1, (uint32_t) i);
		point[i] = PointerGetDatum(slime_from_bytes(p, sizeof(p)));
	}
	args[1] = bytea_array(hash, n);
	args[2] = bytea_array(point, n);
	run_pack(PQ_POINT, nsp, 3, types, args, SPI_OK_UPDATE);
	return after;
}

/*
 * Pack the entries statement q (PQ_BATCH or PQ_GATHER, with args) selects
 * and locks, in its order (slime_settle_pack, slime_settle_gather): each
 * checked against its key and packed (slime.settle_codec), a pack per
 * per_pack entries or SL_PACK_MAX_RAW bytes of documents, marked gathered
 * or not; each pack is decoded and compared before the rows point into it. Entries that do not
 * match their key are left as they are (bad, first_bad), as are entries
 * whose pack would not be smaller and chunks of more than SL_PACK_MAX_RAW
 * bytes. A packed entry is read out of its pack and repacked; a pack no
 * entry points into any more is then deleted, and one left less than half
 * alive has its rows set unsettled (slime_store_thin_packs). Returns the
 * record of items, bytes_before, bytes_after, bad and first_bad.
 */
static Datum
settle_rows(FunctionCallInfo fcinfo, int q, int nargs, Oid *types, Datum *args, int per_pack,
			bool gathered)
{
	Oid			ext = get_func_namespace(fcinfo->flinfo->fn_oid);
	const char *nsp = quote_identifier(get_namespace_name(ext));
	int64		before = 0,
				after = 0,
				group_before = 0;
	int			n = 0,
				nbad = 0,
				nold = 0,
				group = 0,
				rows;
	Datum	   *hash,
			   *bad,
			   *keep,
			   *old_packs;
	int			nkeep = 0;
	int64		world = -1;
	bool		world_starts = false;
	size_t	   *off;
	sl_buf		all = {0};
	SPITupleTable *tt;
	MemoryContext outer = CurrentMemoryContext;
	TupleDesc	td;
	Datum		vals[5];
	bool		nulls[5] = {false, false, false, false, true};

	if (get_call_result_type(fcinfo, NULL, &td) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "a settle batch must return a record");
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	run_pack(q, nsp, nargs, types, args, SPI_OK_SELECT);
	rows = (int) SPI_processed;
	hash = palloc(sizeof(Datum) * (rows + 1));
	bad = palloc(sizeof(Datum) * (rows + 1));
	old_packs = palloc(sizeof(Datum) * (rows + 1));
	off = palloc(sizeof(size_t) * (rows + 1));
	keep = palloc(sizeof(Datum) * (rows + 1));
	off[0] = 0;
	tt = SPI_tuptable;			/* the batch's rows, kept while packs are written */
	for (int i = 0; i < rows; i++)
	{
		bool		isnull;
		MemoryContext spi = MemoryContextSwitchTo(outer);
		bytea	   *h = DatumGetByteaPCopy(SPI_getbinval(tt->vals[i], tt->tupdesc, 1, &isnull));
		bytea	   *d;
		Datum		from;
		size_t		was = all.len;
		sl_err		err;

		MemoryContextSwitchTo(spi);
		CHECK_FOR_INTERRUPTS();
		d = DatumGetByteaPP(SPI_getbinval(tt->vals[i], tt->tupdesc, 2, &isnull));
		if (gathered)
		{
			/* a world's entries start a pack of their own once it holds GATHER_MIN */
			int64		w = DatumGetInt64(SPI_getbinval(tt->vals[i], tt->tupdesc, 4, &isnull));

			world_starts |= w != world;
			world = w;
		}
		from = SPI_getbinval(tt->vals[i], tt->tupdesc, 3, &isnull);
		if (!isnull)
		{
			/* a packed entry made unsettled again: repacked, read out of its pack */
			old_packs[nold++] = from;
			d = (bytea *) slime_pack_read(ext, DatumGetInt64(from), (struct varlena *) d, GetActiveSnapshot(),
										  NULL, true, NULL, NULL);
			/*
			 * no such pack under this statement's snapshot: the row was
			 * packed and made unsettled again since it was taken (the lock
			 * gave its newest version). It is left to the next settle, not
			 * counted as an entry that fails its key.
			 */
			if (d == NULL)
			{
				nold--;
				continue;
			}
		}
		if (d == NULL ||
			sl_store_entry_canonical((const uint8_t *) VARDATA_ANY(h), VARSIZE_ANY_EXHDR(h),
									 (const uint8_t *) VARDATA_ANY(d), VARSIZE_ANY_EXHDR(d),
									 slime_limits(), &all, &err))
		{
			all.len = was;
			bad[nbad++] = PointerGetDatum(h);
			continue;
		}
		/* a chunk larger than a pack stays in its own form */
		if (all.len - was - SL_ENTRY_HEADER > SL_PACK_MAX_RAW)
		{
			all.len = was;
			keep[nkeep++] = PointerGetDatum(h);
			continue;
		}
		/* a pack full: it goes before this entry starts the next */
		if (n > group && (n - group >= per_pack || (world_starts && n - group >= GATHER_MIN) ||
						  all.len - off[group] - SL_ENTRY_HEADER * (size_t) (n + 1 - group) > SL_PACK_MAX_RAW))
		{
			after += pack_group(nsp, gathered, &all, off + group, hash + group, n - group, group_before,
								keep, &nkeep);
			group = n;
			group_before = 0;
		}
		world_starts = false;
		before += VARSIZE_ANY_EXHDR(d);
		group_before += VARSIZE_ANY_EXHDR(d);
		hash[n++] = PointerGetDatum(h);
		off[n] = all.len;
	}
	if (n > group)
		after += pack_group(nsp, gathered, &all, off + group, hash + group, n - group, group_before,
							keep, &nkeep);
	sl_buf_free(&all);
	/* the bad entries, and those whose pack would not be smaller, are settled as they are */
	if (nbad + nkeep > 0)
	{
		Oid			t = BYTEAARRAYOID;
		Datum		a;

		memcpy(bad + nbad, keep, sizeof(Datum) * nkeep);
		a = bytea_array(bad, nbad + nkeep);

		run_pack(PQ_SETTLED, nsp, 1, &t, &a, SPI_OK_UPDATE);
	}
	if (nold > 0)
	{
		Oid			t = INT8ARRAYOID;
		Datum		a = PointerGetDatum(construct_array(old_packs, nold, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));

		run_pack(PQ_FREE, nsp, 1, &t, &a, SPI_OK_DELETE);
		run_pack(PQ_THIN, nsp, 1, &t, &a, SPI_OK_SELECT);
	}
	SPI_finish();
	vals[0] = Int64GetDatum((int64) rows);
	vals[1] = Int64GetDatum(before);
	vals[2] = Int64GetDatum(after);
	vals[3] = Int64GetDatum(nbad);
	if (nbad > 0)
	{
		vals[4] = bad[0];
		nulls[4] = false;
	}
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(td), vals, nulls)));
}

PG_FUNCTION_INFO_V1(slime_settle_pack);
/*
 * slime_settle_pack(cutoff timestamptz, batch int, OUT items, OUT
 * bytes_before, OUT bytes_after, OUT bad, OUT first_bad): one batch of
 * slime_settle(): up to batch unsettled entries stored by cutoff, oldest
 * first, packed (settle_rows). Runs inside slime_settle (the store's owner,
 * search_path pinned).
 */
Datum
slime_settle_pack(PG_FUNCTION_ARGS)
{
	Datum		args[2] = {PG_GETARG_DATUM(0), PG_GETARG_DATUM(1)};
	Oid			types[2] = {TIMESTAMPTZOID, INT4OID};

	slime_settle_check_batch(PG_GETARG_INT32(1));
	return settle_rows(fcinfo, PQ_BATCH, 2, types, args, PG_GETARG_INT32(1), false);
}

PG_FUNCTION_INFO_V1(slime_settle_gather);
/*
 * slime_settle_gather(hashes bytea[], batch int, OUT items, ...): the
 * entries hashes names (the chunks of cold worlds' newest saves, world by
 * world) that are neither in a gathered pack nor settled in a form of their
 * own, packed in that order into gathered packs of up to batch entries
 * (settle_rows), so that a cold world's
 * first load decodes its own chunks rather than every pack its saves'
 * settles left them in. An entry in a gathered pack is never gathered
 * again (a chunk two worlds share stays with the first). Runs inside
 * slime_settle.
 */
Datum
slime_settle_gather(PG_FUNCTION_ARGS)
{
	Datum		args[1] = {PG_GETARG_DATUM(0)};
	Oid			types[1] = {BYTEAARRAYOID};

	slime_settle_check_batch(PG_GETARG_INT32(1));
	return settle_rows(fcinfo, PQ_GATHER, 1, types, args, PG_GETARG_INT32(1), true);
}
