/* Fault injection, the second half (issue 12): --summarize with corrupt and missing run
 * files, partial files that describe themselves after a full disk, out of memory, and the
 * small items (limits, names, mesh input, numbers). Programs run through the shell. */
#include "tests.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[256], err_text[8192];

static int suite_init(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/pbd-test-faults-files-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : 1;
}

static int suite_clean(void) { return test_remove_dir(tmpdir) == 0 ? 0 : 1; }

/* `prefix PBD_BIN/prog args` through sh (stdout dropped), stderr into err_text; exit status. */
static int sh(const char *prefix, const char *prog, const char *args)
{
    char cmd[8192], err[400];
    snprintf(err, sizeof err, "%s/stderr.txt", tmpdir);
    snprintf(cmd, sizeof cmd, "%s %s/%s %s >/dev/null 2>'%s'", prefix, test_bin_dir(), prog, args,
             err);
    int rc = test_run(cmd);
    FILE *f = fopen(err, "r");
    size_t n = f ? fread(err_text, 1, sizeof err_text - 1, f) : 0;
    err_text[n] = '\0';
    if (f) fclose(f);
    return rc;
}

static int lines(void)
{
    int n = 0;
    for (const char *s = err_text; *s; s++) n += *s == '\n';
    return n;
}

static double attr(const char *path, const char *name)
{
    double v = NAN;
    pbd_h5_read_attr_double(path, name, &v);
    return v;
}

static long rows_of(const char *path, const char *dataset)
{
    double *d = NULL;
    long rows = -1, cols = 0;
    if (pbd_h5_read_dataset(path, dataset, &d, &rows, &cols) != 0) return -1;
    free(d);
    return rows;
}

/* ---- 5. --summarize validates --------------------------------------------------------- */

static void test_summarize_validates(void)
{
    char args[2048], dir[600], summary[700], cmd[4096];
    snprintf(dir, sizeof dir, "%s/sum/spring_oscillator", tmpdir);
    snprintf(summary, sizeof summary, "%s/summary.h5", dir);
    /* zero runs: no headline, an error naming them */
    snprintf(args, sizeof args, "spring_oscillator --summarize --out=%s/sum", tmpdir);
    CU_ASSERT_EQUAL(sh("", "pbd-run", args), 1);
    CU_ASSERT_EQUAL(lines(), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "no run to merge"));
    CU_ASSERT(!test_exists(summary));
    /* three good runs, then one becomes random bytes and one half a file */
    const char *runs[] = {"xpbd_it5_hz60", "pbd_it5_hz60", "pbd_it1_hz60"};
    for (int i = 0; i < 3; i++) {
        snprintf(args, sizeof args, "spring_oscillator --quick --only=%s --quiet --out=%s/sum",
                 runs[i], tmpdir);
        CU_ASSERT_EQUAL_FATAL(sh("", "pbd-run", args), 0);
    }
    snprintf(cmd, sizeof cmd, "head -c 4000 /dev/urandom > '%s/pbd_it5_hz60.h5' && "
             "head -c 3000 '%s/pbd_it1_hz60.h5' > '%s/half' && mv '%s/half' '%s/pbd_it1_hz60.h5'",
             dir, dir, dir, dir, dir);
    CU_ASSERT_EQUAL_FATAL(test_run(cmd), 0);
    snprintf(args, sizeof args, "spring_oscillator --quick --summarize --out=%s/sum", tmpdir);
    CU_ASSERT_EQUAL(sh("", "pbd-run", args), 1);
    CU_ASSERT_EQUAL(lines(), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "pbd_it5_hz60 ("));
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "pbd_it1_hz60 ("));
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "expected a readable HDF5 file, found a corrupt"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "missing"));
    CU_ASSERT(!test_exists(summary));
    /* --allow-missing merges the one good run and names the others */
    snprintf(args, sizeof args, "spring_oscillator --quick --summarize --allow-missing "
             "--out=%s/sum", tmpdir);
    CU_ASSERT_EQUAL(sh("", "pbd-run", args), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "merging 1 of 12 runs"));
    CU_ASSERT_EQUAL(attr(summary, "n_runs_merged"), 1.0);
    CU_ASSERT_EQUAL(attr(summary, "n_runs_missing"), 11.0);
    /* a partial file put under the final name is not complete */
    snprintf(args, sizeof args, "spring_oscillator --quick --only=pbd_it10_hz60 --quiet "
             "--test-fault-step=20 --out=%s/sum", tmpdir);
    CU_ASSERT_EQUAL(sh("", "pbd-run", args), 5);
    snprintf(cmd, sizeof cmd, "mv '%s/pbd_it10_hz60.partial.h5' '%s/pbd_it10_hz60.h5'", dir, dir);
    CU_ASSERT_EQUAL_FATAL(test_run(cmd), 0);
    snprintf(args, sizeof args, "spring_oscillator --quick --summarize --out=%s/sum", tmpdir);
    CU_ASSERT_EQUAL(sh("", "pbd-run", args), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "pbd_it10_hz60 ("));
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "complete = 1"));
}

