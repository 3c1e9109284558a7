/*
 * worldfiles.c - copy-world --files: a world's own files (wfiles.h) as a
 * binary COPY stream of rows (world text, path text, data bytea), walked
 * in name order so that the same folder gives the same stream.
 */
#include "wfiles.h"
#include "copybin.h"
#include "progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sl_build.h"
#include "sl_jgzip.h"

#define STAGING_PREFIX	".slime-export."	/* export-world's staging folder */

/* What a walk keeps and counts. */
typedef struct wf_walk
{
	const char *world;
	const dim_list *dims;
	int			strict;
	int			check;			/* --check: say what would happen, go on */
	copy_out   *out;			/* NULL: count only (--check) */
	const char *name;			/* the world's name, first column */
	uint64_t	files;			/* files kept */
	uint64_t	bytes;
	uint64_t	chunk_files;	/* chunk files left to the values */
	int			empty_regions;	/* region files holding no chunk, kept */
	int			unread_regions;	/* .mcr beside .mca and the like, kept */
	int			skipped[2];		/* session.lock, level.dat_old */
	int			level;			/* 0 none, 1 in the world compound, 2 kept as a file */
	int			odd;			/* not regular files, skipped */
	dev_t		dev[WL_MAX_PATH_DEPTH + 1];	/* the folders being walked (loops) */
	ino_t		ino[WL_MAX_PATH_DEPTH + 1];
	int			depth;
} wf_walk;

/* The folder being listed, when it is a kind folder of a dimension. */
typedef struct kind_ctx
{
	int			kind;			/* SL_COMP_*, -1 when not a kind folder */
	const char *ext;			/* region/: the extension read */
	char	  **names;			/* its entries */
	int			n;
	const char *dir;
} kind_ctx;

/* Which kind folder rel is (-1: none). */
static int
kind_of(const dim_list *dims, const char *rel)
{
	for (int i = 0; i < dims->n; i++)
		for (int k = 0; k < SL_NCOMP; k++)
		{
			char	   *kr = wd_kind_rel(&dims->v[i], k);
			int			hit = kr && strcmp(kr, rel) == 0;

			free(kr);
			if (hit)
				return k;
		}
	return -1;
}

/* 1 when the region file dir/name holds a chunk (a location table entry). */
static int
region_has_chunks(const char *dir, const char *name)
{
	char	   *path = tool_path(dir, name);
	FILE	   *f = fopen(path, "rb");
	uint8_t		head[4096];
	int			yes = 0;

	free(path);
	if (f == NULL)
		return 0;
	if (fread(head, 1, sizeof(head), f) == sizeof(head))
		for (size_t i = 0; i < sizeof(head) && !yes; i++)
			yes = head[i] != 0;
	fclose(f);
	return yes;
}

/*
 * Whether name, in a kind folder, is a chunk file copy-world reads into a
 * value: a region file of the extension read that holds a chunk, or a
 * c.X.Z.mcc beside one of its region.
 */
static int
is_chunk_file(const kind_ctx *c, const char *name, wf_walk *w)
{
	int32_t		a,
				b;
	const char *ext = c->kind == SL_COMP_REGION ? c->ext : "mca";
	char		rname[64];

	if (tool_parse_coords(name, "r", ext, &a, &b))
	{
		if (region_has_chunks(c->dir, name))
			return 1;
		w->empty_regions++;
		return 0;
	}
	if (tool_parse_coords(name, "c", "mcc", &a, &b))
	{
		snprintf(rname, sizeof(rname), "r.%d.%d.%s", a >> 5, b >> 5, ext);
		for (int i = 0; i < c->n; i++)
			if (strcmp(c->names[i], rname) == 0)
				return region_has_chunks(c->dir, rname);
		return 0;
	}
	if (tool_parse_coords(name, "r", "mcr", &a, &b) || tool_parse_coords(name, "r", "mca", &a, &b))
		w->unread_regions++;
	return 0;
}

