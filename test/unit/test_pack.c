/*
 * test_pack.c - unit tests of the chunk store's packs (sl_pack) and of the
 * cold form of loader files (sl_sfcold): round trips in both pack codecs,
 * every truncation and flipped byte refused, a cold form that gives the
 * file back byte for byte and refuses another prefix, and the prefixes of
 * both versions of the cold form, through a resolver or out of a pack.
 */
#include "harness.h"
#include "nbt_build.h"
#include "sl_pack.h"
#include "sl_sfcold.h"
#include "sl_slimefile.h"
#include "sl_store.h"

#include <xxhash.h>

/* Entry i of a batch: three lengths, then documents (half repeats, half noise). */
static void
make_entry(sl_buf *out, int i)
{
	uint32_t	len[3] = {200 + 37 * (uint32_t) i, (uint32_t) (i % 3) * 40, i % 2 ? 0 : 16};
	uint8_t		head[12];
	sl_err		err;

	for (int k = 0; k < 3; k++)
		sl_put_u32le(head + 4 * k, len[k]);
	sl_buf_put(out, head, sizeof(head), &err);
	for (uint32_t n = 0; n < len[0] + len[1] + len[2]; n++)
	{
		uint8_t		c = (uint8_t) (n % 7 == 0 ? (n * 2654435761u + (uint32_t) i) >> 13 : n % 5);

		sl_buf_put_u8(out, c, &err);
	}
}

/* The key an entry's canonical bytes are stored under (sl_chunk_hash). */
static void
entry_key(const uint8_t *canon, uint8_t key[32])
{
	sl_dirent	d;
	const uint8_t *comp[SL_NCOMP];
	size_t		at = SL_ENTRY_HEADER;

	memset(&d, 0, sizeof(d));
	for (int k = 0; k < SL_NCOMP; k++)
	{
		d.len[k] = sl_get_u32le(canon + 4 * k);
		comp[k] = d.len[k] ? canon + at : NULL;
		at += d.len[k];
	}
	sl_chunk_hash(&d, comp, key);
}

/* A pack of n entries in codec; the entries in all, their offsets in off, their keys in key. */
static void
make_pack_keyed(int n, sl_pack_codec codec, sl_buf *all, size_t *off, uint8_t (*key)[32],
				sl_buf *pack)
{
	const uint8_t *e[16];
	const uint8_t *k[16];
	size_t		size[16];
	sl_err		err;

	for (int i = 0; i < n; i++)
	{
		off[i] = all->len;
		make_entry(all, i);
	}
	off[n] = all->len;
	for (int i = 0; i < n; i++)
	{
		e[i] = all->data + off[i];
		size[i] = off[i + 1] - off[i];
		entry_key(e[i], key[i]);
		k[i] = key[i];
	}
	CHECK_OK(sl_pack_encode(e, size, k, (uint32_t) n, codec, pack, &err), &err);
}

/* A pack of n entries in codec; the entries in all, their offsets in off. */
static void
make_pack(int n, sl_pack_codec codec, sl_buf *all, size_t *off, sl_buf *pack)
{
	uint8_t		key[16][32];

	make_pack_keyed(n, codec, all, off, key, pack);
}

/*
 * The version 2 or 1 form of version 3 pack v3 whose entries are all whole
 * (0.10.0 wrote version 2, 0.7.0 to 0.9.0 version 1): the same header and
 * frame, each directory row without its base and delta fields (version 1:
 * and without its key prefix and the directory checksum).
 */
static void
pack_as(const sl_buf *v3, int version, sl_buf *out)
{
	uint32_t	n = sl_get_u32le(v3->data + 2);
	size_t		row = SL_ENTRY_HEADER + SL_PACK_KEY_PREFIX + SL_PACK_DELTA_FIELDS;
	size_t		keep = version == 1 ? SL_ENTRY_HEADER : SL_ENTRY_HEADER + SL_PACK_KEY_PREFIX;
	size_t		frame = SL_PACK_HEADER + row * n + SL_PACK_DIRSUM;
	uint8_t		sum[SL_PACK_DIRSUM];
	sl_err		err;

	CHECK(v3->data[1] == 3);
	out->len = 0;
	sl_buf_put(out, v3->data, SL_PACK_HEADER, &err);
	out->data[1] = (uint8_t) version;
	for (uint32_t i = 0; i < n; i++)
	{
		CHECK(sl_get_u32le(v3->data + SL_PACK_HEADER + row * i + SL_ENTRY_HEADER + SL_PACK_KEY_PREFIX) == 0);
		sl_buf_put(out, v3->data + SL_PACK_HEADER + row * i, keep, &err);
	}
	if (version == 2)
	{
		sl_put_u64le(sum, XXH64(out->data, out->len, 0));
		sl_buf_put(out, sum, sizeof(sum), &err);
	}
	sl_buf_put(out, v3->data + frame, v3->len - frame, &err);
}

