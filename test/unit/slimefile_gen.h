/*
 * slimefile_gen.h - small hand-built slime files of every layout family
 * (v3 Hypixel, v9 1.13-style, v9 ASWM 1.18-style, v10, v11, v12, v13),
 * written byte by byte from the layouts in doc/format.md ("Slime files"),
 * independently of the reader. Used by the unit tests (test_slimefile.c)
 * and by the fuzzer's seed generator (test/fuzz/gen_seeds.c).
 *
 * A file is kept as its parts (header fields and the raw, uncompressed
 * blocks) so that tests can damage one part and assemble it again.
 */
#ifndef SLIMEFILE_GEN_H
#define SLIMEFILE_GEN_H

#include <string.h>
#include <zstd.h>

#include "sl_common.h"
#include "sl_nbt.h"
#include "nbt_build.h"

typedef struct sfg_file
{
	int			version;
	int			wv;				/* v6-v9 world version byte; v4/v5: 1 or 4 */
	int32_t		dv;				/* v10+ */
	int			flags;			/* v13 */
	int16_t		min_x,
				min_z,
				width,
				depth;			/* v1-v9 */
	uint8_t		mask[8];		/* v1-v9 chunk bitmask */
	int			has_entities;	/* v3-v9 */
	size_t		ok_ends[4];		/* v12: shorter chunk data that is still well-formed */
	int			n_ok_ends;
	sl_buf		chunks,
				tiles,
				entities,
				extra,
				maps;
} sfg_file;

/* ---- NBT (tags from nbt_build.h) ---- */

/* Append a named long array of n longs seed, 2 seed, 3 seed, ... */
static inline void
sfg_longs(sl_buf *b, const char *name, uint32_t n, uint64_t seed)
{
	nb_tag(b, SL_TAG_LONG_ARRAY, name);
	sl_buf_put_u32be(b, n, NULL);
	for (uint32_t i = 0; i < n; i++)
		sl_buf_put_u64be(b, seed * (i + 1), NULL);
}

/* Append a named list of three doubles (a position or motion). */
static inline void
sfg_doubles(sl_buf *b, const char *name, double x, double y, double z)
{
	double		v[3] = {x, y, z};

	nb_list(b, name, SL_TAG_DOUBLE, 3);
	for (int i = 0; i < 3; i++)
	{
		uint64_t	bits;

		memcpy(&bits, &v[i], 8);
		sl_buf_put_u64be(b, bits, NULL);
	}
}

/* A document: root compound with an empty name; call nb_end to close. */
static inline void
sfg_root(sl_buf *b)
{
	b->len = 0;
	nb_tag(b, SL_TAG_COMPOUND, "");
}

/* "i32 length, bytes" (doc NULL: length 0). */
static inline void
sfg_put_doc(sl_buf *dst, const sl_buf *doc)
{
	sl_buf_put_u32be(dst, doc ? (uint32_t) doc->len : 0, NULL);
	if (doc && doc->len)
		sl_buf_put(dst, doc->data, doc->len, NULL);
}

/* "i32 compressed, i32 raw, zstd frame" at level 3, as zstd-jni writes it. */
static inline void
sfg_put_zblock(sl_buf *dst, const uint8_t *raw, size_t len)
{
	size_t		bound = ZSTD_compressBound(len);
	size_t		at = dst->len;
	size_t		n;

	sl_buf_reserve(dst, 8 + bound, NULL);
	n = ZSTD_compress(dst->data + at + 8, bound, raw, len, 3);
	sl_put_u32be(dst->data + at, (uint32_t) n);
	sl_put_u32be(dst->data + at + 4, (uint32_t) len);
	dst->len += 8 + n;
}

/* {block_states}-like {palette: [{Name: name}]} */
static inline void
sfg_block_states(sl_buf *b, const char *name)
{
	sfg_root(b);
	nb_list(b, "palette", SL_TAG_COMPOUND, 1);
	nb_string(b, "Name", name);
	nb_end(b);
	nb_end(b);
}

static inline void
sfg_biomes(sl_buf *b, const char *name)
{
	sfg_root(b);
	nb_list(b, "palette", SL_TAG_STRING, 1);
	nb_str(b, name);
	nb_end(b);
}

