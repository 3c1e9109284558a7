/*
 * sl_region.h - Anvil (.mca) and McRegion (.mcr) region files.
 *
 * A region holds up to 32x32 chunks. Header: 1024 big-endian u32 locations
 * (sector offset << 8 | sector count) then 1024 u32 timestamps; sectors are
 * 4096 bytes. A chunk payload is u32 length (counting the type byte), u8
 * compression type (1 gzip, 2 zlib, 3 none, 4 LZ4 lz4-java framing, +128:
 * payload lives in c.<x>.<z>.mcc), then the compressed NBT.
 */
#ifndef SL_REGION_H
#define SL_REGION_H

#include "sl_common.h"

#define SL_REGION_SLOTS 1024
#define SL_SECTOR 4096

/* An external chunk file c.<x>.<z>.mcc (absolute chunk coordinates). */
typedef struct sl_external
{
	int32_t		x;
	int32_t		z;
	const uint8_t *data;
	size_t		len;
} sl_external;

/* One chunk read from, or to be written to, a region file. */
typedef struct sl_region_chunk
{
	int32_t		x;				/* absolute chunk coordinates */
	int32_t		z;
	uint32_t	timestamp;		/* header's last-modified seconds */
	uint8_t		compression;	/* type as found, external flag included */
	uint8_t    *nbt;			/* decompressed, checked NBT; sl_alloc'd */
	size_t		nbt_len;		/* exactly the root tag's extent */
} sl_region_chunk;

/* A chunk that could not be read (lenient mode) or was read with repair. */
typedef struct sl_region_problem
{
	int32_t		x;
	int32_t		z;
	uint64_t	offset;			/* file offset of the chunk payload */
	int			skipped;		/* 1 skipped, 0 imported after repair */
	sl_code		code;
	char		msg[256];
} sl_region_problem;

typedef struct sl_region
{
	int32_t		rx;
	int32_t		rz;
	int			nchunks;
	sl_region_chunk *chunks;	/* in slot order (z * 32 + x) */
	int			nproblems;
	sl_region_problem *problems;
} sl_region;

/*
 * Read every chunk of a region file. In strict mode the first damaged chunk
 * is an error naming the chunk (absolute x,z) and file offset; otherwise
 * damaged chunks are skipped and listed in out->problems. An empty (0-byte)
 * file is a region with no chunks. Chunks whose compression type has the
 * external flag are looked up in ext[0..next).
 */
int			sl_region_read(const uint8_t *file, size_t len, int32_t rx, int32_t rz,
						   const sl_external *ext, int next, int strict,
						   const sl_limits *lim, sl_region *out, sl_err *err);

void		sl_region_free(sl_region *r);

/*
 * Check that the chunks read are of kind (SL_COMP_REGION, _ENTITIES or _POI:
 * a chunk with xPos, sections or Level is a region chunk, one with Entities or
 * Position an entities chunk, one with Sections a POI chunk) and sit in the
 * slot their NBT names (xPos/zPos, Level.xPos/zPos, or entities' Position;
 * POI chunks name none). A chunk of another kind is an error. One placed
 * elsewhere is an error in strict mode, naming its slot, its own position and
 * the region that holds it; otherwise it is relocated to its slot as Minecraft
 * does (its position ints rewritten) and listed in r->problems.
 */
int			sl_region_place(sl_region *r, int kind, int strict, const sl_limits *lim,
							sl_err *err);

/*
 * Find what one chunk's NBT says of itself, by the rules of sl_region_place:
 * its kind in *kind (-1 when its tags do not tell), and 1 with the position
 * it names in *x, *z, or 0 when it names none (POI chunks, bare NBT).
 */
int			sl_chunk_where(const uint8_t *nbt, size_t len, const sl_limits *lim,
						   int *kind, int64_t *x, int64_t *z, sl_err *err);

/*
 * Rewrite the position one chunk's NBT names (as sl_chunk_where finds it)
 * to (x,z) in place, as Minecraft relocates a chunk found in the wrong
 * slot. SL_ERR_INVALID when it names none or not as int tags.
 */
int			sl_chunk_relocate(uint8_t *nbt, size_t len, int32_t x, int32_t z,
							  const sl_limits *lim, sl_err *err);

/* "a region/ file (chunks with xPos, sections or Level)" and the like. */
const char *sl_chunk_kind_file(int kind);

/*
 * Write a region file holding chunks[0..n) (each inside region rx,rz; at
 * most one per slot) with the given compression type (1, 2, 3 or 4).
 * A chunk whose payload needs more than 255 sectors is written with the
 * external flag; its compressed stream is appended to *ext_out (sl_alloc'd
 * array of *next_out entries whose data the caller frees with sl_free).
 */
int			sl_region_write(const sl_region_chunk *chunks, int n, int32_t rx,
							int32_t rz, int compression, sl_buf *out,
							sl_external **ext_out, int *next_out, sl_err *err);

#endif
