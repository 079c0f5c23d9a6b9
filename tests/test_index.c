/*
 * test_index.c - the position index of core/index.h.
 *
 * For a set of materials (single pieces, identical pairs, pawns, advisors,
 * elephants) every index is decoded and encoded again, every board the
 * material's pieces can form is encoded and the entries it hits are counted,
 * and the mirror fold, the colour flip, the incremental successor indices,
 * the layout's sizes and the number of legal positions (against the
 * reference solver) are checked.  A few
 * materials too large to walk are checked on random samples, which also
 * exercises the computed (table-less) unranking of five pawns.  How long
 * a decode and encode take is a benchmark's (scripts/bench-index), not
 * this test's.
 *
 * Under the sanitizer build (XQTB_SAN=1) the large walks take a stride or a
 * subset of king squares instead, to keep the binary well under 30 s.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "board.h"
#include "fen.h"
#include "index.h"
#include "material.h"
#include "movegen.h"
#include "ref_solver.h"

/* A failed check names the condition and the entry or board it failed on. */
#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            print_error("check failed: %s\n", #cond);                                                                  \
            fail_msg(__VA_ARGS__);                                                                                     \
        }                                                                                                              \
    } while (0)

/* The materials walked entry by entry. */
static const char *const full_materials[] = {"KRK", "KPK", "KAAKBB", "KPPKA", "KNKN", "KRKNAA", "KCPKAB"};
enum { NFULL = sizeof full_materials / sizeof full_materials[0] };

/* Materials only sampled at random: five pawns use the computed unranking;
 * the others mix many groups, identical pairs on both sides. */
static const char *const big_materials[] = {"KPPPPPK", "KPPPPPKPPPPP", "KRRNNCCKAABB", "KRNCPPKRAABB",
                                            "KAABBPPPKAABBPPP"};
enum { NBIG = sizeof big_materials / sizeof big_materials[0] };

static bool san_mode(void)
{
    const char *s = getenv("XQTB_SAN");
    if (s && strcmp(s, "1") == 0) return true;
#if defined(__SANITIZE_ADDRESS__)
    return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    return true;
#endif
#endif
    return false;
}

/* xorshift64*: a fixed seed keeps failures reproducible. */
static uint64_t rng_state = 0x2545F4914F6CDD1Dull;
static uint64_t rng(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}

static void load(const char *name, xq_material *m, xq_index *ix)
{
    char err[XQ_ERR_MAX];
    int rc = xq_material_parse(name, m, err);
    if (rc) fail_msg("%s: %s", name, err);
    assert_int_equal(xq_index_init(ix, m), 0);
}

static void fen_of(const xq_board *b, char buf[XQ_FEN_MAX]) { xq_fen_write(b, buf); }

/* ---- Squares, independently of the index -------------------------------- */
static uint8_t allowed_sq[COLOUR_NB][KIND_NB][XQ_SQUARES];
static int allowed_n[COLOUR_NB][KIND_NB];
static bool allowed_map[COLOUR_NB][KIND_NB][XQ_SQUARES];

static int setup(void **state)
{
    (void)state;
    for (int c = 0; c < 2; c++)
        for (int k = 1; k < KIND_NB; k++) {
            allowed_n[c][k] = ref_allowed_squares(c, k, allowed_sq[c][k]);
            for (int i = 0; i < allowed_n[c][k]; i++) allowed_map[c][k][allowed_sq[c][k][i]] = true;
        }
    return 0;
}

/* Exact binomial, written out here rather than taken from the core. */
static uint64_t choose(int n, int k)
{
    if (k < 0 || k > n) return 0;
    uint64_t r = 1;
    for (int i = 1; i <= k; i++) r = r * (uint64_t)(n - k + i) / (uint64_t)i;
    return r;
}

/* Whether each side's king, advisors and elephants stand symmetric to the
 * centre file: the positions whose index entry keeps both mirror images
 * of the rest (layout 2, core/index.h). */
static bool defenders_symmetric(const xq_board *b)
{
    for (int s = 0; s < XQ_SQUARES; s++) {
        int k = kind_of(b->sq[s]);
        bool def = b->sq[s] && (k == KING || k == ADVISOR || k == ELEPHANT);
        if (def && b->sq[mirror_square(s)] != b->sq[s]) return false;
    }
    return true;
}

/* Checks a decoded board: the material, every piece on a square of its
 * kind.  (That it is in folded form is the round trip's business.) */
static void check_decoded(const xq_index *ix, const xq_board *b, uint64_t i)
{
    /* Walks the occupancy masks, then checks they match the mailbox. */
    xq_material got;
    memset(&got, 0, sizeof got);
    int pieces = 0;
    for (int c = 0; c < 2; c++) {
        xq_mask occ = b->occ[c];
        while (occ) {
            int s = mask_pop_lsb(&occ);
            xq_piece p = b->sq[s];
            CHECK(p != EMPTY && colour_of(p) == c, "entry %llu: masks and squares disagree on %d",
                  (unsigned long long)i, s);
            int k = kind_of(p);
            got.count[c][k]++;
            pieces++;
            CHECK(allowed_map[c][k][s], "entry %llu puts %c on square %d", (unsigned long long)i, xq_piece_char(p), s);
        }
    }
    CHECK(xq_material_equal(&got, &ix->mat), "entry %llu decodes to a different material", (unsigned long long)i);
    CHECK(pieces == xq_material_pieces(&ix->mat), "entry %llu: stray pieces", (unsigned long long)i);
    CHECK(b->sq[b->king[RED]] == make_piece(RED, KING) && b->sq[b->king[BLACK]] == make_piece(BLACK, KING),
          "entry %llu: king squares", (unsigned long long)i);
}

/* Stride for walking all indices: 1 normally, about `budget` entries under
 * the sanitizer.  Odd, so that the last group still runs through its values. */
static uint64_t walk_stride(uint64_t size, uint64_t budget)
{
    if (!san_mode() || size <= budget) return 1;
    return (size / budget) | 1;
}

