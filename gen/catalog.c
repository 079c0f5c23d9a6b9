/*
 * catalog.c - see catalog.h.
 */
#include "catalog.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memplan.h"
#include "tb.h"

static const char *const rows[TB_CATALOG_ROWS] = {"one-attacker", "up-to-3", "up-to-4", "up-to-5", "up-to-6"};

const char *tb_catalog_row(int i) { return i >= 0 && i < TB_CATALOG_ROWS ? rows[i] : NULL; }

const char *tb_catalog_describe(const tb_set_spec *s)
{
    if (!s->up_to)
        return "one side has one attacker (R, N, C or P) and any advisors and elephants, the other side advisors "
               "and elephants only";
    return "every material of at most N pieces, kings included";
}

enum { UP_TO_MIN = 2, UP_TO_MAX = 8, MAX_PIECES = 32 };

/* User text quoted in a message: at most 40 bytes, anything unprintable
 * shown as '?', so that a message is always one clean line. */
typedef struct {
    char s[44];
} quoted;

static quoted quote(const char *in)
{
    quoted q;
    int n = 0;
    for (; in[n] && n < 40; n++) q.s[n] = in[n] >= 32 && in[n] < 127 ? in[n] : '?';
    if (in[n]) q.s[n++] = '.', q.s[n++] = '.', q.s[n++] = '.';
    q.s[n] = 0;
    return q;
}

void tb_set_filter_init(tb_set_filter *f)
{
    memset(f, 0, sizeof *f);
    f->pieces = (tb_count_range){2, MAX_PIECES};
    for (int s = 0; s < TB_SIDES; s++) {
        f->attackers[s] = (tb_count_range){0, MAX_PIECES};
        f->defenders[s] = (tb_count_range){0, MAX_PIECES};
    }
}

int tb_set_spec_parse(const char *name, tb_set_spec *s, char err[XQ_ERR_MAX])
{
    memset(s, 0, sizeof *s);
    tb_set_filter_init(&s->filter);
    if (!strcmp(name, "one-attacker")) {
        snprintf(s->name, sizeof s->name, "%s", name);
        return 0;
    }
    if (!strncmp(name, "up-to-", 6)) {
        const char *p = name + 6;
        int n = 0, digits = 0;
        for (; *p >= '0' && *p <= '9' && digits < 3; p++, digits++) n = 10 * n + (*p - '0');
        if (digits && !*p && n >= UP_TO_MIN && n <= UP_TO_MAX) {
            s->up_to = n;
            snprintf(s->name, sizeof s->name, "up-to-%d", n);
            return 0;
        }
        snprintf(err, XQ_ERR_MAX, "up-to-N takes a piece count N from %d to %d (kings included), not '%s'", UP_TO_MIN,
                 UP_TO_MAX, quote(name + 6).s);
        return -1;
    }
    snprintf(err, XQ_ERR_MAX, "unknown table set '%s' (the sets: one-attacker, up-to-N; see xqtb sets)", quote(name).s);
    return -1;
}

/* ---- filters ----------------------------------------------------------------- */
/* Parses "N", "N-M" or "N-" (N or more) with max as the largest count allowed; *end gets the
 * first character not read. */
static int parse_range(const char *s, int max, tb_count_range *r, const char **end)
{
    long lo = 0, hi;
    int digits = 0;
    for (; *s >= '0' && *s <= '9' && digits < 4; s++, digits++) lo = 10 * lo + (*s - '0');
    if (!digits) return -1;
    hi = lo;
    if (*s == '-') {
        s++;
        hi = 0;
        digits = 0;
        for (; *s >= '0' && *s <= '9' && digits < 4; s++, digits++) hi = 10 * hi + (*s - '0');
        if (!digits) hi = max; /* "N-": N or more */
    }
    *end = s;
    if (lo > hi || hi > max) return -2;
    *r = (tb_count_range){(int)lo, (int)hi};
    return 0;
}

