/*
 * test_kept.c - the forms a loader world's row keeps its file in (issue
 * #33): the cold form (sl_sfcold) of version 3 and the hot form (sl_sfhot)
 * turn every damaged byte, and lengths changed in pairs that cancel, into
 * an error or the file they hold, never another file; the cold form of
 * version 2 does not, which is why the loader does not decode one.
 */
#include "harness.h"
#include "sl_sfcold.h"
#include "sl_sfhot.h"
#include "sl_slimefile.h"

/* A prefix of n bytes (runs and noise) and a version-13 file whose blocks repeat much of it. */
static void
make_cold_input(size_t n, sl_buf *prefix, sl_buf *file)
{
	sl_buf		chunks = {0},
				extra = {0};
	const uint8_t head[8] = {0xB1, 0x0B, 13, 0, 0, 0x0E, 0x80, 1};
	sl_err		err;

	for (size_t i = 0; i < n; i++)
		sl_buf_put_u8(prefix, (uint8_t) (i % 11 == 0 ? (i * 2654435761u) >> 11 : i % 6), &err);
	sl_buf_put(&chunks, "\0\0\0\x03", 4, &err);
	sl_buf_put(&chunks, prefix->data + 64, n / 2, &err);
	sl_buf_put(&chunks, "chunk", 5, &err);
	sl_buf_put(&chunks, prefix->data + n / 3, n / 3, &err);
	for (int i = 0; i < 96; i++)
		sl_buf_put_u8(&extra, (uint8_t) (i * 7 + 1), &err);
	sl_buf_put(file, head, sizeof(head), &err);
	CHECK_OK(sl_sf_put_zblock(file, chunks.data, chunks.len, SL_DEFAULT_LEVEL, &err), &err);
	CHECK_OK(sl_sf_put_zblock(file, extra.data, extra.len, SL_DEFAULT_LEVEL, &err), &err);
	sl_buf_free(&chunks);
	sl_buf_free(&extra);
}

/* What cold bytes decode to: -1 refused, 1 the file, 0 another file (wrong data). */
static int
cold_gives(const sl_buf *cold, const sl_buf *prefix, const sl_buf *file)
{
	sl_buf		out = {0};
	sl_err		err;
	int			r = -1;

	if (sl_sfcold_decode(cold->data, cold->len, prefix->data, prefix->len, SL_DEFAULT_LEVEL, NULL, &out, &err) == 0)
		r = out.len == file->len && memcmp(out.data, file->data, file->len) == 0;
	else
		CHECK(out.len == 0 && err.code != SL_ERR_NOMEM);
	sl_buf_free(&out);
	return r;
}

/* Add d to the u32le at a and take it from the u32le at b. */
static void
cancel(uint8_t *p, size_t a, size_t b, uint32_t d)
{
	sl_put_u32le(p + a, sl_get_u32le(p + a) + d);
	sl_put_u32le(p + b, sl_get_u32le(p + b) - d);
}

/*
 * Every byte of a cold form flipped (two ways; the frame's bytes at the
 * harness's step), and the two block lengths changed so that they cancel:
 * version 3 gives the file or an error (always an error for its header);
 * version 2, which no checksum over
 * its header covers, gives another file for a damaged header byte and for
 * lengths that cancel.
 */
void		test_sfcold_damage(void);
void
test_sfcold_damage(void)
{
	sl_buf		prefix = {0},
				file = {0};
	const uint32_t moves[] = {1, 2, 7, 32, 95, 96, 4096, 0x80000000u};

	make_cold_input(6000, &prefix, &file);
	for (int version = 2; version <= 3; version++)
	{
		sl_buf		cold = {0},
					d = {0};
		sl_err		err;
		int			wrong_bytes = 0,
					wrong_pairs = 0,
					held = 0,
					tried = 0;

		CHECK_OK(sl_sfcold_encode(file.data, file.len, version, prefix.data, prefix.len, NULL, &cold, &err), &err);
		CHECK(sl_sfcold_vouched(cold.data, cold.len) == (version >= 3));
		CHECK(cold_gives(&cold, &prefix, &file) == 1);
		sl_buf_put(&d, cold.data, cold.len, &err);
		for (size_t o = 0; o < cold.len; o += o < 64 ? 1 : sl_test_cut_step(o))
			for (int x = 0; x < 2; x++)
			{
				int			r;

				memcpy(d.data, cold.data, cold.len);
				d.data[o] ^= x ? 0x80 : 0x01;
				r = cold_gives(&d, &prefix, &file);
				wrong_bytes += r == 0;
				/* held: refused in the header and its checksum; a frame byte zstd ignores may give the file */
				held += r < 0 || (r == 1 && o >= SL_SFCOLD_HEADER + SL_SFCOLD_SUM);
				tried++;
			}
		for (size_t m = 0; m < sizeof(moves) / sizeof(moves[0]); m++)
			for (int s = 0; s < 2; s++)
			{
				int			r;

				memcpy(d.data, cold.data, cold.len);
				if (s)
					cancel(d.data, 17, 13, moves[m]);
				else
					cancel(d.data, 13, 17, moves[m]);
				r = cold_gives(&d, &prefix, &file);
				wrong_pairs += r == 0;
				held += r < 0;
				tried++;
			}
		if (version >= 3)
		{
			CHECK(wrong_bytes == 0 && wrong_pairs == 0);
			CHECK(held == tried);
		}
		else
		{
			/* the holes version 3 closes (issue #33) */
			CHECK(wrong_bytes > 0);
			CHECK(wrong_pairs > 0);
		}
		/* every truncation is refused */
		for (size_t n = 0; n < cold.len; n += n < 64 ? 1 : sl_test_cut_step(n))
		{
			sl_buf		cut = {0};

			sl_buf_put(&cut, cold.data, n, &err);
			CHECK(cold_gives(&cut, &prefix, &file) == -1);
			sl_buf_free(&cut);
		}
		sl_buf_free(&cold);
		sl_buf_free(&d);
	}
	sl_buf_free(&prefix);
	sl_buf_free(&file);
}

