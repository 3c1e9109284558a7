/*
 * sl_vsum.c - a contents summary (sl_vsum.h): counting a chunk, adding and
 * taking summaries away, and their canonical bytes. A value's section of it
 * is read and checked in sl_vsum_value.c.
 */
#include "sl_vsum.h"
#include "sl_blocks.h"
#include "sl_chunk.h"
#include "sl_nbt.h"
#include "sl_vdir.h"

#include <stdlib.h>
#include <string.h>

static const char *const kind_names[SL_SUM_KINDS] = {"blocks", "biomes", "block entities", "entities"};

/* The name of a table. */
const char *
sl_vsum_kind_name(int kind)
{
	return kind >= 0 && kind < SL_SUM_KINDS ? kind_names[kind] : "?";
}

/* Tally a block state or biome under its base name, in the minecraft namespace when it names none. */
int
sl_vsum_tally(void *ctx, const char *name, size_t len, size_t base_len, uint64_t count,
			  int fallback, sl_err *err)
{
	char		buf[256];

	if (memchr(name, ':', base_len) == NULL && base_len < sizeof(buf) - 10)
	{
		memcpy(buf, "minecraft:", 10);
		memcpy(buf + 10, name, base_len);
		return sl_counts_add((sl_counts *) ctx, buf, base_len + 10, count, err);
	}
	return sl_counts_add((sl_counts *) ctx, name, base_len, count, err);
}

/* Add the string ids of a list of compounds, as UTF-8; those without one are skipped. */
int
sl_count_ids(const sl_nbt *list, sl_counts *m, sl_err *err)
{
	sl_buf		name = {0};
	int			rc = 0;

	if (list == NULL || list->v.list.elem_type != SL_TAG_COMPOUND)
		return 0;
	for (uint32_t j = 0; j < list->v.list.count && rc == 0; j++)
	{
		uint16_t	len;
		const char *id = sl_nbt_get_string(list->v.list.items[j], "id", &len);

		name.len = 0;
		if (id == NULL || sl_mutf8_to_utf8(id, len, &name, err) != 0)
			continue;
		rc = sl_counts_add(m, (const char *) name.data, name.len, 1, err);
	}
	sl_buf_free(&name);
	return rc;
}

/* Blocks (want SL_WANT_BLOCKS) or biomes of a parsed region document, as the block functions count them. */
static int
count_blocks(const sl_nbt *root, int32_t dv, int want, sl_arena *arena, sl_counts *m, sl_err *err)
{
	sl_chunk_blocks cb;

	if (sl_chunk_blocks_from_tree(root, dv, want, arena, &cb, err))
		return -1;
	for (int i = 0; i < cb.nsections; i++)
		if (sl_section_check_cap(&cb.sections[i], &sl_default_limits, err))
			return -1;
	return want == SL_WANT_BLOCKS ? sl_chunk_count_blocks(&cb, sl_vsum_tally, m, err) :
		sl_chunk_count_biomes(&cb, sl_vsum_tally, m, err);
}

/* Record the outcome of counting one table of a chunk: a failure other than memory is the chunk's, not ours. */
static int
outcome(int rc, int kind, int ok[SL_SUM_KINDS], sl_err *err)
{
	if (rc == 0)
		return 0;
	if (err->code == SL_ERR_NOMEM)
		return -1;
	ok[kind] = 0;
	return 0;
}

