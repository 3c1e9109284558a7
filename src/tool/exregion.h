/*
 * exregion.h - export-world's region files: one dimension's chunks as
 * r.X.Z.mca files (or .mcr for a dimension of McRegion chunks) with their
 * c.X.Z.mcc files, each read back strictly before it is staged.
 */
#ifndef SLIMETOOL_EXREGION_H
#define SLIMETOOL_EXREGION_H

#include "exstage.h"
#include "tool.h"

/* Per-dimension counters. */
typedef struct dim_stats
{
	int			files[SL_NCOMP];
	int			external;
	uint32_t	chunks;
	int			mcr;			/* written as McRegion .mcr files */
	uint32_t	mixed;			/* McRegion chunks among Anvil ones (written as .mca) */
} dim_stats;

/*
 * Stage every region file of the value v as files of dimension dim
 * ("region/r.X.Z.mca", ...); label names the row in messages.
 */
int			ex_write_regions(stage *s, int dim, sl_value *v, const char *label, dim_stats *st);

#endif
