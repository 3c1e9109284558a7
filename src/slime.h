/*
 * slime.h - shared pieces of the PostgreSQL glue around the core library.
 */
#ifndef SLIME_H
#define SLIME_H

#include "postgres.h"
#include "fmgr.h"
#include "utils/snapshot.h"
#include "nodes/parsenodes.h"

#include "sl_common.h"
#include "sl_render.h"
#include "sl_value.h"

/*
 * Refuse what when the database's slime (pg_extension) is older than since
 * (NULL: the library's own release): between make install and ALTER
 * EXTENSION UPDATE (extcat.c).
 */
void		slime_require_sql(const char *what, const char *since);

/* Define the settings and plug PostgreSQL into the core (slime.c; called by _PG_init, init.c). */
void		slime_define_settings(void);

/* Read the chunks values hold by reference with f (slime.c; init.c sets the store's reader). */
void		slime_set_resolver(sl_resolve_fn f);

/* Raise err as an ERROR; in_input maps corruption to bad input. */
void		slime_raise(const sl_err *err, bool in_input) pg_attribute_noreturn();

/* slime.input_check settings. */
#define SLIME_CHECK_FULL 0
#define SLIME_CHECK_STRUCTURE 1

/* Whether input checks the whole content (slime.input_check = full). */
bool		slime_check_full(void);

/* The schema-qualified, quoted name of relation rel. */
char	   *slime_rel_qualified(Oid rel);

/* Who the backend acted as before slime_become, for slime_unbecome. */
typedef struct slime_role_ctx
{
	Oid			user;
	int			sec;
	int			nest;
} slime_role_ctx;

/*
 * Act as role, with sec_flags added to the security context and search_path
 * pinned to pg_catalog, pg_temp (an error undoes both with the transaction).
 */
void		slime_become(Oid role, int sec_flags, slime_role_ctx *c);

/* Back to the caller after slime_become, undoing every setting made meanwhile. */
void		slime_unbecome(const slime_role_ctx *c);

/* Open a GUC nest level with setting name at value; its level, for slime_guc_pop. */
int			slime_guc_push(const char *name, const char *value);

/* Close the level slime_guc_push opened: the setting is back to what it was. */
void		slime_guc_pop(int nest);

/* The zstd level of the chunks loader saves put in the store (slime.loader_level). */
int			slime_loader_level(void);
/* Whether loader saves are checked against a whole conversion (slime.loader_verify). */
bool		slime_loader_verify(void);
/* Whether loader saves leave their conversion to a catch-up (slime.loader_defer). */
bool		slime_loader_defer(void);
/* The <name>_pending table of the saves table tbl (InvalidOid: none). */
Oid			slime_loader_pending_of(Oid tbl);

/* Whether output writes the hex text form (slime.text_output = hex). */
bool		slime_text_hex(void);

/* Raise an error found in the stored data of chunk (x,z) as data corruption. */
void		slime_raise_chunk(sl_err *err, int32 x, int32 z) pg_attribute_noreturn();

/* The active size caps. */
const sl_limits *slime_limits(void);

/* slime.max_render_pixels: the largest image slime_render_map draws (default 4096 x 4096). */
#define SLIME_DEFAULT_MAX_RENDER_PIXELS SL_MAP_DEFAULT_MAX_PIXELS
uint64		slime_max_render_pixels(void);

/* Where a packed store entry lies: its pack's row (table, id, xmin) and its index there. */
typedef struct slime_pack_loc
{
	Oid			rel;			/* InvalidOid: not a packed entry */
	int64		id;
	TransactionId xmin;
	uint32		index;
} slime_pack_loc;

/* An opened slime datum. */
typedef struct slime_open_value
{
	sl_value	v;
	struct varlena *raw;		/* the (possibly toasted) datum */
	struct varlena *full;		/* detoasted copy, when read whole */
	struct varlena *entry;		/* last chunk store entry read (store.c) */
	bool		hash_entries;	/* hash every entry read against its key (slime.store_read_check) */
	slime_pack_loc loc;			/* where the last entry read lay, when packed */
} slime_open_value;

