/*
 * fuzz_bcodec5.c - libFuzzer target for version 5 block codec streams
 * (0xB5, value codec 5, version 4 with heightmaps cut out of the structure
 * and modelled: settled store entries): fuzz_bcodec.c's checks with
 * FUZZ_BCODEC_VERSION 5.
 */
#define FUZZ_BCODEC_VERSION 5
#include "fuzz_bcodec.c"
