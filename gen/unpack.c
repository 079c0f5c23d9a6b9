/*
 * unpack.c - a table rebuilt in memory from its engine-facing files
 * (docs/FORMAT.md, "Tables without a raw file"), for a larger table to
 * capture into, or for `stats` and `verify`.
 *
 * Everything the generator keeps of a solved table is in its DTM file and,
 * under a move limit, its DTC file:
 *   - which entries are legal is not stored at all: it is recomputed, as
 *     retro.c's first pass computes it (broken entries, kings facing, the
 *     side not to move in check);
 *   - the stored side's entries give their cell, ruled byte and DTC as
 *     they are (the DTM map is the cell code, XQF_DTM_DRAW or
 *     XQF_DTM_RULED | ruled byte; the DTC map is the DTC code);
 *   - the searched side's entries that say XQF_SEARCH are found by the
 *     one-ply search the reader runs (probe/probe.c), over the stored side
 *     and the subtables, with the same rule (core/tbformat.c's
 *     xqf_dtm_search for DTM; the Bellman conditions of gen/verify.c for
 *     DTC).  The writer stores every entry whose value that search would
 *     not give (compress.c, searched.c), so the table comes back exactly
 *     as it was solved: tests/test_unpack.c compares every cell, ruled byte
 *     and DTC with the raw file's.
 * The WDL file is not read: the DTM file says everything it does.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cell.h"
#include "dtc.h"
#include "movegen.h"
#include "parallel.h"
#include "tb.h"
#include "tbcheck.h"
#include "tbformat.h"

/* One compressed file, its metadata checked (tbformat.h's checks 1-9). */
typedef struct {
    int fd;
    xqf_info info;
    uint8_t *meta;
    void *ddict; /* the codec dictionary, prepared once (NULL if none) */
    char path[4096];
} packed_file;

static void packed_close(packed_file *p)
{
    if (p->fd >= 0) close(p->fd);
    xqf_ddict_free(p->ddict);
    p->ddict = NULL;
    free(p->meta);
    p->fd = -1;
    p->meta = NULL;
}

