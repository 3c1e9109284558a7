/*
 * test_codec.c - unit tests of sl_codec: deflate family, LZ4Block, CRC-32.
 */
#include "harness.h"

#include "sl_codec.h"
#include "sl_jgzip.h"
#include "sl_nbt.h"
#include "sl_zstd.h"

/* Largest single allocation seen while the counting hook is installed. */
static size_t codec_max_alloc;

/* Allocation hook that remembers the largest request. */
static void *
counting_alloc(size_t size)
{
	if (size > codec_max_alloc)
		codec_max_alloc = size;
	return malloc(size);
}

/* Reallocation hook that remembers the largest request. */
static void *
counting_realloc(void *p, size_t size)
{
	if (size > codec_max_alloc)
		codec_max_alloc = size;
	return realloc(p, size);
}

/* Fill buf with mildly compressible pseudo-random bytes. */
static void
fill_sample(uint8_t *buf, size_t len, uint32_t seed, int compressible)
{
	uint32_t	s = seed ? seed : 1;

	for (size_t i = 0; i < len; i++)
	{
		s ^= s << 13;
		s ^= s >> 17;
		s ^= s << 5;
		buf[i] = compressible ? (uint8_t) ("slime chunk data "[s % 17] + (i % 251 == 0)) : (uint8_t) s;
	}
}

/* Round-trip len bytes through one deflate kind, with and without a hint. */
static void
deflate_roundtrip(sl_deflate_kind kind, size_t len, int compressible)
{
	uint8_t    *src = malloc(len ? len : 1);
	sl_buf		z = {NULL, 0, 0};
	sl_err		err;
	uint8_t    *out = NULL;
	size_t		out_len = 0,
				used = 0;

	fill_sample(src, len, (uint32_t) len + 7, compressible);
	CHECK_OK(sl_deflate(kind, 6, src, len, &z, &err), &err);
	CHECK_OK(sl_inflate(kind, z.data, z.len, 1 << 24, 0, &out, &out_len, &used, &err), &err);
	CHECK(out_len == len && used == z.len);
	CHECK(out != NULL && (len == 0 || memcmp(out, src, len) == 0));
	sl_free(out);
	/* a tiny hint makes the output grow by doubling */
	CHECK_OK(sl_inflate(kind, z.data, z.len, 1 << 24, 1, &out, &out_len, &used, &err), &err);
	CHECK(out_len == len && (len == 0 || memcmp(out, src, len) == 0));
	sl_free(out);
	sl_buf_free(&z);
	free(src);
}

/* Round-trip raw deflate streams. */
void
test_codec_deflate_roundtrip(void)
{
	deflate_roundtrip(SL_DEFLATE_RAW, 0, 1);
	deflate_roundtrip(SL_DEFLATE_RAW, 1, 1);
	deflate_roundtrip(SL_DEFLATE_RAW, 300000, 1);
	deflate_roundtrip(SL_DEFLATE_RAW, 100000, 0);
}

/* Round-trip zlib streams. */
void
test_codec_zlib_roundtrip(void)
{
	deflate_roundtrip(SL_DEFLATE_ZLIB, 0, 1);
	deflate_roundtrip(SL_DEFLATE_ZLIB, 5, 1);
	deflate_roundtrip(SL_DEFLATE_ZLIB, 1000000, 1);
	deflate_roundtrip(SL_DEFLATE_ZLIB, 70000, 0);
}

/* Round-trip gzip streams. */
void
test_codec_gzip_roundtrip(void)
{
	deflate_roundtrip(SL_DEFLATE_GZIP, 0, 1);
	deflate_roundtrip(SL_DEFLATE_GZIP, 17, 1);
	deflate_roundtrip(SL_DEFLATE_GZIP, 500000, 1);
	deflate_roundtrip(SL_DEFLATE_GZIP, 70000, 0);
}

