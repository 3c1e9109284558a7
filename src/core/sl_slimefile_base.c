/*
 * sl_slimefile_base.c - what the slime file reader's layouts stand on: the
 * cursor over the file and its zstd blocks (every length checked against what
 * is left), the trees built in arenas, what goes to the builder, the
 * world-level tile entities and entities of v1-v10, and the world compound.
 *
 * sl_slimefile.c (the entry point) and sl_slimefile_chunks.c (the chunk
 * layouts of each version) call this file; it calls neither.
 */
#include "sl_slimefile_int.h"
#include "sl_zstd.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

/* Fail with "<chunk>: <field> at offset N of the <area>: <detail>". */
int
sl_sf_fail(sf *s, const rd *r, size_t at, sl_code code, const char *field, const char *fmt,...)
{
	char		detail[300];
	char		chunk[64] = "";
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	if (s->in_chunk)
		snprintf(chunk, sizeof(chunk), "chunk (%d,%d): ", s->cx, s->cz);
	return sl_fail(s->err, code, "slime file v%d: %s%s at offset %zu of the %s: %s",
				   s->version, chunk, field, at, r->area, detail);
}

/* Make sure n more bytes are there. */
static int
rd_need(sf *s, rd *r, size_t n, const char *field)
{
	if (r->len - r->pos < n)
		return sl_sf_fail(s, r, r->pos, SL_ERR_FORMAT, field, "needs %zu bytes, %zu left",
						  n, r->len - r->pos);
	return 0;
}

/* Read a byte. */
int
sl_sf_u8(sf *s, rd *r, const char *field, uint8_t *v)
{
	if (rd_need(s, r, 1, field))
		return -1;
	*v = r->p[r->pos++];
	return 0;
}

/* Read a big-endian u16. */
int
sl_sf_u16(sf *s, rd *r, const char *field, uint16_t *v)
{
	if (rd_need(s, r, 2, field))
		return -1;
	*v = sl_get_u16be(r->p + r->pos);
	r->pos += 2;
	return 0;
}

/* Read a big-endian i32. */
int
sl_sf_i32(sf *s, rd *r, const char *field, int32_t *v)
{
	if (rd_need(s, r, 4, field))
		return -1;
	*v = (int32_t) sl_get_u32be(r->p + r->pos);
	r->pos += 4;
	return 0;
}

/* Read a non-negative i32 length or count, *at getting its offset. */
int
sl_sf_len(sf *s, rd *r, const char *field, size_t *at, uint32_t *v)
{
	int32_t		n;

	*at = r->pos;
	if (sl_sf_i32(s, r, field, &n))
		return -1;
	if (n < 0)
		return sl_sf_fail(s, r, *at, SL_ERR_FORMAT, field, "negative length or count %d", (int) n);
	*v = (uint32_t) n;
	return 0;
}

/* Read a count of items each taking at least min_item bytes of what is left. */
int
sl_sf_count(sf *s, rd *r, const char *field, size_t min_item, uint32_t *v)
{
	size_t		at;

	if (sl_sf_len(s, r, field, &at, v))
		return -1;
	if (min_item > 0 && *v > (r->len - r->pos) / min_item)
		return sl_sf_fail(s, r, at, SL_ERR_FORMAT, field,
						  "count %u needs at least %llu bytes, %zu left", (unsigned) *v,
						  (unsigned long long) *v * min_item, r->len - r->pos);
	return 0;
}

/* Take n raw bytes. */
int
sl_sf_bytes(sf *s, rd *r, size_t n, const char *field, const uint8_t **p)
{
	if (rd_need(s, r, n, field))
		return -1;
	*p = r->p + r->pos;
	r->pos += n;
	return 0;
}

/* Read a Java boolean (any nonzero byte is true). */
int
sl_sf_bool(sf *s, rd *r, const char *field, int *v)
{
	uint8_t		b;

	if (sl_sf_u8(s, r, field, &b))
		return -1;
	*v = b != 0;
	return 0;
}