/*
 * What a reader of pack bytes (damaged or not) gets for each entry i asked
 * as the entry of each key j: counted as refused, the original entry j
 * (*same), or other bytes (*wrong: never allowed). The pack is opened once.
 */
static void
reads_of(const uint8_t *pack, size_t len, const sl_buf *all, const size_t *off,
		 uint8_t (*key)[32], uint32_t n, int own_only, int *refused, int *same, int *wrong)
{
	sl_pack		p;
	sl_buf		out = {0};
	sl_err		err;

	if (sl_pack_open(pack, len, NULL, &p, &err) != 0)
	{
		*refused += own_only ? (int) n : (int) (n * n);
		return;
	}
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < n; j++)
		{
			if (own_only && i != j)
				continue;
			out.len = 0;
			if (sl_pack_read(&p, i, key[j], 0, 0, &out, &err) < 0)
				(*refused)++;
			else if (out.len == 1 + off[j + 1] - off[j] && memcmp(out.data + 1, all->data + off[j], out.len - 1) == 0)
				(*same)++;
			else
				(*wrong)++;
		}
	sl_pack_free(&p);
	sl_buf_free(&out);
}

void		test_pack_roundtrip(void);
void
test_pack_roundtrip(void)
{
	for (int codec = SL_PACK_FAST; codec <= SL_PACK_DENSE; codec++)
	{
		sl_buf		all = {0},
					pack = {0},
					back = {0};
		size_t		off[17];
		sl_pack		p;
		sl_err		err;

		make_pack(16, (sl_pack_codec) codec, &all, off, &pack);
		CHECK(pack.len < all.len);
		CHECK_OK(sl_pack_open(pack.data, pack.len, NULL, &p, &err), &err);
		CHECK(p.count == 16);
		for (int i = 0; i < 16; i++)
		{
			back.len = 0;
			CHECK_OK(sl_pack_entry(&p, (uint32_t) i, &back, &err), &err);
			CHECK(back.len == off[i + 1] - off[i] && memcmp(back.data, all.data + off[i], back.len) == 0);
		}
		CHECK(sl_pack_entry(&p, 16, &back, &err) != 0);
		sl_pack_free(&p);
		/* an entry whose lengths do not add up is refused */
		{
			const uint8_t *e[1] = {all.data};
			const uint8_t *k[1] = {all.data};
			size_t		size[1] = {off[1] - 1};

			CHECK(sl_pack_encode(e, size, k, 1, (sl_pack_codec) codec, &back, &err) != 0);
		}
		sl_buf_free(&all);
		sl_buf_free(&pack);
		sl_buf_free(&back);
	}
}

void		test_pack_corrupt(void);
void
test_pack_corrupt(void)
{
	for (int codec = SL_PACK_FAST; codec <= SL_PACK_DENSE; codec++)
	{
		sl_buf		all = {0},
					pack = {0};
		size_t		off[5];
		sl_pack		p;
		sl_err		err;
		int			opened = 0;

		make_pack(4, (sl_pack_codec) codec, &all, off, &pack);
		for (size_t n = 0; n < pack.len; n++)
			if (sl_pack_open(pack.data, n, NULL, &p, &err) == 0)
			{
				opened++;
				sl_pack_free(&p);
			}
		CHECK(opened == 0);
		for (size_t i = 0; i < pack.len; i++)
		{
			pack.data[i] ^= 0x41;
			if (sl_pack_open(pack.data, pack.len, NULL, &p, &err) == 0)
			{
				opened++;
				sl_pack_free(&p);
			}
			pack.data[i] ^= 0x41;
		}
		CHECK(opened == 0);
		sl_buf_free(&all);
		sl_buf_free(&pack);
	}
}

