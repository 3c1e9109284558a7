/*
 * corpus_test.c - import, check and round-trip every region file of the
 * shared corpus through the core library, and report per-era figures.
 *
 * For each .mca/.mcr file: read it (strict, or lenient under damaged/),
 * encode a slime value, verify it, export its chunks back to a region file
 * in each compression type, read that again and require (1) the same chunk
 * NBT bytes and timestamps and (2) a byte-identical value when re-imported.
 * Timing compares import (read + encode) against merely inflating the same
 * chunk payloads, measured in the same run.
 *
 * Usage: corpus_test [CORPUS_DIR]   (default $SLIME_CORPUS or ../shared/corpus)
 */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sl_build.h"
#include "sl_codec.h"
#include "sl_region.h"
#include "sl_value.h"

#include "corpus_util.h"
#include "summary_check.h"

#define MAX_ERAS 16

typedef struct era_stats
{
	char		name[64];
	int			files;
	int			files_failed;
	long		chunks;
	long		identical;
	long		skipped;
	long		repaired;
	double		mca_bytes;
	double		payload_bytes;
	double		stored_bytes;
	double		raw_bytes;
	double		import_s;
	double		inflate_s;
} era_stats;

static era_stats eras[MAX_ERAS];
static int	neras;
static const char *corpus_root;
static int	passed,
			failed;

/* Stats slot of the era named by the first path component under the corpus. */
static era_stats *
era_for(const char *path)
{
	const char *rel = path + strlen(corpus_root);
	char		name[64];
	size_t		n;

	while (*rel == '/')
		rel++;
	n = strcspn(rel, "/");
	if (n >= sizeof(name))
		n = sizeof(name) - 1;
	memcpy(name, rel, n);
	name[n] = '\0';
	for (int i = 0; i < neras; i++)
		if (strcmp(eras[i].name, name) == 0)
			return &eras[i];
	if (neras == MAX_ERAS)
		return &eras[MAX_ERAS - 1];
	snprintf(eras[neras].name, sizeof(eras[neras].name), "%s", name);
	return &eras[neras++];
}

/* Import one file as component kind into an encoded value. */
static int
import_file(const uint8_t *file, size_t len, int32_t rx, int32_t rz, int kind,
			int strict, sl_region *r, sl_buf *value, sl_err *err)
{
	sl_builder	b;
	int			rc;

	memset(&b, 0, sizeof(b));
	memset(r, 0, sizeof(*r));
	if (sl_region_read(file, len, rx, rz, NULL, 0, strict, NULL, r, err))
		return -1;
	/* keep r's chunks for comparison: hand the builder copies */
	for (int i = 0; i < r->nchunks; i++)
		if (sl_builder_add(&b, kind, r->chunks[i].x, r->chunks[i].z, r->chunks[i].timestamp,
						   r->chunks[i].nbt, r->chunks[i].nbt_len, 0, err))
		{
			sl_builder_free(&b);
			return -1;
		}
	rc = sl_builder_encode(&b, NULL, NULL, value, err);
	sl_builder_free(&b);
	return rc;
}

/* Export component kind of a value as a region file with a compression type. */
static int
export_value(const sl_buf *value, int32_t rx, int32_t rz, int kind, int compression,
			 sl_buf *out, sl_err *err)
{
	sl_value	v;
	sl_region_chunk *chunks = calloc(SL_REGION_SLOTS, sizeof(sl_region_chunk));
	sl_external *ext = NULL;
	int			next = 0,
				n = 0,
				rc = -1;

	if (sl_value_open_mem(&v, value->data, value->len, NULL, err))
		goto done;
	for (uint32_t i = 0; i < v.hdr.chunk_count; i++)
	{
		sl_dirent	d;
		const uint8_t *comp[SL_NCOMP];

		if (sl_value_chunk(&v, i, &d, comp, err))
			goto done;
		if (d.len[kind] == 0 || n == SL_REGION_SLOTS)
			continue;
		chunks[n].x = d.x;
		chunks[n].z = d.z;
		chunks[n].timestamp = d.timestamp;
		chunks[n].nbt = malloc(d.len[kind]);
		memcpy(chunks[n].nbt, comp[kind], d.len[kind]);
		chunks[n].nbt_len = d.len[kind];
		n++;
	}
	rc = sl_region_write(chunks, n, rx, rz, compression, out, &ext, &next, err);
	for (int i = 0; i < next; i++)
		sl_free((void *) ext[i].data);
	sl_free(ext);
done:
	for (int i = 0; i < n; i++)
		free(chunks[i].nbt);
	free(chunks);
	sl_value_close(&v);
	return rc;
}

