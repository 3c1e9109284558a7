#!/usr/bin/env bash
# test/bench/bench_ab.sh [REV]
#
# The working tree's slime.so against REV's (default: the commit before
# slime_store() kept prepared plans), on the same data in one run: three
# rounds, the two libraries installed in turn, each timing slime_store()
# called in one statement on 21 self-contained 25-chunk corpus islands and
# on their reference forms (100 calls each per round). The SQL scripts are
# the working tree's for both. Prints the best time of each; never fails on
# numbers. Replaces the installed slime.so for the run (with install(1), so
# running backends keep the file they mapped) and puts the working tree's
# build back at the end. Uses the cluster named by the PG* variables or a
# throwaway one.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib.sh
. "$HERE/../lib.sh"

REV=${1:-d0f5fe9}
CORPUS=$(slime_corpus) || exit 1
WORK=$(mktemp -d /tmp/slime-ab.XXXXXX)
slime_on_exit "git -C '$SLIME_ROOT' worktree remove --force '$WORK/old' >/dev/null 2>&1; rm -rf '$WORK'"

slime_log "bench_ab: building this tree and $REV"
slime_build_install >/dev/null
git -C "$SLIME_ROOT" worktree add -q --detach "$WORK/old" "$REV"
make -s -C "$WORK/old" -j2 PG_CONFIG="$SLIME_PG_CONFIG" >/dev/null 2>&1
LIB=$("$SLIME_PG_CONFIG" --pkglibdir)
cp "$SLIME_ROOT/slime.so" "$WORK/new.so"
cp "$WORK/old/slime.so" "$WORK/old.so"
slime_on_exit "install -m 755 '$WORK/new.so' '$LIB/slime.so'"

[ -n "${PGHOST:-}" ] || slime_cluster_start
DB=slime_bench_ab
dropdb --if-exists "$DB" >/dev/null 2>&1 || true
createdb "$DB"
slime_psql -d "$DB" -c "CREATE EXTENSION slime" >/dev/null
slime_psql -d "$DB" -v corpus="$CORPUS" -f "$HERE/seed_islands.sql" >/dev/null
slime_psql -d "$DB" >/dev/null <<EOF
CREATE TABLE refs AS SELECT id, slime_store(world) AS world FROM seeds;
EOF

declare -A best=()
for round in 1 2 3; do
    for v in old new; do
        install -m 755 "$WORK/$v.so" "$LIB/slime.so"
        for t in seeds refs; do
            ms=$(slime_psql -d "$DB" -At -c '\timing on' \
                 -c "SELECT count(slime_store(world)) FROM $t, generate_series(1, 100)" |
                 awk '/^Time:/ { print $2 }')
            k=$v-$t
            if [ -z "${best[$k]:-}" ] || awk -v a="$ms" -v b="${best[$k]}" 'BEGIN { exit !(a < b) }'; then
                best[$k]=$ms
            fi
        done
    done
done
n=$(slime_psql -d "$DB" -At -c "SELECT count(*) * 100 FROM seeds")
printf '\n== slime_store() calls: this tree against %s (best of 3, %s calls each) ==\n\n' "$REV" "$n"
printf '%-44s %12s %12s %8s\n' "" "$REV ms" "this ms" "speedup"
for t in seeds refs; do
    label="self-contained islands"; [ $t = refs ] && label="their reference forms (all chunks stored)"
    awk -v l="$label" -v a="${best[old-$t]}" -v b="${best[new-$t]}" -v n="$n" \
        'BEGIN { printf "%-44s %12.1f %12.1f %7.2fx\n", l, a, b, a / b }'
done
dropdb "$DB"
