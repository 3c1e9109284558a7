/*
 * bench_ideas.c - size (and rough speed) of the compression ideas of issue #3
 * ("make the value format win"), measured on the shared corpus in one run.
 *
 * Every region file (.mca/.mcr) of the eras anvil-1.2-1.12, anvil-1.13-1.17,
 * anvil-1.18plus and mcregion is one "value": sl_region_read (strict=0:
 * damaged chunks are skipped and counted), the chunks' raw NBT concatenated
 * in the format's canonical Morton order (sl_chunk_key). Every variant
 * compresses those bytes at zstd level L (default 3; SLIME_BENCH_LEVEL or
 * --level, 1..19):
 *
 *   A  frames closed once they hold >= 128 KiB raw, each one zstd frame: what
 *      the format does for values > 1 MiB raw (smaller ones are one frame
 *      today; A frames every value so that all variants compare alike).
 *   B  A, each frame split into two streams: every byte/int/long array
 *      payload of >= 64 bytes to "arrays", the rest (array lengths included)
 *      to "structure". A permutation of bytes, so exactly invertible.
 *   C  as B, with one arrays stream per (tag type, tag name) per frame; an
 *      array inside a list takes the list's name.
 *   D  A with a per-value dictionary (ZDICT_trainFromBuffer, 64 KiB target,
 *      samples = the value's chunks), its own zstd frame counted. A value of
 *      < 4 x 64 KiB raw, or whose training fails, is compressed as A.
 *   E  A where each frame after the first has the first frame's raw bytes as
 *      prefix (ZSTD_CCtx_refPrefix; a reader decompresses frame 0 too).
 *   F  A with frames of 32, 64, 256 KiB and 1 MiB: the size cost of smaller
 *      frames (a single-chunk read decompresses one frame).
 *   G  the whole value as one stream (no random access) at level L, and at
 *      level 19 with long matching, windowLog 27: the target and
 *      bench_size's (g). Slow: --no-19 skips it.
 *   H  A, but block-state long arrays (1.18+ "data" in "block_states",
 *      1.13-1.17 "BlockStates") of <= 8 bits per entry become a flag byte +
 *      one byte per entry (4096) in a stream of their own per frame. Bits
 *      from the length: len*64 a multiple of 4096 -> spanning (pre-1.16)
 *      packing, bits = len/64 (same layout as non-spanning when bits divides
 *      64); else 1.16+ packing, bits = 64 / ceil(4096/len), kept only if it
 *      gives back len. SIZE-ONLY experiment: no inverse (repacking) written.
 *
 * Arrays are found with the core's checked parser (sl_nbt_parse into an
 * sl_arena); a chunk it rejects stays whole in "structure" and is counted.
 * Every zstd frame of A-F and H has a content size and a 4-byte checksum as
 * the format's frames do (B, C, H: one frame per non-empty stream); G is a
 * plain stream as in bench_size. Sizes are zstd output only: no header,
 * directory or frame table (alike for all variants, except that B, C and H
 * would also need per-stream lengths).
 *
 * Times are one pass (no best-of-N), shown only as ratios against A over the
 * whole corpus; each frame is decompressed right after it is compressed and
 * compared with its input. "compress" is zstd alone (D: CDict creation
 * included); "+prep" adds building the streams (B, C, H: copying and
 * unpacking, not the NBT parse) or training the dictionary (D).
 * "decompress" is zstd alone (D: the dictionary's frame and the DDict
 * included; B, C, H: re-interleaving the streams not included). On a shared
 * machine time ratios move by tens of percent between runs; sizes are exact
 * for a given zstd version.
 *
 * Benchmarks never fail on numbers: the exit status is non-zero only when
 * something could not be run (corpus missing, unreadable file, zstd error,
 * a round trip that differs).
 *
 * Usage: bench_ideas [--level N] [--no-19] [CORPUS_DIR]
 * Environment: SLIME_CORPUS (default ../shared/corpus), SLIME_BENCH_LEVEL.
 */
#define _XOPEN_SOURCE 700
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>
#include <zdict.h>

#include "sl_nbt.h"
#include "sl_region.h"
#include "sl_value.h"

#define CORPUS_PROG "bench_ideas"
#include "corpus_util.h"

#define NERAS 4
static const char *const era_names[NERAS] = {
	"anvil-1.2-1.12", "anvil-1.13-1.17", "anvil-1.18plus", "mcregion"
};

