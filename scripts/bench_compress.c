/*
 * bench_compress.c - rewrites a generated table's compressed files with a
 * given block size and codec, and dumps the exact symbol streams the codec
 * sees, so the shell script can compare block sizes, codecs and
 * general-purpose compressors on the same data.
 *
 *   bench_compress SRC_DIR MATERIAL OUT_DIR WDL_BLOCK_ENTRIES DTM_BLOCK_ENTRIES [CODEC [LEVEL]]
 *
 * A block size of 0 is the writer's choice (for WDL, per file).
 * CODEC is lz4 or zstd (default: the writer's), LEVEL the codec's level
 * (default: the writer's).  Prints: legal entries, WDL, DTM and DTC file
 * bytes (DTC 0 without a move limit), and the seconds compression took;
 * writes OUT_DIR/NAME.xqw, .xqd, .xqc, and NAME.wdl.sym, NAME.dtm.sym and
 * (with DTC) NAME.dtc.sym: both sides' symbols before compression, both
 * sides stored, each with a .block file giving one block's bytes (WDL's
 * in the block size of the WDL file written).  BENCH_THREADS=N in the
 * environment compresses on N threads (default: every core).  Only
 * the table itself is written: bench_probe probes positions of that
 * material alone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compress.h"
#include "tb.h"

/* Writes both sides' symbols of `kind` to path, and the bytes of one
 * block to path.block (text: scripts/bench-zparams reads it). */
static int dump(const tb_table *t, int kind, uint32_t block, const char *path)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    int sb = -1;
    for (int s = 0; s < 2; s++) {
        uint64_t blocks = (t->ix.size + block - 1) / block;
        uint8_t *buf = calloc(blocks, xqf_block_bytes(2, block));
        sb = buf ? tb_symbol_stream(t, kind, s, block, buf) : -1;
        if (sb < 0) {
            free(buf);
            fclose(f);
            return -1;
        }
        fwrite(buf, 1, blocks * xqf_block_bytes((uint32_t)sb, block), f);
        free(buf);
    }
    char side_path[4096];
    snprintf(side_path, sizeof side_path, "%s.block", path);
    FILE *b = fopen(side_path, "w");
    if (!b) {
        fclose(f);
        return -1;
    }
    fprintf(b, "%llu\n", (unsigned long long)xqf_block_bytes((uint32_t)sb, block));
    return fclose(b) | fclose(f);
}

/* The block size (entries) in the header of the WDL file written to dir,
 * TB_WDL_BLOCK_ENTRIES if it cannot be read. */
static uint32_t written_block_entries(const char *dir, const tb_table *t)
{
    char path[4096];
    uint8_t h[XQF_HEADER_SIZE];
    tb_compressed_path(dir, &t->mat, XQF_KIND_WDL, path, sizeof path);
    FILE *f = fopen(path, "rb");
    size_t got = f ? fread(h, 1, sizeof h, f) : 0;
    if (f) fclose(f);
    uint32_t b = got == sizeof h ? xqf_get32(h + XQF_OFF_BLOCK_ENTRIES) : 0;
    return b ? b : TB_WDL_BLOCK_ENTRIES;
}

int main(int argc, char **argv)
{
    if (argc < 6 || argc > 9) {
        fprintf(stderr, "usage: bench_compress SRC_DIR MATERIAL OUT_DIR WDL_BLOCK DTM_BLOCK [lz4|zstd [LEVEL "
                        "[auto|both|red|black]]]\n");
        return 2;
    }
    char err[XQ_ERR_MAX], name[XQ_MATERIAL_MAX], path[4096];
    xq_material m;
    if (xq_material_parse(argv[2], &m, err)) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    tb_set *set = tb_set_new(argv[1]);
    tb_table *t = tb_set_get(set, &m, err);
    if (!t) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    tb_compress_options o = {.wdl_block_entries = (uint32_t)atol(argv[4]),
                             .dtm_block_entries = (uint32_t)atol(argv[5])};
    if (argc > 6) {
        if (strcmp(argv[6], "lz4") && strcmp(argv[6], "zstd")) {
            fprintf(stderr, "unknown codec %s (lz4 or zstd)\n", argv[6]);
            return 2;
        }
        o.wdl_codec = o.dtm_codec = !strcmp(argv[6], "lz4") ? XQF_CODEC_LZ4 : XQF_CODEC_ZSTD;
    }
    if (argc > 7) o.level = atoi(argv[7]);
    if (argc > 8) {
        static const char *const choice[] = {"auto", "both", "red", "black"};
        o.searched = -1;
        for (int k = 0; k < 4; k++)
            if (!strcmp(argv[8], choice[k])) o.searched = TB_SEARCH_AUTO + k;
        if (o.searched < 0) {
            fprintf(stderr, "unknown searched-side choice %s (auto, both, red or black)\n", argv[8]);
            return 2;
        }
    }
    /* BENCH_THREADS=1 makes callgrind's counts repeatable: with several
     * threads a context's tables are reset as its blocks' roles come */
    const char *threads = getenv("BENCH_THREADS");
    if (threads) o.threads = atoi(threads);
    tb_compress_report r;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (tb_compress_write(t, argv[3], &o, &r, err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    xq_material_name(&t->mat, name);
    snprintf(path, sizeof path, "%s/%s.wdl.sym", argv[3], name);
    /* WDL's stream in the block size of the file written (its header's B),
     * DTM's and DTC's in the default when the writer chose */
    if (dump(t, XQF_KIND_WDL, o.wdl_block_entries ? o.wdl_block_entries : written_block_entries(argv[3], t), path))
        return 1;
    snprintf(path, sizeof path, "%s/%s.dtm.sym", argv[3], name);
    if (dump(t, XQF_KIND_DTM, o.dtm_block_entries ? o.dtm_block_entries : TB_DTM_BLOCK_ENTRIES, path)) return 1;
    snprintf(path, sizeof path, "%s/%s.dtc.sym", argv[3], name);
    if (tb_has_dtc(t) && dump(t, XQF_KIND_DTC, o.dtm_block_entries ? o.dtm_block_entries : TB_DTM_BLOCK_ENTRIES, path))
        return 1;
    printf("%llu %llu %llu %llu %.3f\n", (unsigned long long)r.legal_entries, (unsigned long long)r.wdl_bytes,
           (unsigned long long)r.dtm_bytes, (unsigned long long)r.dtc_bytes,
           (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    tb_set_free(set);
    return 0;
}
