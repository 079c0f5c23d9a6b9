/*
 * probe.c - the tablebase handle of xqtb.h: finding table files, opening
 * them lazily, and answering probes.
 *
 * The list of materials is fixed when the handle is opened (directory
 * listings only) and sorted, so finding a table is a binary search without
 * a lock.  Each material's files are mapped and checked on first use, under
 * that material's own lock with an atomic "state" for the fast path; a
 * failure is remembered, so a damaged file is reported on every probe
 * without being re-read.
 */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cache.h"
#include "fen.h"
#include "file.h"
#include "game.h"
#include "index.h"
#include "material.h"
#include "movegen.h"
#include "position_internal.h"
#include "ruleset.h"
#include "tbformat.h"
#include "xqtb.h"

/* The compressed kinds of tbformat.h, which number 0 .. KINDS - 1. */
/* Files read whole by default, so that a block missing from the cache
 * costs no system call: WDL files up to 8 MiB (every table of up to 5
 * pieces: docs/BENCHMARKS.md, "WDL files read whole"), and DTM and DTC
 * files up to 16 MiB (every table of up to 5 pieces, and KRKNAABB) while
 * the DTM and DTC files a handle holds this way come to at most 256 MiB
 * (the 5-piece set's are 229 MB), the first opened first.  A pread took a
 * fifth of a cold DTM probe, 1-2 us a block ("DTM and DTC files read
 * whole").  The budget bounds what a handle that opens every file of a
 * larger set holds; the size limit bounds the stall of the probe that
 * opens a file (KRNKR's first DTM probe in a fresh process: 25 -> 45 ms
 * for its 7.3 MB, most of it the kernel faulting in fresh memory). */
enum {
    KINDS = XQF_COMPRESSED_KINDS,
    DEFAULT_CACHE = 64 << 20,
    DEFAULT_WHOLE_WDL_FILE = 8 << 20,
    DEFAULT_WHOLE_FILE = 16 << 20,
    DEFAULT_WHOLE_BUDGET = 256 << 20
};

typedef struct {
    uint64_t key; /* material_key of the canonical material */
    xq_material mat;
    char name[XQ_MATERIAL_MAX];
    char *path[KINDS]; /* file per kind, NULL if absent */
    pthread_mutex_t lock;
    int state[KINDS]; /* 0 not opened, 1 open, < 0 the xqtb_status of the failure */
    int index_ready;
    xq_index ix;
    xqf_file file[KINDS];
    uint32_t file_id[KINDS];
    /* What the DTM file's search bounds say of each group of its stored
     * side, two bits a group (DTM_GROUP_*), for the DTC searches of a
     * handle that has not opened the DTM file itself: built once from the
     * file's metadata, about a twelfth of the bounds (build_summary).
     * summary_state: 0 not built, 1 built, -1 none. */
    uint8_t *dtm_summary;
    int summary_state, summary_stored;
} tb_entry;

/* A hash set of the materials present, under both colourings, so that
 * "is there a table?" and "which one, flipped or not?" cost one look-up of
 * the material key (no canonical orientation worked out per probe).  Open
 * addressing; a slot holds key + 1 (0: empty). */
typedef struct {
    uint64_t *key;
    int32_t *entry; /* index into e[], bit 30 set: the colours are flipped */
    uint32_t mask;
} material_set;

enum { FLIPPED = 1 << 30, HAS_WDL = 1 << 29, ENTRY_BITS = HAS_WDL - 1 };

struct xqtb_handle {
    tb_entry *e;
    int n, largest;
    material_set ms;
    xq_cache *cache;
    /* What the files opened so far were built under, rules | limit << 3,
     * -1 before the first; and the rule set the options require, or -1. */
    int settled;
    int require_rules;
    size_t whole_file_bytes; /* xqtb_options.whole_file_bytes; 0: the defaults */
    uint64_t held;           /* bytes of the DTM and DTC files read whole under the defaults (atomic) */
};

/* Counts of both colours' non-king pieces packed 3 bits each. */
static uint64_t material_key(const xq_material *m)
{
    uint64_t k = 0;
    for (int c = 0; c < 2; c++)
        for (int kind = ADVISOR; kind < KIND_NB; kind++) k = k << 3 | m->count[c][kind];
    return k;
}

static uint32_t material_slot(const material_set *ms, uint64_t key)
{
    return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & ms->mask;
}

static void material_set_add(material_set *ms, uint64_t key, int32_t entry)
{
    uint32_t i = material_slot(ms, key);
    while (ms->key[i] && ms->key[i] != key + 1) i = (i + 1) & ms->mask;
    ms->key[i] = key + 1;
    ms->entry[i] = entry;
}

/* The entry of material key `key` (any colouring) | FLIPPED, or -1. */
static int32_t material_set_find(const material_set *ms, uint64_t key)
{
    for (uint32_t i = material_slot(ms, key);; i = (i + 1) & ms->mask) {
        if (ms->key[i] == key + 1) return ms->entry[i];
        if (!ms->key[i]) return -1;
    }
}

/* Fills the set from the sorted entries (at most a quarter full). */
static int material_set_build(xqtb_handle *h)
{
    uint32_t size = 16;
    while (size < 8u * (uint32_t)h->n) size *= 2;
    h->ms.key = calloc(size, sizeof *h->ms.key);
    h->ms.entry = calloc(size, sizeof *h->ms.entry);
    if (!h->ms.key || !h->ms.entry) return XQTB_ERR_NOMEM;
    h->ms.mask = size - 1;
    for (int i = 0; i < h->n; i++) {
        xq_material f;
        xq_material_flip(&h->e[i].mat, &f);
        int32_t v = i | (h->e[i].path[XQF_KIND_WDL] ? HAS_WDL : 0);
        material_set_add(&h->ms, material_key(&f), v | FLIPPED);
        material_set_add(&h->ms, h->e[i].key, v); /* a symmetric material: not flipped */
    }
    return XQTB_OK;
}