#define KIB 1024
#define FRAME_A (128 * KIB)
#define ARR_MIN 64				/* array payloads this big move (B, C) */
#define DICT_TARGET (64 * KIB)
#define BS_ENTRIES 4096			/* block states per section */
#define Z_CHECK 1				/* zstd frame with content checksum */
#define Z_LDM 2					/* long matching, windowLog 27 */

enum
{
	V_A, V_B, V_C, V_D, V_E, V_F32, V_F64, V_F256, V_F1M, V_G, V_G19, V_H, NV
};
static const char *const vnames[NV] = {
	"A  frames of 128 KiB (today)", "B  A + arrays / structure streams",
	"C  A + stream per array (type,name)", "D  A + trained dictionary (64 KiB)",
	"E  A + first frame as prefix", "F  frames of 32 KiB", "F  frames of 64 KiB",
	"F  frames of 256 KiB", "F  frames of 1 MiB", "G  whole value, one stream, level L",
	"G  whole value, level 19 long (wl 27)", "H  A + block states unpacked, own stream",
};
static const size_t f_targets[4] = {32 * KIB, 64 * KIB, 256 * KIB, 1024 * KIB};

enum
{
	N_FILES, N_EMPTY, N_BIG, N_CHUNKS, N_SKIPPED, N_UNWALKED, N_BSMOVED,
	N_DICT, N_DICTSMALL, N_DICTFAIL, N_RAW, NCOUNT
};
static const char *const count_names[NCOUNT] = {
	"region files (values)", "  of which without chunks",
	"  values > 1 MiB raw (framed today)", "chunks",
	"chunks skipped as damaged (strict=0)", "chunks not walked (parser rejected)",
	"block-state arrays unpacked (H)", "D: values with a trained dictionary",
	"D: values < 256 KiB raw (as A)", "D: training failed (as A)",
	"raw chunk NBT (bytes)",
};

/* Per variant; doubles only, so that era totals are a sum field by field. */
typedef struct vstat
{
	double		bytes;			/* compressed */
	double		ct;				/* seconds compressing */
	double		dt;				/* seconds decompressing */
	double		prep;			/* seconds building streams / training */
	double		zframes;		/* zstd frames written */
} vstat;

typedef struct era_stat
{
	double		n[NCOUNT];
	vstat		v[NV];
} era_stat;

/* One array payload inside the value's raw bytes. */
typedef struct span
{
	size_t		off;
	uint32_t	len;			/* bytes */
	uint8_t		type;			/* SL_TAG_*_ARRAY */
	uint8_t		bits;			/* block states: bits per entry (H), else 0 */
	uint8_t		spanning;		/* block states packed across longs */
	uint16_t	nlen;
	const char *name;			/* points into the raw bytes */
} span;

typedef struct bytes
{
	uint8_t    *p;
	size_t		len, cap;
} bytes;

typedef struct stream
{
	uint8_t		type;
	uint16_t	nlen;
	const char *name;
	bytes		b;
} stream;

static int	level = 3, no19;
static const char *corpus_root;
static ZSTD_CCtx *zc;
static ZSTD_DCtx *zd;
static bytes zout, dout;

/* the value being measured */
static uint8_t *cat;			/* raw chunk NBT, Morton order */
static size_t *co;				/* chunk i is cat[co[i] .. co[i+1]) */
static size_t *clen;			/* co[i+1] - co[i], for ZDICT */
static int	nch;
static span *spans;				/* in offset order */
static int	nspans, cap_spans;
static int *sp0;				/* chunk i's spans: sp0[i] .. sp0[i+1] */
static stream *streams;			/* of one frame; 0 is "structure" */
static int	nstreams, cap_streams;

/* Make room for n bytes in b (contents discarded). */
static void
bytes_reserve(bytes *b, size_t n)
{
	if (n > b->cap)
	{
		free(b->p);
		b->p = xrealloc(NULL, n);
		b->cap = n;
	}
}

/* Append n bytes to b. */
static void
bytes_put(bytes *b, const void *src, size_t n)
{
	if (b->len + n > b->cap)
	{
		b->cap = (b->len + n) * 2;
		b->p = xrealloc(b->p, b->cap);
	}
	if (n)
		memcpy(b->p + b->len, src, n);
	b->len += n;
}

