/*
 * test_vsum.c - unit tests of the contents summary (sl_vsum): what a chunk
 * counts as, the canonical bytes and what decoding refuses, taking chunks
 * away, and values that carry one (written, kept by builders, damaged).
 */
#include "harness.h"
#include "nbt_build.h"
#include "sl_build.h"
#include "sl_codec.h"
#include "sl_value.h"
#include "sl_vsum.h"

/* A 1.20 chunk: one section, palette [air, <stone>, hopper[facing=down]], hoppers hoppers on layer 0. */
static void
vs_modern(sl_buf *b, int x, int z, const char *stone, int hoppers, const char *biome)
{
	uint64_t	data[256];

	memset(data, 0, sizeof(data));
	for (int i = 0; i < 16; i++)
		data[i] = 0x1111111111111111ULL;
	for (int h = 0; h < hoppers && h < 16; h++)
		data[0] = (data[0] & ~(0xFULL << (4 * h))) | (2ULL << (4 * h));
	b->len = 0;
	nb_tag(b, SL_TAG_COMPOUND, "");
	nb_int(b, "DataVersion", 3700);
	nb_int(b, "xPos", x);
	nb_int(b, "zPos", z);
	nb_list(b, "sections", SL_TAG_COMPOUND, 1);
	nb_byte(b, "Y", 0);
	nb_tag(b, SL_TAG_COMPOUND, "block_states");
	nb_list(b, "palette", SL_TAG_COMPOUND, 3);
	nb_string(b, "Name", "minecraft:air");
	nb_end(b);
	nb_string(b, "Name", stone);
	nb_end(b);
	nb_string(b, "Name", "minecraft:hopper");
	nb_tag(b, SL_TAG_COMPOUND, "Properties");
	nb_string(b, "facing", "down");
	nb_end(b);
	nb_end(b);
	nb_longs(b, "data", data, 256);
	nb_end(b);
	nb_tag(b, SL_TAG_COMPOUND, "biomes");
	nb_list(b, "palette", SL_TAG_STRING, 1);
	nb_str(b, biome);
	nb_end(b);
	nb_end(b);					/* the section */
	nb_list(b, "block_entities", SL_TAG_COMPOUND, (uint32_t) hoppers + 1);
	for (int h = 0; h < hoppers; h++)
	{
		nb_string(b, "id", "minecraft:hopper");
		nb_int(b, "x", x * 16 + h);
		nb_end(b);
	}
	nb_int(b, "x", 0);			/* a block entity without an id: not counted */
	nb_end(b);
	nb_end(b);
}

/* A 1.12 chunk: Blocks all stone (1) but one granite (1:1), Biomes all desert, a "Pig" and an id-less entity. */
static void
vs_legacy(sl_buf *b, int x, int z)
{
	uint8_t		blocks[4096],
				data[2048],
				biomes[256];

	memset(blocks, 1, sizeof(blocks));
	memset(data, 0, sizeof(data));
	data[0] = 1;
	memset(biomes, 2, sizeof(biomes));
	b->len = 0;
	nb_tag(b, SL_TAG_COMPOUND, "");
	nb_int(b, "DataVersion", 1343);
	nb_tag(b, SL_TAG_COMPOUND, "Level");
	nb_int(b, "xPos", x);
	nb_int(b, "zPos", z);
	nb_bytes(b, "Biomes", biomes, 256);
	nb_list(b, "Sections", SL_TAG_COMPOUND, 1);
	nb_byte(b, "Y", 0);
	nb_bytes(b, "Blocks", blocks, 4096);
	nb_bytes(b, "Data", data, 2048);
	nb_end(b);
	nb_list(b, "Entities", SL_TAG_COMPOUND, 2);
	nb_string(b, "id", "Pig");
	nb_end(b);
	nb_int(b, "Age", 0);
	nb_end(b);
	nb_list(b, "TileEntities", SL_TAG_COMPOUND, 1);
	nb_string(b, "id", "Chest");
	nb_end(b);
	nb_end(b);					/* Level */
	nb_end(b);
}

