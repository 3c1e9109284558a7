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
 *     table: a forged one may give another value, not a crash);
 *   - the file's own memo (from a read without one) decodes, and a read with
 *     it reuses every chunk it names and gives the value a whole read gives
 *     (the same content hash, and the same contents summary: kept from the
 *     memo's chunk summaries, counted in the whole read); its memo is the
 *     same bytes again;
 *   - the memo's bytes as a records list (sl_lmemo_add_records) never crash
 *     and are refused only as SL_ERR_FORMAT; the own memo's records list
 *     names every record.
 */
#include "fuzz_common.h"
#include "sl_build.h"
#include "sl_lmemo.h"
#include "sl_slimefile.h"
#include "sl_value.h"
#include "sl_vsum.h"

/* The raw bytes of an open value's contents summary into sum (empty: none). */
static void
summary_bytes(sl_value *v, sl_buf *sum)
{
	const uint8_t *raw;
	size_t		len;
	uint8_t    *tmp = NULL;
	sl_err		err = {SL_OK, ""};

	sum->len = 0;
	if (!sl_value_has_summary(v))
		return;
	FUZZ_CHECK(sl_value_summary_raw(v, &raw, &len, &tmp, &err) == 0, "own summary: %s", err.msg);
	FUZZ_CHECK(sl_buf_put(sum, raw, len, &err) == 0, "summary copy");
	sl_free(tmp);
}

/* The summaries of the last read_memo and whole_hash. */
static sl_buf memo_sum,
			whole_sum;

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
	rc = sl_slimefile_read_memo(file, len, &fuzz_limits, &b, NULL, memo, &out, NULL, &err);
	for (size_t i = 0; rc == 0 && i < out.n; i++)
		*reused += out.e[i].known;
	if (rc == 0)
		rc = sl_lmemo_store_chunks(&b, &out, 1, &fuzz_limits, put_nothing, NULL, &err) ||
			sl_builder_encode(&b, NULL, &fuzz_limits, &val, &err) ||
			sl_value_open_mem(&v, val.data, val.len, &fuzz_limits, &err) ? -1 : 0;
	if (rc == 0)
	{
		memcpy(hash, v.hdr.hash, 32);
		summary_bytes(&v, &memo_sum);
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
		summary_bytes(&v, &whole_sum);
		sl_value_close(&v);
	}
	sl_builder_free(&b);
	sl_buf_free(&val);
	return rc;
}

/* The last read_memo's summary is the last whole read's. */
static int
same_summary(void)
{
	return memo_sum.len == whole_sum.len && memcmp(memo_sum.data, whole_sum.data, memo_sum.len) == 0;
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

	/* the memo's bytes as a pending save's records list: refused (SL_ERR_FORMAT) or added */
	memset(&memo, 0, sizeof(memo));
	if (sl_lmemo_add_records(&memo, memo_bytes, mlen, &err) != 0)
		FUZZ_CHECK(err.code == SL_ERR_FORMAT, "records list refused with code %d: %s", (int) err.code, err.msg);
	sl_lmemo_free(&memo);
	if (sl_lmemo_decode(memo_bytes, mlen, &memo, &err) == 0)
	{
		read_memo(file, len, &memo, h1, &m1, &reused);
		sl_lmemo_free(&memo);
	}
	else
		FUZZ_CHECK(err.code == SL_ERR_FORMAT, "memo refused with code %d: %s", (int) err.code, err.msg);
	if (read_memo(file, len, NULL, h1, &m1, &reused) == 0)
	{
		FUZZ_CHECK(whole_hash(file, len, h0) == 0, "a file read with no memo fails a whole read");
		FUZZ_CHECK(memcmp(h0, h1, 32) == 0, "a read with no memo gives another value");
		FUZZ_CHECK(same_summary(), "a read with no memo gives another contents summary");
		if (m1.len)
		{
			FUZZ_CHECK(sl_lmemo_decode(m1.data, m1.len, &memo, &err) == 0, "own memo refused: %s", err.msg);
			FUZZ_CHECK(read_memo(file, len, &memo, h2, &m2, &reused) == 0, "read with its own memo fails");
			FUZZ_CHECK(memcmp(h0, h2, 32) == 0, "a read with its own memo gives another value");
			FUZZ_CHECK(same_summary(), "a read with its own memo gives another contents summary");
			FUZZ_CHECK(reused == memo.n, "%zu of %zu chunks of its own memo reused", reused, memo.n);
			FUZZ_CHECK(m1.len == m2.len && memcmp(m1.data, m2.data, m1.len) == 0, "the memo changed");
			{
				/* its records list names every record of it, as checked entries */
				sl_lmemo	rl;

				memset(&rl, 0, sizeof(rl));
				m2.len = 0;
				FUZZ_CHECK(sl_lmemo_encode_records(&memo, &m2, &err) == 0 &&
						   sl_lmemo_add_records(&rl, m2.data, m2.len, &err) == 0, "own records list: %s", err.msg);
				FUZZ_CHECK(rl.n == memo.n, "%zu of %zu records in its records list", rl.n, memo.n);
				sl_lmemo_free(&rl);
			}
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