/* Check consumed stops at the end of the stream, before trailing bytes. */
void
test_codec_inflate_consumed(void)
{
	uint8_t		src[1000];
	sl_buf		z = {NULL, 0, 0};
	sl_err		err;
	uint8_t    *out = NULL;
	size_t		out_len = 0,
				used = 0,
				stream;

	fill_sample(src, sizeof(src), 3, 1);
	CHECK_OK(sl_deflate(SL_DEFLATE_ZLIB, 9, src, sizeof(src), &z, &err), &err);
	stream = z.len;
	CHECK_OK(sl_buf_put(&z, "\0\0\0garbage", 10, &err), &err);
	CHECK_OK(sl_inflate(SL_DEFLATE_ZLIB, z.data, z.len, 4096, 0, &out, &out_len, &used, &err), &err);
	CHECK(used == stream && out_len == sizeof(src));
	sl_free(out);
	sl_buf_free(&z);
}

/* Refuse output beyond the cap with SL_ERR_LIMIT; accept exactly the cap. */
void
test_codec_inflate_cap(void)
{
	uint8_t    *src = calloc(1, 100000);
	sl_buf		z = {NULL, 0, 0};
	sl_err		err;
	uint8_t    *out = NULL;
	size_t		out_len = 0,
				used = 0;

	CHECK_OK(sl_deflate(SL_DEFLATE_GZIP, 6, src, 100000, &z, &err), &err);
	CHECK(sl_inflate(SL_DEFLATE_GZIP, z.data, z.len, 99999, 0, &out, &out_len, &used, &err) == -1);
	CHECK(err.code == SL_ERR_LIMIT && out == NULL);
	CHECK(strstr(err.msg, "exceeds cap of 99999 bytes") != NULL);
	CHECK_OK(sl_inflate(SL_DEFLATE_GZIP, z.data, z.len, 100000, 0, &out, &out_len, &used, &err), &err);
	CHECK(out_len == 100000);
	sl_free(out);
	sl_buf_free(&z);
	free(src);
}

/* Reject garbage and truncated streams with SL_ERR_FORMAT. */
void
test_codec_inflate_corrupt(void)
{
	uint8_t		src[5000];
	uint8_t		junk[300];
	sl_buf		z = {NULL, 0, 0};
	sl_err		err;
	uint8_t    *out = NULL;
	size_t		out_len = 0,
				used = 0;

	fill_sample(src, sizeof(src), 9, 1);
	fill_sample(junk, sizeof(junk), 11, 0);
	CHECK(sl_inflate(SL_DEFLATE_ZLIB, junk, sizeof(junk), 1 << 20, 0, &out, &out_len, &used, &err) == -1);
	CHECK(err.code == SL_ERR_FORMAT && strstr(err.msg, "zlib data is corrupt") != NULL);
	CHECK(sl_inflate(SL_DEFLATE_GZIP, junk, 0, 1 << 20, 0, &out, &out_len, &used, &err) == -1);
	CHECK(err.code == SL_ERR_FORMAT);
	CHECK_OK(sl_deflate(SL_DEFLATE_ZLIB, 6, src, sizeof(src), &z, &err), &err);
	for (size_t cut = 1; cut < z.len; cut += 7)
	{
		CHECK(sl_inflate(SL_DEFLATE_ZLIB, z.data, cut, 1 << 20, 0, &out, &out_len, &used, &err) == -1);
		CHECK(err.code == SL_ERR_FORMAT && out == NULL);
	}
	z.data[z.len - 1] ^= 1;		/* adler32 mismatch */
	CHECK(sl_inflate(SL_DEFLATE_ZLIB, z.data, z.len, 1 << 20, 0, &out, &out_len, &used, &err) == -1);
	CHECK(err.code == SL_ERR_FORMAT);
	sl_buf_free(&z);
}

