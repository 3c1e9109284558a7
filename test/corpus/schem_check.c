/*
 * schem_check.c - every schematic of the shared corpus (Sponge v1/v2/v3,
 * MCEdit), read in place, pasted into worlds built from corpus regions and
 * checked block by block.
 *
 * Bases: a 1.18.2 region (sections -4..19, no spanning), a 1.13 region
 * (spanning longs) and a 1.16.5 region (aligned longs). For each schematic
 * and base, at an unaligned position where the world has every chunk:
 *   1. snapshot = extract(world, box) (Sponge v3);
 *   2. pasted = paste(world, schematic): every block of the box, read back
 *      with the block decoder (sl_chunk_block_at), is the schematic's state
 *      and every schematic block entity is there;
 *   3. extract(pasted, box) as v3 and v2 read back equal to the schematic,
 *      entry by entry;
 *   4. restored = paste(pasted, snapshot): every block and block entity of
 *      the box equals the original world's, and every chunk outside the box
 *      is byte-identical;
 *   5. each value passes sl_value_verify;
 *   and before step 2: paste(world, snapshot) changes no chunk at all (a
 *   section whose blocks stay the same keeps its bytes, a chunk with none
 *   changed is kept as it is). Each base holding chunks (0..2, 0..2) also
 *   gets the arena reset of issue #15: the extract of 0,40,0 - 47,90,47
 *   pasted back changes none of its chunks.
 * A pre-1.13 region checks that paste refuses its chunks and that extract
 * names their blocks as the decoder does. Files that are not schematics
 * (a structure file) must be refused with a clear error.
 *
 * Usage: schem_check [CORPUS_DIR]   (default $SLIME_CORPUS or ../shared/corpus)
 */
#define _XOPEN_SOURCE 700
#define CORPUS_PROG "schem_check"
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sl_blocks.h"
#include "sl_build.h"
#include "sl_chunk.h"
#include "sl_region.h"
#include "sl_schem.h"
#include "sl_value.h"

#include "corpus_util.h"

typedef struct base
{
	const char *path;			/* under the corpus */
	const char *what;
	int32_t		y;				/* where schematics go */
	sl_buf		value;
	sl_value	v;
	int			legacy;
} base;

static base bases[] = {
	{"anvil-1.18plus/querz-nbt/parsers/r.0.0.mca", "1.18.2", -50, {0}, {0}, 0},
	{"anvil-1.13-1.17/amulet-core/1_13/r.-1.-1.mca", "1.13 spanning", 3, {0}, {0}, 0},
	{"anvil-1.13-1.17/amulet-core/1_16_5_dimension/r.-1.-1.mca", "1.16.5 aligned", 3, {0}, {0}, 0},
	{"anvil-1.2-1.12/amulet-core/1_12_2/r.0.0.mca", "1.12.2 legacy", 3, {0}, {0}, 1},
};

#define NBASES (int) (sizeof(bases) / sizeof(bases[0]))

static const char *corpus_root;
static char *files[256];
static int	nfiles;
static int	passed,
			failed,
			skipped;

