/*
 * test_blocks.c - unit tests of sl_blocks: every chunk layout built by hand,
 * both packings at every bit width, legacy names, biomes and bad input.
 */
#include "harness.h"
#include "nbt_build.h"
#include "sl_blocks.h"
#include "sl_value.h"

#include <stdint.h>

/* ---- helpers: building chunk NBT by hand ---- */

static unsigned bk_seed = 1;

/* A small deterministic random number. */
static unsigned
bk_rand(void)
{
	bk_seed = bk_seed * 1103515245u + 12345u;
	return bk_seed >> 8;
}

/* Start a chunk document; dv < 0 writes no DataVersion. */
static void
bk_begin(sl_buf *b, int dv)
{
	b->len = 0;
	nb_tag(b, SL_TAG_COMPOUND, "");
	if (dv >= 0)
		nb_int(b, "DataVersion", dv);
}

/* A block palette of n generated names minecraft:b<i> (as list items). */
static void
bk_palette(sl_buf *b, const char *name, uint32_t n)
{
	char		s[32];

	nb_list(b, name, SL_TAG_COMPOUND, n);
	for (uint32_t i = 0; i < n; i++)
	{
		snprintf(s, sizeof(s), "minecraft:b%u", i);
		nb_string(b, "Name", s);
		nb_end(b);
	}
}

/* Longs that n indices of bits take. */
static uint32_t
bk_nlongs(uint32_t n, int bits, int spanning)
{
	return spanning ? (n * bits + 63) / 64 : (n + 64 / bits - 1) / (64 / bits);
}

/* Pack indices one bit at a time (independent of the module); returns longs. */
static uint32_t
bk_pack(const uint32_t *idx, uint32_t n, int bits, int spanning, uint64_t *out)
{
	uint32_t	nl = bk_nlongs(n, bits, spanning);
	uint32_t	per = 64 / bits;

	memset(out, 0, nl * sizeof(uint64_t));
	for (uint32_t i = 0; i < n; i++)
		for (int j = 0; j < bits; j++)
		{
			uint64_t	pos = spanning ? (uint64_t) i * bits + j :
				(uint64_t) (i / per) * 64 + (i % per) * bits + j;

			if ((idx[i] >> j) & 1)
				out[pos / 64] |= (uint64_t) 1 << (pos % 64);
		}
	return nl;
}

/* Open a chunk document. */
static int
bk_open(const sl_buf *b, int want, sl_arena *a, sl_chunk_blocks *c, sl_err *err)
{
	memset(a, 0, sizeof(*a));
	return sl_chunk_blocks_open(b->data, b->len, SL_NO_DV, want, NULL, a, c, err);
}

/* Collected (name, count) pairs of a count call. */
typedef struct bk_counts
{
	int			n;
	char		name[512][80];
	uint64_t	count[512];
	int			fallback[512];
	uint64_t	total;
} bk_counts;

/* sl_count_fn merging equal names. */
static int
bk_collect(void *ctx, const char *name, size_t len, size_t base_len, uint64_t count,
		   int fallback, sl_err *err)
{
	bk_counts  *c = ctx;
	char		s[80];
	int			i;

	snprintf(s, sizeof(s), "%.*s", (int) len, name);
	CHECK(base_len <= len);
	CHECK(memchr(name, '[', base_len) == NULL);
	for (i = 0; i < c->n; i++)
		if (strcmp(c->name[i], s) == 0)
			break;
	if (i == c->n)
	{
		if (c->n == 512)
			return sl_fail(err, SL_ERR_LIMIT, "too many names");
		strcpy(c->name[c->n], s);
		c->count[c->n] = 0;
		c->fallback[c->n] = fallback;
		c->n++;
	}
	c->count[i] += count;
	c->total += count;
	return 0;
}

/* Count of name in collected counts, 0 when absent. */
static uint64_t
bk_count_of(const bk_counts *c, const char *name)
{
	for (int i = 0; i < c->n; i++)
		if (strcmp(c->name[i], name) == 0)
			return c->count[i];
	return 0;
}

/* Block at x, y, z as a string (static buffer), "" when absent, "!" on error. */
static const char *
bk_at(const sl_chunk_blocks *c, int x, int y, int z)
{
	static char s[256];
	sl_buf		out = {0};
	sl_err		err = {0};
	int			rc = sl_chunk_block_at(c, x, y, z, &out, &err);

	snprintf(s, sizeof(s), "%s", rc < 0 ? "!" : "");
	if (rc == 1)
		snprintf(s, sizeof(s), "%.*s", (int) out.len, (const char *) out.data);
	sl_buf_free(&out);
	return s;
}

/*
 * Scanning (sl_chunk_blocks_scan, then sl_section_load of every section)
 * against opening with SL_WANT_BLOCKS: the same sections when opening
 * succeeds; when it fails, the scan or a load fails too, and with want
 * (when given) in its message. Returns whether that holds.
 */
static int
bk_scan_agrees(const uint8_t *doc, size_t len, const char *want)
{
	sl_arena	a = {0},
				sa = {0};
	sl_chunk_blocks c,
				s;
	sl_err		err = {0},
				serr = {0};
	int			rc = sl_chunk_blocks_open(doc, len, SL_NO_DV, SL_WANT_BLOCKS, NULL, &a, &c, &err);
	int			src = sl_chunk_blocks_scan(doc, len, SL_NO_DV, NULL, &sa, &s, &serr);
	int			ok;

	for (int i = 0; src == 0 && i < s.nsections; i++)
		src = sl_section_load(&s, i, &serr);
	if (rc != 0)
		ok = src != 0 && (want == NULL || strstr(serr.msg, want) != NULL);
	else
	{
		ok = src == 0 && s.nsections == c.nsections && s.layout == c.layout &&
			s.data_version == c.data_version;
		for (int i = 0; ok && i < c.nsections; i++)
		{
			const sl_section *x = &c.sections[i],
					   *y = &s.sections[i];

			ok = x->y == y->y && x->kind == y->kind && x->bits == y->bits &&
				x->spanning == y->spanning && x->npalette == y->npalette &&
				x->nstates == y->nstates && (x->states == NULL) == (y->states == NULL) &&
				(x->states == NULL || memcmp(x->states, y->states, 8 * (size_t) x->nstates) == 0) &&
				x->blocks == y->blocks && x->add == y->add && x->data == y->data && !y->pending;
			for (uint32_t k = 0; ok && k < x->npalette; k++)
			{
				const sl_nbt *p = sl_nbt_child(x->palette[k], "Name"),
						   *q = sl_nbt_child(y->palette[k], "Name");

				ok = p->v.str.len == q->v.str.len && memcmp(p->v.str.s, q->v.str.s, p->v.str.len) == 0;
			}
		}
	}
	if (!ok)
		fprintf(stderr, "scan: opening says \"%s\", scanning \"%s\"\n", rc ? err.msg : "ok",
				src ? serr.msg : "ok");
	sl_arena_free(&a);
	sl_arena_free(&sa);
	return ok;
}

