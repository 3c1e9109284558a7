/*
 * contents.c - what chunks hold, as rows: block entities, entities, and a
 * chunk as JSON. Chunks are decompressed and parsed one at a time.
 */
#include "slime.h"

#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/uuid.h"

#include "sl_chunk.h"
#include "sl_counts.h"
#include "sl_nbt.h"
#include "sl_vsum.h"

/* jsonb of one tag (a list item or a named tag), by the lossless mapping. */
static Datum
tag_jsonb(const sl_nbt *node)
{
	sl_buf		nbt = {0};
	sl_buf		json = {0};
	sl_err		err;

	if (sl_nbt_write_as_root(node, &nbt, &err) ||
		sl_nbt_to_json(nbt.data, nbt.len, slime_limits(), &json, &err) ||
		sl_buf_put_u8(&json, 0, &err))
		slime_raise(&err, false);
	return DirectFunctionCall1(jsonb_in, CStringGetDatum((char *) json.data));
}

/* text of a modified UTF-8 string tag; NULL when absent or not convertible. */
static text *
string_text(const sl_nbt *compound, const char *name)
{
	uint16_t	len;
	const char *s = sl_nbt_get_string(compound, name, &len);
	sl_buf		out = {0};
	sl_err		err;

	if (s == NULL || sl_mutf8_to_utf8(s, len, &out, &err) != 0)
		return NULL;
	return cstring_to_text_with_len((const char *) out.data, (int) out.len);
}

/* Parse one component of chunk i; NULL root when the chunk lacks it. */
static const sl_nbt *
parse_chunk(slime_open_value *o, uint32_t i, int kind, sl_arena *arena, sl_dirent *d)
{
	const uint8_t *comp[SL_NCOMP];
	sl_nbt	   *root;
	size_t		used;
	sl_err		err;

	if (sl_value_chunk(&o->v, i, d, comp, &err))
		slime_raise(&err, false);
	if (d->len[kind] == 0)
		return NULL;
	if (sl_nbt_parse(comp[kind], d->len[kind], slime_limits(), arena, &root, &used, &err))
		slime_raise_chunk(&err, d->x, d->z);
	return root;
}

/* Emit one row per block entity of one parsed chunk. */
static void
emit_block_entities(ReturnSetInfo *rsinfo, const sl_nbt *root)
{
	const sl_nbt *list = sl_chunk_block_entities(root);

	if (list == NULL || list->v.list.elem_type != SL_TAG_COMPOUND)
		return;
	for (uint32_t j = 0; j < list->v.list.count; j++)
	{
		const sl_nbt *be = list->v.list.items[j];
		static const char *const axes[3] = {"x", "y", "z"};
		Datum		values[5];
		bool		nulls[5] = {false, false, false, false, false};
		text	   *id;

		for (int a = 0; a < 3; a++)
		{
			int64_t		c;

			nulls[a] = !sl_nbt_get_int(be, axes[a], &c) || c < PG_INT32_MIN || c > PG_INT32_MAX;
			values[a] = Int32GetDatum(nulls[a] ? 0 : (int32) c);
		}
		id = string_text(be, "id");
		nulls[3] = id == NULL;
		values[3] = PointerGetDatum(id);
		values[4] = tag_jsonb(be);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
}

/* Rows of block entities of every chunk, or of chunk (cx,cz) only. */
static Datum
block_entities(FunctionCallInfo fcinfo, bool one, int32 cx, int32 cz)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	slime_open_value o;
	uint32_t	first = 0,
				last;

	InitMaterializedSRF(fcinfo, 0);
	slime_open(&o, PG_GETARG_DATUM(0), !one);
	last = o.v.hdr.chunk_count;
	if (one)
	{
		int64		i = sl_value_find(&o.v, cx, cz);

		if (i < 0)
			PG_RETURN_NULL();
		first = (uint32_t) i;
		last = first + 1;
	}
	for (uint32_t i = first; i < last; i++)
	{
		sl_arena	arena = {0};
		sl_dirent	d;
		const sl_nbt *root;

		CHECK_FOR_INTERRUPTS();
		root = parse_chunk(&o, i, SL_COMP_REGION, &arena, &d);
		if (root)
			emit_block_entities(rsinfo, root);
		sl_arena_free(&arena);
	}
	sl_value_close(&o.v);
	PG_RETURN_NULL();
}

/*
 * Count the block entities of every chunk of a world by id, as written (for
 * slime_block_entity_totals, decoding); block entities without an id are
 * not counted.
 */
void
slime_count_block_entities(Datum world, sl_counts *m)
{
	slime_open_value o;

	slime_open(&o, world, true);
	for (uint32_t i = 0; i < o.v.hdr.chunk_count; i++)
	{
		sl_arena	arena = {0};
		sl_dirent	d;
		const sl_nbt *root;
		sl_err		err;

		CHECK_FOR_INTERRUPTS();
		root = parse_chunk(&o, i, SL_COMP_REGION, &arena, &d);
		if (root && sl_count_ids(sl_chunk_block_entities(root), m, &err))
			slime_raise(&err, false);
		sl_arena_free(&arena);
	}
	sl_value_close(&o.v);
}

