/*
 * sl_region.c - reading and writing Anvil (.mca) and McRegion (.mcr) files.
 *
 * Region files are hostile input: every location, length and stream is
 * checked against the file before use, sector ranges may not overlap and
 * decompression is capped. Damaged chunks fail a strict read and are
 * skipped (and listed) by a lenient one.
 */
#include "sl_region.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sl_codec.h"
#include "sl_nbt.h"
#include "sl_sniff.h"
#include "sl_value.h"

#define SL_HEADER_BYTES		(2 * SL_SECTOR)
#define SL_EXTERNAL_FLAG	128
#define SL_MAX_SECTORS		255
#define SL_MAX_SECTOR_OFF	0xFFFFFFU
#define SL_REGION_COORD_MAX	(1 << 26)	/* keeps chunk coordinates in int32 */
#define SL_WRITE_LEVEL		6

/* State of one sl_region_read call. */
typedef struct region_reader
{
	const uint8_t *file;
	size_t		len;
	int32_t		rx;
	int32_t		rz;
	const sl_external *ext;
	int			next;
	int			strict;
	const sl_limits *lim;
	sl_region  *out;
	size_t		total_raw;		/* NBT bytes kept so far */
	int			overlap[SL_REGION_SLOTS];	/* another slot sharing sectors, or -1 */
} region_reader;

/* One chunk's location entry and the place of its payload. */
typedef struct chunk_loc
{
	int			slot;
	int32_t		x;
	int32_t		z;
	uint32_t	off;			/* first sector */
	uint32_t	count;			/* sectors */
	uint64_t	pos;			/* file offset of the payload */
} chunk_loc;

/* Return the location entry of a slot. */
static uint32_t
slot_location(const uint8_t *file, int slot)
{
	return sl_get_u32be(file + (size_t) slot * 4);
}

/* Compare two slots by first sector, then by slot, for qsort. */
static int
cmp_by_sector(const void *a, const void *b)
{
	const uint64_t *x = a;
	const uint64_t *y = b;

	return *x < *y ? -1 : *x > *y ? 1 : 0;
}

/* Mark every pair of slots whose sector ranges overlap. */
static void
find_overlaps(region_reader *rd)
{
	uint64_t	keys[SL_REGION_SLOTS];
	int			n = 0;

	for (int s = 0; s < SL_REGION_SLOTS; s++)
	{
		uint32_t	loc = slot_location(rd->file, s);

		rd->overlap[s] = -1;
		if ((loc >> 8) >= 2 && (loc & 0xFF) != 0)
			keys[n++] = ((uint64_t) (loc >> 8) << 16) | (uint64_t) s;
	}
	qsort(keys, (size_t) n, sizeof(uint64_t), cmp_by_sector);
	for (int i = 0; i < n; i++)
	{
		int			a = (int) (keys[i] & 0xFFFF);
		uint32_t	end = (uint32_t) (keys[i] >> 16) + (slot_location(rd->file, a) & 0xFF);

		for (int j = i + 1; j < n && (uint32_t) (keys[j] >> 16) < end; j++)
		{
			int			b = (int) (keys[j] & 0xFFFF);

			if (rd->overlap[a] < 0)
				rd->overlap[a] = b;
			if (rd->overlap[b] < 0)
				rd->overlap[b] = a;
		}
	}
}

/* Check the location entry of a chunk against the header and the file. */
static int
check_location(const region_reader *rd, const chunk_loc *cl, sl_err *err)
{
	int			other = rd->overlap[cl->slot];

	if (cl->off < 2)
		return sl_fail(err, SL_ERR_FORMAT, "sector offset %u lies inside the 8 KiB header",
					   cl->off);
	if (cl->count == 0)
		return sl_fail(err, SL_ERR_FORMAT, "location has sector offset %u but 0 sectors",
					   cl->off);
	/* only the final sector may be short: real files are not always padded */
	if ((uint64_t) (cl->off + cl->count - 1) * SL_SECTOR >= rd->len)
		return sl_fail(err, SL_ERR_FORMAT, "sectors %u..%u lie past the end of the file (%zu bytes)",
					   cl->off, cl->off + cl->count - 1, rd->len);
	if (other >= 0)
		return sl_fail(err, SL_ERR_FORMAT, "sectors %u..%u overlap chunk (%d,%d)",
					   cl->off, cl->off + cl->count - 1,
					   (int) (rd->rx * 32 + (other & 31)), (int) (rd->rz * 32 + (other >> 5)));
	if (rd->len - cl->pos < 5)
		return sl_fail(err, SL_ERR_FORMAT, "chunk header runs past the end of the file");
	return 0;
}

