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

#include "cache.h"
#include "fen.h"
#include "file.h"
#include "index.h"
#include "material.h"
#include "movegen.h"
#include "position_internal.h"
#include "tbformat.h"
#include "xqtb.h"

enum { KIND_WDL = 0, KIND_DTM = 1, DEFAULT_CACHE = 64 << 20 };

typedef struct {
    uint64_t key; /* material_key of the canonical material */
    xq_material mat;
    char name[XQ_MATERIAL_MAX];
    char *path[2];   /* file per kind, NULL if absent */
    pthread_mutex_t lock;
    int state[2];    /* 0 not opened, 1 open, < 0 the xqtb_status of the failure */
    int index_ready;
    xq_index ix;
    xqf_file file[2];
    uint32_t file_id[2];
} tb_entry;

struct xqtb_handle {
    tb_entry *e;
    int n, largest;
    xq_cache *cache;
    int rules; /* rule set of the files opened so far, -1 before the first */
};

/* Counts of both colours' non-king pieces packed 3 bits each. */
static uint64_t material_key(const xq_material *m)
{
    uint64_t k = 0;
    for (int c = 0; c < 2; c++)
        for (int kind = ADVISOR; kind < KIND_NB; kind++) k = k << 3 | m->count[c][kind];
    return k;
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
    int kind = !strcmp(file + len - 3, "xqw") ? KIND_WDL : !strcmp(file + len - 3, "xqd") ? KIND_DTM : -1;
    if (kind < 0) return 0;
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

xqtb_handle *xqtb_open(const char *paths, const xqtb_options *opt, int *status)
{
    int dummy;
    if (!status) status = &dummy;
    if (!paths) {
        *status = XQTB_ERR_INVALID;
        return NULL;
    }
    if (opt && (opt->require_rules < 0 || opt->require_rules > 1 + XQTB_RULES_FULL)) {
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
    h->rules = opt && opt->require_rules ? opt->require_rules - 1 : -1;
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
        h->e[i].file_id[KIND_WDL] = (uint32_t)(2 * i);
        h->e[i].file_id[KIND_DTM] = (uint32_t)(2 * i + 1);
        int pieces = xq_material_pieces(&h->e[i].mat);
        if (pieces > h->largest) h->largest = pieces;
    }
    h->cache = xq_cache_new(opt && opt->cache_bytes ? opt->cache_bytes : DEFAULT_CACHE);
    if (!h->cache) {
        rc = XQTB_ERR_NOMEM;
        goto fail;
    }
    free(list);
    *status = XQTB_OK;
    return h;
fail:
    free(list);
    if (h) {
        for (int i = 0; i < h->n; i++) {
            free(h->e[i].path[0]);
            free(h->e[i].path[1]);
        }
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
        for (int k = 0; k < 2; k++) {
            if (e->state[k] == 1) xqf_close(&e->file[k]);
            free(e->path[k]);
        }
        if (e->index_ready) xq_index_free(&e->ix);
        pthread_mutex_destroy(&e->lock);
    }
    xq_cache_free(h->cache);
    free(h->e);
    free(h);
}

int xqtb_table_count(const xqtb_handle *h) { return h ? h->n : 0; }
int xqtb_largest(const xqtb_handle *h) { return h ? h->largest : 0; }

static tb_entry *find_entry(xqtb_handle *h, const xq_material *canon)
{
    uint64_t key = material_key(canon);
    int lo = 0, hi = h->n - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (h->e[mid].key == key) return &h->e[mid];
        if (h->e[mid].key < key)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return NULL;
}

/* Maps and checks the file of one kind, once; returns its state. */
/* The first file opened fixes the handle's rule set (unless the options
 * did); returns false for a file of another. */
static int settle_rules(xqtb_handle *h, int rules)
{
    int expected = -1;
    if (__atomic_compare_exchange_n(&h->rules, &expected, rules, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return 1;
    return expected == rules;
}

int xqtb_rules(const xqtb_handle *h) { return h ? __atomic_load_n(&h->rules, __ATOMIC_ACQUIRE) : -1; }

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
            int rc = xqf_open(&e->file[kind], e->path[kind], kind == KIND_WDL ? XQF_KIND_WDL : XQF_KIND_DTM, e->name,
                              e->ix.size);
            if (rc == XQTB_OK && !settle_rules(h, (int)e->file[kind].rules)) {
                xqf_close(&e->file[kind]);
                rc = XQTB_ERR_MISMATCH;
            }
            st = rc == XQTB_OK ? 1 : rc;
        }
        /* NOMEM may pass; everything else is remembered */
        if (st != XQTB_ERR_NOMEM) __atomic_store_n(&e->state[kind], st, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&e->lock);
    return st;
}

/* Value of a legal board from the file of `kind`. */
static int probe_board(xqtb_handle *h, const xq_board *b, int kind, xqtb_result *r)
{
    xq_material m, canon;
    xq_material_of(b, &m);
    int flip = xq_material_needs_flip(&m);
    if (flip)
        xq_material_flip(&m, &canon);
    else
        canon = m;
    tb_entry *e = find_entry(h, &canon);
    if (!e) return XQTB_ERR_NO_TABLE;
    int st = ensure_open(h, e, kind);
    if (st != 1) return st;
    const xqf_file *f = &e->file[kind];
    uint64_t idx = xq_index_encode(&e->ix, b, flip ? XQ_INDEX_FLIP : 0);
    if (idx >= f->entries) return XQTB_ERR_INVALID;
    unsigned sym;
    int rc = xq_cache_symbol(h->cache, f, e->file_id[kind], b->side ^ flip, idx, &sym);
    if (rc != XQTB_OK) return rc;
    memset(r, 0, sizeof *r);
    if (kind == KIND_WDL) {
        if (sym > XQF_WDL_WIN) return XQTB_ERR_CORRUPT;
        r->wdl = sym == XQF_WDL_WIN ? XQTB_WIN : sym == XQF_WDL_DRAW ? XQTB_DRAW : XQTB_LOSS;
        return XQTB_OK;
    }
    if (sym >= f->nsymbols) return XQTB_ERR_CORRUPT;
    unsigned v = (unsigned)f->dtm_map[2 * sym] | (unsigned)f->dtm_map[2 * sym + 1] << 8;
    if (v == XQF_DTM_DRAW) {
        r->wdl = XQTB_DRAW;
    } else if (v & XQF_DTM_RULED) { /* checked when the file was opened */
        r->wdl = (v & 1) ? XQTB_WIN : XQTB_LOSS;
        r->by_rule = (v & 2) ? XQTB_BY_PERPETUAL_CHASE : XQTB_BY_PERPETUAL_CHECK;
        r->order = (int)(v & 0xFF) >> 2;
    } else {
        r->wdl = (v & 1) ? XQTB_WIN : XQTB_LOSS;
        r->dtm = (int)v;
    }
    return XQTB_OK;
}

int xqtb_probe_wdl(xqtb_handle *h, const xqtb_position *pos, int *wdl)
{
    xq_board b;
    if (!h || !wdl || xq_position_to_board(pos, &b, NULL)) return XQTB_ERR_INVALID;
    xqtb_result r;
    int rc = probe_board(h, &b, KIND_WDL, &r);
    if (rc == XQTB_OK) *wdl = r.wdl;
    return rc;
}

int xqtb_probe_dtm(xqtb_handle *h, const xqtb_position *pos, int *wdl, int *dtm)
{
    xq_board b;
    if (!h || !wdl || !dtm || xq_position_to_board(pos, &b, NULL)) return XQTB_ERR_INVALID;
    xqtb_result r;
    int rc = probe_board(h, &b, KIND_DTM, &r);
    if (rc == XQTB_OK) {
        *wdl = r.wdl;
        *dtm = r.by_rule ? -1 : r.dtm;
    }
    return rc;
}

int xqtb_probe(xqtb_handle *h, const xqtb_position *pos, xqtb_result *r)
{
    xq_board b;
    if (!h || !r || xq_position_to_board(pos, &b, NULL)) return XQTB_ERR_INVALID;
    xqtb_result v;
    int rc = probe_board(h, &b, KIND_DTM, &v);
    if (rc == XQTB_OK) *r = v;
    return rc;
}

/* Sort key of a root move: bigger is better.  Classes from best: ordinary
 * win, ruled win, draw, ruled loss, ordinary loss; within a class by the
 * distance or order (xqtb.h), and among ruled wins of one order a move that
 * does not check before one that does. */
typedef struct {
    int cls;
    int64_t key;
} root_rank;

static root_rank root_rank_of(const xqtb_root_move *m, int checks)
{
    if (m->wdl == XQTB_WIN && !m->by_rule) return (root_rank){4, -(int64_t)m->dtm};
    if (m->wdl == XQTB_WIN) return (root_rank){3, -(int64_t)m->order * 2 - checks};
    if (m->wdl == XQTB_DRAW) return (root_rank){2, 0};
    if (m->by_rule) return (root_rank){1, m->order};
    return (root_rank){0, m->dtm};
}

static int rank_better(root_rank a, root_rank b) { return a.cls != b.cls ? a.cls > b.cls : a.key > b.key; }

int xqtb_probe_root(xqtb_handle *h, const xqtb_position *pos, xqtb_root_move moves[XQTB_MAX_MOVES])
{
    xq_board b;
    if (!h || !moves || xq_position_to_board(pos, &b, NULL)) return XQTB_ERR_INVALID;
    xq_move list[XQ_MAX_MOVES];
    root_rank rank[XQ_MAX_MOVES];
    int n = xq_gen_legal(&b, list);
    for (int i = 0; i < n; i++) {
        xq_undo u;
        xqtb_result v;
        xq_make_move(&b, list[i], &u);
        int rc = probe_board(h, &b, KIND_DTM, &v);
        int checks = xq_in_check(&b, b.side);
        xq_unmake_move(&b, list[i], &u);
        if (rc != XQTB_OK) return rc;
        xqtb_root_move r = {list[i], (int8_t)-v.wdl, (int8_t)v.by_rule,
                            v.wdl == XQTB_DRAW || v.by_rule ? 0 : v.dtm + 1, v.order};
        root_rank k = root_rank_of(&r, checks);
        /* insertion keeps equal moves in generation order */
        int j = i;
        while (j > 0 && rank_better(k, rank[j - 1])) {
            moves[j] = moves[j - 1];
            rank[j] = rank[j - 1];
            j--;
        }
        moves[j] = r;
        rank[j] = k;
    }
    return n;
}

int xqtb_material_name(const xqtb_position *pos, char buf[40])
{
    xq_board b;
    if (!buf || xq_position_to_board(pos, &b, NULL)) return XQTB_ERR_INVALID;
    xq_material m;
    xq_material_of(&b, &m);
    xq_material_canonical(&m, &m);
    xq_material_name(&m, buf);
    return XQTB_OK;
}
