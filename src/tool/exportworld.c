/*
 * exportworld.c - slimetool export-world: the reverse of copy-world. Reads a
 * PostgreSQL binary COPY stream of rows (world text, dimension text, data
 * slime) on stdin, as "\copy (SELECT world, dimension, slime_resolve(data)
 * FROM t WHERE world = ...) TO STDOUT (FORMAT binary)" writes it, with
 * --with-files a second stream after it of the world's own files (world
 * text, path text, data bytea), and writes the world folder Minecraft
 * opens, in the layout the world's DataVersion calls for (wlayout.h;
 * --layout old|new forces one):
 *
 *                         old (before 26.1)      new (26.1 snapshot 6 on)
 *   minecraft:overworld   DIR/region ...         DIR/dimensions/minecraft/overworld/region ...
 *   minecraft:the_nether  DIR/DIM-1/...          DIR/dimensions/minecraft/the_nether/...
 *   minecraft:the_end     DIR/DIM1/...           DIR/dimensions/minecraft/the_end/...
 *   ns:path               DIR/dimensions/ns/path/... (both)
 *   world compound        DIR/level.dat, gzip as the game of its DataVersion writes it
 *   world files           DIR/<path>, byte for byte (moved folders follow the layout)
 *
 * exactly where copy-world looks, so copy-world -> export-world ->
 * copy-world gives identical values and files. Region files hold zlib
 * chunks (the bytes slime_export_region gives), with c.X.Z.mcc files for
 * chunks over 255 sectors; a dimension whose chunks are all McRegion
 * chunks gets .mcr files. Every region file written is read back strictly
 * before it counts.
 *
 * Nothing becomes visible until the whole stream has been read and
 * checked: files are written into a staging folder inside DIR, then
 * renamed into their places (exstage.h); on any error they are removed.
 */
#define _XOPEN_SOURCE 700

#include "tool.h"
#include "copybin.h"
#include "exregion.h"
#include "exstage.h"
#include "progress.h"
#include "wlayout.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sl_build.h"
#include "sl_jgzip.h"
#include "sl_nbt.h"

#define MCREGION_VERSION 19132	/* level.dat Data.version of McRegion worlds */

static const char *const kind_dirs[SL_NCOMP] = {"region", "entities", "poi"};

/* Options of export-world. */
typedef struct export_opts
{
	const char *dir;
	const char *world;			/* --world: export only this world's rows */
	int			force;
	int			quiet;			/* --quiet: no progress line */
	int			with_files;		/* --with-files: a stream of world files follows */
	int			layout;			/* --layout: WL_OLD, WL_NEW, -1 by DataVersion */
} export_opts;

/* A dimension exported: its name and what its files hold. */
typedef struct dim_row
{
	char	   *name;
	dim_stats	st;
} dim_row;

/* Everything one run writes or decides. */
typedef struct exporter
{
	const export_opts *o;
	stage		st;
	char	   *world;			/* the world name of the rows exported */
	int			rows;			/* rows exported */
	int			skipped_rows;	/* rows of other worlds (--world) */
	dim_row    *dims;
	int			ndims;
	int			mcr_dims;		/* dimensions written as .mcr */
	int32_t		chunk_dv;		/* the highest DataVersion of the chunks */
	/* world compounds: the overworld's, else the first other one */
	uint8_t    *level;
	size_t		level_len;
	char	   *level_dim;
	int			level_row;
	char	   *conflict_dim;	/* another dimension with a different one */
	int			conflict_row;
	int			level_from_overworld;
	/* the world's own files */
	int			wfiles;
	uint64_t	wbytes;
	uint8_t    *level_file;		/* a level.dat kept among them */
	size_t		level_file_len;
	int			level_written;	/* 1 from the world compound, 2 the kept file */
	wl_layout	layout;
	int32_t		dv;				/* the world's DataVersion */
} exporter;

