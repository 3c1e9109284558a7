/*
 * blocks.c - blocks and biomes in SQL: the block at a position, counts per
 * world, and aggregates that sum counts across worlds in parallel.
 */
#include "slime.h"

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/jsonb.h"

#include "sl_blocks.h"
#include "sl_counts.h"
#include "sl_vsum.h"

/*
 * Add the blocks (or biomes) of every chunk of a world to m, decoded. A
 * chunk read out of a pack has its counts kept (packcount.c), and a chunk
 * whose counts are kept adds them without being read.
 */
static void
decode_world(Datum world, bool biomes, sl_counts *m)
{
	slime_open_value o;
	sl_err		err;
	int			want = biomes ? SL_WANT_BIOMES : SL_WANT_BLOCKS;

	slime_open(&o, world, true);
	for (uint32_t i = 0; i < o.v.hdr.chunk_count; i++)
	{
		sl_dirent	d;
		const uint8_t *comp[SL_NCOMP];
		sl_arena	arena = {0};
		sl_chunk_blocks cb;
		sl_counts	one = {0};
		sl_counts  *into;
		int			rc;

		CHECK_FOR_INTERRUPTS();
		if (sl_value_dirent(&o.v, i, &d, &err))
			slime_raise(&err, false);
		if (d.len[SL_COMP_REGION] == 0 || (d.ref && slime_kept_counts_add(&o, &d, want, m)))
			continue;
		if (sl_value_chunk(&o.v, i, &d, comp, &err))
			slime_raise(&err, false);
		into = d.ref && OidIsValid(o.loc.rel) ? &one : m;
		rc = sl_chunk_blocks_open(comp[SL_COMP_REGION], d.len[SL_COMP_REGION], d.data_version,
								  want, slime_limits(), &arena, &cb, &err);
		if (rc == 0)
			rc = biomes ? sl_chunk_count_biomes(&cb, sl_vsum_tally, into, &err) :
				sl_chunk_count_blocks(&cb, sl_vsum_tally, into, &err);
		sl_arena_free(&arena);
		if (rc)
			slime_raise_chunk(&err, d.x, d.z);
		if (into == &one)
		{
			slime_kept_counts_keep(&o, &d, want, &one);
			if (sl_counts_merge(m, &one, &err))
				slime_raise(&err, false);
			sl_counts_free(&one);
		}
	}
	sl_value_close(&o.v);
}

/* Add the blocks (or biomes) of a world to m: from its summary, else decoded. */
static void
count_world(Datum world, bool biomes, sl_counts *m)
{
	if (!slime_summary_counts(world, biomes ? SL_SUM_BIOMES : SL_SUM_BLOCKS, m, CurrentMemoryContext))
		decode_world(world, biomes, m);
}

/* Emit a count map as (name, count) rows, sorted by name. */
static void
emit_counts(FunctionCallInfo fcinfo, const sl_counts *m)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	sl_err		err;
	sl_count_entry **v = sl_counts_sorted(m, &err);

	if (v == NULL)
		slime_raise(&err, false);
	for (size_t i = 0; i < m->used; i++)
	{
		Datum		values[2];
		bool		nulls[2] = {false, false};

		values[0] = PointerGetDatum(cstring_to_text_with_len(v[i]->name, (int) v[i]->len));
		values[1] = Int64GetDatum((int64) v[i]->count);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
}

PG_FUNCTION_INFO_V1(slime_block_counts);
/* How many of each block (by name, air included) a world holds. */
Datum
slime_block_counts(PG_FUNCTION_ARGS)
{
	sl_counts	m = {0};

	InitMaterializedSRF(fcinfo, 0);
	count_world(PG_GETARG_DATUM(0), false, &m);
	emit_counts(fcinfo, &m);
	PG_RETURN_NULL();
}

PG_FUNCTION_INFO_V1(slime_biome_counts);
/* How many biome entries (columns or 4x4x4 cells) of each biome a world holds. */
Datum
slime_biome_counts(PG_FUNCTION_ARGS)
{
	sl_counts	m = {0};

	InitMaterializedSRF(fcinfo, 0);
	count_world(PG_GETARG_DATUM(0), true, &m);
	emit_counts(fcinfo, &m);
	PG_RETURN_NULL();
}

PG_FUNCTION_INFO_V1(slime_block_names);
/*
 * Every block name a world holds, sorted (byte order): the names of
 * slime_block_counts, from the summary whatever slime.read_summaries says
 * (an index expression gives one answer or one error). IMMUTABLE, so it
 * cannot read the chunk store: a value holding chunks there without a
 * usable summary (one written before 0.10.0) is an error saying how to
 * write one.
 */
