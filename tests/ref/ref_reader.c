/*
 * ref_reader.c - the second reader of ref_reader.h: every rule here is a
 * sentence of docs/FORMAT.md, cited by its section.
 */
#include "ref_reader.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lz4.h>
#include <xxhash.h>
#include <zstd.h>

#include "movegen.h"
#include "xqtb.h"

enum { WDL_FILE, DTM_FILE, DTC_FILE };
static const char *const file_ext[3] = {"xqw", "xqd", "xqc"};
static const char file_magic[3][8] = {"XQTBWDL", "XQTBDTM", "XQTBDTC"};

enum { SEARCH = 65534, SEARCH_NO_WIN = 65533, NONE = 65535, RULED = 32768, INF = 1 << 30 };

/* One file, read whole ("Layout"). */
typedef struct {
    int state; /* 0 not looked for, 1 read, -1 missing or damaged */
    uint8_t *bytes;
    uint64_t size;
    uint64_t n;
    uint32_t rule, limit, b, symsize, blocks, m, codec, searched, d, sb;
    int32_t longest;
    uint16_t *map;
    const uint8_t *dict;
    uint64_t *off; /* 2 blocks + 1 */
    const uint8_t *sums;
    const uint8_t *bounds; /* the search bounds' frames, sb bytes */
    uint8_t **dec;         /* decoded blocks, on first use */
} rfile;

/* A placement class: every placement of a king, na advisors and ne
 * elephants of one colour ("Index layout 2", item 1). */
typedef struct {
    int count;
    int *mirror;                       /* rank of the mirror image */
    int *num_all, *num_sym, *num_asym; /* orbit numbers, at the lower rank of each orbit */
    int nall, nsym, nasym;
    int *rank_of; /* [K][A][E] -> rank, or -1 */
} rclass;

typedef struct {
    int palace[9], advisor[5], elephant[7];
} points;

typedef struct {
    char name[40];
    int count[2][8]; /* pieces per colour and kind */
    points pts[2];   /* each colour's points */
    int pawns[2][55];
    rclass cls[2];
    int ndef;         /* pieces of the defender pair */
    uint64_t size[8]; /* the attacker groups, red R N C P then black's */
    int group_kind[8], group_colour[8], ngroups;
    uint64_t pairs, n;
    rfile f[3];
} rtable;

enum { MAX_DIRS = 8 };

struct ref_reader {
    char dir[MAX_DIRS][1024]; /* searched in order, as the library does */
    int ndirs;
    rtable **t;
    int nt, cap;
    ZSTD_DCtx *dctx;
    struct {
        char name[40];
        int exists;
    } known[256];
    int nknown;
    char err[512];
};

static int fail(ref_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(ref_reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err, sizeof r->err, fmt, ap);
    va_end(ap);
    return -1;
}

const char *ref_reader_error(const ref_reader *r) { return r->err; }

ref_reader *ref_reader_open(const char *dirs)
{
    ref_reader *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    for (const char *at = dirs; *at && r->ndirs < MAX_DIRS;) { /* a colon-separated list */
        size_t len = strcspn(at, ":");
        if (len && len < sizeof r->dir[0]) {
            memcpy(r->dir[r->ndirs], at, len);
            r->dir[r->ndirs++][len] = 0;
        }
        at += len + (at[len] == ':');
    }
    r->dctx = ZSTD_createDCtx();
    if (!r->dctx) {
        free(r);
        return NULL;
    }
    return r;
}

static void free_file(rfile *f)
{
    if (f->dec)
        for (uint64_t k = 0; k < 2 * (uint64_t)f->blocks; k++) free(f->dec[k]);
    free(f->dec);
    free(f->off);
    free(f->map);
    free(f->bytes);
}

static void free_table(rtable *t)
{
    for (int k = 0; k < 3; k++) free_file(&t->f[k]);
    for (int c = 0; c < 2; c++) {
        free(t->cls[c].mirror);
        free(t->cls[c].num_all);
        free(t->cls[c].num_sym);
        free(t->cls[c].num_asym);
        free(t->cls[c].rank_of);
    }
    free(t);
}

void ref_reader_close(ref_reader *r)
{
    if (!r) return;
    for (int i = 0; i < r->nt; i++) free_table(r->t[i]);
    free(r->t);
    ZSTD_freeDCtx(r->dctx);
    free(r);
}

/* ---- Index layout 2 --------------------------------------------------- */

/* Red's points, ascending by square; black's are the same points turned
 * (rank r becomes 9 - r), and ascending by square too. */
static const int red_palace[9] = {3, 4, 5, 12, 13, 14, 21, 22, 23};
static const int red_advisor[5] = {3, 5, 13, 21, 23};
static const int red_elephant[7] = {2, 6, 18, 22, 26, 38, 42};

static int turn_square(int sq) { return (9 - sq / 9) * 9 + sq % 9; }
static int mirror_sq(int sq) { return sq / 9 * 9 + (8 - sq % 9); }

static void colour_points(int colour, const int *red, int n, int *out)
{
    for (int i = 0; i < n; i++) out[i] = colour == RED ? red[i] : turn_square(red[i]);
    for (int i = 1; i < n; i++) /* ascending (black's turned list runs downwards) */
        for (int j = i; j > 0 && out[j - 1] > out[j]; j--) {
            int x = out[j];
            out[j] = out[j - 1];
            out[j - 1] = x;
        }
}

