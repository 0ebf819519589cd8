/* Issue 24, "silent corruption, crash, hang, wrong status": each test fails on the code
 * before the mends.
 *   - a re-run without frames removes the old XDMF sidecar (item 1);
 *   - --summarize refuses a run made with other parameters, naming it (item 2);
 *   - a second process writing the same run is refused, so the first's kept partial file
 *     is never removed by the other's finish (item 3);
 *   - --iterations=5,5 is refused (item 4);
 *   - a corrupt summary.h5 (bytes flipped) never crashes pbd-report and is named in the
 *     report and in the exit status; the check finds a flipped byte in a dataset's chunk
 *     (Fletcher-32) and in the superblock (item 6);
 *   - a FIFO where a run file should be is refused at once by --summarize and
 *     pbd-h5extract (item 7);
 *   - SIGHUP stops a run like SIGTERM and keeps its steps;
 *   - CHOLMOD or UMFPACK out of memory is PBD_ENOMEM (exit 4), never the watchdog's
 *     PBD_ENUMERIC (item 9).
 * The timing cases (SIGTERM in a large set-up, inside a factorisation) are
 * tests/check-signals.sh (make check-signals). */
#include "tests.h"

#include <SuiteSparse_config.h>
#include <errno.h>
#include <hdf5.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char tmpdir[256], err_path[300], err_text[8192];

static int suite_init(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/pbd-test-integrity-XXXXXX");
    if (!mkdtemp(tmpdir)) return 1;
    snprintf(err_path, sizeof err_path, "%s/stderr.txt", tmpdir);
    return 0;
}

static int suite_clean(void) { return test_remove_dir(tmpdir) == 0 ? 0 : 1; }

static int finish_within(pid_t pid, double seconds)
{
    return test_wait_within(pid, seconds, err_path, err_text, sizeof err_text);
}

static int run(const char *prog, const char *const *args, double seconds)
{
    pid_t pid = test_spawn(prog, args, err_path, 0);
    return pid < 0 ? -1 : finish_within(pid, seconds);
}

static pbd_world *chain_world(void)
{
    pbd_scene_params sp = pbd_scene_params_default();
    sp.resolution = 4;
    return pbd_scene_find("chain")->build(&sp);
}

/* ---- item 1: the sidecar of an earlier run ------------------------------------------- */

static void test_rerun_removes_sidecar(void)
{
    char xdmf[600];
    snprintf(xdmf, sizeof xdmf, "%s/unit/side.xdmf", tmpdir);
    for (int frames = 2; frames >= 0; frames -= 2) {
        pbd_world *w = chain_world();
        pbd_h5log_options o = {.frames_every = frames};
        pbd_h5log *log = pbd_h5log_open(tmpdir, "unit", "side", w, &o);
        CU_ASSERT_PTR_NOT_NULL_FATAL(log);
        for (int k = 0; k < 4; k++) {
            pbd_step(w);
            pbd_h5log_step(log, w);
        }
        CU_ASSERT_EQUAL(pbd_h5log_finish(log), PBD_OK);
        /* with frames: a sidecar; the re-run without: none (it would point at /frames/...) */
        CU_ASSERT_EQUAL(test_exists(xdmf), frames > 0);
        pbd_world_free(w);
    }
}

/* ---- item 3: two processes, one run ---------------------------------------------------- */