/* Open must fail with a message containing want (and scanning too, for blocks). */
static int
bk_open_fails(const sl_buf *b, int mode, const char *want)
{
	sl_arena	a;
	sl_chunk_blocks c;
	sl_err		err = {0};
	int			ok = bk_open(b, mode, &a, &c, &err) != 0 && strstr(err.msg, want) != NULL;

	if (!ok)
		fprintf(stderr, "expected failure with \"%s\", got \"%s\"\n", want, err.msg);
	sl_arena_free(&a);
	return ok && (mode != SL_WANT_BLOCKS || bk_scan_agrees(b->data, b->len, want));
}

/* Counting must fail with a message containing want (open succeeds). */
static int
bk_count_fails(const sl_buf *b, const char *want)
{
	sl_arena	a;
	sl_chunk_blocks c;
	sl_err		err = {0};
	bk_counts  *k = calloc(1, sizeof(bk_counts));
	int			ok = bk_open(b, SL_WANT_BLOCKS | SL_WANT_BIOMES, &a, &c, &err) == 0 &&
		(sl_chunk_count_blocks(&c, bk_collect, k, &err) != 0 ||
		 sl_chunk_count_biomes(&c, bk_collect, k, &err) != 0) &&
		strstr(err.msg, want) != NULL;

	if (!ok)
		fprintf(stderr, "expected count failure with \"%s\", got \"%s\"\n", want, err.msg);
	free(k);
	sl_arena_free(&a);
	return ok;
}

/* ---- legacy names ---- */

void
test_blocks_legacy_names(void)
{
	sl_buf		out = {0};
	sl_err		err = {0};
	int			fallback = 0;
	static const char *const logs[] = {"oak", "spruce", "birch", "jungle"};
	static const char *const axes[] = {"y", "x", "z"};

	CHECK(strcmp(sl_legacy_block_name(0, 0), "minecraft:air") == 0);
	CHECK(strcmp(sl_legacy_block_name(1, 0), "minecraft:stone") == 0);
	CHECK(strcmp(sl_legacy_block_name(1, 1), "minecraft:granite") == 0);
	CHECK(strcmp(sl_legacy_block_name(2, 0), "minecraft:grass_block[snowy=false]") == 0);
	CHECK(strcmp(sl_legacy_block_name(35, 14), "minecraft:red_wool") == 0);
	CHECK(strcmp(sl_legacy_block_name(35, 0), "minecraft:white_wool") == 0);
	for (int d = 0; d < 12; d++)
	{
		char		want[64];

		snprintf(want, sizeof(want), "minecraft:%s_log[axis=%s]", logs[d & 3], axes[d >> 2]);
		CHECK(strcmp(sl_legacy_block_name(17, d), want) == 0);
	}
	CHECK(strcmp(sl_legacy_block_name(17, 12), "minecraft:oak_wood") == 0);
	CHECK(strcmp(sl_legacy_block_name(9, 0), "minecraft:water[level=0]") == 0);
	CHECK(strcmp(sl_legacy_block_name(64, 8),
				 "minecraft:oak_door[facing=east,half=upper,hinge=left,open=false,powered=false]") == 0);
	CHECK(sl_legacy_block_name(1, 7) == NULL);
	CHECK(sl_legacy_block_name(253, 0) == NULL);
	CHECK(sl_legacy_block_name(256, 0) == NULL);
	CHECK(sl_legacy_block_name(-1, 0) == NULL);
	CHECK(sl_legacy_block_name(1, 16) == NULL);

	CHECK_OK(sl_legacy_state_name(1 << 4 | 1, &out, &fallback, &err), &err);
	CHECK(fallback == 0 && out.len == 17 && memcmp(out.data, "minecraft:granite", 17) == 0);
	out.len = 0;
	CHECK_OK(sl_legacy_state_name(300 << 4 | 5, &out, &fallback, &err), &err);
	CHECK(fallback == 1 && out.len == 22 && memcmp(out.data, "minecraft:legacy_300_5", 22) == 0);

	CHECK(strcmp(sl_legacy_biome_name(1), "minecraft:plains") == 0);
	CHECK(strcmp(sl_legacy_biome_name(3), "minecraft:mountains") == 0);
	CHECK(strcmp(sl_legacy_biome_name(175), "minecraft:lush_caves") == 0);
	CHECK(sl_legacy_biome_name(255) == NULL);
	CHECK(sl_legacy_biome_name(-1) == NULL);
	out.len = 0;
	CHECK_OK(sl_legacy_biome_append(-1, &out, &fallback, &err), &err);
	CHECK(fallback == 1 && out.len == 25 && memcmp(out.data, "minecraft:legacy_biome_-1", 25) == 0);
	out.len = 0;
	CHECK_OK(sl_legacy_biome_append(7, &out, &fallback, &err), &err);
	CHECK(fallback == 0 && out.len == 15 && memcmp(out.data, "minecraft:river", 15) == 0);
	sl_buf_free(&out);
}

/* Every line of a data/ TSV file agrees with the generated table; returns lines. */
static int
bk_check_tsv(const char *path, int cols)
{
	FILE	   *f = fopen(path, "r");
	char		line[512];
	int			lines = 0;

	CHECK(f != NULL);
	if (f == NULL)
	{
		fprintf(stderr, "cannot read %s (run from the repository root)\n", path);
		return 0;
	}
	while (fgets(line, sizeof(line), f))
	{
		int			id,
					data;
		char		name[400];
		const char *got;

		if (line[0] == '#')
			continue;
		if (cols == 3)
		{
			CHECK(sscanf(line, "%d\t%d\t%399s", &id, &data, name) == 3);
			got = sl_legacy_block_name(id, data);
		}
		else
		{
			CHECK(sscanf(line, "%d\t%399s", &id, name) == 2);
			got = sl_legacy_biome_name(id);
		}
		CHECK(got != NULL && strcmp(got, name) == 0);
		lines++;
	}
	fclose(f);
	return lines;
}

void
test_blocks_legacy_tables(void)
{
	int			blocks = 0,
				biomes = 0;

	for (int id = 0; id < 256; id++)
		for (int d = 0; d < 16; d++)
			blocks += sl_legacy_block_name(id, d) != NULL;
	for (int id = 0; id < 256; id++)
		biomes += sl_legacy_biome_name(id) != NULL;
	CHECK(bk_check_tsv("data/legacy_blocks.tsv", 3) == blocks);
	CHECK(bk_check_tsv("data/legacy_biomes.tsv", 2) == biomes);
	CHECK(blocks > 1600);
	CHECK(biomes > 80);
}

/* ---- McRegion and pre-1.13 Anvil ---- */

