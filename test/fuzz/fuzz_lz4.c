/*
 * fuzz_lz4.c - libFuzzer target for lz4-java LZ4Block streams.
 *
 * Input: any bytes.
 *   - sl_lz4block_decode with a 1 MiB cap: errors are fine, crashes are
 *     not; a success stays within the cap and the input;
 *   - encode the input, decode it again: the input must come back and the
 *     whole encoded stream must be consumed.
 */
#include "fuzz_common.h"
#include "sl_codec.h"

#define CAP ((size_t) 1024 * 1024)

static void
reset(sl_err *err)
{
	err->code = SL_OK;
	err->msg[0] = '\0';
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t    *out = NULL;
	size_t		out_len = 0,
				consumed = 0;
	sl_buf		enc = {0};
	sl_err		err;

	reset(&err);
	if (sl_lz4block_decode(data, size, CAP, &out, &out_len, &consumed, &err) == 0)
	{
		FUZZ_CHECK(out_len <= CAP && consumed <= size && consumed > 0,
				   "decode: %zu bytes out, %zu of %zu consumed", out_len, consumed, size);
		FUZZ_CHECK(out != NULL || out_len == 0, "decode: no buffer");
		if (out_len)
		{
			volatile uint8_t s = out[0] ^ out[out_len - 1];

			(void) s;
		}
	}
	else
		fuzz_check_err(&err);
	sl_free(out);
	out = NULL;

	reset(&err);
	if (sl_lz4block_encode(data, size, &enc, &err))
	{
		fuzz_check_err(&err);
		FUZZ_CHECK(0, "encode of %zu bytes failed: %s", size, err.msg);
	}
	reset(&err);
	if (sl_lz4block_decode(enc.data, enc.len, size + 1, &out, &out_len, &consumed, &err))
	{
		fuzz_check_err(&err);
		FUZZ_CHECK(0, "decode of an encoded %zu-byte input failed: %s", size, err.msg);
	}
	FUZZ_CHECK(out_len == size && (size == 0 || memcmp(out, data, size) == 0),
			   "round trip gave %zu bytes for %zu", out_len, size);
	FUZZ_CHECK(consumed == enc.len, "round trip consumed %zu of %zu", consumed, enc.len);
	sl_free(out);
	sl_buf_free(&enc);
	return 0;
}
