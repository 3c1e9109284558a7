/*
 * sl_sfcold.h - the cold form of a loader's cached slime file (issue #22):
 * what slime_settle() keeps of the file of a world nobody holds, in place
 * of the file, so that the world's next load need not write the file from
 * its chunks.
 *
 * A version-13 file is its 8-byte header and two zstd blocks (the chunks,
 * the extra compound) of data that repeats the world's chunk NBT nearly
 * byte for byte (palettes, block-state longs, block entities). The cold
 * form keeps the header and both blocks' raw bytes as one zstd frame
 * compressed against a prefix: the world's chunks' documents in directory
 * order (sl_sfcold_prefix), which the store holds anyway. A few kilobytes
 * where the file took a hundred and more.
 *
 * Layout (version 1): "SLCF" (0x53 0x4C 0x43 0x46), u8 version 1, the
 * file's 8 header bytes as they were, u32le raw length of the chunk block,
 * u32le raw length of the extra block, then the zstd frame (content size,
 * checksum) of both blocks' raw bytes back to back, against the prefix.
 * doc/format.md, "The loader's cold files", is the authority.
 */
#ifndef SL_SFCOLD_H
#define SL_SFCOLD_H

#include "sl_common.h"
#include "sl_value.h"

#define SL_SFCOLD_MAGIC "SLCF"
#define SL_SFCOLD_VERSION 1
#define SL_SFCOLD_HEADER 21		/* magic, version, file header, two lengths */
#define SL_SFCOLD_LEVEL 19		/* the zstd level of the frame */

/* Whether src[0..len) is in the cold form (its magic). */
int			sl_sfcold_is(const uint8_t *src, size_t len);

/* Append the documents of every chunk of v, in directory order, to out. */
int			sl_sfcold_prefix(sl_value *v, sl_buf *out, sl_err *err);

/*
 * Append the cold form of a version-13 file to out, against prefix; the
 * result is decoded and compared with the file's blocks before it is
 * returned. A file of another version, or not exactly header and two
 * blocks, is SL_ERR_UNSUPPORTED.
 */
int			sl_sfcold_encode(const uint8_t *file, size_t len, const uint8_t *prefix,
							 size_t prefix_len, const sl_limits *lim, sl_buf *out, sl_err *err);

/*
 * Append the version-13 file of a cold form to out, its blocks compressed
 * at level; prefix must be the one it was made against (else the frame's
 * checksum fails: SL_ERR_CORRUPT).
 */
int			sl_sfcold_decode(const uint8_t *src, size_t len, const uint8_t *prefix,
							 size_t prefix_len, int level, const sl_limits *lim, sl_buf *out,
							 sl_err *err);

#endif