static int
collect(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	if (type == FTW_F && nfiles < 256)
		files[nfiles++] = strdup(path);
	return 0;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

/* Build a value from a region file. */
static void
load_base(base *b)
{
	char		path[4096];
	size_t		len;
	uint8_t    *file;
	sl_region	r;
	sl_builder	bl;
	sl_err		err;
	int32_t		rx,
				rz;

	snprintf(path, sizeof(path), "%s/%s", corpus_root, b->path);
	file = corpus_read_file(path, &len);
	if (file == NULL)
		die("cannot read %s", path);
	corpus_region_coords(path, &rx, &rz);
	memset(&bl, 0, sizeof(bl));
	memset(&r, 0, sizeof(r));
	if (sl_region_read(file, len, rx, rz, NULL, 0, 1, NULL, &r, &err) ||
		sl_builder_add_region(&bl, SL_COMP_REGION, &r, &err) ||
		sl_builder_encode(&bl, NULL, NULL, &b->value, &err) ||
		sl_value_open_mem(&b->v, b->value.data, b->value.len, NULL, &err))
		die("%s: %s", b->path, err.msg);
	sl_region_free(&r);
	sl_builder_free(&bl);
	free(file);
}

/* A chunk opened for block reads (one at a time). */
typedef struct open_chunk
{
	int			have;
	sl_arena	arena;
	sl_chunk_blocks cb;
	uint8_t    *nbt;
	sl_nbt	   *root;
} open_chunk;

static void
close_chunk(open_chunk *c)
{
	sl_arena_free(&c->arena);
	free(c->nbt);
	memset(c, 0, sizeof(*c));
}

/* Open chunk (cx, cz) of v; have = 0 when the value has no region data there. */
static int
open_chunk_at(sl_value *v, int32_t cx, int32_t cz, open_chunk *c, sl_err *err)
{
	int64_t		i = sl_value_find(v, cx, cz);
	sl_dirent	d;
	const uint8_t *comp[SL_NCOMP];
	size_t		used;

	memset(c, 0, sizeof(*c));
	if (i < 0)
		return 0;
	if (sl_value_chunk(v, (uint32_t) i, &d, comp, err))
		return -1;
	if (d.len[0] == 0)
		return 0;
	c->nbt = xmalloc(d.len[0]);
	memcpy(c->nbt, comp[0], d.len[0]);
	if (sl_nbt_parse(c->nbt, d.len[0], NULL, &c->arena, &c->root, &used, err) ||
		sl_chunk_blocks_from_tree(c->root, d.data_version, SL_WANT_BLOCKS, &c->arena, &c->cb, err))
		return -1;
	c->have = 1;
	return 0;
}

/* The block at (x, y, z) of an open chunk; air where nothing is stored. */
static int
block_at(open_chunk *c, int32_t x, int32_t y, int32_t z, sl_buf *out, sl_err *err)
{
	int			rc = 0;

	out->len = 0;
	if (c->have)
		rc = sl_chunk_block_at(&c->cb, x & 15, y, z & 15, out, err);
	if (rc < 0)
		return -1;
	if (rc == 0)
		sl_buf_put(out, "minecraft:air", 13, err);
	return 0;
}

/* A block entity as bytes that do not depend on field order. */
static void
be_key(const sl_nbt *e, sl_buf *out)
{
	const sl_nbt **ch = xmalloc((e->v.comp.count + 1) * sizeof(*ch));

	for (uint32_t i = 0; i < e->v.comp.count; i++)
		ch[i] = e->v.comp.items[i];
	/* insertion sort by name (few fields) */
	for (uint32_t i = 1; i < e->v.comp.count; i++)
		for (uint32_t j = i; j > 0; j--)
		{
			const sl_nbt *a = ch[j - 1],
					   *b = ch[j];
			size_t		n = a->name_len < b->name_len ? a->name_len : b->name_len;
			int			c = memcmp(a->name, b->name, n);

			if (c < 0 || (c == 0 && a->name_len <= b->name_len))
				break;
			ch[j - 1] = b;
			ch[j] = a;
		}
	out->len = 0;
	for (uint32_t i = 0; i < e->v.comp.count; i++)
		sl_nbt_write(ch[i], out, NULL);
	free(ch);
}

typedef struct key_list
{
	char	  **k;
	size_t	   *len;
	int			n;
	int			cap;
} key_list;

static void
keys_add(key_list *l, const sl_buf *b)
{
	if (l->n == l->cap)
	{
		l->cap = l->cap ? l->cap * 2 : 64;
		l->k = xrealloc(l->k, (size_t) l->cap * sizeof(char *));
		l->len = xrealloc(l->len, (size_t) l->cap * sizeof(size_t));
	}
	l->k[l->n] = xmalloc(b->len + 1);
	memcpy(l->k[l->n], b->data, b->len);
	l->len[l->n] = b->len;
	l->n++;
}

static void
keys_free(key_list *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->k[i]);
	free(l->k);
	free(l->len);
	memset(l, 0, sizeof(*l));
}

