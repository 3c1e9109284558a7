/*
 * sl_bscan.c - a chunk's blocks found without building its tree (see
 * sl_chunk_blocks_scan in sl_blocks.h).
 *
 * One pass over the NBT, without a tree: the root's entries are skipped
 * (sl_nbt_skip checks every length as it goes) but for DataVersion, Level
 * and the section list (root "sections", else Level's "Sections" or
 * "sections"), which are walked. Of each section only Y and the names of
 * its entries are read, and its bytes kept (1.18+: those of block_states,
 * the rest being biomes and light): sl_section_load builds their tree and
 * opens it as sl_chunk_blocks_open does when the reader reaches it. Building
 * trees is what costs: a 1.18 chunk has 24 sections, and a top-down map
 * reaches two or three below the air. Sections of the same block bytes as
 * the one loaded just above or below (air, mostly) share its opening.
 *
 * Whatever the pass does not expect (bytes that are not well formed or nest
 * too deep, a second section list or Level, McRegion, a section without Y,
 * Y twice, mixed layouts) is handed to sl_chunk_blocks_open, which gives
 * the result or the error it always gave.
 */
#include <string.h>

#include "sl_blocks.h"
#include "sl_value.h"

#define FALLBACK	1			/* let sl_chunk_blocks_open read the chunk */

/* The pass over one chunk. */
typedef struct scan
{
	const uint8_t *buf;
	size_t		len;
	int			max_depth;
	int			lists;			/* section lists met (more than one: fallback) */
	sl_layout	layout;
	int16_t		slot[256];		/* by Y + 128: index into sec, -1 none */
	sl_section *sec;			/* sections with blocks, in list order */
	int			n;
} scan;

/* An entry of a compound being walked: its head, and its value once skipped when int-like. */
typedef struct entry
{
	int			type;
	const char *name;
	uint16_t	len;
	int			is_int;
	int64_t		i;
} entry;

/* Read the head of the next entry at *pos: 1 an entry, 0 the compound's end, -1 malformed. */
static int
next_entry(const scan *s, size_t *pos, entry *e)
{
	e->type = sl_nbt_entry_head(s->buf, s->len, pos, &e->name, &e->len);
	return e->type < 0 ? -1 : e->type != SL_TAG_END;
}

/* Tell whether an entry's name is name. */
static int
is(const entry *e, const char *name)
{
	return strlen(name) == e->len && memcmp(e->name, name, e->len) == 0;
}

/* Skip an entry's payload at *pos (budget: containers it may open), reading it when int-like. */
static int
skip(const scan *s, size_t *pos, entry *e, int budget)
{
	const uint8_t *p = s->buf + *pos;
	int			t = e->type;

	if (!sl_nbt_skip(s->buf, s->len, pos, (uint8_t) t, budget))
		return 0;
	e->is_int = t >= SL_TAG_BYTE && t <= SL_TAG_LONG;
	e->i = t == SL_TAG_BYTE ? (int8_t) p[0] : t == SL_TAG_SHORT ? (int16_t) sl_get_u16be(p) :
		t == SL_TAG_INT ? (int32_t) sl_get_u32be(p) : t == SL_TAG_LONG ? (int64_t) sl_get_u64be(p) : 0;
	return 1;
}

