/*
 * sl_sfframes.c - the framed form of a loader's kept slime file
 * (sl_sfframes.h): cut, named and compressed at a save, checked and
 * concatenated at a load.
 */
#include "sl_sfframes.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "sl_zstd.h"

/* Whether src starts with the directory's magic. */
int
sl_sffr_is(const uint8_t *src, size_t len)
{
	return len >= 4 && memcmp(src, SL_SFFR_MAGIC, 4) == 0;
}

/* The key of a group: XXH3-128 of its raw bytes, high 64 bits first, big-endian. */
static void
group_key(const uint8_t *p, size_t len, uint8_t key[SL_SFFR_KEY])
{
	XXH128_hash_t h = XXH3_128bits(p, len);

	sl_put_u64be(key, h.high64);
	sl_put_u64be(key + 8, h.low64);
}

/* Whether a group of small records ends after the chunk at (x, z): about one chunk in four, by position. */
static int
group_ends_after(int32_t x, int32_t z)
{
	uint32_t	h = (uint32_t) x * 0x9E3779B1u ^ (uint32_t) z * 0x85EBCA77u;

	h ^= h >> 15;
	h *= 0xC2B2AE3Du;
	h ^= h >> 13;
	return (h & 3) == 0;
}

/* Decode the n entries of a directory's frame list at p. */
static int
read_entries(const uint8_t *p, uint32_t n, sl_sffr_frame **out, sl_err *err)
{
	sl_sffr_frame *f = sl_alloc_err(sizeof(sl_sffr_frame) * (n ? n : 1), err);

	if (f == NULL)
		return -1;
	for (uint32_t i = 0; i < n; i++, p += SL_SFFR_ENTRY)
	{
		memcpy(f[i].key, p, SL_SFFR_KEY);
		f[i].clen = sl_get_u32le(p + 16);
		f[i].rlen = sl_get_u32le(p + 20);
		f[i].sum = sl_get_u64le(p + 24);
	}
	*out = f;
	return 0;
}

/* Open and check a directory. */
int
sl_sffr_open(const uint8_t *src, size_t len, sl_sffr_dir *d, sl_err *err)
{
	size_t		at;
	uint64_t	raw = 0,
				comp = 0;

	memset(d, 0, sizeof(*d));
	if (!sl_sffr_is(src, len) || len < SL_SFFR_FIXED + 4 + SL_SFFR_SUM)
		return sl_fail(err, SL_ERR_CORRUPT, "not a framed slime file directory of %zu bytes (offset 0)", len);
	if (src[4] != SL_SFFR_VERSION)
		return sl_fail(err, SL_ERR_UNSUPPORTED, "framed slime file directory version %d is not known (offset 4)",
					   src[4]);
	/* nothing of it is used before its checksum passed */
	if (XXH64(src, len - SL_SFFR_SUM, 0) != sl_get_u64le(src + len - SL_SFFR_SUM))
		return sl_fail(err, SL_ERR_CORRUPT, "framed slime file directory checksum mismatch (offset %zu)",
					   len - SL_SFFR_SUM);
	d->head = src + 5;
	d->raw_len = sl_get_u32le(src + 13);
	d->n = sl_get_u32le(src + 17);
	at = SL_SFFR_FIXED;
	if (d->n > SL_SFFR_MAX_FRAMES || (size_t) d->n * SL_SFFR_ENTRY > len - at - 4 - SL_SFFR_SUM)
		return sl_fail(err, SL_ERR_CORRUPT, "framed slime file directory: %u frames do not fit its %zu bytes (offset 17)",
					   d->n, len);
	at += (size_t) d->n * SL_SFFR_ENTRY;
	d->extra_len = sl_get_u32le(src + at);
	if (d->extra_len != len - at - 4 - SL_SFFR_SUM)
		return sl_fail(err, SL_ERR_CORRUPT, "framed slime file directory: extra block of %u bytes where %zu are left (offset %zu)",
					   d->extra_len, len - at - 4 - SL_SFFR_SUM, at);
	d->extra = src + at + 4;
	if (memcmp(d->head, "\xB1\x0B\x0D", 3) != 0)
		return sl_fail(err, SL_ERR_CORRUPT, "framed slime file directory: the header is not a version-13 slime file's (offset 5)");
	if (read_entries(src + SL_SFFR_FIXED, d->n, &d->f, err))
		return -1;
	for (uint32_t i = 0; i < d->n; i++)
	{
		raw += d->f[i].rlen;
		comp += d->f[i].clen;
	}
	if (raw != d->raw_len || comp > INT32_MAX)
	{
		sl_sffr_dir_free(d);
		return sl_fail(err, SL_ERR_CORRUPT,
					   "framed slime file directory: frames of %llu raw and %llu compressed bytes for a chunk block of %u raw bytes",
					   (unsigned long long) raw, (unsigned long long) comp, (unsigned) sl_get_u32le(src + 13));
	}
	return 0;
}

