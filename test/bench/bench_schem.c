/*
 * bench_schem.c - box snapshots at arena scale, in the core library: a
 * 24x24-chunk 1.18+ world built from the fully generated chunks of a corpus
 * region, its full-height box (-64..319, 56,623,104 blocks) extracted as a
 * Sponge v3 schematic, the world modified, and the snapshot pasted back.
 *
 * Baseline, measured in the same run: decompressing the same value (every
 * chunk read through sl_value_chunk, zstd checksums checked) - the least any
 * restore that reads and rewrites the world must do. Each figure is the best
 * of BENCH_RUNS runs (default 3). The restore is checked (extracting the box
 * again gives the snapshot byte for byte) but nothing fails on a number.
 *
 * Usage: bench_schem [--write-world FILE] [REGION_FILE]
 *   --write-world: only build the arena and write its value to FILE (for
 *   the SQL half of test/bench/bench_schem.sh)
 *   default: $SLIME_CORPUS/anvil-1.18plus/querz-nbt/parsers/r.0.0.mca
 *   (vanilla 1.18.2 terrain; its 154 "full" chunks are tiled over the
 *   24x24 grid, each moved to its place: xPos/zPos, block entities)
 */
#define CORPUS_PROG "bench_schem"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sl_build.h"
#include "sl_chunk.h"
#include "sl_region.h"
#include "sl_schem.h"
#include "sl_value.h"

#include "corpus_util.h"

#define SIDE	24				/* chunks per side of the arena */
#define YMIN	(-64)
#define YMAX	319

static int	runs = 3;

/* Is a chunk fully generated (root or Level Status full)? */
static int
is_full(const uint8_t *nbt, size_t len)
{
	sl_arena	a = {0};
	sl_nbt	   *root;
	size_t		used;
	sl_err		err;
	int			full = 0;

	if (sl_nbt_parse(nbt, len, NULL, &a, &root, &used, &err) == 0)
	{
		uint16_t	n;
		const char *s = sl_nbt_get_string(sl_chunk_body(root), "Status", &n);

		full = s && ((n == 4 && memcmp(s, "full", 4) == 0) ||
					 (n == 14 && memcmp(s, "minecraft:full", 14) == 0));
	}
	sl_arena_free(&a);
	return full;
}

/*
 * Chunk c moved to (gx, gz): xPos/zPos and block entity x/z follow it, so
 * that the tiled arena is coherent (each block entity inside its chunk).
 */
static uint8_t *
relocate(const sl_region_chunk *c, int32_t gx, int32_t gz, size_t *len)
{
	sl_arena	a = {0};
	sl_nbt	   *root;
	sl_nbt	   *body;
	const sl_nbt *bes;
	size_t		used;
	sl_err		err;
	sl_buf		out = {0};
	int64_t		dx = (int64_t) (gx - c->x) * 16,
				dz = (int64_t) (gz - c->z) * 16;

	if (sl_nbt_parse(c->nbt, c->nbt_len, NULL, &a, &root, &used, &err))
		die("chunk (%d,%d): %s", c->x, c->z, err.msg);
	body = (sl_nbt *) sl_chunk_body(root);
	for (uint32_t i = 0; i < body->v.comp.count; i++)
	{
		sl_nbt	   *t = body->v.comp.items[i];

		if (t->type == SL_TAG_INT && t->name_len == 4 && memcmp(t->name, "xPos", 4) == 0)
			t->v.i = gx;
		if (t->type == SL_TAG_INT && t->name_len == 4 && memcmp(t->name, "zPos", 4) == 0)
			t->v.i = gz;
	}
	bes = sl_chunk_block_entities(root);
	for (uint32_t i = 0; bes && bes->v.list.elem_type == SL_TAG_COMPOUND && i < bes->v.list.count; i++)
	{
		sl_nbt	   *e = bes->v.list.items[i];

		for (uint32_t j = 0; j < e->v.comp.count; j++)
		{
			sl_nbt	   *t = e->v.comp.items[j];

			if (t->type == SL_TAG_INT && t->name_len == 1 && t->name[0] == 'x')
				t->v.i = (int32_t) (t->v.i + dx);
			if (t->type == SL_TAG_INT && t->name_len == 1 && t->name[0] == 'z')
				t->v.i = (int32_t) (t->v.i + dz);
		}
	}
	if (sl_nbt_write(root, &out, &err))
		die("write: %s", err.msg);
	sl_arena_free(&a);
	*len = out.len;
	return out.data;
}

