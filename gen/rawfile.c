/*
 * rawfile.c - the generator's own table file (docs/FORMAT.md, "Raw format"):
 * a fixed header, then every cell of both sides to move, then (unless the
 * rule set is "none") the ruled byte of every entry of both sides, then
 * (with a move limit) the DTC codes.  Version 3 stores that data as it is;
 * version 4, what gen writes unless --keep-raw, as one Zstandard stream,
 * which larger tables read back whole (no random access is needed, so the
 * stream is not cut into blocks).  Written atomically; read back with every
 * header field and the checksum of the data checked.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>
#include <zstd.h>

#include "atomic_file.h"
#include "cell.h"
#include "dtc.h"
#include "tb.h"
#include "tbformat.h"

/* Version 3: the index layout field, so that files numbered by another
 * layout are refused by name (version 2 files predate layout 2, and are
 * refused as another version, which gen rebuilds). */
enum { RAW_VERSION = 3, RAW_VERSION_ZSTD = 4, RAW_HEADER = 96, RAW_NAME = 36 };

/* Zstandard settings of version 4: level 9 (KRKNAA's raw file: 19.2 MB
 * plain, 2.78 MB at level 3, 2.45 MB at 9 in a quarter of a second, 2.37
 * MB at 15 in 1.4 s), a window of 1 MiB, which bounds what a reader's
 * decoder holds, and match tables of 2^18 entries, which keep the encoder
 * at 3.4 MB instead of 14 MB for 0.1% more bytes. */
enum { RAW_ZSTD_LEVEL = 9, RAW_ZSTD_WINDOW_LOG = 20, RAW_ZSTD_TABLE_LOG = 18 };

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
static void header_fill(const tb_table *t, int version, uint8_t h[RAW_HEADER])
{
    memset(h, 0, RAW_HEADER);
    memcpy(h + RAW_OFF_MAGIC, xqf_kind_magic(XQF_KIND_RAW), 8);
    xqf_put32(h + RAW_OFF_VERSION, (uint32_t)version);
    xqf_put32(h + RAW_OFF_WIDTH, (uint32_t)t->width);
    xq_material_name(&t->mat, (char *)h + RAW_OFF_NAME);
    xqf_put32(h + RAW_OFF_MAX_DTM, (uint32_t)(int32_t)t->max_dtm);
    xqf_put64(h + RAW_OFF_ENTRIES, t->ix.size);
    xqf_put32(h + RAW_OFF_GEN_REVISION, xqf_gen_revision((uint32_t)t->rules));
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

/* Ruled bytes of one side, packed or not. */
static void ruled_to_bytes(const tb_table *t, int side, uint64_t from, uint64_t n, uint8_t *out)
{
    for (uint64_t i = 0; i < n; i++) out[i] = (uint8_t)tb_ruled(t, side, from + i);
}

/* DTC codes of one side, packed or not, in file byte order. */
static void dtc_to_bytes(const tb_table *t, int side, uint64_t from, uint64_t n, uint8_t *out)
{
    for (uint64_t i = 0; i < n; i++) {
        unsigned v = tb_dtc(t, side, from + i);
        out[2 * i] = (uint8_t)v;
        out[2 * i + 1] = (uint8_t)(v >> 8);
    }
}

/* tb_raw_write converts the cells a chunk of entries at a time. */
enum { RAW_WRITE_CHUNK = 1 << 20 };

/* Version 4's encoder settings; deterministic: one thread, no content
 * size, no checksum (the header's covers the data).  0, or -1. */
static int raw_zstd_setup(ZSTD_CCtx *c)
{
    return ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, RAW_ZSTD_LEVEL)) ||
                   ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_windowLog, RAW_ZSTD_WINDOW_LOG)) ||
                   ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_hashLog, RAW_ZSTD_TABLE_LOG)) ||
                   ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_chainLog, RAW_ZSTD_TABLE_LOG)) ||
                   ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 0))
               ? -1
               : 0;
}

