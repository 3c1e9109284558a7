/*
 * sl_bcodec.c - the block codec's container (see sl_bcodec.h): split the
 * input into structure and modelled arrays, zstd the structure, range-code
 * the arrays; and the checked way back.
 */
#include <string.h>
#include <xxhash.h>

#include "sl_bcodec.h"
#include "sl_bmodel.h"
#include "sl_bsplit.h"
#include "sl_btok.h"
#include "sl_vdir.h"
#include "sl_zstd.h"

#define BCODEC_MAGIC(v) (0xB0 + (v))	/* 0xB1 .. 0xB5: the stream's version */
/* the structure's zstd level */
#define BCODEC_LEVEL(v) ((v) == 1 ? 19 : (v) == 2 ? SL_BCODEC2_LEVEL : (v) == 5 ? SL_BCODEC5_LEVEL : SL_BCODEC3_LEVEL)
#define BODY_OFF		13		/* magic, XXH64 of the raw bytes, XXH32 of the rest */
#define HEADER_MIN		BODY_OFF

/* Read a varint (sl_varint64_get) named what at src[*pos..len). */
static int
get_varint(const uint8_t *src, size_t len, size_t *pos, uint64_t *v, const char *what, sl_err *err)
{
	size_t		at = *pos;

	if (sl_varint64_get(src, len, pos, v))
		return sl_fail(err, SL_ERR_CORRUPT, "bcodec: %s at offset %zu is not a valid varint", what, at);
	return 0;
}

/* Walk the leading documents of raw; *ndocs of them walk, the rest is tail. */
static int
split_raw(const uint8_t *raw, size_t raw_len, sl_bscan *s, uint32_t *ndocs, sl_err *err)
{
	size_t		pos = 0;

	*ndocs = 0;
	while (pos < raw_len && *ndocs < UINT32_MAX)
	{
		sl_bscan	before = *s;
		size_t		p = pos;
		sl_err		ignored = {SL_OK, ""};

		sl_interrupt();
		if (sl_bscan_doc(raw, raw_len, &p, 0, *ndocs, SL_BCODEC_MAX_DEPTH, s, &ignored))
		{
			if (ignored.code == SL_ERR_NOMEM)
				return sl_fail(err, SL_ERR_NOMEM, "%s", ignored.msg);
			s->n = before.n;
			s->npal = before.npal;
			s->ncomp = before.ncomp;
			s->payload_sum = before.payload_sum;
			break;
		}
		pos = p;
		(*ndocs)++;
	}
	return 0;
}

/* The structure stream: raw without the payloads of s's arrays. */
static int
cut_payloads(const uint8_t *raw, size_t raw_len, const sl_bscan *s, sl_buf *st, sl_err *err)
{
	size_t		pos = 0;

	for (size_t i = 0; i < s->n; i++)
	{
		if (sl_buf_put(st, raw + pos, s->a[i].at - pos, err))
			return -1;
		pos = s->a[i].at + (size_t) s->a[i].count * s->a[i].esize;
	}
	return sl_buf_put(st, raw + pos, raw_len - pos, err);
}

/* Whether two scans found the same arrays (kinds and lengths). */
static int
same_arrays(const sl_bscan *a, const sl_bscan *b)
{
	if (a->n != b->n)
		return 0;
	for (size_t i = 0; i < a->n; i++)
		if (a->a[i].kind != b->a[i].kind || a->a[i].count != b->a[i].count ||
			a->a[i].esize != b->a[i].esize || a->a[i].sub != b->a[i].sub)
			return 0;
	return 1;
}

/* Scan ndocs elided documents of the structure; *end: where the tail starts. */
static int
scan_structure(const uint8_t *st, size_t len, uint64_t ndocs, int max_depth, sl_bscan *s,
			   size_t *end, sl_err *err)
{
	size_t		pos = 0;

	for (uint64_t d = 0; d < ndocs; d++)
	{
		sl_interrupt();
		if (sl_bscan_doc(st, len, &pos, 1, (uint32_t) d, max_depth, s, err))
			return -1;
	}
	*end = pos;
	return 0;
}

/* Range-code the arrays (models or tokens): payloads read from raw at the raw scan's offsets. */
static int
code_arrays_enc(const uint8_t *raw, size_t raw_len, const sl_bscan *rs, const sl_bscan *ss,
				int version, sl_buf *out, sl_err *err)
{
	uint8_t   **ptrs = sl_alloc_err((rs->n + 1) * sizeof(uint8_t *), err);
	sl_rc		rc;
	int			r;

	if (ptrs == NULL)
		return -1;
	for (size_t i = 0; i < rs->n; i++)
		ptrs[i] = (uint8_t *) raw + rs->a[i].at;	/* read only when encoding */
	sl_rc_enc_init(&rc, out, err);
	r = version >= SL_BCODEC_V3 ? sl_btok_code(&rc, ss, ptrs, version, err)
		: sl_bmodel_code(&rc, ss, ptrs, raw_len, version, err);
	if (r == 0)
		r = sl_rc_enc_finish(&rc);
	sl_free(ptrs);
	return r;
}

