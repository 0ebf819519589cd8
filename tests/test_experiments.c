/* `pbd-run <experiment>`: a quick sweep writes its files and its summary, flags are
 * checked (exit status 2), --list and --only select runs, and the spring oscillator's
 * headline numbers are the physics they claim (XPBD: 1/α; PBD: stiffer with iterations). */
#include "tests.h"

#include <hdf5.h>
#include <hdf5_hl.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char tmpdir[256];

static int suite_init(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/pbd-test-experiments-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : 1;
}

static int suite_clean(void)
{
    return test_remove_dir(tmpdir) == 0 ? 0 : 1;
}

static int pbd_run(const char *args)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s/pbd-run %s >/dev/null 2>&1", test_bin_dir(), args);
    return test_run(cmd);
}

static int exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

static void test_quick_run_writes_files(void)
{
    char args[2048], path[1024];
    snprintf(args, sizeof args, "spring_oscillator --quick --out %s", tmpdir);
    CU_ASSERT_EQUAL_FATAL(pbd_run(args), 0);
    snprintf(path, sizeof path, "%s/spring_oscillator/xpbd_it5_hz60.h5", tmpdir);
    CU_ASSERT(exists(path));
    snprintf(path, sizeof path, "%s/spring_oscillator/pbd_it10_hz240.h5", tmpdir);
    CU_ASSERT(exists(path));
    /* no temporary file survives a completed sweep */
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "ls %s/spring_oscillator | grep -q partial", tmpdir);
    CU_ASSERT_NOT_EQUAL(test_run(cmd), 0);
    /* the summary: XPBD's measured stiffness is 1/α at every iteration count, PBD's grows */
    snprintf(path, sizeof path, "%s/spring_oscillator/summary.h5", tmpdir);
    CU_ASSERT_FATAL(exists(path));
    double kmin = 0, kmax = 0, pk_lo = 0, pk_hi = 0, dev = 1;
    CU_ASSERT_EQUAL(pbd_h5_read_attr_double(path, "headline.xpbd_k_min", &kmin), 0);
    CU_ASSERT_EQUAL(pbd_h5_read_attr_double(path, "headline.xpbd_k_max", &kmax), 0);
    CU_ASSERT_EQUAL(pbd_h5_read_attr_double(path, "headline.pbd_k_fewest_iterations", &pk_lo), 0);
    CU_ASSERT_EQUAL(pbd_h5_read_attr_double(path, "headline.pbd_k_most_iterations", &pk_hi), 0);
    CU_ASSERT_EQUAL(pbd_h5_read_attr_double(path, "headline.xpbd_max_dev_backward_euler", &dev), 0);
    CU_ASSERT_DOUBLE_EQUAL(kmin, 1000.0, 1.0);
    CU_ASSERT_DOUBLE_EQUAL(kmax, 1000.0, 1.0);
    CU_ASSERT(dev < 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(pk_lo, 1000.0, 1.0); /* PBD's matched k equals XPBD at 1 iteration */
    CU_ASSERT(pk_hi > 5000.0);
    char headline[1024];
    CU_ASSERT_EQUAL(pbd_h5_read_attr_string(path, "headline", headline, sizeof headline), 0);
    CU_ASSERT(strstr(headline, "XPBD") != NULL);
    /* a run file carries the sweep's parameters and the command line */
    snprintf(path, sizeof path, "%s/spring_oscillator/xpbd_it5_hz60.h5", tmpdir);
    double quick = 0, alpha = 0;
    CU_ASSERT_EQUAL(pbd_h5_read_attr_double(path, "quick", &quick), 0);
    CU_ASSERT_EQUAL(quick, 1.0);
    CU_ASSERT_EQUAL(pbd_h5_read_attr_double(path, "param.compliance", &alpha), 0);
    CU_ASSERT_EQUAL(alpha, 1e-3);
    /* pbd-h5extract reads it back for gnuplot */
    snprintf(cmd, sizeof cmd, "%s/pbd-h5extract %s /series/time /series/x | awk 'NR > 1' | "
             "wc -l | grep -qx 60", test_bin_dir(), path);
    CU_ASSERT_EQUAL(test_run(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s/pbd-h5extract %s /no/such/dataset >/dev/null 2>&1",
             test_bin_dir(), path);
    CU_ASSERT_EQUAL(test_run(cmd), 1);
    /* the report: the headline beside the paper's statement, the experiments not run listed */
    snprintf(cmd, sizeof cmd, "%s/pbd-report %s >/dev/null && grep -q \"effective stiffness is "
             "1000\" %s/report.html && grep -q 'id=\"chain_forces\"' %s/report.html",
             test_bin_dir(), tmpdir, tmpdir, tmpdir);
    CU_ASSERT_EQUAL(test_run(cmd), 0);
}

/* A results directory without any experiment's summary is an error, not an empty report
 * (make report RESULTS=DIR with DIR mistyped, or before make plots). */
static void test_report_needs_results(void)
{
    char dir[512], cmd[4096], html[600];
    snprintf(dir, sizeof dir, "%s/no-results", tmpdir);
    CU_ASSERT_EQUAL_FATAL(mkdir(dir, 0755), 0);
    snprintf(cmd, sizeof cmd, "%s/pbd-report %s >/dev/null 2>%s/err.txt", test_bin_dir(), dir,
             dir);
    CU_ASSERT_EQUAL(test_run(cmd), 1);
    snprintf(cmd, sizeof cmd, "test $(wc -l < %s/err.txt) = 1 && grep -q '%s: expected the merged "
             "results of at least one experiment' %s/err.txt", dir, dir, dir);
    CU_ASSERT_EQUAL(test_run(cmd), 0);
    snprintf(html, sizeof html, "%s/report.html", dir);
    CU_ASSERT(!exists(html));
}

static void test_bad_flags(void)
{
    CU_ASSERT_EQUAL(pbd_run("spring_oscillator --no-such-flag"), 2);
    CU_ASSERT_EQUAL(pbd_run("spring_oscillator --compliance=-1"), 2);
    CU_ASSERT_EQUAL(pbd_run("spring_oscillator --rates=60,abc --list"), 2);
    CU_ASSERT_EQUAL(pbd_run("spring_oscillator --methods=pbd,rk4 --list"), 2);
    CU_ASSERT_EQUAL(pbd_run("spring_oscillator --iterations=0 --list"), 2);
    char args[2048];
    snprintf(args, sizeof args, "spring_oscillator --only=no_such_run --out %s", tmpdir);
    CU_ASSERT_EQUAL(pbd_run(args), 2);
    CU_ASSERT_EQUAL(pbd_run("spring_oscillator --help"), 0);
    CU_ASSERT_EQUAL(pbd_run("--help"), 0);
}

static void test_list_and_only(void)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s/pbd-run spring_oscillator --quick --list | wc -l | grep -qx 12",
             test_bin_dir());
    CU_ASSERT_EQUAL(test_run(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s/pbd-run --list-experiments | grep -q '^spring_oscillator 0$'",
             test_bin_dir());
    CU_ASSERT_EQUAL(test_run(cmd), 0);
    char out[512], args[2048], path[1024];
    snprintf(out, sizeof out, "%s/only", tmpdir);
    snprintf(args, sizeof args, "spring_oscillator --quick --only=pbd_it5_hz240 --quiet --out %s",
             out);
    CU_ASSERT_EQUAL_FATAL(pbd_run(args), 0);
    snprintf(path, sizeof path, "%s/spring_oscillator/pbd_it5_hz240.h5", out);
    CU_ASSERT(exists(path));
    snprintf(cmd, sizeof cmd, "ls %s/spring_oscillator | wc -l | grep -qx 1", out);
    CU_ASSERT_EQUAL(test_run(cmd), 0); /* that run only, no summary */
    /* the merge of a sweep split across processes */
    snprintf(args, sizeof args, "spring_oscillator --quick --only=xpbd_it5_hz240 --quiet --out %s",
             out);
    CU_ASSERT_EQUAL_FATAL(pbd_run(args), 0);
    /* 10 runs missing: an error (issue 12), unless --allow-missing merges the two */
    snprintf(path, sizeof path, "%s/spring_oscillator/summary.h5", out);
    snprintf(args, sizeof args, "spring_oscillator --summarize --quiet --out %s", out);
    CU_ASSERT_EQUAL(pbd_run(args), 1);
    CU_ASSERT(!exists(path));
    snprintf(args, sizeof args, "spring_oscillator --summarize --allow-missing --quiet --out %s",
             out);
    CU_ASSERT_EQUAL_FATAL(pbd_run(args), 0);
    double merged = 0, missing = 0;
    CU_ASSERT_EQUAL(pbd_h5_read_attr_double(path, "n_runs_merged", &merged), 0);
    CU_ASSERT_EQUAL(pbd_h5_read_attr_double(path, "n_runs_missing", &missing), 0);
    CU_ASSERT_EQUAL(merged, 2.0);
    CU_ASSERT_EQUAL(missing, 10.0);
}

