/*
 * fuzz_bcodec.c - libFuzzer target for the block codec (sl_bcodec),
 * streams of version FUZZ_BCODEC_VERSION (1 here; fuzz_bcodec2.c: 2).
 *
 * Input: any bytes.
 *   - decode them as a bcodec stream (raw length = first 2 bytes * 16),
 *     as given and with the body XXH32 patched so the decoder goes past
 *     its first check (and its magic byte set to the version's, so every
 *     input reaches that version's models): errors are fine, crashes are not;
 *   - encode the input as a stream of the version, decode it: the input
 *     must come back;
 *   - flip one byte of that encoding (position and value from the input),
 *     patch its XXH32 and decode: an error or the input, never a crash.
 */
#include <xxhash.h>

#include "fuzz_common.h"
#include "sl_bcodec.h"

#ifndef FUZZ_BCODEC_VERSION
#define FUZZ_BCODEC_VERSION SL_BCODEC_V1
#endif

/* Decode src as a bcodec stream of raw_len bytes; check the error if any. */
static int
try_decode(const uint8_t *src, size_t len, size_t raw_len, uint8_t **back)
{
	uint8_t    *copy = fuzz_dup(src, len);
	sl_err		err;
	int			r;

	*back = malloc(raw_len ? raw_len : 1);
	err.code = SL_OK;
	err.msg[0] = '\0';
	r = sl_bcodec_decode(copy, len, *back, raw_len, &err);
	if (r)
		fuzz_check_err(&err);
	free(copy);
	return r;
}

/* Recompute the body XXH32 of a stream (bytes 9..12) in place. */
static void
patch_xxh32(uint8_t *p, size_t len)
{
	if (len >= 13)
	{
		uint32_t	h = XXH32(p + 13, len - 13, 0);

		p[9] = (uint8_t) (h >> 24);
		p[10] = (uint8_t) (h >> 16);
		p[11] = (uint8_t) (h >> 8);
		p[12] = (uint8_t) h;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t    *back;
	sl_buf		enc = {0};
	sl_err		err;

	if (size >= 2)
	{
		size_t		raw_len = (size_t) (data[0] << 8 | data[1]) * 16;
		uint8_t    *p = fuzz_dup(data + 2, size - 2);

		try_decode(p, size - 2, raw_len, &back);
		free(back);
		if (size > 2)
			p[0] = (uint8_t) (0xB0 + FUZZ_BCODEC_VERSION);
		patch_xxh32(p, size - 2);
		try_decode(p, size - 2, raw_len, &back);
		free(back);
		free(p);
	}

	err.code = SL_OK;
	if (sl_bcodec_encode(data, size, FUZZ_BCODEC_VERSION, &enc, &err))
	{
		fuzz_check_err(&err);
		FUZZ_CHECK(0, "encode of %zu bytes failed: %s", size, err.msg);
	}
	FUZZ_CHECK(try_decode(enc.data, enc.len, size, &back) == 0,
			   "decode of an encoded %zu-byte input failed", size);
	FUZZ_CHECK(size == 0 || memcmp(back, data, size) == 0, "round trip of %zu bytes differs", size);
	free(back);

	if (enc.len > 13 && size > 0)
	{
		size_t		k = 13 + XXH32(data, size, 1) % (enc.len - 13);

		enc.data[k] ^= (uint8_t) (data[0] | 1);
		patch_xxh32(enc.data, enc.len);
		if (try_decode(enc.data, enc.len, size, &back) == 0)
			FUZZ_CHECK(memcmp(back, data, size) == 0, "a damaged stream decoded to other bytes");
		free(back);
	}
	sl_buf_free(&enc);
	return 0;
}
