#!/usr/bin/env bash
# test/bench/bench_pagefault.sh
#
# Why a GC after 1,000 saves takes more time in a store ten times larger
# while touching about the same number of blocks (issue #32; bench README,
# section 18). No slime in it: two tables of 32-byte random keys (sha256,
# as store entries are keyed), 250,000 and 2,500,000 rows, both warm in
# shared buffers (1 GB), and 4,400 keys looked up by one `= ANY (array)`
# index scan, as slime_gc() looks up its candidates. Each is timed as the
# first statement of a new session (as a GC run by cron or pg_cron is) and
# as the third, other keys each time, with the server's shared memory in
# 4 kB pages (huge_pages = off) and in 2 MB pages (huge_pages = on; the
# pages reserved for the run and given back, which needs root; skipped
# without it). A backend maps shared memory page by page as it first
# touches it: in 4 kB pages every buffer a session touches first costs a
# page fault, and keys spread over ten times the pages touch more of them.
#
# Knobs: BENCH_PF_ROUNDS (3 sessions of each; their medians).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib.sh
. "$HERE/../lib.sh"
ROUNDS=${BENCH_PF_ROUNDS:-3}
OUT=$(mktemp /tmp/slime-bench-pf.XXXXXX)
slime_on_exit "rm -f '$OUT'"

# median N...: the middle one
median() { printf '%s\n' "$@" | sort -g | sed -n "$((($# + 1) / 2))p"; }
# lookups TABLE ROWS SEED: the statement looking up 4,400 of TABLE's keys
lookups() {
    echo "EXPLAIN (ANALYZE, BUFFERS, TIMING OFF) SELECT count(pad) FROM $1 WHERE h = ANY (ARRAY(
        SELECT sha256(int8send((i * 7919 + $3 * 13) % $2 + 1)) FROM generate_series(1, 4400) i));"
}

# measure MODE: a cluster with huge_pages = MODE, both tables, the rounds
measure() {
    local mode=$1 t n r out first=() third=() hits ms
    SLIME_PG_CONF="shared_buffers = 1GB
huge_pages = $mode" slime_cluster_start 2>/dev/null
    slime_psql -d postgres >/dev/null <<'EOF'
CREATE TABLE small (h bytea PRIMARY KEY, pad text);
CREATE TABLE big (h bytea PRIMARY KEY, pad text);
INSERT INTO small SELECT sha256(int8send(i)), repeat('x', 200) FROM generate_series(1, 250000) i;
INSERT INTO big SELECT sha256(int8send(i)), repeat('x', 200) FROM generate_series(1, 2500000) i;
VACUUM (FREEZE, ANALYZE) small, big;
SELECT count(*) FROM small WHERE h > '\x00'::bytea; SELECT count(pad) FROM small;
SELECT count(*) FROM big WHERE h > '\x00'::bytea; SELECT count(pad) FROM big;
EOF
    for t in small big; do
        n=$([ $t = small ] && echo 250000 || echo 2500000)
        first=() third=()
        for ((r = 0; r < ROUNDS; r++)); do
            out=$(slime_psql -At -d postgres -c "SET enable_seqscan = off" -c "SET enable_bitmapscan = off" \
                -c "$(lookups "$t" "$n" $((r * 3 + 1)))" -c "$(lookups "$t" "$n" $((r * 3 + 2)))" \
                -c "$(lookups "$t" "$n" $((r * 3 + 3)))")
            mapfile -t ms < <(sed -n 's/^Execution Time: \([0-9.]*\) ms/\1/p' <<<"$out")
            first+=("${ms[0]}") third+=("${ms[2]}")
            hits=$(sed -n 's/^ *Buffers: shared hit=\([0-9]*\).*/\1/p' <<<"$out" | head -n 1)
        done
        printf '%s\t%s\t%s\t%s\t%s\n' "$mode" "$t" "$hits" "$(median "${first[@]}")" "$(median "${third[@]}")" >>"$OUT"
    done
    slime_cluster_stop "$SLIME_PGTMP"
}

measure off
if slime_huge_pages 640; then
    measure on
else
    echo "bench_pagefault: no huge pages (needs root and 1.3 GB the kernel can reserve): 2 MB pages not measured" >&2
fi

echo
echo "== bench_pagefault: 4,400 lookups of 32-byte keys, one index scan (ms, median of $ROUNDS sessions) =="
echo
echo "| shared memory | keys in the table | blocks it touches | first statement of a session | third statement | first: 2,500,000 / 250,000 |"
echo "|---|---:|---:|---:|---:|---:|"
awk -F'\t' '{ rows = ($2 == "small") ? "250,000" : "2,500,000"; pages = ($1 == "on") ? "2 MB pages" : "4 kB pages"
    printf "| %s | %s | %s | %.1f | %.1f |", pages, rows, $3, $4, $5
    if ($2 == "small") { s[$1] = $4; print " |" } else printf " %.2fx |\n", $4 / s[$1] }' "$OUT"
