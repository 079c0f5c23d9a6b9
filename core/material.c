/*
 * material.c - material signatures.
 */
#include "material.h"

#include <stdio.h>
#include <string.h>

const uint8_t xq_material_order[6] = {ROOK, HORSE, CANNON, PAWN, ADVISOR, ELEPHANT};

/* Rough piece values used only to decide which side is named first. */
static const int kind_value[KIND_NB] = {0, 0, 2, 2, 4, 9, 5, 1};

/* The name as typed, at most 40 characters, with anything but printable
 * ASCII shown as '?', so that error messages stay one readable line. */
static const char *quote(const char *s, char buf[41])
{
    size_t n = 0;
    for (; s[n] && n < 40; n++) buf[n] = s[n] >= 0x20 && s[n] < 0x7f ? s[n] : '?';
    buf[n] = 0;
    return buf;
}

static const char *colour_word(int c) { return c == RED ? "red" : "black"; }

int xq_material_parse(const char *s, xq_material *m, char err[XQ_ERR_MAX])
{
    char q[41];
    memset(m, 0, sizeof *m);
    if (!s || !*s) {
        snprintf(err, XQ_ERR_MAX, "empty material name");
        return -1;
    }
    if (s[0] != 'K') {
        snprintf(err, XQ_ERR_MAX, "material '%s' must start with K (red's king)", quote(s, q));
        return -1;
    }
    int side = -1;
    for (const char *p = s; *p; p++) {
        int k = xq_kind_from_char(*p);
        if (k == NO_KIND) {
            if (*p >= 0x20 && *p < 0x7f)
                snprintf(err, XQ_ERR_MAX, "unknown piece letter '%c' in material '%s' (use K A B N R C P)", *p,
                         quote(s, q));
            else
                snprintf(err, XQ_ERR_MAX, "unexpected byte 0x%02x in material '%s' (use K A B N R C P)",
                         (unsigned char)*p, quote(s, q));
            return -1;
        }
        if (k == KING) {
            if (++side > 1) {
                snprintf(err, XQ_ERR_MAX, "material '%s' has more than two kings", quote(s, q));
                return -1;
            }
        }
        m->count[side][k]++;
        if (p - s > XQ_MATERIAL_MAX) {
            snprintf(err, XQ_ERR_MAX, "material name too long");
            return -1;
        }
    }
    if (side != 1) {
        snprintf(err, XQ_ERR_MAX, "material '%s' needs a K for each side, as in KRKNAA", quote(s, q));
        return -1;
    }
    for (int c = 0; c < 2; c++)
        for (int k = 1; k < KIND_NB; k++)
            if (m->count[c][k] > xq_kind_limit[k]) {
                /* Name the kind in words: "3 R" leaves the user to guess
                 * which letter was counted. */
                static const char *const kind_plural[KIND_NB] = {"",       "kings", "advisors", "elephants",
                                                                 "horses", "rooks", "cannons",  "pawns"};
                snprintf(err, XQ_ERR_MAX, "material '%s': %s has %d %s, at most %d", quote(s, q), colour_word(c),
                         m->count[c][k], kind_plural[k], xq_kind_limit[k]);
                return -1;
            }
    return 0;
}

static char *side_name(const xq_material *m, int c, char *o)
{
    *o++ = 'K';
    for (int i = 0; i < 6; i++)
        for (int n = 0; n < m->count[c][xq_material_order[i]]; n++) *o++ = "?KABNRCP"[xq_material_order[i]];
    return o;
}

void xq_material_name(const xq_material *m, char buf[XQ_MATERIAL_MAX])
{
    char *o = side_name(m, RED, buf);
    o = side_name(m, BLACK, o);
    *o = 0;
}

void xq_material_of(const xq_board *b, xq_material *m)
{
    memset(m, 0, sizeof *m);
    for (int c = 0; c < 2; c++)
        for (xq_mask o = b->occ[c]; o;) m->count[c][kind_of(b->sq[mask_pop_lsb(&o)])]++;
}

void xq_material_flip(const xq_material *in, xq_material *out)
{
    xq_material t;
    memcpy(t.count[0], in->count[1], KIND_NB);
    memcpy(t.count[1], in->count[0], KIND_NB);
    *out = t;
}

static int side_value(const xq_material *m, int c)
{
    int v = 0;
    for (int k = 0; k < KIND_NB; k++) v += kind_value[k] * m->count[c][k];
    return v;
}

/* Compares the sides piece by piece in canonical order: >0 if red is
 * "more", used to break ties in value deterministically. */
static int side_compare(const xq_material *m)
{
    for (int i = 0; i < 6; i++) {
        int k = xq_material_order[i];
        if (m->count[RED][k] != m->count[BLACK][k]) return m->count[RED][k] - m->count[BLACK][k];
    }
    return 0;
}

bool xq_material_needs_flip(const xq_material *m)
{
    int d = side_value(m, RED) - side_value(m, BLACK);
    if (d) return d < 0;
    return side_compare(m) < 0;
}

void xq_material_canonical(const xq_material *m, xq_material *out)
{
    if (xq_material_needs_flip(m))
        xq_material_flip(m, out);
    else
        *out = *m;
}

int xq_material_pieces(const xq_material *m)
{
    int n = 0;
    for (int c = 0; c < 2; c++)
        for (int k = 1; k < KIND_NB; k++) n += m->count[c][k];
    return n;
}

bool xq_material_equal(const xq_material *a, const xq_material *b)
{
    return memcmp(a->count, b->count, sizeof a->count) == 0;
}

int xq_material_subtables(const xq_material *m, xq_material out[XQ_MAX_SUBTABLES])
{
    int n = 0;
    for (int c = 0; c < 2; c++)
        for (int k = ADVISOR; k < KIND_NB; k++) {
            if (!m->count[c][k]) continue;
            xq_material s = *m;
            s.count[c][k]--;
            xq_material_canonical(&s, &s);
            int seen = 0;
            for (int i = 0; i < n && !seen; i++) seen = xq_material_equal(&out[i], &s);
            if (!seen) out[n++] = s;
        }
    return n;
}
