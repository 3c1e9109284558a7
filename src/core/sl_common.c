/*
 * sl_common.c - errors, hooks, buffers and arenas of the core library.
 */
#include "sl_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
default_interrupt(void)
{
}

static int
default_stack_too_deep(void)
{
	return 0;
}

sl_hooks_t	sl_hooks = {malloc, realloc, free, default_interrupt, default_stack_too_deep};

const sl_limits sl_default_limits = {
	SL_DEFAULT_MAX_CHUNK_RAW, SL_DEFAULT_MAX_VALUE_RAW, SL_DEFAULT_MAX_DEPTH,
	SL_DEFAULT_MAX_PALETTE
};

/* Record an error and return -1. */
int
sl_fail(sl_err *err, sl_code code, const char *fmt,...)
{
	va_list		ap;

	if (err == NULL)
		return -1;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

/* Prefix an existing error message with context. */
void
sl_err_prefix(sl_err *err, const char *fmt,...)
{
	char		pre[160];
	char		old[SL_ERRMSG_LEN - 162];
	va_list		ap;

	if (err == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(pre, sizeof(pre), fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof(old) - 1);
	old[sizeof(old) - 1] = '\0';
	snprintf(err->msg, sizeof(err->msg), "%s: %s", pre, old);
}

/* Allocate through the hook. */
void *
sl_alloc(size_t size)
{
	return sl_hooks.alloc(size ? size : 1);
}

/* Reallocate through the hook. */
void *
sl_realloc(void *ptr, size_t size)
{
	if (ptr == NULL)
		return sl_alloc(size);
	return sl_hooks.realloc(ptr, size ? size : 1);
}

/* Double a full array of elem-byte entries (first entries when empty). */
int
sl_grow(void **p, size_t *cap, size_t elem, size_t first, const char *what, sl_err *err)
{
	size_t		n = *cap ? 2 * *cap : first;
	void	   *np = n > SIZE_MAX / elem ? NULL : sl_realloc(*p, n * elem);

	if (np == NULL)
		return sl_fail(err, SL_ERR_NOMEM, "out of memory for %zu %s", n, what);
	*p = np;
	*cap = n;
	return 0;
}

/* Free through the hook. */
void
sl_free(void *ptr)
{
	if (ptr)
		sl_hooks.free(ptr);
}

/* Write the lowercase hex of len bytes and a NUL to out. */
void
sl_hex(const uint8_t *data, size_t len, char *out)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < len; i++)
	{
		*out++ = digits[data[i] >> 4];
		*out++ = digits[data[i] & 15];
	}
	*out = '\0';
}

/* Give the embedding program a chance to cancel a long loop. */
void
sl_interrupt(void)
{
	sl_hooks.interrupt();
}

/* FNV-1a (64-bit) of len bytes. */
uint64_t
sl_fnv1a(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint64_t	h = 1469598103934665603ULL;

	for (size_t i = 0; i < len; i++)
	{
		h ^= p[i];
		h *= 1099511628211ULL;
	}
	return h;
}

/* Allocate or fail with SL_ERR_NOMEM. */
void *
sl_alloc_err(size_t size, sl_err *err)
{
	void	   *p = sl_alloc(size);

	if (p == NULL)
		sl_fail(err, SL_ERR_NOMEM, "out of memory allocating %zu bytes", size);
	return p;
}

/* Make room for extra more bytes. */
int
sl_buf_reserve(sl_buf *b, size_t extra, sl_err *err)
{
	size_t		need;
	size_t		cap;
	uint8_t    *p;

	if (extra > SIZE_MAX / 2 - b->len)
		return sl_fail(err, SL_ERR_LIMIT, "buffer size overflow");
	need = b->len + extra;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 256;
	while (cap < need)
		cap *= 2;
	p = sl_realloc(b->data, cap);
	if (p == NULL)
		return sl_fail(err, SL_ERR_NOMEM, "out of memory growing buffer to %zu bytes", cap);
	b->data = p;
	b->cap = cap;
	return 0;
}

