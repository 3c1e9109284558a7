/*
 * sl_slimefile_chunks.c - the chunk layouts of slime files: versions 1-9
 * (a chunk bitmask, world-level tile entities and entities) and 10-13 (a
 * chunk count, per-chunk documents), each chunk read into vanilla chunk
 * NBT with the machinery of sl_slimefile_base.c (sl_slimefile_int.h).
 */
#include "sl_slimefile_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- v1-v9 chunks ---- */

/* Test section bitmask bit i (java.util.BitSet.valueOf: little-endian bits). */
static int
bit(const uint8_t *mask, size_t i)
{
	return (mask[i >> 3] >> (i & 7)) & 1;
}

/* Read a light array behind a v5+ "has light" boolean (always there before v5). */
static int
rd_light(sf *s, rd *r, const char *field, const char *name, sl_nbt **out)
{
	/* *out is NULL when the array is absent. */
	int			has = 1;
	const uint8_t *p;

	*out = NULL;
	if (s->version >= 5 && sl_sf_bool(s, r, field, &has))
		return -1;
	if (!has)
		return 0;
	if (sl_sf_bytes(s, r, SL_SLIMEFILE_LIGHT, field, &p))
		return -1;
	*out = sl_sf_array(s, &s->ca, SL_TAG_BYTE_ARRAY, name, p, SL_SLIMEFILE_LIGHT);
	return *out ? 0 : -1;
}

/* Read the sections of a pre-1.13 or 1.13-1.17 chunk (a 16-bit bitmask of sections 0..15). */
static int
rd_sections_old(sf *s, rd *r, sl_nbt *list)
{
	const uint8_t *mask;

	if (sl_sf_bytes(s, r, 2, "section bitmask", &mask))
		return -1;
	list->v.list.elem_type = SL_TAG_COMPOUND;
	for (int y = 0; y < 16; y++)
	{
		sl_nbt	   *sec;
		sl_nbt	   *bl = NULL,
				   *sl = NULL;
		char		field[64];

		if (!bit(mask, (size_t) y))
			continue;
		sec = sl_sf_node(s, &s->ca, SL_TAG_COMPOUND, "");
		if (sec == NULL || sl_sf_add(s, &s->ca, sec, sl_sf_int(s, &s->ca, "Y", y, SL_TAG_BYTE)))
			return -1;
		/* block light comes first in the file; the tag goes after the blocks */
		snprintf(field, sizeof(field), "section %d block light", y);
		if (rd_light(s, r, field, "BlockLight", &bl))
			return -1;
		if (s->wv >= 4)
		{
			uint32_t	npal,
						nlongs;
			sl_nbt	   *pal = sl_sf_list(s, &s->ca, "Palette");
			const uint8_t *longs;

			snprintf(field, sizeof(field), "section %d palette length", y);
			if (pal == NULL || sl_sf_count(s, r, field, 4, &npal))
				return -1;
			for (uint32_t i = 0; i < npal; i++)
			{
				sl_nbt	   *entry;

				snprintf(field, sizeof(field), "section %d palette entry %u", y, (unsigned) i);
				if (sl_sf_doc_any(s, r, field, &entry))
					return -1;
				if (entry == NULL)
					return sl_sf_fail(s, r, r->pos - 4, SL_ERR_FORMAT, field, "empty (length 0)");
				pal->v.list.elem_type = SL_TAG_COMPOUND;
				if (sl_sf_add(s, &s->ca, pal, entry))
					return -1;
			}
			snprintf(field, sizeof(field), "section %d block state count", y);
			if (sl_sf_count(s, r, field, 8, &nlongs))
				return -1;
			snprintf(field, sizeof(field), "section %d block states", y);
			if (sl_sf_bytes(s, r, (size_t) nlongs * 8, field, &longs) ||
				sl_sf_add(s, &s->ca, sec, pal) ||
				sl_sf_add(s, &s->ca, sec, sl_sf_array(s, &s->ca, SL_TAG_LONG_ARRAY, "BlockStates", longs, nlongs)))
				return -1;
		}
		else
		{
			const uint8_t *blocks,
					   *data;

			snprintf(field, sizeof(field), "section %d blocks", y);
			if (sl_sf_bytes(s, r, 4096, field, &blocks))
				return -1;
			snprintf(field, sizeof(field), "section %d block data", y);
			if (sl_sf_bytes(s, r, 2048, field, &data) ||
				sl_sf_add(s, &s->ca, sec, sl_sf_array(s, &s->ca, SL_TAG_BYTE_ARRAY, "Blocks", blocks, 4096)) ||
				sl_sf_add(s, &s->ca, sec, sl_sf_array(s, &s->ca, SL_TAG_BYTE_ARRAY, "Data", data, 2048)))
				return -1;
		}
		if (sl_sf_add_opt(s, &s->ca, sec, bl))
			return -1;
		snprintf(field, sizeof(field), "section %d sky light", y);
		if (rd_light(s, r, field, "SkyLight", &sl) || sl_sf_add_opt(s, &s->ca, sec, sl))
			return -1;
		if (s->version < 4)
		{
			uint16_t	n;
			const uint8_t *hb;

			snprintf(field, sizeof(field), "section %d HypixelBlocks3", y);
			if (sl_sf_u16(s, r, field, &n) || sl_sf_bytes(s, r, n, field, &hb))
				return -1;
			if (n > 0 &&
				sl_sf_add(s, &s->ca, sec, sl_sf_array(s, &s->ca, SL_TAG_BYTE_ARRAY, "HypixelBlocks3", hb, n)))
				return -1;
		}
		if (sl_sf_add(s, &s->ca, list, sec))
			return -1;
	}
	return 0;
}

/* Give a converted 1.18+ chunk its Status (ASP loads every slime chunk as full). */
static int
add_status(sf *s, sl_nbt *root)
{
	return sl_sf_add(s, &s->ca, root, sl_sf_string(s, &s->ca, "Status", "minecraft:full"));
}