/* Sorted block entity keys of a value inside a box. */
static void
box_block_entities(sl_value *v, const int64_t lo[3], const int64_t hi[3], key_list *out)
{
	sl_buf		k = {0};
	sl_err		err;

	for (int32_t cz = (int32_t) (lo[2] >> 4); cz <= (int32_t) (hi[2] >> 4); cz++)
		for (int32_t cx = (int32_t) (lo[0] >> 4); cx <= (int32_t) (hi[0] >> 4); cx++)
		{
			open_chunk	c;
			const sl_nbt *l;

			if (open_chunk_at(v, cx, cz, &c, &err) || !c.have)
			{
				close_chunk(&c);
				continue;
			}
			l = sl_chunk_block_entities(c.root);
			for (uint32_t i = 0; l && l->v.list.elem_type == SL_TAG_COMPOUND && i < l->v.list.count; i++)
			{
				int64_t		x,
							y,
							z;

				if (!sl_nbt_get_int(l->v.list.items[i], "x", &x) ||
					!sl_nbt_get_int(l->v.list.items[i], "y", &y) ||
					!sl_nbt_get_int(l->v.list.items[i], "z", &z) ||
					x < lo[0] || x > hi[0] || y < lo[1] || y > hi[1] || z < lo[2] || z > hi[2])
					continue;
				be_key(l->v.list.items[i], &k);
				keys_add(out, &k);
			}
			close_chunk(&c);
		}
	/* sort */
	for (int i = 1; i < out->n; i++)
		for (int j = i; j > 0; j--)
		{
			size_t		n = out->len[j - 1] < out->len[j] ? out->len[j - 1] : out->len[j];
			int			c = memcmp(out->k[j - 1], out->k[j], n);
			char	   *tk;
			size_t		tl;

			if (c < 0 || (c == 0 && out->len[j - 1] <= out->len[j]))
				break;
			tk = out->k[j - 1];
			out->k[j - 1] = out->k[j];
			out->k[j] = tk;
			tl = out->len[j - 1];
			out->len[j - 1] = out->len[j];
			out->len[j] = tl;
		}
	sl_buf_free(&k);
}

static int
keys_equal(const key_list *a, const key_list *b)
{
	if (a->n != b->n)
		return 0;
	for (int i = 0; i < a->n; i++)
		if (a->len[i] != b->len[i] || memcmp(a->k[i], b->k[i], a->len[i]) != 0)
			return 0;
	return 1;
}

/* Blocks of the box in two values that differ. */
static long
diff_worlds(sl_value *a, sl_value *b, const int64_t lo[3], const int64_t hi[3], sl_err *err)
{
	sl_buf		na = {0},
				nb = {0};
	long		diff = 0;

	for (int32_t cz = (int32_t) (lo[2] >> 4); cz <= (int32_t) (hi[2] >> 4); cz++)
		for (int32_t cx = (int32_t) (lo[0] >> 4); cx <= (int32_t) (hi[0] >> 4); cx++)
		{
			open_chunk	ca,
						cb;
			int64_t		x0 = (int64_t) cx * 16 > lo[0] ? (int64_t) cx * 16 : lo[0];
			int64_t		x1 = (int64_t) cx * 16 + 15 < hi[0] ? (int64_t) cx * 16 + 15 : hi[0];
			int64_t		z0 = (int64_t) cz * 16 > lo[2] ? (int64_t) cz * 16 : lo[2];
			int64_t		z1 = (int64_t) cz * 16 + 15 < hi[2] ? (int64_t) cz * 16 + 15 : hi[2];

			if (open_chunk_at(a, cx, cz, &ca, err) || open_chunk_at(b, cx, cz, &cb, err))
				return -1;
			for (int64_t y = lo[1]; y <= hi[1]; y++)
				for (int64_t z = z0; z <= z1; z++)
					for (int64_t x = x0; x <= x1; x++)
					{
						if (block_at(&ca, (int32_t) x, (int32_t) y, (int32_t) z, &na, err) ||
							block_at(&cb, (int32_t) x, (int32_t) y, (int32_t) z, &nb, err))
							return -1;
						if (na.len != nb.len || memcmp(na.data, nb.data, na.len) != 0)
						{
							if (diff == 0)
								printf("  first difference at (%lld,%lld,%lld): %.*s vs %.*s\n",
									   (long long) x, (long long) y, (long long) z,
									   (int) na.len, na.data, (int) nb.len, nb.data);
							diff++;
						}
					}
			close_chunk(&ca);
			close_chunk(&cb);
		}
	sl_buf_free(&na);
	sl_buf_free(&nb);
	return diff;
}

