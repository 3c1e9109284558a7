/*
 * sl_pack.c - encode and open packs of chunk store entries (sl_pack.h).
 */
#include "sl_pack.h"
#include "sl_bcodec.h"
#include "sl_region.h"
#include "sl_store.h"
#include "sl_zstd.h"

#include <string.h>
#include <xxhash.h>

/* Bytes of one entry's row in a pack directory of version v. */
static size_t
dir_row(int v)
{
	return v == 1 ? SL_ENTRY_HEADER :
		SL_ENTRY_HEADER + SL_PACK_KEY_PREFIX + (v >= 3 ? SL_PACK_DELTA_FIELDS : 0);
}

/*
 * Whether entry j can be a base: it has documents, and they do not start
 * with zstd's dictionary magic (a prefix starting so would be read as a
 * dictionary, not raw content).
 */
static int
usable_base(const uint8_t *const *entry, const size_t *size, uint32_t j)
{
	size_t		n = size[j] - SL_ENTRY_HEADER;

	return n > 0 && !(n >= 4 && sl_get_u32le(entry[j] + SL_ENTRY_HEADER) == 0xEC30A437u);
}

/*
 * Chain each entry to the last earlier entry naming the same chunk position
 * in its region document: prev[i] (or -1). An open-addressed table maps a
 * position to its last entry, so n entries cost n lookups.
 */
static int
chain_positions(const uint8_t *const *entry, const size_t *size, uint32_t n, int64_t *prev,
				sl_err *err)
{
	size_t		cap = 16;
	int64_t    *slot;
	int64_t    *px;
	int64_t    *pz;

	while (cap < 2 * (size_t) n)
		cap *= 2;
	slot = sl_alloc_err(sizeof(int64_t) * cap, err);
	px = slot ? sl_alloc_err(sizeof(int64_t) * n, err) : NULL;
	pz = px ? sl_alloc_err(sizeof(int64_t) * n, err) : NULL;
	if (pz == NULL)
	{
		sl_free(slot);
		sl_free(px);
		return -1;
	}
	for (size_t k = 0; k < cap; k++)
		slot[k] = -1;
	for (uint32_t i = 0; i < n; i++)
	{
		uint32_t	rlen = sl_get_u32le(entry[i]);
		int			kind;
		sl_err		e2;
		uint64_t	h;
		size_t		k;

		prev[i] = -1;
		/* a document naming no position (or not NBT) has no versions to find */
		if (rlen == 0 || rlen > size[i] - SL_ENTRY_HEADER ||
			sl_chunk_where(entry[i] + SL_ENTRY_HEADER, rlen, NULL, &kind, &px[i], &pz[i], &e2) != 1)
			continue;
		h = ((uint64_t) px[i] * 0x9E3779B97F4A7C15ull) ^ ((uint64_t) pz[i] * 0xC2B2AE3D27D4EB4Full);
		for (k = (size_t) (h ^ (h >> 29)) & (cap - 1); slot[k] >= 0; k = (k + 1) & (cap - 1))
			if (px[slot[k]] == px[i] && pz[slot[k]] == pz[i])
				break;
		prev[i] = slot[k];
		slot[k] = i;
	}
	sl_free(slot);
	sl_free(px);
	sl_free(pz);
	return 0;
}

/* Append entry i's delta frame against entry j (its documents compressed with j's as a raw prefix) to out. */
static int
delta_frame(const uint8_t *const *entry, const size_t *size, uint32_t i, uint32_t j, sl_buf *out, sl_err *err)
{
	return sl_zstd_frame_prefix(entry[i] + SL_ENTRY_HEADER, size[i] - SL_ENTRY_HEADER, SL_PACK_DELTA_LEVEL,
								entry[j] + SL_ENTRY_HEADER, size[j] - SL_ENTRY_HEADER, out, err);
}

/*
 * Choose entry i's base among the last SL_PACK_DELTA_TRIES earlier entries
 * of its chunk position: the one whose delta frame is smallest, kept in
 * *delta, when it is under a third of the entry's zstd-1 frame. Returns the
 * base's index, or -1 (coded whole).
 */
