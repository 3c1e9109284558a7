/*
 * sl_vsum_value.c - a value's contents summary section (doc/format.md,
 * "Contents summary"): read, counted again from the chunks, checked.
 */
#include "sl_vsum.h"
#include "sl_zstd.h"

#include <string.h>

/* Whether a value carries a summary. */
int
sl_value_has_summary(const sl_value *v)
{
	return v->hdr.version >= 3 && (v->hdr.flags & SL_FLAG_SUMMARY) != 0;
}

/* The summary's raw bytes: in place, or decompressed into *tmp. */
static const uint8_t *
summary_bytes(sl_value *v, uint8_t **tmp, sl_err *err)
{
	const sl_header *h = &v->hdr;
	const uint8_t *p = v->meta + h->sum_offset;

	*tmp = NULL;
	if (h->sum_raw_len > v->lim.max_value_raw / 4)
		return sl_fail(err, SL_ERR_LIMIT, "contents summary of %u bytes is over the world size cap",
					   h->sum_raw_len), NULL;
	if (h->sum_len == h->sum_raw_len)
		return p;
	*tmp = sl_alloc_err(h->sum_raw_len, err);
	if (*tmp == NULL)
		return NULL;
	if (sl_zstd_unframe(p, h->sum_len, *tmp, h->sum_raw_len, err))
	{
		sl_err_prefix(err, "contents summary at offset %u", h->sum_offset);
		err->code = SL_ERR_CORRUPT;
		sl_free(*tmp);
		*tmp = NULL;
		return NULL;
	}
	return *tmp;
}

/* The raw bytes of an open value's summary. */
int
sl_value_summary_raw(sl_value *v, const uint8_t **raw, size_t *len, uint8_t **tmp, sl_err *err)
{
	if (!sl_value_has_summary(v))
		return sl_fail(err, SL_ERR_INVALID, "the value has no contents summary");
	*raw = summary_bytes(v, tmp, err);
	*len = v->hdr.sum_raw_len;
	return *raw ? 0 : -1;
}

/* Add an open value's summary to s. */
int
sl_value_read_summary(sl_value *v, sl_vsum *s, sl_err *err)
{
	uint8_t    *tmp;
	const uint8_t *p;
	sl_vsum		t;
	int			rc;

	if (!sl_value_has_summary(v))
		return sl_fail(err, SL_ERR_INVALID, "the value has no contents summary");
	p = summary_bytes(v, &tmp, err);
	if (p == NULL)
		return -1;
	memset(&t, 0, sizeof(t));
	rc = sl_vsum_decode(p, v->hdr.sum_raw_len, &t, err);
	sl_free(tmp);
	for (int k = 0; k < SL_SUM_KINDS && rc == 0; k++)
		if (t.failed[k] > v->hdr.chunk_count)
			rc = sl_fail(err, SL_ERR_CORRUPT, "contents summary: %s: %llu chunks not counted, of %u",
						 sl_vsum_kind_name(k), (unsigned long long) t.failed[k], v->hdr.chunk_count);
	if (rc == 0)
		rc = sl_vsum_add(s, &t, 1, err);
	sl_vsum_free(&t);
	return rc;
}

/* Add every chunk of an open value, decoded, to s. */
int
sl_value_count_summary(sl_value *v, sl_vsum *s, sl_err *err)
{
	for (uint32_t i = 0; i < v->hdr.chunk_count; i++)
	{
		sl_dirent	d;
		const uint8_t *comp[SL_NCOMP];

		sl_interrupt();
		if (sl_value_chunk(v, i, &d, comp, err))
			return -1;
		if (sl_vsum_chunk(s, d.data_version, comp, d.len, 1, err))
		{
			sl_err_prefix(err, "chunk (%d,%d)", d.x, d.z);
			return -1;
		}
	}
	return 0;
}

/* Check a value's summary against its chunks, counted again. */
int
sl_value_check_summary(sl_value *v, sl_err *err)
{
	sl_vsum		have,
				want;
	int			rc = -1;

	if (!sl_value_has_summary(v))
		return 0;
	memset(&have, 0, sizeof(have));
	memset(&want, 0, sizeof(want));
	if (sl_value_read_summary(v, &have, err) || sl_value_count_summary(v, &want, err))
		goto done;
	for (int k = 0; k < SL_SUM_KINDS; k++)
	{
		sl_vsum		a,
					b;

		/* name the first table that differs */
		memset(&a, 0, sizeof(a));
		memset(&b, 0, sizeof(b));
		a.c[k] = have.c[k];
		a.failed[k] = have.failed[k];
		b.c[k] = want.c[k];
		b.failed[k] = want.failed[k];
		if (!sl_vsum_equal(&a, &b, err))
		{
			sl_fail(err, SL_ERR_CORRUPT, "contents summary does not match the chunks: %s differ",
					sl_vsum_kind_name(k));
			goto done;
		}
	}
	rc = 0;
done:
	sl_vsum_free(&have);
	sl_vsum_free(&want);
	return rc;
}
