/*
 * test_slimefile.c - unit tests of sl_slimefile: hand-built files of every
 * layout family (slimefile_gen.h) read into chunk NBT and checked field by
 * field; version 13 written and read back byte for byte; malformed files
 * (truncation at every byte of the file and of its chunk data, bad magic,
 * lengths past the end, zstd size lies, counts too large) each an error
 * naming the offset and the field; worlds version 13 cannot hold.
 */
#include "harness.h"

#include "sl_blocks.h"
#include "sl_build.h"
#include "sl_chunk.h"
#include "sl_nbt.h"
#include "sl_slimefile.h"
#include "sl_value.h"

#include "slimefile_gen.h"

/* ---- helpers ---- */

/* A file read into an encoded value (0) or the error (-1). */
static int
read_file(const uint8_t *file, size_t len, sl_buf *value, sl_slimefile_info *info, sl_err *err)
{
	sl_builder	b;
	int			rc;

	memset(&b, 0, sizeof(b));
	value->len = 0;
	rc = sl_slimefile_read(file, len, NULL, &b, info, err);
	if (rc == 0)
		rc = sl_builder_encode(&b, NULL, NULL, value, err);
	sl_builder_free(&b);
	return rc;
}

/* An open value with chunk trees at hand. */
typedef struct tv
{
	sl_buf		bytes;
	sl_value	v;
	sl_arena	a;
	sl_slimefile_info info;
} tv;

static int
tv_read(tv *t, const sfg_file *f)
{
	sl_buf		file = {0};
	sl_err		err;
	int			rc;

	memset(t, 0, sizeof(*t));
	sfg_assemble(f, SIZE_MAX, &file);
	rc = read_file(file.data, file.len, &t->bytes, &t->info, &err);
	if (rc)
		fprintf(stderr, "read v%d: %s\n", f->version, err.msg);
	else if (sl_value_verify(t->bytes.data, t->bytes.len, NULL, &err) ||
			 sl_value_open_mem(&t->v, t->bytes.data, t->bytes.len, NULL, &err))
	{
		fprintf(stderr, "verify: %s\n", err.msg);
		rc = -1;
	}
	sl_buf_free(&file);
	return rc;
}

static void
tv_free(tv *t)
{
	sl_value_close(&t->v);
	sl_arena_free(&t->a);
	sl_buf_free(&t->bytes);
}

/* The tree of component k of chunk (x,z), or NULL. */
static sl_nbt *
tv_chunk(tv *t, int32_t x, int32_t z, int k)
{
	int64_t		i = sl_value_find(&t->v, x, z);
	sl_dirent	d;
	const uint8_t *comp[SL_NCOMP];
	sl_err		err;
	sl_nbt	   *root;
	size_t		used;
	uint8_t    *copy;

	if (i < 0 || sl_value_chunk(&t->v, (uint32_t) i, &d, comp, &err) || d.len[k] == 0)
		return NULL;
	copy = sl_arena_alloc(&t->a, d.len[k], &err);
	memcpy(copy, comp[k], d.len[k]);
	if (sl_nbt_parse(copy, d.len[k], NULL, &t->a, &root, &used, &err))
		return NULL;
	return root;
}

/* The world compound's "slime" compound. */
static sl_nbt *
tv_world(tv *t)
{
	const uint8_t *w;
	size_t		len,
				used;
	sl_err		err;
	sl_nbt	   *root;
	uint8_t    *copy;

	if (sl_value_world(&t->v, &w, &len, &err) || len == 0)
		return NULL;
	copy = sl_arena_alloc(&t->a, len, &err);
	memcpy(copy, w, len);
	if (sl_nbt_parse(copy, len, NULL, &t->a, &root, &used, &err))
		return NULL;
	return (sl_nbt *) sl_nbt_child(root, "slime");
}

/* A child by a path of names ("Level", "Sections", ...). */
static const sl_nbt *
at(const sl_nbt *n, const char *a, const char *b)
{
	n = sl_nbt_child(n, a);
	return b ? sl_nbt_child(n, b) : n;
}

static int64_t
int_of(const sl_nbt *n)
{
	return n && n->type >= SL_TAG_BYTE && n->type <= SL_TAG_LONG ? n->v.i : -999999;
}

static uint32_t
count_of(const sl_nbt *n)
{
	if (n == NULL)
		return 0;
	return n->type == SL_TAG_LIST ? n->v.list.count :
		n->type == SL_TAG_COMPOUND ? n->v.comp.count : n->v.arr.count;
}

/* Whether a string tag holds s. */
static int
str_is(const sl_nbt *n, const char *s)
{
	return n && n->type == SL_TAG_STRING && n->v.str.len == strlen(s) &&
		memcmp(n->v.str.s, s, strlen(s)) == 0;
}

/* Whether a byte array is n bytes of v. */
static int
filled(const sl_nbt *n, int v, uint32_t count)
{
	if (n == NULL || n->type != SL_TAG_BYTE_ARRAY || n->v.arr.count != count)
		return 0;
	for (uint32_t i = 0; i < count; i++)
		if (n->v.arr.data[i] != (uint8_t) v)
			return 0;
	return 1;
}

/* Section i of a list. */
static const sl_nbt *
item(const sl_nbt *list, uint32_t i)
{
	return list && list->type == SL_TAG_LIST && i < list->v.list.count ? list->v.list.items[i] : NULL;
}

/* Blocks of a chunk counted by name (the first matching name's count). */
typedef struct want_count
{
	const char *name;
	uint64_t	count;
} want_count;

static int
count_cb(void *ctx, const char *name, size_t len, size_t base_len, uint64_t count,
		 int fallback, sl_err *err)
{
	want_count *w = ctx;

	if (len == strlen(w->name) && memcmp(name, w->name, len) == 0)
		w->count += count;
	return 0;
}