/*
 * Issue #33: a directory damaged in pairs that cancel (one entry's length
 * up, a later one's down by as much, so the frame still decodes to their
 * sum) is refused: every field of every pair of entries, in both codecs.
 * The same damage to a version 1 pack opens, but its entries are hashed
 * against their keys, so a reader gets each entry right or an error.
 */
void		test_pack_cancelling_damage(void);
void
test_pack_cancelling_damage(void)
{
	for (int codec = SL_PACK_FAST; codec <= SL_PACK_DENSE; codec++)
	{
		enum
		{
			N = 6
		};
		sl_buf		all = {0},
					packs[3] = {{0}};
		sl_buf	   *pack = &packs[2];
		size_t		off[N + 1];
		uint8_t		key[N][32];
		int			refused[3] = {0, 0, 0},
					same[3] = {0, 0, 0},
					wrong = 0;
		size_t		row3 = SL_ENTRY_HEADER + SL_PACK_KEY_PREFIX + SL_PACK_DELTA_FIELDS;

		make_pack_keyed(N, (sl_pack_codec) codec, &all, off, key, pack);
		pack_as(pack, 1, &packs[0]);
		pack_as(pack, 2, &packs[1]);
		/* undamaged: each entry read as its own key, refused as another's */
		for (int version = 1; version <= 3; version++)
		{
			int			r = 0,
						k = 0,
						w = 0;

			reads_of(packs[version - 1].data, packs[version - 1].len, &all, off, key, N, 0, &r, &k, &w);
			CHECK(k == N && r == N * N - N && w == 0);
		}
		for (int version = 1; version <= 3; version++)
		{
			sl_buf	   *b = &packs[version - 1];
			size_t		row = version == 1 ? SL_ENTRY_HEADER :
				version == 2 ? SL_ENTRY_HEADER + SL_PACK_KEY_PREFIX : row3;

			for (uint32_t a = 0; a < N; a++)
				for (uint32_t z = a + 1; z < N; z++)
					for (int c = 0; c < SL_NCOMP; c++)
					{
						uint8_t    *la = b->data + SL_PACK_HEADER + row * a + 4 * c;
						uint8_t    *lz = b->data + SL_PACK_HEADER + row * z + 4 * c;
						uint32_t	va = sl_get_u32le(la),
									vz = sl_get_u32le(lz);
						uint32_t	d = vz >= 32 ? 32 : vz;

						if (d == 0)
							continue;
						sl_put_u32le(la, va + d);
						sl_put_u32le(lz, vz - d);
						reads_of(b->data, b->len, &all, off, key, N, 1,
								 &refused[version - 1], &same[version - 1], &wrong);
						sl_put_u32le(la, va);
						sl_put_u32le(lz, vz);
					}
		}
		CHECK(wrong == 0);
		CHECK(same[1] == 0 && refused[1] > 0);	/* versions 2 and 3: every read refused */
		CHECK(same[2] == 0 && refused[2] > 0);
		CHECK(refused[0] > 0);	/* version 1: the entries that moved are refused */
		/* a key prefix, a base or delta field changed alone, or the checksum: the directory is refused */
		for (size_t at = SL_PACK_HEADER; at < SL_PACK_HEADER + row3 * N + SL_PACK_DIRSUM;
			 at += sl_test_cut_step(at - SL_PACK_HEADER) > 1 ? 7 : 1)
		{
			int			r = 0,
						k = 0,
						w = 0;

			pack->data[at] ^= 0x10;
			reads_of(pack->data, pack->len, &all, off, key, N, 1, &r, &k, &w);
			CHECK(r == N && k == 0 && w == 0);
			pack->data[at] ^= 0x10;
		}
		sl_buf_free(&all);
		for (int v = 0; v < 3; v++)
			sl_buf_free(&packs[v]);
	}
}

/*
 * An entry whose region document names chunk (x,z): 3000 bytes drawn from
 * seed, of which version v has changed a few (as an edit changes a chunk).
 */
static void
make_chunk_entry(sl_buf *out, int x, int z, uint32_t seed, int v)
{
	uint8_t		data[3000];
	uint32_t	st = seed * 2654435761u + 1;

	for (size_t i = 0; i < sizeof(data); i++)
	{
		st = st * 1103515245u + 12345u;
		data[i] = (uint8_t) ((st >> 16) & 0x1f);
	}
	for (int k = 0; k < v; k++)
		data[(k * 389 + 17) % sizeof(data)] ^= 0x5a;
	nb_chunk_entry(out, x, z, data, sizeof(data));
}

