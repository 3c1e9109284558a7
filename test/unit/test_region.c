/*
 * test_region.c - unit tests of sl_region: hand-made hostile files, writing
 * and the whole region corpus.
 */
#include "harness.h"

#include <dirent.h>
#include <sys/stat.h>

#include "nbt_build.h"
#include "sl_codec.h"
#include "sl_nbt.h"
#include "sl_region.h"
#include "sl_value.h"

/* in test_codec.c */
void		codec_test_zero_bomb(size_t n, sl_buf *out);

/*
 * Expected results per corpus region file: chunks read strictly (-1: the
 * strict read fails), chunks read leniently, problems with skipped = 1 and
 * with skipped = 0 (repaired). Non-damaged counts are the "ok" column of
 * SOURCES.md's "Region-file analysis" table.
 */
typedef struct corpus_expect
{
	const char *path;
	int			strict;
	int			lenient;
	int			skipped;
	int			repaired;
} corpus_expect;

static const corpus_expect corpus_expected[] = {
	{"anvil-1.13-1.17/amulet-core/1_13/r.-1.-1.mca", 256, 256, 0, 0},
	{"anvil-1.13-1.17/amulet-core/1_16_5_dimension/r.-1.-1.mca", 649, 649, 0, 0},
	{"anvil-1.13-1.17/amulet-core/1_16_5_dimension/r.-2.1.mca", 16, 16, 0, 0},
	{"anvil-1.13-1.17/amulet-core/1_16_5_forge_twilight/dimensions/twilightforest/r.-2.-1.mca", 56, 56, 0, 0},
	{"anvil-1.13-1.17/amulet-core/1_16_5_forge_twilight/r.0.0.mca", 52, 52, 0, 0},
	{"anvil-1.13-1.17/amulet-core/1_17_1_caves_and_cliffs/r.0.0.mca", 30, 30, 0, 0},
	{"anvil-1.13-1.17/amulet-core/1_17_1_custom_height_inline/r.-1.0.mca", 42, 42, 0, 0},
	{"anvil-1.13-1.17/hephaistos/issue_3/r.0.0.mca", 226, 226, 0, 0},
	{"anvil-1.13-1.17/mcaprocessor/r.0.0.mca", 215, 215, 0, 0},
	{"anvil-1.13-1.17/mcaselector/anvil113/r.0.0.mca", 147, 147, 0, 0},
	{"anvil-1.13-1.17/mcaselector/anvil114/r.0.0.mca", 199, 199, 0, 0},
	{"anvil-1.13-1.17/mcaselector/anvil115/r.0.0.mca", 199, 199, 0, 0},
	{"anvil-1.13-1.17/mcaselector/anvil116/r.0.0.mca", 292, 292, 0, 0},
	{"anvil-1.13-1.17/mcaselector/import-source/r.-1.-1.mca", 4, 4, 0, 0},
	{"anvil-1.13-1.17/mcaselector/import-source/r.0.-1.mca", 1, 1, 0, 0},
	{"anvil-1.13-1.17/prismarine-provider-anvil/1.13.2/r.-1.-1.mca", 189, 189, 0, 0},
	{"anvil-1.13-1.17/prismarine-provider-anvil/1.14.4/r.0.-1.mca", 299, 299, 0, 0},
	{"anvil-1.13-1.17/prismarine-provider-anvil/1.16/r.0.-1.mca", 253, 253, 0, 0},
	{"anvil-1.13-1.17/prismarine-provider-anvil/1.17.1/r.0.0.mca", 144, 144, 0, 0},
	{"anvil-1.13-1.17/querz-nbt/1_17_1/r.-3.-2.mca", 1, 1, 0, 0},
	{"anvil-1.13-1.17/querz-nbt/r.0.0.mca", 1, 1, 0, 0},
	{"anvil-1.13-1.17/twoolie-nbt/r.4.-4.mca", 1, 1, 0, 0},
	{"anvil-1.13-1.17/worldedit/world_region.mca", 1, 1, 0, 0},
	{"anvil-1.18plus/amulet-core/1_18_superflat/r.0.0.mca", 324, 324, 0, 0},
	{"anvil-1.18plus/amulet-core/1_18_vanilla/r.-1.1.mca", 64, 64, 0, 0},
	{"anvil-1.18plus/amulet-core/1_18_vanilla/r.-1.2.mca", 14, 14, 0, 0},
	{"anvil-1.18plus/bingley-tag/r.0.-1.mca", 724, 724, 0, 0},
	{"anvil-1.18plus/minestom/anvil_loader/r.-2.-2.mca", 196, 196, 0, 0},
	{"anvil-1.18plus/minestom/anvil_vanilla_sample/r.-1.1.mca", 118, 118, 0, 0},
	{"anvil-1.18plus/minestom/anvil_vanilla_sample/r.2.-1.mca", 120, 120, 0, 0},
	{"anvil-1.18plus/minestom/anvil_vanilla_sample/r.2.1.mca", 378, 378, 0, 0},
	{"anvil-1.18plus/minestom/anvil_vanilla_sample_old/r.2.-1.mca", 120, 120, 0, 0},
	{"anvil-1.18plus/prismarine-provider-anvil/1.18.2/r.0.0.mca", 280, 280, 0, 0},
	{"anvil-1.18plus/prismarine-provider-anvil/1.19.4/r.0.0.mca", 529, 529, 0, 0},
	{"anvil-1.18plus/prismarine-provider-anvil/1.20.6/r.0.0.mca", 225, 225, 0, 0},
	{"anvil-1.18plus/prismarine-provider-anvil/1.21.1/r.0.0.mca", 225, 225, 0, 0},
	{"anvil-1.18plus/pumpkin/World-DIM0/r.0.0.mca", 85, 85, 0, 0},
	{"anvil-1.18plus/pumpkin/bench_root_tmp/r.0.0.mca", 256, 256, 0, 0},
	{"anvil-1.18plus/querz-nbt/21w44a/r.-1.-1.mca", 1, 1, 0, 0},
	{"anvil-1.18plus/querz-nbt/21w44a/r.15.-9.mca", 1, 1, 0, 0},
	{"anvil-1.18plus/querz-nbt/parsers/r.0.0.mca", 562, 562, 0, 0},
	{"anvil-1.18plus/risc32-emulator/r.-3.0.mca", 144, 144, 0, 0},
	{"anvil-1.2-1.12/amulet-core/1_12_2/r.0.0.mca", 169, 169, 0, 0},
	{"anvil-1.2-1.12/amulet-core/1_12_2_forge_twilight/DIM7/r.0.0.mca", 104, 104, 0, 0},
	{"anvil-1.2-1.12/cu_minecraft/DIM-1/r.0.2.mca", 144, 144, 0, 0},
	{"anvil-1.2-1.12/cu_minecraft/r.0.2.mca", 79, 79, 0, 0},
	{"anvil-1.2-1.12/cu_minecraft/r.26.11.mca", 50, 50, 0, 0},
	{"anvil-1.2-1.12/mcaselector/anvil112/r.0.0.mca", 103, 103, 0, 0},
	{"anvil-1.2-1.12/prismarine-provider-anvil/1.11.2/r.-1.0.mca", 28, 28, 0, 0},
	{"anvil-1.2-1.12/prismarine-provider-anvil/1.12.2/r.0.-1.mca", 105, 105, 0, 0},
	{"anvil-1.2-1.12/prismarine-provider-anvil/1.8.9/r.-1.0.mca", 300, 300, 0, 0},
	{"anvil-1.2-1.12/prismarine-provider-anvil/1.9/r.-1.-1.mca", 326, 326, 0, 0},
	{"anvil-1.2-1.12/pymclevel/AnvilWorld/r.-1.0.mca", 30, 30, 0, 0},
	{"anvil-1.2-1.12/pymclevel/AnvilWorld/r.0.0.mca", 516, 516, 0, 0},
	{"anvil-1.2-1.12/pymclevel/PrimordialDesert/DIM-1/r.0.0.mca", 256, 256, 0, 0},
	{"anvil-1.2-1.12/pymclevel/PrimordialDesert/r.0.0.mca", 256, 256, 0, 0},
	{"anvil-1.2-1.12/returntowild/default_NORMAL/r.-1.1.mca", 105, 105, 0, 0},
	{"anvil-1.2-1.12/returntowild/r.0.0.mca", 103, 103, 0, 0},
	{"entities-1.17plus/amulet-core/1_17_1_caves_and_cliffs/r.-1.0.mca", 158, 158, 0, 0},
	{"entities-1.17plus/amulet-core/1_17_1_superflat/r.0.0.mca", 3, 3, 0, 0},
	{"entities-1.17plus/amulet-core/1_18_superflat/r.0.0.mca", 6, 6, 0, 0},
	{"entities-1.17plus/amulet-core/1_18_vanilla/r.0.1.mca", 68, 68, 0, 0},
	{"entities-1.17plus/bingley-tag/r.0.0.mca", 2, 2, 0, 0},
	{"entities-1.17plus/pumpkin/entity_test.mca", 1, 1, 0, 0},
	{"mcregion/cu_minecraft/r.0.0.mcr", 625, 625, 0, 0},
	{"mcregion/mc-block-distribution/r.-1.0.mcr", 58, 58, 0, 0},
	{"mcregion/pymclevel/PyTestWorld/r.-1.-1.mcr", 53, 53, 0, 0},
	{"mcregion/pymclevel/PyTestWorld/r.0.0.mcr", 185, 185, 0, 0},
	{"poi/amulet-core/1_16_5_dimension/r.0.-1.mca", 11, 11, 0, 0},
	{"poi/amulet-core/1_16_5_forge_twilight/r.-1.-1.mca", 4, 4, 0, 0},
	{"poi/amulet-core/1_17_1_custom_vanilla/r.-1.0.mca", 6, 6, 0, 0},
	{"poi/amulet-core/1_18_vanilla/r.1.1.mca", 3, 3, 0, 0},
	/* zero-byte file left by the game: a region with no chunks */
	{"damaged/amulet-core/1_17_1_caves_and_cliffs/r.-1.1.mca", 0, 0, 0, 0},
	/* empty location table, orphaned unpadded data after the header */
	{"damaged/bingley-tag/entities/r.0.-1.mca", 0, 0, 0, 0},
	/* every length field one byte short: strict fails, lenient repairs */
	{"damaged/hephaistos/issue_4/r.0.0.mca", -1, 121, 0, 121},
	{"damaged/querz-nbt/r.2.2.mca", -1, 3, 0, 3},
	/*
	 * deliberately corrupt (21 chunks, 9 good): type 0, garbled zlib, two
	 * payloads that are not NBT, chunks (4,0)/(12,0) sharing sector 15,
	 * 0-sector chunk, chunk in the header, chunk past EOF, length 0 and 1,
	 * length past its one sector
	 */
	{"damaged/twoolie-nbt/regiontest.mca", -1, 9, 12, 0},
};

