/*
 * import.c - build slime values: region files in, merging, world data.
 */
#include "slime.h"

#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "sl_build.h"
#include "sl_codec.h"
#include "sl_jgzip.h"
#include "sl_vsum.h"
#include "sl_region.h"
#include "sl_sniff.h"

#define MAX_PROBLEM_WARNINGS 50

/* Collect the slime_mcc entries of one kind from an array argument. */
static sl_external *
external_chunks(ArrayType *arr, int kind, int *count)
{
	Datum	   *elems;
	bool	   *nulls;
	int			n;
	sl_external *ext;
	int			m = 0;

	*count = 0;
	if (arr == NULL)
		return NULL;
	deconstruct_array(arr, ARR_ELEMTYPE(arr), -1, false, TYPALIGN_DOUBLE, &elems, &nulls, &n);
	ext = palloc0(sizeof(sl_external) * (n ? n : 1));
	for (int i = 0; i < n; i++)
	{
		HeapTupleHeader t;
		bool		isnull[4];
		Datum		f[4];
		bytea	   *data;

		if (nulls[i])
			continue;
		t = DatumGetHeapTupleHeader(elems[i]);
		f[0] = GetAttributeByNum(t, 1, &isnull[0]);
		f[1] = GetAttributeByNum(t, 2, &isnull[1]);
		f[2] = GetAttributeByNum(t, 3, &isnull[2]);
		f[3] = GetAttributeByNum(t, 4, &isnull[3]);
		if (isnull[0] || isnull[1] || isnull[2] || isnull[3])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("slime_mcc entry %d has a NULL field", i + 1)));
		if (slime_kind(DatumGetTextPP(f[0])) != kind)
			continue;
		data = DatumGetByteaPP(f[3]);
		ext[m].x = DatumGetInt32(f[1]);
		ext[m].z = DatumGetInt32(f[2]);
		ext[m].data = (const uint8_t *) VARDATA_ANY(data);
		ext[m].len = VARSIZE_ANY_EXHDR(data);
		m++;
	}
	*count = m;
	return ext;
}

/* Stop gathering once the chunks gathered exceed slime.max_world_size. */
static void
check_gathered(const sl_builder *b)
{
	if (b->total > slime_limits()->max_value_raw)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("the chunks gathered (" UINT64_FORMAT " bytes) exceed the world size cap of %zu bytes",
						(uint64) b->total, slime_limits()->max_value_raw)));
}

/* Name the chunks a lenient import skipped or repaired. */
static void
report_problems(const sl_region *r, const char *kind)
{
	for (int i = 0; i < r->nproblems; i++)
	{
		const sl_region_problem *p = &r->problems[i];

		if (i == MAX_PROBLEM_WARNINGS)
		{
			ereport(WARNING,
					(errmsg("%d more damaged chunks in %s file r.%d.%d not listed",
							r->nproblems - i, kind, r->rx, r->rz)));
			break;
		}
		/* p->msg starts with "chunk (x,z) at file offset N" */
		ereport(WARNING,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("%s %s %s", p->skipped ? "skipped" : "repaired", kind, p->msg)));
	}
}

/* Which function reads a file of another kind than a region file, or NULL. */
static const char *
reader_hint(sl_sniff_kind kind)
{
	switch (kind)
	{
		case SL_SNIFF_GZIP:
			return "A level.dat goes in with slime_with_level(world, file), a schematic with slime_paste(world, file, x, y, z).";
		case SL_SNIFF_SLIMEFILE:
			return "slime_from_slimefile(file) reads slime files.";
		case SL_SNIFF_VALUE:
			return "These are a slime value's bytes: cast them, file::slime.";
		case SL_SNIFF_NBT:
			return "One chunk's NBT goes in with slime_put_chunk(world, x, z, nbt).";
		default:
			return NULL;
	}
}

/* Read one region-format file into the builder as component kind. */
static void
add_region_file(sl_builder *b, bytea *file, int kind, int32 rx, int32 rz, bool strict,
				ArrayType *mcc)
{
	sl_region	r;
	sl_err		err;
	int			next;
	sl_external *ext = external_chunks(mcc, kind, &next);

	memset(&r, 0, sizeof(r));
	if (sl_region_read((const uint8_t *) VARDATA_ANY(file), VARSIZE_ANY_EXHDR(file), rx, rz,
					   ext, next, strict, slime_limits(), &r, &err) ||
		sl_region_place(&r, kind, strict, slime_limits(), &err))
	{
		const char *hint = reader_hint(sl_sniff((const uint8_t *) VARDATA_ANY(file),
												VARSIZE_ANY_EXHDR(file)));

		sl_region_free(&r);
		sl_err_prefix(&err, "%s file r.%d.%d", slime_kind_names[kind], rx, rz);
		if (hint == NULL)
			slime_raise(&err, true);
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("%s", err.msg),
				 errhint("%s", hint)));
	}
	report_problems(&r, slime_kind_names[kind]);
	if (sl_builder_add_region(b, kind, &r, &err))
		slime_raise(&err, true);
	sl_region_free(&r);
	check_gathered(b);
}

