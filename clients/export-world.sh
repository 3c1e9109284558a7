#!/usr/bin/env bash
# clients/export-world.sh WORLD TABLE DIR [--force] [--layout old|new]
#
# The reverse of clients/import-world.sh: writes world WORLD of TABLE (world
# text, dimension text, data slime) and its own files from TABLE_files
# (world text, path text, data bytea), when that table exists, back to a
# Minecraft world folder DIR on this machine: every dimension, level.dat
# and every file kept, byte for byte, in the layout the world's DataVersion
# calls for (the overworld in region/, entities/, poi/ at the root, the
# nether in DIM-1/, the end in DIM1/, players in playerdata/ before 26.1
# snapshot 6 (DataVersion 4774); dimensions/minecraft/<name>/ and players/
# from it on; --layout forces one). It streams, in one snapshot,
#   \copy (SELECT world, dimension, slime_resolve(data) FROM TABLE
#          WHERE world = WORLD) TO STDOUT (FORMAT binary)
#   \copy (SELECT world, path, data FROM TABLE_files WHERE world = WORLD) TO STDOUT (FORMAT binary)
# into "slimetool export-world DIR --with-files". slime_resolve() turns
# values saved through the chunk store (slime_store_trigger) into
# self-contained ones, which the tool can read without the database.
#
# DIR must not exist or be empty; --force writes over the world in it
# (replacing the files it writes, removing region files of the exported
# dimensions that the table no longer has). Nothing is written unless the
# whole stream arrives and checks.
#
# Connection from the PG* variables; the tool is $SLIMETOOL, else
# build/slimetool beside this script's repository, else slimetool on PATH.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/world-lib.sh"

usage() {
    echo "usage: $0 WORLD TABLE DIR [--force] [--layout old|new]" >&2
    exit 2
}

if [ $# -lt 3 ]; then usage; fi
world=$1
table=$2
dir=$3
shift 3
opts=()
while [ $# -gt 0 ]; do
    case $1 in
        --force) opts+=(--force) ;;
        --layout) [ $# -ge 2 ] || usage; opts+=(--layout "$2"); shift ;;
        *) usage ;;
    esac
    shift
done

check_table "$table"

find_tool

case $world in *$'\n'*|*$'\r'*) echo "$0: world names with line breaks are not supported" >&2; exit 2 ;; esac

# The world name goes in as a dollar-quoted literal with a tag it cannot hold.
tag=w
while [[ $world == *"\$$tag\$"* ]]; do tag=${tag}w; done
lit="\$$tag\$$world\$$tag\$"

# A world the table does not hold: say so by name before DIR is touched.
# And the world's own files, when the import made their table.
files_table=${table}_files
IFS='|' read -r rows has_files < <(psql -X -q -At -v ON_ERROR_STOP=1 \
    -c "SELECT count(*), to_regclass('$files_table') IS NOT NULL FROM $table WHERE world = $lit") || exit 1
if [ "$rows" = 0 ]; then
    some=$(psql -X -q -At -v ON_ERROR_STOP=1 \
        -c "SELECT string_agg(quote_literal(world), ', ') FROM (SELECT DISTINCT world FROM $table ORDER BY 1 LIMIT 5) s") || exit 1
    echo "$0: $table has no rows of world '$world'${some:+ (its worlds include $some)}; nothing was written" >&2
    exit 1
fi

files=()
if [ "$has_files" = t ]; then
    files=(-c "\\copy (SELECT world, path, data FROM $files_table WHERE world = $lit ORDER BY path) TO STDOUT (FORMAT binary)")
    opts+=(--with-files)
fi

# \copy takes the rest of its line: each query must be one line. Both in
# one snapshot.
if ! psql -X -q -v ON_ERROR_STOP=1 -c "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY" \
        -c "\\copy (SELECT world, dimension, slime_resolve(data) FROM $table WHERE world = $lit ORDER BY dimension) TO STDOUT (FORMAT binary)" \
        "${files[@]}" -c "COMMIT" |
        "$tool" export-world "$dir" "${opts[@]}"; then
    echo "$0: export of '$world' from $table failed" >&2
    exit 1
fi
