/* Output safety (experiments/README.md "Robustness"): a run the watchdog stops, one killed by
 * SIGTERM or SIGINT and one that fills the disk keep their steps as <run>.partial.h5 — flushed,
 * valid HDF5, readable by pbd-h5extract, never under the final name; an unwritable directory is
 * one clear line; the same seed and parameters give bit-identical datasets across runs and
 * across 1 and 2 threads. The programs run as child processes (PBD_BIN). */
#include "tests.h"

#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
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

static char tmpdir[256], err_path[300];
static char err_text[8192];

static int suite_init(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/pbd-test-output-XXXXXX");
    if (!mkdtemp(tmpdir)) return 1;
    snprintf(err_path, sizeof err_path, "%s/stderr.txt", tmpdir);
    return 0;
}

static int suite_clean(void)
{
    return test_remove_dir(tmpdir) == 0 ? 0 : 1;
}

static void read_stderr(void)
{
    err_text[0] = '\0';
    FILE *f = fopen(err_path, "r");
    if (!f) return;
    size_t n = fread(err_text, 1, sizeof err_text - 1, f);
    err_text[n] = '\0';
    fclose(f);
}

/* Start PBD_BIN/<prog> (test_spawn): file_limit > 0 is a full disk at that size. */
static pid_t start(const char *prog, const char *const *args, long file_limit)
{
    return test_spawn(prog, args, err_path, file_limit);
}

/* Exit status (128 + signal when killed by one), stderr in err_text. */
static int finish(pid_t pid)
{
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    read_stderr();
    if (WIFSIGNALED(status)) return 1000 + WTERMSIG(status); /* not a clean exit */
    return WEXITSTATUS(status);
}

static int run(const char *prog, const char *const *args, long file_limit)
{
    pid_t pid = start(prog, args, file_limit);
    return pid < 0 ? -1 : finish(pid);
}

/* Temporary files (<run>.h5.partial-<pid>) left in a directory. */
static int temporaries(const char *dir)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "ls '%s' 2>/dev/null | grep -q 'h5.partial-'", dir);
    return test_run(cmd) == 0;
}

static double attr(const char *path, const char *name)
{
    double v = NAN;
    pbd_h5_read_attr_double(path, name, &v);
    return v;
}

/* Rows of /series/time, which must read back as time = k dt exactly as written. */
static long series_rows(const char *path, double dt)
{
    double *t;
    long rows, cols;
    if (pbd_h5_read_dataset(path, "/series/time", &t, &rows, &cols) != 0) return -1;
    int ok = cols == 1;
    for (long k = 0; k < rows && ok; k++) ok = fabs(t[k] - (double)(k + 1) * dt) <= 1e-9 * (k + 1);
    free(t);
    return ok ? rows : -2;
}

/* pbd-h5extract reads the file: its header line plus one line per step. */
static int h5extract_lines(const char *path)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s/pbd-h5extract '%s' /series/time /series/max_c | wc -l > '%s/wc'",
             test_bin_dir(), path, tmpdir);
    if (test_run(cmd) != 0) return -1;
    snprintf(cmd, sizeof cmd, "%s/wc", tmpdir);
    FILE *f = fopen(cmd, "r");
    int n = -1;
    if (f) {
        if (fscanf(f, "%d", &n) != 1) n = -1;
        fclose(f);
    }
    return n;
}

/* ---- the watchdog ----------------------------------------------------------------------- */

/* Step 30 of a logged experiment run goes non-finite (test hook): the run stops with the
 * watchdog's message (step, constraint type and index) and exit status 5; steps 1-29 are in
 * <run>.partial.h5, the same values an unbroken run wrote for those steps. */
