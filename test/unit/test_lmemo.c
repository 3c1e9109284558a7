/*
 * test_lmemo.c - the loader memo (sl_lmemo): a file read with the memo of
 * an earlier read reuses the chunk records that did not change and gives
 * the value a whole read gives, its contents summary included (kept from the
 * memo's chunk summaries and the chunks counted again); memos that do not
 * hold are not used; a file kept in frames is read without the frames of
 * the records the memo knows.
 */
#include "harness.h"

#include <zstd.h>

#include "sl_build.h"
#include "sl_codec.h"
#include "sl_lmemo.h"
#include "sl_slimefile.h"
#include "sl_value.h"
#include "sl_vsum.h"

#include "slimefile_gen.h"

/* Count the store entries handed over (sl_lmemo_put_fn). */
static int
count_put(void *ctx, const uint8_t hash[32], const uint8_t *entry, size_t len, sl_err *err)
{
	(*(int *) ctx)++;
	return len > 0 ? 0 : sl_fail(err, SL_ERR_INVALID, "empty entry");
}

/* The raw bytes of an open value's contents summary into sum (empty: none). */
static void
summary_of(sl_value *v, sl_buf *sum)
{
	const uint8_t *raw;
	size_t		len;
	uint8_t    *tmp = NULL;
	sl_err		err;

	sum->len = 0;
	if (!sl_value_has_summary(v))
		return;
	CHECK_OK(sl_value_summary_raw(v, &raw, &len, &tmp, &err), &err);
	sl_buf_put(sum, raw, len, &err);
	sl_free(tmp);
}

/* The summary last read by memo_read and whole_hash. */
static sl_buf memo_sum,
			whole_sum;

/* The content hash of a whole read of file, or -1; its summary into whole_sum. */
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
		summary_of(&v, &whole_sum);
		sl_value_close(&v);
	}
	else
		fprintf(stderr, "whole read: %s\n", err.msg);
	sl_builder_free(&b);
	sl_buf_free(&out);
	return rc;
}

/*
 * Read file with memo (may be NULL) into the reference form, frame by
 * frame when fr names its chunk block's n frames (sl_slimefile_read_frames,
 * else fr NULL); its content hash, the new memo (stored form, memo_out
 * NULL: not kept), how many chunks were reused and how many entries were
 * stored. -1 on error, its message in err.
 */
static int
value_read(const sl_buf *file, const sl_sffr_frame *fr, uint32_t n, const sl_lmemo *memo, uint8_t hash[32],
		   sl_buf *memo_out, int *reused, int *stored, sl_err *err)
{
	sl_builder	b;
	sl_lmemo	out;
	sl_buf		val = {0};
	sl_value	v;
	int			rc;

	memset(&b, 0, sizeof(b));
	memset(&out, 0, sizeof(out));
	*reused = *stored = 0;
	rc = fr ? sl_slimefile_read_frames(file->data, file->len, NULL, &b, NULL, memo, &out, fr, n, err) :
		sl_slimefile_read_memo(file->data, file->len, NULL, &b, NULL, memo, &out, NULL, err);
	for (size_t i = 0; rc == 0 && i < out.n; i++)
		*reused += out.e[i].known;
	if (rc == 0)
		rc = sl_lmemo_store_chunks(&b, &out, 3, NULL, count_put, stored, err) ||
			sl_builder_encode(&b, NULL, NULL, &val, err) ||
			sl_value_open_mem(&v, val.data, val.len, NULL, err) ? -1 : 0;
	if (rc == 0)
	{
		memcpy(hash, v.hdr.hash, 32);
		CHECK(v.hdr.ref_count == v.hdr.chunk_count);
		summary_of(&v, &memo_sum);
		sl_value_close(&v);
		if (memo_out)
		{
			memo_out->len = 0;
			if (out.has_ctx && sl_lmemo_encode(&out, memo_out, err))
				rc = -1;
		}
	}
	sl_lmemo_free(&out);
	sl_builder_free(&b);
	sl_buf_free(&val);
	return rc;
}

