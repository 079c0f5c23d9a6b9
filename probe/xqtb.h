/*
 * xqtb.h - the public interface of libxqtb, Xiangqi endgame tablebases.
 *
 * One header, plain C11.  Link with -lxqtb (pkg-config --libs xqtb).
 *
 * Conventions
 *   - Squares are 0..89, square = rank * 9 + file, file a..i = 0..8,
 *     rank 0..9; red starts on ranks 0-4 (UCCI/ICCS: a0 is red's left
 *     corner, e0 red's king).
 *   - Pieces in xqtb_position.board: 0 empty; red king 1, advisor 2,
 *     elephant 3, horse 4, rook 5, cannon 6, pawn 7; black the same values
 *     negated.
 *   - Moves are uint16_t: from square in bits 0-6, to square in bits 7-13.
 *     0 is never a move.
 *   - Functions that can fail return XQTB_OK (0) or a negative xqtb_status
 *     (typed xqtb_status where that is all they return; int where a count
 *     comes back the same way); the values of int fields and out-parameters
 *     are those of the enums named beside them (xqtb_wdl, xqtb_wdl5,
 *     xqtb_ruling, xqtb_rule_set, xqtb_pv_end);
 *     values come back through out-parameters, so an error can never be
 *     mistaken for a result.
 *   - A NULL pointer argument is never dereferenced: each function says
 *     what it does with one (mostly XQTB_ERR_INVALID, with nothing
 *     written); an err buffer may always be NULL.
 *
 * Thread safety: every function here may be called from any thread at the
 * same time, with distinct output buffers.
 */
#ifndef XQTB_H
#define XQTB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define XQTB_VERSION_MAJOR 0
#define XQTB_VERSION_MINOR 16
#define XQTB_VERSION_PATCH 0
#define XQTB_VERSION_NUMBER (XQTB_VERSION_MAJOR * 10000 + XQTB_VERSION_MINOR * 100 + XQTB_VERSION_PATCH)

/* Version of the library actually linked (compare with XQTB_VERSION_NUMBER). */
int xqtb_version_number(void);

/* ---- Status codes --------------------------------------------------- */
typedef enum {
    XQTB_OK = 0,
    XQTB_ERR_INVALID = -1,     /* malformed input: bad FEN, illegal position */
    XQTB_ERR_NO_TABLE = -2,    /* no table for this material in the search path */
    XQTB_ERR_NOT_COVERED = -3, /* position outside what the tables cover */
    XQTB_ERR_CORRUPT = -4,     /* table file damaged (checksum, header, bounds), or
                                * changed in place after the handle opened it */
    XQTB_ERR_MISMATCH = -5,    /* table built under other rules or format version */
    XQTB_ERR_IO = -6,          /* a file could not be opened, mapped or read */
    XQTB_ERR_NOMEM = -7
} xqtb_status;

/* Short English description of a status ("table file damaged", ...). */
const char *xqtb_status_string(int status);

/* ---- Positions ------------------------------------------------------ */
enum { XQTB_RED = 0, XQTB_BLACK = 1 };
/* Piece codes of xqtb_position.board: red as here, black negated. */
enum {
    XQTB_EMPTY = 0,
    XQTB_KING = 1,
    XQTB_ADVISOR = 2,
    XQTB_ELEPHANT = 3,
    XQTB_HORSE = 4,
    XQTB_ROOK = 5,
    XQTB_CANNON = 6,
    XQTB_PAWN = 7
};
/* Buffer sizes, terminating NUL included: a FEN, an error message, a move
 * list, a move's name ("h2e2"), a material name ("KRAABBKNAABB"). */
enum { XQTB_FEN_MAX = 128, XQTB_ERR_MAX = 160, XQTB_MAX_MOVES = 128, XQTB_MOVE_NAME_MAX = 5, XQTB_MATERIAL_MAX = 40 };

typedef struct {
    int8_t board[90]; /* see Conventions */
    uint8_t side;     /* XQTB_RED or XQTB_BLACK to move */
} xqtb_position;

/* Parses a FEN (UCCI dialect, "... w - - 0 1") into pos and validates it
 * (one king each, piece counts, piece squares, kings not facing, side not to
 * move not in check).
 * RETURN: XQTB_OK, or XQTB_ERR_INVALID with a one-line reason in err (err may
 * be NULL), pos untouched.  A NULL fen or pos is XQTB_ERR_INVALID ("null
 * FEN", "null position"). */
xqtb_status xqtb_position_from_fen(const char *fen, xqtb_position *pos, char err[XQTB_ERR_MAX]);

