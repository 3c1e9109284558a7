/*
 * fuzz_bcodec3.c - libFuzzer target for version 3 block codec streams
 * (0xB3, value codec 3, copy and literal tokens: settled store entries):
 * fuzz_bcodec.c's checks with FUZZ_BCODEC_VERSION 3.
 */
#define FUZZ_BCODEC_VERSION 3
#include "fuzz_bcodec.c"
