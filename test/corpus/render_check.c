/*
 * render_check.c - the renderer over one world of each era of the shared
 * corpus: each region file becomes a value, is rendered (sl_render,
 * sl_png) at scale 1 and 2, and the PNG is decoded again by libspng, the
 * library that wrote it. Checks: the size is the chunks' bounding box
 * (times the scale), every pixel decodes to the RGBA of its map colour
 * (transparent exactly where the map has no block), and the picture has a
 * plausible number of distinct colours (a real world is not one colour).
 * Tiles (sl_tile): every zoom 0 tile over the world is the same pixels as
 * the whole map cut, zoom 2 has the same colour a block, and in every
 * overview tile (zoom -1..-4) a pixel is drawn exactly where one of its
 * blocks is, in the colour of one of them; a tile away from the world is
 * transparent. Every chunk of every region file of the corpus is also
 * drawn from its scanned sections (sl_map_chunk_nbt, which builds the tree
 * of a section only when the walk reaches it) and from its whole tree
 * (sl_chunk_blocks_open, then sl_map_chunk): the columns must be the same,
 * from the top and under a y_max, so tiles are the same bytes either way.
 *
 *   render_check CORPUS_DIR
 *
 * Prints one line per world and "N passed, N failed".
 */
#define _XOPEN_SOURCE 700
#include <spng.h>

#include "corpus_util.h"
#include "sl_build.h"
#include "sl_mapcolor.h"
#include "sl_png.h"
#include "sl_render.h"
#include "sl_tile.h"

/* One world per era, and the fewest distinct colours its map must show. */
static const struct
{
	const char *path;
	int			min_colors;
}			worlds[] =
{
	{"anvil-1.18plus/querz-nbt/parsers/r.0.0.mca", 8},
	{"anvil-1.13-1.17/amulet-core/1_16_5_dimension/r.-1.-1.mca", 8},
	{"anvil-1.2-1.12/pymclevel/AnvilWorld/r.0.0.mca", 8},
	{"mcregion/cu_minecraft/r.0.0.mcr", 8},
};

static int	passed,
			failed;

/* Count a check. */
static void
check(int ok, const char *world, const char *what)
{
	if (ok)
		passed++;
	else
	{
		failed++;
		printf("FAILED: %s: %s\n", world, what);
	}
}

/* A region file as an encoded value. */
static void
region_value(const char *path, sl_buf *out)
{
	sl_region	r;
	sl_builder	b;
	sl_err		err;

	corpus_read_region(path, &r);
	memset(&b, 0, sizeof(b));
	if (sl_builder_add_region(&b, SL_COMP_REGION, &r, &err) ||
		sl_builder_encode(&b, &sl_default_encode_opts, &sl_default_limits, out, &err))
		die("%s: %s", path, err.msg);
	sl_builder_free(&b);
	sl_region_free(&r);
}

/* Decode a PNG to RGBA8 with libspng; NULL on failure. */
static uint8_t *
decode_png(const sl_buf *png, uint32_t *w, uint32_t *h)
{
	spng_ctx   *ctx = spng_ctx_new(0);
	struct spng_ihdr ihdr;
	size_t		n;
	uint8_t    *rgba = NULL;

	if (ctx && spng_set_png_buffer(ctx, png->data, png->len) == 0 &&
		spng_get_ihdr(ctx, &ihdr) == 0 &&
		spng_decoded_image_size(ctx, SPNG_FMT_RGBA8, &n) == 0)
	{
		rgba = xmalloc(n);
		if (spng_decode_image(ctx, rgba, n, SPNG_FMT_RGBA8, SPNG_DECODE_TRNS))
		{
			free(rgba);
			rgba = NULL;
		}
		*w = ihdr.width;
		*h = ihdr.height;
	}
	spng_ctx_free(ctx);
	return rgba;
}

/* Render one world at a scale and check the decoded PNG against the map. */
static void
check_scale(const char *name, const sl_map *m, uint32_t scale)
{
	sl_buf		png = {NULL, 0, 0};
	sl_err		err;
	uint32_t	w = 0,
				h = 0;
	uint8_t    *rgba;
	long		wrong = 0;

	if (sl_png_map(m, scale, &png, &err))
	{
		check(0, name, err.msg);
		return;
	}
	rgba = decode_png(&png, &w, &h);
	check(rgba != NULL, name, "libspng decodes the PNG");
	check(w == m->width * scale && h == m->height * scale, name, "image size is the bounding box times the scale");
	if (rgba && w == m->width * scale && h == m->height * scale)
		for (uint32_t y = 0; y < h; y++)
			for (uint32_t x = 0; x < w; x++)
			{
				uint8_t		id = m->colors[(size_t) (y / scale) * m->width + x / scale];
				const uint8_t *p = rgba + 4 * ((size_t) y * w + x);
				uint8_t		rgb[3];

				sl_png_color(id, rgb);
				if (id / 4 == SL_MAP_NONE ? p[3] != 0 :
					(p[3] != 255 || memcmp(p, rgb, 3) != 0))
					wrong++;
			}
	check(wrong == 0, name, "every pixel is its map colour (transparent where nothing is drawn)");
	free(rgba);
	sl_buf_free(&png);
}

