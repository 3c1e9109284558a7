/*
 * sl_vdir.h - the chunk directory of a format v3 value: columns of varints
 * (positions as order-key gaps, DataVersion run-length coded, timestamps
 * and lengths as varints, references as runs).
 *
 * This file knows nothing of headers or frames' bytes; sl_value.c decides
 * where the directory lies and whether it is zstd-compressed.
 */
#ifndef SL_VDIR_H
#define SL_VDIR_H

#include "sl_common.h"

#define SL_NCOMP_DIR 3

/* A decoded directory entry, whatever the value's version. */
typedef struct sl_dirslot
{
	int32_t		x;
	int32_t		z;
	int32_t		data_version;
	uint32_t	timestamp;
	uint32_t	frame;			/* UINT32_MAX: held by reference */
	uint32_t	offset;			/* inline: in the frame's raw bytes; reference:
								 * index in the reference table */
	uint32_t	len[SL_NCOMP_DIR];
} sl_dirslot;

/* A decoded frame table entry. */
typedef struct sl_frame
{
	uint32_t	offset;			/* from the value's start */
	uint32_t	comp_len;
	uint32_t	raw_len;
	uint32_t	chunks;			/* inline chunks it holds (v3; 0 for the world frame) */
	uint8_t		codec;			/* SL_CODEC_* */
} sl_frame;

#define SL_CODEC_ZSTD	0		/* one zstd frame with content size and checksum */
#define SL_CODEC_BLOCKS	1		/* the block codec (sl_bcodec), version 1 streams */
#define SL_CODEC_BLOCKS2 2		/* the block codec, version 2 streams */
#define SL_CODEC_BLOCKS3 3		/* the block codec, version 3 streams (tokens, the fast one) */
#define SL_CODEC_BLOCKS4 4		/* the block codec, version 4 streams (tokens, denser) */
#define SL_CODEC_BLOCKS5 5		/* the block codec, version 5 streams (4 with modelled heightmaps) */
#define SL_CODEC_MAX	5		/* the highest codec this build reads */

/* Append v as a varint (7 bits a byte, low group first). */
int			sl_varint64_put(sl_buf *b, uint64_t v, sl_err *err);

/* Read a varint at *pos (at most 10 bytes, no overlong top byte); -1 when malformed. */
int			sl_varint64_get(const uint8_t *buf, size_t len, size_t *pos, uint64_t *v);

/*
 * Write the directory columns of n chunks (canonical order) and nf frames
 * (inline chunks of each frame in payload order, world frame last).
 */
int			sl_vdir_encode(const sl_dirslot *d, uint32_t n, const sl_frame *f,
						   uint32_t nf, sl_buf *out, sl_err *err);

/*
 * Read the columns back: d[0..n) (positions, DataVersions, timestamps,
 * lengths; frame set to UINT32_MAX for references, 0 otherwise) and
 * f[0..nf) (lengths, chunk counts, codecs). Every field is checked against
 * the buffer; errors name the column and the entry.
 */
int			sl_vdir_decode(const uint8_t *p, size_t len, uint32_t n, uint32_t nf,
						   uint32_t ref_count, sl_dirslot *d, sl_frame *f, sl_err *err);

/* Canonical order key of a chunk position in v1/v2 (Morton order of biased x, z). */
uint64_t	sl_chunk_key(int32_t x, int32_t z);

/*
 * Version 3 canonical order key: regions (32x32 chunks) in Morton order,
 * chunks of a region in region-file slot order (z * 32 + x).
 */
uint64_t	sl_chunk_key3(int32_t x, int32_t z);

#endif
