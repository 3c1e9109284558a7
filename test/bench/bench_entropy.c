/*
 * bench_entropy.c - how many bits the block-state, light and biome arrays of
 * the corpus really hold, before a block-aware codec is written (issue #11).
 *
 * For every region file of the eras anvil-1.2-1.12, anvil-1.13-1.17,
 * anvil-1.18plus and mcregion (chunks read with sl_region_read, lenient):
 *   - baseline: zstd-19 + long matching (windowLog 27) over the region's
 *     chunk NBT concatenated (what bench_size calls (g));
 *   - arrays by class (blocks: 1.18+ block_states.data, 1.13-1.17
 *     BlockStates, pre-1.13 Blocks/Add/Data; light: SkyLight/BlockLight;
 *     biomes: biomes.data or Biomes): raw bytes, zstd-19-long of the class's
 *     payloads as their own stream per region, and model costs;
 *   - rest: zstd-19-long of the chunk NBT with those payloads cut out.
 * Block models, over the block key of every block (palette entry named by
 * its state string, so that ids are shared across sections of a region;
 * pre-1.13: id << 4 | data):
 *   H0/sec      empirical order-0 entropy of each section (a bound, not a code)
 *   H|B, H|BWN  empirical conditional entropy over the region given the block
 *               below / below+west+north (static: model cost not paid)
 *   ad o0       adaptive order-0 per section, counts + 1/2 over its palette
 *   ad B        adaptive PPM: context below, escape to ad o0
 *   ad BWN      adaptive PPM: below+west+north, escape to B, then to ad o0
 * The ad figures are code lengths an arithmetic coder would reach (sum of
 * -log2 p), i.e. what a codec can actually pay.
 * Light (nibbles): H0/array, ad o0 (per region), ad BWN (exact 4096
 * contexts of the three neighbour nibbles). Biomes: ad o1 over bytes.
 *
 * Usage: bench_entropy [CORPUS_DIR]   (default $SLIME_CORPUS or ../shared/corpus)
 */
#define _XOPEN_SOURCE 700
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>
#include <xxhash.h>

#include "sl_blocks.h"
#include "sl_nbt.h"
#include "sl_region.h"
#include "sl_value.h"

#define CORPUS_PROG "bench_entropy"
#include "corpus_util.h"
#include "bench_zstd.h"

#define NERAS 4
static const char *const era_names[NERAS] = {
	"anvil-1.2-1.12", "anvil-1.13-1.17", "anvil-1.18plus", "mcregion"
};

enum
{
	C_BLOCKS, C_LIGHT, C_BIOME, NCLASS
};
static const char *const class_names[NCLASS] = {"blocks", "light", "biomes"};

enum
{
	M_H0, M_HB, M_HBWN, M_AO0, M_AB, M_ABWN, NMODEL
};
static const char *const model_names[NMODEL] = {
	"H0/sec", "H|B", "H|BWN", "ad o0", "ad B", "ad BWN"
};

#define NONE_ID 0xFFFFFFFFu

typedef struct era_stats
{
	int			files,
				chunks;
	double		raw,
				base,			/* zstd-19-long per region */
				rest;			/* the same with the array payloads cut out */
	double		cls_raw[NCLASS],
				cls_zstd[NCLASS],
				cls_bits[NCLASS][NMODEL];
	double		nblocks;
} era_stats;

/* ------------------------------------------------------------ hash map */

typedef struct hent
{
	uint64_t	key;			/* 0: empty */
	uint32_t	a,
				b;
} hent;

typedef struct hmap
{
	hent	   *t;
	size_t		cap,
				n;
} hmap;

/* Entry of key (inserted zeroed when absent). */
static hent *
hget(hmap *m, uint64_t key)
{
	size_t		i;

	key |= 1;					/* never 0 */
	if (2 * (m->n + 1) > m->cap)
	{
		hmap		g = {NULL, m->cap ? m->cap * 2 : 1 << 16, 0};

		g.t = calloc(g.cap, sizeof(hent));
		if (g.t == NULL)
			die("out of memory");
		for (size_t k = 0; k < m->cap; k++)
			if (m->t[k].key)
			{
				i = (m->t[k].key * 0x9E3779B97F4A7C15ULL) >> 20 & (g.cap - 1);
				while (g.t[i].key)
					i = (i + 1) & (g.cap - 1);
				g.t[i] = m->t[k];
				g.n++;
			}
		free(m->t);
		*m = g;
	}
	i = (key * 0x9E3779B97F4A7C15ULL) >> 20 & (m->cap - 1);
	while (m->t[i].key && m->t[i].key != key)
		i = (i + 1) & (m->cap - 1);
	if (m->t[i].key == 0)
	{
		m->t[i].key = key;
		m->n++;
	}
	return &m->t[i];
}

