/*
 * adjudicate.c - `xqtb adjudicate`: an arbiter's view of a game record
 * under the natural move limit, on the public library API alone.
 *
 * The record is a FEN on its first line (white space around it ignored),
 * then ICCS moves ("h2e2") separated by white space over any number of
 * lines; it is text, so a NUL byte is refused.  Move numbers ("12."
 * or "12...") are skipped; the word "claim" marks the point where the side
 * to move claims a draw by the move limit.  Every move is checked for
 * legality, and every position the tables cover is judged:
 *   - its result for the side to move at the record's counter (plies since
 *     the last capture, from FEN field 5 and the moves): win, cursed win,
 *     draw, blessed loss, loss;
 *   - mistakes: a move after which the mover's result is worse (a win that
 *     held became cursed, drawn or lost; a blessed loss became a loss...),
 *     and for the winner the plies of the limit each move wasted, i.e. how
 *     much further from conversion it left him than the best move would
 *     have (a best move brings the conversion one ply nearer);
 *   - a claim: right if the counter has reached the limit; premature
 *     otherwise, and then whether the claimant's opponent could still
 *     convert a win in the plies left.
 * And, with no table needed, the repetition the record ends in, if its
 * final position stood before: the verdict under a rule set
 * (xqtb_judge_repetition), with the label of every move of the repeating
 * part.  A record no table covers, without a claim, gets that alone.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "xqtb.h"

enum { MAX_PLIES = 4096 };

typedef struct {
    int ply;          /* plies from the start of the record */
    int counter;      /* plies since the last capture */
    int covered;      /* 1 if the tables answered */
    char missing[40]; /* else the material whose table is missing */
    xqtb_result r;    /* the side to move's result at counter */
} judged;

typedef struct {
    xqtb_position start;
    int counter0; /* plies since the last capture at the start: FEN field 5 */
    uint16_t moves[MAX_PLIES];
    int nmoves;
    int claim_at; /* ply of the claim, -1 if none */
} record;

static const char *wdl5_word(int wdl5)
{
    static const char *const w[5] = {"loss", "blessed_loss", "draw", "cursed_win", "win"};
    return wdl5 >= -2 && wdl5 <= 2 ? w[wdl5 + 2] : "?";
}

/* Longest record read: far beyond any game (MAX_PLIES moves with move
 * numbers and comments fit in a few hundred KiB), and small enough that an
 * endless input such as a device is refused instead of filling memory. */
enum { RECORD_MAX = 16 << 20 };

/* Exit status for a file that cannot be opened or read: a name that leads
 * nowhere usable is the user's input, anything else the machine's failure. */
static int open_failure_status(int err)
{
    return err == ENOENT || err == EACCES || err == EISDIR || err == ENOTDIR || err == ENAMETOOLONG || err == ELOOP
               ? EXIT_BAD_INPUT
               : EXIT_FAILURE_IO;
}

/* Reads the whole record from f (named `name` in messages) into *text,
 * NUL-terminated.  A record is text: a NUL byte would cut it short where C
 * strings end and silently drop the moves after it, so it is refused with
 * its line; and a read error must not pass for the end of the record.
 * Returns 0, or an exit status with the message printed. */
static int read_record(FILE *f, const char *name, char **text)
{
    struct stat sb;
    /* Linux lets a directory be opened for reading and fails only at the
     * first read, with an error that says less than this. */
    if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode))
        return cli_usage_error("adjudicate", "%.200s is a directory, not a game record", name);
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    *text = NULL;
    for (;;) {
        if (!buf) {
            fprintf(stderr, "xqtb adjudicate: out of memory reading the record\n");
            return EXIT_FAILURE_IO;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        const char *nul = memchr(buf + n, 0, got);
        if (nul) {
            int line = 1;
            for (const char *c = buf; c < nul; c++) line += *c == '\n';
            free(buf);
            return cli_usage_error("adjudicate", "line %d of %.200s has a NUL byte: a game record is text", line, name);
        }
        n += got;
        if (ferror(f)) {
            int err = errno;
            free(buf);
            fprintf(stderr, "xqtb adjudicate: cannot read %.200s: %s\n", name, strerror(err));
            return open_failure_status(err);
        }
        if (n > RECORD_MAX) {
            free(buf);
            return cli_usage_error("adjudicate", "%.200s is longer than %d MiB: not a game record", name,
                                   RECORD_MAX >> 20);
        }
        if (feof(f)) break;
        if (n + 1 == cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb) free(buf);
            buf = nb;
        }
    }
    buf[n] = 0;
    *text = buf;
    return 0;
}

