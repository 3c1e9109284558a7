/*
 * fuzz_lmemo.c - libFuzzer target for the loader memo (sl_lmemo) and the
 * slime file reader's memo path (sl_slimefile_read_memo).
 *
 * Input: u32le n, n bytes of a stored memo (clipped to what there is), then
 * a slime file.
 *
 * Invariants:
 *   - sl_lmemo_decode never crashes; a memo it refuses is SL_ERR_FORMAT;
 *   - reading the file with any memo that decodes never crashes and fails
 *     only with a known code (a memo is trusted data of the loader's own
 *     table: a forged one may give another value, not a crash); the n
 *     bytes are also tried with their checksum made good (sealed), as a
 *     forger would, so that the reader's memo path sees them;
 *   - the file's own memo (from a read without one) decodes, and a read with
 *     it reuses every chunk it names and gives the value a whole read gives
 *     (the same content hash); its memo is the same bytes again;
 *   - differential (issue #33): the file's own memo damaged by the n bytes
 *     read as records of 4 (u16le offset, u8 op, u8 value; op even: the
 *     byte at offset xor value; op odd: value added to the u32le at offset
 *     and taken from the u32le at offset + 4 * (op >> 1), fields that
 *     cancel) decodes to the entries it had, or is refused.
 */
#include "fuzz_common.h"
#include "sl_build.h"
#include "sl_lmemo.h"
#include "sl_slimefile.h"
#include "sl_value.h"

#include <xxhash.h>

/* Accept a store entry (sl_lmemo_put_fn). */
static int
put_nothing(void *ctx, const uint8_t hash[32], const uint8_t *entry, size_t len, sl_err *err)
{
	return 0;
}

/*
 * Read file with memo (may be NULL) into its reference form: 0 with its
 * content hash and stored memo (empty: none), how many chunks were reused;
 * -1 on an error, which is checked.
 */
static int
read_memo(const uint8_t *file, size_t len, const sl_lmemo *memo, uint8_t hash[32],
		  sl_buf *memo_out, size_t *reused)
{
	sl_builder	b;
	sl_lmemo	out;
	sl_buf		val = {0};
	sl_value	v;
	sl_err		err = {SL_OK, ""};
	int			rc;

	memset(&b, 0, sizeof(b));
	memset(&out, 0, sizeof(out));
	memo_out->len = 0;
	*reused = 0;
	rc = sl_slimefile_read_memo(file, len, &fuzz_limits, &b, NULL, memo, &out, &err);
	for (size_t i = 0; rc == 0 && i < out.n; i++)
		*reused += out.e[i].known;
	if (rc == 0)
		rc = sl_lmemo_store_chunks(&b, &out, 1, &fuzz_limits, put_nothing, NULL, &err) ||
			sl_builder_encode(&b, NULL, &fuzz_limits, &val, &err) ||
			sl_value_open_mem(&v, val.data, val.len, &fuzz_limits, &err) ? -1 : 0;
	if (rc == 0)
	{
		memcpy(hash, v.hdr.hash, 32);
		sl_value_close(&v);
		if (out.has_ctx)
			FUZZ_CHECK(sl_lmemo_encode(&out, memo_out, &err) == 0, "memo encode: %s", err.msg);
	}
	else
		fuzz_check_err(&err);
	sl_lmemo_free(&out);
	sl_builder_free(&b);
	sl_buf_free(&val);
	return rc;
}

/* The content hash of a whole read of file: 0, or -1. */
static int
whole_hash(const uint8_t *file, size_t len, uint8_t hash[32])
{
	sl_builder	b;
	sl_buf		val = {0};
	sl_value	v;
	sl_err		err;
	int			rc;

	memset(&b, 0, sizeof(b));
	rc = sl_slimefile_read(file, len, &fuzz_limits, &b, NULL, &err) ||
		sl_builder_encode(&b, NULL, &fuzz_limits, &val, &err) ||
		sl_value_open_mem(&v, val.data, val.len, &fuzz_limits, &err) ? -1 : 0;
	if (rc == 0)
	{
		memcpy(hash, v.hdr.hash, 32);
		sl_value_close(&v);
	}
	sl_builder_free(&b);
	sl_buf_free(&val);
	return rc;
}

/* Whether two decoded memos hold the same context and entries. */
static int
same_memo(const sl_lmemo *a, const sl_lmemo *b)
{
	if (a->n != b->n || memcmp(a->ctx, b->ctx, SL_LMEMO_CTX) != 0)
		return 0;
	for (size_t i = 0; i < a->n; i++)
	{
		const sl_lmemo_ent *x = &a->e[i],
				   *y = &b->e[i];

		if (x->x != y->x || x->z != y->z || x->rec_len != y->rec_len || memcmp(x->xxh, y->xxh, 16) != 0 ||
			memcmp(x->hash, y->hash, 32) != 0 || x->data_version != y->data_version ||
			x->timestamp != y->timestamp || memcmp(x->len, y->len, sizeof(x->len)) != 0)
			return 0;
	}
	return 1;
}