/* Writes the canonical FEN of pos into buf.
 * RETURN: XQTB_OK, or XQTB_ERR_INVALID (buf untouched) if pos is not a valid
 * position or pos or buf is NULL. */
xqtb_status xqtb_position_to_fen(const xqtb_position *pos, char buf[XQTB_FEN_MAX]);

/* Checks pos as xqtb_position_from_fen does.  RETURN: XQTB_OK or
 * XQTB_ERR_INVALID with the reason in err (err may be NULL); a NULL pos is
 * XQTB_ERR_INVALID ("null position"). */
xqtb_status xqtb_position_validate(const xqtb_position *pos, char err[XQTB_ERR_MAX]);

/* ---- Moves ---------------------------------------------------------- */
/* Writes the legal moves of the side to move into moves.
 * RETURN: the number of moves (0: the side to move has lost, by checkmate or
 * stalemate), or XQTB_ERR_INVALID if pos is not valid or pos or moves is
 * NULL. */
int xqtb_legal_moves(const xqtb_position *pos, uint16_t moves[XQTB_MAX_MOVES]);

/* Plays a legal move.  RETURN: XQTB_OK, or XQTB_ERR_INVALID (pos unchanged)
 * if pos is invalid or NULL or the move is not legal in it. */
xqtb_status xqtb_play(xqtb_position *pos, uint16_t move);

/* A move's squares, and the move from two squares (0..89 each; see
 * Conventions).  Engines that pack from and to the other way round convert
 * with these. */
static inline int xqtb_move_from(uint16_t move) { return move & 0x7F; }
static inline int xqtb_move_to(uint16_t move) { return (move >> 7) & 0x7F; }
static inline uint16_t xqtb_make_move(int from, int to) { return (uint16_t)((from & 0x7F) | (to & 0x7F) << 7); }

/* Whether the side to move is in check.  RETURN: 1 or 0, or
 * XQTB_ERR_INVALID if pos is not valid or NULL. */
int xqtb_in_check(const xqtb_position *pos);

/* ICCS name of a move ("h2e2") into buf ("0000" for a move off the board;
 * nothing if buf is NULL); parse is the inverse.
 * xqtb_move_parse RETURN: the move, or 0 if the text is malformed or NULL
 * (it does not check legality). */
void xqtb_move_name(uint16_t move, char buf[XQTB_MOVE_NAME_MAX]);
uint16_t xqtb_move_parse(const char *text);

/* Repetition rule sets, as recorded in table files and accepted by
 * xqtb_judge_repetition and xqtb_label_move_rules.  ASIAN and CXA are the
 * arbiters' rule sets (docs/RULES.md, "Rule sets for arbiters"): they
 * label moves closer to the rule books than FULL does. */
typedef enum {
    XQTB_RULES_NONE = 0,
    XQTB_RULES_CHECK = 1,
    XQTB_RULES_FULL = 2,
    XQTB_RULES_ASIAN = 3, /* FULL, with the chases of checking moves and chases made real counted */
    XQTB_RULES_CXA = 4    /* any perpetual attack (check, mate threat, chase) loses */
} xqtb_rule_set;
/* Which ruling decided a result.  Tables built under NONE, CHECK or FULL
 * record the first three; in a table built under CXA every ruled result is
 * XQTB_BY_PERPETUAL_ATTACK (the loser must check, threaten mate or chase on
 * every move, in whatever mix); verdicts under XQTB_RULES_CXA name the kind
 * (XQTB_BY_PERPETUAL_THREAT, _ATTACK for a mix with chases).  The ruling is
 * recorded in DTM files only: root moves valued from the WDL and DTC files
 * say XQTB_BY_RULING (since 0.15.0). */
typedef enum {
    XQTB_BY_NONE = 0,
    XQTB_BY_PERPETUAL_CHECK = 1,
    XQTB_BY_PERPETUAL_CHASE = 2,
    XQTB_BY_PERPETUAL_THREAT = 3, /* mate threats, or checks and mate threats (长杀, 一将一杀) */
    XQTB_BY_PERPETUAL_ATTACK = 4, /* chases mixed with checks or mate threats (一将一捉, 一杀一捉) */
    XQTB_BY_RULING = 5            /* one of the rulings, which one not known: a root move
                                   * valued without the DTM files (xqtb_probe_root) */
} xqtb_ruling;

/* ---- Repetitions in a played game -----------------------------------
 * How an arbiter judges a repetition that has happened (docs/RULES.md,
 * "Judging a played repetition"), with no table needed: any position,
 * middlegames included. */

/* A move's label for the repetition rulings (docs/RULES.md, "Move
 * labels"): whether it checks, else the squares (after the move) of the
 * enemy pieces it chases; a move that does neither is idle. */
