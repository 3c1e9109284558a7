/*
 * loader.c - the conversion behind slime_loader_save(): a slime file to the
 * reference form of its value, reusing the chunks of the world's previous
 * save that did not change (the memo, core sl_lmemo), with the store entries
 * of the chunks that did put in the chunk store. The work is done by the
 * core; this is the glue (memory, the store, errors).
 */
#include "slime.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "funcapi.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "storage/proc.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include <xxhash.h>

#include "sl_build.h"
#include "sl_lmemo.h"
#include "sl_sfframes.h"
#include "sl_slimefile.h"
#include "sl_store.h"
#include "sl_vsum.h"

/* Store entries gathered for one save. */
typedef struct put_list
{
	Datum	   *hashes;
	Datum	   *entries;
	int			n;
	int			cap;
} put_list;

/* Keep a store entry for the insert (sl_lmemo_put_fn). */
static int
put_entry(void *ctx, const uint8_t hash[32], const uint8_t *entry, size_t len, sl_err *err)
{
	put_list   *l = ctx;

	if (l->n == l->cap)
	{
		l->cap = l->cap ? l->cap * 2 : 16;
		l->hashes = l->hashes ? repalloc(l->hashes, sizeof(Datum) * l->cap) : palloc(sizeof(Datum) * l->cap);
		l->entries = l->entries ? repalloc(l->entries, sizeof(Datum) * l->cap) : palloc(sizeof(Datum) * l->cap);
	}
	l->hashes[l->n] = PointerGetDatum(slime_from_bytes(hash, 32));
	l->entries[l->n] = PointerGetDatum(slime_from_bytes(entry, len));
	l->n++;
	return 0;
}

/* Keep usable only the entries of a memo whose store entries the store holds. */
static void
check_memo(sl_lmemo *m)
{
	uint8_t    *hashes;
	bool	   *present;

	if (m->n == 0)
		return;
	hashes = palloc(m->n * 32);
	present = palloc(m->n * sizeof(bool));
	for (size_t i = 0; i < m->n; i++)
		memcpy(hashes + 32 * i, m->e[i].hash, 32);
	slime_store_which(hashes, (int) m->n, present);
	for (size_t i = 0; i < m->n; i++)
		m->e[i].usable = present[i];
	pfree(hashes);
	pfree(present);
}



/* Raise a conversion error as slime_from_slimefile does. */
static void
raise_file_error(sl_err *err, int version)
{
	/* the same chunk twice is a malformed file here, not a duplicate key */
	if (err->code == SL_ERR_DUPLICATE)
	{
		err->code = SL_ERR_FORMAT;
		sl_err_prefix(err, "slime file v%d", version);
	}
	slime_raise(err, true);
}

/* Encode a builder as a value, raising as slime_from_slimefile does. */
static struct varlena *
encode_value(sl_builder *b, int version)
{
	sl_encode_opts opts = *slime_encode_opts();
	sl_buf		out = {0};
	sl_err		err;
	struct varlena *r;

	if (sl_buf_put_u32be(&out, 0, &err) ||
		sl_builder_encode(b, &opts, slime_limits(), &out, &err))
		raise_file_error(&err, version);
	r = (struct varlena *) out.data;
	SET_VARSIZE(r, out.len);
	return r;
}

/* The content hash of a value, and the raw bytes of its contents summary (empty: none). */
static void
content_hash(struct varlena *v, uint8_t hash[32], sl_buf *sum)
{
	sl_value	val;
	sl_err		err;
	const uint8_t *raw;
	size_t		len;
	uint8_t    *tmp = NULL;

	if (sl_value_open_mem(&val, (const uint8_t *) VARDATA(v), VARSIZE(v) - VARHDRSZ,
						  slime_limits(), &err))
		slime_raise(&err, false);
	memcpy(hash, val.hdr.hash, 32);
	if (sum && sl_value_has_summary(&val) &&
		(sl_value_summary_raw(&val, &raw, &len, &tmp, &err) || sl_buf_put(sum, raw, len, &err)))
		slime_raise(&err, false);
	sl_free(tmp);
	sl_value_close(&val);
}

/* Raise unless converting the whole file gives a value of the same content hash. */
static void
verify_save(bytea *file, struct varlena *saved)
{
	sl_builder	b;
	sl_err		err;
	uint8_t		want[32],
				got[32];
	char		hw[65],
				hg[65];
	sl_buf		want_sum = {0},
				got_sum = {0};

	memset(&b, 0, sizeof(b));
	if (sl_slimefile_read((const uint8_t *) VARDATA_ANY(file), VARSIZE_ANY_EXHDR(file),
						  slime_limits(), &b, NULL, &err))
		slime_raise(&err, true);
	content_hash(encode_value(&b, 0), want, &want_sum);
	sl_builder_free(&b);
	content_hash(saved, got, &got_sum);
	/* the summary kept from the memo's chunks is the one counting every chunk gives */
	if (want_sum.len != got_sum.len || memcmp(want_sum.data, got_sum.data, want_sum.len) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("loader save's contents summary (%zu bytes) differs from the whole file's conversion (%zu bytes)",
						got_sum.len, want_sum.len),
				 errdetail("slime.loader_verify is on.")));
	if (memcmp(want, got, 32) != 0)
	{
		sl_hash_hex(want, hw);
		sl_hash_hex(got, hg);
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("loader save of content hash %s differs from the whole file's conversion (%s)", hg, hw),
				 errdetail("slime.loader_verify is on.")));
	}
}


/* What a conversion gives: the value, the memo (NULL: none), the chunks reused. */
typedef struct converted_file
{
	struct varlena *value;
	bytea	   *memo;
	int			reused;
	int			version;		/* the file's format version */
	sl_buf		chunks;			/* version 13: the raw chunk block */
	size_t	   *rec_end;		/* version 13: where each chunk record ends in it */
	uint8_t		(*rec_key)[SL_SFFR_KEY];	/* version 13: each record's XXH3-128 (the memo's) */
	size_t		nrec;
	bytea	   *records;		/* deferred (value NULL): the file's records list (sl_lmemo_encode_records) */
} converted_file;

/* The entries of a save another transaction is storing too, which the value keeps inline. */
typedef struct busy_entries
{
	const put_list *puts;
	const bool *busy;
} busy_entries;

/* Index of hash among the busy entries, -1 when it is not one. */
static int
busy_index(const busy_entries *be, const uint8_t hash[32])
{
	for (int i = 0; i < be->puts->n; i++)
		if (be->busy[i] && memcmp(VARDATA_ANY(DatumGetPointer(be->puts->hashes[i])), hash, 32) == 0)
			return i;
	return -1;
}

/* Give a busy entry's bytes to the value being rebuilt (sl_resolve_fn). */
static int
resolve_busy(void *ctx, const sl_dirent *d, const uint8_t **entry, size_t *len, int *checked,
			 sl_err *err)
{
	int			i = busy_index(ctx, d->hash);
	const busy_entries *be = ctx;

	if (i < 0)
		return sl_fail(err, SL_ERR_CORRUPT, "chunk (%d,%d) is not one kept inline", d->x, d->z);
	*entry = (const uint8_t *) VARDATA_ANY(DatumGetPointer(be->puts->entries[i]));
	*len = VARSIZE_ANY_EXHDR(DatumGetPointer(be->puts->entries[i]));
	if (checked)
		*checked = 1;			/* made from the chunk this save hashed */
	return 0;
}

/*
 * The value with the chunks whose entries another transaction in progress
 * is storing (busy) held inline rather than by reference: a save never
 * waits on another's uncommitted entry (issue #33).
 */
