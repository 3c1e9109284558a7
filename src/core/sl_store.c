/*
 * sl_store.c - encode, decode and check chunk store entries.
 */
#include "sl_store.h"
#include "sl_bcodec.h"
#include "sl_nbt.h"
#include "sl_zstd.h"

#include <string.h>

/* Lowercase hex of a 32-byte hash. */
void
sl_hash_hex(const uint8_t hash[32], char out[65])
{
	sl_hex(hash, 32, out);
}

/* Encode a chunk as a store entry appended to out; sets its key. */
int
sl_store_entry_encode(const uint32_t len[SL_NCOMP], const uint8_t *const comp[SL_NCOMP],
					  int level, sl_buf *out, uint8_t hash[32], sl_err *err)
{
	sl_buf		raw = {0};
	sl_dirent	d;
	uint8_t		head[SL_ENTRY_HEADER];
	int			rc = -1;

	memset(&d, 0, sizeof(d));
	for (int k = 0; k < SL_NCOMP; k++)
	{
		d.len[k] = len[k];
		sl_put_u32le(head + 4 * k, len[k]);
	}
	if (sl_buf_put(&raw, head, sizeof(head), err))
		goto done;
	for (int k = 0; k < SL_NCOMP; k++)
		if (len[k] && sl_buf_put(&raw, comp[k], len[k], err))
			goto done;
	sl_chunk_hash(&d, comp, hash);
	rc = sl_zstd_frame(raw.data, raw.len, level, out, err);
done:
	sl_buf_free(&raw);
	return rc;
}

/* Raw size a dense entry declares: its three lengths and their documents. */
static uint64_t
dense_size(const uint8_t *entry)
{
	return SL_ENTRY_HEADER + (uint64_t) sl_get_u32le(entry + 1) +
		sl_get_u32le(entry + 5) + sl_get_u32le(entry + 9);
}

/* Raw size an entry declares (either form), or -1 when it declares none. */
static int64_t
entry_declared_size(const uint8_t *entry, size_t len)
{
	if (len >= SL_DENSE_HEADER && entry[0] == SL_ENTRY_DENSE)
		return (int64_t) dense_size(entry);
	if (len > SL_ENTRY_HEADER && entry[0] == SL_ENTRY_RAW)
		return (int64_t) len - 1;
	return sl_zstd_declared_size(entry, len);
}

/* Decompress an entry (either form) whose raw size must be raw_len into *buf. */
static int
unframe_entry(const uint8_t *entry, size_t len, uint64_t raw_len, const sl_limits *lim,
			  uint8_t **buf, size_t *cap, sl_err *err)
{
	if (raw_len > lim->max_chunk_raw + SL_ENTRY_HEADER)
		return sl_fail(err, SL_ERR_LIMIT, "entry of %llu bytes exceeds the chunk size cap",
					   (unsigned long long) raw_len);
	if (raw_len > *cap)
	{
		uint8_t    *nb = sl_realloc(*buf, raw_len);

		if (nb == NULL)
			return sl_fail(err, SL_ERR_NOMEM, "out of memory for a %llu-byte store entry",
						   (unsigned long long) raw_len);
		*buf = nb;
		*cap = raw_len;
	}
	if (len > 0 && entry[0] == SL_ENTRY_RAW)
	{
		if (len - 1 != raw_len)
			return sl_fail(err, SL_ERR_CORRUPT, "entry does not hold its %llu raw bytes",
						   (unsigned long long) raw_len);
		memcpy(*buf, entry + 1, raw_len);
		return 0;
	}
	if (len > 0 && entry[0] == SL_ENTRY_DENSE)
	{
		if (len < SL_DENSE_HEADER || dense_size(entry) != raw_len)
			return sl_fail(err, SL_ERR_CORRUPT, "dense entry does not declare its %llu raw bytes",
						   (unsigned long long) raw_len);
		memcpy(*buf, entry + 1, SL_ENTRY_HEADER);
		return sl_bcodec_decode(entry + SL_DENSE_HEADER, len - SL_DENSE_HEADER,
								*buf + SL_ENTRY_HEADER, raw_len - SL_ENTRY_HEADER, err);
	}
	return sl_zstd_unframe(entry, len, *buf, raw_len, err);
}

/* Point comp[] at the documents of chunk d in its canonical bytes raw (the lengths first). */
static void
point_docs(const uint8_t *raw, const sl_dirent *d, const uint8_t *comp[SL_NCOMP])
{
	size_t		at = SL_ENTRY_HEADER;

	for (int k = 0; k < SL_NCOMP; k++)
	{
		comp[k] = d->len[k] ? raw + at : NULL;
		at += d->len[k];
	}
}

/* Whether the lengths at the head of canonical bytes raw are chunk d's. */
static int
lengths_are(const uint8_t *raw, const sl_dirent *d)
{
	for (int k = 0; k < SL_NCOMP; k++)
		if (sl_get_u32le(raw + 4 * k) != d->len[k])
			return 0;
	return 1;
}

