/*
 * test_verdict.c - the library's repetition verdicts (xqtb_judge_repetition,
 * xqtb_label_move; core/verdict.c) on hand-built records under each rule
 * set, and against the independent adjudicator (tests/ref/adjudicator.c,
 * with its own move labels) on many random games that repeat.
 */
#include "testutil.h"

#include "adjudicator.h"
#include "ref_labels.h"
#include "xqtb.h"

static void to_position(const xq_board *b, xqtb_position *p)
{
    for (int s = 0; s < XQ_SQUARES; s++) {
        xq_piece q = b->sq[s];
        p->board[s] = q == EMPTY ? 0 : (int8_t)(colour_of(q) == RED ? kind_of(q) : -kind_of(q));
    }
    p->side = b->side;
}

/* Judges FEN + moves (ICCS, space-separated) under `rules`. */
static xqtb_repetition judge(const char *fen, const char *moves, xqtb_rule_set rules)
{
    xqtb_position p;
    if (xqtb_position_from_fen(fen, &p, NULL) != XQTB_OK) fail_msg("bad fixture FEN %s", fen);
    uint16_t mv[64];
    int n = 0;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", moves);
    for (char *t = strtok(buf, " "); t && n < 64; t = strtok(NULL, " ")) mv[n++] = xqtb_move_parse(t);
    xqtb_repetition r;
    if (xqtb_judge_repetition(&p, mv, n, rules, &r) != XQTB_OK) fail_msg("%s [%s]: refused", fen, moves);
    return r;
}

static void expect(const char *fen, const char *moves, const xqtb_verdict want[3])
{
    for (int rules = XQTB_RULES_NONE; rules <= XQTB_RULES_FULL; rules++) {
        xqtb_repetition r = judge(fen, moves, (xqtb_rule_set)rules);
        if (r.verdict != want[rules])
            fail_msg("%s [%s] under rule set %d: verdict %d, expected %d", fen, moves, rules, r.verdict, want[rules]);
        if ((r.verdict == XQTB_RED_LOSES || r.verdict == XQTB_BLACK_LOSES) != (r.by_rule != XQTB_BY_NONE))
            fail_msg("%s [%s]: a loss needs its ruling, a draw none", fen, moves);
    }
}

static const xqtb_verdict DRAW3[3] = {XQTB_REPETITION_DRAW, XQTB_REPETITION_DRAW, XQTB_REPETITION_DRAW};

/* Red's rook checks along the e- and f-files, black's king steps across. */
static const char PERPETUAL_CHECK[] = "9/9/5k3/9/9/9/9/9/9/3KR4 w - - 0 1";

static void test_perpetual_check(void **state)
{
    (void)state;
    const xqtb_verdict red_loses[3] = {XQTB_REPETITION_DRAW, XQTB_RED_LOSES, XQTB_RED_LOSES};
    expect(PERPETUAL_CHECK, "e0f0 f7e7 f0e0 e7f7", red_loses);
    expect(PERPETUAL_CHECK, "e0f0 f7e7 f0e0 e7f7 e0f0 f7e7 f0e0 e7f7", red_loses);
    expect(PERPETUAL_CHECK, "e0f0 f7e7 f0e0 e7f7 e0f0", red_loses); /* from black's side */
    xqtb_repetition r = judge(PERPETUAL_CHECK, "e0f0 f7e7 f0e0 e7f7 e0f0 f7e7 f0e0 e7f7", XQTB_RULES_FULL);
    assert_int_equal(r.by_rule, XQTB_BY_PERPETUAL_CHECK);
    assert_int_equal(r.first, 0);
    assert_int_equal(r.occurrences, 3);
    assert_true(r.checks_all[XQTB_RED]);
    assert_false(r.checks_all[XQTB_BLACK]);
}

/* The whole repeating part is judged, not its last cycle: two idle
 * cycles of red's king, then one of checks, all back to the start. */
static void test_whole_repeating_part(void **state)
{
    (void)state;
    expect(PERPETUAL_CHECK, "d0d1 f7f8 d1d0 f8f7 e0f0 f7e7 f0e0 e7f7", DRAW3);
    /* ... which the independent adjudicator agrees with */
    const char *mv[] = {"d0d1", "f7f8", "d1d0", "f8f7", "e0f0", "f7e7", "f0e0", "e7f7"};
    xq_board b;
    parse_ok(PERPETUAL_CHECK, &b);
    assert_int_equal(adj_judge(&b, mv, 8, NULL), ADJ_DRAW);
    xqtb_repetition r = judge(PERPETUAL_CHECK, "d0d1 f7f8 d1d0 f8f7 e0f0 f7e7 f0e0 e7f7", XQTB_RULES_FULL);
    assert_int_equal(r.first, 0);
    assert_int_equal(r.occurrences, 3);
}