void
test_blocks_mcregion(void)
{
	static uint8_t blocks[32768],
				data[16384];
	uint32_t	want[16];
	sl_buf		b = {0};
	sl_arena	a;
	sl_chunk_blocks c;
	sl_err		err = {0};
	bk_counts  *k = calloc(1, sizeof(bk_counts));

	/* id by height band, data nibble = x; index y + z*128 + x*2048 */
	memset(want, 0, sizeof(want));
	for (int x = 0; x < 16; x++)
		for (int z = 0; z < 16; z++)
			for (int y = 0; y < 128; y++)
			{
				uint32_t	i = y + z * 128 + x * 2048;
				uint8_t		id = y < 1 ? 7 : y < 60 ? 1 : y < 64 ? 2 : 0;

				blocks[i] = id;
				data[i / 2] |= (uint8_t) ((id == 1 ? x % 7 : 0) << (i % 2 ? 4 : 0));
			}
	bk_begin(&b, -1);
	nb_tag(&b, SL_TAG_COMPOUND, "Level");
	nb_bytes(&b, "Blocks", blocks, sizeof(blocks));
	nb_bytes(&b, "Data", data, sizeof(data));
	nb_end(&b);
	nb_end(&b);
	CHECK_OK(bk_open(&b, SL_WANT_BLOCKS | SL_WANT_BIOMES, &a, &c, &err), &err);
	CHECK(c.layout == SL_LAYOUT_MCREGION && c.nsections == 8);
	CHECK(c.biome_layout == SL_BIOMES_NONE);
	CHECK(strcmp(bk_at(&c, 3, 0, 5), "minecraft:bedrock") == 0);
	CHECK(strcmp(bk_at(&c, 0, 30, 5), "minecraft:stone") == 0);
	CHECK(strcmp(bk_at(&c, 1, 30, 5), "minecraft:granite") == 0);
	CHECK(strcmp(bk_at(&c, 6, 59, 15), "minecraft:polished_andesite") == 0);
	CHECK(strcmp(bk_at(&c, 15, 61, 0), "minecraft:grass_block[snowy=false]") == 0);
	CHECK(strcmp(bk_at(&c, 15, 127, 0), "minecraft:air") == 0);
	CHECK(strcmp(bk_at(&c, 15, 128, 0), "") == 0);
	CHECK(strcmp(bk_at(&c, 15, -1, 0), "") == 0);
	CHECK(strcmp(bk_at(&c, 16, 1, 0), "!") == 0);
	CHECK_OK(sl_chunk_count_blocks(&c, bk_collect, k, &err), &err);
	CHECK(k->total == 32768);
	CHECK(bk_count_of(k, "minecraft:bedrock") == 256);
	CHECK(bk_count_of(k, "minecraft:grass_block[snowy=false]") == 4 * 256);
	CHECK(bk_count_of(k, "minecraft:air") == 64 * 256);
	CHECK(bk_count_of(k, "minecraft:stone") == 59 * 16 * 3);	/* x = 0, 7, 14 */
	CHECK(bk_count_of(k, "minecraft:granite") == 59 * 16 * 3);	/* x = 1, 8, 15 */
	CHECK(k->n == 10);
	sl_arena_free(&a);
	sl_buf_free(&b);
	free(k);
}

void
test_blocks_anvil(void)
{
	static uint8_t blocks[4096],
				data[2048],
				add[2048],
				biomes[256];
	sl_buf		b = {0};
	sl_arena	a;
	sl_chunk_blocks c;
	sl_err		err = {0};
	bk_counts  *k = calloc(1, sizeof(bk_counts));
	uint32_t	counts[SL_LEGACY_KEYS];
	uint32_t	key = 0;

	/* section Y=2: wool colours by x (low nibble = even index), Y=0: Add */
	for (int i = 0; i < 4096; i++)
	{
		blocks[i] = 35;
		data[i / 2] |= (uint8_t) ((i & 15) << (i % 2 ? 4 : 0));
	}
	for (int i = 0; i < 256; i++)
		biomes[i] = (uint8_t) (i < 200 ? 4 : i < 255 ? 51 : 255);
	bk_begin(&b, 1343);
	nb_tag(&b, SL_TAG_COMPOUND, "Level");
	nb_list(&b, "Sections", SL_TAG_COMPOUND, 3);
	nb_byte(&b, "Y", 2);
	nb_bytes(&b, "Blocks", blocks, 4096);
	nb_bytes(&b, "Data", data, 2048);
	nb_end(&b);
	nb_byte(&b, "Y", 5);		/* light only */
	nb_bytes(&b, "SkyLight", data, 2048);
	nb_end(&b);
	memset(blocks, 1, sizeof(blocks));
	memset(data, 0, sizeof(data));
	add[0] = 0x21;				/* index 0: id 1 + 256, index 1: id 1 + 512 */
	nb_byte(&b, "Y", 0);
	nb_bytes(&b, "Blocks", blocks, 4096);
	nb_bytes(&b, "Data", data, 2048);
	nb_bytes(&b, "Add", add, 2048);
	nb_end(&b);
	nb_bytes(&b, "Biomes", biomes, 256);
	nb_end(&b);
	nb_end(&b);

	CHECK_OK(bk_open(&b, SL_WANT_BLOCKS | SL_WANT_BIOMES, &a, &c, &err), &err);
	CHECK(c.layout == SL_LAYOUT_ANVIL && c.nsections == 2);
	CHECK(c.sections[0].y == 0 && c.sections[1].y == 2);
	CHECK(c.biome_layout == SL_BIOMES_BYTE_2D);
	CHECK(strcmp(bk_at(&c, 0, 32, 0), "minecraft:white_wool") == 0);
	CHECK(strcmp(bk_at(&c, 14, 47, 9), "minecraft:red_wool") == 0);
	CHECK(strcmp(bk_at(&c, 15, 40, 3), "minecraft:black_wool") == 0);
	CHECK(strcmp(bk_at(&c, 0, 0, 0), "minecraft:legacy_257_0") == 0);
	CHECK(strcmp(bk_at(&c, 1, 0, 0), "minecraft:legacy_513_0") == 0);
	CHECK(strcmp(bk_at(&c, 2, 0, 0), "minecraft:stone") == 0);
	CHECK(strcmp(bk_at(&c, 2, 16, 0), "") == 0);
	CHECK(strcmp(bk_at(&c, 2, 80, 0), "") == 0);
	CHECK_OK(sl_section_key(&c, 0, 1, 0, 0, &key, &err), &err);
	CHECK(key == (513u << 4));
	memset(counts, 0, sizeof(counts));
	CHECK_OK(sl_section_count(&c, 1, counts, &err), &err);
	CHECK(counts[35 << 4 | 14] == 256);
	CHECK_OK(sl_chunk_count_blocks(&c, bk_collect, k, &err), &err);
	CHECK(k->total == 8192 && k->n == 19);
	CHECK(bk_count_of(k, "minecraft:stone") == 4094);
	CHECK(bk_count_of(k, "minecraft:legacy_257_0") == 1);
	for (int i = 0; i < k->n; i++)
		CHECK(k->fallback[i] == (strncmp(k->name[i], "minecraft:legacy_", 17) == 0));
	memset(k, 0, sizeof(*k));
	CHECK_OK(sl_chunk_count_biomes(&c, bk_collect, k, &err), &err);
	CHECK(k->n == 3 && k->total == 256);
	CHECK(bk_count_of(k, "minecraft:forest") == 200);
	CHECK(bk_count_of(k, "minecraft:legacy_biome_51") == 55);
	CHECK(bk_count_of(k, "minecraft:legacy_biome_255") == 1);
	sl_arena_free(&a);
	sl_buf_free(&b);
	free(k);
}