/* Find the external chunk file supplied for a chunk, or NULL. */
static const sl_external *
find_external(const region_reader *rd, int32_t x, int32_t z)
{
	for (int i = 0; i < rd->next; i++)
		if (rd->ext[i].x == x && rd->ext[i].z == z)
			return &rd->ext[i];
	return NULL;
}

/* Find the compressed stream of a chunk: in the file or in its .mcc. */
static int
locate_stream(const region_reader *rd, const chunk_loc *cl, uint8_t type,
			  const uint8_t **data, size_t *declared, sl_err *err)
{
	uint32_t	length = sl_get_u32be(rd->file + cl->pos);
	const sl_external *e;

	if (type & SL_EXTERNAL_FLAG)
	{
		e = find_external(rd, cl->x, cl->z);
		if (e == NULL)
			return sl_fail(err, SL_ERR_FORMAT, "external chunk file c.%d.%d.mcc not supplied",
						   (int) cl->x, (int) cl->z);
		*data = e->data;
		*declared = e->len;
		return 0;
	}
	if (length <= 1)
		return sl_fail(err, SL_ERR_FORMAT, "length field %u leaves no room for data", length);
	if (4 + (uint64_t) length > (uint64_t) cl->count * SL_SECTOR)
		return sl_fail(err, SL_ERR_FORMAT, "length field %u exceeds the %u allocated sector(s)",
					   length, cl->count);
	if (4 + (uint64_t) length > rd->len - cl->pos)
		return sl_fail(err, SL_ERR_FORMAT, "length field %u runs past the end of the file (%zu bytes)",
					   length, rd->len);
	*data = rd->file + cl->pos + 5;
	*declared = (size_t) length - 1;
	return 0;
}

/* Name a compression type for messages. */
static const char *
compression_name(int type)
{
	switch (type)
	{
		case 1:
			return "gzip";
		case 2:
			return "zlib";
		case 3:
			return "uncompressed";
		default:
			return "LZ4";
	}
}

/* Decompress a chunk stream of type 1, 2 or 4 with the chunk cap. */
static int
decompress(int type, const uint8_t *data, size_t len, const sl_limits *lim,
		   uint8_t **raw, size_t *raw_len, size_t *used, sl_err *err)
{
	if (type == 4)
		return sl_lz4block_decode(data, len, lim->max_chunk_raw, raw, raw_len, used, err);
	return sl_inflate(type == 1 ? SL_DEFLATE_GZIP : SL_DEFLATE_ZLIB, data, len,
					  lim->max_chunk_raw, 0, raw, raw_len, used, err);
}

/*
 * Decompress the declared stream; when it stops short, see whether it
 * completes when read on to the end of the chunk's sectors (a length field
 * that is too small). *short_by tells how many bytes it ran past.
 */
static int
decompress_repair(const region_reader *rd, const chunk_loc *cl, int type,
				  const uint8_t *data, size_t declared, int external,
				  uint8_t **raw, size_t *raw_len, size_t *short_by, sl_err *err)
{
	uint64_t	sec_end = (uint64_t) (cl->off + cl->count) * SL_SECTOR;
	size_t		avail;
	size_t		used = 0;
	sl_err		e2;

	*short_by = 0;
	if (decompress(type, data, declared, rd->lim, raw, raw_len, &used, err) == 0)
		return 0;
	if (err->code != SL_ERR_FORMAT || external)
		return -1;
	if (sec_end > rd->len)
		sec_end = rd->len;
	avail = (size_t) (sec_end - cl->pos - 5);
	if (avail <= declared ||
		decompress(type, data, avail, rd->lim, raw, raw_len, &used, &e2) != 0)
		return -1;
	if (used <= declared)
	{
		sl_free(*raw);
		*raw = NULL;
		return -1;
	}
	*short_by = used - declared;
	if (!rd->strict)
		return 0;
	sl_free(*raw);
	*raw = NULL;
	return sl_fail(err, SL_ERR_FORMAT,
				   "%s stream is longer than its length field %zu (it runs %zu bytes past); strict => false repairs it",
				   compression_name(type), declared + 1, *short_by);
}