/* A region file image under construction. */
typedef struct img
{
	uint8_t    *d;
	size_t		len;
} img;

/* Start an all-zero image of len bytes. */
static img
img_new(size_t len)
{
	img			m;

	m.d = calloc(1, len ? len : 1);
	m.len = len;
	return m;
}

/* Set a slot's location entry and timestamp. */
static void
img_loc(img *m, int slot, uint32_t off, uint32_t count)
{
	sl_put_u32be(m->d + slot * 4, (off << 8) | count);
	sl_put_u32be(m->d + 4096 + slot * 4, 1000 + (uint32_t) slot);
}

/* Write a chunk header (length, type) and n data bytes at sector off. */
static void
img_chunk(img *m, uint32_t off, uint32_t length, uint8_t type, const uint8_t *data, size_t n)
{
	size_t		pos = (size_t) off * 4096;

	sl_put_u32be(m->d + pos, length);
	m->d[pos + 4] = type;
	if (n)
		memcpy(m->d + pos + 5, data, n);
}

/* Append a small NBT document: a compound with an int and a byte array. */
static void
make_nbt(sl_buf *b, size_t arr_len, uint8_t fill)
{
	static const uint8_t head[] = {10, 0, 0, 3, 0, 1, 'x', 0, 0, 0, 42, 7, 0, 1, 'a'};
	sl_err		err;

	sl_buf_put(b, head, sizeof(head), &err);
	sl_buf_put_u32be(b, (uint32_t) arr_len, &err);
	for (size_t i = 0; i < arr_len; i++)
		sl_buf_put_u8(b, (uint8_t) (fill + (i % 7 == 0 ? i : 0)), &err);
	sl_buf_put_u8(b, 0, &err);
}

/* Append the zlib stream of a small NBT document. */
static void
make_zlib_chunk(sl_buf *z, size_t arr_len, uint8_t fill)
{
	sl_buf		nbt = {NULL, 0, 0};
	sl_err		err;

	make_nbt(&nbt, arr_len, fill);
	CHECK_OK(sl_deflate(SL_DEFLATE_ZLIB, 6, nbt.data, nbt.len, z, &err), &err);
	sl_buf_free(&nbt);
}

