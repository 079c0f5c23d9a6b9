/*
 * test_ref_repetition.c - the reference for the repetition rulings on its own,
 * before the generator is compared with it (test_repetition_ref.c):
 *   - ref_labels' attack and legality logic against the core's legal
 *     captures and check test on every position of a few tables, and its
 *     labels against the generator's (core/labels.h) move by move;
 *   - the parity-game machinery: under rules none it must reproduce the
 *     reference solver, and the full product (every position) must give
 *     what the default product over the draws gives, with the results of
 *     smaller rule sets standing (checked inside ref_rules_solve);
 *   - hand-picked table positions with known rulings, found by searching
 *     the solved tables (each fixture states and checks its own claim), and
 *     asserted with the generator's tables too.
 */
#include "testutil.h"

#include "geometry.h"
#include "labels.h"
#include "ref_labels.h"
#include "ref_repetition.h"
#include "ruleset.h"
#include "tb.h"
#include "testgen.h"

static xq_material material(const char *name)
{
    xq_material m;
    char err[XQ_ERR_MAX];
    if (xq_material_parse(name, &m, err)) fail_msg("%s: %s", name, err);
    return m;
}

static ref_rules_db *solve(const char *name, int flags)
{
    xq_material m = material(name);
    ref_rules_db *db = ref_rules_solve(&m, XQ_RULES_FULL, flags);
    if (!db) fail_msg("ref_rules_solve(%s) failed", name);
    return db;
}

/* ---- Labeller geometry against the core -------------------------------- */
static void check_attacks_against_core(const char *name)
{
    xq_material m = material(name);
    ref_db *db = ref_solve(&m);
    assert_non_null(db);
    for (int i = 0; i < ref_count(db); i++) {
        xq_board b;
        ref_board(db, i, &b);
        for (int c = 0; c < 2; c++)
            if (ref_king_attacked(&b, c) != xq_in_check(&b, c))
                fail_msg("%s: check test differs, position %d", name, i);
        bool core[XQ_SQUARES][XQ_SQUARES] = {{false}};
        xq_move list[XQ_MAX_MOVES];
        int n = xq_gen_legal(&b, list);
        for (int j = 0; j < n; j++)
            if (b.sq[move_to(list[j])] != EMPTY) core[move_from(list[j])][move_to(list[j])] = true;
        for (int a = 0; a < XQ_SQUARES; a++) {
            if (b.sq[a] == EMPTY || colour_of(b.sq[a]) != b.side) continue;
            for (int t = 0; t < XQ_SQUARES; t++) {
                bool mine = ref_attacks(&b, a, t) && ref_move_safe(&b, a, t);
                if (mine != core[a][t]) {
                    char fen[XQ_FEN_MAX];
                    xq_fen_write(&b, fen);
                    fail_msg("%s %s: capture %d -> %d legal here %d, core %d", name, fen, a, t, mine, core[a][t]);
                }
            }
        }
    }
    ref_free(db);
}

static void test_label_geometry_matches_core(void **state)
{
    (void)state;
    const char *tables[] = {"KRKA", "KNKA", "KCKA", "KPKB", "KPKA", "KAKB"};
    for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) check_attacks_against_core(tables[i]);
}

/* ---- Hand-checked labels ------------------------------------------------ */
static ref_label label_of_as(const char *fen, const char *move, bool chases_on_checks)
{
    xq_board b;
    parse_ok(fen, &b);
    char from[3] = {move[0], move[1], 0}, to[3] = {move[2], move[3], 0};
    xq_move m = make_move(sq_of(from), sq_of(to));
    assert_true(xq_move_valid(&b, m));
    ref_label l;
    ref_label_move_as(&b, m, chases_on_checks, &l);
    return l;
}

/* The square names of `chased`, ascending, space-separated. */
static void chased_names(const uint8_t *chased, int n, char *out, size_t size)
{
    uint8_t sorted[16];
    memcpy(sorted, chased, (size_t)n);
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && sorted[j - 1] > sorted[j]; j--) {
            uint8_t t = sorted[j];
            sorted[j] = sorted[j - 1];
            sorted[j - 1] = t;
        }
    size_t o = 0;
    out[0] = 0;
    for (int i = 0; i < n; i++) {
        char s[3];
        xq_square_name(sorted[i], s);
        o += (size_t)snprintf(out + o, size - o, "%s%s", i ? " " : "", s);
    }
}

