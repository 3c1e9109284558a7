/*
 * render.c - slimetool render: the PNG slime_render_map gives, from a value
 * file or a region file, through the same core code (sl_render, sl_png).
 *
 *   slimetool render IN [--y-max N] [--scale N] [--max-pixels N]
 *                    [--rx N --rz N] [--quiet] -o OUT.png
 *
 * IN is a value file (the raw bytes of a slime value, as import-region
 * writes them) or a region file r.X.Z.mca / .mcr (its coordinates from the
 * name, or --rx/--rz), read strictly.
 */
#include "tool.h"
#include "progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sl_png.h"
#include "sl_render.h"

#define RENDER_DEFAULT_MAX_PIXELS	((uint64_t) 16384 * 16384)

/* Options of render. */
typedef struct render_opts
{
	const char *in;
	const char *out;
	const char *rx_arg;
	const char *rz_arg;
	sl_map_opts map;
	int			quiet;
} render_opts;

/* Print the usage of render; returns the exit status for a usage error. */
static int
render_usage(const char *why, const char *arg)
{
	if (why)
	{
		fputs("slimetool: render: ", stderr);
		fprintf(stderr, why, arg);
		fputc('\n', stderr);
	}
	fputs("usage: slimetool render IN.slime|r.X.Z.mca [--y-max N] [--scale N] [--max-pixels N]\n"
		  "                        [--rx N --rz N] [--quiet] -o OUT.png\n", stderr);
	return 2;
}

/* Parse the arguments; 0 ok, else an exit status. */
static int
parse_render(int argc, char **argv, render_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->map.scale = 1;
	o->map.max_pixels = RENDER_DEFAULT_MAX_PIXELS;
	for (int i = 1; i < argc; i++)
	{
		const char *a = argv[i];
		int			has_val = i + 1 < argc;
		int32_t		v;

		if (tool_progress_quiet_arg(a))
			o->quiet = 1;
		else if (strcmp(a, "-o") == 0 && has_val)
			o->out = argv[++i];
		else if (strcmp(a, "--y-max") == 0 && has_val)
		{
			if (tool_parse_int(argv[++i], &o->map.y_max))
				return render_usage("--y-max %s is not an integer", argv[i]);
			o->map.has_y_max = 1;
		}
		else if (strcmp(a, "--scale") == 0 && has_val)
		{
			if (tool_parse_int(argv[++i], &v) || v < 1)
				return render_usage("--scale %s is not a whole number from 1 up", argv[i]);
			o->map.scale = (uint32_t) v;
		}
		else if (strcmp(a, "--max-pixels") == 0 && has_val)
		{
			char	   *end;

			o->map.max_pixels = strtoull(argv[++i], &end, 10);
			if (*end || argv[i][0] == '-' || o->map.max_pixels == 0)
				return render_usage("--max-pixels %s is not a positive number", argv[i]);
		}
		else if (strcmp(a, "--rx") == 0 && has_val)
			o->rx_arg = argv[++i];
		else if (strcmp(a, "--rz") == 0 && has_val)
			o->rz_arg = argv[++i];
		else if (a[0] != '-' && o->in == NULL)
			o->in = a;
		else
			return render_usage("unexpected argument %s", a);
	}
	if (o->in == NULL || o->out == NULL)
		return render_usage("needs IN and -o OUT.png%s", "");
	return 0;
}

/* The region coordinates of a region file: --rx/--rz, else its name. */
static int
region_coords(const render_opts *o, const char *base, int32_t *rx, int32_t *rz)
{
	if (o->rx_arg || o->rz_arg)
	{
		if (!o->rx_arg || !o->rz_arg || tool_parse_int(o->rx_arg, rx) || tool_parse_int(o->rz_arg, rz))
			return tool_fail("render: --rx and --rz take an integer each, and go together");
		return 0;
	}
	if (tool_parse_coords(base, "r", "mca", rx, rz) || tool_parse_coords(base, "r", "mcr", rx, rz))
		return 0;
	return tool_fail("render: %s is neither a slime value nor named r.X.Z.mca/.mcr (give --rx and --rz)",
					 o->in);
}

