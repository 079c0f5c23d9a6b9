/*
 * test_limit.c - the move limit as the generator and the library apply it
 * (gen/dtc.c, probe/): properties that need no reference solver (that
 * comparison is test_limit_ref.c):
 *   - DTC is consistent with successors (tb_verify) and the output is the
 *     same, byte for byte, for any thread count;
 *   - with a limit no game reaches, nothing is cursed and DTC <= DTM;
 *   - a smaller limit only turns results into cursed wins and blessed
 *     losses, never the other way, and keeps the DTM layer unchanged;
 *   - the library's five-valued answers at every counter follow the table;
 *   - a directory built for one limit is rebuilt for another;
 *   - `xqtb probe --counter` changes its answer where it should.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "cell.h"
#include "compress.h"
#include "dtc.h"
#include "fen.h"
#include "movegen.h"
#include "runxqtb.h"
#include "searched.h"
#include "tb.h"
#include "testenv.h"
#include "testgen.h"
#include "tmpdir.h"
#include "xqtb.h"

/* Whether (name, limit) was verified already; marks it verified.  The
 * generator's output is the same for any thread count and directory
 * (test_dtc_deterministic compares the bytes), so one tb_verify a table and
 * limit stands for every copy the tests make (verifying each copy took a
 * third of this test's time). */
static int verified_before(const char *name, int limit)
{
    static struct {
        char name[XQ_MATERIAL_MAX];
        int limit;
    } seen[32];
    static int nseen;
    for (int i = 0; i < nseen; i++)
        if (seen[i].limit == limit && !strcmp(seen[i].name, name)) return 1;
    assert_true(nseen < 32);
    snprintf(seen[nseen].name, sizeof seen[nseen].name, "%s", name);
    seen[nseen++].limit = limit;
    return 0;
}

static tb_table *gen_load(const char *name, int limit, int threads, const char *tag, tb_set **set, char *dir)
{
    char err[XQ_ERR_MAX];
    snprintf(dir, 512, "%s/%s", test_tmpdir(), tag);
    xq_material m;
    if (xq_material_parse(name, &m, err)) fail_msg("%s", err);
    tb_gen_options opt = {
        .dir = dir, .threads = threads, .quiet = 1, .rules = XQ_RULES_FULL, .limit = limit, .keep_raw = 1};
    if (tb_generate(&m, &opt, err)) fail_msg("generate %s: %s", name, err);
    *set = tb_set_new(dir);
    tb_table *t = *set ? tb_set_get(*set, &m, err) : NULL;
    if (!t) fail_msg("load %s: %s", name, err);
    assert_int_equal(t->limit, limit);
    tb_verify_report r;
    if (!verified_before(name, limit) && tb_verify(t, 2, &r)) fail_msg("verify %s: %s", name, r.first_error);
    return t;
}

/* Far above any distance in the table: nothing cursed, DTC <= DTM. */
static void test_no_curse_without_pressure(void **state)
{
    (void)state;
    tb_set *set;
    char dir[512];
    tb_table *t = gen_load("KRKN", 1000, 2, "wide-limit", &set, dir);
    uint64_t decided = 0;
    for (int s = 0; s < 2; s++)
        for (uint64_t i = 0; i < t->ix.size; i++) {
            unsigned v = cell_get(t->cells[s], t->width, i), d = tb_dtc(t, s, i);
            if (v >= CELL_DRAW) {
                assert_int_equal(d, DTC_NONE);
                continue;
            }
            decided++;
            assert_false(dtc_beyond(d));
            assert_true(dtc_plies(d) <= (int)v);
            assert_int_equal(dtc_plies(d) == 0, v == 0); /* only mates convert at once */
        }
    assert_true(decided > 0);
    tb_set_free(set);
}

/* KRKN, limit 20 against limit 1000: the same cells and ruled bytes; a result
 * that holds under 20 holds under 1000 at the same distance; cursed wins
 * and blessed losses appear. */
static void test_smaller_limit_only_curses(void **state)
{
    (void)state;
    tb_set *sw, *sn;
    char dw[512], dn[512];
    tb_table *w = gen_load("KRKN", 1000, 2, "wide-limit", &sw, dw);
    tb_table *n = gen_load("KRKN", 20, 2, "narrow-limit", &sn, dn);
    uint64_t beyond = 0;
    for (int s = 0; s < 2; s++)
        for (uint64_t i = 0; i < w->ix.size; i++) {
            assert_int_equal(cell_get(w->cells[s], w->width, i), cell_get(n->cells[s], n->width, i));
            assert_int_equal(tb_ruled(w, s, i), tb_ruled(n, s, i));
            unsigned a = tb_dtc(w, s, i), b = tb_dtc(n, s, i);
            assert_int_equal(a == DTC_NONE, b == DTC_NONE);
            if (b == DTC_NONE) continue;
            if (!dtc_beyond(b)) {
                assert_int_equal(a, b);
                assert_true(dtc_plies(b) <= 20);
            } else {
                beyond++;
            }
        }
    assert_true(beyond > 0);
    tb_set_free(sw);
    tb_set_free(sn);
}

