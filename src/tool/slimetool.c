/*
 * slimetool.c - command-line companion of the slime extension.
 *
 *   slimetool info WORLD
 *   slimetool verify WORLD
 *   slimetool import-region [--strict|--lenient] [--entities F] [--poi F]
 *                           [--rx N --rz N] [--format-version N] [--level N]
 *                           [REGION.mca] -o OUT.slimev
 *   slimetool export-region VALUE RX RZ [--kind region|entities|poi]
 *                           -o OUT.mca
 *   slimetool copy-world WORLD_DIR [--name NAME] [--files] [--lenient] [--quiet]
 *   slimetool export-world DIR [--force] [--world NAME] [--with-files]
 *                          [--layout old|new] [--quiet]
 *   slimetool gen-world DIR [--size N] [--layout old|new]
 *   slimetool import-slime FILE.slime -o OUT.slimev
 *   slimetool export-slime WORLD -o FILE.slime
 *   slimetool render WORLD [--y-max N] [--scale N] [--quiet] -o OUT.png
 *   slimetool map-server --dsn CONNINFO --table T --key K --column C --listen HOST:PORT
 *
 * A value file (.slimev) holds the raw value bytes (the type's binary
 * form); a slime file (.slime) is AdvancedSlimePaper's world file. A WORLD
 * is either, or a region file r.X.Z.mca (tool_world_open tells them apart
 * by their bytes); export-region takes a value or a slime file.
 */
#include "tool.h"
#include "progress.h"
#include "sl_vsum.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const kind_names[SL_NCOMP] = {"region", "entities", "poi"};

/* Print the usage text to f. */
static void
usage(FILE *f)
{
	fputs("usage:\n"
		  "  slimetool info WORLD\n"
		  "  slimetool verify WORLD\n"
		  "  slimetool import-region [--strict|--lenient] [--entities F] [--poi F]\n"
		  "                          [--rx N --rz N] [--format-version N] [--level N] [--quiet] [REGION.mca] -o OUT.slimev\n"
		  "  slimetool export-region VALUE.slimev|FILE.slime RX RZ [--kind region|entities|poi] -o OUT.mca\n"
		  "  slimetool copy-world WORLD_DIR [--name NAME] [--files] [--lenient] [--quiet]  > binary COPY stream\n"
		  "                   (--files: the world's own files instead of its dimensions; --check: what it holds)\n"
		  "  slimetool export-world DIR [--force] [--world NAME] [--with-files] [--layout old|new] [--quiet]\n"
		  "                   < binary COPY stream(s): the dimensions, then (--with-files) the world's files\n"
		  "  slimetool gen-world DIR [--size N] [--layout old|new]\n"
		  "  slimetool import-slime FILE.slime -o OUT.slimev  (a slime file, any version, as a value)\n"
		  "  slimetool export-slime WORLD -o FILE.slime       (a world as a version-13 slime file)\n"
		  "  slimetool render WORLD [--y-max N] [--scale N] [--max-pixels N] [--rx N --rz N]\n"
		  "                   [--quiet] -o OUT.png          (a top-down map, as slime_render_map draws it)\n"
		  "  slimetool map-server --dsn CONNINFO --table T --key K --column C --listen HOST:PORT\n"
		  "                   [OPTIONS]  (every world of a table on a web map; map-server --help: its options)\n"
		  "WORLD is a value file (.slimev, a slime value's bytes), a slime file (.slime,\n"
		  "AdvancedSlimePaper/SWM, any version) or a region file r.X.Z.mca, told apart by their bytes.\n", f);
}

/* Report a usage error and return the exit status for it. */
static int
bad_usage(const char *fmt, const char *arg)
{
	fputs("slimetool: ", stderr);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	usage(stderr);
	return 2;
}

/* Open a world file for cmd (region files too when regions). */
static int
open_world(const char *cmd, const char *path, int regions, tool_world *w)
{
	tool_world_opts o = {cmd, regions, 0, NULL, NULL};

	if (tool_world_open(path, &o, w))
		return -1;
	tool_world_note(path, w);
	return 0;
}