/* ---- 1.13-1.17 and 1.18+ packings ---- */

/* Check one paletted chunk: every block, the section counts and the chunk counts. */
static void
bk_check_paletted(const sl_buf *b, const uint32_t *idx, uint32_t n, int bits, int spanning)
{
	sl_arena	a;
	sl_chunk_blocks c;
	sl_err		err = {0};
	uint32_t   *counts = calloc(n, sizeof(uint32_t));
	uint32_t   *want = calloc(n, sizeof(uint32_t));
	bk_counts  *k = calloc(1, sizeof(bk_counts));
	int			bad = 0;
	char		s[32];

	CHECK_OK(bk_open(b, SL_WANT_BLOCKS, &a, &c, &err), &err);
	CHECK(c.nsections == 1);
	if (c.nsections != 1)
		goto done;
	CHECK(c.sections[0].kind == SL_SEC_PALETTE && c.sections[0].npalette == n);
	CHECK(c.sections[0].bits == bits && c.sections[0].spanning == spanning);
	for (uint32_t i = 0; i < 4096; i++)
	{
		uint32_t	key = 9999;

		want[idx[i]]++;
		if (sl_section_key(&c, 0, i & 15, i >> 8, (i >> 4) & 15, &key, &err) != 0 || key != idx[i])
			bad++;
	}
	CHECK(bad == 0);
	CHECK_OK(sl_section_count(&c, 0, counts, &err), &err);
	CHECK(memcmp(counts, want, n * sizeof(uint32_t)) == 0);
	snprintf(s, sizeof(s), "minecraft:b%u", idx[4095]);
	CHECK(strcmp(bk_at(&c, 15, c.sections[0].y * 16 + 15, 15), s) == 0);
	if (n <= 512)
	{
		int			distinct = 0;

		CHECK_OK(sl_chunk_count_blocks(&c, bk_collect, k, &err), &err);
		for (uint32_t v = 0; v < n; v++)
			distinct += want[v] != 0;
		CHECK(k->total == 4096 && k->n == distinct);
		snprintf(s, sizeof(s), "minecraft:b%u", n - 1);
		CHECK(bk_count_of(k, s) == want[n - 1]);
	}
done:
	sl_arena_free(&a);
	free(counts);
	free(want);
	free(k);
}

/* Random indices below n, with 0 and n - 1 present. */
static void
bk_indices(uint32_t *idx, uint32_t n)
{
	for (int i = 0; i < 4096; i++)
		idx[i] = bk_rand() % n;
	idx[0] = 0;
	idx[4095] = n - 1;
}

void
test_blocks_flat_packing(void)
{
	static uint32_t idx[4096];
	static uint64_t longs[4096];
	sl_buf		b = {0};

	for (int bits = 4; bits <= 12; bits++)
		for (int spanning = 0; spanning <= 1; spanning++)
			for (int with_dv = 0; with_dv <= 1; with_dv++)
			{
				uint32_t	n = bits == 4 ? 13 : (1u << (bits - 1)) + 1 + bk_rand() % (1u << (bits - 1));
				uint32_t	nl;

				bk_indices(idx, n);
				nl = bk_pack(idx, 4096, bits, spanning, longs);
				bk_begin(&b, with_dv ? (spanning ? 1976 : 2586) : -1);
				nb_tag(&b, SL_TAG_COMPOUND, "Level");
				nb_list(&b, "Sections", SL_TAG_COMPOUND, 1);
				nb_byte(&b, "Y", 3);
				bk_palette(&b, "Palette", n);
				nb_longs(&b, "BlockStates", longs, nl);
				nb_end(&b);
				nb_end(&b);
				nb_end(&b);
				/* without a DataVersion, lengths that fit both packings read either way */
				bk_check_paletted(&b, idx, n, bits,
								  with_dv || 64 % bits != 0 ? spanning : 1);
			}
	sl_buf_free(&b);
}

void
test_blocks_modern_packing(void)
{
	static uint32_t idx[4096];
	static uint64_t longs[4096];
	sl_buf		b = {0};

	for (int bits = 4; bits <= 12; bits++)
	{
		uint32_t	n = bits == 4 ? 2 + bk_rand() % 15 : (1u << (bits - 1)) + 1 + bk_rand() % (1u << (bits - 1));
		uint32_t	nl;

		bk_indices(idx, n);
		nl = bk_pack(idx, 4096, bits, 0, longs);
		bk_begin(&b, 3955);
		nb_list(&b, "sections", SL_TAG_COMPOUND, 1);
		nb_byte(&b, "Y", -4);
		nb_tag(&b, SL_TAG_COMPOUND, "block_states");
		bk_palette(&b, "palette", n);
		nb_longs(&b, "data", longs, nl);
		nb_end(&b);
		nb_end(&b);
		nb_end(&b);
		bk_check_paletted(&b, idx, n, bits, 0);
	}
	sl_buf_free(&b);
}