/* Count one chunk and add it to s (sign +1) or take it away (-1). */
int
sl_vsum_chunk(sl_vsum *s, int32_t dv, const uint8_t *const comp[SL_NCOMP],
			  const uint32_t len[SL_NCOMP], int sign, sl_err *err)
{
	sl_vsum		one;
	int			ok[SL_SUM_KINDS] = {1, 1, 1, 1};
	sl_arena	arena = {0};
	sl_nbt	   *root;
	size_t		used;
	int			rc = -1;

	memset(&one, 0, sizeof(one));
	if (len[SL_COMP_REGION])
	{
		if (sl_nbt_parse(comp[SL_COMP_REGION], len[SL_COMP_REGION], &sl_default_limits, &arena,
						 &root, &used, err))
		{
			if (err->code == SL_ERR_NOMEM)
				goto done;
			ok[SL_SUM_BLOCKS] = ok[SL_SUM_BIOMES] = ok[SL_SUM_BLOCK_ENTITIES] = ok[SL_SUM_ENTITIES] = 0;
		}
		else if (outcome(count_blocks(root, dv, SL_WANT_BLOCKS, &arena, &one.c[SL_SUM_BLOCKS], err),
						 SL_SUM_BLOCKS, ok, err) ||
				 outcome(count_blocks(root, dv, SL_WANT_BIOMES, &arena, &one.c[SL_SUM_BIOMES], err),
						 SL_SUM_BIOMES, ok, err) ||
				 outcome(sl_count_ids(sl_chunk_block_entities(root), &one.c[SL_SUM_BLOCK_ENTITIES], err),
						 SL_SUM_BLOCK_ENTITIES, ok, err) ||
				 outcome(sl_count_ids(sl_chunk_entities(root), &one.c[SL_SUM_ENTITIES], err),
						 SL_SUM_ENTITIES, ok, err))
			goto done;
		sl_arena_free(&arena);
	}
	if (len[SL_COMP_ENTITIES] && ok[SL_SUM_ENTITIES])
	{
		if (sl_nbt_parse(comp[SL_COMP_ENTITIES], len[SL_COMP_ENTITIES], &sl_default_limits, &arena,
						 &root, &used, err))
		{
			if (err->code == SL_ERR_NOMEM)
				goto done;
			ok[SL_SUM_ENTITIES] = 0;
		}
		else if (outcome(sl_count_ids(sl_chunk_entities(root), &one.c[SL_SUM_ENTITIES], err),
						 SL_SUM_ENTITIES, ok, err))
			goto done;
	}
	for (int k = 0; k < SL_SUM_KINDS; k++)
		if (!ok[k])
		{
			sl_counts_free(&one.c[k]);
			one.failed[k] = 1;
		}
	rc = sl_vsum_add(s, &one, sign, err);
done:
	sl_arena_free(&arena);
	sl_vsum_free(&one);
	return rc;
}

/* Add src to dst, or take it away. */
int
sl_vsum_add(sl_vsum *dst, const sl_vsum *src, int sign, sl_err *err)
{
	for (int k = 0; k < SL_SUM_KINDS; k++)
	{
		const sl_counts *m = &src->c[k];

		if (sign < 0 && dst->failed[k] < src->failed[k])
			return sl_fail(err, SL_ERR_CORRUPT,
						   "contents summary does not match the chunks: %s: %llu chunks not counted, fewer than %llu",
						   kind_names[k], (unsigned long long) dst->failed[k],
						   (unsigned long long) src->failed[k]);
		dst->failed[k] = sign < 0 ? dst->failed[k] - src->failed[k] : dst->failed[k] + src->failed[k];
		for (size_t i = 0; i < m->size; i++)
		{
			const sl_count_entry *e = &m->slots[i];

			if (e->hash == 0 || e->count == 0)
				continue;
			if (sign > 0 ? sl_counts_add(&dst->c[k], e->name, e->len, e->count, err) :
				sl_counts_sub(&dst->c[k], e->name, e->len, e->count, err))
			{
				if (err->code == SL_ERR_CORRUPT)
					sl_err_prefix(err, "contents summary does not match the chunks: %s", kind_names[k]);
				return -1;
			}
		}
	}
	return 0;
}

/* Bytes name a and name b share at their start. */
static size_t
shared_prefix(const char *a, size_t alen, const char *b, size_t blen)
{
	size_t		n = 0;

	while (n < alen && n < blen && a[n] == b[n])
		n++;
	return n;
}