static int is_move_number(const char *t)
{
    const char *p = t;
    while (isdigit((unsigned char)*p)) p++;
    if (p == t || *p != '.') return 0;
    while (*p == '.') p++;
    return *p == 0;
}

/* Rewrites the FEN's last two fields: the counter and the move number. */
static void set_fen_counter(char fen[XQTB_FEN_MAX], int counter, int ply)
{
    char *p = fen;
    for (int field = 0; field < 4 && p; field++) {
        p = strchr(p, ' ');
        if (p) p++;
    }
    if (p) snprintf(p, (size_t)(XQTB_FEN_MAX - (p - fen)), "%d %d", counter, ply / 2 + 1);
}

/* A line whose first non-blank character is '#' is a comment: the leading
 * ones are skipped (the FEN is the first other line), the later ones
 * blanked.  Returns where the record starts. */
static char *skip_comments(char *text)
{
    char *start = NULL;
    for (char *line = text; line && *line;) {
        char *c = line, *nl = strchr(line, '\n');
        while (*c == ' ' || *c == '\t') c++;
        if (*c == '#')
            memset(line, ' ', nl ? (size_t)(nl - line) : strlen(line));
        else if (!start)
            start = line;
        line = nl ? nl + 1 : NULL;
    }
    return start ? start : text + strlen(text);
}

/* Parses and replays the record.  Returns 0, or EXIT_BAD_INPUT with the
 * reason printed (malformed FEN or token, illegal move with its number). */
static int parse_record(char *text, record *rec)
{
    char err[XQTB_ERR_MAX];
    text = skip_comments(text);
    char *nl = strchr(text, '\n');
    if (nl) *nl = 0;
    /* White space around the FEN is not part of it (a trailing \r comes
     * from CRLF files); trimmed here so that nothing after reads it. */
    char *fen = text, *end = text + strlen(text);
    while (isspace((unsigned char)*fen)) fen++;
    while (end > fen && isspace((unsigned char)end[-1])) *--end = 0;
    if (!*fen) {
        const char *rest = nl ? nl + 1 : "";
        while (isspace((unsigned char)*rest)) rest++;
        return cli_usage_error("adjudicate", *rest ? "line 1 is blank: the record's first line must be a FEN"
                                                   : "the record is empty: its first line must be a FEN");
    }
    if (xqtb_position_from_fen(fen, &rec->start, err) != XQTB_OK)
        return cli_usage_error("adjudicate", "bad FEN on the first line: %s", err);
    rec->counter0 = cli_fen_counter(fen);
    rec->nmoves = 0;
    rec->claim_at = -1;
    xqtb_position p = rec->start;
    int counter = rec->counter0;
    char *save = NULL;
    for (char *tok = nl ? strtok_r(nl + 1, " \t\r\n", &save) : NULL; tok; tok = strtok_r(NULL, " \t\r\n", &save)) {
        if (is_move_number(tok)) continue;
        if (!strcmp(tok, "claim")) {
            if (rec->claim_at >= 0) return cli_usage_error("adjudicate", "more than one claim in the record");
            rec->claim_at = rec->nmoves;
            continue;
        }
        if (rec->claim_at >= 0) return cli_usage_error("adjudicate", "moves after the claim ('%.10s')", tok);
        int number = rec->nmoves / 2 + 1;
        const char *who = p.side == XQTB_RED ? "red" : "black";
        uint16_t m = strlen(tok) == 4 ? xqtb_move_parse(tok) : 0;
        if (!m)
            return cli_usage_error("adjudicate", "move %d (%s): '%.12s' is not an ICCS move such as h2e2", number, who,
                                   tok);
        if (rec->nmoves == MAX_PLIES)
            return cli_usage_error("adjudicate", "the record is longer than %d plies", MAX_PLIES);
        int capture = p.board[m >> 7] != 0;
        if (xqtb_play(&p, m) != XQTB_OK) {
            char cur[XQTB_FEN_MAX];
            xqtb_position_to_fen(&p, cur);
            set_fen_counter(cur, counter, rec->nmoves);
            return cli_usage_error("adjudicate", "move %d (%s): %.4s is not legal in %s", number, who, tok, cur);
        }
        counter = capture ? 0 : counter + 1;
        rec->moves[rec->nmoves++] = m;
    }
    return 0;
}