/* An entities/ document with two pigs. */
static void
vs_entities(sl_buf *b)
{
	b->len = 0;
	nb_tag(b, SL_TAG_COMPOUND, "");
	nb_int(b, "DataVersion", 3700);
	nb_list(b, "Entities", SL_TAG_COMPOUND, 2);
	nb_string(b, "id", "minecraft:pig");
	nb_end(b);
	nb_string(b, "id", "minecraft:pig");
	nb_end(b);
	nb_end(b);
}

/* Count one chunk of documents region (and entities, may be NULL) into s. */
static int
vs_count(sl_vsum *s, const sl_buf *region, const sl_buf *entities, int sign, sl_err *err)
{
	const uint8_t *comp[SL_NCOMP] = {region ? region->data : NULL, entities ? entities->data : NULL, NULL};
	uint32_t	len[SL_NCOMP] = {region ? (uint32_t) region->len : 0, entities ? (uint32_t) entities->len : 0, 0};

	return sl_vsum_chunk(s, SL_NO_DV, comp, len, sign, err);
}

/* What a chunk counts as: the block functions' names and counts, ids as written. */
void
test_vsum_counting(void)
{
	sl_buf		m = {0},
				l = {0},
				e = {0};
	sl_vsum		s;
	sl_err		err;

	memset(&s, 0, sizeof(s));
	vs_modern(&m, 0, 0, "stone", 3, "plains");	/* no namespace: read as minecraft's */
	vs_legacy(&l, 1, 0);
	vs_entities(&e);
	CHECK_OK(vs_count(&s, &m, &e, 1, &err), &err);
	CHECK_OK(vs_count(&s, &l, NULL, 1, &err), &err);
	/* blocks: air included, properties dropped, legacy ids named */
	CHECK(sl_counts_get(&s.c[SL_SUM_BLOCKS], "minecraft:air", 13) == 4096 - 256);
	CHECK(sl_counts_get(&s.c[SL_SUM_BLOCKS], "minecraft:stone", 15) == 256 - 3 + 4095);
	CHECK(sl_counts_get(&s.c[SL_SUM_BLOCKS], "minecraft:hopper", 16) == 3);
	CHECK(sl_counts_get(&s.c[SL_SUM_BLOCKS], "minecraft:granite", 17) == 1);
	CHECK(s.c[SL_SUM_BLOCKS].used == 4);
	/* biomes: 4x4x4 cells of a 1.18+ section, columns of a 2D array */
	CHECK(sl_counts_get(&s.c[SL_SUM_BIOMES], "minecraft:plains", 16) == 64);
	CHECK(sl_counts_get(&s.c[SL_SUM_BIOMES], "minecraft:desert", 16) == 256);
	/* block entities and entities by id as written; none without an id */
	CHECK(sl_counts_get(&s.c[SL_SUM_BLOCK_ENTITIES], "minecraft:hopper", 16) == 3);
	CHECK(sl_counts_get(&s.c[SL_SUM_BLOCK_ENTITIES], "Chest", 5) == 1);
	CHECK(s.c[SL_SUM_BLOCK_ENTITIES].used == 2);
	CHECK(sl_counts_get(&s.c[SL_SUM_ENTITIES], "minecraft:pig", 13) == 2);
	CHECK(sl_counts_get(&s.c[SL_SUM_ENTITIES], "Pig", 3) == 1);
	CHECK(s.c[SL_SUM_ENTITIES].used == 2);
	for (int k = 0; k < SL_SUM_KINDS; k++)
		CHECK(s.failed[k] == 0);
	/* taking the chunks away leaves nothing; taking one that is not there is an error */
	CHECK_OK(vs_count(&s, &l, NULL, -1, &err), &err);
	CHECK_OK(vs_count(&s, &m, &e, -1, &err), &err);
	for (int k = 0; k < SL_SUM_KINDS; k++)
		for (size_t i = 0; i < s.c[k].size; i++)
			CHECK(s.c[k].slots[i].hash == 0 || s.c[k].slots[i].count == 0);
	CHECK(vs_count(&s, &l, NULL, -1, &err) == -1 && err.code == SL_ERR_CORRUPT);
	sl_vsum_free(&s);
	sl_buf_free(&m);
	sl_buf_free(&l);
	sl_buf_free(&e);
}

