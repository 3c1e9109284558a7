/*
 * fuzz_pack.c - libFuzzer target for the chunk store's packs (sl_pack) and
 * the cold form of loader files (sl_sfcold).
 *
 * Input: u8 selector, then
 *   - selector 2 mod 4: damage to one of six packs the target makes
 *     itself (selector >> 2, mod 6: codec and version 1, 2 or 3; the
 *     version 3 packs code four of their eight entries against others), as
 *     records of 4 bytes: u16le offset, u8 op, u8 value. op even: the byte
 *     at offset xor value; op odd: value added to the u32le at offset and
 *     taken from the u32le (op >> 1) directory rows later (lengths that
 *     cancel). The
 *     differential check (issue #33): every entry read out of the damaged
 *     pack as the entry of any key (sl_pack_read, as a reader at the
 *     default settings reads it) is refused or byte-equal to the original
 *     entry of that key, never other bytes;
 *   - selector 0 mod 4: a pack. sl_pack_open fails cleanly (no NOMEM under
 *     the fuzz limits) or opens; an opened pack hands out every entry (its
 *     lengths adding up to its bytes) but those coded against another whose
 *     delta frame is refused when read (SL_ERR_CORRUPT), and not one past
 *     the end, and the entries it hands out packed again (fast codec) open
 *     to the same entries;
 *   - selector 3 mod 4: damage to one of the kept forms of a loader's file
 *     the target makes itself (selector bits 2-3: 0 the cold form of
 *     version 3, 1 of version 2, 2 the hot form), as records of 4 bytes as
 *     above, with op odd taking value from the u32le at offset + 4 * (op >>
 *     1) (the cold form's two block lengths are at 13 and 17). The
 *     differential check (issue #33): what the damaged cold form of version
 *     3 decodes to, or the damaged hot form opens to, is refused or
 *     byte-equal to the file; version 2 (not vouched for, which the loader
 *     does not decode) must only fail cleanly or decode;
 *   - selector 1 mod 4: u16le prefix length, the prefix, then a cold form.
 *     sl_sfcold_decode fails cleanly or gives a version-13 file, which
 *     sl_sfcold_encode takes back against the same prefix into a cold form
 *     of the same version that decodes to the same file.
 */
#include "fuzz_common.h"
#include "../unit/nbt_build.h"
#include "sl_bcodec.h"
#include "sl_zstd.h"

