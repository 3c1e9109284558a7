/*
 * blocks_check.c - count the blocks and biomes of every chunk of the shared
 * corpus with sl_blocks and with a separate, deliberately simple decoder
 * written here, and require the same counts for every chunk.
 *
 * The reference decoder shares no code with sl_blocks: it walks the NBT tree
 * itself, extracts every index bit by bit, names legacy ids from the data/
 * TSV files (not from the generated sl_legacy.c) and formats block states
 * on its own. It also compares sl_chunk_block_at against itself at sampled
 * positions. Region files under anvil-* and mcregion/, and the raw chunk
 * NBT files under chunk-nbt/, are read.
 *
 * Usage: blocks_check [CORPUS_DIR [DATA_DIR]]
 *        (defaults: $SLIME_CORPUS or ../shared/corpus, and data)
 */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sl_blocks.h"
#include "sl_nbt.h"
#include "sl_region.h"
#include "sl_value.h"

#include "corpus_util.h"

#define MAX_ERAS	16
#define MAX_UNKNOWN 4096
#define SAMPLES		64			/* block_at probes per chunk */

/* One (name, count) pair of a chunk's tally. */
typedef struct tally
{
	char	   *name;
	uint64_t	count;
} tally;

/* A growable list of tallies. */
typedef struct tally_list
{
	tally	   *items;
	size_t		n;
	size_t		cap;
} tally_list;

typedef struct era_stats
{
	char		name[64];
	int			files;
	long		chunks;
	long		chunks_with_blocks;
	long		sections;
	uint64_t	blocks;
	uint64_t	biomes;
	long		block_mismatch;
	long		biome_mismatch;
	long		probe_mismatch;
	long		errors;
	uint64_t	fallback_blocks;
	int			nunknown;
	uint32_t	unknown_key[MAX_UNKNOWN];
	uint64_t	unknown_count[MAX_UNKNOWN];
	uint64_t	fallback_biomes;
	int			nunknown_biomes;
	char		unknown_biome[64][48];
	uint64_t	unknown_biome_count[64];
	double		module_s;
	double		ref_s;
	char		layouts[128];
} era_stats;

static era_stats eras[MAX_ERAS];
static int	neras;
static const char *corpus_root;
static char *ref_blocks[4096];	/* from data/legacy_blocks.tsv */
static char *ref_biomes[256];	/* from data/legacy_biomes.tsv */
static unsigned rng_state = 12345;

/* A small deterministic random number. */
static unsigned
rnd(void)
{
	rng_state = rng_state * 1103515245u + 12345u;
	return rng_state >> 8;
}

/* Copy n bytes into a fresh NUL-terminated string. */
static char *
dup_n(const char *s, size_t n)
{
	char	   *p = malloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

/* Add count to a list (no merging yet). */
static void
tally_add(tally_list *l, const char *name, size_t len, uint64_t count)
{
	if (l->n == l->cap)
	{
		l->cap = l->cap ? 2 * l->cap : 64;
		l->items = realloc(l->items, l->cap * sizeof(tally));
	}
	l->items[l->n].name = dup_n(name, len);
	l->items[l->n].count = count;
	l->n++;
}

/* Order tallies by name. */
static int
tally_cmp(const void *a, const void *b)
{
	return strcmp(((const tally *) a)->name, ((const tally *) b)->name);
}

/* Sort a list by name and merge equal names. */
static void
tally_merge(tally_list *l)
{
	size_t		w = 0;

	if (l->n)
		qsort(l->items, l->n, sizeof(tally), tally_cmp);
	for (size_t r = 0; r < l->n; r++)
	{
		if (w > 0 && strcmp(l->items[w - 1].name, l->items[r].name) == 0)
		{
			l->items[w - 1].count += l->items[r].count;
			free(l->items[r].name);
		}
		else
			l->items[w++] = l->items[r];
	}
	l->n = w;
}

/* Free a list's entries. */
static void
tally_clear(tally_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->items[i].name);
	l->n = 0;
}