/* Check a lying gzip ISIZE does not make the decoder allocate what it claims. */
void
test_codec_gzip_isize_untrusted(void)
{
	uint8_t		src[64];
	sl_buf		z = {NULL, 0, 0};
	sl_err		err;
	uint8_t    *out = NULL;
	size_t		out_len = 0,
				used = 0;
	sl_hooks_t	saved = sl_hooks;

	memset(src, 'a', sizeof(src));
	CHECK_OK(sl_deflate(SL_DEFLATE_GZIP, 6, src, sizeof(src), &z, &err), &err);
	sl_put_u32le(z.data + z.len - 4, 0xFFFFFFFFU);
	codec_max_alloc = 0;
	sl_hooks.alloc = counting_alloc;
	sl_hooks.realloc = counting_realloc;
	CHECK(sl_inflate(SL_DEFLATE_GZIP, z.data, z.len, (size_t) 1 << 30, 0, &out, &out_len, &used, &err) == -1);
	sl_hooks = saved;
	CHECK(err.code == SL_ERR_FORMAT);
	CHECK(codec_max_alloc < 256 * 1024);
	sl_buf_free(&z);
}

/* Bit writer for hand-made deflate streams. */
typedef struct bitw
{
	sl_buf	   *out;
	uint32_t	acc;
	int			n;
} bitw;

/* Append nbits of value, least significant bit first. */
static void
bits_put(bitw *w, uint32_t value, int nbits, sl_err *err)
{
	w->acc |= value << w->n;
	w->n += nbits;
	while (w->n >= 8)
	{
		sl_buf_put_u8(w->out, (uint8_t) w->acc, err);
		w->acc >>= 8;
		w->n -= 8;
	}
}

/* Append a Huffman code, most significant bit first. */
static void
huff_put(bitw *w, uint32_t code, int len, sl_err *err)
{
	uint32_t	rev = 0;

	for (int i = 0; i < len; i++)
		rev |= ((code >> i) & 1) << (len - 1 - i);
	bits_put(w, rev, len, err);
}

/*
 * Append a gzip member that inflates to n zero bytes: one fixed-Huffman block
 * of a literal 0 and matches of 258 at distance 1 (13 bits per 258 bytes).
 */
void
codec_test_zero_bomb(size_t n, sl_buf *out)
{
	static const uint8_t head[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff};
	uint8_t    *zeros = calloc(1, 1 << 20);
	bitw		w = {out, 0, 0};
	uint32_t	crc = 0;
	uint8_t		tail[8];
	sl_err		err;
	size_t		left;

	sl_buf_put(out, head, sizeof(head), &err);
	bits_put(&w, 1, 1, &err);	/* BFINAL */
	bits_put(&w, 1, 2, &err);	/* BTYPE fixed */
	huff_put(&w, 0x30, 8, &err);	/* literal 0 */
	for (left = n - 1; left >= 258; left -= 258)
	{
		huff_put(&w, 0xC5, 8, &err);	/* length 258 (symbol 285) */
		huff_put(&w, 0, 5, &err);	/* distance 1 */
	}
	for (; left > 0; left--)
		huff_put(&w, 0x30, 8, &err);
	huff_put(&w, 0, 7, &err);	/* end of block */
	if (w.n)
		bits_put(&w, 0, 8 - w.n, &err);
	for (left = n; left > 0;)
	{
		size_t		k = left > (1 << 20) ? (1 << 20) : left;

		crc = sl_crc32(crc, zeros, k);
		left -= k;
	}
	sl_put_u32le(tail, crc);
	sl_put_u32le(tail + 4, (uint32_t) n);
	sl_buf_put(out, tail, sizeof(tail), &err);
	free(zeros);
}

