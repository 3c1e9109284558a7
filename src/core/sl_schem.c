/*
 * sl_schem.c - box snapshots: Sponge schematics out of and into chunks
 * (see sl_schem.h).
 *
 * Extract reads each chunk of the box once: its sections' packed indices
 * are kept (copied) with a map from section palette index to a state id of
 * the whole box, then the varints are written in schematic order (y, z, x)
 * straight from the packed longs. Paste checks the whole schematic first
 * (every varint, with a mark every 16 entries so that any run can be read
 * without decoding from the start), then rewrites each touched chunk's
 * sections: old indices mapped to schematic states or kept, the box
 * overlaid, the palette rebuilt in order of first use and the indices
 * repacked; the chunk tree is then written back, so that every tag the
 * paste does not touch keeps its bytes.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sl_blocks.h"
#include "sl_chunk.h"
#include "sl_codec.h"
#include "sl_schem.h"

#define SL_DV_1_13			1519	/* 1.13: names of the flattening table */
#define NO_INDEX			UINT32_MAX

/* ---- small helpers ---- */

/* Smallest b with 2^b >= n (0 for n <= 1). */
static int
ceil_log2(uint32_t n)
{
	int			b = 0;

	while (b < 32 && ((uint64_t) 1 << b) < n)
		b++;
	return b;
}

/* Bits per block index of a palette of n entries (at least 4, as Minecraft writes). */
static int
block_bits(uint32_t n)
{
	int			b = ceil_log2(n);

	return b < 4 ? 4 : b;
}

/* Floor division by 16. */
static inline int32_t
floor16(int64_t v)
{
	return (int32_t) (v >= 0 ? v / 16 : -((-v + 15) / 16));
}

/* Does a tag carry this (ASCII) name? */
static int
named(const sl_nbt *t, const char *name)
{
	size_t		n = strlen(name);

	return t != NULL && t->name_len == n && memcmp(t->name, name, n) == 0;
}

/* Value of an int-like tag; false when absent or of another type. */
static int
int_tag(const sl_nbt *t, int64_t *v)
{
	if (t == NULL || t->type < SL_TAG_BYTE || t->type > SL_TAG_LONG)
		return 0;
	*v = t->v.i;
	return 1;
}

static const char *
type_name(const sl_nbt *t)
{
	const char *n = sl_nbt_type_name(t->type);

	return n ? n : "?";
}

/* ---- varints and packed indices ---- */

size_t
sl_varint_put(uint8_t *p, uint32_t v)
{
	size_t		n = 0;

	while (v >= 0x80)
	{
		p[n++] = (uint8_t) (v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t) v;
	return n;
}

int
sl_varint_get(const uint8_t *buf, size_t len, size_t *pos, uint32_t *v)
{
	size_t		p = *pos;
	uint32_t	r = 0;

	for (int k = 0; k < 5; k++)
	{
		uint8_t		b;

		if (p >= len)
			return -1;
		b = buf[p++];
		if (k == 4 && (b & 0xF8))
			return -1;			/* past 2^31 or a sixth byte */
		r |= (uint32_t) (b & 0x7F) << (7 * k);
		if (!(b & 0x80))
		{
			*pos = p;
			*v = r;
			return 0;
		}
	}
	return -1;
}

void
sl_pack_indices(const uint32_t *idx, uint32_t n, int bits, int spanning, uint8_t *out)
{
	uint64_t	mask = ((uint64_t) 1 << bits) - 1;
	uint32_t	nl = sl_packed_longs(n, bits, spanning);

	if (!spanning)
	{
		uint32_t	per = 64 / bits;
		uint32_t	i = 0;

		for (uint32_t l = 0; l < nl; l++)
		{
			uint64_t	w = 0;

			for (uint32_t k = 0; k < per && i < n; k++, i++)
				w |= ((uint64_t) idx[i] & mask) << (k * bits);
			sl_put_u64be(out + 8 * (size_t) l, w);
		}
		return;
	}
	{
		uint64_t	w = 0;
		unsigned	fill = 0;
		uint32_t	l = 0;

		for (uint32_t i = 0; i < n; i++)
		{
			uint64_t	v = (uint64_t) idx[i] & mask;

			w |= v << fill;
			if (fill + bits >= 64)
			{
				sl_put_u64be(out + 8 * (size_t) l++, w);
				w = fill + bits > 64 ? v >> (64 - fill) : 0;
				fill = fill + bits - 64;
			}
			else
				fill += bits;
		}
		if (fill > 0)
			sl_put_u64be(out + 8 * (size_t) l, w);
	}
}

void
sl_unpack_indices(const uint8_t *longs, uint32_t n, int bits, int spanning, uint32_t *out)
{
	uint64_t	mask = ((uint64_t) 1 << bits) - 1;

	if (!spanning)
	{
		uint32_t	per = 64 / bits;
		uint32_t	i = 0;

		for (uint32_t l = 0; i < n; l++)
		{
			uint64_t	w = sl_get_u64be(longs + 8 * (size_t) l);

			for (uint32_t k = 0; k < per && i < n; k++, i++)
			{
				out[i] = (uint32_t) (w & mask);
				w >>= bits;
			}
		}
		return;
	}
	for (uint32_t i = 0; i < n; i++)
	{
		uint64_t	bit = (uint64_t) i * bits;
		uint32_t	l = (uint32_t) (bit >> 6);
		unsigned	off = (unsigned) (bit & 63);
		uint64_t	w = sl_get_u64be(longs + 8 * (size_t) l) >> off;

		if (off + bits > 64)
			w |= sl_get_u64be(longs + 8 * (size_t) (l + 1)) << (64 - off);
		out[i] = (uint32_t) (w & mask);
	}
}

/* Indices start..start+n-1 of packed longs (length checked by the caller), without a division per index. */
static inline void
packed_run(const uint8_t *longs, int bits, int spanning, uint32_t start, uint32_t n, uint32_t *out)
{
	uint64_t	mask = ((uint64_t) 1 << bits) - 1;

	if (!spanning)
	{
		uint32_t	per = 64 / bits;
		uint32_t	l = start / per;
		uint32_t	k = start % per;
		uint64_t	w = sl_get_u64be(longs + 8 * (size_t) l) >> (k * bits);

		for (uint32_t j = 0; j < n; j++)
		{
			out[j] = (uint32_t) (w & mask);
			w >>= bits;
			if (++k == per && j + 1 < n)
			{
				k = 0;
				w = sl_get_u64be(longs + 8 * (size_t) ++l);
			}
		}
		return;
	}
	for (uint32_t j = 0; j < n; j++)
		out[j] = sl_packed_get(longs, bits, 1, start + j);
}

/* ---- a map from strings to dense ids ---- */

typedef struct strmap
{
	uint32_t   *slots;			/* entry + 1, 0 = empty */
	uint32_t	cap;			/* slots, a power of two */
	uint32_t	n;				/* entries */
	uint32_t	ecap;
	uint64_t   *off;			/* key offset in keys */
	uint32_t   *len;
	uint32_t   *hash;
	sl_buf		keys;
} strmap;

static uint32_t
str_hash(const char *s, size_t len)
{
	uint32_t	h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t) s[i]) * 16777619u;
	return h;
}

static const char *
strmap_key(const strmap *m, uint32_t i, uint32_t *len)
{
	*len = m->len[i];
	return (const char *) m->keys.data + m->off[i];
}

/* Entry of a key, or NO_INDEX. */
static uint32_t
strmap_find(const strmap *m, const char *s, size_t len)
{
	uint32_t	h;

	if (m == NULL || m->cap == 0)
		return NO_INDEX;
	h = str_hash(s, len);
	for (uint32_t at = h & (m->cap - 1);; at = (at + 1) & (m->cap - 1))
	{
		uint32_t	e = m->slots[at];

		if (e == 0)
			return NO_INDEX;
		e--;
		if (m->hash[e] == h && m->len[e] == len &&
			memcmp(m->keys.data + m->off[e], s, len) == 0)
			return e;
	}
}

static int
strmap_grow(strmap *m, sl_err *err)
{
	uint32_t	cap = m->cap ? m->cap * 2 : 256;
	uint32_t   *slots;

	if (cap == 0 || cap > (1u << 30))
		return sl_fail(err, SL_ERR_LIMIT, "too many distinct block states");
	slots = sl_alloc_err((size_t) cap * sizeof(uint32_t), err);
	if (slots == NULL)
		return -1;
	memset(slots, 0, (size_t) cap * sizeof(uint32_t));
	for (uint32_t e = 0; e < m->n; e++)
	{
		uint32_t	at = m->hash[e] & (cap - 1);

		while (slots[at])
			at = (at + 1) & (cap - 1);
		slots[at] = e + 1;
	}
	sl_free(m->slots);
	m->slots = slots;
	m->cap = cap;
	return 0;
}

/* Entry of a key, added when new. */
static int
strmap_add(strmap *m, const char *s, size_t len, uint32_t *idx, sl_err *err)
{
	uint32_t	e = strmap_find(m, s, len);

	if (e != NO_INDEX)
	{
		*idx = e;
		return 0;
	}
	if (len > UINT32_MAX)
		return sl_fail(err, SL_ERR_LIMIT, "block state of %zu bytes", len);
	if ((uint64_t) (m->n + 1) * 2 > m->cap && strmap_grow(m, err))
		return -1;
	if (m->n == m->ecap)
	{
		uint32_t	ecap = m->ecap ? m->ecap * 2 : 64;
		uint64_t   *off = sl_realloc(m->off, (size_t) ecap * sizeof(uint64_t));
		uint32_t   *ln,
				   *hs;

		if (off == NULL)
			return sl_fail(err, SL_ERR_NOMEM, "out of memory mapping block states");
		m->off = off;
		ln = sl_realloc(m->len, (size_t) ecap * sizeof(uint32_t));
		if (ln == NULL)
			return sl_fail(err, SL_ERR_NOMEM, "out of memory mapping block states");
		m->len = ln;
		hs = sl_realloc(m->hash, (size_t) ecap * sizeof(uint32_t));
		if (hs == NULL)
			return sl_fail(err, SL_ERR_NOMEM, "out of memory mapping block states");
		m->hash = hs;
		m->ecap = ecap;
	}
	e = m->n;
	m->off[e] = m->keys.len;
	m->len[e] = (uint32_t) len;
	m->hash[e] = str_hash(s, len);
	if (sl_buf_put(&m->keys, s, len, err))
		return -1;
	{
		uint32_t	at = m->hash[e] & (m->cap - 1);

		while (m->slots[at])
			at = (at + 1) & (m->cap - 1);
		m->slots[at] = e + 1;
	}
	m->n++;
	*idx = e;
	return 0;
}

static void
strmap_free(strmap *m)
{
	if (m == NULL)
		return;
	sl_free(m->slots);
	sl_free(m->off);
	sl_free(m->len);
	sl_free(m->hash);
	sl_buf_free(&m->keys);
	memset(m, 0, sizeof(*m));
}

/* ---- canonical block states ---- */

/* A property of a state: key and value bytes, and its position. */
typedef struct kv
{
	const char *k;
	size_t		klen;
	const char *v;
	size_t		vlen;
	uint32_t	pos;
} kv;

static int
kv_cmp(const void *a, const void *b)
{
	const kv   *p = a;
	const kv   *q = b;
	size_t		n = p->klen < q->klen ? p->klen : q->klen;
	int			c = memcmp(p->k, q->k, n);

	if (c != 0)
		return c;
	if (p->klen != q->klen)
		return p->klen < q->klen ? -1 : 1;
	return p->pos < q->pos ? -1 : p->pos > q->pos;
}

/* Append name (namespaced) and sorted properties; props is reordered. */
static int
put_canonical(sl_buf *out, const char *name, size_t nlen, kv *props, uint32_t n, sl_err *err)
{
	int			first = 1;

	if (memchr(name, ':', nlen) == NULL && sl_buf_put(out, "minecraft:", 10, err))
		return -1;
	if (sl_buf_put(out, name, nlen, err))
		return -1;
	if (n == 0)
		return 0;
	qsort(props, n, sizeof(kv), kv_cmp);
	for (uint32_t i = 0; i < n; i++)
	{
		if (i + 1 < n && props[i].klen == props[i + 1].klen &&
			memcmp(props[i].k, props[i + 1].k, props[i].klen) == 0)
			continue;			/* of equal keys the last wins */
		if (sl_buf_put_u8(out, first ? '[' : ',', err) ||
			sl_buf_put(out, props[i].k, props[i].klen, err) ||
			sl_buf_put_u8(out, '=', err) ||
			sl_buf_put(out, props[i].v, props[i].vlen, err))
			return -1;
		first = 0;
	}
	return sl_buf_put_u8(out, ']', err);
}

