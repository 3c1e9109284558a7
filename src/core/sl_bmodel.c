/*
 * sl_bmodel.c - context models of the block codec (see sl_bmodel.h). One
 * function per array kind, each written once for both directions: the
 * range coder encodes the bit it is given or decodes one (sl_rc_bit).
 */
#include <string.h>

#include "sl_blocks.h"
#include "sl_bmodel.h"

#define TBITS_V2	20			/* version 2's context tables: at most 2^20 cells (part of the format) */
#define NONE		0xFFFFFFFFu
#define LEGACY_IDS	256			/* legacy block bytes are ids 0..255; palette ids follow */

/* State of the models over one input. */
typedef struct bmodel
{
	sl_rc	   *rc;
	sl_err	   *err;
	uint32_t   *cells;			/* hashed probability cells */
	uint32_t   *pred;			/* hashed: id + 1 of the block last seen in a context */
	int			tbits;
	sl_bpal		pal;			/* palette ids and the current array's palette */
	uint32_t	loc[32768];		/* local indices of the current array */
	uint32_t	top[256];		/* ids of the top layer of the last 16^3 block array */
	uint32_t	top_doc;		/* its document + 1; 0: none */
	const uint8_t *blocks;		/* the last Blocks array coded */
	uint32_t	blocks_doc,
				blocks_comp,
				blocks_count;
	int			grouped;		/* version 2: groups equal to their reference take one bit */
	uint8_t		ntop[4][128];	/* top layer of the last 16^3 nibble array of each kind */
	uint32_t	ntop_doc[4];	/* its document + 1; 0: none */
} bmodel;


/* Probability cell of context hash h. */
static inline uint32_t *
cell(bmodel *m, uint64_t h)
{
	return &m->cells[(h * 0xD6E8FEB86659FD93ULL) >> (64 - m->tbits)];
}

/* Code one bit in context h. */
static inline int
bit(bmodel *m, uint64_t h, int b)
{
	return sl_rc_bit(m->rc, cell(m, h), b);
}

/* Code the low nbits of v (MSB first) with a bit tree under context h. */
static uint32_t
tree(bmodel *m, uint64_t h, int nbits, uint32_t v)
{
	uint32_t	node = 1;

	for (int i = nbits - 1; i >= 0; i--)
		node = 2 * node + (uint32_t) bit(m, sl_bmix(h, node), (int) (v >> i) & 1);
	return node - (1u << nbits);
}

/* Smallest b with 2^b >= n. */
static int
ceil_log2(uint32_t n)
{
	int			b = 0;

	while (b < 31 && (1u << b) < n)
		b++;
	return b;
}

/* Index of neighbour (0 below, 1 west, 2 north) of i, or -1; XZY 128 high when tall. */
static inline int
neighbour(int i, int which, int tall)
{
	if (tall)
	{
		if (which == 0)
			return (i & 127) ? i - 1 : -1;
		if (which == 1)
			return (i >> 11) ? i - 2048 : -1;
		return (i >> 7 & 15) ? i - 128 : -1;
	}
	if (which == 0)
		return (i >> 8) ? i - 256 : -1;
	if (which == 1)
		return (i & 15) ? i - 1 : -1;
	return (i >> 4 & 15) ? i - 16 : -1;
}


