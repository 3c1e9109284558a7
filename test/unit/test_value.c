/*
 * test_value.c - unit tests of sl_value (format v1 and v2), the chunk store
 * entries of sl_store and the reference pieces of sl_build: both versions
 * of the same chunks, canonical re-encoding, the reference form and its
 * resolver, damaged entries and damaged v2 headers.
 */
#include "harness.h"
#include "nbt_build.h"

#include "sl_bcodec.h"
#include "sl_build.h"
#include "sl_codec.h"
#include "sl_nbt.h"
#include "sl_store.h"
#include "sl_value.h"
#include "sl_vsum.h"
#include "sl_zstd.h"

#include <stdint.h>
#include <zstd.h>

/* ---- helpers: small chunk documents built by hand ---- */

#define TV_N 6					/* chunks of the test world */

/*
 * A chunk-like document: root compound with DataVersion (dv < 0: none), a
 * status string, a position and a byte array of n deterministic bytes.
 */
static void
tv_doc(sl_buf *b, int32_t dv, uint32_t seed, uint32_t n)
{
	uint32_t	s = seed * 2654435761u + 1;

	b->len = 0;
	nb_tag(b, SL_TAG_COMPOUND, "");
	if (dv >= 0)
		nb_int(b, "DataVersion", dv);
	nb_string(b, "Status", seed & 1 ? "minecraft:full" : "minecraft:features");
	nb_int(b, "xPos", (int32_t) seed);
	nb_tag(b, SL_TAG_BYTE_ARRAY, "Data");
	sl_buf_put_u32be(b, n, NULL);
	for (uint32_t i = 0; i < n; i++)
	{
		s ^= s << 13;
		s ^= s >> 17;
		s ^= s << 5;
		sl_buf_put_u8(b, (uint8_t) ("stone dirt air "[s % 15]), NULL);
	}
	sl_buf_put_u8(b, 0, NULL);
}

/* The chunks of a small test world and their documents. */
typedef struct tv_set
{
	sl_buf		doc[TV_N][SL_NCOMP];
	sl_chunk_src src[TV_N];
	sl_buf		world;
	size_t		n;
} tv_set;

/*
 * Six chunks: region only, all three components, entities only (its
 * DataVersion taken from there), region + POI, a larger region chunk, and
 * a region chunk without a DataVersion; plus a world compound.
 */
static void
tv_set_make(tv_set *s)
{
	static const int32_t pos[TV_N][2] = {{0, 0}, {1, 0}, {-1, 2}, {5, -3}, {-7, -7}, {100, 31}};
	/* bit k set: component k present */
	static const int comps[TV_N] = {1, 7, 2, 5, 1, 1};

	memset(s, 0, sizeof(*s));
	s->n = TV_N;
	for (int i = 0; i < TV_N; i++)
	{
		sl_chunk_src *c = &s->src[i];

		c->x = pos[i][0];
		c->z = pos[i][1];
		c->timestamp = 1000 + i;
		c->data_version = SL_NO_DV;
		for (int k = 0; k < SL_NCOMP; k++)
		{
			if (!(comps[i] & (1 << k)))
				continue;
			tv_doc(&s->doc[i][k], i == 5 ? -1 : 3465 + i + 10 * k, i * 3 + k + 1,
				   i == 4 ? 3000 : 40 + 17 * i + 5 * k);
			c->comp[k] = s->doc[i][k].data;
			c->len[k] = (uint32_t) s->doc[i][k].len;
			if (c->data_version == SL_NO_DV)
				c->data_version = sl_data_version(c->comp[k], c->len[k], &sl_default_limits);
		}
	}
	tv_doc(&s->world, 3465, 99, 24);
}

static void
tv_set_free(tv_set *s)
{
	for (int i = 0; i < TV_N; i++)
		for (int k = 0; k < SL_NCOMP; k++)
			sl_buf_free(&s->doc[i][k]);
	sl_buf_free(&s->world);
}

/* Encode options: format version (0 current) and one frame per chunk or not. */
static sl_encode_opts
tv_opts(int version, int multi)
{
	sl_encode_opts o = sl_default_encode_opts;

	o.version = version;
	if (multi)
	{
		o.frame_target = 1;
		o.base_target = 1;
		o.single_frame_max = 0;
		o.prefix_ratio = 0;		/* v3: frames after the first always use its prefix */
	}
	return o;
}

/* Encode the set (with its world when world) into out. */
static int
tv_encode(const tv_set *s, int world, int version, int multi, sl_buf *out)
{
	sl_encode_opts o = tv_opts(version, multi);
	sl_err		err;

	out->len = 0;
	if (sl_value_encode(s->src, s->n, world ? s->world.data : NULL, world ? s->world.len : 0,
						&o, NULL, out, &err))
	{
		fprintf(stderr, "tv_encode: %s\n", err.msg);
		return -1;
	}
	return 0;
}

/* ---- an in-memory chunk store ---- */

#define TV_STORE_MAX 16

typedef struct tv_store
{
	int			n;
	uint8_t		key[TV_STORE_MAX][32];
	sl_buf		entry[TV_STORE_MAX];
	int			calls;
} tv_store;

/* sl_resolve_fn: look the entry up by the reference's hash. */
static int
tv_resolve(void *ctx, const sl_dirent *d, const uint8_t **entry, size_t *len, int *checked,
		   sl_err *err)
{
	tv_store   *st = ctx;
	char		hex[65];

	st->calls++;
	for (int i = 0; i < st->n; i++)
		if (memcmp(st->key[i], d->hash, 32) == 0)
		{
			*entry = st->entry[i].data;
			*len = st->entry[i].len;
			return 0;
		}
	sl_hash_hex(d->hash, hex);
	return sl_fail(err, SL_ERR_NOTFOUND, "chunk store entry %s is missing", hex);
}

/* Put raw entry bytes under key (replacing an entry of the same key). */
static void
tv_store_put(tv_store *st, const uint8_t key[32], const uint8_t *entry, size_t len)
{
	int			i;

	for (i = 0; i < st->n; i++)
		if (memcmp(st->key[i], key, 32) == 0)
			break;
	if (i == st->n)
	{
		if (st->n == TV_STORE_MAX)
			abort();
		st->n++;
	}
	memcpy(st->key[i], key, 32);
	st->entry[i].len = 0;
	sl_buf_put(&st->entry[i], entry, len, NULL);
}

/* Encode chunk c as an entry and store it; its key into key (may be NULL). */
static void
tv_store_chunk(tv_store *st, const sl_chunk_src *c, uint8_t *key)
{
	sl_buf		e = {0};
	uint8_t		h[32];
	sl_err		err;

	CHECK_OK(sl_store_entry_encode(c->len, c->comp, 3, &e, h, &err), &err);
	tv_store_put(st, h, e.data, e.len);
	if (key)
		memcpy(key, h, 32);
	sl_buf_free(&e);
}

/* A store holding every chunk of the set. */
static void
tv_store_fill(tv_store *st, const tv_set *s)
{
	memset(st, 0, sizeof(*st));
	for (size_t i = 0; i < s->n; i++)
		tv_store_chunk(st, &s->src[i], NULL);
}

static void
tv_store_free(tv_store *st)
{
	for (int i = 0; i < TV_STORE_MAX; i++)
		sl_buf_free(&st->entry[i]);
	memset(st, 0, sizeof(*st));
}

/* ---- helpers: reading and rebuilding values ---- */

/* Open a value held in memory; with st, references resolve through it. */
static int
tv_open(sl_value *v, const sl_buf *val, tv_store *st, sl_err *err)
{
	if (sl_value_open_mem(v, val->data, val->len, NULL, err))
		return -1;
	if (st)
	{
		v->resolve = tv_resolve;
		v->resolve_ctx = st;
	}
	return 0;
}

/*
 * Every chunk of the value reads back as the set's chunk (same position,
 * DataVersion, timestamp, lengths and bytes), and the world too (when
 * world). Returns the number of differences.
 */
static int
tv_same_chunks(const sl_buf *val, const tv_set *s, int world, tv_store *st)
{
	sl_value	v;
	sl_err		err;
	int			bad = 0;
	const uint8_t *w;
	size_t		wlen;

	if (tv_open(&v, val, st, &err))
	{
		fprintf(stderr, "tv_same_chunks: open: %s\n", err.msg);
		return 1;
	}
	if (v.hdr.chunk_count != s->n)
		bad++;
	for (size_t i = 0; i < s->n && !bad; i++)
	{
		const sl_chunk_src *c = &s->src[i];
		int64_t		at = sl_value_find(&v, c->x, c->z);
		sl_dirent	d;
		const uint8_t *comp[SL_NCOMP];

		if (at < 0)
		{
			bad++;
			break;
		}
		if (sl_value_chunk(&v, (uint32_t) at, &d, comp, &err))
		{
			fprintf(stderr, "tv_same_chunks: chunk (%d,%d): %s\n", c->x, c->z, err.msg);
			bad++;
			break;
		}
		if (d.x != c->x || d.z != c->z || d.data_version != c->data_version ||
			d.timestamp != c->timestamp)
			bad++;
		for (int k = 0; k < SL_NCOMP; k++)
		{
			if (d.len[k] != c->len[k])
				bad++;
			else if (d.len[k] && memcmp(comp[k], c->comp[k], d.len[k]) != 0)
				bad++;
			else if (d.len[k] == 0 && comp[k] != NULL)
				bad++;
		}
	}
	if (!bad && sl_value_world(&v, &w, &wlen, &err) == 0)
	{
		if (world ? (wlen != s->world.len || memcmp(w, s->world.data, wlen) != 0) : wlen != 0)
			bad++;
	}
	else if (!bad)
		bad++;
	sl_value_close(&v);
	return bad;
}

/* sl_value_content_hash of a value in memory. */
static int
tv_content_hash(const sl_buf *val, uint8_t out[32])
{
	sl_value	v;
	sl_err		err;
	int			rc;

	if (sl_value_open_mem(&v, val->data, val->len, NULL, &err))
		return -1;
	rc = sl_value_content_hash(&v, out, &err);
	if (rc)
		fprintf(stderr, "tv_content_hash: %s\n", err.msg);
	sl_value_close(&v);
	return rc;
}

/*
 * Rebuild a value through a builder: every chunk (and the world) added with
 * mode, or chunk by chunk with refs_mask choosing SL_ADD_REFS (bit set,
 * counted in directory order) or SL_ADD_KEEP. refs_mask < 0: whole value.
 */
static int
tv_rebuild(const sl_buf *val, tv_store *st, sl_add_mode mode, long refs_mask,
		   const sl_encode_opts *opts, sl_buf *out, sl_err *err)
{
	sl_value	v;
	sl_builder	b;
	int			rc = -1;

	memset(&b, 0, sizeof(b));
	out->len = 0;
	if (tv_open(&v, val, st, err))
		return -1;
	if (refs_mask < 0)
	{
		if (sl_builder_add_value(&b, &v, mode, err))
			goto done;
	}
	else
	{
		/* chunk by chunk, keeping the value's summary as callers that do this do */
		b.sum_manual = 1;
		for (uint32_t i = 0; i < v.hdr.chunk_count; i++)
			if (sl_builder_add_chunk(&b, &v, i, (refs_mask >> i) & 1 ? SL_ADD_REFS : SL_ADD_KEEP, err))
				goto done;
		if (sl_builder_add_world(&b, &v, err) || sl_builder_sum_value(&b, &v, err))
			goto done;
	}
	rc = sl_builder_encode(&b, opts, NULL, out, err);
done:
	sl_builder_free(&b);
	sl_value_close(&v);
	return rc;
}

