/*
 * sl_pack.c - encode and open packs of chunk store entries (sl_pack.h).
 */
#include "sl_pack.h"
#include "sl_bcodec.h"
#include "sl_store.h"
#include "sl_zstd.h"

#include <string.h>
#include <xxhash.h>

/* Bytes of one entry's row in a pack directory of version v. */
static size_t
dir_row(int v)
{
	return v == 1 ? SL_ENTRY_HEADER : SL_ENTRY_HEADER + SL_PACK_KEY_PREFIX;
}

/* Append a pack of n entries to out. */
int
sl_pack_encode(const uint8_t *const *entry, const size_t *size, const uint8_t *const *key,
			   uint32_t n, sl_pack_codec codec, sl_buf *out, sl_err *err)
{
	sl_buf		docs = {0};
	uint8_t		head[SL_PACK_HEADER] = {SL_PACK_MAGIC, SL_PACK_VERSION};
	uint8_t		sum[SL_PACK_DIRSUM];
	size_t		start = out->len;
	int			rc = -1;

	if (n == 0 || n > SL_PACK_MAX_ENTRIES)
		return sl_fail(err, SL_ERR_LIMIT, "a pack holds 1 to %d entries, not %u", SL_PACK_MAX_ENTRIES, n);
	sl_put_u32le(head + 2, n);
	if (sl_buf_put(out, head, sizeof(head), err))
		goto done;
	for (uint32_t i = 0; i < n; i++)
	{
		uint64_t	total = SL_ENTRY_HEADER;

		for (int k = 0; k < SL_NCOMP; k++)
			total += sl_get_u32le(entry[i] + 4 * k);
		if (size[i] < SL_ENTRY_HEADER || total != size[i])
		{
			sl_fail(err, SL_ERR_CORRUPT, "entry %u: its lengths do not add up to its %zu bytes", i, size[i]);
			goto done;
		}
		if (sl_buf_put(out, entry[i], SL_ENTRY_HEADER, err) ||
			sl_buf_put(out, key[i], SL_PACK_KEY_PREFIX, err) ||
			sl_buf_put(&docs, entry[i] + SL_ENTRY_HEADER, size[i] - SL_ENTRY_HEADER, err))
			goto done;
	}
	if (docs.len > SL_PACK_MAX_RAW)
	{
		sl_fail(err, SL_ERR_LIMIT, "a pack of %zu bytes exceeds the pack cap", docs.len);
		goto done;
	}
	sl_put_u64le(sum, XXH64(out->data + start, out->len - start, 0));
	if (sl_buf_put(out, sum, sizeof(sum), err))
		goto done;
	rc = codec == SL_PACK_DENSE ?
		sl_bcodec_encode(docs.data, docs.len, SL_SETTLE_BCODEC, out, err) :
		sl_zstd_frame(docs.data, docs.len, SL_PACK_ZSTD_LEVEL, out, err);
done:
	if (rc)
		out->len = start;
	sl_buf_free(&docs);
	return rc;
}

