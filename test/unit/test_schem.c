/*
 * test_schem.c - unit tests of sl_schem: varints, packing at every width,
 * state strings, extract -> modify -> paste restores a box (1.18+,
 * 1.13-1.16 spanning and aligned chunks), the schematic readers (Sponge
 * v1/v2/v3, MCEdit) and their errors, each naming the field.
 */
#include "harness.h"
#include "nbt_build.h"
#include "sl_blocks.h"
#include "sl_build.h"
#include "sl_chunk.h"
#include "sl_codec.h"
#include "sl_schem.h"
#include "sl_value.h"

#include <stdint.h>

/* ---- NBT by hand ---- */

static unsigned sc_seed = 7;

static unsigned
sc_rand(void)
{
	sc_seed = sc_seed * 1103515245u + 12345u;
	return sc_seed >> 8;
}

/* Palette entry k of a generated section: air first, some with unsorted properties. */
static void
sc_palette_entry(sl_buf *b, uint32_t k, unsigned salt)
{
	char		s[48];

	if (k == 0)
	{
		nb_string(b, "Name", "minecraft:air");
		nb_end(b);
		return;
	}
	snprintf(s, sizeof(s), "minecraft:b%u", (k * 7 + salt) % 997);
	nb_string(b, "Name", s);
	if (k % 3 == 0)
	{
		nb_tag(b, SL_TAG_COMPOUND, "Properties");
		nb_string(b, "waterlogged", k % 2 ? "true" : "false");
		nb_string(b, "facing", "north");
		nb_end(b);
	}
	nb_end(b);
}

/* A section's packed indices for a palette of n (random contents). */
static uint32_t
sc_section_data(uint32_t n, int spanning, uint8_t *longs)
{
	uint32_t	idx[4096];
	int			bits = 4;

	while (((uint32_t) 1 << bits) < n)
		bits++;
	for (int i = 0; i < 4096; i++)
		idx[i] = (sc_rand() % 5 == 0) ? 0 : sc_rand() % n;
	sl_pack_indices(idx, 4096, bits, spanning, longs);
	return sl_packed_longs(4096, bits, spanning);
}

static const uint32_t sc_sizes[] = {1, 2, 5, 17, 40, 300, 3, 16};

/* Block entities of a generated chunk: a chest and a sign inside section range. */
static void
sc_block_entities(sl_buf *b, const char *list, int cx, int cz, int ybase)
{
	nb_list(b, list, SL_TAG_COMPOUND, 2);
	nb_string(b, "id", "minecraft:chest");
	nb_int(b, "x", cx * 16 + (int) (sc_rand() % 16));
	nb_int(b, "y", ybase + (int) (sc_rand() % 64));
	nb_int(b, "z", cz * 16 + (int) (sc_rand() % 16));
	nb_string(b, "CustomName", "box");
	nb_byte(b, "keepPacked", 0);
	nb_end(b);
	nb_string(b, "id", "minecraft:sign");
	nb_int(b, "x", cx * 16 + (int) (sc_rand() % 16));
	nb_int(b, "y", ybase + (int) (sc_rand() % 64));
	nb_int(b, "z", cz * 16 + (int) (sc_rand() % 16));
	nb_list(b, "Text", SL_TAG_STRING, 1);
	nb_str(b, "hello");
	nb_end(b);
}

/* A 1.18+ chunk: sections Y=-4..3, light, heightmaps, block entities, an unknown tag. */
static void
sc_modern_chunk(sl_buf *b, int cx, int cz, unsigned salt)
{
	uint8_t		longs[4096 * 2];
	uint8_t		light[2048];

	b->len = 0;
	nb_tag(b, SL_TAG_COMPOUND, "");
	nb_int(b, "DataVersion", 3700);
	nb_int(b, "xPos", cx);
	nb_int(b, "zPos", cz);
	nb_int(b, "yPos", -4);
	nb_string(b, "Status", "minecraft:full");
	nb_byte(b, "isLightOn", 1);
	nb_tag(b, SL_TAG_COMPOUND, "Heightmaps");
	memset(longs, 0x11, 37 * 8);
	nb_longs_be(b, "WORLD_SURFACE", longs, 37);
	nb_end(b);
	nb_list(b, "sections", SL_TAG_COMPOUND, 9);
	memset(light, 0xf0, sizeof(light));
	for (int y = -5; y <= 3; y++)
	{
		nb_byte(b, "Y", y);
		if (y == -5)
		{
			nb_bytes(b, "SkyLight", light, 2048);	/* a light-only section below */
			nb_end(b);
			continue;
		}
		{
			uint32_t	n = sc_sizes[(unsigned) (y + 4 + salt) % 8];

			nb_tag(b, SL_TAG_COMPOUND, "block_states");
			nb_list(b, "palette", SL_TAG_COMPOUND, n);
			for (uint32_t k = 0; k < n; k++)
				sc_palette_entry(b, k, salt);
			if (n > 1)
			{
				uint32_t	nl = sc_section_data(n, 0, longs);

				nb_longs_be(b, "data", longs, nl);
			}
			nb_end(b);
		}
		nb_tag(b, SL_TAG_COMPOUND, "biomes");
		nb_list(b, "palette", SL_TAG_STRING, 1);
		nb_str(b, "minecraft:plains");
		nb_end(b);
		nb_bytes(b, "BlockLight", light, 2048);
		nb_end(b);
	}
	sc_block_entities(b, "block_entities", cx, cz, -64);
	nb_string(b, "CustomTag", "kept as it is");
	nb_end(b);
}

/* A 1.13-1.17 chunk: Level.Sections Y=0..3 (4 and up omitted), DataVersion dv. */
static void
sc_flat_chunk(sl_buf *b, int cx, int cz, int dv, unsigned salt)
{
	uint8_t		longs[4096 * 2];
	int			spanning = dv < 2527;

	b->len = 0;
	nb_tag(b, SL_TAG_COMPOUND, "");
	nb_int(b, "DataVersion", dv);
	nb_tag(b, SL_TAG_COMPOUND, "Level");
	nb_int(b, "xPos", cx);
	nb_int(b, "zPos", cz);
	nb_string(b, "Status", "full");
	nb_byte(b, "isLightOn", 1);
	nb_list(b, "Sections", SL_TAG_COMPOUND, 4);
	for (int y = 0; y <= 3; y++)
	{
		uint32_t	n = sc_sizes[(unsigned) (y + salt) % 8];
		uint32_t	nl;

		nb_byte(b, "Y", y);
		nb_list(b, "Palette", SL_TAG_COMPOUND, n);
		for (uint32_t k = 0; k < n; k++)
			sc_palette_entry(b, k, salt);
		nl = sc_section_data(n < 2 ? 2 : n, spanning, longs);
		if (n == 1)
			memset(longs, 0, (size_t) nl * 8);
		nb_longs_be(b, "BlockStates", longs, nl);
		nb_end(b);
	}
	sc_block_entities(b, "TileEntities", cx, cz, 0);
	nb_end(b);
	nb_end(b);
}

/* A pre-1.13 chunk: one section of stone with granite. */
static void
sc_legacy_chunk(sl_buf *b, int cx, int cz)
{
	uint8_t		blocks[4096];
	uint8_t		data[2048];

	memset(blocks, 1, sizeof(blocks));
	memset(data, 0x10, sizeof(data));
	b->len = 0;
	nb_tag(b, SL_TAG_COMPOUND, "");
	nb_int(b, "DataVersion", 1343);
	nb_tag(b, SL_TAG_COMPOUND, "Level");
	nb_int(b, "xPos", cx);
	nb_int(b, "zPos", cz);
	nb_list(b, "Sections", SL_TAG_COMPOUND, 1);
	nb_byte(b, "Y", 0);
	nb_bytes(b, "Blocks", blocks, 4096);
	nb_bytes(b, "Data", data, 2048);
	nb_end(b);
	nb_end(b);
	nb_end(b);
}

/* Does hay hold needle? */
static const void *
sc_find(const void *hay, size_t n, const void *needle, size_t m)
{
	for (size_t i = 0; m <= n && i <= n - m; i++)
		if (memcmp((const char *) hay + i, needle, m) == 0)
			return (const char *) hay + i;
	return NULL;
}

/* ---- values ---- */

typedef struct sc_world
{
	int			n;
	int32_t		x[16],
				z[16];
	sl_buf		nbt[16];
} sc_world;

static void
sc_world_free(sc_world *w)
{
	for (int i = 0; i < w->n; i++)
		sl_buf_free(&w->nbt[i]);
	w->n = 0;
}