/* Header of a value in memory, summary included (zeroed when it does not open). */
static sl_header
tv_header(const sl_buf *val)
{
	sl_header	h;
	sl_value	v;
	sl_err		err;

	memset(&h, 0, sizeof(h));
	if (sl_value_open_mem(&v, val->data, val->len, NULL, &err) == 0)
		h = v.hdr;
	sl_value_close(&v);
	return h;
}

static int
tv_same_bytes(const sl_buf *a, const sl_buf *b)
{
	return a->len == b->len && memcmp(a->data, b->data, a->len) == 0;
}

/* Recompute the metadata CRC: bytes [0, payload_offset), field 72..75 as zero. */
static void
tv_fix_crc(uint8_t *val)
{
	uint32_t	payload = sl_get_u32le(val + 24);

	sl_put_u32le(val + 72, 0);
	sl_put_u32le(val + 72, sl_crc32(0, val, payload));
}

/* Byte offset of directory entry i. */
static size_t
tv_dirent_at(uint32_t i)
{
	return SL_HEADER_SIZE + (size_t) i * SL_DIRENT_SIZE;
}

/*
 * The damaged value fails both the structural check and the full verify
 * with SL_ERR_CORRUPT and a message containing want (structural: only
 * when structural is set; else it must pass and only the verify fail).
 */
static int
tv_corrupt(const sl_buf *val, int structural, const char *want)
{
	sl_err		err;
	int			ok = 1;

	memset(&err, 0, sizeof(err));
	if (structural)
	{
		if (sl_value_check(val->data, val->len, 0, NULL, &err) == 0)
		{
			fprintf(stderr, "tv_corrupt(%s): structural check passed\n", want);
			ok = 0;
		}
		else if (err.code != SL_ERR_CORRUPT || strstr(err.msg, want) == NULL)
		{
			fprintf(stderr, "tv_corrupt(%s): code %d, message: %s\n", want, (int) err.code, err.msg);
			ok = 0;
		}
	}
	else if (sl_value_check(val->data, val->len, 0, NULL, &err) != 0)
	{
		fprintf(stderr, "tv_corrupt(%s): structural check failed: %s\n", want, err.msg);
		ok = 0;
	}
	memset(&err, 0, sizeof(err));
	if (sl_value_verify(val->data, val->len, NULL, &err) == 0)
	{
		fprintf(stderr, "tv_corrupt(%s): verify passed\n", want);
		ok = 0;
	}
	else if (err.code != SL_ERR_CORRUPT || strstr(err.msg, want) == NULL)
	{
		fprintf(stderr, "tv_corrupt(%s): verify code %d, message: %s\n", want, (int) err.code, err.msg);
		ok = 0;
	}
	return ok;
}

/* A copy of a value to damage. */
static sl_buf
tv_copy(const sl_buf *val)
{
	sl_buf		c = {0};

	sl_buf_put(&c, val->data, val->len, NULL);
	return c;
}

/* ---- tests ---- */

/* v1 and v2 encodes of the same chunks: both verify, same content hash, same chunks. */
void
test_value_v1_v2_same_content(void)
{
	tv_set		s;
	sl_buf		v1 = {0},
				v2 = {0};
	sl_err		err;
	uint8_t		h1[32],
				h2[32];

	tv_set_make(&s);
	for (int world = 0; world <= 1; world++)
		for (int multi = 0; multi <= 1; multi++)
		{
			sl_header	a,
						b;

			CHECK(tv_encode(&s, world, 1, multi, &v1) == 0);
			CHECK(tv_encode(&s, world, 2, multi, &v2) == 0);
			CHECK_OK(sl_value_verify(v1.data, v1.len, NULL, &err), &err);
			CHECK_OK(sl_value_verify(v2.data, v2.len, NULL, &err), &err);
			a = tv_header(&v1);
			b = tv_header(&v2);
			CHECK(a.version == 1 && b.version == 2);
			CHECK(a.ref_count == 0 && b.ref_count == 0);
			CHECK((a.flags & SL_FLAG_REFS) == 0 && (b.flags & SL_FLAG_REFS) == 0);
			CHECK(a.chunk_count == TV_N && b.chunk_count == TV_N);
			CHECK(a.frame_count == b.frame_count);
			CHECK(a.frame_count == (multi ? TV_N : 1) + (world ? 1 : 0));
			CHECK(a.raw_bytes == b.raw_bytes && a.dv_min == b.dv_min && a.dv_max == b.dv_max);
			/* the stored hashes follow different definitions ... */
			CHECK(memcmp(a.hash, b.hash, 32) != 0);
			/* ... but the content hash is the v2 one for both */
			CHECK(tv_content_hash(&v1, h1) == 0);
			CHECK(tv_content_hash(&v2, h2) == 0);
			CHECK(memcmp(h1, h2, 32) == 0);
			CHECK(memcmp(h2, b.hash, 32) == 0);
			CHECK(tv_same_chunks(&v1, &s, world, NULL) == 0);
			CHECK(tv_same_chunks(&v2, &s, world, NULL) == 0);
		}

	/* chunk hashes agree between the versions */
	{
		sl_value	a,
					b;
		uint8_t		ca[32],
					cb[32];

		CHECK(tv_encode(&s, 1, 1, 0, &v1) == 0);
		CHECK(tv_encode(&s, 1, 2, 0, &v2) == 0);
		CHECK_OK(sl_value_open_mem(&a, v1.data, v1.len, NULL, &err), &err);
		CHECK_OK(sl_value_open_mem(&b, v2.data, v2.len, NULL, &err), &err);
		for (uint32_t i = 0; i < TV_N; i++)
		{
			CHECK_OK(sl_value_chunk_hash(&a, i, ca, &err), &err);
			CHECK_OK(sl_value_chunk_hash(&b, i, cb, &err), &err);
			CHECK(memcmp(ca, cb, 32) == 0);
		}
		CHECK(sl_value_ref_count(&a) == 0 && sl_value_ref_count(&b) == 0);
		sl_value_close(&a);
		sl_value_close(&b);
	}

	/* empty and world-only values: equal content hashes too */
	for (int world = 0; world <= 1; world++)
	{
		sl_encode_opts o1 = tv_opts(1, 0),
					o2 = tv_opts(2, 0);

		v1.len = v2.len = 0;
		CHECK_OK(sl_value_encode(NULL, 0, world ? s.world.data : NULL, world ? s.world.len : 0,
								 &o1, NULL, &v1, &err), &err);
		CHECK_OK(sl_value_encode(NULL, 0, world ? s.world.data : NULL, world ? s.world.len : 0,
								 &o2, NULL, &v2, &err), &err);
		CHECK_OK(sl_value_verify(v1.data, v1.len, NULL, &err), &err);
		CHECK_OK(sl_value_verify(v2.data, v2.len, NULL, &err), &err);
		CHECK(tv_content_hash(&v1, h1) == 0 && tv_content_hash(&v2, h2) == 0);
		CHECK(memcmp(h1, h2, 32) == 0);
	}

	/* a version the encoder does not write */
	{
		sl_encode_opts o = tv_opts(SL_VALUE_VERSION + 1, 0);

		v1.len = 0;
		CHECK(sl_value_encode(s.src, s.n, NULL, 0, &o, NULL, &v1, &err) != 0);
		CHECK(err.code == SL_ERR_INVALID);
	}
	sl_buf_free(&v1);
	sl_buf_free(&v2);
	tv_set_free(&s);
}

/* Re-encode every chunk of an opened value (copied out) with sl_value_encode. */
static int
tv_reencode_chunks(const sl_buf *val, const sl_encode_opts *o, sl_buf *out)
{
	sl_value	v;
	sl_err		err;
	sl_chunk_src src[TV_N];
	uint8_t    *copies[TV_N][SL_NCOMP];
	const uint8_t *w;
	size_t		wlen;
	uint8_t    *wcopy = NULL;
	int			rc = -1;
	uint32_t	n = 0;

	memset(copies, 0, sizeof(copies));
	out->len = 0;
	if (sl_value_open_mem(&v, val->data, val->len, NULL, &err))
		return -1;
	if (v.hdr.chunk_count > TV_N)
		goto done;
	for (n = 0; n < v.hdr.chunk_count; n++)
	{
		sl_dirent	d;
		const uint8_t *comp[SL_NCOMP];

		if (sl_value_chunk(&v, n, &d, comp, &err))
			goto done;
		memset(&src[n], 0, sizeof(src[n]));
		src[n].x = d.x;
		src[n].z = d.z;
		src[n].data_version = d.data_version;
		src[n].timestamp = d.timestamp;
		for (int k = 0; k < SL_NCOMP; k++)
		{
			src[n].len[k] = d.len[k];
			if (d.len[k] == 0)
				continue;
			copies[n][k] = malloc(d.len[k]);
			memcpy(copies[n][k], comp[k], d.len[k]);
			src[n].comp[k] = copies[n][k];
		}
	}
	if (sl_value_world(&v, &w, &wlen, &err))
		goto done;
	if (wlen)
	{
		wcopy = malloc(wlen);
		memcpy(wcopy, w, wlen);
	}
	/* hand the chunks over in reverse order: the encoder sorts them */
	for (uint32_t i = 0; i < n / 2; i++)
	{
		sl_chunk_src t = src[i];

		src[i] = src[n - 1 - i];
		src[n - 1 - i] = t;
	}
	rc = sl_value_encode(src, n, wcopy, wlen, o, NULL, out, &err);
done:
	if (rc)
		fprintf(stderr, "tv_reencode_chunks: %s\n", err.msg);
	for (int i = 0; i < TV_N; i++)
		for (int k = 0; k < SL_NCOMP; k++)
			free(copies[i][k]);
	free(wcopy);
	sl_value_close(&v);
	return rc;
}

