/*
 * sl_blocks.c - blocks and biomes of a chunk's NBT (see sl_blocks.h).
 *
 * Opening a chunk finds its sections and checks every array length and
 * palette against the layout; reading a block or counting a section then
 * touches only checked arrays. Counting never builds a string per block:
 * palette indices (or legacy id/data keys) are counted first and each
 * distinct one is named once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sl_blocks.h"
#include "sl_value.h"

#define MCREGION_HEIGHT	128
#define MAX_BIOME_CELLS	(16 * 1024)	/* Level.Biomes ints: 4096 blocks high at most */
#define BIOME_CELLS		64			/* 4x4x4 cells of a section */

/* A property of a palette entry, for sorting by key. */
typedef struct prop_ref
{
	const sl_nbt *tag;
	uint32_t	pos;			/* order in the compound: the last of equal keys wins */
} prop_ref;

/* Smallest b with 2^b >= n (0 for n <= 1). */
int
sl_ceil_log2(uint32_t n)
{
	int			b = 0;

	while (b < 32 && ((uint64_t) 1 << b) < n)
		b++;
	return b;
}

/* Longs that hold entries indices of bits each, spanning or not. */
uint32_t
sl_packed_longs(uint32_t entries, int bits, int spanning)
{
	uint32_t	per;

	if (bits <= 0)
		return 0;
	if (spanning)
		return (uint32_t) (((uint64_t) entries * bits + 63) / 64);
	per = 64 / bits;
	return (uint32_t) (((uint64_t) entries + per - 1) / per);
}

/* Index i of a packed array whose length the caller has checked. */
uint32_t
sl_packed_get(const uint8_t *longs, int bits, int spanning, uint32_t i)
{
	uint64_t	mask = ((uint64_t) 1 << bits) - 1;
	uint64_t	w;

	if (spanning)
	{
		uint64_t	bit = (uint64_t) i * bits;
		uint32_t	l = (uint32_t) (bit >> 6);
		unsigned	off = (unsigned) (bit & 63);

		w = sl_get_u64be(longs + 8 * (size_t) l) >> off;
		if (off + bits > 64)
			w |= sl_get_u64be(longs + 8 * (size_t) (l + 1)) << (64 - off);
	}
	else
	{
		uint32_t	per = 64 / bits;

		w = sl_get_u64be(longs + 8 * (size_t) (i / per)) >> ((i % per) * bits);
	}
	return (uint32_t) (w & mask);
}

/* Add the indices of a packed array (entries of them) to tally[0..2^bits). */
static void
packed_tally(const uint8_t *longs, uint32_t nlongs, int bits, int spanning,
			 uint32_t entries, uint32_t *tally)
{
	uint64_t	mask = ((uint64_t) 1 << bits) - 1;
	uint32_t	i = 0;

	if (!spanning && bits <= 8)
	{
		/*
		 * Four tallies, one per index position mod 4, summed at the end: a
		 * section of one block repeated (air, stone) would otherwise add to
		 * one counter 4096 times in a row, each add waiting for the last.
		 */
		uint32_t	per = 64 / bits;
		uint32_t	t4[4][256];
		uint32_t	slots = (uint32_t) 1 << bits;

		memset(t4, 0, sizeof(t4));
		for (uint32_t l = 0; l < nlongs && i < entries; l++)
		{
			uint64_t	w = sl_get_u64be(longs + 8 * (size_t) l);
			uint32_t	k = 0;

			for (; k + 4 <= per && i + 4 <= entries; k += 4, i += 4)
			{
				t4[0][w & mask]++;
				t4[1][(w >> bits) & mask]++;
				t4[2][(w >> (2 * bits)) & mask]++;
				t4[3][(w >> (3 * bits)) & mask]++;
				w >>= 4 * bits;
			}
			for (; k < per && i < entries; k++, i++)
			{
				t4[0][w & mask]++;
				w >>= bits;
			}
		}
		for (uint32_t v = 0; v < slots; v++)
			tally[v] += t4[0][v] + t4[1][v] + t4[2][v] + t4[3][v];
		return;
	}
	if (!spanning)
	{
		uint32_t	per = 64 / bits;

		for (uint32_t l = 0; l < nlongs && i < entries; l++)
		{
			uint64_t	w = sl_get_u64be(longs + 8 * (size_t) l);

			for (uint32_t k = 0; k < per && i < entries; k++, i++)
			{
				tally[w & mask]++;
				w >>= bits;
			}
		}
		return;
	}
	for (; i < entries; i++)
		tally[sl_packed_get(longs, bits, 1, i)]++;
}

/* Value of an int-like tag; false when absent or of another type. */
static int
tag_int(const sl_nbt *t, int64_t *v)
{
	if (t == NULL || t->type < SL_TAG_BYTE || t->type > SL_TAG_LONG)
		return 0;
	*v = t->v.i;
	return 1;
}

/* Type name for messages. */
static const char *
type_name(const sl_nbt *t)
{
	const char *n = sl_nbt_type_name(t->type);

	return n ? n : "?";
}

/* Check a byte array tag of exactly n bytes. */
static int
check_bytes(const sl_nbt *t, const char *what, uint32_t n, sl_err *err)
{
	if (t->type != SL_TAG_BYTE_ARRAY)
		return sl_fail(err, SL_ERR_FORMAT, "%s is a %s, not a byte array", what, type_name(t));
	if (t->v.arr.count != n)
		return sl_fail(err, SL_ERR_FORMAT, "%s has %u bytes, expected %u", what,
					   t->v.arr.count, n);
	return 0;
}

