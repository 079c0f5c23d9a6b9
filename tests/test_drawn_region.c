/*
 * test_drawn_region.c - the rulings' drawn region (gen/repetition_graph.h):
 * a drawn position's entry found from the bitmaps and their ranks
 * (rg_pos_entry, with the ranks and samples of rg_region_rank), against
 * the entries listed one by one.
 *
 * The region keeps no table from positions to entries; every step of the
 * rulings asks rg_pos_entry, in order (with a hint) or at random (without).
 * Bitmaps of every density are tried: empty words and runs of them, full
 * words, single bits at either end of a word, and a side with no drawn
 * position at all.
 */
#include "repetition_graph.h"
#include "testutil.h"

static uint64_t rng = 0x243F6A8885A308D3ull;
static uint64_t next_random(void) { return test_xorshift(&rng); }

/* A word of the given kind: 0 empty, 1 full, 2 one bit, 3 sparse, 4 dense. */
static uint64_t random_word(int kind)
{
    switch (kind) {
    case 0: return 0;
    case 1: return ~(uint64_t)0;
    case 2: return (uint64_t)1 << (next_random() & 63);
    case 3: return next_random() & next_random() & next_random();
    default: return next_random() | next_random();
    }
}

typedef struct {
    rgraph g;
    uint64_t *entry; /* position -> entry, listed bit by bit */
    char err[XQ_ERR_MAX];
} region;

/* The ranks, as rg_region_init makes them (red's positions, then
 * black's), and the entries listed bit by bit. */
static void region_index(region *r)
{
    uint64_t words = r->g.words;
    free(r->g.sample);
    r->g.sample = NULL;
    r->g.max_bytes = UINT64_MAX;
    r->g.err = r->err;
    assert_int_equal(rg_region_rank(&r->g), 0);
    free(r->entry);
    r->entry = malloc((r->g.npos + 1) * sizeof *r->entry);
    assert_non_null(r->entry);
    uint64_t p = 0;
    for (int s = 0; s < 2; s++)
        for (uint64_t i = 0; i < 64 * words; i++)
            if (r->g.drawn[s][i >> 6] >> (i & 63) & 1) r->entry[p++] = i << 1 | (uint64_t)s;
    assert_int_equal(p, r->g.npos);
}

/* A region of `words` words a side; `mix` chooses the kinds of words
 * (a bit per kind allowed), `black_empty` leaves black with nothing. */
static void region_make(region *r, uint64_t words, unsigned mix, int black_empty)
{
    memset(r, 0, sizeof *r);
    r->g.words = words;
    for (int s = 0; s < 2; s++) {
        r->g.drawn[s] = calloc(words, sizeof(uint64_t));
        r->g.rank[s] = calloc(words, sizeof(uint32_t));
        assert_non_null(r->g.drawn[s]);
        assert_non_null(r->g.rank[s]);
        for (uint64_t w = 0; w < words && !(s == BLACK && black_empty); w++) {
            int kind;
            do kind = (int)(next_random() % 5);
            while (!(mix >> kind & 1));
            r->g.drawn[s][w] = random_word(kind);
        }
    }
    region_index(r);
}

static void region_free(region *r)
{
    for (int s = 0; s < 2; s++) {
        free(r->g.drawn[s]);
        free(r->g.rank[s]);
    }
    free(r->g.sample);
    free(r->entry);
}

/* Every position in order with one hint (how the passes walk them), every
 * position without a hint, and random ones with a hint left wherever the
 * last look-up put it (ahead, behind, on the other side, far on). */
static void check_region(region *r)
{
    rg_hint hint = {0};
    for (uint64_t p = 0; p < r->g.npos; p++) {
        assert_int_equal(rg_pos_entry(&r->g, &hint, (uint32_t)p), r->entry[p]);
        assert_int_equal(rg_pos_side(&r->g, (uint32_t)p), (int)(r->entry[p] & 1));
    }
    for (uint64_t p = 0; p < r->g.npos; p++) assert_int_equal(rg_pos_entry(&r->g, NULL, (uint32_t)p), r->entry[p]);
    for (int k = 0; k < 20000 && r->g.npos; k++) {
        uint32_t p = (uint32_t)(next_random() % r->g.npos);
        assert_int_equal(rg_pos_entry(&r->g, &hint, p), r->entry[p]);
    }
    /* short steps forward, the look-ups of the graph's position nodes */
    hint = (rg_hint){0};
    for (uint64_t p = 0; p < r->g.npos; p += 1 + next_random() % 200)
        assert_int_equal(rg_pos_entry(&r->g, &hint, (uint32_t)p), r->entry[p]);
}

static void test_densities(void **state)
{
    (void)state;
    static const unsigned mixes[] = {0x1F, 0x01 | 0x04, 0x01 | 0x02, 0x02, 0x08, 0x10, 0x01 | 0x08};
    for (size_t m = 0; m < sizeof mixes / sizeof *mixes; m++)
        for (uint64_t words = 1; words <= 300; words = words * 3 + 1) {
            region r;
            region_make(&r, words, mixes[m], 0);
            check_region(&r);
            region_free(&r);
        }
}

/* Long runs of empty words between drawn positions: the hint's forward
 * scan gives up and searches. */
static void test_sparse_runs(void **state)
{
    (void)state;
    region r;
    region_make(&r, 5000, 0x01 | 0x04, 0);
    for (uint64_t w = 0; w < 5000; w++)
        for (int s = 0; s < 2; s++)
            if (w % 97) r.g.drawn[s][w] = 0;
    region_index(&r);
    check_region(&r);
    region_free(&r);
}

/* Black with no drawn position: every position is red's. */
static void test_one_side(void **state)
{
    (void)state;
    region r;
    region_make(&r, 50, 0x1F, 1);
    assert_int_equal(r.g.npos, r.g.npos_red);
    check_region(&r);
    region_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_densities),
        cmocka_unit_test(test_sparse_runs),
        cmocka_unit_test(test_one_side),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