static int strcmp_ptr(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int entry_cmp(const void *a, const void *b)
{
    uint64_t x = ((const tb_entry *)a)->key, y = ((const tb_entry *)b)->key;
    return x < y ? -1 : x > y;
}

/* Adds DIR/NAME.EXT to the list if NAME is a canonical material and no
 * earlier directory gave that file. */
static int add_file(xqtb_handle *h, int *cap, const char *dir, const char *file)
{
    size_t len = strlen(file);
    if (len < 5 || len > 4 + XQ_MATERIAL_MAX || file[len - 4] != '.') return 0;
    const char *ext = file + len - 3;
    int kind = xqf_kind_of_ext(ext);
    if (kind < 0 || kind >= KINDS) return 0;
    char name[XQ_MATERIAL_MAX + 1], err[XQ_ERR_MAX], canon_name[XQ_MATERIAL_MAX];
    memcpy(name, file, len - 4);
    name[len - 4] = 0;
    xq_material m;
    if (xq_material_parse(name, &m, err)) return 0;
    xq_material_canonical(&m, &m);
    xq_material_name(&m, canon_name);
    if (strcmp(canon_name, name)) return 0;
    uint64_t key = material_key(&m);
    tb_entry *e = NULL;
    for (int i = 0; i < h->n; i++)
        if (h->e[i].key == key) e = &h->e[i];
    if (!e) {
        if (h->n == *cap) {
            int nc = *cap ? 2 * *cap : 64;
            tb_entry *ne = realloc(h->e, (size_t)nc * sizeof *ne);
            if (!ne) return XQTB_ERR_NOMEM;
            h->e = ne;
            *cap = nc;
        }
        e = &h->e[h->n++];
        memset(e, 0, sizeof *e);
        e->key = key;
        e->mat = m;
        memcpy(e->name, canon_name, sizeof e->name);
    }
    if (e->path[kind]) return 0;
    size_t plen = strlen(dir) + len + 2;
    e->path[kind] = malloc(plen);
    if (!e->path[kind]) return XQTB_ERR_NOMEM;
    snprintf(e->path[kind], plen, "%s/%s", dir, file);
    return 0;
}

static void settle_at_open(xqtb_handle *h);

xqtb_handle *xqtb_open(const char *paths, const xqtb_options *opt, xqtb_status *status)
{
    int dummy;
    if (!status) status = &dummy;
    if (!paths) {
        *status = XQTB_ERR_INVALID;
        return NULL;
    }
    if (opt && (opt->require_rules < 0 || (opt->require_rules && !xq_rules_for_tables(opt->require_rules - 1)))) {
        *status = XQTB_ERR_INVALID;
        return NULL;
    }
    xqtb_handle *h = calloc(1, sizeof *h);
    char *list = strdup(paths);
    int cap = 0, rc = XQTB_OK;
    if (!h || !list) {
        rc = XQTB_ERR_NOMEM;
        goto fail;
    }
    h->settled = -1;
    h->require_rules = opt && opt->require_rules ? opt->require_rules - 1 : -1;
    h->whole_file_bytes = opt && opt->whole_file_bytes ? opt->whole_file_bytes : 0;
    char *save = NULL;
    for (char *dir = strtok_r(list, ":", &save); dir && rc == XQTB_OK; dir = strtok_r(NULL, ":", &save)) {
        DIR *d = opendir(dir);
        if (!d) continue; /* a missing directory covers nothing */
        /* readdir order is arbitrary: collect and sort so that the handle's
         * content does not depend on it */
        char **names = NULL;
        size_t nn = 0, nc = 0;
        for (struct dirent *de; (de = readdir(d)) && rc == XQTB_OK;) {
            if (nn == nc) {
                nc = nc ? 2 * nc : 64;
                char **t = realloc(names, nc * sizeof *t);
                if (!t) {
                    rc = XQTB_ERR_NOMEM;
                    break;
                }
                names = t;
            }
            if (!(names[nn++] = strdup(de->d_name))) rc = XQTB_ERR_NOMEM;
        }
        closedir(d);
        if (rc == XQTB_OK) qsort(names, nn, sizeof *names, strcmp_ptr); /* no NULL names then */
        for (size_t i = 0; i < nn; i++) {
            if (rc == XQTB_OK && names[i]) rc = add_file(h, &cap, dir, names[i]);
            free(names[i]);
        }
        free(names);
    }
    if (rc != XQTB_OK) goto fail;
    if (h->n) qsort(h->e, (size_t)h->n, sizeof *h->e, entry_cmp);
    for (int i = 0; i < h->n; i++) {
        pthread_mutex_init(&h->e[i].lock, NULL);
        for (int k = 0; k < KINDS; k++) h->e[i].file_id[k] = (uint32_t)(KINDS * i + k);
        int pieces = xq_material_pieces(&h->e[i].mat);
        if (pieces > h->largest) h->largest = pieces;
    }
    h->cache = xq_cache_new(opt && opt->cache_bytes ? opt->cache_bytes : DEFAULT_CACHE);
    if (!h->cache || material_set_build(h) != XQTB_OK) {
        rc = XQTB_ERR_NOMEM;
        goto fail;
    }
    free(list);
    settle_at_open(h);
    *status = XQTB_OK;
    return h;
fail:
    free(list);
    if (h) {
        for (int i = 0; i < h->n; i++)
            for (int k = 0; k < KINDS; k++) free(h->e[i].path[k]);
        xq_cache_free(h->cache);
        free(h->ms.key);
        free(h->ms.entry);
        free(h->e);
        free(h);
    }
    *status = rc;
    return NULL;
}

void xqtb_close(xqtb_handle *h)
{
    if (!h) return;
    for (int i = 0; i < h->n; i++) {
        tb_entry *e = &h->e[i];
        for (int k = 0; k < KINDS; k++) {
            if (e->file[k].meta) xqf_close(&e->file[k]); /* open, or failed after opening */
            free(e->path[k]);
        }
        if (e->index_ready) xq_index_free(&e->ix);
        free(e->dtm_summary);
        pthread_mutex_destroy(&e->lock);
    }
    xq_cache_free(h->cache);
    free(h->ms.key);
    free(h->ms.entry);
    free(h->e);
    free(h);
}

int xqtb_table_count(const xqtb_handle *h) { return h ? h->n : 0; }
int xqtb_largest(const xqtb_handle *h) { return h ? h->largest : 0; }

/* The table of a board's material, and whether its colours are flipped
 * relative to the table's; NULL if there is none. */
static tb_entry *find_entry(xqtb_handle *h, const xq_board *b, int *flip)
{
    xq_material m;
    xq_material_of(b, &m);
    int32_t e = material_set_find(&h->ms, material_key(&m));
    if (e < 0) return NULL;
    *flip = (e & FLIPPED) != 0;
    return &h->e[e & ENTRY_BITS];
}

/* What one piece adds to material_key: its (colour, kind) field, the
 * counts being packed 3 bits each with red's advisors highest; indexed by
 * the public piece code + 7 (kings add nothing). */
#define RED_PART(k) ((uint64_t)1 << (3 * (13 - (k))))
#define BLACK_PART(k) ((uint64_t)1 << (3 * (7 - (k))))
static const uint64_t key_part[15] = {
    BLACK_PART(7), BLACK_PART(6), BLACK_PART(5), BLACK_PART(4), BLACK_PART(3), BLACK_PART(2), 0, 0, 0,
    RED_PART(2),   RED_PART(3),   RED_PART(4),   RED_PART(5),   RED_PART(6),   RED_PART(7)};

/* Adds one piece to a material key; false for a code out of range. */
static inline bool add_piece(uint64_t *key, int code)
{
    if ((unsigned)(code + 7) > 14) return false;
    *key += key_part[code + 7];
    return true;
}

/* The material set's value for pos's material (entry | FLIPPED | HAS_WDL),
 * -1 if no table has it, -2 for a piece code out of range.  Trusts pos
 * otherwise, as xqtb_covered says. */
static int32_t position_material(const xqtb_handle *h, const xqtb_position *pos)
{
    uint64_t key = 0;
    int pieces = 0;
    /* eight squares at a time, a bit scan to each piece: endgame boards
     * are mostly empty */
    for (int s = 0; s + 8 <= 90; s += 8) {
        uint64_t w;
        memcpy(&w, pos->board + s, 8);
        for (; w; pieces++) {
            int byte = __builtin_ctzll(w) >> 3;
            if (!add_piece(&key, (int8_t)(w >> 8 * byte))) return -2;
            w &= ~((uint64_t)0xFF << 8 * byte);
        }
    }
    for (int s = 88; s < 90; s++)
        if (pos->board[s]) {
            if (!add_piece(&key, pos->board[s])) return -2;
            pieces++;
        }
    /* more than the largest table (or an overflowing count) is never covered */
    return pieces > h->largest ? -1 : material_set_find(&h->ms, key);
}

int xqtb_covered(const xqtb_handle *h, const xqtb_position *pos)
{
    if (!h || !pos) return 0;
    int32_t e = position_material(h, pos);
    return e >= 0 && (e & HAS_WDL);
}

int xqtb_covered_counts(const xqtb_handle *h, const uint8_t counts[2][8])
{
    if (!h || !counts) return 0;
    xq_material m;
    memset(&m, 0, sizeof m);
    for (int c = 0; c < 2; c++)
        for (int k = ADVISOR; k < KIND_NB; k++) {
            if (counts[c][k] > xq_kind_limit[k]) return 0;
            m.count[c][k] = counts[c][k];
        }
    int32_t e = material_set_find(&h->ms, material_key(&m));
    return e >= 0 && (e & HAS_WDL);
}

/* Maps and checks the file of one kind, once; returns its state. */
/* The first file opened fixes the handle's rule set and move limit (the
 * options may require a rule set); returns false for a file of others. */
static int settle_rules(xqtb_handle *h, const xqf_file *f)
{
    if (h->require_rules >= 0 && (int)f->info.rules != h->require_rules) return 0;
    int key = (int)(f->info.rules | f->info.limit << 3), expected = -1;
    if (__atomic_compare_exchange_n(&h->settled, &expected, key, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return 1;
    return expected == key;
}

int xqtb_rules(const xqtb_handle *h)
{
    if (!h) return -1;
    int key = __atomic_load_n(&h->settled, __ATOMIC_ACQUIRE);
    return key < 0 ? h->require_rules : key & 7;
}

int xqtb_limit(const xqtb_handle *h)
{
    int key = h ? __atomic_load_n(&h->settled, __ATOMIC_ACQUIRE) : -1;
    return key < 0 ? -1 : key >> 3;
}

/* The largest file to read whole when the DTM or DTC file at `path` is
 * opened under the defaults: its size, reserved out of the handle's
 * budget, if it is small enough and the budget has room for it; 0 (read by
 * block) otherwise.  The reservation is a compare-and-swap, so that two
 * tables opened at once never take the handle past its budget. */
static size_t reserve_whole(xqtb_handle *h, const char *path)
{
    struct stat sb;
    if (stat(path, &sb) || sb.st_size <= 0 || (uint64_t)sb.st_size > DEFAULT_WHOLE_FILE) return 0;
    uint64_t size = (uint64_t)sb.st_size, held = __atomic_load_n(&h->held, __ATOMIC_RELAXED);
    do
        if (held + size > DEFAULT_WHOLE_BUDGET) return 0;
    while (!__atomic_compare_exchange_n(&h->held, &held, held + size, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    return (size_t)size;
}

static int ensure_open(xqtb_handle *h, tb_entry *e, int kind)
{
    int st = __atomic_load_n(&e->state[kind], __ATOMIC_ACQUIRE);
    if (st != 0) return st;
    pthread_mutex_lock(&e->lock);
    st = e->state[kind];
    if (st == 0) {
        if (!e->path[kind]) {
            st = XQTB_ERR_NO_TABLE;
        } else if (!e->index_ready && xq_index_init(&e->ix, &e->mat)) {
            st = XQTB_ERR_NOMEM;
        } else {
            e->index_ready = 1;
            int budgeted = !h->whole_file_bytes && kind != XQF_KIND_WDL;
            size_t whole = h->whole_file_bytes    ? h->whole_file_bytes
                           : kind == XQF_KIND_WDL ? DEFAULT_WHOLE_WDL_FILE
                                                  : reserve_whole(h, e->path[kind]);
            int rc = xqf_open(&e->file[kind], e->path[kind], kind, e->name, e->ix.size, whole);
            if (rc == XQTB_OK && !settle_rules(h, &e->file[kind])) {
                xqf_close(&e->file[kind]);
                rc = XQTB_ERR_MISMATCH;
            }
            /* a reservation not used (the file was refused, or grew since
             * it was looked at and is read by block) goes back */
            if (budgeted && whole && !(rc == XQTB_OK && e->file[kind].whole))
                __atomic_fetch_sub(&h->held, (uint64_t)whole, __ATOMIC_RELAXED);
            st = rc == XQTB_OK ? 1 : rc;
        }
        /* NOMEM may pass; everything else is remembered */
        if (st != XQTB_ERR_NOMEM) __atomic_store_n(&e->state[kind], st, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&e->lock);
    return st;
}

/* The rule set and move limit, settled when the handle opens: the first
 * file, in the handle's order (materials by key, then WDL, DTM, DTC), that
 * passes every check of a first probe (and meets the options' required
 * rule set) fixes them, as a first probe would have.  A file built
 * otherwise is refused when it is first probed, as before; a damaged one
 * cannot settle anything, since all of its header and metadata are
 * checked first. */
static void settle_at_open(xqtb_handle *h)
{
    for (int i = 0; i < h->n && __atomic_load_n(&h->settled, __ATOMIC_ACQUIRE) < 0; i++)
        for (int k = 0; k < KINDS; k++)
            if (h->e[i].path[k] && ensure_open(h, &h->e[i], k) == 1) break;
}

/* The stored value of a legal board in the file of `kind`: the WDL symbol,
 * or the DTM or DTC map value. */
static int probe_entry(xqtb_handle *h, tb_entry *e, int flip, const xq_board *b, int kind, unsigned *value);

static int probe_raw(xqtb_handle *h, const xq_board *b, int kind, unsigned *value)
{
    int flip;
    tb_entry *e = find_entry(h, b, &flip);
    if (!e) return XQTB_ERR_NO_TABLE;
    return probe_entry(h, e, flip, b, kind, value);
}

/* probe_raw once the board's table e (flipped or not) is known. */
static int probe_entry_at(xqtb_handle *h, tb_entry *e, int kind, int side, uint64_t idx, unsigned *value);

/* The entry of a legal board b in table e's file of `kind` (opened if it
 * is not): *idx, and *side its side to move as the file has it. */
static int locate_entry(xqtb_handle *h, tb_entry *e, int flip, const xq_board *b, int kind, int *side, uint64_t *idx)
{
    *side = 0;
    *idx = 0;
    int st = ensure_open(h, e, kind); /* 1, or a negative status */
    if (st != 1) return st;
    *idx = xq_index_encode(&e->ix, b, flip ? XQ_INDEX_FLIP : 0);
    if (*idx >= e->file[kind].info.entries) return XQTB_ERR_INVALID;
    *side = b->side ^ flip;
    return XQTB_OK;
}

static int probe_entry(xqtb_handle *h, tb_entry *e, int flip, const xq_board *b, int kind, unsigned *value)
{
    int side, rc;
    uint64_t idx;
    if ((rc = locate_entry(h, e, flip, b, kind, &side, &idx)) != XQTB_OK) return rc;
    return probe_entry_at(h, e, kind, side, idx, value);
}

/* probe_entry once the file (open) and the entry are known: entry idx of
 * side `side` (the file's, after any flip). */
static int probe_entry_at(xqtb_handle *h, tb_entry *e, int kind, int side, uint64_t idx, unsigned *value)
{
    xqf_file *f = &e->file[kind];
    unsigned sym;
    int rc = XQTB_OK;
    if (f->resident)
        sym = xqf_resident_symbol(f, side, idx);
    else if (!xqf_common_symbol(f, side, idx, &sym))
        rc = xq_cache_symbol(h->cache, f, e->file_id[kind], side, idx, &sym);
    if (rc != XQTB_OK) {
        /* A file changed under the handle answers nothing more, not even
         * from blocks still cached, so that no probe mixes two files. */
        if (xqf_changed(f)) __atomic_store_n(&e->state[kind], XQTB_ERR_CORRUPT, __ATOMIC_RELEASE);
        return rc;
    }
    if (kind == XQF_KIND_WDL) {
        if (sym > XQF_WDL_WIN) return XQTB_ERR_CORRUPT;
        *value = sym;
        return XQTB_OK;
    }
    if (sym >= f->info.nsymbols) return XQTB_ERR_CORRUPT;
    *value = (unsigned)f->info.map[2 * sym] | (unsigned)f->info.map[2 * sym + 1] << 8;
    /* Only the searched side may say "search" (docs/FORMAT.md, check 11):
     * this is what bounds the searches, since every move from a searched
     * entry reaches the other side, which is stored, or a smaller table. */
    if (xqf_is_search(kind, *value) && side != f->info.searched) return XQTB_ERR_CORRUPT;
    return XQTB_OK;
}

/* ---- captures in WDL files -----------------------------------------------
 * A WDL file stores, for a position where a capture already reaches its
 * value, any symbol up to that value (docs/FORMAT.md, "Captures in WDL
 * files"), so its value is the better of the symbol and the best capture.
 * The captures lead to tables with fewer pieces, so the recursion ends. */
static int probe_wdl_value(xqtb_handle *h, const xq_board *b, unsigned *sym);

/* The WDL symbol of a legal board whose table e (flipped or not) is known. */
static int probe_wdl_at(xqtb_handle *h, tb_entry *e, int flip, const xq_board *b, unsigned *sym)
{
    int rc = probe_entry(h, e, flip, b, XQF_KIND_WDL, sym);
    if (rc != XQTB_OK || *sym == XQF_WDL_WIN) return rc;
    xq_board c = *b;
    xq_move list[XQ_MAX_MOVES];
    int n = xq_gen_captures(&c, list);
    for (int i = 0; i < n && *sym != XQF_WDL_WIN; i++) {
        xq_undo u;
        unsigned s;
        /* only a position with the side not to move in check offers its
         * king: a trusted probe's caller broke its promise */
        if (kind_of(c.sq[move_to(list[i])]) == KING) return XQTB_ERR_INVALID;
        xq_make_move(&c, list[i], &u);
        rc = probe_wdl_value(h, &c, &s);
        xq_unmake_move(&c, list[i], &u);
        if (rc != XQTB_OK) return rc;
        if (XQF_WDL_WIN - s > *sym) *sym = XQF_WDL_WIN - s;
    }
    return XQTB_OK;
}

static int probe_wdl_value(xqtb_handle *h, const xq_board *b, unsigned *sym)
{
    int flip;
    tb_entry *e = find_entry(h, b, &flip);
    if (!e) return XQTB_ERR_NO_TABLE;
    return probe_wdl_at(h, e, flip, b, sym);
}

/* ---- searched entries ----------------------------------------------------
 * A DTM or DTC file stores one side to move's entries only where a one-ply
 * search cannot find them (docs/FORMAT.md, "Searched entries"); the others
 * say XQF_SEARCH and are found here from their successors, as the
 * generator's Bellman conditions define them (gen/verify.c).  A search
 * looks up only the stored side of the same table, or a table with fewer
 * pieces, so the recursion ends within as many levels as there are
 * captures; a file whose searched entries contradict the search is
 * damaged. */

/* What a DTM search read of its position's quiet successors, kept for the
 * DTC search of the same position that follows it in a full probe: their
 * values are their WDL values too, which that search would otherwise read
 * from the WDL file (docs/BENCHMARKS.md, "A DTC search told by the DTM
 * file"). */
typedef struct {
    const tb_entry *e; /* the table; NULL: nothing kept */
    int side, n;       /* the side to move of the entries; how many */
    uint64_t idx[XQ_MAX_MOVES];
    uint16_t value[XQ_MAX_MOVES]; /* DTM-map values */
} search_memo;

static int search_dtm(xqtb_handle *h, const xq_board *pos, int ruled, unsigned *v, search_memo *memo);
/* search_dtc's `within` for the DTC itself */
enum { DTC_EXACT = -1 };
static int search_dtc(xqtb_handle *h, const xq_board *pos, int win, int within, unsigned *v, const search_memo *memo);

/* The DTM-map value of a legal board; a search keeps what it read in
 * memo, if given. */
static int probe_dtm_value(xqtb_handle *h, const xq_board *b, unsigned *v, search_memo *memo)
{
    int rc = probe_raw(h, b, XQF_KIND_DTM, v);
    if (rc == XQTB_OK && xqf_is_search(XQF_KIND_DTM, *v)) rc = search_dtm(h, b, *v == XQF_SEARCH_RULED, v, memo);
    return rc;
}

/* The DTC-map value of a legal board whose result is a win (win = 1) or
 * loss (0) for the side to move; memo, if given, is what a DTM probe of
 * the same board kept (memo->e NULL if it searched nothing). */
static int probe_dtc_value(xqtb_handle *h, const xq_board *b, int win, unsigned *v, const search_memo *memo)
{
    int rc = probe_raw(h, b, XQF_KIND_DTC, v);
    if (rc == XQTB_OK && *v == XQF_SEARCH) rc = search_dtc(h, b, win, DTC_EXACT, v, memo);
    return rc;
}

/* A quiet successor of a searched entry: its entry in the stored side,
 * and its group's bounds. */
typedef struct {
    uint64_t idx;
    int loss, win, all_wins, ruled; /* xqf_bound_loss, _win, _all_wins, _ruled_loss of its group */
} search_move;

/* The legal moves list[0, n) of b, an entry of e that file f (DTM or DTC,
 * `kind`) says to search, split: into direct[0, *nd) the moves read by a
 * probe of their own (captures, and every move if f has no bounds), into
 * quiet[] the others, with idx[] their successors' entries in f's stored
 * side.  Each quiet move's group of bounds is fetched into the cache as
 * its entry is found, so that the misses overlap and the captures' probes
 * run meanwhile: the bounds are megabytes read at random, and their misses
 * taken one after the other had cost a cold probe a tenth of its time
 * (docs/BENCHMARKS.md, "DTM and DTC files read whole").  Returns the
 * number of quiet moves, -1 for an entry out of f's range. */
static int split_moves(const tb_entry *e, const xqf_file *f, int kind, int flip, xq_board *b, const xq_move *list,
                       int n, xq_move *direct, int *nd, xq_move *quiet, uint64_t *idx)
{
    const uint8_t *bd = f ? f->bounds : NULL;
    int nq = 0;
    *nd = 0;
    for (int i = 0; i < n; i++) {
        if (!bd || b->sq[move_to(list[i])]) {
            direct[(*nd)++] = list[i];
            continue;
        }
        xq_undo u;
        xq_make_move(b, list[i], &u);
        uint64_t j = xq_index_encode(&e->ix, b, flip ? XQ_INDEX_FLIP : 0);
        xq_unmake_move(b, list[i], &u);
        if (j >= f->info.entries) return -1;
        xqf_bounds_prefetch(kind, bd, f->bounds_groups, j >> xqf_bounds_shift(kind));
        quiet[nq] = list[i];
        idx[nq++] = j;
    }
    return nq;
}

/* Adds the value of the position after move m from b to the search. */
static int search_add(xqtb_handle *h, xq_board *b, xq_move m, xqf_dtm_search *acc)
{
    xq_undo u;
    unsigned s;
    xq_make_move(b, m, &u);
    int rc = probe_dtm_value(h, b, &s, NULL);
    xq_unmake_move(b, m, &u);
    if (rc == XQTB_OK) xqf_dtm_search_add(acc, s);
    return rc;
}

/* Adds the value of quiet successor m, stored entry m->idx of e's DTM
 * file (side `stored`), to the search, and keeps it in memo if given. */
static int search_add_stored(xqtb_handle *h, tb_entry *e, int stored, const search_move *m, xqf_dtm_search *acc,
                             search_memo *memo)
{
    unsigned s;
    int rc = probe_entry_at(h, e, XQF_KIND_DTM, stored, m->idx, &s);
    if (rc != XQTB_OK) return rc;
    /* the stored side holds values, never "search" (probe_entry_at checks) */
    xqf_dtm_search_add(acc, s);
    if (memo && memo->n < XQ_MAX_MOVES) {
        memo->idx[memo->n] = m->idx;
        memo->value[memo->n++] = (uint16_t)s;
    }
    return XQTB_OK;
}

/* The keys moves are sorted by: a group's shortest ordinary loss, its
 * longest ordinary win (longest first), its smallest ruled-loss order. */
enum { BY_LOSS, BY_WIN, BY_RULED };

static int move_key(const search_move *m, int by)
{
    return by == BY_LOSS ? m->loss : by == BY_WIN ? -m->win : m->ruled;
}

/* Sorts q[0, n) by key, ascending (a few dozen moves: insertion sort). */
static void sort_moves(search_move *q, int n, int by)
{
    for (int i = 1; i < n; i++) {
        search_move x = q[i];
        int kx = move_key(&x, by), j = i;
        while (j > 0 && move_key(&q[j - 1], by) > kx) {
            q[j] = q[j - 1];
            j--;
        }
        q[j] = x;
    }
}

/* The rest of the search of an entry that says it is a win by a ruling
 * (XQF_SEARCH_RULED): none of its moves reaches an ordinary loss, so its
 * value is the smallest ruled-loss order its moves reach, by the check
 * ruling if any move of that order reaches a result of it.  The quiet
 * moves are read in order of their group's smallest ruled-loss order,
 * until that bound is above the order found, or equal to it once a check
 * ruling has it.  Anything but a ruled win is damage. */
static int search_ruled_win(xqtb_handle *h, tb_entry *e, int stored, search_move *q, int nq, xqf_dtm_search *acc,
                            search_memo *memo, unsigned *v)
{
    sort_moves(q, nq, BY_RULED);
    for (int k = 0; k < nq && q[k].ruled < 64; k++) {
        if (acc->loss_order < (unsigned)q[k].ruled || (acc->loss_order == (unsigned)q[k].ruled && acc->loss_check))
            break;
        int rc = search_add_stored(h, e, stored, &q[k], acc, memo);
        if (rc != XQTB_OK) return rc;
    }
    if (xqf_dtm_search_result(acc, v) || *v == XQF_DTM_DRAW || (*v & (XQF_DTM_RULED | 1)) != (XQF_DTM_RULED | 1))
        return XQTB_ERR_CORRUPT;
    return XQTB_OK;
}

/* Reads the moves of q[0, nq), sorted BY_LOSS, whose group holds an
 * ordinary loss, shortest bound first, until the shortest loss found is no
 * longer than the next group's bound. */
static int read_losses(xqtb_handle *h, tb_entry *e, int stored, search_move *q, int nq, xqf_dtm_search *acc,
                       search_memo *memo)
{
    int k = 0;
    while (k < nq && q[k].loss < 0) k++;
    for (; k < nq; k++) {
        if (acc->shortest_loss != XQF_DTM_RULED && acc->shortest_loss <= (unsigned)q[k].loss) break;
        int rc = search_add_stored(h, e, stored, &q[k], acc, memo);
        if (rc != XQTB_OK) return rc;
        q[k].all_wins = -1; /* read */
    }
    return XQTB_OK;
}

/* DTM of a searched entry: its successors' values through the rule that
 * core/tbformat.c writes once for the reader and the writer
 * (xqf_dtm_search_result).  With the file's search bounds (tbformat.h) it
 * reads only the successors that can change the result, which that rule
 * makes few:
 *   - an ordinary loss among the successors makes the entry a win in one
 *     more than the shortest, whatever the others are: the successors in
 *     groups holding a loss are read shortest bound first, until the
 *     shortest loss found is no longer than the next group's bound; the
 *     others cannot be ordinary losses;
 *   - without one, every successor that may be something other than an
 *     ordinary win is read; if one is (a draw, a ruled result), the
 *     ordinary wins change nothing;
 *   - else the entry is an ordinary loss, one more than its longest win:
 *     the rest, all in groups of ordinary wins, are read longest bound
 *     first, until the longest found is at least the next bound.
 * Captures lead to other tables and are always read.  The value is the
 * same as a search of every move (tests/test_probe.c checks every entry). */
static int search_dtm(xqtb_handle *h, const xq_board *pos, int ruled, unsigned *v, search_memo *memo)
{
    xq_board b = *pos;
    xq_move list[XQ_MAX_MOVES];
    int n = xq_gen_legal(&b, list), flip, nq = 0, rc;
    xqf_dtm_search acc;
    xqf_dtm_search_init(&acc);
    tb_entry *e = find_entry(h, pos, &flip);
    /* e's DTM file is open: it said "search" */
    const xqf_file *df = e ? &e->file[XQF_KIND_DTM] : NULL;
    const uint8_t *bd = df ? df->bounds : NULL;
    int stored = df ? df->info.searched ^ 1 : 0;
    search_move q[XQ_MAX_MOVES];
    xq_move direct[XQ_MAX_MOVES], quiet[XQ_MAX_MOVES];
    uint64_t idx[XQ_MAX_MOVES];
    int nd;
    if ((nq = split_moves(e, df, XQF_KIND_DTM, flip, &b, list, n, direct, &nd, quiet, idx)) < 0)
        return XQTB_ERR_INVALID;
    if (memo) {
        memo->e = e;
        memo->side = stored;
        memo->n = 0;
    }
    for (int i = 0; i < nd; i++)
        if ((rc = search_add(h, &b, direct[i], &acc)) != XQTB_OK) return rc;
    for (int k = 0; k < nq; k++) {
        uint64_t g = idx[k] >> xqf_bounds_shift(XQF_KIND_DTM), groups = df->bounds_groups;
        q[k] = (search_move){idx[k], xqf_bound_loss(bd, g), xqf_bound_win(bd, groups, g), xqf_bound_all(bd, groups, g),
                             xqf_bound_ruled_loss(bd, groups, g)};
    }
    /* An entry that says XQF_SEARCH is an ordinary win, or no win at
     * all: its moves into groups holding an ordinary loss are read first,
     * shortest bound first, and one that reaches an ordinary loss proves
     * the win and its length without the entry's own WDL value (most such
     * entries of an attacker's searched side are wins, and a cold WDL
     * block is one of the four or five blocks their search reads). */
    sort_moves(q, nq, BY_LOSS);
    if (!ruled) {
        if ((rc = read_losses(h, e, stored, q, nq, &acc, memo)) != XQTB_OK) return rc;
        if (acc.shortest_loss != XQF_DTM_RULED) return xqf_dtm_search_result(&acc, v) ? XQTB_ERR_CORRUPT : XQTB_OK;
    }
    /* Else the entry's WDL value says which case it is: a draw needs no read
     * at all, and a loss has no successor that is a loss (a ruled result
     * is a win or a loss in the WDL file, a draw only a draw).  It is the
     * better of the WDL symbol and the best capture (docs/FORMAT.md,
     * "Captures in WDL files"), and every capture is in acc already. */
    unsigned wdl = XQF_WDL_WIN;
    int known = nq && probe_raw(h, pos, XQF_KIND_WDL, &wdl) == XQTB_OK;
    if (!known) wdl = XQF_WDL_WIN; /* no answer: assume nothing */
    if (acc.shortest_loss != XQF_DTM_RULED || acc.loss_order < 64)
        wdl = XQF_WDL_WIN;
    else if (acc.draws && wdl < XQF_WDL_DRAW)
        wdl = XQF_WDL_DRAW;
    if (nq && wdl == XQF_WDL_DRAW) {
        *v = XQF_DTM_DRAW;
        return XQTB_OK;
    }
    /* a win that is no ordinary win is one by a ruling */
    if (ruled && known && wdl == XQF_WDL_WIN) return search_ruled_win(h, e, stored, q, nq, &acc, memo, v);
    /* an entry that says XQF_SEARCH_RULED without a WDL value to trust is
     * searched as a whole: its ordinary losses too */
    if (ruled && !known && (rc = read_losses(h, e, stored, q, nq, &acc, memo)) != XQTB_OK) return rc;
    int k;
    if (acc.shortest_loss == XQF_DTM_RULED) {
        /* no ordinary loss: read whatever may not be an ordinary win */
        for (k = 0; k < nq; k++)
            if (!q[k].all_wins) {
                if ((rc = search_add_stored(h, e, stored, &q[k], &acc, memo)) != XQTB_OK) return rc;
                q[k].all_wins = -1;
            }
        int other = acc.loss_order < 64 || acc.draws || acc.win_order;
        /* then, if all were ordinary wins, the longest of the rest */
        sort_moves(q, nq, BY_WIN);
        for (k = 0; k < nq && !other; k++) {
            if (q[k].all_wins != 1) continue;
            if (acc.moves && acc.longest_win >= (unsigned)q[k].win) break;
            if ((rc = search_add_stored(h, e, stored, &q[k], &acc, memo)) != XQTB_OK) return rc;
        }
    }
    if (xqf_dtm_search_result(&acc, v)) return XQTB_ERR_CORRUPT;
    /* an entry that says XQF_SEARCH_RULED is no ordinary win */
    return ruled && !(*v & XQF_DTM_RULED) && (*v & 1) ? XQTB_ERR_CORRUPT : XQTB_OK;
}

/* DTC of a searched entry whose WDL says win (win = 1) or loss, under the
 * move limit L.  A move "converts in time" if the successor is a result
 * of the right kind (a loss for the opponent after a winner's move, a win
 * after a loser's) whose DTC is a distance d that holds, and its distance,
 * 1 for a capture and d + 1 otherwise, is at most L.  A win converts at
 * its fastest such move; a loss at its slowest, every one of its moves
 * being such a move.  A searched entry is never a cursed win or a blessed
 * loss, but it may be a result of the rulings, whose DTC is "none": a win
 * none of whose successors is an ordinary loss (DTC not "none"), or a loss
 * some successor of which is not an ordinary win, is one (the Bellman
 * conditions on the cells, gen/verify.c). */
typedef struct {
    int best, longest;            /* a win's fastest conversion, a loss's slowest */
    int ordinary, ruled, escapes; /* moves to an ordinary result, to "none" (a loss's), that do not convert */
} dtc_search;

/* What a DTC search knows of a successor's WDL symbol before reading it:
 * the symbol (XQF_WDL_*), nothing, or, from its DTM group (dtm_bounds_say),
 * that it is no ordinary win, so an ordinary loss if its DTC code is not
 * "none". */
enum { WDL_UNKNOWN = -1, WDL_LOSS_IF_ORDINARY = -2 };

/* The successor's WDL symbol where a DTC search must read it: a loss's
 * successors are all wins for the opponent (the Bellman conditions the
 * table's values meet: gen/verify.c), so a loss's search reads none (a
 * cold defender-searched probe reads fewer blocks: docs/BENCHMARKS.md,
 * "The exact DTC alone"); a win's is read unless known. */
static int successor_wdl(xqtb_handle *h, const xq_board *b, int win, int wdl_known, unsigned *wdl)
{
    *wdl = wdl_known >= 0 ? (unsigned)wdl_known : XQF_WDL_WIN;
    return win && wdl_known < 0 ? probe_wdl_value(h, b, wdl) : XQTB_OK;
}

/* Whether a win's move into a successor of DTC code s could change its
 * search: s is a distance, and either no conversion is known yet (the win
 * may be an ordinary one) or it would be faster than the fastest known. */
static int dtc_could_matter(const dtc_search *t, unsigned s)
{
    if (s == XQF_DTC_NONE) return 0;
    return !t->ordinary || (!(s & XQF_DTC_BEYOND) && (int)s + 1 < t->best);
}

/* Whether a search's value can no longer change: a win converts in one
 * ply at best, and a single move into "none" makes a loss a ruled one.
 * Captures, read first, settle it this way on their own (on KRNKR's red
 * wins, the capture of black's rook). */
static int dtc_decided(const dtc_search *t, int win) { return win ? t->best == 1 : t->ruled > 0; }

/* Adds move m from b to the search of a win (win = 1) or a loss.  A
 * quiet move's successor is entry idx of side `stored` of e's DTC file
 * when e is given (no index encoded again), else it is looked up; its WDL
 * symbol is wdl_known if that is one, else it is found (successor_wdl, or
 * for WDL_LOSS_IF_ORDINARY from the DTC code).
 * A win's stored successor of unknown WDL value has its DTC code read
 * first, and its WDL value only where that code could matter: the code
 * alone rules out most of those that cannot convert. */
static int dtc_search_add(xqtb_handle *h, xq_board *b, xq_move m, int win, dtc_search *t, tb_entry *e, int stored,
                          uint64_t idx, int wdl_known)
{
    int limit = xqtb_limit(h), rc;
    xq_undo u;
    unsigned wdl = XQF_WDL_DRAW, s = XQF_DTC_NONE;
    xq_make_move(b, m, &u);
    int capture = u.captured != EMPTY;
    if (win && wdl_known < 0 && e) {
        /* the stored side holds values, never "search" (probe_entry_at checks) */
        rc = probe_entry_at(h, e, XQF_KIND_DTC, stored, idx, &s);
        if (rc == XQTB_OK && dtc_could_matter(t, s)) {
            if (wdl_known == WDL_LOSS_IF_ORDINARY)
                wdl = XQF_WDL_LOSS; /* s is not "none" */
            else
                rc = probe_wdl_value(h, b, &wdl);
        }
    } else {
        rc = successor_wdl(h, b, win, wdl_known, &wdl);
        if (rc == XQTB_OK && wdl == (win ? XQF_WDL_LOSS : XQF_WDL_WIN))
            rc = e ? probe_entry_at(h, e, XQF_KIND_DTC, stored, idx, &s) : probe_dtc_value(h, b, !win, &s, NULL);
    }
    xq_unmake_move(b, m, &u);
    if (rc != XQTB_OK) return rc;
    int right = wdl == (win ? XQF_WDL_LOSS : XQF_WDL_WIN);
    t->ordinary += right && s != XQF_DTC_NONE;
    t->ruled += !win && s == XQF_DTC_NONE;
    int dist = capture ? 1 : (int)(s & ~(unsigned)XQF_DTC_BEYOND) + 1;
    int ok = right && s != XQF_DTC_NONE && !(s & XQF_DTC_BEYOND) && dist <= limit;
    if (win && ok && dist < t->best) t->best = dist;
    t->escapes += !ok;
    if (!win && ok && dist > t->longest) t->longest = dist;
    return XQTB_OK;
}

/* A quiet move of a searched DTC entry, with its successor's group's
 * bounds (tbformat.h: the distances that hold there). */
typedef struct {
    xq_move m;
    uint64_t idx;             /* the successor's entry in the stored side */
    int near, far, all, read; /* xqf_bound_near, _far; all: its distance holds (xqf_bound_all, or
                               * an ordinary win after a loser's move); whether added */
    int wdl;                  /* its WDL symbol if known without a read, else WDL_UNKNOWN or WDL_LOSS_IF_ORDINARY */
} dtc_move;

/* The WDL symbol of stored entry idx if memo holds its DTM value, else
 * WDL_UNKNOWN. */
static int memo_wdl(const search_memo *memo, uint64_t idx)
{
    for (int i = 0; memo && i < memo->n; i++)
        if (memo->idx[i] == idx) {
            unsigned v = memo->value[i];
            return v == XQF_DTM_DRAW ? XQF_WDL_DRAW : (v & 1) ? XQF_WDL_WIN : XQF_WDL_LOSS;
        }
    return WDL_UNKNOWN;
}

/* What a DTM group says to a DTC search (dtm_bounds_say), in two bits:
 * nothing, that it holds no ordinary loss, that it holds an ordinary loss
 * but no ordinary win, or that every entry is an ordinary win. */
enum { DTM_GROUP_UNSAID = 0, DTM_GROUP_NO_LOSS = 1, DTM_GROUP_NO_WIN = 2, DTM_GROUP_ALL_WINS = 3 };

/* That for group g of DTM bounds of `groups` groups. */
static unsigned dtm_group_state(const uint8_t *bounds, uint64_t groups, uint64_t g)
{
    if (xqf_bound_all(bounds, groups, g)) return DTM_GROUP_ALL_WINS;
    if (xqf_bound_loss(bounds, g) < 0) return DTM_GROUP_NO_LOSS;
    return xqf_bound_win(bounds, groups, g) < 0 ? DTM_GROUP_NO_WIN : DTM_GROUP_UNSAID;
}

/* What the DTM file's bounds say of groups of its stored side, as a DTC
 * search reads them: the open file's bounds, or the table's summary of
 * them (either may be NULL). */
typedef struct {
    const xqf_file *df;
    const uint8_t *summary;
} dtm_hint;

/* Builds e's summary of its DTM file's bounds (tb_entry.dtm_summary) from
 * the file opened by block on its own, its bounds decoded and dropped;
 * returns 1, or -1 where there is nothing to summarise (no DTM file, a
 * damaged one or one of other rules, no bounds).  Under e->lock. */
static int build_summary(xqtb_handle *h, tb_entry *e)
{
    xqf_file f;
    if (!e->path[XQF_KIND_DTM] || !e->index_ready ||
        xqf_open(&f, e->path[XQF_KIND_DTM], XQF_KIND_DTM, e->name, e->ix.size, 1) != XQTB_OK)
        return -1;
    int ok = f.bounds && (int)(f.info.rules | f.info.limit << 3) == __atomic_load_n(&h->settled, __ATOMIC_ACQUIRE);
    uint64_t groups = f.bounds_groups;
    if (ok && (e->dtm_summary = calloc((size_t)(groups + 3) / 4, 1)) != NULL) {
        for (uint64_t g = 0; g < groups; g++)
            e->dtm_summary[g / 4] |= (uint8_t)(dtm_group_state(f.bounds, groups, g) << (2 * (g % 4)));
        e->summary_stored = f.info.searched ^ 1;
    }
    xqf_close(&f);
    return e->dtm_summary ? 1 : -1;
}

/* What a DTC search of e, whose stored side is `stored`, may learn of its
 * successors from the DTM file: its bounds where the handle has the file
 * open (a full probe opens it first), else e's summary of them, built on
 * first need.  The summary spares a handle that makes only DTC probes the
 * DTM file and its bounds (0.19 bytes an entry of a side: for the 5-piece
 * set 206 MB, against 16 MB of summaries), which it had held otherwise
 * (docs/BENCHMARKS.md, "A DTC search told by the DTM file").  A DTM file
 * that stores the other side says nothing. */
static dtm_hint dtm_hint_of(xqtb_handle *h, tb_entry *e, int stored)
{
    dtm_hint d = {NULL, NULL};
    if (__atomic_load_n(&e->state[XQF_KIND_DTM], __ATOMIC_ACQUIRE) == 1) {
        const xqf_file *df = &e->file[XQF_KIND_DTM];
        if (df->bounds && df->info.searched == (stored ^ 1)) d.df = df;
        return d;
    }
    int st = __atomic_load_n(&e->summary_state, __ATOMIC_ACQUIRE);
    if (st == 0) {
        pthread_mutex_lock(&e->lock);
        if ((st = e->summary_state) == 0)
            __atomic_store_n(&e->summary_state, st = build_summary(h, e), __ATOMIC_RELEASE);
        pthread_mutex_unlock(&e->lock);
    }
    if (st == 1 && e->summary_stored == stored) d.summary = e->dtm_summary;
    return d;
}

/* Starts loading what d says of stored entry idx (one of several far
 * apart: their misses then overlap). */
static void dtm_hint_prefetch(const dtm_hint *d, uint64_t idx)
{
    uint64_t g = idx >> xqf_bounds_shift(XQF_KIND_DTM);
    if (d->df)
        xqf_bounds_prefetch(XQF_KIND_DTM, d->df->bounds, d->df->bounds_groups, g);
    else if (d->summary)
        __builtin_prefetch(d->summary + g / 4);
}

/* What the DTM file's bounds say of its stored entry idx (in range: split_moves
 * checked it against the DTC file, whose index is the DTM file's): its
 * group's DTM_GROUP_* state.  An ordinary result of the DTM file is one
 * of the WDL file that no ruling decided, the ones whose DTC code is not
 * "none".  So a win's search needs nothing at all of a successor that is
 * no ordinary loss; a successor that is no ordinary win is an ordinary
 * loss exactly where its DTC code is not "none", which its WDL value need
 * not confirm; and a successor of a loss that is an ordinary win cannot
 * make the loss a ruled one.  Where the attacker is searched, the WDL
 * values were about 40% of the blocks a cold `xqtb_probe` decoded
 * (docs/BENCHMARKS.md, "A DTC search told by the DTM file"). */
static unsigned dtm_bounds_say(const dtm_hint *d, uint64_t idx)
{
    uint64_t g = idx >> xqf_bounds_shift(XQF_KIND_DTM);
    if (d->df) return dtm_group_state(d->df->bounds, d->df->bounds_groups, g);
    return d->summary ? (unsigned)(d->summary[g / 4] >> (2 * (g % 4)) & 3) : DTM_GROUP_UNSAID;
}

/* The key a DTC search sorts by: the nearest distance (groups without one
 * last), among equals the group whose farthest is nearer first (its
 * distances the more likely at the nearest: KRNKR's ordinary red wins read
 * 3% fewer blocks); or the farthest, largest first. */
static int64_t dtc_key(const dtc_move *q, int by_far)
{
    if (by_far) return -(int64_t)q->far;
    return q->near < 0 ? INT64_MAX : (int64_t)q->near << 32 | (uint32_t)q->far;
}

/* Sorts q[0, n) by dtc_key, ascending. */
static void sort_dtc_moves(dtc_move *q, int n, int by_far)
{
    for (int i = 1; i < n; i++) {
        dtc_move x = q[i];
        int64_t kx = dtc_key(&x, by_far);
        int j = i;
        while (j > 0 && dtc_key(&q[j - 1], by_far) > kx) {
            q[j] = q[j - 1];
            j--;
        }
        q[j] = x;
    }
}

static int dtc_read(xqtb_handle *h, xq_board *b, dtc_move *q, int win, dtc_search *t, tb_entry *e, int stored)
{
    q->read = 1;
    return dtc_search_add(h, b, q->m, win, t, e, stored, q->idx, q->wdl);
}

/* Whether a win of board b, of table e (flipped or not), is one by a
 * ruling, by its own DTM entry; false if that cannot be read (no DTM file
 * open, or a damaged one: the search then finds it). */
static int ruled_win_by_dtm(xqtb_handle *h, tb_entry *e, int flip, const xq_board *b)
{
    unsigned v;
    /* only a DTM file the handle holds already: see dtm_hint_of */
    if (__atomic_load_n(&e->state[XQF_KIND_DTM], __ATOMIC_ACQUIRE) != 1 ||
        probe_entry(h, e, flip, b, XQF_KIND_DTM, &v) != XQTB_OK)
        return 0;
    /* searched, "no ordinary win"; or stored, a ruling's win */
    return v == XQF_SEARCH_RULED ||
           (!xqf_is_search(XQF_KIND_DTM, v) && v != XQF_DTM_DRAW && (v & (XQF_DTM_RULED | 1)) == (XQF_DTM_RULED | 1));
}

/* A win by a ruling has DTC "none", which its search learns only by
 * reading every move that may convert (none does).  Where no DTM probe of
 * the position has said its win is an ordinary one, a win's search whose
 * first RULED_WIN_AFTER moves read did not convert asks the position's
 * own DTM entry instead, one block, if the handle holds the DTM file: on KRNKR's red positions (a third of
 * its wins are by a ruling) 7% fewer instructions a DTC probe, the
 * defender-searched tables unchanged (docs/BENCHMARKS.md, "A DTC search
 * told by the DTM file").  Asking before any move is read cost the
 * ordinary wins a block each. */
enum { RULED_WIN_AFTER = 1 };

/* With the file's search bounds (docs/FORMAT.md, "Search bounds"), fewer
 * successors are read, the value the same:
 *   - a win: the quiet moves in order of their group's nearest distance,
 *     until the fastest conversion found is no slower than the next
 *     group's could be; without one found (a win by a ruling, or damage),
 *     every move;
 *   - a loss: the quiet moves whose group holds something other than a
 *     distance that holds (a "none" makes the loss a ruled one), then,
 *     without such a successor, the rest in order of their group's
 *     farthest distance, until the slowest found is no faster than the
 *     next group's could be.
 * Captures lead to other tables and are always read.
 *
 * With `within` a distance (0 to L - 1) instead of DTC_EXACT, the search
 * need only tell whether the DTC is at most `within`, which is all a
 * five-valued WDL at a counter asks (xqtb_probe_wdl_counter): *v is then
 * the DTC where that is at most `within`, else a distance above it (at
 * most L, as a searched entry's DTC is), or "none" as above.  A win stops
 * at its first move that converts within it, or once no move left can;
 * a loss stops at its first move that does not, or once every move left
 * must (its group's farthest distance is within it). */
static int search_dtc(xqtb_handle *h, const xq_board *pos, int win, int within, unsigned *v, const search_memo *memo)
{
    int limit = xqtb_limit(h);
    xq_board b = *pos;
    xq_move list[XQ_MAX_MOVES];
    int n = xq_gen_legal(&b, list), flip, nq = 0, rc;
    dtc_search t = {.best = INT32_MAX};
    tb_entry *e = find_entry(h, pos, &flip);
    /* e's DTC file is open: it said "search" */
    const xqf_file *cf = e ? &e->file[XQF_KIND_DTC] : NULL;
    const uint8_t *bd = cf ? cf->bounds : NULL;
    int stored = cf ? cf->info.searched ^ 1 : 0;
    dtc_move q[XQ_MAX_MOVES];
    xq_move direct[XQ_MAX_MOVES], quiet[XQ_MAX_MOVES];
    uint64_t idx[XQ_MAX_MOVES];
    int nd;
    if ((nq = split_moves(e, cf, XQF_KIND_DTC, flip, &b, list, n, direct, &nd, quiet, idx)) < 0)
        return XQTB_ERR_INVALID;
    for (int i = 0; i < nd && !dtc_decided(&t, win); i++)
        if ((rc = dtc_search_add(h, &b, direct[i], win, &t, NULL, 0, 0, -1)) != XQTB_OK) return rc;
    if (dtc_decided(&t, win)) nq = 0;
    /* What the DTM file tells of the quiet successors without a block */
    int ordinary_known = memo != NULL;
    dtm_hint dh = nq ? dtm_hint_of(h, e, stored) : (dtm_hint){NULL, NULL};
    if (memo && (memo->e != e || memo->side != stored)) memo = NULL;
    for (int k = 0; k < nq && (dh.df || dh.summary); k++) dtm_hint_prefetch(&dh, idx[k]);
    int kept = 0;
    for (int k = 0; k < nq; k++) {
        uint64_t g = idx[k] >> xqf_bounds_shift(XQF_KIND_DTC), groups = cf->bounds_groups;
        unsigned said = dtm_bounds_say(&dh, idx[k]);
        int wdl = memo_wdl(memo, idx[k]);
        /* a win's move converts only into an ordinary loss */
        if (win && (said == DTM_GROUP_NO_LOSS || said == DTM_GROUP_ALL_WINS || (wdl >= 0 && wdl != XQF_WDL_LOSS)))
            continue;
        if (win && wdl < 0 && said == DTM_GROUP_NO_WIN) wdl = WDL_LOSS_IF_ORDINARY;
        /* a loss's move into an ordinary win counts by its distance alone,
         * which holds (else the loss were blessed, and stored), as in a
         * group whose every distance holds */
        int holds = xqf_bound_all(bd, groups, g) || (!win && said == DTM_GROUP_ALL_WINS);
        q[kept++] = (dtc_move){.m = quiet[k],
                               .idx = idx[k],
                               .near = xqf_bound_near(bd, g),
                               .far = xqf_bound_far(bd, groups, g),
                               .all = holds,
                               .wdl = wdl};
    }
    nq = kept;
    int early = 0; /* the search stopped once `within` was decided */
    if (win) {
        sort_dtc_moves(q, nq, 0);
        for (int k = 0; k < nq && q[k].near >= 0 && t.best > q[k].near + 1; k++) {
            if (within != DTC_EXACT && (t.best <= within || q[k].near + 1 > within)) {
                early = 1;
                break;
            }
            if (k == RULED_WIN_AFTER && !t.ordinary && !ordinary_known && ruled_win_by_dtm(h, e, flip, pos)) {
                *v = XQF_DTC_NONE;
                return XQTB_OK;
            }
            if ((rc = dtc_read(h, &b, &q[k], win, &t, e, stored)) != XQTB_OK) return rc;
        }
        /* stopped before RULED_WIN_AFTER with no ordinary loss read yet */
        if (early && !t.ordinary && !ordinary_known && ruled_win_by_dtm(h, e, flip, pos)) {
            *v = XQF_DTC_NONE;
            return XQTB_OK;
        }
        for (int k = 0; k < nq && !t.ordinary; k++)
            if (!q[k].read && (rc = dtc_read(h, &b, &q[k], win, &t, e, stored)) != XQTB_OK) return rc;
    } else {
        for (int k = 0; k < nq; k++)
            if (!q[k].all && !t.ruled && (rc = dtc_read(h, &b, &q[k], win, &t, e, stored)) != XQTB_OK) return rc;
        sort_dtc_moves(q, nq, 1);
        for (int k = 0; k < nq && !t.ruled && t.longest < q[k].far; k++) {
            if (within != DTC_EXACT && (t.longest > within || q[k].far <= within)) break;
            if (!q[k].read && (rc = dtc_read(h, &b, &q[k], win, &t, e, stored)) != XQTB_OK) return rc;
        }
    }
    if (win ? !t.ordinary : t.ruled > 0) {
        *v = XQF_DTC_NONE;
        return XQTB_OK;
    }
    /* A win stopped early without a move that converts within `within`
     * has one that converts later, by the limit (the entry holds): its
     * DTC is above `within`, which t.best is or, with no move read that
     * converts, the limit stands for. */
    if (win && early && t.best > limit) t.best = limit;
    /* an ordinary result that does not hold should have been stored */
    if (win ? t.best > limit : t.escapes > 0) return XQTB_ERR_CORRUPT;
    *v = (unsigned)(win ? t.best : t.longest);
    return XQTB_OK;
}

static xqtb_wdl wdl_of_symbol(unsigned sym)
{
    return sym == XQF_WDL_WIN ? XQTB_WIN : sym == XQF_WDL_DRAW ? XQTB_DRAW : XQTB_LOSS;
}

/* The plies of a DTC code, as xqtb_result.dtc gives them: the distance
 * of a cursed win or blessed loss too, XQTB_NO_DISTANCE for "none". */
static int dtc_plies_of(unsigned code)
{
    return code == XQF_DTC_NONE ? XQTB_NO_DISTANCE : (int)(code & ~(unsigned)XQF_DTC_BEYOND);
}

/* Five-valued result at `counter` plies since the last capture: a win or
 * loss holds if its conversion fits in what is left of the limit. */
static xqtb_wdl5 wdl5_of(xqtb_wdl wdl, unsigned dtc, int limit, int counter)
{
    if (wdl == XQTB_DRAW) return XQTB_WDL5_DRAW;
    if (limit <= 0 || dtc == XQF_DTC_NONE) return (xqtb_wdl5)(2 * wdl); /* no limit, or a ruled result */
    int holds = !(dtc & XQF_DTC_BEYOND) && (int)(dtc & ~(unsigned)XQF_DTC_BEYOND) <= limit - counter;
    return (xqtb_wdl5)(holds ? 2 * wdl : wdl);
}

/* The DTC map value of a decided position, XQF_DTC_NONE without a limit
 * (memo as probe_dtc_value's). */
static int probe_dtc_code(xqtb_handle *h, const xq_board *b, int win, unsigned *dtc, const search_memo *memo)
{
    *dtc = XQF_DTC_NONE;
    if (xqtb_limit(h) <= 0) return XQTB_OK;
    return probe_dtc_value(h, b, win, dtc, memo);
}

/* The DTC-map value of a board whose result is a win (win = 1) or a loss
 * (0), as far as a five-valued WDL with `within` plies left (0 to the
 * limit L) needs it: a code that holds within them exactly where the
 * board's does, that does not where it does not, and "none" or a cursed
 * win's or blessed loss's code as the board's.  What it may skip:
 *   - a stored entry whose group (docs/FORMAT.md, "Search bounds") holds
 *     only distances that hold, all within the plies left or all beyond
 *     them: no block is read;
 *   - a searched entry is never a cursed win or a blessed loss (FORMAT.md,
 *     "Searched entries"): with all L plies left (a fresh counter, as after
 *     the capture that enters the table) its result holds, by a distance
 *     or by a ruling, and nothing is searched; with fewer, the search stops
 *     once it knows (search_dtc's `within`).
 * KRNKR's red positions (searched), cold: 21.6 -> 2.6 us at a fresh
 * counter, 14.0-14.6 us at counters 10-100 (docs/BENCHMARKS.md, "WDL
 * under the move limit without the DTC"). */
static int probe_dtc_within(xqtb_handle *h, const xq_board *b, int win, int within, unsigned *v)
{
    int flip, side, rc;
    uint64_t idx;
    tb_entry *e = find_entry(h, b, &flip);
    if (!e) return XQTB_ERR_NO_TABLE;
    if ((rc = locate_entry(h, e, flip, b, XQF_KIND_DTC, &side, &idx)) != XQTB_OK) return rc;
    const xqf_file *f = &e->file[XQF_KIND_DTC];
    if (f->bounds && side != f->info.searched) {
        uint64_t g = idx >> xqf_bounds_shift(XQF_KIND_DTC);
        int32_t far = xqf_bound_far(f->bounds, f->bounds_groups, g);
        int near = xqf_bound_near(f->bounds, g);
        /* every entry of the group a distance d, near <= d < far */
        if (xqf_bound_all(f->bounds, f->bounds_groups, g) && near >= 0) {
            if (far != INT32_MAX && far - 1 <= within) {
                *v = (unsigned)(far - 1);
                return XQTB_OK;
            }
            if (near > within) {
                *v = (unsigned)near;
                return XQTB_OK;
            }
        }
    }
    if ((rc = probe_entry_at(h, e, XQF_KIND_DTC, side, idx, v)) != XQTB_OK || *v != XQF_SEARCH) return rc;
    if (within >= xqtb_limit(h)) {
        *v = (unsigned)within;
        return XQTB_OK;
    }
    return search_dtc(h, b, win, within, v, NULL);
}

/* Everything about a legal board at a counter (0 .. limit + 1: one past
 * the limit is where a quiet move from a position at the limit leads). */
static int probe_full(xqtb_handle *h, const xq_board *b, int counter, xqtb_result *r)
{
    unsigned v;
    search_memo memo;
    memo.e = NULL; /* the DTM search of b fills it; its DTC search reads it */
    int rc = probe_dtm_value(h, b, &v, &memo);
    if (rc != XQTB_OK) return rc;
    memset(r, 0, sizeof *r);
    r->dtm = r->dtc = XQTB_NO_DISTANCE;
    if (v == XQF_DTM_DRAW) {
        r->wdl = XQTB_DRAW;
    } else if (v & XQF_DTM_RULED) { /* checked when the file was opened */
        r->wdl = (v & 1) ? XQTB_WIN : XQTB_LOSS;
        /* a cxa table records one ruling, perpetual attack, in the chase bit */
        r->by_rule = !(v & 2)                          ? XQTB_BY_PERPETUAL_CHECK
                     : xqtb_rules(h) == XQTB_RULES_CXA ? XQTB_BY_PERPETUAL_ATTACK
                                                       : XQTB_BY_PERPETUAL_CHASE;
        r->order = (int)(v & 0xFF) >> 2;
    } else {
        r->wdl = (v & 1) ? XQTB_WIN : XQTB_LOSS;
        r->dtm = (int)v;
    }
    unsigned dtc = XQF_DTC_NONE;
    if (r->wdl != XQTB_DRAW && !r->by_rule && (rc = probe_dtc_code(h, b, r->wdl == XQTB_WIN, &dtc, &memo)) != XQTB_OK)
        return rc;
    r->dtc = dtc_plies_of(dtc);
    r->wdl5 = wdl5_of(r->wdl, dtc, xqtb_limit(h), counter);
    return XQTB_OK;
}

/* A counter past the limit counts as the limit reached: a game may run
 * past it when no one claims the draw, and every win not yet converted is
 * then cursed.  (The limit is known once the handle is open.) */
static int clamp_counter(const xqtb_handle *h, int counter)
{
    int limit = xqtb_limit(h);
    return limit > 0 && counter > limit ? limit : counter;
}

xqtb_status xqtb_probe_wdl(xqtb_handle *h, const xqtb_position *pos, xqtb_wdl *wdl)
{
    xq_board b;
    if (!h || !wdl || xq_position_to_board(pos, &b, NULL)) return XQTB_ERR_INVALID;
    unsigned sym;
    int rc = probe_wdl_value(h, &b, &sym);
    if (rc == XQTB_OK) *wdl = wdl_of_symbol(sym);
    return rc;
}

xqtb_status xqtb_probe_wdl_trusted(xqtb_handle *h, const xqtb_position *pos, xqtb_wdl *wdl)
{
    if (!h || !wdl || !pos) return XQTB_ERR_INVALID;
    /* the material first: a position no table covers costs no more than
     * xqtb_covered */
    int32_t e = position_material(h, pos);
    if (e == -2) return XQTB_ERR_INVALID;
    if (e < 0 || !(e & HAS_WDL)) return XQTB_ERR_NO_TABLE;
    xq_board b;
    if (xq_position_to_board_trusted(pos, &b)) return XQTB_ERR_INVALID;
    unsigned sym;
    int rc = probe_wdl_at(h, &h->e[e & ENTRY_BITS], (e & FLIPPED) != 0, &b, &sym);
    if (rc == XQTB_OK) *wdl = wdl_of_symbol(sym);
    return rc;
}

xqtb_status xqtb_probe_wdl_counter(xqtb_handle *h, const xqtb_position *pos, int rule_counter, xqtb_wdl5 *wdl5)
{
    xq_board b;
    if (!h || !wdl5 || rule_counter < 0 || xq_position_to_board(pos, &b, NULL)) return XQTB_ERR_INVALID;
    unsigned sym, dtc = XQF_DTC_NONE;
    int rc = probe_wdl_value(h, &b, &sym);
    if (rc != XQTB_OK) return rc;
    rule_counter = clamp_counter(h, rule_counter);
    int wdl = wdl_of_symbol(sym), limit = xqtb_limit(h);
    if (wdl != XQTB_DRAW && limit > 0 &&
        (rc = probe_dtc_within(h, &b, wdl == XQTB_WIN, limit - rule_counter, &dtc)) != XQTB_OK)
        return rc;
    *wdl5 = wdl5_of(wdl, dtc, limit, rule_counter);
    return XQTB_OK;
}

/* xqtb_probe_dtc of board b: the WDL value, and the DTC code of a decided
 * position (XQF_DTC_NONE for a draw, a ruled result, or no move limit). */
static int probe_wdl_dtc(xqtb_handle *h, const xq_board *b, xqtb_wdl *wdl, unsigned *code)
{
    unsigned sym;
    *code = XQF_DTC_NONE;
    int rc = probe_wdl_value(h, b, &sym);
    if (rc != XQTB_OK) return rc;
    *wdl = wdl_of_symbol(sym);
    /* no DTM file read: its search's memo is what the DTC search lacks */
    return *wdl == XQTB_DRAW ? XQTB_OK : probe_dtc_code(h, b, *wdl == XQTB_WIN, code, NULL);
}

xqtb_status xqtb_probe_dtc(xqtb_handle *h, const xqtb_position *pos, int rule_counter, xqtb_wdl5 *wdl5, int *dtc)
{
    xq_board b;
    if (!h || !wdl5 || !dtc || rule_counter < 0 || xq_position_to_board(pos, &b, NULL)) return XQTB_ERR_INVALID;
    xqtb_wdl wdl;
    unsigned code;
    int rc = probe_wdl_dtc(h, &b, &wdl, &code);
    if (rc != XQTB_OK) return rc;
    *dtc = dtc_plies_of(code);
    *wdl5 = wdl5_of(wdl, code, xqtb_limit(h), clamp_counter(h, rule_counter));
    return XQTB_OK;
}

xqtb_status xqtb_probe_dtm(xqtb_handle *h, const xqtb_position *pos, xqtb_wdl *wdl, int *dtm)
{
    xq_board b;
    if (!h || !wdl || !dtm || xq_position_to_board(pos, &b, NULL)) return XQTB_ERR_INVALID;
    unsigned v;
    int rc = probe_dtm_value(h, &b, &v, NULL);
    if (rc != XQTB_OK) return rc;
    if (v == XQF_DTM_DRAW) {
        *wdl = XQTB_DRAW;
        *dtm = XQTB_NO_DISTANCE;
    } else {
        *wdl = (v & 1) ? XQTB_WIN : XQTB_LOSS;
        *dtm = (v & XQF_DTM_RULED) ? XQTB_NO_DISTANCE : (int)v;
    }
    return XQTB_OK;
}

xqtb_status xqtb_probe_counter(xqtb_handle *h, const xqtb_position *pos, int rule_counter, xqtb_result *r)
{
    xq_board b;
    if (!h || !r || rule_counter < 0 || xq_position_to_board(pos, &b, NULL)) return XQTB_ERR_INVALID;
    xqtb_result v;
    int rc = probe_full(h, &b, clamp_counter(h, rule_counter), &v);
    if (rc == XQTB_OK) *r = v;
    return rc;
}

xqtb_status xqtb_probe(xqtb_handle *h, const xqtb_position *pos, xqtb_result *r)
{
    return xqtb_probe_counter(h, pos, 0, r);
}

/* Rank of a root move (xqtb_root_move.rank): bigger is better.  Classes
 * from best, RANK_CLASS apart: a win that holds under the move limit
 * (ordinary, then by a ruling), a cursed win, a draw, a blessed loss, an
 * ordinary loss, and last a loss by a ruling: a move into a position where
 * the mover would have to check (or chase) for ever, and lose by his own
 * ruling, which a defending engine must avoid while a longer ordinary
 * defence exists (XQTB_LOSE_RESIST_LONGEST puts those between the blessed
 * and the ordinary losses instead).  Within a class: ordinary results by
 * distance to conversion when there is a limit, then by DTM (each capped
 * at 1023, so dist < RANK_DIST_SPAN); ruled ones by order, and among ruled
 * wins of one order a move that does not check first (the winner must not
 * be the one checking forever).  A move that completes a repetition of the
 * game's history and wins by the opponent's ruling ranks above all, one
 * that loses by the mover's own below all. */
enum { RANK_CLASS = 1 << 21, RANK_DIST_CAP = 1023, RANK_DIST_SPAN = 1 << 20 };

static int32_t root_rank_of(const xqtb_root_move *m, int checks, xqtb_loss_policy policy)
{
    if (m->repetition && m->by_rule) return m->wdl > 0 ? 3 * RANK_CLASS + 1 : -3 * RANK_CLASS - 1;
    int32_t dtc = m->dtc < 0 ? 0 : m->dtc > RANK_DIST_CAP ? RANK_DIST_CAP : m->dtc;
    int32_t dtm = m->dtm < 0 ? 0 : m->dtm > RANK_DIST_CAP ? RANK_DIST_CAP : m->dtm;
    int32_t dist = dtc << 10 | dtm; /* conversion first, then mate */
    int32_t order = m->order < RANK_DIST_SPAN ? m->order : RANK_DIST_SPAN - 1;
    switch (m->wdl5) {
    case XQTB_WDL5_WIN:
        if (!m->by_rule) return 3 * RANK_CLASS - dist;
        return 2 * RANK_CLASS - order * 2 - checks;
    case XQTB_WDL5_CURSED_WIN: return RANK_CLASS - dist;
    case XQTB_WDL5_DRAW: return 0;
    case XQTB_WDL5_BLESSED_LOSS: return -RANK_CLASS + dist;
    default:
        if (!m->by_rule) return -2 * RANK_CLASS + dist;
        if (policy == XQTB_LOSE_RESIST_LONGEST) return -2 * RANK_CLASS + RANK_DIST_SPAN + order;
        return -3 * RANK_CLASS + order;
    }
}

/* Puts r into moves[0..i] by rank; equal ranks keep generation order. */
static void insert_by_rank(xqtb_root_move *moves, int i, const xqtb_root_move *r)
{
    int j = i;
    while (j > 0 && r->rank > moves[j - 1].rank) {
        moves[j] = moves[j - 1];
        j--;
    }
    moves[j] = *r;
}

/* What a root probe reads (probe_root), the most the files allow: every
 * file; or, where a DTM file is missing under a move limit (a set exported
 * without them), the WDL and DTC files, which give each move's result
 * under the limit and its DTC, and tell a result decided by a ruling from
 * an ordinary one (its DTC is "none") but not which ruling, nor its order;
 * or, where a DTC file is missing too, the WDL files alone. */
typedef enum { ROOT_ALL_FILES, ROOT_WDL_DTC, ROOT_WDL_ONLY } root_source;

/* The value of root move m of b from the mover's point of view, with
 * `counter` plies since the last capture before it, from the files
 * `source` names: with ROOT_WDL_DTC no DTM (by_rule XQTB_BY_RULING and
 * order 0 for a ruled result), with ROOT_WDL_ONLY no distances either (and
 * wdl5 without the move limit).  *checks: whether the move checks. */
static int root_move_value(xqtb_handle *h, xq_board *b, xq_move m, int counter, root_source source, xqtb_root_move *r,
                           int *checks)
{
    xq_undo u;
    xqtb_result v;
    xqtb_wdl wdl = XQTB_DRAW;
    unsigned sym = 0, code = XQF_DTC_NONE;
    xq_make_move(b, m, &u);
    /* the counter resets on a capture and on nothing else */
    int after = u.captured ? 0 : counter + 1;
    int rc = source == ROOT_WDL_ONLY  ? probe_wdl_value(h, b, &sym)
             : source == ROOT_WDL_DTC ? probe_wdl_dtc(h, b, &wdl, &code)
                                      : probe_full(h, b, after, &v);
    *checks = xq_in_check(b, b->side);
    xq_unmake_move(b, m, &u);
    if (rc != XQTB_OK) return rc;
    memset(r, 0, sizeof *r);
    r->move = m;
    if (source == ROOT_WDL_ONLY) {
        r->wdl = (int8_t)-wdl_of_symbol(sym);
        r->wdl5 = (int8_t)(2 * r->wdl);
        r->dtm = r->dtc = XQTB_NO_DISTANCE;
        return XQTB_OK;
    }
    if (source == ROOT_WDL_DTC) {
        int dtc = dtc_plies_of(code);
        v.wdl = wdl;
        v.wdl5 = wdl5_of(wdl, code, xqtb_limit(h), clamp_counter(h, after));
        /* every ordinary result has a DTC (cursed and blessed ones too) */
        v.by_rule = wdl != XQTB_DRAW && dtc < 0 ? XQTB_BY_RULING : XQTB_BY_NONE;
        v.order = 0;
        v.dtm = XQTB_NO_DISTANCE;
        v.dtc = dtc;
    }
    r->wdl = (int8_t)-v.wdl;
    r->wdl5 = (int8_t)-v.wdl5;
    r->by_rule = (int8_t)v.by_rule;
    r->dtm = v.dtm < 0 ? XQTB_NO_DISTANCE : v.dtm + 1;
    r->order = v.order;
    r->dtc = v.dtc < 0 ? XQTB_NO_DISTANCE : u.captured ? 1 : v.dtc + 1;
    return XQTB_OK;
}

/* If root move r->move repeats a position of the game g (which ends at
 * the root), replaces r's value by the verdict of that repetition. */
static void judge_root_repetition(xq_game *g, int rules, xqtb_root_move *r)
{
    xq_verdict v;
    int mover = g->pos[g->n].side;
    xq_game_push(g, r->move);
    int first = xq_game_judge(g, rules, &v);
    xq_game_pop(g);
    if (first < 0) return;
    r->repetition = 1;
    r->order = 0;
    r->dtm = r->dtc = XQTB_NO_DISTANCE;
    if (v.loser < 0) {
        r->wdl = XQTB_DRAW;
        r->wdl5 = XQTB_WDL5_DRAW;
        r->by_rule = XQTB_BY_NONE;
        return;
    }
    r->wdl = (int8_t)(v.loser == mover ? XQTB_LOSS : XQTB_WIN);
    r->wdl5 = (int8_t)(2 * r->wdl);
    r->by_rule = (int8_t)v.by_rule; /* xq_by_rule and xqtb_ruling number the rulings alike */
}

/* Every legal move of b with its value, best first (xqtb_probe_root_ex);
 * g, if not NULL, is the game that led to b, with room for one move. */
static int probe_root(xqtb_handle *h, xq_board *b, int counter, xqtb_loss_policy policy, xq_game *g,
                      xqtb_root_move *moves)
{
    xq_move list[XQ_MAX_MOVES];
    int n = xq_gen_legal(b, list);
    counter = clamp_counter(h, counter);
    /* a file some move needs is missing: every move from fewer files */
    root_source source = ROOT_ALL_FILES;
    for (int i = 0; i < n; i++) {
        xqtb_root_move r;
        int checks;
        int rc = root_move_value(h, b, list[i], counter, source, &r, &checks);
        if (rc == XQTB_ERR_NO_TABLE && source != ROOT_WDL_ONLY) {
            source = source == ROOT_ALL_FILES && xqtb_limit(h) > 0 ? ROOT_WDL_DTC : ROOT_WDL_ONLY;
            i = -1;
            continue;
        }
        if (rc != XQTB_OK) return rc;
        if (g) judge_root_repetition(g, xqtb_rules(h), &r);
        r.rank = root_rank_of(&r, checks, policy);
        insert_by_rank(moves, i, &r);
    }
    return n;
}

int xqtb_probe_root_ex(xqtb_handle *h, const xqtb_position *pos, const xqtb_root_options *opt,
                       xqtb_root_move moves[XQTB_MAX_MOVES])
{
    xq_board b;
    if (!h || !moves || !opt || opt->rule_counter < 0 || xq_position_to_board(pos, &b, NULL)) return XQTB_ERR_INVALID;
    if (opt->loss_policy != XQTB_LOSE_AVOID_RULING && opt->loss_policy != XQTB_LOSE_RESIST_LONGEST)
        return XQTB_ERR_INVALID;
    if (!opt->history_start) return probe_root(h, &b, opt->rule_counter, opt->loss_policy, NULL, moves);
    xq_game g;
    int rc = xq_game_replay(opt->history_start, opt->history_moves, opt->history_length, 1, &g);
    if (rc != XQTB_OK) return rc;
    if (!xq_board_equal(&g.pos[g.n], &b))
        rc = XQTB_ERR_INVALID; /* the history leads elsewhere */
    else
        rc = probe_root(h, &b, opt->rule_counter, opt->loss_policy, &g, moves);
    xq_game_free(&g);
    return rc;
}

int xqtb_probe_root_counter(xqtb_handle *h, const xqtb_position *pos, int rule_counter,
                            xqtb_root_move moves[XQTB_MAX_MOVES])
{
    xqtb_root_options opt = {.rule_counter = rule_counter};
    return xqtb_probe_root_ex(h, pos, &opt, moves);
}

int xqtb_probe_root(xqtb_handle *h, const xqtb_position *pos, xqtb_root_move moves[XQTB_MAX_MOVES])
{
    return xqtb_probe_root_counter(h, pos, 0, moves);
}

int xqtb_probe_pv(xqtb_handle *h, const xqtb_position *pos, int rule_counter, uint16_t *pv, int max, xqtb_pv_end *end)
{
    if (!h || !pos || !pv || !end || max < 0 || rule_counter < 0) return XQTB_ERR_INVALID;
    if (max > XQTB_PV_MAX) max = XQTB_PV_MAX;
    /* every position of the line, to stop at the first one that repeats */
    xqtb_position *seen = malloc(((size_t)max + 1) * sizeof *seen);
    if (!seen) return XQTB_ERR_NOMEM;
    int n = 0, limit = xqtb_limit(h), counter = clamp_counter(h, rule_counter);
    int rc = XQTB_OK;
    seen[0] = *pos;
    *end = XQTB_PV_END_LENGTH;
    while (n < max) {
        xqtb_root_move mv[XQTB_MAX_MOVES];
        int k = xqtb_probe_root_counter(h, &seen[n], counter, mv);
        if (k < 0) {
            rc = k;
            break;
        }
        if (k == 0 || mv[0].wdl5 == XQTB_WDL5_DRAW || (limit > 0 && mv[0].wdl5 != 2 * mv[0].wdl)) {
            /* mate; or nothing to play for: a draw, or a result the move
             * limit turns into one */
            *end = k == 0 ? XQTB_PV_END_MATE : XQTB_PV_END_DRAW;
            break;
        }
        pv[n] = mv[0].move;
        int capture = seen[n].board[xqtb_move_to(mv[0].move)] != 0;
        seen[n + 1] = seen[n];
        xqtb_play(&seen[n + 1], mv[0].move);
        n++;
        counter = capture ? 0 : counter + 1;
        if (limit > 0 && counter > limit) {
            *end = XQTB_PV_END_LIMIT;
            break;
        }
        int repeats = 0;
        for (int i = 0; i < n && !repeats; i++) repeats = !memcmp(&seen[i], &seen[n], sizeof *seen);
        if (repeats) {
            *end = XQTB_PV_END_REPETITION;
            break;
        }
    }
    free(seen);
    return rc < 0 ? rc : n;
}

xqtb_status xqtb_material_name(const xqtb_position *pos, char buf[XQTB_MATERIAL_MAX])
{
    xq_board b;
    if (!buf || xq_position_to_board(pos, &b, NULL)) return XQTB_ERR_INVALID;
    xq_material m;
    xq_material_of(&b, &m);
    xq_material_canonical(&m, &m);
    xq_material_name(&m, buf);
    return XQTB_OK;
}
