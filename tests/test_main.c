/* pbd-tests [FILTER]: runs every CUnit suite, or only suites/tests whose name contains
 * FILTER. Prints one line per test and exits non-zero on any failure. */
#include "tests.h"

#include <CUnit/Basic.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

pbd_world *test_two_particles(const double p1[3], const double p2[3], double m1, double m2)
{
    pbd_world *w = pbd_world_create(2);
    pbd_world_set_particle(w, 0, p1, NULL, m1);
    pbd_world_set_particle(w, 1, p2, NULL, m2);
    w->def.gravity[0] = w->def.gravity[1] = w->def.gravity[2] = 0.0;
    return w;
}

pbd_world *test_newton_sheet(const char *scene, const char *stretch, double E, double compliance,
                             double bend_compliance, double k_bend, int substeps)
{
    pbd_scene_params sp = pbd_scene_params_default();
    for (int i = 0; pbd_stretch_names[i]; i++)
        if (strcmp(pbd_stretch_names[i], stretch) == 0) sp.stretch = i;
    sp.youngs_modulus = E;
    sp.compliance = compliance;
    sp.bend_compliance = bend_compliance;
    sp.k_bend = k_bend;
    pbd_world *w = pbd_scene_find(scene)->build(&sp);
    if (w) {
        w->def.method = PBD_METHOD_NEWTON;
        w->def.substeps = substeps;
    }
    return w;
}

int test_all_finite(const double *a, int n)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(a[i])) return 0;
    return 1;
}

int test_run(const char *cmd)
{
    int rc = system(cmd);
    if (rc == -1 || !WIFEXITED(rc)) return -1;
    return WEXITSTATUS(rc);
}

int test_run_stderr(const char *cmd, const char *err_path, char *err, size_t size)
{
    int rc = test_run(cmd);
    err[0] = '\0';
    FILE *f = fopen(err_path, "r");
    if (f) {
        size_t n = fread(err, 1, size - 1, f);
        err[n] = '\0';
        fclose(f);
    }
    return rc;
}

int test_remove_dir(const char *dir)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return test_run(cmd);
}

const char *test_bin_dir(void)
{
    const char *b = getenv("PBD_BIN");
    return b && *b ? b : "build";
}

int test_exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

int test_count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

pid_t test_spawn(const char *prog, const char *const *args, const char *err_path,
                 long fsize_limit)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", test_bin_dir(), prog);
    char *argv[32];
    int n = 0;
    argv[n++] = path;
    for (int i = 0; args[i] && n < 31; i++) argv[n++] = (char *)args[i];
    argv[n] = NULL;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid != 0) return pid;
    int out = open("/dev/null", O_WRONLY), err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0 || err < 0) _exit(126);
    dup2(out, 1);
    dup2(err, 2);
    if (fsize_limit > 0) {
        struct rlimit rl = {(rlim_t)fsize_limit, (rlim_t)fsize_limit};
        signal(SIGXFSZ, SIG_IGN);
        if (setrlimit(RLIMIT_FSIZE, &rl) != 0) _exit(126);
    }
    execv(path, argv);
    _exit(127);
}

