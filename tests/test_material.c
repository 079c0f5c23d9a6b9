/*
 * test_material.c - material signatures: parsing, canonical piece order,
 * the stronger-side-first orientation, and the error messages.
 */
#include "testutil.h"

#include "material.h"

static void parse_ok_m(const char *s, xq_material *m)
{
    char err[XQ_ERR_MAX] = "";
    if (xq_material_parse(s, m, err)) fail_msg("material %s rejected: %s", s, err);
}

static void name_of(const char *s, char out[XQ_MATERIAL_MAX])
{
    xq_material m;
    parse_ok_m(s, &m);
    xq_material_name(&m, out);
}

#define assert_name(in, expected)                                                                                      \
    do {                                                                                                               \
        char n_[XQ_MATERIAL_MAX];                                                                                      \
        name_of((in), n_);                                                                                             \
        assert_string_equal(n_, (expected));                                                                           \
    } while (0)

#define assert_material_error(in, needle)                                                                              \
    do {                                                                                                               \
        xq_material m_;                                                                                                \
        char err_[XQ_ERR_MAX] = "";                                                                                    \
        assert_int_equal(xq_material_parse((in), &m_, err_), -1);                                                      \
        if (!strstr(err_, (needle))) fail_msg("error '%s' does not mention '%s'", err_, (needle));                     \
        for (const char *c_ = err_; *c_; c_++) assert_true(*c_ >= 0x20 && *c_ < 0x7f);                                 \
    } while (0)

static void test_parse_counts(void **state)
{
    (void)state;
    xq_material m;
    parse_ok_m("KRKNAA", &m);
    assert_int_equal(m.count[RED][KING], 1);
    assert_int_equal(m.count[RED][ROOK], 1);
    assert_int_equal(m.count[BLACK][KING], 1);
    assert_int_equal(m.count[BLACK][HORSE], 1);
    assert_int_equal(m.count[BLACK][ADVISOR], 2);
    assert_int_equal(m.count[BLACK][ROOK], 0);
    assert_int_equal(m.count[RED][ADVISOR], 0);
    assert_int_equal(xq_material_pieces(&m), 6);
    parse_ok_m("KK", &m);
    assert_int_equal(xq_material_pieces(&m), 2);
}

static void test_name_roundtrip(void **state)
{
    (void)state;
    static const char *const names[] = {
        "KRKNAA", "KK", "KRKR", "KCPKAB", "KRNCPABKRNCPAB", "KRRNNCCPPPPPAABBKRRNNCCPPPPPAABB"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) assert_name(names[i], names[i]);
}

static void test_canonical_piece_order(void **state)
{
    (void)state;
    /* Inside a side: R N C P A B, whatever order was typed. */
    assert_name("KAARKN", "KRAAKN");
    assert_name("KBAPCNRKPAC", "KRNCPABKCPA");
    assert_name("KPRKBPA", "KRPKPAB");
}

static void test_h_and_e_accepted(void **state)
{
    (void)state;
    assert_name("KHEKH", "KNBKN");
    assert_name("KHHKEE", "KNNKBB");
}

static void test_stronger_side_first(void **state)
{
    (void)state;
    struct {
        const char *in, *canonical;
        bool flip;
    } cases[] = {
        {"KRKNAA", "KRKNAA", false}, {"KNAAKR", "KRKNAA", true}, /* rook outweighs horse + advisors */
        {"KKR", "KRK", true},        {"KRK", "KRK", false},      {"KNKC", "KCKN", true}, {"KPKR", "KRKP", true},
        {"KNKN", "KNKN", false},     {"KAKB", "KAKB", false},    {"KBKA", "KAKB", true}, /* equal value: the canonical
                                                                                            order (A before B) decides
                                                                                          */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        xq_material m, c;
        char name[XQ_MATERIAL_MAX];
        parse_ok_m(cases[i].in, &m);
        assert_int_equal(xq_material_needs_flip(&m), cases[i].flip);
        xq_material_canonical(&m, &c);
        xq_material_name(&c, name);
        assert_string_equal(name, cases[i].canonical);
    }
}

/* Both orientations of every small material must name the same table,
 * and the canonical orientation must be a fixed point; otherwise a table
 * would be generated twice or looked up under the wrong name. */
static void test_canonical_is_orientation_independent(void **state)
{
    (void)state;
    static const uint8_t kinds[] = {ROOK, HORSE, CANNON, PAWN, ADVISOR, ELEPHANT};
    int checked = 0;
    /* Up to three non-king pieces: each piece is (colour, kind), in order. */
    for (int n = 0; n <= 3; n++) {
        int total = 1;
        for (int i = 0; i < n; i++) total *= 12;
        for (int code = 0; code < total; code++) {
            xq_material m, f, c1, c2, cc;
            memset(&m, 0, sizeof m);
            m.count[RED][KING] = m.count[BLACK][KING] = 1;
            for (int i = 0, x = code; i < n; i++, x /= 12) m.count[(x % 12) / 6][kinds[x % 6]]++;
            xq_material_flip(&m, &f);
            xq_material_canonical(&m, &c1);
            xq_material_canonical(&f, &c2);
            assert_true(xq_material_equal(&c1, &c2));
            xq_material_canonical(&c1, &cc);
            assert_true(xq_material_equal(&cc, &c1));
            assert_false(xq_material_needs_flip(&c1));
            checked++;
        }
    }
    assert_int_equal(checked, 1 + 12 + 144 + 1728);
}

