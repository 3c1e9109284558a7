/*
 * genlevel.c - level.dat of slimetool gen-world: a 1.20.4 world whose
 * overworld generates void (flat, one layer of air) around the island,
 * with the vanilla nether and end.
 */
#include "tool.h"
#include "nbtw.h"

#include <stdlib.h>
#include <string.h>

#include "sl_codec.h"
#include "sl_nbt.h"

/* Write one dimension entry of WorldGenSettings. */
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

/* Write WorldGenSettings: a void (flat, air) overworld, vanilla nether and end. */
static void
write_worldgen(nbtw *w)
{
	nw_compound(w, "WorldGenSettings");
	nw_long(w, "seed", 0);
	nw_byte(w, "generate_features", 0);
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
	nw_end(w);
}

/* Write the level.dat document (uncompressed). */
static void
write_level(nbtw *w, int x, int y, int z)
{
	nw_compound(w, "");
	nw_compound(w, "Data");
	nw_int(w, "DataVersion", GEN_DATA_VERSION);
	nw_int(w, "version", 19133);
	nw_compound(w, "Version");
	nw_int(w, "Id", GEN_DATA_VERSION);
	nw_string(w, "Name", "1.20.4");
	nw_string(w, "Series", "main");
	nw_byte(w, "Snapshot", 0);
	nw_end(w);
	nw_string(w, "LevelName", "slime generated world");
	nw_int(w, "SpawnX", x);
	nw_int(w, "SpawnY", y);
	nw_int(w, "SpawnZ", z);
	nw_float(w, "SpawnAngle", 0.0f);
	nw_int(w, "GameType", 0);
	nw_byte(w, "Difficulty", 2);
	nw_byte(w, "hardcore", 0);
	nw_byte(w, "allowCommands", 0);
	nw_byte(w, "initialized", 1);
	nw_long(w, "LastPlayed", (int64_t) GEN_FIXED_TIME * 1000);
	nw_long(w, "Time", 0);
	nw_long(w, "DayTime", 1000);
	nw_byte(w, "raining", 0);
	nw_byte(w, "thundering", 0);
	nw_byte(w, "WasModded", 0);
	nw_compound(w, "DataPacks");
	nw_list(w, "Enabled", SL_TAG_STRING, 1);
	nw_str(w, "vanilla");
	nw_list(w, "Disabled", SL_TAG_END, 0);
	nw_end(w);
	write_worldgen(w);
	nw_end(w);
	nw_end(w);
}

/* Generate and write DIR/level.dat (gzip) with the spawn at x, y, z. */
int
gen_level(const char *dir, int x, int y, int z)
{
	nbtw		doc;
	sl_buf		gz = {NULL, 0, 0};
	char	   *path = tool_path(dir, "level.dat");
	int			rc;

	memset(&doc, 0, sizeof(doc));
	write_level(&doc, x, y, z);
	rc = nw_finish(&doc, "level.dat");
	if (rc == 0 && sl_deflate(SL_DEFLATE_GZIP, 6, doc.buf.data, doc.buf.len, &gz, &doc.err))
		rc = tool_fail_err(&doc.err, path);
	if (rc == 0)
		rc = tool_write_file(path, gz.data, gz.len);
	sl_buf_free(&gz);
	sl_buf_free(&doc.buf);
	free(path);
	return rc;
}
