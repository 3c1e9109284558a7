/*
 * mapdb.c - the database side of slimetool map-server (see mapdb.h):
 * connections, queries, reconnection.
 */
#include "mapdb.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Make a session read-only with the statement timeout; 0 ok. */
static int
db_session(PGconn *c, int timeout_s)
{
	char		sql[128];
	PGresult   *r;
	int			ok;

	snprintf(sql, sizeof(sql), "SET default_transaction_read_only = on; SET statement_timeout = '%ds'", timeout_s);
	r = PQexec(c, sql);
	ok = PQresultStatus(r) == PGRES_COMMAND_OK;

	if (!ok)
		fprintf(stderr, "slimetool: map-server: session set-up: %s", PQerrorMessage(c));
	PQclear(r);
	return ok ? 0 : -1;
}

/* Connect read-only; NULL (and a message) on failure. */
static PGconn *
db_connect(const char *dsn, int timeout_s)
{
	PGconn	   *c = PQconnectdb(dsn);

	if (PQstatus(c) != CONNECTION_OK)
	{
		fprintf(stderr, "slimetool: map-server: cannot connect: %s", PQerrorMessage(c));
		PQfinish(c);
		return NULL;
	}
	if (db_session(c, timeout_s))
	{
		PQfinish(c);
		return NULL;
	}
	return c;
}

/* A quoted identifier, or a quoted schema.name; malloc'd, NULL on failure. */
static char *
quote_name(PGconn *c, const char *name, int qualified)
{
	const char *dot = qualified ? strchr(name, '.') : NULL;
	char	   *a,
			   *b,
			   *out;

	if (dot == NULL)
	{
		a = PQescapeIdentifier(c, name, strlen(name));
		out = a ? strdup(a) : NULL;
		PQfreemem(a);
		return out;
	}
	a = PQescapeIdentifier(c, name, (size_t) (dot - name));
	b = PQescapeIdentifier(c, dot + 1, strlen(dot + 1));
	out = a && b ? malloc(strlen(a) + strlen(b) + 2) : NULL;
	if (out)
		sprintf(out, "%s.%s", a, b);
	PQfreemem(a);
	PQfreemem(b);
	return out;
}

/* printf into a malloc'd string. */
static char *
xprintf(const char *fmt,...) __attribute__((format(printf, 1, 2)));
static char *
xprintf(const char *fmt,...)
{
	va_list		ap;
	int			n;
	char	   *s;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	s = malloc((size_t) n + 1);
	if (s == NULL)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(s, (size_t) n + 1, fmt, ap);
	va_end(ap);
	return s;
}

/*
 * Build the queries (identifiers quoted once, the extension's schema named)
 * and check them against the database; 0 ok.
 */