static int64_t
choose_base(const uint8_t *const *entry, const size_t *size, const int64_t *prev, uint32_t i,
			sl_buf *delta, sl_err *err)
{
	const uint8_t *doc = entry[i] + SL_ENTRY_HEADER;
	size_t		len = size[i] - SL_ENTRY_HEADER;
	sl_buf		alone = {0};
	sl_buf		d = {0};
	int64_t		best = -1;
	size_t		limit;
	int			tries = 0;

	delta->len = 0;
	if (prev[i] < 0 || len == 0)
		return -1;
	if (sl_zstd_frame(doc, len, 1, &alone, err))
		return -2;
	limit = alone.len / 3;
	sl_buf_free(&alone);
	for (int64_t j = prev[i]; j >= 0 && tries < SL_PACK_DELTA_TRIES; j = prev[j], tries++)
	{
		if (!usable_base(entry, size, (uint32_t) j))
			continue;
		d.len = 0;
		if (delta_frame(entry, size, i, (uint32_t) j, &d, err))
		{
			sl_buf_free(&d);
			return -2;
		}
		if (d.len < limit && (best < 0 || d.len < delta->len))
		{
			best = j;
			delta->len = 0;
			if (sl_buf_put(delta, d.data, d.len, err))
			{
				sl_buf_free(&d);
				return -2;
			}
		}
	}
	sl_buf_free(&d);
	return best;
}

/*
 * Append a pack of n entries to out, each coded against entry base[i]
 * (base NULL or base[i] < 0: whole) with delta frame dlen[i] bytes of
 * deltas, in entry order.
 */
