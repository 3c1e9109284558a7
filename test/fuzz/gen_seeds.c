/*
 * gen_seeds.c - writes generated seed inputs for the fuzz targets.
 *
 *   build/fuzz/gen_seeds OUTDIR [REGION_FILE...]
 *
 * OUTDIR/<target>/ receives hand-built cases (every NBT tag type, string
 * edge cases, deep nesting, region files of every compression type, an
 * external chunk, damaged layouts, values with several frames, world data,
 * entities and POI) and, from each region file named on the command line
 * (read in place, never copied), the decompressed NBT of a few of its
 * smallest chunks plus their gzip/zlib/raw/LZ4 streams written by our
 * codecs. Everything written here is produced by this program; run by
 * test/fuzz/seeds.sh.
 */
#include "sl_build.h"
#include "sl_codec.h"
#include "sl_nbt.h"
#include "sl_region.h"
#include "sl_value.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
	multi.single_frame_max = 0;
	multi.level = 1;
	put_value("gen-multiframe.slime", c, 4, NULL, 0, &multi);
	put_value("gen-multiframe-world.slime", c, 4, docs[2].data, docs[2].len, &multi);
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
			taken++;
		}
		sl_region_free(&r);
	}
	free(data);
}

int
main(int argc, char **argv)
{
	if (argc < 2)
	{
		fprintf(stderr, "usage: gen_seeds OUTDIR [REGION_FILE...]\n");
		return 2;
	}
	outdir = argv[1];
	if (mkdir(outdir, 0755) != 0 && errno != EEXIST)
		die(outdir, NULL);
	gen_nbt();
	gen_codecs();
	gen_regions();
	gen_values();
	for (int i = 2; i < argc; i++)
		from_region(argv[i], i - 2);
	sl_buf_free(&w);
	sl_release_caches();
	printf("gen_seeds: %d files in %s\n", nwritten, outdir);
	return 0;
}
