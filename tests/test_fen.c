/*
 * test_fen.c - FEN reading and writing, and position validation: canonical
 * round trips, the accepted input variants, and one test per validation
 * rule, each checking that the message names the problem (a user who typed
 * a bad FEN must be told what is wrong with it, not just that it is wrong).
 */
#include <limits.h>

#include "testutil.h"

#include "xqtb.h"

/* ---- Round trips -------------------------------------------------------- */

static void roundtrip(const char *in, const char *expected)
{
    xq_board b, again;
    char out[XQ_FEN_MAX], out2[XQ_FEN_MAX];
    parse_ok(in, &b);
    xq_fen_write(&b, out);
    assert_string_equal(out, expected);
    /* The canonical text must itself parse to the same position. */
    parse_ok(out, &again);
    assert_board_identical(&b, &again);
    xq_fen_write(&again, out2);
    assert_string_equal(out2, out);
}

static void test_start_position_roundtrip(void **state)
{
    (void)state;
    roundtrip(START_FEN, START_FEN);
}

static void test_start_position_contents(void **state)
{
    (void)state;
    xq_board b;
    parse_ok(START_FEN, &b);
    assert_int_equal(b.side, RED);
    assert_int_equal(b.sq[sq_of("e0")], make_piece(RED, KING));
    assert_int_equal(b.sq[sq_of("e9")], make_piece(BLACK, KING));
    assert_int_equal(b.sq[sq_of("b2")], make_piece(RED, CANNON));
    assert_int_equal(b.sq[sq_of("h7")], make_piece(BLACK, CANNON));
    assert_int_equal(b.sq[sq_of("c0")], make_piece(RED, ELEPHANT));
    assert_int_equal(b.sq[sq_of("b9")], make_piece(BLACK, HORSE));
    assert_int_equal(b.sq[sq_of("i6")], make_piece(BLACK, PAWN));
    assert_int_equal(b.sq[sq_of("e4")], EMPTY);
    assert_int_equal(b.king[RED], sq_of("e0"));
    assert_int_equal(b.king[BLACK], sq_of("e9"));
    assert_int_equal(mask_count(b.occ[RED]), 16);
    assert_int_equal(mask_count(b.occ[BLACK]), 16);
    assert_int_equal(b.rule60, 0);
    assert_int_equal(b.fullmove, 1);
}

static void test_r_accepted_for_red(void **state)
{
    (void)state;
    roundtrip("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR r - - 0 1", START_FEN);
}

static void test_h_and_e_letters_accepted(void **state)
{
    (void)state;
    roundtrip("rhbakabhr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR w - - 0 1", START_FEN);
    roundtrip("rnea1aenr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RHBA1ABHR w - - 0 1",
              "rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1");
}

static void test_missing_counters_default(void **state)
{
    (void)state;
    roundtrip("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w", START_FEN);
    roundtrip("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - -", START_FEN);
    roundtrip("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 7",
              "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 7 1");
}

static void test_counters_and_black_to_move_kept(void **state)
{
    (void)state;
    const char *fen = "3k5/4a4/9/9/2p6/9/6R2/9/4A4/4K4 b - - 12 34";
    xq_board b;
    parse_ok(fen, &b);
    assert_int_equal(b.side, BLACK);
    assert_int_equal(b.rule60, 12);
    assert_int_equal(b.fullmove, 34);
    roundtrip(fen, fen);
    roundtrip("3k5/4a4/9/9/2p6/9/6R2/9/4A4/4K4 b - - 65535 65535", "3k5/4a4/9/9/2p6/9/6R2/9/4A4/4K4 b - - 65535 65535");
}

static void test_whitespace_tolerated(void **state)
{
    (void)state;
    roundtrip("  rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR\tw  -  - 0 1 \n", START_FEN);
}