static int
put_pack(const uint8_t *const *entry, const size_t *size, const uint8_t *const *key, uint32_t n,
		 const int64_t *base, const uint32_t *dlen, const sl_buf *deltas, sl_pack_codec codec,
		 sl_buf *out, sl_err *err)
{
	sl_buf		docs = {0};
	uint8_t		head[SL_PACK_HEADER] = {SL_PACK_MAGIC, SL_PACK_VERSION};
	uint8_t		sum[SL_PACK_DIRSUM];
	size_t		start = out->len;
	int			rc = -1;

	sl_put_u32le(head + 2, n);
	if (sl_buf_put(out, head, sizeof(head), err))
		goto done;
	for (uint32_t i = 0; i < n; i++)
	{
		int			based = base && base[i] >= 0;
		uint8_t		fields[SL_PACK_DELTA_FIELDS];

		sl_put_u32le(fields, based ? (uint32_t) (base[i] + 1) : 0);
		sl_put_u32le(fields + 4, based ? dlen[i] : 0);
		if (sl_buf_put(out, entry[i], SL_ENTRY_HEADER, err) ||
			sl_buf_put(out, key[i], SL_PACK_KEY_PREFIX, err) ||
			sl_buf_put(out, fields, sizeof(fields), err) ||
			(!based && sl_buf_put(&docs, entry[i] + SL_ENTRY_HEADER, size[i] - SL_ENTRY_HEADER, err)))
			goto done;
	}
	sl_put_u64le(sum, XXH64(out->data + start, out->len - start, 0));
	if (sl_buf_put(out, sum, sizeof(sum), err) ||
		(base && sl_buf_put(out, deltas->data, deltas->len, err)))
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

static int	encode(const uint8_t *const *entry, const size_t *size, const uint8_t *const *key, uint32_t n,
				   sl_pack_codec codec, int history, sl_buf *out, sl_err *err);

/* Check that n entries fit a pack: 1 to SL_PACK_MAX_ENTRIES, each's lengths adding up, SL_PACK_MAX_RAW in all. */
static int
check_entries(const uint8_t *const *entry, const size_t *size, uint32_t n, sl_err *err)
{
	uint64_t	raw = 0;

	if (n == 0 || n > SL_PACK_MAX_ENTRIES)
		return sl_fail(err, SL_ERR_LIMIT, "a pack holds 1 to %d entries, not %u", SL_PACK_MAX_ENTRIES, n);
	for (uint32_t i = 0; i < n; i++)
	{
		uint64_t	total = SL_ENTRY_HEADER;

		for (int k = 0; k < SL_NCOMP; k++)
			total += size[i] >= SL_ENTRY_HEADER ? sl_get_u32le(entry[i] + 4 * k) : 0;
		if (size[i] < SL_ENTRY_HEADER || total != size[i])
			return sl_fail(err, SL_ERR_CORRUPT, "entry %u: its lengths do not add up to its %zu bytes", i, size[i]);
		raw += total - SL_ENTRY_HEADER;
	}
	if (raw > SL_PACK_MAX_RAW)
		return sl_fail(err, SL_ERR_LIMIT, "a pack of %llu bytes exceeds the pack cap", (unsigned long long) raw);
	return 0;
}

/* Append a pack of n entries to out, every entry whole. */
int
sl_pack_encode(const uint8_t *const *entry, const size_t *size, const uint8_t *const *key,
			   uint32_t n, sl_pack_codec codec, sl_buf *out, sl_err *err)
{
	return encode(entry, size, key, n, codec, 0, out, err);
}

/* Append a pack of n entries to out, entry i coded against entry base[i] when that is not -1. */
int
sl_pack_encode_based(const uint8_t *const *entry, const size_t *size, const uint8_t *const *key,
					 uint32_t n, sl_pack_codec codec, const int64_t *base, sl_buf *out, sl_err *err)
{
	sl_buf		deltas = {0};
	uint32_t   *dlen;
	int			rc = -1;

	if (check_entries(entry, size, n, err))
		return -1;
	dlen = sl_alloc_err(sizeof(uint32_t) * n, err);
	if (dlen == NULL)
		return -1;
	for (uint32_t i = 0; i < n; i++)
	{
		size_t		was = deltas.len;

		dlen[i] = 0;
		if (base[i] < 0)
			continue;
		if (base[i] >= i || size[i] <= SL_ENTRY_HEADER || !usable_base(entry, size, (uint32_t) base[i]))
		{
			sl_fail(err, SL_ERR_INVALID, "entry %u cannot be coded against entry %lld", i, (long long) base[i]);
			goto done;
		}
		if (delta_frame(entry, size, i, (uint32_t) base[i], &deltas, err))
			goto done;
		dlen[i] = (uint32_t) (deltas.len - was);
	}
	rc = put_pack(entry, size, key, n, base, dlen, &deltas, codec, out, err);
done:
	sl_free(dlen);
	sl_buf_free(&deltas);
	return rc;
}

/* Append a pack of n entries to out, versions of a chunk coded against each other. */
int
sl_pack_encode_history(const uint8_t *const *entry, const size_t *size, const uint8_t *const *key,
					   uint32_t n, sl_pack_codec codec, sl_buf *out, sl_err *err)
{
	return encode(entry, size, key, n, codec, 1, out, err);
}

/*
 * Append a pack of n entries to out; with history, the entries coded
 * against an earlier version of their chunk where choose_base finds one,
 * unless the pack with every entry whole is not larger (the frame's codec
 * sees what the entries share too: many small chunks alike code better in
 * it).
 */
static int
encode(const uint8_t *const *entry, const size_t *size, const uint8_t *const *key, uint32_t n,
	   sl_pack_codec codec, int history, sl_buf *out, sl_err *err)
{
	sl_buf		deltas = {0};
	sl_buf		delta = {0};
	sl_buf		whole = {0};
	int64_t    *prev = NULL;
	int64_t    *base = NULL;
	uint32_t   *dlen = NULL;
	uint32_t	based = 0;
	size_t		start = out->len;
	int			rc = -1;

	if (check_entries(entry, size, n, err))
		return -1;
	if (!history)
		return put_pack(entry, size, key, n, NULL, NULL, NULL, codec, out, err);
	prev = sl_alloc_err(sizeof(int64_t) * n, err);
	base = prev ? sl_alloc_err(sizeof(int64_t) * n, err) : NULL;
	dlen = base ? sl_alloc_err(sizeof(uint32_t) * n, err) : NULL;
	if (dlen == NULL || chain_positions(entry, size, n, prev, err))
		goto done;
	for (uint32_t i = 0; i < n; i++)
	{
		base[i] = choose_base(entry, size, prev, i, &delta, err);
		if (base[i] < -1 || (base[i] >= 0 && sl_buf_put(&deltas, delta.data, delta.len, err)))
			goto done;
		dlen[i] = (uint32_t) delta.len;
		based += base[i] >= 0;
	}
	if (based == 0)
		rc = put_pack(entry, size, key, n, NULL, NULL, NULL, codec, out, err);
	else if (put_pack(entry, size, key, n, base, dlen, &deltas, codec, out, err) == 0)
	{
		size_t		with = out->len - start;

		rc = put_pack(entry, size, key, n, NULL, NULL, NULL, codec, &whole, err);
		if (rc == 0 && whole.len <= with)
		{
			out->len = start;
			rc = sl_buf_put(out, whole.data, whole.len, err);
		}
		if (rc)
			out->len = start;
	}
done:
	sl_free(prev);
	sl_free(base);
	sl_free(dlen);
	sl_buf_free(&deltas);
	sl_buf_free(&delta);
	sl_buf_free(&whole);
	return rc;
}

/*
 * Read the directory of a pack of version p->version at src into p: the
 * offset after it in *at, the bytes of its delta frames (which follow it) in
 * *deltas_len and the documents of its whole entries in *whole_len.
 */
static int
read_directory(const uint8_t *src, size_t len, const sl_limits *lim, sl_pack *p, size_t *at,
			   size_t *deltas_len, size_t *whole_len, sl_err *err)
{
	size_t		row = dir_row(p->version);
	uint64_t	raw = 0;
	uint64_t	whole = 0;
	uint64_t	deltas = 0;

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
	if (p->version >= 3)
	{
		p->base = sl_alloc_err(sizeof(uint32_t) * p->count, err);
		p->delta = p->base ? sl_alloc_err(sizeof(uint32_t) * p->count, err) : NULL;
		p->frame_at = p->delta ? sl_alloc_err(sizeof(size_t) * p->count, err) : NULL;
		if (p->frame_at == NULL)
			return -1;
	}
	p->len = sl_alloc_err(sizeof(uint32_t) * SL_NCOMP * p->count, err);
	p->off = p->len ? sl_alloc_err(sizeof(size_t) * p->count, err) : NULL;
	if (p->off == NULL)
		return -1;
	for (uint32_t i = 0; i < p->count; i++, *at += row)
	{
		uint64_t	n = 0;

		for (int k = 0; k < SL_NCOMP; k++)
		{
			p->len[SL_NCOMP * i + k] = sl_get_u32le(src + *at + 4 * k);
			n += p->len[SL_NCOMP * i + k];
		}
		raw += n;
		if (p->keys)
			memcpy(p->keys + (size_t) SL_PACK_KEY_PREFIX * i, src + *at + SL_ENTRY_HEADER, SL_PACK_KEY_PREFIX);
		if (raw > SL_PACK_MAX_RAW || raw > lim->max_value_raw)
			return sl_fail(err, SL_ERR_CORRUPT, "pack entry %u: lengths exceed the pack cap (offset %zu)", i, *at);
		if (p->base)
		{
			const uint8_t *f = src + *at + SL_ENTRY_HEADER + SL_PACK_KEY_PREFIX;

			p->base[i] = sl_get_u32le(f);
			p->delta[i] = sl_get_u32le(f + 4);
			/* a base is an earlier entry, and an entry has a delta frame exactly when it has a base */
			if (p->base[i] > i || (p->base[i] == 0) != (p->delta[i] == 0))
				return sl_fail(err, SL_ERR_CORRUPT, "pack entry %u: base %u with a %u-byte delta is not an earlier entry's (offset %zu)",
							   i, p->base[i], p->delta[i], *at + SL_ENTRY_HEADER + SL_PACK_KEY_PREFIX);
			p->frame_at[i] = (size_t) deltas;
			deltas += p->delta[i];
			if (p->base[i])
			{
				p->based++;
				continue;
			}
		}
		p->off[i] = (size_t) whole;
		whole += n;
	}
	if (p->version > 1)
		*at += SL_PACK_DIRSUM;
	if (deltas > len - *at)
		return sl_fail(err, SL_ERR_CORRUPT, "pack delta frames of %llu bytes do not fit its %zu bytes (offset %zu)",
					   (unsigned long long) deltas, len, *at);
	*deltas_len = (size_t) deltas;
	*whole_len = (size_t) whole;
	/* based entries after the whole ones, in entry order */
	for (uint32_t i = 0; p->based && i < p->count; i++)
		if (p->base[i])
		{
			p->off[i] = (size_t) whole;
			for (int k = 0; k < SL_NCOMP; k++)
				whole += p->len[SL_NCOMP * i + k];
		}
	p->raw_len = (size_t) raw;
	return 0;
}

/* Bytes of entry i's documents in an open pack. */
static size_t
entry_docs(const sl_pack *p, uint32_t i)
{
	return (size_t) p->len[SL_NCOMP * i] + p->len[SL_NCOMP * i + 1] + p->len[SL_NCOMP * i + 2];
}

/* Decode a pack into p. */
int
sl_pack_open(const uint8_t *src, size_t len, const sl_limits *lim, sl_pack *p, sl_err *err)
{
	size_t		at;
	size_t		deltas = 0;
	const uint8_t *frame;
	size_t		flen;
	size_t		whole = 0;
	int			rc = 0;

	memset(p, 0, sizeof(*p));
	if (lim == NULL)
		lim = &sl_default_limits;
	if (len < SL_PACK_HEADER || src[0] != SL_PACK_MAGIC)
		return sl_fail(err, SL_ERR_CORRUPT, "not a chunk store pack (offset 0)");
	if (src[1] < 1 || src[1] > SL_PACK_VERSION)
		return sl_fail(err, SL_ERR_UNSUPPORTED, "pack version %d is not known (offset 1)", src[1]);
	p->version = src[1];
	if (read_directory(src, len, lim, p, &at, &deltas, &whole, err))
		goto fail;
	p->raw = sl_alloc_err(p->raw_len, err);
	if (p->raw == NULL)
		goto fail;
	/* the delta frames, then the frame of the whole entries */
	frame = src + at + deltas;
	flen = len - at - deltas;
	if (flen > 0 && sl_bcodec_version(frame, flen) > 0)
		rc = sl_bcodec_decode(frame, flen, p->raw, whole, err);
	else
		rc = sl_zstd_unframe(frame, flen, p->raw, whole, err);
	if (rc)
	{
		sl_err_prefix(err, "pack frame (offset %zu)", (size_t) (frame - src));
		goto fail;
	}
	/* the delta frames, kept to be decoded when their entries are read */
	if (p->based)
	{
		p->frames = sl_alloc_err(deltas, err);
		p->ready = p->frames ? sl_alloc_err(p->count, err) : NULL;
		if (p->ready == NULL)
			goto fail;
		memcpy(p->frames, src + at, deltas);
		for (uint32_t i = 0; i < p->count; i++)
			p->ready[i] = p->base[i] == 0;
	}
	return 0;
fail:
	sl_pack_free(p);
	if (err)
		err->code = err->code == SL_ERR_NOMEM ? SL_ERR_NOMEM : SL_ERR_CORRUPT;
	return -1;
}

/* Decode based entry i against its base, whose documents are in raw. */
static int
decode_delta(const sl_pack *p, uint32_t i, sl_err *err)
{
	uint32_t	b = p->base[i] - 1;

	if (sl_zstd_unframe_prefix(p->frames + p->frame_at[i], p->delta[i], p->raw + p->off[i],
							   entry_docs(p, i), p->raw + p->off[b], entry_docs(p, b), err))
	{
		if (err && err->code != SL_ERR_NOMEM)
			err->code = SL_ERR_CORRUPT;
		sl_err_prefix(err, "pack entry %u's delta frame", i);
		return -1;
	}
	p->ready[i] = 1;
	return 0;
}

/* Entry index's documents, decoded against its base (and that first) when not yet. */
const uint8_t *
sl_pack_docs(const sl_pack *p, uint32_t index, sl_err *err)
{
	uint32_t   *chain;
	uint32_t	n = 0;
	int			rc = 0;

	if (index >= p->count)
	{
		sl_fail(err, SL_ERR_CORRUPT, "pack holds %u entries, not entry %u", p->count, index);
		return NULL;
	}
	if (p->ready == NULL || p->ready[index])
		return p->raw + p->off[index];
	/* the entries from index back to the first one decoded (bases are earlier entries: this ends) */
	chain = sl_alloc_err(sizeof(uint32_t) * p->count, err);
	if (chain == NULL)
		return NULL;
	for (uint32_t j = index; !p->ready[j]; j = p->base[j] - 1)
		chain[n++] = j;
	while (n > 0 && rc == 0)
		rc = decode_delta(p, chain[--n], err);
	sl_free(chain);
	return rc ? NULL : p->raw + p->off[index];
}

/* Append entry index in its canonical bytes. */
int
sl_pack_entry(const sl_pack *p, uint32_t index, sl_buf *out, sl_err *err)
{
	uint8_t		head[SL_ENTRY_HEADER];
	const uint8_t *docs = sl_pack_docs(p, index, err);

	if (docs == NULL)
		return -1;
	for (int k = 0; k < SL_NCOMP; k++)
		sl_put_u32le(head + 4 * k, p->len[SL_NCOMP * index + k]);
	if (sl_buf_put(out, head, sizeof(head), err))
		return -1;
	return sl_buf_put(out, docs, entry_docs(p, index), err);
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
	sl_free(p->base);
	sl_free(p->delta);
	sl_free(p->frames);
	sl_free(p->frame_at);
	sl_free(p->ready);
	sl_free(p->raw);
	memset(p, 0, sizeof(*p));
}
