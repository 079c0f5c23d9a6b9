/*
 * rawfile.c - the generator's plain table file (docs/FORMAT.md, "Raw format"): a fixed
 * header, then every cell of both sides to move, then (unless the rule set
 * is "none") the ruled byte of every entry of both sides, then nothing.  Written
 * atomically; read back with every header field and the checksum checked.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "atomic_file.h"
#include "cell.h"
#include "dtc.h"
#include "tb.h"
#include "tbformat.h"

/* Version 3: the index layout field, so that files numbered by another
 * layout are refused by name (version 2 files predate layout 2, and are
 * refused as another version, which gen rebuilds). */
enum { RAW_VERSION = 3, RAW_HEADER = 96, RAW_NAME = 36 };

/* Header field offsets (bytes), as docs/FORMAT.md's raw header table. */
enum {
    RAW_OFF_MAGIC = 0,         /* 8: "XQTBRAW\0" */
    RAW_OFF_VERSION = 8,       /* u32: RAW_VERSION */
    RAW_OFF_WIDTH = 12,        /* u32: cell width, 1 or 2 */
    RAW_OFF_NAME = 16,         /* 36: canonical material, NUL-padded */
    RAW_OFF_MAX_DTM = 52,      /* i32: longest DTM, -1 if none */
    RAW_OFF_ENTRIES = 56,      /* u64: N, entries per side to move */
    RAW_OFF_GEN_REVISION = 64, /* u32 */
    RAW_OFF_REPETITION = 68,   /* u32: rule set */
    RAW_OFF_MOVE_LIMIT = 72,   /* u32: plies, 0 = none */
    RAW_OFF_INDEX_LAYOUT = 76, /* u32: XQF_INDEX_LAYOUT */
    RAW_OFF_RESERVED = 80,     /* 8 bytes, zero */
    RAW_OFF_CHECKSUM = 88,     /* u64: XXH64 of bytes [0, 88) and all data */
};

void tb_raw_path(const char *dir, const xq_material *m, char *buf, size_t len)
{
    char name[XQ_MATERIAL_MAX];
    xq_material_name(m, name);
    xqf_path(dir, name, XQF_KIND_RAW, buf, len);
}

/* The header but its checksum, which covers the data too. */
static void header_fill(const tb_table *t, uint8_t h[RAW_HEADER])
{
    memset(h, 0, RAW_HEADER);
    memcpy(h + RAW_OFF_MAGIC, xqf_kind_magic(XQF_KIND_RAW), 8);
    xqf_put32(h + RAW_OFF_VERSION, RAW_VERSION);
    xqf_put32(h + RAW_OFF_WIDTH, (uint32_t)t->width);
    xq_material_name(&t->mat, (char *)h + RAW_OFF_NAME);
    xqf_put32(h + RAW_OFF_MAX_DTM, (uint32_t)(int32_t)t->max_dtm);
    xqf_put64(h + RAW_OFF_ENTRIES, t->ix.size);
    xqf_put32(h + RAW_OFF_GEN_REVISION, TB_GEN_REVISION);
    xqf_put32(h + RAW_OFF_REPETITION, (uint32_t)t->rules);
    xqf_put32(h + RAW_OFF_MOVE_LIMIT, (uint32_t)t->limit);
    xqf_put32(h + RAW_OFF_INDEX_LAYOUT, XQF_INDEX_LAYOUT);
}

/* 16-bit values in file byte order (little-endian). */
static void u16_to_bytes(const uint16_t *v, uint64_t n, uint8_t *out)
{
    for (uint64_t i = 0; i < n; i++) {
        out[2 * i] = (uint8_t)v[i];
        out[2 * i + 1] = (uint8_t)(v[i] >> 8);
    }
}

/* Cells of one side in file byte order (little-endian), chunk by chunk. */
static void cells_to_bytes(const tb_table *t, int side, uint64_t from, uint64_t n, uint8_t *out)
{
    if (t->width == 1) {
        memcpy(out, (const uint8_t *)t->cells[side] + from, n);
        return;
    }
    u16_to_bytes((const uint16_t *)t->cells[side] + from, n, out);
}

/* tb_raw_write converts the cells a chunk of entries at a time. */
enum { RAW_WRITE_CHUNK = 1 << 20 };

uint64_t tb_raw_write_work_bytes(void)
{
    /* tb_raw_write's chunk buffer and its hash state (XXH64_state_t is 88 bytes; 256 allows for malloc's header) */
    return 2 * RAW_WRITE_CHUNK + 256;
}