/* Free what sl_sffr_open allocated. */
void
sl_sffr_dir_free(sl_sffr_dir *d)
{
	sl_free(d->f);
	d->f = NULL;
}

/* Order frames by key (a previous directory's, for lookups). */
static int
cmp_key(const void *a, const void *b)
{
	return memcmp(((const sl_sffr_frame *) a)->key, ((const sl_sffr_frame *) b)->key, SL_SFFR_KEY);
}

/* Append a directory entry. */
static int
put_entry(sl_buf *out, const sl_sffr_frame *f, sl_err *err)
{
	uint8_t		e[SL_SFFR_ENTRY];

	memcpy(e, f->key, SL_SFFR_KEY);
	sl_put_u32le(e + 16, f->clen);
	sl_put_u32le(e + 20, f->rlen);
	sl_put_u64le(e + 24, f->sum);
	return sl_buf_put(out, e, sizeof(e), err);
}

/*
 * Add group raw[start..end) as the next frame, its key given (key, NULL:
 * hashed here): the previous directory's when it has its key, else
 * compressed.
 */
static int
add_group(sl_sffr_built *b, const uint8_t *raw, size_t start, size_t end, const uint8_t *key,
		  const sl_sffr_frame *prev, uint32_t nprev, int level, size_t *cap, size_t *newcap, sl_err *err)
{
	sl_sffr_frame f;
	const sl_sffr_frame *old = NULL;
	size_t		off = b->bytes.len;

	sl_interrupt();
	memset(&f, 0, sizeof(f));
	if (key)
		memcpy(f.key, key, SL_SFFR_KEY);
	else
		group_key(raw + start, end - start, f.key);
	f.rlen = (uint32_t) (end - start);
	if (prev)
		old = bsearch(&f, prev, nprev, sizeof(*prev), cmp_key);
	if (old && old->rlen == f.rlen)
	{
		f.clen = old->clen;
		f.sum = old->sum;
	}
	else
	{
		if (sl_zstd_frame(raw + start, end - start, level, &b->bytes, err))
			return -1;
		if (b->bytes.len - off > UINT32_MAX)
			return sl_fail(err, SL_ERR_LIMIT, "a frame of the chunk block exceeds 4 GiB");
		f.clen = (uint32_t) (b->bytes.len - off);
		f.sum = XXH64(b->bytes.data + off, f.clen, 0);
		if (b->nnew == *newcap && sl_grow((void **) &b->news, newcap, sizeof(sl_sffr_new), 16, "new frames", err))
			return -1;
		b->news[b->nnew].index = b->n;
		b->news[b->nnew].off = off;
		b->nnew++;
	}
	if (b->n >= SL_SFFR_MAX_FRAMES)
		return sl_fail(err, SL_ERR_LIMIT, "the chunk block would be more than %d frames", SL_SFFR_MAX_FRAMES);
	if (b->n == *cap && sl_grow((void **) &b->f, cap, sizeof(sl_sffr_frame), 32, "frames", err))
		return -1;
	b->f[b->n++] = f;
	return 0;
}

