/*
 * fuzz_value.c - libFuzzer target for the slime value reader.
 *
 * Input: value bytes (the type's binary form), optionally followed by a
 * chunk store: when the header's total_len T is at least the header size
 * and less than the input, bytes [0, T) are the value and the rest are
 * store records "32-byte key, u32le length, entry bytes" (the last one cut
 * to what remains; at most STORE_MAX). The value's reference chunks are
 * read through a resolver that looks their hash up among the keys (and,
 * when no key matches, hands out record (index mod records) so that
 * hostile entries reach sl_store_entry_decode too). Each input is tried as
 * is and, so that mutations reach past the metadata checksum, once more
 * with total_len (when there is no store) and the header CRC patched.
 *   - sl_value_verify on the value;
 *   - sl_value_open_mem, then every directory entry, every chunk, the world
 *     compound and sl_value_find: errors are fine, crashes are not;
 *   - a reference chunk that reads has bytes hashing to its reference; one
 *     found by key whose entry passes sl_store_entry_check with the
 *     directory's lengths must read;
 *   - when verify passes: every inline chunk and the world read, each
 *     component read is one NBT document (for a reference: when its entry
 *     passed sl_store_entry_check), sl_value_find finds each chunk,
 *     sl_value_content_hash succeeds, and re-encoding through a builder
 *     (SL_ADD_KEEP; SL_ADD_REFS; SL_ADD_RESOLVE when every reference read
 *     from an entry that passes its check) gives values that verify with that content hash; the resolved
 *     and the original value give the same reference form, byte for byte;
 *   - the prefixes of the loader's cold forms (sl_sfcold): fail cleanly or
 *     agree, version 1's through the resolver and by rank, version 2's
 *     through the resolver and in place;
 *   - the contents summary (sl_vsum; the CRC patch above lets mutations
 *     reach it): reading it fails cleanly or gives counts whose encoding is
 *     its bytes again (one form per summary), each table alone read as in
 *     the whole; when the chunks can all be counted, a summary read is
 *     either what counting them gives or sl_value_check_summary refuses it
 *     (a damaged summary is an error, never other counts unnoticed); the
 *     re-encodes keep it byte for byte.
 */
#include "fuzz_common.h"
#include "sl_build.h"
#include "sl_codec.h"
#include "sl_nbt.h"
#include "sl_sfcold.h"
#include "sl_store.h"
#include "sl_value.h"
#include "sl_vsum.h"
#include "sl_zstd.h"

#define STORE_MAX 256

/* What check_prefixes hands rank_docs. */
typedef struct cold_ctx
{
	sl_value   *v;
	sl_sfcold_ref *refs;
	uint32_t	n;
	const uint8_t *view;		/* non-NULL: documents from here, at at[rank] */
	size_t	   *at;
} cold_ctx;

/* The store records of an input. */
typedef struct fstore
{
	int			n;
	const uint8_t *key[STORE_MAX];
	const uint8_t *entry[STORE_MAX];
	size_t		len[STORE_MAX];
	int			by_key;			/* the last entry handed out matched by key */
	int			last;			/* its record */
	int			calls;
} fstore;

static void
reset(sl_err *err)
{
	err->code = SL_OK;
	err->msg[0] = '\0';
}

static void
touch(const uint8_t *p, size_t n)
{
	volatile uint8_t sink = 0;

	for (size_t i = 0; i < n; i++)
		sink ^= p[i];
	(void) sink;
}

/* Split store records out of p[0..n). */
static void
parse_store(fstore *st, const uint8_t *p, size_t n)
{
	memset(st, 0, sizeof(*st));
	while (n >= 36 && st->n < STORE_MAX)
	{
		size_t		len = sl_get_u32le(p + 32);

		if (len > n - 36)
			len = n - 36;
		st->key[st->n] = p;
		st->entry[st->n] = p + 36;
		st->len[st->n] = len;
		st->n++;
		p += 36 + len;
		n -= 36 + len;
	}
}

/* sl_resolve_fn over the records: by key, else record (index mod n). */
static int
resolve(void *ctx, const sl_dirent *d, const uint8_t **entry, size_t *len, int *checked, sl_err *err)
{
	fstore	   *st = ctx;
	char		hex[65];

	st->calls++;
	st->by_key = 0;
	st->last = -1;
	for (int i = 0; i < st->n; i++)
		if (memcmp(st->key[i], d->hash, 32) == 0)
		{
			st->by_key = 1;
			st->last = i;
			break;
		}
	if (st->last < 0 && st->n > 0)
		st->last = (int) (d->offset % (uint32_t) st->n);
	if (st->last < 0)
	{
		sl_hash_hex(d->hash, hex);
		return sl_fail(err, SL_ERR_NOTFOUND, "chunk %s is not in the store", hex);
	}
	*entry = st->entry[st->last];
	*len = st->len[st->last];
	return 0;
}

