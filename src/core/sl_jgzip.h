/*
 * sl_jgzip.h - gzip files as Minecraft writes them (level.dat, player and
 * map files): Java's GZIPOutputStream over zlib's deflate at its default
 * level, so that a file written again from its NBT is the game's file,
 * byte for byte.
 */
#ifndef SL_JGZIP_H
#define SL_JGZIP_H

#include "sl_common.h"

/*
 * The first DataVersion whose game runs only on Java 16 or later (1.17,
 * 2724): JDK 16's GZIPOutputStream writes 255 ("unknown") in the gzip
 * header's OS byte, older JDKs 0.
 */
#define SL_JGZIP_JAVA16_DV	2724

/* The OS byte of the gzip header the game of data_version writes (INT32_MIN, none: 0). */
int			sl_jgzip_os(int32_t data_version);

/*
 * Append in[0..len) as gzip the way java.util.zip.GZIPOutputStream writes
 * it: the 10-byte header 1f 8b 08 00, mtime 0, xfl 0, os; raw deflate by
 * zlib at level 6 (memLevel 8, 32 KiB window, default strategy); CRC-32
 * and the length mod 2^32, little-endian.
 */
int			sl_jgzip(const uint8_t *in, size_t len, int os, sl_buf *out, sl_err *err);

/*
 * sl_jgzip of a level.dat document (plain NBT), with the OS byte for its
 * Data.DataVersion (none: 0).
 */
int			sl_jgzip_level(const uint8_t *nbt, size_t len, const sl_limits *lim,
						   sl_buf *out, sl_err *err);

#endif