/* The framed form of a version-13 file. */
int
sl_sffr_build(const uint8_t *file, size_t len, const uint8_t *raw, size_t raw_len,
			  const size_t *rec_end, const uint8_t (*rec_key)[SL_SFFR_KEY], size_t nrec,
			  const sl_sffr_dir *prev, int level, sl_sffr_built *out, sl_err *err)
{
	const uint8_t head[5] = {'S', 'L', 'F', 'R', SL_SFFR_VERSION};
	sl_sffr_frame *sorted = NULL;
	uint32_t	nprev = 0;
	size_t		cap = 0,
				newcap = 0,
				clen,
				gs = 0,
				rs = 0,
				extra_at;
	uint8_t		fixed[8];
	uint8_t		sum[SL_SFFR_SUM];
	int			rc = -1;

	memset(out, 0, sizeof(*out));
	if (len < 16 || memcmp(file, "\xB1\x0B\x0D", 3) != 0)
		return sl_fail(err, SL_ERR_UNSUPPORTED, "only a version-13 slime file is kept in frames");
	clen = sl_get_u32be(file + 8);
	extra_at = 16 + clen;
	if (clen > len - 16 || sl_get_u32be(file + 12) != raw_len || raw_len > UINT32_MAX ||
		len - extra_at > UINT32_MAX || (nrec && rec_end[nrec - 1] != raw_len))
		return sl_fail(err, SL_ERR_FORMAT, "slime file v13: its chunk block is not the one read");
	if (prev && prev->n)
	{
		if ((sorted = sl_alloc_err(sizeof(*sorted) * prev->n, err)) == NULL)
			return -1;
		memcpy(sorted, prev->f, sizeof(*sorted) * prev->n);
		qsort(sorted, prev->n, sizeof(*sorted), cmp_key);
		nprev = prev->n;
	}
	/*
	 * Groups end at record ends: a large record alone; small ones together,
	 * a group ending after a record whose position says so (about one in
	 * four) or once it is large, so that a chunk whose record changes size
	 * moves no other group's bounds. The count goes with the first record.
	 */
	for (size_t i = 0; i < nrec; i++)
	{
		size_t		re = rec_end[i];
		size_t		at = i == 0 ? 4 : rs;
		int			big;

		if (re < rs || re > raw_len || at + 8 > re)
		{
			sl_fail(err, SL_ERR_FORMAT, "slime file v13: chunk records out of order");
			goto done;
		}
		big = re - rs >= SL_SFFR_GROUP_RAW;
		if (big && rs > gs)
		{
			/* a large record after small ones: they go without it */
			if (add_group(out, raw, gs, rs, NULL, sorted, nprev, level, &cap, &newcap, err))
				goto done;
			gs = rs;
		}
		rs = re;
		if (big || group_ends_after((int32_t) sl_get_u32be(raw + at), (int32_t) sl_get_u32be(raw + at + 4)) ||
			rs - gs >= SL_SFFR_GROUP_MAX)
		{
			/* a record alone after the count: its group's key is the record's */
			if (add_group(out, raw, gs, rs, rec_key && i > 0 && gs == rec_end[i - 1] ? rec_key[i] : NULL,
						  sorted, nprev, level, &cap, &newcap, err))
				goto done;
			gs = rs;
		}
	}
	if (gs < raw_len || out->n == 0)
	{
		if (add_group(out, raw, gs, raw_len, NULL, sorted, nprev, level, &cap, &newcap, err))
			goto done;
	}
	if (sl_buf_put(&out->dir, head, sizeof(head), err) ||
		sl_buf_put(&out->dir, file, SL_SFFR_HEAD, err))
		goto done;
	sl_put_u32le(fixed, (uint32_t) raw_len);
	sl_put_u32le(fixed + 4, out->n);
	if (sl_buf_put(&out->dir, fixed, sizeof(fixed), err))
		goto done;
	for (uint32_t i = 0; i < out->n; i++)
		if (put_entry(&out->dir, &out->f[i], err))
			goto done;
	sl_put_u32le(fixed, (uint32_t) (len - extra_at));
	if (sl_buf_put(&out->dir, fixed, 4, err) ||
		sl_buf_put(&out->dir, file + extra_at, len - extra_at, err))
		goto done;
	sl_put_u64le(sum, XXH64(out->dir.data, out->dir.len, 0));
	if (sl_buf_put(&out->dir, sum, sizeof(sum), err))
		goto done;
	rc = 0;
done:
	sl_free(sorted);
	if (rc)
		sl_sffr_built_free(out);
	return rc;
}

