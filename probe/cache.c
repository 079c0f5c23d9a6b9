/*
 * cache.c - the block cache.
 *
 * Blocks are spread over shards by a hash of (file, block), each shard with
 * its own lock, so threads probing different blocks rarely wait for each
 * other.  Inside a shard a block may sit in one of WAYS slots after its
 * home slot; when all are taken, the "clock" bit picks the victim: a slot
 * used since the last sweep gets a second chance.  The symbol is read while
 * the lock is held, so no slot is ever freed under a reader, and the warm
 * path allocates nothing.
 */
#include "cache.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "tbformat.h"
#include "xqtb.h"

enum { SHARDS = 16, WAYS = 8, TYPICAL_BLOCK = 16384 };

typedef struct {
    uint64_t key; /* (file_id << 32 | block) + 1; 0 = empty */
    uint8_t *data;
    size_t cap, len;
    uint8_t used;
} slot;

/* A cache line per shard, so that threads locking different shards do not
 * pass one line back and forth. */
typedef struct {
    _Alignas(64) pthread_mutex_t lock;
    slot *slots;
    uint32_t nslots, hand;
    xqf_scratch scratch; /* a compressed block on its way in, under lock */
} shard;

struct xq_cache {
    shard shard[SHARDS];
};

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

xq_cache *xq_cache_new(size_t bytes)
{
    /* aligned_alloc: the shards are cache-line aligned (calloc promises 16) */
    size_t size = (sizeof(xq_cache) + 63) / 64 * 64;
    xq_cache *c = aligned_alloc(64, size);
    if (!c) return NULL;
    memset(c, 0, size);
    uint32_t per = (uint32_t)(bytes / TYPICAL_BLOCK / SHARDS);
    if (per < 1) per = 1; /* the smallest cache: one block per shard */
    for (int s = 0; s < SHARDS; s++) {
        pthread_mutex_init(&c->shard[s].lock, NULL);
        c->shard[s].slots = calloc(per, sizeof(slot));
        c->shard[s].nslots = per;
        if (!c->shard[s].slots) {
            xq_cache_free(c);
            return NULL;
        }
    }
    return c;
}

void xq_cache_free(xq_cache *c)
{
    if (!c) return;
    for (int s = 0; s < SHARDS; s++) {
        for (uint32_t i = 0; c->shard[s].slots && i < c->shard[s].nslots; i++) free(c->shard[s].slots[i].data);
        free(c->shard[s].slots);
        xqf_scratch_free(&c->shard[s].scratch);
        pthread_mutex_destroy(&c->shard[s].lock);
    }
    free(c);
}

/* Picks the slot for key among its WAYS candidates: the one holding it, or
 * a victim by the clock rule. */
static slot *find_slot(shard *sh, uint64_t key, uint64_t h, int *hit)
{
    uint32_t home = (uint32_t)(h % sh->nslots), ways = sh->nslots < WAYS ? sh->nslots : WAYS;
    for (uint32_t w = 0; w < ways; w++) {
        slot *s = &sh->slots[(home + w) % sh->nslots];
        if (s->key == key) {
            *hit = 1;
            return s;
        }
    }
    *hit = 0;
    for (uint32_t w = 0; w < ways; w++) {
        slot *s = &sh->slots[(home + w) % sh->nslots];
        if (s->key == 0) return s;
    }
    for (;;) {
        slot *s = &sh->slots[(home + sh->hand % ways) % sh->nslots];
        sh->hand++;
        if (!s->used) return s;
        s->used = 0;
    }
}

int xq_cache_symbol(xq_cache *c, xqf_file *f, uint32_t file_id, int side, uint64_t entry, unsigned *symbol)
{
    const xqf_info *info = &f->info;
    /* blocks that repeat their side's first share its slot */
    uint64_t block = xqf_block_source(info, (uint64_t)side * info->blocks + entry / info->block_entries);
    uint64_t key = ((uint64_t)file_id << 32 | block) + 1;
    uint64_t h = mix(key);
    shard *sh = &c->shard[h % SHARDS];
    int hit, rc = XQTB_OK;
    pthread_mutex_lock(&sh->lock);
    slot *s = find_slot(sh, key, h / SHARDS, &hit);
    if (!hit) {
        size_t need = xqf_max_block_bytes(f);
        if (s->cap < need) {
            uint8_t *d = realloc(s->data, need);
            if (!d) {
                rc = XQTB_ERR_NOMEM;
                goto out;
            }
            s->data = d;
            s->cap = need;
        }
        s->key = 0; /* stays empty unless the block reads back whole */
        rc = xqf_read_block(f, block, &sh->scratch, s->data, s->cap, &s->len);
        if (rc != XQTB_OK) goto out;
        s->key = key;
    }
    s->used = 1;
    *symbol = xqf_block_symbol(info, s->data, entry % info->block_entries);
out:
    pthread_mutex_unlock(&sh->lock);
    return rc;
}