static uint64_t
blocks_named(tv *t, int32_t x, int32_t z, const char *name)
{
	int64_t		i = sl_value_find(&t->v, x, z);
	sl_dirent	d;
	const uint8_t *comp[SL_NCOMP];
	sl_err		err;
	sl_arena	a = {0};
	sl_chunk_blocks cb;
	want_count	w = {name, 0};

	if (i < 0 || sl_value_chunk(&t->v, (uint32_t) i, &d, comp, &err) ||
		sl_chunk_blocks_open(comp[0], d.len[0], d.data_version, SL_WANT_BLOCKS, NULL, &a, &cb, &err) ||
		sl_chunk_count_blocks(&cb, count_cb, &w, &err))
	{
		fprintf(stderr, "blocks of (%d,%d): %s\n", x, z, err.msg);
		w.count = UINT64_MAX;
	}
	sl_arena_free(&a);
	return w.count;
}

/* Write a read value as version 13: 0, or the error. */
static int
write13(tv *t, sl_buf *out, sl_err *err)
{
	out->len = 0;
	return sl_slimefile_write(&t->v, 3, NULL, out, NULL, err);
}

/* ---- families ---- */

void
test_slimefile_v3(void)
{
	sfg_file	f;
	tv			t;
	const sl_nbt *lvl,
			   *secs,
			   *w;
	sl_buf		out = {0};
	sl_err		err;

	sfg_v3(&f);
	CHECK(tv_read(&t, &f) == 0);
	CHECK(t.info.version == 3 && t.info.chunks == 2 && t.info.block_entities == 1 &&
		  t.info.entities == 1 && t.info.orphan_entities == 1);
	CHECK(t.info.data_version == SL_NO_DV && t.info.world_version == -1);
	lvl = at(tv_chunk(&t, -1, 2, SL_COMP_REGION), "Level", NULL);
	CHECK(lvl != NULL);
	CHECK(sl_nbt_child(tv_chunk(&t, -1, 2, SL_COMP_REGION), "DataVersion") == NULL);
	CHECK(int_of(at(lvl, "xPos", NULL)) == -1 && int_of(at(lvl, "zPos", NULL)) == 2);
	secs = at(lvl, "Sections", NULL);
	CHECK(count_of(secs) == 2);
	CHECK(int_of(at(item(secs, 0), "Y", NULL)) == 0 && int_of(at(item(secs, 1), "Y", NULL)) == 3);
	CHECK(filled(at(item(secs, 0), "Blocks", NULL), 1, 4096));
	CHECK(filled(at(item(secs, 1), "Blocks", NULL), 4, 4096));
	CHECK(filled(at(item(secs, 0), "Data", NULL), 0, 2048));
	CHECK(filled(at(item(secs, 0), "BlockLight", NULL), 0x0F, 2048));
	CHECK(filled(at(item(secs, 0), "SkyLight", NULL), 0xF0, 2048));
	CHECK(at(item(secs, 0), "HypixelBlocks3", NULL) == NULL);
	CHECK(count_of(at(item(secs, 1), "HypixelBlocks3", NULL)) == 3);
	CHECK(filled(at(lvl, "Biomes", NULL), 1, 256));
	CHECK(count_of(at(lvl, "HeightMap", NULL)) == 256);
	CHECK(count_of(at(lvl, "TileEntities", NULL)) == 1);
	CHECK(str_is(at(item(at(lvl, "TileEntities", NULL), 0), "id", NULL), "Chest"));
	CHECK(count_of(at(lvl, "Entities", NULL)) == 1);	/* the pig: floor(-0.5) = -1 */
	CHECK(count_of(at(at(tv_chunk(&t, 0, 2, SL_COMP_REGION), "Level", NULL), "Entities", NULL)) == 0);
	CHECK(blocks_named(&t, -1, 2, "minecraft:stone") == 4096);
	CHECK(blocks_named(&t, -1, 2, "minecraft:cobblestone") == 4096);
	CHECK(blocks_named(&t, 0, 2, "minecraft:stone") == 4096);
	w = tv_world(&t);
	CHECK(int_of(at(w, "version", NULL)) == 3);
	CHECK(at(w, "worldVersion", NULL) == NULL && at(w, "DataVersion", NULL) == NULL);
	CHECK(count_of(at(w, "bounds", NULL)) == 4);
	CHECK(int_of(at(w, "extra", "foo")) == 1);
	CHECK(count_of(at(w, "orphanEntities", NULL)) == 1);
	/* pre-1.18 chunks cannot be version 13 */
	CHECK(write13(&t, &out, &err) != 0 && err.code == SL_ERR_UNSUPPORTED &&
		  strstr(err.msg, "chunk (") != NULL);
	sl_buf_free(&out);
	tv_free(&t);
	sfg_free(&f);
}