static struct varlena *
keep_busy_inline(struct varlena *value, const put_list *puts, const bool *busy, int version)
{
	busy_entries be = {puts, busy};
	sl_value	v;
	sl_builder	b;
	sl_err		err;
	struct varlena *r;

	memset(&b, 0, sizeof(b));
	/* the same chunks, some inline now: the value's summary is theirs still */
	b.sum_manual = 1;
	if (sl_value_open_mem(&v, (const uint8_t *) VARDATA(value), VARSIZE(value) - VARHDRSZ,
						  slime_limits(), &err))
		slime_raise(&err, false);
	v.resolve = resolve_busy;
	v.resolve_ctx = &be;
	for (uint32_t i = 0; i < v.hdr.chunk_count; i++)
	{
		sl_dirent	d;

		if (sl_value_dirent(&v, i, &d, &err) ||
			sl_builder_add_chunk(&b, &v, i, d.ref && busy_index(&be, d.hash) >= 0 ? SL_ADD_RESOLVE : SL_ADD_KEEP,
								 &err))
			slime_raise(&err, false);
	}
	if (sl_builder_add_world(&b, &v, &err) || sl_builder_sum_value(&b, &v, &err))
		slime_raise(&err, false);
	r = encode_value(&b, version);
	sl_builder_free(&b);
	sl_value_close(&v);
	return r;
}

/*
 * Convert a slime file to the reference form of its value, reusing the
 * chunks prev (a memo, NULL for none) knows whose store entries the store
 * still holds; the entries of the others go into the store. A file placed
 * from a framed form's directory (framed, NULL for none: a catch-up) is
 * read frame by frame, the frames of the records prev knows left
 * compressed (sl_slimefile_read_frames), and gives no chunk block.
 */
static void
convert(bytea *file, bytea *prev, bytea *pending, bool defer, const sl_sffr_dir *framed, converted_file *c)
{
	sl_lmemo	memo,
				out;
	sl_builder	b;
	sl_slimefile_info info;
	put_list	puts = {0};
	bool	   *busy;
	sl_buf		mbuf = {0};
	sl_err		err;
	uint8_t		hash[32];

	memset(&memo, 0, sizeof(memo));
	memset(&out, 0, sizeof(out));
	memset(&b, 0, sizeof(b));
	memset(c, 0, sizeof(*c));
	/* a memo is a cache: one that does not decode is no memo */
	if (prev && sl_lmemo_decode((const uint8_t *) VARDATA_ANY(prev), VARSIZE_ANY_EXHDR(prev),
								&memo, &err) == 0)
	{
		/*
		 * a deferred save uses the memo to skip the records it knows, not
		 * their store entries: the records the newest pending save checked
		 * are skipped too (a list that does not decode is none)
		 */
		if (defer)
		{
			for (size_t i = 0; i < memo.n; i++)
				memo.e[i].usable = 1;
			if (pending)
				(void) sl_lmemo_add_records(&memo, (const uint8_t *) VARDATA_ANY(pending),
											VARSIZE_ANY_EXHDR(pending), &err);
		}
		else
			check_memo(&memo);
	}
	else
		defer = false;			/* the first save of a world, or one after a damaged memo, converts */
	if (framed ?
		sl_slimefile_read_frames((const uint8_t *) VARDATA_ANY(file), VARSIZE_ANY_EXHDR(file),
								 slime_limits(), &b, &info, &memo, &out, framed->f, framed->n, &err) :
		sl_slimefile_read_memo((const uint8_t *) VARDATA_ANY(file), VARSIZE_ANY_EXHDR(file),
							   slime_limits(), &b, &info, &memo, &out, &c->chunks, &err))
		raise_file_error(&err, info.version);
	for (size_t i = 0; i < out.n; i++)
		c->reused += out.e[i].known;
	if (info.version == SL_SLIMEFILE_WRITE_VERSION)
	{
		/* the records lie back to back after the chunk count, in the order out notes them */
		size_t		at = 4;

		c->rec_end = palloc(sizeof(size_t) * (out.n ? out.n : 1));
		c->rec_key = palloc(SL_SFFR_KEY * (out.n ? out.n : 1));
		for (size_t i = 0; i < out.n; i++)
		{
			c->rec_end[i] = (at += out.e[i].rec_len);
			memcpy(c->rec_key[i], out.e[i].xxh, SL_SFFR_KEY);
		}
		c->nrec = out.n;
	}
	if (defer && info.version == SL_SLIMEFILE_WRITE_VERSION && out.has_ctx)
	{
		/* checked, not converted: the records list goes with the pending save */
		if (sl_buf_put_u32be(&mbuf, 0, &err) || sl_lmemo_encode_records(&out, &mbuf, &err))
			slime_raise(&err, false);
		SET_VARSIZE(mbuf.data, mbuf.len);
		c->records = (bytea *) mbuf.data;
		c->version = info.version;
		sl_builder_free(&b);
		sl_lmemo_free(&memo);
		sl_lmemo_free(&out);
		return;
	}
	if (sl_lmemo_store_chunks(&b, &out, slime_loader_level(), slime_limits(),
							  put_entry, &puts, &err))
		raise_file_error(&err, info.version);
	sl_lmemo_free(&memo);
	c->value = encode_value(&b, info.version);
	c->version = info.version;
	sl_builder_free(&b);
	busy = palloc(sizeof(bool) * (puts.n ? puts.n : 1));
	if (slime_store_put(puts.hashes, puts.entries, puts.n, busy) > 0)
		c->value = keep_busy_inline(c->value, &puts, busy, info.version);
	if (slime_loader_verify())
		verify_save(file, c->value);
	content_hash(c->value, hash, NULL);
	slime_loader_mark_checked(hash);
	if (out.has_ctx)
	{
		if (sl_buf_put_u32be(&mbuf, 0, &err) || sl_lmemo_encode(&out, &mbuf, &err))
			slime_raise(&err, false);
		SET_VARSIZE(mbuf.data, mbuf.len);
		c->memo = (bytea *) mbuf.data;
	}
	sl_lmemo_free(&out);
}

PG_FUNCTION_INFO_V1(slime_loader_convert);
/*
 * A slime file as the reference form of its value (data), the memo of its
 * chunk records (memo, NULL when the file's version keeps none) and how many
 * chunks were taken from the previous memo (reused), given the memo of the
 * world's previous save (NULL, or a malformed one: none).
 */
Datum
slime_loader_convert(PG_FUNCTION_ARGS)
{
	converted_file c;
	TupleDesc	td;
	Datum		vals[3];
	bool		nulls[3] = {false, false, false};

	if (get_call_result_type(fcinfo, NULL, &td) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "slime_loader_convert must return a record");
	convert(PG_GETARG_BYTEA_PP(0), PG_ARGISNULL(1) ? NULL : PG_GETARG_BYTEA_PP(1), NULL, false, NULL, &c);
	vals[0] = PointerGetDatum(c.value);
	vals[1] = PointerGetDatum(c.memo);
	nulls[1] = c.memo == NULL;
	vals[2] = Int32GetDatum(c.reused);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(td), vals, nulls)));
}

