/*
 * sl_schem.h - box snapshots: Sponge schematics (and MCEdit .schematic)
 * out of and into the chunks of a value.
 *
 * Extract: the blocks and block entities of a box of a world (corners in
 * world block coordinates, inclusive, any order) as a gzip-compressed Sponge
 * schematic, version 3 (default) or 2. Blocks of chunks or sections the
 * value does not hold are minecraft:air. Pre-1.13 chunks are read through
 * the legacy id table (sl_legacy.c), so their blocks get flattened names.
 *
 * Paste: a Sponge schematic v1, v2 or v3 (or a Gaia .gaia file: the v2
 * layout without Version), or an MCEdit/Schematica .schematic (Materials =
 * Alpha; numeric ids mapped through the legacy table), written into the chunks it covers with its minimum corner at
 * (x, y, z): the block states of the sections it touches (palette rebuilt,
 * indices repacked as the chunk's DataVersion packs them: spanning longs
 * for 1451..2526, not from 2527 on; a one-entry 1.18+ palette drops its
 * data), its block entities (those of the chunk inside the box removed
 * first). Only what changes is written: a section whose block states all
 * stay keeps its bytes, a block entity list with the same entries (fields
 * in any order) is kept, and a chunk with neither changed is kept as the
 * value holds it (not re-encoded). A chunk where blocks change gets
 * isLightOn = 0 and loses its Heightmaps (and, with isLightOn, the light
 * arrays of its changed sections), so Minecraft relights it and recomputes
 * its heightmaps when it loads it; every other tag of the chunk, and every
 * chunk it does not touch, is kept byte for byte. Pre-1.13 chunks are not
 * written to (an error naming the chunk). A chunk the value lacks is an
 * error naming it, unless the schematic holds only air and no block entity
 * there (the box a missing chunk gave to an extract pastes back).
 *
 * A schematic whose block data is empty (0 bytes, as FastAsyncWorldEdit
 * writes an empty clipboard) is read as air everywhere, as WorldEdit does.
 *
 * Caps: a schematic's box holds at most lim->max_value_raw blocks (its
 * block data takes at least a byte per block), at most 65535 per axis; its
 * uncompressed NBT is at most lim->max_value_raw bytes.
 */
#ifndef SL_SCHEM_H
#define SL_SCHEM_H

#include "sl_build.h"
#include "sl_common.h"
#include "sl_nbt.h"
#include "sl_value.h"

#define SL_SCHEM_MAX_AXIS	65535	/* Width, Height, Length are unsigned shorts */
#define SL_SCHEM_GZIP_LEVEL	6	/* libdeflate level of written schematics */
#define SL_SCHEM_MAX_ID		(1u << 20)	/* largest Sponge palette index accepted */

/* Kinds of schematic read. */
enum
{
	SL_SCHEM_SPONGE = 1,		/* Sponge Schematic Specification, version 1..3 */
	SL_SCHEM_MCEDIT = 2			/* MCEdit / Schematica, Materials = Alpha */
};

/* A block state of a schematic's palette. */
typedef struct sl_schem_state
{
	const char *canon;			/* 'ns:name[k=v,...]', keys sorted, modified UTF-8 */
	uint32_t	canon_len;
	uint32_t	alias;			/* first palette entry with the same state */
	uint8_t		air;			/* minecraft:air, cave_air or void_air */
	sl_nbt	   *node;			/* chunk palette compound {Name, Properties} */
} sl_schem_state;

/* A block entity of a schematic. */
typedef struct sl_schem_be
{
	int32_t		x,
				y,
				z;				/* relative to the schematic's minimum corner */
	const char *id;				/* modified UTF-8 */
	uint16_t	id_len;
	const sl_nbt *fields;		/* compound whose children are its data */
	uint8_t		skip_pos;		/* fields also hold Pos/Id (Sponge v1, v2) */
} sl_schem_be;