/* Print a DataVersion or null. */
static void
print_dv(int32_t dv)
{
	if (dv == SL_NO_DV)
		fputs("null", stdout);
	else
		printf("%d", dv);
}

/* Print the header fields of a value as slime_info's JSON. */
static int
print_info(sl_value *v)
{
	const sl_header *h = &v->hdr;
	uint32_t	counts[SL_NCOMP] = {0, 0, 0};
	uint8_t		hash[32];
	sl_err		err;

	if (sl_value_content_hash(v, hash, &err))
		return tool_fail_err(&err, NULL);
	for (uint32_t i = 0; i < h->chunk_count; i++)
	{
		sl_dirent	d;

		if (sl_value_dirent(v, i, &d, &err))
			return tool_fail_err(&err, NULL);
		for (int k = 0; k < SL_NCOMP; k++)
			counts[k] += d.len[k] != 0;
	}
	printf("{\"format_version\": %u, \"chunks\": %u", h->version, h->chunk_count);
	printf(", \"region_chunks\": %u, \"entity_chunks\": %u, \"poi_chunks\": %u",
		   counts[0], counts[1], counts[2]);
	fputs(", \"data_version\": {\"min\": ", stdout);
	print_dv(h->dv_min);
	fputs(", \"max\": ", stdout);
	print_dv(h->dv_max);
	fputs("}, \"bounds\": ", stdout);
	if (h->chunk_count)
		printf("{\"min_x\": %d, \"min_z\": %d, \"max_x\": %d, \"max_z\": %d}",
			   h->min_x, h->min_z, h->max_x, h->max_z);
	else
		fputs("null", stdout);
	printf(", \"raw_bytes\": %llu, \"stored_bytes\": %u, \"frames\": %u, \"has_level\": %s, \"hash\": \"",
		   (unsigned long long) h->raw_bytes, h->total_len, h->frame_count,
		   h->world_len ? "true" : "false");
	for (int i = 0; i < 32; i++)
		printf("%02x", hash[i]);
	printf("\", \"summary\": %s}\n", sl_value_has_summary(v) ? "true" : "false");
	return 0;
}

/* slimetool info WORLD: print a value's header fields. */
static int
cmd_info(int argc, char **argv)
{
	tool_world	w;
	int			rc;

	if (argc != 2)
		return bad_usage("info takes one file%s", "");
	if (open_world("info", argv[1], 1, &w))
		return 1;
	rc = print_info(&w.v);
	tool_world_close(&w);
	return rc ? 1 : 0;
}

/* slimetool verify WORLD: check a whole value (a file read into one first). */
static int
cmd_verify(int argc, char **argv)
{
	tool_world	w;
	sl_err		err;
	int			rc = 0;

	if (argc != 2)
		return bad_usage("verify takes one file%s", "");
	if (open_world("verify", argv[1], 1, &w))
		return 1;
	if (sl_value_verify(w.bytes, w.len, &sl_default_limits, &err))
		rc = tool_fail_err(&err, argv[1]);
	else
		printf("%s: ok, %u chunks, %zu bytes\n", argv[1], w.v.hdr.chunk_count, w.file_len);
	tool_world_close(&w);
	return rc ? 1 : 0;
}

/* Options of import-region. */
typedef struct import_opts
{
	int			strict;
	int32_t		version;		/* format version to write, 0 current */
	int32_t		level;			/* compression level, 0 the default */
	const char *files[SL_NCOMP];	/* region, entities, poi */
	const char *out;
	const char *rx_arg;
	const char *rz_arg;
	int32_t		rx;
	int32_t		rz;
	int			quiet;			/* --quiet: no progress line */
} import_opts;

