/*
 * test_nbt.c - unit tests of sl_nbt: checking, trees, writing, lookup, JSON.
 */
#include "harness.h"
#include "sl_nbt.h"

#include <math.h>
#include <stdint.h>

/* ---- helpers: building NBT bytes by hand ---- */

/* Append one byte to a test document. */
static void
tb_u8(sl_buf *b, unsigned v)
{
	sl_buf_put_u8(b, (uint8_t) v, NULL);
}

/* Append a big-endian u16. */
static void
tb_u16(sl_buf *b, unsigned v)
{
	sl_buf_put_u16be(b, (uint16_t) v, NULL);
}

/* Append a big-endian u32. */
static void
tb_u32(sl_buf *b, uint32_t v)
{
	sl_buf_put_u32be(b, v, NULL);
}

/* Append a big-endian u64. */
static void
tb_u64(sl_buf *b, uint64_t v)
{
	sl_buf_put_u64be(b, v, NULL);
}

/* Append raw bytes. */
static void
tb_raw(sl_buf *b, const void *p, size_t n)
{
	sl_buf_put(b, p, n, NULL);
}

/* Append a tag type byte and a name. */
static void
tb_tag(sl_buf *b, unsigned type, const char *name)
{
	tb_u8(b, type);
	tb_u16(b, (unsigned) strlen(name));
	tb_raw(b, name, strlen(name));
}

/* Append a u16-length string payload of n raw bytes. */
static void
tb_str(sl_buf *b, const void *s, size_t n)
{
	tb_u16(b, (unsigned) n);
	tb_raw(b, s, n);
}

/* Append a double payload. */
static void
tb_double(sl_buf *b, double d)
{
	uint64_t	u;

	memcpy(&u, &d, 8);
	tb_u64(b, u);
}

/* Append a float payload. */
static void
tb_float(sl_buf *b, float f)
{
	uint32_t	u;

	memcpy(&u, &f, 4);
	tb_u32(b, u);
}

/* Start a document: root compound with an empty name. */
static void
tb_root(sl_buf *b)
{
	b->len = 0;
	tb_tag(b, SL_TAG_COMPOUND, "");
}

/* Convert to JSON and compare with the expected text. */
static int
json_is(const sl_buf *doc, const char *expect)
{
	sl_buf		out = {0};
	sl_err		err = {0};
	int			ok;

	if (sl_nbt_to_json(doc->data, doc->len, NULL, &out, &err) != 0)
	{
		fprintf(stderr, "to_json failed: %s\n", err.msg);
		sl_buf_free(&out);
		return 0;
	}
	ok = out.len == strlen(expect) && memcmp(out.data, expect, out.len) == 0;
	if (!ok)
		fprintf(stderr, "json mismatch:\n  got    %.*s\n  expect %s\n",
				(int) out.len, (const char *) out.data, expect);
	sl_buf_free(&out);
	return ok;
}

/* JSON of a root compound {"v": <one tag of type, payload appended by fn>}. */
static int
json_one_double(double d, const char *expect)
{
	sl_buf		b = {0};
	int			ok;

	tb_root(&b);
	tb_tag(&b, SL_TAG_DOUBLE, "v");
	tb_double(&b, d);
	tb_u8(&b, 0);
	ok = json_is(&b, expect);
	sl_buf_free(&b);
	return ok;
}

/* As json_one_double, for a float. */
static int
json_one_float(float f, const char *expect)
{
	sl_buf		b = {0};
	int			ok;

	tb_root(&b);
	tb_tag(&b, SL_TAG_FLOAT, "v");
	tb_float(&b, f);
	tb_u8(&b, 0);
	ok = json_is(&b, expect);
	sl_buf_free(&b);
	return ok;
}

/* As json_one_double, for a string of raw bytes. */
static int
json_one_string(const char *s, size_t n, const char *expect)
{
	sl_buf		b = {0};
	int			ok;

	tb_root(&b);
	tb_tag(&b, SL_TAG_STRING, "v");
	tb_str(&b, s, n);
	tb_u8(&b, 0);
	ok = json_is(&b, expect);
	sl_buf_free(&b);
	return ok;
}

/* Check that parse + write reproduces doc exactly. */
static int
roundtrip_ok(const uint8_t *doc, size_t len)
{
	sl_arena	arena = {0};
	sl_buf		out = {0};
	sl_err		err = {0};
	sl_nbt	   *root = NULL;
	size_t		used = 0;
	int			ok = 0;

	if (sl_nbt_parse(doc, len, NULL, &arena, &root, &used, &err) != 0)
		fprintf(stderr, "parse failed: %s\n", err.msg);
	else if (sl_nbt_write(root, &out, &err) != 0)
		fprintf(stderr, "write failed: %s\n", err.msg);
	else
		ok = used == len && out.len == len && memcmp(out.data, doc, len) == 0;
	sl_buf_free(&out);
	sl_arena_free(&arena);
	return ok;
}

/* A document holding every tag type, used by several tests. */
static void
build_all_types(sl_buf *b)
{
	tb_root(b);
	tb_tag(b, SL_TAG_BYTE, "b");
	tb_u8(b, 0xFE);
	tb_tag(b, SL_TAG_SHORT, "s");
	tb_u16(b, 0x8000);
	tb_tag(b, SL_TAG_INT, "i");
	tb_u32(b, 0xFFFFFFFB);
	tb_tag(b, SL_TAG_LONG, "l");
	tb_u64(b, UINT64_C(0x8000000000000000));
	tb_tag(b, SL_TAG_FLOAT, "f");
	tb_float(b, 1.5f);
	tb_tag(b, SL_TAG_DOUBLE, "d");
	tb_double(b, -2.25);
	tb_tag(b, SL_TAG_BYTE_ARRAY, "ba");
	tb_u32(b, 3);
	tb_raw(b, "\x01\xff\x7f", 3);
	tb_tag(b, SL_TAG_STRING, "str");
	tb_str(b, "hello", 5);
	tb_tag(b, SL_TAG_LIST, "li");
	tb_u8(b, SL_TAG_SHORT);
	tb_u32(b, 2);
	tb_u16(b, 7);
	tb_u16(b, 0xFFFF);
	tb_tag(b, SL_TAG_COMPOUND, "c");
	tb_tag(b, SL_TAG_INT, "x");
	tb_u32(b, 42);
	tb_u8(b, 0);
	tb_tag(b, SL_TAG_INT_ARRAY, "ia");
	tb_u32(b, 2);
	tb_u32(b, 1);
	tb_u32(b, 0x80000000);
	tb_tag(b, SL_TAG_LONG_ARRAY, "la");
	tb_u32(b, 1);
	tb_u64(b, UINT64_C(0xFFFFFFFFFFFFFFFF));
	tb_tag(b, SL_TAG_LIST, "empty");
	tb_u8(b, SL_TAG_END);
	tb_u32(b, 0);
	tb_u8(b, 0);
}