/* Append one table: failed count, entry count, entries front-coded in name order. */
static int
encode_table(const sl_counts *m, uint64_t failed, sl_buf *out, sl_err *err)
{
	sl_count_entry **v = sl_counts_sorted(m, err);
	uint64_t	n = 0;
	const sl_count_entry *prev = NULL;
	int			rc = -1;

	if (v == NULL)
		return -1;
	for (size_t i = 0; i < m->used; i++)
		n += v[i]->count > 0;
	if (sl_varint64_put(out, failed, err) || sl_varint64_put(out, n, err))
		goto done;
	for (size_t i = 0; i < m->used; i++)
	{
		const sl_count_entry *e = v[i];
		size_t		shared;

		if (e->count == 0)
			continue;
		if (e->len > SL_VSUM_MAX_NAME || e->count > SL_VSUM_MAX_COUNT)
		{
			sl_fail(err, SL_ERR_LIMIT, "contents summary: a name of %u bytes or a count of %llu is past what it holds",
					e->len, (unsigned long long) e->count);
			goto done;
		}
		shared = prev ? shared_prefix(prev->name, prev->len, e->name, e->len) : 0;
		if (sl_varint64_put(out, shared, err) || sl_varint64_put(out, e->len - shared, err) ||
			sl_buf_put(out, e->name + shared, e->len - shared, err) ||
			sl_varint64_put(out, e->count, err))
			goto done;
		prev = e;
	}
	rc = 0;
done:
	sl_free(v);
	return rc;
}

/* Append the canonical raw bytes of a summary. */
int
sl_vsum_encode(const sl_vsum *s, sl_buf *out, sl_err *err)
{
	if (sl_buf_put_u8(out, SL_VSUM_VERSION, err))
		return -1;
	for (int k = 0; k < SL_SUM_KINDS; k++)
		if (encode_table(&s->c[k], s->failed[k], out, err))
			return -1;
	return 0;
}

/* Read a varint of a summary, naming what it is in the error. */
static int
get_varint(const uint8_t *p, size_t len, size_t *pos, uint64_t *v, int kind, uint64_t entry,
		   const char *what, sl_err *err)
{
	size_t		at = *pos;

	if (sl_varint64_get(p, len, pos, v))
		return sl_fail(err, SL_ERR_CORRUPT, "contents summary: %s: entry %llu: %s at byte %zu is not a valid varint",
					   kind_names[kind], (unsigned long long) entry, what, at);
	return 0;
}

/* Read one table into m, checking its canonical form. */
static int
decode_table(const uint8_t *p, size_t len, size_t *pos, int kind, sl_counts *m,
			 uint64_t *failed, sl_err *err)
{
	uint64_t	n,
				f;
	sl_buf		name = {0};
	int			rc = -1;

	if (get_varint(p, len, pos, &f, kind, 0, "failed count", err) ||
		get_varint(p, len, pos, &n, kind, 0, "entry count", err))
		return -1;
	if (f > SL_VSUM_MAX_COUNT - *failed)
		return sl_fail(err, SL_ERR_CORRUPT, "contents summary: %s: failed count %llu is out of range",
					   kind_names[kind], (unsigned long long) f);
	*failed += f;
	/* every entry takes at least 3 bytes */
	if (n > (len - *pos) / 3)
		return sl_fail(err, SL_ERR_CORRUPT, "contents summary: %s: %llu entries in %zu bytes",
					   kind_names[kind], (unsigned long long) n, len - *pos);
	for (uint64_t i = 0; i < n; i++)
	{
		uint64_t	shared,
					rest,
					count;
		size_t		prev_len = name.len;
		int			c;

		if ((i & 1023) == 1023)
			sl_interrupt();
		if (get_varint(p, len, pos, &shared, kind, i, "shared length", err) ||
			get_varint(p, len, pos, &rest, kind, i, "name length", err))
			goto done;
		if (shared > prev_len || rest > SL_VSUM_MAX_NAME || shared + rest > SL_VSUM_MAX_NAME ||
			rest > len - *pos || (i == 0 && shared != 0))
		{
			sl_fail(err, SL_ERR_CORRUPT, "contents summary: %s: entry %llu: name lengths %llu + %llu do not fit",
					kind_names[kind], (unsigned long long) i, (unsigned long long) shared,
					(unsigned long long) rest);
			goto done;
		}
		/* canonical: names strictly increasing, the shared part as long as it can be */
		c = i == 0 ? 1 : rest == 0 ? -1 :
			shared == prev_len ? 1 : (int) p[*pos] - (int) name.data[shared];
		if (c <= 0)
		{
			sl_fail(err, SL_ERR_CORRUPT, "contents summary: %s: entry %llu is out of order or not front-coded",
					kind_names[kind], (unsigned long long) i);
			goto done;
		}
		name.len = (size_t) shared;
		if (sl_buf_put(&name, p + *pos, (size_t) rest, err))
			goto done;
		*pos += (size_t) rest;
		if (get_varint(p, len, pos, &count, kind, i, "count", err))
			goto done;
		if (count == 0 || count > SL_VSUM_MAX_COUNT)
		{
			sl_fail(err, SL_ERR_CORRUPT, "contents summary: %s: entry %llu: count %llu is out of range",
					kind_names[kind], (unsigned long long) i, (unsigned long long) count);
			goto done;
		}
		if (m && sl_counts_add(m, (const char *) name.data, name.len, count, err))
			goto done;
	}
	rc = 0;
done:
	sl_buf_free(&name);
	return rc;
}

