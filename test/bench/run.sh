#!/usr/bin/env bash
# test/bench/run.sh — slime's benchmark suite, one command:
#
#     bash test/bench/run.sh
#
# Installs what it needs (test/lib.sh deps, zip, libpq-dev), builds and
# installs the extension, builds build/bench_size and build/bench_client,
# runs bench_size (corpus sizes and import speed, synthetic islands), starts a
# throwaway cluster, runs bench_sql.sh (chunk reads, island save/load, backend
# memory, scans) and bench_store.sh (the chunk store: bytes per island and per
# save, save throughput, chunk- vs section-level granularity), stops it and
# prints every table. Every figure is a ratio against a baseline measured in
# the same run; nothing here fails on numbers.
# The printed tables are also kept in build/bench/last-run.txt.
#
# Environment: SLIME_CORPUS (corpus dir, default ../shared/corpus),
# SLIME_BENCH_LEVEL (zstd level for the encoder; unset = its defaults),
# BENCH_ISLANDS (10000), BENCH_G_SAMPLE (500), BENCH_SECONDS (10),
# BENCH_CHUNK_CALLS (2000), BENCH_THREADS (2), BENCH_IDEAS (0; 1 also builds
# and runs build/bench_ideas, the compression ideas of issue #3, 1-2
# minutes more, and appends its tables), BENCH_STORE (1; 0 skips
# bench_store.sh), BENCH_LOADER (1; 0 skips bench_loader.sh, the
# AdvancedSlimePaper loader over JDBC, which installs a JDK), BENCH_SHARD (1;
# 0 skips bench_shard.sh, two shards behind a postgres_fdw coordinator), and
# bench_store.sh's BENCH_CLONES (10000), BENCH_SAVES
# (100), BENCH_ENTRY_OVERHEAD (60).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../lib.sh
. "$HERE/../lib.sh"
cd "$SLIME_ROOT"

t_start=$(date +%s)
SLIME_DEPS+=(zip libpq-dev)
slime_install_deps

CORPUS=$(slime_corpus) || exit 1
export SLIME_CORPUS=$CORPUS

work=$(mktemp -d /tmp/slime-bench.XXXXXX)
slime_on_exit "rm -rf '$work'"

slime_step "build and install the extension" "$work/build.log" \
    bash -c ". '$SLIME_ROOT/test/lib.sh' && slime_build_install"
slime_step "build build/bench_size" "$work/build-size.log" \
    make build/bench_size PG_CONFIG="$SLIME_PG_CONFIG"
slime_step "build build/bench_client" "$work/build-client.log" \
    make build/bench_client PG_CONFIG="$SLIME_PG_CONFIG"

slime_step "bench_size: corpus and ${BENCH_ISLANDS:-10000} synthetic islands (a few minutes)" \
    "$work/size.log" \
    bash -c "./build/bench_size --islands '${BENCH_ISLANDS:-10000}' \
                 --g-sample '${BENCH_G_SAMPLE:-500}' \
                 --emit-islands '$work/islands.bin' --emit-count 200 > '$work/size.out'"

if [ "${BENCH_IDEAS:-0}" = 1 ]; then
    slime_step "build build/bench_ideas" "$work/build-ideas.log" \
        make build/bench_ideas PG_CONFIG="$SLIME_PG_CONFIG"
    slime_step "bench_ideas: compression ideas of issue #3 (1-2 minutes)" "$work/ideas.log" \
        bash -c "./build/bench_ideas > '$work/ideas.out'"
fi

slime_log "start a throwaway cluster"
slime_cluster_start
slime_step "bench_sql.sh: chunk reads, island save/load, backend memory, scans" "$work/sql.log" \
    bash -c "bash '$HERE/bench_sql.sh' '$work/islands.bin' > '$work/sql.out'"
if [ "${BENCH_STORE:-1}" = 1 ]; then
    slime_step "bench_store.sh: the chunk store (about 2.5 minutes)" "$work/store.log" \
        bash -c "SLIME_BENCH_BUILT=1 bash '$HERE/bench_store.sh' > '$work/store.out'"
fi
slime_step "bench_save.sh: island saves per slime.input_check mode against bytea" "$work/save.log" \
    bash -c "bash '$HERE/bench_save.sh' '$work/islands.bin' > '$work/save.out'"