/* Append n bytes. */
int
sl_buf_put(sl_buf *b, const void *src, size_t n, sl_err *err)
{
	if (sl_buf_reserve(b, n, err))
		return -1;
	if (n)
		memcpy(b->data + b->len, src, n);
	b->len += n;
	return 0;
}

/* Append one byte. */
int
sl_buf_put_u8(sl_buf *b, uint8_t v, sl_err *err)
{
	return sl_buf_put(b, &v, 1, err);
}

/* Append a big-endian 16-bit value. */
int
sl_buf_put_u16be(sl_buf *b, uint16_t v, sl_err *err)
{
	uint8_t		t[2] = {(uint8_t) (v >> 8), (uint8_t) v};

	return sl_buf_put(b, t, 2, err);
}

/* Append a big-endian 32-bit value. */
int
sl_buf_put_u32be(sl_buf *b, uint32_t v, sl_err *err)
{
	uint8_t		t[4];

	sl_put_u32be(t, v);
	return sl_buf_put(b, t, 4, err);
}

/* Append a big-endian 64-bit value. */
int
sl_buf_put_u64be(sl_buf *b, uint64_t v, sl_err *err)
{
	uint8_t		t[8];

	sl_put_u64be(t, v);
	return sl_buf_put(b, t, 8, err);
}

/* Append formatted text (no terminating NUL is counted in len). */
int
sl_buf_printf(sl_buf *b, sl_err *err, const char *fmt,...)
{
	va_list		ap;
	int			n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return sl_fail(err, SL_ERR_INVALID, "bad format");
	if (sl_buf_reserve(b, (size_t) n + 1, err))
		return -1;
	va_start(ap, fmt);
	vsnprintf((char *) b->data + b->len, (size_t) n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t) n;
	return 0;
}

/* Release a buffer's memory. */
void
sl_buf_free(sl_buf *b)
{
	sl_free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

struct sl_arena_block
{
	sl_arena_block *next;
	size_t		size;
	size_t		used;
	/* data follows, max-aligned */
};

#define SL_ARENA_ALIGN 16
#define SL_ARENA_HDR ((sizeof(sl_arena_block) + SL_ARENA_ALIGN - 1) & ~(size_t) (SL_ARENA_ALIGN - 1))
#define SL_ARENA_BLOCK 65536

/* Allocate size bytes from the arena, 16-byte aligned. */
void *
sl_arena_alloc(sl_arena *a, size_t size, sl_err *err)
{
	sl_arena_block *b = a->head;
	size_t		rounded;

	if (size > SIZE_MAX / 2)
		return sl_fail(err, SL_ERR_LIMIT, "allocation too large"), NULL;
	rounded = (size + SL_ARENA_ALIGN - 1) & ~(size_t) (SL_ARENA_ALIGN - 1);
	if (b == NULL || b->size - b->used < rounded)
	{
		size_t		bsize = rounded > SL_ARENA_BLOCK / 4 ? rounded : SL_ARENA_BLOCK;

		b = sl_alloc_err(SL_ARENA_HDR + bsize, err);
		if (b == NULL)
			return NULL;
		b->size = bsize;
		b->used = 0;
		if (rounded > SL_ARENA_BLOCK / 4 && a->head != NULL)
		{
			/* big one-off block: keep the current block on top */
			b->used = rounded;
			b->next = a->head->next;
			a->head->next = b;
			a->used += rounded;
			return (char *) b + SL_ARENA_HDR;
		}
		b->next = a->head;
		a->head = b;
	}
	b->used += rounded;
	a->used += rounded;
	return (char *) b + SL_ARENA_HDR + b->used - rounded;
}

/* Free every block of the arena. */
void
sl_arena_free(sl_arena *a)
{
	sl_arena_block *b = a->head;

	while (b)
	{
		sl_arena_block *n = b->next;

		sl_free(b);
		b = n;
	}
	a->head = NULL;
	a->used = 0;
}
