/*
 * workq.c - a bounded job queue and its worker threads (see workq.h).
 */
#include "workq.h"

#include <stdlib.h>
#include <time.h>

/* One worker's start: the queue and the worker's number. */
typedef struct wq_start_arg
{
	workq	   *q;
	int			w;
} wq_start_arg;

/* Milliseconds of the monotonic clock. */
double
wq_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* A worker: take the oldest job, run it, until the queue stops and is empty. */
static void *
wq_main(void *p)
{
	wq_start_arg *a = p;
	workq	   *q = a->q;
	int			w = a->w;

	free(a);
	for (;;)
	{
		wq_job	   *job;
		int			expired;

		pthread_mutex_lock(&q->mu);
		while (q->head == NULL && !q->stopping)
			pthread_cond_wait(&q->cv, &q->mu);
		job = q->head;
		if (job)
		{
			q->head = job->next;
			if (q->head == NULL)
				q->tail = NULL;
			q->len--;
		}
		expired = q->stopping;
		pthread_mutex_unlock(&q->mu);
		if (job == NULL)
			return NULL;
		job->next = NULL;
		q->fn(q->arg, w, job, expired || wq_now_ms() > job->deadline);
	}
}

/* Start the workers; 0 ok. */
int
wq_start(workq *q, int nthreads, int cap, wq_fn fn, void *arg)
{
	q->head = q->tail = NULL;
	q->len = 0;
	q->cap = cap;
	q->stopping = 0;
	q->started = 0;
	q->fn = fn;
	q->arg = arg;
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->cv, NULL);
	q->threads = calloc((size_t) nthreads, sizeof(pthread_t));
	if (q->threads == NULL)
		return -1;
	for (int i = 0; i < nthreads; i++)
	{
		wq_start_arg *a = malloc(sizeof(*a));

		if (a)
		{
			a->q = q;
			a->w = i;
		}
		if (a == NULL || pthread_create(&q->threads[i], NULL, wq_main, a) != 0)
		{
			free(a);
			wq_stop(q);
			return -1;
		}
		q->started++;
	}
	q->nthreads = nthreads;
	return 0;
}

/* Queue a job; -1 when full or stopping. */
int
wq_push(workq *q, wq_job *job)
{
	int			rc = -1;

	job->next = NULL;
	pthread_mutex_lock(&q->mu);
	if (!q->stopping && q->len < q->cap)
	{
		if (q->tail)
			q->tail->next = job;
		else
			q->head = job;
		q->tail = job;
		q->len++;
		pthread_cond_signal(&q->cv);
		rc = 0;
	}
	pthread_mutex_unlock(&q->mu);
	return rc;
}

/* Jobs waiting now. */
int
wq_waiting(workq *q)
{
	int			n;

	pthread_mutex_lock(&q->mu);
	n = q->len;
	pthread_mutex_unlock(&q->mu);
	return n;
}

/* Refuse new jobs, answer the waiting ones expired here and now, join the workers. */
void
wq_stop(workq *q)
{
	wq_job	   *job;

	pthread_mutex_lock(&q->mu);
	q->stopping = 1;
	job = q->head;
	q->head = q->tail = NULL;
	q->len = 0;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
	/* not behind a slow job that holds every worker */
	while (job)
	{
		wq_job	   *next = job->next;

		job->next = NULL;
		q->fn(q->arg, -1, job, 1);
		job = next;
	}
	for (int i = 0; i < q->started; i++)
		pthread_join(q->threads[i], NULL);
	free(q->threads);
	q->threads = NULL;
	q->started = 0;
}

/* Free a stopped queue. */
void
wq_destroy(workq *q)
{
	pthread_mutex_destroy(&q->mu);
	pthread_cond_destroy(&q->cv);
}