/* Copy an uncompressed chunk's NBT document out of the file. */
static int
copy_uncompressed(const region_reader *rd, const uint8_t *data, size_t len,
				  uint8_t **raw, size_t *raw_len, sl_err *err)
{
	size_t		consumed = 0;

	if (sl_nbt_check(data, len, 0, rd->lim, &consumed, err))
		return -1;
	if (consumed > rd->lim->max_chunk_raw)
		return sl_fail(err, SL_ERR_LIMIT, "decompressed size exceeds cap of %zu bytes",
					   rd->lim->max_chunk_raw);
	*raw = sl_alloc_err(consumed, err);
	if (*raw == NULL)
		return -1;
	memcpy(*raw, data, consumed);
	*raw_len = consumed;
	return 0;
}

/* Decode the raw chunk bytes: decompress, or copy an uncompressed chunk. */
static int
decode_chunk(const region_reader *rd, const chunk_loc *cl, uint8_t type,
			 uint8_t **raw, size_t *raw_len, size_t *short_by, sl_err *err)
{
	int			ctype = type & 0x7F;
	const uint8_t *data = NULL;
	size_t		declared = 0;

	*short_by = 0;
	if (ctype < 1 || ctype > 4)
		return sl_fail(err, SL_ERR_UNSUPPORTED, "unknown compression type %d", ctype);
	if (locate_stream(rd, cl, type, &data, &declared, err))
		return -1;
	if (ctype == 3)
		return copy_uncompressed(rd, data, declared, raw, raw_len, err);
	return decompress_repair(rd, cl, ctype, data, declared,
							 (type & SL_EXTERNAL_FLAG) != 0, raw, raw_len, short_by, err);
}

/* Check the raw bytes are one NBT document with a compound root; trim the rest. */
static int
check_nbt(const region_reader *rd, uint8_t **raw, size_t raw_len, size_t *nbt_len,
		  sl_err *err)
{
	size_t		consumed = 0;
	uint8_t    *p;

	if (sl_nbt_check(*raw, raw_len, 0, rd->lim, &consumed, err))
		return -1;
	if (consumed > rd->lim->max_chunk_raw)
		return sl_fail(err, SL_ERR_LIMIT, "decompressed size exceeds cap of %zu bytes",
					   rd->lim->max_chunk_raw);
	if (consumed < raw_len && consumed > 0)
	{
		p = sl_realloc(*raw, consumed);
		if (p)
			*raw = p;
	}
	*nbt_len = consumed;
	return 0;
}

/* Read one chunk into ch; on failure err says why (without coordinates). */
static int
load_chunk(const region_reader *rd, const chunk_loc *cl, sl_region_chunk *ch,
		   size_t *short_by, sl_err *err)
{
	uint8_t    *raw = NULL;
	size_t		raw_len = 0;
	uint8_t		type;

	if (check_location(rd, cl, err))
		return -1;
	type = rd->file[cl->pos + 4];
	if (sl_get_u32be(rd->file + cl->pos) == 0)
		return sl_fail(err, SL_ERR_FORMAT, "length field is 0");
	if (decode_chunk(rd, cl, type, &raw, &raw_len, short_by, err))
		return -1;
	if (check_nbt(rd, &raw, raw_len, &ch->nbt_len, err))
	{
		sl_free(raw);
		return -1;
	}
	ch->x = cl->x;
	ch->z = cl->z;
	ch->timestamp = sl_get_u32be(rd->file + SL_SECTOR + (size_t) cl->slot * 4);
	ch->compression = type;
	ch->nbt = raw;
	return 0;
}

/* Append a problem to the region's list (its capacity: 8, then powers of 2). */
static int
append_problem(sl_region *r, const chunk_loc *cl, int skipped, const sl_err *cerr,
			   sl_err *err)
{
	sl_region_problem *p;
	int			n = r->nproblems;

	if (n == 0 || (n >= 8 && (n & (n - 1)) == 0))
	{
		p = sl_realloc(r->problems, (size_t) (n ? n * 2 : 8) * sizeof(sl_region_problem));
		if (p == NULL)
			return sl_fail(err, SL_ERR_NOMEM, "out of memory recording a damaged chunk");
		r->problems = p;
	}
	p = &r->problems[r->nproblems++];
	memset(p, 0, sizeof(*p));
	p->x = cl->x;
	p->z = cl->z;
	p->offset = cl->pos;
	p->skipped = skipped;
	p->code = cerr->code;
	memcpy(p->msg, cerr->msg, sizeof(p->msg) - 1);	/* truncate long messages */
	p->msg[sizeof(p->msg) - 1] = '\0';
	return 0;
}

