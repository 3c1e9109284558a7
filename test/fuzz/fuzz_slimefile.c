/*
 * fuzz_slimefile.c - libFuzzer target for slime files (sl_slimefile).
 *
 * Input: a slime file; or, so that mutations reach the chunk layouts
 * without going through zstd, the raw form
 *     "SFR" u8 version u8 p, then up to five blocks "u32 length, bytes":
 *     chunk data, tile entities, entities, extra, maps
 * from which the target assembles the file (v10+: DataVersion 3700, v13
 * world flags p; v1-v9: world version p & 15, chunks in a 2x2 area at
 * (-1,-1) where the bitmask is p >> 4).
 *
 * Invariants:
 *   - sl_slimefile_read never crashes; an error has a known code, and a
 *     malformed file's error names an offset;
 *   - a successful read encodes to a value that passes sl_value_verify (or
 *     the builder refuses it over a cap);
 *   - when that value can be written as version 13, the file reads back,
 *     writing again gives the same bytes and reading again the same value;
 *     for a version-13 input the value read back is the value first read.
 */
#include "fuzz_common.h"
#include "sl_build.h"
#include "sl_slimefile.h"
#include "sl_value.h"

#include <zstd.h>

static void
reset(sl_err *err)
{
	err->code = SL_OK;
	err->msg[0] = '\0';
}

/* Read a file into an encoded value: 0, or -1 (the error is checked). */
static int
read_value(const uint8_t *file, size_t len, sl_buf *value, int *version, int must)
{
	sl_builder	b;
	sl_slimefile_info info;
	sl_err		err;
	int			rc;

	memset(&b, 0, sizeof(b));
	value->len = 0;
	reset(&err);
	rc = sl_slimefile_read(file, len, &fuzz_limits, &b, &info, &err);
	if (rc)
	{
		fuzz_check_err(&err);
		FUZZ_CHECK(!must, "re-reading a written file failed: %s", err.msg);
		FUZZ_CHECK(err.code != SL_ERR_FORMAT || strstr(err.msg, "offset") != NULL,
				   "a format error names no offset: %s", err.msg);
		FUZZ_CHECK(err.code == SL_ERR_FORMAT || err.code == SL_ERR_LIMIT ||
				   err.code == SL_ERR_UNSUPPORTED || err.code == SL_ERR_NOMEM,
				   "unexpected error code %d: %s", (int) err.code, err.msg);
	}
	else
	{
		reset(&err);
		rc = sl_builder_encode(&b, NULL, &fuzz_limits, value, &err);
		if (rc)
		{
			fuzz_check_err(&err);
			FUZZ_CHECK(!must, "re-encoding a written file failed: %s", err.msg);
			FUZZ_CHECK(err.code == SL_ERR_LIMIT,
					   "encoding what was read failed: %s", err.msg);
		}
		else
		{
			reset(&err);
			FUZZ_CHECK(sl_value_verify(value->data, value->len, &fuzz_limits, &err) == 0,
					   "a value read from a slime file fails its check: %s", err.msg);
		}
	}
	if (version)
		*version = info.version;
	sl_builder_free(&b);
	return rc;
}

/* Write an encoded value as version 13: 0 or -1. */
static int
write_value(const sl_buf *value, sl_buf *out, int must)
{
	sl_value	v;
	sl_err		err;
	int			rc;

	out->len = 0;
	reset(&err);
	FUZZ_CHECK(sl_value_open_mem(&v, value->data, value->len, &fuzz_limits, &err) == 0,
			   "open: %s", err.msg);
	rc = sl_slimefile_write(&v, 1, &fuzz_limits, out, NULL, &err);
	sl_value_close(&v);
	if (rc)
	{
		fuzz_check_err(&err);
		FUZZ_CHECK(!must, "writing a value read from a written file failed: %s", err.msg);
		FUZZ_CHECK(err.code == SL_ERR_UNSUPPORTED || err.code == SL_ERR_LIMIT,
				   "writing a checked value failed with code %d: %s", (int) err.code, err.msg);
	}
	return rc;
}

