/*
 * sl_bheight.c - heightmaps of block codec version 5 (see sl_bheight.h):
 * unpack and check, pick a reference, code the residuals of the median
 * predictor; one coding function for both directions (sl_rc_bit encodes
 * the bit it is given or decodes one).
 */
#include <string.h>

#include "sl_bcodec.h"
#include "sl_bheight.h"
#include "sl_schem.h"

#define INLINE static inline __attribute__((always_inline))
#define HBITS		9			/* bits of a height in a long[] heightmap */

/* Set every cell to a fresh probability. */
static void
fresh(uint32_t *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		c[i] = SL_RC_INIT;
}

/* Set every cell of h to a fresh probability and forget the references. */
void
sl_bheight_init(sl_bheight *h)
{
	memset(h, 0, sizeof(*h));
	fresh(&h->mode, 1);
	fresh(&h->ref[0][0], sizeof(h->ref) / sizeof(uint32_t));
	fresh(h->zero, SL_BHEIGHT_CTX);
	fresh(h->sign, SL_BHEIGHT_CTX);
	fresh(&h->nb[0][0], sizeof(h->nb) / sizeof(uint32_t));
	fresh(&h->mant[0][0], sizeof(h->mant) / sizeof(uint32_t));
	fresh(h->pad, 3);
}

/* The largest height an array of a's element size holds. */
static int
max_height(const sl_barray *a)
{
	return a->esize == 1 ? 255 : a->esize == 4 ? 1023 : (1 << HBITS) - 1;
}

/*
 * Encoding: a's heights into v, and (long[]) into pad the bits of its longs
 * the heights leave unused; whether the heights fit (int[]: 0..1023).
 */
static int
unpack(const sl_barray *a, const uint8_t *p, int32_t *v, uint64_t *pad)
{
	uint32_t	u[256];
	uint8_t		back[37 * 8];

	if (a->esize == 1)
	{
		for (int i = 0; i < 256; i++)
			v[i] = p[i];
		return 1;
	}
	if (a->esize == 4)
	{
		for (int i = 0; i < 256; i++)
		{
			uint32_t	x = sl_get_u32be(p + 4 * i);

			if (x > (uint32_t) max_height(a))
				return 0;
			v[i] = (int32_t) x;
		}
		return 1;
	}
	sl_unpack_indices(p, 256, HBITS, a->count == 36, u);
	sl_pack_indices(u, 256, HBITS, a->count == 36, back);
	for (int i = 0; i < 256; i++)
		v[i] = (int32_t) u[i];
	for (uint32_t k = 0; k < a->count; k++)
		pad[k] = sl_get_u64be(p + 8 * k) ^ sl_get_u64be(back + 8 * k);
	return 1;
}

/*
 * Code the unused bits of a long[37] heightmap (the top bit of the first 36
 * longs, the top 28 of the last): one bit when all are 0, as most writers
 * leave them; decoding: into pad.
 */
static void
code_pad(sl_bheight *h, sl_rc *rc, const sl_barray *a, uint64_t *pad)
{
	uint64_t	any = 0;

	if (a->count != 37)
		return;
	for (int k = 0; k < 37; k++)
		any |= rc->decoding ? 0 : pad[k];
	if (!sl_rc_bit(rc, &h->pad[0], any != 0))
	{
		memset(pad, 0, 37 * sizeof(uint64_t));
		return;
	}
	for (int k = 0; k < 37; k++)
	{
		int			from = k < 36 ? 63 : 36;
		uint64_t	x = 0;

		for (int b = 63; b >= from; b--)
			x |= (uint64_t) sl_rc_bit(rc, &h->pad[1 + (k == 36)], (int) (pad[k] >> b & 1)) << b;
		pad[k] = x;
	}
}

/* Decoding: write heights v (and a long[]'s unused bits pad) into a's payload p. */
static void
pack(const sl_barray *a, const int32_t *v, const uint64_t *pad, uint8_t *p)
{
	uint32_t	u[256];

	if (a->esize == 1)
		for (int i = 0; i < 256; i++)
			p[i] = (uint8_t) v[i];
	else if (a->esize == 4)
		for (int i = 0; i < 256; i++)
			sl_put_u32be(p + 4 * i, (uint32_t) v[i]);
	else
	{
		for (int i = 0; i < 256; i++)
			u[i] = (uint32_t) v[i];
		sl_pack_indices(u, 256, HBITS, a->count == 36, p);
		for (uint32_t k = 0; k < a->count; k++)
			sl_put_u64be(p + 8 * k, sl_get_u64be(p + 8 * k) ^ pad[k]);
	}
}

/* Median predictor of d[i] from its west, north and north-west; *cls: the residual's context class. */
static inline int32_t
predict(const int32_t *d, int i, int *cls)
{
	int32_t		a,
				b,
				c,
				g;

	if (i == 0)
	{
		*cls = 5;
		return 0;
	}
	if (i < 16 || (i & 15) == 0)
	{
		*cls = 4;
		return d[i < 16 ? i - 1 : i - 16];
	}
	a = d[i - 1];
	b = d[i - 16];
	c = d[i - 17];
	g = (a > c ? a - c : c - a) + (b > c ? b - c : c - b);
	*cls = g == 0 ? 0 : g <= 2 ? 1 : g <= 6 ? 2 : 3;
	if (c >= (a > b ? a : b))
		return a < b ? a : b;
	if (c <= (a < b ? a : b))
		return a > b ? a : b;
	return a + b - c;
}

