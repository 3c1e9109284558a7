/*
 * sl_chunk.h - where chunk NBT keeps things, across Minecraft's layouts:
 * the Level wrapper (McRegion and Anvil up to 1.17) or the root (1.18+),
 * and the entities/ files (1.17+).
 */
#ifndef SL_CHUNK_H
#define SL_CHUNK_H

#include "sl_common.h"
#include "sl_nbt.h"

/* The compound holding a chunk's data: root.Level when present, else root. */
const sl_nbt *sl_chunk_body(const sl_nbt *root);

/* A chunk's block entities (TileEntities or block_entities list), or NULL. */
const sl_nbt *sl_chunk_block_entities(const sl_nbt *root);

/* Entities of a chunk (Level.Entities) or of an entities/ document (Entities), or NULL. */
const sl_nbt *sl_chunk_entities(const sl_nbt *root);

/* An int-like tag's value (byte, short, int, long); 0 and false when absent. */
int			sl_nbt_get_int(const sl_nbt *compound, const char *name, int64_t *out);

/* A string tag's bytes (modified UTF-8, not NUL-terminated), or NULL. */
const char *sl_nbt_get_string(const sl_nbt *compound, const char *name, uint16_t *len);

/* Element i of a list of doubles (Pos), false when absent or of another type. */
int			sl_nbt_list_double(const sl_nbt *list, uint32_t i, double *out);

/*
 * An entity's UUID as 16 bytes: the int[4] UUID tag (1.16+) or the
 * UUIDMost/UUIDLeast longs (earlier). False when it has none.
 */
int			sl_entity_uuid(const sl_nbt *entity, uint8_t out[16]);

/* Write a tag (named or a list item) as a document with an empty root name. */
int			sl_nbt_write_as_root(const sl_nbt *node, sl_buf *out, sl_err *err);

#endif