/* ---- 6. partial files describe themselves ---------------------------------------------- */

/* A full disk (RLIMIT_FSIZE) with a frame every step: the kept partial file has the
 * attributes a complete one has, complete = 0 and why, and as many frames as its steps
 * allow (never a frame of a step that is not in /series). */
static void test_partial_self_describing(void)
{
    char args[2048], partial[700];
    snprintf(args, sizeof args, "cloth --steps=100000000 --quiet --frames=1 --out=%s/full",
             tmpdir);
    CU_ASSERT_EQUAL(sh("trap '' XFSZ; ulimit -f 4000;", "pbd-run", args), 3); /* 2 MB */
    CU_ASSERT_EQUAL(lines(), 1);
    snprintf(partial, sizeof partial, "%s/full/cloth/run.partial.h5", tmpdir);
    long rows = rows_of(partial, "/series/time");
    CU_ASSERT(rows >= 1);
    CU_ASSERT_EQUAL(attr(partial, "complete"), 0.0);
    CU_ASSERT_EQUAL(attr(partial, "steps"), (double)rows);
    long frames = rows_of(partial, "/frames/time");
    CU_ASSERT_EQUAL(frames, rows + 1); /* the initial state and one per step */
    CU_ASSERT_EQUAL(attr(partial, "frames"), (double)frames);
    /* one group per frame (/frames/<k>): exactly those of the kept frames, the last of the
     * last step in /series; and the closing attributes of a complete file */
    char name[64];
    double *d = NULL;
    long r = 0, c = 0;
    snprintf(name, sizeof name, "/frames/%06ld/positions", frames - 1);
    CU_ASSERT_EQUAL(pbd_h5_read_dataset(partial, name, &d, &r, &c), 0);
    free(d);
    d = NULL;
    snprintf(name, sizeof name, "/frames/%06ld/positions", frames);
    CU_ASSERT_NOT_EQUAL(pbd_h5_read_dataset(partial, name, &d, &r, &c), 0);
    free(d);
    d = NULL;
    pbd_h5_names members;
    CU_ASSERT_EQUAL(pbd_h5_read_names(partial, "/frames", &members), 0);
    CU_ASSERT_EQUAL(members.count, frames + 4); /* + time, step, n_particles, topology_version */
    CU_ASSERT_EQUAL_FATAL(pbd_h5_read_dataset(partial, "/frames/step", &d, &r, &c), 0);
    CU_ASSERT(r == frames && d[r - 1] == (double)rows);
    free(d);
    double load[3] = {-1, -1, -1};
    CU_ASSERT_EQUAL(pbd_h5_read_attr_doubles(partial, "machine.loadavg_end", load, 3), 0);
    CU_ASSERT(load[0] >= 0.0);
    CU_ASSERT(attr(partial, "threads_used") >= 1.0);
    char stopped[1100] = "", experiment[100] = "";
    CU_ASSERT_EQUAL(pbd_h5_read_attr_string(partial, "stopped", stopped, sizeof stopped), 0);
    CU_ASSERT(strlen(stopped) > 0);
    CU_ASSERT_EQUAL(pbd_h5_read_attr_string(partial, "experiment", experiment, sizeof experiment), 0);
    CU_ASSERT(attr(partial, "solver.watch_position") > 0.0 ||
              attr(partial, "solver.watch-position") > 0.0);
    if (frames != rows + 1) fprintf(stderr, "\n  %ld frames, %ld rows: %s", frames, rows, err_text);
}

/* ---- 7. out of memory -------------------------------------------------------------------- */

static void test_out_of_memory(void)
{
    char args[2048];
    /* a step that runs out of memory (test hook): exit 4, one line, steps 1-69 kept */
    snprintf(args, sizeof args, "chain --steps=100 --quiet --test-fault-step=70 --test-fault=oom "
             "--out=%s/oom", tmpdir);
    CU_ASSERT_EQUAL(sh("", "pbd-run", args), 4);
    CU_ASSERT_EQUAL(lines(), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "kept steps 1-69"));
    char partial[700];
    snprintf(partial, sizeof partial, "%s/oom/chain/run.partial.h5", tmpdir);
    CU_ASSERT_EQUAL(rows_of(partial, "/series/time"), 69);
#if defined(__SANITIZE_ADDRESS__)
    fprintf(stderr, "\n  out_of_memory: RLIMIT_AS skipped under AddressSanitizer ");
#else
    /* a real limit on the address space: a scene too big for it is exit 4, one line */
    CU_ASSERT_EQUAL(sh("ulimit -v 400000;", "pbd-run", "cloth --resolution=4000 --steps=2 --quiet"),
                    4);
    CU_ASSERT_EQUAL(lines(), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "out of memory"));
#endif
}

/* ---- 8. the small items ------------------------------------------------------------------ */

static void write_file(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f) return;
    fwrite(text, 1, len, f);
    fclose(f);
}

