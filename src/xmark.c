/*
 * xmark.c - markers that live as long as the (sub)transaction that set them,
 * and the one the loader leaves for the store (issue #33 item 6: the store
 * asks here, not the loader, which value a loader save just checked, so that
 * store.c and loader.c do not call each other).
 */
#include "slime.h"

#include "access/xact.h"
#include "storage/proc.h"
#include "utils/resowner.h"

/* The (sub)transaction running now. */
slime_subxact
slime_subxact_now(void)
{
	slime_subxact x = {MyProc->lxid, GetCurrentSubTransactionId()};

	return x;
}

/*
 * Run fn(arg) in a subtransaction of its own (slime.h): true when it ran
 * through; false when it raised an error of SQLSTATE code, rolled back,
 * its message in *msg (when msg is not NULL) in the caller's context; any
 * other error is raised again.
 */
bool
slime_subxact_try(void (*fn) (void *arg), void *arg, int code, char **msg)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	volatile bool ran = false;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		fn(arg);
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
		ran = true;
	}
	PG_CATCH();
	{
		ErrorData  *e;

		MemoryContextSwitchTo(cxt);
		e = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
		if (e->sqlerrcode != code)
			ReThrowError(e);
		if (msg)
			*msg = pstrdup(e->message);
		FreeErrorData(e);
	}
	PG_END_TRY();
	return ran;
}

/* Whether marker x was set in the (sub)transaction running now. */
bool
slime_subxact_is(slime_subxact x)
{
	return x.lxid != InvalidLocalTransactionId && x.lxid == MyProc->lxid &&
		x.subxid == GetCurrentSubTransactionId();
}

/*
 * The value a loader save built last: its content hash, and the transaction
 * and subtransaction it checked and stored its chunks in. Until that
 * subtransaction ends, every chunk it refers to is in the store (found or
 * put there under the lock that holds slime_gc()'s delete off), so the
 * store's trigger need not look them up again.
 */
static struct
{
	slime_subxact at;
	uint8_t		hash[32];
}			checked;

/* Mark the value of content hash hash as checked and stored in this subtransaction. */
void
slime_loader_mark_checked(const uint8_t hash[32])
{
	memcpy(checked.hash, hash, 32);
	checked.at = slime_subxact_now();
}

/* Whether a value of this content hash was marked checked in this subtransaction. */
bool
slime_loader_checked(const uint8_t hash[32])
{
	return slime_subxact_is(checked.at) && memcmp(checked.hash, hash, 32) == 0;
}
