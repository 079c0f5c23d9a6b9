/*
 * bench_dtc.c - sizes of the DTC stream of a generated table: both sides
 * to move as the .xqc file stores them, and each side alone, which is what
 * a file would hold if the other side were derived by a one-ply search (as
 * Syzygy does for DTZ).  Blocks and LZ4HC as the writer uses them.
 *
 *   bench_dtc DIR MATERIAL
 *
 * Prints: legal entries, red-to-move bytes, black-to-move bytes (the two
 * sum to the .xqc blocks; the file adds its header, map and offsets).
 */
#include <lz4.h>
#include <lz4hc.h>
#include <stdio.h>
#include <stdlib.h>

#include "cell.h"
#include "compress.h"
#include "tb.h"

static uint64_t side_bytes(const tb_table *t, int side, uint32_t block)
{
    uint64_t blocks = (t->ix.size + block - 1) / block;
    uint8_t *buf = calloc(blocks, xqf_block_bytes(2, block));
    int sb = buf ? tb_symbol_stream(t, XQF_KIND_DTC, side, block, buf) : -1;
    if (sb < 0) exit(3);
    uint64_t per = xqf_block_bytes((uint32_t)sb, block), total = 0;
    int cap = LZ4_compressBound((int)per);
    char *out = malloc((size_t)cap);
    for (uint64_t b = 0; b < blocks; b++) {
        uint64_t first = b * block, n = t->ix.size - first < block ? t->ix.size - first : block;
        total += (uint64_t)LZ4_compress_HC((const char *)buf + b * per, out, (int)xqf_block_bytes((uint32_t)sb, n), cap,
                                           LZ4HC_CLEVEL_MAX);
    }
    free(out);
    free(buf);
    return total;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: bench_dtc DIR MATERIAL\n");
        return 2;
    }
    char err[XQ_ERR_MAX];
    xq_material m;
    if (xq_material_parse(argv[2], &m, err)) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    tb_set *set = tb_set_new(argv[1]);
    tb_table *t = tb_set_get(set, &m, err);
    if (!t || !t->limit) {
        fprintf(stderr, "%s\n", t ? "the table has no move limit" : err);
        return 1;
    }
    uint64_t legal = 0;
    for (int s = 0; s < 2; s++)
        for (uint64_t i = 0; i < t->ix.size; i++) legal += cell_get(t->cells[s], t->width, i) != CELL_ILLEGAL;
    printf("%llu %llu %llu\n", (unsigned long long)legal, (unsigned long long)side_bytes(t, RED, TB_DTM_BLOCK_ENTRIES),
           (unsigned long long)side_bytes(t, BLACK, TB_DTM_BLOCK_ENTRIES));
    tb_set_free(set);
    return 0;
}