/* Die on a zstd error code, else return it. */
static size_t
zcheck(size_t rc, const char *what)
{
	if (ZSTD_isError(rc))
		die("zstd %s: %s", what, ZSTD_getErrorName(rc));
	return rc;
}

/*
 * Compress src as one zstd frame (timed), decompress it (timed) and check
 * the round trip; adds to vs. prefix/plen, cd/dd: raw prefix, dictionary.
 */
static void
zpack(vstat *vs, const uint8_t *src, size_t n, int lvl, int flags,
	  const uint8_t *prefix, size_t plen, ZSTD_CDict *cd, ZSTD_DDict *dd)
{
	size_t		c, d;
	double		t0;

	bytes_reserve(&zout, ZSTD_compressBound(n));
	bytes_reserve(&dout, n + 1);
	t0 = corpus_now();
	zcheck(ZSTD_CCtx_reset(zc, ZSTD_reset_session_and_parameters), "reset");
	zcheck(ZSTD_CCtx_setParameter(zc, ZSTD_c_compressionLevel, lvl), "level");
	zcheck(ZSTD_CCtx_setParameter(zc, ZSTD_c_checksumFlag, (flags & Z_CHECK) != 0), "checksum");
	zcheck(ZSTD_CCtx_setParameter(zc, ZSTD_c_enableLongDistanceMatching, (flags & Z_LDM) != 0), "ldm");
	zcheck(ZSTD_CCtx_setParameter(zc, ZSTD_c_windowLog, flags & Z_LDM ? 27 : 0), "windowLog");
	if (cd)
		zcheck(ZSTD_CCtx_refCDict(zc, cd), "refCDict");
	if (plen)
		zcheck(ZSTD_CCtx_refPrefix(zc, prefix, plen), "refPrefix");
	c = zcheck(ZSTD_compress2(zc, zout.p, zout.cap, src, n), "compress");
	vs->ct += corpus_now() - t0;

	t0 = corpus_now();
	zcheck(ZSTD_DCtx_reset(zd, ZSTD_reset_session_and_parameters), "dreset");
	zcheck(ZSTD_DCtx_setParameter(zd, ZSTD_d_windowLogMax, 27), "windowLogMax");
	if (dd)
		zcheck(ZSTD_DCtx_refDDict(zd, dd), "refDDict");
	if (plen)
		zcheck(ZSTD_DCtx_refPrefix(zd, prefix, plen), "drefPrefix");
	d = zcheck(ZSTD_decompressDCtx(zd, dout.p, dout.cap, zout.p, c), "decompress");
	vs->dt += corpus_now() - t0;
	if (d != n || memcmp(dout.p, src, n) != 0)
		die("round trip differs (%zu bytes in, %zu out)", n, d);
	vs->bytes += c;
	vs->zframes++;
}

/* Split the chunks into frames of >= target raw bytes; ends[k]: one past frame k's last chunk. */
static int
frame_ends(size_t target, int *ends)
{
	int			nf = 0;
	size_t		start = 0;

	for (int i = 0; i < nch; i++)
		if (co[i + 1] - start >= target || i + 1 == nch)
		{
			ends[nf++] = i + 1;
			start = co[i + 1];
		}
	return nf;
}

/* Compress each frame as one zstd frame: plain, with a dictionary, or with frame 0 as prefix. */
static void
frames_plain(vstat *vs, int nf, const int *ends, ZSTD_CDict *cd, ZSTD_DDict *dd, int prefix)
{
	for (int k = 0; k < nf; k++)
	{
		int			a = k ? ends[k - 1] : 0, pre = prefix && k > 0;

		zpack(vs, cat + co[a], co[ends[k]] - co[a], level, Z_CHECK,
			  pre ? cat : NULL, pre ? co[ends[0]] : 0, cd, dd);
	}
}

/* Return the bits per entry of a block-state array of nl longs (0: not unpacked). */
static int
bs_bits(uint32_t nl, int *spanning)
{
	int			bits;

	if (nl == 0 || nl > BS_ENTRIES)
		return 0;
	*spanning = nl * 64 % BS_ENTRIES == 0;
	if (*spanning)
		bits = (int) (nl / 64);
	else
	{
		bits = 64 / (int) ((BS_ENTRIES + nl - 1) / nl);
		if (bits == 0 || (uint32_t) ((BS_ENTRIES + 64 / bits - 1) / (64 / bits)) != nl)
			return 0;
	}
	return bits <= 8 ? bits : 0;
}