int
map_db_open(map_db *s, const char *dsn, const char *table, const char *key, const char *column,
			int nconn, int timeout_s)
{
	PGconn	   *c = db_connect(dsn, timeout_s);
	PGresult   *r;
	char	   *t,
			   *k,
			   *col,
			   *ext = NULL;
	int			rc = -1;

	if (c == NULL)
		return -1;
	r = PQexec(c, "SELECT quote_ident(n.nspname) FROM pg_extension e "
			   "JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'slime'");
	if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1)
		ext = strdup(PQgetvalue(r, 0, 0));
	else
		fprintf(stderr, "slimetool: map-server: the slime extension is not installed in this database\n");
	PQclear(r);
	t = quote_name(c, table, 1);
	k = quote_name(c, key, 0);
	col = quote_name(c, column, 0);
	if (ext && t && k && col)
	{
		/*
		 * $1 compared as the key column's type finds the row through its
		 * index; $2, the same text, must also be the key's text form, as
		 * /api/worlds lists it: ' 7', '+7' and '07' are not the key 7
		 */
		s->q_hash = xprintf("SELECT encode(%s.slime_content_hash(%s), 'hex') FROM %s "
							"WHERE %s = $1 AND %s::text = $2::text AND %s IS NOT NULL LIMIT 1",
							ext, col, t, k, k, col);
		s->q_tile = xprintf("SELECT encode(%s.slime_content_hash(%s), 'hex'), "
							"%s.slime_render_tile(%s, $3::int, $4::int, $5::int) FROM %s "
							"WHERE %s = $1 AND %s::text = $2::text AND %s IS NOT NULL LIMIT 1",
							ext, col, ext, col, t, k, k, col);
		s->q_worlds = xprintf("SELECT k, i ->> 'chunks', i -> 'bounds' ->> 'min_x', i -> 'bounds' ->> 'min_z', "
							  "i -> 'bounds' ->> 'max_x', i -> 'bounds' ->> 'max_z' "
							  "FROM (SELECT k, %s.slime_info(w) AS i FROM (SELECT %s::text AS k, %s AS w FROM %s "
							  "WHERE %s IS NOT NULL AND ($1::text IS NULL OR %s::text > $1::text) "
							  "ORDER BY 1 LIMIT $2::int) p OFFSET 0) q ORDER BY k",
							  ext, k, col, t, col, k);
	}
	if (s->q_hash && s->q_tile && s->q_worlds)
	{
		/* the table, key and column exist and the role may read them */
		char	   *probe = xprintf("SELECT %s, %s FROM %s LIMIT 0", k, col, t);

		r = PQexec(c, probe);
		if (PQresultStatus(r) == PGRES_TUPLES_OK)
			rc = 0;
		else
			fprintf(stderr, "slimetool: map-server: %s", PQerrorMessage(c));
		PQclear(r);
		free(probe);
	}
	free(ext);
	free(t);
	free(k);
	free(col);
	PQfinish(c);
	s->dsn = dsn;
	s->timeout_s = timeout_s;
	s->nconn = nconn;
	s->conns = calloc((size_t) nconn, sizeof(PGconn *));
	s->busy = calloc((size_t) nconn, sizeof(int));
	if (rc == 0 && (s->conns == NULL || s->busy == NULL))
	{
		fprintf(stderr, "slimetool: map-server: out of memory\n");
		rc = -1;
	}
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	return rc;
}

/* Close every connection and free the queries. */
void
map_db_close(map_db *s)
{
	for (int i = 0; s->conns && i < s->nconn; i++)
		if (s->conns[i])
			PQfinish(s->conns[i]);
	free(s->conns);
	free(s->busy);
	free(s->q_hash);
	free(s->q_tile);
	free(s->q_worlds);
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cv);
}

/* A connection of the pool (waits for a free one); its slot in *slot. */
PGconn *
map_db_get(map_db *s, int *slot)
{
	PGconn	   *c;

	pthread_mutex_lock(&s->mu);
	for (;;)
	{
		for (*slot = 0; *slot < s->nconn && s->busy[*slot]; (*slot)++)
			;
		if (*slot < s->nconn)
			break;
		pthread_cond_wait(&s->cv, &s->mu);
	}
	s->busy[*slot] = 1;
	pthread_mutex_unlock(&s->mu);
	c = s->conns[*slot];
	if (c && PQstatus(c) != CONNECTION_OK)
	{
		PQfinish(c);
		c = NULL;
	}
	if (c == NULL)
		c = db_connect(s->dsn, s->timeout_s);
	s->conns[*slot] = c;
	return c;
}

/* Give a connection back. */
void
map_db_put(map_db *s, int slot)
{
	pthread_mutex_lock(&s->mu);
	s->busy[slot] = 0;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

/*
 * Run a parameterised query; NULL when there is no connection. A query that
 * finds its connection gone (the server restarted) reconnects and runs once
 * more.
 */
PGresult *
map_db_query(map_db *s, PGconn *c, const char *sql, int n, const char *const *params, int binary)
{
	PGresult   *r;

	if (c == NULL)
		return NULL;
	r = PQexecParams(c, sql, n, NULL, params, NULL, NULL, binary);
	if (PQresultStatus(r) != PGRES_TUPLES_OK && PQstatus(c) == CONNECTION_BAD)
	{
		PQclear(r);
		PQreset(c);
		if (PQstatus(c) != CONNECTION_OK || db_session(c, s->timeout_s))
			return NULL;
		r = PQexecParams(c, sql, n, NULL, params, NULL, NULL, binary);
	}
	return r;
}

/* 1 when a failed query's SQLSTATE says the key does not fit the key column's type. */
int
map_db_bad_key(const PGresult *r)
{
	const char *st = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;

	return st && strncmp(st, "22", 2) == 0;
}

/* 1 when a query failed for the statement timeout. */
int
map_db_timed_out(const PGresult *r)
{
	const char *st = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;

	return st && strcmp(st, "57014") == 0;
}
