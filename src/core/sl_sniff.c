/*
 * sl_sniff.c - what a file is, by its first bytes.
 */
#include "sl_sniff.h"

#include <string.h>

/* Recognise a file by its first bytes. */
sl_sniff_kind
sl_sniff(const uint8_t *p, size_t len)
{
	if (len >= 4 && memcmp(p, "SLIM", 4) == 0)
		return SL_SNIFF_VALUE;
	if (len >= 2 && p[0] == 0xB1 && p[1] == 0x0B)
		return SL_SNIFF_SLIMEFILE;
	if (len >= 2 && p[0] == 0x1F && p[1] == 0x8B)
		return SL_SNIFF_GZIP;
	if (len >= 4 && p[0] == 0x28 && p[1] == 0xB5 && p[2] == 0x2F && p[3] == 0xFD)
		return SL_SNIFF_ZSTD;
	if (len >= 2 && p[0] == 0x78 && ((p[0] << 8) | p[1]) % 31 == 0)
		return SL_SNIFF_ZLIB;
	/* a compound root with a short name: type 10, then a big-endian name length */
	if (len >= 3 && p[0] == 0x0A && p[1] == 0 && p[2] < 64)
		return SL_SNIFF_NBT;
	return SL_SNIFF_UNKNOWN;
}

/* A phrase for a kind of file. */
const char *
sl_sniff_name(sl_sniff_kind kind)
{
	switch (kind)
	{
		case SL_SNIFF_GZIP:
			return "gzip-compressed data (a level.dat, a schematic or another gzip'd NBT file)";
		case SL_SNIFF_ZLIB:
			return "zlib-compressed data";
		case SL_SNIFF_ZSTD:
			return "a zstd frame";
		case SL_SNIFF_NBT:
			return "uncompressed NBT (one chunk's or another document's)";
		case SL_SNIFF_SLIMEFILE:
			return "a slime file (AdvancedSlimePaper or Slime World Manager)";
		case SL_SNIFF_VALUE:
			return "a slime value (the bytes of the slime type)";
		default:
			return NULL;
	}
}
