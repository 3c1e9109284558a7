/*
 * sl_sfhot.h - the hot form of a loader's kept slime file (issue #33): the
 * file a load of a world's newest save gives back, as the save keeps it in
 * the world's row (<name>_worlds.file), with a checksum over it.
 *
 * A slime file's zstd blocks carry no checksum (zstd-jni writes none), and
 * its header none either, so a damaged byte of a file kept as it came is
 * handed to the game server as it lies: another DataVersion, other chunk
 * bytes. The hot form makes it an error at the load instead.
 *
 * Layout: "SLHF" (0x53 0x4C 0x48 0x46), u8 version 1, the file's bytes as
 * they are, then u64le XXH64 (seed 0) of every byte before it (the magic,
 * the version and the file). slime_settle() turns it into the cold form
 * (sl_sfcold.h) once its world is cold. doc/format.md, "The loader's kept
 * files", is the authority.
 */
#ifndef SL_SFHOT_H
#define SL_SFHOT_H

#include "sl_common.h"

#define SL_SFHOT_MAGIC "SLHF"
#define SL_SFHOT_VERSION 1
#define SL_SFHOT_HEADER 5		/* magic, version */
#define SL_SFHOT_SUM 8			/* the XXH64 after the file */

/* Whether src[0..len) starts as a hot form does (its magic). */
int			sl_sfhot_is(const uint8_t *src, size_t len);

/* Append the hot form of file (len bytes, any slime file) to out. */
int			sl_sfhot_encode(const uint8_t *file, size_t len, sl_buf *out, sl_err *err);

/*
 * Point *file and *file_len at the file a hot form holds, once its version
 * is known (else SL_ERR_UNSUPPORTED) and its checksum passes (else, or when
 * it is not a hot form, SL_ERR_CORRUPT).
 */
int			sl_sfhot_open(const uint8_t *src, size_t len, const uint8_t **file, size_t *file_len,
						  sl_err *err);

#endif
