/*
 * gen_seeds.c - writes generated seed inputs for the fuzz targets.
 *
 *   build/fuzz/gen_seeds OUTDIR [REGION_FILE...]
 *
 * OUTDIR/<target>/ receives hand-built cases (every NBT tag type, string
 * edge cases, deep nesting, region files of every compression type, an
 * external chunk, damaged layouts, values with several frames, world data,
 * entities and POI, format v1 values, values holding chunk store references
 * followed by their store records, store entries good and damaged) and,
 * from each region file named on the command line (read in place, never
 * copied), the decompressed NBT of a few of its smallest chunks plus their
 * gzip/zlib/raw/LZ4 streams written by our codecs and their store entries.
 *
 *   build/fuzz/gen_seeds --refs OUTDIR VALUE...
 *
 * writes, for each value file, its reference form and a mixed form (every
 * other chunk by reference), each followed by the store records of its
 * references (fuzz_value's input layout), as OUTDIR/value/<name>.refs and
 * <name>.mixed. Everything written here is produced by this program; run
 * by test/fuzz/seeds.sh.
 */
#include "../unit/nbt_build.h"
#include "sl_bcodec.h"
#include "sl_build.h"
#include "sl_codec.h"
#include "sl_nbt.h"
#include "sl_region.h"
#include "sl_pack.h"
#include "sl_sfcold.h"
#include "sl_slimefile.h"
#include "sl_store.h"
#include "sl_value.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zstd.h>

static const char *outdir;
static int	nwritten;

static void
die(const char *what, const sl_err *err)
{
	fprintf(stderr, "gen_seeds: %s%s%s\n", what, err ? ": " : "", err ? err->msg : "");
	exit(1);
}

static void
put(const char *target, const char *name, const void *data, size_t len)
{
	char		path[4096];
	FILE	   *f;

	snprintf(path, sizeof(path), "%s/%s", outdir, target);
	if (mkdir(path, 0755) != 0 && errno != EEXIST)
		die(path, NULL);
	snprintf(path, sizeof(path), "%s/%s/%s", outdir, target, name);
	f = fopen(path, "wb");
	if (f == NULL || (len && fwrite(data, 1, len, f) != len) || fclose(f) != 0)
		die(path, NULL);
	nwritten++;
}

static void
put_buf(const char *target, const char *name, const sl_buf *b)
{
	put(target, name, b->data, b->len);
}

/* ---- a raw NBT writer (it may write anything, valid or not) ---- */
static sl_buf w;
static sl_err werr;

static void
raw(const void *p, size_t n)
{
	if (sl_buf_put(&w, p, n, &werr))
		die("out of memory", NULL);
}
static void u8(unsigned v) { uint8_t b = (uint8_t) v; raw(&b, 1); }
static void be16(unsigned v) { u8(v >> 8); u8(v); }
static void be32(uint32_t v) { be16(v >> 16); be16(v & 0xFFFF); }
static void be64(uint64_t v) { be32((uint32_t) (v >> 32)); be32((uint32_t) v); }
static void str(const char *s) { be16((unsigned) strlen(s)); raw(s, strlen(s)); }
static void strn(const void *s, size_t n) { be16((unsigned) n); raw(s, n); }
static void tag(int type, const char *name) { u8(type); str(name); }
static void end(void) { u8(0); }

static void
f64(double d)
{
	uint64_t	b;

	memcpy(&b, &d, 8);
	be64(b);
}

static void
f32(float f)
{
	uint32_t	b;

	memcpy(&b, &f, 4);
	be32(b);
}

static void
reset(void)
{
	w.len = 0;
}

/* Check w as an NBT document (any root) and return its bytes as a copy. */
static sl_buf
take(int must_be_valid)
{
	sl_buf		b = {0};
	size_t		used;
	sl_err		err;

	if (must_be_valid &&
		(sl_nbt_check(w.data, w.len, 1, &sl_default_limits, &used, &err) || used != w.len))
		die("generated NBT does not check", &err);
	if (sl_buf_put(&b, w.data, w.len, &err))
		die("out of memory", NULL);
	return b;
}

/* A chunk-like compound with every tag type. */
static sl_buf
nbt_all_types(int32_t dv, int32_t x, int32_t z)
{
	static const uint8_t mutf8_nul[] = {'a', 0xC0, 0x80, 'b'};
	static const uint8_t mutf8_pair[] = {0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80};	/* U+1F600 */
	static const uint8_t lone_surr[] = {0xED, 0xA0, 0x80};
	static const uint8_t utf8_4[] = {0xF0, 0x9F, 0x98, 0x80};
	static const uint8_t bad[] = {0xFF, 0x00, 0x80, 'x'};

	reset();
	tag(10, "");
	tag(3, "DataVersion"); be32((uint32_t) dv);
	tag(10, "Level");
	tag(3, "xPos"); be32((uint32_t) x);
	tag(3, "zPos"); be32((uint32_t) z);
	tag(4, "LastUpdate"); be64(123456789);
	end();
	tag(3, "xPos"); be32((uint32_t) x);
	tag(3, "zPos"); be32((uint32_t) z);
	tag(1, "byte"); u8(0xFE);
	tag(2, "short"); be16(300);
	tag(4, "long"); be64(0x8000000000000000ULL);
	tag(5, "float"); f32(0.1f);
	tag(5, "fnan"); f32(NAN);
	tag(5, "fneg0"); f32(-0.0f);
	tag(6, "double"); f64(0.1);
	tag(6, "big"); f64(1e300);
	tag(6, "tiny"); f64(5e-324);
	tag(6, "inf"); f64(-INFINITY);
	tag(6, "neg0"); f64(-0.0);
	tag(6, "hundred"); f64(100.0);
	tag(7, "bytes"); be32(3); u8(1); u8(0xFF); u8(127);
	tag(7, "nobytes"); be32(0);
	tag(8, "str"); str("hello \"quoted\" \\ \n tab\t");
	tag(8, "empty"); str("");
	tag(8, "mnul"); strn(mutf8_nul, sizeof(mutf8_nul));
	tag(8, "pair"); strn(mutf8_pair, sizeof(mutf8_pair));
	tag(8, "lone"); strn(lone_surr, sizeof(lone_surr));
	tag(8, "utf8_4"); strn(utf8_4, sizeof(utf8_4));
	tag(8, "bad"); strn(bad, sizeof(bad));
	tag(8, "\xC3\xA9t\xC3\xA9"); str("\xE2\x82\xAC");
	tag(9, "emptyend"); u8(0); be32(0);
	tag(9, "emptyint"); u8(3); be32(0);
	tag(9, "ints"); u8(3); be32(2); be32(1); be32(2);
	tag(9, "strs"); u8(8); be32(2); str("a"); str("b");
	tag(9, "lists"); u8(9); be32(2); u8(1); be32(1); u8(7); u8(0); be32(0);
	tag(9, "comps"); u8(10); be32(2);
	tag(3, "a"); be32(1); end();
	end();
	tag(9, "dbl"); u8(6); be32(1); f64(2.5);
	tag(9, "arrs"); u8(11); be32(1); be32(2); be32(7); be32(0xFFFFFFFF);
	tag(10, "reserved"); tag(1, "byte"); u8(1); end();
	tag(10, "resc"); tag(10, "compound"); end(); end();
	tag(10, "empty_c"); end();
	tag(11, "ia"); be32(2); be32(1); be32(2);
	tag(12, "la"); be32(1); be64(0xFFFFFFFFFFFFFFFFULL);
	tag(3, "dup"); be32(1);
	tag(3, "dup"); be32(2);
	end();
	return take(1);
}

