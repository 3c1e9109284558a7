/*
 * pack.c - the chunk store's packs (issue #22): reading a packed entry out
 * of its pack (decoded once and kept for the next entries of the same pack).
 * slime_settle()'s batches that write packs are packset.c's.
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
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "sl_pack.h"
#include "sl_store.h"

/*
 * The packs decoded last (up to KEPT_PACKS, slime.pack_cache_size of
 * documents in all less what the kept counts take (packcount.c), and
 * always the one being read), in TopMemoryContext,
 * each with the row it came from: the table, the id and the row's xmin,
 * so that a pack table made again (the extension dropped and created, ids
 * counted from 1 again) is never read through a stale copy. A world's
 * chunks lie in a few packs (those of the saves that wrote them, or its
 * gathered ones); reading them in directory order goes back and forth
 * between them, each decoded once.
 */
#define KEPT_PACKS 64
struct slime_kept_pack
{
	Oid			rel;			/* InvalidOid: the slot is free */
	int64		id;
	TransactionId xmin;
	uint64		used;			/* when last read (a counter) */
	sl_pack		p;
	uint8_t    *keys;			/* p.count x 32: the key entry i was found to hash to */
	bool	   *checked;		/* p.count: keys[i] is set */
};
typedef struct slime_kept_pack kept_pack;
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
		if (lru == NULL || (used < KEPT_PACKS &&
							total + slime_kept_counts_bytes() <= slime_pack_cache_bytes()))
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

/* The kept pack at loc, decoded from data (its row's bytea) unless kept already. */
static kept_pack *
keep_pack(const slime_pack_loc *loc, Datum data)
{
	kept_pack  *r = kept_find(loc->rel, loc->id, loc->xmin);
	bytea	   *b;
	MemoryContext old;
	sl_pack		p;
	sl_err		err;
	int			rc;

	if (r)
		return r;
	b = DatumGetByteaPP(data);
	old = MemoryContextSwitchTo(TopMemoryContext);
	rc = sl_pack_open((const uint8_t *) VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b),
					  slime_limits(), &p, &err);
	MemoryContextSwitchTo(old);
	if (rc)
	{
		sl_err_prefix(&err, "chunk store pack %lld", (long long) loc->id);
		slime_raise(&err, false);
	}
	r = kept_slot(p.raw_len);
	r->p = p;
	r->keys = MemoryContextAlloc(TopMemoryContext, (Size) p.count * 32 + 1);
	r->checked = MemoryContextAllocZero(TopMemoryContext, (Size) p.count + 1);
	r->rel = loc->rel;
	r->id = loc->id;
	r->xmin = loc->xmin;
	r->used = ++kept_clock;
	return r;
}

/*
 * Pack id's row under snapshot in the packs table of schema nsp: its place
 * in *loc, and with k, the pack decoded (kept) in *k. False when absent.
 */
static bool
find_pack(Oid nsp, int64 id, Snapshot snapshot, slime_pack_loc *loc, kept_pack **k)
{
	Oid			idx;
	Relation	rel = open_packs(nsp, &idx);
	SysScanDesc scan;
	ScanKeyData key;
	HeapTuple	tup;
	bool		found = false;

	ScanKeyInit(&key, 1, BTEqualStrategyNumber, F_INT8EQ, Int64GetDatum(id));
	scan = systable_beginscan(rel, idx, true, snapshot, 1, &key);
	tup = systable_getnext(scan);
	if (HeapTupleIsValid(tup))
	{
		bool		isnull;
		Datum		data = heap_getattr(tup, 2, RelationGetDescr(rel), &isnull);

		found = !isnull;
		loc->rel = RelationGetRelid(rel);
		loc->id = id;
		loc->xmin = HeapTupleHeaderGetXmin(tup->t_data);
		if (found && k)
			*k = keep_pack(loc, data);
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return found;
}

/* The index a packed entry's data (u8 0x02, u32le index) of pack id names. */
static uint32_t
packed_index(int64 id, const struct varlena *data)
{
	if (VARSIZE_ANY_EXHDR(data) != SL_PACKED_SIZE || ((const uint8_t *) VARDATA_ANY(data))[0] != SL_ENTRY_PACKED)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("packed chunk store entry of pack %lld is malformed", (long long) id)));
	return sl_get_u32le((const uint8_t *) VARDATA_ANY(data) + 1);
}

/* Where packed entry data of pack id lies, its pack row read under snapshot but not decoded. */
bool
slime_pack_locate(Oid nsp, int64 id, const struct varlena *data, Snapshot snapshot,
				  slime_pack_loc *loc)
{
	uint32_t	i = packed_index(id, data);

	if (!find_pack(nsp, id, snapshot, loc, NULL))
		return false;
	loc->index = i;
	return true;
}

/*
 * Whether entry i of kept pack k was found to hash to key. The kept pack's
 * bytes never change: once entry i hashed to a key, a read of it under that
 * key need not hash it again (a row naming it under another key is checked
 * on its own).
 */
