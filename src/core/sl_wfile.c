/*
 * sl_wfile.c - what a world's own file is, by its name (sl_wfile.h).
 */
#include "sl_wfile.h"

#include <string.h>

/* 1 when name ends with suffix. */
static int
ends_with(const char *name, const char *suffix)
{
	size_t		n = strlen(name),
				s = strlen(suffix);

	return n > s && strcmp(name + n - s, suffix) == 0;
}

/* The kind of the world file at path. */
sl_wfile_kind
sl_wfile_kind_of(const char *path)
{
	static const char *const nbt[] = {".dat", ".dat_old", ".nbt", ".schem", ".schematic", ".litematic"};
	static const char *const json[] = {".json", ".mcmeta"};
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;

	if (strcmp(name, "uid.dat") == 0)
		return SL_WFILE_BYTES;
	for (size_t i = 0; i < sizeof(nbt) / sizeof(nbt[0]); i++)
		if (ends_with(name, nbt[i]))
			return SL_WFILE_NBT;
	for (size_t i = 0; i < sizeof(json) / sizeof(json[0]); i++)
		if (ends_with(name, json[i]))
			return SL_WFILE_JSON;
	return SL_WFILE_BYTES;
}

/* "nbt", "json" or "bytes". */
const char *
sl_wfile_kind_name(sl_wfile_kind kind)
{
	return kind == SL_WFILE_NBT ? "nbt" : kind == SL_WFILE_JSON ? "json" : "bytes";
}
