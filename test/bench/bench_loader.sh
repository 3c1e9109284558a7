#!/usr/bin/env bash
# test/bench/bench_loader.sh — the AdvancedSlimePaper loader against a bytea
# loader: first the game-server setting of issue #21 (test/bench/IslandBench.java:
# 8 islands of 25 chunks, 50 versions of 1-5 edited chunks each, a bytea row
# per world), then test/bench/LoaderBench.java (saves/s and loads/s for
# 25-chunk islands and a 144-chunk world; BENCH_LOADER_ONLY_ISLANDS=1 skips
# it), as ratios measured side by side. Installs
# what it needs (a JDK, pgJDBC, JUnit 5: the loader's test helpers are
# reused), builds and installs the extension, builds the loader and its
# tests, starts its own throwaway cluster on 127.0.0.1. Never fails on a
# number; exits non-zero only when something could not run.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cd "$SLIME_ROOT"

slime_java_bench_prepare build/java/bench-classes test/bench/LoaderBench.java test/bench/IslandBench.java
cp=$SLIME_JAVA_CP
# Twice, each on a cluster of its own: first durable, as users run it (fsync,
# synchronous_commit and full_page_writes on: every save waits for its WAL
# flush), then with all three off, as the test clusters run (the CPU-bound
# case, where only the backend's work counts). Saves as a server makes them:
# not checked against a whole conversion (the tests check).
for durable in on off; do
    printf '\n== fsync, synchronous_commit, full_page_writes: %s ==\n' "$durable"
    SLIME_PG_CONF=$(printf 'fsync = %s\nsynchronous_commit = %s\nfull_page_writes = %s' "$durable" "$durable" "$durable") \
        SLIME_LOADER_VERIFY=off SLIME_PG_LISTEN=127.0.0.1 slime_cluster_start >&2
    slime_psql -c "CREATE EXTENSION slime"
    export SLIME_JDBC_URL="jdbc:postgresql://127.0.0.1:$PGPORT/$PGDATABASE?user=$PGUSER"
    java ${BENCH_JAVA_OPTS:-} -cp "$cp:build/java/bench-classes" dev.slime.asp.IslandBench
    [ "${BENCH_LOADER_ONLY_ISLANDS:-0}" = 1 ] || java -cp "$cp:build/java/bench-classes" dev.slime.asp.LoaderBench
    slime_cluster_stop "$SLIME_PGTMP"
done