enum
{
	DELTA_POS = 4,
	DELTA_VERSIONS = 3,
	DELTA_N = DELTA_POS * DELTA_VERSIONS + 1
};

/*
 * A pack of three versions of four chunks, version by version, then an
 * entry naming no position, each later version coded against the one
 * before it (sl_pack_encode_based); with apart, every entry at a position
 * of its own and coded whole.
 */
static void
make_delta_pack(sl_pack_codec codec, int apart, sl_buf *all, size_t *off, uint8_t (*key)[32],
				sl_buf *pack)
{
	const uint8_t *e[DELTA_N];
	const uint8_t *k[DELTA_N];
	size_t		size[DELTA_N];
	int64_t		base[DELTA_N];
	int			n = 0;
	sl_err		err;

	for (int v = 0; v < DELTA_VERSIONS; v++)
		for (int c = 0; c < DELTA_POS; c++, n++)
		{
			off[n] = all->len;
			make_chunk_entry(all, apart ? n : c, apart ? 0 : c % 2, (uint32_t) c, v);
		}
	off[n] = all->len;
	make_entry(all, 3);
	off[++n] = all->len;
	for (int i = 0; i < n; i++)
	{
		e[i] = all->data + off[i];
		size[i] = off[i + 1] - off[i];
		entry_key(e[i], key[i]);
		k[i] = key[i];
		/* each later version against the one before it; apart (and the last entry): whole */
		base[i] = !apart && i >= DELTA_POS && i < DELTA_N - 1 ? i - DELTA_POS : -1;
	}
	CHECK_OK(sl_pack_encode_based(e, size, k, (uint32_t) n, codec, base, pack, &err), &err);
	/* the encoder's own choice: never larger than every entry whole, and every entry given back */
	{
		sl_buf		hist = {0},
					whole = {0};
		int			r = 0,
					same = 0,
					w = 0;

		CHECK_OK(sl_pack_encode_history(e, size, k, (uint32_t) n, codec, &hist, &err), &err);
		CHECK_OK(sl_pack_encode(e, size, k, (uint32_t) n, codec, &whole, &err), &err);
		CHECK(hist.len <= whole.len);
		reads_of(hist.data, hist.len, all, off, key, (uint32_t) n, 1, &r, &same, &w);
		CHECK(same == n && r == 0 && w == 0);
		sl_buf_free(&hist);
		sl_buf_free(&whole);
	}
}

/* Rewrite the directory checksum of version 3 pack b (as a forger would). */
static void
resum(sl_buf *b)
{
	size_t		end = SL_PACK_HEADER + (size_t) sl_get_u32le(b->data + 2) *
		(SL_ENTRY_HEADER + SL_PACK_KEY_PREFIX + SL_PACK_DELTA_FIELDS);

	sl_put_u64le(b->data + end, XXH64(b->data, end, 0));
}

/*
 * Version 3 packs: versions of one chunk coded against each other give
 * every entry back, each in a small delta frame; every truncation and
 * flipped byte is refused or reads right, never another entry's bytes; a
 * directory forged with a valid checksum (a base that is not earlier, or
 * another entry's) is refused.
 */
