/*
 * test_ref.c - sanity of the reference solver (tests/ref/ref_solver.h) itself,
 * before anything is checked against it: its square lists, two bare kings,
 * the known result of rook against bare king, hand-computed positions, and
 * the consistency of every value with the values of its successors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "board.h"
#include "fen.h"
#include "geometry.h"
#include "material.h"
#include "movegen.h"
#include "ref_solver.h"

#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            print_error("check failed: %s\n", #cond);                                                                  \
            fail_msg(__VA_ARGS__);                                                                                     \
        }                                                                                                              \
    } while (0)

static ref_db *solve(const char *name)
{
    xq_material m;
    char err[XQ_ERR_MAX];
    if (xq_material_parse(name, &m, err)) fail_msg("%s: %s", name, err);
    ref_db *db = ref_solve(&m);
    if (!db) fail_msg("ref_solve(%s) failed", name);
    return db;
}

static void parse(const char *fen, xq_board *b)
{
    char err[XQ_ERR_MAX];
    if (xq_fen_parse(fen, b, err)) fail_msg("%s: %s", fen, err);
}

static ref_value lookup_fen(const ref_db *db, const char *fen)
{
    xq_board b;
    parse(fen, &b);
    return ref_lookup(db, &b);
}

/* ---- Square lists ------------------------------------------------------- */
static void test_allowed_squares(void **state)
{
    (void)state;
    static const int expect[KIND_NB] = {0, 9, 5, 7, 90, 90, 90, 55};
    for (int c = 0; c < 2; c++)
        for (int k = KING; k < KIND_NB; k++) {
            uint8_t out[XQ_SQUARES];
            int n = ref_allowed_squares(c, k, out);
            assert_int_equal(n, expect[k]);
            bool listed[XQ_SQUARES] = {false};
            for (int i = 0; i < n; i++) {
                if (i > 0) assert_true(out[i] > out[i - 1]); /* ascending, no repeats */
                assert_true(out[i] < XQ_SQUARES);
                listed[out[i]] = true;
            }
            for (int s = 0; s < XQ_SQUARES; s++)
                CHECK(listed[s] == xq_square_allowed(c, k, s), "colour %d kind %d square %d: ref %d core %d", c, k, s,
                      listed[s], xq_square_allowed(c, k, s));
            /* The lists of the two colours are each other's rank flips. */
            uint8_t other[XQ_SQUARES];
            assert_int_equal(ref_allowed_squares(c ^ 1, k, other), n);
            for (int i = 0; i < n; i++) assert_true(xq_square_allowed(c ^ 1, k, flip_square(out[i])));
        }
}

/* ---- Successor consistency ----------------------------------------------
 * Every value must follow from the values of the successors: no legal move
 * is a loss in 0; a move to a lost position makes a win in 1 + the shortest
 * such loss; else a move to a draw makes a draw; else (every move reaches a
 * won position) a loss in 1 + the longest such win.  Captures are looked up
 * in the subtable of the smaller material.  Also checks the id <-> board
 * maps and the parity of DTM. */
static void check_consistent(const ref_db *db, const char *name)
{
    const xq_material *mat = ref_material(db);
    int n = ref_count(db);
    assert_true(n > 0);
    for (int i = 0; i < n; i++) {
        xq_board b;
        ref_board(db, i, &b);
        CHECK(ref_find(db, &b) == i, "%s: position %d not found by its board", name, i);
        char err[XQ_ERR_MAX];
        CHECK(xq_board_validate(&b, err) == 0, "%s: position %d illegal: %s", name, i, err);
        xq_material bm;
        xq_material_of(&b, &bm);
        CHECK(xq_material_equal(&bm, mat), "%s: position %d has another material", name, i);
        ref_value v = ref_value_at(db, i);
        CHECK(v.wdl >= -1 && v.wdl <= 1 && v.dtm >= 0, "%s: position %d value %d/%d", name, i, v.wdl, v.dtm);
        if (v.wdl == 1) CHECK(v.dtm % 2 == 1, "%s: position %d won in an even %d plies", name, i, v.dtm);
        if (v.wdl == -1) CHECK(v.dtm % 2 == 0, "%s: position %d lost in an odd %d plies", name, i, v.dtm);
        if (v.wdl == 0) CHECK(v.dtm == 0, "%s: draw %d with dtm %d", name, i, v.dtm);

        xq_move list[XQ_MAX_MOVES];
        int nm = xq_gen_legal(&b, list);
        int min_loss = -1, max_win = -1;
        bool draw = false;
        for (int j = 0; j < nm; j++) {
            xq_piece cap = b.sq[move_to(list[j])];
            xq_undo u;
            xq_make_move(&b, list[j], &u);
            const ref_db *s = db;
            if (cap != EMPTY) {
                xq_material sm = *mat;
                sm.count[colour_of(cap)][kind_of(cap)]--;
                s = ref_subtable(db, &sm);
                CHECK(s != NULL, "%s: no subtable for a capture", name);
            }
            ref_value w = ref_lookup(s, &b);
            if (w.dtm < 0) {
                char fen[XQ_FEN_MAX];
                xq_fen_write(&b, fen);
                fail_msg("%s: successor %s of position %d not in the solver's db", name, fen, i);
            }
            xq_unmake_move(&b, list[j], &u);
            if (w.wdl == -1 && (min_loss < 0 || w.dtm < min_loss)) min_loss = w.dtm;
            if (w.wdl == 0) draw = true;
            if (w.wdl == 1 && w.dtm > max_win) max_win = w.dtm;
        }
        ref_value want;
        if (nm == 0)
            want = (ref_value){-1, 0};
        else if (min_loss >= 0)
            want = (ref_value){1, min_loss + 1};
        else if (draw)
            want = (ref_value){0, 0};
        else
            want = (ref_value){-1, max_win + 1};
        if (v.wdl != want.wdl || v.dtm != want.dtm) {
            char fen[XQ_FEN_MAX];
            xq_fen_write(&b, fen);
            fail_msg("%s: %s has %d/%d, its successors say %d/%d", name, fen, v.wdl, v.dtm, want.wdl, want.dtm);
        }
    }
}

