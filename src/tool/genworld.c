/*
 * genworld.c - slimetool gen-world: a small synthetic but valid world
 * folder for tests: a floating island of N x N chunks in region 0,0 with a
 * chest fed by two hoppers, a composter (a farmer POI) and a pig, and the
 * world's own files (genfiles.c: a player with a map in their inventory,
 * stats, advancements, the map, raids, a data pack). --layout old (the
 * default) writes a 1.20.4 world (DataVersion 3700) in the layout before
 * 26.1, --layout new a 26.1 snapshot 6 world (4774) in the layout from it
 * on (wlayout.h). Output is deterministic: fixed timestamps, UUIDs and
 * layout.
 */
#include "gen.h"
#include "wlayout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sl_nbt.h"

#define GRASS_Y			64			/* top of the island */
#define FIRST_SECTION	3			/* sections 3 and 4 hold every block */
#define LAST_SECTION	4
#define MAX_SIZE		32

/* Blocks of the island. */
enum
{
	B_AIR, B_STONE, B_DIRT, B_GRASS, B_CHEST, B_HOPPER_DOWN, B_HOPPER_EAST,
	B_COMPOSTER, NBLOCKS
};

typedef struct block_def
{
	const char *name;
	const char *props[7];		/* key, value, ..., NULL */
} block_def;

static const block_def blocks[NBLOCKS] = {
	{"minecraft:air", {NULL}},
	{"minecraft:stone", {NULL}},
	{"minecraft:dirt", {NULL}},
	{"minecraft:grass_block", {"snowy", "false", NULL}},
	{"minecraft:chest", {"facing", "south", "type", "single", "waterlogged", "false", NULL}},
	{"minecraft:hopper", {"enabled", "true", "facing", "down", NULL}},
	{"minecraft:hopper", {"enabled", "true", "facing", "east", NULL}},
	{"minecraft:composter", {"level", "0", NULL}},
};

/* The generated world: size in chunks and the feature spot. */
typedef struct gen
{
	int			size;
	int			center;			/* island centre, blocks (x and z) */
	int			radius;			/* island radius, blocks */
	int			fx;				/* feature spot, blocks (x and z) */
	int			fchunk;			/* its chunk (x and z) */
	int32_t		dv;				/* DataVersion of every document */
} gen;

/* A placed block that is not terrain. */
typedef struct feature
{
	int			dx;
	int			y;
	int			block;
} feature;

static const feature features[] = {
	{0, GRASS_Y + 1, B_CHEST},
	{0, GRASS_Y + 2, B_HOPPER_DOWN},
	{-1, GRASS_Y + 1, B_HOPPER_EAST},
	{2, GRASS_Y + 1, B_COMPOSTER},
};

#define NFEATURES ((int) (sizeof(features) / sizeof(features[0])))

/* Stone depth below the dirt of a column (1..11), 0 outside the island. */
static int
column_depth(const gen *g, int bx, int bz)
{
	int64_t		dx = 2 * (int64_t) bx + 1 - 2 * (int64_t) g->center;
	int64_t		dz = 2 * (int64_t) bz + 1 - 2 * (int64_t) g->center;
	int64_t		d2 = dx * dx + dz * dz;
	int64_t		r2 = 4 * (int64_t) g->radius * g->radius;

	return d2 > r2 ? 0 : 1 + (int) (10 * (r2 - d2) / r2);
}

/* The block at an absolute position. */
static int
block_at(const gen *g, int bx, int y, int bz)
{
	int			depth;

	if (bz == g->fx)
		for (int i = 0; i < NFEATURES; i++)
			if (bx == g->fx + features[i].dx && y == features[i].y)
				return features[i].block;
	depth = column_depth(g, bx, bz);
	if (depth == 0 || y > GRASS_Y)
		return B_AIR;
	if (y == GRASS_Y)
		return B_GRASS;
	if (y >= GRASS_Y - 2)
		return B_DIRT;
	return y >= GRASS_Y - 2 - depth ? B_STONE : B_AIR;
}

