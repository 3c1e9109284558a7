/*
 * fuzz_value.c - libFuzzer target for the slime value reader.
 *
 * Input: value bytes (the type's binary form). Each input is tried as is
 * and, so that mutations reach past the metadata checksum, once more with
 * total_len and the header CRC patched to match.
 *   - sl_value_verify on the bytes;
 *   - sl_value_open_mem, then every directory entry, every chunk, the world
 *     compound and sl_value_find: errors are fine, crashes are not;
 *   - when verify passes: every chunk and the world read must succeed, each
 *     component must be one NBT document, sl_value_find must find each
 *     chunk, and re-encoding through a builder must give a value that
 *     verifies with the same content hash.
 */
#include "fuzz_common.h"
#include "sl_build.h"
#include "sl_codec.h"
#include "sl_nbt.h"
#include "sl_value.h"

static void
reset(sl_err *err)
{
	err->code = SL_OK;
	err->msg[0] = '\0';
}

static void
touch(const uint8_t *p, size_t n)
{
	volatile uint8_t sink = 0;

	for (size_t i = 0; i < n; i++)
		sink ^= p[i];
	(void) sink;
}

/* Re-encode a verified value: it must verify and keep its content hash. */
static void
reencode(sl_value *v)
{
	sl_builder	b;
	sl_buf		out = {0};
	sl_encode_opts opts = sl_default_encode_opts;
	sl_header	h;
	sl_err		err;

	memset(&b, 0, sizeof(b));
	opts.level = 1;
	reset(&err);
	if (sl_builder_add_value(&b, v, SL_ADD_KEEP, &err))
	{
		fuzz_check_err(&err);
		FUZZ_CHECK(0, "builder_add_value of a verified value failed: %s", err.msg);
	}
	reset(&err);
	if (sl_builder_encode(&b, &opts, &fuzz_limits, &out, &err))
	{
		fuzz_check_err(&err);
		FUZZ_CHECK(0, "re-encoding a verified value failed: %s", err.msg);
	}
	reset(&err);
	if (sl_value_verify(out.data, out.len, &fuzz_limits, &err))
	{
		fuzz_check_err(&err);
		FUZZ_CHECK(0, "re-encoded value fails verify: %s", err.msg);
	}
	reset(&err);
	FUZZ_CHECK(sl_header_parse(out.data, out.len, out.len, &h, &err) == 0,
			   "re-encoded header: %s", err.msg);
	FUZZ_CHECK(memcmp(h.hash, v->hdr.hash, 32) == 0,
			   "re-encoded value has another content hash");
	FUZZ_CHECK(h.chunk_count == v->hdr.chunk_count && h.raw_bytes == v->hdr.raw_bytes &&
			   h.world_len == v->hdr.world_len && h.dv_min == v->hdr.dv_min &&
			   h.dv_max == v->hdr.dv_max,
			   "re-encoded summary differs");
	sl_buf_free(&out);
	sl_builder_free(&b);
}

/* Read everything an open value holds; with verified, reads must succeed. */
static void
read_all(const uint8_t *data, size_t size, int verified)
{
	sl_value	v;
	sl_err		err;
	const uint8_t *world;
	size_t		world_len;

	reset(&err);
	if (sl_value_open_mem(&v, data, size, &fuzz_limits, &err))
	{
		fuzz_check_err(&err);
		FUZZ_CHECK(!verified, "open failed on a verified value: %s", err.msg);
		return;
	}
	for (uint32_t i = 0; i < v.hdr.frame_count && i < 4096; i++)
	{
		sl_frame	f;

		reset(&err);
		if (sl_value_frame(&v, i, &f, &err))
		{
			fuzz_check_err(&err);
			FUZZ_CHECK(!verified, "frame %u of a verified value: %s", i, err.msg);
		}
	}
	for (uint32_t i = 0; i < v.hdr.chunk_count; i++)
	{
		sl_dirent	d;
		const uint8_t *comp[SL_NCOMP];

		reset(&err);
		if (sl_value_chunk(&v, i, &d, comp, &err))
		{
			fuzz_check_err(&err);
			FUZZ_CHECK(!verified, "chunk %u of a verified value: %s", i, err.msg);
			/* a damaged value: give up after many failing chunks */
			if (i > 64)
				break;
			continue;
		}
		for (int k = 0; k < SL_NCOMP; k++)
		{
			if (d.len[k] == 0)
				continue;
			touch(comp[k], d.len[k]);
			if (verified)
			{
				size_t		used = 0;

				reset(&err);
				FUZZ_CHECK(sl_nbt_check(comp[k], d.len[k], 0, &fuzz_limits, &used, &err) == 0 &&
						   used == d.len[k],
						   "chunk (%d,%d) component %d of a verified value is not one NBT document: %s",
						   d.x, d.z, k, err.msg);
			}
		}
		if (verified)
		{
			uint8_t		h[32];

			sl_chunk_hash(&d, comp, h);
			FUZZ_CHECK(sl_value_find(&v, d.x, d.z) == (int64_t) i,
					   "sl_value_find(%d,%d) did not find chunk %u", d.x, d.z, i);
		}
		else
			(void) sl_value_find(&v, d.x, d.z);
	}
	(void) sl_value_find(&v, 0, 0);
	(void) sl_value_find(&v, INT32_MIN, INT32_MAX);

	reset(&err);
	if (sl_value_world(&v, &world, &world_len, &err))
	{
		fuzz_check_err(&err);
		FUZZ_CHECK(!verified, "world of a verified value: %s", err.msg);
	}
	else
	{
		FUZZ_CHECK(world_len == v.hdr.world_len, "world %zu bytes, header %u",
				   world_len, v.hdr.world_len);
		if (world_len)
			touch(world, world_len);
	}
	if (verified)
		reencode(&v);
	sl_value_close(&v);
}

static void
one(const uint8_t *data, size_t size)
{
	sl_err		err;
	int			ok;

	reset(&err);
	ok = sl_value_verify(data, size, &fuzz_limits, &err) == 0;
	if (!ok)
		fuzz_check_err(&err);
	read_all(data, size, ok);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	one(data, size);

	/* patch total_len and the metadata CRC so mutations reach further */
	if (size >= SL_HEADER_SIZE && memcmp(data, SL_VALUE_MAGIC, 4) == 0)
	{
		uint8_t    *copy = fuzz_dup(data, size);
		uint32_t	payload,
					crc;
		static const uint8_t zero[4] = {0};

		sl_put_u32le(copy + 28, (uint32_t) size);
		payload = sl_get_u32le(copy + 24);
		if (payload >= 76 && payload <= size)
		{
			crc = sl_crc32(0, copy, 72);
			crc = sl_crc32(crc, zero, 4);
			crc = sl_crc32(crc, copy + 76, payload - 76);
			if (crc != sl_get_u32le(copy + 72) || memcmp(copy, data, size) != 0)
			{
				sl_put_u32le(copy + 72, crc);
				one(copy, size);
			}
		}
		free(copy);
	}
	return 0;
}
