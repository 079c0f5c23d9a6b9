/*
 * tb.h - generated tables as the generator, `stats` and `verify` see them:
 * one material, both sides to move, every index entry's value in memory.
 *
 * A table is kept in its canonical orientation (the stronger side red, see
 * material.h); boards of the other orientation are looked up with the
 * colours swapped and the board turned (xq_index_encode's flip).
 *
 * Values are from the side to move's point of view:
 *   wdl  1 = win, 0 = draw, -1 = loss
 *   dtm  plies to the end of the game with optimal play (winner shortest,
 *        loser longest): 0 = side to move has no legal move (lost),
 *        1 = mate next move; 0 for draws.
 */
#ifndef XQ_TB_H
#define XQ_TB_H

#include <stddef.h>

#include "cell.h"
#include "fen.h"
#include "index.h"
#include "material.h"
#include "ruleset.h"
#include "tbformat.h"

typedef struct {
    int wdl;     /* 1, 0, -1, under the table's rule set */
    int dtm;     /* plies; for a result decided by a ruling, its order */
    int by_rule; /* xq_by_rule: XQ_BY_NONE for ordinary results */
} tb_value;

/* A side's DTC codes (dtc.h) packed one byte an entry once they are
 * final (tb_dtc_pack): a code below TB_DTC8_WIDE is itself, TB_DTC8_NONE
 * is DTC_NONE, and TB_DTC8_WIDE says the code is among the few kept in
 * full apart (cursed wins and blessed losses, distances past 253 plies),
 * listed by entry. */
enum { TB_DTC8_WIDE = 0xFE, TB_DTC8_NONE = 0xFF };
typedef struct {
    uint8_t *code;     /* per entry; NULL if the side is not packed */
    uint64_t *wide_at; /* the entries whose code is TB_DTC8_WIDE, ascending */
    uint16_t *wide;    /* and their codes */
    uint64_t nwide;
} tb_dtc8;

/* A side's ruled bytes held sparsely once final (tb_ruled_pack): a bit
 * an entry, set where the entry has a ruled result, the count of set bits
 * before each word, and the ruled bytes of the set bits in entry order.
 * About 3/16 of a byte an entry, plus a byte a ruled result, where the
 * bytes took one an entry. */
typedef struct {
    uint64_t *bits;  /* NULL if the side is not packed */
    uint32_t *rank;  /* per word of bits */
    uint8_t *code;   /* per set bit */
    uint64_t nruled; /* set bits */
} tb_ruled8;

typedef struct tb_table tb_table;
struct tb_table {
    xq_material mat; /* canonical orientation */
    xq_index ix;
    int width; /* bytes per cell (cell.h): 1, or 2 past 251 plies */
    /* Per side to move, ix.size cells each.  NULL for a side a subtable
     * no longer holds (tb_set_trim), with its ruled bytes and DTC codes. */
    void *cells[2];
    int max_dtm; /* longest DTM of any decided position, -1 if none */
    int rules;   /* xq_rules the table was built under */
    /* Results decided by the repetition rulings (repetition.h), per side to
     * move: one byte an entry while a table is loaded (ruled), sparse once
     * final (ruled8); neither when rules is XQ_RULES_NONE.  The cell of such
     * an entry says draw: that is its value without the rulings.  Read it
     * with tb_ruled. */
    uint8_t *ruled[2];
    tb_ruled8 ruled8[2];
    /* The natural move limit in plies the table was built for (0: none),
     * and the distance to conversion under it (dtc.h), per side to move:
     * two bytes an entry while it is loaded (dtc), one once it is packed
     * (dtc8), which dtc_solve fills directly from its own distances;
     * neither when limit is 0.  Read it with tb_dtc. */
    int limit;
    uint16_t *dtc[2];
    tb_dtc8 dtc8[2];
    /* A table kept only as a subtable holds instead a bit an entry, set
     * where an ordinary result does not hold under the limit
     * (tb_dtc_slim): what a capture into it asks. */
    uint64_t *beyond[2];
    /* Where a capture leads: the table of the material left when a piece of
     * colour c and kind k is taken, and whether that table is oriented the
     * other way round (look up flipped).  NULL when no such piece exists. */
    tb_table *sub[2][8];
    uint8_t sub_flip[2][8];
};

