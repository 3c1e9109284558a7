/*
 * sl_schem_paste.c - a read schematic written into the chunks of a value
 * (see sl_schem.h).
 *
 * Each touched chunk's sections are rewritten: old indices mapped to
 * schematic states or kept, the box overlaid, the palette rebuilt in order
 * of first use and the indices repacked; the chunk tree is then written
 * back, so that every tag the paste does not touch keeps its bytes. Only
 * what changes is written: a section whose states all stay, and a chunk
 * where neither a section nor the block entities change, are kept as they
 * are (the chunk not re-encoded at all).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "sl_blocks.h"
#include "sl_chunk.h"
#include "sl_codec.h"
#include "sl_schem_int.h"

/* Bits per block index of a palette of n entries (at least 4, as Minecraft writes). */
static int
block_bits(uint32_t n)
{
	int			b = sl_ceil_log2(n);

	return b < 4 ? 4 : b;
}

/* ---- building tree nodes ---- */

static sl_nbt *
mk_int(sl_arena *a, uint8_t type, const char *name, int64_t v, sl_err *err)
{
	sl_nbt	   *t = sl_schem_mk(a, type, name, err);

	if (t)
		t->v.i = v;
	return t;
}

static sl_nbt *
mk_list(sl_arena *a, const char *name, uint8_t elem, sl_nbt **items, uint32_t n, sl_err *err)
{
	sl_nbt	   *t = sl_schem_mk(a, SL_TAG_LIST, name, err);

	if (t)
	{
		t->v.list.elem_type = n ? elem : SL_TAG_END;
		t->v.list.count = n;
		t->v.list.items = items;
	}
	return t;
}

static sl_nbt *
mk_longs(sl_arena *a, const char *name, const uint8_t *data, uint32_t n, sl_err *err)
{
	sl_nbt	   *t = sl_schem_mk(a, SL_TAG_LONG_ARRAY, name, err);

	if (t)
	{
		t->v.arr.data = data;
		t->v.arr.count = n;
	}
	return t;
}

/* Replace the child of c named like child (the last of duplicates), or append it. */
static int
comp_set(sl_arena *a, sl_nbt *c, sl_nbt *child, sl_err *err)
{
	sl_nbt	  **items;

	for (uint32_t i = c->v.comp.count; i-- > 0;)
		if (c->v.comp.items[i]->name_len == child->name_len &&
			memcmp(c->v.comp.items[i]->name, child->name, child->name_len) == 0)
		{
			c->v.comp.items[i] = child;
			return 0;
		}
	items = sl_arena_alloc(a, ((size_t) c->v.comp.count + 1) * sizeof(sl_nbt *), err);
	if (items == NULL)
		return -1;
	if (c->v.comp.count)
		memcpy(items, c->v.comp.items, (size_t) c->v.comp.count * sizeof(sl_nbt *));
	items[c->v.comp.count++] = child;
	c->v.comp.items = items;
	return 0;
}

/* Remove every child of c with this name. */
static void
comp_remove(sl_nbt *c, const char *name)
{
	uint32_t	keep = 0;

	for (uint32_t i = 0; i < c->v.comp.count; i++)
		if (!sl_schem_named(c->v.comp.items[i], name))
			c->v.comp.items[keep++] = c->v.comp.items[i];
	c->v.comp.count = keep;
}

/* ---- paste ---- */

/* A block entity of the schematic and the chunk it lands in. */
typedef struct be_slot
{
	int32_t		cx,
				cz;
	uint32_t	i;
} be_slot;

typedef struct paste_ctx
{
	const sl_schem *s;
	const sl_limits *lim;
	int32_t		px,
				py,
				pz;
	int64_t		qx,
				qy,
				qz;				/* the box's maximum corner */
	int32_t		cx0,
				cx1,
				cz0,
				cz1;
	uint32_t   *stamp;			/* per state id: generation last seen */
	uint32_t   *newidx;
	uint32_t	nids;			/* schematic states + SL_MAX_PALETTE chunk entries */
	uint32_t	gen;
	be_slot    *bes;
	sl_buf		scratch;
} paste_ctx;

/* One chunk being rewritten. */
typedef struct chunk_edit
{
	sl_arena	arena;
	sl_nbt	   *root;
	sl_nbt	   *list;			/* the section list */
	sl_chunk_blocks cb;
	int32_t		cx,
				cz;
	int			modern;
	int			spanning;		/* for new sections */
	int			ymin,
				ymax;			/* sections that may hold blocks */
	int			light_flag;		/* the chunk has isLightOn (1.14+ light engine) */
} chunk_edit;