/* Check a block palette: 1..SL_MAX_PALETTE compounds with a Name and string Properties. */
static int
check_block_palette(const sl_nbt *pal, const char *what, sl_err *err)
{
	if (pal->type != SL_TAG_LIST)
		return sl_fail(err, SL_ERR_FORMAT, "%s is a %s, not a list", what, type_name(pal));
	if (pal->v.list.count == 0)
		return sl_fail(err, SL_ERR_FORMAT, "%s is empty", what);
	if (pal->v.list.count > SL_MAX_PALETTE)
		return sl_fail(err, SL_ERR_FORMAT, "%s has %u entries, more than %d", what,
					   pal->v.list.count, SL_MAX_PALETTE);
	if (pal->v.list.elem_type != SL_TAG_COMPOUND)
		return sl_fail(err, SL_ERR_FORMAT, "%s is a list of %s, not of compounds", what,
					   sl_nbt_type_name(pal->v.list.elem_type));
	for (uint32_t i = 0; i < pal->v.list.count; i++)
	{
		const sl_nbt *e = pal->v.list.items[i];
		const sl_nbt *name = sl_nbt_child(e, "Name");
		const sl_nbt *props = sl_nbt_child(e, "Properties");

		if (name == NULL || name->type != SL_TAG_STRING)
			return sl_fail(err, SL_ERR_FORMAT, "%s entry %u has no Name string", what, i);
		if (props == NULL)
			continue;
		if (props->type != SL_TAG_COMPOUND)
			return sl_fail(err, SL_ERR_FORMAT, "%s entry %u: Properties is a %s, not a compound",
						   what, i, type_name(props));
		for (uint32_t k = 0; k < props->v.comp.count; k++)
			if (props->v.comp.items[k]->type != SL_TAG_STRING)
				return sl_fail(err, SL_ERR_FORMAT, "%s entry %u: property %u is a %s, not a string",
							   what, i, k, type_name(props->v.comp.items[k]));
	}
	return 0;
}

/* Check a biome palette: 1..SL_MAX_PALETTE strings. */
static int
check_biome_palette(const sl_nbt *pal, sl_err *err)
{
	if (pal->type != SL_TAG_LIST)
		return sl_fail(err, SL_ERR_FORMAT, "biomes.palette is a %s, not a list", type_name(pal));
	if (pal->v.list.count == 0)
		return sl_fail(err, SL_ERR_FORMAT, "biomes.palette is empty");
	if (pal->v.list.count > SL_MAX_PALETTE)
		return sl_fail(err, SL_ERR_FORMAT, "biomes.palette has %u entries, more than %d",
					   pal->v.list.count, SL_MAX_PALETTE);
	if (pal->v.list.elem_type != SL_TAG_STRING)
		return sl_fail(err, SL_ERR_FORMAT, "biomes.palette is a list of %s, not of strings",
					   sl_nbt_type_name(pal->v.list.elem_type));
	return 0;
}

/*
 * Check a packed long array for a palette of n entries: exactly the longs
 * that entries indices of bits take. Absent data is allowed only for n == 1.
 */
static int
check_packed(const sl_nbt *data, const char *what, uint32_t n, int bits, int spanning,
			 uint32_t entries, sl_err *err)
{
	uint32_t	want = sl_packed_longs(entries, bits, spanning);

	if (data == NULL)
		return sl_fail(err, SL_ERR_FORMAT, "%s is missing for a palette of %u entries", what, n);
	if (data->type != SL_TAG_LONG_ARRAY)
		return sl_fail(err, SL_ERR_FORMAT, "%s is a %s, not a long array", what, type_name(data));
	if (data->v.arr.count != want)
		return sl_fail(err, SL_ERR_FORMAT,
					   "%s has %u longs, expected %u for a palette of %u entries (%d bits%s)",
					   what, data->v.arr.count, want, n, bits, spanning ? ", spanning" : "");
	return 0;
}

/* Fill a pre-1.13 Anvil section (Blocks, Add, Data). */
static int
open_legacy(const sl_nbt *s, sl_section *sec, sl_err *err)
{
	const sl_nbt *blocks = sl_nbt_child(s, "Blocks");
	const sl_nbt *add = sl_nbt_child(s, "Add");
	const sl_nbt *data = sl_nbt_child(s, "Data");

	if (sec->y < 0 || sec->y > 15)
		return sl_fail(err, SL_ERR_FORMAT, "Y out of range 0..15");
	if (check_bytes(blocks, "Blocks", SL_SECTION_VOLUME, err))
		return -1;
	if (data == NULL)
		return sl_fail(err, SL_ERR_FORMAT, "Data is missing");
	if (check_bytes(data, "Data", SL_SECTION_VOLUME / 2, err))
		return -1;
	if (add && check_bytes(add, "Add", SL_SECTION_VOLUME / 2, err))
		return -1;
	sec->kind = SL_SEC_LEGACY;
	sec->blocks = blocks->v.arr.data;
	sec->data = data->v.arr.data;
	sec->add = add ? add->v.arr.data : NULL;
	return 0;
}

