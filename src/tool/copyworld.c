/*
 * copyworld.c - slimetool copy-world: a whole world folder as a PostgreSQL
 * binary COPY stream of rows (world text, dimension text, data slime), one
 * row per dimension, for "\copy t(world, dimension, data) FROM STDIN WITH
 * (FORMAT binary)".
 */
#define _XOPEN_SOURCE 700		/* realpath */

#include "tool.h"
#include "progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_DIM_DEPTH 8

static const char *const kind_dirs[SL_NCOMP] = {"region", "entities", "poi"};

/* One dimension of the world: its name and its folder. */
typedef struct dimension
{
	char	   *name;
	char	   *dir;
	int			bare;			/* dir holds the region files itself (no region/) */
} dimension;

typedef struct dim_list
{
	dimension  *v;
	int			n;
	int			cap;
} dim_list;

/* Options of copy-world. */
typedef struct copy_opts
{
	const char *world;
	const char *name;
	int			strict;
	int			quiet;			/* no progress line */
	int			check;			/* --check: say what the folder holds, copy nothing */
} copy_opts;

/* 1 when dir holds a region/, entities/ or poi/ folder. */
static int
has_chunk_dirs(const char *dir)
{
	int			found = 0;

	for (int k = 0; k < SL_NCOMP && !found; k++)
	{
		char	   *p = tool_path(dir, kind_dirs[k]);

		found = tool_is_dir(p);
		free(p);
	}
	return found;
}

/* Append a dimension (copies name, takes dir); a repeated name fails. */
static int
add_dim(dim_list *l, const char *name, char *dir)
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
	l->v[l->n].name = strdup(name);
	l->v[l->n].bare = 0;
	l->v[l->n++].dir = dir;
	return l->v[l->n - 1].name ? 0 : tool_fail("out of memory");
}

/* Free a dimension list. */
static void
free_dims(dim_list *l)
{
	for (int i = 0; i < l->n; i++)
	{
		free(l->v[i].name);
		free(l->v[i].dir);
	}
	free(l->v);
}

/* The folder of kind k of a dimension (malloc'd), NULL when it has none. */
static char *
kind_dir(const dimension *d, int k)
{
	if (d->bare)
		return k == SL_COMP_REGION ? strdup(d->dir) : NULL;
	return tool_path(d->dir, kind_dirs[k]);
}

/* Count the region-format files of every dimension. */
static void
count_files(const dim_list *l, uint64_t *files, uint64_t *bytes)
{
	*files = *bytes = 0;
	for (int i = 0; i < l->n; i++)
		for (int k = 0; k < SL_NCOMP; k++)
		{
			char	   *dir = kind_dir(&l->v[i], k);

			if (dir)
				tool_count_regions(dir, files, bytes);
			free(dir);
		}
}

/* Add dir as dimension name when it holds chunk folders. */
static int
add_if_dim(dim_list *l, const char *name, char *dir)
{
	if (!has_chunk_dirs(dir))
	{
		free(dir);
		return 0;
	}
	return add_dim(l, name, dir);
}

/* 1 for the folders of a dimension that never hold nested dimensions. */
static int
is_data_dir(const char *name)
{
	return strcmp(name, "region") == 0 || strcmp(name, "entities") == 0 ||
		strcmp(name, "poi") == 0 || strcmp(name, "data") == 0;
}

/* Find dimensions under dimensions/<ns>/...; dim is "ns:path" so far. */
static int
walk_namespace(dim_list *l, const char *dir, const char *dim, int depth)
{
	char	  **names;
	int			n,
				rc = 0;

	if (depth > 0 && has_chunk_dirs(dir) && add_dim(l, dim, strdup(dir)))
		return -1;
	if (depth >= MAX_DIM_DEPTH || tool_list_dir(dir, &names, &n))
		return 0;
	for (int i = 0; i < n && rc == 0; i++)
	{
		char	   *sub = tool_path(dir, names[i]);
		size_t		len = strlen(dim) + strlen(names[i]) + 2;
		char	   *subdim = malloc(len);

		if (subdim && tool_is_dir(sub) && !is_data_dir(names[i]) && names[i][0] != '.')
		{
			snprintf(subdim, len, "%s%s%s", dim, depth > 0 ? "/" : "", names[i]);
			rc = walk_namespace(l, sub, subdim, depth + 1);
		}
		free(subdim);
		free(sub);
	}
	tool_free_names(names, n);
	return rc;
}