/* Blocks of the box in a value that differ from the schematic's. */
static long
diff_schematic(sl_value *v, const sl_schem *s, const int64_t lo[3], sl_err *err)
{
	sl_buf		name = {0};
	uint32_t	run[16];
	long		diff = 0;
	int64_t		hi[3] = {lo[0] + s->width - 1, lo[1] + s->height - 1, lo[2] + s->length - 1};

	for (int32_t cz = (int32_t) (lo[2] >> 4); cz <= (int32_t) (hi[2] >> 4); cz++)
		for (int32_t cx = (int32_t) (lo[0] >> 4); cx <= (int32_t) (hi[0] >> 4); cx++)
		{
			open_chunk	c;
			int64_t		x0 = (int64_t) cx * 16 > lo[0] ? (int64_t) cx * 16 : lo[0];
			int64_t		x1 = (int64_t) cx * 16 + 15 < hi[0] ? (int64_t) cx * 16 + 15 : hi[0];
			int64_t		z0 = (int64_t) cz * 16 > lo[2] ? (int64_t) cz * 16 : lo[2];
			int64_t		z1 = (int64_t) cz * 16 + 15 < hi[2] ? (int64_t) cz * 16 + 15 : hi[2];

			if (open_chunk_at(v, cx, cz, &c, err))
				return -1;
			for (int64_t y = lo[1]; y <= hi[1]; y++)
				for (int64_t z = z0; z <= z1; z++)
				{
					uint64_t	i = (uint64_t) (x0 - lo[0]) + (uint64_t) (z - lo[2]) * s->width +
						(uint64_t) (y - lo[1]) * s->width * s->length;

					if (sl_schem_run(s, i, (uint32_t) (x1 - x0 + 1), run, err))
						return -1;
					for (int64_t x = x0; x <= x1; x++)
					{
						const sl_schem_state *st = &s->palette[run[x - x0]];

						if (block_at(&c, (int32_t) x, (int32_t) y, (int32_t) z, &name, err))
							return -1;
						if (name.len != st->canon_len || memcmp(name.data, st->canon, name.len) != 0)
						{
							if (diff == 0)
								printf("  first difference at (%lld,%lld,%lld): world %.*s, schematic %.*s\n",
									   (long long) x, (long long) y, (long long) z, (int) name.len,
									   name.data, (int) st->canon_len, st->canon);
							diff++;
						}
					}
				}
			close_chunk(&c);
		}
	sl_buf_free(&name);
	return diff;
}

/* Entries of two schematics of the same size that name different states. */
static long
diff_schematics(const sl_schem *a, const sl_schem *b, sl_err *err)
{
	uint32_t	ra[256],
				rb[256];
	long		diff = 0;

	if (a->volume != b->volume || a->width != b->width || a->height != b->height)
		return -1;
	for (uint64_t i = 0; i < a->volume; i += 256)
	{
		uint32_t	n = a->volume - i < 256 ? (uint32_t) (a->volume - i) : 256;

		if (sl_schem_run(a, i, n, ra, err) || sl_schem_run(b, i, n, rb, err))
			return -1;
		for (uint32_t k = 0; k < n; k++)
			diff += a->palette[ra[k]].canon_len != b->palette[rb[k]].canon_len ||
				memcmp(a->palette[ra[k]].canon, b->palette[rb[k]].canon, a->palette[ra[k]].canon_len) != 0;
	}
	return diff;
}

/* Paste a schematic into a value: the new value's bytes in out. */
static int
paste(sl_value *v, const sl_schem *s, const int64_t at[3], sl_buf *out, sl_err *err)
{
	sl_builder	b;
	int			rc;

	memset(&b, 0, sizeof(b));
	out->len = 0;
	rc = sl_schem_paste(v, s, (int32_t) at[0], (int32_t) at[1], (int32_t) at[2], NULL, &b, err);
	if (rc == 0)
		rc = sl_builder_encode(&b, NULL, NULL, out, err);
	if (rc == 0)
		rc = sl_value_verify(out->data, out->len, NULL, err);
	sl_builder_free(&b);
	return rc;
}

/* Chunks of a whose bytes (every component) differ in b, or that b lacks; -1 on an error. */
static long
changed_chunks(sl_value *a, sl_value *b, sl_err *err)
{
	long		n = 0;

	for (uint32_t i = 0; i < a->hdr.chunk_count; i++)
	{
		sl_dirent	d;
		uint8_t		ha[32],
					hb[32];
		int64_t		j;

		if (sl_value_dirent(a, i, &d, err) || sl_value_chunk_hash(a, i, ha, err))
			return -1;
		j = sl_value_find(b, d.x, d.z);
		if (j < 0)
		{
			n++;
			continue;
		}
		if (sl_value_chunk_hash(b, (uint32_t) j, hb, err))
			return -1;
		n += memcmp(ha, hb, 32) != 0;
	}
	return n;
}