/* A 1.18+ world of 3 x 3 chunks, (-1,-1) to (1,1), each of its own salt. */
static void
sc_modern_world(sc_world *w)
{
	for (int i = 0; i < 9; i++)
	{
		w->x[i] = i % 3 - 1;
		w->z[i] = i / 3 - 1;
		sc_modern_chunk(&w->nbt[i], w->x[i], w->z[i], (unsigned) i);
	}
	w->n = 9;
}

/* A 1.13-1.17 world of 2 x 2 chunks, (0,0) to (1,1), of DataVersion dv. */
static void
sc_flat_world(sc_world *w, int dv)
{
	for (int i = 0; i < 4; i++)
	{
		w->x[i] = i % 2;
		w->z[i] = i / 2;
		sc_flat_chunk(&w->nbt[i], w->x[i], w->z[i], dv, (unsigned) i);
	}
	w->n = 4;
}

/* Encode a world into a value. */
static void
sc_encode(const sc_world *w, sl_buf *out)
{
	sl_chunk_src src[16];
	sl_err		err;

	memset(src, 0, sizeof(src));
	for (int i = 0; i < w->n; i++)
	{
		src[i].x = w->x[i];
		src[i].z = w->z[i];
		src[i].data_version = sl_data_version(w->nbt[i].data, w->nbt[i].len, NULL);
		src[i].comp[SL_COMP_REGION] = w->nbt[i].data;
		src[i].len[SL_COMP_REGION] = (uint32_t) w->nbt[i].len;
	}
	out->len = 0;
	CHECK_OK(sl_value_encode(src, (size_t) w->n, NULL, 0, NULL, NULL, out, &err), &err);
}

/* Extract a box of a value into out (gzip schematic). */
static int
sc_extract(const sl_buf *val, int x1, int y1, int z1, int x2, int y2, int z2, int version,
		   sl_buf *out, sl_err *err)
{
	sl_value	v;
	int			rc;

	if (sl_value_open_mem(&v, val->data, val->len, NULL, err))
		return -1;
	out->len = 0;
	rc = sl_schem_extract(&v, x1, y1, z1, x2, y2, z2, version, NULL, out, err);
	sl_value_close(&v);
	return rc;
}

/* Paste a read schematic into a value; the new value replaces val. */
static int
sc_paste_read(sl_buf *val, const sl_schem *s, int x, int y, int z, sl_err *err)
{
	sl_value	v;
	sl_builder	b;
	sl_buf		out = {0};
	int			rc = -1;

	memset(&b, 0, sizeof(b));
	if (sl_value_open_mem(&v, val->data, val->len, NULL, err) == 0)
	{
		if (sl_schem_paste(&v, s, x, y, z, NULL, &b, err) == 0 &&
			sl_builder_encode(&b, NULL, NULL, &out, err) == 0)
		{
			rc = 0;
			CHECK_OK(sl_value_verify(out.data, out.len, NULL, err), err);
			sl_buf_free(val);
			*val = out;
			out.data = NULL;
		}
		sl_value_close(&v);
	}
	sl_builder_free(&b);
	sl_buf_free(&out);
	return rc;
}

/* Paste a schematic file into a value; the new value replaces val. */
static int
sc_paste(sl_buf *val, const uint8_t *file, size_t len, int x, int y, int z, sl_err *err)
{
	sl_schem	s;
	int			rc = -1;

	if (sl_schem_read(file, len, NULL, &s, err) == 0)
		rc = sc_paste_read(val, &s, x, y, z, err);
	sl_schem_free(&s);
	return rc;
}

/* A chunk opened for block reads. */
typedef struct sc_open
{
	int			have;
	sl_arena	arena;
	sl_chunk_blocks cb;
	uint8_t    *nbt;
} sc_open;

static void
sc_open_chunk(sl_value *v, int cx, int cz, sc_open *o)
{
	int64_t		i = sl_value_find(v, cx, cz);
	sl_dirent	d;
	const uint8_t *comp[SL_NCOMP];
	sl_err		err;

	memset(o, 0, sizeof(*o));
	if (i < 0 || sl_value_chunk(v, (uint32_t) i, &d, comp, &err) || d.len[0] == 0)
		return;
	o->nbt = malloc(d.len[0]);
	memcpy(o->nbt, comp[0], d.len[0]);
	o->have = sl_chunk_blocks_open(o->nbt, d.len[0], d.data_version, SL_WANT_BLOCKS, NULL,
								   &o->arena, &o->cb, &err) == 0;
}

static void
sc_close_chunk(sc_open *o)
{
	sl_arena_free(&o->arena);
	free(o->nbt);
	memset(o, 0, sizeof(*o));
}

/* The block at a position of an open chunk ("minecraft:air" where no section holds it). */
static void
sc_block_in(sc_open *o, int x, int y, int z, sl_buf *out)
{
	sl_err		err;
	int			rc = 0;

	out->len = 0;
	if (o->have)
		rc = sl_chunk_block_at(&o->cb, x & 15, y, z & 15, out, &err);
	if (rc <= 0)
	{
		out->len = 0;
		sl_buf_put(out, "minecraft:air", 13, NULL);
	}
}

/* The block at a position of a value. */
static void
sc_block(sl_value *v, int x, int y, int z, sl_buf *out)
{
	sc_open		o;

	sc_open_chunk(v, x >> 4, z >> 4, &o);
	sc_block_in(&o, x, y, z, out);
	sc_close_chunk(&o);
}

/* Blocks of a box that differ between two values (each chunk opened once). */
static long
sc_diff_blocks(const sl_buf *a, const sl_buf *b, int x1, int y1, int z1, int x2, int y2, int z2)
{
	sl_value	va,
				vb;
	sl_buf		sa = {0},
				sb = {0};
	sl_err		err;
	long		diff = 0;

	if (sl_value_open_mem(&va, a->data, a->len, NULL, &err) ||
		sl_value_open_mem(&vb, b->data, b->len, NULL, &err))
		return -1;
	for (int cz = z1 >> 4; cz <= z2 >> 4; cz++)
		for (int cx = x1 >> 4; cx <= x2 >> 4; cx++)
		{
			sc_open		oa,
						ob;

			sc_open_chunk(&va, cx, cz, &oa);
			sc_open_chunk(&vb, cx, cz, &ob);
			for (int y = y1; y <= y2; y++)
				for (int z = (cz * 16 > z1 ? cz * 16 : z1); z <= (cz * 16 + 15 < z2 ? cz * 16 + 15 : z2); z++)
					for (int x = (cx * 16 > x1 ? cx * 16 : x1); x <= (cx * 16 + 15 < x2 ? cx * 16 + 15 : x2); x++)
					{
						sc_block_in(&oa, x, y, z, &sa);
						sc_block_in(&ob, x, y, z, &sb);
						if (sa.len != sb.len || memcmp(sa.data, sb.data, sa.len) != 0)
						{
							if (diff < 3 && getenv("SC_VERBOSE"))
								fprintf(stderr, "  block (%d,%d,%d): %.*s vs %.*s\n", x, y, z,
										(int) sa.len, sa.data, (int) sb.len, sb.data);
							diff++;
						}
					}
			sc_close_chunk(&oa);
			sc_close_chunk(&ob);
		}
	sl_buf_free(&sa);
	sl_buf_free(&sb);
	sl_value_close(&va);
	sl_value_close(&vb);
	return diff;
}

/* A block entity as comparable bytes: position, then its fields sorted by name. */
typedef struct sc_be
{
	char		key[2048];
	size_t		len;
} sc_be;

static int
sc_child_cmp(const void *a, const void *b)
{
	const sl_nbt *p = *(const sl_nbt *const *) a;
	const sl_nbt *q = *(const sl_nbt *const *) b;
	size_t		n = p->name_len < q->name_len ? p->name_len : q->name_len;
	int			c = memcmp(p->name, q->name, n);

	return c ? c : (int) p->name_len - (int) q->name_len;
}

static int
sc_be_cmp(const void *a, const void *b)
{
	const sc_be *p = a;
	const sc_be *q = b;
	size_t		n = p->len < q->len ? p->len : q->len;
	int			c = memcmp(p->key, q->key, n);

	return c ? c : (p->len > q->len) - (p->len < q->len);
}