/* Parse the arguments of import-region; 0 ok, else an exit status. */
static int
parse_import(int argc, char **argv, import_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->strict = 1;
	for (int i = 1; i < argc; i++)
	{
		const char *a = argv[i];
		int			has_val = i + 1 < argc;

		if (tool_progress_quiet_arg(a))
			o->quiet = 1;
		else if (strcmp(a, "--strict") == 0 || strcmp(a, "--lenient") == 0)
			o->strict = a[2] == 's';
		else if (strcmp(a, "--entities") == 0 && has_val)
			o->files[SL_COMP_ENTITIES] = argv[++i];
		else if (strcmp(a, "--poi") == 0 && has_val)
			o->files[SL_COMP_POI] = argv[++i];
		else if (strcmp(a, "--rx") == 0 && has_val)
			o->rx_arg = argv[++i];
		else if (strcmp(a, "--rz") == 0 && has_val)
			o->rz_arg = argv[++i];
		else if (strcmp(a, "-o") == 0 && has_val)
			o->out = argv[++i];
		else if (strcmp(a, "--format-version") == 0 && has_val)
		{
			if (tool_parse_int(argv[++i], &o->version) || o->version < SL_VALUE_VERSION_MIN ||
				o->version > SL_VALUE_VERSION)
				return bad_usage("import-region: --format-version %s is not a version this build writes", argv[i]);
		}
		else if (strcmp(a, "--level") == 0 && has_val)
		{
			if (tool_parse_int(argv[++i], &o->level) || o->level < SL_MIN_LEVEL ||
				o->level > SL_MAX_LEVEL)
				return bad_usage("import-region: --level %s is not a level from 1 to 20", argv[i]);
		}
		else if (a[0] == '-' && a[1] != '\0')
			return bad_usage("import-region: bad option %s", a);
		else if (o->files[SL_COMP_REGION] == NULL)
			o->files[SL_COMP_REGION] = a;
		else
			return bad_usage("import-region: unexpected argument %s", a);
	}
	if ((o->files[0] == NULL && o->files[1] == NULL && o->files[2] == NULL) || o->out == NULL)
		return bad_usage("import-region needs a region file (or --entities/--poi) and -o OUT%s", "");
	return 0;
}

/* The part of a path after its last slash. */
static const char *
base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* Region coordinates from r.X.Z.mca / .mcr, 1 on a match. */
static int
coords_from_name(const char *base, int32_t *rx, int32_t *rz)
{
	return tool_parse_coords(base, "r", "mca", rx, rz) ||
		tool_parse_coords(base, "r", "mcr", rx, rz);
}

/*
 * Work out rx,rz from --rx/--rz or the first file's name r.X.Z.mca; without
 * --rx/--rz, files named for another region are refused.
 */
static int
resolve_coords(import_opts *o)
{
	const char *base = NULL;
	int32_t		nx = 0,
				nz = 0;
	int			named = 0;

	for (int k = 0; k < SL_NCOMP && base == NULL; k++)
		if (o->files[k])
			named = coords_from_name(base = base_name(o->files[k]), &nx, &nz);
	if (o->rx_arg && tool_parse_int(o->rx_arg, &nx))
		return tool_fail("--rx %s is not an integer", o->rx_arg);
	if (o->rz_arg && tool_parse_int(o->rz_arg, &nz))
		return tool_fail("--rz %s is not an integer", o->rz_arg);
	if (!named && (o->rx_arg == NULL || o->rz_arg == NULL))
		return tool_fail("%s is not named r.X.Z.mca: give --rx and --rz", base);
	o->rx = nx;
	o->rz = nz;
	for (int k = 0; k < SL_NCOMP && !(o->rx_arg && o->rz_arg); k++)
	{
		int32_t		ox,
					oz;

		if (o->files[k] && coords_from_name(base_name(o->files[k]), &ox, &oz) &&
			(ox != nx || oz != nz))
			return tool_fail("%s file %s does not belong to region (%d,%d)",
							 kind_names[k], o->files[k], nx, nz);
	}
	return 0;
}

/* Encode a builder and write it to path; report sizes on stderr. */
static int
encode_to_file(sl_builder *b, const char *path, const char *what, int version,
			   int level, const tool_stats *st)
{
	sl_encode_opts opts = sl_default_encode_opts;
	sl_buf		out = {NULL, 0, 0};
	sl_header	h;
	sl_err		err;
	int			rc;

	opts.version = version;
	if (level)
		opts.level = level;
	if (sl_builder_encode(b, &opts, &sl_default_limits, &out, &err) ||
		sl_value_summary(out.data, out.len, &h, &err))
	{
		sl_buf_free(&out);
		return tool_fail_err(&err, what);
	}
	rc = tool_write_file(path, out.data, out.len);
	if (rc == 0)
		fprintf(stderr, "%s: %d files, %u chunks, %d skipped, raw %llu bytes, encoded %zu bytes\n",
				what, st->files, h.chunk_count, st->skipped,
				(unsigned long long) h.raw_bytes, out.len);
	sl_buf_free(&out);
	return rc;
}

