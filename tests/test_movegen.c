/*
 * test_movegen.c - move generation piece by piece in hand-built positions
 * with exact expected move lists, the flying-general rule, check evasion,
 * mate and stalemate, attack lists, make/unmake and the board symmetries.
 *
 * Expected lists are written out by hand from the rules, sorted, so a
 * missing or extra move shows up as a string difference.
 */
#include "testutil.h"

#include "geometry.h"

/* ---- Horse -------------------------------------------------------------- */

static void test_horse_open_board(void **state)
{
    (void)state;
    assert_legal_from(fen_of("Kd0 kf9 Ne4", "w"), "e4", "e4c3 e4c5 e4d2 e4d6 e4f2 e4f6 e4g3 e4g5");
    assert_legal_from(fen_of("Kd0 kf9 Na0", "w"), "a0", "a0b2 a0c1");
}

static void test_horse_leg_blocking(void **state)
{
    (void)state;
    /* Legs: e5 (own pawn) blocks d6/f6, d4 (enemy pawn) blocks c5/c3; g5
     * holds an enemy rook (capture), f2 an own advisor (no move). */
    assert_legal_from(fen_of("Kd0 kf9 Ne4 Pe5 pd4 rg5 Af2", "w"), "e4", "e4d2 e4g3 e4g5");
    /* A piece diagonally next to the horse is not a leg. */
    assert_legal_from(fen_of("Kd0 kf9 Ne4 Pd5 nf5 Nd3 pf3", "w"), "e4", "e4c3 e4c5 e4d2 e4d6 e4f2 e4f6 e4g3 e4g5");
}

/* ---- Elephant ----------------------------------------------------------- */

static void test_elephant_eye_blocking(void **state)
{
    (void)state;
    assert_legal_from(fen_of("Kd0 kf9 Be2", "w"), "e2", "e2c0 e2c4 e2g0 e2g4");
    assert_legal_from(fen_of("Kd0 kf9 Be2 Nd3", "w"), "e2", "e2c0 e2g0 e2g4");
    assert_legal_from(fen_of("Kd0 kf9 Be2 Nd3 pf3", "w"), "e2", "e2c0 e2g0");
}

static void test_elephant_never_crosses_river(void **state)
{
    (void)state;
    assert_legal_from(fen_of("Kd0 kf9 Bg4", "w"), "g4", "g4e2 g4i2");
    assert_legal_from(fen_of("Kd0 kf9 Bg4 ri2", "w"), "g4", "g4e2 g4i2"); /* capture */
    assert_legal_from(fen_of("Kd0 kf9 bc5", "b"), "c5", "c5a7 c5e7");
    assert_legal_from(fen_of("Kd0 kf9 bi7", "b"), "i7", "i7g5 i7g9");
}

/* ---- Cannon ------------------------------------------------------------- */

static void test_cannon_screen_capture(void **state)
{
    (void)state;
    /* North: b3 b4, b5 is the screen, b7 captured over it. */
    assert_legal_from(fen_of("Kd0 kf9 Cb2 nb5 rb7", "w"), "b2",
                      "b2a2 b2b0 b2b1 b2b3 b2b4 b2b7 b2c2 b2d2 b2e2 b2f2 b2g2 b2h2 b2i2");
    /* An own piece is as good a screen. */
    assert_legal_from(fen_of("Kd0 kf9 Cb2 Pb5 rb7", "w"), "b2",
                      "b2a2 b2b0 b2b1 b2b3 b2b4 b2b7 b2c2 b2d2 b2e2 b2f2 b2g2 b2h2 b2i2");
    /* Only the first piece past exactly one screen: b5, not b7. */
    assert_legal_from(fen_of("Kd0 kf9 Cb2 nb4 nb5 rb7", "w"), "b2",
                      "b2a2 b2b0 b2b1 b2b3 b2b5 b2c2 b2d2 b2e2 b2f2 b2g2 b2h2 b2i2");
    /* No own-piece capture past a screen. */
    assert_legal_from(fen_of("Kd0 kf9 Cb2 nb5 Rb7", "w"), "b2",
                      "b2a2 b2b0 b2b1 b2b3 b2b4 b2c2 b2d2 b2e2 b2f2 b2g2 b2h2 b2i2");
}

