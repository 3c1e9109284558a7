/*
 * exportworld.c - slimetool export-world: the reverse of copy-world. Reads a
 * PostgreSQL binary COPY stream of rows (world text, dimension text, data
 * slime) on stdin, as "\copy (SELECT world, dimension, slime_resolve(data)
 * FROM t WHERE world = ...) TO STDOUT (FORMAT binary)" writes it, and writes
 * the world folder Minecraft opens:
 *
 *   minecraft:overworld   DIR/region, DIR/entities, DIR/poi
 *   minecraft:the_nether  DIR/DIM-1/...
 *   minecraft:the_end     DIR/DIM1/...
 *   ns:path               DIR/dimensions/ns/path/...
 *   world compound        DIR/level.dat (gzip)
 *
 * exactly where copy-world looks, so copy-world -> export-world ->
 * copy-world gives identical values. Region files hold zlib chunks (the
 * bytes slime_export_region gives), with c.X.Z.mcc files for chunks over
 * 255 sectors; a dimension whose chunks are all McRegion chunks gets .mcr
 * files. Every file written is read back strictly before it counts.
 *
 * Nothing becomes visible until the whole stream has been read and
 * checked: files are written under temporary names beside their final
 * ones, then renamed; on any error they are removed again.
 */
#define _XOPEN_SOURCE 700

#include "tool.h"
#include "progress.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sl_codec.h"
#include "sl_nbt.h"

#define MAX_DIM_DEPTH	8		/* as copy-world walks dimensions/<ns>/... */
#define MAX_NAME_FIELD	(1 << 20)	/* world and dimension names, bytes */
#define MCREGION_VERSION 19132	/* level.dat Data.version of McRegion worlds */

static const char *const kind_dirs[SL_NCOMP] = {"region", "entities", "poi"};

/* A file written under a temporary name, renamed on commit. */
typedef struct staged
{
	char	   *tmp;
	char	   *path;
} staged;

/* Options of export-world. */
typedef struct export_opts
{
	const char *dir;
	const char *world;			/* --world: export only this world's rows */
	int			force;
	int			quiet;			/* --quiet: no progress line */
} export_opts;

/* Everything one run writes or decides. */
typedef struct exporter
{
	const export_opts *o;
	char	   *world;			/* the world name of the rows exported */
	int			rows;			/* rows exported */
	int			skipped_rows;	/* rows of other worlds (--world) */
	char	  **dims;			/* dimension names seen */
	int			ndims;
	char	  **dim_dirs;		/* and their folders */
	int			ndim_dirs;
	int			mcr_dims;		/* dimensions written as .mcr */
	staged	   *files;
	int			nfiles;
	int			capfiles;
	char	  **made;			/* directories this run created, in order */
	int			nmade;
	char	  **synced;			/* directories whose entries changed */
	int			nsynced;
	/* world compounds: the overworld's, else the first other one */
	uint8_t    *level;
	size_t		level_len;
	char	   *level_dim;
	int			level_row;
	char	   *conflict_dim;	/* another dimension with a different one */
	int			conflict_row;
	int			level_from_overworld;
	uint64_t	bytes;			/* bytes written */
	int			renamed;		/* staged files given their names so far */
} exporter;

/* ---- small helpers ------------------------------------------------------ */

/* strdup or exit: the tool cannot go on without memory for names. */
static char *
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

/* Append a pointer to a growable array of pointers. */
static void
push_ptr(char ***v, int *n, char *p)
{
	char	  **nv = realloc(*v, (size_t) (*n + 1) * sizeof(char *));

	if (nv == NULL)
	{
		fputs("slimetool: out of memory\n", stderr);
		exit(1);
	}
	nv[(*n)++] = p;
	*v = nv;
}

/* Region coordinate of a chunk coordinate (floor division by 32). */
static int32_t
region_of(int32_t c)
{
	return (int32_t) (((int64_t) c - (c < 0 ? 31 : 0)) / 32);
}

/* 1 when s[0..len) is valid UTF-8 without NUL (PostgreSQL text). */
static int
valid_utf8(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *) s;
	const unsigned char *end = p + len;

	while (p < end)
	{
		int			n = *p == 0 ? -1 : *p < 0x80 ? 0 : (*p & 0xE0) == 0xC0 ? 1 :
			(*p & 0xF0) == 0xE0 ? 2 : (*p & 0xF8) == 0xF0 ? 3 : -1;

		if (n < 0 || (n == 1 && *p < 0xC2) || (n == 3 && *p > 0xF4) || end - p <= n)
			return 0;
		p++;
		while (n-- > 0)
			if ((*p++ & 0xC0) != 0x80)
				return 0;
	}
	return 1;
}

/* "row N (world 'w', dimension 'd')" for messages, in buf. */
static const char *
row_label(char *buf, size_t size, int row, const char *world, const char *dim)
{
	snprintf(buf, size, "row %d (world '%.200s', dimension '%.200s')", row, world, dim);
	return buf;
}

/* ---- dimension names and folders --------------------------------------- */

/* 1 for the folders of a dimension that copy-world never takes as nested
 * dimensions (it would not find a dimension named after them again). */
static int
is_data_dir(const char *name, size_t len)
{
	static const char *const names[] = {"region", "entities", "poi", "data"};

	for (int i = 0; i < 4; i++)
		if (strlen(names[i]) == len && memcmp(names[i], name, len) == 0)
			return 1;
	return 0;
}

