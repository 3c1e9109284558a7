/*
 * gen.h - slimetool gen-world's parts: the world it makes (in either
 * layout), level.dat, and the world's own files (players, maps, raids,
 * a data pack), each written as the game of its DataVersion writes it.
 */
#ifndef SLIMETOOL_GEN_H
#define SLIMETOOL_GEN_H

#include "nbtw.h"
#include "tool.h"

#define GEN_OLD_DATA_VERSION	3700	/* 1.20.4, the old layout */
#define GEN_NEW_DATA_VERSION	4774	/* 26.1 snapshot 6, the new layout */
#define GEN_ITEM_COUNT_DV		3837	/* 24w09a: item stacks as {id, count int, components} */

/* The world gen-world makes. */
typedef struct gen_world
{
	int			size;			/* chunks along x and z */
	int			center;			/* island centre, blocks (x and z) */
	int			radius;			/* island radius, blocks */
	int			top;			/* the island's grass, y */
	int			newl;			/* 1: the 26.1 layout */
	int32_t		dv;				/* DataVersion of everything written */
	const char *overworld;		/* the overworld's folder ("" or dimensions/minecraft/overworld) */
} gen_world;

/* Write DIR/rel (creating its folders). */
int			gen_write(const char *dir, const char *rel, const uint8_t *data, size_t len);

/* Finish an NBT document and write it as DIR/rel, gzipped as the game of dv does. */
int			gen_write_nbt(const char *dir, const char *rel, nbtw *w, int32_t dv);

/* level.dat (and, in the new layout, data/minecraft/world_gen_settings.dat). */
int			gen_level(const char *dir, const gen_world *g);

/* The world's own files: a player (inventory, stats, advancements), a map, raids, a data pack. */
int			gen_world_files(const char *dir, const gen_world *g);

#endif
