/*
 * sl_schem_extract.c - a box of a value as a Sponge schematic (see
 * sl_schem.h).
 *
 * Extract reads each chunk of the box once: its sections' packed indices
 * are kept (copied) with a map from section palette index to a state id of
 * the whole box, then the varints are written in schematic order (y, z, x)
 * straight from the packed longs.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "sl_blocks.h"
#include "sl_chunk.h"
#include "sl_codec.h"
#include "sl_schem_int.h"

#define SL_DV_1_13			1519	/* 1.13: names of the flattening table */

/* Indices start..start+n-1 of packed longs (length checked by the caller), without a division per index. */
static inline void
packed_run(const uint8_t *longs, int bits, int spanning, uint32_t start, uint32_t n, uint32_t *out)
{
	uint64_t	mask = ((uint64_t) 1 << bits) - 1;

	if (!spanning)
	{
		uint32_t	per = 64 / bits;
		uint32_t	l = start / per;
		uint32_t	k = start % per;
		uint64_t	w = sl_get_u64be(longs + 8 * (size_t) l) >> (k * bits);

		for (uint32_t j = 0; j < n; j++)
		{
			out[j] = (uint32_t) (w & mask);
			w >>= bits;
			if (++k == per && j + 1 < n)
			{
				k = 0;
				w = sl_get_u64be(longs + 8 * (size_t) ++l);
			}
		}
		return;
	}
	for (uint32_t j = 0; j < n; j++)
		out[j] = sl_packed_get(longs, bits, 1, start + j);
}

/* ---- writing NBT bytes directly ---- */

static int
put_head(sl_buf *b, uint8_t type, const char *name, size_t nlen, sl_err *err)
{
	if (nlen > UINT16_MAX)
		return sl_fail(err, SL_ERR_LIMIT, "NBT name of %zu bytes is too long", nlen);
	if (sl_buf_put_u8(b, type, err) || sl_buf_put_u16be(b, (uint16_t) nlen, err))
		return -1;
	return sl_buf_put(b, name, nlen, err);
}

static int
put_int(sl_buf *b, const char *name, int32_t v, sl_err *err)
{
	return put_head(b, SL_TAG_INT, name, strlen(name), err) ||
		sl_buf_put_u32be(b, (uint32_t) v, err) ? -1 : 0;
}

static int
put_short(sl_buf *b, const char *name, uint16_t v, sl_err *err)
{
	return put_head(b, SL_TAG_SHORT, name, strlen(name), err) ||
		sl_buf_put_u16be(b, v, err) ? -1 : 0;
}

static int
put_ints3(sl_buf *b, const char *name, int32_t x, int32_t y, int32_t z, sl_err *err)
{
	return put_head(b, SL_TAG_INT_ARRAY, name, strlen(name), err) ||
		sl_buf_put_u32be(b, 3, err) || sl_buf_put_u32be(b, (uint32_t) x, err) ||
		sl_buf_put_u32be(b, (uint32_t) y, err) || sl_buf_put_u32be(b, (uint32_t) z, err) ? -1 : 0;
}

/* ---- extract ---- */

/* What extract keeps of one section of the box. */
typedef struct ex_sec
{
	uint8_t		kind;			/* 0 air, 1 packed longs, 2 unpacked indices */
	uint8_t		bits;
	uint8_t		spanning;
	int8_t		y;
	uint32_t	npalette;
	const uint8_t *longs;		/* kind 1: NULL when every index is 0 */
	const uint16_t *idx;		/* kind 2 */
	const uint32_t *gid;		/* palette index -> state id */
} ex_sec;

typedef struct ex_ctx
{
	const sl_limits *lim;
	int			version;
	int32_t		x1,
				y1,
				z1,
				x2,
				y2,
				z2;
	int32_t		cx0,
				cz0,
				sy0;
	uint32_t	ncx,
				ncz,
				nsy;
	ex_sec	  **cols;			/* ncx * ncz, NULL: no chunk */
	sl_arena	arena;
	strmap		states;			/* canonical state -> state id */
	uint32_t   *fin;			/* state id -> schematic palette index */
	uint32_t   *fin_gid;		/* schematic palette index -> state id */
	uint32_t	fin_cap;
	uint32_t	nfin;
	uint32_t	air;			/* state id of minecraft:air, NO_INDEX until needed */
	sl_buf		bes;			/* block entity compounds (payloads) */
	uint32_t	nbes;
	int32_t		dv;
	sl_buf		scratch;
	uint16_t   *key_local;		/* legacy key -> local index + 1 (per section) */
	uint32_t   *key_list;
} ex_ctx;