/* The raw bytes of an open value's summary into out (empty: none or unreadable). */
static void
summary_raw(sl_value *v, sl_buf *out)
{
	const uint8_t *raw;
	size_t		len;
	uint8_t    *tmp = NULL;
	sl_err		err;

	out->len = 0;
	reset(&err);
	if (!sl_value_has_summary(v) || sl_value_summary_raw(v, &raw, &len, &tmp, &err))
		return;
	sl_buf_put(out, raw, len, &err);
	sl_free(tmp);
}

/* The component lengths an entry declares, or -1 when it does not decompress. */
static int
entry_lengths(const uint8_t *entry, size_t len, uint32_t out[SL_NCOMP])
{
	int64_t		n = sl_zstd_declared_size(entry, len);
	uint8_t    *raw;
	sl_err		err;
	int			rc = -1;

	if (n < SL_ENTRY_HEADER || (uint64_t) n > fuzz_limits.max_chunk_raw + SL_ENTRY_HEADER)
		return -1;
	raw = malloc((size_t) n);
	if (raw == NULL)
		abort();
	if (sl_zstd_unframe(entry, len, raw, (size_t) n, &err) == 0)
	{
		for (int k = 0; k < SL_NCOMP; k++)
			out[k] = sl_get_u32le(raw + 4 * k);
		rc = 0;
	}
	free(raw);
	return rc;
}

/* The entry last handed out for reference d passes its own check with d's lengths. */
static int
entry_good(const fstore *st, const sl_dirent *d)
{
	uint32_t	lens[SL_NCOMP];
	sl_err		err;

	if (st->last < 0 || !st->by_key)
		return 0;
	if (sl_store_entry_check(d->hash, 32, st->entry[st->last], st->len[st->last],
							 &fuzz_limits, &err))
		return 0;
	return entry_lengths(st->entry[st->last], st->len[st->last], lens) == 0 &&
		memcmp(lens, d->len, sizeof(lens)) == 0;
}

/*
 * Re-encode a verified value with mode: it must verify, hash as hash, keep
 * the summary, and hold every chunk by reference (SL_ADD_REFS) or none
 * (SL_ADD_RESOLVE). The encoded bytes go to out.
 */
static void
reencode(sl_value *v, sl_add_mode mode, const uint8_t hash[32], sl_buf *out)
{
	sl_builder	b;
	sl_encode_opts opts = sl_default_encode_opts;
	sl_header	h;
	sl_err		err;

	memset(&b, 0, sizeof(b));
	opts.level = 1;
	/* a value without a summary (versions 1 and 2, 0.9.0's) is rebuilt without one */
	opts.no_summary = !sl_value_has_summary(v);
	out->len = 0;
	reset(&err);
	if (sl_builder_add_value(&b, v, mode, &err))
	{
		fuzz_check_err(&err);
		FUZZ_CHECK(0, "builder_add_value (mode %d) of a verified value failed: %s", (int) mode, err.msg);
	}
	reset(&err);
	if (sl_builder_encode(&b, &opts, &fuzz_limits, out, &err))
	{
		fuzz_check_err(&err);
		FUZZ_CHECK(0, "re-encoding (mode %d) a verified value failed: %s", (int) mode, err.msg);
	}
	reset(&err);
	if (sl_value_verify(out->data, out->len, &fuzz_limits, &err))
	{
		fuzz_check_err(&err);
		FUZZ_CHECK(0, "re-encoded (mode %d) value fails verify: %s", (int) mode, err.msg);
	}
	reset(&err);
	FUZZ_CHECK(sl_value_summary(out->data, out->len, &h, &err) == 0,
			   "re-encoded header: %s", err.msg);
	FUZZ_CHECK(h.version == SL_VALUE_VERSION, "re-encoded as version %u", h.version);
	FUZZ_CHECK(memcmp(h.hash, hash, 32) == 0,
			   "re-encoded (mode %d) value has another content hash", (int) mode);
	FUZZ_CHECK(h.chunk_count == v->hdr.chunk_count && h.raw_bytes == v->hdr.raw_bytes &&
			   h.world_len == v->hdr.world_len && h.dv_min == v->hdr.dv_min &&
			   h.dv_max == v->hdr.dv_max && h.min_x == v->hdr.min_x &&
			   h.max_x == v->hdr.max_x && h.min_z == v->hdr.min_z && h.max_z == v->hdr.max_z,
			   "re-encoded (mode %d) summary differs", (int) mode);
	/* the summary kept, byte for byte */
	{
		sl_value	o;
		sl_buf		a = {0},
					c = {0};

		reset(&err);
		FUZZ_CHECK(sl_value_open_mem(&o, out->data, out->len, &fuzz_limits, &err) == 0, "open re-encoded: %s", err.msg);
		summary_raw(v, &a);
		summary_raw(&o, &c);
		if (a.len)
			FUZZ_CHECK(c.len == a.len && memcmp(a.data, c.data, a.len) == 0,
					   "re-encoded (mode %d) value has another contents summary", (int) mode);
		sl_value_close(&o);
		sl_buf_free(&a);
		sl_buf_free(&c);
	}
	if (mode == SL_ADD_REFS)
		FUZZ_CHECK(h.ref_count == h.chunk_count, "reference form holds %u of %u chunks by reference",
				   h.ref_count, h.chunk_count);
	else if (mode == SL_ADD_RESOLVE)
		FUZZ_CHECK(h.ref_count == 0, "resolved form holds %u references", h.ref_count);
	else
		FUZZ_CHECK(h.ref_count == v->hdr.ref_count, "kept %u of %u references",
				   h.ref_count, v->hdr.ref_count);
	sl_builder_free(&b);
}