/* A set of tables loaded or generated together, keyed by canonical material.
 * Owns its tables. */
typedef struct tb_set tb_set;

/* What generating one table took (memplan.h), in bytes, for a report. */
typedef struct {
    xq_material mat;     /* the table generated (canonical) */
    uint64_t planned;    /* the bound worked out before allocating */
    uint64_t bound;      /* the bound with the rulings' game graph as built: planned or more */
    uint64_t resident;   /* of it, the tables in memory before (subtables) */
    const char *largest; /* the step that needed the most, e.g. "the distance to conversion" */
} tb_gen_memory;

typedef struct {
    const char *dir;     /* where tables are read and written */
    int threads;         /* 0 = all cores */
    int quiet;           /* no output but errors */
    int progress;        /* per-ply progress and per-pass figures (for a terminal) */
    int force;           /* regenerate even if a valid file exists */
    int wide;            /* start with 2-byte cells (normally only past 251 plies) */
    uint64_t max_memory; /* bytes the tables may take, subtables included (memplan.h); 0 = what is available */
    int rules;           /* xq_rules; the same for every table of one run */
    int limit;           /* natural move limit in plies, 0 = none (no DTC) */
    int store_both;      /* DTM and DTC files store both sides (tb_compress_options.searched NONE) */
    int keep_raw;        /* also write the raw file, as it is (version 3); by default none */
    int kept_late;       /* tests: the check-only solve's kept steps set up at its second order (repetition.h) */
    /* If set, filled after each table generated (not reused): the last is the
     * material asked for, unless a valid file for it was reused. */
    tb_gen_memory *memory;
    /* If set, the statistics of the material asked for (tb_compute_stats),
     * taken while it is in memory. */
    struct tb_stats *stats;
    /* If set, the run works in this set (its directory must be dir) and
     * leaves its tables there, so that the next run reuses them without
     * loading; tb_generate first frees the set's tables the material asked
     * for does not capture into (tb_set_retain), unless `later` says what
     * comes next.  NULL: a set of its own. */
    tb_set *set;
    /* With `set`: the materials the run will generate after this one
     * (nlater of them, canonical), or NULL if not known.  When known, the
     * set lets go, before each table is generated or loaded from its files,
     * of what that table's generation does not read and nothing the run
     * still builds or loads needs (tb_set_trim), in place of tb_set_retain.
     * A set of its own is trimmed so always. */
    const xq_material *later;
    int nlater;
} tb_gen_options;

/* Memory the system can still give (MemAvailable), in bytes; 0 if unknown. */
uint64_t tb_memory_available(void);

tb_set *tb_set_new(const char *dir);
void tb_set_free(tb_set *s);
/* The table of material m (either orientation), loaded from the set's
 * directory with every subtable it captures into.  Returns NULL with a
 * message in err if a file is missing or damaged. */
tb_table *tb_set_get(tb_set *s, const xq_material *m, char err[XQ_ERR_MAX]);
/* tb_set_get for a command that reads m alone (its statistics, a check of
 * every position against its successors): before each table it loads, the
 * set lets go of what neither that table's loading nor m still reads
 * (tb_set_trim, with m the goal), so that the tables m's captures lead to
 * end held as a generation holds them, and the rest freed, instead of the
 * whole closure held at once (KRAABBKAABB's: 1.67 GB).  The set must hold
 * nothing but what an earlier call for the same m left. */
tb_table *tb_set_get_trimmed(tb_set *s, const xq_material *m, char err[XQ_ERR_MAX]);
/* tb_set_get_trimmed of goals[0] (canonical, as every goal) for a command
 * that reads the other goals after it, one at a time: the set also keeps,
 * of what it holds, what the goals not loaded yet will read, so that they
 * share it instead of loading it again.  A goal the set holds already is
 * trimmed as any table (it may be held as a subtable, with one side), so
 * the caller gives such a goal a set of its own. */