/* State id of a canonical string. */
static int
ex_state(ex_ctx *c, const char *s, size_t len, uint32_t *gid, sl_err *err)
{
	if (sl_schem_strmap_add(&c->states, s, len, gid, err))
		return -1;
	if (c->states.n > c->fin_cap)
	{
		uint32_t	cap = c->fin_cap ? c->fin_cap * 2 : 256;
		uint32_t   *f;

		while (cap < c->states.n)
			cap *= 2;
		f = sl_realloc(c->fin, (size_t) cap * sizeof(uint32_t));
		if (f == NULL)
			return sl_fail(err, SL_ERR_NOMEM, "out of memory mapping block states");
		for (uint32_t i = c->fin_cap; i < cap; i++)
			f[i] = NO_INDEX;
		c->fin = f;
		f = sl_realloc(c->fin_gid, (size_t) cap * sizeof(uint32_t));
		if (f == NULL)
			return sl_fail(err, SL_ERR_NOMEM, "out of memory mapping block states");
		c->fin_gid = f;
		c->fin_cap = cap;
	}
	return 0;
}

/* Keep what the box needs of palette section i of an open chunk. */
static int
ex_palette_section(ex_ctx *c, const sl_chunk_blocks *cb, int i, ex_sec *r, sl_err *err)
{
	const sl_section *s = &cb->sections[i];
	uint32_t   *gid = sl_arena_alloc(&c->arena, (size_t) s->npalette * sizeof(uint32_t), err);

	if (gid == NULL)
		return -1;
	for (uint32_t k = 0; k < s->npalette; k++)
	{
		c->scratch.len = 0;
		if (sl_schem_canon_entry(s->palette[k], &c->scratch, err) ||
			ex_state(c, (const char *) c->scratch.data, c->scratch.len, &gid[k], err))
		{
			sl_err_prefix(err, "section Y=%d: palette entry %u", s->y, k);
			return -1;
		}
	}
	r->kind = 1;
	r->npalette = s->npalette;
	r->gid = gid;
	r->bits = s->bits;
	r->spanning = s->spanning;
	if (s->states && s->bits)
	{
		uint8_t    *copy = sl_arena_alloc(&c->arena, (size_t) s->nstates * 8, err);

		if (copy == NULL)
			return -1;
		memcpy(copy, s->states, (size_t) s->nstates * 8);
		r->longs = copy;
	}
	return 0;
}

/* The same for a legacy section (numeric ids): indices unpacked. */
static int
ex_legacy_section(ex_ctx *c, const sl_chunk_blocks *cb, int i, ex_sec *r, sl_err *err)
{
	uint16_t   *idx = sl_arena_alloc(&c->arena, SL_SECTION_VOLUME * sizeof(uint16_t), err);
	uint32_t	n = 0;
	uint32_t   *gid;

	if (idx == NULL)
		return -1;
	if (c->key_local == NULL)
	{
		c->key_local = sl_alloc_err(SL_LEGACY_KEYS * sizeof(uint16_t), err);
		c->key_list = sl_alloc_err(SL_SECTION_VOLUME * sizeof(uint32_t), err);
		if (c->key_local == NULL || c->key_list == NULL)
			return -1;
		memset(c->key_local, 0, SL_LEGACY_KEYS * sizeof(uint16_t));
	}
	for (int y = 0; y < 16; y++)
		for (int z = 0; z < 16; z++)
			for (int x = 0; x < 16; x++)
			{
				uint32_t	key;

				if (sl_section_key(cb, i, x, y, z, &key, err))
					return -1;
				key &= SL_LEGACY_KEYS - 1;
				if (c->key_local[key] == 0)
				{
					c->key_list[n++] = key;
					c->key_local[key] = (uint16_t) n;
				}
				idx[(y * 16 + z) * 16 + x] = (uint16_t) (c->key_local[key] - 1);
			}
	gid = sl_arena_alloc(&c->arena, (size_t) n * sizeof(uint32_t), err);
	if (gid == NULL)
		return -1;
	for (uint32_t k = 0; k < n; k++)
	{
		int			fallback;

		c->key_local[c->key_list[k]] = 0;
		c->scratch.len = 0;
		if (sl_legacy_state_name(c->key_list[k], &c->scratch, &fallback, err) ||
			ex_state(c, (const char *) c->scratch.data, c->scratch.len, &gid[k], err))
			return -1;
	}
	r->kind = 2;
	r->npalette = n;
	r->idx = idx;
	r->gid = gid;
	return 0;
}