/* Empty the map, keeping its memory. */
static void
hclear(hmap *m)
{
	if (m->t)
		memset(m->t, 0, m->cap * sizeof(hent));
	m->n = 0;
}

/* Mix words into a 64-bit key. */
static uint64_t
mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
	h *= 0xBF58476D1CE4E5B9ULL;
	return h ^ (h >> 31);
}

/* ----------------------------------------------------- region state */

static hmap names;				/* state-string hash -> global id (a) */
static uint32_t next_id;
static hmap ctx_b,
			sym_b,
			ctx_bwn,
			sym_bwn;			/* static and adaptive counts, per region */
static uint32_t light_o0[16],
			light_n;
static uint32_t *light_ctx;		/* 4096 contexts x 16 */
static uint32_t *biome_o1;		/* 256 x 256 */
static sl_buf streams[NCLASS + 1];	/* payloads per class; [NCLASS] the rest */


/* Global id of a block key string (or legacy key), shared within a region. */
static uint32_t
global_id(const void *s, size_t n)
{
	hent	   *e = hget(&names, XXH64(s, n, 0));

	if (e->b == 0)
	{
		e->b = 1;
		e->a = next_id++;
	}
	return e->a;
}

/* -log2 of the adaptive PPM probability of sym in ctx; 0 and no update when ctx unseen. */
static double
ppm_cost(hmap *ctxm, hmap *symm, uint64_t ctx, uint32_t sym, int *escaped)
{
	hent	   *c = hget(ctxm, ctx);
	hent	   *s = hget(symm, mix(ctx, sym));
	double		bits;

	if (c->a == 0)
	{
		*escaped = 1;
		bits = 0;
	}
	else if (s->a > 0)
	{
		*escaped = 0;
		bits = -log2((double) s->a / (c->a + c->b));
	}
	else
	{
		*escaped = 1;
		bits = -log2((double) c->b / (c->a + c->b));
	}
	if (s->a == 0)
		c->b++;
	c->a++;
	s->a++;
	return bits;
}

/* Static conditional entropy of the counts: sum -c(ctx,s) log2 c(ctx,s)/c(ctx). */
static double
static_entropy(hmap *ctxm, hmap *symm, int nctxwords)
{
	/* sym entries hold their ctx total in b (filled at update time) */
	double		bits = 0;

	(void) ctxm;
	(void) nctxwords;
	for (size_t i = 0; i < symm->cap; i++)
		if (symm->t[i].key && symm->t[i].a)
			bits -= symm->t[i].a * log2((double) symm->t[i].a / symm->t[i].b);
	return bits;
}

/* ------------------------------------------------------------ blocks */

/* Global ids of the 4096 blocks of section i; 0 when it holds none. */
static int
section_ids(const sl_chunk_blocks *c, int i, uint32_t *g, uint32_t *local, uint32_t *npal)
{
	const sl_section *s = &c->sections[i];
	sl_err		err;
	sl_buf		name = {0};
	uint32_t	map[SL_MAX_PALETTE];

	if (s->kind == 0)
		return 0;
	*npal = 0;
	if (s->kind == SL_SEC_PALETTE)
	{
		for (uint32_t p = 0; p < s->npalette; p++)
		{
			name.len = 0;
			if (sl_section_state_name(c, i, p, &name, &err))
				die("state name: %s", err.msg);
			map[p] = global_id(name.data, name.len);
		}
		*npal = s->npalette;
	}
	sl_buf_free(&name);
	for (int y = 0; y < 16; y++)
		for (int z = 0; z < 16; z++)
			for (int x = 0; x < 16; x++)
			{
				uint32_t	k;
				int			idx = y * 256 + z * 16 + x;

				if (sl_section_key(c, i, x, y, z, &k, &err))
					return 0;	/* index past the palette: not counted */
				local[idx] = k;
				g[idx] = s->kind == SL_SEC_PALETTE ? map[k] : global_id(&k, 4);
			}
	if (s->kind != SL_SEC_PALETTE)
	{
		/* legacy: the section's own distinct keys are its "palette" */
		hmap		seen = {0};

		for (int j = 0; j < 4096; j++)
		{
			hent	   *e = hget(&seen, (uint64_t) local[j] + 1);

			if (e->b == 0)
			{
				e->b = 1;
				e->a = (*npal)++;
			}
			local[j] = e->a;
		}
		free(seen.t);
	}
	return 1;
}

