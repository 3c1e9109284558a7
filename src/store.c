/*
 * store.c - the content-addressed chunk store: reading entries for values
 * whose chunks are references, slime_store() and its trigger, and the small
 * functions slime_gc() and slime_store_verify() (SQL) are built from.
 *
 * The store is the table slime_store(hash bytea primary key, data bytea) in
 * the extension's schema. Reads go straight through its primary key index
 * and need no privilege on the table: a chunk's hash is the capability to
 * read it (doc/format.md, "Chunk store"). Writes run as the extension's
 * owner inside slime_store() (SECURITY DEFINER).
 */
#include "slime.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/tableam.h"
#include "access/table.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "catalog/indexing.h"
#include "executor/tuptable.h"
#include "catalog/namespace.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "catalog/pg_trigger.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "access/xact.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/resowner.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "sl_build.h"
#include "sl_store.h"

/* A chunk's hash and its index in the value's directory. */
typedef struct slime_hashed
{
	uint8_t		hash[32];
	uint32_t	index;
} slime_hashed;

/* The store table, its primary key index and its pack column (0: none), as last looked up. */
static Oid	store_rel = InvalidOid;
static Oid	store_idx = InvalidOid;
static AttrNumber store_pack_att = 0;

/* Schema of the installed extension, or InvalidOid. */
static Oid
extension_schema(void)
{
	Oid			ext = get_extension_oid("slime", true);
	Relation	rel;
	SysScanDesc scan;
	ScanKeyData key;
	HeapTuple	tup;
	Oid			nsp = InvalidOid;

	if (!OidIsValid(ext))
		return InvalidOid;
	rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyInit(&key, Anum_pg_extension_oid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(ext));
	scan = systable_beginscan(rel, ExtensionOidIndexId, true, NULL, 1, &key);
	tup = systable_getnext(scan);
	if (HeapTupleIsValid(tup))
		nsp = ((Form_pg_extension) GETSTRUCT(tup))->extnamespace;
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return nsp;
}

/* Open the store table (looked up again when the cached one is gone). */
static Relation
open_store(void)
{
	Relation	rel = OidIsValid(store_rel) ? try_table_open(store_rel, AccessShareLock) : NULL;
	Oid			nsp;

	if (rel && strcmp(RelationGetRelationName(rel), "slime_store") == 0 &&
		OidIsValid(store_idx))
		return rel;
	if (rel)
		table_close(rel, AccessShareLock);
	nsp = extension_schema();
	store_rel = OidIsValid(nsp) ? get_relname_relid("slime_store", nsp) : InvalidOid;
	if (!OidIsValid(store_rel))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("the slime chunk store table is missing"),
				 errhint("The value holds chunks stored by reference; install the slime extension in this database.")));
	rel = table_open(store_rel, AccessShareLock);
	store_idx = RelationGetPrimaryKeyIndex(rel);
	store_pack_att = 0;
	for (int i = 0; i < RelationGetDescr(rel)->natts; i++)
		if (!TupleDescAttr(RelationGetDescr(rel), i)->attisdropped &&
			strcmp(NameStr(TupleDescAttr(RelationGetDescr(rel), i)->attname), "pack") == 0)
			store_pack_att = i + 1;
	if (!OidIsValid(store_idx))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the slime chunk store table has no primary key")));
	return rel;
}

/*
 * Look the entry keyed by hash up under snapshot; with copy, return a
 * detoasted copy of its data (NULL when absent; a packed entry read out of
 * its pack, under the same snapshot, in the raw form), *checked set when
 * the reader need not hash it against the key (sl_resolve_fn; checked may
 * be NULL; never without rehash false for an entry whose form has no
 * checksum), else just whether it is there ((void *) 1 or NULL). A packed
 * entry's place is put in *loc (may be NULL; without copy, a packed entry
 * whose pack is absent is reported absent).
 */
static struct varlena *
lookup_entry(Relation rel, const uint8_t *hash, Snapshot snapshot, bool copy, bool rehash,
			 int *checked, slime_pack_loc *loc)
{
	SysScanDesc scan;
	ScanKeyData key;
	HeapTuple	tup;
	bytea	   *key_datum = (bytea *) slime_from_bytes(hash, 32);
	struct varlena *r = NULL;

	ScanKeyInit(&key, 1, BTEqualStrategyNumber, F_BYTEAEQ, PointerGetDatum(key_datum));
	scan = systable_beginscan(rel, store_idx, true, snapshot, 1, &key);
	tup = systable_getnext(scan);
	if (HeapTupleIsValid(tup))
	{
		bool		isnull;
		bool		packed = false;
		Datum		data = heap_getattr(tup, 2, RelationGetDescr(rel), &isnull);

		if (!isnull)
			r = copy ? pg_detoast_datum_copy((struct varlena *) DatumGetPointer(data)) :
				(struct varlena *) 1;
		if (copy && r && store_pack_att > 0)
		{
			Datum		pack = heap_getattr(tup, store_pack_att, RelationGetDescr(rel), &isnull);

			/* a packed entry: slime_pack_read sets *checked */
			packed = !isnull;
			if (packed)
				r = slime_pack_read(RelationGetNamespace(rel), DatumGetInt64(pack), r, snapshot,
									hash, rehash, checked, loc);
		}
		else if (!copy && loc && !isnull && store_pack_att > 0)
		{
			Datum		pack = heap_getattr(tup, store_pack_att, RelationGetDescr(rel), &isnull);

			/* where a packed entry lies, its pack row looked up but not decoded */
			if (!isnull)
			{
				struct varlena *d = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(data));

				if (!slime_pack_locate(RelationGetNamespace(rel), DatumGetInt64(pack), d, snapshot, loc))
					r = NULL;
			}
		}
		/* an entry in a checksummed form of its own was checked against its key when stored */
		if (!packed && copy && r && checked && !rehash && VARSIZE_ANY_EXHDR(r) > 0 &&
			((const uint8_t *) VARDATA_ANY(r))[0] != SL_ENTRY_RAW)
			*checked = 1;
	}
	systable_endscan(scan);
	pfree(key_datum);
	return r;
}

