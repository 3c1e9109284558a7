/*
 * slimefile_corpus.c - slime files against the shared corpus, read in place.
 *
 * 1. Every file under slime/ (its notes aside): read (sl_slimefile_read),
 *    encoded, fully checked (sl_value_verify); every chunk's blocks and
 *    biomes decoded. A 1.18+ world is written back as version 13, read
 *    again and must give every chunk's region, entities and POI documents
 *    byte-identical and the same world extra, DataVersion and maps; the
 *    v13 file written from that must be byte-identical. A pre-1.18 world
 *    must fail to become version 13 as unsupported. A table gives per
 *    file: version, DataVersion, chunks, repeated chunks skipped (ASP's
 *    v10-v12 writer bug), file bytes, value bytes, value/file.
 * 2. Every 1.18+ region file (anvil-1.18plus/, with the entities/ and poi/
 *    files of the same source and name when the corpus has them), and every
 *    1.18+ entities/ and poi/ file on its own (each chunk given a stub
 *    region chunk): region -> slime -> slime file -> slime keeps every field
 *    a slime file carries, compared field by field per chunk (sections'
 *    block_states, biomes, BlockLight, SkyLight; Heightmaps; block
 *    entities; block and fluid ticks; ChunkBukkitValues; entities; POI
 *    sections); and slime file -> slime -> slime file is byte-identical,
 *    slime -> slime file -> slime value-identical.
 * A world the format cannot express (e.g. light stored as a list) is
 * reported as such, with the reason, and is not a failure.
 *
 * Usage: slimefile_corpus [CORPUS_DIR]  (default $SLIME_CORPUS or ../shared/corpus)
 */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sl_blocks.h"
#include "sl_build.h"
#include "sl_chunk.h"
#include "sl_nbt.h"
#include "sl_region.h"
#include "sl_slimefile.h"
#include "sl_value.h"

#include "corpus_util.h"
#include "summary_check.h"

static const char *root;
static int	passed,
			failed,
			unsupported;
static long total_fields;

#define MAX_FILES 512
static char *files[MAX_FILES];
static int	nfiles;

static int
visit(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	if (flag == FTW_F && nfiles < MAX_FILES)
		files[nfiles++] = strdup(path);
	return 0;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *) a, *(char *const *) b);
}

static const char *
rel(const char *path)
{
	return path + strlen(root) + (path[strlen(root)] == '/');
}

/* ---- part 1: slime files ---- */

static int
count_cb(void *ctx, const char *name, size_t len, size_t base_len, uint64_t count,
		 int fallback, sl_err *err)
{
	uint64_t   *n = ctx;

	if (!(len == 13 && memcmp(name, "minecraft:air", 13) == 0))
		*n += count;
	return 0;
}

/* A world compound's slime.<name> serialized (empty when absent). */
static void
world_field(sl_value *v, const char *name, sl_buf *out)
{
	const uint8_t *w;
	size_t		len,
				used;
	uint8_t    *copy;
	sl_arena	a = {0};
	sl_nbt	   *root;
	sl_err		err;

	out->len = 0;
	if (sl_value_world(v, &w, &len, &err) || len == 0)
		return;
	copy = malloc(len);
	memcpy(copy, w, len);
	if (sl_nbt_parse(copy, len, NULL, &a, &root, &used, &err) == 0)
	{
		const sl_nbt *n = sl_nbt_child(sl_nbt_child(root, "slime"), name);

		if (n)
			sl_nbt_write_as_root(n, out, &err);
	}
	sl_arena_free(&a);
	free(copy);
}

/*
 * Whether value b (a slime file's value written as v13 and read again)
 * holds every chunk of a with all three documents byte-identical, and the
 * world's extra compound and DataVersion unchanged.
 */
