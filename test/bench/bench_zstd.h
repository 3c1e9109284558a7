/*
 * bench_zstd.h - the benchmarks' zstd baselines: the compressed size of a
 * buffer at a level, with or without long matching. "zstd-19 long" in every
 * table of the suite is bench_zstd_size(p, n, 19, 1).
 */
#ifndef BENCH_ZSTD_H
#define BENCH_ZSTD_H

#include <zstd.h>

#include "corpus_util.h"

static ZSTD_CCtx *bench_zc_;
static uint8_t *bench_zbuf_;
static size_t bench_zcap_;

/* Compressed size of src at level; ldm: long matching with windowLog 27. */
static inline size_t
bench_zstd_size(const void *src, size_t len, int level, int ldm)
{
	size_t		n;

	if (bench_zc_ == NULL && (bench_zc_ = ZSTD_createCCtx()) == NULL)
		die("cannot create a zstd context");
	if (ZSTD_compressBound(len) > bench_zcap_)
	{
		bench_zcap_ = ZSTD_compressBound(len);
		bench_zbuf_ = xrealloc(bench_zbuf_, bench_zcap_);
	}
	ZSTD_CCtx_reset(bench_zc_, ZSTD_reset_session_and_parameters);
	ZSTD_CCtx_setParameter(bench_zc_, ZSTD_c_compressionLevel, level);
	if (ldm)
	{
		ZSTD_CCtx_setParameter(bench_zc_, ZSTD_c_enableLongDistanceMatching, 1);
		ZSTD_CCtx_setParameter(bench_zc_, ZSTD_c_windowLog, 27);
	}
	n = ZSTD_compress2(bench_zc_, bench_zbuf_, bench_zcap_, src, len);
	if (ZSTD_isError(n))
		die("zstd: %s", ZSTD_getErrorName(n));
	return n;
}

/* Release the context and buffer of bench_zstd_size. */
static inline void
bench_zstd_free(void)
{
	ZSTD_freeCCtx(bench_zc_);
	free(bench_zbuf_);
	bench_zc_ = NULL;
	bench_zbuf_ = NULL;
	bench_zcap_ = 0;
}

#endif