/* "row N (world 'w', dimension 'd')" for messages, in buf. */
static const char *
row_label(char *buf, size_t size, int row, const char *world, const char *dim)
{
	snprintf(buf, size, "row %d (world '%.200s', dimension '%.200s')", row, world, dim);
	return buf;
}

/*
 * Keep the dimension's world compound for level.dat: the overworld's wins;
 * without it the first other one, and a different one elsewhere is a
 * conflict (decided once every row is read).
 */
static int
note_world(exporter *ex, sl_value *v, const char *dim, int row, const char *label)
{
	const uint8_t *data;
	size_t		len;
	sl_err		err;
	int			overworld = strcmp(dim, "minecraft:overworld") == 0;

	if (sl_value_world(v, &data, &len, &err))
		return tool_fail_err(&err, label);
	if (len == 0)
		return 0;
	if (ex->level && ex->level_len == len && memcmp(ex->level, data, len) == 0)
	{
		if (overworld)
		{
			free(ex->level_dim);
			ex->level_dim = xstrdup(dim);
			ex->level_row = row;
			ex->level_from_overworld = 1;
		}
		return 0;
	}
	if (ex->level && !overworld)
	{
		if (ex->conflict_dim == NULL)
		{
			ex->conflict_dim = xstrdup(dim);
			ex->conflict_row = row;
		}
		return 0;
	}
	if (ex->level)
	{
		/* the overworld's replaces another dimension's: that one conflicts */
		free(ex->conflict_dim);
		ex->conflict_dim = ex->level_dim;
		ex->conflict_row = ex->level_row;
		ex->level_dim = NULL;
		sl_free(ex->level);
	}
	if ((ex->level = sl_alloc(len)) == NULL)
		return tool_fail("out of memory");
	memcpy(ex->level, data, len);
	ex->level_len = len;
	free(ex->level_dim);
	ex->level_dim = xstrdup(dim);
	ex->level_row = row;
	ex->level_from_overworld = overworld;
	return 0;
}

/* Export one row: checks, then the dimension's region files, staged. */
static int
export_row(exporter *ex, int row, const char *world, const char *dim,
		   const uint8_t *data, size_t len)
{
	char		label[512];
	const char *why = NULL;
	char	   *folder;
	sl_value	v;
	sl_err		err;
	dim_row    *d;
	dim_row    *nd;
	int			rc;

	row_label(label, sizeof(label), row, world, dim);
	if (ex->world == NULL)
		ex->world = xstrdup(world);
	else if (strcmp(ex->world, world) != 0)
		return tool_fail("%s: the stream holds rows of more than one world ('%.200s' came first): "
						 "select one world (WHERE world = ...) or pass --world NAME", label, ex->world);
	if ((folder = wl_dim_folder(dim, WL_OLD, &why)) == NULL)
		return tool_fail("%s: unsafe dimension name: %s", label, why);
	free(folder);
	for (int i = 0; i < ex->ndims; i++)
		if (strcmp(ex->dims[i].name, dim) == 0)
			return tool_fail("%s: dimension '%.200s' comes twice", label, dim);
	if ((nd = realloc(ex->dims, (size_t) (ex->ndims + 1) * sizeof(dim_row))) == NULL)
		return tool_fail("out of memory");
	ex->dims = nd;
	d = &ex->dims[ex->ndims++];
	memset(d, 0, sizeof(*d));
	d->name = xstrdup(dim);

	if (sl_value_open_mem(&v, data, len, &sl_default_limits, &err))
		return tool_fail("%s: not a readable slime value: %s", label, err.msg);
	if (sl_value_ref_count(&v) > 0)
	{
		rc = tool_fail("%s: %u of its %u chunks are held by reference in the database's chunk "
					   "store and cannot be read outside the database: export "
					   "slime_resolve(data) instead of data", label,
					   sl_value_ref_count(&v), v.hdr.chunk_count);
		sl_value_close(&v);
		return rc;
	}
	if (sl_value_verify(data, len, &sl_default_limits, &err))
	{
		sl_value_close(&v);
		return tool_fail("%s: damaged value: %s", label, err.msg);
	}
	tool_progress_total(0, v.hdr.chunk_count, 0);
	rc = ex_write_regions(&ex->st, ex->ndims - 1, &v, label, &d->st);
	if (rc == 0)
		rc = note_world(ex, &v, dim, row, label);
	if (rc == 0)
	{
		if (d->st.mixed)
		{
			tool_progress_clear();
			fprintf(stderr, "slimetool: warning: %s: %u McRegion chunks among Anvil chunks, "
					"written into .mca files (Minecraft converts only .mcr files)\n", label, d->st.mixed);
		}
		if (v.hdr.chunk_count && v.hdr.dv_max != SL_NO_DV &&
			(ex->chunk_dv == SL_NO_DV || v.hdr.dv_max > ex->chunk_dv))
			ex->chunk_dv = v.hdr.dv_max;
		ex->mcr_dims += d->st.mcr;
		ex->rows++;
	}
	sl_value_close(&v);
	return rc;
}