static int
same_value(sl_value *a, sl_value *b, char *why, size_t whylen)
{
	sl_buf		x = {0},
				y = {0};
	int			ok = 1;
	static const char *const kind[SL_NCOMP] = {"region", "entities", "POI"};
	static const char *const wf[] = {"extra", "DataVersion", "maps"};

	if (a->hdr.chunk_count != b->hdr.chunk_count)
	{
		snprintf(why, whylen, "%u chunks became %u", a->hdr.chunk_count, b->hdr.chunk_count);
		return 0;
	}
	for (uint32_t i = 0; ok && i < a->hdr.chunk_count; i++)
	{
		sl_dirent	da,
					db;
		const uint8_t *ca[SL_NCOMP],
				   *cb[SL_NCOMP];
		sl_err		err;
		int64_t		j;

		/* copy a's documents: the frame cache is shared by chunk reads */
		if (sl_value_chunk(a, i, &da, ca, &err))
			return snprintf(why, whylen, "%s", err.msg), 0;
		x.len = 0;
		for (int k = 0; k < SL_NCOMP; k++)
			sl_buf_put(&x, ca[k], da.len[k], &err);
		j = sl_value_find(b, da.x, da.z);
		if (j < 0 || sl_value_chunk(b, (uint32_t) j, &db, cb, &err))
		{
			snprintf(why, whylen, "chunk (%d,%d) missing after the round trip", da.x, da.z);
			ok = 0;
			break;
		}
		for (int k = 0, off = 0; ok && k < SL_NCOMP; off += da.len[k], k++)
		{
			total_fields++;
			if (da.len[k] != db.len[k] || (da.len[k] && memcmp(x.data + off, cb[k], da.len[k]) != 0))
			{
				snprintf(why, whylen, "chunk (%d,%d): %s document differs (%u -> %u bytes)",
						 da.x, da.z, kind[k], (unsigned) da.len[k], (unsigned) db.len[k]);
				ok = 0;
			}
		}
	}
	for (size_t f = 0; ok && f < sizeof(wf) / sizeof(wf[0]); f++)
	{
		world_field(a, wf[f], &x);
		world_field(b, wf[f], &y);
		total_fields++;
		if (x.len != y.len || (x.len && memcmp(x.data, y.data, x.len) != 0))
		{
			snprintf(why, whylen, "world compound: slime.%s differs", wf[f]);
			ok = 0;
		}
	}
	sl_buf_free(&x);
	sl_buf_free(&y);
	return ok;
}

/*
 * One slime file: read, verified, every chunk's blocks decoded; a 1.18+
 * world written as version 13, read again and compared (same_value), and
 * written again byte-identical. Prints one row of the figures table.
 */