/* encode -> open -> every chunk -> re-encode gives the same bytes. */
void
test_value_canonical_reencode(void)
{
	tv_set		s;
	sl_buf		a = {0},
				b = {0},
				c = {0};
	sl_err		err;

	tv_set_make(&s);
	for (int version = 0; version <= 1; version++)
		for (int world = 0; world <= 1; world++)
			for (int multi = 0; multi <= 1; multi++)
			{
				sl_encode_opts o = tv_opts(version, multi);

				CHECK(tv_encode(&s, world, version, multi, &a) == 0);
				/* chunk by chunk through sl_value_encode */
				CHECK(tv_reencode_chunks(&a, &o, &b) == 0);
				CHECK(tv_same_bytes(&a, &b));
				/* through a builder, keeping everything */
				CHECK_OK(tv_rebuild(&a, NULL, SL_ADD_KEEP, -1, &o, &b, &err), &err);
				CHECK(tv_same_bytes(&a, &b));
				/* and once more from the copy */
				CHECK_OK(tv_rebuild(&b, NULL, SL_ADD_RESOLVE, -1, &o, &c, &err), &err);
				CHECK(tv_same_bytes(&a, &c));
			}

	/* a v1 value re-encoded as v2 is byte for byte the direct v2 encode */
	{
		sl_encode_opts o2 = tv_opts(0, 1);

		CHECK(tv_encode(&s, 1, 1, 1, &a) == 0);
		CHECK(tv_encode(&s, 1, 0, 1, &c) == 0);
		CHECK_OK(tv_rebuild(&a, NULL, SL_ADD_KEEP, -1, &o2, &b, &err), &err);
		CHECK(tv_same_bytes(&b, &c));
	}

	/* the input order does not matter */
	{
		sl_chunk_src rev[TV_N];
		sl_encode_opts o = tv_opts(0, 0);

		for (int i = 0; i < TV_N; i++)
			rev[i] = s.src[TV_N - 1 - i];
		CHECK(tv_encode(&s, 0, 0, 0, &a) == 0);
		b.len = 0;
		CHECK_OK(sl_value_encode(rev, TV_N, NULL, 0, &o, NULL, &b, &err), &err);
		CHECK(tv_same_bytes(&a, &b));
	}
	sl_buf_free(&a);
	sl_buf_free(&b);
	sl_buf_free(&c);
	tv_set_free(&s);
}

/* SL_ADD_REFS: the reference form holds no chunk frames and hashes alike. */
void
test_value_refs_form(void)
{
	tv_set		s;
	sl_buf		orig = {0},
				refs = {0},
				again = {0},
				v1 = {0};
	sl_err		err;
	sl_encode_opts o = tv_opts(2, 0);
	uint8_t		ho[32],
				hr[32];

	tv_set_make(&s);
	for (int world = 0; world <= 1; world++)
	{
		sl_header	h;
		sl_value	v,
					w;

		CHECK(tv_encode(&s, world, 2, 1, &orig) == 0);
		CHECK_OK(tv_rebuild(&orig, NULL, SL_ADD_REFS, -1, &o, &refs, &err), &err);
		CHECK_OK(sl_value_verify(refs.data, refs.len, NULL, &err), &err);
		h = tv_header(&refs);
		CHECK(h.version == 2);
		CHECK(h.chunk_count == TV_N && h.ref_count == TV_N);
		CHECK((h.flags & SL_FLAG_REFS) != 0);
		CHECK(h.frame_count == (world ? 1u : 0u));
		CHECK(h.world_frame == (world ? 0u : SL_NO_FRAME));
		CHECK(h.payload_offset == SL_HEADER_SIZE + TV_N * SL_DIRENT_SIZE +
			  h.frame_count * SL_FRAMEENT_SIZE + TV_N * SL_REFENT_SIZE);
		CHECK(h.refs_offset == h.payload_offset - TV_N * SL_REFENT_SIZE);
		CHECK(h.raw_bytes == tv_header(&orig).raw_bytes);
		CHECK(h.dv_min == tv_header(&orig).dv_min && h.dv_max == tv_header(&orig).dv_max);
		CHECK(refs.len < orig.len);
		CHECK(tv_content_hash(&orig, ho) == 0 && tv_content_hash(&refs, hr) == 0);
		CHECK(memcmp(ho, hr, 32) == 0);

		/* the directory: no frame, k-th reference at index k, the chunk's hash */
		CHECK_OK(sl_value_open_mem(&v, refs.data, refs.len, NULL, &err), &err);
		CHECK_OK(sl_value_open_mem(&w, orig.data, orig.len, NULL, &err), &err);
		CHECK(sl_value_ref_count(&v) == TV_N);
		for (uint32_t i = 0; i < TV_N; i++)
		{
			sl_dirent	d,
						e;
			const uint8_t *comp[SL_NCOMP];
			uint8_t		ch[32];

			CHECK_OK(sl_value_dirent(&v, i, &d, &err), &err);
			CHECK_OK(sl_value_dirent(&w, i, &e, &err), &err);
			CHECK(d.ref == 1 && d.frame == SL_NO_FRAME && d.offset == i);
			CHECK(e.ref == 0);
			CHECK(d.x == e.x && d.z == e.z && d.data_version == e.data_version &&
				  d.timestamp == e.timestamp && memcmp(d.len, e.len, sizeof(d.len)) == 0);
			CHECK(memcmp(d.hash, refs.data + h.refs_offset + i * SL_REFENT_SIZE, 32) == 0);
			CHECK_OK(sl_value_chunk_hash(&w, i, ch, &err), &err);
			CHECK(memcmp(ch, d.hash, 32) == 0);
			CHECK(sl_value_find(&v, d.x, d.z) == (int64_t) i);

			/* no resolver: a reference cannot be read */
			memset(&err, 0, sizeof(err));
			CHECK(sl_value_chunk(&v, i, &d, comp, &err) != 0);
			CHECK(err.code == SL_ERR_UNSUPPORTED);
			CHECK(strstr(err.msg, "stored by reference") != NULL);
			CHECK(strstr(err.msg, "no chunk store") != NULL);
		}
		/* the world stays readable */
		{
			const uint8_t *wd;
			size_t		wl;

			CHECK_OK(sl_value_world(&v, &wd, &wl, &err), &err);
			CHECK(world ? wl == s.world.len && memcmp(wd, s.world.data, wl) == 0 : wl == 0);
		}
		sl_value_close(&v);
		sl_value_close(&w);

		/* without a resolver: KEEP and REFS rebuild the same bytes, RESOLVE fails */
		CHECK_OK(tv_rebuild(&refs, NULL, SL_ADD_KEEP, -1, &o, &again, &err), &err);
		CHECK(tv_same_bytes(&refs, &again));
		CHECK_OK(tv_rebuild(&refs, NULL, SL_ADD_REFS, -1, &o, &again, &err), &err);
		CHECK(tv_same_bytes(&refs, &again));
		memset(&err, 0, sizeof(err));
		CHECK(tv_rebuild(&refs, NULL, SL_ADD_RESOLVE, -1, &o, &again, &err) != 0);
		CHECK(err.code == SL_ERR_UNSUPPORTED);

		/* a v1 value gives the same reference form */
		CHECK(tv_encode(&s, world, 1, 0, &v1) == 0);
		CHECK_OK(tv_rebuild(&v1, NULL, SL_ADD_REFS, -1, &o, &again, &err), &err);
		CHECK(tv_same_bytes(&refs, &again));
	}

	/* format version 1 cannot hold references */
	{
		sl_encode_opts o1 = tv_opts(1, 0);

		memset(&err, 0, sizeof(err));
		CHECK(tv_rebuild(&orig, NULL, SL_ADD_REFS, -1, &o1, &again, &err) != 0);
		CHECK(err.code == SL_ERR_UNSUPPORTED);
		CHECK(strstr(err.msg, "version 1") != NULL);
	}
	sl_buf_free(&orig);
	sl_buf_free(&refs);
	sl_buf_free(&again);
	sl_buf_free(&v1);
	tv_set_free(&s);
}

/* With a resolver every reference reads back; SL_ADD_RESOLVE gives the original. */
void
test_value_refs_resolve(void)
{
	tv_set		s;
	tv_store	st;
	sl_buf		orig = {0},
				refs = {0},
				back = {0},
				direct = {0};
	sl_err		err;

	tv_set_make(&s);
	tv_store_fill(&st, &s);
	for (int world = 0; world <= 1; world++)
		for (int multi = 0; multi <= 1; multi++)
		{
			sl_encode_opts o = tv_opts(0, multi);

			CHECK(tv_encode(&s, world, 0, multi, &orig) == 0);
			CHECK_OK(tv_rebuild(&orig, NULL, SL_ADD_REFS, -1, &o, &refs, &err), &err);
			st.calls = 0;
			CHECK(tv_same_chunks(&refs, &s, world, &st) == 0);
			CHECK(st.calls == TV_N);
			CHECK_OK(tv_rebuild(&refs, &st, SL_ADD_RESOLVE, -1, &o, &back, &err), &err);
			CHECK(tv_same_bytes(&orig, &back));
			/* an inline value never calls the resolver */
			st.calls = 0;
			CHECK(tv_same_chunks(&orig, &s, world, &st) == 0);
			CHECK(st.calls == 0);
		}

	/* each store key is the chunk's hash, and encoding refs directly agrees */
	{
		sl_chunk_src src[TV_N];
		uint8_t		keys[TV_N][32];
		sl_encode_opts o = tv_opts(0, 0);

		for (int i = 0; i < TV_N; i++)
		{
			tv_store_chunk(&st, &s.src[i], keys[i]);
			src[i] = s.src[i];
			src[i].ref = keys[i];
			memset(src[i].comp, 0, sizeof(src[i].comp));
		}
		CHECK(st.n == TV_N);	/* the same chunks: no new entries */
		CHECK(tv_encode(&s, 1, 0, 0, &orig) == 0);
		CHECK_OK(tv_rebuild(&orig, NULL, SL_ADD_REFS, -1, &o, &refs, &err), &err);
		/* references alone cannot be counted: the summary is the caller's to give */
		direct.len = 0;
		CHECK_OK(sl_value_encode(src, TV_N, s.world.data, s.world.len, &o, NULL, &direct, &err), &err);
		CHECK(!(tv_header(&direct).flags & SL_FLAG_SUMMARY));
		{
			sl_vsum		sum;
			sl_value	v;

			memset(&sum, 0, sizeof(sum));
			CHECK_OK(sl_value_open_mem(&v, orig.data, orig.len, NULL, &err), &err);
			CHECK_OK(sl_value_read_summary(&v, &sum, &err), &err);
			sl_value_close(&v);
			direct.len = 0;
			CHECK_OK(sl_value_encode_sum(src, TV_N, s.world.data, s.world.len, &o, NULL, &sum, &direct, &err), &err);
			sl_vsum_free(&sum);
		}
		CHECK(tv_same_bytes(&refs, &direct));
	}

	/* a resolver reporting a missing entry: its error, named by chunk */
	{
		tv_store	empty;
		sl_value	v;
		sl_dirent	d;
		const uint8_t *comp[SL_NCOMP];

		memset(&empty, 0, sizeof(empty));
		CHECK_OK(tv_open(&v, &refs, &empty, &err), &err);
		memset(&err, 0, sizeof(err));
		CHECK(sl_value_chunk(&v, 0, &d, comp, &err) != 0);
		CHECK(err.code == SL_ERR_NOTFOUND);
		CHECK(strstr(err.msg, "is missing") != NULL);
		CHECK(strncmp(err.msg, "chunk (", 7) == 0);
		sl_value_close(&v);
	}
	tv_store_free(&st);
	sl_buf_free(&orig);
	sl_buf_free(&refs);
	sl_buf_free(&back);
	sl_buf_free(&direct);
	tv_set_free(&s);
}

