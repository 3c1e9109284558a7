/*
 * exregion.c - export-world's region files: a dimension's chunks grouped
 * by region, each region file (and its .mcc files) built, read back
 * strictly and staged (exregion.h).
 */
#include "exregion.h"
#include "progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sl_nbt.h"

static const char *const kind_dirs[SL_NCOMP] = {"region", "entities", "poi"};

/* Region coordinate of a chunk coordinate (floor division by 32). */
static int32_t
region_of(int32_t c)
{
	return (int32_t) (((int64_t) c - (c < 0 ? 31 : 0)) / 32);
}

/*
 * 1 when a chunk document is a McRegion (Beta 1.3 - 1.1) chunk: a Level
 * compound holding the Blocks byte array itself, no Sections.
 */
static int
is_mcregion_chunk(const uint8_t *nbt, size_t len)
{
	sl_arena	arena = {NULL, 0};
	sl_nbt	   *root;
	size_t		used;
	sl_err		err;
	const sl_nbt *level,
			   *blocks;
	int			yes = 0;

	if (sl_nbt_parse(nbt, len, &sl_default_limits, &arena, &root, &used, &err) == 0 &&
		root->type == SL_TAG_COMPOUND &&
		(level = sl_nbt_child(root, "Level")) != NULL && level->type == SL_TAG_COMPOUND &&
		(blocks = sl_nbt_child(level, "Blocks")) != NULL && blocks->type == SL_TAG_BYTE_ARRAY &&
		sl_nbt_child(level, "Sections") == NULL)
		yes = 1;
	sl_arena_free(&arena);
	return yes;
}

/*
 * Whether the dimension's region files are McRegion (.mcr): only when every
 * region chunk is a McRegion chunk (they never have a DataVersion, so only
 * chunks without one are decompressed to look). Copy-world reads .mcr
 * files only where no .mca file is, so one dimension gets one kind.
 */
static int
mcregion_dimension(sl_value *v, const char *label, int *mcr, uint32_t *mixed)
{
	uint32_t	yes = 0,
				no = 0;
	sl_err		err;

	for (uint32_t i = 0; i < v->hdr.chunk_count; i++)
	{
		sl_dirent	d;
		const uint8_t *comp[SL_NCOMP];

		if (sl_value_dirent(v, i, &d, &err))
			return tool_fail_err(&err, label);
		if (d.len[SL_COMP_REGION] == 0)
			continue;
		if (d.data_version != SL_NO_DV)
		{
			no++;
			continue;
		}
		if (sl_value_chunk(v, i, &d, comp, &err))
			return tool_fail_err(&err, label);
		if (is_mcregion_chunk(comp[SL_COMP_REGION], d.len[SL_COMP_REGION]))
			yes++;
		else
			no++;
	}
	*mcr = yes > 0 && no == 0;
	*mixed = no > 0 ? yes : 0;
	return 0;
}

/* A chunk index with its region, for grouping chunks by region file. */
typedef struct region_idx
{
	int32_t		rx;
	int32_t		rz;
	uint32_t	i;
} region_idx;