/* Compare a name of n bytes with the C string s. */
static int
name_is(const char *name, uint16_t n, const char *s)
{
	return strlen(s) == n && memcmp(name, s, n) == 0;
}

/* Record the array payloads under node n (named nm, in a compound named pn) as spans. */
static void
collect(const sl_nbt *n, const char *nm, uint16_t nml, const char *pn, uint16_t pnl)
{
	uint8_t		et = n->type == SL_TAG_LIST ? n->v.list.elem_type : 0;
	span		s;
	int			spanning = 0;

	if (n->type == SL_TAG_COMPOUND)
		for (uint32_t i = 0; i < n->v.comp.count; i++)
			collect(n->v.comp.items[i], n->v.comp.items[i]->name,
					n->v.comp.items[i]->name_len, nm, nml);
	else if (et == SL_TAG_COMPOUND || et == SL_TAG_LIST || et == SL_TAG_BYTE_ARRAY ||
			 et == SL_TAG_INT_ARRAY || et == SL_TAG_LONG_ARRAY)
		for (uint32_t i = 0; i < n->v.list.count; i++)
			collect(n->v.list.items[i], nm, nml, pn, pnl);
	if (n->type != SL_TAG_BYTE_ARRAY && n->type != SL_TAG_INT_ARRAY &&
		n->type != SL_TAG_LONG_ARRAY)
		return;
	memset(&s, 0, sizeof(s));
	s.off = (size_t) (n->v.arr.data - cat);
	s.len = n->v.arr.count * (n->type == SL_TAG_BYTE_ARRAY ? 1 : n->type == SL_TAG_INT_ARRAY ? 4 : 8);
	s.type = n->type;
	s.name = nm;
	s.nlen = nml;
	if (n->type == SL_TAG_LONG_ARRAY &&
		((name_is(nm, nml, "data") && name_is(pn, pnl, "block_states")) ||
		 name_is(nm, nml, "BlockStates")))
	{
		s.bits = (uint8_t) bs_bits(n->v.arr.count, &spanning);
		s.spanning = (uint8_t) spanning;
	}
	if (s.len < ARR_MIN && s.bits == 0)
		return;
	if (nspans == cap_spans)
	{
		cap_spans = cap_spans ? cap_spans * 2 : 4096;
		spans = xrealloc(spans, cap_spans * sizeof(span));
	}
	spans[nspans++] = s;
}

/* Add an empty stream to the frame's stream list. */
static stream *
new_stream(void)
{
	if (nstreams == cap_streams)
	{
		cap_streams = cap_streams ? cap_streams * 2 : 16;
		streams = xrealloc(streams, cap_streams * sizeof(stream));
		memset(streams + nstreams, 0, (cap_streams - nstreams) * sizeof(stream));
	}
	streams[nstreams].b.len = 0;
	return &streams[nstreams++];
}

/* Find the frame's stream for a span: one per (type, name) for C, else stream 1. */
static stream *
stream_for(int mode, const span *sp)
{
	stream	   *s;

	if (mode != V_C)
		return nstreams > 1 ? &streams[1] : new_stream();
	for (int i = 1; i < nstreams; i++)
		if (streams[i].type == sp->type && streams[i].nlen == sp->nlen &&
			memcmp(streams[i].name, sp->name, sp->nlen) == 0)
			return &streams[i];
	s = new_stream();
	s->type = sp->type;
	s->nlen = sp->nlen;
	s->name = sp->name;
	return s;
}

/* Append a block-state array unpacked: a flag byte (bits, spanning), one byte per entry. */
static void
put_unpacked(bytes *dst, const span *sp)
{
	uint8_t		out[1 + BS_ENTRIES];
	const uint8_t *q = cat + sp->off;
	uint32_t	bits = sp->bits, vpl = 64 / bits, nl = sp->len / 8;
	uint64_t	mask = ((uint64_t) 1 << bits) - 1, v;

	out[0] = (uint8_t) (bits | (sp->spanning << 7));
	for (uint32_t i = 0; i < BS_ENTRIES; i++)
	{
		if (sp->spanning)
		{
			uint32_t	w = i * bits / 64, off = i * bits % 64;

			v = sl_get_u64be(q + 8 * w) >> off;
			if (off + bits > 64 && w + 1 < nl)
				v |= sl_get_u64be(q + 8 * (w + 1)) << (64 - off);
		}
		else
			v = sl_get_u64be(q + 8 * (i / vpl)) >> (i % vpl * bits);
		out[1 + i] = (uint8_t) (v & mask);
	}
	bytes_put(dst, out, sizeof(out));
}