/* Stop a 200 MB gzip bomb at a 1 MiB cap; decode a small one. */
void
test_codec_gzip_bomb(void)
{
	sl_buf		z = {NULL, 0, 0};
	sl_err		err;
	uint8_t    *out = NULL;
	size_t		out_len = 0,
				used = 0,
				nonzero = 0;
	sl_hooks_t	saved = sl_hooks;

	codec_test_zero_bomb(1000003, &z);
	CHECK_OK(sl_inflate(SL_DEFLATE_GZIP, z.data, z.len, 2 << 20, 0, &out, &out_len, &used, &err), &err);
	CHECK(out_len == 1000003 && used == z.len);
	for (size_t i = 0; out && i < out_len; i++)
		nonzero += out[i] != 0;
	CHECK(nonzero == 0);
	sl_free(out);
	sl_buf_free(&z);

	codec_test_zero_bomb((size_t) 200 * 1000 * 1000, &z);
	CHECK(z.len < 2 * 1000 * 1000);
	codec_max_alloc = 0;
	sl_hooks.alloc = counting_alloc;
	sl_hooks.realloc = counting_realloc;
	CHECK(sl_inflate(SL_DEFLATE_GZIP, z.data, z.len, 1 << 20, 0, &out, &out_len, &used, &err) == -1);
	sl_hooks = saved;
	CHECK(err.code == SL_ERR_LIMIT && strstr(err.msg, "cap of 1048576 bytes") != NULL);
	CHECK(codec_max_alloc <= (1 << 20));
	sl_buf_free(&z);
}

/* Round-trip len bytes through LZ4Block and check the framing. */
static void
lz4_roundtrip(size_t len, int compressible)
{
	static const uint8_t endmark[21] = {'L', 'Z', '4', 'B', 'l', 'o', 'c', 'k', 0x16};
	uint8_t    *src = malloc(len ? len : 1);
	sl_buf		z = {NULL, 0, 0};
	sl_err		err;
	uint8_t    *out = NULL;
	size_t		out_len = 0,
				used = 0;

	fill_sample(src, len, (uint32_t) len + 1, compressible);
	CHECK_OK(sl_lz4block_encode(src, len, &z, &err), &err);
	CHECK(z.len >= 21 && memcmp(z.data + z.len - 21, endmark, 21) == 0);
	if (len > 0)
		CHECK(z.data[8] == (compressible ? 0x26 : 0x16));
	CHECK_OK(sl_lz4block_decode(z.data, z.len, 1 << 24, &out, &out_len, &used, &err), &err);
	CHECK(out_len == len && used == z.len && (len == 0 || memcmp(out, src, len) == 0));
	sl_free(out);
	if (len > 0)
	{
		/* Pumpkin omits the end mark: end of input after a block is accepted */
		CHECK_OK(sl_lz4block_decode(z.data, z.len - 21, 1 << 24, &out, &out_len, &used, &err), &err);
		CHECK(out_len == len && used == z.len - 21);
		sl_free(out);
	}
	sl_buf_free(&z);
	free(src);
}

/* Round-trip LZ4Block streams across block boundaries. */
void
test_codec_lz4_roundtrip(void)
{
	lz4_roundtrip(0, 1);
	lz4_roundtrip(1, 0);
	lz4_roundtrip(65536, 1);
	lz4_roundtrip(65537, 1);
	lz4_roundtrip(300000, 1);
	lz4_roundtrip(200000, 0);
}

/* Decode a copy of z after flipping one byte; expect failure with code. */
static void
lz4_expect_fail(const sl_buf *z, size_t at, uint8_t value, size_t cap, sl_code code)
{
	uint8_t    *copy = malloc(z->len);
	uint8_t    *out = NULL;
	size_t		out_len = 0,
				used = 0;
	sl_err		err;

	memcpy(copy, z->data, z->len);
	if (at < z->len)
		copy[at] = value;
	CHECK(sl_lz4block_decode(copy, z->len, cap, &out, &out_len, &used, &err) == -1);
	CHECK(err.code == code && out == NULL);
	free(copy);
}

