/*
 * example_search.c - the tablebase inside a search, as an engine uses it:
 * a small alpha-beta whose every node asks xqtb_covered and, if covered,
 * takes the WDL probe as the exact value instead of searching on; and at
 * the root, xqtb_probe_root_ex, given the game so far and the plies since
 * the last capture, to choose among the moves that keep the value (a move
 * that would repeat a position of the game is judged as the arbiter would).
 * Plays a position out to the end and checks that the side that was winning
 * mates.  (Under a move limit the root ranks by distance to conversion
 * first, so the game need not last exactly the DTM: both sides play for
 * the limit, the winner converting soonest, the loser delaying it.)
 *
 *   example_search TABLES FEN
 *
 * Exit status 0 if the side the tables called winning mates, 1 otherwise,
 * 2 on bad arguments or tables.
 */
#include <stdio.h>
#include <string.h>

#include "xqtb.h"

enum { MATE = 10000, DEPTH = 3, MAX_PLIES = 400 };

static xqtb_handle *tb;
static unsigned long nodes, probes;

/* Negamax with alpha-beta; scores from the side to move's view.  A covered
 * position is a leaf: its WDL is exact (win a bit less the deeper it is,
 * so that a search prefers the nearer of two wins it sees). */
static int search(const xqtb_position *pos, int depth, int ply, int alpha, int beta)
{
    nodes++;
    xqtb_wdl wdl;
    if (ply > 0 && xqtb_covered(tb, pos)) {
        probes++;
        if (xqtb_probe_wdl_trusted(tb, pos, &wdl) == XQTB_OK) return wdl * (MATE - ply);
    }
    uint16_t moves[XQTB_MAX_MOVES];
    int n = xqtb_legal_moves(pos, moves);
    if (n == 0) return -(MATE - ply); /* no legal move: lost, checkmate or not */
    if (depth == 0) return 0;         /* a real engine would evaluate here */
    for (int i = 0; i < n; i++) {
        xqtb_position next = *pos;
        xqtb_play(&next, moves[i]);
        int score = -search(&next, depth - 1, ply + 1, -beta, -alpha);
        if (score >= beta) return score;
        if (score > alpha) alpha = score;
    }
    return alpha;
}

/* The root: xqtb_probe_root_ex ranks every move (best first); the search
 * picks among the moves of the best WDL, in that order, the one it scores
 * highest, so that its own view and the tables' ranking agree. */
static uint16_t choose(const xqtb_position *pos, const xqtb_root_options *game)
{
    xqtb_root_move mv[XQTB_MAX_MOVES];
    int n = xqtb_probe_root_ex(tb, pos, game, mv);
    if (n <= 0) return 0;
    uint16_t best = mv[0].move;
    int best_score = -MATE - 1;
    for (int i = 0; i < n && mv[i].wdl == mv[0].wdl; i++) {
        xqtb_position next = *pos;
        xqtb_play(&next, mv[i].move);
        int score = -search(&next, DEPTH - 1, 1, -MATE - 1, MATE + 1);
        if (score > best_score) {
            best_score = score;
            best = mv[i].move;
        }
        /* moves are ranked by distance: beyond the first, a win that is no
         * better to the search would only be longer */
        if (mv[0].wdl > 0) break;
    }
    return best;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: example_search TABLES FEN\n");
        return 2;
    }
    xqtb_status status;
    tb = xqtb_open(argv[1], NULL, &status);
    xqtb_position pos;
    char err[XQTB_ERR_MAX];
    if (!tb || xqtb_position_from_fen(argv[2], &pos, err) != XQTB_OK) {
        fprintf(stderr, "example_search: %s\n", tb ? err : xqtb_status_string(status));
        return 2;
    }
    xqtb_wdl wdl;
    int dtm;
    if ((status = xqtb_probe_dtm(tb, &pos, &wdl, &dtm)) != XQTB_OK || wdl == XQTB_DRAW) {
        fprintf(stderr, "example_search: %s\n", status ? xqtb_status_string(status) : "a draw: nothing to play out");
        return 2;
    }
    int winner = wdl > 0 ? pos.side : pos.side ^ 1, ply = 0;
    /* the game so far, as an engine keeps it: where it started, the moves
     * since, and the plies since the last capture */
    static uint16_t played[MAX_PLIES];
    xqtb_position start = pos;
    xqtb_root_options game = {.history_start = &start, .history_moves = played};
    printf("%s to move, %s in %d plies by the tables\n", pos.side ? "black" : "red", wdl > 0 ? "wins" : "loses", dtm);
    for (; ply < MAX_PLIES; ply++) {
        uint16_t moves[XQTB_MAX_MOVES];
        if (xqtb_legal_moves(&pos, moves) == 0) break;
        uint16_t m = choose(&pos, &game);
        char name[XQTB_MOVE_NAME_MAX];
        xqtb_move_name(m, name);
        printf("%s%s", ply ? " " : "", name);
        game.rule_counter = pos.board[xqtb_move_to(m)] ? 0 : game.rule_counter + 1;
        xqtb_play(&pos, m);
        played[game.history_length++] = m;
    }
    int mated = pos.side != winner && xqtb_legal_moves(&pos, (uint16_t[XQTB_MAX_MOVES]){0}) == 0;
    printf("\n%s after %d plies (%lu nodes searched, %lu WDL probes in search)\n", mated ? "mate" : "no mate", ply,
           nodes, probes);
    xqtb_close(tb);
    return mated ? 0 : 1;
}
