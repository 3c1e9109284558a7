/*
 * gctrack.c - reference tracking for slime_gc() (issue #32): what each write
 * of a tracked table adds to and takes from the chunk store's references,
 * logged when the value is written, so that a collection reads what changed
 * since the last one instead of every value in the database.
 *
 * slime_track_trigger() (AFTER INSERT OR UPDATE OR DELETE FOR EACH ROW, put
 * on a table by slime_track()) logs, per row written, the distinct hashes
 * its slime and slime[] values gained (+1 a value) and lost (-1); the
 * store's own slime_store_log_new() logs every new entry (delta 0, table 0),
 * a candidate for the next collection. Both append to the unlogged table
 * slime_store_refs_log(rel oid, hashes bytea[], deltas integer[]) with
 * plain heap inserts (it has no index, no row of it is ever updated), and
 * slime_gc() folds it into per-table counts (sql/slime--0.9.0--0.10.0.sql,
 * doc/format.md "Garbage collection").
 */
#include "slime.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_trigger.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "utils/array.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

/* A hash and how many values of a row gained (+) or lost (-) it. */
typedef struct ref_delta
{
	uint8_t		hash[32];
	int32		delta;
} ref_delta;

/* The deltas of one row being gathered. */
typedef struct delta_set
{
	ref_delta  *d;
	int			n;
	int			cap;
} delta_set;

/* Add sign for each distinct hash value refers to. */
static void
add_value(delta_set *s, Datum value, int sign)
{
	uint8_t    *h;
	int			n = slime_value_ref_hashes(value, &h);

	if (s->n + n > s->cap)
	{
		s->cap = Max(s->cap * 2, s->n + n + 16);
		s->d = s->d ? repalloc(s->d, sizeof(ref_delta) * s->cap) : palloc(sizeof(ref_delta) * s->cap);
	}
	for (int i = 0; i < n; i++)
	{
		memcpy(s->d[s->n].hash, h + 32 * i, 32);
		s->d[s->n++].delta = sign;
	}
	pfree(h);
}

/* Add sign for the values of column datum v (kind 1: a slime, 2: a slime[]). */
static void
add_column(delta_set *s, Datum v, int kind, int sign)
{
	ArrayType  *a;
	Datum	   *elems;
	bool	   *nulls;
	int			n;
	int16		len;
	bool		byval;
	char		align;

	if (kind == 1)
	{
		add_value(s, v, sign);
		return;
	}
	a = DatumGetArrayTypeP(v);
	get_typlenbyvalalign(ARR_ELEMTYPE(a), &len, &byval, &align);
	deconstruct_array(a, ARR_ELEMTYPE(a), len, byval, align, &elems, &nulls, &n);
	for (int i = 0; i < n; i++)
		if (!nulls[i])
			add_value(s, elems[i], sign);
}

/* Order by hash. */
static int
cmp_delta(const void *a, const void *b)
{
	return memcmp(((const ref_delta *) a)->hash, ((const ref_delta *) b)->hash, 32);
}

/* Sum the deltas of each hash and drop those that cancel; the new count. */
static int
fold(delta_set *s)
{
	int			keep = 0;

	if (s->n > 1)
		qsort(s->d, s->n, sizeof(ref_delta), cmp_delta);
	for (int i = 0, j; i < s->n; i = j)
	{
		int32		sum = 0;

		for (j = i; j < s->n && memcmp(s->d[j].hash, s->d[i].hash, 32) == 0; j++)
			sum += s->d[j].delta;
		if (sum == 0)
			continue;
		memmove(s->d[keep].hash, s->d[i].hash, 32);
		s->d[keep++].delta = sum;
	}
	return s->n = keep;
}

/* Append one row (rel, hashes, deltas) of n deltas to the log of schema nsp. */
static void
log_append(Oid nsp, Oid rel, const ref_delta *d, int n)
{
	Oid			logid = get_relname_relid("slime_store_refs_log", nsp);
	Relation	log;
	Datum	   *h = palloc(sizeof(Datum) * n);
	Datum	   *x = palloc(sizeof(Datum) * n);
	Datum		vals[3];
	bool		nulls[3] = {false, false, false};

	if (!OidIsValid(logid))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the slime reference log slime_store_refs_log is missing"),
				 errhint("Run ALTER EXTENSION slime UPDATE.")));
	for (int i = 0; i < n; i++)
	{
		h[i] = PointerGetDatum(slime_from_bytes(d[i].hash, 32));
		x[i] = Int32GetDatum(d[i].delta);
	}
	vals[0] = ObjectIdGetDatum(rel);
	vals[1] = PointerGetDatum(construct_array(h, n, BYTEAOID, -1, false, TYPALIGN_INT));
	vals[2] = PointerGetDatum(construct_array(x, n, INT4OID, 4, true, TYPALIGN_INT));
	log = table_open(logid, RowExclusiveLock);
	simple_heap_insert(log, heap_form_tuple(RelationGetDescr(log), vals, nulls));
	table_close(log, NoLock);
}