void
test_slimefile_v9(void)
{
	sfg_file	f;
	tv			t;
	const sl_nbt *root,
			   *lvl,
			   *sec,
			   *w;
	sl_buf		out = {0};
	sl_err		err;

	/* world version 4: 1.13 palettes */
	sfg_v9_113(&f);
	CHECK(tv_read(&t, &f) == 0);
	CHECK(t.info.version == 9 && t.info.world_version == 4 && t.info.data_version == 1631 &&
		  t.info.chunks == 1);
	root = tv_chunk(&t, 5, -3, SL_COMP_REGION);
	CHECK(int_of(at(root, "DataVersion", NULL)) == 1631);
	lvl = at(root, "Level", NULL);
	sec = item(at(lvl, "Sections", NULL), 0);
	CHECK(int_of(at(sec, "Y", NULL)) == 1);
	CHECK(count_of(at(sec, "Palette", NULL)) == 2);
	CHECK(count_of(at(sec, "BlockStates", NULL)) == 256);
	CHECK(filled(at(sec, "BlockLight", NULL), 7, 2048) && at(sec, "SkyLight", NULL) == NULL);
	CHECK(count_of(at(lvl, "Biomes", NULL)) == 256 && at(lvl, "Biomes", NULL)->type == SL_TAG_INT_ARRAY);
	CHECK(count_of(at(lvl, "Heightmaps", "MOTION_BLOCKING")) == 36);
	CHECK(blocks_named(&t, 5, -3, "minecraft:stone") == 2048);
	CHECK(blocks_named(&t, 5, -3, "minecraft:air") == 2048);
	w = tv_world(&t);
	CHECK(int_of(at(w, "worldVersion", NULL)) == 4 && int_of(at(w, "DataVersion", NULL)) == 1631);
	CHECK(count_of(at(w, "maps", "maps")) == 1);
	CHECK(str_is(at(w, "extra", "note"), "v9"));
	CHECK(write13(&t, &out, &err) != 0 && err.code == SL_ERR_UNSUPPORTED);
	tv_free(&t);
	sfg_free(&f);

	/* world version 8: ASWM's 1.18 sections, which version 13 can hold */
	sfg_v9_118(&f);
	CHECK(tv_read(&t, &f) == 0);
	CHECK(t.info.data_version == 2975 && t.info.block_entities == 1);
	root = tv_chunk(&t, 0, 0, SL_COMP_REGION);
	CHECK(at(root, "Level", NULL) == NULL && int_of(at(root, "yPos", NULL)) == -4);
	sec = item(at(root, "sections", NULL), 0);
	CHECK(int_of(at(sec, "Y", NULL)) == 0);
	CHECK(filled(at(sec, "SkyLight", NULL), 0x0E, 2048) && at(sec, "BlockLight", NULL) == NULL);
	CHECK(count_of(at(root, "block_entities", NULL)) == 1);
	CHECK(int_of(at(root, "slime", "maxSectionY")) == 20);
	CHECK(blocks_named(&t, 0, 0, "minecraft:stone") == 4096);
	CHECK_OK(write13(&t, &out, &err), &err);
	{
		tv			t2;
		sl_nbt	   *r2;

		memset(&t2, 0, sizeof(t2));
		CHECK_OK(read_file(out.data, out.len, &t2.bytes, &t2.info, &err), &err);
		CHECK(sl_value_open_mem(&t2.v, t2.bytes.data, t2.bytes.len, NULL, &err) == 0);
		r2 = tv_chunk(&t2, 0, 0, SL_COMP_REGION);
		CHECK(int_of(at(item(at(r2, "sections", NULL), 0), "Y", NULL)) == 0);
		CHECK(blocks_named(&t2, 0, 0, "minecraft:stone") == 4096);
		CHECK(t2.info.version == 13 && t2.info.data_version == 2975);
		tv_free(&t2);
	}
	sl_buf_free(&out);
	tv_free(&t);
	sfg_free(&f);
}

void
test_slimefile_v4_v8(void)
{
	for (int version = 4; version <= 8; version++)
	{
		sfg_file	f;
		tv			t;
		const sl_nbt *root,
				   *sec,
				   *w;

		sfg_old(&f, version);
		CHECK(tv_read(&t, &f) == 0);
		root = tv_chunk(&t, 2, 3, SL_COMP_REGION);
		sec = item(at(at(root, "Level", NULL), "Sections", NULL), 0);
		CHECK(filled(at(sec, "BlockLight", NULL), 0x0A, 2048));
		CHECK(version >= 5 ? at(sec, "SkyLight", NULL) == NULL : filled(at(sec, "SkyLight", NULL), 0x0B, 2048));
		CHECK(filled(at(at(root, "Level", NULL), "Biomes", NULL), 3, 256));
		CHECK(int_of(at(root, "DataVersion", NULL)) == (version >= 6 ? 184 : -999999));
		CHECK(blocks_named(&t, 2, 3, "minecraft:grass_block[snowy=false]") == 4096);
		w = tv_world(&t);
		CHECK(int_of(at(w, "version", NULL)) == version);
		CHECK(int_of(at(w, "worldVersion", NULL)) == (version >= 6 ? 2 : 1));
		CHECK(at(w, "extra", NULL) == NULL && at(w, "maps", NULL) == NULL);
		if (sl_test_failures)
			fprintf(stderr, "  (version %d)\n", version);
		tv_free(&t);
		sfg_free(&f);
	}
}

