/*
 * test_sfframes.c - the framed form of a loader's kept file (sl_sfframes):
 * the file it gives back holds the saved file's header, raw chunk block
 * and extra block (zstd reads the frames back to back as one block); a
 * save with a previous directory compresses only the groups whose bytes
 * changed, and a record that changes size moves no other group; a damaged
 * byte of the directory or of a frame, or a frame missing, is an error.
 */
#include "harness.h"

#include <zstd.h>

#include "sl_lmemo.h"
#include "sl_sfframes.h"

/* A made-up version-13 file: its raw chunk block and where each record ends. */
typedef struct ff_file
{
	sl_buf		file;
	sl_buf		raw;
	size_t		ends[64];
	size_t		n;
} ff_file;

/* Append a record of chunk (x, z) of len bytes (its bytes follow from seed). */
static void
ff_record(ff_file *f, int32_t x, int32_t z, size_t len, uint32_t seed)
{
	uint8_t		xz[8];

	sl_put_u32be(xz, (uint32_t) x);
	sl_put_u32be(xz + 4, (uint32_t) z);
	sl_buf_put(&f->raw, xz, 8, NULL);
	for (size_t i = 8; i < len; i++)
	{
		/* compressible, but not to nothing */
		uint8_t		b = (uint8_t) ((i / 7) * 31 + seed * 17 + (i % 5 == 0 ? seed : 0));

		sl_buf_put_u8(&f->raw, b, NULL);
	}
	f->ends[f->n++] = f->raw.len;
}

/* Append "u32be compressed, u32be raw, zstd frame" of raw (a file's block, as zstd-jni writes it). */
static void
ff_block(sl_buf *out, const uint8_t *raw, size_t len)
{
	size_t		bound = ZSTD_compressBound(len);
	size_t		at;

	sl_buf_put_u32be(out, 0, NULL);
	sl_buf_put_u32be(out, (uint32_t) len, NULL);
	at = out->len;
	sl_buf_reserve(out, bound, NULL);
	out->len += ZSTD_compress(out->data + at, bound, raw, len, 3);
	sl_put_u32be(out->data + at - 8, (uint32_t) (out->len - at));
}

/* Build the file of f's records (count first) with an extra block. */
static void
ff_finish(ff_file *f)
{
	const uint8_t head[8] = {0xB1, 0x0B, 0x0D, 0x00, 0x00, 0x0E, 0x74, 0x00};
	const uint8_t extra[] = {0x0A, 0x00, 0x00, 0x00};
	uint32_t	count = (uint32_t) f->n;

	sl_put_u32be(f->raw.data, count);
	f->file.len = 0;
	sl_buf_put(&f->file, head, sizeof(head), NULL);
	ff_block(&f->file, f->raw.data, f->raw.len);
	ff_block(&f->file, extra, sizeof(extra));
}

/* Start a file: the chunk count's four bytes. */
static void
ff_start(ff_file *f)
{
	memset(f, 0, sizeof(*f));
	sl_buf_put_u32be(&f->raw, 0, NULL);
}

static void
ff_free(ff_file *f)
{
	sl_buf_free(&f->file);
	sl_buf_free(&f->raw);
}

/* The frames a test keeps: (key, bytes) of every frame any build made. */
typedef struct ff_store
{
	uint8_t		key[256][SL_SFFR_KEY];
	sl_buf		bytes[256];
	int			n;
	int			hide;			/* a key index find says is absent, -1 none */
} ff_store;

/* Keep the new frames of a build. */
static void
ff_keep(ff_store *s, const sl_sffr_built *b)
{
	for (uint32_t i = 0; i < b->nnew; i++)
	{
		const sl_sffr_frame *f = &b->f[b->news[i].index];

		memcpy(s->key[s->n], f->key, SL_SFFR_KEY);
		memset(&s->bytes[s->n], 0, sizeof(sl_buf));
		sl_buf_put(&s->bytes[s->n], b->bytes.data + b->news[i].off, f->clen, NULL);
		s->n++;
	}
}

/* Find a kept frame (sl_sffr_find_fn). */
static int
ff_find(void *ctx, const uint8_t key[SL_SFFR_KEY], const uint8_t **data, size_t *len, sl_err *err)
{
	ff_store   *s = ctx;

	for (int i = s->n - 1; i >= 0; i--)
		if (memcmp(s->key[i], key, SL_SFFR_KEY) == 0)
		{
			if (i == s->hide)
				return 1;
			*data = s->bytes[i].data;
			*len = s->bytes[i].len;
			return 0;
		}
	return 1;
}

