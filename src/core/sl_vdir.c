/*
 * sl_vdir.c - the chunk directory of a format v3 value (doc/format.md,
 * "Version 3"): columns of varints and the payload order of inline chunks.
 */
#include "sl_vdir.h"

#include <string.h>

/* Append v as a varint (7 bits a byte, low group first). */
int
sl_varint64_put(sl_buf *b, uint64_t v, sl_err *err)
{
	uint8_t		t[10];
	size_t		n = 0;

	while (v >= 0x80)
	{
		t[n++] = (uint8_t) (v | 0x80);
		v >>= 7;
	}
	t[n++] = (uint8_t) v;
	return sl_buf_put(b, t, n, err);
}

/* Read a varint at *pos (at most 10 bytes, no overlong top byte). */
int
sl_varint64_get(const uint8_t *buf, size_t len, size_t *pos, uint64_t *v)
{
	uint64_t	r = 0;

	for (int i = 0; i < 10; i++)
	{
		uint8_t		c;

		if (*pos >= len)
			return -1;
		c = buf[(*pos)++];
		if (i == 9 && c > 1)
			return -1;
		r |= (uint64_t) (c & 0x7F) << (7 * i);
		if ((c & 0x80) == 0)
		{
			*v = r;
			return 0;
		}
	}
	return -1;
}

/* Zigzag-map a signed difference to an unsigned varint value. */
static uint64_t
zig(int64_t v)
{
	return ((uint64_t) v << 1) ^ (uint64_t) (v >> 63);
}

/* Undo zig. */
static int64_t
unzig(uint64_t v)
{
	return (int64_t) (v >> 1) ^ -(int64_t) (v & 1);
}

/* Spread the 32 bits of v over the even bits of a 64-bit word. */
static uint64_t
spread_bits(uint32_t v)
{
	uint64_t	x = v;

	x = (x | (x << 16)) & 0x0000FFFF0000FFFFULL;
	x = (x | (x << 8)) & 0x00FF00FF00FF00FFULL;
	x = (x | (x << 4)) & 0x0F0F0F0F0F0F0F0FULL;
	x = (x | (x << 2)) & 0x3333333333333333ULL;
	x = (x | (x << 1)) & 0x5555555555555555ULL;
	return x;
}

/* Canonical order key of a chunk position in v1/v2 (Morton order of biased x, z). */
uint64_t
sl_chunk_key(int32_t x, int32_t z)
{
	uint32_t	ux = (uint32_t) x ^ 0x80000000u;
	uint32_t	uz = (uint32_t) z ^ 0x80000000u;

	return spread_bits(ux) | (spread_bits(uz) << 1);
}

/*
 * Version 3 order key: regions in Morton order, chunks of a region in
 * region-file slot order (z * 32 + x). The top 54 bits of a Morton key
 * interleave the region coordinates, the low 10 bits the place inside.
 */
uint64_t
sl_chunk_key3(int32_t x, int32_t z)
{
	return (sl_chunk_key(x, z) & ~(uint64_t) 1023) | (((uint32_t) z & 31) << 5) | ((uint32_t) x & 31);
}

/* Position of a Morton key: the inverse of sl_chunk_key(). */
static void
unmorton(uint64_t k, int32_t *x, int32_t *z)
{
	uint64_t	v[2] = {k, k >> 1};

	for (int i = 0; i < 2; i++)
	{
		uint64_t	a = v[i] & 0x5555555555555555ULL;

		a = (a | (a >> 1)) & 0x3333333333333333ULL;
		a = (a | (a >> 2)) & 0x0F0F0F0F0F0F0F0FULL;
		a = (a | (a >> 4)) & 0x00FF00FF00FF00FFULL;
		a = (a | (a >> 8)) & 0x0000FFFF0000FFFFULL;
		a = (a | (a >> 16)) & 0x00000000FFFFFFFFULL;
		v[i] = a;
	}
	*x = (int32_t) ((uint32_t) v[0] ^ 0x80000000u);
	*z = (int32_t) ((uint32_t) v[1] ^ 0x80000000u);
}