/* RANGE, or STRONG/WEAK (each a range) for a per-side count. */
static int parse_sided(const char *opt, const char *v, int max, tb_count_range r[TB_SIDES], char err[XQ_ERR_MAX])
{
    const char *end;
    tb_count_range a, b;
    int rc = parse_range(v, max, &a, &end);
    if (rc == 0 && *end == '/') rc = parse_range(end + 1, max, &b, &end);
    if (rc == 0 && *end) rc = -1;
    if (rc == -2) {
        snprintf(err, XQ_ERR_MAX, "%s '%s' asks for an impossible count (a range runs low to high, at most %d)", opt,
                 quote(v).s, max);
        return -1;
    }
    if (rc) {
        snprintf(err, XQ_ERR_MAX,
                 "%s takes a count or range (N, N-M, N-), or one per side as STRONG/WEAK (e.g. 1/0), not '%s'", opt,
                 quote(v).s);
        return -1;
    }
    if (strchr(v, '/')) {
        r[TB_SIDE_STRONG] = a;
        r[TB_SIDE_WEAK] = b;
    } else {
        r[TB_SIDES_BOTH] = a;
    }
    return 0;
}

static int kind_of_letter(char c)
{
    switch (c) {
    case 'R': return ROOK;
    case 'N':
    case 'H': return HORSE;
    case 'C': return CANNON;
    case 'P': return PAWN;
    case 'A': return ADVISOR;
    case 'B':
    case 'E': return ELEPHANT;
    default: return NO_KIND;
    }
}

/* --with RNP (repeated letters: at least that many) or --without P. */
static int parse_kinds(const char *opt, const char *v, uint8_t out[KIND_NB], int count, char err[XQ_ERR_MAX])
{
    uint8_t k[KIND_NB] = {0};
    if (!*v) {
        snprintf(err, XQ_ERR_MAX, "%s needs piece letters (R N C P A B), e.g. %s R", opt, opt);
        return -1;
    }
    for (const char *p = v; *p; p++) {
        int kind = kind_of_letter(*p);
        if (!kind) {
            char c[2] = {*p, 0};
            snprintf(err, XQ_ERR_MAX, "%s takes the piece letters R N C P A B (uppercase), not '%s'", opt, quote(c).s);
            return -1;
        }
        if (k[kind] < 255) k[kind]++;
        if (count && k[kind] > 2 * xq_kind_limit[kind]) {
            snprintf(err, XQ_ERR_MAX, "%s %s asks for more %c than the board can hold (%d)", opt, quote(v).s, *p,
                     2 * xq_kind_limit[kind]);
            return -1;
        }
    }
    for (int i = 0; i < KIND_NB; i++)
        if (k[i]) out[i] = count ? k[i] : 1;
    return 0;
}

int tb_set_filter_option(tb_set_filter *f, const char *opt, const char *value, char err[XQ_ERR_MAX])
{
    if (!strcmp(opt, "--pieces")) {
        const char *end;
        int rc = parse_range(value, MAX_PIECES, &f->pieces, &end);
        if (rc == 0 && !*end && f->pieces.lo < 2) rc = -2;
        if (rc == 0 && *end) rc = -1;
        if (rc == -2)
            snprintf(err, XQ_ERR_MAX,
                     "--pieces '%s' asks for an impossible count (kings included: 2 to %d, low to high)",
                     quote(value).s, MAX_PIECES);
        else if (rc)
            snprintf(err, XQ_ERR_MAX, "--pieces takes a count or range (N, N-M, N-), not '%s'", quote(value).s);
        return rc ? -1 : 1;
    }
    if (!strcmp(opt, "--attackers")) return parse_sided(opt, value, 2 * 11, f->attackers, err) ? -1 : 1;
    if (!strcmp(opt, "--defenders")) return parse_sided(opt, value, 2 * 4, f->defenders, err) ? -1 : 1;
    if (!strcmp(opt, "--with")) return parse_kinds(opt, value, f->with, 1, err) ? -1 : 1;
    if (!strcmp(opt, "--without")) return parse_kinds(opt, value, f->without, 0, err) ? -1 : 1;
    return 0;
}

