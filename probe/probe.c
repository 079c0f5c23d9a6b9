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
    xqtb_handle *h = calloc(1, sizeof *h);
    char *list = strdup(paths);
    int cap = 0, rc = XQTB_OK;
    if (!h || !list) {
        rc = XQTB_ERR_NOMEM;
        goto fail;
    }
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
static int ensure_open(tb_entry *e, int kind)
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
            st = rc == XQTB_OK ? 1 : rc;
        }
        /* NOMEM may pass; everything else is remembered */
        if (st != XQTB_ERR_NOMEM) __atomic_store_n(&e->state[kind], st, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&e->lock);
    return st;
}

/* Value of a legal board from the file of `kind`. */
static int probe_board(xqtb_handle *h, const xq_board *b, int kind, int *wdl, int *dtm)
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
    int st = ensure_open(e, kind);
    if (st != 1) return st;
    const xqf_file *f = &e->file[kind];
    uint64_t idx = xq_index_encode(&e->ix, b, flip ? XQ_INDEX_FLIP : 0);
    if (idx >= f->entries) return XQTB_ERR_INVALID;
    unsigned sym;
    int rc = xq_cache_symbol(h->cache, f, e->file_id[kind], b->side ^ flip, idx, &sym);
    if (rc != XQTB_OK) return rc;
    if (kind == KIND_WDL) {
        if (sym > XQF_WDL_WIN) return XQTB_ERR_CORRUPT;
        *wdl = sym == XQF_WDL_WIN ? XQTB_WIN : sym == XQF_WDL_DRAW ? XQTB_DRAW : XQTB_LOSS;
        return XQTB_OK;
    }
    if (sym >= f->nsymbols) return XQTB_ERR_CORRUPT;
    unsigned v = (unsigned)f->dtm_map[2 * sym] | (unsigned)f->dtm_map[2 * sym + 1] << 8;
    if (v == XQF_DTM_DRAW) {
        *wdl = XQTB_DRAW;
        *dtm = 0;
    } else {
        *wdl = (v & 1) ? XQTB_WIN : XQTB_LOSS;
        *dtm = (int)v;
    }
    return XQTB_OK;
}

int xqtb_probe_wdl(xqtb_handle *h, const xqtb_position *pos, int *wdl)
{
    xq_board b;
    if (!h || !wdl || xq_position_to_board(pos, &b, NULL)) return XQTB_ERR_INVALID;
    return probe_board(h, &b, KIND_WDL, wdl, NULL);
}

int xqtb_probe_dtm(xqtb_handle *h, const xqtb_position *pos, int *wdl, int *dtm)
{
    xq_board b;
    int w, d;
    if (!h || !wdl || !dtm || xq_position_to_board(pos, &b, NULL)) return XQTB_ERR_INVALID;
    int rc = probe_board(h, &b, KIND_DTM, &w, &d);
    if (rc == XQTB_OK) {
        *wdl = w;
        *dtm = d;
    }
    return rc;
}

/* Better first: wins by shortest DTM, draws, losses by longest DTM. */
static int root_better(const xqtb_root_move *a, const xqtb_root_move *b)
{
    if (a->wdl != b->wdl) return a->wdl > b->wdl;
    if (a->wdl == XQTB_WIN) return a->dtm < b->dtm;
    if (a->wdl == XQTB_LOSS) return a->dtm > b->dtm;
    return 0;
}

int xqtb_probe_root(xqtb_handle *h, const xqtb_position *pos, xqtb_root_move moves[XQTB_MAX_MOVES])
{
    xq_board b;
    if (!h || !moves || xq_position_to_board(pos, &b, NULL)) return XQTB_ERR_INVALID;
    xq_move list[XQ_MAX_MOVES];
    int n = xq_gen_legal(&b, list);
    for (int i = 0; i < n; i++) {
        xq_undo u;
        int wdl = 0, dtm = 0;
        xq_make_move(&b, list[i], &u);
        int rc = probe_board(h, &b, KIND_DTM, &wdl, &dtm);
        xq_unmake_move(&b, list[i], &u);
        if (rc != XQTB_OK) return rc;
        xqtb_root_move r = {list[i], (int8_t)-wdl, wdl == XQTB_DRAW ? 0 : dtm + 1};
        /* insertion keeps equal moves in generation order */
        int j = i;
        while (j > 0 && root_better(&r, &moves[j - 1])) {
            moves[j] = moves[j - 1];
            j--;
        }
        moves[j] = r;
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
