/*
 * sl_build.c - gather chunks from region files or values into one value.
 */
#include "sl_build.h"
#include "sl_codec.h"
#include "sl_nbt.h"
#include "sl_vsum.h"

#include <stdlib.h>
#include <string.h>

/* Add one piece to the builder. */
int
sl_builder_add(sl_builder *b, int comp, int32_t x, int32_t z, uint32_t timestamp,
			   const uint8_t *data, size_t len, int owned, sl_err *err)
{
	sl_piece   *p;

	if (len == 0 || len > UINT32_MAX)
		return sl_fail(err, SL_ERR_INVALID, "chunk (%d,%d): bad data length %zu", x, z, len);
	if (!b->sum_manual)
		sl_builder_sum_lose(b);
	if (b->n == b->cap &&
		sl_grow((void **) &b->pieces, &b->cap, sizeof(sl_piece), 256, "chunks gathered", err))
		return -1;
	p = &b->pieces[b->n++];
	b->total += len;
	p->key = sl_chunk_key(x, z);
	p->x = x;
	p->z = z;
	p->timestamp = timestamp;
	p->comp = (uint8_t) comp;
	p->owned = owned ? 1 : 0;
	p->len = (uint32_t) len;
	p->data = data;
	return 0;
}

/* Move every chunk of a read region into the builder. */
int
sl_builder_add_region(sl_builder *b, int comp, sl_region *r, sl_err *err)
{
	for (int i = 0; i < r->nchunks; i++)
	{
		sl_region_chunk *c = &r->chunks[i];

		if (sl_builder_add(b, comp, c->x, c->z, c->timestamp, c->nbt, c->nbt_len, 1, err))
			return -1;
		c->nbt = NULL;			/* the builder owns it now */
	}
	return 0;
}

/* Copy len bytes into a fresh allocation. */
static uint8_t *
copy_bytes(const uint8_t *data, size_t len, sl_err *err)
{
	uint8_t    *p = sl_alloc_err(len, err);

	if (p)
		memcpy(p, data, len);
	return p;
}

/* Add a whole chunk as a reference to the store entry keyed by hash. */
int
sl_builder_add_ref(sl_builder *b, const sl_dirent *d, const uint8_t hash[32], sl_err *err)
{
	uint8_t    *copy = copy_bytes(hash, 32, err);
	sl_piece   *p;

	if (copy == NULL)
		return -1;
	if (sl_builder_add(b, SL_PIECE_REF, d->x, d->z, d->timestamp, copy, 32, 1, err))
	{
		sl_free(copy);
		return -1;
	}
	p = &b->pieces[b->n - 1];
	p->ref_dv = d->data_version;
	memcpy(p->ref_len, d->len, sizeof(p->ref_len));
	b->total += (uint64_t) d->len[0] + d->len[1] + d->len[2] - 32;
	return 0;
}

/* Add chunk i of an open value to the builder, treated as mode says. */
int
sl_builder_add_chunk(sl_builder *b, sl_value *v, uint32_t i, sl_add_mode mode, sl_err *err)
{
	sl_dirent	d;
	const uint8_t *comp[SL_NCOMP];
	uint8_t		hash[32];

	if (sl_value_dirent(v, i, &d, err))
		return -1;
	if (d.ref && mode != SL_ADD_RESOLVE)
		return sl_builder_add_ref(b, &d, d.hash, err);
	if (mode == SL_ADD_REFS)
	{
		if (sl_value_chunk_hash(v, i, hash, err))
			return -1;
		return sl_builder_add_ref(b, &d, hash, err);
	}
	if (sl_value_chunk(v, i, &d, comp, err))
		return -1;
	for (int k = 0; k < SL_NCOMP; k++)
	{
		uint8_t    *copy;

		if (d.len[k] == 0)
			continue;
		copy = copy_bytes(comp[k], d.len[k], err);
		if (copy == NULL)
			return -1;
		if (sl_builder_add(b, k, d.x, d.z, d.timestamp, copy, d.len[k], 1, err))
		{
			sl_free(copy);
			return -1;
		}
	}
	return 0;
}

/* Add the world data of an open value (if any) to the builder. */
int
sl_builder_add_world(sl_builder *b, sl_value *v, sl_err *err)
{
	const uint8_t *world;
	size_t		world_len;

	if (sl_value_world(v, &world, &world_len, err))
		return -1;
	return world_len ? sl_builder_set_world(b, world, world_len, err) : 0;
}

/* Add every chunk and the world data of an open value to the builder, and its summary. */
int
sl_builder_add_value(sl_builder *b, sl_value *v, sl_add_mode mode, sl_err *err)
{
	int			keep = b->n == 0 || b->sum != NULL;
	uint8_t		manual = b->sum_manual;
	int			rc = 0;

	b->sum_manual = 1;
	for (uint32_t i = 0; i < v->hdr.chunk_count && rc == 0; i++)
	{
		if ((i & 255) == 0)
			sl_interrupt();
		rc = sl_builder_add_chunk(b, v, i, mode, err);
	}
	b->sum_manual = manual;
	if (rc || sl_builder_add_world(b, v, err))
		return -1;
	if (!keep)
	{
		sl_builder_sum_lose(b);
		return 0;
	}
	return sl_builder_sum_value(b, v, err);
}