/* Reject hostile LZ4Block streams cleanly. */
void
test_codec_lz4_hostile(void)
{
	uint8_t		src[100000];
	sl_buf		z = {NULL, 0, 0};
	sl_err		err;
	uint8_t    *out = NULL;
	size_t		out_len = 0,
				used = 0;

	fill_sample(src, sizeof(src), 5, 1);
	CHECK_OK(sl_lz4block_encode(src, sizeof(src), &z, &err), &err);
	lz4_expect_fail(&z, 0, 'X', 1 << 20, SL_ERR_FORMAT);	/* magic */
	lz4_expect_fail(&z, 8, 0x36, 1 << 20, SL_ERR_FORMAT);	/* method */
	lz4_expect_fail(&z, 8, 0x25, 1 << 20, SL_ERR_FORMAT);	/* raw len > 1 << 15 */
	lz4_expect_fail(&z, 12, 0x80, 1 << 20, SL_ERR_FORMAT);	/* negative length */
	lz4_expect_fail(&z, 17, z.data[17] ^ 1, 1 << 20, SL_ERR_FORMAT);	/* checksum */
	lz4_expect_fail(&z, 30, z.data[30] ^ 0x55, 1 << 20, SL_ERR_FORMAT);	/* data */
	lz4_expect_fail(&z, z.len, 0, 1000, SL_ERR_LIMIT);	/* cap */
	lz4_expect_fail(&z, z.len - 1, 1, 1 << 20, SL_ERR_FORMAT);	/* end mark checksum */
	for (size_t cut = 0; cut < z.len - 21; cut += 997)
	{
		if (cut == 0)
			continue;
		if (sl_lz4block_decode(z.data, cut, 1 << 20, &out, &out_len, &used, &err) == 0)
		{
			CHECK(out_len % 65536 == 0);	/* cut fell on a block boundary */
			sl_free(out);
		}
		else
			CHECK(err.code == SL_ERR_FORMAT);
	}
	CHECK(sl_lz4block_decode(z.data, 0, 1 << 20, &out, &out_len, &used, &err) == -1);
	sl_buf_free(&z);
}

/* Decode every chunk of one region file with the codec directly. */
static int
decode_region_chunks(const char *path, int want_type, int *nchunks)
{
	size_t		len = 0;
	unsigned char *f = sl_test_read_file(path, &len);
	int			bad = 0;

	*nchunks = 0;
	if (f == NULL)
		return -1;
	for (int s = 0; s < 1024 && len >= 8192; s++)
	{
		size_t		pos = (size_t) (sl_get_u32be(f + s * 4) >> 8) * 4096;
		uint8_t    *out = NULL;
		size_t		out_len = 0,
					used = 0,
					consumed = 0,
					clen;
		sl_err		err;

		if (pos == 0)
			continue;
		if (pos + 5 > len || sl_get_u32be(f + pos) < 2)
		{
			bad++;
			continue;
		}
		clen = sl_get_u32be(f + pos) - 1;
		if (f[pos + 4] != want_type || pos + 5 + clen > len)
		{
			bad++;
			continue;
		}
		if (want_type == 4)
			bad += sl_lz4block_decode(f + pos + 5, clen, 1 << 26, &out, &out_len, &used, &err) != 0;
		else
			bad += sl_inflate(SL_DEFLATE_GZIP, f + pos + 5, clen, 1 << 26, 0, &out, &out_len, &used, &err) != 0;
		if (out && sl_nbt_check(out, out_len, 0, &sl_default_limits, &consumed, &err) != 0)
			bad++;
		sl_free(out);
		(*nchunks)++;
	}
	free(f);
	return bad;
}

/* Decode Pumpkin's LZ4 chunks (lz4-java framing without end mark). */
void
test_codec_lz4_corpus(void)
{
	const char *corpus = sl_test_corpus();
	char		path[4096];
	int			n = 0;

	if (corpus == NULL)
	{
		fprintf(stderr, "CORPUS MISSING: set SLIME_CORPUS or provide ../shared/corpus\n");
		CHECK(0);
		return;
	}
	snprintf(path, sizeof(path), "%s/anvil-1.18plus/pumpkin/World-DIM0/r.0.0.mca", corpus);
	CHECK(decode_region_chunks(path, 4, &n) == 0);
	CHECK(n == 85);
	snprintf(path, sizeof(path), "%s/anvil-1.18plus/pumpkin/bench_root_tmp/r.0.0.mca", corpus);
	CHECK(decode_region_chunks(path, 4, &n) == 0);
	CHECK(n == 256);
}