static void
ff_store_free(ff_store *s)
{
	for (int i = 0; i < s->n; i++)
		sl_buf_free(&s->bytes[i]);
}

/*
 * Build the framed form of f (prev: a directory's bytes, or NULL), given
 * each record's key as a save gives them (the memo's XXH3-128); the same
 * built with no keys given (each group hashed) must have the same
 * directory.
 */
static int
ff_build(const ff_file *f, const sl_buf *prev, sl_sffr_built *b, sl_err *err)
{
	sl_sffr_dir pd;
	sl_sffr_built unkeyed;
	uint8_t		keys[64][SL_SFFR_KEY];
	int			rc;

	for (size_t i = 0; i < f->n; i++)
		sl_lmemo_xxh(f->raw.data + (i ? f->ends[i - 1] : 4), f->ends[i] - (i ? f->ends[i - 1] : 4), keys[i]);
	if (prev && sl_sffr_open(prev->data, prev->len, &pd, err))
		return -1;
	rc = sl_sffr_build(f->file.data, f->file.len, f->raw.data, f->raw.len, f->ends,
					   (const uint8_t (*)[SL_SFFR_KEY]) keys, f->n, prev ? &pd : NULL, 3, b, err);
	if (rc == 0)
	{
		if (sl_sffr_build(f->file.data, f->file.len, f->raw.data, f->raw.len, f->ends, NULL, f->n,
						  prev ? &pd : NULL, 3, &unkeyed, err))
			rc = -1;
		else
		{
			if (unkeyed.dir.len != b->dir.len || memcmp(unkeyed.dir.data, b->dir.data, b->dir.len) != 0)
				rc = sl_fail(err, SL_ERR_CORRUPT, "the records' keys given make another directory");
			sl_sffr_built_free(&unkeyed);
		}
		if (rc)
			sl_sffr_built_free(b);
	}
	if (prev)
		sl_sffr_dir_free(&pd);
	return rc;
}

/* Whether the file a directory gives back holds f: header, raw chunk block (every frame decoded as one) and extra block. */
static int
ff_gives(const sl_buf *dir, ff_store *s, const ff_file *f)
{
	sl_sffr_dir d;
	sl_buf		out = {0};
	sl_err		err;
	uint8_t    *raw;
	size_t		clen,
				got;
	int			same;

	if (sl_sffr_open(dir->data, dir->len, &d, &err))
		return 0;
	if (sl_sffr_assemble(&d, ff_find, s, &out, &err))
	{
		sl_sffr_dir_free(&d);
		return 0;
	}
	sl_sffr_dir_free(&d);
	clen = sl_get_u32be(out.data + 8);
	raw = sl_alloc(f->raw.len + 1);
	got = ZSTD_decompress(raw, f->raw.len + 1, out.data + 16, clen);
	same = memcmp(out.data, f->file.data, 8) == 0 &&
		sl_get_u32be(out.data + 12) == f->raw.len &&
		got == f->raw.len && memcmp(raw, f->raw.data, f->raw.len) == 0 &&
		out.len - 16 - clen == f->file.len - 16 - sl_get_u32be(f->file.data + 8) &&
		memcmp(out.data + 16 + clen, f->file.data + 16 + sl_get_u32be(f->file.data + 8), out.len - 16 - clen) == 0;
	sl_free(raw);
	sl_buf_free(&out);
	return same;
}

/* An island: large records alone, small ones grouped by position; what a load gives is the file. */
void
test_sfframes_round_trip(void)
{
	ff_file		f;
	ff_store	s = {.hide = -1};
	sl_sffr_built b;
	sl_err		err;
	uint32_t	big = 0;

	ff_start(&f);
	for (int i = 0; i < 12; i++)
		ff_record(&f, i % 4, i / 4, i % 3 == 0 ? 40000 : 3000 + 100 * i, (uint32_t) i);
	ff_finish(&f);
	CHECK_OK(ff_build(&f, NULL, &b, &err), &err);
	CHECK(b.nnew == b.n && b.n >= 5 && b.n <= 12);
	for (uint32_t i = 0; i < b.n; i++)
		big += b.f[i].rlen >= 40000;
	CHECK(big == 4);			/* each large record is a frame of its own */
	CHECK(sl_sffr_is(b.dir.data, b.dir.len));
	ff_keep(&s, &b);
	CHECK(ff_gives(&b.dir, &s, &f));
	sl_sffr_built_free(&b);

	/* an empty world: the count alone is the one frame */
	ff_free(&f);
	ff_start(&f);
	ff_finish(&f);
	CHECK_OK(ff_build(&f, NULL, &b, &err), &err);
	CHECK(b.n == 1 && b.f[0].rlen == 4);
	ff_keep(&s, &b);
	CHECK(ff_gives(&b.dir, &s, &f));
	sl_sffr_built_free(&b);
	ff_free(&f);
	ff_store_free(&s);
}

