/*
 * sl_schem_int.h - what the schematic files (sl_schem.c, sl_schem_extract.c,
 * sl_schem_read.c, sl_schem_paste.c) share; not part of the core's API.
 */
#ifndef SL_SCHEM_INT_H
#define SL_SCHEM_INT_H

#include "sl_nbt.h"
#include "sl_schem.h"

#define NO_INDEX			UINT32_MAX

/* Floor division by 16. */
static inline int32_t
floor16(int64_t v)
{
	return (int32_t) (v >= 0 ? v / 16 : -((-v + 15) / 16));
}

/* ---- tags ---- */

/* Does a tag carry this (ASCII) name? */
int			sl_schem_named(const sl_nbt *t, const char *name);

/* Value of an int-like tag; false when absent or of another type. */
int			sl_schem_int_tag(const sl_nbt *t, int64_t *v);

/* Name of a tag's type ("?" when unknown). */
const char *sl_schem_type_name(const sl_nbt *t);

/* ---- a map from strings to dense ids ---- */

typedef struct strmap
{
	uint32_t   *slots;			/* entry + 1, 0 = empty */
	uint32_t	cap;			/* slots, a power of two */
	uint32_t	n;				/* entries */
	uint32_t	ecap;
	uint64_t   *off;			/* key offset in keys */
	uint32_t   *len;
	uint32_t   *hash;
	sl_buf		keys;
} strmap;

/* Key i of the map and its length. */
const char *sl_schem_strmap_key(const strmap *m, uint32_t i, uint32_t *len);

/* Entry of a key, or NO_INDEX. */
uint32_t	sl_schem_strmap_find(const strmap *m, const char *s, size_t len);

/* Entry of a key, added when new. */
int			sl_schem_strmap_add(strmap *m, const char *s, size_t len, uint32_t *idx, sl_err *err);

/* Free a map's memory. */
void		sl_schem_strmap_free(strmap *m);

/* ---- block states ---- */

/* Canonical state of a chunk palette entry {Name, Properties} (checked by sl_blocks). */
int			sl_schem_canon_entry(const sl_nbt *entry, sl_buf *out, sl_err *err);

/* ---- tree nodes (in an arena, names and strings not copied) ---- */

/* A tag of this type and name, zeroed. */
sl_nbt	   *sl_schem_mk(sl_arena *a, uint8_t type, const char *name, sl_err *err);

/* A string tag. */
sl_nbt	   *sl_schem_mk_string(sl_arena *a, const char *name, const char *s, size_t len, sl_err *err);

/* A compound of n children. */
sl_nbt	   *sl_schem_mk_compound(sl_arena *a, const char *name, sl_nbt **items, uint32_t n,
								 sl_err *err);

#endif
