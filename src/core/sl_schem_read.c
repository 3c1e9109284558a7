/*
 * sl_schem_read.c - reading and checking Sponge (v1..v3) and MCEdit
 * schematics for pasting (see sl_schem.h).
 *
 * The whole schematic is checked before anything is written: every varint,
 * with a mark every 16 entries so that any run can be read without
 * decoding from the start (sl_schem_run).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "sl_blocks.h"
#include "sl_chunk.h"
#include "sl_codec.h"
#include "sl_schem_int.h"

/* Is a canonical state one of the airs? */
static int
is_air(const char *s, size_t len)
{
	return (len == 13 && memcmp(s, "minecraft:air", 13) == 0) ||
		(len == 18 && memcmp(s, "minecraft:cave_air", 18) == 0) ||
		(len == 18 && memcmp(s, "minecraft:void_air", 18) == 0);
}

/* Palette node {Name, Properties} of a canonical state (strings point into canon). */
static sl_nbt *
state_node(sl_arena *a, const char *canon, size_t len, sl_err *err)
{
	const char *br = memchr(canon, '[', len);
	size_t		nlen = br ? (size_t) (br - canon) : len;
	sl_nbt	  **items = sl_arena_alloc(a, 2 * sizeof(sl_nbt *), err);
	sl_nbt	   *node;
	uint32_t	n = 0;

	if (items == NULL || nlen > UINT16_MAX)
		return nlen > UINT16_MAX ? (sl_fail(err, SL_ERR_LIMIT, "block name too long"), NULL) : NULL;
	items[n] = sl_schem_mk_string(a, "Name", canon, nlen, err);
	if (items[n++] == NULL)
		return NULL;
	if (br)
	{
		const char *p = br + 1;
		const char *end = canon + len - 1;
		uint32_t	np = 1;
		sl_nbt	  **props;
		uint32_t	k = 0;

		for (const char *q = p; q < end; q++)
			np += *q == ',';
		props = sl_arena_alloc(a, np * sizeof(sl_nbt *), err);
		if (props == NULL)
			return NULL;
		while (p < end)
		{
			const char *c = memchr(p, ',', (size_t) (end - p));
			const char *stop = c ? c : end;
			const char *eq = memchr(p, '=', (size_t) (stop - p));
			sl_nbt	   *t;

			if (eq == NULL || (size_t) (eq - p) > UINT16_MAX || (size_t) (stop - eq - 1) > UINT16_MAX)
				return sl_fail(err, SL_ERR_LIMIT, "block state property too long"), NULL;
			t = sl_schem_mk(a, SL_TAG_STRING, "", err);
			if (t == NULL)
				return NULL;
			t->name = p;
			t->name_len = (uint16_t) (eq - p);
			t->v.str.s = eq + 1;
			t->v.str.len = (uint16_t) (stop - eq - 1);
			props[k++] = t;
			p = stop + 1;
		}
		items[n] = sl_schem_mk_compound(a, "Properties", props, k, err);
		if (items[n++] == NULL)
			return NULL;
	}
	node = sl_schem_mk_compound(a, "", items, n, err);
	return node;
}

/* ---- reading schematics ---- */

/* Unpack gzip, zlib or plain NBT of at most lim->max_value_raw bytes. */
static int
schem_unpack(const uint8_t *in, size_t len, const sl_limits *lim, uint8_t **out,
			 size_t *out_len, sl_err *err)
{
	size_t		used;

	*out = NULL;
	*out_len = 0;
	if (len >= 2 && in[0] == 0x1f && in[1] == 0x8b)
		return sl_inflate(SL_DEFLATE_GZIP, in, len, lim->max_value_raw, 0, out, out_len, &used, err);
	if (len >= 2 && (in[0] & 0x0f) == 8 && ((in[0] << 8) | in[1]) % 31 == 0)
		return sl_inflate(SL_DEFLATE_ZLIB, in, len, lim->max_value_raw, 0, out, out_len, &used, err);
	if (len > lim->max_value_raw)
		return sl_fail(err, SL_ERR_LIMIT, "schematic of %zu bytes exceeds the cap of %zu bytes",
					   len, lim->max_value_raw);
	*out = sl_alloc_err(len ? len : 1, err);
	if (*out == NULL)
		return -1;
	memcpy(*out, in, len);
	*out_len = len;
	return 0;
}

