/*
 * test_pack.c - unit tests of the chunk store's packs (sl_pack) and of the
 * cold form of loader files (sl_sfcold): round trips in both pack codecs,
 * every truncation and flipped byte refused, a cold form that gives the
 * file back byte for byte and refuses another prefix.
 */
#include "harness.h"
#include "sl_pack.h"
#include "sl_sfcold.h"
#include "sl_slimefile.h"
#include "sl_store.h"

/* Entry i of a batch: three lengths, then documents (half repeats, half noise). */
static void
make_entry(sl_buf *out, int i)
{
	uint32_t	len[3] = {200 + 37 * (uint32_t) i, (uint32_t) (i % 3) * 40, i % 2 ? 0 : 16};
	uint8_t		head[12];
	sl_err		err;

	for (int k = 0; k < 3; k++)
		sl_put_u32le(head + 4 * k, len[k]);
	sl_buf_put(out, head, sizeof(head), &err);
	for (uint32_t n = 0; n < len[0] + len[1] + len[2]; n++)
	{
		uint8_t		c = (uint8_t) (n % 7 == 0 ? (n * 2654435761u + (uint32_t) i) >> 13 : n % 5);

		sl_buf_put_u8(out, c, &err);
	}
}

/* A pack of n entries in codec; the entries in all, their offsets in off. */
static void
make_pack(int n, sl_pack_codec codec, sl_buf *all, size_t *off, sl_buf *pack)
{
	const uint8_t *e[16];
	size_t		size[16];
	sl_err		err;

	for (int i = 0; i < n; i++)
	{
		off[i] = all->len;
		make_entry(all, i);
	}
	off[n] = all->len;
	for (int i = 0; i < n; i++)
	{
		e[i] = all->data + off[i];
		size[i] = off[i + 1] - off[i];
	}
	CHECK_OK(sl_pack_encode(e, size, (uint32_t) n, codec, pack, &err), &err);
}

void		test_pack_roundtrip(void);
void
test_pack_roundtrip(void)
{
	for (int codec = SL_PACK_FAST; codec <= SL_PACK_DENSE; codec++)
	{
		sl_buf		all = {0},
					pack = {0},
					back = {0};
		size_t		off[17];
		sl_pack		p;
		sl_err		err;

		make_pack(16, (sl_pack_codec) codec, &all, off, &pack);
		CHECK(pack.len < all.len);
		CHECK_OK(sl_pack_open(pack.data, pack.len, NULL, &p, &err), &err);
		CHECK(p.count == 16);
		for (int i = 0; i < 16; i++)
		{
			back.len = 0;
			CHECK_OK(sl_pack_entry(&p, (uint32_t) i, &back, &err), &err);
			CHECK(back.len == off[i + 1] - off[i] && memcmp(back.data, all.data + off[i], back.len) == 0);
		}
		CHECK(sl_pack_entry(&p, 16, &back, &err) != 0);
		sl_pack_free(&p);
		/* an entry whose lengths do not add up is refused */
		{
			const uint8_t *e[1] = {all.data};
			size_t		size[1] = {off[1] - 1};

			CHECK(sl_pack_encode(e, size, 1, (sl_pack_codec) codec, &back, &err) != 0);
		}
		sl_buf_free(&all);
		sl_buf_free(&pack);
		sl_buf_free(&back);
	}
}

void		test_pack_corrupt(void);
void
test_pack_corrupt(void)
{
	for (int codec = SL_PACK_FAST; codec <= SL_PACK_DENSE; codec++)
	{
		sl_buf		all = {0},
					pack = {0};
		size_t		off[5];
		sl_pack		p;
		sl_err		err;
		int			opened = 0;

		make_pack(4, (sl_pack_codec) codec, &all, off, &pack);
		for (size_t n = 0; n < pack.len; n++)
			if (sl_pack_open(pack.data, n, NULL, &p, &err) == 0)
			{
				opened++;
				sl_pack_free(&p);
			}
		CHECK(opened == 0);
		for (size_t i = 0; i < pack.len; i++)
		{
			pack.data[i] ^= 0x41;
			if (sl_pack_open(pack.data, pack.len, NULL, &p, &err) == 0)
			{
				opened++;
				sl_pack_free(&p);
			}
			pack.data[i] ^= 0x41;
		}
		CHECK(opened == 0);
		sl_buf_free(&all);
		sl_buf_free(&pack);
	}
}

/* A version-13 file whose chunk block repeats prefix with a few changes. */
static void
make_file(const sl_buf *prefix, sl_buf *file)
{
	sl_buf		raw = {0};
	const uint8_t head[8] = {0xB1, 0x0B, 13, 0, 0, 0x0E, 0x80, 0};
	sl_err		err;

	sl_buf_put(file, head, sizeof(head), &err);
	sl_buf_put(&raw, "\0\0\0\x10", 4, &err);
	sl_buf_put(&raw, prefix->data + 100, prefix->len - 300, &err);
	sl_buf_put(&raw, "slime", 5, &err);
	CHECK_OK(sl_sf_put_zblock(file, raw.data, raw.len, SL_DEFAULT_LEVEL, &err), &err);
	CHECK_OK(sl_sf_put_zblock(file, (const uint8_t *) "", 0, SL_DEFAULT_LEVEL, &err), &err);
	sl_buf_free(&raw);
}

void		test_sfcold_roundtrip(void);
void
test_sfcold_roundtrip(void)
{
	sl_buf		prefix = {0},
				other = {0},
				file = {0},
				cold = {0},
				back = {0};
	size_t		off[17];
	sl_err		err;
	int			bad = 0;

	make_pack(16, SL_PACK_FAST, &prefix, off, &cold);
	cold.len = 0;
	make_file(&prefix, &file);
	CHECK_OK(sl_sfcold_encode(file.data, file.len, prefix.data, prefix.len, NULL, &cold, &err), &err);
	CHECK(sl_sfcold_is(cold.data, cold.len));
	CHECK(cold.len < file.len / 4);
	CHECK_OK(sl_sfcold_decode(cold.data, cold.len, prefix.data, prefix.len, SL_DEFAULT_LEVEL, NULL, &back, &err), &err);
	CHECK(back.len == file.len && memcmp(back.data, file.data, file.len) == 0);
	/* another prefix fails the frame's checksum */
	sl_buf_put(&other, prefix.data, prefix.len, &err);
	other.data[500] ^= 1;
	back.len = 0;
	CHECK(sl_sfcold_decode(cold.data, cold.len, other.data, other.len, SL_DEFAULT_LEVEL, NULL, &back, &err) != 0);
	CHECK(back.len == 0);
	/* every truncation is refused */
	for (size_t n = 0; n < cold.len; n++)
		bad += sl_sfcold_decode(cold.data, n, prefix.data, prefix.len, SL_DEFAULT_LEVEL, NULL, &back, &err) != 0;
	CHECK(bad == (int) cold.len);
	/* a file of another version, or with bytes after its blocks, is not held */
	file.data[2] = 12;
	CHECK(sl_sfcold_encode(file.data, file.len, prefix.data, prefix.len, NULL, &cold, &err) != 0 &&
		  err.code == SL_ERR_UNSUPPORTED);
	file.data[2] = 13;
	sl_buf_put_u8(&file, 0, &err);
	CHECK(sl_sfcold_encode(file.data, file.len, prefix.data, prefix.len, NULL, &cold, &err) != 0 &&
		  err.code == SL_ERR_UNSUPPORTED);
	sl_buf_free(&prefix);
	sl_buf_free(&other);
	sl_buf_free(&file);
	sl_buf_free(&cold);
	sl_buf_free(&back);
}
