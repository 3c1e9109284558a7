/*
 * mapserver.c - slimetool map-server: every world of a table on a web page.
 *
 *   slimetool map-server --dsn CONNINFO --table T --key K --column C
 *                        --listen HOST:PORT [--threads N] [--queue N]
 *                        [--max-connections N] [--max-per-address N]
 *                        [--request-timeout S] [--query-timeout S]
 *                        [--max-age S] [--assets DIR]
 *
 * GET /                        the page (Leaflet, a world picker, coordinates)
 * GET /static/NAME             its files, read from DIR at start
 * GET /api/worlds[?after=K&limit=N]  a page of worlds: key, chunks, bounds
 * GET /tiles/KEY/Z/X/Y.png     slime_render_tile(C, Z, X, Y) of the row K = KEY
 *
 * libmicrohttpd reads and writes every socket from one thread (epoll) and
 * answers the page and its files there; a request that needs the database
 * is suspended and handed to the workers of workq.c, which draw its answer
 * (mapwork.c, each worker its connection of mapdb.c) and resume it, so
 * that a slow query holds one worker and nothing else. Slow clients are
 * bounded: connections in all and per client address, and slowguard.c's
 * deadline for a request to arrive whole. The routing is webapi.c, the
 * command line mapopts.c. SIGTERM or SIGINT stops the server after the
 * requests in flight.
 */
#include "mapdb.h"
#include "mapopts.h"
#include "mapwork.h"
#include "slowguard.h"
#include "tool.h"
#include "webapi.h"
#include "workq.h"

#include <limits.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "sl_tile.h"

/* A file of the page, read at start. */
typedef struct asset
{
	const char *name;
	const char *type;
	uint8_t    *data;
	size_t		len;
} asset;

static asset assets[] = {
	{"index.html", "text/html; charset=utf-8", NULL, 0},
	{"map.js", "text/javascript; charset=utf-8", NULL, 0},
	{"map.css", "text/css; charset=utf-8", NULL, 0},
	{"leaflet.js", "text/javascript; charset=utf-8", NULL, 0},
	{"leaflet.css", "text/css; charset=utf-8", NULL, 0},
};
#define NASSETS (sizeof(assets) / sizeof(assets[0]))

/* ---- HTTP --------------------------------------------------------------- */

/* The server: the database side, its workers, the request deadline, the log. */
typedef struct server
{
	map_db		db;
	map_work	work;			/* what the workers share */
	workq		wq;
	slowguard	guard;
	int			req_timeout;
	int			query_timeout;
	pthread_mutex_t log_mu;
	pthread_mutex_t handed_mu;
	int			handed;			/* requests handed to a worker, not yet completed */
	double		mhd_log_since;	/* ms: the start of libmicrohttpd's log window */
	int			mhd_log_lines;	/* its lines in that window */
} server;

/* Where a request is. */
typedef enum rq_state
{
	RQ_READING = 0,				/* its headers and body are being read */
	RQ_WORKING,					/* suspended, with a worker or waiting for one */
	RQ_DONE						/* a worker answered it: send the answer */
} rq_state;

/* One request: made when its request line arrives, freed when it completes. */
typedef struct request
{
	wq_job		job;			/* first: a worker's job is the request */
	struct MHD_Connection *conn;
	char	   *target;			/* the request target as sent */
	int			seen;			/* the handler saw its headers */
	rq_state	state;
	double		t0;				/* ms: when it had arrived whole */
	web_req		q;
	char	   *inm;			/* If-None-Match of a tile */
	char	   *after;			/* after= of /api/worlds */
	int			limit;
	map_answer	a;			/* prepared by the event loop or a worker, sent by the event loop */
} request;

/* Queue an answer on conn (its body handed over or copied). */
static enum MHD_Result
send_answer(struct MHD_Connection *conn, map_answer *a)
{
	struct MHD_Response *res;
	enum MHD_Result ret;

	res = MHD_create_response_from_buffer(a->len, a->body, a->must_free ? MHD_RESPMEM_MUST_FREE :
										  MHD_RESPMEM_MUST_COPY);
	if (res == NULL)
		return MHD_NO;
	a->must_free = 0;			/* the response owns it now */
	if (a->type)
		MHD_add_response_header(res, MHD_HTTP_HEADER_CONTENT_TYPE, a->type);
	if (a->etag[0])
		MHD_add_response_header(res, MHD_HTTP_HEADER_ETAG, a->etag);
	if (a->cache[0])
		MHD_add_response_header(res, MHD_HTTP_HEADER_CACHE_CONTROL, a->cache);
	if (a->retry_after)
	{
		char		ra[16];

		snprintf(ra, sizeof(ra), "%d", a->retry_after);
		MHD_add_response_header(res, MHD_HTTP_HEADER_RETRY_AFTER, ra);
	}
	MHD_add_response_header(res, "X-Content-Type-Options", "nosniff");
	ret = MHD_queue_response(conn, a->status, res);
	MHD_destroy_response(res);
	return ret;
}