/* Fill a 1.13-1.17 section (Palette, BlockStates). */
static int
open_flat(const sl_nbt *s, int32_t dv, sl_section *sec, sl_err *err)
{
	const sl_nbt *pal = sl_nbt_child(s, "Palette");
	const sl_nbt *states = sl_nbt_child(s, "BlockStates");
	uint32_t	n;
	int			bits;
	int			spanning;

	if (check_block_palette(pal, "Palette", err))
		return -1;
	n = pal->v.list.count;
	bits = sl_ceil_log2(n) < 4 ? 4 : sl_ceil_log2(n);
	if (dv != SL_NO_DV)
		spanning = dv < SL_DV_ALIGNED;
	else
		spanning = states->type == SL_TAG_LONG_ARRAY &&
			states->v.arr.count == sl_packed_longs(SL_SECTION_VOLUME, bits, 1);
	if (check_packed(states, "BlockStates", n, bits, spanning, SL_SECTION_VOLUME, err))
		return -1;
	sec->kind = SL_SEC_PALETTE;
	sec->npalette = n;
	sec->palette = pal->v.list.items;
	sec->states = states->v.arr.data;
	sec->nstates = states->v.arr.count;
	sec->bits = (uint8_t) bits;
	sec->spanning = (uint8_t) spanning;
	return 0;
}

/* Fill a 1.18+ section's blocks (block_states {palette, data}). */
int
sl_section_open_modern(const sl_nbt *bs, sl_section *sec, sl_err *err)
{
	const sl_nbt *pal;
	const sl_nbt *data;
	uint32_t	n;
	int			bits;

	if (bs->type != SL_TAG_COMPOUND)
		return sl_fail(err, SL_ERR_FORMAT, "block_states is a %s, not a compound", type_name(bs));
	pal = sl_nbt_child(bs, "palette");
	data = sl_nbt_child(bs, "data");
	if (pal == NULL)
		return sl_fail(err, SL_ERR_FORMAT, "block_states has no palette");
	if (check_block_palette(pal, "block_states.palette", err))
		return -1;
	n = pal->v.list.count;
	sec->kind = SL_SEC_PALETTE;
	sec->npalette = n;
	sec->palette = pal->v.list.items;
	if (n == 1)
		return 0;				/* data, if any, is ignored as Minecraft does */
	bits = sl_ceil_log2(n) < 4 ? 4 : sl_ceil_log2(n);
	if (check_packed(data, "block_states.data", n, bits, 0, SL_SECTION_VOLUME, err))
		return -1;
	sec->states = data->v.arr.data;
	sec->nstates = data->v.arr.count;
	sec->bits = (uint8_t) bits;
	return 0;
}

/* Fill a 1.18+ section's biomes (biomes {palette, data}). */
static int
open_biomes(const sl_nbt *b, sl_section *sec, sl_err *err)
{
	const sl_nbt *pal;
	const sl_nbt *data;
	uint32_t	n;
	int			bits;

	if (b->type != SL_TAG_COMPOUND)
		return sl_fail(err, SL_ERR_FORMAT, "biomes is a %s, not a compound", type_name(b));
	pal = sl_nbt_child(b, "palette");
	data = sl_nbt_child(b, "data");
	if (pal == NULL)
		return sl_fail(err, SL_ERR_FORMAT, "biomes has no palette");
	if (check_biome_palette(pal, err))
		return -1;
	n = pal->v.list.count;
	sec->nbiomes = n;
	sec->biomes = pal->v.list.items;
	if (n == 1)
		return 0;
	bits = sl_ceil_log2(n);
	if (check_packed(data, "biomes.data", n, bits, 0, BIOME_CELLS, err))
		return -1;
	sec->biome_states = data->v.arr.data;
	sec->nbiome_states = data->v.arr.count;
	sec->biome_bits = (uint8_t) bits;
	return 0;
}

/* Layout a section kind implies. */
static sl_layout
layout_of(const sl_nbt *s)
{
	int			names = 0;

	for (uint32_t i = 0; s != NULL && s->type == SL_TAG_COMPOUND && i < s->v.comp.count; i++)
		if (s->v.comp.items[i] != NULL)
			names |= sl_section_name_bit(s->v.comp.items[i]->name, s->v.comp.items[i]->name_len);
	return sl_layout_of_names(names);
}

/* The SL_SECTION_HAS_* bit of an entry named name[0..len) of a section (0: none). */
int
sl_section_name_bit(const char *name, size_t len)
{
	static const struct
	{
		const char *name;
		int			bit;
	}			bits[] = {
		{"block_states", SL_SECTION_HAS_BLOCK_STATES},
		{"Blocks", SL_SECTION_HAS_BLOCKS},
		{"Palette", SL_SECTION_HAS_PALETTE},
		{"BlockStates", SL_SECTION_HAS_BLOCKSTATES},
	};

	for (size_t k = 0; k < sizeof(bits) / sizeof(bits[0]); k++)
		if (strlen(bits[k].name) == len && memcmp(bits[k].name, name, len) == 0)
			return bits[k].bit;
	return 0;
}

/* The layout a section with these SL_SECTION_HAS_* entries is of (NONE: no blocks). */
sl_layout
sl_layout_of_names(int names)
{
	if (names & SL_SECTION_HAS_BLOCK_STATES)
		return SL_LAYOUT_MODERN;
	if (names & SL_SECTION_HAS_BLOCKS)
		return SL_LAYOUT_ANVIL;
	if ((names & SL_SECTION_HAS_PALETTE) && (names & SL_SECTION_HAS_BLOCKSTATES))
		return SL_LAYOUT_FLAT;
	return SL_LAYOUT_NONE;
}