/* Bit length of m >= 1, less one. */
static inline int
bitlen(uint32_t m)
{
	return 31 - __builtin_clz(m);
}

/* Encoding: a rough cost of heights v against reference r (NULL: none). */
static uint32_t
cost(const int32_t *v, const int16_t *r)
{
	int32_t		d[256];
	uint32_t	c = 0;
	int			cls;

	for (int i = 0; i < 256; i++)
	{
		int32_t		e;

		d[i] = v[i] - (r ? r[i] : 0);
		e = d[i] - predict(d, i, &cls);
		if (e)
			c += 3 + 2 * (uint32_t) bitlen((uint32_t) (e < 0 ? -e : e));
	}
	return c;
}

/* Code the 256 heights v (decoding: into v) against reference r (NULL: none); max: the largest height. */
INLINE int
code_heights(sl_bheight *h, sl_rc *rc, const int16_t *r, int32_t *v, int32_t max, size_t ai,
			 sl_err *err)
{
	int32_t		d[256];
	uint8_t		nz[256];		/* the residual was not 0 */
	int			base = r ? 12 : 0;

	for (int i = 0; i < 256; i++)
	{
		int			cls;
		int32_t		p = predict(d, i, &cls),
					ref = r ? r[i] : 0,
					e = rc->decoding ? 0 : v[i] - ref - p;
		int			ctx = base + cls + 6 * ((i & 15 ? nz[i - 1] : 0) | (i >= 16 ? nz[i - 16] : 0));

		if (sl_rc_bit(rc, &h->zero[ctx], e != 0))
		{
			int			neg = sl_rc_bit(rc, &h->sign[ctx], e < 0);
			uint32_t	m = (uint32_t) (e < 0 ? -e : e),
						want = rc->decoding ? 0 : (uint32_t) bitlen(m),
						nb = 0,
						x = 1;

			while (nb < SL_BHEIGHT_NB - 1 && sl_rc_bit(rc, &h->nb[ctx][nb], nb < want))
				nb++;
			for (int b = (int) nb - 1; b >= 0; b--)
				x = x << 1 | (uint32_t) sl_rc_bit(rc, &h->mant[nb][b], (int) (m >> b) & 1);
			e = neg ? -(int32_t) x : (int32_t) x;
		}
		d[i] = p + e;
		nz[i] = e != 0;
		if (rc->decoding)
		{
			v[i] = ref + d[i];
			if (v[i] < 0 || v[i] > max)
				return sl_fail(err, SL_ERR_CORRUPT, "bcodec: array %zu element %d: height %d out of 0..%d",
							   ai, i, v[i], max);
		}
	}
	return 0;
}

/* Code the heights with a copy of the coder (held in registers), one loop per direction. */
static int
code_local(sl_bheight *h, sl_rc *rcp, const int16_t *r, int32_t *v, int32_t max, size_t ai,
		   sl_err *err)
{
	sl_rc		rc = *rcp;
	int			ret;

	if (rc.decoding)
	{
		rc.decoding = 1;
		ret = code_heights(h, &rc, r, v, max, ai, err);
	}
	else
	{
		rc.decoding = 0;
		ret = code_heights(h, &rc, r, v, max, ai, err);
	}
	*rcp = rc;
	return ret;
}

/* Code heightmap array a: 1 when flagged raw (the caller codes its bytes), 0 when coded, -1 on error. */
int
sl_bheight_code(sl_bheight *h, sl_rc *rc, const sl_barray *a, size_t ai, uint8_t *p, sl_err *err)
{
	int32_t		v[256];
	uint64_t	pad[37] = {0};
	int			ok = rc->decoding ? 1 : unpack(a, p, v, pad),
				pick = 0;

	if (!sl_rc_bit(rc, &h->mode, ok))
		return 1;
	if (h->nprev > 0)
	{
		uint32_t	node = 1;

		if (!rc->decoding)
		{
			uint32_t	best = cost(v, NULL);

			for (int k = 0; k < h->nprev; k++)
			{
				uint32_t	c = cost(v, h->prev[k]);

				if (c < best)
				{
					best = c;
					pick = k + 1;
				}
			}
		}
		for (int b = 2; b >= 0; b--)
			node = 2 * node + (uint32_t) sl_rc_bit(rc, &h->ref[h->nprev][node], pick >> b & 1);
		pick = (int) node - 8;
		if (pick > h->nprev)
			return sl_fail(err, SL_ERR_CORRUPT, "bcodec: array %zu: heightmap reference %d past the %d before it",
						   ai, pick, h->nprev);
	}
	if (code_local(h, rc, pick ? h->prev[pick - 1] : NULL, v, max_height(a), ai, err))
		return -1;
	code_pad(h, rc, a, pad);
	if (rc->decoding)
		pack(a, v, pad, p);
	if (h->nprev < SL_BHEIGHT_REFS)
		h->nprev++;
	memmove(h->prev[1], h->prev[0], (size_t) (h->nprev - 1) * sizeof(h->prev[0]));
	for (int i = 0; i < 256; i++)
		h->prev[0][i] = (int16_t) v[i];
	return 0;
}
