/*
 * bench_frame_levels.c - what the bytes of a load and their checks cost
 * (issue #34, test/bench/bench_frame_levels.sh). Reads a loader world's
 * frames (the zstd frames a load concatenates, one a line in bytea's text
 * form, \x and hex digits) on stdin and prints, as markdown rows:
 *   - the frames' bytes compressed again frame by frame at zstd levels 3
 *     to 19 beside the bytea row's file (argv[2] bytes), with zstd's speed
 *     at each level (what a save, or a catch-up in the background, would
 *     spend on the chunks it writes), and the raw bytes as one frame;
 *   - the XXH64 a load checks every frame with (and XXH3-64 for
 *     comparison), timed over all the frames' bytes.
 * Usage: bench_frame_levels LABEL BYTEA_FILE_BYTES < frames.txt
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#include <zstd.h>

#include "corpus_util.h"
#include "sl_text.h"

typedef struct frame
{
	uint8_t    *z;				/* the frame as stored */
	size_t		zlen;
	uint8_t    *raw;			/* its bytes decompressed */
	size_t		rlen;
} frame;

/*
 * Read one line of stdin, a frame in bytea's text form (\x and hex digits,
 * sl_text_decode), into f; 0 at the end of input.
 */
static int
read_frame(frame *f)
{
	static char *line;
	static size_t cap;
	ssize_t		n = getline(&line, &cap, stdin);
	sl_err		err;

	if (n < 0)
	{
		free(line);
		line = NULL;
		return 0;
	}
	while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		n--;
	if (sl_text_decode(line, (size_t) n, &f->z, &f->zlen, &err))
		die("a frame line: %s", err.msg);
	return 1;
}

/* Decompress f's frame into f->raw (one frame, its content size in its header). */
static void
decompress(frame *f)
{
	unsigned long long len = ZSTD_getFrameContentSize(f->z, f->zlen);
	size_t		got;

	if (len == ZSTD_CONTENTSIZE_ERROR || len == ZSTD_CONTENTSIZE_UNKNOWN || len > ((size_t) 1 << 30))
		die("a frame without a content size");
	f->raw = xmalloc(len ? len : 1);
	got = ZSTD_decompress(f->raw, len, f->z, f->zlen);
	if (ZSTD_isError(got) || got != len)
		die("a frame does not decompress: %s", ZSTD_isError(got) ? ZSTD_getErrorName(got) : "short");
	f->rlen = len;
}

/* Compressed bytes of every frame at level, and the seconds one pass took (best of passes). */
static size_t
compress_all(ZSTD_CCtx *cc, const frame *fs, int n, int level, double *secs)
{
	size_t		total = 0;
	size_t		cap = 0;
	uint8_t    *out = NULL;
	double		best = -1;
	int			passes = level >= 15 ? 1 : 5;

	for (int i = 0; i < n; i++)
		if (ZSTD_compressBound(fs[i].rlen) > cap)
			cap = ZSTD_compressBound(fs[i].rlen);
	out = xmalloc(cap);
	for (int p = 0; p < passes; p++)
	{
		double		t0 = corpus_now();

		total = 0;
		for (int i = 0; i < n; i++)
		{
			size_t		r = ZSTD_compressCCtx(cc, out, cap, fs[i].raw, fs[i].rlen, level);

			if (ZSTD_isError(r))
				die("zstd: %s", ZSTD_getErrorName(r));
			total += r;
		}
		t0 = corpus_now() - t0;
		if (best < 0 || t0 < best)
			best = t0;
	}
	free(out);
	*secs = best;
	return total;
}

/* Microseconds one pass of hash over every frame's stored bytes takes (best of 7 runs of many passes). */
static double
hash_us(const frame *fs, int n, int xxh3)
{
	double		best = -1;
	uint64_t	sink = 0;

	for (int run = 0; run < 7; run++)
	{
		double		t0 = corpus_now();
		int			passes = 200;

		for (int p = 0; p < passes; p++)
			for (int i = 0; i < n; i++)
				sink += xxh3 ? XXH3_64bits(fs[i].z, fs[i].zlen) : XXH64(fs[i].z, fs[i].zlen, 0);
		t0 = (corpus_now() - t0) / passes;
		if (best < 0 || t0 < best)
			best = t0;
	}
	if (sink == 42)
		fputc(' ', stderr);		/* keep the sums */
	return best * 1e6;
}

int
main(int argc, char **argv)
{
	frame	   *fs = NULL;
	int			n = 0,
				cap = 0;
	size_t		stored = 0,
				raw = 0,
				blob;
	static const int levels[] = {3, 6, 9, 12, 15, 19};
	ZSTD_CCtx  *cc = ZSTD_createCCtx();
	uint8_t    *all;
	uint8_t    *one;
	size_t		onelen;
	double		s;

	if (argc != 3)
		die("usage: bench_frame_levels LABEL BYTEA_FILE_BYTES < frames.txt");
	blob = strtoull(argv[2], NULL, 10);
	for (;;)
	{
		frame		f;

		if (!read_frame(&f))
			break;
		if (f.zlen == 0)
		{
			sl_free(f.z);
			continue;
		}
		decompress(&f);
		if (n == cap)
			fs = xrealloc(fs, sizeof(frame) * (cap = cap ? cap * 2 : 64));
		fs[n++] = f;
		stored += f.zlen;
		raw += f.rlen;
	}
	if (n == 0 || cc == NULL)
		die("no frames on stdin");
	printf("%s: %d frames, %zu bytes stored (%zu raw); the bytea row's file %zu bytes\n\n",
		   argv[1], n, stored, raw, blob);
	printf("| the frames compressed again at | bytes | to the bytea row's file | compression MB/s | ms a MB of raw chunks |\n");
	printf("|---|---:|---:|---:|---:|\n");
	printf("| as stored | %zu | %.3fx | | |\n", stored, (double) stored / blob);
	for (size_t l = 0; l < sizeof(levels) / sizeof(levels[0]); l++)
	{
		size_t		b = compress_all(cc, fs, n, levels[l], &s);

		printf("| zstd level %d, frame by frame | %zu | %.3fx | %.1f | %.2f |\n",
			   levels[l], b, (double) b / blob, raw / s / 1e6, s * 1e3 / (raw / 1e6));
	}
	/* the same bytes as one frame, the shape of the bytea row's chunk block */
	all = xmalloc(raw);
	for (size_t i = 0, off = 0; i < (size_t) n; off += fs[i].rlen, i++)
		memcpy(all + off, fs[i].raw, fs[i].rlen);
	one = xmalloc(ZSTD_compressBound(raw));
	onelen = ZSTD_compressCCtx(cc, one, ZSTD_compressBound(raw), all, raw, 3);
	if (ZSTD_isError(onelen))
		die("zstd: %s", ZSTD_getErrorName(onelen));
	printf("| zstd level 3, one frame | %zu | %.3fx | | |\n\n", onelen, (double) onelen / blob);
	printf("| a load's check of the frames' %zu bytes | µs |\n|---|---:|\n", stored);
	printf("| XXH64 (what a load checks) | %.1f |\n", hash_us(fs, n, 0));
	printf("| XXH3-64 (for comparison) | %.1f |\n", hash_us(fs, n, 1));
	for (int i = 0; i < n; i++)
	{
		sl_free(fs[i].z);
		free(fs[i].raw);
	}
	free(fs);
	free(all);
	free(one);
	ZSTD_freeCCtx(cc);
	return 0;
}
