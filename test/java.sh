#!/usr/bin/env bash
# test/java.sh — the AdvancedSlimePaper loader (clients/java).
#
# Installs the Debian packages it needs (default-jdk-headless,
# libpostgresql-jdbc-java, junit5, libzstd-jni-java: zstd-jni, the library ASP reads with), builds build/java/slime-asp-loader.jar
# (make java: javac and jar, against the test-only copy of ASP's API),
# starts a throwaway cluster that also listens on 127.0.0.1 (JDBC has no
# unix sockets) and runs the JUnit 5 tests (make java-test, Debian's console
# launcher): every corpus slime file and files slime_to_slimefile wrote
# saved and read back through the loader, history and rollback, loader
# instances in threads racing for one world's lease, saves racing slime_gc(),
# bad files, a save cut by pg_terminate_backend, the README's server developer
# path as a role with only its grants. Builds and installs the
# extension first (a no-op build under test/run-all.sh, which did it), so
# that the loader functions of this tree are the ones tested. Fails on any
# failed or aborted test.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$SLIME_ROOT"

SLIME_DEPS+=(default-jdk-headless libpostgresql-jdbc-java junit5 libzstd-jni-java)
slime_install_deps
slime_build_install
SLIME_CORPUS=$(slime_corpus)
export SLIME_CORPUS

make -s java PG_CONFIG="$SLIME_PG_CONFIG"
SLIME_PG_LISTEN=127.0.0.1 slime_cluster_start
slime_psql -c "CREATE EXTENSION slime"
export SLIME_JDBC_URL="jdbc:postgresql://127.0.0.1:$PGPORT/$PGDATABASE?user=$PGUSER"
make -s java-test PG_CONFIG="$SLIME_PG_CONFIG"
