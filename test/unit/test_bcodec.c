/*
 * test_bcodec.c - unit tests of the block codec (sl_bcodec): round trips of
 * generated chunks of every era, of bytes that are not NBT and of nothing;
 * the decoder rejects every truncation and every flipped byte, and with
 * the body checksum patched its own checks catch a changed byte.
 */
#include <xxhash.h>

#include "harness.h"
#include "sl_bcodec.h"
#include "sl_nbt.h"
#include "sl_value.h"

/* splitmix64, deterministic. */
static uint64_t rng = 0x51A11D5;
static uint64_t
rnd(void)
{
	uint64_t	z = (rng += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

/* Append a named tag header. */
static void
tag(sl_buf *b, int type, const char *name)
{
	sl_err		err;

	sl_buf_put_u8(b, (uint8_t) type, &err);
	sl_buf_put_u16be(b, (uint16_t) strlen(name), &err);
	sl_buf_put(b, name, strlen(name), &err);
}

/* Append a string payload. */
static void
str(sl_buf *b, const char *s)
{
	sl_err		err;

	sl_buf_put_u16be(b, (uint16_t) strlen(s), &err);
	sl_buf_put(b, s, strlen(s), &err);
}

/* Append a list header (element type, count). */
static void
list(sl_buf *b, const char *name, int elem, uint32_t n)
{
	sl_err		err;

	tag(b, SL_TAG_LIST, name);
	sl_buf_put_u8(b, (uint8_t) elem, &err);
	sl_buf_put_u32be(b, n, &err);
}

/* Append a byte array of n bytes: block-ish layers, or noise. */
static void
bytes(sl_buf *b, const char *name, uint32_t n, int noisy)
{
	sl_err		err;

	tag(b, SL_TAG_BYTE_ARRAY, name);
	sl_buf_put_u32be(b, n, &err);
	for (uint32_t i = 0; i < n; i++)
		sl_buf_put_u8(b, (uint8_t) (noisy ? rnd() : (i / 256 < 4 ? 1 : (rnd() % 16 == 0 ? 3 : 0))), &err);
}

/* Append a palette of n {Name} compounds. */
static void
palette(sl_buf *b, const char *name, int n)
{
	sl_err		err;

	list(b, name, SL_TAG_COMPOUND, (uint32_t) n);
	for (int i = 0; i < n; i++)
	{
		char		s[64];

		snprintf(s, sizeof(s), "minecraft:block_%d", i);
		tag(b, SL_TAG_STRING, "Name");
		str(b, s);
		sl_buf_put_u8(b, SL_TAG_END, &err);
	}
}

/*
 * Append packed indices (< npal, layered) as a long array; spanning or not;
 * flaw: 1 set a padding bit, 2 put an index past the palette, 3 one long too many.
 */
static void
packed(sl_buf *b, const char *name, int npal, int bits, int spanning, int flaw)
{
	uint32_t	n = spanning ? 64 * bits : (4096 + 64 / bits - 1) / (64 / bits);
	uint64_t   *w = calloc(n + 1, 8);
	sl_err		err;

	for (uint32_t i = 0; i < 4096; i++)
	{
		uint64_t	v = (uint64_t) ((i >> 8) * npal / 16 + (rnd() % 8 == 0)) % npal;
		uint64_t	bit = spanning ? (uint64_t) i * bits : (uint64_t) (i / (64 / bits)) * 64 + (i % (64 / bits)) * bits;

		if (flaw == 2 && i == 1000)
			v = (uint64_t) npal;
		w[bit / 64] |= v << (bit % 64);
		if (bit % 64 + bits > 64)
			w[bit / 64 + 1] |= v >> (64 - bit % 64);
	}
	if (flaw == 1 && !spanning && 64 % bits)
		w[3] |= (uint64_t) 1 << 63;
	if (flaw == 3)
		n++;
	tag(b, SL_TAG_LONG_ARRAY, name);
	sl_buf_put_u32be(b, n, &err);
	for (uint32_t i = 0; i < n; i++)
		sl_buf_put_u64be(b, w[i], &err);
	free(w);
}

/* Height at column i of heightmap k: hills, the maps of a chunk nearly equal. */
static uint32_t
height(int i, int k)
{
	return (uint32_t) (70 + (i & 15) / 3 + (i >> 4) / 5 + (k == 2 && i % 7 == 0 ? 3 : 0) + (rnd() % 9 == 0));
}

/*
 * Append a heightmap of 9-bit heights as a long array (36 longs spanning, or
 * 37 with 7 a long; flaw: set unused bits of the last long), or (bits 0) an
 * int[256] whose element 5 is high when flaw is set (past what is modelled).
 */
static void
heights(sl_buf *b, const char *name, int k, int bits, int spanning, int flaw)
{
	uint64_t	w[37] = {0};
	uint32_t	n = spanning ? 36 : 37;
	sl_err		err;

	if (bits == 0)
	{
		tag(b, SL_TAG_INT_ARRAY, name);
		sl_buf_put_u32be(b, 256, &err);
		for (int i = 0; i < 256; i++)
			sl_buf_put_u32be(b, flaw && i == 5 ? 5000 : height(i, k), &err);
		return;
	}
	for (int i = 0; i < 256; i++)
	{
		uint64_t	v = height(i, k);
		int			bit = spanning ? i * 9 : (i / 7) * 64 + (i % 7) * 9;

		w[bit / 64] |= v << (bit % 64);
		if (bit % 64 + 9 > 64)
			w[bit / 64 + 1] |= v >> (64 - bit % 64);
	}
	if (flaw)
		w[36] |= (uint64_t) 0x3f1f << 48;
	tag(b, SL_TAG_LONG_ARRAY, name);
	sl_buf_put_u32be(b, n, &err);
	for (uint32_t i = 0; i < n; i++)
		sl_buf_put_u64be(b, w[i], &err);
}

/* Append a 1.13+ Heightmaps compound of four maps (flaw: unused bits set in the third). */
static void
heightmaps(sl_buf *b, int spanning, int flaw)
{
	static const char *const names[4] = {"MOTION_BLOCKING", "MOTION_BLOCKING_NO_LEAVES", "OCEAN_FLOOR", "WORLD_SURFACE"};
	sl_err		err;

	tag(b, SL_TAG_COMPOUND, "Heightmaps");
	for (int k = 0; k < 4; k++)
		heights(b, names[k], k, 9, spanning, flaw && k == 2);
	sl_buf_put_u8(b, SL_TAG_END, &err);
}

/* A 1.18+ chunk: sections with 4- and 5-bit states, flawed arrays, light, heightmaps. */
static void
gen_modern(sl_buf *b)
{
	sl_err		err;
	static const int pals[] = {3, 20, 20, 20, 20, 1, 300};
	static const int flaws[] = {0, 0, 1, 2, 3, 0, 0};

	tag(b, SL_TAG_COMPOUND, "");
	tag(b, SL_TAG_INT, "DataVersion");
	sl_buf_put_u32be(b, 3955, &err);
	heightmaps(b, 0, 1);
	list(b, "sections", SL_TAG_COMPOUND, 7);
	for (int s = 0; s < 7; s++)
	{
		int			bits = pals[s] <= 16 ? 4 : pals[s] <= 32 ? 5 : 9;

		tag(b, SL_TAG_BYTE, "Y");
		sl_buf_put_u8(b, (uint8_t) s, &err);
		tag(b, SL_TAG_COMPOUND, "block_states");
		if (s == 2)				/* data before palette */
		{
			packed(b, "data", pals[s], bits, 0, flaws[s]);
			palette(b, "palette", pals[s]);
		}
		else
		{
			palette(b, "palette", pals[s]);
			if (pals[s] > 1)
				packed(b, "data", pals[s], bits, 0, flaws[s]);
		}
		sl_buf_put_u8(b, SL_TAG_END, &err);
		bytes(b, "SkyLight", 2048, 0);
		bytes(b, "BlockLight", 2048, s == 6);
		sl_buf_put_u8(b, SL_TAG_END, &err);
	}
	sl_buf_put_u8(b, SL_TAG_END, &err);
}

/* A 1.13-1.17 chunk: Level.Sections with spanning 5-bit BlockStates, spanning heightmaps. */
static void
gen_flat(sl_buf *b)
{
	sl_err		err;

	tag(b, SL_TAG_COMPOUND, "");
	tag(b, SL_TAG_COMPOUND, "Level");
	list(b, "Sections", SL_TAG_COMPOUND, 3);
	for (int s = 0; s < 3; s++)
	{
		tag(b, SL_TAG_BYTE, "Y");
		sl_buf_put_u8(b, (uint8_t) s, &err);
		palette(b, "Palette", 17 + s);
		packed(b, "BlockStates", 17 + s, 5, s != 1, 0);
		bytes(b, "SkyLight", 2048, 0);
		sl_buf_put_u8(b, SL_TAG_END, &err);
	}
	tag(b, SL_TAG_INT_ARRAY, "Biomes");
	sl_buf_put_u32be(b, 1024, &err);
	for (int i = 0; i < 1024; i++)
		sl_buf_put_u32be(b, 1, &err);
	heightmaps(b, 1, 0);
	heights(b, "HeightMap", 0, 0, 0, 1);	/* an int[] heightmap past 1023: coded as bytes */
	sl_buf_put_u8(b, SL_TAG_END, &err);
	sl_buf_put_u8(b, SL_TAG_END, &err);
}

/* A 1.2-1.12 chunk (Sections of Blocks/Add/Data/light) or a McRegion one. */
static void
gen_legacy(sl_buf *b, int mcregion)
{
	sl_err		err;

	tag(b, SL_TAG_COMPOUND, "");
	tag(b, SL_TAG_COMPOUND, "Level");
	if (mcregion)
	{
		tag(b, SL_TAG_BYTE_ARRAY, "HeightMap");
		sl_buf_put_u32be(b, 256, &err);
		for (int i = 0; i < 256; i++)
			sl_buf_put_u8(b, (uint8_t) height(i, 0), &err);
		bytes(b, "Blocks", 32768, 0);
		bytes(b, "Data", 16384, 0);
		bytes(b, "SkyLight", 16384, 0);
		bytes(b, "BlockLight", 16384, 1);
	}
	else
	{
		heights(b, "HeightMap", 0, 0, 0, 0);
		list(b, "Sections", SL_TAG_COMPOUND, 2);
		for (int s = 0; s < 2; s++)
		{
			bytes(b, "Blocks", 4096, 0);
			bytes(b, "Data", 2048, 0);
			bytes(b, "Add", 2048, s);
			bytes(b, "SkyLight", 2048, 0);
			bytes(b, "BlockLight", 2048, 0);
			sl_buf_put_u8(b, SL_TAG_END, &err);
		}
	}
	sl_buf_put_u8(b, SL_TAG_END, &err);
	sl_buf_put_u8(b, SL_TAG_END, &err);
}

/* Encode (as a stream of version) and decode; CHECK the bytes come back. Returns the encoded size. */
static size_t
round_trip_v(const uint8_t *raw, size_t len, int version)
{
	sl_buf		enc = {0};
	sl_err		err;
	uint8_t    *back = malloc(len + 1);
	size_t		n;

	CHECK_OK(sl_bcodec_encode(raw, len, version, &enc, &err), &err);
	CHECK(sl_bcodec_version(enc.data, enc.len) == version);
	CHECK_OK(sl_bcodec_decode(enc.data, enc.len, back, len, &err), &err);
	CHECK(len == 0 || memcmp(raw, back, len) == 0);
	n = enc.len;
	sl_buf_free(&enc);
	free(back);
	return n;
}

/* Round-trip raw as streams of every version; returns the largest encoded size. */
static size_t
round_trip(const uint8_t *raw, size_t len)
{
	size_t		most = 0;

	for (int v = SL_BCODEC_V1; v <= SL_BCODEC_V5; v++)
	{
		size_t		n = round_trip_v(raw, len, v);

		most = n > most ? n : most;
	}
	return most;
}

void
test_bcodec_roundtrip_eras(void)
{
	sl_buf		all = {0};
	sl_err		err;

	for (int era = 0; era < 4; era++)
	{
		sl_buf		b = {0};

		if (era == 0)
			gen_modern(&b);
		else if (era == 1)
			gen_flat(&b);
		else
			gen_legacy(&b, era == 3);
		CHECK(round_trip(b.data, b.len) < b.len);	/* noisy arrays on purpose: modest gains */
		sl_buf_put(&all, b.data, b.len, &err);
		sl_buf_free(&b);
	}
	/* documents back to back, then bytes that are not NBT */
	round_trip(all.data, all.len);
	sl_buf_put(&all, "\x0a\x00\x05trunc", 8, &err);
	round_trip(all.data, all.len);
	sl_buf_free(&all);
}

/* Version 5 models heightmaps: a document of every kind of them codes in far fewer bytes than in version 4. */
void
test_bcodec_heightmaps(void)
{
	sl_buf		b = {0};
	sl_err		err;
	size_t		v4,
				v5;

	tag(&b, SL_TAG_COMPOUND, "");
	heightmaps(&b, 0, 0);
	tag(&b, SL_TAG_COMPOUND, "Level");
	heightmaps(&b, 1, 1);
	heights(&b, "HeightMap", 0, 0, 0, 0);
	sl_buf_put_u8(&b, SL_TAG_END, &err);
	tag(&b, SL_TAG_BYTE_ARRAY, "HeightMap");
	sl_buf_put_u32be(&b, 256, &err);
	for (int i = 0; i < 256; i++)
		sl_buf_put_u8(&b, (uint8_t) height(i, 0), &err);
	sl_buf_put_u8(&b, SL_TAG_END, &err);
	v4 = round_trip_v(b.data, b.len, SL_BCODEC_V4);
	v5 = round_trip_v(b.data, b.len, SL_BCODEC_V5);
	CHECK(v5 * 3 < v4 * 2);
	sl_buf_free(&b);
}

void
test_bcodec_non_nbt(void)
{
	static const size_t sizes[] = {0, 1, 2, 3, 13, 100, 4096, 100000};
	uint8_t    *buf = malloc(100000);

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
	{
		for (size_t i = 0; i < sizes[k]; i++)
			buf[i] = (uint8_t) rnd();
		round_trip(buf, sizes[k]);
		memset(buf, 0x0a, sizes[k]);	/* compound tags all the way down */
		round_trip(buf, sizes[k]);
	}
	/* documents nested 100 deep (walked) and 600 deep (past the codec's cap: structure bytes) */
	for (int depth = 100; depth <= 600; depth += 500)
	{
		size_t		n = 0;

		buf[n++] = SL_TAG_COMPOUND, buf[n++] = 0, buf[n++] = 0;
		for (int d = 0; d < depth; d++)
			buf[n++] = SL_TAG_COMPOUND, buf[n++] = 0, buf[n++] = 1, buf[n++] = 'c';
		for (int d = 0; d <= depth; d++)
			buf[n++] = SL_TAG_END;
		round_trip(buf, n);
	}
	free(buf);
}

/* Recompute a stream's body XXH32 (bytes 9..12) after changing it. */
static void
patch_body_xxh32(uint8_t *p, size_t len)
{
	sl_put_u32be(p + 9, (uint32_t) XXH32(p + 13, len - 13, 0));
}

/*
 * Truncate and flip every byte of a stream of version: always SL_ERR_CORRUPT;
 * with the body checksum patched, an error or the same bytes (under
 * SLIME_UNIT_QUICK every 13th byte past the first 256).
 */
static void
corrupt_v(int version)
{
	sl_buf		b = {0},
				enc = {0};
	sl_err		err;
	uint8_t    *back;
	int			accepted = 0,
				wrong_code = 0;

	gen_flat(&b);
	back = malloc(b.len);
	CHECK_OK(sl_bcodec_encode(b.data, b.len, version, &enc, &err), &err);
	/* every truncation */
	for (size_t k = 0; k < enc.len; k += sl_test_cut_step(k))
	{
		if (sl_bcodec_decode(enc.data, k, back, b.len, &err) == 0)
			accepted++;
		else if (err.code != SL_ERR_CORRUPT)
			wrong_code++;
	}
	/* one flipped bit in every byte */
	for (size_t k = 0; k < enc.len; k += sl_test_cut_step(k))
	{
		enc.data[k] ^= (uint8_t) (1 << (k % 8));
		if (sl_bcodec_decode(enc.data, enc.len, back, b.len, &err) == 0)
			accepted++;
		else if (err.code != SL_ERR_CORRUPT)
			wrong_code++;
		enc.data[k] ^= (uint8_t) (1 << (k % 8));
	}
	/* one byte changed with the body checksum patched: the decoder's own checks, or the bytes */
	for (size_t k = 13; k < enc.len; k += sl_test_cut_step(k))
	{
		uint8_t		was = enc.data[k];

		enc.data[k] ^= (uint8_t) (0x11 << (k % 4));
		patch_body_xxh32(enc.data, enc.len);
		if (sl_bcodec_decode(enc.data, enc.len, back, b.len, &err) == 0)
			CHECK(memcmp(back, b.data, b.len) == 0);
		else if (err.code != SL_ERR_CORRUPT)
			wrong_code++;
		enc.data[k] = was;
	}
	patch_body_xxh32(enc.data, enc.len);
	/* the wrong raw length */
	CHECK(sl_bcodec_decode(enc.data, enc.len, back, b.len - 1, &err) != 0);
	CHECK(accepted == 0);
	CHECK(wrong_code == 0);
	CHECK_OK(sl_bcodec_decode(enc.data, enc.len, back, b.len, &err), &err);
	CHECK(memcmp(back, b.data, b.len) == 0);
	/* a stream is only the codec of its own version */
	CHECK_OK(sl_bcodec_expect(enc.data, enc.len, version, &err), &err);
	CHECK(sl_bcodec_expect(enc.data, enc.len, version % 5 + 1, &err) != 0 && err.code == SL_ERR_CORRUPT);
	sl_buf_free(&b);
	sl_buf_free(&enc);
	free(back);
}

void
test_bcodec_corrupt(void)
{
	corrupt_v(SL_BCODEC_V1);
	corrupt_v(SL_BCODEC_V2);
	corrupt_v(SL_BCODEC_V3);
	corrupt_v(SL_BCODEC_V4);
	corrupt_v(SL_BCODEC_V5);
}

/*
 * The archive level of format v3: generated chunks of two eras in one
 * value, coded with the block codec (streams of version: codec 1 or 2) (or zstd 19 where smaller), verify and
 * read back byte for byte, hash like the default level's value; a flipped
 * byte of a block-codec frame is an error, never a wrong chunk.
 */
static void
archive_value_v(int version)
{
	sl_buf		docs[8] = {{0}};
	sl_chunk_src src[8];
	sl_buf		arch = {0},
				plain = {0};
	sl_encode_opts o = sl_default_encode_opts;
	sl_err		err;
	sl_value	v;
	sl_header	ha,
				hp;
	int			blocks = 0;

	for (int i = 0; i < 8; i++)
		if (i % 2)
			gen_flat(&docs[i]);
		else
			gen_modern(&docs[i]);
	memset(src, 0, sizeof(src));
	for (int i = 0; i < 8; i++)
	{
		src[i].x = i % 4;
		src[i].z = i / 4;
		src[i].data_version = SL_NO_DV;
		src[i].comp[0] = docs[i].data;
		src[i].len[0] = (uint32_t) docs[i].len;
	}
	o.level = SL_ARCHIVE_LEVEL;
	o.block_codec = version;
	CHECK_OK(sl_value_encode(src, 8, NULL, 0, &o, NULL, &arch, &err), &err);
	CHECK_OK(sl_value_encode(src, 8, NULL, 0, NULL, NULL, &plain, &err), &err);
	CHECK_OK(sl_value_verify(arch.data, arch.len, NULL, &err), &err);
	CHECK_OK(sl_value_summary(arch.data, arch.len, &ha, &err), &err);
	CHECK_OK(sl_value_summary(plain.data, plain.len, &hp, &err), &err);
	CHECK(memcmp(ha.hash, hp.hash, 32) == 0 && ha.raw_bytes == hp.raw_bytes);
	CHECK(ha.version == 3 && (ha.flags & SL_FLAG_PREFIX) == 0);
	CHECK_OK(sl_value_open_mem(&v, arch.data, arch.len, NULL, &err), &err);
	for (uint32_t f = 0; f < v.hdr.frame_count; f++)
		blocks += v.frames[f].codec == version;	/* SL_CODEC_BLOCKS .. _BLOCKS5 */
	CHECK(blocks == 1);
	for (uint32_t i = 0; i < 8; i++)
	{
		sl_dirent	d;
		const uint8_t *comp[SL_NCOMP];
		int64_t		k = sl_value_find(&v, (int32_t) (i % 4), (int32_t) (i / 4));

		CHECK(k >= 0);
		CHECK_OK(sl_value_chunk(&v, (uint32_t) k, &d, comp, &err), &err);
		CHECK(d.len[0] == docs[i].len && memcmp(comp[0], docs[i].data, d.len[0]) == 0);
	}
	/* damage inside the block-codec frame: the structural check sees it */
	if (v.hdr.frame_count > 0 && v.frames[0].comp_len > 20)
	{
		sl_buf		d = {0};

		sl_buf_put(&d, arch.data, arch.len, &err);
		d.data[v.frames[0].offset + v.frames[0].comp_len - 3] ^= 0x10;
		CHECK(sl_value_check(d.data, d.len, 0, NULL, &err) != 0 && err.code == SL_ERR_CORRUPT);
		CHECK(sl_value_verify(d.data, d.len, NULL, &err) != 0 && err.code == SL_ERR_CORRUPT);
		sl_buf_free(&d);
	}
	sl_value_close(&v);
	/* versions 1 and 2 have no archive level */
	o.version = 2;
	plain.len = 0;
	CHECK(sl_value_encode(src, 8, NULL, 0, &o, NULL, &plain, &err) != 0 && err.code == SL_ERR_INVALID);
	sl_buf_free(&arch);
	sl_buf_free(&plain);
	for (int i = 0; i < 8; i++)
		sl_buf_free(&docs[i]);
}

void
test_bcodec_archive_value(void)
{
	archive_value_v(SL_BCODEC_V1);
	archive_value_v(SL_BCODEC_V2);
	archive_value_v(SL_BCODEC_V3);
	archive_value_v(SL_BCODEC_V4);
	archive_value_v(SL_BCODEC_V5);
}