/* The statements of a save, prepared once per saves table. */
typedef enum save_query
{
	LQ_LOCK,					/* the world's memo, its row locked, if token holds its lease */
	LQ_CHECK,					/* slime_lease_check(): why it does not */
	LQ_FILE,					/* the next save number, the world's file and memo */
	LQ_INSERT,					/* the save (its time now, or given: a caught-up one's) and the retention */
	LQ_LOAD_FILE,				/* the kept file, the newest save's number, and that save (NULL: pending or gone) */
	LQ_LOAD_VALUE,				/* the newest save's value */
	LQ_FRAMES_PUT,				/* the frames a save made */
	LQ_FRAMES_DROP,				/* frames of the previous directory the new one lacks */
	LQ_FRAMES_ONLY,				/* every frame of the world but the new directory's */
	LQ_LOAD_FRAMES,				/* the world's frames, one row each */
	LQ_PENDING_LAST,			/* the records list of the world's newest pending save */
	LQ_PENDING_PUT,				/* a pending save */
	LQ_PENDING_ROWS,			/* the world's pending saves, oldest first */
	LQ_PENDING_DONE,			/* a pending save converted (or past keep) */
	LQ_CATCH_LOCK,				/* the world's memo, kept file and newest save, its row locked */
	LQ_CATCH_TRY,				/* the same, or no row when another holds the lock */
	LQ_MEMO_SET,				/* the world's memo after a catch-up */
	LQ_PENDING_HAS,				/* whether a save of the world is pending */
	LQ_PENDING_WORLDS,			/* the worlds with a pending save, the longest waiting first */
	LQ_LOAD_FRAMES_K,			/* the frames of the world a directory names (others may be a pending save's) */
	LQ_FILE_PENDING,			/* LQ_FILE for a pending save: the memo left as it is (its TOAST kept) */
	LQ_COUNT
} save_query;

/*
 * LQ_LOCK is slime_lease_check()'s rule (the token is the world's, a holder
 * has it, it has not expired, the calling role took it) as one prepared statement; when it finds no
 * row, LQ_CHECK runs slime_lease_check() itself for the error. The fence
 * trigger lets through the row LQ_INSERT inserts (slime_loader_fenced).
 */
static const char *const save_sql[LQ_COUNT] = {
	"SELECT memo, CASE WHEN pg_catalog.substring(file, 1, 4) OPERATOR(pg_catalog.=) '\\x534c4652'::pg_catalog.bytea "
	"THEN file END FROM %s WHERE world OPERATOR(pg_catalog.=) $1 AND token OPERATOR(pg_catalog.=) $2 "
	"AND holder IS NOT NULL AND NOT coalesce(expires OPERATOR(pg_catalog.<=) pg_catalog.clock_timestamp(), false) "
	"AND leased_by OPERATOR(pg_catalog.=) $3 FOR UPDATE",
	"SELECT %s.slime_lease_check($1, $2, $3)",
	"UPDATE %s SET saves = saves OPERATOR(pg_catalog.+) 1, file = $2, memo = $3 "
	"WHERE world OPERATOR(pg_catalog.=) $1 RETURNING saves",
	"WITH ins AS (INSERT INTO %1$s (world, save, saved_at, token, data) "
	"VALUES ($1, $5, coalesce($6, pg_catalog.clock_timestamp()), $2, $3) RETURNING save), "
	"gone AS (DELETE FROM %1$s WHERE world OPERATOR(pg_catalog.=) $1 "
	"AND save OPERATOR(pg_catalog.<=) ((SELECT save FROM ins) OPERATOR(pg_catalog.-) $4)) "
	"SELECT save FROM ins",
	"SELECT w.file, s.data, w.saves FROM %s w LEFT JOIN %s s ON s.world OPERATOR(pg_catalog.=) w.world "
	"AND s.save OPERATOR(pg_catalog.=) w.saves WHERE w.world OPERATOR(pg_catalog.=) $1 AND w.file IS NOT NULL",
	"SELECT data FROM %s WHERE world OPERATOR(pg_catalog.=) $1 ORDER BY save DESC LIMIT 1",
	"INSERT INTO %s (world, key, frame) SELECT $1, k, f FROM ROWS FROM (pg_catalog.unnest($2), pg_catalog.unnest($3)) AS u(k, f) "
	"ON CONFLICT (world, key) DO UPDATE SET frame = EXCLUDED.frame",
	"DELETE FROM %s WHERE world OPERATOR(pg_catalog.=) $1 AND key OPERATOR(pg_catalog.=) ANY ($2)",
	"DELETE FROM %s WHERE world OPERATOR(pg_catalog.=) $1 AND NOT key OPERATOR(pg_catalog.=) ANY ($2)",
	/*
	 * after LQ_LOAD_FILE, under the same snapshot (the load's statements
	 * run read-only: every one sees the snapshot the load began with). One
	 * statement joining the frames to the world's row and save copied the
	 * directory and the save's value into every frame's row
	 */
	"SELECT key, frame FROM %s WHERE world OPERATOR(pg_catalog.=) $1",
	"SELECT records FROM %s WHERE world OPERATOR(pg_catalog.=) $1 ORDER BY save DESC LIMIT 1",
	"INSERT INTO %s (world, save, saved_at, token, keep, dir, records) "
	"VALUES ($1, $2, pg_catalog.clock_timestamp(), $3, $4, $5, $6)",
	"SELECT save, saved_at, token, keep, dir FROM %s WHERE world OPERATOR(pg_catalog.=) $1 ORDER BY save",
	"DELETE FROM %s WHERE world OPERATOR(pg_catalog.=) $1 AND save OPERATOR(pg_catalog.=) $2",
	"SELECT memo, file, saves FROM %s WHERE world OPERATOR(pg_catalog.=) $1 FOR UPDATE",
	"SELECT memo, file, saves FROM %s WHERE world OPERATOR(pg_catalog.=) $1 FOR UPDATE SKIP LOCKED",
	"UPDATE %s SET memo = $2 WHERE world OPERATOR(pg_catalog.=) $1",
	"SELECT true FROM %s WHERE world OPERATOR(pg_catalog.=) $1 AND save OPERATOR(pg_catalog.=) $2",
	"SELECT world FROM %s GROUP BY world ORDER BY pg_catalog.min(saved_at) LIMIT $1",
	"SELECT key, frame FROM %s WHERE world OPERATOR(pg_catalog.=) $1 AND key OPERATOR(pg_catalog.=) ANY ($2)",
	"UPDATE %s SET saves = saves OPERATOR(pg_catalog.+) 1, file = $2 "
	"WHERE world OPERATOR(pg_catalog.=) $1 RETURNING saves"
};

/*
 * The table save_sql[q] names: (w)orlds, (s)aves, (f)rames, (p)ending,
 * (e)xtension's schema, (l)oad: worlds and saves.
 */
static const char save_on[LQ_COUNT] = {'w', 'e', 'w', 's', 'l', 's', 'f', 'f', 'f', 'f',
'p', 'p', 'p', 'p', 'w', 'w', 'w', 'p', 'p', 'f', 'w'};

/* Plans of save_sql for the saves table last saved to, with the names they were made for. */
static struct
{
	Oid			tbl;
	char	   *names;			/* "saves worlds frames schema" as quoted then */
	SPIPlanPtr	plans[LQ_COUNT];
}			save_plans;

/* The slime type of the extension's schema ext. */
static Oid
slime_type_in(Oid ext)
{
	return GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid, CStringGetDatum("slime"), ObjectIdGetDatum(ext));
}

/*
 * Prepare (or keep) the plans of statements first..last of a save to tbl,
 * whose worlds table is worlds: a session that only loads prepares no save.
 */