int tb_raw_write(const tb_table *t, const char *dir, char err[XQ_ERR_MAX])
{
    char path[4096];
    tb_raw_path(dir, &t->mat, path, sizeof path);
    uint8_t h[RAW_HEADER];
    header_fill(t, h);
    enum { CHUNK = RAW_WRITE_CHUNK };
    uint8_t *buf = malloc(2 * CHUNK);
    XXH64_state_t *st = XXH64_createState();
    if (!st || !buf) {
        snprintf(err, XQ_ERR_MAX, "out of memory writing %.60s", path);
        free(buf);
        XXH64_freeState(st);
        return -1;
    }
    /* The checksum goes in the header, so the cells are converted twice:
     * once to hash, once to write; no second copy of the table. */
    XXH64_reset(st, 0);
    XXH64_update(st, h, RAW_OFF_CHECKSUM);
    for (int s = 0; s < 2; s++)
        for (uint64_t i = 0; i < t->ix.size; i += CHUNK) {
            uint64_t n = t->ix.size - i < CHUNK ? t->ix.size - i : CHUNK;
            cells_to_bytes(t, s, i, n, buf);
            XXH64_update(st, buf, n * (size_t)t->width);
        }
    for (int s = 0; s < 2 && t->rules != XQ_RULES_NONE; s++) XXH64_update(st, t->ruled[s], t->ix.size);
    for (int s = 0; s < 2 && t->limit; s++)
        for (uint64_t i = 0; i < t->ix.size; i += CHUNK) {
            uint64_t n = t->ix.size - i < CHUNK ? t->ix.size - i : CHUNK;
            u16_to_bytes(t->dtc[s] + i, n, buf);
            XXH64_update(st, buf, 2 * n);
        }
    xqf_put64(h + RAW_OFF_CHECKSUM, XXH64_digest(st));
    XXH64_freeState(st);
    atomic_file f;
    int rc = atomic_open(&f, path, err);
    if (rc == 0) rc = atomic_write(&f, h, RAW_HEADER, err);
    for (int s = 0; s < 2 && rc == 0; s++)
        for (uint64_t i = 0; i < t->ix.size && rc == 0; i += CHUNK) {
            uint64_t n = t->ix.size - i < CHUNK ? t->ix.size - i : CHUNK;
            cells_to_bytes(t, s, i, n, buf);
            rc = atomic_write(&f, buf, n * (size_t)t->width, err);
        }
    for (int s = 0; s < 2 && rc == 0 && t->rules != XQ_RULES_NONE; s++)
        rc = atomic_write(&f, t->ruled[s], t->ix.size, err);
    for (int s = 0; s < 2 && rc == 0 && t->limit; s++)
        for (uint64_t i = 0; i < t->ix.size && rc == 0; i += CHUNK) {
            uint64_t n = t->ix.size - i < CHUNK ? t->ix.size - i : CHUNK;
            u16_to_bytes(t->dtc[s] + i, n, buf);
            rc = atomic_write(&f, buf, 2 * n, err);
        }
    if (rc == 0)
        rc = atomic_commit(&f, err);
    else
        atomic_abort(&f);
    free(buf);
    return rc;
}