/* Put a valid zlib chunk in slot at sector off (count 1). */
static void
img_good_chunk(img *m, int slot, uint32_t off, uint8_t fill)
{
	sl_buf		z = {NULL, 0, 0};

	make_zlib_chunk(&z, 100, fill);
	img_loc(m, slot, off, 1);
	img_chunk(m, off, (uint32_t) z.len + 1, 2, z.data, z.len);
	sl_buf_free(&z);
}

/*
 * Expect a strict read to fail with code and a message containing what and
 * where, and a lenient read to keep nkept chunks and skip nskip.
 */
static void
expect_damage(const img *m, int32_t rx, int32_t rz, const sl_external *ext, int next,
			  const sl_limits *lim, sl_code code, const char *what, const char *where,
			  int nkept, int nskip)
{
	sl_region	r;
	sl_err		err;

	memset(&err, 0, sizeof(err));
	CHECK(sl_region_read(m->d, m->len, rx, rz, ext, next, 1, lim, &r, &err) == -1);
	CHECK(err.code == code);
	CHECK(strstr(err.msg, what) != NULL);
	CHECK(strstr(err.msg, where) != NULL);
	if (strstr(err.msg, what) == NULL || strstr(err.msg, where) == NULL)
		fprintf(stderr, "  message was: %s\n", err.msg);
	CHECK(r.nchunks == 0 && r.chunks == NULL && r.problems == NULL);
	CHECK_OK(sl_region_read(m->d, m->len, rx, rz, ext, next, 0, lim, &r, &err), &err);
	CHECK(r.nchunks == nkept && r.nproblems == nskip);
	for (int i = 0; i < r.nproblems; i++)
		CHECK(r.problems[i].skipped == 1);
	if (r.nproblems > 0)
	{
		CHECK(r.problems[0].code == code);
		CHECK(strstr(r.problems[0].msg, what) != NULL);
	}
	sl_region_free(&r);
}

/* Read a 0-byte file as a region with no chunks. */
void
test_region_empty_file(void)
{
	sl_region	r;
	sl_err		err;

	CHECK_OK(sl_region_read(NULL, 0, 3, 4, NULL, 0, 1, NULL, &r, &err), &err);
	CHECK(r.nchunks == 0 && r.nproblems == 0 && r.rx == 3 && r.rz == 4);
	sl_region_free(&r);
}

/* Reject a file shorter than its header. */
void
test_region_short_header(void)
{
	img			m = img_new(8191);
	sl_region	r;
	sl_err		err;

	CHECK(sl_region_read(m.d, 100, 0, 0, NULL, 0, 0, NULL, &r, &err) == -1);
	CHECK(err.code == SL_ERR_FORMAT);
	CHECK(strstr(err.msg, "region file shorter than its 8 KiB header (100 bytes)") != NULL);
	CHECK(sl_region_read(m.d, 8191, 0, 0, NULL, 0, 1, NULL, &r, &err) == -1);
	CHECK(err.code == SL_ERR_FORMAT);
	free(m.d);
}

/* Read an empty header as no chunks. */
void
test_region_header_only(void)
{
	img			m = img_new(8192);
	sl_region	r;
	sl_err		err;

	CHECK_OK(sl_region_read(m.d, m.len, 0, 0, NULL, 0, 1, NULL, &r, &err), &err);
	CHECK(r.nchunks == 0 && r.nproblems == 0);
	sl_region_free(&r);
	free(m.d);
}

/* Treat a location past the end of the file as damage to that chunk only. */
void
test_region_past_eof(void)
{
	img			m = img_new(4 * 4096);

	img_good_chunk(&m, 0, 2, 1);
	img_good_chunk(&m, 1, 3, 2);
	img_loc(&m, 2, 9, 1);
	expect_damage(&m, 0, 0, NULL, 0, NULL, SL_ERR_FORMAT, "past the end of the file",
				  "chunk (2,0) at file offset 36864", 2, 1);
	img_loc(&m, 2, 0, 0);
	img_loc(&m, 1, 3, 2);		/* second sector entirely past EOF */
	expect_damage(&m, 0, 0, NULL, 0, NULL, SL_ERR_FORMAT, "sectors 3..4 lie past the end",
				  "chunk (1,0) at file offset 12288", 1, 1);
	free(m.d);
}

/* Reject length fields that are absurd, zero, one or past the sectors. */
void
test_region_bad_length(void)
{
	img			m = img_new(4 * 4096);

	img_good_chunk(&m, 0, 2, 1);
	img_loc(&m, 5, 3, 1);
	img_chunk(&m, 3, 0xFFFFFFFFU, 2, NULL, 0);
	expect_damage(&m, 0, 0, NULL, 0, NULL, SL_ERR_FORMAT, "length field 4294967295 exceeds",
				  "chunk (5,0) at file offset 12288", 1, 1);
	img_chunk(&m, 3, 0, 2, NULL, 0);
	expect_damage(&m, 0, 0, NULL, 0, NULL, SL_ERR_FORMAT, "length field is 0",
				  "chunk (5,0)", 1, 1);
	img_chunk(&m, 3, 1, 2, NULL, 0);
	expect_damage(&m, 0, 0, NULL, 0, NULL, SL_ERR_FORMAT, "length field 1 leaves no room",
				  "chunk (5,0)", 1, 1);
	img_chunk(&m, 3, 4093, 2, NULL, 0);
	expect_damage(&m, 0, 0, NULL, 0, NULL, SL_ERR_FORMAT, "exceeds the 1 allocated sector",
				  "chunk (5,0)", 1, 1);
	free(m.d);
}

/* Reject locations inside the header or with no sectors. */
void
test_region_bad_location(void)
{
	img			m = img_new(3 * 4096);

	img_good_chunk(&m, 0, 2, 1);
	img_loc(&m, 7, 1, 1);
	expect_damage(&m, 0, 0, NULL, 0, NULL, SL_ERR_FORMAT, "inside the 8 KiB header",
				  "chunk (7,0) at file offset 4096", 1, 1);
	img_loc(&m, 7, 2, 0);
	expect_damage(&m, 0, 0, NULL, 0, NULL, SL_ERR_FORMAT, "0 sectors", "chunk (7,0)", 1, 1);
	free(m.d);
}

