/*
 * verify.c - tb_verify: every position's value checked against the values
 * its legal moves lead to, in the table itself and in its subtables.
 *
 *   win in n:  some move leads to a loss in n-1, none to a shorter loss;
 *   loss in n: every move leads to a win in at most n-1, some in exactly
 *              n-1 (n = 0: no legal move at all);
 *   draw:      no move leads to a loss, some move leads to a draw.
 *
 * This is the Bellman condition of DTM; with the shortest-win rule it pins
 * down the values of every decided position given the subtables.  It is
 * checked on the cells, which hold the values without the repetition
 * rulings.  On top, results the rulings decide (repetition.c) are checked
 * against the rule-aware values of the successors:
 *
 *   ruled win:  some move leads to a loss for the opponent (of any kind);
 *   ruled loss: every move leads to a win for the opponent (of any kind);
 *   draw:       no move leads to a loss of any kind, some move to a draw.
 *
 * The order of a result the perpetual check ruling decides (and, under
 * cxa, of every ruled result: a perpetual attack is judged as a check is)
 * is checked too.  That game's nodes are positions (docs/RULES.md, "How
 * verify checks orders"), so its sets Y_1 <= Y_2 <= ... of the positions
 * of order k or lower satisfy, for a position p of order k, with the moves
 * that check (under cxa, that attack) labelled "check", the others "idle"
 * (repetition.c's priorities 1, and 2 or 3):
 *
 *   winner to move:  some move reaches a position won with that ruling
 *                    (or a capture wins) at order <= k; none that is idle
 *                    reaches order <= k-1, and no capture wins unless
 *                    k = 1 (either would put p in Y_(k-1));
 *   loser to move:   every check reaches a win for the opponent (ordinary,
 *                    or with that ruling at order <= k), every idle move
 *                    one at order <= k-1; and unless k = 1 some check
 *                    stays in the drawn region, or some idle move reaches
 *                    order k-1 exactly (else p would be in Y_(k-1)).
 *
 * The first halves follow from Y_k being a fixed point of repetition.c's
 * nu loop, the second from p not being in Y_(k-1).  Both are necessary,
 * not sufficient: how the winner's checks rank inside one order (the inner
 * mu) is not in the table, and the reference solver of tests/ref/ compares
 * orders exactly.  Results of the chase ruling are checked for their value
 * only: their order belongs to a position together with the chase history
 * (repetition.c's nodes), of which the table keeps only the empty one.
 *
 * With a move limit L, the distance to conversion (dtc.h) of every ordinary
 * result is checked too.  Writing "holds" for a result whose code is a
 * distance d <= L, and counting a capture that reaches a result that holds
 * in the subtable as a conversion at distance 0 after it:
 *   win that holds, d:  some move reaches a loss that holds at d-1 (or a
 *                       converting capture, d = 1), none sooner;
 *   loss that holds, d: every move reaches a win that holds (or converts),
 *                       the longest at d-1 (d = 0: no legal move);
 *   cursed win:         no move reaches a loss that holds at L-1 or less,
 *                       nor converts;
 *   blessed loss:       some move reaches a win that does not hold within
 *                       L-1, or escapes by a capture.
 * The distances recorded for cursed wins and blessed losses (to any
 * conversion) are not checked.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cell.h"
#include "dtc.h"
#include "labels.h"
#include "movegen.h"
#include "parallel.h"
#include "tb.h"

enum { MAX_THREADS = 64 };

typedef struct {
    const tb_table *t;
    uint64_t checked[MAX_THREADS], errors[MAX_THREADS];
    uint64_t first_bad[MAX_THREADS]; /* smallest bad entry * 2 + side */
} verify_ctx;

static unsigned move_code(const tb_table *t, xq_board *b, xq_move m) { return tb_successor_cell(t, b, m, NULL); }

/* Where a legal move leads, as the ruled checks below read it: the
 * successor's cell, its ruled byte, and whether the move captures. */
typedef struct {
    unsigned cell, ruled;
    int capture;
} ruled_step;