/* Read one chunk of a v1-v9 file at (x,z). */
static int
rd_chunk_v1_9(sf *s, rd *r)
{
	sl_nbt	   *root = sl_sf_node(s, &s->ca, SL_TAG_COMPOUND, "");
	sl_nbt	   *body;
	sl_nbt	   *heightmaps = NULL;
	sl_nbt	   *tiles,
			   *ents;
	int			modern = s->wv >= 8;

	if (root == NULL)
		return -1;
	if (s->dv != SL_NO_DV &&
		sl_sf_add(s, &s->ca, root, sl_sf_int(s, &s->ca, "DataVersion", s->dv, SL_TAG_INT)))
		return -1;
	if (modern)
		body = root;
	else if ((body = sl_sf_node(s, &s->ca, SL_TAG_COMPOUND, "Level")) == NULL ||
			 sl_sf_add(s, &s->ca, root, body))
		return -1;
	if (sl_sf_add(s, &s->ca, body, sl_sf_int(s, &s->ca, "xPos", s->cx, SL_TAG_INT)))
		return -1;
	if (!modern && sl_sf_add(s, &s->ca, body, sl_sf_int(s, &s->ca, "zPos", s->cz, SL_TAG_INT)))
		return -1;

	tiles = sl_sf_chunk_list(s, s->tiles, s->ntiles, s->cx, s->cz,
							 modern ? "block_entities" : "TileEntities", NULL);
	ents = sl_sf_chunk_list(s, s->ents, s->nents, s->cx, s->cz, "Entities", NULL);
	if (tiles == NULL || ents == NULL)
		return -1;
	sl_sf_count_list(&s->info->block_entities, tiles);
	sl_sf_count_list(&s->info->entities, ents);

	if (s->wv < 4)
	{
		const uint8_t *hm,
				   *biomes;
		sl_nbt	   *sections = sl_sf_list(s, &s->ca, "Sections");

		if (sections == NULL || sl_sf_bytes(s, r, 1024, "height map", &hm))
			return -1;
		if (s->version == 8)
		{
			int32_t		ignored;	/* SWM v8 wrote a biome length here for old worlds */

			if (sl_sf_i32(s, r, "v8 biome array length", &ignored))
				return -1;
		}
		if (sl_sf_bytes(s, r, 256, "biomes", &biomes) ||
			rd_sections_old(s, r, sections) ||
			sl_sf_add(s, &s->ca, body, sections) ||
			sl_sf_add(s, &s->ca, body, sl_sf_array(s, &s->ca, SL_TAG_BYTE_ARRAY, "Biomes", biomes, 256)) ||
			sl_sf_add(s, &s->ca, body, sl_sf_array(s, &s->ca, SL_TAG_INT_ARRAY, "HeightMap", hm, 256)) ||
			sl_sf_add(s, &s->ca, body, tiles) ||
			sl_sf_add(s, &s->ca, body, ents))
			return -1;
		return sl_sf_emit(s, SL_COMP_REGION, root);
	}

	if (sl_sf_doc(s, r, "height maps", &heightmaps))
		return -1;
	if (!modern)
	{
		uint32_t	nbiomes = 256;
		const uint8_t *biomes;
		sl_nbt	   *sections = sl_sf_list(s, &s->ca, "Sections");

		if (sections == NULL || (s->version >= 8 && sl_sf_count(s, r, "biome count", 4, &nbiomes)) ||
			sl_sf_bytes(s, r, (size_t) nbiomes * 4, "biomes", &biomes) ||
			rd_sections_old(s, r, sections) ||
			sl_sf_add(s, &s->ca, body, sections) ||
			sl_sf_add(s, &s->ca, body, sl_sf_array(s, &s->ca, SL_TAG_INT_ARRAY, "Biomes", biomes, nbiomes)) ||
			(heightmaps && sl_sf_add(s, &s->ca, body, sl_sf_rename(s, &s->ca, heightmaps, "Heightmaps"))) ||
			sl_sf_add(s, &s->ca, body, tiles))
			return -1;
		if (sl_sf_entity_files(s))
			return sl_sf_emit(s, SL_COMP_REGION, root) || sl_sf_emit_entities(s, ents);
		return sl_sf_add(s, &s->ca, body, ents) || sl_sf_emit(s, SL_COMP_REGION, root);
	}

	/* ASWM's 1.18 layout (world version 0x08): sections by array index */
	{
		int32_t		min,
					max;
		uint32_t	count;
		size_t		at;
		sl_nbt	   *sections = sl_sf_list(s, &s->ca, "sections");
		sl_nbt	   *side;
		uint8_t		seen[256];

		memset(seen, 0, sizeof(seen));
		if (sections == NULL || sl_sf_i32(s, r, "min section Y", &min))
			return -1;
		at = r->pos;
		if (sl_sf_i32(s, r, "max section Y", &max))
			return -1;
		if ((int64_t) max - min < 0 || (int64_t) max - min > 256 || min < -128 || max > 128)
			return sl_sf_fail(s, r, at, SL_ERR_FORMAT, "max section Y",
							  "section range %d..%d is not one Minecraft can have", (int) min, (int) max);
		if (sl_sf_count(s, r, "section count", 13, &count))
			return -1;
		if (count > 0)
			sections->v.list.elem_type = SL_TAG_COMPOUND;
		for (uint32_t i = 0; i < count; i++)
		{
			int32_t		idx;
			sl_nbt	   *sec = sl_sf_node(s, &s->ca, SL_TAG_COMPOUND, "");
			sl_nbt	   *bl,
					   *sky;
			sl_nbt	   *bs,
					   *bi;
			char		field[64];

			snprintf(field, sizeof(field), "section %u index", (unsigned) i);
			at = r->pos;
			if (sec == NULL || sl_sf_i32(s, r, field, &idx))
				return -1;
			if (idx < 0 || idx >= max - min)
				return sl_sf_fail(s, r, at, SL_ERR_FORMAT, field, "index %d outside 0..%d",
								  (int) idx, (int) (max - min - 1));
			if (seen[idx])
				return sl_sf_fail(s, r, at, SL_ERR_FORMAT, field, "section index %d appears twice", (int) idx);
			seen[idx] = 1;
			snprintf(field, sizeof(field), "section %d block light", (int) idx);
			if (rd_light(s, r, field, "BlockLight", &bl))
				return -1;
			snprintf(field, sizeof(field), "section %d block states", (int) idx);
			if (sl_sf_doc(s, r, field, &bs))
				return -1;
			snprintf(field, sizeof(field), "section %d biomes", (int) idx);
			if (sl_sf_doc(s, r, field, &bi))
				return -1;
			snprintf(field, sizeof(field), "section %d sky light", (int) idx);
			if (rd_light(s, r, field, "SkyLight", &sky))
				return -1;
			if (sl_sf_add(s, &s->ca, sec, sl_sf_int(s, &s->ca, "Y", min + idx, SL_TAG_BYTE)) ||
				(bs && sl_sf_add(s, &s->ca, sec, sl_sf_rename(s, &s->ca, bs, "block_states"))) ||
				(bi && sl_sf_add(s, &s->ca, sec, sl_sf_rename(s, &s->ca, bi, "biomes"))) ||
				sl_sf_add_opt(s, &s->ca, sec, bl) ||
				sl_sf_add_opt(s, &s->ca, sec, sky) ||
				sl_sf_add(s, &s->ca, sections, sec))
				return -1;
		}
		side = sl_sf_node(s, &s->ca, SL_TAG_COMPOUND, "slime");
		if (side == NULL ||
			sl_sf_add(s, &s->ca, root, sl_sf_int(s, &s->ca, "yPos", min, SL_TAG_INT)) ||
			sl_sf_add(s, &s->ca, root, sl_sf_int(s, &s->ca, "zPos", s->cz, SL_TAG_INT)) ||
			add_status(s, root) ||
			sl_sf_add(s, &s->ca, root, sections) ||
			(heightmaps && sl_sf_add(s, &s->ca, root, sl_sf_rename(s, &s->ca, heightmaps, "Heightmaps"))) ||
			sl_sf_add(s, &s->ca, root, tiles) ||
			sl_sf_add(s, &s->ca, side, sl_sf_int(s, &s->ca, "maxSectionY", max, SL_TAG_INT)) ||
			sl_sf_add(s, &s->ca, root, side))
			return -1;
		return sl_sf_emit(s, SL_COMP_REGION, root) || sl_sf_emit_entities(s, ents);
	}
}