/* A schematic read for pasting. */
typedef struct sl_schem
{
	int			kind;			/* SL_SCHEM_SPONGE or SL_SCHEM_MCEDIT */
	int			version;		/* Sponge version (1..3), 0 for MCEdit */
	int32_t		data_version;	/* SL_NO_DV when the file has none */
	uint32_t	width,
				height,
				length;
	uint64_t	volume;
	int32_t		offset[3];		/* Offset (Sponge) or WEOrigin (MCEdit), 0 when absent */
	uint8_t		empty;			/* no block data at all (0 bytes): air everywhere */
	/* palette: npalette entries, plus minecraft:air at air_index (added when absent) */
	uint32_t	npalette;
	sl_schem_state *palette;
	uint32_t	air_index;
	/* Sponge: varint block data */
	const uint8_t *varints;
	size_t		varints_len;
	uint32_t   *pal_of_id;		/* palette index -> state (alias) */
	uint32_t	nids;
	uint32_t   *marks;			/* byte offset of entry 16k */
	/* MCEdit: byte arrays */
	const uint8_t *blocks;
	const uint8_t *data;
	const uint8_t *add;
	uint32_t	nadd;
	uint32_t   *pal_of_key;		/* legacy key (id << 4 | data) -> state */
	/* block entities */
	uint32_t	nbe;
	sl_schem_be *be;
	/* storage */
	uint8_t    *nbt;			/* the uncompressed document */
	size_t		nbt_len;
	sl_arena	arena;
	void	   *map;			/* canonical state -> palette entry */
} sl_schem;

/*
 * Write a schematic (version 2 or 3) of the box (x1,y1,z1)-(x2,y2,z2) of a
 * value, appended to out (gzip NBT). Errors name the chunk and section.
 */
int			sl_schem_extract(sl_value *v, int32_t x1, int32_t y1, int32_t z1,
							 int32_t x2, int32_t y2, int32_t z2, int version,
							 const sl_limits *lim, sl_buf *out, sl_err *err);

/*
 * Read a schematic file (gzip, zlib or plain NBT) and check all of it:
 * dimensions, palette, every block index, block entity positions. Errors
 * name the field. Free with sl_schem_free (also after a failure).
 */
int			sl_schem_read(const uint8_t *file, size_t len, const sl_limits *lim,
						  sl_schem *s, sl_err *err);

void		sl_schem_free(sl_schem *s);

/*
 * Palette entries (after aliasing) of the n blocks starting at index i
 * (x + z*width + y*width*length) into out.
 */
int			sl_schem_run(const sl_schem *s, uint64_t i, uint32_t n, uint32_t *out,
						 sl_err *err);

/*
 * Paste a read schematic into a value with its minimum corner at (x, y, z):
 * every chunk of v goes into builder b, those whose blocks or block
 * entities change rewritten, the others as they are (SL_ADD_KEEP), with
 * the world data.
 */
int			sl_schem_paste(sl_value *v, const sl_schem *s, int32_t x, int32_t y,
						   int32_t z, const sl_limits *lim, sl_builder *b, sl_err *err);

/* ---- building blocks, exposed for tests ---- */

/* Append v as a varint (7 bits per byte, low group first); returns bytes written (1..5). */
size_t		sl_varint_put(uint8_t *p, uint32_t v);

/*
 * Read a varint at *pos of buf[0..len): at most 5 bytes, a value below
 * 2^31. 0 on success (pos advanced), -1 when truncated or too long.
 */
int			sl_varint_get(const uint8_t *buf, size_t len, size_t *pos, uint32_t *v);

/* Pack n indices (each below 2^bits, bits 1..32) into big-endian longs at out. */
void		sl_pack_indices(const uint32_t *idx, uint32_t n, int bits, int spanning,
							uint8_t *out);

/* Unpack n indices of bits each from big-endian longs (as many as sl_packed_longs says). */
void		sl_unpack_indices(const uint8_t *longs, uint32_t n, int bits, int spanning,
							  uint32_t *out);

/*
 * Canonical form of a block state string ('name[k=v,...]', modified
 * UTF-8): namespace added when missing ("stone" -> "minecraft:stone"),
 * properties sorted by key (the last of equal keys wins). Fails with
 * SL_ERR_FORMAT when it is not a block state.
 */
int			sl_state_canonical(const char *s, size_t len, sl_buf *out, sl_err *err);

#endif