/*
 * The folder of dimension name, relative to the world folder ("" for the
 * overworld), malloc'd; NULL with *why set when the name cannot be a
 * folder copy-world reads back: the three vanilla names map to the folders
 * Minecraft uses, any other "ns:path" to dimensions/ns/path, where every
 * part must be a plain folder name (no "..", no leading dot, no empty
 * part, no control characters or backslash) and path at most 8 deep.
 */
static char *
dim_folder(const char *name, const char **why)
{
	const char *colon = strchr(name, ':');
	const char *p;
	int			depth = 0;
	char	   *folder;

	if (strcmp(name, "minecraft:overworld") == 0)
		return xstrdup("");
	if (strcmp(name, "minecraft:the_nether") == 0)
		return xstrdup("DIM-1");
	if (strcmp(name, "minecraft:the_end") == 0)
		return xstrdup("DIM1");
	*why = NULL;
	for (p = name; *p && *why == NULL; p++)
		if ((unsigned char) *p < 0x20 || *p == 0x7F || *p == '\\')
			*why = "it holds a control character or a backslash";
	if (*why)
		return NULL;
	if (colon == NULL || colon == name || colon[1] == '\0')
	{
		*why = "it is not namespace:path";
		return NULL;
	}
	if (memchr(name, '/', (size_t) (colon - name)) || name[0] == '.')
	{
		*why = "its namespace is not a plain folder name";
		return NULL;
	}
	for (p = colon + 1;; depth++)
	{
		const char *slash = strchr(p, '/');
		size_t		len = slash ? (size_t) (slash - p) : strlen(p);

		if (len == 0 || p[0] == '.')
		{
			*why = "its path has an empty part or a part starting with '.' (such as ..)";
			return NULL;
		}
		if (is_data_dir(p, len))
		{
			*why = "its path has a part named region, entities, poi or data";
			return NULL;
		}
		if (slash == NULL)
			break;
		p = slash + 1;
	}
	if (depth + 1 > MAX_DIM_DEPTH)
	{
		*why = "its path is more than 8 folders deep";
		return NULL;
	}
	folder = malloc(strlen("dimensions/") + strlen(name) + 1);
	if (folder == NULL)
	{
		fputs("slimetool: out of memory\n", stderr);
		exit(1);
	}
	sprintf(folder, "dimensions/%.*s/%s", (int) (colon - name), name, colon + 1);
	return folder;
}

/* ---- staged files and directories --------------------------------------- */

/* Remember that dir's entries change (it is fsync'd on commit). */
static void
note_dir_changed(exporter *ex, const char *dir)
{
	for (int i = 0; i < ex->nsynced; i++)
		if (strcmp(ex->synced[i], dir) == 0)
			return;
	push_ptr(&ex->synced, &ex->nsynced, xstrdup(dir));
}

/* Create a directory unless it exists; remember the ones created. */
static int
ensure_dir(exporter *ex, const char *path, const char *parent)
{
	if (mkdir(path, 0777) == 0)
	{
		push_ptr(&ex->made, &ex->nmade, xstrdup(path));
		note_dir_changed(ex, parent);
		return 0;
	}
	if (errno == EEXIST && tool_is_dir(path))
		return 0;
	return tool_fail("cannot create directory %s: %s", path, strerror(errno));
}

/* Create DIR/rel and every folder on the way; the full path, malloc'd. */
static char *
ensure_path(exporter *ex, const char *rel)
{
	char	   *path = xstrdup(ex->o->dir);
	const char *p = rel;

	while (*p)
	{
		const char *slash = strchr(p, '/');
		size_t		len = slash ? (size_t) (slash - p) : strlen(p);
		char	   *part = malloc(len + 1);
		char	   *next;

		if (part == NULL)
		{
			fputs("slimetool: out of memory\n", stderr);
			exit(1);
		}
		memcpy(part, p, len);
		part[len] = '\0';
		next = tool_path(path, part);
		free(part);
		if (ensure_dir(ex, next, path))
		{
			free(next);
			free(path);
			return NULL;
		}
		free(path);
		path = next;
		p = slash ? slash + 1 : p + len;
	}
	return path;
}

/* Write all of data to fd. */
static int
write_all(int fd, const uint8_t *data, size_t len)
{
	while (len > 0)
	{
		ssize_t		w = write(fd, data, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		data += w;
		len -= (size_t) w;
	}
	return 0;
}

/*
 * Write dir/name under a temporary name beside it (.name.PID.tmp, never an
 * existing file, never through a symlink), synced to disk; it gets its
 * name on commit.
 */
static int
stage_file(exporter *ex, const char *dir, const char *name, const uint8_t *data, size_t len)
{
	char		tmpname[128];
	char	   *tmp;
	int			fd;

	if (ex->nfiles == ex->capfiles)
	{
		staged	   *nf;

		ex->capfiles = ex->capfiles ? ex->capfiles * 2 : 64;
		nf = realloc(ex->files, (size_t) ex->capfiles * sizeof(staged));
		if (nf == NULL)
			return tool_fail("out of memory");
		ex->files = nf;
	}
	snprintf(tmpname, sizeof(tmpname), ".%s.%ld.tmp", name, (long) getpid());
	tmp = tool_path(dir, tmpname);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0666);
	if (fd < 0)
	{
		tool_fail("%s: %s", tmp, strerror(errno));
		free(tmp);
		return -1;
	}
	ex->files[ex->nfiles].tmp = tmp;
	ex->files[ex->nfiles++].path = tool_path(dir, name);
	if (write_all(fd, data, len) || fsync(fd) != 0)
	{
		int			e = errno;

		close(fd);
		return tool_fail("%s: write error: %s", tmp, strerror(e));
	}
	if (close(fd) != 0)
		return tool_fail("%s: %s", tmp, strerror(errno));
	note_dir_changed(ex, dir);
	ex->bytes += len;
	return 0;
}

