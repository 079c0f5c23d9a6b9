/*
 * test_atomic_file.c - the generator's temporary files (gen/atomic_file.c):
 * named PATH.tmp.HOST.PID, created new and never through a symbolic link,
 * and removed by the next `xqtb gen` on the directory once their writer is
 * gone, and only then.
 *
 * The temporary name is built here from the documented pattern, with this
 * process's pid (atomic_open runs in it), so a symbolic link can be planted
 * at exactly the name the generator will use.
 */
#include "testutil.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "atomic_file.h"
#include "runxqtb.h"
#include "tmpdir.h"

/* The host field of temporary names, as documented: the host name with
 * everything but letters, digits, '-' and '_' turned into '_'. */
static void host_field(char *out, size_t cap)
{
    char h[256];
    if (gethostname(h, sizeof h)) h[0] = 0;
    h[sizeof h - 1] = 0;
    size_t n = 0;
    for (; h[n] && n < 64 && n + 1 < cap; n++) out[n] = isalnum((unsigned char)h[n]) || strchr("-_", h[n]) ? h[n] : '_';
    out[n] = 0;
    if (!n) snprintf(out, cap, "unknown");
}

static void temp_name(char *buf, size_t len, const char *path, long pid)
{
    char host[80];
    host_field(host, sizeof host);
    snprintf(buf, len, "%s.tmp.%s.%ld", path, host, pid);
}

static void make_dir(char *dir, size_t len, const char *tag)
{
    snprintf(dir, len, "%s/%s", test_tmpdir(), tag);
    assert_int_equal(mkdir(dir, 0755), 0);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void assert_text(const char *path, const char *text)
{
    char buf[256] = "";
    FILE *f = fopen(path, "r");
    if (!f) fail_msg("cannot open %s: %s", path, strerror(errno));
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    assert_string_equal(buf, text);
}

static int exists(const char *path)
{
    struct stat sb;
    return lstat(path, &sb) == 0;
}

/* A symbolic link at the temporary name, to an existing file outside the
 * directory and to a name that does not exist yet: atomic_open refuses,
 * and neither target is written or created. */
static void test_symlink_at_temp_name_is_not_followed(void **state)
{
    (void)state;
    char dir[512], outside[512], path[600], tmp[800], victim[600], absent[600];
    make_dir(dir, sizeof dir, "tables");
    make_dir(outside, sizeof outside, "outside");
    snprintf(victim, sizeof victim, "%s/victim", outside);
    snprintf(absent, sizeof absent, "%s/absent", outside);
    write_text(victim, "precious");
    snprintf(path, sizeof path, "%s/KRK.xqtb", dir);
    temp_name(tmp, sizeof tmp, path, (long)getpid());
    const char *targets[] = {victim, absent};
    for (int i = 0; i < 2; i++) {
        assert_int_equal(symlink(targets[i], tmp), 0);
        atomic_file f;
        char err[XQ_ERR_MAX] = "";
        assert_int_equal(atomic_open(&f, path, err), -1);
        if (!strstr(err, "not a regular file")) fail_msg("message: %s", err);
        assert_text(victim, "precious");
        assert_false(exists(absent));
        assert_false(exists(path));
        assert_int_equal(unlink(tmp), 0);
    }
}

/* A regular file at the temporary name was left by a dead process that had
 * this pid: it is replaced, and the write goes through. */
static void test_stale_file_at_temp_name_is_replaced(void **state)
{
    (void)state;
    char dir[512], path[600], tmp[800];
    make_dir(dir, sizeof dir, "stale");
    snprintf(path, sizeof path, "%s/KRK.xqd", dir);
    temp_name(tmp, sizeof tmp, path, (long)getpid());
    write_text(tmp, "left over by a dead run");
    atomic_file f;
    char err[XQ_ERR_MAX] = "";
    if (atomic_open(&f, path, err)) fail_msg("%s", err);
    assert_string_equal(f.tmp, tmp);
    assert_int_equal(atomic_write(&f, "new", 3, err), 0);
    assert_int_equal(atomic_commit(&f, err), 0);
    assert_text(path, "new");
    assert_false(exists(tmp));
}

/* A pid no process holds: a child's, once it has been reaped. */
static long dead_pid(void)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) _exit(0);
    assert_int_equal(waitpid(pid, NULL, 0), pid);
    return (long)pid;
}

/* The next gen removes the leftovers of dead writers of this host, says so
 * unless -q, and keeps everything else: a live writer's file (this test's),
 * another host's, a name without a host (older versions), and a symbolic
 * link, whose target stays untouched. */
static void test_gen_removes_dead_leftovers_only(void **state)
{
    (void)state;
    char dir[512], outside[512], victim[600], host[80];
    make_dir(dir, sizeof dir, "leftovers");
    make_dir(outside, sizeof outside, "outside2");
    snprintf(victim, sizeof victim, "%s/victim", outside);
    write_text(victim, "precious");
    host_field(host, sizeof host);
    long dead = dead_pid(), live = (long)getpid();
    char dead1[800], dead2[800], alive[800], other[800], old[800], link[800], path[600];
    snprintf(path, sizeof path, "%s/KRK.xqtb", dir);
    temp_name(dead1, sizeof dead1, path, dead);
    snprintf(path, sizeof path, "%s/KRK.xqd", dir);
    temp_name(alive, sizeof alive, path, live);
    snprintf(path, sizeof path, "%s/KRK.xqw", dir);
    temp_name(link, sizeof link, path, dead);
    snprintf(other, sizeof other, "%s/KRK.xqc.tmp.another_host.%ld", dir, dead);
    snprintf(old, sizeof old, "%s/KRK.xqc.tmp.%ld", dir, dead);
    const char *kept[] = {alive, other, old};
    write_text(dead1, "dead");
    for (size_t i = 0; i < sizeof kept / sizeof *kept; i++) write_text(kept[i], "kept");
    assert_int_equal(symlink(victim, link), 0);

    assert_int_equal(run_xqtb("gen -d %s --rules none --limit 0 KK", dir), 0);
    assert_false(exists(dead1));
    const char *base = strrchr(dead1, '/') + 1;
    char want[900];
    snprintf(want, sizeof want, "removed %s/%s, left by process %ld", dir, base, dead);
    if (!strstr(xqtb_out, want)) fail_msg("no '%s' in: %s", want, xqtb_out);
    for (size_t i = 0; i < sizeof kept / sizeof *kept; i++) assert_text(kept[i], "kept");
    assert_true(exists(link));
    assert_text(victim, "precious");

    /* quietly under -q */
    snprintf(path, sizeof path, "%s/KK.xqtb", dir);
    temp_name(dead2, sizeof dead2, path, dead);
    write_text(dead2, "dead");
    assert_int_equal(run_xqtb("gen -q -d %s --rules none --limit 0 KK", dir), 0);
    assert_false(exists(dead2));
    assert_null(strstr(xqtb_out, "removed"));
    assert_text(alive, "kept");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_symlink_at_temp_name_is_not_followed),
        cmocka_unit_test(test_stale_file_at_temp_name_is_replaced),
        cmocka_unit_test(test_gen_removes_dead_leftovers_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
