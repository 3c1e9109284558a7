/*
 * test_webapi.c - slimetool map-server's request logic (src/tool/webapi.c):
 * routes, percent-decoding (a NUL never cuts a path short), malformed and
 * hostile tile paths, ETags and If-None-Match, the JSON of /api/worlds.
 */
#include "harness.h"
#include "webapi.h"

/* Route a request target and return the route. */
static web_route
route(const char *target, web_req *r)
{
	return web_route_target(target, r);
}

/* Every route, and the numbers and key of tile paths. */
void
test_web_routes(void)
{
	web_req		r;

	CHECK(route("/", &r) == WEB_PAGE);
	CHECK(route("/index.html", &r) == WEB_PAGE);
	CHECK(route("/static/leaflet.js", &r) == WEB_ASSET && strcmp(r.asset, "leaflet.js") == 0);
	CHECK(route("/static/", &r) == WEB_NOT_FOUND);
	CHECK(route("/static/../etc/passwd", &r) == WEB_NOT_FOUND);
	CHECK(route("/api/worlds", &r) == WEB_WORLDS);
	CHECK(route("/api/worlds/", &r) == WEB_NOT_FOUND);
	CHECK(route("/nothing", &r) == WEB_NOT_FOUND);
	CHECK(route("/tiles/isle/0/1/2.png", &r) == WEB_TILE);
	CHECK(strcmp(r.key, "isle") == 0 && r.z == 0 && r.x == 1 && r.y == 2);
	CHECK(route("/tiles/a/-4/-2147483648/2147483647.png", &r) == WEB_TILE);
	CHECK(r.z == -4 && r.x == INT32_MIN && r.y == INT32_MAX);
	/* a key may hold '/', spaces and any UTF-8: the last three segments are the numbers */
	CHECK(route("/tiles/my/world 1/3/4/5.png", &r) == WEB_TILE && strcmp(r.key, "my/world 1") == 0);
	CHECK(route("/tiles/\xc3\xa9t\xc3\xa9/0/0/0.png", &r) == WEB_TILE);
	/* the query string is not part of the path */
	CHECK(route("/static/map.js?v=2", &r) == WEB_ASSET && strcmp(r.asset, "map.js") == 0);
	CHECK(route("/api/worlds?after=a%00b&limit=2", &r) == WEB_WORLDS);
}

