/*
 * test_cli.c - the xqtb command as a user runs it: output, exit status and
 * error reporting.  The binary under test comes from $XQTB (the Makefile's
 * test-run sets it to the build being tested, sanitizer build included).
 */
#include "testenv.h"
#include "testutil.h"
#include "tmpdir.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct {
    int status; /* exit status, or 128 + signal */
    char out[1 << 16];
    char err[1 << 12];
} run_result;

/* Working directory of the commands run, NULL for the test's own. */
static const char *run_dir;
/* A file the commands run write their standard output to instead of the
 * captured one (/dev/full), NULL for none. */
static const char *run_stdout;

static const char *xqtb_path(void)
{
    static char abs[4096];
    const char *p = getenv("XQTB");
    if (!p || !*p) fail_msg("XQTB is not set: run the tests through make test");
    /* absolute, since some runs happen in another directory (run_dir) */
    return realpath(p, abs) ? abs : p;
}

static void slurp(int fd, char *buf, size_t cap)
{
    size_t n = 0;
    ssize_t r;
    lseek(fd, 0, SEEK_SET);
    while (n + 1 < cap && (r = read(fd, buf + n, cap - 1 - n)) > 0) n += (size_t)r;
    buf[n] = 0;
    close(fd);
}

/* Runs xqtb with the given arguments (NULL-terminated), capturing stdout
 * and stderr through temporary files, which unlike pipes cannot deadlock on
 * a chatty child. */
static void run(run_result *res, const char *arg, ...)
{
    const char *argv[16];
    int argc = 0;
    argv[argc++] = xqtb_path();
    va_list ap;
    va_start(ap, arg);
    for (const char *a = arg; a && argc < 15; a = va_arg(ap, const char *)) argv[argc++] = a;
    va_end(ap);
    argv[argc] = NULL;

    char out_name[] = "/tmp/xqtb-cli-out-XXXXXX", err_name[] = "/tmp/xqtb-cli-err-XXXXXX";
    int out = mkstemp(out_name), err = mkstemp(err_name);
    assert_true(out >= 0 && err >= 0);
    unlink(out_name);
    unlink(err_name);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int to = run_stdout ? open(run_stdout, O_WRONLY) : out;
        if (to < 0) _exit(125);
        dup2(to, 1);
        dup2(err, 2);
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0) dup2(devnull, 0);
        if (run_dir && chdir(run_dir)) _exit(126);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    res->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    slurp(out, res->out, sizeof res->out);
    slurp(err, res->err, sizeof res->err);
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

static const char *last_line(const char *s)
{
    size_t len = strlen(s);
    if (len && s[len - 1] == '\n') len--;
    while (len && s[len - 1] != '\n') len--;
    return s + len;
}

static run_result R;

static void test_perft_2(void **state)
{
    (void)state;
    run(&R, "perft", "2", NULL);
    assert_int_equal(R.status, 0);
    assert_string_equal(R.out, "1920\n");
    assert_non_null(strstr(R.err, "perft(2)")); /* timing goes to stderr, not stdout */
}

static void test_perft_5(void **state)
{
    (void)state;
    if (test_sanitized()) skip();
    run(&R, "perft", "5", NULL);
    assert_int_equal(R.status, 0);
    assert_string_equal(last_line(R.out), "133312995\n");
}

static void test_perft_with_fen(void **state)
{
    (void)state;
    run(&R, "perft", "3", "3k5/4a4/4b4/9/2p6/6N2/4R4/4B4/4A4/3AK4 w - - 0 1", NULL);
    assert_int_equal(R.status, 0);
    assert_string_equal(R.out, "5977\n"); /* as test_perft's cross-checked count */
}

