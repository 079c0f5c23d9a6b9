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

/* The separators of FEN fields, as the library's parser reads them. */
static int fen_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* The counter of a FEN the library has accepted: its field 5, 0 if absent
 * (the library's default).  Fields are counted from the first non-blank
 * character, so a line that starts with white space reads the same. */
static int fen_counter(const char *fen)
{
    const char *p = fen;
    for (int field = 0; field < 5; field++) {
        while (fen_space(*p)) p++;
        if (!*p) return 0;
        if (field == 4) break;
        while (*p && !fen_space(*p)) p++;
    }
    return atoi(p); /* the parser has checked it is a number up to 65535 */
}

/* Parses and replays the record.  Returns 0, or EXIT_BAD_INPUT with the
 * reason printed (malformed FEN or token, illegal move with its number). */
static int parse_record(char *text, record *rec)
{
    char err[XQTB_ERR_MAX];
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
    rec->counter0 = fen_counter(fen);
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

/* Probes every position of the record at its counter into pos[].  Returns
 * 0, or an exit status with the message printed. */
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
        int st = xqtb_probe(h, &p, &r);
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
    if (!covered) {
        fprintf(stderr, "xqtb adjudicate: no table %s in %s: no position of the record is covered\n", missing, dirs);
        return EXIT_NO_ANSWER;
    }
    int limit = xqtb_limit(h);
    if (limit <= 0) {
        fprintf(stderr, "xqtb adjudicate: the tables in %s were built without a move limit (gen --limit)\n", dirs);
        return EXIT_NO_ANSWER;
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
        int st = xqtb_probe_counter(h, &p, counter > limit ? limit : counter, &j->r);
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
                           const move_verdict *v)
{
    printf("%s{\"ply\":%d,\"fen\":\"%s\",\"to_move\":\"%s\",\"counter\":%d,", j->ply ? "," : "", j->ply, fen, who,
           j->counter);
    if (j->covered && j->counter > limit) {
        printf("\"wdl\":\"draw\",\"by_limit\":true");
    } else if (j->covered) {
        printf("\"wdl\":\"%s\",", wdl5_word(j->r.wdl5));
        if (j->r.by_rule)
            printf("\"dtm\":null,\"dtc\":null,\"by_rule\":\"%s\"",
                   j->r.by_rule == XQTB_BY_PERPETUAL_CHECK ? "perpetual_check" : "perpetual_chase");
        else if (j->r.wdl == XQTB_DRAW)
            printf("\"dtm\":null,\"dtc\":null,\"by_rule\":null");
        else
            printf("\"dtm\":%d,\"dtc\":%d,\"by_rule\":null", j->r.dtm, j->r.dtc);
    } else {
        printf("\"wdl\":null,\"missing\":\"%s\"", j->missing);
    }
    if (mv) {
        printf(",\"move\":\"%.4s\"", mv);
        if (v->mistake[0]) printf(",\"mistake\":\"%s\"", v->mistake);
        if (v->wasted > 0) printf(",\"wasted\":%d", v->wasted);
    }
    printf("}");
}

static void print_ply_text(const judged *j, const char *who, int limit, const char *mv, const move_verdict *v)
{
    printf("%4d  %-5s counter %3d  ", j->ply, who, j->counter);
    if (!j->covered)
        printf("not covered: no table %s", j->missing);
    else if (j->counter > limit)
        printf("drawn by the move limit");
    else if (j->r.by_rule)
        printf("%s by a repetition ruling", j->r.wdl > 0 ? "win" : "loss");
    else if (j->r.wdl == XQTB_DRAW)
        printf("draw");
    else
        printf("%-12s dtc %3d  dtm %3d", wdl5_word(j->r.wdl5), j->r.dtc, j->r.dtm);
    if (mv) printf("   %.4s", mv);
    if (mv && v->mistake[0]) printf("  MISTAKE: %s", v->mistake);
    if (mv && v->wasted > 0) printf("  (wasted %d plies of the limit)", v->wasted);
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

static const char *rules_word(int rules)
{
    return rules == XQTB_RULES_NONE ? "none" : rules == XQTB_RULES_CHECK ? "check" : "full";
}

/* Prints the judgement of every ply, the claim and the totals. */
static void report(xqtb_handle *h, const record *rec, const judged pos[], int json)
{
    int limit = xqtb_limit(h), wasted[2] = {0, 0}, mistakes[2] = {0, 0};
    if (json)
        printf("{\"limit\":%d,\"rules\":\"%s\",\"plies\":[", limit, rules_word(xqtb_rules(h)));
    else
        printf("move limit %d plies; the result of each position is for the side to move at its counter\n", limit);
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
            judge_move(j, &pos[ply + 1], limit, &v);
            mistakes[side] += v.mistake[0] != 0;
            wasted[side] += v.wasted;
        }
        const char *moved = ply < rec->nmoves ? mv : NULL;
        if (json)
            print_ply_json(j, fen, who, limit, moved, &v);
        else
            print_ply_text(j, who, limit, moved, &v);
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
        printf(",\"mistakes\":{\"red\":%d,\"black\":%d},\"wasted\":{\"red\":%d,\"black\":%d}}\n", mistakes[0],
               mistakes[1], wasted[0], wasted[1]);
        return;
    }
    if (c)
        printf("claim at ply %d by %s (counter %d): %s, %s\n", c->ply, claimant, c->counter, valid ? "RIGHT" : "WRONG",
               why);
    printf("mistakes: red %d, black %d; plies of the limit wasted: red %d, black %d\n", mistakes[0], mistakes[1],
           wasted[0], wasted[1]);
}

int cmd_adjudicate(int argc, char **argv)
{
    const char *dirs = "tables", *path = NULL;
    int json = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            json = 1;
        else if (!strcmp(argv[i], "-d")) {
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
    rc = judge_positions(h, &rec, dirs, pos);
    if (rc == 0) report(h, &rec, pos, json);
    xqtb_close(h);
    return rc ? rc : EXIT_ANSWER;
}
