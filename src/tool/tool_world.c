/*
 * tool_world.c - the world file a slimetool command was given, recognised by
 * its bytes (sl_sniff): a slime value (.slimev, the type's binary form), an
 * AdvancedSlimePaper / SWM slime file (.slime, read into a value in memory)
 * or, for the commands that take one, a region file r.X.Z.mca / .mcr (read
 * strictly into a value in memory). Anything else is refused, saying what
 * it looks like and which command reads it.
 */
#include "tool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sl_slimefile.h"

/* The region coordinates of a region file: --rx/--rz, else its name. */
static int
region_coords(const char *path, const char *base, const tool_world_opts *o,
			  int32_t *rx, int32_t *rz)
{
	if (o->rx_arg || o->rz_arg)
	{
		if (!o->rx_arg || !o->rz_arg || tool_parse_int(o->rx_arg, rx) || tool_parse_int(o->rz_arg, rz))
			return tool_fail("%s: --rx and --rz take an integer each, and go together", o->cmd);
		return 0;
	}
	if (tool_parse_coords(base, "r", "mca", rx, rz) || tool_parse_coords(base, "r", "mcr", rx, rz))
		return 0;
	tool_fail("%s: %s is neither a slime value nor a slime file, and not named r.X.Z.mca/.mcr as a region file is",
			  o->cmd, path);
	if (o->takes_coords)
		fprintf(stderr, "slimetool: hint: a region file under another name: give --rx and --rz\n");
	return -1;
}

/* A region file as value bytes in w->built (strict read, the fastest zstd level). */
static int
region_value(const char *path, const tool_world_opts *o, tool_world *w)
{
	const char *slash = strrchr(path, '/');
	sl_builder	b;
	tool_stats	st;
	sl_encode_opts enc = sl_default_encode_opts;
	sl_err		err;
	int			rc;

	memset(&b, 0, sizeof(b));
	memset(&st, 0, sizeof(st));
	enc.level = 1;
	rc = region_coords(path, slash ? slash + 1 : path, o, &w->rx, &w->rz);
	if (rc == 0)
		rc = tool_read_region_path(&b, SL_COMP_REGION, path, w->rx, w->rz, 1, &st);
	if (rc == 0 && sl_builder_encode(&b, &enc, &sl_default_limits, &w->built, &err))
		rc = tool_fail_err(&err, path);
	sl_builder_free(&b);
	return rc;
}

/* A slime file as value bytes in w->built. */
static int
slimefile_value(const char *path, tool_world *w)
{
	sl_builder	b;
	sl_err		err;
	int			rc = 0;

	memset(&b, 0, sizeof(b));
	if (sl_slimefile_read(w->file, w->file_len, &sl_default_limits, &b, &w->info, &err) ||
		sl_builder_encode(&b, NULL, &sl_default_limits, &w->built, &err))
		rc = tool_fail_err(&err, path);
	sl_builder_free(&b);
	return rc;
}

/* Refuse a file of a kind no world command reads, saying what it is. */
static int
refuse_kind(const char *path, const tool_world_opts *o, sl_sniff_kind kind)
{
	tool_fail("%s: %s is %s, not a world", o->cmd, path, sl_sniff_name(kind));
	tool_reader_hint(kind);
	return -1;
}

/* Open the world file path as a value in memory. */
int
tool_world_open(const char *path, const tool_world_opts *o, tool_world *w)
{
	sl_err		err;

	memset(w, 0, sizeof(*w));
	if (tool_read_file(path, &w->file, &w->file_len))
		return -1;
	w->kind = sl_sniff(w->file, w->file_len);
	if (w->kind == SL_SNIFF_SLIMEFILE)
	{
		if (slimefile_value(path, w))
			goto fail;
	}
	else if (w->kind == SL_SNIFF_UNKNOWN && !o->regions)
	{
		tool_fail("%s: %s is neither a slime value nor a slime file", o->cmd, path);
		fprintf(stderr, "slimetool: hint: region files are read by slimetool import-region, "
				"info, verify, export-slime and render\n");
		goto fail;
	}
	else if (w->kind == SL_SNIFF_UNKNOWN)
	{
		w->region = 1;
		if (region_value(path, o, w))
			goto fail;
	}
	else if (w->kind != SL_SNIFF_VALUE)
	{
		refuse_kind(path, o, w->kind);
		goto fail;
	}
	w->bytes = w->built.data ? w->built.data : w->file;
	w->len = w->built.data ? w->built.len : w->file_len;
	if (sl_value_open_mem(&w->v, w->bytes, w->len, &sl_default_limits, &err))
	{
		tool_fail_err(&err, path);
		goto fail;
	}
	w->open = 1;
	return 0;
fail:
	tool_world_close(w);
	return -1;
}

/* Say on stderr what a world file was when it was not a value. */
void
tool_world_note(const char *path, const tool_world *w)
{
	if (w->region)
		fprintf(stderr, "%s: region file (%d,%d), read strictly into a value in memory\n",
				path, w->rx, w->rz);
	else if (w->kind == SL_SNIFF_SLIMEFILE)
		fprintf(stderr, "%s: slime file version %d, read into a value in memory\n",
				path, w->info.version);
}

/* Close a world opened by tool_world_open (also a half-opened one). */
void
tool_world_close(tool_world *w)
{
	if (w->open)
		sl_value_close(&w->v);
	sl_buf_free(&w->built);
	sl_free(w->file);
	memset(w, 0, sizeof(*w));
}
