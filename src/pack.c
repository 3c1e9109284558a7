/*
 * pack.c - the chunk store's packs (issue #22): reading a packed entry out
 * of its pack (decoded once and kept for the next entries of the same pack)
 * and slime_settle()'s batch that packs unsettled entries.
 *
 * A pack is a row of slime_store_packs(id bigint primary key, data bytea)
 * in the extension's schema; a packed store row names it in its pack column
 * and holds u8 0x02 and the entry's index in data (sl_pack.h, doc/format.md
 * "Chunk store"). Packs never change once written, and ids are never used
 * twice, so decoded packs are kept by id across statements.
 */
#include "slime.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "sl_pack.h"
#include "sl_store.h"

/*
 * The packs decoded last (up to KEPT_PACKS, slime.pack_cache_size of
 * documents in all, and always the one being read), in TopMemoryContext,
 * each with the row it came from: the table, the id and the row's xmin,
 * so that a pack table made again (the extension dropped and created, ids
 * counted from 1 again) is never read through a stale copy. A world's
 * chunks lie in a few packs (those of the saves that wrote them, or its
 * gathered ones); reading them in directory order goes back and forth
 * between them, each decoded once.
 */
#define KEPT_PACKS 8
typedef struct kept_pack
{
	Oid			rel;			/* InvalidOid: the slot is free */
	int64		id;
	TransactionId xmin;
	uint64		used;			/* when last read (a counter) */
	sl_pack		p;
	uint8_t    *keys;			/* p.count x 32: the key entry i was found to hash to */
	bool	   *checked;		/* p.count: keys[i] is set */
} kept_pack;
static kept_pack kept[KEPT_PACKS];
static uint64 kept_clock = 0;

/* The kept pack of (rel, id, xmin), or NULL. */
static kept_pack *
kept_find(Oid rel, int64 id, TransactionId xmin)
{
	for (int i = 0; i < KEPT_PACKS; i++)
		if (kept[i].rel == rel && kept[i].id == id && kept[i].xmin == xmin)
		{
			kept[i].used = ++kept_clock;
			return &kept[i];
		}
	return NULL;
}

/* A free slot, after dropping the least recently read packs to make room for raw_len bytes. */
static kept_pack *
kept_slot(size_t raw_len)
{
	for (;;)
	{
		kept_pack  *lru = NULL;
		size_t		total = raw_len;
		int			used = 0;

		for (int i = 0; i < KEPT_PACKS; i++)
			if (OidIsValid(kept[i].rel))
			{
				used++;
				total += kept[i].p.raw_len;
				if (lru == NULL || kept[i].used < lru->used)
					lru = &kept[i];
			}
		if (lru == NULL || (used < KEPT_PACKS && total <= slime_pack_cache_bytes()))
			break;
		sl_pack_free(&lru->p);
		pfree(lru->keys);
		pfree(lru->checked);
		lru->rel = InvalidOid;
	}
	for (int i = 0; i < KEPT_PACKS; i++)
		if (!OidIsValid(kept[i].rel))
			return &kept[i];
	return &kept[0];			/* not reached */
}

/* The packs table of the store's schema nsp, opened with its primary key index in *idx. */
static Relation
open_packs(Oid nsp, Oid *idx)
{
	Oid			rel = get_relname_relid("slime_store_packs", nsp);
	Relation	r;

	if (!OidIsValid(rel))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("the slime chunk store's pack table is missing")));
	r = table_open(rel, AccessShareLock);
	*idx = RelationGetPrimaryKeyIndex(r);
	if (!OidIsValid(*idx))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the slime chunk store's pack table has no primary key")));
	return r;
}

/* Pack id read under snapshot from the packs table of schema nsp, decoded (kept); NULL when absent. */
static kept_pack *
keep_pack(Oid nsp, int64 id, Snapshot snapshot)
{
	Oid			idx;
	Relation	rel = open_packs(nsp, &idx);
	SysScanDesc scan;
	ScanKeyData key;
	HeapTuple	tup;
	kept_pack  *r = NULL;

	ScanKeyInit(&key, 1, BTEqualStrategyNumber, F_INT8EQ, Int64GetDatum(id));
	scan = systable_beginscan(rel, idx, true, snapshot, 1, &key);
	tup = systable_getnext(scan);
	if (HeapTupleIsValid(tup))
	{
		bool		isnull;
		Datum		data = heap_getattr(tup, 2, RelationGetDescr(rel), &isnull);
		TransactionId xmin = HeapTupleHeaderGetXmin(tup->t_data);

		r = isnull ? NULL : kept_find(RelationGetRelid(rel), id, xmin);
		if (!isnull && r == NULL)
		{
			bytea	   *b = DatumGetByteaPP(data);
			MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);
			sl_pack		p;
			kept_pack  *k;
			sl_err		err;
			int			rc;

			rc = sl_pack_open((const uint8_t *) VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b),
							  slime_limits(), &p, &err);
			MemoryContextSwitchTo(old);
			if (rc)
			{
				sl_err_prefix(&err, "chunk store pack %lld", (long long) id);
				slime_raise(&err, false);
			}
			k = kept_slot(p.raw_len);
			k->p = p;
			k->keys = MemoryContextAlloc(TopMemoryContext, (Size) p.count * 32 + 1);
			k->checked = MemoryContextAllocZero(TopMemoryContext, (Size) p.count + 1);
			k->rel = RelationGetRelid(rel);
			k->id = id;
			k->xmin = xmin;
			k->used = ++kept_clock;
			r = k;
		}
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return r;
}