/* Position of a version 3 order key: the inverse of sl_chunk_key3(). */
static void
unkey3(uint64_t k, int32_t *x, int32_t *z)
{
	unmorton(k & ~(uint64_t) 1023, x, z);
	*x = (int32_t) (((uint32_t) *x & ~31u) | (uint32_t) (k & 31));
	*z = (int32_t) (((uint32_t) *z & ~31u) | (uint32_t) ((k >> 5) & 31));
}

/* Write the frame columns: compressed and raw length, chunk count, codec. */
static int
put_frames(const sl_frame *f, uint32_t nf, sl_buf *out, sl_err *err)
{
	for (uint32_t i = 0; i < nf; i++)
		if (sl_varint64_put(out, f[i].comp_len, err) ||
			sl_varint64_put(out, f[i].raw_len, err) ||
			sl_varint64_put(out, f[i].chunks, err) ||
			sl_buf_put_u8(out, f[i].codec, err))
			return -1;
	return 0;
}

/* Write the DataVersion column: runs of equal values, each a delta from the last run. */
static int
put_versions(const sl_dirslot *d, uint32_t n, sl_buf *out, sl_err *err)
{
	int64_t		prev = 0;

	for (uint32_t i = 0; i < n;)
	{
		uint32_t	run = 1;

		while (i + run < n && d[i + run].data_version == d[i].data_version)
			run++;
		if (sl_varint64_put(out, run, err) ||
			sl_varint64_put(out, zig((int64_t) d[i].data_version - prev), err))
			return -1;
		prev = d[i].data_version;
		i += run;
	}
	return 0;
}

/* Write the reference column: alternating runs of inline and referenced chunks. */
static int
put_refs(const sl_dirslot *d, uint32_t n, sl_buf *out, sl_err *err)
{
	int			want_ref = 0;

	for (uint32_t i = 0; i < n;)
	{
		uint32_t	run = 0;

		while (i + run < n && (d[i + run].frame == UINT32_MAX) == want_ref)
			run++;
		if (sl_varint64_put(out, run, err))
			return -1;
		i += run;
		want_ref = !want_ref;
	}
	return 0;
}

/* Write the directory columns of n chunks and nf frames. */
int
sl_vdir_encode(const sl_dirslot *d, uint32_t n, const sl_frame *f, uint32_t nf,
			   sl_buf *out, sl_err *err)
{
	uint64_t	prev_key = 0;
	int64_t		prev_ts = 0;
	int			refs = 0;

	if (put_frames(f, nf, out, err))
		return -1;
	for (uint32_t i = 0; i < n; i++)
	{
		uint64_t	key = sl_chunk_key3(d[i].x, d[i].z);

		if (sl_varint64_put(out, i == 0 ? key : key - prev_key - 1, err))
			return -1;
		prev_key = key;
		refs |= d[i].frame == UINT32_MAX;
	}
	if (put_versions(d, n, out, err))
		return -1;
	for (uint32_t i = 0; i < n; i++)
	{
		if (sl_varint64_put(out, zig((int64_t) d[i].timestamp - prev_ts), err))
			return -1;
		prev_ts = d[i].timestamp;
	}
	for (int k = 0; k < SL_NCOMP_DIR; k++)
		for (uint32_t i = 0; i < n; i++)
			if (sl_varint64_put(out, d[i].len[k], err))
				return -1;
	return refs ? put_refs(d, n, out, err) : 0;
}

/* Report a malformed or too large varint of a column, naming the column and entry. */
static int
col_fail(const uint8_t *p, size_t len, size_t at, uint64_t max, const char *col,
		 uint32_t i, sl_err *err)
{
	uint64_t	v = 0;
	size_t		pos = at;

	if (sl_varint64_get(p, len, &pos, &v))
		return sl_fail(err, SL_ERR_CORRUPT,
					   "chunk directory: %s of entry %u: malformed varint at directory byte %zu",
					   col, i, at);
	return sl_fail(err, SL_ERR_CORRUPT,
				   "chunk directory: %s of entry %u is %llu (at directory byte %zu), over %llu",
				   col, i, (unsigned long long) v, at, (unsigned long long) max);
}