void
test_blocks_modern_chunk(void)
{
	static uint32_t idx[64];
	static uint64_t longs[64];
	sl_buf		b = {0};
	sl_arena	a;
	sl_chunk_blocks c;
	sl_err		err = {0};
	bk_counts  *k = calloc(1, sizeof(bk_counts));
	uint32_t	counts[1];
	char		s[32];

	/* Y=-1: palette of 1, no data; Y=0: stairs with unsorted, repeated properties */
	bk_begin(&b, 2975);
	nb_list(&b, "sections", SL_TAG_COMPOUND, 3);
	nb_byte(&b, "Y", -1);
	nb_tag(&b, SL_TAG_COMPOUND, "block_states");
	nb_list(&b, "palette", SL_TAG_COMPOUND, 1);
	nb_string(&b, "Name", "minecraft:deepslate");
	nb_tag(&b, SL_TAG_COMPOUND, "Properties");
	nb_string(&b, "axis", "y");
	nb_end(&b);
	nb_end(&b);
	nb_end(&b);
	nb_tag(&b, SL_TAG_COMPOUND, "biomes");
	nb_list(&b, "palette", SL_TAG_STRING, 1);
	nb_str(&b, "minecraft:deep_dark");
	nb_end(&b);
	nb_end(&b);
	nb_byte(&b, "Y", 0);
	nb_tag(&b, SL_TAG_COMPOUND, "block_states");
	nb_list(&b, "palette", SL_TAG_COMPOUND, 1);
	nb_string(&b, "Name", "minecraft:oak_stairs");
	nb_tag(&b, SL_TAG_COMPOUND, "Properties");
	nb_string(&b, "waterlogged", "false");
	nb_string(&b, "half", "top");
	nb_string(&b, "facing", "north");
	nb_string(&b, "half", "bottom");
	nb_string(&b, "shape", "straight");
	nb_end(&b);
	nb_end(&b);
	nb_longs(&b, "data", longs, 3);	/* ignored: one palette entry */
	nb_end(&b);
	nb_end(&b);
	nb_byte(&b, "Y", 20);		/* light only */
	nb_end(&b);
	nb_end(&b);

	CHECK_OK(bk_open(&b, SL_WANT_BLOCKS | SL_WANT_BIOMES, &a, &c, &err), &err);
	CHECK(c.layout == SL_LAYOUT_MODERN && c.nsections == 2);
	CHECK(c.biome_layout == SL_BIOMES_PALETTE);
	CHECK(strcmp(bk_at(&c, 0, -16, 0), "minecraft:deepslate[axis=y]") == 0);
	CHECK(strcmp(bk_at(&c, 15, -1, 15), "minecraft:deepslate[axis=y]") == 0);
	CHECK(strcmp(bk_at(&c, 4, 7, 4),
				 "minecraft:oak_stairs[facing=north,half=bottom,shape=straight,waterlogged=false]") == 0);
	CHECK(strcmp(bk_at(&c, 4, 16, 4), "") == 0);
	CHECK(strcmp(bk_at(&c, 4, -17, 4), "") == 0);
	counts[0] = 0;
	CHECK_OK(sl_section_count(&c, 0, counts, &err), &err);
	CHECK(counts[0] == 4096);
	CHECK_OK(sl_chunk_count_blocks(&c, bk_collect, k, &err), &err);
	CHECK(k->n == 2 && k->total == 8192);
	CHECK(bk_count_of(k, "minecraft:deepslate[axis=y]") == 4096);
	memset(k, 0, sizeof(*k));
	CHECK_OK(sl_chunk_count_biomes(&c, bk_collect, k, &err), &err);
	CHECK(k->n == 1 && bk_count_of(k, "minecraft:deep_dark") == 64);
	sl_arena_free(&a);

	/* biome palettes of 2..64 entries: bits 1..6 */
	for (uint32_t n = 2; n <= 64; n++)
	{
		int			bits = 0;
		uint32_t	nl;
		uint32_t	want[64];

		while ((1u << bits) < n)
			bits++;
		memset(want, 0, sizeof(want));
		for (int i = 0; i < 64; i++)
			want[idx[i] = (uint32_t) (i == 0 ? n - 1 : bk_rand() % n)]++;
		nl = bk_pack(idx, 64, bits, 0, longs);
		bk_begin(&b, 3955);
		nb_list(&b, "sections", SL_TAG_COMPOUND, 1);
		nb_byte(&b, "Y", 5);
		nb_tag(&b, SL_TAG_COMPOUND, "biomes");
		nb_list(&b, "palette", SL_TAG_STRING, n);
		for (uint32_t v = 0; v < n; v++)
		{
			snprintf(s, sizeof(s), "minecraft:x%u", v);
			nb_str(&b, s);
		}
		nb_longs(&b, "data", longs, nl);
		nb_end(&b);
		nb_end(&b);
		nb_end(&b);
		memset(k, 0, sizeof(*k));
		CHECK_OK(bk_open(&b, SL_WANT_BIOMES, &a, &c, &err), &err);
		CHECK(c.nsections == 1 && c.sections[0].biome_bits == bits && c.sections[0].kind == 0);
		CHECK_OK(sl_chunk_count_biomes(&c, bk_collect, k, &err), &err);
		CHECK(k->total == 64);
		for (uint32_t v = 0; v < n; v++)
		{
			snprintf(s, sizeof(s), "minecraft:x%u", v);
			CHECK(bk_count_of(k, s) == want[v]);
		}
		CHECK_OK(sl_chunk_count_blocks(&c, bk_collect, k, &err), &err);
		CHECK(k->total == 64);	/* no block sections: nothing added */
		sl_arena_free(&a);
	}
	sl_buf_free(&b);
	free(k);
}

void
test_blocks_old_biomes(void)
{
	static int32_t ids[1536];
	sl_buf		b = {0};
	sl_arena	a;
	sl_chunk_blocks c;
	sl_err		err = {0};
	bk_counts  *k = calloc(1, sizeof(bk_counts));
	static const struct
	{
		int			dv;
		uint32_t	n;
		sl_biome_layout layout;
	}			cases[] = {
		{1976, 256, SL_BIOMES_INT_2D},
		{-1, 256, SL_BIOMES_INT_2D},
		{2586, 1024, SL_BIOMES_INT_3D},
		{2730, 1536, SL_BIOMES_INT_3D},
		{2586, 256, SL_BIOMES_INT_3D},
		{1976, 0, SL_BIOMES_NONE},
	};

	for (size_t t = 0; t < sizeof(cases) / sizeof(cases[0]); t++)
	{
		for (uint32_t i = 0; i < cases[t].n; i++)
			ids[i] = i == 0 ? -1 : i == 1 ? 1000 : i == 2 ? 1000 : (int32_t) (i % 3);
		bk_begin(&b, cases[t].dv);
		nb_tag(&b, SL_TAG_COMPOUND, "Level");
		nb_list(&b, "Sections", SL_TAG_END, 0);
		nb_ints(&b, "Biomes", ids, cases[t].n);
		nb_end(&b);
		nb_end(&b);
		memset(k, 0, sizeof(*k));
		CHECK_OK(bk_open(&b, SL_WANT_BLOCKS | SL_WANT_BIOMES, &a, &c, &err), &err);
		CHECK(c.biome_layout == cases[t].layout && c.layout == SL_LAYOUT_NONE && c.nsections == 0);
		CHECK_OK(sl_chunk_count_blocks(&c, bk_collect, k, &err), &err);
		CHECK(k->total == 0);
		CHECK_OK(sl_chunk_count_biomes(&c, bk_collect, k, &err), &err);
		CHECK(k->total == cases[t].n);
		if (cases[t].n)
		{
			CHECK(k->n == 5);
			CHECK(bk_count_of(k, "minecraft:legacy_biome_-1") == 1);
			CHECK(bk_count_of(k, "minecraft:legacy_biome_1000") == 2);
			CHECK(bk_count_of(k, "minecraft:ocean") + bk_count_of(k, "minecraft:plains") +
				  bk_count_of(k, "minecraft:desert") == cases[t].n - 3);
		}
		sl_arena_free(&a);
	}
	sl_buf_free(&b);
	free(k);
}

/* ---- bad input ---- */

/* A 1.13 chunk with one section Y=3 of a palette of n and the given longs. */
static void
bk_flat_doc(sl_buf *b, int dv, uint32_t n, const uint64_t *longs, uint32_t nl)
{
	bk_begin(b, dv);
	nb_tag(b, SL_TAG_COMPOUND, "Level");
	nb_list(b, "Sections", SL_TAG_COMPOUND, 1);
	nb_byte(b, "Y", 3);
	bk_palette(b, "Palette", n);
	nb_longs(b, "BlockStates", longs, nl);
	nb_end(b);
	nb_end(b);
	nb_end(b);
}

