/*
 * bench_size.c - size and import-speed benchmark of the slime value format
 * against baselines computed here, in the same run, from the same chunks.
 *
 * Part 1 (corpus): every region file (.mca/.mcr) of the eras anvil-1.2-1.12,
 * anvil-1.13-1.17, anvil-1.18plus and mcregion is imported as ONE value
 * (sl_region_read strict + sl_builder_add_region + sl_builder_encode) and
 * compared with
 *   (a) the region files as found          (b) their compressed chunk payloads
 *   (c) a zip (default level) of the era   (d) per-chunk zstd-3
 *   (e) zstd-6 per region file             (f) zstd-3 per world (directory)
 *   (g) zstd-19 + long matching (windowLog 27) per region file
 *   (h) slime value bytes (the current format, v3)
 *   (i) zstd-3, one stream per region file (chunks in file order)
 *   (j) slime format v2 values of the same chunks (the previous format)
 *   (k) slime values at the archive level (20: the block codec)
 * and import time against merely inflating the same payloads (best of 3),
 * for the current format and for v2, interleaved. The worst file of each
 * era (largest slime / (i)) is printed with its ratio.
 *
 * Part 2 (islands): synthetic 5x5-chunk islands cut from 1.18+ regions, each
 * with small deterministic edits; per island (d), (f), (g), (h).
 *
 * Inputs of test/bench/bench_store.sh (chunk store), written as files and
 * measured there: --emit-clones (one template island and N clones of it)
 * and --emit-saves (successive saves of one region); see clones_part and
 * saves_part. Each prints one line to stdout.
 *
 * Benchmarks never fail on numbers; the exit status is non-zero only when
 * something could not be run (corpus missing, import error, ...).
 *
 * Usage: bench_size [--islands N] [--g-sample N] [--emit-islands FILE]
 *                   [--emit-count N] [--no-corpus]
 *                   [--emit-clones FILE [--clones N] [--clone-block K]]
 *                   [--emit-saves FILE [--saves N] [--saves-region PATH]]
 *                   [CORPUS_DIR]
 * With --emit-clones or --emit-saves, only those files are written (parts 1
 * and 2 do not run).
 * Environment: SLIME_CORPUS (corpus dir), SLIME_BENCH_LEVEL (zstd level
 * passed to the encoder through a copy of sl_default_encode_opts; unset:
 * NULL opts, i.e. the encoder's current defaults).
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <zstd.h>

#include "sl_build.h"
#include "sl_codec.h"
#include "sl_nbt.h"
#include "sl_region.h"
#include "sl_value.h"

#define CORPUS_PROG "bench_size"
#include "corpus_util.h"
#include "bench_zstd.h"

#define NERAS 4
static const char *const era_names[NERAS] = {
	"anvil-1.2-1.12", "anvil-1.13-1.17", "anvil-1.18plus", "mcregion"
};

#define REPEAT 3
#define ISLAND_SIDE 5
#define ISLAND_CHUNKS (ISLAND_SIDE * ISLAND_SIDE)
#define ISLAND_SEED 0x5EED51A11D5ULL

static const char *corpus_root;
static const sl_encode_opts *enc_opts;	/* NULL: the encoder's defaults */
static sl_encode_opts env_opts;

/* ------------------------------------------------------------------ util */

/* A whole file (corpus_read_file), or die. */
static uint8_t *
read_whole(const char *path, size_t *len)
{
	uint8_t    *buf = corpus_read_file(path, len);

	if (buf == NULL)
		die("cannot read %s: %s", path, strerror(errno));
	return buf;
}