/* chased: "" for none, else the squares, space-separated; rulebook: as the
 * arbiters' rule sets label (checks chase, chases made real count).  Both
 * this labeller and the core's (under asian for rulebook, else full) must
 * give the expected label. */
static void assert_label_as(const char *fen, const char *move, bool rulebook, bool check, const char *chased)
{
    ref_label l = label_of_as(fen, move, rulebook);
    char got[64];
    chased_names(l.chased, l.nchased, got, sizeof got);
    if (l.check != check || strcmp(got, chased) != 0)
        fail_msg("%s %s: check %d chased '%s', expected check %d chased '%s'", fen, move, l.check, got, check, chased);
    xq_board b;
    parse_ok(fen, &b);
    char from[3] = {move[0], move[1], 0}, to[3] = {move[2], move[3], 0};
    xq_move_label core;
    xq_label_move_as(&b, make_move(sq_of(from), sq_of(to)), rulebook ? XQ_RULES_ASIAN : XQ_RULES_FULL, &core);
    chased_names(core.chased, core.nchased, got, sizeof got);
    if (core.check != check || strcmp(got, chased) != 0)
        fail_msg("%s %s: core check %d chased '%s', expected check %d chased '%s'", fen, move, core.check, got, check,
                 chased);
}

/* The label of a move under full and under the arbiters' sets. */
static void assert_made_real(const char *fen, const char *move, const char *full, const char *rulebook)
{
    assert_label_as(fen, move, false, false, full);
    assert_label_as(fen, move, true, false, rulebook);
}

static void assert_label(const char *fen, const char *move, bool check, const char *chased)
{
    assert_label_as(fen, move, false, check, chased);
}

static void test_labels_by_hand(void **state)
{
    (void)state;
    /* Rook check along the file; a check chases nothing. */
    assert_label(fen_of("Kd0 Re0 kf7", "w"), "e0f0", true, "");
    /* Rook attacks a lone horse: chase. */
    assert_label(fen_of("Kd0 Ra0 ke7 nd1", "w"), "a0a1", false, "d1");
    /* The same horse guarded by its king: idle. */
    assert_label(fen_of("Kd0 Ra0 ke7 ne8", "w"), "a0a8", false, "");
    /* Horse attacks a guarded rook: the cheaper piece chases anyway. */
    assert_label(fen_of("Kd0 Nc4 ke7 re8", "w"), "c4d6", false, "e8");
    /* King discovers the rook's attack on a lone horse: chase. */
    assert_label(fen_of("Kd0 Ra0 kf7 ni0", "w"), "d0d1", false, "i0");
    /* A king or pawn attacking a lone piece: idle. */
    assert_label(fen_of("Kd1 Na0 kf7 pe0", "w"), "d1e1", false, "");
    assert_label(fen_of("Kd0 Pa5 ke7 cb6", "w"), "a5b5", false, "");
    /* Horse on horse, and the other horse can take back: idle; pinned by
     * the flying general it cannot, so it is chased. */
    assert_label(fen_of("Kd0 Na0 ke7 nd1", "w"), "a0b2", false, "");
    assert_label(fen_of("Kd0 Na0 kd7 nd1", "w"), "a0b2", false, "d1");
    /* A pawn on its own side of the river cannot be chased; across it can. */
    assert_label(fen_of("Kd0 Ra0 ke7 pc6", "w"), "a0a6", false, "");
    assert_label(fen_of("Kd0 Ra0 ke7 pc4", "w"), "a0a4", false, "c4");
    /* Under the Asian rules a check chases too: the rook checks up the e
     * file and newly attacks the lone horse down it. */
    assert_label(fen_of("Kd0 Ra4 ke8 ne1", "w"), "a4e4", true, "");
    assert_label_as(fen_of("Kd0 Ra4 ke8 ne1", "w"), "a4e4", true, true, "e1");
    /* A non-checking move is labelled alike either way. */
    assert_label_as(fen_of("Kd0 Ra0 ke7 nd1", "w"), "a0a1", true, false, "d1");
}