/* Model costs of one section given the top layer of the one below (or NULL). */
static void
section_costs(era_stats *e, const uint32_t *g, const uint32_t *local, uint32_t npal,
			  const uint32_t *below_top)
{
	uint32_t   *cnt = calloc(npal ? npal : 1, sizeof(uint32_t));
	double	   *bits = e->cls_bits[C_BLOCKS];

	for (int idx = 0; idx < 4096; idx++)
	{
		int			x = idx & 15,
					z = idx >> 4 & 15,
					y = idx >> 8;
		uint32_t	b = y ? g[idx - 256] : below_top ? below_top[idx] : NONE_ID;
		uint32_t	w = x ? g[idx - 1] : NONE_ID;
		uint32_t	n = z ? g[idx - 16] : NONE_ID;
		uint32_t	s = g[idx];
		uint64_t	kb = mix(1, b),
					kbwn = mix(mix(mix(2, b), w), n);
		double		o0 = -log2((cnt[local[idx]] + 0.5) / (idx + 0.5 * npal));
		double		cb,
					cbwn;
		int			escb,
					escbwn;
		hent	   *sb,
				   *sbwn;

		/* static counts: sym entry a = count (adaptive uses the same), b = ctx total later */
		cbwn = ppm_cost(&ctx_bwn, &sym_bwn, kbwn, s, &escbwn);
		cb = ppm_cost(&ctx_b, &sym_b, kb, s, &escb);
		bits[M_AO0] += o0;
		bits[M_AB] += cb + (escb ? o0 : 0);
		bits[M_ABWN] += cbwn + (escbwn ? cb + (escb ? o0 : 0) : 0);
		cnt[local[idx]]++;
		(void) sb;
		(void) sbwn;
	}
	for (uint32_t p = 0; p < npal; p++)
		if (cnt[p])
			bits[M_H0] -= cnt[p] * log2(cnt[p] / 4096.0);
	e->nblocks += 4096;
	free(cnt);
}

/* Fill each sym entry's b with its context total, then add the static entropies. */
static void
region_static(era_stats *e)
{
	hmap	   *ctxs[2] = {&ctx_b, &ctx_bwn};
	hmap	   *syms[2] = {&sym_b, &sym_bwn};

	/* sym keys do not give back their ctx: recompute totals by a second map pass */
	for (int m = 0; m < 2; m++)
	{
		double		sum_c = 0,
					sum_cl = 0;

		/* H(X|C) = sum_ctx n log2 n - sum_(ctx,s) c log2 c */
		for (size_t i = 0; i < ctxs[m]->cap; i++)
			if (ctxs[m]->t[i].key && ctxs[m]->t[i].a)
				sum_c += ctxs[m]->t[i].a * log2((double) ctxs[m]->t[i].a);
		for (size_t i = 0; i < syms[m]->cap; i++)
			if (syms[m]->t[i].key && syms[m]->t[i].a)
				sum_cl += syms[m]->t[i].a * log2((double) syms[m]->t[i].a);
		e->cls_bits[C_BLOCKS][m == 0 ? M_HB : M_HBWN] += sum_c - sum_cl;
	}
	(void) static_entropy;
}

/* Block models over every section of a chunk. */
static void
chunk_blocks(era_stats *e, const sl_nbt *root, sl_arena *arena)
{
	sl_chunk_blocks c;
	sl_err		err;
	uint32_t	g[4096],
				local[4096],
				top[256];
	int			prev_y = INT32_MIN;

	if (sl_chunk_blocks_from_tree(root, SL_NO_DV, SL_WANT_BLOCKS, arena, &c, &err))
		return;
	for (int i = 0; i < c.nsections; i++)
	{
		uint32_t	npal;

		if (!section_ids(&c, i, g, local, &npal))
			continue;
		section_costs(e, g, local, npal, prev_y == c.sections[i].y - 1 ? top : NULL);
		memcpy(top, g + 15 * 256, sizeof(top));
		prev_y = c.sections[i].y;
	}
}

/* ------------------------------------------------------------- light */

