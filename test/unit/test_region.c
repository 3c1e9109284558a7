/*
 * test_region.c - unit tests of sl_region: hand-made hostile files, writing
 * and the whole region corpus.
 */
#include "harness.h"

#include <dirent.h>
#include <sys/stat.h>

#include "sl_codec.h"
#include "sl_nbt.h"
#include "sl_region.h"

/* in test_codec.c */
void		codec_test_zero_bomb(size_t n, sl_buf *out);

/*
 * Expected results per corpus region file: chunks read strictly (-1: the
 * strict read fails), chunks read leniently, problems with skipped = 1 and
 * with skipped = 0 (repaired). Non-damaged counts are the "ok" column of
 * SOURCES.md's "Region-file analysis" table.
 */
typedef struct corpus_expect
{
	const char *path;
	int			strict;
	int			lenient;
	int			skipped;
	int			repaired;
} corpus_expect;

static const corpus_expect corpus_expected[] = {
	{"anvil-1.13-1.17/amulet-core/1_13/r.-1.-1.mca", 256, 256, 0, 0},
	{"anvil-1.13-1.17/amulet-core/1_16_5_dimension/r.-1.-1.mca", 649, 649, 0, 0},
	{"anvil-1.13-1.17/amulet-core/1_16_5_dimension/r.-2.1.mca", 16, 16, 0, 0},
	{"anvil-1.13-1.17/amulet-core/1_16_5_forge_twilight/dimensions/twilightforest/r.-2.-1.mca", 56, 56, 0, 0},
	{"anvil-1.13-1.17/amulet-core/1_16_5_forge_twilight/r.0.0.mca", 52, 52, 0, 0},
	{"anvil-1.13-1.17/amulet-core/1_17_1_caves_and_cliffs/r.0.0.mca", 30, 30, 0, 0},
	{"anvil-1.13-1.17/amulet-core/1_17_1_custom_height_inline/r.-1.0.mca", 42, 42, 0, 0},
	{"anvil-1.13-1.17/hephaistos/issue_3/r.0.0.mca", 226, 226, 0, 0},
	{"anvil-1.13-1.17/mcaprocessor/r.0.0.mca", 215, 215, 0, 0},
	{"anvil-1.13-1.17/mcaselector/anvil113/r.0.0.mca", 147, 147, 0, 0},
	{"anvil-1.13-1.17/mcaselector/anvil114/r.0.0.mca", 199, 199, 0, 0},
	{"anvil-1.13-1.17/mcaselector/anvil115/r.0.0.mca", 199, 199, 0, 0},
	{"anvil-1.13-1.17/mcaselector/anvil116/r.0.0.mca", 292, 292, 0, 0},
	{"anvil-1.13-1.17/mcaselector/import-source/r.-1.-1.mca", 4, 4, 0, 0},
	{"anvil-1.13-1.17/mcaselector/import-source/r.0.-1.mca", 1, 1, 0, 0},
	{"anvil-1.13-1.17/prismarine-provider-anvil/1.13.2/r.-1.-1.mca", 189, 189, 0, 0},
	{"anvil-1.13-1.17/prismarine-provider-anvil/1.14.4/r.0.-1.mca", 299, 299, 0, 0},
	{"anvil-1.13-1.17/prismarine-provider-anvil/1.16/r.0.-1.mca", 253, 253, 0, 0},
	{"anvil-1.13-1.17/prismarine-provider-anvil/1.17.1/r.0.0.mca", 144, 144, 0, 0},
	{"anvil-1.13-1.17/querz-nbt/1_17_1/r.-3.-2.mca", 1, 1, 0, 0},
	{"anvil-1.13-1.17/querz-nbt/r.0.0.mca", 1, 1, 0, 0},
	{"anvil-1.13-1.17/twoolie-nbt/r.4.-4.mca", 1, 1, 0, 0},
	{"anvil-1.13-1.17/worldedit/world_region.mca", 1, 1, 0, 0},
	{"anvil-1.18plus/amulet-core/1_18_superflat/r.0.0.mca", 324, 324, 0, 0},
	{"anvil-1.18plus/amulet-core/1_18_vanilla/r.-1.1.mca", 64, 64, 0, 0},
	{"anvil-1.18plus/amulet-core/1_18_vanilla/r.-1.2.mca", 14, 14, 0, 0},
	{"anvil-1.18plus/bingley-tag/r.0.-1.mca", 724, 724, 0, 0},
	{"anvil-1.18plus/minestom/anvil_loader/r.-2.-2.mca", 196, 196, 0, 0},
	{"anvil-1.18plus/minestom/anvil_vanilla_sample/r.-1.1.mca", 118, 118, 0, 0},
	{"anvil-1.18plus/minestom/anvil_vanilla_sample/r.2.-1.mca", 120, 120, 0, 0},
	{"anvil-1.18plus/minestom/anvil_vanilla_sample/r.2.1.mca", 378, 378, 0, 0},
	{"anvil-1.18plus/minestom/anvil_vanilla_sample_old/r.2.-1.mca", 120, 120, 0, 0},
	{"anvil-1.18plus/prismarine-provider-anvil/1.18.2/r.0.0.mca", 280, 280, 0, 0},
	{"anvil-1.18plus/prismarine-provider-anvil/1.19.4/r.0.0.mca", 529, 529, 0, 0},
	{"anvil-1.18plus/prismarine-provider-anvil/1.20.6/r.0.0.mca", 225, 225, 0, 0},
	{"anvil-1.18plus/prismarine-provider-anvil/1.21.1/r.0.0.mca", 225, 225, 0, 0},
	{"anvil-1.18plus/pumpkin/World-DIM0/r.0.0.mca", 85, 85, 0, 0},
	{"anvil-1.18plus/pumpkin/bench_root_tmp/r.0.0.mca", 256, 256, 0, 0},
	{"anvil-1.18plus/querz-nbt/21w44a/r.-1.-1.mca", 1, 1, 0, 0},
	{"anvil-1.18plus/querz-nbt/21w44a/r.15.-9.mca", 1, 1, 0, 0},
	{"anvil-1.18plus/querz-nbt/parsers/r.0.0.mca", 562, 562, 0, 0},
	{"anvil-1.18plus/risc32-emulator/r.-3.0.mca", 144, 144, 0, 0},
	{"anvil-1.2-1.12/amulet-core/1_12_2/r.0.0.mca", 169, 169, 0, 0},
	{"anvil-1.2-1.12/amulet-core/1_12_2_forge_twilight/DIM7/r.0.0.mca", 104, 104, 0, 0},
	{"anvil-1.2-1.12/cu_minecraft/DIM-1/r.0.2.mca", 144, 144, 0, 0},
	{"anvil-1.2-1.12/cu_minecraft/r.0.2.mca", 79, 79, 0, 0},
	{"anvil-1.2-1.12/cu_minecraft/r.26.11.mca", 50, 50, 0, 0},
	{"anvil-1.2-1.12/mcaselector/anvil112/r.0.0.mca", 103, 103, 0, 0},
	{"anvil-1.2-1.12/prismarine-provider-anvil/1.11.2/r.-1.0.mca", 28, 28, 0, 0},
	{"anvil-1.2-1.12/prismarine-provider-anvil/1.12.2/r.0.-1.mca", 105, 105, 0, 0},
	{"anvil-1.2-1.12/prismarine-provider-anvil/1.8.9/r.-1.0.mca", 300, 300, 0, 0},
	{"anvil-1.2-1.12/prismarine-provider-anvil/1.9/r.-1.-1.mca", 326, 326, 0, 0},
	{"anvil-1.2-1.12/pymclevel/AnvilWorld/r.-1.0.mca", 30, 30, 0, 0},
	{"anvil-1.2-1.12/pymclevel/AnvilWorld/r.0.0.mca", 516, 516, 0, 0},
	{"anvil-1.2-1.12/pymclevel/PrimordialDesert/DIM-1/r.0.0.mca", 256, 256, 0, 0},
	{"anvil-1.2-1.12/pymclevel/PrimordialDesert/r.0.0.mca", 256, 256, 0, 0},
	{"anvil-1.2-1.12/returntowild/default_NORMAL/r.-1.1.mca", 105, 105, 0, 0},
	{"anvil-1.2-1.12/returntowild/r.0.0.mca", 103, 103, 0, 0},
	{"entities-1.17plus/amulet-core/1_17_1_caves_and_cliffs/r.-1.0.mca", 158, 158, 0, 0},
	{"entities-1.17plus/amulet-core/1_17_1_superflat/r.0.0.mca", 3, 3, 0, 0},
	{"entities-1.17plus/amulet-core/1_18_superflat/r.0.0.mca", 6, 6, 0, 0},
	{"entities-1.17plus/amulet-core/1_18_vanilla/r.0.1.mca", 68, 68, 0, 0},
	{"entities-1.17plus/bingley-tag/r.0.0.mca", 2, 2, 0, 0},
	{"entities-1.17plus/pumpkin/entity_test.mca", 1, 1, 0, 0},
	{"mcregion/cu_minecraft/r.0.0.mcr", 625, 625, 0, 0},
	{"mcregion/mc-block-distribution/r.-1.0.mcr", 58, 58, 0, 0},
	{"mcregion/pymclevel/PyTestWorld/r.-1.-1.mcr", 53, 53, 0, 0},
	{"mcregion/pymclevel/PyTestWorld/r.0.0.mcr", 185, 185, 0, 0},
	{"poi/amulet-core/1_16_5_dimension/r.0.-1.mca", 11, 11, 0, 0},
	{"poi/amulet-core/1_16_5_forge_twilight/r.-1.-1.mca", 4, 4, 0, 0},
	{"poi/amulet-core/1_17_1_custom_vanilla/r.-1.0.mca", 6, 6, 0, 0},
	{"poi/amulet-core/1_18_vanilla/r.1.1.mca", 3, 3, 0, 0},
	/* zero-byte file left by the game: a region with no chunks */
	{"damaged/amulet-core/1_17_1_caves_and_cliffs/r.-1.1.mca", 0, 0, 0, 0},
	/* empty location table, orphaned unpadded data after the header */
	{"damaged/bingley-tag/entities/r.0.-1.mca", 0, 0, 0, 0},
	/* every length field one byte short: strict fails, lenient repairs */
	{"damaged/hephaistos/issue_4/r.0.0.mca", -1, 121, 0, 121},
	{"damaged/querz-nbt/r.2.2.mca", -1, 3, 0, 3},
	/*
	 * deliberately corrupt: types 0 and 79, garbled zlib, non-NBT payload,
	 * chunks (4,0)/(12,0) sharing sector 15, 0-sector chunk, chunk in the
	 * header, chunk past EOF, length 0 and 1, length past its sector
	 */
	{"damaged/twoolie-nbt/regiontest.mca", -1, 10, 11, 0},
};
