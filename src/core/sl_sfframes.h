/*
 * sl_sfframes.h - the framed form of a loader's kept slime file (issue #34):
 * a version-13 file kept as a directory in the world's row and its chunk
 * block's zstd frames in rows of their own (<name>_frames), so that a save
 * writes only the frames of the chunks that changed, and a load gives the
 * file back by concatenating the frames, compressing nothing.
 *
 * A version-13 file is an 8-byte header, the chunk block (u32be compressed
 * length, u32be raw length, zstd data) and the extra block (the same). Its
 * raw chunk block is an i32be chunk count and the chunk records back to
 * back; AdvancedSlimePaper decompresses the block with one
 * Zstd.decompress(dst, src), and zstd decodes frames written one after the
 * other as one stream (test/java.sh checks it with zstd-jni). The framed
 * form cuts the raw chunk block at record boundaries into groups (a record
 * of SL_SFFR_GROUP_RAW raw bytes or more alone; smaller neighbours
 * together, a group ending after a chunk whose position hashes so, about
 * one in four, or at SL_SFFR_GROUP_MAX bytes: a chunk whose record changes
 * size moves no other group's bounds; the count goes with the first one),
 * and compresses each group into a zstd frame of its own (content size and
 * checksum). A group is named by its key, the XXH3-128 of its raw bytes: a
 * save compresses and writes only the groups whose key the world's
 * previous directory lacks.
 *
 * Directory layout (little-endian, the file's own header bytes as they are):
 *   4  "SLFR"
 *   1  version 1
 *   8  the file's header (B1 0B 0D, i32be DataVersion, u8 world flags)
 *   4  u32 raw length of the chunk block
 *   4  u32 n, the number of frames
 *   n x 32: 16 bytes key, u32 compressed length, u32 raw length,
 *           u64 XXH64 (seed 0) of the frame's bytes
 *   4  u32 m, then the m bytes of the file's extra block as it was
 *   8  u64 XXH64 (seed 0) of every byte before it
 * The directory's XXH64 vouches for the header, the lengths, the keys and
 * the extra block; each frame's XXH64 for the frame a row holds. A load
 * checks both, so a damaged byte anywhere is an error. doc/format.md, "The
 * loader's kept files", is the authority.
 */
#ifndef SL_SFFRAMES_H
#define SL_SFFRAMES_H

#include "sl_common.h"

#define SL_SFFR_MAGIC "SLFR"
#define SL_SFFR_VERSION 1
#define SL_SFFR_HEAD 8			/* the file's header */
#define SL_SFFR_KEY 16
#define SL_SFFR_ENTRY 32		/* a frame's directory entry */
#define SL_SFFR_FIXED 21		/* magic, version, header, raw length, n */
#define SL_SFFR_SUM 8
#define SL_SFFR_GROUP_RAW ((size_t) 16 * 1024)	/* a record this large is a group alone */
#define SL_SFFR_GROUP_MAX ((size_t) 64 * 1024)	/* a group of small records ends this large */
#define SL_SFFR_MAX_FRAMES 1048576

/* One frame of the chunk block, as a directory names it. */
typedef struct sl_sffr_frame
{
	uint8_t		key[SL_SFFR_KEY];	/* XXH3-128 of its raw bytes */
	uint32_t	clen;			/* bytes of the frame */
	uint32_t	rlen;			/* raw bytes it holds */
	uint64_t	sum;			/* XXH64 of the frame's bytes */
} sl_sffr_frame;

/* An opened (checked) directory; its pointers point into the bytes opened. */
typedef struct sl_sffr_dir
{
	const uint8_t *head;		/* SL_SFFR_HEAD bytes */
	uint32_t	raw_len;
	uint32_t	n;
	sl_sffr_frame *f;			/* n frames (allocated; sl_sffr_dir_free) */
	const uint8_t *extra;		/* the extra block */
	uint32_t	extra_len;
} sl_sffr_dir;

/* A frame a save made: its directory entry and its bytes (in sl_sffr_built.bytes at off). */
typedef struct sl_sffr_new
{
	uint32_t	index;			/* its entry in the directory */
	size_t		off;
} sl_sffr_new;

/* What sl_sffr_build gives: the directory and the frames the previous one lacked. */
typedef struct sl_sffr_built
{
	sl_buf		dir;
	sl_buf		bytes;			/* the new frames back to back */
	sl_sffr_new *news;
	uint32_t	nnew;
	sl_sffr_frame *f;			/* every frame of the directory, in order */
	uint32_t	n;
} sl_sffr_built;

