/*
 * slowguard.c - the request deadline of slimetool map-server (see
 * slowguard.h).
 */
#include "slowguard.h"

#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>


/* Milliseconds of the monotonic clock. */
static double
sg_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* A guard with no connections. */
int
sg_init(slowguard *g, double timeout_ms)
{
	pthread_condattr_t ca;

	g->list.prev = g->list.next = &g->list;
	g->timeout_ms = timeout_ms;
	g->open = g->closed = 0;
	g->stopping = g->running = 0;
	g->report = NULL;
	g->report_arg = NULL;
	pthread_mutex_init(&g->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&g->cv, &ca);
	pthread_condattr_destroy(&ca);
	return 0;
}

/* A connection opened: its first request's clock starts. */
sg_conn *
sg_open(slowguard *g, int fd, double now)
{
	sg_conn    *c = malloc(sizeof(*c));

	if (c == NULL)
		return NULL;
	c->fd = fd;
	c->awaiting = 1;
	c->since = now;
	pthread_mutex_lock(&g->mu);
	c->prev = g->list.prev;
	c->next = &g->list;
	g->list.prev->next = c;
	g->list.prev = c;
	g->open++;
	pthread_mutex_unlock(&g->mu);
	return c;
}

/* A connection closed: forget it (its socket is still open, so a sweep never shuts another). */
void
sg_close(slowguard *g, sg_conn *c)
{
	if (c == NULL)
		return;
	pthread_mutex_lock(&g->mu);
	c->prev->next = c->next;
	c->next->prev = c->prev;
	g->open--;
	pthread_mutex_unlock(&g->mu);
	free(c);
}

/* The request arrived whole: no deadline while it is answered. */
void
sg_arrived(slowguard *g, sg_conn *c)
{
	if (c == NULL)
		return;
	pthread_mutex_lock(&g->mu);
	c->awaiting = 0;
	pthread_mutex_unlock(&g->mu);
}

/* The answer was sent: the next request's clock starts. */
void
sg_answered(slowguard *g, sg_conn *c, double now)
{
	if (c == NULL)
		return;
	pthread_mutex_lock(&g->mu);
	c->awaiting = 1;
	c->since = now;
	pthread_mutex_unlock(&g->mu);
}

/* Shut down the connections whose request is late. */
int
sg_sweep(slowguard *g, double now)
{
	int			n = 0;

	pthread_mutex_lock(&g->mu);
	for (sg_conn *c = g->list.next; c != &g->list; c = c->next)
		if (c->awaiting && now - c->since > g->timeout_ms)
		{
			/* the server's event loop reads the end of the stream and closes it */
			shutdown(c->fd, SHUT_RDWR);
			c->awaiting = 0;
			n++;
		}
	g->closed += n;
	pthread_mutex_unlock(&g->mu);
	return n;
}

/* The sweeping thread: a few sweeps a timeout, at most a second apart. */
static void *
sg_main(void *p)
{
	slowguard  *g = p;
	double		step = g->timeout_ms / 4 < 1000 ? g->timeout_ms / 4 : 1000;

	pthread_mutex_lock(&g->mu);
	while (!g->stopping)
	{
		double		t = sg_now_ms() + step;
		struct timespec ts = {(time_t) (t / 1e3), (long) ((t - (time_t) (t / 1e3) * 1e3) * 1e6)};
		int			n;

		pthread_cond_timedwait(&g->cv, &g->mu, &ts);
		if (g->stopping)
			break;
		pthread_mutex_unlock(&g->mu);
		n = sg_sweep(g, sg_now_ms());
		if (n && g->report)
			g->report(g->report_arg, n);
		pthread_mutex_lock(&g->mu);
	}
	pthread_mutex_unlock(&g->mu);
	return NULL;
}

/* Sweep from a thread of its own. */
int
sg_start(slowguard *g, sg_report report, void *arg)
{
	g->report = report;
	g->report_arg = arg;
	if (pthread_create(&g->thread, NULL, sg_main, g) != 0)
		return -1;
	g->running = 1;
	return 0;
}

/* Stop the thread and free the connections left. */
void
sg_destroy(slowguard *g)
{
	if (g->running)
	{
		pthread_mutex_lock(&g->mu);
		g->stopping = 1;
		pthread_cond_signal(&g->cv);
		pthread_mutex_unlock(&g->mu);
		pthread_join(g->thread, NULL);
		g->running = 0;
	}
	while (g->list.next != &g->list)
		sg_close(g, g->list.next);
	pthread_mutex_destroy(&g->mu);
	pthread_cond_destroy(&g->cv);
}