uint64_t tb_raw_write_work_bytes(void)
{
    /* the chunk buffer and its hash state (XXH64_state_t is 88 bytes; 256
     * allows for malloc's header), and for version 4 the output buffer and
     * the compression context, measured with these settings (the stable
     * API has no estimate) with room for malloc's headers */
    static uint64_t cctx;
    if (!cctx) {
        ZSTD_CCtx *c = ZSTD_createCCtx();
        uint8_t in[64] = {0}, out[256];
        ZSTD_outBuffer ob = {out, sizeof out, 0};
        ZSTD_inBuffer ib = {in, sizeof in, 0};
        if (c && !raw_zstd_setup(c) && !ZSTD_isError(ZSTD_compressStream2(c, &ob, &ib, ZSTD_e_continue)))
            cctx = ZSTD_sizeof_CCtx(c) + (64 << 10);
        else
            cctx = 64u << 20;
        ZSTD_freeCCtx(c);
    }
    return 2 * RAW_WRITE_CHUNK + 256 + ZSTD_CStreamOutSize() + cctx;
}

/* Where tb_raw_write's data goes: the file as it is, or through a
 * Zstandard stream. */
typedef struct {
    atomic_file *f;
    ZSTD_CCtx *z; /* NULL: plain */
    uint8_t *out;
    size_t cap;
} raw_sink;

static int sink_put(raw_sink *k, const void *p, size_t n, char err[XQ_ERR_MAX])
{
    if (!k->z) return atomic_write(k->f, p, n, err);
    ZSTD_inBuffer ib = {p, n, 0};
    while (ib.pos < ib.size) {
        ZSTD_outBuffer ob = {k->out, k->cap, 0};
        size_t r = ZSTD_compressStream2(k->z, &ob, &ib, ZSTD_e_continue);
        if (ZSTD_isError(r)) {
            snprintf(err, XQ_ERR_MAX, "compressing the raw file: %s", ZSTD_getErrorName(r));
            return -1;
        }
        if (ob.pos && atomic_write(k->f, k->out, ob.pos, err)) return -1;
    }
    return 0;
}

static int sink_end(raw_sink *k, char err[XQ_ERR_MAX])
{
    if (!k->z) return 0;
    ZSTD_inBuffer ib = {NULL, 0, 0};
    size_t left;
    do {
        ZSTD_outBuffer ob = {k->out, k->cap, 0};
        left = ZSTD_compressStream2(k->z, &ob, &ib, ZSTD_e_end);
        if (ZSTD_isError(left)) {
            snprintf(err, XQ_ERR_MAX, "compressing the raw file: %s", ZSTD_getErrorName(left));
            return -1;
        }
        if (ob.pos && atomic_write(k->f, k->out, ob.pos, err)) return -1;
    } while (left);
    return 0;
}

