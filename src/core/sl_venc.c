/*
 * sl_venc.c - encode chunks into a canonical slime value: format version 3
 * (written), and versions 1 and 2 on request (tests of their readers).
 * doc/format.md is the authority on the bytes.
 */
#include "sl_value_int.h"
#include "sl_bcodec.h"
#include "sl_codec.h"
#include "sl_vsum.h"
#include "sl_zstd.h"

#include <stdlib.h>
#include <string.h>

const sl_encode_opts sl_default_encode_opts = {SL_DEFAULT_LEVEL, 96 * 1024, 1024 * 1024, 0, 64 * 1024, 16, 0, 0};

/* The zstd level of a v3 directory: at least this (directories are small). */
#define DIR_MIN_LEVEL 9

typedef struct keyed_src
{
	uint64_t	key;
	const sl_chunk_src *src;
} keyed_src;

/* Total bytes of a chunk's components. */
static uint64_t
src_len(const sl_chunk_src *c)
{
	return (uint64_t) c->len[0] + c->len[1] + c->len[2];
}


/* Order chunks by canonical key. */
static int
cmp_keyed(const void *a, const void *b)
{
	uint64_t	ka = ((const keyed_src *) a)->key;
	uint64_t	kb = ((const keyed_src *) b)->key;

	return ka < kb ? -1 : ka > kb;
}

/* Hash the v1 canonical content stream of sorted chunks and the world. */
static void
content_hash_v1(const keyed_src *ks, size_t n, const uint8_t *world, size_t world_len,
			 uint8_t out[32])
{
	struct sha256_ctx ctx;

	sha256_init(&ctx);
	sha256_update(&ctx, sizeof(SL_HASH_TAG_V1), (const uint8_t *) SL_HASH_TAG_V1);
	sl_sha_u32(&ctx, (uint32_t) n);
	for (size_t i = 0; i < n; i++)
	{
		const sl_chunk_src *c = ks[i].src;

		sl_v1_chunk(&ctx, c->x, c->z, c->data_version, c->timestamp, c->len, c->comp);
	}
	sl_merkle_world(&ctx, world, world_len);
	sha256_digest(&ctx, 32, out);
}