/* slimetool import-region: one region (+ entities, POI) into a value file. */
static int
cmd_import_region(int argc, char **argv)
{
	import_opts o;
	sl_builder	b;
	tool_stats	st;
	char		what[64];
	int			rc;

	if ((rc = parse_import(argc, argv, &o)) != 0)
		return rc;
	if (resolve_coords(&o))
		return 1;
	memset(&b, 0, sizeof(b));
	memset(&st, 0, sizeof(st));
	tool_progress_start("import-region", o.quiet);
	for (int k = 0; k < SL_NCOMP; k++)
		if (o.files[k])
		{
			struct stat sb;

			tool_progress_total(1, 0, stat(o.files[k], &sb) == 0 ? (uint64_t) sb.st_size : 0);
		}
	for (int k = 0; k < SL_NCOMP && rc == 0; k++)
		if (o.files[k])
			rc = tool_read_region_path(&b, k, o.files[k], o.rx, o.rz, o.strict, &st);
	snprintf(what, sizeof(what), "region (%d,%d)", o.rx, o.rz);
	tool_progress_end();
	if (rc == 0)
		rc = encode_to_file(&b, o.out, what, o.version, o.level, &st);
	sl_builder_free(&b);
	return rc ? 1 : 0;
}

/* Options of export-region. */
typedef struct export_opts
{
	const char *file;
	const char *out;
	int32_t		rx;
	int32_t		rz;
	int			kind;
} export_opts;

/* Component index of a kind name, or -1. */
static int
kind_index(const char *s)
{
	for (int k = 0; k < SL_NCOMP; k++)
		if (strcmp(s, kind_names[k]) == 0)
			return k;
	return -1;
}

/* Parse the arguments of export-region; 0 ok, else an exit status. */
static int
parse_export(int argc, char **argv, export_opts *o)
{
	const char *pos[3] = {NULL, NULL, NULL};
	int			npos = 0;

	memset(o, 0, sizeof(*o));
	for (int i = 1; i < argc; i++)
	{
		const char *a = argv[i];

		if (strcmp(a, "--kind") == 0 && i + 1 < argc)
		{
			if ((o->kind = kind_index(argv[++i])) < 0)
				return bad_usage("unknown kind %s (use region, entities or poi)", argv[i]);
		}
		else if (strcmp(a, "-o") == 0 && i + 1 < argc)
			o->out = argv[++i];
		else if (a[0] == '-' && a[1] == '-')
			return bad_usage("export-region: bad option %s", a);
		else if (npos < 3)
			pos[npos++] = a;
		else
			return bad_usage("export-region: unexpected argument %s", a);
	}
	if (npos != 3 || o->out == NULL)
		return bad_usage("export-region needs FILE RX RZ and -o OUT%s", "");
	if (tool_parse_int(pos[1], &o->rx) || tool_parse_int(pos[2], &o->rz))
		return bad_usage("export-region: bad region coordinates %s", pos[1]);
	o->file = pos[0];
	return 0;
}

/* Copy the value's chunks of one region and kind into chunks[]; count in *n. */
static int
gather_region(sl_value *v, const export_opts *o, sl_region_chunk *chunks, int *n)
{
	sl_err		err;

	*n = 0;
	for (uint32_t i = 0; i < v->hdr.chunk_count; i++)
	{
		sl_dirent	d;
		const uint8_t *comp[SL_NCOMP];
		sl_region_chunk *c = &chunks[*n];

		if (sl_value_dirent(v, i, &d, &err))
			return tool_fail_err(&err, o->file);
		if ((d.x >> 5) != o->rx || (d.z >> 5) != o->rz || d.len[o->kind] == 0)
			continue;
		if (*n == SL_REGION_SLOTS)
			return tool_fail("%s: more than 1024 chunks in one region", o->file);
		if (sl_value_chunk(v, i, &d, comp, &err))
			return tool_fail_err(&err, o->file);
		if ((c->nbt = sl_alloc(d.len[o->kind])) == NULL)
			return tool_fail("out of memory");
		memcpy(c->nbt, comp[o->kind], d.len[o->kind]);
		c->nbt_len = d.len[o->kind];
		c->x = d.x;
		c->z = d.z;
		c->timestamp = d.timestamp;
		(*n)++;
	}
	return 0;
}