tb_table *tb_set_get_trimmed_for(tb_set *s, const xq_material *goals, int ngoals, char err[XQ_ERR_MAX]);
/* The directory the set reads. */
const char *tb_set_dir(const tb_set *s);
/* Threads the set uses to rebuild a table from its compressed files
 * (tb_unpack); 0 = all cores, the default. */
void tb_set_threads(tb_set *s, int threads);
/* Links t's subtables (t->sub), which must be in the set, checking that
 * they share t's rule set and move limit.  0, or -1 + err. */
int tb_set_link(tb_set *s, tb_table *t, char err[XQ_ERR_MAX]);
/* Frees every table of the set but m and the tables captures from m lead
 * to, directly or not: what a run over many tables keeps from one to the
 * next (no table left links to a freed one, since the set only ever holds
 * a table with its subtables). */
void tb_set_retain(tb_set *s, const xq_material *m);
/* The table if it is already in the set, else NULL (no loading). */
tb_table *tb_set_find(tb_set *s, const xq_material *m);
/* Adds a table (the set takes ownership) and links it to its subtables,
 * which must already be in the set. */
int tb_set_add(tb_set *s, tb_table *t, char err[XQ_ERR_MAX]);
/* Bytes the set's tables hold in memory (tb_table_bytes of each). */
uint64_t tb_set_bytes(const tb_set *s);
/* The most tb_set_bytes has been when a table joined the set (tb_set_add):
 * what its tables held at once, at most, while a run loaded and built. */
uint64_t tb_set_peak_bytes(const tb_set *s);
/* The captures from canonical material p, one a piece kind and colour on
 * the board: sub[i] the canonical material it leaves, side[i] the side to
 * move of sub[i]'s table it reaches (tb_sub_side of a table of p).  Returns
 * how many; a material may come twice, with both sides. */
int tb_capture_targets(const xq_material *p, xq_material sub[XQ_MAX_SUBTABLES], int side[XQ_MAX_SUBTABLES]);
/* Frees what generating material m (either orientation) does not read
 * and the run does not need after it.  goals[0..ngoals) are the materials
 * the run is still to generate, m's own target among them; whatever a
 * chain of captures from them leads to that the set does not hold yet
 * (but m) is still to be built or loaded.  A table the set holds is kept
 * only as a subtable of m or of one of those, and of it only the sides to
 * move their captures reach (tb_sub_side); every other table is freed,
 * and the other side of a table kept is dropped.  The tables kept serve
 * only as subtables from then on: their own links to subtables are
 * cleared, and they are held slim (tb_table_slim).  So the set must not be used after m for a table the goals do
 * not lead to, nor trimmed between them otherwise (tb_set_retain would
 * free a table a later goal loads again with its subtables, which may
 * then lack a side); tb_set_link refuses a link to a side dropped.
 * catalog.c's estimates replay this rule over a set's list (run_model):
 * a change here is a change there (tests/test_set_trim.c compares them). */
void tb_set_trim(tb_set *s, const xq_material *m, const xq_material *goals, int ngoals);

/* Generates the table of material m (any orientation; the canonical one is
 * built) and, first, every smaller table a capture leads to that is not
 * already a valid file in opt->dir.  Returns 0, or -1 with a message in err
 * (and errno-like detail in the message). */
int tb_generate(const xq_material *m, const tb_gen_options *opt, char err[XQ_ERR_MAX]);
/* What tb_table_done finds. */
enum {
    TB_NOT_DONE = 0,  /* tb_generate would solve the table */
    TB_DONE = 1,      /* nothing to do */
    TB_TO_CONVERT = 2 /* sound files storing other sides than opt asks
                         (--store-both or not): tb_generate writes them
                         again from the table they hold, without solving */
};

