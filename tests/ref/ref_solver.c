/*
 * ref_solver.c - the reference solver of ref_solver.h: explicit enumeration,
 * an explicit position list with a plain array map (ref_dense.h) or, for a
 * material too large for one, a hash map, forward moves and a naive
 * ply-by-ply fixed point.  No indexing code of the project is used.
 */
#include "ref_solver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fen.h"
#include "movegen.h"

/* ---- Position keys ------------------------------------------------------
 * The 90 squares packed two per byte (piece codes are 0..15), then the side
 * to move, then zero padding to a whole number of 64-bit words. */
enum { KEY_BYTES = 48, KEY_WORDS = KEY_BYTES / 8 };

static void key_of(const xq_board *b, uint8_t key[KEY_BYTES])
{
    memset(key, 0, KEY_BYTES);
    for (int sq = 0; sq < XQ_SQUARES; sq += 2) key[sq / 2] = (uint8_t)(b->sq[sq] | (b->sq[sq + 1] << 4));
    key[45] = b->side;
}

static void board_of(const uint8_t key[KEY_BYTES], xq_board *b)
{
    xq_board_clear(b);
    for (int sq = 0; sq < XQ_SQUARES; sq += 2) {
        if (!key[sq / 2]) continue; /* both squares empty, as most are */
        xq_piece lo = (xq_piece)(key[sq / 2] & 15), hi = (xq_piece)(key[sq / 2] >> 4);
        if (lo != EMPTY) xq_board_put(b, sq, lo);
        if (hi != EMPTY) xq_board_put(b, sq + 1, hi);
    }
    b->side = key[45];
}

static uint64_t key_hash(const uint8_t key[KEY_BYTES])
{
    uint64_t h = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < KEY_WORDS; i++) {
        uint64_t w;
        memcpy(&w, key + 8 * i, 8);
        h ^= w;
        h *= 0xFF51AFD7ED558CCDull;
        h ^= h >> 32;
    }
    h *= 0xC4CEB9FE1A85EC53ull;
    h ^= h >> 29;
    return h;
}

/* ---- The db ------------------------------------------------------------- */
typedef struct {
    ref_db **db;
    int n, cap;
    int positions_only; /* ref_enumerate: lists and ids, no values */
} ref_ctx;

struct ref_db {
    xq_material mat;
    ref_ctx *ctx; /* every db solved together; owned by the root */
    int is_root;
    int n;
    uint8_t *keys; /* n * KEY_BYTES */
    int8_t *wdl;   /* 1, 0, -1 */
    int32_t *dtm;
    ref_dense dense; /* board -> id, if its array fits (dense.id) */
    uint32_t *slot;  /* else a hash map: id + 1, 0 = empty; hmask + 1 slots */
    uint64_t hmask;
    int max_dtm; /* longest DTM of any decided position, -1 if none */
};

static void db_free(ref_db *db)
{
    if (!db) return;
    free(db->keys);
    free(db->wdl);
    free(db->dtm);
    free(db->slot);
    ref_dense_free(&db->dense);
    free(db);
}

int ref_find(const ref_db *db, const xq_board *b)
{
    if (db->dense.id) return ref_dense_find(&db->dense, b);
    uint8_t key[KEY_BYTES];
    key_of(b, key);
    for (uint64_t h = key_hash(key) & db->hmask;; h = (h + 1) & db->hmask) {
        uint32_t s = db->slot[h];
        if (s == 0) return -1;
        if (memcmp(db->keys + (size_t)(s - 1) * KEY_BYTES, key, KEY_BYTES) == 0) return (int)(s - 1);
    }
}

/* ---- Enumeration ---------------------------------------------------------
 * The squares each kind can stand on, written out here from the rules
 * rather than taken from the core (the tests compare the two). */