/* Write one block entity of the box into c->bes. */
static int
ex_block_entity(ex_ctx *c, const sl_nbt *be, int32_t x, int32_t y, int32_t z,
				const sl_nbt *id, sl_err *err)
{
	sl_buf	   *b = &c->bes;

	if (c->version == 3)
	{
		if (put_ints3(b, "Pos", x - c->x1, y - c->y1, z - c->z1, err) ||
			put_head(b, SL_TAG_STRING, "Id", 2, err) ||
			sl_buf_put_u16be(b, id->v.str.len, err) ||
			sl_buf_put(b, id->v.str.s, id->v.str.len, err) ||
			put_head(b, SL_TAG_COMPOUND, "Data", 4, err))
			return -1;
	}
	for (uint32_t k = 0; k < be->v.comp.count; k++)
	{
		const sl_nbt *f = be->v.comp.items[k];

		if (sl_schem_named(f, "id") || sl_schem_named(f, "x") || sl_schem_named(f, "y") || sl_schem_named(f, "z"))
			continue;
		if (c->version == 2 && (sl_schem_named(f, "Pos") || sl_schem_named(f, "Id")))
			continue;			/* would clash with the schematic's own fields */
		if (sl_nbt_write(f, b, err))
			return -1;
	}
	if (c->version == 3)
	{
		if (sl_buf_put_u8(b, SL_TAG_END, err))
			return -1;
	}
	else if (put_ints3(b, "Pos", x - c->x1, y - c->y1, z - c->z1, err) ||
			 put_head(b, SL_TAG_STRING, "Id", 2, err) ||
			 sl_buf_put_u16be(b, id->v.str.len, err) ||
			 sl_buf_put(b, id->v.str.s, id->v.str.len, err))
		return -1;
	if (sl_buf_put_u8(b, SL_TAG_END, err))
		return -1;
	c->nbes++;
	return 0;
}

/* Read chunk i of v: its sections in the box and its block entities in the box. */
static int
ex_chunk(ex_ctx *c, sl_value *v, uint32_t i, sl_err *err)
{
	sl_dirent	d;
	const uint8_t *comp[SL_NCOMP];
	sl_arena	arena = {0};
	sl_nbt	   *root;
	sl_chunk_blocks cb;
	const sl_nbt *list;
	ex_sec	   *secs;
	size_t		used;
	int			rc = -1;

	if (sl_value_chunk(v, i, &d, comp, err))
		return -1;
	if (d.len[SL_COMP_REGION] == 0)
		return 0;
	if (sl_nbt_parse(comp[SL_COMP_REGION], d.len[SL_COMP_REGION], c->lim, &arena, &root, &used, err) ||
		sl_chunk_blocks_from_tree(root, d.data_version, SL_WANT_BLOCKS, &arena, &cb, err))
		goto fail;
	if (d.data_version != SL_NO_DV && (c->dv == SL_NO_DV || d.data_version > c->dv))
		c->dv = d.data_version;
	secs = sl_arena_alloc(&c->arena, (size_t) c->nsy * sizeof(ex_sec), err);
	if (secs == NULL)
		goto fail;
	memset(secs, 0, (size_t) c->nsy * sizeof(ex_sec));
	c->cols[(size_t) (d.z - c->cz0) * c->ncx + (uint32_t) (d.x - c->cx0)] = secs;
	for (int k = 0; k < cb.nsections; k++)
	{
		const sl_section *s = &cb.sections[k];
		int64_t		at = (int64_t) s->y - c->sy0;
		int			r;

		if (at < 0 || at >= c->nsy || s->kind == 0)
			continue;
		if (s->npalette > c->lim->max_palette)
		{
			sl_fail(err, SL_ERR_LIMIT, "section Y=%d: palette of %u entries exceeds the cap of %u",
					s->y, s->npalette, c->lim->max_palette);
			goto fail;
		}
		r = s->kind == SL_SEC_PALETTE ? ex_palette_section(c, &cb, k, &secs[at], err) :
			ex_legacy_section(c, &cb, k, &secs[at], err);
		if (r)
			goto fail;
		secs[at].y = (int8_t) s->y;
	}
	list = sl_chunk_block_entities(root);
	if (list && list->v.list.elem_type == SL_TAG_COMPOUND)
		for (uint32_t k = 0; k < list->v.list.count; k++)
		{
			const sl_nbt *be = list->v.list.items[k];
			const sl_nbt *id = sl_nbt_child(be, "id");
			int64_t		x,
						y,
						z;

			if (!sl_schem_int_tag(sl_nbt_child(be, "x"), &x) || !sl_schem_int_tag(sl_nbt_child(be, "y"), &y) ||
				!sl_schem_int_tag(sl_nbt_child(be, "z"), &z) || id == NULL || id->type != SL_TAG_STRING)
				continue;		/* Minecraft drops such an entry too */
			if (x < c->x1 || x > c->x2 || y < c->y1 || y > c->y2 || z < c->z1 || z > c->z2)
				continue;
			if (ex_block_entity(c, be, (int32_t) x, (int32_t) y, (int32_t) z, id, err))
				goto fail;
		}
	rc = 0;
fail:
	if (rc)
	{
		sl_err_prefix(err, "chunk (%d,%d)", d.x, d.z);
		if (err && err->code == SL_ERR_FORMAT)
			err->code = SL_ERR_CORRUPT;
	}
	sl_arena_free(&arena);
	return rc;
}