/*
 * Resolver for chunks stored by reference: reads the entry from the chunk
 * store table (store.c). slime_open installs it on every value it opens.
 */
int			slime_store_resolve(void *ctx, const sl_dirent *d, const uint8_t **entry,
								size_t *len, int *checked, sl_err *err);

/*
 * Open a slime datum. With whole, detoast it at once (for reads that touch
 * most frames); otherwise fetch slices on demand (header, directory, one
 * frame).
 */
void		slime_open(slime_open_value *o, Datum d, bool whole);

/* Encoder settings: the defaults with slime.compression_level and slime.write_summaries. */
const sl_encode_opts *slime_encode_opts(void);

/* Whether the contents functions read values' summaries (slime.read_summaries). */
bool		slime_read_summaries(void);

/*
 * Decompress component kind of chunk (x,z) of an open value (its frame
 * only). False when the value has no such chunk or the chunk lacks kind.
 */
bool		slime_find_chunk(slime_open_value *o, int32 x, int32 z, int kind,
							 sl_dirent *d, const uint8_t **data);

/*
 * Which of n 32-byte hashes (hashes, one after another) the chunk store
 * holds, into present[]; the store stays locked against slime_gc()'s delete
 * until the transaction ends (store.c).
 */
void		slime_store_which(const uint8_t *hashes, int n, bool *present);

/* A (sub)transaction as markers keep it (xmark.c). */
typedef struct slime_subxact
{
	LocalTransactionId lxid;
	SubTransactionId subxid;
} slime_subxact;

/* The (sub)transaction running now (xmark.c). */
slime_subxact slime_subxact_now(void);

/* Whether marker x was set in the (sub)transaction running now (xmark.c). */
bool		slime_subxact_is(slime_subxact x);

/*
 * Run fn(arg) in a subtransaction: true when it ran through, false when it
 * raised an error of SQLSTATE code (rolled back; *msg its message), any
 * other error raised again (xmark.c).
 */
bool		slime_subxact_try(void (*fn) (void *arg), void *arg, int code, char **msg);

/* Mark the value of content hash hash as built, checked and stored by a loader save in this subtransaction (xmark.c). */
void		slime_loader_mark_checked(const uint8_t hash[32]);

/*
 * Whether a value of this content hash was built by slime_loader_convert in
 * the current subtransaction, its chunks checked and stored (xmark.c).
 */
bool		slime_loader_checked(const uint8_t hash[32]);

/* The <name>_worlds table of the saves table tbl, InvalidOid when either is missing (lguard.c). */
Oid			slime_loader_worlds_of(Oid tbl);
Oid			slime_loader_frames_of(Oid tbl);

/* The <name>_worlds table of the saves table tbl; raise when there is none (lguard.c). */
Oid			slime_loader_worlds_required(Oid tbl);

/* A function in namespace nsp (the extension's) by name and argument types, InvalidOid if none (extcat.c). */
Oid			slime_extension_func(Oid nsp, const char *name, Oid *argtypes, int nargs);

/* Owner of relation rel (lguard.c). */
Oid			slime_rel_owner(Oid rel);

/*
 * Run body(fcinfo) as the owner of the loader whose saves table is the first
 * argument, once the calling role is found to hold need (ACL_SELECT,
 * ACL_INSERT, ACL_DELETE) on it (lguard.c).
 */
Datum		slime_loader_as_owner(FunctionCallInfo fcinfo, AclMode need, PGFunction body);

/* The name of the role that called the loader function running now, else of the current user (lguard.c). */
Datum		slime_loader_caller_name(void);

/*
 * Put n entries (bytea hashes and entries) in the store unless there,
 * without waiting for another transaction: busy[i] (NULL: wait) marks those
 * another transaction in progress is storing, left out; how many (store.c).
 */
int			slime_store_put(Datum *hashes, Datum *entries, int n, bool *busy);
/*
 * The distinct hashes a value holds by reference, sorted, 32 bytes each
 * (*out palloc'd); the count (store.c).
 */
int			slime_value_ref_hashes(Datum value, uint8_t **out);
/*
 * Keep n hashes a row written by this transaction refers to safe from a
 * running slime_gc(): the store locked to the commit, the hashes pinned
 * while a collection runs (store.c).
 */
