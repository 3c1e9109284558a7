/*
 * sl_bmodel.h - context models of the block codec: the arrays found by
 * sl_bsplit, coded one after another with one range coder (sl_rc.h).
 *
 * Block arrays (1.18+ block_states.data, 1.13-1.17 BlockStates, legacy
 * Blocks) are coded block by block: first "is it the block this context
 * (below, west, north) last held / the one below / west / north?", then,
 * on a miss, the index itself with a bit tree. Palette entries are known
 * to both sides (the decoder has the structure stream), so contexts use
 * ids shared by every palette of the input. A packed array the model does
 * not predict exactly (padding bits, indices past the palette, an odd
 * length) is coded as raw bytes instead, behind one flag bit. Nibble arrays
 * (light, Data, Add) are coded nibble by nibble with their neighbours and
 * the block id at the same place as context.
 *
 * Version 2 (the fast block codec) codes each array in groups first: a
 * 16x16 layer (a 128-block column of a tall array) and each 16-element row
 * of it take one bit "all equal to their reference" (the layer below; for
 * the lowest layer the top layer of the previous array of the same kind in
 * the document), and only the elements of rows that differ are coded one by
 * one as in version 1. Most of a world repeats the layer below (air, stone,
 * full sky light, no block light), so most elements cost a fraction of a bit
 * and no work.
 */
#ifndef SL_BMODEL_H
#define SL_BMODEL_H

#include "sl_bsplit.h"
#include "sl_rc.h"

/*
 * Code the payloads of s->a[0..s->n) with rc, with the models of version
 * (1 or 2) (encoding or decoding, as rc
 * was started): payload[i] holds array i's bytes (count * esize); the
 * decoder writes them there, the encoder only reads them. raw_len sizes the
 * context tables. Decoding errors are SL_ERR_CORRUPT naming the array.
 */
int			sl_bmodel_code(sl_rc *rc, const sl_bscan *s, uint8_t *const *payload,
						   size_t raw_len, int version, sl_err *err);

#endif