/* Percent-decoding: bytes, '/' in keys, stray '%', and a NUL that never cuts a path short. */
void
test_web_decode(void)
{
	web_req		r;
	char		longpath[1100];

	CHECK(route("/tiles/amulet%2Fnether%20%C3%A9/0/-1/-1.png", &r) == WEB_TILE);
	CHECK(strcmp(r.key, "amulet/nether \xc3\xa9") == 0 && r.x == -1 && r.y == -1);
	CHECK(route("/tiles/a%2fb/0/0/0.png", &r) == WEB_TILE && strcmp(r.key, "a/b") == 0);
	CHECK(route("/static/%6D%61p.js", &r) == WEB_ASSET && strcmp(r.asset, "map.js") == 0);
	/* a '%' without two hex digits stays as it is */
	CHECK(route("/static/a%zz", &r) == WEB_ASSET && strcmp(r.asset, "a%zz") == 0);
	CHECK(route("/static/a%4", &r) == WEB_ASSET && strcmp(r.asset, "a%4") == 0);
	CHECK(route("/static/100%", &r) == WEB_ASSET && strcmp(r.asset, "100%") == 0);
	CHECK(route("/static/%2e%2e%2fetc", &r) == WEB_NOT_FOUND);
	/* issue #33: /static/index.html%00.png served index.html */
	CHECK(route("/static/index.html%00.png", &r) == WEB_BAD && r.why != NULL);
	CHECK(r.path_len == 23 && memcmp(r.path, "/static/index.html\0.png", 23) == 0);
	CHECK(route("/%00", &r) == WEB_BAD);
	CHECK(route("/index.html%00", &r) == WEB_BAD);
	CHECK(route("/tiles/isle%00/0/0/0.png", &r) == WEB_BAD);
	CHECK(route("/tiles/isle/0/0/0.png%00", &r) == WEB_BAD);
	CHECK(route("/static/map.js%0A", &r) == WEB_BAD && route("/static/map.js%7f", &r) == WEB_BAD);
	/* a key keeps its spaces: the database must match it whole (' 7' is not the key 7) */
	CHECK(route("/tiles/%20%207/0/0/0.png", &r) == WEB_TILE && strcmp(r.key, "  7") == 0);
	CHECK(route("/tiles/7%20/0/0/0.png", &r) == WEB_TILE && strcmp(r.key, "7 ") == 0);
	/* 1024 decoded bytes are a path, 1025 are not */
	memset(longpath, 0, sizeof(longpath));
	memcpy(longpath, "/static/", 8);
	memset(longpath + 8, 'a', WEB_PATH_MAX - 8);
	CHECK(route(longpath, &r) == WEB_ASSET && r.path_len == WEB_PATH_MAX);
	longpath[WEB_PATH_MAX] = 'a';
	CHECK(route(longpath, &r) == WEB_BAD && r.path_len == WEB_PATH_MAX);
	/* three bytes of escape are one decoded byte */
	memset(longpath, 0, sizeof(longpath));
	strcpy(longpath, "/static/");
	for (int i = 0; i < 300; i++)
		strcat(longpath, "%41");
	CHECK(route(longpath, &r) == WEB_ASSET && r.path_len == 308 && r.asset[299] == 'A');
}

/* Malformed and hostile paths are WEB_BAD (400), never a tile. */
void
test_web_hostile_paths(void)
{
	static const char *const bad[] = {
		"/tiles/", "/tiles/a", "/tiles/a/0/0/0", "/tiles/a/0/0/0.jpg", "/tiles/a/0/0.png",
		"/tiles//0/0/0.png", "/tiles/a/x/0/0.png", "/tiles/a/0/0/+1.png", "/tiles/a/0/0/1e3.png",
		"/tiles/a/0/0/2147483648.png", "/tiles/a/0/-2147483649/0.png", "/tiles/a/0/0/-.png",
		"/tiles/a/ 0/0/0.png", "/tiles/a/0/0/0.png.png", "/tiles/a\nb/0/0/0.png",
		"/tiles/a\x01/0/0/0.png", "/tiles/\xff/0/0/0.png", "/tiles/\xc0\xaf/0/0/0.png",
		"/tiles/\xed\xa0\x80/0/0/0.png", "/tiles/\xe2\x82/0/0/0.png", "/tiles/a/00000000001/0/0.png",
	};
	web_req		r;
	char		longkey[400];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
	{
		int			ok = route(bad[i], &r) == WEB_BAD && r.why != NULL;

		CHECK(ok);
		if (!ok)
			fprintf(stderr, "  path %zu was not refused\n", i);
	}
	/* SQL in a key is just a key: the server passes it as a parameter (404 when absent) */
	CHECK(route("/tiles/1;DROP TABLE islands;--/0/0/0.png", &r) == WEB_TILE);
	CHECK(strcmp(r.key, "1;DROP TABLE islands;--") == 0);
	CHECK(route("/tiles/' OR '1'='1/0/0/0.png", &r) == WEB_TILE);
	/* keys of 256 bytes are taken, 257 refused */
	memset(longkey, 0, sizeof(longkey));
	strcpy(longkey, "/tiles/");
	memset(longkey + 7, 'k', 256);
	strcat(longkey, "/0/0/0.png");
	CHECK(route(longkey, &r) == WEB_TILE && strlen(r.key) == 256);
	memset(longkey + 7, 'k', 257);
	strcpy(longkey + 7 + 257, "/0/0/0.png");
	CHECK(route(longkey, &r) == WEB_BAD);
	CHECK(web_key_ok("\xf0\x9f\x8c\x8d", 4) && !web_key_ok("\xf0\x9f\x8c", 3) && !web_key_ok("\xf4\x90\x80\x80", 4));
}