static void test_watchdog_keeps_steps(void)
{
    char out[512], good[512], partial[700], final[700], ref[700];
    snprintf(out, sizeof out, "--out=%s/wd", tmpdir);
    snprintf(good, sizeof good, "--out=%s/ref", tmpdir);
    const char *args[] = {"spring_oscillator", "--quick", "--only=xpbd_it5_hz60", "--quiet", out,
                          "--test-fault-step=30", NULL};
    CU_ASSERT_EQUAL(run("pbd-run", args, 0), 5);
    CU_ASSERT_EQUAL(test_count_lines(err_text), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "step 30: constraint distance #0"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "kept steps 1-29 in "));
    snprintf(partial, sizeof partial, "%s/wd/spring_oscillator/xpbd_it5_hz60.partial.h5", tmpdir);
    snprintf(final, sizeof final, "%s/wd/spring_oscillator/xpbd_it5_hz60.h5", tmpdir);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, partial));
    CU_ASSERT(!test_exists(final));
    char dir[600];
    snprintf(dir, sizeof dir, "%s/wd/spring_oscillator", tmpdir);
    CU_ASSERT(!temporaries(dir));
    CU_ASSERT_EQUAL(series_rows(partial, 1.0 / 60.0), 29);
    CU_ASSERT_EQUAL(attr(partial, "complete"), 0.0);
    CU_ASSERT_EQUAL(attr(partial, "steps"), 29.0);
    char stopped[1024] = "";
    CU_ASSERT_EQUAL(pbd_h5_read_attr_string(partial, "stopped", stopped, sizeof stopped), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(stopped, "step 30"));
    CU_ASSERT_EQUAL(h5extract_lines(partial), 1 + 29);
    /* the kept steps are those of the same run without the fault, bit for bit */
    const char *ref_args[] = {"spring_oscillator", "--quick", "--only=xpbd_it5_hz60", "--quiet",
                              good, NULL};
    CU_ASSERT_EQUAL_FATAL(run("pbd-run", ref_args, 0), 0);
    snprintf(ref, sizeof ref, "%s/ref/spring_oscillator/xpbd_it5_hz60.h5", tmpdir);
    const char *cols[] = {"/series/x", "/series/max_c", "/series/kinetic_energy"};
    for (int c = 0; c < 3; c++) {
        double *a = NULL, *b = NULL;
        long ra = 0, rb = 0, ca = 0, cb = 0;
        CU_ASSERT_EQUAL(pbd_h5_read_dataset(partial, cols[c], &a, &ra, &ca), 0);
        CU_ASSERT_EQUAL(pbd_h5_read_dataset(ref, cols[c], &b, &rb, &cb), 0);
        CU_ASSERT(ra == 29 && rb > 29 && ca == cb);
        if (a && b && ra == 29 && rb > 29 && ca == cb)
            CU_ASSERT_EQUAL(memcmp(a, b, (size_t)(29 * ca) * sizeof(double)), 0);
        free(a);
        free(b);
    }
}

/* The scene runner too, with /frames; an absurd time step is refused before the run, and a
 * first step that blows up leaves a file with the scene and parameters. */
static void test_watchdog_scene_runner(void)
{
    char out[512], partial[700];
    snprintf(out, sizeof out, "--out=%s/wds", tmpdir);
    const char *args[] = {"chain", "--steps=500", "--quiet", out, "--frames=10",
                          "--test-fault-step=75", NULL};
    CU_ASSERT_EQUAL(run("pbd-run", args, 0), 5);
    CU_ASSERT_EQUAL(test_count_lines(err_text), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "step 75: constraint distance #"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "kept steps 1-74 in "));
    snprintf(partial, sizeof partial, "%s/wds/chain/run.partial.h5", tmpdir);
    CU_ASSERT_EQUAL(series_rows(partial, 1.0 / 60.0), 74);
    double *f;
    long rows, cols;
    CU_ASSERT_EQUAL_FATAL(pbd_h5_read_dataset(partial, "/frames/time", &f, &rows, &cols), 0);
    CU_ASSERT_EQUAL(rows, 1 + 7); /* the initial state and steps 10, 20, ..., 70 */
    free(f);
    int finite = 1;
    for (int k = 0; k < 8; k++) {
        char name[64];
        snprintf(name, sizeof name, "/frames/%06d/positions", k);
        CU_ASSERT_EQUAL_FATAL(pbd_h5_read_dataset(partial, name, &f, &rows, &cols), 0);
        for (long i = 0; i < rows * cols; i++) finite &= isfinite(f[i]) != 0;
        free(f);
    }
    CU_ASSERT(finite);

    /* an absurd time step cannot run: refused up front (issue 12), nothing written */
    const char *absurd[] = {"chain", "--dt=1e300", "--steps=5", "--quiet", out, "--run=absurd", NULL};
    CU_ASSERT_EQUAL(run("pbd-run", absurd, 0), 2);
    CU_ASSERT_EQUAL(test_count_lines(err_text), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "--dt"));
    snprintf(partial, sizeof partial, "%s/wds/chain/absurd.partial.h5", tmpdir);
    CU_ASSERT(!test_exists(partial));
    /* the first step blows up: the file keeps the scene and parameters */
    const char *first[] = {"chain", "--steps=5", "--quiet", out, "--run=first",
                           "--test-fault-step=1", NULL};
    CU_ASSERT_EQUAL(run("pbd-run", first, 0), 5);
    CU_ASSERT_EQUAL(test_count_lines(err_text), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "step 1: "));
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "non-finite"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "no step completed"));
    snprintf(partial, sizeof partial, "%s/wds/chain/first.partial.h5", tmpdir);
    CU_ASSERT_EQUAL(series_rows(partial, 1.0 / 60.0), 0);
    CU_ASSERT_EQUAL(attr(partial, "solver.dt"), 1.0 / 60.0);
}

