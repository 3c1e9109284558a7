/*
 * test_render.c - the map colour table against data/map_colors.tsv, the
 * colour of names the table lacks, and the PNG of a small map.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
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