/* A dimension: Sponge reads an unsigned short, MCEdit a signed one. */
static int
read_dim(const sl_nbt *sch, const char *name, int sponge, uint32_t *out, sl_err *err)
{
	const sl_nbt *t = sl_nbt_child(sch, name);
	int64_t		v;

	if (t == NULL)
		return sl_fail(err, SL_ERR_FORMAT, "%s is missing", name);
	if (!sl_schem_int_tag(t, &v))
		return sl_fail(err, SL_ERR_FORMAT, "%s is a %s, not a short", name, sl_schem_type_name(t));
	if (t->type == SL_TAG_SHORT && sponge)
		v = (uint16_t) v;
	if (v < 0)
		return sl_fail(err, SL_ERR_FORMAT, "%s is negative (%lld)", name, (long long) v);
	if (v == 0)
		return sl_fail(err, SL_ERR_FORMAT, "%s is 0", name);
	if (v > SL_SCHEM_MAX_AXIS)
		return sl_fail(err, SL_ERR_FORMAT, "%s is %lld, more than %d", name, (long long) v,
					   SL_SCHEM_MAX_AXIS);
	*out = (uint32_t) v;
	return 0;
}

/* Add a palette state (canonical form of a name) as entry k. */
static int
add_state(sl_schem *s, uint32_t k, const char *name, size_t len, sl_buf *scratch, sl_err *err)
{
	sl_schem_state *st = &s->palette[k];
	strmap	   *map = s->map;
	uint32_t	e;
	char	   *copy;

	scratch->len = 0;
	if (sl_state_canonical(name, len, scratch, err))
		return -1;
	if (scratch->len > UINT16_MAX * 2u)
		return sl_fail(err, SL_ERR_LIMIT, "block state of %zu bytes is too long", scratch->len);
	e = sl_schem_strmap_find(map, (const char *) scratch->data, scratch->len);
	copy = sl_arena_alloc(&s->arena, scratch->len ? scratch->len : 1, err);
	if (copy == NULL)
		return -1;
	memcpy(copy, scratch->data, scratch->len);
	st->canon = copy;
	st->canon_len = (uint32_t) scratch->len;
	st->air = (uint8_t) is_air(copy, scratch->len);
	if (e != NO_INDEX)
	{
		st->alias = e;
		st->node = s->palette[e].node;
		return 0;
	}
	if (sl_schem_strmap_add(map, copy, scratch->len, &e, err))
		return -1;
	/* map entries are added in palette order: entry e is palette entry k */
	st->alias = k;
	if (e != k)
	{
		/* keep the map's ids equal to palette indices: remap */
		return sl_fail(err, SL_ERR_INVALID, "internal: palette map out of step");
	}
	st->node = state_node(&s->arena, copy, scratch->len, err);
	return st->node ? 0 : -1;
}

/*
 * The map holds one entry per distinct state while the palette may repeat
 * states: keep them in step by giving duplicate palette entries a map entry
 * too (an unreachable key), so that map id == palette index.
 */
static int
add_state_slot(sl_schem *s, uint32_t k, const char *name, size_t len, sl_buf *scratch,
			   sl_err *err)
{
	strmap	   *map = s->map;
	uint32_t	before = map->n;
	char		filler[16];
	uint32_t	e;

	if (add_state(s, k, name, len, scratch, err))
		return -1;
	if (map->n == before)
	{
		/* a duplicate: reserve id k with a key no state has ("\0" + k) */
		filler[0] = '\0';
		memcpy(filler + 1, &k, sizeof(k));
		if (sl_schem_strmap_add(map, filler, 1 + sizeof(k), &e, err))
			return -1;
	}
	return 0;
}