static void test_small_items(void)
{
    char args[2048], path[700];
    /* the grid's real limit, 1e8 vertices in all; a parameter out of range is exit 2 */
    CU_ASSERT_EQUAL(sh("", "pbd-run", "cloth --resolution=20000 --steps=1 --quiet"), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "100000000"));
    /* --row past the end */
    snprintf(args, sizeof args, "chain --steps=3 --quiet --out=%s/row", tmpdir);
    CU_ASSERT_EQUAL_FATAL(sh("", "pbd-run", args), 0);
    snprintf(args, sizeof args, "%s/row/chain/run.h5 /series/time --row=1000000000", tmpdir);
    CU_ASSERT_EQUAL(sh("", "pbd-h5extract", args), 2);
    CU_ASSERT_EQUAL(lines(), 1);
    /* run names: XML characters escaped in the sidecar, hidden names refused */
    snprintf(args, sizeof args, "chain --steps=2 --frames=1 --quiet --out=%s/xml "
             "'--run=a\"b<c>&'", tmpdir);
    CU_ASSERT_EQUAL(sh("", "pbd-run", args), 0);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "grep -q 'a&quot;b&lt;c&gt;&amp;' '%s/xml/chain/a\"b<c>&.xdmf' && "
             "! grep -q '<c>' '%s/xml/chain/a\"b<c>&.xdmf'", tmpdir, tmpdir);
    CU_ASSERT_EQUAL(test_run(cmd), 0);
    snprintf(args, sizeof args, "chain --steps=2 --quiet --out=%s/xml --run=..", tmpdir);
    CU_ASSERT_EQUAL(sh("", "pbd-run", args), 2);
    snprintf(args, sizeof args, "chain --steps=2 --quiet --out=%s/xml --run=.", tmpdir);
    CU_ASSERT_EQUAL(sh("", "pbd-run", args), 2);
    /* a NUL byte in an OBJ line; a device as a mesh */
    snprintf(path, sizeof path, "%s/nul.obj", tmpdir);
    write_file(path, "v 0 0 0\nv 1 0 0 \0 junk\nv 0 1 0\nf 1 2 3\n", 37);
    snprintf(args, sizeof args, "cloth --mesh=%s --steps=1 --quiet", path);
    CU_ASSERT_EQUAL(sh("", "pbd-run", args), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "NUL"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, ":2:"));
    CU_ASSERT_EQUAL(sh("timeout 20", "pbd-run", "cloth --mesh=/dev/zero --steps=1 --quiet"), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "/dev/zero"));
    /* a balloon that encloses no volume: a triangle and its reverse */
    snprintf(path, sizeof path, "%s/flat.obj", tmpdir);
    write_file(path, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 3 2\n", 40);
    snprintf(args, sizeof args, "balloon --mesh=%s --steps=1 --quiet", path);
    CU_ASSERT_EQUAL(sh("", "pbd-run", args), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "volume"));
    /* numbers: spaces on either side refused alike; whole numbers in exponent form taken */
    CU_ASSERT_EQUAL(sh("", "pbd-run", "chain '--steps= 5' --quiet"), 2);
    CU_ASSERT_EQUAL(sh("", "pbd-run", "chain '--steps=5 ' --quiet"), 2);
    CU_ASSERT_EQUAL(sh("", "pbd-run", "chain '--dt= 0.01' --steps=1 --quiet"), 2);
    CU_ASSERT_EQUAL(sh("", "pbd-run", "chain --steps=1e1 --quiet"), 0);
    CU_ASSERT_EQUAL(sh("", "pbd-run", "chain --steps=1.5 --quiet"), 2);
    snprintf(cmd, sizeof cmd, "%s/pbd-run --help | grep -- '--steps' | grep -q 1000000000",
             test_bin_dir());
    CU_ASSERT_EQUAL(test_run(cmd), 0);
    /* 1e-320 is a number > 0: the message must not say it is not */
    CU_ASSERT_EQUAL(sh("", "pbd-run", "chain --dt=1e-320 --steps=1 --quiet"), 2);
    CU_ASSERT_PTR_NULL(strstr(err_text, "expected a number > 0"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err_text, "dt"));
    /* what cannot run is refused up front, not at step 1 */
    const char *absurd[] = {"--dt=1e300", "--gravity=1e308", "--compliance=1e308"};
    for (int i = 0; i < 3; i++) {
        snprintf(args, sizeof args, "chain %s --steps=3 --quiet --method=xpbd", absurd[i]);
        CU_ASSERT_EQUAL(sh("", "pbd-run", args), 2);
        CU_ASSERT_EQUAL(lines(), 1);
        CU_ASSERT_PTR_NULL(strstr(err_text, "step 1"));
    }
}

void register_faults_files_tests(void)
{
    CU_pSuite s = CU_add_suite("faults_files", suite_init, suite_clean);
    CU_add_test(s, "summarize_validates", test_summarize_validates);
    CU_add_test(s, "partial_self_describing", test_partial_self_describing);
    CU_add_test(s, "out_of_memory", test_out_of_memory);
    CU_add_test(s, "small_items", test_small_items);
}