/* Values do not change under the left-right mirror, nor under the colour
 * flip (looked up in the solution of the flipped material). */
static void check_symmetric(const ref_db *db, const ref_db *flipped, const char *name)
{
    for (int i = 0; i < ref_count(db); i++) {
        xq_board b, mb, fb;
        ref_board(db, i, &b);
        ref_value v = ref_value_at(db, i);
        xq_board_mirror(&b, &mb);
        ref_value w = ref_lookup(db, &mb);
        CHECK(w.wdl == v.wdl && w.dtm == v.dtm, "%s: position %d and its mirror image differ", name, i);
        xq_board_flip(&b, &fb);
        w = ref_lookup(flipped, &fb);
        CHECK(w.wdl == v.wdl && w.dtm == v.dtm, "%s: position %d and its colour flip differ", name, i);
    }
    assert_int_equal(ref_count(db), ref_count(flipped));
}

static void print_stats(const ref_db *db, const char *name)
{
    ref_stats st;
    ref_get_stats(db, &st);
    for (int s = 0; s < 2; s++) {
        char fen[XQ_FEN_MAX] = "-";
        if (st.max_dtm_id[s] >= 0) {
            xq_board b;
            ref_board(db, st.max_dtm_id[s], &b);
            xq_fen_write(&b, fen);
        }
        print_message("  %-5s %s to move: %6d positions, %6d won, %6d drawn, %6d lost, longest %3d plies (%s)\n", name,
                      s == RED ? "red  " : "black", st.positions[s], st.wins[s], st.draws[s], st.losses[s],
                      st.max_dtm[s], fen);
    }
}

/* ---- Two bare kings ----------------------------------------------------- */
static void test_kk(void **state)
{
    (void)state;
    ref_db *db = solve("KK");
    /* 9 x 9 king pairs, less the 27 on a shared file (always facing: nothing
     * can stand between), for each side to move. */
    assert_int_equal(ref_count(db), 2 * (81 - 27));
    ref_stats st;
    ref_get_stats(db, &st);
    int no_move = 0;
    for (int i = 0; i < ref_count(db); i++) {
        xq_board b;
        ref_board(db, i, &b);
        ref_value v = ref_value_at(db, i);
        xq_move list[XQ_MAX_MOVES];
        int nm = xq_gen_legal(&b, list);
        /* A side with no legal move has lost; otherwise nobody can win. */
        if (nm == 0) {
            no_move++;
            CHECK(v.wdl == -1 && v.dtm == 0, "KK position %d: no legal move but %d/%d", i, v.wdl, v.dtm);
        } else {
            CHECK(v.wdl == 0 && v.dtm == 0, "KK position %d: %d legal moves but %d/%d", i, nm, v.wdl, v.dtm);
        }
    }
    /* A bare king in a palace always has a step that keeps it off the other
     * king's file (corner: along the rank or file; elsewhere several). */
    assert_int_equal(no_move, 0);
    for (int s = 0; s < 2; s++) {
        assert_int_equal(st.positions[s], 54);
        assert_int_equal(st.draws[s], 54);
        assert_int_equal(st.max_dtm[s], -1);
    }
    check_consistent(db, "KK");
    print_stats(db, "KK");
    ref_free(db);
}