/* Damage both chunks sharing a sector; keep the others. */
void
test_region_overlap(void)
{
	img			m = img_new(6 * 4096);
	sl_region	r;
	sl_err		err;

	img_good_chunk(&m, 0, 2, 1);
	img_loc(&m, 0, 2, 2);		/* sectors 2..3 */
	img_good_chunk(&m, 33, 3, 2);	/* sector 3 */
	img_good_chunk(&m, 40, 5, 3);
	expect_damage(&m, -1, 2, NULL, 0, NULL, SL_ERR_FORMAT, "sectors 2..3 overlap chunk (-31,65)",
				  "chunk (-32,64) at file offset 8192", 1, 2);
	CHECK_OK(sl_region_read(m.d, m.len, -1, 2, NULL, 0, 0, NULL, &r, &err), &err);
	CHECK(r.nproblems == 2 && r.nchunks == 1);
	if (r.nproblems == 2 && r.nchunks == 1)
	{
		CHECK(strstr(r.problems[1].msg, "sectors 3..3 overlap chunk (-32,64)") != NULL);
		CHECK(r.problems[1].x == -31 && r.problems[1].z == 65 && r.problems[1].offset == 12288);
		CHECK(r.chunks[0].x == -24 && r.chunks[0].z == 65 && r.chunks[0].timestamp == 1040);
	}
	sl_region_free(&r);
	free(m.d);
}

/* Report unknown compression types as unsupported. */
void
test_region_unknown_compression(void)
{
	img			m = img_new(4 * 4096);

	img_good_chunk(&m, 0, 2, 1);
	img_good_chunk(&m, 1, 3, 1);
	m.d[3 * 4096 + 4] = 79;
	expect_damage(&m, 0, 0, NULL, 0, NULL, SL_ERR_UNSUPPORTED, "unknown compression type 79",
				  "chunk (1,0) at file offset 12288", 1, 1);
	m.d[3 * 4096 + 4] = 127;
	expect_damage(&m, 0, 0, NULL, 0, NULL, SL_ERR_UNSUPPORTED, "unknown compression type 127",
				  "chunk (1,0)", 1, 1);
	m.d[3 * 4096 + 4] = 0;
	expect_damage(&m, 0, 0, NULL, 0, NULL, SL_ERR_UNSUPPORTED, "unknown compression type 0",
				  "chunk (1,0)", 1, 1);
	free(m.d);
}

/* Reject garbage streams and payloads that are not NBT. */
void
test_region_garbage_data(void)
{
	img			m = img_new(3 * 4096);
	uint8_t		junk[200];
	static const uint8_t notnbt[] = {8, 0, 0, 0, 2, 'h', 'i'};

	for (int i = 0; i < 200; i++)
		junk[i] = (uint8_t) (i * 37 + 11);
	img_loc(&m, 3 + 2 * 32, 2, 1);
	img_chunk(&m, 2, 201, 2, junk, 200);
	expect_damage(&m, 1, -1, NULL, 0, NULL, SL_ERR_FORMAT, "zlib data is corrupt",
				  "chunk (35,-30) at file offset 8192", 0, 1);
	img_chunk(&m, 2, 201, 1, junk, 200);
	expect_damage(&m, 1, -1, NULL, 0, NULL, SL_ERR_FORMAT, "gzip data is corrupt",
				  "chunk (35,-30)", 0, 1);
	img_chunk(&m, 2, 201, 4, junk, 200);
	expect_damage(&m, 1, -1, NULL, 0, NULL, SL_ERR_FORMAT, "LZ4Block", "chunk (35,-30)", 0, 1);
	img_chunk(&m, 2, sizeof(notnbt) + 1, 3, notnbt, sizeof(notnbt));
	expect_damage(&m, 1, -1, NULL, 0, NULL, SL_ERR_FORMAT, "", "chunk (35,-30)", 0, 1);
	free(m.d);
}

/* Stop gzip bombs at the chunk cap, in the file and in a .mcc. */
void
test_region_gzip_bomb(void)
{
	sl_limits	lim = sl_default_limits;
	sl_buf		small = {NULL, 0, 0};
	sl_buf		big = {NULL, 0, 0};
	img			m = img_new(300 * 4096);
	sl_external ext;

	lim.max_chunk_raw = 1 << 20;
	codec_test_zero_bomb((size_t) 100 * 1000 * 1000, &small);
	CHECK(small.len + 5 < 255 * 4096);
	img_loc(&m, 0, 2, 255);
	img_chunk(&m, 2, (uint32_t) small.len + 1, 1, small.data, small.len);
	expect_damage(&m, 0, 0, NULL, 0, &lim, SL_ERR_LIMIT, "exceeds cap of 1048576 bytes",
				  "chunk (0,0) at file offset 8192", 0, 1);

	codec_test_zero_bomb((size_t) 200 * 1000 * 1000, &big);
	img_chunk(&m, 2, 1, 1 | 128, NULL, 0);
	img_loc(&m, 0, 2, 1);
	ext.x = 0;
	ext.z = 0;
	ext.data = big.data;
	ext.len = big.len;
	expect_damage(&m, 0, 0, &ext, 1, &lim, SL_ERR_LIMIT, "exceeds cap of 1048576 bytes",
				  "chunk (0,0)", 0, 1);
	sl_buf_free(&small);
	sl_buf_free(&big);
	free(m.d);
}

/* Read external chunks from a supplied .mcc; damage them without one. */
void
test_region_external(void)
{
	img			m = img_new(3 * 4096);
	sl_buf		z = {NULL, 0, 0};
	sl_buf		nbt = {NULL, 0, 0};
	sl_external ext[2];
	sl_region	r;
	sl_err		err;

	make_nbt(&nbt, 5000, 9);
	make_zlib_chunk(&z, 5000, 9);
	img_loc(&m, 31 + 31 * 32, 2, 1);
	img_chunk(&m, 2, 1, 2 | 128, NULL, 0);
	expect_damage(&m, -2, 5, NULL, 0, NULL, SL_ERR_FORMAT,
				  "external chunk file c.-33.191.mcc not supplied",
				  "chunk (-33,191) at file offset 8192", 0, 1);
	ext[0].x = -33;
	ext[0].z = 190;				/* wrong chunk */
	ext[0].data = z.data;
	ext[0].len = z.len;
	ext[1] = ext[0];
	ext[1].z = 191;
	expect_damage(&m, -2, 5, ext, 1, NULL, SL_ERR_FORMAT, "c.-33.191.mcc not supplied",
				  "chunk (-33,191)", 0, 1);
	CHECK_OK(sl_region_read(m.d, m.len, -2, 5, ext, 2, 1, NULL, &r, &err), &err);
	CHECK(r.nchunks == 1 && r.nproblems == 0);
	if (r.nchunks == 1)
	{
		CHECK(r.chunks[0].compression == (2 | 128));
		CHECK(r.chunks[0].x == -33 && r.chunks[0].z == 191);
		CHECK(r.chunks[0].nbt_len == nbt.len && memcmp(r.chunks[0].nbt, nbt.data, nbt.len) == 0);
	}
	sl_region_free(&r);
	sl_buf_free(&z);
	sl_buf_free(&nbt);
	free(m.d);
}