/* The same value re-encoded by reference from a resolved copy gives the same bytes. */
static void
check_forms(sl_value *v, fstore *st, const uint8_t hash[32])
{
	sl_buf		keep = {0},
				refs = {0},
				resolved = {0},
				refs2 = {0};
	sl_value	r;
	sl_err		err;
	uint8_t		h2[32];

	reencode(v, SL_ADD_KEEP, hash, &keep);
	reencode(v, SL_ADD_REFS, hash, &refs);
	if (st)
	{
		reencode(v, SL_ADD_RESOLVE, hash, &resolved);
		reset(&err);
		FUZZ_CHECK(sl_value_open_mem(&r, resolved.data, resolved.len, &fuzz_limits, &err) == 0,
				   "open resolved: %s", err.msg);
		reset(&err);
		FUZZ_CHECK(sl_value_content_hash(&r, h2, &err) == 0 && memcmp(h2, hash, 32) == 0,
				   "resolved content hash: %s", err.msg);
		reencode(&r, SL_ADD_REFS, hash, &refs2);
		FUZZ_CHECK(refs.len == refs2.len && memcmp(refs.data, refs2.data, refs.len) == 0,
				   "the reference forms of a value and of its resolved copy differ");
		sl_value_close(&r);
	}
	sl_buf_free(&keep);
	sl_buf_free(&refs);
	sl_buf_free(&resolved);
	sl_buf_free(&refs2);
}

/* The documents of the rank-th reference read through the value's resolver, its lengths d's (sl_sfcold_docs_fn). */
static int
rank_docs(void *ctx, uint32_t rank, const sl_dirent *d, const uint8_t *comp[SL_NCOMP], sl_err *err)
{
	cold_ctx   *c = ctx;
	sl_dirent	e;

	if (rank >= c->n)
		return sl_fail(err, SL_ERR_INVALID, "rank %u of %u", rank, c->n);
	if (c->view)
	{
		/* the documents of version 2's prefix (made before), back to back */
		for (int k = 0; k < SL_NCOMP; k++)
		{
			comp[k] = d->len[k] ? c->view + c->at[rank] + (k > 0 ? d->len[0] : 0) + (k > 1 ? d->len[1] : 0) : NULL;
		}
		return 0;
	}
	if (sl_value_chunk(c->v, c->refs[rank].chunk, &e, comp, err))
		return -1;
	return memcmp(e.len, d->len, sizeof(e.len)) == 0 ? 0 : sl_fail(err, SL_ERR_NOTFOUND, "other lengths");
}

/*
 * The prefixes of the loader's cold forms: the references listed in hash
 * order, distinct, each at a chunk holding it; version 1's prefix through
 * the resolver and by rank alike; version 2's through the resolver, and in
 * place when its documents lie back to back.
 */