/* Encode raw[0..raw_len) into out as a stream of version (1 to 5). */
int
sl_bcodec_encode(const uint8_t *raw, size_t raw_len, int version, sl_buf *out, sl_err *err)
{
	sl_bscan	rs = {0},
				ss = {0};
	sl_buf		st = {0},
				frame = {0};
	uint32_t	ndocs;
	size_t		end,
				start = out->len;
	int			r = -1;

	rs.heights = ss.heights = version >= SL_BCODEC_V5;
	if (split_raw(raw, raw_len, &rs, &ndocs, err) ||
		cut_payloads(raw, raw_len, &rs, &st, err))
		goto done;
	if (scan_structure(st.data, st.len, ndocs, SL_BCODEC_MAX_DEPTH, &ss, &end, err) ||
		!same_arrays(&rs, &ss))
	{
		/* cannot happen for what split_raw accepted; keep everything as structure */
		ndocs = 0;
		sl_bscan_free(&rs);
		sl_bscan_free(&ss);
		st.len = 0;
		if (sl_buf_put(&st, raw, raw_len, err))
			goto done;
	}
	if (version < SL_BCODEC_V1 || version > SL_BCODEC_V5)
	{
		sl_fail(err, SL_ERR_INVALID, "bcodec: no version %d", version);
		goto done;
	}
	if (sl_zstd_frame(st.data, st.len, BCODEC_LEVEL(version), &frame, err) ||
		sl_buf_put_u8(out, BCODEC_MAGIC(version), err) ||
		sl_buf_put_u64be(out, XXH64(raw, raw_len, 0), err) ||
		sl_buf_put_u32be(out, 0, err) ||
		sl_varint64_put(out, ndocs, err) || sl_varint64_put(out, st.len, err) ||
		sl_varint64_put(out, frame.len, err) || sl_buf_put(out, frame.data, frame.len, err) ||
		code_arrays_enc(raw, raw_len, &rs, &ss, version, out, err))
		goto done;
	sl_put_u32be(out->data + start + 9,
				 (uint32_t) XXH32(out->data + start + BODY_OFF, out->len - start - BODY_OFF, 0));
	r = 0;
done:
	if (r)
		out->len = start;
	sl_bscan_free(&rs);
	sl_bscan_free(&ss);
	sl_buf_free(&st);
	sl_buf_free(&frame);
	return r;
}

/* The header fields after the magic and checksum. */
typedef struct header
{
	int			version;
	uint64_t	xxh,
				ndocs,
				st_len,
				z_len;
	size_t		z_off;			/* offset of the zstd frame */
} header;

/* Parse and check the header against len and raw_len. */
static int
read_header(const uint8_t *src, size_t len, size_t raw_len, header *h, sl_err *err)
{
	size_t		pos = HEADER_MIN;

	if (len < HEADER_MIN)
		return sl_fail(err, SL_ERR_CORRUPT, "bcodec: %zu bytes, shorter than the %d-byte header", len, HEADER_MIN);
	h->version = sl_bcodec_version(src, len);
	if (h->version == 0)
		return sl_fail(err, SL_ERR_CORRUPT, "bcodec: magic byte 0x%02x at offset 0, expected 0x%02x to 0x%02x",
					   src[0], BCODEC_MAGIC(1), BCODEC_MAGIC(SL_BCODEC_V5));
	h->xxh = sl_get_u64be(src + 1);
	if (XXH32(src + BODY_OFF, len - BODY_OFF, 0) != sl_get_u32be(src + 9))
		return sl_fail(err, SL_ERR_CORRUPT, "bcodec: XXH32 at offset 9 does not match the %zu bytes after it",
					   len - BODY_OFF);
	if (get_varint(src, len, &pos, &h->ndocs, "document count", err) ||
		get_varint(src, len, &pos, &h->st_len, "structure length", err) ||
		get_varint(src, len, &pos, &h->z_len, "zstd frame length", err))
		return -1;
	if (h->st_len > raw_len)
		return sl_fail(err, SL_ERR_CORRUPT, "bcodec: structure length %llu past the raw length %zu",
					   (unsigned long long) h->st_len, raw_len);
	if (h->ndocs > h->st_len)
		return sl_fail(err, SL_ERR_CORRUPT, "bcodec: document count %llu past the structure length %llu",
					   (unsigned long long) h->ndocs, (unsigned long long) h->st_len);
	if (h->z_len > len - pos)
		return sl_fail(err, SL_ERR_CORRUPT, "bcodec: zstd frame length %llu at offset %zu past the end (%zu bytes)",
					   (unsigned long long) h->z_len, pos, len);
	h->z_off = pos;
	return 0;
}