/* Keep a decoded chunk, enforcing the cap on all bytes of the region. */
static int
keep_chunk(region_reader *rd, const chunk_loc *cl, sl_region_chunk *ch,
		   size_t short_by, sl_err *err)
{
	sl_region *r = rd->out;
	sl_err		note;

	memset(&note, 0, sizeof(note));
	if (ch->nbt_len > rd->lim->max_value_raw - rd->total_raw)
	{
		sl_free(ch->nbt);
		return sl_fail(err, SL_ERR_LIMIT, "region decompresses to more than %zu bytes",
					   rd->lim->max_value_raw);
	}
	rd->total_raw += ch->nbt_len;
	r->chunks[r->nchunks++] = *ch;
	if (short_by == 0)
		return 0;
	note.code = SL_ERR_FORMAT;
	snprintf(note.msg, sizeof(note.msg),
			 "chunk (%d,%d) at file offset %llu: length field %u is %zu bytes short; read to end of sectors",
			 (int) cl->x, (int) cl->z, (unsigned long long) cl->pos,
			 sl_get_u32be(rd->file + cl->pos), short_by);
	return append_problem(rd->out, cl, 0, &note, err);
}

/* Read the chunk of one used slot; damage fails (strict) or is recorded. */
static int
read_slot(region_reader *rd, int slot, sl_err *err)
{
	uint32_t	loc = slot_location(rd->file, slot);
	chunk_loc	cl;
	sl_region_chunk ch;
	size_t		short_by = 0;
	sl_err		cerr;

	cl.slot = slot;
	cl.x = rd->rx * 32 + (slot & 31);
	cl.z = rd->rz * 32 + (slot >> 5);
	cl.off = loc >> 8;
	cl.count = loc & 0xFF;
	cl.pos = (uint64_t) cl.off * SL_SECTOR;
	memset(&ch, 0, sizeof(ch));
	memset(&cerr, 0, sizeof(cerr));
	if (load_chunk(rd, &cl, &ch, &short_by, &cerr) == 0)
		return keep_chunk(rd, &cl, &ch, short_by, err);
	sl_err_prefix(&cerr, "chunk (%d,%d) at file offset %llu", (int) cl.x, (int) cl.z,
				  (unsigned long long) cl.pos);
	if (rd->strict || cerr.code == SL_ERR_NOMEM)
	{
		*err = cerr;
		return -1;
	}
	return append_problem(rd->out, &cl, 1, &cerr, err);
}

/* Read every chunk of a region file. */
int
sl_region_read(const uint8_t *file, size_t len, int32_t rx, int32_t rz,
			   const sl_external *ext, int next, int strict,
			   const sl_limits *lim, sl_region *out, sl_err *err)
{
	region_reader rd;
	int			used = 0;

	memset(out, 0, sizeof(*out));
	out->rx = rx;
	out->rz = rz;
	if (rx < -SL_REGION_COORD_MAX || rx >= SL_REGION_COORD_MAX ||
		rz < -SL_REGION_COORD_MAX || rz >= SL_REGION_COORD_MAX)
		return sl_fail(err, SL_ERR_INVALID, "region coordinates (%d,%d) out of range",
					   (int) rx, (int) rz);
	if (len == 0)
		return 0;
	if (sl_sniff(file, len) != SL_SNIFF_UNKNOWN)
		return sl_fail(err, SL_ERR_FORMAT, "not a region file: its first bytes are those of %s",
					   sl_sniff_name(sl_sniff(file, len)));
	if (len < SL_HEADER_BYTES)
		return sl_fail(err, SL_ERR_FORMAT, "region file shorter than its 8 KiB header (%zu bytes)",
					   len);
	memset(&rd, 0, sizeof(rd));
	rd.file = file;
	rd.len = len;
	rd.rx = rx;
	rd.rz = rz;
	rd.ext = ext;
	rd.next = ext ? next : 0;
	rd.strict = strict;
	rd.lim = lim ? lim : &sl_default_limits;
	rd.out = out;
	find_overlaps(&rd);
	for (int s = 0; s < SL_REGION_SLOTS; s++)
		used += slot_location(file, s) != 0;
	if (used == 0)
		return 0;
	out->chunks = sl_alloc_err((size_t) used * sizeof(sl_region_chunk), err);
	if (out->chunks == NULL)
		return -1;
	for (int s = 0; s < SL_REGION_SLOTS; s++)
	{
		if (slot_location(file, s) == 0)
			continue;
		sl_interrupt();
		if (read_slot(&rd, s, err))
		{
			sl_region_free(out);
			return -1;
		}
	}
	return 0;
}

