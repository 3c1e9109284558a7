/*
 * mapwork.c - a database worker's part of slimetool map-server (see
 * mapwork.h).
 */
#include "mapwork.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A static text answer (errors), not cached. */
void
map_answer_text(map_answer *a, unsigned status, const char *text)
{
	a->status = status;
	a->type = "text/plain; charset=utf-8";
	a->body = (void *) text;
	a->len = strlen(text);
	a->must_free = 0;
	a->etag[0] = '\0';
	snprintf(a->cache, sizeof(a->cache), "no-store");
	a->retry_after = status == MAP_UNAVAILABLE ? 1 : 0;
}

/* Log a failed query of a tile (q) or of the worlds (q NULL). */
static void
log_db_error(const map_work *w, PGconn *c, const web_req *q)
{
	pthread_mutex_lock(w->log_mu);
	if (q)
		fprintf(stderr, "slimetool: map-server: tile %s/%d/%d/%d: %s", q->key, q->z, q->x, q->y,
				PQerrorMessage(c));
	else
		fprintf(stderr, "slimetool: map-server: worlds: %s", PQerrorMessage(c));
	pthread_mutex_unlock(w->log_mu);
}

/* The answer to a failed tile query: 404 for a key of the wrong type, 503 for a timeout or no database. */
static void
set_db_error(const map_work *w, PGconn *c, PGresult *r, const web_req *q, map_answer *a)
{
	if (map_db_bad_key(r))
		map_answer_text(a, MAP_NOT_FOUND, "no such world\n");
	else if (map_db_timed_out(r))
		map_answer_text(a, MAP_UNAVAILABLE, "the query took longer than --query-timeout\n");
	else
	{
		log_db_error(w, c, q);
		map_answer_text(a, PQstatus(c) == CONNECTION_OK ? MAP_ERROR : MAP_UNAVAILABLE,
						"the tile could not be drawn\n");
	}
}

/* GET /tiles/KEY/Z/X/Y.png */
void
map_work_tile(const map_work *w, PGconn *c, const web_req *q, const char *inm, map_answer *a)
{
	char		zs[16],
				xs[16],
				ys[16],
				hash[65];
	const char *params[5] = {q->key, q->key, zs, xs, ys};
	PGresult   *r;

	snprintf(zs, sizeof(zs), "%d", q->z);
	snprintf(xs, sizeof(xs), "%d", q->x);
	snprintf(ys, sizeof(ys), "%d", q->y);
	if (inm)
	{
		/* the content hash alone (metadata): no drawing when the client has the tile */
		r = map_db_query(w->db, c, w->db->q_hash, 2, params, 0);
		if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1)
		{
			web_etag(a->etag, PQgetvalue(r, 0, 0), q->z, q->x, q->y);
			if (web_etag_match(inm, a->etag))
			{
				PQclear(r);
				a->status = MAP_NOT_MODIFIED;
				snprintf(a->cache, sizeof(a->cache), "public, max-age=%d", w->max_age);
				return;
			}
			a->etag[0] = '\0';
		}
		else if (PQresultStatus(r) == PGRES_TUPLES_OK || map_db_bad_key(r))
		{
			PQclear(r);
			map_answer_text(a, MAP_NOT_FOUND, "no such world\n");
			return;
		}
		PQclear(r);
	}
	r = map_db_query(w->db, c, w->db->q_tile, 5, params, 1);
	if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 && PQgetlength(r, 0, 0) == 64)
	{
		size_t		len = (size_t) PQgetlength(r, 0, 1);
		void	   *png = malloc(len ? len : 1);

		memcpy(hash, PQgetvalue(r, 0, 0), 64);
		hash[64] = '\0';
		if (png == NULL)
			map_answer_text(a, MAP_ERROR, "out of memory\n");
		else
		{
			memcpy(png, PQgetvalue(r, 0, 1), len);
			a->status = MAP_OK;
			a->type = "image/png";
			a->body = png;
			a->len = len;
			a->must_free = 1;
			web_etag(a->etag, hash, q->z, q->x, q->y);
			snprintf(a->cache, sizeof(a->cache), "public, max-age=%d", w->max_age);
		}
	}
	else if (PQresultStatus(r) == PGRES_TUPLES_OK)
		map_answer_text(a, MAP_NOT_FOUND, "no such world\n");
	else
		set_db_error(w, c, r, q, a);
	PQclear(r);
}

/* GET /api/worlds[?after=KEY&limit=N] */
void
map_work_worlds(const map_work *mw, PGconn *c, const char *after, int limit, map_answer *a)
{
	char		ls[16];
	const char *params[2] = {after, ls};
	web_world  *w;
	sl_buf		out = {0};
	sl_err		err;
	PGresult   *r;
	int			n,
				rc = -1;

	snprintf(ls, sizeof(ls), "%d", limit);
	r = map_db_query(mw->db, c, mw->db->q_worlds, 2, params, 0);
	if (PQresultStatus(r) != PGRES_TUPLES_OK)
	{
		if (map_db_timed_out(r))
			map_answer_text(a, MAP_UNAVAILABLE, "the query took longer than --query-timeout\n");
		else
		{
			log_db_error(mw, c, NULL);
			map_answer_text(a, MAP_UNAVAILABLE, "the worlds could not be listed\n");
		}
		PQclear(r);
		return;
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
	if (rc)
	{
		sl_buf_free(&out);
		map_answer_text(a, MAP_ERROR, "out of memory\n");
		return;
	}
	a->status = MAP_OK;
	a->type = "application/json";
	a->body = out.data;
	a->len = out.len;
	a->must_free = 1;
	snprintf(a->cache, sizeof(a->cache), "no-cache");
}