int
sl_state_canonical(const char *s, size_t len, sl_buf *out, sl_err *err)
{
	const char *br = memchr(s, '[', len);
	size_t		nlen = br ? (size_t) (br - s) : len;
	kv			local[16];
	kv		   *props = local;
	uint32_t	n = 0;
	int			rc;

	if (nlen == 0)
		return sl_fail(err, SL_ERR_FORMAT, "block state has no name");
	for (size_t i = 0; i < nlen; i++)
		if (s[i] == ']' || s[i] == ',' || s[i] == '=' || s[i] == '\0')
			return sl_fail(err, SL_ERR_FORMAT, "block name holds a '%c'", s[i] ? s[i] : '0');
	if (br)
	{
		const char *p = br + 1;
		const char *end = s + len - 1;
		size_t		parts = 1;

		if (len - nlen < 2 || *end != ']')
			return sl_fail(err, SL_ERR_FORMAT, "block state properties do not end with ']'");
		if (p == end)
			return put_canonical(out, s, nlen, NULL, 0, err);
		for (const char *q = p; q < end; q++)
			parts += *q == ',';
		if (parts > sizeof(local) / sizeof(local[0]))
		{
			props = sl_alloc_err(parts * sizeof(kv), err);
			if (props == NULL)
				return -1;
		}
		while (p <= end)
		{
			const char *c = memchr(p, ',', (size_t) (end - p));
			const char *stop = c ? c : end;
			const char *eq = memchr(p, '=', (size_t) (stop - p));

			if (eq == NULL || eq == p)
			{
				if (props != local)
					sl_free(props);
				return sl_fail(err, SL_ERR_FORMAT, "block state property %u is not key=value", n);
			}
			for (const char *q = p; q < stop; q++)
				if (*q == '[' || *q == ']' || *q == '\0')
				{
					if (props != local)
						sl_free(props);
					return sl_fail(err, SL_ERR_FORMAT, "block state property %u holds a bracket", n);
				}
			props[n].k = p;
			props[n].klen = (size_t) (eq - p);
			props[n].v = eq + 1;
			props[n].vlen = (size_t) (stop - eq - 1);
			props[n].pos = n;
			n++;
			p = stop + 1;
		}
	}
	rc = put_canonical(out, s, nlen, props, n, err);
	if (props != local)
		sl_free(props);
	return rc;
}

/* Canonical state of a chunk palette entry {Name, Properties} (checked by sl_blocks). */
static int
canon_entry(const sl_nbt *entry, sl_buf *out, sl_err *err)
{
	const sl_nbt *name = sl_nbt_child(entry, "Name");
	const sl_nbt *props = sl_nbt_child(entry, "Properties");
	kv			local[16];
	kv		   *p = local;
	uint32_t	n = 0;
	int			rc;

	if (name == NULL || name->type != SL_TAG_STRING)
		return sl_fail(err, SL_ERR_FORMAT, "palette entry has no Name");
	if (props != NULL && props->type == SL_TAG_COMPOUND && props->v.comp.count > 0)
	{
		n = props->v.comp.count;
		if (n > sizeof(local) / sizeof(local[0]))
		{
			p = sl_alloc_err((size_t) n * sizeof(kv), err);
			if (p == NULL)
				return -1;
		}
		for (uint32_t i = 0; i < n; i++)
		{
			const sl_nbt *t = props->v.comp.items[i];

			if (t->type != SL_TAG_STRING)
			{
				if (p != local)
					sl_free(p);
				return sl_fail(err, SL_ERR_FORMAT, "palette entry property is a %s", type_name(t));
			}
			p[i].k = t->name;
			p[i].klen = t->name_len;
			p[i].v = t->v.str.s;
			p[i].vlen = t->v.str.len;
			p[i].pos = i;
		}
	}
	rc = put_canonical(out, name->v.str.s, name->v.str.len, p, n, err);
	if (p != local)
		sl_free(p);
	return rc;
}

/* Is a canonical state one of the airs? */
static int
is_air(const char *s, size_t len)
{
	return (len == 13 && memcmp(s, "minecraft:air", 13) == 0) ||
		(len == 18 && memcmp(s, "minecraft:cave_air", 18) == 0) ||
		(len == 18 && memcmp(s, "minecraft:void_air", 18) == 0);
}

/* ---- building tree nodes ---- */

static sl_nbt *
mk(sl_arena *a, uint8_t type, const char *name, sl_err *err)
{
	sl_nbt	   *t = sl_arena_alloc(a, sizeof(sl_nbt), err);

	if (t == NULL)
		return NULL;
	memset(t, 0, sizeof(*t));
	t->type = type;
	t->name = name;
	t->name_len = (uint16_t) strlen(name);
	return t;
}

static sl_nbt *
mk_string(sl_arena *a, const char *name, const char *s, size_t len, sl_err *err)
{
	sl_nbt	   *t = mk(a, SL_TAG_STRING, name, err);

	if (t)
	{
		t->v.str.s = s;
		t->v.str.len = (uint16_t) len;
	}
	return t;
}

static sl_nbt *
mk_int(sl_arena *a, uint8_t type, const char *name, int64_t v, sl_err *err)
{
	sl_nbt	   *t = mk(a, type, name, err);

	if (t)
		t->v.i = v;
	return t;
}

static sl_nbt *
mk_list(sl_arena *a, const char *name, uint8_t elem, sl_nbt **items, uint32_t n, sl_err *err)
{
	sl_nbt	   *t = mk(a, SL_TAG_LIST, name, err);

	if (t)
	{
		t->v.list.elem_type = n ? elem : SL_TAG_END;
		t->v.list.count = n;
		t->v.list.items = items;
	}
	return t;
}

static sl_nbt *
mk_compound(sl_arena *a, const char *name, sl_nbt **items, uint32_t n, sl_err *err)
{
	sl_nbt	   *t = mk(a, SL_TAG_COMPOUND, name, err);

	if (t)
	{
		t->v.comp.count = n;
		t->v.comp.items = items;
	}
	return t;
}

static sl_nbt *
mk_longs(sl_arena *a, const char *name, const uint8_t *data, uint32_t n, sl_err *err)
{
	sl_nbt	   *t = mk(a, SL_TAG_LONG_ARRAY, name, err);

	if (t)
	{
		t->v.arr.data = data;
		t->v.arr.count = n;
	}
	return t;
}

/* Replace the child of c named like child (the last of duplicates), or append it. */
static int
comp_set(sl_arena *a, sl_nbt *c, sl_nbt *child, sl_err *err)
{
	sl_nbt	  **items;

	for (uint32_t i = c->v.comp.count; i-- > 0;)
		if (c->v.comp.items[i]->name_len == child->name_len &&
			memcmp(c->v.comp.items[i]->name, child->name, child->name_len) == 0)
		{
			c->v.comp.items[i] = child;
			return 0;
		}
	items = sl_arena_alloc(a, ((size_t) c->v.comp.count + 1) * sizeof(sl_nbt *), err);
	if (items == NULL)
		return -1;
	if (c->v.comp.count)
		memcpy(items, c->v.comp.items, (size_t) c->v.comp.count * sizeof(sl_nbt *));
	items[c->v.comp.count++] = child;
	c->v.comp.items = items;
	return 0;
}

/* Remove every child of c with this name. */
static void
comp_remove(sl_nbt *c, const char *name)
{
	uint32_t	keep = 0;

	for (uint32_t i = 0; i < c->v.comp.count; i++)
		if (!named(c->v.comp.items[i], name))
			c->v.comp.items[keep++] = c->v.comp.items[i];
	c->v.comp.count = keep;
}

/* Palette node {Name, Properties} of a canonical state (strings point into canon). */
static sl_nbt *
state_node(sl_arena *a, const char *canon, size_t len, sl_err *err)
{
	const char *br = memchr(canon, '[', len);
	size_t		nlen = br ? (size_t) (br - canon) : len;
	sl_nbt	  **items = sl_arena_alloc(a, 2 * sizeof(sl_nbt *), err);
	sl_nbt	   *node;
	uint32_t	n = 0;

	if (items == NULL || nlen > UINT16_MAX)
		return nlen > UINT16_MAX ? (sl_fail(err, SL_ERR_LIMIT, "block name too long"), NULL) : NULL;
	items[n] = mk_string(a, "Name", canon, nlen, err);
	if (items[n++] == NULL)
		return NULL;
	if (br)
	{
		const char *p = br + 1;
		const char *end = canon + len - 1;
		uint32_t	np = 1;
		sl_nbt	  **props;
		uint32_t	k = 0;

		for (const char *q = p; q < end; q++)
			np += *q == ',';
		props = sl_arena_alloc(a, np * sizeof(sl_nbt *), err);
		if (props == NULL)
			return NULL;
		while (p < end)
		{
			const char *c = memchr(p, ',', (size_t) (end - p));
			const char *stop = c ? c : end;
			const char *eq = memchr(p, '=', (size_t) (stop - p));
			sl_nbt	   *t;

			if (eq == NULL || (size_t) (eq - p) > UINT16_MAX || (size_t) (stop - eq - 1) > UINT16_MAX)
				return sl_fail(err, SL_ERR_LIMIT, "block state property too long"), NULL;
			t = mk(a, SL_TAG_STRING, "", err);
			if (t == NULL)
				return NULL;
			t->name = p;
			t->name_len = (uint16_t) (eq - p);
			t->v.str.s = eq + 1;
			t->v.str.len = (uint16_t) (stop - eq - 1);
			props[k++] = t;
			p = stop + 1;
		}
		items[n] = mk_compound(a, "Properties", props, k, err);
		if (items[n++] == NULL)
			return NULL;
	}
	node = mk_compound(a, "", items, n, err);
	return node;
}

/* ---- writing NBT bytes directly ---- */

static int
put_head(sl_buf *b, uint8_t type, const char *name, size_t nlen, sl_err *err)
{
	if (nlen > UINT16_MAX)
		return sl_fail(err, SL_ERR_LIMIT, "NBT name of %zu bytes is too long", nlen);
	if (sl_buf_put_u8(b, type, err) || sl_buf_put_u16be(b, (uint16_t) nlen, err))
		return -1;
	return sl_buf_put(b, name, nlen, err);
}

static int
put_int(sl_buf *b, const char *name, int32_t v, sl_err *err)
{
	return put_head(b, SL_TAG_INT, name, strlen(name), err) ||
		sl_buf_put_u32be(b, (uint32_t) v, err) ? -1 : 0;
}

static int
put_short(sl_buf *b, const char *name, uint16_t v, sl_err *err)
{
	return put_head(b, SL_TAG_SHORT, name, strlen(name), err) ||
		sl_buf_put_u16be(b, v, err) ? -1 : 0;
}

static int
put_ints3(sl_buf *b, const char *name, int32_t x, int32_t y, int32_t z, sl_err *err)
{
	return put_head(b, SL_TAG_INT_ARRAY, name, strlen(name), err) ||
		sl_buf_put_u32be(b, 3, err) || sl_buf_put_u32be(b, (uint32_t) x, err) ||
		sl_buf_put_u32be(b, (uint32_t) y, err) || sl_buf_put_u32be(b, (uint32_t) z, err) ? -1 : 0;
}

/* ---- extract ---- */

/* What extract keeps of one section of the box. */
typedef struct ex_sec
{
	uint8_t		kind;			/* 0 air, 1 packed longs, 2 unpacked indices */
	uint8_t		bits;
	uint8_t		spanning;
	int8_t		y;
	uint32_t	npalette;
	const uint8_t *longs;		/* kind 1: NULL when every index is 0 */
	const uint16_t *idx;		/* kind 2 */
	const uint32_t *gid;		/* palette index -> state id */
} ex_sec;

typedef struct ex_ctx
{
	const sl_limits *lim;
	int			version;
	int32_t		x1,
				y1,
				z1,
				x2,
				y2,
				z2;
	int32_t		cx0,
				cz0,
				sy0;
	uint32_t	ncx,
				ncz,
				nsy;
	ex_sec	  **cols;			/* ncx * ncz, NULL: no chunk */
	sl_arena	arena;
	strmap		states;			/* canonical state -> state id */
	uint32_t   *fin;			/* state id -> schematic palette index */
	uint32_t   *fin_gid;		/* schematic palette index -> state id */
	uint32_t	fin_cap;
	uint32_t	nfin;
	uint32_t	air;			/* state id of minecraft:air, NO_INDEX until needed */
	sl_buf		bes;			/* block entity compounds (payloads) */
	uint32_t	nbes;
	int32_t		dv;
	sl_buf		scratch;
	uint16_t   *key_local;		/* legacy key -> local index + 1 (per section) */
	uint32_t   *key_list;
} ex_ctx;

/* State id of a canonical string. */
static int
ex_state(ex_ctx *c, const char *s, size_t len, uint32_t *gid, sl_err *err)
{
	if (strmap_add(&c->states, s, len, gid, err))
		return -1;
	if (c->states.n > c->fin_cap)
	{
		uint32_t	cap = c->fin_cap ? c->fin_cap * 2 : 256;
		uint32_t   *f;

		while (cap < c->states.n)
			cap *= 2;
		f = sl_realloc(c->fin, (size_t) cap * sizeof(uint32_t));
		if (f == NULL)
			return sl_fail(err, SL_ERR_NOMEM, "out of memory mapping block states");
		for (uint32_t i = c->fin_cap; i < cap; i++)
			f[i] = NO_INDEX;
		c->fin = f;
		f = sl_realloc(c->fin_gid, (size_t) cap * sizeof(uint32_t));
		if (f == NULL)
			return sl_fail(err, SL_ERR_NOMEM, "out of memory mapping block states");
		c->fin_gid = f;
		c->fin_cap = cap;
	}
	return 0;
}

/* Keep what the box needs of palette section i of an open chunk. */
static int
ex_palette_section(ex_ctx *c, const sl_chunk_blocks *cb, int i, ex_sec *r, sl_err *err)
{
	const sl_section *s = &cb->sections[i];
	uint32_t   *gid = sl_arena_alloc(&c->arena, (size_t) s->npalette * sizeof(uint32_t), err);

	if (gid == NULL)
		return -1;
	for (uint32_t k = 0; k < s->npalette; k++)
	{
		c->scratch.len = 0;
		if (canon_entry(s->palette[k], &c->scratch, err) ||
			ex_state(c, (const char *) c->scratch.data, c->scratch.len, &gid[k], err))
		{
			sl_err_prefix(err, "section Y=%d: palette entry %u", s->y, k);
			return -1;
		}
	}
	r->kind = 1;
	r->npalette = s->npalette;
	r->gid = gid;
	r->bits = s->bits;
	r->spanning = s->spanning;
	if (s->states && s->bits)
	{
		uint8_t    *copy = sl_arena_alloc(&c->arena, (size_t) s->nstates * 8, err);

		if (copy == NULL)
			return -1;
		memcpy(copy, s->states, (size_t) s->nstates * 8);
		r->longs = copy;
	}
	return 0;
}

