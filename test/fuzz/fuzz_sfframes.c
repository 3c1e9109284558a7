/*
 * fuzz_sfframes.c - libFuzzer target for the framed form of a loader's kept
 * file (sl_sfframes, issue #34), differential.
 *
 * Input: u8 what, u16le where, then a slime file.
 *
 * Invariants, for every version-13 file the reader accepts:
 *   - its framed form builds, and the file the form gives back has the
 *     file's header, raw chunk block (the frames decoded as one stream, as
 *     ASP's one Zstd.decompress does) and extra block;
 *   - built again with its own directory as the previous one, it makes no
 *     frame and the same directory;
 *   - read back frame by frame (sl_slimefile_read_frames) with the memo of
 *     its own conversion, it notes the same records and, when every record
 *     is in the memo, gives the same value; with a frame's key changed it
 *     reads that frame and notes the same records, with a frame's length
 *     off by one it fails;
 *   - damaged, it gives nothing else: one byte of the directory changed
 *     (what even: the byte at where mod its length) fails to open, one byte
 *     of a frame changed (what odd) fails to assemble.
 */
#include "fuzz_common.h"

#include <zstd.h>

#include "sl_build.h"
#include "sl_lmemo.h"
#include "sl_sfframes.h"
#include "sl_slimefile.h"

/* The frames of one build, found by key (sl_sffr_find_fn). */
static int
find_built(void *ctx, const uint8_t key[SL_SFFR_KEY], const uint8_t **data, size_t *len, sl_err *err)
{
	const sl_sffr_built *b = ctx;

	for (uint32_t i = 0; i < b->nnew; i++)
	{
		const sl_sffr_frame *f = &b->f[b->news[i].index];

		if (memcmp(f->key, key, SL_SFFR_KEY) == 0)
		{
			*data = b->bytes.data + b->news[i].off;
			*len = f->clen;
			return 0;
		}
	}
	return 1;
}