slime_step "bench_gc.sh: save latency while slime_gc() runs over 100,000 values (about 2 minutes)" \
    "$work/gc.log" bash -c "bash '$HERE/bench_gc.sh' > '$work/gc.out'"
slime_step "bench_security.sh: what the hardening of issue #25 costs (about 10 s)" \
    "$work/security.log" bash -c "bash '$HERE/bench_security.sh' > '$work/security.out'"
if [ "${BENCH_TILE:-1}" = 1 ]; then
    slime_step "bench_tile.sh: map tiles in SQL and through map-server (under a minute)" "$work/tile.log" \
        bash -c "bash '$HERE/bench_tile.sh' > '$work/tile.out'"
fi
slime_step "bench_contents.sh: totals and lookups from contents summaries, 10,000 islands (a few minutes)" \
    "$work/contents.log" bash -c "bash '$HERE/bench_contents.sh' > '$work/contents.out'"
if [ "${BENCH_SETTLE:-1}" = 1 ]; then
    slime_step "bench_settle.sh: slime_settle per era and on loader islands (several minutes)" "$work/settle.log" \
        bash -c "bash '$HERE/bench_settle.sh' > '$work/settle.out'"
fi
slime_cluster_stop
if [ "${BENCH_SHARD:-1}" = 1 ]; then
    slime_step "bench_shard.sh: two shards behind a postgres_fdw coordinator against one node (about 5 minutes)" \
        "$work/shard.log" bash -c "SLIME_BENCH_BUILT=1 bash '$HERE/bench_shard.sh' > '$work/shard.out'"
fi
if [ "${BENCH_GC_SCALE:-1}" = 1 ]; then
    slime_step "bench_gc_scale.sh: slime_gc() and slime_settle() from 2,000 to 100,000 islands (about 20 minutes)" \
        "$work/gcscale.log" bash -c "SLIME_BENCH_BUILT=1 bash '$HERE/bench_gc_scale.sh' > '$work/gcscale.out'"
fi
if [ "${BENCH_LOADER:-1}" = 1 ]; then
    slime_step "bench_loader.sh: the AdvancedSlimePaper loader against a bytea loader (JDBC)" "$work/loader.log" \
        bash -c "bash '$HERE/bench_loader.sh' > '$work/loader.out'"
fi

mkdir -p build/bench
{
    echo "slime benchmark suite — $(date -u '+%Y-%m-%d %H:%M UTC'), commit" \
         "$(git -C "$SLIME_ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')$(
            [ -n "$(git -C "$SLIME_ROOT" status --porcelain -- src 2>/dev/null)" ] && echo ' (src modified)')," \
         "$(nproc) cores, $(($(date +%s) - t_start)) s"
    echo "(ratios compare with baselines measured in this run; see test/bench/README.md)"
    echo
    cat "$work/size.out"
    cat "$work/sql.out"
    [ ! -f "$work/store.out" ] || cat "$work/store.out"
    cat "$work/save.out" "$work/gc.out"
    echo
    echo "== 12. What the security hardening costs (in-server, best of 3) =="
    cat "$work/security.out"
    if [ -f "$work/tile.out" ]; then
        echo
        echo "== 13. Map tiles (bench_tile.sh) =="
        cat "$work/tile.out"
    fi
    if [ -f "$work/settle.out" ]; then
        echo
        echo "== 14. Storage at rest: slime_settle (bench_settle.sh) =="
        cat "$work/settle.out"
    fi
    if [ -f "$work/contents.out" ]; then
        echo
        echo "== 15. Contents without decoding (bench_contents.sh) =="
        cat "$work/contents.out"
    fi
    if [ -f "$work/loader.out" ]; then
        echo
        echo "== 7. The AdvancedSlimePaper loader against a bytea loader (JDBC, binary protocol) =="
        cat "$work/loader.out"
    fi
    if [ -f "$work/shard.out" ]; then
        echo
        cat "$work/shard.out"
    fi
    if [ -f "$work/gcscale.out" ]; then
        echo
        echo "== 15. Maintenance as the islands grow (bench_gc_scale.sh) =="
        cat "$work/gcscale.out"
    fi
    if [ -f "$work/ideas.out" ]; then
        echo
        echo "== bench_ideas (BENCH_IDEAS=1) =="
        cat "$work/ideas.out"
    fi
} > build/bench/last-run.txt
echo
cat build/bench/last-run.txt
