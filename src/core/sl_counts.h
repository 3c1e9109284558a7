/*
 * sl_counts.h - a map from names (block states, biomes) to counts, for
 * tallies over chunks, worlds and, through (de)serialization, parallel
 * aggregate workers.
 */
#ifndef SL_COUNTS_H
#define SL_COUNTS_H

#include "sl_common.h"

typedef struct sl_count_entry
{
	uint64_t	hash;
	uint64_t	count;
	uint32_t	len;
	char	   *name;			/* not NUL-terminated; owned by the map */
} sl_count_entry;

typedef struct sl_counts
{
	sl_count_entry *slots;		/* open addressing, power-of-two size */
	size_t		size;
	size_t		used;
	sl_arena	names;
} sl_counts;

/* Add count to name (created at zero when new). */
int			sl_counts_add(sl_counts *m, const char *name, size_t len, uint64_t count,
						  sl_err *err);

/*
 * Take count away from name: SL_ERR_CORRUPT when the map holds less of it.
 * An entry taken down to zero stays, with count 0 (skipped by callers that
 * write maps out).
 */
int			sl_counts_sub(sl_counts *m, const char *name, size_t len, uint64_t count,
						  sl_err *err);

/* The count of name, 0 when absent. */
uint64_t	sl_counts_get(const sl_counts *m, const char *name, size_t len);

/* Add every entry of src to dst. */
int			sl_counts_merge(sl_counts *dst, const sl_counts *src, sl_err *err);

/* Entries in a stable order (by name), sl_alloc'd array of pointers. */
sl_count_entry **sl_counts_sorted(const sl_counts *m, sl_err *err);

/* Serialize: u32 n, then per entry u64 count, u32 len, name bytes (little-endian). */
int			sl_counts_serialize(const sl_counts *m, sl_buf *out, sl_err *err);

/* Add the entries of a serialized map (as written above) to m. */
int			sl_counts_deserialize(sl_counts *m, const uint8_t *buf, size_t len,
								  sl_err *err);

void		sl_counts_free(sl_counts *m);

#endif