/* Take a store entry and keep nothing (sl_lmemo_put_fn). */
static int
put_none(void *ctx, const uint8_t hash[32], const uint8_t *entry, size_t len, sl_err *err)
{
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *file = data + 3;
	size_t		len = size - 3;
	sl_builder	b;
	sl_lmemo	out;
	sl_buf		raw = {0},
				back = {0};
	sl_slimefile_info info;
	sl_sffr_built fr,
				again;
	sl_sffr_dir d;
	size_t	   *ends;
	uint8_t		(*keys)[SL_SFFR_KEY];
	size_t		at = 4;
	sl_err		err;
	uint8_t    *dec;

	if (size < 3)
		return 0;
	memset(&b, 0, sizeof(b));
	memset(&out, 0, sizeof(out));
	if (sl_slimefile_read_memo(file, len, &fuzz_limits, &b, &info, NULL, &out, &raw, &err) || info.version != 13)
		goto done;
	ends = sl_alloc(sizeof(size_t) * (out.n ? out.n : 1));
	keys = sl_alloc(SL_SFFR_KEY * (out.n ? out.n : 1));
	for (size_t i = 0; i < out.n; i++)
	{
		ends[i] = (at += out.e[i].rec_len);
		memcpy(keys[i], out.e[i].xxh, SL_SFFR_KEY);
	}
	if (sl_sffr_build(file, len, raw.data, raw.len, ends, NULL, out.n, NULL, 1, &fr, &err))
	{
		fuzz_check_any_err(&err);
		FUZZ_CHECK(err.code == SL_ERR_LIMIT || err.code == SL_ERR_NOMEM, "a file read is not framed: %s", err.msg);
		sl_free(ends);
		sl_free(keys);
		goto done;
	}
	/* what it gives back is the file */
	FUZZ_CHECK(sl_sffr_open(fr.dir.data, fr.dir.len, &d, &err) == 0, "own directory: %s", err.msg);
	FUZZ_CHECK(sl_sffr_assemble(&d, find_built, &fr, &back, &err) == 0, "own frames: %s", err.msg);
	FUZZ_CHECK(back.len >= 16 && memcmp(back.data, file, 8) == 0, "header");
	dec = sl_alloc(raw.len + 1);
	FUZZ_CHECK(ZSTD_decompress(dec, raw.len + 1, back.data + 16, sl_get_u32be(back.data + 8)) == raw.len &&
			   sl_get_u32be(back.data + 12) == raw.len && memcmp(dec, raw.data, raw.len) == 0,
			   "the frames do not decode to the chunk block");
	sl_free(dec);
	{
		size_t		xa = 16 + sl_get_u32be(file + 8),
					xb = 16 + sl_get_u32be(back.data + 8);

		FUZZ_CHECK(len - xa == back.len - xb && memcmp(file + xa, back.data + xb, len - xa) == 0, "extra block");
	}
	/* a load's placer: each key wanted until its row is placed, the same file */
	{
		sl_sffr_placer p;
		uint8_t    *buf = sl_alloc(back.len);

		FUZZ_CHECK(sl_sffr_file_len(&d) == back.len && sl_sffr_placer_init(&p, &d, buf, &err) == 0, "placer: %s",
				   err.msg);
		for (uint32_t i = 0; i < d.n; i++)
		{
			const uint8_t *fd;
			size_t		fn;

			FUZZ_CHECK(sl_sffr_wants(&p, d.f[i].key, SL_SFFR_KEY) == (p.state[i] != SL_SFFR_PLACED),
					   "entry %u wanted %d, placed %d", (unsigned) i, sl_sffr_wants(&p, d.f[i].key, SL_SFFR_KEY),
					   p.state[i] == SL_SFFR_PLACED);
			FUZZ_CHECK(find_built(&fr, d.f[i].key, &fd, &fn, &err) == 0, "entry %u: no frame", (unsigned) i);
			sl_sffr_place(&p, d.f[i].key, SL_SFFR_KEY, fd, fn);
			FUZZ_CHECK(!sl_sffr_wants(&p, d.f[i].key, SL_SFFR_KEY), "entry %u wanted once placed", (unsigned) i);
		}
		FUZZ_CHECK(sl_sffr_placer_finish(&p, &err) == 0 && memcmp(buf, back.data, back.len) == 0, "placer's file");
		sl_sffr_placer_free(&p);
		sl_free(buf);
	}
	/*
	 * a catch-up's read of the framed file, frame by frame: with the memo
	 * of the file's own conversion (every record known), the records noted
	 * and the value are those of that conversion, the frames of single
	 * records taken unread
	 */
	if (sl_lmemo_store_chunks(&b, &out, 1, &fuzz_limits, put_none, NULL, &err) == 0)
	{
		sl_buf		m = {0},
					v1 = {0},
					v2 = {0};
		sl_lmemo	memo,
					out2;
		sl_builder	b2;

		memset(&memo, 0, sizeof(memo));
		memset(&out2, 0, sizeof(out2));
		memset(&b2, 0, sizeof(b2));
		if (out.has_ctx && sl_lmemo_encode(&out, &m, &err) == 0 && sl_lmemo_decode(m.data, m.len, &memo, &err) == 0 &&
			sl_builder_encode(&b, NULL, NULL, &v1, &err) == 0)
		{
			FUZZ_CHECK(sl_slimefile_read_frames(back.data, back.len, &fuzz_limits, &b2, NULL, &memo, &out2, d.f, d.n,
												&err) == 0, "framed read: %s", err.msg);
			FUZZ_CHECK(out2.n == out.n, "framed read noted %zu records, the whole read %zu", out2.n, out.n);
			/*
			 * the same records: the framed read notes them in the file's
			 * order, out is sorted by chunk since its conversion (a file's
			 * chunks need not be in that order), so each is found by chunk
			 */
			for (size_t i = 0; i < out2.n; i++)
			{
				size_t		j = 0;

				while (j < out.n && (out.e[j].x != out2.e[i].x || out.e[j].z != out2.e[i].z))
					j++;
				FUZZ_CHECK(j < out.n && out2.e[i].rec_len == out.e[j].rec_len &&
						   memcmp(out2.e[i].xxh, out.e[j].xxh, 16) == 0,
						   "framed read: record %zu, chunk (%d,%d), differs", i, out2.e[i].x, out2.e[i].z);
			}
			/* a frame table not the block's (a length off by one) fails; another key reads that frame */
			if (d.n > 0)
			{
				sl_sffr_frame *bad = sl_alloc(sizeof(sl_sffr_frame) * d.n);
				uint32_t	j = sl_get_u16be(data + 1) % d.n;
				int			how = (data[0] >> 1) % 3;
				sl_lmemo	out3;
				sl_builder	b3;
				int			rc;

				memcpy(bad, d.f, sizeof(sl_sffr_frame) * d.n);
				if (how == 0)
					bad[j].key[0] ^= 1;
				else if (how == 1)
					bad[j].rlen += 1;
				else
					bad[j].clen += 1;
				memset(&out3, 0, sizeof(out3));
				memset(&b3, 0, sizeof(b3));
				rc = sl_slimefile_read_frames(back.data, back.len, &fuzz_limits, &b3, NULL, &memo, &out3, bad, d.n, &err);
				FUZZ_CHECK(how == 0 ? rc == 0 && out3.n == out.n : rc != 0 && err.code == SL_ERR_FORMAT,
						   "frame table changed (%d at frame %u): read %d", how, (unsigned) j, rc);
				sl_lmemo_free(&out3);
				sl_builder_free(&b3);
				sl_free(bad);
			}
			if (memo.n == out.n)
			{
				FUZZ_CHECK(sl_lmemo_store_chunks(&b2, &out2, 1, &fuzz_limits, put_none, NULL, &err) == 0 &&
						   sl_builder_encode(&b2, NULL, NULL, &v2, &err) == 0, "framed read's value: %s", err.msg);
				FUZZ_CHECK(v1.len == v2.len && memcmp(v1.data, v2.data, v1.len) == 0, "framed read: another value");
			}
		}
		sl_buf_free(&m);
		sl_buf_free(&v1);
		sl_buf_free(&v2);
		sl_lmemo_free(&memo);
		sl_lmemo_free(&out2);
		sl_builder_free(&b2);
	}
	/* again, against itself, the records' keys the reader's (as a save gives them): nothing new */
	FUZZ_CHECK(sl_sffr_build(file, len, raw.data, raw.len, ends, (const uint8_t (*)[SL_SFFR_KEY]) keys, out.n, &d, 1,
							 &again, &err) == 0, "again: %s", err.msg);
	FUZZ_CHECK(again.nnew == 0 && again.dir.len == fr.dir.len && memcmp(again.dir.data, fr.dir.data, fr.dir.len) == 0,
			   "a second build of the same file differs");
	sl_sffr_built_free(&again);
	/* damaged: nothing else */
	if ((data[0] & 1) == 0)
	{
		size_t		o = sl_get_u16be(data + 1) % fr.dir.len;
		sl_sffr_dir dd;

		fr.dir.data[o] ^= (uint8_t) (1 + (data[0] >> 1));
		FUZZ_CHECK(sl_sffr_open(fr.dir.data, fr.dir.len, &dd, &err) != 0, "directory byte %zu damaged opens", o);
		fr.dir.data[o] ^= (uint8_t) (1 + (data[0] >> 1));
	}
	else if (fr.bytes.len > 0)
	{
		size_t		o = sl_get_u16be(data + 1) % fr.bytes.len;

		fr.bytes.data[o] ^= (uint8_t) (1 + (data[0] >> 1));
		back.len = 0;
		FUZZ_CHECK(sl_sffr_assemble(&d, find_built, &fr, &back, &err) != 0 && err.code == SL_ERR_CORRUPT,
				   "frame byte %zu damaged assembles", o);
	}
	sl_sffr_dir_free(&d);
	sl_sffr_built_free(&fr);
	sl_free(ends);
	sl_free(keys);
done:
	sl_buf_free(&back);
	sl_buf_free(&raw);
	sl_lmemo_free(&out);
	sl_builder_free(&b);
	return 0;
}
