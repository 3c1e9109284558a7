/*
 * sl_slimefile.c - slime files in (versions 1..13): the entry point.
 *
 * It checks the magic and the version, then hands the file to the layout of
 * its version (sl_slimefile_chunks.c), which reads each chunk into vanilla
 * chunk NBT built as a tree in a per-chunk arena, whose leaves point into the
 * decompressed blocks (light arrays, block arrays and the NBT documents the
 * file embeds are written out unchanged), with the cursor, trees and world
 * compound of sl_slimefile_base.c. sl_slimefile_write.c writes version 13.
 *
 * The layouts are those of AdvancedSlimePaper's readers and writer
 * (core/.../serialization/slime/SlimeSerializer.java, reader/impl/v1_9,
 * v10, v11, v12, v13) and of the original Hypixel format (Minikloon's
 * "Slime World Format" gist); doc/format.md, "Slime files", lists them.
 */
#include "sl_slimefile_int.h"

#include <string.h>

/* Read a slime file of any version into the builder. */
int
sl_slimefile_read(const uint8_t *file, size_t len, const sl_limits *lim, sl_builder *b,
				  sl_slimefile_info *info, sl_err *err)
{
	return sl_slimefile_read_memo(file, len, lim, b, info, NULL, NULL, NULL, err);
}

static int	read_file(const uint8_t *file, size_t len, const sl_limits *lim, sl_builder *b,
					  sl_slimefile_info *info, const sl_lmemo *memo, sl_lmemo *out, sl_buf *chunk_block,
					  const sl_sffr_frame *frames, uint32_t nframes, sl_err *err);

/* Read a slime file into the builder, reusing the chunk records memo knows. */
int
sl_slimefile_read_memo(const uint8_t *file, size_t len, const sl_limits *lim, sl_builder *b,
					   sl_slimefile_info *info, const sl_lmemo *memo, sl_lmemo *out, sl_buf *chunk_block,
					   sl_err *err)
{
	return read_file(file, len, lim, b, info, memo, out, chunk_block, NULL, 0, err);
}

/* Read a version-13 file whose chunk block is the given frames, the frames of records memo knows left unread. */
int
sl_slimefile_read_frames(const uint8_t *file, size_t len, const sl_limits *lim, sl_builder *b,
						 sl_slimefile_info *info, const sl_lmemo *memo, sl_lmemo *out,
						 const sl_sffr_frame *frames, uint32_t nframes, sl_err *err)
{
	if (out == NULL || frames == NULL)
		return sl_fail(err, SL_ERR_INVALID, "sl_slimefile_read_frames needs a memo to note into and frames");
	return read_file(file, len, lim, b, info, memo, out, NULL, frames, nframes, err);
}

/* The reads above: the state set, the version's layout called. */
static int
read_file(const uint8_t *file, size_t len, const sl_limits *lim, sl_builder *b,
		  sl_slimefile_info *info, const sl_lmemo *memo, sl_lmemo *out, sl_buf *chunk_block,
		  const sl_sffr_frame *frames, uint32_t nframes, sl_err *err)
{
	sf			s;
	sl_slimefile_info dummy;
	rd			f;
	uint8_t		version;
	int			rc;

	if (lim == NULL)
		lim = &sl_default_limits;
	if (info == NULL)
		info = &dummy;
	memset(info, 0, sizeof(*info));
	info->world_version = -1;
	info->data_version = SL_NO_DV;
	memset(&s, 0, sizeof(s));
	s.lim = lim;
	s.doc_lim = *lim;
	s.doc_lim.max_chunk_raw = lim->max_value_raw;	/* world-level documents */
	s.err = err;
	s.b = b;
	s.info = info;
	s.wv = -1;
	s.dv = SL_NO_DV;
	s.memo = memo;
	s.memo_out = out;
	s.chunk_block = chunk_block;
	s.frames = frames;
	s.nframes = nframes;
	f.p = file;
	f.len = len;
	f.pos = 0;
	f.area = "file";
	if (len < 3 || file[0] != 0xB1 || file[1] != 0x0B)
		return sl_fail(err, SL_ERR_FORMAT,
					   "not a slime file: it does not start with the magic bytes B1 0B (offset 0)");
	version = file[2];
	s.version = version;
	f.pos = 3;
	if (version < 1 || version > SL_SLIMEFILE_VERSION_MAX)
		return sl_fail(err, version > SL_SLIMEFILE_VERSION_MAX ? SL_ERR_UNSUPPORTED : SL_ERR_FORMAT,
					   "slime file: format version %d at offset 2 is not one this reader knows (1..%d)",
					   version, SL_SLIMEFILE_VERSION_MAX);
	info->version = version;
	rc = version <= 9 ? sl_sf_read_v1_9(&s, &f) : sl_sf_read_v10_13(&s, &f);
	info->data_version = s.dv;
	sl_arena_free(&s.ca);
	sl_arena_free(&s.wa);
	for (int i = 0; i < s.nblocks; i++)
		sl_free(s.blocks[i]);
	return rc;
}