/* ---- interruption ----------------------------------------------------------------------- */

/* Wait (at most 20 s) until a file whose name contains `part` appears in dir. */
static int wait_for(const char *dir, const char *part)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "ls '%s' 2>/dev/null | grep -q '%s'", dir, part);
    for (int i = 0; i < 2000; i++) {
        if (test_run(cmd) == 0) return 1;
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    return 0;
}

/* A long run killed by `sig` after it has written steps: exit status 128 + sig, no file
 * under the final name, no temporary, a partial file that opens with >= 1 step. */
static void interrupt_case(int sig, const char *prog_dir, const char *const *args,
                           const char *final, const char *partial, double dt)
{
    pid_t pid = start("pbd-run", args, 0);
    CU_ASSERT_FATAL(pid > 0);
    int appeared = wait_for(prog_dir, "partial-");
    CU_ASSERT(appeared);
    struct timespec ts = {0, 300000000}; /* some blocks of steps */
    nanosleep(&ts, NULL);
    kill(pid, sig);
    int status = finish(pid);
    CU_ASSERT_EQUAL(status, 128 + sig);
    CU_ASSERT_EQUAL(test_count_lines(err_text), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, sig == SIGINT ? "interrupted by SIGINT after step "
                                                          : "interrupted by SIGTERM after step "));
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, partial));
    CU_ASSERT(!test_exists(final));
    CU_ASSERT(!temporaries(prog_dir));
    CU_ASSERT_FATAL(test_exists(partial));
    long rows = series_rows(partial, dt);
    CU_ASSERT(rows >= 1);
    CU_ASSERT_EQUAL(attr(partial, "steps"), (double)rows);
    CU_ASSERT_EQUAL(attr(partial, "complete"), 0.0);
    char kept[64];
    snprintf(kept, sizeof kept, "kept steps 1-%ld in ", rows);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, kept));
    CU_ASSERT_EQUAL(h5extract_lines(partial), 1 + rows);
    if (rows < 1) fprintf(stderr, "\n  %s: %ld rows; stderr: %s", partial, rows, err_text);
}

static void test_sigterm_experiment(void)
{
    char out[512], dir[600], final[700], partial[700];
    snprintf(out, sizeof out, "--out=%s/term", tmpdir);
    snprintf(dir, sizeof dir, "%s/term/spring_oscillator", tmpdir);
    snprintf(final, sizeof final, "%s/xpbd_it5_hz60.h5", dir);
    snprintf(partial, sizeof partial, "%s/xpbd_it5_hz60.partial.h5", dir);
    /* 60 Hz for 10^6 s: 6·10^7 steps, far more than the test waits */
    const char *args[] = {"spring_oscillator", "--only=xpbd_it5_hz60", "--rates=60",
                          "--duration=1e6", "--quiet", out, NULL};
    interrupt_case(SIGTERM, dir, args, final, partial, 1.0 / 60.0);
}

static void test_sigint_scene_runner(void)
{
    char out[512], dir[600], final[700], partial[700];
    snprintf(out, sizeof out, "--out=%s/int", tmpdir);
    snprintf(dir, sizeof dir, "%s/int/cloth", tmpdir);
    snprintf(final, sizeof final, "%s/long.h5", dir);
    snprintf(partial, sizeof partial, "%s/long.partial.h5", dir);
    const char *args[] = {"cloth", "--steps=1000000000", "--quiet", out, "--run=long",
                          "--frames=50", NULL};
    interrupt_case(SIGINT, dir, args, final, partial, 1.0 / 60.0);
}

/* ---- unwritable output, full disk -------------------------------------------------------- */