/* Sponge: palette compound (name -> index). */
static int
read_sponge_palette(sl_schem *s, const sl_nbt *pal, const char *what, sl_buf *scratch,
					sl_err *err)
{
	uint32_t	n;
	uint32_t	maxid = 0;
	int			have_air = 0;

	if (pal == NULL)
		return sl_fail(err, SL_ERR_FORMAT, "%s is missing", what);
	if (pal->type != SL_TAG_COMPOUND)
		return sl_fail(err, SL_ERR_FORMAT, "%s is a %s, not a compound", what, sl_schem_type_name(pal));
	n = pal->v.comp.count;
	if (n == 0 && !s->empty)
		return sl_fail(err, SL_ERR_FORMAT, "%s is empty", what);
	if (n >= UINT32_MAX - 1)
		return sl_fail(err, SL_ERR_LIMIT, "%s has too many entries", what);
	for (uint32_t k = 0; k < n; k++)
	{
		const sl_nbt *e = pal->v.comp.items[k];
		int64_t		id;

		if (!sl_schem_int_tag(e, &id) || e->type == SL_TAG_LONG)
			return sl_fail(err, SL_ERR_FORMAT, "%s entry %u \"%.*s\" is a %s, not an int", what, k,
						   e->name_len > 64 ? 64 : (int) e->name_len, e->name, sl_schem_type_name(e));
		if (id < 0 || id >= SL_SCHEM_MAX_ID)
			return sl_fail(err, SL_ERR_FORMAT, "%s entry \"%.*s\" has index %lld, outside 0..%u", what,
						   e->name_len > 64 ? 64 : (int) e->name_len, e->name, (long long) id,
						   SL_SCHEM_MAX_ID - 1);
		if ((uint32_t) id > maxid)
			maxid = (uint32_t) id;
	}
	s->palette = sl_arena_alloc(&s->arena, ((size_t) n + 1) * sizeof(sl_schem_state), err);
	s->nids = maxid + 1;
	s->pal_of_id = sl_alloc_err((size_t) s->nids * sizeof(uint32_t), err);
	if (s->palette == NULL || s->pal_of_id == NULL)
		return -1;
	memset(s->palette, 0, ((size_t) n + 1) * sizeof(sl_schem_state));
	for (uint32_t i = 0; i < s->nids; i++)
		s->pal_of_id[i] = NO_INDEX;
	for (uint32_t k = 0; k < n; k++)
	{
		const sl_nbt *e = pal->v.comp.items[k];
		uint32_t	id = (uint32_t) e->v.i;

		if ((k & 1023) == 1023)
			sl_interrupt();
		if (s->pal_of_id[id] != NO_INDEX)
			return sl_fail(err, SL_ERR_FORMAT, "%s entries %u and %u both have index %u", what,
						   s->pal_of_id[id], k, id);
		if (add_state_slot(s, k, e->name, e->name_len, scratch, err))
		{
			sl_err_prefix(err, "%s entry \"%.*s\"", what,
						  e->name_len > 64 ? 64 : (int) e->name_len, e->name);
			return -1;
		}
		/* until aliases are applied, pal_of_id holds the entry (for the duplicate check) */
		s->pal_of_id[id] = k;
		have_air |= s->palette[k].canon_len == 13 && memcmp(s->palette[k].canon, "minecraft:air", 13) == 0;
	}
	for (uint32_t i = 0; i < s->nids; i++)
		if (s->pal_of_id[i] != NO_INDEX)
			s->pal_of_id[i] = s->palette[s->pal_of_id[i]].alias;
	s->npalette = n;
	if (!have_air && add_state_slot(s, n, "minecraft:air", 13, scratch, err))
		return -1;
	if (!have_air)
		s->npalette = n + 1;
	s->air_index = sl_schem_strmap_find(s->map, "minecraft:air", 13);
	s->air_index = s->palette[s->air_index].alias;
	return 0;
}

/* Sponge: check every varint of the block data and mark every 16th entry. */
static int
read_sponge_data(sl_schem *s, const sl_nbt *data, const char *what, sl_err *err)
{
	uint64_t	n = 0;
	size_t		pos = 0;
	size_t		len;

	if (data == NULL)
		return sl_fail(err, SL_ERR_FORMAT, "%s is missing", what);
	if (data->type != SL_TAG_BYTE_ARRAY)
		return sl_fail(err, SL_ERR_FORMAT, "%s is a %s, not a byte array", what, sl_schem_type_name(data));
	len = data->v.arr.count;
	s->varints = data->v.arr.data;
	s->varints_len = len;
	if (len < s->volume)
		return sl_fail(err, SL_ERR_FORMAT,
					   "%s has %zu bytes, fewer than Width*Height*Length = %llu entries", what,
					   len, (unsigned long long) s->volume);
	s->marks = sl_alloc_err((size_t) ((s->volume + 15) / 16) * sizeof(uint32_t), err);
	if (s->marks == NULL)
		return -1;
	while (pos < len)
	{
		size_t		at = pos;
		uint32_t	v;

		if ((n & 0xFFFF) == 0)
			sl_interrupt();
		if (n == s->volume)
			return sl_fail(err, SL_ERR_FORMAT,
						   "%s holds more than Width*Height*Length = %llu entries (extra bytes from offset %zu)",
						   what, (unsigned long long) s->volume, pos);
		if ((n & 15) == 0)
			s->marks[n >> 4] = (uint32_t) pos;
		if (sl_varint_get(s->varints, len, &pos, &v))
		{
			size_t		e = at;

			while (e < len && e - at < 5 && (s->varints[e] & 0x80))
				e++;
			return sl_fail(err, SL_ERR_FORMAT, "%s: varint at byte offset %zu (entry %llu) is %s",
						   what, at, (unsigned long long) n,
						   e == len ? "truncated" : "longer than 5 bytes or past 2^31");
		}
		if (v >= s->nids || s->pal_of_id[v] == NO_INDEX)
		{
			uint64_t	x = n % s->width;
			uint64_t	z = (n / s->width) % s->length;
			uint64_t	y = n / ((uint64_t) s->width * s->length);

			return sl_fail(err, SL_ERR_FORMAT,
						   "%s: entry %llu (block %llu,%llu,%llu) is palette index %u, which the palette does not hold",
						   what, (unsigned long long) n, (unsigned long long) x,
						   (unsigned long long) y, (unsigned long long) z, v);
		}
		n++;
	}
	if (n != s->volume)
		return sl_fail(err, SL_ERR_FORMAT, "%s holds %llu entries, Width*Height*Length is %llu",
					   what, (unsigned long long) n, (unsigned long long) s->volume);
	return 0;
}