/* splitmix64: a small deterministic PRNG. */
static uint64_t rng_state;
static uint64_t
rnd(void)
{
	uint64_t	z = (rng_state += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

/* Growable byte vector for concatenated NBT. */
typedef struct bytes
{
	uint8_t    *p;
	size_t		len,
				cap;
} bytes;

static void
bytes_put(bytes *b, const void *src, size_t n)
{
	if (b->len + n > b->cap)
	{
		b->cap = (b->len + n) * 2;
		b->p = realloc(b->p, b->cap);
		if (b->p == NULL)
			die("out of memory");
	}
	memcpy(b->p + b->len, src, n);
	b->len += n;
}

/* ------------------------------------------------------------ files */

static corpus_file *files;
static int	nfiles;

static int
same_dir(const char *a, const char *b)
{
	size_t		da = strrchr(a, '/') - a,
				db = strrchr(b, '/') - b;

	return da == db && strncmp(a, b, da) == 0;
}

/* ---------------------------------------------------------- part 1 */

#define NBASE 11

typedef struct era_stats
{
	int			files;
	long		chunks;
	int			worlds;
	double		raw;			/* uncompressed chunk NBT */
	double		b[NBASE];		/* baselines a..j */
	double		import_s;
	double		import2_s;		/* the same imports written as format v2 */
	double		inflate_s;
	double		worst;			/* largest slime / (i) of one file */
	char		worst_file[256];
	double		archive_s;		/* encoding at the archive level */
	double		aworst;			/* largest archive / (g) of one file */
	char		aworst_file[256];
} era_stats;

enum
{
	B_MCA, B_PAYLOAD, B_ZIP, B_CHUNK3, B_FILE6, B_WORLD3, B_LONG19, B_SLIME,
	B_FILE3, B_SLIME2, B_ARCHIVE
};
static const char *const base_names[NBASE] = {
	"(a) region files as found",
	"(b) compressed chunk payloads",
	"(c) zip -6 of the era's files",
	"(d) zstd-3 per chunk",
	"(e) zstd-6 per region file",
	"(f) zstd-3 per world (dir)",
	"(g) zstd-19 long per region",
	"(h) slime values",
	"(i) zstd-3 per region file",
	"(j) slime v2 values",
	"(k) slime archive level (20)",
};

/* Import a file as one value; returns seconds, *value_len the value size. */
static double
import_once(const char *path, const uint8_t *file, size_t len, int32_t rx, int32_t rz,
			const sl_encode_opts *opts, size_t *value_len)
{
	sl_region	r;
	sl_builder	b;
	sl_buf		out = {0};
	sl_err		err;
	double		t0,
				t;

	memset(&r, 0, sizeof(r));
	memset(&b, 0, sizeof(b));
	t0 = corpus_now();
	if (sl_region_read(file, len, rx, rz, NULL, 0, 1, NULL, &r, &err) ||
		sl_builder_add_region(&b, SL_COMP_REGION, &r, &err) ||
		sl_builder_encode(&b, opts, NULL, &out, &err))
		die("import %s: %s", path, err.msg);
	t = corpus_now() - t0;
	*value_len = out.len;
	sl_buf_free(&out);
	sl_builder_free(&b);
	sl_region_free(&r);
	return t;
}

static void
make_zip(const char *tmpdir, int era, double *zip_bytes)
{
	char		lst[4096],
				zip[4096],
				cmd[16384];
	FILE	   *f;
	struct stat st;
	size_t		rootlen = strlen(corpus_root);

	snprintf(lst, sizeof(lst), "%s/%s.lst", tmpdir, era_names[era]);
	snprintf(zip, sizeof(zip), "%s/%s.zip", tmpdir, era_names[era]);
	f = fopen(lst, "w");
	if (f == NULL)
		die("cannot write %s", lst);
	for (int i = 0; i < nfiles; i++)
		if (files[i].era == era)
			fprintf(f, "%s\n", files[i].path + rootlen + 1);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cd '%s' && zip -q '%s' -@ < '%s'", corpus_root, zip, lst);
	if (system(cmd) != 0 || stat(zip, &st) != 0)
	{
		fprintf(stderr, "bench_size: zip failed (is the zip tool installed?)\n");
		*zip_bytes = -1;
		return;
	}
	*zip_bytes = (double) st.st_size;
	unlink(zip);
	unlink(lst);
}

static void
print_bytes_cell(double v)
{
	if (v < 0)
		printf(" %15s", "n/a");
	else
		printf(" %15.0f", v);
}

static void
print_ratio_cell(double num, double den)
{
	if (den <= 0 || num < 0)
		printf(" %15s", "n/a");
	else
		printf(" %15.3f", num / den);
}

static void
corpus_part(const char *tmpdir)
{
	era_stats	es[NERAS + 1];
	bytes		world = {0};
	const char *world_dir = NULL;
	int			world_era = -1;

	memset(es, 0, sizeof(es));
	fprintf(stderr, "bench_size: corpus: %d region files\n", nfiles);
	for (int i = 0; i < nfiles; i++)
	{
		const char *path = files[i].path;
		era_stats  *e = &es[files[i].era];
		size_t		len,
					vlen = 0,
					vlen2 = 0;
		sl_encode_opts v2opts = enc_opts ? *enc_opts : sl_default_encode_opts;
		size_t		archive_len = 0;
		uint8_t    *file = read_whole(path, &len);
		int32_t		rx,
					rz;
		double		best_imp = 1e30,
					best_imp2 = 1e30,
					best_inf = 1e30,
					payload = 0;
		sl_region	r;
		sl_err		err;
		bytes		cat = {0};

		corpus_region_coords(path, &rx, &rz);
		v2opts.version = 2;
		v2opts.frame_target = 128 * 1024;	/* what 0.2.0 wrote */
		/* timings: best of REPEAT, imports (current format, v2) and inflate interleaved */
		for (int k = 0; k < REPEAT; k++)
		{
			double		t = import_once(path, file, len, rx, rz, enc_opts, &vlen);

			if (t < best_imp)
				best_imp = t;
			t = import_once(path, file, len, rx, rz, &v2opts, &vlen2);
			if (t < best_imp2)
				best_imp2 = t;
			if (corpus_inflate_only(file, len, &payload, &t))
				die("inflate: a payload of %s does not inflate", path);
			if (t < best_inf)
				best_inf = t;
		}
		e->files++;
		e->import_s += best_imp;
		e->import2_s += best_imp2;
		e->inflate_s += best_inf;
		e->b[B_MCA] += len;
		e->b[B_PAYLOAD] += payload;
		e->b[B_SLIME] += vlen;
		e->b[B_SLIME2] += vlen2;
		{
			sl_encode_opts aopts = sl_default_encode_opts;
			size_t		alen = 0;

			aopts.level = SL_ARCHIVE_LEVEL;
			e->archive_s += import_once(path, file, len, rx, rz, &aopts, &alen);
			e->b[B_ARCHIVE] += alen;
			archive_len = alen;
		}

		/* the chunks themselves, for the zstd baselines */
		memset(&r, 0, sizeof(r));
		if (sl_region_read(file, len, rx, rz, NULL, 0, 1, NULL, &r, &err))
			die("read %s: %s", path, err.msg);
		if (world_dir == NULL || !same_dir(world_dir, path) || world_era != files[i].era)
		{
			if (world_dir != NULL && world.len > 0)
				es[world_era].b[B_WORLD3] += bench_zstd_size(world.p, world.len, 3, 0);
			if (world_dir != NULL)
				es[world_era].worlds++;
			world.len = 0;
			world_dir = path;
			world_era = files[i].era;
		}
		for (int c = 0; c < r.nchunks; c++)
		{
			e->chunks++;
			e->raw += r.chunks[c].nbt_len;
			e->b[B_CHUNK3] += bench_zstd_size(r.chunks[c].nbt, r.chunks[c].nbt_len, 3, 0);
			bytes_put(&cat, r.chunks[c].nbt, r.chunks[c].nbt_len);
			bytes_put(&world, r.chunks[c].nbt, r.chunks[c].nbt_len);
		}
		if (cat.len > 0)
		{
			double		f3 = bench_zstd_size(cat.p, cat.len, 3, 0);

			double		l19 = bench_zstd_size(cat.p, cat.len, 19, 1);

			e->b[B_FILE6] += bench_zstd_size(cat.p, cat.len, 6, 0);
			e->b[B_LONG19] += l19;
			e->b[B_FILE3] += f3;
			if (archive_len / l19 > e->aworst)
			{
				e->aworst = archive_len / l19;
				snprintf(e->aworst_file, sizeof(e->aworst_file), "%s (%d chunks, %zu B vs %.0f B)",
						 path + strlen(corpus_root) + 1, r.nchunks, archive_len, l19);
			}
			if (vlen / f3 > e->worst)
			{
				e->worst = vlen / f3;
				snprintf(e->worst_file, sizeof(e->worst_file), "%s (%d chunks, %zu B vs %.0f B)",
						 path + strlen(corpus_root) + 1, r.nchunks, vlen, f3);
			}
		}
		fprintf(stderr, "  %-80s %4d chunks %10zu raw -> %9zu slime\n",
				path + strlen(corpus_root) + 1, r.nchunks, cat.len, vlen);
		free(cat.p);
		sl_region_free(&r);
		free(file);
	}
	if (world_dir != NULL)
	{
		if (world.len > 0)
			es[world_era].b[B_WORLD3] += bench_zstd_size(world.p, world.len, 3, 0);
		es[world_era].worlds++;
	}
	free(world.p);

	for (int e = 0; e < NERAS; e++)
		make_zip(tmpdir, e, &es[e].b[B_ZIP]);

	/* totals */
	for (int e = 0; e < NERAS; e++)
	{
		es[NERAS].files += es[e].files;
		es[NERAS].chunks += es[e].chunks;
		es[NERAS].worlds += es[e].worlds;
		es[NERAS].raw += es[e].raw;
		es[NERAS].import_s += es[e].import_s;
		es[NERAS].import2_s += es[e].import2_s;
		es[NERAS].inflate_s += es[e].inflate_s;
		es[NERAS].archive_s += es[e].archive_s;
		if (es[e].worst > es[NERAS].worst)
		{
			es[NERAS].worst = es[e].worst;
			memcpy(es[NERAS].worst_file, es[e].worst_file, sizeof(es[e].worst_file));
		}
		if (es[e].aworst > es[NERAS].aworst)
		{
			es[NERAS].aworst = es[e].aworst;
			memcpy(es[NERAS].aworst_file, es[e].aworst_file, sizeof(es[e].aworst_file));
		}
		for (int k = 0; k < NBASE; k++)
		{
			if (es[e].b[k] < 0 || es[NERAS].b[k] < 0)
				es[NERAS].b[k] = -1;	/* unknown in one era: unknown in all */
			else
				es[NERAS].b[k] += es[e].b[k];
		}
	}

	printf("\n== 1. Corpus: each region file imported as one value (bytes) ==\n\n");
	printf("%-40s", "");
	for (int e = 0; e <= NERAS; e++)
		printf(" %15s", e < NERAS ? era_names[e] : "total");
	printf("\n%-40s", "region files / worlds (dirs)");
	for (int e = 0; e <= NERAS; e++)
	{
		char		cell[32];

		snprintf(cell, sizeof(cell), "%d / %d", es[e].files, es[e].worlds);
		printf(" %15s", cell);
	}
	printf("\n%-40s", "chunks");
	for (int e = 0; e <= NERAS; e++)
		printf(" %15ld", es[e].chunks);
	printf("\n%-40s", "raw chunk NBT");
	for (int e = 0; e <= NERAS; e++)
		print_bytes_cell(es[e].raw);
	printf("\n");
	for (int k = 0; k < NBASE; k++)
	{
		printf("%-40s", base_names[k]);
		for (int e = 0; e <= NERAS; e++)
			print_bytes_cell(es[e].b[k]);
		printf("\n");
	}

	printf("\n== 1. Corpus: slime / baseline (below 1.000: slime is smaller) ==\n\n");
	printf("%-40s", "");
	for (int e = 0; e <= NERAS; e++)
		printf(" %15s", e < NERAS ? era_names[e] : "total");
	printf("\n");
	for (int k = 0; k < NBASE; k++)
	{
		if (k == B_SLIME)
			continue;
		printf("slime / %-32s", base_names[k]);
		for (int e = 0; e <= NERAS; e++)
			print_ratio_cell(es[e].b[B_SLIME], es[e].b[k]);
		printf("\n");
	}
	printf("%-40s", "slime / raw NBT");
	for (int e = 0; e <= NERAS; e++)
		print_ratio_cell(es[e].b[B_SLIME], es[e].raw);
	printf("\n");

	printf("\n== 1. Corpus: import throughput (MB/s of raw chunk NBT, best of %d) ==\n\n", REPEAT);
	printf("%-40s", "");
	for (int e = 0; e <= NERAS; e++)
		printf(" %15s", e < NERAS ? era_names[e] : "total");
	printf("\n%-40s", "import (read+inflate+check+encode)");
	for (int e = 0; e <= NERAS; e++)
		printf(" %15.1f", es[e].import_s > 0 ? es[e].raw / 1e6 / es[e].import_s : 0);
	printf("\n%-40s", "import, writing format v2");
	for (int e = 0; e <= NERAS; e++)
		printf(" %15.1f", es[e].import2_s > 0 ? es[e].raw / 1e6 / es[e].import2_s : 0);
	printf("\n%-40s", "import time / v2 import time");
	for (int e = 0; e <= NERAS; e++)
		print_ratio_cell(es[e].import_s, es[e].import2_s);
	printf("\n%-40s", "import at the archive level (20), once");
	for (int e = 0; e <= NERAS; e++)
		printf(" %15.1f", es[e].archive_s > 0 ? es[e].raw / 1e6 / es[e].archive_s : 0);
	printf("\n%-40s", "inflate payloads only");
	for (int e = 0; e <= NERAS; e++)
		printf(" %15.1f", es[e].inflate_s > 0 ? es[e].raw / 1e6 / es[e].inflate_s : 0);
	printf("\n%-40s", "import time / inflate time");
	for (int e = 0; e <= NERAS; e++)
		print_ratio_cell(es[e].import_s, es[e].inflate_s);
	printf("\n");
	printf("\n== 1. Corpus: worst file per era, slime / (i) zstd-3 per region file ==\n\n");
	for (int e = 0; e <= NERAS; e++)
		printf("%-16s %7.3f  %s\n", e < NERAS ? era_names[e] : "all", es[e].worst, es[e].worst_file);
	printf("\n== 1. Corpus: worst file per era, (k) archive level / (g) zstd-19 long per region ==\n\n");
	for (int e = 0; e <= NERAS; e++)
		printf("%-16s %7.3f  %s\n", e < NERAS ? era_names[e] : "all", es[e].aworst, es[e].aworst_file);

}

/* ---------------------------------------------------------- part 2 */

typedef struct edit_span
{
	uint32_t	off;
	uint32_t	len;
} edit_span;

typedef struct src_chunk
{
	const sl_region_chunk *c;
	edit_span  *spans;			/* block-state long arrays and byte arrays */
	int			nspans;
	int64_t		lastupdate_off; /* payload offsets of the root longs, -1 none */
	int64_t		inhabited_off;
	int			full;			/* Status is "full" / "minecraft:full" */
} src_chunk;

typedef struct src_block
{
	src_chunk  *ch[ISLAND_CHUNKS];
	int			file;			/* index in files[] */
	int			bx,
				bz;				/* chunk offset of the block in its region */
	double		raw;			/* raw NBT bytes of its 25 chunks */
} src_block;

static void
collect_spans(const sl_nbt *n, const uint8_t *buf, const char *parent, size_t plen,
			  src_chunk *sc, int depth)
{
	if (n->type == SL_TAG_COMPOUND || (n->type == SL_TAG_LIST && n->v.list.elem_type == SL_TAG_COMPOUND))
	{
		uint32_t	cnt = n->type == SL_TAG_COMPOUND ? n->v.comp.count : n->v.list.count;
		sl_nbt	  **items = n->type == SL_TAG_COMPOUND ? n->v.comp.items : n->v.list.items;

		for (uint32_t i = 0; i < cnt; i++)
		{
			const sl_nbt *c = items[i];

			if (n->type == SL_TAG_COMPOUND && c->type == SL_TAG_LONG_ARRAY &&
				c->name_len == 4 && memcmp(c->name, "data", 4) == 0 &&
				n->name_len == 12 && memcmp(n->name, "block_states", 12) == 0 &&
				c->v.arr.count > 0)
			{
				sc->spans = realloc(sc->spans, (sc->nspans + 1) * sizeof(edit_span));
				sc->spans[sc->nspans].off = (uint32_t) (c->v.arr.data - buf);
				sc->spans[sc->nspans].len = c->v.arr.count * 8;
				sc->nspans++;
			}
			else if (c->type == SL_TAG_BYTE_ARRAY && c->v.arr.count > 0)
			{
				sc->spans = realloc(sc->spans, (sc->nspans + 1) * sizeof(edit_span));
				sc->spans[sc->nspans].off = (uint32_t) (c->v.arr.data - buf);
				sc->spans[sc->nspans].len = c->v.arr.count;
				sc->nspans++;
			}
			else if (depth == 0 && c->type == SL_TAG_STRING &&
					 c->name_len == 6 && memcmp(c->name, "Status", 6) == 0)
				sc->full = (c->v.str.len == 4 && memcmp(c->v.str.s, "full", 4) == 0) ||
					(c->v.str.len == 14 && memcmp(c->v.str.s, "minecraft:full", 14) == 0);
			else if (depth == 0 && c->type == SL_TAG_LONG && c->name != NULL)
			{
				int64_t		off = (const uint8_t *) c->name + c->name_len - buf;

				if ((int64_t) sl_get_u64be(buf + off) != c->v.i)
					die("islands: long payload offset mismatch");
				if (c->name_len == 10 && memcmp(c->name, "LastUpdate", 10) == 0)
					sc->lastupdate_off = off;
				else if (c->name_len == 13 && memcmp(c->name, "InhabitedTime", 13) == 0)
					sc->inhabited_off = off;
			}
			else
				collect_spans(c, buf, NULL, 0, sc, depth + 1);
		}
	}
}

static void
prepare_chunk(src_chunk *sc, const sl_region_chunk *c)
{
	sl_arena	arena = {0};
	sl_nbt	   *root;
	size_t		used;
	sl_err		err;

	memset(sc, 0, sizeof(*sc));
	sc->c = c;
	sc->lastupdate_off = sc->inhabited_off = -1;
	if (sl_nbt_parse(c->nbt, c->nbt_len, NULL, &arena, &root, &used, &err))
		die("islands: parse chunk (%d,%d): %s", c->x, c->z, err.msg);
	collect_spans(root, c->nbt, NULL, 0, sc, 0);
	sl_arena_free(&arena);
}

/*
 * Small edits of one chunk in place (buffer base holds a copy of sc's NBT):
 * 1-8 random bytes in its block-state long arrays and byte arrays, and
 * LastUpdate / InhabitedTime bumped. The NBT stays valid and the same length.
 */
static void
edit_chunk(const src_chunk *sc, uint8_t *base, long *edits)
{
	int			nb = 1 + (int) (rnd() % 8);

	for (int k = 0; k < nb && sc->nspans > 0; k++)
	{
		edit_span  *sp = &sc->spans[rnd() % sc->nspans];

		base[sp->off + rnd() % sp->len] = (uint8_t) rnd();
		(*edits)++;
	}
	if (sc->lastupdate_off >= 0)
		sl_put_u64be(base + sc->lastupdate_off,
					 sl_get_u64be(base + sc->lastupdate_off) + 1 + rnd() % 100000);
	if (sc->inhabited_off >= 0)
		sl_put_u64be(base + sc->inhabited_off,
					 sl_get_u64be(base + sc->inhabited_off) + rnd() % 100000);
}

/* Every anvil-1.18plus region, its chunks prepared, and the 5x5 source blocks. */
typedef struct sources
{
	sl_region  *regions;
	int			nregions;
	src_block  *blocks;
	int			nblocks;
	src_chunk **srcs;			/* per region: its chunks, prepared */
	int			nsrcs;
	int			nsrcfiles;		/* regions that gave at least one block */
} sources;

/* Read and prepare one region file (files[fi]) into s; returns it. */
static sl_region *
load_region(sources *s, int fi)
{
	size_t		len;
	uint8_t    *file;
	int32_t		rx,
				rz;
	sl_region  *r;
	sl_err		err;

	file = read_whole(files[fi].path, &len);
	corpus_region_coords(files[fi].path, &rx, &rz);
	s->regions = realloc(s->regions, (s->nregions + 1) * sizeof(sl_region));
	r = &s->regions[s->nregions++];
	memset(r, 0, sizeof(*r));
	if (sl_region_read(file, len, rx, rz, NULL, 0, 1, NULL, r, &err))
		die("read %s: %s", files[fi].path, err.msg);
	free(file);
	/* every chunk of the region, parsed once for its edit targets */
	s->srcs = realloc(s->srcs, (s->nsrcs + 1) * sizeof(src_chunk *));
	s->srcs[s->nsrcs] = xmalloc((r->nchunks ? r->nchunks : 1) * sizeof(src_chunk));
	for (int c = 0; c < r->nchunks; c++)
		prepare_chunk(&s->srcs[s->nsrcs][c], &r->chunks[c]);
	s->nsrcs++;
	return r;
}

static void
load_sources(sources *s)
{
	memset(s, 0, sizeof(*s));
	/* 5x5 source blocks: non-overlapping, fully populated, from every 1.18+ region */
	for (int i = 0; i < nfiles; i++)
	{
		sl_region  *r;
		src_chunk  *sc;
		int			slot[32][32];
		char		used[32][32];
		int			before = s->nblocks;

		if (strcmp(era_names[files[i].era], "anvil-1.18plus") != 0)
			continue;
		r = load_region(s, i);
		sc = s->srcs[s->nsrcs - 1];
		memset(slot, -1, sizeof(slot));
		memset(used, 0, sizeof(used));
		for (int c = 0; c < r->nchunks; c++)
			if (sc[c].full)
				slot[r->chunks[c].z & 31][r->chunks[c].x & 31] = c;
		/* greedy, non-overlapping 5x5 blocks of fully generated chunks */
		for (int bz = 0; bz + ISLAND_SIDE <= 32; bz++)
			for (int bx = 0; bx + ISLAND_SIDE <= 32; bx++)
			{
				int			ok = 1;
				src_block  *blk;

				for (int dz = 0; dz < ISLAND_SIDE && ok; dz++)
					for (int dx = 0; dx < ISLAND_SIDE && ok; dx++)
						ok = slot[bz + dz][bx + dx] >= 0 && !used[bz + dz][bx + dx];
				if (!ok)
					continue;
				s->blocks = realloc(s->blocks, (s->nblocks + 1) * sizeof(src_block));
				blk = &s->blocks[s->nblocks];
				blk->file = i;
				blk->bx = bx;
				blk->bz = bz;
				blk->raw = 0;
				for (int dz = 0; dz < ISLAND_SIDE; dz++)
					for (int dx = 0; dx < ISLAND_SIDE; dx++)
					{
						used[bz + dz][bx + dx] = 1;
						blk->ch[dz * ISLAND_SIDE + dx] = &sc[slot[bz + dz][bx + dx]];
						blk->raw += sc[slot[bz + dz][bx + dx]].c->nbt_len;
					}
				s->nblocks++;
			}
		s->nsrcfiles += s->nblocks > before;
		if (getenv("BENCH_DEBUG"))
		{
			int			na = 0;

			for (int k = before; k < s->nblocks; k++)
				for (int c = 0; c < ISLAND_CHUNKS; c++)
					na += s->blocks[k].ch[c]->nspans == 0;
			fprintf(stderr, "  %s: %d blocks, %d chunks without arrays\n", files[i].path, s->nblocks - before, na);
			for (int k = before; k < s->nblocks; k++)
				fprintf(stderr, "    block %d at (%d,%d): %.0f raw bytes\n", k,
						s->blocks[k].bx, s->blocks[k].bz, s->blocks[k].raw);
		}
	}
}

static void
free_sources(sources *s)
{
	for (int k = 0; k < s->nsrcs; k++)
	{
		for (int c = 0; c < s->regions[k].nchunks; c++)
			free(s->srcs[k][c].spans);
		free(s->srcs[k]);
	}
	free(s->srcs);
	free(s->blocks);
	for (int k = 0; k < s->nregions; k++)
		sl_region_free(&s->regions[k]);
	free(s->regions);
	memset(s, 0, sizeof(*s));
}

/* Append one length-prefixed value (u32 LE length + bytes) to f. */
static void
emit_value(FILE *f, const char *path, const sl_buf *v)
{
	uint8_t		lenb[4];

	sl_put_u32le(lenb, (uint32_t) v->len);
	if (fwrite(lenb, 1, 4, f) != 4 || fwrite(v->data, 1, v->len, f) != v->len)
		die("write %s failed", path);
}

typedef struct island_totals
{
	double		raw,
				chunk3,
				island3,
				slime,
				slime2,
				long19,
				slime_sample,
				archive_sample,
				aworst;
	long		n,
				nsample;
	double		enc_s,
				z3_s;
	long		edits;
	double		min_slime,
				max_slime;
} island_totals;

static void
islands_part(int nislands, int gsample, const char *emit_path, int emit_count)
{
	sources		s;
	island_totals t;
	FILE	   *emit = NULL;
	int			g_every;
	sl_err		err;

	memset(&t, 0, sizeof(t));
	t.min_slime = 1e30;
	load_sources(&s);
	if (s.nblocks == 0)
		die("islands: no 5x5 block of fully generated chunks in any anvil-1.18plus region");

	g_every = gsample > 0 && gsample < nislands ? nislands / gsample : 1;
	if (emit_path)
	{
		emit = fopen(emit_path, "wb");
		if (emit == NULL)
			die("cannot write %s", emit_path);
	}
	{
		int			noarr = 0,
					nolong = 0;

		for (int k = 0; k < s.nblocks; k++)
			for (int c = 0; c < ISLAND_CHUNKS; c++)
			{
				noarr += s.blocks[k].ch[c]->nspans == 0;
				nolong += s.blocks[k].ch[c]->lastupdate_off < 0 || s.blocks[k].ch[c]->inhabited_off < 0;
			}
		fprintf(stderr, "bench_size: islands: %d islands from %d source blocks in %d regions; "
				"source chunks without editable arrays: %d, without LastUpdate/InhabitedTime: %d (of %d)\n",
				nislands, s.nblocks, s.nsrcfiles, noarr, nolong, s.nblocks * ISLAND_CHUNKS);
	}

	rng_state = ISLAND_SEED;
	{
		bytes		isl = {0};
		uint32_t	offs[ISLAND_CHUNKS + 1];

		for (int i = 0; i < nislands; i++)
		{
			src_block  *blk = &s.blocks[rnd() % s.nblocks];
			int			nedit = 1 + (int) (rnd() % 5);
			sl_builder	b;
			sl_buf		out = {0};
			double		t0;
			size_t		s3;

			/* copy the 25 chunks into one buffer */
			isl.len = 0;
			for (int c = 0; c < ISLAND_CHUNKS; c++)
			{
				offs[c] = (uint32_t) isl.len;
				bytes_put(&isl, blk->ch[c]->c->nbt, blk->ch[c]->c->nbt_len);
			}
			offs[ISLAND_CHUNKS] = (uint32_t) isl.len;
			/* small edits in 1-5 distinct chunks */
			{
				int			picked[ISLAND_CHUNKS] = {0};

				for (int e = 0; e < nedit; e++)
				{
					int			c;

					do
						c = (int) (rnd() % ISLAND_CHUNKS);
					while (picked[c]);
					picked[c] = 1;
					edit_chunk(blk->ch[c], isl.p + offs[c], &t.edits);
				}
			}

			/* (h) slime value */
			memset(&b, 0, sizeof(b));
			t0 = corpus_now();
			for (int c = 0; c < ISLAND_CHUNKS; c++)
				if (sl_builder_add(&b, SL_COMP_REGION, blk->ch[c]->c->x, blk->ch[c]->c->z,
								   blk->ch[c]->c->timestamp, isl.p + offs[c],
								   offs[c + 1] - offs[c], 0, &err))
					die("island %d: %s", i, err.msg);
			if (sl_builder_encode(&b, enc_opts, NULL, &out, &err))
				die("island %d: encode: %s", i, err.msg);
			t.enc_s += corpus_now() - t0;
			{
				sl_buf		out2 = {0};
				sl_encode_opts v2opts = enc_opts ? *enc_opts : sl_default_encode_opts;

				v2opts.version = 2;
				v2opts.frame_target = 128 * 1024;	/* what 0.2.0 wrote */
				if (sl_builder_encode(&b, &v2opts, NULL, &out2, &err))
					die("island %d: encode as v2: %s", i, err.msg);
				t.slime2 += out2.len;
				sl_buf_free(&out2);
			}
			sl_builder_free(&b);
			if (emit && i < emit_count)
				emit_value(emit, emit_path, &out);
			t.slime += out.len;
			if (out.len < t.min_slime)
				t.min_slime = out.len;
			if (out.len > t.max_slime)
				t.max_slime = out.len;
			t.raw += isl.len;
			t.n++;

			/* (d) per chunk, (f) per island */
			for (int c = 0; c < ISLAND_CHUNKS; c++)
				t.chunk3 += bench_zstd_size(isl.p + offs[c], offs[c + 1] - offs[c], 3, 0);
			t0 = corpus_now();
			s3 = bench_zstd_size(isl.p, isl.len, 3, 0);
			t.z3_s += corpus_now() - t0;
			t.island3 += s3;
			/* (g) on a fixed subsample */
			if (i % g_every == 0 && (gsample <= 0 || t.nsample < gsample))
			{
				double		l19 = bench_zstd_size(isl.p, isl.len, 19, 1);

				t.long19 += l19;
				t.slime_sample += out.len;
				{
					sl_buf		out3 = {0};
					sl_encode_opts aopts = sl_default_encode_opts;

					aopts.level = SL_ARCHIVE_LEVEL;
					memset(&b, 0, sizeof(b));
					for (int c = 0; c < ISLAND_CHUNKS; c++)
						if (sl_builder_add(&b, SL_COMP_REGION, blk->ch[c]->c->x, blk->ch[c]->c->z,
										   blk->ch[c]->c->timestamp, isl.p + offs[c],
										   offs[c + 1] - offs[c], 0, &err))
							die("island %d: %s", i, err.msg);
					if (sl_builder_encode(&b, &aopts, NULL, &out3, &err))
						die("island %d: archive: %s", i, err.msg);
					sl_builder_free(&b);
					t.archive_sample += out3.len;
					if (out3.len / l19 > t.aworst)
						t.aworst = out3.len / l19;
					sl_buf_free(&out3);
				}
				t.nsample++;
			}
			sl_buf_free(&out);
			if ((i + 1) % 1000 == 0)
				fprintf(stderr, "  islands: %d/%d\n", i + 1, nislands);
		}
		free(isl.p);
	}
	if (emit)
		fclose(emit);

	printf("\n== 2. Synthetic islands: %ld islands of %dx%d chunks ==\n", t.n, ISLAND_SIDE, ISLAND_SIDE);
	printf("   cut from %d 5x5 blocks of fully generated chunks (Status full) in %d\n"
		   "   anvil-1.18plus regions; per island 1-5 chunks edited: %.1f random bytes\n"
		   "   per island on average in block-state long arrays and byte arrays, plus\n"
		   "   LastUpdate and InhabitedTime; PRNG seed %#llx\n\n",
		   s.nblocks, s.nsrcfiles, (double) t.edits / t.n, (unsigned long long) ISLAND_SEED);
	printf("%-44s %15s %15s\n", "", "avg bytes", "slime/baseline");
	printf("%-44s %15.0f %15.3f\n", "raw chunk NBT", t.raw / t.n, t.slime / t.raw);
	printf("%-44s %15.0f %15.3f\n", "(d) zstd-3 per chunk", t.chunk3 / t.n, t.slime / t.chunk3);
	printf("%-44s %15.0f %15.3f\n", "(f) zstd-3, one stream per island", t.island3 / t.n, t.slime / t.island3);
	{
		char		label[64];

		if (t.nsample < t.n)
			snprintf(label, sizeof(label), "(g) zstd-19 long per island [%ld sampled]", t.nsample);
		else
			snprintf(label, sizeof(label), "(g) zstd-19 long per island");
		printf("%-44s %15.0f %15.3f\n", label, t.long19 / t.nsample, t.slime_sample / t.long19);
	}
	printf("%-44s %15.0f %15.3f\n", "(j) slime format v2 value", t.slime2 / t.n, t.slime / t.slime2);
	printf("%-44s %15.0f %15s\n", "(h) slime value", t.slime / t.n, "");
	if (t.nsample < t.n)
		printf("%-44s %15.0f %15s\n", "    slime value, the (g) sample only", t.slime_sample / t.nsample, "");
	printf("%-44s %7.0f-%-7.0f\n", "    slime value, smallest-largest", t.min_slime, t.max_slime);
	printf("%-44s %15.0f %15.3f\n", "(k) archive level (20), the (g) sample", t.archive_sample / t.nsample,
		   t.archive_sample / t.long19);
	printf("%-44s %15s %15.3f\n", "    archive / (g), worst island", "", t.aworst);
	printf("\n%-44s %15.1f\n", "slime encode, MB/s raw NBT", t.raw / 1e6 / t.enc_s);
	printf("%-44s %15.1f\n", "zstd-3 one stream per island, MB/s raw NBT", t.raw / 1e6 / t.z3_s);
	printf("%-44s %15.3f\n", "encode time / zstd-3 time", t.enc_s / t.z3_s);
	if (t.nsample < t.n)
		printf("\n(g) is measured on a fixed subsample (every %d-th island, %ld in all) to keep\n"
			   "the run short; its ratio compares slime on the same islands.\n", g_every, t.nsample);
	if (emit_path)
		fprintf(stderr, "bench_size: wrote %d island values to %s\n",
				emit_count < nislands ? emit_count : nislands, emit_path);
	free_sources(&s);
}

/* ------------------------------------------------- chunk-store inputs */

/*
 * --emit-clones FILE --clones N: ONE template island (a 5x5 block of fully
 * generated 1.18+ chunks) and N clones of it, each with 1-5 of its chunks
 * edited as in part 2, written as length-prefixed values: the template
 * first, then clone 1..N. The template is block --clone-block K of the list
 * part 2 cuts its islands from (BENCH_DEBUG=1 lists them), by default the
 * block whose raw size is the median of the blocks whose 25 chunks all have
 * editable arrays and LastUpdate. Prints one "clones:" line to stdout.
 */
#define CLONE_SEED 0xC10E5EED0001ULL

static void
clones_part(const char *path, int nclones, int block_idx)
{
	sources		s;
	src_block  *blk;
	FILE	   *f;
	bytes		isl = {0};
	uint32_t	offs[ISLAND_CHUNKS + 1];
	double		sum = 0,
				tmpl_len = 0;
	long		edits = 0,
				edited_chunks = 0;
	sl_err		err;

	load_sources(&s);
	if (s.nblocks == 0)
		die("clones: no 5x5 block of fully generated chunks in any anvil-1.18plus region");
	if (block_idx < 0)
	{
		int		   *ok = xmalloc(s.nblocks * sizeof(int));
		int			nok = 0;

		for (int k = 0; k < s.nblocks; k++)
		{
			int			good = 1;

			for (int c = 0; c < ISLAND_CHUNKS; c++)
				good &= s.blocks[k].ch[c]->nspans > 0 && s.blocks[k].ch[c]->lastupdate_off >= 0;
			if (good)
				ok[nok++] = k;
		}
		if (nok == 0)
			die("clones: no source block whose chunks all have editable arrays and LastUpdate");
		/* sort the candidates by raw size (ties: list order), take the median */
		for (int a = 1; a < nok; a++)
			for (int b = a; b > 0 && (s.blocks[ok[b - 1]].raw > s.blocks[ok[b]].raw ||
									  (s.blocks[ok[b - 1]].raw == s.blocks[ok[b]].raw &&
									   ok[b - 1] > ok[b])); b--)
			{
				int			x = ok[b];

				ok[b] = ok[b - 1];
				ok[b - 1] = x;
			}
		block_idx = ok[nok / 2];
		free(ok);
	}
	if (block_idx >= s.nblocks)
		die("clones: --clone-block %d: there are %d blocks", block_idx, s.nblocks);
	blk = &s.blocks[block_idx];

	f = fopen(path, "wb");
	if (f == NULL)
		die("cannot write %s", path);
	rng_state = CLONE_SEED;
	for (int i = 0; i <= nclones; i++)
	{
		sl_builder	b;
		sl_buf		out = {0};

		isl.len = 0;
		for (int c = 0; c < ISLAND_CHUNKS; c++)
		{
			offs[c] = (uint32_t) isl.len;
			bytes_put(&isl, blk->ch[c]->c->nbt, blk->ch[c]->c->nbt_len);
		}
		offs[ISLAND_CHUNKS] = (uint32_t) isl.len;
		if (i > 0)				/* clone i: 1-5 distinct chunks edited */
		{
			int			picked[ISLAND_CHUNKS] = {0};
			int			nedit = 1 + (int) (rnd() % 5);

			for (int e = 0; e < nedit; e++)
			{
				int			c;

				do
					c = (int) (rnd() % ISLAND_CHUNKS);
				while (picked[c]);
				picked[c] = 1;
				edit_chunk(blk->ch[c], isl.p + offs[c], &edits);
				edited_chunks++;
			}
		}
		memset(&b, 0, sizeof(b));
		for (int c = 0; c < ISLAND_CHUNKS; c++)
			if (sl_builder_add(&b, SL_COMP_REGION, blk->ch[c]->c->x, blk->ch[c]->c->z,
							   blk->ch[c]->c->timestamp, isl.p + offs[c],
							   offs[c + 1] - offs[c], 0, &err))
				die("clone %d: %s", i, err.msg);
		if (sl_builder_encode(&b, enc_opts, NULL, &out, &err))
			die("clone %d: encode: %s", i, err.msg);
		sl_builder_free(&b);
		emit_value(f, path, &out);
		if (i == 0)
			tmpl_len = out.len;
		else
			sum += out.len;
		sl_buf_free(&out);
	}
	if (fclose(f) != 0)
		die("write %s failed", path);
	printf("template: %s, chunks (%d,%d)-(%d,%d) (block %d of %d)\n",
		   files[blk->file].path + strlen(corpus_root) + 1,
		   blk->ch[0]->c->x, blk->ch[0]->c->z,
		   blk->ch[ISLAND_CHUNKS - 1]->c->x, blk->ch[ISLAND_CHUNKS - 1]->c->z,
		   block_idx, s.nblocks);
	printf("template: %.0f bytes raw NBT, value %.0f bytes\n", blk->raw, tmpl_len);
	printf("clones: %d, avg value %.0f bytes; %.2f chunks and %.1f array bytes edited "
		   "on average; PRNG seed %#llx\n",
		   nclones, nclones > 0 ? sum / nclones : 0,
		   nclones > 0 ? (double) edited_chunks / nclones : 0,
		   nclones > 0 ? (double) edits / nclones : 0, (unsigned long long) CLONE_SEED);
	free(isl.p);
	free_sources(&s);
}

/*
 * --emit-saves FILE --saves N [--saves-region PATH]: N successive saves of
 * one region (by default the largest anvil-1.18plus file): the whole region
 * as one value (save 1), then for each of saves 2..N three distinct fully
 * generated chunks edited as in part 2 (edits accumulate: a chunk edited
 * again starts from its last version), each written as a one-chunk value at
 * its position. File: length-prefixed values, the region value first, then
 * 3 per save. Prints one "saves:" line to stdout.
 */
#define SAVES_SEED 0x5A7E5EED0002ULL
#define SAVE_EDITS 3

static void
saves_part(const char *path, int nsaves, const char *region_path)
{
	sources		s;
	sl_region  *r;
	src_chunk  *sc;
	int			fi = -1,
				nfull = 0;
	int		   *full;
	uint8_t   **cur;			/* each chunk's current NBT */
	FILE	   *f;
	sl_builder	b;
	sl_buf		out = {0};
	double		base_len,
				edit_len = 0;
	long		edits = 0;
	sl_err		err;

	if (region_path)
	{
		char		want[4096];

		if (realpath(region_path, want) == NULL)
			die("saves: %s: %s", region_path, strerror(errno));
		for (int i = 0; i < nfiles && fi < 0; i++)
		{
			char		have[4096];

			if (realpath(files[i].path, have) != NULL && strcmp(have, want) == 0)
				fi = i;
		}
		if (fi < 0)
			die("saves: %s is not a region file of the corpus eras", region_path);
	}
	else
	{
		off_t		best = -1;

		for (int i = 0; i < nfiles; i++)
		{
			struct stat st;

			if (strcmp(era_names[files[i].era], "anvil-1.18plus") != 0 ||
				strcmp(files[i].path + strlen(files[i].path) - 4, ".mca") != 0 ||
				stat(files[i].path, &st) != 0)
				continue;
			if (st.st_size > best)
			{
				best = st.st_size;
				fi = i;
			}
		}
		if (fi < 0)
			die("saves: no anvil-1.18plus region file");
	}
	memset(&s, 0, sizeof(s));
	r = load_region(&s, fi);
	sc = s.srcs[0];
	full = xmalloc((r->nchunks ? r->nchunks : 1) * sizeof(int));
	cur = xmalloc((r->nchunks ? r->nchunks : 1) * sizeof(uint8_t *));
	for (int c = 0; c < r->nchunks; c++)
	{
		cur[c] = xmalloc(r->chunks[c].nbt_len);
		memcpy(cur[c], r->chunks[c].nbt, r->chunks[c].nbt_len);
		if (sc[c].full && (sc[c].nspans > 0 || sc[c].lastupdate_off >= 0))
			full[nfull++] = c;
	}
	if (nfull < SAVE_EDITS)
		die("saves: %s has fewer than %d fully generated chunks", files[fi].path, SAVE_EDITS);

	f = fopen(path, "wb");
	if (f == NULL)
		die("cannot write %s", path);
	memset(&b, 0, sizeof(b));
	for (int c = 0; c < r->nchunks; c++)
		if (sl_builder_add(&b, SL_COMP_REGION, r->chunks[c].x, r->chunks[c].z,
						   r->chunks[c].timestamp, cur[c], r->chunks[c].nbt_len, 0, &err))
			die("saves: %s", err.msg);
	if (sl_builder_encode(&b, enc_opts, NULL, &out, &err))
		die("saves: encode: %s", err.msg);
	sl_builder_free(&b);
	emit_value(f, path, &out);
	base_len = out.len;
	sl_buf_free(&out);

	rng_state = SAVES_SEED;
	for (int sv = 2; sv <= nsaves; sv++)
	{
		int			picked[SAVE_EDITS];

		for (int e = 0; e < SAVE_EDITS; e++)
		{
			int			c,
						again;

			do
			{
				c = full[rnd() % nfull];
				again = 0;
				for (int k = 0; k < e; k++)
					again |= picked[k] == c;
			} while (again);
			picked[e] = c;
			edit_chunk(&sc[c], cur[c], &edits);
			memset(&b, 0, sizeof(b));
			if (sl_builder_add(&b, SL_COMP_REGION, r->chunks[c].x, r->chunks[c].z,
							   r->chunks[c].timestamp, cur[c], r->chunks[c].nbt_len, 0, &err) ||
				sl_builder_encode(&b, enc_opts, NULL, &out, &err))
				die("saves: chunk (%d,%d): %s", r->chunks[c].x, r->chunks[c].z, err.msg);
			sl_builder_free(&b);
			emit_value(f, path, &out);
			edit_len += out.len;
			sl_buf_free(&out);
		}
	}
	if (fclose(f) != 0)
		die("write %s failed", path);
	{
		double		raw = 0;

		for (int c = 0; c < r->nchunks; c++)
			raw += r->chunks[c].nbt_len;
		printf("saves: world %s\n", files[fi].path + strlen(corpus_root) + 1);
		printf("saves: %d chunks (%d fully generated), %.0f bytes raw NBT, value %.0f bytes\n",
			   r->nchunks, nfull, raw, base_len);
		printf("saves: %d; saves 2..%d each edit %d fully generated chunks, %.1f array "
			   "bytes on average; PRNG seed %#llx\n",
			   nsaves, nsaves, SAVE_EDITS,
			   nsaves > 1 ? (double) edits / (nsaves - 1) : 0, (unsigned long long) SAVES_SEED);
	}
	for (int c = 0; c < r->nchunks; c++)
		free(cur[c]);
	free(cur);
	free(full);
	free_sources(&s);
}

/* --------------------------------------------------------------- main */

int
main(int argc, char **argv)
{
	const char *env = getenv("SLIME_CORPUS");
	const char *lvl = getenv("SLIME_BENCH_LEVEL");
	const char *emit_path = NULL,
			   *clones_path = NULL,
			   *saves_path = NULL,
			   *saves_region = NULL;
	int			nclones = 10000,
				clone_block = -1,
				nsaves = 100;
	int			nislands = 10000,
				gsample = 500,
				emit_count = 200,
				skip_corpus = 0;
	char		tmpdir[] = "/tmp/slime-bench.XXXXXX";
	char		rootbuf[4096];

	corpus_root = env && *env ? env : "../shared/corpus";
	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "--islands") == 0 && i + 1 < argc)
			nislands = atoi(argv[++i]);
		else if (strcmp(argv[i], "--g-sample") == 0 && i + 1 < argc)
			gsample = atoi(argv[++i]);
		else if (strcmp(argv[i], "--emit-islands") == 0 && i + 1 < argc)
			emit_path = argv[++i];
		else if (strcmp(argv[i], "--emit-count") == 0 && i + 1 < argc)
			emit_count = atoi(argv[++i]);
		else if (strcmp(argv[i], "--no-corpus") == 0)
			skip_corpus = 1;
		else if (strcmp(argv[i], "--emit-clones") == 0 && i + 1 < argc)
			clones_path = argv[++i];
		else if (strcmp(argv[i], "--clones") == 0 && i + 1 < argc)
			nclones = atoi(argv[++i]);
		else if (strcmp(argv[i], "--clone-block") == 0 && i + 1 < argc)
			clone_block = atoi(argv[++i]);
		else if (strcmp(argv[i], "--emit-saves") == 0 && i + 1 < argc)
			saves_path = argv[++i];
		else if (strcmp(argv[i], "--saves") == 0 && i + 1 < argc)
			nsaves = atoi(argv[++i]);
		else if (strcmp(argv[i], "--saves-region") == 0 && i + 1 < argc)
			saves_region = argv[++i];
		else if (argv[i][0] != '-')
			corpus_root = argv[i];
		else
		{
			fprintf(stderr, "usage: bench_size [--islands N] [--g-sample N] [--emit-islands FILE]"
					" [--emit-count N] [--no-corpus]\n"
					"                  [--emit-clones FILE [--clones N] [--clone-block K]]\n"
					"                  [--emit-saves FILE [--saves N] [--saves-region PATH]]"
					" [CORPUS_DIR]\n");
			return 2;
		}
	}
	if (realpath(corpus_root, rootbuf) == NULL)
	{
		fprintf(stderr, "\n*** CORPUS MISSING: %s does not exist ***\n"
				"*** set SLIME_CORPUS to the shared corpus directory ***\n\n", corpus_root);
		return 2;
	}
	corpus_root = rootbuf;

	if (lvl && *lvl)
	{
		env_opts = sl_default_encode_opts;
		env_opts.level = atoi(lvl);
		enc_opts = &env_opts;
	}
	corpus_list_regions(corpus_root, era_names, NERAS, CORPUS_BY_WORLD, &files, &nfiles);
	if (nfiles == 0)
	{
		fprintf(stderr, "\n*** CORPUS MISSING: no region files under %s ***\n", corpus_root);
		return 2;
	}
	if (mkdtemp(tmpdir) == NULL)
		die("mkdtemp: %s", strerror(errno));

	printf("slime bench_size: zstd %s, encoder options: %s",
		   ZSTD_versionString(), enc_opts ? "SLIME_BENCH_LEVEL=" : "defaults (NULL opts)");
	if (enc_opts)
		printf("%d", enc_opts->level);
	printf("; corpus %s\n", corpus_root);

	if (clones_path || saves_path)
	{
		if (clones_path)
			clones_part(clones_path, nclones, clone_block);
		if (saves_path)
			saves_part(saves_path, nsaves, saves_region);
	}
	else
	{
		if (!skip_corpus)
			corpus_part(tmpdir);
		if (nislands > 0)
			islands_part(nislands, gsample, emit_path, emit_count);
	}

	rmdir(tmpdir);
	bench_zstd_free();
	for (int i = 0; i < nfiles; i++)
		free(files[i].path);
	free(files);
	sl_release_caches();
	return 0;
}