static void
prepare_save(Oid tbl, Oid worlds, Oid frames, Oid pending, FunctionCallInfo fcinfo, save_query first,
			 save_query last)
{
	Oid			ext = get_func_namespace(fcinfo->flinfo->fn_oid);
	char	   *saves_name = slime_rel_qualified(tbl);
	char	   *worlds_name = slime_rel_qualified(worlds);
	char	   *frames_name = OidIsValid(frames) ? slime_rel_qualified(frames) : "-";
	char	   *pending_name = OidIsValid(pending) ? slime_rel_qualified(pending) : "-";
	const char *ext_name = quote_identifier(get_namespace_name(ext));
	char	   *names = psprintf("%s %s %s %s %s", saves_name, worlds_name, frames_name, pending_name, ext_name);
	Oid			types[LQ_COUNT][6] = {
		{TEXTOID, INT8OID, NAMEOID},
		{REGCLASSOID, TEXTOID, INT8OID},
		{TEXTOID, BYTEAOID, BYTEAOID},
		{TEXTOID, INT8OID, slime_type_in(ext), INT4OID, INT8OID, TIMESTAMPTZOID},
		{TEXTOID},
		{TEXTOID},
		{TEXTOID, BYTEAARRAYOID, BYTEAARRAYOID},
		{TEXTOID, BYTEAARRAYOID},
		{TEXTOID, BYTEAARRAYOID},
		{TEXTOID},
		{TEXTOID},
		{TEXTOID, INT8OID, INT8OID, INT4OID, BYTEAOID, BYTEAOID},
		{TEXTOID},
		{TEXTOID, INT8OID},
		{TEXTOID},
		{TEXTOID},
		{TEXTOID, BYTEAOID},
		{TEXTOID, INT8OID},
		{INT4OID},
		{TEXTOID, BYTEAARRAYOID},
		{TEXTOID, BYTEAOID}
	};
	int			nargs[LQ_COUNT] = {3, 3, 3, 6, 1, 1, 3, 2, 2, 1, 1, 6, 1, 2, 1, 1, 2, 2, 1, 2, 2};

	if (save_plans.tbl != tbl || save_plans.names == NULL || strcmp(save_plans.names, names) != 0)
	{
		for (int q = 0; q < LQ_COUNT; q++)
			if (save_plans.plans[q])
				SPI_freeplan(save_plans.plans[q]);
		memset(save_plans.plans, 0, sizeof(save_plans.plans));
		if (save_plans.names)
			pfree(save_plans.names);
		save_plans.names = MemoryContextStrdup(TopMemoryContext, names);
		save_plans.tbl = tbl;
	}
	for (int q = first; q <= last; q++)
	{
		char	   *sql;
		SPIPlanPtr	plan;

		if (save_plans.plans[q] || (!OidIsValid(frames) && save_on[q] == 'f') ||
			(!OidIsValid(pending) && save_on[q] == 'p'))
			continue;
		switch (save_on[q])
		{
			case 'w':
				sql = psprintf(save_sql[q], worlds_name);
				break;
			case 's':
				sql = psprintf(save_sql[q], saves_name);
				break;
			case 'f':
				sql = psprintf(save_sql[q], frames_name);
				break;
			case 'p':
				sql = psprintf(save_sql[q], pending_name);
				break;
			case 'e':
				sql = psprintf(save_sql[q], ext_name);
				break;
			default:
				sql = psprintf(save_sql[q], worlds_name, saves_name);
				break;
		}
		/*
		 * generic plans: every statement reads or writes one world's rows
		 * by its key, so the plan cannot depend on the arguments, and a
		 * custom plan (which the plan cache keeps choosing when it costs
		 * an array argument lower than its generic plan) is planned again
		 * on each save
		 */
		plan = SPI_prepare_cursor(sql, nargs[q], types[q], CURSOR_OPT_GENERIC_PLAN);
		if (plan == NULL || SPI_keepplan(plan))
			elog(ERROR, "SPI_prepare failed for \"%s\": %s", sql, SPI_result_code_string(SPI_result));
		save_plans.plans[q] = plan;
	}
}

/*
 * Run a save statement; its first column of its one row (NULL: none, or
 * *isnull). The statements that read a world's frames run without bitmap
 * scans: their rows lie a page each (a frame fills one), which makes a
 * bitmap heap scan look cheaper than the index scan it is not (its
 * prefetch looks up every page twice: a load of hub.slime's 124 frames
 * took 0.43-0.44 ms with it, 0.32-0.36 ms without). So does the save's
 * insert, whose retention deletes the world's saves older than keep: a
 * bitmap scan never marks the index entries of the rows it finds dead, so
 * each save visited every save of its world deleted since the table's
 * last VACUUM again (8% of a save's CPU, a world saved in a loop); an
 * index scan marks them, and the next save skips them. The setting is in
 * force for the statement alone, so also whenever its plan is made again.
 */
static Datum
run_save(save_query q, Datum *args, const char *nulls, int expect, bool *isnull)
{
	bool		read_only = q == LQ_LOAD_FILE || q == LQ_LOAD_VALUE || q == LQ_LOAD_FRAMES || q == LQ_PENDING_HAS;
	bool		by_key = q == LQ_LOAD_FRAMES || q == LQ_FRAMES_DROP || q == LQ_FRAMES_ONLY || q == LQ_INSERT ||
		q == LQ_LOAD_FRAMES_K;
	int			nest = by_key ? slime_guc_push("enable_bitmapscan", "off") : 0;
	int			rc = SPI_execute_plan(save_plans.plans[q], args, nulls, read_only, 0);

	if (by_key)
		slime_guc_pop(nest);

	*isnull = true;
	if (rc != expect)
		elog(ERROR, "loader save statement failed (SPI %d): %s", rc, save_sql[q]);
	if (SPI_tuptable == NULL || SPI_processed == 0)
		return (Datum) 0;
	return SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, isnull);
}

/*
 * Run the read-only statement q of a text argument (a world's name) and,
 * unless (Datum) 0, a bytea[] one (keys), its rows going to dest rather
 * than into SPI's tuple table; as run_save runs it (by key: no bitmap
 * scan).
 */
static void
run_save_into(save_query q, Datum arg, Datum keys, DestReceiver *dest)
{
	ParamListInfo params = makeParamList(keys ? 2 : 1);
	SPIExecuteOptions opts;
	int			nest = slime_guc_push("enable_bitmapscan", "off");
	int			rc;

	params->params[0].value = arg;
	params->params[0].isnull = false;
	params->params[0].pflags = PARAM_FLAG_CONST;
	params->params[0].ptype = TEXTOID;
	if (keys)
	{
		params->params[1].value = keys;
		params->params[1].isnull = false;
		params->params[1].pflags = PARAM_FLAG_CONST;
		params->params[1].ptype = BYTEAARRAYOID;
	}
	memset(&opts, 0, sizeof(opts));
	opts.params = params;
	opts.read_only = true;
	opts.dest = dest;
	rc = SPI_execute_plan_extended(save_plans.plans[q], &opts);
	slime_guc_pop(nest);
	if (rc != SPI_OK_SELECT)
		elog(ERROR, "loader load statement failed (SPI %d): %s", rc, save_sql[q]);
}

/*
 * The file a load gives back, in the hot form the world's row keeps it in
 * (a load checks it, keptfile.c): a version-13 file as it came; another
 * written as version 13 when its world fits one, else as it came.
 */
static bytea *
file_to_keep(bytea *file, const converted_file *c)
{
	slime_open_value o;
	sl_buf		out = {0};
	sl_err		err;
	int			rc;
	bytea	   *r;

	if (c->version == SL_SLIMEFILE_WRITE_VERSION)
		return slime_loader_hot((const uint8_t *) VARDATA_ANY(file), VARSIZE_ANY_EXHDR(file));
	slime_open(&o, PointerGetDatum(c->value), true);
	rc = sl_slimefile_write(&o.v, SL_DEFAULT_LEVEL, slime_limits(), &out, NULL, &err);
	sl_value_close(&o.v);
	if (rc && err.code == SL_ERR_UNSUPPORTED)
		/* chunks before 1.18, mixed DataVersions, ...: kept as given */
		return slime_loader_hot((const uint8_t *) VARDATA_ANY(file), VARSIZE_ANY_EXHDR(file));
	if (rc)
		slime_raise(&err, false);
	r = slime_loader_hot(out.data, out.len);
	sl_buf_free(&out);
	return r;
}