/* Some chunks by reference, some inline: verifies and round-trips. */
void
test_value_refs_mixed(void)
{
	tv_set		s;
	tv_store	st;
	sl_buf		orig = {0},
				mixed = {0},
				again = {0},
				refs = {0};
	sl_err		err;
	uint8_t		ho[32],
				hm[32];
	/* masks over directory order: alternate, first only, last only, all but one */
	static const long masks[] = {0x15, 0x2A, 0x01, 0x20, 0x1E, 0x3F, 0x00};

	tv_set_make(&s);
	tv_store_fill(&st, &s);
	for (size_t m = 0; m < sizeof(masks) / sizeof(masks[0]); m++)
		for (int multi = 0; multi <= 1; multi++)
		{
			sl_encode_opts o = tv_opts(0, multi);
			sl_header	h;
			uint32_t	nrefs = 0;
			sl_value	v;

			for (int i = 0; i < TV_N; i++)
				nrefs += (masks[m] >> i) & 1;
			CHECK(tv_encode(&s, 1, 0, multi, &orig) == 0);
			CHECK_OK(tv_rebuild(&orig, NULL, SL_ADD_KEEP, masks[m], &o, &mixed, &err), &err);
			CHECK_OK(sl_value_verify(mixed.data, mixed.len, NULL, &err), &err);
			h = tv_header(&mixed);
			CHECK(h.ref_count == nrefs);
			CHECK(((h.flags & SL_FLAG_REFS) != 0) == (nrefs != 0));
			CHECK(h.frame_count == (multi ? TV_N - nrefs : (nrefs < TV_N ? 1 : 0)) + 1);
			CHECK(tv_content_hash(&orig, ho) == 0 && tv_content_hash(&mixed, hm) == 0);
			CHECK(memcmp(ho, hm, 32) == 0);

			/* the k-th reference in directory order has index k */
			CHECK_OK(sl_value_open_mem(&v, mixed.data, mixed.len, NULL, &err), &err);
			for (uint32_t i = 0, k = 0; i < TV_N; i++)
			{
				sl_dirent	d;

				CHECK_OK(sl_value_dirent(&v, i, &d, &err), &err);
				CHECK(d.ref == ((masks[m] >> i) & 1));
				if (d.ref)
					CHECK(d.offset == k++);
			}
			sl_value_close(&v);

			/* reads, and every rebuild mode */
			CHECK(tv_same_chunks(&mixed, &s, 1, &st) == 0);
			CHECK_OK(tv_rebuild(&mixed, &st, SL_ADD_RESOLVE, -1, &o, &again, &err), &err);
			CHECK(tv_same_bytes(&orig, &again));
			CHECK_OK(tv_rebuild(&mixed, NULL, SL_ADD_KEEP, -1, &o, &again, &err), &err);
			CHECK(tv_same_bytes(&mixed, &again));
			CHECK_OK(tv_rebuild(&orig, NULL, SL_ADD_REFS, -1, &o, &refs, &err), &err);
			CHECK_OK(tv_rebuild(&mixed, NULL, SL_ADD_REFS, -1, &o, &again, &err), &err);
			CHECK(tv_same_bytes(&refs, &again));
		}
	tv_store_free(&st);
	sl_buf_free(&orig);
	sl_buf_free(&mixed);
	sl_buf_free(&again);
	sl_buf_free(&refs);
	tv_set_free(&s);
}

/* Read chunk i of a value through st and expect failure with code and text. */
static int
tv_read_fails(const sl_buf *val, tv_store *st, uint32_t i, sl_code code, const char *want)
{
	sl_value	v;
	sl_dirent	d;
	const uint8_t *comp[SL_NCOMP];
	sl_err		err;
	int			ok = 1;

	memset(&err, 0, sizeof(err));
	if (tv_open(&v, val, st, &err))
		return 0;
	if (sl_value_chunk(&v, i, &d, comp, &err) == 0)
	{
		fprintf(stderr, "tv_read_fails(%s): read succeeded\n", want);
		ok = 0;
	}
	else if (err.code != code || strstr(err.msg, want) == NULL ||
			 (strstr(err.msg, "store entry ") == NULL && strstr(err.msg, "is missing from the chunk store") == NULL) ||
			 strncmp(err.msg, "chunk (", 7) != 0)
	{
		fprintf(stderr, "tv_read_fails(%s): code %d, message: %s\n", want, (int) err.code, err.msg);
		ok = 0;
	}
	sl_value_close(&v);
	return ok;
}

/* Raw entry bytes (lengths header, then data) as one checksummed frame. */
static void
tv_raw_entry(const uint32_t len[SL_NCOMP], const uint8_t *data, size_t data_len, sl_buf *out)
{
	sl_buf		raw = {0};
	uint8_t		head[SL_ENTRY_HEADER];
	sl_err		err;

	for (int k = 0; k < SL_NCOMP; k++)
		sl_put_u32le(head + 4 * k, len[k]);
	sl_buf_put(&raw, head, sizeof(head), NULL);
	if (data_len)
		sl_buf_put(&raw, data, data_len, NULL);
	out->len = 0;
	CHECK_OK(sl_zstd_frame(raw.data, raw.len, 3, out, &err), &err);
	sl_buf_free(&raw);
}

/* A resolver handing out wrong entries: SL_ERR_CORRUPT naming the entry. */
void
test_value_refs_bad_entry(void)
{
	tv_set		s;
	tv_store	st;
	sl_buf		orig = {0},
				refs = {0},
				e = {0},
				doc = {0};
	sl_err		err;
	sl_encode_opts o = tv_opts(0, 0);
	sl_value	v;
	sl_dirent	d0,
				d1;
	uint8_t		key0[32],
				key1[32];

	tv_set_make(&s);
	CHECK(tv_encode(&s, 0, 0, 0, &orig) == 0);
	CHECK_OK(tv_rebuild(&orig, NULL, SL_ADD_REFS, -1, &o, &refs, &err), &err);
	CHECK_OK(sl_value_open_mem(&v, refs.data, refs.len, NULL, &err), &err);
	CHECK_OK(sl_value_dirent(&v, 0, &d0, &err), &err);
	CHECK_OK(sl_value_dirent(&v, 1, &d1, &err), &err);
	sl_value_close(&v);
	memcpy(key0, d0.hash, 32);
	memcpy(key1, d1.hash, 32);
	CHECK(d0.len[0] + d0.len[1] + d0.len[2] != d1.len[0] + d1.len[1] + d1.len[2]);

	/* wrong bytes, same lengths: one byte of the document changed */
	{
		const sl_chunk_src *c = NULL;
		sl_chunk_src t;

		for (int i = 0; i < TV_N; i++)
			if (s.src[i].x == d0.x && s.src[i].z == d0.z)
				c = &s.src[i];
		CHECK(c != NULL);
		if (c == NULL)
			goto out;
		t = *c;
		for (int k = 0; k < SL_NCOMP; k++)
			if (t.len[k])
			{
				doc.len = 0;
				sl_buf_put(&doc, t.comp[k], t.len[k], NULL);
				doc.data[doc.len - 2] ^= 1;	/* last byte of the byte array */
				t.comp[k] = doc.data;
				break;
			}
		memset(&st, 0, sizeof(st));
		e.len = 0;
		CHECK_OK(sl_store_entry_encode(t.len, t.comp, 3, &e, key1, &err), &err);
		tv_store_put(&st, key0, e.data, e.len);
		CHECK(tv_read_fails(&refs, &st, 0, SL_ERR_CORRUPT, "do not match its hash"));
		/* the entry is good under its own key */
		CHECK_OK(sl_store_entry_check(key1, 32, e.data, e.len, NULL, &err), &err);
		tv_store_free(&st);
	}

	/* wrong lengths: another chunk's entry */
	{
		memset(&st, 0, sizeof(st));
		tv_store_fill(&st, &s);
		for (int i = 0; i < st.n; i++)
			if (memcmp(st.key[i], key1, 32) == 0)
			{
				e.len = 0;
				sl_buf_put(&e, st.entry[i].data, st.entry[i].len, NULL);
			}
		tv_store_put(&st, key0, e.data, e.len);
		CHECK(tv_read_fails(&refs, &st, 0, SL_ERR_CORRUPT, "is corrupt"));
		tv_store_free(&st);
	}

	/* wrong lengths, same total: the bytes split differently */
	{
		uint32_t	len[SL_NCOMP];
		sl_buf		data = {0};
		uint32_t	total = 0;

		for (int i = 0; i < TV_N; i++)
			if (s.src[i].x == d0.x && s.src[i].z == d0.z)
				for (int k = 0; k < SL_NCOMP; k++)
					if (s.src[i].len[k])
						sl_buf_put(&data, s.src[i].comp[k], s.src[i].len[k], NULL);
		for (int k = 0; k < SL_NCOMP; k++)
			total += d0.len[k];
		len[0] = total - 1;
		len[1] = 1;
		len[2] = 0;
		CHECK(d0.len[0] != len[0]);
		tv_raw_entry(len, data.data, data.len, &e);
		memset(&st, 0, sizeof(st));
		tv_store_put(&st, key0, e.data, e.len);
		CHECK(tv_read_fails(&refs, &st, 0, SL_ERR_CORRUPT, "is missing from the chunk store"));
		tv_store_free(&st);
		sl_buf_free(&data);
	}

	/* not a zstd frame, an empty entry, a truncated one */
	{
		static const uint8_t junk[] = "not a zstd frame at all";

		memset(&st, 0, sizeof(st));
		tv_store_put(&st, key0, junk, sizeof(junk));
		CHECK(tv_read_fails(&refs, &st, 0, SL_ERR_CORRUPT, "not a zstd frame"));
		tv_store_put(&st, key0, junk, 0);
		CHECK(tv_read_fails(&refs, &st, 0, SL_ERR_CORRUPT, "is corrupt"));
		tv_store_free(&st);
		tv_store_fill(&st, &s);
		for (int i = 0; i < st.n; i++)
			if (memcmp(st.key[i], key0, 32) == 0)
				st.entry[i].len -= 3;
		CHECK(tv_read_fails(&refs, &st, 0, SL_ERR_CORRUPT, "is corrupt"));
		tv_store_free(&st);
	}

	/* after a failed read the value still reads its good chunks */
	{
		const uint8_t *comp[SL_NCOMP];
		sl_dirent	d;

		tv_store_fill(&st, &s);
		for (int i = 0; i < st.n; i++)
			if (memcmp(st.key[i], key0, 32) == 0)
				st.entry[i].data[st.entry[i].len / 2] ^= 0x40;
		CHECK_OK(tv_open(&v, &refs, &st, &err), &err);
		CHECK(sl_value_chunk(&v, 0, &d, comp, &err) != 0 && err.code == SL_ERR_CORRUPT);
		for (uint32_t i = 1; i < TV_N; i++)
			CHECK_OK(sl_value_chunk(&v, i, &d, comp, &err), &err);
		sl_value_close(&v);
		tv_store_free(&st);
	}
out:
	sl_buf_free(&orig);
	sl_buf_free(&refs);
	sl_buf_free(&e);
	sl_buf_free(&doc);
	tv_set_free(&s);
}

