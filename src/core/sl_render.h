/*
 * sl_render.h - top-down maps of a value's chunks, as Minecraft's map items
 * draw them: one pixel per block column, the map colour of the highest
 * block the map draws (sl_mapcolor), shaded by height against the column
 * north of it, water by its depth.
 *
 * The decoding is sl_blocks' (every era: 1.18+ and 1.13-1.17 palettes,
 * pre-1.13 numeric ids through the legacy table); rendering a chunk is
 * that plus one pass over its columns, from the top down.
 */
#ifndef SL_RENDER_H
#define SL_RENDER_H

#include "sl_blocks.h"
#include "sl_common.h"
#include "sl_value.h"

/* The default cap on a map's pixels: slime.max_render_pixels and slimetool render. */
#define SL_MAP_DEFAULT_MAX_PIXELS	(4096 * 4096)

/* What to render. */
typedef struct sl_map_opts
{
	int			has_y_max;		/* 0: from the top of each chunk */
	int32_t		y_max;			/* highest block y drawn */
	uint32_t	scale;			/* pixels per block column, each way (PNG only) */
	uint64_t	max_pixels;		/* cap on the image's pixels (width * height * scale^2) */
	/* called after each chunk with chunks done and their total, or NULL */
	void		(*progress) (void *ctx, uint32_t done, uint32_t total);
	void	   *progress_ctx;
} sl_map_opts;

/* One block column of a chunk. */
typedef struct sl_map_column
{
	uint8_t		base;			/* map base colour, 0: nothing drawn */
	uint8_t		depth;			/* water: blocks of water below the surface (255 max) */
	int16_t		height;			/* y of the block drawn */
} sl_map_column;

/* A rendered map: block columns, row by row from the north-west corner. */
typedef struct sl_map
{
	int32_t		x0;				/* world x of the first column */
	int32_t		z0;				/* world z of the first row */
	uint32_t	width;
	uint32_t	height;
	sl_map_column *cols;		/* width * height, before shading */
	uint8_t    *colors;			/* width * height map colours (base * 4 + shade), 0 transparent */
} sl_map;

/* Caches one render keeps across chunks (legacy ids, unknown names). */
typedef struct sl_map_cache
{
	uint8_t    *legacy;			/* SL_LEGACY_KEYS colours, 0xFF: not looked up yet */
} sl_map_cache;

/*
 * Size in block columns of the map of a value with header h (the bounding
 * box of its chunks); SL_ERR_LIMIT when the image (times scale^2) exceeds
 * o->max_pixels or a side exceeds 2^31 - 1, before anything is allocated.
 */
int			sl_map_size(const sl_header *h, const sl_map_opts *o, uint32_t *width,
						uint32_t *height, sl_err *err);

/* Base colour of a block name (UTF-8, namespace optional): the table's, else a stable colour. */
int			sl_map_color_of(const char *name, size_t len);

/*
 * The 256 columns (index z * 16 + x) of an opened chunk (SL_WANT_BLOCKS) or
 * a scanned one (sl_chunk_blocks_scan: the sections the walk reaches are
 * loaded). A palette index past its palette is SL_ERR_FORMAT naming the
 * section.
 */
int			sl_map_chunk(sl_chunk_blocks *c, const sl_map_opts *o, sl_map_cache *cache,
						 sl_map_column cols[256], sl_err *err);

/*
 * The same from the region NBT of a chunk of a value (d: its directory
 * entry, for the DataVersion and the position errors name), scanned: only
 * the sections the walk reaches are parsed and checked. Malformed block
 * data is SL_ERR_CORRUPT naming the chunk.
 */
int			sl_map_chunk_nbt(const sl_dirent *d, const uint8_t *nbt, const sl_map_opts *o,
							 const sl_limits *lim, sl_map_cache *cache, sl_map_column cols[256],
							 sl_err *err);

/* Shade every column into m->colors (needs m->cols). */
int			sl_map_shade(sl_map *m, sl_err *err);

/*
 * Render every chunk of an open value into m (sized by sl_map_size first).
 * A chunk that fails is an error naming it, with SL_ERR_CORRUPT for
 * malformed block data.
 */
int			sl_map_render(sl_value *v, const sl_map_opts *o, const sl_limits *lim,
						  sl_map *m, sl_err *err);

void		sl_map_cache_free(sl_map_cache *cache);
void		sl_map_free(sl_map *m);

#endif