static inline void
sfg_fill(sl_buf *b, int v, size_t n)
{
	sl_buf_reserve(b, n, NULL);
	memset(b->data + b->len, v, n);
	b->len += n;
}

/* ---- assembling ---- */

/* The file of f, with its chunk block cut to chunk_len bytes (SIZE_MAX: whole). */
static inline void
sfg_assemble(const sfg_file *f, size_t chunk_len, sl_buf *out)
{
	size_t		cl = chunk_len < f->chunks.len ? chunk_len : f->chunks.len;

	out->len = 0;
	sl_buf_put_u8(out, 0xB1, NULL);
	sl_buf_put_u8(out, 0x0B, NULL);
	sl_buf_put_u8(out, (uint8_t) f->version, NULL);
	if (f->version >= 10)
	{
		sl_buf_put_u32be(out, (uint32_t) f->dv, NULL);
		if (f->version >= 13)
			sl_buf_put_u8(out, (uint8_t) f->flags, NULL);
		sfg_put_zblock(out, f->chunks.data, cl);
		if (f->version == 10)
		{
			sfg_put_zblock(out, f->tiles.data, f->tiles.len);
			sfg_put_zblock(out, f->entities.data, f->entities.len);
		}
		sfg_put_zblock(out, f->extra.data, f->extra.len);
		return;
	}
	if (f->version >= 6)
		sl_buf_put_u8(out, (uint8_t) f->wv, NULL);
	else if (f->version >= 4)
		sl_buf_put_u8(out, f->wv >= 4, NULL);
	sl_buf_put_u16be(out, (uint16_t) f->min_x, NULL);
	sl_buf_put_u16be(out, (uint16_t) f->min_z, NULL);
	sl_buf_put_u16be(out, (uint16_t) f->width, NULL);
	sl_buf_put_u16be(out, (uint16_t) f->depth, NULL);
	sl_buf_put(out, f->mask, ((size_t) f->width * f->depth + 7) / 8, NULL);
	sfg_put_zblock(out, f->chunks.data, cl);
	sfg_put_zblock(out, f->tiles.data, f->tiles.len);
	if (f->version >= 3)
	{
		sl_buf_put_u8(out, (uint8_t) f->has_entities, NULL);
		if (f->has_entities)
			sfg_put_zblock(out, f->entities.data, f->entities.len);
	}
	if (f->version >= 2)
		sfg_put_zblock(out, f->extra.data, f->extra.len);
	if (f->version >= 7)
		sfg_put_zblock(out, f->maps.data, f->maps.len);
}

static inline void
sfg_free(sfg_file *f)
{
	sl_buf_free(&f->chunks);
	sl_buf_free(&f->tiles);
	sl_buf_free(&f->entities);
	sl_buf_free(&f->extra);
	sl_buf_free(&f->maps);
}

/* ---- the families ---- */

/*
 * v3 (Hypixel): chunks (-1,2) and (0,2); sections 0 and 3 of the first
 * (section 3 with 3 bytes of HypixelBlocks3), section 1 of the second; a
 * chest in (-1,2); a pig at x -0.5 (floor: chunk -1) and one entity in no
 * chunk; extra {foo: 1}.
 */