/* Where a store row (in slot) points when packed: its pack and entry index; false when it is not packed. */
static bool
packed_row(TupleTableSlot *slot, int64 *pack, uint32 *index)
{
	bool		isnull = true,
				nodata = true;
	Datum		p = store_pack_att > 0 ? slot_getattr(slot, store_pack_att, &isnull) : (Datum) 0;
	Datum		data = slot_getattr(slot, 2, &nodata);
	bytea	   *d;

	if (store_pack_att == 0 || isnull || nodata)
		return false;
	/* a packed row's data: u8 0x02, u32le index (slime_pack_read says what else is wrong) */
	d = DatumGetByteaPP(data);
	if (VARSIZE_ANY_EXHDR(d) != SL_PACKED_SIZE || ((const uint8_t *) VARDATA_ANY(d))[0] != SL_ENTRY_PACKED)
		return false;
	*pack = DatumGetInt64(p);
	*index = sl_get_u32le((const uint8_t *) VARDATA_ANY(d) + 1);
	return true;
}

/*
 * Where the store entries keyed by n hashes (stride bytes apart) lie when
 * packed, as snapshot sees their rows, in one scan of the store's key:
 * pack[i] -1 when entry i is absent or not packed; *nsp the store's schema.
 */
void
slime_store_packed_many(const uint8_t *hashes, size_t stride, int n, Snapshot snapshot, Oid *nsp,
						int64 *pack, uint32 *index)
{
	Relation	rel = open_store();
	Relation	idx = index_open(store_idx, AccessShareLock);
	IndexScanDesc scan = index_beginscan(rel, idx, snapshot, 1, 0);
	TupleTableSlot *slot = table_slot_create(rel, NULL);
	bytea	   *key_datum = (bytea *) palloc(VARHDRSZ + 32);
	ScanKeyData key;

	SET_VARSIZE(key_datum, VARHDRSZ + 32);
	for (int i = 0; i < n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		memcpy(VARDATA(key_datum), hashes + stride * i, 32);
		ScanKeyInit(&key, 1, BTEqualStrategyNumber, F_BYTEAEQ, PointerGetDatum(key_datum));
		index_rescan(scan, &key, 1, NULL, 0);
		if (!index_getnext_slot(scan, ForwardScanDirection, slot) || !packed_row(slot, &pack[i], &index[i]))
			pack[i] = -1;
	}
	*nsp = RelationGetNamespace(rel);
	ExecDropSingleTupleTableSlot(slot);
	index_endscan(scan);
	index_close(idx, AccessShareLock);
	table_close(rel, AccessShareLock);
	pfree(key_datum);
}

/* Where the store entry keyed by hash lies when packed, as snapshot sees its row. */
bool
slime_store_packed_at(const uint8_t hash[32], Snapshot snapshot, Oid *nsp, int64 *pack,
					  uint32 *index)
{
	slime_store_packed_many(hash, 32, 1, snapshot, nsp, pack, index);
	return *pack >= 0;
}

/*
 * Read the store entry of reference chunk d (sl_resolve_fn). It looks under
 * the query's snapshot first: a row that snapshot sees keeps the entries it
 * refers to visible there, even after a later slime_gc() deleted them (the
 * snapshot holds VACUUM back). Then under SnapshotSelf, which also sees
 * entries this transaction stored after the query began. Entries never
 * change once written, so either answer is the same bytes (and they are
 * checked against the hash anyway).
 */
int
slime_store_resolve(void *ctx, const sl_dirent *d, const uint8_t **entry, size_t *len,
					int *checked, sl_err *err)
{
	slime_open_value *o = ctx;
	Relation	rel = open_store();
	char		hex[65];

	if (o->entry)
		pfree(o->entry);
	o->entry = NULL;
	o->loc.rel = InvalidOid;
	if (ActiveSnapshotSet())
		o->entry = lookup_entry(rel, d->hash, GetActiveSnapshot(), true, o->hash_entries, checked,
								&o->loc);
	if (o->entry == NULL)
		o->entry = lookup_entry(rel, d->hash, SnapshotSelf, true, o->hash_entries, checked,
								&o->loc);
	table_close(rel, AccessShareLock);
	if (o->entry == NULL)
	{
		sl_hash_hex(d->hash, hex);
		return sl_fail(err, SL_ERR_CORRUPT, SL_STORE_MISSING_FMT, hex);
	}
	*entry = (const uint8_t *) VARDATA_ANY(o->entry);
	*len = VARSIZE_ANY_EXHDR(o->entry);
	return 0;
}

/*
 * Where the entry of reference chunk d lies when it is packed: looked up as
 * slime_store_resolve looks (the query's snapshot, then SnapshotSelf), its
 * pack row read but not decoded. False for an entry not packed or not there.
 */
bool
slime_store_locate(const sl_dirent *d, slime_pack_loc *loc)
{
	Relation	rel = open_store();
	bool		found = false;

	loc->rel = InvalidOid;
	if (ActiveSnapshotSet())
		found = lookup_entry(rel, d->hash, GetActiveSnapshot(), false, false, NULL, loc) != NULL;
	if (!found)
	{
		loc->rel = InvalidOid;
		found = lookup_entry(rel, d->hash, SnapshotSelf, false, false, NULL, loc) != NULL;
	}
	table_close(rel, AccessShareLock);
	return found && OidIsValid(loc->rel);
}

/*
 * Before a reference-form value is saved: with the store locked against
 * slime_gc() (ROW EXCLUSIVE, held to commit, as slime_store() takes it), a
 * chunk that is gone now but was there when the statement began was
 * collected while the statement ran (its source row deleted and collected
 * concurrently): a serialization failure, to retry, rather than the
 * data_corrupted error slime_store() gives a reference nothing ever held.
 */
static void
check_refs_before_save(Datum value)
{
	slime_open_value o;
	Relation	rel;
	sl_err		err;

	slime_open(&o, value, false);
	if (o.v.hdr.ref_count == 0 || !ActiveSnapshotSet() || slime_loader_checked(o.v.hdr.hash))
		return;
	rel = open_store();
	LockRelationOid(RelationGetRelid(rel), RowExclusiveLock);
	for (uint32_t i = 0; i < o.v.hdr.chunk_count; i++)
	{
		sl_dirent	d;
		char		hex[65];

		CHECK_FOR_INTERRUPTS();
		if (sl_value_dirent(&o.v, i, &d, &err))
			slime_raise(&err, false);
		if (!d.ref || lookup_entry(rel, d.hash, SnapshotSelf, false, true, NULL, NULL) ||
			!lookup_entry(rel, d.hash, GetActiveSnapshot(), false, true, NULL, NULL))
			continue;
		sl_hash_hex(d.hash, hex);
		ereport(ERROR,
				(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
				 errmsg("chunk (%d,%d): chunk %s was collected by slime_gc() while this statement ran",
						d.x, d.z, hex),
				 errhint("Retry the transaction.")));
	}
	table_close(rel, AccessShareLock);
	sl_value_close(&o.v);
}

