/*
 * corpus_util.h - small helpers shared by the programs that read the corpus
 * (test/corpus/corpus_test.c, test/corpus/blocks_check.c,
 * test/bench/bench_size.c).
 */
#ifndef CORPUS_UTIL_H
#define CORPUS_UTIL_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sl_codec.h"
#include "sl_region.h"

/* Name the programs below print in front of their errors. */
#ifndef CORPUS_PROG
#define CORPUS_PROG "corpus"
#endif

/* Print an error naming the program and exit with status 2. */
static inline void
die(const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	fprintf(stderr, CORPUS_PROG ": ERROR: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(2);
}

/* Reallocate or die. */
static inline void *
xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (p == NULL)
		die("out of memory (%zu bytes)", n);
	return p;
}

/* Allocate or die. */
static inline void *
xmalloc(size_t n)
{
	return xrealloc(NULL, n);
}

/* Seconds on a monotonic clock. */
static inline double
corpus_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Read a whole file; NULL when it cannot be read. */
static inline uint8_t *
corpus_read_file(const char *path, size_t *len)
{
	FILE	   *f = fopen(path, "rb");
	uint8_t    *buf;
	long		n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(n > 0 ? (size_t) n : 1);
	if (buf == NULL || (n > 0 && fread(buf, 1, (size_t) n, f) != (size_t) n))
		n = -1;
	fclose(f);
	if (n < 0)
	{
		free(buf);
		return NULL;
	}
	*len = (size_t) n;
	return buf;
}

/* Region coordinates from a file name r.<x>.<z>.mc?; 0,0 otherwise. */
static inline void
corpus_region_coords(const char *path, int32_t *rx, int32_t *rz)
{
	const char *base = strrchr(path, '/');
	int			x,
				z;

	base = base ? base + 1 : path;
	*rx = *rz = 0;
	if (sscanf(base, "r.%d.%d.", &x, &z) == 2)
	{
		*rx = x;
		*rz = z;
	}
}

/*
 * Inflate every chunk payload of a region file without parsing NBT: the
 * baseline cost of reading it. Sets *payload_bytes to the compressed bytes
 * and *seconds to the time taken; returns how many payloads failed.
 */
static inline int
corpus_inflate_only(const uint8_t *file, size_t len, double *payload_bytes, double *seconds)
{
	double		t0 = corpus_now();
	int			failures = 0;

	*payload_bytes = 0;
	for (int i = 0; len >= 8192 && i < SL_REGION_SLOTS; i++)
	{
		uint32_t	loc = sl_get_u32be(file + 4 * i);
		uint64_t	off = (uint64_t) (loc >> 8) * SL_SECTOR;
		uint32_t	clen;
		uint8_t		type;
		uint8_t    *out = NULL;
		size_t		out_len,
					used;
		sl_err		err;
		int			rc = 0;

		if (loc == 0 || off < 8192 || off + 5 > len)
			continue;
		clen = sl_get_u32be(file + off);
		type = file[off + 4];
		if (clen < 1 || off + 4 + clen > len)
			continue;
		*payload_bytes += clen - 1;
		if (type == 1 || type == 2)
			rc = sl_inflate(type == 1 ? SL_DEFLATE_GZIP : SL_DEFLATE_ZLIB, file + off + 5, clen - 1,
							SL_DEFAULT_MAX_CHUNK_RAW, 0, &out, &out_len, &used, &err);
		else if (type == 4)
			rc = sl_lz4block_decode(file + off + 5, clen - 1, SL_DEFAULT_MAX_CHUNK_RAW,
									&out, &out_len, &used, &err);
		failures += rc != 0;
		sl_free(out);
	}
	*seconds = corpus_now() - t0;
	return failures;
}

#endif
