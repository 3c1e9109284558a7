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
 * It also keeps each chunk's contents summary (sl_vsum.h), so that a save
 * writes the value's summary from the summaries of the chunks it reuses and
 * counts only the chunks it converts.
 *
 * Stored form (little-endian): "SLM2", the context (u8 file version, u8
 * world flags, i8 lowest and i8 highest section Y, i32 DataVersion), u32
 * entry count, u32 CRC-32 of the whole memo with this field taken as zero,
 * then the entries sorted by chunk key (sl_chunk_key, no repeats): i32 x,
 * i32 z, u32 record length, 16 bytes XXH3-128 (high 64 bits big-endian
 * first), 32 bytes store key, i32 DataVersion, u32 timestamp, u32 x3
 * component lengths (SL_LMEMO_ENTRY bytes so far), then u32 n and the n raw
 * bytes of the chunk's summary (sl_vsum_encode): version 2. Version 3
 * ("SLM3", written from 0.11.0) is "SLM3", u32le length of a version 2
 * memo, then that memo as one zstd frame (content size, checksum): the
 * summaries repeat block names chunk after chunk, so it is about 0.4x the
 * bytes a save writes and the world's row keeps. Versions 2 and 3 are read.
 * Version 1 ("SLM1", 0.5.0 to 0.9.0: no summaries, no CRC) is no memo to
 * this reader: the first save after the upgrade converts every chunk.
 */
#ifndef SL_LMEMO_H
#define SL_LMEMO_H

#include "sl_common.h"
#include "sl_build.h"

#define SL_LMEMO_MAGIC		"SLM2"
#define SL_LMEMO_MAGIC3		"SLM3"
#define SL_LMEMO_MAX_RAW	((size_t) 64 * 1024 * 1024)	/* a version 2 memo a version 3 one holds at most */
#define SL_LMEMO_ZSTD_LEVEL	1
#define SL_LMEMO_HEADER		20		/* magic, context, count, CRC */
#define SL_LMEMO_ENTRY		80		/* an entry before its summary */
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
	const uint8_t *sum;			/* the chunk's summary, raw bytes (owned by the memo), NULL none */
	uint32_t	sum_len;
	uint8_t		known;			/* hash, lengths and summary set (a record converted: after sl_lmemo_store_chunks) */
	uint8_t		usable;			/* may be reused (the caller found hash in the store) */
	uint8_t		checked;		/* read and found sound by a save that kept it unconverted (a pending save): only x, z, rec_len and xxh are set */
} sl_lmemo_ent;

typedef struct sl_lmemo
{
	uint8_t		ctx[SL_LMEMO_CTX];	/* the context the entries hold in */
	int			has_ctx;
	sl_lmemo_ent *e;
	size_t		n;
	size_t		cap;
	int			sorted;			/* e is in chunk key order (find works) */
	sl_arena	sums;			/* the entries' summaries */
} sl_lmemo;

/* The context bytes of a file's facts. */
void		sl_lmemo_context(uint8_t ctx[SL_LMEMO_CTX], int version, int flags, int sec_min,
							 int sec_max, int32_t data_version);

/* Decode a stored memo of version 2 or 3 (every entry usable); a malformed one is SL_ERR_FORMAT. */
int			sl_lmemo_decode(const uint8_t *p, size_t len, sl_lmemo *m, sl_err *err);

/* Append the stored form (version 3) of the known entries to out (sorts m). */
int			sl_lmemo_encode(sl_lmemo *m, sl_buf *out, sl_err *err);

/* Append version 2's form (uncompressed, as 0.10.0 wrote it) of the known entries to out (sorts m). */
int			sl_lmemo_encode_v2(sl_lmemo *m, sl_buf *out, sl_err *err);

/* Append an entry (its summary copied). */
int			sl_lmemo_add(sl_lmemo *m, const sl_lmemo_ent *e, sl_err *err);

/* The usable entry of chunk (x,z) whose context is ctx, or NULL. */
const sl_lmemo_ent *sl_lmemo_find(const sl_lmemo *m, const uint8_t ctx[SL_LMEMO_CTX],
								  int32_t x, int32_t z);

/*
 * The records list of a memo (every entry, converted or only checked:
 * position, record length, XXH3-128), as a pending save keeps it:
 * "SLRL", u8 version 1, the context, u32le n, n entries of i32le x,
 * i32le z, u32le rec_len, 16 bytes XXH3-128, then u64le XXH64 (seed 0)
 * of every byte before it.
 */
#define SL_LMEMO_RECORDS_MAGIC	"SLRL"
int			sl_lmemo_encode_records(const sl_lmemo *m, sl_buf *out, sl_err *err);

/*
 * Add a records list (sl_lmemo_encode_records) to m as checked entries: a
 * record m has with the same XXH3-128 stays as it is, another replaces
 * m's entry of its position (m sorted after). A list of another context
 * than m's adds nothing; a malformed one is SL_ERR_FORMAT (m unchanged).
 */
int			sl_lmemo_add_records(sl_lmemo *m, const uint8_t *p, size_t len, sl_err *err);

/* XXH3-128 of a record, as the memo keeps it. */
void		sl_lmemo_xxh(const uint8_t *p, size_t len, uint8_t out[16]);

/* Store entry callback: keep entry (len bytes) under key hash. */
typedef int (*sl_lmemo_put_fn) (void *ctx, const uint8_t hash[32], const uint8_t *entry,
								size_t len, sl_err *err);

/*
 * Turn every chunk the builder holds inline into a reference: encode it as
 * a store entry at the given zstd level, hand the entry to put, and fill
 * the entry of m (when not NULL) that names the chunk, its summary
 * included. The builder keeps the value's summary: the summaries of the
 * chunks converted and those m has of the chunks reused (none when a reused
 * chunk has no entry in m).
 */
int			sl_lmemo_store_chunks(sl_builder *b, sl_lmemo *m, int level, const sl_limits *lim,
								  sl_lmemo_put_fn put, void *put_ctx, sl_err *err);

void		sl_lmemo_free(sl_lmemo *m);

#endif