/* ---- the COPY streams ----------------------------------------------------- */

/* Read and export every row of the world's dimensions, up to the trailer. */
static int
read_rows(exporter *ex, copy_in *in)
{
	for (int row = 1;; row++)
	{
		int32_t		nfields;
		char	   *world = NULL,
				   *dim = NULL,
					label[512];
		uint8_t    *data = NULL;
		size_t		len = 0;
		int			rc;

		if (copy_in_be(in, 2, &nfields, "a row header"))
			return -1;
		if (nfields == -1)
			return 0;
		if (nfields != 3)
			return tool_fail("row %d has %d columns: export-world reads (world text, "
							 "dimension text, data slime)", row, nfields);
		rc = copy_in_text(in, row, "the world name", &world);
		if (rc == 0)
			rc = copy_in_text(in, row, "the dimension name", &dim);
		if (rc == 0)
			rc = copy_in_bytes(in, row_label(label, sizeof(label), row, world, dim), "data",
							   SL_MAX_VALUE, &data, &len);
		if (rc == 0 && ex->o->world && strcmp(world, ex->o->world) != 0)
			ex->skipped_rows++;
		else if (rc == 0)
			rc = export_row(ex, row, world, dim, data, len);
		sl_free(data);
		free(world);
		free(dim);
		if (rc)
			return rc;
	}
}

/* Stage one world file (level.dat is kept aside for write_level). */
static int
world_file(exporter *ex, int row, const char *path, uint8_t *data, size_t len)
{
	const char *why = wl_check_path(path);

	if (why)
		return tool_fail("files row %d: path '%.300s' cannot be a world file's: %s", row, path, why);
	if (strcmp(path, "session.lock") == 0 || strcmp(path, "level.dat_old") == 0)
		return tool_fail("files row %d: %s is not a file export-world writes (copy-world never keeps it)",
						 row, path);
	ex->wfiles++;
	ex->wbytes += len;
	if (strcmp(path, "level.dat") == 0)
	{
		if (ex->level_file)
			return tool_fail("files row %d: level.dat comes twice", row);
		if ((ex->level_file = sl_alloc(len ? len : 1)) == NULL)
			return tool_fail("out of memory");
		memcpy(ex->level_file, data, len);
		ex->level_file_len = len;
		return 0;
	}
	return stage_put(&ex->st, -1, path, data, len);
}

