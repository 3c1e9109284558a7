/*
 * sl_bsplit.c - find the arrays the block codec models in NBT documents
 * (see sl_bsplit.h). A depth-limited recursive walk; every length is checked
 * against the buffer before it is used.
 */
#include <string.h>
#include <xxhash.h>

#include "sl_bsplit.h"
#include "sl_nbt.h"

/* State of one walk. */
typedef struct walker
{
	const uint8_t *b;
	size_t		len,
				pos;
	int			elided;
	uint32_t	doc;
	int			max_depth;
	sl_bscan   *s;
	sl_err	   *err;
} walker;

/* A name and its length (not NUL-terminated). */
typedef struct name_ref
{
	const uint8_t *p;
	size_t		n;
} name_ref;

static int	walk_payload(walker *w, int type, name_ref name, name_ref parent,
						 int hash_items, int depth);

/* Fail unless n more bytes are available. */
static int
need(walker *w, size_t n, const char *what)
{
	if (w->len - w->pos < n)
		return sl_fail(w->err, SL_ERR_CORRUPT,
					   "bcodec structure: %s at offset %zu runs past the end (%zu bytes)",
					   what, w->pos, w->len);
	return 0;
}

/* Whether name is the given ASCII literal. */
static int
name_is(name_ref name, const char *lit)
{
	size_t		n = strlen(lit);

	return name.p != NULL && name.n == n && memcmp(name.p, lit, n) == 0;
}

/* Kind of an array tag (and its sub kind), 0 when the models do not take it; heights: SL_BA_HEIGHT too. */
static int
classify(int type, name_ref name, name_ref parent, uint32_t count, int heights, uint8_t *sub)
{
	static const char *const nibbles[4] = {"Data", "Add", "SkyLight", "BlockLight"};

	*sub = 0;
	if (count == 0)
		return 0;
	if (type == SL_TAG_LONG_ARRAY && name_is(name, "data") && name_is(parent, "block_states"))
		return SL_BA_MODERN;
	if (type == SL_TAG_LONG_ARRAY && name_is(name, "BlockStates"))
		return SL_BA_FLAT;
	if (heights && type == SL_TAG_LONG_ARRAY && name.p != NULL && name_is(parent, "Heightmaps") &&
		(count == 36 || count == 37))
		return SL_BA_HEIGHT;
	if (heights && type != SL_TAG_LONG_ARRAY && name_is(name, "HeightMap") && count == 256)
		return SL_BA_HEIGHT;
	if (type != SL_TAG_BYTE_ARRAY)
		return 0;
	if (name_is(name, "Blocks") && (count == 4096 || count == 32768))
		return SL_BA_BLOCKS;
	for (int i = 0; i < 4; i++)
		if (name_is(name, nibbles[i]) && (count == 2048 || count == 16384))
		{
			*sub = (uint8_t) i;
			return SL_BA_NIBBLE;
		}
	return 0;
}

/* Append a descriptor. */
static int
push_array(walker *w, int kind, uint8_t sub, int esize, uint32_t count, uint32_t comp)
{
	sl_bscan   *s = w->s;
	sl_barray  *a;

	if (s->n == s->cap && sl_grow((void **) &s->a, &s->cap, sizeof(sl_barray), 64, "bcodec arrays", w->err))
		return -1;
	s->payload_sum += (uint64_t) count * esize;
	if (s->payload_cap && s->payload_sum > s->payload_cap)
		return sl_fail(w->err, SL_ERR_CORRUPT,
					   "bcodec structure: array at offset %zu takes the payloads past %llu bytes",
					   w->pos, (unsigned long long) s->payload_cap);
	a = &s->a[s->n++];
	memset(a, 0, sizeof(*a));
	a->kind = (uint8_t) kind;
	a->sub = sub;
	a->esize = (uint8_t) esize;
	a->count = count;
	a->at = w->pos;
	a->doc = w->doc;
	a->comp = comp;
	return 0;
}