typedef struct timing
{
	double		best;
	double		sum;
	int			n;
} timing;

static void
tick(timing *t, double s)
{
	if (t->n == 0 || s < t->best)
		t->best = s;
	t->sum += s;
	t->n++;
}

/* Decompress every chunk of a value (the baseline). */
static double
decompress_all(const sl_buf *val, uint64_t *bytes)
{
	sl_value	v;
	sl_err		err;
	double		t0 = corpus_now();

	*bytes = 0;
	if (sl_value_open_mem(&v, val->data, val->len, NULL, &err))
		die("open: %s", err.msg);
	for (uint32_t i = 0; i < v.hdr.chunk_count; i++)
	{
		sl_dirent	d;
		const uint8_t *comp[SL_NCOMP];

		if (sl_value_chunk(&v, i, &d, comp, &err))
			die("chunk: %s", err.msg);
		*bytes += d.len[0] + d.len[1] + d.len[2];
	}
	sl_value_close(&v);
	return corpus_now() - t0;
}

static double
extract(const sl_buf *val, sl_buf *out)
{
	sl_value	v;
	sl_err		err;
	double		t0 = corpus_now();

	out->len = 0;
	if (sl_value_open_mem(&v, val->data, val->len, NULL, &err) ||
		sl_schem_extract(&v, 0, YMIN, 0, SIDE * 16 - 1, YMAX, SIDE * 16 - 1, 3, NULL, out, &err))
		die("extract: %s", err.msg);
	sl_value_close(&v);
	return corpus_now() - t0;
}

/* Paste: read, rewrite chunks, encode; the three parts timed. */
static double
paste(const sl_buf *val, const uint8_t *file, size_t len, int32_t x, int32_t y, int32_t z,
	  sl_buf *out, double part[3])
{
	sl_value	v;
	sl_schem	s;
	sl_builder	b;
	sl_err		err;
	double		t0 = corpus_now(),
				t1,
				t2;

	memset(&b, 0, sizeof(b));
	out->len = 0;
	if (sl_schem_read(file, len, NULL, &s, &err))
		die("read: %s", err.msg);
	t1 = corpus_now();
	if (sl_value_open_mem(&v, val->data, val->len, NULL, &err) ||
		sl_schem_paste(&v, &s, x, y, z, NULL, &b, &err))
		die("paste: %s", err.msg);
	t2 = corpus_now();
	if (sl_builder_encode(&b, NULL, NULL, out, &err))
		die("encode: %s", err.msg);
	part[0] = t1 - t0;
	part[1] = t2 - t1;
	part[2] = corpus_now() - t2;
	sl_value_close(&v);
	sl_builder_free(&b);
	sl_schem_free(&s);
	return corpus_now() - t0;
}

