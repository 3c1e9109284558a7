/*
 * sl_png.c - rendered maps as indexed PNG files (see sl_png.h), encoded by
 * libspng (which deflates through zlib) with the core's allocator, row by
 * row, so that a scaled image never exists whole in memory.
 */
#include <string.h>

#include <spng.h>

#include "sl_mapcolor.h"
#include "sl_png.h"

/* zlib level: 3 is about 3x faster than the default 6 on maps, for 1.15x the bytes */
#define PNG_LEVEL 3



/* libspng's allocator: the core's hooks (PostgreSQL memory contexts in the extension). */
static void *
png_malloc(size_t n)
{
	return sl_alloc(n);
}

/* Reallocate through the hooks. */
static void *
png_realloc(void *p, size_t n)
{
	return sl_realloc(p, n);
}

/* Zeroed allocation through the hooks. */
static void *
png_calloc(size_t count, size_t n)
{
	void	   *p;

	if (n && count > SIZE_MAX / n)
		return NULL;
	p = sl_alloc(count * n);
	if (p)
		memset(p, 0, count * n);
	return p;
}

/* Free through the hooks. */
static void
png_free(void *p)
{
	sl_free(p);
}

/* RGB of map colour id (base * 4 + shade). */
void
sl_png_color(int id, uint8_t rgb[3])
{
	const uint8_t *base = sl_map_rgb[(id >> 2) % SL_MAP_COLORS];
	unsigned	mult = sl_map_shades[id & 3];

	for (int k = 0; k < 3; k++)
		rgb[k] = (uint8_t) (base[k] * mult / 255);
}

/* Record a libspng error. */
static int
png_fail(sl_err *err, int rc, const char *what)
{
	return sl_fail(err, rc == SPNG_EMEM ? SL_ERR_NOMEM : SL_ERR_INVALID, "PNG %s: %s", what,
				   spng_strerror(rc));
}

/* Header, palette and transparency of the image. */
static int
png_setup(spng_ctx *ctx, uint32_t width, uint32_t height, sl_err *err)
{
	struct spng_ihdr ihdr = {0};
	struct spng_plte plte = {0};
	struct spng_trns trns = {0};
	int			rc;

	ihdr.width = width;
	ihdr.height = height;
	ihdr.bit_depth = 8;
	ihdr.color_type = SPNG_COLOR_TYPE_INDEXED;
	plte.n_entries = SL_PNG_ENTRIES;
	for (int i = 0; i < SL_PNG_ENTRIES; i++)
	{
		uint8_t		rgb[3];

		sl_png_color(i, rgb);
		plte.entries[i].red = rgb[0];
		plte.entries[i].green = rgb[1];
		plte.entries[i].blue = rgb[2];
	}
	trns.n_type3_entries = SL_MAP_SHADES;	/* NONE's four; later entries are opaque */
	if ((rc = spng_set_option(ctx, SPNG_ENCODE_TO_BUFFER, 1)) ||
		(rc = spng_set_ihdr(ctx, &ihdr)) ||
		(rc = spng_set_plte(ctx, &plte)) ||
		(rc = spng_set_trns(ctx, &trns)) ||
		(rc = spng_set_option(ctx, SPNG_FILTER_CHOICE, SPNG_FILTER_CHOICE_NONE)) ||
		(rc = spng_set_option(ctx, SPNG_IMG_COMPRESSION_LEVEL, PNG_LEVEL)) ||
		(rc = spng_encode_image(ctx, NULL, 0, SPNG_FMT_PNG,
								SPNG_ENCODE_PROGRESSIVE | SPNG_ENCODE_FINALIZE)))
		return png_fail(err, rc, "set-up");
	return 0;
}

/* Encode every row, each column scale times across and each row scale times down. */
static int
png_rows(spng_ctx *ctx, const sl_map *m, uint32_t scale, uint8_t *row, sl_err *err)
{
	for (uint32_t z = 0; z < m->height; z++)
	{
		const uint8_t *src = m->colors + (size_t) z * m->width;

		sl_interrupt();
		if (scale == 1)
			memcpy(row, src, m->width);
		else
			for (uint32_t x = 0; x < m->width; x++)
				memset(row + (size_t) x * scale, src[x], scale);
		for (uint32_t k = 0; k < scale; k++)
		{
			int			rc = spng_encode_row(ctx, row, (size_t) m->width * scale);

			if (rc != 0 && rc != SPNG_EOI)
				return png_fail(err, rc, "row");
		}
	}
	return 0;
}

/* Append the PNG of a shaded map to out. */
int
sl_png_map(const sl_map *m, uint32_t scale, sl_buf *out, sl_err *err)
{
	struct spng_alloc alloc = {png_malloc, png_realloc, png_calloc, png_free};
	spng_ctx   *ctx;
	uint8_t    *row;
	void	   *png = NULL;
	size_t		len = 0;
	int			rc;

	if (scale < 1 || m->width == 0 || m->height == 0 || m->colors == NULL ||
		(uint64_t) m->width * scale > INT32_MAX || (uint64_t) m->height * scale > INT32_MAX)
		return sl_fail(err, SL_ERR_INVALID, "no PNG of a %u x %u map at scale %u",
					   m->width, m->height, scale);
	row = sl_alloc_err((size_t) m->width * scale, err);
	if (row == NULL)
		return -1;
	ctx = spng_ctx_new2(&alloc, SPNG_CTX_ENCODER);
	if (ctx == NULL)
	{
		sl_free(row);
		return sl_fail(err, SL_ERR_NOMEM, "out of memory starting a PNG");
	}
	rc = png_setup(ctx, m->width * scale, m->height * scale, err);
	if (rc == 0)
		rc = png_rows(ctx, m, scale, row, err);
	if (rc == 0)
	{
		int			e = 0;

		png = spng_get_png_buffer(ctx, &len, &e);
		if (png == NULL)
			rc = png_fail(err, e ? e : SPNG_EMEM, "buffer");
	}
	if (rc == 0)
		rc = sl_buf_put(out, png, len, err);
	png_free(png);
	spng_ctx_free(ctx);
	sl_free(row);
	return rc;
}