/*
 * The packed entry data (u8 0x02, u32le index) of pack id as an entry of
 * the raw form (u8 0x00, the canonical bytes), read from the packs table of
 * schema nsp under snapshot; NULL when the pack is not there.
 */
struct varlena *
slime_pack_read(Oid nsp, int64 id, const struct varlena *data, Snapshot snapshot,
				const uint8_t key[32], bool rehash, int *checked)
{
	sl_buf		out = {0};
	sl_err		err;
	uint8_t		form[5] = {0, 0, 0, 0, SL_ENTRY_RAW};
	kept_pack  *k;
	uint32_t	i;

	if (VARSIZE_ANY_EXHDR(data) != SL_PACKED_SIZE || ((const uint8_t *) VARDATA_ANY(data))[0] != SL_ENTRY_PACKED)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("packed chunk store entry of pack %lld is malformed", (long long) id)));
	k = keep_pack(nsp, id, snapshot);
	if (k == NULL)
		return NULL;
	i = sl_get_u32le((const uint8_t *) VARDATA_ANY(data) + 1);
	/* a varlena header, the form byte, then the entry */
	if (sl_buf_put(&out, form, sizeof(form), &err) ||
		sl_pack_entry(&k->p, i, &out, &err))
		slime_raise(&err, false);
	if (checked && !rehash)
		*checked = 1;			/* the pack's frame passed its checksum when it was decoded */
	else if (checked)
	{
		/*
		 * The kept pack's bytes never change: once entry i hashed to a key,
		 * a read of it under that key need not hash it again (a row naming
		 * it under another key is checked on its own).
		 */
		uint8_t    *known = k->keys + (size_t) 32 * i;

		*checked = k->checked[i] && memcmp(known, key, 32) == 0;
		if (!*checked &&
			sl_store_raw_matches((const uint8_t *) out.data + VARHDRSZ, out.len - VARHDRSZ, key))
		{
			memcpy(known, key, 32);
			k->checked[i] = true;
			*checked = 1;
		}
	}
	SET_VARSIZE(out.data, out.len);
	return (struct varlena *) out.data;
}

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
 * Pack the canonical bytes of n entries (all[off[i]..off[i+1])) into out,
 * and check that the pack gives every one of them back.
 */
static void
encode_checked(const sl_buf *all, const size_t *off, int n, sl_buf *out)
{
	const uint8_t **e = palloc(sizeof(uint8_t *) * n);
	size_t	   *size = palloc(sizeof(size_t) * n);
	sl_pack		p;
	sl_buf		back = {0};
	sl_err		err;

	for (int i = 0; i < n; i++)
	{
		e[i] = all->data + off[i];
		size[i] = off[i + 1] - off[i];
	}
	if (sl_pack_encode(e, size, n, slime_settle_dense() ? SL_PACK_DENSE : SL_PACK_FAST, out, &err) ||
		sl_pack_open(out->data, out->len, slime_limits(), &p, &err))
		slime_raise(&err, false);
	for (int i = 0; i < n; i++)
	{
		back.len = 0;
		if (sl_pack_entry(&p, i, &back, &err))
			slime_raise(&err, false);
		if (back.len != size[i] || memcmp(back.data, e[i], size[i]) != 0)
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

	encode_checked(all, off, n, &pack);
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
										  NULL, true, NULL);
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

	if (PG_GETARG_INT32(1) < 1)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("batch size must be positive, not %d", PG_GETARG_INT32(1))));
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

	if (PG_GETARG_INT32(1) < 1)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("batch size must be positive, not %d", PG_GETARG_INT32(1))));
	return settle_rows(fcinfo, PQ_GATHER, 1, types, args, PG_GETARG_INT32(1), true);
}
