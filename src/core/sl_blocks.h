/*
 * sl_blocks.h - blocks and biomes of a chunk's NBT, in every layout the
 * importer reads.
 *
 * Layouts (data/README.md tells where the id tables come from):
 * - McRegion: Level.Blocks byte[32768] + Level.Data byte[16384] of nibbles,
 *   index y + z*128 + x*2048, 128 blocks high; no biomes.
 * - Anvil before 1.13: Level.Sections[] {Y 0..15, Blocks byte[4096], Add
 *   byte[2048] of nibbles (optional), Data byte[2048] of nibbles}, index
 *   y*256 + z*16 + x, low nibble first; Level.Biomes byte[256] of numeric ids.
 * - 1.13-1.17: Level.Sections[] {Y, Palette [{Name, Properties}], BlockStates
 *   long[]}, bits = max(4, ceil(log2(palette))) (a palette of one still has
 *   256 longs), entries spanning longs before DataVersion 2527 and not from
 *   2527 on; Level.Biomes int[256] (1.13-1.14) or int[16*n] of 4x4x4 cells
 *   (1.15-1.17). Sections without both Palette and BlockStates hold no blocks.
 * - 1.18+: sections[] {Y, block_states {palette, data long[]}, biomes
 *   {palette [string], data long[]}}; data is absent (and ignored, as
 *   Minecraft does) when the palette has one entry; block bits =
 *   max(4, ceil(log2(n))), biome bits = ceil(log2(n)), never spanning.
 *
 * Numeric ids get names from tables generated from data/legacy_blocks.tsv
 * and data/legacy_biomes.tsv (sl_legacy.c); unknown ones are named
 * minecraft:legacy_<id>_<data> and minecraft:legacy_biome_<id>.
 *
 * Block states are written 'minecraft:name[key=value,...]' with properties
 * sorted by key, in UTF-8. Errors name the section ("section Y=3: ...").
 */
#ifndef SL_BLOCKS_H
#define SL_BLOCKS_H

#include "sl_common.h"
#include "sl_nbt.h"

#define SL_SECTION_VOLUME	4096	/* blocks in a 16x16x16 section */
#define SL_LEGACY_KEYS		65536	/* legacy state keys: id (0..4095) << 4 | data */
#define SL_MAX_PALETTE		4096	/* longest palette accepted */
#define SL_DV_ALIGNED		2527	/* first DataVersion with non-spanning BlockStates */

/* Where a chunk keeps its blocks. */
typedef enum sl_layout
{
	SL_LAYOUT_NONE = 0,			/* no block data (proto chunk, empty Sections) */
	SL_LAYOUT_MCREGION,			/* Level.Blocks / Level.Data */
	SL_LAYOUT_ANVIL,			/* Level.Sections[] Blocks / Add / Data */
	SL_LAYOUT_FLAT,				/* Level.Sections[] Palette / BlockStates */
	SL_LAYOUT_MODERN			/* sections[] block_states / biomes */
} sl_layout;

/* Where a chunk keeps its biomes. */
typedef enum sl_biome_layout
{
	SL_BIOMES_NONE = 0,
	SL_BIOMES_BYTE_2D,			/* Level.Biomes byte[256], index z*16 + x */
	SL_BIOMES_INT_2D,			/* Level.Biomes int[256] */
	SL_BIOMES_INT_3D,			/* Level.Biomes int[16*n], 4x4x4 cells */
	SL_BIOMES_PALETTE			/* per-section biome palettes (1.18+) */
} sl_biome_layout;

/* Kinds of section. */
enum
{
	SL_SEC_MCREGION = 1,		/* 16 layers of the McRegion arrays */
	SL_SEC_LEGACY,				/* Blocks / Add / Data */
	SL_SEC_PALETTE				/* palette + packed indices */
};

