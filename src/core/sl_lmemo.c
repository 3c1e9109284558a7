/*
 * sl_lmemo.c - a world loader's memo of its previous save's chunks
 * (sl_lmemo.h has the format and what it is for).
 */
#include "sl_lmemo.h"
#include "sl_zstd.h"
#include "sl_codec.h"
#include "sl_store.h"
#include "sl_vdir.h"
#include "sl_vsum.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

/* The context bytes of a file's facts. */
void
sl_lmemo_context(uint8_t ctx[SL_LMEMO_CTX], int version, int flags, int sec_min, int sec_max,
				 int32_t data_version)
{
	ctx[0] = (uint8_t) version;
	ctx[1] = (uint8_t) flags;
	ctx[2] = (uint8_t) (int8_t) sec_min;
	ctx[3] = (uint8_t) (int8_t) sec_max;
	sl_put_u32le(ctx + 4, (uint32_t) data_version);
}

/* XXH3-128 of a record, high half first, each half big-endian. */
void
sl_lmemo_xxh(const uint8_t *p, size_t len, uint8_t out[16])
{
	XXH128_hash_t h = XXH3_128bits(p, len);

	for (int i = 0; i < 8; i++)
	{
		out[i] = (uint8_t) (h.high64 >> (56 - 8 * i));
		out[8 + i] = (uint8_t) (h.low64 >> (56 - 8 * i));
	}
}

/* Order entries by chunk key. */
static int
cmp_ent(const void *a, const void *b)
{
	uint64_t	ka = sl_chunk_key(((const sl_lmemo_ent *) a)->x, ((const sl_lmemo_ent *) a)->z);
	uint64_t	kb = sl_chunk_key(((const sl_lmemo_ent *) b)->x, ((const sl_lmemo_ent *) b)->z);

	return ka < kb ? -1 : ka > kb;
}

/* Point entry e at a copy of sum (len bytes) in the memo's arena. */
static int
set_sum(sl_lmemo *m, sl_lmemo_ent *e, const uint8_t *sum, uint32_t len, sl_err *err)
{
	uint8_t    *copy = NULL;

	if (sum)
	{
		copy = sl_arena_alloc(&m->sums, len ? len : 1, err);
		if (copy == NULL)
			return -1;
		memcpy(copy, sum, len);
	}
	e->sum = copy;
	e->sum_len = sum ? len : 0;
	return 0;
}

/* Append an entry, its summary copied. */
int
sl_lmemo_add(sl_lmemo *m, const sl_lmemo_ent *e, sl_err *err)
{
	if (m->n == m->cap &&
		sl_grow((void **) &m->e, &m->cap, sizeof(sl_lmemo_ent), 64, "loader memo entries", err))
		return -1;
	m->e[m->n] = *e;
	if (set_sum(m, &m->e[m->n], e->sum, e->sum_len, err))
		return -1;
	m->n++;
	m->sorted = 0;
	return 0;
}

/* Whether a chunk summary's bytes decode. */
static int
sum_ok(const uint8_t *p, size_t len)
{
	sl_vsum		s;
	sl_err		err;
	int			rc;

	memset(&s, 0, sizeof(s));
	rc = sl_vsum_decode(p, len, &s, &err);
	sl_vsum_free(&s);
	return rc == 0;
}

/* Decode the version 2 memo a version 3 one (p, len) holds. */
static int
decode_v3(const uint8_t *p, size_t len, sl_lmemo *m, sl_err *err)
{
	uint32_t	raw_len;
	uint8_t    *raw;
	int			rc;

	if (len < 8)
		return sl_fail(err, SL_ERR_FORMAT, "loader memo: no memo header (%zu bytes)", len);
	raw_len = sl_get_u32le(p + 4);
	if (raw_len < SL_LMEMO_HEADER || raw_len > SL_LMEMO_MAX_RAW)
		return sl_fail(err, SL_ERR_FORMAT, "loader memo: a version 2 memo of %u bytes", (unsigned) raw_len);
	raw = sl_alloc_err(raw_len, err);
	if (raw == NULL)
		return -1;
	if (sl_zstd_unframe(p + 8, len - 8, raw, raw_len, err))
	{
		sl_free(raw);
		if (err && err->code != SL_ERR_NOMEM)
			err->code = SL_ERR_FORMAT;
		sl_err_prefix(err, "loader memo");
		return -1;
	}
	/* version 2 inside, never 3 again: the entries' summaries are copied, so raw may go */
	rc = raw_len >= 4 && memcmp(raw, SL_LMEMO_MAGIC, 4) == 0 ? sl_lmemo_decode(raw, raw_len, m, err) :
		sl_fail(err, SL_ERR_FORMAT, "loader memo: version 3 holds no version 2 memo");
	sl_free(raw);
	return rc;
}