void
test_slimefile_v10(void)
{
	sfg_file	f;
	tv			t;
	const sl_nbt *root,
			   *secs;

	sfg_v10(&f);
	CHECK(tv_read(&t, &f) == 0);
	CHECK(t.info.version == 10 && t.info.data_version == 3120 && t.info.chunks == 2);
	CHECK(t.info.block_entities == 1 && t.info.entities == 1 && t.info.orphan_entities == 0);
	root = tv_chunk(&t, -1, 0, SL_COMP_REGION);
	CHECK(int_of(at(root, "DataVersion", NULL)) == 3120 && int_of(at(root, "yPos", NULL)) == -4);
	CHECK(count_of(at(root, "block_entities", NULL)) == 1);
	secs = at(root, "sections", NULL);
	CHECK(count_of(secs) == 2);
	CHECK(int_of(at(item(secs, 0), "Y", NULL)) == -4 && int_of(at(item(secs, 1), "Y", NULL)) == -3);
	CHECK(filled(at(item(secs, 0), "BlockLight", NULL), 0x11, 2048));
	CHECK(filled(at(item(secs, 1), "SkyLight", NULL), 0x22, 2048));
	CHECK(blocks_named(&t, -1, 0, "minecraft:dirt") == 4096);
	/* the pig at x = -0.5: v10 takes (int) -0.5 = 0, chunk 0 */
	CHECK(tv_chunk(&t, -1, 0, SL_COMP_ENTITIES) == NULL);
	root = tv_chunk(&t, 0, 0, SL_COMP_ENTITIES);
	CHECK(count_of(at(root, "Entities", NULL)) == 1 && int_of(at(root, "DataVersion", NULL)) == 3120);
	CHECK(count_of(at(root, "Position", NULL)) == 2);
	CHECK(int_of(at(tv_world(&t), "extra", NULL) ? at(at(tv_world(&t), "extra", "properties"), "spawnX", NULL) : NULL) == 8);
	tv_free(&t);
	sfg_free(&f);

	/* the second chunk moved onto the first: a format error at its x, not a lost entity */
	{
		static const uint8_t second[] = {0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0};
		sl_buf		file = {0},
					value = {0};
		sl_err		err;
		sl_slimefile_info info;
		size_t		at = 4;

		sfg_v10(&f);
		while (at + sizeof(second) <= f.chunks.len && memcmp(f.chunks.data + at, second, sizeof(second)) != 0)
			at++;
		CHECK(at + sizeof(second) <= f.chunks.len);
		memset(f.chunks.data + at, 0, 4);
		sfg_assemble(&f, SIZE_MAX, &file);
		CHECK(read_file(file.data, file.len, &value, &info, &err) != 0 &&
			  err.code == SL_ERR_FORMAT && strstr(err.msg, "chunk (0,0) appears a second time") &&
			  strstr(err.msg, "offset"));
		sl_buf_free(&file);
		sl_buf_free(&value);
		sfg_free(&f);
	}
}

void
test_slimefile_v11_v12(void)
{
	sfg_file	f;
	tv			t;
	const sl_nbt *root;
	sl_buf		out = {0};
	sl_err		err;

	sfg_v11(&f);
	CHECK(tv_read(&t, &f) == 0);
	CHECK(t.info.version == 11 && t.info.block_entities == 1 && t.info.entities == 2);
	root = tv_chunk(&t, 0, 0, SL_COMP_REGION);
	CHECK(str_is(at(item(at(root, "block_entities", NULL), 0), "id", NULL), "minecraft:furnace"));
	CHECK(filled(at(item(at(root, "sections", NULL), 0), "BlockLight", NULL), 0x33, 2048));
	CHECK(filled(at(item(at(root, "sections", NULL), 0), "SkyLight", NULL), 0x44, 2048));
	CHECK(count_of(at(tv_chunk(&t, 0, 0, SL_COMP_ENTITIES), "Entities", NULL)) == 2);
	CHECK_OK(write13(&t, &out, &err), &err);
	tv_free(&t);
	sfg_free(&f);

	/* v12 as ASP wrote it: 3 counted chunks, then (0,0) and (1,0) again */
	sfg_v12(&f);
	CHECK(tv_read(&t, &f) == 0);
	CHECK(t.info.version == 12 && t.info.data_version == 3700);
	CHECK(t.info.chunks == 3 && t.info.repeated_chunks == 2);
	CHECK(t.v.hdr.chunk_count == 3);
	CHECK(t.info.block_entities == 1 && t.info.entities == 1);
	root = tv_chunk(&t, 0, 0, SL_COMP_REGION);
	CHECK(int_of(at(root, "DataVersion", NULL)) == 3700);
	CHECK(int_of(at(root, "xPos", NULL)) == 0 && int_of(at(root, "zPos", NULL)) == 0);
	CHECK(count_of(at(root, "sections", NULL)) == 1);
	CHECK(filled(at(item(at(root, "sections", NULL), 0), "BlockLight", NULL), 0x55, 2048));
	CHECK(at(item(at(root, "sections", NULL), 0), "SkyLight", NULL) == NULL);
	CHECK(str_is(at(root, "ChunkBukkitValues", "plugin:key"), "value"));
	CHECK(at(root, "Heightmaps", NULL) == NULL);
	CHECK(count_of(at(root, "block_entities", NULL)) == 0);
	CHECK(at(root, "slime", NULL) == NULL);
	CHECK(count_of(at(tv_chunk(&t, 0, 0, SL_COMP_ENTITIES), "Entities", NULL)) == 1);
	CHECK(blocks_named(&t, 0, 0, "minecraft:sand") == 4096);
	root = tv_chunk(&t, 5, 0, SL_COMP_REGION);
	CHECK(root != NULL && count_of(at(root, "sections", NULL)) == 0);
	CHECK(count_of(at(root, "block_entities", NULL)) == 0 && at(root, "slime", NULL) == NULL);
	CHECK(tv_chunk(&t, 5, 0, SL_COMP_ENTITIES) == NULL);
	root = tv_chunk(&t, 1, 0, SL_COMP_REGION);
	CHECK(int_of(at(at(root, "slime", "extra"), "other", NULL)) == 1);
	CHECK(at(root, "ChunkBukkitValues", NULL) == NULL);
	CHECK(str_is(at(item(at(root, "block_entities", NULL), 0), "id", NULL), "minecraft:barrel"));
	CHECK(count_of(at(root, "block_entities", NULL)) == 1);
	CHECK(tv_chunk(&t, 1, 0, SL_COMP_ENTITIES) == NULL ||
		  count_of(at(tv_chunk(&t, 1, 0, SL_COMP_ENTITIES), "Entities", NULL)) == 0);
	CHECK(int_of(at(tv_world(&t), "version", NULL)) == 12);
	/* both kinds of chunk extra survive version 13 */
	CHECK_OK(write13(&t, &out, &err), &err);
	{
		tv			t2;

		memset(&t2, 0, sizeof(t2));
		CHECK_OK(read_file(out.data, out.len, &t2.bytes, &t2.info, &err), &err);
		CHECK(sl_value_open_mem(&t2.v, t2.bytes.data, t2.bytes.len, NULL, &err) == 0);
		CHECK(str_is(at(tv_chunk(&t2, 0, 0, SL_COMP_REGION), "ChunkBukkitValues", "plugin:key"), "value"));
		CHECK(int_of(at(at(tv_chunk(&t2, 1, 0, SL_COMP_REGION), "slime", "extra"), "other", NULL)) == 1);
		CHECK(count_of(at(tv_chunk(&t2, 0, 0, SL_COMP_ENTITIES), "Entities", NULL)) == 1);
		CHECK(str_is(at(at(tv_world(&t2), "extra", "properties"), "environment", NULL), "normal"));
		tv_free(&t2);
	}
	sl_buf_free(&out);
	tv_free(&t);
	sfg_free(&f);
}