static void test_endgames_roundtrip(void **state)
{
    (void)state;
    static const char *const fens[] = {
        "4k4/9/9/9/9/9/9/9/9/3K1R3 w - - 0 1",
        "3ak4/4a4/4b4/9/9/9/9/9/4C4/3K5 b - - 3 40",
        "2bak4/4a4/4b4/9/2p3p2/P8/4N4/4B4/4A4/4KAB2 w - - 0 1",
        "5k3/9/9/9/9/9/9/9/9/3K5 w - - 0 1",
        "3k5/4P4/9/9/9/9/9/9/9/4K4 b - - 0 1",
    };
    for (size_t i = 0; i < sizeof fens / sizeof *fens; i++) roundtrip(fens[i], fens[i]);
}

static void test_fen_of_fixture_helper_agrees(void **state)
{
    (void)state;
    /* The movegen tests build FENs with fen_of; make sure it means what the
     * parser means. */
    xq_board b;
    parse_ok(fen_of("Kd0 Ra2 kf9 pc4", "b"), &b);
    assert_int_equal(b.sq[sq_of("d0")], make_piece(RED, KING));
    assert_int_equal(b.sq[sq_of("a2")], make_piece(RED, ROOK));
    assert_int_equal(b.sq[sq_of("f9")], make_piece(BLACK, KING));
    assert_int_equal(b.sq[sq_of("c4")], make_piece(BLACK, PAWN));
    assert_int_equal(b.side, BLACK);
    assert_int_equal(mask_count(b.occ[RED] | b.occ[BLACK]), 4);
}

/* ---- Validation, one rule per test -------------------------------------- */

static void test_err_malformed_syntax(void **state)
{
    (void)state;
    assert_fen_error("", "empty FEN");
    assert_fen_error("   ", "empty FEN");
    assert_fen_error("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR", "missing side to move");
    assert_fen_error("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1 9", "too many fields");
    xq_board b;
    char err[XQ_ERR_MAX] = "";
    assert_int_equal(xq_fen_parse(NULL, &b, err), -1);
    assert_non_null(strstr(err, "empty FEN"));
}

static void test_err_rank_count(void **state)
{
    (void)state;
    assert_fen_error("rnbakabnr/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w", "9 ranks, not 10");
    assert_fen_error("rnbakabnr/9/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w", "more than 10 ranks");
    assert_fen_error("rnbakabnr w", "1 ranks, not 10");
    assert_fen_error("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR/ w", "more than 10 ranks");
}

static void test_err_file_count(void **state)
{
    (void)state;
    assert_fen_error("rnbakabn/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w", "rank 9 has 8 files, not 9");
    assert_fen_error("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABN w", "rank 0 has 8 files, not 9");
    assert_fen_error("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNRR w", "rank 0 has more than 9 files");
    assert_fen_error("rnbakabnr/9/1c5c2/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w", "rank 7 has more than 9 files");
    assert_fen_error("rnbakabnr//1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w", "rank 8 has 0 files");
}

static void test_err_two_digits_in_a_row(void **state)
{
    (void)state;
    assert_fen_error("rnbakabnr/45/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w", "two digits in a row in rank 8");
    assert_fen_error("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKAB11 w", "two digits in a row in rank 0");
}

static void test_err_unknown_letter(void **state)
{
    (void)state;
    assert_fen_error("rnbakabnx/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w", "unknown piece letter 'x'");
    assert_fen_error("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNQ w", "unknown piece letter 'Q'");
    assert_fen_error("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABN0 w", "unknown piece letter '0'");
    assert_fen_error("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABN* w", "unknown piece letter '*'");
    /* Bytes that would garble a terminal line are named by value. */
    assert_fen_error("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABN\x01 w",
                     "unexpected byte 0x01 in rank 0");
    assert_fen_error("rnbakabnr/9/\xf0"
                     "9/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w",
                     "unexpected byte 0xf0 in rank 7");
}

static void test_err_missing_king(void **state)
{
    (void)state;
    assert_fen_error("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBA1ABNR w", "red has no king");
    assert_fen_error("rnba1abnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w", "black has no king");
    assert_fen_error("9/9/9/9/9/9/9/9/9/9 w", "no king");
}