/* Decode gzip chunks and a gzip level.dat of the corpus. */
void
test_codec_gzip_corpus(void)
{
	const char *corpus = sl_test_corpus();
	char		path[4096];
	int			n = 0;
	size_t		len = 0;
	unsigned char *f;
	uint8_t    *out = NULL;
	size_t		out_len = 0,
				used = 0,
				consumed = 0;
	sl_err		err;

	if (corpus == NULL)
	{
		fprintf(stderr, "CORPUS MISSING: set SLIME_CORPUS or provide ../shared/corpus\n");
		CHECK(0);
		return;
	}
	snprintf(path, sizeof(path), "%s/anvil-1.2-1.12/pymclevel/PrimordialDesert/r.0.0.mca", corpus);
	CHECK(decode_region_chunks(path, 1, &n) == 0);
	CHECK(n == 256);
	snprintf(path, sizeof(path), "%s/level-dat/bingley-tag/level.dat", corpus);
	f = sl_test_read_file(path, &len);
	CHECK(f != NULL);
	if (f == NULL)
		return;
	CHECK_OK(sl_inflate(SL_DEFLATE_GZIP, f, len, 1 << 24, 0, &out, &out_len, &used, &err), &err);
	CHECK(used == len);
	CHECK(out != NULL && sl_nbt_check(out, out_len, 0, &sl_default_limits, &consumed, &err) == 0);
	CHECK(consumed == out_len);
	sl_free(out);
	free(f);
}

/* Check the CRC-32 check value and incremental use. */
void
test_codec_crc32(void)
{
	CHECK(sl_crc32(0, "123456789", 9) == 0xCBF43926U);
	CHECK(sl_crc32(sl_crc32(0, "1234", 4), "56789", 5) == 0xCBF43926U);
	CHECK(sl_crc32(0, "", 0) == 0);
}

/* Reject bad compression levels. */
void
test_codec_deflate_bad_level(void)
{
	sl_buf		z = {NULL, 0, 0};
	sl_err		err;

	CHECK(sl_deflate(SL_DEFLATE_ZLIB, 13, (const uint8_t *) "x", 1, &z, &err) == -1);
	CHECK(err.code == SL_ERR_INVALID);
	CHECK(sl_deflate(SL_DEFLATE_ZLIB, -1, (const uint8_t *) "x", 1, &z, &err) == -1);
	sl_buf_free(&z);
}

/* Interrupt hook that counts its calls. */
static int	zstd_interrupts;
static void
counting_interrupt(void)
{
	zstd_interrupts++;
}

/* zstd frames at a fast and a slow level, with and without a prefix, across the slice size. */
void
test_codec_zstd_frames(void)
{
	static const size_t sizes[] = {0, 1000, 256 * 1024, 256 * 1024 + 1, 700000};
	static const int levels[] = {3, 12};
	uint8_t    *src = malloc(700000),
			   *back = malloc(700000),
			   *prefix = malloc(4096);
	void		(*saved) (void) = sl_hooks.interrupt;

	fill_sample(prefix, 4096, 99, 1);
	sl_hooks.interrupt = counting_interrupt;
	for (int l = 0; l < 2; l++)
		for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
			for (int withp = 0; withp < 2; withp++)
			{
				sl_buf		z = {NULL, 0, 0};
				sl_err		err;

				fill_sample(src, sizes[k], (uint32_t) k + 1, 1);
				zstd_interrupts = 0;
				CHECK_OK(sl_zstd_frame_prefix(src, sizes[k], levels[l], withp ? prefix : NULL,
											  withp ? 4096 : 0, &z, &err), &err);
				/* slices of 256 KiB with a check between them, at slow levels only */
				CHECK(zstd_interrupts == (levels[l] >= 10 && sizes[k] > 256 * 1024 ? (int) ((sizes[k] - 1) / (256 * 1024)) : 0));
				if (withp)
					CHECK_OK(sl_zstd_unframe_prefix(z.data, z.len, back, sizes[k], prefix, 4096, &err), &err);
				else
					CHECK_OK(sl_zstd_unframe(z.data, z.len, back, sizes[k], &err), &err);
				CHECK(sizes[k] == 0 || memcmp(src, back, sizes[k]) == 0);
				sl_buf_free(&z);
			}
	sl_hooks.interrupt = saved;
	free(src);
	free(back);
	free(prefix);
}