/* Count chunks of a whose NBT and timestamp reappear unchanged in b. */
static long
count_identical(const sl_region *a, const sl_region *b)
{
	long		same = 0;

	for (int i = 0; i < a->nchunks; i++)
		for (int j = 0; j < b->nchunks; j++)
			if (a->chunks[i].x == b->chunks[j].x && a->chunks[i].z == b->chunks[j].z)
			{
				same += a->chunks[i].nbt_len == b->chunks[j].nbt_len &&
					a->chunks[i].timestamp == b->chunks[j].timestamp &&
					memcmp(a->chunks[i].nbt, b->chunks[j].nbt, a->chunks[i].nbt_len) == 0;
				break;
			}
	return same;
}

/* Round-trip one value through each compression type; 0 when all match. */
static int
round_trip(const char *path, const sl_region *orig, const sl_buf *value, int32_t rx,
		   int32_t rz, int kind, long *identical)
{
	static const int types[] = {2, 1, 3, 4};

	for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++)
	{
		sl_buf		file = {0},
					again = {0};
		sl_region	back;
		sl_err		err;
		long		same;
		int			bad = 0;

		if (export_value(value, rx, rz, kind, types[t], &file, &err) ||
			import_file(file.data, file.len, rx, rz, kind, 1, &back, &again, &err))
		{
			fprintf(stderr, "FAIL %s: round trip (type %d): %s\n", path, types[t], err.msg);
			sl_buf_free(&file);
			return -1;
		}
		same = count_identical(orig, &back);
		if (t == 0)
			*identical = same;
		if (same != orig->nchunks || back.nchunks != orig->nchunks)
		{
			fprintf(stderr, "FAIL %s: type %d: %ld of %d chunks identical\n", path, types[t], same, orig->nchunks);
			bad = 1;
		}
		if (again.len != value->len || memcmp(again.data, value->data, value->len) != 0)
		{
			fprintf(stderr, "FAIL %s: value re-imported from compression type %d is not byte-identical\n",
					path, types[t]);
			bad = 1;
		}
		sl_region_free(&back);
		sl_buf_free(&file);
		sl_buf_free(&again);
		if (bad)
			return -1;
	}
	return 0;
}

/* Test one region file and add its figures to its era. */
static void
test_file(const char *path)
{
	era_stats  *e = era_for(path);
	int			damaged = strcmp(e->name, "damaged") == 0;
	int			kind = strcmp(e->name, "entities-1.17plus") == 0 ? SL_COMP_ENTITIES :
		strcmp(e->name, "poi") == 0 ? SL_COMP_POI : SL_COMP_REGION;
	size_t		len;
	uint8_t    *file = corpus_read_file(path, &len);
	int32_t		rx,
				rz;
	sl_region	r;
	sl_buf		value = {0};
	sl_err		err;
	double		t0,
				payload,
				seconds;
	long		identical = 0;
	int			ok = 1;

	if (file == NULL)
	{
		fprintf(stderr, "FAIL %s: cannot read\n", path);
		failed++;
		return;
	}
	corpus_region_coords(path, &rx, &rz);
	e->files++;
	e->mca_bytes += len;
	corpus_inflate_only(file, len, &payload, &seconds);
	e->inflate_s += seconds;
	e->payload_bytes += payload;
	t0 = corpus_now();
	if (import_file(file, len, rx, rz, kind, !damaged, &r, &value, &err))
	{
		fprintf(stderr, "FAIL %s: import: %s\n", path, err.msg);
		ok = 0;
		memset(&r, 0, sizeof(r));
	}
	e->import_s += corpus_now() - t0;
	if (ok && sl_value_verify(value.data, value.len, NULL, &err))
	{
		fprintf(stderr, "FAIL %s: verify: %s\n", path, err.msg);
		ok = 0;
	}
	/* the contents summary: what the chunks decoded give, canonical */
	if (ok && summary_check(path, value.data, value.len))
		ok = 0;
	if (ok && round_trip(path, &r, &value, rx, rz, kind, &identical))
		ok = 0;
	for (int i = 0; i < r.nproblems; i++)
	{
		e->skipped += r.problems[i].skipped;
		e->repaired += !r.problems[i].skipped;
		printf("  note %s: chunk (%d,%d) %s: %s\n", path + strlen(corpus_root),
			   r.problems[i].x, r.problems[i].z, r.problems[i].skipped ? "skipped" : "repaired",
			   r.problems[i].msg);
	}
	e->chunks += r.nchunks;
	e->identical += identical;
	e->stored_bytes += value.len;
	for (int i = 0; i < r.nchunks; i++)
		e->raw_bytes += r.chunks[i].nbt_len;
	if (ok)
		passed++;
	else
	{
		failed++;
		e->files_failed++;
	}
	sl_region_free(&r);
	sl_buf_free(&value);
	free(file);
}

