/*
 * webapi.c - routing, ETags and JSON of slimetool map-server (see webapi.h).
 */
#include "webapi.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parse a whole decimal int32 ("-12", no sign "+", no spaces) of len bytes; 0 ok. */
static int
parse_int(const char *s, size_t len, int32_t *out)
{
	int64_t		v = 0;
	size_t		i = 0;
	int			neg = 0;

	if (len > 0 && s[0] == '-')
	{
		neg = 1;
		i = 1;
	}
	if (i == len || len - i > 10)
		return -1;
	for (; i < len; i++)
	{
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	v = neg ? -v : v;
	if (v < INT32_MIN || v > INT32_MAX)
		return -1;
	*out = (int32_t) v;
	return 0;
}

/* 1 when s (len bytes) is valid UTF-8 without control characters. */
int
web_key_ok(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *) s;
	size_t		i = 0;

	while (i < len)
	{
		unsigned char c = p[i];
		int			n;
		uint32_t	cp;

		if (c < 0x20 || c == 0x7F)
			return 0;
		if (c < 0x80)
		{
			i++;
			continue;
		}
		n = c >= 0xC2 && c <= 0xDF ? 1 : c >= 0xE0 && c <= 0xEF ? 2 : c >= 0xF0 && c <= 0xF4 ? 3 : -1;
		if (n < 0 || (size_t) n >= len - i)
			return 0;
		cp = c & (0x3F >> n);
		for (int k = 1; k <= n; k++)
		{
			if ((p[i + k] & 0xC0) != 0x80)
				return 0;
			cp = cp << 6 | (p[i + k] & 0x3F);
		}
		if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10FFFF)) ||
			(cp >= 0xD800 && cp <= 0xDFFF) || (cp >= 0x80 && cp < 0xA0))
			return 0;
		i += n + 1;
	}
	return 1;
}

/* Route "/tiles/KEY/Z/X/Y.png" (KEY may hold '/': the last three segments are the numbers). */
static web_route
route_tile(const char *rest, web_req *r)
{
	size_t		len = strlen(rest);
	const char *seg[3];
	const char *end = rest + len;
	size_t		klen;

	if (len < 4 || memcmp(end - 4, ".png", 4) != 0)
	{
		r->why = "a tile path ends in .png";
		return WEB_BAD;
	}
	end -= 4;
	for (int k = 2; k >= 0; k--)
	{
		const char *p = end;

		while (p > rest && p[-1] != '/')
			p--;
		if (p == rest)
		{
			r->why = "a tile path is /tiles/KEY/Z/X/Y.png";
			return WEB_BAD;
		}
		seg[k] = p;
		if (parse_int(p, (size_t) (end - p), k == 0 ? &r->z : k == 1 ? &r->x : &r->y))
		{
			r->why = "tile zoom, x and y are integers";
			return WEB_BAD;
		}
		end = p - 1;
	}
	klen = (size_t) (seg[0] - 1 - rest);
	if (klen == 0 || klen > WEB_KEY_MAX || !web_key_ok(rest, klen))
	{
		r->why = "a world key is 1 to 256 bytes of UTF-8 without control characters";
		return WEB_BAD;
	}
	memcpy(r->key, rest, klen);
	r->key[klen] = '\0';
	return WEB_TILE;
}

/* Route a decoded path without control bytes. */
static web_route
route_path(const char *path, web_req *r)
{
	if (strcmp(path, "/") == 0 || strcmp(path, "/index.html") == 0)
		r->route = WEB_PAGE;
	else if (strncmp(path, "/static/", 8) == 0 && path[8] && strchr(path + 8, '/') == NULL)
	{
		r->route = WEB_ASSET;
		r->asset = path + 8;
	}
	else if (strcmp(path, "/api/worlds") == 0)
		r->route = WEB_WORLDS;
	else if (strncmp(path, "/tiles/", 7) == 0)
		r->route = route_tile(path + 7, r);
	else
		r->route = WEB_NOT_FOUND;
	return r->route;
}

/* The value of a hex digit, or -1. */
static int
hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
		c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/*
 * Route a request target as sent: its path (up to '?') percent-decoded here,
 * with its length, so that a decoded NUL cannot cut it short.
 */
