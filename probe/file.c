/*
 * file.c - opening, checking and reading compressed table files (file.h).
 * The checks themselves are core/tbformat.c's, shared with `xqtb check`.
 */
#include "file.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tbcheck.h"
#include "xqtb.h"

static int status_of(int xqf_rc)
{
    return xqf_rc == XQF_OK         ? XQTB_OK
           : xqf_rc == XQF_MISMATCH ? XQTB_ERR_MISMATCH
           : xqf_rc == XQF_NOMEM    ? XQTB_ERR_NOMEM
                                    : XQTB_ERR_CORRUPT;
}

/* Decodes every block of a small WDL file read whole into f->resident
 * (file.h).  Blocks hold a multiple of 4 entries, so each side's blocks,
 * decompressed one after the other, are its packed symbols. */
static int hold_decoded(xqf_file *f)
{
    const xqf_info *i = &f->info;
    f->resident_side = xqf_block_bytes(0, i->entries);
    if (!(f->resident = malloc((size_t)(2 * f->resident_side)))) return XQTB_ERR_NOMEM;
    xqf_scratch scratch = {0};
    int rc = XQTB_OK;
    for (uint64_t k = 0; k < 2 * (uint64_t)i->blocks && rc == XQTB_OK; k++) {
        uint64_t at = (k / i->blocks) * f->resident_side + (k % i->blocks) * (i->block_entries / 4);
        size_t n;
        rc = xqf_read_block(f, k, &scratch, f->resident + at, (size_t)(2 * f->resident_side - at), &n);
    }
    xqf_scratch_free(&scratch);
    /* a block holding a symbol that is no WDL value is damaged, and so is
     * the file, refused whole like any other damage found here */
    if (rc == XQTB_OK && !xqf_wdl_bytes_sound(f->resident, 2 * f->resident_side)) rc = XQTB_ERR_CORRUPT;
    if (rc != XQTB_OK) {
        free(f->resident);
        f->resident = NULL;
    }
    return rc;
}

/* Decompresses the file's search bounds into f->bounds. */
static int hold_bounds(xqf_file *f)
{
    f->bounds_groups = xqf_bounds_groups(f->info.kind, f->info.entries);
    if (!(f->bounds = malloc((size_t)xqf_bounds_raw_bytes(f->info.kind, f->info.entries)))) return XQTB_ERR_NOMEM;
    int rc = status_of(xqf_bounds_decode(&f->info, f->bounds));
    if (rc != XQTB_OK) {
        free(f->bounds);
        f->bounds = NULL;
    }
    return rc;
}

/* The searched side's full blocks' most common bytes, by their checksum
 * and length, if more than half of them share them (a majority vote, then
 * a count): that block decoded into f->common, if it can be (f->fd open if
 * the file is read by block); else f->common stays NULL. */
static void hold_common(xqf_file *f)
{
    const xqf_info *i = &f->info;
    uint64_t first = (uint64_t)i->searched * i->blocks, full = i->entries / i->block_entries, votes = 0, k0 = first;
    uint64_t sum = 0, len = 0, same = 0;
    for (uint64_t k = first; k < first + full; k++) {
        uint64_t s = xqf_block_stored_checksum(i, k), l = xqf_block_end(i, k) - xqf_block_begin(i, k);
        if (!votes) {
            sum = s, len = l, k0 = k;
            votes = 1;
        } else {
            votes = s == sum && l == len ? votes + 1 : votes - 1;
        }
    }
    for (uint64_t k = first; votes && k < first + full; k++)
        same += xqf_block_stored_checksum(i, k) == sum && xqf_block_end(i, k) - xqf_block_begin(i, k) == len;
    size_t cap = xqf_max_block_bytes(f), n;
    if (2 * same <= full || !(f->common = malloc(cap))) return;
    xqf_scratch scratch = {0};
    int rc = xqf_read_block(f, k0, &scratch, f->common, cap, &n);
    xqf_scratch_free(&scratch);
    if (rc != XQTB_OK) {
        /* damaged: the probes that read it report it, and the blocks of
         * the same bytes are read on their own */
        free(f->common);
        f->common = NULL;
        return;
    }
    f->common_sum = sum;
    f->common_len = len;
}

