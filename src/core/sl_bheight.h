/*
 * sl_bheight.h - the heightmaps of a block codec version 5 stream
 * (sl_bcodec): a chunk's 16x16 grids of heights, cut out of the structure
 * (sl_bsplit: "HeightMap" byte[256] or int[256], and the long[36] or
 * long[37] of 9-bit heights under "Heightmaps") and range-coded.
 *
 * A heightmap is coded against a reference: none, or one of the (up to 7)
 * heightmaps coded just before it, in its chunk or the one before (the
 * encoder picks the one it differs least from; MOTION_BLOCKING and
 * WORLD_SURFACE are nearly equal, neighbouring chunks alike). The differences from the reference are predicted from
 * their west, north and north-west neighbours (LOCO-I's median predictor)
 * and the residual is a zero bit, a sign and an Elias gamma code, each bit
 * adaptive under the neighbours' gradient. The bits of a long[37] that the
 * heights leave unused follow (one bit when all are 0: some writers leave
 * stray bits there). An int[] heightmap with a height outside 0..1023 is
 * coded as bytes with an order-1 model instead (sl_btok).
 */
#ifndef SL_BHEIGHT_H
#define SL_BHEIGHT_H

#include "sl_bsplit.h"
#include "sl_rc.h"

#define SL_BHEIGHT_REFS 7		/* heightmaps coded before that a heightmap may refer to */
#define SL_BHEIGHT_CTX	24		/* residual contexts: gradient class x has a reference */
#define SL_BHEIGHT_NB	11		/* bit lengths of a residual's magnitude (below 2^11) */

/* Adaptive cells and the references of one input. */
typedef struct sl_bheight
{
	uint32_t	mode;			/* a heightmap is modelled (not raw bytes) */
	uint32_t	ref[SL_BHEIGHT_REFS + 1][8];	/* the reference's number, by references there are */
	uint32_t	zero[SL_BHEIGHT_CTX];	/* the residual is 0 */
	uint32_t	sign[SL_BHEIGHT_CTX];
	uint32_t	nb[SL_BHEIGHT_CTX][SL_BHEIGHT_NB];	/* unary bit length of the magnitude */
	uint32_t	mant[SL_BHEIGHT_NB][SL_BHEIGHT_NB];	/* bit length, bit */
	uint32_t	pad[3];			/* a long[37]'s unused bits: any set, a long's top bit, the last's */
	int16_t		prev[SL_BHEIGHT_REFS][256];	/* heightmaps coded before, newest first */
	int			nprev;
} sl_bheight;

/* Set every cell of h to a fresh probability and forget the references. */
void		sl_bheight_init(sl_bheight *h);

/*
 * Code heightmap array a (index ai, payload p) with rc: encoding reads p,
 * decoding writes it. 1 when the array is flagged raw (the caller codes its
 * bytes), 0 when coded, -1 on error (SL_ERR_CORRUPT naming the array and element).
 */
int			sl_bheight_code(sl_bheight *h, sl_rc *rc, const sl_barray *a, size_t ai, uint8_t *p,
							sl_err *err);

#endif