static void test_material_of_board(void **state)
{
    (void)state;
    xq_board b;
    xq_material m, p;
    char name[XQ_MATERIAL_MAX];
    parse_ok(START_FEN, &b);
    xq_material_of(&b, &m);
    xq_material_name(&m, name);
    assert_string_equal(name, "KRRNNCCPPPPPAABBKRRNNCCPPPPPAABB");
    assert_int_equal(xq_material_pieces(&m), 32);
    parse_ok(fen_of("Kd0 Ra2 kf9 nc7 ad9 ae8", "w"), &b);
    xq_material_of(&b, &m);
    parse_ok_m("KRKNAA", &p);
    assert_true(xq_material_equal(&m, &p));
}

static void test_err_three_rooks(void **state)
{
    (void)state;
    assert_material_error("KRRRK", "red has 3 rooks, at most 2");
    assert_material_error("KKRRR", "black has 3 rooks, at most 2");
    assert_material_error("KKAAA", "black has 3 advisors");
    assert_material_error("KEEEK", "red has 3 elephants");
}

static void test_err_six_pawns(void **state)
{
    (void)state;
    assert_material_error("KPPPPPPK", "red has 6 pawns, at most 5");
    assert_material_error("KKPPPPPP", "black has 6 pawns, at most 5");
}

static void test_err_missing_king(void **state)
{
    (void)state;
    assert_material_error("KRR", "needs a K for each side");
    assert_material_error("K", "needs a K for each side");
    assert_material_error("RKK", "must start with K");
    assert_material_error("", "empty material");
}

static void test_err_extra_king(void **state)
{
    (void)state;
    assert_material_error("KRKNK", "more than two kings");
}

static void test_err_unknown_letter(void **state)
{
    (void)state;
    assert_material_error("KXK", "unknown piece letter 'X'");
    assert_material_error("KRKq", "unknown piece letter 'q'");
    assert_material_error("KR K", "unknown piece letter ' '");
    assert_material_error("KR\nK", "unexpected byte 0x0a in material 'KR?K'");
    assert_material_error("KR\xc3\xa9K", "unexpected byte 0xc3");
}

static void test_err_too_long(void **state)
{
    (void)state;
    assert_material_error("KRRNNCCPPPPPAABBKRRNNCCPPPPPAABBRRRRRRRRRRR", "too long");
}

/* The tables a capture leads to: canonical, each once. */
static void test_subtables(void **state)
{
    (void)state;
    static const struct {
        const char *m;
        int n;
        const char *subs[4];
    } cases[] = {{"KK", 0, {NULL}},
                 {"KRKR", 1, {"KRK"}},
                 {"KRKNAA", 3, {"KNAAK", "KRKAA", "KRKNA"}},
                 {"KAAKP", 2, {"KAKP", "KAAK"}}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        xq_material m, sub[XQ_MAX_SUBTABLES];
        char err[XQ_ERR_MAX];
        assert_int_equal(xq_material_parse(cases[c].m, &m, err), 0);
        int n = xq_material_subtables(&m, sub);
        assert_int_equal(n, cases[c].n);
        for (int i = 0; i < n; i++) {
            char name[XQ_MATERIAL_MAX], canon[XQ_MATERIAL_MAX];
            xq_material_name(&sub[i], name);
            xq_material c2;
            xq_material_canonical(&sub[i], &c2);
            xq_material_name(&c2, canon);
            assert_string_equal(name, canon);
            int found = 0;
            for (int k = 0; k < n; k++) found |= !strcmp(name, cases[c].subs[k]);
            if (!found) fail_msg("%s: unexpected subtable %s", cases[c].m, name);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_counts),          cmocka_unit_test(test_name_roundtrip),
        cmocka_unit_test(test_canonical_piece_order), cmocka_unit_test(test_h_and_e_accepted),
        cmocka_unit_test(test_stronger_side_first),   cmocka_unit_test(test_canonical_is_orientation_independent),
        cmocka_unit_test(test_material_of_board),     cmocka_unit_test(test_err_three_rooks),
        cmocka_unit_test(test_err_six_pawns),         cmocka_unit_test(test_err_missing_king),
        cmocka_unit_test(test_err_extra_king),        cmocka_unit_test(test_err_unknown_letter),
        cmocka_unit_test(test_err_too_long),          cmocka_unit_test(test_subtables),
    };
    return cmocka_run_group_tests_name("material", tests, NULL, NULL);
}