/*
 * The error for an entry of other sizes than reference chunk d: a
 * reference can be forged from a hash alone, so such an entry is reported
 * as a missing one, and the error tells neither the entry's real size nor
 * that it exists (slime_store_verify() and sl_store_entry_check, for the
 * store's owner, say more).
 */
static int
missing_entry(const sl_dirent *d, sl_err *err)
{
	char		hex[65];

	sl_hash_hex(d->hash, hex);
	return sl_fail(err, SL_ERR_CORRUPT, SL_STORE_MISSING_FMT, hex);
}

/* Compare the entry's SHA-256 with the key it is stored under. */
static int
check_hash(const uint8_t *raw, const sl_dirent *d, const uint8_t *key, sl_err *err)
{
	const uint8_t *comp[SL_NCOMP];
	uint8_t		h[32];

	point_docs(raw, d, comp);
	sl_chunk_hash(d, comp, h);
	if (memcmp(h, key, 32) != 0)
		return sl_fail(err, SL_ERR_CORRUPT, "its bytes do not match its hash");
	return 0;
}

/* Decode the entry holding reference chunk d. */
int
sl_store_entry_decode(const uint8_t *entry, size_t len, const sl_dirent *d,
					  const sl_limits *lim, int check_key, uint8_t **buf, size_t *cap,
					  const uint8_t *comp[SL_NCOMP], sl_err *err)
{
	uint64_t	raw_len = SL_ENTRY_HEADER + (uint64_t) d->len[0] + d->len[1] + d->len[2];
	char		hex[65];

	if (lim == NULL)
		lim = &sl_default_limits;
	if (sl_zstd_declared_size(entry, len) >= 0 &&
		(uint64_t) sl_zstd_declared_size(entry, len) != raw_len)
		return missing_entry(d, err);
	if (unframe_entry(entry, len, raw_len, lim, buf, cap, err))
		goto corrupt;
	if (!lengths_are(*buf, d))
		return missing_entry(d, err);
	if ((check_key || entry[0] == SL_ENTRY_RAW) && check_hash(*buf, d, d->hash, err))
		goto corrupt;
	point_docs(*buf, d, comp);
	return 0;
corrupt:
	sl_hash_hex(d->hash, hex);
	sl_err_prefix(err, "store entry %s is corrupt", hex);
	if (err)
		err->code = SL_ERR_CORRUPT;
	return -1;
}

/* Whether a raw-form entry hashes to key. */
int
sl_store_raw_matches(const uint8_t *entry, size_t len, const uint8_t key[32])
{
	sl_dirent	d;
	uint64_t	sum = SL_ENTRY_HEADER;

	if (len < 1 + SL_ENTRY_HEADER || entry[0] != SL_ENTRY_RAW)
		return 0;
	memset(&d, 0, sizeof(d));
	for (int k = 0; k < SL_NCOMP; k++)
	{
		d.len[k] = sl_get_u32le(entry + 1 + 4 * k);
		sum += d.len[k];
	}
	if (sum != len - 1)
		return 0;
	return check_hash(entry + 1, &d, key, NULL) == 0;
}

/* Point comp[] into a raw-form entry of chunk d already found to match its key. */
int
sl_store_entry_view(const uint8_t *entry, size_t len, const sl_dirent *d,
					const uint8_t *comp[SL_NCOMP], sl_err *err)
{
	/* other sizes say no more than a missing entry, as sl_store_entry_decode */
	if (len < 1 + SL_ENTRY_HEADER || entry[0] != SL_ENTRY_RAW ||
		len - 1 != SL_ENTRY_HEADER + (uint64_t) d->len[0] + d->len[1] + d->len[2] ||
		!lengths_are(entry + 1, d))
		return missing_entry(d, err);
	point_docs(entry + 1, d, comp);
	return 0;
}