static int attackers_of(const xq_material *m, int c)
{
    return m->count[c][ROOK] + m->count[c][HORSE] + m->count[c][CANNON] + m->count[c][PAWN];
}
static int defenders_of(const xq_material *m, int c) { return m->count[c][ADVISOR] + m->count[c][ELEPHANT]; }
static int in_range(tb_count_range r, int n) { return n >= r.lo && n <= r.hi; }

int tb_set_filter_keeps(const tb_set_filter *f, const xq_material *m)
{
    if (!in_range(f->pieces, xq_material_pieces(m))) return 0;
    /* the canonical name puts red first: red is the stronger side on a tie */
    int strong = attackers_of(m, BLACK) > attackers_of(m, RED) ? BLACK : RED, weak = strong ^ 1;
    int att[TB_SIDES] = {attackers_of(m, RED) + attackers_of(m, BLACK), attackers_of(m, strong), attackers_of(m, weak)};
    int def[TB_SIDES] = {defenders_of(m, RED) + defenders_of(m, BLACK), defenders_of(m, strong), defenders_of(m, weak)};
    for (int s = 0; s < TB_SIDES; s++)
        if (!in_range(f->attackers[s], att[s]) || !in_range(f->defenders[s], def[s])) return 0;
    for (int k = ADVISOR; k < KIND_NB; k++) {
        int n = m->count[RED][k] + m->count[BLACK][k];
        if (n < f->with[k] || (f->without[k] && n)) return 0;
    }
    return 1;
}

static void append(char *buf, size_t len, const char *fmt, ...)
{
    size_t used = strlen(buf);
    if (used >= len) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
}

static void range_text(char *buf, size_t len, tb_count_range r)
{
    if (r.lo == r.hi)
        append(buf, len, "%d", r.lo);
    else
        append(buf, len, "%d-%d", r.lo, r.hi);
}

void tb_set_filter_text(const tb_set_filter *f, char *buf, size_t len)
{
    tb_set_filter all;
    tb_set_filter_init(&all);
    buf[0] = 0;
    if (f->pieces.lo != all.pieces.lo || f->pieces.hi != all.pieces.hi) {
        append(buf, len, " --pieces ");
        range_text(buf, len, f->pieces);
    }
    const tb_count_range *sided[2] = {f->attackers, f->defenders};
    static const char *const names[2] = {"--attackers", "--defenders"};
    for (int i = 0; i < 2; i++) {
        const tb_count_range *r = sided[i];
        if (r[0].lo != 0 || r[0].hi != MAX_PIECES) {
            append(buf, len, " %s ", names[i]);
            range_text(buf, len, r[0]);
        }
        if (r[1].lo != 0 || r[1].hi != MAX_PIECES || r[2].lo != 0 || r[2].hi != MAX_PIECES) {
            append(buf, len, " %s ", names[i]);
            range_text(buf, len, r[1]);
            append(buf, len, "/");
            range_text(buf, len, r[2]);
        }
    }
    for (int w = 0; w < 2; w++) {
        const uint8_t *k = w ? f->without : f->with;
        int any = 0;
        for (int i = ADVISOR; i < KIND_NB; i++) any |= k[i];
        if (!any) continue;
        append(buf, len, " %s ", w ? "--without" : "--with");
        for (int j = 0; j < 6; j++)
            for (int n = 0; n < k[xq_material_order[j]]; n++) append(buf, len, "%c", "?KABNRCP"[xq_material_order[j]]);
    }
    if (buf[0] == ' ') memmove(buf, buf + 1, strlen(buf));
}

/* ---- listing ------------------------------------------------------------- */
typedef struct {
    tb_set_member *m;
    int n, cap;
} member_vec;

static int push(member_vec *v, const xq_material *m, int target)
{
    if (v->n == v->cap) {
        int cap = v->cap ? 2 * v->cap : 256;
        tb_set_member *p = realloc(v->m, (size_t)cap * sizeof *p);
        if (!p) return -1;
        v->m = p;
        v->cap = cap;
    }
    v->m[v->n++] = (tb_set_member){*m, target, 0};
    return 0;
}

