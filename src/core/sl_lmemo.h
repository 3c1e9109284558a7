/*
 * sl_lmemo.h - a world loader's memo of the chunks its previous save was
 * made of, so that a save converts only the chunks that changed.
 *
 * A slime file of version 11-13 holds each chunk as one self-delimiting
 * record in its (decompressed) chunk section, and what the reader makes of
 * a record depends only on its bytes and on a few facts of the file: its
 * version, world flags, DataVersion and section range (the memo's context).
 * The memo maps a chunk position to the length and XXH3-128 of the record
 * the previous save had there and to what the record became: the chunk's
 * store key (SHA-256, sl_chunk_hash), DataVersion, timestamp and component
 * lengths. A record whose bytes hash the same in the same context is added
 * to the value as a reference to that store entry instead of being parsed,
 * converted, compressed and hashed again; the value is the same either way.
 *
 * Stored form (little-endian): "SLM2", the context (u8 file version, u8
 * world flags, i8 lowest and i8 highest section Y, i32 DataVersion), u32
 * entry count, then the entries sorted by chunk key (sl_chunk_key, no
 * repeats), SL_LMEMO_ENTRY bytes each: i32 x, i32 z, u32 record length,
 * 16 bytes XXH3-128 (high 64 bits big-endian first), 32 bytes store key,
 * i32 DataVersion, u32 timestamp, u32 x3 component lengths; then u64le
 * XXH64 (seed 0) of every byte before it.
 *
 * What an entry says goes into the value unchecked (the chunk is not
 * parsed again), so the checksum is what keeps a damaged DataVersion,
 * timestamp or length out of it (issue #33). "SLM1" (0.5.0 to 0.9.0) is
 * the same without the checksum: it is not decoded, and a save that finds
 * one converts every chunk once, as with no memo.
 */
#ifndef SL_LMEMO_H
#define SL_LMEMO_H

#include "sl_common.h"
#include "sl_build.h"

#define SL_LMEMO_MAGIC		"SLM2"
#define SL_LMEMO_HEADER		16		/* magic, context, count */
#define SL_LMEMO_SUM		8		/* the XXH64 after the entries */
#define SL_LMEMO_ENTRY		80
#define SL_LMEMO_CTX		8
#define SL_LMEMO_MIN_VERSION	11	/* first slime file version whose records stand alone */

typedef struct sl_lmemo_ent
{
	int32_t		x;
	int32_t		z;
	uint32_t	rec_len;		/* bytes of the chunk's record in the file */
	uint8_t		xxh[16];		/* XXH3-128 of those bytes */
	uint8_t		hash[32];		/* store key of what the record became */
	int32_t		data_version;
	uint32_t	timestamp;
	uint32_t	len[SL_NCOMP];
	uint8_t		known;			/* hash and lengths set (a record converted: after sl_lmemo_store_chunks) */
	uint8_t		usable;			/* may be reused (the caller found hash in the store) */
} sl_lmemo_ent;

typedef struct sl_lmemo
{
	uint8_t		ctx[SL_LMEMO_CTX];	/* the context the entries hold in */
	int			has_ctx;
	sl_lmemo_ent *e;
	size_t		n;
	size_t		cap;
	int			sorted;			/* e is in chunk key order (find works) */
} sl_lmemo;

/* The context bytes of a file's facts. */
void		sl_lmemo_context(uint8_t ctx[SL_LMEMO_CTX], int version, int flags, int sec_min,
							 int sec_max, int32_t data_version);

/*
 * Decode a stored memo (every entry usable); a malformed one, one that
 * fails its checksum and an SLM1 memo are SL_ERR_FORMAT.
 */
int			sl_lmemo_decode(const uint8_t *p, size_t len, sl_lmemo *m, sl_err *err);

/* Append the stored form of the known entries to out (sorts m). */
int			sl_lmemo_encode(sl_lmemo *m, sl_buf *out, sl_err *err);

/* Append an entry. */
int			sl_lmemo_add(sl_lmemo *m, const sl_lmemo_ent *e, sl_err *err);

/* The usable entry of chunk (x,z) whose context is ctx, or NULL. */
const sl_lmemo_ent *sl_lmemo_find(const sl_lmemo *m, const uint8_t ctx[SL_LMEMO_CTX],
								  int32_t x, int32_t z);

/* XXH3-128 of a record, as the memo keeps it. */
void		sl_lmemo_xxh(const uint8_t *p, size_t len, uint8_t out[16]);

/* Store entry callback: keep entry (len bytes) under key hash. */
typedef int (*sl_lmemo_put_fn) (void *ctx, const uint8_t hash[32], const uint8_t *entry,
								size_t len, sl_err *err);

/*
 * Turn every chunk the builder holds inline into a reference: encode it as
 * a store entry at the given zstd level, hand the entry to put, and fill
 * the entry of m (when not NULL) that names the chunk.
 */
int			sl_lmemo_store_chunks(sl_builder *b, sl_lmemo *m, int level, const sl_limits *lim,
								  sl_lmemo_put_fn put, void *put_ctx, sl_err *err);

void		sl_lmemo_free(sl_lmemo *m);

#endif
