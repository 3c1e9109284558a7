/*
 * sl_slimefile.h - slime files (the Slime Region Format of Hypixel, SWM and
 * AdvancedSlimePaper) in and out.
 *
 * Reading turns every file version (1..13) into vanilla Anvil chunk NBT
 * documents gathered in a builder (a region document per chunk, an
 * entities/ document for 1.17+ worlds with entities, a POI document when a
 * version-13 file carries POI) and a world compound that keeps what the
 * file holds besides chunks (the "extra" compound, world maps, the format
 * version, ...) under the key "slime". Writing produces version 13, as
 * AdvancedSlimePaper reads it, from a value of 1.18+ chunks. The mapping
 * and what a slime file cannot carry are described in doc/format.md,
 * section "Slime files"; where the format's documents and the reference
 * implementation disagree, the implementation's bytes are followed.
 *
 * All integers of a slime file are big-endian; its zstd frames carry no
 * checksum and are decompressed into exactly the size the file declares,
 * which is capped by sl_limits before anything is allocated.
 */
#ifndef SL_SLIMEFILE_H
#define SL_SLIMEFILE_H

#include "sl_common.h"
#include "sl_build.h"
#include "sl_lmemo.h"
#include "sl_sfframes.h"
#include "sl_value.h"

#define SL_SLIMEFILE_VERSION_MAX	13	/* newest version read */
#define SL_SLIMEFILE_WRITE_VERSION	13	/* the version written */
#define SL_SLIMEFILE_LIGHT			2048	/* bytes of a light nibble array */

/* Version 13 world flags, as AdvancedSlimePaper's enum ordinals give them. */
#define SL_SLIMEFILE_POI			0x01
#define SL_SLIMEFILE_BLOCK_TICKS	0x02
#define SL_SLIMEFILE_FLUID_TICKS	0x04
#define SL_SLIMEFILE_KNOWN_FLAGS	0x07

/* First DataVersion whose chunks have the 1.18 layout (no Level wrapper). */
#define SL_DV_LAYOUT_118			2844
/* First DataVersion that keeps entities in entities/ documents (1.17). */
#define SL_DV_ENTITY_FILES			2681

/* What a read found (and what a write wrote). */
typedef struct sl_slimefile_info
{
	int			version;		/* file format version */
	int			world_version;	/* v4-v9 world version byte (v4/v5: 1 or 4), else -1 */
	int32_t		data_version;	/* DataVersion given to chunks, SL_NO_DV none */
	int			flags;			/* v13 world flags, else 0 */
	uint32_t	chunks;
	uint64_t	block_entities;
	uint64_t	entities;		/* in chunks */
	uint64_t	orphan_entities;	/* entities of chunks the file lacks (kept in the world compound) */
	uint32_t	poi_chunks;
	uint32_t	repeated_chunks;	/* v10-v12: byte-identical repeats after the counted chunks, skipped */
} sl_slimefile_info;

/*
 * Read a slime file of any version into the builder: one region document
 * per chunk (timestamp 0), entities and POI documents where the file has
 * them, and the world compound. Errors name the field and its byte offset
 * (in the file, or in a decompressed block of the file, and the chunk).
 * info may be NULL.
 */
int			sl_slimefile_read(const uint8_t *file, size_t len, const sl_limits *lim,
							  sl_builder *b, sl_slimefile_info *info, sl_err *err);

/*
 * Read a slime file like sl_slimefile_read, for a world loader: a version
 * 11-13 chunk record that memo (may be NULL) knows in the file's context,
 * byte for byte, is added to the builder as a reference to the store entry
 * it became instead of being read again; every record read is noted in out
 * (its context set; converted records not yet known, see
 * sl_lmemo_store_chunks). Files of other versions are read as
 * sl_slimefile_read reads them and leave out empty. chunk_block (may be
 * NULL) receives a version-13 file's decompressed chunk block, whose
 * records out notes in order (a loader's framed form, sl_sfframes.h).
 */
int			sl_slimefile_read_memo(const uint8_t *file, size_t len, const sl_limits *lim,
								   sl_builder *b, sl_slimefile_info *info,
								   const sl_lmemo *memo, sl_lmemo *out, sl_buf *chunk_block,
								   sl_err *err);

/*
 * sl_slimefile_read_memo, for a version-13 file whose chunk block is the n
 * frames of a loader's framed form (sl_sfframes.h: their compressed and raw
 * lengths and keys, back to back), without a chunk_block: a frame whose
 * key is that of a record the memo knows converted (the XXH3-128 of its
 * raw bytes, the same length) is that record, added as a reference to its
 * store entry with its frame left compressed; the other frames are
 * decompressed and their records read as sl_slimefile_read_memo reads
 * them. A catch-up converts a pending save so at the cost of the chunks
 * that changed. A record that runs into a frame taken unread is an error.
 */
int			sl_slimefile_read_frames(const uint8_t *file, size_t len, const sl_limits *lim,
									 sl_builder *b, sl_slimefile_info *info,
									 const sl_lmemo *memo, sl_lmemo *out,
									 const sl_sffr_frame *frames, uint32_t nframes, sl_err *err);

/*
 * Write an open value as a version-13 slime file appended to out, its two
 * zstd frames at the given level (0: SL_DEFAULT_LEVEL). A world the format
 * cannot express (chunks before the 1.18 layout, mixed DataVersions, a
 * section outside the section range, ...) is SL_ERR_UNSUPPORTED naming the
 * chunk; malformed stored NBT is SL_ERR_CORRUPT. info may be NULL.
 */
int			sl_slimefile_write(sl_value *v, int level, const sl_limits *lim,
							   sl_buf *out, sl_slimefile_info *info, sl_err *err);

/* DataVersion AdvancedSlimePaper gives a v6-v9 world version byte (1..8), else SL_NO_DV. */
int32_t		sl_slimefile_world_dv(int world_version);

/* Append "u32be compressed, u32be raw, zstd frame" of raw at level: a version-13 file's block. */
int			sl_sf_put_zblock(sl_buf *out, const uint8_t *raw, size_t len, int level, sl_err *err);

#endif
