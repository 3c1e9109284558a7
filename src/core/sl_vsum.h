/*
 * sl_vsum.h - a value's contents summary: what its chunks hold, counted once
 * when the value is written, so that block, biome, block entity and entity
 * totals and "which worlds hold X" read a few hundred bytes of metadata
 * instead of decoding every chunk (doc/format.md, "Contents summary").
 *
 * A summary is four count tables (block states by name, biomes, block
 * entities by id, entities by id) and, per table, how many chunks could not
 * be counted for it. Counting is what the block functions and the entity
 * functions count when they decode, under the default caps
 * (sl_default_limits), so that the same chunks always give the same summary:
 * - blocks: every block of the stored sections of the region document (air
 *   included), by name without properties, "minecraft:" added to a name
 *   without a namespace (sl_chunk_count_blocks);
 * - biomes: columns of the 2D arrays of old chunks, 4x4x4 cells of 1.15+
 *   ones, named as blocks are (sl_chunk_count_biomes);
 * - block entities: the region document's block_entities / TileEntities,
 *   by id as written (UTF-8); one without a string id is not counted;
 * - entities: the region document's Level.Entities and the entities
 *   document's Entities, by id as written; likewise.
 * A chunk whose part cannot be counted (block data that does not fit its
 * palette, NBT over the default caps) adds nothing to that table and one to
 * its failed count; a reader finding failed > 0 decodes instead, and reports
 * what decoding reports.
 */
#ifndef SL_VSUM_H
#define SL_VSUM_H

#include "sl_common.h"
#include "sl_counts.h"
#include "sl_nbt.h"
#include "sl_value.h"

/* The tables of a summary, in their order in its bytes. */
enum
{
	SL_SUM_BLOCKS = 0,
	SL_SUM_BIOMES = 1,
	SL_SUM_BLOCK_ENTITIES = 2,
	SL_SUM_ENTITIES = 3,
	SL_SUM_KINDS = 4
};

#define SL_VSUM_VERSION		1		/* the first byte of a summary's raw bytes */
#define SL_VSUM_MAX_NAME	(1 << 17)	/* longest name a summary holds */
#define SL_VSUM_MAX_COUNT	((uint64_t) 1 << 62)	/* largest count */

typedef struct sl_vsum
{
	sl_counts	c[SL_SUM_KINDS];
	uint64_t	failed[SL_SUM_KINDS];	/* chunks not counted for that table */
} sl_vsum;

/*
 * The counting callback of the block functions (sl_count_fn): a block state
 * or biome tallied under its name without properties, "minecraft:" added to
 * a name without a namespace (ctx: an sl_counts).
 */
int			sl_vsum_tally(void *ctx, const char *name, size_t len, size_t base_len,
						  uint64_t count, int fallback, sl_err *err);

/* Add to m the ids (as UTF-8) of a list of compounds (block entities, entities); those without one are skipped. */
int			sl_count_ids(const sl_nbt *list, sl_counts *m, sl_err *err);

/*
 * Count one chunk (its documents comp[] of lengths len[], its DataVersion
 * dv as the directory holds it) and add it to s with sign +1, or take it
 * away with -1 (SL_ERR_CORRUPT when s does not hold it: a summary that does
 * not match its chunks).
 */
int			sl_vsum_chunk(sl_vsum *s, int32_t dv, const uint8_t *const comp[SL_NCOMP],
						  const uint32_t len[SL_NCOMP], int sign, sl_err *err);

/* Add src to dst (sign +1) or take it away (-1, SL_ERR_CORRUPT when dst does not hold it). */
int			sl_vsum_add(sl_vsum *dst, const sl_vsum *src, int sign, sl_err *err);

/* Append the canonical raw bytes of s (tables sorted by name, zero counts left out). */
int			sl_vsum_encode(const sl_vsum *s, sl_buf *out, sl_err *err);

/*
 * Add the summary whose raw bytes are p[0..len) to s, checking them
 * (canonical order and front coding, counts 1..2^62, nothing left over):
 * SL_ERR_CORRUPT naming the table and entry.
 */
int			sl_vsum_decode(const uint8_t *p, size_t len, sl_vsum *s, sl_err *err);

/*
 * Add table kind of the summary whose raw bytes are p[0..len) to m (tables
 * before it checked, those after it not read), unless *failed, set to its
 * failed count, is not 0: then m is left as it was.
 */
int			sl_vsum_decode_table(const uint8_t *p, size_t len, int kind, sl_counts *m,
								 uint64_t *failed, sl_err *err);

/* Whether two summaries hold the same counts. */
int			sl_vsum_equal(const sl_vsum *a, const sl_vsum *b, sl_err *err);

void		sl_vsum_free(sl_vsum *s);

/* The name of a table ("blocks", "biomes", "block entities", "entities"). */
const char *sl_vsum_kind_name(int kind);

/* ---- summaries of values (sl_value.c reads the section, sl_venc.c writes it) ---- */

/* Whether a value carries a summary (format version 3, flag bit 4). */
int			sl_value_has_summary(const sl_value *v);

/*
 * Add an open value's summary to s: the section decompressed and checked,
 * every failed count at most the value's chunk count.
 */
int			sl_value_read_summary(sl_value *v, sl_vsum *s, sl_err *err);

/*
 * The raw bytes of an open value's summary (*raw; *tmp, to be freed with
 * sl_free, when they were decompressed) and their length.
 */
int			sl_value_summary_raw(sl_value *v, const uint8_t **raw, size_t *len, uint8_t **tmp,
								 sl_err *err);

/* Add every chunk of an open value, decoded (references through its resolver), to s. */
int			sl_value_count_summary(sl_value *v, sl_vsum *s, sl_err *err);

/*
 * Check a value's summary against its chunks (counted again): SL_ERR_CORRUPT
 * when they differ, naming the table. A value without one passes.
 */
int			sl_value_check_summary(sl_value *v, sl_err *err);

#endif