/* A run that declares its run-away a finding (stretch_bend_independence's dihedral bending on
 * soft edges, experiments/README.md "Run-aways as findings") completes when the watchdog
 * stops it: exit 0, a complete file recording the step, time, the watchdog's line and the
 * last finite state; the summary names it under "findings". The same stop in a run that
 * declared nothing still fails it (exit 5, only a .partial.h5). */
static void test_declared_runaway_is_a_finding(void)
{
    char args[2048], path[1024], text[1024];
    snprintf(args, sizeof args, "stretch_bend_independence --only=dihedral_kb1_ks0.01 --out %s",
             tmpdir);
    CU_ASSERT_EQUAL_FATAL(pbd_run(args), 0);
    snprintf(path, sizeof path, "%s/stretch_bend_independence/dihedral_kb1_ks0.01.h5", tmpdir);
    double complete = 0, diverged = 0, step = 0, last = 0, t = 0;
    CU_ASSERT_EQUAL(pbd_h5_read_attr_double(path, "complete", &complete), 0);
    CU_ASSERT_EQUAL(complete, 1.0);
    CU_ASSERT_EQUAL(pbd_h5_read_attr_double(path, "result.diverged", &diverged), 0);
    CU_ASSERT_EQUAL(diverged, 1.0);
    CU_ASSERT_EQUAL(pbd_h5_read_attr_double(path, "result.diverged_step", &step), 0);
    CU_ASSERT_EQUAL(pbd_h5_read_attr_double(path, "result.diverged_last_step", &last), 0);
    CU_ASSERT(step > 1 && step < 300); /* stopped within the run (full suite: 300 steps) */
    CU_ASSERT_EQUAL(last, step - 1);
    CU_ASSERT_EQUAL(pbd_h5_read_attr_double(path, "result.diverged_time", &t), 0);
    CU_ASSERT_DOUBLE_EQUAL(t, step / 60.0, 1e-9);
    CU_ASSERT_EQUAL(pbd_h5_read_attr_string(path, "result.diverged_reason", text, sizeof text), 0);
    CU_ASSERT(strstr(text, "diverged") != NULL && strstr(text, "watch-position") != NULL);
    CU_ASSERT_EQUAL(pbd_h5_read_attr_string(path, "divergence_is_finding", text, sizeof text), 0);
    double *x = NULL, *time = NULL;
    long rows = 0, cols = 0, n_steps = 0, c2 = 0;
    CU_ASSERT_EQUAL(pbd_h5_read_dataset(path, "/results/diverged_last_x", &x, &rows, &cols), 0);
    CU_ASSERT(rows > 0 && cols == 3 && x && test_all_finite(x, (int)(rows * cols)));
    /* the series holds the steps the watchdog accepted, up to the last finite state */
    CU_ASSERT_EQUAL(pbd_h5_read_dataset(path, "/series/time", &time, &n_steps, &c2), 0);
    CU_ASSERT_EQUAL(n_steps, (long)last);
    free(x);
    free(time);
    /* the merge names the finding */
    snprintf(args, sizeof args, "stretch_bend_independence --summarize --allow-missing --out %s",
             tmpdir);
    CU_ASSERT_EQUAL_FATAL(pbd_run(args), 0);
    snprintf(path, sizeof path, "%s/stretch_bend_independence/summary.h5", tmpdir);
    CU_ASSERT_EQUAL(pbd_h5_read_attr_string(path, "findings", text, sizeof text), 0);
    CU_ASSERT(strncmp(text, "dihedral_kb1_ks0.01: diverged at step ", 38) == 0);
    /* undeclared: the isometric run stopped by the watchdog (a NaN injected at step 5) */
    snprintf(args, sizeof args, "stretch_bend_independence --only=isometric_kb1_ks0.01 --quick "
             "--test-fault-step=5 --out %s", tmpdir);
    CU_ASSERT_EQUAL(pbd_run(args), 5);
    snprintf(path, sizeof path, "%s/stretch_bend_independence/isometric_kb1_ks0.01.h5", tmpdir);
    CU_ASSERT(!exists(path));
    snprintf(path, sizeof path, "%s/stretch_bend_independence/isometric_kb1_ks0.01.partial.h5",
             tmpdir);
    CU_ASSERT(exists(path));
}