/* Read the stream of the world's own files, up to its trailer. */
static int
read_files(exporter *ex, copy_in *in)
{
	int			rc = copy_in_header(in, 1);

	if (rc == 1)
		return tool_fail("the world's rows are not followed by a stream of its files (--with-files): "
						 "did the query of the files table fail? nothing written");
	if (rc)
		return -1;
	for (int row = 1;; row++)
	{
		int32_t		nfields;
		char	   *world = NULL,
				   *path = NULL,
					label[64];
		uint8_t    *data = NULL;
		size_t		len = 0;

		if (copy_in_be(in, 2, &nfields, "a row header"))
			return -1;
		if (nfields == -1)
			return 0;
		if (nfields != 3)
			return tool_fail("files row %d has %d columns: export-world reads (world text, "
							 "path text, data bytea)", row, nfields);
		snprintf(label, sizeof(label), "files row %d", row);
		rc = copy_in_text(in, row, "the world name", &world);
		if (rc == 0)
			rc = copy_in_text(in, row, "the path", &path);
		if (rc == 0)
			rc = copy_in_bytes(in, label, "data", SL_MAX_VALUE, &data, &len);
		if (rc == 0 && ex->o->world && strcmp(world, ex->o->world) != 0)
			;
		else if (rc == 0 && ex->world && strcmp(world, ex->world) != 0)
			rc = tool_fail("files row %d is of world '%.200s', the rows of world '%.200s'",
						   row, world, ex->world);
		else if (rc == 0)
			rc = world_file(ex, row, path, data, len);
		sl_free(data);
		free(world);
		free(path);
		if (rc)
			return rc;
	}
}

/* ---- level.dat and the layout ------------------------------------------- */

/* Data.DataVersion of an NBT document (packed or not), SL_NO_DV when none. */
static int32_t
level_dv(const uint8_t *data, size_t len, int packed)
{
	static const char *const path[] = {"Data", "DataVersion"};
	uint8_t    *nbt = NULL;
	size_t		nbt_len = len;
	int64_t		dv = 0;
	sl_err		err;
	int			found = 0;

	if (packed && sl_unpack_nbt(data, len, 0, &sl_default_limits, &nbt, &nbt_len, &err))
		return SL_NO_DV;
	found = sl_nbt_find_int(packed ? nbt : data, nbt_len, path, 2, &sl_default_limits, &dv, &err);
	sl_free(nbt);
	return found == 1 && dv > INT32_MIN && dv <= INT32_MAX ? (int32_t) dv : SL_NO_DV;
}

/* 1 when the kept level.dat file holds exactly the world compound. */
static int
level_file_matches(const exporter *ex)
{
	uint8_t    *nbt = NULL;
	size_t		len;
	sl_err		err;
	int			same;

	if (sl_unpack_nbt(ex->level_file, ex->level_file_len, 0, &sl_default_limits, &nbt, &len, &err))
		return 0;
	same = len == ex->level_len && memcmp(nbt, ex->level, len) == 0;
	sl_free(nbt);
	return same;
}

/*
 * Decide on and stage level.dat once every row is read: the world
 * compound gzipped as the game writes it, or the level.dat kept among the
 * world's files when it holds that same compound (another encoder wrote
 * it: its bytes come back), or when there is no world compound.
 */
