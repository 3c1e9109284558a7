/*
 * mapopts.h - the command line of slimetool map-server: its options, their
 * ranges and defaults, --help.
 */
#ifndef MAPOPTS_H
#define MAPOPTS_H

/* Options of map-server. */
typedef struct ms_opts
{
	const char *dsn;
	const char *table;
	const char *key;
	const char *column;
	const char *listen;
	const char *assets;
	int			threads;		/* database workers */
	int			queue;			/* database requests waiting for a worker */
	int			max_conns;		/* open connections in all */
	int			per_addr;		/* open connections from one address */
	int			req_timeout;	/* seconds for a request to arrive whole */
	int			query_timeout;	/* seconds to wait for a worker, and of a query */
	int			max_age;		/* tiles' Cache-Control max-age */
} ms_opts;

/* Parse map-server's arguments; 0 ok (*help: print ms_help), else an exit status (usage on stderr). */
int			ms_parse(int argc, char **argv, ms_opts *o, int *help);

/* Print --help: every option with its range and default. */
void		ms_help(void);

#endif