/* Find the custom dimensions under world/dimensions/. */
static int
find_custom_dims(dim_list *l, const char *world)
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
			char	   *dim = malloc(strlen(names[i]) + 2);

			if (dim && tool_is_dir(ns) && names[i][0] != '.')
			{
				sprintf(dim, "%s:", names[i]);
				rc = walk_namespace(l, ns, dim, 0);
			}
			free(dim);
			free(ns);
		}
	}
	tool_free_names(names, n);
	free(root);
	return rc;
}

/*
 * Find every dimension of a world folder, the overworld first; a folder of
 * nothing but region files is the overworld's region/ on its own.
 */
static int
find_dimensions(dim_list *l, const char *world, int has_level)
{
	uint64_t	files = 0,
				bytes = 0;

	if ((has_chunk_dirs(world) || has_level) &&
		add_dim(l, "minecraft:overworld", strdup(world)))
		return -1;
	if (add_if_dim(l, "minecraft:the_nether", tool_path(world, "DIM-1")) ||
		add_if_dim(l, "minecraft:the_end", tool_path(world, "DIM1")) ||
		find_custom_dims(l, world))
		return -1;
	if (l->n == 0)
	{
		tool_count_regions(world, &files, &bytes);
		if (files > 0)
		{
			if (add_dim(l, "minecraft:overworld", strdup(world)))
				return -1;
			l->v[0].bare = 1;
		}
	}
	return 0;
}

/* Fail unless the folder is a world: say what was looked for, and where. */
static int
check_world(const char *world, const dim_list *dims)
{
	if (dims->n > 0)
		return 0;
	return tool_fail("%s is not a world folder: it holds no level.dat, no region/, entities/ or "
					 "poi/ folder, no DIM-1/ or DIM1/ with one of those, no dimensions/<namespace>/<name>/ "
					 "with one, and no region files (r.X.Z.mca or r.X.Z.mcr) of its own", world);
}

/* Say what a world folder holds: its dimensions and their region files. */
static void
describe_world(const char *world, const dim_list *dims, int has_level)
{
	printf("%s: a world folder%s\n", world, has_level ? " with level.dat" : "");
	for (int i = 0; i < dims->n; i++)
	{
		const dimension *d = &dims->v[i];

		printf("  %s:", d->name);
		for (int k = 0; k < SL_NCOMP; k++)
		{
			char	   *dir = kind_dir(d, k);
			uint64_t	files = 0,
						bytes = 0;

			if (dir == NULL)
				continue;
			tool_count_regions(dir, &files, &bytes);
			printf("%s %s %llu file%s (%llu bytes)", k ? "," : "", kind_dirs[k],
				   (unsigned long long) files, files == 1 ? "" : "s", (unsigned long long) bytes);
			free(dir);
		}
		printf("%s in %s\n", d->bare ? " (the folder itself as region/)" : "", d->dir);
	}
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
	{
		ext = "mcr";
		for (int i = 0; i < n; i++)
			if (tool_parse_coords(names[i], "r", "mca", &rx, &rz))
				ext = "mca";
	}
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
		char	   *dir = kind_dir(d, k);

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

/* Read and unpack level.dat when present; lenient mode skips a bad one. */
static int
load_level(const char *world, int strict, uint8_t **nbt, size_t *len)
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
			rc = tool_fail_err(&err, path);
			if (!strict)
			{
				fprintf(stderr, "slimetool: %s: skipped\n", path);
				rc = 0;
			}
		}
	}
	sl_free(raw);
	free(path);
	return rc;
}

/* 1 when s is valid UTF-8 without NUL (PostgreSQL text). */
static int
valid_utf8(const char *s)
{
	const unsigned char *p = (const unsigned char *) s;

	while (*p)
	{
		int			n = *p < 0x80 ? 0 : (*p & 0xE0) == 0xC0 ? 1 : (*p & 0xF0) == 0xE0 ? 2 :
			(*p & 0xF8) == 0xF0 ? 3 : -1;

		if (n < 0 || (n == 1 && *p < 0xC2) || (n == 3 && *p > 0xF4))
			return 0;
		p++;
		while (n-- > 0)
			if ((*p++ & 0xC0) != 0x80)
				return 0;
	}
	return 1;
}