/* A worker's job: the request's query (unless it waited too long), then resume it. */
static void
work(void *arg, int w, wq_job *job, int expired)
{
	server	   *s = arg;
	request    *rq = (request *) job;

	if (expired)
		map_answer_text(&rq->a, MHD_HTTP_SERVICE_UNAVAILABLE, "the server is busy: try again\n");
	else
	{
		int			slot;
		PGconn	   *c = map_db_get(&s->db, &slot);

		if (c == NULL)
			map_answer_text(&rq->a, MHD_HTTP_SERVICE_UNAVAILABLE, "no database connection\n");
		else if (rq->q.route == WEB_TILE)
			map_work_tile(&s->work, c, &rq->q, rq->inm, &rq->a);
		else
			map_work_worlds(&s->work, c, rq->after, rq->limit, &rq->a);
		map_db_put(&s->db, slot);
	}
	rq->state = RQ_DONE;
	MHD_resume_connection(rq->conn);	/* the event loop calls handle() again */
}

/* Prepare a tile request for a worker; 0 ok, else rq->a holds a 400. */
static int
prepare_tile(struct MHD_Connection *conn, request *rq)
{
	const char *inm = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_IF_NONE_MATCH);

	if (rq->q.z < SL_TILE_ZOOM_MIN || rq->q.z > SL_TILE_ZOOM_MAX)
	{
		map_answer_text(&rq->a, MHD_HTTP_BAD_REQUEST, "zoom is -4..4\n");
		return -1;
	}
	if (inm && (rq->inm = strdup(inm)) == NULL)
	{
		map_answer_text(&rq->a, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
		return -1;
	}
	return 0;
}

/* Prepare a worlds request for a worker; 0 ok, else rq->a holds a 400. */
static int
prepare_worlds(struct MHD_Connection *conn, request *rq)
{
	const char *after = NULL;
	const char *lim = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "limit");
	size_t		alen = 0;

	/* with its length: a decoded NUL is refused, never a shorter key */
	if (MHD_lookup_connection_value_n(conn, MHD_GET_ARGUMENT_KIND, "after", 5, &after, &alen) != MHD_YES)
		after = NULL;
	if (web_parse_limit(lim, &rq->limit) || (after && !web_key_ok(after, alen)))
	{
		map_answer_text(&rq->a, MHD_HTTP_BAD_REQUEST, "limit is 1..10000, after a key\n");
		return -1;
	}
	if (after && (rq->after = strdup(after)) == NULL)
	{
		map_answer_text(&rq->a, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
		return -1;
	}
	return 0;
}

/* The page's files, from memory. */
static void
set_asset(map_answer *a, const char *name)
{
	for (size_t i = 0; i < NASSETS; i++)
		if (strcmp(assets[i].name, name) == 0)
		{
			a->status = MHD_HTTP_OK;
			a->type = assets[i].type;
			a->body = assets[i].data;
			a->len = assets[i].len;
			a->must_free = 0;
			snprintf(a->cache, sizeof(a->cache), "public, max-age=300");
			return;
		}
	map_answer_text(a, MHD_HTTP_NOT_FOUND, "no such file\n");
}

/* Log one request, as a web server's access log does (plus the time it took). */
static void
access_log(server *s, struct MHD_Connection *conn, const char *method, const request *rq,
		   const char *version, double ms)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	char		host[64] = "-",
				path[512],
				when[64];
	time_t		now = time(NULL);
	struct tm	tm;

	if (ci && ci->client_addr)
		getnameinfo(ci->client_addr, ci->client_addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
					sizeof(struct sockaddr_in), host, sizeof(host), NULL, 0, NI_NUMERICHOST);
	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%d/%b/%Y:%H:%M:%S +0000", &tm);
	web_log_escape(path, sizeof(path), rq->q.path, rq->q.path_len);
	pthread_mutex_lock(&s->log_mu);
	fprintf(stderr, "%s - - [%s] \"%s %s %s\" %u %zu %.1fms\n", host, when, method, path, version,
			rq->a.status, rq->a.len, ms);
	fflush(stderr);
	pthread_mutex_unlock(&s->log_mu);
}