typedef struct {
    uint8_t check;      /* 1 if the move checks (it then chases nothing) */
    uint8_t nchased;    /* number of squares in chased */
    uint8_t chased[16]; /* squares 0..89 of the chased pieces, ascending */
} xqtb_label;

/* Labels a legal move of pos, as the tables' rule sets do.  RETURN:
 * XQTB_OK, or XQTB_ERR_INVALID if pos is invalid, the move not legal in it,
 * or an argument NULL. */
xqtb_status xqtb_label_move(const xqtb_position *pos, uint16_t move, xqtb_label *label);

/* Labels a legal move of pos as rule set `rules` does: under
 * XQTB_RULES_ASIAN and XQTB_RULES_CXA a checking move also lists what it
 * chases, and so does a move that makes an attack that stood into a chase
 * (it pins or blocks the protector, or frees the attacker: docs/RULES.md,
 * "A chase made real"), and under XQTB_RULES_CXA *threat (if threat is not NULL) is 1
 * for a move that does not check but threatens mate: were the opponent to
 * pass, the mover could mate by consecutive checks within 3 moves (0
 * otherwise, and under every other rule set).  RETURN: as xqtb_label_move,
 * and XQTB_ERR_INVALID for an unknown rule set. */
xqtb_status xqtb_label_move_rules(const xqtb_position *pos, uint16_t move, xqtb_rule_set rules, xqtb_label *label,
                                  uint8_t *threat);

typedef enum {
    XQTB_NO_REPETITION = 0, /* the final position did not stand before */
    XQTB_REPETITION_DRAW = 1,
    XQTB_RED_LOSES = 2,
    XQTB_BLACK_LOSES = 3
} xqtb_verdict;

typedef struct {
    xqtb_verdict verdict;
    xqtb_ruling by_rule;   /* the ruling a losing side broke: perpetual check
                            * or perpetual chase; XQTB_BY_NONE otherwise */
    int first;             /* the repeating part: moves[first..n), from the
                            * first time the final position stood (-1 if none) */
    int occurrences;       /* times the final position has stood, this one included */
    uint8_t checks_all[2]; /* per colour: checked on every move of the part */
    uint8_t chases_all[2]; /* per colour: chased one same piece throughout;
                            * under XQTB_RULES_CXA: checked, threatened mate
                            * or chased on every move (a perpetual attack) */
} xqtb_repetition;

/* Judges the repetition a game ends in: the game from start through
 * moves[0..n) under rule set `rules`.  If the final position (board and
 * side to move) stood before, the moves since its first occurrence are
 * the repeating part, judged per side over the whole of it: a side that
 * checked on every one of its moves while the other did not loses; under
 * XQTB_RULES_FULL, failing that, a side that chased one same enemy piece
 * on every one of its moves loses unless the other side did too;
 * anything else (and everything under XQTB_RULES_NONE) is a draw.
 * XQTB_RULES_ASIAN judges as FULL with the chases of checking moves and
 * chases made real counted (docs/RULES.md, "A chase made real"), as
 * XQTB_RULES_CXA's labels do too; under XQTB_RULES_CXA a side that attacked (checked, threatened
 * mate or chased) on every one of its moves loses unless the other side
 * did too.
 * RETURN: XQTB_OK with *out set (verdict XQTB_NO_REPETITION when the game
 * does not end in a repetition); XQTB_ERR_INVALID if start is invalid, a
 * move is not legal where it is played, n is negative or an argument NULL
 * (moves may be NULL when n is 0); XQTB_ERR_NOMEM. */
xqtb_status xqtb_judge_repetition(const xqtb_position *start, const uint16_t *moves, int n, xqtb_rule_set rules,
                                  xqtb_repetition *out);

/* Number of leaf nodes of the legal move tree of depth `depth` (perft;
 * depth 0 or less counts the position itself, 1), or 0 if pos is invalid or
 * NULL or depth is above XQTB_PERFT_MAX_DEPTH.  Single-threaded. */
#define XQTB_PERFT_MAX_DEPTH 64
uint64_t xqtb_perft(const xqtb_position *pos, int depth);

