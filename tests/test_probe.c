/*
 * test_probe.c - the probe library against the generator: every legal
 * position of several tables, looked up through the public API from the
 * compressed files, must give the value the generator computed; root moves
 * must agree with the position's own value.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <zstd.h>

#include "cell.h"
#include "compress.h"
#include "dtc.h"
#include "fen.h"
#include "movegen.h"
#include "searched.h"
#include "tb.h"
#include "testenv.h"
#include "testgen.h"
#include "tmpdir.h"
#include "xqtb.h"

static void to_position(const xq_board *b, xqtb_position *p)
{
    for (int s = 0; s < XQ_SQUARES; s++) {
        xq_piece q = b->sq[s];
        p->board[s] = q == EMPTY ? 0 : (int8_t)(colour_of(q) == RED ? kind_of(q) : -kind_of(q));
    }
    p->side = b->side;
}

static const char *generate(const char *name)
{
    tb_set *set;
    testgen_load(name, &set);
    tb_set_free(set);
    return test_tmpdir();
}

/* Every legal entry of `name`, both colourings, WDL and DTM, and for a
 * sample the root moves. */
static void compare_all(const char *name, int root_stride)
{
    tb_set *set;
    tb_table *t = testgen_load(name, &set);
    testgen_verify_all(t);
    const char *dir = test_tmpdir();
    int st;
    xqtb_handle *h = xqtb_open(dir, NULL, &st);
    assert_non_null(h);
    uint64_t checked = 0;
    for (uint64_t i = 0; i < t->ix.size; i++)
        for (int s = 0; s < 2; s++) {
            unsigned code = cell_get(t->cells[s], t->width, i);
            if (code == CELL_ILLEGAL) continue;
            tb_value want = tb_value_of_cell(code);
            xq_board b, f;
            xq_index_decode(&t->ix, i, &b);
            b.side = (uint8_t)s;
            xq_board_flip(&b, &f);
            const xq_board *boards[2] = {&b, &f};
            for (int k = 0; k < 2; k++) {
                xqtb_position p;
                to_position(boards[k], &p);
                int wdl = 99, dtm = -1, wdl_only = 99, trusted = 99;
                assert_int_equal(xqtb_probe_wdl(h, &p, &wdl_only), XQTB_OK);
                /* what a search calls: the same answer without the checks */
                assert_int_equal(xqtb_probe_wdl_trusted(h, &p, &trusted), XQTB_OK);
                assert_int_equal(trusted, wdl_only);
                assert_int_equal(xqtb_covered(h, &p), 1);
                assert_int_equal(xqtb_probe_dtm(h, &p, &wdl, &dtm), XQTB_OK);
                /* the generator's draws have dtm 0; the library has no distance for them */
                int want_dtm = want.wdl == 0 ? XQTB_NO_DISTANCE : want.dtm;
                if (wdl != want.wdl || dtm != want_dtm || wdl_only != want.wdl) {
                    char fen[XQ_FEN_MAX];
                    xq_fen_write(boards[k], fen);
                    fail_msg("%s %s: generator %d/%d, probe wdl %d dtm %d (WDL file %d)", name, fen, want.wdl, want.dtm,
                             wdl, dtm, wdl_only);
                }
                checked++;
                if (root_stride && i % (uint64_t)root_stride == 0) {
                    xqtb_root_move mv[XQTB_MAX_MOVES];
                    int n = xqtb_probe_root(h, &p, mv);
                    assert_true(n >= 0);
                    if (n == 0) {
                        assert_int_equal(want.wdl, -1);
                        assert_int_equal(want.dtm, 0);
                    } else {
                        /* the best move carries the position's value */
                        assert_int_equal(mv[0].wdl, want.wdl);
                        assert_int_equal(mv[0].dtm, want_dtm);
                        for (int j = 1; j < n; j++) {
                            assert_true(mv[j].wdl <= mv[j - 1].wdl);
                            assert_true(mv[j].rank <= mv[j - 1].rank); /* sorted by rank */
                        }
                        /* the rank's sign is the value's */
                        for (int j = 0; j < n; j++) assert_int_equal((mv[j].rank > 0) - (mv[j].rank < 0), mv[j].wdl);
                    }
                }
            }
        }
    assert_true(checked > 0);
    xqtb_close(h);
    tb_set_free(set);
}

static void test_krk(void **state)
{
    (void)state;
    compare_all("KRK", 1);
}
static void test_kcak(void **state)
{
    (void)state;
    compare_all("KCAK", 7);
}
static void test_krkn(void **state)
{
    (void)state;
    compare_all("KRKN", test_sanitized() ? 0 : 97);
}
static void test_knkn(void **state)
{
    (void)state;
    compare_all("KNKN", 101);
}