/* Whether the table of m is complete in opt->dir as tb_generate would leave
 * it, judged without loading it: a raw file whose header is sound and built
 * under opt's rules and limit, and compressed files that `xqtb check` finds
 * sound (every block's checksum), of the kind opt asks for.  One of
 * TB_NOT_DONE, TB_DONE, TB_TO_CONVERT; if not TB_DONE, why says what is
 * missing or wrong.  The raw file's data is checked when a larger table
 * loads it (tb_generate regenerates it then if damaged). */
int tb_table_done(const xq_material *m, const tb_gen_options *opt, char why[XQ_ERR_MAX]);

/* ---- tables in memory (table.c) ---- */
/* A table of canonical material m with every cell unknown.  NULL if out of
 * memory. */
tb_table *tb_table_new(const xq_material *m, int width);
void tb_table_free(tb_table *t);
/* Bytes a table holds in memory: the struct, the index's tables, the cells
 * of the given width, and the ruled bytes and DTC arrays if it has them
 * (memplan.h adds up what a generation needs from these). */
uint64_t tb_table_own_bytes(const xq_index *ix, int width, int ruled, int dtc);

/* The set bits of word below bit `bit`: a rank in a bitmap.  Without the
 * popcnt instruction (the portable default build) __builtin_popcountll is
 * a call into libgcc, made for nearly every move the rulings look at; the
 * same arithmetic inline costs less. */
static inline uint32_t tb_bits_below(uint64_t word, unsigned bit)
{
    uint64_t x = word & (((uint64_t)1 << bit) - 1);
#ifdef __POPCNT__
    return (uint32_t)__builtin_popcountll(x);
#else
    x -= (x >> 1) & 0x5555555555555555ull;
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    return (uint32_t)((x * 0x0101010101010101ull) >> 56);
#endif
}

/* Ruled byte (cell.h) of entry i with `side` to move, RULED_NONE if it
 * has none or the table has no rulings. */
static inline unsigned tb_ruled(const tb_table *t, int side, uint64_t i)
{
    if (t->ruled[side]) return t->ruled[side][i];
    const tb_ruled8 *r = &t->ruled8[side];
    if (!r->bits) return 0;
    uint64_t word = r->bits[i >> 6];
    if (!(word >> (i & 63) & 1)) return 0;
    return r->code[r->rank[i >> 6] + tb_bits_below(word, i & 63)];
}
/* Either side: a subtable trimmed to the side captures reach
 * (tb_set_trim) holds nothing on the other. */
static inline int tb_has_ruled(const tb_table *t)
{
    return t->ruled[0] || t->ruled[1] || t->ruled8[0].bits || t->ruled8[1].bits;
}
/* Sets the ruled byte of entry i of a side that has one already to
 * v != RULED_NONE (tests change orders so); -1 if it has none. */
int tb_ruled_replace(tb_table *t, int side, uint64_t i, unsigned v);
/* Whether `nruled` results of n entries take fewer bytes sparse (and
 * have ranks that fit): not where nearly every entry is ruled. */
int tb_ruled8_fits(uint64_t n, uint64_t nruled);
/* Builds a side's sparse ruled bytes over n entries: begin, with room
 * for `nruled` results (0, or -1 if out of memory or !tb_ruled8_fits,
 * with nothing held), then add each ruled entry's code in ascending entry
 * order, then end, which counts the ranks. */
int tb_ruled8_begin(tb_ruled8 *r, uint64_t n, uint64_t nruled);
static inline void tb_ruled8_add(tb_ruled8 *r, uint64_t i, unsigned code)
{
    r->bits[i >> 6] |= (uint64_t)1 << (i & 63);
    r->code[r->nruled++] = (uint8_t)code;
}
void tb_ruled8_end(tb_ruled8 *r, uint64_t n);
void tb_ruled8_free(tb_ruled8 *r);
/* Packs t's ruled bytes sparsely (tb_ruled8), a side at a time, freeing
 * the bytes; a side that would not be smaller so (tb_ruled8_fits), or
 * cannot be allocated, stays as it is, which every reader takes as well. */