/* value_read of a whole file; an error's message to stderr. */
static int
memo_read(const sl_buf *file, const sl_lmemo *memo, uint8_t hash[32], sl_buf *memo_out,
		  int *reused, int *stored)
{
	sl_err		err;
	int			rc = value_read(file, NULL, 0, memo, hash, memo_out, reused, stored, &err);

	if (rc)
		fprintf(stderr, "memo read: %s\n", err.msg);
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
	/* the summary kept from the memo is the one counting every chunk gives */
	CHECK(whole_sum.len > 0);
	CHECK(memo_sum.len == whole_sum.len && memcmp(memo_sum.data, whole_sum.data, whole_sum.len) == 0);
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

/* Set a stored memo's CRC to match its bytes again. */
static void
reseal(sl_buf *m)
{
	uint8_t		zero[4] = {0};

	sl_put_u32le(m->data + 16, sl_crc32(sl_crc32(sl_crc32(0, m->data, 16), zero, 4),
										m->data + 20, m->len - 20));
}

/* Offset of entry i of a stored memo (entries hold their summary's length after 80 bytes). */
static size_t
entry_at(const sl_buf *m, int i)
{
	size_t		pos = SL_LMEMO_HEADER;

	while (i-- > 0)
		pos += SL_LMEMO_ENTRY + 4 + sl_get_u32le(m->data + pos + SL_LMEMO_ENTRY);
	return pos;
}

/* Malformed memos are refused whole. */
void
test_lmemo_malformed(void)
{
	sfg_file	f;
	sl_buf		file = {0},
				m = {0},
				orig = {0},
				swapped = {0};
	sl_lmemo	memo;
	uint8_t		got[32],
				want[32];
	int			reused,
				stored;
	size_t		e0,
				e1,
				e2;
	sl_err		err;

	sfg_v12(&f);
	sfg_assemble(&f, SIZE_MAX, &file);
	CHECK(memo_read(&file, NULL, got, &m, &reused, &stored) == 0);
	/*
	 * version 3, as a save writes it: a damaged byte anywhere is refused or
	 * (a zstd frame header field that does not change what it decodes to,
	 * such as its window size) decodes to the same memo; every cut is refused
	 */
	CHECK(m.len > 8 && memcmp(m.data, SL_LMEMO_MAGIC3, 4) == 0);
	CHECK_OK(sl_lmemo_decode(m.data, m.len, &memo, &err), &err);
	CHECK_OK(sl_lmemo_encode_v2(&memo, &orig, &err), &err);
	sl_lmemo_free(&memo);
	for (size_t at = 0; at < m.len; at++)
		for (int way = 0; way < 2; way++)
		{
			uint8_t		flip = way ? 0xFF : 0x01;

			m.data[at] ^= flip;
			if (sl_lmemo_decode(m.data, m.len, &memo, &err) == 0)
			{
				swapped.len = 0;
				CHECK_OK(sl_lmemo_encode_v2(&memo, &swapped, &err), &err);
				CHECK(swapped.len == orig.len && memcmp(swapped.data, orig.data, orig.len) == 0);
				sl_lmemo_free(&memo);
			}
			else
				CHECK(err.code == SL_ERR_FORMAT);
			m.data[at] ^= flip;
		}
	for (size_t n = 0; n < m.len; n++)
		CHECK(sl_lmemo_decode(m.data, n, &memo, &err) == -1 && err.code == SL_ERR_FORMAT);
	/* version 2 (0.10.0 wrote it) is read as it was: the rest of this test takes it apart */
	m.len = 0;
	swapped.len = 0;
	sl_buf_put(&m, orig.data, orig.len, &err);
	CHECK(m.len >= SL_LMEMO_HEADER + 2 * SL_LMEMO_ENTRY);
	CHECK(sl_lmemo_decode(m.data, 3, &memo, &err) == -1 && err.code == SL_ERR_FORMAT);
	CHECK(sl_lmemo_decode(m.data, m.len - 1, &memo, &err) == -1 && err.code == SL_ERR_FORMAT);
	m.data[0] ^= 1;
	CHECK(sl_lmemo_decode(m.data, m.len, &memo, &err) == -1 && err.code == SL_ERR_FORMAT);
	m.data[0] ^= 1;
	/*
	 * a damaged byte anywhere (every byte, two ways) and every cut: refused
	 * (issue #33: what a memo entry says goes into the value unchecked)
	 */
	for (size_t at = 0; at < m.len; at += sl_test_cut_step(at))
		for (int way = 0; way < 2; way++)
		{
			uint8_t		flip = way ? 0xFF : 0x01;

			m.data[at] ^= flip;
			CHECK(sl_lmemo_decode(m.data, m.len, &memo, &err) == -1 && err.code == SL_ERR_FORMAT);
			m.data[at] ^= flip;
		}
	for (size_t n = 0; n < m.len; n += sl_test_cut_step(n))
		CHECK(sl_lmemo_decode(m.data, n, &memo, &err) == -1 && err.code == SL_ERR_FORMAT);
	m.data[m.len / 2] ^= 0x40;
	CHECK(sl_lmemo_decode(m.data, m.len, &memo, &err) == -1 && strstr(err.msg, "checksum"));
	m.data[m.len / 2] ^= 0x40;
	/* version 1 (0.9.0, no summaries) is no memo */
	memcpy(m.data, "SLM1", 4);
	CHECK(sl_lmemo_decode(m.data, m.len, &memo, &err) == -1 && err.code == SL_ERR_FORMAT);
	memcpy(m.data, SL_LMEMO_MAGIC, 4);
	/* entries out of order */
	e0 = entry_at(&m, 0);
	e1 = entry_at(&m, 1);
	e2 = entry_at(&m, 2);
	sl_buf_put(&swapped, m.data, e0, &err);
	sl_buf_put(&swapped, m.data + e1, e2 - e1, &err);
	sl_buf_put(&swapped, m.data + e0, e1 - e0, &err);
	sl_buf_put(&swapped, m.data + e2, m.len - e2, &err);
	reseal(&swapped);
	CHECK(sl_lmemo_decode(swapped.data, swapped.len, &memo, &err) == -1 && strstr(err.msg, "out of order"));
	/* an entry's summary that does not decode */
	m.data[e0 + SL_LMEMO_ENTRY + 4] = 9;
	reseal(&m);
	CHECK(sl_lmemo_decode(m.data, m.len, &memo, &err) == -1 && strstr(err.msg, "summary"));
	m.len = 0;
	sl_buf_put(&m, orig.data, orig.len, &err);
	/* a record length that runs past the chunk data is no match, not an error */
	sl_put_u32le(m.data + e0 + 8, 0x7fffffff);
	reseal(&m);
	CHECK_OK(sl_lmemo_decode(m.data, m.len, &memo, &err), &err);
	CHECK(memo_read(&file, &memo, got, &m, &reused, &stored) == 0 && reused == (int) memo.n - 1);
	sl_lmemo_free(&memo);
	/*
	 * a memo forged with a matching checksum, whose first entry names the
	 * second's store key: reused as it says, it gives another value than a
	 * whole read (what slime.loader_verify catches in a save)
	 */
	m.len = 0;
	sl_buf_put(&m, orig.data, orig.len, &err);
	memcpy(m.data + e0 + 28, orig.data + e1 + 28, 32);
	reseal(&m);
	CHECK_OK(sl_lmemo_decode(m.data, m.len, &memo, &err), &err);
	CHECK(whole_hash(&file, want) == 0);
	CHECK(memo_read(&file, &memo, got, &swapped, &reused, &stored) == 0 && reused == (int) memo.n);
	CHECK(memcmp(want, got, 32) != 0);
	sl_lmemo_free(&memo);
	sfg_free(&f);
	sl_buf_free(&file);
	sl_buf_free(&m);
	sl_buf_free(&orig);
	sl_buf_free(&swapped);
}

/*
 * The records list a pending save keeps: added to a memo, its records are
 * checked entries (found, not known: no store entry); a record the memo has
 * with another hash is replaced; a list of another context adds nothing; a
 * damaged list is refused and changes nothing; a stored memo keeps no
 * checked entry.
 */
void
test_lmemo_records(void)
{
	sfg_file	f;
	sl_buf		file = {0},
				m1 = {0},
				list = {0},
				back = {0};
	sl_lmemo	memo,
				empty,
				other;
	int			reused,
				stored;
	sl_err		err;

	sfg_v13(&f);
	reread(&f, &file, NULL, &m1, &reused, &stored);
	CHECK_OK(sl_lmemo_decode(m1.data, m1.len, &memo, &err), &err);
	CHECK_OK(sl_lmemo_encode_records(&memo, &list, &err), &err);
	CHECK(list.len == 25 + 28 * memo.n);
	/* into an empty memo: every record checked, none known */
	memset(&empty, 0, sizeof(empty));
	CHECK_OK(sl_lmemo_add_records(&empty, list.data, list.len, &err), &err);
	CHECK(empty.n == memo.n && empty.has_ctx && memcmp(empty.ctx, memo.ctx, SL_LMEMO_CTX) == 0);
	for (size_t i = 0; i < memo.n; i++)
	{
		const sl_lmemo_ent *e = sl_lmemo_find(&empty, memo.ctx, memo.e[i].x, memo.e[i].z);

		CHECK(e != NULL && e->checked && !e->known && e->rec_len == memo.e[i].rec_len &&
			  memcmp(e->xxh, memo.e[i].xxh, 16) == 0);
	}
	/* a stored memo keeps no checked entry */
	CHECK_OK(sl_lmemo_encode(&empty, &back, &err), &err);
	sl_lmemo_free(&empty);
	CHECK(sl_lmemo_decode(back.data, back.len, &empty, &err) != 0 || empty.n == 0);
	sl_lmemo_free(&empty);
	/* a record the memo has with another hash is replaced; the others stay known */
	memo.e[0].xxh[0] ^= 1;
	CHECK_OK(sl_lmemo_add_records(&memo, list.data, list.len, &err), &err);
	{
		const sl_lmemo_ent *e0 = sl_lmemo_find(&memo, memo.ctx, memo.e[0].x, memo.e[0].z);
		size_t		known = 0;

		CHECK(e0 != NULL && e0->checked && !e0->known);
		for (size_t i = 0; i < memo.n; i++)
			known += memo.e[i].known;
		CHECK(known == memo.n - 1);
	}
	/* another context: nothing added */
	memset(&other, 0, sizeof(other));
	other.has_ctx = 1;
	memcpy(other.ctx, memo.ctx, SL_LMEMO_CTX);
	other.ctx[0] ^= 1;
	CHECK_OK(sl_lmemo_add_records(&other, list.data, list.len, &err), &err);
	CHECK(other.n == 0);
	/* a damaged list: refused, nothing added */
	for (size_t at = 0; at < list.len; at += 7)
	{
		list.data[at] ^= 0x10;
		CHECK(sl_lmemo_add_records(&other, list.data, list.len, &err) != 0 && err.code == SL_ERR_FORMAT);
		list.data[at] ^= 0x10;
	}
	CHECK(other.n == 0);
	CHECK(sl_lmemo_add_records(&other, list.data, list.len - 1, &err) != 0);
	sl_lmemo_free(&other);
	sl_lmemo_free(&memo);
	sfg_free(&f);
	sl_buf_free(&file);
	sl_buf_free(&m1);
	sl_buf_free(&list);
	sl_buf_free(&back);
}

/*
 * A version-13 file whose chunk block is a frame a record (the count with
 * the first), as a loader's framed form cuts it: file into out, each
 * frame's lengths and key (the XXH3-128 of its raw bytes) into fr.
 */
static void
framed_file(const sl_buf *file, sl_buf *out, sl_sffr_frame fr[8], uint32_t *n)
{
	sl_builder	b;
	sl_lmemo	recs;
	sl_buf		raw = {0};
	sl_err		err;
	size_t		at = 0,
				clen = sl_get_u32be(file->data + 8);

	memset(&b, 0, sizeof(b));
	memset(&recs, 0, sizeof(recs));
	CHECK_OK(sl_slimefile_read_memo(file->data, file->len, NULL, &b, NULL, NULL, &recs, &raw, &err), &err);
	CHECK(recs.n >= 2 && recs.n <= 8);
	out->len = 0;
	sl_buf_put(out, file->data, 8, &err);
	sl_buf_put_u32be(out, 0, &err);
	sl_buf_put_u32be(out, (uint32_t) raw.len, &err);
	for (uint32_t i = 0; i < recs.n; i++)
	{
		size_t		len = recs.e[i].rec_len + (i == 0 ? 4 : 0);
		size_t		bound = ZSTD_compressBound(len),
					start = out->len;

		sl_buf_reserve(out, bound, &err);
		out->len += ZSTD_compress(out->data + start, bound, raw.data + at, len, 3);
		fr[i].clen = (uint32_t) (out->len - start);
		fr[i].rlen = (uint32_t) len;
		sl_lmemo_xxh(raw.data + at, len, fr[i].key);
		at += len;
	}
	CHECK(at == raw.len);
	sl_put_u32be(out->data + 8, (uint32_t) (out->len - 16));
	sl_buf_put(out, file->data + 16 + clen, file->len - 16 - clen, &err);
	*n = (uint32_t) recs.n;
	sl_lmemo_free(&recs);
	sl_builder_free(&b);
	sl_buf_free(&raw);
}

/*
 * A file kept in frames read frame by frame (a catch-up): the value a whole
 * read gives; a frame that is a record the memo knows is not decompressed
 * (its bytes damaged, the read gives the same value), the others are; a
 * frame table that is not the block's is an error.
 */
void
test_lmemo_frames(void)
{
	sfg_file	f;
	sl_buf		file = {0},
				framed = {0},
				m1 = {0},
				m2 = {0};
	sl_sffr_frame fr[8];
	uint32_t	n;
	sl_lmemo	memo;
	uint8_t		want[32],
				got[32];
	int			reused,
				stored;
	size_t		light;
	sl_err		err;

	sfg_v13(&f);
	reread(&f, &file, NULL, &m1, &reused, &stored);
	framed_file(&file, &framed, fr, &n);
	CHECK(n == 2);
	CHECK(whole_hash(&framed, want) == 0);
	/* no memo: every frame read, every chunk stored */
	CHECK_OK(value_read(&framed, fr, n, NULL, got, NULL, &reused, &stored, &err), &err);
	CHECK(memcmp(got, want, 32) == 0 && reused == 0 && stored == 2);
	/* the first read's memo: both reused, the second frame not even decompressed */
	CHECK_OK(sl_lmemo_decode(m1.data, m1.len, &memo, &err), &err);
	CHECK_OK(value_read(&framed, fr, n, &memo, got, NULL, &reused, &stored, &err), &err);
	CHECK(memcmp(got, want, 32) == 0 && reused == 2 && stored == 0);
	framed.data[16 + fr[0].clen + fr[1].clen / 2] ^= 0x5A;
	CHECK_OK(value_read(&framed, fr, n, &memo, got, NULL, &reused, &stored, &err), &err);
	CHECK(memcmp(got, want, 32) == 0 && reused == 2);
	/* ... which a read of the whole block finds (an error, or another value: these frames have no checksum) */
	CHECK(value_read(&framed, fr, n, NULL, got, NULL, &reused, &stored, &err) != 0 || memcmp(got, want, 32) != 0);
	framed.data[16 + fr[0].clen + fr[1].clen / 2] ^= 0x5A;
	/* the first chunk changed (a light byte): its frame read and stored, the second taken unread */
	for (light = 0; light < f.chunks.len && f.chunks.data[light] != 0x11; light++)
		;
	CHECK(light < f.chunks.len);
	f.chunks.data[light + 100] = 0x12;
	reread(&f, &file, NULL, &m2, &reused, &stored);
	framed_file(&file, &framed, fr, &n);
	CHECK(whole_hash(&framed, want) == 0);
	CHECK_OK(value_read(&framed, fr, n, &memo, got, NULL, &reused, &stored, &err), &err);
	CHECK(memcmp(got, want, 32) == 0 && reused == 1 && stored == 1);
	/* a frame whose key no record of the memo has: decompressed and read */
	fr[1].key[0] ^= 1;
	CHECK_OK(value_read(&framed, fr, n, &memo, got, NULL, &reused, &stored, &err), &err);
	CHECK(memcmp(got, want, 32) == 0 && reused == 1 && stored == 1);
	fr[1].key[0] ^= 1;
	/* a frame table that is not the block's: refused */
	fr[1].rlen += 1;
	CHECK(value_read(&framed, fr, n, &memo, got, NULL, &reused, &stored, &err) != 0 && err.code == SL_ERR_FORMAT);
	fr[1].rlen -= 1;
	fr[0].clen -= 1;
	CHECK(value_read(&framed, fr, n, &memo, got, NULL, &reused, &stored, &err) != 0 && err.code == SL_ERR_FORMAT);
	fr[0].clen += 1;
	CHECK(value_read(&framed, fr, 1, &memo, got, NULL, &reused, &stored, &err) != 0 && err.code == SL_ERR_FORMAT);
	/* a count of one chunk where the frames hold two records: the second is bytes after the last chunk */
	{
		sl_buf		one = {0};
		uint8_t    *raw0 = sl_alloc(fr[0].rlen);
		size_t		bound = ZSTD_compressBound(fr[0].rlen);
		sl_sffr_frame fr1[2] = {fr[0], fr[1]};

		CHECK(ZSTD_decompress(raw0, fr[0].rlen, framed.data + 16, fr[0].clen) == fr[0].rlen);
		sl_put_u32be(raw0, 1);
		sl_buf_put(&one, framed.data, 16, &err);
		sl_buf_reserve(&one, bound, &err);
		one.len += ZSTD_compress(one.data + 16, bound, raw0, fr[0].rlen, 3);
		fr1[0].clen = (uint32_t) (one.len - 16);
		sl_buf_put(&one, framed.data + 16 + fr[0].clen, framed.len - 16 - fr[0].clen, &err);
		sl_put_u32be(one.data + 8, fr1[0].clen + fr[1].clen);
		CHECK(value_read(&one, fr1, 2, &memo, got, NULL, &reused, &stored, &err) != 0 && err.code == SL_ERR_FORMAT &&
			  strstr(err.msg, "after the last of 1 chunks") != NULL);
		/* the same with every frame decompressed (no memo): the second record is left in them */
		CHECK(value_read(&one, fr1, 2, NULL, got, NULL, &reused, &stored, &err) != 0 && err.code == SL_ERR_FORMAT &&
			  strstr(err.msg, "after the last of 1 chunks") != NULL);
		sl_free(raw0);
		sl_buf_free(&one);
	}
	sl_lmemo_free(&memo);
	sfg_free(&f);
	sl_buf_free(&file);
	sl_buf_free(&framed);
	sl_buf_free(&m1);
	sl_buf_free(&m2);
}