/* Block entities of a value inside a box, as sorted keys; returns how many. */
static int
sc_bes(const sl_buf *val, int x1, int y1, int z1, int x2, int y2, int z2, sc_be *out, int max)
{
	sl_value	v;
	sl_err		err;
	int			n = 0;

	if (sl_value_open_mem(&v, val->data, val->len, NULL, &err))
		return -1;
	for (uint32_t i = 0; i < v.hdr.chunk_count; i++)
	{
		sl_dirent	d;
		const uint8_t *comp[SL_NCOMP];
		sl_arena	a = {0};
		sl_nbt	   *root;
		size_t		used;
		const sl_nbt *l;

		if (sl_value_chunk(&v, i, &d, comp, &err) || d.len[0] == 0 ||
			sl_nbt_parse(comp[0], d.len[0], NULL, &a, &root, &used, &err))
		{
			sl_arena_free(&a);
			continue;
		}
		l = sl_chunk_block_entities(root);
		for (uint32_t k = 0; l && k < l->v.list.count && n < max; k++)
		{
			sl_nbt	   *e = l->v.list.items[k];
			int64_t		x,
						y,
						z;
			sl_buf		w = {0};

			if (!sl_nbt_get_int(e, "x", &x) || !sl_nbt_get_int(e, "y", &y) || !sl_nbt_get_int(e, "z", &z) ||
				x < x1 || x > x2 || y < y1 || y > y2 || z < z1 || z > z2)
				continue;
			qsort(e->v.comp.items, e->v.comp.count, sizeof(sl_nbt *), sc_child_cmp);
			for (uint32_t j = 0; j < e->v.comp.count; j++)
				sl_nbt_write(e->v.comp.items[j], &w, NULL);
			out[n].len = w.len < sizeof(out[n].key) ? w.len : sizeof(out[n].key);
			memcpy(out[n].key, w.data, out[n].len);
			sl_buf_free(&w);
			n++;
		}
		sl_arena_free(&a);
	}
	sl_value_close(&v);
	qsort(out, (size_t) n, sizeof(sc_be), sc_be_cmp);
	return n;
}

/* Region NBT of chunk (x, z) of a value is the same bytes in both. */
static int
sc_same_chunk(const sl_buf *a, const sl_buf *b, int x, int z)
{
	sl_value	va,
				vb;
	sl_err		err;
	int			same = 0;
	int64_t		ia,
				ib;

	if (sl_value_open_mem(&va, a->data, a->len, NULL, &err) ||
		sl_value_open_mem(&vb, b->data, b->len, NULL, &err))
		return 0;
	ia = sl_value_find(&va, x, z);
	ib = sl_value_find(&vb, x, z);
	if (ia >= 0 && ib >= 0)
	{
		sl_dirent	da,
					db;
		const uint8_t *ca[SL_NCOMP],
				   *cb[SL_NCOMP];
		uint8_t    *copy;

		if (sl_value_chunk(&va, (uint32_t) ia, &da, ca, &err) == 0)
		{
			copy = malloc(da.len[0]);
			memcpy(copy, ca[0], da.len[0]);
			if (sl_value_chunk(&vb, (uint32_t) ib, &db, cb, &err) == 0)
				same = da.len[0] == db.len[0] && memcmp(copy, cb[0], da.len[0]) == 0;
			free(copy);
		}
	}
	sl_value_close(&va);
	sl_value_close(&vb);
	return same;
}

/* ---- tests ---- */

void
test_schem_varint(void)
{
	static const uint32_t vals[] = {0, 1, 127, 128, 300, 16383, 16384, 2097151, 2097152,
	268435455, 268435456, 2147483647u};
	static const size_t lens[] = {1, 1, 1, 2, 2, 2, 3, 3, 4, 4, 5, 5};
	uint8_t		buf[16];
	size_t		pos;
	uint32_t	v;

	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
	{
		size_t		n = sl_varint_put(buf, vals[i]);

		CHECK(n == lens[i]);
		pos = 0;
		CHECK(sl_varint_get(buf, n, &pos, &v) == 0 && v == vals[i] && pos == n);
		pos = 0;
		CHECK(n == 1 || sl_varint_get(buf, n - 1, &pos, &v) != 0);	/* truncated */
	}
	/* the largest 5-byte value, past 2^31, six bytes, empty input */
	memcpy(buf, "\xff\xff\xff\xff\x07", 5);
	pos = 0;
	CHECK(sl_varint_get(buf, 5, &pos, &v) == 0 && v == 2147483647u);
	memcpy(buf, "\xff\xff\xff\xff\x0f", 5);
	pos = 0;
	CHECK(sl_varint_get(buf, 5, &pos, &v) != 0);
	memcpy(buf, "\x80\x80\x80\x80\x80\x00", 6);
	pos = 0;
	CHECK(sl_varint_get(buf, 6, &pos, &v) != 0);
	pos = 0;
	CHECK(sl_varint_get(buf, 0, &pos, &v) != 0);
	/* non-minimal encodings are read (Minecraft's reader does too) */
	memcpy(buf, "\x81\x00", 2);
	pos = 0;
	CHECK(sl_varint_get(buf, 2, &pos, &v) == 0 && v == 1 && pos == 2);
}

/* Pack one bit at a time (independent of the module). */
static void
sc_pack_ref(const uint32_t *idx, uint32_t n, int bits, int spanning, uint64_t *out, uint32_t nl)
{
	uint32_t	per = 64 / bits;

	memset(out, 0, (size_t) nl * sizeof(uint64_t));
	for (uint32_t i = 0; i < n; i++)
		for (int j = 0; j < bits; j++)
		{
			uint64_t	pos = spanning ? (uint64_t) i * bits + j :
				(uint64_t) (i / per) * 64 + (i % per) * bits + j;

			if ((idx[i] >> j) & 1)
				out[pos / 64] |= (uint64_t) 1 << (pos % 64);
		}
}

void
test_schem_packing(void)
{
	static uint32_t idx[4096],
				back[4096];
	static uint64_t ref[4096];
	static uint8_t packed[4096 * 8];
	static const uint32_t counts[] = {4096, 64, 1000, 1, 4095};

	for (int bits = 1; bits <= 16; bits++)
		for (int spanning = 0; spanning <= 1; spanning++)
			for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
			{
				uint32_t	n = counts[c];
				uint32_t	nl = sl_packed_longs(n, bits, spanning);
				int			ok = 1;

				CHECK(nl == (spanning ? (uint32_t) (((uint64_t) n * bits + 63) / 64) :
							 (n + 64 / bits - 1) / (64 / bits)));
				for (uint32_t i = 0; i < n; i++)
					idx[i] = i % 7 == 0 ? ((uint32_t) 1 << bits) - 1 : sc_rand() & (((uint32_t) 1 << bits) - 1);
				sl_pack_indices(idx, n, bits, spanning, packed);
				sc_pack_ref(idx, n, bits, spanning, ref, nl);
				for (uint32_t l = 0; l < nl; l++)
					ok &= sl_get_u64be(packed + 8 * l) == ref[l];
				sl_unpack_indices(packed, n, bits, spanning, back);
				for (uint32_t i = 0; i < n; i++)
					ok &= back[i] == idx[i];
				if (!ok)
					fprintf(stderr, "  packing %d bits %s %u entries\n", bits,
							spanning ? "spanning" : "aligned", n);
				CHECK(ok);
			}
	/* the Minecraft figures: 4 bits 256 longs, 5 bits 342 aligned / 320 spanning */
	CHECK(sl_packed_longs(4096, 4, 0) == 256 && sl_packed_longs(4096, 5, 0) == 342 &&
		  sl_packed_longs(4096, 5, 1) == 320 && sl_packed_longs(4096, 9, 0) == 586);
}

