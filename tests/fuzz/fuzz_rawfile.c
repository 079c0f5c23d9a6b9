/*
 * fuzz_rawfile.c - libFuzzer target for the generator's raw table reader
 * (gen/rawfile.c, tb_raw_read), which `gen` uses to load subtables and
 * `stats` and `verify` to read tables: version 3 (the data as it is) and
 * version 4 (the data as a Zstandard stream).
 *
 * The input is written as KRK.xqtb in a private directory and read back.
 * Every input must either load or be refused with a message; ASan and
 * UBSan check that none makes the reader crash, read out of bounds or
 * leak.  A loaded table must hold every array its header promises.  The
 * checksum covers the decompressed data, so mutations rarely load: what
 * this exercises is the header checks and the stream decoding, with its
 * ends (cut short, trailing bytes, frames that decode to too much).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tb.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[256], path[512];
static xq_material krk;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    snprintf(dir, sizeof dir, "/tmp/fuzz_rawfile.%d", (int)getpid());
    if (mkdir(dir, 0700) && access(dir, W_OK)) abort();
    snprintf(path, sizeof path, "%s/KRK.xqtb", dir);
    char err[XQ_ERR_MAX];
    if (xq_material_parse("KRK", &krk, err)) abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    if (size && fwrite(data, 1, size, f) != size) abort();
    if (fclose(f)) abort();
    char err[XQ_ERR_MAX] = "";
    tb_table *t = tb_raw_read(dir, &krk, err);
    if (!t) {
        if (!err[0]) abort(); /* a refusal always says why */
        return 0;
    }
    if (!t->cells[0] || !t->cells[1]) abort();
    if (t->rules != XQ_RULES_NONE && !tb_has_ruled(t)) abort();
    if (t->limit && !tb_has_dtc(t)) abort();
    tb_table_free(t);
    return 0;
}