/* One section's blocks as palette indices. */
typedef struct section
{
	int			y;
	int			npal;
	int			palette[NBLOCKS];
	uint8_t		idx[4096];		/* y * 256 + z * 16 + x */
} section;

/* Fill a section of chunk cx,cz; returns 0 when it is all air. */
static int
fill_section(const gen *g, int cx, int cz, int sy, section *s)
{
	int			map[NBLOCKS];

	for (int b = 0; b < NBLOCKS; b++)
		map[b] = -1;
	s->y = sy;
	s->npal = 0;
	for (int i = 0; i < 4096; i++)
	{
		int			b = block_at(g, cx * 16 + (i & 15), sy * 16 + (i >> 8),
								 cz * 16 + ((i >> 4) & 15));

		if (map[b] < 0)
		{
			map[b] = s->npal;
			s->palette[s->npal++] = b;
		}
		s->idx[i] = (uint8_t) map[b];
	}
	return !(s->npal == 1 && s->palette[0] == B_AIR);
}

/* Pack palette indices into longs (entries never span two longs). */
static uint32_t
pack_states(const section *s, uint64_t *longs)
{
	int			bits = 4;
	int			per;
	uint32_t	n;

	while ((1 << bits) < s->npal)
		bits++;
	per = 64 / bits;
	n = (uint32_t) ((4096 + per - 1) / per);
	memset(longs, 0, n * sizeof(uint64_t));
	for (int i = 0; i < 4096; i++)
		longs[i / per] |= (uint64_t) s->idx[i] << ((i % per) * bits);
	return n;
}

/* Write a block state compound (list element) for block b. */
static void
write_block_state(nbtw *w, int b)
{
	const block_def *d = &blocks[b];

	nw_string(w, "Name", d->name);
	if (d->props[0])
	{
		nw_compound(w, "Properties");
		for (int p = 0; d->props[p]; p += 2)
			nw_string(w, d->props[p], d->props[p + 1]);
		nw_end(w);
	}
	nw_end(w);
}

/* Write one section compound (list element). */
static void
write_section(nbtw *w, const section *s)
{
	uint64_t	longs[256];

	nw_byte(w, "Y", s->y);
	nw_compound(w, "block_states");
	nw_list(w, "palette", SL_TAG_COMPOUND, (uint32_t) s->npal);
	for (int p = 0; p < s->npal; p++)
		write_block_state(w, s->palette[p]);
	if (s->npal > 1)
		nw_long_array(w, "data", longs, pack_states(s, longs));
	nw_end(w);
	nw_compound(w, "biomes");
	nw_list(w, "palette", SL_TAG_STRING, 1);
	nw_str(w, "minecraft:plains");
	nw_end(w);
	nw_end(w);
}

/* Write the sections list of chunk cx,cz (only sections with blocks). */
static void
write_sections(nbtw *w, const gen *g, int cx, int cz)
{
	section    *s = calloc(LAST_SECTION - FIRST_SECTION + 1, sizeof(section));
	uint32_t	n = 0;

	if (s == NULL)
	{
		w->failed = 1;
		sl_fail(&w->err, SL_ERR_NOMEM, "out of memory");
		return;
	}
	for (int sy = FIRST_SECTION; sy <= LAST_SECTION; sy++)
		n += fill_section(g, cx, cz, sy, &s[n]);
	nw_list(w, "sections", SL_TAG_COMPOUND, n);
	for (uint32_t i = 0; i < n; i++)
		write_section(w, &s[i]);
	free(s);
}

/* Write one item stack (list element) in the form of the world's DataVersion. */
static void
write_item(nbtw *w, const gen *g, int slot, const char *id, int count)
{
	nw_byte(w, "Slot", slot);
	nw_string(w, "id", id);
	if (g->dv >= GEN_ITEM_COUNT_DV)
		nw_int(w, "count", count);
	else
		nw_byte(w, "Count", count);
	nw_end(w);
}

