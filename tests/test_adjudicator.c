/*
 * test_adjudicator.c - the repetition adjudicator (tests/ref/adjudicator.h) on
 * hand-built game histories: real positions (FEN), moves in ICCS, every
 * move checked legal by the adjudicator itself.  Each history ends where it
 * started, so its moves are one cycle.
 */
#include "testutil.h"

#include "adjudicator.h"
#include "ref_labels.h"

static adj_result judge(const char *fen, const char *moves)
{
    xq_board b;
    parse_ok(fen, &b);
    char buf[512];
    const char *list[64];
    int n = 0, bad = -1;
    snprintf(buf, sizeof buf, "%s", moves);
    for (char *t = strtok(buf, " "); t && n < 64; t = strtok(NULL, " ")) list[n++] = t;
    adj_result r = adj_judge(&b, list, n, &bad);
    if (r == ADJ_BAD_MOVE) fail_msg("%s: move %d (%s) is not legal", fen, bad, list[bad]);
    return r;
}

#define assert_ruling(fen, moves, want)                                                                                \
    do {                                                                                                               \
        adj_result got_ = judge((fen), (moves));                                                                       \
        if (got_ != (want))                                                                                            \
            fail_msg("%s [%s]: %s, expected %s", (fen), (moves), adj_result_name(got_), adj_result_name(want));        \
    } while (0)

static xq_move iccs(const char *move)
{
    char from[3] = {move[0], move[1], 0}, to[3] = {move[2], move[3], 0};
    return make_move(sq_of(from), sq_of(to));
}

/* Label of one move, for the fixtures' own claims. */
static ref_label label(const char *fen, const char *move)
{
    xq_board b;
    parse_ok(fen, &b);
    ref_label l;
    ref_label_move(&b, iccs(move), &l);
    return l;
}

/* Red's rook checks along the e- and f-files, black's king steps across. */
static const char PERPETUAL_CHECK[] = "9/9/5k3/9/9/9/9/9/9/3KR4 w - - 0 1";

static void test_perpetual_check_loses(void **state)
{
    (void)state;
    assert_ruling(PERPETUAL_CHECK, "e0f0 f7e7 f0e0 e7f7", ADJ_RED_LOSES);
    /* Twice round, and judged from black's side of the same cycle. */
    assert_ruling(PERPETUAL_CHECK, "e0f0 f7e7 f0e0 e7f7 e0f0 f7e7 f0e0 e7f7", ADJ_RED_LOSES);
    assert_ruling(PERPETUAL_CHECK, "e0f0 f7e7 f0e0 e7f7 e0f0", ADJ_RED_LOSES);
}

/* Black's rook steps aside and uncovers its cannon's check through red's
 * cannon; red's cannon escapes to the e-file and checks through black's
 * rook; then both step back, checking again. */
static const char MUTUAL_CHECK[] = "9/9/4k4/5c3/9/5r3/9/5C3/4R4/5K3 b - - 0 1";

static void test_mutual_perpetual_check_draws(void **state)
{
    (void)state;
    const char *moves[] = {"f4e4", "f2e2", "e4f4", "e2f2"};
    xq_board b;
    parse_ok(MUTUAL_CHECK, &b);
    for (int i = 0; i < 4; i++) { /* the fixture's claim: every move checks */
        char fen[XQ_FEN_MAX];
        xq_fen_write(&b, fen);
        assert_true(label(fen, moves[i]).check);
        xq_undo u;
        xq_make_move(&b, iccs(moves[i]), &u);
    }
    assert_ruling(MUTUAL_CHECK, "f4e4 f2e2 e4f4 e2f2", ADJ_DRAW);
}

/* Red's rook attacks black's lone horse from a1, then from a0; the horse
 * hops between d1 and b0 and never attacks back. */
static const char CHASE_UNPROTECTED[] = "9/9/4k4/9/9/9/9/9/3n5/R2K5 w - - 0 1";