static void
check_prefixes(sl_value *v)
{
	cold_ctx	c = {v, NULL, 0, NULL, NULL};
	sl_buf		one = {0},
				ranked = {0},
				two = {0},
				again = {0};
	const uint8_t *p2,
			   *p3;
	size_t		l2,
				l3;
	sl_err		err;
	int			ok1,
				ok2;
	uint32_t	dir_refs = 0;

	reset(&err);
	if (sl_sfcold_refs(v, &c.refs, &c.n, &err))
	{
		fuzz_check_any_err(&err);
		return;
	}
	for (uint32_t k = 0; k < c.n; k++)
	{
		sl_dirent	d;

		FUZZ_CHECK(k == 0 || memcmp(c.refs[k - 1].hash, c.refs[k].hash, 32) < 0, "references not in hash order");
		FUZZ_CHECK(c.refs[k].chunk < v->hdr.chunk_count && sl_value_dirent(v, c.refs[k].chunk, &d, &err) == 0 &&
				   d.ref && memcmp(d.hash, c.refs[k].hash, 32) == 0, "reference %u at a chunk not holding it", k);
	}
	ok1 = sl_sfcold_prefix(v, &one, &err) == 0;
	if (!ok1)
		fuzz_check_any_err(&err);
	reset(&err);
	if (sl_sfcold_prefix_ranked(v, c.refs, c.n, rank_docs, &c, &ranked, &err) == 0)
		FUZZ_CHECK(ok1 && ranked.len == one.len && (one.len == 0 || memcmp(ranked.data, one.data, one.len) == 0),
				   "version 1's prefix by rank differs");
	else
		fuzz_check_any_err(&err);
	reset(&err);
	ok2 = sl_sfcold_prefix_hashed(v, c.refs, c.n, NULL, NULL, 0, &two, &p2, &l2, &err) == 0;
	if (!ok2)
		fuzz_check_any_err(&err);
	for (uint32_t i = 0; i < v->hdr.chunk_count; i++)
	{
		sl_dirent	d;

		if (sl_value_dirent(v, i, &d, &err) == 0)
			dir_refs += d.ref;
	}
	/* a repeated reference is once in version 2's prefix, twice in version 1's */
	if (ok1 && ok2)
		FUZZ_CHECK(l2 <= one.len && (c.n < dir_refs || l2 == one.len),
				   "version 2's prefix of %zu bytes, version 1's %zu", l2, one.len);
	if (ok2 && dir_refs == v->hdr.chunk_count && (c.at = calloc(c.n + 1, sizeof(size_t))) != NULL)
	{
		/* each reference's documents where version 2's prefix holds them */
		for (uint32_t k = 0; k < c.n; k++)
		{
			sl_dirent	d;

			FUZZ_CHECK(sl_value_dirent(v, c.refs[k].chunk, &d, &err) == 0, "dirent: %s", err.msg);
			c.at[k + 1] = c.at[k] + d.len[0] + d.len[1] + d.len[2];
		}
		c.view = p2;
		reset(&err);
		FUZZ_CHECK(c.at[c.n] == l2 &&
				   sl_sfcold_prefix_hashed(v, c.refs, c.n, rank_docs, &c, 1, &again, &p3, &l3, &err) == 0 &&
				   l3 == l2 && (l2 == 0 || p3 == p2), "version 2's prefix in place: %s", err.msg);
		free(c.at);
	}
	sl_free(c.refs);
	sl_buf_free(&one);
	sl_buf_free(&ranked);
	sl_buf_free(&two);
	sl_buf_free(&again);
}