/* Decompress a zstd block of exactly raw bytes into dst (no checksum). */
int
sl_sf_unzstd(sf *s, const rd *r, size_t at, const char *field, const uint8_t *src, size_t clen,
	   uint8_t *dst, size_t raw)
{
	size_t		n;

	if (clen == 0 && raw == 0)
		return 0;
	n = sl_zstd_decompress(dst, raw, src, clen);
	if (ZSTD_isError(n))
		return sl_sf_fail(s, r, at, SL_ERR_FORMAT, field, "zstd data declared as %zu raw bytes: %s",
						  raw, ZSTD_getErrorName(n));
	if (n != raw)
		return sl_sf_fail(s, r, at, SL_ERR_FORMAT, field,
						  "zstd data decompresses to %zu bytes, the file declares %zu", n, raw);
	return 0;
}

/*
 * The head of a zstd block "i32 compressed length, i32 raw length,
 * frame(s)": its compressed bytes (*src, *clen) and a buffer for its raw
 * ones (*dst, *raw), nothing decompressed. The raw size is capped (cap per
 * block, and every block of the file together by max_value_raw) before
 * anything is allocated. In a chunk (arena != NULL) the buffer lives in the
 * chunk arena, else until the read ends.
 */
static int
zblock_head(sf *s, rd *r, const char *field, size_t cap, sl_arena *arena, size_t *at,
			const uint8_t **src, uint32_t *clen, uint8_t **dst, uint32_t *raw)
{
	size_t		at_raw;

	if (sl_sf_len(s, r, field, at, clen) || sl_sf_len(s, r, field, &at_raw, raw))
		return -1;
	if (*raw > cap)
		return sl_sf_fail(s, r, at_raw, SL_ERR_LIMIT, field,
						  "declares %u raw bytes, more than the cap of %zu", (unsigned) *raw, cap);
	if (s->raw_total + *raw > s->lim->max_value_raw)
		return sl_sf_fail(s, r, at_raw, SL_ERR_LIMIT, field,
						  "the file's decompressed data would exceed the world size cap of %zu bytes",
						  s->lim->max_value_raw);
	if (sl_sf_bytes(s, r, *clen, field, src))
		return -1;
	s->raw_total += *raw;
	if (arena)
		*dst = sl_arena_alloc(arena, *raw ? *raw : 1, s->err);
	else
	{
		if (s->nblocks == (int) (sizeof(s->blocks) / sizeof(s->blocks[0])))
			return sl_fail(s->err, SL_ERR_INVALID, "slime file: too many blocks");
		*dst = sl_alloc_err(*raw ? *raw : 1, s->err);
		if (*dst)
			s->blocks[s->nblocks++] = *dst;
	}
	return *dst == NULL ? -1 : 0;
}

/* Read a zstd block "i32 compressed length, i32 raw length, frame(s)". */
int
sl_sf_zblock(sf *s, rd *r, const char *field, size_t cap, sl_arena *arena,
			 const uint8_t **data, size_t *raw)
{
	size_t		at;
	uint32_t	clen,
				rlen;
	const uint8_t *src;
	uint8_t    *dst;

	if (zblock_head(s, r, field, cap, arena, &at, &src, &clen, &dst, &rlen) ||
		sl_sf_unzstd(s, r, at, field, src, clen, dst, rlen))
		return -1;
	*data = dst;
	*raw = rlen;
	return 0;
}

/*
 * Read a zstd block's head (sl_sf_zblock) whose frames are decompressed
 * later, one by one (sl_sf_unzstd): its compressed bytes, at *at, and the
 * buffer their raw bytes go to.
 */
int
sl_sf_zblock_lazy(sf *s, rd *r, const char *field, size_t cap, size_t *at,
				  const uint8_t **src, size_t *clen, uint8_t **dst, size_t *raw)
{
	uint32_t	c,
				n;

	if (zblock_head(s, r, field, cap, NULL, at, src, &c, dst, &n))
		return -1;
	*clen = c;
	*raw = n;
	return 0;
}