/*
 * Paste the extract (Sponge version) of box lo..hi back where it came
 * from: the changed chunks (every one keeps its bytes when all is well).
 */
static long
paste_own_extract(base *b, const int64_t lo[3], const int64_t hi[3], int version, sl_err *err)
{
	sl_buf		snap = {0},
				out = {0};
	sl_schem	s;
	sl_value	v;
	long		n = -1;

	memset(&s, 0, sizeof(s));
	memset(&v, 0, sizeof(v));
	if (sl_schem_extract(&b->v, (int32_t) lo[0], (int32_t) lo[1], (int32_t) lo[2], (int32_t) hi[0],
						 (int32_t) hi[1], (int32_t) hi[2], version, NULL, &snap, err) == 0 &&
		sl_schem_read(snap.data, snap.len, NULL, &s, err) == 0 &&
		paste(&b->v, &s, lo, &out, err) == 0 &&
		sl_value_open_mem(&v, out.data, out.len, NULL, err) == 0)
		n = changed_chunks(&b->v, &v, err);
	sl_value_close(&v);
	sl_schem_free(&s);
	sl_buf_free(&snap);
	sl_buf_free(&out);
	return n;
}

/* Does the world hold chunk (cx, cz) with block sections (not a bare proto chunk)? */
static int
has_blocks(base *b, int32_t cx, int32_t cz)
{
	open_chunk	c;
	sl_err		err;
	int			yes;

	if (sl_value_find(&b->v, cx, cz) < 0)
		return 0;
	yes = open_chunk_at(&b->v, cx, cz, &c, &err) == 0 && c.have && c.cb.layout != SL_LAYOUT_NONE;
	close_chunk(&c);
	return yes;
}

/* An unaligned position whose chunk rectangle the world holds completely. */
static int
placement(base *b, const sl_schem *s, int64_t at[3])
{
	const sl_header *h = &b->v.hdr;

	for (int32_t cz = h->min_z; cz <= h->max_z; cz++)
		for (int32_t cx = h->min_x; cx <= h->max_x; cx++)
		{
			int64_t		x = (int64_t) cx * 16 + 5,
						z = (int64_t) cz * 16 + 9;
			int			ok = 1;

			for (int64_t qz = z >> 4; ok && qz <= (z + s->length - 1) >> 4; qz++)
				for (int64_t qx = x >> 4; ok && qx <= (x + s->width - 1) >> 4; qx++)
					ok = has_blocks(b, (int32_t) qx, (int32_t) qz);
			if (ok)
			{
				at[0] = x;
				at[1] = b->y;
				at[2] = z;
				return 1;
			}
		}
	return 0;
}