/* A block entity position (relative), checked against the box. */
static int
check_pos(const sl_schem *s, int64_t x, int64_t y, int64_t z, const char *what, uint32_t i,
		  sl_err *err)
{
	if (x < 0 || y < 0 || z < 0 || x >= s->width || y >= s->height || z >= s->length)
		return sl_fail(err, SL_ERR_FORMAT,
					   "%s[%u] at (%lld,%lld,%lld) is outside the schematic's %u x %u x %u box",
					   what, i, (long long) x, (long long) y, (long long) z, s->width, s->height,
					   s->length);
	return 0;
}

/* Check l is a list of compounds (or empty) and make room for its block entities. */
static int
be_list(sl_schem *s, const sl_nbt *l, const char *what, sl_err *err)
{
	size_t		n;

	if (l->type != SL_TAG_LIST)
		return sl_fail(err, SL_ERR_FORMAT, "%s is a %s, not a list", what, sl_schem_type_name(l));
	if (l->v.list.count > 0 && l->v.list.elem_type != SL_TAG_COMPOUND)
		return sl_fail(err, SL_ERR_FORMAT, "%s is a list of %s, not of compounds", what,
					   sl_nbt_type_name(l->v.list.elem_type));
	n = ((size_t) l->v.list.count + 1) * sizeof(sl_schem_be);
	s->be = sl_arena_alloc(&s->arena, n, err);
	if (s->be == NULL)
		return -1;
	memset(s->be, 0, n);
	return 0;
}

/* Sponge block entities: {Pos int[3], Id, Data{...}} (v3) or fields inline (v1, v2). */
static int
read_sponge_bes(sl_schem *s, const sl_nbt *l, const char *what, sl_err *err)
{
	if (l == NULL)
		return 0;
	if (be_list(s, l, what, err))
		return -1;
	for (uint32_t i = 0; i < l->v.list.count; i++)
	{
		const sl_nbt *e = l->v.list.items[i];
		const sl_nbt *pos = sl_nbt_child(e, "Pos");
		const sl_nbt *id = sl_nbt_child(e, "Id");
		sl_schem_be *b = &s->be[s->nbe];

		if (pos == NULL || pos->type != SL_TAG_INT_ARRAY || pos->v.arr.count != 3)
			return sl_fail(err, SL_ERR_FORMAT, "%s[%u].Pos is %s, not an int array of 3", what, i,
						   pos ? sl_schem_type_name(pos) : "missing");
		if (id == NULL || id->type != SL_TAG_STRING)
			return sl_fail(err, SL_ERR_FORMAT, "%s[%u].Id is %s, not a string", what, i,
						   id ? sl_schem_type_name(id) : "missing");
		b->x = (int32_t) sl_get_u32be(pos->v.arr.data);
		b->y = (int32_t) sl_get_u32be(pos->v.arr.data + 4);
		b->z = (int32_t) sl_get_u32be(pos->v.arr.data + 8);
		if (check_pos(s, b->x, b->y, b->z, what, i, err))
			return -1;
		b->id = id->v.str.s;
		b->id_len = id->v.str.len;
		if (s->version == 3)
		{
			const sl_nbt *data = sl_nbt_child(e, "Data");

			if (data != NULL && data->type != SL_TAG_COMPOUND)
				return sl_fail(err, SL_ERR_FORMAT, "%s[%u].Data is a %s, not a compound", what, i,
							   sl_schem_type_name(data));
			b->fields = data;
		}
		else
		{
			b->fields = e;
			b->skip_pos = 1;
		}
		s->nbe++;
	}
	return 0;
}