/* The version of the stream src[0..len) (its magic byte), 0 when none. */
int
sl_bcodec_version(const uint8_t *src, size_t len)
{
	if (len >= 1 && src[0] >= BCODEC_MAGIC(1) && src[0] <= BCODEC_MAGIC(SL_BCODEC_V5))
		return src[0] - 0xB0;
	return 0;
}

/* Fail unless src is a stream of version (a frame's codec names the version it holds). */
int
sl_bcodec_expect(const uint8_t *src, size_t len, int version, sl_err *err)
{
	if (sl_bcodec_version(src, len) != version)
		return sl_fail(err, SL_ERR_CORRUPT, "bcodec: magic byte at offset 0 is not 0x%02x, the codec %d stream's",
					   BCODEC_MAGIC(version), version);
	return 0;
}

/* Check a stream's header and body checksum without decoding it. */
int
sl_bcodec_check(const uint8_t *src, size_t len, size_t raw_len, sl_err *err)
{
	header		h;

	return read_header(src, len, raw_len, &h, err);
}

/* Copy the structure into dst around the payloads; set each payload's place in dst. */
static void
place_payloads(const uint8_t *st, size_t st_len, const sl_bscan *s, uint8_t *dst, uint8_t **ptrs)
{
	size_t		spos = 0,
				dpos = 0;

	for (size_t i = 0; i < s->n; i++)
	{
		size_t		seg = s->a[i].at - spos;

		memcpy(dst + dpos, st + spos, seg);
		dpos += seg;
		spos = s->a[i].at;
		ptrs[i] = dst + dpos;
		dpos += (size_t) s->a[i].count * s->a[i].esize;
	}
	memcpy(dst + dpos, st + spos, st_len - spos);
}

/* Decode the arrays into their places; the coder must end exactly at len. */
static int
decode_arrays(const uint8_t *src, size_t len, const sl_bscan *s, uint8_t **ptrs,
			  size_t raw_len, int version, sl_err *err)
{
	sl_rc		rc;

	sl_rc_dec_init(&rc, src, len);
	if (version >= SL_BCODEC_V3 ? sl_btok_code(&rc, s, ptrs, version, err)
		: sl_bmodel_code(&rc, s, ptrs, raw_len, version, err))
		return -1;
	if (sl_rc_dec_pos(&rc) != len)
		return sl_fail(err, SL_ERR_CORRUPT, "bcodec: range coder stream of %zu bytes ends at byte %zu",
					   len, sl_rc_dec_pos(&rc));
	return 0;
}

/* Decode src[0..len) into dst[0..raw_len). */
int
sl_bcodec_decode(const uint8_t *src, size_t len, uint8_t *dst, size_t raw_len, sl_err *err)
{
	header		h;
	uint8_t    *st = NULL;
	uint8_t   **ptrs = NULL;
	sl_bscan	s = {0};
	size_t		end,
				rc_off;
	int			r = -1;

	if (read_header(src, len, raw_len, &h, err))
		return -1;
	st = sl_alloc_err(h.st_len ? h.st_len : 1, err);
	if (st == NULL || sl_zstd_unframe(src + h.z_off, h.z_len, st, h.st_len, err))
	{
		if (st)
			sl_err_prefix(err, "bcodec: structure frame at offset %zu", h.z_off);
		goto done;
	}
	s.payload_cap = raw_len - h.st_len;
	s.heights = h.version >= SL_BCODEC_V5;
	if (scan_structure(st, h.st_len, h.ndocs, SL_BCODEC_MAX_DEPTH, &s, &end, err))
		goto done;
	if (s.payload_sum != raw_len - h.st_len)
	{
		sl_fail(err, SL_ERR_CORRUPT, "bcodec: structure of %llu bytes and arrays of %llu do not make %zu bytes",
				(unsigned long long) h.st_len, (unsigned long long) s.payload_sum, raw_len);
		goto done;
	}
	ptrs = sl_alloc_err((s.n + 1) * sizeof(uint8_t *), err);
	if (ptrs == NULL)
		goto done;
	place_payloads(st, h.st_len, &s, dst, ptrs);
	rc_off = h.z_off + h.z_len;
	if (decode_arrays(src + rc_off, len - rc_off, &s, ptrs, raw_len, h.version, err))
		goto done;
	if (XXH64(dst, raw_len, 0) != h.xxh)
	{
		sl_fail(err, SL_ERR_CORRUPT, "bcodec: XXH64 of the %zu decoded bytes does not match the header's (offset 1)",
				raw_len);
		goto done;
	}
	r = 0;
done:
	sl_free(st);
	sl_free(ptrs);
	sl_bscan_free(&s);
	return r;
}