/* A compound with nested lists depth levels deep. */
static sl_buf
nbt_deep(int depth, int as_compounds)
{
	reset();
	tag(10, "");
	for (int i = 0; i < depth; i++)
	{
		if (as_compounds)
			tag(10, "c");
		else
		{
			tag(9, "l");
			u8(10);
			be32(1);
			tag(9, "l");
			u8(0);
			be32(0);
		}
	}
	for (int i = 0; i < depth; i++)
		end();
	end();
	return take(0);
}

static void
gen_nbt(void)
{
	sl_buf		b;
	char		name[64];

	b = nbt_all_types(3700, 5, -7);
	put_buf("nbt", "gen-all-types.nbt", &b);
	/* truncated copies: errors at many offsets */
	for (size_t cut = 1; cut < b.len; cut += b.len / 7 + 1)
	{
		snprintf(name, sizeof(name), "gen-all-types-cut%zu.nbt", cut);
		put("nbt", name, b.data, cut);
	}
	/* trailing bytes after the root */
	sl_buf_put(&b, "\x0a\x00\x00\x00", 4, &werr);
	put_buf("nbt", "gen-trailing.nbt", &b);
	sl_buf_free(&b);

	for (int d = 8; d <= 80; d += 24)
	{
		b = nbt_deep(d, 1);
		snprintf(name, sizeof(name), "gen-deep-compound-%d.nbt", d);
		put_buf("nbt", name, &b);
		sl_buf_free(&b);
		b = nbt_deep(d / 2, 0);
		snprintf(name, sizeof(name), "gen-deep-list-%d.nbt", d / 2);
		put_buf("nbt", name, &b);
		sl_buf_free(&b);
	}

	/* roots of other types */
	reset(); tag(8, "root"); str("just a string");
	put("nbt", "gen-root-string.nbt", w.data, w.len);
	reset(); tag(3, ""); be32(42);
	put("nbt", "gen-root-int.nbt", w.data, w.len);
	reset(); tag(9, "r"); u8(6); be32(2); f64(1.5); f64(-2.0);
	put("nbt", "gen-root-list.nbt", w.data, w.len);
	reset(); tag(12, ""); be32(2); be64(1); be64(2);
	put("nbt", "gen-root-longarray.nbt", w.data, w.len);
	/* hostile counts and lengths */
	reset(); tag(10, ""); tag(7, "b"); be32(0x7FFFFFFF); end();
	put("nbt", "gen-huge-bytearray.nbt", w.data, w.len);
	reset(); tag(10, ""); tag(9, "l"); u8(10); be32(0xFFFFFFFF); end();
	put("nbt", "gen-negative-list.nbt", w.data, w.len);
	reset(); tag(10, ""); tag(9, "l"); u8(1); be32(100000); end();
	put("nbt", "gen-long-list.nbt", w.data, w.len);
	reset(); tag(10, ""); tag(9, "l"); u8(0); be32(5); end();
	put("nbt", "gen-end-list-count.nbt", w.data, w.len);
	reset(); tag(10, ""); tag(13, "bad"); end();
	put("nbt", "gen-bad-type.nbt", w.data, w.len);
	reset(); u8(0);
	put("nbt", "gen-end-root.nbt", w.data, w.len);
	{
		/* a reserved-word key in a single-entry root */
		reset(); tag(10, ""); tag(8, "mutf8"); str("x"); end();
		put("nbt", "gen-reserved-root.nbt", w.data, w.len);
		/* a key JSON cannot hold */
		reset(); tag(10, ""); u8(3); strn("\xC0\x80", 2); be32(1); end();
		put("nbt", "gen-nul-key.nbt", w.data, w.len);
	}
}

/* ---- codecs ---- */
static void
gen_streams(const char *base, const uint8_t *data, size_t len)
{
	char		name[256];
	static const struct
	{
		sl_deflate_kind kind;
		const char *ext;
	}			kinds[] = {{SL_DEFLATE_GZIP, "gz"}, {SL_DEFLATE_ZLIB, "zlib"}, {SL_DEFLATE_RAW, "deflate"}};
	sl_err		err;

	for (int k = 0; k < 3; k++)
	{
		sl_buf		b = {0};

		if (sl_deflate(kinds[k].kind, k == 0 ? 6 : (k == 1 ? 1 : 12), data, len, &b, &err))
			die("deflate", &err);
		if (b.len <= 65536)
		{
			snprintf(name, sizeof(name), "%s.%s", base, kinds[k].ext);
			put_buf("inflate", name, &b);
		}
		sl_buf_free(&b);
	}
	{
		sl_buf		b = {0};

		if (sl_lz4block_encode(data, len, &b, &err))
			die("lz4 encode", &err);
		if (b.len <= 65536)
		{
			snprintf(name, sizeof(name), "%s.lz4", base);
			put_buf("lz4", name, &b);
		}
		sl_buf_free(&b);
	}
}

static void
gen_codecs(void)
{
	static uint8_t buf[70000];
	uint32_t	s = 12345;

	gen_streams("gen-empty", buf, 0);
	memset(buf, 'a', sizeof(buf));
	gen_streams("gen-run-1k", buf, 1000);
	gen_streams("gen-run-70k", buf, sizeof(buf));	/* two LZ4 blocks */
	for (size_t i = 0; i < sizeof(buf); i++)
	{
		s = s * 1103515245 + 12345;
		buf[i] = (uint8_t) (s >> 16);
	}
	gen_streams("gen-random-300", buf, 300);	/* raw LZ4 block, stored deflate */
	gen_streams("gen-random-20k", buf, 20000);
	{
		sl_buf		b = nbt_all_types(1, 2, 3);

		gen_streams("gen-nbt", b.data, b.len);
		sl_buf_free(&b);
	}
}