/* Free what sl_sffr_build made. */
void
sl_sffr_built_free(sl_sffr_built *b)
{
	sl_buf_free(&b->dir);
	sl_buf_free(&b->bytes);
	sl_free(b->news);
	sl_free(b->f);
	memset(b, 0, sizeof(*b));
}

/* The bytes of the file a directory's frames make: header, the chunk block's lengths and frames, extra block. */
size_t
sl_sffr_file_len(const sl_sffr_dir *d)
{
	size_t		len = SL_SFFR_HEAD + 8 + (size_t) d->extra_len;

	for (uint32_t i = 0; i < d->n; i++)
		len += d->f[i].clen;
	return len;
}

/* Order a directory's entries by key, then by index. */
static int
cmp_keyed(const void *a, const void *b)
{
	const sl_sffr_keyed *x = a,
			   *y = b;
	int			c = memcmp(x->key, y->key, SL_SFFR_KEY);

	return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* Start placing d's frames into out (sl_sffr_file_len(d) bytes): its header, lengths and extra block written. */
int
sl_sffr_placer_init(sl_sffr_placer *p, const sl_sffr_dir *d, uint8_t *out, sl_err *err)
{
	size_t		at = SL_SFFR_HEAD + 8;
	uint64_t	comp = 0;
	uint32_t	n = d->n ? d->n : 1;

	memset(p, 0, sizeof(*p));
	p->d = d;
	p->out = out;
	p->order = sl_alloc_err(sizeof(sl_sffr_keyed) * n, err);
	p->off = p->order ? sl_alloc_err(sizeof(size_t) * n, err) : NULL;
	p->state = p->off ? sl_alloc_err(n, err) : NULL;
	if (p->state == NULL)
	{
		sl_sffr_placer_free(p);
		return -1;
	}
	for (uint32_t i = 0; i < d->n; i++)
	{
		memcpy(p->order[i].key, d->f[i].key, SL_SFFR_KEY);
		p->order[i].index = i;
		p->off[i] = at;
		p->state[i] = SL_SFFR_MISSING;
		at += d->f[i].clen;
		comp += d->f[i].clen;
	}
	qsort(p->order, d->n, sizeof(sl_sffr_keyed), cmp_keyed);
	memcpy(out, d->head, SL_SFFR_HEAD);
	sl_put_u32be(out + SL_SFFR_HEAD, (uint32_t) comp);
	sl_put_u32be(out + SL_SFFR_HEAD + 4, d->raw_len);
	if (d->extra_len)
		memcpy(out + at, d->extra, d->extra_len);
	return 0;
}

/* The first entry of p's key order whose key is key's or after it. */
static uint32_t
first_of_key(const sl_sffr_placer *p, const uint8_t *key)
{
	uint32_t	lo = 0,
				hi = p->d->n;

	while (lo < hi)
	{
		uint32_t	mid = lo + (hi - lo) / 2;

		if (memcmp(p->order[mid].key, key, SL_SFFR_KEY) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Whether a row of key (klen bytes) would place a frame: an entry names it and has not been placed. */
int
sl_sffr_wants(const sl_sffr_placer *p, const uint8_t *key, size_t klen)
{
	if (klen != SL_SFFR_KEY)
		return 0;
	for (uint32_t i = first_of_key(p, key); i < p->d->n && memcmp(p->order[i].key, key, SL_SFFR_KEY) == 0; i++)
		if (p->state[p->order[i].index] != SL_SFFR_PLACED)
			return 1;
	return 0;
}

/*
 * Place a frame row (its key of klen bytes, its len bytes) at every entry
 * of the directory that names its key, each checked against its length and
 * XXH64 first (an entry whose check fails is noted, not written). A key the
 * directory does not name is ignored, as is another length than a key's.
 */
void
sl_sffr_place(sl_sffr_placer *p, const uint8_t *key, size_t klen, const uint8_t *data, size_t len)
{
	const sl_sffr_dir *d = p->d;
	uint32_t	lo;
	uint64_t	sum = 0;
	int			summed = 0;

	if (klen != SL_SFFR_KEY)
		return;
	lo = first_of_key(p, key);
	for (; lo < d->n && memcmp(p->order[lo].key, key, SL_SFFR_KEY) == 0; lo++)
	{
		uint32_t	i = p->order[lo].index;

		if (p->state[i] == SL_SFFR_PLACED)
			continue;
		if (len != d->f[i].clen)
		{
			p->state[i] = SL_SFFR_BAD_LENGTH;
			continue;
		}
		if (!summed)
		{
			sum = XXH64(data, len, 0);
			summed = 1;
		}
		if (sum != d->f[i].sum)
		{
			p->state[i] = SL_SFFR_BAD_SUM;
			continue;
		}
		memcpy(p->out + p->off[i], data, len);
		p->state[i] = SL_SFFR_PLACED;
	}
}

/* Whether every frame was placed; else SL_ERR_CORRUPT naming the first (in the file's order) that was not. */
int
sl_sffr_placer_finish(const sl_sffr_placer *p, sl_err *err)
{
	char		hex[2 * SL_SFFR_KEY + 1];

	for (uint32_t i = 0; i < p->d->n; i++)
	{
		if (p->state[i] == SL_SFFR_PLACED)
			continue;
		sl_hex(p->d->f[i].key, SL_SFFR_KEY, hex);
		if (p->state[i] == SL_SFFR_MISSING)
			return sl_fail(err, SL_ERR_CORRUPT, "frame %u of the chunk block (key %s) is missing", i, hex);
		return sl_fail(err, SL_ERR_CORRUPT, "frame %u of the chunk block (key %s): %s mismatch", i, hex,
					   p->state[i] == SL_SFFR_BAD_LENGTH ? "length" : "checksum");
	}
	return 0;
}

/* Free what sl_sffr_placer_init allocated. */
void
sl_sffr_placer_free(sl_sffr_placer *p)
{
	sl_free(p->order);
	sl_free(p->off);
	sl_free(p->state);
	p->order = NULL;
	p->off = NULL;
	p->state = NULL;
}

/* Append the file of a directory, its frames found by key and checked (sl_sffr_placer). */
int
sl_sffr_assemble(const sl_sffr_dir *d, sl_sffr_find_fn find, void *ctx, sl_buf *out, sl_err *err)
{
	size_t		len = sl_sffr_file_len(d);
	sl_sffr_placer p;
	int			rc = -1;

	if (sl_buf_reserve(out, len, err) || sl_sffr_placer_init(&p, d, out->data + out->len, err))
		return -1;
	for (uint32_t i = 0; i < d->n; i++)
	{
		const uint8_t *data;
		size_t		n;
		int			found;

		sl_interrupt();
		if (p.state[i] != SL_SFFR_MISSING)
			continue;			/* placed (or found damaged) with an earlier entry of its key */
		found = find(ctx, d->f[i].key, &data, &n, err);
		if (found < 0)
			goto done;
		if (found == 0)
			sl_sffr_place(&p, d->f[i].key, SL_SFFR_KEY, data, n);
	}
	if (sl_sffr_placer_finish(&p, err) == 0)
	{
		out->len += len;
		rc = 0;
	}
done:
	sl_sffr_placer_free(&p);
	return rc;
}