/* A bytea[] of 32-byte hashes. */
static ArrayType *
hashes_to_array(const slime_hashed *h, int n)
{
	Datum	   *elems = palloc(sizeof(Datum) * (n ? n : 1));

	for (int i = 0; i < n; i++)
		elems[i] = PointerGetDatum(slime_from_bytes(h[i].hash, 32));
	return construct_array(elems, n, BYTEAOID, -1, false, TYPALIGN_INT);
}

/* Order by hash. */
static int
cmp_hash(const void *a, const void *b)
{
	return memcmp(((const slime_hashed *) a)->hash, ((const slime_hashed *) b)->hash, 32);
}

/* Sort by hash and drop repeats (keeping the first chunk of each); returns the new count. */
static int
sort_unique(slime_hashed *h, int n)
{
	int			keep = 0;

	qsort(h, n, sizeof(slime_hashed), cmp_hash);
	for (int i = 0; i < n; i++)
		if (keep == 0 || memcmp(h[keep - 1].hash, h[i].hash, 32) != 0)
			h[keep++] = h[i];
	return keep;
}

/*
 * Distinct hashes of a value's chunks, sorted: the references (refs) or the
 * chunks held in frames (!refs; a v1 value is decompressed for them).
 */
static int
collect_hashes(slime_open_value *o, bool refs, slime_hashed **out)
{
	uint32_t	n = o->v.hdr.chunk_count;
	slime_hashed *h = palloc(sizeof(slime_hashed) * (n ? n : 1));
	int			count = 0;
	sl_err		err;

	for (uint32_t i = 0; i < n; i++)
	{
		sl_dirent	d;

		CHECK_FOR_INTERRUPTS();
		if (sl_value_dirent(&o->v, i, &d, &err))
			slime_raise(&err, false);
		if ((bool) d.ref != refs)
			continue;
		if (sl_value_chunk_hash(&o->v, i, h[count].hash, &err))
			slime_raise(&err, false);
		h[count++].index = i;
	}
	*out = h;
	return sort_unique(h, count);
}

/* Values slime_refs() has read in this backend (slime_gc() reports how many it read). */
static int64 refs_values_read = 0;

PG_FUNCTION_INFO_V1(slime_refs);
/* Distinct hashes of the chunks a value holds by reference (header and directory only). */
Datum
slime_refs(PG_FUNCTION_ARGS)
{
	slime_open_value o;
	slime_hashed *h = NULL;
	int			n;

	refs_values_read++;
	slime_open(&o, PG_GETARG_DATUM(0), false);
	n = (o.v.hdr.flags & SL_FLAG_REFS) ? collect_hashes(&o, true, &h) : 0;
	PG_RETURN_ARRAYTYPE_P(hashes_to_array(h, n));
}

PG_FUNCTION_INFO_V1(slime_gc_values_read);
/* How many values slime_refs() has read in this backend (slime_gc() reports its own share). */
Datum
slime_gc_values_read(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64(refs_values_read);
}

/*
 * The distinct hashes a value holds by reference, sorted, 32 bytes each
 * (*out palloc'd); the count. Header and directory only, as slime_refs.
 */
int
slime_value_ref_hashes(Datum value, uint8_t **out)
{
	slime_open_value o;
	slime_hashed *h = NULL;
	int			n;

	slime_open(&o, value, false);
	n = (o.v.hdr.flags & SL_FLAG_REFS) ? collect_hashes(&o, true, &h) : 0;
	*out = palloc(32 * (n ? n : 1));
	for (int i = 0; i < n; i++)
		memcpy(*out + 32 * i, h[i].hash, 32);
	sl_value_close(&o.v);
	return n;
}

/* A value rebuilt with every chunk added as mode says. */
static struct varlena *
rebuild(Datum d, sl_add_mode mode)
{
	slime_open_value o;
	sl_builder	b;
	sl_err		err;

	memset(&b, 0, sizeof(b));
	slime_open(&o, d, true);
	if (sl_builder_add_value(&b, &o.v, mode, &err))
		slime_raise(&err, false);
	sl_value_close(&o.v);
	return slime_from_builder(&b);
}

/* The queries slime_store() runs on the store (SQ_PIN: on the pins table). */
typedef enum store_query
{
	SQ_PRESENT_LOCKED,			/* which of $1 the store holds, locking them FOR KEY SHARE */
	SQ_INSERT,					/* store entries ($1 hashes, $2 data) */
	SQ_PIN,						/* pin $1 while slime_gc() runs */
	SQ_COUNT
} store_query;

static const char *const store_sql[SQ_COUNT] = {
	"SELECT s.hash FROM unnest($1) h(hash) JOIN %s s ON s.hash = h.hash FOR KEY SHARE OF s",
	"INSERT INTO %s (hash, data) SELECT * FROM unnest($1, $2) ON CONFLICT (hash) DO NOTHING",
	"INSERT INTO %s (hash) SELECT unnest($1)"
};

/*
 * Prepared plans of store_sql, kept for the store table they were made for.
 * The lookups join unnest($1) to the store rather than test hash = ANY ($1):
 * a generic plan of that could scan the whole store.
 */
static SPIPlanPtr store_plans[SQ_COUNT];
static Oid	store_plans_rel = InvalidOid;