/* ---- regions ---- */
static void
chunk_at(sl_region_chunk *c, int32_t x, int32_t z, uint32_t ts)
{
	sl_buf		b = nbt_all_types(3700, x, z);

	memset(c, 0, sizeof(*c));
	c->x = x;
	c->z = z;
	c->timestamp = ts;
	c->nbt = b.data;
	c->nbt_len = b.len;
}

static void
gen_regions(void)
{
	sl_region_chunk ch[3];
	char		name[64];
	sl_err		err;
	uint8_t		zero[SL_SECTOR * 2] = {0};

	put("region", "gen-empty.mca", "", 0);
	put("region", "gen-header-only.mca", zero, sizeof(zero));
	put("region", "gen-short.mca", zero, 100);

	chunk_at(&ch[0], 0, 0, 1000);
	chunk_at(&ch[1], 31, 0, 2000);
	chunk_at(&ch[2], 5, 31, 3000);
	for (int comp = 1; comp <= 4; comp++)
	{
		sl_buf		b = {0};

		if (sl_region_write(ch, 3, 0, 0, comp, &b, NULL, NULL, &err))
			die("region write", &err);
		snprintf(name, sizeof(name), "gen-type%d.mca", comp);
		put_buf("region", name, &b);

		if (comp == 2)
		{
			/* unpadded: the last chunk ends inside a short final sector */
			uint32_t	loc = sl_get_u32be(b.data + 4 * (5 + 31 * 32));
			size_t		pos = (size_t) (loc >> 8) * SL_SECTOR;
			size_t		end = pos + 4 + sl_get_u32be(b.data + pos);

			put("region", "gen-unpadded.mca", b.data, end);
			/* the off-by-one writer: length field one short */
			sl_put_u32be(b.data + pos, sl_get_u32be(b.data + pos) - 1);
			put("region", "gen-length-short.mca", b.data, b.len);
			sl_put_u32be(b.data + pos, sl_get_u32be(b.data + pos) + 1);
			/* two chunks sharing sectors */
			memcpy(b.data + 4, b.data, 4);
			put("region", "gen-overlap.mca", b.data, b.len);
			/* a sector inside the header, one past the end */
			sl_put_u32be(b.data + 4, (1u << 8) | 1);
			sl_put_u32be(b.data + 8, (4000u << 8) | 2);
			put("region", "gen-bad-sectors.mca", b.data, b.len);
			/* compression types that are rejected by name */
			sl_put_u32be(b.data + 4, 0);
			sl_put_u32be(b.data + 8, 0);
			b.data[pos + 4] = 127;
			put("region", "gen-type127.mca", b.data, b.len);
			b.data[pos + 4] = 5;
			put("region", "gen-type5.mca", b.data, b.len);
		}
		sl_buf_free(&b);
	}

	/* an external chunk: stub in sector 2, the .mcc stream from sector 3 on */
	{
		sl_buf		b = {0},
					z = {0};

		if (sl_deflate(SL_DEFLATE_ZLIB, 6, ch[0].nbt, ch[0].nbt_len, &z, &err))
			die("deflate", &err);
		sl_buf_put(&b, zero, sizeof(zero), &err);
		sl_put_u32be(b.data, (2u << 8) | 1);
		sl_put_u32be(b.data + SL_SECTOR, 0x5F5E1000u);
		sl_buf_put_u32be(&b, 1, &err);
		sl_buf_put_u8(&b, 128 + 2, &err);
		sl_buf_put(&b, zero, SL_SECTOR - 5, &err);
		sl_buf_put(&b, z.data, z.len, &err);
		put_buf("region", "gen-external.mca", &b);
		b.data[2 * SL_SECTOR + 4] = 128 + 1;	/* claims gzip: wrong */
		put_buf("region", "gen-external-badtype.mca", &b);
		sl_buf_free(&b);
		sl_buf_free(&z);
	}
	for (int i = 0; i < 3; i++)
		sl_free(ch[i].nbt);
}

/* ---- chunk store entries (fuzz_store: key, then entry) ---- */

/* Write key + entry as a fuzz_store input. */
static void
put_entry(const char *name, const uint8_t key[32], const uint8_t *entry, size_t len)
{
	sl_buf		b = {0};
	sl_err		err;

	if (sl_buf_put(&b, key, 32, &err) || sl_buf_put(&b, entry, len, &err))
		die("out of memory", NULL);
	put_buf("store", name, &b);
	sl_buf_free(&b);
}

/* Encode a chunk's components as a store entry into e (cleared first). */
static void
entry_of(const uint32_t len[SL_NCOMP], const uint8_t *const comp[SL_NCOMP], sl_buf *e,
		 uint8_t key[32])
{
	sl_err		err;

	e->len = 0;
	if (sl_store_entry_encode(len, comp, 3, e, key, &err))
		die("store entry encode", &err);
}

/* A chunk's components as a dense store entry (0x01, lengths, block codec stream) into e. */
static void
dense_entry_of(const uint32_t len[SL_NCOMP], const uint8_t *const comp[SL_NCOMP], sl_buf *e)
{
	sl_buf		docs = {0};
	uint8_t		head[SL_DENSE_HEADER];
	sl_err		err;

	head[0] = SL_ENTRY_DENSE;
	for (int k = 0; k < SL_NCOMP; k++)
	{
		sl_put_u32le(head + 1 + 4 * k, len[k]);
		if (len[k] && sl_buf_put(&docs, comp[k], len[k], &err))
			die("out of memory", NULL);
	}
	e->len = 0;
	if (sl_buf_put(e, head, sizeof(head), &err) || sl_bcodec_encode(docs.data, docs.len, SL_BCODEC_V1, e, &err))
		die("dense entry encode", &err);
	sl_buf_free(&docs);
}

/* Raw entry bytes (lengths, then data) compressed with the given zstd flags. */
static void
raw_entry(const uint32_t len[SL_NCOMP], const uint8_t *data, size_t data_len,
		  int checksum, int content_size, sl_buf *e)
{
	sl_buf		raw = {0};
	uint8_t		head[SL_ENTRY_HEADER];
	ZSTD_CCtx  *cctx = ZSTD_createCCtx();
	size_t		n;
	sl_err		err;

	for (int k = 0; k < SL_NCOMP; k++)
		sl_put_u32le(head + 4 * k, len[k]);
	if (sl_buf_put(&raw, head, sizeof(head), &err) ||
		(data_len && sl_buf_put(&raw, data, data_len, &err)))
		die("out of memory", NULL);
	e->len = 0;
	if (cctx == NULL || sl_buf_reserve(e, ZSTD_compressBound(raw.len), &err))
		die("out of memory", NULL);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 3);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, checksum);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, content_size);
	n = ZSTD_compress2(cctx, e->data, ZSTD_compressBound(raw.len), raw.data, raw.len);
	if (ZSTD_isError(n))
		die("zstd", NULL);
	e->len = n;
	ZSTD_freeCCtx(cctx);
	sl_buf_free(&raw);
}

