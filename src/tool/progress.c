/*
 * progress.c - slimetool's progress line (see progress.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "progress.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static struct
{
	int			on;				/* stderr is a terminal, no --quiet */
	const char *what;
	uint64_t	files,
				files_total,
				chunks,
				chunks_total,
				bytes,
				bytes_total;
	double		start;
	double		drawn_at;
	int			drawn;			/* the line is on screen */
} pr;

/* Seconds on a monotonic clock. */
static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Start the line for command what. */
void
tool_progress_start(const char *what, int quiet)
{
	memset(&pr, 0, sizeof(pr));
	pr.on = !quiet && isatty(STDERR_FILENO);
	pr.what = what;
	pr.start = now();
}

/* Add to the totals. */
void
tool_progress_total(uint64_t files, uint64_t chunks, uint64_t bytes)
{
	pr.files_total += files;
	pr.chunks_total += chunks;
	pr.bytes_total += bytes;
}

/* "done/total", or "done" when the total is unknown. */
static void
put_count(const char *label, uint64_t done, uint64_t total)
{
	if (total)
		fprintf(stderr, "  %s %llu/%llu", label, (unsigned long long) done, (unsigned long long) total);
	else
		fprintf(stderr, "  %s %llu", label, (unsigned long long) done);
}

/* Fraction of the work done, from the first total known; -1 when none is. */
static double
fraction(void)
{
	if (pr.bytes_total)
		return (double) pr.bytes / pr.bytes_total;
	if (pr.chunks_total)
		return (double) pr.chunks / pr.chunks_total;
	if (pr.files_total)
		return (double) pr.files / pr.files_total;
	return -1;
}

/* Draw the line. */
static void
draw(double t)
{
	double		elapsed = t - pr.start;
	double		f = fraction();

	fprintf(stderr, "\r%s:", pr.what);
	if (pr.files || pr.files_total)
		put_count("files", pr.files, pr.files_total);
	put_count("chunks", pr.chunks, pr.chunks_total);
	if (pr.bytes || pr.bytes_total)
	{
		fprintf(stderr, "  %.1f", pr.bytes / 1e6);
		if (pr.bytes_total)
			fprintf(stderr, "/%.1f", pr.bytes_total / 1e6);
		fprintf(stderr, " MB");
		if (elapsed > 0.05)
			fprintf(stderr, "  %.1f MB/s", pr.bytes / 1e6 / elapsed);
	}
	else if (elapsed > 0.05)
		fprintf(stderr, "  %.0f chunks/s", pr.chunks / elapsed);
	if (f > 0.001 && f < 1)
	{
		long		left = (long) (elapsed * (1 - f) / f + 0.5);

		fprintf(stderr, "  %ld:%02ld left", left / 60, left % 60);
	}
	fputs("\033[K", stderr);
	fflush(stderr);
	pr.drawn = 1;
	pr.drawn_at = t;
}

/* Count work done and redraw now and then. */
void
tool_progress_add(uint64_t files, uint64_t chunks, uint64_t bytes)
{
	double		t;

	pr.files += files;
	pr.chunks += chunks;
	pr.bytes += bytes;
	if (!pr.on)
		return;
	t = now();
	if (!pr.drawn || t - pr.drawn_at >= 0.1)
		draw(t);
}

/* Erase the line. */
void
tool_progress_clear(void)
{
	if (pr.on && pr.drawn)
	{
		fputs("\r\033[K", stderr);
		fflush(stderr);
		pr.drawn = 0;
	}
}

/* Erase the line for good. */
void
tool_progress_end(void)
{
	tool_progress_clear();
	pr.on = 0;
}

/* 1 when a is --quiet. */
int
tool_progress_quiet_arg(const char *a)
{
	return strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0;
}