static int packed_open(packed_file *p, const char *dir, const char *name, int kind, uint64_t entries,
                       char err[XQ_ERR_MAX])
{
    memset(p, 0, sizeof *p);
    xqf_path(dir, name, kind, p->path, sizeof p->path);
    /* O_NONBLOCK: a FIFO under a table's name must not hang the load */
    p->fd = open(p->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (p->fd < 0) {
        snprintf(err, XQ_ERR_MAX, "cannot open %.60s: %s", p->path, strerror(errno));
        return -1;
    }
    struct stat sb;
    uint8_t h[XQF_HEADER_SIZE];
    char why[XQF_WHY_MAX];
    if (fstat(p->fd, &sb) || !S_ISREG(sb.st_mode)) {
        snprintf(err, XQ_ERR_MAX, "%.60s is not a regular file", p->path);
        goto fail;
    }
    if ((uint64_t)sb.st_size < XQF_HEADER_SIZE || xqf_read_at(p->fd, h, XQF_HEADER_SIZE, 0)) {
        snprintf(err, XQ_ERR_MAX, "%.60s is damaged: shorter than its header", p->path);
        goto fail;
    }
    if (xqf_parse_header(&p->info, h, (uint64_t)sb.st_size, kind, name, entries, why) != XQF_OK) {
        snprintf(err, XQ_ERR_MAX, "%.60s: %.90s", p->path, why);
        goto fail;
    }
    p->meta = malloc(p->info.meta_bytes);
    if (!p->meta) {
        snprintf(err, XQ_ERR_MAX, "out of memory reading %.60s", p->path);
        goto fail;
    }
    if (xqf_read_at(p->fd, p->meta, (size_t)p->info.meta_bytes, 0)) {
        snprintf(err, XQ_ERR_MAX, "%.60s is damaged: shorter than its metadata", p->path);
        goto fail;
    }
    if (xqf_check_meta(&p->info, p->meta, why) != XQF_OK) {
        snprintf(err, XQ_ERR_MAX, "%.60s: %.90s", p->path, why);
        goto fail;
    }
    int rc = xqf_ddict_new(&p->info, &p->ddict);
    if (rc != XQF_OK) {
        snprintf(err, XQ_ERR_MAX, "%.60s: %s", p->path,
                 rc == XQF_NOMEM ? "out of memory for its codec dictionary" : "the codec dictionary is damaged");
        goto fail;
    }
    return 0;
fail:
    packed_close(p);
    return -1;
}

/* ---- the work, shared by the parallel loops ---------------------------- */
typedef struct {
    tb_table *t;
    const packed_file *file; /* the file being read */
    int searched;            /* side to move of the DTM file whose entries may say search, -1 none */
    int dtc_searched;        /* the same for the DTC file */
    int pass_dtm, pass_dtc;  /* sides search_chunk finds the DTM, the DTC of (-1 none) */
    int failed;              /* set once, by the thread that writes err */
    char err[XQ_ERR_MAX];
    /* each thread's buffers for block_chunk, made at its first block and
     * kept for the whole file: a block is often smaller than the buffers,
     * and allocating them a block at a time made the sanitizer build map
     * and clear megabytes per block */
    struct {
        uint8_t *in, *sym;
        void *dctx;
    } scratch[PAR_MAX_THREADS];
} unpack_job;

/* Frees every thread's block buffers. */
static void scratch_free(unpack_job *j)
{
    for (int i = 0; i < PAR_MAX_THREADS; i++) {
        xqf_dctx_free(j->scratch[i].dctx);
        free(j->scratch[i].in);
        free(j->scratch[i].sym);
        j->scratch[i].in = j->scratch[i].sym = NULL;
        j->scratch[i].dctx = NULL;
    }
}

static void job_fail(unpack_job *j, const char *fmt, unsigned long long a)
{
    if (__atomic_exchange_n(&j->failed, 1, __ATOMIC_RELAXED)) return;
    snprintf(j->err, XQ_ERR_MAX, fmt, a);
}

/* Legal entries (both sides) as retro.c's first pass marks them: every
 * other entry is CELL_ILLEGAL, and no file says anything about it. */
static void legal_chunk(void *arg, uint64_t begin, uint64_t end, int thread)
{
    (void)thread;
    unpack_job *j = arg;
    tb_table *t = j->t;
    xq_board b;
    xq_index_site site;
    xq_index_site_clear(&site);
    for (uint64_t i = begin; i < end; i++) {
        int ok = xq_index_decode_next(&t->ix, i, &b, &site) && !xq_kings_facing(&b);
        for (int s = 0; s < 2; s++)
            cell_set(t->cells[s], t->width, i, ok && !xq_in_check(&b, s ^ 1) ? CELL_UNKNOWN : CELL_ILLEGAL);
    }
}

/* The map value of symbol k of a decoded block into *v; -1 if the symbol
 * is outside the map. */
static int map_value(const xqf_info *f, const uint8_t *sym, uint64_t k, unsigned *v)
{
    unsigned s = f->symbol_bytes == 1 ? sym[k] : (unsigned)sym[2 * k] | (unsigned)sym[2 * k + 1] << 8;
    if (s >= f->nsymbols) return -1;
    *v = (unsigned)f->map[2 * s] | (unsigned)f->map[2 * s + 1] << 8;
    return 0;
}

/* The ruled byte an entry saying XQF_SEARCH_RULED holds until searched: a
 * win of order 0, which no result has (cell.h). */
enum { RULED_SEARCHED_WIN = 1 };

/* Whether DTM-map value v is an ordinary win. */
static int dtm_ordinary_win(unsigned v) { return !(v & XQF_DTM_RULED) && (v & 1); }

/* Puts a DTM-map value v into entry i of side s; 0, or -1 if v cannot be
 * the value of a legal entry of this table. */
static int put_dtm(tb_table *t, int s, uint64_t i, unsigned v)
{
    if (v == XQF_DTM_DRAW) {
        cell_set(t->cells[s], t->width, i, CELL_DRAW);
    } else if (v & XQF_DTM_RULED) {
        if (!t->ruled[0] || v > (XQF_DTM_RULED | 0xFF) || ruled_order(v & 0xFF) == 0) return -1;
        cell_set(t->cells[s], t->width, i, CELL_DRAW);
        t->ruled[s][i] = (uint8_t)v;
    } else {
        if ((int)v > t->max_dtm || (int)v > cell_dtm_max(t->width)) return -1;
        cell_set(t->cells[s], t->width, i, v);
    }
    return 0;
}

/* Decodes blocks [begin, end) of j->file and fills the entries they store:
 * DTM values into cells and ruled bytes, DTC codes into t->dtc; an entry
 * that says search is left for search_chunk (its cell unknown, or its DTC
 * XQF_SEARCH). */
static void block_chunk(void *arg, uint64_t begin, uint64_t end, int thread)
{
    unpack_job *j = arg;
    tb_table *t = j->t;
    const xqf_info *f = &j->file->info;
    if (!j->scratch[thread].in) j->scratch[thread].in = malloc((size_t)xqf_max_compressed_bytes());
    if (!j->scratch[thread].sym) j->scratch[thread].sym = malloc(XQF_MAX_BLOCK_BYTES);
    uint8_t *in = j->scratch[thread].in, *sym = j->scratch[thread].sym;
    if (!in || !sym) job_fail(j, "out of memory decoding %llu blocks", (unsigned long long)(end - begin));
    for (uint64_t k = begin; k < end && in && sym && !__atomic_load_n(&j->failed, __ATOMIC_RELAXED); k++) {
        uint64_t src = xqf_block_source(f, k), want = xqf_block_symbol_bytes(f, k);
        uint64_t at = xqf_block_begin(f, src), len = xqf_block_end(f, src) - at;
        if (xqf_read_at(j->file->fd, in, (size_t)len, at) || !xqf_block_sound(f, src, in) ||
            xqf_block_decode(f, j->file->ddict, in, len, sym, want, &j->scratch[thread].dctx) != XQF_OK) {
            job_fail(j, "block %llu is damaged", (unsigned long long)k);
            break;
        }
        int s = (int)(k / f->blocks);
        uint64_t first = (k % f->blocks) * f->block_entries, n = want / f->symbol_bytes;
        for (uint64_t e = 0; e < n; e++) {
            uint64_t i = first + e;
            if (cell_get(t->cells[s], t->width, i) == CELL_ILLEGAL) continue; /* don't care */
            unsigned v = XQF_DTM_DRAW;
            int bad = map_value(f, sym, e, &v);
            if (f->kind == XQF_KIND_DTM) {
                if (v == XQF_SEARCH_RULED && t->ruled[0])
                    t->ruled[s][i] = RULED_SEARCHED_WIN; /* what the search must find */
                if (v == XQF_SEARCH || (v == XQF_SEARCH_RULED && t->ruled[0]))
                    bad = bad || s != j->searched; /* the cell stays unknown until searched */
                else
                    bad = bad || put_dtm(t, s, i, v);
            } else {
                unsigned cell = cell_get(t->cells[s], t->width, i);
                if (v == XQF_SEARCH)
                    bad = bad || s != j->dtc_searched;
                else if (cell != CELL_UNKNOWN) /* DTC "none" exactly for draws and ruled results */
                    bad = bad || (cell == CELL_DRAW) != (v == XQF_DTC_NONE);
                t->dtc[s][i] = (uint16_t)v;
            }
            if (bad) {
                job_fail(j, "block %llu holds a value its entry cannot have", (unsigned long long)k);
                break;
            }
        }
    }
}

/* The DTC code of a searched entry whose cell is an ordinary win or loss,
 * from its successors (gen/verify.c's conditions, which the writer relied
 * on to leave it out): a win converts at its fastest move that reaches a
 * loss that holds, 1 ply for a capture and d + 1 otherwise; a loss at its
 * slowest, every move reaching a win that holds.  DTC_NONE + 1 if the
 * entry should have been stored (a cursed win or a blessed loss). */
static unsigned search_dtc(const tb_table *t, const xq_board *b, unsigned code, const xq_move *list,
                           const tb_successor *to, int n)
{
    int win = cell_is_win(code), best = INT32_MAX, longest = 0, escapes = 0, L = t->limit;
    for (int k = 0; k < n; k++) {
        int capture = b->sq[move_to(list[k])] != EMPTY;
        unsigned cell = tb_successor_code(&to[k]);
        if (cell == CELL_ILLEGAL) continue;
        const tb_table *s = to[k].table;
        unsigned d = tb_has_dtc(s) ? tb_dtc(s, to[k].side, to[k].entry) : DTC_NONE;
        int right = win ? cell_is_loss(cell) : cell_is_win(cell);
        int dist = capture ? 1 : dtc_plies(d) + 1;
        int ok = right && d != DTC_NONE && !dtc_beyond(d) && dist <= L;
        if (win && ok && dist < best) best = dist;
        if (!win && ok && dist > longest) longest = dist;
        escapes += !ok;
    }
    if (win ? best > L : escapes > 0) return DTC_NONE + 1;
    return (unsigned)(win ? best : longest);
}

/* Finds the entries that say search: the DTM of side j->pass_dtm, then the
 * DTC of an ordinary result of side j->pass_dtc.  Every successor is an
 * entry of the other side, whose value the pass needs final, or of a
 * subtable. */
static void search_chunk(void *arg, uint64_t begin, uint64_t end, int thread)
{
    (void)thread;
    unpack_job *j = arg;
    tb_table *t = j->t;
    xq_board b;
    xq_index_site site;
    xq_index_site_clear(&site);
    for (int s = 0; s < 2; s++) {
        if (s != j->pass_dtm && s != j->pass_dtc) continue;
        for (uint64_t i = begin; i < end && !__atomic_load_n(&j->failed, __ATOMIC_RELAXED); i++) {
            unsigned code = cell_get(t->cells[s], t->width, i);
            int dtm_wanted = s == j->pass_dtm && code == CELL_UNKNOWN;
            int dtc_wanted = s == j->pass_dtc && t->dtc[s][i] == XQF_SEARCH;
            if (code == CELL_ILLEGAL || (!dtm_wanted && !dtc_wanted)) continue;
            xq_index_decode_next(&t->ix, i, &b, &site);
            b.side = (uint8_t)s;
            xq_move list[XQ_MAX_MOVES];
            /* found once for both searches: where one side of both
             * files is searched, nearly everywhere, the DTC search made
             * again the look-ups the DTM search had just made */
            tb_successor to[XQ_MAX_MOVES];
            int n = xq_gen_pseudo(&b, list);
            tb_successors_at(t, &b, &site, list, n, to);
            if (dtm_wanted) {
                xqf_dtm_search acc;
                xqf_dtm_search_init(&acc);
                for (int k = 0; k < n; k++) {
                    unsigned cell = tb_successor_code(&to[k]);
                    if (cell == CELL_ILLEGAL) continue; /* an illegal move */
                    unsigned r = cell == CELL_DRAW ? tb_ruled(to[k].table, to[k].side, to[k].entry) : RULED_NONE;
                    xqf_dtm_search_add(&acc, r != RULED_NONE     ? XQF_DTM_RULED | r
                                             : cell == CELL_DRAW ? XQF_DTM_DRAW
                                                                 : cell);
                }
                /* an entry that says XQF_SEARCH_RULED is no ordinary win */
                int said_ruled = t->ruled[0] && t->ruled[s][i] == RULED_SEARCHED_WIN;
                if (said_ruled) t->ruled[s][i] = RULED_NONE; /* put_dtm sets it again for a ruled result */
                unsigned v;
                if (xqf_dtm_search_result(&acc, &v) || (said_ruled && dtm_ordinary_win(v)) || put_dtm(t, s, i, v)) {
                    job_fail(j, "entry %llu: its successors give no value it can have", (unsigned long long)i);
                    break;
                }
                code = cell_get(t->cells[s], t->width, i);
            }
            if (!dtc_wanted) continue;
            unsigned d = code == CELL_DRAW ? DTC_NONE : search_dtc(t, &b, code, list, to, n);
            if (d == DTC_NONE + 1) {
                job_fail(j, "entry %llu: a DTC the search cannot give is not stored", (unsigned long long)i);
                break;
            }
            t->dtc[s][i] = (uint16_t)d;
        }
    }
}

/* Reads one file's blocks into t. */
static int read_blocks(unpack_job *j, const packed_file *f, int threads, char err[XQ_ERR_MAX])
{
    j->file = f;
    par_for(threads, 2 * (uint64_t)f->info.blocks, 1, block_chunk, j);
    scratch_free(j);
    if (j->failed) snprintf(err, XQ_ERR_MAX, "%.60s: %.90s", f->path, j->err);
    return j->failed ? -1 : 0;
}

tb_table *tb_unpack(tb_set *set, const xq_material *m, int threads, char err[XQ_ERR_MAX])
{
    xq_material canon;
    xq_material_canonical(m, &canon);
    char name[XQ_MATERIAL_MAX];
    xq_material_name(&canon, name);
    xq_index ix;
    if (xq_index_init(&ix, &canon)) {
        snprintf(err, XQ_ERR_MAX, "%s: the index is too large", name);
        return NULL;
    }
    uint64_t entries = ix.size;
    xq_index_free(&ix);
    packed_file dtm, dtc = {.fd = -1};
    if (packed_open(&dtm, tb_set_dir(set), name, XQF_KIND_DTM, entries, err)) return NULL;
    const xqf_info *di = &dtm.info;
    tb_table *t = NULL;
    if (di->limit && packed_open(&dtc, tb_set_dir(set), name, XQF_KIND_DTC, entries, err)) goto fail;
    if (di->limit && (dtc.info.rules != di->rules || dtc.info.limit != di->limit)) {
        snprintf(err, XQ_ERR_MAX, "%s: its DTM and DTC files were built under different rules or limits", name);
        goto fail;
    }
    t = tb_table_new(&canon, di->max_dtm > CELL8_DTM_MAX ? 2 : 1);
    if (!t) goto nomem;
    t->max_dtm = di->max_dtm;
    t->rules = (int)di->rules;
    t->limit = (int)di->limit;
    for (int s = 0; s < 2 && t->rules != XQ_RULES_NONE; s++)
        if (!(t->ruled[s] = calloc(entries ? entries : 1, 1))) goto nomem;
    for (int s = 0; s < 2 && t->limit; s++)
        if (!(t->dtc[s] = malloc((entries ? entries : 1) * sizeof(uint16_t))))
            goto nomem;
        else
            memset(t->dtc[s], 0xFF, entries * sizeof(uint16_t)); /* DTC_NONE, as illegal entries keep */
    unpack_job j = {.t = t, .searched = di->searched, .dtc_searched = t->limit ? dtc.info.searched : -1};
    par_for(threads, entries, 1 << 12, legal_chunk, &j);
    if (read_blocks(&j, &dtm, threads, err) || (t->limit && read_blocks(&j, &dtc, threads, err))) goto fail;
    /* the search reads the subtables, which the set holds already */
    if (tb_set_link(set, t, err)) goto fail;
    /* The DTM of the searched side, with the DTC of that side if the DTC
     * file searches it too (every successor is of the other side, stored
     * in both files); a DTC searched on the other side needs the first
     * side's cells, so it comes after. */
    j.pass_dtm = j.searched;
    j.pass_dtc = j.dtc_searched == j.searched ? j.searched : -1;
    if (j.pass_dtm >= 0 || j.pass_dtc >= 0) par_for(threads, entries, 1 << 12, search_chunk, &j);
    if (!j.failed && j.dtc_searched >= 0 && j.dtc_searched != j.searched) {
        j.pass_dtm = -1;
        j.pass_dtc = j.dtc_searched;
        par_for(threads, entries, 1 << 12, search_chunk, &j);
    }
    if (j.failed) {
        snprintf(err, XQ_ERR_MAX, "%s: its compressed files are damaged: %.60s", name, j.err);
        goto fail;
    }
    packed_close(&dtm);
    packed_close(&dtc);
    tb_ruled_pack(t);
    tb_dtc_pack(t);
    return t;
nomem:
    snprintf(err, XQ_ERR_MAX, "out of memory rebuilding %s from its compressed files", name);
fail:
    tb_table_free(t);
    packed_close(&dtm);
    packed_close(&dtc);
    return NULL;
}