static void test_dtc_deterministic(void **state)
{
    (void)state;
    static const char *const ext[] = {"xqtb", "xqc"};
    for (int threads = 1; threads <= 3; threads++) {
        char tag[64], dir[512];
        snprintf(tag, sizeof tag, "dtc-det%d", threads);
        tb_set *set;
        gen_load("KRKN", 20, threads, tag, &set, dir);
        tb_set_free(set);
    }
    for (int e = 0; e < 2; e++)
        for (int threads = 2; threads <= 3; threads++) {
            char a[700], b[700];
            snprintf(a, sizeof a, "%s/dtc-det1/KRKN.%s", test_tmpdir(), ext[e]);
            snprintf(b, sizeof b, "%s/dtc-det%d/KRKN.%s", test_tmpdir(), threads, ext[e]);
            testgen_assert_same_file(a, b);
        }
}

/* A handle on the tables of dir, with the library's defaults; fails the
 * test if it cannot be opened. */
static xqtb_handle *open_tables(const char *dir)
{
    int st;
    xqtb_handle *h = xqtb_open(dir, NULL, &st);
    if (!h) fail_msg("open %s: %s", dir, xqtb_status_string(st));
    return h;
}

static void to_position(const xq_board *b, xqtb_position *p)
{
    for (int s = 0; s < XQ_SQUARES; s++) {
        xq_piece q = b->sq[s];
        p->board[s] = q == EMPTY ? 0 : (int8_t)(colour_of(q) == RED ? kind_of(q) : -kind_of(q));
    }
    p->side = b->side;
}

/* The five-valued result of a position of value v and DTC code d, with
 * `left` plies left before the limit. */
/* Entry i of t with side s to move into b, and its colours swapped into f:
 * the library must answer both alike. */
static void decode_colourings(const tb_table *t, uint64_t i, int s, xq_board *b, xq_board *f)
{
    xq_index_decode(&t->ix, i, b);
    b->side = (uint8_t)s;
    xq_board_flip(b, f);
}

static int want_wdl5(tb_value v, unsigned d, int left)
{
    if (v.wdl == 0) return XQTB_WDL5_DRAW;
    return v.by_rule || (!dtc_beyond(d) && dtc_plies(d) <= left) ? 2 * v.wdl : v.wdl;
}

/* The library at every counter, on every legal entry in both colourings. */
static void test_library_follows_table(void **state)
{
    (void)state;
    tb_set *set;
    char dir[512];
    const int L = 20;
    tb_table *t = gen_load("KRKN", L, 2, "lib", &set, dir);
    xqtb_handle *h = open_tables(dir);
    uint64_t checked = 0, cursed = 0;
    uint64_t stride = test_sanitized() ? 30 : 3;
    for (uint64_t i = 0; i < t->ix.size; i++)
        for (int s = 0; s < 2; s++) {
            /* every third entry (every 30th under the sanitizers), all
             * counters for one in 21 of them */
            if (i % stride || cell_get(t->cells[s], t->width, i) == CELL_ILLEGAL) continue;
            xq_board b, f;
            decode_colourings(t, i, s, &b, &f);
            tb_value v = tb_value_of(t, &b);
            unsigned d = tb_dtc(t, s, i);
            for (int k = 0; k < 2; k++) {
                xqtb_position p;
                to_position(k ? &f : &b, &p);
                for (int c = 0; c <= L; c += (i % 7 == 0 ? 1 : L)) {
                    xqtb_result r;
                    int w5;
                    assert_int_equal(xqtb_probe_counter(h, &p, c, &r), XQTB_OK);
                    assert_int_equal(xqtb_probe_wdl_counter(h, &p, c, &w5), XQTB_OK);
                    assert_int_equal(w5, r.wdl5);
                    int dtc;
                    assert_int_equal(xqtb_probe_dtc(h, &p, c, &w5, &dtc), XQTB_OK);
                    assert_int_equal(w5, r.wdl5);
                    assert_int_equal(dtc, r.dtc);
                    int want = want_wdl5(v, d, L - c);
                    assert_int_equal(r.wdl5, want);
                    assert_int_equal(r.dtc, d == DTC_NONE ? -1 : dtc_plies(d));
                    cursed += want == XQTB_WDL5_CURSED_WIN;
                    checked++;
                }
            }
        }
    assert_true(cursed > 0);
    /* a negative counter is refused; one past the limit is the limit reached */
    xqtb_position p;
    assert_int_equal(xqtb_position_from_fen("5k3/9/9/9/9/R8/9/4n4/9/3K5 w - - 0 1", &p, NULL), XQTB_OK);
    xqtb_result r, at_limit;
    assert_int_equal(xqtb_probe_counter(h, &p, L, &at_limit), XQTB_OK);
    assert_int_equal(xqtb_probe_counter(h, &p, L + 1, &r), XQTB_OK);
    assert_memory_equal(&r, &at_limit, sizeof r);
    assert_int_equal(xqtb_probe_counter(h, &p, 100000, &r), XQTB_OK);
    assert_memory_equal(&r, &at_limit, sizeof r);
    int w5;
    assert_int_equal(xqtb_probe_wdl_counter(h, &p, L + 7, &w5), XQTB_OK);
    assert_int_equal(w5, at_limit.wdl5);
    assert_int_equal(xqtb_probe_counter(h, &p, -1, &r), XQTB_ERR_INVALID);
    assert_int_equal(xqtb_limit(h), L);
    print_message("KRKN limit %d: %llu probes, %llu cursed\n", L, (unsigned long long)checked,
                  (unsigned long long)cursed);
    xqtb_close(h);
    tb_set_free(set);
}

