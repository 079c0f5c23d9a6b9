/*
 * game.h - a game record replayed onto core boards, for judging the
 * repetition it ends in (xqtb_judge_repetition, and the root probe given
 * the game's history).  Internal to the library.
 */
#ifndef XQ_GAME_H
#define XQ_GAME_H

#include "board.h"
#include "labels.h"
#include "verdict.h"
#include "xqtb.h"

typedef struct {
    xq_board *pos;        /* pos[0..n]: pos[k + 1] is pos[k] after mv[k] */
    xq_move *mv;          /* mv[0..n) */
    xq_move_label *label; /* label[k] of mv[k], once labelled[k] */
    bool *labelled;
    int label_rules; /* the rule set the labels are for (xq_rules) */
    int n, room;     /* moves held, and room for moves */
} xq_game;

/* Replays start and moves[0..n) into g, with room for `extra` more moves.
 * Returns XQTB_OK, XQTB_ERR_INVALID (start invalid, a move illegal, n < 0,
 * moves NULL with n > 0) or XQTB_ERR_NOMEM; g needs xq_game_free after
 * XQTB_OK only. */
int xq_game_replay(const xqtb_position *start, const uint16_t *moves, int n, int extra, xq_game *g);
void xq_game_free(xq_game *g);

/* Plays legal move m at the end of g (room permitting), and takes it back. */
void xq_game_push(xq_game *g, xq_move m);
void xq_game_pop(xq_game *g);

/* Judges the repetition g ends in under rule set `rules`: returns the
 * first index of the repeating part with *v set, or -1 if the final
 * position did not stand before (*v untouched). */
int xq_game_judge(xq_game *g, int rules, xq_verdict *v);

#endif