PG_FUNCTION_INFO_V1(slime_import_region);
/* Import a region file (with its entities and POI files) as a value. */
Datum
slime_import_region(PG_FUNCTION_ARGS)
{
	sl_builder	b;
	int32		rx,
				rz;
	bool		strict;
	ArrayType  *mcc;

	if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("region coordinates must not be NULL")));
	if (PG_ARGISNULL(0) && PG_ARGISNULL(3) && PG_ARGISNULL(4))
		PG_RETURN_NULL();
	rx = PG_GETARG_INT32(1);
	rz = PG_GETARG_INT32(2);
	if (rx < -(1 << 26) || rx >= (1 << 26) || rz < -(1 << 26) || rz >= (1 << 26))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("region coordinates (%d,%d) are out of range", rx, rz)));
	strict = PG_ARGISNULL(5) ? true : PG_GETARG_BOOL(5);
	mcc = PG_ARGISNULL(6) ? NULL : PG_GETARG_ARRAYTYPE_P(6);
	memset(&b, 0, sizeof(b));
	for (int k = 0; k < SL_NCOMP; k++)
	{
		int			arg = k == 0 ? 0 : k + 2;

		if (!PG_ARGISNULL(arg))
			add_region_file(&b, PG_GETARG_BYTEA_PP(arg), k, rx, rz, strict, mcc);
	}
	PG_RETURN_POINTER(slime_from_builder(&b));
}

/* Copy every chunk of a slime datum into the builder. */
static void
add_value(sl_builder *b, Datum d)
{
	slime_open_value o;
	sl_err		err;

	slime_open(&o, d, true);
	if (sl_builder_add_value(b, &o.v, SL_ADD_KEEP, &err))
		slime_raise(&err, false);
	sl_value_close(&o.v);
	if (o.full != o.raw)
		pfree(o.full);
	check_gathered(b);
}

PG_FUNCTION_INFO_V1(slime_merge);
/* Merge values into one; the same chunk twice is an error. */
Datum
slime_merge(PG_FUNCTION_ARGS)
{
	ArrayType  *arr = PG_GETARG_ARRAYTYPE_P(0);
	Datum	   *elems;
	bool	   *nulls;
	int			n;
	sl_builder	b;

	deconstruct_array(arr, ARR_ELEMTYPE(arr), -1, false, TYPALIGN_INT, &elems, &nulls, &n);
	memset(&b, 0, sizeof(b));
	for (int i = 0; i < n; i++)
		if (!nulls[i])
			add_value(&b, elems[i]);
	PG_RETURN_POINTER(slime_from_builder(&b));
}

PG_FUNCTION_INFO_V1(slime_agg_transfn);
/* Aggregate transition: gather one more value's chunks. */
Datum
slime_agg_transfn(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext;
	MemoryContext old;
	sl_builder *b;

	if (!AggCheckCallContext(fcinfo, &aggcontext))
		elog(ERROR, "slime_agg_transfn called in non-aggregate context");
	old = MemoryContextSwitchTo(aggcontext);
	b = PG_ARGISNULL(0) ? palloc0(sizeof(sl_builder)) : (sl_builder *) PG_GETARG_POINTER(0);
	if (!PG_ARGISNULL(1))
		add_value(b, PG_GETARG_DATUM(1));
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(b);
}

PG_FUNCTION_INFO_V1(slime_agg_finalfn);
/* Aggregate final: encode the gathered chunks. */
Datum
slime_agg_finalfn(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	PG_RETURN_POINTER(slime_from_builder((sl_builder *) PG_GETARG_POINTER(0)));
}

PG_FUNCTION_INFO_V1(slime_with_level);
/* Replace (or with NULL remove) a value's world compound (level.dat). */
Datum
slime_with_level(PG_FUNCTION_ARGS)
{
	slime_open_value o;
	sl_builder	b;
	sl_err		err;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	memset(&b, 0, sizeof(b));
	slime_open(&o, PG_GETARG_DATUM(0), true);
	if (sl_builder_add_value(&b, &o.v, SL_ADD_KEEP, &err))
		slime_raise(&err, false);
	if (b.world)
		sl_free(b.world);
	b.world = NULL;
	b.world_len = 0;
	if (!PG_ARGISNULL(1))
	{
		bytea	   *level = PG_GETARG_BYTEA_PP(1);
		uint8_t    *nbt;
		size_t		len;

		if (sl_unpack_nbt((const uint8_t *) VARDATA_ANY(level), VARSIZE_ANY_EXHDR(level),
						  0, slime_limits(), &nbt, &len, &err))
		{
			sl_err_prefix(&err, "level.dat");
			slime_raise(&err, true);
		}
		b.world = nbt;
		b.world_len = len;
	}
	PG_RETURN_POINTER(slime_from_builder(&b));
}

