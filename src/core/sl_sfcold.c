/*
 * sl_sfcold.c - the cold form of a loader's cached slime file (sl_sfcold.h).
 */
#include "sl_sfcold.h"
#include "sl_slimefile.h"
#include "sl_zstd.h"

#include <string.h>

#define FILE_HEADER 8			/* B1 0B, version, i32 DataVersion, u8 flags */

/* Whether src is in the cold form. */
int
sl_sfcold_is(const uint8_t *src, size_t len)
{
	return len >= SL_SFCOLD_HEADER && memcmp(src, SL_SFCOLD_MAGIC, 4) == 0;
}

/* Append every chunk's documents in directory order. */
int
sl_sfcold_prefix(sl_value *v, sl_buf *out, sl_err *err)
{
	for (uint32_t i = 0; i < v->hdr.chunk_count; i++)
	{
		sl_dirent	d;
		const uint8_t *comp[SL_NCOMP];

		if ((i & 63) == 0)
			sl_interrupt();
		if (sl_value_chunk(v, i, &d, comp, err))
			return -1;
		for (int k = 0; k < SL_NCOMP; k++)
			if (d.len[k] && sl_buf_put(out, comp[k], d.len[k], err))
				return -1;
	}
	return 0;
}

/* The raw bytes of the zstd block at *at of a file (zstd-jni frames: no checksum). */
static int
read_block(const uint8_t *file, size_t len, size_t *at, const sl_limits *lim, sl_buf *raw,
		   sl_err *err)
{
	uint32_t	clen,
				rlen;
	size_t		got;

	if (len - *at < 8)
		return sl_fail(err, SL_ERR_UNSUPPORTED, "slime file block at offset %zu is truncated", *at);
	clen = sl_get_u32be(file + *at);
	rlen = sl_get_u32be(file + *at + 4);
	if (clen > len - *at - 8 || rlen > lim->max_value_raw)
		return sl_fail(err, SL_ERR_UNSUPPORTED, "slime file block at offset %zu does not fit", *at);
	if (sl_buf_reserve(raw, (size_t) rlen + 1, err))
		return -1;
	got = sl_zstd_decompress(raw->data + raw->len, rlen, file + *at + 8, clen);
	if (got != rlen)
		return sl_fail(err, SL_ERR_UNSUPPORTED, "slime file block at offset %zu does not decompress to its %u bytes",
					   *at, rlen);
	raw->len += rlen;
	*at += 8 + (size_t) clen;
	return 0;
}

/* Append the cold form of a version-13 file. */
int
sl_sfcold_encode(const uint8_t *file, size_t len, const uint8_t *prefix, size_t prefix_len,
				 const sl_limits *lim, sl_buf *out, sl_err *err)
{
	sl_buf		raw = {0};
	sl_buf		back = {0};
	uint8_t		head[SL_SFCOLD_HEADER] = {'S', 'L', 'C', 'F', SL_SFCOLD_VERSION};
	size_t		at = FILE_HEADER;
	size_t		start = out->len;
	size_t		chunk_len;
	int			rc = -1;

	if (lim == NULL)
		lim = &sl_default_limits;
	if (len < FILE_HEADER || file[0] != 0xB1 || file[1] != 0x0B || file[2] != SL_SLIMEFILE_WRITE_VERSION)
		return sl_fail(err, SL_ERR_UNSUPPORTED, "not a version-13 slime file");
	if (read_block(file, len, &at, lim, &raw, err))
		goto done;
	chunk_len = raw.len;
	if (read_block(file, len, &at, lim, &raw, err))
		goto done;
	if (at != len)
	{
		sl_fail(err, SL_ERR_UNSUPPORTED, "slime file has %zu bytes after its two blocks", len - at);
		goto done;
	}
	memcpy(head + 5, file, FILE_HEADER);
	sl_put_u32le(head + 13, (uint32_t) chunk_len);
	sl_put_u32le(head + 17, (uint32_t) (raw.len - chunk_len));
	if (sl_buf_put(out, head, sizeof(head), err) ||
		sl_zstd_frame_prefix(raw.data, raw.len, SL_SFCOLD_LEVEL, prefix, prefix_len, out, err))
		goto done;
	/* the blocks must come back as they were */
	if (sl_buf_reserve(&back, raw.len + 1, err) ||
		sl_zstd_unframe_prefix(out->data + start + SL_SFCOLD_HEADER, out->len - start - SL_SFCOLD_HEADER,
							   back.data, raw.len, prefix, prefix_len, err))
		goto done;
	if (memcmp(back.data, raw.data, raw.len) != 0)
	{
		sl_fail(err, SL_ERR_CORRUPT, "the cold form does not give back the file's blocks");
		goto done;
	}
	rc = 0;
done:
	if (rc)
		out->len = start;
	sl_buf_free(&raw);
	sl_buf_free(&back);
	return rc;
}

/* Append the version-13 file of a cold form. */
int
sl_sfcold_decode(const uint8_t *src, size_t len, const uint8_t *prefix, size_t prefix_len,
				 int level, const sl_limits *lim, sl_buf *out, sl_err *err)
{
	sl_buf		raw = {0};
	uint64_t	chunk_len,
				extra_len;
	size_t		start = out->len;
	int			rc = -1;

	if (lim == NULL)
		lim = &sl_default_limits;
	if (!sl_sfcold_is(src, len))
		return sl_fail(err, SL_ERR_CORRUPT, "not a cold slime file (offset 0)");
	if (src[4] != SL_SFCOLD_VERSION)
		return sl_fail(err, SL_ERR_UNSUPPORTED, "cold slime file version %d is not known (offset 4)", src[4]);
	if (src[5] != 0xB1 || src[6] != 0x0B || src[7] != SL_SLIMEFILE_WRITE_VERSION)
		return sl_fail(err, SL_ERR_CORRUPT, "cold slime file does not hold a version-13 header (offset 5)");
	chunk_len = sl_get_u32le(src + 13);
	extra_len = sl_get_u32le(src + 17);
	if (chunk_len + extra_len > lim->max_value_raw)
		return sl_fail(err, SL_ERR_LIMIT, "cold slime file of %llu raw bytes exceeds the world size cap (offset 13)",
					   (unsigned long long) (chunk_len + extra_len));
	if (sl_buf_reserve(&raw, (size_t) (chunk_len + extra_len) + 1, err) ||
		sl_zstd_unframe_prefix(src + SL_SFCOLD_HEADER, len - SL_SFCOLD_HEADER, raw.data,
							   (size_t) (chunk_len + extra_len), prefix, prefix_len, err))
	{
		sl_err_prefix(err, "cold slime file frame (offset %d)", SL_SFCOLD_HEADER);
		goto done;
	}
	if (sl_buf_put(out, src + 5, FILE_HEADER, err) ||
		sl_sf_put_zblock(out, raw.data, (size_t) chunk_len, level, err) ||
		sl_sf_put_zblock(out, raw.data + chunk_len, (size_t) extra_len, level, err))
		goto done;
	rc = 0;
done:
	if (rc)
		out->len = start;
	sl_buf_free(&raw);
	return rc;
}
