/*
 * sl_zstd.h - zstd frames as the value format and the chunk store use them:
 * one frame per block of data, always with its content size and an XXH64
 * content checksum, decoded only into a buffer of the declared size.
 */
#ifndef SL_ZSTD_H
#define SL_ZSTD_H

#include "sl_common.h"

/* Compress raw into one checksummed zstd frame appended to out. */
int			sl_zstd_frame(const uint8_t *raw, size_t len, int level, sl_buf *out,
						  sl_err *err);

/*
 * As sl_zstd_frame, compressing against prefix[0..prefix_len) (a raw-content
 * dictionary the decoder must hand to sl_zstd_unframe_prefix).
 */
int			sl_zstd_frame_prefix(const uint8_t *raw, size_t len, int level,
								 const uint8_t *prefix, size_t prefix_len,
								 sl_buf *out, sl_err *err);

/*
 * Check, without decompressing, that src[0..len) is exactly one zstd frame
 * with a content checksum that declares raw_len bytes.
 */
int			sl_zstd_check(const uint8_t *src, size_t len, size_t raw_len, sl_err *err);

/* Check as above, then decompress into dst (raw_len bytes); zstd verifies the checksum. */
int			sl_zstd_unframe(const uint8_t *src, size_t len, uint8_t *dst,
							size_t raw_len, sl_err *err);

/* As sl_zstd_unframe, for a frame compressed against a prefix. */
int			sl_zstd_unframe_prefix(const uint8_t *src, size_t len, uint8_t *dst,
								   size_t raw_len, const uint8_t *prefix,
								   size_t prefix_len, sl_err *err);

/*
 * Decompress zstd frames of any kind (other programs' files) into dst of cap
 * bytes with the cached context; as ZSTD_decompress: a size or an error code.
 */
size_t		sl_zstd_decompress(uint8_t *dst, size_t cap, const uint8_t *src, size_t len);

/*
 * Compress src[0..len) into dst[0..cap) with the cached context, byte for
 * byte as ZSTD_compress does (content size, no checksum: other programs'
 * one-shot frames, as slime files hold them); as ZSTD_compress: a size or an
 * error code.
 */
size_t		sl_zstd_compress(uint8_t *dst, size_t cap, const uint8_t *src, size_t len, int level);
/* Content size a frame declares, or -1 when it declares none or is not a frame. */
int64_t		sl_zstd_declared_size(const uint8_t *src, size_t len);

/* Free the cached zstd contexts. */
void		sl_zstd_release(void);

#endif
