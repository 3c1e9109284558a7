/*
 * sl_value.c - open and read slime values of every format version: header,
 * directory (decoded into sl_dirslot / sl_frame at open), frames, chunks,
 * the world compound and the content hash. The encoder is sl_venc.c, the
 * checks sl_vcheck.c.
 */
#include "sl_value_int.h"
#include "sl_bcodec.h"
#include "sl_codec.h"
#include "sl_store.h"
#include "sl_zstd.h"

#include <stdlib.h>
#include <string.h>

/* Little-endian u64 load. */
static inline uint64_t
get_u64(const uint8_t *p)
{
	return (uint64_t) sl_get_u32le(p) | ((uint64_t) sl_get_u32le(p + 4) << 32);
}

/* Free every cached codec context of the core. */
void
sl_release_caches(void)
{
	sl_zstd_release();
	sl_codec_release();
}

/* CRC-32 of meta[0..len) with the 4-byte field at crc_at taken as zero. */
uint32_t
sl_meta_crc(const uint8_t *meta, size_t len, size_t crc_at)
{
	uint8_t		zero[4] = {0};
	uint32_t	crc = sl_crc32(0, meta, crc_at);

	crc = sl_crc32(crc, zero, 4);
	return sl_crc32(crc, meta + crc_at + 4, len - crc_at - 4);
}

/* Parse and check a version 1 or 2 header (fixed 112 bytes). */
static int
parse_header_v2(const uint8_t *buf, size_t len, size_t total_len, sl_header *h, sl_err *err)
{
	uint64_t	meta;

	if (len < SL_HEADER_SIZE || total_len < SL_HEADER_SIZE)
		return sl_fail(err, SL_ERR_CORRUPT, "slime value of %zu bytes is shorter than its %d-byte header",
					   total_len, SL_HEADER_SIZE);
	h->chunk_count = sl_get_u32le(buf + 8);
	h->frame_count = sl_get_u32le(buf + 12);
	h->dir_offset = sl_get_u32le(buf + 16);
	h->frames_offset = sl_get_u32le(buf + 20);
	h->payload_offset = sl_get_u32le(buf + 24);
	h->total_len = sl_get_u32le(buf + 28);
	h->dv_min = (int32_t) sl_get_u32le(buf + 32);
	h->dv_max = (int32_t) sl_get_u32le(buf + 36);
	h->min_x = (int32_t) sl_get_u32le(buf + 40);
	h->min_z = (int32_t) sl_get_u32le(buf + 44);
	h->max_x = (int32_t) sl_get_u32le(buf + 48);
	h->max_z = (int32_t) sl_get_u32le(buf + 52);
	h->raw_bytes = get_u64(buf + 56);
	h->world_len = sl_get_u32le(buf + 64);
	h->world_frame = sl_get_u32le(buf + 68);
	h->ref_count = sl_get_u32le(buf + 76);
	memcpy(h->hash, buf + 80, 32);
	if (h->flags & ~(h->version == 1 ? SL_FLAG_WORLD : SL_FLAG_WORLD | SL_FLAG_REFS))
		return sl_fail(err, SL_ERR_CORRUPT, "unknown header flags 0x%x", h->flags);
	if (h->total_len != total_len)
		return sl_fail(err, SL_ERR_CORRUPT, "header says %u bytes but the value has %zu",
					   h->total_len, total_len);
	if (h->version == 1 && h->ref_count != 0)
		return sl_fail(err, SL_ERR_CORRUPT, "reserved header field is not zero");
	if (h->ref_count > h->chunk_count || (h->ref_count != 0) != ((h->flags & SL_FLAG_REFS) != 0))
		return sl_fail(err, SL_ERR_CORRUPT, "reference count %u is inconsistent", h->ref_count);
	h->refs_offset = SL_HEADER_SIZE + h->chunk_count * SL_DIRENT_SIZE +
		h->frame_count * SL_FRAMEENT_SIZE;
	meta = SL_HEADER_SIZE + (uint64_t) h->chunk_count * SL_DIRENT_SIZE +
		(uint64_t) h->frame_count * SL_FRAMEENT_SIZE + (uint64_t) h->ref_count * SL_REFENT_SIZE;
	if (h->dir_offset != SL_HEADER_SIZE ||
		h->frames_offset != SL_HEADER_SIZE + (uint64_t) h->chunk_count * SL_DIRENT_SIZE ||
		h->payload_offset != meta || meta > total_len)
		return sl_fail(err, SL_ERR_CORRUPT, "header offsets are inconsistent (%u chunks, %u frames, %zu bytes)",
					   h->chunk_count, h->frame_count, total_len);
	if (((h->flags & SL_FLAG_WORLD) != 0) != (h->world_len != 0) ||
		(h->world_len ? h->world_frame != h->frame_count - 1 : h->world_frame != SL_NO_FRAME))
		return sl_fail(err, SL_ERR_CORRUPT, "world data fields are inconsistent");
	return 0;
}