void
test_blocks_errors(void)
{
	static uint32_t idx[4096];
	static uint64_t longs[4096];
	static uint8_t bytes[32768];
	sl_buf		b = {0};
	sl_arena	a;
	sl_chunk_blocks c;
	sl_err		err = {0};
	uint32_t	nl,
				key;

	/* palette index past the palette: counting and reading that block fail */
	memset(idx, 0, sizeof(idx));
	idx[700] = 13;
	nl = bk_pack(idx, 4096, 4, 1, longs);
	bk_flat_doc(&b, 1631, 12, longs, nl);
	CHECK(bk_count_fails(&b, "section Y=3: palette index 13 past palette of 12 entries"));
	CHECK_OK(bk_open(&b, SL_WANT_BLOCKS, &a, &c, &err), &err);
	CHECK(strcmp(bk_at(&c, 0, 48, 0), "minecraft:b0") == 0);
	CHECK(strcmp(bk_at(&c, 700 & 15, 48 + (700 >> 8), (700 >> 4) & 15), "!") == 0);
	CHECK(sl_section_key(&c, 0, 700 & 15, 700 >> 8, (700 >> 4) & 15, &key, &err) != 0);
	CHECK(strstr(err.msg, "section Y=3: palette index 13 past palette of 12 entries") != NULL);
	CHECK(sl_section_count(&c, 0, idx, &err) != 0 && err.code == SL_ERR_FORMAT);
	CHECK(sl_section_count(&c, 1, idx, &err) != 0 && err.code == SL_ERR_INVALID);
	CHECK(sl_section_state_name(&c, 0, 12, &b, &err) != 0 && err.code == SL_ERR_INVALID);
	sl_arena_free(&a);
	idx[700] = 37;
	nl = bk_pack(idx, 4096, 6, 0, longs);
	bk_flat_doc(&b, 2586, 33, longs, nl);
	CHECK(bk_count_fails(&b, "section Y=3: palette index 37 past palette of 33 entries"));

	/* BlockStates of the wrong length for its palette */
	bk_flat_doc(&b, 1631, 12, longs, 255);
	CHECK(bk_open_fails(&b, SL_WANT_BLOCKS,
						"section Y=3: BlockStates has 255 longs, expected 256 for a palette of 12 entries (4 bits, spanning)"));
	bk_flat_doc(&b, 2586, 40, longs, 384);
	CHECK(bk_open_fails(&b, SL_WANT_BLOCKS, "BlockStates has 384 longs, expected 410"));
	bk_flat_doc(&b, -1, 40, longs, 400);
	CHECK(bk_open_fails(&b, SL_WANT_BLOCKS, "BlockStates has 400 longs, expected 410"));
	bk_flat_doc(&b, 1631, 4097, longs, 256);
	CHECK(bk_open_fails(&b, SL_WANT_BLOCKS, "Palette has 4097 entries"));
	/* ... but a biome-only look does not mind */
	CHECK_OK(bk_open(&b, SL_WANT_BIOMES, &a, &c, &err), &err);
	CHECK(c.nsections == 0 && c.layout == SL_LAYOUT_FLAT);
	sl_arena_free(&a);

	/* palette entries */
	bk_begin(&b, 1631);
	nb_tag(&b, SL_TAG_COMPOUND, "Level");
	nb_list(&b, "Sections", SL_TAG_COMPOUND, 1);
	nb_byte(&b, "Y", 3);
	nb_list(&b, "Palette", SL_TAG_COMPOUND, 2);
	nb_string(&b, "Name", "minecraft:stone");
	nb_end(&b);
	nb_tag(&b, SL_TAG_COMPOUND, "Properties");
	nb_end(&b);
	nb_end(&b);
	nb_longs(&b, "BlockStates", longs, 256);
	nb_end(&b);
	nb_end(&b);
	nb_end(&b);
	CHECK(bk_open_fails(&b, SL_WANT_BLOCKS, "section Y=3: Palette entry 1 has no Name string"));

	bk_begin(&b, 2975);
	nb_list(&b, "sections", SL_TAG_COMPOUND, 1);
	nb_byte(&b, "Y", 3);
	nb_tag(&b, SL_TAG_COMPOUND, "block_states");
	nb_list(&b, "palette", SL_TAG_COMPOUND, 1);
	nb_string(&b, "Name", "minecraft:stone");
	nb_tag(&b, SL_TAG_COMPOUND, "Properties");
	nb_int(&b, "level", 3);
	nb_end(&b);
	nb_end(&b);
	nb_end(&b);
	nb_end(&b);
	nb_end(&b);
	CHECK(bk_open_fails(&b, SL_WANT_BLOCKS, "property 0 is a int, not a string"));

	/* 1.18+: two entries but no data; biome data too short; biome index past */
	bk_begin(&b, 2975);
	nb_list(&b, "sections", SL_TAG_COMPOUND, 1);
	nb_byte(&b, "Y", -2);
	nb_tag(&b, SL_TAG_COMPOUND, "block_states");
	bk_palette(&b, "palette", 2);
	nb_end(&b);
	nb_end(&b);
	nb_end(&b);
	CHECK(bk_open_fails(&b, SL_WANT_BLOCKS, "section Y=-2: block_states.data is missing for a palette of 2 entries"));
	CHECK_OK(bk_open(&b, SL_WANT_BIOMES, &a, &c, &err), &err);
	sl_arena_free(&a);

	for (int t = 0; t < 2; t++)
	{
		memset(idx, 0, 64 * sizeof(uint32_t));
		idx[63] = 3;
		nl = bk_pack(idx, 64, 2, 0, longs);
		bk_begin(&b, 2975);
		nb_list(&b, "sections", SL_TAG_COMPOUND, 1);
		nb_byte(&b, "Y", 7);
		nb_tag(&b, SL_TAG_COMPOUND, "biomes");
		nb_list(&b, "palette", SL_TAG_STRING, 3);
		nb_str(&b, "minecraft:a");
		nb_str(&b, "minecraft:b");
		nb_str(&b, "minecraft:c");
		nb_longs(&b, "data", longs, t == 0 ? nl : nl + 1);
		nb_end(&b);
		nb_end(&b);
		nb_end(&b);
		if (t == 0)
			CHECK(bk_count_fails(&b, "section Y=7: biomes: palette index 3 past palette of 3 entries"));
		else
			CHECK(bk_open_fails(&b, SL_WANT_BIOMES, "section Y=7: biomes.data has 3 longs, expected 2"));
	}

	/* section Y: out of range, missing, twice */
	bk_begin(&b, 1343);
	nb_tag(&b, SL_TAG_COMPOUND, "Level");
	nb_list(&b, "Sections", SL_TAG_COMPOUND, 1);
	nb_byte(&b, "Y", 16);
	nb_bytes(&b, "Blocks", bytes, 4096);
	nb_bytes(&b, "Data", bytes, 2048);
	nb_end(&b);
	nb_end(&b);
	nb_end(&b);
	CHECK(bk_open_fails(&b, SL_WANT_BLOCKS, "section Y=16: Y out of range 0..15"));

	bk_begin(&b, 2975);
	nb_list(&b, "sections", SL_TAG_COMPOUND, 1);
	nb_int(&b, "Y", 300);
	nb_tag(&b, SL_TAG_COMPOUND, "block_states");
	bk_palette(&b, "palette", 1);
	nb_end(&b);
	nb_end(&b);
	nb_end(&b);
	CHECK(bk_open_fails(&b, SL_WANT_BLOCKS, "section Y=300 out of range"));

	bk_begin(&b, 2975);
	nb_list(&b, "sections", SL_TAG_COMPOUND, 3);
	for (int i = 0; i < 3; i++)
	{
		if (i != 1)
			nb_byte(&b, "Y", 4);
		nb_tag(&b, SL_TAG_COMPOUND, "block_states");
		bk_palette(&b, "palette", 1);
		nb_end(&b);
		nb_end(&b);
	}
	nb_end(&b);
	CHECK(bk_open_fails(&b, SL_WANT_BLOCKS, "section 1 has no Y"));
	b.len = 0;

	bk_begin(&b, 2975);
	nb_list(&b, "sections", SL_TAG_COMPOUND, 2);
	for (int i = 0; i < 2; i++)
	{
		nb_byte(&b, "Y", 4);
		nb_tag(&b, SL_TAG_COMPOUND, "block_states");
		bk_palette(&b, "palette", 1);
		nb_end(&b);
		nb_end(&b);
	}
	nb_end(&b);
	CHECK(bk_open_fails(&b, SL_WANT_BLOCKS, "section Y=4 appears twice"));

	/* every Y from -128 to 127 is fine; one more is a repeat */
	for (int extra = 0; extra <= 1; extra++)
	{
		bk_begin(&b, 2975);
		nb_list(&b, "sections", SL_TAG_COMPOUND, 256 + extra);
		for (int i = 0; i < 256 + extra; i++)
		{
			nb_byte(&b, "Y", i < 256 ? i - 128 : 127);
			nb_tag(&b, SL_TAG_COMPOUND, "block_states");
			bk_palette(&b, "palette", 1);
			nb_end(&b);
			nb_end(&b);
		}
		nb_end(&b);
		if (extra)
			CHECK(bk_open_fails(&b, SL_WANT_BLOCKS, "section Y=127 appears twice"));
		else
		{
			CHECK_OK(bk_open(&b, SL_WANT_BLOCKS, &a, &c, &err), &err);
			CHECK(c.nsections == 256 && c.sections[0].y == -128 && c.sections[255].y == 127);
			CHECK(strcmp(bk_at(&c, 1, -2048, 1), "minecraft:b0") == 0);
			CHECK(strcmp(bk_at(&c, 1, 2047, 1), "minecraft:b0") == 0);
			CHECK(strcmp(bk_at(&c, 1, 2048, 1), "") == 0);
			sl_arena_free(&a);
		}
	}

	/* legacy arrays */
	for (int t = 0; t < 4; t++)
	{
		bk_begin(&b, 1343);
		nb_tag(&b, SL_TAG_COMPOUND, "Level");
		nb_list(&b, "Sections", SL_TAG_COMPOUND, 1);
		nb_byte(&b, "Y", 1);
		nb_bytes(&b, "Blocks", bytes, t == 0 ? 4095 : 4096);
		if (t != 1)
			nb_bytes(&b, "Data", bytes, 2048);
		if (t == 2)
			nb_bytes(&b, "Add", bytes, 2049);
		if (t == 3)
			nb_ints(&b, "Add", (const int32_t *) idx, 512);
		nb_end(&b);
		nb_end(&b);
		nb_end(&b);
		CHECK(bk_open_fails(&b, SL_WANT_BLOCKS,
							t == 0 ? "section Y=1: Blocks has 4095 bytes, expected 4096" :
							t == 1 ? "section Y=1: Data is missing" :
							t == 2 ? "section Y=1: Add has 2049 bytes, expected 2048" :
							"section Y=1: Add is a int_array, not a byte array"));
	}

	/* McRegion arrays; Level.Biomes of odd lengths; mixed layouts */
	bk_begin(&b, -1);
	nb_tag(&b, SL_TAG_COMPOUND, "Level");
	nb_bytes(&b, "Blocks", bytes, 32768);
	nb_bytes(&b, "Data", bytes, 16383);
	nb_end(&b);
	nb_end(&b);
	CHECK(bk_open_fails(&b, SL_WANT_BLOCKS, "Level.Data has 16383 bytes, expected 16384"));

	bk_begin(&b, 2586);
	nb_tag(&b, SL_TAG_COMPOUND, "Level");
	nb_ints(&b, "Biomes", (const int32_t *) idx, 100);
	nb_end(&b);
	nb_end(&b);
	CHECK(bk_open_fails(&b, SL_WANT_BIOMES, "Level.Biomes has 100 ints"));
	CHECK_OK(bk_open(&b, SL_WANT_BLOCKS, &a, &c, &err), &err);
	sl_arena_free(&a);

	bk_begin(&b, 1343);
	nb_tag(&b, SL_TAG_COMPOUND, "Level");
	nb_bytes(&b, "Biomes", bytes, 255);
	nb_end(&b);
	nb_end(&b);
	CHECK(bk_open_fails(&b, SL_WANT_BIOMES, "Level.Biomes has 255 bytes, expected 256"));

	bk_begin(&b, 1343);
	nb_tag(&b, SL_TAG_COMPOUND, "Level");
	nb_list(&b, "Sections", SL_TAG_COMPOUND, 2);
	nb_byte(&b, "Y", 1);
	nb_bytes(&b, "Blocks", bytes, 4096);
	nb_bytes(&b, "Data", bytes, 2048);
	nb_end(&b);
	nb_byte(&b, "Y", 2);
	bk_palette(&b, "Palette", 1);
	nb_longs(&b, "BlockStates", longs, 256);
	nb_end(&b);
	nb_end(&b);
	nb_end(&b);
	CHECK(bk_open_fails(&b, SL_WANT_BLOCKS, "section 1 is flattened while others are anvil"));

	bk_begin(&b, 1343);
	nb_tag(&b, SL_TAG_COMPOUND, "Level");
	nb_list(&b, "Sections", SL_TAG_INT, 1);
	sl_buf_put_u32be(&b, 5, NULL);
	nb_end(&b);
	nb_end(&b);
	CHECK(bk_open_fails(&b, SL_WANT_BLOCKS, "Sections is a list of int, not of compounds"));

	sl_buf_free(&b);
}

