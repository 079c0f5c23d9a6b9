/*
 * geometry.c - fills the move-pattern tables of geometry.h.
 */
#include "geometry.h"

#include <stdlib.h>
#include <string.h>

xq_geometry xq_geo;

const uint8_t xq_kind_limit[KIND_NB] = {0, 1, 2, 2, 2, 2, 2, 5};

static bool on_board(int f, int r) { return f >= 0 && f < 9 && r >= 0 && r < 10; }

/* Filled by the constructor below from square_rule. */
static bool allowed[COLOUR_NB][KIND_NB][XQ_SQUARES];

bool xq_square_allowed(int colour, int kind, int sq)
{
    if (colour < 0 || colour > 1 || kind < 0 || kind >= KIND_NB || sq < 0 || sq >= XQ_SQUARES) return false;
    return allowed[colour][kind][sq];
}

static bool square_rule(int colour, int kind, int sq)
{
    int f = file_of(sq), r = rank_of(sq);
    int rr = colour == RED ? r : 9 - r; /* rank from the colour's own side */
    switch (kind) {
    case KING: return in_palace(colour, sq);
    case ADVISOR:
        /* d0 f0 e1 d2 f2: the palace points whose file+rank is odd. */
        return in_palace(colour, sq) && (f + rr) % 2 == 1;
    case ELEPHANT:
        /* a2 c0 c4 e2 g0 g4 i2: even file, even rank, own half, and the
         * file/rank parities of the seven points. */
        if (rr > 4 || f % 2 != 0 || rr % 2 != 0) return false;
        return (f % 4 == 0) == (rr == 2);
    case PAWN:
        /* A pawn starts on its rank 3; before the river it only advances,
         * so ranks 3-4 hold pawns on files a, c, e, g, i only. */
        if (rr < 3) return false;
        if (rr <= 4) return f % 2 == 0;
        return true;
    case HORSE:
    case ROOK:
    case CANNON: return true;
    default: return false;
    }
}

static void fill_list(uint8_t *list, int *n, int sq) { list[(*n)++] = (uint8_t)sq; }

