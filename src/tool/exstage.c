/*
 * exstage.c - export-world's staging folder: files written and synced
 * under DIR/.slime-export.PID/ first, renamed into their places once the
 * whole stream has been read and checked (exstage.h).
 */
#define _XOPEN_SOURCE 700

#include "exstage.h"
#include "tool.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* Remember that dir's entries changed. */
void
stage_changed(stage *s, const char *dir)
{
	for (int i = 0; i < s->nsynced; i++)
		if (strcmp(s->synced[i], dir) == 0)
			return;
	push_ptr(&s->synced, &s->nsynced, xstrdup(dir));
}

/* Remember a folder this run created. */
void
stage_made(stage *s, const char *path)
{
	push_ptr(&s->made, &s->nmade, xstrdup(path));
}

/* Start staging into root: create DIR/.slime-export.PID. */
int
stage_open(stage *s, const char *root)
{
	char		name[64];

	s->root = xstrdup(root);
	snprintf(name, sizeof(name), ".slime-export.%ld", (long) getpid());
	s->dir = tool_path(root, name);
	if (mkdir(s->dir, 0700) != 0)
	{
		int			e = errno;

		tool_fail("cannot create the staging folder %s: %s", s->dir, strerror(e));
		free(s->dir);
		s->dir = NULL;
		return -1;
	}
	return 0;
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

/* Write a file into the staging folder, synced to disk. */
int
stage_put(stage *s, int dim, const char *sub, const uint8_t *data, size_t len)
{
	char		name[32];
	char	   *tmp;
	int			fd;

	if (s->n == s->cap)
	{
		staged	   *nf;

		s->cap = s->cap ? s->cap * 2 : 64;
		nf = realloc(s->files, (size_t) s->cap * sizeof(staged));
		if (nf == NULL)
			return tool_fail("out of memory");
		s->files = nf;
	}
	snprintf(name, sizeof(name), "%d", s->n);
	tmp = tool_path(s->dir, name);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0666);
	if (fd < 0)
	{
		tool_fail("%s: %s", tmp, strerror(errno));
		free(tmp);
		return -1;
	}
	s->files[s->n].tmp = tmp;
	s->files[s->n].dim = dim;
	s->files[s->n].sub = xstrdup(sub);
	s->files[s->n].final = NULL;
	s->files[s->n++].len = len;
	if (write_all(fd, data, len) || fsync(fd) != 0)
	{
		int			e = errno;

		close(fd);
		return tool_fail("%s: write error: %s", tmp, strerror(e));
	}
	if (close(fd) != 0)
		return tool_fail("%s: %s", tmp, strerror(errno));
	s->bytes += len;
	return 0;
}

/* Create a directory unless it exists; remember the ones created. */
static int
ensure_dir(stage *s, const char *path, const char *parent)
{
	if (mkdir(path, 0777) == 0)
	{
		stage_made(s, path);
		stage_changed(s, parent);
		return 0;
	}
	if (errno == EEXIST && tool_is_dir(path))
		return 0;
	return tool_fail("cannot create directory %s: %s", path, strerror(errno));
}

/* Create DIR/rel and every folder on the way. */
int
stage_ensure(stage *s, const char *rel)
{
	char	   *path = xstrdup(s->root);
	const char *p = rel;
	int			rc = 0;

	while (*p && rc == 0)
	{
		const char *slash = strchr(p, '/');
		size_t		len = slash ? (size_t) (slash - p) : strlen(p);
		char	   *part = xstrdup(p);
		char	   *next;

		part[len] = '\0';
		next = tool_path(path, part);
		free(part);
		rc = ensure_dir(s, next, path);
		free(path);
		path = next;
		p = slash ? slash + 1 : p + len;
	}
	free(path);
	return rc;
}

/* Give every staged file with a final path its name; drop the others. */
int
stage_commit(stage *s)
{
	for (int i = 0; i < s->n; i++)
	{
		staged	   *f = &s->files[i];
		char	   *slash,
				   *rel,
				   *parent,
				   *path;
		int			rc = 0;

		if (f->final == NULL)
		{
			unlink(f->tmp);
			continue;
		}
		rel = xstrdup(f->final);
		slash = strrchr(rel, '/');
		if (slash)
		{
			*slash = '\0';
			rc = stage_ensure(s, rel);
		}
		parent = slash ? tool_path(s->root, rel) : xstrdup(s->root);
		path = tool_path(s->root, f->final);
		free(rel);
		if (rc == 0 && rename(f->tmp, path) != 0)
			rc = tool_fail("cannot rename %s to %s: %s", f->tmp, path, strerror(errno));
		if (rc == 0)
		{
			stage_changed(s, parent);
			s->renamed++;
		}
		free(parent);
		free(path);
		if (rc)
			return rc;
	}
	if (rmdir(s->dir) != 0)
		return tool_fail("cannot remove the staging folder %s: %s", s->dir, strerror(errno));
	free(s->dir);
	s->dir = NULL;
	stage_changed(s, s->root);
	return 0;
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

/* fsync every folder whose entries changed. */
int
stage_sync(stage *s)
{
	for (int i = 0; i < s->nsynced; i++)
		if (sync_dir(s->synced[i]))
			return -1;
	return 0;
}

/* Undo a failed run. */
void
stage_rollback(stage *s)
{
	for (int i = 0; i < s->n; i++)
		unlink(s->files[i].tmp);
	if (s->dir)
		rmdir(s->dir);
	for (int i = s->nmade - 1; i >= 0; i--)
		rmdir(s->made[i]);
}

/* Free what a stage holds. */
void
stage_free(stage *s)
{
	for (int i = 0; i < s->n; i++)
	{
		free(s->files[i].tmp);
		free(s->files[i].sub);
		free(s->files[i].final);
	}
	free(s->files);
	for (int i = 0; i < s->nmade; i++)
		free(s->made[i]);
	free(s->made);
	for (int i = 0; i < s->nsynced; i++)
		free(s->synced[i]);
	free(s->synced);
	free(s->dir);
	free(s->root);
}
