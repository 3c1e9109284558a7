/*
 * sl_vcheck.c - check slime values: structure without decompressing
 * (slime.input_check = structure) and everything, content hash included
 * (full, slime_verify). Shared by text input, binary input and casts.
 */
#include "sl_value_int.h"
#include "sl_bcodec.h"
#include "sl_nbt.h"
#include "sl_vsum.h"
#include "sl_zstd.h"

#include <stdlib.h>
#include <string.h>

/* Check one NBT component of a chunk is exactly one document. */
static int
verify_component(const uint8_t *p, uint32_t len, const sl_dirent *d, int k,
				 const sl_limits *lim, sl_err *err)
{
	static const char *const names[SL_NCOMP] = {"region", "entities", "poi"};
	size_t		used;

	if (sl_nbt_check(p, len, 0, lim, &used, err))
	{
		sl_err_prefix(err, "chunk (%d,%d) %s data", d->x, d->z, names[k]);
		err->code = SL_ERR_CORRUPT;
		return -1;
	}
	if (used != len)
		return sl_fail(err, SL_ERR_CORRUPT, "chunk (%d,%d) %s data: %u trailing bytes after the NBT document",
					   d->x, d->z, names[k], (unsigned) (len - used));
	return 0;
}

typedef struct verify_state
{
	sl_header	sum;			/* summary recomputed from the directory */
	uint64_t	prev_key;
	uint32_t	frame;			/* frame of the previous inline chunk */
	uint64_t	next_offset;	/* where the next inline chunk must start */
	int			inline_seen;	/* some chunk so far is in a frame */
	uint32_t	refs;			/* chunks stored by reference so far */
} verify_state;

/* Check chunk i's place in canonical order and in the frame layout. */
static int
verify_layout(sl_value *v, uint32_t i, const sl_dirent *d, verify_state *st, sl_err *err)
{
	uint64_t	key = sl_chunk_key(d->x, d->z);
	sl_frame	f;

	if (i > 0 && key <= st->prev_key)
		return sl_fail(err, SL_ERR_CORRUPT, "chunk (%d,%d) is out of canonical order", d->x, d->z);
	if (d->len[0] == 0 && d->len[1] == 0 && d->len[2] == 0)
		return sl_fail(err, SL_ERR_CORRUPT, "chunk (%d,%d) has no data", d->x, d->z);
	st->prev_key = key;
	if (d->ref)
	{
		if ((uint64_t) d->len[0] + d->len[1] + d->len[2] > v->lim.max_chunk_raw)
			return sl_fail(err, SL_ERR_LIMIT,
						   "chunk (%d,%d): %llu bytes exceed the chunk size cap of %zu bytes",
						   d->x, d->z, (unsigned long long) d->len[0] + d->len[1] + d->len[2],
						   v->lim.max_chunk_raw);
		if (d->offset != st->refs)
			return sl_fail(err, SL_ERR_CORRUPT, "chunk (%d,%d): references are not in directory order",
						   d->x, d->z);
		st->refs++;
		return 0;
	}
	if (!st->inline_seen ? d->frame != 0 : (d->frame != st->frame && d->frame != st->frame + 1))
		return sl_fail(err, SL_ERR_CORRUPT, "chunk (%d,%d) skips frames", d->x, d->z);
	if (st->inline_seen && d->frame == st->frame + 1)
	{
		/* the previous frame must end exactly where its last chunk ended */
		if (sl_value_frame(v, st->frame, &f, err))
			return -1;
		if (f.raw_len != st->next_offset)
			return sl_fail(err, SL_ERR_CORRUPT, "frame %u has %llu stray bytes", st->frame,
						   (unsigned long long) (f.raw_len - st->next_offset));
		st->next_offset = 0;
	}
	if (d->offset != st->next_offset)
		return sl_fail(err, SL_ERR_CORRUPT, "chunk (%d,%d) is not packed in its frame", d->x, d->z);
	if (sl_value_frame(v, d->frame, &f, err))
		return -1;
	if ((uint64_t) d->offset + d->len[0] + d->len[1] + d->len[2] > f.raw_len)
		return sl_fail(err, SL_ERR_CORRUPT, "chunk (%d,%d) runs past the end of frame %u",
					   d->x, d->z, d->frame);
	st->inline_seen = 1;
	st->frame = d->frame;
	st->next_offset = d->offset + (uint64_t) d->len[0] + d->len[1] + d->len[2];
	return 0;
}

