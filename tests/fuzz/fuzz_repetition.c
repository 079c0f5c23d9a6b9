/*
 * fuzz_repetition.c - xqtb_judge_repetition and xqtb_label_move on any
 * input: the bytes up to the first newline are a FEN, the rest pairs of
 * bytes read as moves (most of them illegal, which must be refused).  A
 * legal record must be judged under every rule set, with a verdict that
 * agrees with itself: the rulings only add losses to `none`'s draws, a
 * loss names its ruling, and judging a record again gives the same.  The
 * arbiters' rule sets (asian, cxa) are judged and labelled too (cxa's
 * chases hold full's, and chases made real).
 */
#include <string.h>

#include "fuzz_check.h"
#include "xqtb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nl = memchr(data, '\n', size);
    size_t flen = nl ? (size_t)(nl - data) : size;
    if (flen >= XQTB_FEN_MAX) return 0;
    char fen[XQTB_FEN_MAX];
    memcpy(fen, data, flen);
    fen[flen] = 0;
    xqtb_position start;
    if (xqtb_position_from_fen(fen, &start, NULL) != XQTB_OK) return 0;
    size_t rest = nl ? size - flen - 1 : 0;
    int n = (int)(rest / 2 > 512 ? 512 : rest / 2);
    uint16_t moves[512];
    for (int i = 0; i < n; i++) {
        /* a byte pair names squares 0..255 each: fold onto the board so
         * that some moves are legal */
        uint8_t from = nl[1 + 2 * i] % 90, to = nl[2 + 2 * i] % 90;
        moves[i] = xqtb_make_move(from, to);
    }
    /* keep the legal prefix, labelling each move on the way */
    xqtb_position p = start;
    int legal = 0;
    while (legal < n) {
        xqtb_label l;
        xqtb_status st = xqtb_label_move(&p, moves[legal], &l);
        if (st != XQTB_OK) break;
        CHECK(l.nchased <= 16 && (!l.check || l.nchased == 0));
        for (int i = 0; i < l.nchased; i++) CHECK(l.chased[i] < 90 && (i == 0 || l.chased[i - 1] < l.chased[i]));
        xqtb_label la;
        uint8_t threat = 2;
        CHECK(xqtb_label_move_rules(&p, moves[legal], XQTB_RULES_CXA, &la, &threat) == XQTB_OK);
        CHECK(la.check == l.check && la.nchased <= 16 && threat <= 1 && !(threat && la.check));
        /* cxa counts chases made real too: full's chases are among its
         * own, both lists ascending */
        for (int i = 0, k = 0; !l.check && i < l.nchased; i++, k++) {
            while (k < la.nchased && la.chased[k] < l.chased[i]) k++;
            CHECK(k < la.nchased && la.chased[k] == l.chased[i]);
        }
        for (int i = 1; i < la.nchased; i++) CHECK(la.chased[i - 1] < la.chased[i]);
        CHECK(xqtb_play(&p, moves[legal]) == XQTB_OK);
        legal++;
    }
    xqtb_repetition r[5], again;
    if (legal < n) CHECK(xqtb_judge_repetition(&start, moves, legal + 1, XQTB_RULES_FULL, &again) == XQTB_ERR_INVALID);
    for (int rules = XQTB_RULES_NONE; rules <= XQTB_RULES_CXA; rules++) {
        CHECK(xqtb_judge_repetition(&start, moves, legal, (xqtb_rule_set)rules, &r[rules]) == XQTB_OK);
        CHECK(xqtb_judge_repetition(&start, moves, legal, (xqtb_rule_set)rules, &again) == XQTB_OK);
        CHECK(!memcmp(&again, &r[rules], sizeof again));
        CHECK((r[rules].verdict == XQTB_RED_LOSES || r[rules].verdict == XQTB_BLACK_LOSES) ==
              (r[rules].by_rule != XQTB_BY_NONE));
        CHECK((r[rules].verdict == XQTB_NO_REPETITION) == (r[rules].first < 0));
        CHECK(r[rules].first < legal && (r[rules].first < 0 || r[rules].occurrences >= 2));
    }
    CHECK(r[XQTB_RULES_NONE].verdict == XQTB_NO_REPETITION || r[XQTB_RULES_NONE].verdict == XQTB_REPETITION_DRAW);
    if (r[XQTB_RULES_CHECK].verdict != XQTB_REPETITION_DRAW)
        CHECK(r[XQTB_RULES_FULL].verdict == r[XQTB_RULES_CHECK].verdict);
    if (r[XQTB_RULES_CHECK].by_rule) CHECK(r[XQTB_RULES_CHECK].by_rule == XQTB_BY_PERPETUAL_CHECK);
    /* asian differs from full only in what checking moves chase: clause 1
     * decides alike; and a perpetual check is a perpetual attack */
    if (r[XQTB_RULES_CHECK].verdict != XQTB_REPETITION_DRAW)
        CHECK(r[XQTB_RULES_ASIAN].verdict == r[XQTB_RULES_CHECK].verdict);
    CHECK(r[XQTB_RULES_ASIAN].by_rule <= XQTB_BY_PERPETUAL_CHASE &&
          r[XQTB_RULES_CXA].by_rule <= XQTB_BY_PERPETUAL_ATTACK);
    CHECK(r[XQTB_RULES_CXA].verdict == r[XQTB_RULES_NONE].verdict || r[XQTB_RULES_NONE].verdict != XQTB_NO_REPETITION);
    return 0;
}
