/*
 * sl_sfhot.c - the hot form of a loader's kept slime file (sl_sfhot.h).
 */
#include "sl_sfhot.h"

#include <string.h>
#include <xxhash.h>

/* Whether src starts with the hot form's magic. */
int
sl_sfhot_is(const uint8_t *src, size_t len)
{
	return len >= 4 && memcmp(src, SL_SFHOT_MAGIC, 4) == 0;
}

/* Append the hot form of a file. */
int
sl_sfhot_encode(const uint8_t *file, size_t len, sl_buf *out, sl_err *err)
{
	const uint8_t head[SL_SFHOT_HEADER] = {'S', 'L', 'H', 'F', SL_SFHOT_VERSION};
	uint8_t		sum[SL_SFHOT_SUM];
	size_t		start = out->len;

	if (sl_buf_reserve(out, SL_SFHOT_HEADER + len + SL_SFHOT_SUM, err) ||
		sl_buf_put(out, head, sizeof(head), err) ||
		sl_buf_put(out, file, len, err))
	{
		out->len = start;
		return -1;
	}
	sl_put_u64le(sum, XXH64(out->data + start, out->len - start, 0));
	if (sl_buf_put(out, sum, sizeof(sum), err))
	{
		out->len = start;
		return -1;
	}
	return 0;
}

/* Point at the file of a hot form whose checksum passes. */
int
sl_sfhot_open(const uint8_t *src, size_t len, const uint8_t **file, size_t *file_len, sl_err *err)
{
	if (!sl_sfhot_is(src, len) || len < SL_SFHOT_HEADER + SL_SFHOT_SUM)
		return sl_fail(err, SL_ERR_CORRUPT, "not a hot slime file of %zu bytes (offset 0)", len);
	if (src[4] != SL_SFHOT_VERSION)
		return sl_fail(err, SL_ERR_UNSUPPORTED, "hot slime file version %d is not known (offset 4)", src[4]);
	if (XXH64(src, len - SL_SFHOT_SUM, 0) != sl_get_u64le(src + len - SL_SFHOT_SUM))
		return sl_fail(err, SL_ERR_CORRUPT, "hot slime file checksum mismatch (offset %zu)",
					   len - SL_SFHOT_SUM);
	*file = src + SL_SFHOT_HEADER;
	*file_len = len - SL_SFHOT_HEADER - SL_SFHOT_SUM;
	return 0;
}
