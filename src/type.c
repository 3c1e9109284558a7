/*
 * type.c - the slime type: text and binary input/output, casts, equality.
 *
 * Text form (sl_text): "b64:" followed by the base64 of the value bytes, or
 * with slime.text_output = hex the "\x" + hex digits that 0.1.0 to 0.3.0
 * wrote; input reads both. Every way in (text, binary, cast from bytea) runs
 * the same check, sl_value_check, and never reads tables or the search path.
 */
#include "slime.h"

#include "common/hashfn.h"
#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "sl_text.h"
#include "sl_vsum.h"

/* Check value bytes and wrap them in a slime datum, or raise. */
static struct varlena *
checked_slime(const uint8_t *data, size_t len)
{
	sl_err		err;

	if (len > SL_MAX_VALUE)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("slime value of %zu bytes exceeds the cap of %zu bytes", len, SL_MAX_VALUE)));
	if (sl_value_check(data, len, slime_check_full(), slime_limits(), &err))
		slime_raise(&err, true);
	return slime_from_bytes(data, len);
}

PG_FUNCTION_INFO_V1(slime_in);
/* Parse the text form of a slime value (base64 or the older hex). */
Datum
slime_in(PG_FUNCTION_ARGS)
{
	char	   *s = PG_GETARG_CSTRING(0);
	uint8_t    *buf;
	size_t		n;
	sl_err		err;

	if (sl_text_decode(s, strlen(s), &buf, &n, &err))
	{
		if (err.code == SL_ERR_NOMEM)
			slime_raise(&err, true);
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type slime"),
				 errdetail("%c%s.", pg_toupper((unsigned char) err.msg[0]), err.msg + 1)));
	}
	PG_RETURN_POINTER(checked_slime(buf, n));
}

PG_FUNCTION_INFO_V1(slime_out);
/* Write the text form of a slime value (slime.text_output: base64 or hex). */
Datum
slime_out(PG_FUNCTION_ARGS)
{
	struct varlena *v = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0));
	size_t		n = VARSIZE_ANY_EXHDR(v);
	sl_text_form form = slime_text_hex() ? SL_TEXT_HEX : SL_TEXT_BASE64;
	size_t		len = sl_text_len(n, form);
	char	   *s;

	if (len >= MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("slime value of %zu bytes is too large for its text form", n)));
	s = palloc(len + 1);
	sl_text_encode((const uint8_t *) VARDATA_ANY(v), n, form, s);
	PG_RETURN_CSTRING(s);
}

PG_FUNCTION_INFO_V1(slime_recv);
/* Read the binary form: the value bytes themselves. */
Datum
slime_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	size_t		n = buf->len - buf->cursor;
	const char *p = pq_getmsgbytes(buf, (int) n);

	PG_RETURN_POINTER(checked_slime((const uint8_t *) p, n));
}

PG_FUNCTION_INFO_V1(slime_send);
/* Write the binary form: the value bytes themselves (one copy, as bytea does). */
Datum
slime_send(PG_FUNCTION_ARGS)
{
	PG_RETURN_BYTEA_P(PG_DETOAST_DATUM_COPY(PG_GETARG_DATUM(0)));
}

PG_FUNCTION_INFO_V1(slime_from_bytea);
/* Cast bytea to slime, with the same check as input. */
Datum
slime_from_bytea(PG_FUNCTION_ARGS)
{
	bytea	   *b = PG_GETARG_BYTEA_PP(0);

	PG_RETURN_POINTER(checked_slime((const uint8_t *) VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b)));
}

PG_FUNCTION_INFO_V1(slime_to_bytea);
/* Cast slime to bytea: the value bytes. */
Datum
slime_to_bytea(PG_FUNCTION_ARGS)
{
	struct varlena *v = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0));

	PG_RETURN_BYTEA_P(slime_from_bytes((const uint8_t *) VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v)));
}

/*
 * Content hash of a value (format v2's definition): read from the header
 * slice of a v2 value, computed from the chunks of a v1 value.
 */
static void
content_hash(Datum d, uint8_t hash[32])
{
	slime_open_value o;
	sl_err		err;

	slime_open(&o, d, false);
	if (sl_value_content_hash(&o.v, hash, &err))
		slime_raise(&err, false);
	sl_value_close(&o.v);
}

PG_FUNCTION_INFO_V1(slime_eq);
/* Two values are equal when their canonical contents hash alike. */
Datum
slime_eq(PG_FUNCTION_ARGS)
{
	uint8_t		a[32],
				b[32];

	content_hash(PG_GETARG_DATUM(0), a);
	content_hash(PG_GETARG_DATUM(1), b);
	PG_RETURN_BOOL(memcmp(a, b, 32) == 0);
}

PG_FUNCTION_INFO_V1(slime_ne);
/* Negation of slime_eq. */
Datum
slime_ne(PG_FUNCTION_ARGS)
{
	uint8_t		a[32],
				b[32];

	content_hash(PG_GETARG_DATUM(0), a);
	content_hash(PG_GETARG_DATUM(1), b);
	PG_RETURN_BOOL(memcmp(a, b, 32) != 0);
}

PG_FUNCTION_INFO_V1(slime_hash);
/* Hash opclass support: the first bytes of the content hash. */
Datum
slime_hash(PG_FUNCTION_ARGS)
{
	uint8_t		h[32];

	content_hash(PG_GETARG_DATUM(0), h);
	PG_RETURN_INT32((int32) sl_get_u32be(h));
}

PG_FUNCTION_INFO_V1(slime_content_hash);
/* The SHA-256 content hash of a value. */
Datum
slime_content_hash(PG_FUNCTION_ARGS)
{
	uint8_t		h[32];

	content_hash(PG_GETARG_DATUM(0), h);
	PG_RETURN_BYTEA_P(slime_from_bytes(h, 32));
}

/*
 * The full check, and the contents summary of a value holding no chunk in
 * the store counted again (the summary of one that does is checked by
 * slime_verify_refs, which reads the store).
 */
static int
verify_value(const uint8_t *data, size_t len, sl_err *err)
{
	sl_value	val;
	int			rc;

	if (sl_value_verify(data, len, slime_limits(), err))
		return -1;
	if (sl_value_open_mem(&val, data, len, slime_limits(), err))
		return -1;
	rc = val.hdr.ref_count == 0 ? sl_value_check_summary(&val, err) : 0;
	sl_value_close(&val);
	return rc;
}

PG_FUNCTION_INFO_V1(slime_verify);
/* Run the full check on a stored value; false (with a NOTICE) when it fails. */
Datum
slime_verify(PG_FUNCTION_ARGS)
{
	struct varlena *v = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0));
	sl_err		err;

	if (verify_value((const uint8_t *) VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v), &err))
	{
		ereport(NOTICE,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("slime value fails its check: %s", err.msg)));
		PG_RETURN_BOOL(false);
	}
	PG_RETURN_BOOL(true);
}
