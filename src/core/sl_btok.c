/*
 * sl_btok.c - copy and literal tokens of block codec versions 3 and 4 (see
 * sl_btok.h; 4 also models a token's kind and count under which of its
 * element's references agree): the encoder's greedy longest copy, and one
 * coding function per token part shared by both directions (sl_rc_bit
 * encodes the bit it is given or decodes one), with small directly indexed
 * context tables.
 */
#include <stddef.h>
#include <string.h>

#include "sl_bcodec.h"
#include "sl_blocks.h"
#include "sl_bheight.h"
#include "sl_btok.h"
#include "sl_schem.h"

#define NONE		0xFFFFFFFFu
#define LEGACY_IDS	4096		/* legacy blocks are ids id << 4 | data; palette ids follow */
#define HASH_MIN	10			/* the hashed tables: 2^10 .. 2^16 cells by the arrays' size */
#define HASH_MAX	16
#define MAXNB		16			/* a count is below 2^16 */
#define NEAR		64			/* how far ahead a token looks for a boundary beside it */
#define NIB_COPY_MIN 6			/* the encoder's shortest copy in a nibble array */
#define AGREE		5			/* which references agree: none, b = w, b = n, w = n, all */
#define COPY_STEP	16			/* elements a block copy moves at once (no block offset is smaller, but 1) */

/* Element offsets of below, west and north: blocks in a 16^3 (YZX) or tall (XZY) array. */
static const int offs_flat[3] = {256, 1, 16};
static const int offs_tall[3] = {1, 2048, 128};

/* Nibble arrays, in bytes (two nibbles each along x, or along y when tall). */
static const int noffs_flat[3] = {128, 1, 8};
static const int noffs_tall[3] = {1, 1024, 64};

/* Offsets of the two neighbours whose token boundaries are context (the layer and the row before). */
static const int bnd_flat[2] = {256, 16};
static const int bnd_tall[2] = {128, 2048};
static const int nbnd_flat[2] = {128, 8};
static const int nbnd_tall[2] = {64, 1024};

/* Adaptive cells of one class of tokens (0 blocks, 1 nibble bytes) and, in version 4, of one agreement. */
typedef struct tcells
{
	uint32_t	kind[4][3][8][4][4];	/* previous kind, phase, previous count's bits,
										 * boundaries beside; tree node */
	uint32_t	nb[4][3][8][MAXNB];	/* kind, phase, nearest boundary ahead; unary bit length */
	uint32_t	mant[4][MAXNB][MAXNB];	/* kind, bit length, bit */
} tcells;

/* State over one input. */
typedef struct btok
{
	sl_rc	   *rc;
	sl_err	   *err;
	int			version;		/* 3, or 4: token bits also under which references agree */
	sl_bpal		pal;			/* palette ids and the current array's palette */
	int32_t    *pair;			/* array -> the Data array coded with it, or -1 */
	uint32_t	top[256];		/* ids of the top layer of the last 16^3 block array */
	uint32_t	top_doc;		/* its document + 1; 0: none */
	uint8_t		ntop[4][128];	/* top layer of the last 16^3 nibble array of each kind */
	uint32_t	ntop_doc[4];
	int			hbits;			/* the hashed tables' cells: 2^hbits */
	uint32_t   *pred;			/* hashed: id + 1 of the block a literal context last held */
	uint32_t   *tree;			/* hashed: palette index trees, by array */
	uint32_t   *raw;			/* raw arrays' bytes: previous byte, node (made when first used) */
	tcells		tc[2][AGREE];	/* by class, then which references agree (version 3: 0) */
	uint32_t	hit[3];			/* a literal is its context's block; by phase */
	uint32_t	mode[3];		/* a palette array is modelled; by kind */
	uint32_t	nlit[4][17][16];	/* nibble literals: kind, the nibble below (16 none); node */
	uint32_t	nlit5[4][17][17][16];	/* version 5: kind, below, the nibble before (16 none); node */
	sl_bheight	height;			/* version 5: heightmaps */
	/* scratch, not cleared */
	uint32_t	loc[32768 + COPY_STEP];	/* local indices of the current array; room for a copy's last step */
	uint64_t	start[32768 / 64 + 2];	/* bit i: a token of the current array starts at i */
	uint8_t		scratch[4096 * 8];
} btok;