static void points_of(int colour, points *p)
{
    colour_points(colour, red_palace, 9, p->palace);
    colour_points(colour, red_advisor, 5, p->advisor);
    colour_points(colour, red_elephant, 7, p->elephant);
}

static int index_in(const int *list, int n, int sq)
{
    for (int i = 0; i < n; i++)
        if (list[i] == sq) return i;
    return -1;
}

static int bits(unsigned x) { return __builtin_popcount(x); }

/* The placement (K, A, E) of the squares of a king, advisors and elephants,
 * or -1 if a square is not one of its kind's points. */
static int placement_key(const points *p, int ksq, const int *adv, int na, const int *ele, int ne, int *k, int *a,
                         int *e)
{
    *k = index_in(p->palace, 9, ksq);
    *a = *e = 0;
    for (int i = 0; i < na; i++) {
        int j = index_in(p->advisor, 5, adv[i]);
        if (j < 0) return -1;
        *a |= 1 << j;
    }
    for (int i = 0; i < ne; i++) {
        int j = index_in(p->elephant, 7, ele[i]);
        if (j < 0) return -1;
        *e |= 1 << j;
    }
    return *k < 0 ? -1 : 0;
}

static int key_index(int k, int a, int e) { return (k * 32 + a) * 128 + e; }

static int build_class(rclass *c, const points *pts, int na, int ne)
{
    const points p = *pts;
    c->rank_of = malloc(sizeof(int) * 9 * 32 * 128);
    if (!c->rank_of) return -1;
    for (int i = 0; i < 9 * 32 * 128; i++) c->rank_of[i] = -1;
    /* ordered by K, then A, then E, each ascending; no point held twice */
    int count = 0;
    for (int k = 0; k < 9; k++)
        for (int a = 0; a < 32; a++) {
            if (bits((unsigned)a) != na) continue;
            for (int e = 0; e < 128; e++) {
                if (bits((unsigned)e) != ne) continue;
                int ksq = p.palace[k], clash = 0;
                for (int i = 0; i < 5; i++)
                    if (a >> i & 1 && p.advisor[i] == ksq) clash = 1;
                for (int i = 0; i < 7; i++)
                    if (e >> i & 1 && p.elephant[i] == ksq) clash = 1;
                if (!clash) c->rank_of[key_index(k, a, e)] = count++;
            }
        }
    c->count = count;
    c->mirror = malloc(sizeof(int) * (size_t)count);
    c->num_all = malloc(sizeof(int) * (size_t)count);
    c->num_sym = malloc(sizeof(int) * (size_t)count);
    c->num_asym = malloc(sizeof(int) * (size_t)count);
    if (!c->mirror || !c->num_all || !c->num_sym || !c->num_asym) return -1;
    for (int k = 0; k < 9; k++)
        for (int a = 0; a < 32; a++)
            for (int e = 0; e < 128; e++) {
                int rk = c->rank_of[key_index(k, a, e)];
                if (rk < 0) continue;
                /* the mirror image: every square's file f becomes 8 - f */
                int adv[5], ele[7], nadv = 0, nele = 0, k2, a2, e2;
                for (int i = 0; i < 5; i++)
                    if (a >> i & 1) adv[nadv++] = mirror_sq(p.advisor[i]);
                for (int i = 0; i < 7; i++)
                    if (e >> i & 1) ele[nele++] = mirror_sq(p.elephant[i]);
                if (placement_key(&p, mirror_sq(p.palace[k]), adv, nadv, ele, nele, &k2, &a2, &e2)) return -1;
                c->mirror[rk] = c->rank_of[key_index(k2, a2, e2)];
                if (c->mirror[rk] < 0) return -1;
            }
    /* orbits, named by their lower rank and numbered by it ascending */
    c->nall = c->nsym = c->nasym = 0;
    for (int rk = 0; rk < count; rk++) {
        c->num_all[rk] = c->num_sym[rk] = c->num_asym[rk] = -1;
        if (c->mirror[rk] < rk) continue;
        c->num_all[rk] = c->nall++;
        if (c->mirror[rk] == rk)
            c->num_sym[rk] = c->nsym++;
        else
            c->num_asym[rk] = c->nasym++;
    }
    return 0;
}

static uint64_t choose(int n, int k)
{
    if (k < 0 || k > n) return 0;
    uint64_t c = 1;
    for (int i = 1; i <= k; i++) c = c * (uint64_t)(n - k + i) / (uint64_t)i;
    return c;
}

/* The 55 squares a pawn of `colour` can stand on, ascending: its own
 * river bank's five files a c e g i on the two ranks before the river,
 * and every square beyond it. */
static int pawn_squares(int colour, int *out)
{
    int n = 0;
    for (int sq = 0; sq < 90; sq++) {
        int rank = sq / 9, file = sq % 9;
        int rel = colour == RED ? rank : 9 - rank; /* ranks from its own side */
        if (rel >= 5 || ((rel == 3 || rel == 4) && file % 2 == 0)) out[n++] = sq;
    }
    return n;
}

static const int kind_order[4] = {ROOK, HORSE, CANNON, PAWN};
static const char kind_letter[8] = {0, 'K', 'A', 'B', 'N', 'R', 'C', 'P'};

/* "Naming": red's pieces then black's, each side from K, in the order R N
 * C P A B. */
static void side_name(const int count[8], char *out)
{
    static const int order[6] = {ROOK, HORSE, CANNON, PAWN, ADVISOR, ELEPHANT};
    *out++ = 'K';
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < count[order[i]]; j++) *out++ = kind_letter[order[i]];
    *out = 0;
}