/* Chases made real (docs/RULES.md, "A chase made real"): an attack that
 * stood before the move becomes a chase under asian and cxa, not under
 * full. */
static void test_chases_made_real_by_hand(void **state)
{
    (void)state;
    /* (a) The rook on i7 attacks the horse the advisor guards; a rook on
     * the e file pins the advisor to its king. */
    assert_made_real(fen_of("Kd0 Ra4 Ri7 ke9 ae8 nf7", "w"), "a4e4", "", "f7");
    /* (b) A cannon steps between the horse and the rook that guards it. */
    assert_made_real(fen_of("Kd0 Ca8 Ri7 kf9 rc9 nc7", "w"), "a8c8", "", "c7");
    /* (b) The only screen of the cannon that guards the horse leaves. */
    assert_made_real(fen_of("Kd0 Ra0 Nd5 ke9 ce5 na5", "w"), "d5b4", "", "a5");
    /* (c) The king steps off the file, so the cannon between the kings may
     * leave it and take the horse. */
    assert_made_real(fen_of("Ke0 Ce4 Pc4 ke9 na4", "w"), "e0d0", "", "a4");
    /* (c) The king steps onto the file of the guarding cannon, which the
     * flying general now pins. */
    assert_made_real(fen_of("Ke0 Ra0 kd9 cd5 pc5 na5", "w"), "e0d0", "", "a5");
    /* (c) A rook pins the rook that was offering an exchange: it can no
     * longer take back, and nothing guards it. */
    assert_made_real(fen_of("Kd0 Ra7 Rb2 ke9 re7", "w"), "b2e2", "", "e7");
    /* (d) Answering a check is no chase by the attack the check held up. */
    assert_made_real(fen_of("Kd1 Ra5 ke9 na9 ri1", "w"), "d1d0", "", "");
    /* Nothing changed for the attack: a move elsewhere keeps it idle. */
    assert_made_real(fen_of("Kd0 Ri7 Pa5 ke9 nf7", "w"), "a5a6", "", "");
}

/* The generator's labeller (core/labels.h) against this one, move by move:
 * the table comparison cannot see chase labels while no table has a
 * chase-decided position, so they are compared directly. */
static void check_labels_against_core(const char *name, bool asian)
{
    xq_material m = material(name);
    ref_db *db = ref_solve(&m);
    assert_non_null(db);
    for (int i = 0; i < ref_count(db); i++) {
        xq_board b;
        ref_board(db, i, &b);
        xq_move list[XQ_MAX_MOVES];
        int n = xq_gen_legal(&b, list);
        for (int j = 0; j < n; j++) {
            if (b.sq[move_to(list[j])] != EMPTY) continue;
            ref_label mine;
            xq_move_label core;
            ref_label_move_as(&b, list[j], asian, &mine);
            xq_label_move_as(&b, list[j], asian ? XQ_RULES_ASIAN : XQ_RULES_FULL, &core);
            bool same = mine.check == core.check && mine.nchased == core.nchased;
            for (int k = 0; same && k < mine.nchased; k++) {
                bool found = false;
                for (int q = 0; q < core.nchased; q++) found |= core.chased[q] == mine.chased[k];
                same = found;
            }
            if (!same) {
                char fen[XQ_FEN_MAX], mv[5];
                xq_fen_write(&b, fen);
                xq_move_name(list[j], mv);
                fail_msg("%s %s: check %d chases %d here, core check %d chases %d", fen, mv, mine.check, mine.nchased,
                         core.check, core.nchased);
            }
        }
    }
    ref_free(db);
}

static void test_labels_match_generator(void **state)
{
    (void)state;
    const char *tables[] = {"KNKA", "KCKA", "KRKA", "KPKA", "KPKB", "KAKB"};
    for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) {
        check_labels_against_core(tables[i], false);
        check_labels_against_core(tables[i], true);
    }
}

/* A random legal position with the pieces named in `pieces` (FEN letters,
 * red upper case), kings in their palaces: enough pieces for pins, screens
 * and protectors to occur. */