/* Every material whose (colour, kind) slots from `slot` on hold exactly
 * `left` more pieces, kept by the filter. */
static const uint8_t slot_kinds[6] = {ADVISOR, ELEPHANT, HORSE, ROOK, CANNON, PAWN};
static int up_to_slots(xq_material *m, int slot, int left, const tb_set_filter *f, member_vec *v)
{
    if (slot == 12) {
        if (left) return 0;
        xq_material c;
        xq_material_canonical(m, &c);
        /* each material once: keep only the colouring that is canonical */
        if (!xq_material_equal(&c, m) || !tb_set_filter_keeps(f, &c)) return 0;
        return push(v, &c, 1);
    }
    int colour = slot / 6, kind = slot_kinds[slot % 6];
    for (int k = 0; k <= xq_kind_limit[kind] && k <= left; k++) {
        m->count[colour][kind] = (uint8_t)k;
        if (up_to_slots(m, slot + 1, left - k, f, v)) return -1;
    }
    m->count[colour][kind] = 0;
    return 0;
}

static int one_attacker(const tb_set_filter *f, member_vec *v)
{
    static const uint8_t attackers[4] = {ROOK, HORSE, CANNON, PAWN};
    for (int a = 0; a < 4; a++)
        for (int code = 0; code < 81; code++) {
            xq_material m;
            memset(&m, 0, sizeof m);
            m.count[RED][KING] = m.count[BLACK][KING] = 1;
            m.count[RED][attackers[a]] = 1;
            m.count[RED][ADVISOR] = (uint8_t)(code % 3);
            m.count[RED][ELEPHANT] = (uint8_t)(code / 3 % 3);
            m.count[BLACK][ADVISOR] = (uint8_t)(code / 9 % 3);
            m.count[BLACK][ELEPHANT] = (uint8_t)(code / 27);
            xq_material_canonical(&m, &m);
            if (tb_set_filter_keeps(f, &m) && push(v, &m, 1)) return -1;
        }
    return 0;
}

static int member_cmp(const void *a, const void *b)
{
    const tb_set_member *x = a, *y = b;
    int px = xq_material_pieces(&x->mat), py = xq_material_pieces(&y->mat);
    if (px != py) return px < py ? -1 : 1;
    char nx[XQ_MATERIAL_MAX], ny[XQ_MATERIAL_MAX];
    xq_material_name(&x->mat, nx);
    xq_material_name(&y->mat, ny);
    return strcmp(nx, ny);
}

static int find_member(const member_vec *v, const xq_material *m)
{
    for (int i = 0; i < v->n; i++)
        if (xq_material_equal(&v->m[i].mat, m)) return i;
    return -1;
}

/* Adds every subtable of v's members (a capture removes one non-king
 * piece), recursively, as non-targets. */
static int close_under_captures(member_vec *v)
{
    for (int i = 0; i < v->n; i++) {
        xq_material sub[XQ_MAX_SUBTABLES];
        int n = xq_material_subtables(&v->m[i].mat, sub);
        for (int j = 0; j < n; j++)
            if (find_member(v, &sub[j]) < 0 && push(v, &sub[j], 0)) return -1;
    }
    return 0;
}

