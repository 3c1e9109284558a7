/*
 * sl_value.c - encode, open, read and verify slime values (format v2; v1 is
 * still read, and written on request for tests of the v1 reader).
 */
#include "sl_value.h"
#include "sl_codec.h"
#include "sl_nbt.h"
#include "sl_store.h"
#include "sl_zstd.h"

#include <stdlib.h>
#include <string.h>
#include <nettle/sha2.h>

const sl_encode_opts sl_default_encode_opts = {SL_DEFAULT_LEVEL, 128 * 1024, 1024 * 1024, 0};

#define HASH_TAG_V1 "slime-content-v1"
#define HASH_TAG_V2 "slime-content-v2"

/* Little-endian helpers local to the value format. */
static inline uint16_t
get_u16(const uint8_t *p)
{
	return (uint16_t) (p[0] | (p[1] << 8));
}

static inline uint32_t
get_u32(const uint8_t *p)
{
	return sl_get_u32le(p);
}

static inline uint64_t
get_u64(const uint8_t *p)
{
	return (uint64_t) get_u32(p) | ((uint64_t) get_u32(p + 4) << 32);
}

static inline void
put_u16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t) v;
	p[1] = (uint8_t) (v >> 8);
}

static inline void
put_u64(uint8_t *p, uint64_t v)
{
	sl_put_u32le(p, (uint32_t) v);
	sl_put_u32le(p + 4, (uint32_t) (v >> 32));
}

/* Spread the 32 bits of v over the even bits of a 64-bit word. */
static uint64_t
spread_bits(uint32_t v)
{
	uint64_t	x = v;

	x = (x | (x << 16)) & 0x0000FFFF0000FFFFULL;
	x = (x | (x << 8)) & 0x00FF00FF00FF00FFULL;
	x = (x | (x << 4)) & 0x0F0F0F0F0F0F0F0FULL;
	x = (x | (x << 2)) & 0x3333333333333333ULL;
	x = (x | (x << 1)) & 0x5555555555555555ULL;
	return x;
}

/* Canonical order key of a chunk position (Morton order of biased x, z). */
uint64_t
sl_chunk_key(int32_t x, int32_t z)
{
	uint32_t	ux = (uint32_t) x ^ 0x80000000u;
	uint32_t	uz = (uint32_t) z ^ 0x80000000u;

	return spread_bits(ux) | (spread_bits(uz) << 1);
}

/* Free every cached codec context of the core. */
void
sl_release_caches(void)
{
	sl_zstd_release();
	sl_codec_release();
}

/* Decompress frame frame_no (raw_len bytes) into dst, errors naming the frame. */
static int
zstd_unframe(const uint8_t *src, size_t len, uint8_t *dst, size_t raw_len,
			 uint32_t frame_no, sl_err *err)
{
	if (sl_zstd_unframe(src, len, dst, raw_len, err))
	{
		sl_err_prefix(err, "frame %u", frame_no);
		return -1;
	}
	return 0;
}

/* Total bytes of a chunk's components. */
static uint64_t
src_len(const sl_chunk_src *c)
{
	return (uint64_t) c->len[0] + c->len[1] + c->len[2];
}

typedef struct keyed_src
{
	uint64_t	key;
	const sl_chunk_src *src;
} keyed_src;

/* Order chunks by canonical key. */
static int
cmp_keyed(const void *a, const void *b)
{
	uint64_t	ka = ((const keyed_src *) a)->key;
	uint64_t	kb = ((const keyed_src *) b)->key;

	return ka < kb ? -1 : ka > kb;
}

/* Feed a little-endian u32 to a SHA-256 context. */
static void
sha_u32(struct sha256_ctx *ctx, uint32_t v)
{
	uint8_t		t[4];

	sl_put_u32le(t, v);
	sha256_update(ctx, 4, t);
}