/* ---- Tablebases ------------------------------------------------------
 * A handle covers the table files (NAME.xqw for WDL, NAME.xqd for DTM,
 * NAME.xqc for DTC under a move limit) found in a list of directories when
 * it was opened.  xqtb_open checks one file fully (the first sound one of
 * the smallest material) to settle the rule set and move limit; every
 * other file is opened and its header and metadata checked lazily, on the
 * first probe that needs it.  A small file is then read
 * into memory whole (xqtb_options.whole_file_bytes); a larger one is held
 * open (one file descriptor per file in use) until xqtb_close and its
 * blocks are read with pread when first needed.  Every block is checked
 * against its checksum and kept decompressed in a bounded cache owned by
 * the handle, except those of a WDL file of at most 2^20 entries a side
 * read whole: such a file (at most 512 KiB decoded) is decoded and checked
 * whole when first opened and held decoded, so that no probe of it decodes
 * anything; one damaged block then refuses all of it (docs/FORMAT.md,
 * "Small WDL files").
 *
 * Memory beside the cache: the files read whole (see
 * xqtb_options.whole_file_bytes), and a DTM or DTC file that stores one side to move
 * and finds the other by a one-ply search (the default files) holds its
 * search bounds decoded from its first probe until xqtb_close, 0.19 bytes
 * per entry of a side in a DTM file and 0.03 in a DTC file (docs/FORMAT.md,
 * "Search bounds"), and, where more than half of the searched side's blocks
 * are the same bytes (mostly "search"), one such block decoded (at most
 * 8 KiB), which probes of those blocks read instead.  Every DTM and DTC
 * file of the 226 tables of up to 5 pieces open at once: about 206 and 35
 * MB of bounds, beside the files themselves (134 and 115 MB), which the
 * defaults read whole: 497 MB in all with the WDL files, 273 MB with every
 * file read by block (docs/BENCHMARKS.md, "What a handle holds beside its
 * cache").  A DTC probe of a table whose DTM file the handle has not
 * opened holds a summary of that file's bounds instead, two bits per 16
 * entries of a side (0.016 bytes an entry): a handle that makes only
 * xqtb_probe_wdl_counter probes of every table of the 5-piece set holds
 * 196 MB beside its cache (77 MB by block), against 175 MB (56 MB) without
 * the DTM files in its directories.
 *
 * Updating tables under a running engine.  Never write into a table file
 * the handle may have open (cp over it, truncate, edit in place): the
 * handle notices a file read by block that changed under it (a block
 * whose checksum no longer matches, or a short read, with its size, inode
 * or time changed) and from then on answers XQTB_ERR_CORRUPT for every
 * probe of that file, never a signal or a value from the new content, but
 * nothing useful either.  (A file read whole keeps answering from what was
 * read.)  To update:
 * write each new file under another name in the same directory, rename it
 * over the old name (rename is atomic; `xqtb gen` does exactly this), then
 * close the handle and open a new one.  Until then the open handle keeps
 * answering, consistently, from the files it opened.
 *
 * Values are from the side to move's point of view:
 *   wdl  XQTB_WIN, XQTB_DRAW or XQTB_LOSS (negate to see the other side);
 *   dtm  plies to the end of the game with best play (winner shortest,
 *        loser longest); 0 for a side with no legal move (it has lost:
 *        checkmate and stalemate alike).
 * Every distance (dtm, dtc) that does not exist, for a draw, for a result
 * only a repetition ruling decides, for a DTC without a move limit, is
 * XQTB_NO_DISTANCE, in every function and struct alike.
 * Repetitions are judged by the rule set each table was built under
 * (docs/RULES.md): under "check" a side that checks perpetually loses,
 * under "full" (the default of `xqtb gen`) perpetual chasing loses too,
 * under "none" every repetition is a draw, under "asian" as under "full"
 * with the chases of checking moves counted, under "cxa" a side that attacks
 * (checks, threatens mate or chases) on every move loses.  A result that only a ruling
 * decides has no distance to mate: xqtb_probe reports which ruling and its
 * order.  Values assume no earlier history; at the root, an engine that
 * has already repeated positions passes its game to xqtb_probe_root_ex,
 * which judges a move completing a repetition as the arbiter will
 * (xqtb_judge_repetition).
 * Tables built with a move limit (`xqtb gen --limit`, default 120 plies)
 * also answer under it, given the plies since the last capture: see
 * xqtb_probe_counter.  One handle answers under one rule set and one move
 * limit, known as soon as xqtb_open returns (xqtb_rules, xqtb_limit): the
 * first sound file in the handle's order (materials from the smallest,
 * then WDL, DTM, DTC) fixes them (xqtb_options.require_rules may require the
 * rule set), and a table built otherwise is refused (XQTB_ERR_MISMATCH).
 *
 * Thread safety: after xqtb_open returns, any number of threads may probe
 * the same handle at once.  xqtb_close must not run concurrently with any
 * other call on that handle. */
typedef enum { XQTB_LOSS = -1, XQTB_DRAW = 0, XQTB_WIN = 1 } xqtb_wdl;

/* A distance that does not exist (see above). */
enum { XQTB_NO_DISTANCE = -1 };

typedef struct xqtb_handle xqtb_handle;

