/*
 * sl_counts.c - a name -> count map with open addressing.
 */
#include "sl_counts.h"

#include <stdlib.h>
#include <string.h>

/* FNV-1a of the name, never 0 (0 marks an empty slot). */
static uint64_t
name_hash(const char *s, size_t len)
{
	uint64_t	h = sl_fnv1a(s, len);

	return h ? h : 1;
}

/* Whether entry e is named name (len bytes; NULL when len is 0, as an empty buffer gives). */
static int
same_name(const sl_count_entry *e, uint64_t h, const char *name, size_t len)
{
	return e->hash == h && e->len == len && (len == 0 || memcmp(e->name, name, len) == 0);
}

/* Double the slot array and re-insert every entry. */
static int
grow(sl_counts *m, sl_err *err)
{
	size_t		size = m->size ? m->size * 2 : 64;
	sl_count_entry *slots = sl_alloc_err(size * sizeof(sl_count_entry), err);

	if (slots == NULL)
		return -1;
	memset(slots, 0, size * sizeof(sl_count_entry));
	for (size_t i = 0; i < m->size; i++)
	{
		size_t		j;

		if (m->slots[i].hash == 0)
			continue;
		for (j = m->slots[i].hash & (size - 1); slots[j].hash; j = (j + 1) & (size - 1))
			;
		slots[j] = m->slots[i];
	}
	sl_free(m->slots);
	m->slots = slots;
	m->size = size;
	return 0;
}

/* Add count to name. */
int
sl_counts_add(sl_counts *m, const char *name, size_t len, uint64_t count, sl_err *err)
{
	uint64_t	h = name_hash(name, len);
	size_t		j;

	if (len > UINT32_MAX)
		return sl_fail(err, SL_ERR_LIMIT, "name of %zu bytes is too long", len);
	if ((m->used + 1) * 2 > m->size && grow(m, err))
		return -1;
	for (j = h & (m->size - 1); m->slots[j].hash; j = (j + 1) & (m->size - 1))
	{
		sl_count_entry *e = &m->slots[j];

		if (same_name(e, h, name, len))
		{
			e->count += count;
			return 0;
		}
	}
	m->slots[j].name = sl_arena_alloc(&m->names, len ? len : 1, err);
	if (m->slots[j].name == NULL)
		return -1;
	if (len)
		memcpy(m->slots[j].name, name, len);
	m->slots[j].hash = h;
	m->slots[j].len = (uint32_t) len;
	m->slots[j].count = count;
	m->used++;
	return 0;
}

/* The slot of name, NULL when absent. */
static sl_count_entry *
find(const sl_counts *m, const char *name, size_t len)
{
	uint64_t	h = name_hash(name, len);

	if (m->size == 0)
		return NULL;
	for (size_t j = h & (m->size - 1); m->slots[j].hash; j = (j + 1) & (m->size - 1))
	{
		sl_count_entry *e = &m->slots[j];

		if (same_name(e, h, name, len))
			return e;
	}
	return NULL;
}

/* Take count away from name. */
int
sl_counts_sub(sl_counts *m, const char *name, size_t len, uint64_t count, sl_err *err)
{
	sl_count_entry *e = find(m, name, len);

	if (count == 0)
		return 0;
	if (e == NULL || e->count < count)
		return sl_fail(err, SL_ERR_CORRUPT, "holds %llu of \"%.*s\", fewer than the %llu taken away",
					   (unsigned long long) (e ? e->count : 0), (int) (len > 200 ? 200 : len), name,
					   (unsigned long long) count);
	e->count -= count;
	return 0;
}

/* The count of name, 0 when absent. */
uint64_t
sl_counts_get(const sl_counts *m, const char *name, size_t len)
{
	sl_count_entry *e = find(m, name, len);

	return e ? e->count : 0;
}

/* Add every entry of src to dst. */
int
sl_counts_merge(sl_counts *dst, const sl_counts *src, sl_err *err)
{
	for (size_t i = 0; i < src->size; i++)
		if (src->slots[i].hash &&
			sl_counts_add(dst, src->slots[i].name, src->slots[i].len, src->slots[i].count, err))
			return -1;
	return 0;
}

/* Order entries by name bytes. */
static int
cmp_entries(const void *a, const void *b)
{
	const sl_count_entry *x = *(const sl_count_entry *const *) a;
	const sl_count_entry *y = *(const sl_count_entry *const *) b;
	int			c = memcmp(x->name, y->name, x->len < y->len ? x->len : y->len);

	return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* Entries sorted by name. */
sl_count_entry **
sl_counts_sorted(const sl_counts *m, sl_err *err)
{
	sl_count_entry **v = sl_alloc_err((m->used ? m->used : 1) * sizeof(sl_count_entry *), err);
	size_t		n = 0;

	if (v == NULL)
		return NULL;
	for (size_t i = 0; i < m->size; i++)
		if (m->slots[i].hash)
			v[n++] = &m->slots[i];
	qsort(v, n, sizeof(sl_count_entry *), cmp_entries);
	return v;
}

/* Serialize the map. */
int
sl_counts_serialize(const sl_counts *m, sl_buf *out, sl_err *err)
{
	uint8_t		t[12];

	sl_put_u32le(t, (uint32_t) m->used);
	if (sl_buf_put(out, t, 4, err))
		return -1;
	for (size_t i = 0; i < m->size; i++)
	{
		const sl_count_entry *e = &m->slots[i];

		if (e->hash == 0)
			continue;
		sl_put_u32le(t, (uint32_t) e->count);
		sl_put_u32le(t + 4, (uint32_t) (e->count >> 32));
		sl_put_u32le(t + 8, e->len);
		if (sl_buf_put(out, t, 12, err) || sl_buf_put(out, e->name, e->len, err))
			return -1;
	}
	return 0;
}

/* Add the entries of a serialized map to m. */
int
sl_counts_deserialize(sl_counts *m, const uint8_t *buf, size_t len, sl_err *err)
{
	size_t		pos = 4;
	uint32_t	n;

	if (len < 4)
		return sl_fail(err, SL_ERR_CORRUPT, "count map of %zu bytes is truncated", len);
	n = sl_get_u32le(buf);
	for (uint32_t i = 0; i < n; i++)
	{
		uint64_t	count;
		uint32_t	nlen;

		if (len - pos < 12)
			return sl_fail(err, SL_ERR_CORRUPT, "count map entry %u is truncated", i);
		count = sl_get_u32le(buf + pos) | ((uint64_t) sl_get_u32le(buf + pos + 4) << 32);
		nlen = sl_get_u32le(buf + pos + 8);
		pos += 12;
		if (len - pos < nlen)
			return sl_fail(err, SL_ERR_CORRUPT, "count map entry %u is truncated", i);
		if (sl_counts_add(m, (const char *) buf + pos, nlen, count, err))
			return -1;
		pos += nlen;
	}
	return 0;
}

/* Free the map. */
void
sl_counts_free(sl_counts *m)
{
	sl_free(m->slots);
	sl_arena_free(&m->names);
	memset(m, 0, sizeof(*m));
}
