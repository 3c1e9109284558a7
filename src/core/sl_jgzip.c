/*
 * sl_jgzip.c - gzip files as Minecraft writes them: Java's GZIPOutputStream
 * (a fixed header, zlib's raw deflate at level 6, CRC-32 and length). The
 * game compresses through zlib, so zlib, not libdeflate, writes them here:
 * the same deflate stream needs the same encoder.
 */
#include "sl_jgzip.h"

#include <string.h>
#include <zlib.h>

#include "sl_nbt.h"

#define JAVA_LEVEL		6		/* Deflater.DEFAULT_COMPRESSION */
#define JAVA_MEMLEVEL	8		/* zlib's default, as Java's Deflater uses */
#define STEP			((size_t) 1 << 30)	/* input handed to zlib at a time */

/* The OS byte of the gzip header the game of data_version writes. */
int
sl_jgzip_os(int32_t data_version)
{
	return data_version != INT32_MIN && data_version >= SL_JGZIP_JAVA16_DV ? 255 : 0;
}

/* zlib's allocator: the library's own (palloc in the server). */
static voidpf
z_alloc(voidpf opaque, uInt items, uInt size)
{
	return (size_t) items * size == 0 ? NULL : sl_alloc((size_t) items * size);
}

/* zlib's deallocator. */
static void
z_free(voidpf opaque, voidpf p)
{
	sl_free(p);
}

/* Append a little-endian uint32. */
static int
put_u32le(sl_buf *out, uint32_t v, sl_err *err)
{
	uint8_t		b[4] = {(uint8_t) v, (uint8_t) (v >> 8), (uint8_t) (v >> 16), (uint8_t) (v >> 24)};

	return sl_buf_put(out, b, 4, err);
}

/* Run zlib's deflate over in, appending to out. */
static int
deflate_raw(z_stream *zs, const uint8_t *in, size_t len, sl_buf *out, sl_err *err)
{
	size_t		done = 0;

	for (;;)
	{
		size_t		step = len - done < STEP ? len - done : STEP;
		int			flush = done + step == len ? Z_FINISH : Z_NO_FLUSH;
		int			zrc;

		zs->next_in = (Bytef *) (in + done);
		zs->avail_in = (uInt) step;
		done += step;
		for (;;)
		{
			size_t		room;

			if (sl_buf_reserve(out, 64 * 1024, err))
				return -1;
			room = out->cap - out->len < STEP ? out->cap - out->len : STEP;
			zs->next_out = out->data + out->len;
			zs->avail_out = (uInt) room;
			zrc = deflate(zs, flush);
			out->len += room - zs->avail_out;
			if (zrc == Z_STREAM_ERROR)
				return sl_fail(err, SL_ERR_INVALID, "zlib deflate failed");
			if (flush == Z_FINISH ? zrc == Z_STREAM_END : zs->avail_in == 0)
				break;
		}
		if (flush == Z_FINISH)
			return 0;
	}
}

/* Append in as gzip the way java.util.zip.GZIPOutputStream writes it. */
int
sl_jgzip(const uint8_t *in, size_t len, int os, sl_buf *out, sl_err *err)
{
	const uint8_t header[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, (uint8_t) os};
	z_stream	zs;
	uLong		crc = crc32(0L, Z_NULL, 0);
	int			rc;

	memset(&zs, 0, sizeof(zs));
	zs.zalloc = z_alloc;
	zs.zfree = z_free;
	if (deflateInit2(&zs, JAVA_LEVEL, Z_DEFLATED, -MAX_WBITS, JAVA_MEMLEVEL,
					 Z_DEFAULT_STRATEGY) != Z_OK)
		return sl_fail(err, SL_ERR_NOMEM, "out of memory starting zlib's deflate");
	rc = sl_buf_put(out, header, sizeof(header), err);
	if (rc == 0)
		rc = deflate_raw(&zs, in, len, out, err);
	deflateEnd(&zs);
	for (size_t done = 0; rc == 0 && done < len;)
	{
		size_t		step = len - done < STEP ? len - done : STEP;

		crc = crc32(crc, in + done, (uInt) step);
		done += step;
	}
	if (rc == 0)
		rc = put_u32le(out, (uint32_t) crc, err);
	if (rc == 0)
		rc = put_u32le(out, (uint32_t) len, err);
	return rc;
}

/* sl_jgzip of a level.dat document with the OS byte for its Data.DataVersion. */
int
sl_jgzip_level(const uint8_t *nbt, size_t len, const sl_limits *lim, sl_buf *out, sl_err *err)
{
	static const char *const path[] = {"Data", "DataVersion"};
	int64_t		dv = 0;
	int			found = sl_nbt_find_int(nbt, len, path, 2, lim, &dv, err);

	if (found < 0)
		return -1;
	return sl_jgzip(nbt, len, sl_jgzip_os(found && dv >= INT32_MIN && dv <= INT32_MAX ?
										  (int32_t) dv : INT32_MIN), out, err);
}
