/*
 * webapi.h - the request logic of slimetool map-server, free of HTTP and
 * libpq so that the unit tests reach it: decoding and routing a request
 * target, the tile ETag and If-None-Match, and the JSON of /api/worlds.
 */
#ifndef WEBAPI_H
#define WEBAPI_H

#include <stddef.h>
#include <stdint.h>

#include "sl_common.h"

#define WEB_KEY_MAX		256		/* bytes of a world key in a path */
#define WEB_PATH_MAX	1024	/* bytes of a decoded path */
#define WEB_ETAG_MAX	128
#define WEB_WORLDS_DEFAULT 1000	/* worlds per /api/worlds page */
#define WEB_WORLDS_MAX	10000

/* What a path asks for. */
typedef enum web_route
{
	WEB_NOT_FOUND = 0,			/* no such path: 404 */
	WEB_BAD,					/* a malformed path (control bytes, too long) or tile path, a bad query: 400 */
	WEB_PAGE,					/* "/" */
	WEB_ASSET,					/* "/static/NAME" */
	WEB_WORLDS,					/* "/api/worlds" */
	WEB_TILE					/* "/tiles/KEY/Z/X/Y.png" */
} web_route;

/* A routed request. */
typedef struct web_req
{
	web_route	route;
	char		path[WEB_PATH_MAX + 1];	/* the decoded path (may hold a NUL when WEB_BAD) */
	size_t		path_len;
	char		key[WEB_KEY_MAX + 1];	/* WEB_TILE: the world key (UTF-8, no control bytes) */
	int32_t		z;
	int32_t		x;
	int32_t		y;
	const char *asset;			/* WEB_ASSET: the name after /static/ */
	const char *why;			/* WEB_BAD: what is wrong */
} web_req;

/*
 * Route a request target as the client sent it ("/tiles/a%2Fb/0/0/0.png?x"):
 * the path before '?' is percent-decoded into r->path with its length
 * ("%HH" a byte, any other '%' as it is); a path longer than WEB_PATH_MAX
 * or holding a control byte (a NUL included) is WEB_BAD.
 */
web_route	web_route_target(const char *target, web_req *r);

/* 1 when s (len bytes) is valid UTF-8 without control characters. */
int			web_key_ok(const char *s, size_t len);

/* The ETag of tile z/x/y of a value whose content hash is hash_hex (quoted). */
void		web_etag(char out[WEB_ETAG_MAX], const char *hash_hex, int32_t z, int32_t x, int32_t y);

/* 1 when an If-None-Match header value (a list, W/ tags or *) matches etag. */
int			web_etag_match(const char *if_none_match, const char *etag);

/* Parse /api/worlds' limit (NULL: the default); 0 ok, -1 malformed or out of range. */
int			web_parse_limit(const char *s, int *limit);

/* One world of /api/worlds. */
typedef struct web_world
{
	const char *key;
	int64_t		chunks;
	int			has_bounds;		/* 0: no chunks, no bounds */
	int32_t		min_cx, min_cz, max_cx, max_cz;	/* chunk bounds */
} web_world;

/* Append a JSON string (quoted, escaped) to out. */
int			web_json_string(sl_buf *out, const char *s, sl_err *err);

/*
 * Append {"worlds": [...], "next": KEY|null} to out: each world its key,
 * chunk count and bounds in blocks (min inclusive, max inclusive); next is
 * the key to pass as after= for the following page.
 */
int			web_json_worlds(sl_buf *out, const web_world *w, size_t n, const char *next,
							sl_err *err);

/* Copy len bytes of s into out (cap bytes) for a log line: control bytes, '"' and '\\' as \\xNN, cut at cap. */
void		web_log_escape(char *out, size_t cap, const char *s, size_t len);

#endif
