/*
 * fen.c - FEN parsing, printing and position validation; square and move
 * names.
 */
#include "fen.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "geometry.h"

static const char kind_letters[KIND_NB] = {'.', 'K', 'A', 'B', 'N', 'R', 'C', 'P'};
static const char *const kind_names[KIND_NB] = {"", "king", "advisor", "elephant", "horse", "rook", "cannon", "pawn"};

char xq_piece_char(xq_piece p)
{
    if (p == EMPTY) return '.';
    char c = kind_letters[kind_of(p)];
    return colour_of(p) == RED ? c : (char)(c - 'A' + 'a');
}

int xq_kind_from_char(char c)
{
    switch (c) {
    case 'K': return KING;
    case 'A': return ADVISOR;
    case 'B':
    case 'E': return ELEPHANT;
    case 'N':
    case 'H': return HORSE;
    case 'R': return ROOK;
    case 'C': return CANNON;
    case 'P': return PAWN;
    default: return NO_KIND;
    }
}

void xq_square_name(int sq, char buf[3])
{
    buf[0] = (char)('a' + file_of(sq));
    buf[1] = (char)('0' + rank_of(sq));
    buf[2] = 0;
}

void xq_move_name(xq_move m, char buf[5])
{
    xq_square_name(move_from(m), buf);
    xq_square_name(move_to(m), buf + 2);
}

int xq_parse_square(const char *s)
{
    if (s[0] < 'a' || s[0] > 'i' || s[1] < '0' || s[1] > '9') return -1;
    return make_square(s[0] - 'a', s[1] - '0');
}

static int fail(char err[XQ_ERR_MAX], const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, XQ_ERR_MAX, fmt, ap);
    va_end(ap);
    return -1;
}

/* User text quoted in a message, at most QUOTE_MAX characters and "..."
 * after them if there were more (a quote cut short must not read as the
 * whole field: '99999999' for 99999999999), with anything but printable
 * ASCII shown as '?': a message must stay one readable line whatever bytes
 * the input held (control characters, UTF-8 fragments). */
enum { QUOTE_MAX = 8, QUOTE_BUF = QUOTE_MAX + 4 };
static const char *quote(const char *s, size_t len, char buf[QUOTE_BUF])
{
    size_t n = len > QUOTE_MAX ? QUOTE_MAX : len;
    for (size_t i = 0; i < n; i++) buf[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
    buf[n] = 0;
    if (len > QUOTE_MAX) memcpy(buf + n, "...", 4);
    return buf;
}

static const char *colour_name(int c) { return c == RED ? "red" : "black"; }

int xq_board_validate(const xq_board *b, char err[XQ_ERR_MAX])
{
    int count[COLOUR_NB][KIND_NB] = {{0}};
    /* Over the occupancy masks, which every board built with
     * xq_board_put keeps equal to the squares; checked on the way. */
    if (mask_count(b->occ[RED]) + mask_count(b->occ[BLACK]) > 32 || (b->occ[RED] & b->occ[BLACK]))
        return fail(err, "inconsistent board");
    xq_mask all = b->occ[RED] | b->occ[BLACK];
    while (all) {
        int sq = mask_pop_lsb(&all);
        xq_piece p = b->sq[sq];
        int c = colour_of(p), k = kind_of(p);
        if (p == EMPTY || !(b->occ[c] & mask_of(sq))) return fail(err, "inconsistent board");
        if (k == NO_KIND || p >= PIECE_NB) return fail(err, "invalid piece code %d", p);
        count[c][k]++;
        if (!xq_square_allowed(c, k, sq)) {
            char name[3];
            xq_square_name(sq, name);
            return fail(err, "%s %s on %s: it can never stand there", colour_name(c), kind_names[k], name);
        }
    }
    for (int c = 0; c < 2; c++) {
        if (count[c][KING] == 0) return fail(err, "%s has no king", colour_name(c));
        for (int k = 1; k < KIND_NB; k++)
            if (count[c][k] > xq_kind_limit[k])
                return fail(err, "%s has %d %ss; at most %d", colour_name(c), count[c][k], kind_names[k],
                            xq_kind_limit[k]);
    }
    if (xq_kings_facing(b)) return fail(err, "the kings face each other on an open file");
    if (xq_in_check(b, b->side ^ 1))
        return fail(err, "%s is in check but it is %s to move", colour_name(b->side ^ 1), colour_name(b->side));
    return 0;
}

static int parse_number(const char *s, size_t len, unsigned max, unsigned *out)
{
    if (len == 0 || len > 6) return -1;
    unsigned v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        v = v * 10 + (unsigned)(s[i] - '0');
    }
    if (v > max) return -1;
    *out = v;
    return 0;
}