/* Give up the summary kept. */
void
sl_builder_sum_lose(sl_builder *b)
{
	if (b->sum)
	{
		sl_vsum_free(b->sum);
		sl_free(b->sum);
		b->sum = NULL;
	}
	b->sum_lost = 1;
}

/* Add an open value's summary to the builder's, or lose it. */
int
sl_builder_sum_value(sl_builder *b, sl_value *v, sl_err *err)
{
	if (b->sum_lost)
		return 0;
	if (!sl_value_has_summary(v))
	{
		sl_builder_sum_lose(b);
		return 0;
	}
	if (b->sum == NULL)
	{
		b->sum = sl_alloc_err(sizeof(sl_vsum), err);
		if (b->sum == NULL)
			return -1;
		memset(b->sum, 0, sizeof(sl_vsum));
	}
	return sl_value_read_summary(v, b->sum, err);
}

/* Add or take away one chunk's counts. */
int
sl_builder_sum_chunk(sl_builder *b, int32_t dv, const uint8_t *const comp[SL_NCOMP],
					 const uint32_t len[SL_NCOMP], int sign, sl_err *err)
{
	if (b->sum == NULL)
		return 0;
	return sl_vsum_chunk(b->sum, dv, comp, len, sign, err);
}

/* Add or take away chunk (x,z) as the builder holds it now. */
int
sl_builder_sum_pieces(sl_builder *b, int32_t x, int32_t z, int sign, const sl_limits *lim,
					  sl_err *err)
{
	const uint8_t *comp[SL_NCOMP] = {NULL, NULL, NULL};
	uint32_t	len[SL_NCOMP] = {0, 0, 0};
	int32_t		dv = SL_NO_DV;
	int			any = 0;

	if (b->sum == NULL)
		return 0;
	if (lim == NULL)
		lim = &sl_default_limits;
	for (size_t i = 0; i < b->n; i++)
	{
		const sl_piece *p = &b->pieces[i];

		if (p->x != x || p->z != z)
			continue;
		if (p->comp == SL_PIECE_REF || len[p->comp])
		{
			/* in the store, or twice (an error at encode): not counted here */
			sl_builder_sum_lose(b);
			return 0;
		}
		comp[p->comp] = p->data;
		len[p->comp] = p->len;
		any = 1;
	}
	if (!any)
		return 0;
	for (int k = 0; k < SL_NCOMP && dv == SL_NO_DV; k++)
		if (len[k])
			dv = sl_data_version(comp[k], len[k], lim);
	if (sl_vsum_chunk(b->sum, dv, comp, len, sign, err))
	{
		sl_err_prefix(err, "chunk (%d,%d)", x, z);
		return -1;
	}
	return 0;
}

/* Drop component comp (or all, comp < 0) of chunk (x,z). */
void
sl_builder_remove(sl_builder *b, int32_t x, int32_t z, int comp)
{
	size_t		keep = 0;

	if (!b->sum_manual)
		sl_builder_sum_lose(b);

	for (size_t i = 0; i < b->n; i++)
	{
		sl_piece   *p = &b->pieces[i];

		if (p->x == x && p->z == z && (comp < 0 || p->comp == comp))
		{
			if (p->owned)
				sl_free((void *) p->data);
			b->total -= p->comp == SL_PIECE_REF ?
				(uint64_t) p->ref_len[0] + p->ref_len[1] + p->ref_len[2] : p->len;
			continue;
		}
		b->pieces[keep++] = *p;
	}
	b->n = keep;
}

/* Set the world compound; a different second one is an error. */
int
sl_builder_set_world(sl_builder *b, const uint8_t *data, size_t len, sl_err *err)
{
	if (b->world)
	{
		if (b->world_len == len && memcmp(b->world, data, len) == 0)
			return 0;
		return sl_fail(err, SL_ERR_DUPLICATE, "two different world (level.dat) compounds");
	}
	b->world = copy_bytes(data, len, err);
	if (b->world == NULL)
		return -1;
	b->world_len = len;
	return 0;
}

/* Order pieces by chunk key, then component (a qsort comparator). */
int
sl_piece_cmp(const void *a, const void *b)
{
	const sl_piece *pa = a;
	const sl_piece *pb = b;

	if (pa->key != pb->key)
		return pa->key < pb->key ? -1 : 1;
	return (int) pa->comp - (int) pb->comp;
}

/* DataVersion of a chunk-like NBT document, or SL_NO_DV. */
int32_t
sl_data_version(const uint8_t *nbt, size_t len, const sl_limits *lim)
{
	static const char *const path[] = {"DataVersion"};
	int64_t		dv;
	sl_err		err;

	if (sl_nbt_find_int(nbt, len, path, 1, lim, &dv, &err) == 1 &&
		dv > INT32_MIN && dv <= INT32_MAX)
		return (int32_t) dv;
	return SL_NO_DV;
}