/* Decode a stored memo; every entry is usable. */
int
sl_lmemo_decode(const uint8_t *p, size_t len, sl_lmemo *m, sl_err *err)
{
	uint32_t	count;
	size_t		pos = SL_LMEMO_HEADER;
	uint8_t		zero[4] = {0};
	uint32_t	crc;

	memset(m, 0, sizeof(*m));
	if (len >= 4 && memcmp(p, "SLM1", 4) == 0)
		return sl_fail(err, SL_ERR_FORMAT, "loader memo: version 1 keeps no contents summaries");
	if (len >= 4 && memcmp(p, SL_LMEMO_MAGIC3, 4) == 0)
		return decode_v3(p, len, m, err);
	if (len < SL_LMEMO_HEADER || memcmp(p, SL_LMEMO_MAGIC, 4) != 0)
		return sl_fail(err, SL_ERR_FORMAT, "loader memo: no memo header (%zu bytes)", len);
	crc = sl_crc32(sl_crc32(sl_crc32(0, p, 16), zero, 4), p + 20, len - 20);
	if (crc != sl_get_u32le(p + 16))
		return sl_fail(err, SL_ERR_FORMAT, "loader memo: checksum mismatch");
	count = sl_get_u32le(p + 12);
	if (count > (len - SL_LMEMO_HEADER) / (SL_LMEMO_ENTRY + 4))
		return sl_fail(err, SL_ERR_FORMAT, "loader memo: %zu bytes do not hold %u entries",
					   len, (unsigned) count);
	memcpy(m->ctx, p + 4, SL_LMEMO_CTX);
	m->has_ctx = 1;
	m->e = count ? sl_alloc_err((size_t) count * sizeof(sl_lmemo_ent), err) : NULL;
	if (count && m->e == NULL)
		return -1;
	m->cap = count;
	for (uint32_t i = 0; i < count; i++)
	{
		const uint8_t *q = p + pos;
		sl_lmemo_ent *e = &m->e[i];
		uint32_t	sum_len;

		if (len - pos < SL_LMEMO_ENTRY + 4 ||
			(sum_len = sl_get_u32le(q + SL_LMEMO_ENTRY)) > len - pos - SL_LMEMO_ENTRY - 4)
		{
			sl_lmemo_free(m);
			return sl_fail(err, SL_ERR_FORMAT, "loader memo: entry %u is truncated", (unsigned) i);
		}
		e->x = (int32_t) sl_get_u32le(q);
		e->z = (int32_t) sl_get_u32le(q + 4);
		e->rec_len = sl_get_u32le(q + 8);
		memcpy(e->xxh, q + 12, 16);
		memcpy(e->hash, q + 28, 32);
		e->data_version = (int32_t) sl_get_u32le(q + 60);
		e->timestamp = sl_get_u32le(q + 64);
		for (int k = 0; k < SL_NCOMP; k++)
			e->len[k] = sl_get_u32le(q + 68 + 4 * k);
		e->sum = q + SL_LMEMO_ENTRY + 4;
		e->sum_len = sum_len;
		e->known = e->usable = 1;
		m->n = i + 1;
		pos += SL_LMEMO_ENTRY + 4 + (size_t) sum_len;
		if (i > 0 && cmp_ent(&m->e[i - 1], e) >= 0)
		{
			sl_lmemo_free(m);
			return sl_fail(err, SL_ERR_FORMAT, "loader memo: entry %u is out of order", (unsigned) i);
		}
		if (e->rec_len < 8 || (uint64_t) e->len[0] + e->len[1] + e->len[2] == 0 ||
			!sum_ok(e->sum, e->sum_len))
		{
			sl_lmemo_free(m);
			return sl_fail(err, SL_ERR_FORMAT, "loader memo: entry %u is empty or its summary malformed",
						   (unsigned) i);
		}
		/* the memo owns its entries' summaries: the input may go */
		if (set_sum(m, e, e->sum, e->sum_len, err))
		{
			sl_lmemo_free(m);
			return -1;
		}
	}
	if (pos != len)
	{
		sl_lmemo_free(m);
		return sl_fail(err, SL_ERR_FORMAT, "loader memo: %zu stray bytes", len - pos);
	}
	m->sorted = 1;
	return 0;
}