/* A bytea array of n varlenas. */
static Datum
bytea_array(Datum *elems, int n)
{
	return PointerGetDatum(construct_array(elems, n, BYTEAOID, -1, false, TYPALIGN_INT));
}

/* The keys of framed directory dir as a bytea[] (empty when it does not open). */
static Datum
dir_keys(bytea *dir)
{
	sl_sffr_dir d;
	sl_err		err;
	Datum	   *kd;
	uint32_t	n = 0;

	if (dir == NULL || sl_sffr_open((const uint8_t *) VARDATA_ANY(dir), VARSIZE_ANY_EXHDR(dir), &d, &err))
		return bytea_array(palloc(sizeof(Datum)), 0);
	kd = palloc(sizeof(Datum) * (d.n ? d.n : 1));
	for (uint32_t i = 0; i < d.n; i++)
		kd[n++] = PointerGetDatum(slime_from_bytes(d.f[i].key, SL_SFFR_KEY));
	sl_sffr_dir_free(&d);
	return bytea_array(kd, n);
}

/* Order 16-byte keys. */
static int
cmp_key16(const void *a, const void *b)
{
	return memcmp(a, b, SL_SFFR_KEY);
}

/*
 * The framed form a save keeps of a version-13 file (sl_sfframes.h): the
 * directory, for the world's row; the frames the previous directory (prev,
 * NULL: none, or one that does not open) lacks go into the _frames table,
 * and, when drop (not for a pending save, whose world's frames stay until
 * it is caught up), the world's frames the new directory does not name
 * leave it (those of prev only, or, without prev, every other). The frames prev names are
 * reused unread: the save that wrote prev wrote them, and a load checks
 * each against its length and XXH64 (a damaged one: the file is written
 * from the save), so that a save reads nothing of the world's file but
 * its directory. With SPI connected and the save statements prepared.
 * Frames are compressed at level 3, as slime_to_slimefile and zstd-jni
 * write a file's blocks.
 */
static bytea *
keep_framed(bytea *file, const converted_file *c, bytea *prev, Datum world, bool drop)
{
	sl_sffr_dir pd;
	bool		have_prev = false;
	sl_sffr_built b;
	sl_err		err;
	Datum		args[3];
	uint8_t    *keys;
	Datum	   *kd;
	bool		isnull;
	int			nstale = 0;
	bytea	   *dir;

	if (prev)
		have_prev = sl_sffr_open((const uint8_t *) VARDATA_ANY(prev), VARSIZE_ANY_EXHDR(prev), &pd, &err) == 0;
	if (sl_sffr_build((const uint8_t *) VARDATA_ANY(file), VARSIZE_ANY_EXHDR(file),
					  c->chunks.data, c->chunks.len, c->rec_end, (const uint8_t (*)[SL_SFFR_KEY]) c->rec_key, c->nrec,
					  have_prev ? &pd : NULL, SL_DEFAULT_LEVEL, &b, &err))
		slime_raise(&err, false);
	args[0] = world;
	if (b.nnew > 0)
	{
		Datum	   *fd = palloc(sizeof(Datum) * b.nnew);

		kd = palloc(sizeof(Datum) * b.nnew);
		for (uint32_t i = 0; i < b.nnew; i++)
		{
			const sl_sffr_frame *f = &b.f[b.news[i].index];

			kd[i] = PointerGetDatum(slime_from_bytes(f->key, SL_SFFR_KEY));
			fd[i] = PointerGetDatum(slime_from_bytes(b.bytes.data + b.news[i].off, f->clen));
		}
		args[1] = bytea_array(kd, b.nnew);
		args[2] = bytea_array(fd, b.nnew);
		run_save(LQ_FRAMES_PUT, args, NULL, SPI_OK_INSERT, &isnull);
	}
	/* a pending save's frames stay until its world is caught up; else those the new directory lacks go */
	if (drop)
	{
		/* the keys of the new directory, sorted */
		keys = palloc((size_t) SL_SFFR_KEY * (b.n ? b.n : 1));
		for (uint32_t i = 0; i < b.n; i++)
			memcpy(keys + (size_t) SL_SFFR_KEY * i, b.f[i].key, SL_SFFR_KEY);
		qsort(keys, b.n, SL_SFFR_KEY, cmp_key16);
		if (have_prev)
		{
			kd = palloc(sizeof(Datum) * (pd.n ? pd.n : 1));
			for (uint32_t i = 0; i < pd.n; i++)
				if (!bsearch(pd.f[i].key, keys, b.n, SL_SFFR_KEY, cmp_key16))
					kd[nstale++] = PointerGetDatum(slime_from_bytes(pd.f[i].key, SL_SFFR_KEY));
			if (nstale > 0)
			{
				args[1] = bytea_array(kd, nstale);
				run_save(LQ_FRAMES_DROP, args, NULL, SPI_OK_DELETE, &isnull);
			}
		}
		else
		{
			kd = palloc(sizeof(Datum) * (b.n ? b.n : 1));
			for (uint32_t i = 0; i < b.n; i++)
				kd[i] = PointerGetDatum(slime_from_bytes(keys + (size_t) SL_SFFR_KEY * i, SL_SFFR_KEY));
			args[1] = bytea_array(kd, b.n);
			run_save(LQ_FRAMES_ONLY, args, NULL, SPI_OK_DELETE, &isnull);
		}
	}
	if (have_prev)
		sl_sffr_dir_free(&pd);
	dir = (bytea *) slime_from_bytes(b.dir.data, b.dir.len);
	sl_sffr_built_free(&b);
	return dir;
}

/*
 * The save slime_loader_save is inserting: the saves table, world and save
 * number whose lease it checked, in this transaction and subtransaction. The
 * fence trigger lets that row through (slime_loader_fenced) rather than
 * checking the lease and drawing a number again. Set only around the insert.
 */
static struct
{
	slime_subxact at;
	Oid			saves;
	int64		save;
	text	   *world;
}			fenced;

/* Forget the save being inserted. */
static void
unfence(void)
{
	fenced.at.lxid = InvalidLocalTransactionId;
	fenced.saves = InvalidOid;
}

PG_FUNCTION_INFO_V1(slime_loader_fenced);
/*
 * Whether the row (world, save) going into the saves table tbl is the save
 * slime_loader_save is inserting, its lease checked and its number drawn.
 */
Datum
slime_loader_fenced(PG_FUNCTION_ARGS)
{
	text	   *world = PG_GETARG_TEXT_PP(1);

	PG_RETURN_BOOL(slime_subxact_is(fenced.at) &&
				   fenced.saves == PG_GETARG_OID(0) && fenced.save == PG_GETARG_INT64(2) &&
				   VARSIZE_ANY_EXHDR(world) == VARSIZE_ANY_EXHDR(fenced.world) &&
				   memcmp(VARDATA_ANY(world), VARDATA_ANY(fenced.world), VARSIZE_ANY_EXHDR(world)) == 0);
}

/* Run the insert q of save (args[4]) of world (args[0]) into tbl, its row let through the fence trigger. */
static void
insert_fenced(save_query q, Datum *args, const char *nulls, Oid tbl)
{
	bool		isnull;

	if (fenced.world)
		pfree(fenced.world);
	fenced.world = (text *) MemoryContextAlloc(TopMemoryContext, VARSIZE_ANY(DatumGetPointer(args[0])));
	memcpy(fenced.world, DatumGetPointer(args[0]), VARSIZE_ANY(DatumGetPointer(args[0])));
	fenced.saves = tbl;
	fenced.save = DatumGetInt64(args[4]);
	fenced.at = slime_subxact_now();
	PG_TRY();
	{
		run_save(q, args, nulls, SPI_OK_SELECT, &isnull);
	}
	PG_FINALLY();
	{
		unfence();
	}
	PG_END_TRY();
}

