/*
 * fuzz_store.c - libFuzzer target for chunk store entries (sl_store).
 *
 * Input: 32 bytes of key (a SHA-256), then the entry: one zstd frame of
 * "u32le region_len, entities_len, poi_len, then the documents", or the
 * dense form (u8 0x01, those three lengths, a block codec stream of the
 * documents), or the raw form a packed entry is read out in (u8 0x00, the
 * bytes as they are). Each input
 * is tried with its own key and, so that mutations reach past the SHA-256
 * comparison, once more with the key the entry's bytes really hash to.
 *   - sl_store_entry_check: errors are SL_ERR_CORRUPT; it passes exactly
 *     when the frame decodes, the lengths add up (and are not all zero),
 *     every present document is one NBT compound and the hash is the key;
 *   - sl_store_entry_decode against the entry's own lengths: succeeds
 *     exactly when the lengths add up and the hash is the key, and then
 *     hands back those bytes; against lengths taken from the key bytes:
 *     no crash, and a success still hashes to the key; without the key
 *     check (slime.store_read_check = checksum): no crash, and it succeeds
 *     wherever the keyed decode does;
 *   - after a passing check: sl_store_entry_encode of the decoded chunk
 *     gives the same key and an entry that checks and decodes alike, and
 *     sl_store_entry_settle gives an entry that checks under the same key
 *     and decodes to the same bytes; after a failing one it fails too.
 * A key shorter than 32 bytes (input under 32 bytes) must be refused.
 */
#include "fuzz_common.h"
#include "sl_bcodec.h"
#include "sl_nbt.h"
#include "sl_store.h"
#include "sl_value.h"
#include "sl_zstd.h"

static void
reset(sl_err *err)
{
	err->code = SL_OK;
	err->msg[0] = '\0';
}

/* Every failure of the store functions is SL_ERR_CORRUPT. */
static void
check_corrupt(const sl_err *err, const char *what)
{
	fuzz_check_err(err);
	FUZZ_CHECK(err->code == SL_ERR_CORRUPT, "%s failed with code %d: %s", what,
			   (int) err->code, err->msg);
}

/* The entry decompressed by hand: *raw (malloc'd) of *raw_len bytes, or NULL. */
static uint8_t *
unframe(const uint8_t *entry, size_t len, size_t *raw_len)
{
	int			dense = len >= SL_DENSE_HEADER && entry[0] == SL_ENTRY_DENSE;
	int			plain = len > SL_ENTRY_HEADER && entry[0] == SL_ENTRY_RAW;
	int64_t		n = dense ? (int64_t) (SL_ENTRY_HEADER + (uint64_t) sl_get_u32le(entry + 1) +
									   sl_get_u32le(entry + 5) + sl_get_u32le(entry + 9))
		: plain ? (int64_t) len - 1 : sl_zstd_declared_size(entry, len);
	uint8_t    *raw;
	sl_err		err;

	if (n < SL_ENTRY_HEADER || (uint64_t) n > fuzz_limits.max_chunk_raw + SL_ENTRY_HEADER)
		return NULL;
	raw = malloc((size_t) n);
	if (raw == NULL)
		abort();
	if (plain)
	{
		memcpy(raw, entry + 1, (size_t) n);
		*raw_len = (size_t) n;
		return raw;
	}
	if (dense)
		memcpy(raw, entry + 1, SL_ENTRY_HEADER);
	if (dense ? sl_bcodec_decode(entry + SL_DENSE_HEADER, len - SL_DENSE_HEADER,
								 raw + SL_ENTRY_HEADER, (size_t) n - SL_ENTRY_HEADER, &err)
		: sl_zstd_unframe(entry, len, raw, (size_t) n, &err))
	{
		free(raw);
		return NULL;
	}
	*raw_len = (size_t) n;
	return raw;
}

/*
 * Decode against d, with and without the key check; a keyed success must
 * hand back bytes hashing to d->hash, and the unkeyed decode must succeed too.
 */
static int
decode(const uint8_t *entry, size_t len, const sl_dirent *d, const uint8_t *expect)
{
	uint8_t    *buf = NULL;
	size_t		cap = 0;
	const uint8_t *comp[SL_NCOMP];
	sl_err		err;
	int			unkeyed;
	int			rc;
	uint8_t		h[32];
	size_t		at = 0;

	reset(&err);
	unkeyed = sl_store_entry_decode(entry, len, d, &fuzz_limits, 0, &buf, &cap, comp, &err);
	if (unkeyed)
		check_corrupt(&err, "decode unkeyed");
	reset(&err);
	rc = sl_store_entry_decode(entry, len, d, &fuzz_limits, 1, &buf, &cap, comp, &err);
	if (rc)
	{
		check_corrupt(&err, "decode");
		sl_free(buf);
		return rc;
	}
	FUZZ_CHECK(unkeyed == 0, "the unkeyed decode refused an entry the keyed one took");
	sl_chunk_hash(d, comp, h);
	FUZZ_CHECK(memcmp(h, d->hash, 32) == 0, "decoded bytes do not hash to the key");
	for (int k = 0; k < SL_NCOMP; k++)
	{
		FUZZ_CHECK((comp[k] == NULL) == (d->len[k] == 0), "component %d pointer", k);
		if (expect && d->len[k])
			FUZZ_CHECK(memcmp(comp[k], expect + at, d->len[k]) == 0,
					   "component %d decoded to other bytes", k);
		at += d->len[k];
	}
	sl_free(buf);
	return 0;
}