/* Read header varint k of a v3 header, naming it in the error. */
static int
header_varint(const uint8_t *buf, size_t len, size_t *pos, uint64_t max, uint32_t *out,
			  const char *field, sl_err *err)
{
	uint64_t	v;
	size_t		at = *pos;

	if (sl_varint64_get(buf, len, pos, &v))
		return sl_fail(err, SL_ERR_CORRUPT, "header field %s at offset %zu is not a valid varint",
					   field, at);
	if (v > max)
		return sl_fail(err, SL_ERR_CORRUPT, "header field %s at offset %zu is %llu, over %llu",
					   field, at, (unsigned long long) v, (unsigned long long) max);
	*out = (uint32_t) v;
	return 0;
}

/* Parse and check a version 3 header: fixed part, then varints. */
static int
parse_header_v3(const uint8_t *buf, size_t len, size_t total_len, sl_header *h, sl_err *err)
{
	size_t		pos = SL_HEADER3_FIXED;
	uint64_t	meta;

	if (len < SL_HEADER3_FIXED || total_len < SL_HEADER3_FIXED)
		return sl_fail(err, SL_ERR_CORRUPT, "slime value of %zu bytes is shorter than its header",
					   total_len);
	if (h->flags & ~SL_FLAGS_V3)
		return sl_fail(err, SL_ERR_CORRUPT, "unknown header flags 0x%x", h->flags);
	memcpy(h->hash, buf + 12, 32);
	if (header_varint(buf, len, &pos, UINT32_MAX, &h->payload_offset, "payload_offset", err) ||
		header_varint(buf, len, &pos, UINT32_MAX, &h->chunk_count, "chunk_count", err) ||
		header_varint(buf, len, &pos, UINT32_MAX, &h->frame_count, "frame_count", err))
		return -1;
	h->ref_count = 0;
	h->world_len = 0;
	if ((h->flags & SL_FLAG_REFS) &&
		header_varint(buf, len, &pos, h->chunk_count, &h->ref_count, "ref_count", err))
		return -1;
	if ((h->flags & SL_FLAG_WORLD) &&
		header_varint(buf, len, &pos, UINT32_MAX, &h->world_len, "world_len", err))
		return -1;
	if (header_varint(buf, len, &pos, UINT32_MAX, &h->dir_len, "dir_len", err))
		return -1;
	h->dir_raw_len = h->dir_len;
	if ((h->flags & SL_FLAG_DIRZ) &&
		header_varint(buf, len, &pos, UINT32_MAX, &h->dir_raw_len, "dir_raw_len", err))
		return -1;
	if ((h->flags & SL_FLAG_SUMMARY) &&
		(header_varint(buf, len, &pos, UINT32_MAX, &h->sum_len, "sum_len", err) ||
		 header_varint(buf, len, &pos, UINT32_MAX, &h->sum_raw_len, "sum_raw_len", err)))
		return -1;
	if ((h->flags & SL_FLAG_SUMMARY) && (h->sum_len == 0 || h->sum_raw_len < h->sum_len))
		return sl_fail(err, SL_ERR_CORRUPT, "header fields sum_len %u and sum_raw_len %u are inconsistent",
					   h->sum_len, h->sum_raw_len);
	h->header_len = (uint32_t) pos;
	h->total_len = (uint32_t) total_len;
	h->dir_offset = h->header_len;
	h->frames_offset = h->header_len;
	h->sum_offset = h->header_len + h->dir_len;
	h->refs_offset = h->header_len + h->dir_len + h->sum_len;
	meta = (uint64_t) h->header_len + h->dir_len + h->sum_len + (uint64_t) h->ref_count * SL_REFENT_SIZE;
	if ((h->flags & SL_FLAG_REFS) && h->ref_count == 0)
		return sl_fail(err, SL_ERR_CORRUPT, "reference count 0 with the references flag set");
	if ((h->flags & SL_FLAG_WORLD) && h->world_len == 0)
		return sl_fail(err, SL_ERR_CORRUPT, "world data fields are inconsistent");
	if (h->payload_offset != meta || meta > total_len)
		return sl_fail(err, SL_ERR_CORRUPT,
					   "header offsets are inconsistent (payload at %u, metadata ends at %llu, %zu bytes)",
					   h->payload_offset, (unsigned long long) meta, total_len);
	h->world_frame = h->world_len ? h->frame_count - 1 : SL_NO_FRAME;
	if (h->world_len && h->frame_count == 0)
		return sl_fail(err, SL_ERR_CORRUPT, "world data without a frame");
	/* summary fields: set from the directory by sl_value_open */
	sl_summary_start(h, h->world_len);
	return 0;
}

