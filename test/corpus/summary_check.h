/*
 * summary_check.h - a value's contents summary against its chunks counted
 * the way the SQL functions count them when they decode (blocks.c,
 * contents.c: each table opened on its own, under the default caps), for
 * the corpus programs (test/corpus/corpus_test.c, slimefile_corpus.c).
 */
#ifndef SUMMARY_CHECK_H
#define SUMMARY_CHECK_H

#include <stdio.h>
#include <string.h>

#include "sl_blocks.h"
#include "sl_chunk.h"
#include "sl_nbt.h"
#include "sl_vsum.h"

/* One table of one chunk as the SQL functions decode it: 0, or -1 when they would raise. */
static inline int
summary_decode_one(const sl_dirent *d, const uint8_t *const comp[SL_NCOMP], int kind, sl_counts *m)
{
	sl_arena	arena = {0};
	sl_err		err;
	int			rc = 0;

	if (kind == SL_SUM_BLOCKS || kind == SL_SUM_BIOMES)
	{
		sl_chunk_blocks cb;
		int			want = kind == SL_SUM_BLOCKS ? SL_WANT_BLOCKS : SL_WANT_BIOMES;

		if (d->len[SL_COMP_REGION])
		{
			rc = sl_chunk_blocks_open(comp[SL_COMP_REGION], d->len[SL_COMP_REGION], d->data_version,
									  want, NULL, &arena, &cb, &err);
			if (rc == 0)
				rc = kind == SL_SUM_BLOCKS ? sl_chunk_count_blocks(&cb, sl_vsum_tally, m, &err) :
					sl_chunk_count_biomes(&cb, sl_vsum_tally, m, &err);
		}
	}
	else
	{
		/* block entities: the region document's; entities: the region and entities documents' */
		for (int c = SL_COMP_REGION; c <= (kind == SL_SUM_ENTITIES ? SL_COMP_ENTITIES : SL_COMP_REGION) && rc == 0; c++)
		{
			sl_nbt	   *root;
			size_t		used;

			if (d->len[c] == 0)
				continue;
			rc = sl_nbt_parse(comp[c], d->len[c], NULL, &arena, &root, &used, &err);
			if (rc == 0)
				rc = sl_count_ids(kind == SL_SUM_ENTITIES ? sl_chunk_entities(root) :
								  sl_chunk_block_entities(root), m, &err);
		}
	}
	sl_arena_free(&arena);
	return rc ? -1 : 0;
}

/*
 * Check value's summary (it must have one) against its chunks decoded, and
 * that its bytes are what encoding them again gives; 0 when it holds, else
 * -1 with a message naming path.
 */
static inline int
summary_check(const char *path, const uint8_t *value, size_t len)
{
	sl_value	v;
	sl_vsum		have,
				want;
	sl_buf		again = {0};
	const uint8_t *raw;
	size_t		raw_len;
	uint8_t    *tmp = NULL;
	sl_err		err;
	int			rc = -1;

	memset(&have, 0, sizeof(have));
	memset(&want, 0, sizeof(want));
	if (sl_value_open_mem(&v, value, len, NULL, &err))
	{
		fprintf(stderr, "FAIL %s: summary: open: %s\n", path, err.msg);
		return -1;
	}
	if (!sl_value_has_summary(&v) || sl_value_read_summary(&v, &have, &err) ||
		sl_value_summary_raw(&v, &raw, &raw_len, &tmp, &err))
	{
		fprintf(stderr, "FAIL %s: summary: %s\n", path, sl_value_has_summary(&v) ? err.msg : "none");
		goto done;
	}
	for (uint32_t i = 0; i < v.hdr.chunk_count; i++)
	{
		sl_dirent	d;
		const uint8_t *comp[SL_NCOMP];

		if (sl_value_chunk(&v, i, &d, comp, &err))
		{
			fprintf(stderr, "FAIL %s: summary: chunk %u: %s\n", path, i, err.msg);
			goto done;
		}
		for (int k = 0; k < SL_SUM_KINDS; k++)
		{
			sl_counts	one = {0};

			if (summary_decode_one(&d, comp, k, &one))
				want.failed[k]++;
			else if (sl_counts_merge(&want.c[k], &one, &err))
				goto done;
			sl_counts_free(&one);
		}
	}
	if (!sl_vsum_equal(&have, &want, &err))
	{
		fprintf(stderr, "FAIL %s: summary differs from the chunks decoded\n", path);
		goto done;
	}
	if (sl_vsum_encode(&have, &again, &err) || again.len != raw_len ||
		memcmp(again.data, raw, raw_len) != 0)
	{
		fprintf(stderr, "FAIL %s: summary bytes are not what encoding it again gives\n", path);
		goto done;
	}
	rc = 0;
done:
	sl_free(tmp);
	sl_buf_free(&again);
	sl_vsum_free(&have);
	sl_vsum_free(&want);
	sl_value_close(&v);
	return rc;
}

#endif