/* Read one varint of a column, failing with the column's name and entry. */
static inline int
get_col(const uint8_t *p, size_t len, size_t *pos, uint64_t max, uint64_t *v,
		const char *col, uint32_t i, sl_err *err)
{
	size_t		at = *pos;

	/* up to 4 bytes (28 bits) inline; longer ones through sl_varint64_get */
	if (at + 4 <= len)
	{
		uint64_t	r = p[at] & 0x7F;

		if (p[at] < 0x80)
			*pos = at + 1;
		else if ((r |= (uint64_t) (p[at + 1] & 0x7F) << 7, p[at + 1] < 0x80))
			*pos = at + 2;
		else if ((r |= (uint64_t) (p[at + 2] & 0x7F) << 14, p[at + 2] < 0x80))
			*pos = at + 3;
		else if ((r |= (uint64_t) (p[at + 3] & 0x7F) << 21, p[at + 3] < 0x80))
			*pos = at + 4;
		else
			goto slow;
		if (r > max)
			return col_fail(p, len, at, max, col, i, err);
		*v = r;
		return 0;
	}
slow:
	if (sl_varint64_get(p, len, pos, v) || *v > max)
		return col_fail(p, len, at, max, col, i, err);
	return 0;
}

/* Read the frame columns. */
static int
get_frames(const uint8_t *p, size_t len, size_t *pos, uint32_t nf, sl_frame *f, sl_err *err)
{
	for (uint32_t i = 0; i < nf; i++)
	{
		uint64_t	v[3];

		if (get_col(p, len, pos, UINT32_MAX, &v[0], "frame compressed length", i, err) ||
			get_col(p, len, pos, UINT32_MAX, &v[1], "frame raw length", i, err) ||
			get_col(p, len, pos, UINT32_MAX, &v[2], "frame chunk count", i, err))
			return -1;
		if (*pos >= len)
			return sl_fail(err, SL_ERR_CORRUPT, "chunk directory: codec of frame %u is missing", i);
		f[i].offset = 0;
		f[i].comp_len = (uint32_t) v[0];
		f[i].raw_len = (uint32_t) v[1];
		f[i].chunks = (uint32_t) v[2];
		f[i].codec = p[(*pos)++];
		if (f[i].codec > SL_CODEC_MAX)
			return sl_fail(err, SL_ERR_UNSUPPORTED,
						   "chunk directory: frame %u uses codec %u, which this build does not read",
						   i, f[i].codec);
	}
	return 0;
}

/* Read the position column: version 3 order keys, strictly increasing. */
static int
get_positions(const uint8_t *p, size_t len, size_t *pos, uint32_t n, sl_dirslot *d,
			  sl_err *err)
{
	uint64_t	key = 0,
				region = UINT64_MAX;
	int32_t		rx = 0,
				rz = 0;

	for (uint32_t i = 0; i < n; i++)
	{
		uint64_t	v;

		if (*pos < len && p[*pos] < 0x80)
			v = p[(*pos)++];	/* the common one-byte gap */
		else if (get_col(p, len, pos, UINT64_MAX, &v, "position", i, err))
			return -1;
		if (i > 0 && (v == UINT64_MAX || key + 1 + v < key + 1 || key == UINT64_MAX))
			return sl_fail(err, SL_ERR_CORRUPT, "chunk directory: position of entry %u overflows", i);
		key = i == 0 ? v : key + 1 + v;
		if ((key >> 10) != region)
		{
			/* a new region: decode its corner once */
			region = key >> 10;
			unkey3(key & ~(uint64_t) 1023, &rx, &rz);
		}
		d[i].x = (int32_t) ((uint32_t) rx | (uint32_t) (key & 31));
		d[i].z = (int32_t) ((uint32_t) rz | (uint32_t) ((key >> 5) & 31));
	}
	return 0;
}