/* Drop bytes after the root tag; accept a short last sector. */
void
test_region_trailing_and_unpadded(void)
{
	sl_buf		nbt = {NULL, 0, 0};
	sl_buf		z = {NULL, 0, 0};
	size_t		doc;
	img			m;
	sl_region	r;
	sl_err		err;

	make_nbt(&nbt, 300, 4);
	doc = nbt.len;
	for (int i = 0; i < 50; i++)
		sl_buf_put_u8(&nbt, 0, &err);
	CHECK_OK(sl_deflate(SL_DEFLATE_GZIP, 6, nbt.data, nbt.len, &z, &err), &err);
	m = img_new(2 * 4096 + 5 + z.len);	/* file ends right after the payload */
	img_loc(&m, 0, 2, 1);
	img_chunk(&m, 2, (uint32_t) z.len + 1, 1, z.data, z.len);
	CHECK_OK(sl_region_read(m.d, m.len, 0, 0, NULL, 0, 1, NULL, &r, &err), &err);
	CHECK(r.nchunks == 1);
	if (r.nchunks == 1)
		CHECK(r.chunks[0].nbt_len == doc && memcmp(r.chunks[0].nbt, nbt.data, doc) == 0);
	sl_region_free(&r);
	/* one byte less and the payload no longer fits the file */
	CHECK(sl_region_read(m.d, m.len - 1, 0, 0, NULL, 0, 1, NULL, &r, &err) == -1);
	CHECK(err.code == SL_ERR_FORMAT && strstr(err.msg, "runs past the end of the file") != NULL);
	sl_buf_free(&nbt);
	sl_buf_free(&z);
	free(m.d);
}

/* Repair a short length field leniently; refuse it strictly. */
void
test_region_short_length_repair(void)
{
	img			m = img_new(4 * 4096);
	sl_buf		z = {NULL, 0, 0};
	sl_region	r;
	sl_err		err;

	make_zlib_chunk(&z, 2000, 3);
	img_good_chunk(&m, 0, 2, 1);
	img_loc(&m, 1, 3, 1);
	img_chunk(&m, 3, (uint32_t) z.len, 2, z.data, z.len);	/* should be len + 1 */
	CHECK(sl_region_read(m.d, m.len, 0, 0, NULL, 0, 1, NULL, &r, &err) == -1);
	CHECK(err.code == SL_ERR_FORMAT);
	CHECK(strstr(err.msg, "chunk (1,0) at file offset 12288") != NULL);
	CHECK(strstr(err.msg, "longer than its length field") != NULL);
	CHECK(strstr(err.msg, "strict => false") != NULL);
	CHECK_OK(sl_region_read(m.d, m.len, 0, 0, NULL, 0, 0, NULL, &r, &err), &err);
	CHECK(r.nchunks == 2 && r.nproblems == 1);
	if (r.nproblems == 1)
	{
		CHECK(r.problems[0].skipped == 0 && r.problems[0].x == 1);
		CHECK(strstr(r.problems[0].msg, "is 1 bytes short; read to end of sectors") != NULL);
	}
	sl_region_free(&r);
	/* two bytes short is repaired the same way */
	img_chunk(&m, 3, (uint32_t) z.len - 1, 2, z.data, z.len);
	CHECK_OK(sl_region_read(m.d, m.len, 0, 0, NULL, 0, 0, NULL, &r, &err), &err);
	CHECK(r.nchunks == 2 && r.nproblems == 1);
	if (r.nproblems == 1)
		CHECK(strstr(r.problems[0].msg, "is 2 bytes short") != NULL);
	sl_region_free(&r);
	sl_buf_free(&z);
	free(m.d);
}

/* Compare two regions chunk by chunk (coordinates, NBT, timestamps). */
static int
same_chunks(const sl_region *a, const sl_region *b)
{
	if (a->nchunks != b->nchunks)
		return 0;
	for (int i = 0; i < a->nchunks; i++)
	{
		const sl_region_chunk *x = &a->chunks[i];
		const sl_region_chunk *y = &b->chunks[i];

		if (x->x != y->x || x->z != y->z || x->timestamp != y->timestamp ||
			x->nbt_len != y->nbt_len || memcmp(x->nbt, y->nbt, x->nbt_len) != 0)
			return 0;
	}
	return 1;
}

/* Write regions with each compression and read them back identically. */
void
test_region_write_roundtrip(void)
{
	sl_region_chunk in[3];
	sl_buf		nbt[3];
	sl_region	src,
				r;
	sl_err		err;

	memset(&src, 0, sizeof(src));
	for (int i = 0; i < 3; i++)
	{
		memset(&nbt[i], 0, sizeof(sl_buf));
		make_nbt(&nbt[i], (size_t) (i * 40000 + 10), (uint8_t) i);
		/* given out of slot order: the reader returns slot order */
		in[i].x = 64 + (i == 0 ? 31 : i);
		in[i].z = -32 + (i == 0 ? 31 : 0);
		in[i].timestamp = 1700000000U + (uint32_t) i;
		in[i].compression = 0;
		in[i].nbt = nbt[i].data;
		in[i].nbt_len = nbt[i].len;
	}
	src.chunks = in;
	src.nchunks = 3;
	for (int c = 1; c <= 4; c++)
	{
		sl_buf		out = {NULL, 0, 0};
		sl_external *ext = NULL;
		int			next = 0;
		sl_region	want;

		CHECK_OK(sl_region_write(in, 3, 2, -1, c, &out, &ext, &next, &err), &err);
		CHECK(next == 0 && ext == NULL);
		CHECK(out.len % 4096 == 0);
		CHECK(sl_get_u32be(out.data + 1 * 4) >> 8 == 2);	/* slot 1 first, at sector 2 */
		CHECK(out.data[2 * 4096 + 4] == c);
		CHECK(sl_get_u32be(out.data + 4096 + 4) == 1700000001U);
		CHECK_OK(sl_region_read(out.data, out.len, 2, -1, NULL, 0, 1, NULL, &r, &err), &err);
		want = src;
		want.chunks = (sl_region_chunk[3]) {in[1], in[2], in[0]};
		CHECK(same_chunks(&want, &r));
		CHECK(r.nchunks == 3 && r.chunks[0].compression == c);
		sl_region_free(&r);
		sl_buf_free(&out);
	}
	for (int i = 0; i < 3; i++)
		sl_buf_free(&nbt[i]);
}

