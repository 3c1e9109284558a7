/*
 * sl_codec.c - gzip, zlib and raw deflate through libdeflate, and lz4-java's
 * LZ4Block framing through liblz4 and xxHash.
 *
 * Nothing here trusts a size found in the input: output buffers start from
 * a guess, grow by doubling and stop at the caller's cap. Compressors and
 * decompressors are allocated per call, so there is no shared state.
 */
#include "sl_codec.h"

#include <string.h>

#include <libdeflate.h>
#include <lz4.h>
#include <xxhash.h>

/* First output guess when the caller has none: 4x input, at least this. */
#define SL_INFLATE_MIN_GUESS	((size_t) 64 * 1024)

/* lz4-java LZ4Block framing constants. */
#define SL_LZ4_MAGIC			"LZ4Block"
#define SL_LZ4_MAGIC_LEN		8
#define SL_LZ4_HEADER			(SL_LZ4_MAGIC_LEN + 1 + 4 + 4 + 4)
#define SL_LZ4_METHOD_RAW		0x10
#define SL_LZ4_METHOD_LZ4		0x20
#define SL_LZ4_LEVEL_BASE		10
#define SL_LZ4_SEED				0x9747b28cU
#define SL_LZ4_CHECK_MASK		0x0FFFFFFFU
#define SL_LZ4_BLOCK			65536
/* lz4-java's level for 64 KiB blocks: ceil(log2(65536)) - 10 */
#define SL_LZ4_BLOCK_LEVEL		6

/* Name a deflate container for messages. */
static const char *
deflate_kind_name(sl_deflate_kind kind)
{
	switch (kind)
	{
		case SL_DEFLATE_RAW:
			return "deflate";
		case SL_DEFLATE_ZLIB:
			return "zlib";
		case SL_DEFLATE_GZIP:
			return "gzip";
	}
	return "unknown";
}

/* Run one libdeflate decompression of the given kind. */
static enum libdeflate_result
run_inflate(struct libdeflate_decompressor *d, sl_deflate_kind kind,
			const uint8_t *in, size_t in_len, uint8_t *out, size_t avail,
			size_t *in_used, size_t *out_used)
{
	switch (kind)
	{
		case SL_DEFLATE_ZLIB:
			return libdeflate_zlib_decompress_ex(d, in, in_len, out, avail,
												 in_used, out_used);
		case SL_DEFLATE_GZIP:
			return libdeflate_gzip_decompress_ex(d, in, in_len, out, avail,
												 in_used, out_used);
		default:
			return libdeflate_deflate_decompress_ex(d, in, in_len, out, avail,
													in_used, out_used);
	}
}

/* Pick the first output buffer size: hint, gzip ISIZE or 4x input, within cap. */
static size_t
inflate_first_size(sl_deflate_kind kind, const uint8_t *in, size_t in_len,
				   size_t cap, size_t hint)
{
	size_t		size = hint;

	/* the gzip trailer's ISIZE is only a guess: it is untrusted input */
	if (size == 0 && kind == SL_DEFLATE_GZIP && in_len >= 18)
		size = sl_get_u32le(in + in_len - 4);
	if (size == 0)
		size = in_len > SL_INFLATE_MIN_GUESS / 16 ? in_len * 16 : SL_INFLATE_MIN_GUESS;
	if (in_len < SIZE_MAX / 2048 && size > in_len * 1032 + 1024)
		size = in_len * 1032 + 1024;	/* deflate cannot expand beyond ~1032:1 */
	if (size > cap)
		size = cap;
	return size ? size : 1;
}

/* Shrink an output buffer to its used length, keeping it when realloc fails. */
static uint8_t *
shrink_output(uint8_t *buf, size_t used, size_t allocated)
{
	uint8_t    *p;

	if (used == allocated || used == 0)
		return buf;
	p = sl_realloc(buf, used);
	return p ? p : buf;
}

/*
 * The process's libdeflate decompressor and compressors, made once and kept:
 * they are malloc'd, so holding none across a call that may longjmp (an
 * out-of-memory error or a query cancel in PostgreSQL) means none can leak.
 */
static struct libdeflate_decompressor *cached_decompressor;
static struct libdeflate_compressor *cached_compressors[13];

/* The cached decompressor, made on first use. */
static struct libdeflate_decompressor *
get_decompressor(void)
{
	if (cached_decompressor == NULL)
		cached_decompressor = libdeflate_alloc_decompressor();
	return cached_decompressor;
}

