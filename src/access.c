/*
 * access.c - read slime values: metadata, the chunk list, chunk NBT, JSON.
 */
#include "slime.h"

#include "funcapi.h"
#include "miscadmin.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "sl_build.h"
#include "sl_nbt.h"
#include "sl_vsum.h"

/* Turn JSON text into a jsonb datum. */
static Datum
jsonb_from_text(const char *json)
{
	return DirectFunctionCall1(jsonb_in, CStringGetDatum(json));
}

/* Append a DataVersion or null. */
static void
append_dv(StringInfo s, int32 dv)
{
	if (dv == SL_NO_DV)
		appendStringInfoString(s, "null");
	else
		appendStringInfo(s, "%d", dv);
}

PG_FUNCTION_INFO_V1(slime_info);
/* Metadata of a value from its header and directory (no decompression). */
Datum
slime_info(PG_FUNCTION_ARGS)
{
	slime_open_value o;
	const sl_header *h;
	StringInfoData s;
	uint32_t	counts[SL_NCOMP] = {0, 0, 0};
	sl_err		err;

	uint8_t		content_hash[32];

	slime_open(&o, PG_GETARG_DATUM(0), false);
	h = &o.v.hdr;
	if (sl_value_content_hash(&o.v, content_hash, &err))
		slime_raise(&err, false);
	for (uint32_t i = 0; i < h->chunk_count; i++)
	{
		sl_dirent	d;

		if (sl_value_dirent(&o.v, i, &d, &err))
			slime_raise(&err, false);
		for (int k = 0; k < SL_NCOMP; k++)
			counts[k] += d.len[k] != 0;
	}
	initStringInfo(&s);
	appendStringInfo(&s, "{\"format_version\": %u, \"chunks\": %u", h->version, h->chunk_count);
	appendStringInfo(&s, ", \"region_chunks\": %u, \"entity_chunks\": %u, \"poi_chunks\": %u",
					 counts[0], counts[1], counts[2]);
	appendStringInfoString(&s, ", \"data_version\": {\"min\": ");
	append_dv(&s, h->dv_min);
	appendStringInfoString(&s, ", \"max\": ");
	append_dv(&s, h->dv_max);
	appendStringInfoString(&s, "}, \"bounds\": ");
	if (h->chunk_count)
		appendStringInfo(&s, "{\"min_x\": %d, \"min_z\": %d, \"max_x\": %d, \"max_z\": %d}",
						 h->min_x, h->min_z, h->max_x, h->max_z);
	else
		appendStringInfoString(&s, "null");
	appendStringInfo(&s, ", \"raw_bytes\": " UINT64_FORMAT ", \"stored_bytes\": %u",
					 (uint64) h->raw_bytes, h->total_len);
	appendStringInfo(&s, ", \"frames\": %u, \"store_refs\": %u, \"has_level\": %s, \"hash\": \"%s\"",
					 h->frame_count, sl_value_ref_count(&o.v), h->world_len ? "true" : "false",
					 slime_hex(content_hash, 32));
	appendStringInfo(&s, ", \"summary\": %s}", sl_value_has_summary(&o.v) ? "true" : "false");
	sl_value_close(&o.v);
	PG_RETURN_DATUM(jsonb_from_text(s.data));
}

PG_FUNCTION_INFO_V1(slime_chunks);
/*
 * One row per chunk: position, DataVersion, sizes and content hash. A v2
 * value is read from its directory only; a v1 value is decompressed for the
 * hashes. A chunk held in the store has no stored bytes of its own (NULL).
 */
Datum
slime_chunks(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	slime_open_value o;
	sl_err		err;

	InitMaterializedSRF(fcinfo, 0);
	slime_open(&o, PG_GETARG_DATUM(0), false);
	for (uint32_t i = 0; i < o.v.hdr.chunk_count; i++)
	{
		sl_dirent	d;
		sl_frame	f;
		uint8_t		hash[32];
		uint64		raw;
		Datum		values[6];
		bool		nulls[6] = {false, false, false, false, false, false};

		CHECK_FOR_INTERRUPTS();
		if (sl_value_dirent(&o.v, i, &d, &err) || sl_value_chunk_hash(&o.v, i, hash, &err) ||
			(!d.ref && sl_value_frame(&o.v, d.frame, &f, &err)))
			slime_raise(&err, false);
		raw = (uint64) d.len[0] + d.len[1] + d.len[2];
		values[0] = Int32GetDatum(d.x);
		values[1] = Int32GetDatum(d.z);
		values[2] = Int32GetDatum(d.data_version);
		nulls[2] = d.data_version == SL_NO_DV;
		values[3] = Int32GetDatum((int32) raw);
		/* a chunk's share of its frame's compressed bytes */
		if (d.ref)
			nulls[4] = true;
		else
			values[4] = Int32GetDatum((int32) ((raw * f.comp_len + f.raw_len / 2) / (f.raw_len ? f.raw_len : 1)));
		values[5] = PointerGetDatum(slime_from_bytes(hash, 32));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	sl_value_close(&o.v);
	PG_RETURN_NULL();
}

PG_FUNCTION_INFO_V1(slime_chunk_nbt);
/* The uncompressed NBT of one chunk (one frame decompressed), or NULL. */
Datum
slime_chunk_nbt(PG_FUNCTION_ARGS)
{
	slime_open_value o;
	int			kind = slime_kind(PG_GETARG_TEXT_PP(3));
	sl_dirent	d;
	const uint8_t *nbt;
	bytea	   *r;

	slime_open(&o, PG_GETARG_DATUM(0), false);
	if (!slime_find_chunk(&o, PG_GETARG_INT32(1), PG_GETARG_INT32(2), kind, &d, &nbt))
		PG_RETURN_NULL();
	r = (bytea *) slime_from_bytes(nbt, d.len[kind]);
	sl_value_close(&o.v);
	PG_RETURN_BYTEA_P(r);
}

PG_FUNCTION_INFO_V1(slime_nbt_to_json);
/* NBT (plain, gzip or zlib) as jsonb, by the lossless mapping. */
Datum
slime_nbt_to_json(PG_FUNCTION_ARGS)
{
	bytea	   *in = PG_GETARG_BYTEA_PP(0);
	uint8_t    *nbt;
	size_t		len;
	sl_buf		out = {0};
	sl_err		err;

	if (sl_unpack_nbt((const uint8_t *) VARDATA_ANY(in), VARSIZE_ANY_EXHDR(in),
					  1, slime_limits(), &nbt, &len, &err) ||
		sl_nbt_to_json(nbt, len, slime_limits(), &out, &err) ||
		sl_buf_put_u8(&out, 0, &err))
		slime_raise(&err, true);
	PG_RETURN_DATUM(jsonb_from_text((const char *) out.data));
}