/* Parse an NBT document that must be a compound (ASP: BinaryTagIO reads a compound). */
int
sl_sf_parse_doc(sf *s, const rd *r, size_t at, const char *field, const uint8_t *p, size_t len,
				const sl_limits *lim, sl_arena *a, sl_nbt **out)
{
	size_t		used = 0;
	sl_nbt	   *root = NULL;

	if (len > lim->max_chunk_raw)
		return sl_sf_fail(s, r, at, SL_ERR_LIMIT, field,
						  "NBT of %zu bytes exceeds the document size cap of %zu", len, lim->max_chunk_raw);
	if (sl_nbt_parse(p, len, lim, a, &root, &used, s->err))
	{
		char		msg[SL_ERRMSG_LEN];

		memcpy(msg, s->err->msg, sizeof(msg));
		msg[sizeof(msg) - 1] = '\0';
		return sl_sf_fail(s, r, at, s->err->code == SL_ERR_LIMIT ? SL_ERR_LIMIT : SL_ERR_FORMAT,
						  field, "%s", msg);
	}
	if (root->type != SL_TAG_COMPOUND)
		return sl_sf_fail(s, r, at, SL_ERR_FORMAT, field, "NBT root is a %s, not a compound",
						  sl_nbt_type_name(root->type));
	/* bytes after the document inside its length are ignored, as ASP does */
	*out = root;
	return 0;
}

/* Read a length-prefixed NBT compound ("i32 length, NBT"); length 0 or an empty one: NULL. */
int
sl_sf_doc(sf *s, rd *r, const char *field, sl_nbt **out)
{
	/*
	 * ASP writes an empty compound as length 0 and reads length 0 as an empty
	 * compound: the two are the same.
	 */
	if (sl_sf_doc_any(s, r, field, out))
		return -1;
	if (*out && (*out)->v.comp.count == 0)
		*out = NULL;
	return 0;
}

/* Read a length-prefixed NBT compound, keeping an empty one (palette entries: list items). */
int
sl_sf_doc_any(sf *s, rd *r, const char *field, sl_nbt **out)
{
	size_t		at;
	uint32_t	n;
	const uint8_t *p;

	*out = NULL;
	if (sl_sf_len(s, r, field, &at, &n) || sl_sf_bytes(s, r, n, field, &p))
		return -1;
	if (n == 0)
		return 0;
	if (sl_sf_parse_doc(s, r, at, field, p, n, s->lim, &s->ca, out))
		return -1;
	if (s->ca.used / 8 > s->lim->max_chunk_raw)
		return sl_sf_fail(s, r, at, SL_ERR_LIMIT, field,
						  "the chunk's NBT needs more than %zu bytes of memory",
						  s->lim->max_chunk_raw * 8);
	return 0;
}

/* ---- trees ---- */

/* Make an empty node of a type and name in arena a. */
sl_nbt *
sl_sf_node(sf *s, sl_arena *a, int type, const char *name)
{
	sl_nbt	   *n = sl_arena_alloc(a, sizeof(sl_nbt), s->err);

	if (n == NULL)
		return NULL;
	memset(n, 0, sizeof(*n));
	n->type = (uint8_t) type;
	n->name = name;
	n->name_len = (uint16_t) strlen(name);
	return n;
}

/* Append a child to a compound or an item to a list (capacity grows by doubling). */
int
sl_sf_add(sf *s, sl_arena *a, sl_nbt *parent, sl_nbt *child)
{
	uint32_t   *count;
	sl_nbt	 ***items;

	if (child == NULL)
		return -1;
	if (parent->type == SL_TAG_LIST)
	{
		count = &parent->v.list.count;
		items = &parent->v.list.items;
	}
	else
	{
		count = &parent->v.comp.count;
		items = &parent->v.comp.items;
	}
	if (*count == 0 || (*count >= 4 && (*count & (*count - 1)) == 0))
	{
		uint32_t	cap = *count ? *count * 2 : 4;
		sl_nbt	  **n = sl_arena_alloc(a, cap * sizeof(sl_nbt *), s->err);

		if (n == NULL)
			return -1;
		if (*count)
			memcpy(n, *items, *count * sizeof(sl_nbt *));
		*items = n;
	}
	(*items)[(*count)++] = child;
	return 0;
}

/* Make an integer tag of a type (byte, short, int or long). */
sl_nbt *
sl_sf_int(sf *s, sl_arena *a, const char *name, int64_t v, int type)
{
	sl_nbt	   *n = sl_sf_node(s, a, type, name);

	if (n)
		n->v.i = v;
	return n;
}

/* Make a string tag. */
sl_nbt *
sl_sf_string(sf *s, sl_arena *a, const char *name, const char *v)
{
	sl_nbt	   *n = sl_sf_node(s, a, SL_TAG_STRING, name);

	if (n)
	{
		n->v.str.s = v;
		n->v.str.len = (uint16_t) strlen(v);
	}
	return n;
}

