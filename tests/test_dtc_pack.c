/*
 * test_dtc_pack.c - a table's final DTC codes packed one byte an entry
 * (gen/dtc_pack.c, tb_dtc in gen/tb.h), against the codes they came from.
 *
 * The codes are made up, not generated, so that every kind a table can
 * hold turns up in the numbers wanted: distances that hold, DTC_NONE,
 * cursed wins and blessed losses (DTC_BEYOND | d), and distances past a
 * byte under a long move limit; the generated tables are compared through
 * the packed form by test_limit, test_limit_ref and test_unpack.
 */
#include "dtc.h"
#include "testutil.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next_random(void) { return test_xorshift(&rng); }

/* A code of the mix: `wide` in 1024 of them need two bytes. */
static uint16_t random_code(unsigned wide)
{
    uint64_t r = next_random();
    if ((r & 1023) < wide) {
        switch ((r >> 10) % 4) {
        case 0: return (uint16_t)(DTC_BEYOND | ((r >> 12) % 400));
        case 1: return (uint16_t)(TB_DTC8_WIDE + (r >> 12) % 600); /* a distance under a long limit */
        case 2: return TB_DTC8_WIDE;                               /* the first that does not fit */
        default: return (uint16_t)(DTC_BEYOND | DTC_MAX);
        }
    }
    switch ((r >> 10) % 3) {
    case 0: return DTC_NONE;
    case 1: return (uint16_t)((r >> 12) % 121);
    default: return TB_DTC8_WIDE - 1; /* the last that fits */
    }
}

/* A table of `material` with DTC codes of the mix on both sides (wide per
 * 1024 on red, wide_black on black), and a copy of them. */
static tb_table *made_up_of(const char *material, unsigned wide, unsigned wide_black, uint16_t *copy[2])
{
    xq_material m;
    char err[XQ_ERR_MAX];
    assert_int_equal(xq_material_parse(material, &m, err), 0);
    tb_table *t = tb_table_new(&m, 1);
    assert_non_null(t);
    t->limit = 120;
    for (int s = 0; s < 2; s++) {
        t->dtc[s] = malloc(t->ix.size * sizeof(uint16_t));
        copy[s] = malloc(t->ix.size * sizeof(uint16_t));
        assert_non_null(t->dtc[s]);
        assert_non_null(copy[s]);
        for (uint64_t i = 0; i < t->ix.size; i++) copy[s][i] = t->dtc[s][i] = random_code(s ? wide_black : wide);
    }
    return t;
}

/* KRK, small enough to pack a thousand times over. */
static tb_table *made_up(unsigned wide, unsigned wide_black, uint16_t *copy[2])
{
    return made_up_of("KRK", wide, wide_black, copy);
}

static void expect_codes(const tb_table *t, uint16_t *const copy[2])
{
    assert_true(tb_has_dtc(t));
    for (int s = 0; s < 2; s++)
        for (uint64_t i = 0; i < t->ix.size; i++)
            if (tb_dtc(t, s, i) != copy[s][i])
                fail_msg("side %d entry %llu: %u packed, %u before", s, (unsigned long long)i, tb_dtc(t, s, i),
                         copy[s][i]);
}

/* Few wide codes: both sides packed, every code read back, and the
 * table's bytes counted as packed. */
static void test_packed_codes_read_back(void **state)
{
    (void)state;
    for (unsigned wide = 0; wide <= 60; wide += 20) {
        uint16_t *copy[2];
        tb_table *t = made_up(wide, wide / 2, copy);
        uint64_t before = tb_table_bytes(t), n = t->ix.size;
        tb_dtc_pack(t);
        for (int s = 0; s < 2; s++) {
            assert_null(t->dtc[s]);
            assert_non_null(t->dtc8[s].code);
            for (uint64_t k = 1; k < t->dtc8[s].nwide; k++)
                assert_true(t->dtc8[s].wide_at[k - 1] < t->dtc8[s].wide_at[k]);
        }
        if (wide == 0) assert_int_equal(t->dtc8[0].nwide + t->dtc8[1].nwide, 0);
        uint64_t listed = (t->dtc8[0].nwide + t->dtc8[1].nwide) * (sizeof(uint64_t) + sizeof(uint16_t));
        assert_int_equal(tb_table_bytes(t), before - 2 * n + listed);
        expect_codes(t, copy);
        tb_table_free(t);
        free(copy[0]);
        free(copy[1]);
    }
}

