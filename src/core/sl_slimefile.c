/*
 * sl_slimefile.c - slime files in (versions 1..13) and out (version 13).
 *
 * Reading: the file's header and zstd blocks are read with every length
 * checked against what is left; each chunk becomes vanilla chunk NBT built
 * as a tree in a per-chunk arena, whose leaves point into the decompressed
 * blocks (light arrays, block arrays and the NBT documents the file embeds
 * are written out unchanged). Writing: two passes over the value's chunks,
 * the first to check that a version-13 file can hold them and to settle the
 * DataVersion, flags and section range, the second to serialize.
 *
 * The layouts are those of AdvancedSlimePaper's readers and writer
 * (core/.../serialization/slime/SlimeSerializer.java, reader/impl/v1_9,
 * v10, v11, v12, v13) and of the original Hypixel format (Minikloon's
 * "Slime World Format" gist); doc/format.md, "Slime files", lists them.
 */
#include "sl_slimefile.h"
#include "sl_chunk.h"
#include "sl_nbt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

/* ======================================================================
 * Reading
 * ====================================================================== */

/* A cursor over the file or over one decompressed block of it. */
typedef struct rd
{
	const uint8_t *p;
	size_t		len;
	size_t		pos;
	const char *area;			/* "file", "chunk data", ... for messages */
} rd;

/* Tile entities or entities of the whole world (v1-v10), sorted by chunk. */
typedef struct placed
{
	int32_t		x;
	int32_t		z;
	uint32_t	index;			/* position in the file's list */
	sl_nbt	   *item;
} placed;

typedef struct sf
{
	const sl_limits *lim;
	sl_limits	doc_lim;		/* for documents covering the whole world */
	sl_err	   *err;
	sl_builder *b;
	sl_slimefile_info *info;
	int			version;
	int			wv;				/* world version (v1-v3: 1, pre-1.13), -1 none */
	int			wv_recorded;	/* the file holds it (v4+) */
	int32_t		dv;				/* chunk DataVersion, SL_NO_DV none */
	int			flags;
	int			sec_min;		/* v10+: section Y of array index 0 */
	int			sec_max;
	sl_arena	wa;				/* world-level trees */
	sl_arena	ca;				/* the chunk being read */
	uint64_t	raw_total;		/* decompressed bytes so far */
	int			in_chunk;
	int32_t		cx;
	int32_t		cz;
	uint8_t    *blocks[8];		/* decompressed blocks, freed at the end */
	int			nblocks;
	placed	   *tiles;
	size_t		ntiles;
	placed	   *ents;
	size_t		nents;
	sl_nbt	   *orphans;		/* list of entities whose chunk is absent */
} sf;

static int	rd_fail(sf *s, const rd *r, size_t at, sl_code code, const char *field,
					const char *fmt,...) __attribute__((format(printf, 6, 7)));

/* Fail with "<chunk>: <field> at offset N of the <area>: <detail>". */
static int
rd_fail(sf *s, const rd *r, size_t at, sl_code code, const char *field, const char *fmt,...)
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
		return rd_fail(s, r, r->pos, SL_ERR_FORMAT, field, "needs %zu bytes, %zu left",
					   n, r->len - r->pos);
	return 0;
}

static int
rd_u8(sf *s, rd *r, const char *field, uint8_t *v)
{
	if (rd_need(s, r, 1, field))
		return -1;
	*v = r->p[r->pos++];
	return 0;
}

static int
rd_u16(sf *s, rd *r, const char *field, uint16_t *v)
{
	if (rd_need(s, r, 2, field))
		return -1;
	*v = sl_get_u16be(r->p + r->pos);
	r->pos += 2;
	return 0;
}

static int
rd_i32(sf *s, rd *r, const char *field, int32_t *v)
{
	if (rd_need(s, r, 4, field))
		return -1;
	*v = (int32_t) sl_get_u32be(r->p + r->pos);
	r->pos += 4;
	return 0;
}

/* A non-negative i32 length or count; *at gets its offset. */
static int
rd_len(sf *s, rd *r, const char *field, size_t *at, uint32_t *v)
{
	int32_t		n;

	*at = r->pos;
	if (rd_i32(s, r, field, &n))
		return -1;
	if (n < 0)
		return rd_fail(s, r, *at, SL_ERR_FORMAT, field, "negative length or count %d", (int) n);
	*v = (uint32_t) n;
	return 0;
}

/* A count of items each taking at least min_item bytes. */
static int
rd_count(sf *s, rd *r, const char *field, size_t min_item, uint32_t *v)
{
	size_t		at;

	if (rd_len(s, r, field, &at, v))
		return -1;
	if (min_item > 0 && *v > (r->len - r->pos) / min_item)
		return rd_fail(s, r, at, SL_ERR_FORMAT, field,
					   "count %u needs at least %llu bytes, %zu left", (unsigned) *v,
					   (unsigned long long) *v * min_item, r->len - r->pos);
	return 0;
}

/* n raw bytes. */
static int
rd_bytes(sf *s, rd *r, size_t n, const char *field, const uint8_t **p)
{
	if (rd_need(s, r, n, field))
		return -1;
	*p = r->p + r->pos;
	r->pos += n;
	return 0;
}

/* A Java boolean (any nonzero byte is true). */
static int
rd_bool(sf *s, rd *r, const char *field, int *v)
{
	uint8_t		b;

	if (rd_u8(s, r, field, &b))
		return -1;
	*v = b != 0;
	return 0;
}

/* Decompress a zstd block of exactly raw bytes into dst (no checksum). */
static int
unzstd(sf *s, const rd *r, size_t at, const char *field, const uint8_t *src, size_t clen,
	   uint8_t *dst, size_t raw)
{
	size_t		n;

	if (clen == 0 && raw == 0)
		return 0;
	n = ZSTD_decompress(dst, raw, src, clen);
	if (ZSTD_isError(n))
		return rd_fail(s, r, at, SL_ERR_FORMAT, field, "zstd data declared as %zu raw bytes: %s",
					   raw, ZSTD_getErrorName(n));
	if (n != raw)
		return rd_fail(s, r, at, SL_ERR_FORMAT, field,
					   "zstd data decompresses to %zu bytes, the file declares %zu", n, raw);
	return 0;
}

/*
 * A zstd block "i32 compressed length, i32 raw length, frame(s)". The raw
 * size is capped (cap per block, and every block of the file together by
 * max_value_raw) before anything is allocated. In a chunk (arena != NULL)
 * the bytes live in the chunk arena, else until the read ends.
 */
static int
rd_zblock(sf *s, rd *r, const char *field, size_t cap, sl_arena *arena,
		  const uint8_t **data, size_t *raw)
{
	size_t		at;
	size_t		at_raw;
	uint32_t	clen,
				rlen;
	const uint8_t *src;
	uint8_t    *dst;

	if (rd_len(s, r, field, &at, &clen) || rd_len(s, r, field, &at_raw, &rlen))
		return -1;
	if (rlen > cap)
		return rd_fail(s, r, at_raw, SL_ERR_LIMIT, field,
					   "declares %u raw bytes, more than the cap of %zu", (unsigned) rlen, cap);
	if (s->raw_total + rlen > s->lim->max_value_raw)
		return rd_fail(s, r, at_raw, SL_ERR_LIMIT, field,
					   "the file's decompressed data would exceed the world size cap of %zu bytes",
					   s->lim->max_value_raw);
	if (rd_bytes(s, r, clen, field, &src))
		return -1;
	s->raw_total += rlen;
	if (arena)
		dst = sl_arena_alloc(arena, rlen ? rlen : 1, s->err);
	else
	{
		if (s->nblocks == (int) (sizeof(s->blocks) / sizeof(s->blocks[0])))
			return sl_fail(s->err, SL_ERR_INVALID, "slime file: too many blocks");
		dst = sl_alloc_err(rlen ? rlen : 1, s->err);
		if (dst)
			s->blocks[s->nblocks++] = dst;
	}
	if (dst == NULL)
		return -1;
	if (unzstd(s, r, at, field, src, clen, dst, rlen))
		return -1;
	*data = dst;
	*raw = rlen;
	return 0;
}

static int	rd_doc_any(sf *s, rd *r, const char *field, sl_nbt **out);

/* Parse an NBT document that must be a compound (ASP: BinaryTagIO reads a compound). */
static int
parse_doc(sf *s, const rd *r, size_t at, const char *field, const uint8_t *p, size_t len,
		  const sl_limits *lim, sl_arena *a, sl_nbt **out)
{
	size_t		used = 0;
	sl_nbt	   *root = NULL;

	if (len > lim->max_chunk_raw)
		return rd_fail(s, r, at, SL_ERR_LIMIT, field,
					   "NBT of %zu bytes exceeds the document size cap of %zu", len, lim->max_chunk_raw);
	if (sl_nbt_parse(p, len, lim, a, &root, &used, s->err))
	{
		char		msg[SL_ERRMSG_LEN];

		memcpy(msg, s->err->msg, sizeof(msg));
		msg[sizeof(msg) - 1] = '\0';
		return rd_fail(s, r, at, s->err->code == SL_ERR_LIMIT ? SL_ERR_LIMIT : SL_ERR_FORMAT,
					   field, "%s", msg);
	}
	if (root->type != SL_TAG_COMPOUND)
		return rd_fail(s, r, at, SL_ERR_FORMAT, field, "NBT root is a %s, not a compound",
					   sl_nbt_type_name(root->type));
	/* bytes after the document inside its length are ignored, as ASP does */
	*out = root;
	return 0;
}

/*
 * A length-prefixed NBT compound ("i32 length, NBT"). Length 0 gives NULL,
 * and so does an empty compound (ASP writes an empty compound as length 0
 * and reads length 0 as an empty compound: the two are the same).
 */
static int
rd_doc(sf *s, rd *r, const char *field, sl_nbt **out)
{
	if (rd_doc_any(s, r, field, out))
		return -1;
	if (*out && (*out)->v.comp.count == 0)
		*out = NULL;
	return 0;
}

/* The same, an empty compound kept (palette entries: list items). */
static int
rd_doc_any(sf *s, rd *r, const char *field, sl_nbt **out)
{
	size_t		at;
	uint32_t	n;
	const uint8_t *p;

	*out = NULL;
	if (rd_len(s, r, field, &at, &n) || rd_bytes(s, r, n, field, &p))
		return -1;
	if (n == 0)
		return 0;
	if (parse_doc(s, r, at, field, p, n, s->lim, &s->ca, out))
		return -1;
	if (s->ca.used / 8 > s->lim->max_chunk_raw)
		return rd_fail(s, r, at, SL_ERR_LIMIT, field,
					   "the chunk's NBT needs more than %zu bytes of memory",
					   s->lim->max_chunk_raw * 8);
	return 0;
}

/* ---- trees ---- */

static sl_nbt *
nb_new(sf *s, sl_arena *a, int type, const char *name)
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
static int
nb_add(sf *s, sl_arena *a, sl_nbt *parent, sl_nbt *child)
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

static sl_nbt *
nb_int(sf *s, sl_arena *a, const char *name, int64_t v, int type)
{
	sl_nbt	   *n = nb_new(s, a, type, name);

	if (n)
		n->v.i = v;
	return n;
}