static void test_second_writer_refused(void)
{
    pbd_world *w = chain_world();
    pbd_h5log *a = pbd_h5log_open(tmpdir, "unit", "twice", w, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    pbd_h5log *b = pbd_h5log_open(tmpdir, "unit", "twice", w, NULL);
    /* before: b opened, and a's finish removed the partial file b had kept */
    CU_ASSERT_PTR_NULL(b);
    CU_ASSERT_PTR_NOT_NULL(strstr(pbd_last_error(), "expected no other process writing"));
    if (b) pbd_h5log_discard(b);
    pbd_step(w);
    pbd_h5log_step(a, w);
    CU_ASSERT_EQUAL(pbd_h5log_finish(a), PBD_OK);
    /* released: the next run of the name opens, and no lock file is left behind */
    pbd_h5log *c = pbd_h5log_open(tmpdir, "unit", "twice", w, NULL);
    CU_ASSERT_PTR_NOT_NULL(c);
    if (c) pbd_h5log_discard(c);
    char lock[600];
    snprintf(lock, sizeof lock, "%s/unit/.twice.lock", tmpdir);
    CU_ASSERT(!test_exists(lock));
    pbd_world_free(w);
}

/* ---- items 2 and 4: the sweep's parameters --------------------------------------------- */

static void test_summarize_refuses_other_parameters(void)
{
    char out[400], summary[600];
    snprintf(out, sizeof out, "--out=%s/sweep", tmpdir);
    snprintf(summary, sizeof summary, "%s/sweep/spring_oscillator/summary.h5", tmpdir);
    const char *good[] = {"spring_oscillator", "--quick", "--only=xpbd_it5_hz60", "--quiet", out,
                          NULL};
    CU_ASSERT_EQUAL_FATAL(run("pbd-run", good, 60), 0);
    const char *other[] = {"spring_oscillator", "--quick", "--only=pbd_it5_hz60",
                           "--compliance=0.5", "--quiet", out, NULL};
    CU_ASSERT_EQUAL_FATAL(run("pbd-run", other, 60), 0);
    const char *merge[] = {"spring_oscillator", "--quick", "--summarize", "--allow-missing",
                           out, NULL};
    CU_ASSERT_EQUAL(run("pbd-run", merge, 60), 0);
    double merged = -1.0;
    pbd_h5_read_attr_double(summary, "n_runs_merged", &merged);
    CU_ASSERT_EQUAL(merged, 1.0); /* before: 2, the other compliance's run merged */
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "param.compliance = 0.5 in the file"));
    /* without --allow-missing: an error, exit 1 */
    const char *strict[] = {"spring_oscillator", "--quick", "--summarize", "--quiet", out, NULL};
    CU_ASSERT_EQUAL(run("pbd-run", strict, 60), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "expected the parameters of this sweep"));
}

static void test_repeated_list_values_refused(void)
{
    const char *nums[] = {"spring_oscillator", "--quick", "--iterations=5,5", "--list", NULL};
    CU_ASSERT_EQUAL(run("pbd-run", nums, 30), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "--iterations: expected a list without repeated"));
    const char *fine[] = {"spring_oscillator", "--quick", "--iterations=5,6", "--list", NULL};
    CU_ASSERT_EQUAL(run("pbd-run", fine, 30), 0);
}

/* ---- item 6: corrupt files ------------------------------------------------------------- */

static int copy_flipped(const char *from, const char *to, const long *at, int n)
{
    FILE *f = fopen(from, "rb");
    if (!f) return -1;
    static unsigned char buf[1 << 20];
    size_t len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    for (int k = 0; k < n; k++)
        if (at[k] >= 0 && (size_t)at[k] < len) buf[at[k]] ^= 0x5a;
    f = fopen(to, "wb");
    if (!f) return -1;
    int bad = fwrite(buf, 1, len, f) != len;
    return (fclose(f) != 0 || bad) ? -1 : (int)len;
}

/* The file offset of dataset `name`'s first chunk, or -1. */
static long chunk_offset(const char *path, const char *name)
{
    long at = -1;
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return -1;
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    if (d >= 0) {
        hid_t s = H5Dget_space(d);
        hsize_t coords[2] = {0, 0}, size = 0;
        haddr_t addr = 0;
        unsigned mask = 0;
        if (H5Dget_chunk_info(d, s, 0, coords, &mask, &addr, &size) >= 0 && size > 0)
            at = (long)addr + (long)size / 2;
        H5Sclose(s);
        H5Dclose(d);
    }
    H5Fclose(f);
    return at;
}

