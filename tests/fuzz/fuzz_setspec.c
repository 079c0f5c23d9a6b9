/*
 * fuzz_setspec.c - libFuzzer target for the table-set names and filters
 * (gen/catalog.c): the input is split at newlines into a set name and then
 * option/value pairs.  A refusal must come with a one-line printable
 * message; an accepted spec must list members that all pass the filter,
 * whose subtables are all in the list before them, and a filter whose
 * text form, parsed again, keeps exactly the same materials.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "fuzz_check.h"

static void check_message(const char *err)
{
    CHECK(err[0] != 0);
    for (const char *p = err; *p; p++) CHECK(*p >= 32 && *p < 127);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char buf[512], *line[16];
    if (size >= sizeof buf) return 0;
    memcpy(buf, data, size);
    buf[size] = 0;
    int n = 0;
    for (char *p = buf, *save = NULL; n < 16 && (p = strtok_r(n ? NULL : p, "\n", &save)); n++) line[n] = p;
    if (n == 0) return 0;
    /* big sets take long to list: keep to the small ones */
    if (!strncmp(line[0], "up-to-", 6) && strcmp(line[0], "up-to-2") && strcmp(line[0], "up-to-3") &&
        strcmp(line[0], "up-to-4"))
        return 0;
    tb_set_spec s;
    char err[XQ_ERR_MAX];
    if (tb_set_spec_parse(line[0], &s, err)) {
        check_message(err);
        return 0;
    }
    for (int i = 1; i + 1 < n; i += 2) {
        int rc = tb_set_filter_option(&s.filter, line[i], line[i + 1], err);
        if (rc < 0) {
            check_message(err);
            return 0;
        }
    }
    tb_set_list l;
    if (tb_set_list_make(&s, &l, err)) {
        check_message(err);
        return 0;
    }
    CHECK(l.targets > 0 && l.targets <= l.n);
    for (int i = 0; i < l.n; i++) {
        if (l.m[i].target) CHECK(tb_set_filter_keeps(&s.filter, &l.m[i].mat));
        xq_material sub[XQ_MAX_SUBTABLES];
        int k = xq_material_subtables(&l.m[i].mat, sub);
        for (int j = 0; j < k; j++) {
            int found = 0;
            for (int q = 0; q < i && !found; q++) found = xq_material_equal(&l.m[q].mat, &sub[j]);
            CHECK(found);
        }
    }
    /* the filter written back parses to one that keeps the same members */
    char text[256];
    tb_set_filter_text(&s.filter, text, sizeof text);
    tb_set_spec t;
    CHECK(tb_set_spec_parse(s.name, &t, err) == 0);
    char *save = NULL;
    for (char *opt = strtok_r(text, " ", &save); opt; opt = strtok_r(NULL, " ", &save)) {
        char *value = strtok_r(NULL, " ", &save);
        CHECK(value && tb_set_filter_option(&t.filter, opt, value, err) == 1);
    }
    for (int i = 0; i < l.n; i++)
        CHECK(tb_set_filter_keeps(&t.filter, &l.m[i].mat) == tb_set_filter_keeps(&s.filter, &l.m[i].mat));
    tb_set_list_free(&l);
    return 0;
}