/* Run check, parse, find_int and to_json; all must fail with this code. */
static int
all_fail(const uint8_t *doc, size_t len, const sl_limits *lim, sl_code code)
{
	sl_arena	arena = {0};
	sl_buf		out = {0};
	sl_err		e1 = {0},
				e2 = {0},
				e3 = {0},
				e4 = {0};
	sl_nbt	   *root = NULL;
	const char *path[] = {"x"};
	int64_t		v;
	int			ok = 1;

	if (sl_nbt_check(doc, len, 1, lim, NULL, &e1) != -1 || e1.code != code)
		ok = 0;
	if (sl_nbt_parse(doc, len, lim, &arena, &root, NULL, &e2) != -1 || e2.code != code)
		ok = 0;
	if (sl_nbt_find_int(doc, len, path, 1, lim, &v, &e3) != -1 || e3.code != code)
		ok = 0;
	if (sl_nbt_to_json(doc, len, lim, &out, &e4) != -1 || e4.code != code || out.len != 0)
		ok = 0;
	if (!ok)
		fprintf(stderr, "expected code %d: check %d '%s', parse %d '%s', find %d '%s', json %d '%s'\n",
				(int) code, (int) e1.code, e1.msg, (int) e2.code, e2.msg,
				(int) e3.code, e3.msg, (int) e4.code, e4.msg);
	sl_buf_free(&out);
	sl_arena_free(&arena);
	return ok;
}

/* ---- a tiny strict JSON syntax checker ---- */

typedef struct jv
{
	const char *p;
	const char *end;
	int			depth;
} jv;

static int	jv_value(jv *j);