Datum
slime_block_names(PG_FUNCTION_ARGS)
{
	Datum		world = PG_GETARG_DATUM(0);
	sl_counts	m = {0};
	sl_count_entry **v;
	Datum	   *names;
	size_t		n = 0;
	sl_err		err;

	if (!slime_summary_table(world, SL_SUM_BLOCKS, &m, CurrentMemoryContext))
	{
		slime_open_value o;
		bool		refs;

		slime_open(&o, world, false);
		refs = o.v.hdr.ref_count > 0;
		sl_value_close(&o.v);
		if (refs)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("slime_block_names cannot count a value that holds chunks in the chunk store without a contents summary to read"),
					 errdetail("The value was written before 0.10.0 or with slime.write_summaries off, "
							   "or a chunk's blocks could not be counted when it was written."),
					 errhint("slime_recompress(world) writes the summary; slime_block_counts(world) reads the store.")));
		decode_world(world, false, &m);
	}
	v = sl_counts_sorted(&m, &err);
	if (v == NULL)
		slime_raise(&err, false);
	names = palloc(sizeof(Datum) * (m.used ? m.used : 1));
	for (size_t i = 0; i < m.used; i++)
		if (v[i]->count > 0)
			names[n++] = PointerGetDatum(cstring_to_text_with_len(v[i]->name, (int) v[i]->len));
	PG_RETURN_ARRAYTYPE_P(construct_array(names, (int) n, TEXTOID, -1, false, TYPALIGN_INT));
}

/* Floor division by 16 of a block coordinate. */
static inline int32
chunk_of(int32 c)
{
	return c >> 4;
}

PG_FUNCTION_INFO_V1(slime_block);
/* The block state at a world position, 'minecraft:name[prop=value,...]'. */
Datum
slime_block(PG_FUNCTION_ARGS)
{
	int32		x = PG_GETARG_INT32(1);
	int32		y = PG_GETARG_INT32(2);
	int32		z = PG_GETARG_INT32(3);
	slime_open_value o;
	sl_dirent	d;
	const uint8_t *nbt;
	sl_arena	arena = {0};
	sl_chunk_blocks cb;
	sl_buf		out = {0};
	sl_err		err;
	int			rc;

	slime_open(&o, PG_GETARG_DATUM(0), false);
	if (!slime_find_chunk(&o, chunk_of(x), chunk_of(z), SL_COMP_REGION, &d, &nbt))
		PG_RETURN_NULL();
	rc = sl_chunk_blocks_open(nbt, d.len[SL_COMP_REGION], d.data_version,
							  SL_WANT_BLOCKS, slime_limits(), &arena, &cb, &err);
	if (rc == 0)
		rc = sl_chunk_block_at(&cb, x & 15, y, z & 15, &out, &err);
	if (rc < 0)
		slime_raise_chunk(&err, d.x, d.z);
	if (rc == 0)
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text_with_len((const char *) out.data, (int) out.len));
}

/* ---- aggregates: per-name totals across worlds, parallel-capable ---- */

/* The aggregate state, created in the aggregate's memory context. */
static sl_counts *
totals_state(FunctionCallInfo fcinfo, MemoryContext *aggcontext)
{
	if (!AggCheckCallContext(fcinfo, aggcontext))
		elog(ERROR, "slime totals aggregate called in non-aggregate context");
	if (PG_ARGISNULL(0))
		return (sl_counts *) MemoryContextAllocZero(*aggcontext, sizeof(sl_counts));
	return (sl_counts *) PG_GETARG_POINTER(0);
}

/* Merge src into dst inside the aggregate's memory context. */
static void
merge_into(MemoryContext aggcontext, sl_counts *dst, const sl_counts *src)
{
	MemoryContext old = MemoryContextSwitchTo(aggcontext);
	sl_err		err;

	if (sl_counts_merge(dst, src, &err))
		slime_raise(&err, false);
	MemoryContextSwitchTo(old);
}

/*
 * Transition: one world's counts of a summary table (SL_SUM_*) into the
 * state, read from its summary straight into the state, or decoded (in a
 * short-lived context) and merged.
 */
