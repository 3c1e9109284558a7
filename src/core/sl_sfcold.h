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
 * compressed against a prefix made of the world's chunks' documents, which
 * the store holds anyway. A few kilobytes where the file took a hundred
 * and more.
 *
 * Layout: "SLCF" (0x53 0x4C 0x43 0x46), u8 version, the file's 8 header
 * bytes as they were, u32le raw length of the chunk block, u32le raw
 * length of the extra block, (version 3) u64le XXH64 (seed 0) of those 21
 * bytes, then the zstd frame (content size, checksum) of both blocks' raw
 * bytes back to back, against the prefix. The version says which prefix: 1,
 * every chunk's documents in directory order (sl_sfcold_prefix); 2 (0.9.0)
 * and 3 (written from 0.10.0), the documents of the distinct references in
 * hash order, then those of chunks held in frames in directory order
 * (sl_sfcold_prefix_hashed): the order slime_settle() gathers a cold
 * world's chunks into a pack in, so that a load finds the prefix in that
 * pack as it lies.
 *
 * The frame's checksum covers the blocks' bytes, not the file's header nor
 * where the chunk block ends (issue #33): in versions 1 and 2 a damaged
 * header byte changes the file a decode gives, and two lengths changed so
 * that they cancel move the split with the frame still decoding. Version 3's
 * header checksum closes both; a decode of version 1 or 2 is not vouched for
 * (sl_sfcold_vouched): the loader writes the file from the world's newest
 * save instead, and decodes one only for a world version 13 cannot hold,
 * checking what it gives against that save. doc/format.md, "The loader's
 * kept files", is the authority.
 */
#ifndef SL_SFCOLD_H
#define SL_SFCOLD_H

#include "sl_common.h"
#include "sl_value.h"

#define SL_SFCOLD_MAGIC "SLCF"
#define SL_SFCOLD_VERSION 3		/* the version written; 1 and 2 are read */
#define SL_SFCOLD_HEADER 21		/* magic, version, file header, two lengths */
#define SL_SFCOLD_SUM 8			/* version 3: the XXH64 of the header after it */
#define SL_SFCOLD_LEVEL 19		/* the zstd level of the frame */

/* Whether src[0..len) is in the cold form (its magic). */
int			sl_sfcold_is(const uint8_t *src, size_t len);

/* Append the documents of every chunk of v, in directory order, to out. */
int			sl_sfcold_prefix(sl_value *v, sl_buf *out, sl_err *err);

/* A reference of a value: its hash and the first chunk (directory index) holding it. */
typedef struct sl_sfcold_ref
{
	uint8_t		hash[32];
	uint32_t	chunk;
} sl_sfcold_ref;

/*
 * Set *refs (sl_free it) to the *n distinct references of v in hash order:
 * the order slime_refs() lists them in and slime_settle() gathers a cold
 * world's chunks into a pack in.
 */
int			sl_sfcold_refs(sl_value *v, sl_sfcold_ref **refs, uint32_t *n, sl_err *err);

/*
 * Point comp[] at the documents of reference chunk d, the rank-th of the
 * references sl_sfcold_refs listed; nonzero (err set) when the caller has
 * none to give.
 */
typedef int (*sl_sfcold_docs_fn) (void *ctx, uint32_t rank, const sl_dirent *d,
								  const uint8_t *comp[SL_NCOMP], sl_err *err);

/*
 * Append what sl_sfcold_prefix appends (version 1's prefix), each
 * reference's documents taken from fn by the rank of its hash among the n
 * refs of sl_sfcold_refs instead of through v's resolver.
 */
int			sl_sfcold_prefix_ranked(sl_value *v, const sl_sfcold_ref *refs, uint32_t n,
									sl_sfcold_docs_fn fn, void *ctx, sl_buf *out, sl_err *err);

/*
 * Set *prefix and *prefix_len to version 2's prefix of v: the documents of
 * its n distinct references refs (sl_sfcold_refs) in hash order, each from
 * fn by rank (fn NULL: through v's resolver), then those of its chunks held
 * in frames, in directory order. With stable (the documents fn gives stay
 * where they are until the prefix is used), documents of references that
 * lie back to back, as in one pack, with no chunk held in a frame, are not
 * copied: *prefix points at them. Otherwise they are copied into out (emptied
 * first) and *prefix points into out.
 */
int			sl_sfcold_prefix_hashed(sl_value *v, const sl_sfcold_ref *refs, uint32_t n,
									sl_sfcold_docs_fn fn, void *ctx, int stable, sl_buf *out,
									const uint8_t **prefix, size_t *prefix_len, sl_err *err);

/* The version of a cold form (its fifth byte), 0 when src is not one. */
int			sl_sfcold_version(const uint8_t *src, size_t len);

/*
 * Whether what a cold form decodes to is vouched for: 1 for version 3 on
 * (its header checksum, then the frame's), 0 for versions 1 and 2, whose
 * header and lengths no checksum covers.
 */
int			sl_sfcold_vouched(const uint8_t *src, size_t len);

/*
 * Check a cold form's header before any prefix is built: 0 when its
 * version is known and (version 3 on) its header checksum passes; else
 * SL_ERR_UNSUPPORTED (version) or SL_ERR_CORRUPT.
 */
int			sl_sfcold_check_header(const uint8_t *src, size_t len, sl_err *err);

/*
 * Append the cold form (version 1, 2 or 3: the prefix's kind and, from 3,
 * the header's checksum) of a version-13 file to out, against prefix; the
 * result is decoded and compared with the file's blocks before it is
 * returned. A file of another version, or not exactly header and two
 * blocks, is SL_ERR_UNSUPPORTED.
 */
int			sl_sfcold_encode(const uint8_t *file, size_t len, int version, const uint8_t *prefix,
							 size_t prefix_len, const sl_limits *lim, sl_buf *out, sl_err *err);

/*
 * Append the version-13 file of a cold form to out, its blocks compressed
 * at level; prefix must be the one it was made against (else the frame's
 * checksum fails: SL_ERR_CORRUPT). A version 3 form whose header fails its
 * checksum is SL_ERR_CORRUPT before the frame is read; versions 1 and 2
 * decode unvouched (sl_sfcold_vouched).
 */
int			sl_sfcold_decode(const uint8_t *src, size_t len, const uint8_t *prefix,
							 size_t prefix_len, int level, const sl_limits *lim, sl_buf *out,
							 sl_err *err);

#endif