/* Both sides check on every move: black's rook uncovers its cannon, red's
 * cannon checks through black's rook, and back. */
static void test_mutual_check_draws(void **state)
{
    (void)state;
    expect("9/9/4k4/5c3/9/5r3/9/5C3/4R4/5K3 b - - 0 1", "f4e4 f2e2 e4f4 e2f2", DRAW3);
}

/* Red's rook chases black's lone horse, which hops between d1 and b0. */
static const char CHASE[] = "9/9/4k4/9/9/9/9/9/3n5/R2K5 w - - 0 1";

static void test_perpetual_chase(void **state)
{
    (void)state;
    const xqtb_verdict want[3] = {XQTB_REPETITION_DRAW, XQTB_REPETITION_DRAW, XQTB_RED_LOSES};
    expect(CHASE, "a0a1 d1b0 a1a0 b0d1", want);
    xqtb_repetition r = judge(CHASE, "a0a1 d1b0 a1a0 b0d1", XQTB_RULES_FULL);
    assert_int_equal(r.by_rule, XQTB_BY_PERPETUAL_CHASE);
    assert_true(r.chases_all[XQTB_RED]);
    /* the label behind it */
    xqtb_position p;
    assert_int_equal(xqtb_position_from_fen(CHASE, &p, NULL), XQTB_OK);
    xqtb_label l;
    assert_int_equal(xqtb_label_move(&p, xqtb_move_parse("a0a1"), &l), XQTB_OK);
    assert_int_equal(l.check, 0);
    assert_int_equal(l.nchased, 1);
    assert_int_equal(l.chased[0], 1 * 9 + 3); /* d1 */
}

/* A label's chased squares come ascending under every rule set: here the
 * rook's return to f4 chases the cannon on f1 and the horse on f6, which
 * cxa (counting chases made real) finds in another order than full. */
static void test_chases_ascending(void **state)
{
    (void)state;
    xqtb_position p;
    assert_int_equal(xqtb_position_from_fen("9/9/4k4/5H3/9/5r3/9/5C3/4r4/5K3 b - - 0 1", &p, NULL), XQTB_OK);
    assert_int_equal(xqtb_play(&p, xqtb_move_parse("f4e4")), XQTB_OK);
    assert_int_equal(xqtb_play(&p, xqtb_move_parse("f2f1")), XQTB_OK);
    for (int rules = XQTB_RULES_NONE; rules <= XQTB_RULES_CXA; rules++) {
        xqtb_label l;
        assert_int_equal(xqtb_label_move_rules(&p, xqtb_move_parse("e4f4"), (xqtb_rule_set)rules, &l, NULL), XQTB_OK);
        assert_int_equal(l.nchased, 2);
        assert_int_equal(l.chased[0], 1 * 9 + 5); /* f1 */
        assert_int_equal(l.chased[1], 6 * 9 + 5); /* f6 */
    }
}

/* One check, one idle move in turn; a protected piece attacked. */
static void test_draws(void **state)
{
    (void)state;
    expect("9/9/4k4/9/9/9/9/9/9/R2K5 w - - 0 1", "a0a7 e7e8 a7a0 e8e7", DRAW3);
    expect("9/5k3/3a1n3/9/9/9/9/9/9/3KR4 w - - 0 1", "e0f0 d7e8 f0e0 e8d7", DRAW3);
}