/* A side with more than a sixteenth of its codes wide stays as it was,
 * the other side packs, and both read back. */
static void test_side_with_many_wide_codes_unpacked(void **state)
{
    (void)state;
    uint16_t *copy[2];
    tb_table *t = made_up(10, 200, copy); /* about 1% and 20% */
    tb_dtc_pack(t);
    assert_null(t->dtc[RED]);
    assert_non_null(t->dtc8[RED].code);
    assert_non_null(t->dtc[BLACK]);
    assert_null(t->dtc8[BLACK].code);
    expect_codes(t, copy);
    tb_dtc_pack(t); /* again: nothing more to do */
    expect_codes(t, copy);
    tb_table_free(t);
    free(copy[0]);
    free(copy[1]);
}

/* tb_dtc_pack_from as dtc.c uses it: the codes come from a byte an
 * entry (here an index into the side's made-up codes) that the packing
 * overwrites in place; a side of few wide codes keeps those bytes as its
 * packed codes, one of many is refused, its bytes untouched (dtc.c then
 * makes them two-byte codes itself).  On KRKN (348,480 entries a side,
 * several of the packing's chunks) with 1 and 3 threads: the same codes,
 * and the wide ones listed in order of entry, whichever thread packed
 * which chunk. */
typedef struct {
    const uint8_t *bytes;
    const uint16_t *codes;
} from_bytes;

static unsigned code_from_byte(const void *arg, uint64_t i)
{
    const from_bytes *f = arg;
    return f->codes[(f->bytes[i] + i) % 256];
}

static void pack_from_bytes(int threads)
{
    uint16_t *copy[2];
    tb_table *t = made_up_of("KRKN", 10, 200, copy); /* about 1% and 20% wide */
    uint64_t n = t->ix.size;
    assert_true(n > 4 * 65536);
    for (int s = 0; s < 2; s++) {
        uint8_t *bytes = malloc(n);
        assert_non_null(bytes);
        for (uint64_t i = 0; i < n; i++) bytes[i] = (uint8_t)(next_random() & 0xFF);
        uint16_t *want = malloc(n * sizeof *want);
        assert_non_null(want);
        from_bytes f = {bytes, copy[s]};
        for (uint64_t i = 0; i < n; i++) want[i] = (uint16_t)code_from_byte(&f, i);
        free(t->dtc[s]);
        t->dtc[s] = NULL;
        uint8_t *before = malloc(n);
        assert_non_null(before);
        memcpy(before, bytes, n);
        int rc = tb_dtc_pack_from(t, s, bytes, code_from_byte, &f, threads);
        assert_null(t->dtc[s]);
        if (s == BLACK) {
            assert_int_equal(rc, 1);
            assert_null(t->dtc8[s].code);
            assert_memory_equal(bytes, before, n);
            t->dtc[s] = want; /* so that the table has codes, and frees them */
            free(bytes);
            free(before);
            continue;
        }
        assert_int_equal(rc, 0);
        assert_ptr_equal(t->dtc8[s].code, bytes);
        free(before);
        uint64_t wide = 0;
        for (uint64_t i = 0; i < n; i++) {
            if (tb_dtc(t, s, i) != want[i])
                fail_msg("side %d entry %llu: %u packed, %u wanted (%d threads)", s, (unsigned long long)i,
                         tb_dtc(t, s, i), want[i], threads);
            wide += want[i] != DTC_NONE && want[i] >= TB_DTC8_WIDE;
        }
        assert_int_equal(t->dtc8[s].nwide, wide);
        assert_true(wide > 0);
        for (uint64_t k = 1; k < t->dtc8[s].nwide; k++) assert_true(t->dtc8[s].wide_at[k - 1] < t->dtc8[s].wide_at[k]);
        free(want);
    }
    tb_table_free(t);
    free(copy[0]);
    free(copy[1]);
}

static void test_packed_from_bytes(void **state)
{
    (void)state;
    pack_from_bytes(1);
    pack_from_bytes(3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_packed_codes_read_back),
        cmocka_unit_test(test_side_with_many_wide_codes_unpacked),
        cmocka_unit_test(test_packed_from_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
