/*
 * mapwork.h - what a database worker of slimetool map-server does for a
 * request: a tile (If-None-Match answered from the content hash alone) or a
 * page of worlds, from mapdb.c's queries to an HTTP answer (status, type,
 * body, ETag, Cache-Control, Retry-After). No libmicrohttpd here:
 * mapserver.c sends the answer.
 */
#ifndef MAPWORK_H
#define MAPWORK_H

#include <pthread.h>
#include <stddef.h>

#include "mapdb.h"
#include "webapi.h"

#define MAP_OK				200
#define MAP_NOT_MODIFIED	304
#define MAP_NOT_FOUND		404
#define MAP_ERROR			500
#define MAP_UNAVAILABLE		503	/* with Retry-After: 1 */

/* An HTTP answer. */
typedef struct map_answer
{
	unsigned	status;
	const char *type;
	void	   *body;
	size_t		len;
	int			must_free;		/* body is malloc'd (else static: copied) */
	int			retry_after;	/* seconds, 0: no Retry-After */
	char		etag[WEB_ETAG_MAX];	/* "": none */
	char		cache[64];		/* Cache-Control, "": none */
} map_answer;

/* What the workers share: the database, the tiles' max-age, the log's lock. */
typedef struct map_work
{
	map_db	   *db;
	int			max_age;
	pthread_mutex_t *log_mu;
} map_work;

/* A static text answer (errors), not cached; a 503 says Retry-After: 1. */
void		map_answer_text(map_answer *a, unsigned status, const char *text);

/* GET /tiles/KEY/Z/X/Y.png on connection c; inm: If-None-Match or NULL. */
void		map_work_tile(const map_work *w, PGconn *c, const web_req *q, const char *inm, map_answer *a);

/* GET /api/worlds?after=AFTER&limit=LIMIT on connection c (after may be NULL). */
void		map_work_worlds(const map_work *w, PGconn *c, const char *after, int limit, map_answer *a);

#endif
