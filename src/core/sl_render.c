/*
 * sl_render.c - top-down maps of a value's chunks (see sl_render.h).
 *
 * Per chunk: the blocks are found by sl_chunk_blocks_scan (the same
 * decoding as the counts, but a section's tree is built only when the walk
 * reaches it), then each of the 256 columns is walked from the top down to
 * the first block the map draws. Palette entries are given a colour once per
 * section (once for a run of sections sharing a palette, as air sections
 * do), and only for sections a column reaches; numeric ids once per render.
 * Shading is a second pass over the whole map, since a pixel's shade
 * depends on the column north of it, which may be in another chunk.
 */
#include <stdio.h>
#include <string.h>

#include "sl_mapcolor.h"
#include "sl_render.h"

#define NOT_LOOKED_UP	0xFF
#define NAMESPACE		"minecraft:"
#define NAMESPACE_LEN	10

/* Per-chunk state of the column walk. */
typedef struct walk
{
	const sl_chunk_blocks *c;
	sl_map_cache *cache;
	uint8_t   **pal;			/* per section: colours of its palette, NULL until needed */
	uint8_t    *drawn;			/* per section: 1 when some palette entry is drawn */
} walk;

/* Stable colour of an unknown name: one of the base colours but NONE and WATER. */
static int
unknown_color(const char *name, size_t len)
{
	int			c = 1 + (int) (sl_fnv1a(name, len) % (SL_MAP_COLORS - 2));

	return c >= SL_MAP_WATER ? c + 1 : c;
}

/* Base colour of a block name: the table's, else a stable colour. */
int
sl_map_color_of(const char *name, size_t len)
{
	char		buf[256];
	int			c;

	if (memchr(name, ':', len) == NULL && len + NAMESPACE_LEN <= sizeof(buf))
	{
		memcpy(buf, NAMESPACE, NAMESPACE_LEN);
		memcpy(buf + NAMESPACE_LEN, name, len);
		name = buf;
		len += NAMESPACE_LEN;
	}
	c = sl_map_color_find(name, len);
	return c >= 0 ? c : unknown_color(name, len);
}

/* Colour of a checked palette entry {Name, Properties}; waterlogged blocks show water. */
static uint8_t
entry_color(const sl_nbt *entry)
{
	const sl_nbt *name = sl_nbt_child(entry, "Name");
	const sl_nbt *props = sl_nbt_child(entry, "Properties");
	const sl_nbt *wl = props ? sl_nbt_child(props, "waterlogged") : NULL;

	if (wl && wl->type == SL_TAG_STRING && wl->v.str.len == 4 && memcmp(wl->v.str.s, "true", 4) == 0)
		return SL_MAP_WATER;
	return (uint8_t) sl_map_color_of(name->v.str.s, name->v.str.len);
}

/* Colour of a legacy key (id << 4 | data), looked up once per render. */
static int
legacy_color(sl_map_cache *cache, uint32_t key, sl_err *err)
{
	const char *name;
	char		fallback[48];
	size_t		len;

	if (cache->legacy == NULL)
	{
		cache->legacy = sl_alloc_err(SL_LEGACY_KEYS, err);
		if (cache->legacy == NULL)
			return -1;
		memset(cache->legacy, NOT_LOOKED_UP, SL_LEGACY_KEYS);
	}
	if (cache->legacy[key] != NOT_LOOKED_UP)
		return cache->legacy[key];
	name = sl_legacy_block_name((int) (key >> 4), (int) (key & 15));
	if (name)
	{
		const char *props = strchr(name, '[');

		len = props ? (size_t) (props - name) : strlen(name);
	}
	else
	{
		/* the name the counts give it (sl_legacy_state_name) */
		len = (size_t) snprintf(fallback, sizeof(fallback), "minecraft:legacy_%u_%u",
								(key >> 4) & 4095, key & 15);
		name = fallback;
	}
	cache->legacy[key] = (uint8_t) sl_map_color_of(name, len);
	return cache->legacy[key];
}