/* Hash the v1 canonical content stream of sorted chunks and the world. */
static void
content_hash_v1(const keyed_src *ks, size_t n, const uint8_t *world, size_t world_len,
			 uint8_t out[32])
{
	struct sha256_ctx ctx;

	sha256_init(&ctx);
	sha256_update(&ctx, sizeof(HASH_TAG_V1), (const uint8_t *) HASH_TAG_V1);
	sha_u32(&ctx, (uint32_t) n);
	for (size_t i = 0; i < n; i++)
	{
		const sl_chunk_src *c = ks[i].src;

		sha_u32(&ctx, (uint32_t) c->x);
		sha_u32(&ctx, (uint32_t) c->z);
		sha_u32(&ctx, (uint32_t) c->data_version);
		sha_u32(&ctx, c->timestamp);
		for (int k = 0; k < SL_NCOMP; k++)
			sha_u32(&ctx, c->len[k]);
		for (int k = 0; k < SL_NCOMP; k++)
			if (c->len[k])
				sha256_update(&ctx, c->len[k], c->comp[k]);
	}
	sha_u32(&ctx, (uint32_t) world_len);
	if (world_len)
		sha256_update(&ctx, world_len, world);
	sha256_digest(&ctx, 32, out);
}

/* SHA-256 of one chunk's canonical bytes (its components and their lengths). */
void
sl_chunk_hash(const sl_dirent *d, const uint8_t *const comp[SL_NCOMP], uint8_t out[32])
{
	struct sha256_ctx ctx;

	sha256_init(&ctx);
	for (int k = 0; k < SL_NCOMP; k++)
		sha_u32(&ctx, d->len[k]);
	for (int k = 0; k < SL_NCOMP; k++)
		if (d->len[k])
			sha256_update(&ctx, d->len[k], comp[k]);
	sha256_digest(&ctx, 32, out);
}

/* Check the chunks handed to the encoder and sort them canonically. */
static keyed_src *
sort_sources(const sl_chunk_src *chunks, size_t n, const sl_limits *lim, sl_err *err)
{
	keyed_src  *ks;
	uint64_t	total = 0;

	if (n > (SL_MAX_VALUE - SL_HEADER_SIZE) / SL_DIRENT_SIZE)
		return sl_fail(err, SL_ERR_LIMIT, "too many chunks (%zu)", n), NULL;
	ks = sl_alloc_err((n ? n : 1) * sizeof(keyed_src), err);
	if (ks == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++)
	{
		uint64_t	len = src_len(&chunks[i]);

		if (len == 0)
		{
			sl_free(ks);
			return sl_fail(err, SL_ERR_INVALID, "chunk (%d,%d) has no data",
						   chunks[i].x, chunks[i].z), NULL;
		}
		total += len;
		if (len > lim->max_chunk_raw)
		{
			sl_free(ks);
			return sl_fail(err, SL_ERR_LIMIT,
						   "chunk (%d,%d): %llu bytes exceed the chunk size cap of %zu bytes",
						   chunks[i].x, chunks[i].z, (unsigned long long) len, lim->max_chunk_raw), NULL;
		}
		if (total > lim->max_value_raw)
		{
			sl_free(ks);
			return sl_fail(err, SL_ERR_LIMIT,
						   "the world's chunks exceed the world size cap of %zu bytes",
						   lim->max_value_raw), NULL;
		}
		ks[i].key = sl_chunk_key(chunks[i].x, chunks[i].z);
		ks[i].src = &chunks[i];
	}
	qsort(ks, n, sizeof(keyed_src), cmp_keyed);
	for (size_t i = 1; i < n; i++)
		if (ks[i].key == ks[i - 1].key)
		{
			int32_t		x = ks[i].src->x,
						z = ks[i].src->z;

			sl_free(ks);
			return sl_fail(err, SL_ERR_DUPLICATE, "chunk (%d,%d) appears more than once", x, z), NULL;
		}
	return ks;
}

/* Feed one directory entry's part of the v2 content hash. */
static void
merkle_chunk(struct sha256_ctx *ctx, int32_t x, int32_t z, int32_t dv, uint32_t ts,
			 const uint32_t len[SL_NCOMP], const uint8_t hash[32])
{
	sha_u32(ctx, (uint32_t) x);
	sha_u32(ctx, (uint32_t) z);
	sha_u32(ctx, (uint32_t) dv);
	sha_u32(ctx, ts);
	for (int k = 0; k < SL_NCOMP; k++)
		sha_u32(ctx, len[k]);
	sha256_update(ctx, 32, hash);
}

/* Start the v2 content hash of a value of n chunks. */
static void
merkle_start(struct sha256_ctx *ctx, uint32_t n)
{
	sha256_init(ctx);
	sha256_update(ctx, sizeof(HASH_TAG_V2), (const uint8_t *) HASH_TAG_V2);
	sha_u32(ctx, n);
}

/* Feed the world compound, the last part of the v2 content hash. */
static void
merkle_world(struct sha256_ctx *ctx, const uint8_t *world, size_t world_len)
{
	sha_u32(ctx, (uint32_t) world_len);
	if (world_len)
		sha256_update(ctx, world_len, world);
}

