/*
 * game.c - game records replayed for the repetition verdicts (game.h), and
 * the public xqtb_label_move and xqtb_judge_repetition.
 */
#include "game.h"

#include <stdlib.h>
#include <string.h>

#include "movegen.h"
#include "position_internal.h"
#include "ruleset.h"

int xq_game_replay(const xqtb_position *start, const uint16_t *moves, int n, int extra, xq_game *g)
{
    memset(g, 0, sizeof *g);
    if (n < 0 || extra < 0 || (n > 0 && !moves) || n > INT32_MAX / 2 - extra) return XQTB_ERR_INVALID;
    xq_board b0;
    if (xq_position_to_board(start, &b0, NULL)) return XQTB_ERR_INVALID;
    size_t room = (size_t)n + (size_t)extra;
    g->pos = malloc((room + 1) * sizeof *g->pos);
    g->mv = malloc((room + 1) * sizeof *g->mv);
    g->label = malloc((room + 1) * sizeof *g->label);
    g->labelled = calloc(room + 1, sizeof *g->labelled);
    if (!g->pos || !g->mv || !g->label || !g->labelled) {
        xq_game_free(g);
        return XQTB_ERR_NOMEM;
    }
    g->room = (int)room;
    g->pos[0] = b0;
    for (int k = 0; k < n; k++) {
        g->pos[k + 1] = g->pos[k];
        if (!xq_move_valid(&g->pos[k + 1], moves[k])) {
            xq_game_free(g);
            return XQTB_ERR_INVALID;
        }
        xq_undo u;
        xq_make_move(&g->pos[k + 1], moves[k], &u);
        g->mv[k] = moves[k];
        g->n = k + 1;
    }
    return XQTB_OK;
}

void xq_game_free(xq_game *g)
{
    free(g->pos);
    free(g->mv);
    free(g->label);
    free(g->labelled);
    memset(g, 0, sizeof *g);
}

void xq_game_push(xq_game *g, xq_move m)
{
    if (g->n >= g->room) return;
    xq_undo u;
    g->pos[g->n + 1] = g->pos[g->n];
    xq_make_move(&g->pos[g->n + 1], m, &u);
    g->mv[g->n] = m;
    g->labelled[g->n] = false;
    g->n++;
}

void xq_game_pop(xq_game *g)
{
    if (g->n > 0) g->n--;
}

int xq_game_judge(xq_game *g, int rules, xq_verdict *v)
{
    int first = xq_repetition_start(g->pos, g->n);
    if (first < 0) return -1;
    if (rules != g->label_rules) { /* labels differ between rule sets */
        memset(g->labelled, 0, (size_t)g->room + 1);
        g->label_rules = rules;
    }
    for (int k = first; k < g->n; k++)
        if (!g->labelled[k]) {
            xq_label_move_as(&g->pos[k], g->mv[k], rules, &g->label[k]);
            g->labelled[k] = true;
        }
    xq_judge_walk(g->pos + first, g->mv + first, g->label + first, g->n - first, rules, v);
    return first;
}

_Static_assert((int)XQTB_BY_PERPETUAL_CHECK == XQ_BY_CHECK && (int)XQTB_BY_PERPETUAL_CHASE == XQ_BY_CHASE &&
                   (int)XQTB_BY_PERPETUAL_THREAT == XQ_BY_THREAT && (int)XQTB_BY_PERPETUAL_ATTACK == XQ_BY_ATTACK,
               "the library's rulings are the core's");
_Static_assert((int)XQTB_RULES_ASIAN == XQ_RULES_ASIAN && (int)XQTB_RULES_CXA == XQ_RULES_CXA,
               "the library's rule sets are the core's");

xqtb_status xqtb_label_move_rules(const xqtb_position *pos, uint16_t move, xqtb_rule_set rules, xqtb_label *label,
                                  uint8_t *threat)
{
    xq_board b;
    if (!label || (int)rules < 0 || (int)rules >= XQ_JUDGE_NB || xq_position_to_board(pos, &b, NULL))
        return XQTB_ERR_INVALID;
    xq_board probe = b;
    if (!xq_move_valid(&probe, move)) return XQTB_ERR_INVALID;
    xq_move_label l;
    xq_label_move_as(&b, move, (int)rules, &l);
    memset(label, 0, sizeof *label);
    label->check = l.check;
    label->nchased = (uint8_t)l.nchased;
    memcpy(label->chased, l.chased, (size_t)l.nchased);
    if (threat) *threat = l.threat;
    return XQTB_OK;
}

xqtb_status xqtb_label_move(const xqtb_position *pos, uint16_t move, xqtb_label *label)
{
    return xqtb_label_move_rules(pos, move, XQTB_RULES_FULL, label, NULL);
}

xqtb_status xqtb_judge_repetition(const xqtb_position *start, const uint16_t *moves, int n, xqtb_rule_set rules,
                                  xqtb_repetition *out)
{
    if (!out || (int)rules < 0 || (int)rules >= XQ_JUDGE_NB) return XQTB_ERR_INVALID;
    xq_game g;
    int rc = xq_game_replay(start, moves, n, 0, &g);
    if (rc != XQTB_OK) return rc;
    xqtb_repetition r;
    memset(&r, 0, sizeof r);
    xq_verdict v;
    r.first = xq_game_judge(&g, (int)rules, &v);
    if (r.first >= 0) {
        r.verdict = v.loser < 0 ? XQTB_REPETITION_DRAW : v.loser == RED ? XQTB_RED_LOSES : XQTB_BLACK_LOSES;
        r.by_rule = v.loser < 0 ? XQTB_BY_NONE : (xqtb_ruling)v.by_rule; /* xq_by_rule and xqtb_ruling agree */
        for (int c = RED; c <= BLACK; c++) {
            r.checks_all[c] = v.checks_all[c];
            r.chases_all[c] = rules == XQTB_RULES_CXA ? v.attacks_all[c] : v.chases_all[c];
        }
        for (int k = r.first; k <= g.n; k += 2) r.occurrences += xq_board_equal(&g.pos[k], &g.pos[g.n]);
    }
    xq_game_free(&g);
    *out = r;
    return XQTB_OK;
}
