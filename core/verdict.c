/*
 * verdict.c - judging a repetition that happened (verdict.h).
 */
#include "verdict.h"

#include <string.h>

#include "ruleset.h"

int xq_repetition_start(const xq_board *pos, int n)
{
    /* a capture changes the material for good, so equal positions are
     * never separated by one: no need to stop at the last capture */
    for (int j = n % 2; j < n; j += 2) /* the same side to move: every other ply */
        if (xq_board_equal(&pos[j], &pos[n])) return j;
    return -1;
}

static bool checks_throughout(const xq_board *pos, const xq_move_label *labels, int n, int side)
{
    for (int k = 0; k < n; k++)
        if (pos[k].side == side && !labels[k].check) return false;
    return true;
}

/* Whether `side` chased one same enemy piece on every one of its moves,
 * the walk repeated for ever (clause 2).  alive[] marks the squares of the
 * enemy pieces that could still be that piece: each of the side's moves
 * keeps only those it chases, each enemy move carries the piece it moves
 * along.  Going round the walk again can only shrink the set, so once a
 * round leaves it unchanged it is what infinite play keeps; with at most
 * 16 enemy pieces that happens within 17 rounds. */
static bool chases_throughout(const xq_board *pos, const xq_move *mv, const xq_move_label *labels, int n, int side)
{
    bool alive[XQ_SQUARES];
    for (int s = 0; s < XQ_SQUARES; s++) alive[s] = pos[0].sq[s] != EMPTY && colour_of(pos[0].sq[s]) != side;
    for (int round = 0; round < 17; round++) {
        bool before[XQ_SQUARES];
        memcpy(before, alive, sizeof before);
        for (int k = 0; k < n; k++) {
            if (pos[k].side == side) {
                /* under none, check and full a checking move has no chases */
                if (labels[k].nchased == 0) return false;
                bool chased[XQ_SQUARES] = {false};
                for (int i = 0; i < labels[k].nchased; i++) chased[labels[k].chased[i]] = true;
                for (int s = 0; s < XQ_SQUARES; s++) alive[s] = alive[s] && chased[s];
            } else if (alive[move_from(mv[k])]) {
                alive[move_from(mv[k])] = false;
                alive[move_to(mv[k])] = true;
            }
        }
        bool any = false;
        for (int s = 0; s < XQ_SQUARES; s++) any |= alive[s];
        if (!any) return false;
        if (!memcmp(before, alive, sizeof before)) return true;
    }
    return true; /* not reached: see above */
}

/* Whether `side` checked, threatened mate or chased (any piece) on every
 * one of its moves: the CXA rules' perpetual attack (长打). */
static bool attacks_throughout(const xq_board *pos, const xq_move_label *labels, int n, int side)
{
    for (int k = 0; k < n; k++)
        if (pos[k].side == side && !labels[k].check && !labels[k].threat && labels[k].nchased == 0) return false;
    return true;
}

/* What kind of perpetual attack `side` made: all checks, checks and mate
 * threats, all chases, or a mix with chases. */
static int attack_kind(const xq_board *pos, const xq_move_label *labels, int n, int side)
{
    bool all_check = true, all_chase = true, no_chase_needed = true;
    for (int k = 0; k < n; k++)
        if (pos[k].side == side) {
            all_check &= labels[k].check;
            all_chase &= labels[k].nchased > 0;
            no_chase_needed &= labels[k].check || labels[k].threat;
        }
    if (all_check) return XQ_BY_CHECK;
    if (all_chase) return XQ_BY_CHASE;
    return no_chase_needed ? XQ_BY_THREAT : XQ_BY_ATTACK;
}

/* CXA rules: a perpetual attack (长打) loses against moves that are not
 * all attacks; two perpetual attacks, or none, draw. */
static void judge_cxa(const xq_board *pos, const xq_move_label *labels, int n, xq_verdict *out)
{
    for (int c = RED; c <= BLACK; c++) {
        out->checks_all[c] = checks_throughout(pos, labels, n, c);
        out->attacks_all[c] = attacks_throughout(pos, labels, n, c);
    }
    if (out->attacks_all[RED] == out->attacks_all[BLACK]) return;
    out->loser = out->attacks_all[RED] ? RED : BLACK;
    out->by_rule = attack_kind(pos, labels, n, out->loser);
}

void xq_judge_walk(const xq_board *pos, const xq_move *mv, const xq_move_label *labels, int n, int rules,
                   xq_verdict *out)
{
    memset(out, 0, sizeof *out);
    out->loser = -1;
    if (rules == XQ_RULES_NONE) return;
    if (rules == XQ_RULES_CXA) {
        judge_cxa(pos, labels, n, out);
        return;
    }
    for (int c = RED; c <= BLACK; c++) out->checks_all[c] = checks_throughout(pos, labels, n, c);
    if (out->checks_all[RED] != out->checks_all[BLACK]) {
        out->loser = out->checks_all[RED] ? RED : BLACK;
        out->by_rule = XQ_BY_CHECK;
        return;
    }
    if (out->checks_all[RED] || rules == XQ_RULES_CHECK) return; /* mutual perpetual check: draw */
    for (int c = RED; c <= BLACK; c++) out->chases_all[c] = chases_throughout(pos, mv, labels, n, c);
    if (out->chases_all[RED] != out->chases_all[BLACK]) {
        out->loser = out->chases_all[RED] ? RED : BLACK;
        out->by_rule = XQ_BY_CHASE;
    }
}
