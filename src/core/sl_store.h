/*
 * sl_store.h - entries of the content-addressed chunk store.
 *
 * A store entry holds one chunk's canonical bytes: u32le region_len,
 * entities_len, poi_len, then those documents. Its key is the SHA-256 of
 * those bytes (sl_chunk_hash); its stored form is one checksummed zstd frame
 * of them, or (once settled, slime_settle) the dense form: u8 0x01, the
 * three lengths as they are, a block codec stream (sl_bcodec) of the
 * documents: version 1 (0xB1, written by 0.5.0), version 2 (0xB2, written
 * by 0.6.0) or version 3 (0xB3, written since 0.7.0); or (settled since
 * 0.7.0) a packed entry: u8 0x02 and its index in the pack (sl_pack.h) its
 * row names. doc/format.md, "Chunk store", is the authority.
 */
#ifndef SL_STORE_H
#define SL_STORE_H

#include "sl_common.h"
#include "sl_value.h"
#include "sl_bcodec.h"

#define SL_ENTRY_HEADER 12		/* the three lengths */
#define SL_ENTRY_DENSE 0x01		/* first byte of a dense entry (a zstd frame's is 0x28) */
#define SL_ENTRY_PACKED 0x02	/* first byte of a packed entry: u32le index in its pack */
#define SL_ENTRY_RAW 0x00		/* an entry read out of its pack: the canonical bytes as they are (never stored) */
#define SL_PACKED_SIZE 5		/* 0x02 and the index */
#define SL_DENSE_HEADER 13		/* that byte and the three lengths */
/*
 * The block codec version settled entries get: 5, version 3's tokens (which
 * decode 1.9-2.0x faster than version 2) with their bits modelled under
 * which references agree (4: 7% fewer bytes than 3) and the heightmaps
 * and light modelled further (5: 6% fewer than 4 at about its speed) on the corpus
 * (test/bench/README.md, section 14): loads and scans read settled
 * entries, so decoding comes first.
 */
#define SL_SETTLE_BCODEC 5
#define SL_SETTLE_ZSTD_LEVEL 19	/* the zstd level a settled entry is tried at */
#define SL_SETTLE_SKIP_19 0.85	/* ... unless the dense form is below this share of the entry */
/* What a reference the store cannot give says: entry missing, or of other sizes (a forged reference). */
#define SL_STORE_MISSING_FMT "chunk %s is missing from the chunk store"

/* Encode a chunk as a store entry appended to out; sets its key. */
int			sl_store_entry_encode(const uint32_t len[SL_NCOMP],
								  const uint8_t *const comp[SL_NCOMP], int level,
								  sl_buf *out, uint8_t hash[32], sl_err *err);

/*
 * Decode the entry holding chunk d (a reference: lengths and key known) into
 * *buf (grown as needed, sl_alloc'd; *cap its size) and point comp[] into it.
 * Its frame's checksum and lengths must hold, and with check_key its SHA-256
 * must be d's key (a raw-form entry, which has no checksum, is always
 * hashed); anything else is SL_ERR_CORRUPT.
 */
int			sl_store_entry_decode(const uint8_t *entry, size_t len, const sl_dirent *d,
								  const sl_limits *lim, int check_key, uint8_t **buf,
								  size_t *cap, const uint8_t *comp[SL_NCOMP], sl_err *err);

/*
 * Whether a raw-form entry (u8 0x00, then its canonical bytes: the three
 * lengths and the documents) hashes to key: lengths that add up, and the
 * SHA-256 of sl_chunk_hash. For a reader that keeps entries it checked.
 */
int			sl_store_raw_matches(const uint8_t *entry, size_t len, const uint8_t key[32]);

/*
 * Point comp[] into a raw-form entry holding chunk d whose bytes the caller
 * found to hash to d's key before (sl_store_raw_matches): the lengths are
 * checked as sl_store_entry_decode checks them, nothing is copied or hashed.
 */
int			sl_store_entry_view(const uint8_t *entry, size_t len, const sl_dirent *d,
								const uint8_t *comp[SL_NCOMP], sl_err *err);

/*
 * Check an entry on its own against its key: one checksummed frame, sane
 * lengths, each document one well-formed NBT compound, SHA-256 equal to hash.
 */
int			sl_store_entry_check(const uint8_t *hash, size_t hash_len,
								 const uint8_t *entry, size_t len,
								 const sl_limits *lim, sl_err *err);

/*
 * Append the canonical bytes of an entry that passes sl_store_entry_check
 * under hash to out; fails like sl_store_entry_check.
 */
int			sl_store_entry_canonical(const uint8_t *hash, size_t hash_len,
									 const uint8_t *entry, size_t len,
									 const sl_limits *lim, sl_buf *out, sl_err *err);

/*
 * Rewrite an entry that passes sl_store_entry_check under hash into its
 * densest form (the dense form or a zstd-19 frame, whichever is smaller;
 * zstd-19 not tried when the dense form is below SL_SETTLE_SKIP_19 of the entry),
 * appended to out; the result is decoded and compared with the entry's
 * bytes before it is returned. Fails like sl_store_entry_check.
 */
int			sl_store_entry_settle(const uint8_t *hash, const uint8_t *entry, size_t len,
								  const sl_limits *lim, sl_buf *out, sl_err *err);

/* Lowercase hex of a 32-byte hash into out (65 bytes with the NUL). */
void		sl_hash_hex(const uint8_t hash[32], char out[65]);

#endif