/* Read the directory of a pack of version p->version at src into p; the offset after it in *at. */
static int
read_directory(const uint8_t *src, size_t len, const sl_limits *lim, sl_pack *p, size_t *at,
			   sl_err *err)
{
	size_t		row = dir_row(p->version);
	uint64_t	raw = 0;

	*at = SL_PACK_HEADER;
	p->count = sl_get_u32le(src + 2);
	if (p->count == 0 || p->count > SL_PACK_MAX_ENTRIES ||
		(uint64_t) p->count * row + (p->version == 1 ? 0 : SL_PACK_DIRSUM) > len - *at)
		return sl_fail(err, SL_ERR_CORRUPT, "pack count %u does not fit its %zu bytes (offset 2)", p->count, len);
	if (p->version > 1)
	{
		size_t		end = SL_PACK_HEADER + (size_t) p->count * row;

		/* nothing of the directory is used before its checksum passed */
		if (XXH64(src, end, 0) != sl_get_u64le(src + end))
			return sl_fail(err, SL_ERR_CORRUPT, "pack directory checksum mismatch (offset %zu)", end);
		p->keys = sl_alloc_err((size_t) SL_PACK_KEY_PREFIX * p->count, err);
		if (p->keys == NULL)
			return -1;
	}
	p->len = sl_alloc_err(sizeof(uint32_t) * SL_NCOMP * p->count, err);
	p->off = p->len ? sl_alloc_err(sizeof(size_t) * p->count, err) : NULL;
	if (p->off == NULL)
		return -1;
	for (uint32_t i = 0; i < p->count; i++, *at += row)
	{
		p->off[i] = (size_t) raw;
		for (int k = 0; k < SL_NCOMP; k++)
		{
			p->len[SL_NCOMP * i + k] = sl_get_u32le(src + *at + 4 * k);
			raw += p->len[SL_NCOMP * i + k];
		}
		if (p->keys)
			memcpy(p->keys + (size_t) SL_PACK_KEY_PREFIX * i, src + *at + SL_ENTRY_HEADER, SL_PACK_KEY_PREFIX);
		if (raw > SL_PACK_MAX_RAW || raw > lim->max_value_raw)
			return sl_fail(err, SL_ERR_CORRUPT, "pack entry %u: lengths exceed the pack cap (offset %zu)", i, *at);
	}
	if (p->version > 1)
		*at += SL_PACK_DIRSUM;
	p->raw_len = (size_t) raw;
	return 0;
}

/* Decode a pack into p. */
int
sl_pack_open(const uint8_t *src, size_t len, const sl_limits *lim, sl_pack *p, sl_err *err)
{
	size_t		at;
	const uint8_t *frame;
	size_t		flen;
	int			rc;

	memset(p, 0, sizeof(*p));
	if (lim == NULL)
		lim = &sl_default_limits;
	if (len < SL_PACK_HEADER || src[0] != SL_PACK_MAGIC)
		return sl_fail(err, SL_ERR_CORRUPT, "not a chunk store pack (offset 0)");
	if (src[1] != 1 && src[1] != SL_PACK_VERSION)
		return sl_fail(err, SL_ERR_UNSUPPORTED, "pack version %d is not known (offset 1)", src[1]);
	p->version = src[1];
	if (read_directory(src, len, lim, p, &at, err))
		goto fail;
	frame = src + at;
	flen = len - at;
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

/* Whether entry index is key's: 1 yes, 0 another key's, -1 not said (version 1). */
int
sl_pack_entry_is(const sl_pack *p, uint32_t index, const uint8_t key[32])
{
	if (index >= p->count)
		return 0;
	if (p->keys == NULL)
		return -1;
	return memcmp(p->keys + (size_t) SL_PACK_KEY_PREFIX * index, key, SL_PACK_KEY_PREFIX) == 0;
}

/* Append entry index as the entry of key in its raw form, checked as sl_pack.h says. */
int
sl_pack_read(const sl_pack *p, uint32_t index, const uint8_t key[32], int rehash, int known,
			 sl_buf *out, sl_err *err)
{
	size_t		start = out->len;
	int			is = sl_pack_entry_is(p, index, key);
	char		hex[65];

	if (index >= p->count)
		return sl_fail(err, SL_ERR_CORRUPT, "pack holds %u entries, not entry %u", p->count, index);
	if (is == 0)
	{
		sl_hash_hex(key, hex);
		return sl_fail(err, SL_ERR_CORRUPT, "pack entry %u is not the entry of chunk %s", index, hex);
	}
	if (sl_buf_put_u8(out, SL_ENTRY_RAW, err) || sl_pack_entry(p, index, out, err))
	{
		out->len = start;
		return -1;
	}
	if (known || (is == 1 && !rehash))
		return 0;
	if (!sl_store_raw_matches(out->data + start, out->len - start, key))
	{
		out->len = start;
		sl_hash_hex(key, hex);
		return sl_fail(err, SL_ERR_CORRUPT, "pack entry %u does not hash to chunk %s", index, hex);
	}
	return 1;
}

/* Release an open pack. */
void
sl_pack_free(sl_pack *p)
{
	sl_free(p->len);
	sl_free(p->off);
	sl_free(p->keys);
	sl_free(p->raw);
	memset(p, 0, sizeof(*p));
}