static void
slime_file(const char *path)
{
	size_t		len;
	uint8_t    *file = corpus_read_file(path, &len);
	sl_builder	b;
	sl_slimefile_info info;
	sl_buf		value = {0},
				back = {0},
				value2 = {0},
				back2 = {0};
	sl_value	v,
				v2;
	int			opened2 = 0;
	sl_err		err;
	uint64_t	solid = 0;
	int			ok = 1;
	char		why[600] = "";
	const char *result = "";

	memset(&b, 0, sizeof(b));
	if (file == NULL)
	{
		printf("FAIL %s: cannot read\n", rel(path));
		failed++;
		return;
	}
	if (sl_slimefile_read(file, len, NULL, &b, &info, &err) ||
		sl_builder_encode(&b, NULL, NULL, &value, &err) ||
		sl_value_verify(value.data, value.len, NULL, &err) ||
		sl_value_open_mem(&v, value.data, value.len, NULL, &err))
	{
		printf("FAIL %s: %s\n", rel(path), err.msg);
		failed++;
		goto out;
	}
	/* its contents summary is what its chunks decoded give */
	if (summary_check(rel(path), value.data, value.len))
	{
		sl_value_close(&v);
		failed++;
		goto out;
	}
	for (uint32_t i = 0; i < v.hdr.chunk_count && ok; i++)
	{
		sl_dirent	d;
		const uint8_t *comp[SL_NCOMP];
		sl_arena	a = {0};
		sl_chunk_blocks cb;

		if (sl_value_chunk(&v, i, &d, comp, &err) ||
			sl_chunk_blocks_open(comp[0], d.len[0], d.data_version, SL_WANT_BLOCKS | SL_WANT_BIOMES,
								 NULL, &a, &cb, &err) ||
			sl_chunk_count_blocks(&cb, count_cb, &solid, &err))
		{
			snprintf(why, sizeof(why), "chunk %u blocks: %s", (unsigned) i, err.msg);
			ok = 0;
		}
		sl_arena_free(&a);
	}
	if (ok)
	{
		int			rc = sl_slimefile_write(&v, 3, NULL, &back, NULL, &err);
		int			modern = info.data_version != SL_NO_DV && info.data_version >= SL_DV_LAYOUT_118;

		if (!modern)
		{
			/* a pre-1.18 world: version 13 cannot hold it, and says so */
			if (rc == 0 || err.code != SL_ERR_UNSUPPORTED)
			{
				snprintf(why, sizeof(why), "writing version 13 should fail as unsupported");
				ok = 0;
			}
			else
				result = "pre-1.18: no v13 (expected)";
		}
		else if (rc)
		{
			snprintf(why, sizeof(why), "writing version 13: %s", err.msg);
			ok = 0;
		}
		else
		{
			sl_builder_free(&b);
			memset(&b, 0, sizeof(b));
			if (sl_slimefile_read(back.data, back.len, NULL, &b, NULL, &err) ||
				sl_builder_encode(&b, NULL, NULL, &value2, &err) ||
				sl_value_verify(value2.data, value2.len, NULL, &err) ||
				sl_value_open_mem(&v2, value2.data, value2.len, NULL, &err))
			{
				snprintf(why, sizeof(why), "v13 read back: %s", err.msg);
				ok = 0;
			}
			else
			{
				opened2 = 1;
				if (!same_value(&v, &v2, why, sizeof(why)))
					ok = 0;
				else if (sl_slimefile_write(&v2, 3, NULL, &back2, NULL, &err))
				{
					snprintf(why, sizeof(why), "second v13 write: %s", err.msg);
					ok = 0;
				}
				else if (back2.len != back.len || memcmp(back.data, back2.data, back.len) != 0)
				{
					snprintf(why, sizeof(why), "v13 -> slime -> v13 is not byte-identical");
					ok = 0;
				}
				else
					result = "v13 written, read again: every field equal";
			}
		}
	}
	sl_value_close(&v);
	if (opened2)
		sl_value_close(&v2);
	if (!ok)
	{
		printf("FAIL %s: %s\n", rel(path), why);
		failed++;
		goto out;
	}
	printf("  %-38s v%-2d %11d %6u %7u %10zu %11zu %10.2f  %s\n",
		   rel(path), info.version, info.data_version == SL_NO_DV ? -1 : info.data_version,
		   info.chunks, info.repeated_chunks, len, value.len, (double) value.len / (double) len, result);
	printf("  %-38s     world version %d, %llu block entities, %llu entities (+%llu without chunk), %llu non-air blocks",
		   "", info.world_version, (unsigned long long) info.block_entities,
		   (unsigned long long) info.entities, (unsigned long long) info.orphan_entities,
		   (unsigned long long) solid);
	if (back.len)
		printf("; as v13: %zu bytes", back.len);
	printf("\n");
	passed++;
out:
	sl_builder_free(&b);
	sl_buf_free(&value);
	sl_buf_free(&back);
	sl_buf_free(&value2);
	sl_buf_free(&back2);
	free(file);
}

/* ---- part 2: region -> slime -> slime file -> slime ---- */

/* Serialize a tag (or nothing) for comparison. */
static void
ser(const sl_nbt *n, sl_buf *out)
{
	sl_err		err;

	out->len = 0;
	if (n)
		sl_nbt_write_as_root(n, out, &err);
}

/* Whether two tags are equal; an empty list or compound equals an absent one. */
static int
same(const sl_nbt *a, const sl_nbt *b)
{
	sl_buf		x = {0},
				y = {0};
	int			r;

	if (a && ((a->type == SL_TAG_LIST && a->v.list.count == 0) ||
			  (a->type == SL_TAG_COMPOUND && a->v.comp.count == 0)))
		a = NULL;
	if (b && ((b->type == SL_TAG_LIST && b->v.list.count == 0) ||
			  (b->type == SL_TAG_COMPOUND && b->v.comp.count == 0)))
		b = NULL;
	ser(a, &x);
	ser(b, &y);
	r = x.len == y.len && (x.len == 0 || memcmp(x.data, y.data, x.len) == 0);
	sl_buf_free(&x);
	sl_buf_free(&y);
	total_fields++;
	return r;
}