static void test_corrupt_summary_named(void)
{
    char out[400], src[600], dir[600], path[700], why[4600];
    snprintf(out, sizeof out, "--out=%s/corrupt", tmpdir);
    snprintf(src, sizeof src, "%s/corrupt/spring_oscillator/summary.h5", tmpdir);
    const char *one[] = {"spring_oscillator", "--quick", "--only=xpbd_it5_hz60", "--quiet", out,
                         NULL};
    CU_ASSERT_EQUAL_FATAL(run("pbd-run", one, 60), 0);
    const char *merge[] = {"spring_oscillator", "--quick", "--summarize", "--allow-missing",
                           "--quiet", out, NULL};
    CU_ASSERT_EQUAL_FATAL(run("pbd-run", merge, 60), 0);
    CU_ASSERT_EQUAL(pbd_h5_check_file(src, why, sizeof why), 0);
    /* the cases: the superblock (checksummed), a table's chunk (Fletcher-32), and ten
     * spread over the file, three bytes each */
    long table = chunk_offset(src, "/tables/runs");
    struct stat sb;
    CU_ASSERT_FATAL(stat(src, &sb) == 0);
    long size = (long)sb.st_size;
    for (int c = 0; c < 12; c++) {
        long at[3];
        if (c == 0) at[0] = at[1] = at[2] = 20;
        else if (c == 1) at[0] = at[1] = at[2] = table;
        else
            for (int k = 0; k < 3; k++) at[k] = (size * (c * 7 + k * 3)) / 97 % size;
        snprintf(dir, sizeof dir, "%s/flip%d/spring_oscillator", tmpdir, c);
        char cmd[1600];
        snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
        CU_ASSERT_FATAL(test_run(cmd) == 0);
        snprintf(path, sizeof path, "%s/summary.h5", dir);
        CU_ASSERT_FATAL(copy_flipped(src, path, at, c == 0 || c == 1 ? 1 : 3) > 0);
        if (c <= 1) CU_ASSERT_EQUAL(pbd_h5_check_file(path, why, sizeof why), -1);
        char results[600];
        snprintf(results, sizeof results, "%s/flip%d", tmpdir, c);
        const char *report[] = {results, NULL};
        int st = run("pbd-report", report, 60);
        CU_ASSERT(st == 0 || st == 1); /* before: 5 of 12 such files crashed it */
        if (c <= 1) { /* named, in the exit status and in the report */
            CU_ASSERT_EQUAL(st, 1);
            CU_ASSERT_PTR_NOT_NULL(strstr(err_text, path));
            snprintf(cmd, sizeof cmd, "grep -q 'Corrupt input' '%s/report.html'", results);
            CU_ASSERT_EQUAL(test_run(cmd), 0);
        }
        if (st == 1) CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "corrupt"));
    }
}

/* ---- item 7: a FIFO where a file should be ---------------------------------------------- */

static void test_fifo_refused(void)
{
    char out[400], dir[600], fifo[700];
    snprintf(out, sizeof out, "--out=%s/fifo", tmpdir);
    snprintf(dir, sizeof dir, "%s/fifo/spring_oscillator", tmpdir);
    snprintf(fifo, sizeof fifo, "%s/xpbd_it5_hz60.h5", dir);
    char cmd[1600];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && mkfifo '%s'", dir, fifo);
    CU_ASSERT_FATAL(test_run(cmd) == 0);
    const char *merge[] = {"spring_oscillator", "--quick", "--summarize", "--quiet", out, NULL};
    CU_ASSERT_EQUAL(run("pbd-run", merge, 20), 1); /* before: hung in open(2) */
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "found a FIFO"));
    const char *extract[] = {fifo, "/series/time", NULL};
    CU_ASSERT_EQUAL(run("pbd-h5extract", extract, 20), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "found a FIFO"));
    double v;
    CU_ASSERT_EQUAL(pbd_h5_read_attr_double(fifo, "steps", &v), -1);
}

/* ---- SIGHUP -------------------------------------------------------------------------- */

static void test_sighup_keeps_steps(void)
{
    char out[400], dir[600], partial[700];
    snprintf(out, sizeof out, "--out=%s/hup", tmpdir);
    snprintf(dir, sizeof dir, "%s/hup/chain", tmpdir);
    snprintf(partial, sizeof partial, "%s/run.partial.h5", dir);
    const char *args[] = {"chain", "--steps=1000000000", "--quiet", out, NULL};
    pid_t pid = test_spawn("pbd-run", args, err_path, 0);
    CU_ASSERT_FATAL(pid > 0);
    struct timespec ts = {0, 600000000};
    nanosleep(&ts, NULL);
    kill(pid, SIGHUP);
    int st = finish_within(pid, 10);
    CU_ASSERT_EQUAL(st, 128 + SIGHUP); /* before: killed by the signal, 1000 + SIGHUP */
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "interrupted by SIGHUP"));
    double steps = -1.0;
    CU_ASSERT_EQUAL(pbd_h5_read_attr_double(partial, "steps", &steps), 0);
    CU_ASSERT(steps >= 0.0);
}

