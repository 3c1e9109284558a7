/*
 * store.c - the content-addressed chunk store: reading entries for values
 * whose chunks are references, and the pure functions that the SQL-level
 * store functions (slime_store, slime_gc, the trigger) are built from.
 *
 * The store is the table slime_store(hash bytea primary key, data bytea) in
 * the extension's schema. Reads go straight through its primary key index
 * and need no privilege on the table: a chunk's hash is the capability to
 * read it (doc/format.md, "Chunk store"). Writes run as the extension's
 * owner inside slime_store() (SQL, SECURITY DEFINER).
 */
#include "slime.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "storage/lmgr.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
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

/* The store table and its primary key index, as last looked up. */
static Oid	store_rel = InvalidOid;
static Oid	store_idx = InvalidOid;

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
	if (!OidIsValid(store_idx))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the slime chunk store table has no primary key")));
	return rel;
}

/*
 * Look the entry keyed by hash up under snapshot; with copy, return a
 * detoasted copy of its data (NULL when absent), else just whether it is
 * there ((void *) 1 or NULL).
 */
static struct varlena *
lookup_entry(Relation rel, const uint8_t *hash, Snapshot snapshot, bool copy)
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
		Datum		data = heap_getattr(tup, 2, RelationGetDescr(rel), &isnull);

		if (!isnull)
			r = copy ? pg_detoast_datum_copy((struct varlena *) DatumGetPointer(data)) :
				(struct varlena *) 1;
	}
	systable_endscan(scan);
	pfree(key_datum);
	return r;
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
					sl_err *err)
{
	slime_open_value *o = ctx;
	Relation	rel = open_store();
	char		hex[65];

	if (o->entry)
		pfree(o->entry);
	o->entry = NULL;
	if (ActiveSnapshotSet())
		o->entry = lookup_entry(rel, d->hash, GetActiveSnapshot(), true);
	if (o->entry == NULL)
		o->entry = lookup_entry(rel, d->hash, SnapshotSelf, true);
	table_close(rel, AccessShareLock);
	if (o->entry == NULL)
	{
		sl_hash_hex(d->hash, hex);
		return sl_fail(err, SL_ERR_CORRUPT, "chunk %s is missing from the chunk store", hex);
	}
	*entry = (const uint8_t *) VARDATA_ANY(o->entry);
	*len = VARSIZE_ANY_EXHDR(o->entry);
	return 0;
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
	if (o.v.hdr.ref_count == 0 || !ActiveSnapshotSet())
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
		if (!d.ref || lookup_entry(rel, d.hash, SnapshotSelf, false) ||
			!lookup_entry(rel, d.hash, GetActiveSnapshot(), false))
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

/* Order by chunk index. */
static int
cmp_index(const void *a, const void *b)
{
	uint32_t	ia = ((const slime_hashed *) a)->index;
	uint32_t	ib = ((const slime_hashed *) b)->index;

	return ia < ib ? -1 : ia > ib;
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

/* Sorted hashes from a bytea[] argument (NULL: none). */
static int
hashes_from_array(ArrayType *arr, slime_hashed **out)
{
	Datum	   *elems;
	bool	   *nulls;
	int			n,
				count = 0;

	*out = NULL;
	if (arr == NULL)
		return 0;
	deconstruct_array(arr, BYTEAOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
	*out = palloc(sizeof(slime_hashed) * (n ? n : 1));
	for (int i = 0; i < n; i++)
	{
		bytea	   *b;

		if (nulls[i])
			continue;
		b = DatumGetByteaPP(elems[i]);
		if (VARSIZE_ANY_EXHDR(b) == 32)
			memcpy((*out)[count++].hash, VARDATA_ANY(b), 32);
	}
	return sort_unique(*out, count);
}

PG_FUNCTION_INFO_V1(slime_refs);
/* Distinct hashes of the chunks a value holds by reference (header and directory only). */
Datum
slime_refs(PG_FUNCTION_ARGS)
{
	slime_open_value o;
	slime_hashed *h = NULL;
	int			n;

	slime_open(&o, PG_GETARG_DATUM(0), false);
	n = (o.v.hdr.flags & SL_FLAG_REFS) ? collect_hashes(&o, true, &h) : 0;
	PG_RETURN_ARRAYTYPE_P(hashes_to_array(h, n));
}

PG_FUNCTION_INFO_V1(slime_inline_hashes);
/* Distinct hashes of the chunks a value holds in its own frames. */
Datum
slime_inline_hashes(PG_FUNCTION_ARGS)
{
	slime_open_value o;
	slime_hashed *h;
	int			n;

	slime_open(&o, PG_GETARG_DATUM(0), false);
	n = collect_hashes(&o, false, &h);
	PG_RETURN_ARRAYTYPE_P(hashes_to_array(h, n));
}

PG_FUNCTION_INFO_V1(slime_store_entries);
/*
 * Store entries (hash, data) for the chunks a value holds in its frames,
 * each distinct chunk once, leaving out the hashes in skip (already stored).
 */
Datum
slime_store_entries(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	slime_open_value o;
	slime_hashed *skip,
			   *todo;
	int			nskip,
				ntodo,
				keep = 0;
	sl_err		err;

	InitMaterializedSRF(fcinfo, 0);
	nskip = hashes_from_array(PG_ARGISNULL(1) ? NULL : PG_GETARG_ARRAYTYPE_P(1), &skip);
	slime_open(&o, PG_GETARG_DATUM(0), true);
	ntodo = collect_hashes(&o, false, &todo);
	for (int i = 0; i < ntodo; i++)
		if (nskip == 0 || bsearch(&todo[i], skip, nskip, sizeof(slime_hashed), cmp_hash) == NULL)
			todo[keep++] = todo[i];
	/* in directory order, so that each frame is decompressed once */
	qsort(todo, keep, sizeof(slime_hashed), cmp_index);
	for (int i = 0; i < keep; i++)
	{
		sl_dirent	d;
		const uint8_t *comp[SL_NCOMP];
		uint8_t		h[32];
		sl_buf		out = {0};
		Datum		values[2];
		bool		nulls[2] = {false, false};

		CHECK_FOR_INTERRUPTS();
		if (sl_value_chunk(&o.v, todo[i].index, &d, comp, &err) ||
			sl_buf_put_u32be(&out, 0, &err) ||
			sl_store_entry_encode(d.len, comp, slime_encode_opts()->level, &out, h, &err))
			slime_raise(&err, false);
		SET_VARSIZE(out.data, out.len);
		values[0] = PointerGetDatum(slime_from_bytes(h, 32));
		values[1] = PointerGetDatum(out.data);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		pfree(out.data);
	}
	sl_value_close(&o.v);
	PG_RETURN_NULL();
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

PG_FUNCTION_INFO_V1(slime_reference);
/*
 * The reference form of a value: every chunk a reference by its hash. It
 * stores nothing; slime_store() stores the chunks and then calls this.
 */
Datum
slime_reference(PG_FUNCTION_ARGS)
{
	PG_RETURN_POINTER(rebuild(PG_GETARG_DATUM(0), SL_ADD_REFS));
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
		return type_kind(elem, slime_type, depth + 1) ? 2 : 0;
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
 * composite type (which slime_gc cannot scan, so it refuses to run).
 */
Datum
slime_type_holds(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(type_kind(PG_GETARG_OID(0), slime_type_oid(fcinfo), 0));
}

/* Call slime_store(value) in the extension's schema through SPI. */
static Datum
call_store(Datum value, Oid fn_oid)
{
	static SPIPlanPtr plan = NULL;
	static Oid	plan_nsp = InvalidOid;
	Oid			nsp = get_func_namespace(fn_oid);
	Oid			argtypes[1];
	bool		isnull;
	Datum		r;

	if (plan == NULL || plan_nsp != nsp)
	{
		char	   *q = psprintf("SELECT %s.slime_store($1)",
								 quote_identifier(get_namespace_name(nsp)));

		argtypes[0] = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
									  CStringGetDatum("slime"), ObjectIdGetDatum(nsp));
		if (plan)
			SPI_freeplan(plan);
		plan = SPI_prepare(q, 1, argtypes);
		if (plan == NULL || SPI_keepplan(plan))
			elog(ERROR, "SPI_prepare failed for \"%s\"", q);
		plan_nsp = nsp;
	}
	if (SPI_execute_plan(plan, &value, " ", false, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "slime_store() did not return a row");
	r = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (isnull)
		elog(ERROR, "slime_store() returned NULL");
	return SPI_datumTransfer(r, false, -1);
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
	bool		connected = false;

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
		if (!connected && SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "SPI_connect failed");
		connected = true;
		cols[n] = i + 1;
		vals[n] = call_store(v, fcinfo->flinfo->fn_oid);
		n++;
	}
	if (connected)
		SPI_finish();
	if (n > 0)
		newtup = heap_modify_tuple_by_cols(newtup, desc, n, cols, vals, nulls);
	return PointerGetDatum(newtup);
}