/* One array being coded: what its tokens refer to. */
typedef struct tarr
{
	size_t		ai;				/* index in the scan */
	int			n;				/* elements */
	const int  *offs;			/* offsets of below, west, north */
	const int  *bnd;			/* offsets of the neighbours whose boundaries are context */
	int			row,
				layer;			/* elements of a row and of a layer, in storage order */
	int			have_top;		/* below the lowest layer is the previous array's top */
	uint32_t	npal;
	int			nbits;			/* bits of a palette index */
	uint64_t	tree_h;			/* context of its palette index tree */
	uint8_t    *p;				/* nibble arrays: the payload */
	const uint8_t *ntop;		/* nibble arrays: the previous array's top layer */
	uint32_t	sub;			/* nibble arrays: which kind */
} tarr;


/* Inlined into the token loop, which keeps the coder's state in registers. */
#define INLINE static inline __attribute__((always_inline))

/* Code one bit with cell c (the coder's inner loop). */
INLINE int
bit(sl_rc *rc, uint32_t *c, int b)
{
	return sl_rc_bit(rc, c, b);
}

/* Set every cell of n to a fresh probability. */
static void
fresh(uint32_t *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		c[i] = SL_RC_INIT;
}



/* Local index element i's reference at off holds, -1 when none (or not in the palette). */
static inline int32_t
bref(btok *m, const tarr *t, int i, int off)
{
	if (i >= off)
		return (int32_t) m->loc[i - off];
	if (off == 256 && t->have_top)
		return (int32_t) sl_bpal_local(&m->pal, m->top[i]) - 1;
	return -1;
}

/* Byte j's reference at off in a nibble array, -1 when none. */
static inline int
nref(const tarr *t, int j, int off)
{
	if (j >= off)
		return t->p[j - off];
	if (off == 128 && t->ntop)
		return t->ntop[j];
	return -1;
}

/* Where element i sits: 2 at a layer's start, 1 at a row's start, else 0. */
static inline int
phase(int i, int row, int layer)
{
	return (i & (layer - 1)) == 0 ? 2 : (i & (row - 1)) == 0 ? 1 : 0;
}

/* Bit length of v >= 1, less one (0..15). */
static inline int
nbits_of(uint32_t v)
{
	int			b = 31 - __builtin_clz(v);

	return b < MAXNB - 1 ? b : MAXNB - 1;
}

/* The 64 start bits from bit s on. */
static inline uint64_t
starts_at(const uint64_t *w, int s)
{
	uint64_t	lo = w[s >> 6] >> (s & 63);

	return s & 63 ? lo | w[(s >> 6) + 1] << (64 - (s & 63)) : lo;
}

/*
 * Mark a token starting at i and return its context from the tokens of the
 * neighbours before (t->bnd): *beside, which of them started a token at the
 * same place; *ahead, of the distance to the nearest start ahead of i
 * among them, 1 + floor(log2) (0: none within NEAR).
 */
static inline void
boundaries(btok *m, const tarr *t, int i, int *beside, int *ahead)
{
	int			b = 0,
				d = NEAR + 1;

	m->start[i >> 6] |= (uint64_t) 1 << (i & 63);
	for (int k = 0; k < 2; k++)
	{
		int			off = t->bnd[k],
					lim = d - 1 < t->n - i - 1 ? d - 1 : t->n - i - 1;
		uint64_t	w;

		if (i < off)
			continue;
		b |= (int) (m->start[(i - off) >> 6] >> ((i - off) & 63) & 1) << k;
		if (lim <= 0)
			continue;
		w = starts_at(m->start, i + 1 - off);
		if (lim < 64)
			w &= ((uint64_t) 1 << lim) - 1;
		if (w)
			d = __builtin_ctzll(w) + 1;
	}
	*beside = b;
	*ahead = d > NEAR ? 0 : 1 + nbits_of((uint32_t) d);
}

/*
 * Which of element i's references (below, west, north) are equal, for a
 * version 4 token: 0 none (or version 3), 1 below and west, 2 below and
 * north, 3 west and north, 4 all three. A missing reference equals none.
 */
static inline int
agreeing(btok *m, const tarr *t, int i)
{
	int32_t		r[3];
	int			bw,
				bn,
				wn;

	if (m->version < SL_BCODEC_V4)
		return 0;
	for (int k = 0; k < 3; k++)
		r[k] = t->p ? nref(t, i, t->offs[k]) : bref(m, t, i, t->offs[k]);
	bw = r[0] >= 0 && r[0] == r[1];
	bn = r[0] >= 0 && r[0] == r[2];
	wn = r[1] >= 0 && r[1] == r[2];
	return bw && bn ? 4 : bw ? 1 : bn ? 2 : wn ? 3 : 0;
}