typedef struct encoder
{
	const sl_encode_opts *opts;
	int			version;
	struct sha256_ctx merkle;	/* v2 content hash */
	sl_buf		refs;			/* reference table */
	uint32_t	nrefs;
	sl_buf		payload;		/* compressed frames */
	sl_buf		frames;			/* frame table entries */
	sl_buf		raw;			/* raw bytes of the frame being built */
	uint32_t	nframes;
} encoder;

/* Compress the raw frame under construction and record it in the table. */
static int
close_frame(encoder *e, sl_err *err)
{
	size_t		before = e->payload.len;
	uint8_t		ent[SL_FRAMEENT_SIZE];

	if (sl_zstd_frame(e->raw.data, e->raw.len, e->opts->level, &e->payload, err))
		return -1;
	sl_put_u32le(ent, (uint32_t) before);	/* relative; rebased later */
	sl_put_u32le(ent + 4, (uint32_t) (e->payload.len - before));
	sl_put_u32le(ent + 8, (uint32_t) e->raw.len);
	if (sl_buf_put(&e->frames, ent, sizeof(ent), err))
		return -1;
	e->nframes++;
	e->raw.len = 0;
	return 0;
}

/* Write the fixed header fields into hdr (crc left zero). */
static void
write_header(uint8_t *hdr, const sl_header *h)
{
	memset(hdr, 0, SL_HEADER_SIZE);
	memcpy(hdr, SL_VALUE_MAGIC, 4);
	put_u16(hdr + 4, h->version);
	put_u16(hdr + 6, h->flags);
	sl_put_u32le(hdr + 8, h->chunk_count);
	sl_put_u32le(hdr + 12, h->frame_count);
	sl_put_u32le(hdr + 16, h->dir_offset);
	sl_put_u32le(hdr + 20, h->frames_offset);
	sl_put_u32le(hdr + 24, h->payload_offset);
	sl_put_u32le(hdr + 28, h->total_len);
	sl_put_u32le(hdr + 32, (uint32_t) h->dv_min);
	sl_put_u32le(hdr + 36, (uint32_t) h->dv_max);
	sl_put_u32le(hdr + 40, (uint32_t) h->min_x);
	sl_put_u32le(hdr + 44, (uint32_t) h->min_z);
	sl_put_u32le(hdr + 48, (uint32_t) h->max_x);
	sl_put_u32le(hdr + 52, (uint32_t) h->max_z);
	put_u64(hdr + 56, h->raw_bytes);
	sl_put_u32le(hdr + 64, h->world_len);
	sl_put_u32le(hdr + 68, h->world_frame);
	sl_put_u32le(hdr + 76, h->ref_count);
	memcpy(hdr + 80, h->hash, 32);
}

/* Fill the summary fields of a header from sorted chunks. */
static void
summarize(sl_header *h, const keyed_src *ks, size_t n, size_t world_len)
{
	h->dv_min = h->dv_max = SL_NO_DV;
	h->min_x = h->min_z = h->max_x = h->max_z = 0;
	h->raw_bytes = world_len;
	for (size_t i = 0; i < n; i++)
	{
		const sl_chunk_src *c = ks[i].src;

		if (i == 0 || c->x < h->min_x)
			h->min_x = c->x;
		if (i == 0 || c->x > h->max_x)
			h->max_x = c->x;
		if (i == 0 || c->z < h->min_z)
			h->min_z = c->z;
		if (i == 0 || c->z > h->max_z)
			h->max_z = c->z;
		if (c->data_version != SL_NO_DV)
		{
			if (h->dv_min == SL_NO_DV || c->data_version < h->dv_min)
				h->dv_min = c->data_version;
			if (h->dv_max == SL_NO_DV || c->data_version > h->dv_max)
				h->dv_max = c->data_version;
		}
		h->raw_bytes += src_len(c);
	}
}

/*
 * Lay the chunks out in frames, compress them and build the directory. A
 * small value is one frame (one stream compresses best, and reading it
 * whole is cheap); a larger one gets frames of about frame_target raw bytes
 * so that one chunk is read without decompressing the rest. Chunks stored
 * by reference take no frame.
 */