/* Parse and check the header in buf. */
int
sl_header_parse(const uint8_t *buf, size_t len, size_t total_len, sl_header *h,
				sl_err *err)
{
	memset(h, 0, sizeof(*h));
	if (len < 8 || total_len < 8)
		return sl_fail(err, SL_ERR_CORRUPT, "slime value of %zu bytes is shorter than its header",
					   total_len);
	if (memcmp(buf, SL_VALUE_MAGIC, 4) != 0)
		return sl_fail(err, SL_ERR_CORRUPT, "not a slime value (bad magic)");
	h->version = sl_get_u16le(buf + 4);
	if (h->version < SL_VALUE_VERSION_MIN || h->version > SL_VALUE_VERSION)
		return sl_fail(err, SL_ERR_UNSUPPORTED, "slime format version %u is not supported (this build reads versions %d to %d)",
					   h->version, SL_VALUE_VERSION_MIN, SL_VALUE_VERSION);
	h->flags = sl_get_u16le(buf + 6);
	if (h->version <= 2)
		return parse_header_v2(buf, len, total_len, h, err);
	return parse_header_v3(buf, len, total_len, h, err);
}

/* Decode a v1/v2 directory and frame table as stored; entries are checked when read. */
static void
decode_dir_v2(sl_value *v)
{
	const uint8_t *p = v->meta + v->hdr.dir_offset;

	for (uint32_t i = 0; i < v->hdr.chunk_count; i++, p += SL_DIRENT_SIZE)
	{
		sl_dirslot *s = &v->dir[i];

		s->x = (int32_t) sl_get_u32le(p);
		s->z = (int32_t) sl_get_u32le(p + 4);
		s->data_version = (int32_t) sl_get_u32le(p + 8);
		s->timestamp = sl_get_u32le(p + 12);
		s->frame = sl_get_u32le(p + 16);
		s->offset = sl_get_u32le(p + 20);
		for (int k = 0; k < SL_NCOMP; k++)
			s->len[k] = sl_get_u32le(p + 24 + 4 * k);
	}
	p = v->meta + v->hdr.frames_offset;
	for (uint32_t i = 0; i < v->hdr.frame_count; i++, p += SL_FRAMEENT_SIZE)
	{
		v->frames[i].offset = sl_get_u32le(p);
		v->frames[i].comp_len = sl_get_u32le(p + 4);
		v->frames[i].raw_len = sl_get_u32le(p + 8);
		v->frames[i].chunks = 0;
		v->frames[i].codec = SL_CODEC_ZSTD;
	}
	v->chunk_frames = v->hdr.frame_count - (v->hdr.world_len ? 1 : 0);
}

/* The raw bytes of a v3 directory: as stored, or decompressed into *tmp. */
static const uint8_t *
dir_bytes_v3(sl_value *v, uint8_t **tmp, sl_err *err)
{
	const uint8_t *p = v->meta + v->hdr.header_len;

	*tmp = NULL;
	if (!(v->hdr.flags & SL_FLAG_DIRZ))
		return p;
	*tmp = sl_alloc_err(v->hdr.dir_raw_len ? v->hdr.dir_raw_len : 1, err);
	if (*tmp == NULL)
		return NULL;
	if (sl_zstd_unframe(p, v->hdr.dir_len, *tmp, v->hdr.dir_raw_len, err))
	{
		sl_err_prefix(err, "chunk directory at offset %u", v->hdr.header_len);
		sl_free(*tmp);
		*tmp = NULL;
		return NULL;
	}
	return *tmp;
}

