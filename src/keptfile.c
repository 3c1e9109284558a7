/*
 * keptfile.c - the file a loader's load gives back from what the world's
 * row keeps of it (<name>_worlds.file; issue #33): a damaged byte there is
 * an error, never another file handed to the game server.
 *
 * - The hot form (sl_sfhot.h, what a save keeps from 0.10.0) is checked
 *   against its XXH64 and gives the file as the save kept it.
 * - The cold form of version 3 (sl_sfcold.h, what slime_settle() makes of a
 *   cold world's file from 0.10.0) has its header checked against its
 *   XXH64, then is warmed (coldfile.c), its frame's checksum vouching for
 *   the blocks.
 * - What 0.9.0 and earlier kept has no checksum over what it gives: a cold
 *   form of version 1 or 2 (its header and the split between its blocks),
 *   or a file kept as it came. It is treated as absent: the file is written
 *   from the world's newest save, as a load of a world with no kept file
 *   does. Only a world version 13 cannot hold (chunks before 1.18, ...)
 *   cannot be written so; what its form gives (the file as it came, or
 *   what the cold form decodes to) is given back when its whole conversion
 *   is the newest save (their content hashes), else refused.
 * - The framed form (sl_sfframes.h, what a save keeps from 0.10.0 when the
 *   loader has its _frames table) is a directory checked against its
 *   XXH64 and the frames of the chunk block, each checked against the
 *   directory's XXH64 of it, concatenated.
 * The first save of the world after it writes the framed (or hot) form;
 * slime_settle() turns either into a cold form of version 3.
 */
#include "slime.h"

#include "catalog/pg_type.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "tcop/dest.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "sl_build.h"
#include "sl_sfcold.h"
#include "sl_sfframes.h"
#include "sl_sfhot.h"
#include "sl_slimefile.h"

/* The hot form (sl_sfhot.h: the file and its checksum) of a file, as a varlena. */
bytea *
slime_loader_hot(const uint8_t *file, size_t len)
{
	sl_buf		out = {0};
	sl_err		err;

	if (sl_buf_put_u32be(&out, 0, &err) || sl_sfhot_encode(file, len, &out, &err))
		slime_raise(&err, false);
	if (out.len > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("the kept slime file would be %zu bytes, more than a bytea holds", out.len - VARHDRSZ)));
	SET_VARSIZE(out.data, out.len);
	return (bytea *) out.data;
}

PG_FUNCTION_INFO_V1(slime_loader_file_hot);
/* slime_loader_file_hot(file bytea): the hot form of a slime file, as a loader world's row keeps it. */
Datum
slime_loader_file_hot(PG_FUNCTION_ARGS)
{
	bytea	   *file = PG_GETARG_BYTEA_PP(0);

	PG_RETURN_BYTEA_P(slime_loader_hot((const uint8_t *) VARDATA_ANY(file), VARSIZE_ANY_EXHDR(file)));
}

/* Who a kept file is of: the loader's saves table and the world. */
typedef struct kept_of
{
	Oid			tbl;
	const char *world;
} kept_of;

static void raise_kept(sl_err *err, const kept_of *of) pg_attribute_noreturn();

/* Raise err, found in the file kept for a loader world, as data corruption. */
static void
raise_kept(sl_err *err, const kept_of *of)
{
	sl_err_prefix(err, "loader %s, world \"%s\", kept file", slime_rel_qualified(of->tbl), of->world);
	if (err->code == SL_ERR_FORMAT)
		err->code = SL_ERR_CORRUPT;
	slime_raise(err, false);
}

/* A bytea of len bytes at data, allocated in the current context. */
static bytea *
bytea_of(const uint8_t *data, size_t len)
{
	bytea	   *r = palloc(VARHDRSZ + len);

	SET_VARSIZE(r, VARHDRSZ + len);
	memcpy(VARDATA(r), data, len);
	return r;
}

/*
 * The version-13 file of the value o, as a load of a world with no kept
 * file writes it; NULL when version 13 cannot hold the world.
 */
static bytea *
file_of_value(slime_open_value *o)
{
	sl_buf		out = {0};
	sl_err		err;

	if (sl_buf_put_u32be(&out, 0, &err) ||
		sl_slimefile_write(&o->v, SL_DEFAULT_LEVEL, slime_limits(), &out, NULL, &err))
	{
		sl_buf_free(&out);
		if (err.code == SL_ERR_UNSUPPORTED)
			return NULL;
		slime_raise(&err, false);
	}
	if (out.len > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("the slime file would be %zu bytes, more than a bytea holds", out.len - VARHDRSZ)));
	SET_VARSIZE(out.data, out.len);
	return (bytea *) out.data;
}