static void test_cannon_no_capture_without_screen(void **state)
{
    (void)state;
    assert_legal_from(fen_of("Kd0 kf9 Cb2 rb6", "w"), "b2",
                      "b2a2 b2b0 b2b1 b2b3 b2b4 b2b5 b2c2 b2d2 b2e2 b2f2 b2g2 b2h2 b2i2");
    assert_legal_from(fen_of("Kd0 kf9 Ca4 rb4", "w"), "a4", "a4a0 a4a1 a4a2 a4a3 a4a5 a4a6 a4a7 a4a8 a4a9");
}

/* ---- Rook --------------------------------------------------------------- */

static void test_rook(void **state)
{
    (void)state;
    assert_legal_from(fen_of("Kd0 kf9 Re4 pe6 Pc4", "w"), "e4",
                      "e4d4 e4e0 e4e1 e4e2 e4e3 e4e5 e4e6 e4f4 e4g4 e4h4 e4i4");
    assert_legal_from(fen_of("Kd0 kf9 Ra0 Na1 pb0", "w"), "a0", "a0b0");
}

/* ---- Pawn --------------------------------------------------------------- */

static void test_pawn_before_river_only_forward(void **state)
{
    (void)state;
    assert_legal_from(fen_of("Kd0 kf9 Pc3", "w"), "c3", "c3c4");
    assert_legal_from(fen_of("Kd0 kf9 Pc4", "w"), "c4", "c4c5");
    assert_legal_from(fen_of("Kd0 kf9 Pc3 pb3 pd3", "w"), "c3", "c3c4"); /* no sideways capture */
    assert_legal_from(fen_of("Kd0 kf9 pc6", "b"), "c6", "c6c5");
    assert_legal_from(fen_of("Kd0 kf9 pc5", "b"), "c5", "c5c4");
}

static void test_pawn_after_river_sideways_never_back(void **state)
{
    (void)state;
    assert_legal_from(fen_of("Kd0 kf9 Pc5", "w"), "c5", "c5b5 c5c6 c5d5");
    assert_legal_from(fen_of("Kd0 kf9 Pa6", "w"), "a6", "a6a7 a6b6");
    assert_legal_from(fen_of("Kf0 kd7 Pe9", "w"), "e9", "e9d9 e9f9"); /* last rank: sideways only */
    assert_legal_from(fen_of("Kd0 kf9 Pc5 nb5 Pd5 rc6", "w"), "c5", "c5b5 c5c6");
    assert_legal_from(fen_of("Kd0 kf9 pc4", "b"), "c4", "c4b4 c4c3 c4d4");
    assert_legal_from(fen_of("Kd0 kf9 pi4", "b"), "i4", "i4h4 i4i3");
    assert_legal_from(fen_of("Kd0 kf9 pa0", "b"), "a0", "a0b0");
}

/* ---- King and advisor --------------------------------------------------- */

static void test_king_palace_limits(void **state)
{
    (void)state;
    assert_legal_from(fen_of("Kd0 kf9", "w"), "d0", "d0d1 d0e0");
    assert_legal_from(fen_of("Ke1 kd9 Nd5", "w"), "e1", "e1d1 e1e0 e1e2 e1f1");
    assert_legal_from(fen_of("Kf2 kd9", "w"), "f2", "f2e2 f2f1");
    assert_legal_from(fen_of("Kd0 ke8 Pd5", "b"), "e8", "e8d8 e8e7 e8e9 e8f8");
    assert_legal_from(fen_of("Kf0 kd7", "b"), "d7", "d7d8 d7e7");
}

static void test_advisor_palace_limits(void **state)
{
    (void)state;
    assert_legal_from(fen_of("Kd0 kf9 Ae1", "w"), "e1", "e1d2 e1f0 e1f2");
    assert_legal_from(fen_of("Kd0 kf9 Af0", "w"), "f0", "f0e1");
    assert_legal_from(fen_of("Kd0 kf9 Af2", "w"), "f2", "f2e1");
    assert_legal_from(fen_of("Kd0 kf9 ae8", "b"), "e8", "e8d7 e8d9 e8f7");
}

