/*
 * json.c - jsonb back to NBT: the inverse of the lossless mapping that
 * sl_nbt_to_json writes (doc/format.md, "NBT as JSON").
 */
#include "slime.h"

#include <math.h>

#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "sl_nbt.h"

/* Reserved wrapper keys, indexed by the NBT type they stand for. */
static const char *const wrapper_names[] = {
	NULL, "byte", "short", NULL, "long", "float", "double", "byte_array",
	NULL, "list", "compound", "int_array", "long_array"
};

#define TYPE_MUTF8 100			/* {"mutf8": hex}: a string given as raw bytes */

typedef struct json_writer
{
	sl_buf		out;
	int			depth;
	int			max_depth;
} json_writer;

static void write_payload(json_writer *w, JsonbValue *v, int type);

/* Raise a conversion error. */
static void
bad_json(const char *fmt, const char *arg)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg(fmt, arg),
			 errhint("slime_json_to_nbt() reads the mapping slime_nbt_to_json() writes.")));
}

/* Append bytes, raising on failure. */
static void
put(json_writer *w, const void *p, size_t n)
{
	sl_err		err;

	if (sl_buf_put(&w->out, p, n, &err))
		slime_raise(&err, false);
}

/* Append big-endian integers. */
static void
put_be(json_writer *w, uint64_t v, int bytes)
{
	uint8_t		t[8];

	for (int i = 0; i < bytes; i++)
		t[i] = (uint8_t) (v >> (8 * (bytes - 1 - i)));
	put(w, t, (size_t) bytes);
}

/* The text of a numeric. */
static char *
numeric_text(JsonbValue *v)
{
	return DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(v->val.numeric)));
}

/* A NUL-terminated copy of a jsonb string. */
static char *
string_of(JsonbValue *v)
{
	return pnstrdup(v->val.string.val, v->val.string.len);
}

/* An integer within [lo, hi] from a numeric without a fraction. */
static int64
integer_of(JsonbValue *v, int64 lo, int64 hi, const char *what)
{
	char	   *s;
	char	   *end;
	long long	n;

	if (v->type != jbvNumeric)
		bad_json("%s value must be a JSON number", what);
	s = numeric_text(v);
	errno = 0;
	n = strtoll(s, &end, 10);
	if (*end != '\0' || errno != 0 || n < lo || n > hi)
		bad_json("%s value out of range or not an integer", what);
	return (int64) n;
}

/* A floating-point value: a number, or "NaN", "Infinity", "-Infinity", "-0.0". */
static double
real_of(JsonbValue *v, const char *what)
{
	char	   *s = v->type == jbvNumeric ? numeric_text(v) : v->type == jbvString ? string_of(v) : NULL;
	char	   *end;
	double		d;

	if (s == NULL)
		bad_json("%s value must be a number or a string", what);
	if (strcmp(s, "NaN") == 0)
		return NAN;
	if (strcmp(s, "Infinity") == 0)
		return INFINITY;
	if (strcmp(s, "-Infinity") == 0)
		return -INFINITY;
	d = strtod(s, &end);
	if (*end != '\0')
		bad_json("%s value is not a number", what);
	return d;
}

/* The single key and value of an object with one pair; false otherwise. */
static bool
single_pair(JsonbContainer *c, char **key, JsonbValue *val)
{
	JsonbIterator *it;
	JsonbValue	k;
	JsonbIteratorToken tok;

	if (!JsonContainerIsObject(c) || JsonContainerSize(c) != 1)
		return false;
	it = JsonbIteratorInit(c);
	tok = JsonbIteratorNext(&it, &k, true);	/* WJB_BEGIN_OBJECT */
	tok = JsonbIteratorNext(&it, &k, true);
	Assert(tok == WJB_KEY);
	*key = string_of(&k);
	tok = JsonbIteratorNext(&it, val, true);
	Assert(tok == WJB_VALUE);
	(void) tok;
	return true;
}

/* The wrapper type of a one-pair object's key, or -1. */
static int
wrapper_type(const char *key)
{
	if (strcmp(key, "mutf8") == 0)
		return TYPE_MUTF8;
	for (int t = 1; t <= SL_TAG_LONG_ARRAY; t++)
		if (wrapper_names[t] && strcmp(key, wrapper_names[t]) == 0)
			return t;
	return -1;
}

