/*
 * wfiles.h - a world's own files: every file of a world folder that is not
 * a chunk file (data/ at the root and in every dimension, player data,
 * stats and advancements in either layout, datapacks/, anything else), as
 * copy-world --files sends them, one row (world, path, data) each.
 *
 * Left out: the chunk files copy-world reads into values (r.X.Z.mca / .mcr
 * and c.X.Z.mcc in a dimension's region/, entities/ and poi/ folders;
 * a region file holding no chunk is kept as a file), level.dat when the
 * world compound gives it back byte for byte (sl_jgzip; else its bytes are
 * kept too), the server's session.lock and the game's level.dat_old.
 */
#ifndef SLIMETOOL_WFILES_H
#define SLIMETOOL_WFILES_H

#include "wdims.h"

/* The world's own files as a binary COPY stream of (world, path, data) on stdout. */
int			wf_copy(const char *world, const char *name, const dim_list *dims,
					int strict, int quiet);

/* Say what copy-world --files would keep (copy-world --check). */
int			wf_describe(const char *world, const dim_list *dims);

#endif