/* Read one section, a compound payload at *pos inside `outer` containers; 0, FALLBACK. */
static int
scan_section(scan *s, size_t *pos, int outer)
{
	size_t		at = *pos,
				bs_at = 0,
				bs_end = 0;
	int			bs_type = 0;
	int			names = 0;
	int			y_int = 0;
	int64_t		y = 0;
	sl_layout	kind;
	sl_section *sec;
	entry		e;
	int			r;

	while ((r = next_entry(s, pos, &e)) > 0)
	{
		names |= sl_section_name_bit(e.name, e.len);
		if (is(&e, "block_states"))
		{
			bs_type = e.type;
			bs_at = *pos;
		}
		if (!skip(s, pos, &e, s->max_depth - outer))
			return FALLBACK;
		if (is(&e, "Y"))
		{
			y_int = e.is_int;
			y = e.i;
		}
		else if (is(&e, "block_states"))
			bs_end = *pos;
	}
	if (r < 0)
		return FALLBACK;
	kind = sl_layout_of_names(names);
	if (kind == SL_LAYOUT_NONE)
		return 0;				/* light or biomes only */
	if ((s->layout != SL_LAYOUT_NONE && s->layout != kind) || !y_int || y < -128 || y > 127 ||
		s->slot[y + 128] >= 0)
		return FALLBACK;
	if (*pos - at > UINT32_MAX)
		return FALLBACK;
	s->layout = kind;
	s->slot[y + 128] = (int16_t) s->n;
	sec = &s->sec[s->n++];
	memset(sec, 0, sizeof(sl_section));
	sec->y = (int) y;
	sec->pending = 1;
	sec->raw = s->buf + (kind == SL_LAYOUT_MODERN ? bs_at : at);
	sec->raw_len = (uint32_t) (kind == SL_LAYOUT_MODERN ? bs_end - bs_at : *pos - at);
	sec->raw_type = (uint8_t) (kind == SL_LAYOUT_MODERN ? bs_type : SL_TAG_COMPOUND);
	return 0;
}

/* Walk a section list, the payload of a list tag at *pos inside `outer` containers; 0, FALLBACK. */
static int
scan_list(scan *s, size_t *pos, int outer)
{
	const uint8_t *p = s->buf + *pos;
	int32_t		n;

	if (++s->lists > 1 || s->len - *pos < 5 || p[0] > SL_TAG_LONG_ARRAY ||
		s->max_depth < outer + 1)
		return FALLBACK;
	n = (int32_t) sl_get_u32be(p + 1);
	if (n < 0 || (n > 0 && (p[0] != SL_TAG_COMPOUND || s->max_depth < outer + 2)) ||
		(uint64_t) n > s->len - *pos - 5)
		return FALLBACK;
	*pos += 5;
	for (int32_t i = 0; i < n; i++)
	{
		if ((i & 4095) == 4095)
			sl_interrupt();
		if (scan_section(s, pos, outer + 2))
			return FALLBACK;
	}
	return 0;
}

/* Walk Level's entries (a compound payload at *pos inside the root); *blocks: it has Blocks. */
static int
scan_level(scan *s, size_t *pos, int *blocks)
{
	entry		e;
	int			r;

	if (s->max_depth < 2)
		return FALLBACK;
	while ((r = next_entry(s, pos, &e)) > 0)
	{
		if (is(&e, "Sections") || is(&e, "sections"))
		{
			if (e.type != SL_TAG_LIST || scan_list(s, pos, 2))
				return FALLBACK;
			continue;
		}
		*blocks |= is(&e, "Blocks");
		if (!skip(s, pos, &e, s->max_depth - 2))
			return FALLBACK;
	}
	return r < 0 ? FALLBACK : 0;
}

/* Walk the root compound; 0 or FALLBACK. */
static int
scan_root(scan *s, int32_t *data_version)
{
	size_t		pos;
	int			levels = 0;
	int			blocks = 0;
	int			dv_int = 0;
	int64_t		dv = 0;
	entry		e;
	int			r;

	if (s->len < 3 || s->buf[0] != SL_TAG_COMPOUND || s->len - 3 < sl_get_u16be(s->buf + 1) ||
		s->max_depth < 1)
		return FALLBACK;
	pos = 3 + (size_t) sl_get_u16be(s->buf + 1);
	while ((r = next_entry(s, &pos, &e)) > 0)
	{
		if (is(&e, "sections"))
		{
			if (e.type != SL_TAG_LIST || scan_list(s, &pos, 1))
				return FALLBACK;
		}
		else if (is(&e, "Level") && e.type == SL_TAG_COMPOUND)
		{
			if (++levels > 1 || scan_level(s, &pos, &blocks))
				return FALLBACK;
		}
		else if (!skip(s, &pos, &e, s->max_depth - 1))
			return FALLBACK;
		else if (is(&e, "Level") && ++levels > 1)
			return FALLBACK;
		else if (is(&e, "DataVersion"))
		{
			dv_int = e.is_int;
			dv = e.i;
		}
	}
	if (r < 0)
		return FALLBACK;
	if (s->lists == 0 && blocks)
		return FALLBACK;		/* McRegion */
	if (*data_version == SL_NO_DV && dv_int && dv > INT32_MIN && dv <= INT32_MAX)
		*data_version = (int32_t) dv;
	return 0;
}

