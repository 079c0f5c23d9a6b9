/*
 * bench_zparams.c - what Zstandard's parameters cost and save on a table's
 * symbol streams, block by block as the writer compresses them.
 *
 *   bench_zparams BLOCK_BYTES SETTINGS FILE...
 *
 * FILEs are symbol streams as bench_compress dumps them (NAME.dtm.sym,
 * NAME.dtc.sym: blocks of BLOCK_BYTES back to back, the last one padded).
 * SETTINGS is a comma-separated list of name=value: level, slog
 * (searchLog), tlen (targetLength), mml (minMatch), strat (strategy:
 * 7 btopt, 8 btultra, ...); level alone is the codec's own setting, as
 * gen/compress.c starts from.  Each block is compressed alone (a frame
 * without checksum, content size or dictionary ID, as the files hold
 * them) on one thread, three times over; prints per file the compressed
 * bytes, the best of the three rounds' CPU seconds, and the mean
 * microseconds a block takes to decode, the blocks taken in a scrambled
 * order (a cold probe decodes a block it did not decode last).
 * dict=BYTES trains a dictionary of at most BYTES on 256 of the blocks
 * spread evenly, as gen/compress.c's train_dict does for WDL files, and
 * compresses every block with it, the other settings applied to the
 * dictionary's parameters (which a block compressed with it takes: the
 * writer's WDL files, docs/BENCHMARKS.md "A dictionary for WDL files").
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_createCDict_advanced2 */
#define ZDICT_STATIC_LINKING_ONLY
#include <zdict.h>
#include <zstd.h>

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int set(ZSTD_CCtx *c, ZSTD_cParameter p, const char *value)
{
    return ZSTD_isError(ZSTD_CCtx_setParameter(c, p, atoi(value))) ? -1 : 0;
}

/* The context SETTINGS describe, or NULL (a message printed). */
static ZSTD_CCtx *context_of(const char *settings, ZSTD_CCtx_params *params, size_t *dict_bytes)
{
    static const struct {
        const char *name;
        ZSTD_cParameter p;
    } names[] = {{"level", ZSTD_c_compressionLevel},
                 {"slog", ZSTD_c_searchLog},
                 {"tlen", ZSTD_c_targetLength},
                 {"mml", ZSTD_c_minMatch},
                 {"strat", ZSTD_c_strategy}};
    ZSTD_CCtx *c = ZSTD_createCCtx();
    if (!c || set(c, ZSTD_c_contentSizeFlag, "0") || set(c, ZSTD_c_checksumFlag, "0") ||
        set(c, ZSTD_c_dictIDFlag, "0")) {
        fprintf(stderr, "bench_zparams: no Zstandard context\n");
        ZSTD_freeCCtx(c);
        return NULL;
    }
    char copy[256];
    snprintf(copy, sizeof copy, "%s", settings);
    for (char *item = strtok(copy, ","); item; item = strtok(NULL, ",")) {
        char *eq = strchr(item, '=');
        size_t k = 0;
        if (eq && !strncmp(item, "dict=", 5) && atol(eq + 1) > 0) {
            *dict_bytes = (size_t)atol(eq + 1);
            continue;
        }
        if (eq) {
            *eq = 0;
            while (k < sizeof names / sizeof names[0] && strcmp(names[k].name, item)) k++;
        }
        if (!eq || k == sizeof names / sizeof names[0] || set(c, names[k].p, eq + 1) ||
            ZSTD_isError(ZSTD_CCtxParams_setParameter(params, names[k].p, atoi(eq + 1)))) {
            fprintf(stderr, "bench_zparams: bad setting %s (level, slog, tlen, mml, strat =value; dict=BYTES)\n", item);
            ZSTD_freeCCtx(c);
            return NULL;
        }
    }
    return c;
}

static unsigned char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc(n ? (size_t)n : 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n) {
        fclose(f);
        *size = (size_t)n;
        return buf;
    }
    if (f) fclose(f);
    free(buf);
    fprintf(stderr, "bench_zparams: cannot read %s\n", path);
    return NULL;
}

/* A dictionary of at most cap bytes trained as the writer trains a WDL
 * file's (train_dict: fastCover, d 8, 4 steps, a 2^16 frequency table)
 * on 256 of the blocks spread evenly; its size, 0 if none came out. */
static size_t train(const unsigned char *in, size_t size, size_t block, unsigned char *dict, size_t cap)
{
    size_t blocks = (size + block - 1) / block, every = blocks > 256 ? blocks / 256 : 1, n = 0, at = 0;
    unsigned char *samples = malloc(size ? size : 1);
    size_t *sizes = malloc(blocks ? blocks * sizeof *sizes : 1);
    size_t got = 0;
    if (samples && sizes) {
        for (size_t k = 0; k < blocks; k += every) {
            size_t len = size - k * block < block ? size - k * block : block;
            memcpy(samples + at, in + k * block, len);
            sizes[n++] = len;
            at += len;
        }
        ZDICT_fastCover_params_t p;
        memset(&p, 0, sizeof p);
        p.d = 8;
        p.steps = 4;
        p.f = 16;
        p.accel = 1;
        p.nbThreads = 1;
        p.zParams.compressionLevel = 3;
        size_t len = ZDICT_optimizeTrainFromBuffer_fastCover(dict, cap, samples, sizes, (unsigned)n, &p);
        got = ZDICT_isError(len) ? 0 : len;
    }
    free(samples);
    free(sizes);
    return got;
}

