/*
 * genlevel.c - level.dat of slimetool gen-world: a world whose overworld
 * generates void (flat, one layer of air) around the island, with the
 * vanilla nether and end. The old layout's is a 1.20.4 level.dat; the new
 * layout's is 26.1's, whose world generation settings live in
 * data/minecraft/world_gen_settings.dat and whose spawn and difficulty
 * are compounds of their own.
 */
#include "gen.h"

#include <stdlib.h>
#include <string.h>

#include "sl_nbt.h"

/* Write one dimension entry of the world generation settings. */
static void
write_dimension(nbtw *w, const char *name, const char *type, const char *settings,
				const char *biomes, const char *preset)
{
	nw_compound(w, name);
	nw_string(w, "type", type);
	nw_compound(w, "generator");
	nw_string(w, "type", "minecraft:noise");
	nw_string(w, "settings", settings);
	nw_compound(w, "biome_source");
	nw_string(w, "type", biomes);
	if (preset)
		nw_string(w, "preset", preset);
	nw_end(w);
	nw_end(w);
	nw_end(w);
}

/* Write the body of the world generation settings: a void overworld, vanilla nether and end. */
static void
write_worldgen(nbtw *w, int newl)
{
	nw_long(w, "seed", 0);
	nw_byte(w, newl ? "generate_structures" : "generate_features", 0);
	nw_byte(w, "bonus_chest", 0);
	nw_compound(w, "dimensions");
	nw_compound(w, "minecraft:overworld");
	nw_string(w, "type", "minecraft:overworld");
	nw_compound(w, "generator");
	nw_string(w, "type", "minecraft:flat");
	nw_compound(w, "settings");
	nw_string(w, "biome", "minecraft:the_void");
	nw_byte(w, "features", 0);
	nw_byte(w, "lakes", 0);
	nw_list(w, "layers", SL_TAG_COMPOUND, 1);
	nw_string(w, "block", "minecraft:air");
	nw_int(w, "height", 1);
	nw_end(w);
	nw_list(w, "structure_overrides", SL_TAG_END, 0);
	nw_end(w);
	nw_end(w);
	nw_end(w);
	write_dimension(w, "minecraft:the_nether", "minecraft:the_nether", "minecraft:nether",
					"minecraft:multi_noise", "minecraft:nether");
	write_dimension(w, "minecraft:the_end", "minecraft:the_end", "minecraft:end",
					"minecraft:the_end", NULL);
	nw_end(w);
}

/* Write the tags both level.dat forms share, after Version. */
static void
write_common(nbtw *w)
{
	nw_string(w, "LevelName", "slime generated world");
	nw_int(w, "GameType", 0);
	nw_byte(w, "allowCommands", 0);
	nw_byte(w, "initialized", 1);
	nw_long(w, "LastPlayed", (int64_t) GEN_FIXED_TIME * 1000);
	nw_long(w, "Time", 0);
	nw_byte(w, "WasModded", 0);
	nw_compound(w, "DataPacks");
	nw_list(w, "Enabled", SL_TAG_STRING, 2);
	nw_str(w, "vanilla");
	nw_str(w, "file/slime");
	nw_list(w, "Disabled", SL_TAG_END, 0);
	nw_end(w);
}

/* Write the level.dat document (uncompressed). */
static void
write_level(nbtw *w, const gen_world *g)
{
	int			x = g->center,
				y = g->top + 1,
				z = g->center;

	nw_compound(w, "");
	nw_compound(w, "Data");
	nw_int(w, "DataVersion", g->dv);
	nw_int(w, "version", 19133);
	nw_compound(w, "Version");
	nw_int(w, "Id", g->dv);
	nw_string(w, "Name", g->newl ? "26.1 Snapshot 6" : "1.20.4");
	nw_string(w, "Series", "main");
	nw_byte(w, "Snapshot", g->newl);
	nw_end(w);
	write_common(w);
	if (g->newl)
	{
		int32_t		pos[3] = {x, y, z};

		nw_compound(w, "spawn");
		nw_int_array(w, "pos", pos, 3);
		nw_float(w, "yaw", 0.0f);
		nw_float(w, "pitch", 0.0f);
		nw_string(w, "dimension", "minecraft:overworld");
		nw_end(w);
		nw_compound(w, "difficulty_settings");
		nw_string(w, "difficulty", "normal");
		nw_byte(w, "locked", 0);
		nw_byte(w, "hardcore", 0);
		nw_end(w);
	}
	else
	{
		nw_int(w, "SpawnX", x);
		nw_int(w, "SpawnY", y);
		nw_int(w, "SpawnZ", z);
		nw_float(w, "SpawnAngle", 0.0f);
		nw_byte(w, "Difficulty", 2);
		nw_byte(w, "hardcore", 0);
		nw_long(w, "DayTime", 1000);
		nw_byte(w, "raining", 0);
		nw_byte(w, "thundering", 0);
		nw_compound(w, "WorldGenSettings");
		write_worldgen(w, 0);
		nw_end(w);
	}
	nw_end(w);
	nw_end(w);
}

/* Write DIR/level.dat (and the new layout's world generation settings). */
int
gen_level(const char *dir, const gen_world *g)
{
	nbtw		doc;
	int			rc;

	memset(&doc, 0, sizeof(doc));
	write_level(&doc, g);
	rc = gen_write_nbt(dir, "level.dat", &doc, g->dv);
	sl_buf_free(&doc.buf);
	if (rc == 0 && g->newl)
	{
		memset(&doc, 0, sizeof(doc));
		nw_compound(&doc, "");
		nw_compound(&doc, "data");
		write_worldgen(&doc, 1);
		nw_end(&doc);
		nw_int(&doc, "DataVersion", g->dv);
		nw_end(&doc);
		rc = gen_write_nbt(dir, "data/minecraft/world_gen_settings.dat", &doc, g->dv);
		sl_buf_free(&doc.buf);
	}
	return rc;
}
