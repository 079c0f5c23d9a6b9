/*
 * test_playout.c - the tables' wins played out against defences, with every
 * repetition judged by the arbiter of tests/ref/adjudicator.c (written apart
 * from the generator, with its own move labels).
 *
 * From sampled positions the table calls won (ordinary wins and wins by a
 * ruling), the winner plays the library's best move (xqtb_probe_root: what
 * an engine would play, knowing nothing of the game's history) and the
 * loser plays every move in turn at the first plies and random ones after
 * that.  Each game must end:
 *   - in the loser having no legal move (mate or stalemate), for an
 *     ordinary win within the DTM the table states; or
 *   - for a win by a ruling, in a repeated position whose last cycle the
 *     arbiter rules lost for the loser (checking, or chasing, on every one
 *     of its moves while the winner does not; under the CXA rule set,
 *     attacking on every move while the winner does not);
 * and along the way the winner's moves must keep the win, and the order
 * of a ruled win must never grow (the order is the distance the table
 * states for such results: docs/RULES.md).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "adjudicator.h"
#include "cell.h"
#include "fen.h"
#include "movegen.h"
#include "tb.h"
#include "testenv.h"
#include "tmpdir.h"
#include "xqtb.h"

enum { MAX_PLIES = 400, BRANCH_PLIES = 2 };

typedef struct {
    xqtb_handle *h;
    xq_board start;
    int rules;  /* xq_rules the table was built under, and the arbiter judges by */
    int winner; /* colour */
    int ruled;  /* the start is a win by a ruling */
    int dtm;    /* ordinary win: plies stated by the table */
    uint64_t rng;
    int games, by_mate, by_repetition;
} playout;

static uint32_t next_random(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 33);
}

static void to_position(const xq_board *b, xqtb_position *p)
{
    char fen[XQ_FEN_MAX], err[XQTB_ERR_MAX];
    xq_fen_write(b, fen);
    if (xqtb_position_from_fen(fen, p, err) != XQTB_OK) fail_msg("%s: %s", fen, err);
}

static void fail_game(const playout *po, char names[][5], int n, const char *why)
{
    char fen[XQ_FEN_MAX], line[MAX_PLIES * 5 + 1] = "";
    xq_fen_write(&po->start, fen);
    for (int i = 0; i < n; i++) {
        strcat(line, " ");
        strcat(line, names[i]);
    }
    fail_msg("from %s (%s wins%s): %s after%s", fen, po->winner == RED ? "red" : "black",
             po->ruled ? " by a ruling" : "", why, line);
}

/* The loser's move after the first plies: mostly a random one among those
 * that resist longest in kind (a ruled loss, for a ruled win: keep
 * checking or chasing), sometimes any random move. */
static xq_move defence(playout *po, xq_board *b, const xq_move *list, int nmoves)
{
    if (next_random(&po->rng) % 8 == 0) return list[next_random(&po->rng) % (uint32_t)nmoves];
    xqtb_position p;
    xqtb_root_move root[XQTB_MAX_MOVES];
    to_position(b, &p);
    int k = xqtb_probe_root(po->h, &p, root);
    if (k <= 0) return list[0];
    int same = 1;
    while (same < k && root[same].wdl == root[0].wdl && root[same].by_rule == root[0].by_rule) same++;
    return root[next_random(&po->rng) % (uint32_t)same].move;
}

/* Plays the game on from board b after n plies (names[] so far). */
static void play_on(playout *po, xq_board *b, char names[][5], int n, int order)
{
    for (;;) {
        /* a repeated position ends the game: the arbiter rules */
        if (n > 0) {
            const char *mv[MAX_PLIES];
            for (int i = 0; i < n; i++) mv[i] = names[i];
            adj_result r = adj_judge_as(&po->start, mv, n, po->rules, NULL);
            if (r != ADJ_NO_REPETITION) {
                adj_result want = po->winner == RED ? ADJ_BLACK_LOSES : ADJ_RED_LOSES;
                if (r != want) fail_game(po, names, n, adj_result_name(r));
                if (!po->ruled) fail_game(po, names, n, "an ordinary win ended in a repetition");
                po->by_repetition++;
                po->games++;
                return;
            }
        }
        xq_move list[XQ_MAX_MOVES];
        int nmoves = xq_gen_legal(b, list);
        if (nmoves == 0) {
            if (b->side == po->winner) fail_game(po, names, n, "the winner has no legal move");
            if (!po->ruled && n > po->dtm) fail_game(po, names, n, "mate later than the table's DTM");
            po->by_mate++;
            po->games++;
            return;
        }
        if (n >= MAX_PLIES) fail_game(po, names, n, "no end within the ply limit");
        xq_move m;
        if (b->side == po->winner) {
            xqtb_position p;
            xqtb_root_move root[XQTB_MAX_MOVES];
            to_position(b, &p);
            int k = xqtb_probe_root(po->h, &p, root);
            if (k <= 0) fail_game(po, names, n, xqtb_status_string(k));
            if (root[0].wdl != XQTB_WIN) fail_game(po, names, n, "the best move no longer wins");
            if (root[0].by_rule) {
                if (order && root[0].order > order) fail_game(po, names, n, "the order of the win grew");
                order = root[0].order;
            }
            m = root[0].move;
        } else if (n < BRANCH_PLIES) {
            /* every defence at the first plies of the game */
            for (int i = 0; i < nmoves; i++) {
                xq_board c = *b;
                xq_undo u;
                xq_make_move(&c, list[i], &u);
                char(*copy)[5] = malloc(sizeof(char[MAX_PLIES + 1][5]));
                assert_non_null(copy);
                memcpy(copy, names, sizeof(char[5]) * (size_t)n);
                xqtb_move_name(list[i], copy[n]);
                play_on(po, &c, copy, n + 1, order);
                free(copy);
            }
            return;
        } else {
            m = defence(po, b, list, nmoves);
        }
        xqtb_move_name(m, names[n++]);
        xq_undo u;
        xq_make_move(b, m, &u);
    }
}

