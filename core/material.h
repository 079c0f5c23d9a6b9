/*
 * material.h - material signatures such as "KRKNAA": red's pieces, then
 * black's, each side starting with its king, pieces in the canonical order
 * R N C P A B.  The canonical name of a table puts the stronger side first.
 */
#ifndef XQ_MATERIAL_H
#define XQ_MATERIAL_H

#include "board.h"
#include "fen.h"

enum { XQ_MATERIAL_MAX = 36 };

typedef struct {
    uint8_t count[COLOUR_NB][KIND_NB]; /* count[colour][kind]; kings always 1 */
} xq_material;

/* Parses "KRKNAA" (also accepts H for N and E for B, any piece order).
 * Keeps the colours as written.  Returns 0, or -1 with a message. */
int xq_material_parse(const char *s, xq_material *m, char err[XQ_ERR_MAX]);
/* Writes the name in canonical piece order, colours as they are. */
void xq_material_name(const xq_material *m, char buf[XQ_MATERIAL_MAX]);
/* Material of a board. */
void xq_material_of(const xq_board *b, xq_material *m);
/* Colours swapped. */
void xq_material_flip(const xq_material *in, xq_material *out);
/* True if the colours must be swapped to reach the canonical orientation
 * (stronger side as red; ties broken by the name). */
bool xq_material_needs_flip(const xq_material *m);
/* Canonical orientation of m. */
void xq_material_canonical(const xq_material *m, xq_material *out);
/* Total pieces, kings included. */
int xq_material_pieces(const xq_material *m);
bool xq_material_equal(const xq_material *a, const xq_material *b);

/* The tables a capture leads to from m: m less one non-king piece, in
 * canonical orientation, each once (two captures may lead to one table:
 * KRKR's either rook).  Returns how many were written to out. */
enum { XQ_MAX_SUBTABLES = 12 };
int xq_material_subtables(const xq_material *m, xq_material out[XQ_MAX_SUBTABLES]);

/* Canonical piece order inside a side. */
extern const uint8_t xq_material_order[6];

#endif
