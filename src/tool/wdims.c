/*
 * wdims.c - the dimensions of a world folder in either layout: the
 * overworld at the root (before 26.1) or in dimensions/minecraft/overworld/
 * (26.1 on), DIM-1/ and DIM1/, and every dimensions/<ns>/<path>/.
 */
#include "wdims.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const wd_kind_dirs[SL_NCOMP] = {"region", "entities", "poi"};

/* 1 when dir holds a region/, entities/ or poi/ folder. */
static int
has_chunk_dirs(const char *dir)
{
	int			found = 0;

	for (int k = 0; k < SL_NCOMP && !found; k++)
	{
		char	   *p = tool_path(dir, wd_kind_dirs[k]);

		found = tool_is_dir(p);
		free(p);
	}
	return found;
}

/* Append a dimension (copies name and rel, takes dir); a repeated name fails. */
static int
add_dim(dim_list *l, const char *name, char *dir, const char *rel)
{
	for (int i = 0; i < l->n; i++)
		if (strcmp(l->v[i].name, name) == 0)
		{
			tool_fail("dimension %s found twice: %s and %s", name, l->v[i].dir, dir);
			free(dir);
			return -1;
		}
	if (l->n == l->cap)
	{
		dimension  *nv;

		l->cap = l->cap ? l->cap * 2 : 8;
		nv = realloc(l->v, (size_t) l->cap * sizeof(dimension));
		if (nv == NULL)
		{
			free(dir);
			return tool_fail("out of memory");
		}
		l->v = nv;
	}
	l->v[l->n].name = xstrdup(name);
	l->v[l->n].rel = xstrdup(rel);
	l->v[l->n].bare = 0;
	l->v[l->n++].dir = dir;
	return 0;
}

/* Free a dimension list. */
void
wd_free(dim_list *l)
{
	for (int i = 0; i < l->n; i++)
	{
		free(l->v[i].name);
		free(l->v[i].dir);
		free(l->v[i].rel);
	}
	free(l->v);
}

/* The folder of kind k of a dimension (malloc'd), NULL when it has none. */
char *
wd_kind_dir(const dimension *d, int k)
{
	if (d->bare)
		return k == SL_COMP_REGION ? xstrdup(d->dir) : NULL;
	return tool_path(d->dir, wd_kind_dirs[k]);
}

/* The same, relative to the world folder ("" the root), NULL when none. */
char *
wd_kind_rel(const dimension *d, int k)
{
	if (d->bare)
		return k == SL_COMP_REGION ? xstrdup(d->rel) : NULL;
	return d->rel[0] ? tool_path(d->rel, wd_kind_dirs[k]) : xstrdup(wd_kind_dirs[k]);
}

/* Count the region-format files of every dimension. */
void
wd_count_files(const dim_list *l, uint64_t *files, uint64_t *bytes)
{
	*files = *bytes = 0;
	for (int i = 0; i < l->n; i++)
		for (int k = 0; k < SL_NCOMP; k++)
		{
			char	   *dir = wd_kind_dir(&l->v[i], k);

			if (dir)
				tool_count_regions(dir, files, bytes);
			free(dir);
		}
}

/* The region files' extension read in a region/ folder: "mca", else "mcr". */
const char *
wd_region_ext(char **names, int n)
{
	int32_t		rx,
				rz;

	for (int i = 0; i < n; i++)
		if (tool_parse_coords(names[i], "r", "mca", &rx, &rz))
			return "mca";
	return "mcr";
}

/* Add dir (relative rel) as dimension name when it holds chunk folders. */
static int
add_if_dim(dim_list *l, const char *name, const char *world, const char *rel)
{
	char	   *dir = tool_path(world, rel);

	if (!has_chunk_dirs(dir))
	{
		free(dir);
		return 0;
	}
	return add_dim(l, name, dir, rel);
}

/* 1 for the folders of a dimension that never hold nested dimensions. */
static int
is_data_dir(const char *name)
{
	return strcmp(name, "region") == 0 || strcmp(name, "entities") == 0 ||
		strcmp(name, "poi") == 0 || strcmp(name, "data") == 0;
}