static int parse_placement(const char *s, size_t len, xq_board *b, char err[XQ_ERR_MAX])
{
    int rank = 9, file = 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (c == '/') {
            if (file != 9) return fail(err, "rank %d has %d files, not 9", rank, file);
            if (--rank < 0) return fail(err, "more than 10 ranks");
            file = 0;
        } else if (c >= '1' && c <= '9') {
            if (i > 0 && s[i - 1] >= '1' && s[i - 1] <= '9') return fail(err, "two digits in a row in rank %d", rank);
            file += c - '0';
            if (file > 9) return fail(err, "rank %d has more than 9 files", rank);
        } else {
            int upper = c >= 'A' && c <= 'Z';
            int kind = xq_kind_from_char(upper ? c : (char)(c - 'a' + 'A'));
            if (kind == NO_KIND || !(upper || (c >= 'a' && c <= 'z'))) {
                if (c >= 0x20 && c < 0x7f) return fail(err, "unknown piece letter '%c'", c);
                return fail(err, "unexpected byte 0x%02x in rank %d", (unsigned char)c, rank);
            }
            if (file >= 9) return fail(err, "rank %d has more than 9 files", rank);
            int sq = make_square(file, rank);
            if (kind == KING && b->king[upper ? RED : BLACK] != XQ_SQUARES)
                return fail(err, "%s has more than one king", upper ? "red" : "black");
            xq_board_put(b, sq, make_piece(upper ? RED : BLACK, kind));
            file++;
        }
    }
    if (file != 9) return fail(err, "rank %d has %d files, not 9", rank, file);
    if (rank != 0) return fail(err, "%d ranks, not 10", 10 - rank);
    return 0;
}

int xq_fen_parse(const char *fen, xq_board *b, char err[XQ_ERR_MAX])
{
    const char *field[7];
    size_t flen[7];
    int nf = 0;
    xq_board_clear(b);
    if (!fen) return fail(err, "empty FEN");
    for (const char *p = fen; *p;) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
        if (!*p) break;
        if (nf == 6) return fail(err, "too many fields (at most 6)");
        field[nf] = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') p++;
        flen[nf] = (size_t)(p - field[nf]);
        nf++;
    }
    if (nf == 0) return fail(err, "empty FEN");
    if (nf < 2) return fail(err, "missing side to move (w or b)");
    if (parse_placement(field[0], flen[0], b, err)) return -1;
    char q[QUOTE_BUF];
    if (flen[1] != 1 || !strchr("wrb", field[1][0]))
        return fail(err, "side to move must be w (or r) or b, not '%s'", quote(field[1], flen[1], q));
    b->side = field[1][0] == 'b' ? BLACK : RED;
    /* Fields 3 and 4 are chess's castling and en passant; Xiangqi FEN keeps
     * them as "-". */
    for (int i = 2; i < nf && i < 4; i++)
        if (flen[i] != 1 || field[i][0] != '-')
            return fail(err, "field %d must be '-', not '%s'", i + 1, quote(field[i], flen[i], q));
    unsigned v;
    if (nf > 4) {
        if (parse_number(field[4], flen[4], 65535, &v))
            return fail(err, "bad move counter '%s'", quote(field[4], flen[4], q));
        b->rule60 = (uint16_t)v;
    }
    if (nf > 5) {
        if (parse_number(field[5], flen[5], 65535, &v) || v == 0)
            return fail(err, "bad move number '%s'", quote(field[5], flen[5], q));
        b->fullmove = (uint16_t)v;
    }
    return xq_board_validate(b, err);
}

void xq_fen_write(const xq_board *b, char buf[XQ_FEN_MAX])
{
    char *o = buf;
    for (int rank = 9; rank >= 0; rank--) {
        int empty = 0;
        for (int file = 0; file < 9; file++) {
            xq_piece p = b->sq[make_square(file, rank)];
            if (p == EMPTY) {
                empty++;
                continue;
            }
            if (empty) *o++ = (char)('0' + empty);
            empty = 0;
            *o++ = xq_piece_char(p);
        }
        if (empty) *o++ = (char)('0' + empty);
        if (rank) *o++ = '/';
    }
    snprintf(o, (size_t)(XQ_FEN_MAX - (o - buf)), " %c - - %u %u", b->side == RED ? 'w' : 'b', (unsigned)b->rule60,
             (unsigned)b->fullmove);
}