/* Open one section list item into sec; *use is false for light-only sections. */
int
sl_section_open(const sl_chunk_blocks *c, const sl_nbt *s, uint32_t i, int want,
				sl_layout *layout, sl_section *sec, int *use, sl_err *err)
{
	sl_layout	kind = layout_of(s);
	const sl_nbt *bio = sl_nbt_child(s, "biomes");
	int			blocks = (want & SL_WANT_BLOCKS) && kind != SL_LAYOUT_NONE;
	int			biomes = (want & SL_WANT_BIOMES) && bio != NULL;
	int64_t		y;

	memset(sec, 0, sizeof(*sec));
	*use = 0;
	if (kind != SL_LAYOUT_NONE)
	{
		if (*layout != SL_LAYOUT_NONE && *layout != kind)
			return sl_fail(err, SL_ERR_FORMAT, "section %u is %s while others are %s", i,
						   sl_layout_name(kind), sl_layout_name(*layout));
		*layout = kind;
	}
	if (!blocks && !biomes)
		return 0;
	if (!tag_int(sl_nbt_child(s, "Y"), &y))
		return sl_fail(err, SL_ERR_FORMAT, "section %u has no Y", i);
	if (y < -128 || y > 127)
		return sl_fail(err, SL_ERR_FORMAT, "section Y=%lld out of range", (long long) y);
	sec->y = (int) y;
	if (blocks &&
		(kind == SL_LAYOUT_ANVIL ? open_legacy(s, sec, err) :
		 kind == SL_LAYOUT_FLAT ? open_flat(s, c->data_version, sec, err) :
		 sl_section_open_modern(sl_nbt_child(s, "block_states"), sec, err)))
	{
		sl_err_prefix(err, "section Y=%d", sec->y);
		return -1;
	}
	if (biomes && open_biomes(bio, sec, err))
	{
		sl_err_prefix(err, "section Y=%d", sec->y);
		return -1;
	}
	*use = 1;
	return 0;
}

/* Find and check the section list; sections come out in ascending Y. */
static int
open_sections(sl_chunk_blocks *c, const sl_nbt *list, int want, sl_arena *arena, sl_err *err)
{
	int16_t		slot[256];
	sl_section *tmp;
	sl_layout	layout = SL_LAYOUT_NONE;
	uint32_t	n;
	int			used = 0;
	int			biomes = 0;

	if (list->type != SL_TAG_LIST)
		return sl_fail(err, SL_ERR_FORMAT, "Sections is a %s, not a list", type_name(list));
	n = list->v.list.count;
	if (n == 0)
		return 0;
	if (list->v.list.elem_type != SL_TAG_COMPOUND)
		return sl_fail(err, SL_ERR_FORMAT, "Sections is a list of %s, not of compounds",
					   sl_nbt_type_name(list->v.list.elem_type));
	/* sections in use have distinct Y in -128..127: 256, and one being read */
	tmp = sl_arena_alloc(arena, 257 * sizeof(sl_section), err);
	if (tmp == NULL)
		return -1;
	memset(slot, 0xff, sizeof(slot));
	for (uint32_t i = 0; i < n; i++)
	{
		int			use;

		if ((i & 4095) == 4095)
			sl_interrupt();
		if (sl_section_open(c, list->v.list.items[i], i, want, &layout, &tmp[used], &use, err))
			return -1;
		if (!use)
			continue;
		if (slot[tmp[used].y + 128] >= 0)
			return sl_fail(err, SL_ERR_FORMAT, "section Y=%d appears twice", tmp[used].y);
		slot[tmp[used].y + 128] = (int16_t) used;
		biomes |= tmp[used].nbiomes > 0;
		used++;
	}
	c->layout = layout;
	c->sections = sl_arena_alloc(arena, (size_t) (used ? used : 1) * sizeof(sl_section), err);
	if (c->sections == NULL)
		return -1;
	for (int y = 0; y < 256; y++)
		if (slot[y] >= 0)
			c->sections[c->nsections++] = tmp[slot[y]];
	if (biomes)
		c->biome_layout = SL_BIOMES_PALETTE;
	return 0;
}

/* McRegion: eight pseudo-sections over Level.Blocks and Level.Data. */
static int
open_mcregion(sl_chunk_blocks *c, const sl_nbt *level, int want, sl_arena *arena, sl_err *err)
{
	const sl_nbt *blocks = sl_nbt_child(level, "Blocks");
	const sl_nbt *data = sl_nbt_child(level, "Data");
	int			n = MCREGION_HEIGHT / 16;

	c->layout = SL_LAYOUT_MCREGION;
	if (!(want & SL_WANT_BLOCKS))
		return 0;
	if (check_bytes(blocks, "Level.Blocks", 16 * 16 * MCREGION_HEIGHT, err))
		return -1;
	if (data == NULL)
		return sl_fail(err, SL_ERR_FORMAT, "Level.Data is missing");
	if (check_bytes(data, "Level.Data", 16 * 16 * MCREGION_HEIGHT / 2, err))
		return -1;
	c->sections = sl_arena_alloc(arena, n * sizeof(sl_section), err);
	if (c->sections == NULL)
		return -1;
	memset(c->sections, 0, n * sizeof(sl_section));
	for (int i = 0; i < n; i++)
	{
		c->sections[i].y = i;
		c->sections[i].kind = SL_SEC_MCREGION;
		c->sections[i].blocks = blocks->v.arr.data;
		c->sections[i].data = data->v.arr.data;
	}
	c->nsections = n;
	return 0;
}