/* ---- 1. decode then encode --------------------------------------------- */
static void test_decode_encode_roundtrip(void **state)
{
    (void)state;
    for (int t = 0; t < NFULL; t++) {
        xq_material m;
        xq_index ix;
        load(full_materials[t], &m, &ix);
        uint64_t stride = walk_stride(ix.size, 400000), broken = 0, ok = 0;
        for (uint64_t i = 0; i < ix.size; i += stride) {
            xq_board b;
            if (!xq_index_decode(&ix, i, &b)) {
                broken++;
                continue;
            }
            ok++;
            check_decoded(&ix, &b, i);
            uint64_t e = xq_index_encode(&ix, &b, 0);
            if (e != i) {
                char fen[XQ_FEN_MAX];
                fen_of(&b, fen);
                fail_msg("%s: entry %llu decodes to %s which encodes to %llu", full_materials[t], (unsigned long long)i,
                         fen, (unsigned long long)e);
            }
        }
        /* Out of range. */
        xq_board b;
        assert_false(xq_index_decode(&ix, ix.size, &b));
        assert_false(xq_index_decode(&ix, UINT64_MAX, &b));
        print_message("  %-8s %9llu entries%s: %llu decode, %llu broken\n", full_materials[t],
                      (unsigned long long)ix.size, stride > 1 ? " (sampled)" : "", (unsigned long long)ok,
                      (unsigned long long)broken);
        assert_true(ok > 0);
        xq_index_free(&ix);
    }
}

/* ---- 1b. every board, encoded --------------------------------------------
 * Every board of the material's pieces on their squares (kings anywhere in
 * their palaces, identical pieces as sets) is encoded; the number of boards
 * hitting each entry must be its weight if the entry decodes, 0 if broken. */
typedef struct {
    const xq_index *ix;
    int npieces;
    xq_piece piece[16];
    bool same_prev[16];
    int placed[16];
    xq_board b;
    uint8_t *hits;
    uint64_t boards;
    const char *name;
} enum_ctx;

static void visit_board(enum_ctx *e)
{
    const xq_board *b = &e->b;
    uint64_t i = xq_index_encode(e->ix, b, 0);
    char fen[XQ_FEN_MAX];
    if (i >= e->ix->size) {
        fen_of(b, fen);
        fail_msg("%s: %s encodes to %llu (size %llu)", e->name, fen, (unsigned long long)i,
                 (unsigned long long)e->ix->size);
    }
    xq_board d, mb;
    bool ok = xq_index_decode(e->ix, i, &d);
    bool same = ok && xq_board_equal(&d, b);
    if (ok && !same && !defenders_symmetric(b)) {
        xq_board_mirror(b, &mb);
        same = xq_board_equal(&d, &mb);
    }
    if (!same) {
        fen_of(b, fen);
        fail_msg("%s: %s encodes to %llu, which decodes %s", e->name, fen, (unsigned long long)i,
                 ok ? "to another board" : "as broken");
    }
    if (e->hits[i] < 255) e->hits[i]++;
    e->boards++;
}

static void place(enum_ctx *e, int p)
{
    if (p == e->npieces) {
        visit_board(e);
        return;
    }
    xq_piece pc = e->piece[p];
    int c = colour_of(pc), k = kind_of(pc);
    for (int j = 0; j < allowed_n[c][k]; j++) {
        int s = allowed_sq[c][k][j];
        if (e->same_prev[p] && s <= e->placed[p - 1]) continue;
        if (e->b.sq[s]) continue;
        xq_board_put(&e->b, s, pc);
        e->placed[p] = s;
        place(e, p + 1);
        xq_board_remove(&e->b, s);
    }
}

static void test_encode_every_board(void **state)
{
    (void)state;
    /* Under the sanitizer only boards with the red king on e1 (a square its
     * own mirror image) are walked, and only their entries checked. */
    const int sample_king = make_square(4, 1);
    for (int t = 0; t < NFULL; t++) {
        xq_material m;
        xq_index ix;
        load(full_materials[t], &m, &ix);
        bool subset = san_mode() && ix.size > 400000;
        enum_ctx *e = calloc(1, sizeof *e);
        assert_non_null(e);
        e->ix = &ix;
        e->name = full_materials[t];
        e->hits = calloc(ix.size, 1);
        assert_non_null(e->hits);
        for (int c = 0; c < 2; c++)
            for (int o = 0; o < 6; o++) {
                int k = xq_material_order[o];
                for (int j = 0; j < m.count[c][k]; j++) {
                    e->same_prev[e->npieces] = j > 0;
                    e->piece[e->npieces++] = make_piece(c, k);
                }
            }
        xq_board_clear(&e->b);
        for (int a = 0; a < allowed_n[RED][KING]; a++) {
            int rk = allowed_sq[RED][KING][a];
            if (subset && rk != sample_king) continue;
            for (int z = 0; z < allowed_n[BLACK][KING]; z++) {
                int bk = allowed_sq[BLACK][KING][z];
                xq_board_put(&e->b, rk, make_piece(RED, KING));
                xq_board_put(&e->b, bk, make_piece(BLACK, KING));
                place(e, 0);
                xq_board_remove(&e->b, rk);
                xq_board_remove(&e->b, bk);
            }
        }
        /* Entries by defender pair: the pair's block is checked if its red
         * king was walked (e1 is its own mirror image, so a board with the
         * red king there keeps it there), else it must not have been hit. */
        uint64_t distinct = 0, decodable = 0, weight_sum = 0;
        for (uint64_t v = 0; v < ix.pairs; v++) {
            uint64_t base = v * ix.pair_stride;
            int rk = -1;
            for (uint64_t i = base; i < base + ix.pair_stride && rk < 0; i++) {
                xq_board b;
                if (xq_index_decode(&ix, i, &b)) rk = b.king[RED];
            }
            CHECK(rk >= 0, "%s: defender pair %llu has no decodable entry", full_materials[t], (unsigned long long)v);
            bool walked = !subset || rk == sample_king;
            for (uint64_t i = base; i < base + ix.pair_stride; i++) {
                if (!walked) {
                    CHECK(e->hits[i] == 0, "%s: entry %llu hit from outside its defender pair", full_materials[t],
                          (unsigned long long)i);
                    continue;
                }
                xq_board b;
                bool ok = xq_index_decode(&ix, i, &b);
                int want = ok ? xq_index_weight(&ix, i) : 0;
                CHECK(e->hits[i] == want, "%s: entry %llu (%s) hit by %d boards, expected %d", full_materials[t],
                      (unsigned long long)i, ok ? "decodes" : "broken", e->hits[i], want);
                distinct += e->hits[i] > 0;
                decodable += ok;
                weight_sum += (uint64_t)want;
            }
        }
        assert_int_equal(distinct, decodable);
        assert_int_equal(weight_sum, e->boards);
        print_message("  %-8s %9llu boards -> %9llu distinct entries%s\n", full_materials[t],
                      (unsigned long long)e->boards, (unsigned long long)distinct,
                      subset ? " (red king on e1 only)" : "");
        free(e->hits);
        free(e);
        xq_index_free(&ix);
    }
}