void tb_ruled_pack(tb_table *t);

/* The code of a packed side's entry i marked TB_DTC8_WIDE. */
unsigned tb_dtc_wide(const tb_dtc8 *d, uint64_t i);
/* The code tb_dtc gives for entry i of a side held slim (tb_dtc_slim):
 * DTC_NONE where the entry has no ordinary result (its cell says so: a
 * draw, a result of a ruling, an illegal entry), else distance 0, flagged
 * DTC_BEYOND where the result does not hold.  The distance itself is not
 * kept: the only move into a subtable is a capture, a conversion of its
 * own (distance 1), which asks of the position it reaches only whether
 * its result holds (dtc.c, unpack.c and verify.c read no more). */
static inline unsigned tb_dtc_slim_code(const tb_table *t, int side, uint64_t i)
{
    unsigned v = cell_get(t->cells[side], t->width, i);
    if (!cell_is_win(v) && !cell_is_loss(v)) return XQF_DTC_NONE;
    return (t->beyond[side][i >> 6] >> (i & 63) & 1) ? XQF_DTC_BEYOND : 0;
}
/* DTC code (dtc.h) of entry i with `side` to move, packed or not (of a
 * side held slim, tb_dtc_slim_code); the table must have DTC
 * (tb_has_dtc). */
static inline unsigned tb_dtc(const tb_table *t, int side, uint64_t i)
{
    if (t->dtc[side]) return t->dtc[side][i];
    if (!t->dtc8[side].code) return tb_dtc_slim_code(t, side, i);
    unsigned v = t->dtc8[side].code[i];
    return v < TB_DTC8_WIDE ? v : v == TB_DTC8_NONE ? 0xFFFFu : tb_dtc_wide(&t->dtc8[side], i);
}
static inline int tb_has_dtc(const tb_table *t)
{
    return t->dtc[0] || t->dtc[1] || t->dtc8[0].code || t->dtc8[1].code || t->beyond[0] || t->beyond[1];
}
/* Keeps of t's DTC codes, on each side it holds, only whether each
 * ordinary result holds under the limit, a bit an entry: what a capture
 * into t reads once t serves only as a subtable (tb_set_trim), an eighth
 * of the byte an entry the packed codes take.  A side whose bitmap cannot
 * be allocated keeps its codes, which every reader takes as well. */
void tb_dtc_slim(tb_table *t);
/* What a table kept only as a subtable holds (tb_set_trim): its DTC codes
 * slim (tb_dtc_slim), and no ruled bytes on a side without a ruled result,
 * where tb_ruled says RULED_NONE all the same (of the one-attacker
 * tables, every side). */
void tb_table_slim(tb_table *t);
/* Packs t's final DTC codes one byte an entry, in place, on each side
 * where few enough codes need two (a sixteenth of the entries at most):
 * half the memory of a table held as a subtable for the rest of a run.
 * A side that cannot be packed, or whose list cannot be allocated, stays
 * as it is, which every reader takes as well. */
void tb_dtc_pack(tb_table *t);
/* Frees t's DTC codes, packed, unpacked or slim; the table then has none. */
void tb_dtc_free(tb_table *t);
/* The same, of one side to move. */
void tb_dtc_free_side(tb_table *t, int side);
/* The code of each entry of one side, for tb_dtc_pack_from. */
typedef unsigned (*tb_dtc_code_fn)(const void *arg, uint64_t i);
/* Makes side's final DTC codes those code_of gives, packed into `bytes`
 * (t->ix.size bytes, which code_of may read: entry i's byte is written
 * only after its code is read, so a byte array of the same entries serves),
 * which become the table's.  code_of is called on `threads` threads at
 * once, for different entries, so entry i's code may read byte i of
 * `bytes` but no other entry's (the codes, and so the table, are the same
 * for any thread count).  The side must hold no codes yet.  Returns 0; 1
 * where more than a sixteenth of the codes need two bytes, -1 out of
 * memory: then nothing is written, and bytes stay the caller's. */