static void random_board_of(uint64_t *rng, const char *pieces, xq_board *b)
{
    for (;;) {
        xq_board_clear(b);
        bool clash = false;
        for (const char *p = pieces; *p && !clash; p++) {
            *rng = *rng * 6364136223846793005ull + 1442695040888963407ull;
            int r = (int)(*rng >> 33), sq = r % XQ_SQUARES;
            int colour = *p >= 'a' ? BLACK : RED, kind = 0;
            switch (*p | 0x20) {
            case 'k': kind = KING; break;
            case 'r': kind = ROOK; break;
            case 'n': kind = HORSE; break;
            case 'c': kind = CANNON; break;
            case 'p': kind = PAWN; break;
            case 'b': kind = ELEPHANT; break;
            default: kind = ADVISOR; break;
            }
            if (kind == KING) sq = make_square(3 + r % 3, (colour == RED ? 0 : 7) + r / 3 % 3);
            /* advisors and elephants on their own points, or a board with
             * a few of them would hardly ever come out valid */
            while ((kind == ADVISOR || kind == ELEPHANT) && !xq_square_allowed(colour, kind, sq))
                sq = (sq + 1) % XQ_SQUARES;
            clash = b->sq[sq] != EMPTY;
            if (!clash) xq_board_put(b, sq, make_piece(colour, kind));
        }
        *rng = *rng * 6364136223846793005ull + 1442695040888963407ull;
        b->side = (uint8_t)(*rng >> 63);
        char err[XQ_ERR_MAX];
        if (!clash && xq_board_validate(b, err) == 0) return;
    }
}

/* Both labellers on every quiet move of random positions with many
 * pieces, under full and under the arbiters' sets; returns how many moves
 * chase by an attack made real (a chase under asian that full does not
 * see, on a move that does not check). */
static int check_crowded_labels_against_core(int positions)
{
    uint64_t rng = 1125;
    int made_real = 0;
    for (int i = 0; i < positions; i++) {
        xq_board b;
        /* advisors and elephants as chasers and as prey in the third */
        static const char *const crowds[] = {"KRCCNkrrncpp", "KRRCNPkrcnnp", "KNCAABBkrnaabp"};
        random_board_of(&rng, crowds[i % 3], &b);
        xq_move list[XQ_MAX_MOVES];
        int n = xq_gen_legal(&b, list);
        for (int j = 0; j < n; j++) {
            if (b.sq[move_to(list[j])] != EMPTY) continue;
            ref_label mine[2];
            for (int rulebook = 0; rulebook < 2; rulebook++) {
                xq_move_label core;
                ref_label_move_as(&b, list[j], rulebook, &mine[rulebook]);
                xq_label_move_as(&b, list[j], rulebook ? XQ_RULES_ASIAN : XQ_RULES_FULL, &core);
                char a[64], c[64];
                chased_names(mine[rulebook].chased, mine[rulebook].nchased, a, sizeof a);
                chased_names(core.chased, core.nchased, c, sizeof c);
                if (mine[rulebook].check != core.check || strcmp(a, c) != 0) {
                    char fen[XQ_FEN_MAX], mv[5];
                    xq_fen_write(&b, fen);
                    xq_move_name(list[j], mv);
                    fail_msg("%s %s (%s): check %d chases '%s' here, core check %d chases '%s'", fen, mv,
                             rulebook ? "asian" : "full", mine[rulebook].check, a, core.check, c);
                }
            }
            made_real += !mine[0].check && mine[1].nchased > mine[0].nchased;
        }
    }
    return made_real;
}

static void test_crowded_labels_match_generator(void **state)
{
    (void)state;
    int made_real = check_crowded_labels_against_core(4000);
    print_message("moves chasing by an attack made real, among the moves of 4000 positions: %d\n", made_real);
    assert_true(made_real > 100);
}

/* The core's mate-threat label (rule set cxa) against this labeller's own
 * search, on every quiet move of random positions where threats are
 * common; returns the threats seen. */
