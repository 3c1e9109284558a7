/*
 * slime.c - module set-up and the glue shared by every SQL function:
 * memory, interrupts, errors and slice detoasting.
 */
#include "slime.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "access/detoast.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "sl_build.h"


/* Allocate from the current memory context; NULL when out of memory. */
static void *
pg_alloc(size_t size)
{
	return palloc_extended(size, MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);
}

/* Reallocate within the chunk's memory context. */
static void *
pg_realloc(void *ptr, size_t size)
{
	return repalloc_huge(ptr, size);
}

/* Free a palloc'd chunk. */
static void
pg_free(void *ptr)
{
	pfree(ptr);
}

/* Let a query cancel or backend termination interrupt a long loop. */
static void
pg_interrupt(void)
{
	CHECK_FOR_INTERRUPTS();
}

/* Ask PostgreSQL whether the stack is nearly exhausted. */
static int
pg_stack_too_deep(void)
{
	return stack_is_too_deep() ? 1 : 0;
}

static int	compression_level = SL_DEFAULT_LEVEL;
static int	input_check = SLIME_CHECK_FULL;
static const struct config_enum_entry input_check_options[] = {
	{"full", SLIME_CHECK_FULL, false},
	{"structure", SLIME_CHECK_STRUCTURE, false},
	{NULL, 0, false}
};
static int	text_output = 0;
static int	settle_codec = 1;
static const struct config_enum_entry settle_codec_options[] = {
	{"fast", 0, false},
	{"dense", 1, false},
	{NULL, 0, false}
};
static int	store_read_check = 0;
static const struct config_enum_entry store_read_check_options[] = {
	{"checksum", 0, false},
	{"hash", 1, false},
	{NULL, 0, false}
};
static const struct config_enum_entry text_output_options[] = {
	{"base64", 0, false},
	{"hex", 1, false},
	{NULL, 0, false}
};
static int	max_chunk_size = (int) SL_DEFAULT_MAX_CHUNK_RAW;
static int	max_world_size = (int) SL_DEFAULT_MAX_VALUE_RAW;
static int	max_nbt_depth = SL_DEFAULT_MAX_DEPTH;
static int	max_palette = SL_DEFAULT_MAX_PALETTE;
static int	max_render_pixels = SLIME_DEFAULT_MAX_RENDER_PIXELS;
static int	gc_lock_wait = 10000;
static int	pack_cache_kb = 64 * 1024;
static bool loader_verify = false;
static bool loader_defer = false;
static bool write_summaries = true;
static bool read_summaries = true;
static int	loader_level = 1;

/* What reads the chunks a value holds by reference (slime_set_resolver): the chunk store's reader. */
static sl_resolve_fn store_resolver = NULL;

