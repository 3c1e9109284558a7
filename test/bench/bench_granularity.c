/*
 * bench_granularity.c - what a SECTION-level chunk store would hold, from
 * the entries a chunk-level store holds (test/bench/bench_store.sh, part 4).
 *
 * Input: the binary COPY of `SELECT hash, data FROM slime_store` (one row
 * per distinct chunk: its SHA-256 and one zstd frame of u32le region_len,
 * entities_len, poi_len and those documents; src/core/sl_store.h). Every
 * entry is decompressed and its SHA-256 checked against its key. Then:
 *
 *   chunk level    every entry recompressed as the store does it
 *                  (sl_zstd_frame: one checksummed frame, level L), to show
 *                  that the recomputation matches what the store holds;
 *   section level  the items of the chunk's section list ("sections" at the
 *                  root, 1.18+; "Sections" under "Level" before) each as a
 *                  document of its own (sl_nbt_write_as_root), plus a
 *                  remainder: the entry with that list emptied, the 32-byte
 *                  SHA-256 of each of its sections appended to the region
 *                  document (what the remainder would refer to them by),
 *                  the entities and POI documents unchanged. Distinct
 *                  sections and distinct remainders (by SHA-256) are each
 *                  compressed on their own with sl_zstd_frame at level L.
 *
 * Section identity includes the section's own Y tag, as a store keyed by
 * the section bytes would. A chunk without a section list is a remainder
 * alone. The program also rewrites every parsed region document with
 * sl_nbt_write and counts those that do not come back byte for byte (the
 * split is measured on the tree, so they would be split as rewritten).
 *
 * Output: "key value" lines for bench_store.sh to format. Exit status 0,
 * or 2 when the input cannot be read or an entry is damaged.
 *
 * Usage: bench_granularity [--level L] STORE_COPY_FILE   (L: default 3)
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nettle/sha2.h>

#include "sl_chunk.h"
#include "sl_nbt.h"
#include "sl_store.h"
#include "sl_zstd.h"

#define CORPUS_PROG "bench_granularity"
#include "corpus_util.h"

static void
sha256(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen, uint8_t out[32])
{
	struct sha256_ctx ctx;

	sha256_init(&ctx);
	sha256_update(&ctx, alen, a);
	if (blen)
		sha256_update(&ctx, blen, b);
	sha256_digest(&ctx, 32, out);
}

/* ------------------------------------------------ a set of SHA-256 keys */

typedef struct hset
{
	uint8_t    *keys;			/* cap * 32 bytes */
	char	   *used;
	size_t		cap,
				n;
} hset;

static int	hset_add(hset *s, const uint8_t key[32]);

static void
hset_grow(hset *s)
{
	hset		t = {0};

	t.cap = s->cap ? s->cap * 2 : 1 << 16;
	t.keys = xrealloc(NULL, t.cap * 32);
	t.used = calloc(t.cap, 1);
	if (t.used == NULL)
		die("out of memory");
	for (size_t i = 0; i < s->cap; i++)
		if (s->used[i])
			hset_add(&t, s->keys + i * 32);
	free(s->keys);
	free(s->used);
	*s = t;
}

/* Add key; 1 when it was new. */
static int
hset_add(hset *s, const uint8_t key[32])
{
	size_t		i;
	uint64_t	h;

	if (2 * (s->n + 1) > s->cap)
		hset_grow(s);
	memcpy(&h, key, 8);
	for (i = h & (s->cap - 1); s->used[i]; i = (i + 1) & (s->cap - 1))
		if (memcmp(s->keys + i * 32, key, 32) == 0)
			return 0;
	s->used[i] = 1;
	memcpy(s->keys + i * 32, key, 32);
	s->n++;
	return 1;
}

/* --------------------------------------------------------- COPY input */

static FILE *in;
static const char *in_path;

static void
read_exact(void *dst, size_t n)
{
	if (fread(dst, 1, n, in) != n)
		die("%s: truncated binary COPY data", in_path);
}

static uint32_t
read_be32(void)
{
	uint8_t		b[4];

	read_exact(b, 4);
	return (uint32_t) b[0] << 24 | (uint32_t) b[1] << 16 | (uint32_t) b[2] << 8 | b[3];
}