static int
encode_frames(encoder *e, const keyed_src *ks, size_t n, sl_buf *dir, sl_err *err)
{
	uint64_t	raw = 0;
	size_t		target;

	for (size_t i = 0; i < n; i++)
		if (ks[i].src->ref == NULL)
			raw += src_len(ks[i].src);
	target = raw <= e->opts->single_frame_max ? SIZE_MAX : e->opts->frame_target;
	merkle_start(&e->merkle, (uint32_t) n);
	for (size_t i = 0; i < n; i++)
	{
		const sl_chunk_src *c = ks[i].src;
		uint8_t		ent[SL_DIRENT_SIZE];
		sl_dirent	d;

		if (c->ref && e->version == 1)
			return sl_fail(err, SL_ERR_UNSUPPORTED,
						   "chunk (%d,%d): format version 1 cannot hold store references", c->x, c->z);
		memset(&d, 0, sizeof(d));
		memcpy(d.len, c->len, sizeof(d.len));
		sl_put_u32le(ent, (uint32_t) c->x);
		sl_put_u32le(ent + 4, (uint32_t) c->z);
		sl_put_u32le(ent + 8, (uint32_t) c->data_version);
		sl_put_u32le(ent + 12, c->timestamp);
		sl_put_u32le(ent + 16, c->ref ? SL_NO_FRAME : e->nframes);
		sl_put_u32le(ent + 20, c->ref ? e->nrefs : (uint32_t) e->raw.len);
		for (int k = 0; k < SL_NCOMP; k++)
		{
			sl_put_u32le(ent + 24 + 4 * k, c->len[k]);
			if (!c->ref && c->len[k] && sl_buf_put(&e->raw, c->comp[k], c->len[k], err))
				return -1;
		}
		if (c->ref)
		{
			memcpy(d.hash, c->ref, 32);
			e->nrefs++;
			if (sl_buf_put(&e->refs, c->ref, SL_REFENT_SIZE, err))
				return -1;
		}
		else if (e->version != 1)
			sl_chunk_hash(&d, c->comp, d.hash);
		merkle_chunk(&e->merkle, c->x, c->z, c->data_version, c->timestamp, c->len, d.hash);
		if (sl_buf_put(dir, ent, SL_DIRENT_SIZE, err))
			return -1;
		if (!c->ref && e->raw.len >= target)
		{
			sl_interrupt();
			if (close_frame(e, err))
				return -1;
		}
	}
	return e->raw.len > 0 ? close_frame(e, err) : 0;
}

/* Concatenate header, directory, frame table and payload into out. */
static int
assemble(sl_header *h, encoder *e, sl_buf *dir, sl_buf *out, sl_err *err)
{
	uint64_t	total;
	size_t		start = out->len;
	uint8_t    *frames = e->frames.data;
	uint32_t	crc;

	h->dir_offset = SL_HEADER_SIZE;
	h->frames_offset = h->dir_offset + (uint32_t) dir->len;
	h->refs_offset = h->frames_offset + (uint32_t) e->frames.len;
	h->payload_offset = h->refs_offset + (uint32_t) e->refs.len;
	total = (uint64_t) h->payload_offset + e->payload.len;
	if (total > SL_MAX_VALUE)
		return sl_fail(err, SL_ERR_LIMIT, "encoded value of %llu bytes exceeds the %zu-byte cap",
					   (unsigned long long) total, SL_MAX_VALUE);
	h->total_len = (uint32_t) total;
	for (uint32_t i = 0; i < h->frame_count; i++)
		sl_put_u32le(frames + i * SL_FRAMEENT_SIZE,
					 get_u32(frames + i * SL_FRAMEENT_SIZE) + h->payload_offset);
	if (sl_buf_reserve(out, total, err))
		return -1;
	write_header(out->data + start, h);
	out->len += SL_HEADER_SIZE;
	sl_buf_put(out, dir->data, dir->len, err);
	sl_buf_put(out, e->frames.data, e->frames.len, err);
	sl_buf_put(out, e->refs.data, e->refs.len, err);
	crc = sl_crc32(0, out->data + start, h->payload_offset);
	sl_put_u32le(out->data + start + 72, crc);
	return sl_buf_put(out, e->payload.data, e->payload.len, err);
}