/* The same for a legacy section (numeric ids): indices unpacked. */
static int
ex_legacy_section(ex_ctx *c, const sl_chunk_blocks *cb, int i, ex_sec *r, sl_err *err)
{
	uint16_t   *idx = sl_arena_alloc(&c->arena, SL_SECTION_VOLUME * sizeof(uint16_t), err);
	uint32_t	n = 0;
	uint32_t   *gid;

	if (idx == NULL)
		return -1;
	if (c->key_local == NULL)
	{
		c->key_local = sl_alloc_err(SL_LEGACY_KEYS * sizeof(uint16_t), err);
		c->key_list = sl_alloc_err(SL_SECTION_VOLUME * sizeof(uint32_t), err);
		if (c->key_local == NULL || c->key_list == NULL)
			return -1;
		memset(c->key_local, 0, SL_LEGACY_KEYS * sizeof(uint16_t));
	}
	for (int y = 0; y < 16; y++)
		for (int z = 0; z < 16; z++)
			for (int x = 0; x < 16; x++)
			{
				uint32_t	key;

				if (sl_section_key(cb, i, x, y, z, &key, err))
					return -1;
				key &= SL_LEGACY_KEYS - 1;
				if (c->key_local[key] == 0)
				{
					c->key_list[n++] = key;
					c->key_local[key] = (uint16_t) n;
				}
				idx[(y * 16 + z) * 16 + x] = (uint16_t) (c->key_local[key] - 1);
			}
	gid = sl_arena_alloc(&c->arena, (size_t) n * sizeof(uint32_t), err);
	if (gid == NULL)
		return -1;
	for (uint32_t k = 0; k < n; k++)
	{
		int			fallback;

		c->key_local[c->key_list[k]] = 0;
		c->scratch.len = 0;
		if (sl_legacy_state_name(c->key_list[k], &c->scratch, &fallback, err) ||
			ex_state(c, (const char *) c->scratch.data, c->scratch.len, &gid[k], err))
			return -1;
	}
	r->kind = 2;
	r->npalette = n;
	r->idx = idx;
	r->gid = gid;
	return 0;
}

/* Write one block entity of the box into c->bes. */
static int
ex_block_entity(ex_ctx *c, const sl_nbt *be, int32_t x, int32_t y, int32_t z,
				const sl_nbt *id, sl_err *err)
{
	sl_buf	   *b = &c->bes;

	if (c->version == 3)
	{
		if (put_ints3(b, "Pos", x - c->x1, y - c->y1, z - c->z1, err) ||
			put_head(b, SL_TAG_STRING, "Id", 2, err) ||
			sl_buf_put_u16be(b, id->v.str.len, err) ||
			sl_buf_put(b, id->v.str.s, id->v.str.len, err) ||
			put_head(b, SL_TAG_COMPOUND, "Data", 4, err))
			return -1;
	}
	for (uint32_t k = 0; k < be->v.comp.count; k++)
	{
		const sl_nbt *f = be->v.comp.items[k];

		if (named(f, "id") || named(f, "x") || named(f, "y") || named(f, "z"))
			continue;
		if (c->version == 2 && (named(f, "Pos") || named(f, "Id")))
			continue;			/* would clash with the schematic's own fields */
		if (sl_nbt_write(f, b, err))
			return -1;
	}
	if (c->version == 3)
	{
		if (sl_buf_put_u8(b, SL_TAG_END, err))
			return -1;
	}
	else if (put_ints3(b, "Pos", x - c->x1, y - c->y1, z - c->z1, err) ||
			 put_head(b, SL_TAG_STRING, "Id", 2, err) ||
			 sl_buf_put_u16be(b, id->v.str.len, err) ||
			 sl_buf_put(b, id->v.str.s, id->v.str.len, err))
		return -1;
	if (sl_buf_put_u8(b, SL_TAG_END, err))
		return -1;
	c->nbes++;
	return 0;
}

/* Read chunk i of v: its sections in the box and its block entities in the box. */
static int
ex_chunk(ex_ctx *c, sl_value *v, uint32_t i, sl_err *err)
{
	sl_dirent	d;
	const uint8_t *comp[SL_NCOMP];
	sl_arena	arena = {0};
	sl_nbt	   *root;
	sl_chunk_blocks cb;
	const sl_nbt *list;
	ex_sec	   *secs;
	size_t		used;
	int			rc = -1;

	if (sl_value_chunk(v, i, &d, comp, err))
		return -1;
	if (d.len[SL_COMP_REGION] == 0)
		return 0;
	if (sl_nbt_parse(comp[SL_COMP_REGION], d.len[SL_COMP_REGION], c->lim, &arena, &root, &used, err) ||
		sl_chunk_blocks_from_tree(root, d.data_version, SL_WANT_BLOCKS, &arena, &cb, err))
		goto fail;
	if (d.data_version != SL_NO_DV && (c->dv == SL_NO_DV || d.data_version > c->dv))
		c->dv = d.data_version;
	secs = sl_arena_alloc(&c->arena, (size_t) c->nsy * sizeof(ex_sec), err);
	if (secs == NULL)
		goto fail;
	memset(secs, 0, (size_t) c->nsy * sizeof(ex_sec));
	c->cols[(size_t) (d.z - c->cz0) * c->ncx + (uint32_t) (d.x - c->cx0)] = secs;
	for (int k = 0; k < cb.nsections; k++)
	{
		const sl_section *s = &cb.sections[k];
		int64_t		at = (int64_t) s->y - c->sy0;
		int			r;

		if (at < 0 || at >= c->nsy || s->kind == 0)
			continue;
		if (s->npalette > c->lim->max_palette)
		{
			sl_fail(err, SL_ERR_LIMIT, "section Y=%d: palette of %u entries exceeds the cap of %u",
					s->y, s->npalette, c->lim->max_palette);
			goto fail;
		}
		r = s->kind == SL_SEC_PALETTE ? ex_palette_section(c, &cb, k, &secs[at], err) :
			ex_legacy_section(c, &cb, k, &secs[at], err);
		if (r)
			goto fail;
		secs[at].y = (int8_t) s->y;
	}
	list = sl_chunk_block_entities(root);
	if (list && list->v.list.elem_type == SL_TAG_COMPOUND)
		for (uint32_t k = 0; k < list->v.list.count; k++)
		{
			const sl_nbt *be = list->v.list.items[k];
			const sl_nbt *id = sl_nbt_child(be, "id");
			int64_t		x,
						y,
						z;

			if (!int_tag(sl_nbt_child(be, "x"), &x) || !int_tag(sl_nbt_child(be, "y"), &y) ||
				!int_tag(sl_nbt_child(be, "z"), &z) || id == NULL || id->type != SL_TAG_STRING)
				continue;		/* Minecraft drops such an entry too */
			if (x < c->x1 || x > c->x2 || y < c->y1 || y > c->y2 || z < c->z1 || z > c->z2)
				continue;
			if (ex_block_entity(c, be, (int32_t) x, (int32_t) y, (int32_t) z, id, err))
				goto fail;
		}
	rc = 0;
fail:
	if (rc)
	{
		sl_err_prefix(err, "chunk (%d,%d)", d.x, d.z);
		if (err && err->code == SL_ERR_FORMAT)
			err->code = SL_ERR_CORRUPT;
	}
	sl_arena_free(&arena);
	return rc;
}

/* Schematic palette index of state id g, assigned on first use. */
static inline uint32_t
ex_final(ex_ctx *c, uint32_t g)
{
	if (c->fin[g] == NO_INDEX)
	{
		c->fin[g] = c->nfin;
		c->fin_gid[c->nfin++] = g;
	}
	return c->fin[g];
}

/* Write every block of the box as varints, y then z then x, at the end of doc. */
static int
ex_blocks(ex_ctx *c, sl_buf *doc, sl_err *err)
{
	uint32_t	w = (uint32_t) ((int64_t) c->x2 - c->x1 + 1);

	for (int64_t y = c->y1; y <= c->y2; y++)
	{
		uint32_t	sy = (uint32_t) (floor16(y) - c->sy0);
		uint32_t	ly = (uint32_t) (y & 15);

		sl_interrupt();
		for (int64_t z = c->z1; z <= c->z2; z++)
		{
			uint32_t	cz = (uint32_t) (floor16(z) - c->cz0);
			uint32_t	lz = (uint32_t) (z & 15);
			uint8_t    *p;

			if (sl_buf_reserve(doc, (size_t) w * 5, err))
				return -1;
			p = doc->data + doc->len;
			for (int64_t x = c->x1; x <= c->x2;)
			{
				int64_t		cxs = (int64_t) floor16(x);
				int64_t		end = cxs * 16 + 15 < c->x2 ? cxs * 16 + 15 : c->x2;
				ex_sec	   *col = c->cols[(size_t) cz * c->ncx + (uint32_t) (cxs - c->cx0)];
				const ex_sec *s = col ? &col[sy] : NULL;

				if (s == NULL || s->kind == 0)
				{
					uint32_t	f;

					if (c->air == NO_INDEX &&
						ex_state(c, "minecraft:air", 13, &c->air, err))
						return -1;
					f = ex_final(c, c->air);
					for (; x <= end; x++)
						p += sl_varint_put(p, f);
					continue;
				}
				{
					uint32_t	bi = (ly * 16 + lz) * 16 + (uint32_t) (x & 15);
					uint32_t	n = (uint32_t) (end - x + 1);
					uint32_t	row[16];

					if (s->kind == 2)
						for (uint32_t j = 0; j < n; j++)
							row[j] = s->idx[bi + j];
					else if (s->longs)
						packed_run(s->longs, s->bits, s->spanning, bi, n, row);
					else
						memset(row, 0, sizeof(row));
					for (uint32_t j = 0; j < n; j++)
					{
						if (row[j] >= s->npalette)
							return sl_fail(err, SL_ERR_CORRUPT,
										   "chunk (%d,%d): section Y=%d: palette index %u past palette of %u entries",
										   (int) cxs, (int) floor16(z), s->y, row[j], s->npalette);
						p += sl_varint_put(p, ex_final(c, s->gid[row[j]]));
					}
					x = end + 1;
				}
			}
			doc->len = (size_t) (p - doc->data);
		}
		if (doc->len > c->lim->max_value_raw)
			return sl_fail(err, SL_ERR_LIMIT, "schematic block data exceeds the cap of %zu bytes",
						   c->lim->max_value_raw);
	}
	return 0;
}

/* Write the palette compound (payload then End) named name. */
static int
ex_palette(ex_ctx *c, sl_buf *doc, const char *name, sl_err *err)
{
	if (put_head(doc, SL_TAG_COMPOUND, name, strlen(name), err))
		return -1;
	for (uint32_t f = 0; f < c->nfin; f++)
	{
		uint32_t	len;
		const char *key = strmap_key(&c->states, c->fin_gid[f], &len);

		if (len > UINT16_MAX)
			return sl_fail(err, SL_ERR_LIMIT, "block state of %u bytes is too long for a palette key", len);
		if (put_head(doc, SL_TAG_INT, key, len, err) || sl_buf_put_u32be(doc, f, err))
			return -1;
	}
	return sl_buf_put_u8(doc, SL_TAG_END, err);
}

/* The whole document: header fields, block entities, block data, palette. */
static int
ex_document(ex_ctx *c, sl_value *v, sl_buf *doc, sl_err *err)
{
	uint32_t	w = (uint32_t) ((int64_t) c->x2 - c->x1 + 1);
	uint32_t	h = (uint32_t) ((int64_t) c->y2 - c->y1 + 1);
	uint32_t	l = (uint32_t) ((int64_t) c->z2 - c->z1 + 1);
	int32_t		dv = c->dv;
	size_t		len_at;
	size_t		data_at;
	uint64_t	data_len;

	if (dv == SL_NO_DV)
		dv = v->hdr.dv_max;
	if (dv == SL_NO_DV || dv < SL_DV_1_13)
		dv = SL_DV_1_13;		/* names come from the 1.13 flattening table */
	if (c->version == 3)
	{
		if (put_head(doc, SL_TAG_COMPOUND, "", 0, err) ||
			put_head(doc, SL_TAG_COMPOUND, "Schematic", 9, err))
			return -1;
	}
	else if (put_head(doc, SL_TAG_COMPOUND, "Schematic", 9, err))
		return -1;
	if (put_int(doc, "Version", c->version, err) ||
		put_int(doc, "DataVersion", dv, err) ||
		put_short(doc, "Width", (uint16_t) w, err) ||
		put_short(doc, "Height", (uint16_t) h, err) ||
		put_short(doc, "Length", (uint16_t) l, err) ||
		put_ints3(doc, "Offset", c->x1, c->y1, c->z1, err))
		return -1;
	if (c->version == 3 && put_head(doc, SL_TAG_COMPOUND, "Blocks", 6, err))
		return -1;
	if (put_head(doc, SL_TAG_LIST, "BlockEntities", 13, err) ||
		sl_buf_put_u8(doc, c->nbes ? SL_TAG_COMPOUND : SL_TAG_END, err) ||
		sl_buf_put_u32be(doc, c->nbes, err) ||
		sl_buf_put(doc, c->bes.data, c->bes.len, err))
		return -1;
	if (c->version == 3 ? put_head(doc, SL_TAG_BYTE_ARRAY, "Data", 4, err) :
		put_head(doc, SL_TAG_BYTE_ARRAY, "BlockData", 9, err))
		return -1;
	len_at = doc->len;
	if (sl_buf_put_u32be(doc, 0, err))
		return -1;
	data_at = doc->len;
	if (sl_buf_reserve(doc, (size_t) w * h * l + 64, err) || ex_blocks(c, doc, err))
		return -1;
	data_len = doc->len - data_at;
	if (data_len > INT32_MAX)
		return sl_fail(err, SL_ERR_LIMIT, "schematic block data of %llu bytes exceeds an NBT array",
					   (unsigned long long) data_len);
	sl_put_u32be(doc->data + len_at, (uint32_t) data_len);
	if (c->version == 2 && put_int(doc, "PaletteMax", (int32_t) c->nfin, err))
		return -1;
	if (ex_palette(c, doc, "Palette", err))
		return -1;
	if (c->version == 3 && sl_buf_put_u8(doc, SL_TAG_END, err))
		return -1;				/* Blocks */
	if (sl_buf_put_u8(doc, SL_TAG_END, err))
		return -1;				/* Schematic */
	if (c->version == 3 && sl_buf_put_u8(doc, SL_TAG_END, err))
		return -1;				/* root */
	return 0;
}