static void test_err_extra_king(void **state)
{
    (void)state;
    assert_fen_error("rnbakabnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w", "black has more than one king");
    assert_fen_error("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBAKABNR w", "red has more than one king");
}

static void test_err_too_many_of_a_kind(void **state)
{
    (void)state;
    assert_fen_error(fen_of("Ke0 Ad0 Af0 Ae1 kd9", "w"), "red has 3 advisors; at most 2");
    assert_fen_error(fen_of("Ke0 Bc0 Bg0 Be2 kd9", "w"), "red has 3 elephants; at most 2");
    assert_fen_error(fen_of("Ke0 Na5 Nb5 Nc5 kd9", "w"), "red has 3 horses; at most 2");
    assert_fen_error(fen_of("Ke0 Ra5 Rb5 Rc5 kd9", "w"), "red has 3 rooks; at most 2");
    assert_fen_error(fen_of("Ke0 Ca5 Cb5 Cc5 kd9", "w"), "red has 3 cannons; at most 2");
    assert_fen_error(fen_of("Kd0 ke9 pa6 pc6 pe6 pg6 pi6 pa3", "w"), "black has 6 pawns; at most 5");
    assert_fen_error(fen_of("Kd0 ke9 ra4 rb4 rc4", "w"), "black has 3 rooks; at most 2");
    /* The limits themselves are allowed. */
    xq_board b;
    parse_ok(fen_of("Ke0 Ad0 Af0 Bc0 Bg0 Na5 Nb5 Ra4 Rb4 Ca6 Cb6 Pa3 Pc3 Pe3 Pg3 Pi3 kd9", "w"), &b);
    parse_ok(START_FEN, &b);
}

static void test_err_king_outside_palace(void **state)
{
    (void)state;
    assert_fen_error(fen_of("Kd3 ke9", "w"), "red king on d3");
    assert_fen_error(fen_of("Kc0 ke9", "w"), "red king on c0");
    assert_fen_error(fen_of("Kd0 kf6", "w"), "black king on f6");
    assert_fen_error(fen_of("Kd0 kg9", "w"), "black king on g9");
}

static void test_err_advisor_outside_palace(void **state)
{
    (void)state;
    assert_fen_error(fen_of("Ke0 Ac0 kd9", "w"), "red advisor on c0");
    assert_fen_error(fen_of("Ke0 Ae3 kd9", "w"), "red advisor on e3");
    /* Inside the palace but not one of the advisor's 5 points. */
    assert_fen_error(fen_of("Kd0 Ae0 kf9", "w"), "red advisor on e0");
    assert_fen_error(fen_of("Kd0 Ad1 kf9", "w"), "red advisor on d1");
    assert_fen_error(fen_of("Kd0 kf9 ae9", "w"), "black advisor on e9");
    assert_fen_error(fen_of("Kd0 kf9 ad5", "w"), "black advisor on d5");
}

static void test_err_elephant_off_its_points(void **state)
{
    (void)state;
    assert_fen_error(fen_of("Kd0 Bd2 ke9", "w"), "red elephant on d2");
    assert_fen_error(fen_of("Kd0 Be4 ke9", "w"), "red elephant on e4");
    assert_fen_error(fen_of("Kd0 Bc5 ke9", "w"), "red elephant on c5"); /* across the river */
    assert_fen_error(fen_of("Kd0 ke9 be5", "w"), "black elephant on e5");
    assert_fen_error(fen_of("Kd0 ke9 bc4", "w"), "black elephant on c4"); /* across the river */
    /* All seven points of each side are fine. */
    xq_board b;
    parse_ok(fen_of("Kd0 Ba2 Bc0 ke9", "w"), &b);
    parse_ok(fen_of("Kd0 Bc4 Be2 ke9", "w"), &b);
    parse_ok(fen_of("Kd0 Bg0 Bg4 ke9", "w"), &b);
    parse_ok(fen_of("Kd0 Bi2 ke9 ba7 bc9", "w"), &b);
    parse_ok(fen_of("Kd0 ke9 bc5 be7", "w"), &b);
    parse_ok(fen_of("Kd0 ke9 bg9 bg5", "w"), &b);
    parse_ok(fen_of("Kd0 ke8 bi7", "w"), &b);
}