/* The contents summary of an open value (see the invariants above). */
static void
check_summary(sl_value *v)
{
	sl_vsum		s,
				counted;
	sl_buf		raw = {0},
				again = {0};
	sl_err		err;

	if (!sl_value_has_summary(v))
		return;
	memset(&s, 0, sizeof(s));
	memset(&counted, 0, sizeof(counted));
	reset(&err);
	if (sl_value_read_summary(v, &s, &err))
	{
		fuzz_check_err(&err);
		goto done;
	}
	summary_raw(v, &raw);
	reset(&err);
	FUZZ_CHECK(sl_vsum_encode(&s, &again, &err) == 0 && again.len == raw.len &&
			   memcmp(again.data, raw.data, raw.len) == 0, "a summary that reads is not its bytes encoded again");
	for (int k = 0; k < SL_SUM_KINDS; k++)
	{
		sl_counts	m = {0};
		uint64_t	failed;

		reset(&err);
		FUZZ_CHECK(sl_vsum_decode_table(raw.data, raw.len, k, &m, &failed, &err) == 0,
				   "table %d alone: %s", k, err.msg);
		FUZZ_CHECK(failed == s.failed[k] && (failed ? m.used == 0 : m.used == s.c[k].used),
				   "table %d alone differs", k);
		sl_counts_free(&m);
	}
	reset(&err);
	if (sl_value_count_summary(v, &counted, &err))
		fuzz_check_any_err(&err);
	else if (!sl_vsum_equal(&s, &counted, &err))
	{
		reset(&err);
		FUZZ_CHECK(sl_value_check_summary(v, &err) == -1 && err.code == SL_ERR_CORRUPT,
				   "a summary other than its chunks' counts passes sl_value_check_summary");
	}
done:
	sl_vsum_free(&s);
	sl_vsum_free(&counted);
	sl_buf_free(&raw);
	sl_buf_free(&again);
}

/* Read everything an open value holds; with verified, inline reads must succeed. */
static void
read_all(const uint8_t *data, size_t size, fstore *st, int verified)
{
	sl_value	v;
	sl_err		err;
	const uint8_t *world;
	size_t		world_len;
	uint32_t	good_refs = 0;	/* reference chunks read from entries that check */

	reset(&err);
	if (sl_value_open_mem(&v, data, size, &fuzz_limits, &err))
	{
		fuzz_check_err(&err);
		FUZZ_CHECK(!verified, "open failed on a verified value: %s", err.msg);
		return;
	}
	v.resolve = resolve;
	v.resolve_ctx = st;
	for (uint32_t i = 0; i < v.hdr.frame_count && i < 4096; i++)
	{
		sl_frame	f;

		reset(&err);
		if (sl_value_frame(&v, i, &f, &err))
		{
			fuzz_check_err(&err);
			FUZZ_CHECK(!verified, "frame %u of a verified value: %s", i, err.msg);
		}
	}
	for (uint32_t i = 0; i < v.hdr.chunk_count; i++)
	{
		sl_dirent	d;
		const uint8_t *comp[SL_NCOMP];
		int			good_entry = 0;

		reset(&err);
		memset(&d, 0, sizeof(d));
		st->last = -1;
		st->by_key = 0;
		if (sl_value_chunk(&v, i, &d, comp, &err))
		{
			/* this harness's resolver answers SL_ERR_NOTFOUND for a key it lacks */
			if (d.ref && st->last < 0)
				fuzz_check_any_err(&err);
			else
				fuzz_check_err(&err);
			if (d.ref && st->last >= 0)
			{
				/* the resolver answered: the entry or the directory is wrong */
				FUZZ_CHECK(err.code == SL_ERR_CORRUPT,
						   "reference chunk %u: code %d: %s", i, (int) err.code, err.msg);
				FUZZ_CHECK(!entry_good(st, &d),
						   "reference chunk %u with a good entry failed: %s", i, err.msg);
			}
			FUZZ_CHECK(!verified || d.ref, "chunk %u of a verified value: %s", i, err.msg);
			/* a damaged value: give up after many failing chunks */
			if (i > 64)
				break;
			continue;
		}
		if (d.ref)
		{
			uint8_t		h[32];

			FUZZ_CHECK(st->last >= 0, "reference chunk %u read without the resolver", i);
			sl_chunk_hash(&d, comp, h);
			FUZZ_CHECK(memcmp(h, d.hash, 32) == 0,
					   "reference chunk %u read bytes of another hash", i);
			good_entry = entry_good(st, &d);
			good_refs += good_entry;
		}
		for (int k = 0; k < SL_NCOMP; k++)
		{
			FUZZ_CHECK((comp[k] == NULL) == (d.len[k] == 0), "chunk %u component %d pointer", i, k);
			if (d.len[k] == 0)
				continue;
			touch(comp[k], d.len[k]);
			if (verified && (!d.ref || good_entry))
			{
				size_t		used = 0;

				reset(&err);
				FUZZ_CHECK(sl_nbt_check(comp[k], d.len[k], 0, &fuzz_limits, &used, &err) == 0 &&
						   used == d.len[k],
						   "chunk (%d,%d) component %d of a verified value is not one NBT document: %s",
						   d.x, d.z, k, err.msg);
			}
		}
		if (verified)
			FUZZ_CHECK(sl_value_find(&v, d.x, d.z) == (int64_t) i,
					   "sl_value_find(%d,%d) did not find chunk %u", d.x, d.z, i);
		else
			(void) sl_value_find(&v, d.x, d.z);
	}
	(void) sl_value_find(&v, 0, 0);
	(void) sl_value_find(&v, INT32_MIN, INT32_MAX);

	reset(&err);
	if (sl_value_world(&v, &world, &world_len, &err))
	{
		fuzz_check_err(&err);
		FUZZ_CHECK(!verified, "world of a verified value: %s", err.msg);
	}
	else
	{
		FUZZ_CHECK(world_len == v.hdr.world_len, "world %zu bytes, header %u",
				   world_len, v.hdr.world_len);
		if (world_len)
			touch(world, world_len);
	}
	if (verified)
	{
		uint8_t		hash[32];
		uint32_t	dir_refs = 0;

		for (uint32_t i = 0; i < v.hdr.chunk_count; i++)
		{
			sl_dirent	d;

			reset(&err);
			FUZZ_CHECK(sl_value_dirent(&v, i, &d, &err) == 0, "dirent %u: %s", i, err.msg);
			dir_refs += d.ref;
		}
		FUZZ_CHECK(dir_refs == sl_value_ref_count(&v), "%u references in the directory, %u in the header",
				   dir_refs, sl_value_ref_count(&v));
		reset(&err);
		FUZZ_CHECK(sl_value_content_hash(&v, hash, &err) == 0,
				   "content hash of a verified value: %s", err.msg);
		FUZZ_CHECK(v.hdr.version == 1 || memcmp(hash, v.hdr.hash, 32) == 0,
				   "v2 content hash differs from the header's");
		/* resolving needs every entry readable and well-formed */
		check_forms(&v, good_refs == dir_refs ? st : NULL, hash);
	}
	check_prefixes(&v);
	check_summary(&v);
	sl_value_close(&v);
}

