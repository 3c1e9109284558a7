/*
 * sl_nbt.c - Java-edition NBT: checking, a tree form, writing and JSON.
 *
 * Every reader here is built on one iterative pull scanner (nbt_reader).
 * It yields one event per tag and one per closed container, keeps an
 * explicit stack of open compounds and lists sized once from the depth cap,
 * and checks every length against the buffer before it is used. Each tag
 * event consumes at least one byte (lists of End must be empty), so the
 * work done is bounded by the size of the input.
 */
#include "sl_nbt.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NBT_EV_DONE		0
#define NBT_EV_TAG		1
#define NBT_EV_CLOSE	2

/* Ask the interrupt hook every 64K events or array elements. */
#define NBT_TICK_MASK	0xFFFF

/* A tree may use this many bytes of arena per allowed raw chunk byte. */
#define NBT_TREE_FACTOR	8

static const char *const nbt_type_names[] = {
	"end", "byte", "short", "int", "long", "float", "double",
	"byte_array", "string", "list", "compound", "int_array", "long_array"
};

/* Fewest payload bytes one tag of each type can occupy. */
static const uint8_t nbt_min_size[] = {0, 1, 2, 4, 8, 4, 8, 4, 2, 5, 1, 4, 4};

/* Keys that would be mistaken for a type wrapper in JSON. */
static const char *const nbt_reserved_keys[] = {
	"byte", "short", "long", "float", "double", "byte_array", "int_array",
	"long_array", "list", "compound", "mutf8"
};

/* An open compound or list of the scanner. */
typedef struct nbt_frame
{
	uint8_t		type;			/* SL_TAG_COMPOUND or SL_TAG_LIST */
	uint8_t		elem;			/* list element type */
	uint8_t		flag;			/* free for the caller */
	uint32_t	count;			/* list: declared element count */
	uint32_t	left;			/* list: elements not read yet */
	size_t		seen;			/* entries read so far */
	size_t		mark;			/* free for the caller */
} nbt_frame;

/* The pull scanner and the tag it read last. */
typedef struct nbt_reader
{
	const uint8_t *buf;
	size_t		len;
	size_t		pos;
	int			max_depth;
	int			nframes;
	int			depth;			/* open containers */
	int			started;
	uint32_t	ticks;
	nbt_frame  *stack;
	/* the tag of the last NBT_EV_TAG */
	int			level;			/* containers open around it */
	size_t		off;			/* offset of its type byte (list: payload) */
	uint8_t		type;
	uint16_t	name_len;
	const uint8_t *name;
	int64_t		i;				/* byte, short, int, long */
	uint64_t	bits;			/* float (low 32 bits) or double */
	const uint8_t *data;		/* string bytes or array elements */
	uint32_t	count;			/* string length, array or list count */
	uint8_t		elem;			/* list element type */
} nbt_reader;

/* Return the name of a tag type, or NULL when out of range. */
const char *
sl_nbt_type_name(int type)
{
	if (type < SL_TAG_END || type > SL_TAG_LONG_ARRAY)
		return NULL;
	return nbt_type_names[type];
}

/* Prepare a scanner over buf; the frame stack is allocated once here. */
static int
nbt_reader_init(nbt_reader *r, const uint8_t *buf, size_t len,
				const sl_limits *lim, sl_err *err)
{
	size_t		nframes;

	if (lim == NULL)
		lim = &sl_default_limits;
	memset(r, 0, sizeof(*r));
	if (buf == NULL && len > 0)
		return sl_fail(err, SL_ERR_INVALID, "NBT: no data buffer");
	r->buf = buf;
	r->len = len;
	r->max_depth = lim->max_depth;
	/* every level consumes at least one byte before it opens */
	nframes = lim->max_depth > 0 ? (size_t) lim->max_depth : 1;
	if (nframes > len + 1)
		nframes = len + 1;
	r->nframes = (int) nframes;
	r->stack = sl_alloc_err(nframes * sizeof(nbt_frame), err);
	return r->stack ? 0 : -1;
}

/* Release the scanner's frame stack. */
static void
nbt_reader_free(nbt_reader *r)
{
	sl_free(r->stack);
	r->stack = NULL;
}

/* Fail unless n more bytes are available at the read position. */
static int
nbt_need(nbt_reader *r, size_t n, const char *what, sl_err *err)
{
	if (r->len - r->pos >= n)
		return 0;
	return sl_fail(err, SL_ERR_FORMAT,
				   "NBT: %s at offset %zu runs past end of data (%zu bytes)",
				   what, r->pos, r->len);
}

/* Fail unless one more container may be opened (depth cap, stack hook). */
static int
nbt_may_open(nbt_reader *r, uint8_t type, sl_err *err)
{
	if (r->depth >= r->max_depth || r->depth >= r->nframes)
		return sl_fail(err, SL_ERR_LIMIT,
					   "NBT: %s at offset %zu nests deeper than %d levels",
					   nbt_type_names[type], r->off, r->max_depth);
	if (sl_hooks.stack_too_deep())
		return sl_fail(err, SL_ERR_LIMIT,
					   "NBT: stack depth limit reached at offset %zu", r->off);
	return 0;
}

/* Open a compound or list whose nesting nbt_may_open allowed. */
static int
nbt_push(nbt_reader *r, uint8_t type, uint8_t elem, uint32_t count)
{
	nbt_frame  *f = &r->stack[r->depth++];

	f->type = type;
	f->elem = elem;
	f->flag = 0;
	f->count = count;
	f->left = count;
	f->seen = 0;
	f->mark = 0;
	return NBT_EV_TAG;
}

/* Read a u16-length name at the read position. */
static int
nbt_read_name(nbt_reader *r, sl_err *err)
{
	uint16_t	n;

	if (nbt_need(r, 2, "name length", err))
		return -1;
	n = sl_get_u16be(r->buf + r->pos);
	if (r->len - r->pos - 2 < n)
		return sl_fail(err, SL_ERR_FORMAT,
					   "NBT: name length %u at offset %zu runs past end of data (%zu bytes)",
					   (unsigned) n, r->pos, r->len);
	r->name_len = n;
	r->name = r->buf + r->pos + 2;
	r->pos += 2 + (size_t) n;
	return 0;
}

/* Read a fixed-size number payload. */
static int
nbt_read_number(nbt_reader *r, uint8_t type, sl_err *err)
{
	const uint8_t *p = r->buf + r->pos;

	if (r->len - r->pos < nbt_min_size[type])
	{
		char		what[32];

		snprintf(what, sizeof(what), "%s payload", nbt_type_names[type]);
		return nbt_need(r, nbt_min_size[type], what, err);
	}
	r->pos += nbt_min_size[type];
	switch (type)
	{
		case SL_TAG_BYTE:
			r->i = (int8_t) p[0];
			break;
		case SL_TAG_SHORT:
			r->i = (int16_t) sl_get_u16be(p);
			break;
		case SL_TAG_INT:
			r->i = (int32_t) sl_get_u32be(p);
			break;
		case SL_TAG_LONG:
			r->i = (int64_t) sl_get_u64be(p);
			break;
		case SL_TAG_FLOAT:
			r->bits = sl_get_u32be(p);
			break;
		default:
			r->bits = sl_get_u64be(p);
			break;
	}
	return NBT_EV_TAG;
}

/* Read an i32 count at the read position, rejecting negative ones. */
static int
nbt_read_count(nbt_reader *r, const char *what, int32_t *count, sl_err *err)
{
	if (nbt_need(r, 4, what, err))
		return -1;
	*count = (int32_t) sl_get_u32be(r->buf + r->pos);
	if (*count < 0)
		return sl_fail(err, SL_ERR_FORMAT, "NBT: negative %s %d at offset %zu",
					   what, (int) *count, r->pos);
	return 0;
}

