#!/usr/bin/env bash
# clients/import-world.sh [--quiet] WORLD_DIR TABLE [WORLD_NAME]
#
# One-command import of a Minecraft world folder, in either layout (before
# 26.1 or from it on), into PostgreSQL from a client machine: creates TABLE
# (world text, dimension text, data slime, PRIMARY KEY (world, dimension))
# and TABLE_files (world text, path text, data bytea, PRIMARY KEY (world,
# path)) if needed, streams one row per dimension with "slimetool
# copy-world" into "\copy ... FROM STDIN WITH (FORMAT binary)" and the
# world's own files (every file that is not a chunk file: player data,
# stats, advancements, maps, raids, data packs...; not session.lock and
# level.dat_old) with "slimetool copy-world --files" into TABLE_files, then
# prints the rows' slime_info and the files kept.
#
# The connection comes from the usual PG* variables (PGHOST, PGPORT,
# PGUSER, PGDATABASE, ...) and psql's defaults. The tool is $SLIMETOOL,
# else build/slimetool beside this script's repository, else slimetool on
# PATH. SLIMETOOL_OPTS (e.g. --lenient) is passed to copy-world.
#
# WORLD_NAME defaults to the folder's base name. The import is one
# transaction of two COPYs: if anything fails (a damaged chunk) nothing is
# stored. A world already in TABLE or TABLE_files is refused before the
# folder is read, saying how to replace it.
# On a terminal, copy-world shows its progress on one line of stderr (files
# and chunks done of their totals, MB, rate, time left); --quiet, or a
# stderr that is not a terminal, leaves only the summary lines.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/world-lib.sh"

usage() {
    echo "usage: $0 [--quiet] WORLD_DIR TABLE [WORLD_NAME]" >&2
    exit 2
}

quiet=()
if [ "${1:-}" = --quiet ] || [ "${1:-}" = -q ]; then
    quiet=(--quiet)
    shift
fi

if [ $# -lt 2 ] || [ $# -gt 3 ]; then usage; fi
world_dir=$1
table=$2
[ -d "$world_dir" ] || { echo "$0: $world_dir is not a directory" >&2; exit 1; }

check_table "$table"

world_name=${3:-$(basename "$(cd "$world_dir" && pwd -P)")}

find_tool

psql_() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }

# Before anything is created: is it a world folder at all? (says what it looked for)
"$tool" copy-world "$world_dir" --check >/dev/null || exit 1

files_table=${table}_files

psql_ -c "SET client_min_messages = warning" \
      -c "CREATE TABLE IF NOT EXISTS $table (world text, dimension text, data slime, PRIMARY KEY (world, dimension))" \
      -c "CREATE TABLE IF NOT EXISTS $files_table (world text, path text, data bytea, PRIMARY KEY (world, path))"

# A world already in the tables: say so and how to replace it, not a raw
# duplicate key error after the whole folder was read.
have=$(psql_ -At -v world="$world_name" <<SQL
SELECT concat_ws(', ', (SELECT string_agg(dimension, ', ' ORDER BY dimension) FROM $table WHERE world = :'world'),
                 (SELECT count(*) || ' files' FROM $files_table WHERE world = :'world' HAVING count(*) > 0));
SQL
)
if [ -n "$have" ]; then
    echo "$0: world '$world_name' is already in $table ($have); nothing was stored" >&2
    q=${world_name//"'"/"''"}
    echo "$0: to replace it, delete it first (DELETE FROM $table WHERE world = '$q'; DELETE FROM $files_table WHERE world = '$q') and run this again; or give another WORLD_NAME" >&2
    exit 1
fi

# One transaction: the dimensions from copy-world on stdin, then the world's
# files from copy-world --files, which psql runs itself (\copy ... FROM
# PROGRAM runs on this machine; the folder and name go in through the
# environment, never through the command's text).
export SLIME_IMPORT_TOOL=$tool SLIME_IMPORT_DIR=$world_dir SLIME_IMPORT_NAME=$world_name
export SLIME_IMPORT_QUIET=${quiet[*]:-} SLIME_IMPORT_OPTS=${SLIMETOOL_OPTS:-}
# shellcheck disable=SC2016  # the shell psql starts expands them
files_cmd='exec "$SLIME_IMPORT_TOOL" copy-world "$SLIME_IMPORT_DIR" --files --name "$SLIME_IMPORT_NAME" $SLIME_IMPORT_QUIET $SLIME_IMPORT_OPTS'
# shellcheck disable=SC2086  # SLIMETOOL_OPTS is a list of options
if ! "$tool" copy-world "$world_dir" --name "$world_name" "${quiet[@]}" ${SLIMETOOL_OPTS:-} |
        psql_ -1 -c "\\copy $table(world, dimension, data) FROM STDIN WITH (FORMAT binary)" \
                 -c "\\copy $files_table(world, path, data) FROM PROGRAM '$files_cmd' WITH (FORMAT binary)"; then
    echo "$0: import of '$world_name' failed; nothing was stored" >&2
    exit 1
fi

psql_ -v world="$world_name" <<SQL
\\pset footer off
SELECT dimension,
       (i->>'chunks')::int AS chunks,
       i->'data_version'->>'min' AS dv_min,
       i->'data_version'->>'max' AS dv_max,
       pg_size_pretty((i->>'raw_bytes')::bigint) AS raw,
       pg_size_pretty((i->>'stored_bytes')::bigint) AS stored,
       (i->>'has_level')::boolean AS level
  FROM (SELECT dimension, slime_info(data) AS i FROM $table WHERE world = :'world') s
 ORDER BY dimension;
SELECT count(*) AS world_files, pg_size_pretty(coalesce(sum(octet_length(data)), 0)) AS bytes,
       count(*) FILTER (WHERE path ~ '^(playerdata|players/data)/[^/]+\\.dat\$') AS players
  FROM $files_table WHERE world = :'world';
SQL