/* ---- where a chunk says it is ---- */

static const char *const p_xpos[] = {"xPos"};
static const char *const p_zpos[] = {"zPos"};
static const char *const p_lxpos[] = {"Level", "xPos"};
static const char *const p_lzpos[] = {"Level", "zPos"};
static const char *const p_level[] = {"Level"};
static const char *const p_sections[] = {"sections"};
static const char *const p_entities[] = {"Entities"};
static const char *const p_position[] = {"Position"};
static const char *const p_poi[] = {"Sections"};

enum
{
	H_XPOS, H_ZPOS, H_LXPOS, H_LZPOS, H_LEVEL, H_SECTIONS, H_ENTITIES, H_POSITION, H_POI, H_N
};

/* What kind of chunk the found tags make: a kind, or -1 when none is clear. */
static int
chunk_kind(const sl_nbt_hit *h)
{
	if (h[H_LEVEL].type == SL_TAG_COMPOUND || h[H_XPOS].type != SL_TAG_END ||
		h[H_SECTIONS].type == SL_TAG_LIST)
		return SL_COMP_REGION;
	if (h[H_ENTITIES].type == SL_TAG_LIST || h[H_POSITION].type == SL_TAG_INT_ARRAY)
		return SL_COMP_ENTITIES;
	if (h[H_POI].type == SL_TAG_COMPOUND)
		return SL_COMP_POI;
	return -1;
}

/* The kind of file a kind of chunk comes from, for messages. */
static const char *
kind_file(int kind)
{
	return kind == SL_COMP_REGION ? "a region/ file (chunks with xPos, sections or Level)" :
		kind == SL_COMP_ENTITIES ? "an entities/ file (chunks with Entities and Position)" :
		"a poi/ file (chunks with Sections of points of interest)";
}

/* Overwrite a 4-byte int payload at off of a chunk's NBT. */
static void
put_int(sl_region_chunk *c, size_t off, int32_t v)
{
	sl_put_u32be(c->nbt + off, (uint32_t) v);
}

/*
 * Find where chunk c says it is: 1 with *hx, *hz and the payload offsets
 * (xo, zo; (size_t) -1 where it cannot be rewritten in place), 0 when it
 * records no position, and its kind in *kind.
 */
static int
chunk_place(const sl_region_chunk *c, const sl_limits *lim, int *kind, int64_t *hx, int64_t *hz,
			size_t *xo, size_t *zo, sl_err *err)
{
	static const char *const *const paths[H_N] = {
		p_xpos, p_zpos, p_lxpos, p_lzpos, p_level, p_sections, p_entities, p_position, p_poi
	};
	sl_nbt_hit	h[H_N];
	int			x = H_XPOS;

	memset(h, 0, sizeof(h));
	for (int i = 0; i < H_N; i++)
	{
		h[i].path = paths[i];
		h[i].npath = i == H_LXPOS || i == H_LZPOS ? 2 : 1;
	}
	if (sl_nbt_find_tags(c->nbt, c->nbt_len, h, H_N, lim, err))
		return -1;
	*kind = chunk_kind(h);
	*xo = *zo = (size_t) -1;
	if (h[H_POSITION].type == SL_TAG_INT_ARRAY && h[H_POSITION].count == 2 &&
		*kind == SL_COMP_ENTITIES)
	{
		*xo = h[H_POSITION].at + 4;
		*zo = *xo + 4;
		*hx = (int32_t) sl_get_u32be(c->nbt + *xo);
		*hz = (int32_t) sl_get_u32be(c->nbt + *zo);
		return 1;
	}
	if (h[H_XPOS].type == SL_TAG_END)
		x = H_LXPOS;
	if (*kind != SL_COMP_REGION || h[x].type == SL_TAG_END || h[x + 1].type == SL_TAG_END)
		return 0;
	*hx = h[x].i;
	*hz = h[x + 1].i;
	if (h[x].type == SL_TAG_INT && h[x + 1].type == SL_TAG_INT)
	{
		*xo = h[x].at;
		*zo = h[x + 1].at;
	}
	return 1;
}