static bool
known_as(const kept_pack *k, uint32 i, const uint8_t key[32])
{
	return k->checked[i] && memcmp(k->keys + (size_t) 32 * i, key, 32) == 0;
}

/* Remember that entry i of kept pack k hashes to key; true. */
static bool
remember_as(kept_pack *k, uint32 i, const uint8_t key[32])
{
	memcpy(k->keys + (size_t) 32 * i, key, 32);
	k->checked[i] = true;
	return true;
}

/*
 * The packed entry data (u8 0x02, u32le index) of pack id as an entry of
 * the raw form (u8 0x00, the canonical bytes), read from the packs table of
 * schema nsp under snapshot; NULL when the pack is not there. The entry is
 * taken out as sl_pack_read takes it: one the pack does not vouch for
 * (version 1), or any with rehash, is hashed against key once per kept
 * pack. *checked is set (as sl_resolve_fn's) when it passed; an entry whose
 * pack names another key, or whose bytes do not hash to key, is handed back
 * with *checked 0, for the reader to hash and refuse as any entry that does
 * not match its key (without checked, it is an error here). key NULL: the
 * caller hashes the entry itself (settle), and nothing is checked here.
 */
struct varlena *
slime_pack_read(Oid nsp, int64 id, const struct varlena *data, Snapshot snapshot,
				const uint8_t key[32], bool rehash, int *checked, slime_pack_loc *loc)
{
	sl_buf		out = {0};
	sl_err		err;
	uint8_t		head[VARHDRSZ] = {0};
	kept_pack  *k = NULL;
	slime_pack_loc here;
	uint32_t	i = packed_index(id, data);
	int			rc;

	if (!find_pack(nsp, id, snapshot, &here, &k))
		return NULL;
	here.index = i;
	if (loc)
		*loc = here;
	/* a varlena header, then the raw form */
	if (sl_buf_put(&out, head, sizeof(head), &err))
		slime_raise(&err, false);
	rc = key ? sl_pack_read(&k->p, i, key, rehash, known_as(k, i, key), &out, &err) : -1;
	if (rc < 0 && (key == NULL || (checked && err.code == SL_ERR_CORRUPT)))
	{
		/*
		 * the entry as it lies, unchecked: the caller hashes it (settle), or
		 * (*checked 0) the reader does, and fails as for any entry that does
		 * not match its key
		 */
		if (sl_buf_put_u8(&out, SL_ENTRY_RAW, &err) == 0 && sl_pack_entry(&k->p, i, &out, &err) == 0)
			rc = 2;
	}
	if (rc < 0)
	{
		sl_err_prefix(&err, "chunk store pack %lld", (long long) id);
		slime_raise(&err, false);
	}
	if (rc == 1)
		remember_as(k, i, key);
	if (checked)
		*checked = rc < 2;
	SET_VARSIZE(out.data, out.len);
	return (struct varlena *) out.data;
}

/* Pack id read under snapshot from the packs table of schema nsp, kept; NULL when absent (valid until the next pack read). */
slime_kept_pack *
slime_pack_find(Oid nsp, int64 id, Snapshot snapshot)
{
	slime_pack_loc loc;
	kept_pack  *k = NULL;

	return find_pack(nsp, id, snapshot, &loc, &k) ? k : NULL;
}

/*
 * Point comp[] into a kept pack (slime_pack_find) at entry i as the
 * documents of reference chunk d: false when the pack has no entry i, when
 * its lengths are not d's, when its directory names another key, or
 * (rehash, and always in a version 1 pack) when its bytes do not hash to
 * d's key, checked as slime_pack_read checks them.
 */
bool
slime_pack_docs(slime_kept_pack *k, uint32 i, const sl_dirent *d, bool rehash,
				const uint8_t *comp[SL_NCOMP])
{
	const uint8_t *docs;
	uint8_t		h[32];
	int			is = sl_pack_entry_is(&k->p, i, d->hash);
	sl_err		err;

	if (i >= k->p.count || is == 0)
		return false;
	for (int c = 0; c < SL_NCOMP; c++)
		if (k->p.len[SL_NCOMP * i + c] != d->len[c])
			return false;
	/* an entry coded against another is decoded on its first read */
	docs = sl_pack_docs(&k->p, i, &err);
	if (docs == NULL)
	{
		if (err.code == SL_ERR_NOMEM)
			slime_raise(&err, false);
		return false;
	}
	for (int c = 0; c < SL_NCOMP; c++)
	{
		comp[c] = d->len[c] ? docs : NULL;
		docs += d->len[c];
	}
	if ((!rehash && is == 1) || known_as(k, i, d->hash))
		return true;
	sl_chunk_hash(d, comp, h);
	return memcmp(h, d->hash, 32) == 0 && remember_as(k, i, d->hash);
}