static int setup_index(rtable *t)
{
    for (int c = 0; c < 2; c++) {
        points_of(c, &t->pts[c]);
        pawn_squares(c, t->pawns[c]);
        if (build_class(&t->cls[c], &t->pts[c], t->count[c][ADVISOR], t->count[c][ELEPHANT])) return -1;
    }
    const rclass *red = &t->cls[RED], *black = &t->cls[BLACK];
    t->pairs = (uint64_t)red->nasym * (uint64_t)black->count + (uint64_t)red->nsym * (uint64_t)black->nall;
    t->ndef = 2;
    for (int c = 0; c < 2; c++) t->ndef += t->count[c][ADVISOR] + t->count[c][ELEPHANT];
    t->n = t->pairs;
    t->ngroups = 0;
    for (int c = 0; c < 2; c++)
        for (int i = 0; i < 4; i++) {
            int kind = kind_order[i], k = t->count[c][kind];
            if (!k) continue;
            uint64_t size = choose(kind == PAWN ? 55 : 90 - t->ndef, k);
            t->group_kind[t->ngroups] = kind;
            t->group_colour[t->ngroups] = c;
            t->size[t->ngroups++] = size;
            t->n *= size;
        }
    return 0;
}

/* A position's pieces: per colour and kind, their squares ascending. */
typedef struct {
    int n[2][8];
    int sq[2][8][16];
    int side;
} pieces;

static void add_piece(pieces *l, int colour, int kind, int sq)
{
    int *list = l->sq[colour][kind], i = l->n[colour][kind]++;
    for (; i > 0 && list[i - 1] > sq; i--) list[i] = list[i - 1];
    list[i] = sq;
}

static void mirror_pieces(pieces *l)
{
    pieces m;
    memset(m.n, 0, sizeof m.n);
    m.side = l->side;
    for (int c = 0; c < 2; c++)
        for (int k = KING; k < KIND_NB; k++)
            for (int i = 0; i < l->n[c][k]; i++) add_piece(&m, c, k, mirror_sq(l->sq[c][k][i]));
    *l = m;
}

static int placement_of(const rtable *t, const pieces *l, int colour)
{
    int k, a, e;
    if (l->n[colour][KING] != 1 ||
        placement_key(&t->pts[colour], l->sq[colour][KING][0], l->sq[colour][ADVISOR], l->n[colour][ADVISOR],
                      l->sq[colour][ELEPHANT], l->n[colour][ELEPHANT], &k, &a, &e))
        return -1;
    return t->cls[colour].rank_of[key_index(k, a, e)];
}

/* The entry of a legal position, already in the table's orientation. */
static int entry_of(const rtable *t, pieces *l, uint64_t *entry)
{
    int r = placement_of(t, l, RED), b = placement_of(t, l, BLACK);
    if (r < 0 || b < 0) return -1;
    const rclass *red = &t->cls[RED], *black = &t->cls[BLACK];
    int red_sym = red->mirror[r] == r;
    if ((!red_sym && red->mirror[r] < r) || (red_sym && black->mirror[b] < b)) {
        mirror_pieces(l);
        r = placement_of(t, l, RED);
        b = placement_of(t, l, BLACK);
    }
    uint64_t v;
    if (!red_sym)
        v = (uint64_t)red->num_asym[r] * (uint64_t)black->count + (uint64_t)b;
    else
        v = (uint64_t)red->nasym * (uint64_t)black->count + (uint64_t)red->num_sym[r] * (uint64_t)black->nall +
            (uint64_t)black->num_all[black->mirror[b] < b ? black->mirror[b] : b];
    /* the free squares: those no piece of the defender pair holds */
    int defenders[16], nd = 0;
    for (int c = 0; c < 2; c++)
        for (int k = KING; k <= ELEPHANT; k++)
            for (int i = 0; i < l->n[c][k]; i++) defenders[nd++] = l->sq[c][k][i];
    uint64_t idx = v;
    for (int g = 0; g < t->ngroups; g++) {
        int kind = t->group_kind[g], colour = t->group_colour[g], n = l->n[colour][kind], pos[16];
        for (int i = 0; i < n; i++) {
            int sq = l->sq[colour][kind][i];
            if (kind == PAWN) {
                pos[i] = index_in(t->pawns[colour], 55, sq);
                if (pos[i] < 0) return -1;
            } else {
                int below = 0;
                for (int j = 0; j < nd; j++) below += defenders[j] < sq;
                pos[i] = sq - below;
            }
        }
        /* ascending (the squares are); the combinatorial number system,
         * rank = sum of C(p_i, i) */
        uint64_t rank = 0;
        for (int i = 0; i < n; i++) rank += choose(pos[i], i + 1);
        idx = idx * t->size[g] + rank;
    }
    *entry = idx;
    return 0;
}

/* ---- Files ------------------------------------------------------------- */

static uint32_t u32_at(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t u64_at(const uint8_t *p) { return (uint64_t)u32_at(p) | (uint64_t)u32_at(p + 4) << 32; }
static uint64_t pad8(uint64_t x) { return (x + 7) / 8 * 8; }

static int read_whole(const char *path, uint8_t **bytes, uint64_t *size)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return 1;
    int rc = -1;
    if (fseek(fp, 0, SEEK_END) == 0) {
        long len = ftell(fp);
        if (len >= 0 && fseek(fp, 0, SEEK_SET) == 0) {
            *bytes = malloc(len ? (size_t)len : 1);
            if (*bytes && fread(*bytes, 1, (size_t)len, fp) == (size_t)len) {
                *size = (uint64_t)len;
                rc = 0;
            }
        }
    }
    fclose(fp);
    return rc;
}