static Datum
totals_transfn(FunctionCallInfo fcinfo, int kind)
{
	MemoryContext aggcontext;
	sl_counts  *state = totals_state(fcinfo, &aggcontext);
	Datum		world;

	if (PG_ARGISNULL(1))
		PG_RETURN_POINTER(state);
	world = PG_GETARG_DATUM(1);
	if (!slime_summary_counts(world, kind, state, aggcontext))
	{
		sl_counts	one = {0};

		if (kind == SL_SUM_BLOCK_ENTITIES)
			slime_count_block_entities(world, &one);
		else if (kind == SL_SUM_ENTITIES)
			slime_count_entities(world, &one);
		else
			decode_world(world, kind == SL_SUM_BIOMES, &one);
		merge_into(aggcontext, state, &one);
		sl_counts_free(&one);
	}
	PG_RETURN_POINTER(state);
}

PG_FUNCTION_INFO_V1(slime_block_totals_transfn);
/* slime_block_totals transition. */
Datum
slime_block_totals_transfn(PG_FUNCTION_ARGS)
{
	return totals_transfn(fcinfo, SL_SUM_BLOCKS);
}

PG_FUNCTION_INFO_V1(slime_biome_totals_transfn);
/* slime_biome_totals transition. */
Datum
slime_biome_totals_transfn(PG_FUNCTION_ARGS)
{
	return totals_transfn(fcinfo, SL_SUM_BIOMES);
}

PG_FUNCTION_INFO_V1(slime_block_entity_totals_transfn);
/* slime_block_entity_totals transition. */
Datum
slime_block_entity_totals_transfn(PG_FUNCTION_ARGS)
{
	return totals_transfn(fcinfo, SL_SUM_BLOCK_ENTITIES);
}

PG_FUNCTION_INFO_V1(slime_entity_totals_transfn);
/* slime_entity_totals transition. */
Datum
slime_entity_totals_transfn(PG_FUNCTION_ARGS)
{
	return totals_transfn(fcinfo, SL_SUM_ENTITIES);
}

PG_FUNCTION_INFO_V1(slime_totals_combinefn);
/* Combine two partial states (parallel workers). */
Datum
slime_totals_combinefn(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext;
	sl_counts  *state = totals_state(fcinfo, &aggcontext);

	if (!PG_ARGISNULL(1))
		merge_into(aggcontext, state, (sl_counts *) PG_GETARG_POINTER(1));
	PG_RETURN_POINTER(state);
}

PG_FUNCTION_INFO_V1(slime_totals_serialfn);
/* Serialize a partial state for transfer between processes. */
Datum
slime_totals_serialfn(PG_FUNCTION_ARGS)
{
	sl_counts  *state = (sl_counts *) PG_GETARG_POINTER(0);
	sl_buf		out = {0};
	sl_err		err;
	bytea	   *r;

	if (sl_buf_put_u32be(&out, 0, &err) || sl_counts_serialize(state, &out, &err))
		slime_raise(&err, false);
	r = (bytea *) out.data;
	SET_VARSIZE(r, out.len);
	PG_RETURN_BYTEA_P(r);
}

PG_FUNCTION_INFO_V1(slime_totals_deserialfn);
/* Rebuild a partial state from its serialized form. */
Datum
slime_totals_deserialfn(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext;
	MemoryContext old;
	bytea	   *b = PG_GETARG_BYTEA_PP(0);
	sl_counts  *state;
	sl_err		err;

	if (!AggCheckCallContext(fcinfo, &aggcontext))
		elog(ERROR, "slime_totals_deserialfn called in non-aggregate context");
	old = MemoryContextSwitchTo(aggcontext);
	state = palloc0(sizeof(sl_counts));
	if (sl_counts_deserialize(state, (const uint8_t *) VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b), &err))
		slime_raise(&err, false);
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(state);
}

PG_FUNCTION_INFO_V1(slime_totals_finalfn);
/* The totals as jsonb: {"minecraft:stone": 1234, ...}. */
Datum
slime_totals_finalfn(PG_FUNCTION_ARGS)
{
	sl_counts  *state;
	sl_count_entry **v;
	StringInfoData s;
	sl_err		err;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	state = (sl_counts *) PG_GETARG_POINTER(0);
	v = sl_counts_sorted(state, &err);
	if (v == NULL)
		slime_raise(&err, false);
	initStringInfo(&s);
	appendStringInfoChar(&s, '{');
	for (size_t i = 0; i < state->used; i++)
	{
		if (i)
			appendStringInfoString(&s, ", ");
		escape_json(&s, pnstrdup(v[i]->name, v[i]->len));
		appendStringInfo(&s, ": " UINT64_FORMAT, (uint64) v[i]->count);
	}
	appendStringInfoChar(&s, '}');
	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(s.data)));
}
