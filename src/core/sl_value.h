/*
 * sl_value.h - the slime value format: one dimension of a world.
 *
 * Layout (doc/format.md is the authority). Version 3 (written): a short
 * header (magic, version, flags, CRC, content hash, varint counts), the
 * chunk directory as varint columns (zstd-compressed when that is smaller),
 * the reference table, then the frames. Metadata and single-chunk reads
 * touch only that prefix and one frame (two when frames share the first as
 * a zstd prefix). Versions 1 and 2 (a fixed 112-byte header, 36-byte
 * directory entries, 12-byte frame entries) are still read, and written on
 * request for tests of their readers. Opening a value of any version
 * decodes its directory into one in-memory form (sl_dirslot, sl_frame).
 *
 * A chunk may be a reference into the chunk store (v2+): no frame, its
 * SHA-256 in the reference table, its bytes fetched through a resolver
 * callback. The content hash (v2 definition, kept by v3) is built from
 * chunk hashes, so the two forms of the same content hash alike.
 */
#ifndef SL_VALUE_H
#define SL_VALUE_H

#include "sl_common.h"
#include "sl_vdir.h"

#define SL_VALUE_MAGIC		"SLIM"
#define SL_VALUE_VERSION	3	/* the version written */
#define SL_VALUE_VERSION_MIN 1	/* the oldest version read */
#define SL_HEADER_SIZE		112 /* versions 1 and 2 */
#define SL_DIRENT_SIZE		36	/* versions 1 and 2 */
#define SL_FRAMEENT_SIZE	12	/* versions 1 and 2 */
#define SL_REFENT_SIZE		32	/* a reference table entry: SHA-256 */
#define SL_HEADER3_FIXED	44	/* version 3: magic, version, flags, CRC, hash */
#define SL_HEADER3_MAX		(SL_HEADER3_FIXED + 9 * 10) /* and 9 varints */
#define SL_NO_DV			INT32_MIN
#define SL_NO_FRAME			UINT32_MAX
#define SL_MAX_VALUE		((size_t) 0x3FFFFFFF - 64)	/* below PostgreSQL's 1 GB varlena cap */

/* Chunk components, in their order inside a frame. */
enum
{
	SL_COMP_REGION = 0,			/* region/ chunk NBT */
	SL_COMP_ENTITIES = 1,		/* entities/ chunk NBT (1.17+) */
	SL_COMP_POI = 2,			/* poi/ chunk NBT */
	SL_NCOMP = 3
};

/* One chunk to encode; component pointers stay owned by the caller. */
typedef struct sl_chunk_src
{
	int32_t		x;
	int32_t		z;
	int32_t		data_version;	/* SL_NO_DV when the chunk has none */
	uint32_t	timestamp;
	const uint8_t *comp[SL_NCOMP];
	uint32_t	len[SL_NCOMP];	/* 0 = component absent */
	const uint8_t *ref;			/* non-NULL: stored by reference, this is its
								 * 32-byte hash; comp[] unused, len[] kept */
} sl_chunk_src;

typedef struct sl_encode_opts
{
	int			level;			/* zstd level */
	size_t		frame_target;	/* close a frame once it holds this many raw bytes */
	size_t		single_frame_max;	/* a value this small (raw) is one frame */
	int			version;		/* format version to write: 0 current, 1 or 2 legacy */
	size_t		base_target;	/* v3: raw bytes of the first frame, the others' prefix */
	unsigned	prefix_ratio;	/* v3: use the prefix when the first frame compressed
								 * at least this many times (0: always) */
	int			block_codec;	/* archive level: block codec stream version, 0 or 1: the
								 * densest (codec 1), 2 (codec 2), 3: the fastest (codec 3),
								 * 4 (codec 4: 3's speed, 7% fewer bytes), 5 (codec 5:
								 * 4 with modelled heightmaps, 6% fewer) */
	int			no_summary;		/* v3: write no contents summary (as 0.9.0 did) */
} sl_encode_opts;

#define SL_DEFAULT_LEVEL 3
#define SL_MIN_LEVEL 1
#define SL_MAX_LEVEL 20
#define SL_ARCHIVE_LEVEL 20		/* v3: frames in the block codec or zstd 19, whichever is smaller */

extern const sl_encode_opts sl_default_encode_opts;

/*
 * Encode chunks (any order; the same x,z twice is SL_ERR_DUPLICATE) and an
 * optional world compound (uncompressed NBT, world_len 0 for none) into a
 * canonical value appended to out.
 */