static void test_bad_input(void **state)
{
    (void)state;
    xqtb_position p;
    xqtb_repetition r;
    xqtb_label l0;
    assert_int_equal(xqtb_position_from_fen(PERPETUAL_CHECK, &p, NULL), XQTB_OK);
    assert_int_equal(xqtb_judge_repetition(&p, NULL, 0, XQTB_RULES_FULL, &r), XQTB_OK);
    assert_int_equal(r.verdict, XQTB_NO_REPETITION);
    assert_int_equal(r.first, -1);
    assert_int_equal(judge(PERPETUAL_CHECK, "e0f0 f7e7 f0e0", XQTB_RULES_FULL).verdict, XQTB_NO_REPETITION);
    uint16_t illegal[] = {xqtb_move_parse("e0f0"), xqtb_move_parse("f7f8")};
    assert_int_equal(xqtb_judge_repetition(&p, illegal, 2, XQTB_RULES_FULL, &r), XQTB_ERR_INVALID);
    uint16_t garbage[] = {0xFFFF};
    assert_int_equal(xqtb_judge_repetition(&p, garbage, 1, XQTB_RULES_FULL, &r), XQTB_ERR_INVALID);
    assert_int_equal(xqtb_judge_repetition(&p, NULL, 1, XQTB_RULES_FULL, &r), XQTB_ERR_INVALID);
    assert_int_equal(xqtb_judge_repetition(&p, illegal, -1, XQTB_RULES_FULL, &r), XQTB_ERR_INVALID);
    assert_int_equal(xqtb_judge_repetition(&p, NULL, 0, (xqtb_rule_set)5, &r), XQTB_ERR_INVALID);
    assert_int_equal(xqtb_judge_repetition(&p, NULL, 0, (xqtb_rule_set)-1, &r), XQTB_ERR_INVALID);
    assert_int_equal(xqtb_label_move_rules(&p, xqtb_move_parse("e0f0"), (xqtb_rule_set)5, &l0, NULL), XQTB_ERR_INVALID);
    assert_int_equal(xqtb_judge_repetition(&p, NULL, 0, XQTB_RULES_FULL, NULL), XQTB_ERR_INVALID);
    assert_int_equal(xqtb_judge_repetition(NULL, NULL, 0, XQTB_RULES_FULL, &r), XQTB_ERR_INVALID);
    xqtb_label l;
    assert_int_equal(xqtb_label_move(&p, xqtb_move_parse("e0f1"), &l), XQTB_ERR_INVALID); /* not a rook move */
    assert_int_equal(xqtb_label_move(&p, 0, &l), XQTB_ERR_INVALID);
    assert_int_equal(xqtb_label_move(&p, xqtb_move_parse("e0f0"), NULL), XQTB_ERR_INVALID);
    assert_int_equal(xqtb_label_move(NULL, xqtb_move_parse("e0f0"), &l), XQTB_ERR_INVALID);
}

/* ---- random games that repeat, judged by both adjudicators */

