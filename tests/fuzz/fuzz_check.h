/*
 * fuzz_check.h - what every libFuzzer target here shares: its entry point's
 * declaration (libFuzzer declares it nowhere we can include) and CHECK,
 * which aborts so that libFuzzer keeps the input that broke a property.
 */
#ifndef XQ_FUZZ_CHECK_H
#define XQ_FUZZ_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "check failed: %s (line %d)\n", #cond, __LINE__);                                          \
            abort();                                                                                                   \
        }                                                                                                              \
    } while (0)

#endif
