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

#include <xxhash.h>

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

/* Set a stored memo's checksum (its last 8 bytes) to what its bytes say: a forger's memo. */
static void
reseal(sl_buf *m)
{
	sl_put_u64le(m->data + m->len - SL_LMEMO_SUM, XXH64(m->data, m->len - SL_LMEMO_SUM, 0));
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
	CHECK(sl_lmemo_decode(m.data, m.len, &memo, &err) == -1 && strstr(err.msg, "checksum mismatch"));
	reseal(&m);
	CHECK(sl_lmemo_decode(m.data, m.len, &memo, &err) == -1 && strstr(err.msg, "out of order"));
	/* a record length that runs past the chunk data is no match, not an error */
	memcpy(m.data + SL_LMEMO_HEADER + SL_LMEMO_ENTRY, m.data + SL_LMEMO_HEADER, SL_LMEMO_ENTRY);
	memcpy(m.data + SL_LMEMO_HEADER, save, SL_LMEMO_ENTRY);
	sl_put_u32le(m.data + SL_LMEMO_HEADER + 8, 0x7fffffff);
	reseal(&m);
	CHECK_OK(sl_lmemo_decode(m.data, m.len, &memo, &err), &err);
	CHECK(memo_read(&file, &memo, got, &m, &reused, &stored) == 0 && reused == (int) memo.n - 1);
	sl_lmemo_free(&memo);
	sfg_free(&f);
	sl_buf_free(&file);
	sl_buf_free(&m);
}

/*
 * What memo bytes m decode to: -1 refused, 1 the entries of want (the
 * original memo, decoded), 0 other entries (wrong data: never allowed).
 */
static int
decoded_as(const uint8_t *m, size_t len, const sl_lmemo *want)
{
	sl_lmemo	got;
	sl_err		err;
	int			same;

	if (sl_lmemo_decode(m, len, &got, &err))
	{
		CHECK(err.code == SL_ERR_FORMAT);
		return -1;
	}
	same = got.n == want->n && memcmp(got.ctx, want->ctx, SL_LMEMO_CTX) == 0;
	for (size_t i = 0; same && i < got.n; i++)
	{
		const sl_lmemo_ent *a = &got.e[i],
				   *b = &want->e[i];

		same = a->x == b->x && a->z == b->z && a->rec_len == b->rec_len &&
			memcmp(a->xxh, b->xxh, 16) == 0 && memcmp(a->hash, b->hash, 32) == 0 &&
			a->data_version == b->data_version && a->timestamp == b->timestamp &&
			memcmp(a->len, b->len, sizeof(a->len)) == 0;
	}
	sl_lmemo_free(&got);
	return same;
}

/* Add d to the u32le at a and take it from the u32le at b (fields that cancel). */
static void
cancel(uint8_t *m, size_t a, size_t b, uint32_t d)
{
	sl_put_u32le(m + a, sl_get_u32le(m + a) + d);
	sl_put_u32le(m + b, sl_get_u32le(m + b) - d);
}

/*
 * Issue #33: a memo entry's DataVersion, timestamp and lengths go into the
 * value unparsed, so a damaged memo must decode to its own entries or not
 * at all: every byte flipped, and fields changed in pairs that cancel
 * (within an entry, and between two entries), are refused by the memo's
 * checksum. A memo of 0.9.0 and earlier (SLM1, no checksum) is refused
 * too. The checksum is not a seal against the loader's owner: a memo
 * forged with its checksum made again decodes, and gives another value.
 */
void		test_lmemo_damage(void);
void
test_lmemo_damage(void)
{
	sfg_file	f;
	sl_buf		file = {0},
				m = {0},
				d = {0};
	sl_lmemo	memo;
	uint8_t		want[32],
				got[32];
	int			reused,
				stored,
				wrong = 0,
				refused = 0,
				tried = 0;
	sl_err		err;
	const size_t fields[] = {8, 60, 64, 68, 72, 76};	/* rec_len, DataVersion, timestamp, lengths */

	sfg_v13(&f);
	reread(&f, &file, NULL, &m, &reused, &stored);
	CHECK_OK(sl_lmemo_decode(m.data, m.len, &memo, &err), &err);
	CHECK(memo.n >= 2 && m.len == SL_LMEMO_HEADER + SL_LMEMO_ENTRY * memo.n + SL_LMEMO_SUM);
	CHECK(decoded_as(m.data, m.len, &memo) == 1);
	sl_buf_put(&d, m.data, m.len, &err);
	/* every byte, two ways */
	for (size_t o = 0; o < m.len; o++)
		for (int x = 0; x < 2; x++)
		{
			int			r;

			memcpy(d.data, m.data, m.len);
			d.data[o] ^= x ? 0x80 : 0x01;
			r = decoded_as(d.data, d.len, &memo);
			wrong += r == 0;
			refused += r < 0;
			tried++;
		}
	/* fields that cancel: within an entry (a length up, the next down) and between entries */
	for (size_t i = 0; i < memo.n; i++)
	{
		size_t		e = SL_LMEMO_HEADER + SL_LMEMO_ENTRY * i;

		for (int k = 0; k < 2; k++)
		{
			memcpy(d.data, m.data, m.len);
			cancel(d.data, e + 68 + 4 * k, e + 72 + 4 * k, 1);
			refused += decoded_as(d.data, d.len, &memo) < 0;
			tried++;
		}
		for (size_t fi = 0; fi < sizeof(fields) / sizeof(fields[0]) && i + 1 < memo.n; fi++)
		{
			memcpy(d.data, m.data, m.len);
			cancel(d.data, e + fields[fi], e + SL_LMEMO_ENTRY + fields[fi], 32);
			refused += decoded_as(d.data, d.len, &memo) < 0;
			tried++;
		}
	}
	CHECK(wrong == 0);
	CHECK(refused == tried);
	/* version 1 (0.5.0 to 0.9.0): the same entries, no checksum */
	d.len = 0;
	sl_buf_put(&d, "SLM1", 4, &err);
	sl_buf_put(&d, m.data + 4, m.len - 4 - SL_LMEMO_SUM, &err);
	CHECK(sl_lmemo_decode(d.data, d.len, &memo, &err) == -1 && err.code == SL_ERR_FORMAT &&
		  strstr(err.msg, "SLM1"));
	/* a forger who makes the checksum again: it decodes, and the value is another */
	CHECK(whole_hash(&file, want) == 0);
	memcpy(d.data, m.data, m.len);
	d.len = m.len;
	cancel(d.data, SL_LMEMO_HEADER + 60, SL_LMEMO_HEADER + SL_LMEMO_ENTRY + 60, 1);
	reseal(&d);
	sl_lmemo_free(&memo);
	CHECK_OK(sl_lmemo_decode(d.data, d.len, &memo, &err), &err);
	CHECK(memo_read(&file, &memo, got, &m, &reused, &stored) == 0 && reused == (int) memo.n);
	CHECK(memcmp(want, got, 32) != 0);
	sl_lmemo_free(&memo);
	sfg_free(&f);
	sl_buf_free(&file);
	sl_buf_free(&m);
	sl_buf_free(&d);
}