/* Nibble i of a light array (low nibble first). */
static int
nib(const uint8_t *a, int i)
{
	return (a[i >> 1] >> ((i & 1) * 4)) & 15;
}

/* Light models over one nibble array of 2048 (16^3, YZX) or 16384 (XZY, 128 high) bytes. */
static void
light_costs(era_stats *e, const uint8_t *a, uint32_t nbytes)
{
	int			n = (int) nbytes * 2;
	int			mcr = nbytes == 16384;
	uint32_t	cnt[16] = {0};
	double	   *bits = e->cls_bits[C_LIGHT];

	for (int i = 0; i < n; i++)
	{
		int			x, y, z, ib, iw, in;
		int			v = nib(a, i);

		if (mcr)
		{
			y = i & 127; z = i >> 7 & 15; x = i >> 11;
			ib = y ? i - 1 : -1; iw = x ? i - 2048 : -1; in = z ? i - 128 : -1;
		}
		else
		{
			x = i & 15; z = i >> 4 & 15; y = i >> 8;
			ib = y ? i - 256 : -1; iw = x ? i - 1 : -1; in = z ? i - 16 : -1;
		}
		{
			int			ctx = (ib < 0 ? 16 : nib(a, ib)) * 289 + (iw < 0 ? 16 : nib(a, iw)) * 17 +
				(in < 0 ? 16 : nib(a, in));
			uint32_t   *cc = light_ctx + (size_t) ctx * 17;

			bits[M_ABWN] -= log2((cc[v] + 0.5) / (cc[16] + 8.0));
			cc[v]++;
			cc[16]++;
		}
		bits[M_AO0] -= log2((light_o0[v] + 0.5) / (light_n + 8.0));
		light_o0[v]++;
		light_n++;
		cnt[v]++;
	}
	for (int v = 0; v < 16; v++)
		if (cnt[v])
			bits[M_H0] -= cnt[v] * log2((double) cnt[v] / n);
}

/* Adaptive order-1 byte cost of a biome array. */
static void
biome_costs(era_stats *e, const uint8_t *a, uint32_t n)
{
	int			prev = 0;

	for (uint32_t i = 0; i < n; i++)
	{
		uint32_t   *cc = biome_o1 + (size_t) prev * 257;

		e->cls_bits[C_BIOME][M_ABWN] -= log2((cc[a[i]] + 0.5) / (cc[256] + 128.0));
		cc[a[i]]++;
		cc[256]++;
		prev = a[i];
	}
}

/* ------------------------------------------------------------ arrays */

typedef struct cut
{
	size_t		off,
				len;
} cut;

typedef struct cuts
{
	cut		   *v;
	int			n,
				cap;
} cuts;

/* Bytes per element of an array tag type. */
static int
elem_size(int type)
{
	return type == SL_TAG_BYTE_ARRAY ? 1 : type == SL_TAG_INT_ARRAY ? 4 : 8;
}

/* Class of array tag t named within a compound named parent; -1 none. */
static int
array_class(const sl_nbt *t, const char *parent, size_t plen)
{
	size_t		n = t->name_len;
	const char *s = t->name;

#define IS(lit) (n == sizeof(lit) - 1 && memcmp(s, lit, n) == 0)
#define PIS(lit) (plen == sizeof(lit) - 1 && memcmp(parent, lit, plen) == 0)
	if (t->type == SL_TAG_LONG_ARRAY && IS("data") && PIS("block_states"))
		return C_BLOCKS;
	if (t->type == SL_TAG_LONG_ARRAY && IS("BlockStates"))
		return C_BLOCKS;
	if (t->type == SL_TAG_BYTE_ARRAY && (IS("Blocks") || IS("Add") || IS("Data")))
		return C_BLOCKS;
	if (t->type == SL_TAG_BYTE_ARRAY && (IS("SkyLight") || IS("BlockLight")))
		return C_LIGHT;
	if (t->type == SL_TAG_LONG_ARRAY && IS("data") && PIS("biomes"))
		return C_BIOME;
	if (IS("Biomes") && t->type != SL_TAG_LIST && t->type != SL_TAG_COMPOUND)
		return C_BIOME;
#undef IS
#undef PIS
	return -1;
}