static int read_all(int fd, uint8_t *p, size_t n)
{
    while (n) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

tb_table *tb_raw_read(const char *dir, const xq_material *m, char err[XQ_ERR_MAX])
{
    char path[4096], name[XQ_MATERIAL_MAX];
    xq_material canon;
    xq_material_canonical(m, &canon);
    xq_material_name(&canon, name);
    tb_raw_path(dir, &canon, path, sizeof path);
    /* O_NONBLOCK: a FIFO or device under a table's name must not hang the
     * open waiting for a writer; it is refused below as not a file. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        snprintf(err, XQ_ERR_MAX, "table %s: cannot open %.60s: %s", name, path, strerror(errno));
        return NULL;
    }
    uint8_t h[RAW_HEADER];
    struct stat sb;
    tb_table *t = NULL;
    if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
        snprintf(err, XQ_ERR_MAX, "table %s: %.60s is not a regular file", name, path);
        goto fail;
    }
    /* back to blocking reads: the file is a regular one */
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    if (read_all(fd, h, RAW_HEADER)) {
        snprintf(err, XQ_ERR_MAX, "table %s: %.60s is truncated (no complete header)", name, path);
        goto fail;
    }
    if (memcmp(h + RAW_OFF_MAGIC, xqf_kind_magic(XQF_KIND_RAW), 8)) {
        snprintf(err, XQ_ERR_MAX, "table %s: %.60s is not an xqtb raw table", name, path);
        goto fail;
    }
    if (xqf_get32(h + RAW_OFF_VERSION) != RAW_VERSION) {
        snprintf(err, XQ_ERR_MAX, "table %s: %.50s is raw format version %u, not %d: regenerate it", name, path,
                 xqf_get32(h + RAW_OFF_VERSION), RAW_VERSION);
        goto fail;
    }
    if (xqf_get32(h + RAW_OFF_GEN_REVISION) != TB_GEN_REVISION) {
        snprintf(err, XQ_ERR_MAX, "table %s: %.60s was built by generator revision %u, not %d: regenerate it", name,
                 path, xqf_get32(h + RAW_OFF_GEN_REVISION), TB_GEN_REVISION);
        goto fail;
    }
    uint32_t width = xqf_get32(h + RAW_OFF_WIDTH), rules = xqf_get32(h + RAW_OFF_REPETITION);
    uint32_t limit = xqf_get32(h + RAW_OFF_MOVE_LIMIT);
    char fname[RAW_NAME + 1];
    memcpy(fname, h + RAW_OFF_NAME, RAW_NAME);
    fname[RAW_NAME] = 0;
    if (xqf_get32(h + RAW_OFF_INDEX_LAYOUT) != XQF_INDEX_LAYOUT) {
        snprintf(err, XQ_ERR_MAX, "table %s: %.50s numbers its entries by index layout %u, not %d: regenerate it", name,
                 path, xqf_get32(h + RAW_OFF_INDEX_LAYOUT), XQF_INDEX_LAYOUT);
        goto fail;
    }
    int reserved = xqf_get64(h + RAW_OFF_RESERVED) != 0;
    if ((width != 1 && width != 2) || strcmp(fname, name) || rules >= XQ_RULES_NB || limit > DTC_MAX_LIMIT ||
        reserved) {
        snprintf(err, XQ_ERR_MAX, "table %s: %.40s has a bad header (material %.16s, width %u, rules %u)", name, path,
                 fname, width & 0xFF, rules & 0xFF);
        goto fail;
    }
    t = tb_table_new(&canon, (int)width);
    if (!t) {
        snprintf(err, XQ_ERR_MAX, "table %s: out of memory", name);
        goto fail;
    }
    t->rules = (int)rules;
    t->limit = (int)limit;
    uint64_t bytes = t->ix.size * width, ruled_bytes = rules != XQ_RULES_NONE ? t->ix.size : 0;
    uint64_t dtc_bytes = limit ? 2 * t->ix.size : 0;
    if (xqf_get64(h + RAW_OFF_ENTRIES) != t->ix.size ||
        (uint64_t)sb.st_size != RAW_HEADER + 2 * (bytes + ruled_bytes + dtc_bytes)) {
        snprintf(err, XQ_ERR_MAX, "table %s: %.60s has the wrong size (truncated or not this version)", name, path);
        goto fail;
    }
    t->max_dtm = (int32_t)xqf_get32(h + RAW_OFF_MAX_DTM);
    XXH64_state_t *st = XXH64_createState();
    if (!st) goto nomem;
    XXH64_reset(st, 0);
    XXH64_update(st, h, RAW_OFF_CHECKSUM);
    int bad = 0;
    for (int s = 0; s < 2 && !bad; s++) {
        uint8_t *c = t->cells[s];
        if (read_all(fd, c, bytes)) bad = 1;
        XXH64_update(st, c, bytes);
        if (width == 2) /* file order is little-endian */
            for (uint64_t i = 0; i < t->ix.size; i++) ((uint16_t *)c)[i] = (uint16_t)(c[2 * i] | c[2 * i + 1] << 8);
    }
    for (int s = 0; s < 2 && !bad && ruled_bytes; s++) {
        t->ruled[s] = malloc(ruled_bytes);
        if (!t->ruled[s] || read_all(fd, t->ruled[s], ruled_bytes))
            bad = 1;
        else
            XXH64_update(st, t->ruled[s], ruled_bytes);
    }
    for (int s = 0; s < 2 && !bad && dtc_bytes; s++) {
        t->dtc[s] = malloc(dtc_bytes);
        uint8_t *c = (uint8_t *)t->dtc[s];
        if (!c || read_all(fd, c, dtc_bytes)) {
            bad = 1;
            break;
        }
        XXH64_update(st, c, dtc_bytes);
        for (uint64_t i = 0; i < t->ix.size; i++) t->dtc[s][i] = (uint16_t)(c[2 * i] | c[2 * i + 1] << 8);
    }
    uint64_t sum = XXH64_digest(st);
    XXH64_freeState(st);
    if (bad || sum != xqf_get64(h + RAW_OFF_CHECKSUM)) {
        snprintf(err, XQ_ERR_MAX, "table %s: %.60s is corrupt (checksum mismatch)", name, path);
        goto fail;
    }
    close(fd);
    return t;
nomem:
    snprintf(err, XQ_ERR_MAX, "table %s: out of memory", name);
fail:
    tb_table_free(t);
    close(fd);
    return NULL;
}