/* Place the inline chunks of a v3 value in frames: canonical order, packed. */
static int
place_chunks_v3(sl_value *v, sl_err *err)
{
	sl_header  *h = &v->hdr;
	uint32_t	next = 0;
	uint64_t	pos = h->payload_offset;

	v->chunk_frames = h->frame_count - (h->world_len ? 1 : 0);
	for (uint32_t f = 0; f < h->frame_count; f++)
	{
		sl_frame   *fr = &v->frames[f];
		uint64_t	off = 0;
		int			world = h->world_len && f == h->frame_count - 1;

		fr->offset = (uint32_t) pos;
		pos += fr->comp_len;
		if (fr->comp_len == 0 || pos > h->total_len)
			return sl_fail(err, SL_ERR_CORRUPT, "chunk directory: frame %u (%u bytes) lies outside the value",
						   f, fr->comp_len);
		if (world ? fr->chunks != 0 || fr->raw_len != h->world_len : fr->chunks == 0)
			return sl_fail(err, SL_ERR_CORRUPT, "chunk directory: frame %u holds %u chunks, which is inconsistent",
						   f, fr->chunks);
		for (uint32_t k = 0; k < fr->chunks; k++, next++)
		{
			sl_dirslot *s;

			while (next < h->chunk_count && v->dir[next].frame == SL_NO_FRAME)
				next++;
			if (next >= h->chunk_count)
				return sl_fail(err, SL_ERR_CORRUPT, "chunk directory: frame %u holds more chunks than there are",
							   f);
			s = &v->dir[next];
			s->frame = f;
			s->offset = (uint32_t) off;
			off += (uint64_t) s->len[0] + s->len[1] + s->len[2];
		}
		if (!world && off != fr->raw_len)
			return sl_fail(err, SL_ERR_CORRUPT, "chunk directory: frame %u declares %u raw bytes, its chunks hold %llu",
						   f, fr->raw_len, (unsigned long long) off);
	}
	while (next < h->chunk_count && v->dir[next].frame == SL_NO_FRAME)
		next++;
	if (next != h->chunk_count)
		return sl_fail(err, SL_ERR_CORRUPT, "chunk directory: chunk %u is in no frame", next);
	if (pos != h->total_len)
		return sl_fail(err, SL_ERR_CORRUPT, "frames end at offset %llu, the value at %u",
					   (unsigned long long) pos, h->total_len);
	if ((h->flags & SL_FLAG_PREFIX) && v->chunk_frames < 2)
		return sl_fail(err, SL_ERR_CORRUPT, "prefix flag set on a value of %u chunk frames", v->chunk_frames);
	for (uint32_t f = 0; f < h->frame_count; f++)
		if (v->frames[f].codec != SL_CODEC_ZSTD &&
			((h->flags & SL_FLAG_PREFIX) || (h->world_len && f == h->frame_count - 1)))
			return sl_fail(err, SL_ERR_CORRUPT,
						   "chunk directory: frame %u uses codec %u, which is for chunk frames without a prefix",
						   f, v->frames[f].codec);
	return 0;
}

/* Start a header's summary fields: no chunks, world_len raw bytes. */
void
sl_summary_start(sl_header *h, uint64_t world_len)
{
	h->dv_min = h->dv_max = SL_NO_DV;
	h->min_x = h->min_z = h->max_x = h->max_z = 0;
	h->raw_bytes = world_len;
}

/* Count chunk i (0 first) into a header's summary fields. */
void
sl_summary_add(sl_header *h, uint32_t i, int32_t x, int32_t z, int32_t dv, uint64_t raw)
{
	if (i == 0 || x < h->min_x)
		h->min_x = x;
	if (i == 0 || x > h->max_x)
		h->max_x = x;
	if (i == 0 || z < h->min_z)
		h->min_z = z;
	if (i == 0 || z > h->max_z)
		h->max_z = z;
	if (dv != SL_NO_DV)
	{
		if (h->dv_min == SL_NO_DV || dv < h->dv_min)
			h->dv_min = dv;
		if (h->dv_max == SL_NO_DV || dv > h->dv_max)
			h->dv_max = dv;
	}
	h->raw_bytes += raw;
}

/* Set a v3 header's summary fields from the decoded directory. */
static void
summarize_v3(sl_value *v)
{
	sl_summary_start(&v->hdr, v->hdr.world_len);
	for (uint32_t i = 0; i < v->hdr.chunk_count; i++)
	{
		const sl_dirslot *s = &v->dir[i];

		sl_summary_add(&v->hdr, i, s->x, s->z, s->data_version,
					   (uint64_t) s->len[0] + s->len[1] + s->len[2]);
	}
}