static int check_threats_against_core(int positions)
{
    uint64_t rng = 2026;
    int threats = 0;
    for (int i = 0; i < positions; i++) {
        xq_board b;
        random_board_of(&rng, "KRNka", &b); /* where mate threats are common */
        xq_move list[XQ_MAX_MOVES];
        int n = xq_gen_legal(&b, list);
        for (int j = 0; j < n; j++) {
            if (b.sq[move_to(list[j])] != EMPTY) continue;
            xq_move_label core;
            xq_label_move_as(&b, list[j], XQ_RULES_CXA, &core);
            bool mine = ref_threatens_mate(&b, list[j]);
            if (core.threat != mine) {
                char fen[XQ_FEN_MAX], mv[5];
                xq_fen_write(&b, fen);
                xq_move_name(list[j], mv);
                fail_msg("%s %s: threat %d here, core %d", fen, mv, mine, core.threat);
            }
            threats += mine;
        }
    }
    return threats;
}

static void test_threats_match_generator(void **state)
{
    (void)state;
    int threats = check_threats_against_core(3000);
    print_message("mate threats among the moves of 3000 positions: %d\n", threats);
    assert_true(threats > 100);
}

/* ---- The parity-game machinery ------------------------------------------ */
static void check_full_graph(const char *name)
{
    ref_rules_db *full = solve(name, REF_RULES_CHECK_NONE), *draws = solve(name, 0);
    const ref_db *base = ref_rules_base(draws);
    for (int i = 0; i < ref_count(base); i++)
        for (int r = XQ_RULES_NONE; r <= XQ_RULES_FULL; r++) {
            ref_rules_value a = ref_rules_value_at(full, i, r), b = ref_rules_value_at(draws, i, r);
            if (a.wdl != b.wdl || a.by_rule != b.by_rule) fail_msg("%s: position %d rules %d differs", name, i, r);
        }
    ref_rules_free(full);
    ref_rules_free(draws);
}

static void test_full_product_agrees(void **state)
{
    (void)state;
    const char *tables[] = {"KRK", "KNKA", "KCKA", "KPKB", "KAKB"};
    for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) check_full_graph(tables[i]);
}

/* The arbiters' rule sets asian and cxa on their own.  Solving asian also
 * solves full again as a five-priority game and requires the
 * three-priority answer (inside ref_rules_solve), so a table where checks
 * decide thousands of positions exercises the construction.  On KRKN (and
 * the other tables measured, docs/RULES.md) both give full's values: no
 * chase decides anything there under asian, and under cxa the rook's side
 * can no more attack forever than it could check forever. */
static void test_arbiter_sets_on_krkn(void **state)
{
    (void)state;
    xq_material m = material("KRKN");
    ref_rules_db *db = ref_rules_solve(&m, XQ_RULES_CXA, 0);
    assert_non_null(db);
    ref_rules_stats st;
    ref_rules_get_stats(db, &st);
    assert_int_equal(st.asian_differs[RED] + st.asian_differs[BLACK], 0);
    assert_int_equal(st.cxa_differs[RED] + st.cxa_differs[BLACK], 0);
    assert_true(st.decided[XQ_RULES_CHECK][RED] + st.decided[XQ_RULES_CHECK][BLACK] > 0);
    /* what the chase rulings add to check's: nothing, under either */
    for (int c = 0; c < 2; c++) assert_int_equal(st.decided[XQ_RULES_ASIAN][c], st.decided[XQ_RULES_FULL][c]);
    /* The five-priority product is at least the three-priority one: it
     * also keeps the class of the move that entered a vertex. */
    assert_true(st.product_vertices[XQ_RULES_ASIAN] >= st.product_vertices[XQ_RULES_FULL]);
    const ref_db *base = ref_rules_base(db);
    for (int i = 0; i < ref_count(base); i++) {
        ref_rules_value f = ref_rules_value_at(db, i, XQ_RULES_FULL), a = ref_rules_value_at(db, i, XQ_RULES_ASIAN),
                        x = ref_rules_value_at(db, i, XQ_RULES_CXA);
        if (a.wdl != f.wdl || a.by_rule != f.by_rule) fail_msg("KRKN: position %d differs under asian", i);
        /* under cxa every ruled result is by the one ruling there */
        if (x.wdl != f.wdl || (f.by_rule != XQ_BY_NONE) != (x.by_rule == XQ_BY_CHASE))
            fail_msg("KRKN: position %d differs under cxa", i);
    }
    ref_rules_free(db);
}

