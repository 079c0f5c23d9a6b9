/*
 * file.h - one compressed table file (core/tbformat.h), mapped read-only
 * and checked before any of it is trusted.
 */
#ifndef XQ_PROBE_FILE_H
#define XQ_PROBE_FILE_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    const uint8_t *map; /* whole file, read-only */
    size_t size;
    int kind;         /* XQF_KIND_WDL or XQF_KIND_DTM */
    uint64_t entries; /* per side to move */
    uint32_t block_entries, blocks, symbol_bytes, nsymbols;
    int32_t max_dtm;
    uint32_t rules; /* repetition rule field (tbformat.h) */
    uint32_t limit; /* move limit field, plies (0 = none) */
    const uint8_t *dtm_map, *offsets, *checksums;
} xqf_file;

/* Maps `path` and checks it: the header fields against what the reader
 * expects (kind, material name, index layout and size, rule settings,
 * generator revision), every offset against the file size, and the meta
 * checksum.  Returns XQTB_OK or a negative xqtb_status (XQTB_ERR_IO,
 * XQTB_ERR_CORRUPT, XQTB_ERR_MISMATCH); nothing stays mapped on error. */
int xqf_open(xqf_file *f, const char *path, int kind, const char *name, uint64_t entries);
void xqf_close(xqf_file *f);

/* Decompresses block k (0 .. 2*blocks-1) into out after checking its
 * checksum.  *n receives the bytes written (xqf_block_bytes of the entries
 * in that block).  Returns XQTB_OK or XQTB_ERR_CORRUPT. */
int xqf_read_block(const xqf_file *f, uint64_t k, uint8_t *out, size_t cap, size_t *n);

/* Bytes the largest decompressed block of f needs. */
size_t xqf_max_block_bytes(const xqf_file *f);

#endif