/* ---- Flying general ----------------------------------------------------- */

static void test_king_may_not_step_onto_open_file_facing(void **state)
{
    (void)state;
    /* d0 would face the black king on d9 with nothing between. */
    assert_legal_from(fen_of("Ke0 kd9", "w"), "e0", "e0e1 e0f0");
    assert_legal_from(fen_of("Kd0 ke7", "b"), "e7", "e7e8 e7f7");
    /* With a screen on the d-file, d0 is fine. */
    assert_legal_from(fen_of("Ke0 kd9 nd5", "w"), "e0", "e0d0 e0e1 e0f0");
}

static void test_move_leaving_kings_facing_is_illegal(void **state)
{
    (void)state;
    /* The only piece between the kings is pinned to the file. */
    assert_legal_from(fen_of("Ke0 Ne4 ke9", "w"), "e4", "");
    assert_legal_from(fen_of("Ke0 Ce4 ke9", "w"), "e4", "e4e1 e4e2 e4e3 e4e5 e4e6 e4e7 e4e8");
    assert_legal_from(fen_of("Kd1 pd4 kd8", "b"), "d4", "d4d3");
    /* With two pieces between, either may leave. */
    assert_legal_from(fen_of("Ke0 Ne4 Pe6 ke9", "w"), "e4", "e4c3 e4c5 e4d2 e4d6 e4f2 e4f6 e4g3 e4g5");
}

/* ---- Check -------------------------------------------------------------- */

static void test_check_evasion(void **state)
{
    (void)state;
    /* Rook check on the e-file: step aside to f1 (d1 faces the king on d9)
     * or interpose on e2. */
    assert_legal_from(fen_of("Ke1 Ra2 kd9 re8", "w"), NULL, "a2e2 e1f1");
    /* Capture the checker, or step out of the line. */
    assert_legal_from(fen_of("Kd0 Ra5 kf9 rd5", "w"), NULL, "a5d5 d0e0");
    /* Cannon check: any move of the screen parries it. */
    assert_legal_from(fen_of("Ke0 Ne3 kd9 ce7", "w"), NULL, "e0f0 e3c2 e3c4 e3d1 e3d5 e3f1 e3f5 e3g2 e3g4");
    /* Horse check: block its leg or move away. */
    assert_legal_from(fen_of("Ke0 Ad0 Rf5 kd9 ng1", "w"), NULL, "e0e1 e0f0 f5f1");
}

static void test_checkmate_has_no_moves(void **state)
{
    (void)state;
    xq_board b;
    xq_move list[XQ_MAX_MOVES];
    parse_ok(fen_of("Kd0 Re7 Rf5 ke9", "b"), &b);
    assert_true(xq_in_check(&b, BLACK));
    assert_int_equal(xq_gen_legal(&b, list), 0);
    assert_true(xq_gen_pseudo(&b, list) > 0); /* moves exist, none legal */
    /* Mate with the flying general covering d8. */
    parse_ok(fen_of("Kd0 Re1 Rf5 ke8", "b"), &b);
    assert_true(xq_in_check(&b, BLACK));
    assert_int_equal(xq_gen_legal(&b, list), 0);
}

static void test_stalemate_has_no_moves(void **state)
{
    (void)state;
    xq_board b;
    xq_move list[XQ_MAX_MOVES];
    parse_ok(fen_of("Kd0 Ra8 Pg9 ke9", "b"), &b);
    assert_false(xq_in_check(&b, BLACK));
    assert_int_equal(xq_gen_legal(&b, list), 0);
    assert_true(xq_gen_pseudo(&b, list) > 0);
    assert_int_equal(xq_perft(&b, 1), 0);
    assert_int_equal(xq_perft(&b, 3), 0);
}