static void init_geometry(void)
{
    static const int orth[4][2] = {{0, 1}, {0, -1}, {1, 0}, {-1, 0}};
    static const int diag[4][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}};
    memset(&xq_geo, XQ_END, sizeof xq_geo);
    memset(xq_geo.ray_bits, 0, sizeof xq_geo.ray_bits); /* sets, not lists */
    memset(xq_geo.horse_from_bits, 0, sizeof xq_geo.horse_from_bits);
    for (int sq = 0; sq < XQ_SQUARES; sq++) {
        int f = file_of(sq), r = rank_of(sq);
        int n;
        /* King and advisor: inside whichever palace holds the square. */
        int pal = in_palace(RED, sq) ? RED : in_palace(BLACK, sq) ? BLACK : -1;
        if (pal >= 0) {
            n = 0;
            for (int d = 0; d < 4; d++) {
                int tf = f + orth[d][0], tr = r + orth[d][1];
                if (on_board(tf, tr) && in_palace(pal, make_square(tf, tr)))
                    fill_list(xq_geo.king[sq], &n, make_square(tf, tr));
            }
            n = 0;
            for (int d = 0; d < 4; d++) {
                int tf = f + diag[d][0], tr = r + diag[d][1];
                if (on_board(tf, tr) && in_palace(pal, make_square(tf, tr)))
                    fill_list(xq_geo.advisor[sq], &n, make_square(tf, tr));
            }
        }
        /* Elephant: two diagonal steps, never across the river. */
        n = 0;
        for (int d = 0; d < 4; d++) {
            int tf = f + 2 * diag[d][0], tr = r + 2 * diag[d][1];
            if (!on_board(tf, tr)) continue;
            int to = make_square(tf, tr);
            if ((sq < 45) != (to < 45)) continue;
            xq_geo.elephant[sq][n].to = (uint8_t)to;
            xq_geo.elephant[sq][n].block = (uint8_t)make_square(f + diag[d][0], r + diag[d][1]);
            n++;
        }
        /* Horse: one orthogonal step (the leg) then one diagonal step out. */
        n = 0;
        for (int d = 0; d < 4; d++) {
            int lf = f + orth[d][0], lr = r + orth[d][1];
            for (int s = -1; s <= 1; s += 2) {
                int tf = lf + orth[d][0] + (orth[d][0] == 0 ? s : 0);
                int tr = lr + orth[d][1] + (orth[d][1] == 0 ? s : 0);
                if (!on_board(tf, tr)) continue;
                xq_geo.horse[sq][n].to = (uint8_t)make_square(tf, tr);
                xq_geo.horse[sq][n].block = (uint8_t)make_square(lf, lr);
                n++;
            }
        }
        /* Rays. */
        for (int d = 0; d < 4; d++) {
            n = 0;
            for (int tf = f + orth[d][0], tr = r + orth[d][1]; on_board(tf, tr); tf += orth[d][0], tr += orth[d][1]) {
                int to = make_square(tf, tr);
                xq_geo.ray[sq][d][n++] = (uint8_t)to;
                xq_geo.ray_bits[sq][d][to / 64] |= (uint64_t)1 << (to % 64);
            }
        }
        /* Pawns. */
        for (int c = 0; c < 2; c++) {
            int fwd = c == RED ? 1 : -1;
            n = 0;
            if (on_board(f, r + fwd)) fill_list(xq_geo.pawn[c][sq], &n, make_square(f, r + fwd));
            if (!own_half(c, sq)) {
                if (f > 0) fill_list(xq_geo.pawn[c][sq], &n, sq - 1);
                if (f < 8) fill_list(xq_geo.pawn[c][sq], &n, sq + 1);
            }
        }
    }
    for (int a = 0; a < XQ_SQUARES; a++)
        for (int b = 0; b < XQ_SQUARES; b++) {
            int df = abs(file_of(a) - file_of(b)), dr = abs(rank_of(a) - rank_of(b));
            if (a == b) {
                xq_geo.relation[a][b] = 0;
                continue;
            }
            xq_geo.relation[a][b] =
                (uint8_t)((df == 0 || dr == 0 ? XQ_REL_LINE : 0) | (df + dr == 1 ? XQ_REL_ORTH1 : 0) |
                          (df == 1 && dr == 1 ? XQ_REL_DIAG1 : 0) | (df == 2 && dr == 2 ? XQ_REL_DIAG2 : 0) |
                          (df * dr == 2 ? XQ_REL_HORSE : 0));
        }
    for (int c = 0; c < COLOUR_NB; c++)
        for (int k = 0; k < KIND_NB; k++)
            for (int sq = 0; sq < XQ_SQUARES; sq++) allowed[c][k][sq] = square_rule(c, k, sq);
    /* Backward tables are the forward ones inverted. */
    int hn[XQ_SQUARES] = {0}, pn[COLOUR_NB][XQ_SQUARES] = {{0}};
    for (int sq = 0; sq < XQ_SQUARES; sq++) {
        for (const xq_step *h = xq_geo.horse[sq]; h->to != XQ_END; h++) {
            xq_step *dst = &xq_geo.horse_from[h->to][hn[h->to]++];
            dst->to = (uint8_t)sq;
            dst->block = h->block;
            xq_geo.horse_from_bits[h->to][sq / 64] |= (uint64_t)1 << (sq % 64);
        }
        for (int c = 0; c < 2; c++)
            for (const uint8_t *p = xq_geo.pawn[c][sq]; *p != XQ_END; p++)
                xq_geo.pawn_from[c][*p][pn[c][*p]++] = (uint8_t)sq;
    }
}

/* Runs when the program or shared library is loaded, before any thread can
 * exist, so readers never see a half-filled table.  Priority 101, the first
 * a program may use: index.c's tables (102) are built from these. */
__attribute__((constructor(101))) static void geometry_constructor(void) { init_geometry(); }
