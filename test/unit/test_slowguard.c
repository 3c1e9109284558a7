/*
 * test_slowguard.c - slimetool map-server's request deadline
 * (src/tool/slowguard.c) over socket pairs: a request late by the clock
 * given to sg_sweep has its socket shut down (the peer reads the end), one
 * being answered is not, the clock restarts after an answer, and the
 * sweeping thread does the same on its own.
 */
#include "harness.h"
#include "slowguard.h"

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

/* 1 when the peer end p reads the end of the stream (within 5 s), 0 when nothing is there. */
static int
peer_sees_end(int p, int wait)
{
	struct pollfd pfd = {p, POLLIN, 0};
	char		b;

	if (poll(&pfd, 1, wait ? 5000 : 0) != 1)
		return 0;
	return recv(p, &b, 1, 0) == 0;
}

/* The deadline by an explicit clock: late requests shut down, answered ones spared. */
void
test_slowguard_sweep(void)
{
	slowguard	g;
	int			a[2],
				b[2];
	sg_conn    *ca,
			   *cb;

	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, a) == 0 && socketpair(AF_UNIX, SOCK_STREAM, 0, b) == 0);
	sg_init(&g, 1000);
	ca = sg_open(&g, a[0], 0);
	cb = sg_open(&g, b[0], 0);
	CHECK(ca && cb && g.open == 2);
	sg_arrived(&g, cb);			/* b's request is here: answered, no deadline */
	CHECK(sg_sweep(&g, 1000) == 0);	/* not later than the timeout yet */
	CHECK(!peer_sees_end(a[1], 0) && !peer_sees_end(b[1], 0));
	CHECK(sg_sweep(&g, 1001) == 1);
	CHECK(peer_sees_end(a[1], 1));	/* a's client reads the end */
	CHECK(!peer_sees_end(b[1], 0));
	CHECK(sg_sweep(&g, 9000) == 0);	/* a is not shut twice, b is being answered */
	sg_answered(&g, cb, 5000);	/* b answered at 5000: its next request's clock */
	CHECK(sg_sweep(&g, 6000) == 0 && !peer_sees_end(b[1], 0));
	CHECK(sg_sweep(&g, 6001) == 1 && peer_sees_end(b[1], 1));
	CHECK(g.closed == 2);
	sg_close(&g, ca);
	sg_close(&g, cb);
	CHECK(g.open == 0);
	sg_destroy(&g);
	close(a[0]);
	close(a[1]);
	close(b[0]);
	close(b[1]);
}

/* A report of the sweeping thread: how many it closed. */
static void
count_closed(void *arg, int n)
{
	__atomic_add_fetch((int *) arg, n, __ATOMIC_SEQ_CST);
}

/* The sweeping thread shuts a late request down by itself. */
void
test_slowguard_thread(void)
{
	slowguard	g;
	int			a[2];
	int			reported = 0;
	sg_conn    *c;

	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, a) == 0);
	sg_init(&g, 40);
	c = sg_open(&g, a[0], -1e6);	/* opened long ago: late */
	CHECK(sg_start(&g, count_closed, &reported) == 0);
	CHECK(peer_sees_end(a[1], 1));
	sg_close(&g, c);
	sg_destroy(&g);				/* joins the thread */
	CHECK(__atomic_load_n(&reported, __ATOMIC_SEQ_CST) == 1);
	close(a[0]);
	close(a[1]);
}
