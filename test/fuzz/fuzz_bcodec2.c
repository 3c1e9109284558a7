/*
 * fuzz_bcodec2.c - libFuzzer target for version 2 block codec streams
 * (0xB2, value codec 2, settled store entries): fuzz_bcodec.c's checks
 * with FUZZ_BCODEC_VERSION 2.
 */
#define FUZZ_BCODEC_VERSION 2
#include "fuzz_bcodec.c"