#include <xxhash.h>
#include "sl_pack.h"
#include "sl_sfcold.h"
#include "sl_sfhot.h"
#include "sl_slimefile.h"
#include "sl_store.h"
#include "sl_value.h"

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
	uint32_t	good = 0;		/* entries handed out */
	size_t		want = 0;		/* and their bytes */

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
		size_t		was = all.len;

		off[good] = all.len;
		/* an entry coded against another is decoded when read: its delta frame may be refused then */
		if (sl_pack_entry(&p, i, &all, &err))
		{
			FUZZ_CHECK(err.code == SL_ERR_CORRUPT && p.base && p.base[i] != 0 && all.len == was,
					   "entry %u of an open pack: %s", i, err.msg);
			continue;
		}
		want += all.len - was;
		good++;
	}
	off[good] = all.len;
	FUZZ_CHECK(sl_pack_entry(&p, p.count, &one, &err) != 0, "an entry past the end");
	FUZZ_CHECK(good < p.count || want == p.raw_len + (size_t) SL_ENTRY_HEADER * p.count, "entries and raw bytes differ");
	for (uint32_t i = 0; i < good; i++)
	{
		e[i] = all.data + off[i];
		sz[i] = off[i + 1] - off[i];
	}
	if (good > 0 && p.raw_len <= SL_PACK_MAX_RAW)
	{
		/* with history: the encoder finds the positions the entries name, whatever they are */
		FUZZ_CHECK(sl_pack_encode_history(e, sz, e, good, SL_PACK_FAST, &again, &err) == 0, "repack: %s", err.msg);
		FUZZ_CHECK(sl_pack_open(again.data, again.len, &fuzz_limits, &q, &err) == 0, "repacked: %s", err.msg);
		for (uint32_t i = 0; i < good; i++)
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

enum
{
	BASE_N = 8
};

/* The packs the damage case starts from: their entries, keys and bytes. */
static struct
{
	int			made;
	sl_buf		all;
	size_t		off[BASE_N + 1];
	uint8_t		key[BASE_N][32];
	sl_buf		pack[6];		/* codec (bit 0), version 1 + (index >> 1) */
}			base;

/*
 * Entry i's canonical bytes: a region chunk at one of four positions, its
 * data compressing a little; entries 4 to 7 are the first four with a few
 * bytes changed (a second version of each chunk).
 */
static void
base_entry(sl_buf *out, int i)
{
	uint8_t		data[160];

	for (uint32_t n = 0; n < sizeof(data); n++)
		data[n] = (uint8_t) (n % 5 ? n % 3 + (uint32_t) (i % 4) : n * 37 + (uint32_t) (i % 4));
	if (i >= 4)
		data[17 * i] ^= 0x55;
	nb_chunk_entry(out, i % 4, 0, data, sizeof(data));
}

/*
 * A pack of version 1 or 2 of the base entries, as 0.7.0 to 0.10.0 wrote
 * them: every entry whole (version 1: no key prefixes, no directory
 * checksum).
 */
static void
base_old_pack(int codec, int version, sl_buf *out)
{
	sl_buf		all = {0};
	uint8_t		head[SL_PACK_HEADER] = {SL_PACK_MAGIC, (uint8_t) version};
	uint8_t		sum[SL_PACK_DIRSUM];
	sl_err		err;

	sl_put_u32le(head + 2, BASE_N);
	sl_buf_put(out, head, sizeof(head), &err);
	for (int i = 0; i < BASE_N; i++)
	{
		sl_buf_put(out, base.all.data + base.off[i], SL_ENTRY_HEADER, &err);
		if (version == 2)
			sl_buf_put(out, base.key[i], SL_PACK_KEY_PREFIX, &err);
		sl_buf_put(&all, base.all.data + base.off[i] + SL_ENTRY_HEADER,
				   base.off[i + 1] - base.off[i] - SL_ENTRY_HEADER, &err);
	}
	if (version == 2)
	{
		sl_put_u64le(sum, XXH64(out->data, out->len, 0));
		sl_buf_put(out, sum, sizeof(sum), &err);
	}
	FUZZ_CHECK((codec == SL_PACK_DENSE ? sl_bcodec_encode(all.data, all.len, SL_SETTLE_BCODEC, out, &err) :
				sl_zstd_frame(all.data, all.len, SL_PACK_ZSTD_LEVEL, out, &err)) == 0, "old pack: %s", err.msg);
	sl_buf_free(&all);
}

/* Make the base packs once. */
static void
base_make(void)
{
	const uint8_t *e[BASE_N],
			   *k[BASE_N];
	size_t		size[BASE_N];
	int64_t		bases[BASE_N];	/* entries 4 to 7 against 0 to 3 */
	sl_pack		p;
	sl_err		err;

	for (int i = 0; i < BASE_N; i++)
	{
		sl_dirent	d;
		const uint8_t *comp[SL_NCOMP];
		size_t		at;

		base.off[i] = base.all.len;
		base_entry(&base.all, i);
		memset(&d, 0, sizeof(d));
		at = base.off[i] + SL_ENTRY_HEADER;
		for (int c = 0; c < SL_NCOMP; c++)
		{
			d.len[c] = sl_get_u32le(base.all.data + base.off[i] + 4 * c);
			comp[c] = base.all.data + at;
			at += d.len[c];
		}
		sl_chunk_hash(&d, comp, base.key[i]);
	}
	base.off[BASE_N] = base.all.len;
	for (int i = 0; i < BASE_N; i++)
	{
		e[i] = base.all.data + base.off[i];
		k[i] = base.key[i];
		size[i] = base.off[i + 1] - base.off[i];
		bases[i] = i >= 4 ? i - 4 : -1;
	}
	for (int codec = 0; codec < 2; codec++)
	{
		base_old_pack(codec, 1, &base.pack[codec]);
		base_old_pack(codec, 2, &base.pack[codec | 2]);
		FUZZ_CHECK(sl_pack_encode_based(e, size, k, BASE_N, (sl_pack_codec) codec, bases, &base.pack[codec | 4],
										&err) == 0, "base pack: %s", err.msg);
		FUZZ_CHECK(sl_pack_open(base.pack[codec | 4].data, base.pack[codec | 4].len, &fuzz_limits, &p, &err) == 0 &&
				   p.version == 3 && p.based == 4, "the version 3 base pack codes 4 entries against others");
		sl_pack_free(&p);
	}
	base.made = 1;
}

/* Damage a base pack as the input says; every read is refused or the original entry. */
static void
damage_case(int which, const uint8_t *data, size_t size)
{
	sl_buf		b = {0},
				out = {0};
	sl_pack		p;
	sl_err		err;

	if (!base.made)
		base_make();
	sl_buf_put(&b, base.pack[which].data, base.pack[which].len, &err);
	for (size_t r = 0; r + 4 <= size; r += 4)
	{
		size_t		at = (size_t) data[r] | (size_t) data[r + 1] << 8;
		uint8_t		op = data[r + 2],
					v = data[r + 3];
		size_t		row = which < 2 ? SL_ENTRY_HEADER : which < 4 ? SL_ENTRY_HEADER + SL_PACK_KEY_PREFIX :
			SL_ENTRY_HEADER + SL_PACK_KEY_PREFIX + SL_PACK_DELTA_FIELDS;
		size_t		other = at + row * (size_t) (op >> 1);

		if (!(op & 1) && at < b.len)
			b.data[at] ^= v;
		else if ((op & 1) && other + 4 <= b.len)
		{
			sl_put_u32le(b.data + at, sl_get_u32le(b.data + at) + v);
			sl_put_u32le(b.data + other, sl_get_u32le(b.data + other) - v);
		}
	}
	if (sl_pack_open(b.data, b.len, &fuzz_limits, &p, &err) == 0)
	{
		for (uint32_t i = 0; i < p.count; i++)
			for (uint32_t j = 0; j < BASE_N; j++)
			{
				size_t		n = base.off[j + 1] - base.off[j];

				out.len = 0;
				if (sl_pack_read(&p, i, base.key[j], 0, 0, &out, &err) < 0)
					continue;
				FUZZ_CHECK(out.len == 1 + n && memcmp(out.data + 1, base.all.data + base.off[j], n) == 0,
						   "entry %u of a damaged pack read as entry %u's key gave other bytes", i, j);
			}
		sl_pack_free(&p);
	}
	else
		fuzz_check_err(&err);
	sl_buf_free(&b);
	sl_buf_free(&out);
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

/* The kept forms the damage case starts from: a prefix, a file, its cold forms and hot form. */
static struct
{
	int			made;
	sl_buf		prefix;
	sl_buf		file;
	sl_buf		form[3];		/* cold version 3, cold version 2, hot */
}			kept;

/* Make the kept forms once: a file whose chunk block repeats much of the prefix. */
static void
kept_make(void)
{
	sl_buf		chunks = {0},
				extra = {0};
	const uint8_t head[8] = {0xB1, 0x0B, 13, 0, 0, 0x0E, 0x80, 1};
	sl_err		err;

	for (uint32_t i = 0; i < 3000; i++)
		sl_buf_put_u8(&kept.prefix, (uint8_t) (i % 11 == 0 ? (i * 2654435761u) >> 11 : i % 6), &err);
	sl_buf_put(&chunks, "\0\0\0\x02", 4, &err);
	sl_buf_put(&chunks, kept.prefix.data + 100, 1500, &err);
	sl_buf_put(&chunks, "chunk", 5, &err);
	for (int i = 0; i < 80; i++)
		sl_buf_put_u8(&extra, (uint8_t) (i * 7 + 1), &err);
	FUZZ_CHECK(sl_buf_put(&kept.file, head, sizeof(head), &err) == 0 &&
			   sl_sf_put_zblock(&kept.file, chunks.data, chunks.len, SL_DEFAULT_LEVEL, &err) == 0 &&
			   sl_sf_put_zblock(&kept.file, extra.data, extra.len, SL_DEFAULT_LEVEL, &err) == 0,
			   "kept file: %s", err.msg);
	for (int version = 3; version >= 2; version--)
		FUZZ_CHECK(sl_sfcold_encode(kept.file.data, kept.file.len, version, kept.prefix.data, kept.prefix.len,
									&fuzz_limits, &kept.form[3 - version], &err) == 0, "cold form: %s", err.msg);
	FUZZ_CHECK(sl_sfhot_encode(kept.file.data, kept.file.len, &kept.form[2], &err) == 0, "hot form: %s", err.msg);
	sl_buf_free(&chunks);
	sl_buf_free(&extra);
	kept.made = 1;
}

/* Damage a kept form as the input says; what it gives is refused or the file. */
static void
kept_damage_case(int which, const uint8_t *data, size_t size)
{
	sl_buf		b = {0},
				out = {0};
	const uint8_t *f;
	size_t		n;
	sl_err		err;
	int			rc;

	if (which > 2)
		return;
	if (!kept.made)
		kept_make();
	sl_buf_put(&b, kept.form[which].data, kept.form[which].len, &err);
	for (size_t r = 0; r + 4 <= size; r += 4)
	{
		size_t		at = (size_t) data[r] | (size_t) data[r + 1] << 8;
		uint8_t		op = data[r + 2],
					v = data[r + 3];
		size_t		other = at + 4 * (size_t) (op >> 1);

		if (!(op & 1) && at < b.len)
			b.data[at] ^= v;
		else if ((op & 1) && other + 4 <= b.len)
		{
			sl_put_u32le(b.data + at, sl_get_u32le(b.data + at) + v);
			sl_put_u32le(b.data + other, sl_get_u32le(b.data + other) - v);
		}
	}
	if (which == 2)
	{
		rc = sl_sfhot_open(b.data, b.len, &f, &n, &err);
		if (rc == 0)
			FUZZ_CHECK(n == kept.file.len && memcmp(f, kept.file.data, n) == 0,
					   "a damaged hot form gave another file");
	}
	else
	{
		rc = sl_sfcold_decode(b.data, b.len, kept.prefix.data, kept.prefix.len, SL_DEFAULT_LEVEL,
							  &fuzz_limits, &out, &err);
		if (rc == 0 && sl_sfcold_vouched(b.data, b.len))
			FUZZ_CHECK(out.len == kept.file.len && memcmp(out.data, kept.file.data, out.len) == 0,
					   "a damaged cold form of version %d gave another file", b.data[4]);
	}
	if (rc)
		fuzz_check_err(&err);
	sl_buf_free(&b);
	sl_buf_free(&out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if ((data[0] & 3) == 3)
		kept_damage_case((data[0] >> 2) & 3, data + 1, size - 1);
	else if (data[0] & 1)
		cold_case(data + 1, size - 1);
	else if (data[0] & 2)
		damage_case((data[0] >> 2) % 6, data + 1, size - 1);
	else
		pack_case(data + 1, size - 1);
	return 0;
}