/* A chunk whose blocks cannot be counted: one failed block count, the other tables counted. */
void
test_vsum_failed(void)
{
	sl_buf		m = {0};
	sl_vsum		s;
	sl_err		err;
	size_t		at;

	memset(&s, 0, sizeof(s));
	vs_modern(&m, 0, 0, "minecraft:stone", 1, "minecraft:plains");
	/* an index past the palette of 3: palette index 7 in the first long */
	for (at = 0; at + 8 < m.len && memcmp(m.data + at, "\x11\x11\x11\x11\x11\x11\x11\x12", 8) != 0; at++)
		;
	CHECK(at + 8 < m.len);
	m.data[at + 7] = 0x17;
	CHECK_OK(vs_count(&s, &m, NULL, 1, &err), &err);
	CHECK(s.failed[SL_SUM_BLOCKS] == 1 && s.c[SL_SUM_BLOCKS].used == 0);
	CHECK(s.failed[SL_SUM_BIOMES] == 0 && sl_counts_get(&s.c[SL_SUM_BIOMES], "minecraft:plains", 16) == 64);
	CHECK(sl_counts_get(&s.c[SL_SUM_BLOCK_ENTITIES], "minecraft:hopper", 16) == 1);
	/* NBT that does not parse: nothing of its region document counted */
	m.len = 7;
	CHECK_OK(vs_count(&s, &m, NULL, 1, &err), &err);
	for (int k = 0; k < SL_SUM_KINDS; k++)
		CHECK(s.failed[k] == (k == SL_SUM_BLOCKS ? 2u : 1u));
	sl_vsum_free(&s);
	sl_buf_free(&m);
}

/* Append a varint (the summary's). */
static void
vs_varint(sl_buf *b, uint64_t v)
{
	sl_err		err;

	sl_varint64_put(b, v, &err);
}

/* A summary of one block table entry list, the other tables empty: raw bytes. */
static void
vs_raw(sl_buf *b, int n, const char *const names[], const uint64_t counts[], const int shared[])
{
	b->len = 0;
	sl_buf_put_u8(b, SL_VSUM_VERSION, NULL);
	vs_varint(b, 0);
	vs_varint(b, (uint64_t) n);
	for (int i = 0; i < n; i++)
	{
		size_t		len = strlen(names[i]);

		vs_varint(b, (uint64_t) shared[i]);
		vs_varint(b, len - shared[i]);
		sl_buf_put(b, names[i] + shared[i], len - shared[i], NULL);
		vs_varint(b, counts[i]);
	}
	for (int k = 1; k < SL_SUM_KINDS; k++)
	{
		vs_varint(b, 0);
		vs_varint(b, 0);
	}
}

/* Decode raw bytes into a fresh summary: its result. */
static int
vs_decode(const sl_buf *b, sl_vsum *s, sl_err *err)
{
	memset(s, 0, sizeof(*s));
	return sl_vsum_decode(b->data, b->len, s, err);
}

