/*
 * unit_main.c - runs every unit test of the core library.
 */
#include "harness.h"
#include "sl_value.h"

#include <sys/stat.h>

int			sl_test_failures;
int			sl_test_checks;

#define X(name) void name(void);
#include "tests.def"
#undef X

static const sl_test tests[] = {
#define X(name) {#name, name},
#include "tests.def"
#undef X
};

/* Path of the shared corpus, or NULL when it is missing. */
const char *
sl_test_corpus(void)
{
	static char path[4096];
	const char *env = getenv("SLIME_CORPUS");
	struct stat st;

	snprintf(path, sizeof(path), "%s", env && *env ? env : "../shared/corpus");
	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
		return NULL;
	return path;
}

/* Read a whole file into memory. */
unsigned char *
sl_test_read_file(const char *path, size_t *len)
{
	FILE	   *f = fopen(path, "rb");
	unsigned char *buf;
	long		n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(n > 0 ? (size_t) n : 1);
	if (buf && n > 0 && fread(buf, 1, (size_t) n, f) != (size_t) n)
	{
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = n > 0 ? (size_t) n : 0;
	return buf;
}

int
main(int argc, char **argv)
{
	int			passed = 0,
				failed = 0;

	for (size_t i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
	{
		int			before = sl_test_failures;

		if (argc > 1 && strstr(tests[i].name, argv[1]) == NULL)
			continue;
		tests[i].fn();
		if (sl_test_failures == before)
		{
			passed++;
			printf("ok     %s\n", tests[i].name);
		}
		else
		{
			failed++;
			printf("FAILED %s\n", tests[i].name);
		}
	}
	sl_release_caches();
	printf("%d checks\n", sl_test_checks);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

/* Whether SLIME_UNIT_QUICK is set. */
int
sl_test_quick(void)
{
	static int	quick = -1;

	if (quick < 0)
		quick = getenv("SLIME_UNIT_QUICK") != NULL && *getenv("SLIME_UNIT_QUICK") != '\0';
	return quick;
}

/* Step of an every-byte loop after offset n (13 past 256 under SLIME_UNIT_QUICK). */
size_t
sl_test_cut_step(size_t n)
{
	return sl_test_quick() && n >= 256 ? 13 : 1;
}
