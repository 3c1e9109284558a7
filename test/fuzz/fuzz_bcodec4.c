/*
 * fuzz_bcodec4.c - libFuzzer target for version 4 block codec streams
 * (0xB4, value codec 4, version 3's tokens modelled under which references
 * agree: settled store entries): fuzz_bcodec.c's checks with
 * FUZZ_BCODEC_VERSION 4.
 */
#define FUZZ_BCODEC_VERSION 4
#include "fuzz_bcodec.c"