/* The NBT type a JSON value stands for. */
static int
type_of(JsonbValue *v)
{
	switch (v->type)
	{
		case jbvString:
			return SL_TAG_STRING;
		case jbvNumeric:
			return strchr(numeric_text(v), '.') ? SL_TAG_DOUBLE : SL_TAG_INT;
		case jbvBinary:
			{
				char	   *key;
				JsonbValue	inner;
				int			t;

				if (JsonContainerIsArray(v->val.binary.data))
					return SL_TAG_LIST;
				if (single_pair(v->val.binary.data, &key, &inner) && (t = wrapper_type(key)) > 0)
					return t == TYPE_MUTF8 ? SL_TAG_STRING : t;
				return SL_TAG_COMPOUND;
			}
		default:
			bad_json("JSON %s has no NBT counterpart", v->type == jbvNull ? "null" : "true/false");
	}
	return -1;
}

/* Write a UTF-8 string (or a {"mutf8": hex} object) as an NBT string payload. */
static void
write_string(json_writer *w, JsonbValue *v)
{
	sl_buf		m = {0};
	sl_err		err;
	char	   *key;
	JsonbValue	inner;

	if (v->type == jbvBinary && single_pair(v->val.binary.data, &key, &inner))
	{
		char	   *hex;
		size_t		n;
		bytea	   *raw;

		if (inner.type != jbvString || inner.val.string.len % 2)
			bad_json("%s must hold an even number of hex digits", "mutf8");
		hex = string_of(&inner);
		n = strlen(hex) / 2;
		raw = DatumGetByteaPP(DirectFunctionCall2(binary_decode, CStringGetTextDatum(hex),
												  CStringGetTextDatum("hex")));
		if (n > 65535)
			bad_json("%s string longer than 65535 bytes", "mutf8");
		put_be(w, n, 2);
		put(w, VARDATA_ANY(raw), n);
		return;
	}
	if (sl_utf8_to_mutf8(v->val.string.val, (size_t) v->val.string.len, &m, &err) != 0)
		bad_json("%s is not valid UTF-8", "string");
	if (m.len > 65535)
		bad_json("%s longer than 65535 bytes in modified UTF-8", "string");
	put_be(w, m.len, 2);
	put(w, m.data, m.len);
}

/* Write an object's pairs as compound entries and the End tag. */
static void
write_compound(json_writer *w, JsonbContainer *c)
{
	JsonbIterator *it = JsonbIteratorInit(c);
	JsonbValue	k,
				v;
	JsonbIteratorToken tok;

	while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
	{
		JsonbValue	name;
		int			type;

		if (tok != WJB_KEY)
			continue;
		tok = JsonbIteratorNext(&it, &v, true);
		type = type_of(&v);
		put_be(w, (uint64_t) type, 1);
		name.type = jbvString;
		name.val.string = k.val.string;
		write_string(w, &name);
		write_payload(w, &v, type);
	}
	put_be(w, 0, 1);
}

/* Write a JSON array as a list payload, every item of the first item's type. */
static void
write_list(json_writer *w, JsonbContainer *c)
{
	JsonbIterator *it = JsonbIteratorInit(c);
	JsonbValue	v;
	JsonbIteratorToken tok;
	int			elem = -1;

	if (JsonContainerSize(c) == 0)
	{
		put_be(w, 0, 1);
		put_be(w, 0, 4);
		return;
	}
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		int			t;

		if (tok != WJB_ELEM)
			continue;
		t = type_of(&v);
		if (elem < 0)
		{
			elem = t;
			put_be(w, (uint64_t) elem, 1);
			put_be(w, JsonContainerSize(c), 4);
		}
		else if (t != elem)
			bad_json("list items must all be of one NBT type (first is %s)", sl_nbt_type_name(elem));
		write_payload(w, &v, t);
	}
}

