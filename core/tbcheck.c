/*
 * tbcheck.c - checking a compressed file whole (tbcheck.h).
 *
 * Blocks lie back to back after the metadata, so they are read in large
 * runs of whole blocks (CHUNK bytes or one block, whichever is more) and
 * hashed in place: one read per few megabytes, and the checksum speed of
 * XXH64 is what bounds the whole (docs/BENCHMARKS.md, "xqtb check").
 */
#include "tbcheck.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { CHUNK = 8 << 20 };

int xqf_read_at(int fd, void *buf, size_t n, uint64_t off)
{
    uint8_t *p = buf;
    while (n) {
        ssize_t r = pread(fd, p, n, (off_t)off);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        p += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
    return 0;
}

static int fail(xqf_check_report *r, int status, const char *why)
{
    r->status = status;
    if (why && why != r->why) snprintf(r->why, sizeof r->why, "%s", why);
    return status;
}

/* Checks 10-11 of docs/FORMAT.md on one block: it decompresses to exactly
 * its symbols, and each symbol is one a reader accepts there.  A block of
 * the stored side is folded into `bounds` (NULL: not wanted), the search
 * bounds as the blocks give them (check 12).  side_first holds the symbols of
 * the block's side's first block (first_bytes of them, 0 before it is
 * decoded), which a block of no bytes repeats; out is that block's symbols
 * when it is the side's first. */
static int block_content_ok(const xqf_info *f, const void *ddict, uint64_t k, const uint8_t *data, uint8_t *out,
                            void **dctx, uint8_t *bounds, uint8_t *side_first, uint64_t *first_bytes)
{
    uint64_t len = xqf_block_end(f, k) - xqf_block_begin(f, k), want = xqf_block_symbol_bytes(f, k);
    if (xqf_block_source(f, k) != k) {
        if (want != *first_bytes) return 0; /* only a full block may repeat the first (a full one) */
        memcpy(out, side_first, (size_t)want);
    } else if (xqf_block_decode(f, ddict, data, len, out, want, dctx) != XQF_OK) {
        return 0;
    } else if (k % f->blocks == 0) {
        memcpy(side_first, out, (size_t)want);
        *first_bytes = want;
    }
    if (f->symbol_bytes == 0) return xqf_wdl_bytes_sound(out, want);
    /* a block of the stored side never says "search" */
    int stored = (int)(k / f->blocks) != f->searched;
    uint64_t first = (k % f->blocks) * f->block_entries;
    for (uint64_t i = 0; i + f->symbol_bytes <= want; i += f->symbol_bytes) {
        unsigned sym = f->symbol_bytes == 1 ? out[i] : (unsigned)out[i] | (unsigned)out[i + 1] << 8;
        if (sym >= f->nsymbols) return 0;
        unsigned v = (unsigned)f->map[2 * sym] | (unsigned)f->map[2 * sym + 1] << 8;
        if (stored && xqf_is_search(f->kind, v)) return 0;
        if (stored && bounds) xqf_bounds_fold(bounds, f->kind, f->entries, first + i / f->symbol_bytes, v);
    }
    return 1;
}

/* Check 12, first part, at every depth: the search bounds decompress to
 * their size (the library does so when it opens the file).  Into *raw
 * (malloc'd; NULL for a file without them). */
static int bounds_decode_ok(xqf_check_report *r, uint8_t **raw)
{
    *raw = NULL;
    if (!r->info.bounds_bytes) return XQF_OK;
    if (!(*raw = malloc((size_t)xqf_bounds_raw_bytes(r->info.kind, r->info.entries))))
        return fail(r, XQF_NOMEM, "out of memory");
    int rc = xqf_bounds_decode(&r->info, *raw);
    if (rc == XQF_OK) return XQF_OK;
    free(*raw);
    *raw = NULL;
    return fail(r, rc, rc == XQF_NOMEM ? "out of memory" : "the search bounds are damaged");
}

/* Every block, in runs of whole blocks read at once. */
static int check_blocks(int fd, xqf_check_report *r, int deep, const uint8_t *bounds)
{
    const xqf_info *f = &r->info;
    /* check 12, second part (deep): the bounds are the stored side's */
    uint8_t *again = deep && bounds ? malloc((size_t)xqf_bounds_raw_bytes(f->kind, f->entries)) : NULL;
    if (deep && bounds && !again) return fail(r, XQF_NOMEM, "out of memory");
    if (again) xqf_bounds_clear(again, f->kind, f->entries);
    uint64_t nblocks = 2 * (uint64_t)f->blocks;
    size_t cap = CHUNK + (size_t)xqf_max_compressed_bytes();
    /* the decoding context is made here, so that running out of memory
     * is never mistaken for a damaged block */
    void *dctx = deep && f->codec == XQF_CODEC_ZSTD ? xqf_dctx_new() : NULL;
    uint8_t *buf = malloc(cap), *out = deep ? malloc(2 * (size_t)XQF_MAX_BLOCK_BYTES) : NULL;
    uint8_t *first = out ? out + XQF_MAX_BLOCK_BYTES : NULL; /* the side's first block, decoded */
    uint64_t first_bytes = 0;
    if (!buf || (deep && !out) || (deep && f->codec == XQF_CODEC_ZSTD && !dctx)) {
        free(buf);
        free(out);
        free(again);
        xqf_dctx_free(dctx);
        return fail(r, XQF_NOMEM, "out of memory");
    }
    /* The dictionary is digested at every depth: whether Zstandard accepts
     * it is check 9, made before any block is read (docs/FORMAT.md), which
     * the library makes when it opens the file; a quick check that passed
     * a file the library then refuses would be no check. */
    void *ddict = NULL;
    int drc = f->codec == XQF_CODEC_ZSTD ? xqf_ddict_new(f, &ddict) : XQF_OK;
    if (drc != XQF_OK) {
        free(buf);
        free(out);
        free(again);
        xqf_dctx_free(dctx);
        return fail(r, drc, drc == XQF_NOMEM ? "out of memory" : "the codec dictionary is damaged");
    }
    uint64_t k = 0, first_bad = 0;
    while (k < nblocks) {
        /* blocks k .. e-1: at least one, then as many as fit in CHUNK */
        uint64_t begin = xqf_block_begin(f, k), e = k + 1;
        while (e < nblocks && xqf_block_end(f, e) - begin <= CHUNK) e++;
        uint64_t len = xqf_block_end(f, e - 1) - begin;
        if (xqf_read_at(fd, buf, (size_t)len, begin)) {
            free(buf);
            free(out);
            free(again);
            xqf_dctx_free(dctx);
            xqf_ddict_free(ddict);
            snprintf(r->why, sizeof r->why, "cannot read block %llu (file shrank while checked?)",
                     (unsigned long long)k);
            return fail(r, XQF_CORRUPT, NULL);
        }
        r->bytes += len;
        for (; k < e; k++) {
            const uint8_t *data = buf + (xqf_block_begin(f, k) - begin);
            r->blocks++;
            if (k % f->blocks == 0) first_bytes = 0; /* a new side */
            if (xqf_block_sound(f, k, data) &&
                (!deep || block_content_ok(f, ddict, k, data, out, &dctx, again, first, &first_bytes)))
                continue;
            if (!r->bad_blocks++) first_bad = k;
        }
    }
    free(buf);
    free(out);
    xqf_dctx_free(dctx);
    xqf_ddict_free(ddict);
    int bounds_differ =
        again && !r->bad_blocks && memcmp(again, bounds, (size_t)xqf_bounds_raw_bytes(f->kind, f->entries));
    free(again);
    if (bounds_differ) return fail(r, XQF_CORRUPT, "the search bounds disagree with the blocks");
    if (!r->bad_blocks) return XQF_OK;
    snprintf(r->why, sizeof r->why, "%llu of %llu blocks damaged, the first block %llu (%s to move, entries from %llu)",
             (unsigned long long)r->bad_blocks, (unsigned long long)nblocks, (unsigned long long)first_bad,
             first_bad < f->blocks ? "red" : "black", (unsigned long long)((first_bad % f->blocks) * f->block_entries));
    return fail(r, XQF_CORRUPT, NULL);
}

int xqf_check_file(const char *path, int kind, const char *name, uint64_t entries, int deep, xqf_check_report *r)
{
    memset(r, 0, sizeof *r);
    /* O_NONBLOCK: a FIFO under a table's name must not hang the check */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        snprintf(r->why, sizeof r->why, "%s", errno == ENOENT ? "missing" : strerror(errno));
        return fail(r, errno == ENOENT ? XQF_MISSING : XQF_IO, NULL);
    }
    struct stat sb;
    if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
        close(fd);
        return fail(r, XQF_IO, "not a regular file");
    }
    uint8_t h[XQF_HEADER_SIZE];
    uint8_t *meta = NULL;
    int rc = XQF_CORRUPT;
    if ((uint64_t)sb.st_size < XQF_HEADER_SIZE || xqf_read_at(fd, h, sizeof h, 0)) {
        snprintf(r->why, sizeof r->why, "only %llu bytes, shorter than a header", (unsigned long long)sb.st_size);
    } else if ((rc = xqf_parse_header(&r->info, h, (uint64_t)sb.st_size, kind, name, entries, r->why)) == XQF_OK) {
        if (!(meta = malloc((size_t)r->info.meta_bytes))) {
            rc = XQF_NOMEM;
            snprintf(r->why, sizeof r->why, "out of memory");
        } else if (xqf_read_at(fd, meta, (size_t)r->info.meta_bytes, 0)) {
            snprintf(r->why, sizeof r->why, "cannot read the block tables");
        } else {
            r->bytes = r->info.meta_bytes;
            rc = xqf_check_meta(&r->info, meta, r->why);
            /* a file built otherwise is still checked block by block: it
             * may be damaged as well, which is the worse news */
            uint8_t *bounds = NULL;
            if (rc == XQF_OK) rc = bounds_decode_ok(r, &bounds);
            if (rc == XQF_OK || rc == XQF_MISMATCH) {
                char why[XQF_WHY_MAX];
                memcpy(why, r->why, sizeof why);
                int brc = check_blocks(fd, r, deep, bounds);
                if (brc == XQF_OK && rc == XQF_MISMATCH) memcpy(r->why, why, sizeof why);
                if (brc != XQF_OK) rc = brc;
            }
            free(bounds);
        }
    }
    /* the pointers into meta must not outlive it */
    r->info.map = r->info.dict = r->info.offsets = r->info.checksums = r->info.bounds = NULL;
    free(meta);
    close(fd);
    return fail(r, rc, NULL);
}

const char *xqf_check_status_name(int status)
{
    switch (status) {
    case XQF_OK: return "sound";
    case XQF_CORRUPT: return "damaged";
    case XQF_MISMATCH: return "built otherwise";
    case XQF_MISSING: return "missing";
    case XQF_IO: return "unreadable";
    case XQF_NOMEM: return "out of memory";
    default: return "unknown";
    }
}
