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
 * Layout: u8 0xB1 (magic and version), u64be XXH64 of the raw bytes,
 * u32be XXH32 of every byte after it (a flipped bit anywhere is caught), LEB128 document count, structure length and zstd frame length, the zstd
 * frame of the structure, then the range coder's bytes to the end.
 */
#ifndef SL_BCODEC_H
#define SL_BCODEC_H

#include "sl_common.h"

/* Encode raw_len bytes (a frame's content: NBT documents back to back, though ANY bytes must round-trip) */
int			sl_bcodec_encode(const uint8_t *raw, size_t raw_len, sl_buf *out, sl_err *err);

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

/* NBT nesting the codec walks; deeper documents are coded as plain structure bytes. */
#define SL_BCODEC_MAX_DEPTH 512

#endif