/* A copy in cxt of column col of row r of the last SPI result, or NULL. */
static bytea *
spi_bytea(int r, int col, MemoryContext cxt)
{
	bool		isnull;
	Datum		d = SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, col, &isnull);
	MemoryContext old;
	bytea	   *b;

	if (isnull)
		return NULL;
	old = MemoryContextSwitchTo(cxt);
	b = (bytea *) PG_DETOAST_DATUM_COPY(d);
	MemoryContextSwitchTo(old);
	return b;
}

/* Column col (int8) of row r of the last SPI result. */
static int64
spi_int8(int r, int col)
{
	bool		isnull;
	Datum		d = SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, col, &isnull);

	return isnull ? 0 : DatumGetInt64(d);
}

/*
 * Convert the pending saves of world (its row locked, memo its memo, kept
 * the file its row keeps) in order: each one's file placed from its
 * directory and the world's frames, converted against the memo of the one
 * before, inserted into the saves table with its time and token and its
 * keep applied, its pending row deleted; those its newest pending save's
 * keep leaves out are deleted unconverted. A pending save whose frames
 * are damaged or missing (they are its only copy) is lost: a WARNING says
 * so and its row goes when a save newer than it exists (its number is
 * below newest, the world's newest save or the one being made); else (it
 * is the world's newest save, which a load then refuses to give) it stays.
 * Then the world's memo is the last conversion's, and the frames its kept
 * file does not name go. With SPI connected and the statements prepared.
 * How many were converted.
 */
static int64
catch_up_world(Oid tbl, Datum world, bytea *memo, bytea *kept, int64 newest_save, MemoryContext cxt)
{
	SPITupleTable *rows;
	uint64		n;
	bool		isnull;
	int64		done = 0;
	int64		newest;
	Datum		keepd;
	bool		keep_null;

	run_save(LQ_PENDING_ROWS, &world, NULL, SPI_OK_SELECT, &isnull);
	/* every row is handled below: a damaged one that stays is the last (the newest save) */
	rows = SPI_tuptable;
	n = SPI_processed;
	if (n == 0)
		return 0;
	newest = DatumGetInt64(SPI_getbinval(rows->vals[n - 1], rows->tupdesc, 1, &isnull));
	keepd = SPI_getbinval(rows->vals[n - 1], rows->tupdesc, 4, &keep_null);
	for (uint64 i = 0; i < n; i++)
	{
		HeapTuple	t = rows->vals[i];
		Datum		save = SPI_getbinval(t, rows->tupdesc, 1, &isnull);
		Datum		del[2] = {world, save};

		CHECK_FOR_INTERRUPTS();
		if (keep_null || DatumGetInt64(save) > newest - DatumGetInt32(keepd))
		{
			/* each save's file and conversion in a context of its own: a batch holds one at a time */
			MemoryContext one = AllocSetContextCreate(CurrentMemoryContext, "slime catch-up save",
													  ALLOCSET_DEFAULT_SIZES);
			MemoryContext old = MemoryContextSwitchTo(one);
			Datum		args[6];
			char		nulls[6] = {' ', ' ', ' ', ' ', ' ', ' '};
			bool		knull;
			bytea	   *dir = DatumGetByteaPP(SPI_getbinval(t, rows->tupdesc, 5, &isnull));
			DestReceiver *dest = slime_loader_framed_dest(dir, one);
			bytea	   *file;
			converted_file c;
			char	   *why;
			sl_sffr_dir d;
			sl_err		err;

			/* by key: a world's frames are those of its pending saves, a catch-up reads one save's */
			run_save_into(LQ_LOAD_FRAMES_K, world, dir_keys(dir), dest);
			file = slime_loader_framed_try(dest, &why);
			if (file == NULL)
			{
				bool		lost = DatumGetInt64(save) < newest_save;

				ereport(WARNING,
						(errcode(ERRCODE_DATA_CORRUPTED),
						 errmsg("loader %s, world \"%s\", pending save " INT64_FORMAT ": %s",
								slime_rel_qualified(tbl), text_to_cstring(DatumGetTextPP(world)),
								DatumGetInt64(save), why),
						 errdetail(lost ? "Its frames are its only copy: the save is lost, a newer one stands."
								   : "Its frames are its only copy, and it is the world's newest save: it stays pending, and a load of the world fails, until a newer save.")));
				MemoryContextSwitchTo(old);
				MemoryContextDelete(one);
				if (lost)
					run_save(LQ_PENDING_DONE, del, NULL, SPI_OK_DELETE, &isnull);
				continue;
			}
			/* the directory the framed dest checked: its frames, for reading only those that changed */
			if (sl_sffr_open((const uint8_t *) VARDATA_ANY(dir), VARSIZE_ANY_EXHDR(dir), &d, &err))
				slime_raise(&err, false);
			convert(file, memo, NULL, false, &d, &c);
			sl_sffr_dir_free(&d);
			args[0] = world;
			args[1] = SPI_getbinval(t, rows->tupdesc, 3, &isnull);	/* token */
			args[2] = PointerGetDatum(c.value);
			args[3] = SPI_getbinval(t, rows->tupdesc, 4, &knull);	/* keep */
			nulls[3] = knull ? 'n' : ' ';
			args[4] = save;
			args[5] = SPI_getbinval(t, rows->tupdesc, 2, &isnull);	/* saved_at */
			insert_fenced(LQ_INSERT, args, nulls, tbl);
			/* the memo the next conversion reads, kept past this save's context */
			MemoryContextSwitchTo(cxt);
			memo = c.memo ? (bytea *) PG_DETOAST_DATUM_COPY(PointerGetDatum(c.memo)) : NULL;
			MemoryContextSwitchTo(old);
			MemoryContextDelete(one);
			done++;
		}
		run_save(LQ_PENDING_DONE, del, NULL, SPI_OK_DELETE, &isnull);
	}
	{
		Datum		args[2] = {world, PointerGetDatum(memo)};
		char		nulls[2] = {' ', memo ? ' ' : 'n'};

		run_save(LQ_MEMO_SET, args, nulls, SPI_OK_UPDATE, &isnull);
		/* the frames the kept file names stay; none when it is not framed */
		args[1] = dir_keys(kept);
		run_save(LQ_FRAMES_ONLY, args, NULL, SPI_OK_DELETE, &isnull);
	}
	return done;
}

/*
 * Save a slime file (any version) as world's next save under lease token and
 * keep the newest keep saves (NULL: all); the save's number. The world's
 * row is locked and its lease checked first; only the chunks that differ
 * from the world's memo are converted; the next save number, the file a
 * load gives back and the new memo go into the world's row in one update.
 * With slime.loader_defer on and the loader's _pending table, a save of a
 * version-13 file to a world with a memo converts nothing: it checks the
 * records that differ from the memo and from its newest pending save,
 * keeps its frames and directory and a pending row, and the memo stays
 * (slime_loader_catch_up converts). A save that converts catches its world
 * up first. The statements are prepared once per saves table.
 */
