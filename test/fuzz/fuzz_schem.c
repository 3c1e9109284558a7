/*
 * fuzz_schem.c - libFuzzer target for the schematic reader and paste.
 *
 * Input: 3 bytes choosing the paste position, then a schematic file (plain,
 * gzip or zlib NBT). The world is fixed, built here once: chunk (0,0) 1.18+
 * (sections Y=-1..1), (1,0) 1.15 (spanning longs), (0,1) 1.16 (aligned),
 * (1,1) pre-1.13 (numeric ids).
 *   - sl_schem_read succeeds or fails with a clean error; a read schematic's
 *     entries all name palette states;
 *   - a paste succeeds or fails cleanly; a successful paste encodes to a
 *     value that passes sl_value_verify, whose every chunk the block decoder
 *     opens, and (small boxes) extracting the box gives the schematic's
 *     states and block entity count back.
 */
#include "fuzz_common.h"
#include "sl_blocks.h"
#include "sl_build.h"
#include "sl_nbt.h"
#include "sl_schem.h"
#include "sl_value.h"

static sl_buf world;			/* the fixed world's value */

static void
tag(sl_buf *b, unsigned type, const char *name)
{
	sl_buf_put_u8(b, (uint8_t) type, NULL);
	sl_buf_put_u16be(b, (uint16_t) strlen(name), NULL);
	sl_buf_put(b, name, strlen(name), NULL);
}

static void
str(sl_buf *b, const char *name, const char *s)
{
	tag(b, SL_TAG_STRING, name);
	sl_buf_put_u16be(b, (uint16_t) strlen(s), NULL);
	sl_buf_put(b, s, strlen(s), NULL);
}

static void
i32(sl_buf *b, const char *name, int32_t v)
{
	tag(b, SL_TAG_INT, name);
	sl_buf_put_u32be(b, (uint32_t) v, NULL);
}

static void
section_states(sl_buf *b, int modern, int spanning, uint32_t n, int y)
{
	uint32_t	idx[4096];
	uint8_t		longs[4096 * 2];
	int			bits = 4;

	while (((uint32_t) 1 << bits) < n)
		bits++;
	tag(b, SL_TAG_LIST, modern ? "palette" : "Palette");
	sl_buf_put_u8(b, SL_TAG_COMPOUND, NULL);
	sl_buf_put_u32be(b, n, NULL);
	for (uint32_t k = 0; k < n; k++)
	{
		char		name[32];

		snprintf(name, sizeof(name), k ? "minecraft:s%u" : "minecraft:air", k);
		str(b, "Name", name);
		if (k == 2)
		{
			tag(b, SL_TAG_COMPOUND, "Properties");
			str(b, "facing", "up");
			sl_buf_put_u8(b, 0, NULL);
		}
		sl_buf_put_u8(b, 0, NULL);
	}
	if (modern && n == 1)
		return;
	for (uint32_t i = 0; i < 4096; i++)
		idx[i] = (i * 2654435761u + (uint32_t) y) % n;
	sl_pack_indices(idx, 4096, bits, spanning, longs);
	tag(b, SL_TAG_LONG_ARRAY, modern ? "data" : "BlockStates");
	sl_buf_put_u32be(b, sl_packed_longs(4096, bits, spanning), NULL);
	sl_buf_put(b, longs, (size_t) sl_packed_longs(4096, bits, spanning) * 8, NULL);
}

static void
block_entity(sl_buf *b, int x, int y, int z)
{
	str(b, "id", "minecraft:chest");
	i32(b, "x", x);
	i32(b, "y", y);
	i32(b, "z", z);
	sl_buf_put_u8(b, 0, NULL);
}