void		test_pack_delta(void);
void
test_pack_delta(void)
{
	for (int codec = SL_PACK_FAST; codec <= SL_PACK_DENSE; codec++)
	{
		sl_buf		all = {0},
					pack = {0},
					apart = {0},
					other = {0};
		size_t		off[DELTA_N + 1];
		uint8_t		key[DELTA_N][32];
		size_t		row = SL_ENTRY_HEADER + SL_PACK_KEY_PREFIX + SL_PACK_DELTA_FIELDS;
		sl_pack		p;
		sl_err		err;
		int			r = 0,
					k = 0,
					w = 0;

		make_delta_pack((sl_pack_codec) codec, 1, &other, off, key, &apart);
		make_delta_pack((sl_pack_codec) codec, 0, &all, off, key, &pack);
		CHECK_OK(sl_pack_open(pack.data, pack.len, NULL, &p, &err), &err);
		CHECK(p.version == 3 && p.count == DELTA_N);
		/* every later version of a chunk is coded against an earlier one; the rest whole */
		CHECK(p.based == DELTA_POS * (DELTA_VERSIONS - 1));
		for (uint32_t i = 0; i < DELTA_N; i++)
		{
			CHECK((p.base[i] != 0) == (i >= DELTA_POS && i < DELTA_N - 1));
			/* a delta frame of a few changed bytes is a fraction of its 3 KB */
			CHECK(p.delta[i] < 200);
		}
		sl_pack_free(&p);
		CHECK_OK(sl_pack_open(apart.data, apart.len, NULL, &p, &err), &err);
		CHECK(p.based == 0);
		sl_pack_free(&p);
		reads_of(pack.data, pack.len, &all, off, key, DELTA_N, 0, &r, &k, &w);
		CHECK(k == DELTA_N && r == DELTA_N * DELTA_N - DELTA_N && w == 0);
		/* truncated anywhere: refused */
		for (size_t n = 0; n < pack.len; n++)
			if (sl_pack_open(pack.data, n, NULL, &p, &err) == 0)
			{
				CHECK(!"a truncated pack opened");
				sl_pack_free(&p);
			}
		/* any byte flipped: every read refused or right */
		r = k = w = 0;
		for (size_t at = 0; at < pack.len; at++)
		{
			pack.data[at] ^= 0x41;
			reads_of(pack.data, pack.len, &all, off, key, DELTA_N, 1, &r, &k, &w);
			pack.data[at] ^= 0x41;
		}
		CHECK(w == 0 && r > 0);
		/* forged with a valid checksum: entry 0 on a later base, entry 5 on another chunk's version */
		{
			uint8_t    *b0 = pack.data + SL_PACK_HEADER + SL_ENTRY_HEADER + SL_PACK_KEY_PREFIX;
			uint8_t    *b5 = b0 + row * 5;
			uint32_t	was = sl_get_u32le(b5);

			sl_put_u32le(b0, 2);
			resum(&pack);
			CHECK(sl_pack_open(pack.data, pack.len, NULL, &p, &err) != 0 && err.code == SL_ERR_CORRUPT);
			sl_put_u32le(b0, 0);
			CHECK(was == 2);	/* entry 5 (chunk 1, version 1) is coded against entry 1 */
			sl_put_u32le(b5, 1);
			resum(&pack);
			/* the pack opens (its delta frames are decoded when read); entry 5 and entry 9 (coded against it) are refused, the rest read */
			r = k = w = 0;
			reads_of(pack.data, pack.len, &all, off, key, DELTA_N, 1, &r, &k, &w);
			CHECK(r == 2 && k == DELTA_N - 2 && w == 0);
			CHECK_OK(sl_pack_open(pack.data, pack.len, NULL, &p, &err), &err);
			CHECK(sl_pack_docs(&p, 5, &err) == NULL && err.code == SL_ERR_CORRUPT);
			CHECK(sl_pack_docs(&p, 9, &err) == NULL && err.code == SL_ERR_CORRUPT);	/* entry 9 is coded against 5 */
			CHECK(sl_pack_docs(&p, 1, &err) != NULL);
			sl_pack_free(&p);
			sl_put_u32le(b5, was);
			resum(&pack);
			CHECK_OK(sl_pack_open(pack.data, pack.len, NULL, &p, &err), &err);
			sl_pack_free(&p);
		}
		sl_buf_free(&all);
		sl_buf_free(&other);
		sl_buf_free(&pack);
		sl_buf_free(&apart);
	}
}

/* A version-13 file whose chunk block repeats prefix with a few changes. */
static void
make_file(const sl_buf *prefix, sl_buf *file)
{
	sl_buf		raw = {0};
	const uint8_t head[8] = {0xB1, 0x0B, 13, 0, 0, 0x0E, 0x80, 0};
	sl_err		err;

	sl_buf_put(file, head, sizeof(head), &err);
	sl_buf_put(&raw, "\0\0\0\x10", 4, &err);
	sl_buf_put(&raw, prefix->data + 100, prefix->len - 300, &err);
	sl_buf_put(&raw, "slime", 5, &err);
	CHECK_OK(sl_sf_put_zblock(file, raw.data, raw.len, SL_DEFAULT_LEVEL, &err), &err);
	CHECK_OK(sl_sf_put_zblock(file, (const uint8_t *) "", 0, SL_DEFAULT_LEVEL, &err), &err);
	sl_buf_free(&raw);
}