/* Write the start of a block entity compound (list element). */
static void
write_be_head(nbtw *w, const char *id, int x, int y, int z)
{
	nw_string(w, "id", id);
	nw_int(w, "x", x);
	nw_int(w, "y", y);
	nw_int(w, "z", z);
	nw_byte(w, "keepPacked", 0);
}

/* Write the block entities of chunk cx,cz: the chest and its hoppers. */
static void
write_block_entities(nbtw *w, const gen *g, int cx, int cz)
{
	int			here = cx == g->fchunk && cz == g->fchunk;
	int			y = GRASS_Y + 1;

	nw_list(w, "block_entities", here ? SL_TAG_COMPOUND : SL_TAG_END, here ? 3 : 0);
	if (!here)
		return;
	write_be_head(w, "minecraft:chest", g->fx, y, g->fx);
	nw_list(w, "Items", SL_TAG_COMPOUND, 3);
	write_item(w, g, 0, "minecraft:diamond", 3);
	write_item(w, g, 1, "minecraft:oak_log", 16);
	write_item(w, g, 13, "minecraft:bread", 5);
	nw_end(w);
	write_be_head(w, "minecraft:hopper", g->fx, y + 1, g->fx);
	nw_list(w, "Items", SL_TAG_COMPOUND, 1);
	write_item(w, g, 0, "minecraft:cobblestone", 8);
	nw_int(w, "TransferCooldown", 0);
	nw_end(w);
	write_be_head(w, "minecraft:hopper", g->fx - 1, y, g->fx);
	nw_list(w, "Items", SL_TAG_END, 0);
	nw_int(w, "TransferCooldown", 0);
	nw_end(w);
}

/* Write the NBT document of terrain chunk cx,cz. */
static void
write_chunk(nbtw *w, const gen *g, int cx, int cz)
{
	nw_compound(w, "");
	nw_int(w, "DataVersion", g->dv);
	nw_int(w, "xPos", cx);
	nw_int(w, "zPos", cz);
	nw_int(w, "yPos", -4);
	nw_string(w, "Status", "minecraft:full");
	nw_long(w, "LastUpdate", 0);
	nw_long(w, "InhabitedTime", 0);
	nw_byte(w, "isLightOn", 0);
	write_sections(w, g, cx, cz);
	write_block_entities(w, g, cx, cz);
	nw_compound(w, "Heightmaps");
	nw_end(w);
	nw_list(w, "block_ticks", SL_TAG_END, 0);
	nw_list(w, "fluid_ticks", SL_TAG_END, 0);
	nw_compound(w, "structures");
	nw_compound(w, "References");
	nw_end(w);
	nw_compound(w, "starts");
	nw_end(w);
	nw_end(w);
	nw_end(w);
}

/* Write a list of three doubles. */
static void
write_vec3(nbtw *w, const char *name, double x, double y, double z)
{
	nw_list(w, name, SL_TAG_DOUBLE, 3);
	nw_double_v(w, x);
	nw_double_v(w, y);
	nw_double_v(w, z);
}

/* Write the pig (list element). */
static void
write_pig(nbtw *w, const gen *g)
{
	static const int32_t uuid[4] = {0x736c696d, 0x65000001, -0x7f000000, 0x0000002a};

	nw_string(w, "id", "minecraft:pig");
	write_vec3(w, "Pos", g->fx - 3.5, GRASS_Y + 1.0, g->fx - 3.5);
	write_vec3(w, "Motion", 0.0, 0.0, 0.0);
	nw_list(w, "Rotation", SL_TAG_FLOAT, 2);
	nw_float_v(w, 90.0f);
	nw_float_v(w, 0.0f);
	nw_int_array(w, "UUID", uuid, 4);
	nw_float(w, "Health", 10.0f);
	nw_short(w, "Air", 300);
	nw_short(w, "Fire", -1);
	nw_float(w, "FallDistance", 0.0f);
	nw_byte(w, "OnGround", 1);
	nw_byte(w, "Invulnerable", 0);
	nw_int(w, "PortalCooldown", 0);
	nw_int(w, "Age", 0);
	nw_byte(w, "Saddle", 0);
	nw_byte(w, "PersistenceRequired", 1);
	nw_end(w);
}