/* Build frame [a,b)'s streams for mode B, C or H (timed as prep), then compress each. */
static void
frame_split(int mode, int a, int b, vstat *vs, double *moved)
{
	double		t0 = corpus_now();
	size_t		pos = co[a];

	nstreams = 0;
	new_stream();
	for (int s = sp0[a]; s < sp0[b]; s++)
	{
		const span *sp = &spans[s];
		stream	   *dst;

		if (mode == V_H ? sp->bits == 0 : sp->len < ARR_MIN)
			continue;
		bytes_put(&streams[0].b, cat + pos, sp->off - pos);
		dst = stream_for(mode, sp);
		if (mode == V_H)
		{
			put_unpacked(&dst->b, sp);
			(*moved)++;
		}
		else
			bytes_put(&dst->b, cat + sp->off, sp->len);
		pos = sp->off + sp->len;
	}
	bytes_put(&streams[0].b, cat + pos, co[b] - pos);
	vs->prep += corpus_now() - t0;
	for (int i = 0; i < nstreams; i++)
		if (streams[i].b.len > 0)
			zpack(vs, streams[i].b.p, streams[i].b.len, level, Z_CHECK, NULL, 0, NULL, NULL);
}

/* D: train a dictionary on the value's chunks and compress its frames with it (else as A). */
static void
dict_value(era_stat *es, int nf, const int *ends, size_t raw)
{
	static uint8_t dict[DICT_TARGET];
	vstat	   *vs = &es->v[V_D];
	size_t		dn = 0;
	double		t0;
	ZSTD_CDict *cd;
	ZSTD_DDict *dd;

	if (raw >= 4 * (size_t) DICT_TARGET)
	{
		t0 = corpus_now();
		dn = ZDICT_trainFromBuffer(dict, DICT_TARGET, cat, clen, (unsigned) nch);
		vs->prep += corpus_now() - t0;
	}
	if (raw < 4 * (size_t) DICT_TARGET || ZDICT_isError(dn))
	{
		es->n[raw < 4 * (size_t) DICT_TARGET ? N_DICTSMALL : N_DICTFAIL]++;
		frames_plain(vs, nf, ends, NULL, NULL, 0);
		return;
	}
	es->n[N_DICT]++;
	zpack(vs, dict, dn, level, Z_CHECK, NULL, 0, NULL, NULL);	/* the stored dictionary */
	t0 = corpus_now();
	cd = ZSTD_createCDict(dict, dn, level);
	vs->ct += corpus_now() - t0;
	t0 = corpus_now();
	dd = ZSTD_createDDict(dict, dn);
	vs->dt += corpus_now() - t0;
	if (cd == NULL || dd == NULL)
		die("cannot create a zstd dictionary");
	frames_plain(vs, nf, ends, cd, dd, 0);
	ZSTD_freeCDict(cd);
	ZSTD_freeDDict(dd);
}

/* Order chunks by Morton key (the value format's canonical order). */
static int
cmp_morton(const void *a, const void *b)
{
	const sl_region_chunk *p = a, *q = b;
	uint64_t	x = sl_chunk_key(p->x, p->z), y = sl_chunk_key(q->x, q->z);

	return x < y ? -1 : x > y;
}