/* ---- 1c. the mirror fold ------------------------------------------------ */
static void test_mirror_fold(void **state)
{
    (void)state;
    for (int t = 0; t < NFULL; t++) {
        xq_material m;
        xq_index ix;
        load(full_materials[t], &m, &ix);
        uint64_t stride = walk_stride(ix.size, 400000), folded = 0, kept = 0, symmetric = 0;
        for (uint64_t i = 0; i < ix.size; i += stride) {
            xq_board b, mb, d;
            if (!xq_index_decode(&ix, i, &b)) continue;
            xq_board_mirror(&b, &mb);
            uint64_t e = xq_index_encode(&ix, &mb, 0);
            int w = xq_index_weight(&ix, i);
            if (defenders_symmetric(&b)) {
                CHECK(w == 1, "%s: entry %llu, defenders symmetric, weight %d", full_materials[t],
                      (unsigned long long)i, w);
                if (xq_board_equal(&b, &mb)) {
                    CHECK(e == i, "%s: symmetric entry %llu mirrors to %llu", full_materials[t], (unsigned long long)i,
                          (unsigned long long)e);
                    symmetric++;
                } else {
                    /* Both images are kept: a distinct entry, decoding to
                     * exactly the mirror image, with the same weight. */
                    CHECK(e != i && e < ix.size, "%s: entry %llu mirrors to %llu", full_materials[t],
                          (unsigned long long)i, (unsigned long long)e);
                    CHECK(xq_index_decode(&ix, e, &d) && xq_board_equal(&d, &mb),
                          "%s: mirror entry %llu of %llu does not decode to the mirror image", full_materials[t],
                          (unsigned long long)e, (unsigned long long)i);
                    CHECK(xq_index_weight(&ix, e) == 1, "%s: mirror entry %llu weight", full_materials[t],
                          (unsigned long long)e);
                    kept++;
                }
            } else {
                CHECK(w == 2, "%s: entry %llu, defenders not symmetric, weight %d", full_materials[t],
                      (unsigned long long)i, w);
                CHECK(e == i, "%s: entry %llu mirrors to %llu", full_materials[t], (unsigned long long)i,
                      (unsigned long long)e);
                folded++;
            }
        }
        assert_true(folded > 0 && kept + symmetric > 0);
        xq_index_free(&ix);
    }

    /* By hand: KRK, kings d0/e9 (folded) and e1/e8 (kept). */
    char err[XQ_ERR_MAX];
    xq_material m;
    xq_index ix;
    load("KRK", &m, &ix);
    xq_board b, mb;
    assert_int_equal(xq_fen_parse("4k4/9/9/9/9/9/9/9/9/R2K5 w - - 0 1", &b, err), 0);
    /* (The index holds illegal boards too: kings facing here.) */
    xq_board_mirror(&b, &mb); /* rook i0, king f0, king e9 */
    assert_int_equal(mb.king[RED], make_square(5, 0));
    assert_int_equal(xq_index_encode(&ix, &b, 0), xq_index_encode(&ix, &mb, 0));
    assert_int_equal(xq_index_weight(&ix, xq_index_encode(&ix, &b, 0)), 2);
    xq_board_clear(&b);
    xq_board_put(&b, make_square(4, 1), make_piece(RED, KING));
    xq_board_put(&b, make_square(4, 8), make_piece(BLACK, KING));
    xq_board_put(&b, make_square(0, 0), make_piece(RED, ROOK));
    xq_board_mirror(&b, &mb);
    assert_int_not_equal(xq_index_encode(&ix, &b, 0), xq_index_encode(&ix, &mb, 0));
    assert_int_equal(xq_index_weight(&ix, xq_index_encode(&ix, &b, 0)), 1);
    assert_int_equal(xq_index_weight(&ix, xq_index_encode(&ix, &mb, 0)), 1);
    xq_index_free(&ix);
}

/* ---- 1c'. successors without a full encode ------------------------------
 * From sampled entries of every walked material and of the big ones, every
 * quiet move of either side: the incremental index (xq_index_after_move,
 * and the attacker and defender paths under it) must equal encoding the
 * board after the move, also where that board is out of folded form (then
 * read mirrored), and the defender path tells the entries that keep both
 * mirror images, whose mirror image xq_index_twin_mirror finds. */
static void check_moves_from(const xq_index *ix, uint64_t i, const char *name, uint64_t *moves, uint64_t *refolds)
{
    xq_board b;
    xq_index_site site;
    if (!xq_index_decode_at(ix, i, &b, &site)) return;
    for (int side = 0; side < 2; side++) {
        b.side = (uint8_t)side;
        xq_move list[XQ_MAX_MOVES];
        int n = xq_gen_pseudo(&b, list);
        for (int k = 0; k < n; k++) {
            int from = move_from(list[k]), to = move_to(list[k]);
            if (b.sq[to]) continue; /* captures change the material */
            bool def = xq_index_is_defender(kind_of(b.sq[from]));
            int twin = -1;
            uint64_t fast = def ? xq_index_after_defender_move(ix, &site, &b, from, to, &twin)
                                : xq_index_after_quiet(ix, &site, &b, from, to);
            uint64_t via = xq_index_after_move(ix, i, &b, list[k]);
            xq_undo u;
            xq_make_move(&b, list[k], &u);
            uint64_t want = xq_index_encode(ix, &b, 0), want_mirror = xq_index_encode(ix, &b, XQ_INDEX_MIRROR);
            int w = want < ix->size ? xq_index_weight(ix, want) : 0;
            xq_board d;
            bool as_is = want < ix->size && xq_index_decode(ix, want, &d);
            d.side = b.side;
            as_is = as_is && xq_board_equal(&d, &b); /* else read mirrored */
            xq_unmake_move(&b, list[k], &u);
            CHECK(via == want, "%s: entry %llu, move %d-%d: after_move %llu, encode %llu", name, (unsigned long long)i,
                  from, to, (unsigned long long)via, (unsigned long long)want);
            if (def && !as_is && want != XQ_INDEX_NONE) (*refolds)++; /* across the fold */
            CHECK(fast == want, "%s: entry %llu, move %d-%d: incremental %llu, encode %llu", name,
                  (unsigned long long)i, from, to, (unsigned long long)fast, (unsigned long long)want);
            CHECK(!def || want == XQ_INDEX_NONE || twin == (w == 1),
                  "%s: entry %llu: a defender move to an entry of weight %d says twin %d", name, (unsigned long long)i,
                  w, twin);
            if (def && twin == 1 && want != XQ_INDEX_NONE)
                CHECK(xq_index_twin_mirror(ix, &site, &b, fast) == want_mirror,
                      "%s: entry %llu, move %d-%d: twin mirror %llu, encode %llu", name, (unsigned long long)i, from,
                      to, (unsigned long long)xq_index_twin_mirror(ix, &site, &b, fast),
                      (unsigned long long)want_mirror);
            (*moves)++;
        }
    }
}

