/*
 * slimefilecmd.c - slimetool import-slime and export-slime: slime files
 * (Slime Region Format, every version read, version 13 written) to and
 * from slime values, through the core's sl_slimefile.
 */
#include "tool.h"

#include <stdio.h>
#include <string.h>

#include "sl_slimefile.h"

/* Parse "IN -o OUT" (in either order). */
static int
in_out(int argc, char **argv, const char *cmd, const char **in, const char **out)
{
	*in = *out = NULL;
	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
			*out = argv[++i];
		else if (argv[i][0] == '-' && argv[i][1] != '\0')
			return tool_fail("%s: bad option %s", cmd, argv[i]);
		else if (*in == NULL)
			*in = argv[i];
		else
			return tool_fail("%s: unexpected argument %s", cmd, argv[i]);
	}
	if (*in == NULL || *out == NULL)
		return tool_fail("%s needs a file and -o OUT", cmd);
	return 0;
}

/* slimetool import-slime FILE.slime -o OUT.slimev: a slime file as a value. */
int
cmd_import_slime(int argc, char **argv)
{
	const char *in,
			   *out;
	uint8_t    *data;
	size_t		len;
	sl_builder	b;
	sl_slimefile_info info;
	sl_buf		value = {0};
	sl_err		err;
	int			rc = 1;

	if (in_out(argc, argv, "import-slime", &in, &out))
		return 2;
	if (tool_read_file(in, &data, &len))
		return 1;
	if (sl_sniff(data, len) != SL_SNIFF_SLIMEFILE)
	{
		sl_sniff_kind kind = sl_sniff(data, len);

		if (kind)
			tool_fail("import-slime: %s is %s, not a slime file", in, sl_sniff_name(kind));
		else
			tool_fail("import-slime: %s is not a slime file (it does not start with 0xB10B)", in);
		if (kind)
			tool_reader_hint(kind);
		else
			fputs("slimetool: hint: region files are read by slimetool import-region\n", stderr);
		sl_free(data);
		return 1;
	}
	memset(&b, 0, sizeof(b));
	if (sl_slimefile_read(data, len, &sl_default_limits, &b, &info, &err) ||
		sl_builder_encode(&b, NULL, &sl_default_limits, &value, &err))
		tool_fail_err(&err, in);
	else if (tool_write_file(out, value.data, value.len) == 0)
	{
		fprintf(stderr, "%s: slime file version %d, %u chunks, %llu block entities, %llu entities",
				in, info.version, info.chunks, (unsigned long long) info.block_entities,
				(unsigned long long) info.entities);
		if (info.orphan_entities)
			fprintf(stderr, " (+%llu outside the file's chunks, kept in the world compound)",
					(unsigned long long) info.orphan_entities);
		if (info.repeated_chunks)
			fprintf(stderr, ", %u repeated chunks skipped (a v10-v12 writer's copies)",
					(unsigned) info.repeated_chunks);
		fprintf(stderr, ", value %zu bytes\n", value.len);
		rc = 0;
	}
	sl_builder_free(&b);
	sl_buf_free(&value);
	sl_free(data);
	return rc;
}

/* slimetool export-slime WORLD -o FILE.slime: a world as a version-13 slime file. */
int
cmd_export_slime(int argc, char **argv)
{
	const char *in,
			   *out;
	tool_world_opts o = {"export-slime", 1, 0, NULL, NULL};
	tool_world	w;
	sl_slimefile_info info;
	sl_buf		file = {0};
	sl_err		err;
	int			rc = 1;

	if (in_out(argc, argv, "export-slime", &in, &out))
		return 2;
	if (tool_world_open(in, &o, &w))
		return 1;
	tool_world_note(in, &w);
	if (sl_value_ref_count(&w.v) > 0)
		tool_fail("%s: %u chunks are held by reference to the chunk store; export slime_resolve(world)",
				  in, sl_value_ref_count(&w.v));
	else if (sl_slimefile_write(&w.v, SL_DEFAULT_LEVEL, &sl_default_limits, &file, &info, &err))
		tool_fail_err(&err, in);
	else if (tool_write_file(out, file.data, file.len) == 0)
	{
		fprintf(stderr, "%s: slime file version %d, DataVersion %d, %u chunks, %zu bytes\n",
				out, info.version, info.data_version, info.chunks, file.len);
		rc = 0;
	}
	tool_world_close(&w);
	sl_buf_free(&file);
	return rc;
}
