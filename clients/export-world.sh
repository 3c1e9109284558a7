#!/usr/bin/env bash
# clients/export-world.sh WORLD TABLE DIR [--force]
#
# The reverse of clients/import-world.sh: writes world WORLD of TABLE (world
# text, dimension text, data slime) back to a Minecraft world folder DIR on
# this machine, every dimension (region/, entities/, poi/ of the overworld,
# DIM-1/, DIM1/, dimensions/<ns>/<path>/) and level.dat. It streams
#   \copy (SELECT world, dimension, slime_resolve(data) FROM TABLE
#          WHERE world = WORLD) TO STDOUT (FORMAT binary)
# into "slimetool export-world DIR". slime_resolve() turns values saved
# through the chunk store (slime_store_trigger) into self-contained ones,
# which the tool can read without the database.
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
    echo "usage: $0 WORLD TABLE DIR [--force]" >&2
    exit 2
}

if [ $# -lt 3 ] || [ $# -gt 4 ]; then usage; fi
world=$1
table=$2
dir=$3
force=()
if [ $# = 4 ]; then
    [ "$4" = --force ] || usage
    force=(--force)
fi

check_table "$table"

find_tool

case $world in *$'\n'*|*$'\r'*) echo "$0: world names with line breaks are not supported" >&2; exit 2 ;; esac

# The world name goes in as a dollar-quoted literal with a tag it cannot hold.
tag=w
while [[ $world == *"\$$tag\$"* ]]; do tag=${tag}w; done
lit="\$$tag\$$world\$$tag\$"

# A world the table does not hold: say so by name before DIR is touched.
rows=$(psql -X -q -At -v ON_ERROR_STOP=1 -c "SELECT count(*) FROM $table WHERE world = $lit") || exit 1
if [ "$rows" = 0 ]; then
    some=$(psql -X -q -At -v ON_ERROR_STOP=1 \
        -c "SELECT string_agg(quote_literal(world), ', ') FROM (SELECT DISTINCT world FROM $table ORDER BY 1 LIMIT 5) s") || exit 1
    echo "$0: $table has no rows of world '$world'${some:+ (its worlds include $some)}; nothing was written" >&2
    exit 1
fi

# \copy takes the rest of its line: the query must be one line.
if ! psql -X -q -v ON_ERROR_STOP=1 \
        -c "\\copy (SELECT world, dimension, slime_resolve(data) FROM $table WHERE world = $lit ORDER BY dimension) TO STDOUT (FORMAT binary)" |
        "$tool" export-world "$dir" "${force[@]}"; then
    echo "$0: export of '$world' from $table failed" >&2
    exit 1
fi