void
test_slimefile_v13(void)
{
	sfg_file	f;
	tv			t;
	const sl_nbt *root,
			   *secs,
			   *w;
	sl_buf		file = {0},
				out = {0};
	sl_err		err;

	sfg_v13(&f);
	CHECK(tv_read(&t, &f) == 0);
	CHECK(t.info.version == 13 && t.info.flags == 0x0F && t.info.poi_chunks == 1);
	root = tv_chunk(&t, 0, 0, SL_COMP_REGION);
	secs = at(root, "sections", NULL);
	/* the empty slot at index 1 is no section; indices 0 and 2 are Y -4 and -2 */
	CHECK(count_of(secs) == 2);
	CHECK(int_of(at(item(secs, 0), "Y", NULL)) == -4 && int_of(at(item(secs, 1), "Y", NULL)) == -2);
	/* flag bit 0 = block light, written first; bit 1 = sky light */
	CHECK(filled(at(item(secs, 0), "BlockLight", NULL), 0x11, 2048) && at(item(secs, 0), "SkyLight", NULL) == NULL);
	CHECK(filled(at(item(secs, 1), "BlockLight", NULL), 0x33, 2048));
	CHECK(filled(at(item(secs, 1), "SkyLight", NULL), 0x44, 2048));
	CHECK(count_of(at(root, "block_ticks", NULL)) == 1 && at(root, "fluid_ticks", NULL) == NULL);
	CHECK(count_of(at(root, "Heightmaps", "MOTION_BLOCKING")) == 37);
	CHECK(str_is(at(root, "ChunkBukkitValues", "k"), "v"));
	CHECK(count_of(at(root, "slime", "unknownData")) == 1);
	CHECK(count_of(item(at(root, "slime", "unknownData"), 0)) == 3);
	CHECK(count_of(at(tv_chunk(&t, 0, 0, SL_COMP_POI), "Sections", "0")) == 2);
	CHECK(blocks_named(&t, 0, 0, "minecraft:glass") == 4096);
	root = tv_chunk(&t, 1, 0, SL_COMP_REGION);
	secs = at(root, "sections", NULL);
	CHECK(filled(at(item(secs, 0), "SkyLight", NULL), 0x22, 2048) && at(item(secs, 0), "BlockLight", NULL) == NULL);
	CHECK(count_of(at(root, "fluid_ticks", NULL)) == 1 && at(root, "block_ticks", NULL) == NULL);
	CHECK(tv_chunk(&t, 1, 0, SL_COMP_ENTITIES) == NULL && tv_chunk(&t, 1, 0, SL_COMP_POI) == NULL);
	w = tv_world(&t);
	CHECK(int_of(at(w, "flags", NULL)) == 0x0F && int_of(at(w, "DataVersion", NULL)) == 3953);
	CHECK(str_is(at(at(w, "extra", "BukkitValues"), "world:key", NULL), "w"));
	/* written back: the very bytes of the file */
	sfg_assemble(&f, SIZE_MAX, &file);
	CHECK_OK(write13(&t, &out, &err), &err);
	CHECK(out.len == file.len && memcmp(out.data, file.data, file.len) == 0);
	sl_buf_free(&out);
	sl_buf_free(&file);
	tv_free(&t);
	sfg_free(&f);
}

/* Every family: read -> write 13 -> read -> write 13 is a fixed point. */
void
test_slimefile_fixpoint(void)
{
	for (int i = 0; i < SFG_FAMILIES; i++)
	{
		sfg_file	f;
		tv			t;
		sl_buf		f1 = {0},
					f2 = {0},
					v2 = {0},
					v3 = {0};
		sl_err		err;
		const char *name = sfg_family(i, &f);

		CHECK(tv_read(&t, &f) == 0);
		if (write13(&t, &f1, &err) != 0)
		{
			CHECK(err.code == SL_ERR_UNSUPPORTED);	/* pre-1.18 families */
			CHECK(f.version < 10 && f.wv < 8);
		}
		else
		{
			sl_value	v;
			sl_slimefile_info info;

			CHECK_OK(read_file(f1.data, f1.len, &v2, &info, &err), &err);
			CHECK(sl_value_open_mem(&v, v2.data, v2.len, NULL, &err) == 0);
			CHECK_OK(sl_slimefile_write(&v, 3, NULL, &f2, NULL, &err), &err);
			sl_value_close(&v);
			CHECK(f1.len == f2.len && memcmp(f1.data, f2.data, f1.len) == 0);
			CHECK_OK(read_file(f2.data, f2.len, &v3, &info, &err), &err);
			CHECK(v2.len == v3.len && memcmp(v2.data, v3.data, v2.len) == 0);
			if (f.version == 13)	/* v13 in, v13 out: the same value */
				CHECK(v2.len == t.bytes.len && memcmp(v2.data, t.bytes.data, v2.len) == 0);
		}
		if (sl_test_failures)
			fprintf(stderr, "  (family %s)\n", name);
		sl_buf_free(&f1);
		sl_buf_free(&f2);
		sl_buf_free(&v2);
		sl_buf_free(&v3);
		tv_free(&t);
		sfg_free(&f);
	}
}