/* The cached compressor of a level (0-12), made on first use. */
static struct libdeflate_compressor *
get_compressor(int level)
{
	if (cached_compressors[level] == NULL)
		cached_compressors[level] = libdeflate_alloc_compressor(level);
	return cached_compressors[level];
}

/* Free the cached libdeflate contexts. */
void
sl_codec_release(void)
{
	libdeflate_free_decompressor(cached_decompressor);
	cached_decompressor = NULL;
	for (int i = 0; i < 13; i++)
	{
		libdeflate_free_compressor(cached_compressors[i]);
		cached_compressors[i] = NULL;
	}
}

/* Inflate one stream, growing the output up to cap. */
int
sl_inflate(sl_deflate_kind kind, const uint8_t *in, size_t in_len,
		   size_t cap, size_t hint, uint8_t **out, size_t *out_len,
		   size_t *consumed, sl_err *err)
{
	struct libdeflate_decompressor *d;
	size_t		size = inflate_first_size(kind, in, in_len, cap, hint);
	uint8_t    *buf = NULL;
	enum libdeflate_result res;
	size_t		in_used = 0;
	size_t		out_used = 0;

	*out = NULL;
	*out_len = 0;
	d = get_decompressor();
	if (d == NULL)
		return sl_fail(err, SL_ERR_NOMEM, "out of memory allocating a %s decompressor",
					   deflate_kind_name(kind));
	for (;;)
	{
		uint8_t    *p = sl_realloc(buf, size);

		if (p == NULL)
		{
			sl_free(buf);
			return sl_fail(err, SL_ERR_NOMEM, "out of memory allocating %zu bytes", size);
		}
		buf = p;
		res = run_inflate(d, kind, in, in_len, buf, size, &in_used, &out_used);
		if (res != LIBDEFLATE_INSUFFICIENT_SPACE || size >= cap)
			break;
		size = size > cap / 2 ? cap : size * 2;
	}
	if (res != LIBDEFLATE_SUCCESS)
	{
		sl_free(buf);
		if (res == LIBDEFLATE_INSUFFICIENT_SPACE)
			return sl_fail(err, SL_ERR_LIMIT, "decompressed size exceeds cap of %zu bytes", cap);
		return sl_fail(err, SL_ERR_FORMAT, "%s data is corrupt or truncated",
					   deflate_kind_name(kind));
	}
	*out = shrink_output(buf, out_used, size);
	*out_len = out_used;
	if (consumed)
		*consumed = in_used;
	return 0;
}

/* Return the compression bound of the given kind. */
static size_t
deflate_bound(struct libdeflate_compressor *c, sl_deflate_kind kind, size_t len)
{
	switch (kind)
	{
		case SL_DEFLATE_ZLIB:
			return libdeflate_zlib_compress_bound(c, len);
		case SL_DEFLATE_GZIP:
			return libdeflate_gzip_compress_bound(c, len);
		default:
			return libdeflate_deflate_compress_bound(c, len);
	}
}

/* Run one libdeflate compression of the given kind. */
static size_t
run_deflate(struct libdeflate_compressor *c, sl_deflate_kind kind,
			const uint8_t *in, size_t len, uint8_t *out, size_t avail)
{
	switch (kind)
	{
		case SL_DEFLATE_ZLIB:
			return libdeflate_zlib_compress(c, in, len, out, avail);
		case SL_DEFLATE_GZIP:
			return libdeflate_gzip_compress(c, in, len, out, avail);
		default:
			return libdeflate_deflate_compress(c, in, len, out, avail);
	}
}

/* Deflate in[0..len) and append the stream to out. */
int
sl_deflate(sl_deflate_kind kind, int level, const uint8_t *in,
		   size_t len, sl_buf *out, sl_err *err)
{
	struct libdeflate_compressor *c;
	size_t		bound;
	size_t		n;

	if (level < 0 || level > 12)
		return sl_fail(err, SL_ERR_INVALID, "compression level %d is outside 0..12", level);
	c = get_compressor(level);
	if (c == NULL)
		return sl_fail(err, SL_ERR_NOMEM, "out of memory allocating a %s compressor",
					   deflate_kind_name(kind));
	bound = deflate_bound(c, kind, len);
	if (sl_buf_reserve(out, bound, err))
		return -1;
	n = run_deflate(c, kind, in, len, out->data + out->len, bound);
	if (n == 0)
		return sl_fail(err, SL_ERR_INVALID, "%s compression of %zu bytes failed",
					   deflate_kind_name(kind), len);
	out->len += n;
	return 0;
}