/* Run store query q with hashes ($1) and maybe data ($2), from a kept plan. */
static void
run_store_query(store_query q, Relation store, ArrayType *hashes, ArrayType *data, int expect)
{
	Datum		args[2] = {PointerGetDatum(hashes), PointerGetDatum(data)};
	int			rc;

	if (store_plans_rel != RelationGetRelid(store))
	{
		for (int i = 0; i < SQ_COUNT; i++)
			if (store_plans[i])
				SPI_freeplan(store_plans[i]);
		memset(store_plans, 0, sizeof(store_plans));
		store_plans_rel = RelationGetRelid(store);
	}
	if (store_plans[q] == NULL)
	{
		const char *nsp = get_namespace_name(RelationGetNamespace(store));
		char	   *sql = psprintf(store_sql[q],
								   quote_qualified_identifier(nsp, q == SQ_PIN ? "slime_store_pins" :
															  RelationGetRelationName(store)));
		Oid			types[2] = {BYTEAARRAYOID, BYTEAARRAYOID};
		SPIPlanPtr	plan = SPI_prepare(sql, q == SQ_INSERT ? 2 : 1, types);

		if (plan == NULL || SPI_keepplan(plan))
			elog(ERROR, "SPI_prepare failed for \"%s\": %s", sql, SPI_result_code_string(SPI_result));
		store_plans[q] = plan;
	}
	rc = SPI_execute_plan(store_plans[q], args, NULL, false, 0);
	if (rc != expect)
		elog(ERROR, "store query failed (SPI %d): %s", rc, store_sql[q]);
}

/*
 * The GC's lock: an advisory tag of kind 3 ('slim', 'e_gc'). SQL's advisory
 * lock functions only make kinds 1 and 2, so no role can take or hold it
 * (0.4.0 used kind 2, which any role could take and so stall the GC or
 * make every save pin).
 */
static void
gc_locktag(LOCKTAG *tag)
{
	SET_LOCKTAG_ADVISORY(*tag, MyDatabaseId, 1936484717, 1700751203, 3);
}

/*
 * Whether a slime_gc() is running: it holds the GC's lock exclusively for
 * its whole transaction. When it is not, this takes the lock in share mode
 * to the end of the transaction, so no collection can start its scan before
 * this save commits.
 */
static bool
gc_running(void)
{
	LOCKTAG		tag;

	gc_locktag(&tag);
	return LockAcquire(&tag, ShareLock, false, true) == LOCKACQUIRE_NOT_AVAIL;
}

PG_FUNCTION_INFO_V1(slime_gc_lock);
/*
 * Take the GC's lock exclusively to the end of the transaction, waiting
 * for the saves that hold it in share mode (lock_timeout applies).
 */
Datum
slime_gc_lock(PG_FUNCTION_ARGS)
{
	LOCKTAG		tag;

	gc_locktag(&tag);
	(void) LockAcquire(&tag, ExclusiveLock, false, false);
	PG_RETURN_VOID();
}

PG_FUNCTION_INFO_V1(slime_gc_lock_shared);
/*
 * Take the GC's lock in share mode to the end of the transaction, waiting
 * for a running collection (slime_settle: it and slime_gc() wait for each
 * other, saves go on).
 */
Datum
slime_gc_lock_shared(PG_FUNCTION_ARGS)
{
	LOCKTAG		tag;

	gc_locktag(&tag);
	(void) LockAcquire(&tag, ShareLock, false, false);
	PG_RETURN_VOID();
}

/* The hashes (sorted) an SPI result's first column holds. */
static int
result_hashes(slime_hashed **out)
{
	slime_hashed *h = palloc(sizeof(slime_hashed) * (SPI_processed ? SPI_processed : 1));
	int			n = 0;

	for (uint64 i = 0; i < SPI_processed; i++)
	{
		bool		isnull;
		bytea	   *b = DatumGetByteaPP(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc,
												  1, &isnull));

		if (!isnull && VARSIZE_ANY_EXHDR(b) == 32)
			memcpy(h[n++].hash, VARDATA_ANY(b), 32);
	}
	*out = h;
	return sort_unique(h, n);
}

/* Whether hash is in the sorted set h[0..n). */
static bool
hash_in(const uint8_t *hash, const slime_hashed *h, int n)
{
	slime_hashed key;

	memcpy(key.hash, hash, 32);
	return n > 0 && bsearch(&key, h, n, sizeof(slime_hashed), cmp_hash) != NULL;
}

/*
 * Refuse a value that refers to a chunk the store lacks (present: the
 * sorted hashes found), naming the first such chunk.
 */
static void
check_present(slime_open_value *o, const slime_hashed *present, int npresent)
{
	sl_err		err;

	for (uint32_t i = 0; i < o->v.hdr.chunk_count; i++)
	{
		sl_dirent	d;
		char		hex[65];

		if (sl_value_dirent(&o->v, i, &d, &err))
			slime_raise(&err, false);
		if (!d.ref || hash_in(d.hash, present, npresent))
			continue;
		sl_hash_hex(d.hash, hex);
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("chunk (%d,%d): chunk %s is missing from the chunk store", d.x, d.z, hex),
				 errhint("Values that refer to the store are kept safe only in the columns slime_gc() scans.")));
	}
}

/*
 * The store's owner, as the SECURITY DEFINER slime_store() acts, for the
 * store queries a loader save runs from the caller's function.
 */
static void
owner_enter(Relation store, slime_role_ctx *c)
{
	slime_become(store->rd_rel->relowner, SECURITY_LOCAL_USERID_CHANGE, c);
}

/*
 * Which of the n hashes (want, sorted) the store holds, sorted into *out;
 * how many. With SPI connected. Under READ COMMITTED, one probe of the key
 * each (committed entries and this transaction's, SnapshotSelf), whatever
 * the store's size: a kept plan of a join could scan a store that was
 * small when it was planned. Under REPEATABLE READ or SERIALIZABLE, the
 * entries relied on are also locked FOR KEY SHARE (SQ_PRESENT_LOCKED).
 */
static int
present_hashes(Relation rel, const slime_hashed *want, int n, slime_hashed **out)
{
	Relation	idx;
	IndexScanDesc scan;
	TupleTableSlot *slot;
	ScanKeyData key;
	bytea	   *key_datum;
	slime_hashed *found;
	int			nfound = 0;

	if (IsolationUsesXactSnapshot())
	{
		run_store_query(SQ_PRESENT_LOCKED, rel, hashes_to_array(want, n), NULL, SPI_OK_SELECT);
		return result_hashes(out);
	}
	found = palloc(sizeof(slime_hashed) * (n ? n : 1));
	idx = index_open(store_idx, AccessShareLock);
	scan = index_beginscan(rel, idx, SnapshotSelf, 1, 0);
	slot = table_slot_create(rel, NULL);
	key_datum = (bytea *) palloc(VARHDRSZ + 32);
	SET_VARSIZE(key_datum, VARHDRSZ + 32);
	for (int i = 0; i < n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		memcpy(VARDATA(key_datum), want[i].hash, 32);
		ScanKeyInit(&key, 1, BTEqualStrategyNumber, F_BYTEAEQ, PointerGetDatum(key_datum));
		index_rescan(scan, &key, 1, NULL, 0);
		if (index_getnext_slot(scan, ForwardScanDirection, slot))
			found[nfound++] = want[i];
	}
	ExecDropSingleTupleTableSlot(slot);
	index_endscan(scan);
	index_close(idx, AccessShareLock);
	*out = found;
	return sort_unique(found, nfound);
}