/* Append the stored form (version 3: version 2's, compressed) of the known entries to out. */
int
sl_lmemo_encode(sl_lmemo *m, sl_buf *out, sl_err *err)
{
	sl_buf		v2 = {0};
	uint8_t		hdr[8];
	size_t		start = out->len;
	int			rc;

	if (sl_lmemo_encode_v2(m, &v2, err))
	{
		sl_buf_free(&v2);
		return -1;
	}
	memcpy(hdr, SL_LMEMO_MAGIC3, 4);
	sl_put_u32le(hdr + 4, (uint32_t) v2.len);
	rc = v2.len > SL_LMEMO_MAX_RAW ?
		sl_fail(err, SL_ERR_LIMIT, "loader memo: %zu bytes exceed the memo cap", v2.len) :
		sl_buf_put(out, hdr, sizeof(hdr), err) ||
		sl_zstd_frame(v2.data, v2.len, SL_LMEMO_ZSTD_LEVEL, out, err) ? -1 : 0;
	if (rc)
		out->len = start;
	sl_buf_free(&v2);
	return rc;
}

/* Append version 2's form of the known entries to out. */
int
sl_lmemo_encode_v2(sl_lmemo *m, sl_buf *out, sl_err *err)
{
	uint8_t		hdr[SL_LMEMO_HEADER];
	size_t		start = out->len;
	uint32_t	count = 0;
	uint8_t		zero[4] = {0};
	uint32_t	crc;

	if (!m->sorted && m->n > 1)
		qsort(m->e, m->n, sizeof(sl_lmemo_ent), cmp_ent);
	m->sorted = 1;
	memcpy(hdr, SL_LMEMO_MAGIC, 4);
	memcpy(hdr + 4, m->ctx, SL_LMEMO_CTX);
	sl_put_u32le(hdr + 12, 0);
	sl_put_u32le(hdr + 16, 0);
	if (sl_buf_put(out, hdr, sizeof(hdr), err))
		return -1;
	for (size_t i = 0; i < m->n; i++)
	{
		const sl_lmemo_ent *e = &m->e[i];
		uint8_t		q[SL_LMEMO_ENTRY + 4];

		/* a position twice (a malformed file), a chunk never converted or uncounted: not kept */
		if (!e->known || e->sum == NULL || (i + 1 < m->n && cmp_ent(e, &m->e[i + 1]) == 0) ||
			(i > 0 && cmp_ent(e, &m->e[i - 1]) == 0))
			continue;
		sl_put_u32le(q, (uint32_t) e->x);
		sl_put_u32le(q + 4, (uint32_t) e->z);
		sl_put_u32le(q + 8, e->rec_len);
		memcpy(q + 12, e->xxh, 16);
		memcpy(q + 28, e->hash, 32);
		sl_put_u32le(q + 60, (uint32_t) e->data_version);
		sl_put_u32le(q + 64, e->timestamp);
		for (int k = 0; k < SL_NCOMP; k++)
			sl_put_u32le(q + 68 + 4 * k, e->len[k]);
		sl_put_u32le(q + SL_LMEMO_ENTRY, e->sum_len);
		if (sl_buf_put(out, q, sizeof(q), err) || sl_buf_put(out, e->sum, e->sum_len, err))
			return -1;
		count++;
	}
	sl_put_u32le(out->data + start + 12, count);
	crc = sl_crc32(sl_crc32(sl_crc32(0, out->data + start, 16), zero, 4), out->data + start + 20,
				   out->len - start - 20);
	sl_put_u32le(out->data + start + 16, crc);
	return 0;
}

/* The entry of chunk (x,z) in a sorted memo, or NULL. */
static sl_lmemo_ent *
find(const sl_lmemo *m, int32_t x, int32_t z)
{
	sl_lmemo_ent key;

	if (m->n == 0 || !m->sorted)
		return NULL;
	key.x = x;
	key.z = z;
	return bsearch(&key, m->e, m->n, sizeof(sl_lmemo_ent), cmp_ent);
}

/* The usable entry of chunk (x,z) in context ctx, or NULL. */
const sl_lmemo_ent *
sl_lmemo_find(const sl_lmemo *m, const uint8_t ctx[SL_LMEMO_CTX], int32_t x, int32_t z)
{
	const sl_lmemo_ent *e;

	if (m == NULL || !m->has_ctx || memcmp(m->ctx, ctx, SL_LMEMO_CTX) != 0)
		return NULL;
	e = find(m, x, z);
	return e && e->usable && (e->known || e->checked) ? e : NULL;
}