/* One key + entry pair; returns whether sl_store_entry_check passed. */
static int
one(const uint8_t *key, const uint8_t *entry, size_t len, int second)
{
	sl_err		err;
	int			ok;
	uint8_t    *raw;
	size_t		raw_len = 0;
	sl_dirent	d;

	reset(&err);
	ok = sl_store_entry_check(key, 32, entry, len, &fuzz_limits, &err) == 0;
	if (!ok)
	{
		sl_buf		none = {0};

		check_corrupt(&err, "check");
		reset(&err);
		FUZZ_CHECK(sl_store_entry_settle(key, entry, len, &fuzz_limits, &none, &err) != 0 &&
				   none.len == 0, "settle took an entry its check refuses");
		sl_buf_free(&none);
	}

	/* lengths from the key bytes: anything may happen but a crash */
	memset(&d, 0, sizeof(d));
	memcpy(d.hash, key, 32);
	for (int k = 0; k < SL_NCOMP; k++)
		d.len[k] = sl_get_u32le(key + 4 * k) & 0x3FFFF;
	(void) decode(entry, len, &d, NULL);

	raw = unframe(entry, len, &raw_len);
	if (raw == NULL)
	{
		FUZZ_CHECK(!ok, "check passed an entry that does not decompress");
		return ok;
	}
	{
		uint64_t	sum = SL_ENTRY_HEADER;
		const uint8_t *comp[SL_NCOMP];
		size_t		at = SL_ENTRY_HEADER;
		uint8_t		h[32];
		int			adds_up,
					hash_ok,
					nbt_ok = 1,
					dec_ok;

		for (int k = 0; k < SL_NCOMP; k++)
		{
			d.len[k] = sl_get_u32le(raw + 4 * k);
			sum += d.len[k];
		}
		adds_up = sum == raw_len;
		hash_ok = 0;
		if (adds_up)
		{
			for (int k = 0; k < SL_NCOMP; k++)
			{
				comp[k] = d.len[k] ? raw + at : NULL;
				at += d.len[k];
			}
			sl_chunk_hash(&d, comp, h);
			hash_ok = memcmp(h, key, 32) == 0;
			for (int k = 0; k < SL_NCOMP; k++)
			{
				size_t		used = 0;

				reset(&err);
				if (d.len[k] &&
					(sl_nbt_check(comp[k], d.len[k], 0, &fuzz_limits, &used, &err) || used != d.len[k]))
					nbt_ok = 0;
			}
		}
		dec_ok = decode(entry, len, &d, raw + SL_ENTRY_HEADER) == 0;
		FUZZ_CHECK(dec_ok == (adds_up && hash_ok),
				   "decode %d, lengths add up %d, hash matches %d", dec_ok, adds_up, hash_ok);
		FUZZ_CHECK(ok == (adds_up && sum != SL_ENTRY_HEADER && hash_ok && nbt_ok),
				   "check %d, lengths add up %d (sum %llu), hash matches %d, NBT ok %d",
				   ok, adds_up, (unsigned long long) sum, hash_ok, nbt_ok);

		if (ok)
		{
			sl_buf		again = {0};
			uint8_t		k2[32];

			/* the same chunk encoded again: the same key, checks, decodes */
			reset(&err);
			FUZZ_CHECK(sl_store_entry_encode(d.len, comp, 1, &again, k2, &err) == 0,
					   "re-encode: %s", err.msg);
			FUZZ_CHECK(memcmp(k2, key, 32) == 0, "re-encoded entry has another key");
			reset(&err);
			FUZZ_CHECK(sl_store_entry_check(k2, 32, again.data, again.len, &fuzz_limits, &err) == 0,
					   "re-encoded entry fails its check: %s", err.msg);
			FUZZ_CHECK(decode(again.data, again.len, &d, raw + SL_ENTRY_HEADER) == 0,
					   "re-encoded entry does not decode");
			/* settled: checks under the same key, decodes to the same bytes */
			again.len = 0;
			reset(&err);
			FUZZ_CHECK(sl_store_entry_settle(key, entry, len, &fuzz_limits, &again, &err) == 0,
					   "settle: %s", err.msg);
			reset(&err);
			FUZZ_CHECK(sl_store_entry_check(key, 32, again.data, again.len, &fuzz_limits, &err) == 0,
					   "settled entry fails its check: %s", err.msg);
			FUZZ_CHECK(decode(again.data, again.len, &d, raw + SL_ENTRY_HEADER) == 0,
					   "settled entry does not decode");
			sl_buf_free(&again);
		}
		else if (!second && adds_up && !hash_ok)
		{
			/* try once more under the key the bytes hash to */
			uint8_t    *copy = fuzz_dup(entry, len);

			(void) one(h, copy, len, 1);
			free(copy);
		}
	}
	free(raw);
	return ok;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sl_err		err;
	uint8_t		key[32];
	uint8_t    *entry;

	if (size < 32)
	{
		/* a short key is refused whatever follows */
		reset(&err);
		FUZZ_CHECK(sl_store_entry_check(data, size, data, size, &fuzz_limits, &err) != 0,
				   "a %zu-byte key passed", size);
		check_corrupt(&err, "short key");
		return 0;
	}
	memcpy(key, data, 32);
	entry = fuzz_dup(data + 32, size - 32);
	(void) one(key, entry, size - 32, 0);
	free(entry);
	return 0;
}