int ref_allowed_squares(int colour, int kind, uint8_t out[XQ_SQUARES])
{
    int n = 0;
    for (int sq = 0; sq < XQ_SQUARES; sq++) {
        int f = file_of(sq), r = rank_of(sq);
        int rr = colour == RED ? r : 9 - r; /* rank counted from the colour's own edge */
        bool ok;
        switch (kind) {
        case KING: ok = f >= 3 && f <= 5 && rr <= 2; break;
        case ADVISOR: /* d0 f0 e1 d2 f2 */
            ok = (rr == 0 && (f == 3 || f == 5)) || (rr == 1 && f == 4) || (rr == 2 && (f == 3 || f == 5));
            break;
        case ELEPHANT: /* c0 g0 a2 e2 i2 c4 g4 */
            ok = (rr == 0 && (f == 2 || f == 6)) || (rr == 2 && (f == 0 || f == 4 || f == 8)) ||
                 (rr == 4 && (f == 2 || f == 6));
            break;
        case PAWN: /* start rank 3 on a c e g i; only forward before the river */
            ok = (rr >= 3 && rr <= 4 && f % 2 == 0) || rr >= 5;
            break;
        default: ok = true;
        }
        if (ok) out[n++] = (uint8_t)sq;
    }
    return n;
}

typedef struct {
    int npieces;
    xq_piece piece[32];
    int same_as_prev[32]; /* identical to piece[i-1]: place on a later square */
    uint8_t squares[32][XQ_SQUARES];
    int nsquares[32];
    int placed[32];
    xq_board b;
    /* output */
    uint8_t *keys;
    size_t n, cap;
    int oom;
} enum_state;

static void enum_leaf(enum_state *e)
{
    char err[XQ_ERR_MAX];
    for (int side = 0; side < 2; side++) {
        e->b.side = (uint8_t)side;
        if (xq_board_validate(&e->b, err) != 0) continue;
        if (e->n == e->cap) {
            size_t cap = e->cap ? 2 * e->cap : 4096;
            uint8_t *k = realloc(e->keys, cap * KEY_BYTES);
            if (!k) {
                e->oom = 1;
                return;
            }
            e->keys = k;
            e->cap = cap;
        }
        key_of(&e->b, e->keys + e->n * KEY_BYTES);
        e->n++;
    }
}

static void enum_place(enum_state *e, int i)
{
    if (e->oom) return;
    if (i == e->npieces) {
        enum_leaf(e);
        return;
    }
    for (int j = 0; j < e->nsquares[i]; j++) {
        int sq = e->squares[i][j];
        if (e->same_as_prev[i] && sq <= e->placed[i - 1]) continue;
        if (e->b.sq[sq] != EMPTY) continue;
        xq_board_put(&e->b, sq, e->piece[i]);
        e->placed[i] = sq;
        enum_place(e, i + 1);
        xq_board_remove(&e->b, sq);
    }
}

/* Fills db->keys and db->n with every legal position of db->mat. */
static int enumerate(ref_db *db)
{
    enum_state *e = calloc(1, sizeof *e);
    if (!e) return -1;
    for (int c = 0; c < 2; c++)
        for (int k = 1; k < KIND_NB; k++)
            for (int j = 0; j < db->mat.count[c][k]; j++) {
                int i = e->npieces++;
                e->piece[i] = make_piece(c, k);
                e->same_as_prev[i] = j > 0;
                e->nsquares[i] = ref_allowed_squares(c, k, e->squares[i]);
            }
    xq_board_clear(&e->b);
    enum_place(e, 0);
    int rc = e->oom || e->n > (size_t)INT32_MAX / 2 ? -1 : 0;
    db->keys = e->keys;
    db->n = (int)e->n;
    free(e);
    return rc;
}

/* The dense map when its array has at most DENSE_PER_POSITION entries per
 * position (identical pieces in both orders, and pieces on one square, take
 * codes too) and at most MAX_DENSE in all; else the hash map. */
enum { DENSE_PER_POSITION = 8 };
#define MAX_DENSE (UINT64_C(1) << 28)

