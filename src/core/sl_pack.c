/*
 * sl_pack.c - encode and open packs of chunk store entries (sl_pack.h).
 */
#include "sl_pack.h"
#include "sl_bcodec.h"
#include "sl_store.h"
#include "sl_zstd.h"

#include <string.h>

/* Append a pack of n entries to out. */
int
sl_pack_encode(const uint8_t *const *entry, const size_t *size, uint32_t n,
			   sl_pack_codec codec, sl_buf *out, sl_err *err)
{
	sl_buf		docs = {0};
	uint8_t		head[SL_PACK_HEADER] = {SL_PACK_MAGIC, SL_PACK_VERSION};
	size_t		start = out->len;
	int			rc = -1;

	if (n == 0 || n > SL_PACK_MAX_ENTRIES)
		return sl_fail(err, SL_ERR_LIMIT, "a pack holds 1 to %d entries, not %u", SL_PACK_MAX_ENTRIES, n);
	sl_put_u32le(head + 2, n);
	if (sl_buf_put(out, head, sizeof(head), err))
		goto done;
	for (uint32_t i = 0; i < n; i++)
	{
		uint64_t	sum = SL_ENTRY_HEADER;

		for (int k = 0; k < SL_NCOMP; k++)
			sum += sl_get_u32le(entry[i] + 4 * k);
		if (size[i] < SL_ENTRY_HEADER || sum != size[i])
		{
			sl_fail(err, SL_ERR_CORRUPT, "entry %u: its lengths do not add up to its %zu bytes", i, size[i]);
			goto done;
		}
		if (sl_buf_put(out, entry[i], SL_ENTRY_HEADER, err) ||
			sl_buf_put(&docs, entry[i] + SL_ENTRY_HEADER, size[i] - SL_ENTRY_HEADER, err))
			goto done;
	}
	if (docs.len > SL_PACK_MAX_RAW)
	{
		sl_fail(err, SL_ERR_LIMIT, "a pack of %zu bytes exceeds the pack cap", docs.len);
		goto done;
	}
	rc = codec == SL_PACK_DENSE ?
		sl_bcodec_encode(docs.data, docs.len, SL_SETTLE_BCODEC, out, err) :
		sl_zstd_frame(docs.data, docs.len, SL_PACK_ZSTD_LEVEL, out, err);
done:
	if (rc)
		out->len = start;
	sl_buf_free(&docs);
	return rc;
}

/* Decode a pack into p. */
int
sl_pack_open(const uint8_t *src, size_t len, const sl_limits *lim, sl_pack *p, sl_err *err)
{
	size_t		at = SL_PACK_HEADER;
	uint64_t	raw = 0;
	const uint8_t *frame;
	size_t		flen;
	int			rc;

	memset(p, 0, sizeof(*p));
	if (lim == NULL)
		lim = &sl_default_limits;
	if (len < SL_PACK_HEADER || src[0] != SL_PACK_MAGIC)
		return sl_fail(err, SL_ERR_CORRUPT, "not a chunk store pack (offset 0)");
	if (src[1] != SL_PACK_VERSION)
		return sl_fail(err, SL_ERR_UNSUPPORTED, "pack version %d is not known (offset 1)", src[1]);
	p->count = sl_get_u32le(src + 2);
	if (p->count == 0 || p->count > SL_PACK_MAX_ENTRIES ||
		(uint64_t) p->count * SL_ENTRY_HEADER > len - at)
		return sl_fail(err, SL_ERR_CORRUPT, "pack count %u does not fit its %zu bytes (offset 2)", p->count, len);
	p->len = sl_alloc_err(sizeof(uint32_t) * SL_NCOMP * p->count, err);
	p->off = p->len ? sl_alloc_err(sizeof(size_t) * p->count, err) : NULL;
	if (p->off == NULL)
		goto fail;
	for (uint32_t i = 0; i < p->count; i++, at += SL_ENTRY_HEADER)
	{
		p->off[i] = (size_t) raw;
		for (int k = 0; k < SL_NCOMP; k++)
		{
			p->len[SL_NCOMP * i + k] = sl_get_u32le(src + at + 4 * k);
			raw += p->len[SL_NCOMP * i + k];
		}
		if (raw > SL_PACK_MAX_RAW || raw > lim->max_value_raw)
		{
			sl_fail(err, SL_ERR_CORRUPT, "pack entry %u: lengths exceed the pack cap (offset %zu)", i, at);
			goto fail;
		}
	}
	frame = src + at;
	flen = len - at;
	p->raw_len = (size_t) raw;
	p->raw = sl_alloc_err(p->raw_len, err);
	if (p->raw == NULL)
		goto fail;
	if (flen > 0 && sl_bcodec_version(frame, flen) > 0)
		rc = sl_bcodec_decode(frame, flen, p->raw, p->raw_len, err);
	else
		rc = sl_zstd_unframe(frame, flen, p->raw, p->raw_len, err);
	if (rc == 0)
		return 0;
	sl_err_prefix(err, "pack frame (offset %zu)", at);
fail:
	sl_pack_free(p);
	if (err)
		err->code = err->code == SL_ERR_NOMEM ? SL_ERR_NOMEM : SL_ERR_CORRUPT;
	return -1;
}

/* Append entry index in its canonical bytes. */
int
sl_pack_entry(const sl_pack *p, uint32_t index, sl_buf *out, sl_err *err)
{
	uint8_t		head[SL_ENTRY_HEADER];
	size_t		n = 0;

	if (index >= p->count)
		return sl_fail(err, SL_ERR_CORRUPT, "pack holds %u entries, not entry %u", p->count, index);
	for (int k = 0; k < SL_NCOMP; k++)
	{
		sl_put_u32le(head + 4 * k, p->len[SL_NCOMP * index + k]);
		n += p->len[SL_NCOMP * index + k];
	}
	if (sl_buf_put(out, head, sizeof(head), err))
		return -1;
	return sl_buf_put(out, p->raw + p->off[index], n, err);
}

/* Release an open pack. */
void
sl_pack_free(sl_pack *p)
{
	sl_free(p->len);
	sl_free(p->off);
	sl_free(p->raw);
	memset(p, 0, sizeof(*p));
}