/* Make an array tag over raw big-endian elements. */
sl_nbt *
sl_sf_array(sf *s, sl_arena *a, int type, const char *name, const uint8_t *data, uint32_t count)
{
	sl_nbt	   *n = sl_sf_node(s, a, type, name);

	if (n)
	{
		n->v.arr.data = data;
		n->v.arr.count = count;
	}
	return n;
}

/* Copy a tag under another name. */
sl_nbt *
sl_sf_rename(sf *s, sl_arena *a, const sl_nbt *src, const char *name)
{
	sl_nbt	   *n = sl_arena_alloc(a, sizeof(sl_nbt), s->err);

	if (n == NULL)
		return NULL;
	*n = *src;
	n->name = name;
	n->name_len = (uint16_t) strlen(name);
	return n;
}

/* Make an empty list (element type End, as Minecraft and adventure write it). */
sl_nbt *
sl_sf_list(sf *s, sl_arena *a, const char *name)
{
	sl_nbt	   *n = sl_sf_node(s, a, SL_TAG_LIST, name);

	if (n)
		n->v.list.elem_type = SL_TAG_END;
	return n;
}

/* Add child to parent when child is not NULL (NULL: nothing to add, no error). */
int
sl_sf_add_opt(sf *s, sl_arena *a, sl_nbt *parent, sl_nbt *child)
{
	return child ? sl_sf_add(s, a, parent, child) : 0;
}

/* ---- chunk documents to the builder ---- */

/* Serialize a document tree and hand it to the builder as component comp. */
int
sl_sf_emit(sf *s, int comp, const sl_nbt *root)
{
	sl_buf		out = {0};

	if (sl_nbt_write(root, &out, s->err))
	{
		sl_buf_free(&out);
		sl_err_prefix(s->err, "slime file v%d: chunk (%d,%d)", s->version, s->cx, s->cz);
		return -1;
	}
	if (out.len > s->lim->max_chunk_raw)
	{
		sl_buf_free(&out);
		return sl_fail(s->err, SL_ERR_LIMIT,
					   "slime file v%d: chunk (%d,%d): its %s document of %zu bytes exceeds the chunk size cap of %zu",
					   s->version, s->cx, s->cz, comp == SL_COMP_REGION ? "region" :
					   comp == SL_COMP_ENTITIES ? "entities" : "POI", out.len, s->lim->max_chunk_raw);
	}
	if (sl_builder_add(s->b, comp, s->cx, s->cz, 0, out.data, out.len, 1, s->err))
	{
		sl_buf_free(&out);
		return -1;
	}
	if (s->b->total > s->lim->max_value_raw)
		return sl_fail(s->err, SL_ERR_LIMIT,
					   "slime file v%d: the chunks read exceed the world size cap of %zu bytes",
					   s->version, s->lim->max_value_raw);
	return 0;
}

/* Emit a 1.17+ chunk's entities as an entities/ document {DataVersion, Position, Entities}. */
int
sl_sf_emit_entities(sf *s, sl_nbt *list)
{
	/* Nothing is emitted when there are none. */
	sl_nbt	   *root;
	uint8_t    *pos;

	if (list == NULL || list->v.list.count == 0)
		return 0;
	root = sl_sf_node(s, &s->ca, SL_TAG_COMPOUND, "");
	pos = sl_arena_alloc(&s->ca, 8, s->err);
	if (root == NULL || pos == NULL)
		return -1;
	sl_put_u32be(pos, (uint32_t) s->cx);
	sl_put_u32be(pos + 4, (uint32_t) s->cz);
	if ((s->dv != SL_NO_DV && sl_sf_add(s, &s->ca, root, sl_sf_int(s, &s->ca, "DataVersion", s->dv, SL_TAG_INT))) ||
		sl_sf_add(s, &s->ca, root, sl_sf_array(s, &s->ca, SL_TAG_INT_ARRAY, "Position", pos, 2)) ||
		sl_sf_add(s, &s->ca, root, sl_sf_rename(s, &s->ca, list, "Entities")))
		return -1;
	return sl_sf_emit(s, SL_COMP_ENTITIES, root);
}

/* Tell whether this world keeps entities in entities/ documents. */
int
sl_sf_entity_files(const sf *s)
{
	return s->dv != SL_NO_DV && s->dv >= SL_DV_ENTITY_FILES;
}

