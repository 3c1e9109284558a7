/*
 * sl_build.h - gather chunks from region files or other values into one
 * slime value.
 *
 * A builder collects pieces: one NBT document per (chunk, component), or one
 * reference into the chunk store per chunk. The same component of the same
 * chunk twice, or a reference beside other data of its chunk, is an error
 * that names the chunk.
 */
#ifndef SL_BUILD_H
#define SL_BUILD_H

#include "sl_common.h"
#include "sl_region.h"
#include "sl_value.h"

#define SL_PIECE_REF SL_NCOMP	/* piece kind of a whole chunk held by reference */

typedef struct sl_piece
{
	uint64_t	key;
	int32_t		x;
	int32_t		z;
	uint32_t	timestamp;
	uint8_t		comp;			/* SL_COMP_* or SL_PIECE_REF */
	uint8_t		owned;			/* data is sl_alloc'd and freed with the builder */
	uint32_t	len;			/* data bytes (a reference: its 32-byte hash) */
	const uint8_t *data;
	int32_t		ref_dv;			/* a reference's DataVersion */
	uint32_t	ref_len[SL_NCOMP];	/* a reference's component lengths */
} sl_piece;

/* How sl_builder_add_value treats chunks. */
typedef enum sl_add_mode
{
	SL_ADD_KEEP = 0,			/* references stay references, bytes stay bytes */
	SL_ADD_RESOLVE = 1,			/* every chunk as bytes (references resolved) */
	SL_ADD_REFS = 2				/* every chunk as a reference (by its hash) */
} sl_add_mode;

typedef struct sl_builder
{
	sl_piece   *pieces;
	size_t		n;
	size_t		cap;
	uint8_t    *world;			/* owned world compound, NULL none */
	size_t		world_len;
	uint64_t	total;			/* bytes of every piece, for early caps */
	/*
	 * The contents summary of what the builder holds (sl_vsum.h), kept from
	 * the values added whole: NULL, it is counted at encode when every chunk
	 * is inline (a value holding references then gets none).
	 */
	struct sl_vsum *sum;
	uint8_t		sum_lost;		/* a value without one was added: never kept again */
	uint8_t		sum_manual;		/* the caller accounts its adds and removes in sum */
} sl_builder;

/* Add one piece; with owned, the builder frees data. */
int			sl_builder_add(sl_builder *b, int comp, int32_t x, int32_t z,
						   uint32_t timestamp, const uint8_t *data, size_t len,
						   int owned, sl_err *err);

/* Move every chunk of a read region into the builder as component comp. */
int			sl_builder_add_region(sl_builder *b, int comp, sl_region *r, sl_err *err);

/* Add chunk d (position, timestamp, DataVersion, lengths) as a reference to hash. */
int			sl_builder_add_ref(sl_builder *b, const sl_dirent *d, const uint8_t hash[32],
							   sl_err *err);

/* Add chunk i of an open value to the builder, treated as mode says. */
int			sl_builder_add_chunk(sl_builder *b, sl_value *v, uint32_t i,
								 sl_add_mode mode, sl_err *err);

/* Add every chunk (and the world data) of an open value to the builder. */
int			sl_builder_add_value(sl_builder *b, sl_value *v, sl_add_mode mode,
								 sl_err *err);

/* Add the world data of an open value (if any) to the builder. */
int			sl_builder_add_world(sl_builder *b, sl_value *v, sl_err *err);

/* Drop component comp (or every component, comp < 0) of chunk (x,z). */
void		sl_builder_remove(sl_builder *b, int32_t x, int32_t z, int comp);

/* Set the world compound (copied). Two different ones are an error. */
int			sl_builder_set_world(sl_builder *b, const uint8_t *data, size_t len,
								 sl_err *err);

/* Order pieces by chunk key, then component (a qsort comparator). */
int			sl_piece_cmp(const void *a, const void *b);

/* Encode everything gathered (and the summary kept, if any) into a canonical value appended to out. */
int			sl_builder_encode(sl_builder *b, const sl_encode_opts *opts,
							  const sl_limits *lim, sl_buf *out, sl_err *err);

/*
 * Keeping the summary. sl_builder_add_value adds the value's summary to the
 * builder's when the builder was empty or keeps one (a value without one
 * loses it). Any other add or remove loses it, unless the caller set
 * sum_manual and accounts for the change itself: taking a chunk's counts
 * away before it changes and adding them after (sl_builder_sum_pieces), or
 * adding a value's summary for chunks it adds one by one
 * (sl_builder_sum_value).
 */
int			sl_builder_sum_value(sl_builder *b, sl_value *v, sl_err *err);

/* Add (sign +1) or take away (-1) one chunk's counts from the summary kept, if any. */
int			sl_builder_sum_chunk(sl_builder *b, int32_t dv, const uint8_t *const comp[SL_NCOMP],
								 const uint32_t len[SL_NCOMP], int sign, sl_err *err);

/*
 * The same for chunk (x,z) as the builder holds it now (its DataVersion as
 * encoding will take it); a chunk held by reference loses the summary.
 */
int			sl_builder_sum_pieces(sl_builder *b, int32_t x, int32_t z, int sign,
								  const sl_limits *lim, sl_err *err);

/* Give up the summary kept: the chunks are counted at encode, when every one is inline. */
void		sl_builder_sum_lose(sl_builder *b);

void		sl_builder_free(sl_builder *b);

/* DataVersion of a chunk-like NBT document, or SL_NO_DV. */
int32_t		sl_data_version(const uint8_t *nbt, size_t len, const sl_limits *lim);

/*
 * Unpack NBT that may be gzip- or zlib-compressed (as level.dat is) into a
 * checked, uncompressed document (*out sl_alloc'd). The root must be a
 * compound unless any_root.
 */
int			sl_unpack_nbt(const uint8_t *in, size_t len, int any_root,
						  const sl_limits *lim, uint8_t **out, size_t *out_len,
						  sl_err *err);

#endif