static int
cmp_region_idx(const void *a, const void *b)
{
	const region_idx *x = a,
			   *y = b;

	if (x->rx != y->rx)
		return x->rx < y->rx ? -1 : 1;
	if (x->rz != y->rz)
		return x->rz < y->rz ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/*
 * Read back a region file just built and check that it gives exactly the
 * chunks it was built from (strict read, as copy-world reads).
 */
static int
check_region(const sl_buf *file, const sl_external *ext, int next, int32_t rx, int32_t rz,
			 const sl_region_chunk *chunks, int n, const char *what)
{
	const sl_region_chunk *by_slot[SL_REGION_SLOTS];
	sl_region	r;
	sl_err		err;
	int			rc = 0;

	memset(by_slot, 0, sizeof(by_slot));
	for (int i = 0; i < n; i++)
		by_slot[(chunks[i].z & 31) * 32 + (chunks[i].x & 31)] = &chunks[i];
	memset(&r, 0, sizeof(r));
	if (sl_region_read(file->data, file->len, rx, rz, ext, next, 1, &sl_default_limits, &r, &err))
		return tool_fail("%s does not read back: %s", what, err.msg);
	if (r.nchunks != n || r.nproblems != 0)
		rc = tool_fail("%s reads back with %d chunks, not %d", what, r.nchunks, n);
	for (int i = 0; i < r.nchunks && rc == 0; i++)
	{
		const sl_region_chunk *got = &r.chunks[i];
		const sl_region_chunk *want = by_slot[(got->z & 31) * 32 + (got->x & 31)];

		if (want == NULL || want->x != got->x || want->z != got->z ||
			want->nbt_len != got->nbt_len || want->timestamp != got->timestamp ||
			memcmp(want->nbt, got->nbt, got->nbt_len) != 0)
			rc = tool_fail("%s: chunk (%d,%d) reads back different", what, got->x, got->z);
	}
	sl_region_free(&r);
	return rc;
}

/* Build, check and stage one region file (and its .mcc files) of one kind. */
static int
write_region(stage *s, int dim, int kind, int mcr, int32_t rx, int32_t rz,
			 const sl_region_chunk *chunks, int n, dim_stats *st)
{
	char		sub[96];
	sl_buf		out = {NULL, 0, 0};
	sl_external *ext = NULL;
	int			next = 0;
	char		name[64];
	sl_err		err;
	int			rc;

	snprintf(name, sizeof(name), "r.%d.%d.%s", rx, rz, kind == SL_COMP_REGION && mcr ? "mcr" : "mca");
	snprintf(sub, sizeof(sub), "%s/%s", kind_dirs[kind], name);
	if (sl_region_write(chunks, n, rx, rz, 2, &out, &ext, &next, &err))
		rc = tool_fail("%s: %s", sub, err.msg);
	else
		rc = check_region(&out, ext, next, rx, rz, chunks, n, name);
	if (rc == 0)
		rc = stage_put(s, dim, sub, out.data, out.len);
	for (int i = 0; i < next && rc == 0; i++)
	{
		snprintf(sub, sizeof(sub), "%s/c.%d.%d.mcc", kind_dirs[kind], ext[i].x, ext[i].z);
		rc = stage_put(s, dim, sub, ext[i].data, ext[i].len);
		st->external++;
	}
	if (rc == 0)
	{
		st->files[kind]++;
		tool_progress_add(1, 0, 0);
	}
	for (int i = 0; i < next; i++)
		sl_free((void *) ext[i].data);
	sl_free(ext);
	sl_buf_free(&out);
	return rc;
}

/* Free the NBT copies of gathered chunks. */
static void
free_gathered(sl_region_chunk *chunks[SL_NCOMP], int n[SL_NCOMP])
{
	for (int k = 0; k < SL_NCOMP; k++)
	{
		for (int i = 0; i < n[k]; i++)
			sl_free(chunks[k][i].nbt);
		n[k] = 0;
	}
}

/* Copy the components of chunk i into the per-kind chunk lists. */
static int
gather_chunk(sl_value *v, uint32_t i, sl_region_chunk *chunks[SL_NCOMP], int n[SL_NCOMP],
			 const char *label)
{
	sl_dirent	d;
	const uint8_t *comp[SL_NCOMP];
	sl_err		err;

	if (sl_value_dirent(v, i, &d, &err) || sl_value_chunk(v, i, &d, comp, &err))
		return tool_fail_err(&err, label);
	for (int k = 0; k < SL_NCOMP; k++)
	{
		sl_region_chunk *c;

		if (d.len[k] == 0)
			continue;
		if (n[k] == SL_REGION_SLOTS)
			return tool_fail("%s: more than 1024 chunks in one region", label);
		c = &chunks[k][n[k]];
		if ((c->nbt = sl_alloc(d.len[k])) == NULL)
			return tool_fail("out of memory");
		memcpy(c->nbt, comp[k], d.len[k]);
		c->nbt_len = d.len[k];
		c->x = d.x;
		c->z = d.z;
		c->timestamp = d.timestamp;
		c->compression = 2;
		n[k]++;
	}
	return 0;
}

/* Stage every region file of one dimension. */
int
ex_write_regions(stage *s, int dim, sl_value *v, const char *label, dim_stats *st)
{
	uint32_t	count = v->hdr.chunk_count;
	region_idx *idx = count ? malloc((size_t) count * sizeof(region_idx)) : NULL;
	sl_region_chunk *chunks[SL_NCOMP] = {NULL, NULL, NULL};
	int			n[SL_NCOMP] = {0, 0, 0};
	sl_err		err;
	int			rc;

	if (count && idx == NULL)
		return tool_fail("out of memory");
	rc = mcregion_dimension(v, label, &st->mcr, &st->mixed);
	for (int k = 0; k < SL_NCOMP && rc == 0; k++)
		if ((chunks[k] = calloc(SL_REGION_SLOTS, sizeof(sl_region_chunk))) == NULL)
			rc = tool_fail("out of memory");
	for (uint32_t i = 0; i < count && rc == 0; i++)
	{
		sl_dirent	d;

		if (sl_value_dirent(v, i, &d, &err))
		{
			rc = tool_fail_err(&err, label);
			break;
		}
		idx[i].rx = region_of(d.x);
		idx[i].rz = region_of(d.z);
		idx[i].i = i;
	}
	if (rc == 0 && count)
		qsort(idx, count, sizeof(region_idx), cmp_region_idx);
	for (uint32_t b = 0; b < count && rc == 0;)
	{
		uint32_t	e = b;

		while (e < count && idx[e].rx == idx[b].rx && idx[e].rz == idx[b].rz && rc == 0)
			rc = gather_chunk(v, idx[e++].i, chunks, n, label);
		for (int k = 0; k < SL_NCOMP && rc == 0; k++)
			if (n[k] > 0)
				rc = write_region(s, dim, k, st->mcr, idx[b].rx, idx[b].rz, chunks[k], n[k], st);
		st->chunks += e - b;
		tool_progress_add(0, (uint64_t) (e - b), 0);
		free_gathered(chunks, n);
		b = e;
	}
	free_gathered(chunks, n);
	for (int k = 0; k < SL_NCOMP; k++)
		free(chunks[k]);
	free(idx);
	return rc;
}
