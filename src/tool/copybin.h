/*
 * copybin.h - PostgreSQL's binary COPY format, both ways: the streams
 * copy-world writes for "\copy ... FROM STDIN WITH (FORMAT binary)" and
 * export-world reads from "\copy (...) TO STDOUT (FORMAT binary)".
 */
#ifndef SLIMETOOL_COPYBIN_H
#define SLIMETOOL_COPYBIN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define COPYBIN_MAX_NAME	(1 << 20)	/* a text field read: bytes */

/*
 * A stream being written. The last byte written is held back until more
 * follows or the trailer goes out, so a stream cut short anywhere (an
 * error, a crash, a kill) ends inside a row and the server rejects the
 * whole COPY; a binary COPY that just stops between rows would be taken as
 * complete.
 */
typedef struct copy_out
{
	FILE	   *f;
	int			held;			/* held-back byte, -1 none */
} copy_out;

/* Start a stream on f: the signature, flags and header extension length. */
void		copy_out_start(copy_out *o, FILE *f);

/* Append one row of n fields (a field of length 0 is an empty one, never NULL). */
void		copy_out_row(copy_out *o, int n, const void *const *data, const size_t *len);

/* Release the held byte and append the trailer; 0 when all went out. */
int			copy_out_finish(copy_out *o);

/* A stream being read, and where in it. */
typedef struct copy_in
{
	FILE	   *f;
	uint64_t	offset;
	const char *what;			/* the stream, for messages ("the COPY stream") */
} copy_in;

/* Read exactly len bytes; a short read is a stream cut short. */
int			copy_in_exact(copy_in *in, void *buf, size_t len, const char *what);

/* Read a big-endian int16 (bytes 2) or int32 (bytes 4). */
int			copy_in_be(copy_in *in, int bytes, int32_t *out, const char *what);

/*
 * Check the signature, flags and header extension. at_eof_ok: an empty
 * input gives 1 (no stream) instead of an error.
 */
int			copy_in_header(copy_in *in, int at_eof_ok);

/* Read one text field (NUL-terminated, malloc'd, UTF-8 without NUL); NULL is refused. */
int			copy_in_text(copy_in *in, int row, const char *what, char **out);

/*
 * Read one bytes field of at most max bytes (sl_alloc'd, never NULL: a
 * 0-byte field gives a 1-byte buffer); label names the row in messages.
 */
int			copy_in_bytes(copy_in *in, const char *label, const char *what, size_t max,
						  uint8_t **out, size_t *len);

/* 1 when s[0..len) is valid UTF-8 without NUL (PostgreSQL text). */
int			copy_valid_utf8(const char *s, size_t len);

#endif
