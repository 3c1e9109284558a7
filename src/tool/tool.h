/*
 * tool.h - shared pieces of slimetool, the command-line companion of the
 * slime extension: file and directory helpers and region-file reading.
 */
#ifndef SLIMETOOL_H
#define SLIMETOOL_H

#include <stddef.h>
#include <stdint.h>

#include "sl_build.h"
#include "sl_common.h"
#include "sl_region.h"
#include "sl_slimefile.h"
#include "sl_sniff.h"
#include "sl_value.h"

/* Print "slimetool: <message>" on stderr and return -1. */
int			tool_fail(const char *fmt,...) __attribute__((format(printf, 1, 2)));

/* Print a core library error with a context prefix and return -1. */
int			tool_fail_err(const sl_err *err, const char *context);

/* Read a whole file (sl_alloc'd; a 0-byte file gives a non-NULL buffer). */
int			tool_read_file(const char *path, uint8_t **data, size_t *len);

/* Write a whole file, replacing it. */
int			tool_write_file(const char *path, const uint8_t *data, size_t len);

/* Join a directory and a name into a malloc'd path. */
char	   *tool_path(const char *dir, const char *name);

/* strdup or exit (names are small; the tool cannot go on without them). */
char	   *xstrdup(const char *s);

/* 1 when path is a directory, 0 otherwise. */
int			tool_is_dir(const char *path);

/* mkdir that accepts an existing directory. */
int			tool_mkdir(const char *path);

/* Sorted names in a directory (without . and ..); free with tool_free_names. */
int			tool_list_dir(const char *dir, char ***names, int *n);
void		tool_free_names(char **names, int n);

/* Parse a whole string as a 32-bit int; 0 on success. */
int			tool_parse_int(const char *s, int32_t *out);

/*
 * Parse "<prefix>.<a>.<b>.<ext>" exactly (as in r.-1.2.mca or c.5.7.mcc);
 * returns 1 on a match.
 */
int			tool_parse_coords(const char *name, const char *prefix, const char *ext,
							  int32_t *a, int32_t *b);

/* Split a path into a malloc'd directory and a pointer to its base name. */
char	   *tool_split_path(const char *path, const char **base);

/* Count the region-format files (r.X.Z.mca / .mcr) of dir and their bytes into *files, *bytes. */
void		tool_count_regions(const char *dir, uint64_t *files, uint64_t *bytes);

/* Counters for reading region-format files into a builder. */
typedef struct tool_stats
{
	int			files;			/* region-format files read */
	int			bad_files;		/* unreadable files skipped (lenient) */
	int			chunks;			/* chunk documents read, all kinds */
	int			skipped;		/* damaged chunks left out (lenient) */
	int			repaired;		/* chunks read after a repair */
	uint64_t	file_bytes;		/* bytes of the files read */
} tool_stats;

/* Say which command reads a file of a kind other than a region file. */
void		tool_reader_hint(sl_sniff_kind kind);

/*
 * Read the region-format file dir/name as component comp of region rx,rz
 * into the builder. External chunks c.X.Z.mcc of that region are loaded
 * from dir (dir_names lists it). Strict: the first damaged chunk fails with
 * the file, chunk and offset. Lenient: damaged chunks (and unreadable
 * files) are skipped and listed on stderr.
 */

int			tool_read_region(sl_builder *b, int comp, const char *dir, const char *name,
							 int32_t rx, int32_t rz, char **dir_names, int ndir,
							 int strict, tool_stats *st);

/*
 * tool_read_region of the file at path: a missing file is named, its folder
 * listed for the .mcc files of region rx,rz.
 */
int			tool_read_region_path(sl_builder *b, int comp, const char *path,
								  int32_t rx, int32_t rz, int strict, tool_stats *st);

/* Which world files a command takes (tool_world_open). */
typedef struct tool_world_opts
{
	const char *cmd;			/* the command, for messages */
	int			regions;		/* 1: region files too */
	int			takes_coords;	/* 1: the command has --rx/--rz */
	const char *rx_arg;			/* --rx/--rz given, else NULL */
	const char *rz_arg;
} tool_world_opts;

/* A world file open as a value in memory. */
typedef struct tool_world
{
	sl_sniff_kind kind;			/* VALUE, SLIMEFILE, or UNKNOWN for a region file */
	int			region;			/* 1: read as the region file rx,rz */
	int32_t		rx;
	int32_t		rz;
	sl_slimefile_info info;		/* what a slime file held */
	uint8_t    *file;			/* the file's bytes */
	size_t		file_len;
	sl_buf		built;			/* the value a slime or region file became */
	const uint8_t *bytes;		/* the value's bytes (file or built) */
	size_t		len;
	sl_value	v;				/* the value, open */
	int			open;
} tool_world;

/*
 * Open a world file, recognised by its bytes: a slime value, a slime file
 * (AdvancedSlimePaper / SWM, read into a value) or, with o->regions, a
 * region file named r.X.Z.mca/.mcr or given --rx/--rz (read strictly).
 * Other files are refused, saying what they look like and what reads them.
 */
int			tool_world_open(const char *path, const tool_world_opts *o, tool_world *w);

/* Say on stderr what a world file was when it was not a value. */
void		tool_world_note(const char *path, const tool_world *w);

/* Close a world opened by tool_world_open. */
void		tool_world_close(tool_world *w);

/* gen-world: its fixed region file timestamps. */
#define GEN_FIXED_TIME		1700000000u	/* seconds; region header timestamps */

/* Subcommands living outside slimetool.c. */
int			cmd_copy_world(int argc, char **argv);
int			cmd_export_world(int argc, char **argv);
int			cmd_gen_world(int argc, char **argv);
int			cmd_import_slime(int argc, char **argv);
int			cmd_export_slime(int argc, char **argv);
int			cmd_render(int argc, char **argv);
int			cmd_map_server(int argc, char **argv);

#endif