int tb_raw_write(const tb_table *t, const char *dir, int compact, char err[XQ_ERR_MAX])
{
    char path[4096];
    tb_raw_path(dir, &t->mat, path, sizeof path);
    uint8_t h[RAW_HEADER];
    header_fill(t, compact ? RAW_VERSION_ZSTD : RAW_VERSION, h);
    enum { CHUNK = RAW_WRITE_CHUNK };
    uint8_t *buf = malloc(2 * CHUNK);
    XXH64_state_t *st = XXH64_createState();
    raw_sink k = {0};
    if (compact) {
        k.cap = ZSTD_CStreamOutSize();
        k.out = malloc(k.cap);
        k.z = ZSTD_createCCtx();
    }
    int rc = -1;
    if (!st || !buf || (compact && (!k.out || !k.z))) {
        snprintf(err, XQ_ERR_MAX, "out of memory writing %.60s", path);
        goto out;
    }
    if (compact && raw_zstd_setup(k.z)) {
        snprintf(err, XQ_ERR_MAX, "cannot set up Zstandard for %.60s", path);
        goto out;
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
    for (int s = 0; s < 2 && t->rules != XQ_RULES_NONE; s++)
        for (uint64_t i = 0; i < t->ix.size; i += CHUNK) {
            uint64_t n = t->ix.size - i < CHUNK ? t->ix.size - i : CHUNK;
            ruled_to_bytes(t, s, i, n, buf);
            XXH64_update(st, buf, n);
        }
    for (int s = 0; s < 2 && t->limit; s++)
        for (uint64_t i = 0; i < t->ix.size; i += CHUNK) {
            uint64_t n = t->ix.size - i < CHUNK ? t->ix.size - i : CHUNK;
            dtc_to_bytes(t, s, i, n, buf);
            XXH64_update(st, buf, 2 * n);
        }
    xqf_put64(h + RAW_OFF_CHECKSUM, XXH64_digest(st));
    atomic_file f;
    k.f = &f;
    rc = atomic_open(&f, path, err);
    if (rc == 0) rc = atomic_write(&f, h, RAW_HEADER, err);
    for (int s = 0; s < 2 && rc == 0; s++)
        for (uint64_t i = 0; i < t->ix.size && rc == 0; i += CHUNK) {
            uint64_t n = t->ix.size - i < CHUNK ? t->ix.size - i : CHUNK;
            cells_to_bytes(t, s, i, n, buf);
            rc = sink_put(&k, buf, n * (size_t)t->width, err);
        }
    for (int s = 0; s < 2 && rc == 0 && t->rules != XQ_RULES_NONE; s++)
        for (uint64_t i = 0; i < t->ix.size && rc == 0; i += CHUNK) {
            uint64_t n = t->ix.size - i < CHUNK ? t->ix.size - i : CHUNK;
            ruled_to_bytes(t, s, i, n, buf);
            rc = sink_put(&k, buf, n, err);
        }
    for (int s = 0; s < 2 && rc == 0 && t->limit; s++)
        for (uint64_t i = 0; i < t->ix.size && rc == 0; i += CHUNK) {
            uint64_t n = t->ix.size - i < CHUNK ? t->ix.size - i : CHUNK;
            dtc_to_bytes(t, s, i, n, buf);
            rc = sink_put(&k, buf, 2 * n, err);
        }
    if (rc == 0) rc = sink_end(&k, err);
    if (rc == 0)
        rc = atomic_commit(&f, err);
    else
        atomic_abort(&f);
out:
    XXH64_freeState(st);
    ZSTD_freeCCtx(k.z);
    free(k.out);
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

/* Where tb_raw_read's data comes from: the file as it is, or a Zstandard
 * stream decoded as it is read. */
typedef struct {
    int fd;
    ZSTD_DCtx *z; /* NULL: plain */
    uint8_t *in;
    ZSTD_inBuffer ib;
    size_t cap;
    int eof;
    size_t frame_left; /* ZSTD_decompressStream's last hint: 0 at a frame's end */
} raw_source;

/* Reads exactly n bytes of data into p; -1 if the file ends first, does
 * not decode, or fails to read. */
static int source_get(raw_source *r, uint8_t *p, size_t n)
{
    if (!r->z) return read_all(r->fd, p, n);
    ZSTD_outBuffer ob = {p, n, 0};
    while (ob.pos < ob.size) {
        if (r->ib.pos == r->ib.size && !r->eof) {
            ssize_t got;
            do got = read(r->fd, r->in, r->cap);
            while (got < 0 && errno == EINTR);
            if (got < 0) return -1;
            r->eof = got == 0;
            r->ib = (ZSTD_inBuffer){r->in, (size_t)got, 0};
        }
        size_t before = ob.pos, used = r->ib.pos;
        size_t hint = ZSTD_decompressStream(r->z, &ob, &r->ib);
        if (ZSTD_isError(hint)) return -1;
        r->frame_left = hint;
        if (r->eof && ob.pos == before && r->ib.pos == used) return -1; /* ends early */
    }
    return 0;
}

/* Whether the stream ended exactly where the data did: its last frame is
 * complete and nothing follows. */
static int source_at_end(raw_source *r)
{
    if (!r->z) {
        uint8_t c;
        return read(r->fd, &c, 1) == 0;
    }
    if (r->frame_left != 0 || r->ib.pos != r->ib.size) return 0;
    uint8_t c;
    ssize_t got;
    do got = read(r->fd, &c, 1);
    while (got < 0 && errno == EINTR);
    return got == 0;
}

/* What a raw file's header says, once checked. */
typedef struct {
    uint32_t version, width, rules, limit;
    uint64_t entries;
} raw_header;

/* Opens DIR/NAME.xqtb of canonical material canon and checks its header
 * (magic, version, generator revision, index layout, name, width, rules,
 * limit): everything but the size and the data.  Returns the open file,
 * with the header in h and its fields in *rh, or -1 with a message. */
static int raw_open(const char *dir, const xq_material *canon, uint8_t h[RAW_HEADER], raw_header *rh, char *path,
                    size_t path_len, struct stat *sb, char err[XQ_ERR_MAX])
{
    char name[XQ_MATERIAL_MAX];
    xq_material_name(canon, name);
    tb_raw_path(dir, canon, path, path_len);
    /* O_NONBLOCK: a FIFO or device under a table's name must not hang the
     * open waiting for a writer; it is refused below as not a file. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        snprintf(err, XQ_ERR_MAX, "table %s: cannot open %.60s: %s", name, path, strerror(errno));
        return -1;
    }
    if (fstat(fd, sb) || !S_ISREG(sb->st_mode)) {
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
    uint32_t version = xqf_get32(h + RAW_OFF_VERSION);
    if (version != RAW_VERSION && version != RAW_VERSION_ZSTD) {
        snprintf(err, XQ_ERR_MAX, "table %s: %.50s is raw format version %u, not %d or %d: regenerate it", name, path,
                 version, RAW_VERSION, RAW_VERSION_ZSTD);
        goto fail;
    }
    uint32_t width = xqf_get32(h + RAW_OFF_WIDTH), rules = xqf_get32(h + RAW_OFF_REPETITION);
    if (xqf_get32(h + RAW_OFF_GEN_REVISION) != xqf_gen_revision(rules)) {
        snprintf(err, XQ_ERR_MAX, "table %s: %.60s was built by generator revision %u, not %u: regenerate it", name,
                 path, xqf_get32(h + RAW_OFF_GEN_REVISION), xqf_gen_revision(rules));
        goto fail;
    }
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
    if ((width != 1 && width != 2) || strcmp(fname, name) || !xq_rules_for_tables((int)rules) ||
        limit > DTC_MAX_LIMIT || reserved) {
        snprintf(err, XQ_ERR_MAX, "table %s: %.40s has a bad header (material %.16s, width %u, rules %u)", name, path,
                 fname, width & 0xFF, rules & 0xFF);
        goto fail;
    }
    *rh = (raw_header){version, width, rules, limit, xqf_get64(h + RAW_OFF_ENTRIES)};
    return fd;
fail:
    close(fd);
    return -1;
}

int tb_raw_read_info(const char *dir, const xq_material *m, tb_raw_info *info, char err[XQ_ERR_MAX])
{
    xq_material canon;
    xq_material_canonical(m, &canon);
    uint8_t h[RAW_HEADER];
    raw_header rh;
    char path[4096];
    struct stat sb;
    int fd = raw_open(dir, &canon, h, &rh, path, sizeof path, &sb, err);
    if (fd < 0) return -1;
    close(fd);
    *info = (tb_raw_info){(int)rh.rules, (int)rh.limit, rh.entries};
    return 0;
}

tb_table *tb_raw_read(const char *dir, const xq_material *m, char err[XQ_ERR_MAX])
{
    char path[4096], name[XQ_MATERIAL_MAX];
    xq_material canon;
    xq_material_canonical(m, &canon);
    xq_material_name(&canon, name);
    uint8_t h[RAW_HEADER];
    raw_header rh;
    struct stat sb;
    tb_table *t = NULL;
    int fd = raw_open(dir, &canon, h, &rh, path, sizeof path, &sb, err);
    if (fd < 0) return NULL;
    raw_source src = {.fd = fd};
    uint32_t version = rh.version, width = rh.width, rules = rh.rules, limit = rh.limit;
    t = tb_table_new(&canon, (int)width);
    if (!t) {
        snprintf(err, XQ_ERR_MAX, "table %s: out of memory", name);
        goto fail;
    }
    t->rules = (int)rules;
    t->limit = (int)limit;
    uint64_t bytes = t->ix.size * width, ruled_bytes = rules != XQ_RULES_NONE ? t->ix.size : 0;
    uint64_t dtc_bytes = limit ? 2 * t->ix.size : 0;
    /* version 3's size is exact; version 4's data must decode to as much */
    uint64_t data_bytes = 2 * (bytes + ruled_bytes + dtc_bytes);
    if (xqf_get64(h + RAW_OFF_ENTRIES) != t->ix.size ||
        (version == RAW_VERSION && (uint64_t)sb.st_size != RAW_HEADER + data_bytes)) {
        snprintf(err, XQ_ERR_MAX, "table %s: %.60s has the wrong size (truncated or not this version)", name, path);
        goto fail;
    }
    t->max_dtm = (int32_t)xqf_get32(h + RAW_OFF_MAX_DTM);
    src.fd = fd;
    if (version == RAW_VERSION_ZSTD) {
        src.cap = ZSTD_DStreamInSize();
        src.in = malloc(src.cap);
        src.z = ZSTD_createDCtx();
        /* a window beyond what the writer uses means damage, not a need */
        if (!src.in || !src.z || ZSTD_isError(ZSTD_DCtx_setParameter(src.z, ZSTD_d_windowLogMax, RAW_ZSTD_WINDOW_LOG)))
            goto nomem;
    }
    XXH64_state_t *st = XXH64_createState();
    if (!st) goto nomem;
    XXH64_reset(st, 0);
    XXH64_update(st, h, RAW_OFF_CHECKSUM);
    int bad = 0;
    for (int s = 0; s < 2 && !bad; s++) {
        uint8_t *c = t->cells[s];
        if (source_get(&src, c, bytes)) bad = 1;
        XXH64_update(st, c, bytes);
        if (width == 2) /* file order is little-endian */
            for (uint64_t i = 0; i < t->ix.size; i++) ((uint16_t *)c)[i] = (uint16_t)(c[2 * i] | c[2 * i + 1] << 8);
    }
    for (int s = 0; s < 2 && !bad && ruled_bytes; s++) {
        t->ruled[s] = malloc(ruled_bytes);
        if (!t->ruled[s] || source_get(&src, t->ruled[s], ruled_bytes))
            bad = 1;
        else
            XXH64_update(st, t->ruled[s], ruled_bytes);
    }
    for (int s = 0; s < 2 && !bad && dtc_bytes; s++) {
        t->dtc[s] = malloc(dtc_bytes);
        uint8_t *c = (uint8_t *)t->dtc[s];
        if (!c || source_get(&src, c, dtc_bytes)) {
            bad = 1;
            break;
        }
        XXH64_update(st, c, dtc_bytes);
        for (uint64_t i = 0; i < t->ix.size; i++) t->dtc[s][i] = (uint16_t)(c[2 * i] | c[2 * i + 1] << 8);
    }
    uint64_t sum = XXH64_digest(st);
    XXH64_freeState(st);
    if (bad || sum != xqf_get64(h + RAW_OFF_CHECKSUM) || !source_at_end(&src)) {
        snprintf(err, XQ_ERR_MAX, "table %s: %.60s is corrupt (%s)", name, path,
                 bad                                      ? "its data ends early or does not decode"
                 : sum != xqf_get64(h + RAW_OFF_CHECKSUM) ? "checksum mismatch"
                                                          : "data after its end");
        goto fail;
    }
    ZSTD_freeDCtx(src.z);
    free(src.in);
    close(fd);
    tb_ruled_pack(t);
    tb_dtc_pack(t);
    return t;
nomem:
    snprintf(err, XQ_ERR_MAX, "table %s: out of memory", name);
fail:
    ZSTD_freeDCtx(src.z);
    free(src.in);
    tb_table_free(t);
    close(fd);
    return NULL;
}