/* Code a token: its kind (0 literal, 1-3 copy) after prev with phase ph; count of the one before. */
INLINE int
code_kind(sl_rc *rc, tcells *c, int prev, int ph, int prev_nb, int beside, int kind)
{
	uint32_t   *k = c->kind[prev][ph][prev_nb >> 1][beside];
	int			hi = bit(rc, &k[1], kind >> 1);

	return hi << 1 | bit(rc, &k[2 + hi], kind & 1);
}

/* Code count v >= 1 of a token of kind at phase ph (Elias gamma with adaptive bits); fails past max. */
INLINE int
code_count(btok *m, sl_rc *rc, tcells *c, int kind, int ph, int ahead, uint32_t v, uint32_t max, const tarr *t, int i,
		   uint32_t *out)
{
	int			nb = 0,
				want = rc->decoding ? 0 : nbits_of(v);

	while (nb < MAXNB - 1 && bit(rc, &c->nb[kind][ph][ahead][nb], nb < want))
		nb++;
	if (rc->decoding)
		v = 1;
	else
		v &= (1u << nb) - 1;
	{
		uint32_t	r = 1;

		for (int b = nb - 1; b >= 0; b--)
			r = r << 1 | (uint32_t) bit(rc, &c->mant[kind][nb][b], (int) (v >> b) & 1);
		v = r;
	}
	if (v > max)
		return sl_fail(m->err, SL_ERR_CORRUPT, "bcodec: array %zu element %d: a run of %u past its %d elements",
					   t->ai, i, v, t->n);
	*out = v;
	return 0;
}

/* Code the low nbits of v (MSB first) with a bit tree in the hashed cells under context h. */
INLINE uint32_t
code_tree(btok *m, sl_rc *rc, uint64_t h, int nbits, uint32_t v)
{
	uint32_t	node = 1;

	for (int i = nbits - 1; i >= 0; i--)
	{
		uint32_t   *c = &m->tree[(sl_bmix(h, node) * 0xD6E8FEB86659FD93ULL) >> (64 - m->hbits)];

		node = 2 * node + (uint32_t) bit(rc, c, (int) (v >> i) & 1);
	}
	return node - (1u << nbits);
}

/* Element i: a block's local index, or a nibble array's byte. */
static inline int32_t
elem(btok *m, const tarr *t, int i)
{
	return t->p ? t->p[i] : (int32_t) m->loc[i];
}

/* Longest copy at element i (encoding): *kind 1-3 and its length, 0 when none. */
static int
longest_copy(btok *m, const tarr *t, int i, int *kind)
{
	int			best = 0;

	for (int k = 0; k < 3; k++)
	{
		int			off = t->offs[k],
					len = 0;

		while (i + len < t->n && i + len < off &&
			   (t->p ? nref(t, i + len, off) : bref(m, t, i + len, off)) == elem(m, t, i + len))
			len++;
		if (i + len >= off)
			while (i + len < t->n && elem(m, t, i + len - off) == elem(m, t, i + len))
				len++;
		if (len > best)
		{
			best = len;
			*kind = k + 1;
		}
	}
	return best;
}

/* Copy len elements at i from offset off (decoding); fails where the reference is missing. */
static int
copy_blocks(btok *m, const tarr *t, int i, int off, uint32_t len)
{
	for (int e = i + (int) len; i < e && i < off; i++)
	{
		int32_t		r = bref(m, t, i, off);

		if (r < 0)
			return sl_fail(m->err, SL_ERR_CORRUPT, "bcodec: array %zu element %d: copied from nothing", t->ai, i);
		m->loc[i] = (uint32_t) r;
		len--;
	}
	/* blocks of COPY_STEP, the last may run past (m->loc has room) */
	if (off == 1)
	{
		uint32_t	v[COPY_STEP];

		for (int k = 0; k < COPY_STEP; k++)
			v[k] = m->loc[i - 1];
		for (uint32_t *d = m->loc + i, *e = d + len; d < e; d += COPY_STEP)
			memcpy(d, v, sizeof(v));
	}
	else
		/* the other offsets are COPY_STEP or more */
		for (uint32_t *d = m->loc + i, *e = d + len; d < e; d += COPY_STEP)
			memcpy(d, d - off, COPY_STEP * sizeof(uint32_t));
	return 0;
}