/* Schematic palette index of state id g, assigned on first use. */
static inline uint32_t
ex_final(ex_ctx *c, uint32_t g)
{
	if (c->fin[g] == NO_INDEX)
	{
		c->fin[g] = c->nfin;
		c->fin_gid[c->nfin++] = g;
	}
	return c->fin[g];
}

/* Write every block of the box as varints, y then z then x, at the end of doc. */
static int
ex_blocks(ex_ctx *c, sl_buf *doc, sl_err *err)
{
	uint32_t	w = (uint32_t) ((int64_t) c->x2 - c->x1 + 1);

	for (int64_t y = c->y1; y <= c->y2; y++)
	{
		uint32_t	sy = (uint32_t) (floor16(y) - c->sy0);
		uint32_t	ly = (uint32_t) (y & 15);

		sl_interrupt();
		for (int64_t z = c->z1; z <= c->z2; z++)
		{
			uint32_t	cz = (uint32_t) (floor16(z) - c->cz0);
			uint32_t	lz = (uint32_t) (z & 15);
			uint8_t    *p;

			if (sl_buf_reserve(doc, (size_t) w * 5, err))
				return -1;
			p = doc->data + doc->len;
			for (int64_t x = c->x1; x <= c->x2;)
			{
				int64_t		cxs = (int64_t) floor16(x);
				int64_t		end = cxs * 16 + 15 < c->x2 ? cxs * 16 + 15 : c->x2;
				ex_sec	   *col = c->cols[(size_t) cz * c->ncx + (uint32_t) (cxs - c->cx0)];
				const ex_sec *s = col ? &col[sy] : NULL;

				if (s == NULL || s->kind == 0)
				{
					uint32_t	f;

					if (c->air == NO_INDEX &&
						ex_state(c, "minecraft:air", 13, &c->air, err))
						return -1;
					f = ex_final(c, c->air);
					for (; x <= end; x++)
						p += sl_varint_put(p, f);
					continue;
				}
				{
					uint32_t	bi = (ly * 16 + lz) * 16 + (uint32_t) (x & 15);
					uint32_t	n = (uint32_t) (end - x + 1);
					uint32_t	row[16];

					if (s->kind == 2)
						for (uint32_t j = 0; j < n; j++)
							row[j] = s->idx[bi + j];
					else if (s->longs)
						packed_run(s->longs, s->bits, s->spanning, bi, n, row);
					else
						memset(row, 0, sizeof(row));
					for (uint32_t j = 0; j < n; j++)
					{
						if (row[j] >= s->npalette)
							return sl_fail(err, SL_ERR_CORRUPT,
										   "chunk (%d,%d): section Y=%d: palette index %u past palette of %u entries",
										   (int) cxs, (int) floor16(z), s->y, row[j], s->npalette);
						p += sl_varint_put(p, ex_final(c, s->gid[row[j]]));
					}
					x = end + 1;
				}
			}
			doc->len = (size_t) (p - doc->data);
		}
		if (doc->len > c->lim->max_value_raw)
			return sl_fail(err, SL_ERR_LIMIT, "schematic block data exceeds the cap of %zu bytes",
						   c->lim->max_value_raw);
	}
	return 0;
}