static void test_perpetual_chase_of_unprotected_piece_loses(void **state)
{
    (void)state;
    ref_label l = label(CHASE_UNPROTECTED, "a0a1");
    assert_false(l.check);
    assert_int_equal(l.nchased, 1);
    assert_int_equal(l.chased[0], sq_of("d1"));
    assert_ruling(CHASE_UNPROTECTED, "a0a1 d1b0 a1a0 b0d1", ADJ_RED_LOSES);
}

/* Red's rook attacks the horse on f7 (guarded by black's king) from f0,
 * then the advisor on e8 (guarded too) from e0: new attacks, no chases. */
static const char CHASE_PROTECTED[] = "9/5k3/3a1n3/9/9/9/9/9/9/3KR4 w - - 0 1";

static void test_attacking_protected_piece_is_idle(void **state)
{
    (void)state;
    ref_label l = label(CHASE_PROTECTED, "e0f0");
    assert_false(l.check);
    assert_int_equal(l.nchased, 0);
    assert_ruling(CHASE_PROTECTED, "e0f0 d7e8 f0e0 e8d7", ADJ_DRAW);
}

/* Red's king chases black's pawn along red's back rank; red's pawn (across
 * the river) chases black's cannon.  Kings and pawns never chase. */
static const char KING_CHASES[] = "9/9/5k3/9/9/9/9/9/3K5/N3p4 w - - 0 1";
static const char PAWN_CHASES[] = "9/9/4k4/1c7/P8/9/9/9/9/3K5 w - - 0 1";

static void test_king_or_pawn_chasing_is_idle(void **state)
{
    (void)state;
    assert_int_equal(label(KING_CHASES, "d1e1").nchased, 0);
    assert_int_equal(label(PAWN_CHASES, "a5b5").nchased, 0);
    assert_ruling(KING_CHASES, "d1e1 e0d0 e1d1 d0e0", ADJ_DRAW);
    assert_ruling(PAWN_CHASES, "a5b5 b6a6 b5a5 a6b6", ADJ_DRAW);
}

/* Red checks from a7, then goes back to a0 without checking. */
static const char ONE_CHECK_ONE_IDLE[] = "9/9/4k4/9/9/9/9/9/9/R2K5 w - - 0 1";

static void test_one_check_one_idle_draws(void **state)
{
    (void)state;
    assert_true(label(ONE_CHECK_ONE_IDLE, "a0a7").check);
    assert_ruling(ONE_CHECK_ONE_IDLE, "a0a7 e7e8 a7a0 e8e7", ADJ_DRAW);
}

static void test_no_repetition_and_bad_moves(void **state)
{
    (void)state;
    assert_ruling(PERPETUAL_CHECK, "", ADJ_NO_REPETITION);
    assert_ruling(PERPETUAL_CHECK, "e0f0 f7e7 f0e0", ADJ_NO_REPETITION);
    xq_board b;
    parse_ok(PERPETUAL_CHECK, &b);
    const char *illegal[] = {"e0f0", "f7f8"}; /* f8 is on the rook's file */
    const char *garbage[] = {"e0"};
    int bad = -1;
    assert_int_equal(adj_judge(&b, illegal, 2, &bad), ADJ_BAD_MOVE);
    assert_int_equal(bad, 1);
    assert_int_equal(adj_judge(&b, garbage, 1, &bad), ADJ_BAD_MOVE);
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_perpetual_check_loses),
        cmocka_unit_test(test_mutual_perpetual_check_draws),
        cmocka_unit_test(test_perpetual_chase_of_unprotected_piece_loses),
        cmocka_unit_test(test_attacking_protected_piece_is_idle),
        cmocka_unit_test(test_king_or_pawn_chasing_is_idle),
        cmocka_unit_test(test_one_check_one_idle_draws),
        cmocka_unit_test(test_no_repetition_and_bad_moves),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
