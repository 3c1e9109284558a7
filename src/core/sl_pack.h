/*
 * sl_pack.h - packs of the chunk store: many settled entries' documents in
 * one compressed frame (slime_settle, issue #22), so that the codec's models
 * and zstd's window span chunks, and the entries pay one TOAST value
 * between them instead of one each.
 *
 * Layout (version 3, written from 0.11.0): u8 'P' (0x50), u8 version 3,
 * u32le count, then count times the entry's three u32le lengths (region,
 * entities, poi), the first 8 bytes of its key, u32le base (0: coded
 * whole; b: coded against entry b - 1, an earlier one) and u32le delta
 * (the length of its delta frame; 0 when whole), then u64le XXH64 (seed 0)
 * of every byte before it, then each based entry's delta frame in entry
 * order (a checksummed zstd frame of its documents compressed against its
 * base's), then one frame of the whole entries' documents back to back (no
 * lengths between them): a zstd frame with content size and checksum
 * (first byte 0x28) or a block codec stream (sl_bcodec, 0xB1/0xB2/...).
 * The frames' checksums vouch for the documents, the directory's for where
 * each entry starts and what it is coded against, and the key prefix for
 * which chunk an entry is. Version 2 (0.10.0) is version 3 with every entry
 * whole and no base or delta fields. Version 1 (0.7.0 to 0.9.0) has
 * neither the key prefixes nor the directory checksum: its entries are
 * hashed against their keys when read. doc/format.md, "Chunk store", is
 * the authority.
 */
#ifndef SL_PACK_H
#define SL_PACK_H

#include "sl_common.h"
#include "sl_value.h"

#define SL_PACK_MAGIC 0x50		/* 'P' */
#define SL_PACK_VERSION 3		/* written; 1 and 2 are still read */
#define SL_PACK_HEADER 6		/* magic, version, count */
#define SL_PACK_KEY_PREFIX 8	/* bytes of an entry's key in a version 2 or 3 directory */
#define SL_PACK_DELTA_FIELDS 8	/* base and delta length in a version 3 directory */
#define SL_PACK_DIRSUM 8		/* the XXH64 after a version 2 or 3 directory */
#define SL_PACK_MAX_ENTRIES 65536
#define SL_PACK_MAX_RAW ((size_t) 8 * 1024 * 1024)	/* documents a pack holds at most */
#define SL_PACK_ZSTD_LEVEL 19	/* the frame of a fast pack */
#define SL_PACK_DELTA_LEVEL 3	/* a delta frame's zstd level */
#define SL_PACK_DELTA_TRIES 2	/* earlier entries of the same chunk position tried as a base */

/* How a pack's frame is coded. */
typedef enum sl_pack_codec
{
	SL_PACK_FAST,				/* zstd-19: decodes at zstd's speed */
	SL_PACK_DENSE				/* the block codec (settle's version) */
} sl_pack_codec;

/* An opened pack: its documents decoded, and where each entry's start. */
typedef struct sl_pack
{
	uint8_t		version;		/* 1, 2 or 3 */
	uint32_t	count;
	uint32_t	based;			/* entries coded against another (version 3) */
	uint32_t   *len;			/* count x 3 lengths */
	uint8_t    *keys;			/* version 2 on: count x SL_PACK_KEY_PREFIX; version 1: NULL */
	size_t	   *off;			/* count offsets into raw (whole entries first) */
	uint32_t   *base;			/* version 3: count x (base index + 1, or 0); else NULL */
	uint32_t   *delta;			/* version 3: count x delta frame length (0: whole); else NULL */
	size_t	   *frame_at;		/* version 3: count x where the entry's delta frame starts in frames */
	uint8_t    *frames;			/* version 3 with based entries: their delta frames, in entry order */
	uint8_t    *ready;			/* ... and count flags: 1 once the entry's documents are in raw */
	uint8_t    *raw;			/* the documents back to back */
	size_t		raw_len;
} sl_pack;

/*
 * Append a pack of n entries to out, every entry coded whole: entry[i] is
 * an entry's canonical bytes (the three u32le lengths, then the documents),
 * size[i] their length, key[i] the 32-byte key it is stored under.
 */
int			sl_pack_encode(const uint8_t *const *entry, const size_t *size,
						   const uint8_t *const *key, uint32_t n, sl_pack_codec codec,
						   sl_buf *out, sl_err *err);

/*
 * As sl_pack_encode, for entries that hold versions of the same chunks (a
 * world's history, as slime_settle gathers it): an entry whose region
 * document names the chunk position of an earlier one is coded against
 * the one of the last SL_PACK_DELTA_TRIES such that gives the smallest
 * delta, when that delta is under a third of the entry's zstd-1 size; the
 * pack is written so only when it comes out smaller than with every entry
 * whole.
 */
int			sl_pack_encode_history(const uint8_t *const *entry, const size_t *size,
								   const uint8_t *const *key, uint32_t n, sl_pack_codec codec,
								   sl_buf *out, sl_err *err);

/*
 * As sl_pack_encode, entry i coded against entry base[i] (an earlier one)
 * unless base[i] is -1, whatever that costs: the layout without the
 * choice, for tests and fuzzers.
 */
int			sl_pack_encode_based(const uint8_t *const *entry, const size_t *size,
								 const uint8_t *const *key, uint32_t n, sl_pack_codec codec,
								 const int64_t *base, sl_buf *out, sl_err *err);

/*
 * Decode a pack into p (sl_pack_free it); malformed packs are SL_ERR_CORRUPT.
 * The frame of whole entries is decoded here; an entry coded against
 * another is decoded the first time it is read (sl_pack_docs), so a reader
 * of a world's newest chunks does not pay for the older versions beside
 * them.
 */
int			sl_pack_open(const uint8_t *src, size_t len, const sl_limits *lim, sl_pack *p,
						 sl_err *err);

/*
 * The documents of entry index of an open pack (p->raw + p->off[index],
 * the sum of its three lengths), decoding it first if it is coded against
 * another (and that one first); NULL with err set when a delta frame does
 * not decode (SL_ERR_CORRUPT) or index is past the end.
 */
const uint8_t *sl_pack_docs(const sl_pack *p, uint32_t index, sl_err *err);

/* Append entry index of an open pack to out in its canonical bytes. */
int			sl_pack_entry(const sl_pack *p, uint32_t index, sl_buf *out, sl_err *err);

/*
 * Whether entry index of an open pack is the entry of key: 1 when its
 * directory's key prefix is key's, 0 when it is another key's, -1 when the
 * pack (version 1) does not say.
 */
int			sl_pack_entry_is(const sl_pack *p, uint32_t index, const uint8_t key[32]);

/*
 * Append entry index of an open pack to out in its raw form (u8 0x00, then
 * the canonical bytes) as the entry stored under key: an error
 * (SL_ERR_CORRUPT, out unchanged) when the pack's directory names another
 * key, or when the bytes do not hash to key and were to be hashed: always
 * in a version 1 pack, which does not say whose an entry is, and when
 * rehash is set, unless known (the caller found these bytes to hash to key
 * before). Returns 1 when it hashed them and they matched, 0 when the
 * pack's checksums and key prefix vouched for them. The one way a reader
 * takes an entry out of a pack.
 */
int			sl_pack_read(const sl_pack *p, uint32_t index, const uint8_t key[32], int rehash,
						 int known, sl_buf *out, sl_err *err);

/* Release what sl_pack_open allocated. */
void		sl_pack_free(sl_pack *p);

#endif