static void
gen_store(void)
{
	sl_buf		docs[3],
				e = {0},
				t = {0};
	uint8_t		key[32],
				zero[32];
	uint32_t	len[SL_NCOMP];
	const uint8_t *comp[SL_NCOMP];
	sl_dirent	d;

	memset(zero, 0, sizeof(zero));
	for (int i = 0; i < 3; i++)
		docs[i] = nbt_all_types(3700 + i, i, i);

	/* good entries: region only, all three components, entities only */
	for (int shape = 0; shape < 3; shape++)
	{
		static const char *const names[] = {"gen-region.entry", "gen-three.entry", "gen-entities.entry"};

		for (int k = 0; k < SL_NCOMP; k++)
		{
			int			on = shape == 1 || (shape == 0 && k == 0) || (shape == 2 && k == 1);

			len[k] = on ? (uint32_t) docs[k].len : 0;
			comp[k] = on ? docs[k].data : NULL;
		}
		entry_of(len, comp, &e, key);
		put_entry(names[shape], key, e.data, e.len);
	}
	/* dense entries (what slime_settle writes): all three components, a
	 * byte of the stream flipped, lengths one too long */
	for (int k = 0; k < SL_NCOMP; k++)
	{
		len[k] = (uint32_t) docs[k].len;
		comp[k] = docs[k].data;
	}
	entry_of(len, comp, &e, key);
	dense_entry_of(len, comp, &e);
	put_entry("gen-three-dense.entry", key, e.data, e.len);
	e.data[e.len / 2] ^= 0x10;
	put_entry("gen-dense-flipped.entry", key, e.data, e.len);
	len[0]++;
	dense_entry_of(len, comp, &e);
	put_entry("gen-dense-long.entry", key, e.data, e.len);
	/* a tiny good entry: an empty compound */
	{
		static const uint8_t empty_c[] = {10, 0, 0, 0};

		len[0] = sizeof(empty_c);
		len[1] = len[2] = 0;
		comp[0] = empty_c;
		comp[1] = comp[2] = NULL;
		entry_of(len, comp, &e, key);
		put_entry("gen-empty-compound.entry", key, e.data, e.len);
	}

	/* the region-only entry under a wrong key */
	len[0] = (uint32_t) docs[0].len;
	len[1] = len[2] = 0;
	comp[0] = docs[0].data;
	comp[1] = comp[2] = NULL;
	entry_of(len, comp, &e, key);
	put_entry("gen-wrong-key.entry", zero, e.data, e.len);

	/* trailing bytes after the document, under the right key */
	t.len = 0;
	if (sl_buf_put(&t, docs[0].data, docs[0].len, &werr) || sl_buf_put(&t, "\0\0", 2, &werr))
		die("out of memory", NULL);
	len[0] = (uint32_t) t.len;
	comp[0] = t.data;
	entry_of(len, comp, &e, key);
	put_entry("gen-trailing-bytes.entry", key, e.data, e.len);

	/* not NBT at all, under the right key */
	len[0] = 7;
	comp[0] = (const uint8_t *) "garbage";
	entry_of(len, comp, &e, key);
	put_entry("gen-not-nbt.entry", key, e.data, e.len);

	/* lengths that do not add up, all-zero lengths, a frame cut before its checksum */
	memset(&d, 0, sizeof(d));
	len[0] = (uint32_t) docs[0].len + 1;
	len[1] = len[2] = 0;
	raw_entry(len, docs[0].data, docs[0].len, 1, 1, &e);
	put_entry("gen-lengths-too-long.entry", zero, e.data, e.len);
	len[0] = 0;
	raw_entry(len, NULL, 0, 1, 1, &e);
	put_entry("gen-zero-lengths.entry", zero, e.data, e.len);
	raw_entry(len, NULL, 0, 1, 1, &e);
	put_entry("gen-truncated.entry", zero, e.data, e.len > 4 ? e.len - 4 : e.len);

	/* zstd frames without a checksum, without a content size, and two frames */
	len[0] = (uint32_t) docs[1].len;
	comp[0] = docs[1].data;
	memcpy(d.len, len, sizeof(d.len));
	sl_chunk_hash(&d, comp, key);
	raw_entry(len, docs[1].data, docs[1].len, 0, 1, &e);
	put_entry("gen-no-checksum.entry", key, e.data, e.len);
	raw_entry(len, docs[1].data, docs[1].len, 1, 0, &e);
	put_entry("gen-no-size.entry", key, e.data, e.len);
	entry_of(len, comp, &e, key);
	t.len = 0;
	if (sl_buf_put(&t, e.data, e.len, &werr) || sl_buf_put(&t, e.data, e.len, &werr))
		die("out of memory", NULL);
	put_entry("gen-two-frames.entry", key, t.data, t.len);

	for (int i = 0; i < 3; i++)
		sl_buf_free(&docs[i]);
	sl_buf_free(&e);
	sl_buf_free(&t);
}

/* ---- packs and cold slime files (fuzz_pack: selector, then the input) ---- */

/* Write selector + b as a fuzz_pack input. */
static void
put_pack(const char *name, uint8_t selector, const sl_buf *b)
{
	sl_buf		o = {0};
	sl_err		err;

	if (sl_buf_put_u8(&o, selector, &err) || sl_buf_put(&o, b->data, b->len, &err))
		die("out of memory", NULL);
	put_buf("pack", name, &o);
	sl_buf_free(&o);
}

/*
 * Write the pack of e[0..n) in each codec (the fast one of n_fast entries,
 * the dense one of n_dense) as "<stem>-fast" and "<stem>-dense", entry i
 * coded against base[i] (base NULL: every entry whole).
 */
static void
put_packs(const char *stem, const uint8_t *const *e, const size_t *size, uint32_t n_fast,
		  uint32_t n_dense, const int64_t *base)
{
	sl_buf		pack = {0};
	char		name[48];
	sl_err		err;

	for (int codec = SL_PACK_FAST; codec <= SL_PACK_DENSE; codec++)
	{
		uint32_t	n = codec == SL_PACK_FAST ? n_fast : n_dense;

		pack.len = 0;
		if (base ? sl_pack_encode_based(e, size, e, n, (sl_pack_codec) codec, base, &pack, &err) :
			sl_pack_encode(e, size, e, n, (sl_pack_codec) codec, &pack, &err))
			die("pack encode", &err);
		snprintf(name, sizeof(name), "%s-%s", stem, codec == SL_PACK_FAST ? "fast" : "dense");
		put_pack(name, 0, &pack);
	}
	sl_buf_free(&pack);
}