/* Undo a failed run: remove the temporary files and the folders created. */
static void
rollback(exporter *ex)
{
	for (int i = 0; i < ex->nfiles; i++)
		unlink(ex->files[i].tmp);
	for (int i = ex->nmade - 1; i >= 0; i--)
		rmdir(ex->made[i]);
}

/* fsync a directory, so that renames and new entries in it are durable. */
static int
sync_dir(const char *dir)
{
	int			fd = open(dir, O_RDONLY | O_DIRECTORY);
	int			rc;

	if (fd < 0)
		return tool_fail("%s: %s", dir, strerror(errno));
	rc = fsync(fd);
	close(fd);
	return rc == 0 ? 0 : tool_fail("%s: fsync: %s", dir, strerror(errno));
}

/* qsort/bsearch comparator for C strings. */
static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

/* 1 for a region-format file name: r.X.Z.mca, r.X.Z.mcr, c.X.Z.mcc. */
static int
is_region_name(const char *name)
{
	int32_t		a,
				b;

	return tool_parse_coords(name, "r", "mca", &a, &b) ||
		tool_parse_coords(name, "r", "mcr", &a, &b) ||
		tool_parse_coords(name, "c", "mcc", &a, &b);
}

/*
 * --force: remove the region-format files that an earlier world left in the
 * region/, entities/ and poi/ folders of the dimensions exported, so that
 * they hold exactly the exported chunks.
 */
static int
remove_stale(exporter *ex)
{
	char	  **written = malloc((size_t) (ex->nfiles + 1) * sizeof(char *));
	int			removed = 0,
				rc = 0;

	if (written == NULL)
		return tool_fail("out of memory");
	for (int i = 0; i < ex->nfiles; i++)
		written[i] = ex->files[i].path;
	qsort(written, (size_t) ex->nfiles, sizeof(char *), cmp_str);
	for (int d = 0; d < ex->ndim_dirs && rc == 0; d++)
		for (int k = 0; k < SL_NCOMP && rc == 0; k++)
		{
			char	   *base = ex->dim_dirs[d][0] ? tool_path(ex->o->dir, ex->dim_dirs[d]) : xstrdup(ex->o->dir);
			char	   *kdir = tool_path(base, kind_dirs[k]);
			char	  **names = NULL;
			int			n = 0;

			if (tool_is_dir(kdir) && (rc = tool_list_dir(kdir, &names, &n)) == 0)
				for (int i = 0; i < n && rc == 0; i++)
				{
					char	   *path = tool_path(kdir, names[i]);

					if (is_region_name(names[i]) &&
						bsearch(&path, written, (size_t) ex->nfiles, sizeof(char *), cmp_str) == NULL)
					{
						if (unlink(path) != 0)
							rc = tool_fail("cannot remove stale %s: %s", path, strerror(errno));
						else
						{
							removed++;
							note_dir_changed(ex, kdir);
						}
					}
					free(path);
				}
			tool_free_names(names, n);
			free(kdir);
			free(base);
		}
	free(written);
	if (removed)
		fprintf(stderr, "removed %d region files no exported chunk is in (--force)\n", removed);
	return rc;
}

/* Give every staged file its name, then make the changes durable. */
static int
commit(exporter *ex)
{
	for (int i = 0; i < ex->nfiles; i++)
	{
		if (rename(ex->files[i].tmp, ex->files[i].path) != 0)
			return tool_fail("cannot rename %s to %s: %s", ex->files[i].tmp,
							 ex->files[i].path, strerror(errno));
		ex->renamed++;
	}
	if (ex->o->force && remove_stale(ex))
		return -1;
	for (int i = 0; i < ex->nsynced; i++)
		if (sync_dir(ex->synced[i]))
			return -1;
	return 0;
}

/* ---- one dimension ------------------------------------------------------ */

/*
 * 1 when a chunk document is a McRegion (Beta 1.3 - 1.1) chunk: a Level
 * compound holding the Blocks byte array itself, no Sections.
 */
static int
is_mcregion_chunk(const uint8_t *nbt, size_t len)
{
	sl_arena	arena = {NULL, 0};
	sl_nbt	   *root;
	size_t		used;
	sl_err		err;
	const sl_nbt *level,
			   *blocks;
	int			yes = 0;

	if (sl_nbt_parse(nbt, len, &sl_default_limits, &arena, &root, &used, &err) == 0 &&
		root->type == SL_TAG_COMPOUND &&
		(level = sl_nbt_child(root, "Level")) != NULL && level->type == SL_TAG_COMPOUND &&
		(blocks = sl_nbt_child(level, "Blocks")) != NULL && blocks->type == SL_TAG_BYTE_ARRAY &&
		sl_nbt_child(level, "Sections") == NULL)
		yes = 1;
	sl_arena_free(&arena);
	return yes;
}

/*
 * Whether the dimension's region files are McRegion (.mcr): only when every
 * region chunk is a McRegion chunk (they never have a DataVersion, so only
 * chunks without one are decompressed to look). Copy-world reads .mcr
 * files only where no .mca file is, so one dimension gets one kind.
 */
