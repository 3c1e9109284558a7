#!/usr/bin/env bash
# Corpus test: import, check and round-trip every region file of the shared
# corpus through the core library (test/corpus/corpus_test.c), read in place.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus="${SLIME_CORPUS:-$(cd .. && pwd)/shared/corpus}"
if [ ! -d "$corpus" ]; then
	echo "*** CORPUS MISSING: $corpus does not exist; set SLIME_CORPUS ***" >&2
	echo "0 passed, 1 failed"
	exit 1
fi
make -s build/corpus_test
./build/corpus_test "$corpus" | grep -v '^  note ' || exit 1
# blocks and biomes of every corpus chunk, against an independent decoder
make -s build/blocks_check
SLIME_CORPUS="$corpus" ./build/blocks_check "$corpus" | tail -3
# slime files: the corpus .slime files read, 1.18+ regions through slime files and back
make -s build/slimefile_corpus
./build/slimefile_corpus "$corpus" || exit 1
# schematics: every corpus schematic pasted into 1.18 / 1.13 / 1.16 corpus worlds,
# read back block by block, extracted back, and the box restored
make -s build/schem_check
./build/schem_check "$corpus" | grep -v '^ok ' || exit 1
# maps: one world of each era rendered, its PNG decoded by libspng, sizes and colours checked
make -s build/render_check
./build/render_check "$corpus" || exit 1
# (the block codec's corpus round trip, build/bench_bcodec --check, is the
# suite "bcodec" of test/run-all.sh's second lane: CPU work beside the timed suites)
