/*
 * sl_zstd.c - checksummed zstd frames (libzstd) with cached contexts.
 */
#include "sl_zstd.h"

#include <stdlib.h>
#include <string.h>
#include <zstd.h>

static ZSTD_CCtx *cached_cctx;
static ZSTD_DCtx *cached_dctx;

/* The last prefix compressed against, digested once (a value's frames share one). */
static ZSTD_CDict *cached_cdict;
static uint8_t *cdict_src;		/* a copy of its bytes, to know it again */
static size_t cdict_len;
static int	cdict_level;

/* The process's zstd compression context (created once). */
static ZSTD_CCtx *
get_cctx(sl_err *err)
{
	if (cached_cctx == NULL)
		cached_cctx = ZSTD_createCCtx();
	if (cached_cctx == NULL)
		sl_fail(err, SL_ERR_NOMEM, "out of memory creating zstd context");
	return cached_cctx;
}

/* The process's zstd decompression context (created once). */
static ZSTD_DCtx *
get_dctx(sl_err *err)
{
	if (cached_dctx == NULL)
		cached_dctx = ZSTD_createDCtx();
	if (cached_dctx == NULL)
		sl_fail(err, SL_ERR_NOMEM, "out of memory creating zstd context");
	return cached_dctx;
}

/*
 * Decompress src[0..len) (zstd frames of any kind, as other programs write
 * them) into dst[0..cap) with the cached context; what ZSTD_decompress returns.
 */
size_t
sl_zstd_decompress(uint8_t *dst, size_t cap, const uint8_t *src, size_t len)
{
	ZSTD_DCtx  *dctx = cached_dctx ? cached_dctx : (cached_dctx = ZSTD_createDCtx());

	if (dctx == NULL)
		return ZSTD_decompress(dst, cap, src, len);
	ZSTD_DCtx_reset(dctx, ZSTD_reset_session_and_parameters);
	return ZSTD_decompressDCtx(dctx, dst, cap, src, len);
}

/* Compress src as ZSTD_compress does, with the cached context. */
size_t
sl_zstd_compress(uint8_t *dst, size_t cap, const uint8_t *src, size_t len, int level)
{
	ZSTD_CCtx  *cctx = cached_cctx ? cached_cctx : (cached_cctx = ZSTD_createCCtx());

	if (cctx == NULL)
		return ZSTD_compress(dst, cap, src, len, level);
	/* what sl_zstd_frame_prefix set (checksum, a prefix) must not carry over */
	ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters);
	return ZSTD_compressCCtx(cctx, dst, cap, src, len, level);
}

/* Forget the cached prefix dictionary. */
static void
drop_cdict(void)
{
	ZSTD_freeCDict(cached_cdict);
	free(cdict_src);
	cached_cdict = NULL;
	cdict_src = NULL;
	cdict_len = 0;
}

/*
 * The prefix as a raw-content dictionary at level, made once for all the
 * frames that share it: referencing the prefix itself would index its
 * bytes again for every frame. Frames made so decode with the prefix.
 */
static ZSTD_CDict *
get_cdict(const uint8_t *prefix, size_t len, int level, sl_err *err)
{
	if (cached_cdict && cdict_len == len && cdict_level == level &&
		memcmp(cdict_src, prefix, len) == 0)
		return cached_cdict;
	drop_cdict();
	cdict_src = malloc(len);
	if (cdict_src != NULL)
	{
		memcpy(cdict_src, prefix, len);
		cached_cdict = ZSTD_createCDict(cdict_src, len, level);
	}
	if (cached_cdict == NULL)
	{
		drop_cdict();
		sl_fail(err, SL_ERR_NOMEM, "out of memory digesting a %zu-byte zstd prefix", len);
		return NULL;
	}
	cdict_len = len;
	cdict_level = level;
	return cached_cdict;
}

/* Free the cached zstd contexts. */
void
sl_zstd_release(void)
{
	ZSTD_freeCCtx(cached_cctx);
	ZSTD_freeDCtx(cached_dctx);
	cached_cctx = NULL;
	cached_dctx = NULL;
	drop_cdict();
}

/* Compress raw into one checksummed zstd frame appended to out. */
int
sl_zstd_frame(const uint8_t *raw, size_t len, int level, sl_buf *out, sl_err *err)
{
	return sl_zstd_frame_prefix(raw, len, level, NULL, 0, out, err);
}

/*
 * Input fed to zstd between two interrupt checks at levels of at least
 * SLICE_LEVEL: a 4 MiB frame at level 19 takes seconds, and a query cancel
 * must not wait for it. Faster levels compress a frame in one call (the
 * streaming path copies its input; at level 3 that costs a few percent).
 */
#define COMPRESS_SLICE ((size_t) 256 * 1024)
#define SLICE_LEVEL 10