/* Packs of generated entries in both codecs, and a cold form with its prefix. */
static void
gen_pack(void)
{
	sl_buf		all = {0},
				pack = {0},
				file = {0},
				cold = {0};
	const uint8_t *e[6];
	size_t		size[6],
				off[7];
	uint8_t		head[8] = {0xB1, 0x0B, 13, 0, 0, 0x0E, 0x80, 0};
	sl_err		err;

	for (int i = 0; i < 6; i++)
	{
		uint8_t		lens[12];

		off[i] = all.len;
		sl_put_u32le(lens, 64 + 16 * (uint32_t) i);
		sl_put_u32le(lens + 4, (uint32_t) (i % 2) * 8);
		sl_put_u32le(lens + 8, 0);
		sl_buf_put(&all, lens, sizeof(lens), &err);
		for (uint32_t n = 0; n < 64 + 16 * (uint32_t) i + (uint32_t) (i % 2) * 8; n++)
			sl_buf_put_u8(&all, (uint8_t) (n % 9 ? n % 4 : n * 31 + (uint32_t) i), &err);
	}
	off[6] = all.len;
	for (int i = 0; i < 6; i++)
	{
		e[i] = all.data + off[i];
		size[i] = off[i + 1] - off[i];
	}
	put_packs("gen-pack", e, size, 6, 3, NULL);
	/* two versions of three chunks: a version 3 pack codes the second ones against the first */
	{
		sl_buf		chunks = {0};
		const uint8_t *ce[6];
		size_t		csize[6],
					coff[7];
		const int64_t cbase[6] = {-1, -1, -1, 0, 1, 2};
		uint8_t		data[120];

		for (int i = 0; i < 6; i++)
		{
			for (uint32_t n = 0; n < sizeof(data); n++)
				data[n] = (uint8_t) (n % 7 ? n % 3 + (uint32_t) (i % 3) : n * 29 + (uint32_t) (i % 3));
			if (i >= 3)
				data[11 * i] ^= 0x21;
			coff[i] = chunks.len;
			nb_chunk_entry(&chunks, i % 3, 1, data, sizeof(data));
		}
		coff[6] = chunks.len;
		for (int i = 0; i < 6; i++)
		{
			ce[i] = chunks.data + coff[i];
			csize[i] = coff[i + 1] - coff[i];
		}
		put_packs("gen-pack-delta", ce, csize, 6, 6, cbase);
		sl_buf_free(&chunks);
	}
	/* a cold form: u16le prefix length, the prefix (the entries' bytes), the cold form */
	if (sl_buf_put(&file, head, sizeof(head), &err) ||
		sl_sf_put_zblock(&file, all.data + 12, all.len - 40, 3, &err) ||
		sl_sf_put_zblock(&file, (const uint8_t *) "", 0, 3, &err))
		die("cold file", &err);
	for (int version = 1; version <= SL_SFCOLD_VERSION; version++)
	{
		pack.len = 0;
		cold.len = 0;
		sl_buf_put_u8(&pack, (uint8_t) (all.len & 0xFF), &err);
		sl_buf_put_u8(&pack, (uint8_t) (all.len >> 8), &err);
		sl_buf_put(&pack, all.data, all.len, &err);
		if (sl_sfcold_encode(file.data, file.len, version, all.data, all.len, NULL, &cold, &err) ||
			sl_buf_put(&pack, cold.data, cold.len, &err))
			die("cold form", &err);
		put_pack(version == 1 ? "gen-cold" : "gen-cold2", 1, &pack);
	}
	/*
	 * damage to the target's own packs (selector 2 mod 4, then which pack:
	 * selector >> 2 mod 6): entry 0's region length +32 and entry 5's -32
	 * (the attack of issue #33), and one flipped directory byte, for each
	 * codec and version
	 */
	for (int which = 0; which < 6; which++)
	{
		const uint8_t cancel[4] = {6, 0, 2 * 5 + 1, 32};
		const uint8_t flip[4] = {30, 0, 0, 0x40};
		char		name[32];

		pack.len = 0;
		sl_buf_put(&pack, cancel, sizeof(cancel), &err);
		snprintf(name, sizeof(name), "gen-damage-cancel-%d", which);
		put_pack(name, (uint8_t) (2 | which << 2), &pack);
		pack.len = 0;
		sl_buf_put(&pack, flip, sizeof(flip), &err);
		snprintf(name, sizeof(name), "gen-damage-flip-%d", which);
		put_pack(name, (uint8_t) (2 | which << 2), &pack);
	}
	/*
	 * damage to the target's own kept forms of a loader's file (selector 3
	 * mod 4, bits 2-3: cold version 3, cold version 2, hot): the cold
	 * form's block lengths changed so that they cancel (chunk block +32 at
	 * 13, extra block -32 at 17: op 2 * 1 + 1), and the file's DataVersion
	 * byte flipped (offset 8 of a cold form, 5 + 3 of a hot one)
	 */
	for (int which = 0; which < 3; which++)
	{
		const uint8_t cancel[4] = {13, 0, 3, 32};
		const uint8_t flip[4] = {8, 0, 0, 0x01};
		char		name[40];

		pack.len = 0;
		sl_buf_put(&pack, which < 2 ? cancel : flip, 4, &err);
		snprintf(name, sizeof(name), "gen-kept-%s-%d", which < 2 ? "cancel" : "flip", which);
		put_pack(name, (uint8_t) (3 | which << 2), &pack);
		if (which < 2)
		{
			pack.len = 0;
			sl_buf_put(&pack, flip, 4, &err);
			snprintf(name, sizeof(name), "gen-kept-flip-%d", which);
			put_pack(name, (uint8_t) (3 | which << 2), &pack);
		}
	}
	sl_buf_free(&all);
	sl_buf_free(&pack);
	sl_buf_free(&file);
	sl_buf_free(&cold);
}

/* ---- values with store references (fuzz_value: value, then store records) ---- */

/* Append a store record: key, u32le length, entry. */
static void
put_record(sl_buf *b, const uint8_t key[32], const uint8_t *entry, size_t len)
{
	uint8_t		n[4];
	sl_err		err;

	sl_put_u32le(n, (uint32_t) len);
	if (sl_buf_put(b, key, 32, &err) || sl_buf_put(b, n, 4, &err) ||
		(len && sl_buf_put(b, entry, len, &err)))
		die("out of memory", NULL);
}

/*
 * Encode chunks c (those whose bit is set in mask by reference) with an
 * optional world, followed by records of the referenced entries; damage:
 * 1 stores other bytes of the same lengths (a good frame) for the first
 * reference, 2 drops the records, 3 adds an unrelated record first, 4
 * flips a compressed byte of the first entry.
 */