static void test_incremental_moves(void **state)
{
    (void)state;
    for (int t = 0; t < NFULL + NBIG; t++) {
        const char *name = t < NFULL ? full_materials[t] : big_materials[t - NFULL];
        xq_material m;
        xq_index ix;
        load(name, &m, &ix);
        uint64_t moves = 0, refolds = 0, samples = san_mode() ? 3000 : 30000;
        if (t < NFULL) {
            uint64_t stride = ix.size / samples | 1;
            for (uint64_t i = 0; i < ix.size; i += stride) check_moves_from(&ix, i, name, &moves, &refolds);
        } else {
            for (uint64_t r = 0; r < samples; r++) check_moves_from(&ix, rng() % ix.size, name, &moves, &refolds);
        }
        print_message("  %-18s %9llu quiet moves checked, %llu defender moves across the fold\n", name,
                      (unsigned long long)moves, (unsigned long long)refolds);
        assert_true(moves > 0);
        xq_index_free(&ix);
    }
}

/* ---- 1d. the colour flip ------------------------------------------------ */
static void test_flip(void **state)
{
    (void)state;
    for (int t = 0; t < NFULL; t++) {
        xq_material m, mf;
        xq_index ix, ixf;
        load(full_materials[t], &m, &ix);
        xq_material_flip(&m, &mf);
        assert_int_equal(xq_index_init(&ixf, &mf), 0);
        bool symmetric = xq_material_equal(&m, &mf);
        /* Both orientations index the same set of positions. */
        assert_int_equal(ix.size, ixf.size);
        uint64_t stride = walk_stride(ix.size, 250000), n = 0;
        for (uint64_t i = 0; i < ix.size; i += stride) {
            xq_board b, f, mb, mf_b, d;
            if (!xq_index_decode(&ix, i, &b)) continue;
            xq_board_flip(&b, &f);
            uint64_t e = xq_index_encode(&ix, &f, 1);
            CHECK(e == i, "%s: entry %llu flipped encodes to %llu", full_materials[t], (unsigned long long)i,
                  (unsigned long long)e);
            n++;
            if (n % 5 != 1) continue; /* the rest on every fifth entry */
            /* The flipped board of the mirror image, read flipped, lands
             * where the mirror image itself does. */
            xq_board_mirror(&b, &mb);
            xq_board_flip(&mb, &mf_b);
            CHECK(xq_index_encode(&ix, &mf_b, 1) == xq_index_encode(&ix, &mb, 0), "%s: entry %llu: flip of mirror",
                  full_materials[t], (unsigned long long)i);
            /* The flipped board is a position of the flipped material, and
             * of this one read unflipped only if the material is symmetric. */
            uint64_t g = xq_index_encode(&ixf, &f, 0);
            CHECK(g < ixf.size && xq_index_decode(&ixf, g, &d), "%s: entry %llu: flipped board not in %s index",
                  full_materials[t], (unsigned long long)i, "the flipped");
            if (!symmetric)
                CHECK(xq_index_encode(&ix, &f, 0) == XQ_INDEX_NONE, "%s: entry %llu: flipped board encodes unflipped",
                      full_materials[t], (unsigned long long)i);
            /* Flipping twice is the identity. */
            xq_board ff;
            xq_board_flip(&f, &ff);
            CHECK(xq_board_equal(&ff, &b), "%s: entry %llu: double flip", full_materials[t], (unsigned long long)i);
        }
        assert_true(n > 0);
        xq_index_free(&ixf);
        xq_index_free(&ix);
    }

    /* By hand: a black rook position is found in the KRK table read flipped. */
    char err[XQ_ERR_MAX];
    xq_material m;
    xq_index ix;
    load("KRK", &m, &ix);
    xq_board red, black;
    assert_int_equal(xq_fen_parse("4k4/9/9/9/9/9/9/9/R8/3K5 w - - 0 1", &red, err), 0);
    /* Colours swapped and ranks turned: black rook a8, black king d9,
     * red king e0, black to move. */
    assert_int_equal(xq_fen_parse("3k5/r8/9/9/9/9/9/9/9/4K4 b - - 0 1", &black, err), 0);
    assert_int_equal(xq_index_encode(&ix, &black, 1), xq_index_encode(&ix, &red, 0));
    assert_int_equal(xq_index_encode(&ix, &black, 0), XQ_INDEX_NONE);
    assert_int_equal(xq_index_encode(&ix, &red, 1), XQ_INDEX_NONE);
    xq_index_free(&ix);
}

/* Defender pairs of layout 2 counted by brute force: every placement of
 * each side's king, advisors and elephants on their points, no two on one;
 * the pairs folded by the mirror, a pair that is its own mirror image
 * counted once: (pairs + symmetric pairs) / 2. */
