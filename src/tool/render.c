/*
 * render.c - slimetool render: the PNG slime_render_map gives, from a value
 * file or a region file, through the same core code (sl_render, sl_png).
 *
 *   slimetool render IN [--y-max N] [--scale N] [--max-pixels N]
 *                    [--rx N --rz N] [--quiet] -o OUT.png
 *
 * IN is a value file (.slimev, the raw bytes of a slime value, as
 * import-region writes them), a slime file (.slime, AdvancedSlimePaper) or
 * a region file r.X.Z.mca / .mcr (its coordinates from the name, or
 * --rx/--rz), read strictly: tool_world_open tells them apart by their bytes.
 */
#include "tool.h"
#include "progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sl_png.h"
#include "sl_render.h"

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
	fputs("usage: slimetool render IN.slimev|IN.slime|r.X.Z.mca [--y-max N] [--scale N] [--max-pixels N]\n"
		  "                        [--rx N --rz N] [--quiet] -o OUT.png\n", stderr);
	return 2;
}

/* Parse the arguments; 0 ok, else an exit status. */
static int
parse_render(int argc, char **argv, render_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->map.scale = 1;
	o->map.max_pixels = SL_MAP_DEFAULT_MAX_PIXELS;	/* as slime.max_render_pixels */
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
		tool_fail_err(&err, o->in);
		if (err.code == SL_ERR_LIMIT)
			fprintf(stderr, "slimetool: hint: --max-pixels N raises the cap of %llu pixels (by default slime.max_render_pixels' default)\n",
					(unsigned long long) o->map.max_pixels);
		return -1;
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

/* slimetool render: a world file as a top-down map PNG. */
int
cmd_render(int argc, char **argv)
{
	render_opts o;
	tool_world_opts wo = {"render", 1, 1, NULL, NULL};
	tool_world	w;
	int			rc;

	if ((rc = parse_render(argc, argv, &o)) != 0)
		return rc;
	wo.rx_arg = o.rx_arg;
	wo.rz_arg = o.rz_arg;
	tool_progress_start("render", o.quiet);
	rc = tool_world_open(o.in, &wo, &w);
	if (rc == 0)
	{
		/* a region file's read counted its chunks: count them again as rendered */
		tool_progress_clear();
		tool_world_note(o.in, &w);
		tool_progress_start("render", o.quiet);
		rc = render_value(&o, &w.v);
		tool_world_close(&w);
	}
	tool_progress_end();
	return rc ? 1 : 0;
}
