/*
 * sl_wfile.h - what a world's own file is, by its name: NBT (read as JSON
 * by the lossless mapping), JSON (stats, advancements, pack.mcmeta), or
 * bytes only (zip data packs, images, region files kept as files).
 */
#ifndef SL_WFILE_H
#define SL_WFILE_H

typedef enum sl_wfile_kind
{
	SL_WFILE_BYTES = 0,
	SL_WFILE_NBT = 1,			/* .dat, .dat_old, .nbt, .schem, .schematic, .litematic; not uid.dat */
	SL_WFILE_JSON = 2			/* .json, .mcmeta */
} sl_wfile_kind;

/*
 * The kind of the world file at path (its last part decides). uid.dat is
 * the 16 raw bytes of a Bukkit world's UUID, not NBT.
 */
sl_wfile_kind sl_wfile_kind_of(const char *path);

/* "nbt", "json" or "bytes". */
const char *sl_wfile_kind_name(sl_wfile_kind kind);

#endif