static uint64_t side_placements(int c, int a, int e, uint64_t *symmetric)
{
    uint64_t n = 0;
    *symmetric = 0;
    const uint8_t *adv = allowed_sq[c][ADVISOR], *ele = allowed_sq[c][ELEPHANT];
    for (int k = 0; k < allowed_n[c][KING]; k++)
        for (unsigned am = 0; am < 32; am++)
            for (unsigned em = 0; em < 128; em++) {
                if (__builtin_popcount(am) != a || __builtin_popcount(em) != e) continue;
                int ks = allowed_sq[c][KING][k];
                bool held[XQ_SQUARES] = {false}, clash = false;
                held[ks] = true;
                for (int i = 0; i < 5; i++)
                    if (am >> i & 1) clash |= held[adv[i]], held[adv[i]] = true;
                for (int i = 0; i < 7; i++)
                    if (em >> i & 1) clash |= held[ele[i]], held[ele[i]] = true;
                if (clash) continue;
                n++;
                bool sym = true;
                for (int s = 0; s < XQ_SQUARES; s++) sym &= held[s] == held[mirror_square(s)];
                sym &= mirror_square(ks) == ks;
                *symmetric += sym;
            }
    return n;
}

static uint64_t brute_force_pairs(const xq_material *m)
{
    uint64_t sr, sb;
    uint64_t nr = side_placements(RED, m->count[RED][ADVISOR], m->count[RED][ELEPHANT], &sr);
    uint64_t nb = side_placements(BLACK, m->count[BLACK][ADVISOR], m->count[BLACK][ELEPHANT], &sb);
    return (nr * nb + sr * sb) / 2;
}

/* ---- 1e. sizes ---------------------------------------------------------- */
static void test_sizes(void **state)
{
    (void)state;
    for (int n = 0; n <= XQ_SQUARES; n++)
        for (int k = 0; k <= 5; k++)
            CHECK(xq_binomial(n, k) == choose(n, k), "C(%d,%d) = %llu", n, k, (unsigned long long)xq_binomial(n, k));
    assert_int_equal(xq_binomial(91, 1), 0);
    assert_int_equal(xq_binomial(10, 6), 0);
    assert_int_equal(xq_binomial(-1, 0), 0);
    assert_int_equal(xq_binomial(3, -1), 0);

    /* The layout: the defender pairs, counted here by brute force, times
     * C(positions, count) per attacker group: R, N and C on the squares
     * the defenders leave, pawns on their 55. */
    assert_int_equal(allowed_n[RED][ADVISOR], 5);
    assert_int_equal(allowed_n[RED][ELEPHANT], 7);
    assert_int_equal(allowed_n[RED][PAWN], 55);
    assert_int_equal(allowed_n[BLACK][PAWN], 55);
    assert_int_equal(allowed_n[RED][ROOK], 90);
    static const struct {
        const char *name;
        uint64_t size;
    } known[] = {{"KK", 45},
                 {"KRK", 45ull * 88},
                 {"KPK", 45ull * 55},
                 {"KNKN", 45ull * 88 * 88},
                 {"KRKNAA", 324ull * 86 * 86},
                 {"KAAKBB", 0},
                 {"KPPKA", 0},
                 {"KCPKAB", 0},
                 {"KPPPPPK", 45ull * 3478761},
                 {"KRRKAB", 0},
                 {"KRKAABB", 6372ull * 84},
                 {"KRKNAABB", 6372ull * 84 * 84}};
    for (size_t t = 0; t < sizeof known / sizeof known[0]; t++) {
        xq_material m;
        xq_index ix;
        load(known[t].name, &m, &ix);
        uint64_t pairs = brute_force_pairs(&m), expect = pairs, stride = 1;
        CHECK(ix.pairs == pairs, "%s: %llu defender pairs, counted %llu", known[t].name, (unsigned long long)ix.pairs,
              (unsigned long long)pairs);
        int ndef = 2 + m.count[0][ADVISOR] + m.count[0][ELEPHANT] + m.count[1][ADVISOR] + m.count[1][ELEPHANT];
        /* Attacker groups in layout order: red then black, R N C P. */
        int g = 0;
        for (int c = 0; c < 2; c++)
            for (int o = 0; o < 6; o++) {
                int k = xq_material_order[o];
                if (!m.count[c][k] || k == ADVISOR || k == ELEPHANT) continue;
                int n = k == PAWN ? allowed_n[c][k] : XQ_SQUARES - ndef;
                assert_true(g < ix.ngroups);
                assert_int_equal(ix.group[g].colour, c);
                assert_int_equal(ix.group[g].kind, k);
                assert_int_equal(ix.group[g].count, m.count[c][k]);
                assert_int_equal(ix.group[g].nsq, n);
                assert_int_equal(ix.group[g].compressed, k != PAWN);
                if (k == PAWN) assert_memory_equal(ix.group[g].sq, allowed_sq[c][k], allowed_n[c][k]);
                assert_int_equal(ix.group[g].size, choose(n, m.count[c][k]));
                expect *= choose(n, m.count[c][k]);
                g++;
            }
        assert_int_equal(g, ix.ngroups);
        for (g = ix.ngroups - 1; g >= 0; g--) {
            assert_int_equal(ix.group[g].stride, stride);
            stride *= ix.group[g].size;
        }
        assert_int_equal(ix.pair_stride, stride);
        assert_int_equal(ix.size, expect);
        if (known[t].size)
            CHECK(ix.size == known[t].size, "%s: size %llu, expected %llu", known[t].name, (unsigned long long)ix.size,
                  (unsigned long long)known[t].size);
        xq_index_free(&ix);
    }
}