static void test_err_pawn_behind_start(void **state)
{
    (void)state;
    assert_fen_error(fen_of("Kd0 Pa2 ke9", "w"), "red pawn on a2");
    assert_fen_error(fen_of("Kf0 Pe0 kd9", "w"), "red pawn on e0");
    assert_fen_error(fen_of("Kd0 ke9 pa7", "w"), "black pawn on a7");
    assert_fen_error(fen_of("Kd0 kf9 pc9", "w"), "black pawn on c9");
}

static void test_err_pawn_off_file_before_river(void **state)
{
    (void)state;
    assert_fen_error(fen_of("Kd0 Pb3 ke9", "w"), "red pawn on b3");
    assert_fen_error(fen_of("Kd0 Ph4 ke9", "w"), "red pawn on h4");
    assert_fen_error(fen_of("Kd0 ke9 pd5", "w"), "black pawn on d5");
    assert_fen_error(fen_of("Kd0 ke9 pf6", "w"), "black pawn on f6");
    /* After crossing, any file. */
    xq_board b;
    parse_ok(fen_of("Kd0 Pb5 Ph9 ke8 pd4 pf0", "w"), &b);
}

static void test_err_kings_facing(void **state)
{
    (void)state;
    assert_fen_error(fen_of("Ke0 ke9", "w"), "kings face each other");
    assert_fen_error(fen_of("Kd2 kd7", "b"), "kings face each other");
    /* One piece in between is enough. */
    xq_board b;
    parse_ok(fen_of("Ke0 Ne4 ke9", "w"), &b);
}

static void test_err_side_not_to_move_in_check(void **state)
{
    (void)state;
    assert_fen_error(fen_of("Kd0 Re5 ke9", "w"), "black is in check but it is red to move");
    assert_fen_error(fen_of("Kd0 Ce2 Ne5 ke9", "w"), "black is in check"); /* cannon over a screen */
    assert_fen_error(fen_of("Kd0 ke9 ne2", "b"), "red is in check but it is black to move");
    /* The side to move may be in check. */
    xq_board b;
    parse_ok(fen_of("Kd0 Re5 ke9", "b"), &b);
    parse_ok(fen_of("Kd0 ke9 ne2", "w"), &b);
    parse_ok(fen_of("Kd0 ke9 nc1", "b"), &b); /* c1 does not reach d0 */
}

static void test_err_bad_side_field(void **state)
{
    (void)state;
    assert_fen_error("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR x - - 0 1", "side to move must be");
    assert_fen_error("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR wb - - 0 1", "not 'wb'");
    assert_fen_error("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR W - - 0 1", "side to move must be");
    assert_fen_error("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR \x1b[2J - - 0 1", "not '?[2J'");
}

static void test_err_bad_counters(void **state)
{
    (void)state;
    const char *p = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w";
    char fen[200];
    snprintf(fen, sizeof fen, "%s - - x 1", p);
    assert_fen_error(fen, "bad move counter 'x'");
    snprintf(fen, sizeof fen, "%s - - -1 1", p);
    assert_fen_error(fen, "bad move counter");
    snprintf(fen, sizeof fen, "%s - - 65536 1", p);
    assert_fen_error(fen, "bad move counter");
    snprintf(fen, sizeof fen, "%s - - 0 0", p);
    assert_fen_error(fen, "bad move number '0'");
    snprintf(fen, sizeof fen, "%s - - 0 1x", p);
    assert_fen_error(fen, "bad move number");
    snprintf(fen, sizeof fen, "%s - - 0 99999999999", p);
    assert_fen_error(fen, "bad move number '99999999...'"); /* cut short, and marked so */
    snprintf(fen, sizeof fen, "%s - - 0 99999999", p);
    assert_fen_error(fen, "bad move number '99999999'"); /* eight characters: whole */
    snprintf(fen, sizeof fen, "%s K - 0 1", p);
    assert_fen_error(fen, "field 3 must be '-'");
    snprintf(fen, sizeof fen, "%s - e3 0 1", p);
    assert_fen_error(fen, "field 4 must be '-'");
}