/* Add the items of a list to a counter of the report. */
void
sl_sf_count_list(uint64_t *counter, const sl_nbt *list)
{
	if (list && list->type == SL_TAG_LIST)
		*counter += list->v.list.count;
}

/* ---- world-level tile entities and entities (v1-v10) ---- */

/* Convert a double as Java's (int) does: NaN 0, saturating. */
static int32_t
java_d2i(double d)
{
	if (isnan(d))
		return 0;
	if (d >= 2147483647.0)
		return INT32_MAX;
	if (d <= -2147483648.0)
		return INT32_MIN;
	return (int32_t) d;
}

/* Read a number tag as Java's NumberBinaryTag.intValue() / doubleValue() give it. */
static int
num_value(const sl_nbt *n, double *d, int32_t *i)
{
	if (n == NULL)
		return 0;
	switch (n->type)
	{
		case SL_TAG_BYTE:
		case SL_TAG_SHORT:
		case SL_TAG_INT:
		case SL_TAG_LONG:
			*d = (double) n->v.i;
			*i = (int32_t) (uint32_t) (uint64_t) n->v.i;
			return 1;
		case SL_TAG_FLOAT:
			*d = n->v.f;
			*i = java_d2i(n->v.f);
			return 1;
		case SL_TAG_DOUBLE:
			*d = n->v.d;
			*i = java_d2i(n->v.d);
			return 1;
		default:
			return 0;
	}
}

/* Get element i of a list of numbers as a double (0 when absent, as getDouble gives). */
static double
list_double(const sl_nbt *list, uint32_t i)
{
	double		d = 0;
	int32_t		n;

	if (list == NULL || list->type != SL_TAG_LIST || i >= list->v.list.count ||
		!num_value(list->v.list.items[i], &d, &n))
		return 0;
	return d;
}

/* Floor as ASP v1_9 does: (int) cast, minus one for negative non-integers (Java int overflow). */
static int32_t
asp_floor(double d)
{
	int32_t		f = java_d2i(d);
	uint64_t	bits;

	if ((double) f == d)
		return f;
	memcpy(&bits, &d, sizeof(bits));
	return (int32_t) ((uint32_t) f - (uint32_t) (bits >> 63));
}

/* Order placed items by chunk, then by their place in the file's list. */
static int
cmp_placed(const void *a, const void *b)
{
	const placed *pa = a;
	const placed *pb = b;

	if (pa->x != pb->x)
		return pa->x < pb->x ? -1 : 1;
	if (pa->z != pb->z)
		return pa->z < pb->z ? -1 : 1;
	return pa->index < pb->index ? -1 : pa->index > pb->index;
}

/* Place the compound list named name of a world-level document in chunks. */
int
sl_sf_place_list(sf *s, const rd *r, size_t at, const char *field, const sl_nbt *doc,
				 const char *name, int entities, placed **out, size_t *n)
{
	/*
	 * The document is {tiles: [...]} or {entities: [...]}: tile entities go by
	 * their x and z ints >> 4, entities by Pos (v1-v9: floor(Pos) >> 4; v10:
	 * (int) Pos >> 4).
	 */
	const sl_nbt *list = sl_nbt_child(doc, name);

	*out = NULL;
	*n = 0;
	if (list == NULL || list->type != SL_TAG_LIST || list->v.list.count == 0)
		return 0;
	if (list->v.list.elem_type != SL_TAG_COMPOUND)
		return sl_sf_fail(s, r, at, SL_ERR_FORMAT, field, "list \"%s\" holds %s tags, not compounds",
						  name, sl_nbt_type_name(list->v.list.elem_type));
	*out = sl_arena_alloc(&s->wa, list->v.list.count * sizeof(placed), s->err);
	if (*out == NULL)
		return -1;
	for (uint32_t i = 0; i < list->v.list.count; i++)
	{
		sl_nbt	   *item = list->v.list.items[i];
		placed	   *p = &(*out)[i];
		double		d;
		int32_t		x = 0,
					z = 0;

		if (entities)
		{
			const sl_nbt *pos = sl_nbt_child(item, "Pos");
			double		px = list_double(pos, 0),
						pz = list_double(pos, 2);

			if (s->version >= 10)
			{
				x = java_d2i(px);
				z = java_d2i(pz);
			}
			else
			{
				x = asp_floor(px);
				z = asp_floor(pz);
			}
		}
		else
		{
			(void) num_value(sl_nbt_child(item, "x"), &d, &x);
			(void) num_value(sl_nbt_child(item, "z"), &d, &z);
		}
		p->x = x >> 4;
		p->z = z >> 4;
		p->index = i;
		p->item = item;
	}
	qsort(*out, list->v.list.count, sizeof(placed), cmp_placed);
	*n = list->v.list.count;
	return 0;
}