static sl_nbt *
nb_string(sf *s, sl_arena *a, const char *name, const char *v)
{
	sl_nbt	   *n = nb_new(s, a, SL_TAG_STRING, name);

	if (n)
	{
		n->v.str.s = v;
		n->v.str.len = (uint16_t) strlen(v);
	}
	return n;
}

/* An array tag over raw big-endian elements. */
static sl_nbt *
nb_arr(sf *s, sl_arena *a, int type, const char *name, const uint8_t *data, uint32_t count)
{
	sl_nbt	   *n = nb_new(s, a, type, name);

	if (n)
	{
		n->v.arr.data = data;
		n->v.arr.count = count;
	}
	return n;
}

/* A copy of a tag under another name. */
static sl_nbt *
nb_rename(sf *s, sl_arena *a, const sl_nbt *src, const char *name)
{
	sl_nbt	   *n = sl_arena_alloc(a, sizeof(sl_nbt), s->err);

	if (n == NULL)
		return NULL;
	*n = *src;
	n->name = name;
	n->name_len = (uint16_t) strlen(name);
	return n;
}

/* An empty list (element type End, as Minecraft and adventure write it). */
static sl_nbt *
nb_list(sf *s, sl_arena *a, const char *name)
{
	sl_nbt	   *n = nb_new(s, a, SL_TAG_LIST, name);

	if (n)
		n->v.list.elem_type = SL_TAG_END;
	return n;
}

/* Add child to parent when child is not NULL (NULL: nothing to add, no error). */
static int
nb_add_opt(sf *s, sl_arena *a, sl_nbt *parent, sl_nbt *child)
{
	return child ? nb_add(s, a, parent, child) : 0;
}

/* ---- chunk documents to the builder ---- */

/* Serialize a document tree and hand it to the builder as component comp. */
static int
emit(sf *s, int comp, const sl_nbt *root)
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

/*
 * The entities of a 1.17+ chunk as an entities/ document {DataVersion,
 * Position, Entities}, when there are any.
 */
static int
emit_entities(sf *s, sl_nbt *list)
{
	sl_nbt	   *root;
	uint8_t    *pos;

	if (list == NULL || list->v.list.count == 0)
		return 0;
	root = nb_new(s, &s->ca, SL_TAG_COMPOUND, "");
	pos = sl_arena_alloc(&s->ca, 8, s->err);
	if (root == NULL || pos == NULL)
		return -1;
	sl_put_u32be(pos, (uint32_t) s->cx);
	sl_put_u32be(pos + 4, (uint32_t) s->cz);
	if ((s->dv != SL_NO_DV && nb_add(s, &s->ca, root, nb_int(s, &s->ca, "DataVersion", s->dv, SL_TAG_INT))) ||
		nb_add(s, &s->ca, root, nb_arr(s, &s->ca, SL_TAG_INT_ARRAY, "Position", pos, 2)) ||
		nb_add(s, &s->ca, root, nb_rename(s, &s->ca, list, "Entities")))
		return -1;
	return emit(s, SL_COMP_ENTITIES, root);
}

/* Whether this world keeps entities in entities/ documents. */
static int
entity_files(const sf *s)
{
	return s->dv != SL_NO_DV && s->dv >= SL_DV_ENTITY_FILES;
}

/* Count entities in chunks for the report. */
static void
count_list(uint64_t *counter, const sl_nbt *list)
{
	if (list && list->type == SL_TAG_LIST)
		*counter += list->v.list.count;
}

/* ---- world-level tile entities and entities (v1-v10) ---- */

/* Java's (int) of a double: NaN 0, saturating. */
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

/* A number tag as Java's NumberBinaryTag.intValue() / doubleValue() give it. */
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

/* Element i of a list of numbers as a double (0 when absent, as getDouble gives). */
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

/* ASP v1_9 floor(): (int) cast, minus one for negative non-integers (Java int overflow). */
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

/*
 * The compound list named name of a world-level document ({tiles: [...]} or
 * {entities: [...]}), placed in chunks: tile entities by their x and z
 * ints >> 4, entities by Pos (v1-v9: floor(Pos) >> 4; v10: (int) Pos >> 4).
 */