static ruled_step ruled_step_of(const tb_table *t, xq_board *b, xq_move m)
{
    ruled_step st;
    st.capture = b->sq[move_to(m)] != EMPTY;
    st.cell = tb_successor_cell(t, b, m, &st.ruled);
    return st;
}

/* Rule-aware result of the successor, from the opponent's point of view:
 * 1 win, 0 draw, -1 loss. */
static int step_result(ruled_step st)
{
    if (st.cell == CELL_DRAW) return st.ruled == RULED_NONE ? 0 : ruled_is_win(st.ruled) ? 1 : -1;
    return cell_is_win(st.cell) ? 1 : -1;
}

/* What the order check (below) gathers over a position's moves. */
typedef struct {
    int reached, sooner; /* winner: a move to order <= k; one that puts p below k */
    int escapes, stays;  /* loser: a move that breaks the order; one that keeps p at k */
} order_tally;

/* Whether legal move m checks, or under cxa attacks (check, chase of any
 * piece, mate threat: the label repetition_graph.c gives it). */
static int move_checks(xq_board *b, xq_move m, int attack_game)
{
    if (attack_game && xq_move_checks_or_chases(b, m)) return 1;
    xq_undo u;
    xq_make_move(b, m, &u);
    int yes = attack_game ? xq_threat_after(b) : xq_in_check(b, b->side);
    xq_unmake_move(b, m, &u);
    return yes;
}

/* Adds legal move m, leading to st, to the tally of a position ruled r
 * (order k), in the check (or, under cxa, attack) ruling's game. */
static void tally_order(order_tally *o, unsigned r, ruled_step st, xq_board *b, xq_move m, int attack_game)
{
    int k = ruled_order(r);
    /* the successor in that game, from the mover's view: an exit the mover
     * wins (+1) or loses (-1), or a position of order `order` (0: not won
     * in this game) */
    int exit = 0, order = 0, won = 0;
    if (st.cell != CELL_DRAW) {
        exit = cell_is_loss(st.cell) ? 1 : -1;
    } else if (st.ruled != RULED_NONE && (attack_game || !ruled_by_chase(st.ruled))) {
        if (st.capture)
            exit = ruled_is_win(st.ruled) ? -1 : 1; /* a subtable's result */
        else
            order = ruled_order(st.ruled), won = ruled_is_win(st.ruled);
    }
    if (ruled_is_win(r)) {
        if (exit > 0) {
            o->reached = 1;
            o->sooner |= k > 1;
        } else if (order && !won && order <= k) {
            o->reached = 1;
            o->sooner |= order < k && !move_checks(b, m, attack_game);
        }
    } else if (exit >= 0) {
        if (!order || !won || order > k) {
            o->escapes = 1;
        } else if (move_checks(b, m, attack_game)) {
            o->stays = 1;
        } else {
            o->escapes |= order == k;
            o->stays |= order == k - 1;
        }
    }
}

static const char *order_verdict(const order_tally *o, unsigned r)
{
    if (ruled_is_win(r)) {
        if (!o->reached) return "win by a ruling, but no move reaches its order";
        return o->sooner ? "win by a ruling, but a move reaches a lower order" : NULL;
    }
    if (o->escapes) return "loss by a ruling, but a move escapes its order";
    return ruled_order(r) > 1 && !o->stays ? "loss by a ruling, but every move is lost at a lower order" : NULL;
}

/* NULL if a drawn cell's rule-aware value, ruled r, agrees with its
 * successors, and its order too where that is a position's (above). */