/* ---- 1f. legal positions against the reference solver ------------------- */
static void test_legal_count_vs_ref(void **state)
{
    (void)state;
    static const char *const mats[] = {"KRK", "KNKA", "KPKB"};
    for (size_t t = 0; t < sizeof mats / sizeof mats[0]; t++) {
        xq_material m;
        xq_index ix;
        load(mats[t], &m, &ix);
        ref_db *db = ref_solve(&m);
        assert_non_null(db);
        ref_stats st;
        ref_get_stats(db, &st);
        /* Which (entry, side) pairs are legal, by decoding and validating. */
        uint8_t *legal = calloc(ix.size * 2, 1), *hits = calloc(ix.size * 2, 1);
        assert_non_null(legal);
        assert_non_null(hits);
        uint64_t weighted[2] = {0, 0}, entries[2] = {0, 0};
        for (uint64_t i = 0; i < ix.size; i++) {
            xq_board b;
            if (!xq_index_decode(&ix, i, &b)) continue;
            for (int s = 0; s < 2; s++) {
                char err[XQ_ERR_MAX];
                b.side = (uint8_t)s;
                if (xq_board_validate(&b, err) != 0) continue;
                legal[2 * i + (uint64_t)s] = 1;
                entries[s]++;
                weighted[s] += (uint64_t)xq_index_weight(&ix, i);
            }
        }
        for (int s = 0; s < 2; s++)
            CHECK(weighted[s] == (uint64_t)st.positions[s], "%s side %d: index counts %llu, ref solver %d", mats[t], s,
                  (unsigned long long)weighted[s], st.positions[s]);
        /* And position by position: each of the solver's positions lands on
         * a legal entry, each entry hit exactly weight times. */
        for (int p = 0; p < ref_count(db); p++) {
            xq_board b;
            ref_board(db, p, &b);
            uint64_t i = xq_index_encode(&ix, &b, 0);
            CHECK(i < ix.size && legal[2 * i + b.side], "%s: ref position %d not a legal entry", mats[t], p);
            hits[2 * i + b.side]++;
        }
        for (uint64_t i = 0; i < 2 * ix.size; i++)
            if (legal[i])
                CHECK(hits[i] == xq_index_weight(&ix, i / 2), "%s: entry %llu side %d hit %d times", mats[t],
                      (unsigned long long)(i / 2), (int)(i % 2), hits[i]);
        print_message("  %-6s legal positions red/black to move: %llu / %llu (ref solver %d / %d), "
                      "entries %llu / %llu of %llu\n",
                      mats[t], (unsigned long long)weighted[0], (unsigned long long)weighted[1], st.positions[0],
                      st.positions[1], (unsigned long long)entries[0], (unsigned long long)entries[1],
                      (unsigned long long)ix.size);
        free(legal);
        free(hits);
        ref_free(db);
        xq_index_free(&ix);
    }
}

/* ---- 1g. random samples of large materials ------------------------------ */
static void random_board(const xq_material *m, xq_board *b)
{
    /* Starts over when the squares of a kind are all taken (red pieces can
     * fill black's five advisor points). */
    for (;;) {
        xq_board_clear(b);
        xq_board_put(b, allowed_sq[RED][KING][rng() % 9], make_piece(RED, KING));
        xq_board_put(b, allowed_sq[BLACK][KING][rng() % 9], make_piece(BLACK, KING));
        bool stuck = false;
        for (int c = 0; c < 2 && !stuck; c++)
            for (int k = 2; k < KIND_NB && !stuck; k++)
                for (int j = 0; j < m->count[c][k] && !stuck; j++) {
                    int s, tries = 0;
                    do s = allowed_sq[c][k][rng() % (uint64_t)allowed_n[c][k]];
                    while (b->sq[s] && ++tries < 1000);
                    if (b->sq[s])
                        stuck = true;
                    else
                        xq_board_put(b, s, make_piece(c, k));
                }
        if (!stuck) return;
    }
}

static void test_random_large(void **state)
{
    (void)state;
    int rounds = san_mode() ? 20000 : 200000;
    for (int t = 0; t < NBIG; t++) {
        xq_material m, mf;
        xq_index ix, ixf;
        load(big_materials[t], &m, &ix);
        xq_material_flip(&m, &mf);
        assert_int_equal(xq_index_init(&ixf, &mf), 0);
        uint64_t decoded = 0;
        for (int r = 0; r < rounds; r++) {
            /* A random board: encode, decode, mirror, flip. */
            xq_board b, d, mb, f;
            random_board(&m, &b);
            uint64_t i = xq_index_encode(&ix, &b, 0);
            CHECK(i < ix.size, "%s: random board encodes to %llu", big_materials[t], (unsigned long long)i);
            CHECK(xq_index_decode(&ix, i, &d), "%s: entry %llu broken", big_materials[t], (unsigned long long)i);
            xq_board_mirror(&b, &mb);
            CHECK(xq_board_equal(&d, &b) || (!defenders_symmetric(&b) && xq_board_equal(&d, &mb)),
                  "%s: entry %llu decodes to another board", big_materials[t], (unsigned long long)i);
            uint64_t e = xq_index_encode(&ix, &mb, 0);
            CHECK(defenders_symmetric(&b) ? (e == i) == xq_board_equal(&b, &mb) : e == i, "%s: mirror of entry %llu",
                  big_materials[t], (unsigned long long)i);
            xq_board_flip(&b, &f);
            CHECK(xq_index_encode(&ix, &f, 1) == i, "%s: flip of entry %llu", big_materials[t], (unsigned long long)i);
            CHECK(xq_index_encode(&ixf, &f, 0) < ixf.size, "%s: flipped material", big_materials[t]);
            /* A random entry: decode, encode. */
            uint64_t j = rng() % ix.size;
            if (xq_index_decode(&ix, j, &d)) {
                check_decoded(&ix, &d, j);
                CHECK(xq_index_encode(&ix, &d, 0) == j, "%s: entry %llu", big_materials[t], (unsigned long long)j);
                decoded++;
            }
        }
        /* The last entry and the first of (a sample of) the defender pairs. */
        uint64_t vstep = ix.pairs / 5000 + 1;
        for (uint64_t v = 0; v < ix.pairs + vstep; v += vstep) {
            uint64_t j = v >= ix.pairs ? ix.size - 1 : v * ix.pair_stride;
            xq_board d;
            if (xq_index_decode(&ix, j, &d))
                CHECK(xq_index_encode(&ix, &d, 0) == j, "%s: entry %llu", big_materials[t], (unsigned long long)j);
        }
        print_message("  %-18s %22llu entries; %d random boards, %llu of %d random entries decode\n", big_materials[t],
                      (unsigned long long)ix.size, rounds, (unsigned long long)decoded, rounds);
        assert_true(decoded > 0);
        xq_index_free(&ixf);
        xq_index_free(&ix);
    }
}

/* Every 5-combination of pawn squares, through the computed unranking: rank
 * r decodes to the r-th combination in colex order. */
