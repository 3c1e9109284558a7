/*
 * bench_bcodec.c - the block codec (sl_bcodec) against zstd on the corpus,
 * and its corpus round-trip check.
 *
 * For every region file of the eras anvil-1.2-1.12, anvil-1.13-1.17,
 * anvil-1.18plus and mcregion, the chunks (sl_region_read, lenient) are
 * concatenated as ONE input and compressed with zstd-3, zstd-19 + long
 * matching (windowLog 27) and sl_bcodec_encode as streams of versions 1 to
 * 4; each output is decoded and compared byte for byte. Prints a
 * table per version, a row per era: raw NBT, the sizes, bcodec /
 * zstd-19-long, encode and decode MB/s of raw NBT (CPU time of this
 * process, one run each, so other work on the machine moves them less),
 * and the worst file's ratio.
 *
 * --check: no zstd baselines and no table; round-trip every region input
 * in every version, and every chunk on its own in version 5, the one
 * store entries and packs code chunk by chunk (versions 1 to 4 code only
 * a value's frames, many chunks at a time: the region inputs; small and
 * odd inputs of every version are the bcodec fuzz targets'); exit 1 on
 * the first difference (test/run-all.sh's suite bcodec).
 * SLIME_BCODEC_CHUNKS=12345 round-trips the chunks alone in the versions
 * it names.
 *
 * Usage: bench_bcodec [--check] [CORPUS_DIR]   (default $SLIME_CORPUS or ../shared/corpus)
 *
 * SLIME_BCODEC_VERSIONS=34 (any of the digits 1-5) codes only those versions;
 * SLIME_BCODEC_ZSTD=0 skips the zstd baselines (bc/19L and worst print 0):
 * a quick A/B of one version's speed.
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

#define NVERS 5					/* stream versions 1 to 5 */

typedef struct era_stats
{
	int			files,
				chunks;
	double		raw,
				z3,
				z19l,
				bc[NVERS],
				enc_s[NVERS],
				dec_s[NVERS],
				worst[NVERS];
	const char *worst_path[NVERS];
} era_stats;

static int	check_only;
static int	version_on[NVERS] = {1, 1, 1, 1, 1};	/* SLIME_BCODEC_VERSIONS */
static int	zstd_on = 1;		/* SLIME_BCODEC_ZSTD */
static int	chunk_on[NVERS] = {0, 0, 0, 0, 1};	/* --check: SLIME_BCODEC_CHUNKS */


/* The versions (digits 1-5) environment variable name gives, into on; on stays when it is unset. */
static void
versions_from_env(const char *name, int on[NVERS])
{
	const char *v = getenv(name);

	if (v)
		for (int i = 0; i < NVERS; i++)
			on[i] = strchr(v, '1' + i) != NULL;
}

/* The digits of the versions on (and also on in also, when given) into buf, or "none". */
static const char *
versions_str(const int on[NVERS], const int *also, char buf[NVERS + 1])
{
	int			n = 0;

	for (int i = 0; i < NVERS; i++)
		if (on[i] && (also == NULL || also[i]))
			buf[n++] = '1' + i;
	buf[n] = 0;
	return n ? buf : "none";
}

/* CPU seconds of this process. */
static double
cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Encode (stream version) and decode one input, die on any difference; returns the encoded size. */
static size_t
round_trip(const uint8_t *raw, size_t len, int version, const char *what, double *enc_s,
		   double *dec_s)
{
	sl_buf		out = {0};
	sl_err		err;
	uint8_t    *back = xmalloc(len);
	double		t0 = cpu_now(),
				t1;
	size_t		n;

	if (sl_bcodec_encode(raw, len, version, &out, &err))
		die("%s: encode (version %d): %s", what, version, err.msg);
	t1 = cpu_now();
	if (sl_bcodec_decode(out.data, out.len, back, len, &err))
		die("%s: decode (version %d): %s", what, version, err.msg);
	if (enc_s)
		*enc_s += t1 - t0;
	if (dec_s)
		*dec_s += cpu_now() - t1;
	if (len && memcmp(raw, back, len) != 0)
		die("%s: decoded bytes differ (version %d)", what, version);
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
	size_t		bc[NVERS] = {0};

	corpus_read_region(path, &r);
	for (int c = 0; c < r.nchunks; c++)
	{
		if (sl_buf_put(&cat, r.chunks[c].nbt, r.chunks[c].nbt_len, &err))
			die("%s", err.msg);
		if (check_only)
		{
			char		what[4200];

			snprintf(what, sizeof(what), "%s chunk (%d,%d)", path, r.chunks[c].x, r.chunks[c].z);
			for (int v = 0; v < NVERS; v++)
				if (version_on[v] && chunk_on[v])
					round_trip(r.chunks[c].nbt, r.chunks[c].nbt_len, v + 1, what, NULL, NULL);
		}
	}
	for (int v = 0; v < NVERS; v++)
		if (version_on[v])
		{
			bc[v] = round_trip(cat.data, cat.len, v + 1, path, &e->enc_s[v], &e->dec_s[v]);
			e->bc[v] += bc[v];
		}
	e->files++;
	e->chunks += r.nchunks;
	e->raw += cat.len;
	if (!check_only && zstd_on && cat.len > 0)
	{
		double		z19 = bench_zstd_size(cat.data, cat.len, 19, 1);

		e->z3 += bench_zstd_size(cat.data, cat.len, 3, 0);
		e->z19l += z19;
		for (int v = 0; v < NVERS; v++)
			if (bc[v] / z19 > e->worst[v])
			{
				e->worst[v] = bc[v] / z19;
				e->worst_path[v] = path;
			}
	}
	fprintf(stderr, "  %s %zu -> %zu (v1), %zu (v2), %zu (v3), %zu (v4), %zu (v5)\n", path, cat.len, bc[0], bc[1], bc[2],
			bc[3], bc[4]);
	sl_buf_free(&cat);
	sl_region_free(&r);
}

