/*
 * summary.c - values' contents summaries in SQL (core sl_vsum): the counts
 * the block, biome and entity functions (blocks.c) read from them instead
 * of decoding chunks, the summary a rebuilt value keeps, and its check.
 */
#include "slime.h"

#include "utils/memutils.h"

#include "sl_build.h"
#include "sl_counts.h"
#include "sl_vsum.h"

/*
 * Add table kind (SL_SUM_*) of world's summary to m, allocating in mcxt:
 * true when the summary answered; false when the value is to be decoded
 * instead (it has none, a chunk's part could not be counted when it was
 * written), m untouched. Only the header slice of a stored value is read.
 */
bool
slime_summary_table(Datum world, int kind, sl_counts *m, MemoryContext mcxt)
{
	slime_open_value o;
	const uint8_t *raw;
	size_t		len;
	uint8_t    *tmp = NULL;
	uint64_t	failed = 0;
	sl_err		err;
	MemoryContext old;
	int			rc;

	slime_open(&o, world, false);
	if (!sl_value_has_summary(&o.v))
	{
		sl_value_close(&o.v);
		return false;
	}
	if (sl_value_summary_raw(&o.v, &raw, &len, &tmp, &err))
		slime_raise(&err, false);
	old = MemoryContextSwitchTo(mcxt);
	rc = sl_vsum_decode_table(raw, len, kind, m, &failed, &err);
	MemoryContextSwitchTo(old);
	if (rc)
		slime_raise(&err, false);
	if (failed > o.v.hdr.chunk_count)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("contents summary: %s: %llu chunks not counted, of %u",
						sl_vsum_kind_name(kind), (unsigned long long) failed, o.v.hdr.chunk_count)));
	sl_free(tmp);
	sl_value_close(&o.v);
	return failed == 0;
}

/*
 * The same for the counts and totals, which decode every chunk instead when
 * slime.read_summaries is off.
 */
bool
slime_summary_counts(Datum world, int kind, sl_counts *m, MemoryContext mcxt)
{
	return slime_read_summaries() && slime_summary_table(world, kind, m, mcxt);
}

/*
 * The summary a value rebuilt from o keeps (slime_store, slime_recompress):
 * o's, or, for a value written without one, its chunks counted (those held
 * by reference read from the store).
 */
void
slime_summary_keep(sl_builder *b, slime_open_value *o)
{
	sl_err		err;

	if (slime_encode_opts()->no_summary)
		return;					/* slime.write_summaries is off: none is written */
	if (b->sum)
	{
		sl_vsum_free(b->sum);
		sl_free(b->sum);
	}
	b->sum = palloc0(sizeof(sl_vsum));
	b->sum_lost = 0;
	if (sl_value_has_summary(&o->v) ? sl_value_read_summary(&o->v, b->sum, &err) :
		sl_value_count_summary(&o->v, b->sum, &err))
		slime_raise(&err, false);
}

/*
 * Whether o's contents summary matches its chunks, counted again (those in
 * the store read); false with a NOTICE naming the table that differs. A
 * value without one passes (slime_verify_refs).
 */
bool
slime_summary_verify(slime_open_value *o)
{
	sl_err		err;

	if (sl_value_check_summary(&o->v, &err) == 0)
		return true;
	if (err.code != SL_ERR_CORRUPT)
		slime_raise(&err, false);
	ereport(NOTICE,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("slime value fails its check: %s", err.msg)));
	return false;
}
