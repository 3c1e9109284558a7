/*
 * genfiles.c - the own files of slimetool gen-world's world, in the layout
 * and the form of its DataVersion: one player (position, inventory with a
 * map, ender chest, XP) with stats and advancements, map 0 drawing the
 * island and the map counter, the overworld's raids, and a data pack.
 * Fixed values throughout, so that the same arguments give the same bytes.
 */
#include "gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sl_jgzip.h"
#include "sl_nbt.h"

#define MAP_SIDE		128
#define MAP_GRASS		6		/* map colour: grass (base 1), normal shade (2) */

/* The player's UUID, as the int array Minecraft stores. */
static const int32_t player_uuid[4] = {0x736c696d, 0x65000002, -0x7f000000, 0x00000001};

/* Write DIR/rel, creating its folders. */
int
gen_write(const char *dir, const char *rel, const uint8_t *data, size_t len)
{
	char	   *path = tool_path(dir, rel);
	int			rc = 0;

	for (char *p = path + strlen(dir) + 1; *p && rc == 0; p++)
		if (*p == '/')
		{
			*p = '\0';
			rc = tool_mkdir(path);
			*p = '/';
		}
	if (rc == 0)
		rc = tool_write_file(path, data, len);
	free(path);
	return rc;
}

/* Finish an NBT document and write it gzipped as the game of dv does. */
int
gen_write_nbt(const char *dir, const char *rel, nbtw *w, int32_t dv)
{
	sl_buf		gz = {NULL, 0, 0};
	int			rc = nw_finish(w, rel);

	if (rc == 0 && sl_jgzip(w->buf.data, w->buf.len, sl_jgzip_os(dv), &gz, &w->err))
		rc = tool_fail_err(&w->err, rel);
	if (rc == 0)
		rc = gen_write(dir, rel, gz.data, gz.len);
	sl_buf_free(&gz);
	return rc;
}

/* Write a text file. */
static int
gen_text(const char *dir, const char *rel, const char *text)
{
	return gen_write(dir, rel, (const uint8_t *) text, strlen(text));
}

/* The player's UUID as text (8-4-4-4-12). */
static void
uuid_text(char out[37])
{
	snprintf(out, 37, "%08x-%04x-%04x-%04x-%04x%08x", (unsigned) player_uuid[0],
			 (unsigned) player_uuid[1] >> 16, (unsigned) player_uuid[1] & 0xFFFF,
			 (unsigned) player_uuid[2] >> 16, (unsigned) player_uuid[2] & 0xFFFF,
			 (unsigned) player_uuid[3]);
}