/* ---- Rook against bare king --------------------------------------------- */
static void test_krk_theory(void **state)
{
    (void)state;
    ref_db *db = solve("KRK");
    ref_stats st;
    ref_get_stats(db, &st);
    /* With the rook side to move every position is won (it can always save
     * the rook, and K+R mates a bare king).  With the bare king to move it
     * either loses or captures the rook (a draw): it never wins. */
    assert_true(st.positions[RED] > 0);
    assert_int_equal(st.wins[RED], st.positions[RED]);
    assert_int_equal(st.wins[BLACK], 0);
    assert_true(st.losses[BLACK] > 0);
    for (int i = 0; i < ref_count(db); i++) {
        xq_board b;
        ref_board(db, i, &b);
        ref_value v = ref_value_at(db, i);
        if (b.side == BLACK && v.wdl == 0) {
            /* A draw with the bare king to move: only by taking the rook. */
            uint8_t targets[16];
            CHECK(xq_piece_attacks(&b, b.king[BLACK], targets) > 0, "KRK position %d drawn without a capture", i);
        }
    }
    /* Plausible lengths: at most a few dozen plies; a win is one ply more
     * than some loss, a loss one ply more than some win. */
    assert_true(st.max_dtm[RED] >= 3 && st.max_dtm[RED] < 100);
    assert_true(st.max_dtm[BLACK] <= st.max_dtm[RED] + 1);
    assert_true(st.max_dtm[RED] <= st.max_dtm[BLACK] + 1);
    check_consistent(db, "KRK");
    const ref_db *kk = ref_subtable(db, &(xq_material){.count = {{0, 1}, {0, 1}}});
    assert_non_null(kk);
    assert_int_equal(ref_count(kk), 108);
    assert_null(ref_subtable(db, &(xq_material){.count = {{0, 1, 0, 0, 0, 0, 0, 1}, {0, 1}}}));
    print_stats(db, "KRK");

    /* The same endgame with colours swapped gives the same values. */
    ref_db *flipped = solve("KKR");
    check_symmetric(db, flipped, "KRK");
    ref_free(flipped);
    ref_free(db);
}

/* ---- Hand-computed positions -------------------------------------------- */
static void test_hand_positions(void **state)
{
    (void)state;
    ref_db *db = solve("KRK");
    xq_board b;
    xq_move list[XQ_MAX_MOVES];
    ref_value v;

    /* Mate in 1: Ra1-d1.  Black's king d9 is checked along the d-file (d8
     * covered too), and e9 would face red's king on the open e-file. */
    v = lookup_fen(db, "3k5/9/9/9/9/9/9/9/R8/4K4 w - - 0 1");
    assert_int_equal(v.wdl, 1);
    assert_int_equal(v.dtm, 1);

    /* The position after Rd1: black is checkmated. */
    parse("3k5/9/9/9/9/9/9/9/3R5/4K4 b - - 0 1", &b);
    assert_true(xq_in_check(&b, BLACK));
    assert_int_equal(xq_gen_legal(&b, list), 0);
    v = ref_lookup(db, &b);
    assert_int_equal(v.wdl, -1);
    assert_int_equal(v.dtm, 0);

    /* Stalemate: the rook on a8 guards d8, the e-file is red king's; black
     * is not in check and has no legal move, which loses. */
    parse("3k5/R8/9/9/9/9/9/9/9/4K4 b - - 0 1", &b);
    assert_false(xq_in_check(&b, BLACK));
    assert_int_equal(xq_gen_legal(&b, list), 0);
    v = ref_lookup(db, &b);
    assert_int_equal(v.wdl, -1);
    assert_int_equal(v.dtm, 0);

    /* Lost in 2: black's only move is Kd9-d8 (e9 faces the red king), then
     * Ra3-d3 mates (d9 still on the file, e8 facing, d7 covered). */
    parse("3k5/9/9/9/9/9/R8/9/9/4K4 b - - 0 1", &b);
    assert_int_equal(xq_gen_legal(&b, list), 1);
    v = ref_lookup(db, &b);
    assert_int_equal(v.wdl, -1);
    assert_int_equal(v.dtm, 2);
    parse("9/3k5/9/9/9/9/R8/9/9/4K4 w - - 0 1", &b);
    v = ref_lookup(db, &b);
    assert_int_equal(v.wdl, 1);
    assert_int_equal(v.dtm, 1);
    /* Same placement, red to move: Ra3-d3 is mate at once. */
    v = lookup_fen(db, "3k5/9/9/9/9/9/R8/9/9/4K4 w - - 0 1");
    assert_int_equal(v.wdl, 1);
    assert_int_equal(v.dtm, 1);

    /* Black to move takes an unprotected rook next to its king: a draw. */
    v = lookup_fen(db, "4k4/4R4/9/9/9/9/9/9/9/3K5 b - - 0 1");
    assert_int_equal(v.wdl, 0);
    assert_int_equal(v.dtm, 0);

    /* Boards that are not positions of the db: kings facing, the side not
     * to move in check, another material. */
    xq_board bad;
    xq_board_clear(&bad);
    xq_board_put(&bad, make_square(4, 0), make_piece(RED, KING));
    xq_board_put(&bad, make_square(4, 9), make_piece(BLACK, KING));
    xq_board_put(&bad, make_square(0, 0), make_piece(RED, ROOK));
    v = ref_lookup(db, &bad);
    assert_int_equal(v.dtm, -1);
    assert_int_equal(ref_find(db, &bad), -1);
    parse("3k5/9/9/9/9/9/9/9/3R5/4K4 b - - 0 1", &b);
    b.side = RED; /* black in check with red to move */
    assert_int_equal(ref_lookup(db, &b).dtm, -1);
    parse("3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1", &b);
    assert_int_equal(ref_lookup(db, &b).dtm, -1);
    ref_free(db);
}

