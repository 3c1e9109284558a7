/*
 * sl_slimefile_write.c - a value as a version-13 slime file.
 *
 * Two passes over the value's chunks: the first checks that a version-13
 * file can hold them and settles the DataVersion, flags and section range,
 * the second serializes. The layout is AdvancedSlimePaper's
 * (SlimeSerializer.java, reader/impl/v13); doc/format.md, "Slime files".
 */
#include "sl_slimefile_int.h"
#include "sl_chunk.h"
#include "sl_zstd.h"

#include <stdio.h>
#include <string.h>
#include <zstd.h>

typedef struct sw
{
	sl_value   *v;
	const sl_limits *lim;
	sl_err	   *err;
	sl_arena	a;				/* the chunk being written */
	int32_t		dv;
	int			have_dv;
	int			flags;
	int			sec_min;
	int			sec_max;
	/* region-derived worlds: the yPos every chunk shares */
	int			ypos_seen;
	int32_t		ypos;
	int			top_seen;
	int			top;			/* highest section Y with block data */
	int			derived;		/* world compound has no "slime": properties are made up */
	uint32_t	x_pass;
	sl_slimefile_info *info;
} sw;

/* Get a child of a given type, NULL when absent; a wrong type is an error. */
static int
want(sw *w, const sl_dirent *d, const sl_nbt *parent, const char *name, int type,
	 const char *what, const sl_nbt **out)
{
	const sl_nbt *c = sl_nbt_child(parent, name);

	*out = NULL;
	if (c == NULL)
		return 0;
	if (c->type != type)
		return sl_fail(w->err, SL_ERR_UNSUPPORTED,
					   "chunk (%d,%d): %s \"%s\" is a %s, not a %s; a slime file cannot hold it",
					   d->x, d->z, what, name, sl_nbt_type_name(c->type), sl_nbt_type_name(type));
	*out = c;
	return 0;
}

/* Parse one stored component of chunk d into the writer's arena. */
static int
parse_comp(sw *w, const sl_dirent *d, const uint8_t *data, uint32_t len, const char *kind,
		   sl_nbt **root)
{
	size_t		used;

	if (sl_nbt_parse(data, len, w->lim, &w->a, root, &used, w->err))
	{
		sl_err_prefix(w->err, "chunk (%d,%d): %s NBT", d->x, d->z, kind);
		if (w->err->code == SL_ERR_FORMAT)
			w->err->code = SL_ERR_CORRUPT;
		return -1;
	}
	if ((*root)->type != SL_TAG_COMPOUND)
		return sl_fail(w->err, SL_ERR_CORRUPT, "chunk (%d,%d): %s NBT root is not a compound",
					   d->x, d->z, kind);
	return 0;
}

/* Tell whether a section holds block data (block_states or biomes). */
static int
section_has_blocks(const sl_nbt *sec)
{
	return sl_nbt_child(sec, "block_states") != NULL || sl_nbt_child(sec, "biomes") != NULL;
}