PG_FUNCTION_INFO_V1(slime_level);
/*
 * The world compound as level.dat, gzip-compressed the way the game of its
 * DataVersion writes it (sl_jgzip), or NULL.
 */
Datum
slime_level(PG_FUNCTION_ARGS)
{
	slime_open_value o;
	const uint8_t *world;
	size_t		len;
	sl_buf		out = {0};
	sl_err		err;
	bytea	   *r;

	slime_open(&o, PG_GETARG_DATUM(0), false);
	if (sl_value_world(&o.v, &world, &len, &err))
		slime_raise(&err, false);
	if (len == 0)
		PG_RETURN_NULL();
	if (sl_buf_put_u32be(&out, 0, &err) ||
		sl_jgzip_level(world, len, slime_limits(), &out, &err))
		slime_raise(&err, false);
	r = (bytea *) out.data;
	SET_VARSIZE(r, out.len);
	PG_RETURN_BYTEA_P(r);
}

/* A builder holding a copy of world's chunks, or an empty one for NULL. */
static void
builder_from(sl_builder *b, FunctionCallInfo fcinfo)
{
	memset(b, 0, sizeof(*b));
	if (!PG_ARGISNULL(0))
		add_value(b, PG_GETARG_DATUM(0));
}

/*
 * The same, with chunk (x,z) as bytes even when the store holds it, so that
 * one of its components can be replaced and the others kept; and with the
 * value's summary, which the caller keeps (b->sum_manual) by taking the
 * chunk's counts away before changing it and adding them after.
 */
static void
builder_resolving(sl_builder *b, FunctionCallInfo fcinfo, int32 x, int32 z)
{
	slime_open_value o;
	int64		at;
	sl_err		err;

	memset(b, 0, sizeof(*b));
	b->sum_manual = 1;
	if (PG_ARGISNULL(0))
		return;
	slime_open(&o, PG_GETARG_DATUM(0), true);
	at = sl_value_find(&o.v, x, z);
	for (uint32_t i = 0; i < o.v.hdr.chunk_count; i++)
	{
		CHECK_FOR_INTERRUPTS();
		if (sl_builder_add_chunk(b, &o.v, i, i == at ? SL_ADD_RESOLVE : SL_ADD_KEEP, &err))
			slime_raise(&err, false);
	}
	if (sl_builder_add_world(b, &o.v, &err) || sl_builder_sum_value(b, &o.v, &err))
		slime_raise(&err, false);
	sl_value_close(&o.v);
	check_gathered(b);
}

/* Take chunk (x,z)'s counts away from the summary kept (sign -1) or add them (+1). */
static void
sum_chunk(sl_builder *b, int32 x, int32 z, int sign)
{
	sl_err		err;

	if (sl_builder_sum_pieces(b, x, z, sign, slime_limits(), &err))
		slime_raise(&err, false);
}

/*
 * Refuse chunk NBT of another kind, or naming another position, than the
 * one slime_put_chunk stores it as (Minecraft would load it elsewhere).
 */
static void
check_place(const uint8_t *nbt, size_t len, int kind, int32 x, int32 z)
{
	int			found;
	int64_t		hx,
				hz;
	int			has;
	sl_err		err;

	has = sl_chunk_where(nbt, len, slime_limits(), &found, &hx, &hz, &err);
	if (has < 0)
	{
		sl_err_prefix(&err, "chunk (%d,%d)", x, z);
		slime_raise(&err, true);
	}
	if (found >= 0 && found != kind)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("chunk (%d,%d) was given as kind '%s' but its NBT is a chunk of %s",
						x, z, slime_kind_names[kind], sl_chunk_kind_file(found)),
				 errhint("Pass kind => '%s'.", slime_kind_names[found])));
	if (has && (hx != x || hz != z))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("chunk NBT given for chunk (%d,%d) says it is chunk (%lld,%lld) (its %s)",
						x, z, (long long) hx, (long long) hz,
						kind == SL_COMP_ENTITIES ? "Position" : "xPos and zPos"),
				 kind == SL_COMP_ENTITIES ?
				 errhint("Store it at (%lld,%lld), or move it: slime_put_chunk(world, %d, %d, slime_chunk_relocate(nbt, %d, %d), 'entities').",
						 (long long) hx, (long long) hz, x, z, x, z) :
				 errhint("Store it at (%lld,%lld), or move it: slime_put_chunk(world, %d, %d, slime_chunk_relocate(nbt, %d, %d)).",
						 (long long) hx, (long long) hz, x, z, x, z)));
}