static corpus_file *files;
static int	nfiles;

/* Print one row of the table of stream version v + 1. */
static void
print_row(const char *name, const era_stats *e, int v, const char *root)
{
	printf("%-16s %5d %6d %12.0f %10.0f %10.0f %10.0f %7.3f %8.1f %8.1f  %.3f %s\n",
		   name, e->files, e->chunks, e->raw, e->z3, e->z19l, e->bc[v],
		   e->z19l ? e->bc[v] / e->z19l : 0, e->enc_s[v] ? e->raw / 1e6 / e->enc_s[v] : 0,
		   e->dec_s[v] ? e->raw / 1e6 / e->dec_s[v] : 0, e->worst[v],
		   e->worst_path[v] ? e->worst_path[v] + strlen(root) + 1 : "-");
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
	versions_from_env("SLIME_BCODEC_VERSIONS", version_on);
	versions_from_env("SLIME_BCODEC_CHUNKS", chunk_on);
	zstd_on = getenv("SLIME_BCODEC_ZSTD") == NULL || strcmp(getenv("SLIME_BCODEC_ZSTD"), "0") != 0;
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
		char		rvers[NVERS + 1],
					cvers[NVERS + 1];

		printf("bench_bcodec --check: %d region inputs (versions %s) and %d chunks alone (versions %s) round-trip (%.1f s)\n",
			   all.files, versions_str(version_on, NULL, rvers), all.chunks,
			   versions_str(version_on, chunk_on, cvers), corpus_now() - t0);
		return 0;
	}
	printf("slime bench_bcodec: zstd %s; corpus %s; one input per region file\n",
		   ZSTD_versionString(), root);
	for (int k = 0; k < NERAS; k++)
	{
		all.files += es[k].files;
		all.chunks += es[k].chunks;
		all.raw += es[k].raw;
		all.z3 += es[k].z3;
		all.z19l += es[k].z19l;
		for (int v = 0; v < NVERS; v++)
		{
			all.bc[v] += es[k].bc[v];
			all.enc_s[v] += es[k].enc_s[v];
			all.dec_s[v] += es[k].dec_s[v];
			if (es[k].worst[v] > all.worst[v])
			{
				all.worst[v] = es[k].worst[v];
				all.worst_path[v] = es[k].worst_path[v];
			}
		}
	}
	for (int v = 0; v < NVERS; v++)
	{
		if (!version_on[v])
			continue;
		printf("\nblock codec version %d (%s)\n", v + 1,
			   v == 4 ? "0xB5, value codec 5, settled store entries" :
			   v == 3 ? "0xB4, value codec 4, settled store entries of 0.8.0" :
			   v == 2 ? "0xB3, value codec 3, settled store entries of 0.7.0" :
			   v == 1 ? "0xB2, value codec 2" : "0xB1, value codec 1, the archive level");
		printf("%-16s %5s %6s %12s %10s %10s %10s %7s %8s %8s  %s\n", "era", "files", "chunks",
			   "raw NBT", "zstd-3", "zstd19L", "bcodec", "bc/19L", "enc MB/s", "dec MB/s",
			   "worst bc/19L file");
		for (int k = 0; k < NERAS; k++)
			print_row(era_names[k], &es[k], v, root);
		print_row("all", &all, v, root);
	}
	printf("(%.1f s)\n", corpus_now() - t0);
	return 0;
}