/* Check that every chunk of a region file is of kind and where its slot is. */
int
sl_region_place(sl_region *r, int kind, int strict, const sl_limits *lim, sl_err *err)
{
	for (int i = 0; i < r->nchunks; i++)
	{
		sl_region_chunk *c = &r->chunks[i];
		int			found_kind;
		int64_t		hx = 0,
					hz = 0;
		size_t		xo,
					zo;
		int			has;
		sl_err		note;
		chunk_loc	cl;

		has = chunk_place(c, lim ? lim : &sl_default_limits, &found_kind, &hx, &hz, &xo, &zo, err);
		if (has < 0)
		{
			sl_err_prefix(err, "chunk (%d,%d)", (int) c->x, (int) c->z);
			return -1;
		}
		if (found_kind >= 0 && found_kind != kind)
			return sl_fail(err, SL_ERR_FORMAT,
						   "chunk (%d,%d) is not a chunk of %s but of %s: the file was given as the wrong kind",
						   (int) c->x, (int) c->z, kind_file(kind), kind_file(found_kind));
		if (!has || (hx == c->x && hz == c->z))
			continue;
		if (strict || xo == (size_t) -1 || zo == (size_t) -1)
			return sl_fail(err, SL_ERR_FORMAT,
						   "chunk in slot (%d,%d) says it is chunk (%lld,%lld), which lies in region (%lld,%lld): "
						   "give the file its own region coordinates (those of its name, r.%lld.%lld), or import leniently "
						   "to relocate its chunks to their slots as Minecraft does",
						   (int) (c->x - r->rx * 32), (int) (c->z - r->rz * 32),
						   (long long) hx, (long long) hz, (long long) (hx >> 5), (long long) (hz >> 5),
						   (long long) (hx >> 5), (long long) (hz >> 5));
		/* as Minecraft: "Chunk file at [x,z] is in the wrong location; relocating" */
		put_int(c, xo, c->x);
		put_int(c, zo, c->z);
		memset(&note, 0, sizeof(note));
		memset(&cl, 0, sizeof(cl));
		note.code = SL_ERR_FORMAT;
		snprintf(note.msg, sizeof(note.msg),
				 "chunk (%d,%d) said it was chunk (%lld,%lld): relocated to its slot, as Minecraft does",
				 (int) c->x, (int) c->z, (long long) hx, (long long) hz);
		cl.x = c->x;
		cl.z = c->z;
		cl.pos = (uint64_t) -1;
		if (append_problem(r, &cl, 0, &note, err))
			return -1;
	}
	return 0;
}

/* Find the kind of one chunk's NBT and the position it names. */
int
sl_chunk_where(const uint8_t *nbt, size_t len, const sl_limits *lim, int *kind,
			   int64_t *x, int64_t *z, sl_err *err)
{
	sl_region_chunk c;
	size_t		xo,
				zo;

	memset(&c, 0, sizeof(c));
	c.nbt = (uint8_t *) nbt;
	c.nbt_len = len;
	*x = *z = 0;
	return chunk_place(&c, lim ? lim : &sl_default_limits, kind, x, z, &xo, &zo, err);
}

/* Rewrite the position one chunk's NBT names to (x,z), in place. */
int
sl_chunk_relocate(uint8_t *nbt, size_t len, int32_t x, int32_t z, const sl_limits *lim,
				  sl_err *err)
{
	sl_region_chunk c;
	int			kind;
	int64_t		hx,
				hz;
	size_t		xo,
				zo;
	int			has;

	memset(&c, 0, sizeof(c));
	c.nbt = nbt;
	c.nbt_len = len;
	has = chunk_place(&c, lim ? lim : &sl_default_limits, &kind, &hx, &hz, &xo, &zo, err);
	if (has < 0)
		return -1;
	if (!has)
		return sl_fail(err, SL_ERR_INVALID,
					   "the chunk names no position (no xPos and zPos, Level.xPos and Level.zPos, or entities' Position)");
	if (xo == (size_t) -1 || zo == (size_t) -1)
		return sl_fail(err, SL_ERR_INVALID,
					   "the chunk's xPos and zPos are not int tags and cannot be rewritten in place");
	c.x = x;
	c.z = z;
	put_int(&c, xo, x);
	put_int(&c, zo, z);
	return 0;
}