/* An output directory that cannot be made (a path through a regular file; as root, modes do
 * not stop writes): status 3, one line naming the path, nothing written. */
static void test_unwritable_directory(void)
{
    char file[512], out[600], path[700];
    snprintf(file, sizeof file, "%s/plainfile", tmpdir);
    FILE *f = fopen(file, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fclose(f);
    snprintf(out, sizeof out, "--out=%s/sub", file);
    snprintf(path, sizeof path, "%s/sub", file);
    const char *exp_args[] = {"spring_oscillator", "--quick", "--only=xpbd_it5_hz60", out, NULL};
    CU_ASSERT_EQUAL(run("pbd-run", exp_args, 0), 3);
    CU_ASSERT_EQUAL(test_count_lines(err_text), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, path));
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "Not a directory"));
    const char *scene_args[] = {"chain", "--steps=3", out, NULL};
    CU_ASSERT_EQUAL(run("pbd-run", scene_args, 0), 3);
    CU_ASSERT_EQUAL(test_count_lines(err_text), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, path));
    /* the other writers */
    char o2[700];
    snprintf(o2, sizeof o2, "--output=%s/sub/gc.h5", file);
    const char *gc_args[] = {"--samples=2", "--constraint=distance", o2, NULL};
    CU_ASSERT_EQUAL(run("pbd-gradcheck", gc_args, 0), 3);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, path));
    snprintf(o2, sizeof o2, "--out=%s/sub/grid.obj", file);
    const char *mesh_args[] = {"grid", "--resolution=3", o2, NULL};
    CU_ASSERT_EQUAL(run("pbd-meshgen", mesh_args, 0), 3);
    CU_ASSERT_EQUAL(test_count_lines(err_text), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, path));
    snprintf(o2, sizeof o2, "--output=%s/sub/report.html", file);
    char results[600], summary[700]; /* results to report on (the output is what fails) */
    snprintf(results, sizeof results, "%s/results/spring_oscillator", tmpdir);
    CU_ASSERT_EQUAL_FATAL(pbd_mkdirs(results), 0);
    snprintf(summary, sizeof summary, "%s/summary.h5", results);
    f = fopen(summary, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fclose(f);
    snprintf(results, sizeof results, "%s/results", tmpdir);
    const char *report_args[] = {results, o2, NULL};
    CU_ASSERT_EQUAL(run("pbd-report", report_args, 0), 3);
    CU_ASSERT_EQUAL(test_count_lines(err_text), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, path));
    if (geteuid() != 0) { /* a read-only directory, when modes apply */
        char ro[500];
        snprintf(ro, sizeof ro, "%s/readonly", tmpdir);
        CU_ASSERT_EQUAL_FATAL(mkdir(ro, 0555), 0);
        snprintf(out, sizeof out, "--out=%s", ro);
        const char *ro_args[] = {"chain", "--steps=3", out, NULL};
        CU_ASSERT_EQUAL(run("pbd-run", ro_args, 0), 3);
        CU_ASSERT_PTR_NOT_NULL(strstr(err_text, ro));
    }
}

/* A full disk, simulated by RLIMIT_FSIZE (writes beyond it fail with EFBIG): status 3, one
 * line naming the file and the reason; the steps flushed before the disk filled up are kept
 * as a readable partial file (HDF5 never ran out of space half-way through a flush). */