/* The memo m (stored, decoded as want) damaged by records: refused, or decoded to want's entries. */
static void
damaged_memo(const sl_buf *m, const sl_lmemo *want, const uint8_t *rec, size_t rlen)
{
	uint8_t    *d = fuzz_dup(m->data, m->len);
	sl_lmemo	got;
	sl_err		err;

	for (size_t r = 0; r + 4 <= rlen; r += 4)
	{
		size_t		at = (size_t) rec[r] | (size_t) rec[r + 1] << 8;
		uint8_t		op = rec[r + 2],
					v = rec[r + 3];
		size_t		other = at + 4 * (size_t) (op >> 1);

		if (!(op & 1) && at < m->len)
			d[at] ^= v;
		else if ((op & 1) && at + 4 <= m->len && other + 4 <= m->len)
		{
			sl_put_u32le(d + at, sl_get_u32le(d + at) + v);
			sl_put_u32le(d + other, sl_get_u32le(d + other) - v);
		}
	}
	if (sl_lmemo_decode(d, m->len, &got, &err) == 0)
	{
		FUZZ_CHECK(same_memo(&got, want), "a damaged memo decoded to other entries");
		sl_lmemo_free(&got);
	}
	else
		FUZZ_CHECK(err.code == SL_ERR_FORMAT, "memo refused with code %d: %s", (int) err.code, err.msg);
	free(d);
}

/* Read file with memo bytes whose checksum is made good (a forger's memo): no crash. */
static void
sealed_memo(const uint8_t *memo_bytes, size_t mlen, const uint8_t *file, size_t len)
{
	uint8_t    *d;
	sl_lmemo	memo;
	sl_buf		m = {0};
	uint8_t		h[32];
	size_t		reused;
	sl_err		err;

	if (mlen < SL_LMEMO_HEADER + SL_LMEMO_SUM)
		return;
	d = fuzz_dup(memo_bytes, mlen);
	memcpy(d, SL_LMEMO_MAGIC, 4);
	sl_put_u64le(d + mlen - SL_LMEMO_SUM, XXH64(d, mlen - SL_LMEMO_SUM, 0));
	if (sl_lmemo_decode(d, mlen, &memo, &err) == 0)
	{
		read_memo(file, len, &memo, h, &m, &reused);
		sl_lmemo_free(&memo);
	}
	else
		FUZZ_CHECK(err.code == SL_ERR_FORMAT, "memo refused with code %d: %s", (int) err.code, err.msg);
	sl_buf_free(&m);
	free(d);
}

static void
one(const uint8_t *memo_bytes, size_t mlen, const uint8_t *file, size_t len)
{
	sl_lmemo	memo;
	sl_err		err = {SL_OK, ""};
	sl_buf		m1 = {0},
				m2 = {0};
	uint8_t		h0[32],
				h1[32],
				h2[32];
	size_t		reused;

	if (sl_lmemo_decode(memo_bytes, mlen, &memo, &err) == 0)
	{
		read_memo(file, len, &memo, h1, &m1, &reused);
		sl_lmemo_free(&memo);
	}
	else
		FUZZ_CHECK(err.code == SL_ERR_FORMAT, "memo refused with code %d: %s", (int) err.code, err.msg);
	sealed_memo(memo_bytes, mlen, file, len);
	if (read_memo(file, len, NULL, h1, &m1, &reused) == 0)
	{
		FUZZ_CHECK(whole_hash(file, len, h0) == 0, "a file read with no memo fails a whole read");
		FUZZ_CHECK(memcmp(h0, h1, 32) == 0, "a read with no memo gives another value");
		if (m1.len)
		{
			FUZZ_CHECK(sl_lmemo_decode(m1.data, m1.len, &memo, &err) == 0, "own memo refused: %s", err.msg);
			FUZZ_CHECK(read_memo(file, len, &memo, h2, &m2, &reused) == 0, "read with its own memo fails");
			FUZZ_CHECK(memcmp(h0, h2, 32) == 0, "a read with its own memo gives another value");
			FUZZ_CHECK(reused == memo.n, "%zu of %zu chunks of its own memo reused", reused, memo.n);
			FUZZ_CHECK(m1.len == m2.len && memcmp(m1.data, m2.data, m1.len) == 0, "the memo changed");
			damaged_memo(&m1, &memo, memo_bytes, mlen);
			sl_lmemo_free(&memo);
		}
	}
	sl_buf_free(&m1);
	sl_buf_free(&m2);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t		mlen;
	uint8_t    *memo,
			   *file;

	if (size < 4)
		return 0;
	mlen = sl_get_u32le(data);
	if (mlen > size - 4)
		mlen = size - 4;
	memo = fuzz_dup(data + 4, mlen);
	file = fuzz_dup(data + 4 + mlen, size - 4 - mlen);
	one(memo, mlen, file, size - 4 - mlen);
	free(memo);
	free(file);
	return 0;
}
