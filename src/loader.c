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
#include "storage/proc.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "sl_build.h"
#include "sl_lmemo.h"
#include "sl_slimefile.h"
#include "sl_store.h"

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

/*
 * The value slime_loader_convert built last: its content hash, and the
 * transaction and subtransaction it checked and stored its chunks in. Until
 * that subtransaction ends, every chunk it refers to is in the store (found
 * or put there under the lock that holds slime_gc()'s delete off), so the
 * store's trigger need not look them up again.
 */
static struct
{
	LocalTransactionId lxid;
	SubTransactionId subxid;
	uint8_t		hash[32];
}			converted;

/* Whether a value of this content hash was built by slime_loader_convert in this subtransaction. */
bool
slime_loader_checked(const uint8_t hash[32])
{
	return converted.lxid == MyProc->lxid && converted.subxid == GetCurrentSubTransactionId() &&
		converted.lxid != InvalidLocalTransactionId && memcmp(converted.hash, hash, 32) == 0;
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

/* The content hash of a value. */
static void
content_hash(struct varlena *v, uint8_t hash[32])
{
	sl_value	val;
	sl_err		err;

	if (sl_value_open_mem(&val, (const uint8_t *) VARDATA(v), VARSIZE(v) - VARHDRSZ,
						  slime_limits(), &err))
		slime_raise(&err, false);
	memcpy(hash, val.hdr.hash, 32);
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

	memset(&b, 0, sizeof(b));
	if (sl_slimefile_read((const uint8_t *) VARDATA_ANY(file), VARSIZE_ANY_EXHDR(file),
						  slime_limits(), &b, NULL, &err))
		slime_raise(&err, true);
	content_hash(encode_value(&b, 0), want);
	sl_builder_free(&b);
	content_hash(saved, got);
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

PG_FUNCTION_INFO_V1(slime_loader_convert);
/*
 * A slime file as the reference form of its value (data), the memo of its
 * chunk records (memo, NULL when the file's version keeps none) and how many
 * chunks were taken from the previous memo (reused), given
 * the memo of the world's previous save (NULL, or a malformed one: none).
 * Chunks the memo knows, whose store entries the store still holds, are
 * reused; the others are converted and their entries put in the store.
 */
Datum
slime_loader_convert(PG_FUNCTION_ARGS)
{
	bytea	   *file = PG_GETARG_BYTEA_PP(0);
	sl_lmemo	memo,
				out;
	sl_builder	b;
	sl_slimefile_info info;
	put_list	puts = {0};
	sl_buf		mbuf = {0};
	sl_err		err;
	struct varlena *value;
	TupleDesc	td;
	Datum		vals[3];
	bool		nulls[3] = {false, false, false};
	int			reused = 0;

	if (get_call_result_type(fcinfo, NULL, &td) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "slime_loader_convert must return a record");
	memset(&memo, 0, sizeof(memo));
	memset(&out, 0, sizeof(out));
	memset(&b, 0, sizeof(b));
	if (!PG_ARGISNULL(1))
	{
		bytea	   *m = PG_GETARG_BYTEA_PP(1);

		/* a memo is a cache: one that does not decode is no memo */
		if (sl_lmemo_decode((const uint8_t *) VARDATA_ANY(m), VARSIZE_ANY_EXHDR(m), &memo, &err) == 0)
			check_memo(&memo);
	}
	if (sl_slimefile_read_memo((const uint8_t *) VARDATA_ANY(file), VARSIZE_ANY_EXHDR(file),
							   slime_limits(), &b, &info, &memo, &out, &err))
		raise_file_error(&err, info.version);
	for (size_t i = 0; i < out.n; i++)
		reused += out.e[i].known;
	if (sl_lmemo_store_chunks(&b, &out, slime_encode_opts()->level, slime_limits(),
							  put_entry, &puts, &err))
		raise_file_error(&err, info.version);
	sl_lmemo_free(&memo);
	value = encode_value(&b, info.version);
	sl_builder_free(&b);
	slime_store_put(puts.hashes, puts.entries, puts.n);
	if (slime_loader_verify())
		verify_save(file, value);
	content_hash(value, converted.hash);
	converted.lxid = MyProc->lxid;
	converted.subxid = GetCurrentSubTransactionId();
	vals[0] = PointerGetDatum(value);
	if (out.has_ctx)
	{
		if (sl_buf_put_u32be(&mbuf, 0, &err) || sl_lmemo_encode(&out, &mbuf, &err))
			slime_raise(&err, false);
		SET_VARSIZE(mbuf.data, mbuf.len);
		vals[1] = PointerGetDatum(mbuf.data);
	}
	else
		nulls[1] = true;
	vals[2] = Int32GetDatum(reused);
	sl_lmemo_free(&out);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(td), vals, nulls)));
}

PG_FUNCTION_INFO_V1(slime_loader_worlds);
/* The <name>_worlds table that goes with the saves table tbl (NULL: no such table). */
Datum
slime_loader_worlds(PG_FUNCTION_ARGS)
{
	Oid			tbl = PG_GETARG_OID(0);
	char	   *name = get_rel_name(tbl);
	Oid			nsp = get_rel_namespace(tbl);
	char	   *worlds;
	Oid			w;

	if (name == NULL)
		PG_RETURN_NULL();
	worlds = psprintf("%s_worlds", name);
	w = get_relname_relid(worlds, nsp);
	if (!OidIsValid(w))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation \"%s.%s\" does not exist", get_namespace_name(nsp), worlds),
				 errhint("A loader's tables are made by slime_loader_create.")));
	PG_RETURN_OID(w);
}