/* A DTC probe reads the search bounds of the table's DTM file where the
 * handle has it open, else its summary of them, built from the DTM file
 * (probe/probe.c, dtm_hint_of); without the DTM files it reads the
 * successors' WDL values instead.  On a fresh handle that makes DTC probes
 * only (the summaries), then with every DTM file of dir removed, the
 * five-valued answers of every stride-th legal entry, both sides to move
 * and both colourings, are still the generator's, and so are the exact
 * DTCs of xqtb_probe_dtc; without the DTM files a full probe says one is
 * missing. */
static void assert_wdl5_alone(const char *dir, const tb_table *t, int L, uint64_t stride, int without_dtm)
{
    DIR *d = without_dtm ? opendir(dir) : NULL;
    assert_true(d || !without_dtm);
    char path[1024];
    int removed = 0;
    for (struct dirent *de; d && (de = readdir(d));) {
        size_t n = strlen(de->d_name);
        if (n < 5 || strcmp(de->d_name + n - 4, ".xqd")) continue;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        assert_int_equal(unlink(path), 0);
        removed++;
    }
    if (d) closedir(d);
    assert_true(removed > 1 || !without_dtm); /* the table's and its subtables' */
    xqtb_handle *h = open_tables(dir);
    uint64_t probed = 0;
    for (uint64_t i = 0; i < t->ix.size; i += stride)
        for (int s = 0; s < 2; s++) {
            if (cell_get(t->cells[s], t->width, i) == CELL_ILLEGAL) continue;
            xq_board b, f;
            decode_colourings(t, i, s, &b, &f);
            tb_value v = tb_value_of(t, &b);
            unsigned dtc = tb_dtc(t, s, i);
            /* a fresh counter (no search: a searched entry holds), half the
             * limit, and where a distance that holds is just in time and
             * one ply late (the search's early stops, either way; none
             * past the limit, which counts as the limit) */
            int counters[4] = {0, L / 2, -1, -1};
            if (dtc != DTC_NONE && !dtc_beyond(dtc)) {
                counters[2] = L - (int)dtc_plies(dtc);
                counters[3] = counters[2] < L ? counters[2] + 1 : -1;
            }
            for (int c = 0; c < 4; c++)
                for (int k = 0; k < 2 && counters[c] >= 0; k++) {
                    xqtb_position p;
                    to_position(k ? &f : &b, &p);
                    int w5;
                    assert_int_equal(xqtb_probe_wdl_counter(h, &p, counters[c], &w5), XQTB_OK);
                    /* the exact DTC alone, which needs no DTM file either */
                    int w5x, dx;
                    assert_int_equal(xqtb_probe_dtc(h, &p, counters[c], &w5x, &dx), XQTB_OK);
                    if (w5x != w5 || dx != (dtc == DTC_NONE ? -1 : (int)dtc_plies(dtc))) {
                        char fen[XQ_FEN_MAX];
                        xq_fen_write(k ? &f : &b, fen);
                        fail_msg("%s at counter %d: xqtb_probe_dtc %d dtc %d, generator dtc %d", fen, counters[c], w5x,
                                 dx, dtc == DTC_NONE ? -1 : (int)dtc_plies(dtc));
                    }
                    if (w5 != want_wdl5(v, dtc, L - counters[c])) {
                        char fen[XQ_FEN_MAX];
                        xq_fen_write(k ? &f : &b, fen);
                        fail_msg("%s at counter %d: wdl5 %d, generator %d (dtc %d)", fen, counters[c], w5,
                                 want_wdl5(v, dtc, L - counters[c]), dtc == DTC_NONE ? -1 : (int)dtc_plies(dtc));
                    }
                    probed++;
                }
        }
    xqtb_position p;
    xqtb_result r;
    assert_int_equal(xqtb_position_from_fen("5k3/9/9/9/9/R8/9/4n4/9/3K5 w - - 0 1", &p, NULL), XQTB_OK);
    assert_int_equal(xqtb_probe_counter(h, &p, 0, &r), without_dtm ? XQTB_ERR_NO_TABLE : XQTB_OK);
    xqtb_close(h);
    assert_true(probed > 0);
}

/* Searched entries (docs/FORMAT.md) for either side to move, or none, in
 * this table and in every subtable: every legal entry in both colourings
 * answers exactly the generator's DTM, ruling, order and DTC, whichever
 * side the reader has to search: results of the rulings (which the search
 * finds here) and cursed wins and blessed losses (which DTC files store)
 * included. */