/* Names the tables missing for the positions of the record: each
 * material of a position the tables did not cover, once, in record order,
 * as "KRKR, KRK"; stops before overflowing names. */
static void add_missing(char *names, size_t len, const char *material)
{
    size_t used = strlen(names), mlen = strlen(material);
    for (const char *s = names; (s = strstr(s, material)) != NULL; s += mlen)
        if ((s == names || s[-1] == ' ') && (s[mlen] == ',' || s[mlen] == 0)) return;
    if (used + mlen + 3 < len) snprintf(names + used, len - used, "%s%s", used ? ", " : "", material);
}

/* judge_positions' answer when the move limit cannot be judged (no table
 * covers the record, or its tables have no limit) and nothing asks for it. */
enum { NOT_LIMITED = -1 };

/* Probes every position of the record at its counter into pos[].  Returns
 * 0, NOT_LIMITED with a note printed, or an exit status with the message
 * printed. */
static int judge_positions(xqtb_handle *h, const record *rec, const char *dirs, judged pos[])
{
    /* The move limit is known once a table has been opened: probe until a
     * position is covered, which need not be the start (a record may begin
     * in a material without a table and capture into one that has it). */
    xqtb_position p = rec->start;
    char missing[256] = "";
    int covered = 0;
    for (int ply = 0; ply <= rec->nmoves && !covered; ply++) {
        xqtb_result r;
        int st = cli_probe_value(h, &p, 0, &r, NULL);
        covered = st == XQTB_OK;
        if (st == XQTB_ERR_NO_TABLE) {
            char name[40];
            xqtb_material_name(&p, name);
            add_missing(missing, sizeof missing, name);
        } else if (st != XQTB_OK) {
            fprintf(stderr, "xqtb adjudicate: ply %d: %s\n", ply, xqtb_status_string(st));
            return EXIT_FAILURE_IO;
        }
        if (ply < rec->nmoves) xqtb_play(&p, rec->moves[ply]);
    }
    int limit = covered ? xqtb_limit(h) : -1;
    if (!covered || limit <= 0) {
        const char *why = covered ? "the tables in %s were built without a move limit (gen --limit)" : NULL;
        char what[600];
        if (covered)
            snprintf(what, sizeof what, why, dirs);
        else
            snprintf(what, sizeof what, "no table %s in %s: no position of the record is covered", missing, dirs);
        /* a claim needs the move limit; otherwise the repetition verdict
         * needs no table, and the record is judged for that alone */
        if (rec->claim_at >= 0) {
            fprintf(stderr, "xqtb adjudicate: %s, so the claim cannot be judged\n", what);
            return EXIT_NO_ANSWER;
        }
        fprintf(stderr, "xqtb adjudicate: note: %s; judging the repetition only\n", what);
        return NOT_LIMITED;
    }
    if (rec->counter0 > limit) {
        fprintf(stderr, "xqtb adjudicate: the FEN's counter %d is beyond the move limit of %d plies\n", rec->counter0,
                limit);
        return EXIT_BAD_INPUT;
    }
    p = rec->start;
    int counter = rec->counter0;
    for (int ply = 0; ply <= rec->nmoves; ply++) {
        judged *j = &pos[ply];
        j->ply = ply;
        j->counter = counter;
        j->missing[0] = 0;
        /* a counter past the limit is judged at it: the game is drawn by
         * then, which the report says */
        /* from the WDL and DTC files, without DTM, where a set has no
         * DTM files (export --no-dtm): what a claim needs */
        int st = cli_probe_value(h, &p, counter > limit ? limit : counter, &j->r, NULL);
        j->covered = st == XQTB_OK;
        if (st == XQTB_ERR_NO_TABLE) {
            xqtb_material_name(&p, j->missing);
        } else if (st != XQTB_OK) {
            fprintf(stderr, "xqtb adjudicate: ply %d: %s\n", ply, xqtb_status_string(st));
            return EXIT_FAILURE_IO;
        }
        if (ply == rec->nmoves) break;
        uint16_t m = rec->moves[ply];
        counter = p.board[m >> 7] ? 0 : counter + 1;
        xqtb_play(&p, m);
    }
    return 0;
}

/* What a move (from position j to position k) did: a mistake if the
 * mover's result got worse, whoever made it; else, for a win that holds,
 * the plies of the limit it wasted (0 for a best move, which brings the
 * conversion a ply nearer). */
