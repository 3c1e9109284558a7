/*
 * fuzz_region.c - libFuzzer target for region files (sl_region_read/write).
 *
 * Input: a region file (.mca/.mcr bytes). When it is longer than 12 KiB,
 * the bytes from sector 3 to the end are also offered as the external
 * chunk file c.0.0.mcc of slot 0 (generated seeds use that layout).
 *   - strict and lenient reads with small caps;
 *   - a strict success implies a lenient read with the same chunks and no
 *     problems;
 *   - every success is written back (sl_region_write, a compression type
 *     picked from the input) and re-read strictly: same chunks, same
 *     timestamps, same NBT bytes.
 */
#include "fuzz_common.h"
#include "sl_region.h"

#define RX 0
#define RZ 0

static void
reset(sl_err *err)
{
	err->code = SL_OK;
	err->msg[0] = '\0';
}

static void
same_chunks(const sl_region *a, const sl_region *b, const char *what)
{
	FUZZ_CHECK(a->nchunks == b->nchunks, "%s: %d chunks vs %d", what,
			   a->nchunks, b->nchunks);
	for (int i = 0; i < a->nchunks; i++)
	{
		const sl_region_chunk *p = &a->chunks[i],
				   *q = &b->chunks[i];

		FUZZ_CHECK(p->x == q->x && p->z == q->z, "%s: chunk %d at (%d,%d) vs (%d,%d)",
				   what, i, p->x, p->z, q->x, q->z);
		FUZZ_CHECK(p->timestamp == q->timestamp, "%s: chunk (%d,%d) timestamp %u vs %u",
				   what, p->x, p->z, p->timestamp, q->timestamp);
		FUZZ_CHECK(p->nbt_len == q->nbt_len, "%s: chunk (%d,%d) %zu NBT bytes vs %zu",
				   what, p->x, p->z, p->nbt_len, q->nbt_len);
		FUZZ_CHECK(p->nbt_len == 0 || memcmp(p->nbt, q->nbt, p->nbt_len) == 0,
				   "%s: chunk (%d,%d) NBT differs", what, p->x, p->z);
	}
}

static void
check_region(const sl_region *r, size_t file_len)
{
	FUZZ_CHECK(r->nchunks >= 0 && r->nchunks <= SL_REGION_SLOTS, "nchunks %d", r->nchunks);
	FUZZ_CHECK(r->nproblems >= 0 && r->nproblems <= SL_REGION_SLOTS, "nproblems %d",
			   r->nproblems);
	for (int i = 0; i < r->nchunks; i++)
	{
		const sl_region_chunk *c = &r->chunks[i];

		FUZZ_CHECK(c->x >= RX * 32 && c->x < RX * 32 + 32 &&
				   c->z >= RZ * 32 && c->z < RZ * 32 + 32,
				   "chunk %d at (%d,%d) outside the region", i, c->x, c->z);
		FUZZ_CHECK(c->nbt != NULL && c->nbt_len > 0 &&
				   c->nbt_len <= fuzz_limits.max_chunk_raw,
				   "chunk (%d,%d): %zu NBT bytes", c->x, c->z, c->nbt_len);
		/* touch every byte so ASan sees the whole allocation */
		volatile uint8_t sink = 0;

		for (size_t k = 0; k < c->nbt_len; k++)
			sink ^= c->nbt[k];
		(void) sink;
		if (i > 0)
		{
			const sl_region_chunk *p = &r->chunks[i - 1];

			FUZZ_CHECK((p->z - RZ * 32) * 32 + (p->x - RX * 32) <
					   (c->z - RZ * 32) * 32 + (c->x - RX * 32),
					   "chunks not in slot order");
		}
	}
	for (int i = 0; i < r->nproblems; i++)
		FUZZ_CHECK(memchr(r->problems[i].msg, '\0', sizeof(r->problems[i].msg)) != NULL,
				   "problem %d: message not terminated", i);
}

/* Write r back and read it again: the same chunks must come back. */
static void
rewrite(const sl_region *r, int compression)
{
	sl_buf		out = {0};
	sl_external *ext = NULL;
	int			next = 0;
	sl_region	again;
	sl_err		err;

	reset(&err);
	if (sl_region_write(r->chunks, r->nchunks, RX, RZ, compression, &out,
						&ext, &next, &err))
	{
		fuzz_check_err(&err);
		FUZZ_CHECK(0, "sl_region_write of %d read chunks (type %d) failed: %s",
				   r->nchunks, compression, err.msg);
	}
	reset(&err);
	if (sl_region_read(out.data, out.len, RX, RZ, ext, next, 1, &fuzz_limits,
					   &again, &err))
	{
		fuzz_check_err(&err);
		FUZZ_CHECK(0, "re-reading a written region (type %d) failed: %s",
				   compression, err.msg);
	}
	FUZZ_CHECK(again.nproblems == 0, "written region has %d problems", again.nproblems);
	same_chunks(r, &again, "write+read");
	sl_region_free(&again);
	for (int i = 0; i < next; i++)
		sl_free((void *) ext[i].data);
	sl_free(ext);
	sl_buf_free(&out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sl_external ext[1];
	int			next = 0;
	sl_region	strict,
				lenient;
	int			strict_ok,
				lenient_ok;
	int			compression = size ? 1 + (data[size - 1] & 3) : 2;
	sl_err		err;

	if (size > 3 * SL_SECTOR)
	{
		ext[0].x = RX * 32;
		ext[0].z = RZ * 32;
		ext[0].data = data + 3 * SL_SECTOR;
		ext[0].len = size - 3 * SL_SECTOR;
		next = 1;
	}

	reset(&err);
	strict_ok = sl_region_read(data, size, RX, RZ, ext, next, 1, &fuzz_limits,
							   &strict, &err) == 0;
	if (!strict_ok)
		fuzz_check_err(&err);
	else
	{
		check_region(&strict, size);
		FUZZ_CHECK(strict.nproblems == 0, "strict read reported %d problems",
				   strict.nproblems);
	}

	reset(&err);
	lenient_ok = sl_region_read(data, size, RX, RZ, ext, next, 0, &fuzz_limits,
								&lenient, &err) == 0;
	if (!lenient_ok)
	{
		fuzz_check_err(&err);
		FUZZ_CHECK(!strict_ok, "strict read passed, lenient failed: %s", err.msg);
	}
	else
		check_region(&lenient, size);

	if (strict_ok)
	{
		FUZZ_CHECK(lenient_ok && lenient.nproblems == 0,
				   "strict read passed but the lenient one has problems");
		same_chunks(&strict, &lenient, "strict vs lenient");
		rewrite(&strict, compression);
		sl_region_free(&strict);
	}
	if (lenient_ok)
	{
		if (!strict_ok && lenient.nchunks > 0)
			rewrite(&lenient, compression);
		sl_region_free(&lenient);
	}
	return 0;
}