/*
 * Check a v3 header's counts against each other and the value's size, before
 * anything is allocated for them: every entry takes at least 5 directory
 * bytes, every frame 4, and 9 bytes of payload.
 */
static int
check_counts_v3(const sl_header *h, sl_err *err)
{
	if ((uint64_t) h->chunk_count * 5 + (uint64_t) h->frame_count * 4 > h->dir_raw_len ||
		(uint64_t) h->dir_raw_len > (uint64_t) h->chunk_count * 70 + (uint64_t) h->frame_count * 31 + 16 ||
		h->frame_count > (uint64_t) h->chunk_count + 1 ||
		(uint64_t) h->frame_count * 9 > h->total_len - h->payload_offset)
		return sl_fail(err, SL_ERR_CORRUPT,
					   "header counts are inconsistent (%u chunks, %u frames, %u directory bytes)",
					   h->chunk_count, h->frame_count, h->dir_raw_len);
	return 0;
}

/* Decode and check a v3 directory: columns, frame placement, summary. */
static int
decode_dir_v3(sl_value *v, sl_err *err)
{
	sl_header  *h = &v->hdr;
	uint8_t    *tmp;
	const uint8_t *p;
	int			rc;

	p = dir_bytes_v3(v, &tmp, err);
	if (p == NULL)
		return -1;
	rc = sl_vdir_decode(p, h->dir_raw_len, h->chunk_count, h->frame_count, h->ref_count,
						v->dir, v->frames, err);
	sl_free(tmp);
	if (rc || place_chunks_v3(v, err))
		return -1;
	summarize_v3(v);
	return 0;
}

/*
 * Bytes read first when opening a value: the header, and with it the whole
 * metadata of most v3 values (a 1024-chunk region's is about 2 KB), so that
 * a sliced read of a stored value fetches its metadata once.
 */
#define FIRST_FETCH 4096

/* Read the header and metadata, check the CRC and decode the directory (sl_value_open). */
static int
open_value(sl_value *v, sl_fetch_fn fetch, void *ctx, size_t total_len,
		   const sl_limits *lim, sl_err *err)
{
	const uint8_t *buf;
	size_t		first = total_len < FIRST_FETCH ? total_len : FIRST_FETCH;
	size_t		crc_at;

	memset(v, 0, sizeof(*v));
	v->fetch = fetch;
	v->ctx = ctx;
	v->total_len = total_len;
	v->lim = lim ? *lim : sl_default_limits;
	v->cached_frame = SL_NO_FRAME;
	if (total_len < 8)
		return sl_fail(err, SL_ERR_CORRUPT, "slime value of %zu bytes is shorter than its header",
					   total_len);
	if (fetch(ctx, 0, first, &buf, err))
		return -1;
	if (sl_header_parse(buf, first, total_len, &v->hdr, err))
		return -1;
	if (v->hdr.raw_bytes > v->lim.max_value_raw)
		return sl_fail(err, SL_ERR_LIMIT, "value holds %llu raw bytes, over the world size cap of %zu bytes",
					   (unsigned long long) v->hdr.raw_bytes, v->lim.max_value_raw);
	if (v->hdr.version >= 3 &&
		(uint64_t) v->hdr.chunk_count * sizeof(sl_dirslot) > v->lim.max_value_raw / 4)
		return sl_fail(err, SL_ERR_LIMIT, "value of %u chunks is over the world size cap",
					   v->hdr.chunk_count);
	/* the metadata of most v3 values is in the first fetch already */
	if (v->hdr.payload_offset > first && fetch(ctx, 0, v->hdr.payload_offset, &buf, err))
		return -1;
	crc_at = sl_crc_offset(v->hdr.version);
	if (sl_meta_crc(buf, v->hdr.payload_offset, crc_at) != sl_get_u32le(buf + crc_at))
		return sl_fail(err, SL_ERR_CORRUPT, "header checksum mismatch (stored %08x, computed %08x)",
					   sl_get_u32le(buf + crc_at), sl_meta_crc(buf, v->hdr.payload_offset, crc_at));
	v->meta = buf;
	if (v->hdr.version >= 3 && check_counts_v3(&v->hdr, err))
		return -1;
	v->dir = sl_alloc_err(((size_t) v->hdr.chunk_count + 1) * sizeof(sl_dirslot), err);
	v->frames = sl_alloc_err(((size_t) v->hdr.frame_count + 1) * sizeof(sl_frame), err);
	if (v->dir == NULL || v->frames == NULL)
		return -1;
	if (v->hdr.version <= 2)
	{
		decode_dir_v2(v);
		return 0;
	}
	if (decode_dir_v3(v, err))
		return -1;
	if (v->hdr.raw_bytes > v->lim.max_value_raw)
		return sl_fail(err, SL_ERR_LIMIT, "value holds %llu raw bytes, over the world size cap of %zu bytes",
					   (unsigned long long) v->hdr.raw_bytes, v->lim.max_value_raw);
	return 0;
}

