/*
 * sl_btok.h - the arrays of a block codec version 3 or 4 stream (sl_bcodec):
 * copy and literal tokens with adaptive binary models (sl_rc.h).
 *
 * Each array found by sl_bsplit is rewritten as tokens over its elements
 * in storage order: "copy the next L elements from the one below, west or
 * north" (below the lowest layer of a 16^3 array: the top layer of the
 * previous array of its kind in the document), or one literal block. A
 * literal is first checked against the block its neighbours' context held
 * at the last literal there (one bit); otherwise its palette index follows
 * through a bit tree. Nibble arrays (light, Data, Add) are tokens over
 * their bytes, a literal token carrying a run of bytes. A token costs a
 * few adaptive bits (its kind after the previous kind, its count as an
 * Elias gamma code), and decoding a copy is a loop with no decision per
 * element: most of a world is a few long copies per 16^3 section.
 */
#ifndef SL_BTOK_H
#define SL_BTOK_H

#include "sl_bsplit.h"
#include "sl_rc.h"

/*
 * Code the payloads of s->a[0..s->n) with rc as a stream of version 3 or 4
 * (sl_bcodec.h), encoding or decoding as rc was started: payload[i] holds array i's bytes (count * esize); the decoder
 * writes them there, the encoder only reads them. Decoding errors are
 * SL_ERR_CORRUPT naming the array and element.
 */
int			sl_btok_code(sl_rc *rc, const sl_bscan *s, uint8_t *const *payload, int version,
						 sl_err *err);

#endif