/* Append a palette entry hash. */
static int
push_hash(walker *w, uint64_t h)
{
	sl_bscan   *s = w->s;

	if (s->npal == s->palcap &&
		sl_grow((void **) &s->pal, &s->palcap, sizeof(uint64_t), 256, "bcodec palette entries", w->err))
		return -1;
	s->pal[s->npal++] = h;
	return 0;
}

/* Read a non-negative i32 count. */
static int
read_count(walker *w, const char *what, uint32_t *count)
{
	int32_t		c;

	if (need(w, 4, what))
		return -1;
	c = (int32_t) sl_get_u32be(w->b + w->pos);
	if (c < 0)
		return sl_fail(w->err, SL_ERR_CORRUPT, "bcodec structure: negative %s %d at offset %zu",
					   what, c, w->pos);
	w->pos += 4;
	*count = (uint32_t) c;
	return 0;
}

/* Walk an array payload: record it when a model takes it. */
static int
walk_array(walker *w, int type, name_ref name, name_ref parent, uint32_t comp)
{
	int			esize = type == SL_TAG_BYTE_ARRAY ? 1 : type == SL_TAG_INT_ARRAY ? 4 : 8;
	uint32_t	count;
	uint8_t		sub;
	int			kind;

	if (read_count(w, "array length", &count))
		return -1;
	kind = classify(type, name, parent, count, w->s->heights, &sub);
	if (kind && push_array(w, kind, sub, esize, count, comp))
		return -1;
	if (kind && w->elided)
		return 0;
	if (need(w, (size_t) count * esize, "array payload"))
		return -1;
	w->pos += (size_t) count * esize;
	return 0;
}

/* Walk a list payload; with hash_items, record each item's bytes as a palette entry. */
static int
walk_list(walker *w, name_ref name, int hash_items, int depth)
{
	uint32_t	count;
	int			elem;
	name_ref	none = {NULL, 0};

	if (need(w, 1, "list element type"))
		return -1;
	elem = w->b[w->pos++];
	if (elem > SL_TAG_LONG_ARRAY)
		return sl_fail(w->err, SL_ERR_CORRUPT, "bcodec structure: list element type %d at offset %zu",
					   elem, w->pos - 1);
	if (read_count(w, "list length", &count))
		return -1;
	if (count > 0 && elem == SL_TAG_END)
		return sl_fail(w->err, SL_ERR_CORRUPT, "bcodec structure: list of End at offset %zu", w->pos);
	if (!hash_items && elem >= SL_TAG_BYTE && elem <= SL_TAG_DOUBLE && depth + 1 <= w->max_depth)
	{
		/* a list of numbers: no arrays or palettes within, one step over (as deep as the items') */
		static const uint8_t size[SL_TAG_DOUBLE + 1] = {0, 1, 2, 4, 8, 4, 8};

		if (need(w, (size_t) count * size[elem], "list items"))
			return -1;
		w->pos += (size_t) count * size[elem];
		return 0;
	}
	for (uint32_t i = 0; i < count; i++)
	{
		size_t		start = w->pos;

		if (walk_payload(w, elem, none, name, 0, depth + 1))
			return -1;
		if (hash_items && push_hash(w, XXH64(w->b + start, w->pos - start, 0)))
			return -1;
	}
	return 0;
}

/* Give the arrays of compound comp (from index first on) their palette. */
static void
attach_palettes(sl_bscan *s, size_t first, uint32_t comp, const uint32_t pal[2][2])
{
	for (size_t i = first; i < s->n; i++)
	{
		sl_barray  *a = &s->a[i];
		int			k = a->kind == SL_BA_MODERN ? 0 : a->kind == SL_BA_FLAT ? 1 : -1;

		if (a->comp == comp && k >= 0)
		{
			a->pal_off = pal[k][0];
			a->npal = pal[k][1];
		}
	}
}