void
test_schem_states(void)
{
	static const char *const good[][2] = {
		{"stone", "minecraft:stone"},
		{"minecraft:stone", "minecraft:stone"},
		{"mod:thing[z=1,a=2]", "mod:thing[a=2,z=1]"},
		{"minecraft:oak_log[axis=x]", "minecraft:oak_log[axis=x]"},
		{"a[k=1,k=2]", "minecraft:a[k=2]"},
		{"a[]", "minecraft:a"},
		{"a[k=]", "minecraft:a[k=]"},
	};
	static const char *const bad[] = {"", "[a=b]", "a[b=c", "a[b]", "a[=c]", "a[b=c,]",
	"a]", "a[b=[c]]", "a=b"};
	sl_buf		out = {0};
	sl_err		err;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
	{
		out.len = 0;
		CHECK_OK(sl_state_canonical(good[i][0], strlen(good[i][0]), &out, &err), &err);
		CHECK(out.len == strlen(good[i][1]) && memcmp(out.data, good[i][1], out.len) == 0);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
	{
		out.len = 0;
		CHECK(sl_state_canonical(bad[i], strlen(bad[i]), &out, &err) != 0 && err.code == SL_ERR_FORMAT);
	}
	sl_buf_free(&out);
}

/* A schematic of one block state everywhere plus one block entity, as plain NBT. */
static void
sc_fill_schematic(sl_buf *b, int version, int w, int h, int l, const char *state)
{
	uint8_t    *data = malloc((size_t) w * h * l);

	memset(data, 0, (size_t) w * h * l);
	b->len = 0;
	nb_tag(b, SL_TAG_COMPOUND, version == 3 ? "" : "Schematic");
	if (version == 3)
		nb_tag(b, SL_TAG_COMPOUND, "Schematic");
	nb_int(b, "Version", version);
	nb_int(b, "DataVersion", 3700);
	nb_short(b, "Width", w);
	nb_short(b, "Height", h);
	nb_short(b, "Length", l);
	if (version == 3)
		nb_tag(b, SL_TAG_COMPOUND, "Blocks");
	nb_tag(b, SL_TAG_COMPOUND, "Palette");
	nb_int(b, state, 0);
	nb_end(b);
	nb_bytes(b, version == 3 ? "Data" : "BlockData", data, (uint32_t) w * h * l);
	nb_list(b, version == 1 ? "TileEntities" : "BlockEntities", SL_TAG_COMPOUND, 1);
	nb_ints3(b, "Pos", 0, 0, 0);
	nb_string(b, "Id", "minecraft:barrel");
	if (version == 3)
	{
		nb_tag(b, SL_TAG_COMPOUND, "Data");
		nb_string(b, "CustomName", "filled");
		nb_end(b);
	}
	else
	{
		nb_string(b, "CustomName", "filled");
		if (version == 1)
			nb_int(b, "ContentVersion", 1);
	}
	nb_end(b);
	if (version == 3)
		nb_end(b);
	nb_end(b);
	if (version == 3)
		nb_end(b);
	free(data);
}

/* extract -> modify -> paste back restores blocks and block entities of the box. */
static void
sc_restore_case(const char *what, sc_world *w, int x1, int y1, int z1, int x2, int y2, int z2,
				int version)
{
	sl_buf		orig = {0},
				val = {0},
				snap = {0},
				fill = {0};
	static sc_be be_a[64],
				be_b[64];
	int			na,
				nb;
	sl_err		err;

	int			lx = x1 < x2 ? x1 : x2,
				ly = y1 < y2 ? y1 : y2,
				lz = z1 < z2 ? z1 : z2;
	int			hx = x1 < x2 ? x2 : x1,
				hy = y1 < y2 ? y2 : y1,
				hz = z1 < z2 ? z2 : z1;

	sc_encode(w, &orig);
	sc_encode(w, &val);
	CHECK_OK(sc_extract(&orig, x1, y1, z1, x2, y2, z2, version, &snap, &err), &err);
	/* modify: fill most of the snapshot's box with stone and a barrel */
	/* (below y = 64: the generated chunks hold sections up to Y=3) */
	sc_fill_schematic(&fill, version, hx - lx - 2, (hy < 63 ? hy : 63) - ly - 1, hz - lz, "minecraft:stone");
	CHECK_OK(sc_paste(&val, fill.data, fill.len, lx + 3, ly + 2, lz + 1, &err), &err);
	CHECK(sc_diff_blocks(&orig, &val, lx, ly, lz, hx, hy, hz) > 0);
	/* restore */
	CHECK_OK(sc_paste(&val, snap.data, snap.len, lx, ly, lz, &err), &err);
	{
		long		d = sc_diff_blocks(&orig, &val, lx, ly, lz, hx, hy, hz);

		if (d != 0)
			fprintf(stderr, "  %s: %ld blocks differ after restore\n", what, d);
		CHECK(d == 0);
	}
	/* every block entity of the world is back (the filler's barrel is gone again) */
	na = sc_bes(&orig, -1000, -1000, -1000, 1000, 1000, 1000, be_a, 64);
	nb = sc_bes(&val, -1000, -1000, -1000, 1000, 1000, 1000, be_b, 64);
	CHECK(na == nb && na > 0);
	for (int i = 0; i < na && i < nb; i++)
		CHECK(be_a[i].len == be_b[i].len && memcmp(be_a[i].key, be_b[i].key, be_a[i].len) == 0);
	/* chunks outside both boxes are the same bytes */
	for (int i = 0; i < w->n; i++)
	{
		int			cx = w->x[i],
					cz = w->z[i];
		int			touched = cx * 16 + 15 >= lx && cx * 16 <= hx && cz * 16 + 15 >= lz && cz * 16 <= hz;

		if (!touched)
			CHECK(sc_same_chunk(&orig, &val, cx, cz));
	}
	sl_buf_free(&orig);
	sl_buf_free(&val);
	sl_buf_free(&snap);
	sl_buf_free(&fill);
}

void
test_schem_restore_modern(void)
{
	sc_world	w = {0};

	sc_modern_world(&w);
	/* unaligned box across four chunks and two sections, and whole chunks */
	sc_restore_case("modern v3", &w, -5, -30, -9, 12, 4, 6, 3);
	sc_restore_case("modern v2", &w, 12, 40, 6, -5, -30, -9, 2);
	sc_restore_case("modern aligned", &w, -16, -64, -16, 15, 63, -1, 3);
	/* a box reaching above the chunk's sections: air there */
	sc_restore_case("modern tall", &w, 0, 40, 0, 3, 80, 3, 3);
	sc_world_free(&w);
}

void
test_schem_restore_flat(void)
{
	static const int dvs[] = {1631, 2230, 2586, 2730};

	for (size_t k = 0; k < sizeof(dvs) / sizeof(dvs[0]); k++)
	{
		sc_world	w = {0};
		char		what[32];

		sc_flat_world(&w, dvs[k]);
		snprintf(what, sizeof(what), "flat %d", dvs[k]);
		sc_restore_case(what, &w, 3, 5, 2, 27, 40, 30, 3);
		/* sections 4 and up are omitted: the filler creates them, the restore empties them */
		sc_restore_case(what, &w, 3, 60, 2, 27, 75, 30, 2);
		sc_world_free(&w);
	}
}

/* Packing as the DataVersion wants, light and heightmaps, unknown tags kept. */
void
test_schem_paste_chunk_format(void)
{
	sc_world	w = {0};
	sl_buf		val = {0},
				fill = {0};
	sl_value	v;
	sl_err		err;

	sc_modern_chunk(&w.nbt[0], 0, 0, 0);
	sc_flat_chunk(&w.nbt[1], 1, 0, 2230, 1);
	sc_flat_chunk(&w.nbt[2], 2, 0, 2586, 2);
	w.x[0] = 0;
	w.x[1] = 1;
	w.x[2] = 2;
	w.n = 3;
	sc_encode(&w, &val);
	/* a whole section of one state: a one-entry palette (no data in 1.18+) */
	sc_fill_schematic(&fill, 3, 48, 16, 16, "minecraft:stone");
	CHECK_OK(sc_paste(&val, fill.data, fill.len, 0, 0, 0, &err), &err);
	CHECK_OK(sl_value_open_mem(&v, val.data, val.len, NULL, &err), &err);
	for (int cx = 0; cx < 3; cx++)
	{
		sl_dirent	d;
		const uint8_t *comp[SL_NCOMP];
		sl_arena	a = {0};
		sl_nbt	   *root;
		size_t		used;
		sl_chunk_blocks cb;
		const sl_nbt *body;
		int64_t		light = -1;

		CHECK_OK(sl_value_chunk(&v, (uint32_t) sl_value_find(&v, cx, 0), &d, comp, &err), &err);
		CHECK_OK(sl_nbt_parse(comp[0], d.len[0], NULL, &a, &root, &used, &err), &err);
		CHECK_OK(sl_chunk_blocks_from_tree(root, SL_NO_DV, SL_WANT_BLOCKS, &a, &cb, &err), &err);
		body = sl_chunk_body(root);
		CHECK(sl_nbt_get_int(body, "isLightOn", &light) && light == 0);
		CHECK(sl_nbt_child(body, "Heightmaps") == NULL);
		for (int i = 0; i < cb.nsections; i++)
			if (cb.sections[i].y == 0)
			{
				const sl_section *s = &cb.sections[i];

				CHECK(s->npalette == 1);
				if (cx == 0)
					CHECK(s->states == NULL);	/* 1.18+: data dropped */
				else
					CHECK(s->states != NULL && s->bits == 4 && s->nstates == 256);
			}
			else if (cb.sections[i].y == 1 && cx > 0)
			{
				/* untouched section keeps its packing: 2230 spanning, 2586 aligned */
				CHECK(cb.sections[i].spanning == (cx == 1));
			}
		if (cx == 0)
		{
			uint16_t	n;
			const char *s = sl_nbt_get_string(root, "CustomTag", &n);

			CHECK(s != NULL && n == 13 && memcmp(s, "kept as it is", 13) == 0);
		}
		sl_arena_free(&a);
	}
	sl_value_close(&v);
	/* a palette needing 5 bits: spanning for 2230, aligned for 2586 and 1.18+ */
	{
		sl_buf		sch = {0};
		uint8_t		data[48 * 16];

		nb_tag(&sch, SL_TAG_COMPOUND, "Schematic");
		nb_int(&sch, "Version", 2);
		nb_short(&sch, "Width", 48);
		nb_short(&sch, "Height", 1);
		nb_short(&sch, "Length", 16);
		nb_tag(&sch, SL_TAG_COMPOUND, "Palette");
		for (int k = 0; k < 20; k++)
		{
			char		name[32];

			snprintf(name, sizeof(name), "minecraft:p%d", k);
			nb_int(&sch, name, k);
		}
		nb_end(&sch);
		for (int i = 0; i < 48 * 16; i++)
			data[i] = (uint8_t) (i % 20);
		nb_bytes(&sch, "BlockData", data, sizeof(data));
		nb_end(&sch);
		CHECK_OK(sc_paste(&val, sch.data, sch.len, 0, 5, 0, &err), &err);
		CHECK_OK(sl_value_open_mem(&v, val.data, val.len, NULL, &err), &err);
		for (int cx = 0; cx < 3; cx++)
		{
			sl_dirent	d;
			const uint8_t *comp[SL_NCOMP];
			sl_arena	a = {0};
			sl_chunk_blocks cb;
			sl_buf		out = {0};

			CHECK_OK(sl_value_chunk(&v, (uint32_t) sl_value_find(&v, cx, 0), &d, comp, &err), &err);
			CHECK_OK(sl_chunk_blocks_open(comp[0], d.len[0], d.data_version, SL_WANT_BLOCKS, NULL, &a, &cb, &err), &err);
			for (int i = 0; i < cb.nsections; i++)
				if (cb.sections[i].y == 0)
				{
					CHECK(cb.sections[i].npalette == 21 && cb.sections[i].bits == 5);
					CHECK(cb.sections[i].spanning == (cx == 1));
					CHECK(cb.sections[i].nstates == (cx == 1 ? 320u : 342u));
				}
			CHECK(sl_chunk_block_at(&cb, 3, 5, 2, &out, &err) == 1);
			CHECK(out.len >= 12 && memcmp(out.data, "minecraft:p", 11) == 0);
			sl_buf_free(&out);
			sl_arena_free(&a);
		}
		sl_value_close(&v);
		sl_buf_free(&sch);
	}
	sl_buf_free(&val);
	sl_buf_free(&fill);
	sc_world_free(&w);
}

/* A chunk of a value parsed into a tree (its bytes copied). */
typedef struct sc_tree
{
	sl_arena	arena;
	uint8_t    *nbt;
	sl_nbt	   *root;
	const sl_nbt *body;
} sc_tree;

/* Parse chunk (cx, cz) of a value; root NULL when it is missing. */
static void
sc_tree_open(const sl_buf *val, int cx, int cz, sc_tree *t)
{
	sl_value	v;
	sl_dirent	d;
	const uint8_t *comp[SL_NCOMP];
	size_t		used;
	sl_err		err;
	int64_t		i;

	memset(t, 0, sizeof(*t));
	CHECK_OK(sl_value_open_mem(&v, val->data, val->len, NULL, &err), &err);
	i = sl_value_find(&v, cx, cz);
	if (i >= 0 && sl_value_chunk(&v, (uint32_t) i, &d, comp, &err) == 0 && d.len[0] > 0)
	{
		t->nbt = malloc(d.len[0]);
		memcpy(t->nbt, comp[0], d.len[0]);
		CHECK_OK(sl_nbt_parse(t->nbt, d.len[0], NULL, &t->arena, &t->root, &used, &err), &err);
		t->body = sl_chunk_body(t->root);
	}
	sl_value_close(&v);
}

/* Free a parsed chunk. */
static void
sc_tree_close(sc_tree *t)
{
	sl_arena_free(&t->arena);
	free(t->nbt);
	memset(t, 0, sizeof(*t));
}

/* Are two tags (or both NULL) the same bytes? */
static int
sc_same_tag(const sl_nbt *a, const sl_nbt *b)
{
	sl_buf		x = {0},
				y = {0};
	int			same;

	if (a == NULL || b == NULL)
		return a == b;
	sl_nbt_write(a, &x, NULL);
	sl_nbt_write(b, &y, NULL);
	same = x.len == y.len && memcmp(x.data, y.data, x.len) == 0;
	sl_buf_free(&x);
	sl_buf_free(&y);
	return same;
}

/* The item of a chunk's section list with Y = y, or NULL. */
static const sl_nbt *
sc_section(const sc_tree *t, int y)
{
	const sl_nbt *l = sl_nbt_child(t->root, "sections");
	int64_t		v;

	if (l == NULL)
		l = sl_nbt_child(t->body, "Sections");
	for (uint32_t i = 0; l && i < l->v.list.count; i++)
		if (sl_nbt_get_int(l->v.list.items[i], "Y", &v) && v == y)
			return l->v.list.items[i];
	return NULL;
}

/* How many chunks of two values (same chunk set) differ in their bytes. */
static int
sc_changed_chunks(const sl_buf *a, const sl_buf *b, const sc_world *w)
{
	int			n = 0;

	for (int i = 0; i < w->n; i++)
		n += !sc_same_chunk(a, b, w->x[i], w->z[i]);
	return n;
}

/* Paste the extract of a box back where it came from: every chunk keeps its bytes. */
static void
sc_idempotent_case(const char *what, const sc_world *w, int x1, int y1, int z1, int x2, int y2,
				   int z2, int version)
{
	sl_buf		orig = {0},
				val = {0},
				snap = {0};
	sl_err		err;
	int			n;

	sc_encode(w, &orig);
	sc_encode(w, &val);
	CHECK_OK(sc_extract(&orig, x1, y1, z1, x2, y2, z2, version, &snap, &err), &err);
	CHECK_OK(sc_paste(&val, snap.data, snap.len, x1 < x2 ? x1 : x2, y1 < y2 ? y1 : y2,
					  z1 < z2 ? z1 : z2, &err), &err);
	n = sc_changed_chunks(&orig, &val, w);
	if (n != 0)
		fprintf(stderr, "  %s: the paste of its own extract changed %d chunks\n", what, n);
	CHECK(n == 0);
	sl_buf_free(&orig);
	sl_buf_free(&val);
	sl_buf_free(&snap);
}

/* A schematic of one block (Sponge v2, no block entity), as plain NBT. */
static void
sc_one_block(sl_buf *b, const char *state)
{
	uint8_t		zero = 0;

	b->len = 0;
	nb_tag(b, SL_TAG_COMPOUND, "Schematic");
	nb_int(b, "Version", 2);
	nb_short(b, "Width", 1);
	nb_short(b, "Height", 1);
	nb_short(b, "Length", 1);
	nb_tag(b, SL_TAG_COMPOUND, "Palette");
	nb_int(b, state, 0);
	nb_end(b);
	nb_bytes(b, "BlockData", &zero, 1);
	nb_end(b);
}

/* The extract of a box pasted back changes nothing, in 1.18+ and 1.13-1.17 chunks. */
void
test_schem_paste_idempotent(void)
{
	static const int dvs[] = {1631, 2230, 2730};
	sc_world	w = {0};

	sc_modern_world(&w);
	sc_idempotent_case("modern unaligned v3", &w, -5, -30, -9, 12, 4, 6, 3);
	sc_idempotent_case("modern unaligned v2", &w, 12, 40, 6, -5, -30, -9, 2);
	sc_idempotent_case("modern whole chunks", &w, -16, -64, -16, 31, 63, 31, 3);
	sc_idempotent_case("modern tall", &w, 0, 40, 0, 3, 80, 3, 3);
	sc_idempotent_case("modern one block", &w, 7, 7, 7, 7, 7, 7, 3);
	sc_world_free(&w);
	for (size_t k = 0; k < sizeof(dvs) / sizeof(dvs[0]); k++)
	{
		char		what[32];

		sc_flat_world(&w, dvs[k]);
		snprintf(what, sizeof(what), "flat %d", dvs[k]);
		sc_idempotent_case(what, &w, 3, 5, 2, 27, 40, 30, 3);
		/* sections 4 and up are omitted: air pastes back over them without creating them */
		sc_idempotent_case(what, &w, 0, 0, 0, 31, 90, 31, 2);
		sc_world_free(&w);
	}
}

/*
 * One block changed: only its chunk changes, and in it only its section
 * (light arrays dropped), isLightOn (0) and Heightmaps (removed).
 */
void
test_schem_paste_one_block(void)
{
	sc_world	w = {0};
	sl_buf		orig = {0},
				val = {0},
				one = {0},
				name = {0};
	sc_tree		a,
				b;
	sl_value	v;
	sl_err		err;
	int64_t		light = -1;

	sc_modern_world(&w);
	sc_encode(&w, &orig);
	sc_encode(&w, &val);
	sc_one_block(&one, "minecraft:gold_block");
	CHECK_OK(sc_paste(&val, one.data, one.len, 5, 20, 7, &err), &err);
	for (int i = 0; i < w.n; i++)
		CHECK(sc_same_chunk(&orig, &val, w.x[i], w.z[i]) == (w.x[i] != 0 || w.z[i] != 0));
	CHECK_OK(sl_value_open_mem(&v, val.data, val.len, NULL, &err), &err);
	sc_block(&v, 5, 20, 7, &name);
	CHECK(name.len == 20 && memcmp(name.data, "minecraft:gold_block", 20) == 0);
	sl_value_close(&v);
	sc_tree_open(&orig, 0, 0, &a);
	sc_tree_open(&val, 0, 0, &b);
	CHECK(a.root != NULL && b.root != NULL);
	/* every section but Y=1 is the same bytes; Y=1 has new blocks and no light */
	for (int y = -5; y <= 3; y++)
		CHECK(sc_same_tag(sc_section(&a, y), sc_section(&b, y)) == (y != 1));
	CHECK(sl_nbt_child(sc_section(&a, 1), "BlockLight") != NULL);
	CHECK(sl_nbt_child(sc_section(&b, 1), "BlockLight") == NULL);
	CHECK(sc_same_tag(sl_nbt_child(sc_section(&a, 1), "biomes"), sl_nbt_child(sc_section(&b, 1), "biomes")));
	/* the chunk's other tags are the same bytes; light and heightmaps are reset */
	for (uint32_t i = 0; i < a.root->v.comp.count; i++)
	{
		const sl_nbt *t = a.root->v.comp.items[i];
		char		nm[64];

		snprintf(nm, sizeof(nm), "%.*s", (int) t->name_len, t->name);
		if (strcmp(nm, "sections") != 0 && strcmp(nm, "isLightOn") != 0 && strcmp(nm, "Heightmaps") != 0)
			CHECK(sc_same_tag(t, sl_nbt_child(b.root, nm)));
	}
	CHECK(sl_nbt_get_int(b.root, "isLightOn", &light) && light == 0);
	CHECK(sl_nbt_child(a.root, "Heightmaps") != NULL && sl_nbt_child(b.root, "Heightmaps") == NULL);
	sc_tree_close(&a);
	sc_tree_close(&b);
	/* the same block again: nothing more changes */
	sl_buf_free(&orig);
	orig = val;
	memset(&val, 0, sizeof(val));
	sl_buf_put(&val, orig.data, orig.len, NULL);
	CHECK_OK(sc_paste(&val, one.data, one.len, 5, 20, 7, &err), &err);
	CHECK(sc_changed_chunks(&orig, &val, &w) == 0);
	sl_buf_free(&orig);
	sl_buf_free(&val);
	sl_buf_free(&one);
	sl_buf_free(&name);
	sc_world_free(&w);
}

/* A block entity changed over the same blocks: only the list changes, light and heightmaps stay. */
void
test_schem_paste_block_entity_only(void)
{
	sc_world	w = {0};
	sl_buf		orig = {0},
				val = {0},
				snap = {0};
	sl_schem	s;
	sc_tree		a,
				b;
	sl_err		err;
	int64_t		light = -1;

	sc_modern_chunk(&w.nbt[0], 0, 0, 0);
	w.n = 1;
	sc_encode(&w, &orig);
	sc_encode(&w, &val);
	/* the whole chunk holds its chest and its sign */
	CHECK_OK(sc_extract(&orig, 0, -64, 0, 15, 63, 15, 3, &snap, &err), &err);
	CHECK_OK(sl_schem_read(snap.data, snap.len, NULL, &s, &err), &err);
	CHECK(s.nbe == 2);
	s.be[0].id = "minecraft:trapped_chest";
	s.be[0].id_len = 23;
	CHECK_OK(sc_paste_read(&val, &s, 0, -64, 0, &err), &err);
	sl_schem_free(&s);
	CHECK(!sc_same_chunk(&orig, &val, 0, 0));
	sc_tree_open(&orig, 0, 0, &a);
	sc_tree_open(&val, 0, 0, &b);
	CHECK(a.root != NULL && b.root != NULL);
	for (uint32_t i = 0; a.root && i < a.root->v.comp.count; i++)
	{
		const sl_nbt *t = a.root->v.comp.items[i];
		char		nm[64];

		snprintf(nm, sizeof(nm), "%.*s", (int) t->name_len, t->name);
		CHECK(sc_same_tag(t, sl_nbt_child(b.root, nm)) == (strcmp(nm, "block_entities") != 0));
	}
	CHECK(sl_nbt_get_int(b.root, "isLightOn", &light) && light == 1);
	sc_tree_close(&a);
	sc_tree_close(&b);
	sl_buf_free(&orig);
	sl_buf_free(&val);
	sl_buf_free(&snap);
	sc_world_free(&w);
}

/* Missing chunks, pre-1.13 chunks, blocks outside the sections. */
void
test_schem_paste_refusals(void)
{
	sc_world	w = {0};
	sl_buf		val = {0},
				fill = {0},
				air = {0},
				snap = {0};
	sl_err		err;

	sc_modern_chunk(&w.nbt[0], 0, 0, 0);
	sc_legacy_chunk(&w.nbt[1], 5, 5);
	w.x[0] = 0;
	w.z[0] = 0;
	w.x[1] = 5;
	w.z[1] = 5;
	w.n = 2;
	sc_encode(&w, &val);
	sc_fill_schematic(&fill, 2, 20, 4, 4, "minecraft:stone");
	/* reaches chunk (1,0), which the world lacks */
	CHECK(sc_paste(&val, fill.data, fill.len, 0, 0, 0, &err) != 0);
	CHECK(err.code == SL_ERR_INVALID && strstr(err.msg, "chunk (1,0)") != NULL);
	/* air over a missing chunk is fine (the barrel lands in chunk (0,0)) ... */
	sc_fill_schematic(&air, 3, 20, 4, 4, "minecraft:air");
	CHECK_OK(sc_paste(&val, air.data, air.len, 0, 0, 0, &err), &err);
	/* ... but not a block entity: here the barrel lands in the missing chunk (-1,0) */
	CHECK(sc_paste(&val, air.data, air.len, -4, 0, 0, &err) != 0);
	CHECK(err.code == SL_ERR_INVALID && strstr(err.msg, "chunk (-1,0)") != NULL);
	/* pre-1.13 chunk: refused by name */
	sc_fill_schematic(&fill, 2, 4, 4, 4, "minecraft:stone");
	CHECK(sc_paste(&val, fill.data, fill.len, 80, 0, 80, &err) != 0);
	CHECK(err.code == SL_ERR_UNSUPPORTED && strstr(err.msg, "chunk (5,5)") != NULL &&
		  strstr(err.msg, "pre-1.13") != NULL);
	/* ... but extracted, with flattened names */
	CHECK_OK(sc_extract(&val, 80, 0, 80, 81, 0, 80, 3, &snap, &err), &err);
	{
		sl_schem	s;
		uint32_t	run[2];

		CHECK_OK(sl_schem_read(snap.data, snap.len, NULL, &s, &err), &err);
		CHECK(s.kind == SL_SCHEM_SPONGE && s.version == 3 && s.width == 2 && s.data_version == 1519);
		CHECK_OK(sl_schem_run(&s, 0, 2, run, &err), &err);
		CHECK(s.palette[run[0]].canon_len == 15 && memcmp(s.palette[run[0]].canon, "minecraft:stone", 15) == 0);
		CHECK(s.palette[run[1]].canon_len == 17 && memcmp(s.palette[run[1]].canon, "minecraft:granite", 17) == 0);
		sl_schem_free(&s);
	}
	/* blocks above the chunk's sections (Y 3 is the top one) */
	{
		sl_buf		tall = {0};

		sc_fill_schematic(&tall, 3, 4, 4, 4, "minecraft:stone");
		CHECK(sc_paste(&val, tall.data, tall.len, 0, 64, 0, &err) != 0);
		CHECK(err.code == SL_ERR_INVALID && strstr(err.msg, "section Y=4") != NULL &&
			  strstr(err.msg, "chunk (0,0)") != NULL);
		sl_buf_free(&tall);
	}
	sl_buf_free(&val);
	sl_buf_free(&fill);
	sl_buf_free(&air);
	sl_buf_free(&snap);
	sc_world_free(&w);
}

/* An MCEdit schematic: legacy ids through the table, AddBlocks nibbles, old ids of block entities. */
void
test_schem_mcedit(void)
{
	sc_world	w = {0};
	sl_buf		val = {0},
				sch = {0},
				name = {0};
	uint8_t		blocks[8] = {1, 1, 17, 0, 1, 54, 35, 0};
	uint8_t		data[8] = {0, 1, 4, 0, 15, 2, 14, 0};
	uint8_t		add[4] = {0, 0, 0, 0x10};	/* block 7: id 0 + (1 << 8) = 256, unknown */
	sl_value	v;
	sl_err		err;
	static const char *const want[8] = {
		"minecraft:stone", "minecraft:granite", "minecraft:oak_log[axis=x]", "minecraft:air",
		"minecraft:stone", "minecraft:chest[facing=north,type=single]",
		"minecraft:red_wool", "minecraft:air"
	};

	sc_modern_chunk(&w.nbt[0], 0, 0, 3);
	w.n = 1;
	sc_encode(&w, &val);
	nb_tag(&sch, SL_TAG_COMPOUND, "Schematic");
	nb_short(&sch, "Width", 2);
	nb_short(&sch, "Height", 2);
	nb_short(&sch, "Length", 2);
	nb_string(&sch, "Materials", "Alpha");
	nb_bytes(&sch, "Blocks", blocks, 8);
	nb_bytes(&sch, "Data", data, 8);
	nb_bytes(&sch, "AddBlocks", add, 4);
	nb_list(&sch, "TileEntities", SL_TAG_COMPOUND, 1);
	nb_string(&sch, "id", "Chest");
	nb_int(&sch, "x", 1);
	nb_int(&sch, "y", 0);
	nb_int(&sch, "z", 1);
	nb_list(&sch, "Items", SL_TAG_END, 0);
	nb_end(&sch);
	nb_end(&sch);
	CHECK_OK(sc_paste(&val, sch.data, sch.len, 4, 10, 4, &err), &err);
	CHECK_OK(sl_value_open_mem(&v, val.data, val.len, NULL, &err), &err);
	for (int i = 0; i < 8; i++)
	{
		int			x = i & 1,
					z = (i >> 1) & 1,
					y = i >> 2;

		sc_block(&v, 4 + x, 10 + y, 4 + z, &name);
		if (name.len != strlen(want[i]) || memcmp(name.data, want[i], name.len) != 0)
			fprintf(stderr, "  mcedit block %d: %.*s\n", i, (int) name.len, name.data);
		CHECK(name.len == strlen(want[i]) && memcmp(name.data, want[i], name.len) == 0);
	}
	sl_value_close(&v);
	{
		sc_be		be[8];
		int			n = sc_bes(&val, 5, 10, 5, 5, 10, 5, be, 8);

		CHECK(n == 1 && be[0].len > 0 &&
			  sc_find(be[0].key, be[0].len, "minecraft:chest", 15) != NULL);
	}
	sl_buf_free(&val);
	sl_buf_free(&sch);
	sl_buf_free(&name);
	sc_world_free(&w);
}

/* Build a Sponge v2 schematic with one fault; the error must name the field. */
typedef struct sc_bad
{
	const char *what;
	int			code;
	const char *needle;
} sc_bad;

static void
sc_bad_v2(sl_buf *b, int fault)
{
	uint8_t		data[16];
	int			w = 2,
				h = 2,
				l = 2;

	b->len = 0;
	nb_tag(b, SL_TAG_COMPOUND, "Schematic");
	nb_int(b, "Version", fault == 11 ? 4 : 2);
	if (fault != 1)
		nb_short(b, "Width", fault == 2 ? 0 : w);
	nb_short(b, "Height", h);
	nb_short(b, "Length", l);
	if (fault != 3)
	{
		nb_tag(b, SL_TAG_COMPOUND, "Palette");
		nb_int(b, "minecraft:air", 0);
		if (fault == 4)
			nb_string(b, "minecraft:stone", "1");
		else if (fault == 5)
			nb_int(b, "minecraft:stone", 1 << 21);
		else if (fault == 6)
			nb_int(b, "minecraft:stone", 0);
		else if (fault == 12)
			nb_int(b, "minecraft:stone[facing", 1);
		else
			nb_int(b, "minecraft:stone", 1);
		nb_end(b);
	}
	memset(data, 1, sizeof(data));
	if (fault == 7)
		nb_bytes(b, "BlockData", data, 7);	/* one entry short */
	else if (fault == 8)
		nb_bytes(b, "BlockData", data, 9);	/* one extra */
	else if (fault == 9)
	{
		data[7] = 0x80;						/* last varint cut */
		nb_bytes(b, "BlockData", data, 8);
	}
	else if (fault == 10)
	{
		data[3] = 5;						/* not in the palette */
		nb_bytes(b, "BlockData", data, 8);
	}
	else if (fault == 13)
	{
		memcpy(data + 2, "\x80\x80\x80\x80\x80\x01", 6);
		nb_bytes(b, "BlockData", data, 14);
	}
	else
		nb_bytes(b, "BlockData", data, 8);
	if (fault == 14 || fault == 15 || fault == 16)
	{
		nb_list(b, "BlockEntities", SL_TAG_COMPOUND, 1);
		if (fault == 14)
			nb_ints3(b, "Pos", 0, 2, 0);
		else if (fault == 15)
			nb_int(b, "Pos", 0);
		else
			nb_ints3(b, "Pos", 0, 0, 0);
		if (fault != 16)
			nb_string(b, "Id", "minecraft:chest");
		nb_end(b);
	}
	nb_end(b);
}

void
test_schem_errors(void)
{
	static const sc_bad bad[] = {
		{"ok", SL_OK, NULL},
		{"no width", SL_ERR_FORMAT, "Width is missing"},
		{"zero width", SL_ERR_FORMAT, "Width is 0"},
		{"no palette", SL_ERR_FORMAT, "Palette is missing"},
		{"palette not int", SL_ERR_FORMAT, "Palette entry 1 \"minecraft:stone\" is a string"},
		{"palette index huge", SL_ERR_FORMAT, "has index 2097152"},
		{"palette index twice", SL_ERR_FORMAT, "both have index 0"},
		{"data short", SL_ERR_FORMAT, "BlockData has 7 bytes, fewer than Width*Height*Length = 8"},
		{"data long", SL_ERR_FORMAT, "BlockData holds more than Width*Height*Length = 8 entries"},
		{"truncated varint", SL_ERR_FORMAT, "BlockData: varint at byte offset 7 (entry 7) is truncated"},
		{"index not in palette", SL_ERR_FORMAT, "BlockData: entry 3 (block 1,0,1) is palette index 5"},
		{"version 4", SL_ERR_UNSUPPORTED, "version 4"},
		{"bad state", SL_ERR_FORMAT, "Palette entry \"minecraft:stone[facing\""},
		{"varint too long", SL_ERR_FORMAT, "is longer than 5 bytes"},
		{"be outside", SL_ERR_FORMAT, "BlockEntities[0] at (0,2,0) is outside the schematic's 2 x 2 x 2 box"},
		{"be pos type", SL_ERR_FORMAT, "BlockEntities[0].Pos is int"},
		{"be no id", SL_ERR_FORMAT, "BlockEntities[0].Id is missing"},
	};
	sl_buf		b = {0};
	sl_schem	s;
	sl_err		err;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
	{
		int			rc;

		sc_bad_v2(&b, (int) i);
		rc = sl_schem_read(b.data, b.len, NULL, &s, &err);
		if (bad[i].code == SL_OK)
			CHECK_OK(rc, &err);
		else
		{
			int			ok = rc != 0 && err.code == bad[i].code && strstr(err.msg, bad[i].needle) != NULL;

			if (!ok)
				fprintf(stderr, "  %s: rc %d code %d: %s\n", bad[i].what, rc, (int) err.code,
						rc ? err.msg : "(no error)");
			CHECK(ok);
		}
		sl_schem_free(&s);
	}
	/* MCEdit: negative and mismatched sizes, other materials */
	{
		uint8_t		blocks[8] = {0};
		static const char *const needles[] = {"Width is negative (-2)", "Blocks has 8 bytes, Width*Height*Length is 4",
		"Data has 4 bytes", "Materials is \"Classic\""};

		for (int f = 0; f < 4; f++)
		{
			b.len = 0;
			nb_tag(&b, SL_TAG_COMPOUND, "Schematic");
			nb_short(&b, "Width", f == 0 ? -2 : 2);
			nb_short(&b, "Height", f == 1 ? 1 : 2);
			nb_short(&b, "Length", 2);
			nb_string(&b, "Materials", f == 3 ? "Classic" : "Alpha");
			nb_bytes(&b, "Blocks", blocks, 8);
			nb_bytes(&b, "Data", blocks, f == 2 ? 4 : 8);
			nb_end(&b);
			CHECK(sl_schem_read(b.data, b.len, NULL, &s, &err) != 0 && strstr(err.msg, needles[f]) != NULL);
			if (strstr(err.msg, needles[f]) == NULL)
				fprintf(stderr, "  mcedit %d: %s\n", f, err.msg);
			sl_schem_free(&s);
		}
	}
	/* an empty clipboard (no block data at all, as FAWE writes it) reads as air */
	{
		uint32_t	run[4];

		b.len = 0;
		nb_tag(&b, SL_TAG_COMPOUND, "Schematic");
		nb_int(&b, "Version", 1);
		nb_short(&b, "Width", 2);
		nb_short(&b, "Height", 1);
		nb_short(&b, "Length", 2);
		nb_tag(&b, SL_TAG_COMPOUND, "Palette");
		nb_end(&b);
		nb_bytes(&b, "BlockData", (const uint8_t *) "", 0);
		nb_end(&b);
		CHECK_OK(sl_schem_read(b.data, b.len, NULL, &s, &err), &err);
		CHECK(s.empty && sl_schem_run(&s, 0, 4, run, &err) == 0 && s.palette[run[3]].air);
		sl_schem_free(&s);
	}
	/* a Gaia arena file: the version 2 layout without Version */
	{
		uint32_t	run[4];

		b.len = 0;
		nb_tag(&b, SL_TAG_COMPOUND, "Schematic");
		nb_short(&b, "Width", 2);
		nb_short(&b, "Height", 1);
		nb_short(&b, "Length", 2);
		nb_int(&b, "PaletteMax", 2);
		nb_tag(&b, SL_TAG_COMPOUND, "Palette");
		nb_int(&b, "minecraft:stone", 0);
		nb_int(&b, "minecraft:oak_log[axis=y]", 1);
		nb_end(&b);
		nb_bytes(&b, "BlockData", (const uint8_t *) "\x00\x01\x01\x00", 4);
		nb_end(&b);
		CHECK_OK(sl_schem_read(b.data, b.len, NULL, &s, &err), &err);
		CHECK(s.kind == SL_SCHEM_SPONGE && s.version == 2 && sl_schem_run(&s, 0, 4, run, &err) == 0 &&
			  s.palette[run[1]].canon_len == 25 && s.palette[run[3]].canon_len == 15);
		sl_schem_free(&s);
	}
	/* the block cap, Sponge v3 without Blocks, a structure file, garbage */
	{
		sl_limits	lim = sl_default_limits;

		b.len = 0;
		nb_tag(&b, SL_TAG_COMPOUND, "Schematic");
		nb_int(&b, "Version", 2);
		nb_short(&b, "Width", 200);
		nb_short(&b, "Height", 200);
		nb_short(&b, "Length", 100);
		nb_bytes(&b, "BlockData", (const uint8_t *) "", 0);
		nb_end(&b);
		lim.max_value_raw = 2 * 1024 * 1024;
		CHECK(sl_schem_read(b.data, b.len, &lim, &s, &err) != 0 && err.code == SL_ERR_LIMIT &&
			  strstr(err.msg, "Width x Height x Length") != NULL);
		sl_schem_free(&s);
		b.len = 0;
		nb_tag(&b, SL_TAG_COMPOUND, "");
		nb_tag(&b, SL_TAG_COMPOUND, "Schematic");
		nb_int(&b, "Version", 3);
		nb_short(&b, "Width", 1);
		nb_short(&b, "Height", 1);
		nb_short(&b, "Length", 1);
		nb_end(&b);
		nb_end(&b);
		CHECK(sl_schem_read(b.data, b.len, NULL, &s, &err) != 0 && strstr(err.msg, "Blocks is missing") != NULL);
		sl_schem_free(&s);
		b.len = 0;
		nb_tag(&b, SL_TAG_COMPOUND, "");
		nb_list(&b, "size", SL_TAG_INT, 0);
		nb_list(&b, "palette", SL_TAG_COMPOUND, 0);
		nb_end(&b);
		CHECK(sl_schem_read(b.data, b.len, NULL, &s, &err) != 0 && err.code == SL_ERR_UNSUPPORTED &&
			  strstr(err.msg, "structure") != NULL);
		sl_schem_free(&s);
		CHECK(sl_schem_read((const uint8_t *) "\x1f\x8b\x08\x00garbage", 11, NULL, &s, &err) != 0);
		sl_schem_free(&s);
		CHECK(sl_schem_read((const uint8_t *) "", 0, NULL, &s, &err) != 0);
		sl_schem_free(&s);
	}
	/* extract: bad version, an axis over 65535 */
	{
		sc_world	w = {0};
		sl_buf		val = {0},
					out = {0};

		sc_modern_chunk(&w.nbt[0], 0, 0, 0);
		w.n = 1;
		sc_encode(&w, &val);
		CHECK(sc_extract(&val, 0, 0, 0, 1, 1, 1, 4, &out, &err) != 0 && err.code == SL_ERR_INVALID);
		CHECK(sc_extract(&val, 0, 0, 0, 70000, 0, 0, 3, &out, &err) != 0 && err.code == SL_ERR_LIMIT &&
			  strstr(err.msg, "65535") != NULL);
		sl_buf_free(&val);
		sl_buf_free(&out);
		sc_world_free(&w);
	}
	sl_buf_free(&b);
}

/* Sponge v1 (TileEntities, ContentVersion) and gzip input; v2/v3 round trip of the same box. */
void
test_schem_versions(void)
{
	sc_world	w = {0};
	sl_buf		val = {0},
				sch = {0},
				gz = {0},
				s2 = {0},
				s3 = {0};
	sl_err		err;
	sl_schem	a,
				b;

	sc_modern_chunk(&w.nbt[0], 0, 0, 5);
	w.n = 1;
	sc_encode(&w, &val);
	sc_fill_schematic(&sch, 1, 3, 3, 3, "oak_planks");
	CHECK_OK(sl_deflate(SL_DEFLATE_GZIP, 6, sch.data, sch.len, &gz, &err), &err);
	CHECK_OK(sc_paste(&val, gz.data, gz.len, 2, 2, 2, &err), &err);
	{
		sc_be		be[8];
		int			n = sc_bes(&val, 2, 2, 2, 2, 2, 2, be, 8);

		CHECK(n == 1 && sc_find(be[0].key, be[0].len, "ContentVersion", 14) == NULL &&
			  sc_find(be[0].key, be[0].len, "filled", 6) != NULL &&
			  sc_find(be[0].key, be[0].len, "minecraft:barrel", 16) != NULL);
	}
	/* the same box as v2 and v3 reads back alike */
	CHECK_OK(sc_extract(&val, 0, -10, 0, 15, 20, 15, 2, &s2, &err), &err);
	CHECK_OK(sc_extract(&val, 0, -10, 0, 15, 20, 15, 3, &s3, &err), &err);
	CHECK_OK(sl_schem_read(s2.data, s2.len, NULL, &a, &err), &err);
	CHECK_OK(sl_schem_read(s3.data, s3.len, NULL, &b, &err), &err);
	CHECK(a.version == 2 && b.version == 3 && a.volume == 16 * 31 * 16 && a.volume == b.volume);
	CHECK(a.offset[0] == 0 && a.offset[1] == -10 && b.offset[1] == -10 && a.data_version == 3700);
	CHECK(a.nbe == b.nbe && a.nbe >= 1);
	{
		uint32_t	ra[16],
					rb[16];
		int			same = 1;

		for (uint64_t i = 0; i < a.volume; i += 16)
		{
			CHECK_OK(sl_schem_run(&a, i, 16, ra, &err), &err);
			CHECK_OK(sl_schem_run(&b, i, 16, rb, &err), &err);
			for (int k = 0; k < 16; k++)
				same &= a.palette[ra[k]].canon_len == b.palette[rb[k]].canon_len &&
					memcmp(a.palette[ra[k]].canon, b.palette[rb[k]].canon, a.palette[ra[k]].canon_len) == 0;
		}
		CHECK(same);
	}
	sl_schem_free(&a);
	sl_schem_free(&b);
	/* extract is deterministic */
	{
		sl_buf		again = {0};

		CHECK_OK(sc_extract(&val, 0, -10, 0, 15, 20, 15, 3, &again, &err), &err);
		CHECK(again.len == s3.len && memcmp(again.data, s3.data, s3.len) == 0);
		sl_buf_free(&again);
	}
	sl_buf_free(&val);
	sl_buf_free(&sch);
	sl_buf_free(&gz);
	sl_buf_free(&s2);
	sl_buf_free(&s3);
	sc_world_free(&w);
}