/* Walk a tree: collect class payloads and cut ranges (depth-limited). */
static void
walk(era_stats *e, const sl_nbt *t, const char *pname, size_t plen,
	 const uint8_t *base, cuts *cs, int depth)
{
	if (depth > 64)
		return;
	if (t->type == SL_TAG_COMPOUND)
	{
		for (uint32_t i = 0; i < t->v.comp.count; i++)
			walk(e, t->v.comp.items[i], t->name, t->name_len, base, cs, depth + 1);
	}
	else if (t->type == SL_TAG_LIST && (t->v.list.elem_type == SL_TAG_COMPOUND ||
										t->v.list.elem_type == SL_TAG_LIST))
	{
		for (uint32_t i = 0; i < t->v.list.count; i++)
			walk(e, t->v.list.items[i], t->name, t->name_len, base, cs, depth + 1);
	}
	else if (t->type == SL_TAG_BYTE_ARRAY || t->type == SL_TAG_INT_ARRAY ||
			 t->type == SL_TAG_LONG_ARRAY)
	{
		int			k = t->name ? array_class(t, pname ? pname : "", plen) : -1;
		size_t		len = (size_t) t->v.arr.count * elem_size(t->type);
		sl_err		err;

		if (k < 0 || len == 0)
			return;
		e->cls_raw[k] += len;
		if (sl_buf_put(&streams[k], t->v.arr.data, len, &err))
			die("%s", err.msg);
		if (k == C_LIGHT && (len == 2048 || len == 16384))
			light_costs(e, t->v.arr.data, (uint32_t) len);
		if (k == C_BIOME)
			biome_costs(e, t->v.arr.data, (uint32_t) len);
		if (cs->n == cs->cap)
		{
			cs->cap = cs->cap ? 2 * cs->cap : 64;
			cs->v = xrealloc(cs->v, cs->cap * sizeof(cut));
		}
		cs->v[cs->n].off = (size_t) (t->v.arr.data - base);
		cs->v[cs->n].len = len;
		cs->n++;
	}
}