static void
put_ref_value(const char *name, const sl_chunk_src *c, size_t n, unsigned mask,
			  const uint8_t *world, size_t world_len, const sl_encode_opts *opts, int damage)
{
	sl_chunk_src src[8];
	uint8_t		keys[8][32];
	sl_buf		entries[8],
				b = {0},
				trailer = {0};
	sl_err		err;

	if (n > 8)
		die("too many chunks", NULL);
	memset(entries, 0, sizeof(entries));
	for (size_t i = 0; i < n; i++)
	{
		src[i] = c[i];
		if (!(mask >> i & 1))
			continue;
		entry_of(c[i].len, c[i].comp, &entries[i], keys[i]);
		src[i].ref = keys[i];
	}
	if (sl_value_encode(src, n, world, world_len, opts, NULL, &b, &err))
		die("value encode", &err);
	if (sl_value_verify(b.data, b.len, NULL, &err))
		die("generated value fails verify", &err);
	if (damage == 3)
	{
		uint8_t		other[32];

		memset(other, 0x5A, sizeof(other));
		put_record(&trailer, other, entries[0].data ? entries[0].data : (const uint8_t *) "", entries[0].len);
	}
	for (size_t i = 0; i < n && damage != 2; i++)
		if (mask >> i & 1)
		{
			if (damage == 4 && trailer.len == 0)
				entries[i].data[entries[i].len / 2] ^= 0x20;
			if (damage == 1 && trailer.len == 0)
			{
				/* the same documents with one byte changed, keyed as the original */
				uint8_t		other[32];
				uint8_t    *copy[SL_NCOMP] = {NULL, NULL, NULL};
				const uint8_t *comp[SL_NCOMP];

				for (int k = 0; k < SL_NCOMP; k++)
				{
					comp[k] = c[i].comp[k];
					if (c[i].len[k] == 0)
						continue;
					copy[k] = malloc(c[i].len[k]);
					if (copy[k] == NULL)
						die("out of memory", NULL);
					memcpy(copy[k], c[i].comp[k], c[i].len[k]);
					comp[k] = copy[k];
				}
				for (int k = 0; k < SL_NCOMP; k++)
					if (copy[k])
					{
						copy[k][c[i].len[k] - 2] ^= 0x01;
						break;
					}
				entry_of(c[i].len, comp, &entries[i], other);
				for (int k = 0; k < SL_NCOMP; k++)
					free(copy[k]);
			}
			put_record(&trailer, keys[i], entries[i].data, entries[i].len);
		}
	if (sl_buf_put(&b, trailer.data, trailer.len, &err))
		die("out of memory", NULL);
	put_buf("value", name, &b);
	for (size_t i = 0; i < n; i++)
		sl_buf_free(&entries[i]);
	sl_buf_free(&b);
	sl_buf_free(&trailer);
}

/* ---- values ---- */
static void
put_value(const char *name, const sl_chunk_src *c, size_t n, const uint8_t *world,
		  size_t world_len, const sl_encode_opts *opts)
{
	sl_buf		b = {0};
	sl_err		err;

	if (sl_value_encode(c, n, world, world_len, opts, NULL, &b, &err))
		die("value encode", &err);
	if (sl_value_verify(b.data, b.len, NULL, &err))
		die("generated value fails verify", &err);
	put_buf("value", name, &b);
	sl_buf_free(&b);
}

static void
gen_values(void)
{
	sl_buf		docs[4];
	sl_chunk_src c[4];
	sl_encode_opts multi = sl_default_encode_opts;

	for (int i = 0; i < 4; i++)
		docs[i] = nbt_all_types(i == 3 ? 100 : 3700, i, -i);
	memset(c, 0, sizeof(c));
	for (int i = 0; i < 4; i++)
	{
		c[i].x = i * 7 - 3;
		c[i].z = -i;
		c[i].data_version = sl_data_version(docs[i].data, docs[i].len, &sl_default_limits);
		c[i].timestamp = 1000 + i;
		c[i].comp[SL_COMP_REGION] = docs[i].data;
		c[i].len[SL_COMP_REGION] = (uint32_t) docs[i].len;
	}
	/* chunk 1 also has entities and POI; chunk 2 only entities */
	c[1].comp[SL_COMP_ENTITIES] = docs[0].data;
	c[1].len[SL_COMP_ENTITIES] = (uint32_t) docs[0].len;
	c[1].comp[SL_COMP_POI] = docs[3].data;
	c[1].len[SL_COMP_POI] = (uint32_t) docs[3].len;
	c[2].comp[SL_COMP_REGION] = NULL;
	c[2].len[SL_COMP_REGION] = 0;
	c[2].comp[SL_COMP_ENTITIES] = docs[2].data;
	c[2].len[SL_COMP_ENTITIES] = (uint32_t) docs[2].len;
	c[2].data_version = sl_data_version(docs[2].data, docs[2].len, &sl_default_limits);

	put_value("gen-empty.slime", NULL, 0, NULL, 0, NULL);
	put_value("gen-world-only.slime", NULL, 0, docs[1].data, docs[1].len, NULL);
	put_value("gen-one.slime", c, 1, NULL, 0, NULL);
	put_value("gen-four.slime", c, 4, NULL, 0, NULL);
	put_value("gen-four-world.slime", c, 4, docs[0].data, docs[0].len, NULL);
	multi.frame_target = 1;
	multi.base_target = 1;
	multi.prefix_ratio = 0;
	multi.single_frame_max = 0;
	multi.level = 1;
	put_value("gen-multiframe.slime", c, 4, NULL, 0, &multi);
	put_value("gen-multiframe-world.slime", c, 4, docs[2].data, docs[2].len, &multi);

	/* format version 1 */
	{
		sl_encode_opts v1 = sl_default_encode_opts,
					v1multi = multi;

		v1.version = 1;
		v1multi.version = 1;
		put_value("gen-empty-v1.slime", NULL, 0, NULL, 0, &v1);
		put_value("gen-four-world-v1.slime", c, 4, docs[0].data, docs[0].len, &v1);
		put_value("gen-multiframe-world-v1.slime", c, 4, docs[2].data, docs[2].len, &v1multi);
	}

	/* format version 2, which fuzz_value splits from the store records after it */
	{
		sl_encode_opts v2 = sl_default_encode_opts,
					v2multi = multi;

		v2.version = 2;
		v2multi.version = 2;
		put_value("gen-four-world-v2.slime", c, 4, docs[0].data, docs[0].len, &v2);
		/* chunk store references, followed by their store records */
		put_ref_value("gen-refs-store.slime", c, 4, 0xF, NULL, 0, &v2, 0);
		put_ref_value("gen-refs-world-store.slime", c, 4, 0xF, docs[1].data, docs[1].len, &v2, 0);
		put_ref_value("gen-mixed-store.slime", c, 4, 0x5, NULL, 0, &v2, 0);
		put_ref_value("gen-mixed-multiframe-world-store.slime", c, 4, 0xA, docs[0].data, docs[0].len,
					  &v2multi, 0);
		put_ref_value("gen-refs-wrong-bytes-store.slime", c, 4, 0x6, NULL, 0, &v2, 1);
		put_ref_value("gen-refs-bad-frame-store.slime", c, 4, 0x6, NULL, 0, &v2, 4);
		put_ref_value("gen-refs-no-store.slime", c, 4, 0xF, NULL, 0, &v2, 2);
		put_ref_value("gen-refs-extra-record-store.slime", c, 4, 0x9, NULL, 0, &v2, 3);
	}
	/* format version 3 with references (no store records after it) */
	put_ref_value("gen-mixed-v3.slime", c, 4, 0x5, NULL, 0, &multi, 2);
	/* the archive level, block codec versions 1 and 2 (where they beat zstd-19) */
	{
		sl_encode_opts arch = sl_default_encode_opts;

		arch.level = SL_ARCHIVE_LEVEL;
		put_value("gen-archive.slime", c, 4, docs[0].data, docs[0].len, &arch);
		arch.block_codec = SL_BCODEC_V2;
		put_value("gen-archive-codec2.slime", c, 4, docs[0].data, docs[0].len, &arch);
	}
	for (int i = 0; i < 4; i++)
		sl_buf_free(&docs[i]);
}