typedef struct {
    char mistake[64]; /* "" if none */
    int wasted;
} move_verdict;

static void judge_move(const judged *j, const judged *k, int limit, move_verdict *v)
{
    v->mistake[0] = 0;
    v->wasted = 0;
    if (!j->covered || !k->covered) return;
    int before = j->r.wdl5, after = -k->r.wdl5;
    if (j->counter <= limit && k->counter <= limit && after < before) {
        snprintf(v->mistake, sizeof v->mistake, "%s became %s", wdl5_word(before), wdl5_word(after));
    } else if (before == XQTB_WDL5_WIN && !j->r.by_rule && !k->r.by_rule && k->counter > 0 && k->r.dtc >= 0) {
        int w = k->r.dtc + 1 - j->r.dtc;
        v->wasted = w > 0 ? w : 0;
    }
}

static void print_ply_json(const judged *j, const char *fen, const char *who, int limit, const char *mv,
                           const move_verdict *v, const char *label)
{
    printf("%s{\"ply\":%d,\"fen\":\"%s\",\"to_move\":\"%s\",\"counter\":%d,", j->ply ? "," : "", j->ply, fen, who,
           j->counter);
    if (limit < 0) {
        printf("\"wdl\":null");
    } else if (j->covered && j->counter > limit) {
        printf("\"wdl\":\"draw\",\"by_limit\":true");
    } else if (j->covered) {
        printf("\"wdl\":\"%s\",", wdl5_word(j->r.wdl5));
        if (j->r.by_rule)
            printf("\"dtm\":null,\"dtc\":null,\"by_rule\":\"%s\"", cli_ruling_name(j->r.by_rule));
        else if (j->r.wdl == XQTB_DRAW)
            printf("\"dtm\":null,\"dtc\":null,\"by_rule\":null");
        else if (j->r.dtm == XQTB_NO_DISTANCE) /* a set without DTM files */
            printf("\"dtm\":null,\"dtc\":%d,\"by_rule\":null", j->r.dtc);
        else
            printf("\"dtm\":%d,\"dtc\":%d,\"by_rule\":null", j->r.dtm, j->r.dtc);
    } else {
        printf("\"wdl\":null,\"missing\":\"%s\"", j->missing);
    }
    if (mv) {
        printf(",\"move\":\"%.4s\"", mv);
        if (v->mistake[0]) printf(",\"mistake\":\"%s\"", v->mistake);
        if (v->wasted > 0) printf(",\"wasted\":%d", v->wasted);
        if (label) printf(",\"label\":\"%s\"", label);
    }
    printf("}");
}

static void print_ply_text(const judged *j, const char *who, int limit, const char *mv, const move_verdict *v,
                           const char *label)
{
    printf("%4d  %-5s counter %3d  ", j->ply, who, j->counter);
    if (limit < 0) {
        if (mv) printf("%-26s", "");
    } else if (!j->covered)
        printf("not covered: no table %s", j->missing);
    else if (j->counter > limit)
        printf("drawn by the move limit");
    else if (j->r.by_rule)
        printf("%s by a repetition ruling", j->r.wdl > 0 ? "win" : "loss");
    else if (j->r.wdl == XQTB_DRAW)
        printf("draw");
    else if (j->r.dtm == XQTB_NO_DISTANCE) /* a set without DTM files */
        printf("%-12s dtc %3d", wdl5_word(j->r.wdl5), j->r.dtc);
    else
        printf("%-12s dtc %3d  dtm %3d", wdl5_word(j->r.wdl5), j->r.dtc, j->r.dtm);
    if (mv) printf("   %.4s", mv);
    if (mv && v->mistake[0]) printf("  MISTAKE: %s", v->mistake);
    if (mv && v->wasted > 0) printf("  (wasted %d plies of the limit)", v->wasted);
    if (mv && label) printf("  [%s]", label);
    printf("\n");
}

/* Whether a claim at position c is right, and why (c->covered or not). */
static const char *claim_reason(const judged *c, int limit, int *valid)
{
    *valid = c->counter >= limit;
    if (*valid) return "the counter has reached the limit";
    if (!c->covered) return "premature: the counter has not reached the limit (position not covered by the tables)";
    if (c->r.wdl5 == XQTB_WDL5_LOSS)
        return "premature, and the claimant's opponent can still convert the win in the plies left";
    if (c->r.wdl5 == XQTB_WDL5_BLESSED_LOSS)
        return "premature, though the opponent's win can no longer be converted in the plies left";
    return "premature: the counter has not reached the limit";
}

