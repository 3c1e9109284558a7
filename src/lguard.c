/*
 * lguard.c - the loader's access boundary (README, "Security"). A role uses
 * a loader through its functions only: each checks that the calling role
 * holds the privilege on the saves table that stands for what it does
 * (SELECT: load; INSERT: leases and saves; DELETE: prune), then runs as the
 * owner of the loader's tables, in a restricted operation with search_path
 * pinned (as slime_settle_loader_files does), so that no grant on the
 * _worlds table is needed and none of the owner's code runs with the
 * caller's rights. The calling role is kept for the lease checks
 * (slime_loader_caller): a lease is bound to the role that acquired it.
 */
#include "slime.h"

#include "access/table.h"
#include "catalog/pg_class.h"
#include "catalog/pg_proc.h"
#include "commands/trigger.h"
#include "miscadmin.h"
#include "parser/scansup.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

/* The role that called the loader function running now (InvalidOid: none). */
static Oid	loader_caller = InvalidOid;

/* The <name>_worlds table of the saves table tbl, InvalidOid when either is missing. */
Oid
slime_loader_worlds_of(Oid tbl)
{
	char	   *name = get_rel_name(tbl);

	if (name == NULL)
		return InvalidOid;
	return get_relname_relid(psprintf("%s_worlds", name), get_rel_namespace(tbl));
}

/* The table <name><suffix> beside the saves table tbl, a plain table of its owner (InvalidOid: none). */
static Oid
owned_beside(Oid tbl, const char *suffix)
{
	char	   *name = get_rel_name(tbl);
	char	   *beside;
	Oid			f;

	if (name == NULL)
		return InvalidOid;
	/*
	 * as CREATE TABLE truncated it: a loader's name is up to 56 bytes, so
	 * that of its _pending table may be 64 (slime_loader_defer_table)
	 */
	beside = psprintf("%s%s", name, suffix);
	truncate_identifier(beside, strlen(beside), false);
	f = get_relname_relid(beside, get_rel_namespace(tbl));
	if (!OidIsValid(f) || get_rel_relkind(f) != RELKIND_RELATION || slime_rel_owner(f) != slime_rel_owner(tbl))
		return InvalidOid;
	return f;
}

/*
 * The <name>_frames table of the saves table tbl (the framed form's frames,
 * issue #34): a plain table beside it with its owner; InvalidOid when there
 * is none (a loader made before 0.10.0 whose owner has not called
 * slime_loader_create since: its saves keep the hot form).
 */
Oid
slime_loader_frames_of(Oid tbl)
{
	return owned_beside(tbl, "_frames");
}

/* The <name>_pending table of the saves table tbl, of its owner (InvalidOid: none; slime_loader_defer_table). */
Oid
slime_loader_pending_of(Oid tbl)
{
	return owned_beside(tbl, "_pending");
}

/* The <name>_worlds table of the saves table tbl; raise when there is none. */
Oid
slime_loader_worlds_required(Oid tbl)
{
	Oid			worlds = slime_loader_worlds_of(tbl);

	if (!OidIsValid(worlds))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("no loader saves table with OID %u", tbl)));
	return worlds;
}

/* Raise unless tbl is a table with the fence trigger of the worlds table worlds. */
static void
check_loader(Oid tbl, Oid worlds, Oid nsp)
{
	Oid			fence = slime_extension_func(nsp, "slime_lease_fence", NULL, 0);
	Relation	rel = table_open(tbl, AccessShareLock);
	bool		found = false;

	for (int i = 0; rel->trigdesc && i < rel->trigdesc->numtriggers && !found; i++)
	{
		Trigger    *t = &rel->trigdesc->triggers[i];

		found = t->tgfoid == fence && t->tgenabled != TRIGGER_DISABLED && t->tgnargs == 1 &&
			DatumGetObjectId(DirectFunctionCall1(to_regclass, CStringGetTextDatum(t->tgargs[0]))) == worlds;
	}
	table_close(rel, AccessShareLock);
	if (!found || get_rel_relkind(worlds) != RELKIND_RELATION)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("%s is not a loader's saves table", get_rel_name(tbl)),
				 errdetail("A loader's saves table has the trigger slime_lease_fence() of its _worlds table."),
				 errhint("Loader tables are made by slime_loader_create.")));
}

/* Owner of relation rel. */
Oid
slime_rel_owner(Oid rel)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(rel));
	Oid			owner;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for relation %u", rel);
	owner = ((Form_pg_class) GETSTRUCT(tup))->relowner;
	ReleaseSysCache(tup);
	return owner;
}

/* The privilege each use of a loader stands for, by name. */
static const char *
privilege_name(AclMode need)
{
	return need == ACL_SELECT ? "SELECT" : need == ACL_INSERT ? "INSERT" : "DELETE";
}