/* Whether the whole conversion of a slime file is the value o (their content hashes); false when it does not convert. */
bool
slime_loader_file_holds(const uint8_t *file, size_t len, const slime_open_value *o)
{
	sl_builder	b;
	sl_encode_opts opts = *slime_encode_opts();
	sl_buf		out = {0};
	sl_value	v;
	sl_err		err;
	bool		same = false;

	memset(&b, 0, sizeof(b));
	if (sl_slimefile_read(file, len, slime_limits(), &b, NULL, &err) == 0 &&
		sl_builder_encode(&b, &opts, slime_limits(), &out, &err) == 0 &&
		sl_value_open_mem(&v, out.data, out.len, slime_limits(), &err) == 0)
	{
		same = memcmp(v.hdr.hash, o->v.hdr.hash, 32) == 0;
		sl_value_close(&v);
	}
	sl_builder_free(&b);
	sl_buf_free(&out);
	return same;
}

/*
 * A form 0.9.0 and earlier kept (k: no checksum over what it gives),
 * treated as absent: the file written from the newest save o (world).
 * When version 13 cannot hold that save, what the form gives (the file as
 * it came, or what a cold form decodes to) when its whole conversion is o.
 */
static bytea *
unvouched(bytea *k, Datum world, slime_open_value *o, const kept_of *of)
{
	const uint8_t *src = (const uint8_t *) VARDATA_ANY(k);
	size_t		len = VARSIZE_ANY_EXHDR(k);
	bytea	   *f = file_of_value(o);
	sl_err		err;

	if (f != NULL)
		return f;
	f = sl_sfcold_is(src, len) ? slime_loader_warm(k, world, CurrentMemoryContext, &err) : bytea_of(src, len);
	if (f != NULL && slime_loader_file_holds((const uint8_t *) VARDATA(f), VARSIZE(f) - VARHDRSZ, o))
		return f;
	sl_fail(&err, SL_ERR_CORRUPT, "a %s kept before 0.10.0 (no checksum) does not hold the newest save",
			sl_sfcold_is(src, len) ? "cold form" : "slime file");
	raise_kept(&err, of);
}

/* Whether src is a cold form of version 1 or 2 (0.7.0 to 0.9.0), whose header no checksum covers. */
static bool
legacy_cold(const uint8_t *src, size_t len)
{
	int			v = sl_sfcold_version(src, len);

	return v == 1 || v == 2;
}

/*
 * The file a load gives back in place of a damaged kept form of world name
 * (err says how; a version this build does not know is raised as such):
 * never that form, but a WARNING (data_corrupted) naming the loader, the
 * world and the damage, and the file written from the save whose value is
 * world, allocated in cxt, as a load with no kept file does; an error when
 * version 13 cannot hold that save.
 */
static bytea *
from_the_save(sl_err *err, Datum world, const kept_of *of, MemoryContext cxt)
{
	slime_open_value o;
	bytea	   *r;
	MemoryContext old;

	if (err->code == SL_ERR_UNSUPPORTED)
		raise_kept(err, of);
	sl_err_prefix(err, "loader %s, world \"%s\", kept file", slime_rel_qualified(of->tbl), of->world);
	ereport(WARNING,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("%s", err->msg),
			 errdetail("The load writes the file from the world's save.")));
	slime_open(&o, world, true);
	old = MemoryContextSwitchTo(cxt);
	r = file_of_value(&o);
	MemoryContextSwitchTo(old);
	sl_value_close(&o.v);
	if (r == NULL)
	{
		sl_fail(err, SL_ERR_CORRUPT, "damaged, and version 13 cannot hold the save it was kept for");
		raise_kept(err, of);
	}
	return r;
}

/*
 * The file a load gives back from kept (the file column of world name of
 * the loader whose saves table is tbl) for the save whose value is world,
 * allocated in cxt; for a damaged form, the file written from that save
 * (from_the_save).
 */