static void test_rules_change_nothing_without_attackers(void **state)
{
    (void)state;
    const char *tables[] = {"KRK", "KCK", "KPK", "KNK", "KAKB"};
    for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) {
        ref_rules_db *db = solve(tables[i], 0);
        ref_rules_stats st;
        ref_rules_get_stats(db, &st);
        for (int r = XQ_RULES_CHECK; r <= XQ_RULES_FULL; r++) assert_int_equal(st.decided[r][0] + st.decided[r][1], 0);
        ref_rules_free(db);
    }
}

/* ---- Hand-picked table positions ----------------------------------------
 * Found by searching the solved tables.  Not found in any table searched
 * (KRKN KRKR KNKN KCKN KCKC KRKC KRKNA KRKCA KRKNB KRKCB KRAKC KRAKN KRBKN
 * KCAKN KNPKA KNPKB KCPKA and the 3-4 piece tables with pawns, advisors or
 * elephants): a position decided by the perpetual-chase ruling (no table
 * of these has one, by this solver and by the generator alike), a mutual
 * perpetual check held as the only defence, and a draw whose every saving
 * move attacks a guarded piece.  Those three cases are covered by the
 * adjudicator's hand-built histories (test_adjudicator.c) and by the
 * labels above. */
/* Value for the mover of move m, under rule set r. */
static int move_value(const ref_rules_db *db, const xq_board *b, xq_move m, int r)
{
    xq_board a = *b;
    xq_undo u;
    xq_make_move(&a, m, &u);
    return -ref_rules_wdl_under(db, &a, r);
}

/* Whether every move of b that does not lose under rule set r satisfies
 * `ok`, and there is at least one. */
static bool every_saving_move(const ref_rules_db *db, const char *fen, int r, bool (*ok)(const xq_board *, xq_move))
{
    xq_board b;
    parse_ok(fen, &b);
    xq_move list[XQ_MAX_MOVES];
    int n = xq_gen_legal(&b, list), saving = 0;
    for (int j = 0; j < n; j++) {
        if (move_value(db, &b, list[j], r) < 0) continue;
        saving++;
        if (!ok(&b, list[j])) return false;
    }
    return saving > 0;
}

static bool is_quiet_check(const xq_board *b, xq_move m)
{
    ref_label l;
    ref_label_move(b, m, &l);
    return l.check && b->sq[move_to(m)] == EMPTY;
}

/* A king or pawn move that newly attacks an enemy piece (not the king) it
 * could legally take, and is labelled idle all the same. */
static bool is_king_or_pawn_attack(const xq_board *b, xq_move m)
{
    int k = kind_of(b->sq[move_from(m)]), to = move_to(m);
    if ((k != KING && k != PAWN) || b->sq[to] != EMPTY) return false;
    ref_label l;
    ref_label_move(b, m, &l);
    if (l.check || l.nchased) return false;
    xq_board a = *b;
    xq_undo u;
    xq_make_move(&a, m, &u);
    for (int t = 0; t < XQ_SQUARES; t++)
        if (a.sq[t] && kind_of(a.sq[t]) != KING && ref_attacks(&a, to, t) && !ref_attacks(b, move_from(m), t) &&
            ref_move_safe(&a, to, t))
            return true;
    return false;
}

static void assert_value(const ref_rules_db *db, tb_table *const gen[XQ_RULES_NB], const char *fen, int r, int wdl,
                         int by_rule)
{
    xq_board b;
    parse_ok(fen, &b);
    int got = ref_rules_wdl_under(db, &b, r);
    if (got != wdl) fail_msg("%s rules %d: reference wdl %d, expected %d", fen, r, got, wdl);
    if (gen && gen[r]) {
        tb_value v = tb_value_of(gen[r], &b);
        if (v.wdl != wdl || (wdl && v.by_rule != by_rule))
            fail_msg("%s rules %d: generator wdl %d by %d, expected %d by %d", fen, r, v.wdl, v.by_rule, wdl, by_rule);
    }
}