void		slime_store_pin_relied(const uint8_t *hashes, int n);

/* Whether reads hash store entries against their keys (slime.store_read_check = hash). */
bool		slime_store_read_hash(void);

/* Bytes of decoded packs a backend keeps (slime.pack_cache_size). */
size_t		slime_pack_cache_bytes(void);

/* Whether slime_settle() packs with the block codec (slime.settle_codec = dense) rather than zstd. */
bool		slime_settle_dense(void);
void		slime_settle_check_batch(int32 batch);

/*
 * A packed store entry (data: u8 0x02, u32le index) of pack id read out of
 * the packs table of schema nsp under snapshot, in the raw entry form
 * (u8 0x00, the canonical bytes); NULL when the pack is not there (pack.c).
 * With checked: *checked tells whether the reader need not hash those bytes
 * against key: always without rehash (the pack's frame passed its checksum
 * when it was decoded, and the store checked the entry against its key when
 * it was packed), else when they were found to hash to it (checked once per
 * kept pack entry and key, then remembered). *loc (may be NULL) is set to
 * where the entry lies.
 */
struct varlena *slime_pack_read(Oid nsp, int64 id, const struct varlena *data, Snapshot snapshot,
								const uint8_t key[32], bool rehash, int *checked,
								slime_pack_loc *loc);

/* Where packed entry data of pack id lies (its pack row read, not decoded); false when the pack is absent. */
bool		slime_pack_locate(Oid nsp, int64 id, const struct varlena *data, Snapshot snapshot,
							  slime_pack_loc *loc);

/* Where the entry of reference chunk d lies when it is packed (store.c); false otherwise. */
bool		slime_store_locate(const sl_dirent *d, slime_pack_loc *loc);

/*
 * Counts of packed entries kept per backend (packcount.c): add to m the
 * block or biome counts (want: SL_WANT_BLOCKS or SL_WANT_BIOMES) kept for
 * reference chunk d; false when none are kept for it.
 */
struct sl_counts;
bool		slime_kept_counts_add(const slime_open_value *o, const sl_dirent *d, int want,
								  struct sl_counts *m);

/* Keep counts c of chunk d, just read (o->loc: from a pack) with its lengths and key checked as o reads. */
void		slime_kept_counts_keep(const slime_open_value *o, const sl_dirent *d, int want,
								   const struct sl_counts *c);

/* Bytes the kept counts take (packcount.c keeps slime_kept_counts_size): the decoded packs keep what they leave. */
size_t		slime_kept_counts_bytes(void);
extern size_t slime_kept_counts_size;

/* A pack as pack.c keeps it decoded. */
typedef struct slime_kept_pack slime_kept_pack;

/*
 * Pack id read under snapshot from the packs table of schema nsp, decoded
 * and kept; NULL when it is not there. Valid until the next pack read
 * (pack.c).
 */
slime_kept_pack *slime_pack_find(Oid nsp, int64 id, Snapshot snapshot);

/*
 * Point comp[] at entry i of a kept pack as the documents of reference
 * chunk d: false when the pack has no entry i, its lengths are not d's, or
 * (rehash) its bytes do not hash to d's key (pack.c).
 */
bool		slime_pack_docs(slime_kept_pack *k, uint32 i, const sl_dirent *d, bool rehash,
							const uint8_t *comp[SL_NCOMP]);

/*
 * Where the store entry keyed by hash lies when it is packed, as snapshot
 * sees its row: the store's schema, the pack and the entry's index in it;
 * false when there is no such row or it is not packed (store.c).
 */
bool		slime_store_packed_at(const uint8_t hash[32], Snapshot snapshot, Oid *nsp, int64 *pack,
								  uint32 *index);

/*
 * The same for n hashes (stride bytes apart) in one scan of the store's
 * key: pack[i] -1 when entry i is absent or not packed (store.c).
 */
void		slime_store_packed_many(const uint8_t *hashes, size_t stride, int n, Snapshot snapshot,
									Oid *nsp, int64 *pack, uint32 *index);