typedef struct {
    /* Decompressed-block cache; 0 = 64 MiB.  Beside it, each of the cache's
     * 16 shards keeps one compressed block being read and, once it has
     * decoded a Zstandard block, a decoding context (about 95 KiB). */
    size_t cache_bytes;
    /* 0: the rule set of the first table opened, every other must match;
     * 1 + XQTB_RULES_x: exactly that rule set (any of the five). */
    int require_rules;
    /* Files of at most this many bytes are read into memory whole when
     * first opened, so that a block missing from the cache costs no system
     * call; larger ones are read block by block.  0 = WDL files up to
     * 8 MiB (every table of up to 5 pieces: KRNKR's is 1.5 MB, the whole
     * set's 19 MB), and DTM and DTC files up to 16 MiB as long as those
     * the handle holds come to at most 256 MiB, the first opened first
     * (the 5-piece set's are 249 MB); 1 = read every file by block.  A
     * file read whole is held until xqtb_close, beside the cache, and a
     * small WDL file among them decoded (512 KiB at most; see above): 1
     * turns that off too. */
    size_t whole_file_bytes;
} xqtb_options;

/* Opens the tables in `paths`, a colon-separated list of directories
 * (empty entries are ignored; a directory whose name holds ':' cannot be
 * named, which is why `xqtb gen` refuses to write into one).  It reads the
 * directory listings and checks one file fully, the first sound one, which
 * settles the rule set and move limit (see above).
 * PARAMETERS: opt may be NULL for defaults; status may be NULL.
 * RETURN: a handle (possibly covering no table: see xqtb_table_count), or
 * NULL with *status set to XQTB_ERR_NOMEM or XQTB_ERR_INVALID (NULL paths). */
xqtb_handle *xqtb_open(const char *paths, const xqtb_options *opt, xqtb_status *status);

/* Releases the handle, its mappings and its cache.  NULL is allowed. */
void xqtb_close(xqtb_handle *h);

/* Number of materials with at least one table file (WDL, DTM or DTC)
 * under the handle (0 for a NULL handle). */
int xqtb_table_count(const xqtb_handle *h);

/* Most pieces (both kings included) in any table of the handle, 0 if none
 * or h is NULL: a position with more pieces is never covered. */
int xqtb_largest(const xqtb_handle *h);

/* Whether the handle has a WDL table for pos's material (either
 * colouring): no lock, no file read, a few nanoseconds, for a search to
 * ask before it probes.  Trusts pos to be a legal position (it only counts
 * the pieces): an illegal one gets an unspecified answer, never a crash.
 * RETURN: 1 or 0 (0 also for a NULL handle or position). */
int xqtb_covered(const xqtb_handle *h, const xqtb_position *pos);

/* The same from piece counts, as an engine keeps them: counts[colour][piece]
 * for colour XQTB_RED or XQTB_BLACK and piece XQTB_ADVISOR .. XQTB_PAWN
 * (indexes 0 and XQTB_KING are ignored).  RETURN: 1 or 0 (0 also if a
 * count is above what the game allows, or for NULL arguments). */
int xqtb_covered_counts(const xqtb_handle *h, const uint8_t counts[2][8]);

/* Win/draw/loss of a position.
 * RETURN: XQTB_OK with *wdl set; XQTB_ERR_INVALID (position invalid, or h,
 * pos or wdl NULL: so for every probe below and its out-parameters),
 * XQTB_ERR_NO_TABLE (no WDL file for its material), XQTB_ERR_CORRUPT,
 * XQTB_ERR_MISMATCH (file built under other rules or format),
 * XQTB_ERR_IO or XQTB_ERR_NOMEM.  *wdl is untouched on error.
 * NOTES: the warm path (block in cache) takes one lock and allocates
 * nothing.  A WDL file leaves positions whose value a capture reaches to
 * a search over the captures (docs/FORMAT.md, "Captures in WDL files"):
 * a probe may look up the WDL files of the tables captures lead to, so
 * install them too (XQTB_ERR_NO_TABLE if one of them is missing). */
xqtb_status xqtb_probe_wdl(xqtb_handle *h, const xqtb_position *pos, xqtb_wdl *wdl);

/* As xqtb_probe_wdl, for a search that guarantees pos is a legal position
 * (as a move generator's positions are): the checks xqtb_position_validate
 * makes are skipped (pieces on their points, kings not facing, the side not
 * to move not in check), which is most of a warm probe's cost.  What keeps
 * the library in bounds is still checked: piece codes, one king a side,
 * the side to move.  An illegal position gets an unspecified value or
 * XQTB_ERR_INVALID, never a crash or a read outside the tables.
 * RETURN: as xqtb_probe_wdl. */
