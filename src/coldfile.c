/*
 * coldfile.c - a loader's cold file warmed for a load (issue #22): the
 * version-13 file written again from its cold form (sl_sfcold.h) against
 * the chunks of the world's newest save.
 *
 * slime_settle() gathers a cold world's chunks into a pack of their own,
 * in hash order (as slime_refs() lists them). When the world's chunks lie
 * so, the prefix is read out of that pack after one store lookup (the
 * smallest hash's) rather than one store and one pack lookup a chunk: the
 * entries are taken by rank, each checked for the chunk's lengths (and,
 * with slime.store_read_check = hash, for its key), and the cold form's
 * frame checksum vouches for the file they give back. A version-2 cold
 * form's prefix is those documents in hash order, read in place in the
 * pack; version 1's, in directory order, is copied out of it. Chunks that
 * lie otherwise (repacked, or shared with a world gathered before) are
 * looked up in the store in one scan of its key and each read out of the
 * pack its row names, a pack read only when it changes; a chunk that is not packed, or a frame
 * that does not decode, has the prefix read through the store's resolver,
 * as before.
 */
#include "slime.h"

#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "sl_sfcold.h"

/* The pack a world's chunks were gathered into and the entry of its first hash; or where each chunk lies. */
typedef struct gathered
{
	slime_kept_pack *pack;
	uint32		first;
	bool		rehash;
	int64		id;				/* located_docs: the pack read last */
	Oid			nsp;			/* located_docs: the store's schema */
	int64	   *packs;			/* located_docs: each reference's pack (-1: none) */
	uint32	   *entries;		/* located_docs: and its entry there */
} gathered;

/* The documents of the rank-th reference from its gathered pack (sl_sfcold_docs_fn). */
static int
gathered_docs(void *ctx, uint32_t rank, const sl_dirent *d, const uint8_t *comp[SL_NCOMP],
			  sl_err *err)
{
	gathered   *g = ctx;

	if ((uint64) g->first + rank > PG_UINT32_MAX ||
		!slime_pack_docs(g->pack, g->first + rank, d, g->rehash, comp))
		return sl_fail(err, SL_ERR_NOTFOUND, "chunk (%d,%d) is not where its world was gathered",
					   d->x, d->z);
	return 0;
}

/*
 * The documents of the rank-th reference from the pack its store row names
 * (sl_sfcold_docs_fn), the rows looked up before: a pack read only when the
 * pack is not the one read last. Valid until the next call.
 */
static int
located_docs(void *ctx, uint32_t rank, const sl_dirent *d, const uint8_t *comp[SL_NCOMP],
			 sl_err *err)
{
	gathered   *g = ctx;
	int64		id = g->packs[rank];

	if (id < 0)
		return sl_fail(err, SL_ERR_NOTFOUND, "chunk (%d,%d) is not packed", d->x, d->z);
	if (g->pack == NULL || id != g->id)
	{
		g->pack = slime_pack_find(g->nsp, id, GetActiveSnapshot());
		g->id = id;
	}
	if (g->pack == NULL || !slime_pack_docs(g->pack, g->entries[rank], d, g->rehash, comp))
		return sl_fail(err, SL_ERR_NOTFOUND, "chunk (%d,%d) is not in its pack", d->x, d->z);
	return 0;
}

/*
 * The prefix of o's cold form of version version into *prefix (in buf),
 * each chunk's documents from the pack its store row names; false when a
 * chunk is not packed.
 */
static bool
located_prefix(slime_open_value *o, int version, sl_buf *buf, const uint8_t **prefix, size_t *len)
{
	sl_sfcold_ref *refs = NULL;
	uint32_t	n = 0;
	gathered	g = {NULL, 0, o->hash_entries, 0, InvalidOid, NULL, NULL};
	sl_err		err;
	bool		ok;

	buf->len = 0;
	if (!ActiveSnapshotSet() || sl_sfcold_refs(&o->v, &refs, &n, &err))
	{
		sl_free(refs);
		return false;
	}
	/* every row in one scan of the store's key */
	g.packs = palloc(sizeof(int64) * (n + 1));
	g.entries = palloc(sizeof(uint32) * (n + 1));
	slime_store_packed_many(refs[0].hash, sizeof(sl_sfcold_ref), (int) n, GetActiveSnapshot(), &g.nsp,
							g.packs, g.entries);
	if (version == 1)
	{
		ok = sl_sfcold_prefix_ranked(&o->v, refs, n, located_docs, &g, buf, &err) == 0;
		*prefix = buf->data;
		*len = buf->len;
	}
	else
		ok = sl_sfcold_prefix_hashed(&o->v, refs, n, located_docs, &g, 0, buf, prefix, len, &err) == 0;
	sl_free(refs);
	pfree(g.packs);
	pfree(g.entries);
	return ok;
}

