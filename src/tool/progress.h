/*
 * progress.h - one progress line on stderr for slimetool's long commands
 * (copy-world, export-world, import-region, render): files and chunks done
 * of their totals, megabytes, rate and time left, rewritten in place with
 * \r at most ten times a second. Shown only when stderr is a terminal and
 * --quiet was not given; otherwise every call does nothing.
 */
#ifndef SLIMETOOL_PROGRESS_H
#define SLIMETOOL_PROGRESS_H

#include <stdint.h>

/* Start the line for command what (quiet: never show it). */
void		tool_progress_start(const char *what, int quiet);

/* Add to the totals (files, chunks, bytes); 0 leaves a total unknown. */
void		tool_progress_total(uint64_t files, uint64_t chunks, uint64_t bytes);

/* Count work done, and redraw when the last drawing is 0.1 s old. */
void		tool_progress_add(uint64_t files, uint64_t chunks, uint64_t bytes);

/* Erase the line (before other output; the next update draws it again). */
void		tool_progress_clear(void);

/* Erase the line for good. */
void		tool_progress_end(void);

/* 1 when a is --quiet (the option every long command takes). */
int			tool_progress_quiet_arg(const char *a);

#endif