/* Write the palette compound (payload then End) named name. */
static int
ex_palette(ex_ctx *c, sl_buf *doc, const char *name, sl_err *err)
{
	if (put_head(doc, SL_TAG_COMPOUND, name, strlen(name), err))
		return -1;
	for (uint32_t f = 0; f < c->nfin; f++)
	{
		uint32_t	len;
		const char *key = sl_schem_strmap_key(&c->states, c->fin_gid[f], &len);

		if (len > UINT16_MAX)
			return sl_fail(err, SL_ERR_LIMIT, "block state of %u bytes is too long for a palette key", len);
		if (put_head(doc, SL_TAG_INT, key, len, err) || sl_buf_put_u32be(doc, f, err))
			return -1;
	}
	return sl_buf_put_u8(doc, SL_TAG_END, err);
}

/* The whole document: header fields, block entities, block data, palette. */
static int
ex_document(ex_ctx *c, sl_value *v, sl_buf *doc, sl_err *err)
{
	uint32_t	w = (uint32_t) ((int64_t) c->x2 - c->x1 + 1);
	uint32_t	h = (uint32_t) ((int64_t) c->y2 - c->y1 + 1);
	uint32_t	l = (uint32_t) ((int64_t) c->z2 - c->z1 + 1);
	int32_t		dv = c->dv;
	size_t		len_at;
	size_t		data_at;
	uint64_t	data_len;

	if (dv == SL_NO_DV)
		dv = v->hdr.dv_max;
	if (dv == SL_NO_DV || dv < SL_DV_1_13)
		dv = SL_DV_1_13;		/* names come from the 1.13 flattening table */
	if (c->version == 3)
	{
		if (put_head(doc, SL_TAG_COMPOUND, "", 0, err) ||
			put_head(doc, SL_TAG_COMPOUND, "Schematic", 9, err))
			return -1;
	}
	else if (put_head(doc, SL_TAG_COMPOUND, "Schematic", 9, err))
		return -1;
	if (put_int(doc, "Version", c->version, err) ||
		put_int(doc, "DataVersion", dv, err) ||
		put_short(doc, "Width", (uint16_t) w, err) ||
		put_short(doc, "Height", (uint16_t) h, err) ||
		put_short(doc, "Length", (uint16_t) l, err) ||
		put_ints3(doc, "Offset", c->x1, c->y1, c->z1, err))
		return -1;
	if (c->version == 3 && put_head(doc, SL_TAG_COMPOUND, "Blocks", 6, err))
		return -1;
	if (put_head(doc, SL_TAG_LIST, "BlockEntities", 13, err) ||
		sl_buf_put_u8(doc, c->nbes ? SL_TAG_COMPOUND : SL_TAG_END, err) ||
		sl_buf_put_u32be(doc, c->nbes, err) ||
		sl_buf_put(doc, c->bes.data, c->bes.len, err))
		return -1;
	if (c->version == 3 ? put_head(doc, SL_TAG_BYTE_ARRAY, "Data", 4, err) :
		put_head(doc, SL_TAG_BYTE_ARRAY, "BlockData", 9, err))
		return -1;
	len_at = doc->len;
	if (sl_buf_put_u32be(doc, 0, err))
		return -1;
	data_at = doc->len;
	if (sl_buf_reserve(doc, (size_t) w * h * l + 64, err) || ex_blocks(c, doc, err))
		return -1;
	data_len = doc->len - data_at;
	if (data_len > INT32_MAX)
		return sl_fail(err, SL_ERR_LIMIT, "schematic block data of %llu bytes exceeds an NBT array",
					   (unsigned long long) data_len);
	sl_put_u32be(doc->data + len_at, (uint32_t) data_len);
	if (c->version == 2 && put_int(doc, "PaletteMax", (int32_t) c->nfin, err))
		return -1;
	if (ex_palette(c, doc, "Palette", err))
		return -1;
	if (c->version == 3 && sl_buf_put_u8(doc, SL_TAG_END, err))
		return -1;				/* Blocks */
	if (sl_buf_put_u8(doc, SL_TAG_END, err))
		return -1;				/* Schematic */
	if (c->version == 3 && sl_buf_put_u8(doc, SL_TAG_END, err))
		return -1;				/* root */
	return 0;
}

