/*
 * sl_sfcold.c - the cold form of a loader's cached slime file (sl_sfcold.h).
 */
#include "sl_sfcold.h"
#include "sl_slimefile.h"
#include "sl_zstd.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#define FILE_HEADER 8			/* B1 0B, version, i32 DataVersion, u8 flags */

/* Whether src is in the cold form. */
int
sl_sfcold_is(const uint8_t *src, size_t len)
{
	return len >= SL_SFCOLD_HEADER && memcmp(src, SL_SFCOLD_MAGIC, 4) == 0;
}

/* Reserve room for every chunk's documents at once (when they fit the world size cap). */
static int
reserve_docs(sl_value *v, sl_buf *out, sl_err *err)
{
	uint64_t	total = 0;

	for (uint32_t i = 0; i < v->hdr.chunk_count; i++)
	{
		sl_dirent	d;

		if (sl_value_dirent(v, i, &d, err))
			return -1;
		for (int k = 0; k < SL_NCOMP; k++)
			total += d.len[k];
	}
	return total <= v->lim.max_value_raw ? sl_buf_reserve(out, (size_t) total, err) : 0;
}

/* Append the documents comp of chunk d. */
static int
put_docs(const sl_dirent *d, const uint8_t *const comp[SL_NCOMP], sl_buf *out, sl_err *err)
{
	for (int k = 0; k < SL_NCOMP; k++)
		if (d->len[k] && sl_buf_put(out, comp[k], d->len[k], err))
			return -1;
	return 0;
}

/* Append every chunk's documents in directory order. */
int
sl_sfcold_prefix(sl_value *v, sl_buf *out, sl_err *err)
{
	if (reserve_docs(v, out, err))
		return -1;
	for (uint32_t i = 0; i < v->hdr.chunk_count; i++)
	{
		sl_dirent	d;
		const uint8_t *comp[SL_NCOMP];

		if ((i & 63) == 0)
			sl_interrupt();
		if (sl_value_chunk(v, i, &d, comp, err) || put_docs(&d, comp, out, err))
			return -1;
	}
	return 0;
}

/* Order references by hash. */
static int
cmp_ref(const void *a, const void *b)
{
	return memcmp(((const sl_sfcold_ref *) a)->hash, ((const sl_sfcold_ref *) b)->hash, 32);
}

/* List v's distinct references in hash order, each with the first chunk holding it. */
int
sl_sfcold_refs(sl_value *v, sl_sfcold_ref **refs, uint32_t *n, sl_err *err)
{
	sl_sfcold_ref *r = sl_alloc_err(sizeof(sl_sfcold_ref) * ((size_t) v->hdr.chunk_count + 1), err);
	uint32_t	count = 0,
				keep = 0;

	*refs = NULL;
	*n = 0;
	if (r == NULL)
		return -1;
	for (uint32_t i = 0; i < v->hdr.chunk_count; i++)
	{
		sl_dirent	d;

		if (sl_value_dirent(v, i, &d, err))
		{
			sl_free(r);
			return -1;
		}
		if (d.ref)
		{
			memcpy(r[count].hash, d.hash, 32);
			r[count++].chunk = i;
		}
	}
	qsort(r, count, sizeof(sl_sfcold_ref), cmp_ref);
	for (uint32_t i = 0; i < count; i++)
		if (keep == 0 || memcmp(r[keep - 1].hash, r[i].hash, 32) != 0)
			r[keep++] = r[i];
		else if (r[i].chunk < r[keep - 1].chunk)
			r[keep - 1].chunk = r[i].chunk;
	*refs = r;
	*n = keep;
	return 0;
}

/* The documents of reference chunk i (its dirent in *d), from fn by rank or through v's resolver. */
static int
ref_docs(sl_value *v, uint32_t i, uint32_t rank, sl_sfcold_docs_fn fn, void *ctx, sl_dirent *d,
		 const uint8_t *comp[SL_NCOMP], sl_err *err)
{
	if (fn == NULL)
		return sl_value_chunk(v, i, d, comp, err);
	return sl_value_dirent(v, i, d, err) || fn(ctx, rank, d, comp, err) ? -1 : 0;
}