/* ---- from corpus region files (read in place) ---- */
static int
cmp_len(const void *a, const void *b)
{
	const sl_region_chunk *p = a,
			   *q = b;

	return p->nbt_len < q->nbt_len ? -1 : p->nbt_len > q->nbt_len;
}

static void
from_region(const char *path, int idx)
{
	FILE	   *f = fopen(path, "rb");
	uint8_t    *data;
	long		n;
	sl_region	r;
	sl_err		err;
	int			taken = 0;

	if (f == NULL)
		die(path, NULL);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	data = malloc(n > 0 ? (size_t) n : 1);
	if (data == NULL || (n > 0 && fread(data, 1, (size_t) n, f) != (size_t) n))
		die(path, NULL);
	fclose(f);
	if (sl_region_read(data, (size_t) n, 0, 0, NULL, 0, 0, NULL, &r, &err) == 0)
	{
		/* the smallest chunks, plus the largest that fits max_len */
		qsort(r.chunks, r.nchunks, sizeof(r.chunks[0]), cmp_len);
		for (int i = 0; i < r.nchunks && taken < 3; i++)
		{
			char		name[128];

			if (r.chunks[i].nbt_len > 131072)
				break;
			snprintf(name, sizeof(name), "region%03d-chunk%d.nbt", idx, taken);
			put("nbt", name, r.chunks[i].nbt, r.chunks[i].nbt_len);
			snprintf(name, sizeof(name), "region%03d-chunk%d", idx, taken);
			gen_streams(name, r.chunks[i].nbt, r.chunks[i].nbt_len);
			{
				uint32_t	len[SL_NCOMP] = {(uint32_t) r.chunks[i].nbt_len, 0, 0};
				const uint8_t *comp[SL_NCOMP] = {r.chunks[i].nbt, NULL, NULL};
				uint8_t		key[32];
				sl_buf		e = {0};

				entry_of(len, comp, &e, key);
				snprintf(name, sizeof(name), "region%03d-chunk%d.entry", idx, taken);
				put_entry(name, key, e.data, e.len);
				sl_buf_free(&e);
			}
			taken++;
		}
		sl_region_free(&r);
	}
	free(data);
}

/* ---- reference and mixed forms of existing values (--refs) ---- */

/* Read a whole file (malloc'd); NULL when it cannot be read. */
static uint8_t *
read_file(const char *path, size_t *len)
{
	FILE	   *f = fopen(path, "rb");
	uint8_t    *data;
	long		n;

	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	data = malloc(n > 0 ? (size_t) n : 1);
	if (data == NULL || (n > 0 && fread(data, 1, (size_t) n, f) != (size_t) n))
	{
		free(data);
		fclose(f);
		return NULL;
	}
	fclose(f);
	*len = (size_t) n;
	return data;
}

/*
 * Rebuild value v with the chunks whose directory index i has (i % every
 * == 0) by reference, the rest kept; append the store records of the
 * references. Returns 0 when written.
 */
static int
refs_form(sl_value *v, int every, sl_buf *out)
{
	sl_builder	b;
	sl_buf		trailer = {0},
				e = {0};
	sl_err		err;
	int			rc = -1;

	memset(&b, 0, sizeof(b));
	out->len = 0;
	for (uint32_t i = 0; i < v->hdr.chunk_count; i++)
	{
		sl_dirent	d;
		const uint8_t *comp[SL_NCOMP];
		uint8_t		key[32];

		if (i % every != 0)
		{
			if (sl_builder_add_chunk(&b, v, i, SL_ADD_KEEP, &err))
				goto done;
			continue;
		}
		if (sl_value_chunk(v, i, &d, comp, &err))
			goto done;
		entry_of(d.len, comp, &e, key);
		put_record(&trailer, key, e.data, e.len);
		if (sl_builder_add_chunk(&b, v, i, SL_ADD_REFS, &err))
			goto done;
	}
	if (sl_builder_add_world(&b, v, &err) ||
		sl_builder_encode(&b, NULL, NULL, out, &err) ||
		sl_value_verify(out->data, out->len, NULL, &err) ||
		sl_buf_put(out, trailer.data, trailer.len, &err))
		goto done;
	rc = 0;
done:
	sl_builder_free(&b);
	sl_buf_free(&trailer);
	sl_buf_free(&e);
	return rc;
}

static void
gen_refs(int nfiles, char **files)
{
	for (int f = 0; f < nfiles; f++)
	{
		size_t		len = 0;
		uint8_t    *data = read_file(files[f], &len);
		const char *base = strrchr(files[f], '/');
		sl_value	v;
		sl_buf		out = {0};
		sl_err		err;
		char		name[512];

		base = base ? base + 1 : files[f];
		if (data == NULL || sl_value_open_mem(&v, data, len, NULL, &err))
		{
			free(data);
			continue;
		}
		for (int every = 1; every <= 2; every++)
			if (refs_form(&v, every, &out) == 0 && out.len <= 262144)
			{
				snprintf(name, sizeof(name), "%s.%s", base, every == 1 ? "refs" : "mixed");
				put_buf("value", name, &out);
			}
		sl_value_close(&v);
		sl_buf_free(&out);
		free(data);
	}
}

/* ---- slime files (fuzz_slimefile) ---- */
#include "../unit/slimefile_gen.h"