void		test_sfcold_roundtrip(void);
void
test_sfcold_roundtrip(void)
{
	sl_buf		prefix = {0},
				other = {0},
				file = {0},
				cold = {0},
				back = {0};
	size_t		off[17];
	sl_err		err;
	int			bad = 0;

	make_pack(16, SL_PACK_FAST, &prefix, off, &cold);
	cold.len = 0;
	make_file(&prefix, &file);
	CHECK_OK(sl_sfcold_encode(file.data, file.len, 1, prefix.data, prefix.len, NULL, &cold, &err), &err);
	CHECK(sl_sfcold_is(cold.data, cold.len));
	CHECK(cold.len < file.len / 4);
	CHECK_OK(sl_sfcold_decode(cold.data, cold.len, prefix.data, prefix.len, SL_DEFAULT_LEVEL, NULL, &back, &err), &err);
	CHECK(back.len == file.len && memcmp(back.data, file.data, file.len) == 0);
	/* another prefix fails the frame's checksum */
	sl_buf_put(&other, prefix.data, prefix.len, &err);
	other.data[500] ^= 1;
	back.len = 0;
	CHECK(sl_sfcold_decode(cold.data, cold.len, other.data, other.len, SL_DEFAULT_LEVEL, NULL, &back, &err) != 0);
	CHECK(back.len == 0);
	/* every truncation is refused */
	for (size_t n = 0; n < cold.len; n++)
		bad += sl_sfcold_decode(cold.data, n, prefix.data, prefix.len, SL_DEFAULT_LEVEL, NULL, &back, &err) != 0;
	CHECK(bad == (int) cold.len);
	/* a file of another version, or with bytes after its blocks, is not held */
	file.data[2] = 12;
	CHECK(sl_sfcold_encode(file.data, file.len, 1, prefix.data, prefix.len, NULL, &cold, &err) != 0 &&
		  err.code == SL_ERR_UNSUPPORTED);
	file.data[2] = 13;
	sl_buf_put_u8(&file, 0, &err);
	CHECK(sl_sfcold_encode(file.data, file.len, 1, prefix.data, prefix.len, NULL, &cold, &err) != 0 &&
		  err.code == SL_ERR_UNSUPPORTED);
	sl_buf_free(&prefix);
	sl_buf_free(&other);
	sl_buf_free(&file);
	sl_buf_free(&cold);
	sl_buf_free(&back);
}

/* ---- the prefixes of cold forms ---- */

#define TC_N 7					/* chunks of the test world; chunk 4 repeats chunk 1 */

/* A reference-form world: its value and each chunk's raw-form store entry and key. */
typedef struct tc_world
{
	sl_buf		entry[TC_N];
	uint8_t		key[TC_N][32];
	sl_buf		value;
} tc_world;

/* The lengths and documents of a chunk's canonical bytes. */
static void
tc_docs_of(const uint8_t *canon, sl_dirent *d, const uint8_t *comp[SL_NCOMP])
{
	size_t		at = 12;

	memset(d, 0, sizeof(*d));
	for (int k = 0; k < SL_NCOMP; k++)
	{
		d->len[k] = sl_get_u32le(canon + 4 * k);
		comp[k] = d->len[k] ? canon + at : NULL;
		at += d->len[k];
	}
}

/* Make the world: chunk i holds make_entry's entry i (chunk 4: entry 1 again). */
static void
tc_make(tc_world *w)
{
	sl_chunk_src src[TC_N];
	sl_err		err;

	memset(w, 0, sizeof(*w));
	memset(src, 0, sizeof(src));
	for (int i = 0; i < TC_N; i++)
	{
		sl_dirent	d;
		const uint8_t *comp[SL_NCOMP];

		sl_buf_put_u8(&w->entry[i], SL_ENTRY_RAW, &err);
		make_entry(&w->entry[i], i == 4 ? 1 : i);
		tc_docs_of(w->entry[i].data + 1, &d, comp);
		sl_chunk_hash(&d, comp, w->key[i]);
		src[i].x = i;
		src[i].z = -i;
		src[i].data_version = 3953;
		src[i].timestamp = (uint32_t) i;
		memcpy(src[i].len, d.len, sizeof(d.len));
		src[i].ref = w->key[i];
	}
	CHECK_OK(sl_value_encode(src, TC_N, NULL, 0, NULL, NULL, &w->value, &err), &err);
}