static void test_perft_divide_sums(void **state)
{
    (void)state;
    run(&R, "perft", "--divide", "3", NULL);
    assert_int_equal(R.status, 0);
    /* 44 lines "h2e2: N", then the total. */
    assert_int_equal(count_lines(R.out), 45);
    unsigned long long sum = 0, total = 0;
    int moves = 0;
    char *save = NULL;
    for (char *line = strtok_r(R.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char name[8];
        unsigned long long n;
        if (sscanf(line, "%4[a-i0-9]: %llu", name, &n) == 2 && strlen(name) == 4) {
            sum += n;
            moves++;
        } else {
            assert_int_equal(sscanf(line, "%llu", &total), 1);
        }
    }
    assert_int_equal(moves, 44);
    assert_int_equal(total, 79666);
    assert_int_equal(sum, total);
}

static void test_perft_bad_input(void **state)
{
    (void)state;
    run(&R, "perft", NULL);
    assert_int_equal(R.status, 2);
    assert_non_null(strstr(R.err, "missing DEPTH"));
    run(&R, "perft", "x", NULL);
    assert_int_equal(R.status, 2);
    assert_non_null(strstr(R.err, "DEPTH"));
    run(&R, "perft", "2", "not a fen", NULL);
    assert_int_equal(R.status, 2);
    assert_non_null(strstr(R.err, "bad FEN"));
    assert_string_equal(R.out, "");
}

static void test_fen_bad_exits_2_one_line(void **state)
{
    (void)state;
    run(&R, "fen", "BADFEN", NULL);
    assert_int_equal(R.status, 2);
    assert_string_equal(R.out, "");
    assert_int_equal(count_lines(R.err), 1);
    assert_non_null(strstr(R.err, "bad FEN"));
    run(&R, "fen", "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBA1ABNR w - - 0 1", NULL);
    assert_int_equal(R.status, 2);
    assert_int_equal(count_lines(R.err), 1);
    assert_non_null(strstr(R.err, "red has no king"));
}

static void test_fen_good(void **state)
{
    (void)state;
    run(&R, "fen", "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR r", NULL);
    assert_int_equal(R.status, 0);
    assert_string_equal(last_line(R.out), "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1\n");
    assert_non_null(strstr(R.out, "44 legal moves"));
    run(&R, "fen", "4k4/9/9/9/9/9/9/9/4R4/3K5 b - - 0 1", NULL);
    assert_int_equal(R.status, 0);
    assert_non_null(strstr(R.out, "(in check)"));
}

static void test_moves(void **state)
{
    (void)state;
    run(&R, "moves", START_FEN, NULL);
    assert_int_equal(R.status, 0);
    assert_int_equal(count_lines(R.out), 1);
    int words = 0;
    for (char *p = R.out; *p; p++) words += *p == ' ';
    assert_int_equal(words + 1, 44);
    assert_non_null(strstr(R.out, "h2e2"));
    assert_non_null(strstr(R.out, "b0c2"));
}

static void test_unknown_command(void **state)
{
    (void)state;
    run(&R, "frobnicate", NULL);
    assert_int_equal(R.status, 2);
    assert_int_equal(count_lines(R.err), 1);
    assert_non_null(strstr(R.err, "unknown command 'frobnicate'"));
    run(&R, NULL);
    assert_int_equal(R.status, 2);
    assert_non_null(strstr(R.err, "usage"));
}

/* Output that cannot be written is a failure of the machine (exit 3, a
 * message), whatever the command: an arbiter's or a script's answer lost
 * on a full disk must not look like an answer. */
static void test_stdout_full(void **state)
{
    (void)state;
    if (access("/dev/full", W_OK)) skip();
    run_stdout = "/dev/full";
    static const char *const cases[][3] = {{"perft", "2", NULL},
                                           {"fen", "5k3/9/9/9/9/9/9/9/4R4/3K5 w - - 0 1", NULL},
                                           {"moves", "5k3/9/9/9/9/9/9/9/4R4/3K5 w - - 0 1", NULL},
                                           {"--version", NULL, NULL},
                                           {"--help", NULL, NULL}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        run(&R, cases[i][0], cases[i][1], cases[i][2], NULL);
        assert_int_equal(R.status, 3);
        assert_non_null(strstr(R.err, "cannot write standard output"));
    }
    run_stdout = NULL;
    run(&R, "perft", "2", NULL);
    assert_int_equal(R.status, 0);
}

static void test_help_and_version(void **state)
{
    (void)state;
    run(&R, "--help", NULL);
    assert_int_equal(R.status, 0);
    assert_non_null(strstr(R.out, "perft"));
    assert_non_null(strstr(R.out, "moves"));
    run(&R, "--version", NULL);
    assert_int_equal(R.status, 0);
    assert_int_equal(strncmp(R.out, "xqtb ", 5), 0);
}

/* ---- help ---- */

/* Every subcommand and every option its parser accepts.  The test checks
 * that each option is in the command's --help and in the top-level help,
 * that the parser takes it (no "unknown option"), and that the help names
 * no option missing here; a command in the top-level help but not here
 * fails the test, so a new command or option must be added to this list
 * (and so to the help). */
static const struct {
    const char *name;
    const char *options[20];
} commands[] = {
    {"perft", {"--divide"}},
    {"fen", {NULL}},
    {"moves", {NULL}},
    {"gen",
     {"-t", "-d", "-q", "--rules", "--limit", "--force", "--max-memory", "--wide", "--store-both", "--keep-raw",
      "--set", "--pieces", "--attackers", "--defenders", "--with", "--without", "--all"}},
    {"stats", {"--json", "-d", "--set", "--pieces", "--attackers", "--defenders", "--with", "--without"}},
    {"sets", {"--json", "-d", "--rules", "--limit", "--pieces", "--attackers", "--defenders", "--with", "--without"}},
    {"plan",
     {"--set", "-d", "-o", "-t", "--rules", "--limit", "--store-both", "--keep-raw", "--max-memory", "--pieces",
      "--attackers", "--defenders", "--with", "--without"}},
    {"export", {"-d", "-o", "--list", "--wdl-only", "--no-dtm", "-q", "--set"}},
    {"verify", {"-t", "-d", "-q", "--set", "--pieces", "--attackers", "--defenders", "--with", "--without"}},
    {"check", {"-d", "--deep", "-q", "--wdl-only", "--no-dtm"}},
    {"probe", {"-d", "--json", "--line", "--counter"}},
    {"adjudicate", {"-d", "--json", "--rules"}},
    {"serve", {"-d", "--listen", "-t"}},
};
enum { NCOMMANDS = sizeof commands / sizeof *commands };

static int command_index(const char *name, size_t len)
{
    for (int i = 0; i < NCOMMANDS; i++)
        if (strlen(commands[i].name) == len && !strncmp(commands[i].name, name, len)) return i;
    return -1;
}

/* Whether opt occurs in text as a word of a synopsis or option list:
 * after a space, '[' or '|' or at a line start, and before a space, ']',
 * ',', '|' or a line end. */
static bool has_option(const char *text, const char *opt)
{
    size_t n = strlen(opt);
    for (const char *s = text; (s = strstr(s, opt)) != NULL; s++) {
        bool start = s == text || strchr(" [|\n", s[-1]);
        bool end = s[n] == 0 || strchr(" ],|\n", s[n]);
        if (start && end) return true;
    }
    return false;
}

/* What the top-level help says about command i: each of its "  xqtb NAME"
 * lines (a command may have several forms) up to the next command line,
 * joined in buf. */
static const char *top_level_block(const char *help, int i, char *buf, size_t len)
{
    char key[64];
    snprintf(key, sizeof key, "\n  xqtb %s ", commands[i].name);
    size_t used = 0;
    buf[0] = 0;
    for (const char *s = help; (s = strstr(s, key)) != NULL; s++) {
        const char *e = strstr(s + 1, "\n  xqtb ");
        if (!e) e = strstr(s + 1, "\n\n");
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (used + n >= len) n = len - 1 - used;
        memcpy(buf + used, s, n);
        used += n;
        buf[used] = 0;
    }
    if (!used) fail_msg("the top-level help does not list '%s':\n%s", commands[i].name, help);
    return buf;
}

static void test_every_command_has_help(void **state)
{
    (void)state;
    static const char *const forms[] = {"--help", "-h"};
    for (int i = 0; i < NCOMMANDS; i++) {
        for (int f = 0; f < 2; f++) {
            run(&R, commands[i].name, forms[f], NULL);
            if (R.status != 0) fail_msg("xqtb %s %s: exit %d, %s", commands[i].name, forms[f], R.status, R.err);
            char want[64];
            snprintf(want, sizeof want, "usage: xqtb %s ", commands[i].name);
            if (strncmp(R.out, want, strlen(want)))
                fail_msg("xqtb %s %s printed:\n%s", commands[i].name, forms[f], R.out);
            assert_string_equal(R.err, "");
        }
        /* after other arguments, and as `xqtb help NAME`, the same text */
        char saved[sizeof R.out];
        memcpy(saved, R.out, sizeof saved);
        run(&R, commands[i].name, "-d", "x", "--help", NULL);
        assert_int_equal(R.status, 0);
        assert_string_equal(R.out, saved);
        run(&R, "help", commands[i].name, NULL);
        assert_int_equal(R.status, 0);
        assert_string_equal(R.out, saved);
        assert_non_null(strstr(saved, "\nExit status: 0 "));
    }
    /* the two commands whose statuses differ from the common ones say so */
    run(&R, "check", "--help", NULL);
    assert_non_null(strstr(R.out, "3 a file damaged, missing"));
    run(&R, "serve", "--help", NULL);
    assert_non_null(strstr(R.out, "0 stopped by SIGINT"));
    run(&R, "help", "frobnicate", NULL);
    assert_int_equal(R.status, 2);
    assert_non_null(strstr(R.err, "unknown command 'frobnicate'"));
}

static void test_help_lists_every_option(void **state)
{
    (void)state;
    static char top[sizeof R.out];
    run(&R, "--help", NULL);
    assert_int_equal(R.status, 0);
    memcpy(top, R.out, sizeof top);
    /* every command the top-level help lists is one this test knows */
    for (const char *s = top; (s = strstr(s, "\n  xqtb ")) != NULL; s++) {
        const char *name = s + 8;
        size_t len = strcspn(name, " \n");
        if (command_index(name, len) < 0)
            fail_msg("the help lists 'xqtb %.*s', which test_cli.c's command list lacks: add it with its options",
                     (int)len, name);
    }
    for (int i = 0; i < NCOMMANDS; i++) {
        char block[2048];
        top_level_block(top, i, block, sizeof block);
        run(&R, commands[i].name, "--help", NULL);
        assert_int_equal(R.status, 0);
        for (const char *const *o = commands[i].options; *o; o++) {
            if (!has_option(block, *o)) fail_msg("xqtb --help does not show %s %s:\n%s", commands[i].name, *o, block);
            if (!has_option(R.out, *o)) fail_msg("xqtb %s --help does not show %s:\n%s", commands[i].name, *o, R.out);
        }
        /* every option the command's help names is one of the list (or the
         * help option itself) */
        for (const char *s = R.out; *s; s++) {
            if (s[0] != '-' || (s != R.out && !strchr(" [|\n", s[-1])) ||
                !(s[1] == '-' || (s[1] >= 'a' && s[1] <= 'z')))
                continue;
            size_t len = strcspn(s, " ],|\n");
            bool known = (len == 2 && !strncmp(s, "-h", 2)) || (len == 6 && !strncmp(s, "--help", 6));
            for (const char *const *o = commands[i].options; *o && !known; o++)
                known = strlen(*o) == len && !strncmp(*o, s, len);
            if (!known) fail_msg("xqtb %s --help names %.*s, which is not in the list", commands[i].name, (int)len, s);
        }
        /* the parser takes every listed option, and refuses an unknown one;
         * run where no tables/ is, so that nothing is generated or read
         * (check, given no other argument, reads the whole of tables/) */
        run_dir = test_tmpdir();
        for (const char *const *o = commands[i].options; *o; o++) {
            run(&R, commands[i].name, *o, NULL);
            if (strstr(R.err, "unknown option") || strstr(R.err, "does not apply"))
                fail_msg("xqtb %s does not take %s: %s", commands[i].name, *o, R.err);
        }
        if (commands[i].options[0]) {
            run(&R, commands[i].name, "--no-such-option", NULL);
            assert_int_equal(R.status, 2);
            if (!strstr(R.err, "unknown option")) fail_msg("xqtb %s --no-such-option: %s", commands[i].name, R.err);
        }
        run_dir = NULL;
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_perft_2),
        cmocka_unit_test(test_perft_5),
        cmocka_unit_test(test_perft_with_fen),
        cmocka_unit_test(test_perft_divide_sums),
        cmocka_unit_test(test_perft_bad_input),
        cmocka_unit_test(test_fen_bad_exits_2_one_line),
        cmocka_unit_test(test_fen_good),
        cmocka_unit_test(test_moves),
        cmocka_unit_test(test_unknown_command),
        cmocka_unit_test(test_help_and_version),
        cmocka_unit_test(test_stdout_full),
        cmocka_unit_test(test_every_command_has_help),
        cmocka_unit_test(test_help_lists_every_option),
    };
    return cmocka_run_group_tests_name("cli", tests, NULL, NULL);
}
