/*
 * test_text.c - unit tests of sl_text: the base64 text form written since
 * 0.4.0 and the hex form of 0.1.0 to 0.3.0, read forever.
 */
#include "harness.h"

#include "sl_text.h"

/* Encode data in form; true when it reads back as the same bytes. */
static int
round_trips(const uint8_t *data, size_t n, sl_text_form form, char **text)
{
	size_t		len = sl_text_len(n, form);
	char	   *s = malloc(len + 1);
	uint8_t    *back;
	size_t		m;
	sl_err		err;
	int			ok;

	sl_text_encode(data, n, form, s);
	ok = strlen(s) == len && sl_text_decode(s, len, &back, &m, &err) == 0 &&
		m == n && (n == 0 || memcmp(back, data, n) == 0);
	if (ok)
		sl_free(back);
	if (text)
		*text = s;
	else
		free(s);
	return ok;
}

/* The RFC 4648 test vectors, behind the prefix. */
void
test_text_base64_vectors(void)
{
	static const char *const in[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
	static const char *const out[] = {"b64:", "b64:Zg==", "b64:Zm8=", "b64:Zm9v", "b64:Zm9vYg==",
	"b64:Zm9vYmE=", "b64:Zm9vYmFy"};

	for (int i = 0; i < 7; i++)
	{
		char	   *s;

		CHECK(round_trips((const uint8_t *) in[i], strlen(in[i]), SL_TEXT_BASE64, &s));
		CHECK(strcmp(s, out[i]) == 0);
		free(s);
	}
}

/* Every length 0..300 of every byte value, in both forms. */
void
test_text_round_trip(void)
{
	uint8_t		data[300];

	for (int i = 0; i < 300; i++)
		data[i] = (uint8_t) (i * 97 + 13);
	for (size_t n = 0; n <= sizeof(data); n++)
	{
		CHECK(round_trips(data, n, SL_TEXT_BASE64, NULL));
		CHECK(round_trips(data, n, SL_TEXT_HEX, NULL));
		CHECK(sl_text_len(n, SL_TEXT_BASE64) == 4 + (n + 2) / 3 * 4);
		CHECK(sl_text_len(n, SL_TEXT_HEX) == 2 + 2 * n);
	}
}

/* What 0.1.0 to 0.3.0 wrote ("\x" + lowercase hex) reads; so does uppercase. */
void
test_text_hex_still_read(void)
{
	uint8_t    *b;
	size_t		n;
	sl_err		err;
	char	   *s;

	CHECK(round_trips((const uint8_t *) "SLIM", 4, SL_TEXT_HEX, &s));
	CHECK(strcmp(s, "\\x534c494d") == 0);
	free(s);
	CHECK_OK(sl_text_decode("\\x534C494D", 10, &b, &n, &err), &err);
	CHECK(n == 4 && memcmp(b, "SLIM", 4) == 0);
	sl_free(b);
	CHECK_OK(sl_text_decode("\\x", 2, &b, &n, &err), &err);
	CHECK(n == 0);
	sl_free(b);
}

/* Malformed text is an SL_ERR_FORMAT naming the fault. */
void
test_text_rejects(void)
{
	static const char *const bad[] = {
		"", "x", "\\", "534c", "\\y00", "\\x0", "\\x0g", "B64:Zm9v", "b64", "b64:Zm9", "b64:Zm9v=",
		"b64:Zm9v Zm9v", "b64:Zm=v", "b64:=m9v", "b64:Zh==", "b64:Zm9=", "b64:Zm9vYg=\n",
		"b64:Zm\xc3\xa9v", "b64:Zm-_", "b64:===="
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
	{
		uint8_t    *b = (uint8_t *) 1;
		size_t		n = 7;
		sl_err		err;
		int			rc = sl_text_decode(bad[i], strlen(bad[i]), &b, &n, &err);

		CHECK(rc != 0 && err.code == SL_ERR_FORMAT && b == NULL && n == 0);
		if (rc == 0)
			fprintf(stderr, "accepted: %s\n", bad[i]);
	}
}