static void test_each_side_searched(void **state)
{
    (void)state;
    tb_set *set;
    char dir[512];
    const int L = 20;
    tb_table *t = gen_load("KRKN", L, 2, "sides", &set, dir);
    uint64_t stride = test_sanitized() ? 11 : 1;
    static const int choice[] = {TB_SEARCH_NONE, TB_SEARCH_RED, TB_SEARCH_BLACK};
    for (int ch = 0; ch < 3; ch++) {
        testgen_rewrite_compressed(t, dir, choice[ch]);
        /* a DTC file with a searched side carries its search bounds */
        char path[600], *file;
        long len;
        snprintf(path, sizeof path, "%s/KRKN.xqc", dir);
        testgen_read_file(path, &file, &len);
        assert_true(len > XQF_HEADER_SIZE);
        assert_int_equal(xqf_get32((uint8_t *)file + XQF_OFF_BOUNDS_BYTES) > 0, choice[ch] != TB_SEARCH_NONE);
        free(file);
        xqtb_handle *h = open_tables(dir);
        uint64_t searched = 0, ruled_found = 0, ruled_stored = 0;
        for (uint64_t i = 0; i < t->ix.size; i++)
            for (int s = 0; s < 2; s++) {
                /* every result of the rulings, a sample of the rest */
                if (cell_get(t->cells[s], t->width, i) == CELL_ILLEGAL || (i % stride && !tb_ruled(t, s, i))) continue;
                xq_board b, f;
                decode_colourings(t, i, s, &b, &f);
                tb_value v = tb_value_of(t, &b);
                unsigned d = tb_dtc(t, s, i);
                if (choice[ch] == TB_SEARCH_RED + s) {
                    searched++;
                    unsigned r = tb_ruled(t, s, i);
                    if (v.by_rule && tb_ruled_by_search(t, &b) == r) ruled_found++;
                    if (v.by_rule && tb_ruled_by_search(t, &b) != r) ruled_stored++;
                }
                for (int k = 0; k < 2; k++) {
                    xqtb_position p;
                    to_position(k ? &f : &b, &p);
                    xqtb_result r;
                    int w5;
                    assert_int_equal(xqtb_probe_counter(h, &p, L / 2, &r), XQTB_OK);
                    assert_int_equal(xqtb_probe_wdl_counter(h, &p, L / 2, &w5), XQTB_OK);
                    int want5 = want_wdl5(v, d, L / 2);
                    /* tb_value: a ruling's order in dtm, 0 for draws; the library: no distance */
                    int dtm = v.by_rule || !v.wdl ? XQTB_NO_DISTANCE : v.dtm, order = v.by_rule ? v.dtm : 0;
                    if (r.wdl != v.wdl || r.dtm != dtm || (int)r.by_rule != v.by_rule || r.order != order ||
                        r.dtc != (d == DTC_NONE ? -1 : dtc_plies(d)) || r.wdl5 != want5 || w5 != want5) {
                        char fen[XQ_FEN_MAX];
                        xq_fen_write(k ? &f : &b, fen);
                        fail_msg("searched side choice %d, %s: probe wdl %d dtm %d rule %d/%d dtc %d wdl5 %d/%d; "
                                 "generator %d %d %d/%d dtc %d wdl5 %d",
                                 choice[ch], fen, r.wdl, r.dtm, r.by_rule, r.order, r.dtc, r.wdl5, w5, v.wdl, dtm,
                                 v.by_rule, order, d == DTC_NONE ? -1 : dtc_plies(d), want5);
                    }
                }
            }
        xqtb_close(h);
        /* both kinds of ruled entries of a searched side are met */
        if (choice[ch] != TB_SEARCH_NONE) assert_true(searched > 0 && ruled_found > 0);
        for (int without = 0; without < 2 && choice[ch] != TB_SEARCH_NONE; without++)
            assert_wdl5_alone(dir, t, L, stride, without);
        print_message("KRKN limit %d, searched side choice %d: %llu legal entries of the searched side, of which "
                      "ruled: %llu found by the search, %llu stored\n",
                      L, choice[ch], (unsigned long long)searched, (unsigned long long)ruled_found,
                      (unsigned long long)ruled_stored);
    }
    tb_set_free(set);
}

/* A searched loss is one decided by a ruling (DTC "none") when some move
 * reaches a win by a ruling for the opponent, a capture into a subtable
 * included.  KRAKN's DTC file searches black, and a few of black's ruled
 * losses (6 of 6,822 at limit 20) have as their only such move a capture
 * of red's advisor into a KRKN position that red wins by a ruling.  Every
 * ruled loss of black's, and a sample of the rest, in both colourings,
 * answers exactly the generator's at half the limit, through the full
 * probe, the exact DTC alone and the five-valued probe; and those losses
 * are met. */