static int build_dense(ref_db *db, int *built)
{
    uint64_t max = DENSE_PER_POSITION * (uint64_t)db->n + 4096;
    *built = 0;
    if (ref_dense_init(&db->dense, &db->mat, max < MAX_DENSE ? max : MAX_DENSE)) return -1;
    if (!db->dense.id) return 0;
    for (int i = 0; i < db->n; i++) {
        xq_board b;
        board_of(db->keys + (size_t)i * KEY_BYTES, &b);
        if (ref_dense_set(&db->dense, &b, i)) {
            fprintf(stderr, "ref_solver: position enumerated twice\n");
            return -1;
        }
    }
    *built = 1;
    return 0;
}

static int build_hash(ref_db *db)
{
    uint64_t cap = 16;
    while (cap < 2 * (uint64_t)db->n) cap *= 2;
    db->slot = calloc(cap, sizeof *db->slot);
    if (!db->slot) return -1;
    db->hmask = cap - 1;
    for (int i = 0; i < db->n; i++) {
        const uint8_t *key = db->keys + (size_t)i * KEY_BYTES;
        uint64_t h = key_hash(key) & db->hmask;
        for (; db->slot[h]; h = (h + 1) & db->hmask)
            if (memcmp(db->keys + (size_t)(db->slot[h] - 1) * KEY_BYTES, key, KEY_BYTES) == 0) {
                fprintf(stderr, "ref_solver: position enumerated twice\n");
                return -1;
            }
        db->slot[h] = (uint32_t)i + 1;
    }
    return 0;
}

/* Board -> id: the dense map, or the hash map where it does not fit. */
static int build_lookup(ref_db *db)
{
    int dense;
    if (build_dense(db, &dense)) return -1;
    return dense ? 0 : build_hash(db);
}

/* ---- Solving ------------------------------------------------------------- */
static ref_db *ctx_find(const ref_ctx *ctx, const xq_material *m)
{
    for (int i = 0; i < ctx->n; i++)
        if (xq_material_equal(&ctx->db[i]->mat, m)) return ctx->db[i];
    return NULL;
}

static void report_missing(const char *what, const xq_board *b)
{
    char fen[XQ_FEN_MAX];
    xq_fen_write(b, fen);
    fprintf(stderr, "ref_solver: %s not found: %s\n", what, fen);
}

