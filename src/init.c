/*
 * init.c - the library's start: the one file above every other, so that
 * slime.c, which opens values for everyone, need not name the chunk store
 * that reads their references (the store itself opens values through it).
 */
#include "slime.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

/* Define the settings, and make the chunk store the reader of every value's references. */
void
_PG_init(void)
{
	slime_define_settings();
	slime_set_resolver(slime_store_resolve);
}
