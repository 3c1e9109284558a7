/*
 * sl_codec.h - the byte codecs region files use: gzip, zlib, raw deflate
 * (libdeflate) and LZ4 in lz4-java's LZ4Block framing (liblz4 + xxHash).
 *
 * Decoders never trust a declared size: output grows up to a cap and a
 * stream that would exceed it is an SL_ERR_LIMIT error.
 */
#ifndef SL_CODEC_H
#define SL_CODEC_H

#include "sl_common.h"

typedef enum sl_deflate_kind
{
	SL_DEFLATE_RAW = 0,
	SL_DEFLATE_ZLIB = 1,
	SL_DEFLATE_GZIP = 2
} sl_deflate_kind;

/*
 * Inflate one stream from in[0..in_len). On success *out (sl_alloc'd,
 * caller frees with sl_free) holds *out_len bytes and *consumed tells how
 * many input bytes the stream used (may be less than in_len). hint, when
 * nonzero, is a first guess of the output size. cap bounds the output.
 */
int			sl_inflate(sl_deflate_kind kind, const uint8_t *in, size_t in_len,
					   size_t cap, size_t hint, uint8_t **out, size_t *out_len,
					   size_t *consumed, sl_err *err);

/* Deflate in[0..len) as kind at level (1-12, libdeflate's scale), append to out. */
int			sl_deflate(sl_deflate_kind kind, int level, const uint8_t *in,
					   size_t len, sl_buf *out, sl_err *err);

/*
 * Decode an lz4-java LZ4BlockOutputStream stream: blocks of "LZ4Block",
 * token (0x10 raw / 0x20 lz4, low nibble level), LE i32 compressed length,
 * LE i32 raw length, LE i32 checksum (XXH32 seed 0x9747b28c, & 0x0FFFFFFF),
 * ending with an empty block. Checksums are verified.
 */
int			sl_lz4block_decode(const uint8_t *in, size_t in_len, size_t cap,
							   uint8_t **out, size_t *out_len, size_t *consumed,
							   sl_err *err);

/* Encode in the same framing (64 KiB blocks), append to out. */
int			sl_lz4block_encode(const uint8_t *in, size_t len, sl_buf *out,
							   sl_err *err);

/* Free the cached libdeflate contexts (for leak checkers at exit). */
void		sl_codec_release(void);

/* CRC-32 (zlib polynomial) via libdeflate. */
uint32_t	sl_crc32(uint32_t crc, const void *data, size_t len);

#endif