/* Measure every variant on one region file (one value). */
static void
run_value(const char *path, era_stat *es)
{
	size_t		raw = 0;
	sl_region	r;
	sl_err		err;
	int			ends[SL_REGION_SLOTS], nf;
	double		a_before = es->v[V_A].bytes;

	corpus_read_region(path, &r);
	es->n[N_FILES]++;
	for (int i = 0; i < r.nproblems; i++)
		es->n[N_SKIPPED] += r.problems[i].skipped != 0;
	if ((nch = r.nchunks) == 0)
	{
		es->n[N_EMPTY]++;
		sl_region_free(&r);
		return;
	}

	/* the value's raw bytes, in Morton order */
	qsort(r.chunks, nch, sizeof(sl_region_chunk), cmp_morton);
	for (int i = 0; i < nch; i++)
		raw += r.chunks[i].nbt_len;
	cat = xrealloc(NULL, raw);
	co = xrealloc(NULL, (nch + 1) * sizeof(size_t));
	clen = xrealloc(NULL, nch * sizeof(size_t));
	sp0 = xrealloc(NULL, (nch + 1) * sizeof(int));
	co[0] = 0;
	for (int i = 0; i < nch; i++)
	{
		memcpy(cat + co[i], r.chunks[i].nbt, r.chunks[i].nbt_len);
		clen[i] = r.chunks[i].nbt_len;
		co[i + 1] = co[i] + clen[i];
	}
	sl_region_free(&r);
	es->n[N_CHUNKS] += nch;
	es->n[N_RAW] += raw;
	es->n[N_BIG] += raw > 1024 * KIB;

	/* array spans, found with the checked parser */
	nspans = 0;
	for (int i = 0; i < nch; i++)
	{
		sl_arena	arena = {0};
		sl_nbt	   *root;
		size_t		used;

		sp0[i] = nspans;
		if (sl_nbt_parse(cat + co[i], clen[i], NULL, &arena, &root, &used, &err) == 0)
			collect(root, root->name, root->name_len, "", 0);
		else
			es->n[N_UNWALKED]++;
		sl_arena_free(&arena);
	}
	sp0[nch] = nspans;

	nf = frame_ends(FRAME_A, ends);
	frames_plain(&es->v[V_A], nf, ends, NULL, NULL, 0);
	for (int k = 0; k < nf; k++)
	{
		int			a = k ? ends[k - 1] : 0;

		frame_split(V_B, a, ends[k], &es->v[V_B], &es->n[N_BSMOVED]);
		frame_split(V_C, a, ends[k], &es->v[V_C], &es->n[N_BSMOVED]);
		frame_split(V_H, a, ends[k], &es->v[V_H], &es->n[N_BSMOVED]);
	}
	dict_value(es, nf, ends, raw);
	frames_plain(&es->v[V_E], nf, ends, NULL, NULL, 1);
	for (int f = 0; f < 4; f++)
	{
		int			fe[SL_REGION_SLOTS], n = frame_ends(f_targets[f], fe);

		frames_plain(&es->v[V_F32 + f], n, fe, NULL, NULL, 0);
	}
	zpack(&es->v[V_G], cat, raw, level, 0, NULL, 0, NULL, NULL);
	if (!no19)
		zpack(&es->v[V_G19], cat, raw, 19, Z_LDM, NULL, 0, NULL, NULL);

	fprintf(stderr, "  %-72s %4d chunks %10zu raw -> A %9.0f\n",
			path + strlen(corpus_root) + 1, nch, raw, es->v[V_A].bytes - a_before);
	free(cat);
	free(co);
	free(clen);
	free(sp0);
}

static corpus_file *files;
static int	nfiles;

/* Print a table title and the era header row. */
static void
print_head(const char *title)
{
	printf("\n== %s ==\n\n%-42s", title, "");
	for (int e = 0; e <= NERAS; e++)
		printf(" %15s", e < NERAS ? era_names[e] : "total");
	printf("\n");
}

/* Print a time ratio cell, "-" when there is nothing to compare. */
static void
ratio_cell(double num, double den)
{
	if (num <= 0 || den <= 0)
		printf(" %12s", "-");
	else
		printf(" %12.3f", num / den);
}