/* ---- malformed files ---- */

/* An error must carry the format code (or a cap) and name an offset. */
static int
good_error(const sl_err *err)
{
	return (err->code == SL_ERR_FORMAT || err->code == SL_ERR_LIMIT) &&
		strstr(err->msg, "offset") != NULL;
}

void
test_slimefile_truncated(void)
{
	for (int i = 0; i < SFG_FAMILIES; i++)
	{
		sfg_file	f;
		sl_buf		file = {0},
					value = {0};
		sl_err		err;
		sl_slimefile_info info;
		const char *name = sfg_family(i, &f);
		int			bad = 0;

		/* the file cut at every byte (SLIME_UNIT_QUICK: every byte of the
		 * first 256, then every 13th, for slow runners such as valgrind) */
		sfg_assemble(&f, SIZE_MAX, &file);
		for (size_t n = 0; n < file.len && !bad; n += sl_test_cut_step(n))
			if (read_file(file.data, n, &value, &info, &err) == 0 ||
				(n >= 3 && !good_error(&err)))
			{
				fprintf(stderr, "%s cut at %zu of %zu: %s\n", name, n, file.len,
						err.msg);
				bad = 1;
			}
		/* the chunk data cut at every byte (the file otherwise well-formed) */
		for (size_t n = 0; n < f.chunks.len && !bad; n += sl_test_cut_step(n))
		{
			int			ok_end = 0;

			for (int e = 0; e < f.n_ok_ends; e++)
				ok_end |= n == f.ok_ends[e];
			sfg_assemble(&f, n, &file);
			if (ok_end)
			{
				/* a v12 file that ends with fewer repeats: still well-formed */
				if (read_file(file.data, file.len, &value, &info, &err) != 0)
				{
					fprintf(stderr, "%s chunk data cut at %zu of %zu (a chunk's end): %s\n", name, n,
							f.chunks.len, err.msg);
					bad = 1;
				}
				continue;
			}
			if (read_file(file.data, file.len, &value, &info, &err) == 0 || !good_error(&err) ||
				strstr(err.msg, "chunk") == NULL)
			{
				fprintf(stderr, "%s chunk data cut at %zu of %zu: %s\n", name, n, f.chunks.len,
						err.msg);
				bad = 1;
			}
		}
		CHECK(!bad);
		sl_buf_free(&file);
		sl_buf_free(&value);
		sfg_free(&f);
	}
}