/* Make the run of placed items of chunk (x,z) a list node named name. */
sl_nbt *
sl_sf_chunk_list(sf *s, placed *all, size_t n, int32_t x, int32_t z, const char *name,
				 uint32_t *first)
{
	size_t		lo = 0,
				hi = n;
	size_t		end;
	sl_nbt	   *list = sl_sf_list(s, &s->ca, name);
	sl_nbt	  **items;

	if (list == NULL)
		return NULL;
	while (lo < hi)
	{
		size_t		mid = (lo + hi) / 2;

		if (all[mid].x < x || (all[mid].x == x && all[mid].z < z))
			lo = mid + 1;
		else
			hi = mid;
	}
	end = lo;
	while (end < n && all[end].x == x && all[end].z == z)
		end++;
	if (first)
		*first = (uint32_t) lo;
	if (end == lo)
		return list;
	items = sl_arena_alloc(&s->ca, (end - lo) * sizeof(sl_nbt *), s->err);
	if (items == NULL)
		return NULL;
	for (size_t i = lo; i < end; i++)
	{
		items[i - lo] = all[i].item;
		all[i].item = NULL;		/* taken: what stays set is an orphan */
	}
	list->v.list.elem_type = SL_TAG_COMPOUND;
	list->v.list.count = (uint32_t) (end - lo);
	list->v.list.items = items;
	return list;
}

/* ---- the world compound ---- */

/* Get an int property of extra.properties, when it is an int tag. */
static int
prop_int(const sl_nbt *extra, const char *name, int *out)
{
	const sl_nbt *p = sl_nbt_child(sl_nbt_child(extra, "properties"), name);

	if (p == NULL || p->type != SL_TAG_INT)
		return 0;
	*out = (int) p->v.i;
	return 1;
}

/* Tell whether extra.properties.environment names the nether or the end. */
static int
prop_low_world(const sl_nbt *extra)
{
	const sl_nbt *p = sl_nbt_child(sl_nbt_child(extra, "properties"), "environment");
	char		v[16];

	if (p == NULL || p->type != SL_TAG_STRING || p->v.str.len >= sizeof(v))
		return 0;
	for (uint16_t i = 0; i < p->v.str.len; i++)
		v[i] = (char) (p->v.str.s[i] >= 'A' && p->v.str.s[i] <= 'Z' ?
					   p->v.str.s[i] + 32 : p->v.str.s[i]);
	v[p->v.str.len] = '\0';
	return strcmp(v, "nether") == 0 || strcmp(v, "the_end") == 0;
}

/* Give a v10+ world's section range (chunkSectionMin/Max properties, else the dimension's). */
void
sl_sf_section_range(const sl_nbt *extra, int *min, int *max)
{
	/*
	 * Without the properties: nether and end 0..15, otherwise -4..19 (ASP's
	 * defaults).
	 */
	int			low = prop_low_world(extra);

	if (!prop_int(extra, "chunkSectionMin", min))
		*min = low ? 0 : -4;
	if (!prop_int(extra, "chunkSectionMax", max))
		*max = low ? 15 : 19;
}

/* Give the DataVersion AdvancedSlimePaper gives a v6-v9 world version byte. */
int32_t
sl_slimefile_world_dv(int world_version)
{
	static const int32_t dv[9] = {SL_NO_DV, 99, 184, 922, 1631, 1976, 2586, 2730, 2975};

	return world_version >= 1 && world_version <= 8 ? dv[world_version] : SL_NO_DV;
}