/* Floor division of a block coordinate by a tile span. */
static int32_t
floor_div(int64_t a, int64_t b)
{
	return (int32_t) (a >= 0 ? a / b : -((-a + b - 1) / b));
}

/* Colour of block (x, z) of the whole map m, or 0 outside it. */
static uint8_t
map_at(const sl_map *m, int64_t x, int64_t z)
{
	if (x < m->x0 || z < m->z0 || x >= (int64_t) m->x0 + m->width || z >= (int64_t) m->z0 + m->height)
		return 0;
	return m->colors[(size_t) (z - m->z0) * m->width + (size_t) (x - m->x0)];
}

/* Every tile over the world at one zoom against the whole map; returns the pixels wrong. */
static long
check_tiles_at(sl_value *v, const sl_map *m, int zoom, int *tiles)
{
	sl_map_opts o = {0};
	sl_tile		t;
	sl_err		err;
	long		wrong = 0;
	int64_t		span;

	o.scale = 1;
	sl_tile_at(zoom, 0, 0, &t, &err);
	span = (int64_t) t.side * t.cell;
	for (int32_t ty = floor_div(m->z0, span); ty <= floor_div((int64_t) m->z0 + m->height - 1, span); ty++)
		for (int32_t tx = floor_div(m->x0, span); tx <= floor_div((int64_t) m->x0 + m->width - 1, span); tx++)
		{
			sl_map		tm;

			if (sl_tile_at(zoom, tx, ty, &t, &err) || sl_tile_render(v, &t, &o, &sl_default_limits, &tm, &err))
				return -1;
			(*tiles)++;
			for (uint32_t j = 0; j < t.side; j++)
				for (uint32_t i = 0; i < t.side; i++)
				{
					uint8_t		got = tm.colors[j * t.side + i];
					int			any = 0,
								same = 0;

					for (uint32_t b = 0; b < t.cell * t.cell; b++)
					{
						uint8_t		c = map_at(m, t.x0 + i * t.cell + b % t.cell, t.z0 + j * t.cell + b / t.cell);

						any |= c != 0;
						same |= c / 4 == got / 4;
					}
					if (t.cell == 1 ? got != map_at(m, t.x0 + i, t.z0 + j) : (got != 0) != any || (got && !same))
						wrong++;
				}
			sl_map_free(&tm);
		}
	return wrong;
}

/* Tiles of a world at zoom 0, 2 and -1..-4, and one away from it. */
static void
check_tiles(const char *rel, sl_value *v, const sl_map *m)
{
	sl_map_opts o = {0};
	sl_tile		t;
	sl_map		tm;
	sl_err		err;
	char		what[96];
	int			blank = 1;

	for (int zoom = 2; zoom >= SL_TILE_ZOOM_MIN; zoom--)
	{
		int			tiles = 0;
		long		wrong;

		if (zoom == 1)
			continue;
		wrong = check_tiles_at(v, m, zoom, &tiles);
		snprintf(what, sizeof(what), "zoom %d: %d tiles, %ld pixels wrong", zoom, tiles, wrong);
		check(wrong == 0 && tiles > 0, rel, what);
	}
	o.scale = 1;
	if (sl_tile_at(0, 1000, -1000, &t, &err) || sl_tile_render(v, &t, &o, &sl_default_limits, &tm, &err))
		check(0, rel, err.msg);
	else
	{
		for (size_t i = 0; i < (size_t) t.side * t.side; i++)
			blank &= tm.colors[i] == 0;
		check(blank, rel, "a tile away from the world is transparent");
		sl_map_free(&tm);
	}
	check(sl_tile_at(5, 0, 0, &t, &err) != 0 && sl_tile_at(-5, 0, 0, &t, &err) != 0, rel,
		  "zooms outside -4..4 are refused");
}

