/*
 * fuzz_inflate.c - libFuzzer target for gzip, zlib and raw deflate.
 *
 * Input: any bytes, inflated as gzip, zlib and raw deflate with a 1 MiB cap
 * (and a size hint taken from the input): errors are fine, crashes are not;
 * a success stays within the cap and the input. Then the input is deflated
 * as each kind (a level from the input) and must inflate back to itself.
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
	static const sl_deflate_kind kinds[] = {SL_DEFLATE_GZIP, SL_DEFLATE_ZLIB, SL_DEFLATE_RAW};
	size_t		hint = size >= 2 ? ((size_t) data[0] << 12 | (size_t) data[1] << 4) : 0;
	int			level = size ? 1 + data[size - 1] % 12 : 6;

	for (int k = 0; k < 3; k++)
	{
		uint8_t    *out = NULL;
		size_t		out_len = 0,
					consumed = 0;
		sl_buf		enc = {0};
		sl_err		err;

		reset(&err);
		if (sl_inflate(kinds[k], data, size, CAP, k == 1 ? hint : 0, &out, &out_len,
					   &consumed, &err) == 0)
		{
			FUZZ_CHECK(out_len <= CAP && consumed <= size && consumed > 0,
					   "inflate kind %d: %zu bytes out, %zu of %zu consumed",
					   (int) kinds[k], out_len, consumed, size);
			FUZZ_CHECK(out != NULL || out_len == 0, "inflate: no buffer");
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
		if (sl_deflate(kinds[k], level, data, size, &enc, &err))
		{
			fuzz_check_err(&err);
			FUZZ_CHECK(0, "deflate kind %d level %d of %zu bytes failed: %s",
					   (int) kinds[k], level, size, err.msg);
		}
		reset(&err);
		if (sl_inflate(kinds[k], enc.data, enc.len, size + 1, 0, &out, &out_len,
					   &consumed, &err))
		{
			fuzz_check_err(&err);
			FUZZ_CHECK(0, "inflate of a deflated %zu-byte input (kind %d) failed: %s",
					   size, (int) kinds[k], err.msg);
		}
		FUZZ_CHECK(out_len == size && (size == 0 || memcmp(out, data, size) == 0),
				   "round trip kind %d gave %zu bytes for %zu", (int) kinds[k], out_len, size);
		FUZZ_CHECK(consumed == enc.len, "round trip consumed %zu of %zu", consumed, enc.len);
		sl_free(out);
		sl_buf_free(&enc);
	}
	return 0;
}