/* Read the DataVersion runs. */
static int
get_versions(const uint8_t *p, size_t len, size_t *pos, uint32_t n, sl_dirslot *d,
			 sl_err *err)
{
	int64_t		prev = 0;

	for (uint32_t i = 0; i < n;)
	{
		uint64_t	run,
					delta;
		int64_t		dv;

		if (get_col(p, len, pos, n - i, &run, "DataVersion run", i, err) ||
			get_col(p, len, pos, UINT64_MAX, &delta, "DataVersion", i, err))
			return -1;
		dv = prev + unzig(delta);
		if (run == 0 || dv < INT32_MIN || dv > INT32_MAX)
			return sl_fail(err, SL_ERR_CORRUPT, "chunk directory: DataVersion run at entry %u is invalid", i);
		for (uint64_t k = 0; k < run; k++)
			d[i + k].data_version = (int32_t) dv;
		prev = dv;
		i += (uint32_t) run;
	}
	return 0;
}

/* Read the timestamp and length columns. */
static int
get_times_lengths(const uint8_t *p, size_t len, size_t *pos, uint32_t n,
				  sl_dirslot *d, sl_err *err)
{
	static const char *const names[SL_NCOMP_DIR] = {"region length", "entities length", "POI length"};
	int64_t		prev = 0;

	for (uint32_t i = 0; i < n; i++)
	{
		uint64_t	v;
		int64_t		ts;

		if (*pos < len && p[*pos] < 0x80)
			v = p[(*pos)++];
		else if (get_col(p, len, pos, UINT64_MAX, &v, "timestamp", i, err))
			return -1;
		ts = prev + unzig(v);
		if (ts < 0 || ts > UINT32_MAX)
			return sl_fail(err, SL_ERR_CORRUPT, "chunk directory: timestamp of entry %u is out of range", i);
		d[i].timestamp = (uint32_t) ts;
		prev = ts;
	}
	for (int k = 0; k < SL_NCOMP_DIR; k++)
		for (uint32_t i = 0; i < n; i++)
		{
			uint64_t	v;

			if (*pos < len && p[*pos] < 0x80)
				v = p[(*pos)++];
			else if (get_col(p, len, pos, UINT32_MAX, &v, names[k], i, err))
				return -1;
			d[i].len[k] = (uint32_t) v;
		}
	return 0;
}

/* Read the reference runs and mark referenced chunks, numbering them in order. */
static int
get_refs(const uint8_t *p, size_t len, size_t *pos, uint32_t n, uint32_t ref_count,
		 sl_dirslot *d, sl_err *err)
{
	uint32_t	refs = 0;
	int			is_ref = 0;

	for (uint32_t i = 0; i < n; i++)
	{
		d[i].frame = 0;
		d[i].offset = 0;
	}
	if (ref_count == 0)
		return 0;
	for (uint32_t i = 0; i < n; is_ref = !is_ref)
	{
		uint64_t	run;

		if (get_col(p, len, pos, n - i, &run, "reference run", i, err))
			return -1;
		if (run == 0 && i > 0)
			return sl_fail(err, SL_ERR_CORRUPT, "chunk directory: empty reference run at entry %u", i);
		for (uint64_t k = 0; k < run; k++)
			if (is_ref)
			{
				d[i + k].frame = UINT32_MAX;
				d[i + k].offset = refs++;
			}
		i += (uint32_t) run;
	}
	if (refs != ref_count)
		return sl_fail(err, SL_ERR_CORRUPT,
					   "chunk directory: %u chunks are references, the header says %u", refs, ref_count);
	return 0;
}

/* Read the directory columns back, checking every field. */
int
sl_vdir_decode(const uint8_t *p, size_t len, uint32_t n, uint32_t nf, uint32_t ref_count,
			   sl_dirslot *d, sl_frame *f, sl_err *err)
{
	size_t		pos = 0;

	if (get_frames(p, len, &pos, nf, f, err) ||
		get_positions(p, len, &pos, n, d, err) ||
		get_versions(p, len, &pos, n, d, err) ||
		get_times_lengths(p, len, &pos, n, d, err) ||
		get_refs(p, len, &pos, n, ref_count, d, err))
		return -1;
	if (pos != len)
		return sl_fail(err, SL_ERR_CORRUPT, "chunk directory: %zu stray bytes after its columns",
					   len - pos);
	return 0;
}