static const char *rules_word(int rules) { return cli_rules_name(rules); }

/* The repetition the record ends in: the verdict, and the label of every
 * move of the repeating part, as text ("check", "idle", "chase c7 d8"). */
typedef struct {
    xqtb_rule_set rules;
    xqtb_repetition r;
    char label[MAX_PLIES][56]; /* of moves r.first .. nmoves - 1 */
} repetition_info;

/* "check", "threat", "chase c7 d8", "check chase c7" (a checking move's
 * chases are listed under asian and cxa), or "idle". */
static void label_text(const xqtb_label *l, int threat, char out[56])
{
    out[0] = 0;
    if (l->check) strcpy(out, "check");
    if (threat) strcpy(out, "threat");
    if (!l->nchased) {
        if (!out[0]) strcpy(out, "idle");
        return;
    }
    strcat(out, out[0] ? " chase" : "chase");
    for (int i = 0; i < l->nchased && strlen(out) + 4 < 56; i++) {
        char sq[5];
        xqtb_move_name(xqtb_make_move(l->chased[i], l->chased[i]), sq); /* "c7c7": the square twice */
        sq[2] = 0;
        strcat(out, " ");
        strcat(out, sq);
    }
}

/* Judges the repetition the record ends in, labelling the moves of its
 * repeating part.  Returns 0 or an exit status with the message printed. */
static int judge_repetition(const record *rec, repetition_info *ri)
{
    xqtb_status st = xqtb_judge_repetition(&rec->start, rec->moves, rec->nmoves, ri->rules, &ri->r);
    if (st != XQTB_OK) { /* every move was checked legal already: only memory can fail */
        fprintf(stderr, "xqtb adjudicate: %s\n", xqtb_status_string(st));
        return EXIT_FAILURE_IO;
    }
    xqtb_position p = rec->start;
    for (int k = 0; k < rec->nmoves; k++) {
        if (ri->r.first >= 0 && k >= ri->r.first) {
            xqtb_label l;
            uint8_t threat = 0;
            xqtb_label_move_rules(&p, rec->moves[k], ri->rules, &l, &threat);
            label_text(&l, threat, ri->label[k]);
        }
        xqtb_play(&p, rec->moves[k]);
    }
    return 0;
}

/* The rule that decided a verdict, as a name and the clause of
 * docs/RULES.md ("Judging infinite play") it applies. */
static void verdict_rule_cxa(const xqtb_repetition *r, const char **name, const char **clause)
{
    if (r->by_rule != XQTB_BY_NONE) {
        *name = cli_ruling_name(r->by_rule);
        *clause = "cxa: a side that checks, threatens mate or chases on every one of its moves (长打), while the "
                  "other does not, loses";
    } else if (r->chases_all[0] && r->chases_all[1]) {
        *name = "mutual_perpetual_attack";
        *clause = "cxa: both sides attack on every move: draw";
    } else {
        *name = "no_perpetual";
        *clause = "cxa: neither side attacks on every move: draw";
    }
}

static void verdict_rule(const repetition_info *ri, const char **name, const char **clause)
{
    const xqtb_repetition *r = &ri->r;
    if (ri->rules == XQTB_RULES_NONE) {
        *name = "rules_none";
        *clause = "under rule set none every repetition is a draw";
    } else if (ri->rules == XQTB_RULES_CXA) {
        verdict_rule_cxa(r, name, clause);
    } else if (r->by_rule == XQTB_BY_PERPETUAL_CHECK) {
        *name = "perpetual_check";
        *clause = "clause 1: a side that checks on every one of its moves while the other does not loses";
    } else if (r->checks_all[0] && r->checks_all[1]) {
        *name = "mutual_perpetual_check";
        *clause = "clause 1: both sides check on every move: draw";
    } else if (r->by_rule == XQTB_BY_PERPETUAL_CHASE) {
        *name = "perpetual_chase";
        *clause = ri->rules == XQTB_RULES_ASIAN
                      ? "clause 2: a side that chases one same piece on every one of its moves (checking "
                        "moves included), while the other neither checks nor chases throughout, loses"
                      : "clause 2: a side that chases one same piece on every one of its moves, while the other "
                        "neither checks nor chases throughout, loses";
    } else if (r->chases_all[0] && r->chases_all[1]) {
        *name = "mutual_perpetual_chase";
        *clause = "clause 2: both sides chase on every move: draw";
    } else {
        *name = "no_perpetual";
        *clause = ri->rules == XQTB_RULES_CHECK
                      ? "clause 3 (rule set check: chases count as idle): anything else is a draw"
                      : "clause 3: anything else is a draw";
    }
}