/* Canonical bytes: encoding is a fixed point; anything else in the bytes is refused. */
void
test_vsum_bytes(void)
{
	static const char *const names[] = {"minecraft:air", "minecraft:stone", "minecraft:stone_slab"};
	static const uint64_t counts[] = {10, 20, 30};
	static const int shared[] = {0, 10, 15};
	sl_buf		raw = {0},
				again = {0};
	sl_vsum		s;
	sl_err		err;

	/* the empty summary */
	memset(&s, 0, sizeof(s));
	CHECK_OK(sl_vsum_encode(&s, &raw, &err), &err);
	CHECK(raw.len == 9 && raw.data[0] == SL_VSUM_VERSION);
	/* a front-coded table decodes and encodes again to the same bytes */
	vs_raw(&raw, 3, names, counts, shared);
	CHECK_OK(vs_decode(&raw, &s, &err), &err);
	CHECK(sl_counts_get(&s.c[SL_SUM_BLOCKS], "minecraft:stone_slab", 20) == 30);
	CHECK_OK(sl_vsum_encode(&s, &again, &err), &err);
	CHECK(again.len == raw.len && memcmp(again.data, raw.data, raw.len) == 0);
	sl_vsum_free(&s);
	/* zero counts are not written */
	CHECK_OK(vs_decode(&raw, &s, &err), &err);
	CHECK_OK(sl_counts_sub(&s.c[SL_SUM_BLOCKS], "minecraft:stone", 15, 20, &err), &err);
	again.len = 0;
	CHECK_OK(sl_vsum_encode(&s, &again, &err), &err);
	sl_vsum_free(&s);
	CHECK_OK(vs_decode(&again, &s, &err), &err);
	CHECK(s.c[SL_SUM_BLOCKS].used == 2);
	sl_vsum_free(&s);
	/* an empty name (a palette's empty Name counts too) decodes, counts and encodes again */
	{
		static const char *const empty[] = {"", "minecraft:air"};
		static const uint64_t c2[] = {7, 1};
		static const int s2[] = {0, 0};

		vs_raw(&raw, 2, empty, c2, s2);
		CHECK_OK(vs_decode(&raw, &s, &err), &err);
		CHECK(sl_counts_get(&s.c[SL_SUM_BLOCKS], "", 0) == 7);
		again.len = 0;
		CHECK_OK(sl_vsum_encode(&s, &again, &err), &err);
		CHECK(again.len == raw.len && memcmp(again.data, raw.data, raw.len) == 0);
		sl_vsum_free(&s);
	}
	/* refused: out of order, a repeat, a shared part shorter than it can be, a count of 0 */
	{
		static const char *const swapped[] = {"minecraft:stone", "minecraft:air"};
		static const char *const twice[] = {"minecraft:air", "minecraft:air"};
		static const uint64_t c2[] = {1, 1};
		static const int s2[] = {0, 10};
		static const int s_twice[] = {0, 13};
		static const int short_shared[] = {0, 9};
		static const char *const ok2[] = {"minecraft:air", "minecraft:stone"};
		static const uint64_t zero[] = {1, 0};

		vs_raw(&raw, 2, swapped, c2, s2);
		CHECK(vs_decode(&raw, &s, &err) == -1 && strstr(err.msg, "out of order"));
		sl_vsum_free(&s);
		vs_raw(&raw, 2, twice, c2, s_twice);
		CHECK(vs_decode(&raw, &s, &err) == -1 && strstr(err.msg, "out of order"));
		sl_vsum_free(&s);
		vs_raw(&raw, 2, ok2, c2, short_shared);
		CHECK(vs_decode(&raw, &s, &err) == -1 && strstr(err.msg, "front-coded"));
		sl_vsum_free(&s);
		vs_raw(&raw, 2, ok2, zero, s2);
		CHECK(vs_decode(&raw, &s, &err) == -1 && strstr(err.msg, "count 0"));
		sl_vsum_free(&s);
		vs_raw(&raw, 2, ok2, c2, s2);
		CHECK_OK(vs_decode(&raw, &s, &err), &err);
		sl_vsum_free(&s);
	}
	/* refused: another version, a byte left over, every cut short */
	vs_raw(&raw, 3, names, counts, shared);
	raw.data[0] = 2;
	CHECK(vs_decode(&raw, &s, &err) == -1 && err.code == SL_ERR_CORRUPT);
	sl_vsum_free(&s);
	raw.data[0] = SL_VSUM_VERSION;
	sl_buf_put_u8(&raw, 0, &err);
	CHECK(vs_decode(&raw, &s, &err) == -1 && strstr(err.msg, "stray"));
	sl_vsum_free(&s);
	raw.len--;
	for (size_t cut = 0; cut < raw.len; cut++)
	{
		sl_buf		part = {raw.data, cut, cut};

		CHECK(vs_decode(&part, &s, &err) == -1 && err.code == SL_ERR_CORRUPT);
		sl_vsum_free(&s);
	}
	/* one table read alone: the tables before it are stepped over, a failed count adds nothing */
	{
		sl_counts	m = {0};
		uint64_t	failed;

		CHECK_OK(sl_vsum_decode_table(raw.data, raw.len, SL_SUM_BLOCKS, &m, &failed, &err), &err);
		CHECK(failed == 0 && m.used == 3);
		sl_counts_free(&m);
		raw.data[1] = 1;		/* blocks: one chunk not counted */
		CHECK_OK(sl_vsum_decode_table(raw.data, raw.len, SL_SUM_BLOCKS, &m, &failed, &err), &err);
		CHECK(failed == 1 && m.used == 0);
		CHECK_OK(sl_vsum_decode_table(raw.data, raw.len, SL_SUM_ENTITIES, &m, &failed, &err), &err);
		CHECK(failed == 0 && m.used == 0);
		sl_counts_free(&m);
	}
	sl_buf_free(&raw);
	sl_buf_free(&again);
}