/* Which of n hashes the store holds; the store stays locked against slime_gc()'s delete. */
void
slime_store_which(const uint8_t *hashes, int n, bool *present)
{
	Relation	rel = open_store();
	slime_hashed *want = palloc(sizeof(slime_hashed) * (n ? n : 1));
	slime_hashed *found;
	int			nfound;
	slime_role_ctx oc;

	LockRelationOid(RelationGetRelid(rel), RowExclusiveLock);
	for (int i = 0; i < n; i++)
		memcpy(want[i].hash, hashes + (size_t) 32 * i, 32);
	owner_enter(rel, &oc);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	nfound = present_hashes(rel, want, sort_unique(want, n), &found);
	/* found lives in SPI's memory: read before SPI_finish */
	for (int i = 0; i < n; i++)
		present[i] = hash_in(hashes + (size_t) 32 * i, found, nfound);
	SPI_finish();
	slime_unbecome(&oc);
	table_close(rel, AccessShareLock);
}

/*
 * Which of n entries (hash[i], as bytea) another transaction still in
 * progress has put in the store, its row not committed yet (busy[i]): the
 * store's key probed under a dirty snapshot, as a unique index checks a
 * new key (_bt_check_unique). An entry this transaction put is not busy.
 */
static int
probe_busy(Relation rel, Datum *hash, int n, bool *busy)
{
	Relation	idx = index_open(store_idx, AccessShareLock);
	SnapshotData dirty;
	IndexScanDesc scan;
	TupleTableSlot *slot = table_slot_create(rel, NULL);
	ScanKeyData key;
	int			nbusy = 0;

	InitDirtySnapshot(dirty);
	scan = index_beginscan(rel, idx, &dirty, 1, 0);
	for (int i = 0; i < n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		busy[i] = false;
		ScanKeyInit(&key, 1, BTEqualStrategyNumber, F_BYTEAEQ, hash[i]);
		index_rescan(scan, &key, 1, NULL, 0);
		while (index_getnext_slot(scan, ForwardScanDirection, slot))
		{
			/* dirty.xmin: the inserter of the row just found, while in progress */
			if (TransactionIdIsValid(dirty.xmin) && !TransactionIdIsCurrentTransactionId(dirty.xmin))
			{
				busy[i] = true;
				nbusy++;
			}
			break;
		}
	}
	ExecDropSingleTupleTableSlot(slot);
	index_endscan(scan);
	index_close(idx, AccessShareLock);
	return nbusy;
}

/* How long an insert into the store waits for another transaction's entry of the same key (ms). */
#define STORE_INSERT_WAIT_MS "20"

/* Tries of an insert whose key another transaction began to store between the probe and the insert. */
#define STORE_INSERT_TRIES 3

/* The arguments of store_insert. */
typedef struct store_insert_args
{
	Relation	rel;
	Datum	   *hash;
	Datum	   *data;
	int			n;
} store_insert_args;

/* Run SQ_INSERT for the entries of a (store_insert_args). */
static void
store_insert(void *a)
{
	store_insert_args *s = a;

	run_store_query(SQ_INSERT, s->rel,
					construct_array(s->hash, s->n, BYTEAOID, -1, false, TYPALIGN_INT),
					construct_array(s->data, s->n, BYTEAOID, -1, false, TYPALIGN_INT),
					SPI_OK_INSERT);
}

/*
 * Run SQ_INSERT for the n entries in a subtransaction whose lock_timeout is
 * STORE_INSERT_WAIT_MS: true when it ran, false when it would have waited
 * for another transaction's entry of one of the keys.
 */
static bool
insert_or_give_up(Relation rel, Datum *hash, Datum *data, int n)
{
	store_insert_args a = {rel, hash, data, n};
	int			nest = slime_guc_push("lock_timeout", STORE_INSERT_WAIT_MS);
	bool		done = slime_subxact_try(store_insert, &a, ERRCODE_LOCK_NOT_AVAILABLE, NULL);

	slime_guc_pop(nest);
	return done;
}

/*
 * Insert n entries into the store unless there, never waiting for another
 * transaction (issue #33): an entry another transaction in progress is
 * storing is left out and marked busy[i] (its chunk stays in the value, as
 * the caller makes it), found by a dirty probe before the insert; an
 * insert that would still wait (the key was stored between probe and
 * insert) gives up after STORE_INSERT_WAIT_MS and the probe runs again.
 * With SPI connected, as the store's owner; returns how many are busy.
 */
static int
insert_nowait(Relation rel, Datum *hash, Datum *data, int n, bool *busy)
{
	Datum	   *h = palloc(sizeof(Datum) * (n ? n : 1));
	Datum	   *d = palloc(sizeof(Datum) * (n ? n : 1));
	int			nbusy = 0;

	for (int tries = 0; n > 0; tries++)
	{
		int			m = 0;

		nbusy = probe_busy(rel, hash, n, busy);
		for (int i = 0; i < n; i++)
			if (!busy[i])
			{
				h[m] = hash[i];
				d[m++] = data[i];
			}
		if (tries == STORE_INSERT_TRIES)
		{
			/* still racing another transaction: every chunk left stays in the value */
			for (int i = 0; i < n; i++)
				busy[i] = true;
			return n;
		}
		if (m == 0 || insert_or_give_up(rel, h, d, m))
			break;
	}
	return nbusy;
}

/*
 * Put n entries in the store unless there, without waiting for other
 * transactions: busy[i] (may be NULL when the caller cannot keep a chunk,
 * then every entry is waited for) says which another transaction in
 * progress is storing, left out; returns how many.
 */
