/*
 * util.c - helpers shared by the subcommands.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "material.h"
#include "tbformat.h"

#include "cli.h"

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "xqtb %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return EXIT_BAD_INPUT;
}

long cli_parse_uint(const char *s, long max)
{
    long v = 0;
    if (!s || !*s) return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return -1;
        v = v * 10 + (*s - '0');
        if (v > max) return -1;
    }
    return v;
}

int cli_table_file(const char *file, xq_material *m, char name[XQ_MATERIAL_MAX])
{
    const char *dot = strrchr(file, '.');
    int kind = dot ? xqf_kind_of_ext(dot + 1) : -1;
    if (kind < 0 || kind >= XQF_COMPRESSED_KINDS || dot - file >= XQ_MATERIAL_MAX) return -1;
    char canon[XQ_MATERIAL_MAX], err[XQ_ERR_MAX];
    memcpy(name, file, (size_t)(dot - file));
    name[dot - file] = 0;
    if (xq_material_parse(name, m, err)) return -1;
    xq_material_canonical(m, m);
    xq_material_name(m, canon);
    return strcmp(name, canon) ? -1 : kind; /* only canonical names are tables the library reads */
}

const char *cli_ruling_name(int by_rule)
{
    static const char *const names[] = {
        NULL, "perpetual_check", "perpetual_chase", "perpetual_mate_threat", "perpetual_attack", "ruling"};
    return by_rule >= XQTB_BY_NONE && by_rule <= XQTB_BY_RULING ? names[by_rule] : NULL;
}

int cli_probe_value(xqtb_handle *h, const xqtb_position *pos, int counter, xqtb_result *r, int *lean)
{
    int st = xqtb_probe_counter(h, pos, counter, r);
    if (lean) *lean = 0;
    if (st != XQTB_ERR_NO_TABLE || xqtb_limit(h) <= 0) return st;
    xqtb_wdl5 wdl5;
    int dtc;
    if (xqtb_probe_dtc(h, pos, counter, &wdl5, &dtc) != XQTB_OK) return st;
    memset(r, 0, sizeof *r);
    r->wdl5 = wdl5;
    r->wdl = wdl5 > 0 ? XQTB_WIN : wdl5 < 0 ? XQTB_LOSS : XQTB_DRAW;
    r->dtm = XQTB_NO_DISTANCE;
    r->dtc = dtc;
    /* every ordinary result has a DTC, cursed and blessed ones too */
    r->by_rule = r->wdl != XQTB_DRAW && dtc < 0 ? XQTB_BY_RULING : XQTB_BY_NONE;
    if (lean) *lean = 1;
    return XQTB_OK;
}

const char *cli_rules_name(int rules)
{
    static const char *const names[] = {"none", "check", "full", "asian", "cxa"};
    return rules >= XQTB_RULES_NONE && rules <= XQTB_RULES_CXA ? names[rules] : "?";
}

/* The separators of FEN fields, as the library's parser reads them. */
static int fen_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

int cli_fen_counter(const char *fen)
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