static int
place_list(sf *s, const rd *r, size_t at, const char *field, const sl_nbt *doc,
		   const char *name, int entities, placed **out, size_t *n)
{
	const sl_nbt *list = sl_nbt_child(doc, name);

	*out = NULL;
	*n = 0;
	if (list == NULL || list->type != SL_TAG_LIST || list->v.list.count == 0)
		return 0;
	if (list->v.list.elem_type != SL_TAG_COMPOUND)
		return rd_fail(s, r, at, SL_ERR_FORMAT, field, "list \"%s\" holds %s tags, not compounds",
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

/* The run of placed items of chunk (x,z) as a list node named name. */
static sl_nbt *
chunk_list(sf *s, placed *all, size_t n, int32_t x, int32_t z, const char *name,
		   uint32_t *first)
{
	size_t		lo = 0,
				hi = n;
	size_t		end;
	sl_nbt	   *list = nb_list(s, &s->ca, name);
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

/* ---- v1-v9 chunks ---- */

/* Section bitmask bit i (java.util.BitSet.valueOf: little-endian bits). */
static int
bit(const uint8_t *mask, size_t i)
{
	return (mask[i >> 3] >> (i & 7)) & 1;
}

/* A light array behind a v5+ "has light" boolean (always there before v5); *out NULL when absent. */
static int
rd_light(sf *s, rd *r, const char *field, const char *name, sl_nbt **out)
{
	int			has = 1;
	const uint8_t *p;

	*out = NULL;
	if (s->version >= 5 && rd_bool(s, r, field, &has))
		return -1;
	if (!has)
		return 0;
	if (rd_bytes(s, r, SL_SLIMEFILE_LIGHT, field, &p))
		return -1;
	*out = nb_arr(s, &s->ca, SL_TAG_BYTE_ARRAY, name, p, SL_SLIMEFILE_LIGHT);
	return *out ? 0 : -1;
}

/* Sections of a pre-1.13 or 1.13-1.17 chunk (a 16-bit bitmask of sections 0..15). */
static int
rd_sections_old(sf *s, rd *r, sl_nbt *list)
{
	const uint8_t *mask;

	if (rd_bytes(s, r, 2, "section bitmask", &mask))
		return -1;
	list->v.list.elem_type = SL_TAG_COMPOUND;
	for (int y = 0; y < 16; y++)
	{
		sl_nbt	   *sec;
		sl_nbt	   *bl = NULL,
				   *sl = NULL;
		char		field[64];

		if (!bit(mask, (size_t) y))
			continue;
		sec = nb_new(s, &s->ca, SL_TAG_COMPOUND, "");
		if (sec == NULL || nb_add(s, &s->ca, sec, nb_int(s, &s->ca, "Y", y, SL_TAG_BYTE)))
			return -1;
		/* block light comes first in the file; the tag goes after the blocks */
		snprintf(field, sizeof(field), "section %d block light", y);
		if (rd_light(s, r, field, "BlockLight", &bl))
			return -1;
		if (s->wv >= 4)
		{
			uint32_t	npal,
						nlongs;
			sl_nbt	   *pal = nb_list(s, &s->ca, "Palette");
			const uint8_t *longs;

			snprintf(field, sizeof(field), "section %d palette length", y);
			if (pal == NULL || rd_count(s, r, field, 4, &npal))
				return -1;
			for (uint32_t i = 0; i < npal; i++)
			{
				sl_nbt	   *entry;

				snprintf(field, sizeof(field), "section %d palette entry %u", y, (unsigned) i);
				if (rd_doc_any(s, r, field, &entry))
					return -1;
				if (entry == NULL)
					return rd_fail(s, r, r->pos - 4, SL_ERR_FORMAT, field, "empty (length 0)");
				pal->v.list.elem_type = SL_TAG_COMPOUND;
				if (nb_add(s, &s->ca, pal, entry))
					return -1;
			}
			snprintf(field, sizeof(field), "section %d block state count", y);
			if (rd_count(s, r, field, 8, &nlongs))
				return -1;
			snprintf(field, sizeof(field), "section %d block states", y);
			if (rd_bytes(s, r, (size_t) nlongs * 8, field, &longs) ||
				nb_add(s, &s->ca, sec, pal) ||
				nb_add(s, &s->ca, sec, nb_arr(s, &s->ca, SL_TAG_LONG_ARRAY, "BlockStates", longs, nlongs)))
				return -1;
		}
		else
		{
			const uint8_t *blocks,
					   *data;

			snprintf(field, sizeof(field), "section %d blocks", y);
			if (rd_bytes(s, r, 4096, field, &blocks))
				return -1;
			snprintf(field, sizeof(field), "section %d block data", y);
			if (rd_bytes(s, r, 2048, field, &data) ||
				nb_add(s, &s->ca, sec, nb_arr(s, &s->ca, SL_TAG_BYTE_ARRAY, "Blocks", blocks, 4096)) ||
				nb_add(s, &s->ca, sec, nb_arr(s, &s->ca, SL_TAG_BYTE_ARRAY, "Data", data, 2048)))
				return -1;
		}
		if (nb_add_opt(s, &s->ca, sec, bl))
			return -1;
		snprintf(field, sizeof(field), "section %d sky light", y);
		if (rd_light(s, r, field, "SkyLight", &sl) || nb_add_opt(s, &s->ca, sec, sl))
			return -1;
		if (s->version < 4)
		{
			uint16_t	n;
			const uint8_t *hb;

			snprintf(field, sizeof(field), "section %d HypixelBlocks3", y);
			if (rd_u16(s, r, field, &n) || rd_bytes(s, r, n, field, &hb))
				return -1;
			if (n > 0 &&
				nb_add(s, &s->ca, sec, nb_arr(s, &s->ca, SL_TAG_BYTE_ARRAY, "HypixelBlocks3", hb, n)))
				return -1;
		}
		if (nb_add(s, &s->ca, list, sec))
			return -1;
	}
	return 0;
}

/* The Status a converted 1.18+ chunk gets (ASP loads every slime chunk as full). */
static int
add_status(sf *s, sl_nbt *root)
{
	return nb_add(s, &s->ca, root, nb_string(s, &s->ca, "Status", "minecraft:full"));
}

/* One chunk of a v1-v9 file at (x,z). */
static int
rd_chunk_v1_9(sf *s, rd *r)
{
	sl_nbt	   *root = nb_new(s, &s->ca, SL_TAG_COMPOUND, "");
	sl_nbt	   *body;
	sl_nbt	   *heightmaps = NULL;
	sl_nbt	   *tiles,
			   *ents;
	int			modern = s->wv >= 8;

	if (root == NULL)
		return -1;
	if (s->dv != SL_NO_DV &&
		nb_add(s, &s->ca, root, nb_int(s, &s->ca, "DataVersion", s->dv, SL_TAG_INT)))
		return -1;
	if (modern)
		body = root;
	else if ((body = nb_new(s, &s->ca, SL_TAG_COMPOUND, "Level")) == NULL ||
			 nb_add(s, &s->ca, root, body))
		return -1;
	if (nb_add(s, &s->ca, body, nb_int(s, &s->ca, "xPos", s->cx, SL_TAG_INT)))
		return -1;
	if (!modern && nb_add(s, &s->ca, body, nb_int(s, &s->ca, "zPos", s->cz, SL_TAG_INT)))
		return -1;

	tiles = chunk_list(s, s->tiles, s->ntiles, s->cx, s->cz,
					   modern ? "block_entities" : "TileEntities", NULL);
	ents = chunk_list(s, s->ents, s->nents, s->cx, s->cz, "Entities", NULL);
	if (tiles == NULL || ents == NULL)
		return -1;
	count_list(&s->info->block_entities, tiles);
	count_list(&s->info->entities, ents);

	if (s->wv < 4)
	{
		const uint8_t *hm,
				   *biomes;
		sl_nbt	   *sections = nb_list(s, &s->ca, "Sections");

		if (sections == NULL || rd_bytes(s, r, 1024, "height map", &hm))
			return -1;
		if (s->version == 8)
		{
			int32_t		ignored;	/* SWM v8 wrote a biome length here for old worlds */

			if (rd_i32(s, r, "v8 biome array length", &ignored))
				return -1;
		}
		if (rd_bytes(s, r, 256, "biomes", &biomes) ||
			rd_sections_old(s, r, sections) ||
			nb_add(s, &s->ca, body, sections) ||
			nb_add(s, &s->ca, body, nb_arr(s, &s->ca, SL_TAG_BYTE_ARRAY, "Biomes", biomes, 256)) ||
			nb_add(s, &s->ca, body, nb_arr(s, &s->ca, SL_TAG_INT_ARRAY, "HeightMap", hm, 256)) ||
			nb_add(s, &s->ca, body, tiles) ||
			nb_add(s, &s->ca, body, ents))
			return -1;
		return emit(s, SL_COMP_REGION, root);
	}

	if (rd_doc(s, r, "height maps", &heightmaps))
		return -1;
	if (!modern)
	{
		uint32_t	nbiomes = 256;
		const uint8_t *biomes;
		sl_nbt	   *sections = nb_list(s, &s->ca, "Sections");

		if (sections == NULL || (s->version >= 8 && rd_count(s, r, "biome count", 4, &nbiomes)) ||
			rd_bytes(s, r, (size_t) nbiomes * 4, "biomes", &biomes) ||
			rd_sections_old(s, r, sections) ||
			nb_add(s, &s->ca, body, sections) ||
			nb_add(s, &s->ca, body, nb_arr(s, &s->ca, SL_TAG_INT_ARRAY, "Biomes", biomes, nbiomes)) ||
			(heightmaps && nb_add(s, &s->ca, body, nb_rename(s, &s->ca, heightmaps, "Heightmaps"))) ||
			nb_add(s, &s->ca, body, tiles))
			return -1;
		if (entity_files(s))
			return emit(s, SL_COMP_REGION, root) || emit_entities(s, ents);
		return nb_add(s, &s->ca, body, ents) || emit(s, SL_COMP_REGION, root);
	}

	/* ASWM's 1.18 layout (world version 0x08): sections by array index */
	{
		int32_t		min,
					max;
		uint32_t	count;
		size_t		at;
		sl_nbt	   *sections = nb_list(s, &s->ca, "sections");
		sl_nbt	   *side;
		uint8_t		seen[256];

		memset(seen, 0, sizeof(seen));
		if (sections == NULL || rd_i32(s, r, "min section Y", &min))
			return -1;
		at = r->pos;
		if (rd_i32(s, r, "max section Y", &max))
			return -1;
		if ((int64_t) max - min < 0 || (int64_t) max - min > 256 || min < -128 || max > 128)
			return rd_fail(s, r, at, SL_ERR_FORMAT, "max section Y",
						   "section range %d..%d is not one Minecraft can have", (int) min, (int) max);
		if (rd_count(s, r, "section count", 13, &count))
			return -1;
		if (count > 0)
			sections->v.list.elem_type = SL_TAG_COMPOUND;
		for (uint32_t i = 0; i < count; i++)
		{
			int32_t		idx;
			sl_nbt	   *sec = nb_new(s, &s->ca, SL_TAG_COMPOUND, "");
			sl_nbt	   *bl,
					   *sky;
			sl_nbt	   *bs,
					   *bi;
			char		field[64];

			snprintf(field, sizeof(field), "section %u index", (unsigned) i);
			at = r->pos;
			if (sec == NULL || rd_i32(s, r, field, &idx))
				return -1;
			if (idx < 0 || idx >= max - min)
				return rd_fail(s, r, at, SL_ERR_FORMAT, field, "index %d outside 0..%d",
							   (int) idx, (int) (max - min - 1));
			if (seen[idx])
				return rd_fail(s, r, at, SL_ERR_FORMAT, field, "section index %d appears twice", (int) idx);
			seen[idx] = 1;
			snprintf(field, sizeof(field), "section %d block light", (int) idx);
			if (rd_light(s, r, field, "BlockLight", &bl))
				return -1;
			snprintf(field, sizeof(field), "section %d block states", (int) idx);
			if (rd_doc(s, r, field, &bs))
				return -1;
			snprintf(field, sizeof(field), "section %d biomes", (int) idx);
			if (rd_doc(s, r, field, &bi))
				return -1;
			snprintf(field, sizeof(field), "section %d sky light", (int) idx);
			if (rd_light(s, r, field, "SkyLight", &sky))
				return -1;
			if (nb_add(s, &s->ca, sec, nb_int(s, &s->ca, "Y", min + idx, SL_TAG_BYTE)) ||
				(bs && nb_add(s, &s->ca, sec, nb_rename(s, &s->ca, bs, "block_states"))) ||
				(bi && nb_add(s, &s->ca, sec, nb_rename(s, &s->ca, bi, "biomes"))) ||
				nb_add_opt(s, &s->ca, sec, bl) ||
				nb_add_opt(s, &s->ca, sec, sky) ||
				nb_add(s, &s->ca, sections, sec))
				return -1;
		}
		side = nb_new(s, &s->ca, SL_TAG_COMPOUND, "slime");
		if (side == NULL ||
			nb_add(s, &s->ca, root, nb_int(s, &s->ca, "yPos", min, SL_TAG_INT)) ||
			nb_add(s, &s->ca, root, nb_int(s, &s->ca, "zPos", s->cz, SL_TAG_INT)) ||
			add_status(s, root) ||
			nb_add(s, &s->ca, root, sections) ||
			(heightmaps && nb_add(s, &s->ca, root, nb_rename(s, &s->ca, heightmaps, "Heightmaps"))) ||
			nb_add(s, &s->ca, root, tiles) ||
			nb_add(s, &s->ca, side, nb_int(s, &s->ca, "maxSectionY", max, SL_TAG_INT)) ||
			nb_add(s, &s->ca, root, side))
			return -1;
		return emit(s, SL_COMP_REGION, root) || emit_entities(s, ents);
	}
}

/* ---- v10-v13 chunks ---- */

/*
 * A per-chunk document that ASP reads as {name: [compounds]}: the list
 * itself when the document is exactly that (renamed to vanilla's key),
 * else the whole document kept verbatim under the chunk's "slime" compound.
 */
static int
split_doc(sf *s, sl_nbt *doc, const char *name, const char *vanilla, const char *raw_key,
		  sl_nbt **list, sl_nbt *side)
{
	*list = NULL;
	if (doc == NULL)
		return 0;
	if (doc->v.comp.count == 1 && doc->v.comp.items[0]->type == SL_TAG_LIST &&
		doc->v.comp.items[0]->name_len == strlen(name) &&
		memcmp(doc->v.comp.items[0]->name, name, strlen(name)) == 0)
	{
		*list = nb_rename(s, &s->ca, doc->v.comp.items[0], vanilla);
		return *list ? 0 : -1;
	}
	return nb_add(s, &s->ca, side, nb_rename(s, &s->ca, doc, raw_key));
}

/* The section light of v10-v12 (a boolean before each array) or v13 (flag byte). */
static int
rd_light_pair(sf *s, rd *r, int idx, sl_nbt **bl, sl_nbt **sky)
{
	int			has_bl,
				has_sky;
	const uint8_t *p;
	char		field[64];

	*bl = *sky = NULL;
	if (s->version >= 13)
	{
		uint8_t		flags;
		size_t		at = r->pos;

		snprintf(field, sizeof(field), "section %d flags", idx);
		if (rd_u8(s, r, field, &flags))
			return -1;
		if (flags & ~3)
			return rd_fail(s, r, at, SL_ERR_FORMAT, field, "unknown section flag bits 0x%02x", flags);
		has_bl = flags & 1;
		has_sky = (flags >> 1) & 1;
		/* the code writes and reads BLOCK light first, then SKY light */
		snprintf(field, sizeof(field), "section %d block light", idx);
		if (has_bl && rd_bytes(s, r, SL_SLIMEFILE_LIGHT, field, &p))
			return -1;
		if (has_bl && (*bl = nb_arr(s, &s->ca, SL_TAG_BYTE_ARRAY, "BlockLight", p, SL_SLIMEFILE_LIGHT)) == NULL)
			return -1;
		snprintf(field, sizeof(field), "section %d sky light", idx);
		if (has_sky && rd_bytes(s, r, SL_SLIMEFILE_LIGHT, field, &p))
			return -1;
		if (has_sky && (*sky = nb_arr(s, &s->ca, SL_TAG_BYTE_ARRAY, "SkyLight", p, SL_SLIMEFILE_LIGHT)) == NULL)
			return -1;
		return 0;
	}
	snprintf(field, sizeof(field), "section %d block light", idx);
	if (rd_bool(s, r, field, &has_bl) || (has_bl && rd_bytes(s, r, SL_SLIMEFILE_LIGHT, field, &p)))
		return -1;
	if (has_bl && (*bl = nb_arr(s, &s->ca, SL_TAG_BYTE_ARRAY, "BlockLight", p, SL_SLIMEFILE_LIGHT)) == NULL)
		return -1;
	snprintf(field, sizeof(field), "section %d sky light", idx);
	if (rd_bool(s, r, field, &has_sky) || (has_sky && rd_bytes(s, r, SL_SLIMEFILE_LIGHT, field, &p)))
		return -1;
	if (has_sky && (*sky = nb_arr(s, &s->ca, SL_TAG_BYTE_ARRAY, "SkyLight", p, SL_SLIMEFILE_LIGHT)) == NULL)
		return -1;
	return 0;
}

/* Sections of a v10+ chunk: array index i is section Y sec_min + i. */
static int
rd_sections_new(sf *s, rd *r, sl_nbt *list)
{
	uint32_t	count;
	size_t		at = r->pos;

	if (rd_count(s, r, "section count", s->version >= 13 ? 9 : 10, &count))
		return -1;
	if ((int64_t) count > (int64_t) s->sec_max - s->sec_min + 1)
		return rd_fail(s, r, at, SL_ERR_FORMAT, "section count",
					   "%u sections do not fit the world's section range %d..%d",
					   (unsigned) count, s->sec_min, s->sec_max);
	for (uint32_t i = 0; i < count; i++)
	{
		int			y = s->sec_min + (int) i;
		sl_nbt	   *bl,
				   *sky,
				   *bs,
				   *bi,
				   *sec;
		char		field[64];

		if (rd_light_pair(s, r, (int) i, &bl, &sky))
			return -1;
		snprintf(field, sizeof(field), "section %u block states", (unsigned) i);
		if (rd_doc(s, r, field, &bs))
			return -1;
		snprintf(field, sizeof(field), "section %u biomes", (unsigned) i);
		if (rd_doc(s, r, field, &bi))
			return -1;
		if (!bl && !sky && !bs && !bi)
			continue;			/* an empty slot (a gap this writer fills) */
		sec = nb_new(s, &s->ca, SL_TAG_COMPOUND, "");
		list->v.list.elem_type = SL_TAG_COMPOUND;
		if (sec == NULL ||
			nb_add(s, &s->ca, sec, nb_int(s, &s->ca, "Y", y, SL_TAG_BYTE)) ||
			(bs && nb_add(s, &s->ca, sec, nb_rename(s, &s->ca, bs, "block_states"))) ||
			(bi && nb_add(s, &s->ca, sec, nb_rename(s, &s->ca, bi, "biomes"))) ||
			nb_add_opt(s, &s->ca, sec, bl) ||
			nb_add_opt(s, &s->ca, sec, sky) ||
			nb_add(s, &s->ca, list, sec))
			return -1;
	}
	return 0;
}

/* A v11 zstd-compressed per-chunk document. */
static int
rd_zdoc(sf *s, rd *r, const char *field, sl_nbt **out)
{
	const uint8_t *raw;
	size_t		n;
	size_t		at = r->pos;
	rd			sub;

	*out = NULL;
	if (rd_zblock(s, r, field, s->lim->max_chunk_raw, &s->ca, &raw, &n))
		return -1;
	if (n == 0)
		return 0;
	sub.p = raw;
	sub.len = n;
	sub.pos = 0;
	sub.area = field;
	if (s->ca.used / 8 > s->lim->max_chunk_raw)
		return rd_fail(s, r, at, SL_ERR_LIMIT, field,
					   "the chunk's NBT needs more than %zu bytes of memory",
					   s->lim->max_chunk_raw * 8);
	if (parse_doc(s, &sub, 0, field, raw, n, s->lim, &s->ca, out))
		return -1;
	if ((*out)->v.comp.count == 0)
		*out = NULL;
	return 0;
}

/* One chunk of a v10-v13 file. */
static int
rd_chunk_new(sf *s, rd *r)
{
	int32_t		x,
				z;
	sl_nbt	   *root = nb_new(s, &s->ca, SL_TAG_COMPOUND, "");
	sl_nbt	   *side = nb_new(s, &s->ca, SL_TAG_COMPOUND, "slime");
	sl_nbt	   *sections = nb_list(s, &s->ca, "sections");
	sl_nbt	   *heightmaps = NULL,
			   *poi = NULL,
			   *bticks = NULL,
			   *fticks = NULL,
			   *tdoc = NULL,
			   *edoc = NULL,
			   *extra = NULL;
	sl_nbt	   *tiles = NULL,
			   *ents = NULL,
			   *blist = NULL,
			   *flist = NULL;
	sl_nbt	   *unknown = NULL;
	size_t		e_at = r->pos;	/* where the chunk's entities are (v10: the chunk) */

	if (root == NULL || side == NULL || sections == NULL ||
		rd_i32(s, r, "chunk x", &x) || rd_i32(s, r, "chunk z", &z))
		return -1;
	s->in_chunk = 1;
	s->cx = x;
	s->cz = z;
	if (s->version == 10 && rd_doc(s, r, "height maps", &heightmaps))
		return -1;
	if (rd_sections_new(s, r, sections))
		return -1;
	if (s->version >= 11 && rd_doc(s, r, "height maps", &heightmaps))
		return -1;
	if (s->version >= 13)
	{
		if ((s->flags & SL_SLIMEFILE_POI) && rd_doc(s, r, "POI sections", &poi))
			return -1;
		if ((s->flags & SL_SLIMEFILE_BLOCK_TICKS) && rd_doc(s, r, "block ticks", &bticks))
			return -1;
		if ((s->flags & SL_SLIMEFILE_FLUID_TICKS) && rd_doc(s, r, "fluid ticks", &fticks))
			return -1;
		for (int b = 3; b < 8; b++)
		{
			uint32_t	n;
			size_t		at;
			const uint8_t *p;

			if (!(s->flags & (1 << b)))
				continue;
			if (rd_len(s, r, "data of an unknown world flag", &at, &n) ||
				rd_bytes(s, r, n, "data of an unknown world flag", &p))
				return -1;
			if (unknown == NULL && (unknown = nb_list(s, &s->ca, "unknownData")) == NULL)
				return -1;
			unknown->v.list.elem_type = SL_TAG_BYTE_ARRAY;
			if (nb_add(s, &s->ca, unknown, nb_arr(s, &s->ca, SL_TAG_BYTE_ARRAY, "", p, n)))
				return -1;
		}
	}
	if (s->version == 11)
	{
		if (rd_zdoc(s, r, "tile entities", &tdoc))
			return -1;
		e_at = r->pos;
		if (rd_zdoc(s, r, "entities", &edoc))
			return -1;
	}
	else if (s->version >= 12)
	{
		if (rd_doc(s, r, "tile entities", &tdoc))
			return -1;
		e_at = r->pos;
		if (rd_doc(s, r, "entities", &edoc) || rd_doc(s, r, "chunk extra", &extra))
			return -1;
	}
	/* tile entities, entities, ticks: vanilla keys, or verbatim under "slime" */
	if (s->version == 10)
	{
		tiles = chunk_list(s, s->tiles, s->ntiles, x, z, "block_entities", NULL);
		ents = chunk_list(s, s->ents, s->nents, x, z, "Entities", NULL);
		if (tiles == NULL || ents == NULL)
			return -1;
	}
	else if (split_doc(s, tdoc, "tileEntities", "block_entities", "tileEntities", &tiles, side) ||
			 split_doc(s, edoc, "entities", "Entities", "entities", &ents, side))
		return -1;
	if (split_doc(s, bticks, "block_ticks", "block_ticks", "blockTicks", &blist, side) ||
		split_doc(s, fticks, "fluid_ticks", "fluid_ticks", "fluidTicks", &flist, side))
		return -1;
	count_list(&s->info->block_entities, tiles);
	count_list(&s->info->entities, ents);

	if (nb_add(s, &s->ca, root, nb_int(s, &s->ca, "DataVersion", s->dv, SL_TAG_INT)) ||
		nb_add(s, &s->ca, root, nb_int(s, &s->ca, "xPos", x, SL_TAG_INT)) ||
		nb_add(s, &s->ca, root, nb_int(s, &s->ca, "yPos", s->sec_min, SL_TAG_INT)) ||
		nb_add(s, &s->ca, root, nb_int(s, &s->ca, "zPos", z, SL_TAG_INT)) ||
		add_status(s, root) ||
		nb_add(s, &s->ca, root, sections) ||
		(heightmaps && nb_add(s, &s->ca, root, nb_rename(s, &s->ca, heightmaps, "Heightmaps"))) ||
		nb_add_opt(s, &s->ca, root, tiles) ||
		nb_add_opt(s, &s->ca, root, blist) ||
		nb_add_opt(s, &s->ca, root, flist))
		return -1;
	/* chunk extra: {ChunkBukkitValues: {...}} is Paper's chunk PDC at the root */
	if (extra && extra->v.comp.count == 1 && extra->v.comp.items[0]->type == SL_TAG_COMPOUND &&
		extra->v.comp.items[0]->name_len == 17 &&
		memcmp(extra->v.comp.items[0]->name, "ChunkBukkitValues", 17) == 0)
	{
		if (nb_add(s, &s->ca, root, extra->v.comp.items[0]))
			return -1;
	}
	else if (extra && nb_add(s, &s->ca, side, nb_rename(s, &s->ca, extra, "extra")))
		return -1;
	if (nb_add_opt(s, &s->ca, side, unknown) ||
		(side->v.comp.count && nb_add(s, &s->ca, root, side)) ||
		emit(s, SL_COMP_REGION, root))
		return -1;
	if (entity_files(s))
	{
		if (emit_entities(s, ents))
			return -1;
	}
	else if (ents && ents->v.list.count)
	{
		/* a v10+ world older than 1.17 is no world ASP writes */
		return rd_fail(s, r, e_at, SL_ERR_FORMAT, "entities",
					   "entities in a world of DataVersion %d, before entities/ files (%d)",
					   (int) s->dv, SL_DV_ENTITY_FILES);
	}
	if (poi && poi->v.comp.count)
	{
		sl_nbt	   *proot = nb_new(s, &s->ca, SL_TAG_COMPOUND, "");

		if (proot == NULL ||
			nb_add(s, &s->ca, proot, nb_int(s, &s->ca, "DataVersion", s->dv, SL_TAG_INT)) ||
			nb_add(s, &s->ca, proot, nb_rename(s, &s->ca, poi, "Sections")) ||
			emit(s, SL_COMP_POI, proot))
			return -1;
		s->info->poi_chunks++;
	}
	s->in_chunk = 0;
	return 0;
}

/* ---- the world compound ---- */

/* An int property of extra.properties, when it is an int tag. */
static int
prop_int(const sl_nbt *extra, const char *name, int *out)
{
	const sl_nbt *p = sl_nbt_child(sl_nbt_child(extra, "properties"), name);

	if (p == NULL || p->type != SL_TAG_INT)
		return 0;
	*out = (int) p->v.i;
	return 1;
}

/* Whether extra.properties.environment names the nether or the end. */
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

/*
 * The section range of a v10+ world: extra.properties chunkSectionMin and
 * chunkSectionMax when present, else the dimension's (nether and end
 * 0..15, otherwise -4..19, ASP's defaults).
 */
static void
section_range(const sl_nbt *extra, int *min, int *max)
{
	int			low = prop_low_world(extra);

	if (!prop_int(extra, "chunkSectionMin", min))
		*min = low ? 0 : -4;
	if (!prop_int(extra, "chunkSectionMax", max))
		*max = low ? 15 : 19;
}

int32_t
sl_slimefile_world_dv(int world_version)
{
	static const int32_t dv[9] = {SL_NO_DV, 99, 184, 922, 1631, 1976, 2586, 2730, 2975};

	return world_version >= 1 && world_version <= 8 ? dv[world_version] : SL_NO_DV;
}

/* Build and set the world compound {slime: {...}}. */
static int
set_world(sf *s, const int32_t *bounds, sl_nbt *extra, sl_nbt *maps)
{
	sl_nbt	   *root = nb_new(s, &s->wa, SL_TAG_COMPOUND, "");
	sl_nbt	   *sl = nb_new(s, &s->wa, SL_TAG_COMPOUND, "slime");
	sl_buf		out = {0};
	int			rc;

	if (root == NULL || sl == NULL || nb_add(s, &s->wa, root, sl) ||
		nb_add(s, &s->wa, sl, nb_int(s, &s->wa, "version", s->version, SL_TAG_BYTE)))
		return -1;
	if (s->wv_recorded && nb_add(s, &s->wa, sl, nb_int(s, &s->wa, "worldVersion", s->wv, SL_TAG_BYTE)))
		return -1;
	if (s->dv != SL_NO_DV && nb_add(s, &s->wa, sl, nb_int(s, &s->wa, "DataVersion", s->dv, SL_TAG_INT)))
		return -1;
	if (s->version >= 13 && nb_add(s, &s->wa, sl, nb_int(s, &s->wa, "flags", (int8_t) s->flags, SL_TAG_BYTE)))
		return -1;
	if (bounds)
	{
		uint8_t    *b = sl_arena_alloc(&s->wa, 16, s->err);

		if (b == NULL)
			return -1;
		for (int i = 0; i < 4; i++)
			sl_put_u32be(b + 4 * i, (uint32_t) bounds[i]);
		if (nb_add(s, &s->wa, sl, nb_arr(s, &s->wa, SL_TAG_INT_ARRAY, "bounds", b, 4)))
			return -1;
	}
	if (extra && nb_add(s, &s->wa, sl, nb_rename(s, &s->wa, extra, "extra")))
		return -1;
	if (maps && nb_add(s, &s->wa, sl, nb_rename(s, &s->wa, maps, "maps")))
		return -1;
	if (s->orphans && s->orphans->v.list.count && nb_add(s, &s->wa, sl, s->orphans))
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
static int
collect_orphans(sf *s, placed *all, size_t n, int tiles, const rd *r, size_t at)
{
	for (size_t i = 0; i < n; i++)
	{
		if (all[i].item == NULL)
			continue;
		if (tiles)
			/* ASP: CorruptedWorldException */
			return rd_fail(s, r, at, SL_ERR_FORMAT, "tile entities",
						   "tile entity %u lies in chunk (%d,%d), which the file does not hold",
						   (unsigned) all[i].index, all[i].x, all[i].z);
		if (s->orphans == NULL && (s->orphans = nb_list(s, &s->wa, "orphanEntities")) == NULL)
			return -1;
		s->orphans->v.list.elem_type = SL_TAG_COMPOUND;
		if (nb_add(s, &s->wa, s->orphans, all[i].item))
			return -1;
		s->info->orphan_entities++;
	}
	return 0;
}

/* A world-level document of a zstd block (empty block: NULL). */
static int
world_doc(sf *s, const rd *r, size_t at, const char *field, const uint8_t *p, size_t n,
		  sl_nbt **out)
{
	rd			sub;

	*out = NULL;
	if (n == 0)
		return 0;
	sub.p = p;
	sub.len = n;
	sub.pos = 0;
	sub.area = field;
	(void) r;
	(void) at;
	if (parse_doc(s, &sub, 0, field, p, n, &s->doc_lim, &s->wa, out))
		return -1;
	if ((*out)->v.comp.count == 0)
		*out = NULL;
	return 0;
}

/* Free the chunk arena, keeping the memory caps honest. */
static int
chunk_done(sf *s)
{
	sl_arena_free(&s->ca);
	s->in_chunk = 0;
	sl_interrupt();
	return 0;
}

/* Versions 1-9. */
static int
read_v1_9(sf *s, rd *f)
{
	int16_t		min_x,
				min_z,
				width,
				depth;
	uint16_t	u;
	size_t		at;
	const uint8_t *mask;
	const uint8_t *cdata,
			   *tdata,
			   *edata = NULL,
			   *xdata = NULL,
			   *mdata = NULL;
	size_t		clen,
				tlen,
				elen = 0,
				xlen = 0,
				mlen = 0;
	size_t		t_at,
				e_at = 0,
				x_at = 0,
				m_at = 0;
	sl_nbt	   *tdoc,
			   *edoc = NULL,
			   *extra = NULL,
			   *maps = NULL;
	int32_t		bounds[4];
	rd			c;

	if (s->version >= 6)
	{
		uint8_t		wv;

		at = f->pos;
		if (rd_u8(s, f, "world version", &wv))
			return -1;
		if (wv < 1 || wv > 8)
			return rd_fail(s, f, at, SL_ERR_FORMAT, "world version", "unknown world version %d", wv);
		s->wv = wv;
		s->dv = sl_slimefile_world_dv(wv);
	}
	else if (s->version >= 4)
	{
		int			post113;

		if (rd_bool(s, f, "post-1.13 flag", &post113))
			return -1;
		s->wv = post113 ? 4 : 1;
	}
	else
		s->wv = 1;				/* the Hypixel format is pre-1.13 */
	s->wv_recorded = s->version >= 4;
	s->info->world_version = s->wv_recorded ? s->wv : -1;

	if (rd_u16(s, f, "min chunk x", &u))
		return -1;
	min_x = (int16_t) u;
	if (rd_u16(s, f, "min chunk z", &u))
		return -1;
	min_z = (int16_t) u;
	at = f->pos;
	if (rd_u16(s, f, "width", &u))
		return -1;
	width = (int16_t) u;
	if (width <= 0)
		return rd_fail(s, f, at, SL_ERR_FORMAT, "width", "width %d is not positive", width);
	at = f->pos;
	if (rd_u16(s, f, "depth", &u))
		return -1;
	depth = (int16_t) u;
	if (depth <= 0)
		return rd_fail(s, f, at, SL_ERR_FORMAT, "depth", "depth %d is not positive", depth);
	if (rd_bytes(s, f, ((size_t) width * (size_t) depth + 7) / 8, "chunk bitmask", &mask))
		return -1;
	bounds[0] = min_x;
	bounds[1] = min_z;
	bounds[2] = width;
	bounds[3] = depth;

	if (rd_zblock(s, f, "chunk data", s->lim->max_value_raw, NULL, &cdata, &clen))
		return -1;
	t_at = f->pos;
	if (rd_zblock(s, f, "tile entities", s->lim->max_value_raw, NULL, &tdata, &tlen))
		return -1;
	if (s->version >= 3)
	{
		int			has;

		if (rd_bool(s, f, "has entities", &has))
			return -1;
		e_at = f->pos;
		if (has && rd_zblock(s, f, "entities", s->lim->max_value_raw, NULL, &edata, &elen))
			return -1;
	}
	if (s->version >= 2)
	{
		x_at = f->pos;
		if (rd_zblock(s, f, "extra", s->lim->max_value_raw, NULL, &xdata, &xlen))
			return -1;
	}
	if (s->version >= 7)
	{
		m_at = f->pos;
		if (rd_zblock(s, f, "world maps", s->lim->max_value_raw, NULL, &mdata, &mlen))
			return -1;
	}
	if (f->pos != f->len)
		return rd_fail(s, f, f->pos, SL_ERR_FORMAT, "end of file", "%zu bytes after the last block",
					   f->len - f->pos);

	if (world_doc(s, f, t_at, "tile entities", tdata, tlen, &tdoc) ||
		world_doc(s, f, e_at, "entities", edata, elen, &edoc) ||
		world_doc(s, f, x_at, "extra", xdata, xlen, &extra) ||
		world_doc(s, f, m_at, "world maps", mdata, mlen, &maps))
		return -1;
	if ((tdoc && place_list(s, f, t_at, "tile entities", tdoc, "tiles", 0, &s->tiles, &s->ntiles)) ||
		(edoc && place_list(s, f, e_at, "entities", edoc, "entities", 1, &s->ents, &s->nents)))
		return -1;

	c.p = cdata;
	c.len = clen;
	c.pos = 0;
	c.area = "chunk data";
	for (int z = 0; z < depth; z++)
		for (int x = 0; x < width; x++)
		{
			if (!bit(mask, (size_t) z * width + x))
				continue;
			s->in_chunk = 1;
			s->cx = min_x + x;
			s->cz = min_z + z;
			if (rd_chunk_v1_9(s, &c))
				return -1;
			s->info->chunks++;
			chunk_done(s);
		}
	if (c.pos != c.len)
		return rd_fail(s, &c, c.pos, SL_ERR_FORMAT, "end of chunk data",
					   "%zu bytes after the last chunk the bitmask names", c.len - c.pos);
	if (collect_orphans(s, s->tiles, s->ntiles, 1, f, t_at) ||
		collect_orphans(s, s->ents, s->nents, 0, f, e_at))
		return -1;
	return set_world(s, bounds, extra, maps);
}

/*
 * Step c over what follows the counted chunks of a v10-v12 chunk block;
 * nonzero when something else is there. ASP's SlimeSerializer of those
 * versions, until its PR #98 (January 2024), wrote the count of all the
 * world's chunks and then iterated a list that was a copy of all of them
 * with every chunk it would not prune appended a second time: the counted
 * chunks are followed by byte-identical repeats of some of them, in their
 * order. ASP's readers read the counted chunks and ignore the rest, so the
 * repeats carry nothing; anything that is not such a repeat still fails.
 * start[i] is where counted chunk i begins, start[count] where they end.
 */
static int
skip_repeats(sf *s, rd *c, const size_t *start, uint32_t count)
{
	uint32_t	k = 0;

	while (c->pos < c->len)
	{
		size_t		left = c->len - c->pos;
		uint32_t	j;

		/* the next counted chunk (in order) these bytes repeat; x,z first */
		for (j = k; j < count; j++)
		{
			size_t		n = start[j + 1] - start[j];

			if (n <= left && memcmp(c->p + c->pos, c->p + start[j], 8) == 0 &&
				memcmp(c->p + c->pos, c->p + start[j], n) == 0)
				break;
		}
		if (j == count)
			return -1;
		c->pos += start[j + 1] - start[j];
		k = j + 1;
		s->info->repeated_chunks++;
	}
	return 0;
}

/* Versions 10-13. */
static int
read_v10_13(sf *s, rd *f)
{
	int32_t		dv;
	const uint8_t *cdata,
			   *tdata = NULL,
			   *edata = NULL,
			   *xdata;
	size_t		clen,
				tlen = 0,
				elen = 0,
				xlen;
	size_t		t_at = 0,
				e_at = 0,
				x_at;
	sl_nbt	   *tdoc = NULL,
			   *edoc = NULL,
			   *extra = NULL;
	uint32_t	count;
	size_t	   *start;
	rd			c;

	if (rd_i32(s, f, "DataVersion", &dv))
		return -1;
	s->dv = dv;
	if (s->version >= 13)
	{
		uint8_t		flags;

		if (rd_u8(s, f, "world flags", &flags))
			return -1;
		s->flags = flags;
		s->info->flags = flags;
	}
	if (rd_zblock(s, f, "chunk data", s->lim->max_value_raw, NULL, &cdata, &clen))
		return -1;
	if (s->version == 10)
	{
		t_at = f->pos;
		if (rd_zblock(s, f, "tile entities", s->lim->max_value_raw, NULL, &tdata, &tlen))
			return -1;
		e_at = f->pos;
		if (rd_zblock(s, f, "entities", s->lim->max_value_raw, NULL, &edata, &elen))
			return -1;
	}
	x_at = f->pos;
	if (rd_zblock(s, f, "extra", s->lim->max_value_raw, NULL, &xdata, &xlen))
		return -1;
	if (f->pos != f->len)
		return rd_fail(s, f, f->pos, SL_ERR_FORMAT, "end of file", "%zu bytes after the last block",
					   f->len - f->pos);
	if (world_doc(s, f, x_at, "extra", xdata, xlen, &extra) ||
		world_doc(s, f, t_at, "tile entities", tdata, tlen, &tdoc) ||
		world_doc(s, f, e_at, "entities", edata, elen, &edoc))
		return -1;
	section_range(extra, &s->sec_min, &s->sec_max);
	if (s->sec_min < -128 || s->sec_max > 127 || s->sec_max < s->sec_min - 1)
		return rd_fail(s, f, x_at, SL_ERR_FORMAT, "extra",
					   "section range %d..%d (properties chunkSectionMin, chunkSectionMax) does not fit a section Y byte",
					   s->sec_min, s->sec_max);
	if ((tdoc && place_list(s, f, t_at, "tile entities", tdoc, "tiles", 0, &s->tiles, &s->ntiles)) ||
		(edoc && place_list(s, f, e_at, "entities", edoc, "entities", 1, &s->ents, &s->nents)))
		return -1;

	c.p = cdata;
	c.len = clen;
	c.area = "chunk data";
	c.pos = 0;
	if (rd_count(s, &c, "chunk count", 16, &count))
		return -1;
	/* where each counted chunk starts, and where the last one ends */
	if ((start = sl_arena_alloc(&s->wa, ((size_t) count + 1) * sizeof(size_t), s->err)) == NULL)
		return -1;
	for (uint32_t i = 0; i < count; i++)
	{
		start[i] = c.pos;
		if (rd_chunk_new(s, &c))
			return -1;
		s->info->chunks++;
		chunk_done(s);
	}
	start[count] = c.pos;
	if (s->version >= 13 && c.pos != c.len)
		return rd_fail(s, &c, c.pos, SL_ERR_FORMAT, "end of chunk data",
					   "%zu bytes after the last of %u chunks", c.len - c.pos, (unsigned) count);
	if (s->version <= 12 && skip_repeats(s, &c, start, count))
		return rd_fail(s, &c, c.pos, SL_ERR_FORMAT, "end of chunk data",
					   "%zu bytes after the last of %u chunks and %u repeats of them are no repeat of one of those chunks",
					   c.len - c.pos, (unsigned) count, (unsigned) s->info->repeated_chunks);
	if (collect_orphans(s, s->tiles, s->ntiles, 1, f, t_at) ||
		collect_orphans(s, s->ents, s->nents, 0, f, e_at))
		return -1;
	return set_world(s, NULL, extra, NULL);
}

int
sl_slimefile_read(const uint8_t *file, size_t len, const sl_limits *lim, sl_builder *b,
				  sl_slimefile_info *info, sl_err *err)
{
	sf			s;
	sl_slimefile_info dummy;
	rd			f;
	uint8_t		version;
	int			rc;

	if (lim == NULL)
		lim = &sl_default_limits;
	if (info == NULL)
		info = &dummy;
	memset(info, 0, sizeof(*info));
	info->world_version = -1;
	info->data_version = SL_NO_DV;
	memset(&s, 0, sizeof(s));
	s.lim = lim;
	s.doc_lim = *lim;
	s.doc_lim.max_chunk_raw = lim->max_value_raw;	/* world-level documents */
	s.err = err;
	s.b = b;
	s.info = info;
	s.wv = -1;
	s.dv = SL_NO_DV;
	f.p = file;
	f.len = len;
	f.pos = 0;
	f.area = "file";
	if (len < 3 || file[0] != 0xB1 || file[1] != 0x0B)
		return sl_fail(err, SL_ERR_FORMAT,
					   "not a slime file: it does not start with the magic bytes B1 0B (offset 0)");
	version = file[2];
	s.version = version;
	f.pos = 3;
	if (version < 1 || version > SL_SLIMEFILE_VERSION_MAX)
		return sl_fail(err, version > SL_SLIMEFILE_VERSION_MAX ? SL_ERR_UNSUPPORTED : SL_ERR_FORMAT,
					   "slime file: format version %d at offset 2 is not one this reader knows (1..%d)",
					   version, SL_SLIMEFILE_VERSION_MAX);
	info->version = version;
	rc = version <= 9 ? read_v1_9(&s, &f) : read_v10_13(&s, &f);
	info->data_version = s.dv;
	sl_arena_free(&s.ca);
	sl_arena_free(&s.wa);
	for (int i = 0; i < s.nblocks; i++)
		sl_free(s.blocks[i]);
	return rc;
}

/* ======================================================================
 * Writing (version 13)
 * ====================================================================== */

typedef struct sw
{
	sl_value   *v;
	const sl_limits *lim;
	sl_err	   *err;
	sl_arena	a;				/* the chunk being written */
	int32_t		dv;
	int			have_dv;
	int			flags;
	int			sec_min;
	int			sec_max;
	/* region-derived worlds: the yPos every chunk shares */
	int			ypos_seen;
	int32_t		ypos;
	int			top_seen;
	int			top;			/* highest section Y with block data */
	int			derived;		/* world compound has no "slime": properties are made up */
	uint32_t	x_pass;
	sl_slimefile_info *info;
} sw;

/* A child of a given type, NULL when absent; a wrong type is an error. */
static int
want(sw *w, const sl_dirent *d, const sl_nbt *parent, const char *name, int type,
	 const char *what, const sl_nbt **out)
{
	const sl_nbt *c = sl_nbt_child(parent, name);

	*out = NULL;
	if (c == NULL)
		return 0;
	if (c->type != type)
		return sl_fail(w->err, SL_ERR_UNSUPPORTED,
					   "chunk (%d,%d): %s \"%s\" is a %s, not a %s; a slime file cannot hold it",
					   d->x, d->z, what, name, sl_nbt_type_name(c->type), sl_nbt_type_name(type));
	*out = c;
	return 0;
}

/* Parse one stored component of chunk d into the writer's arena. */
static int
parse_comp(sw *w, const sl_dirent *d, const uint8_t *data, uint32_t len, const char *kind,
		   sl_nbt **root)
{
	size_t		used;

	if (sl_nbt_parse(data, len, w->lim, &w->a, root, &used, w->err))
	{
		sl_err_prefix(w->err, "chunk (%d,%d): %s NBT", d->x, d->z, kind);
		if (w->err->code == SL_ERR_FORMAT)
			w->err->code = SL_ERR_CORRUPT;
		return -1;
	}
	if ((*root)->type != SL_TAG_COMPOUND)
		return sl_fail(w->err, SL_ERR_CORRUPT, "chunk (%d,%d): %s NBT root is not a compound",
					   d->x, d->z, kind);
	return 0;
}

/* Whether a section holds block data (block_states or biomes). */
static int
section_has_blocks(const sl_nbt *sec)
{
	return sl_nbt_child(sec, "block_states") != NULL || sl_nbt_child(sec, "biomes") != NULL;
}

/* First pass over one chunk: what a version-13 file needs to know. */
static int
survey_chunk(sw *w, const sl_dirent *d, const uint8_t *const comp[SL_NCOMP])
{
	sl_nbt	   *root;
	const sl_nbt *secs,
			   *c;
	int64_t		dv;

	if (d->len[SL_COMP_REGION] == 0)
		return sl_fail(w->err, SL_ERR_UNSUPPORTED,
					   "chunk (%d,%d) has %s data but no region chunk; a slime file chunk needs one",
					   d->x, d->z, d->len[SL_COMP_ENTITIES] ? "entities" : "POI");
	if (parse_comp(w, d, comp[SL_COMP_REGION], d->len[SL_COMP_REGION], "region", &root))
		return -1;
	c = sl_nbt_child(root, "DataVersion");
	if (sl_nbt_child(root, "Level") != NULL || c == NULL ||
		c->type != SL_TAG_INT || c->v.i < SL_DV_LAYOUT_118)
	{
		char		dvs[32] = "no DataVersion";

		if (c && c->type == SL_TAG_INT)
			snprintf(dvs, sizeof(dvs), "DataVersion %lld", (long long) c->v.i);
		return sl_fail(w->err, SL_ERR_UNSUPPORTED,
					   "chunk (%d,%d) is not a 1.18+ chunk (%s%s); slime file version 13 holds only the 1.18 chunk layout (DataVersion %d and later)",
					   d->x, d->z, dvs, sl_nbt_child(root, "Level") ? ", a Level compound" : "",
					   SL_DV_LAYOUT_118);
	}
	dv = c->v.i;
	if (w->have_dv && dv != w->dv)
		return sl_fail(w->err, SL_ERR_UNSUPPORTED,
					   "chunk (%d,%d) has DataVersion %d but the world %d; a slime file holds one DataVersion",
					   d->x, d->z, (int) dv, (int) w->dv);
	w->dv = (int32_t) dv;
	w->have_dv = 1;
	if ((c = sl_nbt_child(root, "yPos")) != NULL && c->type == SL_TAG_INT)
	{
		if (w->derived && w->ypos_seen && c->v.i != w->ypos)
			return sl_fail(w->err, SL_ERR_UNSUPPORTED,
						   "chunk (%d,%d) has yPos %d but another chunk %d; a slime file holds one section range",
						   d->x, d->z, (int) c->v.i, (int) w->ypos);
		w->ypos = (int32_t) c->v.i;
		w->ypos_seen = 1;
	}
	if (want(w, d, root, "sections", SL_TAG_LIST, "chunk tag", &secs))
		return -1;
	if (secs && secs->v.list.count && secs->v.list.elem_type != SL_TAG_COMPOUND)
		return sl_fail(w->err, SL_ERR_UNSUPPORTED, "chunk (%d,%d): sections is a list of %s",
					   d->x, d->z, sl_nbt_type_name(secs->v.list.elem_type));
	for (uint32_t i = 0; secs && i < secs->v.list.count; i++)
	{
		const sl_nbt *sec = secs->v.list.items[i];
		const sl_nbt *y = sl_nbt_child(sec, "Y");

		if (y && y->type == SL_TAG_BYTE && section_has_blocks(sec) &&
			(!w->top_seen || y->v.i > w->top))
		{
			w->top = (int) y->v.i;
			w->top_seen = 1;
		}
	}
	/* ticks set their flag when there are some (ASP saves none by default) */
	if ((c = sl_nbt_child(root, "block_ticks")) != NULL && c->type == SL_TAG_LIST && c->v.list.count)
		w->flags |= SL_SLIMEFILE_BLOCK_TICKS;
	if ((c = sl_nbt_child(root, "fluid_ticks")) != NULL && c->type == SL_TAG_LIST && c->v.list.count)
		w->flags |= SL_SLIMEFILE_FLUID_TICKS;
	if ((c = sl_nbt_child(sl_nbt_child(root, "slime"), "blockTicks")) != NULL)
		w->flags |= SL_SLIMEFILE_BLOCK_TICKS;
	if ((c = sl_nbt_child(sl_nbt_child(root, "slime"), "fluidTicks")) != NULL)
		w->flags |= SL_SLIMEFILE_FLUID_TICKS;
	if (d->len[SL_COMP_POI])
		w->flags |= SL_SLIMEFILE_POI;
	return 0;
}

/* "i32 length, NBT" of a compound written as a root with an empty name; empty: length 0. */
static int
put_doc(sw *w, sl_buf *out, const sl_nbt *compound)
{
	size_t		at = out->len;

	if (compound == NULL || compound->v.comp.count == 0)
		return sl_buf_put_u32be(out, 0, w->err);
	if (sl_buf_put_u32be(out, 0, w->err) || sl_nbt_write_as_root(compound, out, w->err))
		return -1;
	if (out->len - at - 4 > (size_t) INT32_MAX)
		return sl_fail(w->err, SL_ERR_LIMIT, "an NBT document of the slime file exceeds 2 GiB");
	sl_put_u32be(out->data + at, (uint32_t) (out->len - at - 4));
	return 0;
}

/* A fresh node in the writer's arena. */
static sl_nbt *
wn(sw *w, int type, const char *name)
{
	sl_nbt	   *n = sl_arena_alloc(&w->a, sizeof(sl_nbt), w->err);

	if (n)
	{
		memset(n, 0, sizeof(*n));
		n->type = (uint8_t) type;
		n->name = name;
		n->name_len = (uint16_t) strlen(name);
	}
	return n;
}

/*
 * {name: list}, or length 0 when the chunk has no such list (ASP's readers
 * take length 0 as an empty compound, i.e. no items).
 */
static int
put_wrapped(sw *w, sl_buf *out, const char *name, const sl_nbt *list)
{
	sl_nbt	   *doc,
			   *item;
	sl_nbt	  **items;

	if (list == NULL)
		return sl_buf_put_u32be(out, 0, w->err);
	doc = wn(w, SL_TAG_COMPOUND, "");
	item = sl_arena_alloc(&w->a, sizeof(sl_nbt), w->err);
	items = sl_arena_alloc(&w->a, sizeof(sl_nbt *), w->err);
	if (doc == NULL || item == NULL || items == NULL)
		return -1;
	*item = *list;
	item->name = name;
	item->name_len = (uint16_t) strlen(name);
	items[0] = item;
	doc->v.comp.count = 1;
	doc->v.comp.items = items;
	return put_doc(w, out, doc);
}

/* A list of compounds (or an empty one) a slime file can carry. */
static int
check_list(sw *w, const sl_dirent *d, const sl_nbt *list, const char *what)
{
	if (list && list->v.list.count && list->v.list.elem_type != SL_TAG_COMPOUND)
		return sl_fail(w->err, SL_ERR_UNSUPPORTED, "chunk (%d,%d): %s is a list of %s, not of compounds",
					   d->x, d->z, what, sl_nbt_type_name(list->v.list.elem_type));
	return 0;
}

/* Second pass: serialize one chunk. */
static int
write_chunk(sw *w, sl_buf *out, const sl_dirent *d, const uint8_t *const comp[SL_NCOMP])
{
	sl_nbt	   *root,
			   *eroot = NULL,
			   *proot = NULL;
	const sl_nbt *secs,
			   *side,
			   *hm,
			   *c;
	const sl_nbt *slot[256];
	int			nslots = w->sec_max - w->sec_min + 1;
	int			count = 0;

	if (parse_comp(w, d, comp[SL_COMP_REGION], d->len[SL_COMP_REGION], "region", &root) ||
		(d->len[SL_COMP_ENTITIES] &&
		 parse_comp(w, d, comp[SL_COMP_ENTITIES], d->len[SL_COMP_ENTITIES], "entities", &eroot)) ||
		(d->len[SL_COMP_POI] && parse_comp(w, d, comp[SL_COMP_POI], d->len[SL_COMP_POI], "POI", &proot)))
		return -1;
	if (want(w, d, root, "slime", SL_TAG_COMPOUND, "chunk tag", &side) ||
		want(w, d, root, "sections", SL_TAG_LIST, "chunk tag", &secs) ||
		want(w, d, root, "Heightmaps", SL_TAG_COMPOUND, "chunk tag", &hm))
		return -1;

	/* sections by array index */
	memset(slot, 0, sizeof(slot));
	for (uint32_t i = 0; secs && i < secs->v.list.count; i++)
	{
		const sl_nbt *sec = secs->v.list.items[i];
		const sl_nbt *y = sl_nbt_child(sec, "Y");
		int			idx;

		if (y == NULL || y->type != SL_TAG_BYTE)
			return sl_fail(w->err, SL_ERR_UNSUPPORTED, "chunk (%d,%d): section %u has no Y byte",
						   d->x, d->z, (unsigned) i);
		idx = (int) y->v.i - w->sec_min;
		if (idx < 0 || idx >= nslots)
		{
			if (!section_has_blocks(sec))
				continue;		/* light-only sections outside the range are lost */
			return sl_fail(w->err, SL_ERR_UNSUPPORTED,
						   "chunk (%d,%d): section Y=%d holds blocks outside the slime file's section range %d..%d",
						   d->x, d->z, (int) y->v.i, w->sec_min, w->sec_max);
		}
		if (slot[idx])
			return sl_fail(w->err, SL_ERR_UNSUPPORTED, "chunk (%d,%d): section Y=%d appears twice",
						   d->x, d->z, (int) y->v.i);
		slot[idx] = sec;
		if (idx + 1 > count)
			count = idx + 1;
	}
	if (sl_buf_put_u32be(out, (uint32_t) d->x, w->err) ||
		sl_buf_put_u32be(out, (uint32_t) d->z, w->err) ||
		sl_buf_put_u32be(out, (uint32_t) count, w->err))
		return -1;
	for (int i = 0; i < count; i++)
	{
		const sl_nbt *light[2] = {NULL, NULL};
		const sl_nbt *bs = NULL,
				   *bi = NULL;
		static const char *const lname[2] = {"BlockLight", "SkyLight"};
		uint8_t		flags = 0;

		if (slot[i])
		{
			for (int k = 0; k < 2; k++)
			{
				if (want(w, d, slot[i], lname[k], SL_TAG_BYTE_ARRAY, "section tag", &light[k]))
					return -1;
				if (light[k] && light[k]->v.arr.count != SL_SLIMEFILE_LIGHT)
					return sl_fail(w->err, SL_ERR_UNSUPPORTED,
								   "chunk (%d,%d): section Y=%d: %s of %u bytes; a slime file holds %d",
								   d->x, d->z, w->sec_min + i, lname[k],
								   (unsigned) light[k]->v.arr.count, SL_SLIMEFILE_LIGHT);
				if (light[k])
					flags |= (uint8_t) (1 << k);
			}
			if (want(w, d, slot[i], "block_states", SL_TAG_COMPOUND, "section tag", &bs) ||
				want(w, d, slot[i], "biomes", SL_TAG_COMPOUND, "section tag", &bi))
				return -1;
		}
		/* flag byte, then BLOCK light, then SKY light (ASP's code order) */
		if (sl_buf_put_u8(out, flags, w->err))
			return -1;
		for (int k = 0; k < 2; k++)
			if (light[k] && sl_buf_put(out, light[k]->v.arr.data, SL_SLIMEFILE_LIGHT, w->err))
				return -1;
		if (put_doc(w, out, bs) || put_doc(w, out, bi))
			return -1;
	}
	if (put_doc(w, out, hm))
		return -1;
	if (w->flags & SL_SLIMEFILE_POI)
	{
		const sl_nbt *ps = NULL;

		if (proot && want(w, d, proot, "Sections", SL_TAG_COMPOUND, "POI tag", &ps))
			return -1;
		if (put_doc(w, out, ps))
			return -1;
	}
	for (int k = 0; k < 2; k++)
	{
		static const char *const vanilla[2] = {"block_ticks", "fluid_ticks"};
		static const char *const raw[2] = {"blockTicks", "fluidTicks"};
		const sl_nbt *doc = NULL,
				   *list = NULL;

		if (!(w->flags & (k ? SL_SLIMEFILE_FLUID_TICKS : SL_SLIMEFILE_BLOCK_TICKS)))
			continue;
		if (want(w, d, side, raw[k], SL_TAG_COMPOUND, "slime tag", &doc))
			return -1;
		if (doc)
		{
			if (put_doc(w, out, doc))
				return -1;
			continue;
		}
		if (want(w, d, root, vanilla[k], SL_TAG_LIST, "chunk tag", &list) ||
			check_list(w, d, list, vanilla[k]) ||
			put_wrapped(w, out, vanilla[k], list))
			return -1;
	}
	if (w->flags & ~SL_SLIMEFILE_KNOWN_FLAGS)
	{
		const sl_nbt *unknown = NULL;
		uint32_t	k = 0;

		if (want(w, d, side, "unknownData", SL_TAG_LIST, "slime tag", &unknown))
			return -1;
		for (int b = 3; b < 8; b++)
		{
			const sl_nbt *blob = NULL;

			if (!(w->flags & (1 << b)))
				continue;
			if (unknown && unknown->v.list.elem_type == SL_TAG_BYTE_ARRAY && k < unknown->v.list.count)
				blob = unknown->v.list.items[k];
			k++;
			if (sl_buf_put_u32be(out, blob ? blob->v.arr.count : 0, w->err) ||
				(blob && sl_buf_put(out, blob->v.arr.data, blob->v.arr.count, w->err)))
				return -1;
		}
	}
	/* tile entities, entities, chunk extra */
	{
		const sl_nbt *doc = NULL,
				   *list = NULL;

		if (want(w, d, side, "tileEntities", SL_TAG_COMPOUND, "slime tag", &doc))
			return -1;
		if (doc ? put_doc(w, out, doc) :
			(want(w, d, root, "block_entities", SL_TAG_LIST, "chunk tag", &list) ||
			 check_list(w, d, list, "block_entities") ||
			 put_wrapped(w, out, "tileEntities", list)))
			return -1;
		w->info->block_entities += list ? list->v.list.count : 0;
		list = NULL;
		if (want(w, d, side, "entities", SL_TAG_COMPOUND, "slime tag", &doc))
			return -1;
		if (doc ? put_doc(w, out, doc) :
			((eroot && want(w, d, eroot, "Entities", SL_TAG_LIST, "entities tag", &list)) ||
			 check_list(w, d, list, "Entities") ||
			 put_wrapped(w, out, "entities", list)))
			return -1;
		w->info->entities += list ? list->v.list.count : 0;
		if (want(w, d, side, "extra", SL_TAG_COMPOUND, "slime tag", &doc))
			return -1;
		if (doc)
			return put_doc(w, out, doc);
		if (want(w, d, root, "ChunkBukkitValues", SL_TAG_COMPOUND, "chunk tag", &c))
			return -1;
		if (c == NULL)
			return sl_buf_put_u32be(out, 0, w->err);
		{
			sl_nbt	   *ex = wn(w, SL_TAG_COMPOUND, "");
			sl_nbt	  **items = sl_arena_alloc(&w->a, sizeof(sl_nbt *), w->err);

			if (ex == NULL || items == NULL)
				return -1;
			items[0] = (sl_nbt *) c;
			ex->v.comp.count = 1;
			ex->v.comp.items = items;
			return put_doc(w, out, ex);
		}
	}
}

/* "i32 compressed, i32 raw, zstd frame" (no checksum, as zstd-jni's Zstd.compress). */
static int
put_zblock(sw *w, sl_buf *out, const uint8_t *raw, size_t len, int level)
{
	size_t		bound = ZSTD_compressBound(len);
	size_t		at = out->len;
	size_t		n;

	if (len > (size_t) INT32_MAX)
		return sl_fail(w->err, SL_ERR_LIMIT,
					   "the slime file's data of %zu bytes exceeds the format's 2 GiB per block", len);
	if (sl_buf_reserve(out, 8 + bound, w->err))
		return -1;
	n = ZSTD_compress(out->data + at + 8, bound, raw, len, level);
	if (ZSTD_isError(n))
		return sl_fail(w->err, SL_ERR_LIMIT, "zstd compression failed: %s", ZSTD_getErrorName(n));
	if (n > (size_t) INT32_MAX)
		return sl_fail(w->err, SL_ERR_LIMIT, "compressed slime file block exceeds 2 GiB");
	sl_put_u32be(out->data + at, (uint32_t) n);
	sl_put_u32be(out->data + at + 4, (uint32_t) len);
	out->len += 8 + n;
	return 0;
}

/* Read the world compound: the "slime" compound's extra, flags and DataVersion. */
static int
world_settings(sw *w, sl_arena *wa, uint8_t **copy, sl_nbt **extra, const sl_nbt **slime,
			   const sl_nbt **data)
{
	const uint8_t *world;
	size_t		len;
	sl_nbt	   *root;
	size_t		used;

	*extra = NULL;
	*slime = NULL;
	*data = NULL;
	*copy = NULL;
	if (sl_value_world(w->v, &world, &len, w->err))
		return -1;
	if (len == 0)
		return 0;
	/* the frame cache is reused by chunk reads: keep a copy */
	*copy = sl_alloc_err(len, w->err);
	if (*copy == NULL)
		return -1;
	memcpy(*copy, world, len);
	if (sl_nbt_parse(*copy, len, w->lim, wa, &root, &used, w->err))
	{
		sl_err_prefix(w->err, "world compound");
		w->err->code = SL_ERR_CORRUPT;
		return -1;
	}
	*slime = sl_nbt_child(root, "slime");
	if (*slime && (*slime)->type != SL_TAG_COMPOUND)
		return sl_fail(w->err, SL_ERR_UNSUPPORTED, "world compound: \"slime\" is a %s, not a compound",
					   sl_nbt_type_name((*slime)->type));
	*data = sl_nbt_child(root, "Data");
	if (*data && (*data)->type != SL_TAG_COMPOUND)
		*data = NULL;
	if (*slime)
	{
		const sl_nbt *e = sl_nbt_child(*slime, "extra");

		if (e && e->type != SL_TAG_COMPOUND)
			return sl_fail(w->err, SL_ERR_UNSUPPORTED, "world compound: slime.extra is a %s, not a compound",
						   sl_nbt_type_name(e->type));
		*extra = (sl_nbt *) e;
	}
	return 0;
}

/* An int tag node in arena a. */
static sl_nbt *
w_int(sw *w, sl_arena *a, const char *name, int32_t v)
{
	sl_nbt	   *n = sl_arena_alloc(a, sizeof(sl_nbt), w->err);

	if (n)
	{
		memset(n, 0, sizeof(*n));
		n->type = SL_TAG_INT;
		n->name = name;
		n->name_len = (uint16_t) strlen(name);
		n->v.i = v;
	}
	return n;
}

/*
 * The extra compound of a world that came from region files (no "slime"
 * compound): {properties: {chunkSectionMin, chunkSectionMax, spawnX/Y/Z
 * from level.dat's Data when there}}.
 */
static sl_nbt *
derived_extra(sw *w, sl_arena *a, const sl_nbt *data)
{
	static const char *const spawn[3][2] = {{"SpawnX", "spawnX"}, {"SpawnY", "spawnY"}, {"SpawnZ", "spawnZ"}};
	sl_nbt	   *extra = sl_arena_alloc(a, sizeof(sl_nbt), w->err);
	sl_nbt	   *props = sl_arena_alloc(a, sizeof(sl_nbt), w->err);
	sl_nbt	  **items = sl_arena_alloc(a, 6 * sizeof(sl_nbt *), w->err);
	sl_nbt	  **top = sl_arena_alloc(a, sizeof(sl_nbt *), w->err);
	uint32_t	n = 0;

	if (extra == NULL || props == NULL || items == NULL || top == NULL)
		return NULL;
	memset(extra, 0, sizeof(*extra));
	memset(props, 0, sizeof(*props));
	extra->type = props->type = SL_TAG_COMPOUND;
	extra->name = "";
	props->name = "properties";
	props->name_len = 10;
	for (int i = 0; i < 3 && data; i++)
	{
		const sl_nbt *c = sl_nbt_child(data, spawn[i][0]);

		if (c && c->type == SL_TAG_INT && (items[n] = w_int(w, a, spawn[i][1], (int32_t) c->v.i)))
			n++;
	}
	if ((items[n++] = w_int(w, a, "chunkSectionMin", w->sec_min)) == NULL ||
		(items[n++] = w_int(w, a, "chunkSectionMax", w->sec_max)) == NULL)
		return NULL;
	props->v.comp.count = n;
	props->v.comp.items = items;
	top[0] = props;
	extra->v.comp.count = 1;
	extra->v.comp.items = top;
	return extra;
}

int
sl_slimefile_write(sl_value *v, int level, const sl_limits *lim, sl_buf *out,
				   sl_slimefile_info *info, sl_err *err)
{
	sw			w;
	sl_slimefile_info dummy;
	sl_arena	wa = {0};
	uint8_t    *wcopy = NULL;
	sl_nbt	   *extra;
	const sl_nbt *slime,
			   *data,
			   *c;
	sl_buf		blob = {0},
				xbuf = {0};
	size_t		base = out->len;
	int			rc = -1;

	if (lim == NULL)
		lim = &sl_default_limits;
	if (info == NULL)
		info = &dummy;
	memset(info, 0, sizeof(*info));
	memset(&w, 0, sizeof(w));
	w.v = v;
	w.lim = lim;
	w.err = err;
	w.info = info;
	if (level <= 0)
		level = SL_DEFAULT_LEVEL;
	if (world_settings(&w, &wa, &wcopy, &extra, &slime, &data))
		goto done;
	w.derived = slime == NULL;
	if (slime && (c = sl_nbt_child(slime, "flags")) != NULL && c->type == SL_TAG_BYTE)
		w.flags = (int) (uint8_t) c->v.i;
	if (slime && (c = sl_nbt_child(slime, "DataVersion")) != NULL && c->type == SL_TAG_INT)
	{
		w.dv = (int32_t) c->v.i;
		w.have_dv = 1;
	}
	else if (data && (c = sl_nbt_child(data, "DataVersion")) != NULL && c->type == SL_TAG_INT &&
			 v->hdr.chunk_count == 0)
	{
		w.dv = (int32_t) c->v.i;
		w.have_dv = 1;
	}

	/* pass 1: can version 13 hold these chunks? */
	for (uint32_t i = 0; i < v->hdr.chunk_count; i++)
	{
		sl_dirent	d;
		const uint8_t *comp[SL_NCOMP];

		if ((i & 63) == 0)
			sl_interrupt();
		if (sl_value_chunk(v, i, &d, comp, err))
			goto done;
		rc = survey_chunk(&w, &d, comp);
		sl_arena_free(&w.a);
		if (rc)
			goto done;
		rc = -1;
	}
	if (!w.have_dv)
	{
		sl_fail(err, SL_ERR_UNSUPPORTED,
				"a slime file needs the world's DataVersion: the value has no chunks and its world compound names none");
		goto done;
	}
	if (w.derived)
	{
		w.sec_min = w.ypos_seen ? w.ypos : -4;
		w.sec_max = w.sec_min + 15;
		if (w.sec_min == -4)
			w.sec_max = 19;
		if (w.top_seen && w.top > w.sec_max)
			w.sec_max = w.top;
		if (w.sec_min < -128 || w.sec_max > 127)
		{
			sl_fail(err, SL_ERR_UNSUPPORTED, "section range %d..%d does not fit a section Y byte",
					w.sec_min, w.sec_max);
			goto done;
		}
		extra = derived_extra(&w, &wa, data);
		if (extra == NULL)
			goto done;
	}
	else
	{
		section_range(extra, &w.sec_min, &w.sec_max);
		if (w.sec_min < -128 || w.sec_max > 127 || w.sec_max < w.sec_min - 1)
		{
			sl_fail(err, SL_ERR_UNSUPPORTED,
					"world compound: section range %d..%d (slime.extra.properties) does not fit a section Y byte",
					w.sec_min, w.sec_max);
			goto done;
		}
	}

	/* pass 2: the chunks */
	if (sl_buf_put_u32be(&blob, v->hdr.chunk_count, err))
		goto done;
	for (uint32_t i = 0; i < v->hdr.chunk_count; i++)
	{
		sl_dirent	d;
		const uint8_t *comp[SL_NCOMP];

		if ((i & 63) == 0)
			sl_interrupt();
		if (sl_value_chunk(v, i, &d, comp, err))
			goto done;
		rc = write_chunk(&w, &blob, &d, comp);
		sl_arena_free(&w.a);
		if (rc)
			goto done;
		rc = -1;
		if (blob.len > lim->max_value_raw + (size_t) 64 * 1024 * 1024)
		{
			sl_fail(err, SL_ERR_LIMIT, "the slime file's chunk data exceeds the world size cap of %zu bytes",
					lim->max_value_raw);
			goto done;
		}
		info->chunks++;
	}
	if (extra && extra->v.comp.count)
	{
		sl_nbt		root = *extra;

		root.name = "";
		root.name_len = 0;
		if (sl_nbt_write(&root, &xbuf, err))
			goto done;
	}
	if (sl_buf_reserve(out, 7, err))
		goto done;
	out->data[out->len++] = 0xB1;
	out->data[out->len++] = 0x0B;
	out->data[out->len++] = SL_SLIMEFILE_WRITE_VERSION;
	if (sl_buf_put_u32be(out, (uint32_t) w.dv, err) ||
		sl_buf_put_u8(out, (uint8_t) w.flags, err) ||
		put_zblock(&w, out, blob.data, blob.len, level) ||
		put_zblock(&w, out, xbuf.data, xbuf.len, level))
		goto done;
	info->version = SL_SLIMEFILE_WRITE_VERSION;
	info->data_version = w.dv;
	info->flags = w.flags;
	rc = 0;
done:
	if (rc)
		out->len = base;
	sl_arena_free(&w.a);
	sl_arena_free(&wa);
	sl_free(wcopy);
	sl_buf_free(&blob);
	sl_buf_free(&xbuf);
	return rc;
}