/* Chunks of a little world: two 1.20 chunks (one with entities), a 1.12 one. */
typedef struct vs_world
{
	sl_buf		doc[4];
	sl_chunk_src src[3];
} vs_world;

/* Build the world's documents and chunk sources. */
static void
vs_world_make(vs_world *w)
{
	memset(w, 0, sizeof(*w));
	vs_modern(&w->doc[0], 0, 0, "minecraft:stone", 2, "minecraft:plains");
	vs_entities(&w->doc[1]);
	vs_modern(&w->doc[2], 1, 0, "minecraft:deepslate", 1, "minecraft:lush_caves");
	vs_legacy(&w->doc[3], 2, 0);
	for (int i = 0; i < 3; i++)
	{
		w->src[i].x = i;
		w->src[i].data_version = i == 2 ? 1343 : 3700;
	}
	w->src[0].comp[0] = w->doc[0].data;
	w->src[0].len[0] = (uint32_t) w->doc[0].len;
	w->src[0].comp[1] = w->doc[1].data;
	w->src[0].len[1] = (uint32_t) w->doc[1].len;
	w->src[1].comp[0] = w->doc[2].data;
	w->src[1].len[0] = (uint32_t) w->doc[2].len;
	w->src[2].comp[0] = w->doc[3].data;
	w->src[2].len[0] = (uint32_t) w->doc[3].len;
}

/* Free the world's documents. */
static void
vs_world_free(vs_world *w)
{
	for (int i = 0; i < 4; i++)
		sl_buf_free(&w->doc[i]);
}

/* The summary of a value in memory (it must have one) into s. */
static int
vs_summary(const sl_buf *val, sl_vsum *s, sl_err *err)
{
	sl_value	v;
	int			rc;

	memset(s, 0, sizeof(*s));
	if (sl_value_open_mem(&v, val->data, val->len, NULL, err))
		return -1;
	rc = sl_value_read_summary(&v, s, err);
	sl_value_close(&v);
	return rc;
}

/* A value's summary equals its chunks counted again. */
static int
vs_matches(const sl_buf *val)
{
	sl_value	v;
	sl_err		err;
	int			rc;

	if (sl_value_open_mem(&v, val->data, val->len, NULL, &err))
		return 0;
	rc = sl_value_has_summary(&v) && sl_value_check_summary(&v, &err) == 0;
	sl_value_close(&v);
	return rc;
}

/* Values written carry the summary of their chunks, at every level; versions 1 and 2 and no_summary none. */
void
test_vsum_values(void)
{
	vs_world	w;
	sl_buf		val = {0};
	sl_vsum		s;
	sl_err		err;
	int			levels[] = {1, 3, 19, 20};

	vs_world_make(&w);
	for (int i = 0; i < 4; i++)
	{
		sl_encode_opts o = sl_default_encode_opts;

		o.level = levels[i];
		val.len = 0;
		CHECK_OK(sl_value_encode(w.src, 3, NULL, 0, &o, NULL, &val, &err), &err);
		CHECK(vs_matches(&val));
		CHECK_OK(sl_value_verify(val.data, val.len, NULL, &err), &err);
	}
	CHECK_OK(vs_summary(&val, &s, &err), &err);
	CHECK(sl_counts_get(&s.c[SL_SUM_BLOCKS], "minecraft:hopper", 16) == 3);
	CHECK(sl_counts_get(&s.c[SL_SUM_BIOMES], "minecraft:lush_caves", 20) == 64);
	CHECK(sl_counts_get(&s.c[SL_SUM_ENTITIES], "minecraft:pig", 13) == 2);
	sl_vsum_free(&s);
	for (int version = 1; version <= 3; version++)
	{
		sl_encode_opts o = sl_default_encode_opts;
		sl_value	v;

		o.version = version;
		o.no_summary = version == 3;
		val.len = 0;
		CHECK_OK(sl_value_encode(w.src, 3, NULL, 0, &o, NULL, &val, &err), &err);
		CHECK_OK(sl_value_open_mem(&v, val.data, val.len, NULL, &err), &err);
		CHECK(!sl_value_has_summary(&v));
		CHECK(sl_value_read_summary(&v, &s, &err) == -1);
		CHECK(sl_value_check_summary(&v, &err) == 0);
		sl_value_close(&v);
	}
	/* the same chunks in any order: the same bytes */
	{
		sl_chunk_src rev[3] = {w.src[2], w.src[0], w.src[1]};
		sl_buf		again = {0};

		val.len = 0;
		CHECK_OK(sl_value_encode(w.src, 3, NULL, 0, NULL, NULL, &val, &err), &err);
		CHECK_OK(sl_value_encode(rev, 3, NULL, 0, NULL, NULL, &again, &err), &err);
		CHECK(again.len == val.len && memcmp(again.data, val.data, val.len) == 0);
		sl_buf_free(&again);
	}
	sl_buf_free(&val);
	vs_world_free(&w);
}

