/*
 * sl_sniff.h - what a file is, by its first bytes: so that a function given
 * the wrong kind of file can say what it was given and what reads it.
 */
#ifndef SL_SNIFF_H
#define SL_SNIFF_H

#include "sl_common.h"

typedef enum sl_sniff_kind
{
	SL_SNIFF_UNKNOWN = 0,
	SL_SNIFF_GZIP,				/* level.dat, schematics, other gzip'd NBT */
	SL_SNIFF_ZLIB,
	SL_SNIFF_ZSTD,
	SL_SNIFF_NBT,				/* uncompressed NBT with a compound root */
	SL_SNIFF_SLIMEFILE,			/* an AdvancedSlimePaper / SWM slime file */
	SL_SNIFF_VALUE				/* a slime value ("SLIM") */
} sl_sniff_kind;

/*
 * Recognise a file by its first bytes. A region file has no magic: its
 * first bytes are slot 0's location, which for every kind above would point
 * gigabytes past the end of any file that size, so none is taken for one.
 */
sl_sniff_kind sl_sniff(const uint8_t *p, size_t len);

/* A phrase for a kind, "a slime file (AdvancedSlimePaper)"; NULL for unknown. */
const char *sl_sniff_name(sl_sniff_kind kind);

#endif
