/*
 * sl_tile.c - map tiles (see sl_tile.h).
 *
 * A tile is drawn into a grid one row taller than the tile: row 0 is the
 * row of map pixels just north of the tile, so that the tile's top row is
 * shaded as the whole map shades it. Chunks are visited in directory order
 * (frames are decompressed once each) and those outside the tile skipped
 * before anything is decompressed. A map pixel of several blocks never
 * straddles chunks (cells of 2..16 blocks divide 16), so each chunk's
 * pixels are merged from its own 256 columns.
 */
#include <string.h>

#include "sl_mapcolor.h"
#include "sl_tile.h"

/* Tile (x, y) at zoom. */
int
sl_tile_at(int zoom, int32_t x, int32_t y, sl_tile *t, sl_err *err)
{
	int64_t		span;

	if (zoom < SL_TILE_ZOOM_MIN || zoom > SL_TILE_ZOOM_MAX)
		return sl_fail(err, SL_ERR_INVALID, "zoom %d is outside %d..%d", zoom,
					   SL_TILE_ZOOM_MIN, SL_TILE_ZOOM_MAX);
	t->zoom = zoom;
	t->cell = zoom < 0 ? 1u << -zoom : 1;
	t->scale = zoom > 0 ? 1u << zoom : 1;
	t->side = SL_TILE_PIXELS / t->scale;
	span = (int64_t) t->side * t->cell;
	t->x0 = (int64_t) x * span;
	t->z0 = (int64_t) y * span;
	return 0;
}

/* The most common colour of a cell x cell square of columns, their average height and depth. */
static sl_map_column
merge_cell(const sl_map_column cols[256], uint32_t x, uint32_t z, uint32_t cell)
{
	uint16_t	count[256] = {0};
	int32_t		height = 0;
	int32_t		depth = 0;
	uint32_t	drawn = 0;
	uint32_t	water = 0;
	sl_map_column r = {0, 0, 0};

	for (uint32_t j = z; j < z + cell; j++)
		for (uint32_t i = x; i < x + cell; i++)
		{
			const sl_map_column *c = &cols[j * 16 + i];

			if (c->base == 0)
				continue;
			if (++count[c->base] > count[r.base] || r.base == 0)
				r.base = c->base;
			height += c->height;
			drawn++;
			if (c->base == SL_MAP_WATER)
			{
				depth += c->depth;
				water++;
			}
		}
	if (drawn == 0)
		return r;
	r.height = (int16_t) (height / (int32_t) drawn);
	r.depth = r.base == SL_MAP_WATER ? (uint8_t) (depth / (int32_t) water) : 0;
	return r;
}

/* Put a chunk's columns into the grid g (row 0: the row north of the tile). */
static void
place(sl_map *g, const sl_tile *t, int64_t cx, int64_t cz, const sl_map_column cols[256])
{
	uint32_t	c = t->cell;
	uint32_t	n = 16 / c;

	/* exact: chunk corners, the tile's corner and the north row's are multiples of the cell */
	int64_t		gx0 = (cx * 16 - t->x0) / c;
	int64_t		gz0 = (cz * 16 - (t->z0 - c)) / c;

	for (uint32_t j = 0; j < n; j++)
	{
		int64_t		gz = gz0 + j;

		if (gz < 0 || gz >= g->height)
			continue;
		for (uint32_t i = 0; i < n; i++)
		{
			int64_t		gx = gx0 + i;

			if (gx >= 0 && gx < g->width)
				g->cols[gz * g->width + gx] = c == 1 ? cols[j * 16 + i] : merge_cell(cols, i * c, j * c, c);
		}
	}
}

/* Draw chunk i into the grid when it lies under the tile or just north of it. */
static int
tile_chunk(sl_value *v, uint32_t i, const sl_tile *t, const sl_map_opts *o, const sl_limits *lim,
		   sl_map_cache *cache, sl_map *g, sl_err *err)
{
	const uint8_t *comp[SL_NCOMP];
	int64_t		span = (int64_t) t->side * t->cell;
	sl_dirent	d;
	sl_map_column cols[256];

	if (sl_value_dirent(v, i, &d, err))
		return -1;
	if ((int64_t) d.x * 16 < t->x0 || (int64_t) d.x * 16 >= t->x0 + span ||
		(int64_t) d.z * 16 < t->z0 - 16 || (int64_t) d.z * 16 >= t->z0 + span ||
		d.len[SL_COMP_REGION] == 0)
		return 0;
	if (sl_value_chunk(v, i, &d, comp, err) ||
		sl_map_chunk_nbt(&d, comp[SL_COMP_REGION], o, lim, cache, cols, err))
		return -1;
	place(g, t, d.x, d.z, cols);
	return 0;
}

/* Draw tile t of an open value into m. */
int
sl_tile_render(sl_value *v, const sl_tile *t, const sl_map_opts *o, const sl_limits *lim,
			   sl_map *m, sl_err *err)
{
	sl_map_cache cache = {0};
	sl_map		g = {0};
	size_t		n = (size_t) t->side * (t->side + 1);
	int			rc = 0;

	memset(m, 0, sizeof(*m));
	g.width = t->side;
	g.height = t->side + 1;
	/* only the parity of the origin matters to the shading */
	g.x0 = (int32_t) (uint32_t) (uint64_t) (t->x0 / t->cell);
	g.z0 = (int32_t) (uint32_t) (uint64_t) (t->z0 / t->cell - 1);
	g.cols = sl_alloc_err(n * sizeof(sl_map_column), err);
	if (g.cols == NULL)
		return -1;
	memset(g.cols, 0, n * sizeof(sl_map_column));
	for (uint32_t i = 0; i < v->hdr.chunk_count && rc == 0; i++)
	{
		if ((i & 63) == 63)
			sl_interrupt();
		rc = tile_chunk(v, i, t, o, lim, &cache, &g, err);
	}
	sl_map_cache_free(&cache);
	if (rc == 0)
		rc = sl_map_shade(&g, err);
	if (rc == 0)
	{
		m->colors = sl_alloc_err((size_t) t->side * t->side, err);
		rc = m->colors == NULL ? -1 : 0;
	}
	if (rc == 0)
	{
		memcpy(m->colors, g.colors + t->side, (size_t) t->side * t->side);
		m->width = m->height = t->side;
		m->x0 = (int32_t) (uint32_t) (uint64_t) t->x0;
		m->z0 = (int32_t) (uint32_t) (uint64_t) t->z0;
	}
	sl_map_free(&g);
	return rc;
}