/* A rejected FEN must come back as one line of printable ASCII, whatever
 * bytes the input held: it is printed verbatim by the CLI and by callers of
 * the library. */
static void test_errors_are_one_line(void **state)
{
    (void)state;
    static const char *const bad[] = {"",
                                      "x",
                                      "9/9/9/9/9/9/9/9/9/9 w",
                                      "rnbakabnr w",
                                      "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR\n\n\x01 - - 0 1",
                                      "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 \v",
                                      "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w \x7f - 0 1",
                                      "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABN\xe5 w"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        xq_board b;
        char err[XQ_ERR_MAX] = "";
        assert_int_equal(xq_fen_parse(bad[i], &b, err), -1);
        assert_true(strlen(err) > 0);
        for (const char *c = err; *c; c++) assert_true(*c >= 0x20 && *c < 0x7f);
    }
}

/* ---- The public wrapper ------------------------------------------------- */

static void test_public_position_from_fen(void **state)
{
    (void)state;
    xqtb_position pos;
    char err[XQTB_ERR_MAX] = "", out[XQTB_FEN_MAX];
    assert_int_equal(xqtb_position_from_fen(START_FEN, &pos, err), XQTB_OK);
    assert_int_equal(pos.board[sq_of("e0")], 1);
    assert_int_equal(pos.board[sq_of("e9")], -1);
    assert_int_equal(pos.board[sq_of("a0")], 5);
    assert_int_equal(pos.board[sq_of("a6")], -7);
    assert_int_equal(pos.side, XQTB_RED);
    assert_int_equal(xqtb_position_to_fen(&pos, out), XQTB_OK);
    assert_string_equal(out, START_FEN);
    assert_int_equal(xqtb_position_from_fen(fen_of("Ke0 ke9", "w"), &pos, err), XQTB_ERR_INVALID);
    assert_non_null(strstr(err, "kings face"));
    assert_int_equal(xqtb_position_from_fen("garbage", &pos, NULL), XQTB_ERR_INVALID);
    /* A hand-edited position goes through the same validation. */
    assert_int_equal(xqtb_position_from_fen(START_FEN, &pos, err), XQTB_OK);
    pos.board[sq_of("e4")] = 1;
    assert_int_equal(xqtb_position_validate(&pos, err), XQTB_ERR_INVALID);
    assert_non_null(strstr(err, "more than one king"));
    assert_int_equal(xqtb_position_to_fen(&pos, out), XQTB_ERR_INVALID);
}

/* NULL for any pointer argument is refused the way xqtb.h says, never
 * dereferenced: xqtb_position_from_fen(fen, NULL, err) used to crash. */