static void test_five_pawns_colex(void **state)
{
    (void)state;
    xq_material m;
    xq_index ix;
    load("KPPPPPK", &m, &ix);
    assert_int_equal(ix.ngroups, 1);
    assert_null(ix.group[0].unrank); /* the computed path */
    /* Defender pair 0's block, walked in full (sampled under the
     * sanitizer): an entry is broken exactly when a pawn would stand on a
     * king. */
    int rk = -1, bk = -1;
    for (uint64_t i = 0; i < ix.pair_stride && rk < 0; i++) {
        xq_board b;
        if (xq_index_decode(&ix, i, &b)) {
            rk = b.king[RED];
            bk = b.king[BLACK];
        }
    }
    assert_true(rk >= 0);
    uint64_t step = san_mode() ? 7 : 1, r = 0, checked = 0, broken = 0;
    int p[5] = {0, 1, 2, 3, 4};
    for (;;) {
        if (r % step == 0) {
            xq_board b;
            bool ok = xq_index_decode(&ix, r, &b);
            bool clash = false;
            for (int i = 0; i < 5; i++) clash |= allowed_sq[RED][PAWN][p[i]] == rk || allowed_sq[RED][PAWN][p[i]] == bk;
            CHECK(ok == !clash, "rank %llu: decode says %d", (unsigned long long)r, ok);
            if (ok) {
                for (int i = 0; i < 5; i++)
                    CHECK(b.sq[allowed_sq[RED][PAWN][p[i]]] == make_piece(RED, PAWN), "rank %llu: pawn %d",
                          (unsigned long long)r, i);
                CHECK(xq_board_count(&b, RED, PAWN) == 5, "rank %llu: pawns", (unsigned long long)r);
                assert_int_equal(xq_index_encode(&ix, &b, 0), r);
                checked++;
            } else {
                broken++;
            }
        }
        r++;
        /* next combination in colex order */
        int i = 0;
        while (i < 4 && p[i] + 1 == p[i + 1]) {
            p[i] = i;
            i++;
        }
        p[i]++;
        if (p[4] >= 55) break;
    }
    assert_int_equal(r, choose(55, 5));
    assert_true(checked > 0 && broken > 0);
    xq_index_free(&ix);
}

/* ---- Hardening: malformed boards are refused, not read out of bounds ----- */
static void test_encode_refuses(void **state)
{
    (void)state;
    char err[XQ_ERR_MAX];
    xq_material m;
    xq_index ix;
    load("KRKA", &m, &ix);
    xq_board b, c;
    assert_int_equal(xq_fen_parse("3ak4/9/9/9/9/9/9/9/R8/3K5 w - - 0 1", &b, err), 0);
    uint64_t i = xq_index_encode(&ix, &b, 0);
    assert_true(i < ix.size);
    /* Wrong material: a piece too many, too few, of another kind. */
    c = b;
    xq_board_put(&c, make_square(8, 1), make_piece(RED, ROOK));
    assert_int_equal(xq_index_encode(&ix, &c, 0), XQ_INDEX_NONE);
    c = b;
    xq_board_remove(&c, make_square(0, 1));
    assert_int_equal(xq_index_encode(&ix, &c, 0), XQ_INDEX_NONE);
    c = b;
    xq_board_put(&c, make_square(0, 1), make_piece(RED, CANNON));
    assert_int_equal(xq_index_encode(&ix, &c, 0), XQ_INDEX_NONE);
    /* A piece off its squares: advisor on e7, king outside its palace. */
    c = b;
    xq_board_remove(&c, make_square(3, 9));
    xq_board_put(&c, make_square(4, 7), make_piece(BLACK, ADVISOR));
    assert_int_equal(xq_index_encode(&ix, &c, 0), XQ_INDEX_NONE);
    c = b;
    xq_board_remove(&c, make_square(3, 0));
    xq_board_put(&c, make_square(2, 0), make_piece(RED, KING));
    assert_int_equal(xq_index_encode(&ix, &c, 0), XQ_INDEX_NONE);
    /* A king missing (king square XQ_SQUARES), read either way. */
    c = b;
    xq_board_remove(&c, make_square(3, 0));
    assert_int_equal(c.king[RED], XQ_SQUARES);
    assert_int_equal(xq_index_encode(&ix, &c, 0), XQ_INDEX_NONE);
    assert_int_equal(xq_index_encode(&ix, &c, 1), XQ_INDEX_NONE);
    c = b;
    xq_board_remove(&c, make_square(4, 9));
    assert_int_equal(xq_index_encode(&ix, &c, 0), XQ_INDEX_NONE);
    assert_int_equal(xq_index_encode(&ix, &c, 1), XQ_INDEX_NONE);
    /* Out-of-range entries weigh nothing. */
    assert_int_equal(xq_index_weight(&ix, ix.size), 0);
    assert_int_equal(xq_index_weight(&ix, UINT64_MAX), 0);
    xq_index_free(&ix);
}

/* An index whose size does not fit in 64 bits is refused rather than
 * wrapping around (which would make distinct positions share entries). */
static void test_init_overflow(void **state)
{
    (void)state;
    xq_material m;
    char err[XQ_ERR_MAX];
    xq_index ix;
    /* 45 * 4005^6 * ... > 2^64 */
    assert_int_equal(xq_material_parse("KRRNNCCKRRNNCC", &m, err), 0);
    assert_int_equal(xq_index_init(&ix, &m), -1);
    /* 15 pieces: 45 * C(90,1)^3 C(55,3) * C(90,1)^3 * C(5,2) C(7,2) wraps
     * around to a size below 2^64 if unchecked. */
    assert_int_equal(xq_material_parse("KRNCPPPKRNCAABB", &m, err), 0);
    assert_int_equal(xq_index_init(&ix, &m), -1);
    /* More than five of a kind cannot be represented (not a game material,
     * but the struct allows it). */
    assert_int_equal(xq_material_parse("KRK", &m, err), 0);
    m.count[RED][ROOK] = 6;
    assert_int_equal(xq_index_init(&ix, &m), -1);
    /* A large one that fits still initialises. */
    assert_int_equal(xq_material_parse("KPPPPPKPPPPP", &m, err), 0);
    assert_int_equal(xq_index_init(&ix, &m), 0);
    assert_int_equal(ix.size, 45ull * 3478761 * 3478761);
    xq_index_free(&ix);
}

