/*
 * fuzz_nbt.c - libFuzzer target for the NBT reader, tree, writer and JSON.
 *
 * Input: NBT bytes as found in chunks (no compression).
 *   - sl_nbt_check with a compound root and with any root;
 *   - when the check passes, sl_nbt_parse must agree on the extent and
 *     sl_nbt_write must reproduce the checked bytes exactly;
 *   - sl_nbt_find_int along a few paths, and its answer must match the check;
 *   - sl_nbt_to_json.
 */
#include "fuzz_common.h"
#include "sl_nbt.h"

static void
reset(sl_err *err)
{
	err->code = SL_OK;
	err->msg[0] = '\0';
}

static void
roundtrip(const uint8_t *data, size_t size, size_t checked)
{
	sl_arena	arena = {0};
	sl_nbt	   *root = NULL;
	size_t		consumed = 0;
	sl_buf		out = {0};
	sl_err		err;

	reset(&err);
	if (sl_nbt_parse(data, size, &fuzz_limits, &arena, &root, &consumed, &err))
	{
		fuzz_check_err(&err);
		/* the tree may be larger than its source; caps may bite */
		FUZZ_CHECK(err.code == SL_ERR_LIMIT || err.code == SL_ERR_NOMEM,
				   "sl_nbt_check accepted %zu bytes but sl_nbt_parse failed: %s",
				   checked, err.msg);
		sl_arena_free(&arena);
		return;
	}
	FUZZ_CHECK(root != NULL, "parse succeeded without a root");
	FUZZ_CHECK(consumed == checked, "parse consumed %zu, check %zu",
			   consumed, checked);

	reset(&err);
	if (sl_nbt_write(root, &out, &err))
	{
		fuzz_check_err(&err);
		FUZZ_CHECK(0, "sl_nbt_write of a parsed tree failed: %s", err.msg);
	}
	FUZZ_CHECK(out.len == checked, "write gave %zu bytes, input had %zu",
			   out.len, checked);
	FUZZ_CHECK(memcmp(out.data, data, checked) == 0,
			   "write did not reproduce the input bytes");

	/* the child lookup must not crash on any compound */
	if (root->type == SL_TAG_COMPOUND)
	{
		(void) sl_nbt_child(root, "DataVersion");
		(void) sl_nbt_child(root, "Level");
		(void) sl_nbt_child(root, "");
	}
	sl_buf_free(&out);
	sl_arena_free(&arena);
}

static void
find_ints(const uint8_t *data, size_t size, int any_ok)
{
	static const char *const p_dv[] = {"DataVersion"};
	static const char *const p_xpos[] = {"Level", "xPos"};
	static const char *const p_deep[] = {"Data", "Player", "Dimension"};
	static const char *const p_empty[] = {""};
	struct
	{
		const char *const *path;
		int			n;
	}			paths[] = {{NULL, 0}, {p_dv, 1}, {p_xpos, 2}, {p_deep, 3}, {p_empty, 1}};

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
	{
		int64_t		v = 0;
		sl_err		err;
		int			rc;

		reset(&err);
		rc = sl_nbt_find_int(data, size, paths[i].path, paths[i].n,
							 &fuzz_limits, &v, &err);
		FUZZ_CHECK(rc >= -1 && rc <= 1, "find_int returned %d", rc);
		if (rc < 0)
			fuzz_check_err(&err);
		/* the whole document is checked: malformed iff the check fails */
		FUZZ_CHECK((rc >= 0) == any_ok,
				   "find_int returned %d but sl_nbt_check(any_root) %s (%s)",
				   rc, any_ok ? "passed" : "failed", err.msg);
	}
}

static void
to_json(const uint8_t *data, size_t size, int any_ok)
{
	sl_buf		out = {0};
	sl_err		err;

	reset(&err);
	if (sl_nbt_to_json(data, size, &fuzz_limits, &out, &err))
	{
		fuzz_check_err(&err);
		FUZZ_CHECK(out.len == 0, "to_json failed but left %zu bytes", out.len);
	}
	else
	{
		FUZZ_CHECK(any_ok, "to_json accepted a document the check rejects");
		FUZZ_CHECK(out.len > 0, "to_json gave empty text");
		/* JSON text for jsonb: no NUL bytes */
		FUZZ_CHECK(memchr(out.data, '\0', out.len) == NULL,
				   "to_json output holds a NUL byte");
	}
	sl_buf_free(&out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t		consumed = 0,
				consumed_any = 0;
	sl_err		err;
	int			comp_ok,
				any_ok;

	reset(&err);
	comp_ok = sl_nbt_check(data, size, 0, &fuzz_limits, &consumed, &err) == 0;
	if (comp_ok)
		FUZZ_CHECK(consumed > 0 && consumed <= size, "consumed %zu of %zu",
				   consumed, size);
	else
		fuzz_check_err(&err);

	reset(&err);
	any_ok = sl_nbt_check(data, size, 1, &fuzz_limits, &consumed_any, &err) == 0;
	if (any_ok)
		FUZZ_CHECK(consumed_any > 0 && consumed_any <= size,
				   "consumed %zu of %zu", consumed_any, size);
	else
		fuzz_check_err(&err);
	if (comp_ok)
		FUZZ_CHECK(any_ok && consumed_any == consumed,
				   "compound check passed (%zu) but any-root check disagrees", consumed);

	/* the production nesting cap on the same bytes must not crash */
	{
		size_t		c2 = 0;

		reset(&err);
		if (sl_nbt_check(data, size, 1, &fuzz_limits_deep, &c2, &err) == 0 && any_ok)
			FUZZ_CHECK(c2 == consumed_any, "deep check consumed %zu, shallow %zu",
					   c2, consumed_any);
	}

	if (any_ok)
		roundtrip(data, size, consumed_any);
	find_ints(data, size, any_ok);
	to_json(data, size, any_ok);
	return 0;
}
