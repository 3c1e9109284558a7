/*
 * test_render.c - the map colour table against data/map_colors.tsv, the
 * colour of names the table lacks, the PNG of a small map, tile geometry,
 * and drawing from scanned sections (only those the walk reaches are read).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "nbt_build.h"
#include "sl_mapcolor.h"
#include "sl_png.h"
#include "sl_render.h"
#include "sl_tile.h"

/* Every block row of the TSV gives its colour through the compiled table. */
void
test_render_color_table(void)
{
	FILE	   *f = fopen("data/map_colors.tsv", "r");
	char		line[512];
	char		names[SL_MAP_COLORS][64];
	int			blocks = 0,
				colors = 0;

	CHECK(f != NULL);
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f))
	{
		char		a[128],
					b[128],
					c[128];
		int			id;

		if (line[0] == '#')
			continue;
		if (sscanf(line, "color\t%d\t%127s\t%127s", &id, b, c) == 3 && id >= 0 && id < SL_MAP_COLORS)
		{
			snprintf(names[id], sizeof(names[id]), "%s", b);
			CHECK((int) strtol(c, NULL, 16) == (sl_map_rgb[id][0] << 16 | sl_map_rgb[id][1] << 8 | sl_map_rgb[id][2]));
			colors++;
		}
		else if (sscanf(line, "block\t%127s\t%127s", a, b) == 2)
		{
			int			got = sl_map_color_find(a, strlen(a));

			CHECK(got >= 0 && strcmp(names[got], b) == 0);
			blocks++;
		}
	}
	fclose(f);
	CHECK(colors == SL_MAP_COLORS);
	CHECK((size_t) blocks == sl_map_color_count());
	CHECK(blocks > 1100);
	CHECK(sl_map_shades[0] == 180 && sl_map_shades[1] == 220 && sl_map_shades[2] == 255 && sl_map_shades[3] == 135);
	CHECK(sl_map_color_find("minecraft:stone", 15) == 11);
	CHECK(sl_map_color_find("minecraft:ston", 14) == -1);
	CHECK(sl_map_color_find("minecraft:stonee", 16) == -1);
}