/* Open, count and probe a document; any outcome but a crash is fine. */
static void
bk_exercise(const uint8_t *doc, size_t len)
{
	sl_arena	a = {0};
	sl_chunk_blocks c;
	sl_err		err = {0};
	bk_counts  *k = calloc(1, sizeof(bk_counts));

	if (sl_chunk_blocks_open(doc, len, SL_NO_DV, SL_WANT_BLOCKS | SL_WANT_BIOMES, NULL, &a, &c, &err) == 0)
	{
		if (sl_chunk_count_blocks(&c, bk_collect, k, &err) != 0)
			CHECK(err.msg[0] != '\0');
		sl_chunk_count_biomes(&c, bk_collect, k, &err);
		for (int i = 0; i < 8; i++)
			bk_at(&c, (int) (bk_rand() % 16), (int) (bk_rand() % 512) - 128, (int) (bk_rand() % 16));
	}
	else
		CHECK(err.msg[0] != '\0');
	CHECK(bk_scan_agrees(doc, len, NULL));
	sl_arena_free(&a);
	free(k);
}

void
test_blocks_mutations(void)
{
	static uint32_t idx[4096];
	static uint64_t longs[4096];
	static uint8_t bytes[4096];
	sl_buf		docs[3] = {{0}};
	uint8_t    *m;

	/* a 1.13 chunk, a 1.18 chunk with biomes, an Anvil chunk */
	bk_indices(idx, 40);
	bk_flat_doc(&docs[0], 1631, 40, longs, bk_pack(idx, 4096, 6, 1, longs));
	bk_begin(&docs[1], 2975);
	nb_list(&docs[1], "sections", SL_TAG_COMPOUND, 1);
	nb_byte(&docs[1], "Y", 0);
	nb_tag(&docs[1], SL_TAG_COMPOUND, "block_states");
	bk_palette(&docs[1], "palette", 40);
	nb_longs(&docs[1], "data", longs, bk_pack(idx, 4096, 6, 0, longs));
	nb_end(&docs[1]);
	nb_tag(&docs[1], SL_TAG_COMPOUND, "biomes");
	nb_list(&docs[1], "palette", SL_TAG_STRING, 2);
	nb_str(&docs[1], "minecraft:a");
	nb_str(&docs[1], "minecraft:b");
	nb_longs(&docs[1], "data", longs, 1);
	nb_end(&docs[1]);
	nb_end(&docs[1]);
	nb_end(&docs[1]);
	for (int i = 0; i < 4096; i++)
		bytes[i] = (uint8_t) bk_rand();
	bk_begin(&docs[2], 1343);
	nb_tag(&docs[2], SL_TAG_COMPOUND, "Level");
	nb_list(&docs[2], "Sections", SL_TAG_COMPOUND, 1);
	nb_byte(&docs[2], "Y", 0);
	nb_bytes(&docs[2], "Blocks", bytes, 4096);
	nb_bytes(&docs[2], "Add", bytes, 2048);
	nb_bytes(&docs[2], "Data", bytes + 2048, 2048);
	nb_end(&docs[2]);
	nb_bytes(&docs[2], "Biomes", bytes, 256);
	nb_end(&docs[2]);
	nb_end(&docs[2]);

	for (int d = 0; d < 3; d++)
	{
		m = malloc(docs[d].len);
		bk_exercise(docs[d].data, docs[d].len);
		for (int t = 0; t < 1000; t++)
		{
			int			flips = 1 + (int) (bk_rand() % 4);

			memcpy(m, docs[d].data, docs[d].len);
			for (int f = 0; f < flips; f++)
			{
				/* bias towards the headers, where the structure is */
				size_t		at = bk_rand() % 2 ? bk_rand() % (docs[d].len < 200 ? docs[d].len : 200) :
					bk_rand() % docs[d].len;

				m[at] = (uint8_t) bk_rand();
			}
			bk_exercise(m, docs[d].len);
		}
		free(m);
		sl_buf_free(&docs[d]);
	}
}

