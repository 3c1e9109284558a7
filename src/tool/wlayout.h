/*
 * wlayout.h - the two layouts of a Minecraft world folder, and the paths
 * of a world's own files (everything but its chunk files and level.dat's
 * world compound) in either.
 *
 *                      before 26.1 snapshot 6       26.1 snapshot 6 on
 *   the overworld      region/ entities/ poi/ data/  dimensions/minecraft/overworld/...
 *   the nether         DIM-1/...                     dimensions/minecraft/the_nether/...
 *   the end            DIM1/...                      dimensions/minecraft/the_end/...
 *   ns:path            dimensions/ns/path/...        the same
 *   players            playerdata/ stats/ advancements/  players/data/ players/stats/ players/advancements/
 *   world resource pack resources.zip                resourcepacks/resources.zip
 *
 * The first DataVersion of the new layout is 4774 (26.1 snapshot 6: the
 * game's changelog; 26.1 snapshot 5 was 4770, and no version was released
 * with 4771 to 4773).
 */
#ifndef SLIMETOOL_WLAYOUT_H
#define SLIMETOOL_WLAYOUT_H

#include <stdint.h>

#define WL_NEW_LAYOUT_DV	4774
#define WL_MAX_DIM_DEPTH	8	/* folders below dimensions/<ns>/ */
#define WL_MAX_PATH			4096	/* bytes of a world file's path */
#define WL_MAX_PATH_DEPTH	64	/* folders of a world file's path */

typedef enum wl_layout
{
	WL_OLD = 0,					/* region/, DIM-1/, DIM1/, playerdata/ ... */
	WL_NEW = 1					/* dimensions/minecraft/<name>/, players/ ... */
} wl_layout;

/* The layout a world of data_version (INT32_MIN: none) is written in. */
wl_layout	wl_layout_for(int32_t data_version);

/* "old" or "new". */
const char *wl_layout_name(wl_layout l);

/* Parse "old" / "new"; -1 for anything else. */
int			wl_parse_layout(const char *s);

/*
 * The folder of dimension name in layout l, relative to the world folder
 * ("" for the old layout's overworld), malloc'd; NULL with *why set when
 * the name cannot be a folder copy-world reads back: "ns:path" goes to
 * dimensions/ns/path, every part a plain folder name (no "..", no leading
 * dot, no empty part, no control character or backslash, no part named
 * region, entities, poi or data), path at most WL_MAX_DIM_DEPTH deep.
 */
char	   *wl_dim_folder(const char *name, wl_layout l, const char **why);

/*
 * NULL when path can be a world file's path: relative, '/'-separated,
 * no empty, "." or ".." part, no control character or backslash, at most
 * WL_MAX_PATH bytes and WL_MAX_PATH_DEPTH parts; else why not.
 */
const char *wl_check_path(const char *path);

/*
 * A world file's path in layout to (malloc'd): the folders that moved in
 * 26.1 snapshot 6 (the vanilla dimensions' folders, the players' folders,
 * the world resource pack) move; every other path stays. The files are
 * not converted: root data/ keeps the world's data and, in the old layout,
 * the overworld's (the game splits it when it upgrades a world).
 */
char	   *wl_map_path(const char *path, wl_layout to);

#endif