int
sl_schem_extract(sl_value *v, int32_t x1, int32_t y1, int32_t z1, int32_t x2, int32_t y2,
				 int32_t z2, int version, const sl_limits *lim, sl_buf *out, sl_err *err)
{
	ex_ctx		c;
	sl_buf		doc = {0};
	uint64_t	volume;
	int64_t		ncols;
	int			rc = -1;

	if (lim == NULL)
		lim = &sl_default_limits;
	if (version != 2 && version != 3)
		return sl_fail(err, SL_ERR_INVALID, "schematic version must be 2 or 3, not %d", version);
	memset(&c, 0, sizeof(c));
	c.lim = lim;
	c.version = version;
	c.x1 = x1 < x2 ? x1 : x2;
	c.x2 = x1 < x2 ? x2 : x1;
	c.y1 = y1 < y2 ? y1 : y2;
	c.y2 = y1 < y2 ? y2 : y1;
	c.z1 = z1 < z2 ? z1 : z2;
	c.z2 = z1 < z2 ? z2 : z1;
	c.air = NO_INDEX;
	c.dv = SL_NO_DV;
	if ((int64_t) c.x2 - c.x1 >= SL_SCHEM_MAX_AXIS || (int64_t) c.y2 - c.y1 >= SL_SCHEM_MAX_AXIS ||
		(int64_t) c.z2 - c.z1 >= SL_SCHEM_MAX_AXIS)
		return sl_fail(err, SL_ERR_LIMIT,
					   "box of %lld x %lld x %lld blocks: a schematic holds at most %d per axis",
					   (long long) c.x2 - c.x1 + 1, (long long) c.y2 - c.y1 + 1,
					   (long long) c.z2 - c.z1 + 1, SL_SCHEM_MAX_AXIS);
	volume = (uint64_t) ((int64_t) c.x2 - c.x1 + 1) * (uint64_t) ((int64_t) c.y2 - c.y1 + 1) *
		(uint64_t) ((int64_t) c.z2 - c.z1 + 1);
	if (volume > lim->max_value_raw || volume > INT32_MAX)
		return sl_fail(err, SL_ERR_LIMIT, "box of %llu blocks exceeds the cap of %zu blocks",
					   (unsigned long long) volume,
					   lim->max_value_raw < INT32_MAX ? lim->max_value_raw : (size_t) INT32_MAX);
	c.cx0 = floor16(c.x1);
	c.cz0 = floor16(c.z1);
	c.sy0 = floor16(c.y1);
	c.ncx = (uint32_t) (floor16(c.x2) - c.cx0 + 1);
	c.ncz = (uint32_t) (floor16(c.z2) - c.cz0 + 1);
	c.nsy = (uint32_t) (floor16(c.y2) - c.sy0 + 1);
	ncols = (int64_t) c.ncx * c.ncz;
	c.cols = sl_alloc_err((size_t) ncols * sizeof(ex_sec *), err);
	if (c.cols == NULL)
		goto done;
	memset(c.cols, 0, (size_t) ncols * sizeof(ex_sec *));
	/* the chunks of the box, in directory order (frames read once) */
	for (uint32_t i = 0; i < v->hdr.chunk_count; i++)
	{
		sl_dirent	d;

		if ((i & 63) == 0)
			sl_interrupt();
		if (sl_value_dirent(v, i, &d, err))
			goto done;
		if (d.x < c.cx0 || (int64_t) d.x - c.cx0 >= c.ncx || d.z < c.cz0 || (int64_t) d.z - c.cz0 >= c.ncz)
			continue;
		if (ex_chunk(&c, v, i, err))
			goto done;
		if (c.bes.len > lim->max_value_raw)
		{
			sl_fail(err, SL_ERR_LIMIT, "block entities of the box exceed the cap of %zu bytes",
					lim->max_value_raw);
			goto done;
		}
	}
	if (ex_document(&c, v, &doc, err))
		goto done;
	rc = sl_deflate(SL_DEFLATE_GZIP, SL_SCHEM_GZIP_LEVEL, doc.data, doc.len, out, err);
done:
	sl_buf_free(&doc);
	sl_buf_free(&c.bes);
	sl_buf_free(&c.scratch);
	strmap_free(&c.states);
	sl_free(c.fin);
	sl_free(c.fin_gid);
	sl_free(c.cols);
	sl_free(c.key_local);
	sl_free(c.key_list);
	sl_arena_free(&c.arena);
	return rc;
}

/* ---- reading schematics ---- */

/* Unpack gzip, zlib or plain NBT of at most lim->max_value_raw bytes. */
static int
schem_unpack(const uint8_t *in, size_t len, const sl_limits *lim, uint8_t **out,
			 size_t *out_len, sl_err *err)
{
	size_t		used;

	*out = NULL;
	*out_len = 0;
	if (len >= 2 && in[0] == 0x1f && in[1] == 0x8b)
		return sl_inflate(SL_DEFLATE_GZIP, in, len, lim->max_value_raw, 0, out, out_len, &used, err);
	if (len >= 2 && (in[0] & 0x0f) == 8 && ((in[0] << 8) | in[1]) % 31 == 0)
		return sl_inflate(SL_DEFLATE_ZLIB, in, len, lim->max_value_raw, 0, out, out_len, &used, err);
	if (len > lim->max_value_raw)
		return sl_fail(err, SL_ERR_LIMIT, "schematic of %zu bytes exceeds the cap of %zu bytes",
					   len, lim->max_value_raw);
	*out = sl_alloc_err(len ? len : 1, err);
	if (*out == NULL)
		return -1;
	memcpy(*out, in, len);
	*out_len = len;
	return 0;
}

/* A dimension: Sponge reads an unsigned short, MCEdit a signed one. */
static int
read_dim(const sl_nbt *sch, const char *name, int sponge, uint32_t *out, sl_err *err)
{
	const sl_nbt *t = sl_nbt_child(sch, name);
	int64_t		v;

	if (t == NULL)
		return sl_fail(err, SL_ERR_FORMAT, "%s is missing", name);
	if (!int_tag(t, &v))
		return sl_fail(err, SL_ERR_FORMAT, "%s is a %s, not a short", name, type_name(t));
	if (t->type == SL_TAG_SHORT && sponge)
		v = (uint16_t) v;
	if (v < 0)
		return sl_fail(err, SL_ERR_FORMAT, "%s is negative (%lld)", name, (long long) v);
	if (v == 0)
		return sl_fail(err, SL_ERR_FORMAT, "%s is 0", name);
	if (v > SL_SCHEM_MAX_AXIS)
		return sl_fail(err, SL_ERR_FORMAT, "%s is %lld, more than %d", name, (long long) v,
					   SL_SCHEM_MAX_AXIS);
	*out = (uint32_t) v;
	return 0;
}

/* Add a palette state (canonical form of a name) as entry k. */
static int
add_state(sl_schem *s, uint32_t k, const char *name, size_t len, sl_buf *scratch, sl_err *err)
{
	sl_schem_state *st = &s->palette[k];
	strmap	   *map = s->map;
	uint32_t	e;
	char	   *copy;

	scratch->len = 0;
	if (sl_state_canonical(name, len, scratch, err))
		return -1;
	if (scratch->len > UINT16_MAX * 2u)
		return sl_fail(err, SL_ERR_LIMIT, "block state of %zu bytes is too long", scratch->len);
	e = strmap_find(map, (const char *) scratch->data, scratch->len);
	copy = sl_arena_alloc(&s->arena, scratch->len ? scratch->len : 1, err);
	if (copy == NULL)
		return -1;
	memcpy(copy, scratch->data, scratch->len);
	st->canon = copy;
	st->canon_len = (uint32_t) scratch->len;
	st->air = (uint8_t) is_air(copy, scratch->len);
	if (e != NO_INDEX)
	{
		st->alias = e;
		st->node = s->palette[e].node;
		return 0;
	}
	if (strmap_add(map, copy, scratch->len, &e, err))
		return -1;
	/* map entries are added in palette order: entry e is palette entry k */
	st->alias = k;
	if (e != k)
	{
		/* keep the map's ids equal to palette indices: remap */
		return sl_fail(err, SL_ERR_INVALID, "internal: palette map out of step");
	}
	st->node = state_node(&s->arena, copy, scratch->len, err);
	return st->node ? 0 : -1;
}

/*
 * The map holds one entry per distinct state while the palette may repeat
 * states: keep them in step by giving duplicate palette entries a map entry
 * too (an unreachable key), so that map id == palette index.
 */
static int
add_state_slot(sl_schem *s, uint32_t k, const char *name, size_t len, sl_buf *scratch,
			   sl_err *err)
{
	strmap	   *map = s->map;
	uint32_t	before = map->n;
	char		filler[16];
	uint32_t	e;

	if (add_state(s, k, name, len, scratch, err))
		return -1;
	if (map->n == before)
	{
		/* a duplicate: reserve id k with a key no state has ("\0" + k) */
		filler[0] = '\0';
		memcpy(filler + 1, &k, sizeof(k));
		if (strmap_add(map, filler, 1 + sizeof(k), &e, err))
			return -1;
	}
	return 0;
}

/* Sponge: palette compound (name -> index). */
static int
read_sponge_palette(sl_schem *s, const sl_nbt *pal, const char *what, sl_buf *scratch,
					sl_err *err)
{
	uint32_t	n;
	uint32_t	maxid = 0;
	int			have_air = 0;

	if (pal == NULL)
		return sl_fail(err, SL_ERR_FORMAT, "%s is missing", what);
	if (pal->type != SL_TAG_COMPOUND)
		return sl_fail(err, SL_ERR_FORMAT, "%s is a %s, not a compound", what, type_name(pal));
	n = pal->v.comp.count;
	if (n == 0 && !s->empty)
		return sl_fail(err, SL_ERR_FORMAT, "%s is empty", what);
	if (n >= UINT32_MAX - 1)
		return sl_fail(err, SL_ERR_LIMIT, "%s has too many entries", what);
	for (uint32_t k = 0; k < n; k++)
	{
		const sl_nbt *e = pal->v.comp.items[k];
		int64_t		id;

		if (!int_tag(e, &id) || e->type == SL_TAG_LONG)
			return sl_fail(err, SL_ERR_FORMAT, "%s entry %u \"%.*s\" is a %s, not an int", what, k,
						   e->name_len > 64 ? 64 : (int) e->name_len, e->name, type_name(e));
		if (id < 0 || id >= SL_SCHEM_MAX_ID)
			return sl_fail(err, SL_ERR_FORMAT, "%s entry \"%.*s\" has index %lld, outside 0..%u", what,
						   e->name_len > 64 ? 64 : (int) e->name_len, e->name, (long long) id,
						   SL_SCHEM_MAX_ID - 1);
		if ((uint32_t) id > maxid)
			maxid = (uint32_t) id;
	}
	s->palette = sl_arena_alloc(&s->arena, ((size_t) n + 1) * sizeof(sl_schem_state), err);
	s->nids = maxid + 1;
	s->pal_of_id = sl_alloc_err((size_t) s->nids * sizeof(uint32_t), err);
	if (s->palette == NULL || s->pal_of_id == NULL)
		return -1;
	memset(s->palette, 0, ((size_t) n + 1) * sizeof(sl_schem_state));
	for (uint32_t i = 0; i < s->nids; i++)
		s->pal_of_id[i] = NO_INDEX;
	for (uint32_t k = 0; k < n; k++)
	{
		const sl_nbt *e = pal->v.comp.items[k];
		uint32_t	id = (uint32_t) e->v.i;

		if ((k & 1023) == 1023)
			sl_interrupt();
		if (s->pal_of_id[id] != NO_INDEX)
			return sl_fail(err, SL_ERR_FORMAT, "%s entries %u and %u both have index %u", what,
						   s->pal_of_id[id], k, id);
		if (add_state_slot(s, k, e->name, e->name_len, scratch, err))
		{
			sl_err_prefix(err, "%s entry \"%.*s\"", what,
						  e->name_len > 64 ? 64 : (int) e->name_len, e->name);
			return -1;
		}
		/* until aliases are applied, pal_of_id holds the entry (for the duplicate check) */
		s->pal_of_id[id] = k;
		have_air |= s->palette[k].canon_len == 13 && memcmp(s->palette[k].canon, "minecraft:air", 13) == 0;
	}
	for (uint32_t i = 0; i < s->nids; i++)
		if (s->pal_of_id[i] != NO_INDEX)
			s->pal_of_id[i] = s->palette[s->pal_of_id[i]].alias;
	s->npalette = n;
	if (!have_air && add_state_slot(s, n, "minecraft:air", 13, scratch, err))
		return -1;
	if (!have_air)
		s->npalette = n + 1;
	s->air_index = strmap_find(s->map, "minecraft:air", 13);
	s->air_index = s->palette[s->air_index].alias;
	return 0;
}

