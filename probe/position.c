/*
 * position.c - the public position and move functions of xqtb.h, as thin
 * conversions onto the rules core.
 */
#include <string.h>

#include "fen.h"
#include "movegen.h"
#include "position_internal.h"
#include "xqtb.h"

int xqtb_version_number(void) { return XQTB_VERSION_NUMBER; }

const char *xqtb_status_string(int status)
{
    switch (status) {
    case XQTB_OK: return "ok";
    case XQTB_ERR_INVALID: return "invalid input";
    case XQTB_ERR_NO_TABLE: return "no table for this material";
    case XQTB_ERR_NOT_COVERED: return "position not covered by the tables";
    case XQTB_ERR_CORRUPT: return "table file damaged";
    case XQTB_ERR_MISMATCH: return "table built under other rules or format";
    case XQTB_ERR_IO: return "file could not be read";
    case XQTB_ERR_NOMEM: return "out of memory";
    default: return "unknown status";
    }
}

static void to_public(const xq_board *b, xqtb_position *pos)
{
    for (int s = 0; s < XQ_SQUARES; s++) {
        xq_piece p = b->sq[s];
        pos->board[s] = p == EMPTY ? 0 : (int8_t)(colour_of(p) == RED ? kind_of(p) : -kind_of(p));
    }
    pos->side = b->side;
}

/* Puts the piece of public code v on square sq of b, checking only what
 * keeps every later step in bounds: the code, one king a side at most. */
static int put_piece(xq_board *b, int sq, int v, char err[XQ_ERR_MAX])
{
    if (v < -7 || v > 7) {
        strcpy(err, "piece code out of range (-7..7)");
        return XQTB_ERR_INVALID;
    }
    int colour = v > 0 ? RED : BLACK, kind = v > 0 ? v : -v;
    if (kind == KING && b->king[colour] != XQ_SQUARES) {
        strcpy(err, colour == RED ? "red has more than one king" : "black has more than one king");
        return XQTB_ERR_INVALID;
    }
    xq_board_put(b, sq, make_piece(colour, kind));
    return XQTB_OK;
}

/* Puts pos's pieces on b (put_piece's checks) and the side to move.
 * Returns XQTB_OK or XQTB_ERR_INVALID with the reason in err. */
static int put_pieces(const xqtb_position *pos, xq_board *b, char err[XQ_ERR_MAX])
{
    xq_board_clear(b);
    /* eight squares at a time, a bit scan to each piece: endgame boards
     * are mostly empty, and every probe starts here */
    for (int s = 0; s < XQ_SQUARES; s += 8) {
        uint64_t w = 0;
        if (s + 8 <= XQ_SQUARES)
            memcpy(&w, pos->board + s, 8);
        else
            for (int i = 0; s + i < XQ_SQUARES; i++) w |= (uint64_t)(uint8_t)pos->board[s + i] << 8 * i;
        while (w) {
            int byte = __builtin_ctzll(w) >> 3;
            w &= ~((uint64_t)0xFF << 8 * byte);
            if (put_piece(b, s + byte, pos->board[s + byte], err)) return XQTB_ERR_INVALID;
        }
    }
    if (pos->side > 1) {
        strcpy(err, "side to move must be 0 (red) or 1 (black)");
        return XQTB_ERR_INVALID;
    }
    b->side = pos->side;
    return XQTB_OK;
}

/* Converts and validates; the core board is what every other call uses. */
int xq_position_to_board(const xqtb_position *pos, xq_board *b, char err[XQ_ERR_MAX])
{
    char dummy[XQ_ERR_MAX];
    if (!err) err = dummy;
    if (!pos) {
        strcpy(err, "null position");
        return XQTB_ERR_INVALID;
    }
    if (put_pieces(pos, b, err)) return XQTB_ERR_INVALID;
    return xq_board_validate(b, err) ? XQTB_ERR_INVALID : XQTB_OK;
}

int xq_position_to_board_trusted(const xqtb_position *pos, xq_board *b)
{
    char err[XQ_ERR_MAX];
    if (!pos || put_pieces(pos, b, err)) return XQTB_ERR_INVALID;
    /* a king of each side: the move generator and the index rely on it */
    return b->king[RED] == XQ_SQUARES || b->king[BLACK] == XQ_SQUARES ? XQTB_ERR_INVALID : XQTB_OK;
}

xqtb_status xqtb_position_from_fen(const char *fen, xqtb_position *pos, char err[XQTB_ERR_MAX])
{
    xq_board b;
    char dummy[XQ_ERR_MAX];
    if (!err) err = dummy;
    /* checked here, not left to the parser: it would parse into b and only
     * then find nowhere to put the result */
    if (!pos) {
        strcpy(err, "null position");
        return XQTB_ERR_INVALID;
    }
    if (!fen) {
        strcpy(err, "null FEN");
        return XQTB_ERR_INVALID;
    }
    if (xq_fen_parse(fen, &b, err)) return XQTB_ERR_INVALID;
    to_public(&b, pos);
    return XQTB_OK;
}

xqtb_status xqtb_position_validate(const xqtb_position *pos, char err[XQTB_ERR_MAX])
{
    xq_board b;
    return xq_position_to_board(pos, &b, err);
}

xqtb_status xqtb_position_to_fen(const xqtb_position *pos, char buf[XQTB_FEN_MAX])
{
    xq_board b;
    if (!buf || xq_position_to_board(pos, &b, NULL)) return XQTB_ERR_INVALID;
    xq_fen_write(&b, buf);
    return XQTB_OK;
}

int xqtb_legal_moves(const xqtb_position *pos, uint16_t moves[XQTB_MAX_MOVES])
{
    xq_board b;
    if (!moves || xq_position_to_board(pos, &b, NULL)) return XQTB_ERR_INVALID;
    return xq_gen_legal(&b, moves);
}

xqtb_status xqtb_play(xqtb_position *pos, uint16_t move)
{
    xq_board b;
    xq_undo u;
    if (xq_position_to_board(pos, &b, NULL) || !xq_move_valid(&b, move)) return XQTB_ERR_INVALID;
    xq_make_move(&b, move, &u);
    to_public(&b, pos);
    return XQTB_OK;
}

void xqtb_move_name(uint16_t move, char buf[XQTB_MOVE_NAME_MAX])
{
    if (!buf) return;
    if (move_from(move) >= XQ_SQUARES || move_to(move) >= XQ_SQUARES) {
        strcpy(buf, "0000");
        return;
    }
    xq_move_name(move, buf);
}

uint16_t xqtb_move_parse(const char *text)
{
    if (!text || strlen(text) < 4) return 0;
    int from = xq_parse_square(text), to = xq_parse_square(text + 2);
    if (from < 0 || to < 0 || from == to || (text[4] && text[4] != ' ' && text[4] != '\n')) return 0;
    return make_move(from, to);
}

uint64_t xqtb_perft(const xqtb_position *pos, int depth)
{
    xq_board b;
    /* the count recurses a ply at a time: a bound keeps a caller's depth
     * from overflowing the stack (no depth near it finishes anyway) */
    if (depth > XQTB_PERFT_MAX_DEPTH || xq_position_to_board(pos, &b, NULL)) return 0;
    return xq_perft(&b, depth);
}

int xqtb_in_check(const xqtb_position *pos)
{
    xq_board b;
    if (xq_position_to_board(pos, &b, NULL)) return XQTB_ERR_INVALID;
    return xq_in_check(&b, b.side) ? 1 : 0;
}