/* Loads the generator's tables of `name` under rules check and full. */
static void load_generated(const char *name, tb_set *sets[XQ_RULES_NB], tb_table *gen[XQ_RULES_NB])
{
    gen[XQ_RULES_NONE] = NULL;
    sets[XQ_RULES_NONE] = NULL;
    for (int r = XQ_RULES_CHECK; r <= XQ_RULES_FULL; r++) gen[r] = testgen_load_rules(name, r, &sets[r]);
}

static void free_generated(tb_set *sets[XQ_RULES_NB])
{
    for (int r = 0; r < XQ_RULES_NB; r++)
        if (sets[r]) tb_set_free(sets[r]);
}

/* KRKN, black to move: the horse can only hold the draw by checking from
 * f1/b1/c0/e0 for ever (every other move loses at once); under the
 * perpetual-check ruling black loses. */
static const char CHECK_ONLY_DEFENCE[] = "9/9/4k4/9/9/9/9/3n5/9/R2K5 b - - 0 1";

static void test_perpetual_check_as_only_defence_loses(void **state)
{
    (void)state;
    ref_rules_db *db = solve("KRKN", 0);
    tb_set *sets[XQ_RULES_NB];
    tb_table *gen[XQ_RULES_NB];
    load_generated("KRKN", sets, gen);
    assert_true(every_saving_move(db, CHECK_ONLY_DEFENCE, XQ_RULES_NONE, is_quiet_check));
    assert_value(db, NULL, CHECK_ONLY_DEFENCE, XQ_RULES_NONE, 0, XQ_BY_NONE);
    assert_value(db, gen, CHECK_ONLY_DEFENCE, XQ_RULES_CHECK, -1, XQ_BY_CHECK);
    assert_value(db, gen, CHECK_ONLY_DEFENCE, XQ_RULES_FULL, -1, XQ_BY_CHECK);
    free_generated(sets);
    ref_rules_free(db);
}

/* KPKP, red to move: black's pawn threatens to win, so red must check now
 * (d7d8, nothing else holds); but red need not check on every move after
 * that (one check, one idle), and the draw stands under every rule set. */
static const char MUST_CHECK_NOW[] = "3k5/9/3P5/9/9/9/9/9/4p4/3K5 w - - 0 1";

static void test_one_check_one_idle_draws(void **state)
{
    (void)state;
    ref_rules_db *db = solve("KPKP", 0);
    assert_true(every_saving_move(db, MUST_CHECK_NOW, XQ_RULES_NONE, is_quiet_check));
    for (int r = XQ_RULES_NONE; r <= XQ_RULES_FULL; r++) assert_value(db, NULL, MUST_CHECK_NOW, r, 0, XQ_BY_NONE);
    ref_rules_free(db);
}

/* KPKA, black to move: every move that keeps the draw is a king move that
 * newly attacks red's pawn on e9 (across the river, unguarded); kings do
 * not chase, so the draw stands under rules full. */
static const char KING_ATTACKS[] = "4P4/3k5/3a5/9/9/9/9/9/9/3K5 b - - 0 1";

static void test_king_or_pawn_chasing_is_idle(void **state)
{
    (void)state;
    ref_rules_db *db = solve("KPKA", 0);
    assert_true(every_saving_move(db, KING_ATTACKS, XQ_RULES_FULL, is_king_or_pawn_attack));
    for (int r = XQ_RULES_NONE; r <= XQ_RULES_FULL; r++) assert_value(db, NULL, KING_ATTACKS, r, 0, XQ_BY_NONE);
    ref_rules_free(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_label_geometry_matches_core),
        cmocka_unit_test(test_labels_by_hand),
        cmocka_unit_test(test_chases_made_real_by_hand),
        cmocka_unit_test(test_labels_match_generator),
        cmocka_unit_test(test_crowded_labels_match_generator),
        cmocka_unit_test(test_threats_match_generator),
        cmocka_unit_test(test_full_product_agrees),
        cmocka_unit_test(test_arbiter_sets_on_krkn),
        cmocka_unit_test(test_rules_change_nothing_without_attackers),
        cmocka_unit_test(test_perpetual_check_as_only_defence_loses),
        cmocka_unit_test(test_one_check_one_idle_draws),
        cmocka_unit_test(test_king_or_pawn_chasing_is_idle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
