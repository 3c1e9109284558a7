/*
 * bench_bcodec.c - the block codec (sl_bcodec) against zstd on the corpus,
 * and its corpus round-trip check.
 *
 * For every region file of the eras anvil-1.2-1.12, anvil-1.13-1.17,
 * anvil-1.18plus and mcregion, the chunks (sl_region_read, lenient) are
 * concatenated as ONE input and compressed with zstd-3, zstd-19 + long
 * matching (windowLog 27) and sl_bcodec_encode; the bcodec output is decoded
 * and compared byte for byte. Prints per era: raw NBT, the three sizes,
 * bcodec / zstd-19-long, encode and decode MB/s of raw NBT (one run each),
 * and the worst file's ratio.
 *
 * --check: no zstd baselines and no table; round-trip every region input
 * and every chunk on its own; exit 1 on the first difference (test/corpus.sh).
 *
 * Usage: bench_bcodec [--check] [CORPUS_DIR]   (default $SLIME_CORPUS or ../shared/corpus)
 */
#define _XOPEN_SOURCE 700
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "sl_bcodec.h"
#include "sl_region.h"

#define CORPUS_PROG "bench_bcodec"
#include "corpus_util.h"
#include "bench_zstd.h"

#define NERAS 4
static const char *const era_names[NERAS] = {
	"anvil-1.2-1.12", "anvil-1.13-1.17", "anvil-1.18plus", "mcregion"
};

typedef struct era_stats
{
	int			files,
				chunks;
	double		raw,
				z3,
				z19l,
				bc,
				enc_s,
				dec_s,
				worst;
	const char *worst_path;
} era_stats;

static int	check_only;


/* Encode and decode one input, die on any difference; returns the encoded size. */
static size_t
round_trip(const uint8_t *raw, size_t len, const char *what, double *enc_s, double *dec_s)
{
	sl_buf		out = {0};
	sl_err		err;
	uint8_t    *back = xmalloc(len);
	double		t0 = corpus_now(),
				t1;
	size_t		n;

	if (sl_bcodec_encode(raw, len, &out, &err))
		die("%s: encode: %s", what, err.msg);
	t1 = corpus_now();
	if (sl_bcodec_decode(out.data, out.len, back, len, &err))
		die("%s: decode: %s", what, err.msg);
	if (enc_s)
		*enc_s += t1 - t0;
	if (dec_s)
		*dec_s += corpus_now() - t1;
	if (len && memcmp(raw, back, len) != 0)
		die("%s: decoded bytes differ", what);
	n = out.len;
	sl_buf_free(&out);
	free(back);
	return n;
}

/* One region file: its chunks as one input (and each chunk alone with --check). */
static void
region_file(era_stats *e, const char *path)
{
	sl_region	r;
	sl_err		err;
	sl_buf		cat = {0};
	size_t		bc;

	corpus_read_region(path, &r);
	for (int c = 0; c < r.nchunks; c++)
	{
		if (sl_buf_put(&cat, r.chunks[c].nbt, r.chunks[c].nbt_len, &err))
			die("%s", err.msg);
		if (check_only)
		{
			char		what[4200];

			snprintf(what, sizeof(what), "%s chunk (%d,%d)", path, r.chunks[c].x, r.chunks[c].z);
			round_trip(r.chunks[c].nbt, r.chunks[c].nbt_len, what, NULL, NULL);
		}
	}
	bc = round_trip(cat.data, cat.len, path, &e->enc_s, &e->dec_s);
	e->files++;
	e->chunks += r.nchunks;
	e->raw += cat.len;
	e->bc += bc;
	if (!check_only && cat.len > 0)
	{
		double		z19 = bench_zstd_size(cat.data, cat.len, 19, 1);

		e->z3 += bench_zstd_size(cat.data, cat.len, 3, 0);
		e->z19l += z19;
		if (bc / z19 > e->worst)
		{
			e->worst = bc / z19;
			e->worst_path = path;
		}
	}
	fprintf(stderr, "  %s %zu -> %zu\n", path, cat.len, bc);
	sl_buf_free(&cat);
	sl_region_free(&r);
}

static corpus_file *files;
static int	nfiles;

/* Print one row of the table. */
static void
print_row(const char *name, const era_stats *e, const char *root)
{
	printf("%-16s %5d %6d %12.0f %10.0f %10.0f %10.0f %7.3f %8.1f %8.1f  %.3f %s\n",
		   name, e->files, e->chunks, e->raw, e->z3, e->z19l, e->bc,
		   e->z19l ? e->bc / e->z19l : 0, e->enc_s ? e->raw / 1e6 / e->enc_s : 0,
		   e->dec_s ? e->raw / 1e6 / e->dec_s : 0, e->worst,
		   e->worst_path ? e->worst_path + strlen(root) + 1 : "-");
}

int
main(int argc, char **argv)
{
	const char *root = getenv("SLIME_CORPUS");
	era_stats	es[NERAS],
				all;
	double		t0 = corpus_now();

	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--check") == 0)
			check_only = 1;
		else
			root = argv[i];
	if (root == NULL)
		root = "../shared/corpus";
	corpus_list_regions(root, era_names, NERAS, CORPUS_BY_PATH, &files, &nfiles);
	if (nfiles == 0)
		die("no region files under %s", root);
	memset(es, 0, sizeof(es));
	memset(&all, 0, sizeof(all));
	for (int i = 0; i < nfiles; i++)
		region_file(&es[files[i].era], files[i].path);
	if (check_only)
	{
		for (int k = 0; k < NERAS; k++)
		{
			all.files += es[k].files;
			all.chunks += es[k].chunks;
		}
		printf("bench_bcodec --check: %d region inputs and %d chunks round-trip (%.1f s)\n",
			   all.files, all.chunks, corpus_now() - t0);
		return 0;
	}
	printf("slime bench_bcodec: zstd %s; corpus %s; one input per region file\n",
		   ZSTD_versionString(), root);
	printf("%-16s %5s %6s %12s %10s %10s %10s %7s %8s %8s  %s\n", "era", "files", "chunks",
		   "raw NBT", "zstd-3", "zstd19L", "bcodec", "bc/19L", "enc MB/s", "dec MB/s",
		   "worst bc/19L file");
	for (int k = 0; k < NERAS; k++)
	{
		print_row(era_names[k], &es[k], root);
		all.files += es[k].files;
		all.chunks += es[k].chunks;
		all.raw += es[k].raw;
		all.z3 += es[k].z3;
		all.z19l += es[k].z19l;
		all.bc += es[k].bc;
		all.enc_s += es[k].enc_s;
		all.dec_s += es[k].dec_s;
		if (es[k].worst > all.worst)
		{
			all.worst = es[k].worst;
			all.worst_path = es[k].worst_path;
		}
	}
	print_row("all", &all, root);
	printf("(%.1f s)\n", corpus_now() - t0);
	return 0;
}