/* Names the table lacks: a stable colour, never NONE or WATER; the namespace is optional. */
void
test_render_unknown_names(void)
{
	static const char *const names[] = {"mymod:gizmo", "minecraft:legacy_200_3", "x", "", "minecraft:future_block"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
	{
		int			c = sl_map_color_of(names[i], strlen(names[i]));

		CHECK(c > 0 && c < SL_MAP_COLORS && c != SL_MAP_WATER);
		CHECK(c == sl_map_color_of(names[i], strlen(names[i])));
	}
	CHECK(sl_map_color_of("stone", 5) == 11);
	CHECK(sl_map_color_of("minecraft:grass_block", 21) == 1);
	CHECK(sl_map_color_of("minecraft:glass", 15) == SL_MAP_NONE);
}

/* A 16 x 16 map: PNG signature, size, palette (Minecraft's shades), transparency. */
void
test_render_png(void)
{
	sl_map_column cols[256];
	sl_map		m = {0};
	sl_buf		png = {0};
	sl_err		err;
	uint8_t		rgb[3];

	memset(cols, 0, sizeof(cols));
	for (int i = 0; i < 128; i++)
	{
		cols[i].base = 1;		/* grass, flat */
		cols[i].height = 64;
	}
	m.width = m.height = 16;
	m.cols = cols;
	CHECK(sl_map_shade(&m, &err) == 0);
	CHECK(m.colors[0] == 1 * 4 + 1 && m.colors[200] == 0);
	CHECK(sl_png_map(&m, 2, &png, &err) == 0);
	CHECK(png.len > 33 && memcmp(png.data, "\x89PNG\r\n\x1a\n", 8) == 0);
	CHECK(memcmp(png.data + 12, "IHDR", 4) == 0);
	CHECK(png.data[19] == 32 && png.data[23] == 32 && png.data[24] == 8 && png.data[25] == 3);
	sl_png_color(1 * 4 + 1, rgb);
	CHECK(rgb[0] == 0x6D && rgb[1] == 0x99 && rgb[2] == 0x30);
	sl_png_color(12 * 4 + 2, rgb);
	CHECK(rgb[0] == 0x40 && rgb[1] == 0x40 && rgb[2] == 0xFF);
	sl_buf_free(&png);
	sl_free(m.colors);
	m.width = 0;
	CHECK(sl_png_map(&m, 1, &png, &err) != 0);
}

/* Tile geometry: zooms -4..4, the blocks a tile covers, negative tiles. */
void
test_render_tile_geometry(void)
{
	sl_tile		t;
	sl_err		err;

	CHECK(sl_tile_at(0, 1, 2, &t, &err) == 0 && t.x0 == 256 && t.z0 == 512 && t.cell == 1 &&
		  t.side == 256 && t.scale == 1);
	CHECK(sl_tile_at(-4, -1, 2, &t, &err) == 0 && t.x0 == -4096 && t.z0 == 8192 && t.cell == 16 &&
		  t.side == 256 && t.scale == 1);
	CHECK(sl_tile_at(3, -3, 0, &t, &err) == 0 && t.x0 == -96 && t.z0 == 0 && t.cell == 1 &&
		  t.side == 32 && t.scale == 8);
	CHECK(sl_tile_at(4, INT32_MIN, INT32_MAX, &t, &err) == 0 && t.x0 == (int64_t) INT32_MIN * 16 &&
		  t.z0 == (int64_t) INT32_MAX * 16);
	CHECK(sl_tile_at(-4, INT32_MIN, 0, &t, &err) == 0 && t.x0 == (int64_t) INT32_MIN * 4096);
	CHECK(sl_tile_at(5, 0, 0, &t, &err) != 0 && err.code == SL_ERR_INVALID);
	CHECK(sl_tile_at(-5, 0, 0, &t, &err) != 0);
}

/* A 1.18 section: Y, and a palette of one name, or of two with `longs` data longs (all index 0). */
static void
rd_section(sl_buf *b, int y, const char *name, uint32_t longs)
{
	static const uint64_t zero[256];

	nb_byte(b, "Y", y);
	nb_tag(b, SL_TAG_COMPOUND, "block_states");
	nb_list(b, "palette", SL_TAG_COMPOUND, longs ? 2 : 1);
	nb_string(b, "Name", name);
	nb_end(b);
	if (longs)
	{
		nb_string(b, "Name", "minecraft:dirt");
		nb_end(b);
		nb_longs(b, "data", zero, longs);
	}
	nb_end(b);
	nb_end(b);
}

/* A chunk of stone at Y=4 and air at Y=5, and a section of name with `longs` data longs at Y=y. */
static void
rd_chunk(sl_buf *b, int y, const char *name, uint32_t longs)
{
	b->len = 0;
	nb_tag(b, SL_TAG_COMPOUND, "");
	nb_int(b, "DataVersion", 3465);
	nb_list(b, "sections", SL_TAG_COMPOUND, 3);
	rd_section(b, 5, "minecraft:air", 0);
	rd_section(b, y, name, longs);
	rd_section(b, 4, "minecraft:stone", 0);
	nb_end(b);
}

/* The map reads only the sections its walk reaches; a reached bad one fails as opening does. */
void
test_render_scanned_sections(void)
{
	sl_buf		b = {0};
	sl_arena	arena = {0};
	sl_chunk_blocks cb;
	sl_map_opts o = {0};
	sl_map_cache cache = {0};
	sl_map_column cols[256];
	sl_dirent	d = {0};
	sl_err		err = {0};
	int			stone = sl_map_color_of("minecraft:stone", 15);
	int			same = 1;

	o.scale = 1;
	d.data_version = 3465;

	/* a good section under the surface: drawn alike both ways, and never parsed by the scan */
	rd_chunk(&b, 0, "minecraft:stone", 256);
	d.len[SL_COMP_REGION] = (uint32_t) b.len;
	CHECK_OK(sl_chunk_blocks_scan(b.data, b.len, 3465, NULL, &arena, &cb, &err), &err);
	CHECK(cb.nsections == 3 && cb.sections[0].y == 0 && cb.sections[0].pending);
	CHECK_OK(sl_map_chunk(&cb, &o, &cache, cols, &err), &err);
	for (int i = 0; i < 256; i++)
		same &= cols[i].base == stone && cols[i].height == 79;
	CHECK(same);
	CHECK(cb.sections[0].pending && !cb.sections[1].pending && !cb.sections[2].pending);
	sl_arena_free(&arena);

	/* sections of the same bytes (air at Y=5 and Y=6) are opened once and share it */
	rd_chunk(&b, 6, "minecraft:air", 0);
	CHECK_OK(sl_chunk_blocks_scan(b.data, b.len, 3465, NULL, &arena, &cb, &err), &err);
	CHECK_OK(sl_map_chunk(&cb, &o, &cache, cols, &err), &err);
	CHECK(cb.nsections == 3 && cb.sections[1].y == 5 && cb.sections[2].y == 6 &&
		  !cb.sections[1].pending && cb.sections[1].palette == cb.sections[2].palette);
	sl_arena_free(&arena);

	/* a malformed one under the surface: opening refuses the chunk, the map draws it */
	rd_chunk(&b, 0, "minecraft:stone", 3);
	d.len[SL_COMP_REGION] = (uint32_t) b.len;
	CHECK(sl_chunk_blocks_open(b.data, b.len, 3465, SL_WANT_BLOCKS, NULL, &arena, &cb, &err) != 0 &&
		  strstr(err.msg, "section Y=0: block_states.data has 3 longs") != NULL);
	sl_arena_free(&arena);
	CHECK_OK(sl_map_chunk_nbt(&d, b.data, &o, NULL, &cache, cols, &err), &err);
	CHECK(cols[0].base == stone && cols[255].height == 79);

	/* above the surface: the walk reaches it and fails as opening does */
	rd_chunk(&b, 6, "minecraft:stone", 3);
	d.len[SL_COMP_REGION] = (uint32_t) b.len;
	CHECK(sl_map_chunk_nbt(&d, b.data, &o, NULL, &cache, cols, &err) != 0 &&
		  err.code == SL_ERR_CORRUPT &&
		  strstr(err.msg, "chunk (0,0): section Y=6: block_states.data has 3 longs, expected 256") != NULL);
	sl_map_cache_free(&cache);
	sl_buf_free(&b);
}