/* The check of a store entry fails with SL_ERR_CORRUPT and a message containing want. */
static int
tv_entry_bad(const uint8_t *key, size_t key_len, const uint8_t *entry, size_t len,
			 const sl_limits *lim, const char *want)
{
	sl_err		err;

	memset(&err, 0, sizeof(err));
	if (sl_store_entry_check(key, key_len, entry, len, lim, &err) == 0)
	{
		fprintf(stderr, "tv_entry_bad(%s): check passed\n", want);
		return 0;
	}
	if (err.code != SL_ERR_CORRUPT || strstr(err.msg, want) == NULL)
	{
		fprintf(stderr, "tv_entry_bad(%s): code %d, message: %s\n", want, (int) err.code, err.msg);
		return 0;
	}
	return 1;
}

/* Compress raw bytes with zstd directly, choosing the frame's flags. */
static void
tv_zstd_raw(const uint8_t *raw, size_t len, int checksum, int content_size, sl_buf *out)
{
	ZSTD_CCtx  *cctx = ZSTD_createCCtx();
	size_t		bound = ZSTD_compressBound(len);
	size_t		n;

	out->len = 0;
	sl_buf_reserve(out, bound, NULL);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 3);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, checksum);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, content_size);
	n = ZSTD_compress2(cctx, out->data, bound, raw, len);
	CHECK(!ZSTD_isError(n));
	if (!ZSTD_isError(n))
		out->len = n;
	ZSTD_freeCCtx(cctx);
}

/* sl_store_entry_check: good entries pass, every kind of damage fails. */
void
test_store_entry_check(void)
{
	tv_set		s;
	sl_buf		e = {0},
				raw = {0},
				bad = {0},
				tr = {0};
	sl_err		err;
	uint8_t		key[32],
				k2[32];
	const sl_chunk_src *c;
	char		hex[65];
	int			split = 0;

	tv_set_make(&s);
	c = &s.src[1];				/* all three components */

	/* every chunk of the set: a good entry under its key, and it decodes */
	for (int i = 0; i < TV_N; i++)
	{
		sl_dirent	d;
		uint8_t    *buf = NULL;
		size_t		cap = 0;
		const uint8_t *comp[SL_NCOMP];

		e.len = 0;
		CHECK_OK(sl_store_entry_encode(s.src[i].len, s.src[i].comp, 1 + i, &e, key, &err), &err);
		CHECK_OK(sl_store_entry_check(key, 32, e.data, e.len, NULL, &err), &err);
		memset(&d, 0, sizeof(d));
		memcpy(d.len, s.src[i].len, sizeof(d.len));
		memcpy(d.hash, key, 32);
		sl_chunk_hash(&d, s.src[i].comp, k2);
		CHECK(memcmp(k2, key, 32) == 0);
		CHECK_OK(sl_store_entry_decode(e.data, e.len, &d, NULL, 1, &buf, &cap, comp, &err), &err);
		for (int k = 0; k < SL_NCOMP; k++)
			CHECK(d.len[k] ? memcmp(comp[k], s.src[i].comp[k], d.len[k]) == 0 : comp[k] == NULL);
		/*
		 * under another key: refused when the key is checked, read when only
		 * the frame is (slime.store_read_check = checksum); a raw-form entry,
		 * with no checksum of its own, is hashed either way
		 */
		d.hash[0] ^= 1;
		CHECK(sl_store_entry_decode(e.data, e.len, &d, NULL, 1, &buf, &cap, comp, &err) != 0 &&
			  strstr(err.msg, "do not match its hash") != NULL);
		CHECK_OK(sl_store_entry_decode(e.data, e.len, &d, NULL, 0, &buf, &cap, comp, &err), &err);
		{
			sl_buf		raw = {0};
			uint8_t		form = SL_ENTRY_RAW;

			CHECK_OK(sl_buf_put(&raw, &form, 1, &err), &err);
			CHECK_OK(sl_buf_put(&raw, buf, SL_ENTRY_HEADER + (size_t) d.len[0] + d.len[1] + d.len[2], &err), &err);
			CHECK(sl_store_entry_decode(raw.data, raw.len, &d, NULL, 0, &buf, &cap, comp, &err) != 0);
			d.hash[0] ^= 1;
			CHECK_OK(sl_store_entry_decode(raw.data, raw.len, &d, NULL, 0, &buf, &cap, comp, &err), &err);
			sl_buf_free(&raw);
		}
		/* decode against other lengths of the same total */
		if (d.len[0] > 1)
		{
			d.len[0]--;
			d.len[2]++;
			memset(&err, 0, sizeof(err));
			CHECK(sl_store_entry_decode(e.data, e.len, &d, NULL, 1, &buf, &cap, comp, &err) != 0);
			CHECK(err.code == SL_ERR_CORRUPT && strstr(err.msg, "is missing from the chunk store") != NULL);
			sl_hash_hex(key, hex);
			CHECK(strstr(err.msg, hex) != NULL);
			split++;
			/*
			 * a forged reference of another total size: the error is the one a
			 * missing entry gives (neither the entry's size nor its existence told)
			 */
			d.len[2] += 1000;
			memset(&err, 0, sizeof(err));
			CHECK(sl_store_entry_decode(e.data, e.len, &d, NULL, 1, &buf, &cap, comp, &err) != 0);
			{
				char		missing[128];

				snprintf(missing, sizeof(missing), SL_STORE_MISSING_FMT, hex);
				CHECK(err.code == SL_ERR_CORRUPT && strcmp(err.msg, missing) == 0);
			}
		}
		sl_free(buf);
	}

	e.len = 0;
	CHECK_OK(sl_store_entry_encode(c->len, c->comp, 3, &e, key, &err), &err);
	CHECK_OK(sl_store_entry_check(key, 32, e.data, e.len, NULL, &err), &err);

	/* wrong key */
	memcpy(k2, key, 32);
	k2[31] ^= 0x80;
	CHECK(tv_entry_bad(k2, 32, e.data, e.len, NULL, "do not match its hash"));
	CHECK(tv_entry_bad(key, 31, e.data, e.len, NULL, "not a SHA-256"));
	CHECK(tv_entry_bad(key, 33, e.data, e.len, NULL, "not a SHA-256"));

	/* truncated frames, and bytes after the frame */
	CHECK(tv_entry_bad(key, 32, e.data, e.len - 1, NULL, ""));
	CHECK(tv_entry_bad(key, 32, e.data, e.len - 4, NULL, ""));
	CHECK(tv_entry_bad(key, 32, e.data, e.len / 2, NULL, ""));
	CHECK(tv_entry_bad(key, 32, e.data, 5, NULL, "not a zstd frame"));
	CHECK(tv_entry_bad(key, 32, e.data, 0, NULL, "not a zstd frame"));
	tr.len = 0;
	sl_buf_put(&tr, e.data, e.len, NULL);
	sl_buf_put(&tr, e.data, e.len, NULL);
	CHECK(tv_entry_bad(key, 32, tr.data, tr.len, NULL, "not exactly one zstd frame"));
	tr.len = e.len + 1;
	tr.data[e.len] = 0;
	CHECK(tv_entry_bad(key, 32, tr.data, tr.len, NULL, "not exactly one zstd frame"));

	/* damaged compressed bytes: the frame checksum or the decoder objects */
	tr.len = 0;
	sl_buf_put(&tr, e.data, e.len, NULL);
	tr.data[e.len - 6] ^= 0x01;
	CHECK(tv_entry_bad(key, 32, tr.data, tr.len, NULL, ""));

	/* the canonical raw bytes of chunk c */
	{
		uint8_t		head[SL_ENTRY_HEADER];

		for (int k = 0; k < SL_NCOMP; k++)
			sl_put_u32le(head + 4 * k, c->len[k]);
		sl_buf_put(&raw, head, sizeof(head), NULL);
		for (int k = 0; k < SL_NCOMP; k++)
			sl_buf_put(&raw, c->comp[k], c->len[k], NULL);
	}

	/* a frame without a checksum, and one that does not declare its size */
	tv_zstd_raw(raw.data, raw.len, 1, 1, &bad);
	CHECK_OK(sl_store_entry_check(key, 32, bad.data, bad.len, NULL, &err), &err);
	tv_zstd_raw(raw.data, raw.len, 0, 1, &bad);
	CHECK(tv_entry_bad(key, 32, bad.data, bad.len, NULL, "no checksum"));
	tv_zstd_raw(raw.data, raw.len, 1, 0, &bad);
	CHECK(tv_entry_bad(key, 32, bad.data, bad.len, NULL, "not a zstd frame declaring its size"));

	/* lengths not adding up to the entry's size */
	{
		uint32_t	len[SL_NCOMP];
		const uint8_t *data = raw.data + SL_ENTRY_HEADER;
		size_t		dlen = raw.len - SL_ENTRY_HEADER;
		static const uint32_t zero[SL_NCOMP] = {0, 0, 0};

		memcpy(len, c->len, sizeof(len));
		len[2]++;
		tv_raw_entry(len, data, dlen, &bad);
		CHECK(tv_entry_bad(key, 32, bad.data, bad.len, NULL, "do not add up"));
		len[2] -= 2;
		tv_raw_entry(len, data, dlen, &bad);
		CHECK(tv_entry_bad(key, 32, bad.data, bad.len, NULL, "do not add up"));
		/* lengths whose 32-bit sum wraps to the right total */
		len[0] = 0xFFFFFFFFu;
		len[1] = 1;
		len[2] = (uint32_t) dlen;
		tv_raw_entry(len, data, dlen, &bad);
		CHECK(tv_entry_bad(key, 32, bad.data, bad.len, NULL, "do not add up"));
		/* no data at all */
		tv_raw_entry(zero, NULL, 0, &bad);
		CHECK(tv_entry_bad(key, 32, bad.data, bad.len, NULL, "do not add up"));
		/* shorter than its lengths header */
		tv_zstd_raw(raw.data, 8, 1, 1, &bad);
		CHECK(tv_entry_bad(key, 32, bad.data, bad.len, NULL, "not a zstd frame declaring its size"));
	}

	/* trailing bytes after an NBT document: the key matches, the NBT does not */
	for (int k = 0; k < SL_NCOMP; k++)
	{
		uint32_t	len[SL_NCOMP] = {0, 0, 0};
		const uint8_t *comp[SL_NCOMP] = {NULL, NULL, NULL};
		static const char *const names[SL_NCOMP] = {"region data", "entities data", "poi data"};

		tr.len = 0;
		sl_buf_put(&tr, s.doc[0][0].data, s.doc[0][0].len, NULL);
		sl_buf_put_u8(&tr, 0, NULL);
		len[k] = (uint32_t) tr.len;
		comp[k] = tr.data;
		e.len = 0;
		CHECK_OK(sl_store_entry_encode(len, comp, 3, &e, key, &err), &err);
		CHECK(tv_entry_bad(key, 32, e.data, e.len, NULL, "trailing bytes after the NBT document"));
		CHECK(tv_entry_bad(key, 32, e.data, e.len, NULL, names[k]));
		/* and a document cut short */
		len[k] = (uint32_t) tr.len - 2;
		e.len = 0;
		CHECK_OK(sl_store_entry_encode(len, comp, 3, &e, key, &err), &err);
		CHECK(tv_entry_bad(key, 32, e.data, e.len, NULL, names[k]));
	}

	/* a list root instead of a compound */
	{
		static const uint8_t list_root[] = {9, 0, 0, 1, 0, 0, 0, 0};
		uint32_t	len[SL_NCOMP] = {sizeof(list_root), 0, 0};
		const uint8_t *comp[SL_NCOMP] = {list_root, NULL, NULL};

		e.len = 0;
		CHECK_OK(sl_store_entry_encode(len, comp, 3, &e, key, &err), &err);
		CHECK(tv_entry_bad(key, 32, e.data, e.len, NULL, "region data"));
	}

	/* over the chunk size cap */
	{
		sl_limits	lim = sl_default_limits;

		e.len = 0;
		CHECK_OK(sl_store_entry_encode(c->len, c->comp, 3, &e, key, &err), &err);
		lim.max_chunk_raw = 64;
		CHECK(tv_entry_bad(key, 32, e.data, e.len, &lim, "exceeds the chunk size cap"));
	}

	CHECK(split == TV_N - 1);	/* every chunk but the entities-only one */
	sl_buf_free(&e);
	sl_buf_free(&raw);
	sl_buf_free(&bad);
	sl_buf_free(&tr);
	tv_set_free(&s);
}