/* ---- v10-v13 chunks ---- */

/* Split a per-chunk document ASP reads as {name: [compounds]} into vanilla's list. */
static int
split_doc(sf *s, sl_nbt *doc, const char *name, const char *vanilla, const char *raw_key,
		  sl_nbt **list, sl_nbt *side)
{
	/*
	 * The list itself when the document is exactly that (renamed to vanilla's
	 * key), else the whole document kept verbatim under the chunk's "slime"
	 * compound.
	 */
	*list = NULL;
	if (doc == NULL)
		return 0;
	if (doc->v.comp.count == 1 && doc->v.comp.items[0]->type == SL_TAG_LIST &&
		doc->v.comp.items[0]->name_len == strlen(name) &&
		memcmp(doc->v.comp.items[0]->name, name, strlen(name)) == 0)
	{
		*list = sl_sf_rename(s, &s->ca, doc->v.comp.items[0], vanilla);
		return *list ? 0 : -1;
	}
	return sl_sf_add(s, &s->ca, side, sl_sf_rename(s, &s->ca, doc, raw_key));
}

/* Read the section light of v10-v12 (a boolean before each array) or v13 (flag byte). */
static int
rd_light_pair(sf *s, rd *r, int idx, sl_nbt **bl, sl_nbt **sky)
{
	int			has_bl,
				has_sky;
	const uint8_t *p;
	char		field[64];

	*bl = *sky = NULL;
	if (s->version >= 13)
	{
		uint8_t		flags;
		size_t		at = r->pos;

		snprintf(field, sizeof(field), "section %d flags", idx);
		if (sl_sf_u8(s, r, field, &flags))
			return -1;
		if (flags & ~3)
			return sl_sf_fail(s, r, at, SL_ERR_FORMAT, field, "unknown section flag bits 0x%02x", flags);
		has_bl = flags & 1;
		has_sky = (flags >> 1) & 1;
		/* the code writes and reads BLOCK light first, then SKY light */
		snprintf(field, sizeof(field), "section %d block light", idx);
		if (has_bl && sl_sf_bytes(s, r, SL_SLIMEFILE_LIGHT, field, &p))
			return -1;
		if (has_bl && (*bl = sl_sf_array(s, &s->ca, SL_TAG_BYTE_ARRAY, "BlockLight", p, SL_SLIMEFILE_LIGHT)) == NULL)
			return -1;
		snprintf(field, sizeof(field), "section %d sky light", idx);
		if (has_sky && sl_sf_bytes(s, r, SL_SLIMEFILE_LIGHT, field, &p))
			return -1;
		if (has_sky && (*sky = sl_sf_array(s, &s->ca, SL_TAG_BYTE_ARRAY, "SkyLight", p, SL_SLIMEFILE_LIGHT)) == NULL)
			return -1;
		return 0;
	}
	snprintf(field, sizeof(field), "section %d block light", idx);
	if (sl_sf_bool(s, r, field, &has_bl) || (has_bl && sl_sf_bytes(s, r, SL_SLIMEFILE_LIGHT, field, &p)))
		return -1;
	if (has_bl && (*bl = sl_sf_array(s, &s->ca, SL_TAG_BYTE_ARRAY, "BlockLight", p, SL_SLIMEFILE_LIGHT)) == NULL)
		return -1;
	snprintf(field, sizeof(field), "section %d sky light", idx);
	if (sl_sf_bool(s, r, field, &has_sky) || (has_sky && sl_sf_bytes(s, r, SL_SLIMEFILE_LIGHT, field, &p)))
		return -1;
	if (has_sky && (*sky = sl_sf_array(s, &s->ca, SL_TAG_BYTE_ARRAY, "SkyLight", p, SL_SLIMEFILE_LIGHT)) == NULL)
		return -1;
	return 0;
}

/* Read the sections of a v10+ chunk: array index i is section Y sec_min + i. */
static int
rd_sections_new(sf *s, rd *r, sl_nbt *list)
{
	uint32_t	count;
	size_t		at = r->pos;

	if (sl_sf_count(s, r, "section count", s->version >= 13 ? 9 : 10, &count))
		return -1;
	if ((int64_t) count > (int64_t) s->sec_max - s->sec_min + 1)
		return sl_sf_fail(s, r, at, SL_ERR_FORMAT, "section count",
						  "%u sections do not fit the world's section range %d..%d",
						  (unsigned) count, s->sec_min, s->sec_max);
	for (uint32_t i = 0; i < count; i++)
	{
		int			y = s->sec_min + (int) i;
		sl_nbt	   *bl,
				   *sky,
				   *bs,
				   *bi,
				   *sec;
		char		field[64];

		if (rd_light_pair(s, r, (int) i, &bl, &sky))
			return -1;
		snprintf(field, sizeof(field), "section %u block states", (unsigned) i);
		if (sl_sf_doc(s, r, field, &bs))
			return -1;
		snprintf(field, sizeof(field), "section %u biomes", (unsigned) i);
		if (sl_sf_doc(s, r, field, &bi))
			return -1;
		if (!bl && !sky && !bs && !bi)
			continue;			/* an empty slot (a gap this writer fills) */
		sec = sl_sf_node(s, &s->ca, SL_TAG_COMPOUND, "");
		list->v.list.elem_type = SL_TAG_COMPOUND;
		if (sec == NULL ||
			sl_sf_add(s, &s->ca, sec, sl_sf_int(s, &s->ca, "Y", y, SL_TAG_BYTE)) ||
			(bs && sl_sf_add(s, &s->ca, sec, sl_sf_rename(s, &s->ca, bs, "block_states"))) ||
			(bi && sl_sf_add(s, &s->ca, sec, sl_sf_rename(s, &s->ca, bi, "biomes"))) ||
			sl_sf_add_opt(s, &s->ca, sec, bl) ||
			sl_sf_add_opt(s, &s->ca, sec, sky) ||
			sl_sf_add(s, &s->ca, list, sec))
			return -1;
	}
	return 0;
}