static int
read_be16(void)
{
	uint8_t		b[2];

	read_exact(b, 2);
	return (int16_t) (b[0] << 8 | b[1]);
}

/* ---------------------------------------------------------------- main */

int
main(int argc, char **argv)
{
	int			level = 3;
	uint8_t		sig[11];
	uint8_t    *hash = NULL,
			   *data = NULL,
			   *raw = NULL;
	size_t		data_cap = 0,
				raw_cap = 0;
	hset		sections = {0},
				remainders = {0};
	sl_buf		doc = {0},
				rem = {0},
				frame = {0},
				hashes = {0};
	sl_err		err;
	double		entries = 0,
				entry_raw = 0,
				entry_stored = 0,
				chunk_z = 0,
				sec_items = 0,
				sec_raw = 0,
				sec_z = 0,
				rem_raw = 0,
				rem_z = 0,
				no_sections = 0,
				rewrite_diff = 0;

	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "--level") == 0 && i + 1 < argc)
			level = atoi(argv[++i]);
		else if (argv[i][0] != '-' && in_path == NULL)
			in_path = argv[i];
		else
		{
			fprintf(stderr, "usage: bench_granularity [--level L] STORE_COPY_FILE\n");
			return 2;
		}
	}
	if (in_path == NULL)
	{
		fprintf(stderr, "usage: bench_granularity [--level L] STORE_COPY_FILE\n");
		return 2;
	}
	in = fopen(in_path, "rb");
	if (in == NULL)
		die("cannot open %s: %s", in_path, strerror(errno));
	read_exact(sig, 11);
	if (memcmp(sig, "PGCOPY\n\377\r\n\0", 11) != 0)
		die("%s is not a binary COPY file", in_path);
	(void) read_be32();			/* flags */
	for (uint32_t ext = read_be32(); ext > 0; ext--)
		(void) fgetc(in);

	for (;;)
	{
		int			nf = read_be16();
		uint32_t	hlen,
					dlen,
					len[SL_NCOMP];
		int64_t		rlen;
		uint8_t		h[32];
		sl_arena	arena = {0};
		sl_nbt	   *root = NULL;
		size_t		used;
		const sl_nbt *body;
		sl_nbt	   *list = NULL;

		if (nf == -1)
			break;
		if (nf != 2)
			die("%s: expected rows of (hash, data), found %d fields", in_path, nf);
		hlen = read_be32();
		if (hlen != 32)
			die("%s: a hash of %u bytes", in_path, hlen);
		hash = xrealloc(hash, 32);
		read_exact(hash, 32);
		dlen = read_be32();
		if (dlen == 0xFFFFFFFFu)
			die("%s: NULL data", in_path);
		if (dlen > data_cap)
			data = xrealloc(data, data_cap = dlen);
		read_exact(data, dlen);

		/* the entry: one checksummed frame, its SHA-256 its key */
		rlen = sl_zstd_declared_size(data, dlen);
		if (rlen < SL_ENTRY_HEADER)
			die("entry %.0f: not a zstd frame with a size", entries);
		if ((size_t) rlen > raw_cap)
			raw = xrealloc(raw, raw_cap = (size_t) rlen);
		if (sl_zstd_unframe(data, dlen, raw, (size_t) rlen, &err))
			die("entry %.0f: %s", entries, err.msg);
		sha256(raw, (size_t) rlen, NULL, 0, h);
		if (memcmp(h, hash, 32) != 0)
			die("entry %.0f: its bytes do not match its key", entries);
		for (int k = 0; k < SL_NCOMP; k++)
			len[k] = sl_get_u32le(raw + 4 * k);
		if ((uint64_t) SL_ENTRY_HEADER + len[0] + len[1] + len[2] != (uint64_t) rlen)
			die("entry %.0f: lengths do not add up", entries);
		entries++;
		entry_raw += (double) rlen;
		entry_stored += dlen;
		frame.len = 0;
		if (sl_zstd_frame(raw, (size_t) rlen, level, &frame, &err))
			die("zstd: %s", err.msg);
		chunk_z += frame.len;

		/* section level: the sections, then the remainder */
		rem.len = 0;
		hashes.len = 0;
		if (len[0] > 0)
		{
			const uint8_t *rdoc = raw + SL_ENTRY_HEADER;

			if (sl_nbt_parse(rdoc, len[0], NULL, &arena, &root, &used, &err))
				die("entry %.0f: region document: %s", entries, err.msg);
			doc.len = 0;
			if (sl_nbt_write(root, &doc, &err))
				die("entry %.0f: rewrite: %s", entries, err.msg);
			rewrite_diff += doc.len != len[0] || memcmp(doc.data, rdoc, len[0]) != 0;
			body = sl_chunk_body(root);
			list = (sl_nbt *) sl_nbt_child(body, "sections");
			if (list == NULL)
				list = (sl_nbt *) sl_nbt_child(body, "Sections");
			if (list != NULL && (list->type != SL_TAG_LIST ||
								 (list->v.list.count > 0 && list->v.list.elem_type != SL_TAG_COMPOUND)))
				list = NULL;
			if (list == NULL || list->v.list.count == 0)
				no_sections++;
			if (list != NULL)
			{
				uint32_t	cnt = list->v.list.count;

				for (uint32_t i = 0; i < cnt; i++)
				{
					doc.len = 0;
					if (sl_nbt_write_as_root(list->v.list.items[i], &doc, &err))
						die("entry %.0f: section %u: %s", entries, i, err.msg);
					sha256(doc.data, doc.len, NULL, 0, h);
					if (sl_buf_put(&hashes, h, 32, &err))
						die("%s", err.msg);
					sec_items++;
					if (hset_add(&sections, h))
					{
						sec_raw += doc.len;
						frame.len = 0;
						if (sl_zstd_frame(doc.data, doc.len, level, &frame, &err))
							die("zstd: %s", err.msg);
						sec_z += frame.len;
					}
				}
				list->v.list.count = 0;
				doc.len = 0;
				if (sl_nbt_write(root, &doc, &err))
					die("entry %.0f: remainder: %s", entries, err.msg);
				list->v.list.count = cnt;
			}
			else
			{
				doc.len = 0;
				if (sl_buf_put(&doc, rdoc, len[0], &err))
					die("%s", err.msg);
			}
		}
		else
			doc.len = 0;
		{
			uint8_t		head[SL_ENTRY_HEADER];

			sl_put_u32le(head, (uint32_t) (doc.len + hashes.len));
			sl_put_u32le(head + 4, len[1]);
			sl_put_u32le(head + 8, len[2]);
			if (sl_buf_put(&rem, head, SL_ENTRY_HEADER, &err) ||
				(doc.len && sl_buf_put(&rem, doc.data, doc.len, &err)) ||
				(hashes.len && sl_buf_put(&rem, hashes.data, hashes.len, &err)) ||
				(len[1] + len[2] && sl_buf_put(&rem, raw + SL_ENTRY_HEADER + len[0],
											   len[1] + len[2], &err)))
				die("%s", err.msg);
		}
		sha256(rem.data, rem.len, NULL, 0, h);
		if (hset_add(&remainders, h))
		{
			rem_raw += rem.len;
			frame.len = 0;
			if (sl_zstd_frame(rem.data, rem.len, level, &frame, &err))
				die("zstd: %s", err.msg);
			rem_z += frame.len;
		}
		sl_arena_free(&arena);
	}

	printf("level %d\n", level);
	printf("entries %.0f\n", entries);
	printf("entry_raw %.0f\n", entry_raw);
	printf("entry_stored %.0f\n", entry_stored);
	printf("chunk_zstd %.0f\n", chunk_z);
	printf("section_items %.0f\n", sec_items);
	printf("sections_distinct %zu\n", sections.n);
	printf("sections_raw %.0f\n", sec_raw);
	printf("sections_zstd %.0f\n", sec_z);
	printf("remainders_distinct %zu\n", remainders.n);
	printf("remainders_raw %.0f\n", rem_raw);
	printf("remainders_zstd %.0f\n", rem_z);
	printf("chunks_without_sections %.0f\n", no_sections);
	printf("rewrite_differs %.0f\n", rewrite_diff);

	fclose(in);
	free(hash);
	free(data);
	free(raw);
	free(sections.keys);
	free(sections.used);
	free(remainders.keys);
	free(remainders.used);
	sl_buf_free(&doc);
	sl_buf_free(&rem);
	sl_buf_free(&frame);
	sl_buf_free(&hashes);
	sl_release_caches();
	return 0;
}
