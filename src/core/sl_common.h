/*
 * sl_common.h - shared plumbing of the slime core library.
 *
 * The core is plain C99 with no PostgreSQL headers. Callers plug in memory,
 * interrupt and stack-depth hooks through sl_hooks; every function reports
 * failure through an sl_err with a code and a message that says what was
 * wrong and where.
 */
#ifndef SL_COMMON_H
#define SL_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>

/* Error classes; the PostgreSQL glue maps each to a SQLSTATE. */
typedef enum sl_code
{
	SL_OK = 0,
	SL_ERR_FORMAT,				/* malformed input file or NBT */
	SL_ERR_CORRUPT,				/* stored slime value fails its checks */
	SL_ERR_LIMIT,				/* a size or depth cap was exceeded */
	SL_ERR_NOMEM,				/* allocation failed */
	SL_ERR_UNSUPPORTED,			/* valid but not supported (e.g. codec 127) */
	SL_ERR_INVALID,				/* bad argument from the caller */
	SL_ERR_DUPLICATE,			/* the same chunk twice */
	SL_ERR_NOTFOUND				/* a named thing is absent */
} sl_code;

#define SL_ERRMSG_LEN 512

typedef struct sl_err
{
	sl_code		code;
	char		msg[SL_ERRMSG_LEN];
} sl_err;

/* Hooks the embedding program may replace; defaults use malloc. */
typedef struct sl_hooks_t
{
	void	   *(*alloc) (size_t size);	/* NULL on failure */
	void	   *(*realloc) (void *ptr, size_t size);	/* NULL on failure */
	void		(*free) (void *ptr);
	void		(*interrupt) (void);	/* may longjmp out (PostgreSQL) */
	int			(*stack_too_deep) (void);	/* nonzero when recursion must stop */
} sl_hooks_t;

extern sl_hooks_t sl_hooks;

/* Caps on every size the core will allocate or decode. */
typedef struct sl_limits
{
	size_t		max_chunk_raw;	/* one decompressed chunk / NBT document */
	size_t		max_value_raw;	/* all decompressed bytes of one value */
	int			max_depth;		/* NBT nesting */
	uint32_t	max_palette;	/* block or biome palette entries of a section */
} sl_limits;

#define SL_DEFAULT_MAX_CHUNK_RAW	((size_t) 64 * 1024 * 1024)
#define SL_DEFAULT_MAX_VALUE_RAW	((size_t) 1024 * 1024 * 1024)
#define SL_DEFAULT_MAX_DEPTH		512
#define SL_DEFAULT_MAX_PALETTE		4096

extern const sl_limits sl_default_limits;

/* Record an error and return -1. */
int			sl_fail(sl_err *err, sl_code code, const char *fmt,...)
			__attribute__((format(printf, 3, 4)));

/* Prefix an existing error message with context ("chunk (1,2): ..."). */
void		sl_err_prefix(sl_err *err, const char *fmt,...)
			__attribute__((format(printf, 2, 3)));

void	   *sl_alloc(size_t size);
void	   *sl_realloc(void *ptr, size_t size);

/*
 * Grow an array of elem-byte entries when full: double *cap (first entries
 * when empty) and move *p; the error names what ran out ("N <what>").
 */
int			sl_grow(void **p, size_t *cap, size_t elem, size_t first, const char *what,
					sl_err *err);
void		sl_free(void *ptr);
void		sl_interrupt(void);

/* FNV-1a (64-bit) of len bytes: the hash of names (count maps, map colours). */
uint64_t	sl_fnv1a(const void *data, size_t len);

/* Lowercase hex of len bytes into out (2 * len digits and a NUL). */
void		sl_hex(const uint8_t *data, size_t len, char *out);

/* Allocate or fail with SL_ERR_NOMEM. */
void	   *sl_alloc_err(size_t size, sl_err *err);

/* Growable byte buffer. */
typedef struct sl_buf
{
	uint8_t    *data;
	size_t		len;
	size_t		cap;
} sl_buf;

int			sl_buf_reserve(sl_buf *b, size_t extra, sl_err *err);
int			sl_buf_put(sl_buf *b, const void *src, size_t n, sl_err *err);
int			sl_buf_put_u8(sl_buf *b, uint8_t v, sl_err *err);
int			sl_buf_put_u16be(sl_buf *b, uint16_t v, sl_err *err);
int			sl_buf_put_u32be(sl_buf *b, uint32_t v, sl_err *err);
int			sl_buf_put_u64be(sl_buf *b, uint64_t v, sl_err *err);
int			sl_buf_printf(sl_buf *b, sl_err *err, const char *fmt,...)
			__attribute__((format(printf, 3, 4)));
void		sl_buf_free(sl_buf *b);

/* Bump allocator for many small objects freed at once. */
typedef struct sl_arena_block sl_arena_block;
typedef struct sl_arena
{
	sl_arena_block *head;
	size_t		used;			/* bytes handed out, for caps */
} sl_arena;

void	   *sl_arena_alloc(sl_arena *a, size_t size, sl_err *err);
void		sl_arena_free(sl_arena *a);

/* Big-endian and little-endian loads and stores. */
static inline uint16_t
sl_get_u16be(const uint8_t *p)
{
	return (uint16_t) ((p[0] << 8) | p[1]);
}

static inline uint32_t
sl_get_u32be(const uint8_t *p)
{
	return ((uint32_t) p[0] << 24) | ((uint32_t) p[1] << 16) |
		((uint32_t) p[2] << 8) | (uint32_t) p[3];
}

static inline uint64_t
sl_get_u64be(const uint8_t *p)
{
	return ((uint64_t) sl_get_u32be(p) << 32) | sl_get_u32be(p + 4);
}

static inline uint32_t
sl_get_u32le(const uint8_t *p)
{
	return ((uint32_t) p[3] << 24) | ((uint32_t) p[2] << 16) |
		((uint32_t) p[1] << 8) | (uint32_t) p[0];
}

static inline uint64_t
sl_get_u64le(const uint8_t *p)
{
	return ((uint64_t) sl_get_u32le(p + 4) << 32) | sl_get_u32le(p);
}

static inline void
sl_put_u32be(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t) (v >> 24);
	p[1] = (uint8_t) (v >> 16);
	p[2] = (uint8_t) (v >> 8);
	p[3] = (uint8_t) v;
}

static inline void
sl_put_u64be(uint8_t *p, uint64_t v)
{
	sl_put_u32be(p, (uint32_t) (v >> 32));
	sl_put_u32be(p + 4, (uint32_t) v);
}

static inline void
sl_put_u32le(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t) v;
	p[1] = (uint8_t) (v >> 8);
	p[2] = (uint8_t) (v >> 16);
	p[3] = (uint8_t) (v >> 24);
}

static inline void
sl_put_u64le(uint8_t *p, uint64_t v)
{
	sl_put_u32le(p, (uint32_t) v);
	sl_put_u32le(p + 4, (uint32_t) (v >> 32));
}

#endif