static const sl_nbt *
section_at(const sl_nbt *root, int y)
{
	const sl_nbt *secs = sl_nbt_child(root, "sections");

	for (uint32_t i = 0; secs && secs->type == SL_TAG_LIST && i < secs->v.list.count; i++)
	{
		const sl_nbt *c = sl_nbt_child(secs->v.list.items[i], "Y");

		if (c && c->type == SL_TAG_BYTE && c->v.i == y)
			return secs->v.list.items[i];
	}
	return NULL;
}

/* Compare what a slime file carries of chunk i of a against chunk j of b. */
static int
compare_chunk(sl_value *a, sl_value *b, uint32_t i, char *why, size_t whylen)
{
	sl_dirent	da,
				db;
	const uint8_t *ca[SL_NCOMP],
			   *cb[SL_NCOMP];
	uint8_t    *copy[SL_NCOMP] = {NULL, NULL, NULL};
	sl_nbt	   *ra[SL_NCOMP] = {NULL, NULL, NULL},
			   *rb[SL_NCOMP] = {NULL, NULL, NULL};
	sl_arena	arena = {0};
	sl_err		err;
	int64_t		j;
	int			ok = 1;
	int			ymin;
	const sl_nbt *c;
	static const char *const root_fields[] = {"Heightmaps", "block_entities", "block_ticks",
	"fluid_ticks", "ChunkBukkitValues"};

	if (sl_value_chunk(a, i, &da, ca, &err))
		return snprintf(why, whylen, "%s", err.msg), 0;
	for (int k = 0; k < SL_NCOMP; k++)
		if (da.len[k])
		{
			copy[k] = malloc(da.len[k]);
			memcpy(copy[k], ca[k], da.len[k]);
		}
	j = sl_value_find(b, da.x, da.z);
	if (j < 0 || sl_value_chunk(b, (uint32_t) j, &db, cb, &err))
	{
		snprintf(why, whylen, "chunk (%d,%d) missing after the round trip", da.x, da.z);
		ok = 0;
		goto done;
	}
	for (int k = 0; k < SL_NCOMP; k++)
	{
		size_t		used;

		if (da.len[k] && sl_nbt_parse(copy[k], da.len[k], NULL, &arena, &ra[k], &used, &err))
			ok = 0;
		if (db.len[k] && sl_nbt_parse(cb[k], db.len[k], NULL, &arena, &rb[k], &used, &err))
			ok = 0;
	}
	if (!ok)
	{
		snprintf(why, whylen, "chunk (%d,%d): %s", da.x, da.z, err.msg);
		goto done;
	}
	c = sl_nbt_child(rb[0], "yPos");
	ymin = c && c->type == SL_TAG_INT ? (int) c->v.i : -4;
	/* sections */
	for (int y = -128; y < 128 && ok; y++)
	{
		const sl_nbt *sa = section_at(ra[0], y),
				   *sb = section_at(rb[0], y);
		static const char *const sec_fields[] = {"block_states", "biomes", "BlockLight", "SkyLight"};

		if (sa == NULL && sb == NULL)
			continue;
		if (sa && sb == NULL && y < ymin && !sl_nbt_child(sa, "block_states") && !sl_nbt_child(sa, "biomes"))
			continue;			/* a light-only section below the range: not carried */
		if (sa && sb == NULL && sl_nbt_child(sa, "block_states") == NULL &&
			sl_nbt_child(sa, "biomes") == NULL && sl_nbt_child(sa, "BlockLight") == NULL &&
			sl_nbt_child(sa, "SkyLight") == NULL)
			continue;			/* an empty section */
		for (int f = 0; f < 4; f++)
			if (!same(sl_nbt_child(sa, sec_fields[f]), sl_nbt_child(sb, sec_fields[f])))
			{
				snprintf(why, whylen, "chunk (%d,%d): section Y=%d: %s differs", da.x, da.z, y, sec_fields[f]);
				ok = 0;
				break;
			}
	}
	for (size_t f = 0; ok && f < sizeof(root_fields) / sizeof(root_fields[0]); f++)
		if (!same(sl_nbt_child(ra[0], root_fields[f]), sl_nbt_child(rb[0], root_fields[f])))
		{
			snprintf(why, whylen, "chunk (%d,%d): %s differs", da.x, da.z, root_fields[f]);
			ok = 0;
		}
	if (ok && !same(sl_nbt_child(ra[1], "Entities"), sl_nbt_child(rb[1], "Entities")))
	{
		snprintf(why, whylen, "chunk (%d,%d): entities differ", da.x, da.z);
		ok = 0;
	}
	if (ok && !same(sl_nbt_child(ra[2], "Sections"), sl_nbt_child(rb[2], "Sections")))
	{
		snprintf(why, whylen, "chunk (%d,%d): POI sections differ", da.x, da.z);
		ok = 0;
	}
done:
	sl_arena_free(&arena);
	for (int k = 0; k < SL_NCOMP; k++)
		free(copy[k]);
	return ok;
}

