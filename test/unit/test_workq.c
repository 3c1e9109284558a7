/*
 * test_workq.c - slimetool map-server's database workers (src/tool/workq.c):
 * a full queue refuses at once, jobs run in order, a job past its deadline
 * runs expired, and a stop answers the waiting jobs at once, expired. A gate holds the worker, so
 * nothing here depends on timing.
 */
#include "harness.h"
#include "workq.h"

#include <pthread.h>
#include <sched.h>

/* A job of these tests: its number, and how it ran. */
typedef struct tjob
{
	wq_job		job;			/* first */
	int			id;
	int			ran;			/* 1: ran, 2: ran expired */
} tjob;

/* What the jobs share: a gate that job 0 waits at, and the order of runs. */
typedef struct tstate
{
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int			gate_open;
	int			in_gate;
	int			order[8];
	int			n;
} tstate;

/* Run a job: record it; job 0 waits at the gate. */
static void
run_job(void *arg, int w, wq_job *job, int expired)
{
	tstate	   *t = arg;
	tjob	   *j = (tjob *) job;

	pthread_mutex_lock(&t->mu);
	if (j->id == 0)
	{
		t->in_gate = 1;
		pthread_cond_broadcast(&t->cv);
		while (!t->gate_open)
			pthread_cond_wait(&t->cv, &t->mu);
	}
	j->ran = expired ? 2 : 1;
	if (t->n < 8)
		t->order[t->n++] = j->id;
	pthread_cond_broadcast(&t->cv);
	pthread_mutex_unlock(&t->mu);
}

/* Wait until job 0 holds the worker at the gate. */
static void
wait_gate(tstate *t)
{
	pthread_mutex_lock(&t->mu);
	while (!t->in_gate)
		pthread_cond_wait(&t->cv, &t->mu);
	pthread_mutex_unlock(&t->mu);
}

/* Open the gate. */
static void
open_gate(tstate *t)
{
	pthread_mutex_lock(&t->mu);
	t->gate_open = 1;
	pthread_cond_broadcast(&t->cv);
	pthread_mutex_unlock(&t->mu);
}

/* Wait until n jobs have run. */
static void
wait_runs(tstate *t, int n)
{
	pthread_mutex_lock(&t->mu);
	while (t->n < n)
		pthread_cond_wait(&t->cv, &t->mu);
	pthread_mutex_unlock(&t->mu);
}

/* A fresh state and jobs 0..n-1 with a deadline far ahead. */
static void
setup(tstate *t, tjob *j, int n)
{
	memset(t, 0, sizeof(*t));
	pthread_mutex_init(&t->mu, NULL);
	pthread_cond_init(&t->cv, NULL);
	for (int i = 0; i < n; i++)
	{
		memset(&j[i], 0, sizeof(j[i]));
		j[i].id = i;
		j[i].job.deadline = wq_now_ms() + 3600e3;
	}
}

/* A full queue refuses at once; the waiting jobs run in order; a late one runs expired. */
void
test_workq_bounds(void)
{
	workq		q;
	tstate		t;
	tjob		j[5];

	setup(&t, j, 5);
	CHECK(wq_start(&q, 1, 2, run_job, &t) == 0);
	CHECK(wq_push(&q, &j[0].job) == 0);
	wait_gate(&t);				/* the only worker is busy */
	CHECK(wq_push(&q, &j[1].job) == 0);
	j[2].job.deadline = 0;		/* long past: runs expired */
	CHECK(wq_push(&q, &j[2].job) == 0);
	CHECK(wq_waiting(&q) == 2);
	CHECK(wq_push(&q, &j[3].job) == -1);	/* full: the caller answers 503 */
	CHECK(j[3].ran == 0);
	open_gate(&t);
	wait_runs(&t, 3);
	CHECK(t.order[0] == 0 && t.order[1] == 1 && t.order[2] == 2);
	CHECK(j[0].ran == 1 && j[1].ran == 1 && j[2].ran == 2);
	CHECK(wq_push(&q, &j[4].job) == 0);	/* room again */
	wait_runs(&t, 4);
	CHECK(j[4].ran == 1 && wq_waiting(&q) == 0);
	wq_stop(&q);
	CHECK(wq_push(&q, &j[3].job) == -1);	/* stopped */
	wq_destroy(&q);
}

/* wq_stop in a thread of its own. */
static void *
stopper(void *arg)
{
	wq_stop(arg);
	return NULL;
}

/* A stop refuses new jobs, answers the waiting ones at once (expired), and waits for the running one. */
void
test_workq_stop(void)
{
	workq		q;
	tstate		t;
	tjob		j[4];
	pthread_t	th;
	int			stopping = 0;

	setup(&t, j, 4);
	CHECK(wq_start(&q, 1, 8, run_job, &t) == 0);
	CHECK(wq_push(&q, &j[0].job) == 0);
	wait_gate(&t);
	CHECK(wq_push(&q, &j[1].job) == 0 && wq_push(&q, &j[2].job) == 0);
	CHECK(pthread_create(&th, NULL, stopper, &q) == 0);
	while (!stopping)
	{
		pthread_mutex_lock(&q.mu);
		stopping = q.stopping;
		pthread_mutex_unlock(&q.mu);
		if (!stopping)
			sched_yield();
	}
	CHECK(wq_push(&q, &j[3].job) == -1);
	wait_runs(&t, 2);			/* answered while the worker is still held */
	CHECK(j[1].ran == 2 && j[2].ran == 2 && j[0].ran == 0);
	open_gate(&t);
	pthread_join(th, NULL);
	CHECK(j[0].ran == 1);		/* the running job finished its work */
	CHECK(j[1].ran == 2 && j[2].ran == 2);	/* the waiting ones were answered without it */
	CHECK(j[3].ran == 0 && t.n == 3);
	wq_destroy(&q);
}
