/*
 * ref_limit.c - the counter-aware reference of ref_limit.h.
 *
 * ref_limit_new, per material of the family: the legal moves of every
 * position once, as two edge lists: quiet moves to ids of the same
 * position list, captures to (member, id) in a smaller material.  Boards
 * are found through ref_solver's board -> id array (ref_dense.h), and two
 * threads share the positions, since this is what the time goes on.
 *
 * ref_limit_solve, per material in the order ref_solver solved them (every
 * material after those its captures lead to):
 *   1. the counter plane L: lost if no legal move, else drawn;
 *   2. planes c = L-1 down to 0, each from plane c+1 and the smaller
 *      materials' plane 0: won if some capture reaches an opponent's loss
 *      or some quiet move reaches a loss at c+1; lost if there is no legal
 *      move, or every capture reaches an opponent's win and every quiet
 *      move a win at c+1; drawn otherwise.
 * This is plain backward induction on a finite DAG, so every state gets
 * exactly the value the rule gives it.  Values are kept per counter plane
 * (val[c * n + id]), so each sweep reads one plane and writes the next.
 */
#include "ref_limit.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fen.h"
#include "movegen.h"

/* An edge list in compressed rows: row i is to[start[i] .. start[i+1]). */
typedef struct {
    size_t *start;   /* n + 1 */
    uint32_t *to;    /* position ids */
    uint8_t *member; /* captures: index of the member the id belongs to */
    size_t len, cap;
} edges;

typedef struct {
    const ref_db *db;
    int n;
    uint8_t *no_move; /* the side to move has no legal move */
    edges quiet, capture;
    int8_t *val; /* (limit + 1) planes of n values */
} member;

struct ref_limit {
    int limit; /* -1 until solved */
    int nmembers;
    member *m;
};

static void edges_free(edges *e)
{
    free(e->start);
    free(e->to);
    free(e->member);
}

static int edges_push(edges *e, uint32_t id, int with_member, uint8_t m)
{
    if (e->len == e->cap) {
        size_t cap = e->cap ? 2 * e->cap : 1 << 12;
        uint32_t *to = realloc(e->to, cap * sizeof *to);
        if (!to) return -1;
        e->to = to;
        if (with_member) {
            uint8_t *mm = realloc(e->member, cap);
            if (!mm) return -1;
            e->member = mm;
        }
        e->cap = cap;
    }
    if (with_member) e->member[e->len] = m;
    e->to[e->len++] = id;
    return 0;
}

static int find_member(const ref_limit *rl, const ref_db *db)
{
    for (int i = 0; i < rl->nmembers; i++)
        if (rl->m[i].db == db) return i;
    return -1;
}

static void report_missing(const char *what, const xq_board *b)
{
    char fen[XQ_FEN_MAX];
    xq_fen_write(b, fen);
    fprintf(stderr, "ref_limit: %s not found: %s\n", what, fen);
}

/* sub[c][k]: the member a capture of a piece of colour c and kind k leads
 * to (already built: the family lists it earlier), -1 if none. */
static int find_subtables(const ref_limit *rl, const member *me, int sub[COLOUR_NB][KIND_NB])
{
    const xq_material *mat = ref_material(me->db);
    for (int c = 0; c < COLOUR_NB; c++)
        for (int k = 0; k < KIND_NB; k++) {
            sub[c][k] = -1;
            if (k == KING || k == 0 || mat->count[c][k] == 0) continue;
            xq_material s = *mat;
            s.count[c][k]--;
            const ref_db *sdb = ref_subtable(me->db, &s);
            sub[c][k] = sdb ? find_member(rl, sdb) : -1;
            if (sub[c][k] < 0) return -1;
        }
    return 0;
}

/* The moves of positions lo..hi-1 of one member, built by one thread into
 * its own edge lists (row starts relative to them), joined afterwards. */
typedef struct {
    const ref_limit *rl;
    member *me;
    int sub[COLOUR_NB][KIND_NB];
    int lo, hi;
    uint64_t code; /* dense code of the position being built, if mapped */
    edges quiet, capture;
    int rc;
} build_job;

enum { BUILD_THREADS = 2 };

/* Id after quiet move m from b, from b's code: only the mover's digit and
 * the side change.  -2 if that does not apply (the mover has a twin, whose
 * order the move may swap, or there is no map); -1 if not found. */
static int quiet_id_fast(const build_job *job, const xq_board *b, xq_move m)
{
    const ref_dense *d = ref_dense_of(job->me->db);
    int from = move_from(m), to = move_to(m);
    xq_piece p = b->sq[from];
    int c = colour_of(p), k = kind_of(p);
    if (!d || d->count[c][k] != 1) return -2;
    if (d->digit[c][k][to] == REF_DENSE_NONE) return -1;
    uint64_t mult = d->mult[d->first[c][k]];
    uint64_t code = job->code - d->digit[c][k][from] * mult + d->digit[c][k][to] * mult;
    code = b->side ? code - d->side_mult : code + d->side_mult;
    return d->id[code];
}