/* How a column of type typid holds slime values (slime type slime): 1 a slime, 2 a slime[], else 0. */
static int
column_kind(Oid typid, Oid slime)
{
	Oid			base = getBaseType(typid);
	Oid			elem;

	if (base == slime)
		return 1;
	elem = get_element_type(base);
	return OidIsValid(elem) && getBaseType(elem) == slime ? 2 : 0;
}

/* The trigger types slime_track_trigger() must be created with. */
#define TRACK_TYPE (TRIGGER_TYPE_ROW | TRIGGER_TYPE_INSERT | TRIGGER_TYPE_UPDATE | TRIGGER_TYPE_DELETE)

PG_FUNCTION_INFO_V1(slime_track_trigger);
/*
 * AFTER INSERT OR UPDATE OR DELETE FOR EACH ROW (slime_track()): log what
 * the row's slime and slime[] values gained and lost of the store's
 * references, so that slime_gc() never reads the table. A value an update
 * leaves unchanged logs nothing; what a row gains is kept safe from a
 * collection running now as a save keeps it (slime_store_pin_relied).
 */
Datum
slime_track_trigger(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	Oid			nsp;
	Oid			slime;
	TupleDesc	desc;
	HeapTuple	newtup = NULL,
				oldtup = NULL;
	delta_set	s = {0};
	int			gained = 0;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_AFTER(td->tg_event) ||
		!TRIGGER_FIRED_FOR_ROW(td->tg_event) || td->tg_trigger->tgtype != TRACK_TYPE ||
		td->tg_trigger->tgqual != NULL || td->tg_trigger->tgnattr > 0)
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("slime_track_trigger() must run AFTER INSERT OR UPDATE OR DELETE FOR EACH ROW, for every row"),
				 errhint("Put it on a table with SELECT slime_track('table').")));
	nsp = get_func_namespace(fcinfo->flinfo->fn_oid);
	slime = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid, CStringGetDatum("slime"), ObjectIdGetDatum(nsp));
	desc = RelationGetDescr(td->tg_relation);
	if (TRIGGER_FIRED_BY_INSERT(td->tg_event))
		newtup = td->tg_trigtuple;
	else if (TRIGGER_FIRED_BY_DELETE(td->tg_event))
		oldtup = td->tg_trigtuple;
	else
	{
		oldtup = td->tg_trigtuple;
		newtup = td->tg_newtuple;
	}
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		int			kind;
		bool		newnull = true,
					oldnull = true;
		Datum		nv = 0,
					ov = 0;

		if (att->attisdropped || (kind = column_kind(att->atttypid, slime)) == 0)
			continue;
		if (newtup)
			nv = heap_getattr(newtup, i + 1, desc, &newnull);
		if (oldtup)
			ov = heap_getattr(oldtup, i + 1, desc, &oldnull);
		if (!newnull && !oldnull && datumIsEqual(nv, ov, false, -1))
			continue;
		if (!newnull)
			add_column(&s, nv, kind, 1);
		if (!oldnull)
			add_column(&s, ov, kind, -1);
	}
	if (fold(&s) == 0)
		return PointerGetDatum(NULL);
	/* what the row gained is relied on from now on, as a save relies on it */
	for (int i = 0; i < s.n; i++)
		if (s.d[i].delta > 0)
			gained++;
	if (gained > 0)
	{
		uint8_t    *h = palloc(32 * gained);

		for (int i = 0, k = 0; i < s.n; i++)
			if (s.d[i].delta > 0)
				memcpy(h + 32 * k++, s.d[i].hash, 32);
		slime_store_pin_relied(h, gained);
	}
	log_append(nsp, RelationGetRelid(td->tg_relation), s.d, s.n);
	return PointerGetDatum(NULL);
}

PG_FUNCTION_INFO_V1(slime_store_log_new);
/*
 * AFTER INSERT FOR EACH ROW on the store (ENABLE ALWAYS, so replicated
 * entries count too): log the new entry as a candidate for the next
 * slime_gc(), which removes it unless a value refers to it by then.
 */
Datum
slime_store_log_new(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	ref_delta	d;
	bool		isnull;
	Datum		h;
	bytea	   *b;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_AFTER(td->tg_event) ||
		!TRIGGER_FIRED_FOR_ROW(td->tg_event) || !TRIGGER_FIRED_BY_INSERT(td->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("slime_store_log_new() must run AFTER INSERT FOR EACH ROW on the chunk store")));
	h = heap_getattr(td->tg_trigtuple, 1, RelationGetDescr(td->tg_relation), &isnull);
	if (isnull)
		return PointerGetDatum(NULL);
	b = DatumGetByteaPP(h);
	if (VARSIZE_ANY_EXHDR(b) != 32)
		return PointerGetDatum(NULL);
	memcpy(d.hash, VARDATA_ANY(b), 32);
	d.delta = 0;
	log_append(RelationGetNamespace(td->tg_relation), InvalidOid, &d, 1);
	return PointerGetDatum(NULL);
}