int			sl_value_encode(const sl_chunk_src *chunks, size_t n,
							const uint8_t *world, size_t world_len,
							const sl_encode_opts *opts, const sl_limits *lim,
							sl_buf *out, sl_err *err);

/*
 * The same with the value's contents summary (sl_vsum.h): sum, when given,
 * is written as the summary (the caller kept it: the summaries of the values
 * the chunks came from, less and plus what changed); without it the chunks
 * are counted, which needs every chunk inline: a value holding references
 * gets no summary then. Versions 1 and 2, and opts->no_summary, write none.
 */
struct sl_vsum;
int			sl_value_encode_sum(const sl_chunk_src *chunks, size_t n,
								const uint8_t *world, size_t world_len,
								const sl_encode_opts *opts, const sl_limits *lim,
								const struct sl_vsum *sum, sl_buf *out, sl_err *err);

/* Parsed header. */
typedef struct sl_header
{
	uint16_t	version;
	uint16_t	flags;
	uint32_t	chunk_count;
	uint32_t	frame_count;
	uint32_t	dir_offset;
	uint32_t	frames_offset;
	uint32_t	payload_offset;
	uint32_t	total_len;
	int32_t		dv_min;
	int32_t		dv_max;
	int32_t		min_x;
	int32_t		min_z;
	int32_t		max_x;
	int32_t		max_z;
	uint64_t	raw_bytes;
	uint32_t	world_len;		/* raw bytes of the world compound, 0 none */
	uint32_t	world_frame;	/* its frame, SL_NO_FRAME none */
	uint8_t		hash[32];		/* content hash (its definition depends on version) */
	uint32_t	ref_count;		/* v2+: chunks held by reference */
	uint32_t	refs_offset;	/* v2+: the reference table */
	uint32_t	header_len;		/* v3: bytes of the header (fixed part and varints) */
	uint32_t	dir_len;		/* v3: stored bytes of the directory */
	uint32_t	dir_raw_len;	/* v3: its bytes once decompressed */
	uint32_t	sum_offset;		/* v3 with SL_FLAG_SUMMARY: the contents summary */
	uint32_t	sum_len;		/* its stored bytes */
	uint32_t	sum_raw_len;	/* its raw bytes (sum_len: stored raw, else a zstd frame) */
} sl_header;

#define SL_FLAG_WORLD	0x0001	/* has a world compound */
#define SL_FLAG_REFS	0x0002	/* v2+: some chunk is a store reference */
#define SL_FLAG_DIRZ	0x0004	/* v3: the directory is one zstd frame */
#define SL_FLAG_PREFIX	0x0008	/* v3: chunk frames after the first use its bytes as prefix */
#define SL_FLAG_SUMMARY	0x0010	/* v3: a contents summary follows the directory (0.10.0) */
#define SL_FLAGS_V3		0x001F

/* A directory entry. */
typedef struct sl_dirent
{
	int32_t		x;
	int32_t		z;
	int32_t		data_version;
	uint32_t	timestamp;
	uint32_t	frame;			/* SL_NO_FRAME for a store reference */
	uint32_t	offset;			/* in the frame's raw bytes; a reference:
								 * its index in the reference table */
	uint32_t	len[SL_NCOMP];
	uint8_t		ref;			/* stored by reference in the chunk store */
	uint8_t		hash[32];		/* a reference: SHA-256 of the chunk's bytes */
} sl_dirent;

/*
 * Fetch callback: make value bytes [offset, offset+len) available at *data
 * (valid until the value is closed). Lets PostgreSQL detoast slices.
 */
typedef int (*sl_fetch_fn) (void *ctx, size_t offset, size_t len,
							const uint8_t **data, sl_err *err);

/*
 * Resolve callback: make the store entry keyed by d->hash available at
 * *entry (valid until the next call); a missing entry is an error naming
 * the hash and the chunk (x,z). Lets PostgreSQL read its chunk store.
 * *checked (0 on the way in) may be set when the resolver vouches for the
 * entry's key: a raw-form entry whose very bytes it found to hash to d->hash
 * (sl_store_raw_matches), read in place; or an entry the store was given
 * under a checked key, whose frame's checksum the read still checks
 * (slime.store_read_check = checksum). The reader then does not hash it.
 */
typedef int (*sl_resolve_fn) (void *ctx, const sl_dirent *d,
							  const uint8_t **entry, size_t *len, int *checked, sl_err *err);