/* Write the entities document of the feature chunk. */
static void
write_entities(nbtw *w, const gen *g)
{
	int32_t		pos[2] = {g->fchunk, g->fchunk};

	nw_compound(w, "");
	nw_int(w, "DataVersion", g->dv);
	nw_int_array(w, "Position", pos, 2);
	nw_list(w, "Entities", SL_TAG_COMPOUND, 1);
	write_pig(w, g);
	nw_end(w);
}

/* Write the POI document of the feature chunk: the composter (farmer). */
static void
write_poi(nbtw *w, const gen *g)
{
	int32_t		pos[3] = {g->fx + 2, GRASS_Y + 1, g->fx};
	char		key[8];

	snprintf(key, sizeof(key), "%d", (GRASS_Y + 1) >> 4);
	nw_compound(w, "");
	nw_int(w, "DataVersion", g->dv);
	nw_compound(w, "Sections");
	nw_compound(w, key);
	nw_byte(w, "Valid", 1);
	nw_list(w, "Records", SL_TAG_COMPOUND, 1);
	nw_string(w, "type", "minecraft:farmer");
	nw_int_array(w, "pos", pos, 3);
	nw_int(w, "free_tickets", 1);
	nw_end(w);
	nw_end(w);
	nw_end(w);
	nw_end(w);
}

/* Write DIR/<overworld>/rel, a region file (compression 2) of docs[i] at chunk xs[i], zs[i]. */
static int
write_region_file(const char *dir, const gen_world *w, const char *rel, nbtw *docs,
				  const int *xs, const int *zs, int n)
{
	char		path[256];
	sl_region_chunk *chunks = calloc((size_t) n, sizeof(sl_region_chunk));
	sl_buf		out = {NULL, 0, 0};
	sl_external *ext = NULL;
	int			next = 0;
	sl_err		err;
	int			rc;

	if (chunks == NULL)
		return tool_fail("out of memory");
	for (int i = 0; i < n; i++)
	{
		chunks[i].x = xs[i];
		chunks[i].z = zs[i];
		chunks[i].timestamp = GEN_FIXED_TIME;
		chunks[i].nbt = docs[i].buf.data;
		chunks[i].nbt_len = docs[i].buf.len;
	}
	snprintf(path, sizeof(path), "%s%s%s", w->overworld, w->overworld[0] ? "/" : "", rel);
	rc = sl_region_write(chunks, n, 0, 0, 2, &out, &ext, &next, &err) ?
		tool_fail_err(&err, path) : gen_write(dir, path, out.data, out.len);
	for (int i = 0; i < next; i++)
		sl_free((void *) ext[i].data);
	sl_free(ext);
	sl_buf_free(&out);
	free(chunks);
	return rc;
}

/* Generate and write the terrain region r.0.0.mca. */
static int
gen_terrain(const char *dir, const gen *g, const gen_world *w)
{
	int			n = g->size * g->size;
	nbtw	   *docs = calloc((size_t) n, sizeof(nbtw));
	int		   *xs = calloc((size_t) n, sizeof(int));
	int		   *zs = calloc((size_t) n, sizeof(int));
	int			rc = docs && xs && zs ? 0 : tool_fail("out of memory");

	for (int i = 0; i < n && rc == 0; i++)
	{
		xs[i] = i % g->size;
		zs[i] = i / g->size;
		write_chunk(&docs[i], g, xs[i], zs[i]);
		rc = nw_finish(&docs[i], "generated chunk");
	}
	if (rc == 0)
		rc = write_region_file(dir, w, "region/r.0.0.mca", docs, xs, zs, n);
	for (int i = 0; docs && i < n; i++)
		sl_buf_free(&docs[i].buf);
	free(docs);
	free(xs);
	free(zs);
	return rc;
}