/* A save with the previous directory compresses only the groups that changed, even when a record changes size. */
void
test_sfframes_only_what_changed(void)
{
	ff_file		f;
	ff_store	s = {.hide = -1};
	sl_sffr_built b1,
				b2;
	sl_err		err;
	uint32_t	same = 0;

	ff_start(&f);
	for (int i = 0; i < 25; i++)
		ff_record(&f, i % 5, i / 5, i % 2 ? 20000 : 2000, (uint32_t) i);
	ff_finish(&f);
	CHECK_OK(ff_build(&f, NULL, &b1, &err), &err);
	ff_keep(&s, &b1);
	/* the same file again: nothing new */
	CHECK_OK(ff_build(&f, &b1.dir, &b2, &err), &err);
	CHECK(b2.nnew == 0 && b2.n == b1.n);
	CHECK(b2.dir.len == b1.dir.len && memcmp(b2.dir.data, b1.dir.data, b1.dir.len) == 0);
	sl_sffr_built_free(&b2);
	/* small record 12 grows by 300 bytes, large record 13 changes a byte */
	ff_free(&f);
	ff_start(&f);
	for (int i = 0; i < 25; i++)
		ff_record(&f, i % 5, i / 5, (i % 2 ? 20000 : 2000) + (i == 12 ? 300 : 0), (uint32_t) i + (i == 13 ? 99 : 0));
	ff_finish(&f);
	CHECK_OK(ff_build(&f, &b1.dir, &b2, &err), &err);
	CHECK(b2.nnew == 2 && b2.n == b1.n);
	for (uint32_t i = 0; i < b2.n; i++)
		for (uint32_t j = 0; j < b1.n; j++)
			same += memcmp(&b2.f[i], &b1.f[j], sizeof(sl_sffr_frame)) == 0;
	CHECK(same == b1.n - 2);
	ff_keep(&s, &b2);
	CHECK(ff_gives(&b2.dir, &s, &f));
	sl_sffr_built_free(&b1);
	sl_sffr_built_free(&b2);
	ff_free(&f);
	ff_store_free(&s);
}