/* ETags name the content and the tile; If-None-Match lists, weak tags and *. */
void
test_web_etag(void)
{
	char		e1[WEB_ETAG_MAX],
				e2[WEB_ETAG_MAX],
				e3[WEB_ETAG_MAX],
				inm[400];
	const char *h = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

	web_etag(e1, h, 0, 1, 2);
	web_etag(e2, h, 0, 1, 3);
	web_etag(e3, "ff112233445566778899aabbccddeeff00112233445566778899aabbccddeeff", 0, 1, 2);
	CHECK(e1[0] == '"' && e1[strlen(e1) - 1] == '"' && strstr(e1, h) != NULL);
	CHECK(strcmp(e1, e2) != 0 && strcmp(e1, e3) != 0);
	CHECK(web_etag_match(e1, e1));
	CHECK(!web_etag_match(e2, e1));
	snprintf(inm, sizeof(inm), "%s, W/%s", e2, e1);
	CHECK(web_etag_match(inm, e1) && web_etag_match(inm, e2) && !web_etag_match(inm, e3));
	CHECK(web_etag_match("*", e3));
	CHECK(!web_etag_match(NULL, e1) && !web_etag_match("", e1) && !web_etag_match("garbage", e1));
	CHECK(!web_etag_match("\"unterminated", e1));
}

/* Log lines: a path cannot forge a line or a field. */
void
test_web_log_escape(void)
{
	char		out[32];

	web_log_escape(out, sizeof(out), "/a\n127.0.0.1 \"GET /\\", 20);
	CHECK(strcmp(out, "/a\\x0a127.0.0.1 \\x22GET /\\x5c") == 0);
	web_log_escape(out, 8, "/abcdefghij", 11);
	CHECK(strlen(out) < 8);
	/* a NUL in a decoded path is shown, not an end */
	web_log_escape(out, sizeof(out), "/a\0b", 4);
	CHECK(strcmp(out, "/a\\x00b") == 0);
}

/* The worlds page: keys escaped, bounds in blocks, null bounds and next. */
void
test_web_json(void)
{
	web_world	w[2] = {
		{"isle \"1\"\\\n", 9, 1, -1, 0, 1, 2},
		{"empty", 0, 0, 0, 0, 0, 0},
	};
	sl_buf		out = {0};
	sl_err		err;
	int			limit = 0;

	CHECK(web_json_worlds(&out, w, 2, "empty", &err) == 0);
	CHECK(sl_buf_put_u8(&out, 0, &err) == 0);
	CHECK(strcmp((char *) out.data,
				 "{\"worlds\": [{\"key\": \"isle \\\"1\\\"\\\\\\u000a\", \"chunks\": 9, \"bounds\": "
				 "{\"min_x\": -16, \"min_z\": 0, \"max_x\": 31, \"max_z\": 47}}, "
				 "{\"key\": \"empty\", \"chunks\": 0, \"bounds\": null}], \"next\": \"empty\"}") == 0);
	sl_buf_free(&out);
	CHECK(web_json_worlds(&out, w, 0, NULL, &err) == 0 && sl_buf_put_u8(&out, 0, &err) == 0);
	CHECK(strcmp((char *) out.data, "{\"worlds\": [], \"next\": null}") == 0);
	sl_buf_free(&out);
	CHECK(web_parse_limit(NULL, &limit) == 0 && limit == WEB_WORLDS_DEFAULT);
	CHECK(web_parse_limit("5", &limit) == 0 && limit == 5);
	CHECK(web_parse_limit("0", &limit) != 0 && web_parse_limit("10001", &limit) != 0 &&
		  web_parse_limit("1;", &limit) != 0);
}