/* Solves db->mat; every subtable is already in db->ctx. */
static int solve(ref_db *db)
{
    int rc = -1;
    uint32_t *estart = NULL, *edges = NULL, *todo = NULL;
    int32_t *cap_loss_min = NULL, *cap_win_max = NULL;
    uint8_t *cap_nonwin = NULL, *nmoves = NULL;
    size_t nedges = 0, ecap = 0;
    int n = db->n;

    /* Subtables by captured piece, and their longest DTM. */
    const ref_db *sub[COLOUR_NB][KIND_NB] = {{NULL}};
    int max_sub_dtm = -1;
    for (int c = 0; c < 2; c++)
        for (int k = 1; k < KIND_NB; k++)
            if (k != KING && db->mat.count[c][k] > 0) {
                xq_material m = db->mat;
                m.count[c][k]--;
                sub[c][k] = ctx_find(db->ctx, &m);
                if (!sub[c][k]) goto out;
                if (sub[c][k]->max_dtm > max_sub_dtm) max_sub_dtm = sub[c][k]->max_dtm;
            }

    db->wdl = calloc((size_t)n + 1, sizeof *db->wdl);
    db->dtm = calloc((size_t)n + 1, sizeof *db->dtm);
    estart = malloc(((size_t)n + 1) * sizeof *estart);
    cap_loss_min = malloc(((size_t)n + 1) * sizeof *cap_loss_min);
    cap_win_max = malloc(((size_t)n + 1) * sizeof *cap_win_max);
    cap_nonwin = calloc((size_t)n + 1, 1);
    nmoves = calloc((size_t)n + 1, 1);
    todo = malloc(((size_t)n + 1) * sizeof *todo);
    if (!db->wdl || !db->dtm || !estart || !cap_loss_min || !cap_win_max || !cap_nonwin || !nmoves || !todo) goto out;

    /* Forward moves.  Quiet moves become edges; captures are looked up in
     * the subtables at once and summarised: the shortest loss they reach
     * (a win for us), whether one reaches a draw or a loss (then this
     * position cannot be lost), and the longest win they reach. */
    for (int i = 0; i < n; i++) {
        xq_board b;
        xq_move list[XQ_MAX_MOVES];
        board_of(db->keys + (size_t)i * KEY_BYTES, &b);
        int nm = xq_gen_legal(&b, list);
        nmoves[i] = (uint8_t)nm;
        estart[i] = (uint32_t)nedges;
        cap_loss_min[i] = -1;
        cap_win_max[i] = -1;
        for (int j = 0; j < nm; j++) {
            xq_piece cap = b.sq[move_to(list[j])];
            xq_undo u;
            xq_make_move(&b, list[j], &u);
            if (cap != EMPTY) {
                const ref_db *s = sub[colour_of(cap)][kind_of(cap)];
                ref_value v = s ? ref_lookup(s, &b) : (ref_value){0, -1};
                if (v.dtm < 0) {
                    report_missing("capture successor", &b);
                    goto out;
                }
                if (v.wdl < 0 && (cap_loss_min[i] < 0 || v.dtm < cap_loss_min[i])) cap_loss_min[i] = v.dtm;
                if (v.wdl <= 0) cap_nonwin[i] = 1;
                if (v.wdl > 0 && v.dtm > cap_win_max[i]) cap_win_max[i] = v.dtm;
            } else {
                int id = ref_find(db, &b);
                if (id < 0) {
                    report_missing("successor", &b);
                    goto out;
                }
                if (nedges == ecap) {
                    ecap = ecap ? 2 * ecap : 1 << 16;
                    uint32_t *e = realloc(edges, ecap * sizeof *e);
                    if (!e) goto out;
                    edges = e;
                }
                edges[nedges++] = (uint32_t)id;
            }
            xq_unmake_move(&b, list[j], &u);
        }
    }
    estart[n] = (uint32_t)nedges;

    /* Ply 0: no legal move, lost. */
    size_t ntodo = 0;
    for (int i = 0; i < n; i++) {
        if (nmoves[i] == 0) {
            db->wdl[i] = -1;
            db->dtm[i] = 0;
        } else {
            todo[ntodo++] = (uint32_t)i;
        }
    }

    /* Ply k.  Values set during this pass have dtm k and so never count as
     * "at most k-1" for positions examined later in the same pass. */
    for (int k = 1;; k++) {
        size_t changed = 0, keep = 0;
        for (size_t t = 0; t < ntodo; t++) {
            uint32_t p = todo[t];
            bool win = cap_loss_min[p] >= 0 && cap_loss_min[p] <= k - 1;
            for (uint32_t e = estart[p]; !win && e < estart[p + 1]; e++)
                win = db->wdl[edges[e]] == -1 && db->dtm[edges[e]] <= k - 1;
            if (win) {
                db->wdl[p] = 1;
                db->dtm[p] = k;
                changed++;
                continue;
            }
            bool loss = !cap_nonwin[p] && cap_win_max[p] <= k - 1;
            for (uint32_t e = estart[p]; loss && e < estart[p + 1]; e++)
                loss = db->wdl[edges[e]] == 1 && db->dtm[edges[e]] <= k - 1;
            if (loss) {
                db->wdl[p] = -1;
                db->dtm[p] = k;
                changed++;
                continue;
            }
            todo[keep++] = p;
        }
        ntodo = keep;
        /* A position of this db with a DTM above k, while none has k, would
         * need a chain of successors leaving the db at a DTM of at least k:
         * impossible once k exceeds every subtable's longest DTM. */
        if (changed == 0 && k > max_sub_dtm) break;
    }

    db->max_dtm = -1;
    for (int i = 0; i < n; i++)
        if (db->wdl[i] != 0 && db->dtm[i] > db->max_dtm) db->max_dtm = db->dtm[i];
    rc = 0;
out:
    free(estart);
    free(edges);
    free(todo);
    free(cap_loss_min);
    free(cap_win_max);
    free(cap_nonwin);
    free(nmoves);
    return rc;
}