/* One 16x16x16 section; array pointers point into the chunk NBT. */
typedef struct sl_section
{
	int			y;				/* section Y: blocks y*16 .. y*16+15 */
	uint8_t		kind;			/* SL_SEC_*, 0 when it has only biomes */
	uint8_t		bits;			/* SL_SEC_PALETTE: bits per index, 0 no data */
	uint8_t		spanning;		/* SL_SEC_PALETTE: entries may span longs */
	uint8_t		biome_bits;		/* bits per biome index, 0 no data */
	/* SL_SEC_MCREGION and SL_SEC_LEGACY */
	const uint8_t *blocks;		/* block ids (McRegion: whole chunk) */
	const uint8_t *add;			/* high id nibbles or NULL */
	const uint8_t *data;		/* data nibbles */
	/* SL_SEC_PALETTE */
	uint32_t	npalette;
	sl_nbt	  **palette;		/* compounds {Name, Properties} */
	const uint8_t *states;		/* big-endian longs, NULL: all index 0 */
	uint32_t	nstates;		/* longs */
	/* SL_BIOMES_PALETTE */
	uint32_t	nbiomes;		/* biome palette entries, 0 none */
	sl_nbt	  **biomes;			/* string tags */
	const uint8_t *biome_states;	/* big-endian longs, NULL: all index 0 */
	uint32_t	nbiome_states;
	/* sections found by sl_chunk_blocks_scan: what sl_section_load parses */
	const uint8_t *raw;			/* 1.18+: the block_states payload; else the section's */
	uint32_t	raw_len;
	uint8_t		raw_type;		/* its tag type */
	uint8_t		pending;		/* not opened yet (kind is 0 until then) */
} sl_section;

/* A chunk opened for block and biome queries. */
typedef struct sl_chunk_blocks
{
	int32_t		data_version;	/* given, else the root's, else SL_NO_DV */
	sl_layout	layout;
	int			nsections;
	sl_section *sections;		/* ascending Y, no two alike */
	sl_biome_layout biome_layout;
	const uint8_t *biome_array;	/* Level.Biomes payload (big-endian) */
	uint32_t	nbiome_array;	/* its elements */
	sl_arena   *arena;			/* tree and scratch memory */
	/* sl_chunk_blocks_scan: what opening a section later needs */
	const sl_limits *lim;
	size_t		tree_left;		/* arena bytes the sections' trees may still take */
} sl_chunk_blocks;

/* What sl_chunk_blocks_open checks; the rest is not looked at. */
#define SL_WANT_BLOCKS	1
#define SL_WANT_BIOMES	2

/*
 * Parse chunk NBT into arena and find its sections and biomes (want: a mix
 * of SL_WANT_*). data_version may be SL_NO_DV; the root's DataVersion is
 * then used. Every array length, palette and section Y is checked here;
 * palette indices are checked when read. A chunk without block data is
 * SL_LAYOUT_NONE, not an error.
 */
int			sl_chunk_blocks_open(const uint8_t *nbt, size_t len, int32_t data_version,
								 int want, const sl_limits *lim, sl_arena *arena,
								 sl_chunk_blocks *out, sl_err *err);

/* The same from an already parsed root compound (kept alive by the caller). */
int			sl_chunk_blocks_from_tree(const sl_nbt *root, int32_t data_version,
									  int want, sl_arena *arena,
									  sl_chunk_blocks *out, sl_err *err);

/*
 * Open section list item s (index i) into sec, as sl_chunk_blocks_open does
 * each: *use is false for one without what want asks for; *layout is the
 * layout of the sections so far (a different one is SL_ERR_FORMAT).
 */
int			sl_section_open(const sl_chunk_blocks *c, const sl_nbt *s, uint32_t i, int want,
							sl_layout *layout, sl_section *sec, int *use, sl_err *err);

/* Fill sec's blocks from a 1.18+ section's block_states tag, checked (no prefix on errors). */
int			sl_section_open_modern(const sl_nbt *block_states, sl_section *sec, sl_err *err);

/* SL_ERR_LIMIT when an opened section's palettes exceed lim->max_palette. */
int			sl_section_check_cap(const sl_section *sec, const sl_limits *lim, sl_err *err);

/*
 * Blocks of a chunk without its tree (sl_bscan.c), for readers that reach
 * few sections (a top-down map): the same as sl_chunk_blocks_open with
 * SL_WANT_BLOCKS, except that each section is opened (its tree built and
 * its palette and data checked) only when sl_section_load asks for it. The
 * whole document is still checked to be well formed, and the sections' Y,
 * layouts and order as sl_chunk_blocks_open checks them, with the same
 * errors; a malformed section that is never loaded is not reported.
 */
int			sl_chunk_blocks_scan(const uint8_t *nbt, size_t len, int32_t data_version,
								 const sl_limits *lim, sl_arena *arena,
								 sl_chunk_blocks *out, sl_err *err);