static int
write_level(exporter *ex)
{
	sl_buf		gz = {NULL, 0, 0};
	sl_err		err;
	int			rc;

	tool_progress_clear();
	if (ex->level == NULL && ex->level_file)
	{
		fprintf(stderr, "slimetool: note: no dimension holds a world compound: level.dat is the "
				"one kept among the world's files\n");
		ex->level_written = 2;
		return stage_put(&ex->st, -1, "level.dat", ex->level_file, ex->level_file_len);
	}
	if (ex->level == NULL)
	{
		fprintf(stderr, "slimetool: warning: no dimension holds a world compound: no level.dat "
				"written (a server would create a new one, with a new seed)\n");
		return 0;
	}
	if (ex->conflict_dim && !ex->level_from_overworld)
		return tool_fail("no minecraft:overworld row holds a world compound, and rows %d (%s) "
						 "and %d (%s) hold different ones: cannot choose level.dat "
						 "(remove one with slime_with_level(data, NULL))",
						 ex->level_row, ex->level_dim, ex->conflict_row, ex->conflict_dim);
	if (ex->conflict_dim)
		fprintf(stderr, "slimetool: warning: row %d (%s) holds a world compound other than the "
				"overworld's: level.dat is the overworld's\n", ex->conflict_row, ex->conflict_dim);
	else if (!ex->level_from_overworld)
		fprintf(stderr, "slimetool: note: level.dat comes from row %d (%s), the only one with a "
				"world compound (copy-world reads it back into minecraft:overworld)\n",
				ex->level_row, ex->level_dim);
	if (ex->mcr_dims)
	{
		static const char *const path[] = {"Data", "version"};
		int64_t		version = 0;

		if (sl_nbt_find_int(ex->level, ex->level_len, path, 2, &sl_default_limits, &version, &err) != 1 ||
			version != MCREGION_VERSION)
			fprintf(stderr, "slimetool: warning: McRegion .mcr files written, but level.dat's "
					"Data.version is not %d: Minecraft converts .mcr files only when it is\n",
					MCREGION_VERSION);
	}
	if (ex->level_file && level_file_matches(ex))
	{
		ex->level_written = 2;
		return stage_put(&ex->st, -1, "level.dat", ex->level_file, ex->level_file_len);
	}
	if (ex->level_file)
		fprintf(stderr, "slimetool: warning: the level.dat kept among the world's files holds "
				"another compound than the world's (changed with slime_with_level since?): "
				"level.dat is written from the world compound\n");
	if (sl_jgzip_level(ex->level, ex->level_len, &sl_default_limits, &gz, &err))
		return tool_fail_err(&err, "level.dat");
	ex->level_written = 1;
	rc = stage_put(&ex->st, -1, "level.dat", gz.data, gz.len);
	sl_buf_free(&gz);
	return rc;
}

/* The world's DataVersion (level.dat's, else its chunks') and the layout it calls for. */
static void
choose_layout(exporter *ex)
{
	wl_layout	want;

	ex->dv = ex->level ? level_dv(ex->level, ex->level_len, 0) : SL_NO_DV;
	if (ex->dv == SL_NO_DV && ex->level_file)
		ex->dv = level_dv(ex->level_file, ex->level_file_len, 1);
	if (ex->dv == SL_NO_DV)
		ex->dv = ex->chunk_dv;
	want = wl_layout_for(ex->dv);
	ex->layout = ex->o->layout >= 0 ? (wl_layout) ex->o->layout : want;
	if (ex->layout != want)
	{
		tool_progress_clear();
		fprintf(stderr, "slimetool: warning: the %s layout (--layout) for a world of DataVersion %s%ld, "
				"whose game reads the %s layout: the folders move, the files in them are not "
				"converted\n", wl_layout_name(ex->layout), ex->dv == SL_NO_DV ? "none" : "",
				ex->dv == SL_NO_DV ? 0L : (long) ex->dv, wl_layout_name(want));
	}
}

/* qsort comparator of staged files by final path. */
static int
cmp_final(const void *a, const void *b)
{
	const staged *const *x = a;
	const staged *const *y = b;

	return strcmp((*x)->final, (*y)->final);
}

/*
 * Give every staged file its place in the layout. The same place twice:
 * a world file where the table's chunks make a region file gives way to
 * it (with a warning); two world files are an error.
 */