/* Give every palette entry of section i its colour (the section above's when it shares the palette). */
static int
resolve_palette(walk *w, int i, sl_err *err)
{
	const sl_section *s = &w->c->sections[i];
	uint8_t    *pal;

	if (i + 1 < w->c->nsections && w->pal[i + 1] && w->c->sections[i + 1].palette == s->palette &&
		w->c->sections[i + 1].npalette == s->npalette)
	{
		w->pal[i] = w->pal[i + 1];
		w->drawn[i] = w->drawn[i + 1];
		return 0;
	}
	pal = sl_arena_alloc(w->c->arena, s->npalette ? s->npalette : 1, err);
	if (pal == NULL)
		return -1;
	w->drawn[i] = 0;
	for (uint32_t k = 0; k < s->npalette; k++)
	{
		pal[k] = entry_color(s->palette[k]);
		w->drawn[i] |= pal[k] != SL_MAP_NONE;
	}
	w->pal[i] = pal;
	return 0;
}

/* Fail on a palette index past the palette, as the counts do. */
static int
index_past(const sl_section *s, uint32_t v, sl_err *err)
{
	return sl_fail(err, SL_ERR_FORMAT, "section Y=%d: palette index %u past palette of %u entries",
				   s->y, v, s->npalette);
}

/* The colours of layer ly (256 blocks, index z * 16 + x) of a paletted section. */
static int
palette_layer(walk *w, int i, int ly, uint8_t lay[256], sl_err *err)
{
	const sl_section *s = &w->c->sections[i];
	const uint8_t *pal = w->pal[i];
	uint32_t	n0 = (uint32_t) ly * 256;

	if (s->states == NULL)
	{
		memset(lay, pal[0], 256);
		return 0;
	}
	if (s->spanning)
	{
		for (uint32_t n = 0; n < 256; n++)
		{
			uint32_t	v = sl_packed_get(s->states, s->bits, 1, n0 + n);

			if (v >= s->npalette)
				return index_past(s, v, err);
			lay[n] = pal[v];
		}
		return 0;
	}
	{
		uint32_t	per = 64 / s->bits;
		uint32_t	l = n0 / per;
		uint32_t	k = n0 % per;
		uint64_t	mask = ((uint64_t) 1 << s->bits) - 1;
		uint64_t	word = sl_get_u64be(s->states + 8 * (size_t) l) >> (k * s->bits);

		for (uint32_t n = 0; n < 256; n++, k++)
		{
			uint32_t	v;

			if (k == per)
			{
				word = sl_get_u64be(s->states + 8 * (size_t) ++l);
				k = 0;
			}
			v = (uint32_t) (word & mask);
			word >>= s->bits;
			if (v >= s->npalette)
				return index_past(s, v, err);
			lay[n] = pal[v];
		}
	}
	return 0;
}

/*
 * The palette entry that layer ly of paletted section i holds throughout
 * (every word holding the layer repeats it), or -1: air above the ground
 * and open water, drawn without decoding.
 */
static int
uniform_layer(const walk *w, int i, int ly)
{
	const sl_section *s = &w->c->sections[i];
	uint32_t	per,
				n0 = (uint32_t) ly * 256,
				l0;
	uint64_t	mask,
				v,
				pattern = 0;

	if (s->kind != SL_SEC_PALETTE || s->states == NULL || s->spanning || s->bits == 0)
		return -1;
	per = 64 / s->bits;
	mask = s->bits == 64 ? UINT64_MAX : ((uint64_t) 1 << s->bits) - 1;
	l0 = n0 / per;
	v = sl_get_u64be(s->states + 8 * (size_t) l0) & mask;
	if (v >= s->npalette)
		return -1;
	for (uint32_t k = 0; k < per; k++)
		pattern |= v << (k * s->bits);
	for (uint32_t l = l0; l <= (n0 + 255) / per; l++)
		if (sl_get_u64be(s->states + 8 * (size_t) l) != pattern)
			return -1;
	return (int) v;
}

/* The colours of layer ly of section i, any kind. */
static int
layer_colors(walk *w, int i, int ly, uint8_t lay[256], sl_err *err)
{
	if (w->c->sections[i].kind == SL_SEC_PALETTE)
		return palette_layer(w, i, ly, lay, err);
	for (int z = 0; z < 16; z++)
		for (int x = 0; x < 16; x++)
		{
			uint32_t	key;
			int			c;

			if (sl_section_key(w->c, i, x, ly, z, &key, err) ||
				(c = legacy_color(w->cache, key, err)) < 0)
				return -1;
			lay[z * 16 + x] = (uint8_t) c;
		}
	return 0;
}