/*
 * Insert one extra (unused) reference table slot: ref_count + 1, payload
 * and frames moved by 32 bytes, CRC recomputed. Everything is consistent
 * except that the directory holds one reference fewer than the header.
 */
static sl_buf
tv_add_ref_slot(const sl_buf *val)
{
	sl_buf		out = {0};
	uint32_t	n = sl_get_u32le(val->data + 8);
	uint32_t	frames = sl_get_u32le(val->data + 12);
	uint32_t	payload = sl_get_u32le(val->data + 24);
	uint8_t		slot[SL_REFENT_SIZE];

	memset(slot, 0xA5, sizeof(slot));
	sl_buf_put(&out, val->data, payload, NULL);
	sl_buf_put(&out, slot, sizeof(slot), NULL);
	sl_buf_put(&out, val->data + payload, val->len - payload, NULL);
	sl_put_u32le(out.data + 76, sl_get_u32le(out.data + 76) + 1);
	sl_put_u32le(out.data + 24, payload + SL_REFENT_SIZE);
	sl_put_u32le(out.data + 28, (uint32_t) out.len);
	for (uint32_t i = 0; i < frames; i++)
	{
		uint8_t    *p = out.data + SL_HEADER_SIZE + n * SL_DIRENT_SIZE + i * SL_FRAMEENT_SIZE;

		sl_put_u32le(p, sl_get_u32le(p) + SL_REFENT_SIZE);
	}
	out.data[6] |= SL_FLAG_REFS;
	tv_fix_crc(out.data);
	return out;
}

/* Damaged v2 headers and reference tables: each caught by its own check. */
void
test_value_v2_header_damage(void)
{
	tv_set		s;
	sl_buf		plain = {0},
				mixed = {0},
				v1 = {0},
				refs = {0},
				d = {0};
	sl_err		err;
	sl_encode_opts o = tv_opts(2, 1);
	uint32_t	n,
				r;

	tv_set_make(&s);
	CHECK(tv_encode(&s, 1, 2, 1, &plain) == 0);
	CHECK(tv_encode(&s, 1, 1, 1, &v1) == 0);
	/* directory entries 0, 2 and 4 by reference */
	CHECK_OK(tv_rebuild(&plain, NULL, SL_ADD_KEEP, 0x15, &o, &mixed, &err), &err);
	CHECK_OK(tv_rebuild(&plain, NULL, SL_ADD_REFS, -1, &o, &refs, &err), &err);
	n = sl_get_u32le(mixed.data + 8);
	r = sl_get_u32le(mixed.data + 76);
	CHECK(n == TV_N && r == 3);

	/* recomputing the CRC of an undamaged value changes nothing */
	d = tv_copy(&mixed);
	tv_fix_crc(d.data);
	CHECK(tv_same_bytes(&d, &mixed));
	sl_buf_free(&d);

	/* ref_count > chunk_count */
	d = tv_copy(&mixed);
	sl_put_u32le(d.data + 76, n + 1);
	tv_fix_crc(d.data);
	CHECK(tv_corrupt(&d, 1, "reference count"));
	sl_buf_free(&d);

	/* ref_count far past chunk_count */
	d = tv_copy(&mixed);
	sl_put_u32le(d.data + 76, 0xFFFFFFFFu);
	tv_fix_crc(d.data);
	CHECK(tv_corrupt(&d, 1, "reference count"));
	sl_buf_free(&d);

	/* refs flag cleared while references remain */
	d = tv_copy(&mixed);
	d.data[6] &= (uint8_t) ~SL_FLAG_REFS;
	tv_fix_crc(d.data);
	CHECK(tv_corrupt(&d, 1, "reference count 3 is inconsistent"));
	sl_buf_free(&d);

	/* refs flag set on a value without references */
	d = tv_copy(&plain);
	d.data[6] |= SL_FLAG_REFS;
	tv_fix_crc(d.data);
	CHECK(tv_corrupt(&d, 1, "reference count 0 is inconsistent"));
	sl_buf_free(&d);

	/* an unknown flag */
	d = tv_copy(&mixed);
	d.data[6] |= 0x04;
	tv_fix_crc(d.data);
	CHECK(tv_corrupt(&d, 1, "unknown header flags"));
	sl_buf_free(&d);

	/* a reference index out of range (directory entry 0 is reference 0) */
	d = tv_copy(&mixed);
	CHECK(sl_get_u32le(d.data + tv_dirent_at(0) + 16) == SL_NO_FRAME);
	sl_put_u32le(d.data + tv_dirent_at(0) + 20, r);
	tv_fix_crc(d.data);
	CHECK(tv_corrupt(&d, 1, "reference 3 out of range"));
	sl_buf_free(&d);
	d = tv_copy(&mixed);
	sl_put_u32le(d.data + tv_dirent_at(4) + 20, 0xFFFFFFF0u);
	tv_fix_crc(d.data);
	CHECK(tv_corrupt(&d, 1, "out of range"));
	sl_buf_free(&d);

	/* a reference in a value whose header holds none */
	d = tv_copy(&plain);
	sl_put_u32le(d.data + tv_dirent_at(0) + 16, SL_NO_FRAME);
	sl_put_u32le(d.data + tv_dirent_at(0) + 20, 0);
	tv_fix_crc(d.data);
	CHECK(tv_corrupt(&d, 1, "reference 0 out of range"));
	sl_buf_free(&d);

	/* references out of directory order: entries 0 and 2 swapped */
	d = tv_copy(&mixed);
	sl_put_u32le(d.data + tv_dirent_at(0) + 20, 1);
	sl_put_u32le(d.data + tv_dirent_at(2) + 20, 0);
	/* without a new CRC the CRC catches it, with one the order check */
	CHECK(tv_corrupt(&d, 1, "header checksum mismatch"));
	tv_fix_crc(d.data);
	CHECK(tv_corrupt(&d, 1, "references are not in directory order"));
	sl_buf_free(&d);
	/* the same reference twice */
	d = tv_copy(&mixed);
	sl_put_u32le(d.data + tv_dirent_at(2) + 20, 0);
	tv_fix_crc(d.data);
	CHECK(tv_corrupt(&d, 1, "references are not in directory order"));
	sl_buf_free(&d);
	/* in the all-reference form: the last two swapped */
	d = tv_copy(&refs);
	sl_put_u32le(d.data + tv_dirent_at(TV_N - 2) + 20, TV_N - 1);
	sl_put_u32le(d.data + tv_dirent_at(TV_N - 1) + 20, TV_N - 2);
	tv_fix_crc(d.data);
	CHECK(tv_corrupt(&d, 1, "references are not in directory order"));
	sl_buf_free(&d);

	/* one reference table slot more than the directory uses */
	d = tv_add_ref_slot(&mixed);
	CHECK(tv_corrupt(&d, 1, "reference count does not match the directory"));
	sl_buf_free(&d);
	d = tv_add_ref_slot(&plain);
	CHECK(tv_corrupt(&d, 1, "reference count does not match the directory"));
	sl_buf_free(&d);

	/* ref_count one less, payload_offset kept: the offsets disagree */
	d = tv_copy(&mixed);
	sl_put_u32le(d.data + 76, r - 1);
	tv_fix_crc(d.data);
	CHECK(tv_corrupt(&d, 1, "header offsets are inconsistent"));
	sl_buf_free(&d);

	/* a damaged reference table entry: the structure holds, the hash does not */
	d = tv_copy(&mixed);
	{
		sl_header	h = tv_header(&mixed);

		d.data[h.refs_offset + SL_REFENT_SIZE + 7] ^= 0x10;
	}
	tv_fix_crc(d.data);
	CHECK(tv_corrupt(&d, 0, "content hash mismatch"));
	sl_buf_free(&d);

	/* v1: offset 76 is reserved, flag 0x0002 unknown, references unreadable */
	d = tv_copy(&v1);
	sl_put_u32le(d.data + 76, 1);
	tv_fix_crc(d.data);
	CHECK(tv_corrupt(&d, 1, "reserved header field is not zero"));
	sl_buf_free(&d);
	d = tv_copy(&v1);
	d.data[79] = 0x80;
	tv_fix_crc(d.data);
	CHECK(tv_corrupt(&d, 1, "reserved header field is not zero"));
	sl_buf_free(&d);
	d = tv_copy(&v1);
	d.data[6] |= SL_FLAG_REFS;
	tv_fix_crc(d.data);
	CHECK(tv_corrupt(&d, 1, "unknown header flags"));
	sl_buf_free(&d);
	d = tv_copy(&mixed);
	d.data[4] = 1;				/* a v2 value with references claiming v1 */
	tv_fix_crc(d.data);
	CHECK(tv_corrupt(&d, 1, "unknown header flags"));
	sl_buf_free(&d);
	d = tv_copy(&mixed);
	d.data[4] = 1;
	d.data[6] &= (uint8_t) ~SL_FLAG_REFS;
	tv_fix_crc(d.data);
	CHECK(tv_corrupt(&d, 1, "reserved header field is not zero"));
	sl_buf_free(&d);

	/* a version this build does not read */
	d = tv_copy(&plain);
	d.data[4] = SL_VALUE_VERSION + 1;
	tv_fix_crc(d.data);
	memset(&err, 0, sizeof(err));
	CHECK(sl_value_check(d.data, d.len, 0, NULL, &err) != 0 && err.code == SL_ERR_UNSUPPORTED);
	sl_buf_free(&d);

	sl_buf_free(&plain);
	sl_buf_free(&mixed);
	sl_buf_free(&v1);
	sl_buf_free(&refs);
	tv_set_free(&s);
}