static void test_public_null_arguments(void **state)
{
    (void)state;
    xqtb_position pos;
    char err[XQTB_ERR_MAX] = "", out[XQTB_FEN_MAX] = "untouched";
    assert_int_equal(xqtb_position_from_fen(START_FEN, NULL, err), XQTB_ERR_INVALID);
    assert_string_equal(err, "null position");
    assert_int_equal(xqtb_position_from_fen(START_FEN, NULL, NULL), XQTB_ERR_INVALID);
    strcpy(err, "");
    assert_int_equal(xqtb_position_from_fen(NULL, &pos, err), XQTB_ERR_INVALID);
    assert_string_equal(err, "null FEN");
    assert_int_equal(xqtb_position_from_fen(NULL, NULL, NULL), XQTB_ERR_INVALID);
    strcpy(err, "");
    assert_int_equal(xqtb_position_validate(NULL, err), XQTB_ERR_INVALID);
    assert_string_equal(err, "null position");
    assert_int_equal(xqtb_position_validate(NULL, NULL), XQTB_ERR_INVALID);

    assert_int_equal(xqtb_position_from_fen(START_FEN, &pos, err), XQTB_OK);
    assert_int_equal(xqtb_position_to_fen(NULL, out), XQTB_ERR_INVALID);
    assert_string_equal(out, "untouched");
    assert_int_equal(xqtb_position_to_fen(&pos, NULL), XQTB_ERR_INVALID);
    uint16_t moves[XQTB_MAX_MOVES];
    assert_int_equal(xqtb_legal_moves(NULL, moves), XQTB_ERR_INVALID);
    assert_int_equal(xqtb_legal_moves(&pos, NULL), XQTB_ERR_INVALID);
    uint16_t h2e2 = xqtb_move_parse("h2e2");
    assert_int_not_equal(h2e2, 0);
    assert_int_equal(xqtb_play(NULL, h2e2), XQTB_ERR_INVALID);
    xqtb_move_name(h2e2, NULL); /* writes nothing, and does not crash */
    assert_int_equal(xqtb_move_parse(NULL), 0);
    assert_int_equal(xqtb_perft(NULL, 1), 0);
    /* a depth past the bound is refused before it recurses: 40,000 plies
     * overflowed the stack before the bound */
    xqtb_position sparse;
    assert_int_equal(xqtb_position_from_fen("5k3/9/9/9/9/9/9/9/4R4/3K5 w - - 0 1", &sparse, NULL), XQTB_OK);
    assert_int_not_equal(xqtb_perft(&sparse, 2), 0);
    assert_int_equal(xqtb_perft(&sparse, XQTB_PERFT_MAX_DEPTH + 1), 0);
    assert_int_equal(xqtb_perft(&sparse, 40000), 0);
    assert_int_equal(xqtb_perft(&sparse, INT_MAX), 0);
    char name[40] = "untouched";
    assert_int_equal(xqtb_material_name(NULL, name), XQTB_ERR_INVALID);
    assert_string_equal(name, "untouched");
    assert_int_equal(xqtb_material_name(&pos, NULL), XQTB_ERR_INVALID);
    /* and pos itself is still the start position: nothing wrote into it */
    assert_int_equal(xqtb_position_to_fen(&pos, out), XQTB_OK);
    assert_string_equal(out, START_FEN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_start_position_roundtrip),
        cmocka_unit_test(test_start_position_contents),
        cmocka_unit_test(test_r_accepted_for_red),
        cmocka_unit_test(test_h_and_e_letters_accepted),
        cmocka_unit_test(test_missing_counters_default),
        cmocka_unit_test(test_counters_and_black_to_move_kept),
        cmocka_unit_test(test_whitespace_tolerated),
        cmocka_unit_test(test_endgames_roundtrip),
        cmocka_unit_test(test_fen_of_fixture_helper_agrees),
        cmocka_unit_test(test_err_malformed_syntax),
        cmocka_unit_test(test_err_rank_count),
        cmocka_unit_test(test_err_file_count),
        cmocka_unit_test(test_err_two_digits_in_a_row),
        cmocka_unit_test(test_err_unknown_letter),
        cmocka_unit_test(test_err_missing_king),
        cmocka_unit_test(test_err_extra_king),
        cmocka_unit_test(test_err_too_many_of_a_kind),
        cmocka_unit_test(test_err_king_outside_palace),
        cmocka_unit_test(test_err_advisor_outside_palace),
        cmocka_unit_test(test_err_elephant_off_its_points),
        cmocka_unit_test(test_err_pawn_behind_start),
        cmocka_unit_test(test_err_pawn_off_file_before_river),
        cmocka_unit_test(test_err_kings_facing),
        cmocka_unit_test(test_err_side_not_to_move_in_check),
        cmocka_unit_test(test_err_bad_side_field),
        cmocka_unit_test(test_err_bad_counters),
        cmocka_unit_test(test_errors_are_one_line),
        cmocka_unit_test(test_public_position_from_fen),
        cmocka_unit_test(test_public_null_arguments),
    };
    return cmocka_run_group_tests_name("fen", tests, NULL, NULL);
}
