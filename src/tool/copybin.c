/*
 * copybin.c - PostgreSQL's binary COPY format: writing the streams
 * copy-world sends to psql, reading the ones psql sends export-world.
 */
#include "copybin.h"
#include "tool.h"
#include "progress.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const uint8_t signature[11] = {'P', 'G', 'C', 'O', 'P', 'Y', '\n', 0xFF, '\r', '\n', 0};

/* ---- writing ------------------------------------------------------------- */

/* Write the held-back byte, if any. */
static void
release_held(copy_out *o)
{
	if (o->held >= 0)
		fputc(o->held, o->f);
	o->held = -1;
}

/* Append bytes, holding back the last one (the last byte of the stream so far). */
static void
emit(copy_out *o, const void *data, size_t len)
{
	const uint8_t *p = data;

	if (len == 0)
		return;
	release_held(o);
	fwrite(p, 1, len - 1, o->f);
	o->held = p[len - 1];
}

/* Append a big-endian int16 / int32. */
static void
put_be(copy_out *o, uint32_t v, int bytes)
{
	uint8_t		b[4];

	for (int i = 0; i < bytes; i++)
		b[i] = (uint8_t) (v >> (8 * (bytes - 1 - i)));
	emit(o, b, (size_t) bytes);
}

/* Start a stream: signature, flags, header extension length. */
void
copy_out_start(copy_out *o, FILE *f)
{
	o->f = f;
	o->held = -1;
	emit(o, signature, sizeof(signature));
	put_be(o, 0, 4);
	put_be(o, 0, 4);
}

/* Append one row of n fields. */
void
copy_out_row(copy_out *o, int n, const void *const *data, const size_t *len)
{
	put_be(o, (uint32_t) n, 2);
	for (int i = 0; i < n; i++)
	{
		put_be(o, (uint32_t) len[i], 4);
		emit(o, data[i], len[i]);
	}
}

/* Release the held byte and append the trailer; 0 when all went out. */
int
copy_out_finish(copy_out *o)
{
	put_be(o, 0xFFFF, 2);
	release_held(o);
	if (fflush(o->f) != 0 || ferror(o->f))
		return tool_fail("error writing the COPY stream to stdout");
	return 0;
}

/* ---- reading ------------------------------------------------------------- */

/* Read exactly len bytes; a short read is a stream cut short. */
int
copy_in_exact(copy_in *in, void *buf, size_t len, const char *what)
{
	size_t		got = len ? fread(buf, 1, len, in->f) : 0;

	in->offset += got;
	tool_progress_add(0, 0, got);
	if (got == len)
		return 0;
	if (ferror(in->f))
		return tool_fail("error reading %s: %s", in->what, strerror(errno));
	return tool_fail("%s ends at byte %llu, inside %s: it was cut short "
					 "(did the query fail?); nothing written",
					 in->what, (unsigned long long) in->offset, what);
}

/* Read a big-endian int16 / int32. */
int
copy_in_be(copy_in *in, int bytes, int32_t *out, const char *what)
{
	uint8_t		b[4];

	if (copy_in_exact(in, b, (size_t) bytes, what))
		return -1;
	*out = bytes == 2 ? (int16_t) sl_get_u16be(b) : (int32_t) sl_get_u32be(b);
	return 0;
}

/* Check the binary COPY signature, flags and header extension. */
int
copy_in_header(copy_in *in, int at_eof_ok)
{
	uint8_t		got[11];
	size_t		n = fread(got, 1, sizeof(got), in->f);
	int32_t		flags,
				ext;

	in->offset += n;
	if (n == 0 && at_eof_ok)
		return 1;
	if (memcmp(got, signature, n) != 0 || n == 0)
		return tool_fail(n ? "%s is not a binary COPY stream (use \\copy ... TO STDOUT (FORMAT binary))" :
						 "%s is empty: no COPY stream (did the query fail?); nothing written", in->what);
	if (n < sizeof(signature))
		return copy_in_exact(in, got + n, sizeof(signature) - n, "the header");
	if (copy_in_be(in, 4, &flags, "the header") || copy_in_be(in, 4, &ext, "the header"))
		return -1;
	if (flags & 0xFFFF0000)
		return tool_fail("%s has header flags 0x%08x (OIDs?): not supported", in->what, (unsigned) flags);
	for (; ext > 0; ext--)
	{
		uint8_t		c;

		if (copy_in_exact(in, &c, 1, "the header extension"))
			return -1;
	}
	return ext < 0 ? tool_fail("bad COPY header extension length") : 0;
}

/* 1 when s[0..len) is valid UTF-8 without NUL (PostgreSQL text). */
int
copy_valid_utf8(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *) s;
	const unsigned char *end = p + len;

	while (p < end)
	{
		int			n = *p == 0 ? -1 : *p < 0x80 ? 0 : (*p & 0xE0) == 0xC0 ? 1 :
			(*p & 0xF0) == 0xE0 ? 2 : (*p & 0xF8) == 0xF0 ? 3 : -1;

		if (n < 0 || (n == 1 && *p < 0xC2) || (n == 3 && *p > 0xF4) || end - p <= n)
			return 0;
		p++;
		while (n-- > 0)
			if ((*p++ & 0xC0) != 0x80)
				return 0;
	}
	return 1;
}

/* Read one text field (NUL-terminated, malloc'd); NULL is refused. */
int
copy_in_text(copy_in *in, int row, const char *what, char **out)
{
	int32_t		len;

	*out = NULL;
	if (copy_in_be(in, 4, &len, what))
		return -1;
	if (len < 0)
		return tool_fail("row %d: %s is NULL", row, what);
	if (len > COPYBIN_MAX_NAME)
		return tool_fail("row %d: %s is %d bytes long", row, what, len);
	if ((*out = malloc((size_t) len + 1)) == NULL)
		return tool_fail("out of memory");
	if (copy_in_exact(in, *out, (size_t) len, what))
		return -1;
	(*out)[len] = '\0';
	if (!copy_valid_utf8(*out, (size_t) len))
		return tool_fail("row %d: %s is not UTF-8 text without NUL", row, what);
	return 0;
}

/* Read one bytes field of at most max bytes (sl_alloc'd, never NULL). */
int
copy_in_bytes(copy_in *in, const char *label, const char *what, size_t max,
			  uint8_t **out, size_t *len)
{
	int32_t		n;

	*out = NULL;
	*len = 0;
	if (copy_in_be(in, 4, &n, what))
		return -1;
	if (n < 0)
		return tool_fail("%s: %s is NULL", label, what);
	if ((size_t) n > max)
		return tool_fail("%s: %s of %d bytes is larger than it can be", label, what, n);
	if ((*out = sl_alloc(n ? (size_t) n : 1)) == NULL)
		return tool_fail("out of memory reading a %d-byte field", n);
	*len = (size_t) n;
	return copy_in_exact(in, *out, (size_t) n, what);
}