/* "Layout", and "What a compressed reader must check" 1-9. */
static int load_file(ref_reader *r, rtable *t, int kind)
{
    rfile *f = &t->f[kind];
    f->state = -1; /* until every check passes: not looked at again (what it holds is freed at close) */
    char path[1200];
    int rc = 1;
    for (int i = 0; i < r->ndirs && rc > 0; i++) { /* the first directory that has it */
        snprintf(path, sizeof path, "%s/%s.%s", r->dir[i], t->name, file_ext[kind]);
        rc = read_whole(path, &f->bytes, &f->size);
    }
    if (rc > 0) return fail(r, "%s.%s: missing", t->name, file_ext[kind]);
    if (rc < 0) return fail(r, "%s: cannot be read", path);
    const uint8_t *h = f->bytes;
    if (f->size < 128 || memcmp(h, file_magic[kind], 8)) return fail(r, "%s: bad magic", path);
    if (u32_at(h + 8) != 9 || u32_at(h + 12) != 128 || u32_at(h + 52) != 2)
        return fail(r, "%s: not version 9, header 128, layout 2", path);
    char name[37] = {0};
    memcpy(name, h + 16, 36);
    if (strcmp(name, t->name)) return fail(r, "%s: names %s", path, name);
    f->n = u64_at(h + 56);
    if (f->n != t->n)
        return fail(r, "%s: N %llu, the index has %llu", path, (unsigned long long)f->n, (unsigned long long)t->n);
    f->rule = u32_at(h + 64);
    f->limit = u32_at(h + 68);
    f->b = u32_at(h + 72);
    f->symsize = u32_at(h + 76);
    f->blocks = u32_at(h + 80);
    f->longest = (int32_t)u32_at(h + 84);
    f->m = u32_at(h + 92);
    f->codec = u32_at(h + 112);
    f->searched = u32_at(h + 116);
    f->d = u32_at(h + 120);
    f->sb = u32_at(h + 124);
    if (u64_at(h + 96) != f->size) return fail(r, "%s: size field", path);
    if (f->b == 0 || f->b % 4 || f->blocks != (f->n + f->b - 1) / f->b || f->d > 65536 || f->searched > 2 ||
        (f->symsize ? (uint64_t)f->b * f->symsize : f->b / 4) > (1u << 20)) /* a block decodes to 1 MiB at most */
        return fail(r, "%s: block fields", path);
    if (kind == WDL_FILE ? f->symsize != 0 || f->m != 0 || f->searched
                         : (f->symsize != 1 && f->symsize != 2) || f->m < 1)
        return fail(r, "%s: symbol fields", path);
    uint64_t at = 128;
    if (kind != WDL_FILE) {
        if (at + pad8(2 * (uint64_t)f->m) > f->size) return fail(r, "%s: map past the end", path);
        f->map = malloc(2 * (size_t)f->m);
        if (!f->map) return fail(r, "out of memory");
        for (uint32_t s = 0; s < f->m; s++) {
            unsigned v = f->map[s] = (uint16_t)(h[at + 2 * s] | h[at + 2 * s + 1] << 8);
            /* "What a compressed reader must check", 6: a draw (none), a
             * search symbol where a side is searched, a ruled value with
             * bits 8-14 clear and an order, or a distance up to the longest */
            int ok = v == NONE || (f->searched && (v == SEARCH || (kind == DTM_FILE && v == SEARCH_NO_WIN)));
            if (kind == DTM_FILE)
                ok |= v & RULED ? !(v & 0x7F00) && (v & 0xFF) >> 2 >= 1 : (int32_t)v <= f->longest;
            else
                ok |= (int32_t)(v & 0x7FFF) <= f->longest;
            if (!ok) return fail(r, "%s: map value %u", path, v);
        }
        at += pad8(2 * (uint64_t)f->m);
    }
    f->dict = f->d ? h + at : NULL;
    at += pad8(f->d);
    int wide = f->size >= (uint64_t)1 << 32;
    uint64_t noff = 2 * (uint64_t)f->blocks + 1;
    if (at + pad8(noff * (wide ? 8 : 4)) + 16 * (uint64_t)f->blocks + pad8(f->sb) > f->size)
        return fail(r, "%s: tables past the end", path);
    f->off = malloc(sizeof *f->off * noff);
    if (!f->off) return fail(r, "out of memory");
    for (uint64_t k = 0; k < noff; k++) f->off[k] = wide ? u64_at(h + at + 8 * k) : u32_at(h + at + 4 * k);
    at += pad8(noff * (wide ? 8 : 4));
    f->sums = h + at;
    at += 16 * (uint64_t)f->blocks;
    f->bounds = f->sb ? h + at : NULL;
    at += pad8(f->sb);
    if (f->off[0] != at || f->off[noff - 1] != f->size) return fail(r, "%s: first or last offset", path);
    for (uint64_t k = 0; k + 1 < noff; k++)
        if (f->off[k + 1] < f->off[k]) return fail(r, "%s: offsets decrease", path);
    /* the meta hash: bytes 0-103, then 112 up to the first block */
    XXH64_state_t *st = XXH64_createState();
    if (!st) return fail(r, "out of memory");
    XXH64_reset(st, 0);
    XXH64_update(st, h, 104);
    XXH64_update(st, h + 112, (size_t)(f->off[0] - 112));
    uint64_t meta = XXH64_digest(st);
    XXH64_freeState(st);
    if (meta != u64_at(h + 104)) return fail(r, "%s: meta hash", path);
    if ((f->codec != 1 && f->codec != 2) || f->rule > 4 || f->limit > 10000 || (f->d && f->codec != 2))
        return fail(r, "%s: codec, rule or limit", path);
    if (f->sb && (kind == WDL_FILE || !f->searched)) return fail(r, "%s: bounds without a searched side", path);
    f->dec = calloc(2 * (size_t)f->blocks, sizeof *f->dec);
    if (!f->dec) return fail(r, "out of memory");
    f->state = 1;
    return 0;
}