/* Read a byte, int or long array; elements stay in the buffer. */
static int
nbt_read_array(nbt_reader *r, uint8_t type, sl_err *err)
{
	size_t		esize = type == SL_TAG_BYTE_ARRAY ? 1 : type == SL_TAG_INT_ARRAY ? 4 : 8;
	const char *what = type == SL_TAG_BYTE_ARRAY ? "byte_array count" :
		type == SL_TAG_INT_ARRAY ? "int_array count" : "long_array count";
	int32_t		n;

	if (nbt_read_count(r, what, &n, err))
		return -1;
	if ((uint64_t) n * esize > (uint64_t) (r->len - r->pos - 4))
		return sl_fail(err, SL_ERR_FORMAT,
					   "NBT: %s %d at offset %zu runs past end of data (%zu bytes)",
					   what, (int) n, r->pos, r->len);
	r->count = (uint32_t) n;
	r->data = r->buf + r->pos + 4;
	r->pos += 4 + (size_t) n * esize;
	return NBT_EV_TAG;
}

/* Read a u16-length string; its bytes stay in the buffer. */
static int
nbt_read_string(nbt_reader *r, sl_err *err)
{
	uint16_t	n;

	if (nbt_need(r, 2, "string length", err))
		return -1;
	n = sl_get_u16be(r->buf + r->pos);
	if (r->len - r->pos - 2 < n)
		return sl_fail(err, SL_ERR_FORMAT,
					   "NBT: string length %u at offset %zu runs past end of data (%zu bytes)",
					   (unsigned) n, r->pos, r->len);
	r->count = n;
	r->data = r->buf + r->pos + 2;
	r->pos += 2 + (size_t) n;
	return NBT_EV_TAG;
}

/* Read a list header and open the list. */
static int
nbt_read_list(nbt_reader *r, sl_err *err)
{
	size_t		at = r->pos;
	uint8_t		elem;
	int32_t		n;

	if (nbt_may_open(r, SL_TAG_LIST, err) ||
		nbt_need(r, 1, "list element type", err))
		return -1;
	elem = r->buf[r->pos++];
	if (elem > SL_TAG_LONG_ARRAY)
		return sl_fail(err, SL_ERR_FORMAT,
					   "NBT: unknown list element type %u at offset %zu",
					   (unsigned) elem, at);
	if (nbt_read_count(r, "list count", &n, err))
		return -1;
	r->pos += 4;
	if (n > 0 && elem == SL_TAG_END)
		return sl_fail(err, SL_ERR_FORMAT,
					   "NBT: list at offset %zu has %d elements of type end",
					   at, (int) n);
	if ((uint64_t) n * nbt_min_size[elem] > (uint64_t) (r->len - r->pos))
		return sl_fail(err, SL_ERR_FORMAT,
					   "NBT: list of %d %s at offset %zu runs past end of data (%zu bytes)",
					   (int) n, nbt_type_names[elem], at, r->len);
	r->elem = elem;
	r->count = (uint32_t) n;
	return nbt_push(r, SL_TAG_LIST, elem, (uint32_t) n);
}

/* Read the payload of a tag of the given type. */
static int
nbt_read_payload(nbt_reader *r, uint8_t type, sl_err *err)
{
	r->type = type;
	switch (type)
	{
		case SL_TAG_BYTE_ARRAY:
		case SL_TAG_INT_ARRAY:
		case SL_TAG_LONG_ARRAY:
			return nbt_read_array(r, type, err);
		case SL_TAG_STRING:
			return nbt_read_string(r, err);
		case SL_TAG_LIST:
			return nbt_read_list(r, err);
		case SL_TAG_COMPOUND:
			if (nbt_may_open(r, SL_TAG_COMPOUND, err))
				return -1;
			return nbt_push(r, SL_TAG_COMPOUND, SL_TAG_END, 0);
		default:
			return nbt_read_number(r, type, err);
	}
}

/* Read the named root tag. */
static int
nbt_read_root(nbt_reader *r, sl_err *err)
{
	uint8_t		type;

	r->started = 1;
	r->level = 0;
	r->off = 0;
	if (r->len == 0)
		return sl_fail(err, SL_ERR_FORMAT, "NBT: empty data");
	type = r->buf[0];
	if (type == SL_TAG_END)
		return sl_fail(err, SL_ERR_FORMAT,
					   "NBT: root tag at offset 0 is end, not a named tag");
	if (type > SL_TAG_LONG_ARRAY)
		return sl_fail(err, SL_ERR_FORMAT,
					   "NBT: unknown tag type %u at offset 0", (unsigned) type);
	r->pos = 1;
	if (nbt_read_name(r, err))
		return -1;
	return nbt_read_payload(r, type, err);
}

/* Read the next element of the innermost open list. */
static int
nbt_next_in_list(nbt_reader *r, nbt_frame *f, sl_err *err)
{
	if (f->left == 0)
	{
		r->depth--;
		return NBT_EV_CLOSE;
	}
	f->left--;
	f->seen++;
	r->off = r->pos;
	return nbt_read_payload(r, f->elem, err);
}

/* Read the next entry of the innermost open compound. */
static int
nbt_next_in_compound(nbt_reader *r, nbt_frame *f, sl_err *err)
{
	uint8_t		type;

	r->off = r->pos;
	if (nbt_need(r, 1, "tag type", err))
		return -1;
	type = r->buf[r->pos++];
	if (type == SL_TAG_END)
	{
		r->depth--;
		return NBT_EV_CLOSE;
	}
	if (type > SL_TAG_LONG_ARRAY)
		return sl_fail(err, SL_ERR_FORMAT, "NBT: unknown tag type %u at offset %zu",
					   (unsigned) type, r->off);
	f->seen++;
	if (nbt_read_name(r, err))
		return -1;
	return nbt_read_payload(r, type, err);
}

/*
 * Advance to the next event: NBT_EV_TAG (a tag was read; containers are
 * now open), NBT_EV_CLOSE (a container ended; its frame is still at
 * stack[depth]), NBT_EV_DONE after the root, or -1 on error.
 */
static int
nbt_next(nbt_reader *r, sl_err *err)
{
	nbt_frame  *f;

	if ((++r->ticks & NBT_TICK_MASK) == 0)
		sl_interrupt();
	if (r->depth == 0)
		return r->started ? NBT_EV_DONE : nbt_read_root(r, err);
	f = &r->stack[r->depth - 1];
	r->level = r->depth;
	r->name = NULL;
	r->name_len = 0;
	if (f->type == SL_TAG_LIST)
		return nbt_next_in_list(r, f, err);
	return nbt_next_in_compound(r, f, err);
}

/* Open containers the fast check tracks; deeper documents take the scanner. */
#define NBT_FAST_DEPTH	64

/* An open container of the fast check. */
typedef struct nbt_fast_frame
{
	uint8_t		elem;			/* list element type; SL_TAG_END: a compound */
	uint32_t	left;			/* list elements not read yet */
} nbt_fast_frame;

/*
 * Skip one payload of type t at *pos, or open it on the stack; false when
 * the bytes are not well formed (or the document is too deep to follow).
 */
static inline int
nbt_fast_payload(const uint8_t *buf, size_t len, size_t *pos, uint8_t t,
				 nbt_fast_frame *stack, int *depth, int max_depth)
{
	size_t		p = *pos;
	size_t		rest = len - p;
	int64_t		n;
	size_t		esize;

	switch (t)
	{
		case SL_TAG_BYTE_ARRAY:
		case SL_TAG_INT_ARRAY:
		case SL_TAG_LONG_ARRAY:
			if (rest < 4)
				return 0;
			n = (int32_t) sl_get_u32be(buf + p);
			esize = t == SL_TAG_BYTE_ARRAY ? 1 : t == SL_TAG_INT_ARRAY ? 4 : 8;
			if (n < 0 || (uint64_t) n * esize > rest - 4)
				return 0;
			*pos = p + 4 + (size_t) n * esize;
			return 1;
		case SL_TAG_STRING:
			if (rest < 2 || rest - 2 < sl_get_u16be(buf + p))
				return 0;
			*pos = p + 2 + sl_get_u16be(buf + p);
			return 1;
		case SL_TAG_LIST:
			if (rest < 5 || buf[p] > SL_TAG_LONG_ARRAY)
				return 0;
			n = (int32_t) sl_get_u32be(buf + p + 1);
			if (n < 0 || (n > 0 && buf[p] == SL_TAG_END) ||
				(uint64_t) n * nbt_min_size[buf[p]] > rest - 5)
				return 0;
			*pos = p + 5;
			if (*depth >= max_depth || *depth >= NBT_FAST_DEPTH)
				return 0;
			if (buf[p] >= SL_TAG_BYTE && buf[p] <= SL_TAG_DOUBLE)
			{
				/* numbers have a fixed size: the whole list at once */
				*pos += (size_t) n * nbt_min_size[buf[p]];
				return 1;
			}
			if (n > 0)
			{
				stack[*depth].elem = buf[p];
				stack[*depth].left = (uint32_t) n;
				(*depth)++;
			}
			return 1;
		case SL_TAG_COMPOUND:
			if (*depth >= max_depth || *depth >= NBT_FAST_DEPTH)
				return 0;
			stack[*depth].elem = SL_TAG_END;
			stack[(*depth)++].left = 0;
			return 1;
		default:
			if (rest < nbt_min_size[t])
				return 0;
			*pos = p + nbt_min_size[t];
			return 1;
	}
}