/* Build and set the world compound {slime: {...}}. */
int
sl_sf_set_world(sf *s, const int32_t *bounds, sl_nbt *extra, sl_nbt *maps)
{
	sl_nbt	   *root = sl_sf_node(s, &s->wa, SL_TAG_COMPOUND, "");
	sl_nbt	   *sl = sl_sf_node(s, &s->wa, SL_TAG_COMPOUND, "slime");
	sl_buf		out = {0};
	int			rc;

	if (root == NULL || sl == NULL || sl_sf_add(s, &s->wa, root, sl) ||
		sl_sf_add(s, &s->wa, sl, sl_sf_int(s, &s->wa, "version", s->version, SL_TAG_BYTE)))
		return -1;
	if (s->wv_recorded && sl_sf_add(s, &s->wa, sl, sl_sf_int(s, &s->wa, "worldVersion", s->wv, SL_TAG_BYTE)))
		return -1;
	if (s->dv != SL_NO_DV && sl_sf_add(s, &s->wa, sl, sl_sf_int(s, &s->wa, "DataVersion", s->dv, SL_TAG_INT)))
		return -1;
	if (s->version >= 13 && sl_sf_add(s, &s->wa, sl, sl_sf_int(s, &s->wa, "flags", (int8_t) s->flags, SL_TAG_BYTE)))
		return -1;
	if (bounds)
	{
		uint8_t    *b = sl_arena_alloc(&s->wa, 16, s->err);

		if (b == NULL)
			return -1;
		for (int i = 0; i < 4; i++)
			sl_put_u32be(b + 4 * i, (uint32_t) bounds[i]);
		if (sl_sf_add(s, &s->wa, sl, sl_sf_array(s, &s->wa, SL_TAG_INT_ARRAY, "bounds", b, 4)))
			return -1;
	}
	if (extra && sl_sf_add(s, &s->wa, sl, sl_sf_rename(s, &s->wa, extra, "extra")))
		return -1;
	if (maps && sl_sf_add(s, &s->wa, sl, sl_sf_rename(s, &s->wa, maps, "maps")))
		return -1;
	if (s->orphans && s->orphans->v.list.count && sl_sf_add(s, &s->wa, sl, s->orphans))
		return -1;
	if (sl_nbt_write(root, &out, s->err))
	{
		sl_buf_free(&out);
		return -1;
	}
	if (out.len > s->lim->max_chunk_raw)
		rc = sl_fail(s->err, SL_ERR_LIMIT,
					 "slime file v%d: its world data (%zu bytes of NBT) exceeds the document size cap of %zu",
					 s->version, out.len, s->lim->max_chunk_raw);
	else
		rc = sl_builder_set_world(s->b, out.data, out.len, s->err);
	sl_buf_free(&out);
	return rc;
}

/* Gather the placed items no chunk took into the orphan list. */
int
sl_sf_collect_orphans(sf *s, placed *all, size_t n, int tiles, const rd *r, size_t at)
{
	for (size_t i = 0; i < n; i++)
	{
		if (all[i].item == NULL)
			continue;
		if (tiles)
			/* ASP: CorruptedWorldException */
			return sl_sf_fail(s, r, at, SL_ERR_FORMAT, "tile entities",
							  "tile entity %u lies in chunk (%d,%d), which the file does not hold",
							  (unsigned) all[i].index, all[i].x, all[i].z);
		if (s->orphans == NULL && (s->orphans = sl_sf_list(s, &s->wa, "orphanEntities")) == NULL)
			return -1;
		s->orphans->v.list.elem_type = SL_TAG_COMPOUND;
		if (sl_sf_add(s, &s->wa, s->orphans, all[i].item))
			return -1;
		s->info->orphan_entities++;
	}
	return 0;
}

/* Parse a world-level document of a zstd block (empty block: NULL). */
int
sl_sf_world_doc(sf *s, const char *field, const uint8_t *p, size_t n, sl_nbt **out)
{
	rd			sub;

	*out = NULL;
	if (n == 0)
		return 0;
	sub.p = p;
	sub.len = n;
	sub.pos = 0;
	sub.area = field;
	if (sl_sf_parse_doc(s, &sub, 0, field, p, n, &s->doc_lim, &s->wa, out))
		return -1;
	if ((*out)->v.comp.count == 0)
		*out = NULL;
	return 0;
}

/* Free the chunk arena, keeping the memory caps honest. */
int
sl_sf_chunk_done(sf *s)
{
	sl_arena_free(&s->ca);
	s->in_chunk = 0;
	sl_interrupt();
	return 0;
}