/* ---- item 9: out of memory in the sparse solvers ------------------------------------- */

/* SuiteSparse's allocations fail from the `fail_after`-th on (SuiteSparse_config's hooks,
 * which CHOLMOD and UMFPACK allocate through). */
static long alloc_count, fail_after;
static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);

static void *failing_malloc(size_t n) { return ++alloc_count >= fail_after ? NULL : real_malloc(n); }
static void *failing_calloc(size_t n, size_t m)
{
    return ++alloc_count >= fail_after ? NULL : real_calloc(n, m);
}
static void *failing_realloc(void *p, size_t n)
{
    return ++alloc_count >= fail_after ? NULL : real_realloc(p, n);
}

static void test_sparse_out_of_memory(void)
{
    const int solvers[] = {PBD_NEWTON_CHOLMOD, PBD_NEWTON_UMFPACK};
    { /* one Newton step first: the Newton reference points SuiteSparse's allocation hooks at
       * its recycling pool once (solver/newton/newton_pool.c); the failing hooks wrap those */
        pbd_scene_params sp = pbd_scene_params_default();
        sp.resolution = 3;
        pbd_world *w = pbd_scene_find("cloth")->build(&sp);
        CU_ASSERT_PTR_NOT_NULL_FATAL(w);
        w->def.method = PBD_METHOD_NEWTON;
        CU_ASSERT_EQUAL(pbd_step(w), PBD_OK);
        pbd_world_free(w);
    }
    real_malloc = SuiteSparse_config.malloc_func;
    real_calloc = SuiteSparse_config.calloc_func;
    real_realloc = SuiteSparse_config.realloc_func;
    for (int k = 0; k < 2; k++) {
        int nomem = 0, ok = 0;
        for (fail_after = 1; fail_after < 400 && !ok; fail_after++) {
            pbd_scene_params sp = pbd_scene_params_default();
            sp.resolution = 6;
            sp.compliance = 1e-6;
            pbd_world *w = pbd_scene_find("cloth")->build(&sp);
            CU_ASSERT_PTR_NOT_NULL_FATAL(w);
            w->def.method = PBD_METHOD_NEWTON;
            w->def.newton_solver = solvers[k];
            alloc_count = 0;
            SuiteSparse_config.malloc_func = failing_malloc;
            SuiteSparse_config.calloc_func = failing_calloc;
            SuiteSparse_config.realloc_func = failing_realloc;
            pbd_status st = pbd_step(w);
            SuiteSparse_config.malloc_func = real_malloc;
            SuiteSparse_config.calloc_func = real_calloc;
            SuiteSparse_config.realloc_func = real_realloc;
            /* every failed allocation is out of memory (exit 4), never the watchdog's 5 */
            if (st != PBD_OK && st != PBD_ENOMEM)
                fprintf(stderr, "\n  %s, allocation %ld fails: status %d: %s",
                        k ? "umfpack" : "cholmod", fail_after, (int)st, pbd_last_error());
            CU_ASSERT(st == PBD_OK || st == PBD_ENOMEM);
            nomem += st == PBD_ENOMEM;
            ok = st == PBD_OK && alloc_count < fail_after; /* no allocation failed */
            pbd_world_free(w);
        }
        CU_ASSERT(ok);
        CU_ASSERT(nomem > 3);
    }
}

void register_integrity_tests(void)
{
    CU_pSuite s = CU_add_suite("integrity", suite_init, suite_clean);
    CU_add_test(s, "rerun_removes_sidecar", test_rerun_removes_sidecar);
    CU_add_test(s, "second_writer_refused", test_second_writer_refused);
    CU_add_test(s, "summarize_refuses_other_parameters", test_summarize_refuses_other_parameters);
    CU_add_test(s, "repeated_list_values_refused", test_repeated_list_values_refused);
    CU_add_test(s, "corrupt_summary_named", test_corrupt_summary_named);
    CU_add_test(s, "fifo_refused", test_fifo_refused);
    CU_add_test(s, "sighup_keeps_steps", test_sighup_keeps_steps);
    CU_add_test(s, "sparse_out_of_memory", test_sparse_out_of_memory);
}
