#!/usr/bin/env bash
# test/bench/bench_frames.sh — issue #34: the AdvancedSlimePaper loader's
# saves and loads against a bytea row a world, as a network runs them
# (test/bench/FramesBench.java): 8 and 64 islands of 25 chunks and the real
# ASP file slime/crawlspace/hub.slime, saves by 1 and by 4 connections,
# loads, WAL a save, backend CPU, disk with 10 saves of history hot and
# after slime_gc() and slime_settle(). Each run on a durable throwaway
# cluster of its own (fsync, synchronous_commit, full_page_writes on;
# slime.loader_verify off, as in production), first with the loader's
# framed form (0.10.0), then with whole files kept (the loader's _frames
# table dropped: the save path before issue #34), so that before and after
# are measured by the same script on the same machine. Installs what it
# needs (a JDK, pgJDBC, JUnit 5 and zstd-jni: the loader's test helpers
# are reused), builds and installs the extension. Never fails on a
# number; exits non-zero only when something could not run.
# A run "deferred:N" is the framed form with deferred saves (0.13.0: the
# loader's _pending table, slime.loader_defer on for the database; the
# world's pending saves caught up, and timed, after the saves).
#   BENCH_FRAMES_RUNS: the runs, "framed:8 framed:64 framed:hub whole:8 whole:hub" by default
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cd "$SLIME_ROOT"

slime_java_bench_prepare build/java/frames-classes test/bench/LoaderBench.java test/bench/IslandBench.java \
    test/bench/FramesBench.java
cp=$SLIME_JAVA_CP

for run in ${BENCH_FRAMES_RUNS:-framed:8 framed:64 framed:hub whole:8 whole:hub}; do
    kind=${run%%:*} what=${run#*:}
    props=(-Dwhole=$([ "$kind" = whole ] && echo true || echo false))
    if [ "$what" = hub ]; then props+=(-Dworld=hub); else props+=(-Dislands="$what"); fi
    SLIME_PG_CONF=$(printf 'fsync = on\nsynchronous_commit = on\nfull_page_writes = on\nshared_buffers = 256MB') \
        SLIME_LOADER_VERIFY=off SLIME_PG_LISTEN=127.0.0.1 slime_cluster_start >&2
    slime_psql -c "CREATE EXTENSION slime"
    if [ "$kind" = deferred ]; then
        props+=(-Ddefer=true)
        slime_psql -c "ALTER DATABASE $PGDATABASE SET slime.loader_defer = on"
    fi
    export SLIME_JDBC_URL="jdbc:postgresql://127.0.0.1:$PGPORT/$PGDATABASE?user=$PGUSER"
    java "${props[@]}" -cp "$cp:build/java/frames-classes" dev.slime.asp.FramesBench
    slime_cluster_stop "$SLIME_PGTMP"
done