static const char *check_ruled(const tb_table *t, xq_board *b, unsigned r)
{
    int attack_game = t->rules == XQ_RULES_CXA;
    int orders = r != RULED_NONE && (attack_game || !ruled_by_chase(r));
    xq_move list[XQ_MAX_MOVES];
    int n = xq_gen_legal(b, list);
    int draws = 0, losses = 0;
    order_tally o = {0, 0, 0, 0};
    for (int i = 0; i < n; i++) {
        ruled_step st = ruled_step_of(t, b, list[i]);
        int v = step_result(st);
        draws += v == 0;
        losses += v < 0;
        if (orders) tally_order(&o, r, st, b, list[i], attack_game);
    }
    if (r == RULED_NONE) {
        if (losses) return "draw, but a move leads to a loss by a ruling for the opponent";
        if (!draws) return "draw, but every move leads to a result decided by a ruling";
        return NULL;
    }
    if (ruled_is_win(r) && !losses) return "win by a ruling, but no move leads to a loss for the opponent";
    if (!ruled_is_win(r) && (draws || losses)) return "loss by a ruling, but some move escapes";
    return orders ? order_verdict(&o, r) : NULL;
}

/* DTC code of the position a legal move leads to (opponent's view), and
 * whether it is a capture. */
static unsigned move_dtc(const tb_table *t, xq_board *b, xq_move m, int *capture, unsigned *cell)
{
    xq_undo u;
    xq_make_move(b, m, &u);
    *capture = u.captured != EMPTY;
    unsigned d;
    if (u.captured) {
        d = dtc_capture_code(t, u.captured, b);
        *cell = tb_capture_cell(t, u.captured, b);
    } else {
        uint64_t j = xq_index_encode(&t->ix, b, 0);
        d = tb_dtc(t, b->side, j);
        *cell = cell_get(t->cells[b->side], t->width, j);
    }
    xq_unmake_move(b, m, &u);
    return d;
}

/* NULL if the DTC code of an ordinary result (cell `code`) agrees with its
 * successors'. */
static const char *check_dtc(const tb_table *t, xq_board *b, unsigned code, unsigned dtc)
{
    int win = cell_is_win(code), L = t->limit;
    if (dtc == DTC_NONE) return "an ordinary result without a DTC";
    int holds = !dtc_beyond(dtc), d = dtc_plies(dtc);
    if (holds && d > L) return "a DTC beyond the limit marked as holding";
    xq_move list[XQ_MAX_MOVES];
    int n = xq_gen_legal(b, list);
    int best = INT32_MAX, longest = -1, escapes = 0; /* over successors, +1 included */
    for (int i = 0; i < n; i++) {
        int capture;
        unsigned cell, s = move_dtc(t, b, list[i], &capture, &cell);
        /* the successor is the opponent's: a loss that holds for a win, a
         * win that holds for a loss */
        int right_kind = win ? cell_is_loss(cell) : cell_is_win(cell);
        int ok = right_kind && s != DTC_NONE && !dtc_beyond(s) && (capture || dtc_plies(s) + 1 <= L);
        int dist = capture ? 1 : dtc_plies(s) + 1;
        if (win && ok && dist < best) best = dist;
        if (!win) {
            if (!ok)
                escapes++;
            else if (dist > longest)
                longest = dist;
        }
    }
    if (win && holds) return best == d ? NULL : "win: the fastest conversion disagrees with its DTC";
    if (win) return best <= L ? "cursed win, but a conversion fits in the limit" : NULL;
    if (n == 0) return holds && d == 0 ? NULL : "no legal move, but not a loss in 0";
    if (holds) return !escapes && longest == d ? NULL : "loss: the longest defence disagrees with its DTC";
    return escapes ? NULL : "blessed loss, but every defence is converted in time";
}