/* Compute lz4-java's checksum of one raw block. */
static uint32_t
lz4block_check(const uint8_t *data, size_t len)
{
	return (uint32_t) XXH32(data, len, SL_LZ4_SEED) & SL_LZ4_CHECK_MASK;
}

/* Grow a bounded output buffer so that it can hold need bytes (need <= cap). */
static int
lz4_grow(sl_buf *b, size_t need, size_t cap, sl_err *err)
{
	size_t		size;
	uint8_t    *p;

	if (need <= b->cap)
		return 0;
	size = b->cap ? b->cap : SL_LZ4_BLOCK;
	while (size < need && size < cap)
		size = size > cap / 2 ? cap : size * 2;
	if (size < need)
		size = need;
	p = sl_realloc(b->data, size);
	if (p == NULL)
		return sl_fail(err, SL_ERR_NOMEM, "out of memory allocating %zu bytes", size);
	b->data = p;
	b->cap = size;
	return 0;
}

/* Check one LZ4Block header's fields the way lz4-java's reader does. */
static int
lz4block_check_header(const uint8_t *h, size_t pos, int32_t clen, int32_t rlen,
					  sl_err *err)
{
	int			method = h[SL_LZ4_MAGIC_LEN] & 0xF0;
	int			level = h[SL_LZ4_MAGIC_LEN] & 0x0F;

	if (memcmp(h, SL_LZ4_MAGIC, SL_LZ4_MAGIC_LEN) != 0)
		return sl_fail(err, SL_ERR_FORMAT, "LZ4Block magic missing at offset %zu", pos);
	if (method != SL_LZ4_METHOD_RAW && method != SL_LZ4_METHOD_LZ4)
		return sl_fail(err, SL_ERR_FORMAT, "LZ4Block at offset %zu has unknown method 0x%02x",
					   pos, method);
	if (clen < 0 || rlen < 0 || rlen > (1 << (SL_LZ4_LEVEL_BASE + level)) ||
		(clen == 0) != (rlen == 0) ||
		(method == SL_LZ4_METHOD_RAW && clen != rlen))
		return sl_fail(err, SL_ERR_FORMAT,
					   "LZ4Block at offset %zu has inconsistent lengths (compressed %d, raw %d, level %d)",
					   pos, (int) clen, (int) rlen, level);
	return 0;
}

/* Decode one non-empty LZ4Block whose header starts at in + pos into out. */
static int
lz4block_one(const uint8_t *in, size_t pos, int32_t clen, int32_t rlen,
			 sl_buf *out, sl_err *err)
{
	const uint8_t *h = in + pos;
	const uint8_t *src = h + SL_LZ4_HEADER;
	uint8_t    *dst = out->data + out->len;
	uint32_t	check = sl_get_u32le(h + SL_LZ4_MAGIC_LEN + 9);

	if ((h[SL_LZ4_MAGIC_LEN] & 0xF0) == SL_LZ4_METHOD_RAW)
		memcpy(dst, src, (size_t) rlen);
	else if (LZ4_decompress_safe((const char *) src, (char *) dst, clen, rlen) != rlen)
		return sl_fail(err, SL_ERR_FORMAT, "LZ4Block at offset %zu: lz4 data is corrupt", pos);
	if (lz4block_check(dst, (size_t) rlen) != check)
		return sl_fail(err, SL_ERR_FORMAT, "LZ4Block at offset %zu: checksum mismatch", pos);
	out->len += (size_t) rlen;
	return 0;
}

/* Decode the blocks of an lz4-java LZ4BlockOutputStream stream into out. */
static int
lz4block_blocks(const uint8_t *in, size_t in_len, size_t cap, sl_buf *out,
				size_t *pos_out, sl_err *err)
{
	size_t		pos = 0;

	if (in_len == 0)
		return sl_fail(err, SL_ERR_FORMAT, "LZ4Block stream is empty");
	while (pos < in_len)		/* end of input after a whole block: Pumpkin */
	{
		const uint8_t *h = in + pos;
		int32_t		clen,
					rlen;

		if (in_len - pos < SL_LZ4_HEADER)
			return sl_fail(err, SL_ERR_FORMAT, "LZ4Block header truncated at offset %zu", pos);
		clen = (int32_t) sl_get_u32le(h + SL_LZ4_MAGIC_LEN + 1);
		rlen = (int32_t) sl_get_u32le(h + SL_LZ4_MAGIC_LEN + 5);
		if (lz4block_check_header(h, pos, clen, rlen, err))
			return -1;
		if (clen == 0)
		{
			if (sl_get_u32le(h + SL_LZ4_MAGIC_LEN + 9) != 0)
				return sl_fail(err, SL_ERR_FORMAT, "LZ4Block end mark at offset %zu has a checksum",
							   pos);
			pos += SL_LZ4_HEADER;
			break;
		}
		if ((size_t) clen > in_len - pos - SL_LZ4_HEADER)
			return sl_fail(err, SL_ERR_FORMAT, "LZ4Block at offset %zu truncated (%d bytes declared)",
						   pos, (int) clen);
		if ((size_t) rlen > cap - out->len)
			return sl_fail(err, SL_ERR_LIMIT, "decompressed size exceeds cap of %zu bytes", cap);
		if (lz4_grow(out, out->len + (size_t) rlen, cap, err) ||
			lz4block_one(in, pos, clen, rlen, out, err))
			return -1;
		pos += SL_LZ4_HEADER + (size_t) clen;
	}
	*pos_out = pos;
	return 0;
}

