/*
 * fuzz_pack.c - libFuzzer target for the chunk store's packs (sl_pack) and
 * the cold form of loader files (sl_sfcold).
 *
 * Input: u8 selector, then
 *   - selector even: a pack. sl_pack_open fails cleanly (no NOMEM under
 *     the fuzz limits) or opens; an opened pack hands out every entry (its
 *     lengths adding up to its bytes) and not one past the end, and its
 *     entries packed again (fast codec) open to the same entries;
 *   - selector odd: u16le prefix length, the prefix, then a cold form.
 *     sl_sfcold_decode fails cleanly or gives a version-13 file, which
 *     sl_sfcold_encode takes back against the same prefix into a cold form
 *     of the same version that decodes to the same file.
 */
#include "fuzz_common.h"
#include "sl_pack.h"
#include "sl_sfcold.h"
#include "sl_store.h"

/* An opened pack's entries, repacked, give the same entries. */
static void
pack_case(const uint8_t *data, size_t size)
{
	sl_pack		p,
				q;
	sl_buf		all = {0},
				again = {0},
				one = {0};
	sl_err		err;
	size_t	   *off;
	const uint8_t **e;
	size_t	   *sz;

	if (sl_pack_open(data, size, &fuzz_limits, &p, &err))
	{
		fuzz_check_err(&err);
		return;
	}
	off = malloc(sizeof(size_t) * (p.count + 1));
	e = malloc(sizeof(uint8_t *) * p.count);
	sz = malloc(sizeof(size_t) * p.count);
	if (off == NULL || e == NULL || sz == NULL)
		abort();
	for (uint32_t i = 0; i < p.count; i++)
	{
		off[i] = all.len;
		FUZZ_CHECK(sl_pack_entry(&p, i, &all, &err) == 0, "entry %u of an open pack: %s", i, err.msg);
	}
	off[p.count] = all.len;
	FUZZ_CHECK(sl_pack_entry(&p, p.count, &one, &err) != 0, "an entry past the end");
	FUZZ_CHECK(all.len == p.raw_len + (size_t) SL_ENTRY_HEADER * p.count, "entries and raw bytes differ");
	for (uint32_t i = 0; i < p.count; i++)
	{
		e[i] = all.data + off[i];
		sz[i] = off[i + 1] - off[i];
	}
	if (p.raw_len <= SL_PACK_MAX_RAW)
	{
		FUZZ_CHECK(sl_pack_encode(e, sz, p.count, SL_PACK_FAST, &again, &err) == 0, "repack: %s", err.msg);
		FUZZ_CHECK(sl_pack_open(again.data, again.len, &fuzz_limits, &q, &err) == 0, "repacked: %s", err.msg);
		for (uint32_t i = 0; i < p.count; i++)
		{
			one.len = 0;
			FUZZ_CHECK(sl_pack_entry(&q, i, &one, &err) == 0 && one.len == sz[i] &&
					   memcmp(one.data, e[i], sz[i]) == 0, "repacked entry %u differs", i);
		}
		sl_pack_free(&q);
	}
	sl_pack_free(&p);
	sl_buf_free(&all);
	sl_buf_free(&again);
	sl_buf_free(&one);
	free(off);
	free(e);
	free(sz);
}

/* A cold form that decodes gives a file that goes back to a cold form of the same file. */
static void
cold_case(const uint8_t *data, size_t size)
{
	size_t		plen;
	sl_buf		file = {0},
				cold = {0},
				back = {0};
	sl_err		err;

	if (size < 2)
		return;
	plen = (size_t) data[0] | (size_t) data[1] << 8;
	if (plen > size - 2)
		plen = size - 2;
	if (sl_sfcold_decode(data + 2 + plen, size - 2 - plen, data + 2, plen, 1, &fuzz_limits, &file, &err))
	{
		fuzz_check_err(&err);
		FUZZ_CHECK(file.len == 0, "a failed decode left output");
		return;
	}
	FUZZ_CHECK(sl_sfcold_encode(file.data, file.len, sl_sfcold_version(data + 2 + plen, size - 2 - plen),
								data + 2, plen, &fuzz_limits, &cold, &err) == 0,
			   "re-encode: %s", err.msg);
	FUZZ_CHECK(sl_sfcold_decode(cold.data, cold.len, data + 2, plen, 1, &fuzz_limits, &back, &err) == 0 &&
			   back.len == file.len && memcmp(back.data, file.data, file.len) == 0, "round trip differs");
	sl_buf_free(&file);
	sl_buf_free(&cold);
	sl_buf_free(&back);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] & 1)
		cold_case(data + 1, size - 1);
	else
		pack_case(data + 1, size - 1);
	return 0;
}