/* A schematic of stone, w x h x l, as plain NBT (the "game" that changes the arena). */
static void
stone_box(sl_buf *b, int w, int h, int l)
{
	size_t		n = (size_t) w * h * l;

	b->len = 0;
	sl_buf_put(b, "\x0a\x00\x09Schematic", 12, NULL);
	sl_buf_put(b, "\x03\x00\x07Version\x00\x00\x00\x02", 14, NULL);
	sl_buf_put(b, "\x02\x00\x05Width", 8, NULL);
	sl_buf_put_u16be(b, (uint16_t) w, NULL);
	sl_buf_put(b, "\x02\x00\x06Height", 9, NULL);
	sl_buf_put_u16be(b, (uint16_t) h, NULL);
	sl_buf_put(b, "\x02\x00\x06Length", 9, NULL);
	sl_buf_put_u16be(b, (uint16_t) l, NULL);
	sl_buf_put(b, "\x0a\x00\x07Palette", 10, NULL);
	sl_buf_put(b, "\x03\x00\x0fminecraft:stone\x00\x00\x00\x00", 22, NULL);
	sl_buf_put(b, "\x03\x00\x0dminecraft:air\x00\x00\x00\x01", 20, NULL);
	sl_buf_put_u8(b, 0, NULL);
	sl_buf_put(b, "\x07\x00\x09" "BlockData", 12, NULL);
	sl_buf_put_u32be(b, (uint32_t) n, NULL);
	sl_buf_reserve(b, n, NULL);
	for (size_t i = 0; i < n; i++)
		b->data[b->len++] = (uint8_t) ((i % 7) == 0);	/* stone with air pockets */
	sl_buf_put_u8(b, 0, NULL);
}