/* Solves m and its subtables into ctx, memoised by material. */
static ref_db *solve_in_ctx(ref_ctx *ctx, const xq_material *m)
{
    ref_db *db = ctx_find(ctx, m);
    if (db) return db;
    for (int c = 0; c < 2; c++)
        for (int k = 1; k < KIND_NB; k++)
            if (k != KING && m->count[c][k] > 0) {
                xq_material s = *m;
                s.count[c][k]--;
                if (!solve_in_ctx(ctx, &s)) return NULL;
            }
    if (ctx->n == ctx->cap) {
        int cap = ctx->cap ? 2 * ctx->cap : 16;
        ref_db **v = realloc(ctx->db, (size_t)cap * sizeof *v);
        if (!v) return NULL;
        ctx->db = v;
        ctx->cap = cap;
    }
    db = calloc(1, sizeof *db);
    if (!db) return NULL;
    db->mat = *m;
    db->ctx = ctx;
    db->max_dtm = -1;
    if (enumerate(db) || build_lookup(db) || (!ctx->positions_only && solve(db))) {
        db_free(db);
        return NULL;
    }
    ctx->db[ctx->n++] = db;
    return db;
}

static void ctx_free(ref_ctx *ctx)
{
    for (int i = 0; i < ctx->n; i++) db_free(ctx->db[i]);
    free(ctx->db);
    free(ctx);
}

static ref_db *solve_family(const xq_material *m, int positions_only)
{
    for (int c = 0; c < 2; c++)
        if (m->count[c][KING] != 1) return NULL;
    ref_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx) return NULL;
    ctx->positions_only = positions_only;
    ref_db *db = solve_in_ctx(ctx, m);
    if (!db) {
        ctx_free(ctx);
        return NULL;
    }
    db->is_root = 1;
    return db;
}

ref_db *ref_solve(const xq_material *m) { return solve_family(m, 0); }

ref_db *ref_enumerate(const xq_material *m) { return solve_family(m, 1); }

void ref_free(ref_db *db)
{
    if (db && db->is_root) ctx_free(db->ctx);
}

const ref_db *ref_subtable(const ref_db *db, const xq_material *m) { return ctx_find(db->ctx, m); }

const xq_material *ref_material(const ref_db *db) { return &db->mat; }

int ref_family_count(const ref_db *db) { return db->ctx->n; }

const ref_db *ref_family_at(const ref_db *db, int i) { return db->ctx->db[i]; }

int ref_count(const ref_db *db) { return db->n; }

const ref_dense *ref_dense_of(const ref_db *db) { return db->dense.id ? &db->dense : NULL; }

void ref_board(const ref_db *db, int i, xq_board *b) { board_of(db->keys + (size_t)i * KEY_BYTES, b); }

ref_value ref_value_at(const ref_db *db, int i)
{
    if (!db->wdl) return (ref_value){0, -1}; /* ref_enumerate: no values */
    return (ref_value){db->wdl[i], db->wdl[i] ? db->dtm[i] : 0};
}

ref_value ref_lookup(const ref_db *db, const xq_board *b)
{
    int id = ref_find(db, b);
    if (id < 0) return (ref_value){0, -1};
    return ref_value_at(db, id);
}

void ref_get_stats(const ref_db *db, ref_stats *st)
{
    memset(st, 0, sizeof *st);
    for (int s = 0; s < 2; s++) {
        st->max_dtm[s] = -1;
        st->max_dtm_id[s] = -1;
    }
    for (int i = 0; i < db->n; i++) {
        int s = db->keys[(size_t)i * KEY_BYTES + 45];
        st->positions[s]++;
        if (!db->wdl) continue; /* ref_enumerate: positions only */
        if (db->wdl[i] > 0)
            st->wins[s]++;
        else if (db->wdl[i] < 0)
            st->losses[s]++;
        else
            st->draws[s]++;
        if (db->wdl[i] != 0 && db->dtm[i] > st->max_dtm[s]) {
            st->max_dtm[s] = db->dtm[i];
            st->max_dtm_id[s] = i;
        }
    }
}