static int
mcregion_dimension(sl_value *v, const char *label, int *mcr, uint32_t *mixed)
{
	uint32_t	yes = 0,
				no = 0;
	sl_err		err;

	for (uint32_t i = 0; i < v->hdr.chunk_count; i++)
	{
		sl_dirent	d;
		const uint8_t *comp[SL_NCOMP];

		if (sl_value_dirent(v, i, &d, &err))
			return tool_fail_err(&err, label);
		if (d.len[SL_COMP_REGION] == 0)
			continue;
		if (d.data_version != SL_NO_DV)
		{
			no++;
			continue;
		}
		if (sl_value_chunk(v, i, &d, comp, &err))
			return tool_fail_err(&err, label);
		if (is_mcregion_chunk(comp[SL_COMP_REGION], d.len[SL_COMP_REGION]))
			yes++;
		else
			no++;
	}
	*mcr = yes > 0 && no == 0;
	*mixed = no > 0 ? yes : 0;
	return 0;
}

/* A chunk index with its region, for grouping chunks by region file. */
typedef struct region_idx
{
	int32_t		rx;
	int32_t		rz;
	uint32_t	i;
} region_idx;

static int
cmp_region_idx(const void *a, const void *b)
{
	const region_idx *x = a,
			   *y = b;

	if (x->rx != y->rx)
		return x->rx < y->rx ? -1 : 1;
	if (x->rz != y->rz)
		return x->rz < y->rz ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Per-dimension counters. */
typedef struct dim_stats
{
	int			files[SL_NCOMP];
	int			external;
	uint32_t	chunks;
} dim_stats;

/*
 * Read back a region file just built and check that it gives exactly the
 * chunks it was built from (strict read, as copy-world reads).
 */
static int
check_region(const sl_buf *file, const sl_external *ext, int next, int32_t rx, int32_t rz,
			 const sl_region_chunk *chunks, int n, const char *what)
{
	const sl_region_chunk *by_slot[SL_REGION_SLOTS];
	sl_region	r;
	sl_err		err;
	int			rc = 0;

	memset(by_slot, 0, sizeof(by_slot));
	for (int i = 0; i < n; i++)
		by_slot[(chunks[i].z & 31) * 32 + (chunks[i].x & 31)] = &chunks[i];
	memset(&r, 0, sizeof(r));
	if (sl_region_read(file->data, file->len, rx, rz, ext, next, 1, &sl_default_limits, &r, &err))
		return tool_fail("%s does not read back: %s", what, err.msg);
	if (r.nchunks != n || r.nproblems != 0)
		rc = tool_fail("%s reads back with %d chunks, not %d", what, r.nchunks, n);
	for (int i = 0; i < r.nchunks && rc == 0; i++)
	{
		const sl_region_chunk *got = &r.chunks[i];
		const sl_region_chunk *want = by_slot[(got->z & 31) * 32 + (got->x & 31)];

		if (want == NULL || want->x != got->x || want->z != got->z ||
			want->nbt_len != got->nbt_len || want->timestamp != got->timestamp ||
			memcmp(want->nbt, got->nbt, got->nbt_len) != 0)
			rc = tool_fail("%s: chunk (%d,%d) reads back different", what, got->x, got->z);
	}
	sl_region_free(&r);
	return rc;
}

/* Build, check and stage one region file (and its .mcc files) of one kind. */
static int
write_region(exporter *ex, const char *kdir, int kind, int mcr, int32_t rx, int32_t rz,
			 const sl_region_chunk *chunks, int n, dim_stats *st)
{
	sl_buf		out = {NULL, 0, 0};
	sl_external *ext = NULL;
	int			next = 0;
	char		name[64];
	sl_err		err;
	int			rc;

	snprintf(name, sizeof(name), "r.%d.%d.%s", rx, rz, kind == SL_COMP_REGION && mcr ? "mcr" : "mca");
	if (sl_region_write(chunks, n, rx, rz, 2, &out, &ext, &next, &err))
		rc = tool_fail("%s/%s: %s", kdir, name, err.msg);
	else
		rc = check_region(&out, ext, next, rx, rz, chunks, n, name);
	if (rc == 0)
		rc = stage_file(ex, kdir, name, out.data, out.len);
	for (int i = 0; i < next && rc == 0; i++)
	{
		char		cname[64];

		snprintf(cname, sizeof(cname), "c.%d.%d.mcc", ext[i].x, ext[i].z);
		rc = stage_file(ex, kdir, cname, ext[i].data, ext[i].len);
		st->external++;
	}
	if (rc == 0)
	{
		st->files[kind]++;
		tool_progress_add(1, 0, 0);
	}
	for (int i = 0; i < next; i++)
		sl_free((void *) ext[i].data);
	sl_free(ext);
	sl_buf_free(&out);
	return rc;
}

/* Free the NBT copies of gathered chunks. */
static void
free_gathered(sl_region_chunk *chunks[SL_NCOMP], int n[SL_NCOMP])
{
	for (int k = 0; k < SL_NCOMP; k++)
	{
		for (int i = 0; i < n[k]; i++)
			sl_free(chunks[k][i].nbt);
		n[k] = 0;
	}
}

/* Copy the components of chunk i into the per-kind chunk lists. */
static int
gather_chunk(sl_value *v, uint32_t i, sl_region_chunk *chunks[SL_NCOMP], int n[SL_NCOMP],
			 const char *label)
{
	sl_dirent	d;
	const uint8_t *comp[SL_NCOMP];
	sl_err		err;

	if (sl_value_dirent(v, i, &d, &err) || sl_value_chunk(v, i, &d, comp, &err))
		return tool_fail_err(&err, label);
	for (int k = 0; k < SL_NCOMP; k++)
	{
		sl_region_chunk *c;

		if (d.len[k] == 0)
			continue;
		if (n[k] == SL_REGION_SLOTS)
			return tool_fail("%s: more than 1024 chunks in one region", label);
		c = &chunks[k][n[k]];
		if ((c->nbt = sl_alloc(d.len[k])) == NULL)
			return tool_fail("out of memory");
		memcpy(c->nbt, comp[k], d.len[k]);
		c->nbt_len = d.len[k];
		c->x = d.x;
		c->z = d.z;
		c->timestamp = d.timestamp;
		c->compression = 2;
		n[k]++;
	}
	return 0;
}

/* Write every region file of one dimension into base (its folder). */
static int
write_regions(exporter *ex, sl_value *v, const char *base, int mcr, const char *label,
			  dim_stats *st)
{
	uint32_t	count = v->hdr.chunk_count;
	region_idx *idx = count ? malloc((size_t) count * sizeof(region_idx)) : NULL;
	sl_region_chunk *chunks[SL_NCOMP] = {NULL, NULL, NULL};
	int			n[SL_NCOMP] = {0, 0, 0};
	char	   *kdir[SL_NCOMP] = {NULL, NULL, NULL};
	sl_err		err;
	int			rc = 0;

	if (count && idx == NULL)
		return tool_fail("out of memory");
	for (int k = 0; k < SL_NCOMP && rc == 0; k++)
		if ((chunks[k] = calloc(SL_REGION_SLOTS, sizeof(sl_region_chunk))) == NULL)
			rc = tool_fail("out of memory");
	for (uint32_t i = 0; i < count && rc == 0; i++)
	{
		sl_dirent	d;

		if (sl_value_dirent(v, i, &d, &err))
		{
			rc = tool_fail_err(&err, label);
			break;
		}
		idx[i].rx = region_of(d.x);
		idx[i].rz = region_of(d.z);
		idx[i].i = i;
	}
	if (rc == 0 && count)
		qsort(idx, count, sizeof(region_idx), cmp_region_idx);
	for (uint32_t s = 0; s < count && rc == 0;)
	{
		uint32_t	e = s;

		while (e < count && idx[e].rx == idx[s].rx && idx[e].rz == idx[s].rz && rc == 0)
			rc = gather_chunk(v, idx[e++].i, chunks, n, label);
		for (int k = 0; k < SL_NCOMP && rc == 0; k++)
		{
			if (n[k] == 0)
				continue;
			if (kdir[k] == NULL)
			{
				kdir[k] = tool_path(base, kind_dirs[k]);
				rc = ensure_dir(ex, kdir[k], base);
			}
			if (rc == 0)
				rc = write_region(ex, kdir[k], k, mcr, idx[s].rx, idx[s].rz, chunks[k], n[k], st);
		}
		st->chunks += e - s;
		tool_progress_add(0, (uint64_t) (e - s), 0);
		free_gathered(chunks, n);
		s = e;
	}
	free_gathered(chunks, n);
	/* region/ always: copy-world finds a dimension by its folders */
	if (rc == 0 && kdir[SL_COMP_REGION] == NULL)
	{
		kdir[SL_COMP_REGION] = tool_path(base, kind_dirs[SL_COMP_REGION]);
		rc = ensure_dir(ex, kdir[SL_COMP_REGION], base);
	}
	for (int k = 0; k < SL_NCOMP; k++)
	{
		free(chunks[k]);
		free(kdir[k]);
	}
	free(idx);
	return rc;
}

/*
 * Keep the dimension's world compound for level.dat: the overworld's wins;
 * without it the first other one, and a different one elsewhere is a
 * conflict (decided once every row is read).
 */
static int
note_world(exporter *ex, sl_value *v, const char *dim, int row, const char *label)
{
	const uint8_t *data;
	size_t		len;
	sl_err		err;
	int			overworld = strcmp(dim, "minecraft:overworld") == 0;

	if (sl_value_world(v, &data, &len, &err))
		return tool_fail_err(&err, label);
	if (len == 0)
		return 0;
	if (ex->level && ex->level_len == len && memcmp(ex->level, data, len) == 0)
	{
		if (overworld)
		{
			free(ex->level_dim);
			ex->level_dim = xstrdup(dim);
			ex->level_row = row;
			ex->level_from_overworld = 1;
		}
		return 0;
	}
	if (ex->level && !overworld)
	{
		if (ex->conflict_dim == NULL)
		{
			ex->conflict_dim = xstrdup(dim);
			ex->conflict_row = row;
		}
		return 0;
	}
	if (ex->level)
	{
		/* the overworld's replaces another dimension's: that one conflicts */
		free(ex->conflict_dim);
		ex->conflict_dim = ex->level_dim;
		ex->conflict_row = ex->level_row;
		ex->level_dim = NULL;
		sl_free(ex->level);
	}
	if ((ex->level = sl_alloc(len)) == NULL)
		return tool_fail("out of memory");
	memcpy(ex->level, data, len);
	ex->level_len = len;
	free(ex->level_dim);
	ex->level_dim = xstrdup(dim);
	ex->level_row = row;
	ex->level_from_overworld = overworld;
	return 0;
}

/* Export one row: checks, then the dimension's region files. */
static int
export_row(exporter *ex, int row, const char *world, const char *dim,
		   const uint8_t *data, size_t len)
{
	char		label[512];
	const char *why = NULL;
	char	   *folder,
			   *base;
	sl_value	v;
	sl_err		err;
	dim_stats	st;
	int			mcr = 0,
				rc;
	uint32_t	mixed = 0;

	row_label(label, sizeof(label), row, world, dim);
	if (ex->world == NULL)
		ex->world = xstrdup(world);
	else if (strcmp(ex->world, world) != 0)
		return tool_fail("%s: the stream holds rows of more than one world ('%.200s' came first): "
						 "select one world (WHERE world = ...) or pass --world NAME", label, ex->world);
	if ((folder = dim_folder(dim, &why)) == NULL)
		return tool_fail("%s: unsafe dimension name: %s", label, why);
	for (int i = 0; i < ex->ndims; i++)
		if (strcmp(ex->dims[i], dim) == 0)
		{
			free(folder);
			return tool_fail("%s: dimension '%.200s' comes twice", label, dim);
		}
	push_ptr(&ex->dims, &ex->ndims, xstrdup(dim));
	push_ptr(&ex->dim_dirs, &ex->ndim_dirs, folder);

	if (sl_value_open_mem(&v, data, len, &sl_default_limits, &err))
		return tool_fail("%s: not a readable slime value: %s", label, err.msg);
	if (sl_value_ref_count(&v) > 0)
	{
		rc = tool_fail("%s: %u of its %u chunks are held by reference in the database's chunk "
					   "store and cannot be read outside the database: export "
					   "slime_resolve(data) instead of data", label,
					   sl_value_ref_count(&v), v.hdr.chunk_count);
		sl_value_close(&v);
		return rc;
	}
	if (sl_value_verify(data, len, &sl_default_limits, &err))
	{
		sl_value_close(&v);
		return tool_fail("%s: damaged value: %s", label, err.msg);
	}
	memset(&st, 0, sizeof(st));
	tool_progress_total(0, v.hdr.chunk_count, 0);
	rc = mcregion_dimension(&v, label, &mcr, &mixed);
	base = rc == 0 ? ensure_path(ex, folder) : NULL;
	if (rc == 0 && base == NULL)
		rc = -1;
	if (rc == 0)
		rc = write_regions(ex, &v, base, mcr, label, &st);
	if (rc == 0)
		rc = note_world(ex, &v, dim, row, label);
	if (rc == 0)
	{
		tool_progress_clear();
		fprintf(stderr, "%s -> %s%s%s: %u chunks, %d region, %d entities, %d poi files%s",
				dim, ex->o->dir, folder[0] ? "/" : "", folder, st.chunks,
				st.files[0], st.files[1], st.files[2], mcr ? " (McRegion .mcr)" : "");
		if (st.external)
			fprintf(stderr, ", %d external .mcc", st.external);
		fputc('\n', stderr);
		if (mixed)
			fprintf(stderr, "slimetool: warning: %s: %u McRegion chunks among Anvil chunks, "
					"written into .mca files (Minecraft converts only .mcr files)\n", label, mixed);
		ex->mcr_dims += mcr;
		ex->rows++;
	}
	free(base);
	sl_value_close(&v);
	return rc;
}

/* ---- level.dat ---------------------------------------------------------- */

/* Decide on and stage level.dat once every row is read. */
static int
write_level(exporter *ex)
{
	sl_buf		gz = {NULL, 0, 0};
	sl_err		err;
	int			rc;

	tool_progress_clear();
	if (ex->level == NULL)
	{
		fprintf(stderr, "slimetool: warning: no dimension holds a world compound: no level.dat "
				"written (a server would create a new one, with a new seed)\n");
		return 0;
	}
	if (ex->conflict_dim && !ex->level_from_overworld)
		return tool_fail("no minecraft:overworld row holds a world compound, and rows %d (%s) "
						 "and %d (%s) hold different ones: cannot choose level.dat "
						 "(remove one with slime_with_level(data, NULL))",
						 ex->level_row, ex->level_dim, ex->conflict_row, ex->conflict_dim);
	if (ex->conflict_dim)
		fprintf(stderr, "slimetool: warning: row %d (%s) holds a world compound other than the "
				"overworld's: level.dat is the overworld's\n", ex->conflict_row, ex->conflict_dim);
	else if (!ex->level_from_overworld)
		fprintf(stderr, "slimetool: note: level.dat comes from row %d (%s), the only one with a "
				"world compound (copy-world reads it back into minecraft:overworld)\n",
				ex->level_row, ex->level_dim);
	if (ex->mcr_dims)
	{
		static const char *const path[] = {"Data", "version"};
		int64_t		version = 0;

		if (sl_nbt_find_int(ex->level, ex->level_len, path, 2, &sl_default_limits, &version, &err) != 1 ||
			version != MCREGION_VERSION)
			fprintf(stderr, "slimetool: warning: McRegion .mcr files written, but level.dat's "
					"Data.version is not %d: Minecraft converts .mcr files only when it is\n",
					MCREGION_VERSION);
	}
	if (sl_deflate(SL_DEFLATE_GZIP, 6, ex->level, ex->level_len, &gz, &err))
		return tool_fail_err(&err, "level.dat");
	rc = stage_file(ex, ex->o->dir, "level.dat", gz.data, gz.len);
	sl_buf_free(&gz);
	return rc;
}

/* ---- the COPY stream ----------------------------------------------------- */

typedef struct copy_in
{
	FILE	   *f;
	uint64_t	offset;
} copy_in;

/* Read exactly len bytes; a short read is a stream cut short. */
static int
read_exact(copy_in *in, void *buf, size_t len, const char *what)
{
	size_t		got = len ? fread(buf, 1, len, in->f) : 0;

	in->offset += got;
	tool_progress_add(0, 0, got);
	if (got == len)
		return 0;
	if (ferror(in->f))
		return tool_fail("error reading the COPY stream from stdin: %s", strerror(errno));
	return tool_fail("the COPY stream ends at byte %llu, inside %s: it was cut short "
					 "(did the query fail?); nothing written",
					 (unsigned long long) in->offset, what);
}

/* Read a big-endian int16 / int32. */
static int
read_be(copy_in *in, int bytes, int32_t *out, const char *what)
{
	uint8_t		b[4];

	if (read_exact(in, b, (size_t) bytes, what))
		return -1;
	*out = bytes == 2 ? (int16_t) sl_get_u16be(b) : (int32_t) sl_get_u32be(b);
	return 0;
}

/* Check the binary COPY signature, flags and header extension. */
static int
read_header(copy_in *in)
{
	static const uint8_t sig[11] = {'P', 'G', 'C', 'O', 'P', 'Y', '\n', 0xFF, '\r', '\n', 0};
	uint8_t		got[11];
	size_t		n = fread(got, 1, sizeof(got), in->f);
	int32_t		flags,
				ext;

	in->offset += n;
	if (memcmp(got, sig, n) != 0 || n == 0)
		return tool_fail(n ? "stdin is not a binary COPY stream (use \\copy ... TO STDOUT (FORMAT binary))" :
						 "stdin is empty: no COPY stream (did the query fail?); nothing written");
	if (n < sizeof(sig))
		return read_exact(in, got + n, sizeof(sig) - n, "the header");
	if (read_be(in, 4, &flags, "the header") || read_be(in, 4, &ext, "the header"))
		return -1;
	if (flags & 0xFFFF0000)
		return tool_fail("the COPY stream has header flags 0x%08x (OIDs?): not supported", (unsigned) flags);
	for (; ext > 0; ext--)
	{
		uint8_t		c;

		if (read_exact(in, &c, 1, "the header extension"))
			return -1;
	}
	return ext < 0 ? tool_fail("bad COPY header extension length") : 0;
}

/* Read one text field (NUL-terminated, malloc'd); NULL is refused. */
static int
read_text(copy_in *in, int row, const char *what, char **out)
{
	int32_t		len;

	*out = NULL;
	if (read_be(in, 4, &len, what))
		return -1;
	if (len < 0)
		return tool_fail("row %d: %s is NULL", row, what);
	if (len > MAX_NAME_FIELD)
		return tool_fail("row %d: %s is %d bytes long", row, what, len);
	if ((*out = malloc((size_t) len + 1)) == NULL)
		return tool_fail("out of memory");
	if (read_exact(in, *out, (size_t) len, what))
		return -1;
	(*out)[len] = '\0';
	if (!valid_utf8(*out, (size_t) len))
		return tool_fail("row %d: %s is not UTF-8 text without NUL", row, what);
	return 0;
}

/* Read and export every row until the trailer. */
static int
read_rows(exporter *ex, copy_in *in)
{
	for (int row = 1;; row++)
	{
		int32_t		nfields,
					len;
		char	   *world = NULL,
				   *dim = NULL;
		uint8_t    *data = NULL;
		int			rc;

		if (read_be(in, 2, &nfields, "a row header"))
			return -1;
		if (nfields == -1)
			return fgetc(in->f) == EOF ? 0 :
				tool_fail("the COPY stream goes on after its trailer");
		if (nfields != 3)
			return tool_fail("row %d has %d columns: export-world reads (world text, "
							 "dimension text, data slime)", row, nfields);
		rc = read_text(in, row, "the world name", &world);
		if (rc == 0)
			rc = read_text(in, row, "the dimension name", &dim);
		if (rc == 0)
			rc = read_be(in, 4, &len, "a value");
		if (rc == 0 && len < 0)
			rc = tool_fail("row %d (world '%.200s', dimension '%.200s'): data is NULL", row, world, dim);
		if (rc == 0 && (size_t) len > SL_MAX_VALUE)
			rc = tool_fail("row %d: a %d-byte value is larger than a slime value can be", row, len);
		if (rc == 0 && (data = sl_alloc(len ? (size_t) len : 1)) == NULL)
			rc = tool_fail("out of memory reading a %d-byte value", len);
		if (rc == 0)
			rc = read_exact(in, data, (size_t) len, "a value");
		if (rc == 0 && ex->o->world && strcmp(world, ex->o->world) != 0)
			ex->skipped_rows++;
		else if (rc == 0)
			rc = export_row(ex, row, world, dim, data, (size_t) len);
		sl_free(data);
		free(world);
		free(dim);
		if (rc)
			return rc;
	}
}

/* ---- the command ---------------------------------------------------------- */

/* Print the usage of export-world. */
static int
export_usage(void)
{
	fputs("usage: psql -c \"\\copy (SELECT world, dimension, slime_resolve(data) FROM t WHERE world = 'w') "
		  "TO STDOUT (FORMAT binary)\" |\n"
		  "         slimetool export-world DIR [--force] [--world NAME] [--quiet]\n", stderr);
	return 2;
}

/* Parse the arguments of export-world; 0 ok, else an exit status. */
static int
parse_export_world(int argc, char **argv, export_opts *o)
{
	memset(o, 0, sizeof(*o));
	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "--force") == 0)
			o->force = 1;
		else if (strcmp(argv[i], "--world") == 0 && i + 1 < argc)
			o->world = argv[++i];
		else if (tool_progress_quiet_arg(argv[i]))
			o->quiet = 1;
		else if (argv[i][0] != '-' && o->dir == NULL && argv[i][0] != '\0')
			o->dir = argv[i];
		else
		{
			tool_fail("export-world: unexpected argument %s", argv[i]);
			return export_usage();
		}
	}
	return o->dir ? 0 : export_usage();
}