static uint64_t rng_state = 0x9E3779B97F4A7C15u;
static uint32_t next_random(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

/* What the random games saw: verdicts under full, losses by perpetual
 * chase, and verdicts under asian and cxa that differ from full's. */
typedef struct {
    int seen[4], chases, asian_differs, cxa_differs, cxa_threat;
} game_tally;

/* Both adjudicators' verdicts on the game so far under every rule set;
 * fails on a difference. */
static void judge_all(const char *fen, const xqtb_position *start, const uint16_t *mv, const char *const *namep, int n,
                      game_tally *t)
{
    xqtb_verdict under[XQTB_RULES_CXA + 1];
    for (int rules = XQTB_RULES_NONE; rules <= XQTB_RULES_CXA; rules++) {
        xqtb_repetition got;
        assert_int_equal(xqtb_judge_repetition(start, mv, n, (xqtb_rule_set)rules, &got), XQTB_OK);
        xq_board s;
        parse_ok(fen, &s);
        adj_result ref = adj_judge_as(&s, namep, n, rules, NULL);
        static const xqtb_verdict of_ref[] = {XQTB_NO_REPETITION, XQTB_REPETITION_DRAW, XQTB_RED_LOSES,
                                              XQTB_BLACK_LOSES};
        if (ref > ADJ_BLACK_LOSES) fail_msg("the reference adjudicator refused a legal game");
        if (got.verdict != of_ref[ref]) {
            char line[256 * 5 + 1] = "";
            for (int i = 0; i < n; i++) {
                strcat(line, namep[i]);
                strcat(line, " ");
            }
            fail_msg("%s [%s] rules %d: library verdict %d, reference %s", fen, line, rules, got.verdict,
                     adj_result_name(ref));
        }
        under[rules] = got.verdict;
        if (rules == XQTB_RULES_FULL) {
            t->seen[got.verdict]++;
            t->chases += got.by_rule == XQTB_BY_PERPETUAL_CHASE;
        }
        if (rules == XQTB_RULES_CXA)
            t->cxa_threat += got.by_rule == XQTB_BY_PERPETUAL_THREAT || got.by_rule == XQTB_BY_PERPETUAL_ATTACK;
    }
    t->asian_differs += under[XQTB_RULES_ASIAN] != under[XQTB_RULES_FULL];
    t->cxa_differs += under[XQTB_RULES_CXA] != under[XQTB_RULES_FULL];
}

/* Plays one random game from fen: a side often steps back to where its
 * last move came from (so positions repeat), often checks or chases, never
 * captures (a capture could not be part of a repetition anyway).  Every
 * time the final position stood before, both adjudicators judge the game
 * so far under every rule set. */
static void random_game(const char *fen, int plies, game_tally *t)
{
    xq_board b;
    parse_ok(fen, &b);
    xqtb_position start;
    to_position(&b, &start);
    uint16_t mv[256];
    char names[256][5];
    const char *namep[256];
    for (int n = 0; n < plies && n < 256;) {
        xq_move list[XQ_MAX_MOVES], quiet[XQ_MAX_MOVES], checks[XQ_MAX_MOVES], chasing[XQ_MAX_MOVES],
            both[XQ_MAX_MOVES];
        int k = xq_gen_legal(&b, list), nq = 0, nc = 0, nch = 0, nb = 0;
        xq_move back = MOVE_NONE;
        for (int i = 0; i < k; i++) {
            if (b.sq[move_to(list[i])] != EMPTY) continue;
            quiet[nq++] = list[i];
            xq_board a = b;
            xq_undo u;
            xq_make_move(&a, list[i], &u);
            if (xq_in_check(&a, a.side)) checks[nc++] = list[i];
            ref_label l;
            ref_label_move_as(&b, list[i], true, &l); /* a check that chases counts too */
            if (l.nchased) chasing[nch++] = list[i];
            if (l.nchased && l.check) both[nb++] = list[i];
            if (n >= 2 && list[i] == make_move(move_to(mv[n - 2]), move_from(mv[n - 2]))) back = list[i];
        }
        if (nq == 0) return;
        uint32_t r = next_random() % 10;
        xq_move m = back && r < 4  ? back
                    : nb && r < 5  ? both[next_random() % (uint32_t)nb] /* the asian rule set's case */
                    : nc && r < 6  ? checks[next_random() % (uint32_t)nc]
                    : nch && r < 9 ? chasing[next_random() % (uint32_t)nch]
                                   : quiet[next_random() % (uint32_t)nq];
        xq_undo u;
        xq_make_move(&b, m, &u);
        mv[n] = m;
        xq_move_name(m, names[n]);
        namep[n] = names[n];
        n++;
        judge_all(fen, &start, mv, namep, n, t);
    }
}

static void test_random_games_agree(void **state)
{
    (void)state;
    static const char *const fens[] = {
        "9/9/5k3/9/9/9/9/9/9/3KR4 w - - 0 1",               /* KRK */
        "3k5/4a4/9/9/2n6/9/9/4C4/9/4KR3 w - - 0 1",         /* rook and cannon against horse */
        "4k4/4a4/4b4/9/2r6/6N2/9/2C6/4A4/3K5 w - - 0 1",    /* chases on both sides */
        "2bak4/9/4b4/1r7/9/2R6/9/4B4/4A4/3AK1N2 b - - 0 1", /* rooks face each other */
        "4k4/9/9/2c6/9/9/9/2N6/9/3K5 w - - 0 1",            /* horse against cannon */
    };
    game_tally t = {0};
    for (int g = 0; g < 400; g++) random_game(fens[g % 5], 60, &t);
    print_message("verdicts under full: none %d, draw %d, red loses %d, black loses %d (%d by perpetual chase); "
                  "asian differs %d, cxa differs %d (%d with mate threats)\n",
                  t.seen[0], t.seen[1], t.seen[2], t.seen[3], t.chases, t.asian_differs, t.cxa_differs, t.cxa_threat);
    /* the games must exercise every verdict, both rulings, and the
     * arbiters' rule sets where they differ from full */
    for (int v = 0; v < 4; v++) assert_true(t.seen[v] > 20);
    assert_true(t.chases > 20);
    assert_true(t.asian_differs > 0);
    assert_true(t.cxa_differs > 20);
    assert_true(t.cxa_threat > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_perpetual_check),    cmocka_unit_test(test_whole_repeating_part),
        cmocka_unit_test(test_mutual_check_draws), cmocka_unit_test(test_perpetual_chase),
        cmocka_unit_test(test_chases_ascending),   cmocka_unit_test(test_draws),
        cmocka_unit_test(test_bad_input),          cmocka_unit_test(test_random_games_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