/* Code one literal block at i. */
INLINE int
code_literal(btok *m, sl_rc *rc, const tarr *t, int i, int ph)
{
	uint64_t	h = 0x5EED;
	uint32_t   *cell,
				v = rc->decoding ? 0 : m->loc[i],
				l;

	for (int k = 0; k < 3; k++)
	{
		int32_t		r = bref(m, t, i, t->offs[k]);

		h = sl_bmix(h, r >= 0 ? m->pal.gid[r] : NONE);
	}
	cell = &m->pred[(h * 0xD6E8FEB86659FD93ULL) >> (64 - m->hbits)];
	l = *cell ? sl_bpal_local(&m->pal, *cell - 1) : 0;
	if (l && bit(rc, &m->hit[ph], l == v + 1))
		v = l - 1;
	else
	{
		uint64_t	th = t->tree_h;

		if (m->version >= SL_BCODEC_V4)
		{
			int32_t		below = bref(m, t, i, t->offs[0]);

			th = sl_bmix(th, below >= 0 ? m->pal.gid[below] : NONE);	/* the tree's cells also by the block below */
		}
		v = code_tree(m, rc, th, t->nbits, v);
		if (sl_bpal_check(v, t->npal, t->ai, i, m->err))
			return -1;
	}
	m->loc[i] = v;
	*cell = m->pal.gid[v] + 1;
	return 0;
}

/* Copy len bytes at j of a nibble array from offset off (decoding); fails where the reference is missing. */
static int
copy_bytes(btok *m, const tarr *t, int j, int off, uint32_t len)
{
	uint8_t    *p = t->p;

	for (int e = j + (int) len; j < e && j < off; j++, len--)
	{
		int			r = nref(t, j, off);

		if (r < 0)
			return sl_fail(m->err, SL_ERR_CORRUPT, "bcodec: array %zu byte %d: copied from nothing", t->ai, j);
		p[j] = (uint8_t) r;
	}
	if (off == 1)
		memset(p + j, p[j - 1], len);
	else
	{
		/* offsets are 8 or more: blocks of 8 while they end within the array, then bytes */
		uint32_t	k = 0;

		for (; k < len && j + (int) k + 8 <= t->n; k += 8)
			memcpy(p + j + k, p + j + k - off, 8);
		for (; k < len; k++)
			p[j + k] = p[j + k - off];
	}
	return 0;
}

/* Code literal byte j of a nibble array as two nibbles, each under the nibble below (version 5: and the one before). */
INLINE void
code_nliteral(btok *m, sl_rc *rc, const tarr *t, int j)
{
	int			r = nref(t, j, t->offs[0]);
	uint32_t	v = rc->decoding ? 0 : t->p[j],
				out = 0;

	for (int h = 0; h < 8; h += 4)
	{
		int			prevn = h ? (int) (out & 15) : j > 0 ? t->p[j - 1] >> 4 : 16;
		uint32_t   *c = m->version >= SL_BCODEC_V5 ? m->nlit5[t->sub][r < 0 ? 16 : (r >> h) & 15][prevn]
			: m->nlit[t->sub][r < 0 ? 16 : (r >> h) & 15];
		uint32_t	node = 1;

		for (int b = 3; b >= 0; b--)
			node = 2 * node + (uint32_t) bit(rc, &c[node], (int) (v >> (h + b)) & 1);
		out |= (node - 16) << h;
	}
	t->p[j] = (uint8_t) out;
}

/* Whether some source copies at least min elements at i (encoding; scans no further). */
static int
copies_at_least(btok *m, const tarr *t, int i, int min)
{
	if (i + min > t->n)
		return 0;
	for (int k = 0; k < 3; k++)
	{
		int			off = t->offs[k],
					len = 0;

		while (len < min && (i + len < off ? nref(t, i + len, off) : elem(m, t, i + len - off)) == elem(m, t, i + len))
			len++;
		if (len == min)
			return 1;
	}
	return 0;
}

/*
 * Encoding: the token at byte j of a nibble array; *kind 0 with a count of
 * literal bytes, or a copy. A short copy costs a token of its own and
 * splits the literal run around it in two, so a literal run goes on over
 * copies shorter than NIB_COPY_MIN and ends where a longer one starts (on
 * the corpus, minima of 2-12 all beat 1 by 0.4-0.9% of the stream; 6 the
 * most).
 */