/* Write a chunk needing more than 255 sectors to an external .mcc. */
void
test_region_write_external(void)
{
	sl_buf		nbt = {NULL, 0, 0};
	sl_buf		out = {NULL, 0, 0};
	sl_region_chunk in[2];
	sl_external *ext = NULL;
	int			next = 0;
	sl_region	r;
	sl_err		err;

	make_nbt(&nbt, 1100000, 1);
	memset(in, 0, sizeof(in));
	in[0].x = 5;
	in[0].z = 6;
	in[0].timestamp = 77;
	in[0].nbt = nbt.data;
	in[0].nbt_len = nbt.len;
	in[1] = in[0];
	in[1].x = 6;
	in[1].nbt_len = 0;
	in[1].nbt = NULL;
	CHECK_OK(sl_region_write(in, 1, 0, 0, 3, &out, &ext, &next, &err), &err);
	CHECK(next == 1 && ext != NULL && out.len == 3 * 4096);
	if (next == 1)
	{
		CHECK(ext[0].x == 5 && ext[0].z == 6 && ext[0].len == nbt.len);
		CHECK(memcmp(ext[0].data, nbt.data, nbt.len) == 0);
		CHECK(sl_get_u32be(out.data + (6 * 32 + 5) * 4) == ((2 << 8) | 1));
		CHECK(sl_get_u32be(out.data + 2 * 4096) == 1 && out.data[2 * 4096 + 4] == (3 | 128));
		CHECK_OK(sl_region_read(out.data, out.len, 0, 0, ext, next, 1, NULL, &r, &err), &err);
		CHECK(r.nchunks == 1 && r.chunks[0].nbt_len == nbt.len && r.chunks[0].timestamp == 77);
		CHECK(r.nchunks == 1 && r.chunks[0].compression == (3 | 128));
		sl_region_free(&r);
		sl_free((void *) ext[0].data);
	}
	sl_free(ext);
	/* without a place for external chunks it is refused */
	out.len = 0;
	CHECK(sl_region_write(in, 1, 0, 0, 3, &out, NULL, NULL, &err) == -1);
	CHECK(err.code == SL_ERR_LIMIT && out.len == 0);
	sl_buf_free(&out);
	sl_buf_free(&nbt);
}

/* Refuse chunks outside the region, duplicates and bad types. */
void
test_region_write_reject(void)
{
	sl_buf		nbt = {NULL, 0, 0};
	sl_buf		out = {NULL, 0, 0};
	sl_region_chunk in[2];
	sl_external *ext = NULL;
	int			next = 0;
	sl_err		err;

	make_nbt(&nbt, 10, 1);
	memset(in, 0, sizeof(in));
	in[0].x = -1;
	in[0].z = 0;
	in[0].nbt = nbt.data;
	in[0].nbt_len = nbt.len;
	in[1] = in[0];
	CHECK(sl_region_write(in, 1, 0, 0, 2, &out, &ext, &next, &err) == -1);
	CHECK(err.code == SL_ERR_INVALID && strstr(err.msg, "chunk (-1,0) lies outside region (0,0)") != NULL);
	CHECK_OK(sl_region_write(in, 1, -1, 0, 2, &out, &ext, &next, &err), &err);
	out.len = 0;
	CHECK(sl_region_write(in, 2, -1, 0, 2, &out, &ext, &next, &err) == -1);
	CHECK(err.code == SL_ERR_DUPLICATE && strstr(err.msg, "chunk (-1,0)") != NULL);
	CHECK(sl_region_write(in, 1, -1, 0, 5, &out, &ext, &next, &err) == -1);
	CHECK(err.code == SL_ERR_INVALID);
	CHECK(out.len == 0 && next == 0);
	sl_buf_free(&out);
	sl_buf_free(&nbt);
}

/* Parse region coordinates from a name "r.X.Z.mca"; 0,0 when it has none. */
static void
region_coords(const char *path, int32_t *rx, int32_t *rz)
{
	const char *base = strrchr(path, '/');
	int			x,
				z;

	base = base ? base + 1 : path;
	*rx = *rz = 0;
	if (sscanf(base, "r.%d.%d.mc", &x, &z) == 2)
	{
		*rx = x;
		*rz = z;
	}
}

/* Collect every .mca/.mcr file below dir (relative paths after skip chars). */
static void
find_regions(const char *dir, size_t skip, char ***list, int *n)
{
	DIR		   *d = opendir(dir);
	struct dirent *e;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL)
	{
		char		path[4096];
		struct stat st;
		size_t		l = strlen(e->d_name);

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode))
			find_regions(path, skip, list, n);
		else if (l > 4 && (strcmp(e->d_name + l - 4, ".mca") == 0 ||
						   strcmp(e->d_name + l - 4, ".mcr") == 0))
		{
			*list = realloc(*list, sizeof(char *) * (size_t) (*n + 1));
			(*list)[(*n)++] = strdup(path + skip);
		}
	}
	closedir(d);
}

/* Look up the expected counts for a corpus file. */
static const corpus_expect *
corpus_lookup(const char *rel)
{
	for (size_t i = 0; i < sizeof(corpus_expected) / sizeof(corpus_expected[0]); i++)
		if (strcmp(corpus_expected[i].path, rel) == 0)
			return &corpus_expected[i];
	return NULL;
}

/* Write a region back with zlib, re-read it strictly and compare. */
static void
corpus_rewrite(const char *rel, const sl_region *r)
{
	sl_buf		out = {NULL, 0, 0};
	sl_external *ext = NULL;
	int			next = 0;
	sl_region	back;
	sl_err		err;

	CHECK_OK(sl_region_write(r->chunks, r->nchunks, r->rx, r->rz, 2, &out, &ext, &next, &err), &err);
	CHECK_OK(sl_region_read(out.data, out.len, r->rx, r->rz, ext, next, 1, NULL, &back, &err), &err);
	if (!same_chunks(r, &back))
	{
		fprintf(stderr, "  %s: rewritten region differs\n", rel);
		CHECK(0);
	}
	CHECK(back.nproblems == 0);
	sl_region_free(&back);
	for (int i = 0; i < next; i++)
		sl_free((void *) ext[i].data);
	sl_free(ext);
	sl_buf_free(&out);
}

