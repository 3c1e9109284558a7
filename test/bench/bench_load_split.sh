#!/usr/bin/env bash
# test/bench/bench_load_split.sh — where a load's backend CPU goes (issue
# #34): the island of island_versions.sql, saved 5 times by the loader
# (slime.loader_defer off) and as a bytea row (its newest file), on a
# durable throwaway cluster on loopback. A Java client (test/bench/
# LoadSplit.java: pgJDBC, binary protocol, what a game server runs; each
# statement on a connection of its own, as a network runs either the
# loader or the bytea table) times the loader's load and the bytea row's
# select, then statements doing part of their work: the same without sending the file
# (octet_length), the world's frame rows read and copied by plain SQL, the
# world's row alone, and SELECT 1 (a call's floor). The differences split a
# load: sending the file, the loader's function against the bytea row's
# detoast. Installs what it needs (test/lib.sh slime_java_bench_prepare).
# Never fails on a number.
#   BENCH_CALLS: calls of a statement a slice (400); 12 slices each, 2 not counted.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cd "$SLIME_ROOT"

slime_java_bench_prepare build/java/loadsplit-classes test/bench/LoadSplit.java
corpus=$SLIME_CORPUS
SLIME_PG_CONF=$(printf 'fsync = on\nsynchronous_commit = on\nfull_page_writes = on\nshared_buffers = 256MB') \
    SLIME_LOADER_VERIFY=off SLIME_PG_LISTEN=127.0.0.1 slime_cluster_start >&2
slime_psql -X -q -v ON_ERROR_STOP=1 -v corpus="$corpus" -f test/bench/island_versions.sql >/dev/null
token=$(slime_psql -X -Atc "SELECT token FROM isl_worlds")
for k in 1 2 3 4 5; do
    slime_psql -X -q -c "SELECT slime_loader_save('isl', 'w', $token, (SELECT f FROM files WHERE k = $k), 10)" >/dev/null
done
slime_psql -X -q -c "UPDATE bb SET world = (SELECT f FROM files WHERE k = 5)" -c "VACUUM ANALYZE" >/dev/null
echo "island: 25 chunks; the loader's file $(slime_psql -X -Atc "SELECT octet_length(slime_loader_load('isl', 'w'))") bytes" \
    "($(slime_psql -X -Atc "SELECT count(*) FROM isl_frames") frame rows), the bytea row's" \
    "$(slime_psql -X -Atc "SELECT octet_length(world) FROM bb") bytes"
export SLIME_JDBC_URL="jdbc:postgresql://127.0.0.1:$PGPORT/$PGDATABASE?user=$PGUSER"
java -Dcalls="${BENCH_CALLS:-400}" -cp "$SLIME_JAVA_CP:build/java/loadsplit-classes" dev.slime.asp.LoadSplit \
    "SELECT world FROM bb WHERE name = 'w'" \
    "SELECT slime_loader_load('isl'::regclass, 'w')" \
    "SELECT octet_length(world || '\\x00'::bytea) FROM bb WHERE name = 'w'" \
    "SELECT octet_length(slime_loader_load('isl'::regclass, 'w') || '\\x00'::bytea)" \
    "SELECT sum(octet_length(frame || '\\x00'::bytea)) FROM isl_frames WHERE world = 'w'" \
    "SELECT octet_length(file || '\\x00'::bytea) FROM isl_worlds WHERE world = 'w'" \
    "SELECT 1"
