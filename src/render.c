/*
 * render.c - top-down maps in SQL: slime_render_map (a PNG) and
 * slime_render_map_colors (the map colour of each block column, as
 * Minecraft's map items store them), and slime_render_tile (a 256 x 256
 * tile of the same map for slippy maps). The core draws (sl_render,
 * sl_tile, sl_png); this is memory, the size cap and errors.
 */
#include "slime.h"

#include "utils/builtins.h"

#include "sl_png.h"
#include "sl_render.h"
#include "sl_tile.h"

/* Options from the SQL arguments (y_max at 1, scale at 2 when given). */
static void
render_opts(FunctionCallInfo fcinfo, int scale_arg, sl_map_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->scale = 1;
	o->max_pixels = slime_max_render_pixels();
	if (!PG_ARGISNULL(1))
	{
		o->has_y_max = 1;
		o->y_max = PG_GETARG_INT32(1);
	}
	if (scale_arg > 0 && !PG_ARGISNULL(scale_arg))
	{
		int32		scale = PG_GETARG_INT32(scale_arg);

		if (scale < 1)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("scale %d is not a whole number from 1 up", scale)));
		o->scale = (uint32) scale;
	}
}

/*
 * Render the map of a world into m; false for a value with no chunks. The
 * size is checked against slime.max_render_pixels before any allocation.
 */
static bool
render(Datum world, const sl_map_opts *o, slime_open_value *ov, sl_map *m)
{
	sl_err		err;

	slime_open(ov, world, true);
	if (ov->v.hdr.chunk_count == 0)
		return false;
	if (sl_map_size(&ov->v.hdr, o, &m->width, &m->height, &err))
	{
		if (err.code != SL_ERR_LIMIT)
			slime_raise(&err, false);
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("world too large to render: %s", err.msg),
				 errhint("Raise slime.max_render_pixels (now %llu) or use a smaller scale.",
						 (unsigned long long) o->max_pixels)));
	}
	if (sl_map_render(&ov->v, o, slime_limits(), m, &err))
		slime_raise(&err, false);
	return true;
}

/* A shaded map as a PNG bytea, each column scale x scale pixels; frees the map. */
static bytea *
png_bytea(sl_map *m, uint32 scale)
{
	sl_buf		out = {0};
	sl_err		err;
	bytea	   *r;

	/* leave room for the varlena header in front of the PNG */
	if (sl_buf_put_u32be(&out, 0, &err) || sl_png_map(m, scale, &out, &err))
		slime_raise(&err, false);
	sl_map_free(m);
	r = (bytea *) out.data;
	SET_VARSIZE(r, out.len);
	return r;
}

PG_FUNCTION_INFO_V1(slime_render_map);
/* The top-down map of a world as a PNG; NULL for a world without chunks. */
Datum
slime_render_map(PG_FUNCTION_ARGS)
{
	sl_map_opts o;
	slime_open_value ov;
	sl_map		m;
	bytea	   *r;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	render_opts(fcinfo, 2, &o);
	if (!render(PG_GETARG_DATUM(0), &o, &ov, &m))
		PG_RETURN_NULL();
	r = png_bytea(&m, o.scale);
	sl_value_close(&ov.v);
	PG_RETURN_BYTEA_P(r);
}

PG_FUNCTION_INFO_V1(slime_render_map_colors);
/*
 * The map colour (base * 4 + shade, 0 transparent) of every block column of
 * the same map, row by row from the north-west corner: the bytes of a
 * Minecraft map item's colors array.
 */
Datum
slime_render_map_colors(PG_FUNCTION_ARGS)
{
	sl_map_opts o;
	slime_open_value ov;
	sl_map		m;
	bytea	   *r;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	render_opts(fcinfo, 0, &o);
	if (!render(PG_GETARG_DATUM(0), &o, &ov, &m))
		PG_RETURN_NULL();
	r = (bytea *) slime_from_bytes(m.colors, (size_t) m.width * m.height);
	sl_map_free(&m);
	sl_value_close(&ov.v);
	PG_RETURN_BYTEA_P(r);
}

PG_FUNCTION_INFO_V1(slime_render_tile);
/*
 * Tile (x, y) at zoom z of a world's map as a 256 x 256 PNG (sl_tile.h);
 * transparent where the world has no chunks. Reads the value in slices:
 * the header, the directory and the frames of the chunks under the tile.
 */
Datum
slime_render_tile(PG_FUNCTION_ARGS)
{
	sl_map_opts o;
	slime_open_value ov;
	sl_tile		t;
	sl_map		m;
	sl_err		err;
	bytea	   *r;

	if (sl_tile_at(PG_GETARG_INT32(1), PG_GETARG_INT32(2), PG_GETARG_INT32(3), &t, &err))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("no such tile: %s", err.msg)));
	memset(&o, 0, sizeof(o));
	o.scale = 1;
	slime_open(&ov, PG_GETARG_DATUM(0), false);
	if (sl_tile_render(&ov.v, &t, &o, slime_limits(), &m, &err))
		slime_raise(&err, false);
	r = png_bytea(&m, t.scale);
	sl_value_close(&ov.v);
	PG_RETURN_BYTEA_P(r);
}