static uint32_t
ntoken_at(btok *m, const tarr *t, int j, int *kind)
{
	uint32_t	len = (uint32_t) longest_copy(m, t, j, kind);

	if (len < NIB_COPY_MIN)
	{
		*kind = 0;
		for (len = 1; j + (int) len < t->n && !copies_at_least(m, t, j + (int) len, NIB_COPY_MIN);)
			len++;
	}
	return len;
}

/*
 * Code the tokens of an array with rc: blocks in m->loc, or the bytes of a
 * nibble array at t->p (decoding: into them). A block literal is one
 * element and has no count; a nibble literal token counts its bytes.
 */
INLINE int
tokens(btok *m, sl_rc *rc, const tarr *t)
{
	int			nib = t->p != NULL;
	int			prev = 0,
				prev_nb = 0;

	memset(m->start, 0, (size_t) (t->n / 64 + 2) * sizeof(uint64_t));
	for (int i = 0; i < t->n;)
	{
		int			kind = 0,
					ph = phase(i, t->row, t->layer),
					beside,
					ahead;
		tcells	   *c = &m->tc[nib][agreeing(m, t, i)];
		uint32_t	len = 0;

		if (!rc->decoding)
			len = nib ? ntoken_at(m, t, i, &kind) : (uint32_t) longest_copy(m, t, i, &kind);
		boundaries(m, t, i, &beside, &ahead);
		kind = code_kind(rc, c, prev, ph, prev_nb, beside, kind);
		if (kind == 0 && !nib)
		{
			if (code_literal(m, rc, t, i, ph))
				return -1;
			len = 1;
		}
		else if (code_count(m, rc, c, kind, ph, ahead, len, (uint32_t) (t->n - i), t, i, &len))
			return -1;
		else if (kind == 0)
			for (uint32_t e = 0; e < len; e++)
				code_nliteral(m, rc, t, i + (int) e);
		else if (rc->decoding &&
				 (nib ? copy_bytes(m, t, i, t->offs[kind - 1], len) : copy_blocks(m, t, i, t->offs[kind - 1], len)))
			return -1;
		i += (int) len;
		prev = kind;
		prev_nb = kind == 0 && !nib ? 0 : 2 * (nbits_of(len) + 1 < 7 ? nbits_of(len) + 1 : 7);
	}
	return 0;
}

/* Code the tokens of an array with a copy of the coder (held in registers), one loop per direction. */
static int
code_tokens(btok *m, const tarr *t)
{
	sl_rc		rc = *m->rc;
	int			r;

	if (rc.decoding)
	{
		rc.decoding = 1;
		r = tokens(m, &rc, t);
	}
	else
	{
		rc.decoding = 0;
		r = tokens(m, &rc, t);
	}
	*m->rc = rc;
	return r;
}

/* Code an array's bytes with an order-1 byte model (palette arrays the tokens cannot hold). */
static int
code_raw(btok *m, uint8_t *p, size_t n)
{
	uint32_t	prev = 0;

	if (m->raw == NULL)
	{
		m->raw = sl_alloc_err(256 * 256 * sizeof(uint32_t), m->err);
		if (m->raw == NULL)
			return -1;
		fresh(m->raw, 256 * 256);
	}
	for (size_t i = 0; i < n; i++)
	{
		uint32_t	node = 1,
					v = m->rc->decoding ? 0 : p[i];

		for (int b = 7; b >= 0; b--)
			node = 2 * node + (uint32_t) bit(m->rc, &m->raw[prev << 8 | (node & 255)], (int) (v >> b) & 1);
		p[i] = (uint8_t) node;
		prev = p[i];
	}
	return 0;
}

/*
 * Split n ids id << 4 | data (n a multiple of 16) into Blocks and Data, 16
 * at a time in two fixed loops the compiler turns into vector code.
 */
static void
split_legacy(const uint32_t *restrict l, int n, uint8_t *restrict p, uint8_t *restrict data)
{
	for (int i = 0; i < n; i += 16)
	{
		for (int k = 0; k < 16; k++)
			p[i + k] = (uint8_t) (l[i + k] >> 4);
		for (int k = 0; k < 8; k++)
			data[(i >> 1) + k] = (uint8_t) ((l[i + 2 * k] & 15) | (l[i + 2 * k + 1] & 15) << 4);
	}
}