static Datum
save_as_owner(PG_FUNCTION_ARGS)
{
	Oid			tbl;
	Oid			worlds;
	Oid			frames;
	Oid			pending;
	Datum		args[6];
	char		nulls[6] = {' ', ' ', ' ', ' ', ' ', ' '};
	bool		isnull;
	Datum		saved;
	bytea	   *file;
	bytea	   *prev = NULL;
	bytea	   *prev_dir = NULL;
	bytea	   *last = NULL;
	bool		defer;
	converted_file c;
	MemoryContext outer = CurrentMemoryContext;

	tbl = PG_GETARG_OID(0);
	worlds = slime_loader_worlds_required(tbl);
	frames = slime_loader_frames_of(tbl);
	pending = OidIsValid(frames) ? slime_loader_pending_of(tbl) : InvalidOid;
	defer = OidIsValid(pending) && slime_loader_defer();
	file = PG_GETARG_BYTEA_PP(3);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	prepare_save(tbl, worlds, frames, pending, fcinfo, LQ_LOCK, LQ_INSERT);
	prepare_save(tbl, worlds, frames, pending, fcinfo, LQ_FRAMES_PUT, LQ_COUNT - 1);
	args[0] = PointerGetDatum(PG_GETARG_TEXT_PP(1));
	args[1] = PG_GETARG_DATUM(2);
	args[2] = slime_loader_caller_name();
	saved = run_save(LQ_LOCK, args, nulls, SPI_OK_SELECT, &isnull);
	if (SPI_processed == 0)
	{
		/* slime_lease_check() says why the lease is not held */
		Datum		check[3] = {ObjectIdGetDatum(worlds), PG_GETARG_DATUM(1), PG_GETARG_DATUM(2)};

		run_save(LQ_CHECK, check, NULL, SPI_OK_SELECT, &isnull);
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("lease of world \"%s\" is not held by token " INT64_FORMAT,
						text_to_cstring(PG_GETARG_TEXT_PP(1)), PG_GETARG_INT64(2))));
	}
	prev_dir = spi_bytea(0, 2, outer);
	prev = spi_bytea(0, 1, outer);
	if (OidIsValid(pending))
	{
		run_save(LQ_PENDING_LAST, args, NULL, SPI_OK_SELECT, &isnull);
		if (SPI_processed > 0)
			last = spi_bytea(0, 1, outer);
	}
	SPI_finish();
	convert(file, prev, last, defer, NULL, &c);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	/*
	 * a save that converts (deferral off, or a file or memo it cannot
	 * defer with) comes after its world's pending saves: they are
	 * converted first, under the row lock this save holds, their frames
	 * still there (the memo they leave is this save's to replace)
	 */
	if (last && c.value != NULL)
		catch_up_world(tbl, args[0], prev, prev_dir, PG_INT64_MAX, outer);
	/* the framed form where the loader has its frames table, for a version-13 file */
	if (OidIsValid(frames) && c.version == SL_SLIMEFILE_WRITE_VERSION)
		args[1] = PointerGetDatum(keep_framed(file, &c, prev_dir, args[0], c.value != NULL));
	else
		args[1] = PointerGetDatum(file_to_keep(file, &c));
	sl_buf_free(&c.chunks);
	if (c.value == NULL)
	{
		/* pending: the memo stays the converter's, untouched */
		Datum		dir = args[1];

		saved = run_save(LQ_FILE_PENDING, args, nulls, SPI_OK_UPDATE_RETURNING, &isnull);
		if (isnull)
			elog(ERROR, "the world row of \"%s\" gave no save number", text_to_cstring(PG_GETARG_TEXT_PP(1)));
		args[1] = saved;
		args[2] = PG_GETARG_DATUM(2);
		args[3] = PG_GETARG_DATUM(4);
		nulls[2] = ' ';
		nulls[3] = PG_ARGISNULL(4) ? 'n' : ' ';
		args[4] = dir;
		args[5] = PointerGetDatum(c.records);
		run_save(LQ_PENDING_PUT, args, nulls, SPI_OK_INSERT, &isnull);
		SPI_finish();
		PG_RETURN_DATUM(saved);
	}
	args[2] = PointerGetDatum(c.memo);
	nulls[2] = c.memo ? ' ' : 'n';
	saved = run_save(LQ_FILE, args, nulls, SPI_OK_UPDATE_RETURNING, &isnull);
	if (isnull)
		elog(ERROR, "the world row of \"%s\" gave no save number", text_to_cstring(PG_GETARG_TEXT_PP(1)));
	args[1] = PG_GETARG_DATUM(2);
	args[2] = PointerGetDatum(c.value);
	args[3] = PG_GETARG_DATUM(4);
	args[4] = saved;
	nulls[2] = ' ';
	nulls[3] = PG_ARGISNULL(4) ? 'n' : ' ';
	nulls[5] = 'n';				/* saved now */
	insert_fenced(LQ_INSERT, args, nulls, tbl);
	SPI_finish();
	PG_RETURN_DATUM(saved);
}

/* A world to catch up (catch_up_locked). */
typedef struct catch_up_one
{
	Oid			tbl;
	Datum		world;
	bool		wait;			/* for its row's lock; else skip it when another holds that */
	MemoryContext cxt;
	int64		done;
} catch_up_one;

/* Lock world a->world's row and catch it up (a->done); slime_subxact_try's fn for a batch. */
static void
catch_up_locked(void *arg)
{
	catch_up_one *a = arg;
	bool		isnull;

	run_save(a->wait ? LQ_CATCH_LOCK : LQ_CATCH_TRY, &a->world, NULL, SPI_OK_SELECT, &isnull);
	if (SPI_processed > 0)
		a->done = catch_up_world(a->tbl, a->world, spi_bytea(0, 1, a->cxt), spi_bytea(0, 2, a->cxt),
								 spi_int8(0, 3), a->cxt);
}

/*
 * slime_loader_catch_up(tbl, world, max_worlds): convert the pending saves
 * of world, or (world NULL) of the max_worlds worlds (NULL: all) whose
 * pending saves wait longest, those whose row another holds skipped; how
 * many were converted. As the loader's owner. Each world's row stays
 * locked until the transaction ends: a call does a bounded batch, and
 * slime_loader_catch_up_batches() commits after each.
 */
static Datum
catch_up_as_owner(PG_FUNCTION_ARGS)
{
	Oid			tbl = PG_GETARG_OID(0);
	Oid			worlds = slime_loader_worlds_required(tbl);
	Oid			frames = slime_loader_frames_of(tbl);
	Oid			pending = OidIsValid(frames) ? slime_loader_pending_of(tbl) : InvalidOid;
	MemoryContext outer = CurrentMemoryContext;
	int64		done = 0;
	SPITupleTable *todo;
	uint64		n;
	bool		isnull;
	catch_up_one one;
	char	   *why;

	if (!OidIsValid(pending))
		PG_RETURN_INT64(0);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	prepare_save(tbl, worlds, frames, pending, fcinfo, LQ_LOCK, LQ_COUNT - 1);
	if (PG_ARGISNULL(1))
	{
		Datum		most = Int32GetDatum(PG_NARGS() > 2 && !PG_ARGISNULL(2) ? Max(PG_GETARG_INT32(2), 0) : PG_INT32_MAX);

		run_save(LQ_PENDING_WORLDS, &most, NULL, SPI_OK_SELECT, &isnull);
		todo = SPI_tuptable;
		n = SPI_processed;
	}
	else
	{
		todo = NULL;
		n = 1;
	}
	one.tbl = tbl;
	one.cxt = outer;
	for (uint64 i = 0; i < n; i++)
	{
		one.done = 0;
		if (todo == NULL)
		{
			/* the world asked for: it is waited for, and its error is the call's */
			one.world = PG_GETARG_DATUM(1);
			one.wait = true;
			catch_up_locked(&one);
			done += one.done;
			continue;
		}
		/*
		 * a batch: each world in a subtransaction, so that one whose
		 * conversion finds damage (a WARNING says which) keeps no other
		 * from being caught up
		 */
		one.world = SPI_getbinval(todo->vals[i], todo->tupdesc, 1, &isnull);
		one.wait = false;
		if (slime_subxact_try(catch_up_locked, &one, ERRCODE_DATA_CORRUPTED, &why))
			done += one.done;
		else
			ereport(WARNING,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("%s", why),
					 errdetail("The world's pending saves stay pending; the other worlds are caught up.")));
	}
	SPI_finish();
	PG_RETURN_INT64(done);
}