/* The builder refuses a reference beside other data of the same chunk. */
void
test_value_builder_ref_conflicts(void)
{
	tv_set		s;
	sl_buf		orig = {0},
				out = {0},
				other = {0};
	sl_err		err;
	sl_value	v,
				w;
	sl_builder	b;
	sl_dirent	d;
	sl_encode_opts o = tv_opts(0, 0);
	uint8_t		copy[8] = {10, 0, 0, 0};

	tv_set_make(&s);
	CHECK(tv_encode(&s, 0, 0, 0, &orig) == 0);
	CHECK_OK(sl_value_open_mem(&v, orig.data, orig.len, NULL, &err), &err);
	CHECK_OK(sl_value_dirent(&v, 2, &d, &err), &err);

	/* a reference plus a component piece */
	for (int comp = 0; comp < SL_NCOMP; comp++)
	{
		memset(&b, 0, sizeof(b));
		CHECK_OK(sl_builder_add_chunk(&b, &v, 2, SL_ADD_REFS, &err), &err);
		CHECK_OK(sl_builder_add(&b, comp, d.x, d.z, 7, copy, 4, 0, &err), &err);
		memset(&err, 0, sizeof(err));
		out.len = 0;
		CHECK(sl_builder_encode(&b, &o, NULL, &out, &err) != 0);
		CHECK(err.code == SL_ERR_DUPLICATE);
		CHECK(strstr(err.msg, "is held by reference") != NULL);
		CHECK(strstr(err.msg, "chunk (") != NULL);
		/* dropping the component leaves a valid reference */
		sl_builder_remove(&b, d.x, d.z, comp);
		out.len = 0;
		CHECK_OK(sl_builder_encode(&b, &o, NULL, &out, &err), &err);
		CHECK(tv_header(&out).ref_count == 1);
		sl_builder_free(&b);
	}

	/* the component first, then the reference */
	memset(&b, 0, sizeof(b));
	CHECK_OK(sl_builder_add_chunk(&b, &v, 2, SL_ADD_KEEP, &err), &err);
	CHECK_OK(sl_builder_add_chunk(&b, &v, 2, SL_ADD_REFS, &err), &err);
	memset(&err, 0, sizeof(err));
	CHECK(sl_builder_encode(&b, &o, NULL, &out, &err) != 0);
	CHECK(err.code == SL_ERR_DUPLICATE && strstr(err.msg, "is held by reference") != NULL);
	/* dropping the reference leaves the bytes */
	sl_builder_remove(&b, d.x, d.z, SL_PIECE_REF);
	out.len = 0;
	CHECK_OK(sl_builder_encode(&b, &o, NULL, &out, &err), &err);
	CHECK(tv_header(&out).ref_count == 0 && tv_header(&out).chunk_count == 1);
	sl_builder_free(&b);

	/* two references for one chunk, equal or not */
	memset(&b, 0, sizeof(b));
	CHECK_OK(sl_builder_add_chunk(&b, &v, 2, SL_ADD_REFS, &err), &err);
	CHECK_OK(sl_builder_add_chunk(&b, &v, 2, SL_ADD_REFS, &err), &err);
	memset(&err, 0, sizeof(err));
	CHECK(sl_builder_encode(&b, &o, NULL, &out, &err) != 0);
	CHECK(err.code == SL_ERR_DUPLICATE && strstr(err.msg, "appears more than once") != NULL);
	sl_builder_free(&b);
	{
		tv_set		t = s;
		sl_chunk_src moved = s.src[0];

		/* another value with different data at chunk 2's position */
		moved.x = d.x;
		moved.z = d.z;
		t.src[0] = moved;
		t.n = 1;
		other.len = 0;
		CHECK_OK(sl_value_encode(t.src, 1, NULL, 0, &o, NULL, &other, &err), &err);
		CHECK_OK(sl_value_open_mem(&w, other.data, other.len, NULL, &err), &err);
		memset(&b, 0, sizeof(b));
		CHECK_OK(sl_builder_add_chunk(&b, &v, 2, SL_ADD_REFS, &err), &err);
		CHECK_OK(sl_builder_add_chunk(&b, &w, 0, SL_ADD_REFS, &err), &err);
		memset(&err, 0, sizeof(err));
		CHECK(sl_builder_encode(&b, &o, NULL, &out, &err) != 0);
		CHECK(err.code == SL_ERR_DUPLICATE && strstr(err.msg, "appears more than once") != NULL);
		sl_builder_free(&b);
		sl_value_close(&w);
	}

	/* a whole reference value added twice */
	memset(&b, 0, sizeof(b));
	CHECK_OK(sl_builder_add_value(&b, &v, SL_ADD_REFS, &err), &err);
	CHECK_OK(sl_builder_add_value(&b, &v, SL_ADD_REFS, &err), &err);
	memset(&err, 0, sizeof(err));
	CHECK(sl_builder_encode(&b, &o, NULL, &out, &err) != 0);
	CHECK(err.code == SL_ERR_DUPLICATE && strstr(err.msg, "appears more than once") != NULL);
	sl_builder_free(&b);

	sl_value_close(&v);
	sl_buf_free(&orig);
	sl_buf_free(&out);
	sl_buf_free(&other);
	tv_set_free(&s);
}

/* Recompute a v3 value's metadata CRC (offset 8, over [0, payload_offset)). */
static void
tv_fix_crc3(uint8_t *val, size_t len)
{
	sl_header	h;
	sl_err		err;

	if (sl_header_parse(val, len, len, &h, &err) == 0 && h.version == 3)
	{
		sl_put_u32le(val + 8, 0);
		sl_put_u32le(val + 8, sl_crc32(0, val, h.payload_offset));
	}
}

/* Read every chunk and the world of a value through the read paths; 0 when all read. */
static int
tv_read_all(const sl_buf *val, tv_store *st)
{
	sl_value	v;
	sl_err		err;
	int			rc = 0;

	if (tv_open(&v, val, st, &err))
		return -1;
	for (uint32_t i = 0; i < v.hdr.chunk_count && rc == 0; i++)
	{
		sl_dirent	d;
		const uint8_t *comp[SL_NCOMP];

		rc = sl_value_chunk(&v, i, &d, comp, &err);
	}
	if (rc == 0)
	{
		const uint8_t *w;
		size_t		wl;

		rc = sl_value_world(&v, &w, &wl, &err);
	}
	sl_value_close(&v);
	return rc;
}

/* v3: layout, summary and content equal to v2; the prefix and frame sizing. */
void
test_value_v3_layout(void)
{
	tv_set		s;
	sl_buf		v2 = {0},
				v3 = {0};
	sl_err		err;

	tv_set_make(&s);
	for (int world = 0; world <= 1; world++)
		for (int multi = 0; multi <= 1; multi++)
		{
			sl_header	a,
						b;
			uint8_t		h2[32],
						h3[32];

			CHECK(tv_encode(&s, world, 2, multi, &v2) == 0);
			CHECK(tv_encode(&s, world, 0, multi, &v3) == 0);
			CHECK_OK(sl_value_verify(v3.data, v3.len, NULL, &err), &err);
			a = tv_header(&v2);
			b = tv_header(&v3);
			CHECK(b.version == 3 && SL_VALUE_VERSION == 3);
			CHECK(b.chunk_count == TV_N && b.ref_count == 0);
			CHECK(a.raw_bytes == b.raw_bytes && a.dv_min == b.dv_min && a.dv_max == b.dv_max);
			CHECK(a.min_x == b.min_x && a.max_x == b.max_x && a.min_z == b.min_z && a.max_z == b.max_z);
			CHECK(memcmp(a.hash, b.hash, 32) == 0);
			CHECK(b.frame_count == (multi ? TV_N : 1) + (world ? 1 : 0));
			/* frames after the first share its bytes exactly when there are two or more */
			CHECK(((b.flags & SL_FLAG_PREFIX) != 0) == (multi && TV_N >= 2));
			CHECK(b.payload_offset < v3.len && v3.len < v2.len);
			CHECK(tv_content_hash(&v3, h3) == 0 && tv_content_hash(&v2, h2) == 0);
			CHECK(memcmp(h2, h3, 32) == 0);
			CHECK(tv_same_chunks(&v3, &s, world, NULL) == 0);
		}
	/* the v3 order: regions in Morton order, slot order inside one */
	CHECK(sl_chunk_key3(1, 0) < sl_chunk_key3(0, 1));
	CHECK(sl_chunk_key3(31, 0) < sl_chunk_key3(0, 1));
	CHECK(sl_chunk_key3(31, 31) < sl_chunk_key3(32, 0));
	CHECK(sl_chunk_key3(-1, -1) < sl_chunk_key3(0, 0));
	CHECK(sl_value_key(2, 1, 0) == sl_chunk_key(1, 0) && sl_value_key(3, 1, 0) == sl_chunk_key3(1, 0));
	sl_buf_free(&v2);
	sl_buf_free(&v3);
	tv_set_free(&s);
}

/*
 * v3 damage: every byte of the metadata flipped (CRC fixed again so the
 * damage reaches the parsers) is an error of the full check or reads the
 * same chunks, truncation at
 * every byte is an error of the structural check, and neither crashes a
 * read; hand-made directories fail naming their column.
 */