/* Column states of the walk. */
enum
{
	SEARCHING = 0,				/* no block drawn found yet */
	DEPTH,						/* on water: counting the water below */
	DONE
};

/* Columns not done yet, as a list (order does not matter), and how many count water. */
typedef struct active
{
	uint8_t		st[256];		/* state per column */
	uint8_t		col[256];		/* the columns not done */
	int			n;
	int			depth;			/* of them, in DEPTH */
} active;

/* Mark the column at list position k done (the last one takes its place). */
static inline void
column_done(active *a, int k)
{
	a->st[a->col[k]] = DONE;
	a->col[k] = a->col[--a->n];
}

/* End the water of every column still counting (air below: one more block). */
static void
end_water(active *a, sl_map_column cols[256])
{
	for (int k = a->n - 1; k >= 0 && a->depth > 0; k--)
	{
		int			c = a->col[k];

		if (a->st[c] != DEPTH)
			continue;
		if (cols[c].depth < 255)
			cols[c].depth++;
		a->depth--;
		column_done(a, k);
	}
}

/*
 * One block of every column not done (layer colours lay at world y):
 * find the block drawn, then count the water under a water surface, down
 * to and including the first block that is not water.
 */
static void
walk_layer(const uint8_t lay[256], int y, int search, active *a, sl_map_column cols[256])
{
	for (int k = a->n - 1; k >= 0; k--)
	{
		int			c = a->col[k];
		uint8_t		v = lay[c];

		if (a->st[c] == SEARCHING)
		{
			if (!search || v == SL_MAP_NONE)
				continue;
			cols[c].base = v;
			cols[c].height = (int16_t) y;
			if (v == SL_MAP_WATER)
			{
				a->st[c] = DEPTH;
				a->depth++;
			}
			else
				column_done(a, k);
		}
		else if (++cols[c].depth, v != SL_MAP_WATER || cols[c].depth == 255)
		{
			a->depth--;
			column_done(a, k);
		}
	}
}

/* The 256 columns of an opened chunk: sections from the top, layer by layer. */
int
sl_map_chunk(sl_chunk_blocks *c, const sl_map_opts *o, sl_map_cache *cache,
			 sl_map_column cols[256], sl_err *err)
{
	walk		w;
	uint8_t		lay[256];
	active		a;
	int			n = c->nsections ? c->nsections : 1;
	int			above = INT32_MAX;	/* section Y of the last section walked */

	memset(cols, 0, 256 * sizeof(sl_map_column));
	if (c->nsections == 0)
		return 0;
	memset(a.st, SEARCHING, sizeof(a.st));
	for (int k = 0; k < 256; k++)
		a.col[k] = (uint8_t) k;
	a.n = 256;
	a.depth = 0;
	memset(&w, 0, sizeof(w));
	w.c = c;
	w.cache = cache;
	w.pal = sl_arena_alloc(c->arena, (size_t) n * sizeof(uint8_t *), err);
	w.drawn = sl_arena_alloc(c->arena, (size_t) n, err);
	if (w.pal == NULL || w.drawn == NULL)
		return -1;
	memset(w.pal, 0, (size_t) n * sizeof(uint8_t *));
	for (int i = c->nsections - 1; i >= 0 && a.n > 0; i--)
	{
		const sl_section *s = &c->sections[i];
		int			ybase = s->y * 16;

		if (sl_section_load(c, i, err))
			return -1;
		if (s->kind == 0)
			continue;
		if (above != INT32_MAX && s->y != above - 1)
			end_water(&a, cols);	/* a section the chunk lacks: air */
		above = s->y;
		if (s->kind == SL_SEC_PALETTE)
		{
			if (w.pal[i] == NULL && resolve_palette(&w, i, err))
				return -1;
			if (!w.drawn[i])
			{
				end_water(&a, cols);	/* air, or blocks the map looks through */
				continue;
			}
		}
		for (int ly = 15; ly >= 0 && a.n > 0; ly--)
		{
			int			search = !o->has_y_max || ybase + ly <= o->y_max;
			int			u;

			/* above y_max nothing is searched and nothing can be counting water yet */
			if (!search && a.depth == 0)
				continue;
			if ((u = uniform_layer(&w, i, ly)) >= 0)
			{
				if (w.pal[i][u] == SL_MAP_NONE && a.depth == 0)
					continue;	/* nothing to find, no water to end */
				memset(lay, w.pal[i][u], 256);
			}
			else if (layer_colors(&w, i, ly, lay, err))
				return -1;
			walk_layer(lay, ybase + ly, search, &a, cols);
		}
	}
	return 0;
}