/*
 * Step to the next payload in the open containers, closing those that end:
 * its type in *t and, for a compound's entry, where its tag starts in *off
 * (its name is skipped; SIZE_MAX for a list element). 1: a payload to read
 * at *pos; 0: every container is closed; -1: the bytes are not well formed.
 */
static inline int
nbt_fast_next(const uint8_t *buf, size_t len, size_t *pos, nbt_fast_frame *stack, int *depth,
			  uint32_t *ticks, uint8_t *t, size_t *off)
{
	while (*depth > 0)
	{
		nbt_fast_frame *f = &stack[*depth - 1];
		size_t		p = *pos;

		if ((++*ticks & NBT_TICK_MASK) == 0)
			sl_interrupt();
		if (f->elem != SL_TAG_END)
		{
			if (f->left == 0)
			{
				(*depth)--;
				continue;
			}
			f->left--;
			*t = f->elem;
			*off = SIZE_MAX;
			return 1;
		}
		if (p >= len || buf[p] > SL_TAG_LONG_ARRAY)
			return -1;
		*off = p;
		*t = buf[p++];
		if (*t == SL_TAG_END)
		{
			*pos = p;
			(*depth)--;
			continue;
		}
		if (len - p < 2 || len - p - 2 < sl_get_u16be(buf + p))
			return -1;
		*pos = p + 2 + (size_t) sl_get_u16be(buf + p);
		return 1;
	}
	return 0;
}

/*
 * Skip the payload of type t at *pos with everything in it, in one tight
 * loop: true when it is well formed (*pos moved past it), false when it is
 * not or when it nests deeper than max_depth or the fast path follows.
 * Accepts exactly what the scanner accepts.
 */
static int
nbt_fast_skip(const uint8_t *buf, size_t len, size_t *at, uint8_t t, int max_depth)
{
	nbt_fast_frame stack[NBT_FAST_DEPTH];
	int			depth = 0;
	size_t		pos = *at,
				off;
	uint32_t	ticks = 0;
	int			rc;

	if (!nbt_fast_payload(buf, len, &pos, t, stack, &depth, max_depth))
		return 0;
	while ((rc = nbt_fast_next(buf, len, &pos, stack, &depth, &ticks, &t, &off)) > 0)
		if (!nbt_fast_payload(buf, len, &pos, t, stack, &depth, max_depth))
			return 0;
	if (rc < 0)
		return 0;
	*at = pos;
	return 1;
}

/*
 * Check a document without events (nbt_fast_skip of the root): true when
 * it is well formed (*consumed set), false when it is not or when it nests
 * deeper than the fast path follows.
 */
static int
nbt_fast_check(const uint8_t *buf, size_t len, int any_root, int max_depth,
			   size_t *consumed)
{
	size_t		pos;

	if (buf == NULL || len < 3 || buf[0] == SL_TAG_END || buf[0] > SL_TAG_LONG_ARRAY ||
		(!any_root && buf[0] != SL_TAG_COMPOUND) || sl_hooks.stack_too_deep())
		return 0;
	if (len - 3 < sl_get_u16be(buf + 1))
		return 0;
	pos = 3 + (size_t) sl_get_u16be(buf + 1);
	if (!nbt_fast_skip(buf, len, &pos, buf[0], max_depth))
		return 0;
	*consumed = pos;
	return 1;
}

/* Skip one payload of type t at *pos, checked; false when malformed or too deep. */
int
sl_nbt_skip(const uint8_t *buf, size_t len, size_t *pos, uint8_t type, int max_depth)
{
	if (buf == NULL || *pos > len || type == SL_TAG_END || type > SL_TAG_LONG_ARRAY)
		return 0;
	return nbt_fast_skip(buf, len, pos, type, max_depth);
}

/* Read the type and name of the next entry of a compound at *pos; -1 when malformed. */
int
sl_nbt_entry_head(const uint8_t *buf, size_t len, size_t *pos, const char **name,
				  uint16_t *name_len)
{
	size_t		p = *pos;
	uint8_t		t;

	if (buf == NULL || p >= len || buf[p] > SL_TAG_LONG_ARRAY)
		return -1;
	t = buf[p++];
	*name = NULL;
	*name_len = 0;
	if (t != SL_TAG_END)
	{
		if (len - p < 2 || len - p - 2 < sl_get_u16be(buf + p))
			return -1;
		*name_len = sl_get_u16be(buf + p);
		*name = (const char *) buf + p + 2;
		p += 2 + (size_t) *name_len;
	}
	*pos = p;
	return t;
}

/*
 * Check one well-formed root tag and report its size: the fast check
 * first, and the scanner when that says no, for the error and its offset.
 */
int
sl_nbt_check(const uint8_t *buf, size_t len, int any_root,
			 const sl_limits *lim, size_t *consumed, sl_err *err)
{
	nbt_reader	r;
	int			ev;
	size_t		used;

	if (nbt_fast_check(buf, len, any_root, (lim ? lim : &sl_default_limits)->max_depth, &used))
	{
		if (consumed)
			*consumed = used;
		return 0;
	}
	if (nbt_reader_init(&r, buf, len, lim, err))
		return -1;
	ev = nbt_next(&r, err);
	if (ev > 0 && !any_root && r.type != SL_TAG_COMPOUND)
		ev = sl_fail(err, SL_ERR_FORMAT,
					 "NBT: root tag at offset 0 is a %s, not a compound",
					 nbt_type_names[r.type]);
	while (ev > 0)
		ev = nbt_next(&r, err);
	nbt_reader_free(&r);
	if (ev < 0)
		return -1;
	if (consumed)
		*consumed = r.pos;
	return 0;
}

/* ---- tree ---- */

/* State of sl_nbt_parse: the arena and the children of open containers. */
typedef struct nbt_builder
{
	sl_arena   *arena;
	size_t		base;			/* arena->used when parsing began */
	size_t		cap;			/* most arena bytes the tree may take */
	sl_buf		pending;		/* sl_nbt pointers not yet given to a parent */
} nbt_builder;

/* Allocate from the arena within the tree's memory cap. */
static void *
nbt_build_alloc(nbt_builder *b, size_t size, sl_err *err)
{
	void	   *p = sl_arena_alloc(b->arena, size, err);

	if (p != NULL && b->arena->used - b->base > b->cap)
	{
		sl_fail(err, SL_ERR_LIMIT,
				"NBT: tree needs more than %zu bytes of memory", b->cap);
		return NULL;
	}
	return p;
}

/* Count the pointers in the pending list. */
static size_t
nbt_pending_count(const nbt_builder *b)
{
	return b->pending.len / sizeof(sl_nbt *);
}

/* Return the pointer at index i of the pending list. */
static sl_nbt *
nbt_pending_at(const nbt_builder *b, size_t i)
{
	sl_nbt	   *node;

	memcpy(&node, b->pending.data + i * sizeof(sl_nbt *), sizeof(node));
	return node;
}