/* Code block i of the current array (P entries, bits wide); returns its local index. */
static uint32_t
code_block(bmodel *m, int i, int tall, uint32_t npal, int nbits, uint64_t tree_h,
		   uint32_t below_top)
{
	uint32_t	nb[3],
				cand[4];
	int			ncand = 0;
	uint64_t	h = 0x5EED;
	uint32_t   *pred;
	uint32_t	sym = m->loc[i];
	uint32_t	v;

	for (int k = 0; k < 3; k++)
	{
		int			j = neighbour(i, k, tall);

		nb[k] = j >= 0 ? m->pal.gid[m->loc[j]] : (k == 0 ? below_top : NONE);
		h = sl_bmix(h, nb[k]);
	}
	pred = &m->pred[(h * 0xD6E8FEB86659FD93ULL) >> (64 - m->tbits)];
	if (*pred)
		cand[ncand++] = *pred - 1;
	for (int k = 0; k < 3; k++)
		if (nb[k] != NONE)
			cand[ncand++] = nb[k];
	for (int k = 0; k < ncand; k++)
	{
		uint32_t	l = sl_bpal_local(&m->pal, cand[k]);
		int			dup = 0;

		for (int q = 0; q < k; q++)
			dup |= cand[q] == cand[k];
		if (dup || l == 0)
			continue;
		if (bit(m, sl_bmix(h, k), !m->rc->decoding && sym == l - 1))
		{
			v = l - 1;
			goto done;
		}
	}
	v = tree(m, tree_h, nbits, sym);
done:
	if (v < npal)
		*pred = m->pal.gid[v] + 1;
	return v;
}

/* Store long l (big-endian) of out when it is one of its count longs. */
static inline void
put_long(uint8_t *out, uint32_t count, uint32_t l, uint64_t w)
{
	if (l < count)
		for (int k = 0; k < 8; k++)
			out[8 * l + k] = (uint8_t) (w >> (56 - 8 * k));
}

/* Pack loc[0..4096) into count longs of bits each (spanning or not), big-endian. */
static void
pack(const uint32_t *loc, int bits, int spanning, uint32_t count, uint8_t *out)
{
	uint64_t	w = 0;
	uint32_t	l = 0;
	int			off = 0;

	memset(out, 0, (size_t) count * 8);
	for (uint32_t i = 0; i < 4096; i++)
	{
		uint64_t	v = loc[i];

		if (!spanning && off + bits > 64)
		{
			put_long(out, count, l++, w);
			w = 0;
			off = 0;
		}
		w |= v << off;
		if (off + bits < 64)
			off += bits;
		else
		{
			put_long(out, count, l++, w);
			w = off + bits > 64 ? v >> (64 - off) : 0;
			off = off + bits - 64;
		}
	}
	if (off > 0)
		put_long(out, count, l, w);
}

/* Code an array's bytes with an order-1 byte model (the fallback). */
static void
code_raw(bmodel *m, const sl_barray *a, uint8_t *p)
{
	size_t		n = (size_t) a->count * a->esize;
	uint32_t	prev = 0;

	for (size_t i = 0; i < n; i++)
	{
		uint32_t	v = tree(m, sl_bmix(sl_bmix(0xBAD, a->kind), prev), 8, m->rc->decoding ? 0 : p[i]);

		if (m->rc->decoding)
			p[i] = (uint8_t) v;
		prev = v;
	}
}

/* Whether a packed array holds exactly the 4096 indices < npal it would be packed from. */
static int
packed_exact(bmodel *m, const uint8_t *p, uint32_t count, int bits, int spanning, uint32_t npal,
			 uint8_t *scratch)
{
	for (uint32_t i = 0; i < 4096; i++)
	{
		m->loc[i] = sl_packed_get(p, bits, spanning, i);
		if (m->loc[i] >= npal)
			return 0;
	}
	pack(m->loc, bits, spanning, count, scratch);
	return memcmp(scratch, p, (size_t) count * 8) == 0;
}


/*
 * Version 2 codes an array in groups: a "big" group (a 16x16 layer, or a
 * 128-block column of a tall array) and its 16-element rows each take one
 * bit "every element equals its reference" (the element below, or for the
 * lowest layer the top layer of the kind's previous array in the document;
 * in a tall array the column north, else west). Only elements of rows that
 * differ are coded one by one.
 */
#define BIG_FLAG	0x6B16
#define ROW_FLAG	0x5140

/* Offset back to the reference of group g's elements: 0 none, -1 the previous array's top. */
static inline int
group_ref(int g, int tall, int have_top)
{
	if (tall)
		return (g >> 7 & 15) ? 128 : (g >> 11) ? 2048 : 0;
	return g >= 256 ? 256 : have_top ? -1 : 0;
}