/* Skip a file (lenient) or fail (strict), saying why. */
static int
odd_file(wf_walk *w, const char *path, const char *why)
{
	if (w->strict && !w->check)
		return tool_fail("%s/%s: %s (--lenient skips it)", w->world, path, why);
	tool_progress_clear();
	fprintf(stderr, "slimetool: %s/%s: %s: %s\n", w->world, path, why,
			w->check ? "copy-world --files refuses it, --lenient skips it" : "skipped");
	w->odd++;
	return 0;
}

/* Keep one file: read it and send its row. */
static int
keep_file(wf_walk *w, const char *full, const char *path, const uint8_t *data, size_t len)
{
	uint8_t    *own = NULL;
	const char *why;
	int			rc = 0;

	if (!copy_valid_utf8(path, strlen(path)))
		return odd_file(w, path, "its name is not valid UTF-8");
	if ((why = wl_check_path(path)) != NULL)
		return odd_file(w, path, why);
	if (data == NULL && w->out)
	{
		if (tool_read_file(full, &own, &len))
			return -1;
		data = own;
	}
	if (w->out && len > SL_MAX_VALUE)
		rc = tool_fail("%s: %zu bytes, more than a bytea holds", full, len);
	else if (w->out)
	{
		const void *f[3] = {w->name, path, data};
		size_t		l[3] = {strlen(w->name), strlen(path), len};

		copy_out_row(w->out, 3, f, l);
		if (ferror(stdout))
			rc = tool_fail("error writing the COPY stream to stdout");
	}
	w->files++;
	w->bytes += len;
	tool_progress_add(1, 0, len);
	sl_free(own);
	return rc;
}

/*
 * level.dat: left to the world compound when sl_jgzip gives its bytes
 * back, else kept as a file as well (another encoder wrote it, or it does
 * not read as NBT).
 */
static int
level_file(wf_walk *w, const char *full)
{
	uint8_t    *raw = NULL,
			   *nbt = NULL;
	size_t		raw_len,
				nbt_len;
	sl_buf		again = {NULL, 0, 0};
	sl_err		err;
	int			rc;

	if (tool_read_file(full, &raw, &raw_len))
		return -1;
	if (sl_unpack_nbt(raw, raw_len, 0, &sl_default_limits, &nbt, &nbt_len, &err) == 0 &&
		sl_jgzip_level(nbt, nbt_len, &sl_default_limits, &again, &err) == 0 &&
		again.len == raw_len && memcmp(again.data, raw, raw_len) == 0)
	{
		w->level = 1;
		rc = 0;
	}
	else
	{
		w->level = 2;
		rc = keep_file(w, full, "level.dat", raw, raw_len);
	}
	sl_buf_free(&again);
	sl_free(nbt);
	sl_free(raw);
	return rc;
}

static int	walk_dir(wf_walk *w, const char *rel);

/* One entry of a folder: a folder to walk, a file to keep, or neither. */
static int
walk_entry(wf_walk *w, const char *rel, const char *name, const kind_ctx *c)
{
	char	   *path = rel[0] ? tool_path(rel, name) : strdup(name);
	char	   *full = tool_path(w->world, path);
	struct stat st;
	int			rc = 0,
				root = rel[0] == '\0';

	if (path == NULL)
		return tool_fail("out of memory");
	if (stat(full, &st) != 0)
		rc = odd_file(w, path, "cannot be read (a dangling symlink?)");
	else if (S_ISDIR(st.st_mode))
	{
		int			loop = 0;

		for (int i = 0; i < w->depth; i++)
			loop |= w->dev[i] == st.st_dev && w->ino[i] == st.st_ino;
		if (root && strncmp(name, STAGING_PREFIX, strlen(STAGING_PREFIX)) == 0)
			fprintf(stderr, "slimetool: %s: left by an export-world that did not finish: skipped\n", full);
		else if (loop)
			rc = odd_file(w, path, "a folder inside itself (a symlink loop)");
		else if (w->depth >= WL_MAX_PATH_DEPTH)
			rc = odd_file(w, path, "more than 64 folders deep");
		else
		{
			w->dev[w->depth] = st.st_dev;
			w->ino[w->depth++] = st.st_ino;
			rc = walk_dir(w, path);
			w->depth--;
		}
	}
	else if (!S_ISREG(st.st_mode))
		rc = odd_file(w, path, "not a regular file");
	else if (root && (strcmp(name, "session.lock") == 0 || strcmp(name, "level.dat_old") == 0))
		w->skipped[name[0] == 'l']++;
	else if (root && strcmp(name, "level.dat") == 0)
		rc = level_file(w, full);
	else if (c->kind >= 0 && is_chunk_file(c, name, w))
		w->chunk_files++;
	else
		rc = keep_file(w, full, path, NULL, (size_t) st.st_size);
	free(full);
	free(path);
	return rc;
}

