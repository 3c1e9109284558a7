/*
 * tool_io.c - slimetool's file and directory helpers, and reading region
 * files (with their external .mcc chunks) into a builder.
 */
#include "tool.h"
#include "progress.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_LISTED_PROBLEMS 200		/* skipped chunks listed per file */
#define MAX_LISTED_REPAIRS 3		/* repaired chunks listed per file */

/* Print "slimetool: <message>" on stderr and return -1. */
int
tool_fail(const char *fmt,...)
{
	va_list		ap;

	tool_progress_clear();
	fputs("slimetool: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

/* Print a core library error with a context prefix and return -1. */
int
tool_fail_err(const sl_err *err, const char *context)
{
	if (context)
		return tool_fail("%s: %s", context, err->msg);
	return tool_fail("%s", err->msg);
}

/* Read a whole file into an sl_alloc'd buffer. */
int
tool_read_file(const char *path, uint8_t **data, size_t *len)
{
	FILE	   *f = fopen(path, "rb");
	struct stat st;
	uint8_t    *buf;
	size_t		got;

	*data = NULL;
	*len = 0;
	if (f == NULL)
		return tool_fail("%s: %s", path, strerror(errno));
	if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode))
	{
		fclose(f);
		return tool_fail("%s: not a regular file", path);
	}
	buf = sl_alloc((size_t) st.st_size + 1);
	if (buf == NULL)
	{
		fclose(f);
		return tool_fail("%s: out of memory reading %lld bytes", path, (long long) st.st_size);
	}
	got = fread(buf, 1, (size_t) st.st_size, f);
	if (ferror(f) || got != (size_t) st.st_size)
	{
		fclose(f);
		sl_free(buf);
		return tool_fail("%s: read error", path);
	}
	fclose(f);
	*data = buf;
	*len = got;
	return 0;
}

/* Write a whole file, replacing it. */
int
tool_write_file(const char *path, const uint8_t *data, size_t len)
{
	FILE	   *f = fopen(path, "wb");

	if (f == NULL)
		return tool_fail("%s: %s", path, strerror(errno));
	if (fwrite(data, 1, len, f) != len || fflush(f) != 0)
	{
		int			e = errno;

		fclose(f);
		return tool_fail("%s: write error: %s", path, strerror(e));
	}
	if (fclose(f) != 0)
		return tool_fail("%s: %s", path, strerror(errno));
	return 0;
}

/* strdup or exit (names are small; the tool cannot go on without them). */
char *
xstrdup(const char *s)
{
	char	   *d = strdup(s);

	if (d == NULL)
	{
		fputs("slimetool: out of memory\n", stderr);
		exit(1);
	}
	return d;
}

/* Join a directory and a name into a malloc'd path. */
char *
tool_path(const char *dir, const char *name)
{
	size_t		n = strlen(dir) + strlen(name) + 2;
	char	   *p = malloc(n);

	if (p == NULL)
	{
		fputs("slimetool: out of memory\n", stderr);
		exit(1);
	}
	snprintf(p, n, "%s/%s", dir, name);
	return p;
}

/* 1 when path is a directory (following symlinks), 0 otherwise. */
int
tool_is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* mkdir that accepts an existing directory. */
int
tool_mkdir(const char *path)
{
	if (mkdir(path, 0777) == 0 || (errno == EEXIST && tool_is_dir(path)))
		return 0;
	return tool_fail("cannot create directory %s: %s", path, strerror(errno));
}

/* qsort comparator for C strings. */
static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

/* Sorted names in a directory, without . and .. */
int
tool_list_dir(const char *dir, char ***names, int *n)
{
	DIR		   *d = opendir(dir);
	struct dirent *e;
	char	  **v = NULL;
	int			count = 0,
				cap = 0;

	*names = NULL;
	*n = 0;
	if (d == NULL)
		return tool_fail("%s: %s", dir, strerror(errno));
	while ((e = readdir(d)) != NULL)
	{
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (count == cap)
		{
			char	  **nv;

			cap = cap ? cap * 2 : 64;
			nv = realloc(v, (size_t) cap * sizeof(char *));
			if (nv == NULL)
				break;
			v = nv;
		}
		if ((v[count] = strdup(e->d_name)) == NULL)
			break;
		count++;
	}
	closedir(d);
	if (e != NULL)
	{
		tool_free_names(v, count);
		return tool_fail("%s: out of memory listing the directory", dir);
	}
	if (count > 0)
		qsort(v, (size_t) count, sizeof(char *), cmp_names);
	*names = v;
	*n = count;
	return 0;
}