static void test_capture_into_ruled_win(void **state)
{
    (void)state;
    tb_set *set;
    char dir[512];
    const int L = 20;
    tb_table *t = gen_load("KRAKN", L, 2, "krakn", &set, dir);
    xqtb_handle *h = open_tables(dir);
    uint64_t stride = test_sanitized() ? 97 : 7, by_capture = 0, ruled = 0;
    for (uint64_t i = 0; i < t->ix.size; i++)
        for (int s = 0; s < 2; s++) {
            if (cell_get(t->cells[s], t->width, i) == CELL_ILLEGAL) continue;
            xq_board b, f;
            decode_colourings(t, i, s, &b, &f);
            tb_value v = tb_value_of(t, &b);
            int ruled_loss = v.by_rule && v.wdl < 0;
            if (!ruled_loss && i % stride) continue;
            if (ruled_loss && s == BLACK) {
                /* whether no quiet move reaches a result of the rulings */
                xq_move list[XQ_MAX_MOVES];
                int n = xq_gen_legal(&b, list), quiet_ruled = 0;
                for (int k = 0; k < n; k++) {
                    xq_undo u;
                    xq_make_move(&b, list[k], &u);
                    if (u.captured == EMPTY) quiet_ruled |= tb_value_of(t, &b).by_rule != 0;
                    xq_unmake_move(&b, list[k], &u);
                }
                ruled++;
                by_capture += !quiet_ruled;
            }
            unsigned d = tb_dtc(t, s, i);
            int want5 = want_wdl5(v, d, L / 2), want_dtc = d == DTC_NONE ? -1 : (int)dtc_plies(d);
            for (int k = 0; k < 2; k++) {
                xqtb_position p;
                to_position(k ? &f : &b, &p);
                xqtb_result r;
                int w5, x5, dtc;
                assert_int_equal(xqtb_probe_counter(h, &p, L / 2, &r), XQTB_OK);
                assert_int_equal(xqtb_probe_dtc(h, &p, L / 2, &x5, &dtc), XQTB_OK);
                assert_int_equal(xqtb_probe_wdl_counter(h, &p, L / 2, &w5), XQTB_OK);
                if (r.wdl != v.wdl || (int)r.by_rule != v.by_rule || r.dtc != want_dtc || dtc != want_dtc ||
                    r.wdl5 != want5 || x5 != want5 || w5 != want5) {
                    char fen[XQ_FEN_MAX];
                    xq_fen_write(k ? &f : &b, fen);
                    fail_msg("%s: probe wdl %d rule %d dtc %d wdl5 %d; alone dtc %d wdl5 %d; wdl5 %d; generator %d %d "
                             "dtc %d wdl5 %d",
                             fen, r.wdl, r.by_rule, r.dtc, r.wdl5, dtc, x5, w5, v.wdl, v.by_rule, want_dtc, want5);
                }
            }
        }
    assert_true(by_capture > 0);
    print_message("KRAKN limit %d: %llu ruled losses of black, %llu of them by a capture alone\n", L,
                  (unsigned long long)ruled, (unsigned long long)by_capture);
    xqtb_close(h);
    tb_set_free(set);
}

/* Links the files of `from` whose names end in one of exts (".xqw",
 * ".xqc") into a new directory `to`: a set exported without its DTM
 * files (xqtb export --no-dtm). */
static void link_files(const char *from, const char *to, const char *const *exts, int nexts)
{
    char src[1024], dst[1024];
    assert_int_equal(mkdir(to, 0700), 0);
    DIR *d = opendir(from);
    assert_non_null(d);
    int linked = 0;
    for (struct dirent *de; (de = readdir(d));) {
        size_t n = strlen(de->d_name);
        for (int e = 0; e < nexts; e++)
            if (n > 4 && !strcmp(de->d_name + n - 4, exts[e])) {
                snprintf(src, sizeof src, "%s/%s", from, de->d_name);
                snprintf(dst, sizeof dst, "%s/%s", to, de->d_name);
                assert_int_equal(link(src, dst), 0);
                linked++;
            }
    }
    closedir(d);
    assert_true(linked > 2);
}

/* Root moves from the WDL and DTC files alone (a set exported without DTM
 * files) are the moves the whole set gives, with the same results, five-
 * valued results and DTC; no DTM; a ruled result told as ruled, without
 * its ruling or order; and ranked as the whole set ranks them without the
 * DTM, so the best move keeps the best result and the fastest conversion.
 * KRAKN at limit 20 has ordinary, cursed and ruled results for both sides,
 * and captures into KRKN's; every 53rd legal entry of each side, at a
 * fresh counter and at half the limit, in both colourings. */
