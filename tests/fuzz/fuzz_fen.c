/*
 * fuzz_fen.c - libFuzzer target for xq_fen_parse.
 *
 * Any input must either be rejected with a one-line printable message, or
 * give a position that passes every check below: canonical FEN round trip,
 * validation, legal moves equal to the pseudo-legal moves that survive the
 * plain legality test, make/unmake restoring the board exactly, every
 * successor valid, and the symmetries preserving the move count.  The
 * public wrapper must agree with the core.  A violated check aborts, which
 * libFuzzer reports with the input that caused it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "fen.h"
#include "fuzz_check.h"
#include "movegen.h"
#include "xqtb.h"

static void check_message(const char *err)
{
    size_t len = strnlen(err, XQ_ERR_MAX);
    CHECK(len > 0 && len < XQ_ERR_MAX);
    /* Printed verbatim on one line by the CLI: nothing that could break or
     * garble a terminal line. */
    for (size_t i = 0; i < len; i++) CHECK(err[i] >= 0x20 && err[i] < 0x7f);
}

static void check_identical(const xq_board *a, const xq_board *b)
{
    CHECK(memcmp(a->sq, b->sq, sizeof a->sq) == 0);
    CHECK(a->side == b->side);
    CHECK(a->king[0] == b->king[0] && a->king[1] == b->king[1]);
    CHECK(a->occ[0] == b->occ[0] && a->occ[1] == b->occ[1]);
    CHECK(a->rule60 == b->rule60 && a->fullmove == b->fullmove);
}

static int sorted_moves(xq_move *list, int n)
{
    /* insertion sort: lists are short */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && list[j - 1] > list[j]; j--) {
            xq_move t = list[j];
            list[j] = list[j - 1];
            list[j - 1] = t;
        }
    return n;
}

static int legal_count(xq_board *b)
{
    xq_move list[XQ_MAX_MOVES];
    return xq_gen_legal(b, list);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char fen[600];
    if (size >= sizeof fen) return 0;
    memcpy(fen, data, size);
    fen[size] = 0;

    xq_board b;
    char err[XQ_ERR_MAX];
    memset(err, 'x', sizeof err); /* an unterminated message would show */
    int rc = xq_fen_parse(fen, &b, err);
    xqtb_position pos;
    char perr[XQTB_ERR_MAX];
    int prc = xqtb_position_from_fen(fen, &pos, perr);
    if (rc != 0) {
        CHECK(rc == -1);
        check_message(err);
        CHECK(prc == XQTB_ERR_INVALID);
        CHECK(strcmp(err, perr) == 0);
        return 0;
    }
    CHECK(prc == XQTB_OK);
    CHECK(xq_board_validate(&b, err) == 0);

    /* Canonical FEN round trip. */
    char out[XQ_FEN_MAX], out2[XQ_FEN_MAX];
    xq_fen_write(&b, out);
    CHECK(strlen(out) < XQ_FEN_MAX);
    xq_board again;
    CHECK(xq_fen_parse(out, &again, err) == 0);
    check_identical(&b, &again);
    xq_fen_write(&again, out2);
    CHECK(strcmp(out, out2) == 0);

    /* The public position names the same board (counters are not kept). */
    char pfen[XQTB_FEN_MAX];
    CHECK(xqtb_position_to_fen(&pos, pfen) == XQTB_OK);
    size_t placement = strcspn(out, " ") + 2; /* placement and side */
    CHECK(strncmp(pfen, out, placement) == 0);

    /* Legal moves: the fast generator skips the legality test for moves
     * that cannot expose the king; it must agree with the plain filter. */
    xq_move legal[XQ_MAX_MOVES], pseudo[XQ_MAX_MOVES], filtered[XQ_MAX_MOVES];
    int np = xq_gen_pseudo(&b, pseudo);
    CHECK(np >= 0 && np <= XQ_MAX_MOVES);
    int nl = xq_gen_legal(&b, legal), nf = 0;
    for (int i = 0; i < np; i++)
        if (xq_move_is_legal(&b, pseudo[i])) filtered[nf++] = pseudo[i];
    CHECK(nl == nf);
    sorted_moves(legal, nl);
    sorted_moves(filtered, nf);
    CHECK(memcmp(legal, filtered, (size_t)nl * sizeof *legal) == 0);
    uint16_t pmoves[XQTB_MAX_MOVES];
    CHECK(xqtb_legal_moves(&pos, pmoves) == nl);
    check_identical(&b, &again);

    /* Make/unmake each legal move. */
    for (int i = 0; i < nl; i++) {
        xq_board before = b;
        xq_undo u;
        int us = b.side;
        CHECK(xq_move_valid(&b, legal[i]));
        xq_make_move(&b, legal[i], &u);
        CHECK(!xq_in_check(&b, us));
        CHECK(!xq_kings_facing(&b));
        CHECK(xq_board_validate(&b, err) == 0);
        xq_unmake_move(&b, legal[i], &u);
        check_identical(&b, &before);
    }

    /* Attack lists agree with the pseudo-legal captures, for both colours
     * (the side not to move is looked at with the side flipped), and
     * xq_attacked agrees with the attack lists. */
    bool hit[COLOUR_NB][XQ_SQUARES];
    memset(hit, 0, sizeof hit);
    for (int c = 0; c < COLOUR_NB; c++) {
        xq_board t = b;
        t.side = (uint8_t)c;
        xq_move ps[XQ_MAX_MOVES];
        int n = xq_gen_pseudo(&t, ps);
        for (int sq = 0; sq < XQ_SQUARES; sq++) {
            if (!t.sq[sq] || colour_of(t.sq[sq]) != c) continue;
            uint8_t at[16];
            int na = xq_piece_attacks(&t, sq, at), nc = 0;
            CHECK(na >= 0 && na <= 16);
            for (int i = 0; i < n; i++)
                if (move_from(ps[i]) == sq && t.sq[move_to(ps[i])]) nc++;
            CHECK(na == nc);
            for (int i = 0; i < na; i++) {
                CHECK(t.sq[at[i]] && colour_of(t.sq[at[i]]) != c);
                hit[c][at[i]] = true;
            }
        }
        for (int sq = 0; sq < XQ_SQUARES; sq++)
            if (t.sq[sq] && colour_of(t.sq[sq]) != c) CHECK(xq_attacked(&t, sq, c) == hit[c][sq]);
    }
    CHECK(xq_in_check(&b, b.side) == hit[b.side ^ 1][b.king[b.side]]);

    /* Symmetric positions are valid and have as many moves. */
    xq_board m, f;
    xq_board_mirror(&b, &m);
    xq_board_flip(&b, &f);
    CHECK(xq_board_validate(&m, err) == 0);
    CHECK(xq_board_validate(&f, err) == 0);
    CHECK(legal_count(&m) == nl);
    CHECK(legal_count(&f) == nl);
    return 0;
}