/* Add a stub region chunk {DataVersion, xPos, zPos, yPos} for chunks lacking one. */
static void
add_stubs(sl_builder *b, const sl_region *r)
{
	for (int i = 0; i < r->nchunks; i++)
	{
		sl_buf		s = {0};
		sl_err		err;
		int32_t		dv = sl_data_version(r->chunks[i].nbt, r->chunks[i].nbt_len, NULL);
		static const char *const names[4] = {"DataVersion", "xPos", "zPos", "yPos"};
		int32_t		vals[4];

		vals[0] = dv;
		vals[1] = r->chunks[i].x;
		vals[2] = r->chunks[i].z;
		vals[3] = -4;
		sl_buf_put_u8(&s, SL_TAG_COMPOUND, &err);
		sl_buf_put_u16be(&s, 0, &err);
		for (int k = 0; k < 4; k++)
		{
			sl_buf_put_u8(&s, SL_TAG_INT, &err);
			sl_buf_put_u16be(&s, (uint16_t) strlen(names[k]), &err);
			sl_buf_put(&s, names[k], strlen(names[k]), &err);
			sl_buf_put_u32be(&s, (uint32_t) vals[k], &err);
		}
		sl_buf_put_u8(&s, 0, &err);
		sl_builder_add(b, SL_COMP_REGION, r->chunks[i].x, r->chunks[i].z, 0, s.data, s.len, 1, &err);
	}
}

/* Read one region-format file of kind into the builder (kept readable in r). */
static int
add_file(sl_builder *b, const char *path, int kind, sl_region *r, sl_err *err)
{
	size_t		len;
	uint8_t    *data = corpus_read_file(path, &len);
	int32_t		rx,
				rz;
	int			rc;

	memset(r, 0, sizeof(*r));
	if (data == NULL)
		return sl_fail(err, SL_ERR_INVALID, "cannot read %s", path);
	corpus_region_coords(path, &rx, &rz);
	rc = sl_region_read(data, len, rx, rz, NULL, 0, 1, NULL, r, err);
	free(data);
	for (int i = 0; rc == 0 && i < r->nchunks; i++)
		rc = sl_builder_add(b, kind, r->chunks[i].x, r->chunks[i].z, r->chunks[i].timestamp,
							r->chunks[i].nbt, r->chunks[i].nbt_len, 0, err);
	return rc;
}