/* Order cuts by offset. */
static int
cmp_cut(const void *a, const void *b)
{
	const cut  *x = a,
			   *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* One chunk: arrays, block models and the rest. */
static void
chunk(era_stats *e, const uint8_t *nbt, size_t len)
{
	sl_arena	arena = {0};
	sl_nbt	   *root;
	size_t		used,
				pos = 0;
	sl_err		err;
	cuts		cs = {0};

	if (sl_nbt_parse(nbt, len, NULL, &arena, &root, &used, &err))
	{
		sl_buf_put(&streams[NCLASS], nbt, len, &err);
		sl_arena_free(&arena);
		return;
	}
	walk(e, root, NULL, 0, nbt, &cs, 0);
	qsort(cs.v, cs.n, sizeof(cut), cmp_cut);
	for (int i = 0; i < cs.n; i++)
	{
		if (cs.v[i].off < pos)
			continue;
		sl_buf_put(&streams[NCLASS], nbt + pos, cs.v[i].off - pos, &err);
		pos = cs.v[i].off + cs.v[i].len;
	}
	sl_buf_put(&streams[NCLASS], nbt + pos, len - pos, &err);
	chunk_blocks(e, root, &arena);
	free(cs.v);
	sl_arena_free(&arena);
}

/* ------------------------------------------------------------- files */

static corpus_file *files;
static int	nfiles;

/* Reset every per-region model. */
static void
region_reset(void)
{
	hclear(&names);
	next_id = 0;
	hclear(&ctx_b);
	hclear(&sym_b);
	hclear(&ctx_bwn);
	hclear(&sym_bwn);
	memset(light_o0, 0, sizeof(light_o0));
	light_n = 0;
	memset(light_ctx, 0, 17 * 17 * 17 * 17 * sizeof(uint32_t));
	memset(biome_o1, 0, 256 * 257 * sizeof(uint32_t));
	for (int k = 0; k <= NCLASS; k++)
		streams[k].len = 0;
}

/* One region file. */
static void
region_file(era_stats *e, const char *path)
{
	sl_region	r;
	sl_err		err;
	sl_buf		cat = {0};

	corpus_read_region(path, &r);
	region_reset();
	for (int c = 0; c < r.nchunks; c++)
	{
		if (sl_buf_put(&cat, r.chunks[c].nbt, r.chunks[c].nbt_len, &err))
			die("%s", err.msg);
		chunk(e, r.chunks[c].nbt, r.chunks[c].nbt_len);
	}
	region_static(e);
	e->files++;
	e->chunks += r.nchunks;
	e->raw += cat.len;
	e->base += bench_zstd_size(cat.data, cat.len, 19, 1);
	e->rest += bench_zstd_size(streams[NCLASS].data, streams[NCLASS].len, 19, 1);
	for (int k = 0; k < NCLASS; k++)
		e->cls_zstd[k] += bench_zstd_size(streams[k].data, streams[k].len, 19, 1);
	sl_buf_free(&cat);
	sl_region_free(&r);
}

/* Print one era's table. */
static void
print_era(const char *name, const era_stats *e)
{
	double		best;

	printf("\n== %s: %d files, %d chunks, raw NBT %.0f B, zstd-19-long/region %.0f B "
		   "(%.2f%% of raw)\n", name, e->files, e->chunks, e->raw, e->base,
		   e->raw ? 100 * e->base / e->raw : 0);
	printf("%-7s %12s %11s %7s", "arrays", "raw B", "zstd19L B", "%base");
	for (int m = 0; m < NMODEL; m++)
		printf(" %10s", model_names[m]);
	printf("   (model columns: bytes)\n");
	for (int k = 0; k < NCLASS; k++)
	{
		printf("%-7s %12.0f %11.0f %6.1f%%", class_names[k], e->cls_raw[k], e->cls_zstd[k],
			   e->base ? 100 * e->cls_zstd[k] / e->base : 0);
		for (int m = 0; m < NMODEL; m++)
			if (e->cls_bits[k][m] > 0)
				printf(" %10.0f", e->cls_bits[k][m] / 8);
			else
				printf(" %10s", "-");
		printf("\n");
	}
	if (e->nblocks > 0)
	{
		printf("blocks: bits/block over %.0f blocks:", e->nblocks);
		for (int m = 0; m < NMODEL; m++)
			printf(" %s %.3f;", model_names[m], e->cls_bits[C_BLOCKS][m] / e->nblocks);
		printf("\n");
	}
	best = e->rest + e->cls_bits[C_BLOCKS][M_ABWN] / 8 +
		(e->cls_bits[C_LIGHT][M_ABWN] > 0 ? e->cls_bits[C_LIGHT][M_ABWN] / 8 : e->cls_zstd[C_LIGHT]) +
		(e->cls_bits[C_BIOME][M_ABWN] > 0 && e->cls_bits[C_BIOME][M_ABWN] / 8 < e->cls_zstd[C_BIOME]
		 ? e->cls_bits[C_BIOME][M_ABWN] / 8 : e->cls_zstd[C_BIOME]);
	printf("rest (arrays cut out) zstd19L %.0f B = %.1f%% of base; "
		   "rest + ad BWN blocks + ad BWN light + min(biomes) = %.0f B = %.3fx base\n",
		   e->rest, e->base ? 100 * e->rest / e->base : 0, best, e->base ? best / e->base : 0);
}

/* Add era stats b into a. */
static void
add_stats(era_stats *a, const era_stats *b)
{
	const double *s = (const double *) &b->raw;
	double	   *d = (double *) &a->raw;

	a->files += b->files;
	a->chunks += b->chunks;
	for (size_t i = 0; i < (sizeof(era_stats) - offsetof(era_stats, raw)) / sizeof(double); i++)
		d[i] += s[i];
}

int
main(int argc, char **argv)
{
	const char *root = argc > 1 ? argv[1] : getenv("SLIME_CORPUS");
	era_stats	es[NERAS],
				all;
	double		t0 = corpus_now();

	if (root == NULL)
		root = "../shared/corpus";
	light_ctx = xmalloc(17 * 17 * 17 * 17 * sizeof(uint32_t));
	biome_o1 = xmalloc(256 * 257 * sizeof(uint32_t));
	corpus_list_regions(root, era_names, NERAS, CORPUS_BY_PATH, &files, &nfiles);
	if (nfiles == 0)
		die("no region files under %s", root);
	memset(es, 0, sizeof(es));
	memset(&all, 0, sizeof(all));
	printf("slime bench_entropy: zstd %s; corpus %s; %d region files\n",
		   ZSTD_versionString(), root, nfiles);
	for (int i = 0; i < nfiles; i++)
	{
		region_file(&es[files[i].era], files[i].path);
		fprintf(stderr, "  %s\n", files[i].path);
	}
	for (int k = 0; k < NERAS; k++)
	{
		print_era(era_names[k], &es[k]);
		add_stats(&all, &es[k]);
	}
	print_era("all eras", &all);
	printf("\n(%.1f s)\n", corpus_now() - t0);
	return 0;
}