/* Shade of a column as the game's map gives it: 0 darker, 1 flat, 2 lighter. */
static int
shade(const sl_map_column *c, const sl_map_column *north, uint32_t parity)
{
	int			f10;

	if (c->base == SL_MAP_WATER)
	{
		/* depth * 0.1 + parity * 0.2: < 0.5 lighter, > 0.9 darker */
		f10 = c->depth + 2 * (int) parity;
		return f10 < 5 ? 2 : f10 > 9 ? 0 : 1;
	}
	/* (height - north) + (parity - 0.5) * 0.4: > 0.6 lighter, < -0.6 darker */
	f10 = 10 * (c->height - north->height) + (parity ? 2 : -2);
	return f10 > 6 ? 2 : f10 < -6 ? 0 : 1;
}

/* Shade every column into m->colors. */
int
sl_map_shade(sl_map *m, sl_err *err)
{
	size_t		n = (size_t) m->width * m->height;

	if (m->colors == NULL && (m->colors = sl_alloc_err(n ? n : 1, err)) == NULL)
		return -1;
	for (uint32_t z = 0; z < m->height; z++)
	{
		const sl_map_column *row = m->cols + (size_t) z * m->width;
		const sl_map_column *up = z ? row - m->width : row;
		uint8_t    *out = m->colors + (size_t) z * m->width;

		if ((z & 63) == 63)
			sl_interrupt();
		for (uint32_t x = 0; x < m->width; x++)
		{
			const sl_map_column *c = &row[x];
			const sl_map_column *north = up[x].base ? &up[x] : c;
			uint32_t	parity = ((uint32_t) m->x0 + x + (uint32_t) m->z0 + z) & 1;

			out[x] = c->base ? (uint8_t) (c->base * 4 + shade(c, north, parity)) : 0;
		}
	}
	return 0;
}

/* Size in block columns of the map of a value, within the cap. */
int
sl_map_size(const sl_header *h, const sl_map_opts *o, uint32_t *width, uint32_t *height,
			sl_err *err)
{
	uint64_t	w;
	uint64_t	hh;
	uint64_t	s = o->scale;

	if (o->scale < 1)
		return sl_fail(err, SL_ERR_INVALID, "scale must be at least 1");
	if (h->chunk_count == 0)
		return sl_fail(err, SL_ERR_INVALID, "the value has no chunks to draw");
	if (h->max_x < h->min_x || h->max_z < h->min_z)
		return sl_fail(err, SL_ERR_CORRUPT, "chunk bounds (%d,%d)..(%d,%d) are inverted",
					   h->min_x, h->min_z, h->max_x, h->max_z);
	w = ((uint64_t) ((int64_t) h->max_x - h->min_x) + 1) * 16;
	hh = ((uint64_t) ((int64_t) h->max_z - h->min_z) + 1) * 16;
	if (w * s > INT32_MAX || hh * s > INT32_MAX || (w * s) * (hh * s) > o->max_pixels)
		return sl_fail(err, SL_ERR_LIMIT,
					   "a map of %llu x %llu pixels (chunks %d..%d by %d..%d, scale %u) exceeds the cap of %llu pixels",
					   (unsigned long long) (w * s), (unsigned long long) (hh * s),
					   h->min_x, h->max_x, h->min_z, h->max_z, o->scale,
					   (unsigned long long) o->max_pixels);
	*width = (uint32_t) w;
	*height = (uint32_t) hh;
	return 0;
}