static int
exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int
exists_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* region (+ entities, POI) -> slime -> slime file -> slime, field by field. */
static void
region_file(const char *path, int kind)
{
	sl_builder	b;
	sl_region	r[SL_NCOMP];
	sl_buf		v1 = {0},
				f1 = {0},
				v2 = {0},
				f2 = {0},
				v3 = {0};
	sl_value	a,
				bv;
	sl_err		err;
	char		why[600] = "";
	char		other[4096];
	const char *sub = rel(path);
	const char *era = kind == SL_COMP_REGION ? "anvil-1.18plus/" :
		kind == SL_COMP_ENTITIES ? "entities-1.17plus/" : "poi/";
	int			ok = 1,
				opened_a = 0,
				opened_b = 0;
	int			paired = 0;
	sl_slimefile_info info;
	uint32_t	compared = 0;

	memset(&b, 0, sizeof(b));
	memset(r, 0, sizeof(r));
	if (add_file(&b, path, kind, &r[kind], &err))
	{
		printf("FAIL %s: import: %s\n", sub, err.msg);
		failed++;
		goto out;
	}
	if (kind == SL_COMP_REGION)
	{
		/* the entities/ and poi/ files of the same source and name */
		for (int k = 1; k < SL_NCOMP; k++)
		{
			snprintf(other, sizeof(other), "%s/%s%s", root, k == 1 ? "entities-1.17plus/" : "poi/",
					 sub + strlen(era));
			if (exists(other))
			{
				if (add_file(&b, other, k, &r[k], &err))
				{
					printf("FAIL %s: import %s: %s\n", sub, other, err.msg);
					failed++;
					goto out;
				}
				paired |= 1 << k;
			}
		}
	}
	else
		add_stubs(&b, &r[kind]);
	if (sl_builder_encode(&b, NULL, NULL, &v1, &err) ||
		sl_value_open_mem(&a, v1.data, v1.len, NULL, &err))
	{
		printf("FAIL %s: encode: %s\n", sub, err.msg);
		failed++;
		goto out;
	}
	opened_a = 1;
	if (sl_slimefile_write(&a, 3, NULL, &f1, &info, &err))
	{
		if (err.code == SL_ERR_UNSUPPORTED)
		{
			printf("  %-60s cannot be a slime file (expected): %s\n", sub, err.msg);
			unsupported++;
		}
		else
		{
			printf("FAIL %s: write: %s\n", sub, err.msg);
			failed++;
		}
		goto out;
	}
	sl_builder_free(&b);
	memset(&b, 0, sizeof(b));
	if (sl_slimefile_read(f1.data, f1.len, NULL, &b, NULL, &err) ||
		sl_builder_encode(&b, NULL, NULL, &v2, &err) ||
		sl_value_verify(v2.data, v2.len, NULL, &err) ||
		sl_value_open_mem(&bv, v2.data, v2.len, NULL, &err))
	{
		printf("FAIL %s: read back: %s\n", sub, err.msg);
		failed++;
		goto out;
	}
	opened_b = 1;
	if (bv.hdr.chunk_count != a.hdr.chunk_count)
	{
		snprintf(why, sizeof(why), "%u chunks became %u", a.hdr.chunk_count, bv.hdr.chunk_count);
		ok = 0;
	}
	for (uint32_t i = 0; ok && i < a.hdr.chunk_count; i++, compared++)
		ok = compare_chunk(&a, &bv, i, why, sizeof(why));
	if (ok)
	{
		sl_builder_free(&b);
		memset(&b, 0, sizeof(b));
		if (sl_slimefile_write(&bv, 3, NULL, &f2, NULL, &err) ||
			sl_slimefile_read(f2.data, f2.len, NULL, &b, NULL, &err) ||
			sl_builder_encode(&b, NULL, NULL, &v3, &err))
		{
			snprintf(why, sizeof(why), "second round: %s", err.msg);
			ok = 0;
		}
		else if (f2.len != f1.len || memcmp(f1.data, f2.data, f1.len) != 0)
		{
			snprintf(why, sizeof(why), "slime file -> slime -> slime file is not byte-identical");
			ok = 0;
		}
		else if (v3.len != v2.len || memcmp(v2.data, v3.data, v2.len) != 0)
		{
			snprintf(why, sizeof(why), "slime -> slime file -> slime is not value-identical");
			ok = 0;
		}
	}
	if (ok)
	{
		printf("  %-60s %4u chunks%s%s, %llu block entities, %llu entities, flags %d, %zu -> %zu bytes: fields equal, rewrite identical\n",
			   sub, compared, paired & 2 ? " +entities" : "", paired & 4 ? " +poi" : "",
			   (unsigned long long) info.block_entities, (unsigned long long) info.entities,
			   info.flags, v1.len, f1.len);
		passed++;
	}
	else
	{
		printf("FAIL %s: %s\n", sub, why);
		failed++;
	}
out:
	if (opened_a)
		sl_value_close(&a);
	if (opened_b)
		sl_value_close(&bv);
	sl_builder_free(&b);
	for (int k = 0; k < SL_NCOMP; k++)
		sl_region_free(&r[k]);
	sl_buf_free(&v1);
	sl_buf_free(&f1);
	sl_buf_free(&v2);
	sl_buf_free(&f2);
	sl_buf_free(&v3);
}

