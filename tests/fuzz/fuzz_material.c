/*
 * fuzz_material.c - libFuzzer target for xq_material_parse.
 *
 * A rejected name must come with a one-line printable message; an accepted
 * one must give counts within the game's limits, a name that parses back to
 * the same material, and a canonical orientation that is a fixed point and
 * the same for both colour orientations.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "material.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char s[128];
    if (size >= sizeof s) return 0;
    memcpy(s, data, size);
    s[size] = 0;

    xq_material m;
    char err[XQ_ERR_MAX];
    memset(err, 'x', sizeof err);
    if (xq_material_parse(s, &m, err)) {
        size_t len = strnlen(err, XQ_ERR_MAX);
        CHECK(len > 0 && len < XQ_ERR_MAX);
        for (size_t i = 0; i < len; i++) CHECK(err[i] >= 0x20 && err[i] < 0x7f);
        return 0;
    }
    for (int c = 0; c < COLOUR_NB; c++) {
        CHECK(m.count[c][KING] == 1);
        CHECK(m.count[c][NO_KIND] == 0);
        for (int k = 1; k < KIND_NB; k++) CHECK(m.count[c][k] <= xq_kind_limit[k]);
    }
    CHECK(xq_material_pieces(&m) >= 2 && xq_material_pieces(&m) <= 32);

    char name[XQ_MATERIAL_MAX], name2[XQ_MATERIAL_MAX];
    xq_material_name(&m, name);
    CHECK(strlen(name) == (size_t)xq_material_pieces(&m));
    xq_material back;
    CHECK(xq_material_parse(name, &back, err) == 0);
    CHECK(xq_material_equal(&m, &back));
    xq_material_name(&back, name2);
    CHECK(strcmp(name, name2) == 0);

    xq_material f, ff, c1, c2, cc;
    xq_material_flip(&m, &f);
    xq_material_flip(&f, &ff);
    CHECK(xq_material_equal(&m, &ff));
    xq_material_canonical(&m, &c1);
    xq_material_canonical(&f, &c2);
    CHECK(xq_material_equal(&c1, &c2));
    xq_material_canonical(&c1, &cc);
    CHECK(xq_material_equal(&c1, &cc));
    CHECK(!xq_material_needs_flip(&c1));
    return 0;
}