bytea *
slime_loader_kept_file(Datum kept, Datum world, Oid tbl, const char *name, MemoryContext cxt)
{
	kept_of		of = {tbl, name};
	bytea	   *k = DatumGetByteaPP(kept);
	const uint8_t *src = (const uint8_t *) VARDATA_ANY(k);
	size_t		len = VARSIZE_ANY_EXHDR(k);
	const uint8_t *file;
	size_t		file_len;
	slime_open_value o;
	bytea	   *r;
	bool		as_it_came;
	sl_err		err;
	MemoryContext old;

	if (sl_sfhot_is(src, len))
	{
		if (sl_sfhot_open(src, len, &file, &file_len, &err))
			return from_the_save(&err, world, &of, cxt);
		old = MemoryContextSwitchTo(cxt);
		r = bytea_of(file, file_len);
		MemoryContextSwitchTo(old);
		return r;
	}
	as_it_came = len >= 2 && src[0] == 0xB1 && src[1] == 0x0B;
	if (sl_sfcold_is(src, len) && !legacy_cold(src, len))
	{
		/* version 3 on (an unknown version is refused here) */
		if (sl_sfcold_check_header(src, len, &err) ||
			(r = slime_loader_warm(k, world, cxt, &err)) == NULL)
			return from_the_save(&err, world, &of, cxt);
		return r;
	}
	if (!as_it_came && !sl_sfcold_is(src, len))
	{
		sl_fail(&err, SL_ERR_CORRUPT, "neither a hot nor a cold form nor a slime file (offset 0)");
		return from_the_save(&err, world, &of, cxt);
	}
	/* kept by 0.9.0 or earlier: a cold form of version 1 or 2, or a file as it came */
	slime_open(&o, world, true);
	old = MemoryContextSwitchTo(cxt);
	r = unvouched(k, world, &o, &of);
	MemoryContextSwitchTo(old);
	sl_value_close(&o.v);
	return r;
}

/*
 * The receiver of a load's frame rows: the directory opened, the file's
 * bytes allocated once at their final size in the caller's context, each
 * frame copied once to its place (sl_sffr_placer) from the row as the
 * executor holds it, rather than into SPI's tuple table, then into a
 * growing buffer, then into the result. slime_settle()'s frames, given as
 * an array, go through the same begin, place and end.
 */
typedef struct framed_dest
{
	DestReceiver pub;
	bool		open;			/* the directory opened and the file allocated */
	sl_sffr_dir d;
	sl_sffr_placer p;
	bytea	   *file;			/* VARHDRSZ + sl_sffr_file_len(&d) bytes */
	sl_err		err;			/* why not open, or which frame did not come */
} framed_dest;

/* Place one frame row (key, frame) of a load (DestReceiver.receiveSlot). */
static bool
framed_receive(TupleTableSlot *slot, DestReceiver *self)
{
	framed_dest *fd = (framed_dest *) self;
	bool		kn,
				fn;
	Datum		k,
				f;
	bytea	   *kb,
			   *fb;

	if (!fd->open)
		return true;
	k = slot_getattr(slot, 1, &kn);
	f = slot_getattr(slot, 2, &fn);
	if (kn || fn)
		return true;
	kb = DatumGetByteaPP(k);
	/* a frame the directory does not name (a pending save's) is not read out of TOAST */
	if (!sl_sffr_wants(&fd->p, (const uint8_t *) VARDATA_ANY(kb), VARSIZE_ANY_EXHDR(kb)))
		return true;
	fb = DatumGetByteaPP(f);	/* a frame over a page is TOASTed: read out once */
	sl_sffr_place(&fd->p, (const uint8_t *) VARDATA_ANY(kb), VARSIZE_ANY_EXHDR(kb),
				  (const uint8_t *) VARDATA_ANY(fb), VARSIZE_ANY_EXHDR(fb));
	if ((Pointer) fb != DatumGetPointer(f))
		pfree(fb);
	return true;
}

/* Nothing to do at the start or end of the statement (DestReceiver.rStartup, rShutdown, rDestroy). */
static void
framed_startup(DestReceiver *self, int operation, TupleDesc typeinfo)
{
}

static void
framed_noop(DestReceiver *self)
{
}

/*
 * Open directory dir and allocate its file in cxt, ready for its frames
 * (fd->open); else fd->err says why.
 */
static void
framed_begin(framed_dest *fd, bytea *dir, MemoryContext cxt)
{
	size_t		len;

	if (sl_sffr_open((const uint8_t *) VARDATA_ANY(dir), VARSIZE_ANY_EXHDR(dir), &fd->d, &fd->err))
		return;
	len = sl_sffr_file_len(&fd->d);
	if (len > MaxAllocSize - VARHDRSZ)
	{
		sl_fail(&fd->err, SL_ERR_CORRUPT, "its directory names %zu bytes of file", len);
		sl_sffr_dir_free(&fd->d);
		return;
	}
	fd->file = MemoryContextAlloc(cxt, VARHDRSZ + len);
	SET_VARSIZE(fd->file, VARHDRSZ + len);
	if (sl_sffr_placer_init(&fd->p, &fd->d, (uint8_t *) VARDATA(fd->file), &fd->err))
	{
		pfree(fd->file);
		sl_sffr_dir_free(&fd->d);
		return;
	}
	fd->open = true;
}

