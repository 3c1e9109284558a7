/*
 * sl_bsplit.h - the NBT side of the block codec (sl_bcodec): find the big
 * arrays the models know (block states, legacy blocks, nibble arrays) in a
 * sequence of NBT documents, and describe each with what its model needs.
 *
 * The same walk runs over the raw documents (payloads present) and over
 * the "structure" stream, which is the raw bytes with exactly those
 * payloads cut out; both give the same descriptors. The decoder only ever
 * walks the structure stream, so every descriptor field it uses comes from
 * bytes it already has.
 */
#ifndef SL_BSPLIT_H
#define SL_BSPLIT_H

#include "sl_common.h"

/* Kinds of array. */
enum
{
	SL_BA_MODERN = 1,			/* block_states.data long[], palette sibling "palette" */
	SL_BA_FLAT,					/* BlockStates long[], palette sibling "Palette" */
	SL_BA_BLOCKS,				/* Blocks byte[4096 | 32768] */
	SL_BA_NIBBLE				/* Data/Add/SkyLight/BlockLight byte[2048 | 16384] */
};

/* One array found by the walk. */
typedef struct sl_barray
{
	uint8_t		kind;			/* SL_BA_* */
	uint8_t		sub;			/* SL_BA_NIBBLE: 0 Data, 1 Add, 2 SkyLight, 3 BlockLight */
	uint8_t		esize;			/* bytes per element: 1 or 8 */
	uint32_t	count;			/* elements (never 0) */
	size_t		at;				/* offset of the payload (raw) or of where it belongs (structure) */
	uint32_t	doc;			/* document number */
	uint32_t	comp;			/* serial number of the enclosing compound */
	uint32_t	pal_off;		/* palette entry hashes: pal[pal_off .. pal_off + npal) */
	uint32_t	npal;			/* 0: no palette found */
} sl_barray;

/* Descriptors of a walk. */
typedef struct sl_bscan
{
	sl_barray  *a;
	size_t		n,
				cap;
	uint64_t   *pal;			/* XXH64 of each palette entry's structure bytes */
	size_t		npal,
				palcap;
	uint32_t	ncomp;			/* compounds seen */
	uint64_t	payload_sum;	/* bytes of the arrays' payloads */
	uint64_t	payload_cap;	/* nonzero: fail when payload_sum would pass it */
} sl_bscan;

/*
 * Walk one document (any root type but End) at buf[*pos..len), adding its
 * arrays to s (document number doc); with elided, the known arrays' payloads
 * are absent. Advances *pos past it. Errors (SL_ERR_CORRUPT) name the offset.
 */
int			sl_bscan_doc(const uint8_t *buf, size_t len, size_t *pos, int elided,
						 uint32_t doc, int max_depth, sl_bscan *s, sl_err *err);

/*
 * Number the palette entry hashes of s densely from first on, equal hashes
 * alike: (*ids)[i] is entry i's id, *nids one past the last (free *ids).
 */
int			sl_bscan_ids(const sl_bscan *s, uint32_t first, uint32_t **ids, uint32_t *nids,
						 sl_err *err);

/* Free the descriptors. */
void		sl_bscan_free(sl_bscan *s);

#endif