/* Encode one chunk (a run of inline pieces) as a store entry; fill d and hash, and count it into sum (its raw bytes). */
static int
store_run(const sl_piece *run, size_t count, int level, const sl_limits *lim,
		  sl_lmemo_put_fn put, void *put_ctx, sl_dirent *d, sl_buf *sum, sl_err *err)
{
	const uint8_t *comp[SL_NCOMP] = {NULL, NULL, NULL};
	sl_buf		entry = {0};
	sl_vsum		one;
	int			rc;

	memset(d, 0, sizeof(*d));
	d->x = run[0].x;
	d->z = run[0].z;
	d->timestamp = run[0].timestamp;
	d->data_version = SL_NO_DV;
	for (size_t j = 0; j < count; j++)
	{
		if (run[j].comp == SL_PIECE_REF || comp[run[j].comp] != NULL)
			return sl_fail(err, SL_ERR_DUPLICATE, "chunk (%d,%d) appears more than once",
						   d->x, d->z);
		comp[run[j].comp] = run[j].data;
		d->len[run[j].comp] = run[j].len;
	}
	for (int k = 0; k < SL_NCOMP && d->data_version == SL_NO_DV; k++)
		if (d->len[k])
			d->data_version = sl_data_version(comp[k], d->len[k], lim);
	memset(&one, 0, sizeof(one));
	sum->len = 0;
	rc = sl_store_entry_encode(d->len, comp, level, &entry, d->hash, err) ||
		put(put_ctx, d->hash, entry.data, entry.len, err) ||
		sl_vsum_chunk(&one, d->data_version, comp, d->len, 1, err) ||
		sl_vsum_encode(&one, sum, err) ? -1 : 0;
	sl_vsum_free(&one);
	sl_buf_free(&entry);
	return rc;
}

/* Turn every chunk held inline into a reference to a store entry put() keeps. */
int
sl_lmemo_store_chunks(sl_builder *b, sl_lmemo *m, int level, const sl_limits *lim,
					  sl_lmemo_put_fn put, void *put_ctx, sl_err *err)
{
	sl_builder	nb;
	sl_vsum    *total;
	sl_buf		sum = {0};
	int			counted = 1;	/* every chunk's summary is known */
	int			rc = -1;

	if (lim == NULL)
		lim = &sl_default_limits;
	memset(&nb, 0, sizeof(nb));
	nb.sum_manual = 1;
	total = nb.sum = sl_alloc_err(sizeof(sl_vsum), err);
	if (total == NULL)
		return -1;
	memset(total, 0, sizeof(*total));
	if (b->n > 1)
		qsort(b->pieces, b->n, sizeof(sl_piece), sl_piece_cmp);
	if (m && !m->sorted && m->n > 1)
		qsort(m->e, m->n, sizeof(sl_lmemo_ent), cmp_ent);
	if (m)
		m->sorted = 1;
	for (size_t i = 0; i < b->n;)
	{
		size_t		j = i + 1;
		int			has_ref = b->pieces[i].comp == SL_PIECE_REF;
		sl_dirent	d;
		sl_lmemo_ent *e;

		while (j < b->n && b->pieces[j].key == b->pieces[i].key)
			has_ref |= b->pieces[j++].comp == SL_PIECE_REF;
		if (has_ref)
		{
			/* kept as it is (a reference beside other data fails at encode) */
			for (size_t k = i; k < j; k++)
			{
				if (sl_builder_add(&nb, b->pieces[k].comp, b->pieces[k].x, b->pieces[k].z,
								   b->pieces[k].timestamp, b->pieces[k].data, b->pieces[k].len,
								   b->pieces[k].owned, err))
					goto done;
				b->pieces[k].owned = 0;
				nb.pieces[nb.n - 1].ref_dv = b->pieces[k].ref_dv;
				memcpy(nb.pieces[nb.n - 1].ref_len, b->pieces[k].ref_len, sizeof(b->pieces[k].ref_len));
				if (b->pieces[k].comp == SL_PIECE_REF)
					nb.total += (uint64_t) b->pieces[k].ref_len[0] + b->pieces[k].ref_len[1] +
						b->pieces[k].ref_len[2] - 32;
			}
			/* a reused chunk: its summary from the memo */
			e = m && j == i + 1 ? find(m, b->pieces[i].x, b->pieces[i].z) : NULL;
			if (e == NULL || e->sum == NULL)
				counted = 0;
			else if (counted && sl_vsum_decode(e->sum, e->sum_len, total, err))
				goto done;
			i = j;
			continue;
		}
		sl_interrupt();
		if (store_run(&b->pieces[i], j - i, level, lim, put, put_ctx, &d, &sum, err) ||
			sl_vsum_decode(sum.data, sum.len, total, err) ||
			sl_builder_add_ref(&nb, &d, d.hash, err))
			goto done;
		if (m && (e = find(m, d.x, d.z)) != NULL)
		{
			memcpy(e->hash, d.hash, 32);
			e->data_version = d.data_version;
			e->timestamp = d.timestamp;
			memcpy(e->len, d.len, sizeof(e->len));
			if (set_sum(m, e, sum.data, (uint32_t) sum.len, err))
				goto done;
			e->known = 1;
		}
		i = j;
	}
	/* the world compound moves over; the inline pieces go */
	nb.world = b->world;
	nb.world_len = b->world_len;
	b->world = NULL;
	if (!counted)
		sl_builder_sum_lose(&nb);
	nb.sum_manual = 0;
	sl_builder_free(b);
	*b = nb;
	rc = 0;
done:
	sl_buf_free(&sum);
	if (rc)
		sl_builder_free(&nb);
	return rc;
}