/* Skip JSON whitespace. */
static void
jv_ws(jv *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

/* Accept a string token (valid escapes, no raw controls, no \u0000). */
static int
jv_string(jv *j)
{
	if (j->p >= j->end || *j->p != '"')
		return 0;
	for (j->p++; j->p < j->end; j->p++)
	{
		unsigned char c = (unsigned char) *j->p;

		if (c == '"')
		{
			j->p++;
			return 1;
		}
		if (c < 0x20)
			return 0;
		if (c == '\\')
		{
			j->p++;
			if (j->p >= j->end)
				return 0;
			if (*j->p == 'u')
			{
				if (j->end - j->p < 5 || strncmp(j->p, "u0000", 5) == 0)
					return 0;
				j->p += 4;
			}
			else if (!strchr("\"\\/bfnrt", *j->p))
				return 0;
		}
	}
	return 0;
}

/* Accept a number token. */
static int
jv_number(jv *j)
{
	const char *s = j->p;

	if (j->p < j->end && *j->p == '-')
		j->p++;
	if (j->p >= j->end || *j->p < '0' || *j->p > '9')
		return 0;
	if (*j->p == '0')
		j->p++;
	else
		while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
			j->p++;
	if (j->p < j->end && *j->p == '.')
	{
		j->p++;
		if (j->p >= j->end || *j->p < '0' || *j->p > '9')
			return 0;
		while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
			j->p++;
	}
	return j->p > s;
}

/* Accept an object or array. */
static int
jv_container(jv *j, char close)
{
	j->p++;
	if (++j->depth > 4000)
		return 0;
	jv_ws(j);
	if (j->p < j->end && *j->p == close)
	{
		j->p++;
		j->depth--;
		return 1;
	}
	for (;;)
	{
		if (close == '}')
		{
			if (!jv_string(j))
				return 0;
			jv_ws(j);
			if (j->p >= j->end || *j->p++ != ':')
				return 0;
		}
		if (!jv_value(j))
			return 0;
		jv_ws(j);
		if (j->p >= j->end)
			return 0;
		if (*j->p == close)
		{
			j->p++;
			j->depth--;
			return 1;
		}
		if (*j->p++ != ',')
			return 0;
	}
}

/* Accept any JSON value. */
static int
jv_value(jv *j)
{
	jv_ws(j);
	if (j->p >= j->end)
		return 0;
	if (*j->p == '{')
		return jv_container(j, '}');
	if (*j->p == '[')
		return jv_container(j, ']');
	if (*j->p == '"')
		return jv_string(j);
	return jv_number(j);
}

/* Is the whole text one valid JSON value? */
static int
json_valid(const uint8_t *s, size_t n)
{
	jv			j = {(const char *) s, (const char *) s + n, 0};

	if (!jv_value(&j))
		return 0;
	jv_ws(&j);
	return j.p == j.end;
}

/* ---- tests ---- */

void
test_nbt_type_names(void)
{
	CHECK(strcmp(sl_nbt_type_name(0), "end") == 0);
	CHECK(strcmp(sl_nbt_type_name(SL_TAG_BYTE_ARRAY), "byte_array") == 0);
	CHECK(strcmp(sl_nbt_type_name(SL_TAG_STRING), "string") == 0);
	CHECK(strcmp(sl_nbt_type_name(SL_TAG_COMPOUND), "compound") == 0);
	CHECK(strcmp(sl_nbt_type_name(SL_TAG_LONG_ARRAY), "long_array") == 0);
	CHECK(sl_nbt_type_name(-1) == NULL);
	CHECK(sl_nbt_type_name(13) == NULL);
}

void
test_nbt_all_types(void)
{
	sl_buf		b = {0};
	sl_arena	arena = {0};
	sl_err		err = {0};
	sl_nbt	   *root = NULL;
	const sl_nbt *c;
	size_t		used = 0;

	build_all_types(&b);
	tb_raw(&b, "trailing", 8);
	CHECK_OK(sl_nbt_check(b.data, b.len, 0, NULL, &used, &err), &err);
	CHECK(used == b.len - 8);
	CHECK_OK(sl_nbt_parse(b.data, b.len, NULL, &arena, &root, &used, &err), &err);
	CHECK(used == b.len - 8);
	CHECK(root != NULL && root->type == SL_TAG_COMPOUND && root->v.comp.count == 13);
	CHECK((c = sl_nbt_child(root, "b")) && c->v.i == -2);
	CHECK((c = sl_nbt_child(root, "s")) && c->v.i == -32768);
	CHECK((c = sl_nbt_child(root, "i")) && c->v.i == -5);
	CHECK((c = sl_nbt_child(root, "l")) && c->v.i == INT64_MIN);
	CHECK((c = sl_nbt_child(root, "f")) && c->v.f == 1.5f);
	CHECK((c = sl_nbt_child(root, "d")) && c->v.d == -2.25);
	CHECK((c = sl_nbt_child(root, "ba")) && c->v.arr.count == 3 && c->v.arr.data[1] == 0xff);
	CHECK((c = sl_nbt_child(root, "str")) && c->v.str.len == 5 && memcmp(c->v.str.s, "hello", 5) == 0);
	CHECK((c = sl_nbt_child(root, "li")) && c->v.list.elem_type == SL_TAG_SHORT &&
		  c->v.list.count == 2 && c->v.list.items[1]->v.i == -1 &&
		  c->v.list.items[0]->name == NULL);
	CHECK((c = sl_nbt_child(root, "c")) && c->v.comp.count == 1 &&
		  sl_nbt_child(c, "x")->v.i == 42);
	CHECK((c = sl_nbt_child(root, "ia")) && c->v.arr.count == 2);
	CHECK((c = sl_nbt_child(root, "la")) && c->v.arr.count == 1);
	CHECK((c = sl_nbt_child(root, "empty")) && c->v.list.count == 0 && c->v.list.items == NULL);
	CHECK(sl_nbt_child(root, "nope") == NULL);
	CHECK(roundtrip_ok(b.data, b.len - 8));
	CHECK(json_is(&b, "{\"b\":{\"byte\":-2},\"s\":{\"short\":-32768},\"i\":-5,"
				  "\"l\":{\"long\":-9223372036854775808},\"f\":{\"float\":1.5},"
				  "\"d\":-2.25,\"ba\":{\"byte_array\":[1,-1,127]},\"str\":\"hello\","
				  "\"li\":[{\"short\":7},{\"short\":-1}],\"c\":{\"x\":42},"
				  "\"ia\":{\"int_array\":[1,-2147483648]},\"la\":{\"long_array\":[-1]},"
				  "\"empty\":{\"list\":\"end\"}}"));
	sl_arena_free(&arena);
	sl_buf_free(&b);
}

void
test_nbt_any_root(void)
{
	sl_buf		b = {0};
	sl_err		err = {0};
	size_t		used = 0;

	tb_tag(&b, SL_TAG_STRING, "name");
	tb_str(&b, "x", 1);
	CHECK(sl_nbt_check(b.data, b.len, 0, NULL, &used, &err) == -1);
	CHECK(err.code == SL_ERR_FORMAT && strstr(err.msg, "not a compound"));
	CHECK_OK(sl_nbt_check(b.data, b.len, 1, NULL, &used, &err), &err);
	CHECK(used == b.len);
	CHECK(roundtrip_ok(b.data, b.len));
	CHECK(json_is(&b, "\"x\""));
	sl_buf_free(&b);
}

void
test_nbt_every_prefix_fails(void)
{
	sl_buf		b = {0};
	int			bad = 0;

	build_all_types(&b);
	for (size_t n = 0; n < b.len; n++)
	{
		if (!all_fail(b.data, n, NULL, SL_ERR_FORMAT))
			bad++;
	}
	CHECK(bad == 0);
	sl_buf_free(&b);
}

void
test_nbt_errors(void)
{
	sl_buf		b = {0};
	sl_err		err = {0};

	/* empty, End root, unknown root type */
	CHECK(sl_nbt_check(NULL, 0, 1, NULL, NULL, &err) == -1 && err.code == SL_ERR_FORMAT);
	CHECK(sl_nbt_check((const uint8_t *) "\0\0\0", 3, 1, NULL, NULL, &err) == -1 &&
		  strstr(err.msg, "offset 0"));
	CHECK(sl_nbt_check((const uint8_t *) "\x0d\0\0", 3, 1, NULL, NULL, &err) == -1 &&
		  strstr(err.msg, "unknown tag type 13 at offset 0"));

	/* unknown tag type inside a compound */
	tb_root(&b);
	tb_tag(&b, 42, "x");
	tb_u8(&b, 0);
	CHECK(all_fail(b.data, b.len, NULL, SL_ERR_FORMAT));
	sl_nbt_check(b.data, b.len, 0, NULL, NULL, &err);
	CHECK(strcmp(err.msg, "NBT: unknown tag type 42 at offset 3") == 0);

	/* string running past the end: exact message */
	tb_root(&b);
	tb_tag(&b, SL_TAG_STRING, "s");
	tb_u16(&b, 300);
	tb_raw(&b, "abc", 3);
	CHECK(all_fail(b.data, b.len, NULL, SL_ERR_FORMAT));
	sl_nbt_check(b.data, b.len, 0, NULL, NULL, &err);
	CHECK(strcmp(err.msg, "NBT: string length 300 at offset 7 runs past end of data (12 bytes)") == 0);

	/* negative array count */
	tb_root(&b);
	tb_tag(&b, SL_TAG_INT_ARRAY, "a");
	tb_u32(&b, 0xFFFFFFFF);
	tb_u8(&b, 0);
	CHECK(all_fail(b.data, b.len, NULL, SL_ERR_FORMAT));
	sl_nbt_check(b.data, b.len, 0, NULL, NULL, &err);
	CHECK(strcmp(err.msg, "NBT: negative int_array count -1 at offset 7") == 0);

	/* negative list count, also for End lists */
	tb_root(&b);
	tb_tag(&b, SL_TAG_LIST, "l");
	tb_u8(&b, SL_TAG_END);
	tb_u32(&b, 0x80000000);
	tb_u8(&b, 0);
	CHECK(all_fail(b.data, b.len, NULL, SL_ERR_FORMAT));
	sl_nbt_check(b.data, b.len, 0, NULL, NULL, &err);
	CHECK(strcmp(err.msg, "NBT: negative list count -2147483648 at offset 8") == 0);

	/* list of End with elements */
	tb_root(&b);
	tb_tag(&b, SL_TAG_LIST, "l");
	tb_u8(&b, SL_TAG_END);
	tb_u32(&b, 1);
	tb_u8(&b, 0);
	tb_u8(&b, 0);
	CHECK(all_fail(b.data, b.len, NULL, SL_ERR_FORMAT));

	/* unknown list element type */
	tb_root(&b);
	tb_tag(&b, SL_TAG_LIST, "l");
	tb_u8(&b, 13);
	tb_u32(&b, 0);
	tb_u8(&b, 0);
	CHECK(all_fail(b.data, b.len, NULL, SL_ERR_FORMAT));
	sl_nbt_check(b.data, b.len, 0, NULL, NULL, &err);
	CHECK(strcmp(err.msg, "NBT: unknown list element type 13 at offset 7") == 0);

	/* an empty list of End is fine */
	tb_root(&b);
	tb_tag(&b, SL_TAG_LIST, "l");
	tb_u8(&b, SL_TAG_END);
	tb_u32(&b, 0);
	tb_u8(&b, 0);
	CHECK_OK(sl_nbt_check(b.data, b.len, 0, NULL, NULL, &err), &err);
	CHECK(roundtrip_ok(b.data, b.len));

	/* missing End of the root compound */
	tb_root(&b);
	tb_tag(&b, SL_TAG_BYTE, "x");
	tb_u8(&b, 1);
	CHECK(all_fail(b.data, b.len, NULL, SL_ERR_FORMAT));
	sl_nbt_check(b.data, b.len, 0, NULL, NULL, &err);
	CHECK(strstr(err.msg, "tag type at offset 8 runs past end of data (8 bytes)") != NULL);
	sl_buf_free(&b);
}

void
test_nbt_huge_counts(void)
{
	static const uint8_t types[] = {SL_TAG_BYTE, SL_TAG_LONG, SL_TAG_STRING,
	SL_TAG_LIST, SL_TAG_COMPOUND, SL_TAG_INT_ARRAY};
	sl_buf		b = {0};

	for (size_t t = 0; t < sizeof(types); t++)
	{
		/* 2^31-1 elements announced, 64 zero bytes present */
		tb_root(&b);
		tb_tag(&b, SL_TAG_LIST, "l");
		tb_u8(&b, types[t]);
		tb_u32(&b, 0x7FFFFFFF);
		for (int i = 0; i < 64; i++)
			tb_u8(&b, 0);
		CHECK(all_fail(b.data, b.len, NULL, SL_ERR_FORMAT));
	}
	/* arrays announcing more than the buffer holds */
	for (unsigned t = SL_TAG_BYTE_ARRAY; t <= SL_TAG_LONG_ARRAY; t += 4)
	{
		tb_root(&b);
		tb_tag(&b, t, "a");
		tb_u32(&b, 0x7FFFFFFF);
		tb_u8(&b, 0);
		CHECK(all_fail(b.data, b.len, NULL, SL_ERR_FORMAT));
	}
	/* a list of compounds one End byte short */
	tb_root(&b);
	tb_tag(&b, SL_TAG_LIST, "l");
	tb_u8(&b, SL_TAG_COMPOUND);
	tb_u32(&b, 1000);
	for (int i = 0; i < 1000; i++)
		tb_u8(&b, 0);
	CHECK(all_fail(b.data, b.len, NULL, SL_ERR_FORMAT));
	tb_u8(&b, 0);
	CHECK(roundtrip_ok(b.data, b.len));
	sl_buf_free(&b);
}

/* Nested lists, depth levels in all (the root list is level 1). */
static void
build_nested_lists(sl_buf *b, int depth)
{
	b->len = 0;
	tb_tag(b, SL_TAG_LIST, "");
	for (int i = 1; i < depth; i++)
	{
		tb_u8(b, SL_TAG_LIST);
		tb_u32(b, 1);
	}
	tb_u8(b, SL_TAG_END);
	tb_u32(b, 0);
}

/* Nested compounds, depth levels in all. */
static void
build_nested_compounds(sl_buf *b, int depth)
{
	tb_root(b);
	for (int i = 1; i < depth; i++)
		tb_tag(b, SL_TAG_COMPOUND, "a");
	for (int i = 0; i < depth; i++)
		tb_u8(b, 0);
}

void
test_nbt_depth(void)
{
	sl_buf		b = {0};
	sl_buf		out = {0};
	sl_err		err = {0};
	sl_limits	lim = sl_default_limits;

	build_nested_lists(&b, 512);
	CHECK_OK(sl_nbt_check(b.data, b.len, 1, NULL, NULL, &err), &err);
	CHECK(roundtrip_ok(b.data, b.len));
	CHECK_OK(sl_nbt_to_json(b.data, b.len, NULL, &out, &err), &err);
	CHECK(json_valid(out.data, out.len));
	build_nested_lists(&b, 513);
	CHECK(all_fail(b.data, b.len, NULL, SL_ERR_LIMIT));
	sl_nbt_check(b.data, b.len, 1, NULL, NULL, &err);
	CHECK(strstr(err.msg, "deeper than 512 levels") != NULL);

	build_nested_compounds(&b, 512);
	CHECK_OK(sl_nbt_check(b.data, b.len, 0, NULL, NULL, &err), &err);
	CHECK(roundtrip_ok(b.data, b.len));
	build_nested_compounds(&b, 513);
	CHECK(all_fail(b.data, b.len, NULL, SL_ERR_LIMIT));

	lim.max_depth = 3;
	build_nested_compounds(&b, 3);
	CHECK_OK(sl_nbt_check(b.data, b.len, 0, &lim, NULL, &err), &err);
	build_nested_compounds(&b, 4);
	CHECK(all_fail(b.data, b.len, &lim, SL_ERR_LIMIT));

	/* very deep input with a small buffer: fails fast, no big stack */
	lim.max_depth = 1 << 30;
	build_nested_lists(&b, 100000);
	CHECK_OK(sl_nbt_check(b.data, b.len, 1, &lim, NULL, &err), &err);
	sl_buf_free(&out);
	sl_buf_free(&b);
}

static int	hook_calls;

/* Stack hook that always says the stack is too deep. */
static int
always_too_deep(void)
{
	hook_calls++;
	return 1;
}

/* Interrupt hook that counts calls. */
static void
count_interrupt(void)
{
	hook_calls++;
}

void
test_nbt_hooks(void)
{
	sl_buf		b = {0};
	sl_arena	arena = {0};
	sl_err		err = {0};
	sl_nbt	   *root = NULL;
	sl_limits	lim = sl_default_limits;
	sl_hooks_t	saved = sl_hooks;

	build_all_types(&b);
	sl_hooks.stack_too_deep = always_too_deep;
	hook_calls = 0;
	CHECK(all_fail(b.data, b.len, NULL, SL_ERR_LIMIT));
	CHECK(hook_calls == 6);		/* the check and the lookup ask twice: fast path, then the scanner */
	sl_hooks = saved;

	/* a list of 300000 bytes: interrupts are asked for, tree is capped */
	tb_root(&b);
	tb_tag(&b, SL_TAG_LIST, "l");
	tb_u8(&b, SL_TAG_BYTE);
	tb_u32(&b, 300000);
	for (int i = 0; i < 300000; i++)
		tb_u8(&b, i & 0x7F);
	tb_u8(&b, 0);
	sl_hooks.interrupt = count_interrupt;
	hook_calls = 0;
	CHECK_OK(sl_nbt_parse(b.data, b.len, NULL, &arena, &root, NULL, &err), &err);
	CHECK(hook_calls >= 4);
	sl_arena_free(&arena);
	sl_hooks = saved;
	{
		/* the check skips a list of numbers at once, but walks 300000 empty compounds */
		sl_buf		c = {0};

		tb_root(&c);
		tb_tag(&c, SL_TAG_LIST, "l");
		tb_u8(&c, SL_TAG_COMPOUND);
		tb_u32(&c, 300000);
		for (int i = 0; i < 300000; i++)
			tb_u8(&c, 0);
		tb_u8(&c, 0);
		sl_hooks.interrupt = count_interrupt;
		hook_calls = 0;
		CHECK_OK(sl_nbt_check(b.data, b.len, 0, NULL, NULL, &err), &err);
		CHECK(hook_calls == 0);
		CHECK_OK(sl_nbt_check(c.data, c.len, 0, NULL, NULL, &err), &err);
		CHECK(hook_calls >= 4);
		sl_hooks = saved;
		sl_buf_free(&c);
	}
	CHECK_OK(sl_nbt_parse(b.data, b.len, NULL, &arena, &root, NULL, &err), &err);
	CHECK(root && root->v.comp.items[0]->v.list.count == 300000 &&
		  root->v.comp.items[0]->v.list.items[299999]->v.i == (299999 & 0x7F));
	sl_arena_free(&arena);
	lim.max_chunk_raw = 100000;
	CHECK(sl_nbt_parse(b.data, b.len, &lim, &arena, &root, NULL, &err) == -1);
	CHECK(err.code == SL_ERR_LIMIT && strstr(err.msg, "list of 300000 items at offset 3"));
	sl_arena_free(&arena);

	/* many named tags hit the same cap while the tree grows */
	tb_root(&b);
	for (int i = 0; i < 50000; i++)
	{
		tb_tag(&b, SL_TAG_BYTE, "a");
		tb_u8(&b, 1);
	}
	tb_u8(&b, 0);
	CHECK(sl_nbt_parse(b.data, b.len, &lim, &arena, &root, NULL, &err) == -1);
	CHECK(err.code == SL_ERR_LIMIT && strstr(err.msg, "tree needs more than"));
	sl_arena_free(&arena);
	CHECK_OK(sl_nbt_parse(b.data, b.len, NULL, &arena, &root, NULL, &err), &err);
	CHECK(root && root->v.comp.count == 50000);
	sl_arena_free(&arena);
	sl_buf_free(&b);
}

void
test_nbt_json_numbers(void)
{
	char		big[400];
	char		tiny[400];
	sl_buf		b = {0};

	CHECK(json_one_double(0.1, "{\"v\":0.1}"));
	CHECK(json_one_double(100.0, "{\"v\":100.0}"));
	CHECK(json_one_double(0.0, "{\"v\":0.0}"));
	CHECK(json_one_double(-0.0, "{\"v\":{\"double\":\"-0.0\"}}"));
	CHECK(json_one_double(1e-5, "{\"v\":0.00001}"));
	CHECK(json_one_double(-123.456, "{\"v\":-123.456}"));
	CHECK(json_one_double(123456789012345678.0, "{\"v\":123456789012345680.0}"));
	CHECK(json_one_double(1.0 / 3, "{\"v\":0.3333333333333333}"));
	strcpy(big, "{\"v\":1");
	memset(big + 6, '0', 300);
	strcpy(big + 306, ".0}");
	CHECK(json_one_double(1e300, big));
	strcpy(tiny, "{\"v\":0.");
	memset(tiny + 7, '0', 323);
	strcpy(tiny + 330, "5}");
	CHECK(json_one_double(5e-324, tiny));
	CHECK(json_one_double(-1.5, "{\"v\":-1.5}"));
	strcpy(tiny, "{\"v\":-0.");
	memset(tiny + 8, '0', 309);
	strcpy(tiny + 317, "1}");
	CHECK(json_one_double(-1e-310, tiny));
	CHECK(json_one_double(NAN, "{\"v\":{\"double\":\"NaN\"}}"));
	CHECK(json_one_double(INFINITY, "{\"v\":{\"double\":\"Infinity\"}}"));
	CHECK(json_one_double(-INFINITY, "{\"v\":{\"double\":\"-Infinity\"}}"));
	CHECK(json_one_float(0.1f, "{\"v\":{\"float\":0.1}}"));
	CHECK(json_one_float(16777216.0f, "{\"v\":{\"float\":16777216.0}}"));
	CHECK(json_one_float(3.4028235e38f, "{\"v\":{\"float\":340282350000000000000000000000000000000.0}}"));
	CHECK(json_one_float(1e-45f, "{\"v\":{\"float\":0.000000000000000000000000000000000000000000001}}"));
	CHECK(json_one_float(1.17549435e-38f, "{\"v\":{\"float\":0.000000000000000000000000000000000000011754944}}"));
	CHECK(json_one_float(-0.0f, "{\"v\":{\"float\":\"-0.0\"}}"));
	CHECK(json_one_float(NAN, "{\"v\":{\"float\":\"NaN\"}}"));
	CHECK(json_one_float(-INFINITY, "{\"v\":{\"float\":\"-Infinity\"}}"));

	tb_root(&b);
	tb_tag(&b, SL_TAG_INT, "i");
	tb_u32(&b, 0x80000000);
	tb_tag(&b, SL_TAG_LONG, "l");
	tb_u64(&b, INT64_MAX);
	tb_tag(&b, SL_TAG_SHORT, "s");
	tb_u16(&b, 0);
	tb_tag(&b, SL_TAG_BYTE_ARRAY, "e");
	tb_u32(&b, 0);
	tb_u8(&b, 0);
	CHECK(json_is(&b, "{\"i\":-2147483648,\"l\":{\"long\":9223372036854775807},"
				  "\"s\":{\"short\":0},\"e\":{\"byte_array\":[]}}"));
	sl_buf_free(&b);
}

void
test_nbt_json_strings(void)
{
	sl_buf		b = {0};
	sl_buf		out = {0};
	sl_err		err = {0};

	CHECK(json_one_string("", 0, "{\"v\":\"\"}"));
	CHECK(json_one_string("a\"b\\c\n\x01\x7f", 8, "{\"v\":\"a\\\"b\\\\c\\u000a\\u0001\x7f\"}"));
	CHECK(json_one_string("\xc3\xa9\xe2\x82\xac", 5, "{\"v\":\"\xc3\xa9\xe2\x82\xac\"}"));
	/* U+1F600 as a surrogate pair in modified UTF-8 */
	CHECK(json_one_string("x\xed\xa0\xbd\xed\xb8\x80y", 8, "{\"v\":\"x\xf0\x9f\x98\x80y\"}"));
	/* U+0000 in both spellings, unpaired surrogates, raw UTF-8 4-byte, overlong */
	CHECK(json_one_string("a\xc0\x80", 3, "{\"v\":{\"mutf8\":\"61c080\"}}"));
	CHECK(json_one_string("\0", 1, "{\"v\":{\"mutf8\":\"00\"}}"));
	CHECK(json_one_string("\xed\xa0\xbd", 3, "{\"v\":{\"mutf8\":\"eda0bd\"}}"));
	CHECK(json_one_string("\xed\xb8\x80", 3, "{\"v\":{\"mutf8\":\"edb880\"}}"));
	CHECK(json_one_string("\xed\xa0\xbd" "ab", 5, "{\"v\":{\"mutf8\":\"eda0bd6162\"}}"));
	CHECK(json_one_string("\xf0\x9f\x98\x80", 4, "{\"v\":{\"mutf8\":\"f09f9880\"}}"));
	CHECK(json_one_string("\xc1\x81", 2, "{\"v\":{\"mutf8\":\"c181\"}}"));
	CHECK(json_one_string("\xe0\x81\x81", 3, "{\"v\":{\"mutf8\":\"e08181\"}}"));
	CHECK(json_one_string("\xc3", 1, "{\"v\":{\"mutf8\":\"c3\"}}"));
	CHECK(json_one_string("\x80", 1, "{\"v\":{\"mutf8\":\"80\"}}"));

	/* keys: escaped like strings; unrepresentable keys are refused */
	tb_root(&b);
	tb_tag(&b, SL_TAG_INT, "k\"\xed\xa0\xbd\xed\xb8\x80");
	tb_u32(&b, 1);
	tb_u8(&b, 0);
	CHECK(json_is(&b, "{\"k\\\"\xf0\x9f\x98\x80\":1}"));
	tb_root(&b);
	tb_u8(&b, SL_TAG_INT);
	tb_str(&b, "a\xc0\x80", 3);
	tb_u32(&b, 1);
	tb_u8(&b, 0);
	CHECK(sl_nbt_to_json(b.data, b.len, NULL, &out, &err) == -1);
	CHECK(err.code == SL_ERR_UNSUPPORTED && out.len == 0);
	CHECK(strstr(err.msg, "offset 3") != NULL);
	sl_buf_free(&out);
	sl_buf_free(&b);
}

void
test_nbt_json_wrap(void)
{
	sl_buf		b = {0};

	/* a lone reserved key is wrapped, also at the root */
	tb_root(&b);
	tb_tag(&b, SL_TAG_COMPOUND, "c");
	tb_tag(&b, SL_TAG_INT, "byte");
	tb_u32(&b, 1);
	tb_u8(&b, 0);
	tb_tag(&b, SL_TAG_COMPOUND, "d");
	tb_tag(&b, SL_TAG_COMPOUND, "compound");
	tb_u8(&b, 0);
	tb_u8(&b, 0);
	tb_u8(&b, 0);
	CHECK(json_is(&b, "{\"c\":{\"compound\":{\"byte\":1}},"
				  "\"d\":{\"compound\":{\"compound\":{}}}}"));
	tb_root(&b);
	tb_tag(&b, SL_TAG_LONG, "long");
	tb_u64(&b, 5);
	tb_u8(&b, 0);
	CHECK(json_is(&b, "{\"compound\":{\"long\":{\"long\":5}}}"));

	/* non-reserved lone keys and reserved keys with company are not */
	tb_root(&b);
	tb_tag(&b, SL_TAG_INT, "int");
	tb_u32(&b, 1);
	tb_u8(&b, 0);
	CHECK(json_is(&b, "{\"int\":1}"));
	tb_root(&b);
	tb_tag(&b, SL_TAG_INT, "mutf8");
	tb_u32(&b, 1);
	tb_tag(&b, SL_TAG_INT, "x");
	tb_u32(&b, 2);
	tb_u8(&b, 0);
	CHECK(json_is(&b, "            {\"mutf8\":1,\"x\":2}"));
	tb_root(&b);
	tb_tag(&b, SL_TAG_INT, "x");
	tb_u32(&b, 2);
	tb_tag(&b, SL_TAG_INT, "list");
	tb_u32(&b, 1);
	tb_u8(&b, 0);
	CHECK(json_is(&b, "{\"x\":2,\"list\":1}"));
	sl_buf_free(&b);
}

void
test_nbt_json_lists(void)
{
	sl_buf		b = {0};

	tb_root(&b);
	tb_tag(&b, SL_TAG_LIST, "e");
	tb_u8(&b, SL_TAG_INT);
	tb_u32(&b, 0);
	tb_tag(&b, SL_TAG_LIST, "i");
	tb_u8(&b, SL_TAG_INT);
	tb_u32(&b, 3);
	tb_u32(&b, 1);
	tb_u32(&b, 2);
	tb_u32(&b, 3);
	tb_tag(&b, SL_TAG_LIST, "d");
	tb_u8(&b, SL_TAG_DOUBLE);
	tb_u32(&b, 2);
	tb_double(&b, 1.0);
	tb_double(&b, 2.5);
	tb_tag(&b, SL_TAG_LIST, "s");
	tb_u8(&b, SL_TAG_STRING);
	tb_u32(&b, 2);
	tb_str(&b, "a", 1);
	tb_str(&b, "\xc0\x80", 2);
	tb_tag(&b, SL_TAG_LIST, "ll");
	tb_u8(&b, SL_TAG_LIST);
	tb_u32(&b, 2);
	tb_u8(&b, SL_TAG_BYTE);
	tb_u32(&b, 1);
	tb_u8(&b, 9);
	tb_u8(&b, SL_TAG_LONG_ARRAY);
	tb_u32(&b, 0);
	tb_tag(&b, SL_TAG_LIST, "lc");
	tb_u8(&b, SL_TAG_COMPOUND);
	tb_u32(&b, 3);
	tb_u8(&b, 0);
	tb_tag(&b, SL_TAG_STRING, "list");
	tb_str(&b, "x", 1);
	tb_u8(&b, 0);
	tb_tag(&b, SL_TAG_BYTE, "a");
	tb_u8(&b, 1);
	tb_u8(&b, 0);
	tb_tag(&b, SL_TAG_LIST, "la");
	tb_u8(&b, SL_TAG_INT_ARRAY);
	tb_u32(&b, 1);
	tb_u32(&b, 1);
	tb_u32(&b, 7);
	tb_u8(&b, 0);
	CHECK(json_is(&b, "{\"e\":{\"list\":\"int\"},\"i\":[1,2,3],\"d\":[1.0,2.5],"
				  "\"s\":[\"a\",{\"mutf8\":\"c080\"}],"
				  "\"ll\":[[{\"byte\":9}],{\"list\":\"long_array\"}],"
				  "\"lc\":[{},{\"compound\":{\"list\":\"x\"}},{\"a\":{\"byte\":1}}],"
				  "\"la\":[{\"int_array\":[7]}]}"));
	CHECK(roundtrip_ok(b.data, b.len));
	sl_buf_free(&b);
}

void
test_nbt_find_int(void)
{
	sl_buf		b = {0};
	sl_err		err = {0};
	int64_t		v = 0;
	const char *p_dv[] = {"DataVersion"};
	const char *p_x[] = {"Level", "xPos"};
	const char *p_z[] = {"Level", "zPos"};
	const char *p_name[] = {"Level", "name"};
	const char *p_miss[] = {"Level", "nope"};
	const char *p_dup[] = {"dup"};
	const char *p_a[] = {"Twice", "A"};
	const char *p_b[] = {"Twice", "B"};
	const char *p_deep[] = {"Level", "xPos", "more"};

	tb_root(&b);
	tb_tag(&b, SL_TAG_LIST, "skip");
	tb_u8(&b, SL_TAG_COMPOUND);
	tb_u32(&b, 1);
	tb_tag(&b, SL_TAG_INT, "DataVersion");
	tb_u32(&b, 99);
	tb_u8(&b, 0);
	tb_tag(&b, SL_TAG_INT, "DataVersion");
	tb_u32(&b, 3465);
	tb_tag(&b, SL_TAG_COMPOUND, "Level");
	tb_tag(&b, SL_TAG_INT, "xPos");
	tb_u32(&b, (uint32_t) -5);
	tb_tag(&b, SL_TAG_BYTE, "zPos");
	tb_u8(&b, 7);
	tb_tag(&b, SL_TAG_STRING, "name");
	tb_str(&b, "n", 1);
	tb_u8(&b, 0);
	tb_tag(&b, SL_TAG_INT, "dup");
	tb_u32(&b, 1);
	tb_tag(&b, SL_TAG_LONG, "dup");
	tb_u64(&b, 2);
	tb_tag(&b, SL_TAG_COMPOUND, "Twice");
	tb_tag(&b, SL_TAG_INT, "A");
	tb_u32(&b, 1);
	tb_u8(&b, 0);
	tb_tag(&b, SL_TAG_COMPOUND, "Twice");
	tb_tag(&b, SL_TAG_INT, "B");
	tb_u32(&b, 2);
	tb_u8(&b, 0);
	tb_u8(&b, 0);

	CHECK(sl_nbt_find_int(b.data, b.len, p_dv, 1, NULL, &v, &err) == 1 && v == 3465);
	CHECK(sl_nbt_find_int(b.data, b.len, p_x, 2, NULL, &v, &err) == 1 && v == -5);
	CHECK(sl_nbt_find_int(b.data, b.len, p_z, 2, NULL, &v, &err) == 1 && v == 7);
	CHECK(sl_nbt_find_int(b.data, b.len, p_name, 2, NULL, &v, &err) == 0);
	CHECK(sl_nbt_find_int(b.data, b.len, p_miss, 2, NULL, &v, &err) == 0);
	CHECK(sl_nbt_find_int(b.data, b.len, p_x, 1, NULL, &v, &err) == 0);
	CHECK(sl_nbt_find_int(b.data, b.len, p_deep, 3, NULL, &v, &err) == 0);
	CHECK(sl_nbt_find_int(b.data, b.len, p_dup, 1, NULL, &v, &err) == 1 && v == 2);
	CHECK(sl_nbt_find_int(b.data, b.len, p_a, 2, NULL, &v, &err) == 0);
	CHECK(sl_nbt_find_int(b.data, b.len, p_b, 2, NULL, &v, &err) == 1 && v == 2);
	CHECK(sl_nbt_find_int(b.data, b.len, NULL, 0, NULL, &v, &err) == 0);
	/* a malformed tail is reported even after the value */
	CHECK(sl_nbt_find_int(b.data, b.len - 1, p_dv, 1, NULL, &v, &err) == -1);
	CHECK(err.code == SL_ERR_FORMAT);

	/* the root itself with an empty path */
	b.len = 0;
	tb_tag(&b, SL_TAG_SHORT, "r");
	tb_u16(&b, 12);
	CHECK(sl_nbt_find_int(b.data, b.len, NULL, 0, NULL, &v, &err) == 1 && v == 12);
	sl_buf_free(&b);
}

void
test_nbt_write_invalid(void)
{
	sl_nbt		root,
				list,
				item;
	sl_nbt	   *items[1] = {&item};
	sl_nbt	   *kids[1] = {&list};
	sl_buf		out = {0};
	sl_err		err = {0};

	memset(&root, 0, sizeof(root));
	memset(&list, 0, sizeof(list));
	memset(&item, 0, sizeof(item));
	root.type = SL_TAG_COMPOUND;
	root.v.comp.count = 1;
	root.v.comp.items = kids;
	list.type = SL_TAG_LIST;
	list.name = "l";
	list.name_len = 1;
	list.v.list.elem_type = SL_TAG_INT;
	list.v.list.count = 1;
	list.v.list.items = items;
	item.type = SL_TAG_INT;
	item.v.i = 7;
	CHECK_OK(sl_nbt_write(&root, &out, &err), &err);
	CHECK(out.len == 3 + 3 + 1 + 5 + 4 + 1 && roundtrip_ok(out.data, out.len));

	out.len = 0;
	item.type = SL_TAG_BYTE;
	CHECK(sl_nbt_write(&root, &out, &err) == -1 && err.code == SL_ERR_INVALID && out.len == 0);
	list.v.list.elem_type = SL_TAG_END;
	CHECK(sl_nbt_write(&root, &out, &err) == -1 && err.code == SL_ERR_INVALID);
	list.v.list.elem_type = SL_TAG_BYTE;
	CHECK_OK(sl_nbt_write(&root, &out, &err), &err);
	out.len = 0;
	kids[0] = NULL;
	CHECK(sl_nbt_write(&root, &out, &err) == -1 && err.code == SL_ERR_INVALID);
	root.type = SL_TAG_END;
	CHECK(sl_nbt_write(&root, &out, &err) == -1 && err.code == SL_ERR_INVALID);
	root.type = 13;
	CHECK(sl_nbt_write(&root, &out, &err) == -1 && err.code == SL_ERR_INVALID);
	CHECK(sl_nbt_write(NULL, &out, &err) == -1 && err.code == SL_ERR_INVALID);
	CHECK(out.len == 0);
	sl_buf_free(&out);
}

/* Read a corpus file, or report it missing as a failure. */
static uint8_t *
corpus_file(const char *rel, size_t *len)
{
	const char *dir = sl_test_corpus();
	char		path[4096];
	uint8_t    *data;

	if (dir == NULL)
	{
		fprintf(stderr, "CORPUS MISSING: set SLIME_CORPUS or provide ../shared/corpus\n");
		CHECK(0);
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	data = sl_test_read_file(path, len);
	if (data == NULL)
	{
		fprintf(stderr, "CORPUS MISSING: %s\n", path);
		CHECK(0);
	}
	return data;
}

static const struct
{
	const char *file;
	int64_t		data_version;
}			chunk_files[] = {
	{"chunk-nbt/fastnbt/1.12.chunk", 1139},
	{"chunk-nbt/fastnbt/1.17.1-custom-heights.chunk", 2730},
	{"chunk-nbt/fastnbt/1.17.1.chunk", 2730},
	{"chunk-nbt/fastnbt/21w44a-test1.nbt", 2845},
	{"chunk-nbt/fastnbt/etho-end-r.-6.-1.c.7.25.nbt", 2578},
	{"chunk-nbt/fastnbt/forge-1.20.1.nbt", 3465},
	{"chunk-nbt/fastnbt/issue99-chunk.nbt", 2865},
	{"chunk-nbt/fastnbt/unicode.chunk", 2730},
};

void
test_nbt_corpus_chunks(void)
{
	const char *dv[] = {"DataVersion"};

	for (size_t i = 0; i < sizeof(chunk_files) / sizeof(chunk_files[0]); i++)
	{
		size_t		len = 0,
					used = 0;
		uint8_t    *data = corpus_file(chunk_files[i].file, &len);
		sl_buf		out = {0};
		sl_err		err = {0};
		int64_t		v = 0;

		if (data == NULL)
			return;
		CHECK_OK(sl_nbt_check(data, len, 0, NULL, &used, &err), &err);
		CHECK(used == len);
		CHECK(roundtrip_ok(data, len));
		CHECK(sl_nbt_find_int(data, len, dv, 1, NULL, &v, &err) == 1);
		CHECK(v == chunk_files[i].data_version);
		CHECK_OK(sl_nbt_to_json(data, len, NULL, &out, &err), &err);
		CHECK(json_valid(out.data, out.len));
		if (!json_valid(out.data, out.len))
			fprintf(stderr, "invalid JSON from %s\n", chunk_files[i].file);
		sl_buf_free(&out);
		free(data);
	}
}

void
test_nbt_corpus_damaged(void)
{
	size_t		len = 0;
	uint8_t    *data;

	data = corpus_file("damaged/querz-nbt/max_depth_reached.dat", &len);
	if (data == NULL)
		return;
	CHECK(all_fail(data, len, NULL, SL_ERR_LIMIT));
	free(data);
	data = corpus_file("damaged/querz-nbt/invalid_compression.dat", &len);
	if (data == NULL)
		return;
	CHECK(all_fail(data, len, NULL, SL_ERR_FORMAT));
	free(data);
	data = corpus_file("damaged/querz-nbt/invalid_data_tag.dat", &len);
	if (data == NULL)
		return;
	CHECK(all_fail(data, len, NULL, SL_ERR_FORMAT));
	free(data);
}

/* Next value of a small deterministic generator. */
static uint32_t
lcg_next(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

/* All readers must agree on a (possibly damaged) document. */
static int
readers_agree(const uint8_t *doc, size_t len)
{
	sl_arena	arena = {0};
	sl_buf		out = {0};
	sl_err		err = {0};
	sl_nbt	   *root = NULL;
	size_t		c1 = 0,
				c2 = 0;
	int64_t		v;
	const char *path[] = {"Level", "xPos"};
	int			rc_check = sl_nbt_check(doc, len, 1, NULL, &c1, &err);
	int			rc_parse = sl_nbt_parse(doc, len, NULL, &arena, &root, &c2, &err);
	int			rc_find = sl_nbt_find_int(doc, len, path, 2, NULL, &v, &err);
	int			rc_json = sl_nbt_to_json(doc, len, NULL, &out, &err);
	int			ok = rc_check == rc_parse && (rc_find == -1) == (rc_check == -1) &&
		(rc_json == 0 || err.code == SL_ERR_UNSUPPORTED || rc_check == -1);

	if (ok && rc_check == 0)
	{
		ok = c1 == c2 && (rc_json != 0 || json_valid(out.data, out.len));
		out.len = 0;
		ok = ok && sl_nbt_write(root, &out, &err) == 0 && out.len == c1 &&
			memcmp(out.data, doc, c1) == 0;
	}
	sl_buf_free(&out);
	sl_arena_free(&arena);
	return ok;
}

void
test_nbt_mutations(void)
{
	size_t		len = 0;
	uint8_t    *orig = corpus_file("chunk-nbt/fastnbt/etho-end-r.-6.-1.c.7.25.nbt", &len);
	uint8_t    *doc;
	uint32_t	seed = 12345;
	int			bad = 0;

	if (orig == NULL)
		return;
	doc = malloc(len);
	for (int round = 0; round < 600; round++)
	{
		size_t		n = len;
		int			flips = 1 + (int) (lcg_next(&seed) % 3);

		memcpy(doc, orig, len);
		for (int k = 0; k < flips; k++)
		{
			size_t		at = lcg_next(&seed) % len;
			uint32_t	what = lcg_next(&seed);

			doc[at] = (what & 0x100) ? (uint8_t) what : (uint8_t) (doc[at] ^ (1u << (what % 8)));
		}
		if (round % 7 == 0)
			n = lcg_next(&seed) % len;
		if (!readers_agree(doc, n))
		{
			bad++;
			fprintf(stderr, "readers disagree on mutation round %d\n", round);
		}
	}
	CHECK(bad == 0);
	free(doc);
	free(orig);
}

/* Names of the root entries of build_all_types, in order. */
static const char *const all_type_names[] = {
	"b", "s", "i", "l", "f", "d", "ba", "str", "li", "c", "ia", "la", "empty"
};

void
test_nbt_without_tree(void)
{
	sl_buf		b = {0};
	sl_err		err = {0};
	sl_arena	arena = {0};
	sl_limits	lim = sl_default_limits;
	sl_nbt	   *node = NULL;
	size_t		pos = 3,
				at_c = 0,
				at_li = 0,
				end_c = 0;
	int			k = 0,
				t,
				bad = 0;
	const char *name;
	uint16_t	nl;

	/* the root's entries one by one: every name, every payload skipped, the End last */
	build_all_types(&b);
	while ((t = sl_nbt_entry_head(b.data, b.len, &pos, &name, &nl)) > 0)
	{
		CHECK(k < 13 && nl == strlen(all_type_names[k]) && memcmp(name, all_type_names[k], nl) == 0);
		if (t == SL_TAG_COMPOUND)
			at_c = pos;
		if (t == SL_TAG_LIST && nl == 2)
			at_li = pos;
		CHECK(sl_nbt_skip(b.data, b.len, &pos, (uint8_t) t, 512));
		if (t == SL_TAG_COMPOUND)
			end_c = pos;
		k++;
	}
	CHECK(t == SL_TAG_END && k == 13 && pos == b.len);

	/* a payload as a tree: the compound "c" and the list "li" */
	CHECK_OK(sl_nbt_parse_payload(b.data + at_c, end_c - at_c, SL_TAG_COMPOUND, 4096, NULL, &arena,
								  &node, &err), &err);
	CHECK(node->type == SL_TAG_COMPOUND && node->name_len == 0 && node->v.comp.count == 1 &&
		  sl_nbt_child(node, "x") && sl_nbt_child(node, "x")->v.i == 42);
	CHECK_OK(sl_nbt_parse_payload(b.data + at_li, b.len - at_li, SL_TAG_LIST, 4096, NULL, &arena,
								  &node, &err), &err);
	CHECK(node->type == SL_TAG_LIST && node->v.list.count == 2 && node->v.list.items[1]->v.i == -1);
	CHECK(sl_nbt_parse_payload(b.data + at_c, end_c - at_c, SL_TAG_COMPOUND, 16, NULL, &arena,
							   &node, &err) == -1 && err.code == SL_ERR_LIMIT);
	CHECK(sl_nbt_parse_payload(b.data, b.len, SL_TAG_END, 4096, NULL, &arena, &node, &err) == -1 &&
		  err.code == SL_ERR_INVALID);
	CHECK(sl_nbt_parse_payload(b.data, b.len, 13, 4096, NULL, &arena, &node, &err) == -1 &&
		  err.code == SL_ERR_INVALID);

	/* every cut of the root payload fails to skip and to parse, and *pos stays */
	for (size_t n = 3; n < b.len; n++)
	{
		size_t		p = 3;

		if (sl_nbt_skip(b.data, n, &p, SL_TAG_COMPOUND, 512) || p != 3 ||
			sl_nbt_parse_payload(b.data + 3, n - 3, SL_TAG_COMPOUND, 1 << 20, NULL, &arena, &node,
								 &err) != -1 || err.code != SL_ERR_FORMAT)
			bad++;
	}
	CHECK(bad == 0);
	pos = 0;
	CHECK(!sl_nbt_skip(b.data, b.len, &pos, SL_TAG_END, 512) && !sl_nbt_skip(b.data, b.len, &pos, 13, 512));
	pos = b.len + 1;
	CHECK(!sl_nbt_skip(b.data, b.len, &pos, SL_TAG_BYTE, 512));
	pos = b.len;
	CHECK(sl_nbt_entry_head(b.data, b.len, &pos, &name, &nl) == -1);
	b.data[3] = 42;				/* an unknown type where the first entry starts */
	pos = 3;
	CHECK(sl_nbt_entry_head(b.data, b.len, &pos, &name, &nl) == -1 && pos == 3);

	/* nesting counts from the payload: four compounds need four levels */
	build_nested_compounds(&b, 4);
	pos = 3;
	CHECK(!sl_nbt_skip(b.data, b.len, &pos, SL_TAG_COMPOUND, 3) && pos == 3);
	CHECK(sl_nbt_skip(b.data, b.len, &pos, SL_TAG_COMPOUND, 4) && pos == b.len);
	lim.max_depth = 3;
	CHECK(sl_nbt_parse_payload(b.data + 3, b.len - 3, SL_TAG_COMPOUND, 4096, &lim, &arena, &node,
							   &err) == -1 && err.code == SL_ERR_LIMIT);
	lim.max_depth = 4;
	CHECK_OK(sl_nbt_parse_payload(b.data + 3, b.len - 3, SL_TAG_COMPOUND, 4096, &lim, &arena, &node,
								  &err), &err);
	sl_arena_free(&arena);
	sl_buf_free(&b);
}
