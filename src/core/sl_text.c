/*
 * sl_text.c - the text form of a slime value: base64 written, hex read too.
 */
#include "sl_text.h"

#include <string.h>

static const char b64_digits[] =
"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Value of each ASCII character as a base64 digit, or -1. */
static const signed char b64_value[128] = {
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
	-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 62, -1, -1, -1, 63,
	52, 53, 54, 55, 56, 57, 58, 59, 60, 61, -1, -1, -1, -1, -1, -1,
	-1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
	15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, -1, -1, -1, -1, -1,
	-1, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40,
	41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, -1, -1, -1, -1, -1,
};

/* Base64 digit value of a character, or -1. */
static inline int
b64_digit(unsigned char c)
{
	return c < 128 ? b64_value[c] : -1;
}

size_t
sl_text_len(size_t n, sl_text_form form)
{
	if (form == SL_TEXT_HEX)
		return 2 + 2 * n;
	return SL_TEXT_B64_PREFIX_LEN + (n + 2) / 3 * 4;
}

void
sl_text_encode(const uint8_t *data, size_t n, sl_text_form form, char *out)
{
	size_t		i = 0;

	if (form == SL_TEXT_HEX)
	{
		out[0] = '\\';
		out[1] = 'x';
		sl_hex(data, n, out + 2);
		return;
	}
	memcpy(out, SL_TEXT_B64_PREFIX, SL_TEXT_B64_PREFIX_LEN);
	out += SL_TEXT_B64_PREFIX_LEN;
	for (; i + 3 <= n; i += 3)
	{
		uint32_t	w = (uint32_t) data[i] << 16 | (uint32_t) data[i + 1] << 8 | data[i + 2];

		out[0] = b64_digits[w >> 18];
		out[1] = b64_digits[(w >> 12) & 63];
		out[2] = b64_digits[(w >> 6) & 63];
		out[3] = b64_digits[w & 63];
		out += 4;
	}
	if (n - i == 1)
	{
		out[0] = b64_digits[data[i] >> 2];
		out[1] = b64_digits[(data[i] & 3) << 4];
		out[2] = out[3] = '=';
		out += 4;
	}
	else if (n - i == 2)
	{
		uint32_t	w = (uint32_t) data[i] << 8 | data[i + 1];

		out[0] = b64_digits[w >> 10];
		out[1] = b64_digits[(w >> 4) & 63];
		out[2] = b64_digits[(w << 2) & 63];
		out[3] = '=';
		out += 4;
	}
	*out = '\0';
}

/* Value of one hex digit, or -1. */
static int
hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* "\x" + hex digits. */
static int
decode_hex(const char *s, size_t slen, uint8_t *buf, size_t *n, sl_err *err)
{
	size_t		count;

	if ((slen - 2) % 2 != 0)
		return sl_fail(err, SL_ERR_FORMAT, "odd number of hex digits");
	count = (slen - 2) / 2;
	for (size_t i = 0; i < count; i++)
	{
		int			hi = hex_digit(s[2 + 2 * i]);
		int			lo = hex_digit(s[3 + 2 * i]);

		if (hi < 0 || lo < 0)
			return sl_fail(err, SL_ERR_FORMAT, "invalid hex digit at position %zu",
						   2 + 2 * i + (hi < 0 ? 0 : 1));
		buf[i] = (uint8_t) (hi << 4 | lo);
	}
	*n = count;
	return 0;
}

/*
 * "b64:" + base64, canonical: groups of four digits, "=" only to pad the
 * last group, and the bits the padding leaves over zero (so that a value
 * has exactly one base64 text).
 */
static int
decode_b64(const char *s, size_t slen, uint8_t *buf, size_t *n, sl_err *err)
{
	const unsigned char *p = (const unsigned char *) s + SL_TEXT_B64_PREFIX_LEN;
	size_t		len = slen - SL_TEXT_B64_PREFIX_LEN;
	size_t		pad = 0,
				count = 0;

	if (len % 4 != 0)
	{
		for (size_t i = 0; i < len; i++)
			if (b64_digit(p[i]) < 0 && p[i] != '=')
				return sl_fail(err, SL_ERR_FORMAT, "invalid base64 digit at position %zu",
							   SL_TEXT_B64_PREFIX_LEN + i);
		return sl_fail(err, SL_ERR_FORMAT, "base64 text of %zu characters is not a multiple of 4 long", len);
	}
	if (len >= 4 && p[len - 1] == '=')
		pad = p[len - 2] == '=' ? 2 : 1;
	for (size_t i = 0; i < len; i += 4)
	{
		int			v[4];
		int			last = i + 4 == len;

		for (int k = 0; k < 4; k++)
		{
			v[k] = b64_digit(p[i + k]);
			if (v[k] < 0 && !(last && k >= 4 - (int) pad))
				return sl_fail(err, SL_ERR_FORMAT, "invalid base64 digit at position %zu",
							   SL_TEXT_B64_PREFIX_LEN + i + k);
		}
		if (last && pad == 2)
		{
			if (v[1] & 15)
				return sl_fail(err, SL_ERR_FORMAT, "non-canonical base64 padding at position %zu",
							   SL_TEXT_B64_PREFIX_LEN + i + 1);
			buf[count++] = (uint8_t) (v[0] << 2 | v[1] >> 4);
		}
		else if (last && pad == 1)
		{
			if (v[2] & 3)
				return sl_fail(err, SL_ERR_FORMAT, "non-canonical base64 padding at position %zu",
							   SL_TEXT_B64_PREFIX_LEN + i + 2);
			buf[count++] = (uint8_t) (v[0] << 2 | v[1] >> 4);
			buf[count++] = (uint8_t) ((v[1] & 15) << 4 | v[2] >> 2);
		}
		else
		{
			uint32_t	w = (uint32_t) v[0] << 18 | (uint32_t) v[1] << 12 | (uint32_t) v[2] << 6 | (uint32_t) v[3];

			buf[count++] = (uint8_t) (w >> 16);
			buf[count++] = (uint8_t) (w >> 8);
			buf[count++] = (uint8_t) w;
		}
	}
	*n = count;
	return 0;
}

int
sl_text_decode(const char *s, size_t slen, uint8_t **out, size_t *n, sl_err *err)
{
	int			b64 = slen >= SL_TEXT_B64_PREFIX_LEN &&
		memcmp(s, SL_TEXT_B64_PREFIX, SL_TEXT_B64_PREFIX_LEN) == 0;
	int			hex = slen >= 2 && s[0] == '\\' && s[1] == 'x';
	uint8_t    *buf;

	*out = NULL;
	*n = 0;
	if (!b64 && !hex)
		return sl_fail(err, SL_ERR_FORMAT, "a slime value is written as \"b64:\" followed by base64, "
					   "or as \\x followed by hex digits");
	buf = sl_alloc_err(b64 ? (slen - SL_TEXT_B64_PREFIX_LEN) / 4 * 3 + 1 : (slen - 2) / 2 + 1, err);
	if (buf == NULL)
		return -1;
	if ((b64 ? decode_b64 : decode_hex) (s, slen, buf, n, err))
	{
		sl_free(buf);
		return -1;
	}
	*out = buf;
	return 0;
}
