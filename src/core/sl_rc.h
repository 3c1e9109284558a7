/*
 * sl_rc.h - an adaptive binary range coder (LZMA's carry-less scheme with
 * 12-bit probabilities), written so that one model function drives both
 * directions: sl_rc_bit() encodes the given bit or decodes and returns one.
 *
 * Probabilities are u32 cells: bits 0..15 P(bit = 0) in 1/65536, bits
 * 16..23 how often the cell was updated (it adapts fast at first, then
 * settles at a rate of 1/SL_RC_LIMIT).
 */
#ifndef SL_RC_H
#define SL_RC_H

#include <string.h>

#include "sl_common.h"

#define SL_RC_TOP		(1u << 24)
#define SL_RC_LIMIT		30
#define SL_RC_INIT		32768u	/* a fresh cell: p = 1/2, count 0 */

typedef struct sl_rc
{
	int			decoding;
	/* encoder */
	uint64_t	low;
	uint64_t	cache_size;
	uint8_t		cache;
	sl_buf	   *out;
	int			failed;			/* an append to out failed */
	sl_err	   *err;
	/* decoder */
	uint32_t	code;
	const uint8_t *src,
			   *cur,			/* the next byte */
			   *end;
	size_t		over;			/* bytes read past the end (as 0) */
	/* both */
	uint32_t	range;
} sl_rc;

/* Emit the top byte of low, propagating a carry into the cached ones. */
static inline void
sl_rc_shift_low(sl_rc *rc)
{
	if ((uint32_t) rc->low < 0xFF000000u || (rc->low >> 32) != 0)
	{
		uint8_t		carry = (uint8_t) (rc->low >> 32);
		uint8_t		temp = rc->cache;

		do
		{
			if (!rc->failed && sl_buf_put_u8(rc->out, (uint8_t) (temp + carry), rc->err))
				rc->failed = 1;
			temp = 0xFF;
		} while (--rc->cache_size != 0);
		rc->cache = (uint8_t) (rc->low >> 24);
	}
	rc->cache_size++;
	rc->low = (rc->low & 0x00FFFFFFu) << 8;
}

/* Start encoding, appending to out. */
static inline void
sl_rc_enc_init(sl_rc *rc, sl_buf *out, sl_err *err)
{
	memset(rc, 0, sizeof(*rc));
	rc->range = 0xFFFFFFFFu;
	rc->cache_size = 1;
	rc->out = out;
	rc->err = err;
}

/* Flush the encoder; 0, or -1 when an append failed. */
static inline int
sl_rc_enc_finish(sl_rc *rc)
{
	for (int i = 0; i < 5; i++)
		sl_rc_shift_low(rc);
	return rc->failed ? -1 : 0;
}

/* Next input byte of the decoder, 0 past the end. */
static inline uint8_t
sl_rc_byte(sl_rc *rc)
{
	if (rc->cur < rc->end)
		return *rc->cur++;
	rc->over++;
	return 0;
}

/* Bytes the decoder has read (past the end when it read more than there were). */
static inline size_t
sl_rc_dec_pos(const sl_rc *rc)
{
	return (size_t) (rc->cur - rc->src) + rc->over;
}

/* Start decoding src[0..len). */
static inline void
sl_rc_dec_init(sl_rc *rc, const uint8_t *src, size_t len)
{
	memset(rc, 0, sizeof(*rc));
	rc->decoding = 1;
	rc->src = rc->cur = src;
	rc->end = src + len;
	rc->range = 0xFFFFFFFFu;
	for (int i = 0; i < 5; i++)
		rc->code = (rc->code << 8) | sl_rc_byte(rc);
}

/*
 * Update a probability cell with the bit just coded: p moves toward 65535
 * after a 0 (by floor((65535 - p) * recip / 65536)) or toward 0 after a 1
 * (by the ceiling of p * recip / 65536), then is kept within [32, 65503]; a
 * 0 cannot take it below 32 nor a 1 above 65503, so only one bound is checked.
 */
static inline __attribute__((always_inline)) void
sl_rc_update(uint32_t *cell, int bit)
{
	static const uint16_t recip[SL_RC_LIMIT + 1] = {
		43690, 26214, 18724, 14563, 11915, 10082, 8738, 7710, 6898, 6241,
		5698, 5242, 4854, 4519, 4228, 3971, 3744, 3542, 3360, 3196,
		3048, 2912, 2788, 2674, 2570, 2473, 2383, 2299, 2221, 2148, 2080
	};
	uint32_t	n = *cell >> 16;
	uint32_t	p = *cell & 0xFFFF;
	uint32_t	r = recip[n];

	if (bit)
	{
		p -= (p * r + 65535) >> 16;
		if (p < 32)
			p = 32;
	}
	else
	{
		p += ((65535 - p) * r) >> 16;
		if (p > 65503)
			p = 65503;
	}
	if (n < SL_RC_LIMIT)
		n++;
	*cell = (n << 16) | p;
}

/* Code one bit with cell: encode bit, or decode and return it (inlined: the models' inner loop). */
static inline __attribute__((always_inline)) int
sl_rc_bit(sl_rc *rc, uint32_t *cell, int bit)
{
	uint32_t	p12 = (*cell & 0xFFFF) >> 4;
	uint32_t	bound;

	if (p12 < 1)
		p12 = 1;
	bound = (rc->range >> 12) * p12;
	if (rc->decoding)
	{
		if (rc->code < bound)
		{
			rc->range = bound;
			bit = 0;
			sl_rc_update(cell, 0);
		}
		else
		{
			rc->code -= bound;
			rc->range -= bound;
			bit = 1;
			sl_rc_update(cell, 1);
		}
		while (rc->range < SL_RC_TOP)
		{
			rc->range <<= 8;
			rc->code = (rc->code << 8) | sl_rc_byte(rc);
		}
	}
	else
	{
		bit = bit != 0;
		if (bit == 0)
			rc->range = bound;
		else
		{
			rc->low += bound;
			rc->range -= bound;
		}
		while (rc->range < SL_RC_TOP)
		{
			rc->range <<= 8;
			sl_rc_shift_low(rc);
		}
		sl_rc_update(cell, bit);
	}
	return bit;
}

#endif