static const char *verdict_word(xqtb_verdict v)
{
    return v == XQTB_RED_LOSES ? "red_loses" : v == XQTB_BLACK_LOSES ? "black_loses" : "draw";
}

static void print_repetition(const record *rec, const repetition_info *ri, int json)
{
    const xqtb_repetition *r = &ri->r;
    if (r->verdict == XQTB_NO_REPETITION) {
        if (json)
            printf(",\"repetition\":null");
        else
            printf("repetition: none (the final position did not stand before)\n");
        return;
    }
    const char *name, *clause;
    verdict_rule(ri, &name, &clause);
    if (json) {
        printf(",\"repetition\":{\"verdict\":\"%s\",\"rule\":\"%s\",\"clause\":\"%s\",\"rules\":\"%s\","
               "\"first_ply\":%d,\"occurrences\":%d,\"labels\":[",
               verdict_word(r->verdict), name, clause, rules_word(ri->rules), r->first, r->occurrences);
        for (int k = r->first; k < rec->nmoves; k++) {
            char mv[5];
            xqtb_move_name(rec->moves[k], mv);
            int red = (rec->start.side + k) % 2 == XQTB_RED;
            printf("%s{\"ply\":%d,\"by\":\"%s\",\"move\":\"%s\",\"label\":\"%s\"}", k > r->first ? "," : "", k,
                   red ? "red" : "black", mv, ri->label[k]);
        }
        printf("]}");
        return;
    }
    printf("repetition: the final position stood %d times, first at ply %d; plies %d-%d repeat (rule set %s)\n",
           r->occurrences, r->first, r->first, rec->nmoves, rules_word(ri->rules));
    printf("verdict: %s (%s)\n",
           r->verdict == XQTB_RED_LOSES     ? "red loses"
           : r->verdict == XQTB_BLACK_LOSES ? "black loses"
                                            : "draw",
           clause);
}

/* Prints the judgement of every ply, the claim and the totals: under the
 * move limit if `limited`, else the moves alone; then the repetition. */
static void report(xqtb_handle *h, const record *rec, const judged pos[], int limited, const repetition_info *ri,
                   int json)
{
    int limit = limited ? xqtb_limit(h) : -1, wasted[2] = {0, 0}, mistakes[2] = {0, 0};
    if (json && limited)
        printf("{\"limit\":%d,\"rules\":\"%s\",\"plies\":[", limit, rules_word(xqtb_rules(h)));
    else if (json)
        printf("{\"limit\":null,\"rules\":null,\"plies\":[");
    else if (limited)
        printf("move limit %d plies; the result of each position is for the side to move at its counter\n", limit);
    else
        printf("no table covers the record: the moves, and the repetition\n");
    xqtb_position q = rec->start;
    for (int ply = 0; ply <= rec->nmoves; ply++) {
        const judged *j = &pos[ply];
        char fen[XQTB_FEN_MAX], mv[5] = "";
        xqtb_position_to_fen(&q, fen);
        set_fen_counter(fen, j->counter, ply);
        int side = q.side;
        const char *who = side == XQTB_RED ? "red" : "black";
        move_verdict v = {"", 0};
        if (ply < rec->nmoves) {
            xqtb_move_name(rec->moves[ply], mv);
            if (limited) judge_move(j, &pos[ply + 1], limit, &v);
            mistakes[side] += v.mistake[0] != 0;
            wasted[side] += v.wasted;
        }
        const char *moved = ply < rec->nmoves ? mv : NULL;
        const char *label = ri->r.first >= 0 && ply >= ri->r.first && moved ? ri->label[ply] : NULL;
        if (json)
            print_ply_json(j, fen, who, limit, moved, &v, label);
        else
            print_ply_text(j, who, limit, moved, &v, label);
        if (ply < rec->nmoves) xqtb_play(&q, rec->moves[ply]);
    }
    const judged *c = rec->claim_at >= 0 ? &pos[rec->claim_at] : NULL;
    int valid = 0;
    const char *why = c ? claim_reason(c, limit, &valid) : NULL;
    const char *claimant = c && (rec->start.side + c->ply) % 2 == XQTB_RED ? "red" : "black";
    if (json) {
        printf("],\"claim\":");
        if (c)
            printf("{\"ply\":%d,\"by\":\"%s\",\"counter\":%d,\"valid\":%s,\"reason\":\"%s\"}", c->ply, claimant,
                   c->counter, valid ? "true" : "false", why);
        else
            printf("null");
        if (limited)
            printf(",\"mistakes\":{\"red\":%d,\"black\":%d},\"wasted\":{\"red\":%d,\"black\":%d}", mistakes[0],
                   mistakes[1], wasted[0], wasted[1]);
        else
            printf(",\"mistakes\":null,\"wasted\":null");
        print_repetition(rec, ri, json);
        printf("}\n");
        return;
    }
    if (c)
        printf("claim at ply %d by %s (counter %d): %s, %s\n", c->ply, claimant, c->counter, valid ? "RIGHT" : "WRONG",
               why);
    if (limited)
        printf("mistakes: red %d, black %d; plies of the limit wasted: red %d, black %d\n", mistakes[0], mistakes[1],
               wasted[0], wasted[1]);
    print_repetition(rec, ri, json);
}