static int
place_files(exporter *ex)
{
	stage	   *s = &ex->st;
	staged	  **by = malloc((size_t) (s->n ? s->n : 1) * sizeof(staged *));
	int			rc = 0;

	if (by == NULL)
		return tool_fail("out of memory");
	for (int i = 0; i < s->n; i++)
	{
		staged	   *f = &s->files[i];

		if (f->dim < 0)
			f->final = wl_map_path(f->sub, ex->layout);
		else
		{
			const char *why;
			char	   *folder = wl_dim_folder(ex->dims[f->dim].name, ex->layout, &why);

			f->final = folder[0] ? tool_path(folder, f->sub) : xstrdup(f->sub);
			free(folder);
		}
		by[i] = f;
	}
	qsort(by, (size_t) s->n, sizeof(staged *), cmp_final);
	for (int i = 1; i < s->n && rc == 0; i++)
	{
		staged	   *a = by[i - 1],
				   *b = by[i];

		if (a->final == NULL || strcmp(a->final, b->final) != 0)
			continue;
		if (a->dim >= 0 || b->dim >= 0)
		{
			staged	   *w = a->dim < 0 ? a : b;

			fprintf(stderr, "slimetool: warning: the world file %s is replaced by the region file "
					"the table's chunks make there\n", w->sub);
			free(w->final);
			w->final = NULL;
			if (w == b)
				by[i] = a;
		}
		else
			rc = tool_fail("the world files %s and %s both go to %s in the %s layout", a->sub, b->sub,
						   a->final, wl_layout_name(ex->layout));
	}
	free(by);
	/* region/ always: copy-world finds a dimension by its folders */
	for (int d = 0; d < ex->ndims && rc == 0; d++)
	{
		const char *why;
		char	   *folder = wl_dim_folder(ex->dims[d].name, ex->layout, &why);
		char	   *region = folder[0] ? tool_path(folder, "region") : xstrdup("region");

		rc = stage_ensure(s, region);
		free(region);
		free(folder);
	}
	return rc;
}

/* 1 for a region-format file name: r.X.Z.mca, r.X.Z.mcr, c.X.Z.mcc. */
static int
is_region_name(const char *name)
{
	int32_t		a,
				b;

	return tool_parse_coords(name, "r", "mca", &a, &b) ||
		tool_parse_coords(name, "r", "mcr", &a, &b) ||
		tool_parse_coords(name, "c", "mcc", &a, &b);
}

/* 1 when rel is the final path of a staged file. */
static int
written(const exporter *ex, const char *rel)
{
	for (int i = 0; i < ex->st.n; i++)
		if (ex->st.files[i].final && strcmp(ex->st.files[i].final, rel) == 0)
			return 1;
	return 0;
}

/*
 * --force: remove the region-format files that an earlier world left in
 * the region/, entities/ and poi/ folders of the dimensions exported, in
 * either layout, so that the dimensions hold exactly the exported chunks.
 */
static int
remove_stale(exporter *ex)
{
	int			removed = 0,
				rc = 0;

	for (int d = 0; d < ex->ndims && rc == 0; d++)
		for (int l = WL_OLD; l <= WL_NEW && rc == 0; l++)
			for (int k = 0; k < SL_NCOMP && rc == 0; k++)
			{
				const char *why;
				char	   *folder = wl_dim_folder(ex->dims[d].name, (wl_layout) l, &why);
				char	   *krel = folder[0] ? tool_path(folder, kind_dirs[k]) : xstrdup(kind_dirs[k]);
				char	   *kdir = tool_path(ex->o->dir, krel);
				char	  **names = NULL;
				int			n = 0;

				if (tool_is_dir(kdir) && (rc = tool_list_dir(kdir, &names, &n)) == 0)
					for (int i = 0; i < n && rc == 0; i++)
					{
						char	   *rel = tool_path(krel, names[i]);
						char	   *path = tool_path(kdir, names[i]);

						if (is_region_name(names[i]) && !written(ex, rel))
						{
							if (unlink(path) != 0)
								rc = tool_fail("cannot remove stale %s: %s", path, strerror(errno));
							else
							{
								removed++;
								stage_changed(&ex->st, kdir);
							}
						}
						free(path);
						free(rel);
					}
				tool_free_names(names, n);
				free(kdir);
				free(krel);
				free(folder);
			}
	if (removed)
		fprintf(stderr, "removed %d region files no exported chunk is in (--force)\n", removed);
	return rc;
}