/* Render one corpus world and check it. */
static void
check_world(const char *corpus, const char *rel, int min_colors)
{
	char		path[4096];
	sl_buf		value = {NULL, 0, 0};
	sl_value	v;
	sl_map		m;
	sl_map_opts o = {0};
	sl_err		err;
	int			seen[SL_PNG_ENTRIES] = {0};
	int			distinct = 0;
	size_t		drawn = 0;
	double		t0;

	snprintf(path, sizeof(path), "%s/%s", corpus, rel);
	region_value(path, &value);
	if (sl_value_open_mem(&v, value.data, value.len, &sl_default_limits, &err))
		die("%s: %s", rel, err.msg);
	o.scale = 1;
	o.max_pixels = (uint64_t) 1 << 26;
	t0 = corpus_now();
	if (sl_map_render(&v, &o, &sl_default_limits, &m, &err))
	{
		check(0, rel, err.msg);
		sl_value_close(&v);
		sl_buf_free(&value);
		return;
	}
	check(m.width == (uint32_t) (v.hdr.max_x - v.hdr.min_x + 1) * 16 &&
		  m.height == (uint32_t) (v.hdr.max_z - v.hdr.min_z + 1) * 16, rel, "map covers the chunks' bounding box");
	for (size_t i = 0; i < (size_t) m.width * m.height; i++)
	{
		drawn += m.colors[i] != 0;
		if (!seen[m.colors[i]]++ && m.colors[i])
			distinct++;
	}
	check(distinct >= min_colors, rel, "a plausible number of distinct colours");
	check(drawn > (size_t) m.width * m.height / 10, rel, "most of the world is drawn");
	check_scale(rel, &m, 1);
	check_scale(rel, &m, 2);
	check_tiles(rel, &v, &m);
	printf("%-60s %4u chunks  %4u x %-4u  %3d colours  %5.1f%% drawn  %6.1f ms\n", rel,
		   v.hdr.chunk_count, m.width, m.height, distinct,
		   100.0 * drawn / ((double) m.width * m.height), (corpus_now() - t0) * 1e3);
	sl_map_free(&m);
	sl_value_close(&v);
	sl_buf_free(&value);
}

/* A chunk's columns from its whole tree; -1 when it does not open or draw. */
static int
columns_of_tree(const sl_region_chunk *ch, const sl_map_opts *o, sl_map_column cols[256])
{
	sl_arena	arena = {0};
	sl_map_cache cache = {0};
	sl_chunk_blocks cb;
	sl_err		err;
	int			rc;

	rc = sl_chunk_blocks_open(ch->nbt, ch->nbt_len, SL_NO_DV, SL_WANT_BLOCKS, &sl_default_limits,
							  &arena, &cb, &err);
	if (rc == 0)
		rc = sl_map_chunk(&cb, o, &cache, cols, &err);
	sl_map_cache_free(&cache);
	sl_arena_free(&arena);
	return rc;
}

/* Every chunk of every corpus region: scanned columns equal the whole tree's. */
static void
check_scan(const char *corpus)
{
	static const char *const eras[] = {"anvil-1.18plus", "anvil-1.13-1.17", "anvil-1.2-1.12", "mcregion"};
	corpus_file *files;
	int			nfiles;
	long		chunks = 0,
				differ = 0;
	char		what[128];

	corpus_list_regions(corpus, eras, 4, CORPUS_BY_PATH, &files, &nfiles);
	for (int f = 0; f < nfiles; f++)
	{
		sl_region	r;

		corpus_read_region(files[f].path, &r);
		for (int i = 0; i < r.nchunks; i++)
			for (int pass = 0; pass < 2; pass++)
			{
				const sl_region_chunk *ch = &r.chunks[i];
				sl_map_opts o = {0};
				sl_map_cache cache = {0};
				sl_map_column tree[256],
							scanned[256];
				sl_dirent	d = {0};
				sl_err		err;

				o.scale = 1;
				o.has_y_max = pass;
				o.y_max = 40;
				d.x = ch->x;
				d.z = ch->z;
				d.data_version = SL_NO_DV;
				d.len[SL_COMP_REGION] = (uint32_t) ch->nbt_len;
				chunks += pass == 0;
				if (columns_of_tree(ch, &o, tree) != 0)
					continue;	/* the scan may draw what the tree refuses, never the reverse */
				if (sl_map_chunk_nbt(&d, ch->nbt, &o, &sl_default_limits, &cache, scanned, &err) != 0 ||
					memcmp(tree, scanned, sizeof(tree)) != 0)
				{
					if (differ++ < 5)
						printf("scan differs: %s chunk (%d,%d)%s\n", files[f].path, ch->x, ch->z,
							   pass ? " under y_max 40" : "");
				}
				sl_map_cache_free(&cache);
			}
		sl_region_free(&r);
		free(files[f].path);
	}
	free(files);
	snprintf(what, sizeof(what), "%ld chunks of %d region files: %ld drawn otherwise from their scanned sections",
			 chunks, nfiles, differ);
	check(differ == 0 && chunks > 0, "corpus", what);
	printf("%-60s %ld chunks, scanned sections draw the same columns as whole trees\n", "(every region file)", chunks);
}

int
main(int argc, char **argv)
{
	if (argc != 2)
		die("usage: render_check CORPUS_DIR");
	for (size_t i = 0; i < sizeof(worlds) / sizeof(worlds[0]); i++)
		check_world(argv[1], worlds[i].path, worlds[i].min_colors);
	check_scan(argv[1]);
	printf("render_check: %d passed, %d failed\n", passed, failed);
	return failed != 0;
}