/* Add the summary whose raw bytes are p[0..len) to s. */
int
sl_vsum_decode(const uint8_t *p, size_t len, sl_vsum *s, sl_err *err)
{
	size_t		pos = 1;

	if (len < 1 || p[0] != SL_VSUM_VERSION)
		return sl_fail(err, SL_ERR_CORRUPT, "contents summary: version %d is not %d",
					   len < 1 ? -1 : p[0], SL_VSUM_VERSION);
	for (int k = 0; k < SL_SUM_KINDS; k++)
		if (decode_table(p, len, &pos, k, &s->c[k], &s->failed[k], err))
			return -1;
	if (pos != len)
		return sl_fail(err, SL_ERR_CORRUPT, "contents summary: %zu stray bytes after its tables", len - pos);
	return 0;
}

/* Add table kind of the summary whose raw bytes are p[0..len) to m, unless a chunk was not counted for it. */
int
sl_vsum_decode_table(const uint8_t *p, size_t len, int kind, sl_counts *m, uint64_t *failed,
					 sl_err *err)
{
	size_t		pos = 1;
	size_t		at;

	*failed = 0;
	if (len < 1 || p[0] != SL_VSUM_VERSION)
		return sl_fail(err, SL_ERR_CORRUPT, "contents summary: version %d is not %d",
					   len < 1 ? -1 : p[0], SL_VSUM_VERSION);
	if (kind < 0 || kind >= SL_SUM_KINDS)
		return sl_fail(err, SL_ERR_INVALID, "contents summary: no table %d", kind);
	for (int k = 0; k < kind; k++)
	{
		uint64_t	f = 0;

		if (decode_table(p, len, &pos, k, NULL, &f, err))
			return -1;
	}
	/* the failed count comes first: a table not counted whole adds nothing */
	at = pos;
	if (get_varint(p, len, &at, failed, kind, 0, "failed count", err))
		return -1;
	if (*failed)
		return 0;
	return decode_table(p, len, &pos, kind, m, failed, err);
}

/* Whether map a holds every nonzero count of b, equally. */
static int
counts_within(const sl_counts *a, const sl_counts *b)
{
	for (size_t i = 0; i < b->size; i++)
	{
		const sl_count_entry *e = &b->slots[i];

		if (e->hash && e->count && sl_counts_get(a, e->name, e->len) != e->count)
			return 0;
	}
	return 1;
}

/* Whether two summaries hold the same counts. */
int
sl_vsum_equal(const sl_vsum *a, const sl_vsum *b, sl_err *err)
{
	for (int k = 0; k < SL_SUM_KINDS; k++)
		if (a->failed[k] != b->failed[k] || !counts_within(&a->c[k], &b->c[k]) ||
			!counts_within(&b->c[k], &a->c[k]))
			return 0;
	return 1;
}

/* Free a summary's tables. */
void
sl_vsum_free(sl_vsum *s)
{
	for (int k = 0; k < SL_SUM_KINDS; k++)
		sl_counts_free(&s->c[k]);
	memset(s, 0, sizeof(*s));
}
