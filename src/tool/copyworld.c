/*
 * copyworld.c - slimetool copy-world: a whole world folder, in either
 * layout (wlayout.h), as a PostgreSQL binary COPY stream of rows (world
 * text, dimension text, data slime), one row per dimension, for "\copy
 * t(world, dimension, data) FROM STDIN WITH (FORMAT binary)"; with
 * --files, the world's own files (wfiles.h) as rows (world text, path
 * text, data bytea) instead.
 */
#define _XOPEN_SOURCE 700		/* realpath */

#include "tool.h"
#include "copybin.h"
#include "progress.h"
#include "wdims.h"
#include "wfiles.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Options of copy-world. */
typedef struct copy_opts
{
	const char *world;
	const char *name;
	int			strict;
	int			quiet;			/* no progress line */
	int			check;			/* --check: say what the folder holds, copy nothing */
	int			files;			/* --files: the world's own files, not its dimensions */
} copy_opts;

/* Say what a world folder holds: its dimensions, their region files, its own files. */
static int
describe_world(const char *world, const dim_list *dims, int has_level)
{
	printf("%s: a world folder%s, in the %s layout (%s)\n", world, has_level ? " with level.dat" : "",
		   wl_layout_name(dims->layout), dims->layout == WL_NEW ?
		   "dimensions/minecraft/<name>/, 26.1 on" : "region/, DIM-1/, DIM1/, before 26.1");
	for (int i = 0; i < dims->n; i++)
	{
		const dimension *d = &dims->v[i];

		printf("  %s:", d->name);
		for (int k = 0; k < SL_NCOMP; k++)
		{
			char	   *dir = wd_kind_dir(d, k);
			uint64_t	files = 0,
						bytes = 0;

			if (dir == NULL)
				continue;
			tool_count_regions(dir, &files, &bytes);
			printf("%s %s %llu file%s (%llu bytes)", k ? "," : "", wd_kind_dirs[k],
				   (unsigned long long) files, files == 1 ? "" : "s", (unsigned long long) bytes);
			free(dir);
		}
		printf("%s in %s\n", d->bare ? " (the folder itself as region/)" : "", d->dir);
	}
	return wf_describe(world, dims);
}

/* Read every region-format file of one kind folder into the builder. */
static int
read_kind_dir(sl_builder *b, int comp, const char *dir, int strict, tool_stats *st)
{
	char	  **names;
	int			n,
				rc = 0;
	const char *ext = "mca";
	int32_t		rx,
				rz;

	if (tool_list_dir(dir, &names, &n))
		return -1;
	if (comp == SL_COMP_REGION)
		ext = wd_region_ext(names, n);
	for (int i = 0; i < n && rc == 0; i++)
		if (tool_parse_coords(names[i], "r", ext, &rx, &rz))
			rc = tool_read_region(b, comp, dir, names[i], rx, rz, names, n, strict, st);
	tool_free_names(names, n);
	return rc;
}

/* Build the value of one dimension into out. */
static int
build_dimension(const dimension *d, const uint8_t *level, size_t level_len,
				int strict, sl_buf *out, tool_stats *st)
{
	sl_builder	b;
	sl_err		err;
	int			rc = 0;

	memset(&b, 0, sizeof(b));
	for (int k = 0; k < SL_NCOMP && rc == 0; k++)
	{
		char	   *dir = wd_kind_dir(d, k);

		if (dir && tool_is_dir(dir))
			rc = read_kind_dir(&b, k, dir, strict, st);
		free(dir);
	}
	if (rc == 0 && level_len > 0 && sl_builder_set_world(&b, level, level_len, &err))
		rc = tool_fail_err(&err, d->name);
	if (rc == 0 && sl_builder_encode(&b, &sl_default_encode_opts, &sl_default_limits, out, &err))
		rc = tool_fail_err(&err, d->name);
	sl_builder_free(&b);
	return rc;
}

/*
 * Read and unpack level.dat when present; lenient mode skips a bad one
 * (quiet: silently, as --files keeps its bytes).
 */
static int
load_level(const char *world, int strict, int quiet, uint8_t **nbt, size_t *len)
{
	char	   *path = tool_path(world, "level.dat");
	uint8_t    *raw = NULL;
	size_t		raw_len;
	sl_err		err;
	int			rc = 0;

	*nbt = NULL;
	*len = 0;
	if (access(path, F_OK) == 0)
	{
		rc = tool_read_file(path, &raw, &raw_len);
		if (rc == 0 && sl_unpack_nbt(raw, raw_len, 0, &sl_default_limits, nbt, len, &err))
		{
			rc = strict || !quiet ? tool_fail_err(&err, path) : 0;
			if (!strict)
			{
				if (!quiet)
					fprintf(stderr, "slimetool: %s: skipped\n", path);
				rc = 0;
			}
		}
	}
	sl_free(raw);
	free(path);
	return rc;
}

/* Report one dimension on stderr. */
static void
report_dim(const char *name, const tool_stats *st, const sl_buf *value)
{
	sl_header	h;
	sl_err		err;

	if (sl_value_summary(value->data, value->len, &h, &err))
		memset(&h, 0, sizeof(h));
	tool_progress_clear();
	fprintf(stderr, "%s: %d files (%llu bytes), %u chunks, %d skipped chunks",
			name, st->files, (unsigned long long) st->file_bytes, h.chunk_count, st->skipped);
	if (st->bad_files)
		fprintf(stderr, ", %d skipped files", st->bad_files);
	if (st->repaired)
		fprintf(stderr, ", %d repaired chunks", st->repaired);
	fprintf(stderr, ", raw %llu bytes, encoded %zu bytes%s\n",
			(unsigned long long) h.raw_bytes, value->len, h.world_len ? ", with level.dat" : "");
}