/*
 * Count the entities of every chunk of a world by id, as written (for
 * slime_entity_totals, decoding): those of chunks (before 1.17) and of
 * entities/ data, as slime_entities lists them; entities without an id are
 * not counted.
 */
void
slime_count_entities(Datum world, sl_counts *m)
{
	slime_open_value o;

	slime_open(&o, world, true);
	for (uint32_t i = 0; i < o.v.hdr.chunk_count; i++)
		for (int kind = SL_COMP_REGION; kind <= SL_COMP_ENTITIES; kind++)
		{
			sl_arena	arena = {0};
			sl_dirent	d;
			const sl_nbt *root;
			sl_err		err;

			CHECK_FOR_INTERRUPTS();
			root = parse_chunk(&o, i, kind, &arena, &d);
			if (root && sl_count_ids(sl_chunk_entities(root), m, &err))
				slime_raise(&err, false);
			sl_arena_free(&arena);
		}
	sl_value_close(&o.v);
}

PG_FUNCTION_INFO_V1(slime_block_entities);
/* Every block entity (tile entity) of a world. */
Datum
slime_block_entities(PG_FUNCTION_ARGS)
{
	return block_entities(fcinfo, false, 0, 0);
}

PG_FUNCTION_INFO_V1(slime_chunk_block_entities);
/* The block entities of one chunk (its frame only is decompressed). */
Datum
slime_chunk_block_entities(PG_FUNCTION_ARGS)
{
	return block_entities(fcinfo, true, PG_GETARG_INT32(1), PG_GETARG_INT32(2));
}

/* Emit one row per entity of a list. */
static void
emit_entities(ReturnSetInfo *rsinfo, const sl_nbt *list)
{
	if (list == NULL || list->v.list.elem_type != SL_TAG_COMPOUND)
		return;
	for (uint32_t j = 0; j < list->v.list.count; j++)
	{
		const sl_nbt *e = list->v.list.items[j];
		const sl_nbt *pos = sl_nbt_child(e, "Pos");
		Datum		values[6];
		bool		nulls[6] = {false, false, false, false, false, false};
		uint8_t		uuid[16];
		text	   *id = string_text(e, "id");

		nulls[0] = id == NULL;
		values[0] = PointerGetDatum(id);
		nulls[1] = !sl_entity_uuid(e, uuid);
		if (!nulls[1])
		{
			pg_uuid_t  *u = palloc(sizeof(pg_uuid_t));

			memcpy(u->data, uuid, 16);
			values[1] = UUIDPGetDatum(u);
		}
		for (int a = 0; a < 3; a++)
		{
			double		c;

			nulls[2 + a] = !sl_nbt_list_double(pos, (uint32_t) a, &c);
			values[2 + a] = Float8GetDatum(nulls[2 + a] ? 0 : c);
		}
		values[5] = tag_jsonb(e);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
}

PG_FUNCTION_INFO_V1(slime_entities);
/* Every entity of a world: from chunks (before 1.17) and entities/ data. */
Datum
slime_entities(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	slime_open_value o;

	InitMaterializedSRF(fcinfo, 0);
	slime_open(&o, PG_GETARG_DATUM(0), true);
	for (uint32_t i = 0; i < o.v.hdr.chunk_count; i++)
	{
		for (int kind = SL_COMP_REGION; kind <= SL_COMP_ENTITIES; kind++)
		{
			sl_arena	arena = {0};
			sl_dirent	d;
			const sl_nbt *root;

			CHECK_FOR_INTERRUPTS();
			root = parse_chunk(&o, i, kind, &arena, &d);
			if (root)
				emit_entities(rsinfo, sl_chunk_entities(root));
			sl_arena_free(&arena);
		}
	}
	sl_value_close(&o.v);
	PG_RETURN_NULL();
}

PG_FUNCTION_INFO_V1(slime_chunk_json);
/* One chunk component as jsonb (lossless mapping), or NULL when absent. */
Datum
slime_chunk_json(PG_FUNCTION_ARGS)
{
	slime_open_value o;
	int			kind = slime_kind(PG_GETARG_TEXT_PP(3));
	sl_dirent	d;
	const uint8_t *nbt;
	sl_buf		json = {0};
	sl_err		err;

	slime_open(&o, PG_GETARG_DATUM(0), false);
	if (!slime_find_chunk(&o, PG_GETARG_INT32(1), PG_GETARG_INT32(2), kind, &d, &nbt))
		PG_RETURN_NULL();
	if (sl_nbt_to_json(nbt, d.len[kind], slime_limits(), &json, &err) ||
		sl_buf_put_u8(&json, 0, &err))
		slime_raise(&err, false);
	sl_value_close(&o.v);
	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum((char *) json.data)));
}