/* Write one item stack (list element) in the form of the world's DataVersion. */
static void
write_item(nbtw *w, const gen_world *g, int slot, const char *id, int count, int map)
{
	nw_byte(w, "Slot", slot);
	nw_string(w, "id", id);
	if (g->dv >= GEN_ITEM_COUNT_DV)
	{
		nw_int(w, "count", count);
		if (map >= 0)
		{
			nw_compound(w, "components");
			nw_int(w, "minecraft:map_id", map);
			nw_end(w);
		}
	}
	else
	{
		nw_byte(w, "Count", count);
		if (map >= 0)
		{
			nw_compound(w, "tag");
			nw_int(w, "map", map);
			nw_end(w);
		}
	}
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

/* The player file: where they stand, what they carry. */
static int
write_player(const char *dir, const char *rel, const gen_world *g)
{
	nbtw		w;
	int			rc;

	memset(&w, 0, sizeof(w));
	nw_compound(&w, "");
	nw_int(&w, "DataVersion", g->dv);
	nw_int_array(&w, "UUID", player_uuid, 4);
	write_vec3(&w, "Pos", g->center + 0.5, g->top + 1.0, g->center + 0.5);
	write_vec3(&w, "Motion", 0.0, 0.0, 0.0);
	nw_list(&w, "Rotation", SL_TAG_FLOAT, 2);
	nw_float_v(&w, 0.0f);
	nw_float_v(&w, 0.0f);
	nw_byte(&w, "OnGround", 1);
	nw_string(&w, "Dimension", "minecraft:overworld");
	nw_float(&w, "Health", 20.0f);
	nw_int(&w, "foodLevel", 20);
	nw_float(&w, "foodSaturationLevel", 5.0f);
	nw_int(&w, "XpLevel", 3);
	nw_float(&w, "XpP", 0.25f);
	nw_int(&w, "XpTotal", 30);
	nw_int(&w, "playerGameType", 0);
	nw_int(&w, "SelectedItemSlot", 0);
	nw_list(&w, "Inventory", SL_TAG_COMPOUND, 4);
	write_item(&w, g, 0, "minecraft:diamond_pickaxe", 1, -1);
	write_item(&w, g, 1, "minecraft:bread", 5, -1);
	write_item(&w, g, 2, "minecraft:filled_map", 1, 0);
	write_item(&w, g, 9, "minecraft:cobblestone", 64, -1);
	nw_list(&w, "EnderItems", SL_TAG_COMPOUND, 1);
	write_item(&w, g, 0, "minecraft:diamond", 7, -1);
	nw_end(&w);
	rc = gen_write_nbt(dir, rel, &w, g->dv);
	sl_buf_free(&w.buf);
	return rc;
}

/* Map 0: the island in grass colour, centred on it, scale 0. */
static int
write_map(const char *dir, const char *rel, const gen_world *g)
{
	uint8_t    *colors = calloc(MAP_SIDE * MAP_SIDE, 1);
	nbtw		w;
	int			rc;

	if (colors == NULL)
		return tool_fail("out of memory");
	for (int pz = 0; pz < MAP_SIDE; pz++)
		for (int px = 0; px < MAP_SIDE; px++)
		{
			int64_t		dx = 2 * (int64_t) (g->center - MAP_SIDE / 2 + px) + 1 - 2 * (int64_t) g->center;
			int64_t		dz = 2 * (int64_t) (g->center - MAP_SIDE / 2 + pz) + 1 - 2 * (int64_t) g->center;

			if (dx * dx + dz * dz <= 4 * (int64_t) g->radius * g->radius)
				colors[pz * MAP_SIDE + px] = MAP_GRASS;
		}
	memset(&w, 0, sizeof(w));
	nw_compound(&w, "");
	nw_compound(&w, "data");
	nw_byte(&w, "scale", 0);
	nw_string(&w, "dimension", "minecraft:overworld");
	nw_byte(&w, "trackingPosition", 1);
	nw_byte(&w, "unlimitedTracking", 0);
	nw_byte(&w, "locked", 0);
	nw_int(&w, "xCenter", g->center);
	nw_int(&w, "zCenter", g->center);
	nw_list(&w, "banners", SL_TAG_END, 0);
	nw_list(&w, "frames", SL_TAG_END, 0);
	nw_byte_array(&w, "colors", colors, MAP_SIDE * MAP_SIDE);
	nw_end(&w);
	nw_int(&w, "DataVersion", g->dv);
	nw_end(&w);
	rc = gen_write_nbt(dir, rel, &w, g->dv);
	sl_buf_free(&w.buf);
	free(colors);
	return rc;
}

/* A saved-data file {data: {name: value}, DataVersion} of one int (the map counter). */
static int
write_counter(const char *dir, const char *rel, const gen_world *g, const char *name, int value)
{
	nbtw		w;
	int			rc;

	memset(&w, 0, sizeof(w));
	nw_compound(&w, "");
	nw_compound(&w, "data");
	nw_int(&w, name, value);
	nw_end(&w);
	nw_int(&w, "DataVersion", g->dv);
	nw_end(&w);
	rc = gen_write_nbt(dir, rel, &w, g->dv);
	sl_buf_free(&w.buf);
	return rc;
}

/* The overworld's raids: none yet. */
static int
write_raids(const char *dir, const char *rel, const gen_world *g)
{
	nbtw		w;
	int			rc;

	memset(&w, 0, sizeof(w));
	nw_compound(&w, "");
	nw_compound(&w, "data");
	nw_int(&w, "NextAvailableID", 1);
	nw_int(&w, "Tick", 0);
	nw_list(&w, "Raids", SL_TAG_END, 0);
	nw_end(&w);
	nw_int(&w, "DataVersion", g->dv);
	nw_end(&w);
	rc = gen_write_nbt(dir, rel, &w, g->dv);
	sl_buf_free(&w.buf);
	return rc;
}

/* The world's own files, at the paths of its layout. */
int
gen_world_files(const char *dir, const gen_world *g)
{
	char		uuid[37],
				rel[128],
				text[512];
	const char *players = g->newl ? "players/data" : "playerdata";
	const char *stats = g->newl ? "players/stats" : "stats";
	const char *adv = g->newl ? "players/advancements" : "advancements";
	int			rc;

	uuid_text(uuid);
	snprintf(rel, sizeof(rel), "%s/%s.dat", players, uuid);
	rc = write_player(dir, rel, g);
	snprintf(rel, sizeof(rel), "%s/%s.json", stats, uuid);
	snprintf(text, sizeof(text), "{\"stats\":{\"minecraft:custom\":{\"minecraft:play_time\":72000,"
			 "\"minecraft:jump\":12},\"minecraft:mined\":{\"minecraft:stone\":30}},\"DataVersion\":%d}",
			 (int) g->dv);
	if (rc == 0)
		rc = gen_text(dir, rel, text);
	snprintf(rel, sizeof(rel), "%s/%s.json", adv, uuid);
	snprintf(text, sizeof(text), "{\n  \"minecraft:story/root\": {\n    \"criteria\": {\n"
			 "      \"crafting_table\": \"2023-11-14 22:13:20 +0000\"\n    },\n    \"done\": true\n"
			 "  },\n  \"DataVersion\": %d\n}", (int) g->dv);
	if (rc == 0)
		rc = gen_text(dir, rel, text);
	if (rc == 0)
		rc = write_map(dir, g->newl ? "data/minecraft/maps/0.dat" : "data/map_0.dat", g);
	if (rc == 0)
		rc = write_counter(dir, g->newl ? "data/minecraft/last_id.dat" : "data/idcounts.dat", g, "map", 0);
	if (rc == 0)
		rc = write_raids(dir, g->newl ? "dimensions/minecraft/overworld/data/minecraft/raids.dat" :
						 "data/raids.dat", g);
	snprintf(text, sizeof(text), "{\"pack\":{\"pack_format\":%d,\"description\":\"slime test data pack\"}}\n",
			 g->newl ? 99 : 26);
	if (rc == 0)
		rc = gen_text(dir, "datapacks/slime/pack.mcmeta", text);
	if (rc == 0)
		rc = gen_text(dir, g->newl ? "datapacks/slime/data/slime/function/hello.mcfunction" :
					  "datapacks/slime/data/slime/functions/hello.mcfunction", "say hello\n");
	return rc;
}