/* NULL if the position's code agrees with its successors, else why not. */
static const char *check_position(const tb_table *t, xq_board *b, unsigned code)
{
    xq_move list[XQ_MAX_MOVES];
    int n = xq_gen_legal(b, list);
    unsigned shortest_loss = CELL_UNKNOWN, longest_win = 0;
    int draws = 0;
    for (int i = 0; i < n; i++) {
        unsigned v = move_code(t, b, list[i]);
        if (v == CELL_ILLEGAL || v == CELL_UNKNOWN) return "a legal move leads to a position marked illegal";
        if (cell_is_loss(v)) {
            if (v < shortest_loss) shortest_loss = v;
        } else if (cell_is_win(v)) {
            if (v > longest_win) longest_win = v;
        } else {
            draws++;
        }
    }
    if (code == CELL_DRAW) {
        if (shortest_loss != CELL_UNKNOWN) return "draw, but a move leads to a loss for the opponent";
        if (!draws) return "draw, but no move leads to a draw";
        return NULL;
    }
    if (cell_is_win(code)) {
        if (shortest_loss == CELL_UNKNOWN) return "win, but no move leads to a loss for the opponent";
        if (shortest_loss + 1 != code) return "win, but the fastest move to a loss disagrees with its DTM";
        return NULL;
    }
    if (n == 0) return code == 0 ? NULL : "no legal move, but not a loss in 0";
    if (code == 0) return "loss in 0, but there is a legal move";
    if (shortest_loss != CELL_UNKNOWN || draws) return "loss, but some move escapes";
    if (longest_win + 1 != code) return "loss, but the longest defence disagrees with its DTM";
    return NULL;
}

const char *tb_verify_entry(const tb_table *t, int side, uint64_t i)
{
    unsigned code = cell_get(t->cells[side], t->width, i);
    if (code == CELL_ILLEGAL) return NULL;
    xq_board b;
    if (!xq_index_decode(&t->ix, i, &b)) return "broken entry holds a value";
    b.side = (uint8_t)side;
    if (code == CELL_UNKNOWN) return "value never decided";
    if (xq_kings_facing(&b) || xq_in_check(&b, side ^ 1)) return "illegal position holds a value";
    const char *why = check_position(t, &b, code);
    unsigned r = tb_ruled(t, side, i);
    if (!why && code == CELL_DRAW && tb_has_ruled(t)) why = check_ruled(t, &b, r);
    if (!why && t->limit && code < CELL_DRAW) why = check_dtc(t, &b, code, tb_dtc(t, side, i));
    return why;
}

static void verify_chunk(void *arg, uint64_t begin, uint64_t end, int thread)
{
    verify_ctx *c = arg;
    const tb_table *t = c->t;
    for (uint64_t i = begin; i < end; i++)
        for (int s = 0; s < 2; s++) {
            if (cell_get(t->cells[s], t->width, i) == CELL_ILLEGAL) continue;
            c->checked[thread]++;
            if (tb_verify_entry(t, s, i)) {
                c->errors[thread]++;
                if (i * 2 + (uint64_t)s < c->first_bad[thread]) c->first_bad[thread] = i * 2 + (uint64_t)s;
            }
        }
}

int tb_verify(const tb_table *t, int threads, tb_verify_report *r)
{
    verify_ctx ctx, *c = &ctx;
    memset(c, 0, sizeof *c);
    c->t = t;
    for (int i = 0; i < MAX_THREADS; i++) c->first_bad[i] = UINT64_MAX;
    if (threads <= 0) threads = par_cores();
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    par_for(threads, t->ix.size, 1 << 12, verify_chunk, c);
    memset(r, 0, sizeof *r);
    uint64_t first = UINT64_MAX;
    for (int i = 0; i < MAX_THREADS; i++) {
        r->checked += c->checked[i];
        r->errors += c->errors[i];
        if (c->first_bad[i] < first) first = c->first_bad[i];
    }
    if (first != UINT64_MAX) {
        uint64_t i = first / 2;
        int s = (int)(first % 2);
        xq_board b;
        const char *why = tb_verify_entry(t, s, i);
        if (!xq_index_decode(&t->ix, i, &b)) {
            snprintf(r->first_error, sizeof r->first_error, "entry %llu: %s", (unsigned long long)i, why);
        } else {
            char fen[XQ_FEN_MAX];
            b.side = (uint8_t)s;
            xq_fen_write(&b, fen);
            tb_value v = tb_value_of_cell(cell_get(t->cells[s], t->width, i));
            snprintf(r->first_error, sizeof r->first_error, "%s (stored wdl %d dtm %d): %s", fen, v.wdl, v.dtm,
                     why ? why : "?");
        }
    }
    return r->errors ? -1 : 0;
}