/* Level.Biomes of the layouts before 1.18. */
static int
open_biome_array(sl_chunk_blocks *c, const sl_nbt *body, sl_err *err)
{
	const sl_nbt *b = sl_nbt_child(body, "Biomes");
	uint32_t	n;

	if (b == NULL)
		return 0;
	if (b->type != SL_TAG_BYTE_ARRAY && b->type != SL_TAG_INT_ARRAY)
		return sl_fail(err, SL_ERR_FORMAT, "Level.Biomes is a %s, not a byte or int array",
					   type_name(b));
	n = b->v.arr.count;
	if (n == 0)
		return 0;				/* written by some tools for "not generated" */
	if (b->type == SL_TAG_BYTE_ARRAY)
	{
		if (n != 256)
			return sl_fail(err, SL_ERR_FORMAT, "Level.Biomes has %u bytes, expected 256", n);
		c->biome_layout = SL_BIOMES_BYTE_2D;
	}
	else if (n % 16 == 0 && n <= MAX_BIOME_CELLS &&
			 (n != 256 || (c->data_version != SL_NO_DV && c->data_version >= 2203)))
		c->biome_layout = SL_BIOMES_INT_3D;
	else if (n == 256)
		c->biome_layout = SL_BIOMES_INT_2D;
	else
		return sl_fail(err, SL_ERR_FORMAT,
					   "Level.Biomes has %u ints, expected 256 or a multiple of 16 up to %d",
					   n, MAX_BIOME_CELLS);
	c->biome_array = b->v.arr.data;
	c->nbiome_array = n;
	return 0;
}

/* Find and check a parsed chunk's sections and biomes. */
int
sl_chunk_blocks_from_tree(const sl_nbt *root, int32_t data_version, int want,
						  sl_arena *arena, sl_chunk_blocks *out, sl_err *err)
{
	const sl_nbt *level;
	const sl_nbt *body;
	const sl_nbt *list;
	int64_t		dv;

	memset(out, 0, sizeof(*out));
	out->arena = arena;
	out->data_version = data_version;
	if (root == NULL || root->type != SL_TAG_COMPOUND)
		return sl_fail(err, SL_ERR_FORMAT, "chunk root is not a compound");
	if (data_version == SL_NO_DV && tag_int(sl_nbt_child(root, "DataVersion"), &dv) &&
		dv > INT32_MIN && dv <= INT32_MAX)
		out->data_version = (int32_t) dv;
	level = sl_nbt_child(root, "Level");
	if (level && level->type != SL_TAG_COMPOUND)
		level = NULL;
	body = level ? level : root;
	list = sl_nbt_child(root, "sections");
	if (list == NULL && level)
	{
		list = sl_nbt_child(level, "Sections");
		if (list == NULL)
			list = sl_nbt_child(level, "sections");
	}
	if (list)
	{
		if (open_sections(out, list, want, arena, err))
			return -1;
	}
	else if (level && sl_nbt_child(level, "Blocks"))
	{
		if (open_mcregion(out, level, want, arena, err))
			return -1;
	}
	if ((want & SL_WANT_BIOMES) && out->biome_layout != SL_BIOMES_PALETTE &&
		open_biome_array(out, body, err))
		return -1;
	return 0;
}

/* Parse chunk NBT and find its sections and biomes. */
int
sl_chunk_blocks_open(const uint8_t *nbt, size_t len, int32_t data_version, int want,
					 const sl_limits *lim, sl_arena *arena, sl_chunk_blocks *out,
					 sl_err *err)
{
	sl_nbt	   *root;
	size_t		used;

	memset(out, 0, sizeof(*out));
	if (lim == NULL)
		lim = &sl_default_limits;
	if (sl_nbt_parse(nbt, len, lim, arena, &root, &used, err) ||
		sl_chunk_blocks_from_tree(root, data_version, want, arena, out, err))
		return -1;
	for (int i = 0; i < out->nsections; i++)
		if (sl_section_check_cap(&out->sections[i], lim, err))
			return -1;
	return 0;
}

/* Fail when an opened section's palettes exceed lim->max_palette. */
int
sl_section_check_cap(const sl_section *sec, const sl_limits *lim, sl_err *err)
{
	uint32_t	n = sec->npalette > sec->nbiomes ? sec->npalette : sec->nbiomes;

	if (n > lim->max_palette)
		return sl_fail(err, SL_ERR_LIMIT, "section Y=%d: palette of %u entries exceeds the cap of %u",
					   sec->y, n, lim->max_palette);
	return 0;
}

/* Short name of a layout. */
const char *
sl_layout_name(sl_layout layout)
{
	switch (layout)
	{
		case SL_LAYOUT_NONE:
			return "none";
		case SL_LAYOUT_MCREGION:
			return "mcregion";
		case SL_LAYOUT_ANVIL:
			return "anvil";
		case SL_LAYOUT_FLAT:
			return "flattened";
		case SL_LAYOUT_MODERN:
			return "modern";
	}
	return "?";
}

/* Nibble i of a nibble array, low half first. */
static inline unsigned
nibble(const uint8_t *a, uint32_t i)
{
	return (a[i >> 1] >> ((i & 1) << 2)) & 15;
}

/* Legacy key (id << 4 | data) of the block at array index bi. */
static inline uint32_t
legacy_key(const sl_section *s, uint32_t bi)
{
	uint32_t	id = s->blocks[bi];

	if (s->add)
		id |= nibble(s->add, bi) << 8;
	return id << 4 | nibble(s->data, bi);
}

/* Array index of section-local (x, y, z) in a legacy section. */
static inline uint32_t
legacy_index(const sl_section *s, int x, int y, int z)
{
	if (s->kind == SL_SEC_MCREGION)
		return (uint32_t) (s->y * 16 + y) + (uint32_t) z * MCREGION_HEIGHT +
			(uint32_t) x * MCREGION_HEIGHT * 16;
	return (uint32_t) (y * 256 + z * 16 + x);
}

