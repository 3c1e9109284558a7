/*
 * export.c - slime values out: region files Minecraft reads.
 */
#include "slime.h"

#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"

#include "sl_region.h"

/* Floor division of a chunk coordinate by 32. */
static inline int32
region_of(int32 c)
{
	return c >> 5;
}

/*
 * Write the region file rx,rz of one kind; returns false when the value has
 * no such chunk. Chunks too big for 255 sectors land in *ext.
 */
static bool
write_region(Datum d, int32 rx, int32 rz, int kind, sl_buf *out,
			 sl_external **ext, int *next)
{
	slime_open_value o;
	sl_region_chunk *chunks = palloc0(sizeof(sl_region_chunk) * SL_REGION_SLOTS);
	int			n = 0;
	sl_err		err;

	slime_open(&o, d, true);
	for (uint32_t i = 0; i < o.v.hdr.chunk_count; i++)
	{
		sl_dirent	de;
		const uint8_t *comp[SL_NCOMP];

		if (sl_value_dirent(&o.v, i, &de, &err))
			slime_raise(&err, false);
		if (region_of(de.x) != rx || region_of(de.z) != rz || de.len[kind] == 0)
			continue;
		if (n == SL_REGION_SLOTS)
			ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED), errmsg("too many chunks in one region")));
		if (sl_value_chunk(&o.v, i, &de, comp, &err))
			slime_raise(&err, false);
		chunks[n].x = de.x;
		chunks[n].z = de.z;
		chunks[n].timestamp = de.timestamp;
		chunks[n].nbt = palloc(de.len[kind]);
		memcpy(chunks[n].nbt, comp[kind], de.len[kind]);
		chunks[n].nbt_len = de.len[kind];
		n++;
		CHECK_FOR_INTERRUPTS();
	}
	sl_value_close(&o.v);
	if (n == 0)
		return false;
	if (sl_region_write(chunks, n, rx, rz, 2, out, ext, next, &err))
		slime_raise(&err, false);
	return true;
}

PG_FUNCTION_INFO_V1(slime_export_region);
/* A region file (zlib chunks) holding the value's chunks of region rx,rz. */
Datum
slime_export_region(PG_FUNCTION_ARGS)
{
	sl_buf		out = {0};
	sl_external *ext = NULL;
	int			next = 0;
	sl_err		err;
	bytea	   *r;

	if (sl_buf_put_u32be(&out, 0, &err))
		slime_raise(&err, false);
	if (!write_region(PG_GETARG_DATUM(0), PG_GETARG_INT32(1), PG_GETARG_INT32(2),
					  slime_kind(PG_GETARG_TEXT_PP(3)), &out, &ext, &next))
		PG_RETURN_NULL();
	if (next > 0)
		ereport(NOTICE,
				(errmsg_plural("%d chunk of region %d,%d is stored in an external .mcc file",
							   "%d chunks of region %d,%d are stored in external .mcc files",
							   next, next, PG_GETARG_INT32(1), PG_GETARG_INT32(2)),
				 errhint("Fetch them with slime_export_external().")));
	r = (bytea *) out.data;
	SET_VARSIZE(r, out.len);
	PG_RETURN_BYTEA_P(r);
}

PG_FUNCTION_INFO_V1(slime_export_external);
/* The external chunk files (c.x.z.mcc) that go with an exported region. */
Datum
slime_export_external(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	sl_buf		out = {0};
	sl_external *ext = NULL;
	int			next = 0;

	InitMaterializedSRF(fcinfo, 0);
	if (!write_region(PG_GETARG_DATUM(0), PG_GETARG_INT32(1), PG_GETARG_INT32(2),
					  slime_kind(PG_GETARG_TEXT_PP(3)), &out, &ext, &next))
		PG_RETURN_NULL();
	for (int i = 0; i < next; i++)
	{
		Datum		values[3];
		bool		nulls[3] = {false, false, false};

		values[0] = Int32GetDatum(ext[i].x);
		values[1] = Int32GetDatum(ext[i].z);
		values[2] = PointerGetDatum(slime_from_bytes(ext[i].data, ext[i].len));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	PG_RETURN_NULL();
}

PG_FUNCTION_INFO_V1(slime_regions);
/* The regions a value's chunks fall in, with their chunk counts per kind. */
Datum
slime_regions(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	slime_open_value o;
	sl_err		err;
	int64	   *keys;
	int			nkeys = 0;

	InitMaterializedSRF(fcinfo, 0);
	slime_open(&o, PG_GETARG_DATUM(0), false);
	keys = palloc(sizeof(int64) * 4 * (o.v.hdr.chunk_count + 1));
	for (uint32_t i = 0; i < o.v.hdr.chunk_count; i++)
	{
		sl_dirent	de;
		int64		rx,
					rz;
		int			j;

		if (sl_value_dirent(&o.v, i, &de, &err))
			slime_raise(&err, false);
		rx = region_of(de.x);
		rz = region_of(de.z);
		/* a region is a contiguous run in canonical (Morton) order */
		j = nkeys - 1;
		if (nkeys == 0 || keys[4 * j] != ((rx << 32) | (uint32) rz))
		{
			j = nkeys;
			keys[4 * j] = (rx << 32) | (uint32) rz;
			keys[4 * j + 1] = keys[4 * j + 2] = keys[4 * j + 3] = 0;
			nkeys++;
		}
		for (int k = 0; k < SL_NCOMP; k++)
			if (de.len[k])
				keys[4 * j + 1 + k]++;
		if ((i & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	for (int j = 0; j < nkeys; j++)
	{
		Datum		values[5];
		bool		nulls[5] = {false, false, false, false, false};

		values[0] = Int32GetDatum((int32) (keys[4 * j] >> 32));
		values[1] = Int32GetDatum((int32) (uint32) keys[4 * j]);
		for (int k = 0; k < SL_NCOMP; k++)
			values[2 + k] = Int32GetDatum((int32) keys[4 * j + 1 + k]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	sl_value_close(&o.v);
	PG_RETURN_NULL();
}
