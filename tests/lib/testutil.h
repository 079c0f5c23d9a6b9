/*
 * testutil.h - small helpers shared by the cmocka tests.  Header-only and
 * static so each test binary stays self-contained.
 */
#ifndef XQ_TESTUTIL_H
#define XQ_TESTUTIL_H

/* cmocka needs these before its own header. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "fen.h"
#include "movegen.h"

static const char START_FEN[] = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";

/* Builds a FEN from a piece list such as "Ke0 Ra2 kd9 re8" (FEN letter, then
 * square) and the side to move ("w" or "b").  Written independently of
 * xq_fen_write so that fixtures read like diagrams and do not depend on the
 * code under test.  The result lives in a static buffer. */
static inline const char *fen_of(const char *pieces, const char *side)
{
    static char out[XQ_FEN_MAX];
    char grid[10][9];
    memset(grid, 0, sizeof grid);
    for (const char *p = pieces; *p;) {
        if (*p == ' ') {
            p++;
            continue;
        }
        int f = p[1] - 'a', r = p[2] - '0';
        if (f < 0 || f > 8 || r < 0 || r > 9) fail_msg("bad piece token in fixture: %s", p);
        if (grid[r][f]) fail_msg("two pieces on one square in fixture: %s", pieces);
        grid[r][f] = p[0];
        p += 3;
    }
    size_t o = 0;
    for (int r = 9; r >= 0; r--) {
        int empty = 0;
        for (int f = 0; f < 9; f++) {
            if (!grid[r][f]) {
                empty++;
                continue;
            }
            if (empty) out[o++] = (char)('0' + empty);
            empty = 0;
            out[o++] = grid[r][f];
        }
        if (empty) out[o++] = (char)('0' + empty);
        if (r) out[o++] = '/';
    }
    snprintf(out + o, sizeof out - o, " %s - - 0 1", side);
    return out;
}

/* Parses a FEN the test relies on being valid; a rejection fails the test
 * with the parser's reason, which is what one needs to fix the fixture. */
static inline void parse_ok(const char *fen, xq_board *b)
{
    char err[XQ_ERR_MAX] = "";
    if (xq_fen_parse(fen, b, err) != 0) fail_msg("valid FEN rejected: %s (%s)", fen, err);
}

static inline int sq_of(const char *name)
{
    int s = xq_parse_square(name);
    if (s >= 0) return s;
    fail_msg("bad square name in test: %s", name);
    /* not reached; said so that no compiler sees a square -1 indexing a
     * board (gcc's -Warray-bounds did, in the sanitizer build) */
    return 0;
}

static inline int cmp_str4(const void *a, const void *b) { return strcmp((const char *)a, (const char *)b); }

/* Sorted, space-separated names of the moves in list whose origin is `from`
 * (every move if from < 0).  Sorting makes the expected strings in the tests
 * independent of generation order. */
static inline void format_moves(const xq_move *list, int n, int from, char *out, size_t cap)
{
    char names[XQ_MAX_MOVES][5];
    int k = 0;
    for (int i = 0; i < n; i++)
        if (from < 0 || move_from(list[i]) == from) xq_move_name(list[i], names[k++]);
    qsort(names, (size_t)k, sizeof names[0], cmp_str4);
    size_t o = 0;
    out[0] = 0;
    for (int i = 0; i < k && o + 6 < cap; i++) o += (size_t)snprintf(out + o, cap - o, "%s%s", i ? " " : "", names[i]);
}

/* Legal moves of the piece on square `from` of fen, formatted as above. */
static inline void legal_from(const char *fen, const char *from, char *out, size_t cap)
{
    xq_board b;
    xq_move list[XQ_MAX_MOVES];
    parse_ok(fen, &b);
    int n = xq_gen_legal(&b, list);
    format_moves(list, n, from ? sq_of(from) : -1, out, cap);
}

#define assert_legal_from(fen, from, expected)                                                                         \
    do {                                                                                                               \
        char got_[1024];                                                                                               \
        legal_from((fen), (from), got_, sizeof got_);                                                                  \
        assert_string_equal(got_, (expected));                                                                         \
    } while (0)

/* Asserts that fen is rejected and that the message contains `needle`. */
#define assert_fen_error(fen, needle)                                                                                  \
    do {                                                                                                               \
        xq_board b_;                                                                                                   \
        char err_[XQ_ERR_MAX] = "";                                                                                    \
        assert_int_equal(xq_fen_parse((fen), &b_, err_), -1);                                                          \
        if (!strstr(err_, (needle))) fail_msg("error '%s' does not mention '%s'", err_, (needle));                     \
    } while (0)

/* Every field of the board, so that make/unmake tests catch a stale mask or
 * king square that xq_board_equal (squares and side only) would miss. */
static inline void assert_board_identical(const xq_board *a, const xq_board *b)
{
    assert_memory_equal(a->sq, b->sq, sizeof a->sq);
    assert_int_equal(a->side, b->side);
    assert_int_equal(a->king[RED], b->king[RED]);
    assert_int_equal(a->king[BLACK], b->king[BLACK]);
    assert_true(a->occ[RED] == b->occ[RED]);
    assert_true(a->occ[BLACK] == b->occ[BLACK]);
    assert_int_equal(a->rule60, b->rule60);
    assert_int_equal(a->fullmove, b->fullmove);
}

/* A xorshift generator (Marsaglia, "Xorshift RNGs", 2003) over *state,
 * which must not be 0: random test data that is the same on every run. */
static inline uint64_t test_xorshift(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

#endif