static inline void
sfg_v3(sfg_file *f)
{
	sl_buf		d = {0};

	memset(f, 0, sizeof(*f));
	f->version = 3;
	f->min_x = -1;
	f->min_z = 2;
	f->width = 2;
	f->depth = 1;
	f->mask[0] = 0x03;
	f->has_entities = 1;
	for (int c = 0; c < 2; c++)
	{
		for (int i = 0; i < 256; i++)
			sl_buf_put_u32be(&f->chunks, (uint32_t) (60 + c + (i & 3)), NULL);
		sfg_fill(&f->chunks, c ? 2 : 1, 256);	/* biomes: desert, plains */
		sl_buf_put_u8(&f->chunks, c ? 0x02 : 0x09, NULL);	/* sections 0 and 3, or 1 */
		sl_buf_put_u8(&f->chunks, 0, NULL);
		for (int s = 0; s < (c ? 1 : 2); s++)
		{
			sfg_fill(&f->chunks, 0x0F, 2048);	/* block light */
			sfg_fill(&f->chunks, s ? 4 : 1, 4096);	/* cobblestone, stone */
			sfg_fill(&f->chunks, 0, 2048);	/* data */
			sfg_fill(&f->chunks, 0xF0, 2048);	/* sky light */
			if (c == 0 && s == 1)
			{
				sl_buf_put_u16be(&f->chunks, 3, NULL);
				sl_buf_put(&f->chunks, "hb3", 3, NULL);
			}
			else
				sl_buf_put_u16be(&f->chunks, 0, NULL);
		}
	}
	sfg_root(&f->tiles);
	nb_list(&f->tiles, "tiles", SL_TAG_COMPOUND, 1);
	nb_string(&f->tiles, "id", "Chest");
	nb_int(&f->tiles, "x", -15);
	nb_int(&f->tiles, "y", 10);
	nb_int(&f->tiles, "z", 35);
	nb_end(&f->tiles);
	nb_end(&f->tiles);
	sfg_root(&f->entities);
	nb_list(&f->entities, "entities", SL_TAG_COMPOUND, 2);
	nb_string(&f->entities, "id", "Pig");
	sfg_doubles(&f->entities, "Pos", -0.5, 64.0, 40.25);
	nb_end(&f->entities);
	nb_string(&f->entities, "id", "Bat");
	sfg_doubles(&f->entities, "Pos", 1000.0, 64.0, 40.0);
	nb_end(&f->entities);
	nb_end(&f->entities);
	sfg_root(&f->extra);
	nb_int(&f->extra, "foo", 1);
	nb_end(&f->extra);
	sl_buf_free(&d);
}

/*
 * v9, world version 4 (1.13): chunk (5,-3) with height maps, 256 biome
 * ints, section 1 (block light, a palette of air and stone, 256 longs, no
 * sky light); no tile entities, no entities, extra, maps {maps: [{id: 7}]}.
 */
static inline void
sfg_v9_113(sfg_file *f)
{
	sl_buf		d = {0};

	memset(f, 0, sizeof(*f));
	f->version = 9;
	f->wv = 4;
	f->min_x = 5;
	f->min_z = -3;
	f->width = 1;
	f->depth = 1;
	f->mask[0] = 1;
	sfg_root(&d);
	sfg_longs(&d, "MOTION_BLOCKING", 36, 3);
	nb_end(&d);
	sfg_put_doc(&f->chunks, &d);
	sl_buf_put_u32be(&f->chunks, 256, NULL);
	for (int i = 0; i < 256; i++)
		sl_buf_put_u32be(&f->chunks, 1, NULL);
	sl_buf_put_u8(&f->chunks, 0x02, NULL);
	sl_buf_put_u8(&f->chunks, 0, NULL);
	sl_buf_put_u8(&f->chunks, 1, NULL);
	sfg_fill(&f->chunks, 0x07, 2048);
	sl_buf_put_u32be(&f->chunks, 2, NULL);
	for (int p = 0; p < 2; p++)
	{
		sfg_root(&d);
		nb_string(&d, "Name", p ? "minecraft:stone" : "minecraft:air");
		nb_end(&d);
		sfg_put_doc(&f->chunks, &d);
	}
	sl_buf_put_u32be(&f->chunks, 256, NULL);
	for (int i = 0; i < 256; i++)	/* 4 bits per block: alternate air, stone */
		sl_buf_put_u64be(&f->chunks, 0x1010101010101010ull, NULL);
	sl_buf_put_u8(&f->chunks, 0, NULL);
	sfg_root(&f->tiles);
	nb_list(&f->tiles, "tiles", SL_TAG_END, 0);
	nb_end(&f->tiles);
	sfg_root(&f->extra);
	nb_string(&f->extra, "note", "v9");
	nb_end(&f->extra);
	sfg_root(&f->maps);
	nb_list(&f->maps, "maps", SL_TAG_COMPOUND, 1);
	nb_int(&f->maps, "id", 7);
	nb_end(&f->maps);
	nb_end(&f->maps);
	sl_buf_free(&d);
}

/*
 * v9, world version 8 (ASWM's 1.18 layout): chunk (0,0), sections -4..19
 * by index, one section at index 4 (Y 0) with sky light; a chest.
 */