/* The fixed world: four chunks of four eras. */
static void
build_world(void)
{
	sl_buf		c[4] = {{0}};
	sl_chunk_src src[4];
	sl_err		err;

	/* (0,0): 1.18+ */
	tag(&c[0], SL_TAG_COMPOUND, "");
	i32(&c[0], "DataVersion", 3700);
	tag(&c[0], SL_TAG_BYTE, "isLightOn");
	sl_buf_put_u8(&c[0], 1, NULL);
	tag(&c[0], SL_TAG_LIST, "sections");
	sl_buf_put_u8(&c[0], SL_TAG_COMPOUND, NULL);
	sl_buf_put_u32be(&c[0], 3, NULL);
	for (int y = -1; y <= 1; y++)
	{
		tag(&c[0], SL_TAG_BYTE, "Y");
		sl_buf_put_u8(&c[0], (uint8_t) y, NULL);
		tag(&c[0], SL_TAG_COMPOUND, "block_states");
		section_states(&c[0], 1, 0, y == -1 ? 1 : y == 0 ? 5 : 20, y);
		sl_buf_put_u8(&c[0], 0, NULL);
		sl_buf_put_u8(&c[0], 0, NULL);
	}
	tag(&c[0], SL_TAG_LIST, "block_entities");
	sl_buf_put_u8(&c[0], SL_TAG_COMPOUND, NULL);
	sl_buf_put_u32be(&c[0], 1, NULL);
	block_entity(&c[0], 1, 2, 3);
	sl_buf_put_u8(&c[0], 0, NULL);
	/* (1,0) 1.15 spanning and (0,1) 1.16 aligned: Level.Sections Y=0..1 */
	for (int k = 1; k <= 2; k++)
	{
		tag(&c[k], SL_TAG_COMPOUND, "");
		i32(&c[k], "DataVersion", k == 1 ? 2230 : 2586);
		tag(&c[k], SL_TAG_COMPOUND, "Level");
		tag(&c[k], SL_TAG_LIST, "Sections");
		sl_buf_put_u8(&c[k], SL_TAG_COMPOUND, NULL);
		sl_buf_put_u32be(&c[k], 2, NULL);
		for (int y = 0; y <= 1; y++)
		{
			tag(&c[k], SL_TAG_BYTE, "Y");
			sl_buf_put_u8(&c[k], (uint8_t) y, NULL);
			section_states(&c[k], 0, k == 1, y ? 40 : 3, y);
			sl_buf_put_u8(&c[k], 0, NULL);
		}
		tag(&c[k], SL_TAG_LIST, "TileEntities");
		sl_buf_put_u8(&c[k], SL_TAG_COMPOUND, NULL);
		sl_buf_put_u32be(&c[k], 1, NULL);
		block_entity(&c[k], k == 1 ? 20 : 4, 5, k == 1 ? 6 : 22);
		sl_buf_put_u8(&c[k], 0, NULL);
		sl_buf_put_u8(&c[k], 0, NULL);
	}
	/* (1,1): pre-1.13 */
	{
		uint8_t		blocks[4096],
					data[2048];

		memset(blocks, 1, sizeof(blocks));
		memset(data, 0x21, sizeof(data));
		tag(&c[3], SL_TAG_COMPOUND, "");
		tag(&c[3], SL_TAG_COMPOUND, "Level");
		tag(&c[3], SL_TAG_LIST, "Sections");
		sl_buf_put_u8(&c[3], SL_TAG_COMPOUND, NULL);
		sl_buf_put_u32be(&c[3], 1, NULL);
		tag(&c[3], SL_TAG_BYTE, "Y");
		sl_buf_put_u8(&c[3], 0, NULL);
		tag(&c[3], SL_TAG_BYTE_ARRAY, "Blocks");
		sl_buf_put_u32be(&c[3], 4096, NULL);
		sl_buf_put(&c[3], blocks, 4096, NULL);
		tag(&c[3], SL_TAG_BYTE_ARRAY, "Data");
		sl_buf_put_u32be(&c[3], 2048, NULL);
		sl_buf_put(&c[3], data, 2048, NULL);
		sl_buf_put_u8(&c[3], 0, NULL);
		sl_buf_put_u8(&c[3], 0, NULL);
		sl_buf_put_u8(&c[3], 0, NULL);
	}
	memset(src, 0, sizeof(src));
	for (int k = 0; k < 4; k++)
	{
		src[k].x = k & 1;
		src[k].z = k >> 1;
		src[k].data_version = sl_data_version(c[k].data, c[k].len, NULL);
		src[k].comp[SL_COMP_REGION] = c[k].data;
		src[k].len[SL_COMP_REGION] = (uint32_t) c[k].len;
	}
	FUZZ_CHECK(sl_value_encode(src, 4, NULL, 0, NULL, &fuzz_limits, &world, &err) == 0,
			   "fixed world: %s", err.msg);
	for (int k = 0; k < 4; k++)
		sl_buf_free(&c[k]);
}