/* 1 when a directory has no entries. */
static int
dir_is_empty(const char *dir)
{
	char	  **names;
	int			n;

	if (tool_list_dir(dir, &names, &n))
		return -1;
	tool_free_names(names, n);
	return n == 0;
}

/*
 * A Minecraft server holds an OS lock on DIR/session.lock (FileChannel
 * tryLock, an fcntl lock on Linux) while the world is open: refuse then.
 */
static int
check_session_lock(const char *dir)
{
	char	   *path = tool_path(dir, "session.lock");
	int			fd = open(path, O_RDONLY | O_NOFOLLOW);
	struct flock fl;
	int			rc = 0;

	if (fd >= 0)
	{
		memset(&fl, 0, sizeof(fl));
		fl.l_type = F_WRLCK;
		fl.l_whence = SEEK_SET;
		if (fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK)
			rc = tool_fail("%s is locked by process %ld: a server has this world open; stop it first",
						   path, (long) fl.l_pid);
		close(fd);
	}
	free(path);
	return rc;
}

/* Check (and create) the target folder before reading anything. */
static int
prepare_dir(exporter *ex)
{
	const export_opts *o = ex->o;
	struct stat st;
	int			empty;

	if (lstat(o->dir, &st) != 0)
	{
		if (errno != ENOENT)
			return tool_fail("%s: %s", o->dir, strerror(errno));
		if (mkdir(o->dir, 0777) != 0)
			return tool_fail("cannot create %s: %s (its parent must exist)", o->dir, strerror(errno));
		push_ptr(&ex->made, &ex->nmade, xstrdup(o->dir));
		return 0;
	}
	if (!tool_is_dir(o->dir))
		return tool_fail("%s exists and is not a directory", o->dir);
	if ((empty = dir_is_empty(o->dir)) < 0)
		return -1;
	if (!empty && !o->force)
		return tool_fail("%s is not empty: export into a new or empty folder, or pass --force to "
						 "write over the world in it", o->dir);
	return o->force ? check_session_lock(o->dir) : 0;
}