/* Fill one chunk source from its run of pieces. */
static int
fill_source(sl_chunk_src *c, const sl_piece *run, size_t count, const sl_limits *lim,
			sl_err *err)
{
	memset(c, 0, sizeof(*c));
	c->x = run[0].x;
	c->z = run[0].z;
	c->timestamp = run[0].timestamp;
	if (run[count - 1].comp == SL_PIECE_REF)
	{
		const sl_piece *p = &run[count - 1];

		if (count > 1 && run[count - 2].comp == SL_PIECE_REF)
			return sl_fail(err, SL_ERR_DUPLICATE, "chunk (%d,%d) appears more than once", p->x, p->z);
		if (count > 1)
			return sl_fail(err, SL_ERR_DUPLICATE,
						   "chunk (%d,%d) is held by reference to the chunk store and also given more data; resolve the values first (slime_resolve)",
						   p->x, p->z);
		c->ref = p->data;
		c->data_version = p->ref_dv;
		memcpy(c->len, p->ref_len, sizeof(c->len));
		return 0;
	}
	for (size_t j = 0; j < count; j++)
	{
		const sl_piece *p = &run[j];

		if (j > 0 && p->comp == run[j - 1].comp)
			return sl_fail(err, SL_ERR_DUPLICATE, "chunk (%d,%d) appears more than once%s",
						   p->x, p->z, p->comp == SL_COMP_REGION ? "" :
						   p->comp == SL_COMP_ENTITIES ? " in entities data" : " in POI data");
		c->comp[p->comp] = p->data;
		c->len[p->comp] = p->len;
	}
	c->data_version = SL_NO_DV;
	for (int k = 0; k < SL_NCOMP && c->data_version == SL_NO_DV; k++)
		if (c->len[k])
			c->data_version = sl_data_version(c->comp[k], c->len[k], lim);
	return 0;
}

/* Encode everything gathered into a canonical value. */
int
sl_builder_encode(sl_builder *b, const sl_encode_opts *opts, const sl_limits *lim,
				  sl_buf *out, sl_err *err)
{
	sl_chunk_src *srcs;
	size_t		nsrc = 0;
	int			rc;

	if (lim == NULL)
		lim = &sl_default_limits;
	if (b->n > 1)
		qsort(b->pieces, b->n, sizeof(sl_piece), sl_piece_cmp);
	srcs = sl_alloc_err((b->n ? b->n : 1) * sizeof(sl_chunk_src), err);
	if (srcs == NULL)
		return -1;
	for (size_t i = 0; i < b->n;)
	{
		size_t		j = i + 1;

		while (j < b->n && b->pieces[j].key == b->pieces[i].key)
			j++;
		if (fill_source(&srcs[nsrc++], &b->pieces[i], j - i, lim, err))
		{
			sl_free(srcs);
			return -1;
		}
		i = j;
	}
	rc = sl_value_encode_sum(srcs, nsrc, b->world, b->world_len, opts, lim,
							 b->sum_lost ? NULL : b->sum, out, err);
	sl_free(srcs);
	return rc;
}

/* Free the builder and the pieces it owns. */
void
sl_builder_free(sl_builder *b)
{
	for (size_t i = 0; i < b->n; i++)
		if (b->pieces[i].owned)
			sl_free((void *) b->pieces[i].data);
	sl_free(b->pieces);
	sl_free(b->world);
	if (b->sum)
	{
		sl_vsum_free(b->sum);
		sl_free(b->sum);
	}
	memset(b, 0, sizeof(*b));
}

/* Unpack gzip/zlib/plain NBT into a checked, uncompressed document. */
int
sl_unpack_nbt(const uint8_t *in, size_t len, int any_root, const sl_limits *lim,
			  uint8_t **out, size_t *out_len, sl_err *err)
{
	size_t		used;
	uint8_t    *raw = NULL;
	size_t		raw_len;

	if (lim == NULL)
		lim = &sl_default_limits;
	*out = NULL;
	*out_len = 0;
	if (len >= 2 && in[0] == 0x1f && in[1] == 0x8b)
	{
		if (sl_inflate(SL_DEFLATE_GZIP, in, len, lim->max_chunk_raw, 0, &raw, &raw_len, &used, err))
			return -1;
	}
	else if (len >= 2 && (in[0] & 0x0f) == 8 && ((in[0] << 8) | in[1]) % 31 == 0)
	{
		if (sl_inflate(SL_DEFLATE_ZLIB, in, len, lim->max_chunk_raw, 0, &raw, &raw_len, &used, err))
			return -1;
	}
	else
	{
		raw = copy_bytes(in, len, err);
		raw_len = len;
		if (raw == NULL)
			return -1;
	}
	if (sl_nbt_check(raw, raw_len, any_root, lim, &used, err))
	{
		sl_free(raw);
		return -1;
	}
	*out = raw;
	*out_len = used;
	return 0;
}