/* Builders keep the summary of the values they are given, less and plus what changes. */
void
test_vsum_builders(void)
{
	vs_world	w;
	sl_buf		val = {0},
				out = {0},
				want = {0},
				extra = {0};
	sl_builder	b;
	sl_value	v;
	sl_err		err;

	vs_world_make(&w);
	CHECK_OK(sl_value_encode(w.src, 3, NULL, 0, NULL, NULL, &val, &err), &err);
	CHECK_OK(sl_value_open_mem(&v, val.data, val.len, NULL, &err), &err);

	/* every chunk as a reference: the summary is the value's, though nothing can be counted */
	memset(&b, 0, sizeof(b));
	CHECK_OK(sl_builder_add_value(&b, &v, SL_ADD_REFS, &err), &err);
	CHECK(b.sum != NULL);
	CHECK_OK(sl_builder_encode(&b, NULL, NULL, &out, &err), &err);
	sl_builder_free(&b);
	{
		sl_vsum		a,
					c;

		CHECK_OK(vs_summary(&val, &a, &err), &err);
		CHECK_OK(vs_summary(&out, &c, &err), &err);
		CHECK(sl_vsum_equal(&a, &c, &err));
		sl_vsum_free(&a);
		sl_vsum_free(&c);
	}

	/* a chunk replaced by hand: taken away before, added after */
	memset(&b, 0, sizeof(b));
	CHECK_OK(sl_builder_add_value(&b, &v, SL_ADD_KEEP, &err), &err);
	b.sum_manual = 1;
	CHECK_OK(sl_builder_sum_pieces(&b, 1, 0, -1, NULL, &err), &err);
	sl_builder_remove(&b, 1, 0, -1);
	vs_modern(&extra, 1, 0, "minecraft:gold_block", 4, "minecraft:desert");
	CHECK_OK(sl_builder_add(&b, SL_COMP_REGION, 1, 0, 0, extra.data, extra.len, 0, &err), &err);
	CHECK_OK(sl_builder_sum_pieces(&b, 1, 0, 1, NULL, &err), &err);
	out.len = 0;
	CHECK_OK(sl_builder_encode(&b, NULL, NULL, &out, &err), &err);
	sl_builder_free(&b);
	CHECK(vs_matches(&out));
	/* the same chunks counted from scratch: the same bytes */
	w.src[1].comp[0] = extra.data;
	w.src[1].len[0] = (uint32_t) extra.len;
	CHECK_OK(sl_value_encode(w.src, 3, NULL, 0, NULL, NULL, &want, &err), &err);
	CHECK(want.len == out.len && memcmp(want.data, out.data, out.len) == 0);

	/* a change the builder was not told of loses the summary: counted at encode (all inline) */
	memset(&b, 0, sizeof(b));
	CHECK_OK(sl_builder_add_value(&b, &v, SL_ADD_KEEP, &err), &err);
	sl_builder_remove(&b, 1, 0, -1);
	CHECK(b.sum == NULL && b.sum_lost);
	CHECK_OK(sl_builder_add(&b, SL_COMP_REGION, 1, 0, 0, extra.data, extra.len, 0, &err), &err);
	out.len = 0;
	CHECK_OK(sl_builder_encode(&b, NULL, NULL, &out, &err), &err);
	sl_builder_free(&b);
	CHECK(want.len == out.len && memcmp(want.data, out.data, out.len) == 0);

	/* ... and with references in it, none is written */
	memset(&b, 0, sizeof(b));
	CHECK_OK(sl_builder_add_value(&b, &v, SL_ADD_REFS, &err), &err);
	sl_builder_remove(&b, 2, 0, -1);
	out.len = 0;
	CHECK_OK(sl_builder_encode(&b, NULL, NULL, &out, &err), &err);
	sl_builder_free(&b);
	{
		sl_value	o;

		CHECK_OK(sl_value_open_mem(&o, out.data, out.len, NULL, &err), &err);
		CHECK(!sl_value_has_summary(&o));
		sl_value_close(&o);
	}

	/* a summary kept that does not hold a chunk taken away: an error, not a wrong summary */
	memset(&b, 0, sizeof(b));
	CHECK_OK(sl_builder_add_value(&b, &v, SL_ADD_KEEP, &err), &err);
	b.sum_manual = 1;
	CHECK_OK(sl_builder_sum_pieces(&b, 1, 0, -1, NULL, &err), &err);
	CHECK(sl_builder_sum_pieces(&b, 1, 0, -1, NULL, &err) == -1 && err.code == SL_ERR_CORRUPT);
	sl_builder_free(&b);

	sl_value_close(&v);
	sl_buf_free(&val);
	sl_buf_free(&out);
	sl_buf_free(&want);
	sl_buf_free(&extra);
	vs_world_free(&w);
}