static inline void
sfg_v9_118(sfg_file *f)
{
	sl_buf		d = {0};

	memset(f, 0, sizeof(*f));
	f->version = 9;
	f->wv = 8;
	f->width = 1;
	f->depth = 1;
	f->mask[0] = 1;
	sfg_root(&d);
	sfg_longs(&d, "WORLD_SURFACE", 37, 5);
	nb_end(&d);
	sfg_put_doc(&f->chunks, &d);
	sl_buf_put_u32be(&f->chunks, (uint32_t) -4, NULL);
	sl_buf_put_u32be(&f->chunks, 20, NULL);
	sl_buf_put_u32be(&f->chunks, 1, NULL);
	sl_buf_put_u32be(&f->chunks, 4, NULL);
	sl_buf_put_u8(&f->chunks, 0, NULL);
	sfg_block_states(&d, "minecraft:stone");
	sfg_put_doc(&f->chunks, &d);
	sfg_biomes(&d, "minecraft:plains");
	sfg_put_doc(&f->chunks, &d);
	sl_buf_put_u8(&f->chunks, 1, NULL);
	sfg_fill(&f->chunks, 0x0E, 2048);
	sfg_root(&f->tiles);
	nb_list(&f->tiles, "tiles", SL_TAG_COMPOUND, 1);
	nb_string(&f->tiles, "id", "minecraft:chest");
	nb_int(&f->tiles, "x", 3);
	nb_int(&f->tiles, "y", 5);
	nb_int(&f->tiles, "z", 7);
	nb_end(&f->tiles);
	nb_end(&f->tiles);
	sfg_root(&f->extra);
	nb_end(&f->extra);
	sfg_root(&f->maps);
	nb_end(&f->maps);
	sl_buf_free(&d);
}

/* Sections of v10-v12: "bool, [2048], bool, [2048], i32+block states, i32+biomes". */
static inline void
sfg_section_bools(sl_buf *c, int bl, int sky, const char *block)
{
	sl_buf		d = {0};

	sl_buf_put_u8(c, bl ? 1 : 0, NULL);
	if (bl)
		sfg_fill(c, bl, 2048);
	sl_buf_put_u8(c, sky ? 1 : 0, NULL);
	if (sky)
		sfg_fill(c, sky, 2048);
	sfg_block_states(&d, block);
	sfg_put_doc(c, &d);
	sfg_biomes(&d, "minecraft:forest");
	sfg_put_doc(c, &d);
	sl_buf_free(&d);
}

/*
 * v10: chunks (0,0) and (-1,0), two sections each; world tile entities (a
 * chest in (-1,0)) and entities (a pig at x -0.5: (int) gives chunk 0).
 */
static inline void
sfg_v10(sfg_file *f)
{
	sl_buf		d = {0};

	memset(f, 0, sizeof(*f));
	f->version = 10;
	f->dv = 3120;
	sl_buf_put_u32be(&f->chunks, 2, NULL);
	for (int c = 0; c < 2; c++)
	{
		sl_buf_put_u32be(&f->chunks, (uint32_t) -c, NULL);
		sl_buf_put_u32be(&f->chunks, 0, NULL);
		sfg_root(&d);
		sfg_longs(&d, "MOTION_BLOCKING", 37, 9);
		nb_end(&d);
		sfg_put_doc(&f->chunks, &d);
		sl_buf_put_u32be(&f->chunks, 2, NULL);
		sfg_section_bools(&f->chunks, 0x11, 0, "minecraft:bedrock");
		sfg_section_bools(&f->chunks, 0, 0x22, c ? "minecraft:dirt" : "minecraft:stone");
	}
	sfg_root(&f->tiles);
	nb_list(&f->tiles, "tiles", SL_TAG_COMPOUND, 1);
	nb_string(&f->tiles, "id", "minecraft:chest");
	nb_int(&f->tiles, "x", -3);
	nb_int(&f->tiles, "y", -60);
	nb_int(&f->tiles, "z", 4);
	nb_end(&f->tiles);
	nb_end(&f->tiles);
	sfg_root(&f->entities);
	nb_list(&f->entities, "entities", SL_TAG_COMPOUND, 1);
	nb_string(&f->entities, "id", "minecraft:pig");
	sfg_doubles(&f->entities, "Pos", -0.5, -50.0, 3.5);
	nb_end(&f->entities);
	nb_end(&f->entities);
	sfg_root(&f->extra);
	nb_tag(&f->extra, SL_TAG_COMPOUND, "properties");
	nb_int(&f->extra, "spawnX", 8);
	nb_end(&f->extra);
	nb_end(&f->extra);
	sl_buf_free(&d);
}

