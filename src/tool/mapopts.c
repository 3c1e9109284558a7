/*
 * mapopts.c - the command line of slimetool map-server (see mapopts.h).
 */
#include "mapopts.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tool.h"

/* The numeric options: name, its argument, field, range, default, what it bounds. */
static const struct ms_num
{
	const char *name;
	const char *arg;
	size_t		off;
	int			min;
	int			max;
	int			def;
	const char *help;			/* lines of the --help text */
}			ms_nums[] = {
	{"--threads", "N", offsetof(ms_opts, threads), 1, 64, 4,
	"database workers, each with its own connection"},
	{"--queue", "N", offsetof(ms_opts, queue), 1, 100000, 64,
	"database requests waiting for a worker; the next get 503"},
	{"--max-connections", "N", offsetof(ms_opts, max_conns), 1, 100000, 1024,
	"open connections in all (the open-file limit is raised to fit)"},
	{"--max-per-address", "N", offsetof(ms_opts, per_addr), 1, 100000, 32,
	"open connections from one client address; more are closed at once"},
	{"--request-timeout", "S", offsetof(ms_opts, req_timeout), 1, 3600, 10,
	"seconds for a request to arrive whole (line, headers, body),\n"
	"counted from the connection's start or its previous answer,\n"
	"however often the client sends a byte; also the idle timeout"},
	{"--query-timeout", "S", offsetof(ms_opts, query_timeout), 1, 3600, 30,
	"seconds a database request may wait for a worker, and that its\n"
	"query may run (statement_timeout); past either, 503"},
	{"--max-age", "S", offsetof(ms_opts, max_age), 0, 31536000, 60,
	"Cache-Control max-age of tiles"},
};
#define NNUMS (sizeof(ms_nums) / sizeof(ms_nums[0]))

/* Print the usage of map-server on f; full: every option, with its default. */
static void
ms_print_usage(FILE *f, int full)
{
	fputs("usage: slimetool map-server --dsn CONNINFO --table T --key K --column C --listen HOST:PORT\n"
		  "                            [--threads N] [--queue N] [--max-connections N] [--max-per-address N]\n"
		  "                            [--request-timeout S] [--query-timeout S] [--max-age S] [--assets DIR]\n",
		  f);
	if (!full)
		return;
	fputs("\nServes every world of table T (key K, slime column C) on a web map at http://HOST:PORT/.\n\n"
		  "  --dsn CONNINFO         libpq connection string (a role that may only read)\n"
		  "  --table T              the table (schema.table allowed) or a view, one row a key\n"
		  "  --key K                its key column: a tile's KEY is the key's text form\n"
		  "  --column C             its slime column\n"
		  "  --listen HOST:PORT     the address to listen on ([v6]:PORT too)\n"
		  "  --assets DIR           the page's files (default: webmap/ beside slimetool)\n", f);
	for (size_t i = 0; i < NNUMS; i++)
	{
		char		opt[32];
		const char *h = ms_nums[i].help;

		snprintf(opt, sizeof(opt), "%s %s", ms_nums[i].name, ms_nums[i].arg);
		fprintf(f, "  %-22s ", opt);
		for (const char *nl; (nl = strchr(h, '\n')) != NULL; h = nl + 1)
			fprintf(f, "%.*s\n%25s", (int) (nl - h), h, "");
		fprintf(f, "%s (default %d, %d..%d)\n", h, ms_nums[i].def, ms_nums[i].min, ms_nums[i].max);
	}
}

/* Print a usage error; returns the exit status for it. */
static int
ms_usage(const char *why, const char *arg)
{
	fputs("slimetool: map-server: ", stderr);
	fprintf(stderr, why, arg);
	fputc('\n', stderr);
	ms_print_usage(stderr, 0);
	return 2;
}

/* Parse the arguments; 0 ok, else an exit status (--help: 0 and *help). */
int
ms_parse(int argc, char **argv, ms_opts *o, int *help)
{
	memset(o, 0, sizeof(*o));
	*help = 0;
	for (size_t k = 0; k < NNUMS; k++)
		*(int *) ((char *) o + ms_nums[k].off) = ms_nums[k].def;
	for (int i = 1; i < argc; i++)
	{
		const char *a = argv[i];
		const char **dst = NULL;
		int32_t		v;
		size_t		k;

		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
		{
			*help = 1;
			return 0;
		}
		if (i + 1 >= argc)
			return ms_usage("%s needs a value", a);
		for (k = 0; k < NNUMS && strcmp(a, ms_nums[k].name) != 0; k++)
			;
		if (k < NNUMS)
		{
			if (tool_parse_int(argv[++i], &v) || v < ms_nums[k].min || v > ms_nums[k].max)
				return ms_usage("bad number %s", argv[i]);
			*(int *) ((char *) o + ms_nums[k].off) = v;
			continue;
		}
		if (strcmp(a, "--dsn") == 0)
			dst = &o->dsn;
		else if (strcmp(a, "--table") == 0)
			dst = &o->table;
		else if (strcmp(a, "--key") == 0)
			dst = &o->key;
		else if (strcmp(a, "--column") == 0)
			dst = &o->column;
		else if (strcmp(a, "--listen") == 0)
			dst = &o->listen;
		else if (strcmp(a, "--assets") == 0)
			dst = &o->assets;
		else
			return ms_usage("unknown argument %s", a);
		*dst = argv[++i];
	}
	if (!o->dsn || !o->table || !o->key || !o->column || !o->listen)
		return ms_usage("--dsn, --table, --key, --column and --listen are required%s", "");
	return 0;
}

/* Print --help. */
void
ms_help(void)
{
	ms_print_usage(stdout, 1);
}
