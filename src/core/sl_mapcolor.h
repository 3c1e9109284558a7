/*
 * sl_mapcolor.h - Minecraft's map colours: the palette (62 base colours,
 * four shades) and the base colour of each block, generated from
 * data/map_colors.tsv into sl_mapcolor.c (data/README.md tells the source).
 *
 * A map pixel is a colour id base * 4 + shade, as in the game's map items;
 * base 0 (NONE) is transparent.
 */
#ifndef SL_MAPCOLOR_H
#define SL_MAPCOLOR_H

#include <stddef.h>
#include <stdint.h>

#define SL_MAP_COLORS	62		/* base colours, 0 (NONE) included */
#define SL_MAP_SHADES	4		/* 0 darker, 1 flat, 2 lighter, 3 darkest */
#define SL_MAP_NONE		0
#define SL_MAP_WATER	12

extern const uint8_t sl_map_shades[SL_MAP_SHADES];
extern const uint8_t sl_map_rgb[SL_MAP_COLORS][3];

/* Base colour of a block name with its namespace ("minecraft:stone"), -1 when unknown. */
int			sl_map_color_find(const char *name, size_t len);

/* Number of block names the table knows. */
size_t		sl_map_color_count(void);

#endif