/* A {name: [one compound with id]} document. */
static inline void
sfg_wrapped(sl_buf *d, const char *name, const char *id, int n)
{
	sfg_root(d);
	nb_list(d, name, n ? SL_TAG_COMPOUND : SL_TAG_END, (uint32_t) n);
	for (int i = 0; i < n; i++)
	{
		nb_string(d, "id", id);
		sfg_doubles(d, "Pos", 1.5, 70.0, 2.5);
		nb_int(d, "x", 1);
		nb_int(d, "y", 70);
		nb_int(d, "z", 2);
		nb_end(d);
	}
	nb_end(d);
}

/* v11: chunk (0,0), one section; zstd'd tile entities and entities inside the chunk. */
static inline void
sfg_v11(sfg_file *f)
{
	sl_buf		d = {0};

	memset(f, 0, sizeof(*f));
	f->version = 11;
	f->dv = 3465;
	sl_buf_put_u32be(&f->chunks, 1, NULL);
	sl_buf_put_u32be(&f->chunks, 0, NULL);
	sl_buf_put_u32be(&f->chunks, 0, NULL);
	sl_buf_put_u32be(&f->chunks, 1, NULL);
	sfg_section_bools(&f->chunks, 0x33, 0x44, "minecraft:stone");
	sfg_root(&d);
	sfg_longs(&d, "OCEAN_FLOOR", 37, 1);
	nb_end(&d);
	sfg_put_doc(&f->chunks, &d);
	sfg_wrapped(&d, "tileEntities", "minecraft:furnace", 1);
	sfg_put_zblock(&f->chunks, d.data, d.len);
	sfg_wrapped(&d, "entities", "minecraft:cow", 2);
	sfg_put_zblock(&f->chunks, d.data, d.len);
	sfg_root(&f->extra);
	nb_end(&f->extra);
	sl_buf_free(&d);
}

/* One v12 chunk at (x,0): see sfg_v12. */
static inline void
sfg_v12_chunk(sl_buf *c, int x)
{
	sl_buf		d = {0};

	sl_buf_put_u32be(c, (uint32_t) x, NULL);
	sl_buf_put_u32be(c, 0, NULL);
	if (x == 5)
	{
		/* all air, nothing in it: what ASP's ChunkPruner prunes */
		sl_buf_put_u32be(c, 0, NULL);
		sfg_put_doc(c, NULL);
		sfg_wrapped(&d, "tileEntities", "", 0);
		sfg_put_doc(c, &d);
		sfg_wrapped(&d, "entities", "", 0);
		sfg_put_doc(c, &d);
		sfg_put_doc(c, NULL);
		sl_buf_free(&d);
		return;
	}
	sl_buf_put_u32be(c, 1, NULL);
	sfg_section_bools(c, 0x55, 0, "minecraft:sand");
	sfg_put_doc(c, NULL);		/* no height maps */
	sfg_wrapped(&d, "tileEntities", "minecraft:barrel", x);
	sfg_put_doc(c, &d);
	sfg_wrapped(&d, "entities", "minecraft:sheep", 1 - x);
	sfg_put_doc(c, &d);
	sfg_root(&d);
	if (x == 0)
	{
		nb_tag(&d, SL_TAG_COMPOUND, "ChunkBukkitValues");
		nb_string(&d, "plugin:key", "value");
		nb_end(&d);
	}
	else
		nb_int(&d, "other", 1);
	nb_end(&d);
	sfg_put_doc(c, &d);
	sl_buf_free(&d);
}

/*
 * v12 as AdvancedSlimePaper wrote it until its PR #98 (January 2024), which
 * the real newsky/skyblock.slime of the corpus shows: the chunk count is
 * that of all chunks, the chunks follow, and then again every chunk the
 * pruner would keep (SlimeSerializer.serializeChunks iterated a copy of the
 * chunks with the unprunable ones appended). Chunks (0,0) (chunk extra
 * {ChunkBukkitValues: {...}}, Paper's PDC), (5,0) (empty, prunable) and
 * (1,0) (extra {other: 1}, kept verbatim), count 3, then (0,0) and (1,0)
 * repeated byte for byte. ok_ends[] lists the chunk-data lengths at which
 * the data may also end: after the counted chunks and after each repeat.
 */