/* Set a v3 value's metadata CRC to match its bytes again (a forger's step). */
static void
vs_reseal(sl_buf *val)
{
	sl_header	h;
	sl_err		err;

	if (sl_header_parse(val->data, val->len, val->len, &h, &err))
		return;
	sl_put_u32le(val->data + 8, 0);
	sl_put_u32le(val->data + 8, sl_crc32(0, val->data, h.payload_offset));
}

/* Find the offset of the value's summary section. */
static size_t
vs_summary_at(const sl_buf *val)
{
	sl_value	v;
	sl_err		err;
	size_t		at = 0;

	if (sl_value_open_mem(&v, val->data, val->len, NULL, &err) == 0)
	{
		at = v.hdr.sum_offset;
		sl_value_close(&v);
	}
	return at;
}

/*
 * A damaged summary: every byte flipped is refused by the header checksum;
 * flipped with the checksum set again (forged), it is refused when read, or
 * reads as the summary it was (the same counts), or slime_verify's count
 * finds it differs from the chunks - never silently other counts.
 */
void
test_vsum_damage(void)
{
	vs_world	w;
	sl_buf		val = {0};
	sl_vsum		orig;
	sl_err		err;
	size_t		at,
				len;
	sl_value	v;

	vs_world_make(&w);
	CHECK_OK(sl_value_encode(w.src, 3, NULL, 0, NULL, NULL, &val, &err), &err);
	CHECK_OK(vs_summary(&val, &orig, &err), &err);
	at = vs_summary_at(&val);
	CHECK_OK(sl_value_open_mem(&v, val.data, val.len, NULL, &err), &err);
	len = v.hdr.sum_len;
	sl_value_close(&v);
	CHECK(at > SL_HEADER3_FIXED && len > 0);
	for (size_t i = at; i < at + len; i += sl_test_cut_step(i - at))
		for (int bit = 0; bit < 8; bit++)
		{
			sl_vsum		s;
			int			rc;

			val.data[i] ^= (uint8_t) (1 << bit);
			CHECK(sl_value_check(val.data, val.len, 0, NULL, &err) == -1 && strstr(err.msg, "checksum"));
			/* forged: the checksum set again */
			vs_reseal(&val);
			memset(&s, 0, sizeof(s));
			rc = sl_value_open_mem(&v, val.data, val.len, NULL, &err);
			if (rc == 0)
			{
				rc = sl_value_read_summary(&v, &s, &err);
				if (rc == 0 && !sl_vsum_equal(&s, &orig, &err))
					CHECK(sl_value_check_summary(&v, &err) == -1 && err.code == SL_ERR_CORRUPT);
				sl_value_close(&v);
			}
			sl_vsum_free(&s);
			val.data[i] ^= (uint8_t) (1 << bit);
			vs_reseal(&val);
		}
	CHECK_OK(sl_value_verify(val.data, val.len, NULL, &err), &err);
	sl_vsum_free(&orig);
	sl_buf_free(&val);
	vs_world_free(&w);
}