static int
read_sponge(sl_schem *s, const sl_nbt *sch, sl_buf *scratch, sl_err *err)
{
	const sl_nbt *holder = sch;
	const sl_nbt *off = sl_nbt_child(sch, "Offset");
	const sl_nbt *bel;
	const char *pal_what = "Palette";
	const char *data_what = "BlockData";
	const char *be_what = "BlockEntities";
	int64_t		dv;

	if (sl_schem_int_tag(sl_nbt_child(sch, "DataVersion"), &dv) && dv >= INT32_MIN && dv <= INT32_MAX)
		s->data_version = (int32_t) dv;
	if (off != NULL)
	{
		if (off->type != SL_TAG_INT_ARRAY || off->v.arr.count != 3)
			return sl_fail(err, SL_ERR_FORMAT, "Offset is not an int array of 3");
		for (int k = 0; k < 3; k++)
			s->offset[k] = (int32_t) sl_get_u32be(off->v.arr.data + 4 * k);
	}
	if (s->version == 3)
	{
		holder = sl_nbt_child(sch, "Blocks");
		if (holder == NULL)
			return sl_fail(err, SL_ERR_FORMAT, "Blocks is missing");
		if (holder->type != SL_TAG_COMPOUND)
			return sl_fail(err, SL_ERR_FORMAT, "Blocks is a %s, not a compound", sl_schem_type_name(holder));
		pal_what = "Blocks.Palette";
		data_what = "Blocks.Data";
		be_what = "Blocks.BlockEntities";
	}
	{
		const sl_nbt *data = sl_nbt_child(holder, s->version == 3 ? "Data" : "BlockData");

		/* no block data at all: an empty clipboard, air everywhere */
		s->empty = data != NULL && data->type == SL_TAG_BYTE_ARRAY && data->v.arr.count == 0;
		if (read_sponge_palette(s, sl_nbt_child(holder, "Palette"), pal_what, scratch, err) ||
			(!s->empty && read_sponge_data(s, data, data_what, err)))
			return -1;
	}
	bel = sl_nbt_child(holder, "BlockEntities");
	if (bel == NULL && s->version == 1)
	{
		bel = sl_nbt_child(holder, "TileEntities");
		be_what = "TileEntities";
	}
	return read_sponge_bes(s, bel, be_what, err);
}

/* Block entity ids of the MCEdit era (before 1.11) and the names that replaced them. */
static const char *const old_be_ids[][2] = {
	{"AirPortal", "minecraft:end_portal"}, {"Banner", "minecraft:banner"},
	{"Beacon", "minecraft:beacon"}, {"Cauldron", "minecraft:brewing_stand"},
	{"Chest", "minecraft:chest"}, {"Comparator", "minecraft:comparator"},
	{"Control", "minecraft:command_block"}, {"DLDetector", "minecraft:daylight_detector"},
	{"Dropper", "minecraft:dropper"}, {"EnchantTable", "minecraft:enchanting_table"},
	{"EndGateway", "minecraft:end_gateway"}, {"EnderChest", "minecraft:ender_chest"},
	{"FlowerPot", "minecraft:flower_pot"}, {"Furnace", "minecraft:furnace"},
	{"Hopper", "minecraft:hopper"}, {"MobSpawner", "minecraft:mob_spawner"},
	{"Music", "minecraft:noteblock"}, {"Piston", "minecraft:piston"},
	{"RecordPlayer", "minecraft:jukebox"}, {"Sign", "minecraft:sign"},
	{"Skull", "minecraft:skull"}, {"Structure", "minecraft:structure_block"},
	{"Trap", "minecraft:dispenser"}
};

