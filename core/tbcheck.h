/*
 * tbcheck.h - checking a compressed table file whole, the way Syzygy's
 * tbcheck does: header, metadata, and every block's checksum (and, on
 * request, that every block decompresses to symbols a reader accepts).
 * Used by `xqtb check` and by `xqtb gen` before it trusts a file it did
 * not just write.  It reads with pread, never maps, so a file that changes
 * while it is checked reads as damaged rather than killing the process.
 */
#ifndef XQ_TBCHECK_H
#define XQ_TBCHECK_H

#include <stddef.h>
#include <stdint.h>

#include "tbformat.h"

/* Beyond tbformat.h's XQF_OK, XQF_CORRUPT, XQF_MISMATCH and XQF_NOMEM. */
enum { XQF_MISSING = -3, XQF_IO = -4 };

typedef struct {
    int status;            /* XQF_OK or one of the failures */
    char why[XQF_WHY_MAX]; /* what is wrong, "" when sound */
    xqf_info info;         /* header fields, when the header was readable */
    uint64_t bytes;        /* bytes of the file read */
    uint64_t blocks;       /* blocks checked */
    uint64_t bad_blocks;   /* blocks whose checksum (or content) failed */
} xqf_check_report;

/* Checks file `path`, which should be of compressed `kind` for canonical
 * material `name` with `entries` entries per side.  deep: also decompress
 * every block and check its symbols (much slower than the checksums).
 * RETURN: r->status. */
int xqf_check_file(const char *path, int kind, const char *name, uint64_t entries, int deep, xqf_check_report *r);

/* Reads exactly n bytes at offset off of fd, retrying after signals.
 * Returns 0, or -1 on an error or a short read (the file shrank). */
int xqf_read_at(int fd, void *p, size_t n, uint64_t off);

/* "sound", "damaged", "built otherwise", "missing", "unreadable",
 * "out of memory". */
const char *xqf_check_status_name(int status);

#endif
