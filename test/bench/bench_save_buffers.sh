#!/usr/bin/env bash
# test/bench/bench_save_buffers.sh — the shared buffers a loader save and a
# load of the real ASP file slime/crawlspace/hub.slime touch, one chunk
# changed a save (test/bench/bench_save_buffers.sql), on a durable throwaway
# cluster, with the extension as installed (make install first). A count, not
# a timing: run it on two builds to compare what their saves read.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cd "$SLIME_ROOT"
corpus=$(slime_corpus)
SLIME_PG_CONF=$(printf 'fsync = on\nsynchronous_commit = on\nshared_buffers = 256MB') slime_cluster_start >&2
slime_psql -X -q -v corpus="$corpus" -f test/bench/bench_save_buffers.sql |
    grep -E 'frames|^ *[0-9]|Buffers|a save with'
slime_cluster_stop "$SLIME_PGTMP" >&2