/* Count a legacy section's keys; first-seen keys go to touched when given. */
static void
legacy_tally(const sl_section *s, uint32_t *counts, uint32_t *touched, uint32_t *ntouched)
{
	if (s->kind == SL_SEC_MCREGION)
	{
		for (uint32_t x = 0; x < 16; x++)
			for (uint32_t z = 0; z < 16; z++)
			{
				uint32_t	base = (uint32_t) s->y * 16 + z * MCREGION_HEIGHT + x * MCREGION_HEIGHT * 16;

				for (uint32_t y = 0; y < 16; y++)
				{
					uint32_t	k = legacy_key(s, base + y);

					if (counts[k]++ == 0 && touched)
						touched[(*ntouched)++] = k;
				}
			}
		return;
	}
	for (uint32_t i = 0; i < SL_SECTION_VOLUME; i++)
	{
		uint32_t	k = legacy_key(s, i);

		if (counts[k]++ == 0 && touched)
			touched[(*ntouched)++] = k;
	}
}

/*
 * Tally the palette indices of a packed section (entries of them) into
 * tally[0..2^bits) and fail on one past the palette.
 */
static int
palette_tally(const uint8_t *states, uint32_t nstates, int bits, int spanning,
			  uint32_t entries, uint32_t npalette, uint32_t *tally, sl_err *err)
{
	uint32_t	slots = bits ? (uint32_t) 1 << bits : 1;

	memset(tally, 0, slots * sizeof(uint32_t));
	if (states == NULL)
	{
		tally[0] = entries;
		return 0;
	}
	packed_tally(states, nstates, bits, spanning, entries, tally);
	for (uint32_t v = npalette; v < slots; v++)
		if (tally[v])
			return sl_fail(err, SL_ERR_FORMAT, "palette index %u past palette of %u entries",
						   v, npalette);
	return 0;
}

/* Count the blocks of section i into counts. */
int
sl_section_count(const sl_chunk_blocks *c, int i, uint32_t *counts, sl_err *err)
{
	const sl_section *s;
	uint32_t	tally[SL_MAX_PALETTE];

	if (i < 0 || i >= c->nsections)
		return sl_fail(err, SL_ERR_INVALID, "no section %d", i);
	s = &c->sections[i];
	if (s->kind == SL_SEC_MCREGION || s->kind == SL_SEC_LEGACY)
	{
		legacy_tally(s, counts, NULL, NULL);
		return 0;
	}
	if (s->kind != SL_SEC_PALETTE)
		return 0;
	if (palette_tally(s->states, s->nstates, s->bits, s->spanning, SL_SECTION_VOLUME,
					  s->npalette, tally, err))
	{
		sl_err_prefix(err, "section Y=%d", s->y);
		return -1;
	}
	for (uint32_t v = 0; v < s->npalette; v++)
		counts[v] += tally[v];
	return 0;
}

/* Key of section-local block (x, y, z) of section i. */
int
sl_section_key(const sl_chunk_blocks *c, int i, int x, int y, int z, uint32_t *key,
			   sl_err *err)
{
	const sl_section *s;
	uint32_t	v;

	if (i < 0 || i >= c->nsections || x < 0 || x > 15 || y < 0 || y > 15 || z < 0 || z > 15)
		return sl_fail(err, SL_ERR_INVALID, "no block (%d,%d,%d) in section %d", x, y, z, i);
	s = &c->sections[i];
	if (s->kind == SL_SEC_MCREGION || s->kind == SL_SEC_LEGACY)
	{
		*key = legacy_key(s, legacy_index(s, x, y, z));
		return 0;
	}
	if (s->kind != SL_SEC_PALETTE)
		return sl_fail(err, SL_ERR_INVALID, "section Y=%d holds no blocks", s->y);
	v = s->states ? sl_packed_get(s->states, s->bits, s->spanning, (uint32_t) (y * 256 + z * 16 + x)) : 0;
	if (v >= s->npalette)
		return sl_fail(err, SL_ERR_FORMAT, "section Y=%d: palette index %u past palette of %u entries",
					   s->y, v, s->npalette);
	*key = v;
	return 0;
}

/* Append a modified-UTF-8 string as UTF-8. */
static int
put_mutf8(sl_buf *out, const char *s, size_t len, const char *what, sl_err *err)
{
	int			rc = sl_mutf8_to_utf8(s, len, out, err);

	if (rc == 1)
		return sl_fail(err, SL_ERR_UNSUPPORTED, "%s is not representable as UTF-8", what);
	return rc;
}

/* Order properties by key, then by position. */
static int
prop_cmp(const void *a, const void *b)
{
	const prop_ref *p = a;
	const prop_ref *q = b;
	size_t		n = p->tag->name_len < q->tag->name_len ? p->tag->name_len : q->tag->name_len;
	int			c = memcmp(p->tag->name, q->tag->name, n);

	if (c != 0)
		return c;
	if (p->tag->name_len != q->tag->name_len)
		return p->tag->name_len < q->tag->name_len ? -1 : 1;
	return p->pos < q->pos ? -1 : p->pos > q->pos;
}

/* Same key? */
static int
prop_same(const prop_ref *p, const prop_ref *q)
{
	return p->tag->name_len == q->tag->name_len &&
		memcmp(p->tag->name, q->tag->name, p->tag->name_len) == 0;
}

