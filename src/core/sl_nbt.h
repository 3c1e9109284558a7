/*
 * sl_nbt.h - Java-edition NBT: checking, a tree form, writing and JSON.
 *
 * NBT is big-endian; a document is one named root tag (type byte, u16 name
 * length, modified-UTF-8 name, payload). Every reader checks every length
 * against the buffer, caps nesting at limits->max_depth and asks the stack
 * hook before each level of recursion.
 */
#ifndef SL_NBT_H
#define SL_NBT_H

#include "sl_common.h"

enum
{
	SL_TAG_END = 0,
	SL_TAG_BYTE = 1,
	SL_TAG_SHORT = 2,
	SL_TAG_INT = 3,
	SL_TAG_LONG = 4,
	SL_TAG_FLOAT = 5,
	SL_TAG_DOUBLE = 6,
	SL_TAG_BYTE_ARRAY = 7,
	SL_TAG_STRING = 8,
	SL_TAG_LIST = 9,
	SL_TAG_COMPOUND = 10,
	SL_TAG_INT_ARRAY = 11,
	SL_TAG_LONG_ARRAY = 12
};

/* Name of a tag type ("byte", "int_array", ...), or NULL when out of range. */
const char *sl_nbt_type_name(int type);

/*
 * Check that buf starts with one well-formed named root tag whose type is a
 * compound (or, with any_root, any non-End type) and set *consumed to the
 * number of bytes it occupies. Trailing bytes after it are the caller's
 * business. Errors name the byte offset of the fault.
 */
int			sl_nbt_check(const uint8_t *buf, size_t len, int any_root,
						 const sl_limits *lim, size_t *consumed, sl_err *err);

/* A parsed tag. Strings and arrays point into the source buffer. */
typedef struct sl_nbt sl_nbt;
struct sl_nbt
{
	uint8_t		type;
	uint16_t	name_len;
	const char *name;			/* modified UTF-8, not NUL-terminated */
	union
	{
		int64_t		i;			/* byte, short, int, long */
		float		f;
		double		d;
		struct
		{
			const char *s;		/* modified UTF-8, not NUL-terminated */
			uint16_t	len;
		}			str;
		struct
		{
			const uint8_t *data;	/* raw big-endian elements */
			uint32_t	count;
		}			arr;		/* byte, int, long arrays */
		struct
		{
			uint8_t		elem_type;
			uint32_t	count;
			sl_nbt	  **items;	/* items have no names */
		}			list;
		struct
		{
			uint32_t	count;
			sl_nbt	  **items;	/* in file order */
		}			comp;
	}			v;
};

/*
 * Parse the root tag of buf (any type but End) into a tree allocated in
 * arena. The tree may take at most 8 * lim->max_chunk_raw bytes of arena.
 * On failure the arena may hold part of a tree; free it as usual.
 */
int			sl_nbt_parse(const uint8_t *buf, size_t len, const sl_limits *lim,
						 sl_arena *arena, sl_nbt **root, size_t *consumed,
						 sl_err *err);

/*
 * Parse one unnamed payload of a type (a list element, say) at buf[0..len)
 * into a tree in arena, taking at most max_tree bytes of it. Checked as
 * sl_nbt_parse checks; nesting counts from the payload.
 */
int			sl_nbt_parse_payload(const uint8_t *buf, size_t len, uint8_t type,
								 size_t max_tree, const sl_limits *lim, sl_arena *arena,
								 sl_nbt **node, sl_err *err);

/*
 * Reading without a tree, for callers that want a few tags of a large
 * document. sl_nbt_entry_head reads the header of the next entry of a
 * compound payload at *pos: returns its type (SL_TAG_END for the compound's
 * end) with *pos moved to its payload (past the End), or -1 when the bytes
 * are not well formed. sl_nbt_skip moves *pos past one payload of a type
 * and everything in it, checking every length: false when it is not well
 * formed or nests deeper than max_depth containers (or 64); the scanner
 * (sl_nbt_check, sl_nbt_parse) then says why. Neither sets an error.
 */
int			sl_nbt_entry_head(const uint8_t *buf, size_t len, size_t *pos,
							  const char **name, uint16_t *name_len);
int			sl_nbt_skip(const uint8_t *buf, size_t len, size_t *pos, uint8_t type,
						int max_depth);

/*
 * Serialize a tree (root with its name) back to NBT bytes, appended to out.
 * Inconsistent trees (list items of the wrong type, ...) fail with
 * SL_ERR_INVALID and leave out unchanged.
 */
int			sl_nbt_write(const sl_nbt *root, sl_buf *out, sl_err *err);

/* Child of a compound by (ASCII) name, or NULL; of duplicates the last wins. */
const sl_nbt *sl_nbt_child(const sl_nbt *compound, const char *name);

/*
 * Look up an int-like tag (byte, short, int, long) along a path of compound
 * names from the root, without building a tree. Returns 1 and sets *out
 * when found, 0 when absent or of another type, -1 on malformed NBT. The
 * whole document is checked; of duplicate names the last wins (as in
 * Minecraft and jsonb). npath 0 looks at the root tag itself.
 */
int			sl_nbt_find_int(const uint8_t *buf, size_t len, const char *const *path,
							int npath, const sl_limits *lim, int64_t *out,
							sl_err *err);

/*
 * Several lookups in one pass (sl_nbt_find_tags): each hit names a path of
 * compound names from the root (npath 0: the root tag) and gets the type of
 * the tag found there (SL_TAG_END when absent), the offset of its payload in
 * buf, its value when int-like, and its count when a string, array or list.
 * The whole document is checked; of duplicate names the last wins.
 */
#define SL_NBT_MAX_HITS 16
typedef struct sl_nbt_hit
{
	const char *const *path;
	int			npath;
	uint8_t		type;
	size_t		at;
	int64_t		i;
	uint32_t	count;
} sl_nbt_hit;

int			sl_nbt_find_tags(const uint8_t *buf, size_t len, sl_nbt_hit *hits, int n,
							 const sl_limits *lim, sl_err *err);

/*
 * Convert an NBT document to JSON text (appended to out, not NUL-terminated)
 * following the lossless mapping in doc/format.md, section "NBT as JSON".
 * Fails with SL_ERR_UNSUPPORTED when a compound key is not representable
 * (invalid modified UTF-8 or U+0000), SL_ERR_LIMIT when the text would
 * exceed lim->max_value_raw; out is unchanged on failure.
 */
int			sl_nbt_to_json(const uint8_t *buf, size_t len, const sl_limits *lim,
						   sl_buf *out, sl_err *err);

/*
 * Convert a modified UTF-8 string (NBT) to UTF-8, appended to out. Returns
 * 0, -1 on error, or 1 (out unchanged) when it holds U+0000, an unpaired
 * surrogate or bytes that are not modified UTF-8.
 */
int			sl_mutf8_to_utf8(const char *s, size_t len, sl_buf *out, sl_err *err);

/* Convert UTF-8 to modified UTF-8, appended to out; 1 when s is not UTF-8. */
int			sl_utf8_to_mutf8(const char *s, size_t len, sl_buf *out, sl_err *err);

#endif
