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

#include "sl_blocks.h"
#include "sl_common.h"

/* Kinds of array. */
enum
{
	SL_BA_MODERN = 1,			/* block_states.data long[], palette sibling "palette" */
	SL_BA_FLAT,					/* BlockStates long[], palette sibling "Palette" */
	SL_BA_BLOCKS,				/* Blocks byte[4096 | 32768] */
	SL_BA_NIBBLE,				/* Data/Add/SkyLight/BlockLight byte[2048 | 16384] */
	SL_BA_HEIGHT				/* scans with heights only: HeightMap byte[256] | int[256],
								 * Heightmaps' long[36 | 37] */
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
	int			heights;		/* also find heightmaps (SL_BA_HEIGHT; block codec 5 on) */
} sl_bscan;

/*
 * Walk one document (any root type but End) at buf[*pos..len), adding its
 * arrays to s (document number doc); with elided, the known arrays' payloads
 * are absent. Advances *pos past it. Errors (SL_ERR_CORRUPT) name the offset.
 */
int			sl_bscan_doc(const uint8_t *buf, size_t len, size_t *pos, int elided,
						 uint32_t doc, int max_depth, sl_bscan *s, sl_err *err);

/*
 * The palettes of a scan as the models see them: every palette entry hash
 * has an id shared by equal entries across the input (ids below "first"
 * are the legacy block values), and the current array's palette maps ids
 * to its local indices and back.
 */
typedef struct sl_bpal
{
	uint32_t   *ids;			/* id of every palette entry hash of the scan */
	uint32_t	nids;
	uint32_t   *g2l;			/* id -> local index + 1 in the current array (stamped) */
	uint32_t   *g2l_stamp;
	uint32_t	stamp;
	uint32_t	ident;			/* nonzero: the current palette is ids 0 .. ident-1 (legacy) */
	uint32_t	gid[SL_MAX_PALETTE];	/* ids of the current array's palette */
} sl_bpal;

/* Number the scan's palette entries (ids from first on) and allocate the maps. */
int			sl_bpal_init(sl_bpal *p, const sl_bscan *s, uint32_t first, sl_err *err);

/* Make array a's palette current: its npal entries, or (legacy) the ids 0 .. npal-1. */
void		sl_bpal_set(sl_bpal *p, const sl_barray *a, uint32_t npal);

/* Free the maps. */
void		sl_bpal_free(sl_bpal *p);

/* Fail (SL_ERR_CORRUPT) unless a decoded index v of element i of array ai is below npal. */
int			sl_bpal_check(uint32_t v, uint32_t npal, size_t ai, int i, sl_err *err);

/* Local index + 1 of id in the current palette, 0 when absent. */
static inline uint32_t
sl_bpal_local(const sl_bpal *p, uint32_t id)
{
	if (p->ident)
		return id < p->ident ? id + 1 : 0;
	if (id >= p->nids || p->g2l_stamp[id] != p->stamp)
		return 0;
	return p->g2l[id];
}

/* Mix v into hash h (the models' context hashes). */
static inline uint64_t
sl_bmix(uint64_t h, uint64_t v)
{
	h = (h ^ v) * 0x9E3779B97F4A7C15ULL;
	return h ^ (h >> 29);
}

/* Free the descriptors. */
void		sl_bscan_free(sl_bscan *s);

#endif
