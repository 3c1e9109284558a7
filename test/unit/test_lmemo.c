/*
 * test_lmemo.c - the loader memo (sl_lmemo): a file read with the memo of
 * an earlier read reuses the chunk records that did not change and gives
 * the value a whole read gives; memos that do not hold are not used.
 */
#include "harness.h"

#include "sl_build.h"
#include "sl_lmemo.h"
#include "sl_slimefile.h"
#include "sl_value.h"

#include "slimefile_gen.h"

/* Count the store entries handed over (sl_lmemo_put_fn). */
static int
count_put(void *ctx, const uint8_t hash[32], const uint8_t *entry, size_t len, sl_err *err)
{
	(*(int *) ctx)++;
	return len > 0 ? 0 : sl_fail(err, SL_ERR_INVALID, "empty entry");
}

/* The content hash of a whole read of file, or -1. */
static int
whole_hash(const sl_buf *file, uint8_t hash[32])
{
	sl_builder	b;
	sl_buf		out = {0};
	sl_value	v;
	sl_err		err;
	int			rc;

	memset(&b, 0, sizeof(b));
	rc = sl_slimefile_read(file->data, file->len, NULL, &b, NULL, &err) ||
		sl_builder_encode(&b, NULL, NULL, &out, &err) ||
		sl_value_open_mem(&v, out.data, out.len, NULL, &err) ? -1 : 0;
	if (rc == 0)
	{
		memcpy(hash, v.hdr.hash, 32);
		sl_value_close(&v);
	}
	else
		fprintf(stderr, "whole read: %s\n", err.msg);
	sl_builder_free(&b);
	sl_buf_free(&out);
	return rc;
}

/*
 * Read file with memo (may be NULL) into the reference form; its content
 * hash, the new memo (stored form), how many chunks were reused and how many
 * entries were stored. -1 on error.
 */
static int
memo_read(const sl_buf *file, const sl_lmemo *memo, uint8_t hash[32], sl_buf *memo_out,
		  int *reused, int *stored)
{
	sl_builder	b;
	sl_lmemo	out;
	sl_buf		val = {0};
	sl_value	v;
	sl_err		err;
	int			rc;

	memset(&b, 0, sizeof(b));
	memset(&out, 0, sizeof(out));
	*reused = *stored = 0;
	rc = sl_slimefile_read_memo(file->data, file->len, NULL, &b, NULL, memo, &out, &err);
	for (size_t i = 0; rc == 0 && i < out.n; i++)
		*reused += out.e[i].known;
	if (rc == 0)
		rc = sl_lmemo_store_chunks(&b, &out, 3, NULL, count_put, stored, &err) ||
			sl_builder_encode(&b, NULL, NULL, &val, &err) ||
			sl_value_open_mem(&v, val.data, val.len, NULL, &err) ? -1 : 0;
	if (rc == 0)
	{
		memcpy(hash, v.hdr.hash, 32);
		CHECK(v.hdr.ref_count == v.hdr.chunk_count);
		sl_value_close(&v);
		memo_out->len = 0;
		if (out.has_ctx && sl_lmemo_encode(&out, memo_out, &err))
			rc = -1;
	}
	if (rc)
		fprintf(stderr, "memo read: %s\n", err.msg);
	sl_lmemo_free(&out);
	sl_builder_free(&b);
	sl_buf_free(&val);
	return rc;
}

/*
 * Assemble f into file (anew) and read it with memo (may be NULL): the
 * value must be the one a whole read gives; the new memo, how many chunks
 * were reused and how many entries were stored.
 */
static void
reread(sfg_file *f, sl_buf *file, const sl_lmemo *memo, sl_buf *memo_out, int *reused, int *stored)
{
	uint8_t		want[32],
				got[32];

	sl_buf_free(file);
	sfg_assemble(f, SIZE_MAX, file);
	CHECK(whole_hash(file, want) == 0);
	CHECK(memo_read(file, memo, got, memo_out, reused, stored) == 0);
	CHECK(memcmp(want, got, 32) == 0);
}

/* Every v11-v13 layout: a second read with the first's memo reuses every chunk, same value. */
void
test_lmemo_reuse(void)
{
	void		(*gen[]) (sfg_file *) = {sfg_v11, sfg_v12, sfg_v13};

	for (int g = 0; g < 3; g++)
	{
		sfg_file	f;
		sl_buf		file = {0},
					m1 = {0},
					m2 = {0};
		sl_lmemo	memo;
		int			reused,
					stored;
		sl_err		err;

		gen[g] (&f);
		reread(&f, &file, NULL, &m1, &reused, &stored);
		CHECK(reused == 0 && stored > 0);
		CHECK(m1.len > SL_LMEMO_HEADER);
		CHECK_OK(sl_lmemo_decode(m1.data, m1.len, &memo, &err), &err);
		CHECK(memo.n > 0);
		reread(&f, &file, &memo, &m2, &reused, &stored);
		CHECK(reused == (int) memo.n && stored == 0);
		/* the memo of a read that reused everything is the same memo */
		CHECK(m2.len == m1.len && memcmp(m1.data, m2.data, m1.len) == 0);
		/* an entry the caller did not find in the store: that chunk is read again */
		memo.e[0].usable = 0;
		reread(&f, &file, &memo, &m2, &reused, &stored);
		CHECK(reused == (int) memo.n - 1 && stored == 1);
		sl_lmemo_free(&memo);
		/* another context (the file's DataVersion): nothing is reused */
		f.dv += 1;
		CHECK_OK(sl_lmemo_decode(m1.data, m1.len, &memo, &err), &err);
		reread(&f, &file, &memo, &m2, &reused, &stored);
		CHECK(reused == 0);
		sl_lmemo_free(&memo);
		sfg_free(&f);
		sl_buf_free(&file);
		sl_buf_free(&m1);
		sl_buf_free(&m2);
	}
}