xqtb_status xqtb_probe_wdl_trusted(xqtb_handle *h, const xqtb_position *pos, xqtb_wdl *wdl);

/* Win/draw/loss and distance to mate, from the DTM file.  *dtm is
 * XQTB_NO_DISTANCE for a draw and for a result decided by a repetition
 * ruling (see xqtb_probe).
 * RETURN: as xqtb_probe_wdl (XQTB_ERR_NO_TABLE if the DTM file is missing,
 * or the DTM file of a table a capture leads to: see below).
 * NOTES: DTM and DTC files store one side to move's entries only where a
 * one-ply search cannot find them (docs/FORMAT.md, "Searched entries"),
 * which halves their size or better.  A position of that side is found
 * from its legal moves' results, which needs the files of the same kind of
 * every table a capture leads to (and for DTC their WDL files).  Guided
 * by the file's search bounds (docs/FORMAT.md, "Search bounds"), a search
 * reads only the moves that can decide it: a DTM search one to three
 * blocks for an ordinary result, the position's WDL value where those do
 * not settle it, none for a draw, more for a result decided by a ruling; a
 * DTC search also tells its moves' results from the table's DTM file (its
 * bounds, or a summary of them, and what the DTM search of the same
 * position read).  `xqtb gen --store-both` writes files that never
 * search. */
xqtb_status xqtb_probe_dtm(xqtb_handle *h, const xqtb_position *pos, xqtb_wdl *wdl, int *dtm);

/* Results under the natural move limit (docs/RULES.md, "The move limit"),
 * for a given count of plies since the last capture: a win that cannot be
 * converted (a capture that keeps it, or mate) in the plies left is a
 * cursed win, and the loss it stands against a blessed loss. */
typedef enum {
    XQTB_WDL5_LOSS = -2,
    XQTB_WDL5_BLESSED_LOSS = -1,
    XQTB_WDL5_DRAW = 0,
    XQTB_WDL5_CURSED_WIN = 1,
    XQTB_WDL5_WIN = 2
} xqtb_wdl5;

/* Everything the DTM file (and the DTC file, with a move limit) knows
 * about a position. */
typedef struct {
    xqtb_wdl wdl;        /* XQTB_WIN, XQTB_DRAW or XQTB_LOSS, ignoring the move limit */
    int dtm;             /* plies to mate for ordinary wins and losses, else XQTB_NO_DISTANCE */
    xqtb_ruling by_rule; /* XQTB_BY_NONE, or the ruling that decides the result */
    int order;           /* for a ruled result, its order (docs/RULES.md): 1 when
                          * the loser's only escapes are perpetual checks (chases);
                          * k when they are those or positions of order below k */
    int dtc;             /* plies to conversion (docs/RULES.md), XQTB_NO_DISTANCE
                          * without a move limit and for draws and ruled results; for a cursed win
                          * or blessed loss from a fresh counter, the plies to the
                          * next capture that keeps a win at all */
    xqtb_wdl5 wdl5;      /* XQTB_WDL5_*: wdl under the move limit at the counter
                          * given (xqtb_probe: 0); 2 * wdl without a limit */
} xqtb_result;

/* RETURN: as xqtb_probe_dtm (XQTB_ERR_NO_TABLE also if the tables have a
 * move limit and the DTC file is missing). */
xqtb_status xqtb_probe(xqtb_handle *h, const xqtb_position *pos, xqtb_result *r);

/* As xqtb_probe, with rule_counter plies played since the last capture
 * (FEN field 5 in most records).  XQTB_ERR_INVALID if it is negative; a
 * counter above the tables' limit counts as the limit reached (a game can
 * run past it when no draw is claimed): every win not yet converted is
 * then a cursed win. */
xqtb_status xqtb_probe_counter(xqtb_handle *h, const xqtb_position *pos, int rule_counter, xqtb_result *r);

/* Five-valued WDL (XQTB_WDL5_*) at rule_counter, from the WDL file and,
 * for a decided position under a move limit, the DTC file: what a search
 * needs.  RETURN: as xqtb_probe_counter.
 * NOTES: only as much of the DTC is read as the answer needs.  At
 * rule_counter 0 (as right after the capture that enters a table) a
 * position of a file's searched side needs no DTC search: such an entry is
 * never a cursed win or a blessed loss (docs/FORMAT.md, "Searched
 * entries"), so its WDL decides.  At a later counter it takes a one-ply
 * search (see xqtb_probe_dtm), which stops once it knows whether the DTC
 * fits in the plies left, and which also reads what the table's DTM file's
 * search bounds say, where there is one (a summary of them, if the handle
 * has not opened that file: its memory as above).  A stored entry whose
 * group of 64 holds only distances all within the plies left, or all
 * beyond them, is answered from the file's search bounds without a block. */
