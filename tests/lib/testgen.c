/*
 * testgen.c - see testgen.h.
 */
#include "testgen.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "compress.h"
#include "dtc.h"
#include "tmpdir.h"

static tb_table *load_from(const char *name, const char *dir, int rules, int limit, tb_set **set)
{
    char err[XQ_ERR_MAX];
    xq_material m;
    if (xq_material_parse(name, &m, err)) fail_msg("%s", err);
    tb_gen_options opt = {.dir = dir, .threads = 2, .quiet = 1, .rules = rules, .limit = limit};
    if (tb_generate(&m, &opt, err)) fail_msg("generate %s: %s", name, err);
    *set = tb_set_new(dir);
    tb_table *t = *set ? tb_set_get(*set, &m, err) : NULL;
    if (!t) fail_msg("load %s: %s", name, err);
    if (t->rules != rules) fail_msg("%s loaded with rules %d, asked for %d", name, t->rules, rules);
    if (t->limit != limit) fail_msg("%s loaded with limit %d, asked for %d", name, t->limit, limit);
    return t;
}

tb_table *testgen_load(const char *name, tb_set **set) { return load_from(name, test_tmpdir(), XQ_RULES_NONE, 0, set); }

tb_table *testgen_load_rules(const char *name, int rules, tb_set **set)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/rules-%d", test_tmpdir(), rules);
    if (mkdir(dir, 0700) && errno != EEXIST) fail_msg("mkdir %s: %s", dir, strerror(errno));
    return load_from(name, dir, rules, 0, set);
}

tb_table *testgen_load_limit(const char *name, int rules, int limit, tb_set **set)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/rules-%d-limit-%d", test_tmpdir(), rules, limit);
    if (mkdir(dir, 0700) && errno != EEXIST) fail_msg("mkdir %s: %s", dir, strerror(errno));
    return load_from(name, dir, rules, limit, set);
}

static void verify_once(const tb_table *t, const tb_table **done, int *ndone)
{
    for (int i = 0; i < *ndone; i++)
        if (done[i] == t) return;
    done[(*ndone)++] = t;
    tb_verify_report r;
    char name[XQ_MATERIAL_MAX];
    xq_material_name(&t->mat, name);
    if (tb_verify(t, 2, &r))
        fail_msg("verify %s: %llu errors, first %s", name, (unsigned long long)r.errors, r.first_error);
    assert_true(r.checked > 0);
    for (int c = 0; c < 2; c++)
        for (int k = 0; k < KIND_NB; k++)
            if (t->sub[c][k]) verify_once(t->sub[c][k], done, ndone);
}

uint16_t *testgen_dtc_codes(const tb_table *t, uint64_t *beyond)
{
    uint64_t n = t->ix.size;
    uint16_t *codes = malloc(2 * n * sizeof *codes + 1);
    assert_non_null(codes);
    *beyond = 0;
    for (int s = 0; s < 2; s++)
        for (uint64_t i = 0; i < n; i++) {
            codes[s * n + i] = (uint16_t)tb_dtc(t, s, i);
            *beyond += dtc_beyond(codes[s * n + i]);
        }
    return codes;
}

uint64_t testgen_dtc_differ(const tb_table *t, const uint16_t *codes)
{
    uint64_t n = t->ix.size, differ = 0;
    for (int s = 0; s < 2; s++)
        for (uint64_t i = 0; i < n; i++) differ += tb_dtc(t, s, i) != codes[s * n + i];
    return differ;
}

void testgen_verify_all(const tb_table *t)
{
    const tb_table *done[256];
    int ndone = 0;
    verify_once(t, done, &ndone);
}

void testgen_read_file(const char *path, char **buf, long *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) fail_msg("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    *len = ftell(f);
    rewind(f);
    *buf = malloc(*len > 0 ? (size_t)*len : 1);
    assert_non_null(*buf);
    assert_int_equal(fread(*buf, 1, (size_t)*len, f), (size_t)*len);
    fclose(f);
}

void testgen_assert_same_file(const char *a, const char *b)
{
    char *x, *y;
    long nx, ny;
    testgen_read_file(a, &x, &nx);
    testgen_read_file(b, &y, &ny);
    if (nx != ny) fail_msg("%s has %ld bytes, %s %ld", a, nx, b, ny);
    assert_memory_equal(x, y, (size_t)nx);
    free(x);
    free(y);
}

void testgen_copy_file(const char *from, const char *to)
{
    char *buf;
    long len;
    testgen_read_file(from, &buf, &len);
    FILE *f = fopen(to, "wb");
    if (!f) fail_msg("cannot write %s", to);
    size_t n = fwrite(buf, 1, (size_t)len, f);
    int closed = fclose(f);
    free(buf);
    if (n != (size_t)len || closed) fail_msg("cannot write %s", to);
}

void testgen_copy_tables(const char *from, const char *to, const char *const *names, int nnames,
                         const char *const *exts, int nexts)
{
    if (mkdir(to, 0755) && errno != EEXIST) fail_msg("mkdir %s: %s", to, strerror(errno));
    for (int i = 0; i < nnames; i++)
        for (int k = 0; k < nexts; k++) {
            char a[2048], b[2048];
            snprintf(a, sizeof a, "%s/%s.%s", from, names[i], exts[k]);
            snprintf(b, sizeof b, "%s/%s.%s", to, names[i], exts[k]);
            testgen_copy_file(a, b);
        }
}

static void rewrite_once(const tb_table *t, const char *dir, int searched, const tb_table **done, int *ndone, int cap)
{
    for (int i = 0; i < *ndone; i++)
        if (done[i] == t) return;
    if (*ndone == cap) fail_msg("more subtables than testgen_rewrite_compressed keeps track of");
    done[(*ndone)++] = t;
    char err[XQ_ERR_MAX];
    tb_compress_options o = {.threads = 2, .searched = searched};
    if (tb_compress_write(t, dir, &o, NULL, err)) fail_msg("%s", err);
    for (int c = 0; c < 2; c++)
        for (int k = 0; k < 8; k++)
            if (t->sub[c][k]) rewrite_once(t->sub[c][k], dir, searched, done, ndone, cap);
}

void testgen_rewrite_compressed(const tb_table *t, const char *dir, int searched)
{
    const tb_table *done[256];
    int ndone = 0;
    rewrite_once(t, dir, searched, done, &ndone, 256);
}