/* Copy the scanner's current tag into a new node. */
static void
nbt_fill_node(sl_nbt *node, const nbt_reader *r)
{
	uint32_t	fbits;

	memset(node, 0, sizeof(*node));
	node->type = r->type;
	node->name_len = r->name_len;
	node->name = (const char *) r->name;
	switch (r->type)
	{
		case SL_TAG_FLOAT:
			fbits = (uint32_t) r->bits;
			memcpy(&node->v.f, &fbits, sizeof(float));
			break;
		case SL_TAG_DOUBLE:
			memcpy(&node->v.d, &r->bits, sizeof(double));
			break;
		case SL_TAG_BYTE_ARRAY:
		case SL_TAG_INT_ARRAY:
		case SL_TAG_LONG_ARRAY:
			node->v.arr.data = r->data;
			node->v.arr.count = r->count;
			break;
		case SL_TAG_STRING:
			node->v.str.s = (const char *) r->data;
			node->v.str.len = (uint16_t) r->count;
			break;
		case SL_TAG_LIST:
			node->v.list.elem_type = r->elem;
			break;
		case SL_TAG_COMPOUND:
			break;
		default:
			node->v.i = r->i;
			break;
	}
}

/* Fail early when a list's items alone would break the tree's memory cap. */
static int
nbt_build_fits(const nbt_builder *b, const nbt_reader *r, sl_err *err)
{
	uint64_t	per_item = ((sizeof(sl_nbt) + 15) & ~(size_t) 15) + sizeof(sl_nbt *);
	uint64_t	used = b->arena->used - b->base;

	if (r->type != SL_TAG_LIST ||
		(uint64_t) r->count * per_item <= (uint64_t) (b->cap - (used < b->cap ? used : b->cap)))
		return 0;
	return sl_fail(err, SL_ERR_LIMIT,
				   "NBT: list of %u items at offset %zu needs more than %zu bytes of memory",
				   (unsigned) r->count, r->off, b->cap);
}

/* Make a node for the tag just read and queue it for its parent. */
static int
nbt_build_tag(nbt_builder *b, nbt_reader *r, sl_err *err)
{
	sl_nbt	   *node;

	if (nbt_build_fits(b, r, err))
		return -1;
	node = nbt_build_alloc(b, sizeof(sl_nbt), err);
	if (node == NULL)
		return -1;
	nbt_fill_node(node, r);
	if (sl_buf_put(&b->pending, &node, sizeof(node), err))
		return -1;
	if (r->type == SL_TAG_LIST || r->type == SL_TAG_COMPOUND)
		r->stack[r->depth - 1].mark = nbt_pending_count(b);
	return 0;
}

/* Hand the queued children of the container just closed to its node. */
static int
nbt_build_close(nbt_builder *b, nbt_reader *r, sl_err *err)
{
	nbt_frame  *f = &r->stack[r->depth];
	sl_nbt	   *node = nbt_pending_at(b, f->mark - 1);
	size_t		n = nbt_pending_count(b) - f->mark;
	sl_nbt	  **items = NULL;

	if (n > UINT32_MAX)
		return sl_fail(err, SL_ERR_LIMIT, "NBT: compound has more than %u entries",
					   (unsigned) UINT32_MAX);
	if (n > 0)
	{
		items = nbt_build_alloc(b, n * sizeof(sl_nbt *), err);
		if (items == NULL)
			return -1;
		memcpy(items, b->pending.data + f->mark * sizeof(sl_nbt *),
			   n * sizeof(sl_nbt *));
	}
	if (node->type == SL_TAG_LIST)
	{
		node->v.list.count = (uint32_t) n;
		node->v.list.items = items;
	}
	else
	{
		node->v.comp.count = (uint32_t) n;
		node->v.comp.items = items;
	}
	b->pending.len = f->mark * sizeof(sl_nbt *);
	return 0;
}

/* Build the tree of every event from the first one (ev) on; the scanner's last event. */
static int
nbt_build_all(nbt_builder *b, nbt_reader *r, int ev, sl_err *err)
{
	while (ev > 0)
	{
		if (ev == NBT_EV_TAG ? nbt_build_tag(b, r, err) : nbt_build_close(b, r, err))
			return -1;
		ev = nbt_next(r, err);
	}
	return ev;
}

/*
 * Build the tree of the tag the scanner is about to read (type: an unnamed
 * payload of that type; SL_TAG_END: the named root) within cap bytes of
 * arena. On failure the arena may hold part of a tree; free it as usual.
 */
static int
nbt_build(const uint8_t *buf, size_t len, uint8_t type, size_t cap, const sl_limits *lim,
		  sl_arena *arena, sl_nbt **root, size_t *consumed, sl_err *err)
{
	nbt_reader	r;
	nbt_builder b;
	int			ev;

	if (arena == NULL || root == NULL)
		return sl_fail(err, SL_ERR_INVALID, "NBT: no arena or result pointer");
	memset(&b, 0, sizeof(b));
	b.arena = arena;
	b.base = arena->used;
	b.cap = cap;
	if (nbt_reader_init(&r, buf, len, lim, err))
		return -1;
	if (type == SL_TAG_END)
		ev = nbt_next(&r, err);
	else
	{
		r.started = 1;
		ev = nbt_read_payload(&r, type, err);
	}
	ev = nbt_build_all(&b, &r, ev, err);
	nbt_reader_free(&r);
	if (ev == 0)
	{
		*root = nbt_pending_at(&b, 0);
		if (consumed)
			*consumed = r.pos;
	}
	sl_buf_free(&b.pending);
	return ev < 0 ? -1 : 0;
}

/* Parse the root tag (of any type but End) into a tree in arena. */
int
sl_nbt_parse(const uint8_t *buf, size_t len, const sl_limits *lim,
			 sl_arena *arena, sl_nbt **root, size_t *consumed, sl_err *err)
{
	if (lim == NULL)
		lim = &sl_default_limits;
	return nbt_build(buf, len, SL_TAG_END, lim->max_chunk_raw > SIZE_MAX / NBT_TREE_FACTOR ?
					 SIZE_MAX : lim->max_chunk_raw * NBT_TREE_FACTOR,
					 lim, arena, root, consumed, err);
}

/* Parse one unnamed payload of a type into a tree within max_tree bytes of arena. */
int
sl_nbt_parse_payload(const uint8_t *buf, size_t len, uint8_t type, size_t max_tree,
					 const sl_limits *lim, sl_arena *arena, sl_nbt **node, sl_err *err)
{
	if (type == SL_TAG_END || type > SL_TAG_LONG_ARRAY)
		return sl_fail(err, SL_ERR_INVALID, "NBT: no payload of type %u", (unsigned) type);
	if (len == 0)
		return sl_fail(err, SL_ERR_FORMAT, "NBT: empty data");
	return nbt_build(buf, len, type, max_tree, lim ? lim : &sl_default_limits, arena, node,
					 NULL, err);
}

/* Find a compound's child by name; the last of duplicates wins, as in Minecraft. */
const sl_nbt *
sl_nbt_child(const sl_nbt *compound, const char *name)
{
	const sl_nbt *found = NULL;
	size_t		n;

	if (compound == NULL || compound->type != SL_TAG_COMPOUND || name == NULL)
		return NULL;
	n = strlen(name);
	for (uint32_t i = 0; i < compound->v.comp.count; i++)
	{
		const sl_nbt *c = compound->v.comp.items[i];

		if (c != NULL && c->name_len == n && (n == 0 || memcmp(c->name, name, n) == 0))
			found = c;
	}
	return found;
}

/* ---- writing ---- */

/* An open container of the writer. */
typedef struct nbt_wframe
{
	const sl_nbt *node;
	uint32_t	next;			/* index of the next child to write */
} nbt_wframe;

/* The writer's stack of open containers and its output. */
typedef struct nbt_writer
{
	nbt_wframe *frames;
	size_t		depth;
	size_t		cap;
	sl_buf	   *out;
} nbt_writer;

/* Count the children of a container node. */
static uint32_t
nbt_child_count(const sl_nbt *node)
{
	return node->type == SL_TAG_LIST ? node->v.list.count : node->v.comp.count;
}

/* Return child i of a container node. */
static const sl_nbt *
nbt_child_at(const sl_nbt *node, uint32_t i)
{
	return node->type == SL_TAG_LIST ? node->v.list.items[i] : node->v.comp.items[i];
}

/* Open a container in the writer, growing its stack as needed. */
static int
nbt_writer_push(nbt_writer *w, const sl_nbt *node, sl_err *err)
{
	if (w->depth == w->cap &&
		sl_grow((void **) &w->frames, &w->cap, sizeof(nbt_wframe), 64, "NBT writer levels", err))
		return -1;
	w->frames[w->depth].node = node;
	w->frames[w->depth].next = 0;
	w->depth++;
	return 0;
}