xqtb_status xqtb_probe_wdl_counter(xqtb_handle *h, const xqtb_position *pos, int rule_counter, xqtb_wdl5 *wdl5);

/* The distance to conversion alone: *wdl5 as xqtb_probe_wdl_counter, and
 * *dtc as xqtb_result.dtc (XQTB_NO_DISTANCE for a draw, a result decided
 * by a ruling, or tables without a move limit), from the WDL and DTC files
 * only: what an engine playing under the move limit ranks its moves by,
 * without the DTM xqtb_probe computes as well.  RETURN: as
 * xqtb_probe_wdl_counter; it needs no DTM file (XQTB_ERR_NO_TABLE only for
 * a missing WDL or DTC file, of this table or of one a capture leads to).
 * NOTES: the exact DTC, so a position of a file's searched side takes a
 * whole search (see xqtb_probe_dtm) at any counter; where the counter is
 * all a caller needs, xqtb_probe_wdl_counter reads less. */
xqtb_status xqtb_probe_dtc(xqtb_handle *h, const xqtb_position *pos, int rule_counter, xqtb_wdl5 *wdl5, int *dtc);

/* Move limit in plies the handle's tables were built for (0: none), as
 * settled when the handle was opened; -1 if it holds no sound file (and
 * for a NULL handle). */
int xqtb_limit(const xqtb_handle *h);

/* Rule set of the tables this handle answers from, as settled when it was
 * opened; if it holds no sound file, the rule set xqtb_options required, or
 * -1 (also for a NULL handle). */
int xqtb_rules(const xqtb_handle *h);

/* One legal move with the value it leads to, from the mover's point of
 * view: wdl XQTB_WIN if playing it keeps a win, and dtm the plies to the end
 * from the position before the move (so the best move's dtm equals the
 * position's). */
typedef struct {
    uint16_t move;
    int8_t wdl;
    int8_t wdl5;       /* XQTB_WDL5_* under the move limit (xqtb_probe_root_counter) */
    int8_t by_rule;    /* XQTB_BY_* of the result the move leads to */
    int8_t repetition; /* 1 if the move repeats a position of the game
                        * (xqtb_probe_root_ex with a history): its value is
                        * then the repetition's verdict; else 0 */
    int32_t dtm;       /* XQTB_NO_DISTANCE for draws and ruled results */
    int32_t order;     /* ruled results: the order after the move; else 0 */
    int32_t dtc;       /* plies to conversion from before the move (1 for a
                        * capture); XQTB_NO_DISTANCE without a limit, for draws
                        * and ruled results */
    int32_t rank;      /* bigger is better: the order below as one number, for
                        * an engine to sort or filter by: > 0 a win (cursed
                        * wins the lowest), 0 a draw, < 0 a loss (blessed
                        * losses the highest) */
} xqtb_root_move;

/* Every legal move with its value, best first (by rank): wins that hold
 * under the move limit (by shortest DTC, then DTM), then ruled wins by
 * lowest order (moves that do not check first: the winner must not check
 * perpetually himself), cursed wins, draws, blessed losses, ordinary
 * losses by longest DTC and DTM, and last the losses by a ruling (moves
 * after which the mover would lose by his own perpetual check or chase),
 * by highest order; other ties keep move-generation order.  Without a move
 * limit DTC plays no part.
 * Where a DTM file some move needs is missing (a set exported with `xqtb
 * export --no-dtm`), every move comes from the WDL and DTC files if the
 * tables have a move limit: wdl, wdl5 and dtc as above, dtm
 * XQTB_NO_DISTANCE, and a result decided by a ruling says so but not
 * which one nor its order (by_rule XQTB_BY_RULING, order 0), so ruled
 * wins rank alike (checking moves last) and following them need not
 * force the repetition the ruling needs; the ranking is the one above
 * without DTM, which is what converting under the limit needs.  Where a
 * DTC file is missing too, or the tables have no limit, every move comes
 * from the WDL files alone: wdl and wdl5 (without the move limit) set, dtm
 * and dtc XQTB_NO_DISTANCE, by_rule XQTB_BY_NONE, ranked by value only.
 * RETURN: the number of moves (0: the side to move has lost), or an error
 * as for xqtb_probe_dtm (XQTB_ERR_NO_TABLE only if a WDL file is missing). */
int xqtb_probe_root(xqtb_handle *h, const xqtb_position *pos, xqtb_root_move moves[XQTB_MAX_MOVES]);