/*
 * The prefix of o's cold form of version version into *prefix (read in
 * place in the pack, or copied into buf), from the one pack its chunks were
 * gathered into, in hash order; false when they do not lie so.
 */
static bool
gathered_prefix(slime_open_value *o, int version, sl_buf *buf, const uint8_t **prefix,
				size_t *len)
{
	sl_sfcold_ref *refs = NULL;
	uint32_t	n = 0;
	Oid			nsp;
	int64		id;
	gathered	g = {NULL, 0, o->hash_entries, 0, InvalidOid, NULL, NULL};
	sl_err		err;
	bool		ok;

	if (!ActiveSnapshotSet() || sl_sfcold_refs(&o->v, &refs, &n, &err) || n == 0)
	{
		sl_free(refs);
		return false;
	}
	ok = slime_store_packed_at(refs[0].hash, GetActiveSnapshot(), &nsp, &id, &g.first) &&
		(g.pack = slime_pack_find(nsp, id, GetActiveSnapshot())) != NULL;
	/* the pack's documents stay where they are: no other pack is read before the decode */
	if (ok && version == 1)
	{
		ok = sl_sfcold_prefix_ranked(&o->v, refs, n, gathered_docs, &g, buf, &err) == 0;
		*prefix = buf->data;
		*len = buf->len;
	}
	else if (ok)
		ok = sl_sfcold_prefix_hashed(&o->v, refs, n, gathered_docs, &g, 1, buf, prefix, len, &err) == 0;
	sl_free(refs);
	return ok;
}

/* The prefix of o's cold form of version version into *prefix (in buf), every chunk read through the store. */
static void
store_prefix(slime_open_value *o, int version, sl_buf *buf, const uint8_t **prefix, size_t *len)
{
	sl_sfcold_ref *refs = NULL;
	uint32_t	n = 0;
	sl_err		err;

	buf->len = 0;
	if (version == 1 ? sl_sfcold_prefix(&o->v, buf, &err) :
		sl_sfcold_refs(&o->v, &refs, &n, &err) ||
		sl_sfcold_prefix_hashed(&o->v, refs, n, NULL, NULL, 0, buf, prefix, len, &err))
		slime_raise(&err, false);
	sl_free(refs);
	if (version == 1)
	{
		*prefix = buf->data;
		*len = buf->len;
	}
}

/* Append the version-13 file of cold against prefix to out (a varlena's header first); false when it does not decode. */
static bool
warm(bytea *cold, const uint8_t *prefix, size_t len, sl_buf *out, sl_err *err)
{
	out->len = 0;
	return sl_buf_put_u32be(out, 0, err) == 0 &&
		sl_sfcold_decode((const uint8_t *) VARDATA_ANY(cold), VARSIZE_ANY_EXHDR(cold),
						 prefix, len, slime_loader_level(), slime_limits(), out, err) == 0;
}

/*
 * The version-13 file of a cold form whose world is the newest save's value,
 * allocated in cxt; NULL and *err when the cold form does not decode.
 */
bytea *
slime_loader_warm(bytea *cold, Datum world, MemoryContext cxt, sl_err *err)
{
	slime_open_value o;
	int			version = sl_sfcold_version((const uint8_t *) VARDATA_ANY(cold), VARSIZE_ANY_EXHDR(cold));
	sl_buf		buf = {0};
	const uint8_t *prefix = NULL;
	size_t		len = 0;
	sl_buf		out = {0};
	bool		ok = true;
	MemoryContext old;

	slime_open(&o, world, true);
	old = MemoryContextSwitchTo(cxt);
	if ((!gathered_prefix(&o, version, &buf, &prefix, &len) || !warm(cold, prefix, len, &out, err)) &&
		(!located_prefix(&o, version, &buf, &prefix, &len) || !warm(cold, prefix, len, &out, err)))
	{
		store_prefix(&o, version, &buf, &prefix, &len);
		ok = warm(cold, prefix, len, &out, err);
	}
	MemoryContextSwitchTo(old);
	sl_value_close(&o.v);
	sl_buf_free(&buf);
	if (!ok)
	{
		sl_buf_free(&out);
		return NULL;
	}
	SET_VARSIZE(out.data, out.len);
	return (bytea *) out.data;
}