/* Equal merged lists? Prints the first difference. */
static int
tally_equal(const tally_list *a, const tally_list *b, const char *what, const char *where)
{
	size_t		n = a->n < b->n ? a->n : b->n;

	for (size_t i = 0; i < n; i++)
		if (strcmp(a->items[i].name, b->items[i].name) != 0 || a->items[i].count != b->items[i].count)
		{
			fprintf(stderr, "MISMATCH %s %s: module %s=%llu, reference %s=%llu\n", where, what,
					a->items[i].name, (unsigned long long) a->items[i].count,
					b->items[i].name, (unsigned long long) b->items[i].count);
			return 0;
		}
	if (a->n != b->n)
	{
		fprintf(stderr, "MISMATCH %s %s: module has %zu names, reference %zu\n", where, what,
				a->n, b->n);
		return 0;
	}
	return 1;
}

/* Read a TSV id table: two or three columns, '#' comments. */
static int
load_tsv(const char *path, int cols)
{
	FILE	   *f = fopen(path, "r");
	char		line[512];

	if (!f)
	{
		fprintf(stderr, "cannot read %s\n", path);
		return -1;
	}
	while (fgets(line, sizeof(line), f))
	{
		int			id,
					data = 0;
		char		name[400];

		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (cols == 3 && sscanf(line, "%d\t%d\t%399s", &id, &data, name) == 3 &&
			id >= 0 && id < 256 && data >= 0 && data < 16)
			ref_blocks[id * 16 + data] = dup_n(name, strlen(name));
		else if (cols == 2 && sscanf(line, "%d\t%399s", &id, name) == 2 && id >= 0 && id < 256)
			ref_biomes[id] = dup_n(name, strlen(name));
		else
		{
			fprintf(stderr, "%s: bad line: %s", path, line);
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	return 0;
}

/* ---- the reference decoder: simple on purpose ---- */

/* Bit width needed for n palette entries, at least minimum. */
static int
ref_bits(uint32_t n, int minimum)
{
	int			b = minimum;

	while ((1u << b) < n)
		b++;
	return b;
}

/* Entry i of a packed long array, one bit at a time; -1 past the array. */
static long
ref_index(const sl_nbt *arr, int bits, int spanning, uint32_t i)
{
	uint64_t	start;
	long		v = 0;

	if (spanning)
		start = (uint64_t) i * bits;
	else
	{
		uint32_t	per = 64 / bits;

		start = (uint64_t) (i / per) * 64 + (uint64_t) (i % per) * bits;
	}
	for (int j = 0; j < bits; j++)
	{
		uint64_t	bit = start + j;
		uint64_t	l = bit / 64;
		const uint8_t *p;
		uint64_t	word = 0;

		if (l >= arr->v.arr.count)
			return -1;
		p = arr->v.arr.data + 8 * l;
		for (int k = 0; k < 8; k++)
			word = word << 8 | p[k];
		if ((word >> (bit % 64)) & 1)
			v |= 1L << j;
	}
	return v;
}

/* Name of a palette entry: Name plus properties sorted by key. */
static char *
ref_state(const sl_nbt *e)
{
	const sl_nbt *name = sl_nbt_child(e, "Name");
	const sl_nbt *props = sl_nbt_child(e, "Properties");
	const sl_nbt *sorted[256];
	int			n = 0;
	char		buf[8192];
	size_t		len;

	if (name == NULL || name->type != SL_TAG_STRING)
		return NULL;
	len = (size_t) snprintf(buf, sizeof(buf), "%.*s", (int) name->v.str.len, name->v.str.s);
	if (props && props->type == SL_TAG_COMPOUND)
	{
		for (uint32_t k = 0; k < props->v.comp.count && n < 256; k++)
		{
			const sl_nbt *p = props->v.comp.items[k];
			int			at = n;

			/* insertion sort; a repeated key replaces the earlier one */
			for (int q = 0; q < n; q++)
			{
				char		a[256],
							b[256];

				snprintf(a, sizeof(a), "%.*s", (int) p->name_len, p->name);
				snprintf(b, sizeof(b), "%.*s", (int) sorted[q]->name_len, sorted[q]->name);
				if (strcmp(a, b) == 0)
				{
					sorted[q] = p;
					at = -1;
					break;
				}
				if (strcmp(a, b) < 0)
				{
					at = q;
					break;
				}
			}
			if (at < 0)
				continue;
			memmove(&sorted[at + 1], &sorted[at], (n - at) * sizeof(sorted[0]));
			sorted[at] = p;
			n++;
		}
		for (int q = 0; q < n && len < sizeof(buf); q++)
			len += (size_t) snprintf(buf + len, sizeof(buf) - len, "%c%.*s=%.*s", q ? ',' : '[',
									 (int) sorted[q]->name_len, sorted[q]->name,
									 (int) sorted[q]->v.str.len, sorted[q]->v.str.s);
		if (n > 0 && len < sizeof(buf))
			snprintf(buf + len, sizeof(buf) - len, "]");
	}
	return dup_n(buf, strlen(buf));
}

/* Name of a legacy id and data, from the TSV table or the fallback. */
static void
ref_legacy_name(unsigned id, unsigned data, char *buf, size_t size, int *fallback)
{
	*fallback = !(id < 256 && ref_blocks[id * 16 + data]);
	if (*fallback)
		snprintf(buf, size, "minecraft:legacy_%u_%u", id, data);
	else
		snprintf(buf, size, "%s", ref_blocks[id * 16 + data]);
}

/* Name of a numeric biome. */
static void
ref_biome_name(long id, char *buf, size_t size)
{
	if (id >= 0 && id < 256 && ref_biomes[id])
		snprintf(buf, size, "%s", ref_biomes[id]);
	else
		snprintf(buf, size, "minecraft:legacy_biome_%ld", id);
}

/* Integer value of a tag, or def. */
static long
ref_int(const sl_nbt *t, long def)
{
	if (t && t->type >= SL_TAG_BYTE && t->type <= SL_TAG_LONG)
		return (long) t->v.i;
	return def;
}

/* Legacy key of a section block (McRegion or Anvil arrays), by index. */
static unsigned
ref_legacy_key(const sl_nbt *blocks, const sl_nbt *add, const sl_nbt *data, uint32_t idx)
{
	unsigned	id = blocks->v.arr.data[idx];
	unsigned	d = data->v.arr.data[idx / 2];

	d = idx % 2 ? d >> 4 : d & 15;
	if (add)
	{
		unsigned	a = add->v.arr.data[idx / 2];

		id += (idx % 2 ? a >> 4 : a & 15) * 256;
	}
	return id * 16 + d;
}

/*
 * Reference block names: names[y][z][x] of one section are produced by
 * cb; here they are simply counted by (section, key) and named after.
 */
typedef struct ref_chunk
{
	const sl_nbt *root;
	const sl_nbt *level;
	const sl_nbt *sections;
	long		dv;
	int			nsections;		/* sections with blocks */
} ref_chunk;

/* Legacy key counts of a whole chunk into counts[65536]. */
static void
ref_count_legacy_section(const sl_nbt *s, uint32_t *counts)
{
	const sl_nbt *blocks = sl_nbt_child(s, "Blocks");
	const sl_nbt *add = sl_nbt_child(s, "Add");
	const sl_nbt *data = sl_nbt_child(s, "Data");

	for (int y = 0; y < 16; y++)
		for (int z = 0; z < 16; z++)
			for (int x = 0; x < 16; x++)
				counts[ref_legacy_key(blocks, add, data, (uint32_t) (y * 256 + z * 16 + x))]++;
}

/* Count the blocks of a chunk the simple way into out; -1 on a bad index. */
static int
ref_count_blocks(const ref_chunk *rc, tally_list *out, era_stats *e)
{
	static uint32_t counts[65536];
	int			legacy = 0;
	char		name[128];

	memset(counts, 0, sizeof(counts));
	if (rc->sections == NULL && rc->level && sl_nbt_child(rc->level, "Blocks"))
	{
		const sl_nbt *blocks = sl_nbt_child(rc->level, "Blocks");
		const sl_nbt *data = sl_nbt_child(rc->level, "Data");

		legacy = 1;
		for (int x = 0; x < 16; x++)
			for (int z = 0; z < 16; z++)
				for (int y = 0; y < 128; y++)
					counts[ref_legacy_key(blocks, NULL, data, (uint32_t) (y + z * 128 + x * 128 * 16))]++;
	}
	for (uint32_t i = 0; rc->sections && i < rc->sections->v.list.count; i++)
	{
		const sl_nbt *s = rc->sections->v.list.items[i];
		const sl_nbt *bs = sl_nbt_child(s, "block_states");
		const sl_nbt *pal;
		const sl_nbt *data;
		int			bits = 0,
					spanning = 0;
		uint32_t   *per;

		if (sl_nbt_child(s, "Blocks"))
		{
			legacy = 1;
			ref_count_legacy_section(s, counts);
			continue;
		}
		if (bs)
		{
			pal = sl_nbt_child(bs, "palette");
			data = sl_nbt_child(bs, "data");
			if (pal->v.list.count > 1)
				bits = ref_bits(pal->v.list.count, 4);
		}
		else
		{
			pal = sl_nbt_child(s, "Palette");
			data = sl_nbt_child(s, "BlockStates");
			if (pal == NULL || data == NULL)
				continue;
			bits = ref_bits(pal->v.list.count, 4);
			spanning = rc->dv < 2527;
		}
		per = calloc(pal->v.list.count, sizeof(uint32_t));
		for (uint32_t b = 0; b < 4096; b++)
		{
			long		v = bits ? ref_index(data, bits, spanning, b) : 0;

			if (v < 0 || v >= (long) pal->v.list.count)
			{
				free(per);
				return -1;
			}
			per[v]++;
		}
		for (uint32_t v = 0; v < pal->v.list.count; v++)
			if (per[v])
			{
				char	   *n = ref_state(pal->v.list.items[v]);

				tally_add(out, n, strlen(n), per[v]);
				free(n);
			}
		free(per);
	}
	if (legacy)
		for (unsigned k = 0; k < 65536; k++)
			if (counts[k])
			{
				int			fallback;

				ref_legacy_name(k >> 4, k & 15, name, sizeof(name), &fallback);
				tally_add(out, name, strlen(name), counts[k]);
				if (fallback)
				{
					int			u;

					e->fallback_blocks += counts[k];
					for (u = 0; u < e->nunknown; u++)
						if (e->unknown_key[u] == k)
							break;
					if (u == e->nunknown && u < MAX_UNKNOWN)
					{
						e->unknown_key[u] = k;
						e->unknown_count[u] = 0;
						e->nunknown++;
					}
					if (u < MAX_UNKNOWN)
						e->unknown_count[u] += counts[k];
				}
			}
	return 0;
}

/* Count the biomes of a chunk the simple way. */
static void
ref_count_biomes(const ref_chunk *rc, tally_list *out)
{
	const sl_nbt *body = rc->level ? rc->level : rc->root;
	const sl_nbt *b = sl_nbt_child(body, "Biomes");
	char		name[128];

	if (rc->sections && sl_nbt_child(rc->root, "sections"))
	{
		for (uint32_t i = 0; i < rc->sections->v.list.count; i++)
		{
			const sl_nbt *bio = sl_nbt_child(rc->sections->v.list.items[i], "biomes");
			const sl_nbt *pal;
			const sl_nbt *data;
			int			bits;

			if (bio == NULL)
				continue;
			pal = sl_nbt_child(bio, "palette");
			data = sl_nbt_child(bio, "data");
			bits = ref_bits(pal->v.list.count, 0);
			for (uint32_t c = 0; c < 64; c++)
			{
				long		v = bits ? ref_index(data, bits, 0, c) : 0;
				const sl_nbt *s;

				if (v < 0 || v >= (long) pal->v.list.count)
				{
					tally_add(out, "(bad biome index)", 17, 1);
					continue;
				}
				s = pal->v.list.items[v];
				tally_add(out, s->v.str.s, s->v.str.len, 1);
			}
		}
		return;
	}
	if (b == NULL)
		return;
	for (uint32_t i = 0; i < b->v.arr.count; i++)
	{
		long		id;

		if (b->type == SL_TAG_BYTE_ARRAY)
			id = b->v.arr.data[i];
		else
		{
			const uint8_t *p = b->v.arr.data + 4 * i;

			id = (int32_t) ((uint32_t) p[0] << 24 | (uint32_t) p[1] << 16 | (uint32_t) p[2] << 8 | p[3]);
		}
		ref_biome_name(id, name, sizeof(name));
		tally_add(out, name, strlen(name), 1);
	}
}

/* Reference name of the block at chunk-local x, z and world y; NULL if none. */
static char *
ref_block_at(const ref_chunk *rc, int x, int y, int z)
{
	char		name[128];
	int			fallback;

	if (rc->sections == NULL && rc->level && sl_nbt_child(rc->level, "Blocks"))
	{
		unsigned	k;

		if (y < 0 || y >= 128)
			return NULL;
		k = ref_legacy_key(sl_nbt_child(rc->level, "Blocks"), NULL, sl_nbt_child(rc->level, "Data"),
						   (uint32_t) (y + z * 128 + x * 128 * 16));
		ref_legacy_name(k >> 4, k & 15, name, sizeof(name), &fallback);
		return dup_n(name, strlen(name));
	}
	for (uint32_t i = 0; rc->sections && i < rc->sections->v.list.count; i++)
	{
		const sl_nbt *s = rc->sections->v.list.items[i];
		const sl_nbt *bs = sl_nbt_child(s, "block_states");
		long		sy = ref_int(sl_nbt_child(s, "Y"), -1000);
		uint32_t	idx;
		const sl_nbt *pal;
		const sl_nbt *data;
		int			bits = 0;
		long		v = 0;

		if (sy == -1000 || y < sy * 16 || y >= sy * 16 + 16)
			continue;
		idx = (uint32_t) ((y - sy * 16) * 256 + z * 16 + x);
		if (sl_nbt_child(s, "Blocks"))
		{
			unsigned	k = ref_legacy_key(sl_nbt_child(s, "Blocks"), sl_nbt_child(s, "Add"),
										   sl_nbt_child(s, "Data"), idx);

			ref_legacy_name(k >> 4, k & 15, name, sizeof(name), &fallback);
			return dup_n(name, strlen(name));
		}
		if (bs)
		{
			pal = sl_nbt_child(bs, "palette");
			data = sl_nbt_child(bs, "data");
			if (pal->v.list.count > 1)
				v = ref_index(data, ref_bits(pal->v.list.count, 4), 0, idx);
		}
		else
		{
			pal = sl_nbt_child(s, "Palette");
			data = sl_nbt_child(s, "BlockStates");
			if (pal == NULL || data == NULL)
				continue;
			bits = ref_bits(pal->v.list.count, 4);
			v = ref_index(data, bits, rc->dv < 2527, idx);
		}
		if (v < 0 || v >= (long) pal->v.list.count)
			return dup_n("(bad index)", 11);
		return ref_state(pal->v.list.items[v]);
	}
	return NULL;
}

/* ---- driving both ---- */

/* sl_count_fn collecting into a tally list. */
static int
collect(void *ctx, const char *name, size_t len, size_t base_len, uint64_t count,
		int fallback, sl_err *err)
{
	tally_add(ctx, name, len, count);
	return 0;
}

/* Stats slot of an era name. */
static era_stats *
era_named(const char *name)
{
	for (int i = 0; i < neras; i++)
		if (strcmp(eras[i].name, name) == 0)
			return &eras[i];
	if (neras == MAX_ERAS)
		return &eras[MAX_ERAS - 1];
	snprintf(eras[neras].name, sizeof(eras[neras].name), "%s", name);
	return &eras[neras++];
}

/* Note a layout name once per era. */
static void
note_layout(era_stats *e, const char *layout)
{
	if (strstr(e->layouts, layout) == NULL &&
		strlen(e->layouts) + strlen(layout) + 2 < sizeof(e->layouts))
	{
		if (e->layouts[0])
			strcat(e->layouts, ",");
		strcat(e->layouts, layout);
	}
}

/* Check one chunk's NBT; where names it in messages. */
static void
check_chunk(era_stats *e, const uint8_t *nbt, size_t len, const char *where)
{
	sl_arena	arena = {0},
				ref_arena = {0};
	sl_chunk_blocks c;
	sl_err		err;
	tally_list	mod_blocks = {0},
				mod_biomes = {0},
				ref_blocks_l = {0},
				ref_biomes_l = {0};
	ref_chunk	rc;
	sl_nbt	   *root;
	size_t		used;
	double		t0;
	sl_buf		at = {0};

	e->chunks++;
	t0 = corpus_now();
	if (sl_chunk_blocks_open(nbt, len, SL_NO_DV, SL_WANT_BLOCKS | SL_WANT_BIOMES, NULL, &arena, &c, &err) ||
		sl_chunk_count_blocks(&c, collect, &mod_blocks, &err) ||
		sl_chunk_count_biomes(&c, collect, &mod_biomes, &err))
	{
		fprintf(stderr, "ERROR %s: %s\n", where, err.msg);
		e->errors++;
		goto done;
	}
	e->module_s += corpus_now() - t0;
	note_layout(e, sl_layout_name(c.layout));
	if (c.nsections > 0 && c.sections[0].kind)
		e->chunks_with_blocks++;
	for (int i = 0; i < c.nsections; i++)
		e->sections += c.sections[i].kind != 0;

	t0 = corpus_now();
	if (sl_nbt_parse(nbt, len, NULL, &ref_arena, &root, &used, &err))
	{
		fprintf(stderr, "ERROR %s: reference parse: %s\n", where, err.msg);
		e->errors++;
		goto done;
	}
	memset(&rc, 0, sizeof(rc));
	rc.root = root;
	rc.level = sl_nbt_child(root, "Level");
	rc.dv = ref_int(sl_nbt_child(root, "DataVersion"), -1);
	rc.sections = sl_nbt_child(root, "sections");
	if (rc.sections == NULL && rc.level)
		rc.sections = sl_nbt_child(rc.level, "Sections");
	if (rc.sections && rc.sections->v.list.count == 0)
		rc.sections = NULL;
	if (ref_count_blocks(&rc, &ref_blocks_l, e))
	{
		fprintf(stderr, "ERROR %s: reference: palette index out of range\n", where);
		e->errors++;
		goto done;
	}
	ref_count_biomes(&rc, &ref_biomes_l);
	e->ref_s += corpus_now() - t0;

	tally_merge(&mod_blocks);
	tally_merge(&ref_blocks_l);
	tally_merge(&mod_biomes);
	tally_merge(&ref_biomes_l);
	for (size_t i = 0; i < mod_blocks.n; i++)
		e->blocks += mod_blocks.items[i].count;
	for (size_t i = 0; i < mod_biomes.n; i++)
	{
		e->biomes += mod_biomes.items[i].count;
		if (strncmp(mod_biomes.items[i].name, "minecraft:legacy_biome_", 23) == 0)
		{
			int			u;

			e->fallback_biomes += mod_biomes.items[i].count;
			for (u = 0; u < e->nunknown_biomes; u++)
				if (strcmp(e->unknown_biome[u], mod_biomes.items[i].name + 23) == 0)
					break;
			if (u == e->nunknown_biomes && u < 64)
			{
				snprintf(e->unknown_biome[u], sizeof(e->unknown_biome[u]), "%s", mod_biomes.items[i].name + 23);
				e->unknown_biome_count[u] = 0;
				e->nunknown_biomes++;
			}
			if (u < 64)
				e->unknown_biome_count[u] += mod_biomes.items[i].count;
		}
	}
	if (!tally_equal(&mod_blocks, &ref_blocks_l, "blocks", where))
		e->block_mismatch++;
	if (!tally_equal(&mod_biomes, &ref_biomes_l, "biomes", where))
		e->biome_mismatch++;

	/* single blocks at random positions, and one below and above all */
	for (int s = 0; s < SAMPLES + 2; s++)
	{
		int			x = rnd() % 16,
					z = rnd() % 16,
					y = s == SAMPLES ? -2048 : s == SAMPLES + 1 ? 2047 : (int) (rnd() % 448) - 64;
		char	   *want = ref_block_at(&rc, x, y, z);
		int			rcode;

		at.len = 0;
		rcode = sl_chunk_block_at(&c, x, y, z, &at, &err);
		if (rcode < 0 || (rcode == 1) != (want != NULL) ||
			(want && (at.len != strlen(want) || memcmp(at.data, want, at.len) != 0)))
		{
			fprintf(stderr, "MISMATCH %s block (%d,%d,%d): module %.*s (%d), reference %s\n", where,
					x, y, z, rcode == 1 ? (int) at.len : 0, rcode == 1 ? (char *) at.data : "",
					rcode, want ? want : "(none)");
			e->probe_mismatch++;
			free(want);
			break;
		}
		free(want);
	}

done:
	tally_clear(&mod_blocks);
	tally_clear(&mod_biomes);
	tally_clear(&ref_blocks_l);
	tally_clear(&ref_biomes_l);
	free(mod_blocks.items);
	free(mod_biomes.items);
	free(ref_blocks_l.items);
	free(ref_biomes_l.items);
	sl_buf_free(&at);
	sl_arena_free(&arena);
	sl_arena_free(&ref_arena);
}

/* nftw callback: check every region file and raw chunk of the chosen eras. */
static int
visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	const char *rel = path + strlen(corpus_root);
	const char *base = strrchr(path, '/');
	char		era[64];
	size_t		n,
				len;
	uint8_t    *file;
	era_stats  *e;
	int			x = 0,
				z = 0;

	while (*rel == '/')
		rel++;
	n = strcspn(rel, "/");
	if (type != FTW_F || n >= sizeof(era))
		return 0;
	memcpy(era, rel, n);
	era[n] = '\0';
	if (strncmp(era, "anvil-", 6) != 0 && strcmp(era, "mcregion") != 0 && strcmp(era, "chunk-nbt") != 0)
		return 0;
	file = corpus_read_file(path, &len);
	if (file == NULL)
		return 0;
	e = era_named(era);
	e->files++;
	base = base ? base + 1 : path;
	if (strcmp(era, "chunk-nbt") == 0)
		check_chunk(e, file, len, rel);
	else
	{
		sl_region	r;
		sl_err		err;

		memset(&r, 0, sizeof(r));
		if (sscanf(base, "r.%d.%d.", &x, &z) != 2)
			x = z = 0;
		if (sl_region_read(file, len, x, z, NULL, 0, 1, NULL, &r, &err))
		{
			fprintf(stderr, "ERROR %s: %s\n", rel, err.msg);
			e->errors++;
		}
		for (int i = 0; i < r.nchunks; i++)
		{
			char		where[512];

			snprintf(where, sizeof(where), "%s chunk (%d,%d)", rel, r.chunks[i].x, r.chunks[i].z);
			check_chunk(e, r.chunks[i].nbt, r.chunks[i].nbt_len, where);
		}
		sl_region_free(&r);
	}
	free(file);
	return 0;
}

/* Order eras by name. */
static int
era_cmp(const void *a, const void *b)
{
	return strcmp(((const era_stats *) a)->name, ((const era_stats *) b)->name);
}

int
main(int argc, char **argv)
{
	const char *env = getenv("SLIME_CORPUS");
	const char *data_dir = argc > 2 ? argv[2] : "data";
	char		path[4096];
	long		mismatches = 0,
				errors = 0,
				chunks = 0;

	corpus_root = argc > 1 ? argv[1] : env && *env ? env : "../shared/corpus";
	snprintf(path, sizeof(path), "%s/legacy_blocks.tsv", data_dir);
	if (load_tsv(path, 3))
		return 2;
	snprintf(path, sizeof(path), "%s/legacy_biomes.tsv", data_dir);
	if (load_tsv(path, 2))
		return 2;
	if (nftw(corpus_root, visit, 16, FTW_PHYS) != 0 || neras == 0)
	{
		fprintf(stderr, "no corpus at %s\n", corpus_root);
		return 2;
	}
	qsort(eras, neras, sizeof(era_stats), era_cmp);
	printf("%-16s %5s %6s %6s %7s %12s %10s %9s %9s %6s %8s %8s  %s\n", "era", "files", "chunks",
		   "w/blk", "sects", "blocks", "biomes", "fallback", "mismatch", "errors", "module_s", "ref_s", "layouts");
	for (int i = 0; i < neras; i++)
	{
		era_stats  *e = &eras[i];
		long		mm = e->block_mismatch + e->biome_mismatch + e->probe_mismatch;

		printf("%-16s %5d %6ld %6ld %7ld %12llu %10llu %9llu %9ld %6ld %8.2f %8.2f  %s\n", e->name,
			   e->files, e->chunks, e->chunks_with_blocks, e->sections,
			   (unsigned long long) e->blocks, (unsigned long long) e->biomes,
			   (unsigned long long) e->fallback_blocks, mm, e->errors, e->module_s, e->ref_s,
			   e->layouts);
		mismatches += mm;
		errors += e->errors;
		chunks += e->chunks;
	}
	for (int i = 0; i < neras; i++)
	{
		era_stats  *e = &eras[i];

		if (e->nunknown == 0 && e->fallback_biomes == 0)
			continue;
		printf("%s: %d unknown legacy (id:data) pairs, %llu blocks named minecraft:legacy_*; %llu biome entries named minecraft:legacy_biome_*\n",
			   e->name, e->nunknown, (unsigned long long) e->fallback_blocks,
			   (unsigned long long) e->fallback_biomes);
		for (int u = 0; u < e->nunknown; u++)
			printf("  %u:%u x%llu%s", e->unknown_key[u] >> 4, e->unknown_key[u] & 15,
				   (unsigned long long) e->unknown_count[u], (u + 1) % 8 == 0 || u + 1 == e->nunknown ? "\n" : "");
		for (int u = 0; u < e->nunknown_biomes; u++)
			printf("%s biome %s x%llu%s", u ? "" : "  unknown biome ids:", e->unknown_biome[u],
				   (unsigned long long) e->unknown_biome_count[u], u + 1 == e->nunknown_biomes ? "\n" : ",");
	}
	printf("blocks_check: %ld chunks, %ld mismatches, %ld errors\n", chunks, mismatches, errors);
	printf("%ld passed, %ld failed\n", chunks - mismatches - errors, mismatches + errors);
	return mismatches || errors ? 1 : 0;
}
