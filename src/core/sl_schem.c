/*
 * sl_schem.c - box snapshots: Sponge schematics out of and into chunks
 * (see sl_schem.h). This file holds what the three halves share: tag
 * helpers, varints, packed indices, the string map and canonical block
 * states, and the tree nodes of palette entries. Extract is in
 * sl_schem_extract.c, reading schematics in sl_schem_read.c, pasting into
 * chunks in sl_schem_paste.c; sl_schem_int.h declares what they share.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "sl_blocks.h"
#include "sl_chunk.h"
#include "sl_codec.h"
#include "sl_schem_int.h"

/* Does a tag carry this (ASCII) name? */
int
sl_schem_named(const sl_nbt *t, const char *name)
{
	size_t		n = strlen(name);

	return t != NULL && t->name_len == n && memcmp(t->name, name, n) == 0;
}

/* Value of an int-like tag; false when absent or of another type. */
int
sl_schem_int_tag(const sl_nbt *t, int64_t *v)
{
	if (t == NULL || t->type < SL_TAG_BYTE || t->type > SL_TAG_LONG)
		return 0;
	*v = t->v.i;
	return 1;
}

/* Name of a tag's type ("?" when unknown). */
const char *
sl_schem_type_name(const sl_nbt *t)
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

/* Pack the full longs of n indices of bits each (a constant where inlined), not spanning; the count done. */
static inline __attribute__((always_inline)) uint32_t
pack_full_longs(const uint32_t *idx, uint32_t n, int bits, uint8_t *out)
{
	uint64_t	mask = ((uint64_t) 1 << bits) - 1;
	uint32_t	per = 64 / bits,
				l = 0;

	for (; (l + 1) * per <= n; l++)
	{
		const uint32_t *q = idx + (size_t) l * per;
		uint64_t	w = 0;
		uint32_t	k = 0;

		/* four indices a step (a quarter of the loop's overhead) */
		for (; k + 4 <= per; k += 4)
			w |= ((q[k] & mask) | (q[k + 1] & mask) << bits |
				  (q[k + 2] & mask) << 2 * bits | (q[k + 3] & mask) << 3 * bits) << (k * bits);
		for (; k < per; k++)
			w |= (q[k] & mask) << (k * bits);
		sl_put_u64be(out + 8 * (size_t) l, w);
	}
	return l * per;
}

void
sl_pack_indices(const uint32_t *idx, uint32_t n, int bits, int spanning, uint8_t *out)
{
	uint64_t	mask = ((uint64_t) 1 << bits) - 1;
	uint32_t	nl = sl_packed_longs(n, bits, spanning);

	if (!spanning && bits >= 4 && bits <= 8)
	{
		/* the common widths with constant shifts; the loop below finishes the last long */
		uint32_t	done = bits == 4 ? pack_full_longs(idx, n, 4, out) :
			bits == 5 ? pack_full_longs(idx, n, 5, out) :
			bits == 6 ? pack_full_longs(idx, n, 6, out) :
			bits == 7 ? pack_full_longs(idx, n, 7, out) : pack_full_longs(idx, n, 8, out);
		uint32_t	per = 64 / bits;

		idx += done;
		out += 8 * (size_t) (done / per);
		n -= done;
		nl -= done / per;
	}
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

/* ---- a map from strings to dense ids ---- */

static uint32_t
str_hash(const char *s, size_t len)
{
	uint32_t	h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t) s[i]) * 16777619u;
	return h;
}

/* Key i of the map and its length. */
const char *
sl_schem_strmap_key(const strmap *m, uint32_t i, uint32_t *len)
{
	*len = m->len[i];
	return (const char *) m->keys.data + m->off[i];
}

/* Entry of a key, or NO_INDEX. */
uint32_t
sl_schem_strmap_find(const strmap *m, const char *s, size_t len)
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
int
sl_schem_strmap_add(strmap *m, const char *s, size_t len, uint32_t *idx, sl_err *err)
{
	uint32_t	e = sl_schem_strmap_find(m, s, len);

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

/* Free a map's memory. */
void
sl_schem_strmap_free(strmap *m)
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
int
sl_schem_canon_entry(const sl_nbt *entry, sl_buf *out, sl_err *err)
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
				return sl_fail(err, SL_ERR_FORMAT, "palette entry property is a %s", sl_schem_type_name(t));
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

/* ---- building tree nodes ---- */

/* A tag of this type and name, zeroed. */
sl_nbt *
sl_schem_mk(sl_arena *a, uint8_t type, const char *name, sl_err *err)
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

/* A string tag. */
sl_nbt *
sl_schem_mk_string(sl_arena *a, const char *name, const char *s, size_t len, sl_err *err)
{
	sl_nbt	   *t = sl_schem_mk(a, SL_TAG_STRING, name, err);

	if (t)
	{
		t->v.str.s = s;
		t->v.str.len = (uint16_t) len;
	}
	return t;
}

/* A compound of n children. */
sl_nbt *
sl_schem_mk_compound(sl_arena *a, const char *name, sl_nbt **items, uint32_t n, sl_err *err)
{
	sl_nbt	   *t = sl_schem_mk(a, SL_TAG_COMPOUND, name, err);

	if (t)
	{
		t->v.comp.count = n;
		t->v.comp.items = items;
	}
	return t;
}
