/*
 * test_ruled_pack.c - a table's ruled bytes held sparsely (gen/ruled_pack.c,
 * tb_ruled in gen/tb.h), against the bytes they came from.
 *
 * The bytes are made up, at densities from none to every entry, with runs
 * that fill whole words and single results at either end of a word, so
 * that every rank and bit position is read; the generated tables are
 * compared through the sparse form by test_repetition, test_unpack and
 * the reference-solver tests.
 */
#include "cell.h"
#include "tb.h"
#include "testutil.h"

static uint64_t rng = 0x0123456789ABCDEFull;
static uint64_t next_random(void) { return test_xorshift(&rng); }

/* A ruled byte at `density` in 1024, or none. */
static uint8_t random_ruled(unsigned density)
{
    uint64_t r = next_random();
    if ((r & 1023) >= density) return RULED_NONE;
    return (uint8_t)ruled_code((int)(r >> 10 & 1), (int)(r >> 11 & 1), 1 + (int)((r >> 12) % RULED_ORDER_MAX));
}

/* KRK with made-up ruled bytes on both sides, and a copy of them.  Every
 * 512th stretch of 64 entries is all ruled or all not. */
static tb_table *made_up(unsigned density, uint8_t *copy[2])
{
    xq_material m;
    char err[XQ_ERR_MAX];
    assert_int_equal(xq_material_parse("KRK", &m, err), 0);
    tb_table *t = tb_table_new(&m, 1);
    assert_non_null(t);
    t->rules = XQ_RULES_FULL;
    for (int s = 0; s < 2; s++) {
        t->ruled[s] = malloc(t->ix.size);
        copy[s] = malloc(t->ix.size);
        assert_non_null(t->ruled[s]);
        assert_non_null(copy[s]);
        for (uint64_t i = 0; i < t->ix.size; i++) {
            uint64_t run = i / 64 % 512;
            unsigned d = run == 7 ? 1024 : run == 9 ? 0 : density;
            copy[s][i] = t->ruled[s][i] = random_ruled(d);
        }
    }
    return t;
}

static void expect_bytes(const tb_table *t, uint8_t *const copy[2])
{
    assert_true(tb_has_ruled(t));
    for (int s = 0; s < 2; s++)
        for (uint64_t i = 0; i < t->ix.size; i++)
            if (tb_ruled(t, s, i) != copy[s][i])
                fail_msg("side %d entry %llu: %u packed, %u before", s, (unsigned long long)i, tb_ruled(t, s, i),
                         copy[s][i]);
}

static void test_sparse_bytes_read_back(void **state)
{
    (void)state;
    const unsigned densities[] = {0, 1, 30, 512, 1024};
    for (size_t k = 0; k < sizeof densities / sizeof *densities; k++) {
        uint8_t *copy[2];
        tb_table *t = made_up(densities[k], copy);
        uint64_t words = t->ix.size / 64 + 1, nruled = 0;
        tb_ruled_pack(t);
        if (densities[k] == 1024) { /* every entry ruled: smaller as it was */
            assert_non_null(t->ruled[RED]);
            assert_null(t->ruled8[RED].bits);
            assert_int_equal(tb_table_bytes(t), tb_table_own_bytes(&t->ix, 1, 1, 0));
        } else {
            for (int s = 0; s < 2; s++) {
                assert_null(t->ruled[s]);
                assert_non_null(t->ruled8[s].bits);
                nruled += t->ruled8[s].nruled;
            }
            assert_int_equal(tb_table_bytes(t), tb_table_own_bytes(&t->ix, 1, 0, 0) +
                                                    2 * words * (sizeof(uint64_t) + sizeof(uint32_t)) + nruled);
        }
        expect_bytes(t, copy);
        tb_table_free(t);
        free(copy[0]);
        free(copy[1]);
    }
}

/* tb_ruled_replace changes a ruled entry's byte, in either form, and
 * refuses an entry without one or a byte of none. */
static void test_replace(void **state)
{
    (void)state;
    for (int packed = 0; packed < 2; packed++) {
        uint8_t *copy[2];
        tb_table *t = made_up(100, copy);
        if (packed) tb_ruled_pack(t);
        for (int s = 0; s < 2; s++)
            for (uint64_t i = 0; i < t->ix.size; i += 7) {
                unsigned v = ruled_code(1, 0, 5);
                if (copy[s][i] == RULED_NONE) {
                    assert_int_equal(tb_ruled_replace(t, s, i, v), -1);
                    continue;
                }
                assert_int_equal(tb_ruled_replace(t, s, i, RULED_NONE), -1);
                assert_int_equal(tb_ruled_replace(t, s, i, v), 0);
                copy[s][i] = (uint8_t)v;
            }
        expect_bytes(t, copy);
        tb_table_free(t);
        free(copy[0]);
        free(copy[1]);
    }
}

/* A table without rules has no ruled bytes in either form. */
static void test_no_rules(void **state)
{
    (void)state;
    xq_material m;
    char err[XQ_ERR_MAX];
    assert_int_equal(xq_material_parse("KRK", &m, err), 0);
    tb_table *t = tb_table_new(&m, 1);
    assert_non_null(t);
    assert_false(tb_has_ruled(t));
    tb_ruled_pack(t);
    assert_false(tb_has_ruled(t));
    assert_int_equal(tb_ruled(t, RED, 0), RULED_NONE);
    tb_table_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sparse_bytes_read_back),
        cmocka_unit_test(test_replace),
        cmocka_unit_test(test_no_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