/* Read a v11 zstd-compressed per-chunk document. */
static int
rd_zdoc(sf *s, rd *r, const char *field, sl_nbt **out)
{
	const uint8_t *raw;
	size_t		n;
	size_t		at = r->pos;
	rd			sub;

	*out = NULL;
	if (sl_sf_zblock(s, r, field, s->lim->max_chunk_raw, &s->ca, &raw, &n))
		return -1;
	if (n == 0)
		return 0;
	sub.p = raw;
	sub.len = n;
	sub.pos = 0;
	sub.area = field;
	if (s->ca.used / 8 > s->lim->max_chunk_raw)
		return sl_sf_fail(s, r, at, SL_ERR_LIMIT, field,
						  "the chunk's NBT needs more than %zu bytes of memory",
						  s->lim->max_chunk_raw * 8);
	if (sl_sf_parse_doc(s, &sub, 0, field, raw, n, s->lim, &s->ca, out))
		return -1;
	if ((*out)->v.comp.count == 0)
		*out = NULL;
	return 0;
}

/* The positions of the chunks read so far: an open-addressing set. */
typedef struct seen_set
{
	uint64_t   *keys;			/* packed positions; 0 is an empty slot */
	size_t		mask;
	int			origin;			/* (0,0), whose packed form is 0, was seen */
} seen_set;

/* Make a set for count positions in the world arena. */
static int
seen_init(sf *s, seen_set *set, uint32_t count)
{
	size_t		cap = 16;

	while (cap < (size_t) count * 2)
		cap *= 2;
	set->mask = cap - 1;
	set->origin = 0;
	set->keys = sl_arena_alloc(&s->wa, cap * sizeof(uint64_t), s->err);
	if (set->keys == NULL)
		return -1;
	memset(set->keys, 0, cap * sizeof(uint64_t));
	return 0;
}

/* Add chunk (x,z) to the set: 0, or 1 when it was there already. */
static int
seen_add(seen_set *set, int32_t x, int32_t z)
{
	uint64_t	key = ((uint64_t) (uint32_t) x << 32) | (uint32_t) z;
	size_t		i = (size_t) ((key * UINT64_C(0x9E3779B97F4A7C15)) >> 32) & set->mask;

	if (key == 0)
	{
		if (set->origin)
			return 1;
		set->origin = 1;
		return 0;
	}
	while (set->keys[i] != 0)
	{
		if (set->keys[i] == key)
			return 1;
		i = (i + 1) & set->mask;
	}
	set->keys[i] = key;
	return 0;
}

/* Read one chunk of a v10-v13 file. */
static int
rd_chunk_new(sf *s, rd *r)
{
	int32_t		x,
				z;
	sl_nbt	   *root = sl_sf_node(s, &s->ca, SL_TAG_COMPOUND, "");
	sl_nbt	   *side = sl_sf_node(s, &s->ca, SL_TAG_COMPOUND, "slime");
	sl_nbt	   *sections = sl_sf_list(s, &s->ca, "sections");
	sl_nbt	   *heightmaps = NULL,
			   *poi = NULL,
			   *bticks = NULL,
			   *fticks = NULL,
			   *tdoc = NULL,
			   *edoc = NULL,
			   *extra = NULL;
	sl_nbt	   *tiles = NULL,
			   *ents = NULL,
			   *blist = NULL,
			   *flist = NULL;
	sl_nbt	   *unknown = NULL;
	size_t		e_at = r->pos;	/* where the chunk's entities are (v10: the chunk) */

	if (root == NULL || side == NULL || sections == NULL ||
		sl_sf_i32(s, r, "chunk x", &x) || sl_sf_i32(s, r, "chunk z", &z))
		return -1;
	s->in_chunk = 1;
	s->cx = x;
	s->cz = z;
	if (s->version == 10 && sl_sf_doc(s, r, "height maps", &heightmaps))
		return -1;
	if (rd_sections_new(s, r, sections))
		return -1;
	if (s->version >= 11 && sl_sf_doc(s, r, "height maps", &heightmaps))
		return -1;
	if (s->version >= 13)
	{
		if ((s->flags & SL_SLIMEFILE_POI) && sl_sf_doc(s, r, "POI sections", &poi))
			return -1;
		if ((s->flags & SL_SLIMEFILE_BLOCK_TICKS) && sl_sf_doc(s, r, "block ticks", &bticks))
			return -1;
		if ((s->flags & SL_SLIMEFILE_FLUID_TICKS) && sl_sf_doc(s, r, "fluid ticks", &fticks))
			return -1;
		for (int b = 3; b < 8; b++)
		{
			uint32_t	n;
			size_t		at;
			const uint8_t *p;

			if (!(s->flags & (1 << b)))
				continue;
			if (sl_sf_len(s, r, "data of an unknown world flag", &at, &n) ||
				sl_sf_bytes(s, r, n, "data of an unknown world flag", &p))
				return -1;
			if (unknown == NULL && (unknown = sl_sf_list(s, &s->ca, "unknownData")) == NULL)
				return -1;
			unknown->v.list.elem_type = SL_TAG_BYTE_ARRAY;
			if (sl_sf_add(s, &s->ca, unknown, sl_sf_array(s, &s->ca, SL_TAG_BYTE_ARRAY, "", p, n)))
				return -1;
		}
	}
	if (s->version == 11)
	{
		if (rd_zdoc(s, r, "tile entities", &tdoc))
			return -1;
		e_at = r->pos;
		if (rd_zdoc(s, r, "entities", &edoc))
			return -1;
	}
	else if (s->version >= 12)
	{
		if (sl_sf_doc(s, r, "tile entities", &tdoc))
			return -1;
		e_at = r->pos;
		if (sl_sf_doc(s, r, "entities", &edoc) || sl_sf_doc(s, r, "chunk extra", &extra))
			return -1;
	}
	/* tile entities, entities, ticks: vanilla keys, or verbatim under "slime" */
	if (s->version == 10)
	{
		tiles = sl_sf_chunk_list(s, s->tiles, s->ntiles, x, z, "block_entities", NULL);
		ents = sl_sf_chunk_list(s, s->ents, s->nents, x, z, "Entities", NULL);
		if (tiles == NULL || ents == NULL)
			return -1;
	}
	else if (split_doc(s, tdoc, "tileEntities", "block_entities", "tileEntities", &tiles, side) ||
			 split_doc(s, edoc, "entities", "Entities", "entities", &ents, side))
		return -1;
	if (split_doc(s, bticks, "block_ticks", "block_ticks", "blockTicks", &blist, side) ||
		split_doc(s, fticks, "fluid_ticks", "fluid_ticks", "fluidTicks", &flist, side))
		return -1;
	sl_sf_count_list(&s->info->block_entities, tiles);
	sl_sf_count_list(&s->info->entities, ents);

	if (sl_sf_add(s, &s->ca, root, sl_sf_int(s, &s->ca, "DataVersion", s->dv, SL_TAG_INT)) ||
		sl_sf_add(s, &s->ca, root, sl_sf_int(s, &s->ca, "xPos", x, SL_TAG_INT)) ||
		sl_sf_add(s, &s->ca, root, sl_sf_int(s, &s->ca, "yPos", s->sec_min, SL_TAG_INT)) ||
		sl_sf_add(s, &s->ca, root, sl_sf_int(s, &s->ca, "zPos", z, SL_TAG_INT)) ||
		add_status(s, root) ||
		sl_sf_add(s, &s->ca, root, sections) ||
		(heightmaps && sl_sf_add(s, &s->ca, root, sl_sf_rename(s, &s->ca, heightmaps, "Heightmaps"))) ||
		sl_sf_add_opt(s, &s->ca, root, tiles) ||
		sl_sf_add_opt(s, &s->ca, root, blist) ||
		sl_sf_add_opt(s, &s->ca, root, flist))
		return -1;
	/* chunk extra: {ChunkBukkitValues: {...}} is Paper's chunk PDC at the root */
	if (extra && extra->v.comp.count == 1 && extra->v.comp.items[0]->type == SL_TAG_COMPOUND &&
		extra->v.comp.items[0]->name_len == 17 &&
		memcmp(extra->v.comp.items[0]->name, "ChunkBukkitValues", 17) == 0)
	{
		if (sl_sf_add(s, &s->ca, root, extra->v.comp.items[0]))
			return -1;
	}
	else if (extra && sl_sf_add(s, &s->ca, side, sl_sf_rename(s, &s->ca, extra, "extra")))
		return -1;
	if (sl_sf_add_opt(s, &s->ca, side, unknown) ||
		(side->v.comp.count && sl_sf_add(s, &s->ca, root, side)) ||
		sl_sf_emit(s, SL_COMP_REGION, root))
		return -1;
	if (sl_sf_entity_files(s))
	{
		if (sl_sf_emit_entities(s, ents))
			return -1;
	}
	else if (ents && ents->v.list.count)
	{
		/* a v10+ world older than 1.17 is no world ASP writes */
		return sl_sf_fail(s, r, e_at, SL_ERR_FORMAT, "entities",
						  "entities in a world of DataVersion %d, before entities/ files (%d)",
						  (int) s->dv, SL_DV_ENTITY_FILES);
	}
	if (poi && poi->v.comp.count)
	{
		sl_nbt	   *proot = sl_sf_node(s, &s->ca, SL_TAG_COMPOUND, "");

		if (proot == NULL ||
			sl_sf_add(s, &s->ca, proot, sl_sf_int(s, &s->ca, "DataVersion", s->dv, SL_TAG_INT)) ||
			sl_sf_add(s, &s->ca, proot, sl_sf_rename(s, &s->ca, poi, "Sections")) ||
			sl_sf_emit(s, SL_COMP_POI, proot))
			return -1;
		s->info->poi_chunks++;
	}
	s->in_chunk = 0;
	return 0;
}