/* Survey one chunk (first pass): what a version-13 file needs to know of it. */
static int
survey_chunk(sw *w, const sl_dirent *d, const uint8_t *const comp[SL_NCOMP])
{
	sl_nbt	   *root;
	const sl_nbt *secs,
			   *c;
	int64_t		dv;

	if (d->len[SL_COMP_REGION] == 0)
		return sl_fail(w->err, SL_ERR_UNSUPPORTED,
					   "chunk (%d,%d) has %s data but no region chunk; a slime file chunk needs one",
					   d->x, d->z, d->len[SL_COMP_ENTITIES] ? "entities" : "POI");
	if (parse_comp(w, d, comp[SL_COMP_REGION], d->len[SL_COMP_REGION], "region", &root))
		return -1;
	c = sl_nbt_child(root, "DataVersion");
	if (sl_nbt_child(root, "Level") != NULL || c == NULL ||
		c->type != SL_TAG_INT || c->v.i < SL_DV_LAYOUT_118)
	{
		char		dvs[32] = "no DataVersion";

		if (c && c->type == SL_TAG_INT)
			snprintf(dvs, sizeof(dvs), "DataVersion %lld", (long long) c->v.i);
		return sl_fail(w->err, SL_ERR_UNSUPPORTED,
					   "chunk (%d,%d) is not a 1.18+ chunk (%s%s); slime file version 13 holds only the 1.18 chunk layout (DataVersion %d and later)",
					   d->x, d->z, dvs, sl_nbt_child(root, "Level") ? ", a Level compound" : "",
					   SL_DV_LAYOUT_118);
	}
	dv = c->v.i;
	if (w->have_dv && dv != w->dv)
		return sl_fail(w->err, SL_ERR_UNSUPPORTED,
					   "chunk (%d,%d) has DataVersion %d but the world %d; a slime file holds one DataVersion",
					   d->x, d->z, (int) dv, (int) w->dv);
	w->dv = (int32_t) dv;
	w->have_dv = 1;
	if ((c = sl_nbt_child(root, "yPos")) != NULL && c->type == SL_TAG_INT)
	{
		if (w->derived && w->ypos_seen && c->v.i != w->ypos)
			return sl_fail(w->err, SL_ERR_UNSUPPORTED,
						   "chunk (%d,%d) has yPos %d but another chunk %d; a slime file holds one section range",
						   d->x, d->z, (int) c->v.i, (int) w->ypos);
		w->ypos = (int32_t) c->v.i;
		w->ypos_seen = 1;
	}
	if (want(w, d, root, "sections", SL_TAG_LIST, "chunk tag", &secs))
		return -1;
	if (secs && secs->v.list.count && secs->v.list.elem_type != SL_TAG_COMPOUND)
		return sl_fail(w->err, SL_ERR_UNSUPPORTED, "chunk (%d,%d): sections is a list of %s",
					   d->x, d->z, sl_nbt_type_name(secs->v.list.elem_type));
	for (uint32_t i = 0; secs && i < secs->v.list.count; i++)
	{
		const sl_nbt *sec = secs->v.list.items[i];
		const sl_nbt *y = sl_nbt_child(sec, "Y");

		if (y && y->type == SL_TAG_BYTE && section_has_blocks(sec) &&
			(!w->top_seen || y->v.i > w->top))
		{
			w->top = (int) y->v.i;
			w->top_seen = 1;
		}
	}
	/* ticks set their flag when there are some (ASP saves none by default) */
	if ((c = sl_nbt_child(root, "block_ticks")) != NULL && c->type == SL_TAG_LIST && c->v.list.count)
		w->flags |= SL_SLIMEFILE_BLOCK_TICKS;
	if ((c = sl_nbt_child(root, "fluid_ticks")) != NULL && c->type == SL_TAG_LIST && c->v.list.count)
		w->flags |= SL_SLIMEFILE_FLUID_TICKS;
	if ((c = sl_nbt_child(sl_nbt_child(root, "slime"), "blockTicks")) != NULL)
		w->flags |= SL_SLIMEFILE_BLOCK_TICKS;
	if ((c = sl_nbt_child(sl_nbt_child(root, "slime"), "fluidTicks")) != NULL)
		w->flags |= SL_SLIMEFILE_FLUID_TICKS;
	if (d->len[SL_COMP_POI])
		w->flags |= SL_SLIMEFILE_POI;
	return 0;
}

/* Write a compound as "i32 length, NBT" with an empty root name; empty: length 0. */
static int
put_doc(sw *w, sl_buf *out, const sl_nbt *compound)
{
	size_t		at = out->len;

	if (compound == NULL || compound->v.comp.count == 0)
		return sl_buf_put_u32be(out, 0, w->err);
	if (sl_buf_put_u32be(out, 0, w->err) || sl_nbt_write_as_root(compound, out, w->err))
		return -1;
	if (out->len - at - 4 > (size_t) INT32_MAX)
		return sl_fail(w->err, SL_ERR_LIMIT, "an NBT document of the slime file exceeds 2 GiB");
	sl_put_u32be(out->data + at, (uint32_t) (out->len - at - 4));
	return 0;
}

/* Make a fresh node in the writer's arena. */
static sl_nbt *
wn(sw *w, int type, const char *name)
{
	sl_nbt	   *n = sl_arena_alloc(&w->a, sizeof(sl_nbt), w->err);

	if (n)
	{
		memset(n, 0, sizeof(*n));
		n->type = (uint8_t) type;
		n->name = name;
		n->name_len = (uint16_t) strlen(name);
	}
	return n;
}