/* Append a checked palette entry as name[key=value,...], keys sorted. */
static int
put_state(const sl_nbt *entry, sl_arena *arena, sl_buf *out, size_t *base_len, sl_err *err)
{
	const sl_nbt *name = sl_nbt_child(entry, "Name");
	const sl_nbt *props = sl_nbt_child(entry, "Properties");
	size_t		start = out->len;
	prop_ref	local[16];
	prop_ref   *refs = local;
	uint32_t	n;
	int			first = 1;

	if (put_mutf8(out, name->v.str.s, name->v.str.len, "block name", err))
		return -1;
	if (base_len)
		*base_len = out->len - start;
	if (props == NULL || props->v.comp.count == 0)
		return 0;
	n = props->v.comp.count;
	if (n > sizeof(local) / sizeof(local[0]))
	{
		refs = sl_arena_alloc(arena, (size_t) n * sizeof(prop_ref), err);
		if (refs == NULL)
			return -1;
	}
	for (uint32_t k = 0; k < n; k++)
	{
		refs[k].tag = props->v.comp.items[k];
		refs[k].pos = k;
	}
	qsort(refs, n, sizeof(prop_ref), prop_cmp);
	for (uint32_t k = 0; k < n; k++)
	{
		const sl_nbt *t = refs[k].tag;

		if (k + 1 < n && prop_same(&refs[k], &refs[k + 1]))
			continue;			/* of duplicate keys the last wins */
		if (sl_buf_put_u8(out, first ? '[' : ',', err) ||
			put_mutf8(out, t->name, t->name_len, "property name", err) ||
			sl_buf_put_u8(out, '=', err) ||
			put_mutf8(out, t->v.str.s, t->v.str.len, "property value", err))
			return -1;
		first = 0;
	}
	return sl_buf_put_u8(out, ']', err);
}

/* Append the state string of palette entry idx of section i. */
int
sl_section_state_name(const sl_chunk_blocks *c, int i, uint32_t idx, sl_buf *out,
					  sl_err *err)
{
	const sl_section *s;

	if (i < 0 || i >= c->nsections || c->sections[i].kind != SL_SEC_PALETTE ||
		idx >= c->sections[i].npalette)
		return sl_fail(err, SL_ERR_INVALID, "no palette entry %u in section %d", idx, i);
	s = &c->sections[i];
	if (put_state(s->palette[idx], c->arena, out, NULL, err))
	{
		sl_err_prefix(err, "section Y=%d: palette entry %u", s->y, idx);
		return -1;
	}
	return 0;
}

/* Append the block at chunk-local x, z and world y. */
int
sl_chunk_block_at(const sl_chunk_blocks *c, int x, int y, int z, sl_buf *out, sl_err *err)
{
	int			sy = y >= 0 ? y / 16 : -((-y + 15) / 16);
	uint32_t	key;

	if (x < 0 || x > 15 || z < 0 || z > 15)
		return sl_fail(err, SL_ERR_INVALID, "block x and z must be 0..15 within a chunk");
	for (int i = 0; i < c->nsections; i++)
	{
		const sl_section *s = &c->sections[i];
		int			fallback;

		if (s->y != sy || s->kind == 0)
			continue;
		if (sl_section_key(c, i, x, y - sy * 16, z, &key, err))
			return -1;
		if (s->kind == SL_SEC_PALETTE)
			return sl_section_state_name(c, i, key, out, err) ? -1 : 1;
		return sl_legacy_state_name(key, out, &fallback, err) ? -1 : 1;
	}
	return 0;
}

/* Append the name (or fallback name) of a legacy key. */
int
sl_legacy_state_name(uint32_t key, sl_buf *out, int *fallback, sl_err *err)
{
	const char *name = sl_legacy_block_name((int) (key >> 4), (int) (key & 15));

	*fallback = name == NULL;
	if (name)
		return sl_buf_put(out, name, strlen(name), err);
	return sl_buf_printf(out, err, "minecraft:legacy_%u_%u", (key >> 4) & 4095, key & 15);
}

/* Append the name (or fallback name) of a numeric biome id. */
int
sl_legacy_biome_append(int64_t id, sl_buf *out, int *fallback, sl_err *err)
{
	const char *name = sl_legacy_biome_name(id);

	*fallback = name == NULL;
	if (name)
		return sl_buf_put(out, name, strlen(name), err);
	return sl_buf_printf(out, err, "minecraft:legacy_biome_%lld", (long long) id);
}

/* Bytes of a name before its properties. */
static size_t
base_length(const uint8_t *s, size_t len)
{
	const void *p = memchr(s, '[', len);

	return p ? (size_t) ((const uint8_t *) p - s) : len;
}

/* Count a legacy chunk: one table for all sections, each key named once. */
static int
count_legacy(const sl_chunk_blocks *c, sl_count_fn fn, void *ctx, sl_buf *name, sl_err *err)
{
	uint32_t   *counts = sl_arena_alloc(c->arena, SL_LEGACY_KEYS * sizeof(uint32_t), err);
	uint32_t   *touched = sl_arena_alloc(c->arena, SL_LEGACY_KEYS * sizeof(uint32_t), err);
	uint32_t	ntouched = 0;

	if (counts == NULL || touched == NULL)
		return -1;
	memset(counts, 0, SL_LEGACY_KEYS * sizeof(uint32_t));
	for (int i = 0; i < c->nsections; i++)
	{
		sl_interrupt();
		if (c->sections[i].kind == SL_SEC_LEGACY || c->sections[i].kind == SL_SEC_MCREGION)
			legacy_tally(&c->sections[i], counts, touched, &ntouched);
	}
	for (uint32_t t = 0; t < ntouched; t++)
	{
		int			fallback;

		name->len = 0;
		if (sl_legacy_state_name(touched[t], name, &fallback, err) ||
			fn(ctx, (const char *) name->data, name->len, base_length(name->data, name->len),
			   counts[touched[t]], fallback, err))
			return -1;
	}
	return 0;
}