/* A record the memo knows converted (m), as a reference to the store entry it became, noted for the memo. */
static int
add_known(sf *s, const sl_lmemo_ent *m)
{
	sl_dirent	d;

	memset(&d, 0, sizeof(d));
	d.x = m->x;
	d.z = m->z;
	d.data_version = m->data_version;
	d.timestamp = m->timestamp;
	memcpy(d.len, m->len, sizeof(d.len));
	if (sl_builder_add_ref(s->b, &d, m->hash, s->err))
		return -1;
	if (s->b->total > s->lim->max_value_raw)
		return sl_fail(s->err, SL_ERR_LIMIT,
					   "slime file v%d: the chunks read exceed the world size cap of %zu bytes",
					   s->version, s->lim->max_value_raw);
	return sl_lmemo_add(s->memo_out, m, s->err);
}

/*
 * Read one v10-v13 chunk, noting its record for the loader's memo; a record
 * the memo knows byte for byte (v11+) becomes a reference to the store entry
 * it became, unread.
 */
static int
rd_chunk_noted(sf *s, rd *r, seen_set *seen)
{
	size_t		start = r->pos;
	sl_lmemo_ent e;
	const sl_lmemo_ent *m = NULL;
	int32_t		x,
				z;

	/* a second chunk at one position would find its entities taken by the first */
	if (sl_sf_i32(s, r, "chunk x", &x) || sl_sf_i32(s, r, "chunk z", &z))
		return -1;
	r->pos = start;
	if (seen_add(seen, x, z))
		return sl_sf_fail(s, r, start, SL_ERR_FORMAT, "chunk x",
						  "chunk (%d,%d) appears a second time in the chunk list", x, z);
	if (s->memo_out == NULL || s->version < SL_LMEMO_MIN_VERSION)
		return rd_chunk_new(s, r);
	memset(&e, 0, sizeof(e));
	if (r->len - r->pos >= 8)
		m = sl_lmemo_find(s->memo, s->memo_out->ctx, (int32_t) sl_get_u32be(r->p + r->pos),
						  (int32_t) sl_get_u32be(r->p + r->pos + 4));
	if (m && m->rec_len <= r->len - r->pos)
	{
		sl_lmemo_xxh(r->p + r->pos, m->rec_len, e.xxh);
		if (memcmp(e.xxh, m->xxh, 16) == 0 && !m->known)
		{
			/* checked by a pending save, not converted: skipped (the value built is not used) */
			r->pos += m->rec_len;
			return sl_lmemo_add(s->memo_out, m, s->err);
		}
		if (memcmp(e.xxh, m->xxh, 16) == 0)
		{
			r->pos += m->rec_len;
			return add_known(s, m);
		}
	}
	if (rd_chunk_new(s, r))
		return -1;
	e.x = s->cx;
	e.z = s->cz;
	e.rec_len = (uint32_t) (r->pos - start);
	sl_lmemo_xxh(r->p + start, r->pos - start, e.xxh);
	return sl_lmemo_add(s->memo_out, &e, s->err);
}

