/*
 * packcount.c - block and biome counts of packed chunk store entries, kept
 * per backend (issue #22): a totals scan over settled chunks counts each
 * packed entry once, and a later scan adds the kept counts instead of
 * decoding its pack again.
 *
 * A kept count is found by where its entry lies (the pack row's table, id
 * and xmin, the entry's index: packs never change once written), what was
 * counted (blocks or biomes) and the DataVersion it was counted under. It
 * is used only where reading the entry would have passed the same checks:
 * the reference's lengths equal the entry's (else the read goes on and
 * fails as a missing entry does), the reference's key is the one the read
 * that counted it found the entry to be (a store row pointing elsewhere
 * reads the pack and fails there), and under slime.store_read_check = hash
 * the entry was hashed to that key when it was counted. The
 * counts take at most a quarter of slime.pack_cache_size (the decoded packs
 * keep the rest); past it they are all dropped, and none are kept at 0. A
 * change of the size caps drops them too (a chunk counted under looser caps
 * must fail under tighter ones).
 */
#include "slime.h"

#include "utils/hsearch.h"
#include "utils/memutils.h"

#include "sl_blocks.h"
#include "sl_counts.h"

/* What a kept count is found by (zeroed first: hashed as bytes). */
typedef struct counts_key
{
	Oid			rel;
	TransactionId xmin;
	int64		id;
	uint32		index;
	int32		data_version;
	int32		want;			/* SL_WANT_BLOCKS or SL_WANT_BIOMES */
} counts_key;

/* A kept count: the entry's lengths, the key it was read as (hashed or not), the serialized counts. */
typedef struct counts_entry
{
	counts_key	key;
	uint32		len[SL_NCOMP];
	bool		hashed;
	uint8		hash[32];
	uint8	   *counts;			/* sl_counts_serialize's bytes */
	size_t		counts_len;
} counts_entry;

static MemoryContext counts_cxt = NULL;
static HTAB *counts_tab = NULL;
static sl_limits counts_lim;

/* Drop every kept count. */
static void
counts_reset(void)
{
	if (counts_cxt)
		MemoryContextReset(counts_cxt);
	counts_tab = NULL;
	slime_kept_counts_size = 0;
}

/* Most bytes the kept counts may take: a quarter of slime.pack_cache_size. */
static size_t
counts_budget(void)
{
	return slime_pack_cache_bytes() / 4;
}

/* Drop the kept counts when the size caps changed since they were counted. */
static void
counts_check_limits(void)
{
	const sl_limits *lim = slime_limits();

	if (lim->max_chunk_raw != counts_lim.max_chunk_raw || lim->max_value_raw != counts_lim.max_value_raw ||
		lim->max_depth != counts_lim.max_depth || lim->max_palette != counts_lim.max_palette)
	{
		counts_reset();
		counts_lim = *lim;
	}
}

/* The key of the counts of chunk d at loc. */
static void
counts_key_of(const slime_pack_loc *loc, const sl_dirent *d, int want, counts_key *k)
{
	memset(k, 0, sizeof(*k));
	k->rel = loc->rel;
	k->xmin = loc->xmin;
	k->id = loc->id;
	k->index = loc->index;
	k->data_version = d->data_version;
	k->want = want;
}

/* Add the counts kept for reference chunk d to m; false when none are kept for it. */
bool
slime_kept_counts_add(const slime_open_value *o, const sl_dirent *d, int want, sl_counts *m)
{
	slime_pack_loc loc;
	counts_key	k;
	counts_entry *e;
	sl_err		err;

	counts_check_limits();
	if (slime_kept_counts_size > counts_budget())
		counts_reset();			/* slime.pack_cache_size was lowered */
	if (counts_tab == NULL || slime_kept_counts_size == 0 || !slime_store_locate(d, &loc))
		return false;
	counts_key_of(&loc, d, want, &k);
	e = hash_search(counts_tab, &k, HASH_FIND, NULL);
	if (e == NULL)
		return false;
	/*
	 * the checks a read of the entry makes: its lengths, its key (the read
	 * that kept them checked the entry was d's), and that it was hashed when
	 * reads hash
	 */
	for (int c = 0; c < SL_NCOMP; c++)
		if (e->len[c] != d->len[c])
			return false;
	if (memcmp(e->hash, d->hash, 32) != 0 || (o->hash_entries && !e->hashed))
		return false;
	if (sl_counts_deserialize(m, e->counts, e->counts_len, &err))
		slime_raise(&err, false);
	return true;
}

/* Keep counts c of chunk d, just read out of the pack entry at o->loc. */
void
slime_kept_counts_keep(const slime_open_value *o, const sl_dirent *d, int want, const sl_counts *c)
{
	counts_key	k;
	counts_entry *e;
	sl_buf		out = {0};
	sl_err		err;
	bool		found;
	uint8	   *blob;

	counts_check_limits();
	if (!OidIsValid(o->loc.rel) || counts_budget() == 0)
		return;
	if (sl_counts_serialize(c, &out, &err))
		slime_raise(&err, false);
	if (slime_kept_counts_size + out.len + sizeof(counts_entry) * 2 > counts_budget())
		counts_reset();
	if (counts_cxt == NULL)
		counts_cxt = AllocSetContextCreate(TopMemoryContext, "slime kept counts", ALLOCSET_DEFAULT_SIZES);
	if (counts_tab == NULL)
	{
		HASHCTL		ctl = {0};

		ctl.keysize = sizeof(counts_key);
		ctl.entrysize = sizeof(counts_entry);
		ctl.hcxt = counts_cxt;
		counts_tab = hash_create("slime kept counts", 1024, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	/* the bytes first: an entry is never left pointing at freed or missing counts */
	blob = MemoryContextAlloc(counts_cxt, out.len);
	memcpy(blob, out.data, out.len);
	counts_key_of(&o->loc, d, want, &k);
	e = hash_search(counts_tab, &k, HASH_ENTER, &found);
	if (found)
	{
		slime_kept_counts_size -= e->counts_len;
		pfree(e->counts);
	}
	else
		slime_kept_counts_size += sizeof(counts_entry) * 2;	/* the entry and the table's share */
	memcpy(e->len, d->len, sizeof(e->len));
	/* a read that hashes its entries succeeded: the entry hashes to d's key */
	e->hashed = o->hash_entries;
	memcpy(e->hash, d->hash, 32);
	e->counts = blob;
	e->counts_len = out.len;
	slime_kept_counts_size += out.len;
	sl_buf_free(&out);
}