/* Write a typed array ({"int_array": [...]}) payload. */
static void
write_array(json_writer *w, JsonbValue *inner, int type)
{
	static const int64 lo[] = {0, 0, 0, 0, 0, 0, 0, PG_INT8_MIN, 0, 0, 0, PG_INT32_MIN, PG_INT64_MIN};
	static const int64 hi[] = {0, 0, 0, 0, 0, 0, 0, PG_INT8_MAX, 0, 0, 0, PG_INT32_MAX, PG_INT64_MAX};
	int			size = type == SL_TAG_BYTE_ARRAY ? 1 : type == SL_TAG_INT_ARRAY ? 4 : 8;
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	uint32		n = 0;

	if (inner->type != jbvBinary || !JsonContainerIsArray(inner->val.binary.data))
		bad_json("%s must hold a JSON array", sl_nbt_type_name(type));
	put_be(w, JsonContainerSize(inner->val.binary.data), 4);
	it = JsonbIteratorInit(inner->val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		if (tok != WJB_ELEM)
			continue;
		put_be(w, (uint64_t) integer_of(&v, lo[type], hi[type], sl_nbt_type_name(type)), size);
		if ((++n & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
}

/* Write a numeric wrapper's payload ({"byte": 1}, {"float": 0.5}, ...). */
static void
write_number(json_writer *w, JsonbValue *inner, int type)
{
	double		d;
	float		f;
	uint32		fbits;
	uint64		dbits;

	switch (type)
	{
		case SL_TAG_BYTE:
			put_be(w, (uint64_t) integer_of(inner, PG_INT8_MIN, PG_INT8_MAX, "byte"), 1);
			break;
		case SL_TAG_SHORT:
			put_be(w, (uint64_t) integer_of(inner, PG_INT16_MIN, PG_INT16_MAX, "short"), 2);
			break;
		case SL_TAG_INT:
			put_be(w, (uint64_t) integer_of(inner, PG_INT32_MIN, PG_INT32_MAX, "int"), 4);
			break;
		case SL_TAG_LONG:
			put_be(w, (uint64_t) integer_of(inner, PG_INT64_MIN, PG_INT64_MAX, "long"), 8);
			break;
		case SL_TAG_FLOAT:
			f = (float) real_of(inner, "float");
			memcpy(&fbits, &f, 4);
			put_be(w, fbits, 4);
			break;
		default:
			d = real_of(inner, "double");
			memcpy(&dbits, &d, 8);
			put_be(w, dbits, 8);
			break;
	}
}

/* Write the payload of v as NBT type type. */
static void
write_payload(json_writer *w, JsonbValue *v, int type)
{
	char	   *key = NULL;
	JsonbValue	inner;
	bool		wrapped = v->type == jbvBinary && single_pair(v->val.binary.data, &key, &inner) &&
		wrapper_type(key) > 0;

	check_stack_depth();
	if ((type == SL_TAG_LIST || type == SL_TAG_COMPOUND) && ++w->depth > w->max_depth)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("JSON nests deeper than %d levels of NBT", w->max_depth)));
	if (type == SL_TAG_STRING)
		write_string(w, v);
	else if (type == SL_TAG_COMPOUND)
	{
		JsonbValue *obj = wrapped ? &inner : v;

		if (obj->type != jbvBinary || !JsonContainerIsObject(obj->val.binary.data))
			bad_json("%s must hold a JSON object", "compound");
		write_compound(w, obj->val.binary.data);
	}
	else if (type == SL_TAG_LIST && !wrapped)
		write_list(w, v->val.binary.data);
	else if (type == SL_TAG_LIST)
	{
		char	   *name = inner.type == jbvString ? string_of(&inner) : "";
		int			elem = -1;

		for (int t = 0; t <= SL_TAG_LONG_ARRAY; t++)
			if (strcmp(name, sl_nbt_type_name(t)) == 0)
				elem = t;
		if (elem < 0)
			bad_json("unknown list element type \"%s\"", name);
		put_be(w, (uint64_t) elem, 1);
		put_be(w, 0, 4);
	}
	else if (type == SL_TAG_BYTE_ARRAY || type == SL_TAG_INT_ARRAY || type == SL_TAG_LONG_ARRAY)
		write_array(w, &inner, type);
	else
		write_number(w, wrapped ? &inner : v, type);
	if (type == SL_TAG_LIST || type == SL_TAG_COMPOUND)
		w->depth--;
}

PG_FUNCTION_INFO_V1(slime_json_to_nbt);
/* NBT (root named "") from jsonb in the lossless mapping. */
Datum
slime_json_to_nbt(PG_FUNCTION_ARGS)
{
	Jsonb	   *j = PG_GETARG_JSONB_P(0);
	json_writer w;
	JsonbValue	root;
	int			type;
	bytea	   *r;
	sl_err		err;

	memset(&w, 0, sizeof(w));
	w.max_depth = slime_limits()->max_depth;
	if (!JsonbExtractScalar(&j->root, &root))
	{
		root.type = jbvBinary;
		root.val.binary.data = &j->root;
		root.val.binary.len = VARSIZE(j) - VARHDRSZ;
	}
	type = type_of(&root);
	if (sl_buf_put_u32be(&w.out, 0, &err))
		slime_raise(&err, false);
	put_be(&w, (uint64_t) type, 1);
	put_be(&w, 0, 2);
	write_payload(&w, &root, type);
	if (w.out.len - VARHDRSZ > slime_limits()->max_chunk_raw)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("NBT of %zu bytes exceeds slime.max_chunk_size", w.out.len - VARHDRSZ)));
	r = (bytea *) w.out.data;
	SET_VARSIZE(r, w.out.len);
	PG_RETURN_BYTEA_P(r);
}