PG_FUNCTION_INFO_V1(slime_loader_catch_up);
/* slime_loader_catch_up(tbl, world): as the loader's owner, for a role with INSERT on tbl. */
Datum
slime_loader_catch_up(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	return slime_loader_as_owner(fcinfo, ACL_INSERT, catch_up_as_owner);
}

/*
 * The newest save of world as a slime file, or NULL: the file kept in the
 * world's row while its save is the newest (its hot form checked, its cold
 * form warmed, a form of 0.9.0 read as absent: keptfile.c), else version
 * 13 written from the value. Its statements are the save's, prepared once
 * per saves table.
 */
static Datum
load_as_owner(PG_FUNCTION_ARGS)
{
	Oid			tbl = PG_GETARG_OID(0);
	Oid			worlds = slime_loader_worlds_required(tbl);
	Oid			frames = slime_loader_frames_of(tbl);
	Oid			pending = OidIsValid(frames) ? slime_loader_pending_of(tbl) : InvalidOid;
	Datum		arg = PG_GETARG_DATUM(1);
	bool		isnull;
	Datum		r;
	Datum		value = (Datum) 0;	/* the newest save's value; (Datum) 0 while it is pending */
	bytea	   *dir;
	bool		framed;
	MemoryContext outer = CurrentMemoryContext;
	MemoryContext spi;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	prepare_save(tbl, worlds, frames, pending, fcinfo, LQ_LOAD_FILE, LQ_LOAD_VALUE);
	prepare_save(tbl, worlds, frames, pending, fcinfo, LQ_LOAD_FRAMES, LQ_LOAD_FRAMES);
	prepare_save(tbl, worlds, frames, pending, fcinfo, LQ_PENDING_HAS, LQ_PENDING_HAS);
	prepare_save(tbl, worlds, frames, pending, fcinfo, LQ_LOAD_FRAMES_K, LQ_LOAD_FRAMES_K);
	r = run_save(LQ_LOAD_FILE, &arg, NULL, SPI_OK_SELECT, &isnull);
	dir = isnull ? NULL : DatumGetByteaPP(r);	/* read out of TOAST once */
	framed = dir && sl_sffr_is((const uint8_t *) VARDATA_ANY(dir), VARSIZE_ANY_EXHDR(dir));
	if (dir)
	{
		bool		snull;
		Datum		args[2] = {arg, SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3, &snull)};

		value = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &snull);
		/*
		 * the newest save not in the saves table: a framed form's pending
		 * save (a probe of the pending table, off a load's common path),
		 * else gone, and a load gives the newest value's file
		 */
		if (snull)
		{
			bool		is_pending = false;

			value = (Datum) 0;
			if (framed && OidIsValid(pending))
			{
				run_save(LQ_PENDING_HAS, args, NULL, SPI_OK_SELECT, &snull);
				is_pending = !snull;
			}
			if (!is_pending)
				dir = NULL;
		}
	}
	if (dir && framed)
	{
		/*
		 * the framed form: its directory and save (none: the newest save is
		 * pending, its frames its only copy), then its frames (none without
		 * the table). A world whose newest save is converted has no pending
		 * save (a catch-up converts them in order, a save that converts
		 * catches up first) and its frames are the directory's: one range
		 * of the index. Else the frames of its pending saves lie beside
		 * them, as many as the saves not yet caught up: those the directory
		 * names are read by key. A row the directory does not name is
		 * passed over unread.
		 */
		DestReceiver *dest = slime_loader_framed_dest(dir, outer);
		bytea	   *f;

		if (OidIsValid(frames) && value != (Datum) 0)
			run_save_into(LQ_LOAD_FRAMES, arg, (Datum) 0, dest);
		else if (OidIsValid(frames))
			run_save_into(LQ_LOAD_FRAMES_K, arg, dir_keys(dir), dest);
		f = slime_loader_framed_file(dest, value, tbl, text_to_cstring(DatumGetTextPP(arg)), outer);
		SPI_finish();
		PG_RETURN_BYTEA_P(f);
	}
	if (dir == NULL)
		r = run_save(LQ_LOAD_VALUE, &arg, NULL, SPI_OK_SELECT, &isnull);
	else
	{
		/* checked, warmed or written again; the save it was kept for, read by the same statement */
		bytea	   *f = slime_loader_kept_file(PointerGetDatum(dir), value, tbl, text_to_cstring(DatumGetTextPP(arg)),
											   outer);

		SPI_finish();
		PG_RETURN_BYTEA_P(f);
	}
	if (!isnull)
	{
		spi = MemoryContextSwitchTo(outer);
		r = DirectFunctionCall2(slime_to_slimefile, r, Int32GetDatum(SL_SLIMEFILE_WRITE_VERSION));
		MemoryContextSwitchTo(spi);
	}
	SPI_finish();
	if (isnull)
		PG_RETURN_NULL();
	PG_RETURN_DATUM(r);
}

PG_FUNCTION_INFO_V1(slime_loader_save);
/* slime_loader_save(tbl, world, token, file, keep): as the loader's owner, for a role with INSERT on tbl. */
Datum
slime_loader_save(PG_FUNCTION_ARGS)
{
	for (int i = 0; i < 4; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("tbl, world, token and file must not be NULL")));
	if (!PG_ARGISNULL(4) && PG_GETARG_INT32(4) < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a loader keeps at least one save, not %d", PG_GETARG_INT32(4))));
	return slime_loader_as_owner(fcinfo, ACL_INSERT, save_as_owner);
}

PG_FUNCTION_INFO_V1(slime_loader_load);
/* slime_loader_load(tbl, world): as the loader's owner, for a role with SELECT on tbl. */
Datum
slime_loader_load(PG_FUNCTION_ARGS)
{
	return slime_loader_as_owner(fcinfo, ACL_SELECT, load_as_owner);
}

PG_FUNCTION_INFO_V1(slime_loader_worlds);
/* The <name>_worlds table that goes with the saves table tbl (NULL: no such table). */
Datum
slime_loader_worlds(PG_FUNCTION_ARGS)
{
	Oid			tbl = PG_GETARG_OID(0);
	char	   *name = get_rel_name(tbl);
	Oid			w;

	if (name == NULL)
		PG_RETURN_NULL();
	w = slime_loader_worlds_of(tbl);
	if (!OidIsValid(w))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation \"%s.%s_worlds\" does not exist",
						get_namespace_name(get_rel_namespace(tbl)), name),
				 errhint("A loader's tables are made by slime_loader_create.")));
	PG_RETURN_OID(w);
}

PG_FUNCTION_INFO_V1(slime_loader_frames);
/* The <name>_frames table that goes with the saves table tbl (NULL: none, sl_sfframes.h). */
Datum
slime_loader_frames(PG_FUNCTION_ARGS)
{
	Oid			f = slime_loader_frames_of(PG_GETARG_OID(0));

	if (!OidIsValid(f))
		PG_RETURN_NULL();
	PG_RETURN_OID(f);
}

PG_FUNCTION_INFO_V1(slime_loader_pending);
/* The <name>_pending table that goes with the saves table tbl (NULL: none). */
Datum
slime_loader_pending(PG_FUNCTION_ARGS)
{
	Oid			p = slime_loader_pending_of(PG_GETARG_OID(0));

	if (!OidIsValid(p))
		PG_RETURN_NULL();
	PG_RETURN_OID(p);
}