int tb_set_list_make(const tb_set_spec *s, tb_set_list *out, char err[XQ_ERR_MAX])
{
    memset(out, 0, sizeof *out);
    member_vec v = {0};
    int rc;
    if (s->up_to) {
        xq_material m;
        memset(&m, 0, sizeof m);
        m.count[RED][KING] = m.count[BLACK][KING] = 1;
        rc = 0;
        for (int extra = 0; extra <= s->up_to - 2 && !rc; extra++) rc = up_to_slots(&m, 0, extra, &s->filter, &v);
    } else {
        rc = one_attacker(&s->filter, &v);
    }
    if (rc || close_under_captures(&v)) {
        free(v.m);
        snprintf(err, XQ_ERR_MAX, "out of memory listing the set");
        return -1;
    }
    int targets = 0;
    for (int i = 0; i < v.n; i++) targets += v.m[i].target;
    if (!targets) {
        char f[256];
        tb_set_filter_text(&s->filter, f, sizeof f);
        snprintf(err, XQ_ERR_MAX, "no material of %s matches the filters (%.80s)", s->name, f);
        free(v.m);
        return -1;
    }
    qsort(v.m, (size_t)v.n, sizeof *v.m, member_cmp);
    for (int i = 0; i < v.n; i++) {
        xq_index ix;
        if (xq_index_init(&ix, &v.m[i].mat)) {
            char name[XQ_MATERIAL_MAX];
            xq_material_name(&v.m[i].mat, name);
            snprintf(err, XQ_ERR_MAX, "%s has no index (too large)", name);
            free(v.m);
            return -1;
        }
        v.m[i].entries = ix.size;
        xq_index_free(&ix);
        out->entries += ix.size;
        if (v.m[i].target) out->target_entries += ix.size;
    }
    out->m = v.m;
    out->n = v.n;
    out->targets = targets;
    return 0;
}

void tb_set_list_free(tb_set_list *l)
{
    free(l->m);
    memset(l, 0, sizeof *l);
}

/* ---- estimates ------------------------------------------------------------- */
/* Measured rates (docs/BENCHMARKS.md, "Table sets"): seconds of wall time
 * per index entry (per side) with two threads and the defaults, and bytes
 * per index entry of compressed and raw files.  A table where both sides
 * have an attacker (R, N, C or P) takes longer an entry, its rulings
 * mostly, and about twice the disk of one where a side has only
 * defenders.  Time (gen --set's lines, 2026-11-30): the one-attacker set
 * 0.457 us an entry; of --all 5, 0.498 for its 127 tables of the second
 * kind and 0.797 for its 82 of the first.  Disk: the one-attacker set
 * 0.153; of --all 5's files, 0.123 and 0.299 (2026-11-30), which one rate
 * (0.253 over the set) cannot fit. */
#define RATE_SECONDS 0.46e-6
#define RATE_SECONDS_BOTH_ATTACK 0.8e-6
#define RATE_DISK 0.16
#define RATE_DISK_BOTH_ATTACK 0.30
#define RATE_RAW 0.14
/* A conversion between --store-both and default files, as a share of the
 * table's generation: the --all 5 set took 511.7 s to convert to
 * --store-both, 309.7 s back, and 1,307.1 s to generate, on the same
 * machine and day (docs/BENCHMARKS.md, "Files converted between searched
 * and stored sides"). */
#define CONVERT_SHARE 0.4

/* ---- what a run over the list holds ----------------------------------------
 * gen builds a set's members in the list's order, all in one tb_set
 * (gen/cli/sets.c), and before each member it builds (schedule.c) trims the
 * set to what that member and those still to come capture into
 * (tb_set_trim), loads the subtables it lacks, and trims again; the memory
 * check then counts what the set holds.  This model replays those steps on
 * the list, member by member, so an estimate counts the tables gen will
 * hold at that point: more than a member's own subtables where later
 * members need a table kept, less than its whole closure where trimming
 * lets tables go. */
typedef struct {
    const tb_set_list *l;
    const uint8_t *done;
    int (*cap)[XQ_MAX_SUBTABLES]; /* member index of each capture's subtable (-1: not listed) */
    uint8_t (*side)[XQ_MAX_SUBTABLES];
    int *ncap;
    uint64_t *base, *per_side; /* a held table's bytes: base + per_side per side held, */
    uint64_t *codes, *slim;    /* + its ruled bitmap and DTC codes per side, or once trimmed, slim DTC bits */
    uint8_t *held;             /* bit s: the table's side s to move is held; HELD_CODES: not trimmed yet */
    uint8_t *ahead, *need;
} run_model;

