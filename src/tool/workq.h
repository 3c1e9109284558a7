/*
 * workq.h - the database workers of slimetool map-server: a bounded queue
 * of jobs and a fixed number of threads that run them, apart from the
 * thread that reads and writes the sockets. A full queue refuses a job at
 * once (the server answers 503), and a job that waited past its deadline
 * runs "expired" (answered without its work), so a slow query holds one
 * worker and never the requests behind it for long.
 */
#ifndef WORKQ_H
#define WORKQ_H

#include <pthread.h>

/* A job: embedded first in the caller's own struct. */
typedef struct wq_job
{
	struct wq_job *next;
	double		deadline;		/* wq_now_ms() by which a worker must have taken it */
} wq_job;

/*
 * Run a job on worker number w (0..nthreads-1, or -1 in wq_stop's thread);
 * expired: it waited past its deadline or the queue is stopping, answer it
 * without the work.
 */
typedef void (*wq_fn) (void *arg, int w, wq_job *job, int expired);

typedef struct workq
{
	pthread_mutex_t mu;
	pthread_cond_t cv;
	wq_job	   *head;
	wq_job	   *tail;
	int			len;
	int			cap;
	int			stopping;
	int			nthreads;
	int			started;
	pthread_t  *threads;
	wq_fn		fn;
	void	   *arg;
} workq;

/* Milliseconds of the monotonic clock. */
double		wq_now_ms(void);

/* Start nthreads workers over a queue of at most cap waiting jobs; 0 ok (else wq_destroy it). */
int			wq_start(workq *q, int nthreads, int cap, wq_fn fn, void *arg);

/* Queue a job; 0 queued, -1 when the queue is full or stopping (the caller answers it). */
int			wq_push(workq *q, wq_job *job);

/* Jobs waiting now. */
int			wq_waiting(workq *q);

/*
 * Refuse new jobs, run the waiting ones expired at once in the caller's
 * thread, wait for the running ones, join.
 */
void		wq_stop(workq *q);

/* Free a stopped queue. */
void		wq_destroy(workq *q);

#endif
