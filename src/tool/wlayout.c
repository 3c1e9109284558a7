/*
 * wlayout.c - the two layouts of a world folder: where each dimension and
 * each of a world's own files goes in the layout before 26.1 snapshot 6
 * and in the one from it on (wlayout.h).
 */
#include "wlayout.h"
#include "tool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A folder (or file) that moved in 26.1 snapshot 6: its old and new path. */
typedef struct moved
{
	const char *old;
	const char *new;
} moved;

/* Longest prefixes first within each direction; a '/' ends a folder. */
static const moved moves[] = {
	{"DIM-1/", "dimensions/minecraft/the_nether/"},
	{"DIM1/", "dimensions/minecraft/the_end/"},
	{"region/", "dimensions/minecraft/overworld/region/"},
	{"entities/", "dimensions/minecraft/overworld/entities/"},
	{"poi/", "dimensions/minecraft/overworld/poi/"},
	{"playerdata/", "players/data/"},
	{"stats/", "players/stats/"},
	{"advancements/", "players/advancements/"},
	{"resources.zip", "resourcepacks/resources.zip"},
	{"", "dimensions/minecraft/overworld/"},	/* new -> old only */
};

#define NMOVES ((int) (sizeof(moves) / sizeof(moves[0])))

/* The layout a world of data_version is written in. */
wl_layout
wl_layout_for(int32_t data_version)
{
	return data_version != INT32_MIN && data_version >= WL_NEW_LAYOUT_DV ? WL_NEW : WL_OLD;
}

/* "old" or "new". */
const char *
wl_layout_name(wl_layout l)
{
	return l == WL_NEW ? "new" : "old";
}

/* Parse "old" / "new"; -1 for anything else. */
int
wl_parse_layout(const char *s)
{
	if (strcmp(s, "old") == 0)
		return WL_OLD;
	if (strcmp(s, "new") == 0)
		return WL_NEW;
	return -1;
}

/* malloc or exit: names are small, the tool cannot go on without them. */
static char *
xmalloc(size_t n)
{
	char	   *p = malloc(n);

	if (p == NULL)
	{
		fputs("slimetool: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

/* 1 for the folders of a dimension that never hold nested dimensions. */
static int
is_data_dir(const char *name, size_t len)
{
	static const char *const names[] = {"region", "entities", "poi", "data"};

	for (int i = 0; i < 4; i++)
		if (strlen(names[i]) == len && memcmp(names[i], name, len) == 0)
			return 1;
	return 0;
}

/* The folder of dimension name in layout l (malloc'd), NULL with *why when unsafe. */
char *
wl_dim_folder(const char *name, wl_layout l, const char **why)
{
	static const char *const vanilla[3][3] = {
		{"minecraft:overworld", "", "dimensions/minecraft/overworld"},
		{"minecraft:the_nether", "DIM-1", "dimensions/minecraft/the_nether"},
		{"minecraft:the_end", "DIM1", "dimensions/minecraft/the_end"},
	};
	const char *colon = strchr(name, ':');
	const char *p;
	int			depth = 0;
	char	   *folder;

	for (int i = 0; i < 3; i++)
		if (strcmp(name, vanilla[i][0]) == 0)
		{
			folder = xmalloc(strlen(vanilla[i][1 + l]) + 1);
			return strcpy(folder, vanilla[i][1 + l]);
		}
	*why = NULL;
	for (p = name; *p && *why == NULL; p++)
		if ((unsigned char) *p < 0x20 || *p == 0x7F || *p == '\\')
			*why = "it holds a control character or a backslash";
	if (*why)
		return NULL;
	if (colon == NULL || colon == name || colon[1] == '\0')
	{
		*why = "it is not namespace:path";
		return NULL;
	}
	if (memchr(name, '/', (size_t) (colon - name)) || name[0] == '.')
	{
		*why = "its namespace is not a plain folder name";
		return NULL;
	}
	for (p = colon + 1;; depth++)
	{
		const char *slash = strchr(p, '/');
		size_t		len = slash ? (size_t) (slash - p) : strlen(p);

		if (len == 0 || p[0] == '.')
		{
			*why = "its path has an empty part or a part starting with '.' (such as ..)";
			return NULL;
		}
		if (is_data_dir(p, len))
		{
			*why = "its path has a part named region, entities, poi or data";
			return NULL;
		}
		if (slash == NULL)
			break;
		p = slash + 1;
	}
	if (depth + 1 > WL_MAX_DIM_DEPTH)
	{
		*why = "its path is more than 8 folders deep";
		return NULL;
	}
	folder = xmalloc(strlen("dimensions/") + strlen(name) + 1);
	sprintf(folder, "dimensions/%.*s/%s", (int) (colon - name), name, colon + 1);
	return folder;
}

/* NULL when path can be a world file's path, else why not. */
const char *
wl_check_path(const char *path)
{
	size_t		len = strlen(path);
	int			parts = 0;

	if (len == 0)
		return "it is empty";
	if (len > WL_MAX_PATH)
		return "it is longer than 4096 bytes";
	if (path[0] == '/')
		return "it is not relative to the world folder";
	for (const char *p = path; *p; p++)
		if ((unsigned char) *p < 0x20 || *p == 0x7F || *p == '\\')
			return "it holds a control character or a backslash";
	for (const char *p = path;; parts++)
	{
		const char *slash = strchr(p, '/');
		size_t		n = slash ? (size_t) (slash - p) : strlen(p);

		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return "it has an empty, '.' or '..' part";
		if (slash == NULL)
			break;
		p = slash + 1;
	}
	return parts + 1 > WL_MAX_PATH_DEPTH ? "it is more than 64 folders deep" : NULL;
}

/* Whether path starts with prefix (a folder ending in '/', or a whole file name). */
static int
has_prefix(const char *path, const char *prefix)
{
	size_t		n = strlen(prefix);

	if (n == 0)
		return 0;
	if (prefix[n - 1] == '/')
		return strncmp(path, prefix, n) == 0;
	return strcmp(path, prefix) == 0;
}

/* A world file's path in layout to (malloc'd). */
char *
wl_map_path(const char *path, wl_layout to)
{
	for (int i = 0; i < NMOVES; i++)
	{
		const char *from = to == WL_NEW ? moves[i].old : moves[i].new;
		const char *dest = to == WL_NEW ? moves[i].new : moves[i].old;

		if (has_prefix(path, from))
		{
			size_t		n = strlen(from);
			char	   *out = xmalloc(strlen(dest) + strlen(path) - n + 1);

			if (from[n - 1] != '/')
				n = strlen(path);
			sprintf(out, "%s%s", dest, path + n);
			return out;
		}
	}
	return strcpy(xmalloc(strlen(path) + 1), path);
}