/*
 * Read one corpus file strictly and leniently, check counts, rewrite it;
 * with full 0, only look it up in the expected table.
 */
static void
corpus_one(const char *corpus, const char *rel, int full, int *seen)
{
	const corpus_expect *want = corpus_lookup(rel);
	char		path[4096];
	size_t		len = 0;
	unsigned char *f;
	int32_t		rx,
				rz;
	sl_region	r;
	sl_err		err;
	int			rc,
				skipped = 0;

	if (want != NULL && !full)
	{
		(*seen)++;
		return;
	}
	snprintf(path, sizeof(path), "%s/%s", corpus, rel);
	f = sl_test_read_file(path, &len);
	region_coords(rel, &rx, &rz);
	if (want == NULL || f == NULL)
	{
		fprintf(stderr, "  %s: %s\n", rel, f ? "not in the expected table" : "unreadable");
		CHECK(0);
		free(f);
		return;
	}
	(*seen)++;
	rc = sl_region_read(f, len, rx, rz, NULL, 0, 1, NULL, &r, &err);
	if ((want->strict < 0) != (rc != 0) || (rc == 0 && r.nchunks != want->strict))
	{
		fprintf(stderr, "  %s: strict read rc %d (%s), %d chunks, want %d\n", rel, rc,
				rc ? err.msg : "", rc ? -1 : r.nchunks, want->strict);
		CHECK(0);
	}
	if (rc == 0)
		sl_region_free(&r);
	CHECK_OK(sl_region_read(f, len, rx, rz, NULL, 0, 0, NULL, &r, &err), &err);
	for (int i = 0; i < r.nproblems; i++)
		skipped += r.problems[i].skipped;
	if (r.nchunks != want->lenient || skipped != want->skipped ||
		r.nproblems - skipped != want->repaired)
	{
		fprintf(stderr, "  %s: lenient read %d chunks, %d skipped, %d repaired; want %d, %d, %d\n",
				rel, r.nchunks, skipped, r.nproblems - skipped, want->lenient,
				want->skipped, want->repaired);
		CHECK(0);
	}
	corpus_rewrite(rel, &r);
	sl_region_free(&r);
	free(f);
}

/*
 * Read every corpus region file as expected and rewrite it losslessly
 * (under SLIME_UNIT_QUICK one file in four, every file still listed; the
 * unit suite reads them all).
 */
void
test_region_corpus(void)
{
	const char *corpus = sl_test_corpus();
	char	  **list = NULL;
	int			n = 0,
				seen = 0;

	if (corpus == NULL)
	{
		fprintf(stderr, "CORPUS MISSING: set SLIME_CORPUS or provide ../shared/corpus\n");
		CHECK(0);
		return;
	}
	find_regions(corpus, strlen(corpus) + 1, &list, &n);
	for (int i = 0; i < n; i++)
	{
		corpus_one(corpus, list[i], !sl_test_quick() || i % 4 == 0, &seen);
		free(list[i]);
	}
	free(list);
	CHECK(seen == (int) (sizeof(corpus_expected) / sizeof(corpus_expected[0])));
}

/* Check strict errors on damaged corpus files name chunk, offset and remedy. */
void
test_region_corpus_messages(void)
{
	const char *corpus = sl_test_corpus();
	char		path[4096];
	size_t		len = 0;
	unsigned char *f;
	sl_region	r;
	sl_err		err;

	if (corpus == NULL)
	{
		fprintf(stderr, "CORPUS MISSING: set SLIME_CORPUS or provide ../shared/corpus\n");
		CHECK(0);
		return;
	}
	snprintf(path, sizeof(path), "%s/damaged/querz-nbt/r.2.2.mca", corpus);
	f = sl_test_read_file(path, &len);
	CHECK(f != NULL);
	if (f == NULL)
		return;
	CHECK(sl_region_read(f, len, 2, 2, NULL, 0, 1, NULL, &r, &err) == -1);
	CHECK(err.code == SL_ERR_FORMAT);
	CHECK(strstr(err.msg, "chunk (64,64) at file offset") != NULL);
	CHECK(strstr(err.msg, "strict => false") != NULL);
	CHECK_OK(sl_region_read(f, len, 2, 2, NULL, 0, 0, NULL, &r, &err), &err);
	CHECK(r.nproblems == 3 && r.nchunks == 3);
	if (r.nproblems == 3)
		CHECK(strstr(r.problems[0].msg, "is 1 bytes short; read to end of sectors") != NULL);
	sl_region_free(&r);
	free(f);
}

/* A chunk document of one kind: 'r' 1.18 region, 'l' pre-1.18 (Level), 'L' xPos as a long, 'e' entities, 'p' POI. */
static void
place_doc(sl_buf *b, char kind, int32_t x, int32_t z)
{
	int32_t		pos[2] = {x, z};

	b->len = 0;
	nb_tag(b, SL_TAG_COMPOUND, "");
	nb_int(b, "DataVersion", 3700);
	switch (kind)
	{
		case 'r':
			nb_int(b, "xPos", x);
			nb_int(b, "zPos", z);
			nb_list(b, "sections", SL_TAG_COMPOUND, 0);
			break;
		case 'l':
			nb_tag(b, SL_TAG_COMPOUND, "Level");
			nb_int(b, "xPos", x);
			nb_int(b, "zPos", z);
			nb_end(b);
			break;
		case 'L':
			nb_tag(b, SL_TAG_LONG, "xPos");
			sl_buf_put_u64be(b, (uint64_t) (int64_t) x, NULL);
			nb_int(b, "zPos", z);
			nb_list(b, "sections", SL_TAG_COMPOUND, 0);
			break;
		case 'e':
			nb_ints(b, "Position", pos, 2);
			nb_list(b, "Entities", SL_TAG_COMPOUND, 0);
			break;
		default:
			nb_tag(b, SL_TAG_COMPOUND, "Sections");
			nb_end(b);
			break;
	}
	nb_end(b);
}

/* Place one chunk document at (x,z) of region (0,0): sl_region_place's result. */
static int
place_one(char kind, int32_t said_x, int32_t said_z, int32_t x, int32_t z, int as, int strict,
		  sl_region *r, sl_buf *doc, sl_err *err)
{
	static sl_region_chunk c;

	place_doc(doc, kind, said_x, said_z);
	memset(r, 0, sizeof(*r));
	memset(&c, 0, sizeof(c));
	c.x = x;
	c.z = z;
	c.nbt = doc->data;
	c.nbt_len = doc->len;
	r->chunks = &c;
	r->nchunks = 1;
	memset(err, 0, sizeof(*err));
	return sl_region_place(r, as, strict, NULL, err);
}