/* Walk the folder rel of the world (sorted names). */
static int
walk_dir(wf_walk *w, const char *rel)
{
	char	   *dir = rel[0] ? tool_path(w->world, rel) : strdup(w->world);
	kind_ctx	c;
	int			rc = 0;

	if (dir == NULL)
		return tool_fail("out of memory");
	memset(&c, 0, sizeof(c));
	c.dir = dir;
	if (tool_list_dir(dir, &c.names, &c.n))
	{
		free(dir);
		return -1;
	}
	c.kind = kind_of(w->dims, rel);
	c.ext = c.kind == SL_COMP_REGION ? wd_region_ext(c.names, c.n) : "mca";
	for (int i = 0; i < c.n && rc == 0; i++)
		rc = walk_entry(w, rel, c.names[i], &c);
	tool_free_names(c.names, c.n);
	free(dir);
	return rc;
}

/* Walk the whole world folder. */
static int
walk_world(wf_walk *w)
{
	struct stat st;

	if (stat(w->world, &st) != 0)
		return tool_fail("%s: cannot be read", w->world);
	w->dev[0] = st.st_dev;
	w->ino[0] = st.st_ino;
	w->depth = 1;
	return walk_dir(w, "");
}

/* Say on stderr what the walk kept and left. */
static void
report(const wf_walk *w, FILE *f)
{
	tool_progress_clear();
	fprintf(f, "world files: %llu kept (%llu bytes)", (unsigned long long) w->files,
			(unsigned long long) w->bytes);
	if (w->level)
		fprintf(f, "; level.dat %s", w->level == 1 ? "given back by the world compound, byte for byte" :
				"kept as a file too (not the bytes the game's gzip writes)");
	if (w->skipped[0] || w->skipped[1])
		fprintf(f, "; skipped %s%s%s", w->skipped[0] ? "session.lock (the server's lock)" : "",
				w->skipped[0] && w->skipped[1] ? " and " : "",
				w->skipped[1] ? "level.dat_old (the game's backup)" : "");
	fputc('\n', f);
	if (w->empty_regions)
		fprintf(f, "world files: %d region files holding no chunk kept as files\n", w->empty_regions);
	if (w->unread_regions)
		fprintf(f, "world files: %d region files copy-world does not read (McRegion .mcr beside Anvil "
				".mca, which the game leaves after converting) kept as files\n", w->unread_regions);
}

/* The world's own files as a binary COPY stream on stdout. */
int
wf_copy(const char *world, const char *name, const dim_list *dims, int strict, int quiet)
{
	copy_out	out;
	wf_walk		w;
	int			rc;

	memset(&w, 0, sizeof(w));
	w.world = world;
	w.dims = dims;
	w.strict = strict;
	w.name = name;
	w.out = &out;
	tool_progress_start("copy-world --files", quiet);
	copy_out_start(&out, stdout);
	rc = walk_world(&w);
	if (rc == 0)
		rc = copy_out_finish(&out);
	tool_progress_end();
	if (rc == 0)
		report(&w, stderr);
	return rc;
}

/* Say what copy-world --files would keep. */
int
wf_describe(const char *world, const dim_list *dims)
{
	wf_walk		w;

	memset(&w, 0, sizeof(w));
	w.world = world;
	w.dims = dims;
	w.check = 1;
	w.name = "";
	if (walk_world(&w))
		return -1;
	printf("  ");
	fflush(stdout);
	report(&w, stdout);
	return 0;
}