/* Write an array payload: i32 count and raw elements. */
static int
nbt_write_array(const sl_nbt *node, sl_buf *out, sl_err *err)
{
	size_t		esize = node->type == SL_TAG_BYTE_ARRAY ? 1 :
		node->type == SL_TAG_INT_ARRAY ? 4 : 8;

	if (node->v.arr.count > INT32_MAX || (node->v.arr.count > 0 && node->v.arr.data == NULL))
		return sl_fail(err, SL_ERR_INVALID, "NBT: bad %s in tree",
					   nbt_type_names[node->type]);
	if (sl_buf_put_u32be(out, node->v.arr.count, err))
		return -1;
	return sl_buf_put(out, node->v.arr.data, (size_t) node->v.arr.count * esize, err);
}

/* Write a list header after checking the list node. */
static int
nbt_write_list_head(const sl_nbt *node, sl_buf *out, sl_err *err)
{
	uint8_t		elem = node->v.list.elem_type;
	uint32_t	n = node->v.list.count;

	if (elem > SL_TAG_LONG_ARRAY || n > INT32_MAX ||
		(n > 0 && (elem == SL_TAG_END || node->v.list.items == NULL)))
		return sl_fail(err, SL_ERR_INVALID,
					   "NBT: bad list in tree (element type %u, count %u)",
					   (unsigned) elem, (unsigned) n);
	if (sl_buf_put_u8(out, elem, err))
		return -1;
	return sl_buf_put_u32be(out, n, err);
}

/* Write the payload of a node, opening containers in the writer. */
static int
nbt_write_begin(nbt_writer *w, const sl_nbt *node, sl_err *err)
{
	sl_buf	   *out = w->out;
	uint32_t	fbits;
	uint64_t	dbits;

	switch (node->type)
	{
		case SL_TAG_BYTE:
			return sl_buf_put_u8(out, (uint8_t) node->v.i, err);
		case SL_TAG_SHORT:
			return sl_buf_put_u16be(out, (uint16_t) node->v.i, err);
		case SL_TAG_INT:
			return sl_buf_put_u32be(out, (uint32_t) node->v.i, err);
		case SL_TAG_LONG:
			return sl_buf_put_u64be(out, (uint64_t) node->v.i, err);
		case SL_TAG_FLOAT:
			memcpy(&fbits, &node->v.f, sizeof(fbits));
			return sl_buf_put_u32be(out, fbits, err);
		case SL_TAG_DOUBLE:
			memcpy(&dbits, &node->v.d, sizeof(dbits));
			return sl_buf_put_u64be(out, dbits, err);
		case SL_TAG_BYTE_ARRAY:
		case SL_TAG_INT_ARRAY:
		case SL_TAG_LONG_ARRAY:
			return nbt_write_array(node, out, err);
		case SL_TAG_STRING:
			if (node->v.str.len > 0 && node->v.str.s == NULL)
				return sl_fail(err, SL_ERR_INVALID, "NBT: string without data in tree");
			if (sl_buf_put_u16be(out, node->v.str.len, err))
				return -1;
			return sl_buf_put(out, node->v.str.s, node->v.str.len, err);
		case SL_TAG_LIST:
			if (nbt_write_list_head(node, out, err))
				return -1;
			return nbt_writer_push(w, node, err);
		case SL_TAG_COMPOUND:
			if (node->v.comp.count > 0 && node->v.comp.items == NULL)
				return sl_fail(err, SL_ERR_INVALID, "NBT: compound without items in tree");
			return nbt_writer_push(w, node, err);
		default:
			return sl_fail(err, SL_ERR_INVALID, "NBT: bad tag type %u in tree",
						   (unsigned) node->type);
	}
}

/* Write a node's type byte and name. */
static int
nbt_write_named(const sl_nbt *node, sl_buf *out, sl_err *err)
{
	if (node->type == SL_TAG_END || node->type > SL_TAG_LONG_ARRAY)
		return sl_fail(err, SL_ERR_INVALID, "NBT: bad tag type %u in tree",
					   (unsigned) node->type);
	if (node->name_len > 0 && node->name == NULL)
		return sl_fail(err, SL_ERR_INVALID, "NBT: tag name without data in tree");
	if (sl_buf_put_u8(out, node->type, err) ||
		sl_buf_put_u16be(out, node->name_len, err))
		return -1;
	return sl_buf_put(out, node->name, node->name_len, err);
}

/* Write the next child of the top container, or close it. */
static int
nbt_write_step(nbt_writer *w, sl_err *err)
{
	nbt_wframe *top = &w->frames[w->depth - 1];
	const sl_nbt *parent = top->node;
	const sl_nbt *child;

	if (top->next >= nbt_child_count(parent))
	{
		w->depth--;
		if (parent->type == SL_TAG_COMPOUND)
			return sl_buf_put_u8(w->out, SL_TAG_END, err);
		return 0;
	}
	child = nbt_child_at(parent, top->next++);
	if (child == NULL)
		return sl_fail(err, SL_ERR_INVALID, "NBT: missing child in tree");
	if (parent->type == SL_TAG_LIST)
	{
		if (child->type != parent->v.list.elem_type)
			return sl_fail(err, SL_ERR_INVALID,
						   "NBT: %s item in a list of %s in tree",
						   sl_nbt_type_name(child->type) ? sl_nbt_type_name(child->type) : "bad",
						   nbt_type_names[parent->v.list.elem_type]);
	}
	else if (nbt_write_named(child, w->out, err))
		return -1;
	return nbt_write_begin(w, child, err);
}

/* Serialize a tree back to NBT bytes; out is unchanged on failure. */
int
sl_nbt_write(const sl_nbt *root, sl_buf *out, sl_err *err)
{
	nbt_writer	w;
	size_t		base;
	uint32_t	ticks = 0;
	int			rc;

	if (root == NULL || out == NULL)
		return sl_fail(err, SL_ERR_INVALID, "NBT: no tree to write or no buffer");
	base = out->len;
	memset(&w, 0, sizeof(w));
	w.out = out;
	rc = nbt_write_named(root, out, err);
	if (rc == 0)
		rc = nbt_write_begin(&w, root, err);
	while (rc == 0 && w.depth > 0)
	{
		if ((++ticks & NBT_TICK_MASK) == 0)
			sl_interrupt();
		rc = nbt_write_step(&w, err);
	}
	sl_free(w.frames);
	if (rc != 0)
		out->len = base;
	return rc;
}

/* ---- path lookup ---- */

/* Tell whether a type is one of byte, short, int, long. */
static int
nbt_is_int(uint8_t type)
{
	return type >= SL_TAG_BYTE && type <= SL_TAG_LONG;
}

/* Tell whether the tag just read carries this name. */
static int
nbt_name_is(const nbt_reader *r, const char *name)
{
	size_t		n = strlen(name);

	return r->name_len == n && (n == 0 || memcmp(r->name, name, n) == 0);
}

/* Record the tag at buf[off] (type t, name of name_len bytes) as hit h. */
static void
fast_hit(const uint8_t *buf, size_t off, uint8_t t, size_t name_len, sl_nbt_hit *h)
{
	const uint8_t *p;

	h->type = t;
	h->at = off + 3 + name_len;
	p = buf + h->at;
	h->i = t == SL_TAG_BYTE ? (int8_t) p[0] : t == SL_TAG_SHORT ? (int16_t) sl_get_u16be(p) :
		t == SL_TAG_INT ? (int32_t) sl_get_u32be(p) : t == SL_TAG_LONG ? (int64_t) sl_get_u64be(p) : 0;
	h->count = t == SL_TAG_STRING ? sl_get_u16be(p) :
		t == SL_TAG_LIST ? sl_get_u32be(p + 1) :
		(t == SL_TAG_BYTE_ARRAY || t == SL_TAG_INT_ARRAY || t == SL_TAG_LONG_ARRAY) ? sl_get_u32be(p) : 0;
}

/*
 * The lookups of sl_nbt_find_tags in the fast check's loop: each open
 * compound carries the hits whose path it is on (a bit each), and only their
 * names are compared; the rest is skipped as nbt_fast_check skips it. False
 * when the document is not well formed or nests deeper than the fast path
 * follows (the scanner then says why).
 */