/* Find a chunk's sections in one pass over its NBT, to be opened when reached. */
int
sl_chunk_blocks_scan(const uint8_t *nbt, size_t len, int32_t data_version, const sl_limits *lim,
					 sl_arena *arena, sl_chunk_blocks *out, sl_err *err)
{
	scan		s;
	int			rc;

	if (lim == NULL)
		lim = &sl_default_limits;
	memset(out, 0, sizeof(*out));
	memset(&s, 0, sizeof(s));
	s.buf = nbt;
	s.len = nbt ? len : 0;
	s.max_depth = lim->max_depth;
	memset(s.slot, 0xff, sizeof(s.slot));
	s.sec = sl_arena_alloc(arena, 256 * sizeof(sl_section), err);
	if (s.sec == NULL)
		return -1;
	out->data_version = data_version;
	rc = scan_root(&s, &out->data_version);
	if (rc == FALLBACK)
		return sl_chunk_blocks_open(nbt, len, data_version, SL_WANT_BLOCKS, lim, arena, out, err);
	out->arena = arena;
	out->lim = lim;
	out->tree_left = lim->max_chunk_raw > SIZE_MAX / 8 ? SIZE_MAX : lim->max_chunk_raw * 8;
	out->layout = s.lists ? s.layout : SL_LAYOUT_NONE;
	/* in ascending Y, as sl_chunk_blocks_open gives them */
	out->sections = sl_arena_alloc(arena, (size_t) (s.n ? s.n : 1) * sizeof(sl_section), err);
	if (out->sections == NULL)
		return -1;
	for (int y = 0; y < 256; y++)
		if (s.slot[y] >= 0)
			out->sections[out->nsections++] = s.sec[s.slot[y]];
	return 0;
}

/* Tell whether section j is open and was opened from the same bytes as s. */
static int
same_bytes(const sl_chunk_blocks *c, int j, const sl_section *s)
{
	const sl_section *o = &c->sections[j];

	return j >= 0 && j < c->nsections && !o->pending && o->raw != NULL &&
		o->raw_len == s->raw_len && o->raw_type == s->raw_type &&
		memcmp(o->raw, s->raw, s->raw_len) == 0;
}

/* Build the tree of a section's bytes and open it as sl_chunk_blocks_open does. */
static int
open_raw(sl_chunk_blocks *c, const sl_section *s, sl_section *sec, sl_err *err)
{
	sl_layout	layout = c->layout;
	sl_nbt	   *node;
	size_t		before = c->arena->used;
	size_t		used;
	int			use;

	if (sl_nbt_parse_payload(s->raw, s->raw_len, s->raw_type, c->tree_left, c->lim, c->arena,
							 &node, err))
		return -1;
	used = c->arena->used - before;
	c->tree_left -= used < c->tree_left ? used : c->tree_left;
	if (c->layout != SL_LAYOUT_MODERN)
		return sl_section_open(c, node, 0, SL_WANT_BLOCKS, &layout, sec, &use, err);
	memset(sec, 0, sizeof(*sec));
	sec->y = s->y;
	if (sl_section_open_modern(node, sec, err))
	{
		sl_err_prefix(err, "section Y=%d", s->y);
		return -1;
	}
	return 0;
}

/* Open section i of a scanned chunk if it is not open yet. */
int
sl_section_load(sl_chunk_blocks *c, int i, sl_err *err)
{
	sl_section *s = &c->sections[i];
	sl_section	sec;

	if (!s->pending)
		return 0;
	if (same_bytes(c, i + 1, s) || same_bytes(c, i - 1, s))
		sec = c->sections[same_bytes(c, i + 1, s) ? i + 1 : i - 1];
	else if (open_raw(c, s, &sec, err))
		return -1;
	sec.y = s->y;
	sec.raw = s->raw;
	sec.raw_len = s->raw_len;
	sec.raw_type = s->raw_type;
	sec.pending = 0;
	if (sl_section_check_cap(&sec, c->lim, err))
		return -1;
	*s = sec;
	return 0;
}