/* ---- the corpus's single-chunk files ---- */

void
test_blocks_corpus_chunks(void)
{
	static const struct
	{
		const char *file;
		sl_layout	layout;
		sl_biome_layout biomes;
	}			files[] = {
		{"chunk-nbt/fastnbt/1.12.chunk", SL_LAYOUT_ANVIL, SL_BIOMES_BYTE_2D},
		{"chunk-nbt/fastnbt/1.17.1.chunk", SL_LAYOUT_FLAT, SL_BIOMES_INT_3D},
		{"chunk-nbt/fastnbt/1.17.1-custom-heights.chunk", SL_LAYOUT_FLAT, SL_BIOMES_INT_3D},
		{"chunk-nbt/fastnbt/21w44a-test1.nbt", SL_LAYOUT_MODERN, SL_BIOMES_PALETTE},
		{"chunk-nbt/fastnbt/forge-1.20.1.nbt", SL_LAYOUT_MODERN, SL_BIOMES_PALETTE},
		{"chunk-nbt/fastnbt/etho-end-r.-6.-1.c.7.25.nbt", SL_LAYOUT_NONE, SL_BIOMES_INT_3D},
	};
	const char *dir = sl_test_corpus();

	if (dir == NULL)
	{
		fprintf(stderr, "CORPUS MISSING: set SLIME_CORPUS or provide ../shared/corpus\n");
		CHECK(0);
		return;
	}
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
	{
		char		path[4096];
		size_t		len = 0;
		uint8_t    *data;
		sl_arena	a = {0};
		sl_chunk_blocks c;
		sl_err		err = {0};
		bk_counts  *k = calloc(1, sizeof(bk_counts));
		int			sections = 0;

		snprintf(path, sizeof(path), "%s/%s", dir, files[i].file);
		data = sl_test_read_file(path, &len);
		CHECK(data != NULL);
		if (data == NULL)
		{
			fprintf(stderr, "CORPUS MISSING: %s\n", path);
			free(k);
			continue;
		}
		CHECK_OK(sl_chunk_blocks_open(data, len, SL_NO_DV, SL_WANT_BLOCKS | SL_WANT_BIOMES, NULL, &a, &c, &err), &err);
		CHECK(c.layout == files[i].layout);
		CHECK(c.biome_layout == files[i].biomes);
		for (int s = 0; s < c.nsections; s++)
			sections += c.sections[s].kind != 0;
		CHECK_OK(sl_chunk_count_blocks(&c, bk_collect, k, &err), &err);
		CHECK(k->total == (uint64_t) sections * 4096);
		CHECK(files[i].layout == SL_LAYOUT_NONE || bk_count_of(k, "minecraft:air") > 0);
		CHECK(files[i].layout == SL_LAYOUT_NONE || strcmp(bk_at(&c, 0, 0, 0), "") != 0);
		memset(k, 0, sizeof(*k));
		CHECK_OK(sl_chunk_count_biomes(&c, bk_collect, k, &err), &err);
		CHECK(k->total > 0);
		CHECK(bk_scan_agrees(data, len, NULL));
		sl_arena_free(&a);
		free(data);
		free(k);
	}
}