/* Open a value: on failure nothing stays allocated (closing it again is harmless). */
int
sl_value_open(sl_value *v, sl_fetch_fn fetch, void *ctx, size_t total_len,
			  const sl_limits *lim, sl_err *err)
{
	if (open_value(v, fetch, ctx, total_len, lim, err) == 0)
		return 0;
	sl_value_close(v);
	return -1;
}

/* Fetch from a value held in memory. */
static int
mem_fetch(void *ctx, size_t offset, size_t len, const uint8_t **data, sl_err *err)
{
	*data = (const uint8_t *) ctx + offset;
	return 0;
}

/* Open a value held entirely in memory. */
int
sl_value_open_mem(sl_value *v, const uint8_t *data, size_t len,
				  const sl_limits *lim, sl_err *err)
{
	return sl_value_open(v, mem_fetch, (void *) data, len, lim, err);
}

/* The header of a value in memory with its summary fields. */
int
sl_value_summary(const uint8_t *data, size_t len, sl_header *h, sl_err *err)
{
	sl_value	v;
	int			rc = sl_value_open_mem(&v, data, len, NULL, err);

	if (rc == 0)
		*h = v.hdr;
	sl_value_close(&v);
	return rc;
}

/* Release the directory and the frame caches of an open value. */
void
sl_value_close(sl_value *v)
{
	sl_free(v->frame_buf);
	sl_free(v->ref_buf);
	sl_free(v->base_buf);
	sl_free(v->dir);
	sl_free(v->frames);
	v->frame_buf = v->ref_buf = v->base_buf = NULL;
	v->dir = NULL;
	v->frames = NULL;
	v->frame_cap = v->ref_cap = v->base_cap = 0;
	v->base_ok = 0;
	v->cached_frame = SL_NO_FRAME;
}

/*
 * The most raw bytes a frame may hold: what any of our encoders can write
 * (sl_venc.c: one frame for a value of up to 16 MiB at the archive level,
 * else a frame is closed once it holds 4 MiB or more, so it ends with at
 * most one chunk of up to max_chunk_raw past that). A frame is decompressed
 * whole, so this, not max_value_raw, bounds what one frame costs a reader.
 */
static uint64_t
frame_cap(const sl_limits *lim)
{
	uint64_t	closed = (uint64_t) 4 * 1024 * 1024 + lim->max_chunk_raw;
	uint64_t	single = (uint64_t) 16 * 1024 * 1024;

	return closed > single ? closed : single;
}

/* Frame table entry i, checked against the value's bounds. */
int
sl_value_frame(const sl_value *v, uint32_t i, sl_frame *f, sl_err *err)
{
	if (i >= v->hdr.frame_count)
		return sl_fail(err, SL_ERR_CORRUPT, "frame %u out of range (%u frames)", i, v->hdr.frame_count);
	*f = v->frames[i];
	if (f->offset < v->hdr.payload_offset || f->comp_len == 0 ||
		(uint64_t) f->offset + f->comp_len > v->hdr.total_len)
		return sl_fail(err, SL_ERR_CORRUPT, "frame %u lies outside the value", i);
	if (f->raw_len > v->lim.max_value_raw || f->raw_len > v->hdr.raw_bytes)
		return sl_fail(err, SL_ERR_CORRUPT, "frame %u declares %u raw bytes, more than the value holds", i, f->raw_len);
	if (f->raw_len > frame_cap(&v->lim))
		return sl_fail(err, SL_ERR_LIMIT,
					   "frame %u declares %u raw bytes, more than a frame may hold (%llu: the chunk size cap and 4 MiB, at least 16 MiB)",
					   i, f->raw_len, (unsigned long long) frame_cap(&v->lim));
	return 0;
}