/* A region file as value bytes in value (strict read, the fastest zstd level). */
static int
region_value(const render_opts *o, sl_buf *value)
{
	const char *slash = strrchr(o->in, '/');
	const char *base = slash ? slash + 1 : o->in;
	char	   *dir = slash ? strndup(o->in, (size_t) (slash - o->in) + (slash == o->in)) : strdup(".");
	char	  **names = NULL;
	int			n = 0;
	int32_t		rx,
				rz;
	sl_builder	b;
	tool_stats	st;
	sl_encode_opts enc = sl_default_encode_opts;
	sl_err		err;
	int			rc;

	memset(&b, 0, sizeof(b));
	memset(&st, 0, sizeof(st));
	enc.level = 1;
	if (dir == NULL)
		return tool_fail("out of memory");
	rc = region_coords(o, base, &rx, &rz);
	if (rc == 0)
		rc = tool_list_dir(dir, &names, &n);
	if (rc == 0)
		rc = tool_read_region(&b, SL_COMP_REGION, dir, base, rx, rz, names, n, 1, &st);
	if (rc == 0 && sl_builder_encode(&b, &enc, &sl_default_limits, value, &err))
		rc = tool_fail_err(&err, o->in);
	tool_free_names(names, n);
	sl_builder_free(&b);
	free(dir);
	return rc;
}

/* Progress callback of the renderer. */
static void
render_progress(void *ctx, uint32_t done, uint32_t total)
{
	uint32_t   *last = ctx;

	if (done == 1)
		tool_progress_total(0, total, 0);
	tool_progress_add(0, done - *last, 0);
	*last = done;
}

/* Render an open value to a PNG file. */
static int
render_value(render_opts *o, sl_value *v)
{
	sl_map		m;
	sl_buf		png = {NULL, 0, 0};
	sl_err		err;
	uint32_t	last = 0;
	int			rc;

	if (v->hdr.chunk_count == 0)
		return tool_fail("%s: the value has no chunks to draw", o->in);
	o->map.progress = render_progress;
	o->map.progress_ctx = &last;
	if (sl_map_render(v, &o->map, &sl_default_limits, &m, &err) ||
		sl_png_map(&m, o->map.scale, &png, &err))
	{
		sl_map_free(&m);
		return tool_fail_err(&err, o->in);
	}
	rc = tool_write_file(o->out, png.data, png.len);
	tool_progress_end();
	if (rc == 0)
		fprintf(stderr, "%s: %u chunks, %u x %u pixels (blocks x %d..%d, z %d..%d), %zu bytes\n",
				o->out, v->hdr.chunk_count, m.width * o->map.scale, m.height * o->map.scale,
				m.x0, m.x0 + (int32_t) m.width - 1, m.z0, m.z0 + (int32_t) m.height - 1, png.len);
	sl_map_free(&m);
	sl_buf_free(&png);
	return rc;
}

/* slimetool render: a value or region file as a top-down map PNG. */
int
cmd_render(int argc, char **argv)
{
	render_opts o;
	uint8_t    *data = NULL;
	size_t		len = 0;
	sl_buf		value = {NULL, 0, 0};
	sl_value	v;
	sl_err		err;
	int			rc;

	if ((rc = parse_render(argc, argv, &o)) != 0)
		return rc;
	tool_progress_start("render", o.quiet);
	rc = tool_read_file(o.in, &data, &len);
	if (rc == 0 && !(len >= 4 && memcmp(data, SL_VALUE_MAGIC, 4) == 0))
	{
		tool_progress_total(1, 0, len);
		rc = region_value(&o, &value);
		/* the read counted the file's chunks: count them again as rendered */
		tool_progress_clear();
		tool_progress_start("render", o.quiet);
	}
	if (rc == 0)
	{
		const uint8_t *bytes = value.data ? value.data : data;
		size_t		n = value.data ? value.len : len;

		if (sl_value_open_mem(&v, bytes, n, &sl_default_limits, &err))
			rc = tool_fail_err(&err, o.in);
		else
		{
			rc = render_value(&o, &v);
			sl_value_close(&v);
		}
	}
	tool_progress_end();
	sl_buf_free(&value);
	sl_free(data);
	return rc ? 1 : 0;
}