/* Append every chunk's documents in directory order, each reference's from fn by its rank. */
int
sl_sfcold_prefix_ranked(sl_value *v, const sl_sfcold_ref *refs, uint32_t n, sl_sfcold_docs_fn fn,
						void *ctx, sl_buf *out, sl_err *err)
{
	if (reserve_docs(v, out, err))
		return -1;
	for (uint32_t i = 0; i < v->hdr.chunk_count; i++)
	{
		sl_dirent	d;
		const uint8_t *comp[SL_NCOMP];
		sl_sfcold_ref key;
		const sl_sfcold_ref *at;

		if ((i & 63) == 0)
			sl_interrupt();
		if (sl_value_dirent(v, i, &d, err))
			return -1;
		memcpy(key.hash, d.hash, 32);
		if (!d.ref)
		{
			if (sl_value_chunk(v, i, &d, comp, err))
				return -1;
		}
		else if ((at = bsearch(&key, refs, n, sizeof(sl_sfcold_ref), cmp_ref)) == NULL)
			return sl_fail(err, SL_ERR_NOTFOUND, "chunk (%d,%d) is not among the references listed", d.x, d.z);
		else if (ref_docs(v, i, (uint32_t) (at - refs), fn, ctx, &d, comp, err))
			return -1;
		if (put_docs(&d, comp, out, err))
			return -1;
	}
	return 0;
}

/* Whether the documents comp of chunk d start at *end (or *end is NULL); if so, move *end past them. */
static int
docs_follow(const uint8_t **end, const sl_dirent *d, const uint8_t *const comp[SL_NCOMP])
{
	const uint8_t *e = *end;

	for (int k = 0; k < SL_NCOMP; k++)
		if (d->len[k])
		{
			if (e != NULL && comp[k] != e)
				return 0;
			e = comp[k] + d->len[k];
		}
	*end = e;
	return 1;
}

/* Copy the documents viewed so far, [start, end), into out, with room for all. */
static int
copy_view(sl_value *v, const uint8_t *start, const uint8_t *end, sl_buf *out, sl_err *err)
{
	return reserve_docs(v, out, err) || sl_buf_put(out, start, (size_t) (end - start), err) ? -1 : 0;
}

/*
 * Set *prefix to version 2's prefix of v: its references' documents in
 * hash order, then its chunks held in frames in directory order.
 */
int
sl_sfcold_prefix_hashed(sl_value *v, const sl_sfcold_ref *refs, uint32_t n, sl_sfcold_docs_fn fn,
						void *ctx, int stable, sl_buf *out, const uint8_t **prefix,
						size_t *prefix_len, sl_err *err)
{
	const uint8_t *start = NULL,
			   *end = NULL;
	int			view = stable;

	out->len = 0;
	if (!view && reserve_docs(v, out, err))
		return -1;
	for (uint32_t k = 0; k < n; k++)
	{
		sl_dirent	d;
		const uint8_t *comp[SL_NCOMP];

		if ((k & 63) == 0)
			sl_interrupt();
		if (ref_docs(v, refs[k].chunk, k, fn, ctx, &d, comp, err))
			return -1;
		if (view && docs_follow(&end, &d, comp))
		{
			start = start ? start : end - (d.len[0] + d.len[1] + d.len[2]);
			continue;
		}
		/* not back to back: what was viewed so far is copied, and the rest */
		if (view && copy_view(v, start, end, out, err))
			return -1;
		view = 0;
		if (put_docs(&d, comp, out, err))
			return -1;
	}
	for (uint32_t i = 0; i < v->hdr.chunk_count; i++)
	{
		sl_dirent	d;
		const uint8_t *comp[SL_NCOMP];

		if ((i & 63) == 0)
			sl_interrupt();
		if (sl_value_dirent(v, i, &d, err))
			return -1;
		if (d.ref)
			continue;
		if (view && copy_view(v, start, end, out, err))
			return -1;
		view = 0;
		if (sl_value_chunk(v, i, &d, comp, err) || put_docs(&d, comp, out, err))
			return -1;
	}
	*prefix = view ? start : out->data;
	*prefix_len = view ? (size_t) (end - start) : out->len;
	return 0;
}