/*
 * Every layout family of slimefile_gen.h: the file, the fuzzer's raw form
 * ("SFR" version p, blocks; see fuzz_slimefile.c) and the file cut short.
 */
static void
gen_slimefiles(void)
{
	for (int i = 0; i < SFG_FAMILIES; i++)
	{
		sfg_file	f;
		sl_buf		file = {0},
					r = {0};
		char		name[64];
		const char *fam = sfg_family(i, &f);
		const sl_buf *blk[5] = {&f.chunks, &f.tiles, &f.entities, &f.extra, &f.maps};

		sfg_assemble(&f, SIZE_MAX, &file);
		snprintf(name, sizeof(name), "gen-%s.slime", fam);
		put_buf("slimefile", name, &file);
		snprintf(name, sizeof(name), "gen-%s-cut.slime", fam);
		put("slimefile", name, file.data, file.len / 2);
		sl_buf_put(&r, "SFR", 3, NULL);
		sl_buf_put_u8(&r, (uint8_t) f.version, NULL);
		sl_buf_put_u8(&r, (uint8_t) (f.version >= 10 ? f.flags : (f.wv | (f.mask[0] & 15) << 4)), NULL);
		for (int k = 0; k < 5; k++)
		{
			sl_buf_put_u32be(&r, (uint32_t) blk[k]->len, NULL);
			sl_buf_put(&r, blk[k]->data, blk[k]->len, NULL);
		}
		snprintf(name, sizeof(name), "gen-%s.raw", fam);
		put_buf("slimefile", name, &r);
		sl_buf_free(&file);
		sl_buf_free(&r);
		sfg_free(&f);
	}
}

/* ---- loader memos (fuzz_lmemo: u32le n, n memo bytes, a slime file) ---- */

/* Accept a store entry (sl_lmemo_put_fn). */
static int
put_no_entry(void *ctx, const uint8_t hash[32], const uint8_t *entry, size_t len, sl_err *err)
{
	return 0;
}

/* Write n memo bytes then file as a fuzz_lmemo input. */
static void
put_lmemo(const char *name, const uint8_t *m, size_t n, const sl_buf *file)
{
	sl_buf		o = {0};
	uint8_t		len[4];

	sl_put_u32le(len, (uint32_t) n);
	sl_buf_put(&o, len, 4, NULL);
	sl_buf_put(&o, m, n, NULL);
	sl_buf_put(&o, file->data, file->len, NULL);
	put_buf("lmemo", name, &o);
	sl_buf_free(&o);
}

/*
 * Files of versions 11-13 behind damage to their own memo (issue #33's
 * differential check): entry 0's DataVersion up by 1 and entry 1's down
 * (at 16 + 60, op 2 * 20 + 1: 80 bytes on), entry 0's region length up by
 * 32 and its entities length down (16 + 68, op 3), a flipped timestamp
 * byte; and behind their own memo whole, which the target reads sealed.
 */
static void
gen_lmemo(void)
{
	void		(*gen[]) (sfg_file *) = {sfg_v11, sfg_v12, sfg_v13};
	const uint8_t damage[3][4] = {{76, 0, 41, 1}, {84, 0, 3, 32}, {80, 0, 0, 0x01}};
	const char *kind[3] = {"dv-cancel", "len-cancel", "ts-flip"};

	for (int g = 0; g < 3; g++)
	{
		sfg_file	f;
		sl_buf		file = {0},
					m = {0};
		sl_builder	b;
		sl_lmemo	out;
		sl_err		err;
		char		name[64];

		gen[g] (&f);
		sfg_assemble(&f, SIZE_MAX, &file);
		memset(&b, 0, sizeof(b));
		memset(&out, 0, sizeof(out));
		if (sl_slimefile_read_memo(file.data, file.len, NULL, &b, NULL, NULL, &out, NULL, &err) ||
			sl_lmemo_store_chunks(&b, &out, 1, NULL, put_no_entry, NULL, &err) ||
			sl_lmemo_encode(&out, &m, &err))
			die("memo", &err);
		for (int d = 0; d < 3; d++)
		{
			snprintf(name, sizeof(name), "gen-v%d-memo-%s", f.version, kind[d]);
			put_lmemo(name, damage[d], 4, &file);
		}
		snprintf(name, sizeof(name), "gen-v%d-memo-own", f.version);
		put_lmemo(name, m.data, m.len, &file);
		sl_lmemo_free(&out);
		sl_builder_free(&b);
		sl_buf_free(&file);
		sl_buf_free(&m);
		sfg_free(&f);
	}
}

/*
 * Version-13 files for fuzz_sfframes (u8 what, u16le where, the file): a
 * directory byte damaged at a few places, a frame byte damaged.
 */
static void
gen_sfframes(void)
{
	const uint8_t sel[4][3] = {{0, 0, 0}, {2, 0, 21}, {4, 1, 0}, {1, 0, 9}};
	sfg_file	f;
	sl_buf		file = {0};

	sfg_v13(&f);
	sfg_assemble(&f, SIZE_MAX, &file);
	for (int i = 0; i < 4; i++)
	{
		sl_buf		o = {0};
		char		name[64];

		sl_buf_put(&o, sel[i], 3, NULL);
		sl_buf_put(&o, file.data, file.len, NULL);
		snprintf(name, sizeof(name), "gen-v13-%s-%d", sel[i][0] & 1 ? "frame" : "directory", i);
		put_buf("sfframes", name, &o);
		sl_buf_free(&o);
	}
	sl_buf_free(&file);
	sfg_free(&f);
}

int
main(int argc, char **argv)
{
	if (argc < 2)
	{
		fprintf(stderr, "usage: gen_seeds OUTDIR [REGION_FILE...] | --refs OUTDIR VALUE...\n");
		return 2;
	}
	if (strcmp(argv[1], "--refs") == 0)
	{
		if (argc < 3)
			die("usage: gen_seeds --refs OUTDIR VALUE...", NULL);
		outdir = argv[2];
		gen_refs(argc - 3, argv + 3);
		sl_release_caches();
		printf("gen_seeds: %d reference-form values in %s/value\n", nwritten, outdir);
		return 0;
	}
	outdir = argv[1];
	if (mkdir(outdir, 0755) != 0 && errno != EEXIST)
		die(outdir, NULL);
	gen_nbt();
	gen_codecs();
	gen_regions();
	gen_values();
	gen_store();
	gen_pack();
	gen_slimefiles();
	gen_lmemo();
	gen_sfframes();
	for (int i = 2; i < argc; i++)
		from_region(argv[i], i - 2);
	sl_buf_free(&w);
	sl_release_caches();
	printf("gen_seeds: %d files in %s\n", nwritten, outdir);
	return 0;
}