/* The full check of one schematic in one base. */
static int
check_in_base(const char *rel, const sl_schem *s, base *b, const uint8_t *file, size_t len)
{
	int64_t		lo[3],
				hi[3];
	sl_buf		snap = {0},
				pasted = {0},
				restored = {0},
				again = {0};
	sl_value	vp,
				vr;
	sl_schem	back;
	sl_err		err;
	key_list	k0 = {0},
				k1 = {0},
				k2 = {0};
	long		d;
	double		t0,
				t_paste,
				t_extract,
				t_restore;
	int			ok = 0;

	memset(&vp, 0, sizeof(vp));
	memset(&vr, 0, sizeof(vr));
	memset(&back, 0, sizeof(back));
	if (!placement(b, s, lo))
	{
		printf("skip %s in %s: no place where the world has all %u x %u blocks of chunks\n", rel,
			   b->what, s->width, s->length);
		return 2;
	}
	hi[0] = lo[0] + s->width - 1;
	hi[1] = lo[1] + s->height - 1;
	hi[2] = lo[2] + s->length - 1;
	if (sl_schem_extract(&b->v, (int32_t) lo[0], (int32_t) lo[1], (int32_t) lo[2], (int32_t) hi[0],
						 (int32_t) hi[1], (int32_t) hi[2], 3, NULL, &snap, &err))
	{
		printf("FAIL %s in %s: extract: %s\n", rel, b->what, err.msg);
		goto done;
	}
	/* 1b. the snapshot pasted back where it came from changes no chunk */
	if (!b->legacy && (d = paste_own_extract(b, lo, hi, 3, &err)) != 0)
	{
		printf("FAIL %s in %s: the paste of the box's own extract changed %ld chunks%s%s\n", rel,
			   b->what, d, d < 0 ? ": " : "", d < 0 ? err.msg : "");
		goto done;
	}
	t0 = corpus_now();
	if (paste(&b->v, s, lo, &pasted, &err))
	{
		if (b->legacy && err.code == SL_ERR_UNSUPPORTED && strstr(err.msg, "pre-1.13"))
		{
			ok = 1;				/* expected: legacy chunks are not written */
			printf("ok   %s in %s: paste refused as expected (%s)\n", rel, b->what, err.msg);
		}
		else
			printf("FAIL %s in %s: paste: %s\n", rel, b->what, err.msg);
		goto done;
	}
	t_paste = corpus_now() - t0;
	if (b->legacy)
	{
		printf("FAIL %s in %s: paste into pre-1.13 chunks was not refused\n", rel, b->what);
		goto done;
	}
	if (sl_value_open_mem(&vp, pasted.data, pasted.len, NULL, &err))
		goto fail;
	/* 2. every block is the schematic's, every block entity is there */
	if ((d = diff_schematic(&vp, s, lo, &err)) != 0)
	{
		printf("FAIL %s in %s: %ld blocks differ from the schematic%s%s\n", rel, b->what, d,
			   d < 0 ? ": " : "", d < 0 ? err.msg : "");
		goto done;
	}
	box_block_entities(&vp, lo, hi, &k1);
	if (k1.n != (int) s->nbe)
	{
		printf("FAIL %s in %s: %d block entities in the box, the schematic has %u\n", rel, b->what,
			   k1.n, s->nbe);
		goto done;
	}
	/* 3. extracted back (v3 and v2): the same entries */
	t0 = corpus_now();
	for (int version = 3; version >= 2; version--)
	{
		again.len = 0;
		if (sl_schem_extract(&vp, (int32_t) lo[0], (int32_t) lo[1], (int32_t) lo[2], (int32_t) hi[0],
							 (int32_t) hi[1], (int32_t) hi[2], version, NULL, &again, &err) ||
			sl_schem_read(again.data, again.len, NULL, &back, &err))
			goto fail;
		if (version == 3)
			t_extract = corpus_now() - t0;
		if ((d = diff_schematics(s, &back, &err)) != 0 || back.nbe != s->nbe)
		{
			printf("FAIL %s in %s: extracted v%d differs in %ld entries (%u block entities)\n", rel,
				   b->what, version, d, back.nbe);
			goto done;
		}
		sl_schem_free(&back);
	}
	/* 4. restore */
	t0 = corpus_now();
	{
		sl_schem	sn;

		if (sl_schem_read(snap.data, snap.len, NULL, &sn, &err))
		{
			sl_schem_free(&sn);
			goto fail;
		}
		if (paste(&vp, &sn, lo, &restored, &err))
		{
			sl_schem_free(&sn);
			goto fail;
		}
		sl_schem_free(&sn);
	}
	t_restore = corpus_now() - t0;
	if (sl_value_open_mem(&vr, restored.data, restored.len, NULL, &err))
		goto fail;
	if ((d = diff_worlds(&b->v, &vr, lo, hi, &err)) != 0)
	{
		printf("FAIL %s in %s: %ld blocks differ after the restore%s%s\n", rel, b->what, d,
			   d < 0 ? ": " : "", d < 0 ? err.msg : "");
		goto done;
	}
	box_block_entities(&b->v, lo, hi, &k0);
	keys_free(&k2);
	box_block_entities(&vr, lo, hi, &k2);
	if (!keys_equal(&k0, &k2))
	{
		printf("FAIL %s in %s: block entities of the box differ after the restore (%d vs %d)\n", rel,
			   b->what, k0.n, k2.n);
		goto done;
	}
	for (uint32_t i = 0; i < b->v.hdr.chunk_count; i++)
	{
		sl_dirent	d0;
		const uint8_t *c0[SL_NCOMP],
				   *c1[SL_NCOMP];
		uint8_t    *copy;
		int64_t		j;
		int			same;

		if (sl_value_dirent(&b->v, i, &d0, &err))
			goto fail;
		if (d0.x >= lo[0] >> 4 && d0.x <= hi[0] >> 4 && d0.z >= lo[2] >> 4 && d0.z <= hi[2] >> 4)
			continue;
		j = sl_value_find(&vr, d0.x, d0.z);
		if (j < 0 || sl_value_chunk(&b->v, i, &d0, c0, &err))
			goto fail;
		copy = xmalloc(d0.len[0] + 1);
		memcpy(copy, c0[0], d0.len[0]);
		{
			sl_dirent	d1;

			if (sl_value_chunk(&vr, (uint32_t) j, &d1, c1, &err))
			{
				free(copy);
				goto fail;
			}
			same = d1.len[0] == d0.len[0] && memcmp(copy, c1[0], d0.len[0]) == 0 &&
				d1.len[1] == d0.len[1] && d1.len[2] == d0.len[2];
		}
		free(copy);
		if (!same)
		{
			printf("FAIL %s in %s: chunk (%d,%d) outside the box changed\n", rel, b->what, d0.x, d0.z);
			goto done;
		}
	}
	printf("ok   %s in %s at (%lld,%lld,%lld): %s %ux%ux%u, %llu blocks, %u block entities; "
		   "paste %.1f ms, extract %.1f ms, restore %.1f ms\n",
		   rel, b->what, (long long) lo[0], (long long) lo[1], (long long) lo[2],
		   s->kind == SL_SCHEM_MCEDIT ? "MCEdit" : s->version == 3 ? "Sponge v3" :
		   s->version == 2 ? "Sponge v2" : "Sponge v1", s->width, s->height, s->length,
		   (unsigned long long) s->volume, s->nbe, t_paste * 1e3, t_extract * 1e3, t_restore * 1e3);
	ok = 1;
	goto done;
fail:
	printf("FAIL %s in %s: %s\n", rel, b->what, err.msg);
done:
	sl_schem_free(&back);
	sl_value_close(&vp);
	sl_value_close(&vr);
	sl_buf_free(&snap);
	sl_buf_free(&pasted);
	sl_buf_free(&restored);
	sl_buf_free(&again);
	keys_free(&k0);
	keys_free(&k1);
	keys_free(&k2);
	(void) file;
	(void) len;
	return ok;
}