int
slime_store_put(Datum *hashes, Datum *entries, int n, bool *busy)
{
	Relation	rel;
	slime_role_ctx oc;
	int			nbusy = 0;

	if (n == 0)
		return 0;
	rel = open_store();
	LockRelationOid(RelationGetRelid(rel), RowExclusiveLock);
	owner_enter(rel, &oc);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (busy)
		nbusy = insert_nowait(rel, hashes, entries, n, busy);
	else
		run_store_query(SQ_INSERT, rel,
						construct_array(hashes, n, BYTEAOID, -1, false, TYPALIGN_INT),
						construct_array(entries, n, BYTEAOID, -1, false, TYPALIGN_INT),
						SPI_OK_INSERT);
	SPI_finish();
	slime_unbecome(&oc);
	table_close(rel, AccessShareLock);
	return nbusy;
}

/*
 * Keep the n hashes (sorted, 32 bytes each) that a row written by this
 * transaction refers to safe from a slime_gc() running now (the tracking
 * trigger, for values that did not go through slime_store()): the store
 * locked ROW EXCLUSIVE to the commit, and the hashes pinned when a
 * collection runs, as slime_store() does.
 */
void
slime_store_pin_relied(const uint8_t *hashes, int n)
{
	Relation	rel;
	slime_hashed *h;
	slime_role_ctx oc;

	if (n == 0)
		return;
	rel = open_store();
	LockRelationOid(RelationGetRelid(rel), RowExclusiveLock);
	if (gc_running())
	{
		h = palloc(sizeof(slime_hashed) * n);
		for (int i = 0; i < n; i++)
			memcpy(h[i].hash, hashes + (size_t) 32 * i, 32);
		owner_enter(rel, &oc);
		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "SPI_connect failed");
		run_store_query(SQ_PIN, rel, hashes_to_array(h, n), NULL, SPI_OK_INSERT);
		SPI_finish();
		slime_unbecome(&oc);
	}
	table_close(rel, AccessShareLock);
}

/*
 * Set while the store trigger stores a value into a tracked table: that
 * table's tracking trigger keeps what the row gains safe from a running
 * collection (slime_store_pin_relied), so slime_store() does not pin it.
 */
static bool pins_left_to_tracker = false;

/* Pin the chunks a value refers to when a slime_gc() is running. */
static void
pin_refs(slime_open_value *o)
{
	slime_hashed *h;
	int			n;
	Relation	rel;

	if (o->v.hdr.ref_count == 0 || pins_left_to_tracker || !gc_running())
		return;
	n = collect_hashes(o, true, &h);
	rel = open_store();
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	run_store_query(SQ_PIN, rel, hashes_to_array(h, n), NULL, SPI_OK_INSERT);
	SPI_finish();
	table_close(rel, AccessShareLock);
}

PG_FUNCTION_INFO_V1(slime_store);
/*
 * Put a value's chunks in the store and return its reference form; a value
 * that already refers to the store is checked (every chunk it refers to
 * must be there). Runs as the extension's owner (SECURITY DEFINER). The
 * ROW EXCLUSIVE lock on the store, held to commit, keeps slime_gc()'s
 * delete (SHARE ROW EXCLUSIVE) from running between these checks and the
 * commit of the row that holds the value; a collection whose scan is
 * running meanwhile gets the value's hashes as pins (gc_running()), and
 * one that has not started waits for this commit before it scans (the
 * SQL of slime_gc() in sql/slime--0.3.0--0.4.0.sql has the whole
 * argument). Queries run from plans prepared once per backend. Under
 * REPEATABLE READ or SERIALIZABLE the
 * entries relied on are also locked FOR KEY SHARE, so an entry collected
 * after this transaction's snapshot is a serialization failure, not a loss.
 * Each chunk is decompressed and hashed once.
 */