/* The content hash (version 2's definition, also version 3's) of Morton-sorted chunks and the world. */
static void
content_hash_v2(const keyed_src *ks, size_t n, const uint8_t *world, size_t world_len, uint8_t hash[32])
{
	struct sha256_ctx merkle;

	sl_merkle_start(&merkle, (uint32_t) n);
	for (size_t i = 0; i < n; i++)
	{
		const sl_chunk_src *c = ks[i].src;
		sl_dirent	d;

		memset(&d, 0, sizeof(d));
		memcpy(d.len, c->len, sizeof(d.len));
		if (c->ref)
			memcpy(d.hash, c->ref, 32);
		else
			sl_chunk_hash(&d, c->comp, d.hash);
		sl_merkle_chunk(&merkle, c->x, c->z, c->data_version, c->timestamp, c->len, d.hash);
		if ((i & 255) == 255)
			sl_interrupt();
	}
	sl_merkle_world(&merkle, world, world_len);
	sha256_digest(&merkle, 32, hash);
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


/* State of the version 1 and 2 writer. */
typedef struct encoder
{
	const sl_encode_opts *opts;
	int			version;
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
	sl_put_u16le(hdr + 4, h->version);
	sl_put_u16le(hdr + 6, h->flags);
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
	sl_put_u32le(hdr + 56, (uint32_t) h->raw_bytes);
	sl_put_u32le(hdr + 60, (uint32_t) (h->raw_bytes >> 32));
	sl_put_u32le(hdr + 64, h->world_len);
	sl_put_u32le(hdr + 68, h->world_frame);
	sl_put_u32le(hdr + 76, h->ref_count);
	memcpy(hdr + 80, h->hash, 32);
}

/* Fill the summary fields of a header from sorted chunks. */
static void
summarize(sl_header *h, const keyed_src *ks, size_t n, size_t world_len)
{
	sl_summary_start(h, world_len);
	for (size_t i = 0; i < n; i++)
		sl_summary_add(h, (uint32_t) i, ks[i].src->x, ks[i].src->z, ks[i].src->data_version,
					   src_len(ks[i].src));
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
	for (size_t i = 0; i < n; i++)
	{
		const sl_chunk_src *c = ks[i].src;
		uint8_t		ent[SL_DIRENT_SIZE];

		if (c->ref && e->version == 1)
			return sl_fail(err, SL_ERR_UNSUPPORTED,
						   "chunk (%d,%d): format version 1 cannot hold store references", c->x, c->z);
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
			e->nrefs++;
			if (sl_buf_put(&e->refs, c->ref, SL_REFENT_SIZE, err))
				return -1;
		}
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
					 sl_get_u32le(frames + i * SL_FRAMEENT_SIZE) + h->payload_offset);
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


/* State of the version 3 writer. */
typedef struct writer3
{
	const sl_encode_opts *opts;
	sl_dirslot *d;				/* directory, canonical order */
	sl_frame   *frames;
	uint32_t	nframes;
	sl_buf		refs;			/* reference table */
	uint32_t	nrefs;
	sl_buf		payload;		/* compressed frames */
	sl_buf		raw;			/* raw bytes of the frame being built */
	sl_buf		base;			/* raw bytes of frame 0, the others' prefix */
	int			prefix;			/* chunk frames after the first use base */
	size_t		target;			/* raw bytes of the frames after the first */
} writer3;

/* Frames after the first grow with its compression ratio, up to this. */
#define FRAME_TARGET_MAX ((size_t) 4 * 1024 * 1024)

/* The archive level: one frame up to this many raw bytes, then frames of ARCHIVE_FRAME. */
#define ARCHIVE_SINGLE ((size_t) 16 * 1024 * 1024)
#define ARCHIVE_FRAME ((size_t) 4 * 1024 * 1024)
#define ARCHIVE_ZSTD_LEVEL 19	/* the zstd alternative to the block codec, and the world frame */

/*
 * Code one archive-level chunk frame: the block codec (stream version) or zstd at level 19,
 * whichever is smaller (repetitive worlds: zstd's long matches win).
 */
static int
archive_frame(const sl_buf *raw, int version, sl_buf *payload, uint8_t *codec, sl_err *err)
{
	sl_buf		bc = {0};
	size_t		before = payload->len;
	int			rc = -1;

	if (sl_bcodec_encode(raw->data, raw->len, version, &bc, err) ||
		sl_zstd_frame(raw->data, raw->len, ARCHIVE_ZSTD_LEVEL, payload, err))
		goto done;
	*codec = SL_CODEC_ZSTD;
	if (bc.len < payload->len - before)
	{
		payload->len = before;
		*codec = (uint8_t) version;	/* SL_CODEC_BLOCKS .. _BLOCKS5: the version */
		rc = sl_buf_put(payload, bc.data, bc.len, err);
		goto done;
	}
	rc = 0;
done:
	sl_buf_free(&bc);
	return rc;
}

/* Fill the directory and reference table from chunks in v3 order. */
static int
fill_dir3(writer3 *w, const keyed_src *ks3, size_t n, sl_err *err)
{
	for (size_t i = 0; i < n; i++)
	{
		const sl_chunk_src *c = ks3[i].src;
		sl_dirslot *s = &w->d[i];

		s->x = c->x;
		s->z = c->z;
		s->data_version = c->data_version;
		s->timestamp = c->timestamp;
		memcpy(s->len, c->len, sizeof(s->len));
		s->frame = c->ref ? UINT32_MAX : 0;
		s->offset = c->ref ? w->nrefs : 0;
		if (c->ref)
		{
			w->nrefs++;
			if (sl_buf_put(&w->refs, c->ref, SL_REFENT_SIZE, err))
				return -1;
		}
	}
	return 0;
}

/* Compress the raw frame under construction (chunks: how many it holds). */
static int
close_frame3(writer3 *w, uint32_t chunks, sl_err *err)
{
	size_t		before = w->payload.len;
	int			use_base = w->prefix && w->nframes > 0 && chunks > 0;
	sl_frame   *f = &w->frames[w->nframes];
	int			level = w->opts->level < SL_ARCHIVE_LEVEL ? w->opts->level : ARCHIVE_ZSTD_LEVEL;

	f->codec = SL_CODEC_ZSTD;
	if (w->opts->level == SL_ARCHIVE_LEVEL && chunks > 0)
	{
		if (archive_frame(&w->raw, w->opts->block_codec >= SL_BCODEC_V2 ? w->opts->block_codec : SL_BCODEC_V1,
						  &w->payload, &f->codec, err))
			return -1;
	}
	else if (sl_zstd_frame_prefix(w->raw.data, w->raw.len, level,
								  use_base ? w->base.data : NULL, use_base ? w->base.len : 0,
								  &w->payload, err))
		return -1;
	f->offset = 0;
	f->comp_len = (uint32_t) (w->payload.len - before);
	f->raw_len = (uint32_t) w->raw.len;
	f->chunks = chunks;
	if (w->nframes == 0)
	{
		/*
		 * frames of about frame_target / 8 compressed bytes (dense data:
		 * frame_target raw), twice that for data that takes the prefix
		 * (sparse data, which decompresses fast)
		 */
		size_t		ratio = f->comp_len ? f->raw_len / f->comp_len : 1;
		size_t		grow = ratio >= w->opts->prefix_ratio ? ratio / 4 : ratio / 8;

		w->target = w->opts->frame_target;
		if (grow > 1)
			w->target = grow > FRAME_TARGET_MAX / w->target ? FRAME_TARGET_MAX : w->target * grow;
	}
	if (w->nframes == 0 && f->raw_len < (uint64_t) w->opts->prefix_ratio * f->comp_len)
		w->prefix = 0;			/* dense data: a prefix would double every read */
	if (w->nframes == 0 && w->prefix)
	{
		sl_buf		t = w->base;

		w->base = w->raw;
		w->raw = t;
	}
	w->nframes++;
	w->raw.len = 0;
	sl_interrupt();
	return 0;
}

/*
 * Lay the inline chunks out in frames in v3 order and compress them. A
 * value of at most single_frame_max raw bytes is one frame; a larger one
 * gets a first frame of base_target bytes and then frames of frame_target
 * bytes times the first frame's compression ratio / 8 (at least 1, at most
 * FRAME_TARGET_MAX in all). When that ratio is at least prefix_ratio, the
 * later frames are twice as large and compressed with the first frame's
 * bytes as a zstd prefix.
 */
static int
frames3(writer3 *w, const keyed_src *ks3, size_t n, sl_err *err)
{
	uint64_t	total = 0;
	uint32_t	chunks = 0;
	size_t		last = 0;
	int			single;

	for (size_t k = 0; k < n; k++)
		if (ks3[k].src->ref == NULL)
		{
			total += src_len(ks3[k].src);
			last = k;
		}
	single = total <= w->opts->single_frame_max;
	w->prefix = !single;
	if (w->opts->level == SL_ARCHIVE_LEVEL)
	{
		/* cold worlds: large frames (the models learn), no prefix */
		single = total <= ARCHIVE_SINGLE;
		w->prefix = 0;
	}
	for (size_t k = 0; k < n; k++)
	{
		const sl_chunk_src *c = ks3[k].src;
		size_t		target = single ? SIZE_MAX :
			w->opts->level == SL_ARCHIVE_LEVEL ? ARCHIVE_FRAME :
			w->nframes == 0 ? w->opts->base_target : w->target;

		if (c->ref)
			continue;
		for (int j = 0; j < SL_NCOMP; j++)
			if (c->len[j] && sl_buf_put(&w->raw, c->comp[j], c->len[j], err))
				return -1;
		chunks++;
		if (w->raw.len >= target || k == last)
		{
			if (close_frame3(w, chunks, err))
				return -1;
			chunks = 0;
		}
	}
	if (w->nframes < 2)
		w->prefix = 0;			/* one chunk frame: nothing shares its prefix */
	return 0;
}

/* Bytes of v as a varint. */
static size_t
varint_size(uint64_t v)
{
	size_t		n = 1;

	while (v >= 0x80)
	{
		v >>= 7;
		n++;
	}
	return n;
}

/* Write the v3 header, directory, summary, reference table and frames into out. */
static int
assemble3(writer3 *w, sl_header *h, const sl_buf *dir, size_t dir_raw_len, const sl_buf *sum,
		  size_t sum_raw_len, sl_buf *out, sl_err *err)
{
	sl_buf		vars = {0};
	size_t		start = out->len;
	uint64_t	total;
	uint32_t	payload_offset = 0;
	int			rc = -1;

	/* the payload offset is itself a varint of the header: settle its size */
	for (int pass = 0; pass < 3; pass++)
	{
		vars.len = 0;
		if (sl_varint64_put(&vars, payload_offset, err) ||
			sl_varint64_put(&vars, h->chunk_count, err) ||
			sl_varint64_put(&vars, h->frame_count, err) ||
			((h->flags & SL_FLAG_REFS) && sl_varint64_put(&vars, h->ref_count, err)) ||
			((h->flags & SL_FLAG_WORLD) && sl_varint64_put(&vars, h->world_len, err)) ||
			sl_varint64_put(&vars, dir->len, err) ||
			((h->flags & SL_FLAG_DIRZ) && sl_varint64_put(&vars, dir_raw_len, err)) ||
			((h->flags & SL_FLAG_SUMMARY) && (sl_varint64_put(&vars, sum->len, err) ||
											  sl_varint64_put(&vars, sum_raw_len, err))))
			goto done;
		total = SL_HEADER3_FIXED + vars.len + dir->len + (uint64_t) sum->len + w->refs.len;
		if (total > SL_MAX_VALUE)
			break;
		if (total == payload_offset)
			break;
		payload_offset = (uint32_t) total;
	}
	total = (uint64_t) payload_offset + w->payload.len;
	if (total > SL_MAX_VALUE || varint_size(payload_offset) + SL_HEADER3_FIXED > payload_offset)
	{
		sl_fail(err, SL_ERR_LIMIT, "encoded value of %llu bytes exceeds the %zu-byte cap",
				(unsigned long long) total, SL_MAX_VALUE);
		goto done;
	}
	if (sl_buf_reserve(out, total, err))
		goto done;
	memcpy(out->data + start, SL_VALUE_MAGIC, 4);
	sl_put_u16le(out->data + start + 4, 3);
	sl_put_u16le(out->data + start + 6, h->flags);
	sl_put_u32le(out->data + start + 8, 0);
	memcpy(out->data + start + 12, h->hash, 32);
	out->len += SL_HEADER3_FIXED;
	sl_buf_put(out, vars.data, vars.len, err);
	sl_buf_put(out, dir->data, dir->len, err);
	sl_buf_put(out, sum->data, sum->len, err);
	sl_buf_put(out, w->refs.data, w->refs.len, err);
	sl_put_u32le(out->data + start + 8, sl_meta_crc(out->data + start, payload_offset, 8));
	rc = sl_buf_put(out, w->payload.data, w->payload.len, err);
done:
	sl_buf_free(&vars);
	return rc;
}

/* The zstd level of a v3 value's directory and summary. */
static int
meta_level(const sl_encode_opts *opts)
{
	return opts->level >= SL_ARCHIVE_LEVEL ? ARCHIVE_ZSTD_LEVEL :
		opts->level > DIR_MIN_LEVEL ? opts->level : DIR_MIN_LEVEL;
}

/*
 * The stored bytes of the contents summary (sum given, else the chunks
 * counted when every one is inline) into *stored, and its raw length; *stored
 * stays empty when the value gets none.
 */
static int
summary3(const keyed_src *ks, size_t n, const sl_encode_opts *opts, const sl_vsum *sum,
		 sl_buf *stored, size_t *raw_len, sl_err *err)
{
	sl_vsum		counted;
	sl_buf		raw = {0};
	int			rc = -1;

	memset(&counted, 0, sizeof(counted));
	*raw_len = 0;
	if (opts->no_summary)
		return 0;
	if (sum == NULL)
	{
		for (size_t i = 0; i < n; i++)
			if (ks[i].src->ref)
				return 0;		/* chunks in the store: only the caller can count them */
		for (size_t i = 0; i < n; i++)
		{
			const sl_chunk_src *c = ks[i].src;

			if ((i & 63) == 63)
				sl_interrupt();
			if (sl_vsum_chunk(&counted, c->data_version, c->comp, c->len, 1, err))
				goto done;
		}
		sum = &counted;
	}
	if (sl_vsum_encode(sum, &raw, err) ||
		sl_zstd_frame(raw.data, raw.len, meta_level(opts), stored, err))
		goto done;
	if (stored->len >= raw.len)
	{
		stored->len = 0;
		if (sl_buf_put(stored, raw.data, raw.len, err))
			goto done;
	}
	*raw_len = raw.len;
	rc = 0;
done:
	sl_vsum_free(&counted);
	sl_buf_free(&raw);
	return rc;
}

/* Encode sorted chunks and the world compound as a version 3 value. */
static int
encode3(const keyed_src *ks, size_t n, const uint8_t *world, size_t world_len,
		const sl_encode_opts *opts, const sl_vsum *sum, sl_header *h, sl_buf *out, sl_err *err)
{
	writer3		w;
	sl_buf		dir = {0},
				dirz = {0},
				sumz = {0};
	size_t		sum_raw_len;
	keyed_src  *ks3;
	int			rc = -1;

	memset(&w, 0, sizeof(w));
	w.opts = opts;
	w.d = sl_alloc_err((n + 1) * sizeof(sl_dirslot), err);
	w.frames = sl_alloc_err((n + 2) * sizeof(sl_frame), err);
	ks3 = sl_alloc_err((n + 1) * sizeof(keyed_src), err);
	if (w.d == NULL || w.frames == NULL || ks3 == NULL)
		goto done;
	content_hash_v2(ks, n, world, world_len, h->hash);
	for (size_t i = 0; i < n; i++)
	{
		ks3[i].src = ks[i].src;
		ks3[i].key = sl_chunk_key3(ks[i].src->x, ks[i].src->z);
	}
	if (n)
		qsort(ks3, n, sizeof(keyed_src), cmp_keyed);
	if (fill_dir3(&w, ks3, n, err) || frames3(&w, ks3, n, err))
		goto done;
	if (world_len)
	{
		if (sl_buf_put(&w.raw, world, world_len, err) || close_frame3(&w, 0, err))
			goto done;
		h->flags |= SL_FLAG_WORLD;
	}
	if (w.nrefs)
		h->flags |= SL_FLAG_REFS;
	if (w.prefix)
		h->flags |= SL_FLAG_PREFIX;
	h->ref_count = w.nrefs;
	h->frame_count = w.nframes;
	h->world_len = (uint32_t) world_len;
	if (sl_vdir_encode(w.d, (uint32_t) n, w.frames, w.nframes, &dir, err) ||
		sl_zstd_frame(dir.data, dir.len, meta_level(opts), &dirz, err) ||
		summary3(ks, n, opts, sum, &sumz, &sum_raw_len, err))
		goto done;
	if (sumz.len)
		h->flags |= SL_FLAG_SUMMARY;
	if (dirz.len < dir.len)
	{
		h->flags |= SL_FLAG_DIRZ;
		rc = assemble3(&w, h, &dirz, dir.len, &sumz, sum_raw_len, out, err);
	}
	else
		rc = assemble3(&w, h, &dir, dir.len, &sumz, sum_raw_len, out, err);
done:
	sl_free(w.d);
	sl_free(w.frames);
	sl_free(ks3);
	sl_buf_free(&w.refs);
	sl_buf_free(&w.payload);
	sl_buf_free(&w.raw);
	sl_buf_free(&w.base);
	sl_buf_free(&dir);
	sl_buf_free(&dirz);
	sl_buf_free(&sumz);
	return rc;
}

/* Encode chunks and an optional world compound into a canonical value. */
int
sl_value_encode(const sl_chunk_src *chunks, size_t n, const uint8_t *world,
				size_t world_len, const sl_encode_opts *opts, const sl_limits *lim,
				sl_buf *out, sl_err *err)
{
	return sl_value_encode_sum(chunks, n, world, world_len, opts, lim, NULL, out, err);
}

/* Encode chunks, an optional world compound and the contents summary into a canonical value. */
int
sl_value_encode_sum(const sl_chunk_src *chunks, size_t n, const uint8_t *world,
					size_t world_len, const sl_encode_opts *opts, const sl_limits *lim,
					const sl_vsum *sum, sl_buf *out, sl_err *err)
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
	if (e.version < 3 && opts->level == SL_ARCHIVE_LEVEL)
	{
		sl_fail(err, SL_ERR_INVALID, "the archive level (%d) needs format version 3", SL_ARCHIVE_LEVEL);
		goto done;
	}
	if (e.version == 3)
	{
		rc = encode3(ks, n, world, world_len, opts, sum, &h, out, err);
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
		content_hash_v2(ks, n, world, world_len, h.hash);
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