/* Write {name: list}, or length 0 when the chunk has no such list. */
static int
put_wrapped(sw *w, sl_buf *out, const char *name, const sl_nbt *list)
{
	/* ASP's readers take length 0 as an empty compound, i.e. no items. */
	sl_nbt	   *doc,
			   *item;
	sl_nbt	  **items;

	if (list == NULL)
		return sl_buf_put_u32be(out, 0, w->err);
	doc = wn(w, SL_TAG_COMPOUND, "");
	item = sl_arena_alloc(&w->a, sizeof(sl_nbt), w->err);
	items = sl_arena_alloc(&w->a, sizeof(sl_nbt *), w->err);
	if (doc == NULL || item == NULL || items == NULL)
		return -1;
	*item = *list;
	item->name = name;
	item->name_len = (uint16_t) strlen(name);
	items[0] = item;
	doc->v.comp.count = 1;
	doc->v.comp.items = items;
	return put_doc(w, out, doc);
}

/* Check that a list holds compounds (or nothing), as a slime file carries it. */
static int
check_list(sw *w, const sl_dirent *d, const sl_nbt *list, const char *what)
{
	if (list && list->v.list.count && list->v.list.elem_type != SL_TAG_COMPOUND)
		return sl_fail(w->err, SL_ERR_UNSUPPORTED, "chunk (%d,%d): %s is a list of %s, not of compounds",
					   d->x, d->z, what, sl_nbt_type_name(list->v.list.elem_type));
	return 0;
}

