/*
 * cache.h - a bounded cache of decompressed table blocks, shared by every
 * thread probing one handle.
 */
#ifndef XQ_PROBE_CACHE_H
#define XQ_PROBE_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "file.h"

typedef struct xq_cache xq_cache;

/* A cache holding about `bytes` of decompressed blocks.  NULL if out of
 * memory. */
xq_cache *xq_cache_new(size_t bytes);
void xq_cache_free(xq_cache *c);

/* The symbol of entry `entry` (0 .. entries-1) of side `side` in file f,
 * whose identity in the cache is file_id.  Reads and decompresses the block
 * on a miss.  Returns XQTB_OK with *symbol set, or an error of
 * xqf_read_block (XQTB_ERR_CORRUPT, XQTB_ERR_IO, XQTB_ERR_NOMEM). */
int xq_cache_symbol(xq_cache *c, xqf_file *f, uint32_t file_id, int side, uint64_t entry, unsigned *symbol);

#endif