/* What file a kind of chunk comes from, and the tags that tell, for messages. */
const char *
sl_chunk_kind_file(int kind)
{
	return kind_file(kind);
}

/* Free a region's chunks and problems. */
void
sl_region_free(sl_region *r)
{
	if (r == NULL)
		return;
	for (int i = 0; i < r->nchunks; i++)
		sl_free(r->chunks[i].nbt);
	sl_free(r->chunks);
	sl_free(r->problems);
	r->chunks = NULL;
	r->problems = NULL;
	r->nchunks = 0;
	r->nproblems = 0;
}

/* Return a chunk's slot within region rx,rz, or -1 when it lies outside. */
static int
chunk_slot(const sl_region_chunk *c, int32_t rx, int32_t rz)
{
	int64_t		lx = (int64_t) c->x - (int64_t) rx * 32;
	int64_t		lz = (int64_t) c->z - (int64_t) rz * 32;

	if (lx < 0 || lx >= 32 || lz < 0 || lz >= 32)
		return -1;
	return (int) (lz * 32 + lx);
}

/* Map each slot to the index of its chunk, rejecting strays and duplicates. */
static int
index_chunks(const sl_region_chunk *chunks, int n, int32_t rx, int32_t rz,
			 int *slot_of, sl_err *err)
{
	for (int s = 0; s < SL_REGION_SLOTS; s++)
		slot_of[s] = -1;
	for (int i = 0; i < n; i++)
	{
		const sl_region_chunk *c = &chunks[i];
		int			s = chunk_slot(c, rx, rz);

		if (s < 0)
			return sl_fail(err, SL_ERR_INVALID, "chunk (%d,%d) lies outside region (%d,%d)",
						   (int) c->x, (int) c->z, (int) rx, (int) rz);
		if (slot_of[s] >= 0)
			return sl_fail(err, SL_ERR_DUPLICATE, "chunk (%d,%d) appears twice",
						   (int) c->x, (int) c->z);
		if (c->nbt == NULL && c->nbt_len > 0)
			return sl_fail(err, SL_ERR_INVALID, "chunk (%d,%d) has no NBT bytes",
						   (int) c->x, (int) c->z);
		slot_of[s] = i;
	}
	return 0;
}

/* Append a chunk's compressed NBT to buf. */
static int
compress_chunk(const sl_region_chunk *c, int compression, sl_buf *buf, sl_err *err)
{
	switch (compression)
	{
		case 1:
			return sl_deflate(SL_DEFLATE_GZIP, SL_WRITE_LEVEL, c->nbt, c->nbt_len, buf, err);
		case 2:
			return sl_deflate(SL_DEFLATE_ZLIB, SL_WRITE_LEVEL, c->nbt, c->nbt_len, buf, err);
		case 3:
			return sl_buf_put(buf, c->nbt, c->nbt_len, err);
		default:
			return sl_lz4block_encode(c->nbt, c->nbt_len, buf, err);
	}
}

/* Hand a chunk's compressed stream over as a new external entry. */
static int
add_external(const sl_region_chunk *c, sl_buf *payload, sl_external **ext,
			 int *next, sl_err *err)
{
	sl_external *p;
	size_t		clen = payload->len - 5;

	if (ext == NULL || next == NULL)
		return sl_fail(err, SL_ERR_LIMIT,
					   "chunk (%d,%d) needs more than 255 sectors but external chunks are not accepted",
					   (int) c->x, (int) c->z);
	p = sl_realloc(*ext, (size_t) (*next + 1) * sizeof(sl_external));
	if (p == NULL)
		return sl_fail(err, SL_ERR_NOMEM, "out of memory listing external chunks");
	*ext = p;
	memmove(payload->data, payload->data + 5, clen);
	p[*next].x = c->x;
	p[*next].z = c->z;
	p[*next].data = payload->data;
	p[*next].len = clen;
	(*next)++;
	payload->data = NULL;
	payload->len = payload->cap = 0;
	return 0;
}

