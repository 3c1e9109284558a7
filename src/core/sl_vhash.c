/*
 * sl_vhash.c - the content hashes of the value format: a chunk's (the store's
 * key) and the parts a value's v1 and v2 content hash is fed from. The value
 * reader, encoder and checks (sl_value.c, sl_venc.c, sl_vcheck.c) and the chunk
 * store (sl_store.c) call it; it calls none of them.
 */
#include "sl_value_int.h"

/* Feed a little-endian u32 to a SHA-256 context. */
void
sl_sha_u32(struct sha256_ctx *ctx, uint32_t v)
{
	uint8_t		t[4];

	sl_put_u32le(t, v);
	sha256_update(ctx, 4, t);
}

/* SHA-256 of one chunk's canonical bytes (its components and their lengths). */
void
sl_chunk_hash(const sl_dirent *d, const uint8_t *const comp[SL_NCOMP], uint8_t out[32])
{
	struct sha256_ctx ctx;

	sha256_init(&ctx);
	for (int k = 0; k < SL_NCOMP; k++)
		sl_sha_u32(&ctx, d->len[k]);
	for (int k = 0; k < SL_NCOMP; k++)
		if (d->len[k])
			sha256_update(&ctx, d->len[k], comp[k]);
	sha256_digest(&ctx, 32, out);
}

/* Start the v2 content hash of a value of n chunks. */
void
sl_merkle_start(struct sha256_ctx *ctx, uint32_t n)
{
	sha256_init(ctx);
	sha256_update(ctx, sizeof(SL_HASH_TAG_V2), (const uint8_t *) SL_HASH_TAG_V2);
	sl_sha_u32(ctx, n);
}

/* Feed a chunk's position, DataVersion, timestamp and lengths (v1 and v2 alike). */
static void
sha_chunk_fields(struct sha256_ctx *ctx, int32_t x, int32_t z, int32_t dv, uint32_t ts,
				 const uint32_t len[SL_NCOMP])
{
	sl_sha_u32(ctx, (uint32_t) x);
	sl_sha_u32(ctx, (uint32_t) z);
	sl_sha_u32(ctx, (uint32_t) dv);
	sl_sha_u32(ctx, ts);
	for (int k = 0; k < SL_NCOMP; k++)
		sl_sha_u32(ctx, len[k]);
}

/* Feed one chunk's part of the v2 content hash. */
void
sl_merkle_chunk(struct sha256_ctx *ctx, int32_t x, int32_t z, int32_t dv, uint32_t ts,
				const uint32_t len[SL_NCOMP], const uint8_t hash[32])
{
	sha_chunk_fields(ctx, x, z, dv, ts, len);
	sha256_update(ctx, 32, hash);
}

/* Feed one chunk's part of the v1 content stream: its fields, then its bytes. */
void
sl_v1_chunk(struct sha256_ctx *ctx, int32_t x, int32_t z, int32_t dv, uint32_t ts,
			const uint32_t len[SL_NCOMP], const uint8_t *const comp[SL_NCOMP])
{
	sha_chunk_fields(ctx, x, z, dv, ts, len);
	for (int k = 0; k < SL_NCOMP; k++)
		if (len[k])
			sha256_update(ctx, len[k], comp[k]);
}

/* Feed the world compound, the last part of the content hash (v1 and v2 alike). */
void
sl_merkle_world(struct sha256_ctx *ctx, const uint8_t *world, size_t world_len)
{
	sl_sha_u32(ctx, (uint32_t) world_len);
	if (world_len)
		sha256_update(ctx, world_len, world);
}