/* As xqtb_probe_root at rule_counter plies since the last capture: a move
 * that keeps a win within what is left of the limit comes before one that
 * does not.  RETURN: as xqtb_probe_root, XQTB_ERR_INVALID for a negative
 * counter (one above the limit counts as the limit, as in
 * xqtb_probe_counter). */
int xqtb_probe_root_counter(xqtb_handle *h, const xqtb_position *pos, int rule_counter,
                            xqtb_root_move moves[XQTB_MAX_MOVES]);

/* How the losing side's moves are ordered (xqtb_root_options). */
typedef enum {
    /* Ordinary losses, longest first, before every move into a position
     * where the mover would have to check (chase) for ever and lose by his
     * own ruling: right wherever an arbiter, or a match adjudicator,
     * enforces the rulings.  The default. */
    XQTB_LOSE_AVOID_RULING = 0,
    /* Losses by the mover's own ruling first (highest order first), as
     * the longest resistance: mate never comes, only an arbiter's ruling
     * ends the game; for play where the rulings may not be enforced. */
    XQTB_LOSE_RESIST_LONGEST = 1
} xqtb_loss_policy;

/* What xqtb_probe_root_ex takes besides the position.  Zeroed, it asks
 * what xqtb_probe_root does. */
typedef struct {
    int rule_counter; /* plies since the last capture at pos */
    xqtb_loss_policy loss_policy;
    /* The game that led to pos, so that a move repeating one of its
     * positions is judged as the arbiter will: history_start, then
     * history_moves[0..history_length) played from it, must end at pos.
     * NULL history_start: no history. */
    const xqtb_position *history_start;
    const uint16_t *history_moves;
    int history_length;
} xqtb_root_options;

/* As xqtb_probe_root_counter with the options above.  With a history, a
 * move after which a position of the game stands again (same board, same
 * side to move) gets the verdict of the repetition it completes
 * (xqtb_judge_repetition under the handle's rule set) instead of the
 * tables' value, which assumes no history: repetition = 1, and
 *   - the mover loses by his ruling: wdl XQTB_LOSS, by_rule the ruling,
 *     order 0, ranked below every other move;
 *   - the opponent loses by his: wdl XQTB_WIN, order 0, ranked above
 *     every other move (the arbiter's ruling ends the game at once);
 *   - otherwise a draw, ranked with the draws.
 * RETURN: as xqtb_probe_root_counter; XQTB_ERR_INVALID also if opt is
 * NULL, the policy unknown, a history move illegal, or the history does
 * not end at pos; XQTB_ERR_NOMEM. */
int xqtb_probe_root_ex(xqtb_handle *h, const xqtb_position *pos, const xqtb_root_options *opt,
                       xqtb_root_move moves[XQTB_MAX_MOVES]);

/* The principal variation: the best move of each side in turn (as
 * xqtb_probe_root ranks them) from pos at rule_counter, until the game ends
 * or max moves (at most XQTB_PV_MAX).  *end says why it stopped:
 *   XQTB_PV_END_MATE        the side to move at the end has no move (lost);
 *   XQTB_PV_END_DRAW        the position is a draw, or the move limit makes
 *                           it one (nothing for either side to play for);
 *   XQTB_PV_END_REPETITION  the last move repeats an earlier position: a
 *                           result decided by a repetition ruling, which the
 *                           arbiter judges from here (docs/RULES.md);
 *   XQTB_PV_END_LIMIT       the move limit was reached;
 *   XQTB_PV_END_LENGTH      max moves were played.
 * RETURN: the number of moves written to pv, or an error as for
 * xqtb_probe_root_counter (XQTB_ERR_INVALID also for NULL pv or end, or a
 * negative max); XQTB_ERR_NOMEM if the line cannot be kept. */
enum { XQTB_PV_MAX = 1024 };
typedef enum {
    XQTB_PV_END_MATE = 0,
    XQTB_PV_END_DRAW = 1,
    XQTB_PV_END_REPETITION = 2,
    XQTB_PV_END_LIMIT = 3,
    XQTB_PV_END_LENGTH = 4
} xqtb_pv_end;
int xqtb_probe_pv(xqtb_handle *h, const xqtb_position *pos, int rule_counter, uint16_t *pv, int max, xqtb_pv_end *end);

/* Canonical material name of a position's table (e.g. "KRKNAA" for either
 * colouring), for messages such as "table KRKNAA missing".
 * RETURN: XQTB_OK, or XQTB_ERR_INVALID (buf untouched) if pos is not valid
 * or pos or buf is NULL. */
xqtb_status xqtb_material_name(const xqtb_position *pos, char buf[XQTB_MATERIAL_MAX]);

#ifdef __cplusplus
}
#endif

#endif /* XQTB_H */