/* The request deadline's record of a connection. */
static sg_conn *
conn_guard(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci ? ci->socket_context : NULL;
}

/* Send a request's answer and log it. */
static enum MHD_Result
finish(server *s, struct MHD_Connection *conn, request *rq, const char *method, const char *version)
{
	enum MHD_Result ret = send_answer(conn, &rq->a);

	access_log(s, conn, method, rq, version, wq_now_ms() - rq->t0);
	return ret;
}

/* libmicrohttpd's request handler: route, answer or hand to a worker, log. */
static enum MHD_Result
handle(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
	   const char *version, const char *upload_data, size_t *upload_size, void **con_cls)
{
	server	   *s = cls;
	request    *rq = *con_cls;
	int			get = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0,
				to_worker = 0;

	if (rq == NULL)
		return MHD_NO;			/* out of memory when it started: close */
	if (rq->state == RQ_DONE)
		return finish(s, conn, rq, method, version);
	if (!rq->seen)
	{
		rq->seen = 1;			/* headers seen; answer once the body (if any) is read */
		return MHD_YES;
	}
	if (*upload_size)
	{
		*upload_size = 0;		/* a body is read and dropped */
		return MHD_YES;
	}
	/* the request is here whole: its deadline stops */
	sg_arrived(&s->guard, conn_guard(conn));
	rq->t0 = wq_now_ms();
	switch (web_route_target(rq->target, &rq->q))
	{
		case WEB_PAGE:
			set_asset(&rq->a, "index.html");
			break;
		case WEB_ASSET:
			set_asset(&rq->a, rq->q.asset);
			break;
		case WEB_WORLDS:
			to_worker = get && prepare_worlds(conn, rq) == 0;
			break;
		case WEB_TILE:
			to_worker = get && prepare_tile(conn, rq) == 0;
			break;
		case WEB_BAD:
			map_answer_text(&rq->a, MHD_HTTP_BAD_REQUEST, rq->q.why);
			break;
		default:
			map_answer_text(&rq->a, MHD_HTTP_NOT_FOUND, "not found\n");
			break;
	}
	if (!get)
	{
		map_answer_text(&rq->a, MHD_HTTP_METHOD_NOT_ALLOWED, "GET or HEAD only\n");
		to_worker = 0;
	}
	if (!to_worker)
		return finish(s, conn, rq, method, version);
	/* suspended first: a worker may resume it as soon as it is queued */
	pthread_mutex_lock(&s->handed_mu);
	s->handed++;
	pthread_mutex_unlock(&s->handed_mu);
	rq->conn = conn;
	rq->state = RQ_WORKING;
	rq->job.deadline = rq->t0 + s->query_timeout * 1e3;
	MHD_suspend_connection(conn);
	if (wq_push(&s->wq, &rq->job) != 0)
	{
		map_answer_text(&rq->a, MHD_HTTP_SERVICE_UNAVAILABLE, "the server is busy: try again\n");
		rq->state = RQ_DONE;
		MHD_resume_connection(conn);
	}
	return MHD_YES;
}

/* A request line arrived: its request, with the target as sent (before any decoding). */
static void *
request_start(void *cls, const char *uri, struct MHD_Connection *conn)
{
	request    *rq = calloc(1, sizeof(request));

	if (rq && (rq->target = strdup(uri)) == NULL)
	{
		free(rq);
		rq = NULL;
	}
	return rq;
}

/* A request completed (answered, or its connection failed): free it; the next request's clock starts. */
static void
request_done(void *cls, struct MHD_Connection *conn, void **con_cls, enum MHD_RequestTerminationCode toe)
{
	server	   *s = cls;
	request    *rq = *con_cls;

	if (rq)
	{
		if (rq->state != RQ_READING)
		{
			pthread_mutex_lock(&s->handed_mu);
			s->handed--;
			pthread_mutex_unlock(&s->handed_mu);
		}
		if (rq->a.must_free)
			free(rq->a.body);
		free(rq->target);
		free(rq->inm);
		free(rq->after);
		free(rq);
		*con_cls = NULL;
	}
	sg_answered(&s->guard, conn_guard(conn), wq_now_ms());
}

