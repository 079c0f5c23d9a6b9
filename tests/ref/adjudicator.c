/*
 * adjudicator.c - see adjudicator.h.
 */
#include "adjudicator.h"

#include <stdlib.h>
#include <string.h>

#include "movegen.h"
#include "ref_labels.h"
#include "ruleset.h"

const char *adj_result_name(adj_result r)
{
    static const char *names[] = {"no repetition", "draw", "red loses", "black loses", "bad move"};
    return r >= ADJ_NO_REPETITION && r <= ADJ_BAD_MOVE ? names[r] : "?";
}

static int parse_move(const char *s, xq_move *m)
{
    if (!s || strlen(s) != 4) return -1;
    char a[3] = {s[0], s[1], 0}, b[3] = {s[2], s[3], 0};
    int from = xq_parse_square(a), to = xq_parse_square(b);
    if (from < 0 || to < 0) return -1;
    *m = make_move(from, to);
    return 0;
}

static void label(const xq_board *b, xq_move m, int rules, ref_label *l)
{
    ref_label_move_as(b, m, rules == XQ_RULES_ASIAN || rules == XQ_RULES_CXA, l);
}

/* Whether every move of `side` checks, threatens mate or chases some
 * piece: the CXA rules' perpetual attack (长打). */
static bool attacks_throughout(const xq_board *before, const xq_move *mv, int n, int side)
{
    for (int k = 0; k < n; k++) {
        if (before[k].side != side) continue;
        ref_label l;
        label(&before[k], mv[k], XQ_RULES_CXA, &l);
        if (!l.check && l.nchased == 0 && !ref_threatens_mate(&before[k], mv[k])) return false;
    }
    return true;
}

/* Whether every move of `side` in the cycle checks. */
static bool checks_throughout(const xq_board *before, const xq_move *mv, int n, int side)
{
    for (int k = 0; k < n; k++) {
        if (before[k].side != side) continue;
        ref_label l;
        ref_label_move(&before[k], mv[k], &l);
        if (!l.check) return false;
    }
    return true;
}

/* Whether `side` chases one same enemy piece on every one of its moves in
 * the cycle repeated forever.  cand[] holds the squares of the enemy
 * pieces still in question, moved along when their owner moves them. */
static bool chases_throughout(const xq_board *before, const xq_move *mv, int n, int side, int rules)
{
    bool cand[XQ_SQUARES];
    for (int s = 0; s < XQ_SQUARES; s++) cand[s] = before[0].sq[s] != EMPTY && colour_of(before[0].sq[s]) != side;
    for (int pass = 0; pass <= 16; pass++) { /* the set only shrinks: 16 pieces bound the passes */
        bool start[XQ_SQUARES];
        memcpy(start, cand, sizeof start);
        for (int k = 0; k < n; k++) {
            if (before[k].side == side) {
                ref_label l;
                label(&before[k], mv[k], rules, &l);
                /* under full a check chases nothing; under asian it may */
                if (l.nchased == 0) return false;
                bool chased[XQ_SQUARES] = {false};
                for (int i = 0; i < l.nchased; i++) chased[l.chased[i]] = true;
                for (int s = 0; s < XQ_SQUARES; s++) cand[s] = cand[s] && chased[s];
            } else if (cand[move_from(mv[k])]) {
                cand[move_from(mv[k])] = false;
                cand[move_to(mv[k])] = true;
            }
        }
        bool any = false;
        for (int s = 0; s < XQ_SQUARES; s++) any |= cand[s];
        if (!any) return false;
        if (memcmp(start, cand, sizeof start) == 0) return true;
    }
    return true;
}

/* Rules on the cycle before[0..n) / mv[0..n) (back to before[0]). */
static adj_result judge_cycle(const xq_board *before, const xq_move *mv, int n, int rules)
{
    if (rules == XQ_RULES_NONE) return ADJ_DRAW;
    if (rules == XQ_RULES_CXA) {
        bool attack[2] = {attacks_throughout(before, mv, n, RED), attacks_throughout(before, mv, n, BLACK)};
        if (attack[RED] == attack[BLACK]) return ADJ_DRAW;
        return attack[RED] ? ADJ_RED_LOSES : ADJ_BLACK_LOSES;
    }
    bool check[2] = {checks_throughout(before, mv, n, RED), checks_throughout(before, mv, n, BLACK)};
    if (check[RED] && check[BLACK]) return ADJ_DRAW;
    if (check[RED]) return ADJ_RED_LOSES;
    if (check[BLACK]) return ADJ_BLACK_LOSES;
    if (rules == XQ_RULES_CHECK) return ADJ_DRAW;
    bool chase[2] = {chases_throughout(before, mv, n, RED, rules), chases_throughout(before, mv, n, BLACK, rules)};
    if (chase[RED] && !chase[BLACK]) return ADJ_RED_LOSES;
    if (chase[BLACK] && !chase[RED]) return ADJ_BLACK_LOSES;
    return ADJ_DRAW;
}

adj_result adj_judge(const xq_board *start, const char *const *moves, int n, int *bad)
{
    return adj_judge_as(start, moves, n, XQ_RULES_FULL, bad);
}

adj_result adj_judge_as(const xq_board *start, const char *const *moves, int n, int rules, int *bad)
{
    xq_board *pos = malloc(((size_t)n + 1) * sizeof *pos);
    xq_move *mv = malloc(((size_t)n + 1) * sizeof *mv);
    adj_result r = ADJ_NO_REPETITION;
    if (!pos || !mv) abort(); /* a test helper: no recovery from out of memory */
    pos[0] = *start;
    for (int k = 0; k < n; k++) {
        pos[k + 1] = pos[k];
        if (parse_move(moves[k], &mv[k]) || !xq_move_valid(&pos[k + 1], mv[k])) {
            if (bad) *bad = k;
            r = ADJ_BAD_MOVE;
            goto out;
        }
        xq_undo u;
        xq_make_move(&pos[k + 1], mv[k], &u);
    }
    for (int j = 0; j < n; j++) /* the first occurrence: the whole repeating part */
        if (xq_board_equal(&pos[j], &pos[n])) {
            r = judge_cycle(pos + j, mv + j, n - j, rules);
            break;
        }
out:
    free(pos);
    free(mv);
    return r;
}