int test_wait_within(pid_t pid, double seconds, const char *err_path, char *err_text,
                     size_t size)
{
    int status = 0;
    for (long i = 0; i < (long)(seconds * 100); i++) {
        if (waitpid(pid, &status, WNOHANG) == pid) {
            FILE *f = fopen(err_path, "r");
            size_t n = f ? fread(err_text, 1, size - 1, f) : 0;
            err_text[n] = '\0';
            if (f) fclose(f);
            return WIFSIGNALED(status) ? 1000 + WTERMSIG(status) : WEXITSTATUS(status);
        }
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    err_text[0] = '\0';
    return -1;
}

/* Remove the tests whose "suite/test" name does not contain the filter. */
static void apply_filter(const char *filter)
{
    for (CU_pSuite s = CU_get_registry()->pSuite; s; s = s->pNext)
        for (CU_pTest t = s->pTest; t; t = t->pNext) {
            char full[512];
            snprintf(full, sizeof full, "%s/%s", s->pName, t->pName);
            if (!strstr(full, filter)) CU_set_test_active(t, CU_FALSE);
        }
}

/* The failed assertions again after the summary, so that the last lines of a long log
 * (all a CI page may show) name them. */
static void print_failures(void)
{
    int n = 0;
    for (const CU_FailureRecord *f = CU_get_failure_list(); f; f = f->pNext) {
        if (f->type == CUF_TestInactive || f->type == CUF_SuiteInactive) continue; /* FILTER */
        if (n++ == 0) printf("\nFailed (suite/test file:line condition):\n");
        printf("  %s/%s %s:%u %s\n", f->pSuite ? f->pSuite->pName : "?",
               f->pTest ? f->pTest->pName : "?", f->strFileName ? f->strFileName : "?",
               f->uiLineNumber, f->strCondition ? f->strCondition : "");
    }
    fflush(stdout);
}

int main(int argc, char **argv)
{
    /* the programs' conventions (experiments/README.md "Robustness"): --help, --version, one
     * error line and status 2 for anything else that looks like an option or a second FILTER */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("Usage: pbd-tests [FILTER]\nRuns the CUnit suites; FILTER keeps only tests "
                   "whose \"suite/test\" name contains it.\nEnvironment: PBD_BIN, the directory "
                   "of the programs (default build).\n\nOptions:\n  --help     print this help "
                   "and exit\n  --version  print the version and exit\n");
            return 0;
        }
        if (strcmp(argv[i], "--version") == 0) {
            printf("pbd-tests (pbdlab) %s\n", PBD_VERSION);
            return 0;
        }
    }
    if (argc > 1 && argv[1][0] == '-') {
        fprintf(stderr, "pbd-tests: unknown option '%s' (see --help)\n", argv[1]);
        return 2;
    }
    if (argc > 2) {
        fprintf(stderr, "pbd-tests: expected at most one FILTER, found '%s' after '%s'\n",
                argv[2], argv[1]);
        return 2;
    }
    if (CU_initialize_registry() != CUE_SUCCESS) return 1;
#define PBD_REGISTER_SUITE(area) \
    if (register_##area##_tests) register_##area##_tests();
    PBD_TEST_SUITES(PBD_REGISTER_SUITE)
    if (argc > 1) apply_filter(argv[1]);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    print_failures();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}

/* The threads of a process, or -1 (/proc/PID/task's entries). */
static int task_count(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    if (!d) return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

int test_run_threads(const char *prog, const char *const *args, int *status)
{
    char dir[] = "/tmp/pbd-test-threads-XXXXXX", out[64], err[96], text[4096];
    *status = -1;
    if (!mkdtemp(dir)) return -1;
    snprintf(out, sizeof out, "--out=%s", dir);
    snprintf(err, sizeof err, "%s/stderr.txt", dir);
    const char *all[32];
    int n = 0;
    for (; args[n] && n < 30; n++) all[n] = args[n];
    all[n++] = out;
    all[n] = NULL;
    pid_t pid = test_spawn(prog, all, err, 0);
    int most = -1, st = 0;
    for (int i = 0; pid > 0 && i < 60000; i++) { /* at most a minute */
        int k = task_count(pid);
        if (k > most) most = k;
        if (waitpid(pid, &st, WNOHANG) == pid) {
            *status = WIFEXITED(st) ? WEXITSTATUS(st) : 1000 + WTERMSIG(st);
            break;
        }
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    if (pid > 0 && *status < 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &st, 0);
    }
    if (*status != 0) {
        FILE *f = fopen(err, "r");
        size_t k = f ? fread(text, 1, sizeof text - 1, f) : 0;
        text[k] = '\0';
        if (f) fclose(f);
        fprintf(stderr, "%s: exit %d: %s\n", prog, *status, text);
    }
    test_remove_dir(dir);
    return most;
}