/*
 * The version-13 file of a loader world's cold form (slime_settle), whose
 * newest save's value is world, allocated in cxt; NULL and *err when it
 * does not decode (coldfile.c).
 */
bytea	   *slime_loader_warm(bytea *cold, Datum world, MemoryContext cxt, sl_err *err);

/*
 * Whether the whole conversion of a slime file is the value o (their
 * content hashes); false when it does not convert (keptfile.c).
 */
bool		slime_loader_file_holds(const uint8_t *file, size_t len, const slime_open_value *o);

/* The hot form of a slime file (sl_sfhot.h), as a loader world's row keeps it (keptfile.c). */
bytea	   *slime_loader_hot(const uint8_t *file, size_t len);

/*
 * The file a load gives back from what the row of world name of the loader
 * whose saves table is tbl keeps (kept: its file column) for the save whose
 * value is world, allocated in cxt; for a damaged form, a WARNING and the
 * file written from world (keptfile.c).
 */
bytea	   *slime_loader_kept_file(Datum kept, Datum world, Oid tbl, const char *name,
									MemoryContext cxt);

/*
 * A receiver for the rows (key, frame) of the frames of a framed form
 * (dir), which puts each frame, checked, straight into the file a load
 * gives back, allocated in cxt (keptfile.c); then
 * slime_loader_framed_file() gives that file.
 */
struct _DestReceiver *slime_loader_framed_dest(bytea *dir, MemoryContext cxt);

/*
 * The file the frames received by dest (slime_loader_framed_dest) make,
 * for the save whose value is world; when the directory or a frame is
 * damaged or missing, a WARNING naming the loader tbl and world name, and
 * the file written from world, allocated in cxt (keptfile.c); world
 * (Datum) 0 (a pending save: no value to write from): the damage raised.
 */
bytea	   *slime_loader_framed_file(struct _DestReceiver *dest, Datum world, Oid tbl, const char *name,
									  MemoryContext cxt);

/* The file the frames received by dest make, or NULL with *why (in the current context) naming the damage. */
bytea	   *slime_loader_framed_try(struct _DestReceiver *dest, char **why);

/* slime_to_slimefile(slime, version) (slimefile.c), for the loader's load. */
Datum		slime_to_slimefile(PG_FUNCTION_ARGS);

/* Build a slime datum from encoded value bytes. */
struct varlena *slime_from_bytes(const uint8_t *data, size_t len);

/* Encode a builder into a slime datum, raising on error. */
struct sl_builder;
struct varlena *slime_from_builder(struct sl_builder *b);

/* The same, at a given zstd level. */
struct varlena *slime_from_builder_level(struct sl_builder *b, int level);

/* Names of the chunk components: "region", "entities", "poi". */
extern const char *const slime_kind_names[SL_NCOMP];

/* Component index (SL_COMP_*) of a kind name, or raise. */
int			slime_kind(text *kind);

/* Count a world's block entities by id into m, decoding (contents.c). */
struct sl_counts;
void		slime_count_block_entities(Datum world, struct sl_counts *m);

/* Count a world's entities by id into m, decoding (contents.c). */
void		slime_count_entities(Datum world, struct sl_counts *m);

/*
 * Add table kind (SL_SUM_*) of world's contents summary to m, allocating in
 * mcxt; false when the world is to be decoded instead: it has no summary, or
 * a chunk's part of that table could not be counted (summary.c).
 */
bool		slime_summary_table(Datum world, int kind, struct sl_counts *m, MemoryContext mcxt);

/* The same for the counts and totals: false too when slime.read_summaries is off (summary.c). */
bool		slime_summary_counts(Datum world, int kind, struct sl_counts *m, MemoryContext mcxt);

/* Whether o's contents summary matches its chunks counted again; false with a NOTICE (summary.c). */
bool		slime_summary_verify(slime_open_value *o);

/* Give b the summary of o, or o's chunks counted when it has none (summary.c). */
void		slime_summary_keep(struct sl_builder *b, slime_open_value *o);

/* Lowercase hex of len bytes, palloc'd and NUL-terminated. */
char	   *slime_hex(const uint8_t *data, size_t len);

#endif