/* Encode chunks and an optional world compound into a canonical value. */
int
sl_value_encode(const sl_chunk_src *chunks, size_t n, const uint8_t *world,
				size_t world_len, const sl_encode_opts *opts, const sl_limits *lim,
				sl_buf *out, sl_err *err)
{
	keyed_src  *ks;
	encoder		e;
	sl_buf		dir = {0};
	sl_header	h;
	int			rc = -1;

	if (opts == NULL)
		opts = &sl_default_encode_opts;
	if (lim == NULL)
		lim = &sl_default_limits;
	if (world_len > lim->max_chunk_raw)
		return sl_fail(err, SL_ERR_LIMIT, "world data of %zu bytes exceeds the size cap", world_len);
	ks = sort_sources(chunks, n, lim, err);
	if (ks == NULL)
		return -1;
	memset(&e, 0, sizeof(e));
	memset(&h, 0, sizeof(h));
	e.opts = opts;
	e.version = opts->version ? opts->version : SL_VALUE_VERSION;
	h.version = (uint16_t) e.version;
	h.chunk_count = (uint32_t) n;
	summarize(&h, ks, n, world_len);
	if (h.raw_bytes > lim->max_value_raw)
	{
		sl_fail(err, SL_ERR_LIMIT, "world of %llu raw bytes exceeds the size cap",
				(unsigned long long) h.raw_bytes);
		goto done;
	}
	if (opts->level < SL_MIN_LEVEL || opts->level > SL_MAX_LEVEL)
	{
		sl_fail(err, SL_ERR_INVALID, "compression level %d is outside %d..%d",
				opts->level, SL_MIN_LEVEL, SL_MAX_LEVEL);
		goto done;
	}
	if (e.version < SL_VALUE_VERSION_MIN || e.version > SL_VALUE_VERSION)
	{
		sl_fail(err, SL_ERR_INVALID, "cannot write format version %d", e.version);
		goto done;
	}
	if (encode_frames(&e, ks, n, &dir, err))
		goto done;
	if (e.nrefs)
		h.flags |= SL_FLAG_REFS;
	h.ref_count = e.nrefs;
	h.world_len = (uint32_t) world_len;
	h.world_frame = SL_NO_FRAME;
	if (world_len)
	{
		h.flags |= SL_FLAG_WORLD;
		h.world_frame = e.nframes;
		if (sl_buf_put(&e.raw, world, world_len, err) || close_frame(&e, err))
			goto done;
	}
	h.frame_count = e.nframes;
	if (h.version == 1)
		content_hash_v1(ks, n, world, world_len, h.hash);
	else
	{
		merkle_world(&e.merkle, world, world_len);
		sha256_digest(&e.merkle, 32, h.hash);
	}
	rc = assemble(&h, &e, &dir, out, err);
done:
	sl_free(ks);
	sl_buf_free(&dir);
	sl_buf_free(&e.payload);
	sl_buf_free(&e.frames);
	sl_buf_free(&e.raw);
	sl_buf_free(&e.refs);
	return rc;
}