static int
be_slot_cmp(const void *a, const void *b)
{
	const be_slot *p = a;
	const be_slot *q = b;

	if (p->cx != q->cx)
		return p->cx < q->cx ? -1 : 1;
	if (p->cz != q->cz)
		return p->cz < q->cz ? -1 : 1;
	return p->i < q->i ? -1 : p->i > q->i;
}

/* First block entity slot of chunk (cx, cz) (binary search). */
static uint32_t
be_first(const paste_ctx *p, int32_t cx, int32_t cz)
{
	uint32_t	lo = 0,
				hi = p->s->nbe;

	while (lo < hi)
	{
		uint32_t	mid = lo + (hi - lo) / 2;
		const be_slot *b = &p->bes[mid];

		if (b->cx < cx || (b->cx == cx && b->cz < cz))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Does the schematic hold only air (and no block entity) in the part of the box in chunk column (cx, cz), sections sy0..sy1? */
static int
column_all_air(paste_ctx *p, int32_t cx, int32_t cz, int64_t ya, int64_t yb, int *air,
			   sl_err *err)
{
	const sl_schem *s = p->s;
	int64_t		xa = (int64_t) cx * 16 > p->px ? (int64_t) cx * 16 : p->px;
	int64_t		xb = (int64_t) cx * 16 + 15 < p->qx ? (int64_t) cx * 16 + 15 : p->qx;
	int64_t		za = (int64_t) cz * 16 > p->pz ? (int64_t) cz * 16 : p->pz;
	int64_t		zb = (int64_t) cz * 16 + 15 < p->qz ? (int64_t) cz * 16 + 15 : p->qz;
	uint32_t	run[16];

	*air = 0;
	if (ya < p->py)
		ya = p->py;
	if (yb > p->qy)
		yb = p->qy;
	for (uint32_t k = be_first(p, cx, cz); k < s->nbe && p->bes[k].cx == cx && p->bes[k].cz == cz; k++)
	{
		const sl_schem_be *b = &s->be[p->bes[k].i];

		if (p->py + (int64_t) b->y >= ya && p->py + (int64_t) b->y <= yb)
			return 0;
	}
	for (int64_t y = ya; y <= yb; y++)
	{
		if ((y & 15) == 0)
			sl_interrupt();
		for (int64_t z = za; z <= zb; z++)
		{
			uint64_t	i = (uint64_t) (xa - p->px) + (uint64_t) (z - p->pz) * s->width +
				(uint64_t) (y - p->py) * s->width * s->length;
			uint32_t	n = (uint32_t) (xb - xa + 1);

			if (sl_schem_run(s, i, n, run, err))
				return -1;
			for (uint32_t k = 0; k < n; k++)
				if (!s->palette[run[k]].air)
					return 0;
		}
	}
	*air = 1;
	return 0;
}

/* The list item of section sy: one with block data first, else any (light only). */
static sl_nbt *
section_item(const chunk_edit *e, int sy, int *has_blocks)
{
	sl_nbt	   *any = NULL;

	*has_blocks = 0;
	if (e->list == NULL || e->list->v.list.elem_type != SL_TAG_COMPOUND)
		return NULL;
	for (uint32_t i = 0; i < e->list->v.list.count; i++)
	{
		sl_nbt	   *it = e->list->v.list.items[i];
		int64_t		y;
		int			blocks;

		if (!sl_schem_int_tag(sl_nbt_child(it, "Y"), &y) || y != sy)
			continue;
		blocks = e->modern ? sl_nbt_child(it, "block_states") != NULL :
			sl_nbt_child(it, "Palette") != NULL && sl_nbt_child(it, "BlockStates") != NULL;
		if (blocks)
		{
			*has_blocks = 1;
			return it;
		}
		if (any == NULL)
			any = it;
	}
	return any;
}

/* Insert a new section compound into the list, in Y order. */
static int
insert_section(chunk_edit *e, sl_nbt *sec, int sy, sl_err *err)
{
	sl_nbt	   *l = e->list;
	uint32_t	n = l->v.list.count;
	uint32_t	at = n;
	sl_nbt	  **items = sl_arena_alloc(&e->arena, ((size_t) n + 1) * sizeof(sl_nbt *), err);

	if (items == NULL)
		return -1;
	for (uint32_t i = 0; i < n; i++)
	{
		int64_t		y;

		if (sl_schem_int_tag(sl_nbt_child(l->v.list.items[i], "Y"), &y) && y > sy)
		{
			at = i;
			break;
		}
	}
	if (at)
		memcpy(items, l->v.list.items, (size_t) at * sizeof(sl_nbt *));
	items[at] = sec;
	if (n > at)
		memcpy(items + at + 1, l->v.list.items + at, (size_t) (n - at) * sizeof(sl_nbt *));
	l->v.list.items = items;
	l->v.list.count = n + 1;
	l->v.list.elem_type = SL_TAG_COMPOUND;
	return 0;
}

/*
 * Rewrite (or create) section sy of a chunk with the schematic's blocks
 * overlaid; *changed = 0 (the section left as it is) when every block
 * state stays the same.
 */
static int
paste_section(paste_ctx *p, chunk_edit *e, int sy, int *changed, sl_err *err)
{
	const sl_schem *s = p->s;
	int64_t		bx = (int64_t) e->cx * 16,
				bz = (int64_t) e->cz * 16,
				by = (int64_t) sy * 16;
	int64_t		xa = bx > p->px ? bx : p->px,
				xb = bx + 15 < p->qx ? bx + 15 : p->qx;
	int64_t		za = bz > p->pz ? bz : p->pz,
				zb = bz + 15 < p->qz ? bz + 15 : p->qz;
	int64_t		ya = by > p->py ? by : p->py,
				yb = by + 15 < p->qy ? by + 15 : p->qy;
	const sl_section *old = NULL;
	uint32_t	g[SL_SECTION_VOLUME];
	uint32_t	idx[SL_SECTION_VOLUME];
	uint32_t	lmap[SL_MAX_PALETTE];
	uint32_t	run[16];
	int			differs = 0;
	uint32_t	base = s->npalette;
	sl_nbt	  **nodes;
	uint32_t	n = 0;
	int			bits;
	int			spanning;
	uint32_t	nl;
	uint8_t    *longs;
	sl_nbt	   *item;
	int			has_blocks;

	*changed = 0;
	for (int i = 0; i < e->cb.nsections; i++)
		if (e->cb.sections[i].y == sy && e->cb.sections[i].kind == SL_SEC_PALETTE)
			old = &e->cb.sections[i];
	if (old == NULL)
	{
		int			air;

		if (column_all_air(p, e->cx, e->cz, ya, yb, &air, err))
			return -1;
		if (air)
			return 0;			/* nothing to write where the chunk keeps no section */
		differs = 1;			/* a new section with blocks */
		if (e->ymin > e->ymax)
			return sl_fail(err, SL_ERR_INVALID,
						   "blocks at y=%lld..%lld: the chunk holds no block sections to paste into",
						   (long long) ya, (long long) yb);
		if (sy < e->ymin || sy > e->ymax)
			return sl_fail(err, SL_ERR_INVALID,
						   "blocks at y=%lld..%lld fall in section Y=%d, outside the chunk's sections (Y=%d..%d)",
						   (long long) ya, (long long) yb, sy, e->ymin, e->ymax);
		for (uint32_t k = 0; k < SL_SECTION_VOLUME; k++)
			g[k] = s->air_index;
		spanning = e->spanning;
	}
	else
	{
		if (old->npalette > p->lim->max_palette)
			return sl_fail(err, SL_ERR_LIMIT, "section Y=%d: palette of %u entries exceeds the cap of %u",
						   sy, old->npalette, p->lim->max_palette);
		/* the old states as state ids: the schematic's where it names the same state */
		for (uint32_t k = 0; k < old->npalette; k++)
		{
			uint32_t	m;

			p->scratch.len = 0;
			if (sl_schem_canon_entry(old->palette[k], &p->scratch, err))
				return -1;
			m = sl_schem_strmap_find(s->map, (const char *) p->scratch.data, p->scratch.len);
			lmap[k] = m != NO_INDEX ? s->palette[m].alias : base + k;
		}
		if (old->states)
			sl_unpack_indices(old->states, SL_SECTION_VOLUME, old->bits, old->spanning, idx);
		else
			memset(idx, 0, sizeof(idx));
		for (uint32_t k = 0; k < SL_SECTION_VOLUME; k++)
		{
			if (idx[k] >= old->npalette)
				return sl_fail(err, SL_ERR_CORRUPT, "section Y=%d: palette index %u past palette of %u entries",
							   sy, idx[k], old->npalette);
			g[k] = lmap[idx[k]];
		}
		spanning = e->modern ? 0 : old->spanning;
	}
	/* the box, row by row, noting whether any state changes */
	for (int64_t y = ya; y <= yb; y++)
		for (int64_t z = za; z <= zb; z++)
		{
			uint64_t	i = (uint64_t) (xa - p->px) + (uint64_t) (z - p->pz) * s->width +
				(uint64_t) (y - p->py) * s->width * s->length;
			uint32_t	at = (uint32_t) (((y - by) * 16 + (z - bz)) * 16 + (xa - bx));
			uint32_t	n = (uint32_t) (xb - xa + 1);

			if (sl_schem_run(s, i, n, run, err))
				return -1;
			for (uint32_t k = 0; k < n; k++)
			{
				differs |= g[at + k] != run[k];
				g[at + k] = run[k];
			}
		}
	if (!differs)
		return 0;				/* same states: the section keeps its bytes */
	*changed = 1;
	/* palette in order of first use */
	if (++p->gen == 0)
	{
		memset(p->stamp, 0, (size_t) p->nids * sizeof(uint32_t));
		p->gen = 1;
	}
	nodes = sl_arena_alloc(&e->arena, SL_SECTION_VOLUME * sizeof(sl_nbt *), err);
	if (nodes == NULL)
		return -1;
	for (uint32_t k = 0; k < SL_SECTION_VOLUME; k++)
	{
		uint32_t	v = g[k];

		if (p->stamp[v] != p->gen)
		{
			p->stamp[v] = p->gen;
			p->newidx[v] = n;
			nodes[n++] = v < base ? s->palette[v].node : old->palette[v - base];
		}
		idx[k] = p->newidx[v];
	}
	bits = block_bits(n);
	nl = sl_packed_longs(SL_SECTION_VOLUME, bits, spanning);
	longs = sl_arena_alloc(&e->arena, (size_t) nl * 8, err);
	if (longs == NULL)
		return -1;
	sl_pack_indices(idx, SL_SECTION_VOLUME, bits, spanning, longs);
	/* into the tree */
	item = section_item(e, sy, &has_blocks);
	if (item == NULL)
	{
		sl_nbt	  **items = sl_arena_alloc(&e->arena, sizeof(sl_nbt *), err);

		if (items == NULL || (items[0] = mk_int(&e->arena, SL_TAG_BYTE, "Y", sy, err)) == NULL)
			return -1;
		item = sl_schem_mk_compound(&e->arena, "", items, 1, err);
		if (item == NULL || insert_section(e, item, sy, err))
			return -1;
	}
	else if (e->light_flag)
	{
		/* stale now; with isLightOn 0 Minecraft ignores the chunk's stored light and relights it */
		comp_remove(item, "BlockLight");
		comp_remove(item, "SkyLight");
	}
	if (e->modern)
	{
		sl_nbt	   *bs = (sl_nbt *) sl_nbt_child(item, "block_states");
		sl_nbt	   *pal;

		if (bs == NULL || bs->type != SL_TAG_COMPOUND)
		{
			bs = sl_schem_mk_compound(&e->arena, "block_states", NULL, 0, err);
			if (bs == NULL || comp_set(&e->arena, item, bs, err))
				return -1;
		}
		pal = mk_list(&e->arena, "palette", SL_TAG_COMPOUND, nodes, n, err);
		if (pal == NULL || comp_set(&e->arena, bs, pal, err))
			return -1;
		if (n == 1)
			comp_remove(bs, "data");
		else
		{
			sl_nbt	   *data = mk_longs(&e->arena, "data", longs, nl, err);

			if (data == NULL || comp_set(&e->arena, bs, data, err))
				return -1;
		}
	}
	else
	{
		sl_nbt	   *pal = mk_list(&e->arena, "Palette", SL_TAG_COMPOUND, nodes, n, err);
		sl_nbt	   *data = mk_longs(&e->arena, "BlockStates", longs, nl, err);

		if (pal == NULL || data == NULL || comp_set(&e->arena, item, pal, err) ||
			comp_set(&e->arena, item, data, err))
			return -1;
	}
	return 0;
}

/* Bytes in a buffer being built: where they start, how long; p once the buffer is done. */
typedef struct span
{
	size_t		off;
	size_t		len;
	const uint8_t *p;
} span;

/* Order two spans by their bytes (a shorter prefix first). */
static int
span_cmp(const void *a, const void *b)
{
	const span *x = a;
	const span *y = b;
	int			c = memcmp(x->p, y->p, x->len < y->len ? x->len : y->len);

	return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* Point the n spans at their bytes in buf and sort them. */
static void
spans_sort(span *sp, uint32_t n, const sl_buf *buf)
{
	for (uint32_t i = 0; i < n; i++)
		sp[i].p = buf->data + sp[i].off;
	if (n > 1)
		qsort(sp, n, sizeof(span), span_cmp);
}

/*
 * Append compound c to out in canonical form: its children, each written
 * as NBT, in byte order (so that the same fields in any order give the
 * same bytes). tmp is scratch.
 */
static int
canon_compound(const sl_nbt *c, sl_buf *out, sl_buf *tmp, sl_arena *a, sl_err *err)
{
	uint32_t	n = c->v.comp.count;
	span	   *sp = sl_arena_alloc(a, ((size_t) n + 1) * sizeof(span), err);

	if (sp == NULL)
		return -1;
	tmp->len = 0;
	for (uint32_t i = 0; i < n; i++)
	{
		sp[i].off = tmp->len;
		if (sl_nbt_write(c->v.comp.items[i], tmp, err))
			return -1;
		sp[i].len = tmp->len - sp[i].off;
	}
	spans_sort(sp, n, tmp);
	for (uint32_t i = 0; i < n; i++)
		if (sl_buf_put_u32be(out, (uint32_t) sp[i].len, err) || sl_buf_put(out, sp[i].p, sp[i].len, err))
			return -1;
	return 0;
}

/*
 * Are two lists of n block entity compounds the same entries, in any order
 * and with their fields in any order?
 */
static int
same_block_entities(paste_ctx *p, chunk_edit *e, sl_nbt *const *x, sl_nbt *const *y, uint32_t n,
					int *same, sl_err *err)
{
	sl_buf		keys = {0};
	span	   *sp = sl_arena_alloc(&e->arena, 2 * ((size_t) n + 1) * sizeof(span), err);
	int			rc = -1;

	*same = 0;
	if (sp == NULL)
		return -1;
	for (uint32_t i = 0; i < 2 * n; i++)
	{
		sp[i].off = keys.len;
		if (canon_compound(i < n ? x[i] : y[i - n], &keys, &p->scratch, &e->arena, err))
			goto done;
		sp[i].len = keys.len - sp[i].off;
	}
	spans_sort(sp, n, &keys);
	spans_sort(sp + n, n, &keys);
	*same = 1;
	for (uint32_t i = 0; i < n && *same; i++)
		*same = span_cmp(&sp[i], &sp[n + i]) == 0;
	rc = 0;
done:
	sl_buf_free(&keys);
	return rc;
}

/*
 * Replace the chunk's block entities inside the box by the schematic's;
 * *changed = 0 (the list left as it is) when they are the same entries.
 */
static int
paste_block_entities(paste_ctx *p, chunk_edit *e, int *changed, sl_err *err)
{
	const sl_schem *s = p->s;
	sl_nbt	   *body = (sl_nbt *) sl_chunk_body(e->root);
	sl_nbt	   *list = (sl_nbt *) sl_chunk_block_entities(e->root);
	uint32_t	first = be_first(p, e->cx, e->cz);
	uint32_t	add = 0;
	uint32_t	keep = 0;
	uint32_t	gone = 0;
	uint32_t	n;
	sl_nbt	  **items;
	sl_nbt	  **old;
	int			same;

	*changed = 0;
	while (first + add < s->nbe && p->bes[first + add].cx == e->cx && p->bes[first + add].cz == e->cz)
		add++;
	if (list == NULL && add == 0)
		return 0;
	if (list != NULL && list->v.list.count > 0 && list->v.list.elem_type != SL_TAG_COMPOUND)
		return sl_fail(err, SL_ERR_CORRUPT, "block entity list is a list of %s",
					   sl_nbt_type_name(list->v.list.elem_type));
	n = list ? list->v.list.count : 0;
	items = sl_arena_alloc(&e->arena, ((size_t) n + add + 1) * sizeof(sl_nbt *), err);
	old = sl_arena_alloc(&e->arena, ((size_t) n + 1) * sizeof(sl_nbt *), err);
	if (items == NULL || old == NULL)
		return -1;
	for (uint32_t i = 0; i < n; i++)
	{
		sl_nbt	   *it = list->v.list.items[i];
		int64_t		x,
					y,
					z;

		if (sl_schem_int_tag(sl_nbt_child(it, "x"), &x) && sl_schem_int_tag(sl_nbt_child(it, "y"), &y) &&
			sl_schem_int_tag(sl_nbt_child(it, "z"), &z) &&
			x >= p->px && x <= p->qx && y >= p->py && y <= p->qy && z >= p->pz && z <= p->qz)
			old[gone++] = it;	/* inside the box: replaced */
		else
			items[keep++] = it;
	}
	for (uint32_t k = 0; k < add; k++)
	{
		const sl_schem_be *b = &s->be[p->bes[first + k].i];
		const sl_nbt *f = b->fields;
		uint32_t	nf = f ? f->v.comp.count : 0;
		sl_nbt	  **ch = sl_arena_alloc(&e->arena, ((size_t) nf + 4) * sizeof(sl_nbt *), err);
		uint32_t	m = 0;

		if (ch == NULL)
			return -1;
		for (uint32_t j = 0; j < nf; j++)
		{
			sl_nbt	   *t = f->v.comp.items[j];

			if (sl_schem_named(t, "id") || sl_schem_named(t, "x") || sl_schem_named(t, "y") || sl_schem_named(t, "z"))
				continue;
			if (b->skip_pos && (sl_schem_named(t, "Pos") || sl_schem_named(t, "Id") ||
								(s->version == 1 && sl_schem_named(t, "ContentVersion"))))
				continue;
			ch[m++] = t;
		}
		if ((ch[m++] = sl_schem_mk_string(&e->arena, "id", b->id, b->id_len, err)) == NULL ||
			(ch[m++] = mk_int(&e->arena, SL_TAG_INT, "x", p->px + (int64_t) b->x, err)) == NULL ||
			(ch[m++] = mk_int(&e->arena, SL_TAG_INT, "y", p->py + (int64_t) b->y, err)) == NULL ||
			(ch[m++] = mk_int(&e->arena, SL_TAG_INT, "z", p->pz + (int64_t) b->z, err)) == NULL)
			return -1;
		if ((items[keep + k] = sl_schem_mk_compound(&e->arena, "", ch, m, err)) == NULL)
			return -1;
	}
	if (gone == add)
	{
		if (same_block_entities(p, e, old, items + keep, add, &same, err))
			return -1;
		if (same)
			return 0;			/* the same entries: the list keeps its bytes */
	}
	*changed = 1;
	keep += add;
	if (list == NULL)
	{
		list = mk_list(&e->arena, e->modern ? "block_entities" : "TileEntities", SL_TAG_COMPOUND,
					   items, keep, err);
		return list == NULL || comp_set(&e->arena, body, list, err) ? -1 : 0;
	}
	list->v.list.items = items;
	list->v.list.count = keep;
	if (keep > 0)
		list->v.list.elem_type = SL_TAG_COMPOUND;
	return 0;
}

/*
 * Rewrite one chunk's region NBT with the schematic pasted; result in out.
 * *changed = 0 (out left empty) when no block state and no block entity
 * changes: the chunk is to be kept as it is.
 */
static int
paste_chunk(paste_ctx *p, const sl_dirent *d, const uint8_t *nbt, size_t len, sl_buf *out,
			int *changed, sl_err *err)
{
	chunk_edit	e;
	size_t		used;
	int			sy0 = floor16(p->py),
				sy1 = floor16(p->qy);
	sl_nbt	   *body;
	sl_nbt	   *light;
	int			blocks = 0;
	int			bes;
	int			rc = -1;

	memset(&e, 0, sizeof(e));
	e.cx = d->x;
	e.cz = d->z;
	if (sl_nbt_parse(nbt, len, p->lim, &e.arena, &e.root, &used, err) ||
		sl_chunk_blocks_from_tree(e.root, d->data_version, SL_WANT_BLOCKS, &e.arena, &e.cb, err))
	{
		if (err->code == SL_ERR_FORMAT)
			err->code = SL_ERR_CORRUPT;
		goto done;
	}
	if (e.cb.layout == SL_LAYOUT_MCREGION || e.cb.layout == SL_LAYOUT_ANVIL)
	{
		sl_fail(err, SL_ERR_UNSUPPORTED,
				"stores pre-1.13 numeric block ids (%s layout); schematics are pasted into 1.13+ chunks only",
				sl_layout_name(e.cb.layout));
		goto done;
	}
	e.modern = e.cb.layout == SL_LAYOUT_MODERN;
	body = (sl_nbt *) sl_chunk_body(e.root);
	light = (sl_nbt *) sl_nbt_child(body, "isLightOn");
	e.light_flag = light != NULL && light->type >= SL_TAG_BYTE && light->type <= SL_TAG_LONG;
	if (e.cb.layout == SL_LAYOUT_NONE)
	{
		/* no block sections: only air can be pasted (nothing to write) */
		e.ymin = 1;
		e.ymax = 0;
	}
	else
	{
		e.ymin = INT_MAX;
		e.ymax = INT_MIN;
		for (int i = 0; i < e.cb.nsections; i++)
			if (e.cb.sections[i].kind == SL_SEC_PALETTE)
			{
				if (e.cb.sections[i].y < e.ymin)
					e.ymin = e.cb.sections[i].y;
				if (e.cb.sections[i].y > e.ymax)
					e.ymax = e.cb.sections[i].y;
			}
		if (!e.modern)
		{
			/* before 1.18 Minecraft omits empty sections of a 256-high world */
			if (e.ymin > 0)
				e.ymin = 0;
			if (e.ymax < 15)
				e.ymax = 15;
		}
		e.list = (sl_nbt *) sl_nbt_child(e.root, "sections");
		if (e.list == NULL && body != e.root)
		{
			e.list = (sl_nbt *) sl_nbt_child(body, "Sections");
			if (e.list == NULL)
				e.list = (sl_nbt *) sl_nbt_child(body, "sections");
		}
		e.spanning = e.modern ? 0 : e.cb.data_version != SL_NO_DV ? e.cb.data_version < SL_DV_ALIGNED : 1;
		if (!e.modern && e.cb.data_version == SL_NO_DV)
			for (int i = 0; i < e.cb.nsections; i++)
				if (e.cb.sections[i].kind == SL_SEC_PALETTE)
					e.spanning = e.cb.sections[i].spanning;
	}
	for (int sy = sy0; sy <= sy1; sy++)
	{
		int			sec;

		sl_interrupt();
		if (paste_section(p, &e, sy, &sec, err))
		{
			if (strncmp(err->msg, "section", 7) != 0 && strncmp(err->msg, "blocks at", 9) != 0)
				sl_err_prefix(err, "section Y=%d", sy);
			goto done;
		}
		blocks |= sec;
	}
	if (paste_block_entities(p, &e, &bes, err))
		goto done;
	*changed = blocks || bes;
	if (!*changed)
	{
		rc = 0;
		goto done;
	}
	if (blocks)
	{
		/* Minecraft relights a chunk whose isLightOn is 0 and recomputes missing heightmaps */
		if (e.light_flag)
			light->v.i = 0;
		comp_remove(body, "Heightmaps");
	}
	if (sl_nbt_write(e.root, out, err))
		goto done;
	if (out->len > p->lim->max_chunk_raw)
	{
		sl_fail(err, SL_ERR_LIMIT, "would grow to %zu bytes, over the cap of %zu bytes per chunk",
				out->len, p->lim->max_chunk_raw);
		goto done;
	}
	rc = 0;
done:
	if (rc)
		sl_err_prefix(err, "chunk (%d,%d)", d->x, d->z);
	sl_arena_free(&e.arena);
	return rc;
}

/* Add a copy of len bytes as component comp of chunk d. */
static int
add_copy(sl_builder *b, int comp, const sl_dirent *d, const uint8_t *data, size_t len, sl_err *err)
{
	uint8_t    *copy = sl_alloc_err(len, err);

	if (copy == NULL)
		return -1;
	memcpy(copy, data, len);
	if (sl_builder_add(b, comp, d->x, d->z, d->timestamp, copy, len, 1, err))
	{
		sl_free(copy);
		return -1;
	}
	return 0;
}

int
sl_schem_paste(sl_value *v, const sl_schem *s, int32_t x, int32_t y, int32_t z,
			   const sl_limits *lim, sl_builder *b, sl_err *err)
{
	paste_ctx	p;
	uint8_t		manual = b->sum_manual;
	int			rc = -1;

	if (lim == NULL)
		lim = &sl_default_limits;
	memset(&p, 0, sizeof(p));
	/* the world's summary, less each chunk the paste changes and plus what it becomes */
	b->sum_manual = 1;
	if (b->n != 0)
		sl_builder_sum_lose(b);
	else if (sl_builder_sum_value(b, v, err))
		goto done;
	p.s = s;
	p.lim = lim;
	p.px = x;
	p.py = y;
	p.pz = z;
	p.qx = (int64_t) x + s->width - 1;
	p.qy = (int64_t) y + s->height - 1;
	p.qz = (int64_t) z + s->length - 1;
	if (p.qx > INT32_MAX || p.qy > INT32_MAX || p.qz > INT32_MAX)
		return sl_fail(err, SL_ERR_INVALID, "a %u x %u x %u schematic at (%d,%d,%d) reaches past the largest coordinate",
					   s->width, s->height, s->length, x, y, z);
	p.cx0 = floor16(x);
	p.cz0 = floor16(z);
	p.cx1 = floor16(p.qx);
	p.cz1 = floor16(p.qz);
	p.nids = s->npalette + SL_MAX_PALETTE;
	p.stamp = sl_alloc_err((size_t) p.nids * sizeof(uint32_t), err);
	p.newidx = sl_alloc_err((size_t) p.nids * sizeof(uint32_t), err);
	p.bes = sl_alloc_err(((size_t) s->nbe + 1) * sizeof(be_slot), err);
	if (p.stamp == NULL || p.newidx == NULL || p.bes == NULL)
		goto done;
	memset(p.stamp, 0, (size_t) p.nids * sizeof(uint32_t));
	for (uint32_t k = 0; k < s->nbe; k++)
	{
		p.bes[k].cx = floor16((int64_t) x + s->be[k].x);
		p.bes[k].cz = floor16((int64_t) z + s->be[k].z);
		p.bes[k].i = k;
	}
	if (s->nbe > 1)
		qsort(p.bes, s->nbe, sizeof(be_slot), be_slot_cmp);
	/* chunks the schematic covers but the value lacks: only air may land there */
	for (int64_t cz = p.cz0; cz <= p.cz1; cz++)
		for (int64_t cx = p.cx0; cx <= p.cx1; cx++)
		{
			int64_t		at = sl_value_find(v, (int32_t) cx, (int32_t) cz);
			sl_dirent	d;
			int			air;

			if (at >= 0)
			{
				if (sl_value_dirent(v, (uint32_t) at, &d, err))
					goto done;
				if (d.len[SL_COMP_REGION] > 0)
					continue;
			}
			if (column_all_air(&p, (int32_t) cx, (int32_t) cz, p.py, p.qy, &air, err))
				goto done;
			if (!air)
			{
				sl_fail(err, SL_ERR_INVALID,
						"chunk (%d,%d) is not in the world (or holds no region data), and the schematic puts blocks there",
						(int) cx, (int) cz);
				goto done;
			}
		}
	for (uint32_t i = 0; i < v->hdr.chunk_count; i++)
	{
		sl_dirent	d;
		const uint8_t *comp[SL_NCOMP];
		sl_buf		nbt = {0};
		int			changed;

		if ((i & 63) == 0)
			sl_interrupt();
		if (sl_value_dirent(v, i, &d, err))
			goto done;
		if (d.x < p.cx0 || d.x > p.cx1 || d.z < p.cz0 || d.z > p.cz1 || d.len[SL_COMP_REGION] == 0)
		{
			if (sl_builder_add_chunk(b, v, i, SL_ADD_KEEP, err))
				goto done;
			continue;
		}
		if (sl_value_chunk(v, i, &d, comp, err))
			goto done;
		if (paste_chunk(&p, &d, comp[SL_COMP_REGION], d.len[SL_COMP_REGION], &nbt, &changed, err))
		{
			sl_buf_free(&nbt);
			goto done;
		}
		if (!changed)
		{
			/* nothing of it changes: kept as it is (a stored reference stays one) */
			if (sl_builder_add_chunk(b, v, i, SL_ADD_KEEP, err))
				goto done;
			continue;
		}
		if (sl_builder_sum_chunk(b, d.data_version, comp, d.len, -1, err))
		{
			sl_err_prefix(err, "chunk (%d,%d)", d.x, d.z);
			sl_buf_free(&nbt);
			goto done;
		}
		if (sl_builder_add(b, SL_COMP_REGION, d.x, d.z, d.timestamp, nbt.data, nbt.len, 1, err))
		{
			sl_buf_free(&nbt);
			goto done;
		}
		for (int k = 1; k < SL_NCOMP; k++)
			if (d.len[k] && add_copy(b, k, &d, comp[k], d.len[k], err))
				goto done;
		if (sl_builder_sum_pieces(b, d.x, d.z, 1, lim, err))
			goto done;
		if (b->total > lim->max_value_raw)
		{
			sl_fail(err, SL_ERR_LIMIT, "the pasted world (%llu bytes) exceeds the world size cap of %zu bytes",
					(unsigned long long) b->total, lim->max_value_raw);
			goto done;
		}
	}
	rc = sl_builder_add_world(b, v, err);
done:
	b->sum_manual = manual;
	sl_free(p.stamp);
	sl_free(p.newidx);
	sl_free(p.bes);
	sl_buf_free(&p.scratch);
	return rc;
}