/* MCEdit block entities {id, x, y, z, ...} with relative coordinates. */
static int
read_mcedit_bes(sl_schem *s, const sl_nbt *l, sl_err *err)
{
	if (l == NULL)
		return 0;
	if (be_list(s, l, "TileEntities", err))
		return -1;
	for (uint32_t i = 0; i < l->v.list.count; i++)
	{
		const sl_nbt *e = l->v.list.items[i];
		const sl_nbt *id = sl_nbt_child(e, "id");
		sl_schem_be *b = &s->be[s->nbe];
		int64_t		x,
					y,
					z;

		if (!sl_schem_int_tag(sl_nbt_child(e, "x"), &x) || !sl_schem_int_tag(sl_nbt_child(e, "y"), &y) ||
			!sl_schem_int_tag(sl_nbt_child(e, "z"), &z))
			return sl_fail(err, SL_ERR_FORMAT, "TileEntities[%u] has no x, y and z", i);
		if (id == NULL || id->type != SL_TAG_STRING)
			return sl_fail(err, SL_ERR_FORMAT, "TileEntities[%u].id is %s, not a string", i,
						   id ? sl_schem_type_name(id) : "missing");
		if (check_pos(s, x, y, z, "TileEntities", i, err))
			return -1;
		b->x = (int32_t) x;
		b->y = (int32_t) y;
		b->z = (int32_t) z;
		b->id = id->v.str.s;
		b->id_len = id->v.str.len;
		for (size_t k = 0; k < sizeof(old_be_ids) / sizeof(old_be_ids[0]); k++)
			if (strlen(old_be_ids[k][0]) == id->v.str.len &&
				memcmp(old_be_ids[k][0], id->v.str.s, id->v.str.len) == 0)
			{
				b->id = old_be_ids[k][1];
				b->id_len = (uint16_t) strlen(b->id);
			}
		if (memchr(b->id, ':', b->id_len) == NULL)
		{
			char	   *p = sl_arena_alloc(&s->arena, (size_t) b->id_len + 10, err);

			if (p == NULL)
				return -1;
			memcpy(p, "minecraft:", 10);
			memcpy(p + 10, b->id, b->id_len);
			if ((size_t) b->id_len + 10 > UINT16_MAX)
				return sl_fail(err, SL_ERR_FORMAT, "TileEntities[%u].id is too long", i);
			b->id = p;
			b->id_len = (uint16_t) (b->id_len + 10);
		}
		b->fields = e;
		s->nbe++;
	}
	return 0;
}

/* Name a legacy block gets when pasted: its own, else Minecraft's upgrade fallback. */
static const char *
legacy_paste_name(uint32_t key)
{
	int			id = (int) (key >> 4);
	const char *name = sl_legacy_block_name(id, (int) (key & 15));

	/* an unknown data value: the first state of the id; an unknown id: air */
	for (int d = 0; name == NULL && d < 16; d++)
		name = sl_legacy_block_name(id, d);
	return name ? name : "minecraft:air";
}

/* Legacy key of block j of an MCEdit schematic. */
static inline uint32_t
mcedit_key(const sl_schem *s, uint64_t j)
{
	uint32_t	id = s->blocks[j];

	if ((j >> 1) < s->nadd)
		id |= (uint32_t) ((s->add[j >> 1] >> ((j & 1) << 2)) & 15) << 8;
	return id << 4 | (s->data[j] & 15);
}

