#!/usr/bin/env bash
# test/doc.sh — the README's SQL runs as written (issue #24).
#
# Every ```sql block of README.md, in order, goes through psql as it stands
# (a session a block, ON_ERROR_STOP) on a throwaway cluster of its own, in a
# database `islands`, with psql's current directory holding the world folder
# `world` the README starts from (`slimetool gen-world world`, as it says).
# The README builds every table its examples use. A block the README marks
# with the line `<!-- doctest: skip REASON -->` just before its fence is not
# run and is counted with its reason; a marker before anything else fails.
# Then the files the examples write are checked: r.0.0.mca and island.slime
# read back by slimetool, map.png and pvp1.schem by their magic bytes.
# Prints "doc: N of T blocks ran as written, M skipped" and exits non-zero on any failure.
# Usage: bash test/doc.sh [README]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$SLIME_ROOT"
README=$(realpath "${1:-README.md}")
slime_tally_init
WORK=$(mktemp -d /tmp/slime-doc.XXXXXX)
slime_on_exit 'rm -rf "$WORK"'
TOOL=$SLIME_ROOT/build/slimetool
[ -x "$TOOL" ] || { echo "doc: $TOOL is missing (make tool)" >&2; exit 1; }

# ---- extract: blocks/NNN.sql (first line: "-- README.md:LINE"), skips.tsv --
mkdir -p "$WORK/blocks" "$WORK/client"
awk -v dir="$WORK/blocks" -v skips="$WORK/skips.tsv" -v bad="$WORK/bad-markers" '
    function flush_marker() { if (marker != "") { print marker_line ": " marker >> bad; marker = "" } }
    inblock && /^[ \t]*```/ { inblock = 0; close(f); next }
    inblock { print >> f; next }
    /^<!-- doctest: skip .* -->$/ {
        flush_marker(); marker = $0; sub(/^<!-- doctest: skip /, "", marker); sub(/ -->$/, "", marker)
        marker_line = NR; next }
    /^[ \t]*```sql[ \t]*$/ {
        n++
        if (marker != "") { printf "%d\t%s\n", NR, marker >> skips; marker = ""; skip = 1 } else skip = 0
        f = skip ? "/dev/null" : sprintf("%s/%03d.sql", dir, n)
        if (!skip) print "-- README.md:" NR + 1 > f
        inblock = 1; next }
    /^[ \t]*```/ { flush_marker(); next }
    /^[ \t]*$/ { next }
    { flush_marker() }
' "$README"
touch "$WORK/skips.tsv"
if [ -s "$WORK/bad-markers" ]; then
    while read -r l; do result FAIL "README line $l: a doctest marker not followed by a \`\`\`sql block"; done <"$WORK/bad-markers"
fi
ran_total=$(find "$WORK/blocks" -name '*.sql' | wc -l)
skipped=$(wc -l <"$WORK/skips.tsv")
[ "$ran_total" -gt 0 ] || { result FAIL "no \`\`\`sql block found in $README"; finish; }

# ---- the README's setup: its own cluster, database islands, a world folder --
SLIME_PG_CONF="log_min_messages = warning" slime_cluster_start
createdb islands
export PGDATABASE=islands
(cd "$WORK/client" && "$TOOL" gen-world world >/dev/null)
chmod -R a+rX "$WORK"

# ---- run every block in order, each in a fresh psql session ----------------
ran=0
for b in "$WORK"/blocks/*.sql; do
    line=$(head -n 1 "$b"); line=${line#-- }
    if (cd "$WORK/client" && slime_psql -f "$b") >"$WORK/out" 2>&1; then
        ran=$((ran + 1))
        result OK "$line: ran ($(($(wc -l <"$b") - 1)) lines)"
    else
        result FAIL "$line: the block fails as written:"
        sed 's/^/        /' "$WORK/out" | tail -n 15
    fi
    if grep -q '^psql:.*WARNING' "$WORK/out"; then
        echo "    (warnings) $(grep '^psql:.*WARNING' "$WORK/out" | head -n 3)"
    fi
done

# ---- what the blocks wrote on the client ------------------------------------
check_file() {      # check_file NAME WHAT command...
    local name=$1 what=$2; shift 2
    if [ -s "$WORK/client/$name" ] && "$@" >"$WORK/out" 2>&1; then
        result OK "$name: $what"
    else
        result FAIL "$name: not $what ($(head -c 300 "$WORK/out" 2>/dev/null))"
    fi
}
magic() { [ "$(head -c "${#2}" "$WORK/client/$1")" = "$2" ]; }
check_file r.0.0.mca "a region file slimetool reads (25 chunks and more)" \
    sh -c "'$TOOL' info '$WORK/client/r.0.0.mca' | grep -Eq '\"chunks\": *(2[5-9]|[3-9][0-9])'"
check_file island.slime "a slime file slimetool reads" "$TOOL" info "$WORK/client/island.slime"
check_file map.png "a PNG" magic map.png $'\x89PNG'
check_file pvp1.schem "a gzip schematic" magic pvp1.schem $'\x1f\x8b'

# ---- the count ---------------------------------------------------------------
while IFS=$'\t' read -r l why; do echo "skipped: README.md:$l ($why)"; done <"$WORK/skips.tsv"
echo "doc: $ran of $ran_total blocks ran as written, $skipped skipped (marked in the README)"
finish