/* ---- Consistency of a few more materials -------------------------------- */
/* Both ways of finding a board's id, ref_dense.h's array and the hash map
 * where that array would be too large (two advisors or elephants a side:
 * the array counts both orders of each pair, and pieces on one square),
 * give every position its own id back, and none to a board of another
 * material or to a side to move whose opponent is in check. */
static void test_lookup_paths(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int dense;
    } cases[] = {{"KAAKAA", 0}, {"KBBKBB", 0}, {"KRKN", 1}, {"KCKP", 1}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        xq_material m;
        char err[XQ_ERR_MAX];
        if (xq_material_parse(cases[c].name, &m, err)) fail_msg("%s", err);
        ref_db *db = ref_enumerate(&m);
        assert_non_null(db);
        CHECK((ref_dense_of(db) != NULL) == cases[c].dense, "%s: unexpected look-up path", cases[c].name);
        int n = ref_count(db), missing = 0;
        for (int i = 0; i < n; i++) {
            xq_board b;
            ref_board(db, i, &b);
            CHECK(ref_find(db, &b) == i, "%s: position %d found as %d", cases[c].name, i, ref_find(db, &b));
            if (i % 97) continue;
            /* the other side to move: a position, or the side not to move in check */
            b.side ^= 1;
            int j = ref_find(db, &b);
            CHECK(j < 0 || j != i, "%s: position %d found with the other side to move", cases[c].name, i);
            missing += j < 0 && !xq_in_check(&b, b.side ^ 1);
        }
        CHECK(missing == 0, "%s: %d boards with the other side to move not found", cases[c].name, missing);
        xq_board k;
        parse("3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1", &k); /* kings only: not of this material */
        CHECK(ref_find(db, &k) == -1, "%s: KK board found", cases[c].name);
        ref_free(db);
    }
}

static void test_consistency(void **state)
{
    (void)state;
    static const char *const mats[][2] = {{"KNKA", "KAKN"}, {"KPKB", "KBKP"}, {"KCK", "KKC"}};
    for (size_t t = 0; t < sizeof mats / sizeof mats[0]; t++) {
        ref_db *db = solve(mats[t][0]), *flipped = solve(mats[t][1]);
        check_consistent(db, mats[t][0]);
        check_symmetric(db, flipped, mats[t][0]);
        /* Every subtable a capture leads to was solved and is consistent. */
        const xq_material *m = ref_material(db);
        for (int c = 0; c < 2; c++)
            for (int k = ADVISOR; k < KIND_NB; k++)
                if (m->count[c][k]) {
                    xq_material s = *m;
                    s.count[c][k]--;
                    const ref_db *sub = ref_subtable(db, &s);
                    assert_non_null(sub);
                    char name[XQ_MATERIAL_MAX];
                    xq_material_name(&s, name);
                    check_consistent(sub, name);
                }
        print_stats(db, mats[t][0]);
        ref_free(flipped);
        ref_free(db);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_allowed_squares), cmocka_unit_test(test_kk),          cmocka_unit_test(test_krk_theory),
        cmocka_unit_test(test_hand_positions),  cmocka_unit_test(test_consistency), cmocka_unit_test(test_lookup_paths),
    };
    return cmocka_run_group_tests_name("ref_solver", tests, NULL, NULL);
}
