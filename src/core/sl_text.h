/*
 * sl_text.h - the text form of a slime value (type input and output).
 *
 * Two forms, told apart by their first characters:
 *   "b64:" + standard base64 (RFC 4648, "+/", "=" padding, no line breaks):
 *           written since 0.4.0 (1.33 characters per value byte);
 *   "\x"   + hex digits (either case): written by 0.1.0 to 0.3.0, read forever.
 * doc/format.md, "Text form", is the authority.
 */
#ifndef SL_TEXT_H
#define SL_TEXT_H

#include "sl_common.h"

#define SL_TEXT_B64_PREFIX "b64:"
#define SL_TEXT_B64_PREFIX_LEN 4

typedef enum sl_text_form
{
	SL_TEXT_BASE64 = 0,
	SL_TEXT_HEX = 1
} sl_text_form;

/* Characters of the text form of n value bytes (without a NUL). */
size_t		sl_text_len(size_t n, sl_text_form form);

/*
 * Write the text form of data[0..n) into out, which holds sl_text_len(n,
 * form) + 1 characters (the last a NUL).
 */
void		sl_text_encode(const uint8_t *data, size_t n, sl_text_form form, char *out);

/*
 * Read a text form (either) of slen characters: the value bytes into *out
 * (sl_alloc'd, at least one byte even when *n is 0), their count into *n.
 * Anything else is SL_ERR_FORMAT naming the character at fault; the bytes
 * are not checked as a value here.
 */
int			sl_text_decode(const char *s, size_t slen, uint8_t **out, size_t *n, sl_err *err);

#endif