/* Read a version 1-9 file after its version byte. */
int
sl_sf_read_v1_9(sf *s, rd *f)
{
	int16_t		min_x,
				min_z,
				width,
				depth;
	uint16_t	u;
	size_t		at;
	const uint8_t *mask;
	const uint8_t *cdata,
			   *tdata,
			   *edata = NULL,
			   *xdata = NULL,
			   *mdata = NULL;
	size_t		clen,
				tlen,
				elen = 0,
				xlen = 0,
				mlen = 0;
	size_t		t_at,
				e_at = 0;
	sl_nbt	   *tdoc,
			   *edoc = NULL,
			   *extra = NULL,
			   *maps = NULL;
	int32_t		bounds[4];
	rd			c;

	if (s->version >= 6)
	{
		uint8_t		wv;

		at = f->pos;
		if (sl_sf_u8(s, f, "world version", &wv))
			return -1;
		if (wv < 1 || wv > 8)
			return sl_sf_fail(s, f, at, SL_ERR_FORMAT, "world version", "unknown world version %d", wv);
		s->wv = wv;
		s->dv = sl_slimefile_world_dv(wv);
	}
	else if (s->version >= 4)
	{
		int			post113;

		if (sl_sf_bool(s, f, "post-1.13 flag", &post113))
			return -1;
		s->wv = post113 ? 4 : 1;
	}
	else
		s->wv = 1;				/* the Hypixel format is pre-1.13 */
	s->wv_recorded = s->version >= 4;
	s->info->world_version = s->wv_recorded ? s->wv : -1;

	if (sl_sf_u16(s, f, "min chunk x", &u))
		return -1;
	min_x = (int16_t) u;
	if (sl_sf_u16(s, f, "min chunk z", &u))
		return -1;
	min_z = (int16_t) u;
	at = f->pos;
	if (sl_sf_u16(s, f, "width", &u))
		return -1;
	width = (int16_t) u;
	if (width <= 0)
		return sl_sf_fail(s, f, at, SL_ERR_FORMAT, "width", "width %d is not positive", width);
	at = f->pos;
	if (sl_sf_u16(s, f, "depth", &u))
		return -1;
	depth = (int16_t) u;
	if (depth <= 0)
		return sl_sf_fail(s, f, at, SL_ERR_FORMAT, "depth", "depth %d is not positive", depth);
	if (sl_sf_bytes(s, f, ((size_t) width * (size_t) depth + 7) / 8, "chunk bitmask", &mask))
		return -1;
	bounds[0] = min_x;
	bounds[1] = min_z;
	bounds[2] = width;
	bounds[3] = depth;

	if (sl_sf_zblock(s, f, "chunk data", s->lim->max_value_raw, NULL, &cdata, &clen))
		return -1;
	t_at = f->pos;
	if (sl_sf_zblock(s, f, "tile entities", s->lim->max_value_raw, NULL, &tdata, &tlen))
		return -1;
	if (s->version >= 3)
	{
		int			has;

		if (sl_sf_bool(s, f, "has entities", &has))
			return -1;
		e_at = f->pos;
		if (has && sl_sf_zblock(s, f, "entities", s->lim->max_value_raw, NULL, &edata, &elen))
			return -1;
	}
	if (s->version >= 2)
	{
		if (sl_sf_zblock(s, f, "extra", s->lim->max_value_raw, NULL, &xdata, &xlen))
			return -1;
	}
	if (s->version >= 7)
	{
		if (sl_sf_zblock(s, f, "world maps", s->lim->max_value_raw, NULL, &mdata, &mlen))
			return -1;
	}
	if (f->pos != f->len)
		return sl_sf_fail(s, f, f->pos, SL_ERR_FORMAT, "end of file", "%zu bytes after the last block",
						  f->len - f->pos);

	if (sl_sf_world_doc(s, "tile entities", tdata, tlen, &tdoc) ||
		sl_sf_world_doc(s, "entities", edata, elen, &edoc) ||
		sl_sf_world_doc(s, "extra", xdata, xlen, &extra) ||
		sl_sf_world_doc(s, "world maps", mdata, mlen, &maps))
		return -1;
	if ((tdoc && sl_sf_place_list(s, f, t_at, "tile entities", tdoc, "tiles", 0, &s->tiles, &s->ntiles)) ||
		(edoc && sl_sf_place_list(s, f, e_at, "entities", edoc, "entities", 1, &s->ents, &s->nents)))
		return -1;

	c.p = cdata;
	c.len = clen;
	c.pos = 0;
	c.area = "chunk data";
	for (int z = 0; z < depth; z++)
		for (int x = 0; x < width; x++)
		{
			if (!bit(mask, (size_t) z * width + x))
				continue;
			s->in_chunk = 1;
			s->cx = min_x + x;
			s->cz = min_z + z;
			if (rd_chunk_v1_9(s, &c))
				return -1;
			s->info->chunks++;
			sl_sf_chunk_done(s);
		}
	if (c.pos != c.len)
		return sl_sf_fail(s, &c, c.pos, SL_ERR_FORMAT, "end of chunk data",
						  "%zu bytes after the last chunk the bitmask names", c.len - c.pos);
	if (sl_sf_collect_orphans(s, s->tiles, s->ntiles, 1, f, t_at) ||
		sl_sf_collect_orphans(s, s->ents, s->nents, 0, f, e_at))
		return -1;
	return sl_sf_set_world(s, bounds, extra, maps);
}

/* Step c over repeats of the counted chunks (v10-v12); nonzero when other bytes follow. */
static int
skip_repeats(sf *s, rd *c, const size_t *start, uint32_t count)
{
	/*
	 * ASP's SlimeSerializer of versions 10-12, until its PR #98 (January
	 * 2024), wrote the count of all the world's chunks and then iterated a
	 * list that was a copy of all of them with every chunk it would not prune
	 * appended a second time: the counted chunks are followed by byte-identical
	 * repeats of some of them, in their order. ASP's readers read the counted
	 * chunks and ignore the rest, so the repeats carry nothing; anything that
	 * is not such a repeat still fails. start[i] is where counted chunk i
	 * begins, start[count] where they end.
	 */
	uint32_t	k = 0;

	while (c->pos < c->len)
	{
		size_t		left = c->len - c->pos;
		uint32_t	j;

		/* the next counted chunk (in order) these bytes repeat; x,z first */
		for (j = k; j < count; j++)
		{
			size_t		n = start[j + 1] - start[j];

			if (n <= left && memcmp(c->p + c->pos, c->p + start[j], 8) == 0 &&
				memcmp(c->p + c->pos, c->p + start[j], n) == 0)
				break;
		}
		if (j == count)
			return -1;
		c->pos += start[j + 1] - start[j];
		k = j + 1;
		s->info->repeated_chunks++;
	}
	return 0;
}