int cmd_adjudicate(int argc, char **argv)
{
    const char *dirs = "tables", *path = NULL;
    int json = 0, rules = -1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            json = 1;
        else if (!strcmp(argv[i], "--rules")) {
            if (++i == argc)
                return cli_usage_error("adjudicate", "option --rules needs none, check, full, asian or cxa");
            rules = -1;
            for (int r = XQTB_RULES_NONE; r <= XQTB_RULES_CXA; r++)
                if (!strcmp(argv[i], rules_word(r))) rules = r;
            if (rules < 0)
                return cli_usage_error("adjudicate", "unknown rule set '%.20s' (none, check, full, asian or cxa)",
                                       argv[i]);
        } else if (!strcmp(argv[i], "-d")) {
            if (++i == argc) return cli_usage_error("adjudicate", "option -d needs a directory (or DIR:DIR...)");
            dirs = argv[i];
        } else if (argv[i][0] == '-' && argv[i][1])
            return cli_usage_error("adjudicate", "unknown option '%s'", argv[i]);
        else if (!path)
            path = argv[i];
        else
            return cli_usage_error("adjudicate", "give one record file (see xqtb adjudicate --help)");
    }
    int from_stdin = !path || !strcmp(path, "-");
    FILE *f = from_stdin ? stdin : fopen(path, "r");
    if (!f) {
        int err = errno;
        fprintf(stderr, "xqtb adjudicate: cannot open %.200s: %s\n", path, strerror(err));
        return open_failure_status(err);
    }
    char *text;
    int rc = read_record(f, from_stdin ? "standard input" : path, &text);
    if (f != stdin) fclose(f);
    if (rc) return rc;
    static record rec;
    rc = parse_record(text, &rec);
    free(text);
    if (rc) return rc;
    xqtb_status st;
    xqtb_handle *h = xqtb_open(dirs, NULL, &st);
    if (!h) {
        fprintf(stderr, "xqtb adjudicate: %s\n", xqtb_status_string(st));
        return EXIT_FAILURE_IO;
    }
    static judged pos[MAX_PLIES + 1];
    static repetition_info ri;
    rc = judge_positions(h, &rec, dirs, pos);
    int limited = rc == 0;
    if (rc == NOT_LIMITED) {
        rc = 0;
        /* the counters alone, for the report */
        memset(pos, 0, sizeof pos);
        xqtb_position p = rec.start;
        int counter = rec.counter0;
        for (int ply = 0; ply <= rec.nmoves; ply++) {
            pos[ply].ply = ply;
            pos[ply].counter = counter;
            if (ply == rec.nmoves) break;
            counter = p.board[xqtb_move_to(rec.moves[ply])] ? 0 : counter + 1;
            xqtb_play(&p, rec.moves[ply]);
        }
    }
    /* the repetition under the rule set asked for, else the tables' */
    ri.rules = (xqtb_rule_set)(rules >= 0 ? rules : xqtb_rules(h) >= 0 ? xqtb_rules(h) : XQTB_RULES_FULL);
    if (rc == 0) rc = judge_repetition(&rec, &ri);
    if (rc == 0) report(h, &rec, pos, limited, &ri, json);
    xqtb_close(h);
    return rc ? rc : EXIT_ANSWER;
}
