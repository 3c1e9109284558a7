/*
 * fuzz_blocks.c - libFuzzer target for the block and biome decoder, the
 * chunk-content helpers and the count map.
 *
 * Input: chunk NBT (uncompressed), with the first byte choosing the
 * DataVersion the caller claims (none, 1343, 2230, 2586, 3700).
 *   - sl_chunk_blocks_open for blocks and for biomes; when it succeeds,
 *     counting and lookups must succeed or fail with a clean error, and the
 *     counts of a section must add up to 4096 per counted section;
 *   - block entities, entities and their fields, re-written as documents;
 *   - the count map serialized and read back equals itself;
 *   - the renderer (sl_render): the chunk's 256 columns, from the top and
 *     under a y_max, shaded and written as a PNG (sl_png) at scale 1 and 3;
 *     and the same columns from the scanned sections (sl_map_chunk_nbt,
 *     sl_chunk_blocks_scan), which must draw whatever the whole tree draws.
 */
#include "fuzz_common.h"
#include "sl_blocks.h"
#include "sl_chunk.h"
#include "sl_counts.h"
#include "sl_mapcolor.h"
#include "sl_nbt.h"
#include "sl_png.h"
#include "sl_render.h"
#include "sl_value.h"

static int
tally(void *ctx, const char *name, size_t len, size_t base_len, uint64_t count,
	  int fallback, sl_err *err)
{
	FUZZ_CHECK(base_len <= len, "base name longer than the name");
	return sl_counts_add((sl_counts *) ctx, name, len, count, err);
}

static void
check_counts(const sl_counts *m)
{
	sl_buf		ser = {0};
	sl_counts	back = {0};
	sl_err		err;

	FUZZ_CHECK(sl_counts_serialize(m, &ser, &err) == 0, "serialize: %s", err.msg);
	FUZZ_CHECK(sl_counts_deserialize(&back, ser.data, ser.len, &err) == 0, "deserialize: %s", err.msg);
	FUZZ_CHECK(back.used == m->used, "count map lost entries");
	sl_counts_free(&back);
	sl_buf_free(&ser);
}

/* Render an opened chunk as a one-chunk map into cols and write its PNG; 0 when drawn. */
static int
render(sl_chunk_blocks *cb, int32_t y_max, sl_map_column cols[256])
{
	sl_map_opts o = {0};
	sl_map_cache cache = {0};
	sl_map		m = {0};
	int			rc;
	sl_buf		png = {0};
	sl_err		err;

	o.scale = 1;
	o.has_y_max = y_max != INT32_MIN;
	o.y_max = y_max;
	if ((rc = sl_map_chunk(cb, &o, &cache, cols, &err)) == 0)
	{
		m.width = m.height = 16;
		m.cols = cols;
		FUZZ_CHECK(sl_map_shade(&m, &err) == 0, "shade: %s", err.msg);
		for (int i = 0; i < 256; i++)
			FUZZ_CHECK(m.colors[i] / 4 < SL_MAP_COLORS, "colour %d out of the palette", m.colors[i]);
		FUZZ_CHECK(sl_png_map(&m, 1, &png, &err) == 0 && sl_png_map(&m, 3, &png, &err) == 0,
				   "png: %s", err.msg);
		sl_free(m.colors);
	}
	else
		fuzz_check_err(&err);
	sl_map_cache_free(&cache);
	sl_buf_free(&png);
	return rc;
}

/* Draw the chunk from its scanned sections: the columns tree gives (NULL: none) exactly. */
static void
render_scanned(const uint8_t *nbt, size_t len, int32_t dv, int32_t y_max, const sl_map_column *tree)
{
	sl_map_opts o = {0};
	sl_map_cache cache = {0};
	sl_map_column cols[256];
	sl_dirent	d = {0};
	sl_err		err;
	int			rc;

	o.scale = 1;
	o.has_y_max = y_max != INT32_MIN;
	o.y_max = y_max;
	d.data_version = dv;
	d.len[SL_COMP_REGION] = (uint32_t) len;
	rc = sl_map_chunk_nbt(&d, nbt, &o, &fuzz_limits, &cache, cols, &err);
	if (tree)
		FUZZ_CHECK(rc == 0 && memcmp(cols, tree, sizeof(cols)) == 0,
				   "scanned sections draw otherwise than the tree: %s", rc ? err.msg : "other columns");
	else if (rc)
		fuzz_check_err(&err);
	sl_map_cache_free(&cache);
}