static void test_full_disk(void)
{
    char out[512], dir[600], partial[700], final[700];
    snprintf(out, sizeof out, "--out=%s/full", tmpdir);
    snprintf(dir, sizeof dir, "%s/full/cloth", tmpdir);
    snprintf(partial, sizeof partial, "%s/run.partial.h5", dir);
    snprintf(final, sizeof final, "%s/run.h5", dir);
    const char *args[] = {"cloth", "--steps=100000000", "--quiet", out, "--frames=20", NULL};
    CU_ASSERT_EQUAL(run("pbd-run", args, 800000), 3);
    CU_ASSERT_EQUAL(test_count_lines(err_text), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, dir));
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "File too large"));
    CU_ASSERT(!test_exists(final));
    CU_ASSERT(!temporaries(dir));
    long rows = series_rows(partial, 1.0 / 60.0);
    CU_ASSERT(rows >= 64); /* at least one flushed block */
    char kept[64];
    snprintf(kept, sizeof kept, "kept steps 1-%ld in ", rows);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, kept));
    CU_ASSERT_EQUAL(h5extract_lines(partial), 1 + rows);
    struct stat sb;
    CU_ASSERT(stat(partial, &sb) == 0 && sb.st_size <= 800000);
    if (rows < 64) fprintf(stderr, "\n  full disk: %ld rows; stderr: %s", rows, err_text);

    /* too small for even the file's header: one line, and nothing left behind */
    snprintf(out, sizeof out, "--out=%s/tiny", tmpdir);
    snprintf(dir, sizeof dir, "%s/tiny/cloth", tmpdir);
    const char *tiny[] = {"cloth", "--steps=100", "--quiet", out, NULL};
    CU_ASSERT_EQUAL(run("pbd-run", tiny, 8192), 3);
    CU_ASSERT_EQUAL(test_count_lines(err_text), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "File too large"));
    char cmd[800];
    snprintf(cmd, sizeof cmd, "test -z \"$(ls -A '%s')\"", dir);
    CU_ASSERT_EQUAL(test_run(cmd), 0);

    /* an experiment: the same */
    snprintf(out, sizeof out, "--out=%s/fullexp", tmpdir);
    snprintf(partial, sizeof partial, "%s/fullexp/spring_oscillator/xpbd_it5_hz60.partial.h5",
             tmpdir);
    const char *exp_args[] = {"spring_oscillator", "--only=xpbd_it5_hz60", "--rates=60",
                              "--duration=1e6", "--quiet", out, NULL};
    CU_ASSERT_EQUAL(run("pbd-run", exp_args, 700000), 3);
    CU_ASSERT_EQUAL(test_count_lines(err_text), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "File too large"));
    rows = series_rows(partial, 1.0 / 60.0);
    CU_ASSERT(rows >= 64);
    snprintf(kept, sizeof kept, "kept steps 1-%ld in ", rows);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, kept));
}

/* ---- determinism ------------------------------------------------------------------------ */

/* Datasets equal byte for byte (as doubles), one by one. */
static int same_dataset(const char *a, const char *b, const char *name)
{
    double *x = NULL, *y = NULL;
    long rx = 0, ry = 0, cx = 0, cy = 0;
    int ok = pbd_h5_read_dataset(a, name, &x, &rx, &cx) == 0 &&
             pbd_h5_read_dataset(b, name, &y, &ry, &cy) == 0 && rx == ry && cx == cy && rx > 0 &&
             memcmp(x, y, (size_t)(rx * cx) * sizeof(double)) == 0;
    if (!ok) fprintf(stderr, "\n  %s differs between %s and %s", name, a, b);
    free(x);
    free(y);
    return ok;
}

/* Every dataset of /series except the wall-time one (stage_seconds), and /frames. */
static int same_results(const char *a, const char *b)
{
    static const char *names[] = {"/series/step", "/series/time", "/series/particles",
                                  "/series/max_c", "/series/l2_c",
                                  "/series/xpbd_residual", "/series/linear_momentum",
                                  "/series/angular_momentum", "/series/kinetic_energy",
                                  "/series/gravitational_energy", "/series/elastic_energy",
                                  "/series/total_energy", "/series/skipped",
                                  "/series/degenerate",
                                  "/series/sets/00_distance/max_c",
                                  "/series/sets/00_distance/l2_c",
                                  "/series/sets/00_distance/xpbd_residual",
                                  "/series/sets/00_distance/elastic_energy",
                                  "/frames/000001/positions", "/frames/000003/positions",
                                  "/frames/000003/lambda/00_distance", "/frames/time"};
    int ok = 1;
    for (unsigned i = 0; i < sizeof names / sizeof *names; i++) ok &= same_dataset(a, b, names[i]);
    /* and no other /series dataset was forgotten: the file has exactly these plus the clock
     * (stage_seconds, threads) and the group sets */
    hid_t f = H5Fopen(a, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f >= 0) {
        H5G_info_t info;
        hid_t g = H5Gopen2(f, "/series", H5P_DEFAULT);
        if (g >= 0 && H5Gget_info(g, &info) >= 0) ok &= info.nlinks == 14 + 3;
        if (g >= 0) H5Gclose(g);
        H5Fclose(f);
    }
    return ok;
}