static void test_root_without_dtm(void **state)
{
    (void)state;
    tb_set *set;
    char dir[512], lean[600];
    const int L = 20;
    tb_table *t = gen_load("KRAKN", L, 2, "krakn", &set, dir);
    snprintf(lean, sizeof lean, "%s/krakn-no-dtm", test_tmpdir());
    const char *exts[] = {".xqw", ".xqc"};
    link_files(dir, lean, exts, 2);
    xqtb_handle *all = open_tables(dir), *h = open_tables(lean);
    uint64_t stride = test_sanitized() ? 613 : 53, roots = 0, ruled = 0, cursed = 0;
    for (uint64_t i = 0; i < t->ix.size; i += stride)
        for (int s = 0; s < 2; s++) {
            if (cell_get(t->cells[s], t->width, i) == CELL_ILLEGAL) continue;
            xq_board b, f;
            decode_colourings(t, i, s, &b, &f);
            for (int k = 0; k < 4; k++) {
                xqtb_position p;
                to_position(k & 1 ? &f : &b, &p);
                int counter = k < 2 ? 0 : L / 2;
                xqtb_root_move want[XQTB_MAX_MOVES], got[XQTB_MAX_MOVES];
                int n = xqtb_probe_root_counter(all, &p, counter, want);
                assert_true(n >= 0);
                assert_int_equal(xqtb_probe_root_counter(h, &p, counter, got), n);
                for (int j = 0; j < n; j++) {
                    const xqtb_root_move *g = &got[j], *w = NULL;
                    for (int x = 0; x < n && !w; x++)
                        if (want[x].move == g->move) w = &want[x];
                    assert_non_null(w);
                    int want_rule = w->by_rule ? XQTB_BY_RULING : XQTB_BY_NONE;
                    if (g->wdl != w->wdl || g->wdl5 != w->wdl5 || g->dtc != w->dtc || g->by_rule != want_rule ||
                        g->dtm != XQTB_NO_DISTANCE || g->order != 0 || g->repetition ||
                        (j && g->rank > got[j - 1].rank)) {
                        char fen[XQ_FEN_MAX], name[XQTB_MOVE_NAME_MAX];
                        xq_fen_write(k & 1 ? &f : &b, fen);
                        xqtb_move_name(g->move, name);
                        fail_msg("%s at counter %d, move %s: wdl %d wdl5 %d dtc %d rule %d dtm %d order %d; with DTM "
                                 "wdl %d wdl5 %d dtc %d rule %d",
                                 fen, counter, name, g->wdl, g->wdl5, g->dtc, g->by_rule, g->dtm, g->order, w->wdl,
                                 w->wdl5, w->dtc, w->by_rule);
                    }
                    ruled += g->by_rule != 0;
                    cursed += g->wdl5 == XQTB_WDL5_CURSED_WIN || g->wdl5 == XQTB_WDL5_BLESSED_LOSS;
                }
                /* the best move is as good as the whole set's best, but
                 * for the DTM and a ruled win's order */
                if (n) {
                    assert_int_equal(got[0].wdl5, want[0].wdl5);
                    assert_int_equal(got[0].dtc, want[0].dtc);
                    assert_int_equal(got[0].by_rule != 0, want[0].by_rule != 0);
                }
                roots++;
            }
        }
    assert_true(roots > 0 && ruled > 0 && cursed > 0);
    print_message("KRAKN limit %d without DTM files: %llu roots, %llu ruled and %llu cursed or blessed moves\n", L,
                  (unsigned long long)roots, (unsigned long long)ruled, (unsigned long long)cursed);
    /* what the whole set answers and the lean one cannot */
    xqtb_position p;
    xqtb_result r;
    assert_int_equal(xqtb_position_from_fen("5k3/9/9/9/9/R8/9/4n4/9/3K5 w - - 0 1", &p, NULL), XQTB_OK);
    assert_int_equal(xqtb_probe_counter(h, &p, 0, &r), XQTB_ERR_NO_TABLE);
    xqtb_close(h);
    xqtb_close(all);
    tb_set_free(set);
}

/* Following the root's first move converts a win that holds in time,
 * whatever the loser does. */
static void test_root_converts_in_time(void **state)
{
    (void)state;
    tb_set *set;
    char dir[512];
    const int L = 20;
    tb_table *t = gen_load("KRKN", L, 2, "lib", &set, dir);
    int st;
    xqtb_handle *h = xqtb_open(dir, NULL, &st);
    uint64_t games = 0, seed = 7;
    for (uint64_t i = 0; i < t->ix.size && games < 300; i += 97) {
        xq_board b;
        if (cell_get(t->cells[RED], t->width, i) == CELL_ILLEGAL) continue;
        xq_index_decode(&t->ix, i, &b);
        b.side = RED;
        tb_value v = tb_value_of(t, &b);
        unsigned d = tb_dtc(t, RED, i);
        if (v.wdl != 1 || v.by_rule || dtc_beyond(d)) continue;
        games++;
        xqtb_position p;
        to_position(&b, &p);
        int counter = 0;
        for (int ply = 0;; ply++) {
            xqtb_root_move mv[XQTB_MAX_MOVES];
            int n = xqtb_probe_root_counter(h, &p, counter, mv);
            assert_true(n >= 0);
            if (n == 0) break; /* the loser is mated: converted */
            uint16_t m;
            if (p.side == RED) {
                assert_int_equal(mv[0].wdl5, XQTB_WDL5_WIN);
                m = mv[0].move;
            } else {
                seed = seed * 6364136223846793005ull + 1;
                m = mv[(seed >> 33) % (uint64_t)n].move;
            }
            int capture = p.board[m >> 7] != 0;
            assert_int_equal(xqtb_play(&p, m), XQTB_OK);
            counter = capture ? 0 : counter + 1;
            if (capture) break; /* converted (a capture keeps the win, or the loser blundered) */
            assert_true(counter <= (int)dtc_plies(d));
        }
    }
    assert_true(games > 0);
    xqtb_close(h);
    tb_set_free(set);
}

/* A damaged DTC file: every probe either answers exactly as before or fails
 * cleanly (CORRUPT, or MISMATCH for a header that now claims other
 * settings); truncations fail.  Bytes are flipped across the header, the
 * map and offsets, and the blocks. */