int xqf_open(xqf_file *f, const char *path, int kind, const char *name, uint64_t entries, size_t whole_max)
{
    memset(f, 0, sizeof *f);
    f->fd = -1;
    /* O_NONBLOCK: opening a FIFO (or a device) that sits under a table's
     * name must not wait for a writer; fstat then rejects it. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return XQTB_ERR_IO;
    struct stat sb;
    if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
        close(fd);
        return XQTB_ERR_IO;
    }
    uint8_t h[XQF_HEADER_SIZE];
    int rc = XQTB_ERR_CORRUPT;
    if ((uint64_t)sb.st_size >= XQF_HEADER_SIZE && xqf_read_at(fd, h, sizeof h, 0) == 0)
        rc = status_of(xqf_parse_header(&f->info, h, (uint64_t)sb.st_size, kind, name, entries, NULL));
    f->whole = (uint64_t)sb.st_size <= whole_max;
    size_t keep = (size_t)(f->whole ? (uint64_t)sb.st_size : f->info.meta_bytes);
    if (rc == XQTB_OK && !(f->meta = malloc(keep))) rc = XQTB_ERR_NOMEM;
    if (rc == XQTB_OK && xqf_read_at(fd, f->meta, keep, 0)) rc = XQTB_ERR_CORRUPT;
    if (rc == XQTB_OK) rc = status_of(xqf_check_meta(&f->info, f->meta, NULL));
    if (rc == XQTB_OK) rc = status_of(xqf_ddict_new(&f->info, &f->ddict));
    if (rc == XQTB_OK && kind == XQF_KIND_WDL && f->whole && xqf_wdl_resident(entries)) rc = hold_decoded(f);
    if (rc == XQTB_OK && f->info.bounds_bytes) rc = hold_bounds(f);
    /* hold_common may read a block, and tell damage from a changed file */
    f->fd = fd;
    f->dev = sb.st_dev;
    f->ino = sb.st_ino;
    f->size = sb.st_size;
    f->mtime = sb.st_mtim;
    if (rc == XQTB_OK && kind != XQF_KIND_WDL && f->info.searched >= 0) hold_common(f);
    if (rc != XQTB_OK || f->whole) close(fd);
    if (rc != XQTB_OK) {
        xqf_ddict_free(f->ddict);
        f->ddict = NULL;
        free(f->meta);
        f->meta = NULL;
        f->fd = -1;
        return rc;
    }
    f->fd = f->whole ? -1 : fd;
    return XQTB_OK;
}

void xqf_close(xqf_file *f)
{
    if (f->fd >= 0) close(f->fd);
    xqf_ddict_free(f->ddict);
    free(f->meta);
    free(f->resident);
    free(f->bounds);
    free(f->common);
    memset(f, 0, sizeof *f);
    f->fd = -1;
}

size_t xqf_max_block_bytes(const xqf_file *f)
{
    return (size_t)xqf_block_bytes(f->info.symbol_bytes, f->info.block_entries);
}

/* Whether the file still is the one opened.  Replacing a table by rename
 * (what `xqtb gen` does) leaves the open descriptor on the old file, which
 * stays consistent; writing into it in place does not. */
static int same_file(const xqf_file *f)
{
    struct stat sb;
    return fstat(f->fd, &sb) == 0 && sb.st_dev == f->dev && sb.st_ino == f->ino && sb.st_size == f->size &&
           sb.st_mtim.tv_sec == f->mtime.tv_sec && sb.st_mtim.tv_nsec == f->mtime.tv_nsec;
}

static int mark_changed(xqf_file *f)
{
    __atomic_store_n(&f->changed, 1, __ATOMIC_RELEASE);
    return XQTB_ERR_CORRUPT;
}

/* Reads the compressed bytes [begin, begin + len) of a file read by block
 * into scratch. */
static int fetch(xqf_file *f, uint64_t begin, uint64_t len, xqf_scratch *scratch)
{
    if (scratch->cap < len) {
        uint8_t *d = realloc(scratch->data, (size_t)len);
        if (!d) return XQTB_ERR_NOMEM;
        scratch->data = d;
        scratch->cap = (size_t)len;
    }
    /* The identity is looked at only when something fails: a block that
     * reads whole and matches the checksum taken at open is the block that
     * was opened, whatever happened to the file since, and an fstat on
     * every miss would cost a system call. */
    if (xqf_read_at(f->fd, scratch->data, (size_t)len, begin)) return same_file(f) ? XQTB_ERR_IO : mark_changed(f);
    return XQTB_OK;
}

int xqf_read_block(xqf_file *f, uint64_t k, xqf_scratch *scratch, uint8_t *out, size_t cap, size_t *n)
{
    const xqf_info *i = &f->info;
    if (k >= 2 * (uint64_t)i->blocks) return XQTB_ERR_CORRUPT;
    size_t want = (size_t)xqf_block_symbol_bytes(i, k);
    k = xqf_block_source(i, k); /* a repeat of its side's first block decodes that */
    uint64_t begin = xqf_block_begin(i, k), len = xqf_block_end(i, k) - begin;
    if (want > cap) return XQTB_ERR_CORRUPT;
    const uint8_t *src = f->meta + begin;
    if (!f->whole) {
        int rc = fetch(f, begin, len, scratch);
        if (rc != XQTB_OK) return rc;
        src = scratch->data;
    }
    if (!xqf_block_sound(i, k, src)) return f->whole || same_file(f) ? XQTB_ERR_CORRUPT : mark_changed(f);
    int rc = xqf_block_decode(i, f->ddict, src, len, out, want, &scratch->dctx);
    if (rc != XQF_OK) return rc == XQF_NOMEM ? XQTB_ERR_NOMEM : XQTB_ERR_CORRUPT;
    *n = want;
    return XQTB_OK;
}

void xqf_scratch_free(xqf_scratch *scratch)
{
    free(scratch->data);
    xqf_dctx_free(scratch->dctx);
    memset(scratch, 0, sizeof *scratch);
}