/* A changed chunk record is read again; the others are reused. */
void
test_lmemo_changed_chunk(void)
{
	sfg_file	f;
	sl_buf		file = {0},
				m1 = {0},
				m2 = {0};
	sl_lmemo	memo;
	int			reused,
				stored;
	size_t		light;
	sl_err		err;

	sfg_v13(&f);
	reread(&f, &file, NULL, &m1, &reused, &stored);
	CHECK_OK(sl_lmemo_decode(m1.data, m1.len, &memo, &err), &err);
	/* the first chunk's first light array (0x11 bytes) gets one byte changed */
	for (light = 0; light < f.chunks.len && f.chunks.data[light] != 0x11; light++)
		;
	CHECK(light < f.chunks.len);
	f.chunks.data[light + 100] = 0x12;
	reread(&f, &file, &memo, &m2, &reused, &stored);
	CHECK(reused == (int) memo.n - 1 && stored == 1);
	sl_lmemo_free(&memo);
	sfg_free(&f);
	sl_buf_free(&file);
	sl_buf_free(&m1);
	sl_buf_free(&m2);
}

/* Files of versions 1-10 keep no memo and read as without one. */
void
test_lmemo_old_versions(void)
{
	void		(*gen[]) (sfg_file *) = {sfg_v3, sfg_v9_113, sfg_v9_118, sfg_v10};

	for (int g = 0; g < 4; g++)
	{
		sfg_file	f;
		sl_buf		file = {0},
					m = {0};
		int			reused,
					stored;

		gen[g] (&f);
		reread(&f, &file, NULL, &m, &reused, &stored);
		CHECK(reused == 0 && m.len == 0);
		sfg_free(&f);
		sl_buf_free(&file);
		sl_buf_free(&m);
	}
}

/* Malformed memos are refused whole. */
void
test_lmemo_malformed(void)
{
	sfg_file	f;
	sl_buf		file = {0},
				m = {0};
	sl_lmemo	memo;
	uint8_t		got[32],
				save[SL_LMEMO_ENTRY];
	int			reused,
				stored;
	sl_err		err;

	sfg_v12(&f);
	sfg_assemble(&f, SIZE_MAX, &file);
	CHECK(memo_read(&file, NULL, got, &m, &reused, &stored) == 0);
	CHECK(m.len >= SL_LMEMO_HEADER + 2 * SL_LMEMO_ENTRY);
	CHECK(sl_lmemo_decode(m.data, 3, &memo, &err) == -1 && err.code == SL_ERR_FORMAT);
	CHECK(sl_lmemo_decode(m.data, m.len - 1, &memo, &err) == -1 && err.code == SL_ERR_FORMAT);
	m.data[0] ^= 1;
	CHECK(sl_lmemo_decode(m.data, m.len, &memo, &err) == -1 && err.code == SL_ERR_FORMAT);
	m.data[0] ^= 1;
	/* entries out of order */
	memcpy(save, m.data + SL_LMEMO_HEADER, SL_LMEMO_ENTRY);
	memcpy(m.data + SL_LMEMO_HEADER, m.data + SL_LMEMO_HEADER + SL_LMEMO_ENTRY, SL_LMEMO_ENTRY);
	memcpy(m.data + SL_LMEMO_HEADER + SL_LMEMO_ENTRY, save, SL_LMEMO_ENTRY);
	CHECK(sl_lmemo_decode(m.data, m.len, &memo, &err) == -1 && strstr(err.msg, "out of order"));
	/* a record length that runs past the chunk data is no match, not an error */
	memcpy(m.data + SL_LMEMO_HEADER + SL_LMEMO_ENTRY, m.data + SL_LMEMO_HEADER, SL_LMEMO_ENTRY);
	memcpy(m.data + SL_LMEMO_HEADER, save, SL_LMEMO_ENTRY);
	sl_put_u32le(m.data + SL_LMEMO_HEADER + 8, 0x7fffffff);
	CHECK_OK(sl_lmemo_decode(m.data, m.len, &memo, &err), &err);
	CHECK(memo_read(&file, &memo, got, &m, &reused, &stored) == 0 && reused == (int) memo.n - 1);
	sl_lmemo_free(&memo);
	sfg_free(&f);
	sl_buf_free(&file);
	sl_buf_free(&m);
}
