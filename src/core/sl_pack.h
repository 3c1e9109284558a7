/*
 * sl_pack.h - packs of the chunk store: many settled entries' documents in
 * one compressed frame (slime_settle, issue #22), so that the codec's models
 * and zstd's window span chunks, and the entries pay one TOAST value
 * between them instead of one each.
 *
 * Layout (version 1): u8 'P' (0x50), u8 version 1, u32le count, then count
 * times the entry's three u32le lengths (region, entities, poi), then one
 * frame of the entries' documents back to back (no lengths between them):
 * a zstd frame with content size and checksum (first byte 0x28) or a block
 * codec stream (sl_bcodec, 0xB1/0xB2/...). doc/format.md, "Chunk store",
 * is the authority.
 */
#ifndef SL_PACK_H
#define SL_PACK_H

#include "sl_common.h"
#include "sl_value.h"

#define SL_PACK_MAGIC 0x50		/* 'P' */
#define SL_PACK_VERSION 1
#define SL_PACK_HEADER 6		/* magic, version, count */
#define SL_PACK_MAX_ENTRIES 65536
#define SL_PACK_MAX_RAW ((size_t) 8 * 1024 * 1024)	/* documents a pack holds at most */
#define SL_PACK_ZSTD_LEVEL 19	/* the frame of a fast pack */

/* How a pack's frame is coded. */
typedef enum sl_pack_codec
{
	SL_PACK_FAST,				/* zstd-19: decodes at zstd's speed */
	SL_PACK_DENSE				/* the block codec (settle's version) */
} sl_pack_codec;

/* An opened pack: its documents decoded, and where each entry's start. */
typedef struct sl_pack
{
	uint32_t	count;
	uint32_t   *len;			/* count x 3 lengths */
	size_t	   *off;			/* count offsets into raw */
	uint8_t    *raw;			/* the documents back to back */
	size_t		raw_len;
} sl_pack;

/*
 * Append a pack of n entries to out: entry[i] is an entry's canonical bytes
 * (the three u32le lengths, then the documents), size[i] their length.
 */
int			sl_pack_encode(const uint8_t *const *entry, const size_t *size, uint32_t n,
						   sl_pack_codec codec, sl_buf *out, sl_err *err);

/* Decode a pack into p (sl_pack_free it); malformed packs are SL_ERR_CORRUPT. */
int			sl_pack_open(const uint8_t *src, size_t len, const sl_limits *lim, sl_pack *p,
						 sl_err *err);

/* Append entry index of an open pack to out in its canonical bytes. */
int			sl_pack_entry(const sl_pack *p, uint32_t index, sl_buf *out, sl_err *err);

/* Release what sl_pack_open allocated. */
void		sl_pack_free(sl_pack *p);

#endif