/* Count a paletted chunk section by section, each used palette entry named once. */
static int
count_palette(const sl_chunk_blocks *c, sl_count_fn fn, void *ctx, sl_buf *name, sl_err *err)
{
	uint32_t	tally[SL_MAX_PALETTE];

	for (int i = 0; i < c->nsections; i++)
	{
		const sl_section *s = &c->sections[i];

		sl_interrupt();
		if (s->kind != SL_SEC_PALETTE)
			continue;
		if (palette_tally(s->states, s->nstates, s->bits, s->spanning, SL_SECTION_VOLUME,
						  s->npalette, tally, err))
		{
			sl_err_prefix(err, "section Y=%d", s->y);
			return -1;
		}
		for (uint32_t v = 0; v < s->npalette; v++)
		{
			size_t		base;

			if (tally[v] == 0)
				continue;
			name->len = 0;
			if (put_state(s->palette[v], c->arena, name, &base, err))
			{
				sl_err_prefix(err, "section Y=%d: palette entry %u", s->y, v);
				return -1;
			}
			if (fn(ctx, (const char *) name->data, name->len, base, tally[v], 0, err))
				return -1;
		}
	}
	return 0;
}

/* Count every block of the stored sections. */
int
sl_chunk_count_blocks(const sl_chunk_blocks *c, sl_count_fn fn, void *ctx, sl_err *err)
{
	sl_buf		name = {0};
	int			rc;

	if (c->layout == SL_LAYOUT_MCREGION || c->layout == SL_LAYOUT_ANVIL)
		rc = count_legacy(c, fn, ctx, &name, err);
	else
		rc = count_palette(c, fn, ctx, &name, err);
	sl_buf_free(&name);
	return rc;
}

/* Order int64 ids. */
static int
id_cmp(const void *a, const void *b)
{
	int64_t		x = *(const int64_t *) a;
	int64_t		y = *(const int64_t *) b;

	return x < y ? -1 : x > y;
}

/* Report one numeric biome id with its count. */
static int
emit_biome_id(int64_t id, uint64_t count, sl_count_fn fn, void *ctx, sl_buf *name, sl_err *err)
{
	int			fallback;

	name->len = 0;
	if (sl_legacy_biome_append(id, name, &fallback, err))
		return -1;
	return fn(ctx, (const char *) name->data, name->len, name->len, count, fallback, err);
}

/* Count a Level.Biomes array of numeric ids. */
static int
count_biome_array(const sl_chunk_blocks *c, sl_count_fn fn, void *ctx, sl_buf *name, sl_err *err)
{
	uint32_t	counts[256];
	int64_t    *other = NULL;
	uint32_t	nother = 0;

	memset(counts, 0, sizeof(counts));
	if (c->biome_layout == SL_BIOMES_BYTE_2D)
	{
		for (uint32_t i = 0; i < c->nbiome_array; i++)
			counts[c->biome_array[i]]++;
	}
	else
	{
		other = sl_arena_alloc(c->arena, (size_t) c->nbiome_array * sizeof(int64_t), err);
		if (other == NULL)
			return -1;
		for (uint32_t i = 0; i < c->nbiome_array; i++)
		{
			int32_t		v = (int32_t) sl_get_u32be(c->biome_array + 4 * (size_t) i);

			if (v >= 0 && v < 256)
				counts[v]++;
			else
				other[nother++] = v;
		}
	}
	for (int id = 0; id < 256; id++)
		if (counts[id] && emit_biome_id(id, counts[id], fn, ctx, name, err))
			return -1;
	if (nother)
		qsort(other, nother, sizeof(int64_t), id_cmp);
	for (uint32_t i = 0; i < nother;)
	{
		uint32_t	j = i;

		while (j < nother && other[j] == other[i])
			j++;
		if (emit_biome_id(other[i], j - i, fn, ctx, name, err))
			return -1;
		i = j;
	}
	return 0;
}

/* Count per-section biome palettes (1.18+). */
static int
count_biome_palettes(const sl_chunk_blocks *c, sl_count_fn fn, void *ctx, sl_buf *name,
					 sl_err *err)
{
	uint32_t	tally[SL_MAX_PALETTE];

	for (int i = 0; i < c->nsections; i++)
	{
		const sl_section *s = &c->sections[i];

		if (s->nbiomes == 0)
			continue;
		if (palette_tally(s->biome_states, s->nbiome_states, s->biome_bits, 0, BIOME_CELLS,
						  s->nbiomes, tally, err))
		{
			sl_err_prefix(err, "section Y=%d: biomes", s->y);
			return -1;
		}
		for (uint32_t v = 0; v < s->nbiomes; v++)
		{
			const sl_nbt *b = s->biomes[v];

			if (tally[v] == 0)
				continue;
			name->len = 0;
			if (put_mutf8(name, b->v.str.s, b->v.str.len, "biome name", err))
			{
				sl_err_prefix(err, "section Y=%d: biome palette entry %u", s->y, v);
				return -1;
			}
			if (fn(ctx, (const char *) name->data, name->len, name->len, tally[v], 0, err))
				return -1;
		}
	}
	return 0;
}

/* Count biome entries and report each distinct biome once. */
int
sl_chunk_count_biomes(const sl_chunk_blocks *c, sl_count_fn fn, void *ctx, sl_err *err)
{
	sl_buf		name = {0};
	int			rc = 0;

	if (c->biome_layout == SL_BIOMES_PALETTE)
		rc = count_biome_palettes(c, fn, ctx, &name, err);
	else if (c->biome_layout != SL_BIOMES_NONE)
		rc = count_biome_array(c, fn, ctx, &name, err);
	sl_buf_free(&name);
	return rc;
}
