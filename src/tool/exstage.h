/*
 * exstage.h - export-world's files on their way into the world folder.
 * Every file is first written (and synced) into a staging folder inside
 * the target, DIR/.slime-export.PID/; where it goes is decided once the
 * whole stream has been read (the layout depends on the world's
 * DataVersion, known only then). Commit renames each into its place,
 * creating the folders on the way; rollback removes what the run made.
 */
#ifndef SLIMETOOL_EXSTAGE_H
#define SLIMETOOL_EXSTAGE_H

#include <stddef.h>
#include <stdint.h>

/* One staged file. */
typedef struct staged
{
	char	   *tmp;			/* its bytes, in the staging folder */
	int			dim;			/* the dimension it belongs to, -1: a world file */
	char	   *sub;			/* in the dimension's folder ("region/r.0.0.mca"), or the world file's path */
	char	   *final;			/* relative to DIR, set before commit (NULL: dropped) */
	size_t		len;
} staged;

typedef struct stage
{
	char	   *root;			/* DIR */
	char	   *dir;			/* the staging folder, NULL until opened */
	staged	   *files;
	int			n;
	int			cap;
	char	  **made;			/* folders this run created, in order */
	int			nmade;
	char	  **synced;			/* folders whose entries changed */
	int			nsynced;
	uint64_t	bytes;			/* bytes staged */
	int			renamed;		/* files given their names so far */
} stage;

/* Start staging into root (which exists); creates the staging folder. */
int			stage_open(stage *s, const char *root);

/* Remember a folder this run created (removed again on rollback). */
void		stage_made(stage *s, const char *path);

/* Write a file into the staging folder (synced); dim -1 for a world file. */
int			stage_put(stage *s, int dim, const char *sub, const uint8_t *data, size_t len);

/* Create DIR/rel and every folder on the way (remembered); 0 or -1. */
int			stage_ensure(stage *s, const char *rel);

/*
 * Give every staged file with a final path its name (creating its folder),
 * dropping the others; then remove the staging folder.
 */
int			stage_commit(stage *s);

/* Remember that dir's entries changed (it is synced by stage_sync). */
void		stage_changed(stage *s, const char *dir);

/* fsync every folder whose entries changed. */
int			stage_sync(stage *s);

/* Undo a failed run: staged files, the staging folder, the folders made. */
void		stage_rollback(stage *s);

/* Free what a stage holds. */
void		stage_free(stage *s);

#endif
