/*
 * schem.c - box snapshots in SQL: slime_extract (a box of a world as a
 * Sponge schematic) and slime_paste (a schematic written into a world).
 * The work is sl_schem's; this is the glue (see src/core/sl_schem.h).
 */
#include "slime.h"

#include "miscadmin.h"

#include "sl_build.h"
#include "sl_schem.h"

PG_FUNCTION_INFO_V1(slime_extract);
/* The blocks and block entities of a box, as a gzip Sponge schematic (v3 or v2). */
Datum
slime_extract(PG_FUNCTION_ARGS)
{
	int32		c[6];
	int32		version = PG_GETARG_INT32(7);
	slime_open_value o;
	sl_buf		out = {0};
	sl_err		err;
	bytea	   *r;

	for (int k = 0; k < 6; k++)
		c[k] = PG_GETARG_INT32(k + 1);
	if (version != 2 && version != 3)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("schematic version must be 2 or 3, not %d", version)));
	/* slices: a small box reads the frames of its chunks only */
	slime_open(&o, PG_GETARG_DATUM(0), false);
	if (sl_buf_put_u32be(&out, 0, &err) ||
		sl_schem_extract(&o.v, c[0], c[1], c[2], c[3], c[4], c[5], version, slime_limits(),
						 &out, &err))
		slime_raise(&err, false);
	sl_value_close(&o.v);
	r = (bytea *) out.data;
	SET_VARSIZE(r, out.len);
	PG_RETURN_BYTEA_P(r);
}

PG_FUNCTION_INFO_V1(slime_paste);
/* The world with a schematic's blocks and block entities written at (x, y, z). */
Datum
slime_paste(PG_FUNCTION_ARGS)
{
	bytea	   *file = PG_GETARG_BYTEA_PP(1);
	int32		x = PG_GETARG_INT32(2);
	int32		y = PG_GETARG_INT32(3);
	int32		z = PG_GETARG_INT32(4);
	slime_open_value o;
	sl_schem	s;
	sl_builder	b;
	sl_err		err;
	struct varlena *r;

	if (sl_schem_read((const uint8_t *) VARDATA_ANY(file), VARSIZE_ANY_EXHDR(file),
					  slime_limits(), &s, &err))
	{
		sl_err_prefix(&err, "schematic");
		slime_raise(&err, true);
	}
	memset(&b, 0, sizeof(b));
	slime_open(&o, PG_GETARG_DATUM(0), true);
	if (sl_schem_paste(&o.v, &s, x, y, z, slime_limits(), &b, &err))
		slime_raise(&err, false);
	sl_value_close(&o.v);
	sl_schem_free(&s);
	r = slime_from_builder(&b);
	sl_builder_free(&b);
	PG_RETURN_POINTER(r);
}
