/*
 * mapserver.c - slimetool map-server: every world of a table on a web page.
 *
 *   slimetool map-server --dsn CONNINFO --table T --key K --column C
 *                        --listen HOST:PORT [--threads N] [--max-age S]
 *                        [--assets DIR]
 *
 * GET /                        the page (Leaflet, a world picker, coordinates)
 * GET /static/NAME             its files, read from DIR at start
 * GET /api/worlds[?after=K&limit=N]  a page of worlds: key, chunks, bounds
 * GET /tiles/KEY/Z/X/Y.png     slime_render_tile(C, Z, X, Y) of the row K = KEY
 *
 * libmicrohttpd parses HTTP (a pool of threads); the database side is
 * mapdb.c (one connection a thread, parameterised queries, read-only
 * sessions), the request logic webapi.c. SIGTERM or SIGINT stops the
 * server after the requests in flight.
 */
#include "mapdb.h"
#include "tool.h"
#include "webapi.h"

#include <limits.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "sl_tile.h"

#define DEFAULT_THREADS	4
#define DEFAULT_MAX_AGE	60

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

/* The server: the database side and what the handlers share. */
typedef struct server
{
	map_db		db;
	int			max_age;
	pthread_mutex_t log_mu;
} server;

/* Options of map-server. */
typedef struct ms_opts
{
	const char *dsn;
	const char *table;
	const char *key;
	const char *column;
	const char *listen;
	const char *assets;
	int			threads;
	int			max_age;
} ms_opts;

/* Print the usage of map-server; returns the exit status for a usage error. */
static int
ms_usage(const char *why, const char *arg)
{
	if (why)
	{
		fputs("slimetool: map-server: ", stderr);
		fprintf(stderr, why, arg);
		fputc('\n', stderr);
	}
	fputs("usage: slimetool map-server --dsn CONNINFO --table T --key K --column C --listen HOST:PORT\n"
		  "                            [--threads N] [--max-age SECONDS] [--assets DIR]\n", stderr);
	return 2;
}

/* Parse the arguments; 0 ok, else an exit status. */
static int
parse_ms(int argc, char **argv, ms_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->threads = DEFAULT_THREADS;
	o->max_age = DEFAULT_MAX_AGE;
	for (int i = 1; i < argc; i++)
	{
		const char *a = argv[i];
		const char **dst = NULL;
		int32_t		v;

		if (i + 1 >= argc)
			return ms_usage("%s needs a value", a);
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
		else if (strcmp(a, "--threads") == 0 || strcmp(a, "--max-age") == 0)
		{
			if (tool_parse_int(argv[++i], &v) || v < (a[2] == 't') || v > (a[2] == 't' ? 64 : 31536000))
				return ms_usage("bad number %s", argv[i]);
			*(a[2] == 't' ? &o->threads : &o->max_age) = v;
			continue;
		}
		else
			return ms_usage("unknown argument %s", a);
		*dst = argv[++i];
	}
	if (!o->dsn || !o->table || !o->key || !o->column || !o->listen)
		return ms_usage("--dsn, --table, --key, --column and --listen are required%s", "");
	return 0;
}

/* ---- HTTP --------------------------------------------------------------- */

/* What a request answered, for its log line. */
typedef struct reply
{
	unsigned	status;
	size_t		bytes;
} reply;

/*
 * Queue a response: body (copied unless must_free, then handed over),
 * content type, and optional ETag and Cache-Control.
 */