/* sl_resolve_fn over the world's entries. */
static int
tc_resolve(void *ctx, const sl_dirent *d, const uint8_t **entry, size_t *len, int *checked,
		   sl_err *err)
{
	tc_world   *w = ctx;

	for (int i = 0; i < TC_N; i++)
		if (memcmp(w->key[i], d->hash, 32) == 0)
		{
			*entry = w->entry[i].data;
			*len = w->entry[i].len;
			return 0;
		}
	return sl_fail(err, SL_ERR_NOTFOUND, "no entry");
}

/* A pack's entries from entry first on, by rank, their lengths checked (sl_sfcold_docs_fn). */
typedef struct tc_pack
{
	sl_pack		p;
	uint32_t	first;
} tc_pack;

static int
tc_pack_docs(void *ctx, uint32_t rank, const sl_dirent *d, const uint8_t *comp[SL_NCOMP], sl_err *err)
{
	tc_pack    *t = ctx;
	uint32_t	i = t->first + rank;
	size_t		at;

	if (i >= t->p.count)
		return sl_fail(err, SL_ERR_NOTFOUND, "no entry %u", i);
	at = t->p.off[i];
	for (int k = 0; k < SL_NCOMP; k++)
	{
		if (t->p.len[SL_NCOMP * i + k] != d->len[k])
			return sl_fail(err, SL_ERR_NOTFOUND, "entry %u is not the chunk's size", i);
		comp[k] = d->len[k] ? t->p.raw + at : NULL;
		at += d->len[k];
	}
	return 0;
}

/* Append the documents of the world's entry keyed hash (without its lengths). */
static void
tc_put_docs(const tc_world *w, const uint8_t *hash, sl_buf *out)
{
	sl_err		err;

	for (int i = 0; i < TC_N; i++)
		if (memcmp(w->key[i], hash, 32) == 0)
		{
			sl_buf_put(out, w->entry[i].data + 13, w->entry[i].len - 13, &err);
			return;
		}
	CHECK(0);
}

/* The entry of the world keyed hash. */
static const sl_buf *
tc_entry(const tc_world *w, const uint8_t *hash)
{
	for (int i = 0; i < TC_N; i++)
		if (memcmp(w->key[i], hash, 32) == 0)
			return &w->entry[i];
	return &w->entry[0];
}

/*
 * The references in hash order (the repeat once, at its first chunk);
 * version 1's prefix in directory order and version 2's in hash order,
 * through the resolver and out of a pack the world was gathered into, which
 * version 2 reads in place; another place in the pack is refused.
 */