/* Copy a chunk's columns into the map. */
static void
place_chunk(sl_map *m, int32_t cx, int32_t cz, const sl_map_column cols[256])
{
	size_t		px = (size_t) ((int64_t) cx * 16 - m->x0);
	size_t		pz = (size_t) ((int64_t) cz * 16 - m->z0);

	for (int z = 0; z < 16; z++)
		memcpy(&m->cols[(pz + z) * m->width + px], &cols[z * 16], 16 * sizeof(sl_map_column));
}

/* The 256 columns of a chunk whose region NBT is nbt (d: its directory entry). */
int
sl_map_chunk_nbt(const sl_dirent *d, const uint8_t *nbt, const sl_map_opts *o, const sl_limits *lim,
				 sl_map_cache *cache, sl_map_column cols[256], sl_err *err)
{
	sl_arena	arena = {0};
	sl_chunk_blocks cb;
	int			rc;

	rc = sl_chunk_blocks_scan(nbt, d->len[SL_COMP_REGION], d->data_version, lim, &arena, &cb, err);
	if (rc == 0)
		rc = sl_map_chunk(&cb, o, cache, cols, err);
	sl_arena_free(&arena);
	if (rc)
	{
		sl_err_prefix(err, "chunk (%d,%d)", d->x, d->z);
		if (err->code == SL_ERR_FORMAT)
			err->code = SL_ERR_CORRUPT;
		return -1;
	}
	return 0;
}

/* Render one chunk (directory entry i) into the map. */
static int
render_chunk(sl_value *v, uint32_t i, const sl_map_opts *o, const sl_limits *lim,
			 sl_map_cache *cache, sl_map *m, sl_err *err)
{
	const uint8_t *comp[SL_NCOMP];
	sl_dirent	d;
	sl_map_column cols[256];

	if (sl_value_chunk(v, i, &d, comp, err))
		return -1;
	if ((int64_t) d.x * 16 < m->x0 || (int64_t) d.z * 16 < m->z0 ||
		(int64_t) d.x * 16 + 16 > (int64_t) m->x0 + m->width ||
		(int64_t) d.z * 16 + 16 > (int64_t) m->z0 + m->height)
		return sl_fail(err, SL_ERR_CORRUPT, "chunk (%d,%d) lies outside the value's bounds", d.x, d.z);
	if (d.len[SL_COMP_REGION] == 0)
		return 0;
	if (sl_map_chunk_nbt(&d, comp[SL_COMP_REGION], o, lim, cache, cols, err))
		return -1;
	place_chunk(m, d.x, d.z, cols);
	return 0;
}

/* Render every chunk of an open value into m. */
int
sl_map_render(sl_value *v, const sl_map_opts *o, const sl_limits *lim, sl_map *m, sl_err *err)
{
	sl_map_cache cache = {0};
	size_t		n;
	int			rc = 0;

	memset(m, 0, sizeof(*m));
	if (sl_map_size(&v->hdr, o, &m->width, &m->height, err))
		return -1;
	m->x0 = (int32_t) ((int64_t) v->hdr.min_x * 16);
	m->z0 = (int32_t) ((int64_t) v->hdr.min_z * 16);
	n = (size_t) m->width * m->height;
	m->cols = sl_alloc_err(n * sizeof(sl_map_column), err);
	if (m->cols == NULL)
		return -1;
	memset(m->cols, 0, n * sizeof(sl_map_column));
	for (uint32_t i = 0; i < v->hdr.chunk_count && rc == 0; i++)
	{
		sl_interrupt();
		rc = render_chunk(v, i, o, lim, &cache, m, err);
		if (rc == 0 && o->progress)
			o->progress(o->progress_ctx, i + 1, v->hdr.chunk_count);
	}
	sl_map_cache_free(&cache);
	if (rc == 0)
		rc = sl_map_shade(m, err);
	if (rc)
		sl_map_free(m);
	return rc;
}

/* Free a render's caches. */
void
sl_map_cache_free(sl_map_cache *cache)
{
	sl_free(cache->legacy);
	cache->legacy = NULL;
}

/* Free a map. */
void
sl_map_free(sl_map *m)
{
	sl_free(m->cols);
	sl_free(m->colors);
	m->cols = NULL;
	m->colors = NULL;
}