void
test_value_v3_damage(void)
{
	tv_set		s;
	tv_store	st;
	sl_buf		val = {0};
	sl_err		err;
	long		masks[2] = {0, 0x5};

	tv_set_make(&s);
	memset(&st, 0, sizeof(st));
	tv_store_fill(&st, &s);
	for (int k = 0; k < 2; k++)
		for (int multi = 0; multi <= 1; multi++)
		{
			sl_buf		orig = {0};
			sl_encode_opts o = tv_opts(0, multi);
			sl_header	h;

			CHECK(tv_encode(&s, 1, 0, multi, &orig) == 0);
			CHECK_OK(tv_rebuild(&orig, NULL, SL_ADD_KEEP, masks[k], &o, &val, &err), &err);
			CHECK_OK(sl_value_verify(val.data, val.len, NULL, &err), &err);
			h = tv_header(&val);
			CHECK(h.version == 3 && h.ref_count == (k ? 2u : 0u));
			for (size_t i = 0; i < h.payload_offset; i++)
				for (int bit = 0; bit < 8; bit += 3)
				{
					sl_buf		d = tv_copy(&val);

					d.data[i] ^= (uint8_t) (1u << bit);
					if (i < 8 || i >= 12)
						tv_fix_crc3(d.data, d.len);
					memset(&err, 0, sizeof(err));
					/*
					 * an error, or (a bit zstd's frame header does not use for
					 * these sizes) exactly the same chunks: never a wrong chunk
					 */
					if (sl_value_verify(d.data, d.len, NULL, &err) == 0)
						CHECK(tv_same_chunks(&d, &s, 1, &st) == 0);
					else
						CHECK(err.code == SL_ERR_CORRUPT || err.code == SL_ERR_UNSUPPORTED ||
							  err.code == SL_ERR_LIMIT);
					(void) tv_read_all(&d, &st);
					sl_buf_free(&d);
				}
			for (size_t cut = 0; cut < val.len; cut += (cut < 256 ? 1 : 13))
			{
				memset(&err, 0, sizeof(err));
				CHECK(sl_value_check(val.data, cut, 0, NULL, &err) != 0);
				CHECK(err.code == SL_ERR_CORRUPT);
			}
			sl_buf_free(&orig);
		}

	/* hand-made directories: one chunk, one frame, bad columns */
	{
		sl_dirslot	d[2];
		sl_frame	f[1];
		sl_buf		b = {0};

		memset(d, 0, sizeof(d));
		memset(f, 0, sizeof(f));
		d[0].len[0] = 4;
		f[0].comp_len = 20;
		f[0].raw_len = 4;
		f[0].chunks = 1;
		CHECK_OK(sl_vdir_encode(d, 1, f, 1, &b, &err), &err);
		CHECK_OK(sl_vdir_decode(b.data, b.len, 1, 1, 0, d, f, &err), &err);
		CHECK(sl_vdir_decode(b.data, b.len - 1, 1, 1, 0, d, f, &err) != 0 &&
			  strstr(err.msg, "POI length of entry 0") != NULL);
		b.data[3] = 7;			/* the codec of frame 0 */
		CHECK(sl_vdir_decode(b.data, b.len, 1, 1, 0, d, f, &err) != 0 &&
			  err.code == SL_ERR_UNSUPPORTED && strstr(err.msg, "codec 7") != NULL);
		b.data[3] = 0;
		CHECK_OK(sl_buf_put_u8(&b, 0, &err), &err);
		CHECK(sl_vdir_decode(b.data, b.len, 1, 1, 0, d, f, &err) != 0 &&
			  strstr(err.msg, "1 stray bytes") != NULL);
		b.len--;
		CHECK(sl_vdir_decode(b.data, b.len, 1, 1, 1, d, f, &err) != 0 &&
			  strstr(err.msg, "reference run") != NULL);
		sl_buf_free(&b);
	}
	sl_buf_free(&val);
	tv_store_free(&st);
	tv_set_free(&s);
}

/*
 * A frame larger than any encoder writes (issue #25: a 34 KB value of one
 * 1 GiB frame made a reader allocate it all): refused by the frame's table
 * entry, before anything is decompressed.
 */
void
test_value_frame_cap(void)
{
	enum { N = 20 };
	sl_buf		doc[N];
	sl_chunk_src src[N];
	sl_encode_opts o = sl_default_encode_opts;
	sl_limits	small = sl_default_limits;
	sl_buf		out = {0};
	sl_err		err;

	memset(src, 0, sizeof(src));
	for (int i = 0; i < N; i++)
	{
		memset(&doc[i], 0, sizeof(doc[i]));
		tv_doc(&doc[i], 3465, i + 1, 1024 * 1024);
		src[i].x = i;
		src[i].timestamp = 1;
		src[i].comp[0] = doc[i].data;
		src[i].len[0] = (uint32_t) doc[i].len;
		src[i].data_version = 3465;
	}
	o.single_frame_max = SIZE_MAX;	/* one frame of 20 MiB, which no encoder writes */
	CHECK_OK(sl_value_encode(src, N, NULL, 0, &o, NULL, &out, &err), &err);
	/* under the default caps (a frame of up to 68 MiB) it reads */
	CHECK_OK(sl_value_verify(out.data, out.len, NULL, &err), &err);
	/* with a 2 MiB chunk cap a frame may hold 16 MiB */
	small.max_chunk_raw = 2 * 1024 * 1024;
	memset(&err, 0, sizeof(err));
	CHECK(sl_value_verify(out.data, out.len, &small, &err) != 0);
	CHECK(err.code == SL_ERR_LIMIT && strstr(err.msg, "more than a frame may hold") != NULL);
	for (int i = 0; i < N; i++)
		sl_buf_free(&doc[i]);
	sl_buf_free(&out);
}

/* The dense entry of chunk c built by hand: 0x01, the lengths, the block codec stream of version. */
static void
tv_dense_entry(const sl_chunk_src *c, int version, sl_buf *out)
{
	sl_buf		docs = {0};
	uint8_t		head[SL_DENSE_HEADER];

	head[0] = SL_ENTRY_DENSE;
	for (int k = 0; k < SL_NCOMP; k++)
	{
		sl_put_u32le(head + 1 + 4 * k, c->len[k]);
		if (c->len[k])
			sl_buf_put(&docs, c->comp[k], c->len[k], NULL);
	}
	out->len = 0;
	sl_buf_put(out, head, sizeof(head), NULL);
	CHECK(sl_bcodec_encode(docs.data, docs.len, version, out, NULL) == 0);
	sl_buf_free(&docs);
}

/* Entry e decodes as chunk c under d (its lengths and key). */
static void
tv_entry_same(const sl_buf *e, const sl_dirent *d, const sl_chunk_src *c)
{
	uint8_t    *buf = NULL;
	size_t		cap = 0;
	const uint8_t *comp[SL_NCOMP];
	sl_err		err;

	CHECK_OK(sl_store_entry_check(d->hash, 32, e->data, e->len, NULL, &err), &err);
	CHECK_OK(sl_store_entry_decode(e->data, e->len, d, NULL, 1, &buf, &cap, comp, &err), &err);
	for (int k = 0; k < SL_NCOMP; k++)
		CHECK(d->len[k] ? memcmp(comp[k], c->comp[k], d->len[k]) == 0 : comp[k] == NULL);
	sl_free(buf);
}

/* Settled and dense entries: same key, same bytes; damage to a dense entry fails. */
void
test_store_entry_dense(void)
{
	tv_set		s;
	sl_buf		e = {0},
				st = {0},
				bad = {0};
	sl_err		err;
	uint8_t		key[32];

	tv_set_make(&s);
	for (int i = 0; i < TV_N; i++)
	{
		sl_dirent	d;
		uint8_t    *buf = NULL;
		size_t		cap = 0;
		const uint8_t *comp[SL_NCOMP];

		e.len = 0;
		CHECK_OK(sl_store_entry_encode(s.src[i].len, s.src[i].comp, 3, &e, key, &err), &err);
		memset(&d, 0, sizeof(d));
		memcpy(d.len, s.src[i].len, sizeof(d.len));
		memcpy(d.hash, key, 32);
		/* settled: whichever form, it checks under the same key and decodes alike */
		st.len = 0;
		CHECK_OK(sl_store_entry_settle(key, e.data, e.len, NULL, &st, &err), &err);
		tv_entry_same(&st, &d, &s.src[i]);
		/* the dense form itself (0.5.0's version 1 streams, 0.6.0's version 2, 0.7.0's version 3, 0.8.0's version 4, version 5), and settling it again */
		tv_dense_entry(&s.src[i], i % 5 + 1, &e);
		tv_entry_same(&e, &d, &s.src[i]);
		st.len = 0;
		CHECK_OK(sl_store_entry_settle(key, e.data, e.len, NULL, &st, &err), &err);
		CHECK(st.len <= e.len || st.data[0] != SL_ENTRY_DENSE);
		/* damage: a flipped stream byte, a cut stream, lengths that lie, a short header */
		bad.len = 0;
		sl_buf_put(&bad, e.data, e.len, NULL);
		bad.data[bad.len - 1] ^= 0x40;
		CHECK(tv_entry_bad(key, 32, bad.data, bad.len, NULL, ""));
		CHECK(tv_entry_bad(key, 32, e.data, e.len - 1, NULL, ""));
		CHECK(tv_entry_bad(key, 32, e.data, SL_DENSE_HEADER - 1, NULL, "not a zstd frame"));
		bad.data[bad.len - 1] ^= 0x40;
		sl_put_u32le(bad.data + 1, s.src[i].len[0] + 1);
		CHECK(tv_entry_bad(key, 32, bad.data, bad.len, NULL, ""));
		memset(&err, 0, sizeof(err));
		CHECK(sl_store_entry_decode(bad.data, bad.len, &d, NULL, 1, &buf, &cap, comp, &err) != 0 &&
			  err.code == SL_ERR_CORRUPT);
		st.len = 0;
		CHECK(sl_store_entry_settle(key, bad.data, bad.len, NULL, &st, &err) != 0 && st.len == 0);
		sl_free(buf);
	}
	sl_buf_free(&e);
	sl_buf_free(&st);
	sl_buf_free(&bad);
	tv_set_free(&s);
}

/* A raw-form entry a reader checked once: it matches its key only as it is, and is read in place. */
void
test_store_entry_view(void)
{
	tv_set		s;
	sl_buf		e = {0},
				raw = {0};
	sl_err		err;
	uint8_t		key[32],
				other[32];

	tv_set_make(&s);
	for (int i = 0; i < TV_N; i++)
	{
		sl_dirent	d;
		const uint8_t *comp[SL_NCOMP];
		uint8_t		form = SL_ENTRY_RAW;

		e.len = 0;
		raw.len = 0;
		CHECK_OK(sl_store_entry_encode(s.src[i].len, s.src[i].comp, 3, &e, key, &err), &err);
		sl_buf_put(&raw, &form, 1, NULL);
		CHECK_OK(sl_store_entry_canonical(key, 32, e.data, e.len, NULL, &raw, &err), &err);
		memset(&d, 0, sizeof(d));
		memcpy(d.len, s.src[i].len, sizeof(d.len));
		memcpy(d.hash, key, 32);
		CHECK(sl_store_raw_matches(raw.data, raw.len, key));
		CHECK_OK(sl_store_entry_view(raw.data, raw.len, &d, comp, &err), &err);
		for (int k = 0; k < SL_NCOMP; k++)
			CHECK(d.len[k] ? comp[k] >= raw.data && memcmp(comp[k], s.src[i].comp[k], d.len[k]) == 0 :
				  comp[k] == NULL);
		/* not the raw form, another key, a cut entry, a changed byte: no match */
		CHECK(!sl_store_raw_matches(e.data, e.len, key));
		memcpy(other, key, 32);
		other[31] ^= 1;
		CHECK(!sl_store_raw_matches(raw.data, raw.len, other));
		CHECK(!sl_store_raw_matches(raw.data, raw.len - 1, key));
		CHECK(!sl_store_raw_matches(raw.data, 5, key));
		raw.data[raw.len - 1] ^= 0x10;
		CHECK(!sl_store_raw_matches(raw.data, raw.len, key));
		raw.data[raw.len - 1] ^= 0x10;
		/* a reference of other sizes reads as a missing entry, as decoding says */
		d.len[0]++;
		memset(&err, 0, sizeof(err));
		CHECK(sl_store_entry_view(raw.data, raw.len, &d, comp, &err) != 0 &&
			  err.code == SL_ERR_CORRUPT && strstr(err.msg, "missing") != NULL);
		d.len[0]--;
		CHECK(sl_store_entry_view(e.data, e.len, &d, comp, &err) != 0);
	}
	sl_buf_free(&e);
	sl_buf_free(&raw);
	tv_set_free(&s);
}