void
test_slimefile_malformed(void)
{
	sfg_file	f;
	sl_buf		file = {0},
				bad = {0},
				value = {0};
	sl_err		err;
	sl_slimefile_info info;
	static const uint8_t magic[] = {0xB1, 0x0C, 13};
	static const uint8_t v0[] = {0xB1, 0x0B, 0};
	static const uint8_t v14[] = {0xB1, 0x0B, 14, 0, 0, 0, 0};

	CHECK(read_file(magic, sizeof(magic), &value, &info, &err) != 0 &&
		  err.code == SL_ERR_FORMAT && strstr(err.msg, "magic") && strstr(err.msg, "offset 0"));
	CHECK(read_file(v0, sizeof(v0), &value, &info, &err) != 0 && err.code == SL_ERR_FORMAT &&
		  strstr(err.msg, "offset 2"));
	CHECK(read_file(v14, sizeof(v14), &value, &info, &err) != 0 && err.code == SL_ERR_UNSUPPORTED);

	sfg_v13(&f);
	sfg_assemble(&f, SIZE_MAX, &file);
	/* raw size one more / one less than the frame holds */
	for (int d = -1; d <= 1; d += 2)
	{
		sl_buf_free(&bad);
		sl_buf_put(&bad, file.data, file.len, NULL);
		sl_put_u32be(bad.data + 12, sl_get_u32be(bad.data + 12) + d);
		CHECK(read_file(bad.data, bad.len, &value, &info, &err) != 0 && good_error(&err) &&
			  strstr(err.msg, "chunk data") && strstr(err.msg, "offset 8"));
	}
	/* compressed length past the end */
	bad.len = 0;
	sl_buf_put(&bad, file.data, file.len, NULL);
	sl_put_u32be(bad.data + 8, 0x7FFFFFF0);
	CHECK(read_file(bad.data, bad.len, &value, &info, &err) != 0 && good_error(&err) &&
		  strstr(err.msg, "needs 2147483632 bytes"));
	/* a negative length */
	sl_put_u32be(bad.data + 8, 0xFFFFFFFF);
	CHECK(read_file(bad.data, bad.len, &value, &info, &err) != 0 && good_error(&err) &&
		  strstr(err.msg, "negative"));
	/* a raw size past the caps */
	{
		sl_limits	lim = sl_default_limits;
		sl_builder	b;

		memset(&b, 0, sizeof(b));
		lim.max_value_raw = 1000;
		CHECK(sl_slimefile_read(file.data, file.len, &lim, &b, &info, &err) != 0 &&
			  err.code == SL_ERR_LIMIT && strstr(err.msg, "offset 12"));
		sl_builder_free(&b);
	}
	/* chunk count too large for the data */
	{
		sfg_file	g = f;
		sl_buf		chunks = {0};

		sl_buf_put(&chunks, f.chunks.data, f.chunks.len, NULL);
		sl_put_u32be(chunks.data, 0x7FFFFFFF);
		g.chunks = chunks;
		sfg_assemble(&g, SIZE_MAX, &bad);
		CHECK(read_file(bad.data, bad.len, &value, &info, &err) != 0 && good_error(&err) &&
			  strstr(err.msg, "chunk count") && strstr(err.msg, "offset 0 of the chunk data"));
		/* a section count past the section range */
		sl_put_u32be(chunks.data, 2);
		sl_put_u32be(chunks.data + 12, 25);
		sfg_assemble(&g, SIZE_MAX, &bad);
		CHECK(read_file(bad.data, bad.len, &value, &info, &err) != 0 && good_error(&err) &&
			  strstr(err.msg, "chunk (0,0): section count") && strstr(err.msg, "offset 12"));
		/* a document length past the chunk data */
		sl_put_u32be(chunks.data + 12, 3);
		sl_put_u32be(chunks.data + 17 + 2048, 0x00FFFFFF);
		sfg_assemble(&g, SIZE_MAX, &bad);
		CHECK(read_file(bad.data, bad.len, &value, &info, &err) != 0 && good_error(&err) &&
			  strstr(err.msg, "section 0 block states") && strstr(err.msg, "needs 16777215 bytes"));
		/* an unknown section flag */
		sl_put_u32be(chunks.data + 17 + 2048, sl_get_u32be(f.chunks.data + 17 + 2048));
		chunks.data[16] = 0x05;
		sfg_assemble(&g, SIZE_MAX, &bad);
		CHECK(read_file(bad.data, bad.len, &value, &info, &err) != 0 && good_error(&err) &&
			  strstr(err.msg, "section 0 flags") && strstr(err.msg, "offset 16"));
		/* a block state document that is not NBT */
		chunks.data[16] = 0x01;
		chunks.data[17 + 2048 + 4] = 0x0B;
		sfg_assemble(&g, SIZE_MAX, &bad);
		CHECK(read_file(bad.data, bad.len, &value, &info, &err) != 0 && good_error(&err) &&
			  strstr(err.msg, "section 0 block states"));
		sl_buf_free(&chunks);
	}
	/* trailing bytes */
	bad.len = 0;
	sl_buf_put(&bad, file.data, file.len, NULL);
	sl_buf_put_u8(&bad, 0, NULL);
	CHECK(read_file(bad.data, bad.len, &value, &info, &err) != 0 && good_error(&err) &&
		  strstr(err.msg, "end of file"));
	sfg_free(&f);

	/* v12: what follows the counted chunks must repeat them byte for byte, in order */
	sfg_v12(&f);
	{
		sfg_file	g = f;
		sl_buf		chunks = {0};
		size_t		tail = f.ok_ends[0],
					second = f.ok_ends[1];
		char		want[160];

		/* a stray byte after the repeats */
		sl_buf_put(&chunks, f.chunks.data, f.chunks.len, NULL);
		sl_buf_put_u8(&chunks, 0, NULL);
		g.chunks = chunks;
		sfg_assemble(&g, SIZE_MAX, &bad);
		snprintf(want, sizeof(want), "end of chunk data at offset %zu of the chunk data: 1 bytes after the last of 3 chunks and 2 repeats",
				 f.chunks.len);
		CHECK(read_file(bad.data, bad.len, &value, &info, &err) != 0 && good_error(&err) &&
			  strstr(err.msg, want));
		/* the repeats out of order: (1,0), then (0,0) */
		chunks.len = 0;
		sl_buf_put(&chunks, f.chunks.data, tail, NULL);
		sl_buf_put(&chunks, f.chunks.data + second, f.chunks.len - second, NULL);
		sl_buf_put(&chunks, f.chunks.data + tail, second - tail, NULL);
		g.chunks = chunks;
		sfg_assemble(&g, SIZE_MAX, &bad);
		snprintf(want, sizeof(want), "end of chunk data at offset %zu of the chunk data", tail + f.chunks.len - second);
		CHECK(read_file(bad.data, bad.len, &value, &info, &err) != 0 && good_error(&err) &&
			  strstr(err.msg, want) && strstr(err.msg, "1 repeats"));
		/* a repeat one byte off (its block light) */
		chunks.len = 0;
		sl_buf_put(&chunks, f.chunks.data, f.chunks.len, NULL);
		chunks.data[second + 13] ^= 1;
		g.chunks = chunks;
		sfg_assemble(&g, SIZE_MAX, &bad);
		snprintf(want, sizeof(want), "end of chunk data at offset %zu of the chunk data", second);
		CHECK(read_file(bad.data, bad.len, &value, &info, &err) != 0 && good_error(&err) &&
			  strstr(err.msg, want));
		sl_buf_free(&chunks);
	}
	sfg_free(&f);
	/* v13 takes no repeats: its writer never had that bug */
	sfg_v13(&f);
	{
		sfg_file	g = f;
		sl_buf		chunks = {0};
		char		want[160];

		sl_buf_put(&chunks, f.chunks.data, f.chunks.len, NULL);
		sl_buf_put(&chunks, f.chunks.data + 4, f.chunks.len - 4, NULL);
		g.chunks = chunks;
		sfg_assemble(&g, SIZE_MAX, &bad);
		snprintf(want, sizeof(want), "end of chunk data at offset %zu of the chunk data: %zu bytes after the last of 2 chunks",
				 f.chunks.len, f.chunks.len - 4);
		CHECK(read_file(bad.data, bad.len, &value, &info, &err) != 0 && good_error(&err) &&
			  strstr(err.msg, want));
		sl_buf_free(&chunks);
	}
	sfg_free(&f);

	/* v1-v9: width, the world version byte, a tile entity of no chunk */
	sfg_v9_113(&f);
	sfg_assemble(&f, SIZE_MAX, &file);
	bad.len = 0;
	sl_buf_put(&bad, file.data, file.len, NULL);
	bad.data[3] = 9;
	CHECK(read_file(bad.data, bad.len, &value, &info, &err) != 0 && good_error(&err) &&
		  strstr(err.msg, "world version") && strstr(err.msg, "offset 3"));
	bad.data[3] = 4;
	sl_put_u32be(bad.data + 8, 0x8000u << 16);
	CHECK(read_file(bad.data, bad.len, &value, &info, &err) != 0 && good_error(&err) &&
		  strstr(err.msg, "width") && strstr(err.msg, "offset 8"));
	sfg_free(&f);
	sfg_v3(&f);
	{
		sl_buf		t = {0};

		sfg_root(&t);
		nb_list(&t, "tiles", SL_TAG_COMPOUND, 1);
		nb_int(&t, "x", 500);
		nb_int(&t, "z", 35);
		nb_end(&t);
		nb_end(&t);
		sl_buf_free(&f.tiles);
		f.tiles = t;
		sfg_assemble(&f, SIZE_MAX, &bad);
		CHECK(read_file(bad.data, bad.len, &value, &info, &err) != 0 && good_error(&err) &&
			  strstr(err.msg, "tile entity 0 lies in chunk (31,2)"));
	}
	sfg_free(&f);
	sl_buf_free(&file);
	sl_buf_free(&bad);
	sl_buf_free(&value);
}