/* Walk a compound payload (named self, for its children's parent). */
static int
walk_compound(walker *w, name_ref self, int depth)
{
	uint32_t	comp = w->s->ncomp++;
	size_t		first = w->s->n;
	uint32_t	pal[2][2] = {{0, 0}, {0, 0}};	/* modern, flat: offset, count */

	for (;;)
	{
		int			type;
		name_ref	name;
		int			k;
		size_t		before;

		sl_interrupt();
		if (need(w, 1, "tag type"))
			return -1;
		type = w->b[w->pos++];
		if (type == SL_TAG_END)
			break;
		if (type > SL_TAG_LONG_ARRAY)
			return sl_fail(w->err, SL_ERR_CORRUPT, "bcodec structure: tag type %d at offset %zu",
						   type, w->pos - 1);
		if (need(w, 2, "tag name length"))
			return -1;
		name.n = sl_get_u16be(w->b + w->pos);
		w->pos += 2;
		if (need(w, name.n, "tag name"))
			return -1;
		name.p = w->b + w->pos;
		w->pos += name.n;
		k = type != SL_TAG_LIST ? -1 : name_is(name, "palette") ? 0 : name_is(name, "Palette") ? 1 : -1;
		before = w->s->npal;
		if (type == SL_TAG_LIST)
		{
			if (walk_list(w, name, k >= 0, depth + 1))
				return -1;
		}
		else if (type == SL_TAG_BYTE_ARRAY || type == SL_TAG_INT_ARRAY || type == SL_TAG_LONG_ARRAY)
		{
			if (walk_array(w, type, name, self, comp))
				return -1;
		}
		else if (walk_payload(w, type, name, self, 0, depth + 1))
			return -1;
		if (k >= 0)
		{
			pal[k][0] = (uint32_t) before;
			pal[k][1] = (uint32_t) (w->s->npal - before);
		}
	}
	attach_palettes(w->s, first, comp, pal);
	return 0;
}

/* Walk the payload of a tag of the given type. */
static int
walk_payload(walker *w, int type, name_ref name, name_ref parent, int hash_items, int depth)
{
	static const uint8_t fixed[SL_TAG_LONG_ARRAY + 1] = {0, 1, 2, 4, 8, 4, 8};

	if (depth > w->max_depth)
		return sl_fail(w->err, SL_ERR_CORRUPT, "bcodec structure: nesting deeper than %d at offset %zu",
					   w->max_depth, w->pos);
	if (sl_hooks.stack_too_deep())
		return sl_fail(w->err, SL_ERR_LIMIT, "bcodec structure: stack too deep at offset %zu", w->pos);
	switch (type)
	{
		case SL_TAG_BYTE:
		case SL_TAG_SHORT:
		case SL_TAG_INT:
		case SL_TAG_LONG:
		case SL_TAG_FLOAT:
		case SL_TAG_DOUBLE:
			if (need(w, fixed[type], "number"))
				return -1;
			w->pos += fixed[type];
			return 0;
		case SL_TAG_STRING:
			if (need(w, 2, "string length") || need(w, 2 + (size_t) sl_get_u16be(w->b + w->pos), "string"))
				return -1;
			w->pos += 2 + (size_t) sl_get_u16be(w->b + w->pos);
			return 0;
		case SL_TAG_BYTE_ARRAY:
		case SL_TAG_INT_ARRAY:
		case SL_TAG_LONG_ARRAY:
			{
				name_ref	none = {NULL, 0};

				/* arrays that are list items have no name: never modelled */
				return walk_array(w, type, none, none, 0);
			}
		case SL_TAG_LIST:
			return walk_list(w, name, hash_items, depth);
		case SL_TAG_COMPOUND:
			return walk_compound(w, name, depth);
		default:
			return sl_fail(w->err, SL_ERR_CORRUPT, "bcodec structure: tag type %d at offset %zu",
						   type, w->pos);
	}
}

/* Walk one document at buf[*pos..len). */
int
sl_bscan_doc(const uint8_t *buf, size_t len, size_t *pos, int elided, uint32_t doc,
			 int max_depth, sl_bscan *s, sl_err *err)
{
	walker		w = {buf, len, *pos, elided, doc, max_depth, s, err};
	name_ref	name;
	int			type;

	if (need(&w, 3, "document header"))
		return -1;
	type = buf[w.pos];
	if (type == SL_TAG_END || type > SL_TAG_LONG_ARRAY)
		return sl_fail(err, SL_ERR_CORRUPT, "bcodec structure: document %u root type %d at offset %zu",
					   doc, type, w.pos);
	name.n = sl_get_u16be(buf + w.pos + 1);
	w.pos += 3;
	if (need(&w, name.n, "root name"))
		return -1;
	name.p = buf + w.pos;
	w.pos += name.n;
	if (walk_payload(&w, type, name, name, 0, 1))
		return -1;
	*pos = w.pos;
	return 0;
}