/* Local index block i's reference holds (off from group_ref), or -1 when none is in the palette. */
static inline int32_t
ref_local(bmodel *m, int i, int off)
{
	return off > 0 ? (int32_t) m->loc[i - off] : (int32_t) sl_bpal_local(&m->pal, m->top[i]) - 1;
}

/* One array's walk in groups: what is coded, and how its flags and elements are. */
typedef struct gwalk
{
	bmodel	   *m;
	const sl_barray *a;
	size_t		ai;				/* its index in the scan */
	uint8_t    *p;				/* nibble arrays: the payload */
	int			tall,
				have_top,		/* the previous array's top layer is this one's reference */
				with_blocks;	/* nibble arrays: the Blocks array beside it is known */
	uint32_t	salt,			/* 0 blocks, 1 nibbles */
				key;			/* the array's kind (blocks) or name (nibbles) */
	uint32_t	npal;			/* blocks: palette entries, index bits, bit tree context */
	int			nbits;
	uint64_t	tree_h;
	/* code the flag of elements [g, g+len) all equal to their references at offset off */
	int			(*same) (struct gwalk *w, int g, int len, int off, uint64_t h, int *same);
	/* code element i on its own */
	int			(*one) (struct gwalk *w, int i);
} gwalk;

/* Code the flag of blocks [g, g+len): all equal their references (copied when decoding). */
static int
blocks_same(gwalk *w, int g, int len, int off, uint64_t h, int *same)
{
	bmodel	   *m = w->m;
	int			eq = 1;

	if (!m->rc->decoding)
		for (int i = g; i < g + len && eq; i++)
			eq = ref_local(m, i, off) == (int32_t) m->loc[i];
	*same = bit(m, h, eq);
	if (*same && m->rc->decoding)
		for (int i = g; i < g + len; i++)
		{
			int32_t		r = ref_local(m, i, off);

			if (r < 0)
				return sl_fail(m->err, SL_ERR_CORRUPT,
							   "bcodec: array %zu block %d: flagged as the block below, which its palette lacks",
							   w->ai, i);
			m->loc[i] = (uint32_t) r;
		}
	return 0;
}

/* Code block i on its own. */
static int
block_one(gwalk *w, int i)
{
	bmodel	   *m = w->m;
	uint32_t	bt = (!w->tall && w->have_top && (i >> 8) == 0) ? m->top[i & 255] : NONE;
	uint32_t	v = code_block(m, i, w->tall, w->npal, w->nbits, w->tree_h, bt);

	if (sl_bpal_check(v, w->npal, w->ai, i, m->err))
		return -1;
	m->loc[i] = v;
	return 0;
}

/* Code the n elements of an array: one by one (version 1) or in groups (version 2). */
static int
walk_groups(gwalk *w, int n)
{
	int			big = w->tall ? 128 : 256;
	int			prev_big = 2;
	int			rowf[16];		/* the row flags of the group before: 0, 1, 2 none, 3 all same */

	for (int k = 0; k < 16; k++)
		rowf[k] = 2;
	for (int g = 0; g < n; g += big)
	{
		int			off = w->m->grouped ? group_ref(g, w->tall, w->have_top) : 0;
		int			same = 0,
					prev_row = 2;

		if (off != 0 && w->same(w, g, big, off, sl_bmix(sl_bmix(BIG_FLAG + w->salt, w->key), prev_big), &same))
			return -1;
		prev_big = off != 0 ? same : 2;
		if (same)
			for (int k = 0; k < 16; k++)
				rowf[k] = 3;
		for (int r = g; !same && r < g + big; r += 16)
		{
			int			rsame = 0;

			if (off != 0 &&
				w->same(w, r, 16, off, sl_bmix(sl_bmix(sl_bmix(ROW_FLAG + w->salt, w->key), prev_row), rowf[(r - g) >> 4]),
						&rsame))
				return -1;
			prev_row = rowf[(r - g) >> 4] = off != 0 ? rsame : 2;
			for (int i = r; !rsame && i < r + 16; i++)
				if (w->one(w, i))
					return -1;
		}
	}
	return 0;
}