/*
 * The COPY stream on stdout. The last byte of each row is held back until
 * the next row or the trailer goes out, so a stream cut short anywhere (an
 * error, a crash, a kill) ends inside a row and the server rejects the
 * whole COPY; a binary COPY that just stops between rows would be taken as
 * complete.
 */
typedef struct copy_out
{
	FILE	   *f;
	int			held;			/* held-back byte, -1 none */
} copy_out;

/* Write the held-back byte, if any. */
static void
release_held(copy_out *o)
{
	if (o->held >= 0)
		fputc(o->held, o->f);
	o->held = -1;
}

/* Append a big-endian int16 / int32 to the stream. */
static void
put_be(copy_out *o, uint32_t v, int bytes)
{
	for (int i = bytes - 1; i >= 0; i--)
		fputc((int) ((v >> (8 * i)) & 0xFF), o->f);
}

/* Append one field (int32 length + bytes). */
static void
put_field(copy_out *o, const void *data, size_t len)
{
	put_be(o, (uint32_t) len, 4);
	fwrite(data, 1, len, o->f);
}

/* Append one row (world, dimension, data), holding back its last byte. */
static void
put_row(copy_out *o, const char *world, const char *dim, const sl_buf *value)
{
	release_held(o);
	put_be(o, 3, 2);
	put_field(o, world, strlen(world));
	put_field(o, dim, strlen(dim));
	put_be(o, (uint32_t) value->len, 4);
	fwrite(value->data, 1, value->len - 1, o->f);
	o->held = value->data[value->len - 1];
}

/* Append the COPY BINARY signature, flags and header extension length. */
static void
put_header(copy_out *o)
{
	fwrite("PGCOPY\n\377\r\n\0", 1, 11, o->f);
	put_be(o, 0, 4);
	put_be(o, 0, 4);
}

/* Release the held byte and append the trailer; 0 when all went out. */
static int
put_trailer(copy_out *o)
{
	release_held(o);
	put_be(o, 0xFFFF, 2);
	if (fflush(o->f) != 0 || ferror(o->f))
		return tool_fail("error writing the COPY stream to stdout");
	return 0;
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
	copy_out	out = {stdout, -1};
	uint64_t	files,
				bytes;
	int			rc;

	tool_progress_start("copy-world", o->quiet);
	count_files(dims, &files, &bytes);
	tool_progress_total(files, 0, bytes);
	put_header(&out);
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
		if (!valid_utf8(d->name))
			return tool_fail("dimension folder %s is not valid UTF-8", d->dir);
		if (build_dimension(d, level, first ? level_len : 0, o->strict, &value, &st))
		{
			sl_buf_free(&value);
			return tool_fail("%s: dimension %s not copied", o->world, d->name);
		}
		put_row(outp, o->name, d->name, &value);
		report_dim(d->name, &st, &value);
		sl_buf_free(&value);
		if (ferror(stdout))
			return tool_fail("error writing the COPY stream to stdout");
	}
	return put_trailer(outp);
}

/* Print copy-world's usage to stderr. */
static void
copy_usage(void)
{
	fputs("usage: slimetool copy-world WORLD_DIR [--name NAME] [--lenient] [--quiet] | psql ...\n"
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
	dim_list	dims = {NULL, 0, 0};
	uint8_t    *level = NULL;
	size_t		level_len = 0;
	int			rc;

	rc = load_level(o->world, o->strict, &level, &level_len);
	if (rc == 0)
		rc = find_dimensions(&dims, o->world, level_len > 0);
	if (rc == 0)
		rc = check_world(o->world, &dims);
	if (rc == 0 && o->check)
		describe_world(o->world, &dims, level_len > 0);
	else if (rc == 0)
		rc = copy_dims(o, &dims, level, level_len);
	free_dims(&dims);
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
	else if (!valid_utf8(o.name) || o.name[0] == '\0')
		rc = tool_fail("world name \"%s\" is empty or not valid UTF-8: use --name", o.name);
	else
		rc = copy_world(&o);
	free(name);
	return rc ? 1 : 0;
}