/* Whether src starts as a directory does (its magic). */
int			sl_sffr_is(const uint8_t *src, size_t len);

/* Open a directory: its version known (else SL_ERR_UNSUPPORTED), its checksum and lengths right (else SL_ERR_CORRUPT). */
int			sl_sffr_open(const uint8_t *src, size_t len, sl_sffr_dir *d, sl_err *err);

void		sl_sffr_dir_free(sl_sffr_dir *d);

/*
 * The framed form of a version-13 file (len bytes) whose raw chunk block
 * is raw[0..raw_len) and whose chunk records end at rec_end[0..nrec)
 * (ascending offsets into raw; the last is raw_len): the groups prev (a
 * directory, may be NULL) has are named as it names them, the others
 * compressed at level. rec_key (may be NULL) gives record i's key as a
 * group's is written (XXH3-128 of its bytes: the loader's memo has it,
 * sl_lmemo_xxh), so that a record alone in its group is not hashed again.
 * The file is one a reader accepted: its header and blocks are taken as
 * they lie.
 */
int			sl_sffr_build(const uint8_t *file, size_t len, const uint8_t *raw, size_t raw_len,
						  const size_t *rec_end, const uint8_t (*rec_key)[SL_SFFR_KEY], size_t nrec,
						  const sl_sffr_dir *prev, int level, sl_sffr_built *out, sl_err *err);

void		sl_sffr_built_free(sl_sffr_built *b);

/* What became of a directory entry's frame while placing (sl_sffr_placer.state). */
#define SL_SFFR_MISSING 0		/* no row named it */
#define SL_SFFR_PLACED 1
#define SL_SFFR_BAD_LENGTH 2	/* a row of its key, another length */
#define SL_SFFR_BAD_SUM 3		/* a row of its key and length, another XXH64 */

/* A directory entry's key and index, to find the entries of a key. */
typedef struct sl_sffr_keyed
{
	uint8_t		key[SL_SFFR_KEY];
	uint32_t	index;
} sl_sffr_keyed;

/*
 * A directory's file being written straight into its final bytes, its
 * frames placed in whatever order the rows come (a load's rows come in
 * key order): each checked against its length and XXH64, then copied once
 * to its offset. sl_sffr_placer_finish says whether every frame came.
 */
typedef struct sl_sffr_placer
{
	const sl_sffr_dir *d;
	uint8_t    *out;			/* sl_sffr_file_len(d) bytes */
	sl_sffr_keyed *order;		/* the directory's entries sorted by key */
	size_t	   *off;			/* each entry's offset in out */
	uint8_t    *state;			/* each entry's SL_SFFR_MISSING, _PLACED, _BAD_LENGTH, _BAD_SUM */
} sl_sffr_placer;

/* The bytes of the file of directory d (its header, lengths, frames and extra block). */
size_t		sl_sffr_file_len(const sl_sffr_dir *d);

/* Start placing d's frames into out (sl_sffr_file_len(d) bytes): writes all but the frames. */
int			sl_sffr_placer_init(sl_sffr_placer *p, const sl_sffr_dir *d, uint8_t *out, sl_err *err);

/*
 * Place a frame row (a key of klen bytes, len bytes of frame) at every
 * entry that names its key, each checked first; rows of keys the directory
 * does not name are ignored.
 */
void		sl_sffr_place(sl_sffr_placer *p, const uint8_t *key, size_t klen, const uint8_t *data,
						  size_t len);

/*
 * Whether a row of that key would place anything (an entry names it, not
 * yet placed): a reader skips reading the bytes of a row it does not.
 */
int			sl_sffr_wants(const sl_sffr_placer *p, const uint8_t *key, size_t klen);

/* 0 when every frame was placed; else SL_ERR_CORRUPT naming the first, in the file's order, that was not. */
int			sl_sffr_placer_finish(const sl_sffr_placer *p, sl_err *err);

void		sl_sffr_placer_free(sl_sffr_placer *p);

/* Find a frame's bytes by its key (sl_sffr_assemble): 0 found, 1 absent, -1 error. */
typedef int (*sl_sffr_find_fn) (void *ctx, const uint8_t key[SL_SFFR_KEY], const uint8_t **data,
								size_t *len, sl_err *err);

/*
 * Append the version-13 file of directory d to out: its header, the chunk
 * block of the frames find gives (each checked against its length and
 * XXH64: a missing or damaged frame is SL_ERR_CORRUPT naming it), the
 * extra block.
 */
int			sl_sffr_assemble(const sl_sffr_dir *d, sl_sffr_find_fn find, void *ctx, sl_buf *out,
							 sl_err *err);

#endif