static void test_damaged_dtc_file(void **state)
{
    (void)state;
    tb_set *set;
    char dir[512], path[600];
    tb_table *t = gen_load("KRKN", 20, 2, "damage", &set, dir);
    snprintf(path, sizeof path, "%s/KRKN.xqc", dir);
    char *orig;
    long len;
    testgen_read_file(path, &orig, &len);
    /* the undamaged answers of a spread of positions */
    enum { SAMPLES = 200 };
    xqtb_position pos[SAMPLES];
    xqtb_result want[SAMPLES];
    int n = 0, st;
    xqtb_handle *h = xqtb_open(dir, NULL, &st);
    for (uint64_t i = 0; i < t->ix.size && n < SAMPLES; i += t->ix.size / SAMPLES + 1) {
        if (cell_get(t->cells[RED], t->width, i) >= CELL_DRAW) continue;
        xq_board b;
        xq_index_decode(&t->ix, i, &b);
        b.side = RED;
        to_position(&b, &pos[n]);
        assert_int_equal(xqtb_probe_counter(h, &pos[n], 5, &want[n]), XQTB_OK);
        n++;
    }
    xqtb_close(h);
    assert_true(n > 20);
    uint64_t answered = 0, failed = 0;
    long step = test_sanitized() ? 389 : 97; /* sparser under the sanitizers */
    for (long off = 0; off < len; off += off < 256 ? 1 : step) {
        char *buf = malloc((size_t)len);
        memcpy(buf, orig, (size_t)len);
        buf[off] ^= 0x5A;
        FILE *f = fopen(path, "wb");
        fwrite(buf, 1, (size_t)len, f);
        fclose(f);
        free(buf);
        h = xqtb_open(dir, NULL, &st);
        for (int k = 0; k < n; k++) {
            xqtb_result r;
            /* half the positions by the DTC probe alone, taking turns */
            int rc =
                (k + off) % 2 ? xqtb_probe_counter(h, &pos[k], 5, &r) : xqtb_probe_dtc(h, &pos[k], 5, &r.wdl5, &r.dtc);
            if (rc == XQTB_OK) {
                if (r.dtc != want[k].dtc || r.wdl5 != want[k].wdl5)
                    fail_msg("byte %ld flipped: dtc %d wdl5 %d, undamaged %d %d", off, r.dtc, r.wdl5, want[k].dtc,
                             want[k].wdl5);
                answered++;
            } else {
                if (rc != XQTB_ERR_CORRUPT && rc != XQTB_ERR_MISMATCH)
                    fail_msg("byte %ld flipped: %s", off, xqtb_status_string(rc));
                failed++;
            }
        }
        xqtb_close(h);
    }
    /* a truncated file */
    FILE *f = fopen(path, "wb");
    fwrite(orig, 1, (size_t)len / 2, f);
    fclose(f);
    h = xqtb_open(dir, NULL, &st);
    xqtb_result r;
    assert_int_equal(xqtb_probe_counter(h, &pos[0], 0, &r), XQTB_ERR_CORRUPT);
    xqtb_close(h);
    f = fopen(path, "wb");
    fwrite(orig, 1, (size_t)len, f);
    fclose(f);
    free(orig);
    print_message("KRKN.xqc damaged: %llu probes answered correctly, %llu failed cleanly\n",
                  (unsigned long long)answered, (unsigned long long)failed);
    tb_set_free(set);
}

/* dtc_solve holds its distances a byte an entry and widens them to two
 * only before a ply that could write one past a byte, which no table here
 * reaches.  Solved again with the distances widened before an early ply
 * (right after the first, before the second, and later), never widened,
 * and with early finds unused, every code comes out as the table has it
 * (from its file).  KRKN at limit 20 computes one kind of distance; KRKNA
 * at 20 both, since a capture reaches its subtable KRKN's cursed wins; at
 * limit 8 so many of KNK's and KRKN's wins are cursed that their sides'
 * codes do not pack (their bytes become two-byte codes in place), KNK
 * with one kind, KRKN with two. */
static void test_dtc_widened_agrees(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int limit;
    } cases[] = {{"KRKN", 20}, {"KRKNA", 20}, {"KNK", 8}, {"KRKN", 8}};
    for (int m = 0; m < 4; m++) {
        tb_set *set;
        char dir[512], tag[64], err[XQ_ERR_MAX];
        /* half of the test's time under the sanitizers; KRKN at limit 8
         * computes two kinds of distance as well */
        if (m == 1 && test_skipped_under_san("KRKNA")) continue;
        snprintf(tag, sizeof tag, "widen-%s-%d", cases[m].name, cases[m].limit);
        tb_table *t = gen_load(cases[m].name, cases[m].limit, 2, tag, &set, dir);
        uint64_t differ = 0, beyond;
        uint16_t *want = testgen_dtc_codes(t, &beyond);
        assert_true(beyond > 0);
        if (m == 1) { /* two kinds: a capture of the advisor reaches KRKN's cursed wins */
            const tb_table *sub = t->sub[BLACK][ADVISOR];
            uint64_t sub_beyond = 0;
            for (int s = 0; s < 2; s++)
                for (uint64_t i = 0; i < sub->ix.size; i++) sub_beyond += dtc_beyond(tb_dtc(sub, s, i));
            assert_true(sub_beyond > 0);
        }
        static const int widen_at[] = {1, 2, 3, 7, 1 << 30};
        int unpacked = 0;
        for (int w = 0; w < 5; w++) {
            tb_dtc_free(t);
            dtc_report rep;
            if (dtc_solve_tuned(t, 2, NULL, widen_at[w], PASS_CHOOSE, &rep, err))
                fail_msg("%s: %s", cases[m].name, err);
            differ += testgen_dtc_differ(t, want);
            assert_int_equal(rep.beyond, beyond);
            if (widen_at[w] == 1 << 30) unpacked = t->dtc[RED] || t->dtc[BLACK];
        }
        assert_int_equal(differ, 0);
        if (cases[m].limit == 8) assert_true(unpacked); /* a side whose codes do not pack */
        free(want);
        tb_set_free(set);
    }
}

