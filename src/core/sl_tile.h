/*
 * sl_tile.h - map tiles: a value's top-down map (sl_render) cut into
 * 256 x 256 pixel squares for slippy maps (Leaflet's CRS.Simple, one unit
 * a block: x east, y south).
 *
 * Zoom z draws 2^z pixels a block. z = 0 is one block a pixel; z = 1..4
 * enlarge (a tile covers 128 down to 16 blocks a side); z = -1..-4 are
 * overviews of 2^-z blocks a pixel, up to 4096 blocks (256 chunks) a side,
 * drawn as the game draws maps of scale 1..4: each pixel the most common
 * colour of its blocks, shaded by their average height against the pixel
 * north of it (water by its average depth). Tile (x, y) at zoom z covers
 * blocks x * 256 / 2^z .. and z * 256 / 2^z .. (both may be negative).
 *
 * A tile at zoom <= 0 is exactly the same pixels as the whole map drawn at
 * scale 1 and cut (its top row is shaded against the block row north of
 * the tile, so tiles join without seams). Memory: the value, one chunk's
 * blocks at a time and about 330 KB, whatever the world's size.
 */
#ifndef SL_TILE_H
#define SL_TILE_H

#include "sl_render.h"

#define SL_TILE_PIXELS		256
#define SL_TILE_ZOOM_MIN	(-4)
#define SL_TILE_ZOOM_MAX	4

/* Where a tile lies. */
typedef struct sl_tile
{
	int			zoom;
	int64_t		x0;				/* world block x of the north-west corner */
	int64_t		z0;				/* world block z of the north-west corner */
	uint32_t	cell;			/* blocks a map pixel covers, each way (1, 2, .. 16) */
	uint32_t	side;			/* map pixels a side (256, or 256 >> zoom above 0) */
	uint32_t	scale;			/* image pixels a map pixel, each way (1 << zoom above 0) */
} sl_tile;

/* Tile (x, y) at zoom; SL_ERR_INVALID for a zoom outside SL_TILE_ZOOM_MIN..MAX. */
int			sl_tile_at(int zoom, int32_t x, int32_t y, sl_tile *t, sl_err *err);

/*
 * Draw tile t of an open value into m: side x side map colours (m->colors,
 * 0 transparent), to be written as a PNG at t->scale (sl_png_map). Only the
 * chunks under the tile and the chunk row north of it are decoded.
 */
int			sl_tile_render(sl_value *v, const sl_tile *t, const sl_map_opts *o,
						   const sl_limits *lim, sl_map *m, sl_err *err);

#endif