/* Serialize one chunk (second pass). */
static int
write_chunk(sw *w, sl_buf *out, const sl_dirent *d, const uint8_t *const comp[SL_NCOMP])
{
	sl_nbt	   *root,
			   *eroot = NULL,
			   *proot = NULL;
	const sl_nbt *secs,
			   *side,
			   *hm,
			   *c;
	const sl_nbt *slot[256];
	int			nslots = w->sec_max - w->sec_min + 1;
	int			count = 0;

	if (parse_comp(w, d, comp[SL_COMP_REGION], d->len[SL_COMP_REGION], "region", &root) ||
		(d->len[SL_COMP_ENTITIES] &&
		 parse_comp(w, d, comp[SL_COMP_ENTITIES], d->len[SL_COMP_ENTITIES], "entities", &eroot)) ||
		(d->len[SL_COMP_POI] && parse_comp(w, d, comp[SL_COMP_POI], d->len[SL_COMP_POI], "POI", &proot)))
		return -1;
	if (want(w, d, root, "slime", SL_TAG_COMPOUND, "chunk tag", &side) ||
		want(w, d, root, "sections", SL_TAG_LIST, "chunk tag", &secs) ||
		want(w, d, root, "Heightmaps", SL_TAG_COMPOUND, "chunk tag", &hm))
		return -1;

	/* sections by array index */
	memset(slot, 0, sizeof(slot));
	for (uint32_t i = 0; secs && i < secs->v.list.count; i++)
	{
		const sl_nbt *sec = secs->v.list.items[i];
		const sl_nbt *y = sl_nbt_child(sec, "Y");
		int			idx;

		if (y == NULL || y->type != SL_TAG_BYTE)
			return sl_fail(w->err, SL_ERR_UNSUPPORTED, "chunk (%d,%d): section %u has no Y byte",
						   d->x, d->z, (unsigned) i);
		idx = (int) y->v.i - w->sec_min;
		if (idx < 0 || idx >= nslots)
		{
			if (!section_has_blocks(sec))
				continue;		/* light-only sections outside the range are lost */
			return sl_fail(w->err, SL_ERR_UNSUPPORTED,
						   "chunk (%d,%d): section Y=%d holds blocks outside the slime file's section range %d..%d",
						   d->x, d->z, (int) y->v.i, w->sec_min, w->sec_max);
		}
		if (slot[idx])
			return sl_fail(w->err, SL_ERR_UNSUPPORTED, "chunk (%d,%d): section Y=%d appears twice",
						   d->x, d->z, (int) y->v.i);
		slot[idx] = sec;
		if (idx + 1 > count)
			count = idx + 1;
	}
	if (sl_buf_put_u32be(out, (uint32_t) d->x, w->err) ||
		sl_buf_put_u32be(out, (uint32_t) d->z, w->err) ||
		sl_buf_put_u32be(out, (uint32_t) count, w->err))
		return -1;
	for (int i = 0; i < count; i++)
	{
		const sl_nbt *light[2] = {NULL, NULL};
		const sl_nbt *bs = NULL,
				   *bi = NULL;
		static const char *const lname[2] = {"BlockLight", "SkyLight"};
		uint8_t		flags = 0;

		if (slot[i])
		{
			for (int k = 0; k < 2; k++)
			{
				if (want(w, d, slot[i], lname[k], SL_TAG_BYTE_ARRAY, "section tag", &light[k]))
					return -1;
				if (light[k] && light[k]->v.arr.count != SL_SLIMEFILE_LIGHT)
					return sl_fail(w->err, SL_ERR_UNSUPPORTED,
								   "chunk (%d,%d): section Y=%d: %s of %u bytes; a slime file holds %d",
								   d->x, d->z, w->sec_min + i, lname[k],
								   (unsigned) light[k]->v.arr.count, SL_SLIMEFILE_LIGHT);
				if (light[k])
					flags |= (uint8_t) (1 << k);
			}
			if (want(w, d, slot[i], "block_states", SL_TAG_COMPOUND, "section tag", &bs) ||
				want(w, d, slot[i], "biomes", SL_TAG_COMPOUND, "section tag", &bi))
				return -1;
		}
		/* flag byte, then BLOCK light, then SKY light (ASP's code order) */
		if (sl_buf_put_u8(out, flags, w->err))
			return -1;
		for (int k = 0; k < 2; k++)
			if (light[k] && sl_buf_put(out, light[k]->v.arr.data, SL_SLIMEFILE_LIGHT, w->err))
				return -1;
		if (put_doc(w, out, bs) || put_doc(w, out, bi))
			return -1;
	}
	if (put_doc(w, out, hm))
		return -1;
	if (w->flags & SL_SLIMEFILE_POI)
	{
		const sl_nbt *ps = NULL;

		if (proot && want(w, d, proot, "Sections", SL_TAG_COMPOUND, "POI tag", &ps))
			return -1;
		if (put_doc(w, out, ps))
			return -1;
	}
	for (int k = 0; k < 2; k++)
	{
		static const char *const vanilla[2] = {"block_ticks", "fluid_ticks"};
		static const char *const raw[2] = {"blockTicks", "fluidTicks"};
		const sl_nbt *doc = NULL,
				   *list = NULL;

		if (!(w->flags & (k ? SL_SLIMEFILE_FLUID_TICKS : SL_SLIMEFILE_BLOCK_TICKS)))
			continue;
		if (want(w, d, side, raw[k], SL_TAG_COMPOUND, "slime tag", &doc))
			return -1;
		if (doc)
		{
			if (put_doc(w, out, doc))
				return -1;
			continue;
		}
		if (want(w, d, root, vanilla[k], SL_TAG_LIST, "chunk tag", &list) ||
			check_list(w, d, list, vanilla[k]) ||
			put_wrapped(w, out, vanilla[k], list))
			return -1;
	}
	if (w->flags & ~SL_SLIMEFILE_KNOWN_FLAGS)
	{
		const sl_nbt *unknown = NULL;
		uint32_t	k = 0;

		if (want(w, d, side, "unknownData", SL_TAG_LIST, "slime tag", &unknown))
			return -1;
		for (int b = 3; b < 8; b++)
		{
			const sl_nbt *blob = NULL;

			if (!(w->flags & (1 << b)))
				continue;
			if (unknown && unknown->v.list.elem_type == SL_TAG_BYTE_ARRAY && k < unknown->v.list.count)
				blob = unknown->v.list.items[k];
			k++;
			if (sl_buf_put_u32be(out, blob ? blob->v.arr.count : 0, w->err) ||
				(blob && sl_buf_put(out, blob->v.arr.data, blob->v.arr.count, w->err)))
				return -1;
		}
	}
	/* tile entities, entities, chunk extra */
	{
		const sl_nbt *doc = NULL,
				   *list = NULL;

		if (want(w, d, side, "tileEntities", SL_TAG_COMPOUND, "slime tag", &doc))
			return -1;
		if (doc ? put_doc(w, out, doc) :
			(want(w, d, root, "block_entities", SL_TAG_LIST, "chunk tag", &list) ||
			 check_list(w, d, list, "block_entities") ||
			 put_wrapped(w, out, "tileEntities", list)))
			return -1;
		w->info->block_entities += list ? list->v.list.count : 0;
		list = NULL;
		if (want(w, d, side, "entities", SL_TAG_COMPOUND, "slime tag", &doc))
			return -1;
		if (doc ? put_doc(w, out, doc) :
			((eroot && want(w, d, eroot, "Entities", SL_TAG_LIST, "entities tag", &list)) ||
			 check_list(w, d, list, "Entities") ||
			 put_wrapped(w, out, "entities", list)))
			return -1;
		w->info->entities += list ? list->v.list.count : 0;
		if (want(w, d, side, "extra", SL_TAG_COMPOUND, "slime tag", &doc))
			return -1;
		if (doc)
			return put_doc(w, out, doc);
		if (want(w, d, root, "ChunkBukkitValues", SL_TAG_COMPOUND, "chunk tag", &c))
			return -1;
		if (c == NULL)
			return sl_buf_put_u32be(out, 0, w->err);
		{
			sl_nbt	   *ex = wn(w, SL_TAG_COMPOUND, "");
			sl_nbt	  **items = sl_arena_alloc(&w->a, sizeof(sl_nbt *), w->err);

			if (ex == NULL || items == NULL)
				return -1;
			items[0] = (sl_nbt *) c;
			ex->v.comp.count = 1;
			ex->v.comp.items = items;
			return put_doc(w, out, ex);
		}
	}
}