static int
read_mcedit(sl_schem *s, const sl_nbt *sch, sl_buf *scratch, sl_err *err)
{
	const sl_nbt *mat = sl_nbt_child(sch, "Materials");
	const sl_nbt *blocks = sl_nbt_child(sch, "Blocks");
	const sl_nbt *data = sl_nbt_child(sch, "Data");
	const sl_nbt *add = sl_nbt_child(sch, "AddBlocks");
	uint32_t	n = 0;
	uint32_t	k = 0;
	int64_t		o;
	const char *const origin[3] = {"WEOriginX", "WEOriginY", "WEOriginZ"};

	if (mat != NULL && (mat->type != SL_TAG_STRING || mat->v.str.len != 5 ||
						memcmp(mat->v.str.s, "Alpha", 5) != 0))
		return sl_fail(err, SL_ERR_UNSUPPORTED, "Materials is \"%.*s\"; only Alpha schematics are read",
					   mat->type == SL_TAG_STRING ? (mat->v.str.len > 32 ? 32 : (int) mat->v.str.len) : 0,
					   mat->type == SL_TAG_STRING ? mat->v.str.s : "");
	if (blocks->type != SL_TAG_BYTE_ARRAY)
		return sl_fail(err, SL_ERR_FORMAT, "Blocks is a %s, not a byte array", sl_schem_type_name(blocks));
	if (blocks->v.arr.count == 0 && data != NULL && data->type == SL_TAG_BYTE_ARRAY &&
		data->v.arr.count == 0)
	{
		/* an empty clipboard: air everywhere */
		s->empty = 1;
		s->palette = sl_arena_alloc(&s->arena, sizeof(sl_schem_state), err);
		if (s->palette == NULL)
			return -1;
		memset(s->palette, 0, sizeof(sl_schem_state));
		if (add_state_slot(s, 0, "minecraft:air", 13, scratch, err))
			return -1;
		s->npalette = 1;
		s->air_index = 0;
		return read_mcedit_bes(s, sl_nbt_child(sch, "TileEntities"), err);
	}
	if (blocks->v.arr.count != s->volume)
		return sl_fail(err, SL_ERR_FORMAT, "Blocks has %u bytes, Width*Height*Length is %llu",
					   blocks->v.arr.count, (unsigned long long) s->volume);
	if (data == NULL)
		return sl_fail(err, SL_ERR_FORMAT, "Data is missing");
	if (data->type != SL_TAG_BYTE_ARRAY)
		return sl_fail(err, SL_ERR_FORMAT, "Data is a %s, not a byte array", sl_schem_type_name(data));
	if (data->v.arr.count != s->volume)
		return sl_fail(err, SL_ERR_FORMAT, "Data has %u bytes, Width*Height*Length is %llu",
					   data->v.arr.count, (unsigned long long) s->volume);
	if (add != NULL && add->type != SL_TAG_BYTE_ARRAY)
		return sl_fail(err, SL_ERR_FORMAT, "AddBlocks is a %s, not a byte array", sl_schem_type_name(add));
	for (int a = 0; a < 3; a++)
		if (sl_schem_int_tag(sl_nbt_child(sch, origin[a]), &o))
			s->offset[a] = (int32_t) o;
	s->blocks = blocks->v.arr.data;
	s->data = data->v.arr.data;
	if (add)
	{
		s->add = add->v.arr.data;
		s->nadd = add->v.arr.count;
	}
	s->pal_of_key = sl_alloc_err(SL_LEGACY_KEYS * sizeof(uint32_t), err);
	if (s->pal_of_key == NULL)
		return -1;
	memset(s->pal_of_key, 0, SL_LEGACY_KEYS * sizeof(uint32_t));
	for (uint64_t j = 0; j < s->volume; j++)
	{
		uint32_t	key = mcedit_key(s, j);

		if ((j & 0xFFFF) == 0)
			sl_interrupt();
		n += s->pal_of_key[key] == 0;
		s->pal_of_key[key] = 1;
	}
	s->palette = sl_arena_alloc(&s->arena, ((size_t) n + 1) * sizeof(sl_schem_state), err);
	if (s->palette == NULL)
		return -1;
	memset(s->palette, 0, ((size_t) n + 1) * sizeof(sl_schem_state));
	for (uint32_t key = 0; key < SL_LEGACY_KEYS; key++)
	{
		const char *name;

		if (s->pal_of_key[key] == 0)
			continue;
		name = legacy_paste_name(key);
		if (add_state_slot(s, k, name, strlen(name), scratch, err))
			return -1;
		s->pal_of_key[key] = s->palette[k].alias;
		k++;
	}
	s->npalette = k;
	s->air_index = sl_schem_strmap_find(s->map, "minecraft:air", 13);
	if (s->air_index == NO_INDEX)
	{
		if (add_state_slot(s, k, "minecraft:air", 13, scratch, err))
			return -1;
		s->npalette = k + 1;
		s->air_index = k;
	}
	s->air_index = s->palette[s->air_index].alias;
	return read_mcedit_bes(s, sl_nbt_child(sch, "TileEntities"), err);
}

