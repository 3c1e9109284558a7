/*
 * sl_png.h - a rendered map (sl_render) as a PNG file, through libspng.
 *
 * The image is indexed (8-bit palette): palette index = the map colour id
 * (base * 4 + shade, 248 entries, RGB = base RGB * shade / 255 as the game
 * computes it), indices 0-3 (NONE) fully transparent, the rest opaque.
 */
#ifndef SL_PNG_H
#define SL_PNG_H

#include "sl_common.h"
#include "sl_render.h"

#define SL_PNG_ENTRIES	(SL_MAP_COLORS * SL_MAP_SHADES)

/* RGB of map colour id (base * 4 + shade) into rgb[3]. */
void		sl_png_color(int id, uint8_t rgb[3]);

/*
 * Append the PNG of m->colors to out, each block column scale x scale
 * pixels (the caller has checked the size against its cap).
 */
int			sl_png_map(const sl_map *m, uint32_t scale, sl_buf *out, sl_err *err);

#endif