int
sl_schem_extract(sl_value *v, int32_t x1, int32_t y1, int32_t z1, int32_t x2, int32_t y2,
				 int32_t z2, int version, const sl_limits *lim, sl_buf *out, sl_err *err)
{
	ex_ctx		c;
	sl_buf		doc = {0};
	uint64_t	volume;
	int64_t		ncols;
	int			rc = -1;

	if (lim == NULL)
		lim = &sl_default_limits;
	if (version != 2 && version != 3)
		return sl_fail(err, SL_ERR_INVALID, "schematic version must be 2 or 3, not %d", version);
	memset(&c, 0, sizeof(c));
	c.lim = lim;
	c.version = version;
	c.x1 = x1 < x2 ? x1 : x2;
	c.x2 = x1 < x2 ? x2 : x1;
	c.y1 = y1 < y2 ? y1 : y2;
	c.y2 = y1 < y2 ? y2 : y1;
	c.z1 = z1 < z2 ? z1 : z2;
	c.z2 = z1 < z2 ? z2 : z1;
	c.air = NO_INDEX;
	c.dv = SL_NO_DV;
	if ((int64_t) c.x2 - c.x1 >= SL_SCHEM_MAX_AXIS || (int64_t) c.y2 - c.y1 >= SL_SCHEM_MAX_AXIS ||
		(int64_t) c.z2 - c.z1 >= SL_SCHEM_MAX_AXIS)
		return sl_fail(err, SL_ERR_LIMIT,
					   "box of %lld x %lld x %lld blocks: a schematic holds at most %d per axis",
					   (long long) c.x2 - c.x1 + 1, (long long) c.y2 - c.y1 + 1,
					   (long long) c.z2 - c.z1 + 1, SL_SCHEM_MAX_AXIS);
	volume = (uint64_t) ((int64_t) c.x2 - c.x1 + 1) * (uint64_t) ((int64_t) c.y2 - c.y1 + 1) *
		(uint64_t) ((int64_t) c.z2 - c.z1 + 1);
	if (volume > lim->max_value_raw || volume > INT32_MAX)
		return sl_fail(err, SL_ERR_LIMIT, "box of %llu blocks exceeds the cap of %zu blocks",
					   (unsigned long long) volume,
					   lim->max_value_raw < INT32_MAX ? lim->max_value_raw : (size_t) INT32_MAX);
	c.cx0 = floor16(c.x1);
	c.cz0 = floor16(c.z1);
	c.sy0 = floor16(c.y1);
	c.ncx = (uint32_t) (floor16(c.x2) - c.cx0 + 1);
	c.ncz = (uint32_t) (floor16(c.z2) - c.cz0 + 1);
	c.nsy = (uint32_t) (floor16(c.y2) - c.sy0 + 1);
	ncols = (int64_t) c.ncx * c.ncz;
	c.cols = sl_alloc_err((size_t) ncols * sizeof(ex_sec *), err);
	if (c.cols == NULL)
		goto done;
	memset(c.cols, 0, (size_t) ncols * sizeof(ex_sec *));
	/* the chunks of the box, in directory order (frames read once) */
	for (uint32_t i = 0; i < v->hdr.chunk_count; i++)
	{
		sl_dirent	d;

		if ((i & 63) == 0)
			sl_interrupt();
		if (sl_value_dirent(v, i, &d, err))
			goto done;
		if (d.x < c.cx0 || (int64_t) d.x - c.cx0 >= c.ncx || d.z < c.cz0 || (int64_t) d.z - c.cz0 >= c.ncz)
			continue;
		if (ex_chunk(&c, v, i, err))
			goto done;
		if (c.bes.len > lim->max_value_raw)
		{
			sl_fail(err, SL_ERR_LIMIT, "block entities of the box exceed the cap of %zu bytes",
					lim->max_value_raw);
			goto done;
		}
	}
	if (ex_document(&c, v, &doc, err))
		goto done;
	rc = sl_deflate(SL_DEFLATE_GZIP, SL_SCHEM_GZIP_LEVEL, doc.data, doc.len, out, err);
done:
	sl_buf_free(&doc);
	sl_buf_free(&c.bes);
	sl_buf_free(&c.scratch);
	sl_schem_strmap_free(&c.states);
	sl_free(c.fin);
	sl_free(c.fin_gid);
	sl_free(c.cols);
	sl_free(c.key_local);
	sl_free(c.key_list);
	sl_arena_free(&c.arena);
	return rc;
}
