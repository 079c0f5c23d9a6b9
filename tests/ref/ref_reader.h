/*
 * ref_reader.h - a second reader of the compressed table files (.xqw, .xqd,
 * .xqc), written from docs/FORMAT.md alone, to show that the page is enough
 * to read them and to check the library's answers against.
 *
 * It shares with the generator and the library only the rules core's
 * board and legal move generation (as the reference solver does), and the
 * public header's names of the rulings (ref_reader_ruling): the
 * header, the block layout, the decoding, the symbol maps, the index
 * (layout 2), the capture rule of WDL files, the one-ply search of searched
 * entries and the search bounds are all its own, taken from the page.  It
 * is meant to be obviously right, not fast: a file is read whole when it
 * is first needed, each block decoded the first time one of its entries is
 * asked for, and every check the page lists that a whole read can make is
 * made then.  Not thread-safe.
 */
#ifndef XQ_REF_READER_H
#define XQ_REF_READER_H

#include "board.h"

typedef struct ref_reader ref_reader;

/* A reader of the files in `dirs`, a colon-separated list of directories
 * searched in order for each file (as xqtb_open's paths).  NULL if out of
 * memory. */
ref_reader *ref_reader_open(const char *dirs);
void ref_reader_close(ref_reader *r);

/* What the files say of a legal position, from its side to move's point of
 * view. */
typedef struct {
    int wdl;   /* 1, 0, -1: the WDL file, captures resolved */
    int dtm;   /* plies, for an ordinary win or loss of the DTM file; else -1 */
    int ruled; /* 0, or the map value's ruling bits: 1 + bit 1 (1 check, 2 chase) */
    int order; /* a ruled result's order, else 0 */
    int dtc;   /* with a move limit, for an ordinary result: the DTC code's distance
                * (also a cursed win's or blessed loss's, then cursed = 1); else -1 */
    int cursed;
} ref_read_value;

/* Reads b's value.  0, or -1 with a message in ref_reader_error (a missing
 * or damaged file, a symbol the page does not allow, a search that finds
 * nothing valid).  want_dtc: also the DTC (needs the .xqc files). */
int ref_reader_probe(ref_reader *r, const xq_board *b, int want_dtc, ref_read_value *v);
const char *ref_reader_error(const ref_reader *r);

/* The WDL file's value of b alone (1, 0, -1), captures resolved: 0, or -1
 * as ref_reader_probe. */
int ref_reader_wdl(ref_reader *r, const xq_board *b, int *wdl);

/* The WDL value and the DTC from the WDL and DTC files alone, as a set
 * without DTM files answers (`xqtb export --no-dtm`): v->wdl, v->dtc and
 * v->cursed as ref_reader_probe gives them, except that a result decided
 * by a ruling, which only a DTM file names, has v->ruled 1 here (the
 * ruling unknown) and no distance.  0, or -1 as ref_reader_probe. */
int ref_reader_probe_dtc(ref_reader *r, const xq_board *b, ref_read_value *v);

/* The public API's XQTB_BY_* (xqtb.h) that names v's ruling under
 * repetition rule `rules` (the header's: 4, cxa, has one ruling). */
int ref_reader_ruling(const ref_read_value *v, int rules);

/* The repetition rule and the move limit in the header of a file read so
 * far (-1 before any): what the tests compare with the library's. */
int ref_reader_rule(const ref_reader *r);
int ref_reader_limit(const ref_reader *r);

/* Recomputes the search bounds of every DTM and DTC file read so far from
 * their blocks and compares them with the files' own (docs/FORMAT.md,
 * "Search bounds").  Returns the number of files whose bounds were
 * compared, or -1 on a difference (message in ref_reader_error). */
int ref_reader_check_bounds(ref_reader *r);

#endif