/* Free a list from tool_list_dir. */
void
tool_free_names(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* Parse an optionally negative decimal int at *p, advancing *p. */
static int
parse_int_at(const char **p, int32_t *out)
{
	const char *s = *p;
	int64_t		v = 0;
	int			neg = 0,
				digits = 0;

	if (*s == '-')
	{
		neg = 1;
		s++;
	}
	for (; *s >= '0' && *s <= '9'; s++, digits++)
	{
		v = v * 10 + (*s - '0');
		if (v > (int64_t) INT32_MAX + 1)
			return -1;
	}
	if (digits == 0 || (!neg && v > INT32_MAX))
		return -1;
	*out = (int32_t) (neg ? -v : v);
	*p = s;
	return 0;
}

/* Parse a whole string as a 32-bit int. */
int
tool_parse_int(const char *s, int32_t *out)
{
	return parse_int_at(&s, out) == 0 && *s == '\0' ? 0 : -1;
}

/* Parse "<prefix>.<a>.<b>.<ext>" exactly; 1 on a match. */
int
tool_parse_coords(const char *name, const char *prefix, const char *ext,
				  int32_t *a, int32_t *b)
{
	size_t		plen = strlen(prefix);
	const char *p = name;

	if (strncmp(p, prefix, plen) != 0 || p[plen] != '.')
		return 0;
	p += plen + 1;
	if (parse_int_at(&p, a) || *p++ != '.' || parse_int_at(&p, b) || *p++ != '.')
		return 0;
	return strcmp(p, ext) == 0;
}

/* Region coordinate of a chunk coordinate (floor division by 32). */
static int32_t
region_of(int32_t c)
{
	return c >= 0 ? c / 32 : -(int32_t) ((-(int64_t) c - 1) / 32) - 1;
}

/* Free loaded external chunks. */
static void
free_externals(sl_external *ext, int n)
{
	for (int i = 0; i < n; i++)
		sl_free((void *) ext[i].data);
	free(ext);
}

/* Append one loaded external chunk file to *ext. */
static int
add_external(sl_external **ext, int *next, int32_t x, int32_t z, const char *path)
{
	sl_external *ne = realloc(*ext, (size_t) (*next + 1) * sizeof(sl_external));
	uint8_t    *data;
	size_t		len;

	if (ne == NULL)
		return tool_fail("out of memory loading external chunks");
	*ext = ne;
	if (tool_read_file(path, &data, &len))
		return -1;
	ne[*next].x = x;
	ne[*next].z = z;
	ne[*next].data = data;
	ne[*next].len = len;
	(*next)++;
	return 0;
}

/* Load the c.X.Z.mcc files of region rx,rz found in dir. */
static int
load_externals(const char *dir, char **names, int n, int32_t rx, int32_t rz,
			   sl_external **ext, int *next)
{
	*ext = NULL;
	*next = 0;
	for (int i = 0; i < n; i++)
	{
		int32_t		x,
					z;
		char	   *path;
		int			rc;

		if (!tool_parse_coords(names[i], "c", "mcc", &x, &z) ||
			region_of(x) != rx || region_of(z) != rz)
			continue;
		path = tool_path(dir, names[i]);
		rc = add_external(ext, next, x, z, path);
		free(path);
		if (rc)
			return -1;			/* the caller frees what was loaded */
	}
	return 0;
}

/* List skipped chunks (up to a cap) and the first few repaired ones on stderr. */
static void
report_problems(const char *path, const sl_region *r, tool_stats *st)
{
	int			listed[2] = {0, 0};
	int			cap[2] = {MAX_LISTED_REPAIRS, MAX_LISTED_PROBLEMS};

	if (r->nproblems)
		tool_progress_clear();
	int			count[2] = {0, 0};

	for (int i = 0; i < r->nproblems; i++)
	{
		const sl_region_problem *p = &r->problems[i];
		int			k = p->skipped ? 1 : 0;

		count[k]++;
		if (listed[k]++ < cap[k])
			fprintf(stderr, "slimetool: %s: %s %s\n", path,
					k ? "skipped" : "repaired", p->msg);
	}
	for (int k = 0; k < 2; k++)
		if (count[k] > cap[k])
			fprintf(stderr, "slimetool: %s: %d more %s chunks not listed\n", path,
					count[k] - cap[k], k ? "skipped" : "repaired");
	st->repaired += count[0];
	st->skipped += count[1];
}

/* Say which command reads a file of a kind other than a region file. */
void
tool_reader_hint(sl_sniff_kind kind)
{
	const char *hint = NULL;

	switch (kind)
	{
		case SL_SNIFF_GZIP:
			hint = "a level.dat belongs in a world folder (slimetool copy-world); schematics go in with slime_paste in SQL";
			break;
		case SL_SNIFF_SLIMEFILE:
			hint = "slimetool import-slime FILE -o OUT reads slime files into a value";
			break;
		case SL_SNIFF_VALUE:
			hint = "this is a slime value: slimetool info, verify, export-region, export-slime and render read values";
			break;
		case SL_SNIFF_NBT:
			hint = "one chunk's NBT goes in with slime_put_chunk in SQL";
			break;
		default:
			return;
	}
	fprintf(stderr, "slimetool: hint: %s\n", hint);
}

/* Parse a read file into r; lenient mode turns a damaged file into a skip. */
static int
parse_region(const char *path, const uint8_t *file, size_t len, int32_t rx, int32_t rz,
			 const sl_external *ext, int next, int strict, sl_region *r, tool_stats *st)
{
	sl_err		err;

	if (sl_region_read(file, len, rx, rz, ext, next, strict, &sl_default_limits, r, &err) == 0)
		return 0;
	if (strict || err.code != SL_ERR_FORMAT || sl_sniff(file, len) != SL_SNIFF_UNKNOWN)
	{
		tool_fail_err(&err, path);
		if (sl_sniff(file, len) != SL_SNIFF_UNKNOWN)
			tool_reader_hint(sl_sniff(file, len));
		else if (strict && err.code != SL_ERR_NOMEM && err.code != SL_ERR_LIMIT)
			fputs("slimetool: hint: --lenient skips damaged chunks and lists them\n", stderr);
		return -1;
	}
	tool_progress_clear();
	fprintf(stderr, "slimetool: %s: whole file skipped: %s\n", path, err.msg);
	st->bad_files++;
	return 1;
}

/* Read one region-format file as component comp into the builder. */
int
tool_read_region(sl_builder *b, int comp, const char *dir, const char *name,
				 int32_t rx, int32_t rz, char **dir_names, int ndir,
				 int strict, tool_stats *st)
{
	char	   *path = tool_path(dir, name);
	uint8_t    *file = NULL;
	size_t		len;
	sl_external *ext = NULL;
	int			next = 0;
	sl_region	r;
	sl_err		err;
	int			rc = -1;

	memset(&r, 0, sizeof(r));
	if (tool_read_file(path, &file, &len) ||
		load_externals(dir, dir_names, ndir, rx, rz, &ext, &next))
		goto done;
	rc = parse_region(path, file, len, rx, rz, ext, next, strict, &r, st);
	if (rc != 0)
	{
		rc = rc > 0 ? 0 : -1;
		goto done;
	}
	if (sl_region_place(&r, comp, strict, &sl_default_limits, &err))
	{
		rc = tool_fail_err(&err, path);
		sl_region_free(&r);
		goto done;
	}
	report_problems(path, &r, st);
	st->files++;
	st->file_bytes += len;
	st->chunks += r.nchunks;
	tool_progress_add(1, (uint64_t) r.nchunks, len);
	rc = sl_builder_add_region(b, comp, &r, &err) ? tool_fail_err(&err, path) : 0;
	sl_region_free(&r);
done:
	free_externals(ext, next);
	sl_free(file);
	free(path);
	return rc;
}

/* Split a path into a malloc'd directory and a pointer to the base name. */
char *
tool_split_path(const char *path, const char **base)
{
	const char *slash = strrchr(path, '/');
	char	   *dir;

	*base = slash ? slash + 1 : path;
	if (slash == NULL)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	dir = strdup(path);
	if (dir)
		dir[slash - path] = '\0';
	return dir;
}

/* Read the region-format file at path (its .mcc files from its folder) into the builder. */
int
tool_read_region_path(sl_builder *b, int comp, const char *path, int32_t rx, int32_t rz,
					  int strict, tool_stats *st)
{
	const char *base;
	char	   *dir;
	char	  **names = NULL;
	int			n = 0;
	struct stat sb;
	int			rc;

	/* name the file itself when it is missing, not only its folder */
	if (stat(path, &sb) != 0)
		return tool_fail("%s: %s", path, strerror(errno));
	if ((dir = tool_split_path(path, &base)) == NULL)
		return tool_fail("out of memory");
	rc = tool_list_dir(dir, &names, &n);
	if (rc == 0)
		rc = tool_read_region(b, comp, dir, base, rx, rz, names, n, strict, st);
	tool_free_names(names, n);
	free(dir);
	return rc;
}

/* Count the region-format files (r.X.Z.mca / .mcr) of dir and their bytes. */
void
tool_count_regions(const char *dir, uint64_t *files, uint64_t *bytes)
{
	char	  **names;
	int			n;
	int32_t		a,
				b;

	if (!tool_is_dir(dir) || tool_list_dir(dir, &names, &n))
		return;
	for (int i = 0; i < n; i++)
	{
		char	   *path;
		struct stat st;

		if (!tool_parse_coords(names[i], "r", "mca", &a, &b) &&
			!tool_parse_coords(names[i], "r", "mcr", &a, &b))
			continue;
		path = tool_path(dir, names[i]);
		if (path && stat(path, &st) == 0)
		{
			(*files)++;
			*bytes += (uint64_t) st.st_size;
		}
		free(path);
	}
	tool_free_names(names, n);
}
