/*
 * sl_value_int.h - what the value format's reader (sl_value.c), encoder
 * (sl_venc.c) and checks (sl_vcheck.c) share; not for other callers.
 */
#ifndef SL_VALUE_INT_H
#define SL_VALUE_INT_H

#include "sl_value.h"

#include <nettle/sha2.h>

#define SL_HASH_TAG_V1 "slime-content-v1"
#define SL_HASH_TAG_V2 "slime-content-v2"

/* Little-endian u16 load and store local to the value format. */
static inline uint16_t
sl_get_u16le(const uint8_t *p)
{
	return (uint16_t) (p[0] | (p[1] << 8));
}

static inline void
sl_put_u16le(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t) v;
	p[1] = (uint8_t) (v >> 8);
}

/* Feed a little-endian u32 to a SHA-256 context. */
void		sl_sha_u32(struct sha256_ctx *ctx, uint32_t v);

/* Start the v2 content hash of a value of n chunks. */
void		sl_merkle_start(struct sha256_ctx *ctx, uint32_t n);

/* Feed one chunk's part of the v2 content hash. */
void		sl_merkle_chunk(struct sha256_ctx *ctx, int32_t x, int32_t z, int32_t dv,
							uint32_t ts, const uint32_t len[SL_NCOMP], const uint8_t hash[32]);

/* Feed one chunk's part of the v1 content stream: its fields, then its bytes. */
void		sl_v1_chunk(struct sha256_ctx *ctx, int32_t x, int32_t z, int32_t dv, uint32_t ts,
						const uint32_t len[SL_NCOMP], const uint8_t *const comp[SL_NCOMP]);

/* Feed the world compound, the last part of the content hash (v1 and v2 alike). */
void		sl_merkle_world(struct sha256_ctx *ctx, const uint8_t *world, size_t world_len);

/* Offset of the CRC field in a header of the given version. */
static inline size_t
sl_crc_offset(uint16_t version)
{
	return version >= 3 ? 8 : 72;
}

/* Start a header's summary fields: no chunks, world_len raw bytes. */
void		sl_summary_start(sl_header *h, uint64_t world_len);

/* Count chunk i (0 first) into a header's summary fields. */
void		sl_summary_add(sl_header *h, uint32_t i, int32_t x, int32_t z, int32_t dv,
						   uint64_t raw);

/* CRC-32 of meta[0..len) with the 4-byte field at crc_at taken as zero. */
uint32_t	sl_meta_crc(const uint8_t *meta, size_t len, size_t crc_at);

#endif