static void model_free(run_model *r)
{
    free(r->cap);
    free(r->side);
    free(r->ncap);
    free(r->base);
    free(r->per_side);
    free(r->codes);
    free(r->slim);
    free(r->held);
    free(r->ahead);
    free(r->need);
}

/* The least bytes a table of a member holds a side with once built or
 * loaded (table.c's tb_table_bytes): its cells, at least a byte an entry,
 * the bits and ranks of its sparse ruled bytes (tb_ruled8), and its DTC
 * codes, packed at least a byte an entry; once a trim has made it slim
 * (tb_table_slim), its cells and a bit an entry of DTC, the ruled bytes
 * gone from a side without a ruled result.  A byte a ruled result, DTC
 * codes past a byte, and a slim side's ruled bytes depend on the table
 * and are left out. */
static int model_init(run_model *r, const tb_set_list *l, const uint8_t *done, int rules, int limit)
{
    memset(r, 0, sizeof *r);
    size_t n = (size_t)l->n + 1;
    r->l = l;
    r->done = done;
    r->cap = malloc(n * sizeof *r->cap);
    r->side = malloc(n * sizeof *r->side);
    r->ncap = malloc(n * sizeof *r->ncap);
    r->base = malloc(n * sizeof *r->base);
    r->per_side = malloc(n * sizeof *r->per_side);
    r->codes = malloc(n * sizeof *r->codes);
    r->slim = malloc(n * sizeof *r->slim);
    r->held = calloc(n, 1);
    r->ahead = calloc(n, 1);
    r->need = calloc(n, 1);
    if (!r->cap || !r->side || !r->ncap || !r->base || !r->per_side || !r->codes || !r->slim || !r->held || !r->ahead ||
        !r->need) {
        model_free(r);
        return -1;
    }
    for (int i = 0; i < l->n; i++) {
        xq_material sub[XQ_MAX_SUBTABLES];
        int side[XQ_MAX_SUBTABLES];
        r->ncap[i] = tb_capture_targets(&l->m[i].mat, sub, side);
        for (int k = 0; k < r->ncap[i]; k++) {
            r->cap[i][k] = -1;
            r->side[i][k] = (uint8_t)side[k];
            /* subtables come first in the list */
            for (int j = i - 1; j >= 0 && r->cap[i][k] < 0; j--)
                if (xq_material_equal(&l->m[j].mat, &sub[k])) r->cap[i][k] = j;
        }
        uint64_t e = l->m[i].entries;
        xq_index ix;
        r->base[i] = 0;
        if (xq_index_init(&ix, &l->m[i].mat) == 0) {
            r->base[i] = tb_table_own_bytes(&ix, 1, 0, 0) - 2 * e;
            xq_index_free(&ix);
        }
        /* cells; then the ruled bytes' bits and ranks and the DTC codes */
        r->per_side[i] = e;
        r->codes[i] =
            (rules != XQ_RULES_NONE ? (e / 64 + 1) * (sizeof(uint64_t) + sizeof(uint32_t)) : 0) + (limit ? e : 0);
        r->slim[i] = limit ? (e / 64 + 1) * sizeof(uint64_t) : 0;
    }
    return 0;
}

enum { HELD_SIDES = 3, HELD_CODES = 4 };

static int model_built(const run_model *r, int k) { return r->done && r->done[k] == TB_DONE; }

/* Marks in r->ahead member j and its subtables, recursively. */
static void mark_ahead(run_model *r, int j)
{
    if (r->ahead[j]) return;
    r->ahead[j] = 1;
    for (int k = 0; k < r->ncap[j]; k++)
        if (r->cap[j][k] >= 0) mark_ahead(r, r->cap[j][k]);
}

static void mark_need(run_model *r, int j)
{
    for (int k = 0; k < r->ncap[j]; k++)
        if (r->cap[j][k] >= 0) r->need[r->cap[j][k]] |= (uint8_t)(1u << r->side[j][k]);
}

/* tb_set_trim before member i: the goals are i and the members after it
 * that the run builds.  A table kept is held slim after it
 * (tb_table_slim). */
