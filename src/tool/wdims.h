/*
 * wdims.h - the dimensions of a world folder, in either layout (wlayout.h):
 * where copy-world finds chunk files, and what it names each dimension.
 */
#ifndef SLIMETOOL_WDIMS_H
#define SLIMETOOL_WDIMS_H

#include "tool.h"
#include "wlayout.h"

/* One dimension of the world: its name and its folder. */
typedef struct dimension
{
	char	   *name;			/* minecraft:overworld, ns:path */
	char	   *dir;			/* its folder */
	char	   *rel;			/* the same, relative to the world folder ("" the root) */
	int			bare;			/* dir holds the region files itself (no region/) */
} dimension;

typedef struct dim_list
{
	dimension  *v;
	int			n;
	int			cap;
	wl_layout	layout;			/* the vanilla dimensions' layout found */
} dim_list;

extern const char *const wd_kind_dirs[SL_NCOMP];	/* region, entities, poi */

/*
 * Find every dimension of a world folder: the overworld (its root in the
 * old layout, dimensions/minecraft/overworld/ in the new one; a root with
 * a level.dat and nothing else is the old layout's), DIM-1/ and DIM1/,
 * and every dimensions/<ns>/<path>/ holding a region/, entities/ or poi/
 * folder. A folder of nothing but region files is the overworld's
 * region/ on its own. The overworld in both layouts at once is an error.
 */
int			wd_find(dim_list *l, const char *world, int has_level);

/* Fail unless the folder is a world: say what was looked for, and where. */
int			wd_check_world(const char *world, const dim_list *dims);

/* Free a dimension list. */
void		wd_free(dim_list *l);

/* The folder of kind k of a dimension (malloc'd), NULL when it has none. */
char	   *wd_kind_dir(const dimension *d, int k);

/* The same, relative to the world folder (malloc'd; "" the root), NULL when none. */
char	   *wd_kind_rel(const dimension *d, int k);

/* Count the region-format files of every dimension and their bytes. */
void		wd_count_files(const dim_list *l, uint64_t *files, uint64_t *bytes);

/* The region files' extension copy-world reads in a region/ folder: "mca", else "mcr". */
const char *wd_region_ext(char **names, int n);

#endif