/* The bytes block k decodes to: its entries' symbols. */
static uint64_t block_bytes(const rfile *f, uint64_t k)
{
    uint64_t i = k % f->blocks, first = i * f->b, end = first + f->b < f->n ? first + f->b : f->n;
    return f->symsize ? (end - first) * f->symsize : (end - first + 3) / 4;
}

static int decode_block(ref_reader *r, const rtable *t, rfile *f, uint64_t k, int kind)
{
    uint64_t want = block_bytes(f, k), src = k;
    if (f->off[k] == f->off[k + 1]) { /* repeats its side's first block */
        if (XXH64(NULL, 0, 0) != u64_at(f->sums + 8 * k))
            return fail(r, "%s.%s: block %llu checksum", t->name, file_ext[kind], (unsigned long long)k);
        src = k < f->blocks ? 0 : f->blocks;
    }
    const uint8_t *in = f->bytes + f->off[src];
    uint64_t len = f->off[src + 1] - f->off[src];
    if (len == 0 || XXH64(in, (size_t)len, 0) != u64_at(f->sums + 8 * src))
        return fail(r, "%s.%s: block %llu checksum", t->name, file_ext[kind], (unsigned long long)src);
    uint8_t *out = malloc(want ? (size_t)want : 1);
    if (!out) return fail(r, "out of memory");
    int ok;
    if (f->codec == 1) {
        ok = LZ4_decompress_safe((const char *)in, (char *)out, (int)len, (int)want) == (int)want;
    } else {
        /* a Zstandard frame without its magic number: put it back */
        uint8_t *frame = malloc((size_t)len + 4);
        if (!frame) {
            free(out);
            return fail(r, "out of memory");
        }
        static const uint8_t zmagic[4] = {0x28, 0xB5, 0x2F, 0xFD};
        memcpy(frame, zmagic, 4);
        memcpy(frame + 4, in, (size_t)len);
        size_t got = ZSTD_decompress_usingDict(r->dctx, out, (size_t)want, frame, (size_t)len + 4, f->dict, f->d);
        ok = !ZSTD_isError(got) && got == want;
        free(frame);
    }
    if (!ok) {
        free(out);
        return fail(r, "%s.%s: block %llu does not decode to %llu bytes", t->name, file_ext[kind],
                    (unsigned long long)k, (unsigned long long)want);
    }
    f->dec[k] = out;
    return 0;
}

static int symbol(ref_reader *r, rtable *t, int kind, int side, uint64_t entry, unsigned *sym)
{
    rfile *f = &t->f[kind];
    if (f->state == 0 && load_file(r, t, kind)) return -1;
    if (f->state < 0) return fail(r, "%s.%s: missing or damaged", t->name, file_ext[kind]);
    uint64_t k = (uint64_t)side * f->blocks + entry / f->b, at = entry % f->b;
    if (!f->dec[k] && decode_block(r, t, f, k, kind)) return -1;
    const uint8_t *d = f->dec[k];
    if (kind == WDL_FILE)
        *sym = d[at / 4] >> (2 * (at % 4)) & 3;
    else
        *sym = f->symsize == 1 ? d[at] : (unsigned)(d[2 * at] | d[2 * at + 1] << 8);
    if (kind == WDL_FILE ? *sym > 2 : *sym >= f->m)
        return fail(r, "%s.%s: symbol %u out of range", t->name, file_ext[kind], *sym);
    return 0;
}

/* ---- Tables and positions ---------------------------------------------- */

static rtable *table_named(ref_reader *r, const char *name, const int count[2][8])
{
    for (int i = 0; i < r->nt; i++)
        if (!strcmp(r->t[i]->name, name)) return r->t[i];
    if (r->nt == r->cap) {
        int cap = r->cap ? 2 * r->cap : 16;
        rtable **t = realloc(r->t, sizeof *t * (size_t)cap);
        if (!t) return NULL;
        r->t = t;
        r->cap = cap;
    }
    rtable *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    snprintf(t->name, sizeof t->name, "%s", name);
    memcpy(t->count, count, sizeof t->count);
    if (setup_index(t)) {
        free_table(t);
        fail(r, "%s: out of memory for its index", name);
        return NULL;
    }
    r->t[r->nt++] = t;
    return t;
}

/* Whether a file of material NAME is in one of the directories, looked at
 * once per name. */