/* Plug PostgreSQL's memory, interrupts and stack check into the core, and define the settings. */
void
slime_define_settings(void)
{
	DefineCustomIntVariable("slime.compression_level",
							"zstd level (1-19) used when slime values are written; 20 is the archive level.",
							"Higher levels store less and import more slowly; the archive level "
							"codes block and light arrays with the block codec (cold worlds: "
							"much smaller, far slower to write and read); "
							"slime_recompress() rewrites existing values.",
							&compression_level, SL_DEFAULT_LEVEL, SL_MIN_LEVEL, SL_MAX_LEVEL,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("slime.loader_level",
							"zstd level (1-19) of the chunks a loader save puts in the store, and of a cold file's blocks a load writes again.",
							"Saves and loads are on the game server's path: new chunks are written "
							"fast, and slime_settle() rewrites them densely once cold.",
							&loader_level, 1, SL_MIN_LEVEL, SL_MAX_LEVEL - 1,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomEnumVariable("slime.settle_codec",
							 "How slime_settle() codes the packs it settles store entries into.",
							 "dense: the block codec (smaller, settled faster, read at the block "
							 "codec's speed); fast: zstd-19 (read at zstd's speed: first cold loads, scans).",
							 &settle_codec, 1, settle_codec_options,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomEnumVariable("slime.store_read_check",
							 "What a read of a chunk store entry checks besides its sizes.",
							 "checksum: the checksum of the frame the entry is read out of (its own "
							 "zstd frame or block codec stream, or its pack's); every way into the "
							 "store checks an entry against its key when it is written. hash: also "
							 "the SHA-256 of the entry's bytes against its key, at every read, as "
							 "0.7.0 and earlier did.",
							 &store_read_check, 0, store_read_check_options,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("slime.pack_cache_size",
							"Most decoded chunk store packs a backend keeps for its next reads.",
							"Up to 64 packs of settled entries are kept decoded, the least recently "
							"read dropped first; the pack being read is always kept. Block and biome "
							"totals keep the counts of the packed chunks they read within it too "
							"(a quarter of it at most).",
							&pack_cache_kb, 64 * 1024, 0, 1024 * 1024,
							PGC_USERSET, GUC_UNIT_KB, NULL, NULL, NULL);
	DefineCustomIntVariable("slime.max_chunk_size",
							"Largest uncompressed NBT document (one chunk, or level.dat) accepted.",
							"Caps every decompression, whatever a file declares.",
							&max_chunk_size, (int) SL_DEFAULT_MAX_CHUNK_RAW, 64 * 1024, 1024 * 1024 * 1024,
							PGC_SUSET, GUC_UNIT_BYTE, NULL, NULL, NULL);
	DefineCustomIntVariable("slime.max_world_size",
							"Largest total of uncompressed NBT in one slime value.",
							NULL,
							&max_world_size, (int) SL_DEFAULT_MAX_VALUE_RAW, 64 * 1024, 1024 * 1024 * 1024,
							PGC_SUSET, GUC_UNIT_BYTE, NULL, NULL, NULL);
	DefineCustomIntVariable("slime.max_nbt_depth",
							"Deepest NBT nesting (compounds and lists) accepted.",
							NULL,
							&max_nbt_depth, SL_DEFAULT_MAX_DEPTH, 8, 4096,
							PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("slime.max_palette",
							"Largest block or biome palette of one chunk section accepted.",
							"A section holds 4096 blocks, so no valid palette is longer.",
							&max_palette, SL_DEFAULT_MAX_PALETTE, 1, SL_DEFAULT_MAX_PALETTE,
							PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("slime.max_render_pixels",
							"Largest image (width x height pixels) slime_render_map draws.",
							"A map takes about 5 bytes of memory per block column; a larger "
							"value is refused before anything is allocated.",
							&max_render_pixels, SLIME_DEFAULT_MAX_RENDER_PIXELS, 256, PG_INT32_MAX,
							PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomEnumVariable("slime.input_check",
							 "How much text input, binary input and casts check of a slime value.",
							 "full: everything, content hash included (decompresses the value); "
							 "structure: header, directory, frame table and zstd frame headers only "
							 "(content is checked when it is read).",
							 &input_check, SLIME_CHECK_FULL, input_check_options,
							 PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomEnumVariable("slime.text_output",
							 "Text form slime values are written in.",
							 "base64: \"b64:\" and the base64 of the value bytes (1.33 characters a byte); "
							 "hex: \"\\x\" and hex digits (2 characters a byte), as versions before 0.4.0 wrote. "
							 "Input reads both.",
							 &text_output, 0, text_output_options,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("slime.gc_lock_wait",
							"Longest slime_gc() tries for a lock before it gives up, removing nothing.",
							"It waits at most 100 ms at a time, so that saves queued behind it "
							"are not held up; read by slime_gc() (SQL).",
							&gc_lock_wait, 10000, 0, PG_INT32_MAX,
							PGC_USERSET, GUC_UNIT_MS, NULL, NULL, NULL);
	DefineCustomBoolVariable("slime.loader_defer",
							 "Whether a loader save whose loader has its _pending table leaves its conversion to slime_loader_catch_up().",
							 "The save checks the file, keeps its frames and directory and a pending row; "
							 "the saves table gets its row when the world is caught up.",
							 &loader_defer, false, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("slime.loader_verify",
							 "Check every loader save against a conversion of the whole file.",
							 "On: slime_loader_save also converts every chunk of the file and "
							 "raises unless the value it saved has the same content hash "
							 "(the tests run with it; it costs what the chunks it reuses saved).",
							 &loader_verify, false, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("slime.write_summaries",
							 "Write a contents summary into every value written.",
							 "Off: values are written without one, as 0.9.0 wrote them (which "
							 "0.9.0 reads); the contents functions then decode their chunks.",
							 &write_summaries, true, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("slime.read_summaries",
							 "Answer block, biome and entity counts and totals from values' contents summaries.",
							 "Off: the counts and totals decode every chunk, as before 0.10.0 "
							 "(to compare the two, or to rule the summaries out).",
							 &read_summaries, true, PGC_USERSET, 0, NULL, NULL, NULL);
	MarkGUCPrefixReserved("slime");
#ifdef __GLIBC__

	/*
	 * Decompressing and parsing chunks pallocs and frees buffers of 10 KB to
	 * a few MB many times a second. With glibc's defaults a free at the top
	 * of the heap gives the memory back (brk) and the next allocation takes
	 * it again and page-faults it in: measured on a postgres_fdw shard
	 * session, 6,000 brk calls and 70% system time for block and block
	 * entity totals of 87 islands (3.5 s; 0.4 s with these settings); the
	 * same totals of 300 islands over two shards took 4.3 s without them,
	 * 0.57 s with them (bench_shard 11.3). The full input check's frame
	 * buffers churned it the same way (brk and TLB flushes were 9% of a
	 * dense island's check).
	 * Keep up to 16 MB of free heap in the backend, and serve allocations
	 * under 8 MB from the heap (bigger ones, whole large values, still use
	 * their own mappings). Setting them fixes the thresholds glibc would
	 * otherwise move.
	 */
	mallopt(M_MMAP_THRESHOLD, 8 * 1024 * 1024);
	mallopt(M_TRIM_THRESHOLD, 16 * 1024 * 1024);
#endif
	sl_hooks.alloc = pg_alloc;
	sl_hooks.realloc = pg_realloc;
	sl_hooks.free = pg_free;
	sl_hooks.interrupt = pg_interrupt;
	sl_hooks.stack_too_deep = pg_stack_too_deep;
}

/* The active size caps, from the slime.max_* settings. */
const sl_limits *
slime_limits(void)
{
	static sl_limits lim;

	lim.max_chunk_raw = (size_t) max_chunk_size;
	lim.max_value_raw = (size_t) max_world_size;
	lim.max_depth = max_nbt_depth;
	lim.max_palette = (uint32_t) max_palette;
	return &lim;
}

/* The slime.max_render_pixels cap. */
uint64
slime_max_render_pixels(void)
{
	return (uint64) max_render_pixels;
}

/* SQLSTATE for a core error class. */
static int
errcode_for(sl_code code, bool in_input)
{
	switch (code)
	{
		case SL_ERR_FORMAT:
			return ERRCODE_INVALID_BINARY_REPRESENTATION;
		case SL_ERR_CORRUPT:
			return in_input ? ERRCODE_INVALID_BINARY_REPRESENTATION : ERRCODE_DATA_CORRUPTED;
		case SL_ERR_LIMIT:
			return ERRCODE_PROGRAM_LIMIT_EXCEEDED;
		case SL_ERR_NOMEM:
			return ERRCODE_OUT_OF_MEMORY;
		case SL_ERR_UNSUPPORTED:
			return ERRCODE_FEATURE_NOT_SUPPORTED;
		case SL_ERR_DUPLICATE:
			return ERRCODE_UNIQUE_VIOLATION;
		case SL_ERR_NOTFOUND:
			return ERRCODE_NO_DATA_FOUND;
		case SL_ERR_INVALID:
		default:
			return ERRCODE_INVALID_PARAMETER_VALUE;
	}
}

/* Raise err as an ERROR. */
void
slime_raise(const sl_err *err, bool in_input)
{
	ereport(ERROR,
			(errcode(errcode_for(err->code, in_input)),
			 errmsg("%s", err->msg)));
	pg_unreachable();
}

/* Raise an error found in the stored data of chunk (x,z) as data corruption. */
void
slime_raise_chunk(sl_err *err, int32 x, int32 z)
{
	sl_err_prefix(err, "chunk (%d,%d)", x, z);
	if (err->code == SL_ERR_FORMAT)
		err->code = SL_ERR_CORRUPT;
	slime_raise(err, false);
}

/* Fetch value bytes through slice detoasting. */
static int
slice_fetch(void *ctx, size_t offset, size_t len, const uint8_t **data, sl_err *err)
{
	slime_open_value *o = ctx;
	struct varlena *s;

	if (len == 0)
	{
		*data = NULL;
		return 0;
	}
	s = detoast_attr_slice(o->raw, (int32) offset, (int32) len);
	if (VARSIZE_ANY_EXHDR(s) != len)
		return sl_fail(err, SL_ERR_CORRUPT, "slime value is shorter than its header says");
	*data = (const uint8_t *) VARDATA_ANY(s);
	return 0;
}

/* Read the chunks values hold by reference with f (init.c: the chunk store's reader). */
void
slime_set_resolver(sl_resolve_fn f)
{
	store_resolver = f;
}

/* Open a slime datum, whole or by slices. */
void
slime_open(slime_open_value *o, Datum d, bool whole)
{
	sl_err		err;
	int			rc;

	memset(o, 0, sizeof(*o));
	o->raw = (struct varlena *) DatumGetPointer(d);
	if (whole || !VARATT_IS_EXTENDED(o->raw))
	{
		o->full = pg_detoast_datum_packed(o->raw);
		rc = sl_value_open_mem(&o->v, (const uint8_t *) VARDATA_ANY(o->full),
							   VARSIZE_ANY_EXHDR(o->full), slime_limits(), &err);
	}
	else
		rc = sl_value_open(&o->v, slice_fetch, o,
						   toast_raw_datum_size(d) - VARHDRSZ, slime_limits(), &err);
	if (rc)
		slime_raise(&err, false);
	o->v.resolve = store_resolver;
	o->v.resolve_ctx = o;
	o->hash_entries = slime_store_read_hash();
}

/* Decompress component kind of chunk (x,z); false when absent. */
bool
slime_find_chunk(slime_open_value *o, int32 x, int32 z, int kind, sl_dirent *d,
				 const uint8_t **data)
{
	int64		i = sl_value_find(&o->v, x, z);
	const uint8_t *comp[SL_NCOMP];
	sl_err		err;

	if (i < 0)
		return false;
	if (sl_value_dirent(&o->v, (uint32_t) i, d, &err))
		slime_raise(&err, false);
	if (d->len[kind] == 0)
		return false;
	if (sl_value_chunk(&o->v, (uint32_t) i, d, comp, &err))
		slime_raise(&err, false);
	*data = comp[kind];
	return true;
}

/* Build a slime datum from encoded value bytes. */
struct varlena *
slime_from_bytes(const uint8_t *data, size_t len)
{
	struct varlena *r = (struct varlena *) palloc(VARHDRSZ + len);

	SET_VARSIZE(r, VARHDRSZ + len);
	memcpy(VARDATA(r), data, len);
	return r;
}

/* The schema-qualified, quoted name of relation rel. */
char *
slime_rel_qualified(Oid rel)
{
	return quote_qualified_identifier(get_namespace_name(get_rel_namespace(rel)), get_rel_name(rel));
}

/*
 * Act as role, with sec_flags added to the security context and search_path
 * pinned to pg_catalog, pg_temp, as a SECURITY DEFINER function with a
 * pinned path does (an error undoes both with the transaction).
 */
void
slime_become(Oid role, int sec_flags, slime_role_ctx *c)
{
	GetUserIdAndSecContext(&c->user, &c->sec);
	SetUserIdAndSecContext(role, c->sec | sec_flags);
	c->nest = slime_guc_push("search_path", "pg_catalog, pg_temp");
}

/*
 * Back to the caller after slime_become, undoing every setting made
 * meanwhile: as after PostgreSQL's own restricted operations (CREATE INDEX,
 * REFRESH MATERIALIZED VIEW), nothing code run as another role SETs outlives
 * it in the caller's session.
 */
void
slime_unbecome(const slime_role_ctx *c)
{
	AtEOXact_GUC(false, c->nest);
	SetUserIdAndSecContext(c->user, c->sec);
}

/*
 * Open a GUC nest level with setting name at value, as a function's SET
 * clause does for its call; its level. An error closes it with its
 * (sub)transaction.
 */
int
slime_guc_push(const char *name, const char *value)
{
	int			nest = NewGUCNestLevel();

	(void) set_config_option(name, value, PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
	return nest;
}

/* Close the level slime_guc_push opened: the setting is back to what it was. */
void
slime_guc_pop(int nest)
{
	AtEOXact_GUC(true, nest);
}

/* The zstd level of the chunks loader saves put in the store (slime.loader_level). */
int
slime_loader_level(void)
{
	return loader_level;
}

/* Whether slime_settle() packs with the block codec (slime.settle_codec). */
bool
slime_settle_dense(void)
{
	return settle_codec == 1;
}

/*
 * Check a building block of slime_settle(): the database's SQL objects are
 * this library's release, and its batch size is positive.
 */
void
slime_settle_check_batch(int32 batch)
{
	slime_require_sql("slime_settle", NULL);
	if (batch < 1)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						errmsg("batch size must be positive, not %d", batch)));
}

/* Whether reads hash store entries against their keys (slime.store_read_check = hash). */
bool
slime_store_read_hash(void)
{
	return store_read_check == 1;
}

/* Bytes of decoded packs a backend keeps (slime.pack_cache_size). */
size_t
slime_pack_cache_bytes(void)
{
	return (size_t) pack_cache_kb * 1024;
}

/* Bytes of slime.pack_cache_size the kept counts take now: packcount.c counts them, pack.c leaves them room. */
size_t		slime_kept_counts_size = 0;

/* Bytes the kept counts take. */
size_t
slime_kept_counts_bytes(void)
{
	return slime_kept_counts_size;
}

/* Whether loader saves leave their conversion to a catch-up (slime.loader_defer). */
bool
slime_loader_defer(void)
{
	return loader_defer;
}

/* Whether loader saves are checked against a whole conversion (slime.loader_verify). */
bool
slime_loader_verify(void)
{
	return loader_verify;
}

/* Whether input checks the whole content (slime.input_check = full). */
bool
slime_check_full(void)
{
	return input_check == SLIME_CHECK_FULL;
}

/* Whether output writes the hex text form (slime.text_output = hex). */
bool
slime_text_hex(void)
{
	return text_output == 1;
}

/* Encoder settings: the defaults with slime.compression_level. */
const sl_encode_opts *
slime_encode_opts(void)
{
	static sl_encode_opts opts;

	opts = sl_default_encode_opts;
	opts.level = compression_level;
	opts.no_summary = !write_summaries;
	return &opts;
}

/* Whether the contents functions read values' summaries (slime.read_summaries). */
bool
slime_read_summaries(void)
{
	return read_summaries;
}

/* Encode a builder into a slime datum at the configured level. */
struct varlena *
slime_from_builder(struct sl_builder *b)
{
	return slime_from_builder_level(b, compression_level);
}

/* Encode a builder into a slime datum at a given zstd level. */
struct varlena *
slime_from_builder_level(struct sl_builder *b, int level)
{
	sl_encode_opts opts = *slime_encode_opts();
	sl_buf		out = {0};
	sl_err		err;
	struct varlena *r;

	opts.level = level;
	/* leave room for the varlena header in front of the value bytes */
	if (sl_buf_put_u32be(&out, 0, &err) ||
		sl_builder_encode(b, &opts, slime_limits(), &out, &err))
		slime_raise(&err, false);
	r = (struct varlena *) out.data;
	SET_VARSIZE(r, out.len);
	return r;
}

const char *const slime_kind_names[SL_NCOMP] = {"region", "entities", "poi"};

/* Component index of a kind name, or raise. */
int
slime_kind(text *kind)
{
	char	   *s = text_to_cstring(kind);

	for (int k = 0; k < SL_NCOMP; k++)
		if (strcmp(s, slime_kind_names[k]) == 0)
			return k;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown kind \"%s\"", s),
			 errhint("Use 'region', 'entities' or 'poi'.")));
	return -1;
}

/* Lowercase hex of len bytes. */
char *
slime_hex(const uint8_t *data, size_t len)
{
	char	   *s = palloc(len * 2 + 1);

	sl_hex(data, len, s);
	return s;
}
