/*
 * sl_slimefile_int.h - what the slime file reader's files share: the state
 * of a read and the functions of sl_slimefile_base.c, which
 * sl_slimefile_chunks.c (the layouts) and sl_slimefile.c (the entry point)
 * call, and the writer borrows (sl_slimefile_write.c: the section range).
 * The calls go one way: entry point -> layouts -> base. Not part of the
 * core's API.
 */
#ifndef SL_SLIMEFILE_INT_H
#define SL_SLIMEFILE_INT_H

#include "sl_slimefile.h"
#include "sl_nbt.h"

/* A cursor over the file or over one decompressed block of it. */
typedef struct rd
{
	const uint8_t *p;
	size_t		len;
	size_t		pos;
	const char *area;			/* "file", "chunk data", ... for messages */
} rd;

/* Tile entities or entities of the whole world (v1-v10), sorted by chunk. */
typedef struct placed
{
	int32_t		x;
	int32_t		z;
	uint32_t	index;			/* position in the file's list */
	sl_nbt	   *item;
} placed;

/* The state of one read: the file, the limits, the builder, the report. */
typedef struct sf
{
	const sl_limits *lim;
	sl_limits	doc_lim;		/* for documents covering the whole world */
	sl_err	   *err;
	sl_builder *b;
	sl_slimefile_info *info;
	int			version;
	int			wv;				/* world version (v1-v3: 1, pre-1.13), -1 none */
	int			wv_recorded;	/* the file holds it (v4+) */
	int32_t		dv;				/* chunk DataVersion, SL_NO_DV none */
	int			flags;
	int			sec_min;		/* v10+: section Y of array index 0 */
	int			sec_max;
	sl_arena	wa;				/* world-level trees */
	sl_arena	ca;				/* the chunk being read */
	uint64_t	raw_total;		/* decompressed bytes so far */
	int			in_chunk;
	int32_t		cx;
	int32_t		cz;
	uint8_t    *blocks[8];		/* decompressed blocks, freed at the end */
	int			nblocks;
	placed	   *tiles;
	size_t		ntiles;
	placed	   *ents;
	size_t		nents;
	sl_nbt	   *orphans;		/* list of entities whose chunk is absent */
	const sl_lmemo *memo;		/* chunk records seen before (a loader's save), or NULL */
	sl_lmemo   *memo_out;		/* the records of this file, or NULL */
	sl_buf	   *chunk_block;	/* a copy of a v13 file's raw chunk block, or NULL */
	const sl_sffr_frame *frames;	/* a v13 chunk block's frames (sl_slimefile_read_frames), or NULL */
	uint32_t	nframes;
} sf;

/* The cursor (sl_slimefile_base.c): each reads at r->pos and fails naming the field and its offset. */
int			sl_sf_fail(sf *s, const rd *r, size_t at, sl_code code, const char *field,
					   const char *fmt,...)
					   __attribute__((format(printf, 6, 7)));
int			sl_sf_u8(sf *s, rd *r, const char *field, uint8_t *v);
int			sl_sf_u16(sf *s, rd *r, const char *field, uint16_t *v);
int			sl_sf_i32(sf *s, rd *r, const char *field, int32_t *v);
int			sl_sf_len(sf *s, rd *r, const char *field, size_t *at, uint32_t *v);
int			sl_sf_count(sf *s, rd *r, const char *field, size_t min_item, uint32_t *v);
int			sl_sf_bytes(sf *s, rd *r, size_t n, const char *field, const uint8_t **p);
int			sl_sf_bool(sf *s, rd *r, const char *field, int *v);
int			sl_sf_zblock(sf *s, rd *r, const char *field, size_t cap, sl_arena *arena,
						 const uint8_t **data, size_t *raw);
int			sl_sf_zblock_lazy(sf *s, rd *r, const char *field, size_t cap, size_t *at,
							  const uint8_t **src, size_t *clen, uint8_t **dst, size_t *raw);
int			sl_sf_unzstd(sf *s, const rd *r, size_t at, const char *field, const uint8_t *src,
						 size_t clen, uint8_t *dst, size_t raw);
int			sl_sf_parse_doc(sf *s, const rd *r, size_t at, const char *field,
							const uint8_t *p, size_t len, const sl_limits *lim, sl_arena *a,
							sl_nbt **out);
int			sl_sf_doc(sf *s, rd *r, const char *field, sl_nbt **out);
int			sl_sf_doc_any(sf *s, rd *r, const char *field, sl_nbt **out);

/* Trees in an arena (sl_slimefile_base.c); a NULL child is an error already set. */
sl_nbt	   *sl_sf_node(sf *s, sl_arena *a, int type, const char *name);
int			sl_sf_add(sf *s, sl_arena *a, sl_nbt *parent, sl_nbt *child);
sl_nbt	   *sl_sf_int(sf *s, sl_arena *a, const char *name, int64_t v, int type);
sl_nbt	   *sl_sf_string(sf *s, sl_arena *a, const char *name, const char *v);
sl_nbt	   *sl_sf_array(sf *s, sl_arena *a, int type, const char *name, const uint8_t *data,
						uint32_t count);
sl_nbt	   *sl_sf_rename(sf *s, sl_arena *a, const sl_nbt *src, const char *name);
sl_nbt	   *sl_sf_list(sf *s, sl_arena *a, const char *name);
int			sl_sf_add_opt(sf *s, sl_arena *a, sl_nbt *parent, sl_nbt *child);

/* Chunk documents to the builder, world-level items of v1-v10 (sl_slimefile_base.c). */
int			sl_sf_emit(sf *s, int comp, const sl_nbt *root);
int			sl_sf_emit_entities(sf *s, sl_nbt *list);
int			sl_sf_entity_files(const sf *s);
void		sl_sf_count_list(uint64_t *counter, const sl_nbt *list);
int			sl_sf_place_list(sf *s, const rd *r, size_t at, const char *field,
							 const sl_nbt *doc, const char *name, int entities,
							 placed **out, size_t *n);
sl_nbt	   *sl_sf_chunk_list(sf *s, placed *all, size_t n, int32_t x, int32_t z,
							 const char *name, uint32_t *first);

/* The world compound (sl_slimefile_base.c). */
void		sl_sf_section_range(const sl_nbt *extra, int *min, int *max);
int			sl_sf_set_world(sf *s, const int32_t *bounds, sl_nbt *extra, sl_nbt *maps);
int			sl_sf_collect_orphans(sf *s, placed *all, size_t n, int tiles, const rd *r,
								  size_t at);
int			sl_sf_world_doc(sf *s, const char *field, const uint8_t *p, size_t n, sl_nbt **out);
int			sl_sf_chunk_done(sf *s);

/* The layouts (sl_slimefile_chunks.c): everything after the version byte. */
int			sl_sf_read_v1_9(sf *s, rd *f);
int			sl_sf_read_v10_13(sf *s, rd *f);

#endif
