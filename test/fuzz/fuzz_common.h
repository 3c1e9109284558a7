/*
 * fuzz_common.h - shared bits of the libFuzzer targets in test/fuzz/.
 *
 * The targets link the core library (src/core) built with
 * -fsanitize=fuzzer-no-link,address,undefined. Caps are far below the
 * production ones so that a hostile input cannot make the fuzzer run out of
 * memory (-rss_limit_mb=2048) while every code path stays reachable.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include "sl_common.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const sl_limits fuzz_limits = {
	(size_t) 4 * 1024 * 1024,	/* max_chunk_raw */
	(size_t) 16 * 1024 * 1024,	/* max_value_raw */
	64,							/* max_depth */
	SL_DEFAULT_MAX_PALETTE		/* max_palette */
};

/* Limits with the production nesting cap (deep documents are cheap). */
static const sl_limits fuzz_limits_deep = {
	(size_t) 4 * 1024 * 1024,
	(size_t) 16 * 1024 * 1024,
	SL_DEFAULT_MAX_DEPTH,
	SL_DEFAULT_MAX_PALETTE
};

/* An invariant of the library is broken: report and abort (a crash). */
#define FUZZ_CHECK(cond, ...) \
	do { \
		if (!(cond)) \
		{ \
			fprintf(stderr, "FUZZ INVARIANT FAILED at %s:%d: %s\n", \
					__FILE__, __LINE__, #cond); \
			fprintf(stderr, "  " __VA_ARGS__); \
			fputc('\n', stderr); \
			abort(); \
		} \
	} while (0)

/* Every error must carry a known code and a NUL-terminated message. */
static inline void
fuzz_check_any_err(const sl_err *err)
{
	FUZZ_CHECK(err->code > SL_OK && err->code <= SL_ERR_NOTFOUND,
			   "error code %d out of range", (int) err->code);
	FUZZ_CHECK(memchr(err->msg, '\0', sizeof(err->msg)) != NULL,
			   "error message not terminated");
}

/*
 * An error caused by hostile input must be of an input class (malformed,
 * corrupt, over a cap, out of memory, unsupported): "bad argument", "the same
 * chunk twice" and "not found" are the caller's errors, and reaching one from
 * input means a path trusts what it should check.
 */
static inline void
fuzz_check_err(const sl_err *err)
{
	fuzz_check_any_err(err);
	FUZZ_CHECK(err->code != SL_ERR_INVALID && err->code != SL_ERR_DUPLICATE &&
			   err->code != SL_ERR_NOTFOUND,
			   "input reached the caller's error code %d: %s", (int) err->code, err->msg);
}

/* Copy of data in its own allocation, so ASan sees reads past its end. */
static inline uint8_t *
fuzz_dup(const uint8_t *data, size_t len)
{
	uint8_t    *p = malloc(len ? len : 1);

	if (p == NULL)
		abort();
	if (len)
		memcpy(p, data, len);
	return p;
}

#endif