static int
nbt_fast_find(const uint8_t *buf, size_t len, sl_nbt_hit *hits, int n, int max_depth)
{
	nbt_fast_frame stack[NBT_FAST_DEPTH];
	uint32_t	on[NBT_FAST_DEPTH];	/* hits whose path the container at each depth is on */
	int			depth = 0;
	size_t		pos,
				off;
	uint32_t	ticks = 0,
				all = 0;
	uint8_t		t;
	int			rc;

	if (buf == NULL || len < 3 || buf[0] != SL_TAG_COMPOUND || sl_hooks.stack_too_deep() ||
		len - 3 < sl_get_u16be(buf + 1))
		return 0;
	for (int h = 0; h < n; h++)
	{
		hits[h].type = SL_TAG_END;
		if (hits[h].npath == 0)
			fast_hit(buf, 0, buf[0], sl_get_u16be(buf + 1), &hits[h]);
		else
			all |= UINT32_C(1) << h;
	}
	pos = 3 + (size_t) sl_get_u16be(buf + 1);
	if (!nbt_fast_payload(buf, len, &pos, buf[0], stack, &depth, max_depth))
		return 0;
	on[0] = all;
	while ((rc = nbt_fast_next(buf, len, &pos, stack, &depth, &ticks, &t, &off)) > 0)
	{
		uint32_t	next = 0;
		int			level = depth;	/* the entry's container */

		for (int h = 0; off != SIZE_MAX && on[level - 1] && h < n; h++)
		{
			const char *want;
			size_t		name_len = sl_get_u16be(buf + off + 1);

			if (!(on[level - 1] & (UINT32_C(1) << h)))
				continue;
			want = hits[h].path[level - 1];
			if (strlen(want) != name_len || memcmp(buf + off + 3, want, name_len) != 0)
				continue;
			/* a candidate for path[0..level-1]: the last one wins */
			hits[h].type = SL_TAG_END;
			if (level == hits[h].npath)
			{
				if (nbt_min_size[t] > len - pos)
					return 0;
				fast_hit(buf, off, t, name_len, &hits[h]);
			}
			else if (t == SL_TAG_COMPOUND)
				next |= UINT32_C(1) << h;
		}
		if (!nbt_fast_payload(buf, len, &pos, t, stack, &depth, max_depth))
			return 0;
		if (depth > level)
			on[depth - 1] = t == SL_TAG_COMPOUND ? next : 0;
	}
	return rc == 0;
}

/* Find tags along paths of compound names from the root, in one pass. */
int
sl_nbt_find_tags(const uint8_t *buf, size_t len, sl_nbt_hit *hits, int n,
				 const sl_limits *lim, sl_err *err)
{
	nbt_reader	r;
	int			on[SL_NBT_MAX_HITS];	/* compounds open along each path */
	int			ev;

	if (n < 0 || n > SL_NBT_MAX_HITS)
		return sl_fail(err, SL_ERR_INVALID, "NBT: %d paths, at most %d", n, SL_NBT_MAX_HITS);
	for (int h = 0; h < n; h++)
	{
		if (hits[h].npath < 0 || (hits[h].npath > 0 && hits[h].path == NULL))
			return sl_fail(err, SL_ERR_INVALID, "NBT: bad path");
		hits[h].type = SL_TAG_END;
		on[h] = 0;
	}
	if (nbt_fast_find(buf, len, hits, n, (lim ? lim : &sl_default_limits)->max_depth))
		return 0;
	/* malformed, or deeper than the fast path goes: the scanner says which */
	if (nbt_reader_init(&r, buf, len, lim, err))
		return -1;
	while ((ev = nbt_next(&r, err)) > 0)
	{
		for (int h = 0; h < n; h++)
		{
			sl_nbt_hit *hit = &hits[h];

			if (ev == NBT_EV_CLOSE)
			{
				if (r.depth < on[h])
					on[h] = r.depth;
				continue;
			}
			if (r.level != on[h] || (r.level > 0 && !nbt_name_is(&r, hit->path[r.level - 1])))
				continue;
			/* this tag is the current candidate for path[0..level-1]: the last one wins */
			hit->type = SL_TAG_END;
			if (r.level == hit->npath)
			{
				hit->type = r.type;
				hit->at = r.off + 3 + r.name_len;
				hit->i = nbt_is_int(r.type) ? r.i : 0;
				hit->count = r.count;
			}
			else if (r.type == SL_TAG_COMPOUND)
				on[h] = r.level + 1;
		}
	}
	nbt_reader_free(&r);
	return ev < 0 ? -1 : 0;
}

/* Look up an int-like tag along a path: 1 found, 0 absent or not int-like, -1 error. */
int
sl_nbt_find_int(const uint8_t *buf, size_t len, const char *const *path,
				int npath, const sl_limits *lim, int64_t *out, sl_err *err)
{
	sl_nbt_hit	hit;

	hit.path = path;
	hit.npath = npath;
	if (sl_nbt_find_tags(buf, len, &hit, 1, lim, err))
		return -1;
	if (!nbt_is_int(hit.type))
		return 0;
	if (out)
		*out = hit.i;
	return 1;
}

/* ---- JSON ---- */

/* Decode a 3-byte modified UTF-8 unit (no overlong forms). */
static int
mutf8_three(const uint8_t *p, size_t n, uint32_t *v)
{
	if (n < 3 || (p[0] & 0xF0) != 0xE0 || (p[1] & 0xC0) != 0x80 ||
		(p[2] & 0xC0) != 0x80)
		return 0;
	*v = ((uint32_t) (p[0] & 0x0F) << 12) | ((uint32_t) (p[1] & 0x3F) << 6) |
		(uint32_t) (p[2] & 0x3F);
	return *v >= 0x800;
}

/*
 * Decode one modified UTF-8 character into a code point; returns the bytes
 * used, or 0 when the bytes are not canonical modified UTF-8 or the result
 * cannot appear in JSON text for jsonb (U+0000, unpaired surrogates).
 */
static size_t
mutf8_decode(const uint8_t *p, size_t n, uint32_t *cp)
{
	uint32_t	hi;
	uint32_t	lo;

	if (p[0] >= 0x01 && p[0] <= 0x7F)
	{
		*cp = p[0];
		return 1;
	}
	if (p[0] >= 0xC2 && p[0] <= 0xDF)
	{
		if (n < 2 || (p[1] & 0xC0) != 0x80)
			return 0;
		*cp = ((uint32_t) (p[0] & 0x1F) << 6) | (uint32_t) (p[1] & 0x3F);
		return 2;
	}
	if (!mutf8_three(p, n, &hi))
		return 0;
	if (hi < 0xD800 || hi > 0xDFFF)
	{
		*cp = hi;
		return 3;
	}
	if (hi > 0xDBFF || !mutf8_three(p + 3, n - 3, &lo) || lo < 0xDC00 || lo > 0xDFFF)
		return 0;
	*cp = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
	return 6;
}

