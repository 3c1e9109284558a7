/*
 * worldfile.c - a world's own files in SQL (the files table beside the
 * world rows, clients/import-world.sh): slime_file_json reads an NBT file
 * (a player's .dat, a map, raids, scoreboard; gzip, zlib or plain) as JSON
 * by the lossless mapping, a JSON file (stats, advancements) as jsonb, and
 * gives NULL for a file of bytes only.
 */
#include "slime.h"

#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "sl_build.h"
#include "sl_nbt.h"
#include "sl_wfile.h"

/* Name the world file in the context of an error raised while reading it. */
static void
file_context(void *arg)
{
	errcontext("world file \"%s\"", (const char *) arg);
}

/* A JSON file as jsonb: UTF-8 text (converted to the database's encoding). */
static Datum
json_file(const char *path, const uint8_t *data, size_t len)
{
	ErrorContextCallback ctx;
	char	   *text;
	Datum		result;

	if (memchr(data, '\0', len) != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("world file \"%s\" holds a NUL byte: not a JSON text", path)));
	ctx.callback = file_context;
	ctx.arg = (void *) path;
	ctx.previous = error_context_stack;
	error_context_stack = &ctx;
	text = pnstrdup((const char *) data, len);
	text = pg_any_to_server(text, (int) len, PG_UTF8);
	result = DirectFunctionCall1(jsonb_in, CStringGetDatum(text));
	error_context_stack = ctx.previous;
	return result;
}

/* An NBT file (gzip, zlib or plain) as jsonb by the lossless mapping. */
static Datum
nbt_file(const char *path, const uint8_t *data, size_t len)
{
	uint8_t    *nbt;
	size_t		nbt_len;
	sl_buf		out = {0};
	sl_err		err;

	if (sl_unpack_nbt(data, len, 1, slime_limits(), &nbt, &nbt_len, &err) ||
		sl_nbt_to_json(nbt, nbt_len, slime_limits(), &out, &err) ||
		sl_buf_put_u8(&out, 0, &err))
	{
		sl_err_prefix(&err, "world file \"%s\"", path);
		slime_raise(&err, true);
	}
	return DirectFunctionCall1(jsonb_in, CStringGetDatum((const char *) out.data));
}

PG_FUNCTION_INFO_V1(slime_file_json);
/* A world file as JSON: NBT by the lossless mapping, JSON as it is, NULL for bytes. */
Datum
slime_file_json(PG_FUNCTION_ARGS)
{
	char	   *path = text_to_cstring(PG_GETARG_TEXT_PP(0));
	bytea	   *in = PG_GETARG_BYTEA_PP(1);
	const uint8_t *data = (const uint8_t *) VARDATA_ANY(in);
	size_t		len = VARSIZE_ANY_EXHDR(in);

	switch (sl_wfile_kind_of(path))
	{
		case SL_WFILE_NBT:
			PG_RETURN_DATUM(nbt_file(path, data, len));
		case SL_WFILE_JSON:
			PG_RETURN_DATUM(json_file(path, data, len));
		default:
			PG_RETURN_NULL();
	}
}

PG_FUNCTION_INFO_V1(slime_file_kind);
/* What slime_file_json reads a world file as, by its name: nbt, json or bytes. */
Datum
slime_file_kind(PG_FUNCTION_ARGS)
{
	char	   *path = text_to_cstring(PG_GETARG_TEXT_PP(0));

	PG_RETURN_TEXT_P(cstring_to_text(sl_wfile_kind_name(sl_wfile_kind_of(path))));
}