/* The report prints every text whole (a 1500-character headline and a 700-character run list
 * were cut at 512 bytes before), a summary's findings as findings, and wraps the wide table. */
static void test_report_prints_whole_text(void)
{
    char dir[512], path[600], cmd[4096], headline[1600], runs[800];
    snprintf(dir, sizeof dir, "%s/long-text/chain_forces", tmpdir);
    snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
    CU_ASSERT_EQUAL_FATAL(test_run(cmd), 0);
    memset(headline, 'h', sizeof headline);
    snprintf(headline + 1500, 100, " END-OF-HEADLINE");
    memset(runs, 'r', sizeof runs);
    snprintf(runs + 700, 100, " END-OF-RUNS");
    snprintf(path, sizeof path, "%s/summary.h5", dir);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    CU_ASSERT_FATAL(f >= 0);
    H5LTset_attribute_string(f, "/", "headline", headline);
    H5LTset_attribute_string(f, "/", "paper", "the paper");
    H5LTset_attribute_string(f, "/", "runs_merged", runs);
    H5LTset_attribute_string(f, "/", "findings", "run_a: diverged at step 56 (t = 0.93 s): why");
    H5Fclose(f);
    snprintf(cmd, sizeof cmd, "%s/pbd-report %s/long-text >/dev/null 2>&1", test_bin_dir(), tmpdir);
    CU_ASSERT_EQUAL_FATAL(test_run(cmd), 0);
    snprintf(path, sizeof path, "%s/long-text/report.html", tmpdir);
    snprintf(cmd, sizeof cmd, "grep -q 'h END-OF-HEADLINE</td>' %s && grep -q 'r END-OF-RUNS' %s && "
             "grep -q 'class=\"finding\"><b>Findings</b>.*run_a: diverged at step 56' %s && "
             "! grep -q 'Runs missing' %s", path, path, path, path);
    CU_ASSERT_EQUAL(test_run(cmd), 0);
}

void register_experiments_tests(void)
{
    CU_pSuite s = CU_add_suite("experiments", suite_init, suite_clean);
    CU_add_test(s, "quick_run_writes_files", test_quick_run_writes_files);
    CU_add_test(s, "bad_flags", test_bad_flags);
    CU_add_test(s, "report_needs_results", test_report_needs_results);
    CU_add_test(s, "list_and_only", test_list_and_only);
    CU_add_test(s, "declared_runaway_is_a_finding", test_declared_runaway_is_a_finding);
    CU_add_test(s, "report_prints_whole_text", test_report_prints_whole_text);
}