/* Free everything an exporter holds. */
static void
free_exporter(exporter *ex)
{
	free(ex->world);
	for (int i = 0; i < ex->ndims; i++)
		free(ex->dims[i]);
	for (int i = 0; i < ex->ndim_dirs; i++)
		free(ex->dim_dirs[i]);
	free(ex->dims);
	free(ex->dim_dirs);
	for (int i = 0; i < ex->nfiles; i++)
	{
		free(ex->files[i].tmp);
		free(ex->files[i].path);
	}
	free(ex->files);
	for (int i = 0; i < ex->nmade; i++)
		free(ex->made[i]);
	free(ex->made);
	for (int i = 0; i < ex->nsynced; i++)
		free(ex->synced[i]);
	free(ex->synced);
	sl_free(ex->level);
	free(ex->level_dim);
	free(ex->conflict_dim);
}

/* slimetool export-world: a binary COPY stream on stdin as a world folder. */
int
cmd_export_world(int argc, char **argv)
{
	export_opts o;
	exporter	ex;
	copy_in		in = {stdin, 0};
	int			rc;

	if ((rc = parse_export_world(argc, argv, &o)) != 0)
		return rc;
	if (isatty(STDIN_FILENO))
	{
		tool_fail("export-world reads a binary COPY stream on stdin: pipe psql's \\copy into it");
		return export_usage();
	}
	memset(&ex, 0, sizeof(ex));
	ex.o = &o;
	tool_progress_start("export-world", o.quiet);
	rc = prepare_dir(&ex);
	if (rc == 0)
		rc = read_header(&in);
	if (rc == 0)
		rc = read_rows(&ex, &in);
	if (rc == 0 && ex.rows == 0)
		rc = tool_fail("the COPY stream has no rows%s%s%s", o.world ? " of world '" : "",
					   o.world ? o.world : "", o.world ? "'" : "");
	if (rc == 0)
		rc = write_level(&ex);
	if (rc == 0)
		rc = commit(&ex);
	tool_progress_end();
	if (rc == 0)
		fprintf(stderr, "world '%s': %d dimensions, %d files (%llu bytes)%s written to %s\n",
				ex.world, ex.rows, ex.nfiles, (unsigned long long) ex.bytes,
				ex.level ? ", level.dat" : "", o.dir);
	else
	{
		rollback(&ex);
		if (ex.renamed)
			fprintf(stderr, "slimetool: export-world failed after %d of %d files were in place in %s\n",
					ex.renamed, ex.nfiles, o.dir);
		else
			fprintf(stderr, "slimetool: export-world failed: %s left as it was\n", o.dir);
	}
	free_exporter(&ex);
	return rc ? 1 : 0;
}