/* Write the external chunk files next to out. */
static int
write_externals(const char *out, const sl_external *ext, int next)
{
	const char *base;
	char	   *dir = tool_split_path(out, &base);
	int			rc = 0;

	for (int i = 0; i < next && rc == 0; i++)
	{
		char		name[64];
		char	   *path;

		snprintf(name, sizeof(name), "c.%d.%d.mcc", ext[i].x, ext[i].z);
		path = tool_path(dir, name);
		rc = tool_write_file(path, ext[i].data, ext[i].len);
		if (rc == 0)
			fprintf(stderr, "chunk (%d,%d) is too big for the region file: wrote %s\n",
					ext[i].x, ext[i].z, path);
		free(path);
	}
	free(dir);
	return rc;
}

/* Write the region file (and .mcc files) of the gathered chunks. */
static int
write_region(const export_opts *o, const sl_region_chunk *chunks, int n)
{
	sl_buf		out = {NULL, 0, 0};
	sl_external *ext = NULL;
	int			next = 0;
	sl_err		err;
	int			rc;

	if (sl_region_write(chunks, n, o->rx, o->rz, 2, &out, &ext, &next, &err))
		return tool_fail_err(&err, o->out);
	rc = tool_write_file(o->out, out.data, out.len);
	if (rc == 0)
		rc = write_externals(o->out, ext, next);
	if (rc == 0)
		fprintf(stderr, "%s: %d %s chunks, %zu bytes\n", o->out, n, kind_names[o->kind], out.len);
	for (int i = 0; i < next; i++)
		sl_free((void *) ext[i].data);
	sl_free(ext);
	sl_buf_free(&out);
	return rc;
}

/* slimetool export-region: one region of a value as a region file. */
static int
cmd_export_region(int argc, char **argv)
{
	export_opts o;
	tool_world	w;
	sl_region_chunk *chunks;
	int			n = 0;
	int			rc;

	if ((rc = parse_export(argc, argv, &o)) != 0)
		return rc;
	if (open_world("export-region", o.file, 0, &w))
		return 1;
	chunks = calloc(SL_REGION_SLOTS, sizeof(sl_region_chunk));
	rc = chunks ? gather_region(&w.v, &o, chunks, &n) : tool_fail("out of memory");
	if (rc == 0 && n == 0)
		rc = tool_fail("%s has no %s chunks in region (%d,%d)", o.file,
					   kind_names[o.kind], o.rx, o.rz);
	if (rc == 0)
		rc = write_region(&o, chunks, n);
	for (int i = 0; chunks && i < SL_REGION_SLOTS; i++)
		sl_free(chunks[i].nbt);
	free(chunks);
	tool_world_close(&w);
	return rc ? 1 : 0;
}

/* Dispatch to a subcommand. */
int
main(int argc, char **argv)
{
	static const struct
	{
		const char *name;
		int			(*fn) (int, char **);
	}			cmds[] =
	{
		{"info", cmd_info},
		{"verify", cmd_verify},
		{"import-region", cmd_import_region},
		{"export-region", cmd_export_region},
		{"copy-world", cmd_copy_world},
		{"export-world", cmd_export_world},
		{"gen-world", cmd_gen_world},
		{"import-slime", cmd_import_slime},
		{"export-slime", cmd_export_slime},
		{"render", cmd_render},
		{"map-server", cmd_map_server},
	};

	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
	{
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (strcmp(argv[1], cmds[i].name) == 0)
		{
			int			rc = cmds[i].fn(argc - 1, argv + 1);

			sl_release_caches();
			return rc;
		}
	return bad_usage("unknown command %s", argv[1]);
}