/* Sponge: check every varint of the block data and mark every 16th entry. */
static int
read_sponge_data(sl_schem *s, const sl_nbt *data, const char *what, sl_err *err)
{
	uint64_t	n = 0;
	size_t		pos = 0;
	size_t		len;

	if (data == NULL)
		return sl_fail(err, SL_ERR_FORMAT, "%s is missing", what);
	if (data->type != SL_TAG_BYTE_ARRAY)
		return sl_fail(err, SL_ERR_FORMAT, "%s is a %s, not a byte array", what, type_name(data));
	len = data->v.arr.count;
	s->varints = data->v.arr.data;
	s->varints_len = len;
	if (len < s->volume)
		return sl_fail(err, SL_ERR_FORMAT,
					   "%s has %zu bytes, fewer than Width*Height*Length = %llu entries", what,
					   len, (unsigned long long) s->volume);
	s->marks = sl_alloc_err((size_t) ((s->volume + 15) / 16) * sizeof(uint32_t), err);
	if (s->marks == NULL)
		return -1;
	while (pos < len)
	{
		size_t		at = pos;
		uint32_t	v;

		if ((n & 0xFFFF) == 0)
			sl_interrupt();
		if (n == s->volume)
			return sl_fail(err, SL_ERR_FORMAT,
						   "%s holds more than Width*Height*Length = %llu entries (extra bytes from offset %zu)",
						   what, (unsigned long long) s->volume, pos);
		if ((n & 15) == 0)
			s->marks[n >> 4] = (uint32_t) pos;
		if (sl_varint_get(s->varints, len, &pos, &v))
		{
			size_t		e = at;

			while (e < len && e - at < 5 && (s->varints[e] & 0x80))
				e++;
			return sl_fail(err, SL_ERR_FORMAT, "%s: varint at byte offset %zu (entry %llu) is %s",
						   what, at, (unsigned long long) n,
						   e == len ? "truncated" : "longer than 5 bytes or past 2^31");
		}
		if (v >= s->nids || s->pal_of_id[v] == NO_INDEX)
		{
			uint64_t	x = n % s->width;
			uint64_t	z = (n / s->width) % s->length;
			uint64_t	y = n / ((uint64_t) s->width * s->length);

			return sl_fail(err, SL_ERR_FORMAT,
						   "%s: entry %llu (block %llu,%llu,%llu) is palette index %u, which the palette does not hold",
						   what, (unsigned long long) n, (unsigned long long) x,
						   (unsigned long long) y, (unsigned long long) z, v);
		}
		n++;
	}
	if (n != s->volume)
		return sl_fail(err, SL_ERR_FORMAT, "%s holds %llu entries, Width*Height*Length is %llu",
					   what, (unsigned long long) n, (unsigned long long) s->volume);
	return 0;
}

/* A block entity position (relative), checked against the box. */
static int
check_pos(const sl_schem *s, int64_t x, int64_t y, int64_t z, const char *what, uint32_t i,
		  sl_err *err)
{
	if (x < 0 || y < 0 || z < 0 || x >= s->width || y >= s->height || z >= s->length)
		return sl_fail(err, SL_ERR_FORMAT,
					   "%s[%u] at (%lld,%lld,%lld) is outside the schematic's %u x %u x %u box",
					   what, i, (long long) x, (long long) y, (long long) z, s->width, s->height,
					   s->length);
	return 0;
}

/* A list of compounds (or an empty list), or NULL when absent. */
static int
be_list(const sl_nbt *l, const char *what, sl_err *err)
{
	if (l->type != SL_TAG_LIST)
		return sl_fail(err, SL_ERR_FORMAT, "%s is a %s, not a list", what, type_name(l));
	if (l->v.list.count > 0 && l->v.list.elem_type != SL_TAG_COMPOUND)
		return sl_fail(err, SL_ERR_FORMAT, "%s is a list of %s, not of compounds", what,
					   sl_nbt_type_name(l->v.list.elem_type));
	return 0;
}

/* Sponge block entities: {Pos int[3], Id, Data{...}} (v3) or fields inline (v1, v2). */
static int
read_sponge_bes(sl_schem *s, const sl_nbt *l, const char *what, sl_err *err)
{
	if (l == NULL)
		return 0;
	if (be_list(l, what, err))
		return -1;
	s->be = sl_arena_alloc(&s->arena, ((size_t) l->v.list.count + 1) * sizeof(sl_schem_be), err);
	if (s->be == NULL)
		return -1;
	memset(s->be, 0, ((size_t) l->v.list.count + 1) * sizeof(sl_schem_be));
	for (uint32_t i = 0; i < l->v.list.count; i++)
	{
		const sl_nbt *e = l->v.list.items[i];
		const sl_nbt *pos = sl_nbt_child(e, "Pos");
		const sl_nbt *id = sl_nbt_child(e, "Id");
		sl_schem_be *b = &s->be[s->nbe];

		if (pos == NULL || pos->type != SL_TAG_INT_ARRAY || pos->v.arr.count != 3)
			return sl_fail(err, SL_ERR_FORMAT, "%s[%u].Pos is %s, not an int array of 3", what, i,
						   pos ? type_name(pos) : "missing");
		if (id == NULL || id->type != SL_TAG_STRING)
			return sl_fail(err, SL_ERR_FORMAT, "%s[%u].Id is %s, not a string", what, i,
						   id ? type_name(id) : "missing");
		b->x = (int32_t) sl_get_u32be(pos->v.arr.data);
		b->y = (int32_t) sl_get_u32be(pos->v.arr.data + 4);
		b->z = (int32_t) sl_get_u32be(pos->v.arr.data + 8);
		if (check_pos(s, b->x, b->y, b->z, what, i, err))
			return -1;
		b->id = id->v.str.s;
		b->id_len = id->v.str.len;
		if (s->version == 3)
		{
			const sl_nbt *data = sl_nbt_child(e, "Data");

			if (data != NULL && data->type != SL_TAG_COMPOUND)
				return sl_fail(err, SL_ERR_FORMAT, "%s[%u].Data is a %s, not a compound", what, i,
							   type_name(data));
			b->fields = data;
		}
		else
		{
			b->fields = e;
			b->skip_pos = 1;
		}
		s->nbe++;
	}
	return 0;
}

static int
read_sponge(sl_schem *s, const sl_nbt *sch, sl_buf *scratch, sl_err *err)
{
	const sl_nbt *holder = sch;
	const sl_nbt *off = sl_nbt_child(sch, "Offset");
	const sl_nbt *bel;
	const char *pal_what = "Palette";
	const char *data_what = "BlockData";
	const char *be_what = "BlockEntities";
	int64_t		dv;

	if (int_tag(sl_nbt_child(sch, "DataVersion"), &dv) && dv >= INT32_MIN && dv <= INT32_MAX)
		s->data_version = (int32_t) dv;
	if (off != NULL)
	{
		if (off->type != SL_TAG_INT_ARRAY || off->v.arr.count != 3)
			return sl_fail(err, SL_ERR_FORMAT, "Offset is not an int array of 3");
		for (int k = 0; k < 3; k++)
			s->offset[k] = (int32_t) sl_get_u32be(off->v.arr.data + 4 * k);
	}
	if (s->version == 3)
	{
		holder = sl_nbt_child(sch, "Blocks");
		if (holder == NULL)
			return sl_fail(err, SL_ERR_FORMAT, "Blocks is missing");
		if (holder->type != SL_TAG_COMPOUND)
			return sl_fail(err, SL_ERR_FORMAT, "Blocks is a %s, not a compound", type_name(holder));
		pal_what = "Blocks.Palette";
		data_what = "Blocks.Data";
		be_what = "Blocks.BlockEntities";
	}
	{
		const sl_nbt *data = sl_nbt_child(holder, s->version == 3 ? "Data" : "BlockData");

		/* no block data at all: an empty clipboard, air everywhere */
		s->empty = data != NULL && data->type == SL_TAG_BYTE_ARRAY && data->v.arr.count == 0;
		if (read_sponge_palette(s, sl_nbt_child(holder, "Palette"), pal_what, scratch, err) ||
			(!s->empty && read_sponge_data(s, data, data_what, err)))
			return -1;
	}
	bel = sl_nbt_child(holder, "BlockEntities");
	if (bel == NULL && s->version == 1)
	{
		bel = sl_nbt_child(holder, "TileEntities");
		be_what = "TileEntities";
	}
	return read_sponge_bes(s, bel, be_what, err);
}

/* Block entity ids of the MCEdit era (before 1.11) and the names that replaced them. */
static const char *const old_be_ids[][2] = {
	{"AirPortal", "minecraft:end_portal"}, {"Banner", "minecraft:banner"},
	{"Beacon", "minecraft:beacon"}, {"Cauldron", "minecraft:brewing_stand"},
	{"Chest", "minecraft:chest"}, {"Comparator", "minecraft:comparator"},
	{"Control", "minecraft:command_block"}, {"DLDetector", "minecraft:daylight_detector"},
	{"Dropper", "minecraft:dropper"}, {"EnchantTable", "minecraft:enchanting_table"},
	{"EndGateway", "minecraft:end_gateway"}, {"EnderChest", "minecraft:ender_chest"},
	{"FlowerPot", "minecraft:flower_pot"}, {"Furnace", "minecraft:furnace"},
	{"Hopper", "minecraft:hopper"}, {"MobSpawner", "minecraft:mob_spawner"},
	{"Music", "minecraft:noteblock"}, {"Piston", "minecraft:piston"},
	{"RecordPlayer", "minecraft:jukebox"}, {"Sign", "minecraft:sign"},
	{"Skull", "minecraft:skull"}, {"Structure", "minecraft:structure_block"},
	{"Trap", "minecraft:dispenser"}
};

/* MCEdit block entities {id, x, y, z, ...} with relative coordinates. */
static int
read_mcedit_bes(sl_schem *s, const sl_nbt *l, sl_err *err)
{
	if (l == NULL)
		return 0;
	if (be_list(l, "TileEntities", err))
		return -1;
	s->be = sl_arena_alloc(&s->arena, ((size_t) l->v.list.count + 1) * sizeof(sl_schem_be), err);
	if (s->be == NULL)
		return -1;
	memset(s->be, 0, ((size_t) l->v.list.count + 1) * sizeof(sl_schem_be));
	for (uint32_t i = 0; i < l->v.list.count; i++)
	{
		const sl_nbt *e = l->v.list.items[i];
		const sl_nbt *id = sl_nbt_child(e, "id");
		sl_schem_be *b = &s->be[s->nbe];
		int64_t		x,
					y,
					z;

		if (!int_tag(sl_nbt_child(e, "x"), &x) || !int_tag(sl_nbt_child(e, "y"), &y) ||
			!int_tag(sl_nbt_child(e, "z"), &z))
			return sl_fail(err, SL_ERR_FORMAT, "TileEntities[%u] has no x, y and z", i);
		if (id == NULL || id->type != SL_TAG_STRING)
			return sl_fail(err, SL_ERR_FORMAT, "TileEntities[%u].id is %s, not a string", i,
						   id ? type_name(id) : "missing");
		if (check_pos(s, x, y, z, "TileEntities", i, err))
			return -1;
		b->x = (int32_t) x;
		b->y = (int32_t) y;
		b->z = (int32_t) z;
		b->id = id->v.str.s;
		b->id_len = id->v.str.len;
		for (size_t k = 0; k < sizeof(old_be_ids) / sizeof(old_be_ids[0]); k++)
			if (strlen(old_be_ids[k][0]) == id->v.str.len &&
				memcmp(old_be_ids[k][0], id->v.str.s, id->v.str.len) == 0)
			{
				b->id = old_be_ids[k][1];
				b->id_len = (uint16_t) strlen(b->id);
			}
		if (memchr(b->id, ':', b->id_len) == NULL)
		{
			char	   *p = sl_arena_alloc(&s->arena, (size_t) b->id_len + 10, err);

			if (p == NULL)
				return -1;
			memcpy(p, "minecraft:", 10);
			memcpy(p + 10, b->id, b->id_len);
			if ((size_t) b->id_len + 10 > UINT16_MAX)
				return sl_fail(err, SL_ERR_FORMAT, "TileEntities[%u].id is too long", i);
			b->id = p;
			b->id_len = (uint16_t) (b->id_len + 10);
		}
		b->fields = e;
		s->nbe++;
	}
	return 0;
}

/* Name a legacy block gets when pasted: its own, else Minecraft's upgrade fallback. */
static const char *
legacy_paste_name(uint32_t key)
{
	int			id = (int) (key >> 4);
	const char *name = sl_legacy_block_name(id, (int) (key & 15));

	/* an unknown data value: the first state of the id; an unknown id: air */
	for (int d = 0; name == NULL && d < 16; d++)
		name = sl_legacy_block_name(id, d);
	return name ? name : "minecraft:air";
}

/* Legacy key of block j of an MCEdit schematic. */
static inline uint32_t
mcedit_key(const sl_schem *s, uint64_t j)
{
	uint32_t	id = s->blocks[j];

	if ((j >> 1) < s->nadd)
		id |= (uint32_t) ((s->add[j >> 1] >> ((j & 1) << 2)) & 15) << 8;
	return id << 4 | (s->data[j] & 15);
}

