/*
 * example_probe.c - how an engine probes xqtb tables: a complete program
 * to copy from.  It uses only the installed header and library.
 *
 * Build against an installed libxqtb (`make install PREFIX=...`):
 *
 *   cc -o example_probe example_probe.c $(pkg-config --cflags --libs xqtb)
 *
 * (with PKG_CONFIG_PATH=PREFIX/lib/pkgconfig if PREFIX is not a system
 * one, and LD_LIBRARY_PATH=PREFIX/lib to run it; or link the static
 * library: add --static to pkg-config and link PREFIX/lib/libxqtb.a.)
 *
 * Run:
 *
 *   ./example_probe TABLE_DIR[:DIR...] "FEN"
 *
 * e.g. after `xqtb gen -d tables KRK`:
 *
 *   ./example_probe tables "3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1"
 *
 * It prints the position's material, its value (win/draw/loss for the side
 * to move, and the distance to mate in plies) and every legal move with the
 * value it leads to, best first.  Exit status: 0 answered, 1 no table for
 * this material, 2 bad arguments or FEN, 3 a table file could not be used.
 */
#include <stdio.h>
#include <stdlib.h>

#include <xqtb.h>

static const char *wdl_word(int wdl) { return wdl == XQTB_WIN ? "win" : wdl == XQTB_LOSS ? "loss" : "draw"; }

/* Maps a failed probe's status to a message and an exit status. */
static int failed(const char *what, const xqtb_position *pos, int status)
{
    char material[40] = "?";
    xqtb_material_name(pos, material);
    fprintf(stderr, "example_probe: %s %s: %s\n", what, material, xqtb_status_string(status));
    return status == XQTB_ERR_NO_TABLE ? 1 : status == XQTB_ERR_INVALID ? 2 : 3;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: example_probe TABLE_DIR[:DIR...] FEN\n");
        return 2;
    }

    /* The library linked must be the one the header describes (a check
     * worth keeping when linking a shared library). */
    if (xqtb_version_number() / 100 != XQTB_VERSION_NUMBER / 100) {
        fprintf(stderr, "example_probe: libxqtb %d, header %d\n", xqtb_version_number(), XQTB_VERSION_NUMBER);
        return 3;
    }

    /* 1. Open the tables once, when the engine starts.  Only the directory
     *    listings are read now; each file is mapped and checked the first
     *    time a probe needs it.  The cache holds decompressed blocks; 0
     *    (or opt = NULL) means the default, 64 MiB. */
    xqtb_status status;
    xqtb_options opt = {.cache_bytes = 16u << 20};
    xqtb_handle *tb = xqtb_open(argv[1], &opt, &status);
    if (!tb) {
        fprintf(stderr, "example_probe: cannot open tables: %s\n", xqtb_status_string(status));
        return 3;
    }

    /* 2. The position.  An engine would fill xqtb_position from its own
     *    board (see "Conventions" in xqtb.h) instead of parsing a FEN. */
    xqtb_position pos;
    char err[XQTB_ERR_MAX];
    if (xqtb_position_from_fen(argv[2], &pos, err) != XQTB_OK) {
        fprintf(stderr, "example_probe: bad FEN: %s\n", err);
        xqtb_close(tb);
        return 2;
    }

    /* 3. A cheap filter before probing inside a search: positions with more
     *    pieces than the largest table are never covered. */
    int pieces = 0;
    for (int sq = 0; sq < 90; sq++) pieces += pos.board[sq] != 0;
    char material[40];
    xqtb_material_name(&pos, material);
    printf("material: %s (%d pieces, tables up to %d)\n", material, pieces, xqtb_largest(tb));

    /* 4. Win/draw/loss: what a search needs at its leaves.  It reads only
     *    the small .xqw file.  Values are for the side to move; every
     *    function returns XQTB_OK or a negative status, and values come back
     *    through pointers. */
    xqtb_wdl wdl;
    int dtm, rc = xqtb_probe_wdl(tb, &pos, &wdl);
    if (rc != XQTB_OK) {
        int code = failed("WDL", &pos, rc);
        xqtb_close(tb);
        return code;
    }
    printf("wdl: %s\n", wdl_word(wdl));

    /* 5. Distance to mate, in plies, from the .xqd file: 0 for draws and for
     *    a side with no legal move (it has lost). */
    rc = xqtb_probe_dtm(tb, &pos, &wdl, &dtm);
    if (rc != XQTB_OK) {
        int code = failed("DTM", &pos, rc);
        xqtb_close(tb);
        return code;
    }
    /* XQTB_NO_DISTANCE: a draw, or a result only a repetition ruling decides */
    if (dtm == XQTB_NO_DISTANCE)
        printf("dtm: none\n");
    else
        printf("dtm: %d\n", dtm);

    /* 6. At the root: every legal move with the value it leads to, best
     *    first (wins by shortest distance, then draws, then losses by
     *    longest).  Playing moves[0].move keeps the best result; its dtm
     *    equals the position's.  Moves that capture need the smaller table
     *    they lead to (KRK needs KK). */
    xqtb_root_move moves[XQTB_MAX_MOVES];
    int n = xqtb_probe_root(tb, &pos, moves);
    if (n < 0) {
        int code = failed("root moves of", &pos, n);
        xqtb_close(tb);
        return code;
    }
    printf("moves: %d\n", n);
    for (int i = 0; i < n; i++) {
        char name[5]; /* ICCS, e.g. "a0a8" */
        xqtb_move_name(moves[i].move, name);
        if (moves[i].dtm == XQTB_NO_DISTANCE)
            printf("  %s %s none\n", name, wdl_word(moves[i].wdl));
        else
            printf("  %s %s %d\n", name, wdl_word(moves[i].wdl), (int)moves[i].dtm);
    }

    /* 7. Release the mappings and the cache when the engine exits. */
    xqtb_close(tb);
    return 0;
}