static int	copy_rows(const copy_opts *o, const dim_list *dims, copy_out *outp,
					  const uint8_t *level, size_t level_len);

/* Build and emit the row of every dimension, with a progress line. */
static int
copy_dims(const copy_opts *o, const dim_list *dims, const uint8_t *level, size_t level_len)
{
	copy_out	out;
	uint64_t	files,
				bytes;
	int			rc;

	tool_progress_start("copy-world", o->quiet);
	wd_count_files(dims, &files, &bytes);
	tool_progress_total(files, 0, bytes);
	copy_out_start(&out, stdout);
	rc = copy_rows(o, dims, &out, level, level_len);
	tool_progress_end();
	return rc;
}

/* Emit the row of every dimension and the trailer. */
static int
copy_rows(const copy_opts *o, const dim_list *dims, copy_out *outp, const uint8_t *level,
		  size_t level_len)
{
	for (int i = 0; i < dims->n; i++)
	{
		const dimension *d = &dims->v[i];
		sl_buf		value = {NULL, 0, 0};
		tool_stats	st;
		int			first = strcmp(d->name, "minecraft:overworld") == 0;

		memset(&st, 0, sizeof(st));
		if (!copy_valid_utf8(d->name, strlen(d->name)))
			return tool_fail("dimension folder %s is not valid UTF-8", d->dir);
		if (build_dimension(d, level, first ? level_len : 0, o->strict, &value, &st))
		{
			sl_buf_free(&value);
			return tool_fail("%s: dimension %s not copied", o->world, d->name);
		}
		{
			const void *f[3] = {o->name, d->name, value.data};
			size_t		l[3] = {strlen(o->name), strlen(d->name), value.len};

			copy_out_row(outp, 3, f, l);
		}
		report_dim(d->name, &st, &value);
		sl_buf_free(&value);
		if (ferror(stdout))
			return tool_fail("error writing the COPY stream to stdout");
	}
	return copy_out_finish(outp);
}

/* Print copy-world's usage to stderr. */
static void
copy_usage(void)
{
	fputs("usage: slimetool copy-world WORLD_DIR [--name NAME] [--lenient] [--quiet] | psql ...\n"
		  "       slimetool copy-world WORLD_DIR --files [--name NAME] [--lenient] [--quiet] | psql ...\n"
		  "                          (the world's own files: rows (world, path, data bytea))\n"
		  "       slimetool copy-world WORLD_DIR --check   (what it would copy; exit 1: not a world folder)\n",
		  stderr);
}

/* Parse the arguments of copy-world; 0 ok, else an exit status. */
static int
parse_copy(int argc, char **argv, copy_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->strict = 1;
	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "--lenient") == 0 || strcmp(argv[i], "--strict") == 0)
			o->strict = argv[i][2] == 's';
		else if (strcmp(argv[i], "--name") == 0 && i + 1 < argc)
			o->name = argv[++i];
		else if (tool_progress_quiet_arg(argv[i]))
			o->quiet = 1;
		else if (strcmp(argv[i], "--check") == 0)
			o->check = 1;
		else if (strcmp(argv[i], "--files") == 0)
			o->files = 1;
		else if (argv[i][0] != '-' && o->world == NULL)
			o->world = argv[i];
		else
		{
			tool_fail("copy-world: unexpected argument %s", argv[i]);
			copy_usage();
			return 2;
		}
	}
	if (o->world == NULL)
	{
		copy_usage();
		return 2;
	}
	return 0;
}

/* The world's default name: the base name of its real path (malloc'd). */
static char *
default_name(const char *world)
{
	char	   *real = realpath(world, NULL);
	char	   *slash,
			   *name;

	if (real == NULL)
		return NULL;
	slash = strrchr(real, '/');
	name = strdup(slash && slash[1] ? slash + 1 : real);
	free(real);
	return name;
}

/* Run copy-world once the options are known. */
static int
copy_world(copy_opts *o)
{
	dim_list	dims;
	uint8_t    *level = NULL;
	size_t		level_len = 0;
	int			rc;

	memset(&dims, 0, sizeof(dims));
	rc = load_level(o->world, o->strict, o->files, &level, &level_len);
	if (rc == 0)
		rc = wd_find(&dims, o->world, level_len > 0);
	if (rc == 0)
		rc = wd_check_world(o->world, &dims);
	if (rc == 0 && o->check)
		rc = describe_world(o->world, &dims, level_len > 0);
	else if (rc == 0 && o->files)
		rc = wf_copy(o->world, o->name, &dims, o->strict, o->quiet);
	else if (rc == 0)
		rc = copy_dims(o, &dims, level, level_len);
	wd_free(&dims);
	sl_free(level);
	return rc;
}

/* slimetool copy-world: a world folder as a binary COPY stream on stdout. */
int
cmd_copy_world(int argc, char **argv)
{
	copy_opts	o;
	char	   *name = NULL;
	int			rc;

	if ((rc = parse_copy(argc, argv, &o)) != 0)
		return rc;
	if (!tool_is_dir(o.world))
		rc = tool_fail("%s is not a directory", o.world);
	else if (!o.check && isatty(STDOUT_FILENO))
		rc = tool_fail("copy-world writes a binary COPY stream: pipe it into psql");
	else if (o.name == NULL && (o.name = name = default_name(o.world)) == NULL)
		rc = tool_fail("%s: cannot resolve the folder's name", o.world);
	else if (!copy_valid_utf8(o.name, strlen(o.name)) || o.name[0] == '\0')
		rc = tool_fail("world name \"%s\" is empty or not valid UTF-8: use --name", o.name);
	else
		rc = copy_world(&o);
	free(name);
	return rc ? 1 : 0;
}