/* Directory entry i, checked against the header. */
int
sl_value_dirent(const sl_value *v, uint32_t i, sl_dirent *d, sl_err *err)
{
	const sl_dirslot *s;

	if (i >= v->hdr.chunk_count)
		return sl_fail(err, SL_ERR_CORRUPT, "chunk index %u out of range", i);
	s = &v->dir[i];
	d->x = s->x;
	d->z = s->z;
	d->data_version = s->data_version;
	d->timestamp = s->timestamp;
	d->frame = s->frame;
	d->offset = s->offset;
	memcpy(d->len, s->len, sizeof(d->len));
	d->ref = d->frame == SL_NO_FRAME;
	if (d->ref)
	{
		if (d->offset >= v->hdr.ref_count)
			return sl_fail(err, SL_ERR_CORRUPT, "chunk (%d,%d): reference %u out of range",
						   d->x, d->z, d->offset);
		memcpy(d->hash, v->meta + v->hdr.refs_offset + (size_t) d->offset * SL_REFENT_SIZE, 32);
		return 0;
	}
	if (d->frame >= v->hdr.frame_count || (v->hdr.world_len && d->frame == v->hdr.world_frame))
		return sl_fail(err, SL_ERR_CORRUPT, "chunk (%d,%d): frame %u out of range", d->x, d->z, d->frame);
	return 0;
}

/* Canonical order key of a position in a value of the given version. */
uint64_t
sl_value_key(uint16_t version, int32_t x, int32_t z)
{
	return version >= 3 ? sl_chunk_key3(x, z) : sl_chunk_key(x, z);
}

