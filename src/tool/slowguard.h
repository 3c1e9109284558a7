/*
 * slowguard.h - the request deadline of slimetool map-server. HTTP
 * servers' connection timeouts are idle timeouts: a client that sends one
 * header byte now and then holds its connection for ever. Here each
 * connection's clock starts when it opens, and again when an answer to it
 * has been sent; a request that has not arrived whole (request line,
 * headers, body) within the timeout has its socket shut down, however
 * busy its sender. A thread sweeps the open connections a few times a
 * timeout.
 */
#ifndef SLOWGUARD_H
#define SLOWGUARD_H

#include <pthread.h>

/* One open connection. */
typedef struct sg_conn
{
	struct sg_conn *prev;
	struct sg_conn *next;
	int			fd;
	int			awaiting;		/* 1: a request is being read; 0: it is being answered */
	double		since;			/* ms: when that request's clock started */
} sg_conn;

/* Called after a sweep that shut connections down: how many. */
typedef void (*sg_report) (void *arg, int closed);

typedef struct slowguard
{
	pthread_mutex_t mu;
	pthread_cond_t cv;
	sg_conn		list;			/* sentinel of the open connections */
	double		timeout_ms;
	long		open;
	long		closed;			/* connections shut down so far */
	int			stopping;
	int			running;
	pthread_t	thread;
	sg_report	report;
	void	   *report_arg;
} slowguard;

/* A guard with this timeout, no connections, no thread yet. */
int			sg_init(slowguard *g, double timeout_ms);

/* A connection opened at now (ms): its first request's clock starts; NULL out of memory. */
sg_conn    *sg_open(slowguard *g, int fd, double now);

/* A connection closed (before its socket is). */
void		sg_close(slowguard *g, sg_conn *c);

/* The request arrived whole: its clock stops while it is answered. */
void		sg_arrived(slowguard *g, sg_conn *c);

/* The answer was sent at now: the next request's clock starts. */
void		sg_answered(slowguard *g, sg_conn *c, double now);

/* Shut down every connection whose request is later than the timeout at now; how many. */
int			sg_sweep(slowguard *g, double now);

/* Sweep from a thread of its own (report may be NULL); 0 ok. */
int			sg_start(slowguard *g, sg_report report, void *arg);

/* Stop the thread (if any) and free what is left. */
void		sg_destroy(slowguard *g);

#endif