/* Open section i of a scanned chunk if it is not open yet (errors name it). */
int			sl_section_load(sl_chunk_blocks *c, int i, sl_err *err);

/* Entries a section has that tell its layout, as sl_layout_of_names reads them. */
#define SL_SECTION_HAS_BLOCK_STATES	1	/* "block_states" */
#define SL_SECTION_HAS_BLOCKS		2	/* "Blocks" */
#define SL_SECTION_HAS_PALETTE		4	/* "Palette" */
#define SL_SECTION_HAS_BLOCKSTATES	8	/* "BlockStates" */

/* The SL_SECTION_HAS_* bit of an entry named name[0..len) of a section (0: none). */
int			sl_section_name_bit(const char *name, size_t len);

/* The layout a section with these SL_SECTION_HAS_* entries is of (NONE: no blocks). */
sl_layout	sl_layout_of_names(int names);

/* Short name of a layout: "none", "mcregion", "anvil", "flattened", "modern". */
const char *sl_layout_name(sl_layout layout);

/*
 * Count the blocks of section i. SL_SEC_PALETTE: adds to counts[0..npalette)
 * (palette indices); legacy kinds: adds to counts[0..SL_LEGACY_KEYS) (keys
 * id << 4 | data). An index past the palette is SL_ERR_FORMAT.
 */
int			sl_section_count(const sl_chunk_blocks *c, int i, uint32_t *counts,
							 sl_err *err);

/*
 * The key of block (x, y, z) of section i (all 0..15): a palette index or a
 * legacy key. An index past the palette is SL_ERR_FORMAT.
 */
int			sl_section_key(const sl_chunk_blocks *c, int i, int x, int y, int z,
						   uint32_t *key, sl_err *err);

/* Append the state string of palette entry idx of section i to out. */
int			sl_section_state_name(const sl_chunk_blocks *c, int i, uint32_t idx,
								  sl_buf *out, sl_err *err);

/*
 * Append the block at chunk-local x, z (0..15) and world y to out. Returns
 * 1 when found, 0 when no section holds y (out unchanged), -1 on error.
 */
int			sl_chunk_block_at(const sl_chunk_blocks *c, int x, int y, int z,
							  sl_buf *out, sl_err *err);

/*
 * Called once per distinct block state (or biome) of a chunk with how many
 * it holds. name is UTF-8, not NUL-terminated; name[0..base_len) is the name
 * without properties. fallback: the name is minecraft:legacy_... for an
 * unknown numeric id. Return nonzero (with err set) to stop.
 */
typedef int (*sl_count_fn) (void *ctx, const char *name, size_t len, size_t base_len,
							uint64_t count, int fallback, sl_err *err);

/*
 * Count every block of the stored sections (air included; sections the chunk
 * does not store are not counted) and report each distinct state once.
 */
int			sl_chunk_count_blocks(const sl_chunk_blocks *c, sl_count_fn fn, void *ctx,
								  sl_err *err);

/*
 * Count biome entries and report each distinct biome once: columns for the
 * 2D layouts, 4x4x4 cells for the others.
 */
int			sl_chunk_count_biomes(const sl_chunk_blocks *c, sl_count_fn fn, void *ctx,
								  sl_err *err);

/*
 * Packed index arrays (big-endian longs): how many longs entries indices of
 * bits each take, spanning longs (before DataVersion 2527) or not; and index
 * i of such an array whose length the caller has checked.
 */
uint32_t	sl_packed_longs(uint32_t entries, int bits, int spanning);
uint32_t	sl_packed_get(const uint8_t *longs, int bits, int spanning, uint32_t i);

/* Smallest b with 2^b >= n (0 for n <= 1): the bits of a palette of n entries, before a minimum. */
int			sl_ceil_log2(uint32_t n);

/* Flattened name of pre-1.13 block (id, data), or NULL when unknown. */
const char *sl_legacy_block_name(int id, int data);

/* Name of a numeric biome id (1.17 names), or NULL when unknown. */
const char *sl_legacy_biome_name(int64_t id);

/* Append the name of legacy key (id << 4 | data), or its fallback name; *fallback tells which. */
int			sl_legacy_state_name(uint32_t key, sl_buf *out, int *fallback, sl_err *err);

/* Append the name of a numeric biome id, or its fallback name. */
int			sl_legacy_biome_append(int64_t id, sl_buf *out, int *fallback, sl_err *err);

#endif