/* Does the world hold the 3 x 3 chunks from (cx, cz) on, each with block sections? */
static int
has_blocks_3x3(base *b, int32_t cx, int32_t cz)
{
	for (int32_t z = cz; z <= cz + 2; z++)
		for (int32_t x = cx; x <= cx + 2; x++)
			if (!has_blocks(b, x, z))
				return 0;
	return 1;
}

/* The first 3 x 3 chunks with blocks: (0, 0) if the world has them, else in z, x order. */
static int
first_3x3(base *b, int32_t *cx, int32_t *cz)
{
	const sl_header *h = &b->v.hdr;

	*cx = *cz = 0;
	if (has_blocks_3x3(b, 0, 0))
		return 1;
	for (*cz = h->min_z; *cz <= h->max_z; (*cz)++)
		for (*cx = h->min_x; *cx <= h->max_x; (*cx)++)
			if (has_blocks_3x3(b, *cx, *cz))
				return 1;
	return 0;
}

/*
 * The arena reset of issue #15: the extract of box 0,40,0 - 47,90,47 (v3
 * and v2) pasted back changes none of the world's chunks. A world without
 * chunks (0..2, 0..2) gets the same box moved to its first 3 x 3 chunks.
 */
static int
check_arena_reset(base *b)
{
	const sl_header *h = &b->v.hdr;
	int64_t		lo[3],
				hi[3];
	int32_t		cx,
				cz;
	sl_err		err;

	if (!first_3x3(b, &cx, &cz))
	{
		printf("skip arena reset of %s: no 3 x 3 chunks with blocks\n", b->path);
		return 2;
	}
	lo[0] = (int64_t) cx * 16;
	lo[1] = 40;
	lo[2] = (int64_t) cz * 16;
	hi[0] = lo[0] + 47;
	hi[1] = 90;
	hi[2] = lo[2] + 47;
	for (int version = 3; version >= 2; version--)
	{
		long		n = paste_own_extract(b, lo, hi, version, &err);

		if (n != 0)
		{
			printf("FAIL arena reset of %s (v%d): %ld of %u chunks changed%s%s\n", b->path, version, n,
				   h->chunk_count, n < 0 ? ": " : "", n < 0 ? err.msg : "");
			return 0;
		}
	}
	printf("ok   arena reset of %s (%s): the extract of %lld,40,%lld - %lld,90,%lld pasted back "
		   "(v3, v2) changes 0 of %u chunks\n", b->path, b->what, (long long) lo[0], (long long) lo[2],
		   (long long) hi[0], (long long) hi[2], h->chunk_count);
	return 1;
}