static enum MHD_Result
respond(struct MHD_Connection *conn, reply *rp, unsigned status, const char *type,
		void *body, size_t len, int must_free, const char *etag, const char *cache)
{
	struct MHD_Response *res;
	enum MHD_Result ret;

	res = MHD_create_response_from_buffer(len, body, must_free ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_MUST_COPY);
	if (res == NULL)
		return MHD_NO;
	if (type)
		MHD_add_response_header(res, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (etag)
		MHD_add_response_header(res, MHD_HTTP_HEADER_ETAG, etag);
	if (cache)
		MHD_add_response_header(res, MHD_HTTP_HEADER_CACHE_CONTROL, cache);
	MHD_add_response_header(res, "X-Content-Type-Options", "nosniff");
	ret = MHD_queue_response(conn, status, res);
	MHD_destroy_response(res);
	rp->status = status;
	rp->bytes = len;
	return ret;
}

/* A plain-text answer (errors). */
static enum MHD_Result
respond_text(struct MHD_Connection *conn, reply *rp, unsigned status, const char *text)
{
	return respond(conn, rp, status, "text/plain; charset=utf-8", (void *) text, strlen(text), 0, NULL,
				   "no-store");
}

/* GET /tiles/KEY/Z/X/Y.png */
static enum MHD_Result
serve_tile(server *s, struct MHD_Connection *conn, const web_req *q, reply *rp)
{
	const char *inm = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_IF_NONE_MATCH);
	char		zs[16],
				xs[16],
				ys[16],
				etag[WEB_ETAG_MAX],
				hash[65],
				cache[64];
	const char *params[4] = {q->key, zs, xs, ys};
	PGconn	   *c;
	PGresult   *r = NULL;
	int			slot;
	enum MHD_Result ret;

	if (q->z < SL_TILE_ZOOM_MIN || q->z > SL_TILE_ZOOM_MAX)
		return respond_text(conn, rp, MHD_HTTP_BAD_REQUEST, "zoom is -4..4\n");
	snprintf(zs, sizeof(zs), "%d", q->z);
	snprintf(xs, sizeof(xs), "%d", q->x);
	snprintf(ys, sizeof(ys), "%d", q->y);
	snprintf(cache, sizeof(cache), "public, max-age=%d", s->max_age);
	c = map_db_get(&s->db, &slot);
	if (inm)
	{
		/* the content hash alone (metadata): no drawing when the client has the tile */
		r = map_db_query(c, s->db.q_hash, 1, params, 0);
		if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1)
		{
			web_etag(etag, PQgetvalue(r, 0, 0), q->z, q->x, q->y);
			if (web_etag_match(inm, etag))
			{
				PQclear(r);
				map_db_put(&s->db, slot);
				return respond(conn, rp, MHD_HTTP_NOT_MODIFIED, NULL, NULL, 0, 0, etag, cache);
			}
		}
		else if (PQresultStatus(r) == PGRES_TUPLES_OK || map_db_bad_key(r))
		{
			PQclear(r);
			map_db_put(&s->db, slot);
			return respond_text(conn, rp, MHD_HTTP_NOT_FOUND, "no such world\n");
		}
		PQclear(r);
	}
	r = map_db_query(c, s->db.q_tile, 4, params, 1);
	if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 && PQgetlength(r, 0, 0) == 64)
	{
		size_t		len = (size_t) PQgetlength(r, 0, 1);
		void	   *png = malloc(len ? len : 1);

		memcpy(hash, PQgetvalue(r, 0, 0), 64);
		hash[64] = '\0';
		web_etag(etag, hash, q->z, q->x, q->y);
		if (png)
			memcpy(png, PQgetvalue(r, 0, 1), len);
		PQclear(r);
		map_db_put(&s->db, slot);
		if (png == NULL)
			return respond_text(conn, rp, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
		return respond(conn, rp, MHD_HTTP_OK, "image/png", png, len, 1, etag, cache);
	}
	if (PQresultStatus(r) == PGRES_TUPLES_OK || map_db_bad_key(r))
		ret = respond_text(conn, rp, MHD_HTTP_NOT_FOUND, "no such world\n");
	else
	{
		pthread_mutex_lock(&s->log_mu);
		fprintf(stderr, "slimetool: map-server: tile %s/%d/%d/%d: %s", q->key, q->z, q->x, q->y,
				c ? PQerrorMessage(c) : "no database connection\n");
		pthread_mutex_unlock(&s->log_mu);
		ret = respond_text(conn, rp, c && PQstatus(c) == CONNECTION_OK ? MHD_HTTP_INTERNAL_SERVER_ERROR :
						   MHD_HTTP_SERVICE_UNAVAILABLE, "the tile could not be drawn\n");
	}
	PQclear(r);
	map_db_put(&s->db, slot);
	return ret;
}

/* GET /api/worlds[?after=KEY&limit=N] */
static enum MHD_Result
serve_worlds(server *s, struct MHD_Connection *conn, reply *rp)
{
	const char *after = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "after");
	const char *lim = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "limit");
	char		ls[16];
	const char *params[2] = {after, ls};
	web_world  *w;
	sl_buf		out = {0};
	sl_err		err;
	PGconn	   *c;
	PGresult   *r;
	int			limit,
				slot,
				n,
				rc = -1;

	if (web_parse_limit(lim, &limit) || (after && !web_key_ok(after, strlen(after))))
		return respond_text(conn, rp, MHD_HTTP_BAD_REQUEST, "limit is 1..10000, after a key\n");
	snprintf(ls, sizeof(ls), "%d", limit);
	c = map_db_get(&s->db, &slot);
	r = map_db_query(c, s->db.q_worlds, 2, params, 0);
	if (PQresultStatus(r) != PGRES_TUPLES_OK)
	{
		pthread_mutex_lock(&s->log_mu);
		fprintf(stderr, "slimetool: map-server: worlds: %s", c ? PQerrorMessage(c) : "no database connection\n");
		pthread_mutex_unlock(&s->log_mu);
		PQclear(r);
		map_db_put(&s->db, slot);
		return respond_text(conn, rp, MHD_HTTP_SERVICE_UNAVAILABLE, "the worlds could not be listed\n");
	}
	n = PQntuples(r);
	w = calloc((size_t) n + 1, sizeof(web_world));
	if (w)
	{
		for (int i = 0; i < n; i++)
		{
			w[i].key = PQgetvalue(r, i, 0);
			w[i].chunks = strtoll(PQgetvalue(r, i, 1), NULL, 10);
			w[i].has_bounds = !PQgetisnull(r, i, 2) && w[i].chunks > 0;
			w[i].min_cx = (int32_t) strtol(PQgetvalue(r, i, 2), NULL, 10);
			w[i].min_cz = (int32_t) strtol(PQgetvalue(r, i, 3), NULL, 10);
			w[i].max_cx = (int32_t) strtol(PQgetvalue(r, i, 4), NULL, 10);
			w[i].max_cz = (int32_t) strtol(PQgetvalue(r, i, 5), NULL, 10);
		}
		rc = web_json_worlds(&out, w, (size_t) n, n == limit ? w[n - 1].key : NULL, &err);
		free(w);
	}
	PQclear(r);
	map_db_put(&s->db, slot);
	if (rc)
	{
		sl_buf_free(&out);
		return respond_text(conn, rp, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	}
	return respond(conn, rp, MHD_HTTP_OK, "application/json", out.data, out.len, 1, NULL, "no-cache");
}