void		test_sfcold_prefixes(void);
void
test_sfcold_prefixes(void)
{
	tc_world	w;
	sl_value	v;
	sl_sfcold_ref *refs;
	uint32_t	n;
	sl_buf		dir = {0},
				want = {0},
				got = {0},
				pack = {0},
				file = {0},
				cold = {0},
				back = {0};
	const uint8_t *e[TC_N + 1];
	size_t		size[TC_N + 1];
	const uint8_t *pre;
	size_t		plen;
	tc_pack		t;
	sl_err		err;

	tc_make(&w);
	CHECK_OK(sl_value_open_mem(&v, w.value.data, w.value.len, NULL, &err), &err);
	v.resolve = tc_resolve;
	v.resolve_ctx = &w;
	CHECK_OK(sl_sfcold_refs(&v, &refs, &n, &err), &err);
	CHECK(n == TC_N - 1);
	for (uint32_t k = 1; k < n; k++)
		CHECK(memcmp(refs[k - 1].hash, refs[k].hash, 32) < 0);
	/* each at the first chunk holding it; version 1: directory order, the repeat twice */
	for (uint32_t i = 0; i < TC_N; i++)
	{
		sl_dirent	d;

		CHECK_OK(sl_value_dirent(&v, i, &d, &err), &err);
		for (uint32_t k = 0; k < n; k++)
			if (memcmp(refs[k].hash, d.hash, 32) == 0)
				CHECK(refs[k].chunk <= i);
		tc_put_docs(&w, d.hash, &want);
	}
	CHECK_OK(sl_sfcold_prefix(&v, &dir, &err), &err);
	CHECK(dir.len == want.len && memcmp(dir.data, want.data, want.len) == 0);
	/* the world gathered after another entry, in hash order */
	e[0] = w.entry[0].data + 1;
	size[0] = w.entry[0].len - 1;
	for (uint32_t k = 0; k < n; k++)
	{
		e[k + 1] = tc_entry(&w, refs[k].hash)->data + 1;
		size[k + 1] = tc_entry(&w, refs[k].hash)->len - 1;
	}
	{
		const uint8_t *k[TC_N + 1];

		k[0] = w.key[0];
		for (uint32_t j = 0; j < n; j++)
			k[j + 1] = refs[j].hash;
		CHECK_OK(sl_pack_encode(e, size, k, n + 1, SL_PACK_FAST, &pack, &err), &err);
	}
	CHECK_OK(sl_pack_open(pack.data, pack.len, NULL, &t.p, &err), &err);
	t.first = 1;
	CHECK_OK(sl_sfcold_prefix_ranked(&v, refs, n, tc_pack_docs, &t, &got, &err), &err);
	CHECK(got.len == want.len && memcmp(got.data, want.data, want.len) == 0);
	/* version 2: hash order, each once; in place in the pack */
	want.len = 0;
	for (uint32_t k = 0; k < n; k++)
		tc_put_docs(&w, refs[k].hash, &want);
	CHECK_OK(sl_sfcold_prefix_hashed(&v, refs, n, NULL, NULL, 0, &got, &pre, &plen, &err), &err);
	CHECK(pre == got.data && plen == want.len && memcmp(pre, want.data, plen) == 0);
	CHECK_OK(sl_sfcold_prefix_hashed(&v, refs, n, tc_pack_docs, &t, 1, &got, &pre, &plen, &err), &err);
	CHECK(pre > t.p.raw && pre < t.p.raw + t.p.raw_len);
	CHECK(plen == want.len && memcmp(pre, want.data, plen) == 0);
	CHECK_OK(sl_sfcold_prefix_hashed(&v, refs, n, tc_pack_docs, &t, 0, &got, &pre, &plen, &err), &err);
	CHECK(pre == got.data && plen == want.len && memcmp(pre, want.data, plen) == 0);
	/* cold forms of versions 2 and 3 decode against that prefix only */
	make_file(&want, &file);
	for (int version = 2; version <= 3; version++)
	{
		cold.len = 0;
		back.len = 0;
		CHECK_OK(sl_sfcold_encode(file.data, file.len, version, want.data, want.len, NULL, &cold, &err), &err);
		CHECK(sl_sfcold_version(cold.data, cold.len) == version);
		CHECK(sl_sfcold_vouched(cold.data, cold.len) == (version == 3));
		CHECK_OK(sl_sfcold_decode(cold.data, cold.len, pre, plen, SL_DEFAULT_LEVEL, NULL, &back, &err), &err);
		CHECK(back.len == file.len && memcmp(back.data, file.data, file.len) == 0);
		back.len = 0;
		CHECK(sl_sfcold_decode(cold.data, cold.len, dir.data, dir.len, SL_DEFAULT_LEVEL, NULL, &back, &err) != 0);
	}
	CHECK(sl_sfcold_encode(file.data, file.len, 4, want.data, want.len, NULL, &cold, &err) != 0 &&
		  err.code == SL_ERR_INVALID);
	/* the world is not where the caller looked: refused, not a wrong prefix */
	t.first = 0;
	CHECK(sl_sfcold_prefix_ranked(&v, refs, n, tc_pack_docs, &t, &got, &err) != 0 && err.code == SL_ERR_NOTFOUND);
	CHECK(sl_sfcold_prefix_hashed(&v, refs, n, tc_pack_docs, &t, 1, &got, &pre, &plen, &err) != 0 &&
		  err.code == SL_ERR_NOTFOUND);
	sl_pack_free(&t.p);
	sl_free(refs);
	sl_value_close(&v);
	for (int i = 0; i < TC_N; i++)
		sl_buf_free(&w.entry[i]);
	sl_buf_free(&w.value);
	sl_buf_free(&dir);
	sl_buf_free(&want);
	sl_buf_free(&got);
	sl_buf_free(&pack);
	sl_buf_free(&file);
	sl_buf_free(&cold);
	sl_buf_free(&back);
}