static inline void
sfg_v12(sfg_file *f)
{
	static const int order[5] = {0, 5, 1, 0, 1};

	memset(f, 0, sizeof(*f));
	f->version = 12;
	f->dv = 3700;
	sl_buf_put_u32be(&f->chunks, 3, NULL);
	for (int i = 0; i < 5; i++)
	{
		if (i >= 3)
			f->ok_ends[f->n_ok_ends++] = f->chunks.len;
		sfg_v12_chunk(&f->chunks, order[i]);
	}
	sfg_root(&f->extra);
	nb_tag(&f->extra, SL_TAG_COMPOUND, "properties");
	nb_string(&f->extra, "environment", "normal");
	nb_end(&f->extra);
	nb_end(&f->extra);
}

/*
 * v13 with flags POI | BLOCK_TICKS | FLUID_TICKS | bit 3 (unknown), laid
 * out exactly as sl_slimefile_write writes it (so that writing what was
 * read gives these bytes again): chunk (0,0) with sections at index 0
 * (block light 0x11), an empty slot at 1, index 2 (block light 0x33, sky
 * light 0x44); chunk (1,0) with one sky-light-only section (0x22).
 */
static inline void
sfg_v13(sfg_file *f)
{
	sl_buf		d = {0};
	sl_buf	   *c = &f->chunks;

	memset(f, 0, sizeof(*f));
	f->version = 13;
	f->dv = 3953;
	f->flags = 0x0F;
	sl_buf_put_u32be(c, 2, NULL);
	/* chunk (0,0) */
	sl_buf_put_u32be(c, 0, NULL);
	sl_buf_put_u32be(c, 0, NULL);
	sl_buf_put_u32be(c, 3, NULL);
	sl_buf_put_u8(c, 1, NULL);
	sfg_fill(c, 0x11, 2048);
	sfg_block_states(&d, "minecraft:stone");
	sfg_put_doc(c, &d);
	sfg_biomes(&d, "minecraft:plains");
	sfg_put_doc(c, &d);
	sl_buf_put_u8(c, 0, NULL);
	sfg_put_doc(c, NULL);
	sfg_put_doc(c, NULL);
	sl_buf_put_u8(c, 3, NULL);
	sfg_fill(c, 0x33, 2048);
	sfg_fill(c, 0x44, 2048);
	sfg_block_states(&d, "minecraft:glass");
	sfg_put_doc(c, &d);
	sfg_biomes(&d, "minecraft:beach");
	sfg_put_doc(c, &d);
	sfg_root(&d);
	sfg_longs(&d, "MOTION_BLOCKING", 37, 11);
	nb_end(&d);
	sfg_put_doc(c, &d);
	sfg_root(&d);				/* POI "Sections" */
	nb_tag(&d, SL_TAG_COMPOUND, "0");
	nb_byte(&d, "Valid", 1);
	nb_list(&d, "Records", SL_TAG_COMPOUND, 1);
	nb_string(&d, "type", "minecraft:home");
	nb_int(&d, "free_tickets", 1);
	nb_end(&d);
	nb_end(&d);
	nb_end(&d);
	sfg_put_doc(c, &d);
	sfg_root(&d);
	nb_list(&d, "block_ticks", SL_TAG_COMPOUND, 1);
	nb_string(&d, "i", "minecraft:stone");
	nb_int(&d, "t", 4);
	nb_end(&d);
	nb_end(&d);
	sfg_put_doc(c, &d);
	sfg_put_doc(c, NULL);		/* fluid ticks */
	sl_buf_put_u32be(c, 3, NULL);	/* unknown flag bit 3 */
	sl_buf_put(c, "abc", 3, NULL);
	sfg_wrapped(&d, "tileEntities", "minecraft:chest", 1);
	sfg_put_doc(c, &d);
	sfg_wrapped(&d, "entities", "minecraft:pig", 1);
	sfg_put_doc(c, &d);
	sfg_root(&d);
	nb_tag(&d, SL_TAG_COMPOUND, "ChunkBukkitValues");
	nb_string(&d, "k", "v");
	nb_end(&d);
	nb_end(&d);
	sfg_put_doc(c, &d);
	/* chunk (1,0) */
	sl_buf_put_u32be(c, 1, NULL);
	sl_buf_put_u32be(c, 0, NULL);
	sl_buf_put_u32be(c, 1, NULL);
	sl_buf_put_u8(c, 2, NULL);
	sfg_fill(c, 0x22, 2048);
	sfg_block_states(&d, "minecraft:air");
	sfg_put_doc(c, &d);
	sfg_biomes(&d, "minecraft:plains");
	sfg_put_doc(c, &d);
	sfg_put_doc(c, NULL);		/* height maps */
	sfg_put_doc(c, NULL);		/* POI */
	sfg_put_doc(c, NULL);		/* block ticks */
	sfg_root(&d);
	nb_list(&d, "fluid_ticks", SL_TAG_COMPOUND, 1);
	nb_string(&d, "i", "minecraft:water");
	nb_end(&d);
	nb_end(&d);
	sfg_put_doc(c, &d);
	sl_buf_put_u32be(c, 0, NULL);	/* unknown flag bit 3: nothing */
	sfg_wrapped(&d, "tileEntities", "", 0);
	sfg_put_doc(c, &d);
	sfg_put_doc(c, NULL);		/* entities: none */
	sfg_put_doc(c, NULL);		/* chunk extra */
	sfg_root(&f->extra);
	nb_tag(&f->extra, SL_TAG_COMPOUND, "properties");
	nb_int(&f->extra, "chunkSectionMin", -4);
	nb_int(&f->extra, "chunkSectionMax", 19);
	nb_end(&f->extra);
	nb_tag(&f->extra, SL_TAG_COMPOUND, "BukkitValues");
	nb_string(&f->extra, "world:key", "w");
	nb_end(&f->extra);
	nb_end(&f->extra);
	sl_buf_free(&d);
}