/* The file once every frame came (fd->file), else NULL and fd->err says which did not. */
static bytea *
framed_end(framed_dest *fd)
{
	int			rc;

	if (!fd->open)
		return NULL;
	rc = sl_sffr_placer_finish(&fd->p, &fd->err);
	sl_sffr_placer_free(&fd->p);
	sl_sffr_dir_free(&fd->d);
	fd->open = false;
	if (rc == 0)
		return fd->file;
	pfree(fd->file);
	return NULL;
}

/* A receiver of the frame rows of framed form dir, making the file in cxt (slime.h). */
DestReceiver *
slime_loader_framed_dest(bytea *dir, MemoryContext cxt)
{
	framed_dest *fd = palloc0(sizeof(framed_dest));

	fd->pub.receiveSlot = framed_receive;
	fd->pub.rStartup = framed_startup;
	fd->pub.rShutdown = framed_noop;
	fd->pub.rDestroy = framed_noop;
	/* not DestNone (SPI would call the statement no SELECT) nor DestSPI (it would count a tuple table) */
	fd->pub.mydest = DestTuplestore;
	framed_begin(fd, dir, cxt);
	return &fd->pub;
}

/*
 * The file the frames dest received make (slime.h): every frame the
 * directory names placed, else (a directory that does not open, a frame
 * missing or damaged) the file written from the save whose value is
 * world (from_the_save).
 */
bytea *
slime_loader_framed_file(DestReceiver *dest, Datum world, Oid tbl, const char *name, MemoryContext cxt)
{
	framed_dest *fd = (framed_dest *) dest;
	kept_of		of = {tbl, name};
	bytea	   *r = framed_end(fd);

	if (r == NULL && world == (Datum) 0)
	{
		/* a pending save's frames: nothing to write the file from */
		raise_kept(&fd->err, &of);
	}
	return r ? r : from_the_save(&fd->err, world, &of, cxt);
}

/* The file the frames dest received make, or NULL and *why (slime.h). */
bytea *
slime_loader_framed_try(DestReceiver *dest, char **why)
{
	framed_dest *fd = (framed_dest *) dest;
	bytea	   *r = framed_end(fd);

	*why = r ? NULL : pstrdup(fd->err.msg);
	return r;
}

PG_FUNCTION_INFO_V1(slime_loader_file_framed);
/*
 * slime_loader_file_framed(dir bytea, frames bytea[]): the hot form of the
 * file of a framed form (dir) whose frames are given as key || frame (the
 * 16 bytes of its key, then its bytes), for slime_settle(); NULL when it
 * does not assemble (a WARNING says why: the cold form is not made of a
 * damaged file, and the next load writes it from the save).
 */
Datum
slime_loader_file_framed(PG_FUNCTION_ARGS)
{
	bytea	   *dir = PG_GETARG_BYTEA_PP(0);
	ArrayType  *arr = PG_GETARG_ARRAYTYPE_P(1);
	Datum	   *elems;
	bool	   *nulls;
	int			n;
	framed_dest fd;
	bytea	   *file;
	bytea	   *r;

	memset(&fd, 0, sizeof(fd));
	framed_begin(&fd, dir, CurrentMemoryContext);
	deconstruct_array(arr, BYTEAOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
	for (int i = 0; fd.open && i < n; i++)
	{
		bytea	   *e;

		CHECK_FOR_INTERRUPTS();
		if (nulls[i])
			continue;
		e = DatumGetByteaPP(elems[i]);
		/* key || frame: the key's 16 bytes, then the frame's bytes */
		if (VARSIZE_ANY_EXHDR(e) >= SL_SFFR_KEY)
			sl_sffr_place(&fd.p, (const uint8_t *) VARDATA_ANY(e), SL_SFFR_KEY,
						  (const uint8_t *) VARDATA_ANY(e) + SL_SFFR_KEY, VARSIZE_ANY_EXHDR(e) - SL_SFFR_KEY);
	}
	if ((file = framed_end(&fd)) == NULL)
	{
		ereport(WARNING,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("a loader world's kept slime file is damaged and is dropped: %s", fd.err.msg),
				 errdetail("A load writes the file from the world's newest save.")));
		PG_RETURN_NULL();
	}
	r = slime_loader_hot((const uint8_t *) VARDATA(file), VARSIZE(file) - VARHDRSZ);
	pfree(file);
	PG_RETURN_BYTEA_P(r);
}
