/*
 * extcat.c - the extension's own catalog entries: its functions by name,
 * and its installed version against the library's (issue #33): between
 * `make install` and `ALTER EXTENSION slime UPDATE` a database runs a newer
 * library under older SQL objects, and a C entry point that relies on the
 * SQL of its own release (settling) says so instead of failing on a
 * missing object. Reads pg_proc and pg_extension only; called by no type
 * input or output function.
 */
#include "slime.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/indexing.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_proc.h"
#include "commands/extension.h"
#include "storage/proc.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/rel.h"
#include "utils/syscache.h"

/* The installed version checked last: good for the same transaction and command. */
static LocalTransactionId seen_lxid = InvalidLocalTransactionId;
static CommandId seen_cid;
static bool seen_ok;
static int64 seen_need;			/* the version seen_ok was checked against */

/* a.b.c as one number (each part below 1000), -1 when it is not that shape. */
static int64
version_number(const char *v)
{
	int			a,
				b,
				c;
	char		tail;

	if (sscanf(v, "%d.%d.%d%c", &a, &b, &c, &tail) != 3 ||
		a < 0 || b < 0 || c < 0 || a > 999 || b > 999 || c > 999)
		return -1;
	return (int64) a * 1000000 + b * 1000 + c;
}

/* The version of the installed extension slime, palloc'd, or NULL when it is not installed. */
static char *
installed_version(void)
{
	Relation	rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	char	   *v = NULL;

	ScanKeyInit(&key, Anum_pg_extension_extname, BTEqualStrategyNumber, F_NAMEEQ,
				CStringGetDatum("slime"));
	scan = systable_beginscan(rel, ExtensionNameIndexId, true, NULL, 1, &key);
	tup = systable_getnext(scan);
	if (HeapTupleIsValid(tup))
	{
		bool		isnull;
		Datum		d = heap_getattr(tup, Anum_pg_extension_extversion, RelationGetDescr(rel), &isnull);

		if (!isnull)
			v = text_to_cstring(DatumGetTextPP(d));
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return v;
}

/*
 * Refuse to run what (a function's name) when the database's slime is
 * older than since (NULL: the library's own release), the first release
 * whose SQL objects the library's code for what relies on.
 */
void
slime_require_sql(const char *what, const char *since)
{
	char	   *v;
	int64		need = version_number(since ? since : SLIME_EXTVERSION);

	if (seen_ok && seen_need >= need && seen_lxid == MyProc->lxid &&
		seen_cid == GetCurrentCommandId(false))
		return;
	v = installed_version();
	seen_ok = v != NULL && version_number(v) >= need;
	seen_need = need;
	seen_lxid = MyProc->lxid;
	seen_cid = GetCurrentCommandId(false);
	if (!seen_ok)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("%s: the database has slime %s; the installed library (slime %s) needs %s or later here",
						what, v ? v : "(none)", SLIME_EXTVERSION, since ? since : SLIME_EXTVERSION),
				 errhint("Run ALTER EXTENSION slime UPDATE in this database.")));
}

/* A function of the extension (in namespace nsp) by name and argument types. */
Oid
slime_extension_func(Oid nsp, const char *name, Oid *argtypes, int nargs)
{
	return GetSysCacheOid3(PROCNAMEARGSNSP, Anum_pg_proc_oid, CStringGetDatum(name),
						   PointerGetDatum(buildoidvector(argtypes, nargs)), ObjectIdGetDatum(nsp));
}
