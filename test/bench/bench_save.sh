#!/usr/bin/env bash
# test/bench/bench_save.sh [ISLANDS_FILE]
#
# Island saves per slime.input_check mode against bytea, over the binary
# protocol (build/bench_client islands: a prepared INSERT .. ON CONFLICT with
# the value as a binary parameter, slime and bytea alternating in 1-s
# slices, logged tables). Two island sets and two settings:
#   suite:     the islands of ISLANDS_FILE (bench_size --emit-islands; built
#              here when not given), BENCH_THREADS clients (2), the test
#              cluster's settings (fsync, full_page_writes off);
#   realistic: one dense 25-chunk island (the 5x5 chunk corner of a 1.21.1
#              region of the corpus, as 20 rows), one client, fsync and
#              full_page_writes on, synchronous_commit off; then two
#              clients, and two clients with synchronous_commit on too
#              (durable, as users run it).
# Uses the cluster named by the PG* variables, or a throwaway one. Prints a
# table; never fails on numbers.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib.sh
. "$HERE/../lib.sh"

ISLANDS=${1:-}
SECS=${BENCH_SECONDS:-10}
THREADS=${BENCH_THREADS:-2}
CLIENT=$SLIME_ROOT/build/bench_client
DENSE=anvil-1.18plus/prismarine-provider-anvil/1.21.1/r.0.0.mca
CORPUS=$(slime_corpus) || exit 1

make -s -C "$SLIME_ROOT" build/bench_client build/bench_size PG_CONFIG="$SLIME_PG_CONFIG" >&2
if [ -z "$ISLANDS" ]; then
    ISLANDS=$(mktemp /tmp/slime-islands.XXXXXX)
    slime_on_exit "rm -f '$ISLANDS'"
    slime_log "bench_save: 200 synthetic islands (bench_size --no-corpus)"
    SLIME_CORPUS=$CORPUS "$SLIME_ROOT/build/bench_size" --no-corpus --islands 200 --g-sample 0 \
        --emit-islands "$ISLANDS" --emit-count 200 >/dev/null
fi
[ -n "${PGHOST:-}" ] || slime_cluster_start
slime_psql -c "CREATE EXTENSION IF NOT EXISTS slime" >/dev/null

dense_sql="sql:WITH r AS (SELECT slime_import_region(pg_read_binary_file('$CORPUS/$DENSE'), 0, 0) w),
    i AS (SELECT slime_agg(slime_put_chunk(NULL, c.x, c.z, slime_chunk_nbt(w, c.x, c.z))) v
          FROM r, slime_chunks(w) c WHERE c.x < 5 AND c.z < 5)
  SELECT v::bytea FROM i, generate_series(1, 20)"

# one table row: LABEL, then bench_client's output for the save line
row() {   # row LABEL SET THREADS MODE
    local out
    out=$(PGOPTIONS="${PGOPTIONS:-} -c slime.input_check=$4" "$CLIENT" islands "$2" "$SECS" "$3")
    awk -v l="$1" -v m="$4" '/^save/ { printf "%-34s %-10s %10s %10s %8s\n", l, m, $(NF-4), $(NF-3), $(NF-2) }' <<<"$out"
}

printf '\n== Island saves per input_check mode, slime / bytea (binary protocol, %s s per cell) ==\n\n' "$SECS"
printf '%-34s %-10s %10s %10s %8s\n' "" "mode" "slime/s" "bytea/s" "ratio"
for m in full structure; do
    row "suite: $(basename "$ISLANDS"), $THREADS clients" "$ISLANDS" "$THREADS" "$m"
done
slime_psql -c "ALTER SYSTEM SET fsync = on" -c "ALTER SYSTEM SET full_page_writes = on" \
    -c "ALTER SYSTEM SET synchronous_commit = off" -c "SELECT pg_reload_conf()" >/dev/null
for m in full structure; do
    row "realistic: dense 25-chunk, 1 client" "$dense_sql" 1 "$m"
done
# issue #21's setting: the dense island, two clients, the default check;
# then durable as users run it (synchronous_commit on as well)
row "dense 25-chunk, 2 clients" "$dense_sql" 2 full
slime_psql -c "ALTER SYSTEM SET synchronous_commit = on" -c "SELECT pg_reload_conf()" >/dev/null
row "dense 25-chunk, 2 clients, durable" "$dense_sql" 2 full
slime_psql -c "ALTER SYSTEM RESET fsync" -c "ALTER SYSTEM RESET full_page_writes" \
    -c "ALTER SYSTEM RESET synchronous_commit" -c "SELECT pg_reload_conf()" >/dev/null
slime_psql -At -c "SELECT 'dense island: ' || length(v) || ' bytes, ' || (slime_info(v::slime) ->> 'raw_bytes') || ' bytes of raw NBT'
    FROM (${dense_sql#sql:} LIMIT 1) s(v)"