/* Free the descriptors. */
void
sl_bscan_free(sl_bscan *s)
{
	sl_free(s->a);
	sl_free(s->pal);
	memset(s, 0, sizeof(*s));
}

/* Give every palette entry hash of s a dense id from first on, equal hashes alike. */
static int
number_palettes(sl_bpal *p, const sl_bscan *s, uint32_t first, sl_err *err)
{
	size_t		cap = 64;
	uint64_t   *keys;
	uint32_t   *vals;

	while (cap < 2 * s->npal)
		cap *= 2;
	keys = sl_alloc_err(cap * sizeof(uint64_t), err);
	vals = keys ? sl_alloc_err(cap * sizeof(uint32_t), err) : NULL;
	p->ids = vals ? sl_alloc_err((s->npal + 1) * sizeof(uint32_t), err) : NULL;
	if (p->ids == NULL)
	{
		sl_free(keys);
		sl_free(vals);
		return -1;
	}
	memset(keys, 0, cap * sizeof(uint64_t));
	p->nids = first;
	for (size_t i = 0; i < s->npal; i++)
	{
		uint64_t	k = s->pal[i] | 1;
		size_t		j = (k * 0x9E3779B97F4A7C15ULL) >> 40 & (cap - 1);

		while (keys[j] && keys[j] != k)
			j = (j + 1) & (cap - 1);
		if (keys[j] == 0)
		{
			keys[j] = k;
			vals[j] = p->nids++;
		}
		p->ids[i] = vals[j];
	}
	sl_free(keys);
	sl_free(vals);
	return 0;
}

/* Number the scan's palette entries and allocate the id -> local maps. */
int
sl_bpal_init(sl_bpal *p, const sl_bscan *s, uint32_t first, sl_err *err)
{
	p->g2l = p->g2l_stamp = NULL;
	p->stamp = 0;
	p->ident = 0;
	if (number_palettes(p, s, first, err) ||
		(p->g2l = sl_alloc_err(p->nids * sizeof(uint32_t), err)) == NULL ||
		(p->g2l_stamp = sl_alloc_err(p->nids * sizeof(uint32_t), err)) == NULL)
		return -1;
	memset(p->g2l_stamp, 0, p->nids * sizeof(uint32_t));
	return 0;
}

/* Make array a's palette current (legacy arrays: the identity of npal ids). */
void
sl_bpal_set(sl_bpal *p, const sl_barray *a, uint32_t npal)
{
	if (a->kind == SL_BA_BLOCKS)
	{
		if (p->ident != npal)
			for (uint32_t q = 0; q < npal; q++)
				p->gid[q] = q;
		p->ident = npal;
		return;
	}
	p->ident = 0;
	p->stamp++;
	for (uint32_t q = 0; q < npal; q++)
	{
		uint32_t	id = p->ids[a->pal_off + q];

		p->gid[q] = id;
		if (p->g2l_stamp[id] != p->stamp)
		{
			p->g2l_stamp[id] = p->stamp;
			p->g2l[id] = q + 1;
		}
	}
}

/* Free the maps. */
void
sl_bpal_free(sl_bpal *p)
{
	sl_free(p->ids);
	sl_free(p->g2l);
	sl_free(p->g2l_stamp);
}

/* Fail unless decoded palette index v of element i of array ai is in its palette. */
int
sl_bpal_check(uint32_t v, uint32_t npal, size_t ai, int i, sl_err *err)
{
	if (v >= npal)
		return sl_fail(err, SL_ERR_CORRUPT, "bcodec: array %zu element %d: palette index %u past %u entries",
					   ai, i, v, npal);
	return 0;
}