Datum
slime_store(PG_FUNCTION_ARGS)
{
	slime_open_value o;
	Relation	rel = open_store();
	uint32_t	n;
	slime_hashed *all,
			   *want,
			   *present;
	int			nwant = 0,
				npresent;
	Datum	   *new_hash,
			   *new_data;
	int			nnew = 0;
	bool	   *busy;
	int			nbusy;
	slime_hashed *kept;
	sl_builder	b;
	sl_err		err;

	LockRelationOid(RelationGetRelid(rel), RowExclusiveLock);
	slime_open(&o, PG_GETARG_DATUM(0), false);
	n = o.v.hdr.chunk_count;
	if (slime_loader_checked(o.v.hdr.hash))
	{
		/*
		 * a loader save checked and stored its chunks (those another
		 * transaction was storing it kept inline): only the pins are left
		 */
		table_close(rel, AccessShareLock);
		pin_refs(&o);
		sl_value_close(&o.v);
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	sl_value_close(&o.v);
	slime_open(&o, PG_GETARG_DATUM(0), true);
	all = palloc(sizeof(slime_hashed) * (n ? n : 1));
	want = palloc(sizeof(slime_hashed) * (n ? n : 1));
	for (uint32_t i = 0; i < n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		if (sl_value_chunk_hash(&o.v, i, all[i].hash, &err))
			slime_raise(&err, false);
		all[i].index = i;
		want[nwant++] = all[i];
	}
	nwant = sort_unique(want, nwant);

	/* which of the chunks are stored already (locking them where needed) */
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	npresent = present_hashes(rel, want, nwant, &present);
	check_present(&o, present, npresent);
	/* a collection running now may not have seen the rows relying on these */
	if (nwant > 0 && !pins_left_to_tracker && gc_running())
		run_store_query(SQ_PIN, rel, hashes_to_array(want, nwant), NULL, SPI_OK_INSERT);

	/* store the chunks held inline that the store lacks, each once */
	new_hash = palloc(sizeof(Datum) * (nwant ? nwant : 1));
	new_data = palloc(sizeof(Datum) * (nwant ? nwant : 1));
	for (uint32_t i = 0; i < n; i++)
	{
		sl_dirent	d;
		const uint8_t *comp[SL_NCOMP];
		uint8_t		h[32];
		sl_buf		out = {0};

		CHECK_FOR_INTERRUPTS();
		if (sl_value_dirent(&o.v, i, &d, &err))
			slime_raise(&err, false);
		if (d.ref || hash_in(all[i].hash, present, npresent))
			continue;
		if (sl_value_chunk(&o.v, i, &d, comp, &err) ||
			sl_buf_put_u32be(&out, 0, &err) ||
			sl_store_entry_encode(d.len, comp, slime_encode_opts()->level, &out, h, &err))
			slime_raise(&err, false);
		SET_VARSIZE(out.data, out.len);
		new_hash[nnew] = PointerGetDatum(slime_from_bytes(h, 32));
		new_data[nnew++] = PointerGetDatum(out.data);
		/* a repeat of this chunk later in the value is now present */
		present = repalloc(present, sizeof(slime_hashed) * (npresent + 1));
		memcpy(present[npresent++].hash, h, 32);
		npresent = sort_unique(present, npresent);
	}
	/* entries another transaction is storing now are not waited for: their chunks stay inline */
	busy = palloc(sizeof(bool) * (nnew ? nnew : 1));
	nbusy = nnew > 0 ? insert_nowait(rel, new_hash, new_data, nnew, busy) : 0;
	kept = SPI_palloc(sizeof(slime_hashed) * (nbusy ? nbusy : 1));	/* outlives SPI_finish */
	for (int i = 0, k = 0; i < nnew; i++)
		if (busy[i])
			memcpy(kept[k++].hash, VARDATA_ANY(DatumGetPointer(new_hash[i])), 32);
	nbusy = sort_unique(kept, nbusy);
	SPI_finish();
	table_close(rel, AccessShareLock);

	/* a value all references (a loader save) is its own reference form */
	if (o.v.hdr.ref_count == n)
	{
		sl_value_close(&o.v);
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}

	/* the reference form, from the hashes computed above; busy chunks as they came */
	memset(&b, 0, sizeof(b));
	for (uint32_t i = 0; i < n; i++)
	{
		sl_dirent	d;

		if (sl_value_dirent(&o.v, i, &d, &err) ||
			(!d.ref && hash_in(all[i].hash, kept, nbusy) ?
			 sl_builder_add_chunk(&b, &o.v, i, SL_ADD_KEEP, &err) :
			 sl_builder_add_ref(&b, &d, all[i].hash, &err)))
			slime_raise(&err, false);
	}
	if (sl_builder_add_world(&b, &o.v, &err))
		slime_raise(&err, false);
	slime_summary_keep(&b, &o);
	sl_value_close(&o.v);
	PG_RETURN_POINTER(slime_from_builder(&b));
}

PG_FUNCTION_INFO_V1(slime_resolve);
/* The self-contained form of a value: every reference read from the store. */
Datum
slime_resolve(PG_FUNCTION_ARGS)
{
	slime_open_value o;

	slime_open(&o, PG_GETARG_DATUM(0), false);
	if (!(o.v.hdr.flags & SL_FLAG_REFS))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	sl_value_close(&o.v);
	PG_RETURN_POINTER(rebuild(PG_GETARG_DATUM(0), SL_ADD_RESOLVE));
}

PG_FUNCTION_INFO_V1(slime_verify_refs);
/*
 * Whether every chunk a value holds by reference is in the store and
 * matches it; false, with a NOTICE naming the first that does not (a value
 * restored without the store rows it refers to, README "Security").
 */
Datum
slime_verify_refs(PG_FUNCTION_ARGS)
{
	slime_open_value o;
	sl_err		err;

	slime_open(&o, PG_GETARG_DATUM(0), false);
	o.hash_entries = true;		/* whatever slime.store_read_check says */
	for (uint32_t i = 0; i < o.v.hdr.chunk_count && o.v.hdr.ref_count > 0; i++)
	{
		sl_dirent	d;
		const uint8_t *comp[SL_NCOMP];

		CHECK_FOR_INTERRUPTS();
		if (sl_value_dirent(&o.v, i, &d, &err))
			slime_raise(&err, false);
		if (!d.ref)
			continue;
		if (sl_value_chunk(&o.v, i, &d, comp, &err))
		{
			ereport(NOTICE,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("slime value refers to a chunk the store cannot give: %s", err.msg)));
			PG_RETURN_BOOL(false);
		}
	}
	/* a contents summary counting chunks in the store: counted again (summary.c) */
	if (o.v.hdr.ref_count > 0 && !slime_summary_verify(&o))
		PG_RETURN_BOOL(false);
	sl_value_close(&o.v);
	PG_RETURN_BOOL(true);
}

PG_FUNCTION_INFO_V1(slime_store_entry_read);
/*
 * The store entry keyed by hash as a reader gets it (a packed entry read out
 * of its pack, in the raw form), or NULL: for slime_store_verify() and
 * slime_store_entries().
 */
Datum
slime_store_entry_read(PG_FUNCTION_ARGS)
{
	bytea	   *hash = PG_GETARG_BYTEA_PP(0);
	Relation	rel;
	struct varlena *r;

	if (VARSIZE_ANY_EXHDR(hash) != 32)
		PG_RETURN_NULL();
	rel = open_store();
	r = lookup_entry(rel, (const uint8_t *) VARDATA_ANY(hash), GetActiveSnapshot(), true, true, NULL, NULL);
	table_close(rel, AccessShareLock);
	if (r == NULL)
		PG_RETURN_NULL();
	PG_RETURN_BYTEA_P(r);
}

PG_FUNCTION_INFO_V1(slime_store_entry_check);
/* NULL when a store entry matches its key, else what is wrong with it. */
Datum
slime_store_entry_check(PG_FUNCTION_ARGS)
{
	bytea	   *hash = PG_GETARG_BYTEA_PP(0);
	bytea	   *data = PG_GETARG_BYTEA_PP(1);
	sl_err		err;

	if (sl_store_entry_check((const uint8_t *) VARDATA_ANY(hash), VARSIZE_ANY_EXHDR(hash),
							 (const uint8_t *) VARDATA_ANY(data), VARSIZE_ANY_EXHDR(data),
							 slime_limits(), &err) == 0)
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text(err.msg));
}

/* Whether type typid (a column's type) is, or holds, the slime type. */
static int
type_kind(Oid typid, Oid slime_type, int depth)
{
	Oid			base = getBaseType(typid);
	Oid			elem;

	check_stack_depth();
	if (base == slime_type)
		return 1;
	elem = get_element_type(base);
	if (OidIsValid(elem))
	{
		int			k = type_kind(elem, slime_type, depth + 1);

		return k == 1 ? 2 : k;	/* an array of composites is a composite's case */
	}
	if (get_typtype(base) == TYPTYPE_COMPOSITE)
	{
		TupleDesc	td = lookup_rowtype_tupdesc(base, -1);
		int			found = 0;

		for (int i = 0; i < td->natts && !found; i++)
			if (!TupleDescAttr(td, i)->attisdropped &&
				type_kind(TupleDescAttr(td, i)->atttypid, slime_type, depth + 1))
				found = 3;
		ReleaseTupleDesc(td);
		return found;
	}
	return 0;
}