/*
 * Run body(fcinfo) as the owner of the loader whose saves table is the
 * first argument, once the calling role is found to hold need on it.
 */
Datum
slime_loader_as_owner(FunctionCallInfo fcinfo, AclMode need, PGFunction body)
{
	Oid			tbl;
	Oid			worlds;
	Oid			owner;
	Oid			caller = GetUserId();
	Oid			prev = loader_caller;
	slime_role_ctx rc;
	Datum		r;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the loader's table must not be NULL")));
	tbl = PG_GETARG_OID(0);
	worlds = slime_loader_worlds_required(tbl);
	if (pg_class_aclcheck(tbl, caller, need) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to %s loader %s", need == ACL_SELECT ? "read" : "write",
						get_rel_name(tbl)),
				 errdetail("%s needs the %s privilege on the saves table.",
						   get_func_name(fcinfo->flinfo->fn_oid), privilege_name(need)),
				 need == ACL_DELETE ?
				 errhint("Pruning is for the loader's owner, or a role granted DELETE on %s.", get_rel_name(tbl)) :
				 errhint("The loader's owner grants its use: GRANT SELECT, INSERT ON %s TO %s.",
						 get_rel_name(tbl), GetUserNameFromId(caller, false))));
	check_loader(tbl, worlds, get_func_namespace(fcinfo->flinfo->fn_oid));
	owner = slime_rel_owner(tbl);
	if (slime_rel_owner(worlds) != owner)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("loader tables %s and %s_worlds have different owners", get_rel_name(tbl), get_rel_name(tbl))));
	loader_caller = caller;
	PG_TRY();
	{
		slime_become(owner, SECURITY_LOCAL_USERID_CHANGE | SECURITY_RESTRICTED_OPERATION, &rc);
		r = body(fcinfo);
		slime_unbecome(&rc);
	}
	PG_FINALLY();
	{
		/* on error, the (sub)transaction's abort restores the user and settings */
		loader_caller = prev;
	}
	PG_END_TRY();
	return r;
}

/* Call the function named like the one called, with "_as_owner" added, with its arguments. */
static Datum
call_as_owner_twin(FunctionCallInfo fcinfo)
{
	Oid			fn = fcinfo->flinfo->fn_oid;
	Oid		   *argtypes;
	int			nargs;
	Oid			twin;
	FmgrInfo	flinfo;
	Datum		r;
	LOCAL_FCINFO(in, 8);

	get_func_signature(fn, &argtypes, &nargs);
	twin = slime_extension_func(get_func_namespace(fn), psprintf("%s_as_owner", get_func_name(fn)), argtypes, nargs);
	if (!OidIsValid(twin) || nargs > 8)
		elog(ERROR, "function %s_as_owner is missing", get_func_name(fn));
	fmgr_info(twin, &flinfo);
	InitFunctionCallInfoData(*in, &flinfo, nargs, fcinfo->fncollation, NULL, NULL);
	for (int i = 0; i < nargs; i++)
	{
		in->args[i] = fcinfo->args[i];
		if (in->args[i].isnull && flinfo.fn_strict)
		{
			fcinfo->isnull = true;
			return (Datum) 0;
		}
	}
	r = FunctionCallInvoke(in);
	fcinfo->isnull = in->isnull;
	return r;
}

PG_FUNCTION_INFO_V1(slime_loader_write_as_owner);
/* A lease or save function (INSERT on the saves table): its _as_owner twin, as the loader's owner. */
Datum
slime_loader_write_as_owner(PG_FUNCTION_ARGS)
{
	return slime_loader_as_owner(fcinfo, ACL_INSERT, call_as_owner_twin);
}

PG_FUNCTION_INFO_V1(slime_loader_delete_as_owner);
/* slime_loader_prune (DELETE on the saves table; it carries no lease): its twin, as the owner. */
Datum
slime_loader_delete_as_owner(PG_FUNCTION_ARGS)
{
	return slime_loader_as_owner(fcinfo, ACL_DELETE, call_as_owner_twin);
}

/* The name of the role that called the loader function running now, else of the current user. */
Datum
slime_loader_caller_name(void)
{
	Oid			who = OidIsValid(loader_caller) ? loader_caller : GetUserId();

	return DirectFunctionCall1(namein, CStringGetDatum(GetUserNameFromId(who, false)));
}

PG_FUNCTION_INFO_V1(slime_loader_caller);
/* The role that called the loader function running now, else the current user. */
Datum
slime_loader_caller(PG_FUNCTION_ARGS)
{
	PG_RETURN_DATUM(slime_loader_caller_name());
}
