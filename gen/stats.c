/*
 * stats.c - tb_compute_stats: counts of positions won, drawn and lost per
 * side to move, as boards: an index entry stands for itself and its mirror
 * image (xq_index_weight), so each legal board is counted exactly once.
 */
#include <string.h>

#include "cell.h"
#include "tb.h"

static void record_fen(const tb_table *t, uint64_t i, int side, char fen[XQ_FEN_MAX])
{
    xq_board b;
    xq_index_decode(&t->ix, i, &b);
    b.side = (uint8_t)side;
    xq_fen_write(&b, fen);
}

static void count_ruled(const tb_table *t, tb_side_stats *ss, uint64_t i, int side, unsigned r, uint64_t w)
{
    int chase = ruled_by_chase(r);
    uint64_t *n = ruled_is_win(r) ? &ss->ruled_win[chase] : &ss->ruled_loss[chase];
    char *fen = ruled_is_win(r) ? ss->ruled_win_fen[chase] : ss->ruled_loss_fen[chase];
    if (*n == 0) record_fen(t, i, side, fen);
    *n += w;
    *(ruled_is_win(r) ? &ss->win : &ss->loss) += w;
    if (ruled_order(r) > ss->max_order) ss->max_order = ruled_order(r);
}

void tb_compute_stats(const tb_table *t, tb_stats *st)
{
    memset(st, 0, sizeof *st);
    st->mat = t->mat;
    st->index_size = t->ix.size;
    st->rules = t->rules;
    st->limit = t->limit;
    for (int s = 0; s < 2; s++) {
        tb_side_stats *ss = &st->side[s];
        uint64_t win_at = UINT64_MAX, loss_at = UINT64_MAX;
        ss->longest_win = ss->longest_loss = -1;
        for (uint64_t i = 0; i < t->ix.size; i++) {
            unsigned v = cell_get(t->cells[s], t->width, i);
            if (v == CELL_ILLEGAL || v == CELL_UNKNOWN) continue;
            uint64_t w = (uint64_t)xq_index_weight(&t->ix, i);
            ss->entries++;
            ss->legal += w;
            unsigned r = tb_ruled(t, s, i);
            if (v == CELL_DRAW && r != RULED_NONE) {
                count_ruled(t, ss, i, s, r, w);
                continue;
            }
            if (v == CELL_DRAW) {
                ss->draw += w;
                continue;
            }
            ss->hist[v < TB_HIST_MAX ? v : TB_HIST_MAX - 1] += w;
            if (v & 1) {
                ss->win += w;
                if ((int)v > ss->longest_win) ss->longest_win = (int)v, win_at = i;
            } else {
                ss->loss += w;
                if ((int)v > ss->longest_loss) ss->longest_loss = (int)v, loss_at = i;
            }
        }
        if (win_at != UINT64_MAX) record_fen(t, win_at, s, ss->longest_win_fen);
        if (loss_at != UINT64_MAX) record_fen(t, loss_at, s, ss->longest_loss_fen);
    }
}