/* ---- what version 13 cannot hold ---- */

/* A value of region chunks given as (x, z, document) triples. */
static void
value_of(sl_buf *docs, const int32_t *pos, int n, int with_entities_only, sl_buf *out)
{
	sl_builder	b;
	sl_err		err;

	memset(&b, 0, sizeof(b));
	out->len = 0;
	for (int i = 0; i < n; i++)
		sl_builder_add(&b, with_entities_only && i == n - 1 ? SL_COMP_ENTITIES : SL_COMP_REGION,
					   pos[2 * i], pos[2 * i + 1], 0, docs[i].data, docs[i].len, 0, &err);
	if (sl_builder_encode(&b, NULL, NULL, out, &err))
		fprintf(stderr, "encode: %s\n", err.msg);
	sl_builder_free(&b);
}

/* A 1.18+ chunk with one section at Y, light of light_len bytes (0: none). */
static void
modern_chunk(sl_buf *b, int dv, int y, uint32_t light_len, int level)
{
	sl_buf		d = {0};

	sfg_root(b);
	nb_int(b, "DataVersion", dv);
	nb_int(b, "yPos", -4);
	if (level)
	{
		nb_tag(b, SL_TAG_COMPOUND, "Level");
		nb_end(b);
	}
	nb_list(b, "sections", SL_TAG_COMPOUND, 1);
	nb_byte(b, "Y", y);
	sfg_block_states(&d, "minecraft:stone");
	nb_tag(b, SL_TAG_COMPOUND, "block_states");
	sl_buf_put(b, d.data + 3, d.len - 3, NULL);
	if (light_len)
	{
		nb_tag(b, SL_TAG_BYTE_ARRAY, "SkyLight");
		sl_buf_put_u32be(b, light_len, NULL);
		sfg_fill(b, 0x0F, light_len);
	}
	nb_end(b);
	nb_end(b);
	sl_buf_free(&d);
}

void
test_slimefile_write_limits(void)
{
	static const struct
	{
		int			dv,
					y,
					light,
					level,
					dv2,
					entities_only;
		const char *msg;
	}			cases[] = {
		{3700, 0, 2048, 0, 3700, 0, NULL},
		{2730, 0, 2048, 0, 2730, 0, "is not a 1.18+ chunk"},
		{3700, 0, 2048, 1, 3700, 0, "a Level compound"},
		{3700, 0, 2048, 0, 3800, 0, "but the world"},
		{3700, -9, 2048, 0, 3700, 0, "section Y=-9 holds blocks outside"},
		{3700, 0, 100, 0, 3700, 0, "SkyLight of 100 bytes"},
		{3700, 0, 2048, 0, 3700, 1, "has entities data but no region chunk"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		sl_buf		docs[2] = {{0}, {0}};
		int32_t		pos[4] = {3, 4, 5, 6};
		sl_buf		value = {0},
					out = {0};
		sl_value	v;
		sl_err		err;
		int			rc;

		modern_chunk(&docs[0], cases[i].dv, cases[i].y, (uint32_t) cases[i].light, cases[i].level);
		modern_chunk(&docs[1], cases[i].dv2, 0, 2048, 0);
		value_of(docs, pos, 2, cases[i].entities_only, &value);
		CHECK(sl_value_open_mem(&v, value.data, value.len, NULL, &err) == 0);
		rc = sl_slimefile_write(&v, 3, NULL, &out, NULL, &err);
		if (cases[i].msg == NULL)
			CHECK(rc == 0);
		else
		{
			CHECK(rc != 0 && err.code == SL_ERR_UNSUPPORTED && strstr(err.msg, cases[i].msg) &&
				  strstr(err.msg, "chunk ("));
			if (rc == 0 || !strstr(err.msg, cases[i].msg))
				fprintf(stderr, "case %zu: %s\n", i, rc ? err.msg : "written");
			CHECK(out.len == 0);
		}
		sl_value_close(&v);
		sl_buf_free(&docs[0]);
		sl_buf_free(&docs[1]);
		sl_buf_free(&value);
		sl_buf_free(&out);
	}
}
