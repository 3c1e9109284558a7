/*
 * sl_build.h - gather chunks from region files or other values into one
 * slime value.
 *
 * A builder collects pieces: one NBT document per (chunk, component). The
 * same component of the same chunk twice is an error that names the chunk.
 */
#ifndef SL_BUILD_H
#define SL_BUILD_H

#include "sl_common.h"
#include "sl_region.h"
#include "sl_value.h"

typedef struct sl_piece
{
	uint64_t	key;
	int32_t		x;
	int32_t		z;
	uint32_t	timestamp;
	uint8_t		comp;			/* SL_COMP_* */
	uint8_t		owned;			/* data is sl_alloc'd and freed with the builder */
	uint32_t	len;
	const uint8_t *data;
} sl_piece;

typedef struct sl_builder
{
	sl_piece   *pieces;
	size_t		n;
	size_t		cap;
	uint8_t    *world;			/* owned world compound, NULL none */
	size_t		world_len;
	uint64_t	total;			/* bytes of every piece, for early caps */
} sl_builder;

/* Add one piece; with owned, the builder frees data. */
int			sl_builder_add(sl_builder *b, int comp, int32_t x, int32_t z,
						   uint32_t timestamp, const uint8_t *data, size_t len,
						   int owned, sl_err *err);

/* Move every chunk of a read region into the builder as component comp. */
int			sl_builder_add_region(sl_builder *b, int comp, sl_region *r, sl_err *err);

/* Copy every chunk (and the world data) of an open value into the builder. */
int			sl_builder_add_value(sl_builder *b, sl_value *v, sl_err *err);

/* Drop component comp (or every component, comp < 0) of chunk (x,z). */
void		sl_builder_remove(sl_builder *b, int32_t x, int32_t z, int comp);

/* Set the world compound (copied). Two different ones are an error. */
int			sl_builder_set_world(sl_builder *b, const uint8_t *data, size_t len,
								 sl_err *err);

/* Encode everything gathered into a canonical value appended to out. */
int			sl_builder_encode(sl_builder *b, const sl_encode_opts *opts,
							  const sl_limits *lim, sl_buf *out, sl_err *err);

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