/* Say where each dimension went. */
static void
report(const exporter *ex)
{
	tool_progress_clear();
	for (int d = 0; d < ex->ndims; d++)
	{
		const dim_row *r = &ex->dims[d];
		const char *why;
		char	   *folder = wl_dim_folder(r->name, ex->layout, &why);

		fprintf(stderr, "%s -> %s%s%s: %u chunks, %d region, %d entities, %d poi files%s",
				r->name, ex->o->dir, folder[0] ? "/" : "", folder, r->st.chunks,
				r->st.files[0], r->st.files[1], r->st.files[2], r->st.mcr ? " (McRegion .mcr)" : "");
		if (r->st.external)
			fprintf(stderr, ", %d external .mcc", r->st.external);
		fputc('\n', stderr);
		free(folder);
	}
	fprintf(stderr, "world '%s': %d dimensions, %d files (%llu bytes)%s, %d world files kept in "
			"the table, written to %s in the %s layout (%s)\n",
			ex->world, ex->rows, ex->st.n, (unsigned long long) ex->st.bytes,
			ex->level_written == 1 ? ", level.dat from the world compound" :
			ex->level_written == 2 ? ", level.dat as it was kept" : "", ex->wfiles, ex->o->dir,
			wl_layout_name(ex->layout), ex->layout == WL_NEW ? "26.1 on" : "before 26.1");
}

/* ---- the command ---------------------------------------------------------- */

/* Print the usage of export-world. */
static int
export_usage(void)
{
	fputs("usage: psql -c \"\\copy (SELECT world, dimension, slime_resolve(data) FROM t WHERE world = 'w') "
		  "TO STDOUT (FORMAT binary)\" |\n"
		  "         slimetool export-world DIR [--force] [--world NAME] [--layout old|new] [--quiet]\n"
		  "       (--with-files: a second stream follows, of (world, path, data) rows: the world's files;\n"
		  "        clients/export-world.sh sends both)\n", stderr);
	return 2;
}

/* Parse the arguments of export-world; 0 ok, else an exit status. */
static int
parse_export_world(int argc, char **argv, export_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->layout = -1;
	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "--force") == 0)
			o->force = 1;
		else if (strcmp(argv[i], "--with-files") == 0)
			o->with_files = 1;
		else if (strcmp(argv[i], "--world") == 0 && i + 1 < argc)
			o->world = argv[++i];
		else if (strcmp(argv[i], "--layout") == 0 && i + 1 < argc)
		{
			if ((o->layout = wl_parse_layout(argv[++i])) < 0)
			{
				tool_fail("export-world: --layout %s: give old (region/, DIM-1/, DIM1/, before 26.1) "
						  "or new (dimensions/minecraft/<name>/, 26.1 on)", argv[i]);
				return export_usage();
			}
		}
		else if (tool_progress_quiet_arg(argv[i]))
			o->quiet = 1;
		else if (argv[i][0] != '-' && o->dir == NULL && argv[i][0] != '\0')
			o->dir = argv[i];
		else
		{
			tool_fail("export-world: unexpected argument %s", argv[i]);
			return export_usage();
		}
	}
	return o->dir ? 0 : export_usage();
}

/* 1 when a directory has no entries. */
static int
dir_is_empty(const char *dir)
{
	char	  **names;
	int			n;

	if (tool_list_dir(dir, &names, &n))
		return -1;
	tool_free_names(names, n);
	return n == 0;
}

/*
 * A Minecraft server holds an OS lock on DIR/session.lock (FileChannel
 * tryLock, an fcntl lock on Linux) while the world is open: refuse then.
 */
static int
check_session_lock(const char *dir)
{
	char	   *path = tool_path(dir, "session.lock");
	int			fd = open(path, O_RDONLY | O_NOFOLLOW);
	struct flock fl;
	int			rc = 0;

	if (fd >= 0)
	{
		memset(&fl, 0, sizeof(fl));
		fl.l_type = F_WRLCK;
		fl.l_whence = SEEK_SET;
		if (fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK)
			rc = tool_fail("%s is locked by process %ld: a server has this world open; stop it first",
						   path, (long) fl.l_pid);
		close(fd);
	}
	free(path);
	return rc;
}