/* Check the world compound's frame and NBT. */
static int
verify_world(sl_value *v, struct sha256_ctx *ctx, sl_err *err)
{
	const uint8_t *world;
	size_t		world_len;
	size_t		used = 0;

	if (sl_value_world(v, &world, &world_len, err))
		return -1;
	if (world_len && sl_nbt_check(world, world_len, 0, &v->lim, &used, err))
	{
		sl_err_prefix(err, "world data");
		err->code = SL_ERR_CORRUPT;
		return -1;
	}
	if (used != world_len)
		return sl_fail(err, SL_ERR_CORRUPT, "world data has trailing bytes");
	sl_merkle_world(ctx, world, world_len);
	return 0;
}

/*
 * Check chunk i's content: decompress it, check its NBT documents, and set
 * its chunk hash (a store reference: from the reference table). Version 1
 * feeds the bytes themselves into ctx instead.
 */
static int
verify_content(sl_value *v, uint32_t i, struct sha256_ctx *ctx, uint8_t h[32], sl_err *err)
{
	sl_dirent	d;
	const uint8_t *comp[SL_NCOMP];

	if (sl_value_dirent(v, i, &d, err))
		return -1;
	if (!d.ref)
	{
		if (sl_value_chunk(v, i, &d, comp, err))
			return -1;
		for (int k = 0; k < SL_NCOMP; k++)
			if (d.len[k] && verify_component(comp[k], d.len[k], &d, k, &v->lim, err))
				return -1;
	}
	if (v->hdr.version == 1)
	{
		sl_v1_chunk(ctx, d.x, d.z, d.data_version, d.timestamp, d.len, comp);
		return 0;
	}
	if (d.ref)
		memcpy(h, d.hash, 32);
	else
		sl_chunk_hash(&d, comp, h);
	return 0;
}

typedef struct keyed_index
{
	uint64_t	key;
	uint32_t	i;
} keyed_index;

/* Order directory indices by Morton key. */
static int
cmp_keyed_index(const void *a, const void *b)
{
	uint64_t	ka = ((const keyed_index *) a)->key;
	uint64_t	kb = ((const keyed_index *) b)->key;

	return ka < kb ? -1 : ka > kb;
}

/*
 * Feed the chunks' part of the v2 content hash from their hashes, in Morton
 * order (a v3 directory is in another order; v2's already is).
 */
static int
merkle_chunks(sl_value *v, const uint8_t *hashes, struct sha256_ctx *ctx, sl_err *err)
{
	uint32_t	n = v->hdr.chunk_count;
	keyed_index *ki = sl_alloc_err(((size_t) n + 1) * sizeof(keyed_index), err);

	if (ki == NULL)
		return -1;
	for (uint32_t i = 0; i < n; i++)
	{
		ki[i].key = sl_chunk_key(v->dir[i].x, v->dir[i].z);
		ki[i].i = i;
	}
	if (v->hdr.version >= 3 && n)
		qsort(ki, n, sizeof(keyed_index), cmp_keyed_index);
	for (uint32_t k = 0; k < n; k++)
	{
		const sl_dirslot *s = &v->dir[ki[k].i];

		sl_merkle_chunk(ctx, s->x, s->z, s->data_version, s->timestamp, s->len,
						hashes + (size_t) ki[k].i * 32);
	}
	sl_free(ki);
	return 0;
}