PG_FUNCTION_INFO_V1(slime_put_chunk);
/* Store (or with NULL nbt remove) one component of one chunk. */
Datum
slime_put_chunk(PG_FUNCTION_ARGS)
{
	sl_builder	b;
	int32		x,
				z;
	int			kind;
	sl_err		err;

	if (PG_ARGISNULL(1) || PG_ARGISNULL(2) || PG_ARGISNULL(4))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("chunk coordinates and kind must not be NULL")));
	x = PG_GETARG_INT32(1);
	z = PG_GETARG_INT32(2);
	kind = slime_kind(PG_GETARG_TEXT_PP(4));
	builder_resolving(&b, fcinfo, x, z);
	sum_chunk(&b, x, z, -1);
	sl_builder_remove(&b, x, z, kind);
	if (!PG_ARGISNULL(3))
	{
		bytea	   *in = PG_GETARG_BYTEA_PP(3);
		uint8_t    *nbt;
		size_t		len;

		if (sl_unpack_nbt((const uint8_t *) VARDATA_ANY(in), VARSIZE_ANY_EXHDR(in),
						  0, slime_limits(), &nbt, &len, &err))
		{
			sl_err_prefix(&err, "chunk (%d,%d)", x, z);
			slime_raise(&err, true);
		}
		check_place(nbt, len, kind, x, z);
		if (sl_builder_add(&b, kind, x, z, 0, nbt, len, 1, &err))
			slime_raise(&err, true);
	}
	sum_chunk(&b, x, z, 1);
	PG_RETURN_POINTER(slime_from_builder(&b));
}

PG_FUNCTION_INFO_V1(slime_chunk_relocate);
/* One chunk's NBT with the position it names rewritten to (x,z). */
Datum
slime_chunk_relocate(PG_FUNCTION_ARGS)
{
	bytea	   *in = PG_GETARG_BYTEA_PP(0);
	int32		x = PG_GETARG_INT32(1);
	int32		z = PG_GETARG_INT32(2);
	uint8_t    *nbt;
	size_t		len;
	bytea	   *r;
	sl_err		err;

	if (sl_unpack_nbt((const uint8_t *) VARDATA_ANY(in), VARSIZE_ANY_EXHDR(in),
					  0, slime_limits(), &nbt, &len, &err) ||
		sl_chunk_relocate(nbt, len, x, z, slime_limits(), &err))
		slime_raise(&err, true);
	r = (bytea *) palloc(VARHDRSZ + len);
	SET_VARSIZE(r, VARHDRSZ + len);
	memcpy(VARDATA(r), nbt, len);
	PG_RETURN_BYTEA_P(r);
}

PG_FUNCTION_INFO_V1(slime_delete_chunk);
/*
 * Remove a chunk (every component) from a value. Its counts leave the
 * value's summary: a chunk held in the store is read to count it.
 */
Datum
slime_delete_chunk(PG_FUNCTION_ARGS)
{
	sl_builder	b;
	int32		x = PG_GETARG_INT32(1);
	int32		z = PG_GETARG_INT32(2);
	slime_open_value o;
	bool		summary;

	slime_open(&o, PG_GETARG_DATUM(0), false);
	summary = sl_value_has_summary(&o.v) && !slime_encode_opts()->no_summary;
	sl_value_close(&o.v);
	if (!summary)
	{
		builder_from(&b, fcinfo);
		sl_builder_remove(&b, x, z, -1);
		PG_RETURN_POINTER(slime_from_builder(&b));
	}
	builder_resolving(&b, fcinfo, x, z);
	sum_chunk(&b, x, z, -1);
	sl_builder_remove(&b, x, z, -1);
	PG_RETURN_POINTER(slime_from_builder(&b));
}

PG_FUNCTION_INFO_V1(slime_recompress);
/* Rewrite a value at another zstd level (same content, same hash). */
Datum
slime_recompress(PG_FUNCTION_ARGS)
{
	sl_builder	b;
	slime_open_value o;
	int			level;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	level = PG_ARGISNULL(1) ? slime_encode_opts()->level : PG_GETARG_INT32(1);
	if (level < SL_MIN_LEVEL || level > SL_MAX_LEVEL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("compression level %d is outside %d..%d", level, SL_MIN_LEVEL, SL_MAX_LEVEL)));
	builder_from(&b, fcinfo);
	/* the summary kept, or written now for a value without one (its stored chunks read) */
	slime_open(&o, PG_GETARG_DATUM(0), true);
	slime_summary_keep(&b, &o);
	sl_value_close(&o.v);
	PG_RETURN_POINTER(slime_from_builder_level(&b, level));
}