static int
read_mcedit(sl_schem *s, const sl_nbt *sch, sl_buf *scratch, sl_err *err)
{
	const sl_nbt *mat = sl_nbt_child(sch, "Materials");
	const sl_nbt *blocks = sl_nbt_child(sch, "Blocks");
	const sl_nbt *data = sl_nbt_child(sch, "Data");
	const sl_nbt *add = sl_nbt_child(sch, "AddBlocks");
	uint32_t	n = 0;
	uint32_t	k = 0;
	int64_t		o;
	const char *const origin[3] = {"WEOriginX", "WEOriginY", "WEOriginZ"};

	if (mat != NULL && (mat->type != SL_TAG_STRING || mat->v.str.len != 5 ||
						memcmp(mat->v.str.s, "Alpha", 5) != 0))
		return sl_fail(err, SL_ERR_UNSUPPORTED, "Materials is \"%.*s\"; only Alpha schematics are read",
					   mat->type == SL_TAG_STRING ? (mat->v.str.len > 32 ? 32 : (int) mat->v.str.len) : 0,
					   mat->type == SL_TAG_STRING ? mat->v.str.s : "");
	if (blocks->type != SL_TAG_BYTE_ARRAY)
		return sl_fail(err, SL_ERR_FORMAT, "Blocks is a %s, not a byte array", type_name(blocks));
	if (blocks->v.arr.count == 0 && data != NULL && data->type == SL_TAG_BYTE_ARRAY &&
		data->v.arr.count == 0)
	{
		/* an empty clipboard: air everywhere */
		s->empty = 1;
		s->palette = sl_arena_alloc(&s->arena, sizeof(sl_schem_state), err);
		if (s->palette == NULL)
			return -1;
		memset(s->palette, 0, sizeof(sl_schem_state));
		if (add_state_slot(s, 0, "minecraft:air", 13, scratch, err))
			return -1;
		s->npalette = 1;
		s->air_index = 0;
		return read_mcedit_bes(s, sl_nbt_child(sch, "TileEntities"), err);
	}
	if (blocks->v.arr.count != s->volume)
		return sl_fail(err, SL_ERR_FORMAT, "Blocks has %u bytes, Width*Height*Length is %llu",
					   blocks->v.arr.count, (unsigned long long) s->volume);
	if (data == NULL)
		return sl_fail(err, SL_ERR_FORMAT, "Data is missing");
	if (data->type != SL_TAG_BYTE_ARRAY)
		return sl_fail(err, SL_ERR_FORMAT, "Data is a %s, not a byte array", type_name(data));
	if (data->v.arr.count != s->volume)
		return sl_fail(err, SL_ERR_FORMAT, "Data has %u bytes, Width*Height*Length is %llu",
					   data->v.arr.count, (unsigned long long) s->volume);
	if (add != NULL && add->type != SL_TAG_BYTE_ARRAY)
		return sl_fail(err, SL_ERR_FORMAT, "AddBlocks is a %s, not a byte array", type_name(add));
	for (int a = 0; a < 3; a++)
		if (int_tag(sl_nbt_child(sch, origin[a]), &o))
			s->offset[a] = (int32_t) o;
	s->blocks = blocks->v.arr.data;
	s->data = data->v.arr.data;
	if (add)
	{
		s->add = add->v.arr.data;
		s->nadd = add->v.arr.count;
	}
	s->pal_of_key = sl_alloc_err(SL_LEGACY_KEYS * sizeof(uint32_t), err);
	if (s->pal_of_key == NULL)
		return -1;
	memset(s->pal_of_key, 0, SL_LEGACY_KEYS * sizeof(uint32_t));
	for (uint64_t j = 0; j < s->volume; j++)
	{
		uint32_t	key = mcedit_key(s, j);

		if ((j & 0xFFFF) == 0)
			sl_interrupt();
		n += s->pal_of_key[key] == 0;
		s->pal_of_key[key] = 1;
	}
	s->palette = sl_arena_alloc(&s->arena, ((size_t) n + 1) * sizeof(sl_schem_state), err);
	if (s->palette == NULL)
		return -1;
	memset(s->palette, 0, ((size_t) n + 1) * sizeof(sl_schem_state));
	for (uint32_t key = 0; key < SL_LEGACY_KEYS; key++)
	{
		const char *name;

		if (s->pal_of_key[key] == 0)
			continue;
		name = legacy_paste_name(key);
		if (add_state_slot(s, k, name, strlen(name), scratch, err))
			return -1;
		s->pal_of_key[key] = s->palette[k].alias;
		k++;
	}
	s->npalette = k;
	s->air_index = strmap_find(s->map, "minecraft:air", 13);
	if (s->air_index == NO_INDEX)
	{
		if (add_state_slot(s, k, "minecraft:air", 13, scratch, err))
			return -1;
		s->npalette = k + 1;
		s->air_index = k;
	}
	s->air_index = s->palette[s->air_index].alias;
	return read_mcedit_bes(s, sl_nbt_child(sch, "TileEntities"), err);
}

int
sl_schem_read(const uint8_t *file, size_t len, const sl_limits *lim, sl_schem *s, sl_err *err)
{
	sl_nbt	   *root;
	const sl_nbt *sch;
	const sl_nbt *inner;
	size_t		used;
	sl_buf		scratch = {0};
	int64_t		version;
	uint64_t	cap;
	int			rc = -1;

	memset(s, 0, sizeof(*s));
	s->data_version = SL_NO_DV;
	if (lim == NULL)
		lim = &sl_default_limits;
	cap = lim->max_value_raw < INT32_MAX ? lim->max_value_raw : INT32_MAX;
	s->map = sl_alloc_err(sizeof(strmap), err);
	if (s->map == NULL)
		return -1;
	memset(s->map, 0, sizeof(strmap));
	if (schem_unpack(file, len, lim, &s->nbt, &s->nbt_len, err) ||
		sl_nbt_parse(s->nbt, s->nbt_len, lim, &s->arena, &root, &used, err))
		goto done;
	if (root->type != SL_TAG_COMPOUND)
	{
		sl_fail(err, SL_ERR_FORMAT, "schematic root is a %s, not a compound", type_name(root));
		goto done;
	}
	sch = root;
	inner = sl_nbt_child(root, "Schematic");
	if (inner != NULL && inner->type == SL_TAG_COMPOUND)
		sch = inner;			/* version 3 nests its fields */
	if (!int_tag(sl_nbt_child(sch, "Version"), &version))
	{
		const sl_nbt *b = sl_nbt_child(sch, "Blocks");

		const sl_nbt *bd = sl_nbt_child(sch, "BlockData");

		if (bd != NULL && bd->type == SL_TAG_BYTE_ARRAY)
		{
			/* Gaia's .gaia files: the version 2 layout without Version */
			s->kind = SL_SCHEM_SPONGE;
			s->version = 2;
		}
		else if (b == NULL || b->type != SL_TAG_BYTE_ARRAY)
		{
			if (sl_nbt_child(sch, "size") && sl_nbt_child(sch, "palette"))
				sl_fail(err, SL_ERR_UNSUPPORTED, "a structure block file (size, palette, blocks), not a schematic");
			else
				sl_fail(err, SL_ERR_FORMAT, "not a schematic: no Version (Sponge), no BlockData (Gaia) and no Blocks byte array (MCEdit)");
			goto done;
		}
		else
			s->kind = SL_SCHEM_MCEDIT;
	}
	else
	{
		if (version < 1 || version > 3)
		{
			sl_fail(err, SL_ERR_UNSUPPORTED, "Sponge schematic version %lld is not supported (1, 2, 3 are)",
					(long long) version);
			goto done;
		}
		s->kind = SL_SCHEM_SPONGE;
		s->version = (int) version;
	}
	if (read_dim(sch, "Width", s->kind == SL_SCHEM_SPONGE, &s->width, err) ||
		read_dim(sch, "Height", s->kind == SL_SCHEM_SPONGE, &s->height, err) ||
		read_dim(sch, "Length", s->kind == SL_SCHEM_SPONGE, &s->length, err))
		goto done;
	s->volume = (uint64_t) s->width * s->height * s->length;
	if (s->volume > cap)
	{
		sl_fail(err, SL_ERR_LIMIT, "Width x Height x Length = %u x %u x %u = %llu blocks exceeds the cap of %llu blocks",
				s->width, s->height, s->length, (unsigned long long) s->volume, (unsigned long long) cap);
		goto done;
	}
	if (s->kind == SL_SCHEM_SPONGE ? read_sponge(s, sch, &scratch, err) : read_mcedit(s, sch, &scratch, err))
		goto done;
	rc = 0;
done:
	sl_buf_free(&scratch);
	return rc;
}

void
sl_schem_free(sl_schem *s)
{
	sl_free(s->pal_of_id);
	sl_free(s->marks);
	sl_free(s->pal_of_key);
	sl_free(s->nbt);
	if (s->map)
	{
		strmap_free(s->map);
		sl_free(s->map);
	}
	sl_arena_free(&s->arena);
	memset(s, 0, sizeof(*s));
}

int
sl_schem_run(const sl_schem *s, uint64_t i, uint32_t n, uint32_t *out, sl_err *err)
{
	if (i > s->volume || n > s->volume - i)
		return sl_fail(err, SL_ERR_INVALID, "schematic entries %llu..+%u out of range",
					   (unsigned long long) i, n);
	if (n == 0)
		return 0;
	if (s->empty)
	{
		for (uint32_t k = 0; k < n; k++)
			out[k] = s->air_index;
		return 0;
	}
	if (s->kind == SL_SCHEM_MCEDIT)
	{
		for (uint32_t k = 0; k < n; k++)
			out[k] = s->pal_of_key[mcedit_key(s, i + k)];
		return 0;
	}
	{
		size_t		pos = s->marks[i >> 4];
		uint32_t	v;

		for (uint32_t k = (uint32_t) (i & 15); k > 0; k--)
			if (sl_varint_get(s->varints, s->varints_len, &pos, &v))
				return sl_fail(err, SL_ERR_FORMAT, "schematic block data damaged");
		for (uint32_t k = 0; k < n; k++)
		{
			if (sl_varint_get(s->varints, s->varints_len, &pos, &v) || v >= s->nids ||
				s->pal_of_id[v] == NO_INDEX)
				return sl_fail(err, SL_ERR_FORMAT, "schematic block data damaged");
			out[k] = s->pal_of_id[v];
		}
	}
	return 0;
}

/* ---- paste ---- */

/* A block entity of the schematic and the chunk it lands in. */
typedef struct be_slot
{
	int32_t		cx,
				cz;
	uint32_t	i;
} be_slot;

typedef struct paste_ctx
{
	const sl_schem *s;
	const sl_limits *lim;
	int32_t		px,
				py,
				pz;
	int64_t		qx,
				qy,
				qz;				/* the box's maximum corner */
	int32_t		cx0,
				cx1,
				cz0,
				cz1;
	uint32_t   *stamp;			/* per state id: generation last seen */
	uint32_t   *newidx;
	uint32_t	nids;			/* schematic states + SL_MAX_PALETTE chunk entries */
	uint32_t	gen;
	be_slot    *bes;
	sl_buf		scratch;
} paste_ctx;

/* One chunk being rewritten. */
typedef struct chunk_edit
{
	sl_arena	arena;
	sl_nbt	   *root;
	sl_nbt	   *list;			/* the section list */
	sl_chunk_blocks cb;
	int32_t		cx,
				cz;
	int			modern;
	int			spanning;		/* for new sections */
	int			ymin,
				ymax;			/* sections that may hold blocks */
	int			light_flag;		/* the chunk has isLightOn (1.14+ light engine) */
} chunk_edit;

static int
be_slot_cmp(const void *a, const void *b)
{
	const be_slot *p = a;
	const be_slot *q = b;

	if (p->cx != q->cx)
		return p->cx < q->cx ? -1 : 1;
	if (p->cz != q->cz)
		return p->cz < q->cz ? -1 : 1;
	return p->i < q->i ? -1 : p->i > q->i;
}