/* Code a block array (modern, flat or legacy Blocks); index ai of the scan. */
static int
code_blocks(bmodel *m, const sl_barray *a, size_t ai, uint8_t *p, uint8_t *scratch)
{
	int			legacy = a->kind == SL_BA_BLOCKS;
	int			tall = legacy && a->count == 32768;
	uint32_t	npal = legacy ? 256 : a->npal;
	int			nbits = legacy ? 8 : ceil_log2(npal) < 4 ? 4 : ceil_log2(npal);
	int			spanning = 0;
	int			n = tall ? 32768 : 4096;
	int			ok = 1,
				fits;
	uint64_t	tree_h;

	if (!legacy)
	{
		if (npal == 0 || npal > SL_MAX_PALETTE)
			ok = 0;
		else if (a->count == sl_packed_longs(4096, nbits, 0))
			spanning = 0;
		else if (a->count == sl_packed_longs(4096, nbits, 1))
			spanning = 1;
		else
			ok = 0;
		fits = ok;
		if (ok && !m->rc->decoding)
			ok = packed_exact(m, p, a->count, nbits, spanning, npal, scratch);
		if (!bit(m, sl_bmix(0x40DE, a->kind), ok))
		{
			code_raw(m, a, p);
			m->top_doc = 0;
			return 0;
		}
		if (!fits)
			return sl_fail(m->err, SL_ERR_CORRUPT,
						   "bcodec: array %zu (block states, %u longs, palette of %u) flagged modelled but does not fit",
						   ai, a->count, npal);
	}
	else if (!m->rc->decoding)
		for (int i = 0; i < n; i++)
			m->loc[i] = p[i];
	sl_bpal_set(&m->pal, a, npal);
	tree_h = legacy ? sl_bmix(0x1E6, a->kind) : sl_bmix(0x7EE, ai);
	{
		gwalk		w = {m, a, ai, NULL, tall, !tall && m->top_doc == a->doc + 1, 0, 0, a->kind,
		npal, nbits, legacy ? sl_bmix(tree_h, 0) : tree_h, blocks_same, block_one};

		if (walk_groups(&w, n))
			return -1;
	}
	if (m->rc->decoding)
	{
		if (legacy)
			for (int i = 0; i < n; i++)
				p[i] = (uint8_t) m->loc[i];
		else
			pack(m->loc, nbits, spanning, a->count, p);
	}
	if (!tall)
	{
		for (int i = 0; i < 256; i++)
			m->top[i] = m->pal.gid[m->loc[15 * 256 + i]];
		m->top_doc = a->doc + 1;
	}
	if (legacy)
	{
		m->blocks = p;
		m->blocks_doc = a->doc;
		m->blocks_comp = a->comp;
		m->blocks_count = a->count;
	}
	return 0;
}

/* Nibble i of a nibble array (low nibble first). */
static inline uint32_t
nib(const uint8_t *p, int i)
{
	return (p[i >> 1] >> ((i & 1) * 4)) & 15;
}

/* Code nibble i of a nibble array on its own. */
static int
nibble_one(gwalk *w, int i)
{
	bmodel	   *m = w->m;
	uint8_t    *p = w->p;
	uint64_t	h = sl_bmix(0x71B, w->a->sub);
	uint32_t	nb[3],
				v;

	for (int k = 0; k < 3; k++)
	{
		int			j = neighbour(i, k, w->tall);

		nb[k] = j >= 0 ? nib(p, j) : 16;
		h = sl_bmix(h, nb[k]);
	}
	h = sl_bmix(h, w->with_blocks ? m->blocks[i] : 256);
	v = m->rc->decoding ? 0 : nib(p, i);
	if (nb[0] != 16 && bit(m, h, v == nb[0]))
		v = nb[0];
	else
		v = tree(m, h + 1, 4, v);
	if (m->rc->decoding)
		p[i >> 1] |= (uint8_t) (v << ((i & 1) * 4));
	return 0;
}