int
sl_schem_read(const uint8_t *file, size_t len, const sl_limits *lim, sl_schem *s, sl_err *err)
{
	sl_nbt	   *root;
	const sl_nbt *sch;
	const sl_nbt *inner;
	size_t		used;
	sl_buf		scratch = {0};
	int64_t		version;
	uint64_t	cap;
	int			rc = -1;

	memset(s, 0, sizeof(*s));
	s->data_version = SL_NO_DV;
	if (lim == NULL)
		lim = &sl_default_limits;
	cap = lim->max_value_raw < INT32_MAX ? lim->max_value_raw : INT32_MAX;
	s->map = sl_alloc_err(sizeof(strmap), err);
	if (s->map == NULL)
		return -1;
	memset(s->map, 0, sizeof(strmap));
	if (schem_unpack(file, len, lim, &s->nbt, &s->nbt_len, err) ||
		sl_nbt_parse(s->nbt, s->nbt_len, lim, &s->arena, &root, &used, err))
		goto done;
	if (root->type != SL_TAG_COMPOUND)
	{
		sl_fail(err, SL_ERR_FORMAT, "schematic root is a %s, not a compound", sl_schem_type_name(root));
		goto done;
	}
	sch = root;
	inner = sl_nbt_child(root, "Schematic");
	if (inner != NULL && inner->type == SL_TAG_COMPOUND)
		sch = inner;			/* version 3 nests its fields */
	if (!sl_schem_int_tag(sl_nbt_child(sch, "Version"), &version))
	{
		const sl_nbt *b = sl_nbt_child(sch, "Blocks");

		const sl_nbt *bd = sl_nbt_child(sch, "BlockData");

		if (bd != NULL && bd->type == SL_TAG_BYTE_ARRAY)
		{
			/* Gaia's .gaia files: the version 2 layout without Version */
			s->kind = SL_SCHEM_SPONGE;
			s->version = 2;
		}
		else if (b == NULL || b->type != SL_TAG_BYTE_ARRAY)
		{
			if (sl_nbt_child(sch, "size") && sl_nbt_child(sch, "palette"))
				sl_fail(err, SL_ERR_UNSUPPORTED, "a structure block file (size, palette, blocks), not a schematic");
			else
				sl_fail(err, SL_ERR_FORMAT, "not a schematic: no Version (Sponge), no BlockData (Gaia) and no Blocks byte array (MCEdit)");
			goto done;
		}
		else
			s->kind = SL_SCHEM_MCEDIT;
	}
	else
	{
		if (version < 1 || version > 3)
		{
			sl_fail(err, SL_ERR_UNSUPPORTED, "Sponge schematic version %lld is not supported (1, 2, 3 are)",
					(long long) version);
			goto done;
		}
		s->kind = SL_SCHEM_SPONGE;
		s->version = (int) version;
	}
	if (read_dim(sch, "Width", s->kind == SL_SCHEM_SPONGE, &s->width, err) ||
		read_dim(sch, "Height", s->kind == SL_SCHEM_SPONGE, &s->height, err) ||
		read_dim(sch, "Length", s->kind == SL_SCHEM_SPONGE, &s->length, err))
		goto done;
	s->volume = (uint64_t) s->width * s->height * s->length;
	if (s->volume > cap)
	{
		sl_fail(err, SL_ERR_LIMIT, "Width x Height x Length = %u x %u x %u = %llu blocks exceeds the cap of %llu blocks",
				s->width, s->height, s->length, (unsigned long long) s->volume, (unsigned long long) cap);
		goto done;
	}
	if (s->kind == SL_SCHEM_SPONGE ? read_sponge(s, sch, &scratch, err) : read_mcedit(s, sch, &scratch, err))
		goto done;
	rc = 0;
done:
	sl_buf_free(&scratch);
	return rc;
}

void
sl_schem_free(sl_schem *s)
{
	sl_free(s->pal_of_id);
	sl_free(s->marks);
	sl_free(s->pal_of_key);
	sl_free(s->nbt);
	if (s->map)
	{
		sl_schem_strmap_free(s->map);
		sl_free(s->map);
	}
	sl_arena_free(&s->arena);
	memset(s, 0, sizeof(*s));
}

int
sl_schem_run(const sl_schem *s, uint64_t i, uint32_t n, uint32_t *out, sl_err *err)
{
	if (i > s->volume || n > s->volume - i)
		return sl_fail(err, SL_ERR_INVALID, "schematic entries %llu..+%u out of range",
					   (unsigned long long) i, n);
	if (n == 0)
		return 0;
	if (s->empty)
	{
		for (uint32_t k = 0; k < n; k++)
			out[k] = s->air_index;
		return 0;
	}
	if (s->kind == SL_SCHEM_MCEDIT)
	{
		for (uint32_t k = 0; k < n; k++)
			out[k] = s->pal_of_key[mcedit_key(s, i + k)];
		return 0;
	}
	{
		size_t		pos = s->marks[i >> 4];
		uint32_t	v;

		for (uint32_t k = (uint32_t) (i & 15); k > 0; k--)
			if (sl_varint_get(s->varints, s->varints_len, &pos, &v))
				return sl_fail(err, SL_ERR_FORMAT, "schematic block data damaged");
		for (uint32_t k = 0; k < n; k++)
		{
			if (sl_varint_get(s->varints, s->varints_len, &pos, &v) || v >= s->nids ||
				s->pal_of_id[v] == NO_INDEX)
				return sl_fail(err, SL_ERR_FORMAT, "schematic block data damaged");
			out[k] = s->pal_of_id[v];
		}
	}
	return 0;
}