static void
blocks(const uint8_t *nbt, size_t len, int32_t dv, int want)
{
	sl_arena	arena = {0};
	sl_chunk_blocks cb;
	sl_counts	m = {0};
	sl_buf		out = {0};
	sl_err		err;
	sl_map_column top[256],
				low[256];
	int			drawn_top = 0,
				drawn_low = 0;

	if (sl_chunk_blocks_open(nbt, len, dv, want, &fuzz_limits, &arena, &cb, &err) == 0)
	{
		int			rc = want == SL_WANT_BLOCKS ? sl_chunk_count_blocks(&cb, tally, &m, &err) :
			sl_chunk_count_biomes(&cb, tally, &m, &err);

		if (rc)
			fuzz_check_err(&err);
		else
			check_counts(&m);
		if (want == SL_WANT_BLOCKS)
		{
			drawn_top = render(&cb, INT32_MIN, top) == 0;
			drawn_low = render(&cb, 40, low) == 0;
		}
		if (want == SL_WANT_BLOCKS)
			for (int y = -64; y < 320; y += 37)
			{
				out.len = 0;
				if (sl_chunk_block_at(&cb, y & 15, y, (y >> 2) & 15, &out, &err) < 0)
					fuzz_check_err(&err);
			}
	}
	else
		fuzz_check_err(&err);
	if (want == SL_WANT_BLOCKS)
	{
		render_scanned(nbt, len, dv, INT32_MIN, drawn_top ? top : NULL);
		render_scanned(nbt, len, dv, 40, drawn_low ? low : NULL);
	}
	sl_counts_free(&m);
	sl_buf_free(&out);
	sl_arena_free(&arena);
}

static void
write_items(const sl_nbt *list)
{
	if (list == NULL || list->v.list.elem_type != SL_TAG_COMPOUND)
		return;
	for (uint32_t i = 0; i < list->v.list.count; i++)
	{
		const sl_nbt *e = list->v.list.items[i];
		sl_buf		doc = {0};
		sl_buf		utf8 = {0};
		uint8_t		uuid[16];
		int64_t		v;
		double		d;
		uint16_t	slen;
		const char *s;
		sl_err		err;

		(void) sl_nbt_get_int(e, "x", &v);
		(void) sl_entity_uuid(e, uuid);
		(void) sl_nbt_list_double(sl_nbt_child(e, "Pos"), 2, &d);
		s = sl_nbt_get_string(e, "id", &slen);
		if (s && sl_mutf8_to_utf8(s, slen, &utf8, &err) < 0)
			fuzz_check_err(&err);
		FUZZ_CHECK(sl_nbt_write_as_root(e, &doc, &err) == 0, "write_as_root: %s", err.msg);
		sl_buf_free(&doc);
		sl_buf_free(&utf8);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int32_t dvs[] = {SL_NO_DV, 1343, 2230, 2586, 3700};
	sl_arena	arena = {0};
	sl_nbt	   *root;
	size_t		used;
	sl_err		err;
	int32_t		dv;

	if (size < 2)
		return 0;
	dv = dvs[data[0] % 5];
	data++;
	size--;
	blocks(data, size, dv, SL_WANT_BLOCKS);
	blocks(data, size, dv, SL_WANT_BIOMES);
	if (sl_nbt_parse(data, size, &fuzz_limits, &arena, &root, &used, &err) == 0)
	{
		write_items(sl_chunk_block_entities(root));
		write_items(sl_chunk_entities(root));
	}
	sl_arena_free(&arena);
	sl_release_caches();
	return 0;
}
