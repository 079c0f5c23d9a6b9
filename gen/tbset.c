/*
 * tbset.c - a set of tables keyed by canonical material, and the capture
 * links between them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "parallel.h"
#include "tb.h"

struct tb_set {
    char *dir;
    int threads; /* for tb_unpack; 0 = all cores */
    tb_table **t;
    int n, cap;
    uint64_t peak; /* tb_set_peak_bytes */
};

tb_set *tb_set_new(const char *dir)
{
    tb_set *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->dir = strdup(dir);
    if (!s->dir) {
        free(s);
        return NULL;
    }
    return s;
}

void tb_set_free(tb_set *s)
{
    if (!s) return;
    for (int i = 0; i < s->n; i++) tb_table_free(s->t[i]);
    free(s->t);
    free(s->dir);
    free(s);
}

const char *tb_set_dir(const tb_set *s) { return s->dir; }

void tb_set_threads(tb_set *s, int threads) { s->threads = threads; }

tb_table *tb_set_find(tb_set *s, const xq_material *m)
{
    xq_material c;
    xq_material_canonical(m, &c);
    for (int i = 0; i < s->n; i++)
        if (xq_material_equal(&s->t[i]->mat, &c)) return s->t[i];
    return NULL;
}

uint64_t tb_set_bytes(const tb_set *s)
{
    uint64_t n = 0;
    for (int i = 0; i < s->n; i++) n += tb_table_bytes(s->t[i]);
    return n;
}

uint64_t tb_set_peak_bytes(const tb_set *s) { return s->peak; }

/* A list of canonical materials, each once. */
typedef struct {
    xq_material *m;
    int n, cap;
} material_list;

/* Whether canonical material m is in l. */
static int material_listed(const material_list *l, const xq_material *m)
{
    for (int i = 0; i < l->n; i++)
        if (xq_material_equal(&l->m[i], m)) return 1;
    return 0;
}

/* Adds m and every table a chain of captures from it leads to.  -1 if out
 * of memory. */
static int add_closure(material_list *l, const xq_material *m)
{
    xq_material canon;
    xq_material_canonical(m, &canon);
    if (material_listed(l, &canon)) return 0;
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 64;
        xq_material *g = realloc(l->m, (size_t)cap * sizeof *g);
        if (!g) return -1;
        l->m = g;
        l->cap = cap;
    }
    l->m[l->n++] = canon;
    xq_material sub[XQ_MAX_SUBTABLES];
    int k = xq_material_subtables(&canon, sub);
    for (int i = 0; i < k; i++)
        if (add_closure(l, &sub[i])) return -1;
    return 0;
}

int tb_capture_targets(const xq_material *p, xq_material sub[XQ_MAX_SUBTABLES], int side[XQ_MAX_SUBTABLES])
{
    int n = 0;
    for (int c = 0; c < 2; c++)
        for (int k = ADVISOR; k < KIND_NB; k++) {
            if (!p->count[c][k]) continue;
            xq_material s = *p;
            s.count[c][k]--;
            side[n] = c ^ xq_material_needs_flip(&s); /* as tb_set_link links it */
            xq_material_canonical(&s, &sub[n]);
            n++;
        }
    return n;
}

/* Adds to need[j] the sides of the set's table j that a capture from
 * canonical material p reaches: bit s for side s to move. */
static void mark_reached(const tb_set *s, const xq_material *p, unsigned *need)
{
    xq_material sub[XQ_MAX_SUBTABLES];
    int side[XQ_MAX_SUBTABLES], n = tb_capture_targets(p, sub, side);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < s->n; j++)
            if (xq_material_equal(&sub[i], &s->t[j]->mat)) {
                need[j] |= 1u << side[i];
                break;
            }
}

void tb_set_trim(tb_set *s, const xq_material *m, const xq_material *goals, int ngoals)
{
    xq_material canon;
    xq_material_canonical(m, &canon);
    /* what is still to build or load: the goals' closure but m and what
     * the set holds */
    material_list ahead = {0};
    unsigned *need = calloc((size_t)s->n + 1, sizeof *need);
    int failed = !need;
    for (int k = 0; k < ngoals && !failed; k++) failed = add_closure(&ahead, &goals[k]);
    if (failed) { /* keeping every table is never wrong */
        free(ahead.m);
        free(need);
        return;
    }
    mark_reached(s, &canon, need);
    for (int i = 0; i < ahead.n; i++)
        if (!xq_material_equal(&ahead.m[i], &canon) && !tb_set_find(s, &ahead.m[i])) mark_reached(s, &ahead.m[i], need);
    int kept = 0;
    for (int i = 0; i < s->n; i++) {
        tb_table *u = s->t[i];
        if (!xq_material_equal(&u->mat, &canon)) {
            if (!need[i]) {
                tb_table_free(u);
                continue;
            }
            for (int side = 0; side < 2; side++)
                if (!(need[i] >> side & 1)) tb_table_drop_side(u, side);
            /* its subtables may be gone: nothing may follow a capture from it */
            memset(u->sub, 0, sizeof u->sub);
            /* and of it, a capture reads less than its own generation wrote */
            tb_table_slim(u);
        }
        s->t[kept++] = u;
    }
    s->n = kept;
    free(ahead.m);
    free(need);
}