/* ---- Report: size, legal positions, efficiency; speed ------------------- */
static void test_report(void **state)
{
    (void)state;
    print_message("  %-8s %10s %12s %12s %12s %12s %7s %7s\n", "material", "size", "legal(w)", "legal(b)", "entries(w)",
                  "entries(b)", "eff(w)", "eff(b)");
    for (int t = 0; t < NFULL; t++) {
        xq_material m;
        xq_index ix;
        load(full_materials[t], &m, &ix);
        uint64_t stride = walk_stride(ix.size, 100000), seen = 0;
        uint64_t legal[2] = {0, 0}, entries[2] = {0, 0};
        for (uint64_t i = 0; i < ix.size; i += stride) {
            xq_board b;
            seen++;
            if (!xq_index_decode(&ix, i, &b)) continue;
            for (int s = 0; s < 2; s++) {
                char err[XQ_ERR_MAX];
                b.side = (uint8_t)s;
                if (xq_board_validate(&b, err) != 0) continue;
                entries[s]++;
                legal[s] += (uint64_t)xq_index_weight(&ix, i);
            }
        }
        /* Sampled: scale up to an estimate. */
        double scale = (double)ix.size / (double)seen;
        print_message("  %-8s %10llu %12.0f %12.0f %12.0f %12.0f %6.1f%% %6.1f%%%s\n", full_materials[t],
                      (unsigned long long)ix.size, scale * (double)legal[0], scale * (double)legal[1],
                      scale * (double)entries[0], scale * (double)entries[1], 100.0 * (double)entries[0] / (double)seen,
                      100.0 * (double)entries[1] / (double)seen, stride > 1 ? " (estimated from a sample)" : "");
        assert_true(entries[0] > 0 && entries[1] > 0);
        xq_index_free(&ix);
    }
}

/* xq_index_decode_next, the decode a scan uses, against xq_index_decode_at
 * over the same entries: runs of neighbours (one defender pair, and
 * within it the rows where only the last group's lone piece moves), jumps
 * across pairs and back, the same entry twice, entries past the end and
 * broken entries, with the side to move changed and a move made and taken
 * back between calls, as the generator's passes do.  Boards, the results
 * and the sites must be identical. */
static void test_decode_next(void **state)
{
    (void)state;
    const char *const names[] = {"KRKNAA", "KCPKAB", "KPPKA", "KAAKBB", "KRNCPPKRAABB", "KPPPPPK"};
    int rounds = san_mode() ? 20000 : 200000;
    for (size_t t = 0; t < sizeof names / sizeof names[0]; t++) {
        xq_material m;
        xq_index ix;
        load(names[t], &m, &ix);
        xq_board b;
        xq_index_site site;
        xq_index_site_clear(&site);
        uint64_t i = rng() % ix.size, same_pair = 0, broken = 0;
        for (int r = 0; r < rounds; r++) {
            switch (rng() % 8) {
            case 0: i = rng() % ix.size; break;                           /* anywhere */
            case 1: i = i >= 100 ? i - rng() % 100 : i; break;            /* back a little */
            case 2: break;                                                /* the same entry */
            case 3: i = rng() % 16 == 0 ? ix.size + rng() % 3 : i; break; /* past the end */
            default: i = (i >= ix.size ? 0 : i) + 1 + rng() % 50;         /* forward, usually within the pair */
            }
            if (i < ix.size && site.idx < ix.size && i / ix.pair_stride == site.pair) same_pair++;
            xq_board want;
            xq_index_site want_site;
            bool ok = xq_index_decode_at(&ix, i, &want, &want_site);
            CHECK(xq_index_decode_next(&ix, i, &b, &site) == ok, "%s: entry %llu", names[t], (unsigned long long)i);
            broken += i < ix.size && !ok;
            if (!ok) continue; /* a broken entry's board is unspecified, but the next decode must not suffer */
            CHECK(xq_board_equal(&b, &want) && b.side == want.side && b.rule60 == want.rule60 &&
                      b.fullmove == want.fullmove,
                  "%s: entry %llu decodes to another board", names[t], (unsigned long long)i);
            /* the occupancy masks too, which move generation reads and
             * xq_board_equal does not compare */
            CHECK(b.occ[RED] == want.occ[RED] && b.occ[BLACK] == want.occ[BLACK] && b.king[RED] == want.king[RED] &&
                      b.king[BLACK] == want.king[BLACK],
                  "%s: entry %llu decodes to other masks", names[t], (unsigned long long)i);
            CHECK(site.idx == want_site.idx && site.pair == want_site.pair && site.rank[RED] == want_site.rank[RED] &&
                      site.rank[BLACK] == want_site.rank[BLACK] && site.pl[RED] == want_site.pl[RED] &&
                      site.pl[BLACK] == want_site.pl[BLACK] && site.row == want_site.row &&
                      (site.row == XQ_INDEX_NONE || site.row_sq == want_site.row_sq),
                  "%s: entry %llu has another site", names[t], (unsigned long long)i);
            for (int g = 0; g < ix.ngroups; g++)
                CHECK(ix.group[g].count == 1 ||
                          (site.group_rank[g] == want_site.group_rank[g] &&
                           memcmp(site.group_pos[g], want_site.group_pos[g], ix.group[g].count) == 0),
                      "%s: entry %llu has another group %d in its site", names[t], (unsigned long long)i, g);
            /* what a pass does with the board before the next decode */
            b.side = (uint8_t)(rng() & 1);
            xq_move list[XQ_MAX_MOVES];
            int n = xq_gen_pseudo(&b, list);
            if (n > 0) {
                xq_undo u;
                xq_move mv = list[rng() % (uint64_t)n];
                xq_make_move(&b, mv, &u);
                xq_unmake_move(&b, mv, &u);
            }
        }
        print_message("  %-14s %d decodes, %llu within the last pair, %llu broken\n", names[t], rounds,
                      (unsigned long long)same_pair, (unsigned long long)broken);
        /* the fast path was taken (the same entry again at least: KAAKBB's
         * pairs are single entries) */
        assert_true(same_pair > (uint64_t)rounds / 10);
        xq_index_free(&ix);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_decode_encode_roundtrip),
        cmocka_unit_test(test_encode_every_board),
        cmocka_unit_test(test_mirror_fold),
        cmocka_unit_test(test_incremental_moves),
        cmocka_unit_test(test_flip),
        cmocka_unit_test(test_legal_count_vs_ref),
        cmocka_unit_test(test_random_large),
        cmocka_unit_test(test_decode_next),
        cmocka_unit_test(test_five_pawns_colex),
        cmocka_unit_test(test_encode_refuses),
        cmocka_unit_test(test_init_overflow),
        cmocka_unit_test(test_report),
    };
    return cmocka_run_group_tests_name("index", tests, setup, NULL);
}