/* The records list of m (sl_lmemo.h). */
int
sl_lmemo_encode_records(const sl_lmemo *m, sl_buf *out, sl_err *err)
{
	size_t		start = out->len;
	uint8_t		head[17];
	uint8_t		sum[8];

	memcpy(head, SL_LMEMO_RECORDS_MAGIC, 4);
	head[4] = 1;
	memcpy(head + 5, m->ctx, SL_LMEMO_CTX);
	sl_put_u32le(head + 13, (uint32_t) m->n);
	if (sl_buf_put(out, head, sizeof(head), err))
		return -1;
	for (size_t i = 0; i < m->n; i++)
	{
		uint8_t		q[28];

		sl_put_u32le(q, (uint32_t) m->e[i].x);
		sl_put_u32le(q + 4, (uint32_t) m->e[i].z);
		sl_put_u32le(q + 8, m->e[i].rec_len);
		memcpy(q + 12, m->e[i].xxh, 16);
		if (sl_buf_put(out, q, sizeof(q), err))
			return -1;
	}
	sl_put_u64le(sum, XXH64(out->data + start, out->len - start, 0));
	return sl_buf_put(out, sum, sizeof(sum), err);
}

/* Add a records list to m as checked entries (sl_lmemo.h). */
int
sl_lmemo_add_records(sl_lmemo *m, const uint8_t *p, size_t len, sl_err *err)
{
	uint32_t	n;
	size_t		had;

	if (len < 25 || memcmp(p, SL_LMEMO_RECORDS_MAGIC, 4) != 0 || p[4] != 1)
		return sl_fail(err, SL_ERR_FORMAT, "records list: not one of version 1");
	if (XXH64(p, len - 8, 0) != sl_get_u64le(p + len - 8))
		return sl_fail(err, SL_ERR_FORMAT, "records list: checksum mismatch");
	n = sl_get_u32le(p + 13);
	if ((uint64_t) n * 28 != len - 25)
		return sl_fail(err, SL_ERR_FORMAT, "records list: %u entries in %zu bytes", n, len);
	if (m->has_ctx && memcmp(m->ctx, p + 5, SL_LMEMO_CTX) != 0)
		return 0;
	if (!m->sorted && m->n > 1)
		qsort(m->e, m->n, sizeof(sl_lmemo_ent), cmp_ent);
	m->sorted = 1;
	memcpy(m->ctx, p + 5, SL_LMEMO_CTX);
	m->has_ctx = 1;
	had = m->n;
	for (uint32_t i = 0; i < n; i++)
	{
		const uint8_t *q = p + 17 + (size_t) 28 * i;
		sl_lmemo_ent e;
		sl_lmemo_ent *old;

		memset(&e, 0, sizeof(e));
		e.x = (int32_t) sl_get_u32le(q);
		e.z = (int32_t) sl_get_u32le(q + 4);
		e.rec_len = sl_get_u32le(q + 8);
		memcpy(e.xxh, q + 12, 16);
		e.checked = 1;
		e.usable = 1;
		/* looked up among the entries m had: the list names each position once */
		old = NULL;
		if (had > 0)
		{
			sl_lmemo_ent key = e;

			old = bsearch(&key, m->e, had, sizeof(sl_lmemo_ent), cmp_ent);
		}
		if (old && memcmp(old->xxh, e.xxh, 16) == 0 && old->rec_len == e.rec_len)
			continue;
		if (old)
		{
			*old = e;
			continue;
		}
		if (sl_lmemo_add(m, &e, err))
			return -1;
	}
	if (m->n > 1)
		qsort(m->e, m->n, sizeof(sl_lmemo_ent), cmp_ent);
	m->sorted = 1;
	return 0;
}

/* Free a memo's entries and their summaries. */
void
sl_lmemo_free(sl_lmemo *m)
{
	sl_free(m->e);
	sl_arena_free(&m->sums);
	memset(m, 0, sizeof(*m));
}