/* A directory built for one limit is rebuilt for another; a set refuses
 * subtables of another limit. */
static void test_limits_never_mix(void **state)
{
    (void)state;
    tb_set *set;
    char dir[512];
    tb_table *t = gen_load("KRKN", 20, 2, "mix", &set, dir);
    tb_set_free(set);
    t = gen_load("KRKN", 30, 2, "mix", &set, dir);
    assert_int_equal(t->sub[BLACK][HORSE]->limit, 30);
    tb_set_free(set);
}

/* `gen --limit 120` writes the DTC file; `probe --counter 100` turns a win
 * that needs 23 plies to convert into a cursed win. */
static void test_cli_counter(void **state)
{
    (void)state;
    char dir[512];
    snprintf(dir, sizeof dir, "%s/cli", test_tmpdir());
    assert_int_equal(run_xqtb("gen -q --limit 120 -d %s KRKN", dir), 0);
    char path[600];
    snprintf(path, sizeof path, "%s/KRKN.xqc", dir);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fclose(f);
    const char *fen = "5k3/9/9/9/9/R8/9/4n4/9/3K5 w - - 0 1";
    assert_int_equal(run_xqtb("probe --json -d %s '%s'", dir, fen), 0);
    assert_non_null(strstr(xqtb_out, "\"limit\":120,\"counter\":0,\"wdl\":\"win\",\"dtm\":25,\"dtc\":23"));
    assert_int_equal(run_xqtb("probe --json --counter 97 -d %s '%s'", dir, fen), 0);
    assert_non_null(strstr(xqtb_out, "\"counter\":97,\"wdl\":\"win\""));
    assert_int_equal(run_xqtb("probe --json --counter 98 -d %s '%s'", dir, fen), 0);
    assert_non_null(strstr(xqtb_out, "\"counter\":98,\"wdl\":\"cursed_win\""));
    assert_int_equal(run_xqtb("probe --counter 100 -d %s '%s'", dir, fen), 0);
    assert_non_null(strstr(xqtb_out, "cursed win: it cannot be converted in time"));
    assert_int_equal(run_xqtb("probe --counter 121 -d %s '%s'", dir, fen), 2);
    assert_non_null(strstr(xqtb_out, "beyond the tables' move limit"));
    /* the FEN's own counter (its fifth field) counts: it was read as 0 */
    const char *fen98 = "5k3/9/9/9/9/R8/9/4n4/9/3K5 w - - 98 1";
    assert_int_equal(run_xqtb("probe --json -d %s '%s'", dir, fen98), 0);
    assert_non_null(strstr(xqtb_out, "\"counter\":98,\"wdl\":\"cursed_win\""));
    assert_int_equal(run_xqtb("probe --json --counter 98 -d %s '%s'", dir, fen98), 0); /* agreeing */
    assert_non_null(strstr(xqtb_out, "\"counter\":98,\"wdl\":\"cursed_win\""));
    assert_int_equal(run_xqtb("probe --json --counter 97 -d %s '%s'", dir, fen98), 2); /* contradicting */
    assert_non_null(strstr(xqtb_out, "contradicts the FEN's counter"));
    /* --line follows the library's line: to mate where the win holds, none
     * where the limit makes it a draw (it played on to a "mate" past the
     * limit, the capture at counter 120) */
    assert_int_equal(run_xqtb("probe --line -d %s '5k3/9/9/9/9/R8/9/4n4/9/3K5 w - - 90 1'", dir), 0);
    assert_non_null(strstr(xqtb_out, "(then no legal move: lost)"));
    assert_int_equal(run_xqtb("probe --line -d %s '%s'", dir, fen98), 0);
    assert_non_null(strstr(xqtb_out, "line: none, the move limit makes the position a draw"));
    assert_int_equal(run_xqtb("probe -d %s '5k3/9/9/9/9/R8/9/4n4/9/3K5 w - - 500 1'", dir), 2);
    assert_non_null(strstr(xqtb_out, "beyond the tables' move limit"));
    assert_int_equal(run_xqtb("gen -q --limit many -d %s KRKN", dir), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_curse_without_pressure),
        cmocka_unit_test(test_smaller_limit_only_curses),
        cmocka_unit_test(test_dtc_deterministic),
        cmocka_unit_test(test_dtc_widened_agrees),
        cmocka_unit_test(test_library_follows_table),
        cmocka_unit_test(test_root_converts_in_time),
        cmocka_unit_test(test_limits_never_mix),
        cmocka_unit_test(test_damaged_dtc_file),
        cmocka_unit_test(test_cli_counter),
        cmocka_unit_test(test_each_side_searched),
        cmocka_unit_test(test_capture_into_ruled_win),
        cmocka_unit_test(test_root_without_dtm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