/* Extract a box of the legacy base: the names are the block decoder's. */
static int
check_legacy_extract(base *b)
{
	int64_t		lo[3] = {(int64_t) b->v.hdr.min_x * 16 + 3, 0, (int64_t) b->v.hdr.min_z * 16 + 5};
	int64_t		hi[3] = {lo[0] + 40, 90, lo[2] + 40};
	sl_buf		out = {0};
	sl_schem	s;
	sl_err		err;
	long		d;
	int			ok;

	memset(&s, 0, sizeof(s));
	ok = sl_schem_extract(&b->v, (int32_t) lo[0], (int32_t) lo[1], (int32_t) lo[2], (int32_t) hi[0],
						  (int32_t) hi[1], (int32_t) hi[2], 3, NULL, &out, &err) == 0 &&
		sl_schem_read(out.data, out.len, NULL, &s, &err) == 0;
	if (!ok)
		printf("FAIL extract of %s: %s\n", b->path, err.msg);
	else if ((d = diff_schematic(&b->v, &s, lo, &err)) != 0)
	{
		printf("FAIL extract of %s: %ld blocks named otherwise than the decoder names them\n", b->path, d);
		ok = 0;
	}
	else
		printf("ok   extract of %s (%s): %llu blocks named as the decoder names them, %u block entities\n",
			   b->path, b->what, (unsigned long long) s.volume, s.nbe);
	sl_schem_free(&s);
	sl_buf_free(&out);
	return ok;
}

int
main(int argc, char **argv)
{
	char		dir[4096];
	const char *env = getenv("SLIME_CORPUS");

	corpus_root = argc > 1 ? argv[1] : env && *env ? env : "../shared/corpus";
	snprintf(dir, sizeof(dir), "%s/schematic", corpus_root);
	if (nftw(dir, collect, 16, FTW_PHYS) != 0 || nfiles == 0)
	{
		fprintf(stderr, "*** CORPUS MISSING: no schematics under %s (set SLIME_CORPUS) ***\n", dir);
		printf("0 passed, 1 failed\n");
		return 1;
	}
	qsort(files, (size_t) nfiles, sizeof(char *), cmp_str);
	for (int k = 0; k < NBASES; k++)
		load_base(&bases[k]);
	for (int k = 0; k < NBASES; k++)
		if (bases[k].legacy)
			check_legacy_extract(&bases[k]) ? passed++ : failed++;
		else
		{
			int			r = check_arena_reset(&bases[k]);

			r == 2 ? skipped++ : r ? passed++ : failed++;
		}
	for (int f = 0; f < nfiles; f++)
	{
		const char *rel = files[f] + strlen(corpus_root) + 1;
		size_t		len;
		uint8_t    *file = corpus_read_file(files[f], &len);
		sl_schem	s;
		sl_err		err;

		if (file == NULL)
			die("cannot read %s", files[f]);
		if (sl_schem_read(file, len, NULL, &s, &err))
		{
			/* a structure-block file is not a schematic: refused by name */
			if (strstr(rel, "structure") && err.code == SL_ERR_UNSUPPORTED && strstr(err.msg, "structure"))
			{
				printf("ok   %s: refused as expected (%s)\n", rel, err.msg);
				passed++;
			}
			else
			{
				printf("FAIL %s: %s\n", rel, err.msg);
				failed++;
			}
		}
		else
			for (int k = 0; k < NBASES; k++)
			{
				int			r = check_in_base(rel, &s, &bases[k], file, len);

				r == 2 ? skipped++ : r ? passed++ : failed++;
			}
		sl_schem_free(&s);
		free(file);
	}
	printf("schematics: %d passed, %d failed, %d skipped (no room in that world)\n", passed, failed, skipped);
	for (int k = 0; k < NBASES; k++)
	{
		sl_value_close(&bases[k].v);
		sl_buf_free(&bases[k].value);
	}
	for (int f = 0; f < nfiles; f++)
		free(files[f]);
	return failed ? 1 : 0;
}