/* A region-format file whose chunks are 1.18+ (the first chunk's DataVersion). */
static int
modern_file(const char *path)
{
	size_t		len;
	uint8_t    *data = corpus_read_file(path, &len);
	sl_region	r;
	sl_err		err;
	int			modern = 0;
	int32_t		rx,
				rz;

	if (data == NULL)
		return 0;
	corpus_region_coords(path, &rx, &rz);
	memset(&r, 0, sizeof(r));
	if (sl_region_read(data, len, rx, rz, NULL, 0, 0, NULL, &r, &err) == 0 && r.nchunks > 0)
	{
		int32_t		dv = sl_data_version(r.chunks[0].nbt, r.chunks[0].nbt_len, NULL);

		modern = dv != SL_NO_DV && dv >= SL_DV_LAYOUT_118;
	}
	sl_region_free(&r);
	free(data);
	return modern;
}

int
main(int argc, char **argv)
{
	const char *env = getenv("SLIME_CORPUS");
	int			nslime = 0;
	char		dir[4096];

	root = argc > 1 ? argv[1] : env && *env ? env : "../shared/corpus";
	snprintf(dir, sizeof(dir), "%s/slime", root);
	if (!exists_dir(root) || !exists_dir(dir) || nftw(root, visit, 16, FTW_PHYS) != 0 || nfiles == 0)
	{
		fprintf(stderr, "\n*** CORPUS MISSING: no slime files under %s ***\n"
				"*** set SLIME_CORPUS to the shared corpus directory ***\n\n", dir);
		printf("slimefile corpus: 0 passed, 1 failed\n");
		return 1;
	}
	qsort(files, nfiles, sizeof(char *), cmp_str);
	printf("slime files (read in place; value = the slime value read, file = the slime file):\n");
	printf("  %-38s %-3s %11s %6s %7s %10s %11s %10s  %s\n", "file", "ver", "DataVersion", "chunks", "repeats",
		   "file bytes", "value bytes", "value/file", "");
	for (int i = 0; i < nfiles; i++)
	{
		size_t		n = strlen(files[i]);

		/* every file under slime/ but its notes */
		if (strncmp(rel(files[i]), "slime/", 6) == 0 &&
			!(n > 3 && strcmp(files[i] + n - 3, ".md") == 0) &&
			!(n > 4 && strcmp(files[i] + n - 4, ".txt") == 0))
		{
			slime_file(files[i]);
			nslime++;
		}
	}
	if (nslime == 0)
	{
		fprintf(stderr, "\n*** CORPUS MISSING: no slime files under %s ***\n", dir);
		failed++;
	}
	printf("\n1.18+ region, entities and POI files -> slime -> slime file -> slime:\n");
	for (int i = 0; i < nfiles; i++)
	{
		const char *p = rel(files[i]);
		size_t		n = strlen(p);
		int			kind;

		if (n < 4 || strcmp(p + n - 4, ".mca") != 0)
			continue;
		if (strncmp(p, "anvil-1.18plus/", 15) == 0)
			kind = SL_COMP_REGION;
		else if (strncmp(p, "entities-1.17plus/", 18) == 0)
			kind = SL_COMP_ENTITIES;
		else if (strncmp(p, "poi/", 4) == 0)
			kind = SL_COMP_POI;
		else
			continue;
		if (!modern_file(files[i]))
		{
			if (kind != SL_COMP_REGION)
				continue;		/* pre-1.18 entities/POI: nothing a v13 file could hold */
		}
		region_file(files[i], kind);
	}
	sl_release_caches();
	printf("\nslimefile corpus: %d passed, %d failed, %d worlds a slime file cannot express, %ld fields compared\n",
		   passed, failed, unsupported, total_fields);
	for (int i = 0; i < nfiles; i++)
		free(files[i]);
	return failed ? 1 : 0;
}