/*
 * sl_jgzip writes the level.dat files the game wrote byte for byte (every
 * corpus level.dat written by Minecraft itself; Minestom, pymclevel and
 * Pumpkin write theirs with other encoders), inflates back, and chooses
 * the OS byte by DataVersion.
 */
void
test_codec_jgzip(void)
{
	static const char *const vanilla[] = {
		"amulet-core/1_12_2/level.dat", "amulet-core/1_13/level.dat",
		"amulet-core/1_16_5_dimension/level.dat", "amulet-core/1_17_1_caves_and_cliffs/level.dat",
		"amulet-core/1_18_vanilla/level.dat", "amulet-core/1_20_1_20_random/level.dat",
		"amulet-core/forge_1_16_5_twilight_forest/level.dat", "bingley-tag/level.dat",
		"cu_minecraft/level.dat", "mcaselector/generator-level.dat", "querz-nbt/level.dat",
		"risc32-emulator/level.dat", "pymclevel/AnvilWorld/level.dat",
	};
	const char *corpus = sl_test_corpus();
	uint8_t		big[70000];
	sl_buf		z = {NULL, 0, 0};
	sl_err		err;
	uint8_t    *out = NULL;
	size_t		out_len = 0,
				used = 0;

	CHECK(sl_jgzip_os(INT32_MIN) == 0 && sl_jgzip_os(2586) == 0 && sl_jgzip_os(2724) == 255 &&
		  sl_jgzip_os(4774) == 255);
	fill_sample(big, sizeof(big), 36, 1);
	CHECK_OK(sl_jgzip(big, sizeof(big), 255, &z, &err), &err);
	CHECK(z.len > 18 && z.data[0] == 0x1f && z.data[1] == 0x8b && z.data[8] == 0 && z.data[9] == 255);
	CHECK_OK(sl_inflate(SL_DEFLATE_GZIP, z.data, z.len, 1 << 20, 0, &out, &out_len, &used, &err), &err);
	CHECK(out_len == sizeof(big) && used == z.len && memcmp(out, big, out_len) == 0);
	sl_free(out);
	sl_buf_free(&z);
	if (corpus == NULL)
	{
		fprintf(stderr, "CORPUS MISSING: set SLIME_CORPUS or provide ../shared/corpus\n");
		CHECK(0);
		return;
	}
	for (size_t i = 0; i < sizeof(vanilla) / sizeof(vanilla[0]); i++)
	{
		char		path[4096];
		size_t		len = 0;
		unsigned char *f;

		snprintf(path, sizeof(path), "%s/level-dat/%s", corpus, vanilla[i]);
		f = sl_test_read_file(path, &len);
		CHECK(f != NULL);
		if (f == NULL)
			continue;
		out = NULL;
		CHECK_OK(sl_inflate(SL_DEFLATE_GZIP, f, len, 1 << 24, 0, &out, &out_len, &used, &err), &err);
		z.len = 0;
		CHECK_OK(sl_jgzip_level(out, out_len, &sl_default_limits, &z, &err), &err);
		if (z.len != len || memcmp(z.data, f, len) != 0)
		{
			fprintf(stderr, "  %s: written again, not the same bytes (%zu, was %zu)\n", vanilla[i], z.len, len);
			CHECK(0);
		}
		sl_free(out);
		free(f);
	}
	sl_buf_free(&z);
}
