/*
 * test_probe_threads.c - one handle probed by several threads at once.
 *
 * KRKN is written with small blocks (over 800 of them) and the handle gets
 * a 64 KiB cache (the smallest: one block per shard, 16 in all), so blocks
 * are evicted and read again all the time while other threads read them.  Four threads start
 * together (so the lazy opening of every file is raced) and probe random
 * legal positions of KRKN, in either colouring and mirrored, with
 * xqtb_probe_wdl, xqtb_probe_dtm and, for some, xqtb_probe_root; every
 * answer is compared with the generator's value (tb_value_of), and each
 * root move with the generator's value of the position it leads to.  They
 * also probe a material whose files are damaged (the failure must be the
 * same on every thread) and one with no table.  Then the same with the
 * default options, under which every file is read whole when first opened,
 * each DTM file's reservation out of the handle's budget raced too.
 *
 * Then DTC probes of KRKN under a move limit, on fresh handles, whose
 * searches build the table's summary of its DTM bounds while other
 * threads read it or open the DTM file.
 *
 * Built with -fsanitize=thread by `make test-tsan` (build-tsan/); in the
 * other builds it is an ordinary functional test.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "cell.h"
#include "compress.h"
#include "dtc.h"
#include "fen.h"
#include "movegen.h"
#include "tb.h"
#include "testgen.h"
#include "tmpdir.h"
#include "xqtb.h"

enum { THREADS = 4 };

static int slow_build(void)
{
    const char *a = getenv("XQTB_SAN"), *b = getenv("XQTB_TSAN");
    return (a && *a == '1') || (b && *b == '1');
}

typedef struct {
    xqtb_handle *h;
    tb_set *set;
    const tb_table *t;     /* KRKN, canonical */
    const uint32_t *legal; /* entry << 1 | side, every legal entry */
    size_t nlegal;
    xqtb_position damaged; /* a KCK position: its files are truncated */
    xqtb_position missing; /* a KAK position: no table */
    pthread_barrier_t *start;
    int id, probes, root_every;
    /* results, checked by the main thread (cmocka is not thread-safe) */
    int failures;
    char first_failure[512];
    uint64_t done, roots, root_moves;
} worker;

static void to_position(const xq_board *b, xqtb_position *p)
{
    for (int s = 0; s < XQ_SQUARES; s++) {
        xq_piece q = b->sq[s];
        p->board[s] = q == EMPTY ? 0 : (int8_t)(colour_of(q) == RED ? kind_of(q) : -kind_of(q));
    }
    p->side = b->side;
}

static uint64_t next_random(uint64_t *s)
{
    /* xorshift64* */
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1Dull;
}

