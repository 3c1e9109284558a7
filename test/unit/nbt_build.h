/*
 * nbt_build.h - NBT written by hand, tag by tag, for the unit tests (and the
 * fuzzer's seed generator, through slimefile_gen.h): big-endian, names and
 * strings as given (ASCII in the tests), no checks. A compound is opened
 * with nb_tag(b, SL_TAG_COMPOUND, name) and closed with nb_end; a list is
 * opened with nb_list and followed by exactly count payloads.
 */
#ifndef NBT_BUILD_H
#define NBT_BUILD_H

#include <stdint.h>
#include <string.h>

#include "sl_common.h"
#include "sl_nbt.h"

/* Append a tag type and name. */
static inline void
nb_tag(sl_buf *b, int type, const char *name)
{
	sl_buf_put_u8(b, (uint8_t) type, NULL);
	sl_buf_put_u16be(b, (uint16_t) strlen(name), NULL);
	sl_buf_put(b, name, strlen(name), NULL);
}

/* Append a string payload (a list item, or after nb_tag). */
static inline void
nb_str(sl_buf *b, const char *s)
{
	sl_buf_put_u16be(b, (uint16_t) strlen(s), NULL);
	sl_buf_put(b, s, strlen(s), NULL);
}

/* Append a named string tag. */
static inline void
nb_string(sl_buf *b, const char *name, const char *s)
{
	nb_tag(b, SL_TAG_STRING, name);
	nb_str(b, s);
}

/* Append a named byte tag. */
static inline void
nb_byte(sl_buf *b, const char *name, int v)
{
	nb_tag(b, SL_TAG_BYTE, name);
	sl_buf_put_u8(b, (uint8_t) v, NULL);
}

/* Append a named short tag. */
static inline void
nb_short(sl_buf *b, const char *name, int v)
{
	nb_tag(b, SL_TAG_SHORT, name);
	sl_buf_put_u16be(b, (uint16_t) v, NULL);
}

/* Append a named int tag. */
static inline void
nb_int(sl_buf *b, const char *name, int32_t v)
{
	nb_tag(b, SL_TAG_INT, name);
	sl_buf_put_u32be(b, (uint32_t) v, NULL);
}

/* Append a named byte array of n bytes. */
static inline void
nb_bytes(sl_buf *b, const char *name, const uint8_t *p, uint32_t n)
{
	nb_tag(b, SL_TAG_BYTE_ARRAY, name);
	sl_buf_put_u32be(b, n, NULL);
	sl_buf_put(b, p, n, NULL);
}

/* Append a named int array of n ints. */
static inline void
nb_ints(sl_buf *b, const char *name, const int32_t *p, uint32_t n)
{
	nb_tag(b, SL_TAG_INT_ARRAY, name);
	sl_buf_put_u32be(b, n, NULL);
	for (uint32_t i = 0; i < n; i++)
		sl_buf_put_u32be(b, (uint32_t) p[i], NULL);
}

/* Append a named int array of three ints (a position). */
static inline void
nb_ints3(sl_buf *b, const char *name, int32_t x, int32_t y, int32_t z)
{
	int32_t		p[3] = {x, y, z};

	nb_ints(b, name, p, 3);
}

/* Append a named long array of n longs. */
static inline void
nb_longs(sl_buf *b, const char *name, const uint64_t *p, uint32_t n)
{
	nb_tag(b, SL_TAG_LONG_ARRAY, name);
	sl_buf_put_u32be(b, n, NULL);
	for (uint32_t i = 0; i < n; i++)
		sl_buf_put_u64be(b, p[i], NULL);
}

/* Append a named long array of n longs already big-endian (8n bytes at be). */
static inline void
nb_longs_be(sl_buf *b, const char *name, const uint8_t *be, uint32_t n)
{
	nb_tag(b, SL_TAG_LONG_ARRAY, name);
	sl_buf_put_u32be(b, n, NULL);
	sl_buf_put(b, be, (size_t) n * 8, NULL);
}

/* Append a named list header: element type and count (the items follow). */
static inline void
nb_list(sl_buf *b, const char *name, int elem, uint32_t count)
{
	nb_tag(b, SL_TAG_LIST, name);
	sl_buf_put_u8(b, (uint8_t) elem, NULL);
	sl_buf_put_u32be(b, count, NULL);
}

/* Close a compound. */
static inline void
nb_end(sl_buf *b)
{
	sl_buf_put_u8(b, 0, NULL);
}

/*
 * Append a chunk store entry's canonical bytes (three u32le lengths, then
 * the documents) whose one document is a region chunk naming (x,z) and
 * holding data[0..n) as a byte array: versions of one chunk for the packs'
 * delta coding.
 */
static inline void
nb_chunk_entry(sl_buf *out, int32_t x, int32_t z, const uint8_t *data, uint32_t n)
{
	size_t		at = out->len;

	sl_buf_put(out, "\0\0\0\0\0\0\0\0\0\0\0\0", 12, NULL);
	nb_tag(out, SL_TAG_COMPOUND, "");
	nb_int(out, "xPos", x);
	nb_int(out, "zPos", z);
	nb_bytes(out, "Data", data, n);
	nb_end(out);
	sl_put_u32le(out->data + at, (uint32_t) (out->len - at - 12));
}

#endif