/* An open value: header and directory read, frames fetched on demand. */
typedef struct sl_value
{
	sl_fetch_fn fetch;
	void	   *ctx;
	size_t		total_len;		/* as known to the caller */
	sl_limits	lim;
	sl_header	hdr;
	const uint8_t *meta;		/* bytes [0, payload_offset) */
	sl_dirslot *dir;			/* the directory, decoded at open */
	sl_frame   *frames;			/* the frame table, decoded at open */
	uint32_t	chunk_frames;	/* frames holding chunks (the world frame is after) */
	uint8_t    *base_buf;		/* v3 prefix: raw bytes of frame 0 */
	size_t		base_cap;
	int			base_ok;
	uint32_t	cached_frame;	/* SL_NO_FRAME when none */
	uint8_t    *frame_buf;		/* raw bytes of cached_frame */
	size_t		frame_cap;
	sl_resolve_fn resolve;		/* NULL: references cannot be read */
	void	   *resolve_ctx;
	uint8_t    *ref_buf;		/* raw bytes of the last resolved reference */
	size_t		ref_cap;
} sl_value;

/*
 * Parse and check the header in buf (versions 1-2: the first SL_HEADER_SIZE
 * bytes; version 3: up to SL_HEADER3_MAX). A v3 header's summary fields
 * (DataVersions, bounds, raw_bytes) come from the directory: they are set
 * by sl_value_open, not here.
 */
int			sl_header_parse(const uint8_t *buf, size_t len, size_t total_len,
							sl_header *h, sl_err *err);

/* The header of a value in memory with its summary fields (opens the value). */
int			sl_value_summary(const uint8_t *data, size_t len, sl_header *h, sl_err *err);

/* Read header and directory through fetch; checks the metadata CRC. */
int			sl_value_open(sl_value *v, sl_fetch_fn fetch, void *ctx,
						  size_t total_len, const sl_limits *lim, sl_err *err);

/* Open a value held entirely in memory. */
int			sl_value_open_mem(sl_value *v, const uint8_t *data, size_t len,
							  const sl_limits *lim, sl_err *err);

void		sl_value_close(sl_value *v);

/* Directory entry i (0 <= i < chunk_count), checked against the header. */
int			sl_value_dirent(const sl_value *v, uint32_t i, sl_dirent *d, sl_err *err);

/* Frame table entry i. */
int			sl_value_frame(const sl_value *v, uint32_t i, sl_frame *f, sl_err *err);

/* Index of chunk (x,z), or -1 when absent (binary search, canonical order). */
int64_t		sl_value_find(const sl_value *v, int32_t x, int32_t z);

/*
 * Decompress what chunk i holds: comp[c] / len[c] point into the value's
 * frame cache, valid until the next read from v.
 */
int			sl_value_chunk(sl_value *v, uint32_t i, sl_dirent *d,
						   const uint8_t *comp[SL_NCOMP], sl_err *err);

/* Decompress the world compound (*data NULL, *len 0 when none). */
int			sl_value_world(sl_value *v, const uint8_t **data, size_t *len,
						   sl_err *err);

/*
 * Check a whole value: structure, metadata CRC, every frame's zstd checksum,
 * every NBT component, canonical layout and the content hash. Shared by
 * text input, binary input and casts.
 */
int			sl_value_verify(const uint8_t *data, size_t len, const sl_limits *lim,
							sl_err *err);

/*
 * Check a value's structure without decompressing: header, metadata CRC,
 * frame table, canonical order and packing, every zstd frame's header
 * (checksum present, one frame, declared size). With full, also what
 * sl_value_verify checks: every frame's data, every NBT document and the
 * content hash.
 */
int			sl_value_check(const uint8_t *data, size_t len, int full,
						   const sl_limits *lim, sl_err *err);

/* SHA-256 of one chunk's canonical bytes (its components and their lengths). */
void		sl_chunk_hash(const sl_dirent *d, const uint8_t *const comp[SL_NCOMP],
						  uint8_t out[32]);

/* Chunk i's hash: from the directory (v2) or computed from its bytes (v1). */
int			sl_value_chunk_hash(sl_value *v, uint32_t i, uint8_t out[32], sl_err *err);

/*
 * The value's content hash as version 2 defines it, whatever the value's
 * version (a v1 value is decompressed to compute it), so that the same
 * content compares and hashes alike in every version and form.
 */
int			sl_value_content_hash(sl_value *v, uint8_t out[32], sl_err *err);

/* Number of chunks stored by reference. */
uint32_t	sl_value_ref_count(const sl_value *v);

/* Free every cached codec context of the core (zstd, libdeflate). */
void		sl_release_caches(void);

/* Canonical order key of a position in a value of the given version (v3: sl_chunk_key3). */
uint64_t	sl_value_key(uint16_t version, int32_t x, int32_t z);

#endif