static int file_exists(ref_reader *r, const char *name)
{
    for (int i = 0; i < r->nknown; i++)
        if (!strcmp(r->known[i].name, name)) return r->known[i].exists;
    int exists = 0;
    for (int i = 0; i < r->ndirs && !exists; i++)
        for (int kind = 0; kind < 3 && !exists; kind++) {
            char path[1200];
            snprintf(path, sizeof path, "%s/%s.%s", r->dir[i], name, file_ext[kind]);
            FILE *fp = fopen(path, "rb");
            if (fp) fclose(fp);
            exists = fp != NULL;
        }
    if (r->nknown < (int)(sizeof r->known / sizeof r->known[0])) {
        snprintf(r->known[r->nknown].name, sizeof r->known[0].name, "%s", name);
        r->known[r->nknown++].exists = exists;
    }
    return exists;
}

/* The table of b's material and b's entry in it: the board as is if a file
 * names its material so, else turned ("Naming"). */
static int locate(ref_reader *r, const xq_board *b, rtable **table, int *side, uint64_t *entry)
{
    pieces p;
    memset(p.n, 0, sizeof p.n);
    for (int c = 0; c < 2; c++)
        for (xq_mask m = b->occ[c]; m;) {
            int sq = mask_pop_lsb(&m); /* ascending */
            int kind = kind_of(b->sq[sq]);
            p.sq[c][kind][p.n[c][kind]++] = sq;
        }
    char red[20], black[20], as_is[40], turned[40];
    side_name(p.n[RED], red);
    side_name(p.n[BLACK], black);
    strcat(strcpy(as_is, red), black);
    strcat(strcpy(turned, black), red);
    int turn = !file_exists(r, as_is) && file_exists(r, turned);
    p.side = b->side;
    if (turn) { /* colours swapped, rank r becomes 9 - r */
        pieces q;
        memset(q.n, 0, sizeof q.n);
        q.side = b->side ^ 1;
        for (int c = 0; c < 2; c++)
            for (int k = KING; k < KIND_NB; k++)
                for (int i = 0; i < p.n[c][k]; i++) add_piece(&q, c ^ 1, k, turn_square(p.sq[c][k][i]));
        p = q;
    }
    int count[2][8];
    memcpy(count, p.n, sizeof count);
    rtable *t = table_named(r, turn ? turned : as_is, (const int(*)[8])count);
    if (!t) return r->err[0] ? -1 : fail(r, "out of memory");
    if (entry_of(t, &p, entry)) return fail(r, "%s: a position outside the index", t->name);
    *table = t;
    *side = p.side;
    return 0;
}

/* The table of b, its side to move there, and the symbol its entry holds
 * in the file of `kind` (a map index in DTM and DTC files). */
static int stored(ref_reader *r, const xq_board *b, int kind, rtable **t, int *side, unsigned *sym)
{
    uint64_t entry;
    return locate(r, b, t, side, &entry) || symbol(r, *t, kind, *side, entry, sym) ? -1 : 0;
}

/* "Captures in WDL files": the better of the stored symbol and every
 * capture's result. */
static int wdl_of(ref_reader *r, const xq_board *b, int *wdl)
{
    rtable *t;
    int side;
    unsigned sym;
    if (stored(r, b, WDL_FILE, &t, &side, &sym)) return -1;
    *wdl = (int)sym - 1;
    xq_board c = *b;
    xq_move list[XQ_MAX_MOVES];
    int n = xq_gen_legal(&c, list);
    for (int i = 0; i < n && *wdl < 1; i++) {
        if (!c.sq[move_to(list[i])]) continue;
        xq_undo u;
        xq_make_move(&c, list[i], &u);
        int after;
        int rc = wdl_of(r, &c, &after);
        xq_unmake_move(&c, list[i], &u);
        if (rc) return -1;
        if (-after > *wdl) *wdl = -after;
    }
    return 0;
}

static int is_search(unsigned v) { return v == SEARCH || v == SEARCH_NO_WIN; }

/* "Searched entries", DTM: the value, as a map value, from the successors'. */
static int dtm_search(ref_reader *r, const xq_board *b, unsigned *value);

static int dtm_of(ref_reader *r, const xq_board *b, unsigned *value)
{
    rtable *t;
    int side;
    unsigned sym;
    if (stored(r, b, DTM_FILE, &t, &side, &sym)) return -1;
    const rfile *f = &t->f[DTM_FILE];
    unsigned v = f->map[sym];
    if (!is_search(v)) {
        *value = v;
        return 0;
    }
    if (f->searched != (unsigned)side + 1) return fail(r, "%s.xqd: a search symbol on the stored side", t->name);
    if (dtm_search(r, b, value)) return -1;
    if (v == SEARCH_NO_WIN && *value < RULED && *value % 2 == 1)
        return fail(r, "%s.xqd: \"search, no ordinary win\" gives an ordinary win", t->name);
    return 0;
}