/* A connection opened or closed: the request deadline follows it. */
static void
connection_event(void *cls, struct MHD_Connection *conn, void **socket_context,
				 enum MHD_ConnectionNotificationCode code)
{
	server	   *s = cls;

	if (code == MHD_CONNECTION_NOTIFY_STARTED)
	{
		const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);

		*socket_context = ci ? sg_open(&s->guard, ci->connect_fd, wq_now_ms()) : NULL;
	}
	else
	{
		sg_close(&s->guard, *socket_context);
		*socket_context = NULL;
	}
}

/*
 * libmicrohttpd's messages (mostly about clients: refused, gone), at most
 * MHD_LOG_BURST lines every 10 s, so that an attack does not fill the log.
 */
#define MHD_LOG_BURST 10
static void
mhd_log(void *cls, const char *fmt, va_list ap)
{
	server	   *s = cls;
	double		now = wq_now_ms();

	pthread_mutex_lock(&s->log_mu);
	if (now - s->mhd_log_since >= 10e3)
	{
		if (s->mhd_log_lines > MHD_LOG_BURST)
			fprintf(stderr, "libmicrohttpd: %d more messages in 10 s not shown\n", s->mhd_log_lines - MHD_LOG_BURST);
		s->mhd_log_since = now;
		s->mhd_log_lines = 0;
	}
	if (s->mhd_log_lines++ < MHD_LOG_BURST)
	{
		fputs("libmicrohttpd: ", stderr);
		vfprintf(stderr, fmt, ap);
		fflush(stderr);
	}
	pthread_mutex_unlock(&s->log_mu);
}

/* The deadline closed connections: one line on the log. */
static void
report_late(void *arg, int n)
{
	server	   *s = arg;

	pthread_mutex_lock(&s->log_mu);
	fprintf(stderr, "map-server: closed %d connection%s whose request had not arrived whole in %d s "
			"(--request-timeout)\n", n, n == 1 ? "" : "s", s->req_timeout);
	fflush(stderr);
	pthread_mutex_unlock(&s->log_mu);
}

/* ---- start and stop ---------------------------------------------------- */

/* Read the page's files from dir (default: webmap/ beside the executable); 0 ok. */
static int
load_assets(const char *dir)
{
	char		exe[PATH_MAX],
				def[PATH_MAX + 16];
	ssize_t		n;

	if (dir == NULL)
	{
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (n <= 0)
			return tool_fail("map-server: cannot find the executable's directory: give --assets DIR");
		exe[n] = '\0';
		*strrchr(exe, '/') = '\0';
		snprintf(def, sizeof(def), "%s/webmap", exe);
		dir = def;
	}
	for (size_t i = 0; i < NASSETS; i++)
	{
		char	   *path = tool_path(dir, assets[i].name);
		int			rc = tool_read_file(path, &assets[i].data, &assets[i].len);

		free(path);
		if (rc)
			return tool_fail("map-server: the page's files are missing from %s (make webmap installs them)", dir);
	}
	return 0;
}

/* Resolve HOST:PORT ([v6]:PORT too) into addr; 0 ok. */
static int
resolve_listen(const char *listen, struct sockaddr_storage *addr, socklen_t *len)
{
	char		host[256];
	const char *colon = strrchr(listen, ':');
	const char *h = listen;
	size_t		hl;
	struct addrinfo hints,
			   *res = NULL;
	int			rc;

	if (colon == NULL || colon == listen || colon[1] == '\0')
		return tool_fail("map-server: --listen %s is not HOST:PORT", listen);
	hl = (size_t) (colon - listen);
	if (h[0] == '[' && colon[-1] == ']')
	{
		h++;
		hl -= 2;
	}
	if (hl >= sizeof(host))
		return tool_fail("map-server: --listen host too long");
	memcpy(host, h, hl);
	host[hl] = '\0';
	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE;
	rc = getaddrinfo(host, colon + 1, &hints, &res);
	if (rc != 0)
		return tool_fail("map-server: --listen %s: %s", listen, gai_strerror(rc));
	memcpy(addr, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

/* Raise the open-file limit to what max_conns connections need; 0 ok. */
static int
raise_nofile(const ms_opts *o)
{
	rlim_t		want = (rlim_t) o->max_conns + (rlim_t) o->threads + 64;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= want)
		return 0;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= want ? want : rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want)
		return tool_fail("map-server: --max-connections %d needs %lu open files, the limit is %lu (ulimit -n)",
						 o->max_conns, (unsigned long) want, (unsigned long) rl.rlim_cur);
	return 0;
}