static void report_failure(worker *w, const xq_board *b, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void report_failure(worker *w, const xq_board *b, const char *fmt, ...)
{
    if (w->failures++) return;
    char fen[XQ_FEN_MAX], msg[300];
    xq_fen_write(b, fen);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(w->first_failure, sizeof w->first_failure, "thread %d, %s: %s", w->id, fen, msg);
}

/* The generator's value of a board of KRKN or of any table it captures
 * into (all loaded in the set). */
static tb_value generator_value(worker *w, const xq_board *b)
{
    xq_material m;
    xq_material_of(b, &m);
    tb_table *t = tb_set_find(w->set, &m);
    if (!t) return (tb_value){.wdl = 0, .dtm = -2, .by_rule = XQ_BY_NONE};
    return tb_value_of(t, b);
}

static void check_root(worker *w, xq_board *b, const xqtb_position *p, tb_value want)
{
    xqtb_root_move mv[XQTB_MAX_MOVES];
    int n = xqtb_probe_root(w->h, p, mv);
    xq_move list[XQ_MAX_MOVES];
    int legal = xq_gen_legal(b, list);
    if (n != legal) {
        report_failure(w, b, "probe_root returned %d, %d legal moves", n, legal);
        return;
    }
    w->roots++;
    if (n == 0) {
        if (want.wdl != -1 || want.dtm != 0) report_failure(w, b, "no root move but value %d/%d", want.wdl, want.dtm);
        return;
    }
    if (mv[0].wdl != want.wdl || mv[0].dtm != (want.wdl ? want.dtm : XQTB_NO_DISTANCE))
        report_failure(w, b, "best root move %d/%d, position %d/%d", mv[0].wdl, mv[0].dtm, want.wdl, want.dtm);
    for (int i = 0; i < n; i++) {
        xq_undo u;
        if (!xq_move_valid(b, mv[i].move)) {
            report_failure(w, b, "root move %d not legal", mv[i].move);
            return;
        }
        xq_make_move(b, mv[i].move, &u);
        tb_value after = generator_value(w, b);
        xq_unmake_move(b, mv[i].move, &u);
        int wdl = -after.wdl, dtm = after.wdl == 0 ? XQTB_NO_DISTANCE : after.dtm + 1;
        if (after.dtm < 0 || mv[i].wdl != wdl || mv[i].dtm != dtm)
            report_failure(w, b, "root move %d: %d/%d, generator %d/%d", i, mv[i].wdl, mv[i].dtm, wdl, dtm);
        w->root_moves++;
    }
}

static void *work(void *arg)
{
    worker *w = arg;
    uint64_t rng = 0x9E3779B97F4A7C15ull * (uint64_t)(w->id + 1);
    pthread_barrier_wait(w->start);
    for (int k = 0; k < w->probes && w->failures < 10; k++) {
        uint64_t r = next_random(&rng);
        uint32_t e = w->legal[r % w->nlegal];
        xq_board b, v;
        xq_index_decode(&w->t->ix, e >> 1, &b);
        b.side = (uint8_t)(e & 1);
        tb_value want = tb_value_of_cell(cell_get(w->t->cells[e & 1], w->t->width, e >> 1));
        /* any of the four boards with that value */
        if (r >> 40 & 1)
            xq_board_flip(&b, &v);
        else
            v = b;
        if (r >> 41 & 1) {
            xq_board m;
            xq_board_mirror(&v, &m);
            v = m;
        }
        xqtb_position p;
        to_position(&v, &p);
        int wdl = 9, dtm = -9, wdl_only = 9;
        /* every other probe through the search's path: it shares the cache */
        int rc1 = k & 1 ? xqtb_probe_wdl_trusted(w->h, &p, &wdl_only) : xqtb_probe_wdl(w->h, &p, &wdl_only);
        int rc2 = xqtb_probe_dtm(w->h, &p, &wdl, &dtm);
        if (rc1 != XQTB_OK || rc2 != XQTB_OK)
            report_failure(w, &v, "probe failed: wdl %s, dtm %s", xqtb_status_string(rc1), xqtb_status_string(rc2));
        else if (wdl_only != want.wdl || wdl != want.wdl || dtm != (want.wdl ? want.dtm : XQTB_NO_DISTANCE))
            report_failure(w, &v, "probe %d/%d (WDL file %d), generator %d/%d", wdl, dtm, wdl_only, want.wdl, want.dtm);
        if (k % w->root_every == 0) check_root(w, &v, &p, want);
        if (k % 64 == 0) {
            /* the damaged table fails the same way every time, on every
             * thread; the missing one is missing */
            int rc = xqtb_probe_dtm(w->h, &w->damaged, &wdl, &dtm);
            if (rc != XQTB_ERR_CORRUPT) report_failure(w, &v, "damaged KCK.xqd gave %s", xqtb_status_string(rc));
            rc = xqtb_probe_wdl(w->h, &w->damaged, &wdl);
            if (rc != XQTB_ERR_CORRUPT) report_failure(w, &v, "damaged KCK.xqw gave %s", xqtb_status_string(rc));
            rc = xqtb_probe_wdl(w->h, &w->missing, &wdl);
            if (rc != XQTB_ERR_NO_TABLE) report_failure(w, &v, "missing KAK gave %s", xqtb_status_string(rc));
        }
        w->done++;
    }
    return NULL;
}

/* Copies a file, less its last `drop` bytes. */
static void copy_file(const char *from, const char *to, long drop)
{
    struct stat sb;
    assert_int_equal(stat(from, &sb), 0);
    long keep = (long)sb.st_size - drop;
    FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
    assert_true(a && b);
    char buf[65536];
    size_t n;
    long total = 0;
    while ((n = fread(buf, 1, sizeof buf, a)) > 0) {
        if (total + (long)n > keep) n = (size_t)(keep - total);
        assert_int_equal(fwrite(buf, 1, n, b), n);
        total += (long)n;
    }
    fclose(a);
    assert_int_equal(fclose(b), 0);
}

/* Every legal entry of t, as entry << 1 | side to move, *n of them. */
static uint32_t *legal_entries(const tb_table *t, size_t *n)
{
    uint32_t *legal = malloc(2 * (size_t)t->ix.size * sizeof *legal);
    assert_non_null(legal);
    *n = 0;
    for (uint64_t i = 0; i < t->ix.size; i++)
        for (int s = 0; s < 2; s++)
            if (cell_get(t->cells[s], t->width, i) != CELL_ILLEGAL) legal[(*n)++] = (uint32_t)(i << 1 | (uint64_t)s);
    return legal;
}

/* Four threads probing h at once, from a barrier, every answer checked;
 * each makes 1/fraction of the probes of the full run. */
static void race(xqtb_handle *h, tb_set *set, tb_table *t, uint32_t *legal, size_t nlegal, int fraction)
{
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, THREADS);
    worker w[THREADS];
    pthread_t tid[THREADS];
    for (int i = 0; i < THREADS; i++) {
        memset(&w[i], 0, sizeof w[i]);
        w[i].h = h;
        w[i].set = set;
        w[i].t = t;
        w[i].legal = legal;
        w[i].nlegal = nlegal;
        w[i].start = &start;
        w[i].id = i;
        /* ThreadSanitizer is the point of the slow builds: it gets more */
        const char *tsan = getenv("XQTB_TSAN");
        w[i].probes = (tsan && *tsan == '1' ? 15000 : slow_build() ? 6000 : 60000) / fraction;
        w[i].root_every = 23;
        assert_int_equal(xqtb_position_from_fen("4k4/9/9/9/9/9/9/9/4C4/4K4 b - - 0 1", &w[i].damaged, NULL), XQTB_OK);
        assert_int_equal(xqtb_position_from_fen("4k4/9/9/9/9/9/9/9/4A4/3K5 w - - 0 1", &w[i].missing, NULL), XQTB_OK);
        assert_int_equal(pthread_create(&tid[i], NULL, work, &w[i]), 0);
    }
    uint64_t done = 0, roots = 0, moves = 0;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(tid[i], NULL);
        if (w[i].failures) fail_msg("%d failures, first: %s", w[i].failures, w[i].first_failure);
        done += w[i].done;
        roots += w[i].roots;
        moves += w[i].root_moves;
    }
    assert_int_equal(done, (uint64_t)THREADS * (uint64_t)w[0].probes);
    assert_true(roots > 0 && moves > roots);
    print_message("    %d threads: %llu positions (WDL + DTM), %llu roots with %llu moves checked\n", THREADS,
                  (unsigned long long)done, (unsigned long long)roots, (unsigned long long)moves);
    pthread_barrier_destroy(&start);
}