/* Index of chunk (x,z), or -1 when absent. */
int64_t
sl_value_find(const sl_value *v, int32_t x, int32_t z)
{
	uint64_t	key = sl_value_key(v->hdr.version, x, z);
	int64_t		lo = 0,
				hi = (int64_t) v->hdr.chunk_count - 1;

	while (lo <= hi)
	{
		int64_t		mid = lo + (hi - lo) / 2;
		uint64_t	k = sl_value_key(v->hdr.version, v->dir[mid].x, v->dir[mid].z);

		if (k == key)
			return mid;
		if (k < key)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

/* Grow *buf to hold n bytes. */
static int
reserve(uint8_t **buf, size_t *cap, size_t n, sl_err *err)
{
	uint8_t    *nb;

	if (n <= *cap)
		return 0;
	nb = sl_realloc(*buf, n ? n : 1);
	if (nb == NULL)
		return sl_fail(err, SL_ERR_NOMEM, "out of memory for a %zu-byte frame", n);
	*buf = nb;
	*cap = n;
	return 0;
}

/* Decompress frame i into dst (its raw_len bytes), with the value's prefix if it has one. */
static int
unframe(sl_value *v, uint32_t i, const sl_frame *f, uint8_t *dst, sl_err *err)
{
	const uint8_t *comp;
	const uint8_t *prefix = NULL;
	size_t		prefix_len = 0;

	if ((v->hdr.flags & SL_FLAG_PREFIX) && i > 0 && i < v->chunk_frames)
	{
		sl_frame	b;

		if (!v->base_ok)
		{
			if (sl_value_frame(v, 0, &b, err) ||
				reserve(&v->base_buf, &v->base_cap, b.raw_len, err) ||
				unframe(v, 0, &b, v->base_buf, err))
				return -1;
			v->base_ok = 1;
		}
		prefix = v->base_buf;
		prefix_len = v->frames[0].raw_len;
	}
	if (v->fetch(v->ctx, f->offset, f->comp_len, &comp, err))
		return -1;
	if (f->codec != SL_CODEC_ZSTD ?
		sl_bcodec_expect(comp, f->comp_len, f->codec, err) ||
		sl_bcodec_decode(comp, f->comp_len, dst, f->raw_len, err) :
		sl_zstd_unframe_prefix(comp, f->comp_len, dst, f->raw_len, prefix, prefix_len, err))
	{
		sl_err_prefix(err, "frame %u", i);
		return -1;
	}
	return 0;
}

/* Make frame i's raw bytes available in the frame cache. */
static int
load_frame(sl_value *v, uint32_t i, sl_frame *f, sl_err *err)
{
	if (sl_value_frame(v, i, f, err))
		return -1;
	if (v->cached_frame == i)
		return 0;
	if (reserve(&v->frame_buf, &v->frame_cap, f->raw_len, err))
		return -1;
	v->cached_frame = SL_NO_FRAME;
	if (unframe(v, i, f, v->frame_buf, err))
		return -1;
	v->cached_frame = i;
	return 0;
}

/* Fetch a reference chunk's bytes from the chunk store through the resolver. */
static int
resolve_chunk(sl_value *v, const sl_dirent *d, const uint8_t *comp[SL_NCOMP], sl_err *err)
{
	const uint8_t *entry;
	size_t		len;
	int			checked = 0;
	char		hex[65];

	if (v->resolve == NULL)
	{
		sl_hash_hex(d->hash, hex);
		return sl_fail(err, SL_ERR_UNSUPPORTED,
					   "chunk (%d,%d) is stored by reference (chunk %s) and this reader has no chunk store",
					   d->x, d->z, hex);
	}
	if (v->resolve(v->resolve_ctx, d, &entry, &len, &checked, err) ||
		(checked && len > 0 && entry[0] == SL_ENTRY_RAW ?
		 sl_store_entry_view(entry, len, d, comp, err) :
		 sl_store_entry_decode(entry, len, d, &v->lim, !checked, &v->ref_buf, &v->ref_cap,
							   comp, err)))
	{
		sl_err_prefix(err, "chunk (%d,%d)", d->x, d->z);
		return -1;
	}
	return 0;
}

/* Number of chunks stored by reference. */
uint32_t
sl_value_ref_count(const sl_value *v)
{
	return v->hdr.ref_count;
}

/* Chunk i's hash: from the reference table, or computed from its bytes. */
int
sl_value_chunk_hash(sl_value *v, uint32_t i, uint8_t out[32], sl_err *err)
{
	sl_dirent	d;
	const uint8_t *comp[SL_NCOMP];

	if (sl_value_dirent(v, i, &d, err))
		return -1;
	if (d.ref)
	{
		memcpy(out, d.hash, 32);
		return 0;
	}
	if (sl_value_chunk(v, i, &d, comp, err))
		return -1;
	sl_chunk_hash(&d, comp, out);
	return 0;
}

/* The value's content hash as version 2 defines it. */
int
sl_value_content_hash(sl_value *v, uint8_t out[32], sl_err *err)
{
	struct sha256_ctx ctx;
	const uint8_t *world;
	size_t		world_len;

	if (v->hdr.version >= 2)
	{
		memcpy(out, v->hdr.hash, 32);
		return 0;
	}
	sl_merkle_start(&ctx, v->hdr.chunk_count);
	for (uint32_t i = 0; i < v->hdr.chunk_count; i++)
	{
		sl_dirent	d;
		uint8_t		h[32];

		if ((i & 63) == 0)
			sl_interrupt();
		if (sl_value_chunk_hash(v, i, h, err) || sl_value_dirent(v, i, &d, err))
			return -1;
		sl_merkle_chunk(&ctx, d.x, d.z, d.data_version, d.timestamp, d.len, h);
	}
	if (sl_value_world(v, &world, &world_len, err))
		return -1;
	sl_merkle_world(&ctx, world, world_len);
	sha256_digest(&ctx, 32, out);
	return 0;
}

/* Decompress what chunk i holds. */
int
sl_value_chunk(sl_value *v, uint32_t i, sl_dirent *d, const uint8_t *comp[SL_NCOMP],
			   sl_err *err)
{
	sl_frame	f;
	uint64_t	end;

	if (sl_value_dirent(v, i, d, err))
		return -1;
	if (d->ref)
		return resolve_chunk(v, d, comp, err);
	if (load_frame(v, d->frame, &f, err))
		return -1;
	end = (uint64_t) d->offset + d->len[0] + d->len[1] + d->len[2];
	if (end > f.raw_len)
		return sl_fail(err, SL_ERR_CORRUPT, "chunk (%d,%d) runs past the end of frame %u",
					   d->x, d->z, d->frame);
	end = d->offset;
	for (int k = 0; k < SL_NCOMP; k++)
	{
		comp[k] = d->len[k] ? v->frame_buf + end : NULL;
		end += d->len[k];
	}
	return 0;
}

/* Decompress the world compound. */
int
sl_value_world(sl_value *v, const uint8_t **data, size_t *len, sl_err *err)
{
	sl_frame	f;

	*data = NULL;
	*len = 0;
	if (v->hdr.world_len == 0)
		return 0;
	if (load_frame(v, v->hdr.world_frame, &f, err))
		return -1;
	if (f.raw_len != v->hdr.world_len)
		return sl_fail(err, SL_ERR_CORRUPT, "world frame holds %u bytes, header says %u",
					   f.raw_len, v->hdr.world_len);
	*data = v->frame_buf;
	*len = f.raw_len;
	return 0;
}