/* Requests handed to a worker whose answer has not gone out yet. */
static int
handed_count(server *s)
{
	int			n;

	pthread_mutex_lock(&s->handed_mu);
	n = s->handed;
	pthread_mutex_unlock(&s->handed_mu);
	return n;
}

/* slimetool map-server: serve until SIGTERM or SIGINT. */
int
cmd_map_server(int argc, char **argv)
{
	ms_opts		o;
	server		s;
	struct sockaddr_storage addr;
	socklen_t	alen;
	struct MHD_Daemon *d;
	sigset_t	sigs;
	int			sig = 0,
				help,
				rc;
	MHD_socket	lfd;

	if ((rc = ms_parse(argc, argv, &o, &help)) != 0)
		return rc;
	if (help)
	{
		ms_help();
		return 0;
	}
	memset(&s, 0, sizeof(s));
	s.work.db = &s.db;
	s.work.max_age = o.max_age;
	s.work.log_mu = &s.log_mu;
	s.req_timeout = o.req_timeout;
	s.query_timeout = o.query_timeout;
	if (load_assets(o.assets) || resolve_listen(o.listen, &addr, &alen) || raise_nofile(&o) ||
		map_db_open(&s.db, o.dsn, o.table, o.key, o.column, o.threads, o.query_timeout))
		return 1;
	pthread_mutex_init(&s.log_mu, NULL);
	pthread_mutex_init(&s.handed_mu, NULL);
	s.mhd_log_since = wq_now_ms();
	/* the server's threads inherit a mask without these: only sigwait below sees them */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	sg_init(&s.guard, o.req_timeout * 1e3);
	if (wq_start(&s.wq, o.threads, o.queue, work, &s) || sg_start(&s.guard, report_late, &s))
		return tool_fail("map-server: cannot start its threads");
	/*
	 * one event loop (epoll) for every socket; MHD's own timeout is an idle
	 * timeout (each byte resets it), the guard's the whole request's
	 */
	d = MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG |
						 (addr.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0),
						 0, NULL, NULL, handle, &s,
						 MHD_OPTION_EXTERNAL_LOGGER, mhd_log, &s,	/* first, for every message */
						 MHD_OPTION_SOCK_ADDR, (struct sockaddr *) &addr,
						 MHD_OPTION_CONNECTION_LIMIT, (unsigned int) o.max_conns,
						 MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int) o.per_addr,
						 MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int) o.req_timeout,
						 MHD_OPTION_URI_LOG_CALLBACK, request_start, &s,
						 MHD_OPTION_NOTIFY_COMPLETED, request_done, &s,
						 MHD_OPTION_NOTIFY_CONNECTION, connection_event, &s,
						 MHD_OPTION_END);
	if (d == NULL)
	{
		wq_stop(&s.wq);
		return tool_fail("map-server: cannot listen on %s", o.listen);
	}
	fprintf(stderr, "map-server: serving %s.%s by %s on http://%s/ (database workers %d, queue %d; "
			"connections %d, %d per address; request timeout %d s, query timeout %d s)\n",
			o.table, o.column, o.key, o.listen, o.threads, o.queue, o.max_conns, o.per_addr,
			o.req_timeout, o.query_timeout);
	while (sig != SIGTERM && sig != SIGINT)
		if (sigwait(&sigs, &sig) != 0)
			break;
	fprintf(stderr, "map-server: signal %d: stopping\n", sig);
	/*
	 * no new connections; the requests waiting get 503 at once, the queries
	 * running finish (no connection stays suspended), and their answers go
	 * out (for a few seconds at most) before the connections close
	 */
	lfd = MHD_quiesce_daemon(d);
	wq_stop(&s.wq);
	for (int i = 0; i < 500 && handed_count(&s) > 0; i++)
		nanosleep(&(struct timespec) {0, 10000000}, NULL);
	MHD_stop_daemon(d);
	if (lfd != MHD_INVALID_SOCKET)
		close(lfd);
	sg_destroy(&s.guard);
	wq_destroy(&s.wq);
	map_db_close(&s.db);
	for (size_t i = 0; i < NASSETS; i++)
		sl_free(assets[i].data);
	fprintf(stderr, "map-server: stopped\n");
	return 0;
}