/* nftw callback: test every region-format file. */
static int
visit(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	size_t		n = strlen(path);

	if (flag == FTW_F && n > 4 &&
		(strcmp(path + n - 4, ".mca") == 0 || strcmp(path + n - 4, ".mcr") == 0))
		test_file(path);
	return 0;
}

/* Print the per-era table. */
static void
report(void)
{
	era_stats	t;

	memset(&t, 0, sizeof(t));
	snprintf(t.name, sizeof(t.name), "total");
	printf("\n%-20s %5s %15s %8s %8s %11s %11s %11s %7s %7s %9s %9s %6s\n",
		   "era", "files", "identical/chunks", "skipped", "repaired", "mca_bytes",
		   "zlib_bytes", "slime_bytes", "/mca", "/zlib", "import_s", "inflate_s", "ratio");
	for (int i = 0; i <= neras; i++)
	{
		era_stats  *e = i < neras ? &eras[i] : &t;

		if (i < neras)
		{
			t.files += e->files;
			t.chunks += e->chunks;
			t.identical += e->identical;
			t.skipped += e->skipped;
			t.repaired += e->repaired;
			t.mca_bytes += e->mca_bytes;
			t.payload_bytes += e->payload_bytes;
			t.stored_bytes += e->stored_bytes;
			t.raw_bytes += e->raw_bytes;
			t.import_s += e->import_s;
			t.inflate_s += e->inflate_s;
		}
		printf("%-20s %5d %7ld/%-7ld %8ld %8ld %11.0f %11.0f %11.0f %7.3f %7.3f %9.3f %9.3f %6.2f\n",
			   e->name, e->files, e->identical, e->chunks, e->skipped, e->repaired,
			   e->mca_bytes, e->payload_bytes, e->stored_bytes,
			   e->mca_bytes ? e->stored_bytes / e->mca_bytes : 0,
			   e->payload_bytes ? e->stored_bytes / e->payload_bytes : 0,
			   e->import_s, e->inflate_s, e->inflate_s > 0 ? e->import_s / e->inflate_s : 0);
	}
	printf("\nslime_bytes/mca: stored value bytes against the .mca files; /zlib: against the\n"
		   "compressed chunk payloads inside them; ratio: import time (read, inflate, check,\n"
		   "encode) over the time merely to inflate the same payloads, same run.\n");
}

int
main(int argc, char **argv)
{
	const char *env = getenv("SLIME_CORPUS");

	corpus_root = argc > 1 ? argv[1] : env && *env ? env : "../shared/corpus";
	if (nftw(corpus_root, visit, 16, FTW_PHYS) != 0 || neras == 0)
	{
		fprintf(stderr, "\n*** CORPUS MISSING: no region files under %s ***\n"
				"*** set SLIME_CORPUS to the shared corpus directory ***\n\n", corpus_root);
		printf("0 passed, 1 failed\n");
		return 1;
	}
	report();
	sl_release_caches();
	printf("\ncorpus: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