static void test_move_valid(void **state)
{
    (void)state;
    xq_board b, before;
    parse_ok(START_FEN, &b);
    before = b;
    assert_true(xq_move_valid(&b, make_move(sq_of("h2"), sq_of("e2"))));
    assert_true(xq_move_valid(&b, make_move(sq_of("b0"), sq_of("c2"))));
    assert_false(xq_move_valid(&b, make_move(sq_of("b0"), sq_of("d1")))); /* leg c0 blocked */
    assert_false(xq_move_valid(&b, make_move(sq_of("e0"), sq_of("e2"))));
    assert_false(xq_move_valid(&b, make_move(sq_of("a6"), sq_of("a5")))); /* black pawn, red to move */
    assert_false(xq_move_valid(&b, MOVE_NONE));
    assert_false(xq_move_valid(&b, 0xFFFF));
    assert_board_identical(&b, &before);
}

/* ---- Attacks ------------------------------------------------------------ */

static void attacks(const xq_board *b, const char *from, char *out, size_t cap)
{
    uint8_t t[16];
    int n = xq_piece_attacks(b, sq_of(from), t);
    xq_move list[16];
    for (int i = 0; i < n; i++) list[i] = make_move(sq_of(from), t[i]);
    format_moves(list, n, -1, out, cap);
}

#define assert_attacks(b, from, expected)                                                                              \
    do {                                                                                                               \
        char got_[256];                                                                                                \
        attacks((b), (from), got_, sizeof got_);                                                                       \
        assert_string_equal(got_, (expected));                                                                         \
    } while (0)

/* Boards built square by square: xq_piece_attacks must not depend on the
 * position being valid. */
static void put(xq_board *b, const char *pieces)
{
    for (const char *p = pieces; *p;) {
        if (*p == ' ') {
            p++;
            continue;
        }
        int upper = p[0] >= 'A' && p[0] <= 'Z';
        xq_board_put(b, sq_of(p + 1),
                     make_piece(upper ? RED : BLACK, xq_kind_from_char(upper ? p[0] : (char)(p[0] - 32))));
        p += 3;
    }
}

static void test_piece_attacks(void **state)
{
    (void)state;
    xq_board b;
    parse_ok(START_FEN, &b);
    assert_attacks(&b, "b2", "b2b9"); /* cannon over the b7 cannon onto the horse */
    assert_attacks(&b, "h7", "h7h0");
    assert_attacks(&b, "a0", "");
    assert_attacks(&b, "b0", "");
    assert_attacks(&b, "e4", ""); /* empty square */

    xq_board_clear(&b);
    put(&b, "Ne4 rd6 pc3 pf4 cg5 Af2");
    assert_attacks(&b, "e4", "e4c3 e4d6"); /* g5 behind the f4 leg */

    xq_board_clear(&b);
    put(&b, "Pe5 pd5 pf5 pe6 Pe3 pd3 pf3 pe4");
    assert_attacks(&b, "e5", "e5d5 e5e6 e5f5");
    assert_attacks(&b, "e3", "e3e4");
    assert_attacks(&b, "e6", "e6e5"); /* black pawn before its river: forward only */
    assert_attacks(&b, "e4", "e4e3"); /* black pawn across: d4/f4 are empty */

    xq_board_clear(&b);
    put(&b, "Ke0 pd0 ke9");
    assert_attacks(&b, "e0", "e0d0 e0e9"); /* palace step and flying general */
    assert_attacks(&b, "e9", "e9e0");

    xq_board_clear(&b);
    put(&b, "Be2 pc4 pg0 Nf1 Ae1");
    assert_attacks(&b, "e2", "e2c4");

    xq_board_clear(&b);
    put(&b, "Ae1 pd2 pf0 Pd0");
    assert_attacks(&b, "e1", "e1d2 e1f0");

    xq_board_clear(&b);
    put(&b, "Re4 pe7 Pc4 ng4 Ce1 re0");
    assert_attacks(&b, "e4", "e4e7 e4g4");
    assert_attacks(&b, "e1", "e1e7"); /* over the own rook; e0 has no screen */
}

/* ---- Make / unmake ------------------------------------------------------ */

/* The occupancy masks and king squares must always agree with sq[]. */
static void assert_consistent(const xq_board *b)
{
    xq_mask occ[2] = {0, 0};
    int king[2] = {XQ_SQUARES, XQ_SQUARES};
    for (int s = 0; s < XQ_SQUARES; s++) {
        if (!b->sq[s]) continue;
        occ[colour_of(b->sq[s])] |= mask_of(s);
        if (kind_of(b->sq[s]) == KING) king[colour_of(b->sq[s])] = s;
    }
    assert_true(occ[RED] == b->occ[RED]);
    assert_true(occ[BLACK] == b->occ[BLACK]);
    assert_int_equal(king[RED], b->king[RED]);
    assert_int_equal(king[BLACK], b->king[BLACK]);
}