/* Legacy Blocks (and the Data array beside it, or NULL) from or to m->loc: id << 4 | data. */
static int
legacy_loc(btok *m, const tarr *t, uint8_t *p, uint8_t *data)
{
	const uint32_t *l = m->loc;
	uint32_t	bad = 0;

	if (!m->rc->decoding)
		for (int i = 0; i < t->n; i += 2)
		{
			uint32_t	d = data ? data[i >> 1] : 0;

			m->loc[i] = (uint32_t) p[i] << 4 | (d & 15);
			m->loc[i + 1] = (uint32_t) p[i + 1] << 4 | d >> 4;
		}
	else if (data)
		split_legacy(l, t->n, p, data);
	else
	{
		for (int i = 0; i < t->n; i++)
		{
			p[i] = (uint8_t) (l[i] >> 4);
			bad |= l[i] & 15;
		}
		if (bad)
			return sl_fail(m->err, SL_ERR_CORRUPT, "bcodec: array %zu: block data without a Data array", t->ai);
	}
	return 0;
}

/* Code a block array (modern, flat or legacy Blocks, with data the Data array beside it or NULL). */
static int
code_blocks(btok *m, const sl_barray *a, size_t ai, uint8_t *p, uint8_t *data)
{
	int			legacy = a->kind == SL_BA_BLOCKS;
	int			tall = legacy && a->count == 32768;
	uint32_t	npal = legacy ? LEGACY_IDS : a->npal;
	int			nbits = legacy ? 12 : sl_ceil_log2(npal) < 4 ? 4 : sl_ceil_log2(npal);
	int			spanning = 0,
				decoding = m->rc->decoding;
	tarr		t = {ai, tall ? 32768 : 4096, tall ? offs_tall : offs_flat, tall ? bnd_tall : bnd_flat,
		tall ? 128 : 16, tall ? 2048 : 256, !tall && m->top_doc == a->doc + 1, npal, legacy ? 12 : sl_ceil_log2(npal),
	legacy ? 0x1E6 : sl_bmix(0x7EE, ai), NULL, NULL, 0};

	if (!legacy)
	{
		int			ok = npal > 0 && npal <= SL_MAX_PALETTE,
					fits;

		if (ok && a->count == sl_packed_longs(4096, nbits, 1) &&
			a->count != sl_packed_longs(4096, nbits, 0))
			spanning = 1;
		else if (ok && a->count != sl_packed_longs(4096, nbits, 0))
			ok = 0;
		fits = ok;
		if (!decoding && ok)
		{
			sl_unpack_indices(p, 4096, nbits, spanning, m->loc);
			for (int i = 0; i < 4096 && ok; i++)
				ok = m->loc[i] < npal;
			if (ok)
			{
				sl_pack_indices(m->loc, 4096, nbits, spanning, m->scratch);
				ok = memcmp(m->scratch, p, (size_t) a->count * 8) == 0;
			}
		}
		if (!bit(m->rc, &m->mode[a->kind - 1], ok))
		{
			m->top_doc = 0;
			return code_raw(m, p, (size_t) a->count * 8);
		}
		if (!fits)
			return sl_fail(m->err, SL_ERR_CORRUPT,
						   "bcodec: array %zu (block states, %u longs, palette of %u) flagged modelled but does not fit",
						   ai, a->count, npal);
	}
	else if (!decoding)
		legacy_loc(m, &t, p, data);
	sl_bpal_set(&m->pal, a, npal);
	if (code_tokens(m, &t))
		return -1;
	if (decoding && legacy && legacy_loc(m, &t, p, data))
		return -1;
	if (decoding && !legacy)
		sl_pack_indices(m->loc, 4096, nbits, spanning, p);
	if (!tall)
	{
		for (int i = 0; i < 256; i++)
			m->top[i] = m->pal.gid[m->loc[15 * 256 + i]];
		m->top_doc = a->doc + 1;
	}
	return 0;
}

/* Code a nibble array (light, Data, Add). */
static int
code_nibbles(btok *m, const sl_barray *a, size_t ai, uint8_t *p)
{
	int			tall = a->count == 16384;
	tarr		t = {ai, (int) a->count, tall ? noffs_tall : noffs_flat, tall ? nbnd_tall : nbnd_flat,
		tall ? 64 : 8, tall ? 1024 : 128, 0, 0, 0, 0, p,
		!tall && m->ntop_doc[a->sub] == a->doc + 1 ? m->ntop[a->sub] : NULL, a->sub & 3};

	if (code_tokens(m, &t))
		return -1;
	if (!tall)
	{
		memcpy(m->ntop[t.sub], p + a->count - 128, 128);
		m->ntop_doc[t.sub] = a->doc + 1;
	}
	return 0;
}