int tb_dtc_pack_from(tb_table *t, int side, uint8_t *bytes, tb_dtc_code_fn code_of, const void *arg, int threads);
/* The same for a table in memory. */
uint64_t tb_table_bytes(const tb_table *t);
/* Changes the cell width to 2 bytes.  Returns 0, or -1 if out of memory. */
int tb_table_widen(tb_table *t);
/* Value of a cell code (cell.h). */
tb_value tb_value_of_cell(unsigned code);
/* Value of a legal position whose material is the table's, either colour
 * orientation.  dtm -1 (wdl 0) if the board is not a legal position of the
 * table's material. */
tb_value tb_value_of(const tb_table *t, const xq_board *b);
/* The side to move in t->sub[c][k] after a capture of a piece of colour
 * c and kind k: c's side, turned where the subtable is looked up flipped. */
static inline int tb_sub_side(const tb_table *t, int c, int k) { return c ^ t->sub_flip[c][k]; }
/* Frees side's cells, ruled bytes and DTC codes (tb_set_trim). */
void tb_table_drop_side(tb_table *t, int side);
/* Where a capture leads: the subtable of the material left when `taken` is
 * captured, with in *idx the entry of b (the board after the capture,
 * XQ_INDEX_NONE if none) and in *side the side to move there, in the
 * subtable's orientation. */
const tb_table *tb_capture_entry(const tb_table *t, xq_piece taken, const xq_board *b, uint64_t *idx, int *side);
/* Cell code of the position after a capture, in the subtable it leads to.
 * `taken` is the captured piece; b is the board after the capture. */
unsigned tb_capture_cell(const tb_table *t, xq_piece taken, const xq_board *b);
/* Cell code of the position legal move m leads to from b (restored), in t
 * or the subtable a capture leads to, and in *ruled (if not NULL) its
 * ruled byte, RULED_NONE when none or when the cell is not a draw. */
unsigned tb_successor_cell(const tb_table *t, xq_board *b, xq_move m, unsigned *ruled);
/* The same for a pseudo-legal move m from b, the entry at site as
 * xq_index_decode_at placed it, without encoding a board for a quiet move.
 * CELL_ILLEGAL where m is illegal: the position it reaches, in t or a
 * subtable, is marked illegal exactly when the mover's king is left
 * attacked or the kings face (retro.c's first pass), so callers generate
 * pseudo-legal moves and skip these. */
unsigned tb_successor_cell_at(const tb_table *t, xq_board *b, const xq_index_site *site, xq_move m, unsigned *ruled);
/* Where pseudo-legal move m from that entry leads: the table (t or a
 * subtable), and in *idx and *side the entry and side to move there
 * (*idx XQ_INDEX_NONE if no entry holds the position). */
const tb_table *tb_successor_at(const tb_table *t, xq_board *b, const xq_index_site *site, xq_move m, uint64_t *idx,
                                int *side);
/* A move's successor as tb_successor_at finds it: the table, the entry
 * (XQ_INDEX_NONE where no entry holds the position) and the side to move
 * there. */
typedef struct {
    const tb_table *table;
    uint64_t entry;
    int side;
} tb_successor;
/* The successors of the n pseudo-legal moves list[] from that entry, into
 * to[], each one's cell fetched ahead before any is read: the cells are
 * read at random, tens of megabytes, and the misses then overlap.  For the
 * one-ply searches that read every move (searched.c, unpack.c). */
void tb_successors_at(const tb_table *t, xq_board *b, const xq_index_site *site, const xq_move *list, int n,
                      tb_successor *to);
/* Cell code of successor x: CELL_ILLEGAL where its move is illegal, as
 * tb_successor_cell_at gives it. */
static inline unsigned tb_successor_code(const tb_successor *x)
{
    return x->entry == XQ_INDEX_NONE ? CELL_ILLEGAL : cell_get(x->table->cells[x->side], x->table->width, x->entry);
}