/* Order memo entries by the XXH3-128 of their records. */
static int
cmp_ent_xxh(const void *a, const void *b)
{
	return memcmp((*(const sl_lmemo_ent *const *) a)->xxh, (*(const sl_lmemo_ent *const *) b)->xxh, 16);
}

/* The memo entry (of byx, sorted by cmp_ent_xxh) whose converted record frame fr is: its key and raw length; or NULL. */
static const sl_lmemo_ent *
known_frame(const sl_lmemo_ent *const *byx, size_t n, const sl_sffr_frame *fr)
{
	size_t		lo = 0,
				hi = n;

	while (lo < hi)
	{
		size_t		mid = lo + (hi - lo) / 2;
		int			c = memcmp(byx[mid]->xxh, fr->key, 16);

		if (c == 0)
			return byx[mid]->rec_len == fr->rlen ? byx[mid] : NULL;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The state of a chunk block read frame by frame (framed_chunks). */
typedef struct framed
{
	const sl_sffr_frame *fr;
	uint32_t	n;
	size_t	   *roff;			/* n + 1 raw offsets of the frames */
	size_t	   *coff;			/* n + 1 compressed offsets */
	const uint8_t *src;			/* the block's compressed bytes */
	size_t		at;				/* their offset in the file */
	const sl_lmemo_ent **byx;	/* the memo's converted records, by XXH3-128 */
	size_t		nbyx;
	uint32_t	next;			/* the first frame neither decompressed nor taken unread */
} framed;

/* The memo entry frame j of fm is taken unread as, or NULL (the first frame, with the count, never is). */
static const sl_lmemo_ent *
framed_known(const framed *fm, uint32_t j)
{
	return j > 0 && j < fm->n ? known_frame(fm->byx, fm->nbyx, &fm->fr[j]) : NULL;
}

/* Decompress the frames from fm->next up to the next one taken unread; c ends where they do. */
static int
framed_decode(sf *s, rd *f, framed *fm, rd *c, uint8_t *raw)
{
	do
	{
		uint32_t	j = fm->next;

		if (sl_sf_unzstd(s, f, fm->at + fm->coff[j], "chunk data frame", fm->src + fm->coff[j],
						 fm->fr[j].clen, raw + fm->roff[j], fm->fr[j].rlen))
			return -1;
		fm->next++;
	} while (fm->next < fm->n && framed_known(fm, fm->next) == NULL);
	c->len = fm->roff[fm->next];
	return 0;
}

/*
 * The chunk records of a version-13 chunk block kept in frames (s->frames;
 * its compressed bytes src, zlen at offset at of the file; its rlen raw
 * bytes go to raw): a frame whose key is a record the memo knows converted
 * is taken unread (add_known, its frame left compressed); the others are
 * decompressed as the records read reach them, up to the next frame taken
 * unread, and read as rd_chunk_noted reads them. c is left on the raw
 * block after the last record; *count is the block's chunk count.
 */
static int
framed_chunks(sf *s, rd *f, size_t at, const uint8_t *src, size_t zlen, uint8_t *raw, size_t rlen,
			  rd *c, uint32_t *count)
{
	framed		fm;
	seen_set	seen;
	int			rc = -1;

	memset(&fm, 0, sizeof(fm));
	fm.fr = s->frames;
	fm.n = s->nframes;
	fm.src = src;
	fm.at = at + 8;
	fm.roff = sl_alloc_err(((size_t) fm.n + 1) * sizeof(size_t), s->err);
	fm.coff = fm.roff ? sl_alloc_err(((size_t) fm.n + 1) * sizeof(size_t), s->err) : NULL;
	if (fm.coff == NULL)
		goto done;
	fm.roff[0] = fm.coff[0] = 0;
	for (uint32_t j = 0; j < fm.n; j++)
	{
		fm.roff[j + 1] = fm.roff[j] + fm.fr[j].rlen;
		fm.coff[j + 1] = fm.coff[j] + fm.fr[j].clen;
	}
	if (fm.n == 0 || fm.roff[fm.n] != rlen || fm.coff[fm.n] != zlen || fm.fr[0].rlen < 4)
	{
		sl_sf_fail(s, f, at, SL_ERR_FORMAT, "chunk data",
				   "its %u frames hold %zu compressed and %zu raw bytes, the block %zu and %zu",
				   (unsigned) fm.n, fm.n ? fm.coff[fm.n] : 0, fm.n ? fm.roff[fm.n] : 0, zlen, rlen);
		goto done;
	}
	/* the memo's converted records, when they hold in this file's context */
	if (s->memo && s->memo->has_ctx && s->memo->n > 0 &&
		memcmp(s->memo->ctx, s->memo_out->ctx, SL_LMEMO_CTX) == 0)
	{
		if ((fm.byx = sl_alloc_err(s->memo->n * sizeof(*fm.byx), s->err)) == NULL)
			goto done;
		for (size_t i = 0; i < s->memo->n; i++)
			if (s->memo->e[i].usable && s->memo->e[i].known)
				fm.byx[fm.nbyx++] = &s->memo->e[i];
		qsort(fm.byx, fm.nbyx, sizeof(*fm.byx), cmp_ent_xxh);
	}
	c->p = raw;
	c->pos = 0;
	c->area = "chunk data";
	if (framed_decode(s, f, &fm, c, raw))
		goto done;
	/* the count checked against the whole block, as a block read at once is */
	c->len = rlen;
	if (sl_sf_count(s, c, "chunk count", 16, count) || seen_init(s, &seen, *count))
		goto done;
	c->len = fm.roff[fm.next];
	for (uint32_t i = 0; i < *count; i++)
	{
		if (c->pos == c->len && fm.next < fm.n)
		{
			const sl_lmemo_ent *m = framed_known(&fm, fm.next);

			if (m == NULL)
			{
				if (framed_decode(s, f, &fm, c, raw))
					goto done;
			}
			else
			{
				if (seen_add(&seen, m->x, m->z))
				{
					sl_sf_fail(s, c, c->pos, SL_ERR_FORMAT, "chunk x",
							   "chunk (%d,%d) appears a second time in the chunk list", m->x, m->z);
					goto done;
				}
				if (add_known(s, m))
					goto done;
				c->pos = c->len = fm.roff[++fm.next];
				s->info->chunks++;
				sl_sf_chunk_done(s);
				continue;
			}
		}
		if (rd_chunk_noted(s, c, &seen))
			goto done;
		s->info->chunks++;
		sl_sf_chunk_done(s);
	}
	if (fm.next < fm.n || c->pos != rlen)
	{
		sl_sf_fail(s, c, c->pos, SL_ERR_FORMAT, "end of chunk data",
				   "%zu bytes after the last of %u chunks", rlen - c->pos, (unsigned) *count);
		goto done;
	}
	c->len = rlen;
	rc = 0;
done:
	sl_free(fm.roff);
	sl_free(fm.coff);
	sl_free(fm.byx);
	return rc;
}

/* Read a version 10-13 file after its version byte. */
int
sl_sf_read_v10_13(sf *s, rd *f)
{
	int32_t		dv;
	const uint8_t *cdata = NULL,
			   *tdata = NULL,
			   *edata = NULL,
			   *xdata;
	size_t		clen,
				tlen = 0,
				elen = 0,
				xlen;
	size_t		t_at = 0,
				e_at = 0,
				x_at;
	sl_nbt	   *tdoc = NULL,
			   *edoc = NULL,
			   *extra = NULL;
	uint32_t	count;
	size_t	   *start;
	seen_set	seen;
	rd			c;
	int			cblock;
	int			framed_read;
	size_t		c_at = 0,
				czlen = 0;
	const uint8_t *csrc = NULL;
	uint8_t    *craw = NULL;

	if (sl_sf_i32(s, f, "DataVersion", &dv))
		return -1;
	s->dv = dv;
	if (s->version >= 13)
	{
		uint8_t		flags;

		if (sl_sf_u8(s, f, "world flags", &flags))
			return -1;
		s->flags = flags;
		s->info->flags = flags;
	}
	framed_read = s->frames && s->version == 13 && s->memo_out && s->chunk_block == NULL;
	if (framed_read ? sl_sf_zblock_lazy(s, f, "chunk data", s->lim->max_value_raw, &c_at, &csrc, &czlen, &craw, &clen)
		: sl_sf_zblock(s, f, "chunk data", s->lim->max_value_raw, NULL, &cdata, &clen))
		return -1;
	cblock = s->nblocks - 1;	/* the read owns the block until it hands it over below */
	if (s->version == 10)
	{
		t_at = f->pos;
		if (sl_sf_zblock(s, f, "tile entities", s->lim->max_value_raw, NULL, &tdata, &tlen))
			return -1;
		e_at = f->pos;
		if (sl_sf_zblock(s, f, "entities", s->lim->max_value_raw, NULL, &edata, &elen))
			return -1;
	}
	x_at = f->pos;
	if (sl_sf_zblock(s, f, "extra", s->lim->max_value_raw, NULL, &xdata, &xlen))
		return -1;
	if (f->pos != f->len)
		return sl_sf_fail(s, f, f->pos, SL_ERR_FORMAT, "end of file", "%zu bytes after the last block",
						  f->len - f->pos);
	if (sl_sf_world_doc(s, "extra", xdata, xlen, &extra) ||
		sl_sf_world_doc(s, "tile entities", tdata, tlen, &tdoc) ||
		sl_sf_world_doc(s, "entities", edata, elen, &edoc))
		return -1;
	sl_sf_section_range(extra, &s->sec_min, &s->sec_max);
	if (s->sec_min < -128 || s->sec_max > 127 || s->sec_max < s->sec_min - 1)
		return sl_sf_fail(s, f, x_at, SL_ERR_FORMAT, "extra",
						  "section range %d..%d (properties chunkSectionMin, chunkSectionMax) does not fit a section Y byte",
						  s->sec_min, s->sec_max);
	if ((tdoc && sl_sf_place_list(s, f, t_at, "tile entities", tdoc, "tiles", 0, &s->tiles, &s->ntiles)) ||
		(edoc && sl_sf_place_list(s, f, e_at, "entities", edoc, "entities", 1, &s->ents, &s->nents)))
		return -1;

	if (s->chunk_block && s->version == 13)
	{
		/* the decompressed block itself, not a copy (megabytes a save) when the caller's buffer is empty */
		if (s->chunk_block->len == 0 && s->blocks[cblock] == cdata)
		{
			sl_buf_free(s->chunk_block);
			s->chunk_block->data = s->blocks[cblock];
			s->chunk_block->len = clen;
			s->chunk_block->cap = clen ? clen : 1;
			s->blocks[cblock] = NULL;
		}
		else if (sl_buf_put(s->chunk_block, cdata, clen, s->err))
			return -1;
	}
	if (framed_read)
	{
		/* the memo's context first: it says which records the memo's entries hold for */
		sl_lmemo_context(s->memo_out->ctx, s->version, s->flags, s->sec_min, s->sec_max, s->dv);
		s->memo_out->has_ctx = 1;
		if (framed_chunks(s, f, c_at, csrc, czlen, craw, clen, &c, &count))
			return -1;
		return sl_sf_collect_orphans(s, s->tiles, s->ntiles, 1, f, t_at) ||
			sl_sf_collect_orphans(s, s->ents, s->nents, 0, f, e_at) ||
			sl_sf_set_world(s, NULL, extra, NULL) ? -1 : 0;
	}
	c.p = cdata;
	c.len = clen;
	c.area = "chunk data";
	c.pos = 0;
	if (sl_sf_count(s, &c, "chunk count", 16, &count))
		return -1;
	/* where each counted chunk starts, and where the last one ends */
	if ((start = sl_arena_alloc(&s->wa, ((size_t) count + 1) * sizeof(size_t), s->err)) == NULL ||
		seen_init(s, &seen, count))
		return -1;
	if (s->memo_out && s->version >= SL_LMEMO_MIN_VERSION)
	{
		sl_lmemo_context(s->memo_out->ctx, s->version, s->flags, s->sec_min, s->sec_max, s->dv);
		s->memo_out->has_ctx = 1;
	}
	for (uint32_t i = 0; i < count; i++)
	{
		start[i] = c.pos;
		if (rd_chunk_noted(s, &c, &seen))
			return -1;
		s->info->chunks++;
		sl_sf_chunk_done(s);
	}
	start[count] = c.pos;
	if (s->version >= 13 && c.pos != c.len)
		return sl_sf_fail(s, &c, c.pos, SL_ERR_FORMAT, "end of chunk data",
						  "%zu bytes after the last of %u chunks", c.len - c.pos, (unsigned) count);
	if (s->version <= 12 && skip_repeats(s, &c, start, count))
		return sl_sf_fail(s, &c, c.pos, SL_ERR_FORMAT, "end of chunk data",
						  "%zu bytes after the last of %u chunks and %u repeats of them are no repeat of one of those chunks",
						  c.len - c.pos, (unsigned) count, (unsigned) s->info->repeated_chunks);
	if (sl_sf_collect_orphans(s, s->tiles, s->ntiles, 1, f, t_at) ||
		sl_sf_collect_orphans(s, s->ents, s->nents, 0, f, e_at))
		return -1;
	return sl_sf_set_world(s, NULL, extra, NULL);
}