/* Write "i32 compressed, i32 raw, zstd frame" (no checksum, as zstd-jni's Zstd.compress). */
int
sl_sf_put_zblock(sl_buf *out, const uint8_t *raw, size_t len, int level, sl_err *err)
{
	size_t		bound = ZSTD_compressBound(len);
	size_t		at = out->len;
	size_t		n;

	if (len > (size_t) INT32_MAX)
		return sl_fail(err, SL_ERR_LIMIT,
					   "the slime file's data of %zu bytes exceeds the format's 2 GiB per block", len);
	if (sl_buf_reserve(out, 8 + bound, err))
		return -1;
	n = sl_zstd_compress(out->data + at + 8, bound, raw, len, level);
	if (ZSTD_isError(n))
		return sl_fail(err, SL_ERR_LIMIT, "zstd compression failed: %s", ZSTD_getErrorName(n));
	if (n > (size_t) INT32_MAX)
		return sl_fail(err, SL_ERR_LIMIT, "compressed slime file block exceeds 2 GiB");
	sl_put_u32be(out->data + at, (uint32_t) n);
	sl_put_u32be(out->data + at + 4, (uint32_t) len);
	out->len += 8 + n;
	return 0;
}

/* Read the world compound: the "slime" compound's extra, flags and DataVersion. */
static int
world_settings(sw *w, sl_arena *wa, uint8_t **copy, sl_nbt **extra, const sl_nbt **slime,
			   const sl_nbt **data)
{
	const uint8_t *world;
	size_t		len;
	sl_nbt	   *root;
	size_t		used;

	*extra = NULL;
	*slime = NULL;
	*data = NULL;
	*copy = NULL;
	if (sl_value_world(w->v, &world, &len, w->err))
		return -1;
	if (len == 0)
		return 0;
	/* the frame cache is reused by chunk reads: keep a copy */
	*copy = sl_alloc_err(len, w->err);
	if (*copy == NULL)
		return -1;
	memcpy(*copy, world, len);
	if (sl_nbt_parse(*copy, len, w->lim, wa, &root, &used, w->err))
	{
		sl_err_prefix(w->err, "world compound");
		w->err->code = SL_ERR_CORRUPT;
		return -1;
	}
	*slime = sl_nbt_child(root, "slime");
	if (*slime && (*slime)->type != SL_TAG_COMPOUND)
		return sl_fail(w->err, SL_ERR_UNSUPPORTED, "world compound: \"slime\" is a %s, not a compound",
					   sl_nbt_type_name((*slime)->type));
	*data = sl_nbt_child(root, "Data");
	if (*data && (*data)->type != SL_TAG_COMPOUND)
		*data = NULL;
	if (*slime)
	{
		const sl_nbt *e = sl_nbt_child(*slime, "extra");

		if (e && e->type != SL_TAG_COMPOUND)
			return sl_fail(w->err, SL_ERR_UNSUPPORTED, "world compound: slime.extra is a %s, not a compound",
						   sl_nbt_type_name(e->type));
		*extra = (sl_nbt *) e;
	}
	return 0;
}