/* Parse and check the fixed header in buf. */
int
sl_header_parse(const uint8_t *buf, size_t len, size_t total_len, sl_header *h,
				sl_err *err)
{
	uint64_t	meta;

	if (len < SL_HEADER_SIZE || total_len < SL_HEADER_SIZE)
		return sl_fail(err, SL_ERR_CORRUPT, "slime value of %zu bytes is shorter than its %d-byte header",
					   total_len, SL_HEADER_SIZE);
	if (memcmp(buf, SL_VALUE_MAGIC, 4) != 0)
		return sl_fail(err, SL_ERR_CORRUPT, "not a slime value (bad magic)");
	h->version = get_u16(buf + 4);
	if (h->version < SL_VALUE_VERSION_MIN || h->version > SL_VALUE_VERSION)
		return sl_fail(err, SL_ERR_UNSUPPORTED, "slime format version %u is not supported (this build reads versions %d to %d)",
					   h->version, SL_VALUE_VERSION_MIN, SL_VALUE_VERSION);
	h->flags = get_u16(buf + 6);
	h->chunk_count = get_u32(buf + 8);
	h->frame_count = get_u32(buf + 12);
	h->dir_offset = get_u32(buf + 16);
	h->frames_offset = get_u32(buf + 20);
	h->payload_offset = get_u32(buf + 24);
	h->total_len = get_u32(buf + 28);
	h->dv_min = (int32_t) get_u32(buf + 32);
	h->dv_max = (int32_t) get_u32(buf + 36);
	h->min_x = (int32_t) get_u32(buf + 40);
	h->min_z = (int32_t) get_u32(buf + 44);
	h->max_x = (int32_t) get_u32(buf + 48);
	h->max_z = (int32_t) get_u32(buf + 52);
	h->raw_bytes = get_u64(buf + 56);
	h->world_len = get_u32(buf + 64);
	h->world_frame = get_u32(buf + 68);
	h->ref_count = get_u32(buf + 76);
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

/* Read header and directory through fetch; checks the metadata CRC. */
int
sl_value_open(sl_value *v, sl_fetch_fn fetch, void *ctx, size_t total_len,
			  const sl_limits *lim, sl_err *err)
{
	const uint8_t *buf;
	uint32_t	crc;
	uint8_t		zero[4] = {0};

	memset(v, 0, sizeof(*v));
	v->fetch = fetch;
	v->ctx = ctx;
	v->total_len = total_len;
	v->lim = lim ? *lim : sl_default_limits;
	v->cached_frame = SL_NO_FRAME;
	if (total_len < SL_HEADER_SIZE)
		return sl_fail(err, SL_ERR_CORRUPT, "slime value of %zu bytes is shorter than its %d-byte header",
					   total_len, SL_HEADER_SIZE);
	if (fetch(ctx, 0, SL_HEADER_SIZE, &buf, err))
		return -1;
	if (sl_header_parse(buf, SL_HEADER_SIZE, total_len, &v->hdr, err))
		return -1;
	if (v->hdr.raw_bytes > v->lim.max_value_raw)
		return sl_fail(err, SL_ERR_LIMIT, "value holds %llu raw bytes, over the world size cap of %zu bytes",
					   (unsigned long long) v->hdr.raw_bytes, v->lim.max_value_raw);
	if (fetch(ctx, 0, v->hdr.payload_offset, &buf, err))
		return -1;
	crc = sl_crc32(0, buf, 72);
	crc = sl_crc32(crc, zero, 4);
	crc = sl_crc32(crc, buf + 76, v->hdr.payload_offset - 76);
	if (crc != get_u32(buf + 72))
		return sl_fail(err, SL_ERR_CORRUPT, "header checksum mismatch (stored %08x, computed %08x)",
					   get_u32(buf + 72), crc);
	v->meta = buf;
	return 0;
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

/* Release the frame cache of an open value. */
void
sl_value_close(sl_value *v)
{
	sl_free(v->frame_buf);
	sl_free(v->ref_buf);
	v->frame_buf = NULL;
	v->frame_cap = 0;
	v->ref_buf = NULL;
	v->ref_cap = 0;
	v->cached_frame = SL_NO_FRAME;
}

/* Frame table entry i, checked against the value's bounds. */
int
sl_value_frame(const sl_value *v, uint32_t i, sl_frame *f, sl_err *err)
{
	const uint8_t *p;

	if (i >= v->hdr.frame_count)
		return sl_fail(err, SL_ERR_CORRUPT, "frame %u out of range (%u frames)", i, v->hdr.frame_count);
	p = v->meta + v->hdr.frames_offset + (size_t) i * SL_FRAMEENT_SIZE;
	f->offset = get_u32(p);
	f->comp_len = get_u32(p + 4);
	f->raw_len = get_u32(p + 8);
	if (f->offset < v->hdr.payload_offset || f->comp_len == 0 ||
		(uint64_t) f->offset + f->comp_len > v->hdr.total_len)
		return sl_fail(err, SL_ERR_CORRUPT, "frame %u lies outside the value", i);
	if (f->raw_len > v->lim.max_value_raw || f->raw_len > v->hdr.raw_bytes)
		return sl_fail(err, SL_ERR_CORRUPT, "frame %u declares %u raw bytes, more than the value holds", i, f->raw_len);
	return 0;
}

/* Directory entry i, checked against the header. */
int
sl_value_dirent(const sl_value *v, uint32_t i, sl_dirent *d, sl_err *err)
{
	const uint8_t *p;

	if (i >= v->hdr.chunk_count)
		return sl_fail(err, SL_ERR_CORRUPT, "chunk index %u out of range", i);
	p = v->meta + v->hdr.dir_offset + (size_t) i * SL_DIRENT_SIZE;
	d->x = (int32_t) get_u32(p);
	d->z = (int32_t) get_u32(p + 4);
	d->data_version = (int32_t) get_u32(p + 8);
	d->timestamp = get_u32(p + 12);
	d->frame = get_u32(p + 16);
	d->offset = get_u32(p + 20);
	for (int k = 0; k < SL_NCOMP; k++)
		d->len[k] = get_u32(p + 24 + 4 * k);
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

/* Index of chunk (x,z), or -1 when absent. */
int64_t
sl_value_find(const sl_value *v, int32_t x, int32_t z)
{
	uint64_t	key = sl_chunk_key(x, z);
	int64_t		lo = 0,
				hi = (int64_t) v->hdr.chunk_count - 1;

	while (lo <= hi)
	{
		int64_t		mid = lo + (hi - lo) / 2;
		const uint8_t *p = v->meta + v->hdr.dir_offset + (size_t) mid * SL_DIRENT_SIZE;
		uint64_t	k = sl_chunk_key((int32_t) get_u32(p), (int32_t) get_u32(p + 4));

		if (k == key)
			return mid;
		if (k < key)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

/* Make frame i's raw bytes available in the frame cache. */
static int
load_frame(sl_value *v, uint32_t i, sl_frame *f, sl_err *err)
{
	const uint8_t *comp;

	if (sl_value_frame(v, i, f, err))
		return -1;
	if (v->cached_frame == i)
		return 0;
	if (f->raw_len > v->frame_cap)
	{
		uint8_t    *nb = sl_realloc(v->frame_buf, f->raw_len);

		if (nb == NULL)
			return sl_fail(err, SL_ERR_NOMEM, "out of memory for a %u-byte frame", f->raw_len);
		v->frame_buf = nb;
		v->frame_cap = f->raw_len;
	}
	v->cached_frame = SL_NO_FRAME;
	if (v->fetch(v->ctx, f->offset, f->comp_len, &comp, err))
		return -1;
	if (zstd_unframe(comp, f->comp_len, v->frame_buf, f->raw_len, i, err))
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
	char		hex[65];

	if (v->resolve == NULL)
	{
		sl_hash_hex(d->hash, hex);
		return sl_fail(err, SL_ERR_UNSUPPORTED,
					   "chunk (%d,%d) is stored by reference (chunk %s) and this reader has no chunk store",
					   d->x, d->z, hex);
	}
	if (v->resolve(v->resolve_ctx, d, &entry, &len, err) ||
		sl_store_entry_decode(entry, len, d, &v->lim, &v->ref_buf, &v->ref_cap, comp, err))
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
	merkle_start(&ctx, v->hdr.chunk_count);
	for (uint32_t i = 0; i < v->hdr.chunk_count; i++)
	{
		sl_dirent	d;
		uint8_t		h[32];

		if ((i & 63) == 0)
			sl_interrupt();
		if (sl_value_chunk_hash(v, i, h, err) || sl_value_dirent(v, i, &d, err))
			return -1;
		merkle_chunk(&ctx, d.x, d.z, d.data_version, d.timestamp, d.len, h);
	}
	if (sl_value_world(v, &world, &world_len, err))
		return -1;
	merkle_world(&ctx, world, world_len);
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

/* Feed a decoded chunk into the content hash. */
static void
hash_chunk(struct sha256_ctx *ctx, const sl_dirent *d, const uint8_t *const comp[SL_NCOMP])
{
	sha_u32(ctx, (uint32_t) d->x);
	sha_u32(ctx, (uint32_t) d->z);
	sha_u32(ctx, (uint32_t) d->data_version);
	sha_u32(ctx, d->timestamp);
	for (int k = 0; k < SL_NCOMP; k++)
		sha_u32(ctx, d->len[k]);
	for (int k = 0; k < SL_NCOMP; k++)
		if (d->len[k])
			sha256_update(ctx, d->len[k], comp[k]);
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

/*
 * Check chunk i's content: decompress it, check its NBT documents, and feed
 * the content hash (v1: the bytes; v2: the directory entry and the chunk's
 * hash). A store reference contributes its hash from the reference table.
 */
static int
verify_content(sl_value *v, uint32_t i, struct sha256_ctx *ctx, sl_err *err)
{
	sl_dirent	d;
	const uint8_t *comp[SL_NCOMP];
	uint8_t		h[32];

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
		hash_chunk(ctx, &d, comp);
		return 0;
	}
	if (d.ref)
		memcpy(h, d.hash, 32);
	else
		sl_chunk_hash(&d, comp, h);
	merkle_chunk(ctx, d.x, d.z, d.data_version, d.timestamp, d.len, h);
	return 0;
}

/* Check a zstd frame's header against its table entry without decompressing. */
static int
verify_frame_header(sl_value *v, uint32_t i, sl_err *err)
{
	sl_frame	f;
	const uint8_t *src;

	if (sl_value_frame(v, i, &f, err) || v->fetch(v->ctx, f.offset, f.comp_len, &src, err))
		return -1;
	if (sl_zstd_check(src, f.comp_len, f.raw_len, err))
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

	s.dv_min = s.dv_max = SL_NO_DV;
	s.min_x = s.min_z = s.max_x = s.max_z = 0;
	s.raw_bytes = v->hdr.world_len;
	for (uint32_t i = 0; i < v->hdr.chunk_count; i++)
	{
		if (sl_value_dirent(v, i, &d, err))
			return -1;
		if (i == 0 || d.x < s.min_x)
			s.min_x = d.x;
		if (i == 0 || d.x > s.max_x)
			s.max_x = d.x;
		if (i == 0 || d.z < s.min_z)
			s.min_z = d.z;
		if (i == 0 || d.z > s.max_z)
			s.max_z = d.z;
		if (d.data_version != SL_NO_DV)
		{
			if (s.dv_min == SL_NO_DV || d.data_version < s.dv_min)
				s.dv_min = d.data_version;
			if (s.dv_max == SL_NO_DV || d.data_version > s.dv_max)
				s.dv_max = d.data_version;
		}
		s.raw_bytes += (uint64_t) d.len[0] + d.len[1] + d.len[2];
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
	sha_u32(ctx, (uint32_t) world_len);
	if (world_len)
		sha256_update(ctx, world_len, world);
	return 0;
}

/* Check a value: its structure, and with full its content and hash too. */
int
sl_value_check(const uint8_t *data, size_t len, int full, const sl_limits *lim, sl_err *err)
{
	sl_value	v;
	verify_state st;
	struct sha256_ctx ctx;
	uint8_t		hash[32];
	sl_frame	f;
	int			rc = -1;

	if (sl_value_open_mem(&v, data, len, lim, err))
		return -1;
	memset(&st, 0, sizeof(st));
	if (verify_summary(&v, err) || verify_frames(&v, err))
		goto done;
	for (uint32_t i = 0; i < v.hdr.chunk_count; i++)
	{
		sl_dirent	d;

		if ((i & 1023) == 0)
			sl_interrupt();
		if (sl_value_dirent(&v, i, &d, err) || verify_layout(&v, i, &d, &st, err))
			goto done;
	}
	if (st.refs != v.hdr.ref_count)
	{
		sl_fail(err, SL_ERR_CORRUPT, "the header's reference count does not match the directory");
		goto done;
	}
	if (!st.inline_seen && v.hdr.frame_count != (v.hdr.world_len ? 1u : 0u))
	{
		sl_fail(err, SL_ERR_CORRUPT, "frames without chunks");
		goto done;
	}
	if (st.inline_seen)
	{
		uint32_t	last_chunk_frame = v.hdr.frame_count - 1 - (v.hdr.world_len ? 1 : 0);

		if (st.frame != last_chunk_frame)
		{
			sl_fail(err, SL_ERR_CORRUPT, "frames without chunks");
			goto done;
		}
		if (sl_value_frame(&v, st.frame, &f, err))
			goto done;
		if (f.raw_len != st.next_offset)
		{
			sl_fail(err, SL_ERR_CORRUPT, "frame %u has stray bytes", st.frame);
			goto done;
		}
	}
	for (uint32_t i = 0; i < v.hdr.frame_count; i++)
		if (verify_frame_header(&v, i, err))
			goto done;
	if (full)
	{
		if (v.hdr.version == 1)
		{
			sha256_init(&ctx);
			sha256_update(&ctx, sizeof(HASH_TAG_V1), (const uint8_t *) HASH_TAG_V1);
			sha_u32(&ctx, v.hdr.chunk_count);
		}
		else
			merkle_start(&ctx, v.hdr.chunk_count);
		for (uint32_t i = 0; i < v.hdr.chunk_count; i++)
		{
			if ((i & 63) == 0)
				sl_interrupt();
			if (verify_content(&v, i, &ctx, err))
				goto done;
		}
		if (verify_world(&v, &ctx, err))
			goto done;
		sha256_digest(&ctx, 32, hash);
		if (memcmp(hash, v.hdr.hash, 32) != 0)
		{
			sl_fail(err, SL_ERR_CORRUPT, "content hash mismatch: the value's data is damaged");
			goto done;
		}
	}
	rc = 0;
done:
	sl_value_close(&v);
	return rc;
}