static void play_from(playout *po, const xq_board *start, int ruled, int dtm)
{
    po->start = *start;
    po->winner = start->side;
    po->ruled = ruled;
    po->dtm = dtm;
    char(*names)[5] = malloc(sizeof(char[MAX_PLIES + 1][5]));
    assert_non_null(names);
    xq_board b = *start;
    play_on(po, &b, names, 0, 0);
    free(names);
}

/* Which wins to sample: every kind, or only those the chase ruling decides. */
enum { ALL_WINS = 0, CHASE_WINS = 1 };

/* Generates `name` under `rules` (full, asian or cxa) and plays out `samples`
 * ordinary and `samples` ruled wins spread over the table.  Returns the
 * ruled wins played. */
static int playout_table(const char *name, int rules, int samples, int which)
{
    char dir[512], err[XQ_ERR_MAX];
    snprintf(dir, sizeof dir, "%s/%s-%s", test_tmpdir(), name, xq_rules_name(rules));
    xq_material m;
    assert_int_equal(xq_material_parse(name, &m, err), 0);
    tb_gen_options opt = {.dir = dir, .threads = 2, .quiet = 1, .rules = rules};
    if (tb_generate(&m, &opt, err)) fail_msg("%s", err);
    tb_set *set = tb_set_new(dir);
    tb_table *t = tb_set_get(set, &m, err);
    if (!t) fail_msg("%s", err);
    int st;
    playout po = {.h = xqtb_open(dir, NULL, &st), .rules = rules, .rng = 12345};
    assert_non_null(po.h);

    /* Count the wins of each kind, then take every k-th. */
    uint64_t count[2] = {0, 0};
    for (int s = 0; s < 2; s++)
        for (uint64_t i = 0; i < t->ix.size; i++) {
            unsigned v = cell_get(t->cells[s], t->width, i), r = tb_ruled(t, s, i);
            count[0] += cell_is_win(v) && v > 0;
            count[1] += r != RULED_NONE && ruled_is_win(r) && (which == ALL_WINS || ruled_by_chase(r));
        }
    int played[2] = {0, 0};
    for (int kind = which == CHASE_WINS; kind < 2; kind++) {
        uint64_t step = count[kind] / (uint64_t)samples + 1, seen = 0;
        for (int s = 0; s < 2; s++)
            for (uint64_t i = 0; i < t->ix.size && played[kind] < samples; i++) {
                unsigned v = cell_get(t->cells[s], t->width, i), r = tb_ruled(t, s, i);
                int is = kind ? r != RULED_NONE && ruled_is_win(r) && (which == ALL_WINS || ruled_by_chase(r))
                              : cell_is_win(v) && v > 0;
                if (!is || seen++ % step) continue;
                xq_board b;
                xq_index_decode(&t->ix, i, &b);
                b.side = (uint8_t)s;
                play_from(&po, &b, kind, (int)v);
                played[kind]++;
            }
    }
    print_message("%s (rules %s): %d ordinary and %d ruled wins played out, %d games (%d mates, %d judged "
                  "repetitions)\n",
                  name, xq_rules_name(rules), played[0], played[1], po.games, po.by_mate, po.by_repetition);
    xqtb_close(po.h);
    tb_set_free(set);
    return played[1];
}

static void test_playout_krkn(void **state)
{
    (void)state;
    assert_true(playout_table("KRKN", XQ_RULES_FULL, 40, ALL_WINS) > 0);
}

static void test_playout_krkca(void **state)
{
    (void)state;
    assert_true(playout_table("KRKCA", XQ_RULES_FULL, 40, ALL_WINS) > 0);
}

/* Under the CXA rule set, where a side that attacks (checks, threatens
 * mate or chases) on every move loses unless the other does too: KRKNA is
 * the smallest table measured where that decides positions otherwise than
 * full, so the wins must be won without attacking forever. */
static void test_playout_krkna_cxa(void **state)
{
    (void)state;
    assert_true(playout_table("KRKNA", XQ_RULES_CXA, 40, ALL_WINS) > 0);
}

/* Whether this is the sanitizer build (XQTB_SAN=1), where `name` is too
 * slow to generate; says so. */
static int under_sanitizers(const char *name) { return test_skipped_under_san(name); }

/* Wins by the perpetual-chase ruling: the smallest tables that have them
 * are 5-piece tables with pawns (KCKPP: 66 with red to move and 90 with
 * black to move of 6M-entry sides), too slow to generate under the
 * sanitizers. */
static void test_playout_kckpp_chases(void **state)
{
    (void)state;
    if (under_sanitizers("KCKPP")) skip();
    assert_true(playout_table("KCKPP", XQ_RULES_FULL, 30, CHASE_WINS) > 0);
}

/* Under the Asian rule set, where a checking move also chases: KCKPP's
 * wins by the chase ruling (the same positions as under full, orders of
 * the five-priority game), each repetition judged under asian. */
static void test_playout_kckpp_asian(void **state)
{
    (void)state;
    if (under_sanitizers("KCKPP")) skip();
    assert_true(playout_table("KCKPP", XQ_RULES_ASIAN, 30, CHASE_WINS) > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_playout_krkn),        cmocka_unit_test(test_playout_krkca),
        cmocka_unit_test(test_playout_krkna_cxa),   cmocka_unit_test(test_playout_kckpp_chases),
        cmocka_unit_test(test_playout_kckpp_asian),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