static void
one(const uint8_t *data, size_t size, fstore *st)
{
	sl_err		err;
	int			ok;

	reset(&err);
	ok = sl_value_verify(data, size, &fuzz_limits, &err) == 0;
	if (!ok)
		fuzz_check_err(&err);
	read_all(data, size, st, ok);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t		vlen = size;
	fstore		st;
	uint8_t    *value;

	if (size >= SL_HEADER_SIZE && memcmp(data, SL_VALUE_MAGIC, 4) == 0)
	{
		uint32_t	t = sl_get_u32le(data + 28);

		if (t >= SL_HEADER_SIZE && t < size)
			vlen = t;
	}
	parse_store(&st, data + vlen, size - vlen);
	value = fuzz_dup(data, vlen);	/* so ASan sees reads past the value */
	one(value, vlen, &st);

	/* v3: patch the metadata CRC (offset 8) so that mutations reach the directory */
	if (vlen >= SL_HEADER3_FIXED && memcmp(value, SL_VALUE_MAGIC, 4) == 0 &&
		sl_get_u32le(value + 4) % 65536 == 3)
	{
		sl_header	h3;
		sl_err		e3;

		if (sl_header_parse(value, vlen, vlen, &h3, &e3) == 0)
		{
			static const uint8_t zero3[4] = {0};
			uint32_t	crc3 = sl_crc32(0, value, 8);

			crc3 = sl_crc32(crc3, zero3, 4);
			crc3 = sl_crc32(crc3, value + 12, h3.payload_offset - 12);
			if (crc3 != sl_get_u32le(value + 8))
			{
				sl_put_u32le(value + 8, crc3);
				one(value, vlen, &st);
			}
		}
	}
	/* v1/v2: patch total_len (when there is no store) and the metadata CRC */
	else if (vlen >= SL_HEADER_SIZE && memcmp(value, SL_VALUE_MAGIC, 4) == 0)
	{
		uint32_t	payload,
					crc;
		static const uint8_t zero[4] = {0};

		sl_put_u32le(value + 28, (uint32_t) vlen);
		payload = sl_get_u32le(value + 24);
		if (payload >= 76 && payload <= vlen)
		{
			crc = sl_crc32(0, value, 72);
			crc = sl_crc32(crc, zero, 4);
			crc = sl_crc32(crc, value + 76, payload - 76);
			if (crc != sl_get_u32le(value + 72) || memcmp(value, data, vlen) != 0)
			{
				sl_put_u32le(value + 72, crc);
				one(value, vlen, &st);
			}
		}
	}
	free(value);
	return 0;
}