static int dtm_search(ref_reader *r, const xq_board *b, unsigned *value)
{
    int min_loss = INF, max_win = -1, draw = 0;
    int rl_order = INF, rl_chase = 1, rw_order = 0, rw_chase = 1;
    xq_board c = *b;
    xq_move list[XQ_MAX_MOVES];
    int n = xq_gen_legal(&c, list);
    for (int i = 0; i < n; i++) {
        xq_undo u;
        xq_make_move(&c, list[i], &u);
        unsigned v;
        int rc = dtm_of(r, &c, &v);
        xq_unmake_move(&c, list[i], &u);
        if (rc) return -1;
        if (v < RULED) {
            if (v % 2 == 0 && (int)v < min_loss) min_loss = (int)v;
            if (v % 2 == 1 && (int)v > max_win) max_win = (int)v;
        } else if (v == NONE) {
            draw = 1;
        } else {
            int ruling = (int)(v & 0xFF), order = ruling >> 2, chase = ruling >> 1 & 1;
            if (!(ruling & 1)) { /* a ruled loss for the successor's side to move */
                if (order < rl_order) {
                    rl_order = order;
                    rl_chase = chase;
                } else if (order == rl_order) {
                    rl_chase &= chase;
                }
            } else {
                if (order > rw_order) {
                    rw_order = order;
                    rw_chase = chase;
                } else if (order == rw_order) {
                    rw_chase &= chase;
                }
            }
        }
    }
    if (min_loss < INF)
        *value = (unsigned)(1 + min_loss);
    else if (rl_order < INF)
        *value = RULED | (unsigned)rl_order << 2 | (unsigned)rl_chase << 1 | 1;
    else if (draw)
        *value = NONE;
    else if (rw_order > 0)
        *value = RULED | (unsigned)rw_order << 2 | (unsigned)rw_chase << 1;
    else
        *value = n ? (unsigned)(1 + max_win) : 0;
    return 0;
}

/* "Searched entries", DTC, for a position whose WDL file says win or loss. */
static int dtc_of(ref_reader *r, const xq_board *b, int wdl, unsigned *code)
{
    rtable *t;
    int side;
    unsigned sym;
    if (stored(r, b, DTC_FILE, &t, &side, &sym)) return -1;
    const rfile *f = &t->f[DTC_FILE];
    unsigned v = f->map[sym];
    if (v != SEARCH) {
        *code = v;
        return 0;
    }
    if (f->searched != (unsigned)side + 1) return fail(r, "%s.xqc: a search symbol on the stored side", t->name);
    int limit = (int)f->limit, best = INF, worst = 0, loss_with_code = 0, ruled = 0, all_convert = 1;
    xq_board c = *b;
    xq_move list[XQ_MAX_MOVES];
    int n = xq_gen_legal(&c, list);
    for (int i = 0; i < n; i++) {
        int capture = c.sq[move_to(list[i])] != 0, after;
        unsigned dc = NONE;
        xq_undo u;
        xq_make_move(&c, list[i], &u);
        int rc = wdl_of(r, &c, &after);
        if (!rc && after != 0) rc = dtc_of(r, &c, after, &dc);
        xq_unmake_move(&c, list[i], &u);
        if (rc) return -1;
        int dist = capture ? 1 : (int)dc + 1;
        int converts = dc < RULED && dist <= limit && after == -wdl;
        if (wdl == 1) {
            if (after == -1 && dc != NONE) loss_with_code = 1;
            if (converts && dist < best) best = dist;
        } else {
            if (dc == NONE) ruled = 1;
            if (!converts) all_convert = 0;
            if (dist > worst) worst = dist;
        }
    }
    if (wdl == 1) {
        if (!loss_with_code)
            *code = NONE;
        else if (best == INF)
            return fail(r, "%s.xqc: a searched win with no move that converts in time", t->name);
        else
            *code = (unsigned)best;
    } else {
        if (ruled)
            *code = NONE;
        else if (!all_convert)
            return fail(r, "%s.xqc: a searched loss with a move that does not convert", t->name);
        else
            *code = (unsigned)(n ? worst : 0);
    }
    return 0;
}

int ref_reader_wdl(ref_reader *r, const xq_board *b, int *wdl)
{
    r->err[0] = 0;
    return wdl_of(r, b, wdl);
}

int ref_reader_probe_dtc(ref_reader *r, const xq_board *b, ref_read_value *v)
{
    r->err[0] = 0;
    memset(v, 0, sizeof *v);
    v->dtm = v->dtc = -1;
    unsigned code;
    if (wdl_of(r, b, &v->wdl) || (v->wdl && dtc_of(r, b, v->wdl, &code))) return -1;
    if (!v->wdl) return 0;
    if (code == NONE) { /* a result that only a ruling decides ("Searched entries", DTC) */
        v->ruled = 1;
        return 0;
    }
    v->cursed = code >= RULED;
    v->dtc = (int)(code & 0x7FFF);
    return 0;
}

int ref_reader_probe(ref_reader *r, const xq_board *b, int want_dtc, ref_read_value *v)
{
    r->err[0] = 0;
    memset(v, 0, sizeof *v);
    v->dtm = v->dtc = -1;
    unsigned dtm;
    if (wdl_of(r, b, &v->wdl) || dtm_of(r, b, &dtm)) return -1;
    int from_dtm;
    if (dtm < RULED) {
        v->dtm = (int)dtm;
        from_dtm = dtm % 2 ? 1 : -1;
    } else if (dtm == NONE) {
        from_dtm = 0;
    } else {
        int ruling = (int)(dtm & 0xFF);
        v->ruled = 1 + (ruling >> 1 & 1);
        v->order = ruling >> 2;
        from_dtm = ruling & 1 ? 1 : -1;
        if (v->order < 1) return fail(r, "a ruled value of order 0");
    }
    if (from_dtm != v->wdl) return fail(r, "the WDL file says %d, the DTM file %d", v->wdl, from_dtm);
    if (want_dtc && ref_reader_limit(r) > 0 && v->wdl != 0 && !v->ruled) {
        unsigned code;
        if (dtc_of(r, b, v->wdl, &code)) return -1;
        if (code == NONE) return fail(r, "an ordinary result whose DTC is none");
        v->cursed = code >= RULED;
        v->dtc = (int)(code & 0x7FFF);
    }
    return 0;
}