static void run_cloth(const char *run_name, const char *threads, const char *extra,
                      const char *extra2)
{
    char out[512], run_arg[128];
    snprintf(out, sizeof out, "--out=%s/det", tmpdir);
    snprintf(run_arg, sizeof run_arg, "--run=%s", run_name);
    const char *args[] = {"cloth", "--scheme=colored", threads, "--steps=60", "--frames=20",
                          "--quiet", out, run_arg, extra, extra2, NULL};
    CU_ASSERT_EQUAL(run("pbd-run", args, 0), 0);
}

/* The coloured Gauss-Seidel cloth (16 x 16, 705 constraints: enough for two threads, see
 * solver/xpbd/iteration.c) on 1 thread twice and on 2 threads; and an experiment with seeded random
 * velocities twice: /series (but the wall times) and /frames identical bit for bit. */
static void test_determinism_runs_and_threads(void)
{
    run_cloth("t1a", "--threads=1", NULL, NULL);
    run_cloth("t1b", "--threads=1", NULL, NULL);
    run_cloth("t2", "--threads=2", NULL, NULL);
    run_cloth("t2xpbd", "--threads=2", "--method=xpbd", "--compliance=1e-3");
    run_cloth("t1xpbd", "--threads=1", "--method=xpbd", "--compliance=1e-3");
    char a[600], b[600], c[600], d[600], e[600];
    snprintf(a, sizeof a, "%s/det/cloth/t1a.h5", tmpdir);
    snprintf(b, sizeof b, "%s/det/cloth/t1b.h5", tmpdir);
    snprintf(c, sizeof c, "%s/det/cloth/t2.h5", tmpdir);
    snprintf(d, sizeof d, "%s/det/cloth/t1xpbd.h5", tmpdir);
    snprintf(e, sizeof e, "%s/det/cloth/t2xpbd.h5", tmpdir);
    CU_ASSERT(same_results(a, b));
    CU_ASSERT(same_results(a, c));
    CU_ASSERT(same_results(d, e));
    /* not vacuous: PBD (k = 1) and XPBD (alpha = 1e-3) give different trajectories */
    double *x = NULL, *y = NULL;
    long r1, r2, c1, c2;
    CU_ASSERT_EQUAL_FATAL(pbd_h5_read_dataset(a, "/frames/000003/positions", &x, &r1, &c1), 0);
    CU_ASSERT_EQUAL_FATAL(pbd_h5_read_dataset(d, "/frames/000003/positions", &y, &r2, &c2), 0);
    CU_ASSERT(r1 == 256 && r2 == 256 && c1 == c2);
    CU_ASSERT(memcmp(x, y, (size_t)(r1 * c1) * sizeof(double)) != 0);
    free(x);
    free(y);

    char out[512];
    snprintf(out, sizeof out, "--out=%s/det2", tmpdir);
    const char *exp1[] = {"momentum_drift", "--quick", "--only=cloth_momentum", "--quiet", out,
                          "--frames=10", NULL};
    CU_ASSERT_EQUAL(run("pbd-run", exp1, 0), 0);
    snprintf(a, sizeof a, "%s/det2/momentum_drift/cloth_momentum.h5", tmpdir);
    snprintf(b, sizeof b, "%s/det2/momentum_drift/cloth_momentum.first.h5", tmpdir);
    CU_ASSERT_EQUAL_FATAL(rename(a, b), 0);
    CU_ASSERT_EQUAL(run("pbd-run", exp1, 0), 0);
    CU_ASSERT(same_dataset(a, b, "/series/linear_drift"));
    CU_ASSERT(same_dataset(a, b, "/series/angular_drift"));
    CU_ASSERT(same_dataset(a, b, "/series/kinetic_energy"));
    CU_ASSERT(same_dataset(a, b, "/frames/000002/positions"));
}

void register_output_tests(void)
{
    CU_pSuite s = CU_add_suite("output", suite_init, suite_clean);
    CU_add_test(s, "watchdog_keeps_steps", test_watchdog_keeps_steps);
    CU_add_test(s, "watchdog_scene_runner", test_watchdog_scene_runner);
    CU_add_test(s, "sigterm_experiment", test_sigterm_experiment);
    CU_add_test(s, "sigint_scene_runner", test_sigint_scene_runner);
    CU_add_test(s, "unwritable_directory", test_unwritable_directory);
    CU_add_test(s, "full_disk", test_full_disk);
    CU_add_test(s, "determinism_runs_and_threads", test_determinism_runs_and_threads);
}