static void test_handle_reports(void **state)
{
    (void)state;
    const char *dir = generate("KRK");
    int st = 1;
    xqtb_handle *h = xqtb_open(dir, NULL, &st);
    assert_int_equal(st, XQTB_OK);
    assert_true(xqtb_table_count(h) >= 2); /* KRK and KK at least */
    assert_true(xqtb_largest(h) >= 3);
    xqtb_position p;
    /* a material with no table */
    assert_int_equal(xqtb_position_from_fen("4k4/9/9/9/9/9/9/9/4A4/3AK4 w - - 0 1", &p, NULL), XQTB_OK);
    int wdl = 7, dtm = 7;
    assert_int_equal(xqtb_probe_wdl(h, &p, &wdl), XQTB_ERR_NO_TABLE);
    assert_int_equal(wdl, 7);
    char name[40];
    assert_int_equal(xqtb_material_name(&p, name), XQTB_OK);
    assert_string_equal(name, "KAAK");
    /* invalid positions and arguments */
    memset(&p, 0, sizeof p);
    assert_int_equal(xqtb_probe_dtm(h, &p, &wdl, &dtm), XQTB_ERR_INVALID);
    assert_int_equal(xqtb_probe_wdl(NULL, &p, &wdl), XQTB_ERR_INVALID);
    assert_int_equal(xqtb_probe_wdl(h, NULL, &wdl), XQTB_ERR_INVALID);
    /* every NULL argument as xqtb.h documents it, on a covered position */
    assert_int_equal(xqtb_position_from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1", &p, NULL), XQTB_OK);
    xqtb_result r;
    xqtb_root_move mv[XQTB_MAX_MOVES];
    int wdl5;
    assert_int_equal(xqtb_probe_wdl(h, &p, NULL), XQTB_ERR_INVALID);
    assert_int_equal(xqtb_probe_dtm(h, &p, NULL, &dtm), XQTB_ERR_INVALID);
    assert_int_equal(xqtb_probe_dtm(h, &p, &wdl, NULL), XQTB_ERR_INVALID);
    assert_int_equal(xqtb_probe(NULL, &p, &r), XQTB_ERR_INVALID);
    assert_int_equal(xqtb_probe(h, NULL, &r), XQTB_ERR_INVALID);
    assert_int_equal(xqtb_probe(h, &p, NULL), XQTB_ERR_INVALID);
    assert_int_equal(xqtb_probe_counter(h, &p, 0, NULL), XQTB_ERR_INVALID);
    assert_int_equal(xqtb_probe_wdl_counter(h, &p, 0, NULL), XQTB_ERR_INVALID);
    assert_int_equal(xqtb_probe_wdl_counter(NULL, &p, 0, &wdl5), XQTB_ERR_INVALID);
    int dtc;
    assert_int_equal(xqtb_probe_dtc(h, &p, 0, NULL, &dtc), XQTB_ERR_INVALID);
    assert_int_equal(xqtb_probe_dtc(h, &p, 0, &wdl5, NULL), XQTB_ERR_INVALID);
    assert_int_equal(xqtb_probe_dtc(h, NULL, 0, &wdl5, &dtc), XQTB_ERR_INVALID);
    assert_int_equal(xqtb_probe_dtc(NULL, &p, 0, &wdl5, &dtc), XQTB_ERR_INVALID);
    assert_int_equal(xqtb_probe_dtc(h, &p, -1, &wdl5, &dtc), XQTB_ERR_INVALID);
    assert_int_equal(xqtb_probe_root(h, &p, NULL), XQTB_ERR_INVALID);
    assert_int_equal(xqtb_probe_root(NULL, &p, mv), XQTB_ERR_INVALID);
    assert_int_equal(xqtb_probe_root_counter(h, NULL, 0, mv), XQTB_ERR_INVALID);
    assert_int_equal(xqtb_probe(h, &p, &r), XQTB_OK); /* and the handle still answers */
    assert_int_equal(xqtb_table_count(NULL), 0);
    assert_int_equal(xqtb_largest(NULL), 0);
    assert_int_equal(xqtb_limit(NULL), -1);
    assert_int_equal(xqtb_rules(NULL), -1);
    xqtb_close(h);
    assert_null(xqtb_open(NULL, NULL, &st));
    assert_int_equal(st, XQTB_ERR_INVALID);
    /* directories that do not exist cover nothing */
    h = xqtb_open("/nonexistent-xqtb-dir::", NULL, &st);
    assert_non_null(h);
    assert_int_equal(xqtb_table_count(h), 0);
    assert_int_equal(xqtb_largest(h), 0);
    xqtb_close(h);
    xqtb_close(NULL);
}

/* What a search uses besides the probes: "is it covered?" by position and
 * by counts, the trusted probe's refusals, in-check, the move helpers. */
static void test_search_helpers(void **state)
{
    (void)state;
    const char *dir = generate("KRK");
    int st;
    xqtb_handle *h = xqtb_open(dir, NULL, &st);
    assert_non_null(h);
    xqtb_position p;
    int wdl = 7;
    /* KRK under both colourings, KAAK (no table), a piece too many */
    assert_int_equal(xqtb_position_from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1", &p, NULL), XQTB_OK);
    assert_int_equal(xqtb_covered(h, &p), 1);
    assert_int_equal(xqtb_position_from_fen("4k4/4r4/9/9/9/9/9/9/9/3K5 b - - 0 1", &p, NULL), XQTB_OK);
    assert_int_equal(xqtb_covered(h, &p), 1);
    assert_int_equal(xqtb_probe_wdl_trusted(h, &p, &wdl), XQTB_OK);
    assert_int_equal(wdl, XQTB_WIN);
    assert_int_equal(xqtb_position_from_fen("4k4/9/9/9/9/9/9/9/4A4/3AK4 w - - 0 1", &p, NULL), XQTB_OK);
    assert_int_equal(xqtb_covered(h, &p), 0);
    wdl = 7;
    assert_int_equal(xqtb_probe_wdl_trusted(h, &p, &wdl), XQTB_ERR_NO_TABLE);
    assert_int_equal(wdl, 7);
    assert_int_equal(xqtb_position_from_fen("3k5/9/9/9/9/9/9/9/1R2R4/4K4 w - - 0 1", &p, NULL), XQTB_OK);
    assert_int_equal(xqtb_covered(h, &p), 0);
    uint8_t counts[2][8] = {{0}};
    counts[XQTB_RED][XQTB_ROOK] = 1;
    assert_int_equal(xqtb_covered_counts(h, counts), 1);
    counts[XQTB_RED][XQTB_ROOK] = 0;
    counts[XQTB_BLACK][XQTB_ROOK] = 1; /* KKR: KRK with the colours swapped */
    assert_int_equal(xqtb_covered_counts(h, counts), 1);
    counts[XQTB_BLACK][XQTB_ROOK] = 9; /* more than the game allows */
    assert_int_equal(xqtb_covered_counts(h, counts), 0);
    assert_int_equal(xqtb_covered_counts(NULL, counts), 0);
    assert_int_equal(xqtb_covered_counts(h, NULL), 0);
    assert_int_equal(xqtb_covered(NULL, &p), 0);
    assert_int_equal(xqtb_covered(h, NULL), 0);
    /* what the trusted probe still refuses: codes out of range, no king,
     * two kings, a bad side; an illegal but well-formed position gets an
     * answer or INVALID, never a crash (here: kings facing) */
    assert_int_equal(xqtb_position_from_fen("3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1", &p, NULL), XQTB_OK);
    xqtb_position q = p;
    q.board[40] = 9;
    assert_int_equal(xqtb_probe_wdl_trusted(h, &q, &wdl), XQTB_ERR_INVALID);
    assert_int_equal(xqtb_covered(h, &q), 0);
    /* the same in the last two squares, which the reader takes apart from
     * the eight-square words before them */
    for (int sq = 88; sq < 90; sq++) {
        char why[XQTB_ERR_MAX];
        q = p;
        q.board[sq] = -8;
        assert_int_equal(xqtb_probe_wdl_trusted(h, &q, &wdl), XQTB_ERR_INVALID);
        assert_int_equal(xqtb_position_validate(&q, why), XQTB_ERR_INVALID);
        assert_non_null(strstr(why, "out of range"));
        q = p;
        q.board[sq] = 1; /* a second red king */
        assert_int_equal(xqtb_probe_wdl_trusted(h, &q, &wdl), XQTB_ERR_INVALID);
        assert_int_equal(xqtb_position_validate(&q, why), XQTB_ERR_INVALID);
        assert_non_null(strstr(why, "more than one king"));
    }
    q = p;
    q.board[4] = 0; /* red's king gone */
    assert_int_equal(xqtb_probe_wdl_trusted(h, &q, &wdl), XQTB_ERR_INVALID);
    q = p;
    q.side = 2;
    assert_int_equal(xqtb_probe_wdl_trusted(h, &q, &wdl), XQTB_ERR_INVALID);
    q = p;
    q.board[84] = 0;
    q.board[85] = -1; /* black king on e9, in check from the rook on e1 with red to move: illegal */
    int rc = xqtb_probe_wdl_trusted(h, &q, &wdl);
    assert_true(rc == XQTB_OK || rc == XQTB_ERR_INVALID);
    assert_int_equal(xqtb_probe_wdl_trusted(NULL, &p, &wdl), XQTB_ERR_INVALID);
    assert_int_equal(xqtb_probe_wdl_trusted(h, NULL, &wdl), XQTB_ERR_INVALID);
    assert_int_equal(xqtb_probe_wdl_trusted(h, &p, NULL), XQTB_ERR_INVALID);
    /* in check, and the move helpers */
    assert_int_equal(xqtb_in_check(&p), 0);
    assert_int_equal(xqtb_position_from_fen("4k4/9/9/9/9/9/9/9/4R4/3K5 b - - 0 1", &p, NULL), XQTB_OK);
    assert_int_equal(xqtb_in_check(&p), 1);
    assert_int_equal(xqtb_in_check(NULL), XQTB_ERR_INVALID);
    /* the principal variation: KRK played out to mate */
    assert_int_equal(xqtb_position_from_fen("9/9/4k4/9/9/9/9/9/9/R2K5 w - - 0 1", &p, NULL), XQTB_OK);
    uint16_t pv[XQTB_PV_MAX];
    xqtb_pv_end end = XQTB_PV_END_LENGTH;
    int dtm_pv;
    int len = xqtb_probe_pv(h, &p, 0, pv, XQTB_PV_MAX, &end);
    assert_int_equal(xqtb_probe_dtm(h, &p, &wdl, &dtm_pv), XQTB_OK);
    assert_int_equal(len, dtm_pv);
    assert_int_equal(end, XQTB_PV_END_MATE);
    xqtb_position e = p;
    for (int i = 0; i < len; i++) assert_int_equal(xqtb_play(&e, pv[i]), XQTB_OK);
    assert_int_equal(xqtb_legal_moves(&e, (uint16_t[XQTB_MAX_MOVES]){0}), 0);
    assert_int_equal(xqtb_probe_pv(h, &p, 0, pv, 1, &end), 1); /* cut short */
    assert_int_equal(end, XQTB_PV_END_LENGTH);
    assert_int_equal(xqtb_probe_pv(h, &p, 0, NULL, 5, &end), XQTB_ERR_INVALID);
    assert_int_equal(xqtb_probe_pv(h, &p, 0, pv, 5, NULL), XQTB_ERR_INVALID);
    assert_int_equal(xqtb_probe_pv(h, &p, 0, pv, -1, &end), XQTB_ERR_INVALID);
    assert_int_equal(xqtb_probe_pv(NULL, &p, 0, pv, 5, &end), XQTB_ERR_INVALID);
    /* a draw has no line */
    assert_int_equal(xqtb_position_from_fen("9/4k4/4R4/9/9/9/9/9/9/3K5 b - - 0 1", &p, NULL), XQTB_OK);
    assert_int_equal(xqtb_probe_pv(h, &p, 0, pv, XQTB_PV_MAX, &end), 0);
    assert_int_equal(end, XQTB_PV_END_DRAW);
    uint16_t m = xqtb_move_parse("h2e2");
    assert_int_equal(xqtb_move_from(m), 2 * 9 + 7);
    assert_int_equal(xqtb_move_to(m), 2 * 9 + 4);
    assert_int_equal(xqtb_make_move(xqtb_move_from(m), xqtb_move_to(m)), m);
    xqtb_close(h);
}

/* Without DTM files the root comes from the WDL files alone: values, no
 * distances, ranked by value. */
static void test_root_wdl_only(void **state)
{
    (void)state;
    char dir[512], err[XQ_ERR_MAX], path[600];
    snprintf(dir, sizeof dir, "%s/wdl-only", test_tmpdir());
    xq_material m;
    assert_int_equal(xq_material_parse("KRK", &m, err), 0);
    tb_gen_options opt = {.dir = dir, .threads = 1, .quiet = 1, .rules = XQ_RULES_FULL, .limit = 120};
    if (tb_generate(&m, &opt, err)) fail_msg("%s", err);
    const char *gone[] = {"KRK.xqd", "KRK.xqc", "KK.xqd", "KK.xqc"};
    for (size_t i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, gone[i]);
        assert_int_equal(unlink(path), 0);
    }
    int st;
    xqtb_handle *h = xqtb_open(dir, NULL, &st);
    assert_non_null(h);
    xqtb_position p;
    /* red mates in one; black's king on d9 can also be reached */
    assert_int_equal(xqtb_position_from_fen("3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1", &p, NULL), XQTB_OK);
    xqtb_root_move mv[XQTB_MAX_MOVES];
    int n = xqtb_probe_root(h, &p, mv);
    assert_true(n > 0);
    assert_int_equal(mv[0].wdl, XQTB_WIN);
    for (int i = 0; i < n; i++) {
        assert_int_equal(mv[i].dtm, -1);
        assert_int_equal(mv[i].dtc, -1);
        assert_int_equal(mv[i].wdl5, 2 * mv[i].wdl);
        if (i) assert_true(mv[i].rank <= mv[i - 1].rank);
        /* each move's value is what the WDL file says of the position it leads to */
        xqtb_position q = p;
        int wdl;
        assert_int_equal(xqtb_play(&q, mv[i].move), XQTB_OK);
        assert_int_equal(xqtb_probe_wdl(h, &q, &wdl), XQTB_OK);
        assert_int_equal(mv[i].wdl, -wdl);
    }
    int wdl, dtm;
    assert_int_equal(xqtb_probe_dtm(h, &p, &wdl, &dtm), XQTB_ERR_NO_TABLE);
    xqtb_close(h);
}

/* Plays ICCS moves on a copy of start into pos and moves[]; returns n. */
static int play_line(const xqtb_position *start, const char *line, xqtb_position *pos, uint16_t moves[64])
{
    char buf[256];
    int n = 0;
    *pos = *start;
    snprintf(buf, sizeof buf, "%s", line);
    for (char *t = strtok(buf, " "); t && n < 64; t = strtok(NULL, " ")) {
        moves[n] = xqtb_move_parse(t);
        assert_int_equal(xqtb_play(pos, moves[n]), XQTB_OK);
        n++;
    }
    return n;
}

static const xqtb_root_move *find_move(const xqtb_root_move *mv, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (mv[i].move == xqtb_move_parse(name)) return &mv[i];
    fail_msg("root move %s missing", name);
    return NULL;
}

/* The root given the game's history (xqtb_probe_root_ex): a move that
 * repeats a position of the game gets the verdict of that repetition, the
 * others keep the tables' values. */
static void test_root_history(void **state)
{
    (void)state;
    tb_set *set;
    testgen_load_rules("KRK", XQ_RULES_FULL, &set);
    tb_set_free(set);
    char dir[512];
    snprintf(dir, sizeof dir, "%s/rules-%d", test_tmpdir(), XQ_RULES_FULL);
    xqtb_status st;
    xqtb_handle *h = xqtb_open(dir, NULL, &st);
    assert_non_null(h);
    assert_int_equal(xqtb_rules(h), XQTB_RULES_FULL);
    xqtb_position start, pos;
    assert_int_equal(xqtb_position_from_fen("9/9/5k3/9/9/9/9/9/9/3KR4 w - - 0 1", &start, NULL), XQTB_OK);
    uint16_t line[64];
    xqtb_root_move plain[XQTB_MAX_MOVES], mv[XQTB_MAX_MOVES];
    xqtb_root_options opt = {.history_start = &start, .history_moves = line};

    /* red has checked round once: checking again with e0f0 completes a
     * repetition in which red checked on every move, and loses */
    opt.history_length = play_line(&start, "e0f0 f7e7 f0e0 e7f7", &pos, line);
    int n = xqtb_probe_root(h, &pos, plain);
    assert_int_equal(xqtb_probe_root_ex(h, &pos, &opt, mv), n);
    const xqtb_root_move *again = find_move(mv, n, "e0f0");
    assert_int_equal(again->repetition, 1);
    assert_int_equal(again->wdl, XQTB_LOSS);
    assert_int_equal(again->by_rule, XQTB_BY_PERPETUAL_CHECK);
    assert_int_equal(again->order, 0);
    assert_int_equal(again->dtm, XQTB_NO_DISTANCE);
    assert_ptr_equal(again, &mv[n - 1]); /* last of all */
    for (int i = 0; i < n; i++) {
        if (mv[i].move == again->move) continue;
        int j = 0;
        while (plain[j].move != mv[i].move) j++;
        assert_int_equal(mv[i].repetition, 0);
        assert_int_equal(mv[i].wdl, plain[j].wdl);
        assert_int_equal(mv[i].dtm, plain[j].dtm);
        assert_int_equal(mv[i].rank, plain[j].rank);
    }
    assert_int_equal(mv[0].wdl, XQTB_WIN);

    /* black to move after red's three checks: stepping back repeats the
     * start, where red checked throughout: black wins by red's ruling */
    opt.history_length = play_line(&start, "e0f0 f7e7 f0e0", &pos, line);
    n = xqtb_probe_root_ex(h, &pos, &opt, mv);
    assert_true(n >= 1);
    assert_int_equal(mv[0].move, xqtb_move_parse("e7f7"));
    assert_int_equal(mv[0].repetition, 1);
    assert_int_equal(mv[0].wdl, XQTB_WIN);
    assert_int_equal(mv[0].wdl5, XQTB_WDL5_WIN);
    assert_int_equal(mv[0].by_rule, XQTB_BY_PERPETUAL_CHECK);

    /* idle moves round: the losing side repeats into a draw, its best move */
    opt.history_length = play_line(&start, "d0d1 f7f8 d1d0", &pos, line);
    n = xqtb_probe_root_ex(h, &pos, &opt, mv);
    assert_true(n >= 1);
    assert_int_equal(mv[0].move, xqtb_move_parse("f8f7"));
    assert_int_equal(mv[0].repetition, 1);
    assert_int_equal(mv[0].wdl, XQTB_DRAW);
    assert_int_equal(mv[0].by_rule, XQTB_BY_NONE);
    assert_int_equal(xqtb_probe_root(h, &pos, plain), n);
    assert_int_equal(find_move(plain, n, "f8f7")->wdl, XQTB_LOSS); /* what the tables alone say */

    /* bad input */
    assert_int_equal(xqtb_probe_root_ex(h, &start, &opt, mv), XQTB_ERR_INVALID); /* history ends elsewhere */
    uint16_t illegal[] = {xqtb_move_parse("e0e9"), xqtb_move_parse("f7f8")};
    xqtb_root_options bad = {.history_start = &start, .history_moves = illegal, .history_length = 2};
    assert_int_equal(xqtb_probe_root_ex(h, &pos, &bad, mv), XQTB_ERR_INVALID);
    bad.history_moves = NULL;
    assert_int_equal(xqtb_probe_root_ex(h, &pos, &bad, mv), XQTB_ERR_INVALID);
    bad.history_length = -1;
    assert_int_equal(xqtb_probe_root_ex(h, &pos, &bad, mv), XQTB_ERR_INVALID);
    xqtb_root_options policy = {.loss_policy = (xqtb_loss_policy)2};
    assert_int_equal(xqtb_probe_root_ex(h, &pos, &policy, mv), XQTB_ERR_INVALID);
    policy.loss_policy = XQTB_LOSE_AVOID_RULING;
    policy.rule_counter = -1;
    assert_int_equal(xqtb_probe_root_ex(h, &pos, &policy, mv), XQTB_ERR_INVALID);
    assert_int_equal(xqtb_probe_root_ex(h, &pos, NULL, mv), XQTB_ERR_INVALID);
    xqtb_close(h);
}

/* KRKN generated under the full rules into a directory of its own, dir
 * (512 bytes), and loaded with its subtables. */
static tb_table *krkn_full(const char *tag, char *dir, tb_set **set)
{
    char err[XQ_ERR_MAX];
    snprintf(dir, 512, "%s/%s", test_tmpdir(), tag);
    xq_material m;
    assert_int_equal(xq_material_parse("KRKN", &m, err), 0);
    tb_gen_options opt = {.dir = dir, .threads = 2, .quiet = 1, .rules = XQ_RULES_FULL};
    if (tb_generate(&m, &opt, err)) fail_msg("%s", err);
    *set = tb_set_new(dir);
    tb_table *t = tb_set_get(*set, &m, err);
    if (!t) fail_msg("%s", err);
    return t;
}

/* What the WDL writer stores (docs/FORMAT.md, "Captures in WDL files"):
 * never a value better than the position's, and a worse one only where a
 * capture reaches the position's value; and it does lower some, which is
 * what makes the files small.  KRKN under the full rules, so that ruled
 * results are among the values and the captures. */
static void test_wdl_capture_fill(void **state)
{
    (void)state;
    char dir[512];
    tb_set *set;
    tb_table *t = krkn_full("wdl-fill", dir, &set);
    enum { BLOCK = 1 << 14 };
    uint64_t blocks = (t->ix.size + BLOCK - 1) / BLOCK, lowered = 0, legal = 0;
    uint8_t *sym = calloc(blocks, xqf_block_bytes(0, BLOCK));
    assert_non_null(sym);
    for (int s = 0; s < 2; s++) {
        assert_int_equal(tb_symbol_stream(t, XQF_KIND_WDL, s, BLOCK, sym), 0);
        for (uint64_t i = 0; i < t->ix.size; i++) {
            if (cell_get(t->cells[s], t->width, i) == CELL_ILLEGAL) continue;
            legal++;
            xq_board b;
            xq_index_decode(&t->ix, i, &b);
            b.side = (uint8_t)s;
            int want = tb_value_of(t, &b).wdl + 1, got = sym[i / 4] >> 2 * (i % 4) & 3;
            assert_true(got <= want);
            if (got == want) continue;
            lowered++;
            xq_move list[XQ_MAX_MOVES];
            int n = xq_gen_captures(&b, list), best = -1;
            for (int k = 0; k < n; k++) {
                xq_undo u;
                xq_make_move(&b, list[k], &u);
                int v = 1 - tb_value_of(t->sub[colour_of(u.captured)][kind_of(u.captured)], &b).wdl;
                xq_unmake_move(&b, list[k], &u);
                if (v > best) best = v;
            }
            assert_int_equal(best, want);
        }
    }
    assert_true(lowered * 50 > legal); /* over 2% here; 20-30% of larger tables */
    free(sym);
    tb_set_free(set);
}

/* Copies the files of the tables named in sub (NULL-ended) from the test
 * directory into dir: the subtables a capture search reads. */
static void copy_subtables(const char *const *sub, const char *dir)
{
    for (int i = 0; sub[i]; i++)
        for (int kind = 0; kind < XQF_COMPRESSED_KINDS; kind++) {
            char from[700], to[700];
            xqf_path(test_tmpdir(), sub[i], kind, from, sizeof from);
            xqf_path(dir, sub[i], kind, to, sizeof to);
            if (access(from, F_OK) == 0) testgen_copy_file(from, to);
        }
}

/* Every legal entry of t, probed through the library from the files in
 * dir, gives the generator's WDL; by_block: through a handle that reads
 * every file by block (whole_file_bytes 1), with a cache of a few blocks. */
static void expect_every_wdl(const char *dir, const tb_table *t, int by_block)
{
    int st;
    xqtb_options o = {.whole_file_bytes = by_block ? 1 : 0, .cache_bytes = by_block ? 1 << 16 : 0};
    xqtb_handle *h = xqtb_open(dir, &o, &st);
    assert_non_null(h);
    uint64_t checked = 0;
    for (uint64_t i = 0; i < t->ix.size; i++)
        for (int s = 0; s < 2; s++) {
            unsigned code = cell_get(t->cells[s], t->width, i);
            if (code == CELL_ILLEGAL) continue;
            xq_board b;
            xq_index_decode(&t->ix, i, &b);
            b.side = (uint8_t)s;
            xqtb_position p;
            to_position(&b, &p);
            int wdl = 99;
            assert_int_equal(xqtb_probe_wdl(h, &p, &wdl), XQTB_OK);
            assert_int_equal(wdl, tb_value_of_cell(code).wdl);
            checked++;
        }
    assert_true(checked > 0);
    xqtb_close(h);
}

/* The block size of a file of `kind`, and its blocks' mean compressed
 * bytes: both sides', or in a file with a searched side the stored side's. */
static uint32_t blocks_of(const char *path, int kind, const char *name, uint64_t entries, uint64_t *mean)
{
    char *file, why[XQF_WHY_MAX];
    long n;
    testgen_read_file(path, &file, &n);
    xqf_info f;
    if (xqf_parse_header(&f, (const uint8_t *)file, (uint64_t)n, kind, name, entries, why) != XQF_OK ||
        xqf_check_meta(&f, (const uint8_t *)file, why) != XQF_OK)
        fail_msg("%s: %s", path, why);
    uint64_t first = 0, last = 2 * (uint64_t)f.blocks; /* blocks [first, last) */
    if (f.searched >= 0) {
        first = (uint64_t)(f.searched ^ 1) * f.blocks;
        last = first + f.blocks;
    }
    *mean = (xqf_block_end(&f, last - 1) - xqf_block_begin(&f, first)) / (last - first);
    free(file);
    return f.block_entries;
}

/* A WDL file whose blocks of 16384 entries would be dear to decode (KNKP:
 * about 466 bytes a block) is written in smaller blocks, the largest that
 * bring its blocks to TB_WDL_BLOCK_BYTES or the smallest size tried; the
 * same bytes for 1 and 2 threads, and every entry reads back right. */
static void test_wdl_blocks_sized_per_file(void **state)
{
    (void)state;
    tb_set *set;
    tb_table *t = testgen_load("KNKP", &set);
    char dir[3][600], path[3][2048], err[XQ_ERR_MAX];
    uint64_t mean[3];
    uint32_t b[3];
    for (int k = 0; k < 3; k++) {
        snprintf(dir[k], sizeof dir[k], "%s/sized-%d", test_tmpdir(), k);
        assert_int_equal(mkdir(dir[k], 0755), 0);
        /* 0, 1: the writer's choice on 1 and 2 threads; 2: twice that
         * size (blocked: sized as a table too large to be one block a side) */
        tb_compress_options o = {
            .wdl_block_entries = k < 2 ? 0 : 2 * b[0], .threads = k == 0 ? 1 : 2, .wdl_blocked = 1};
        if (tb_compress_write(t, dir[k], &o, NULL, err)) fail_msg("%s", err);
        snprintf(path[k], sizeof path[k], "%s/KNKP.xqw", dir[k]);
        b[k] = blocks_of(path[k], XQF_KIND_WDL, "KNKP", t->ix.size, &mean[k]);
    }
    assert_true(b[0] < TB_WDL_BLOCK_ENTRIES && b[0] >= TB_WDL_BLOCK_ENTRIES_MIN);
    assert_true(b[0] == TB_WDL_BLOCK_ENTRIES_MIN || mean[0] <= TB_WDL_BLOCK_BYTES + TB_WDL_BLOCK_BYTES / 4);
    assert_true(mean[2] > TB_WDL_BLOCK_BYTES); /* the next size up was too dear */
    long n[2];
    char *file[2];
    for (int k = 0; k < 2; k++) testgen_read_file(path[k], &file[k], &n[k]);
    assert_int_equal(n[0], n[1]);
    assert_memory_equal(file[0], file[1], (size_t)n[0]);
    free(file[0]);
    free(file[1]);
    static const char *const sub[] = {"KNK", "KPK", "KK", NULL};
    copy_subtables(sub, dir[0]);
    expect_every_wdl(dir[0], t, 0);
    tb_set_free(set);
}

static int assert_probe_is_generators(xqtb_handle *h, const tb_table *t, const xq_board *b);

/* DTM and DTC files whose stored side's blocks of 4096 entries would be
 * dear to decode (KNKA's DTM: about 700 bytes a block) are written in
 * smaller blocks, the largest that bring the stored side's blocks to
 * TB_DTM_BLOCK_BYTES or the smallest size tried; the same bytes for 1 and
 * 2 threads, and every entry reads back right, DTM, rulings and DTC. */
static void test_dtm_blocks_sized_per_file(void **state)
{
    (void)state;
    tb_set *set;
    tb_table *t = testgen_load_limit("KNKA", XQ_RULES_FULL, 120, &set);
    char dir[3][600], path[3][2][2048], err[XQ_ERR_MAX];
    uint64_t mean[3][2];
    uint32_t b[3][2];
    for (int k = 0; k < 3; k++) {
        snprintf(dir[k], sizeof dir[k], "%s/dtm-sized-%d", test_tmpdir(), k);
        assert_int_equal(mkdir(dir[k], 0755), 0);
        /* 0, 1: the writer's choice on 2 threads (with the subtables) and
         * 1; 2: twice the DTM file's size */
        if (k == 0) {
            testgen_rewrite_compressed(t, dir[k], TB_SEARCH_AUTO);
        } else {
            tb_compress_options o = {.dtm_block_entries = k == 1 ? 0 : 2 * b[0][0], .threads = k == 1 ? 1 : 2};
            if (tb_compress_write(t, dir[k], &o, NULL, err)) fail_msg("%s", err);
        }
        for (int kind = XQF_KIND_DTM; kind <= XQF_KIND_DTC; kind++) {
            xqf_path(dir[k], "KNKA", kind, path[k][kind - 1], sizeof path[k][kind - 1]);
            b[k][kind - 1] = blocks_of(path[k][kind - 1], kind, "KNKA", t->ix.size, &mean[k][kind - 1]);
        }
    }
    print_message("KNKA: DTM blocks of %u entries (%llu bytes a stored block; %llu at %u), DTC of %u (%llu)\n", b[0][0],
                  (unsigned long long)mean[0][0], (unsigned long long)mean[2][0], b[2][0], b[0][1],
                  (unsigned long long)mean[0][1]);
    assert_true(b[0][0] < TB_DTM_BLOCK_ENTRIES && b[0][0] >= TB_DTM_BLOCK_ENTRIES_MIN);
    assert_true(b[0][0] == TB_DTM_BLOCK_ENTRIES_MIN || mean[0][0] <= TB_DTM_BLOCK_BYTES);
    assert_true(mean[2][0] > TB_DTM_BLOCK_BYTES); /* the next size up was too dear */
    for (int kind = 0; kind < 2; kind++) {
        assert_true(b[0][kind] == TB_DTM_BLOCK_ENTRIES || mean[0][kind] <= TB_DTM_BLOCK_BYTES ||
                    b[0][kind] == TB_DTM_BLOCK_ENTRIES_MIN);
        testgen_assert_same_file(path[0][kind], path[1][kind]);
    }
    int st;
    xqtb_handle *h = xqtb_open(dir[0], NULL, &st);
    assert_non_null(h);
    uint64_t probed = 0;
    for (uint64_t i = 0; i < t->ix.size; i++)
        for (int s = 0; s < 2; s++) {
            if (cell_get(t->cells[s], t->width, i) == CELL_ILLEGAL) continue;
            xq_board bd;
            xq_index_decode(&t->ix, i, &bd);
            bd.side = (uint8_t)s;
            assert_probe_is_generators(h, t, &bd);
            xqtb_position p;
            xqtb_result r;
            to_position(&bd, &p);
            assert_int_equal(xqtb_probe(h, &p, &r), XQTB_OK);
            unsigned d = tb_dtc(t, s, i);
            assert_int_equal(r.dtc, d == DTC_NONE ? -1 : dtc_plies(d));
            probed++;
        }
    assert_true(probed > 0);
    xqtb_close(h);
    tb_set_free(set);
}

/* A small table's WDL file (KNKP, 217,800 entries a side) is one block a
 * side of the whole side's symbols (docs/FORMAT.md, "Small WDL files"),
 * the same bytes for 1 and 2 threads, smaller than in the blocks a larger
 * file would get, and every legal entry reads back right both from the
 * handle that holds it decoded (the default) and from one that reads it
 * by block through the cache. */
static void test_wdl_small_file_one_block(void **state)
{
    (void)state;
    tb_set *set;
    tb_table *t = testgen_load("KNKP", &set);
    assert_true(xqf_wdl_resident(t->ix.size));
    char dir[3][600], path[3][2048], err[XQ_ERR_MAX];
    uint64_t mean[3];
    uint32_t b[3];
    long n[3];
    char *file[3];
    for (int k = 0; k < 3; k++) {
        snprintf(dir[k], sizeof dir[k], "%s/small-%d", test_tmpdir(), k);
        assert_int_equal(mkdir(dir[k], 0755), 0);
        tb_compress_options o = {.threads = k == 0 ? 1 : 2, .wdl_blocked = k == 2};
        if (tb_compress_write(t, dir[k], &o, NULL, err)) fail_msg("%s", err);
        snprintf(path[k], sizeof path[k], "%s/KNKP.xqw", dir[k]);
        b[k] = blocks_of(path[k], XQF_KIND_WDL, "KNKP", t->ix.size, &mean[k]);
        testgen_read_file(path[k], &file[k], &n[k]);
    }
    assert_int_equal(b[0], (t->ix.size + 3) / 4 * 4);
    assert_int_equal(n[0], n[1]);
    assert_memory_equal(file[0], file[1], (size_t)n[0]);
    assert_true(b[2] < b[0]);
    assert_true(n[0] < n[2]);
    static const char *const sub[] = {"KNK", "KPK", "KK", NULL};
    copy_subtables(sub, dir[0]);
    expect_every_wdl(dir[0], t, 0);
    expect_every_wdl(dir[0], t, 1);
    for (int k = 0; k < 3; k++) free(file[k]);
    tb_set_free(set);
}

/* A WDL file of many blocks (KRKN in 512-entry blocks, 683 a side): the
 * writer decides on its dictionary from a sample of the blocks, then
 * compresses the whole file once.  The file has a dictionary, comes out the
 * same on one thread and two, and every legal entry reads back the
 * generator's value. */
static void test_wdl_dictionary_by_sample(void **state)
{
    (void)state;
    tb_set *set;
    tb_table *t = testgen_load("KRKN", &set);
    char dir[2][600], path[2][1300], err[XQ_ERR_MAX];
    for (int k = 0; k < 2; k++) {
        snprintf(dir[k], sizeof dir[k], "%s/sampled-%d", test_tmpdir(), k + 1);
        assert_int_equal(mkdir(dir[k], 0755), 0);
        tb_compress_options o = {.wdl_block_entries = 512, .threads = k + 1};
        if (tb_compress_write(t, dir[k], &o, NULL, err)) fail_msg("%s", err);
        snprintf(path[k], sizeof path[k], "%s/KRKN.xqw", dir[k]);
    }
    long n[2];
    char *file[2];
    for (int k = 0; k < 2; k++) testgen_read_file(path[k], &file[k], &n[k]);
    assert_int_equal(n[0], n[1]);
    assert_memory_equal(file[0], file[1], (size_t)n[0]);
    const uint8_t *header = (const uint8_t *)file[0];
    assert_true(xqf_get32(header + XQF_OFF_BLOCKS) > 512); /* more than the sample of 256 a side */
    assert_true(xqf_get32(header + XQF_OFF_DICT_BYTES) > 0);
    static const char *const sub[] = {"KRK", "KNK", "KK", NULL};
    copy_subtables(sub, dir[0]);
    expect_every_wdl(dir[0], t, 0);
    free(file[0]);
    free(file[1]);
    tb_set_free(set);
}

/* A table built under rules full, through the library: every legal entry
 * in both colourings gives the generator's value, ruled results with their
 * ruling and order; root moves of ruled wins lead to ruled losses no
 * higher in order. */

/* KRKN built under `rules`: a handle that requires them refuses the files
 * of full_dir and finds position p won by `by_rule`, order 1. */
static void expect_ruled_under(const char *full_dir, const xqtb_position *p, int rules, int by_rule)
{
    xqtb_options o = {.require_rules = 1 + rules};
    int st, wdl;
    xqtb_handle *h = xqtb_open(full_dir, &o, &st);
    assert_non_null(h);
    assert_int_equal(xqtb_probe_wdl(h, p, &wdl), XQTB_ERR_MISMATCH);
    xqtb_close(h);
    tb_set *set;
    (void)testgen_load_rules("KRKN", rules, &set);
    char dir[512];
    snprintf(dir, sizeof dir, "%s/rules-%d", test_tmpdir(), rules);
    h = xqtb_open(dir, &o, &st);
    assert_non_null(h);
    assert_int_equal(xqtb_rules(h), rules);
    xqtb_result res;
    assert_int_equal(xqtb_probe(h, p, &res), XQTB_OK);
    assert_int_equal(res.wdl, XQTB_WIN);
    assert_int_equal(res.by_rule, by_rule);
    assert_int_equal(res.order, 1);
    xqtb_close(h);
    tb_set_free(set);
}
static void test_ruled_results(void **state)
{
    (void)state;
    char dir[512];
    tb_set *set;
    tb_table *t = krkn_full("ruled", dir, &set);
    int st;
    xqtb_handle *h = xqtb_open(dir, NULL, &st);
    assert_non_null(h);
    /* settled when the handle opened, before any probe */
    assert_int_equal(xqtb_rules(h), XQTB_RULES_FULL);
    assert_int_equal(xqtb_limit(h), 0);
    uint64_t ruled = 0, both_losses = 0, stride = test_sanitized() ? 5 : 1;
    for (uint64_t i = 0; i < t->ix.size; i++)
        for (int s = 0; s < 2; s++) {
            if (cell_get(t->cells[s], t->width, i) == CELL_ILLEGAL) continue;
            /* every position; under the sanitizers every ruled one and a
             * fifth of the others */
            if (tb_ruled(t, s, i) == RULED_NONE && (i + (uint64_t)s) % stride) continue;
            xq_board b, f;
            xq_index_decode(&t->ix, i, &b);
            b.side = (uint8_t)s;
            xq_board_flip(&b, &f);
            tb_value want = tb_value_of(t, &b);
            const xq_board *boards[2] = {&b, &f};
            for (int k = 0; k < 2; k++) {
                xqtb_position p;
                to_position(boards[k], &p);
                xqtb_result r;
                int wdl, dtm;
                assert_int_equal(xqtb_probe(h, &p, &r), XQTB_OK);
                assert_int_equal(xqtb_probe_dtm(h, &p, &wdl, &dtm), XQTB_OK);
                assert_int_equal(r.wdl, want.wdl);
                assert_int_equal(wdl, want.wdl);
                assert_int_equal(r.by_rule, want.by_rule);
                assert_int_equal(xqtb_probe_wdl(h, &p, &wdl), XQTB_OK);
                assert_int_equal(wdl, want.wdl);
                if (want.by_rule) {
                    assert_int_equal(r.order, want.dtm);
                    assert_int_equal(r.dtm, XQTB_NO_DISTANCE);
                    assert_int_equal(dtm, XQTB_NO_DISTANCE);
                } else {
                    assert_int_equal(r.dtm, want.wdl ? want.dtm : XQTB_NO_DISTANCE);
                    assert_int_equal(r.order, 0);
                }
            }
            if (!want.by_rule || ruled++ % 16) continue;
            xqtb_position p;
            xqtb_root_move mv[XQTB_MAX_MOVES];
            to_position(&b, &p);
            int n = xqtb_probe_root(h, &p, mv);
            assert_true(n > 0);
            if (want.wdl == 1) {
                assert_int_equal(mv[0].wdl, XQTB_WIN);
                if (mv[0].by_rule) assert_true(mv[0].order <= want.dtm);
            }
            /* the line of a ruled result ends in a repetition (or mate) */
            uint16_t pv[XQTB_PV_MAX];
            xqtb_pv_end end;
            assert_true(xqtb_probe_pv(h, &p, 0, pv, XQTB_PV_MAX, &end) > 0);
            assert_true(end == XQTB_PV_END_REPETITION || end == XQTB_PV_END_MATE);
            /* a defender resists with an ordinary loss before a move that
             * would make him lose by his own perpetual check or chase */
            for (int j = 1; j < n; j++) {
                assert_true(mv[j].rank <= mv[j - 1].rank);
                if (mv[j].wdl < 0 && !mv[j].by_rule) assert_false(mv[j - 1].wdl < 0 && mv[j - 1].by_rule);
            }
            /* ... unless he asks to resist longest: then the moves into his
             * own ruling come first among the losses, the rest unchanged */
            xqtb_root_options resist = {.loss_policy = XQTB_LOSE_RESIST_LONGEST};
            xqtb_root_move mv2[XQTB_MAX_MOVES];
            assert_int_equal(xqtb_probe_root_ex(h, &p, &resist, mv2), n);
            int ruled_losses = 0, plain_losses = 0;
            for (int j = 0; j < n; j++) {
                if (j) assert_true(mv2[j].rank <= mv2[j - 1].rank);
                if (mv2[j].wdl < 0 && mv2[j].by_rule) {
                    ruled_losses++;
                    if (j) assert_false(mv2[j - 1].wdl < 0 && !mv2[j - 1].by_rule);
                }
                plain_losses += mv2[j].wdl < 0 && !mv2[j].by_rule;
                if (mv2[j].wdl >= 0) assert_int_equal(mv2[j].move, mv[j].move);
            }
            both_losses += ruled_losses && plain_losses;
        }
    assert_true(ruled > 0);
    assert_true(both_losses > 0); /* the policies were told apart */
    assert_int_equal(xqtb_rules(h), XQTB_RULES_FULL);
    xqtb_close(h);

    /* A handle that requires another rule set refuses these files. */
    xqtb_options o = {.require_rules = 1 + XQTB_RULES_NONE};
    h = xqtb_open(dir, &o, &st);
    assert_non_null(h);
    xqtb_position p;
    assert_int_equal(xqtb_position_from_fen("9/9/4k4/9/9/9/9/9/1n7/R2K5 w - - 0 1", &p, NULL), XQTB_OK);
    int wdl;
    assert_int_equal(xqtb_probe_wdl(h, &p, &wdl), XQTB_ERR_MISMATCH);
    xqtb_close(h);
    o.require_rules = 99;
    assert_null(xqtb_open(dir, &o, &st));
    assert_int_equal(st, XQTB_ERR_INVALID);
    o.require_rules = 1 + XQ_JUDGE_NB; /* one past the last rule set */
    assert_null(xqtb_open(dir, &o, &st));
    assert_int_equal(st, XQTB_ERR_INVALID);
    /* negative, down to the least int (1 less would overflow) */
    static const int negative[] = {-1, -2, INT_MIN + 1, INT_MIN};
    for (size_t i = 0; i < sizeof negative / sizeof *negative; i++) {
        o.require_rules = negative[i];
        st = XQTB_OK;
        assert_null(xqtb_open(dir, &o, &st));
        assert_int_equal(st, XQTB_ERR_INVALID);
    }

    /* KRKN under asian: the same result and ruling as under full (only
     * perpetual checks decide anything there); under cxa, by the one
     * ruling there.  Each through a handle that requires the rule set and
     * refuses the full files above. */
    expect_ruled_under(dir, &p, XQ_RULES_ASIAN, XQTB_BY_PERPETUAL_CHECK);
    expect_ruled_under(dir, &p, XQ_RULES_CXA, XQTB_BY_PERPETUAL_ATTACK);

    /* Two directories under different rule sets: the first table opened
     * fixes the handle's set, a table of the other is refused. */
    char none_dir[512], both[1100], err[XQ_ERR_MAX];
    snprintf(none_dir, sizeof none_dir, "%s/none", test_tmpdir());
    xq_material m;
    assert_int_equal(xq_material_parse("KCK", &m, err), 0);
    tb_gen_options o2 = {.dir = none_dir, .threads = 2, .quiet = 1, .rules = XQ_RULES_NONE};
    if (tb_generate(&m, &o2, err)) fail_msg("%s", err);
    snprintf(both, sizeof both, "%s:%s", dir, none_dir);
    h = xqtb_open(both, NULL, &st);
    assert_non_null(h);
    assert_int_equal(xqtb_probe_wdl(h, &p, &wdl), XQTB_OK); /* KRKN: full */
    assert_int_equal(xqtb_position_from_fen("4k4/9/9/9/9/9/9/9/4C4/3K5 w - - 0 1", &p, NULL), XQTB_OK);
    assert_int_equal(xqtb_probe_wdl(h, &p, &wdl), XQTB_ERR_MISMATCH); /* KCK: none */
    xqtb_close(h);
    tb_set_free(set);
}

/* KRKNAA under rules full, black to move searched: black's results of the
 * rulings are partly found by the search (gen/searched.c) and partly
 * stored (orders the search does not give); every one of them, and every
 * 7th other legal entry, answers exactly through the library. */
/* xqtb_probe of board b through h must give the generator's value of b in
 * t: result, ruling, order and DTM.  Returns whether b's result is ruled. */
static int assert_probe_is_generators(xqtb_handle *h, const tb_table *t, const xq_board *b)
{
    tb_value want = tb_value_of(t, b);
    xqtb_position p;
    to_position(b, &p);
    xqtb_result res;
    assert_int_equal(xqtb_probe(h, &p, &res), XQTB_OK);
    int dtm = want.by_rule || !want.wdl ? XQTB_NO_DISTANCE : want.dtm, order = want.by_rule ? want.dtm : 0;
    if (res.wdl != want.wdl || (int)res.by_rule != want.by_rule || res.dtm != dtm || res.order != order) {
        char fen[XQ_FEN_MAX];
        xq_fen_write(b, fen);
        fail_msg("%s: probe %d/%d rule %d order %d, generator %d/%d rule %d order %d", fen, res.wdl, res.dtm,
                 res.by_rule, res.order, want.wdl, dtm, want.by_rule, order);
    }
    /* the DTC alone says what the whole probe does (no distance and 2 *
     * wdl where the tables have no move limit) */
    xqtb_wdl5 w5;
    int dtc;
    assert_int_equal(xqtb_probe_dtc(h, &p, 0, &w5, &dtc), XQTB_OK);
    assert_int_equal(w5, res.wdl5);
    assert_int_equal(dtc, res.dtc);
    if (xqtb_limit(h) == 0) assert_true(dtc == XQTB_NO_DISTANCE && (int)w5 == 2 * (int)res.wdl);
    return want.by_rule != 0;
}

/* Whether the DTM map of file p (len bytes) holds value v. */
static int map_holds(const uint8_t *p, long len, unsigned v)
{
    uint32_t m = xqf_get32(p + XQF_OFF_SYMBOLS);
    for (uint32_t k = 0; k < m && XQF_HEADER_SIZE + 2 * (long)k + 2 <= len; k++)
        if ((unsigned)(p[XQF_HEADER_SIZE + 2 * k] | p[XQF_HEADER_SIZE + 2 * k + 1] << 8) == v) return 1;
    return 0;
}

/* Zstandard frames in the search bounds of KRKN's DTM file p (len
 * bytes), or -1 if they do not add up to the bounds' bytes exactly. */
static int bounds_frames(const uint8_t *p, long len, uint64_t entries)
{
    xqf_info f;
    char why[XQF_WHY_MAX];
    if (xqf_parse_header(&f, p, (uint64_t)len, XQF_KIND_DTM, "KRKN", entries, why) != XQF_OK ||
        xqf_check_meta(&f, p, why) != XQF_OK)
        fail_msg("KRKN.xqd: %s", why);
    int frames = 0;
    for (uint64_t at = 0; at < f.bounds_bytes; frames++) {
        size_t n = ZSTD_findFrameCompressedSize(f.bounds + at, (size_t)(f.bounds_bytes - at));
        if (ZSTD_isError(n)) return -1;
        at += n;
    }
    return frames;
}

/* The search bounds (docs/FORMAT.md, "Search bounds") change which
 * successors a searched DTM probe reads, never its value: KRKN under rules
 * full, each side searched in turn, every legal position probed (both
 * sides to move, every 5th under the sanitizers) against the generator,
 * rulings and orders included.  The DTM file must carry the bounds, and one of the two
 * must mark searched wins by a ruling (XQF_SEARCH_RULED).  With black
 * searched the bounds are written in frames of 256 bytes, as a large
 * table's are in frames of 1 MiB: the same file on one thread and two. */
static void test_search_bounds_every_entry(void **state)
{
    (void)state;
    tb_set *set;
    tb_table *t = testgen_load_rules("KRKN", XQ_RULES_FULL, &set);
    char dir[512], path[600];
    snprintf(dir, sizeof dir, "%s/rules-%d", test_tmpdir(), XQ_RULES_FULL);
    uint64_t stride = test_sanitized() ? 5 : 1;
    int marked = 0; /* files whose searched wins by a ruling say so (XQF_SEARCH_RULED) */
    for (int searched = TB_SEARCH_RED; searched <= TB_SEARCH_BLACK; searched++) {
        testgen_rewrite_compressed(t, dir, searched);
        snprintf(path, sizeof path, "%s/KRKN.xqd", dir);
        char *file, *other = NULL;
        long len, other_len = 0;
        if (searched == TB_SEARCH_BLACK) /* small frames, on one thread, then two */
            for (int threads = 1; threads <= 2; threads++) {
                char err[XQ_ERR_MAX];
                tb_compress_options o = {.threads = threads, .searched = searched, .bounds_frame_bytes = 256};
                if (tb_compress_write(t, dir, &o, NULL, err)) fail_msg("%s", err);
                if (threads == 1) testgen_read_file(path, &other, &other_len);
            }
        testgen_read_file(path, &file, &len);
        assert_true(len > XQF_HEADER_SIZE && xqf_get32((uint8_t *)file + XQF_OFF_BOUNDS_BYTES) > 0);
        int frames = bounds_frames((uint8_t *)file, len, t->ix.size);
        print_message("KRKN, %s searched: search bounds in %d frames\n", searched == TB_SEARCH_RED ? "red" : "black",
                      frames);
        if (searched == TB_SEARCH_RED) assert_int_equal(frames, 1);
        if (other) {
            assert_true(frames > 10);
            assert_int_equal(other_len, len);
            assert_memory_equal(other, file, (size_t)len);
            free(other);
        }
        marked += map_holds((uint8_t *)file, len, XQF_SEARCH_RULED);
        free(file);
        int st;
        xqtb_handle *h = xqtb_open(dir, NULL, &st);
        assert_non_null(h);
        uint64_t probed = 0, ruled = 0;
        for (uint64_t i = 0; i < t->ix.size; i += stride)
            for (int s = 0; s < 2; s++) {
                if (cell_get(t->cells[s], t->width, i) == CELL_ILLEGAL) continue;
                xq_board b;
                xq_index_decode(&t->ix, i, &b);
                b.side = (uint8_t)s;
                ruled += (uint64_t)assert_probe_is_generators(h, t, &b);
                probed++;
            }
        assert_true(probed > 0 && ruled > 0);
        print_message("KRKN, %s searched: %llu positions probed, %llu of them ruled\n",
                      searched == TB_SEARCH_RED ? "red" : "black", (unsigned long long)probed,
                      (unsigned long long)ruled);
        xqtb_close(h);
    }
    print_message("KRKN: %d of 2 DTM files mark searched wins by a ruling\n", marked);
    assert_true(marked > 0);
    tb_set_free(set);
}

/* KRKN's DTM file with red searched, its XQF_SEARCH symbol forged into
 * XQF_SEARCH_RULED and the file re-signed: red's ordinary wins then claim
 * to be none.  Every check of the file passes (only a search can tell), so
 * the generator's loader, which searches every entry (gen/unpack.c),
 * refuses the table: `gen` and `verify` never build on such a file. */
/* A file of 4 GiB or more keeps u64 offsets (docs/FORMAT.md, "Offsets"),
 * which no test table is large enough to need: the header and block
 * tables of such a WDL file of KRKN, built here without its blocks (the
 * checks of the metadata read none), are accepted, and its blocks are
 * where the u64 offsets say.  The same tables under a size below 4 GiB
 * are refused. */
static void test_wide_offsets(void **state)
{
    (void)state;
    xq_material m;
    xq_index ix;
    char err[XQ_ERR_MAX], why[XQF_WHY_MAX];
    assert_int_equal(xq_material_parse("KRKN", &m, err), 0);
    assert_int_equal(xq_index_init(&ix, &m), 0);
    uint64_t entries = ix.size;
    xq_index_free(&ix);
    const uint32_t block_entries = 4;
    uint64_t blocks = (entries + block_entries - 1) / block_entries, n = 2 * blocks;
    uint64_t gap = ((uint64_t)1 << 32) / n + 1; /* every block this long: past 4 GiB in all */
    assert_true(gap <= xqf_max_compressed_bytes());
    /* laid out as the writer lays out its files (gen/compress.c) */
    unsigned width;
    uint64_t meta = xqf_meta_layout(XQF_HEADER_SIZE, n, n * gap, &width), size = meta + n * gap;
    assert_int_equal(width, 8);
    assert_int_equal(meta, XQF_HEADER_SIZE + xqf_block_tables_bytes(n, UINT64_MAX));
    uint8_t *f = calloc(1, (size_t)meta);
    uint64_t *stored = malloc(n * sizeof *stored);
    assert_non_null(f);
    assert_non_null(stored);
    for (uint64_t k = 0; k < n; k++) stored[k] = gap;
    memcpy(f, xqf_kind_magic(XQF_KIND_WDL), 8);
    xqf_put32(f + XQF_OFF_VERSION, XQF_VERSION);
    xqf_put32(f + XQF_OFF_HEADER_SIZE, XQF_HEADER_SIZE);
    memcpy(f + XQF_OFF_NAME, "KRKN", 4);
    xqf_put32(f + XQF_OFF_INDEX_LAYOUT, XQF_INDEX_LAYOUT);
    xqf_put64(f + XQF_OFF_ENTRIES, entries);
    xqf_put32(f + XQF_OFF_REPETITION, XQ_RULES_FULL);
    xqf_put32(f + XQF_OFF_MOVE_LIMIT, 120);
    xqf_put32(f + XQF_OFF_BLOCK_ENTRIES, block_entries);
    xqf_put32(f + XQF_OFF_BLOCKS, (uint32_t)blocks);
    xqf_put32(f + XQF_OFF_MAX_DTM, 25);
    xqf_put32(f + XQF_OFF_GEN_REVISION, xqf_gen_revision(XQ_RULES_FULL));
    xqf_put64(f + XQF_OFF_FILE_SIZE, size);
    xqf_put32(f + XQF_OFF_CODEC, XQF_CODEC_ZSTD);
    assert_int_equal(xqf_put_offsets(f + XQF_HEADER_SIZE, stored, n, meta, width), size);
    free(stored);
    xqf_put64(f + XQF_OFF_META_HASH, xqf_meta_hash(f, meta));
    xqf_info info;
    if (xqf_parse_header(&info, f, size, XQF_KIND_WDL, "KRKN", entries, why) != XQF_OK ||
        xqf_check_meta(&info, f, why) != XQF_OK)
        fail_msg("a file of %llu bytes with u64 offsets: %s", (unsigned long long)size, why);
    assert_int_equal(info.offset_bytes, 8);
    assert_int_equal(xqf_block_begin(&info, blocks), meta + blocks * gap);
    assert_int_equal(xqf_block_end(&info, n - 1), size);
    assert_int_equal(xqf_block_source(&info, blocks + 1), blocks + 1);
    /* under 4 GiB the offsets are read as u32: these do not fit */
    uint64_t small = size - ((uint64_t)1 << 32) + (1u << 20);
    xqf_put64(f + XQF_OFF_FILE_SIZE, small);
    xqf_put64(f + XQF_OFF_META_HASH, xqf_meta_hash(f, meta));
    assert_true(xqf_parse_header(&info, f, small, XQF_KIND_WDL, "KRKN", entries, why) != XQF_OK ||
                xqf_check_meta(&info, f, why) != XQF_OK);
    free(f);
}

/* The writer's choice of offset width (xqf_meta_layout): u32 while the
 * file it gives stays under 4 GiB, and u64 from the first byte over, the
 * wider tables counted in the size. */
static void test_offset_width_choice(void **state)
{
    (void)state;
    const uint64_t n = 1000, rest = XQF_HEADER_SIZE + 64, four_gib = (uint64_t)1 << 32;
    unsigned width;
    uint64_t narrow = rest + xqf_block_tables_bytes(n, 0), wide = rest + xqf_block_tables_bytes(n, UINT64_MAX);
    assert_int_equal(xqf_meta_layout(rest, n, 12345, &width), narrow);
    assert_int_equal(width, 4);
    /* the largest data whose file fits u32 offsets: its last offset is
     * 2^32 - 1 */
    uint64_t most = four_gib - 1 - narrow;
    assert_int_equal(xqf_meta_layout(rest, n, most, &width), narrow);
    assert_int_equal(width, 4);
    assert_int_equal(xqf_meta_layout(rest, n, most + 1, &width), wide);
    assert_int_equal(width, 8);
    /* offsets written at either width read back through a file's view */
    uint64_t stored[3] = {10, 0, 7};
    uint8_t p[32];
    assert_int_equal(xqf_put_offsets(p, stored, 3, 100, 4), 117);
    assert_int_equal(xqf_get32(p + 8), 110);
    assert_int_equal(xqf_get32(p + 12), 117);
    assert_int_equal(xqf_put_offsets(p, stored, 3, four_gib, 8), four_gib + 17);
    assert_int_equal(xqf_get64(p), four_gib);
    assert_int_equal(xqf_get64(p + 16), four_gib + 10);
}

static void test_forged_ruled_mark(void **state)
{
    (void)state;
    tb_set *set;
    tb_table *t = testgen_load_rules("KRKN", XQ_RULES_FULL, &set);
    uint64_t wins = 0;
    for (uint64_t i = 0; i < t->ix.size; i++) wins += cell_is_win(cell_get(t->cells[0], t->width, i));
    assert_true(wins > 0); /* red has ordinary wins, which must say XQF_SEARCH */
    char dir[512], path[600];
    snprintf(dir, sizeof dir, "%s/forged-mark", test_tmpdir());
    assert_int_equal(mkdir(dir, 0755), 0);
    testgen_rewrite_compressed(t, dir, TB_SEARCH_RED);
    tb_set_free(set);
    snprintf(path, sizeof path, "%s/KRKN.xqd", dir);
    char *buf;
    long len;
    testgen_read_file(path, &buf, &len);
    uint8_t *f = (uint8_t *)buf;
    uint32_t m = xqf_get32(f + XQF_OFF_SYMBOLS), forged = 0;
    for (uint32_t k = 0; k < m; k++)
        if ((unsigned)(f[XQF_HEADER_SIZE + 2 * k] | f[XQF_HEADER_SIZE + 2 * k + 1] << 8) == XQF_SEARCH) {
            f[XQF_HEADER_SIZE + 2 * k] = XQF_SEARCH_RULED & 0xFF;
            forged++;
        }
    assert_int_equal(forged, 1);
    uint64_t offsets = XQF_HEADER_SIZE + xqf_pad8((uint64_t)m * 2) + xqf_pad8(xqf_get32(f + XQF_OFF_DICT_BYTES));
    uint64_t first_block = xqf_offset_bytes((uint64_t)len) == 4 ? xqf_get32(f + offsets) : xqf_get64(f + offsets);
    xqf_put64(f + XQF_OFF_META_HASH, xqf_meta_hash(f, first_block));
    FILE *o = fopen(path, "wb");
    assert_non_null(o);
    assert_int_equal(fwrite(f, 1, (size_t)len, o), (size_t)len);
    assert_int_equal(fclose(o), 0);
    free(buf);
    /* the library opens it: the file's own checks cannot tell */
    int st;
    xqtb_handle *h = xqtb_open(dir, NULL, &st);
    assert_non_null(h);
    xqtb_close(h);
    char err[XQ_ERR_MAX] = "";
    xq_material mat;
    assert_int_equal(xq_material_parse("KRKN", &mat, err), 0);
    tb_set *forged_set = tb_set_new(dir);
    assert_non_null(forged_set);
    assert_null(tb_set_get(forged_set, &mat, err));
    print_message("forged mark: %s\n", err);
    assert_non_null(strstr(err, "successors give no value"));
    tb_set_free(forged_set);
}

static void test_ruled_results_searched(void **state)
{
    (void)state;
    tb_set *set;
    tb_table *t = testgen_load_rules("KRKNAA", XQ_RULES_FULL, &set);
    char dir[512];
    snprintf(dir, sizeof dir, "%s/rules-%d", test_tmpdir(), XQ_RULES_FULL);
    testgen_rewrite_compressed(t, dir, TB_SEARCH_BLACK);
    int st;
    xqtb_handle *h = xqtb_open(dir, NULL, &st);
    assert_non_null(h);
    uint64_t found = 0, stored = 0, others = 0, sample = test_sanitized() ? 29 : 7;
    uint64_t ruled_sample = test_sanitized() ? 3 : 1;
    for (uint64_t i = 0; i < t->ix.size; i++)
        for (int s = 0; s < 2; s++) {
            unsigned r = tb_ruled(t, s, i);
            /* every ruled position, one in 7 of the others (under the
             * sanitizers one ruled position in 3, one in 29 of the others) */
            if (cell_get(t->cells[s], t->width, i) == CELL_ILLEGAL ||
                (i + (uint64_t)s) % (r == RULED_NONE ? sample : ruled_sample))
                continue;
            xq_board b;
            xq_index_decode(&t->ix, i, &b);
            b.side = (uint8_t)s;
            if (r != RULED_NONE && s == BLACK) {
                if (tb_ruled_by_search(t, &b) == r)
                    found++;
                else
                    stored++;
            } else {
                others++;
            }
            assert_probe_is_generators(h, t, &b);
        }
    print_message("KRKNAA, black searched: ruled results of black %llu found by the search, %llu stored; %llu "
                  "other entries\n",
                  (unsigned long long)found, (unsigned long long)stored, (unsigned long long)others);
    assert_true(found > 0 && stored > 0);
    xqtb_close(h);
    tb_set_free(set);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_krk),
        cmocka_unit_test(test_kcak),
        cmocka_unit_test(test_krkn),
        cmocka_unit_test(test_knkn),
        cmocka_unit_test(test_handle_reports),
        cmocka_unit_test(test_search_helpers),
        cmocka_unit_test(test_root_wdl_only),
        cmocka_unit_test(test_root_history),
        cmocka_unit_test(test_wdl_capture_fill),
        cmocka_unit_test(test_wdl_dictionary_by_sample),
        cmocka_unit_test(test_wdl_blocks_sized_per_file),
        cmocka_unit_test(test_wdl_small_file_one_block),
        cmocka_unit_test(test_dtm_blocks_sized_per_file),
        cmocka_unit_test(test_ruled_results),
        cmocka_unit_test(test_ruled_results_searched),
        cmocka_unit_test(test_search_bounds_every_entry),
        cmocka_unit_test(test_forged_ruled_mark),
        cmocka_unit_test(test_wide_offsets),
        cmocka_unit_test(test_offset_width_choice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