/* Check an entry on its own against its key. */
int
sl_store_entry_check(const uint8_t *hash, size_t hash_len, const uint8_t *entry,
					 size_t len, const sl_limits *lim, sl_err *err)
{
	static const char *const names[SL_NCOMP] = {"region", "entities", "poi"};
	int64_t		raw_len = entry_declared_size(entry, len);
	uint8_t    *buf = NULL;
	size_t		cap = 0;
	sl_dirent	d;
	uint64_t	sum = SL_ENTRY_HEADER;
	size_t		at = SL_ENTRY_HEADER;
	int			rc = -1;

	memset(&d, 0, sizeof(d));
	if (lim == NULL)
		lim = &sl_default_limits;
	if (hash_len != 32)
		return sl_fail(err, SL_ERR_CORRUPT, "key is %zu bytes, not a SHA-256", hash_len);
	if (raw_len < SL_ENTRY_HEADER)
		return sl_fail(err, SL_ERR_CORRUPT, "not a zstd frame declaring its size");
	if (unframe_entry(entry, len, (uint64_t) raw_len, lim, &buf, &cap, err))
		goto done;
	for (int k = 0; k < SL_NCOMP; k++)
	{
		d.len[k] = sl_get_u32le(buf + 4 * k);
		sum += d.len[k];
	}
	if (sum != (uint64_t) raw_len || sum == SL_ENTRY_HEADER)
	{
		sl_fail(err, SL_ERR_CORRUPT, "component lengths do not add up to the entry's size");
		goto done;
	}
	for (int k = 0; k < SL_NCOMP; k++)
	{
		size_t		used = 0;
		int			bad = 0;

		if (d.len[k])
			bad = sl_nbt_check(buf + at, d.len[k], 0, lim, &used, err);
		if (!bad && d.len[k] && used != d.len[k])
			bad = sl_fail(err, SL_ERR_CORRUPT, "trailing bytes after the NBT document");
		if (bad)
		{
			sl_err_prefix(err, "%s data", names[k]);
			goto done;
		}
		at += d.len[k];
	}
	rc = check_hash(buf, &d, hash, err);
done:
	sl_free(buf);
	if (rc && err)
		err->code = SL_ERR_CORRUPT;
	return rc;
}

/* Append the canonical bytes of a checked entry. */
int
sl_store_entry_canonical(const uint8_t *hash, size_t hash_len, const uint8_t *entry,
						 size_t len, const sl_limits *lim, sl_buf *out, sl_err *err)
{
	uint8_t    *raw = NULL;
	size_t		cap = 0;
	int64_t		raw_len;
	int			rc;

	if (lim == NULL)
		lim = &sl_default_limits;
	if (sl_store_entry_check(hash, hash_len, entry, len, lim, err))
		return -1;
	raw_len = entry_declared_size(entry, len);
	rc = unframe_entry(entry, len, (uint64_t) raw_len, lim, &raw, &cap, err) ||
		sl_buf_put(out, raw, (size_t) raw_len, err) ? -1 : 0;
	sl_free(raw);
	return rc;
}

/*
 * Append the densest form of the chunk raw[0..len) (an entry's bytes, now
 * stored in cur_len bytes): the dense form, or a zstd-19 frame when that is
 * smaller. zstd-19 is tried only when the dense form saves less than
 * SL_SETTLE_SKIP_19 of cur_len: where the block codec wins clearly, zstd-19
 * (the slowest step, ~2 MB/s) never beat it on the corpus (test/bench/README.md).
 */
static int
encode_densest(const uint8_t *raw, size_t len, size_t cur_len, sl_buf *out, sl_err *err)
{
	sl_buf		z = {0};
	sl_buf		d = {0};
	uint8_t		kind = SL_ENTRY_DENSE;
	int			rc = -1;

	if (sl_buf_put(&d, &kind, 1, err) ||
		sl_buf_put(&d, raw, SL_ENTRY_HEADER, err) ||
		sl_bcodec_encode(raw + SL_ENTRY_HEADER, len - SL_ENTRY_HEADER, SL_SETTLE_BCODEC, &d, err))
		goto done;
	if ((double) d.len < SL_SETTLE_SKIP_19 * (double) cur_len)
		rc = sl_buf_put(out, d.data, d.len, err);
	else if (sl_zstd_frame(raw, len, SL_SETTLE_ZSTD_LEVEL, &z, err) == 0)
		rc = d.len < z.len ? sl_buf_put(out, d.data, d.len, err) : sl_buf_put(out, z.data, z.len, err);
done:
	sl_buf_free(&z);
	sl_buf_free(&d);
	return rc;
}

/* Rewrite an entry into its densest form, checked to decode to the same bytes. */
int
sl_store_entry_settle(const uint8_t *hash, const uint8_t *entry, size_t len,
					  const sl_limits *lim, sl_buf *out, sl_err *err)
{
	int64_t		raw_len;
	uint8_t    *raw = NULL;
	uint8_t    *back = NULL;
	size_t		cap = 0;
	size_t		back_cap = 0;
	size_t		start = out->len;
	int			rc = -1;

	if (lim == NULL)
		lim = &sl_default_limits;
	if (sl_store_entry_check(hash, 32, entry, len, lim, err))
		return -1;
	raw_len = entry_declared_size(entry, len);
	if (unframe_entry(entry, len, (uint64_t) raw_len, lim, &raw, &cap, err) ||
		encode_densest(raw, (size_t) raw_len, len, out, err))
		goto done;
	/* content never changes: the new form must give back the same bytes */
	if (unframe_entry(out->data + start, out->len - start, (uint64_t) raw_len, lim,
					  &back, &back_cap, err))
		goto done;
	if (memcmp(raw, back, (size_t) raw_len) != 0)
	{
		sl_fail(err, SL_ERR_CORRUPT, "the dense form of the entry does not decode to its bytes");
		goto done;
	}
	rc = 0;
done:
	if (rc)
		out->len = start;
	sl_free(raw);
	sl_free(back);
	return rc;
}