/* One legal move of a position (b before the move, m the move): appends
 * its edge.  -1 if out of memory or the successor is missing. */
static int add_move(build_job *job, xq_board *b, xq_move m)
{
    const ref_limit *rl = job->rl;
    if (b->sq[move_to(m)] == EMPTY) {
        int id = quiet_id_fast(job, b, m);
        if (id >= 0) return edges_push(&job->quiet, (uint32_t)id, 0, 0);
        /* not found, or no fast path: the full lookup below reports it */
    }
    xq_piece cap = b->sq[move_to(m)];
    xq_undo u;
    xq_make_move(b, m, &u);
    int rc;
    if (cap != EMPTY) {
        int s = job->sub[colour_of(cap)][kind_of(cap)];
        int id = ref_find(rl->m[s].db, b);
        if (id < 0) report_missing("capture successor", b);
        rc = id < 0 ? -1 : edges_push(&job->capture, (uint32_t)id, 1, (uint8_t)s);
    } else {
        int id = ref_find(job->me->db, b);
        if (id < 0) report_missing("successor", b);
        rc = id < 0 ? -1 : edges_push(&job->quiet, (uint32_t)id, 0, 0);
    }
    xq_unmake_move(b, m, &u);
    return rc;
}

static void *build_range(void *arg)
{
    build_job *job = arg;
    member *me = job->me;
    const ref_dense *d = ref_dense_of(me->db);
    job->rc = 0;
    for (int i = job->lo; i < job->hi && !job->rc; i++) {
        xq_board b;
        xq_move list[XQ_MAX_MOVES];
        ref_board(me->db, i, &b);
        if (d) job->code = ref_dense_code(d, &b);
        int nm = xq_gen_legal(&b, list);
        me->no_move[i] = nm == 0;
        me->quiet.start[i] = job->quiet.len;
        me->capture.start[i] = job->capture.len;
        for (int j = 0; j < nm && !job->rc; j++) job->rc = add_move(job, &b, list[j]);
    }
    return NULL;
}

/* Appends a job's edges to the member's, shifting its rows' starts. */
static int join_edges(edges *all, const edges *part, int lo, int hi, int with_member)
{
    size_t base = all->len;
    for (int i = lo; i < hi; i++) all->start[i] += base;
    if (all->len + part->len > all->cap) {
        size_t cap = all->len + part->len;
        uint32_t *to = realloc(all->to, (cap ? cap : 1) * sizeof *to);
        if (!to) return -1;
        all->to = to;
        if (with_member) {
            uint8_t *mm = realloc(all->member, cap ? cap : 1);
            if (!mm) return -1;
            all->member = mm;
        }
        all->cap = cap;
    }
    if (part->len) {
        memcpy(all->to + base, part->to, part->len * sizeof *part->to);
        if (with_member) memcpy(all->member + base, part->member, part->len);
    }
    all->len += part->len;
    return 0;
}

/* The moves of every position of me, in BUILD_THREADS ranges at once (the
 * lookups are memory bound; the position lists are only read). */
static int build_member(const ref_limit *rl, member *me)
{
    build_job job[BUILD_THREADS];
    memset(job, 0, sizeof job);
    if (find_subtables(rl, me, job[0].sub)) return -1;
    size_t rows = (size_t)me->n + 1;
    me->no_move = calloc(rows, 1);
    me->quiet.start = malloc(rows * sizeof(size_t));
    me->capture.start = malloc(rows * sizeof(size_t));
    if (!me->no_move || !me->quiet.start || !me->capture.start) return -1;
    pthread_t tid[BUILD_THREADS];
    int started[BUILD_THREADS] = {0};
    for (int t = 0; t < BUILD_THREADS; t++) {
        job[t].rl = rl;
        job[t].me = me;
        memcpy(job[t].sub, job[0].sub, sizeof job[0].sub);
        job[t].lo = (int)((int64_t)me->n * t / BUILD_THREADS);
        job[t].hi = (int)((int64_t)me->n * (t + 1) / BUILD_THREADS);
        started[t] = t > 0 && pthread_create(&tid[t], NULL, build_range, &job[t]) == 0;
        if (t > 0 && !started[t]) build_range(&job[t]); /* no thread: do it here */
    }
    build_range(&job[0]);
    int rc = 0;
    for (int t = 0; t < BUILD_THREADS; t++) {
        if (started[t]) pthread_join(tid[t], NULL);
        rc |= job[t].rc;
    }
    for (int t = 0; t < BUILD_THREADS && !rc; t++)
        rc = join_edges(&me->quiet, &job[t].quiet, job[t].lo, job[t].hi, 0) ||
             join_edges(&me->capture, &job[t].capture, job[t].lo, job[t].hi, 1);
    for (int t = 0; t < BUILD_THREADS; t++) {
        edges_free(&job[t].quiet);
        edges_free(&job[t].capture);
    }
    if (rc) return -1;
    me->quiet.start[me->n] = me->quiet.len;
    me->capture.start[me->n] = me->capture.len;
    return 0;
}