/* Decode an lz4-java LZ4BlockOutputStream stream, verifying checksums. */
int
sl_lz4block_decode(const uint8_t *in, size_t in_len, size_t cap,
				   uint8_t **out, size_t *out_len, size_t *consumed,
				   sl_err *err)
{
	sl_buf		b = {NULL, 0, 0};
	size_t		pos = 0;

	*out = NULL;
	*out_len = 0;
	if (lz4block_blocks(in, in_len, cap, &b, &pos, err))
	{
		sl_buf_free(&b);
		return -1;
	}
	if (b.data == NULL && (b.data = sl_alloc_err(1, err)) == NULL)
		return -1;
	*out = shrink_output(b.data, b.len, b.cap);
	*out_len = b.len;
	if (consumed)
		*consumed = pos;
	return 0;
}

/* Write one LZ4Block header at p. */
static void
lz4block_header(uint8_t *p, int method, uint32_t clen, uint32_t rlen, uint32_t check)
{
	memcpy(p, SL_LZ4_MAGIC, SL_LZ4_MAGIC_LEN);
	p[SL_LZ4_MAGIC_LEN] = (uint8_t) (method | SL_LZ4_BLOCK_LEVEL);
	sl_put_u32le(p + SL_LZ4_MAGIC_LEN + 1, clen);
	sl_put_u32le(p + SL_LZ4_MAGIC_LEN + 5, rlen);
	sl_put_u32le(p + SL_LZ4_MAGIC_LEN + 9, check);
}

/* Append one block of at most 64 KiB, LZ4-compressed unless that does not help. */
static int
lz4block_put(const uint8_t *in, int n, sl_buf *out, sl_err *err)
{
	int			bound = LZ4_compressBound(n);
	uint8_t    *h;
	int			c;

	if (sl_buf_reserve(out, SL_LZ4_HEADER + (size_t) bound, err))
		return -1;
	h = out->data + out->len;
	c = LZ4_compress_default((const char *) in, (char *) h + SL_LZ4_HEADER, n, bound);
	if (c <= 0 || c >= n)
	{
		memcpy(h + SL_LZ4_HEADER, in, (size_t) n);
		lz4block_header(h, SL_LZ4_METHOD_RAW, (uint32_t) n, (uint32_t) n,
						lz4block_check(in, (size_t) n));
		c = n;
	}
	else
		lz4block_header(h, SL_LZ4_METHOD_LZ4, (uint32_t) c, (uint32_t) n,
						lz4block_check(in, (size_t) n));
	out->len += SL_LZ4_HEADER + (size_t) c;
	return 0;
}

/* Encode in lz4-java's LZ4Block framing with 64 KiB blocks and an end mark. */
int
sl_lz4block_encode(const uint8_t *in, size_t len, sl_buf *out, sl_err *err)
{
	size_t		base = out->len;
	size_t		pos = 0;

	while (pos < len)
	{
		size_t		n = len - pos > SL_LZ4_BLOCK ? SL_LZ4_BLOCK : len - pos;

		if (lz4block_put(in + pos, (int) n, out, err))
		{
			out->len = base;
			return -1;
		}
		pos += n;
	}
	/* lz4-java's finish(): an empty raw block with zero lengths and checksum */
	if (sl_buf_reserve(out, SL_LZ4_HEADER, err))
	{
		out->len = base;
		return -1;
	}
	lz4block_header(out->data + out->len, SL_LZ4_METHOD_RAW, 0, 0, 0);
	out->len += SL_LZ4_HEADER;
	return 0;
}

/* Compute a CRC-32 (zlib polynomial) via libdeflate. */
uint32_t
sl_crc32(uint32_t crc, const void *data, size_t len)
{
	return libdeflate_crc32(crc, data, len);
}