static const rfile *any_file(const ref_reader *r)
{
    for (int i = 0; i < r->nt; i++)
        for (int k = 0; k < 3; k++)
            if (r->t[i]->f[k].state == 1) return &r->t[i]->f[k];
    return NULL;
}

int ref_reader_ruling(const ref_read_value *v, int rules)
{
    if (!v->ruled) return XQTB_BY_NONE;
    if (rules == XQTB_RULES_CXA) return XQTB_BY_PERPETUAL_ATTACK;
    return v->ruled == 1 ? XQTB_BY_PERPETUAL_CHECK : XQTB_BY_PERPETUAL_CHASE;
}

int ref_reader_rule(const ref_reader *r)
{
    const rfile *f = any_file(r);
    return f ? (int)f->rule : -1;
}

int ref_reader_limit(const ref_reader *r)
{
    const rfile *f = any_file(r);
    return f ? (int)f->limit : -1;
}

/* ---- Search bounds ----------------------------------------------------- */

static int bounds_of(ref_reader *r, rtable *t, int kind, uint8_t *out, uint64_t groups)
{
    rfile *f = &t->f[kind];
    int stored = f->searched == 1 ? BLACK : RED;
    uint64_t per = kind == DTM_FILE ? 16 : 64, g8 = (groups + 7) / 8;
    memset(out, 0, (size_t)(kind == DTM_FILE ? 3 * groups + g8 : 2 * groups + g8));
    for (uint64_t g = groups; g < 8 * g8; g++) /* the last byte's bits past the last group are set */
        out[2 * groups + g / 8] |= (uint8_t)(1u << (g % 8));
    for (uint64_t g = 0; g < groups; g++) {
        int lo = INF, hi = -1, all = 1, order = INF;
        for (uint64_t e = g * per; e < (g + 1) * per && e < f->n; e++) {
            unsigned sym;
            if (symbol(r, t, kind, stored, e, &sym)) return -1;
            unsigned v = f->map[sym];
            if (kind == DTM_FILE) {
                if (v < RULED && v % 2 == 0 && (int)v < lo) lo = (int)v;
                if (v < RULED && v % 2 == 1 && (int)v > hi) hi = (int)v;
                if (!(v < RULED && v % 2 == 1)) all = 0;
                if (v >= RULED && !is_search(v) && v != NONE && !(v & 1) && (int)(v & 0xFF) >> 2 < order)
                    order = (int)(v & 0xFF) >> 2;
            } else {
                if (v < RULED && (int)v < lo) lo = (int)v;
                if (v < RULED && (int)v > hi) hi = (int)v;
                if (v >= RULED) all = 0;
            }
        }
        if (kind == DTM_FILE) {
            /* loss: b for a shortest loss of 2b, capped at 254; win: b + 1 for
             * a longest win of 2b + 1, 255 past 254 */
            out[g] = (uint8_t)(lo == INF ? 255 : lo / 2 > 254 ? 254 : lo / 2);
            out[groups + g] = (uint8_t)(hi < 0 ? 0 : (hi - 1) / 2 + 1 >= 255 ? 255 : (hi - 1) / 2 + 1);
            out[2 * groups + g / 8] |= (uint8_t)(all << (g % 8));
            out[2 * groups + g8 + g] = (uint8_t)(order == INF ? 255 : order);
        } else {
            out[g] = (uint8_t)(lo == INF ? 255 : lo > 254 ? 254 : lo);
            out[groups + g] = (uint8_t)(hi < 0 ? 0 : hi + 1 >= 255 ? 255 : hi + 1);
            out[2 * groups + g / 8] |= (uint8_t)(all << (g % 8));
        }
    }
    return 0;
}

int ref_reader_check_bounds(ref_reader *r)
{
    int checked = 0;
    for (int i = 0; i < r->nt; i++)
        for (int kind = DTM_FILE; kind <= DTC_FILE; kind++) {
            rtable *t = r->t[i];
            rfile *f = &t->f[kind];
            if (f->state != 1 || !f->sb) continue;
            uint64_t groups = (f->n + (kind == DTM_FILE ? 15 : 63)) / (kind == DTM_FILE ? 16 : 64);
            uint64_t len = kind == DTM_FILE ? 3 * groups + (groups + 7) / 8 : 2 * groups + (groups + 7) / 8;
            uint8_t *mine = malloc((size_t)len), *theirs = malloc((size_t)len);
            int rc = -1;
            if (!mine || !theirs) {
                fail(r, "out of memory");
            } else if (!bounds_of(r, t, kind, mine, groups)) {
                size_t got = ZSTD_decompress(theirs, (size_t)len, f->bounds, f->sb);
                if (ZSTD_isError(got) || got != len)
                    fail(r, "%s.%s: the search bounds do not decode to %llu bytes", t->name, file_ext[kind],
                         (unsigned long long)len);
                else if (memcmp(mine, theirs, (size_t)len)) {
                    uint64_t at = 0;
                    while (mine[at] == theirs[at]) at++;
                    fail(r,
                         "%s.%s: the search bounds differ from the blocks' at byte %llu of %llu (%llu groups): %u, the "
                         "file %u",
                         t->name, file_ext[kind], (unsigned long long)at, (unsigned long long)len,
                         (unsigned long long)groups, mine[at], theirs[at]);
                } else
                    rc = 0;
            }
            free(mine);
            free(theirs);
            if (rc) return -1;
            checked++;
        }
    return checked;
}