static void
one(const uint8_t *file, size_t len)
{
	sl_buf		v1 = {0},
				f1 = {0},
				v2 = {0},
				f2 = {0},
				v3 = {0};
	int			version = 0;

	if (read_value(file, len, &v1, &version, 0) == 0 && write_value(&v1, &f1, 0) == 0)
	{
		FUZZ_CHECK(read_value(f1.data, f1.len, &v2, NULL, 1) == 0, "written file unreadable");
		FUZZ_CHECK(write_value(&v2, &f2, 1) == 0, "rewrite failed");
		FUZZ_CHECK(f1.len == f2.len && memcmp(f1.data, f2.data, f1.len) == 0,
				   "slime file -> slime -> slime file is not byte-identical (%zu, %zu bytes)",
				   f1.len, f2.len);
		FUZZ_CHECK(read_value(f2.data, f2.len, &v3, NULL, 1) == 0, "rewritten file unreadable");
		FUZZ_CHECK(v2.len == v3.len && memcmp(v2.data, v3.data, v2.len) == 0,
				   "slime -> slime file -> slime is not value-identical");
		if (version == 13)
			FUZZ_CHECK(v1.len == v2.len && memcmp(v1.data, v2.data, v1.len) == 0,
					   "a version-13 file's value changed through writing and reading");
	}
	sl_buf_free(&v1);
	sl_buf_free(&f1);
	sl_buf_free(&v2);
	sl_buf_free(&f2);
	sl_buf_free(&v3);
}

/* "i32 compressed, i32 raw, zstd frame" at level 1. */
static void
zblock(sl_buf *out, const uint8_t *raw, size_t len)
{
	size_t		bound = ZSTD_compressBound(len);
	size_t		at = out->len;
	size_t		n;

	if (sl_buf_reserve(out, 8 + bound, NULL))
		abort();
	n = ZSTD_compress(out->data + at + 8, bound, raw, len, 1);
	FUZZ_CHECK(!ZSTD_isError(n), "zstd");
	sl_put_u32be(out->data + at, (uint32_t) n);
	sl_put_u32be(out->data + at + 4, (uint32_t) len);
	out->len += 8 + n;
}

/* Assemble a file from the raw form. */
static void
assemble(const uint8_t *data, size_t size, sl_buf *out)
{
	int			version = data[3];
	int			p = data[4];
	const uint8_t *blk[5] = {NULL, NULL, NULL, NULL, NULL};
	size_t		n[5] = {0, 0, 0, 0, 0};
	size_t		pos = 5;

	for (int i = 0; i < 5 && size - pos >= 4; i++)
	{
		size_t		l = sl_get_u32be(data + pos);

		pos += 4;
		if (l > size - pos)
			l = size - pos;
		blk[i] = data + pos;
		n[i] = l;
		pos += l;
	}
	sl_buf_put_u8(out, 0xB1, NULL);
	sl_buf_put_u8(out, 0x0B, NULL);
	sl_buf_put_u8(out, (uint8_t) version, NULL);
	if (version >= 10)
	{
		sl_buf_put_u32be(out, 3700, NULL);
		if (version >= 13)
			sl_buf_put_u8(out, (uint8_t) p, NULL);
		zblock(out, blk[0], n[0]);
		if (version == 10)
		{
			zblock(out, blk[1], n[1]);
			zblock(out, blk[2], n[2]);
		}
		zblock(out, blk[3], n[3]);
		return;
	}
	if (version >= 6)
		sl_buf_put_u8(out, (uint8_t) (p & 15), NULL);
	else if (version >= 4)
		sl_buf_put_u8(out, (p & 15) >= 4, NULL);
	sl_buf_put_u16be(out, (uint16_t) -1, NULL);
	sl_buf_put_u16be(out, (uint16_t) -1, NULL);
	sl_buf_put_u16be(out, 2, NULL);
	sl_buf_put_u16be(out, 2, NULL);
	sl_buf_put_u8(out, (uint8_t) (p >> 4), NULL);
	zblock(out, blk[0], n[0]);
	zblock(out, blk[1], n[1]);
	if (version >= 3)
	{
		sl_buf_put_u8(out, n[2] > 0, NULL);
		if (n[2] > 0)
			zblock(out, blk[2], n[2]);
	}
	if (version >= 2)
		zblock(out, blk[3], n[3]);
	if (version >= 7)
		zblock(out, blk[4], n[4]);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t    *copy;

	if (size >= 5 && memcmp(data, "SFR", 3) == 0)
	{
		sl_buf		file = {0};

		assemble(data, size, &file);
		copy = fuzz_dup(file.data, file.len);
		one(copy, file.len);
		free(copy);
		sl_buf_free(&file);
		return 0;
	}
	copy = fuzz_dup(data, size);
	one(copy, size);
	free(copy);
	return 0;
}