/* Find dimensions under dimensions/<ns>/...; dim is "ns:path" so far, rel its folder. */
static int
walk_namespace(dim_list *l, const char *dir, const char *rel, const char *dim, int depth)
{
	char	  **names;
	int			n,
				rc = 0;

	if (depth > 0 && has_chunk_dirs(dir) && add_dim(l, dim, xstrdup(dir), rel))
		return -1;
	if (depth >= WL_MAX_DIM_DEPTH || tool_list_dir(dir, &names, &n))
		return 0;
	for (int i = 0; i < n && rc == 0; i++)
	{
		char	   *sub = tool_path(dir, names[i]);
		char	   *subrel = tool_path(rel, names[i]);
		size_t		len = strlen(dim) + strlen(names[i]) + 2;
		char	   *subdim = malloc(len);

		if (subdim && tool_is_dir(sub) && !is_data_dir(names[i]) && names[i][0] != '.')
		{
			snprintf(subdim, len, "%s%s%s", dim, depth > 0 ? "/" : "", names[i]);
			rc = walk_namespace(l, sub, subrel, subdim, depth + 1);
		}
		free(subdim);
		free(subrel);
		free(sub);
	}
	tool_free_names(names, n);
	return rc;
}

/* Find the dimensions under world/dimensions/. */
static int
find_namespaced(dim_list *l, const char *world)
{
	char	   *root = tool_path(world, "dimensions");
	char	  **names = NULL;
	int			n = 0,
				rc = 0;

	if (tool_is_dir(root) && tool_list_dir(root, &names, &n) == 0)
	{
		for (int i = 0; i < n && rc == 0; i++)
		{
			char	   *ns = tool_path(root, names[i]);
			char	   *nsrel = tool_path("dimensions", names[i]);
			char	   *dim = malloc(strlen(names[i]) + 2);

			if (dim && tool_is_dir(ns) && names[i][0] != '.')
			{
				sprintf(dim, "%s:", names[i]);
				rc = walk_namespace(l, ns, nsrel, dim, 0);
			}
			free(dim);
			free(nsrel);
			free(ns);
		}
	}
	tool_free_names(names, n);
	free(root);
	return rc;
}

/* Find every dimension of a world folder, the overworld first. */
int
wd_find(dim_list *l, const char *world, int has_level)
{
	char	   *modern = tool_path(world, "dimensions/minecraft/overworld");
	int			new_overworld = has_chunk_dirs(modern);
	int			old_overworld = has_chunk_dirs(world);
	uint64_t	files = 0,
				bytes = 0;

	free(modern);
	l->layout = new_overworld ? WL_NEW : WL_OLD;
	if (new_overworld && old_overworld)
		return tool_fail("%s holds the overworld in both layouts: region/, entities/ or poi/ at its "
						 "root (before 26.1) and dimensions/minecraft/overworld/ (26.1 on); move "
						 "the one the game no longer reads out of the folder", world);
	if ((old_overworld || (has_level && !new_overworld)) &&
		add_dim(l, "minecraft:overworld", xstrdup(world), ""))
		return -1;
	if (add_if_dim(l, "minecraft:the_nether", world, "DIM-1") ||
		add_if_dim(l, "minecraft:the_end", world, "DIM1") ||
		find_namespaced(l, world))
		return -1;
	if (l->n == 0)
	{
		tool_count_regions(world, &files, &bytes);
		if (files > 0)
		{
			if (add_dim(l, "minecraft:overworld", xstrdup(world), ""))
				return -1;
			l->v[0].bare = 1;
		}
	}
	if (!new_overworld)
		for (int i = 0; i < l->n; i++)
			if (strcmp(l->v[i].rel, "dimensions/minecraft/the_nether") == 0 ||
				strcmp(l->v[i].rel, "dimensions/minecraft/the_end") == 0)
				l->layout = WL_NEW;
	return 0;
}

/* Fail unless the folder is a world: say what was looked for, and where. */
int
wd_check_world(const char *world, const dim_list *dims)
{
	if (dims->n > 0)
		return 0;
	return tool_fail("%s is not a world folder: it holds no level.dat, no region/, entities/ or "
					 "poi/ folder, no DIM-1/ or DIM1/ with one of those, no dimensions/<namespace>/<name>/ "
					 "with one, and no region files (r.X.Z.mca or r.X.Z.mcr) of its own", world);
}