/* Make an int tag node in arena a. */
static sl_nbt *
w_int(sw *w, sl_arena *a, const char *name, int32_t v)
{
	sl_nbt	   *n = sl_arena_alloc(a, sizeof(sl_nbt), w->err);

	if (n)
	{
		memset(n, 0, sizeof(*n));
		n->type = SL_TAG_INT;
		n->name = name;
		n->name_len = (uint16_t) strlen(name);
		n->v.i = v;
	}
	return n;
}

/* Make the extra compound of a world that came from region files (no "slime" compound). */
static sl_nbt *
derived_extra(sw *w, sl_arena *a, const sl_nbt *data)
{
	/*
	 * It is {properties: {chunkSectionMin, chunkSectionMax, spawnX/Y/Z from
	 * level.dat's Data when there}}.
	 */
	static const char *const spawn[3][2] = {{"SpawnX", "spawnX"}, {"SpawnY", "spawnY"}, {"SpawnZ", "spawnZ"}};
	sl_nbt	   *extra = sl_arena_alloc(a, sizeof(sl_nbt), w->err);
	sl_nbt	   *props = sl_arena_alloc(a, sizeof(sl_nbt), w->err);
	sl_nbt	  **items = sl_arena_alloc(a, 6 * sizeof(sl_nbt *), w->err);
	sl_nbt	  **top = sl_arena_alloc(a, sizeof(sl_nbt *), w->err);
	uint32_t	n = 0;

	if (extra == NULL || props == NULL || items == NULL || top == NULL)
		return NULL;
	memset(extra, 0, sizeof(*extra));
	memset(props, 0, sizeof(*props));
	extra->type = props->type = SL_TAG_COMPOUND;
	extra->name = "";
	props->name = "properties";
	props->name_len = 10;
	for (int i = 0; i < 3 && data; i++)
	{
		const sl_nbt *c = sl_nbt_child(data, spawn[i][0]);

		if (c && c->type == SL_TAG_INT && (items[n] = w_int(w, a, spawn[i][1], (int32_t) c->v.i)))
			n++;
	}
	if ((items[n++] = w_int(w, a, "chunkSectionMin", w->sec_min)) == NULL ||
		(items[n++] = w_int(w, a, "chunkSectionMax", w->sec_max)) == NULL)
		return NULL;
	props->v.comp.count = n;
	props->v.comp.items = items;
	top[0] = props;
	extra->v.comp.count = 1;
	extra->v.comp.items = top;
	return extra;
}