ref_limit *ref_limit_new(const ref_db *db)
{
    ref_limit *rl = calloc(1, sizeof *rl);
    if (!rl) return NULL;
    rl->limit = -1;
    int total = ref_family_count(db);
    rl->m = calloc((size_t)total, sizeof *rl->m);
    if (!rl->m || total > 255) { /* capture edges name the member in a byte */
        ref_limit_free(rl);
        return NULL;
    }
    for (int i = 0; i < total; i++) {
        member *me = &rl->m[i];
        me->db = ref_family_at(db, i);
        me->n = ref_count(me->db);
        rl->nmembers = i + 1;
        if (build_member(rl, me)) {
            ref_limit_free(rl);
            return NULL;
        }
    }
    return rl;
}

void ref_limit_free(ref_limit *rl)
{
    if (!rl) return;
    for (int i = 0; i < rl->nmembers; i++) {
        edges_free(&rl->m[i].quiet);
        edges_free(&rl->m[i].capture);
        free(rl->m[i].no_move);
        free(rl->m[i].val);
    }
    free(rl->m);
    free(rl);
}

/* What a position's captures give, the same at every counter below L
 * (they all lead to counter 0): some capture wins (reaches an opponent's
 * loss), or some capture reaches an opponent's draw or loss (then the
 * position is not lost). */
enum { CAP_WIN = 1, CAP_NONWIN = 2 };

static uint8_t capture_summary(const ref_limit *rl, const member *me, int i)
{
    uint8_t f = 0;
    for (size_t e = me->capture.start[i]; e < me->capture.start[i + 1]; e++) {
        int v = rl->m[me->capture.member[e]].val[me->capture.to[e]]; /* plane 0 */
        if (v == -1) f |= CAP_WIN;
        if (v != 1) f |= CAP_NONWIN;
    }
    return f;
}

/* Value at counter c < L of position i, from plane c + 1 (`next`). */
static int8_t value_below_limit(const member *me, uint8_t cap, const int8_t *next, int i)
{
    if (me->no_move[i]) return -1;
    if (cap & CAP_WIN) return 1;
    int all_win = !(cap & CAP_NONWIN);
    for (size_t e = me->quiet.start[i]; e < me->quiet.start[i + 1]; e++) {
        int v = next[me->quiet.to[e]];
        if (v == -1) return 1;
        if (v != 1) all_win = 0;
    }
    return all_win ? -1 : 0;
}

static int sweep(const ref_limit *rl, member *me, int limit)
{
    int n = me->n;
    uint8_t *cap = malloc((size_t)n + 1);
    if (!cap) return -1;
    for (int i = 0; i < n; i++) cap[i] = capture_summary(rl, me, i);
    int8_t *top = me->val + (size_t)limit * n;
    for (int i = 0; i < n; i++) top[i] = me->no_move[i] ? -1 : 0;
    for (int c = limit - 1; c >= 0; c--) {
        int8_t *plane = me->val + (size_t)c * n;
        const int8_t *next = plane + n;
        for (int i = 0; i < n; i++) plane[i] = value_below_limit(me, cap[i], next, i);
    }
    free(cap);
    return 0;
}

int ref_limit_solve(ref_limit *rl, int limit)
{
    if (limit < 0) return -1;
    rl->limit = -1;
    for (int i = 0; i < rl->nmembers; i++) {
        member *me = &rl->m[i];
        free(me->val);
        me->val = malloc((size_t)(me->n ? me->n : 1) * (size_t)(limit + 1));
        if (!me->val) return -1;
    }
    /* Family order: every material after those its captures reach. */
    for (int i = 0; i < rl->nmembers; i++)
        if (sweep(rl, &rl->m[i], limit)) return -1;
    rl->limit = limit;
    return 0;
}

int ref_limit_of(const ref_limit *rl) { return rl->limit; }

int ref_limit_value(const ref_limit *rl, const ref_db *db, int id, int counter)
{
    int k = find_member(rl, db);
    if (k < 0 || rl->limit < 0 || id < 0 || id >= rl->m[k].n || counter < 0 || counter > rl->limit) return 2;
    return rl->m[k].val[(size_t)counter * rl->m[k].n + id];
}

const int8_t *ref_limit_plane(const ref_limit *rl, const ref_db *db, int counter)
{
    int k = find_member(rl, db);
    if (k < 0 || rl->limit < 0 || counter < 0 || counter > rl->limit) return NULL;
    return rl->m[k].val + (size_t)counter * rl->m[k].n;
}