/*
 * Pair each legacy Blocks array with the Data array of its compound (as
 * long as its nibbles, within 8 arrays of it): pair[blocks] = data,
 * pair[data] = -2, every other -1.
 */
static int
pair_data(btok *m, const sl_bscan *s)
{
	m->pair = sl_alloc_err((s->n + 1) * sizeof(int32_t), m->err);
	if (m->pair == NULL)
		return -1;
	for (size_t i = 0; i < s->n; i++)
		m->pair[i] = -1;
	for (size_t i = 0; i < s->n; i++)
	{
		const sl_barray *a = &s->a[i];

		if (a->kind != SL_BA_BLOCKS)
			continue;
		for (size_t j = i >= 8 ? i - 8 : 0; j < s->n && j <= i + 8; j++)
		{
			const sl_barray *d = &s->a[j];

			if (d->kind == SL_BA_NIBBLE && d->sub == 0 && d->doc == a->doc && d->comp == a->comp &&
				(size_t) d->count * 2 == a->count && m->pair[j] == -1)
			{
				m->pair[i] = (int32_t) j;
				m->pair[j] = -2;
				break;
			}
		}
	}
	return 0;
}


/* Code every array of the scan with the tokens of version (3 or 4). */
int
sl_btok_code(sl_rc *rc, const sl_bscan *s, uint8_t *const *payload, int version, sl_err *err)
{
	btok	   *m = sl_alloc_err(sizeof(btok), err);
	int			r = 0;

	if (m == NULL)
		return -1;
	memset(m, 0, offsetof(btok, loc));
	m->rc = rc;
	m->err = err;
	m->version = version;
	m->hbits = HASH_MIN;
	while (m->hbits < HASH_MAX && ((uint64_t) 16 << m->hbits) < s->payload_sum)
		m->hbits++;
	if (sl_bpal_init(&m->pal, s, LEGACY_IDS, err) ||
		(m->pred = sl_alloc_err(sizeof(uint32_t) << m->hbits, err)) == NULL ||
		(m->tree = sl_alloc_err(sizeof(uint32_t) << m->hbits, err)) == NULL)
		r = -1;
	else
	{
		memset(m->pred, 0, sizeof(uint32_t) << m->hbits);
		fresh(m->tree, (size_t) 1 << m->hbits);
		for (int k = 0; k < 2; k++)
			fresh(&m->tc[k][0].kind[0][0][0][0][0], (version >= SL_BCODEC_V4 ? AGREE : 1) * sizeof(tcells) / sizeof(uint32_t));
		fresh(m->hit, 3);
		fresh(m->mode, 3);
		if (version >= SL_BCODEC_V5)
			fresh(&m->nlit5[0][0][0][0], sizeof(m->nlit5) / sizeof(uint32_t));
		else
			fresh(&m->nlit[0][0][0], sizeof(m->nlit) / sizeof(uint32_t));
		sl_bheight_init(&m->height);
	}
	if (r == 0)
		r = pair_data(m, s);
	for (size_t i = 0; rc->decoding && r == 0 && i < s->n; i++)
		memset(payload[i], 0, (size_t) s->a[i].count * s->a[i].esize);
	for (size_t i = 0; r == 0 && i < s->n; i++)
	{
		const sl_barray *a = &s->a[i];

		sl_interrupt();
		if (m->pair[i] == -2)
			continue;			/* a Data array, coded with its Blocks */
		if (a->kind == SL_BA_HEIGHT)
		{
			r = sl_bheight_code(&m->height, rc, a, i, payload[i], err);
			if (r == 1)
				r = code_raw(m, payload[i], (size_t) a->count * a->esize);
		}
		else
			r = a->kind == SL_BA_NIBBLE ? code_nibbles(m, a, i, payload[i])
				: code_blocks(m, a, i, payload[i], m->pair[i] >= 0 ? payload[m->pair[i]] : NULL);
	}
	sl_free(m->pair);
	sl_free(m->pred);
	sl_free(m->tree);
	sl_free(m->raw);
	sl_bpal_free(&m->pal);
	sl_free(m);
	return r;
}