/* The header check: version 3's checksum, an unknown version, not a cold form. */
void		test_sfcold_check_header(void);
void
test_sfcold_check_header(void)
{
	sl_buf		prefix = {0},
				file = {0},
				cold = {0};
	sl_err		err;

	make_cold_input(3000, &prefix, &file);
	CHECK_OK(sl_sfcold_encode(file.data, file.len, 3, prefix.data, prefix.len, NULL, &cold, &err), &err);
	CHECK(cold.len > SL_SFCOLD_HEADER + SL_SFCOLD_SUM);
	CHECK_OK(sl_sfcold_check_header(cold.data, cold.len, &err), &err);
	cold.data[9] ^= 4;			/* the file's DataVersion */
	CHECK(sl_sfcold_check_header(cold.data, cold.len, &err) != 0 && err.code == SL_ERR_CORRUPT);
	cold.data[9] ^= 4;
	cold.data[4] = 4;
	CHECK(sl_sfcold_check_header(cold.data, cold.len, &err) != 0 && err.code == SL_ERR_UNSUPPORTED);
	CHECK(sl_sfcold_vouched(cold.data, cold.len));
	cold.data[4] = 3;
	CHECK(sl_sfcold_check_header(cold.data, SL_SFCOLD_HEADER + 4, &err) != 0 && err.code == SL_ERR_CORRUPT);
	CHECK(sl_sfcold_check_header(file.data, file.len, &err) != 0 && err.code == SL_ERR_CORRUPT);
	sl_buf_free(&prefix);
	sl_buf_free(&file);
	sl_buf_free(&cold);
}

/* What hot bytes open to: -1 refused, 1 the file, 0 another file (wrong data). */
static int
hot_gives(const uint8_t *hot, size_t len, const sl_buf *file)
{
	const uint8_t *f;
	size_t		n;
	sl_err		err;

	if (sl_sfhot_open(hot, len, &f, &n, &err))
	{
		CHECK(err.code == SL_ERR_CORRUPT || err.code == SL_ERR_UNSUPPORTED);
		return -1;
	}
	return n == file->len && memcmp(f, file->data, n) == 0;
}

/*
 * The hot form gives the file as it was; every byte flipped (two ways),
 * every truncation, a byte added and an unknown version are refused.
 */
void		test_sfhot_damage(void);
void
test_sfhot_damage(void)
{
	sl_buf		prefix = {0},
				file = {0},
				hot = {0},
				d = {0};
	sl_err		err;
	int			bad = 0;

	make_cold_input(3000, &prefix, &file);
	CHECK_OK(sl_sfhot_encode(file.data, file.len, &hot, &err), &err);
	CHECK(hot.len == file.len + SL_SFHOT_HEADER + SL_SFHOT_SUM);
	CHECK(sl_sfhot_is(hot.data, hot.len) && !sl_sfhot_is(file.data, file.len));
	CHECK(memcmp(hot.data + SL_SFHOT_HEADER, file.data, file.len) == 0);
	CHECK(hot_gives(hot.data, hot.len, &file) == 1);
	sl_buf_put(&d, hot.data, hot.len, &err);
	for (size_t o = 0; o < hot.len; o++)
		for (int x = 0; x < 2; x++)
		{
			memcpy(d.data, hot.data, hot.len);
			d.data[o] ^= x ? 0x80 : 0x01;
			bad += hot_gives(d.data, d.len, &file) != -1;
		}
	for (size_t n = 0; n < hot.len; n++)
		bad += hot_gives(hot.data, n, &file) != -1;
	CHECK(bad == 0);
	memcpy(d.data, hot.data, hot.len);
	sl_buf_put_u8(&d, 0, &err);
	CHECK(hot_gives(d.data, d.len, &file) == -1);
	hot.data[4] = 2;
	CHECK(hot_gives(hot.data, hot.len, &file) == -1 && sl_sfhot_open(hot.data, hot.len, NULL, NULL, &err) != 0 &&
		  err.code == SL_ERR_UNSUPPORTED);
	/* an empty file has a hot form too */
	hot.len = 0;
	file.len = 0;
	CHECK_OK(sl_sfhot_encode(file.data, 0, &hot, &err), &err);
	CHECK(hot.len == SL_SFHOT_HEADER + SL_SFHOT_SUM && hot_gives(hot.data, hot.len, &file) == 1);
	sl_buf_free(&prefix);
	sl_buf_free(&file);
	sl_buf_free(&hot);
	sl_buf_free(&d);
}