/* Write an open value as a version-13 slime file appended to out. */
int
sl_slimefile_write(sl_value *v, int level, const sl_limits *lim, sl_buf *out,
				   sl_slimefile_info *info, sl_err *err)
{
	sw			w;
	sl_slimefile_info dummy;
	sl_arena	wa = {0};
	uint8_t    *wcopy = NULL;
	sl_nbt	   *extra;
	const sl_nbt *slime,
			   *data,
			   *c;
	sl_buf		blob = {0},
				xbuf = {0};
	size_t		base = out->len;
	int			rc = -1;

	if (lim == NULL)
		lim = &sl_default_limits;
	if (info == NULL)
		info = &dummy;
	memset(info, 0, sizeof(*info));
	memset(&w, 0, sizeof(w));
	w.v = v;
	w.lim = lim;
	w.err = err;
	w.info = info;
	if (level <= 0)
		level = SL_DEFAULT_LEVEL;
	if (world_settings(&w, &wa, &wcopy, &extra, &slime, &data))
		goto done;
	w.derived = slime == NULL;
	if (slime && (c = sl_nbt_child(slime, "flags")) != NULL && c->type == SL_TAG_BYTE)
		w.flags = (int) (uint8_t) c->v.i;
	if (slime && (c = sl_nbt_child(slime, "DataVersion")) != NULL && c->type == SL_TAG_INT)
	{
		w.dv = (int32_t) c->v.i;
		w.have_dv = 1;
	}
	else if (data && (c = sl_nbt_child(data, "DataVersion")) != NULL && c->type == SL_TAG_INT &&
			 v->hdr.chunk_count == 0)
	{
		w.dv = (int32_t) c->v.i;
		w.have_dv = 1;
	}

	/* pass 1: can version 13 hold these chunks? */
	for (uint32_t i = 0; i < v->hdr.chunk_count; i++)
	{
		sl_dirent	d;
		const uint8_t *comp[SL_NCOMP];

		if ((i & 63) == 0)
			sl_interrupt();
		if (sl_value_chunk(v, i, &d, comp, err))
			goto done;
		rc = survey_chunk(&w, &d, comp);
		sl_arena_free(&w.a);
		if (rc)
			goto done;
		rc = -1;
	}
	if (!w.have_dv)
	{
		sl_fail(err, SL_ERR_UNSUPPORTED,
				"a slime file needs the world's DataVersion: the value has no chunks and its world compound names none");
		goto done;
	}
	if (w.derived)
	{
		w.sec_min = w.ypos_seen ? w.ypos : -4;
		w.sec_max = w.sec_min + 15;
		if (w.sec_min == -4)
			w.sec_max = 19;
		if (w.top_seen && w.top > w.sec_max)
			w.sec_max = w.top;
		if (w.sec_min < -128 || w.sec_max > 127)
		{
			sl_fail(err, SL_ERR_UNSUPPORTED, "section range %d..%d does not fit a section Y byte",
					w.sec_min, w.sec_max);
			goto done;
		}
		extra = derived_extra(&w, &wa, data);
		if (extra == NULL)
			goto done;
	}
	else
	{
		sl_sf_section_range(extra, &w.sec_min, &w.sec_max);
		if (w.sec_min < -128 || w.sec_max > 127 || w.sec_max < w.sec_min - 1)
		{
			sl_fail(err, SL_ERR_UNSUPPORTED,
					"world compound: section range %d..%d (slime.extra.properties) does not fit a section Y byte",
					w.sec_min, w.sec_max);
			goto done;
		}
	}

	/* pass 2: the chunks */
	if (sl_buf_put_u32be(&blob, v->hdr.chunk_count, err))
		goto done;
	for (uint32_t i = 0; i < v->hdr.chunk_count; i++)
	{
		sl_dirent	d;
		const uint8_t *comp[SL_NCOMP];

		if ((i & 63) == 0)
			sl_interrupt();
		if (sl_value_chunk(v, i, &d, comp, err))
			goto done;
		rc = write_chunk(&w, &blob, &d, comp);
		sl_arena_free(&w.a);
		if (rc)
			goto done;
		rc = -1;
		if (blob.len > lim->max_value_raw + (size_t) 64 * 1024 * 1024)
		{
			sl_fail(err, SL_ERR_LIMIT, "the slime file's chunk data exceeds the world size cap of %zu bytes",
					lim->max_value_raw);
			goto done;
		}
		info->chunks++;
	}
	if (extra && extra->v.comp.count)
	{
		sl_nbt		root = *extra;

		root.name = "";
		root.name_len = 0;
		if (sl_nbt_write(&root, &xbuf, err))
			goto done;
	}
	if (sl_buf_reserve(out, 7, err))
		goto done;
	out->data[out->len++] = 0xB1;
	out->data[out->len++] = 0x0B;
	out->data[out->len++] = SL_SLIMEFILE_WRITE_VERSION;
	if (sl_buf_put_u32be(out, (uint32_t) w.dv, err) ||
		sl_buf_put_u8(out, (uint8_t) w.flags, err) ||
		sl_sf_put_zblock(out, blob.data, blob.len, level, err) ||
		sl_sf_put_zblock(out, xbuf.data, xbuf.len, level, err))
		goto done;
	info->version = SL_SLIMEFILE_WRITE_VERSION;
	info->data_version = w.dv;
	info->flags = w.flags;
	rc = 0;
done:
	if (rc)
		out->len = base;
	sl_arena_free(&w.a);
	sl_arena_free(&wa);
	sl_free(wcopy);
	sl_buf_free(&blob);
	sl_buf_free(&xbuf);
	return rc;
}