/* Free what place_one's region gathered (its problems; the chunk is static). */
static void
place_done(sl_region *r)
{
	free(r->problems);
	memset(r, 0, sizeof(*r));
}

/* Chunks that say they are elsewhere, and files given as the wrong kind. */
void
test_region_place(void)
{
	sl_region	r;
	sl_buf		doc = {0};
	sl_err		err;
	int64_t		v;
	static const char *const lx[] = {"Level", "xPos"};

	/* where they say they are: nothing to do */
	CHECK_OK(place_one('r', 5, 7, 5, 7, SL_COMP_REGION, 1, &r, &doc, &err), &err);
	CHECK(r.nproblems == 0);
	place_done(&r);
	CHECK_OK(place_one('e', -3, 40, -3, 40, SL_COMP_ENTITIES, 1, &r, &doc, &err), &err);
	place_done(&r);
	CHECK_OK(place_one('p', 0, 0, 9, 9, SL_COMP_POI, 1, &r, &doc, &err), &err);
	place_done(&r);

	/* strict: the slot, what the chunk says, and the region it belongs to */
	CHECK(place_one('r', -2, 32, 30, 0, SL_COMP_REGION, 1, &r, &doc, &err) != 0 &&
		  err.code == SL_ERR_FORMAT &&
		  strstr(err.msg, "slot (30,0) says it is chunk (-2,32), which lies in region (-1,1)") != NULL);
	place_done(&r);
	CHECK(place_one('e', 1, 1, 2, 2, SL_COMP_ENTITIES, 1, &r, &doc, &err) != 0 && err.code == SL_ERR_FORMAT &&
		  strstr(err.msg, "says it is chunk (1,1)") != NULL);
	place_done(&r);

	/* lenient: relocated as Minecraft does, and listed as repaired */
	CHECK_OK(place_one('r', -2, 32, 30, 0, SL_COMP_REGION, 0, &r, &doc, &err), &err);
	CHECK(r.nproblems == 1 && r.problems[0].skipped == 0 && r.problems[0].x == 30 &&
		  strstr(r.problems[0].msg, "said it was chunk (-2,32): relocated") != NULL);
	CHECK(sl_nbt_find_int(doc.data, doc.len, lx + 1, 1, NULL, &v, &err) == 1 && v == 30);
	place_done(&r);
	CHECK_OK(place_one('l', 100, 100, 3, 4, SL_COMP_REGION, 0, &r, &doc, &err), &err);
	CHECK(sl_nbt_find_int(doc.data, doc.len, lx, 2, NULL, &v, &err) == 1 && v == 3);
	place_done(&r);
	CHECK_OK(place_one('e', 50, 50, 6, 1, SL_COMP_ENTITIES, 0, &r, &doc, &err), &err);
	{
		static const char *const pos[] = {"Position"};
		sl_nbt_hit	h;

		memset(&h, 0, sizeof(h));
		h.path = pos;
		h.npath = 1;
		CHECK(r.nproblems == 1 && sl_nbt_find_tags(doc.data, doc.len, &h, 1, NULL, &err) == 0 &&
			  h.type == SL_TAG_INT_ARRAY && sl_get_u32be(doc.data + h.at + 4) == 6 &&
			  sl_get_u32be(doc.data + h.at + 8) == 1);
	}
	place_done(&r);
	/* a position held in a long cannot be rewritten in place: an error even when lenient */
	CHECK(place_one('L', 40, 0, 8, 0, SL_COMP_REGION, 0, &r, &doc, &err) != 0 && err.code == SL_ERR_FORMAT);
	place_done(&r);

	/* a file of another kind, strict or not */
	for (int strict = 0; strict <= 1; strict++)
	{
		CHECK(place_one('e', 0, 0, 0, 0, SL_COMP_REGION, strict, &r, &doc, &err) != 0 &&
			  err.code == SL_ERR_FORMAT && strstr(err.msg, "not a chunk of a region/ file") &&
			  strstr(err.msg, "but of an entities/ file"));
		place_done(&r);
		CHECK(place_one('r', 0, 0, 0, 0, SL_COMP_ENTITIES, strict, &r, &doc, &err) != 0 &&
			  strstr(err.msg, "not a chunk of an entities/ file") && strstr(err.msg, "but of a region/ file"));
		place_done(&r);
		CHECK(place_one('p', 0, 0, 0, 0, SL_COMP_REGION, strict, &r, &doc, &err) != 0 &&
			  strstr(err.msg, "but of a poi/ file"));
		place_done(&r);
	}
	sl_buf_free(&doc);
}

/* Several lookups in one pass: absent, nested, last duplicate wins, payload offsets. */
void
test_nbt_find_tags(void)
{
	sl_buf		b = {0};
	sl_err		err;
	static const char *const a[] = {"a"};
	static const char *const cb[] = {"c", "b"};
	static const char *const nope[] = {"nope"};
	static const char *const s[] = {"s"};
	sl_nbt_hit	h[4];

	nb_tag(&b, SL_TAG_COMPOUND, "");
	nb_int(&b, "a", 1);
	nb_tag(&b, SL_TAG_COMPOUND, "c");
	nb_short(&b, "b", 7);
	nb_end(&b);
	nb_string(&b, "s", "xyz");
	nb_int(&b, "a", 2);
	nb_end(&b);
	memset(h, 0, sizeof(h));
	h[0].path = a;
	h[0].npath = 1;
	h[1].path = cb;
	h[1].npath = 2;
	h[2].path = nope;
	h[2].npath = 1;
	h[3].path = s;
	h[3].npath = 1;
	CHECK_OK(sl_nbt_find_tags(b.data, b.len, h, 4, NULL, &err), &err);
	CHECK(h[0].type == SL_TAG_INT && h[0].i == 2 && sl_get_u32be(b.data + h[0].at) == 2);
	CHECK(h[1].type == SL_TAG_SHORT && h[1].i == 7 && sl_get_u16be(b.data + h[1].at) == 7);
	CHECK(h[2].type == SL_TAG_END);
	CHECK(h[3].type == SL_TAG_STRING && h[3].count == 3 && memcmp(b.data + h[3].at + 2, "xyz", 3) == 0);
	CHECK(sl_nbt_find_tags(b.data, b.len - 1, h, 4, NULL, &err) != 0 && err.code == SL_ERR_FORMAT);
	sl_buf_free(&b);
}