/* A pasted world: verified, every chunk decodable; small boxes extract back to the schematic. */
static void
check_pasted(const sl_buf *val, const sl_schem *s, int32_t x, int32_t y, int32_t z)
{
	sl_value	v;
	sl_err		err;

	FUZZ_CHECK(sl_value_verify(val->data, val->len, &fuzz_limits, &err) == 0,
			   "pasted value fails its check: %s", err.msg);
	FUZZ_CHECK(sl_value_open_mem(&v, val->data, val->len, &fuzz_limits, &err) == 0, "open: %s", err.msg);
	for (uint32_t i = 0; i < v.hdr.chunk_count; i++)
	{
		sl_dirent	d;
		const uint8_t *comp[SL_NCOMP];
		sl_arena	a = {0};
		sl_chunk_blocks cb;

		FUZZ_CHECK(sl_value_chunk(&v, i, &d, comp, &err) == 0, "chunk: %s", err.msg);
		FUZZ_CHECK(sl_chunk_blocks_open(comp[0], d.len[0], d.data_version, SL_WANT_BLOCKS,
										&fuzz_limits, &a, &cb, &err) == 0,
				   "pasted chunk (%d,%d) does not decode: %s", d.x, d.z, err.msg);
		for (int k = 0; k < cb.nsections; k++)
		{
			uint32_t	counts[SL_MAX_PALETTE];

			if (cb.sections[k].kind != SL_SEC_PALETTE)
				continue;
			memset(counts, 0, sizeof(counts));
			FUZZ_CHECK(sl_section_count(&cb, k, counts, &err) == 0,
					   "pasted chunk (%d,%d) section %d: %s", d.x, d.z, cb.sections[k].y, err.msg);
		}
		sl_arena_free(&a);
	}
	if (s->volume <= 4096)
	{
		sl_buf		out = {0};
		sl_schem	back;
		uint32_t	ra[64],
					rb[64];

		FUZZ_CHECK(sl_schem_extract(&v, x, y, z, (int32_t) (x + s->width - 1),
									(int32_t) (y + s->height - 1), (int32_t) (z + s->length - 1), 3,
									&fuzz_limits, &out, &err) == 0, "extract: %s", err.msg);
		FUZZ_CHECK(sl_schem_read(out.data, out.len, &fuzz_limits, &back, &err) == 0,
				   "extracted schematic does not read: %s", err.msg);
		FUZZ_CHECK(back.volume == s->volume && back.nbe == s->nbe,
				   "extracted %llu blocks / %u block entities, pasted %llu / %u",
				   (unsigned long long) back.volume, back.nbe, (unsigned long long) s->volume, s->nbe);
		for (uint64_t i = 0; i < s->volume; i += 64)
		{
			uint32_t	n = s->volume - i < 64 ? (uint32_t) (s->volume - i) : 64;

			FUZZ_CHECK(sl_schem_run(s, i, n, ra, &err) == 0 && sl_schem_run(&back, i, n, rb, &err) == 0,
					   "run: %s", err.msg);
			for (uint32_t k = 0; k < n; k++)
			{
				const sl_schem_state *p = &s->palette[ra[k]];
				const sl_schem_state *q = &back.palette[rb[k]];
				int			same = p->canon_len == q->canon_len && memcmp(p->canon, q->canon, p->canon_len) == 0;

				/* an air variant over a missing chunk or section reads back as air */
				FUZZ_CHECK(same || (p->air && q->air), "block %llu: pasted %.*s, extracted %.*s",
						   (unsigned long long) (i + k), (int) p->canon_len, p->canon,
						   (int) q->canon_len, q->canon);
			}
		}
		sl_schem_free(&back);
		sl_buf_free(&out);
	}
	sl_value_close(&v);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sl_schem	s;
	sl_value	v;
	sl_builder	b;
	sl_buf		out = {0};
	sl_err		err;
	int32_t		x,
				y,
				z;
	uint32_t	run[64];

	if (world.len == 0)
		build_world();
	if (size < 3)
		return 0;
	x = (int32_t) (data[0] % 48) - 8;
	y = (int32_t) (data[1] % 64) - 24;
	z = (int32_t) (data[2] % 48) - 8;
	data += 3;
	size -= 3;
	{
		uint8_t    *copy = fuzz_dup(data, size);

		if (sl_schem_read(copy, size, &fuzz_limits, &s, &err))
		{
			fuzz_check_err(&err);
			sl_schem_free(&s);
			free(copy);
			sl_release_caches();
			return 0;
		}
		free(copy);
	}
	/* every entry (the first 64 Ki) names a palette state */
	for (uint64_t i = 0; i < s.volume && i < 65536; i += 64)
	{
		uint32_t	n = s.volume - i < 64 ? (uint32_t) (s.volume - i) : 64;

		FUZZ_CHECK(sl_schem_run(&s, i, n, run, &err) == 0, "run after a good read: %s", err.msg);
		for (uint32_t k = 0; k < n; k++)
			FUZZ_CHECK(run[k] < s.npalette && s.palette[run[k]].node != NULL, "entry %u out of the palette", run[k]);
	}
	memset(&b, 0, sizeof(b));
	FUZZ_CHECK(sl_value_open_mem(&v, world.data, world.len, &fuzz_limits, &err) == 0, "world: %s", err.msg);
	if (sl_schem_paste(&v, &s, x, y, z, &fuzz_limits, &b, &err) == 0)
	{
		if (sl_builder_encode(&b, NULL, &fuzz_limits, &out, &err) == 0)
			check_pasted(&out, &s, x, y, z);
		else
			fuzz_check_err(&err);
	}
	else
	{
		/* where the caller asked to paste may not fit the world: that is SL_ERR_INVALID */
		if (err.code != SL_ERR_INVALID)
			fuzz_check_err(&err);
		fuzz_check_any_err(&err);
	}
	sl_value_close(&v);
	sl_builder_free(&b);
	sl_buf_free(&out);
	sl_schem_free(&s);
	sl_release_caches();
	return 0;
}