/* Check (and create) the target folder before reading anything. */
static int
prepare_dir(exporter *ex)
{
	const export_opts *o = ex->o;
	struct stat st;
	int			empty;

	if (lstat(o->dir, &st) != 0)
	{
		if (errno != ENOENT)
			return tool_fail("%s: %s", o->dir, strerror(errno));
		if (mkdir(o->dir, 0777) != 0)
			return tool_fail("cannot create %s: %s (its parent must exist)", o->dir, strerror(errno));
		stage_made(&ex->st, o->dir);
		return 0;
	}
	if (!tool_is_dir(o->dir))
		return tool_fail("%s exists and is not a directory", o->dir);
	if ((empty = dir_is_empty(o->dir)) < 0)
		return -1;
	if (!empty && !o->force)
		return tool_fail("%s is not empty: export into a new or empty folder, or pass --force to "
						 "write over the world in it", o->dir);
	return o->force ? check_session_lock(o->dir) : 0;
}

/* Free everything an exporter holds. */
static void
free_exporter(exporter *ex)
{
	free(ex->world);
	for (int i = 0; i < ex->ndims; i++)
		free(ex->dims[i].name);
	free(ex->dims);
	stage_free(&ex->st);
	sl_free(ex->level);
	sl_free(ex->level_file);
	free(ex->level_dim);
	free(ex->conflict_dim);
}

/* Read both streams, decide, and give every file its place. */
static int
export_world(exporter *ex)
{
	copy_in		in = {stdin, 0, "stdin"};
	int			rc;

	rc = stage_open(&ex->st, ex->o->dir);
	if (rc == 0)
		rc = copy_in_header(&in, 0);
	if (rc == 0)
		rc = read_rows(ex, &in);
	if (rc == 0 && ex->o->with_files)
	{
		in.what = "the stream of the world's files";
		rc = read_files(ex, &in);
	}
	if (rc == 0 && fgetc(in.f) != EOF)
		rc = tool_fail("%s goes on after its trailer%s", in.what,
					   ex->o->with_files ? "" : " (a stream of the world's files? pass --with-files)");
	if (rc == 0 && ex->rows == 0)
		rc = tool_fail("the COPY stream has no rows%s%s%s", ex->o->world ? " of world '" : "",
					   ex->o->world ? ex->o->world : "", ex->o->world ? "'" : "");
	if (rc == 0)
		rc = write_level(ex);
	if (rc == 0)
	{
		choose_layout(ex);
		rc = place_files(ex);
	}
	if (rc == 0)
		rc = stage_commit(&ex->st);
	if (rc == 0 && ex->o->force)
		rc = remove_stale(ex);
	if (rc == 0)
		rc = stage_sync(&ex->st);
	return rc;
}

/* slimetool export-world: a binary COPY stream on stdin as a world folder. */
int
cmd_export_world(int argc, char **argv)
{
	export_opts o;
	exporter	ex;
	int			rc;

	if ((rc = parse_export_world(argc, argv, &o)) != 0)
		return rc;
	if (isatty(STDIN_FILENO))
	{
		tool_fail("export-world reads a binary COPY stream on stdin: pipe psql's \\copy into it");
		return export_usage();
	}
	memset(&ex, 0, sizeof(ex));
	ex.o = &o;
	ex.chunk_dv = SL_NO_DV;
	tool_progress_start("export-world", o.quiet);
	rc = prepare_dir(&ex);
	if (rc == 0)
		rc = export_world(&ex);
	tool_progress_end();
	if (rc == 0)
		report(&ex);
	else
	{
		stage_rollback(&ex.st);
		if (ex.st.renamed)
			fprintf(stderr, "slimetool: export-world failed after %d of %d files were in place in %s\n",
					ex.st.renamed, ex.st.n, o.dir);
		else
			fprintf(stderr, "slimetool: export-world failed: %s left as it was\n", o.dir);
	}
	free_exporter(&ex);
	return rc ? 1 : 0;
}