/*
 * A pre-1.13 world in a v4-v8 file: chunk (2,3) with section 0 (block light
 * behind a v5+ boolean, no sky light from v5 on), biome bytes 3; v6+ world
 * version 2 (1.9); v8 with the extra biome length int of old worlds.
 */
static inline void
sfg_old(sfg_file *f, int version)
{
	memset(f, 0, sizeof(*f));
	f->version = version;
	f->wv = version >= 6 ? 2 : 1;
	f->min_x = 2;
	f->min_z = 3;
	f->width = 1;
	f->depth = 1;
	f->mask[0] = 1;
	for (int i = 0; i < 256; i++)
		sl_buf_put_u32be(&f->chunks, 70, NULL);
	if (version == 8)
		sl_buf_put_u32be(&f->chunks, 256, NULL);
	sfg_fill(&f->chunks, 3, 256);
	sl_buf_put_u8(&f->chunks, 0x01, NULL);
	sl_buf_put_u8(&f->chunks, 0, NULL);
	if (version >= 5)
		sl_buf_put_u8(&f->chunks, 1, NULL);
	sfg_fill(&f->chunks, 0x0A, 2048);
	sfg_fill(&f->chunks, 2, 4096);	/* grass */
	sfg_fill(&f->chunks, 0, 2048);
	if (version >= 5)
		sl_buf_put_u8(&f->chunks, 0, NULL);
	else
		sfg_fill(&f->chunks, 0x0B, 2048);
	sfg_root(&f->tiles);
	nb_list(&f->tiles, "tiles", SL_TAG_END, 0);
	nb_end(&f->tiles);
	sfg_root(&f->extra);
	nb_end(&f->extra);
	sfg_root(&f->maps);
	nb_end(&f->maps);
}

/* Every family, for loops: fills f with family i (0..8); returns its name. */
static inline const char *
sfg_family(int i, sfg_file *f)
{
	switch (i)
	{
		case 0:
			sfg_v3(f);
			return "v3";
		case 1:
			sfg_v9_113(f);
			return "v9-1.13";
		case 2:
			sfg_v9_118(f);
			return "v9-1.18";
		case 3:
			sfg_v10(f);
			return "v10";
		case 4:
			sfg_v11(f);
			return "v11";
		case 5:
			sfg_v12(f);
			return "v12";
		case 6:
			sfg_v13(f);
			return "v13";
		case 7:
			sfg_old(f, 5);
			return "v5";
		default:
			sfg_old(f, 8);
			return "v8-old";
	}
}

#define SFG_FAMILIES 9

#endif