int
main(int argc, char **argv)
{
	const char *env = getenv("SLIME_CORPUS");
	char		path[4096];
	size_t		len;
	uint8_t    *file;
	sl_region	r;
	sl_err		err;
	int32_t		rx,
				rz;
	int		   *full;
	int			nfull = 0;
	sl_chunk_src *src;
	uint8_t   **tiles;
	sl_buf		world = {0},
				changed = {0},
				restored = {0},
				snap = {0},
				again = {0},
				game = {0};
	timing		t_dec = {0},
				t_ext = {0},
				t_paste = {0};
	double		parts[3] = {0, 0, 0},
				best_parts[3] = {0, 0, 0};
	uint64_t	raw = 0;
	const char *write_to = NULL;
	const uint64_t blocks = (uint64_t) SIDE * 16 * SIDE * 16 * (YMAX - YMIN + 1);

	if (argc > 2 && strcmp(argv[1], "--write-world") == 0)
	{
		write_to = argv[2];
		argc -= 2;
		argv += 2;
	}
	if (getenv("BENCH_RUNS"))
		runs = atoi(getenv("BENCH_RUNS")) > 0 ? atoi(getenv("BENCH_RUNS")) : 1;
	if (argc > 1)
		snprintf(path, sizeof(path), "%s", argv[1]);
	else
		snprintf(path, sizeof(path), "%s/anvil-1.18plus/querz-nbt/parsers/r.0.0.mca",
				 env && *env ? env : "../shared/corpus");
	file = corpus_read_file(path, &len);
	if (file == NULL)
		die("*** CORPUS MISSING: cannot read %s (set SLIME_CORPUS) ***", path);
	corpus_region_coords(path, &rx, &rz);
	memset(&r, 0, sizeof(r));
	if (sl_region_read(file, len, rx, rz, NULL, 0, 0, NULL, &r, &err))
		die("%s: %s", path, err.msg);
	full = xmalloc(sizeof(int) * (size_t) (r.nchunks + 1));
	for (int i = 0; i < r.nchunks; i++)
		if (is_full(r.chunks[i].nbt, r.chunks[i].nbt_len))
			full[nfull++] = i;
	if (nfull == 0)
		die("%s holds no fully generated chunk", path);
	/* the arena: 24 x 24 chunks, the full chunks tiled in order */
	src = xmalloc(sizeof(sl_chunk_src) * SIDE * SIDE);
	memset(src, 0, sizeof(sl_chunk_src) * SIDE * SIDE);
	tiles = xmalloc(sizeof(uint8_t *) * SIDE * SIDE);
	for (int k = 0; k < SIDE * SIDE; k++)
	{
		sl_region_chunk *c = &r.chunks[full[k % nfull]];
		size_t		n;

		src[k].x = k % SIDE;
		src[k].z = k / SIDE;
		tiles[k] = relocate(c, src[k].x, src[k].z, &n);
		src[k].data_version = sl_data_version(tiles[k], n, NULL);
		src[k].comp[SL_COMP_REGION] = tiles[k];
		src[k].len[SL_COMP_REGION] = (uint32_t) n;
		raw += n;
	}
	if (sl_value_encode(src, SIDE * SIDE, NULL, 0, NULL, NULL, &world, &err))
		die("encode: %s", err.msg);
	printf("bench_schem: %dx%d chunks, y %d..%d = %llu blocks; world from the %d fully generated chunks of %s "
		   "(DataVersion %d), %.1f MB of chunk NBT, value %.2f MB; best of %d runs\n",
		   SIDE, SIDE, YMIN, YMAX, (unsigned long long) blocks, nfull, path + (strstr(path, "corpus/") ? strstr(path, "corpus/") - path + 7 : 0),
		   src[0].data_version, raw / 1e6, world.len / 1e6, runs);
	if (write_to)
	{
		FILE	   *f = fopen(write_to, "wb");

		if (f == NULL || fwrite(world.data, 1, world.len, f) != world.len || fclose(f) != 0)
			die("cannot write %s", write_to);
		printf("world value written to %s\n", write_to);
		return 0;
	}
	/* the game changes the arena: a 200x60x200 box of stone at y=40 */
	stone_box(&game, 200, 60, 200);
	paste(&world, game.data, game.len, 90, 40, 90, &changed, parts);
	for (int i = 0; i < runs; i++)
	{
		uint64_t	bytes;

		tick(&t_dec, decompress_all(&world, &bytes));
		tick(&t_ext, extract(&world, &snap));
		{
			double		s = paste(&changed, snap.data, snap.len, 0, YMIN, 0, &restored, parts);

			if (t_paste.n == 0 || s < t_paste.best)
				memcpy(best_parts, parts, sizeof(parts));
			tick(&t_paste, s);
		}
	}
	/* the restore is the original box again */
	{
		extract(&restored, &again);
		printf("snapshot: Sponge v3, %.2f MB gzip; after the restore the box extracts to the same bytes: %s\n",
			   snap.len / 1e6, again.len == snap.len && memcmp(again.data, snap.data, snap.len) == 0 ? "yes" : "NO");
	}
	printf("\n%-44s %10s %14s %14s\n", "operation", "best s", "blocks/s", "x decompress");
	printf("%-44s %10.3f %14.0f %14.2f\n", "decompress the value (baseline)", t_dec.best, blocks / t_dec.best, 1.0);
	printf("%-44s %10.3f %14.0f %14.2f\n", "extract the box (snapshot, Sponge v3 gzip)", t_ext.best,
		   blocks / t_ext.best, t_ext.best / t_dec.best);
	printf("%-44s %10.3f %14.0f %14.2f\n", "paste the snapshot (restore)", t_paste.best,
		   blocks / t_paste.best, t_paste.best / t_dec.best);
	printf("%-44s %10.3f\n", "  of which: read and check the schematic", best_parts[0]);
	printf("%-44s %10.3f\n", "            rewrite the 576 chunks", best_parts[1]);
	printf("%-44s %10.3f\n", "            encode the new value (zstd)", best_parts[2]);
	printf("%-44s %10s\n", "Gaia: restore of 24x24 chunks (56,623,104", "< 2.5");
	printf("%-44s\n", "  blocks) in game, Ryzen 9 5900X, file IO");
	sl_region_free(&r);
	free(file);
	free(full);
	for (int k = 0; k < SIDE * SIDE; k++)
		sl_free(tiles[k]);
	free(tiles);
	free(src);
	sl_buf_free(&world);
	sl_buf_free(&changed);
	sl_buf_free(&restored);
	sl_buf_free(&snap);
	sl_buf_free(&again);
	sl_buf_free(&game);
	return 0;
}