/* Code the flag of nibbles [g, g+len) (whole bytes): all equal their references. */
static int
nibbles_same(gwalk *w, int g, int len, int off, uint64_t h, int *same)
{
	bmodel	   *m = w->m;
	const uint8_t *ref = off > 0 ? w->p + (g - off) / 2 : m->ntop[w->a->sub] + g / 2;

	*same = bit(m, h, !m->rc->decoding && memcmp(w->p + g / 2, ref, len / 2) == 0);
	if (*same && m->rc->decoding)
		memcpy(w->p + g / 2, ref, len / 2);
	return 0;
}

/* Code a nibble array (light, Data, Add). */
static void
code_nibbles(bmodel *m, const sl_barray *a, uint8_t *p)
{
	int			tall = a->count == 16384;
	gwalk		w = {m, a, 0, p, tall, !tall && m->ntop_doc[a->sub] == a->doc + 1,
		m->blocks && m->blocks_doc == a->doc && m->blocks_comp == a->comp &&
		m->blocks_count == a->count * 2, 1, a->sub, 0, 0, 0, nibbles_same, nibble_one};

	walk_groups(&w, (int) a->count * 2);
	if (!tall)
	{
		memcpy(m->ntop[a->sub], p + 1920, 128);
		m->ntop_doc[a->sub] = a->doc + 1;
	}
}

/* Allocate the tables, sized by raw_len. */
static int
model_init(bmodel *m, const sl_bscan *s, size_t raw_len)
{
	size_t		ncells;

	m->tbits = 10;
	while (m->tbits < (m->grouped ? TBITS_V2 : 22) && ((size_t) 1 << m->tbits) < raw_len)
		m->tbits++;
	ncells = (size_t) 1 << m->tbits;
	if (sl_bpal_init(&m->pal, s, LEGACY_IDS, m->err))
		return -1;
	m->cells = sl_alloc_err(ncells * sizeof(uint32_t), m->err);
	m->pred = m->cells ? sl_alloc_err(ncells * sizeof(uint32_t), m->err) : NULL;
	if (m->pred == NULL)
		return -1;
	for (size_t i = 0; i < ncells; i++)
		m->cells[i] = SL_RC_INIT;
	memset(m->pred, 0, ncells * sizeof(uint32_t));
	return 0;
}

/* Free the tables. */
static void
model_free(bmodel *m)
{
	sl_free(m->cells);
	sl_free(m->pred);
	sl_bpal_free(&m->pal);
	sl_free(m);
}

/* Code every array of the scan with the models of version (1 or 2). */
int
sl_bmodel_code(sl_rc *rc, const sl_bscan *s, uint8_t *const *payload, size_t raw_len,
			   int version, sl_err *err)
{
	bmodel	   *m = sl_alloc_err(sizeof(bmodel), err);
	uint8_t    *scratch = m ? sl_alloc_err(4096 * 8, err) : NULL;
	int			rc_ok = 0;

	if (scratch == NULL)
	{
		sl_free(m);
		return -1;
	}
	memset(m, 0, sizeof(*m));
	m->rc = rc;
	m->err = err;
	m->grouped = version >= 2;
	if (model_init(m, s, raw_len))
		rc_ok = -1;
	for (size_t i = 0; rc_ok == 0 && i < s->n; i++)
	{
		const sl_barray *a = &s->a[i];

		sl_interrupt();
		if (rc->decoding)
			memset(payload[i], 0, (size_t) a->count * a->esize);
		if (a->kind == SL_BA_NIBBLE)
			code_nibbles(m, a, payload[i]);
		else if (code_blocks(m, a, i, payload[i], scratch))
			rc_ok = -1;
	}
	sl_free(scratch);
	model_free(m);
	return rc_ok;
}