/* GET / and /static/NAME */
static enum MHD_Result
serve_asset(struct MHD_Connection *conn, const char *name, reply *rp)
{
	for (size_t i = 0; i < NASSETS; i++)
		if (strcmp(assets[i].name, name) == 0)
			return respond(conn, rp, MHD_HTTP_OK, assets[i].type, assets[i].data, assets[i].len, 0, NULL,
						   "public, max-age=300");
	return respond_text(conn, rp, MHD_HTTP_NOT_FOUND, "no such file\n");
}

/* Log one request, as a web server's access log does (plus the time it took). */
static void
access_log(server *s, struct MHD_Connection *conn, const char *method, const char *url,
		   const char *version, const reply *rp, double ms)
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
	web_log_escape(path, sizeof(path), url);
	pthread_mutex_lock(&s->log_mu);
	fprintf(stderr, "%s - - [%s] \"%s %s %s\" %u %zu %.1fms\n", host, when, method, path, version,
			rp->status, rp->bytes, ms);
	fflush(stderr);
	pthread_mutex_unlock(&s->log_mu);
}

/* Milliseconds of a monotonic clock. */
static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* libmicrohttpd's request handler: route, answer, log. */
static enum MHD_Result
handle(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
	   const char *version, const char *upload_data, size_t *upload_size, void **con_cls)
{
	static int	first;
	server	   *s = cls;
	web_req		q;
	reply		rp = {0, 0};
	double		t0 = now_ms();
	enum MHD_Result ret;

	if (*con_cls == NULL)
	{
		*con_cls = &first;		/* headers seen; answer on the next call */
		return MHD_YES;
	}
	if (*upload_size)
	{
		*upload_size = 0;		/* a body is read and dropped */
		return MHD_YES;
	}
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		ret = respond_text(conn, &rp, MHD_HTTP_METHOD_NOT_ALLOWED, "GET or HEAD only\n");
	else
		switch (web_route_path(url, &q))
		{
			case WEB_PAGE:
				ret = serve_asset(conn, "index.html", &rp);
				break;
			case WEB_ASSET:
				ret = serve_asset(conn, q.asset, &rp);
				break;
			case WEB_WORLDS:
				ret = serve_worlds(s, conn, &rp);
				break;
			case WEB_TILE:
				ret = serve_tile(s, conn, &q, &rp);
				break;
			case WEB_BAD:
				ret = respond_text(conn, &rp, MHD_HTTP_BAD_REQUEST, q.why);
				break;
			default:
				ret = respond_text(conn, &rp, MHD_HTTP_NOT_FOUND, "not found\n");
				break;
		}
	access_log(s, conn, method, url, version, &rp, now_ms() - t0);
	return ret;
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
				rc;

	if ((rc = parse_ms(argc, argv, &o)) != 0)
		return rc;
	memset(&s, 0, sizeof(s));
	s.max_age = o.max_age;
	if (load_assets(o.assets) || resolve_listen(o.listen, &addr, &alen) ||
		map_db_open(&s.db, o.dsn, o.table, o.key, o.column, o.threads))
		return 1;
	pthread_mutex_init(&s.log_mu, NULL);
	/* the server's threads inherit a mask without these: only sigwait below sees them */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	d = MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG |
						 (addr.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0),
						 0, NULL, NULL, handle, &s,
						 MHD_OPTION_SOCK_ADDR, (struct sockaddr *) &addr,
						 MHD_OPTION_THREAD_POOL_SIZE, (unsigned int) o.threads,
						 MHD_OPTION_CONNECTION_LIMIT, (unsigned int) 256,
						 MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int) 30,
						 MHD_OPTION_END);
	if (d == NULL)
		return tool_fail("map-server: cannot listen on %s", o.listen);
	fprintf(stderr, "map-server: serving %s.%s by %s on http://%s/ (%d threads)\n", o.table, o.column,
			o.key, o.listen, o.threads);
	while (sig != SIGTERM && sig != SIGINT)
		if (sigwait(&sigs, &sig) != 0)
			break;
	fprintf(stderr, "map-server: signal %d: stopping\n", sig);
	MHD_stop_daemon(d);			/* waits for the requests in flight */
	map_db_close(&s.db);
	for (size_t i = 0; i < NASSETS; i++)
		sl_free(assets[i].data);
	fprintf(stderr, "map-server: stopped\n");
	return 0;
}
