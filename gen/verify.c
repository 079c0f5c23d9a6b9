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
 * The orders of ruled results are not checked: a ruling's order belongs
 * to a position together with the chase history, of which the table keeps
 * only the empty one.
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

/* Rule-aware result of the position a legal move leads to, from the
 * opponent's point of view: 1 win, 0 draw, -1 loss. */
static int move_result(const tb_table *t, xq_board *b, xq_move m)
{
    unsigned r, v = tb_successor_cell(t, b, m, &r);
    if (v == CELL_DRAW) return r == RULED_NONE ? 0 : ruled_is_win(r) ? 1 : -1;
    return cell_is_win(v) ? 1 : -1;
}

/* NULL if a position's rule-aware value agrees with its successors. */
static const char *check_ruled(const tb_table *t, xq_board *b, unsigned r)
{
    xq_move list[XQ_MAX_MOVES];
    int n = xq_gen_legal(b, list);
    int draws = 0, losses = 0;
    for (int i = 0; i < n; i++) {
        int v = move_result(t, b, list[i]);
        draws += v == 0;
        losses += v < 0;
    }
    if (r == RULED_NONE) {
        if (losses) return "draw, but a move leads to a loss by a ruling for the opponent";
        if (!draws) return "draw, but every move leads to a result decided by a ruling";
        return NULL;
    }
    if (ruled_is_win(r)) return losses ? NULL : "win by a ruling, but no move leads to a loss for the opponent";
    return draws || losses ? "loss by a ruling, but some move escapes" : NULL;
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
        d = t->dtc[b->side][j];
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

static void verify_chunk(void *arg, uint64_t begin, uint64_t end, int thread)
{
    verify_ctx *c = arg;
    const tb_table *t = c->t;
    xq_board b;
    for (uint64_t i = begin; i < end; i++) {
        int decoded = 0;
        for (int s = 0; s < 2; s++) {
            unsigned code = cell_get(t->cells[s], t->width, i);
            if (code == CELL_ILLEGAL) continue;
            if (!decoded && !xq_index_decode(&t->ix, i, &b)) {
                c->errors[thread]++;
                if (i * 2 + (uint64_t)s < c->first_bad[thread]) c->first_bad[thread] = i * 2 + (uint64_t)s;
                continue;
            }
            decoded = 1;
            b.side = (uint8_t)s;
            c->checked[thread]++;
            int bad = code == CELL_UNKNOWN || xq_kings_facing(&b) || xq_in_check(&b, s ^ 1) ||
                      check_position(t, &b, code) != NULL ||
                      (code == CELL_DRAW && t->ruled[0] && check_ruled(t, &b, t->ruled[s][i]) != NULL) ||
                      (t->limit && code < CELL_DRAW && check_dtc(t, &b, code, t->dtc[s][i]) != NULL);
            if (bad) {
                c->errors[thread]++;
                if (i * 2 + (uint64_t)s < c->first_bad[thread]) c->first_bad[thread] = i * 2 + (uint64_t)s;
            }
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
        unsigned code = cell_get(t->cells[s], t->width, i);
        if (!xq_index_decode(&t->ix, i, &b)) {
            snprintf(r->first_error, sizeof r->first_error, "entry %llu: broken entry holds a value",
                     (unsigned long long)i);
        } else {
            char fen[XQ_FEN_MAX];
            b.side = (uint8_t)s;
            xq_fen_write(&b, fen);
            const char *why = code == CELL_UNKNOWN                            ? "value never decided"
                              : xq_kings_facing(&b) || xq_in_check(&b, s ^ 1) ? "illegal position holds a value"
                                                                              : check_position(t, &b, code);
            if (!why && code == CELL_DRAW && t->ruled[0]) why = check_ruled(t, &b, t->ruled[s][i]);
            if (!why && t->limit && code < CELL_DRAW) why = check_dtc(t, &b, code, t->dtc[s][i]);
            tb_value v = tb_value_of_cell(code);
            snprintf(r->first_error, sizeof r->first_error, "%s (stored wdl %d dtm %d): %s", fen, v.wdl, v.dtm,
                     why ? why : "?");
        }
    }
    return r->errors ? -1 : 0;
}