static void model_trim(run_model *r, int i)
{
    int n = r->l->n;
    memset(r->ahead, 0, (size_t)n);
    memset(r->need, 0, (size_t)n);
    for (int k = i; k < n; k++)
        if (k == i || !model_built(r, k)) mark_ahead(r, k);
    mark_need(r, i);
    for (int j = 0; j < n; j++)
        if (r->ahead[j] && j != i && !(r->held[j] & HELD_SIDES)) mark_need(r, j);
    for (int j = 0; j < n; j++)
        if (j != i) r->held[j] &= r->need[j];
}

/* visit's loading of member j's subtables that the set lacks, theirs first. */
static void model_load(run_model *r, int j)
{
    for (int k = 0; k < r->ncap[j]; k++) {
        int s = r->cap[j][k];
        if (s < 0 || (r->held[s] & HELD_SIDES)) continue;
        model_load(r, s);
        r->held[s] = HELD_SIDES | HELD_CODES;
    }
}

static uint64_t model_bytes(const run_model *r)
{
    uint64_t b = 0;
    for (int j = 0; j < r->l->n; j++)
        if (r->held[j] & HELD_SIDES)
            b += r->base[j] + (uint64_t)__builtin_popcount(r->held[j] & HELD_SIDES) *
                                  (r->per_side[j] + (r->held[j] & HELD_CODES ? r->codes[j] : r->slim[j]));
    return b;
}

/* The figures of member i with `resident` bytes of tables in memory. */
static void estimate_one(const tb_set_list *l, int i, int rules, int limit, int threads, uint64_t resident,
                         tb_estimate *e)
{
    memset(e, 0, sizeof *e);
    uint64_t n = l->m[i].entries;
    tb_mem_plan p;
    /* as gen runs by default: no raw file */
    if (tb_mem_plan_make(&l->m[i].mat, 1, rules, limit, threads, 0, resident, &p) == 0) {
        e->memory = p.total;
        e->convert_memory = resident + p.step[TB_STEP_COMPRESS];
    }
    int both = attackers_of(&l->m[i].mat, RED) > 0 && attackers_of(&l->m[i].mat, BLACK) > 0;
    e->seconds = (double)n * (both ? RATE_SECONDS_BOTH_ATTACK : RATE_SECONDS);
    e->convert_seconds = e->seconds * CONVERT_SHARE;
    e->disk = (uint64_t)((double)n * (both ? RATE_DISK_BOTH_ATTACK : RATE_DISK));
    e->raw = (uint64_t)((double)n * RATE_RAW);
}

int tb_set_estimates(const tb_set_list *l, const uint8_t *done, int rules, int limit, int threads, tb_estimate *est)
{
    run_model r;
    if (model_init(&r, l, done, rules, limit)) return -1;
    for (int i = 0; i < l->n; i++) {
        if (model_built(&r, i)) {
            /* not built by the run: what building it alone would hold,
             * its subtables with both sides */
            uint64_t subs = 0;
            for (int k = 0; k < r.ncap[i]; k++) {
                int s = r.cap[i][k], first = 1;
                for (int q = 0; q < k; q++) first &= r.cap[i][q] != s;
                if (s >= 0 && first) subs += r.base[s] + 2 * (r.per_side[s] + r.slim[s]);
            }
            estimate_one(l, i, rules, limit, threads, subs, &est[i]);
            continue;
        }
        /* tb_generate's trim, visit's loading, then generate_one's trim
         * (a conversion is checked before it: rewrite_fits) */
        model_trim(&r, i);
        model_load(&r, i);
        uint64_t converting = model_bytes(&r);
        model_trim(&r, i);
        uint64_t building = model_bytes(&r);
        estimate_one(l, i, rules, limit, threads, building, &est[i]);
        est[i].convert_memory += converting - building; /* the same work beside other tables */
        r.held[i] = HELD_SIDES | HELD_CODES;
    }
    model_free(&r);
    return 0;
}
