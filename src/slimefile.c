/*
 * slimefile.c - slime files (Slime Region Format, Hypixel/SWM/ASP) in and
 * out: slime_from_slimefile() and slime_to_slimefile(). The work is done by
 * the core (sl_slimefile); this is the glue.
 */
#include "slime.h"

#include "utils/builtins.h"
#include "utils/memutils.h"

#include "sl_build.h"
#include "sl_slimefile.h"

PG_FUNCTION_INFO_V1(slime_from_slimefile);
/* A slime value from a slime file of any version (1..13). */
Datum
slime_from_slimefile(PG_FUNCTION_ARGS)
{
	bytea	   *file = PG_GETARG_BYTEA_PP(0);
	sl_builder	b;
	sl_slimefile_info info;
	sl_encode_opts opts = *slime_encode_opts();
	sl_buf		out = {0};
	sl_err		err;
	struct varlena *r;

	memset(&b, 0, sizeof(b));
	if (sl_slimefile_read((const uint8_t *) VARDATA_ANY(file), VARSIZE_ANY_EXHDR(file),
						  slime_limits(), &b, &info, &err))
		slime_raise(&err, true);
	/* leave room for the varlena header in front of the value bytes */
	if (sl_buf_put_u32be(&out, 0, &err) ||
		sl_builder_encode(&b, &opts, slime_limits(), &out, &err))
		slime_raise(&err, true);
	sl_builder_free(&b);
	r = (struct varlena *) out.data;
	SET_VARSIZE(r, out.len);
	PG_RETURN_POINTER(r);
}

PG_FUNCTION_INFO_V1(slime_to_slimefile);
/* A slime file (version 13, as AdvancedSlimePaper reads it) of a value. */
Datum
slime_to_slimefile(PG_FUNCTION_ARGS)
{
	int32		version = PG_GETARG_INT32(1);
	slime_open_value o;
	sl_buf		out = {0};
	sl_err		err;
	bytea	   *r;

	if (version != SL_SLIMEFILE_WRITE_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("slime file version %d cannot be written", version),
				 errdetail("Only version %d (AdvancedSlimePaper's current format) is written; every version 1..%d is read.",
						   SL_SLIMEFILE_WRITE_VERSION, SL_SLIMEFILE_VERSION_MAX)));
	slime_open(&o, PG_GETARG_DATUM(0), true);
	if (sl_buf_put_u32be(&out, 0, &err) ||
		sl_slimefile_write(&o.v, SL_DEFAULT_LEVEL, slime_limits(), &out, NULL, &err))
		slime_raise(&err, false);
	sl_value_close(&o.v);
	if (out.len > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("the slime file would be %zu bytes, more than a bytea holds", out.len - VARHDRSZ)));
	r = (bytea *) out.data;
	SET_VARSIZE(r, out.len);
	PG_RETURN_BYTEA_P(r);
}
