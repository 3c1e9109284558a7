/*
 * corpus_util.h - small helpers shared by the programs that read the corpus
 * (test/corpus/corpus_test.c, test/corpus/blocks_check.c,
 * test/bench/bench_size.c and the other benches).
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

/* Read a region file's chunks into r (damaged ones skipped: strict 0), or die. */
static inline void
corpus_read_region(const char *path, sl_region *r)
{
	size_t		len;
	uint8_t    *file = corpus_read_file(path, &len);
	int32_t		rx,
				rz;
	sl_err		err;

	if (file == NULL)
		die("cannot read %s", path);
	corpus_region_coords(path, &rx, &rz);
	memset(r, 0, sizeof(*r));
	if (sl_region_read(file, len, rx, rz, NULL, 0, 0, NULL, r, &err))
		die("read %s: %s", path, err.msg);
	free(file);
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

/*
 * Listing the region files of a corpus: needs nftw, so only for programs
 * that define _XOPEN_SOURCE 700 before their includes.
 */
#if defined(_XOPEN_SOURCE) && _XOPEN_SOURCE >= 500
#include <ftw.h>
#include <sys/stat.h>

/* One region file of the corpus and the index of its era directory. */
typedef struct corpus_file
{
	char	   *path;
	int			era;
} corpus_file;

/* How corpus_list_regions orders the files within an era. */
typedef enum corpus_order
{
	CORPUS_BY_WORLD,			/* directory, then file name: a world's files adjacent */
	CORPUS_BY_PATH				/* the whole path, bytewise */
} corpus_order;

/* nftw has no user pointer: the list being built and the era being walked. */
static corpus_file *corpus_list_;
static int	corpus_nlist_,
			corpus_cap_list_,
			corpus_era_;

/* Collect a .mca / .mcr file (nftw callback). */
static inline int
corpus_visit_(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	size_t		n = strlen(path);

	(void) st;
	(void) ftw;
	if (flag == FTW_F && n > 4 &&
		(strcmp(path + n - 4, ".mca") == 0 || strcmp(path + n - 4, ".mcr") == 0))
	{
		if (corpus_nlist_ == corpus_cap_list_)
		{
			corpus_cap_list_ = corpus_cap_list_ ? corpus_cap_list_ * 2 : 64;
			corpus_list_ = xrealloc(corpus_list_, corpus_cap_list_ * sizeof(corpus_file));
		}
		if ((corpus_list_[corpus_nlist_].path = strdup(path)) == NULL)
			die("out of memory");
		corpus_list_[corpus_nlist_].era = corpus_era_;
		corpus_nlist_++;
	}
	return 0;
}

/* Order files by era, then directory, then file name. */
static inline int
corpus_cmp_world_(const void *a, const void *b)
{
	const corpus_file *x = a,
			   *y = b;
	const char *sx = strrchr(x->path, '/'),
			   *sy = strrchr(y->path, '/');
	size_t		dx = sx - x->path,
				dy = sy - y->path;
	int			c;

	if (x->era != y->era)
		return x->era - y->era;
	c = strncmp(x->path, y->path, dx < dy ? dx : dy);
	if (c == 0 && dx != dy)
		return dx < dy ? -1 : 1;
	if (c != 0)
		return c;
	return strcmp(sx, sy);
}

/* Order files by era, then whole path. */
static inline int
corpus_cmp_path_(const void *a, const void *b)
{
	const corpus_file *x = a,
			   *y = b;

	return x->era != y->era ? x->era - y->era : strcmp(x->path, y->path);
}

/* List the .mca / .mcr files under root/eras[i], sorted by era then order; exit 2 if an era is missing. */
static inline void
corpus_list_regions(const char *root, const char *const *eras, int neras,
					corpus_order order, corpus_file **out, int *n)
{
	corpus_list_ = NULL;
	corpus_nlist_ = corpus_cap_list_ = 0;
	for (corpus_era_ = 0; corpus_era_ < neras; corpus_era_++)
	{
		char		dir[8192];
		struct stat st;

		snprintf(dir, sizeof(dir), "%s/%s", root, eras[corpus_era_]);
		if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		{
			fprintf(stderr, "\n*** CORPUS INCOMPLETE: %s is missing ***\n"
					"*** set SLIME_CORPUS to the shared corpus directory ***\n\n", dir);
			exit(2);
		}
		if (nftw(dir, corpus_visit_, 16, FTW_PHYS) != 0)
			die("cannot walk %s", dir);
	}
	if (corpus_nlist_ > 0)
		qsort(corpus_list_, corpus_nlist_, sizeof(corpus_file),
			  order == CORPUS_BY_WORLD ? corpus_cmp_world_ : corpus_cmp_path_);
	*out = corpus_list_;
	*n = corpus_nlist_;
}
#endif							/* _XOPEN_SOURCE */

#endif