int tb_set_link(tb_set *s, tb_table *t, char err[XQ_ERR_MAX])
{
    for (int c = 0; c < 2; c++)
        for (int k = ADVISOR; k < KIND_NB; k++) {
            if (!t->mat.count[c][k]) continue;
            xq_material m = t->mat;
            m.count[c][k]--;
            tb_table *sub = tb_set_find(s, &m);
            if (!sub) {
                char name[XQ_MATERIAL_MAX];
                xq_material_canonical(&m, &m);
                xq_material_name(&m, name);
                snprintf(err, XQ_ERR_MAX, "subtable %s is not loaded", name);
                return -1;
            }
            if (sub->rules != t->rules) {
                /* Values built under other rulings would flow through the
                 * captures: never mix rule sets in one table. */
                char name[XQ_MATERIAL_MAX], sname[XQ_MATERIAL_MAX];
                xq_material_name(&t->mat, name);
                xq_material_name(&sub->mat, sname);
                snprintf(err, XQ_ERR_MAX, "%s is built under rules %s but its subtable %s under rules %s", name,
                         xq_rules_name(t->rules), sname, xq_rules_name(sub->rules));
                return -1;
            }
            if (sub->limit != t->limit) {
                char name[XQ_MATERIAL_MAX], sname[XQ_MATERIAL_MAX];
                xq_material_name(&t->mat, name);
                xq_material_name(&sub->mat, sname);
                snprintf(err, XQ_ERR_MAX, "%s is built for a move limit of %d plies but its subtable %s for %d", name,
                         t->limit, sname, sub->limit);
                return -1;
            }
            int flip = xq_material_needs_flip(&m);
            if (!sub->cells[c ^ flip]) {
                /* trimmed away (tb_set_trim): a capture would read nothing */
                char name[XQ_MATERIAL_MAX], sname[XQ_MATERIAL_MAX];
                xq_material_name(&t->mat, name);
                xq_material_name(&sub->mat, sname);
                snprintf(err, XQ_ERR_MAX,
                         "internal error: %s no longer holds the side to move a capture from %s reaches", sname, name);
                return -1;
            }
            t->sub[c][k] = sub;
            t->sub_flip[c][k] = (uint8_t)flip;
        }
    return 0;
}

void tb_set_retain(tb_set *s, const xq_material *m)
{
    material_list l = {0};
    if (add_closure(&l, m)) { /* keeping every table is never wrong */
        free(l.m);
        return;
    }
    int kept = 0;
    for (int i = 0; i < s->n; i++) {
        if (material_listed(&l, &s->t[i]->mat))
            s->t[kept++] = s->t[i];
        else
            tb_table_free(s->t[i]);
    }
    s->n = kept;
    free(l.m);
}

int tb_set_add(tb_set *s, tb_table *t, char err[XQ_ERR_MAX])
{
    if (tb_set_link(s, t, err)) return -1;
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 16;
        tb_table **nt = realloc(s->t, (size_t)cap * sizeof *nt);
        if (!nt) {
            snprintf(err, XQ_ERR_MAX, "out of memory");
            return -1;
        }
        s->t = nt;
        s->cap = cap;
    }
    s->t[s->n++] = t;
    uint64_t held = tb_set_bytes(s);
    if (held > s->peak) s->peak = held;
    return 0;
}

/* tb_set_get, trimming the set before each table it loads for `goals`
 * when there are any (tb_set_get_trimmed_for). */
static tb_table *get(tb_set *s, const xq_material *m, const xq_material *goals, int ngoals, char err[XQ_ERR_MAX])
{
    tb_table *t = tb_set_find(s, m);
    if (t) return t;
    /* Subtables first, so the links can be made. */
    xq_material sub[XQ_MAX_SUBTABLES];
    int n = xq_material_subtables(m, sub);
    for (int k = 0; k < n; k++)
        if (!get(s, &sub[k], goals, ngoals, err)) return NULL;
    if (ngoals) tb_set_trim(s, m, goals, ngoals);
    /* The raw file if gen kept one (--keep-raw, or an older run), else the
     * table is rebuilt from its compressed files. */
    char path[4096];
    xq_material canon;
    xq_material_canonical(m, &canon);
    tb_raw_path(s->dir, &canon, path, sizeof path);
    if (access(path, F_OK) == 0)
        t = tb_raw_read(s->dir, m, err);
    else
        t = tb_unpack(s, m, s->threads > 0 ? s->threads : par_cores(), err);
    if (!t) return NULL;
    if (tb_set_add(s, t, err)) {
        tb_table_free(t);
        return NULL;
    }
    return t;
}

tb_table *tb_set_get(tb_set *s, const xq_material *m, char err[XQ_ERR_MAX]) { return get(s, m, NULL, 0, err); }

tb_table *tb_set_get_trimmed(tb_set *s, const xq_material *m, char err[XQ_ERR_MAX])
{
    xq_material goal;
    xq_material_canonical(m, &goal);
    return get(s, m, &goal, 1, err);
}

tb_table *tb_set_get_trimmed_for(tb_set *s, const xq_material *goals, int ngoals, char err[XQ_ERR_MAX])
{
    return get(s, &goals[0], goals, ngoals, err);
}
