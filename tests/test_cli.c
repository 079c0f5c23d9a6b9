/*
 * test_cli.c - the xqtb command as a user runs it: output, exit status and
 * error reporting.  The binary under test comes from $XQTB (the Makefile's
 * test-run sets it to the build being tested, sanitizer build included).
 */
#include "testutil.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct {
    int status; /* exit status, or 128 + signal */
    char out[1 << 16];
    char err[1 << 12];
} run_result;

static const char *xqtb_path(void)
{
    const char *p = getenv("XQTB");
    if (!p || !*p) fail_msg("XQTB is not set: run the tests through make test");
    return p;
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
        dup2(out, 1);
        dup2(err, 2);
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0) dup2(devnull, 0);
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

static bool sanitizer_build(void)
{
    const char *s = getenv("XQTB_SAN");
    return s && *s;
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
    if (sanitizer_build()) skip();
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_perft_2),         cmocka_unit_test(test_perft_5),
        cmocka_unit_test(test_perft_with_fen),  cmocka_unit_test(test_perft_divide_sums),
        cmocka_unit_test(test_perft_bad_input), cmocka_unit_test(test_fen_bad_exits_2_one_line),
        cmocka_unit_test(test_fen_good),        cmocka_unit_test(test_moves),
        cmocka_unit_test(test_unknown_command), cmocka_unit_test(test_help_and_version),
    };
    return cmocka_run_group_tests_name("cli", tests, NULL, NULL);
}
