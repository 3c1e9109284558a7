/*
 * sl_bcodec.h - the block codec: a lossless byte codec for frames of NBT
 * documents ("archive" level of format v3, issue #11).
 *
 * The input is walked as NBT documents back to back (sl_bsplit); the
 * payloads of block-state, legacy block and nibble arrays are cut out and
 * coded with context models and a range coder (sl_bmodel); everything else
 * (the "structure": the documents without those payloads, then any bytes
 * that do not walk as NBT) is one zstd frame. Any bytes round-trip.
 *
 * Layout: u8 0xB1 to 0xB5 (magic and version), u64be XXH64 of the raw bytes,
 * u32be XXH32 of every byte after it (a flipped bit anywhere is caught), LEB128 document count, structure length and zstd frame length, the zstd
 * frame of the structure, then the range coder's bytes to the end.
 */
#ifndef SL_BCODEC_H
#define SL_BCODEC_H

#include "sl_common.h"

/*
 * Encode raw_len bytes (a frame's content: NBT documents back to back, though
 * ANY bytes must round-trip) as a stream of version 1 (magic 0xB1), 2
 * (0xB2: the models code layers and rows equal to the ones below with one
 * bit, sl_bmodel.h, and the structure is zstd at SL_BCODEC2_LEVEL), 3 (0xB3:
 * copy and literal tokens, sl_btok.h), 4 (0xB4: version 3 whose token
 * bits are also modelled under which of an element's references agree) or
 * 5 (0xB5: version 4 whose heightmaps are cut out of the structure too and
 * modelled, sl_bheight.h).
 */
int			sl_bcodec_encode(const uint8_t *raw, size_t raw_len, int version, sl_buf *out,
							 sl_err *err);

/* The version of a stream (its first byte 0xB1 to 0xB5), 0 when it is none. */
int			sl_bcodec_version(const uint8_t *src, size_t len);

/* Fail (SL_ERR_CORRUPT) unless src[0..len) is a stream of version. */
int			sl_bcodec_expect(const uint8_t *src, size_t len, int version, sl_err *err);

/* Check a stream's header and body checksum without decoding it (structural checks). */
int			sl_bcodec_check(const uint8_t *src, size_t len, size_t raw_len, sl_err *err);

/*
 * Decode into dst exactly raw_len bytes (raw_len from the frame table,
 * capped by the caller). Inconsistencies are SL_ERR_CORRUPT naming the
 * offset and field; the output's XXH64 is checked. The structure is walked
 * to SL_BCODEC_MAX_DEPTH, the depth the encoder walks: a part of the
 * format, not a setting, so every stream the encoder writes decodes.
 */
int			sl_bcodec_decode(const uint8_t *src, size_t len, uint8_t *dst, size_t raw_len,
							 sl_err *err);

#define SL_BCODEC_V1 1			/* the archive codec of 0.3.0-0.5.0 */
#define SL_BCODEC_V2 2			/* the fast block codec (0.6.0) */
#define SL_BCODEC_V3 3			/* copy and literal tokens, zstd-coded (0.7.0) */
#define SL_BCODEC_V4 4			/* version 3 whose token bits know which references agree */
#define SL_BCODEC_V5 5			/* version 4 with modelled heightmaps */

/* zstd level of a version 2 stream's structure (version 1: 19). */
#define SL_BCODEC2_LEVEL 13

/* zstd level of a version 3 or 4 stream's structure. */
#define SL_BCODEC3_LEVEL 13

/*
 * zstd level of a version 5 stream's structure: the heightmaps out of it
 * leave room for a level above 13 within the encode target (50 MB/s of raw
 * NBT on every era); 15 came near it on 1.18+.
 */
#define SL_BCODEC5_LEVEL 14

/* NBT nesting the codec walks; deeper documents are coded as plain structure bytes. */
#define SL_BCODEC_MAX_DEPTH 512

#endif
