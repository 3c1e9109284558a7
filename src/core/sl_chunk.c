/*
 * sl_chunk.c - find block entities, entities and their fields in chunk NBT.
 */
#include "sl_chunk.h"

#include <string.h>

/* A child of a compound if it has the wanted type. */
static const sl_nbt *
typed_child(const sl_nbt *compound, const char *name, int type)
{
	const sl_nbt *c = sl_nbt_child(compound, name);

	return c != NULL && c->type == type ? c : NULL;
}

/* The compound holding a chunk's data: root.Level when present, else root. */
const sl_nbt *
sl_chunk_body(const sl_nbt *root)
{
	const sl_nbt *level = typed_child(root, "Level", SL_TAG_COMPOUND);

	return level ? level : root;
}

/* A chunk's block entities list, or NULL. */
const sl_nbt *
sl_chunk_block_entities(const sl_nbt *root)
{
	const sl_nbt *body = sl_chunk_body(root);
	const sl_nbt *l = typed_child(body, "block_entities", SL_TAG_LIST);

	return l ? l : typed_child(body, "TileEntities", SL_TAG_LIST);
}

/* Entities of a chunk or of an entities/ document, or NULL. */
const sl_nbt *
sl_chunk_entities(const sl_nbt *root)
{
	const sl_nbt *l = typed_child(sl_chunk_body(root), "Entities", SL_TAG_LIST);

	return l ? l : typed_child(root, "Entities", SL_TAG_LIST);
}

/* An int-like tag's value; false when absent or not an integer. */
int
sl_nbt_get_int(const sl_nbt *compound, const char *name, int64_t *out)
{
	const sl_nbt *c = sl_nbt_child(compound, name);

	if (c == NULL || c->type < SL_TAG_BYTE || c->type > SL_TAG_LONG)
		return 0;
	*out = c->v.i;
	return 1;
}

/* A string tag's bytes, or NULL. */
const char *
sl_nbt_get_string(const sl_nbt *compound, const char *name, uint16_t *len)
{
	const sl_nbt *c = typed_child(compound, name, SL_TAG_STRING);

	if (c == NULL)
		return NULL;
	*len = c->v.str.len;
	return c->v.str.s;
}

/* Element i of a list of doubles. */
int
sl_nbt_list_double(const sl_nbt *list, uint32_t i, double *out)
{
	if (list == NULL || list->type != SL_TAG_LIST || i >= list->v.list.count)
		return 0;
	if (list->v.list.elem_type == SL_TAG_DOUBLE)
		*out = list->v.list.items[i]->v.d;
	else if (list->v.list.elem_type == SL_TAG_FLOAT)
		*out = list->v.list.items[i]->v.f;
	else
		return 0;
	return 1;
}

/* An entity's UUID as 16 big-endian bytes. */
int
sl_entity_uuid(const sl_nbt *entity, uint8_t out[16])
{
	const sl_nbt *u = typed_child(entity, "UUID", SL_TAG_INT_ARRAY);
	int64_t		most,
				least;

	if (u != NULL && u->v.arr.count == 4)
	{
		memcpy(out, u->v.arr.data, 16);
		return 1;
	}
	if (sl_nbt_get_int(entity, "UUIDMost", &most) && sl_nbt_get_int(entity, "UUIDLeast", &least))
	{
		sl_put_u64be(out, (uint64_t) most);
		sl_put_u64be(out + 8, (uint64_t) least);
		return 1;
	}
	return 0;
}

/* Write a tag as a document with an empty root name. */
int
sl_nbt_write_as_root(const sl_nbt *node, sl_buf *out, sl_err *err)
{
	sl_nbt		root = *node;

	root.name = "";
	root.name_len = 0;
	return sl_nbt_write(&root, out, err);
}