/* Check every chunk's content and the content hash. */
static int
verify_all_content(sl_value *v, sl_err *err)
{
	struct sha256_ctx ctx;
	uint8_t		hash[32];
	uint8_t    *hashes = NULL;
	int			rc = -1;

	if (v->hdr.version == 1)
	{
		sha256_init(&ctx);
		sha256_update(&ctx, sizeof(SL_HASH_TAG_V1), (const uint8_t *) SL_HASH_TAG_V1);
		sl_sha_u32(&ctx, v->hdr.chunk_count);
	}
	else
	{
		sl_merkle_start(&ctx, v->hdr.chunk_count);
		hashes = sl_alloc_err(((size_t) v->hdr.chunk_count + 1) * 32, err);
		if (hashes == NULL)
			return -1;
	}
	for (uint32_t i = 0; i < v->hdr.chunk_count; i++)
	{
		if ((i & 63) == 0)
			sl_interrupt();
		if (verify_content(v, i, &ctx, hashes ? hashes + (size_t) i * 32 : NULL, err))
			goto done;
	}
	if (hashes && merkle_chunks(v, hashes, &ctx, err))
		goto done;
	if (verify_world(v, &ctx, err))
		goto done;
	sha256_digest(&ctx, 32, hash);
	if (memcmp(hash, v->hdr.hash, 32) != 0)
	{
		sl_fail(err, SL_ERR_CORRUPT, "content hash mismatch: the value's data is damaged");
		goto done;
	}
	rc = 0;
done:
	sl_free(hashes);
	return rc;
}

/* Check a zstd frame's header against its table entry without decompressing. */
static int
verify_frame_header(sl_value *v, uint32_t i, sl_err *err)
{
	sl_frame	f;
	const uint8_t *src;

	if (sl_value_frame(v, i, &f, err) || v->fetch(v->ctx, f.offset, f.comp_len, &src, err))
		return -1;
	if (f.codec != SL_CODEC_ZSTD ?
		sl_bcodec_expect(src, f.comp_len, f.codec, err) ||
		sl_bcodec_check(src, f.comp_len, f.raw_len, err) :
		sl_zstd_check(src, f.comp_len, f.raw_len, err))
	{
		sl_err_prefix(err, "frame %u", i);
		return -1;
	}
	return 0;
}

/* Recompute the header's summary fields from the directory. */
static int
verify_summary(sl_value *v, sl_err *err)
{
	sl_header	s = v->hdr;
	sl_dirent	d;

	sl_summary_start(&s, v->hdr.world_len);
	for (uint32_t i = 0; i < v->hdr.chunk_count; i++)
	{
		if (sl_value_dirent(v, i, &d, err))
			return -1;
		sl_summary_add(&s, i, d.x, d.z, d.data_version, (uint64_t) d.len[0] + d.len[1] + d.len[2]);
	}
	if (s.dv_min != v->hdr.dv_min || s.dv_max != v->hdr.dv_max ||
		s.min_x != v->hdr.min_x || s.min_z != v->hdr.min_z ||
		s.max_x != v->hdr.max_x || s.max_z != v->hdr.max_z ||
		s.raw_bytes != v->hdr.raw_bytes)
		return sl_fail(err, SL_ERR_CORRUPT, "header summary does not match the chunk directory");
	return 0;
}

/* Check that frames are packed back to back in table order. */
static int
verify_frames(sl_value *v, sl_err *err)
{
	uint64_t	pos = v->hdr.payload_offset;
	sl_frame	f;

	if (v->hdr.frame_count == 0 && v->hdr.chunk_count > v->hdr.ref_count)
		return sl_fail(err, SL_ERR_CORRUPT, "chunks without frames");
	for (uint32_t i = 0; i < v->hdr.frame_count; i++)
	{
		if (sl_value_frame(v, i, &f, err))
			return -1;
		if (f.offset != pos)
			return sl_fail(err, SL_ERR_CORRUPT, "frame %u is not packed after frame %u", i, i - 1);
		pos += f.comp_len;
	}
	if (pos != v->hdr.total_len)
		return sl_fail(err, SL_ERR_CORRUPT, "%llu stray bytes after the last frame",
					   (unsigned long long) (v->hdr.total_len - pos));
	return 0;
}