/* Encode a code point (surrogates too) as UTF-8 bytes at dst; returns bytes written. */
static size_t
utf8_encode_cp(uint32_t cp, uint8_t *dst)
{
	if (cp < 0x80)
	{
		dst[0] = (uint8_t) cp;
		return 1;
	}
	if (cp < 0x800)
	{
		dst[0] = (uint8_t) (0xC0 | (cp >> 6));
		dst[1] = (uint8_t) (0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000)
	{
		dst[0] = (uint8_t) (0xE0 | (cp >> 12));
		dst[1] = (uint8_t) (0x80 | ((cp >> 6) & 0x3F));
		dst[2] = (uint8_t) (0x80 | (cp & 0x3F));
		return 3;
	}
	dst[0] = (uint8_t) (0xF0 | (cp >> 18));
	dst[1] = (uint8_t) (0x80 | ((cp >> 12) & 0x3F));
	dst[2] = (uint8_t) (0x80 | ((cp >> 6) & 0x3F));
	dst[3] = (uint8_t) (0x80 | (cp & 0x3F));
	return 4;
}

/* Encode a code point as JSON string content at dst; returns bytes written. */
static size_t
json_encode_cp(uint32_t cp, uint8_t *dst)
{
	static const char hex[] = "0123456789abcdef";

	if (cp == '"' || cp == '\\')
	{
		dst[0] = '\\';
		dst[1] = (uint8_t) cp;
		return 2;
	}
	if (cp < 0x20)
	{
		memcpy(dst, "\\u00", 4);
		dst[4] = (uint8_t) hex[cp >> 4];
		dst[5] = (uint8_t) hex[cp & 15];
		return 6;
	}
	return utf8_encode_cp(cp, dst);
}

/* Convert modified UTF-8 to UTF-8 (appended to out). */
int
sl_mutf8_to_utf8(const char *s, size_t len, sl_buf *out, sl_err *err)
{
	const uint8_t *p = (const uint8_t *) s;
	size_t		base = out->len;
	size_t		i = 0;

	if (sl_buf_reserve(out, len + 1, err))
		return -1;
	while (i < len)
	{
		uint32_t	cp;
		size_t		used = mutf8_decode(p + i, len - i, &cp);

		if (used == 0)
		{
			out->len = base;
			return 1;
		}
		i += used;
		/* a 6-byte surrogate pair becomes 4 bytes, others keep their size */
		out->len += utf8_encode_cp(cp, out->data + out->len);
	}
	return 0;
}

/* Convert UTF-8 to modified UTF-8 (appended to out); 1 if not valid UTF-8. */
int
sl_utf8_to_mutf8(const char *s, size_t len, sl_buf *out, sl_err *err)
{
	const uint8_t *p = (const uint8_t *) s;
	size_t		base = out->len;

	/* each byte grows to at most 2 (U+0000) or 6/4 (supplementary) bytes */
	if (sl_buf_reserve(out, len * 2 + 1, err))
		return -1;
	for (size_t i = 0; i < len;)
	{
		uint32_t	cp;
		size_t		n;

		if (p[i] < 0x80)
			cp = p[i], n = 1;
		else if ((p[i] & 0xE0) == 0xC0 && i + 1 < len && (p[i + 1] & 0xC0) == 0x80)
			cp = ((uint32_t) (p[i] & 0x1F) << 6) | (p[i + 1] & 0x3F), n = 2;
		else if ((p[i] & 0xF0) == 0xE0 && i + 2 < len && (p[i + 1] & 0xC0) == 0x80 && (p[i + 2] & 0xC0) == 0x80)
			cp = ((uint32_t) (p[i] & 0x0F) << 12) | ((uint32_t) (p[i + 1] & 0x3F) << 6) | (p[i + 2] & 0x3F), n = 3;
		else if ((p[i] & 0xF8) == 0xF0 && i + 3 < len && (p[i + 1] & 0xC0) == 0x80 &&
				 (p[i + 2] & 0xC0) == 0x80 && (p[i + 3] & 0xC0) == 0x80)
			cp = ((uint32_t) (p[i] & 0x07) << 18) | ((uint32_t) (p[i + 1] & 0x3F) << 12) |
				((uint32_t) (p[i + 2] & 0x3F) << 6) | (p[i + 3] & 0x3F), n = 4;
		else
		{
			out->len = base;
			return 1;
		}
		i += n;
		if (cp == 0)
		{
			out->data[out->len++] = 0xC0;
			out->data[out->len++] = 0x80;
		}
		else if (cp >= 0x10000)
		{
			if (sl_buf_reserve(out, 6, err))
				return -1;
			out->len += utf8_encode_cp(0xD800 + ((cp - 0x10000) >> 10), out->data + out->len);
			out->len += utf8_encode_cp(0xDC00 + ((cp - 0x10000) & 0x3FF), out->data + out->len);
		}
		else
			out->len += utf8_encode_cp(cp, out->data + out->len);
	}
	return 0;
}

/*
 * Append a modified UTF-8 string as a quoted JSON string. Returns 0, -1 on
 * error, or 1 (with out unchanged) when it cannot be JSON text.
 */
static int
json_text(sl_buf *out, const uint8_t *p, size_t n, sl_err *err)
{
	size_t		base = out->len;
	uint8_t    *dst;
	size_t		i = 0;

	/* one input byte yields at most six output bytes */
	if (sl_buf_reserve(out, n * 6 + 2, err))
		return -1;
	dst = out->data + out->len;
	*dst++ = '"';
	while (i < n)
	{
		uint32_t	cp;
		size_t		used = mutf8_decode(p + i, n - i, &cp);

		if (used == 0)
		{
			out->len = base;
			return 1;
		}
		i += used;
		dst += json_encode_cp(cp, dst);
	}
	*dst++ = '"';
	out->len = (size_t) (dst - out->data);
	return 0;
}

/* Append a string tag: JSON text, or {"mutf8": hex} when it cannot be. */
static int
json_string(sl_buf *out, const uint8_t *p, size_t n, sl_err *err)
{
	static const char hex[] = "0123456789abcdef";
	int			rc = json_text(out, p, n, err);
	uint8_t    *dst;

	if (rc <= 0)
		return rc;
	if (sl_buf_reserve(out, n * 2 + 14, err))
		return -1;
	dst = out->data + out->len;
	memcpy(dst, "{\"mutf8\":\"", 10);
	dst += 10;
	for (size_t i = 0; i < n; i++)
	{
		*dst++ = (uint8_t) hex[p[i] >> 4];
		*dst++ = (uint8_t) hex[p[i] & 15];
	}
	memcpy(dst, "\"}", 2);
	out->len = (size_t) (dst + 2 - out->data);
	return 0;
}

/* Append literal text. */
static int
json_put(sl_buf *out, const char *s, sl_err *err)
{
	return sl_buf_put(out, s, strlen(s), err);
}

/* Append a signed integer. */
static int
json_int(sl_buf *out, int64_t v, sl_err *err)
{
	char		tmp[24];
	char	   *p = tmp + sizeof(tmp);
	uint64_t	u = v < 0 ? (uint64_t) 0 - (uint64_t) v : (uint64_t) v;

	do
	{
		*--p = (char) ('0' + u % 10);
		u /= 10;
	} while (u > 0);
	if (v < 0)
		*--p = '-';
	return sl_buf_put(out, p, (size_t) (tmp + sizeof(tmp) - p), err);
}

/*
 * Append a number given as %g text in plain fixed notation that always
 * contains a '.', e.g. "1e+300" becomes "1000...0.0".
 */
static int
json_fixed(sl_buf *out, const char *g, sl_err *err)
{
	char		digits[40];
	char		res[400];
	int			nd = 0;
	int			point = -1;
	long		dec;
	size_t		k = 0;

	if (*g == '-')
		res[k++] = *g++;
	for (; *g && *g != 'e' && *g != 'E' && nd < (int) sizeof(digits); g++)
	{
		if (*g == '.')
			point = nd;
		else
			digits[nd++] = *g;
	}
	dec = (point < 0 ? nd : point) + (*g ? strtol(g + 1, NULL, 10) : 0);
	if (dec < -340 || dec > 340)
		return sl_fail(err, SL_ERR_INVALID, "NBT: cannot format number");
	if (dec <= 0)
	{
		memcpy(res + k, "0.", 2);
		k += 2;
		memset(res + k, '0', (size_t) -dec);
		k += (size_t) -dec;
		memcpy(res + k, digits, (size_t) nd);
		k += (size_t) nd;
	}
	else if (dec >= nd)
	{
		memcpy(res + k, digits, (size_t) nd);
		k += (size_t) nd;
		memset(res + k, '0', (size_t) (dec - nd));
		k += (size_t) (dec - nd);
		memcpy(res + k, ".0", 2);
		k += 2;
	}
	else
	{
		memcpy(res + k, digits, (size_t) dec);
		k += (size_t) dec;
		res[k++] = '.';
		memcpy(res + k, digits + dec, (size_t) (nd - dec));
		k += (size_t) (nd - dec);
	}
	return sl_buf_put(out, res, k, err);
}

/*
 * Append NaN, an infinity or negative zero as a wrapped string; jsonb has no
 * number for the first two and turns -0.0 into 0.0.
 */
static int
json_special(sl_buf *out, const char *type, int nan, int inf, int neg,
			 sl_err *err)
{
	const char *text = nan ? "NaN" : !inf ? "-0.0" : neg ? "-Infinity" : "Infinity";

	return sl_buf_printf(out, err, "{\"%s\":\"%s\"}", type, text);
}

/*
 * Append a double in fixed notation: the first of %.15g, %.16g, %.17g that
 * reads back exactly (from %.1g for subnormals, whose 15-digit form is not
 * the shortest).
 */
static int
json_double(sl_buf *out, uint64_t bits, sl_err *err)
{
	char		g[64];
	double		d;
	int			exp = (int) ((bits >> 52) & 0x7FF);

	if (exp == 0x7FF || bits == UINT64_C(0x8000000000000000))
		return json_special(out, "double", (bits & UINT64_C(0xFFFFFFFFFFFFF)) != 0,
							exp == 0x7FF, (int) (bits >> 63), err);
	memcpy(&d, &bits, sizeof(d));
	for (int prec = exp == 0 ? 1 : 15; prec <= 17; prec++)
	{
		snprintf(g, sizeof(g), "%.*g", prec, d);
		if (strtod(g, NULL) == d)
			break;
	}
	return json_fixed(out, g, err);
}

/* Append {"float": n}, digits as for doubles but from %.6g to %.9g. */
static int
json_float(sl_buf *out, uint32_t bits, sl_err *err)
{
	char		g[64];
	float		f;
	int			exp = (int) ((bits >> 23) & 0xFF);

	if (exp == 0xFF || bits == 0x80000000)
		return json_special(out, "float", (bits & 0x7FFFFF) != 0,
							exp == 0xFF, (int) (bits >> 31), err);
	memcpy(&f, &bits, sizeof(f));
	for (int prec = exp == 0 ? 1 : 6; prec <= 9; prec++)
	{
		snprintf(g, sizeof(g), "%.*g", prec, (double) f);
		if (strtof(g, NULL) == f)
			break;
	}
	return json_put(out, "{\"float\":", err) || json_fixed(out, g, err) ||
		json_put(out, "}", err) ? -1 : 0;
}

/* Append a byte, int or long array as {"<type>": [n, ...]}. */
static int
json_array(sl_buf *out, const nbt_reader *r, sl_err *err)
{
	if (sl_buf_printf(out, err, "{\"%s\":[", nbt_type_names[r->type]))
		return -1;
	for (uint32_t i = 0; i < r->count; i++)
	{
		int64_t		v;

		if (((i + 1) & NBT_TICK_MASK) == 0)
			sl_interrupt();
		if (r->type == SL_TAG_BYTE_ARRAY)
			v = (int8_t) r->data[i];
		else if (r->type == SL_TAG_INT_ARRAY)
			v = (int32_t) sl_get_u32be(r->data + (size_t) i * 4);
		else
			v = (int64_t) sl_get_u64be(r->data + (size_t) i * 8);
		if ((i > 0 && sl_buf_put_u8(out, ',', err)) || json_int(out, v, err))
			return -1;
	}
	return json_put(out, "]}", err);
}

/* Tell whether a compound key is one of the type-wrapper words. */
static int
json_reserved_key(const uint8_t *name, size_t n)
{
	for (size_t i = 0; i < sizeof(nbt_reserved_keys) / sizeof(nbt_reserved_keys[0]); i++)
	{
		if (strlen(nbt_reserved_keys[i]) == n && memcmp(nbt_reserved_keys[i], name, n) == 0)
			return 1;
	}
	return 0;
}

/* Tell whether the compound just opened starts with a reserved key. */
static int
json_first_key_reserved(const nbt_reader *r)
{
	const uint8_t *p = r->buf + r->pos;
	size_t		left = r->len - r->pos;
	size_t		n;

	if (left < 3 || p[0] == SL_TAG_END || p[0] > SL_TAG_LONG_ARRAY)
		return 0;
	n = sl_get_u16be(p + 1);
	return n <= left - 3 && json_reserved_key(p + 3, n);
}

/* Append the comma and key that go before a tag inside its container. */
static int
json_prefix(sl_buf *out, const nbt_reader *r, sl_err *err)
{
	const nbt_frame *parent;
	int			rc;

	if (r->level == 0)
		return 0;
	parent = &r->stack[r->level - 1];
	if (parent->seen > 1 && sl_buf_put_u8(out, ',', err))
		return -1;
	if (parent->type != SL_TAG_COMPOUND)
		return 0;
	rc = json_text(out, r->name, r->name_len, err);
	if (rc > 0)
		return sl_fail(err, SL_ERR_UNSUPPORTED,
					   "NBT: name at offset %zu is not modified UTF-8 that JSON can hold",
					   r->off);
	return rc < 0 ? -1 : sl_buf_put_u8(out, ':', err);
}

/*
 * Open a compound. When its first key is reserved, leave twelve spaces that
 * become {"compound": should it turn out to have just that one entry.
 */
static int
json_open_compound(sl_buf *out, nbt_reader *r, sl_err *err)
{
	nbt_frame  *f = &r->stack[r->depth - 1];

	if (json_first_key_reserved(r))
	{
		f->flag = 1;
		f->mark = out->len;
		if (json_put(out, "            ", err))
			return -1;
	}
	return sl_buf_put_u8(out, '{', err);
}

/* Append the JSON for the tag just read (containers are left open). */
static int
json_tag(sl_buf *out, nbt_reader *r, sl_err *err)
{
	const char *wrap = NULL;

	if (json_prefix(out, r, err))
		return -1;
	switch (r->type)
	{
		case SL_TAG_BYTE:
			wrap = "{\"byte\":";
			break;
		case SL_TAG_SHORT:
			wrap = "{\"short\":";
			break;
		case SL_TAG_LONG:
			wrap = "{\"long\":";
			break;
		case SL_TAG_INT:
			return json_int(out, r->i, err);
		case SL_TAG_FLOAT:
			return json_float(out, (uint32_t) r->bits, err);
		case SL_TAG_DOUBLE:
			return json_double(out, r->bits, err);
		case SL_TAG_STRING:
			return json_string(out, r->data, r->count, err);
		case SL_TAG_LIST:
			if (r->count == 0)
				return sl_buf_printf(out, err, "{\"list\":\"%s\"}",
									 nbt_type_names[r->elem]);
			return sl_buf_put_u8(out, '[', err);
		case SL_TAG_COMPOUND:
			return json_open_compound(out, r, err);
		default:
			return json_array(out, r, err);
	}
	return json_put(out, wrap, err) || json_int(out, r->i, err) ||
		json_put(out, "}", err) ? -1 : 0;
}

/* Append the end of the container just closed. */
static int
json_close(sl_buf *out, const nbt_reader *r, sl_err *err)
{
	const nbt_frame *f = &r->stack[r->depth];

	if (f->type == SL_TAG_LIST)
		return f->count > 0 ? sl_buf_put_u8(out, ']', err) : 0;
	if (f->flag && f->seen == 1)
	{
		memcpy(out->data + f->mark, "{\"compound\":", 12);
		return json_put(out, "}}", err);
	}
	return sl_buf_put_u8(out, '}', err);
}

/* Convert an NBT document to JSON text; out is unchanged on failure. */
int
sl_nbt_to_json(const uint8_t *buf, size_t len, const sl_limits *lim,
			   sl_buf *out, sl_err *err)
{
	nbt_reader	r;
	size_t		base;
	size_t		cap;
	int			ev;

	if (out == NULL)
		return sl_fail(err, SL_ERR_INVALID, "NBT: no output buffer");
	base = out->len;
	if (lim == NULL)
		lim = &sl_default_limits;
	cap = lim->max_value_raw;
	if (nbt_reader_init(&r, buf, len, lim, err))
		return -1;
	while ((ev = nbt_next(&r, err)) > 0)
	{
		if (ev == NBT_EV_TAG ? json_tag(out, &r, err) : json_close(out, &r, err))
			ev = -1;
		else if (out->len - base > cap)
			ev = sl_fail(err, SL_ERR_LIMIT, "NBT: JSON text exceeds %zu bytes", cap);
		if (ev < 0)
			break;
	}
	nbt_reader_free(&r);
	if (ev < 0)
	{
		out->len = base;
		return -1;
	}
	return 0;
}