/* Print the counts, the size tables and the time table. */
static void
report(const era_stat *es)
{
	const vstat *a = &es[NERAS].v[V_A];

	print_head("Values (each region file = one value; chunks in Morton order)");
	for (int k = 0; k < NCOUNT; k++)
	{
		printf("%-42s", count_names[k]);
		for (int e = 0; e <= NERAS; e++)
			printf(" %15.0f", es[e].n[k]);
		printf("\n");
	}
	for (int t = 0; t < 2; t++)
	{
		print_head(t ? "Size / A (below 1.000: smaller than A)" : "Compressed bytes");
		for (int v = 0; v < NV + t; v++)
		{
			printf("%-42s", v < NV ? vnames[v] : "A / raw chunk NBT");
			for (int e = 0; e <= NERAS; e++)
			{
				double		num = es[e].v[v < NV ? v : V_A].bytes,
							den = !t ? 1 : v < NV ? es[e].v[V_A].bytes : es[e].n[N_RAW];

				if ((v == V_G19 && no19) || den <= 0)
					printf(" %15s", v == V_G19 && no19 ? "skipped" : "n/a");
				else
					printf(t ? " %15.3f" : " %15.0f", num / den);
			}
			printf("\n");
		}
	}

	printf("\n== Times, whole corpus, one pass each: variant / A ==\n\n");
	printf("%-42s %12s %12s %12s %12s\n", "", "zstd frames", "compress", "+prep", "decompress");
	for (int v = 0; v < NV; v++)
	{
		const vstat *x = &es[NERAS].v[v];

		if (v == V_G19 && no19)
		{
			printf("%-42s %12s\n", vnames[v], "skipped");
			continue;
		}
		printf("%-42s %12.0f", vnames[v], x->zframes);
		ratio_cell(x->ct, a->ct);
		ratio_cell(x->prep > 0 ? x->ct + x->prep : 0, a->ct);
		ratio_cell(x->dt, a->dt);
		printf("\n");
	}
	printf("%-42s %12s", "D: dictionary training alone", "");
	ratio_cell(es[NERAS].v[V_D].prep, a->ct);
	printf("\n\ncompress, decompress: zstd alone, each timed once (A: %.2f s, %.2f s in this run);\n"
		   "+prep: compress plus building the streams (B, C, H) or training the dictionary (D).\n",
		   a->ct, a->dt);
}

/* Parse the arguments, measure every region file of the corpus, print the tables. */
int
main(int argc, char **argv)
{
	const char *env = getenv("SLIME_CORPUS"), *lvl = getenv("SLIME_BENCH_LEVEL");
	char		rootbuf[4096];
	era_stat	es[NERAS + 1];
	double		t_start = corpus_now();

	corpus_root = env && *env ? env : "../shared/corpus";
	if (lvl && *lvl)
		level = atoi(lvl);
	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "--level") == 0 && i + 1 < argc)
			level = atoi(argv[++i]);
		else if (strcmp(argv[i], "--no-19") == 0)
			no19 = 1;
		else if (argv[i][0] != '-')
			corpus_root = argv[i];
		else
		{
			fprintf(stderr, "usage: bench_ideas [--level N] [--no-19] [CORPUS_DIR]\n");
			return 2;
		}
	}
	if (level < SL_MIN_LEVEL || level > SL_MAX_LEVEL)
		die("zstd level %d is outside %d..%d", level, SL_MIN_LEVEL, SL_MAX_LEVEL);
	if (realpath(corpus_root, rootbuf) == NULL)
	{
		fprintf(stderr, "\n*** CORPUS MISSING: %s does not exist ***\n"
				"*** set SLIME_CORPUS to the shared corpus directory ***\n\n", corpus_root);
		return 2;
	}
	corpus_root = rootbuf;
	zc = ZSTD_createCCtx();
	zd = ZSTD_createDCtx();
	if (zc == NULL || zd == NULL)
		die("cannot create zstd contexts");

	printf("slime bench_ideas: zstd %s, level %d, frames of %d KiB, arrays >= %d bytes move (B, C),"
		   " dictionary %d KiB (D)%s; corpus %s\n", ZSTD_versionString(), level, FRAME_A / KIB,
		   ARR_MIN, DICT_TARGET / KIB, no19 ? "; --no-19" : "", corpus_root);
	memset(es, 0, sizeof(es));
	corpus_list_regions(corpus_root, era_names, NERAS, CORPUS_BY_PATH, &files, &nfiles);
	for (int e = 0, i = 0; e < NERAS; e++)
	{
		int			first = i;

		while (i < nfiles && files[i].era == e)
			i++;
		fprintf(stderr, "bench_ideas: %s: %d region files\n", era_names[e], i - first);
		for (int k = first; k < i; k++)
		{
			run_value(files[k].path, &es[e]);
			free(files[k].path);
		}
		/* totals: era_stat holds only doubles */
		for (size_t k = 0; k < sizeof(era_stat) / sizeof(double); k++)
			((double *) &es[NERAS])[k] += ((double *) &es[e])[k];
	}
	if (es[NERAS].n[N_FILES] == 0)
	{
		fprintf(stderr, "\n*** CORPUS MISSING: no region files under %s ***\n", corpus_root);
		return 2;
	}
	report(es);
	printf("\n(%.0f s in all)\n", corpus_now() - t_start);
	return 0;					/* buffers and contexts go with the process */
}