/* ---- files (rawfile.c) ---- */
/* Path of the table of canonical material m in dir: DIR/NAME.xqtb */
void tb_raw_path(const char *dir, const xq_material *m, char *buf, size_t len);
/* Writes atomically (temporary file, fsync, rename): version 4, its data
 * one Zstandard stream, if compact, else version 3, the data as it is
 * (docs/FORMAT.md).  0, or -1 + err. */
int tb_raw_write(const tb_table *t, const char *dir, int compact, char err[XQ_ERR_MAX]);
/* Bytes tb_raw_write allocates (memplan.h). */
uint64_t tb_raw_write_work_bytes(void);
/* Reads and checks a table file (header, size, checksum).  NULL + err. */
tb_table *tb_raw_read(const char *dir, const xq_material *m, char err[XQ_ERR_MAX]);
/* Checks only the header of the table file of m (everything tb_raw_read
 * checks but its size and data) and gives its rule set and move limit: a
 * cheap look at whether a table is there and built under the options
 * asked for.  0, or -1 + err. */
typedef struct {
    int rules, limit;
    uint64_t entries; /* per side to move, as the header says */
} tb_raw_info;
int tb_raw_read_info(const char *dir, const xq_material *m, tb_raw_info *info, char err[XQ_ERR_MAX]);

/* ---- tables rebuilt from their compressed files (unpack.c) ---- */
/* The table of material m rebuilt from set s's directory: its DTM file and,
 * under a move limit, its DTC file, every block checked, the searched
 * side's entries found by a one-ply search over the stored side and the
 * subtables, which must be in s already (tb_set_get loads them first).
 * The same cells, ruled bytes and DTC codes as the raw file the table was
 * solved into.  The table is linked to its subtables but not added to s.
 * NULL + err if a file is missing, damaged or built otherwise. */
tb_table *tb_unpack(tb_set *s, const xq_material *m, int threads, char err[XQ_ERR_MAX]);

/* ---- checks and summaries ---- */
typedef struct {
    uint64_t checked; /* legal positions examined (index entries) */
    uint64_t errors;  /* positions inconsistent with their successors */
    char first_error[256];
} tb_verify_report;
/* Checks every position of t against its successors (in t and its
 * subtables).  threads 0 = all cores.  Returns 0 if consistent. */
int tb_verify(const tb_table *t, int threads, tb_verify_report *r);
/* The same check for entry i of `side` alone: NULL if it agrees with its
 * successors (or is illegal), else why not. */
const char *tb_verify_entry(const tb_table *t, int side, uint64_t i);

enum { TB_HIST_MAX = 1024 };
typedef struct {
    uint64_t entries;                /* legal index entries (mirror folded) */
    uint64_t legal, win, draw, loss; /* boards, no symmetry reduction */
    int longest_win, longest_loss;   /* -1 if none */
    char longest_win_fen[XQ_FEN_MAX], longest_loss_fen[XQ_FEN_MAX];
    uint64_t hist[TB_HIST_MAX]; /* boards by DTM (decided only) */
    /* Boards the repetition rulings decide ([0] by check, [1] by chase),
     * included in win and loss above: each is a draw under --rules none,
     * which is all they change (repetition.c).  An example of each, "" if none. */
    uint64_t ruled_win[2], ruled_loss[2];
    int max_order; /* highest order of a ruled result, 0 if none */
    char ruled_win_fen[2][XQ_FEN_MAX], ruled_loss_fen[2][XQ_FEN_MAX];
} tb_side_stats;
typedef struct tb_stats {
    xq_material mat;     /* canonical */
    int rules;           /* xq_rules of the table */
    int limit;           /* move limit, plies (0 none) */
    uint64_t index_size; /* entries per side to move */
    tb_side_stats side[2];
} tb_stats;
void tb_compute_stats(const tb_table *t, tb_stats *st);

#endif