web_route
web_route_target(const char *target, web_req *r)
{
	const char *p = target;
	size_t		n = 0;

	memset(r, 0, sizeof(*r));
	for (; *p && *p != '?'; p++)
	{
		int			hi,
					lo;

		if (n == WEB_PATH_MAX)
		{
			r->path_len = n;
			r->why = "a path is at most 1024 bytes";
			return r->route = WEB_BAD;
		}
		/* "%HH" is a byte; a '%' without two hex digits stays as it is */
		if (p[0] == '%' && (hi = hexval(p[1])) >= 0 && (lo = hexval(p[2])) >= 0)
		{
			r->path[n++] = (char) (hi << 4 | lo);
			p += 2;
		}
		else
			r->path[n++] = *p;
	}
	r->path[n] = '\0';
	r->path_len = n;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char) r->path[i] < 0x20 || r->path[i] == 0x7F)
		{
			r->why = "a path holds no control characters (%00..%1F, %7F)";
			return r->route = WEB_BAD;
		}
	return route_path(r->path, r);
}

/* The ETag of a tile: the value's content hash, the tile, and the drawing's version. */
void
web_etag(char out[WEB_ETAG_MAX], const char *hash_hex, int32_t z, int32_t x, int32_t y)
{
	snprintf(out, WEB_ETAG_MAX, "\"%.64s-t1-%d.%d.%d\"", hash_hex, z, x, y);
}

/* 1 when an If-None-Match list matches etag (weak comparison, as RFC 9110 asks for it). */
int
web_etag_match(const char *inm, const char *etag)
{
	size_t		elen = strlen(etag);
	const char *p = inm;

	if (inm == NULL)
		return 0;
	while (*p)
	{
		const char *q;

		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		if (*p == '*')
			return 1;
		if (p[0] == 'W' && p[1] == '/')
			p += 2;
		if (*p != '"')
			return 0;			/* malformed: no match */
		q = strchr(p + 1, '"');
		if (q == NULL)
			return 0;
		if ((size_t) (q + 1 - p) == elen && memcmp(p, etag, elen) == 0)
			return 1;
		p = q + 1;
	}
	return 0;
}

/* Parse /api/worlds' limit. */
int
web_parse_limit(const char *s, int *limit)
{
	int32_t		v;

	if (s == NULL)
	{
		*limit = WEB_WORLDS_DEFAULT;
		return 0;
	}
	if (parse_int(s, strlen(s), &v) || v < 1 || v > WEB_WORLDS_MAX)
		return -1;
	*limit = v;
	return 0;
}

/* Append a JSON string. */
int
web_json_string(sl_buf *out, const char *s, sl_err *err)
{
	if (sl_buf_put_u8(out, '"', err))
		return -1;
	for (const unsigned char *p = (const unsigned char *) s; *p; p++)
	{
		int			rc;

		if (*p == '"' || *p == '\\')
			rc = sl_buf_printf(out, err, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7F)
			rc = sl_buf_printf(out, err, "\\u%04x", *p);
		else
			rc = sl_buf_put_u8(out, *p, err);
		if (rc)
			return -1;
	}
	return sl_buf_put_u8(out, '"', err);
}

/* Append the JSON of a page of worlds. */
int
web_json_worlds(sl_buf *out, const web_world *w, size_t n, const char *next, sl_err *err)
{
	if (sl_buf_printf(out, err, "{\"worlds\": ["))
		return -1;
	for (size_t i = 0; i < n; i++)
	{
		if (sl_buf_printf(out, err, "%s{\"key\": ", i ? ", " : "") ||
			web_json_string(out, w[i].key, err) ||
			sl_buf_printf(out, err, ", \"chunks\": %lld, \"bounds\": ", (long long) w[i].chunks))
			return -1;
		if (!w[i].has_bounds ? sl_buf_printf(out, err, "null}") :
			sl_buf_printf(out, err, "{\"min_x\": %lld, \"min_z\": %lld, \"max_x\": %lld, \"max_z\": %lld}}",
						  (long long) w[i].min_cx * 16, (long long) w[i].min_cz * 16,
						  (long long) w[i].max_cx * 16 + 15, (long long) w[i].max_cz * 16 + 15))
			return -1;
	}
	if (sl_buf_printf(out, err, "], \"next\": ") ||
		(next ? web_json_string(out, next, err) : sl_buf_printf(out, err, "null")))
		return -1;
	return sl_buf_printf(out, err, "}");
}

/* Copy len bytes of s for a log line, control bytes, quotes and backslashes escaped. */
void
web_log_escape(char *out, size_t cap, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *) s;
	size_t		n = 0;

	if (cap == 0)
		return;
	for (size_t i = 0; i < len && n + 5 < cap; i++)
	{
		if (p[i] < 0x20 || p[i] == 0x7F || p[i] == '"' || p[i] == '\\')
			n += (size_t) snprintf(out + n, cap - n, "\\x%02x", p[i]);
		else
			out[n++] = (char) p[i];
	}
	out[n] = '\0';
}