/* The raw bytes of the zstd block at *at of a file (zstd-jni frames: no checksum). */
static int
read_block(const uint8_t *file, size_t len, size_t *at, const sl_limits *lim, sl_buf *raw,
		   sl_err *err)
{
	uint32_t	clen,
				rlen;
	size_t		got;

	if (len - *at < 8)
		return sl_fail(err, SL_ERR_UNSUPPORTED, "slime file block at offset %zu is truncated", *at);
	clen = sl_get_u32be(file + *at);
	rlen = sl_get_u32be(file + *at + 4);
	if (clen > len - *at - 8 || rlen > lim->max_value_raw)
		return sl_fail(err, SL_ERR_UNSUPPORTED, "slime file block at offset %zu does not fit", *at);
	if (sl_buf_reserve(raw, (size_t) rlen + 1, err))
		return -1;
	got = sl_zstd_decompress(raw->data + raw->len, rlen, file + *at + 8, clen);
	if (got != rlen)
		return sl_fail(err, SL_ERR_UNSUPPORTED, "slime file block at offset %zu does not decompress to its %u bytes",
					   *at, rlen);
	raw->len += rlen;
	*at += 8 + (size_t) clen;
	return 0;
}

/* The version of a cold form, 0 when src is not one. */
int
sl_sfcold_version(const uint8_t *src, size_t len)
{
	return sl_sfcold_is(src, len) ? src[4] : 0;
}

/* Whether a cold form's version carries a checksum over its header (3 on). */
int
sl_sfcold_vouched(const uint8_t *src, size_t len)
{
	return sl_sfcold_version(src, len) >= 3;
}

/* Where the frame of a cold form of version v starts. */
static size_t
frame_at(int v)
{
	return v >= 3 ? SL_SFCOLD_HEADER + SL_SFCOLD_SUM : SL_SFCOLD_HEADER;
}

/* Check a cold form's magic, version and (version 3 on) header checksum. */
int
sl_sfcold_check_header(const uint8_t *src, size_t len, sl_err *err)
{
	if (!sl_sfcold_is(src, len))
		return sl_fail(err, SL_ERR_CORRUPT, "not a cold slime file (offset 0)");
	if (src[4] < 1 || src[4] > SL_SFCOLD_VERSION)
		return sl_fail(err, SL_ERR_UNSUPPORTED, "cold slime file version %d is not known (offset 4)", src[4]);
	if (src[4] < 3)
		return 0;
	/* nothing of the header is used before its checksum passed */
	if (len < SL_SFCOLD_HEADER + SL_SFCOLD_SUM ||
		XXH64(src, SL_SFCOLD_HEADER, 0) != sl_get_u64le(src + SL_SFCOLD_HEADER))
		return sl_fail(err, SL_ERR_CORRUPT, "cold slime file header checksum mismatch (offset %d)",
					   SL_SFCOLD_HEADER);
	return 0;
}