static int bench_file(ZSTD_CCtx *c, ZSTD_DCtx *d, const ZSTD_CCtx_params *params, size_t dict_cap, const char *path,
                      size_t block)
{
    size_t size, bound = ZSTD_compressBound(block);
    unsigned char *in = read_file(path, &size);
    if (!in) return -1;
    size_t blocks = (size + block - 1) / block;
    unsigned char *out = malloc(blocks * bound), *back = malloc(block);
    size_t *len = malloc(blocks * sizeof *len), *order = malloc(blocks * sizeof *order);
    static unsigned char dict[1 << 16];
    size_t dict_len = 0;
    ZSTD_CDict *cdict = NULL;
    ZSTD_DDict *ddict = NULL;
    int rc = -1;
    if (!out || !back || !len || !order) {
        fprintf(stderr, "bench_zparams: out of memory\n");
        goto done;
    }
    if (dict_cap) {
        dict_len = train(in, size, block, dict, dict_cap < sizeof dict ? dict_cap : sizeof dict);
        cdict = dict_len ? ZSTD_createCDict_advanced2(dict, dict_len, ZSTD_dlm_byCopy, ZSTD_dct_auto, params,
                                                      ZSTD_defaultCMem)
                         : NULL;
        ddict = dict_len ? ZSTD_createDDict(dict, dict_len) : NULL;
        if (dict_len && (!cdict || !ddict || ZSTD_isError(ZSTD_CCtx_refCDict(c, cdict)) ||
                         ZSTD_isError(ZSTD_DCtx_refDDict(d, ddict)))) {
            fprintf(stderr, "bench_zparams: no dictionary\n");
            goto done;
        }
    }
    double best = 1e30;
    unsigned long long bytes = 0;
    for (int round = 0; round < 3; round++) {
        double t0 = cpu_seconds();
        bytes = 0;
        for (size_t k = 0; k < blocks; k++) {
            size_t n = size - k * block < block ? size - k * block : block;
            len[k] = ZSTD_compress2(c, out + k * bound, bound, in + k * block, n);
            if (ZSTD_isError(len[k])) {
                fprintf(stderr, "bench_zparams: %s\n", ZSTD_getErrorName(len[k]));
                goto done;
            }
            bytes += len[k];
        }
        double t = cpu_seconds() - t0;
        if (t < best) best = t;
    }
    /* decode in a scrambled order (a fixed xorshift, the same every run) */
    uint64_t r = 0x9E3779B97F4A7C15ull;
    for (size_t k = 0; k < blocks; k++) order[k] = k;
    for (size_t k = blocks; k > 1; k--) {
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
        size_t j = (size_t)(r % k), t = order[k - 1];
        order[k - 1] = order[j], order[j] = t;
    }
    double t0 = cpu_seconds();
    for (size_t k = 0; k < blocks; k++) {
        size_t got = ZSTD_decompressDCtx(d, back, block, out + order[k] * bound, len[order[k]]);
        if (ZSTD_isError(got)) {
            fprintf(stderr, "bench_zparams: %s\n", ZSTD_getErrorName(got));
            goto done;
        }
    }
    double decode = cpu_seconds() - t0;
    printf("%s %llu bytes %.3f s %.2f us/block decoded (dictionary %zu bytes)\n", path, bytes, best,
           blocks ? 1e6 * decode / (double)blocks : 0, dict_len);
    rc = 0;
done:
    ZSTD_CCtx_refCDict(c, NULL);
    ZSTD_DCtx_refDDict(d, NULL);
    ZSTD_freeCDict(cdict);
    ZSTD_freeDDict(ddict);
    free(in), free(out), free(back), free(len), free(order);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 4 || atol(argv[1]) <= 0) {
        fprintf(stderr, "usage: bench_zparams BLOCK_BYTES SETTINGS FILE...  (SETTINGS: level=12,slog=2,...)\n");
        return 2;
    }
    ZSTD_CCtx_params *params = ZSTD_createCCtxParams();
    size_t dict_cap = 0;
    ZSTD_CCtx *c = params ? context_of(argv[2], params, &dict_cap) : NULL;
    ZSTD_DCtx *d = ZSTD_createDCtx();
    if (!c || !d) return 1;
    int rc = 0;
    for (int i = 3; i < argc; i++) rc |= bench_file(c, d, params, dict_cap, argv[i], (size_t)atol(argv[1]));
    ZSTD_freeCCtxParams(params);
    ZSTD_freeCCtx(c);
    ZSTD_freeDCtx(d);
    return rc ? 1 : 0;
}