static void test_threads_agree_with_generator(void **state)
{
    (void)state;
    char dir[512], from[600], to[600], err[XQ_ERR_MAX];
    const char *gen_dir = test_tmpdir();
    snprintf(dir, sizeof dir, "%s/probe", gen_dir);
    assert_int_equal(mkdir(dir, 0755), 0);
    tb_set *set, *kck;
    tb_table *t = testgen_load("KRKN", &set);
    testgen_load("KCK", &kck);
    tb_set_free(kck);

    /* The probed directory: KRKN with small blocks, its subtables as
     * generated, KCK truncated. */
    tb_compress_options co = {.wdl_block_entries = 4096, .dtm_block_entries = 1024, .threads = 2};
    if (tb_compress_write(t, dir, &co, NULL, err)) fail_msg("%s", err);
    static const char *const subs[] = {"KRK", "KNK", "KK"}, *const exts[] = {"xqw", "xqd"};
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 2; k++) {
            snprintf(from, sizeof from, "%s/%s.%s", gen_dir, subs[i], exts[k]);
            snprintf(to, sizeof to, "%s/%s.%s", dir, subs[i], exts[k]);
            copy_file(from, to, 0);
        }
    for (int k = 0; k < 2; k++) {
        snprintf(from, sizeof from, "%s/KCK.%s", gen_dir, exts[k]);
        snprintf(to, sizeof to, "%s/KCK.%s", dir, exts[k]);
        copy_file(from, to, 1);
    }

    size_t nlegal;
    uint32_t *legal = legal_entries(t, &nlegal);
    assert_true(nlegal > 100000);

    /* small enough a cache that blocks come and go all the time; files up
     * to 64 KiB read whole (the WDL files) and the larger ones block by
     * block with pread (KRKN's DTM file), so both read paths run at once */
    xqtb_options opt = {.cache_bytes = 64 << 10, .whole_file_bytes = 64 << 10};
    int st;
    xqtb_handle *h = xqtb_open(dir, &opt, &st);
    assert_non_null(h);
    assert_int_equal(xqtb_table_count(h), 5);

    race(h, set, t, legal, nlegal, 1);
    xqtb_close(h);

    /* The defaults: every file here is small enough to be read whole,
     * through the budget of DTM and DTC files a handle holds (probe.c),
     * which the threads' first probes reserve at once. */
    h = xqtb_open(dir, NULL, &st);
    assert_non_null(h);
    race(h, set, t, legal, nlegal, 4);
    xqtb_close(h);
    free(legal);
    tb_set_free(set);
}