static uint64_t walk(xq_board *b, int depth)
{
    xq_move list[XQ_MAX_MOVES];
    int n = xq_gen_legal(b, list);
    uint64_t nodes = 1;
    if (depth == 0) return nodes;
    for (int i = 0; i < n; i++) {
        xq_board before = *b;
        xq_undo u;
        int from = move_from(list[i]), to = move_to(list[i]);
        xq_piece mover = b->sq[from], target = b->sq[to];
        xq_make_move(b, list[i], &u);
        assert_consistent(b);
        assert_int_equal(b->sq[to], mover);
        assert_int_equal(b->sq[from], EMPTY);
        assert_int_equal(u.captured, target);
        assert_int_equal(b->side, before.side ^ 1);
        assert_int_equal(b->rule60, target ? 0 : before.rule60 + 1);
        assert_int_equal(b->fullmove, before.fullmove + (before.side == BLACK));
        /* A legal move never leaves the mover in check or the kings facing,
         * so the result validates. */
        char err[XQ_ERR_MAX];
        if (xq_board_validate(b, err)) fail_msg("position after a legal move invalid: %s", err);
        nodes += walk(b, depth - 1);
        xq_unmake_move(b, list[i], &u);
        assert_board_identical(b, &before);
    }
    return nodes;
}

static void test_make_unmake_restores(void **state)
{
    (void)state;
    static const char *const fens[] = {
        START_FEN,
        "r1bakab1r/9/1cn4c1/p1p1p1p1p/9/2P6/P3P1P1P/1C2C4/9/RNBAKABNR b - - 5 9",
        "3k5/4a4/4b4/9/2p6/6N2/4R4/4B4/4A4/3AK4 w - - 17 60",
        "4k4/4a4/3a5/9/9/9/9/9/4C4/3K5 b - - 0 1",
    };
    for (size_t i = 0; i < sizeof fens / sizeof *fens; i++) {
        xq_board b, before;
        parse_ok(fens[i], &b);
        before = b;
        assert_true(walk(&b, i == 0 ? 2 : 3) > 1);
        assert_board_identical(&b, &before);
    }
}

static void test_legal_is_filtered_pseudo(void **state)
{
    (void)state;
    /* xq_gen_legal skips the check test for moves that cannot expose the
     * king; compare it with the plain filter over every pseudo move. */
    static const char *const fens[] = {
        START_FEN,
        "r1bakab1r/9/1cn4c1/p1p1p1p1p/9/2P6/P3P1P1P/1C2C4/9/RNBAKABNR b - - 5 9",
        "4k4/4a4/3a5/9/9/9/9/9/4C4/3K5 b - - 0 1",
        "4k4/9/4n4/9/4C4/9/9/9/3N5/4K4 b - - 0 1",
    };
    for (size_t i = 0; i < sizeof fens / sizeof *fens; i++) {
        xq_board b;
        xq_move pseudo[XQ_MAX_MOVES], legal[XQ_MAX_MOVES], filtered[XQ_MAX_MOVES];
        parse_ok(fens[i], &b);
        int np = xq_gen_pseudo(&b, pseudo), nl = xq_gen_legal(&b, legal), nf = 0;
        for (int j = 0; j < np; j++)
            if (xq_move_is_legal(&b, pseudo[j])) filtered[nf++] = pseudo[j];
        char a[1024], c[1024];
        format_moves(legal, nl, -1, a, sizeof a);
        format_moves(filtered, nf, -1, c, sizeof c);
        assert_string_equal(a, c);
    }
}

static int move_cmp(const void *a, const void *b)
{
    xq_move x = *(const xq_move *)a, y = *(const xq_move *)b;
    return x < y ? -1 : x > y;
}

