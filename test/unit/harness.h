/*
 * harness.h - a minimal unit-test harness for the core library.
 *
 * Each test file defines functions registered with TEST(); the runner
 * (unit_main.c) calls them all and prints "N passed, N failed".
 */
#ifndef SL_HARNESS_H
#define SL_HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int	sl_test_failures;
extern int	sl_test_checks;

#define CHECK(cond) \
	do { \
		sl_test_checks++; \
		if (!(cond)) { \
			sl_test_failures++; \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
		} \
	} while (0)

#define CHECK_OK(call, errp) \
	do { \
		sl_test_checks++; \
		if ((call) != 0) { \
			sl_test_failures++; \
			fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, (errp)->msg); \
		} \
	} while (0)

typedef void (*sl_test_fn) (void);

typedef struct sl_test
{
	const char *name;
	sl_test_fn	fn;
} sl_test;

/* Path of the shared corpus: $SLIME_CORPUS or ../shared/corpus; NULL if missing. */
const char *sl_test_corpus(void);

/* Read a whole file; NULL on failure. Caller frees with free(). */
unsigned char *sl_test_read_file(const char *path, size_t *len);

/*
 * Step of an every-byte loop (cuts, flips) after offset n: 1, or under
 * SLIME_UNIT_QUICK (the valgrind suite) 13 past the first 256 bytes.
 */
size_t		sl_test_cut_step(size_t n);

/* Whether SLIME_UNIT_QUICK is set (the valgrind run: corpus-wide tests take a sample). */
int			sl_test_quick(void);

#endif
