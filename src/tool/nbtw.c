/*
 * nbtw.c - a small streaming NBT writer for slimetool's world generator:
 * each call appends one tag; the first failure sticks and nw_finish
 * reports it, then checks the document with the core's NBT checker.
 */
#include "nbtw.h"
#include "tool.h"

#include <string.h>

#include "sl_nbt.h"

/* Append raw bytes. */
void
nw_raw(nbtw *w, const void *p, size_t n)
{
	if (!w->failed && sl_buf_put(&w->buf, p, n, &w->err))
		w->failed = 1;
}

/* Append a big-endian unsigned integer of 1, 2, 4 or 8 bytes. */
void
nw_be(nbtw *w, uint64_t v, int bytes)
{
	uint8_t		b[8];

	for (int i = 0; i < bytes; i++)
		b[i] = (uint8_t) (v >> (8 * (bytes - 1 - i)));
	nw_raw(w, b, (size_t) bytes);
}

/* Append a string payload (u16 length + ASCII bytes). */
void
nw_str(nbtw *w, const char *s)
{
	size_t		n = strlen(s);

	nw_be(w, n, 2);
	nw_raw(w, s, n);
}

/* Append a tag's type and name. */
void
nw_tag(nbtw *w, int type, const char *name)
{
	nw_be(w, (uint64_t) type, 1);
	nw_str(w, name);
}

/* Append named scalar tags. */
void
nw_byte(nbtw *w, const char *name, int v)
{
	nw_tag(w, SL_TAG_BYTE, name);
	nw_be(w, (uint8_t) v, 1);
}

void
nw_short(nbtw *w, const char *name, int v)
{
	nw_tag(w, SL_TAG_SHORT, name);
	nw_be(w, (uint16_t) v, 2);
}

void
nw_int(nbtw *w, const char *name, int32_t v)
{
	nw_tag(w, SL_TAG_INT, name);
	nw_be(w, (uint32_t) v, 4);
}

void
nw_long(nbtw *w, const char *name, int64_t v)
{
	nw_tag(w, SL_TAG_LONG, name);
	nw_be(w, (uint64_t) v, 8);
}

/* Append a float or double payload. */
void
nw_float_v(nbtw *w, float v)
{
	uint32_t	u;

	memcpy(&u, &v, 4);
	nw_be(w, u, 4);
}

void
nw_double_v(nbtw *w, double v)
{
	uint64_t	u;

	memcpy(&u, &v, 8);
	nw_be(w, u, 8);
}

void
nw_float(nbtw *w, const char *name, float v)
{
	nw_tag(w, SL_TAG_FLOAT, name);
	nw_float_v(w, v);
}

void
nw_string(nbtw *w, const char *name, const char *v)
{
	nw_tag(w, SL_TAG_STRING, name);
	nw_str(w, v);
}

/* Open a named compound; close it with w_end. */
void
nw_compound(nbtw *w, const char *name)
{
	nw_tag(w, SL_TAG_COMPOUND, name);
}

void
nw_end(nbtw *w)
{
	nw_be(w, SL_TAG_END, 1);
}

/* Open a named list of count elements of type elem. */
void
nw_list(nbtw *w, const char *name, int elem, uint32_t count)
{
	nw_tag(w, SL_TAG_LIST, name);
	nw_be(w, (uint64_t) elem, 1);
	nw_be(w, count, 4);
}

void
nw_double(nbtw *w, const char *name, double v)
{
	nw_tag(w, SL_TAG_DOUBLE, name);
	nw_double_v(w, v);
}

/* Append a named byte array. */
void
nw_byte_array(nbtw *w, const char *name, const uint8_t *v, uint32_t n)
{
	nw_tag(w, SL_TAG_BYTE_ARRAY, name);
	nw_be(w, n, 4);
	nw_raw(w, v, n);
}

/* Append a named int array. */
void
nw_int_array(nbtw *w, const char *name, const int32_t *v, uint32_t n)
{
	nw_tag(w, SL_TAG_INT_ARRAY, name);
	nw_be(w, n, 4);
	for (uint32_t i = 0; i < n; i++)
		nw_be(w, (uint32_t) v[i], 4);
}

/* Append a named long array. */
void
nw_long_array(nbtw *w, const char *name, const uint64_t *v, uint32_t n)
{
	nw_tag(w, SL_TAG_LONG_ARRAY, name);
	nw_be(w, n, 4);
	for (uint32_t i = 0; i < n; i++)
		nw_be(w, v[i], 8);
}

/* Check a finished document with the core's NBT checker. */
int
nw_finish(nbtw *w, const char *what)
{
	size_t		used;

	if (w->failed)
		return tool_fail_err(&w->err, what);
	if (sl_nbt_check(w->buf.data, w->buf.len, 0, &sl_default_limits, &used, &w->err))
		return tool_fail_err(&w->err, what);
	if (used != w->buf.len)
		return tool_fail("%s: generated NBT has trailing bytes", what);
	return 0;
}