/* At every node of the tree to `depth`, xq_gen_captures gives exactly the
 * captures among the legal moves (as a set), and xq_has_legal_move says
 * whether there is any; returns the nodes seen. */
static long captures_agree(xq_board *b, int depth)
{
    xq_move legal[XQ_MAX_MOVES], want[XQ_MAX_MOVES], got[XQ_MAX_MOVES];
    xq_board before = *b;
    int nl = xq_gen_legal(b, legal), nw = 0, ng = xq_gen_captures(b, got);
    assert_board_identical(b, &before);
    assert_int_equal(xq_has_legal_move(b), nl > 0);
    assert_board_identical(b, &before);
    for (int i = 0; i < nl; i++)
        if (b->sq[move_to(legal[i])]) want[nw++] = legal[i];
    qsort(want, (size_t)nw, sizeof *want, move_cmp);
    qsort(got, (size_t)ng, sizeof *got, move_cmp);
    assert_int_equal(ng, nw);
    assert_memory_equal(got, want, (size_t)nw * sizeof *want);
    long nodes = 1;
    for (int i = 0; depth > 0 && i < nl; i++) {
        xq_undo u;
        xq_make_move(b, legal[i], &u);
        nodes += captures_agree(b, depth - 1);
        xq_unmake_move(b, legal[i], &u);
    }
    return nodes;
}

/* Roots of the trees walked below: pins, checks, cannon screens and the
 * flying general (the first two walked two plies deep, the others three). */
static const char *const tree_fens[] = {
    START_FEN,
    "r1bakab1r/9/1cn4c1/p1p1p1p1p/9/2P6/P3P1P1P/1C2C4/9/RNBAKABNR b - - 5 9",
    "4k4/4a4/3a5/9/9/9/9/9/4C4/3K5 b - - 0 1",
    "4k4/9/4n4/9/4C4/9/9/9/3N5/4K4 b - - 0 1",
    "3k5/4a4/4b4/9/2p6/6N2/4R4/4B4/4A4/3AK4 w - - 17 60",
};
enum { TREE_FENS = sizeof tree_fens / sizeof *tree_fens };

static void test_captures_are_the_legal_captures(void **state)
{
    (void)state;
    /* pins, checks, cannon screens and the flying general all limit captures */
    for (size_t i = 0; i < TREE_FENS; i++) {
        xq_board b;
        parse_ok(tree_fens[i], &b);
        assert_true(captures_agree(&b, i < 2 ? 2 : 3) > 20);
    }
    /* checkmate: the rook checks, e9 faces the red king, d8 is covered */
    xq_board mated;
    parse_ok("3k5/9/3R5/9/9/9/9/9/9/4K4 b - - 0 1", &mated);
    assert_false(xq_has_legal_move(&mated));
    assert_int_equal(captures_agree(&mated, 0), 1);
}

/* At every node of the tree to `depth`, xq_gives_check agrees with playing
 * each pseudo-legal move and asking xq_in_check; returns the moves seen. */
static long gives_check_agrees(xq_board *b, int depth)
{
    xq_move list[XQ_MAX_MOVES];
    int n = xq_gen_pseudo(b, list);
    long moves = 0;
    for (int i = 0; i < n; i++) {
        xq_board before = *b;
        bool fast = xq_gives_check(b, list[i]);
        assert_board_identical(b, &before);
        xq_undo u;
        xq_make_move(b, list[i], &u);
        assert_int_equal(fast, xq_in_check(b, b->side));
        bool legal = !xq_in_check(b, b->side ^ 1) && !xq_kings_facing(b);
        if (legal && depth > 0) moves += gives_check_agrees(b, depth - 1);
        xq_unmake_move(b, list[i], &u);
        moves++;
    }
    return moves;
}

static void test_gives_check_is_in_check_after(void **state)
{
    (void)state;
    /* besides the trees above: discovered checks through rook and cannon
     * lines, cannon screens added and taken away, horse legs opened, pawns */
    static const char *const more[] = {
        "3k5/9/3P5/3N5/9/3C5/9/4R4/4c4/4K4 w - - 0 1",
        "4k4/3P1P3/4N4/9/2C1R1C2/9/9/9/4p4/3K5 w - - 0 1",
        "4k4/3P5/3N5/9/9/9/9/9/9/3K5 w - - 0 1",
    };
    for (size_t i = 0; i < TREE_FENS + sizeof more / sizeof *more; i++) {
        xq_board b;
        parse_ok(i < TREE_FENS ? tree_fens[i] : more[i - TREE_FENS], &b);
        assert_true(gives_check_agrees(&b, i < 2 ? 2 : 3) > 100);
    }
}