/* First block entity slot of chunk (cx, cz) (binary search). */
static uint32_t
be_first(const paste_ctx *p, int32_t cx, int32_t cz)
{
	uint32_t	lo = 0,
				hi = p->s->nbe;

	while (lo < hi)
	{
		uint32_t	mid = lo + (hi - lo) / 2;
		const be_slot *b = &p->bes[mid];

		if (b->cx < cx || (b->cx == cx && b->cz < cz))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Does the schematic hold only air (and no block entity) in the part of the box in chunk column (cx, cz), sections sy0..sy1? */
static int
column_all_air(paste_ctx *p, int32_t cx, int32_t cz, int64_t ya, int64_t yb, int *air,
			   sl_err *err)
{
	const sl_schem *s = p->s;
	int64_t		xa = (int64_t) cx * 16 > p->px ? (int64_t) cx * 16 : p->px;
	int64_t		xb = (int64_t) cx * 16 + 15 < p->qx ? (int64_t) cx * 16 + 15 : p->qx;
	int64_t		za = (int64_t) cz * 16 > p->pz ? (int64_t) cz * 16 : p->pz;
	int64_t		zb = (int64_t) cz * 16 + 15 < p->qz ? (int64_t) cz * 16 + 15 : p->qz;
	uint32_t	run[16];

	*air = 0;
	if (ya < p->py)
		ya = p->py;
	if (yb > p->qy)
		yb = p->qy;
	for (uint32_t k = be_first(p, cx, cz); k < s->nbe && p->bes[k].cx == cx && p->bes[k].cz == cz; k++)
	{
		const sl_schem_be *b = &s->be[p->bes[k].i];

		if (p->py + (int64_t) b->y >= ya && p->py + (int64_t) b->y <= yb)
			return 0;
	}
	for (int64_t y = ya; y <= yb; y++)
	{
		if ((y & 15) == 0)
			sl_interrupt();
		for (int64_t z = za; z <= zb; z++)
		{
			uint64_t	i = (uint64_t) (xa - p->px) + (uint64_t) (z - p->pz) * s->width +
				(uint64_t) (y - p->py) * s->width * s->length;
			uint32_t	n = (uint32_t) (xb - xa + 1);

			if (sl_schem_run(s, i, n, run, err))
				return -1;
			for (uint32_t k = 0; k < n; k++)
				if (!s->palette[run[k]].air)
					return 0;
		}
	}
	*air = 1;
	return 0;
}

/* The list item of section sy: one with block data first, else any (light only). */
static sl_nbt *
section_item(const chunk_edit *e, int sy, int *has_blocks)
{
	sl_nbt	   *any = NULL;

	*has_blocks = 0;
	if (e->list == NULL || e->list->v.list.elem_type != SL_TAG_COMPOUND)
		return NULL;
	for (uint32_t i = 0; i < e->list->v.list.count; i++)
	{
		sl_nbt	   *it = e->list->v.list.items[i];
		int64_t		y;
		int			blocks;

		if (!int_tag(sl_nbt_child(it, "Y"), &y) || y != sy)
			continue;
		blocks = e->modern ? sl_nbt_child(it, "block_states") != NULL :
			sl_nbt_child(it, "Palette") != NULL && sl_nbt_child(it, "BlockStates") != NULL;
		if (blocks)
		{
			*has_blocks = 1;
			return it;
		}
		if (any == NULL)
			any = it;
	}
	return any;
}

/* Insert a new section compound into the list, in Y order. */
static int
insert_section(chunk_edit *e, sl_nbt *sec, int sy, sl_err *err)
{
	sl_nbt	   *l = e->list;
	uint32_t	n = l->v.list.count;
	uint32_t	at = n;
	sl_nbt	  **items = sl_arena_alloc(&e->arena, ((size_t) n + 1) * sizeof(sl_nbt *), err);

	if (items == NULL)
		return -1;
	for (uint32_t i = 0; i < n; i++)
	{
		int64_t		y;

		if (int_tag(sl_nbt_child(l->v.list.items[i], "Y"), &y) && y > sy)
		{
			at = i;
			break;
		}
	}
	if (at)
		memcpy(items, l->v.list.items, (size_t) at * sizeof(sl_nbt *));
	items[at] = sec;
	if (n > at)
		memcpy(items + at + 1, l->v.list.items + at, (size_t) (n - at) * sizeof(sl_nbt *));
	l->v.list.items = items;
	l->v.list.count = n + 1;
	l->v.list.elem_type = SL_TAG_COMPOUND;
	return 0;
}

/*
 * Rewrite (or create) section sy of a chunk with the schematic's blocks
 * overlaid; *changed = 0 (the section left as it is) when every block
 * state stays the same.
 */
static int
paste_section(paste_ctx *p, chunk_edit *e, int sy, int *changed, sl_err *err)
{
	const sl_schem *s = p->s;
	int64_t		bx = (int64_t) e->cx * 16,
				bz = (int64_t) e->cz * 16,
				by = (int64_t) sy * 16;
	int64_t		xa = bx > p->px ? bx : p->px,
				xb = bx + 15 < p->qx ? bx + 15 : p->qx;
	int64_t		za = bz > p->pz ? bz : p->pz,
				zb = bz + 15 < p->qz ? bz + 15 : p->qz;
	int64_t		ya = by > p->py ? by : p->py,
				yb = by + 15 < p->qy ? by + 15 : p->qy;
	const sl_section *old = NULL;
	uint32_t	g[SL_SECTION_VOLUME];
	uint32_t	idx[SL_SECTION_VOLUME];
	uint32_t	lmap[SL_MAX_PALETTE];
	uint32_t	run[16];
	int			differs = 0;
	uint32_t	base = s->npalette;
	sl_nbt	  **nodes;
	uint32_t	n = 0;
	int			bits;
	int			spanning;
	uint32_t	nl;
	uint8_t    *longs;
	sl_nbt	   *item;
	int			has_blocks;

	*changed = 0;
	for (int i = 0; i < e->cb.nsections; i++)
		if (e->cb.sections[i].y == sy && e->cb.sections[i].kind == SL_SEC_PALETTE)
			old = &e->cb.sections[i];
	if (old == NULL)
	{
		int			air;

		if (column_all_air(p, e->cx, e->cz, ya, yb, &air, err))
			return -1;
		if (air)
			return 0;			/* nothing to write where the chunk keeps no section */
		differs = 1;			/* a new section with blocks */
		if (e->ymin > e->ymax)
			return sl_fail(err, SL_ERR_INVALID,
						   "blocks at y=%lld..%lld: the chunk holds no block sections to paste into",
						   (long long) ya, (long long) yb);
		if (sy < e->ymin || sy > e->ymax)
			return sl_fail(err, SL_ERR_INVALID,
						   "blocks at y=%lld..%lld fall in section Y=%d, outside the chunk's sections (Y=%d..%d)",
						   (long long) ya, (long long) yb, sy, e->ymin, e->ymax);
		for (uint32_t k = 0; k < SL_SECTION_VOLUME; k++)
			g[k] = s->air_index;
		spanning = e->spanning;
	}
	else
	{
		if (old->npalette > p->lim->max_palette)
			return sl_fail(err, SL_ERR_LIMIT, "section Y=%d: palette of %u entries exceeds the cap of %u",
						   sy, old->npalette, p->lim->max_palette);
		/* the old states as state ids: the schematic's where it names the same state */
		for (uint32_t k = 0; k < old->npalette; k++)
		{
			uint32_t	m;

			p->scratch.len = 0;
			if (canon_entry(old->palette[k], &p->scratch, err))
				return -1;
			m = strmap_find(s->map, (const char *) p->scratch.data, p->scratch.len);
			lmap[k] = m != NO_INDEX ? s->palette[m].alias : base + k;
		}
		if (old->states)
			sl_unpack_indices(old->states, SL_SECTION_VOLUME, old->bits, old->spanning, idx);
		else
			memset(idx, 0, sizeof(idx));
		for (uint32_t k = 0; k < SL_SECTION_VOLUME; k++)
		{
			if (idx[k] >= old->npalette)
				return sl_fail(err, SL_ERR_CORRUPT, "section Y=%d: palette index %u past palette of %u entries",
							   sy, idx[k], old->npalette);
			g[k] = lmap[idx[k]];
		}
		spanning = e->modern ? 0 : old->spanning;
	}
	/* the box, row by row, noting whether any state changes */
	for (int64_t y = ya; y <= yb; y++)
		for (int64_t z = za; z <= zb; z++)
		{
			uint64_t	i = (uint64_t) (xa - p->px) + (uint64_t) (z - p->pz) * s->width +
				(uint64_t) (y - p->py) * s->width * s->length;
			uint32_t	at = (uint32_t) (((y - by) * 16 + (z - bz)) * 16 + (xa - bx));
			uint32_t	n = (uint32_t) (xb - xa + 1);

			if (sl_schem_run(s, i, n, run, err))
				return -1;
			for (uint32_t k = 0; k < n; k++)
			{
				differs |= g[at + k] != run[k];
				g[at + k] = run[k];
			}
		}
	if (!differs)
		return 0;				/* same states: the section keeps its bytes */
	*changed = 1;
	/* palette in order of first use */
	if (++p->gen == 0)
	{
		memset(p->stamp, 0, (size_t) p->nids * sizeof(uint32_t));
		p->gen = 1;
	}
	nodes = sl_arena_alloc(&e->arena, SL_SECTION_VOLUME * sizeof(sl_nbt *), err);
	if (nodes == NULL)
		return -1;
	for (uint32_t k = 0; k < SL_SECTION_VOLUME; k++)
	{
		uint32_t	v = g[k];

		if (p->stamp[v] != p->gen)
		{
			p->stamp[v] = p->gen;
			p->newidx[v] = n;
			nodes[n++] = v < base ? s->palette[v].node : old->palette[v - base];
		}
		idx[k] = p->newidx[v];
	}
	bits = block_bits(n);
	nl = sl_packed_longs(SL_SECTION_VOLUME, bits, spanning);
	longs = sl_arena_alloc(&e->arena, (size_t) nl * 8, err);
	if (longs == NULL)
		return -1;
	sl_pack_indices(idx, SL_SECTION_VOLUME, bits, spanning, longs);
	/* into the tree */
	item = section_item(e, sy, &has_blocks);
	if (item == NULL)
	{
		sl_nbt	  **items = sl_arena_alloc(&e->arena, sizeof(sl_nbt *), err);

		if (items == NULL || (items[0] = mk_int(&e->arena, SL_TAG_BYTE, "Y", sy, err)) == NULL)
			return -1;
		item = mk_compound(&e->arena, "", items, 1, err);
		if (item == NULL || insert_section(e, item, sy, err))
			return -1;
	}
	else if (e->light_flag)
	{
		/* stale now; with isLightOn 0 Minecraft ignores the chunk's stored light and relights it */
		comp_remove(item, "BlockLight");
		comp_remove(item, "SkyLight");
	}
	if (e->modern)
	{
		sl_nbt	   *bs = (sl_nbt *) sl_nbt_child(item, "block_states");
		sl_nbt	   *pal;

		if (bs == NULL || bs->type != SL_TAG_COMPOUND)
		{
			bs = mk_compound(&e->arena, "block_states", NULL, 0, err);
			if (bs == NULL || comp_set(&e->arena, item, bs, err))
				return -1;
		}
		pal = mk_list(&e->arena, "palette", SL_TAG_COMPOUND, nodes, n, err);
		if (pal == NULL || comp_set(&e->arena, bs, pal, err))
			return -1;
		if (n == 1)
			comp_remove(bs, "data");
		else
		{
			sl_nbt	   *data = mk_longs(&e->arena, "data", longs, nl, err);

			if (data == NULL || comp_set(&e->arena, bs, data, err))
				return -1;
		}
	}
	else
	{
		sl_nbt	   *pal = mk_list(&e->arena, "Palette", SL_TAG_COMPOUND, nodes, n, err);
		sl_nbt	   *data = mk_longs(&e->arena, "BlockStates", longs, nl, err);

		if (pal == NULL || data == NULL || comp_set(&e->arena, item, pal, err) ||
			comp_set(&e->arena, item, data, err))
			return -1;
	}
	return 0;
}

/* Bytes in a buffer being built: where they start, how long; p once the buffer is done. */
typedef struct span
{
	size_t		off;
	size_t		len;
	const uint8_t *p;
} span;

/* Order two spans by their bytes (a shorter prefix first). */
static int
span_cmp(const void *a, const void *b)
{
	const span *x = a;
	const span *y = b;
	int			c = memcmp(x->p, y->p, x->len < y->len ? x->len : y->len);

	return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* Point the n spans at their bytes in buf and sort them. */
static void
spans_sort(span *sp, uint32_t n, const sl_buf *buf)
{
	for (uint32_t i = 0; i < n; i++)
		sp[i].p = buf->data + sp[i].off;
	if (n > 1)
		qsort(sp, n, sizeof(span), span_cmp);
}

/*
 * Append compound c to out in canonical form: its children, each written
 * as NBT, in byte order (so that the same fields in any order give the
 * same bytes). tmp is scratch.
 */
static int
canon_compound(const sl_nbt *c, sl_buf *out, sl_buf *tmp, sl_arena *a, sl_err *err)
{
	uint32_t	n = c->v.comp.count;
	span	   *sp = sl_arena_alloc(a, ((size_t) n + 1) * sizeof(span), err);

	if (sp == NULL)
		return -1;
	tmp->len = 0;
	for (uint32_t i = 0; i < n; i++)
	{
		sp[i].off = tmp->len;
		if (sl_nbt_write(c->v.comp.items[i], tmp, err))
			return -1;
		sp[i].len = tmp->len - sp[i].off;
	}
	spans_sort(sp, n, tmp);
	for (uint32_t i = 0; i < n; i++)
		if (sl_buf_put_u32be(out, (uint32_t) sp[i].len, err) || sl_buf_put(out, sp[i].p, sp[i].len, err))
			return -1;
	return 0;
}

/*
 * Are two lists of n block entity compounds the same entries, in any order
 * and with their fields in any order?
 */
static int
same_block_entities(paste_ctx *p, chunk_edit *e, sl_nbt *const *x, sl_nbt *const *y, uint32_t n,
					int *same, sl_err *err)
{
	sl_buf		keys = {0};
	span	   *sp = sl_arena_alloc(&e->arena, 2 * ((size_t) n + 1) * sizeof(span), err);
	int			rc = -1;

	*same = 0;
	if (sp == NULL)
		return -1;
	for (uint32_t i = 0; i < 2 * n; i++)
	{
		sp[i].off = keys.len;
		if (canon_compound(i < n ? x[i] : y[i - n], &keys, &p->scratch, &e->arena, err))
			goto done;
		sp[i].len = keys.len - sp[i].off;
	}
	spans_sort(sp, n, &keys);
	spans_sort(sp + n, n, &keys);
	*same = 1;
	for (uint32_t i = 0; i < n && *same; i++)
		*same = span_cmp(&sp[i], &sp[n + i]) == 0;
	rc = 0;
done:
	sl_buf_free(&keys);
	return rc;
}

/*
 * Replace the chunk's block entities inside the box by the schematic's;
 * *changed = 0 (the list left as it is) when they are the same entries.
 */
static int
paste_block_entities(paste_ctx *p, chunk_edit *e, int *changed, sl_err *err)
{
	const sl_schem *s = p->s;
	sl_nbt	   *body = (sl_nbt *) sl_chunk_body(e->root);
	sl_nbt	   *list = (sl_nbt *) sl_chunk_block_entities(e->root);
	uint32_t	first = be_first(p, e->cx, e->cz);
	uint32_t	add = 0;
	uint32_t	keep = 0;
	uint32_t	gone = 0;
	uint32_t	n;
	sl_nbt	  **items;
	sl_nbt	  **old;
	int			same;

	*changed = 0;
	while (first + add < s->nbe && p->bes[first + add].cx == e->cx && p->bes[first + add].cz == e->cz)
		add++;
	if (list == NULL && add == 0)
		return 0;
	if (list != NULL && list->v.list.count > 0 && list->v.list.elem_type != SL_TAG_COMPOUND)
		return sl_fail(err, SL_ERR_CORRUPT, "block entity list is a list of %s",
					   sl_nbt_type_name(list->v.list.elem_type));
	n = list ? list->v.list.count : 0;
	items = sl_arena_alloc(&e->arena, ((size_t) n + add + 1) * sizeof(sl_nbt *), err);
	old = sl_arena_alloc(&e->arena, ((size_t) n + 1) * sizeof(sl_nbt *), err);
	if (items == NULL || old == NULL)
		return -1;
	for (uint32_t i = 0; i < n; i++)
	{
		sl_nbt	   *it = list->v.list.items[i];
		int64_t		x,
					y,
					z;

		if (int_tag(sl_nbt_child(it, "x"), &x) && int_tag(sl_nbt_child(it, "y"), &y) &&
			int_tag(sl_nbt_child(it, "z"), &z) &&
			x >= p->px && x <= p->qx && y >= p->py && y <= p->qy && z >= p->pz && z <= p->qz)
			old[gone++] = it;	/* inside the box: replaced */
		else
			items[keep++] = it;
	}
	for (uint32_t k = 0; k < add; k++)
	{
		const sl_schem_be *b = &s->be[p->bes[first + k].i];
		const sl_nbt *f = b->fields;
		uint32_t	nf = f ? f->v.comp.count : 0;
		sl_nbt	  **ch = sl_arena_alloc(&e->arena, ((size_t) nf + 4) * sizeof(sl_nbt *), err);
		uint32_t	m = 0;

		if (ch == NULL)
			return -1;
		for (uint32_t j = 0; j < nf; j++)
		{
			sl_nbt	   *t = f->v.comp.items[j];

			if (named(t, "id") || named(t, "x") || named(t, "y") || named(t, "z"))
				continue;
			if (b->skip_pos && (named(t, "Pos") || named(t, "Id") ||
								(s->version == 1 && named(t, "ContentVersion"))))
				continue;
			ch[m++] = t;
		}
		if ((ch[m++] = mk_string(&e->arena, "id", b->id, b->id_len, err)) == NULL ||
			(ch[m++] = mk_int(&e->arena, SL_TAG_INT, "x", p->px + (int64_t) b->x, err)) == NULL ||
			(ch[m++] = mk_int(&e->arena, SL_TAG_INT, "y", p->py + (int64_t) b->y, err)) == NULL ||
			(ch[m++] = mk_int(&e->arena, SL_TAG_INT, "z", p->pz + (int64_t) b->z, err)) == NULL)
			return -1;
		if ((items[keep + k] = mk_compound(&e->arena, "", ch, m, err)) == NULL)
			return -1;
	}
	if (gone == add)
	{
		if (same_block_entities(p, e, old, items + keep, add, &same, err))
			return -1;
		if (same)
			return 0;			/* the same entries: the list keeps its bytes */
	}
	*changed = 1;
	keep += add;
	if (list == NULL)
	{
		list = mk_list(&e->arena, e->modern ? "block_entities" : "TileEntities", SL_TAG_COMPOUND,
					   items, keep, err);
		return list == NULL || comp_set(&e->arena, body, list, err) ? -1 : 0;
	}
	list->v.list.items = items;
	list->v.list.count = keep;
	if (keep > 0)
		list->v.list.elem_type = SL_TAG_COMPOUND;
	return 0;
}

/*
 * Rewrite one chunk's region NBT with the schematic pasted; result in out.
 * *changed = 0 (out left empty) when no block state and no block entity
 * changes: the chunk is to be kept as it is.
 */
static int
paste_chunk(paste_ctx *p, const sl_dirent *d, const uint8_t *nbt, size_t len, sl_buf *out,
			int *changed, sl_err *err)
{
	chunk_edit	e;
	size_t		used;
	int			sy0 = floor16(p->py),
				sy1 = floor16(p->qy);
	sl_nbt	   *body;
	sl_nbt	   *light;
	int			blocks = 0;
	int			bes;
	int			rc = -1;

	memset(&e, 0, sizeof(e));
	e.cx = d->x;
	e.cz = d->z;
	if (sl_nbt_parse(nbt, len, p->lim, &e.arena, &e.root, &used, err) ||
		sl_chunk_blocks_from_tree(e.root, d->data_version, SL_WANT_BLOCKS, &e.arena, &e.cb, err))
	{
		if (err->code == SL_ERR_FORMAT)
			err->code = SL_ERR_CORRUPT;
		goto done;
	}
	if (e.cb.layout == SL_LAYOUT_MCREGION || e.cb.layout == SL_LAYOUT_ANVIL)
	{
		sl_fail(err, SL_ERR_UNSUPPORTED,
				"stores pre-1.13 numeric block ids (%s layout); schematics are pasted into 1.13+ chunks only",
				sl_layout_name(e.cb.layout));
		goto done;
	}
	e.modern = e.cb.layout == SL_LAYOUT_MODERN;
	body = (sl_nbt *) sl_chunk_body(e.root);
	light = (sl_nbt *) sl_nbt_child(body, "isLightOn");
	e.light_flag = light != NULL && light->type >= SL_TAG_BYTE && light->type <= SL_TAG_LONG;
	if (e.cb.layout == SL_LAYOUT_NONE)
	{
		/* no block sections: only air can be pasted (nothing to write) */
		e.ymin = 1;
		e.ymax = 0;
	}
	else
	{
		e.ymin = INT_MAX;
		e.ymax = INT_MIN;
		for (int i = 0; i < e.cb.nsections; i++)
			if (e.cb.sections[i].kind == SL_SEC_PALETTE)
			{
				if (e.cb.sections[i].y < e.ymin)
					e.ymin = e.cb.sections[i].y;
				if (e.cb.sections[i].y > e.ymax)
					e.ymax = e.cb.sections[i].y;
			}
		if (!e.modern)
		{
			/* before 1.18 Minecraft omits empty sections of a 256-high world */
			if (e.ymin > 0)
				e.ymin = 0;
			if (e.ymax < 15)
				e.ymax = 15;
		}
		e.list = (sl_nbt *) sl_nbt_child(e.root, "sections");
		if (e.list == NULL && body != e.root)
		{
			e.list = (sl_nbt *) sl_nbt_child(body, "Sections");
			if (e.list == NULL)
				e.list = (sl_nbt *) sl_nbt_child(body, "sections");
		}
		e.spanning = e.modern ? 0 : e.cb.data_version != SL_NO_DV ? e.cb.data_version < SL_DV_ALIGNED : 1;
		if (!e.modern && e.cb.data_version == SL_NO_DV)
			for (int i = 0; i < e.cb.nsections; i++)
				if (e.cb.sections[i].kind == SL_SEC_PALETTE)
					e.spanning = e.cb.sections[i].spanning;
	}
	for (int sy = sy0; sy <= sy1; sy++)
	{
		int			sec;

		sl_interrupt();
		if (paste_section(p, &e, sy, &sec, err))
		{
			if (strncmp(err->msg, "section", 7) != 0 && strncmp(err->msg, "blocks at", 9) != 0)
				sl_err_prefix(err, "section Y=%d", sy);
			goto done;
		}
		blocks |= sec;
	}
	if (paste_block_entities(p, &e, &bes, err))
		goto done;
	*changed = blocks || bes;
	if (!*changed)
	{
		rc = 0;
		goto done;
	}
	if (blocks)
	{
		/* Minecraft relights a chunk whose isLightOn is 0 and recomputes missing heightmaps */
		if (e.light_flag)
			light->v.i = 0;
		comp_remove(body, "Heightmaps");
	}
	if (sl_nbt_write(e.root, out, err))
		goto done;
	if (out->len > p->lim->max_chunk_raw)
	{
		sl_fail(err, SL_ERR_LIMIT, "would grow to %zu bytes, over the cap of %zu bytes per chunk",
				out->len, p->lim->max_chunk_raw);
		goto done;
	}
	rc = 0;
done:
	if (rc)
		sl_err_prefix(err, "chunk (%d,%d)", d->x, d->z);
	sl_arena_free(&e.arena);
	return rc;
}

/* Add a copy of len bytes as component comp of chunk d. */
static int
add_copy(sl_builder *b, int comp, const sl_dirent *d, const uint8_t *data, size_t len, sl_err *err)
{
	uint8_t    *copy = sl_alloc_err(len, err);

	if (copy == NULL)
		return -1;
	memcpy(copy, data, len);
	if (sl_builder_add(b, comp, d->x, d->z, d->timestamp, copy, len, 1, err))
	{
		sl_free(copy);
		return -1;
	}
	return 0;
}

int
sl_schem_paste(sl_value *v, const sl_schem *s, int32_t x, int32_t y, int32_t z,
			   const sl_limits *lim, sl_builder *b, sl_err *err)
{
	paste_ctx	p;
	int			rc = -1;

	if (lim == NULL)
		lim = &sl_default_limits;
	memset(&p, 0, sizeof(p));
	p.s = s;
	p.lim = lim;
	p.px = x;
	p.py = y;
	p.pz = z;
	p.qx = (int64_t) x + s->width - 1;
	p.qy = (int64_t) y + s->height - 1;
	p.qz = (int64_t) z + s->length - 1;
	if (p.qx > INT32_MAX || p.qy > INT32_MAX || p.qz > INT32_MAX)
		return sl_fail(err, SL_ERR_INVALID, "a %u x %u x %u schematic at (%d,%d,%d) reaches past the largest coordinate",
					   s->width, s->height, s->length, x, y, z);
	p.cx0 = floor16(x);
	p.cz0 = floor16(z);
	p.cx1 = floor16(p.qx);
	p.cz1 = floor16(p.qz);
	p.nids = s->npalette + SL_MAX_PALETTE;
	p.stamp = sl_alloc_err((size_t) p.nids * sizeof(uint32_t), err);
	p.newidx = sl_alloc_err((size_t) p.nids * sizeof(uint32_t), err);
	p.bes = sl_alloc_err(((size_t) s->nbe + 1) * sizeof(be_slot), err);
	if (p.stamp == NULL || p.newidx == NULL || p.bes == NULL)
		goto done;
	memset(p.stamp, 0, (size_t) p.nids * sizeof(uint32_t));
	for (uint32_t k = 0; k < s->nbe; k++)
	{
		p.bes[k].cx = floor16((int64_t) x + s->be[k].x);
		p.bes[k].cz = floor16((int64_t) z + s->be[k].z);
		p.bes[k].i = k;
	}
	if (s->nbe > 1)
		qsort(p.bes, s->nbe, sizeof(be_slot), be_slot_cmp);
	/* chunks the schematic covers but the value lacks: only air may land there */
	for (int64_t cz = p.cz0; cz <= p.cz1; cz++)
		for (int64_t cx = p.cx0; cx <= p.cx1; cx++)
		{
			int64_t		at = sl_value_find(v, (int32_t) cx, (int32_t) cz);
			sl_dirent	d;
			int			air;

			if (at >= 0)
			{
				if (sl_value_dirent(v, (uint32_t) at, &d, err))
					goto done;
				if (d.len[SL_COMP_REGION] > 0)
					continue;
			}
			if (column_all_air(&p, (int32_t) cx, (int32_t) cz, p.py, p.qy, &air, err))
				goto done;
			if (!air)
			{
				sl_fail(err, SL_ERR_INVALID,
						"chunk (%d,%d) is not in the world (or holds no region data), and the schematic puts blocks there",
						(int) cx, (int) cz);
				goto done;
			}
		}
	for (uint32_t i = 0; i < v->hdr.chunk_count; i++)
	{
		sl_dirent	d;
		const uint8_t *comp[SL_NCOMP];
		sl_buf		nbt = {0};
		int			changed;

		if ((i & 63) == 0)
			sl_interrupt();
		if (sl_value_dirent(v, i, &d, err))
			goto done;
		if (d.x < p.cx0 || d.x > p.cx1 || d.z < p.cz0 || d.z > p.cz1 || d.len[SL_COMP_REGION] == 0)
		{
			if (sl_builder_add_chunk(b, v, i, SL_ADD_KEEP, err))
				goto done;
			continue;
		}
		if (sl_value_chunk(v, i, &d, comp, err))
			goto done;
		if (paste_chunk(&p, &d, comp[SL_COMP_REGION], d.len[SL_COMP_REGION], &nbt, &changed, err))
		{
			sl_buf_free(&nbt);
			goto done;
		}
		if (!changed)
		{
			/* nothing of it changes: kept as it is (a stored reference stays one) */
			if (sl_builder_add_chunk(b, v, i, SL_ADD_KEEP, err))
				goto done;
			continue;
		}
		if (sl_builder_add(b, SL_COMP_REGION, d.x, d.z, d.timestamp, nbt.data, nbt.len, 1, err))
		{
			sl_buf_free(&nbt);
			goto done;
		}
		for (int k = 1; k < SL_NCOMP; k++)
			if (d.len[k] && add_copy(b, k, &d, comp[k], d.len[k], err))
				goto done;
		if (b->total > lim->max_value_raw)
		{
			sl_fail(err, SL_ERR_LIMIT, "the pasted world (%llu bytes) exceeds the world size cap of %zu bytes",
					(unsigned long long) b->total, lim->max_value_raw);
			goto done;
		}
	}
	rc = sl_builder_add_world(b, v, err);
done:
	sl_free(p.stamp);
	sl_free(p.newidx);
	sl_free(p.bes);
	sl_buf_free(&p.scratch);
	return rc;
}