/* The slime type's OID, found next to the function being called. */
static Oid
slime_type_oid(FunctionCallInfo fcinfo)
{
	Oid			nsp = get_func_namespace(fcinfo->flinfo->fn_oid);

	return GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid, CStringGetDatum("slime"),
						   ObjectIdGetDatum(nsp));
}

PG_FUNCTION_INFO_V1(slime_type_holds);
/*
 * How a column type holds slime values, for slime_gc(): 0 not at all,
 * 1 a slime (or a domain over it), 2 an array of them, 3 inside a
 * composite type, or an array of those (which slime_gc cannot scan, so it
 * skips the column with a warning).
 */
Datum
slime_type_holds(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(type_kind(PG_GETARG_OID(0), slime_type_oid(fcinfo), 0));
}

/*
 * Call slime_store(value) in the extension's schema. By OID, not through
 * SQL: EXECUTE on slime_store() is not PUBLIC, and the trigger stores for
 * every role that owns a table with it (what it stores, its table refers to).
 */
static Datum
call_store(Datum value, Oid fn_oid)
{
	static FmgrInfo flinfo;
	static Oid	store_nsp = InvalidOid;
	Oid			nsp = get_func_namespace(fn_oid);

	if (store_nsp != nsp)
	{
		Oid			argtype = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
											  CStringGetDatum("slime"), ObjectIdGetDatum(nsp));
		Oid			fn = slime_extension_func(nsp, "slime_store", &argtype, 1);

		if (!OidIsValid(fn))
			elog(ERROR, "function slime_store(slime) is missing");
		store_nsp = InvalidOid;
		fmgr_info_cxt(fn, &flinfo, TopMemoryContext);
		store_nsp = nsp;
	}
	return FunctionCall1(&flinfo, value);
}

/*
 * Whether rel has the tracking trigger of the extension in schema nsp, in
 * the one shape it runs in (AFTER INSERT OR UPDATE OR DELETE FOR EACH ROW,
 * every row) and firing in this session, so that it will see the row being
 * written.
 */
static bool
has_tracker(Relation rel, Oid nsp)
{
	Oid			fn;

	if (rel->trigdesc == NULL)
		return false;
	fn = slime_extension_func(nsp, "slime_track_trigger", NULL, 0);
	for (int i = 0; OidIsValid(fn) && i < rel->trigdesc->numtriggers; i++)
	{
		Trigger    *t = &rel->trigdesc->triggers[i];

		bool		fires = t->tgenabled == TRIGGER_FIRES_ALWAYS ||
			(SessionReplicationRole == SESSION_REPLICATION_ROLE_REPLICA ?
			 t->tgenabled == TRIGGER_FIRES_ON_REPLICA : t->tgenabled == TRIGGER_FIRES_ON_ORIGIN);

		if (t->tgfoid == fn && fires &&
			t->tgtype == (TRIGGER_TYPE_ROW | TRIGGER_TYPE_INSERT | TRIGGER_TYPE_UPDATE | TRIGGER_TYPE_DELETE) &&
			t->tgqual == NULL && t->tgnattr == 0)
			return true;
	}
	return false;
}

/* call_store() for a row of a table, whose tracking trigger (tracked) pins what the row gains. */
static Datum
store_for_table(Datum value, Oid fn_oid, bool tracked)
{
	Datum		r;

	pins_left_to_tracker = tracked;
	PG_TRY();
	{
		r = call_store(value, fn_oid);
	}
	PG_FINALLY();
	{
		pins_left_to_tracker = false;
	}
	PG_END_TRY();
	return r;
}

PG_FUNCTION_INFO_V1(slime_store_trigger);
/*
 * BEFORE INSERT OR UPDATE row trigger: replace every slime column's value by
 * slime_store(value), so that plain INSERT/UPDATE statements store chunks
 * once. A value the update leaves unchanged is not stored again.
 */
Datum
slime_store_trigger(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	TupleDesc	desc;
	HeapTuple	newtup,
				oldtup = NULL;
	Oid			slime_type;
	int		   *cols;
	Datum	   *vals;
	bool	   *nulls;
	int			n = 0;
	bool		tracked;

	if (!CALLED_AS_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("slime_store_trigger() must be called as a trigger")));
	if (!TRIGGER_FIRED_BEFORE(td->tg_event) || !TRIGGER_FIRED_FOR_ROW(td->tg_event) ||
		!(TRIGGER_FIRED_BY_INSERT(td->tg_event) || TRIGGER_FIRED_BY_UPDATE(td->tg_event)))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("slime_store_trigger() must run BEFORE INSERT OR UPDATE FOR EACH ROW")));
	desc = RelationGetDescr(td->tg_relation);
	newtup = td->tg_trigtuple;
	if (TRIGGER_FIRED_BY_UPDATE(td->tg_event))
	{
		oldtup = td->tg_trigtuple;
		newtup = td->tg_newtuple;
	}
	slime_type = slime_type_oid(fcinfo);
	tracked = has_tracker(td->tg_relation, get_func_namespace(fcinfo->flinfo->fn_oid));
	cols = palloc(sizeof(int) * desc->natts);
	vals = palloc(sizeof(Datum) * desc->natts);
	nulls = palloc0(sizeof(bool) * desc->natts);
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		bool		isnull,
					oldnull;
		Datum		v,
					old;

		if (att->attisdropped || getBaseType(att->atttypid) != slime_type)
			continue;
		v = heap_getattr(newtup, i + 1, desc, &isnull);
		if (isnull)
			continue;
		if (oldtup)
		{
			old = heap_getattr(oldtup, i + 1, desc, &oldnull);
			if (!oldnull && datumIsEqual(v, old, false, -1))
				continue;
		}
		check_refs_before_save(v);
		cols[n] = i + 1;
		vals[n] = store_for_table(v, fcinfo->flinfo->fn_oid, tracked);
		n++;
	}
	if (n > 0)
		newtup = heap_modify_tuple_by_cols(newtup, desc, n, cols, vals, nulls);
	return PointerGetDatum(newtup);
}