/* Append a payload at the next sector, zero-padded, and fill its header entries. */
static int
put_payload(sl_buf *out, size_t base, int slot, uint32_t *sector,
			const uint8_t *payload, size_t len, uint32_t timestamp, sl_err *err)
{
	uint32_t	count = (uint32_t) ((len + SL_SECTOR - 1) / SL_SECTOR);
	size_t		pad = (size_t) count * SL_SECTOR - len;

	if (*sector > SL_MAX_SECTOR_OFF)
		return sl_fail(err, SL_ERR_LIMIT, "region file would exceed %u sectors", SL_MAX_SECTOR_OFF);
	if (sl_buf_put(out, payload, len, err) || sl_buf_reserve(out, pad, err))
		return -1;
	memset(out->data + out->len, 0, pad);
	out->len += pad;
	sl_put_u32be(out->data + base + (size_t) slot * 4, (*sector << 8) | count);
	sl_put_u32be(out->data + base + SL_SECTOR + (size_t) slot * 4, timestamp);
	*sector += count;
	return 0;
}

/* Compress one chunk and lay it out at the next free sector. */
static int
write_chunk(const sl_region_chunk *c, int slot, int compression, sl_buf *out,
			size_t base, uint32_t *sector, sl_external **ext, int *next, sl_err *err)
{
	sl_buf		payload = {NULL, 0, 0};
	uint8_t		stub[5];
	int			rc;

	if (sl_buf_put_u32be(&payload, 0, err) ||
		sl_buf_put_u8(&payload, (uint8_t) compression, err) ||
		compress_chunk(c, compression, &payload, err))
	{
		sl_buf_free(&payload);
		return -1;
	}
	if ((payload.len + SL_SECTOR - 1) / SL_SECTOR <= SL_MAX_SECTORS)
	{
		sl_put_u32be(payload.data, (uint32_t) (payload.len - 4));
		rc = put_payload(out, base, slot, sector, payload.data, payload.len,
						 c->timestamp, err);
		sl_buf_free(&payload);
		return rc;
	}
	if (add_external(c, &payload, ext, next, err))
	{
		sl_buf_free(&payload);
		return -1;
	}
	sl_put_u32be(stub, 1);
	stub[4] = (uint8_t) (compression | SL_EXTERNAL_FLAG);
	return put_payload(out, base, slot, sector, stub, sizeof(stub), c->timestamp, err);
}

/* Free external entries built so far. */
static void
free_externals(sl_external **ext, int *next)
{
	if (ext == NULL || next == NULL)
		return;
	for (int i = 0; i < *next; i++)
		sl_free((void *) (*ext)[i].data);
	sl_free(*ext);
	*ext = NULL;
	*next = 0;
}

/* Write a region file holding chunks[0..n), appended to out. */
int
sl_region_write(const sl_region_chunk *chunks, int n, int32_t rx,
				int32_t rz, int compression, sl_buf *out,
				sl_external **ext_out, int *next_out, sl_err *err)
{
	int			slot_of[SL_REGION_SLOTS];
	size_t		base = out->len;
	uint32_t	sector = 2;

	if (ext_out && next_out)
	{
		*ext_out = NULL;
		*next_out = 0;
	}
	if (compression < 1 || compression > 4)
		return sl_fail(err, SL_ERR_INVALID, "compression type %d is not 1, 2, 3 or 4", compression);
	if (n < 0)
		return sl_fail(err, SL_ERR_INVALID, "negative chunk count %d", n);
	if (index_chunks(chunks, n, rx, rz, slot_of, err))
		return -1;
	if (sl_buf_reserve(out, SL_HEADER_BYTES, err))
		return -1;
	memset(out->data + base, 0, SL_HEADER_BYTES);
	out->len += SL_HEADER_BYTES;
	for (int s = 0; s < SL_REGION_SLOTS; s++)
	{
		if (slot_of[s] < 0)
			continue;
		sl_interrupt();
		if (write_chunk(&chunks[slot_of[s]], s, compression, out, base, &sector,
						ext_out, next_out, err))
		{
			out->len = base;
			free_externals(ext_out, next_out);
			return -1;
		}
	}
	return 0;
}