/* Generate and write one single-chunk region file (entities or POI). */
static int
gen_single(const char *dir, const gen_world *w, const char *rel, const gen *g,
		   void (*fn) (nbtw *, const gen *))
{
	nbtw		doc;
	int			rc;

	memset(&doc, 0, sizeof(doc));
	fn(&doc, g);
	rc = nw_finish(&doc, rel);
	if (rc == 0)
		rc = write_region_file(dir, w, rel, &doc, &g->fchunk, &g->fchunk, 1);
	sl_buf_free(&doc.buf);
	return rc;
}

/* Create DIR, which must be new or empty. */
static int
make_dir(const char *dir)
{
	char	  **names;
	int			n;

	if (!tool_is_dir(dir))
		return tool_mkdir(dir);
	if (tool_list_dir(dir, &names, &n))
		return -1;
	tool_free_names(names, n);
	return n > 0 ? tool_fail("%s is not empty; gen-world only writes into a new folder", dir) : 0;
}

/* Report a gen-world usage error; returns the exit status for it. */
static int
gen_usage(const char *msg, const char *arg)
{
	tool_fail(msg, arg);
	fputs("usage: slimetool gen-world DIR [--size N] [--layout old|new]\n", stderr);
	return 2;
}

/* Parse the arguments of gen-world; 0 ok, else an exit status. */
static int
parse_gen(int argc, char **argv, const char **dir, int *size, int *newl)
{
	int32_t		v;

	*dir = NULL;
	*size = 5;
	*newl = 0;
	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "--size") == 0 && i + 1 < argc)
		{
			if (tool_parse_int(argv[++i], &v) || v < 1 || v > MAX_SIZE)
				return gen_usage("--size %s: give 1..32 chunks", argv[i]);
			*size = v;
		}
		else if (strcmp(argv[i], "--layout") == 0 && i + 1 < argc)
		{
			if ((*newl = wl_parse_layout(argv[++i])) < 0)
				return gen_usage("--layout %s: give old (1.20.4) or new (26.1)", argv[i]);
		}
		else if (argv[i][0] != '-' && *dir == NULL)
			*dir = argv[i];
		else
			return gen_usage("gen-world: unexpected argument %s", argv[i]);
	}
	return *dir ? 0 : gen_usage("gen-world needs a folder%s", "");
}

/* slimetool gen-world DIR [--size N] [--layout old|new]: write a small synthetic world. */
int
cmd_gen_world(int argc, char **argv)
{
	const char *dir;
	gen			g;
	gen_world	w;
	int			rc;

	memset(&w, 0, sizeof(w));
	if ((rc = parse_gen(argc, argv, &dir, &g.size, &w.newl)) != 0)
		return rc;
	g.center = g.size * 8;
	g.radius = g.size * 8 - 2;
	g.fchunk = g.size / 2;
	g.fx = g.fchunk * 16 + 8;
	g.dv = w.newl ? GEN_NEW_DATA_VERSION : GEN_OLD_DATA_VERSION;
	w.size = g.size;
	w.center = g.center;
	w.radius = g.radius;
	w.top = GRASS_Y;
	w.dv = g.dv;
	w.overworld = w.newl ? "dimensions/minecraft/overworld" : "";
	if (make_dir(dir) || gen_level(dir, &w) || gen_terrain(dir, &g, &w) ||
		gen_single(dir, &w, "entities/r.0.0.mca", &g, write_entities) ||
		gen_single(dir, &w, "poi/r.0.0.mca", &g, write_poi) || gen_world_files(dir, &w))
		return 1;
	fprintf(stderr, "%s: %dx%d chunks (DataVersion %d, the %s layout), a chest, two hoppers, a "
			"composter and a pig; a player with a map, stats and advancements, raids, a data pack\n",
			dir, g.size, g.size, (int) g.dv, wl_layout_name((wl_layout) w.newl));
	return 0;
}