/* Check a whole value, from header to content hash. */
int
sl_value_verify(const uint8_t *data, size_t len, const sl_limits *lim, sl_err *err)
{
	return sl_value_check(data, len, 1, lim, err);
}

/* Check a v1/v2 value's layout: summary, frame packing, canonical order, references. */
static int
verify_layout_v2(sl_value *v, sl_err *err)
{
	verify_state st;
	sl_frame	f;

	memset(&st, 0, sizeof(st));
	if (verify_summary(v, err) || verify_frames(v, err))
		return -1;
	for (uint32_t i = 0; i < v->hdr.chunk_count; i++)
	{
		sl_dirent	d;

		if ((i & 1023) == 0)
			sl_interrupt();
		if (sl_value_dirent(v, i, &d, err) || verify_layout(v, i, &d, &st, err))
			return -1;
	}
	if (st.refs != v->hdr.ref_count)
		return sl_fail(err, SL_ERR_CORRUPT, "the header's reference count does not match the directory");
	if (!st.inline_seen && v->hdr.frame_count != (v->hdr.world_len ? 1u : 0u))
		return sl_fail(err, SL_ERR_CORRUPT, "frames without chunks");
	if (st.inline_seen)
	{
		uint32_t	last_chunk_frame = v->hdr.frame_count - 1 - (v->hdr.world_len ? 1 : 0);

		if (st.frame != last_chunk_frame)
			return sl_fail(err, SL_ERR_CORRUPT, "frames without chunks");
		if (sl_value_frame(v, st.frame, &f, err))
			return -1;
		if (f.raw_len != st.next_offset)
			return sl_fail(err, SL_ERR_CORRUPT, "frame %u has stray bytes", st.frame);
	}
	return 0;
}

/*
 * Check a v3 value's contents summary section: its zstd frame header
 * (structure), or with full its bytes decoded and checked (canonical order,
 * counts, failed counts within the chunk count). The counts are not
 * compared with the chunks here (sl_value_check_summary does, for
 * slime_verify): counting costs several times the whole full check.
 */
static int
verify_summary_section(sl_value *v, int full, sl_err *err)
{
	sl_vsum		s;
	int			rc;

	if (!sl_value_has_summary(v))
		return 0;
	if (v->hdr.sum_raw_len > v->lim.max_value_raw / 4)
		return sl_fail(err, SL_ERR_LIMIT, "contents summary of %u bytes is over the world size cap",
					   v->hdr.sum_raw_len);
	if (!full)
	{
		if (v->hdr.sum_len != v->hdr.sum_raw_len &&
			sl_zstd_check(v->meta + v->hdr.sum_offset, v->hdr.sum_len, v->hdr.sum_raw_len, err))
		{
			sl_err_prefix(err, "contents summary at offset %u", v->hdr.sum_offset);
			err->code = SL_ERR_CORRUPT;
			return -1;
		}
		return 0;
	}
	memset(&s, 0, sizeof(s));
	rc = sl_value_read_summary(v, &s, err);
	sl_vsum_free(&s);
	return rc;
}

/*
 * Check a value: its structure, and with full its content and hash too. A
 * v3 value's layout (order, packing, frames, summary) is derived from its
 * directory and checked by sl_value_open.
 */
int
sl_value_check(const uint8_t *data, size_t len, int full, const sl_limits *lim, sl_err *err)
{
	sl_value	v;
	int			rc = -1;

	if (sl_value_open_mem(&v, data, len, lim, err))
		goto done;
	if (v.hdr.version <= 2 && verify_layout_v2(&v, err))
		goto done;
	for (uint32_t i = 0; i < v.hdr.frame_count; i++)
		if (verify_frame_header(&v, i, err))
			goto done;
	if (verify_summary_section(&v, full, err))
		goto done;
	if (full && verify_all_content(&v, err))
		goto done;
	rc = 0;
done:
	sl_value_close(&v);
	return rc;
}