/* Append the cold form of a version-13 file. */
int
sl_sfcold_encode(const uint8_t *file, size_t len, int version, const uint8_t *prefix,
				 size_t prefix_len, const sl_limits *lim, sl_buf *out, sl_err *err)
{
	sl_buf		raw = {0};
	sl_buf		back = {0};
	uint8_t		head[SL_SFCOLD_HEADER + SL_SFCOLD_SUM] = {'S', 'L', 'C', 'F', (uint8_t) version};
	size_t		at = FILE_HEADER;
	size_t		start = out->len;
	size_t		chunk_len;
	int			rc = -1;

	if (lim == NULL)
		lim = &sl_default_limits;
	if (version < 1 || version > SL_SFCOLD_VERSION)
		return sl_fail(err, SL_ERR_INVALID, "cold slime file version %d is not known", version);
	if (len < FILE_HEADER || file[0] != 0xB1 || file[1] != 0x0B || file[2] != SL_SLIMEFILE_WRITE_VERSION)
		return sl_fail(err, SL_ERR_UNSUPPORTED, "not a version-13 slime file");
	if (read_block(file, len, &at, lim, &raw, err))
		goto done;
	chunk_len = raw.len;
	if (read_block(file, len, &at, lim, &raw, err))
		goto done;
	if (at != len)
	{
		sl_fail(err, SL_ERR_UNSUPPORTED, "slime file has %zu bytes after its two blocks", len - at);
		goto done;
	}
	memcpy(head + 5, file, FILE_HEADER);
	sl_put_u32le(head + 13, (uint32_t) chunk_len);
	sl_put_u32le(head + 17, (uint32_t) (raw.len - chunk_len));
	if (version >= 3)
		sl_put_u64le(head + SL_SFCOLD_HEADER, XXH64(head, SL_SFCOLD_HEADER, 0));
	if (sl_buf_put(out, head, frame_at(version), err) ||
		sl_zstd_frame_prefix(raw.data, raw.len, SL_SFCOLD_LEVEL, prefix, prefix_len, out, err))
		goto done;
	/* the blocks must come back as they were */
	if (sl_buf_reserve(&back, raw.len + 1, err) ||
		sl_zstd_unframe_prefix(out->data + start + frame_at(version), out->len - start - frame_at(version),
							   back.data, raw.len, prefix, prefix_len, err))
		goto done;
	if (memcmp(back.data, raw.data, raw.len) != 0)
	{
		sl_fail(err, SL_ERR_CORRUPT, "the cold form does not give back the file's blocks");
		goto done;
	}
	rc = 0;
done:
	if (rc)
		out->len = start;
	sl_buf_free(&raw);
	sl_buf_free(&back);
	return rc;
}

/* Append the version-13 file of a cold form. */
int
sl_sfcold_decode(const uint8_t *src, size_t len, const uint8_t *prefix, size_t prefix_len,
				 int level, const sl_limits *lim, sl_buf *out, sl_err *err)
{
	sl_buf		raw = {0};
	uint64_t	chunk_len,
				extra_len;
	size_t		start = out->len;
	int			rc = -1;

	if (lim == NULL)
		lim = &sl_default_limits;
	if (sl_sfcold_check_header(src, len, err))
		return -1;
	if (src[5] != 0xB1 || src[6] != 0x0B || src[7] != SL_SLIMEFILE_WRITE_VERSION)
		return sl_fail(err, SL_ERR_CORRUPT, "cold slime file does not hold a version-13 header (offset 5)");
	chunk_len = sl_get_u32le(src + 13);
	extra_len = sl_get_u32le(src + 17);
	if (chunk_len + extra_len > lim->max_value_raw)
		return sl_fail(err, SL_ERR_LIMIT, "cold slime file of %llu raw bytes exceeds the world size cap (offset 13)",
					   (unsigned long long) (chunk_len + extra_len));
	if (sl_buf_reserve(&raw, (size_t) (chunk_len + extra_len) + 1, err) ||
		sl_zstd_unframe_prefix(src + frame_at(src[4]), len - frame_at(src[4]), raw.data,
							   (size_t) (chunk_len + extra_len), prefix, prefix_len, err))
	{
		sl_err_prefix(err, "cold slime file frame (offset %zu)", frame_at(src[4]));
		goto done;
	}
	if (sl_buf_put(out, src + 5, FILE_HEADER, err) ||
		sl_sf_put_zblock(out, raw.data, (size_t) chunk_len, level, err) ||
		sl_sf_put_zblock(out, raw.data + chunk_len, (size_t) extra_len, level, err))
		goto done;
	rc = 0;
done:
	if (rc)
		out->len = start;
	sl_buf_free(&raw);
	return rc;
}