/* Every byte of a directory damaged, every length cut short: an error, never another file. */
void
test_sfframes_damage(void)
{
	ff_file		f;
	ff_store	s = {.hide = -1};
	sl_sffr_built b;
	sl_sffr_dir d;
	sl_buf		out = {0};
	sl_err		err;
	int			refused = 0;

	ff_start(&f);
	for (int i = 0; i < 6; i++)
		ff_record(&f, i, -i, i % 2 ? 18000 : 900, (uint32_t) i);
	ff_finish(&f);
	CHECK_OK(ff_build(&f, NULL, &b, &err), &err);
	ff_keep(&s, &b);
	for (size_t i = 0; i < b.dir.len; i++)
		for (int bit = 0; bit < 8; bit++)
		{
			b.dir.data[i] ^= (uint8_t) (1 << bit);
			if (sl_sffr_open(b.dir.data, b.dir.len, &d, &err) == 0)
				sl_sffr_dir_free(&d);
			else
				refused++;
			b.dir.data[i] ^= (uint8_t) (1 << bit);
		}
	CHECK(refused == (int) b.dir.len * 8);
	for (size_t n = 0; n < b.dir.len; n++)
		CHECK(sl_sffr_open(b.dir.data, n, &d, &err) != 0);
	/* a frame damaged, cut or missing */
	CHECK_OK(sl_sffr_open(b.dir.data, b.dir.len, &d, &err), &err);
	for (int i = 0; i < s.n; i++)
		for (size_t o = 0; o < s.bytes[i].len; o += 7)
		{
			s.bytes[i].data[o] ^= 0x20;
			out.len = 0;
			CHECK(sl_sffr_assemble(&d, ff_find, &s, &out, &err) != 0 && err.code == SL_ERR_CORRUPT);
			s.bytes[i].data[o] ^= 0x20;
		}
	s.bytes[0].len--;
	CHECK(sl_sffr_assemble(&d, ff_find, &s, &out, &err) != 0 && strstr(err.msg, "length") != NULL);
	s.bytes[0].len++;
	s.hide = s.n - 1;
	CHECK(sl_sffr_assemble(&d, ff_find, &s, &out, &err) != 0 && strstr(err.msg, "missing") != NULL);
	s.hide = -1;
	out.len = 0;
	CHECK_OK(sl_sffr_assemble(&d, ff_find, &s, &out, &err), &err);
	/* the placer (a load's rows), given the rows backwards and a key the directory lacks, makes the same bytes */
	{
		sl_sffr_placer p;
		uint8_t    *file = sl_alloc(out.len);
		uint8_t		stray[SL_SFFR_KEY];

		memset(stray, 0xA5, sizeof(stray));
		CHECK(sl_sffr_file_len(&d) == out.len);
		CHECK_OK(sl_sffr_placer_init(&p, &d, file, &err), &err);
		/* a load reads a row's bytes only when it is wanted: a named key not yet placed */
		CHECK(!sl_sffr_wants(&p, stray, SL_SFFR_KEY));
		CHECK(!sl_sffr_wants(&p, s.key[0], SL_SFFR_KEY - 1));
		sl_sffr_place(&p, stray, SL_SFFR_KEY, s.bytes[0].data, s.bytes[0].len);
		sl_sffr_place(&p, s.key[0], SL_SFFR_KEY - 1, s.bytes[0].data, s.bytes[0].len);
		for (int i = s.n - 1; i >= 0; i--)
		{
			CHECK(sl_sffr_wants(&p, s.key[i], SL_SFFR_KEY));
			sl_sffr_place(&p, s.key[i], SL_SFFR_KEY, s.bytes[i].data, s.bytes[i].len);
			CHECK(!sl_sffr_wants(&p, s.key[i], SL_SFFR_KEY));
		}
		CHECK_OK(sl_sffr_placer_finish(&p, &err), &err);
		CHECK(memcmp(file, out.data, out.len) == 0);
		sl_sffr_placer_free(&p);
		/* the file's first frame missing and its last damaged: the first is named, in the file's order */
		CHECK(d.n >= 2);
		CHECK_OK(sl_sffr_placer_init(&p, &d, file, &err), &err);
		for (int i = s.n - 1; i >= 0; i--)
		{
			int			last = memcmp(s.key[i], d.f[d.n - 1].key, SL_SFFR_KEY) == 0;

			if (memcmp(s.key[i], d.f[0].key, SL_SFFR_KEY) == 0)
				continue;
			s.bytes[i].data[0] ^= (uint8_t) last;
			sl_sffr_place(&p, s.key[i], SL_SFFR_KEY, s.bytes[i].data, s.bytes[i].len);
			s.bytes[i].data[0] ^= (uint8_t) last;
			/* a damaged row leaves its entry wanted: another row of its key may still place it */
			CHECK(sl_sffr_wants(&p, s.key[i], SL_SFFR_KEY) == last);
		}
		CHECK(sl_sffr_placer_finish(&p, &err) != 0 && err.code == SL_ERR_CORRUPT &&
			  strncmp(err.msg, "frame 0 ", 8) == 0 && strstr(err.msg, "missing") != NULL);
		sl_sffr_placer_free(&p);
		sl_free(file);
	}
	sl_sffr_dir_free(&d);
	CHECK(ff_gives(&b.dir, &s, &f));
	sl_sffr_built_free(&b);
	/* a file that is not version 13, or whose blocks are not the ones read, is refused */
	f.file.data[2] = 12;
	CHECK(sl_sffr_build(f.file.data, f.file.len, f.raw.data, f.raw.len, f.ends, NULL, f.n, NULL, 3, &b, &err) != 0 ||
		  (sl_sffr_built_free(&b), 0));
	f.file.data[2] = 13;
	CHECK(sl_sffr_build(f.file.data, f.file.len, f.raw.data, f.raw.len - 1, f.ends, NULL, f.n, NULL, 3, &b, &err) != 0 ||
		  (sl_sffr_built_free(&b), 0));
	sl_buf_free(&out);
	sl_sffr_built_free(&b);
	ff_free(&f);
	ff_store_free(&s);
}