/* Compress raw against a raw-content prefix into one checksummed zstd frame. */
int
sl_zstd_frame_prefix(const uint8_t *raw, size_t len, int level, const uint8_t *prefix,
					 size_t prefix_len, sl_buf *out, sl_err *err)
{
	ZSTD_CCtx  *cctx = get_cctx(err);
	size_t		bound = ZSTD_compressBound(len);
	ZSTD_inBuffer in = {raw, 0, 0};
	ZSTD_outBuffer o;
	size_t		left;

	if (cctx == NULL || sl_buf_reserve(out, bound, err))
		return -1;
	ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_dictIDFlag, 0);
	ZSTD_CCtx_setPledgedSrcSize(cctx, len);
	if (prefix_len)
	{
		ZSTD_CDict *cdict = get_cdict(prefix, prefix_len, level, err);

		if (cdict == NULL)
			return -1;
		if (ZSTD_isError(ZSTD_CCtx_refCDict(cctx, cdict)))
			return sl_fail(err, SL_ERR_LIMIT, "zstd: cannot use a %zu-byte prefix", prefix_len);
	}
	o.dst = out->data + out->len;
	o.size = bound;
	o.pos = 0;
	if (level < SLICE_LEVEL || len <= COMPRESS_SLICE)
	{
		left = ZSTD_compress2(cctx, o.dst, o.size, raw, len);
		if (ZSTD_isError(left))
			return sl_fail(err, SL_ERR_LIMIT, "zstd compression failed: %s", ZSTD_getErrorName(left));
		out->len += left;
		return 0;
	}
	do
	{
		size_t		step = len - in.pos < COMPRESS_SLICE ? len - in.pos : COMPRESS_SLICE;

		in.size = in.pos + step;
		left = ZSTD_compressStream2(cctx, &o, &in, in.size == len ? ZSTD_e_end : ZSTD_e_continue);
		if (ZSTD_isError(left))
			return sl_fail(err, SL_ERR_LIMIT, "zstd compression failed: %s", ZSTD_getErrorName(left));
		if (in.size < len)
			sl_interrupt();
	} while (in.pos < len || left != 0);
	out->len += o.pos;
	return 0;
}

/* Content size a frame declares, or -1. */
int64_t
sl_zstd_declared_size(const uint8_t *src, size_t len)
{
	unsigned long long n;

	if (len < 6 || sl_get_u32le(src) != 0xFD2FB528u)
		return -1;
	n = ZSTD_getFrameContentSize(src, len);
	if (n == ZSTD_CONTENTSIZE_UNKNOWN || n == ZSTD_CONTENTSIZE_ERROR || n > INT64_MAX)
		return -1;
	return (int64_t) n;
}

/* Check that src is one checksummed zstd frame declaring raw_len bytes. */
int
sl_zstd_check(const uint8_t *src, size_t len, size_t raw_len, sl_err *err)
{
	unsigned long long declared;

	/* RFC 8878: magic 28 B5 2F FD, then the frame header descriptor */
	if (len < 6 || sl_get_u32le(src) != 0xFD2FB528u)
		return sl_fail(err, SL_ERR_CORRUPT, "not a zstd frame");
	if ((src[4] & 0x04) == 0)
		return sl_fail(err, SL_ERR_CORRUPT, "zstd frame has no checksum");
	if (ZSTD_findFrameCompressedSize(src, len) != len)
		return sl_fail(err, SL_ERR_CORRUPT, "not exactly one zstd frame");
	declared = ZSTD_getFrameContentSize(src, len);
	if (declared != (unsigned long long) raw_len)
		return sl_fail(err, SL_ERR_CORRUPT, "zstd frame declares %llu bytes, expected %zu",
					   declared, raw_len);
	return 0;
}

/* Decompress one checked frame of exactly raw_len bytes into dst. */
int
sl_zstd_unframe(const uint8_t *src, size_t len, uint8_t *dst, size_t raw_len,
				sl_err *err)
{
	return sl_zstd_unframe_prefix(src, len, dst, raw_len, NULL, 0, err);
}

/* Decompress one checked frame compressed against a prefix into dst. */
int
sl_zstd_unframe_prefix(const uint8_t *src, size_t len, uint8_t *dst, size_t raw_len,
					   const uint8_t *prefix, size_t prefix_len, sl_err *err)
{
	ZSTD_DCtx  *dctx = get_dctx(err);
	size_t		n;

	if (dctx == NULL || sl_zstd_check(src, len, raw_len, err))
		return -1;
	ZSTD_DCtx_reset(dctx, ZSTD_reset_session_only);
	if (prefix_len && ZSTD_isError(ZSTD_DCtx_refPrefix(dctx, prefix, prefix_len)))
		return sl_fail(err, SL_ERR_NOMEM, "zstd: cannot use a %zu-byte prefix", prefix_len);
	n = ZSTD_decompressDCtx(dctx, dst, raw_len, src, len);
	if (ZSTD_isError(n))
		return sl_fail(err, SL_ERR_CORRUPT, "zstd: %s", ZSTD_getErrorName(n));
	if (n != raw_len)
		return sl_fail(err, SL_ERR_CORRUPT, "zstd frame decompressed to %zu bytes, expected %zu",
					   n, raw_len);
	return 0;
}