/* ---- DTC probes ---------------------------------------------------------
 * KRKN under rules full and a move limit of 20, its default files (DTC
 * searched on one side): four threads start together on a fresh handle
 * and make five-valued probes, every answer the generator's: every third
 * one with the exact DTC (xqtb_probe_dtc), the rest without it.  On the
 * first handle they make DTC probes only, whose searches
 * build and read the table's summary of its DTM bounds (probe.c,
 * dtm_hint_of); on the second every fourth probe is a full one, which
 * opens the DTM file while the others search, so that both are raced. */
enum { DTC_LIMIT = 20 };

typedef struct {
    _Alignas(64) xqtb_handle *h;
    const tb_table *t;
    const uint32_t *legal;
    size_t nlegal;
    pthread_barrier_t *start;
    int id, probes, full_every, failures; /* full_every 0: no full probe */
    char first_failure[512];
} dtc_worker;

static void *dtc_work(void *arg)
{
    dtc_worker *w = arg;
    uint64_t rng = 0xD1B54A32D192ED03ull * (uint64_t)(w->id + 1);
    pthread_barrier_wait(w->start);
    for (int k = 0; k < w->probes && !w->failures; k++) {
        uint32_t e = w->legal[next_random(&rng) % w->nlegal];
        xq_board b;
        xq_index_decode(&w->t->ix, e >> 1, &b);
        b.side = (uint8_t)(e & 1);
        tb_value v = tb_value_of(w->t, &b);
        unsigned d = tb_dtc(w->t, e & 1, e >> 1);
        int counter = k % (DTC_LIMIT + 1), want = XQTB_WDL5_DRAW; /* every counter: every distance tells */
        if (v.wdl) want = v.by_rule || (!dtc_beyond(d) && dtc_plies(d) <= DTC_LIMIT - counter) ? 2 * v.wdl : v.wdl;
        xqtb_position p;
        to_position(&b, &p);
        int got = -9, rc, dtc = -1, want_dtc = d == DTC_NONE ? -1 : (int)dtc_plies(d);
        if (w->full_every && k % w->full_every == w->full_every - 1) {
            xqtb_result r;
            rc = xqtb_probe_counter(w->h, &p, counter, &r);
            got = r.wdl5;
            dtc = r.dtc;
        } else if (k % 3 == 1) {
            rc = xqtb_probe_dtc(w->h, &p, counter, &got, &dtc);
        } else {
            rc = xqtb_probe_wdl_counter(w->h, &p, counter, &got);
            dtc = want_dtc; /* not asked */
        }
        if ((rc != XQTB_OK || got != want || dtc != want_dtc) && !w->failures++) {
            char fen[XQ_FEN_MAX];
            xq_fen_write(&b, fen);
            snprintf(w->first_failure, sizeof w->first_failure,
                     "thread %d, %s: %s, wdl5 %d dtc %d, generator %d dtc %d", w->id, fen, xqtb_status_string(rc), got,
                     dtc, want, want_dtc);
        }
    }
    return NULL;
}

static void test_dtc_threads_agree_with_generator(void **state)
{
    (void)state;
    tb_set *set;
    tb_table *t = testgen_load_limit("KRKN", XQ_RULES_FULL, DTC_LIMIT, &set);
    char dir[512];
    snprintf(dir, sizeof dir, "%s/rules-%d-limit-%d", test_tmpdir(), XQ_RULES_FULL, DTC_LIMIT);
    size_t nlegal;
    uint32_t *legal = legal_entries(t, &nlegal);
    for (int round = 0; round < 2; round++) { /* a fresh handle each: the first probes race the opening */
        int st;
        xqtb_handle *h = xqtb_open(dir, NULL, &st);
        assert_non_null(h);
        pthread_barrier_t start;
        pthread_barrier_init(&start, NULL, THREADS);
        dtc_worker w[THREADS];
        pthread_t tid[THREADS];
        for (int i = 0; i < THREADS; i++) {
            w[i] = (dtc_worker){
                .h = h, .t = t, .legal = legal, .nlegal = nlegal, .start = &start, .id = i, .full_every = 4 * round};
            w[i].probes = slow_build() ? 3000 : 20000;
            assert_int_equal(pthread_create(&tid[i], NULL, dtc_work, &w[i]), 0);
        }
        for (int i = 0; i < THREADS; i++) {
            pthread_join(tid[i], NULL);
            if (w[i].failures) fail_msg("%s", w[i].first_failure);
        }
        pthread_barrier_destroy(&start);
        xqtb_close(h);
    }
    print_message("    %d threads, two fresh handles: KRKN's five-valued probes (limit %d) all the generator's\n",
                  THREADS, DTC_LIMIT);
    free(legal);
    tb_set_free(set);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_agree_with_generator),
        cmocka_unit_test(test_dtc_threads_agree_with_generator),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