/* ---- Symmetries --------------------------------------------------------- */

static void test_mirror_and_flip(void **state)
{
    (void)state;
    xq_board b, m, f, back;
    parse_ok(START_FEN, &b);
    xq_board_mirror(&b, &m);
    assert_true(xq_board_equal(&b, &m)); /* the start position is symmetric */
    xq_board_flip(&b, &f);
    assert_memory_equal(f.sq, b.sq, sizeof b.sq); /* ... under the colour flip too */
    assert_int_equal(f.side, BLACK);

    parse_ok("2bak4/4a4/4b4/9/2p3p2/P8/4N4/4B4/4A4/4KAB2 w - - 3 7", &b);
    xq_board_mirror(&b, &m);
    assert_consistent(&m);
    assert_int_equal(m.sq[sq_of("i4")], make_piece(RED, PAWN));
    assert_int_equal(m.sq[sq_of("e0")], make_piece(RED, KING));
    assert_int_equal(m.sq[sq_of("d0")], make_piece(RED, ADVISOR));
    assert_int_equal(m.sq[sq_of("g9")], make_piece(BLACK, ELEPHANT));
    assert_false(xq_board_equal(&b, &m));
    xq_board_mirror(&m, &back);
    assert_board_identical(&back, &b);

    xq_board_flip(&b, &f);
    assert_consistent(&f);
    assert_int_equal(f.side, BLACK);
    assert_int_equal(f.sq[sq_of("a5")], make_piece(BLACK, PAWN));
    assert_int_equal(f.sq[sq_of("e9")], make_piece(BLACK, KING));
    assert_int_equal(f.sq[sq_of("c9")], EMPTY);
    assert_int_equal(f.sq[sq_of("c0")], make_piece(RED, ELEPHANT));
    char err[XQ_ERR_MAX];
    assert_int_equal(xq_board_validate(&f, err), 0);
    xq_board_flip(&f, &back);
    assert_board_identical(&back, &b);

    /* The game tree is the same up to the symmetry. */
    xq_board_mirror(&b, &m);
    uint64_t p = xq_perft(&b, 3);
    assert_true(p > 0);
    assert_int_equal(xq_perft(&m, 3), p);
    assert_int_equal(xq_perft(&f, 3), p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_horse_open_board),
        cmocka_unit_test(test_horse_leg_blocking),
        cmocka_unit_test(test_elephant_eye_blocking),
        cmocka_unit_test(test_elephant_never_crosses_river),
        cmocka_unit_test(test_cannon_screen_capture),
        cmocka_unit_test(test_cannon_no_capture_without_screen),
        cmocka_unit_test(test_rook),
        cmocka_unit_test(test_pawn_before_river_only_forward),
        cmocka_unit_test(test_pawn_after_river_sideways_never_back),
        cmocka_unit_test(test_king_palace_limits),
        cmocka_unit_test(test_advisor_palace_limits),
        cmocka_unit_test(test_king_may_not_step_onto_open_file_facing),
        cmocka_unit_test(test_move_leaving_kings_facing_is_illegal),
        cmocka_unit_test(test_check_evasion),
        cmocka_unit_test(test_checkmate_has_no_moves),
        cmocka_unit_test(test_stalemate_has_no_moves),
        cmocka_unit_test(test_move_valid),
        cmocka_unit_test(test_piece_attacks),
        cmocka_unit_test(test_make_unmake_restores),
        cmocka_unit_test(test_legal_is_filtered_pseudo),
        cmocka_unit_test(test_captures_are_the_legal_captures),
        cmocka_unit_test(test_gives_check_is_in_check_after),
        cmocka_unit_test(test_mirror_and_flip),
    };
    return cmocka_run_group_tests_name("movegen", tests, NULL, NULL);
}
