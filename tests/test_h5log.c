/* HDF5 run logging (experiments/h5log.c): shapes and values of /series, /iterations,
 * /frames and /scene, the root attributes, the XDMF sidecar, and that an interrupted run
 * never leaves a file under the final name. */
#include "tests.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char tmpdir[256];

static int suite_init(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/pbd-test-h5log-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : 1;
}

static int suite_clean(void)
{
    return test_remove_dir(tmpdir) == 0 ? 0 : 1;
}

static int exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

/* A particle on a spring to a fixed one: XPBD, 3 iterations, dt = 0.01. */
static pbd_world *spring_world(void)
{
    const double a[3] = {0, 0, 0}, b[3] = {1.5, 0, 0};
    pbd_world *w = test_two_particles(a, b, 0.0, 2.0);
    int s = pbd_world_add_set(w, &pbd_distance_type, 0);
    int32_t idx[2] = {0, 1};
    double rest = 1.0;
    pbd_set_add(w, s, idx, &rest, 1.0, 1e-3);
    w->def.dt = 0.01;
    w->def.iterations = 3;
    w->def.method = PBD_METHOD_XPBD;
    w->def.record_iterations = 1;
    return w;
}

static void test_series_shapes_and_values(void)
{
    pbd_world *w = spring_world();
    pbd_h5log_options o = {.frames_every = 2, .block = 4};
    pbd_h5log *log = pbd_h5log_open(tmpdir, "unit", "spring", w, &o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(log);
    char path[1024], partial[1024];
    snprintf(path, sizeof path, "%s", pbd_h5log_path(log));
    snprintf(partial, sizeof partial, "%s", pbd_h5log_partial_path(log));
    CU_ASSERT(strstr(path, "/unit/spring.h5") != NULL);
    CU_ASSERT(exists(partial));
    CU_ASSERT(!exists(path));
    int col = pbd_h5log_column(log, "x", 1, "m");
    CU_ASSERT(col >= 0);
    CU_ASSERT_EQUAL(pbd_h5log_attr_double(log, "result.answer", 42.0), PBD_OK);
    double ke[10], x1[10];
    for (int k = 0; k < 10; k++) {
        CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
        if (k != 7) pbd_h5log_set1(log, col, w->x[3]); /* step 8 leaves it unset: NaN */
        CU_ASSERT_EQUAL(pbd_h5log_step(log, w), PBD_OK);
        ke[k] = w->stats.kinetic_energy;
        x1[k] = w->x[3];
    }
    CU_ASSERT_EQUAL(pbd_h5log_column(log, "late", 1, "m"), -1); /* only before the first step */
    CU_ASSERT_EQUAL_FATAL(pbd_h5log_finish(log), PBD_OK);
    CU_ASSERT(exists(path));
    CU_ASSERT(!exists(partial));

    double *d;
    long rows, cols;
    CU_ASSERT_EQUAL_FATAL(pbd_h5_read_dataset(path, "/series/time", &d, &rows, &cols), 0);
    CU_ASSERT_EQUAL(rows, 10);
    CU_ASSERT_EQUAL(cols, 1);
    for (int k = 0; k < rows; k++) CU_ASSERT_DOUBLE_EQUAL(d[k], (k + 1) * 0.01, 1e-12);
    free(d);
    CU_ASSERT_EQUAL_FATAL(pbd_h5_read_dataset(path, "/series/kinetic_energy", &d, &rows, &cols), 0);
    for (int k = 0; k < 10; k++) CU_ASSERT_EQUAL(d[k], ke[k]);
    free(d);
    CU_ASSERT_EQUAL_FATAL(pbd_h5_read_dataset(path, "/series/x", &d, &rows, &cols), 0);
    CU_ASSERT_EQUAL(rows, 10);
    for (int k = 0; k < 10; k++) {
        if (k == 7) {
            CU_ASSERT(isnan(d[k]));
        } else {
            CU_ASSERT_EQUAL(d[k], x1[k]);
        }
    }
    free(d);
    CU_ASSERT_EQUAL_FATAL(pbd_h5_read_dataset(path, "/series/linear_momentum", &d, &rows, &cols), 0);
    CU_ASSERT_EQUAL(rows, 10);
    CU_ASSERT_EQUAL(cols, 3);
    /* p = m v of the one free particle (m = 2) */
    CU_ASSERT_DOUBLE_EQUAL(d[9 * 3], 2.0 * w->v[3], 1e-12);
    free(d);
    CU_ASSERT_EQUAL_FATAL(pbd_h5_read_dataset(path, "/series/stage_seconds", &d, &rows, &cols), 0);
    CU_ASSERT_EQUAL(cols, PBD_STAGE_COUNT);
    free(d);
    /* /iterations: steps × (iterations · substeps); the residual of the last iteration is the
     * one the step measured at p, which becomes x */
    CU_ASSERT_EQUAL_FATAL(pbd_h5_read_dataset(path, "/iterations/l2_c", &d, &rows, &cols), 0);
    CU_ASSERT_EQUAL(rows, 10);
    CU_ASSERT_EQUAL(cols, 3);
    double *l2;
    long r2, c2;
    CU_ASSERT_EQUAL_FATAL(pbd_h5_read_dataset(path, "/series/l2_c", &l2, &r2, &c2), 0);
    for (int k = 0; k < 10; k++) CU_ASSERT_DOUBLE_EQUAL(d[k * 3 + 2], l2[k], 1e-12);
    free(d);
    free(l2);
    /* /frames: the initial state and every 2nd step, n × 3 each, one group per frame */
    CU_ASSERT_EQUAL_FATAL(pbd_h5_read_dataset(path, "/frames/time", &d, &rows, &cols), 0);
    CU_ASSERT_EQUAL(rows, 6);
    CU_ASSERT_DOUBLE_EQUAL(d[5], 0.1, 1e-12);
    free(d);
    CU_ASSERT_EQUAL_FATAL(pbd_h5_read_dataset(path, "/frames/step", &d, &rows, &cols), 0);
    CU_ASSERT_EQUAL(d[0], 0.0);
    CU_ASSERT_EQUAL(d[5], 10.0);
    free(d);
    CU_ASSERT_EQUAL_FATAL(pbd_h5_read_dataset(path, "/frames/000000/positions", &d, &rows, &cols), 0);
    CU_ASSERT_EQUAL(rows, 2);
    CU_ASSERT_EQUAL(cols, 3);
    CU_ASSERT_EQUAL(d[3], 1.5);              /* frame 0, particle 1, x */
    free(d);
    CU_ASSERT_EQUAL_FATAL(pbd_h5_read_dataset(path, "/frames/000005/positions", &d, &rows, &cols), 0);
    CU_ASSERT_EQUAL(d[3], x1[9]);            /* frame 5 = step 10 */
    free(d);
    /* λ of the set at frame 5: the world's λ after step 10 */
    CU_ASSERT_EQUAL_FATAL(pbd_h5_read_dataset(path, "/frames/000005/lambda/00_distance", &d, &rows,
                                              &cols), 0);
    CU_ASSERT_EQUAL(rows, 1);
    CU_ASSERT_EQUAL(d[0], w->sets[0].lambda[0]);
    CU_ASSERT(d[0] != 0.0);
    free(d);
    CU_ASSERT_EQUAL_FATAL(pbd_h5_read_dataset(path, "/scene/sets/00_distance/indices", &d, &rows,
                                              &cols), 0);
    CU_ASSERT_EQUAL(rows, 1);
    CU_ASSERT_EQUAL(cols, 2);
    CU_ASSERT_EQUAL(d[1], 1.0);
    free(d);
    CU_ASSERT_EQUAL_FATAL(pbd_h5_read_dataset(path, "/scene/inverse_masses", &d, &rows, &cols), 0);
    CU_ASSERT_EQUAL(d[0], 0.0);
    CU_ASSERT_EQUAL(d[1], 0.5);
    free(d);

    /* root attributes */
    char buf[256];
    double v;
    CU_ASSERT_EQUAL(pbd_h5_read_attr_string(path, "experiment", buf, sizeof buf), 0);
    CU_ASSERT_STRING_EQUAL(buf, "unit");
    CU_ASSERT_EQUAL(pbd_h5_read_attr_string(path, "run", buf, sizeof buf), 0);
    CU_ASSERT_STRING_EQUAL(buf, "spring");
    CU_ASSERT_EQUAL(pbd_h5_read_attr_string(path, "solver.method", buf, sizeof buf), 0);
    CU_ASSERT_STRING_EQUAL(buf, "xpbd");
    CU_ASSERT_EQUAL(pbd_h5_read_attr_string(path, "pbdlab_version", buf, sizeof buf), 0);
    CU_ASSERT_STRING_EQUAL(buf, PBD_VERSION);
    const char *present[] = {"git_revision", "compiler", "cflags", "date"};
    for (int i = 0; i < 4; i++) {
        CU_ASSERT_EQUAL(pbd_h5_read_attr_string(path, present[i], buf, sizeof buf), 0);
        CU_ASSERT(strlen(buf) > 0);
    }
    CU_ASSERT_EQUAL(pbd_h5_read_attr_double(path, "solver.dt", &v), 0);
    CU_ASSERT_EQUAL(v, 0.01);
    CU_ASSERT_EQUAL(pbd_h5_read_attr_double(path, "solver.iterations", &v), 0);
    CU_ASSERT_EQUAL(v, 3.0);
    CU_ASSERT_EQUAL(pbd_h5_read_attr_double(path, "solver.record_iterations", &v), 0);
    CU_ASSERT_EQUAL(v, 1.0);
    CU_ASSERT_EQUAL(pbd_h5_read_attr_double(path, "seed", &v), 0);
    CU_ASSERT_EQUAL(pbd_h5_read_attr_double(path, "steps", &v), 0);
    CU_ASSERT_EQUAL(v, 10.0);
    CU_ASSERT_EQUAL(pbd_h5_read_attr_double(path, "result.answer", &v), 0);
    CU_ASSERT_EQUAL(v, 42.0);
    CU_ASSERT_NOT_EQUAL(pbd_h5_read_attr_double(path, "no.such.attribute", &v), 0);
    pbd_world_free(w);
}

/* The sidecar sits beside the file, names it by its final name and has one grid per frame,
 * each a hyperslab of /frames/positions, with the distance constraints as its topology. */
static void test_xdmf_sidecar(void)
{
    char xdmf[1024];
    snprintf(xdmf, sizeof xdmf, "%s/unit/spring.xdmf", tmpdir);
    if (!exists(xdmf)) test_series_shapes_and_values();
    FILE *f = fopen(xdmf, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    char text[16384];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    CU_ASSERT(strstr(text, "<Xdmf") != NULL);
    CU_ASSERT(strstr(text, "spring.h5:/frames/000005/positions") != NULL);
    CU_ASSERT(strstr(text, "spring.h5:/scene/sets/00_distance/indices") != NULL);
    CU_ASSERT(strstr(text, "partial") == NULL);
    int grids = 0;
    for (const char *p = text; (p = strstr(p, "<Grid Name=\"frame ")); p++) grids++;
    CU_ASSERT_EQUAL(grids, 6);
    /* ParaView's default reader drops an item whose number type it does not know before
     * reading (a HyperSlab): every HDF item names one dataset and its NumberType */
    CU_ASSERT(strstr(text, "HyperSlab") == NULL);
    int items = 0, typed = 0;
    for (const char *p = text; (p = strstr(p, "<DataItem ")); p++) {
        items++;
        const char *end = strchr(p, '>');
        const char *nt = strstr(p, "NumberType=");
        typed += nt && end && nt < end;
    }
    CU_ASSERT(items >= 12);
    CU_ASSERT_EQUAL(items, typed);
}

/* The sidecar of the spring world with `orients` orientations (no constraint on them), two
 * frames with velocities: its text in text (size bytes). */
static void sidecar_with_orientations(int orients, char *text, size_t size)
{
    pbd_world *w = spring_world();
    const double q[4] = {1, 0, 0, 0}, omega[3] = {0, 0, 0}, inv_inertia[3] = {1, 1, 1};
    for (int k = 0; k < orients; k++)
        CU_ASSERT(pbd_world_add_orientation(w, q, omega, inv_inertia) >= 0);
    pbd_h5log_options o = {.frames_every = 1, .frame_velocities = 1};
    char run[32];
    snprintf(run, sizeof run, "orient%d", orients);
    pbd_h5log *log = pbd_h5log_open(tmpdir, "unit", run, w, &o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(log);
    pbd_step(w);
    CU_ASSERT_EQUAL(pbd_h5log_step(log, w), PBD_OK);
    CU_ASSERT_EQUAL(pbd_h5log_finish(log), PBD_OK);
    pbd_world_free(w);
    char path[1024];
    snprintf(path, sizeof path, "%s/unit/%s.xdmf", tmpdir, run);
    FILE *f = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    size_t n = fread(text, 1, size - 1, f);
    text[n] = '\0';
    fclose(f);
}

/* One orientation per point (a rigid world's mirror): the sidecar shows them, a point array
 * of 4 components per frame, and the angular velocities; a rod's (one per segment, not per
 * point) are not shown. */
static void test_xdmf_orientations(void)
{
    char text[16384];
    sidecar_with_orientations(2, text, sizeof text);
    CU_ASSERT(strstr(text, "<Attribute Name=\"orientation\" AttributeType=\"Matrix\" "
                           "Center=\"Node\">\n     <DataItem Dimensions=\"2 4\"") != NULL);
    CU_ASSERT(strstr(text, "orient2.h5:/frames/000001/orientations<") != NULL);
    CU_ASSERT(strstr(text, "orient2.h5:/frames/000001/angular_velocities<") != NULL);
    sidecar_with_orientations(1, text, sizeof text);
    CU_ASSERT(strstr(text, "orientation") == NULL);
    CU_ASSERT(strstr(text, "angular_velocit") == NULL);
    CU_ASSERT(strstr(text, "orient1.h5:/frames/000001/velocities<") != NULL);
}

/* `steps` steps of the spring world logged with `o`, then _exit as if killed (no finish, no
 * close) or finished: the /series/time rows of what is left (the partial file when killed)
 * in *t (freed by the caller), their count returned; -1 when it does not read. */
static long killed_or_finished(const pbd_h5log_options *o, int steps, int killed, double **t)
{
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        pbd_world *w = spring_world();
        pbd_h5log *log = pbd_h5log_open(tmpdir, "unit", "killed", w, o);
        if (!log) _exit(3);
        for (int k = 0; k < steps; k++) {
            pbd_step(w);
            if (pbd_h5log_step(log, w) != PBD_OK) _exit(4);
        }
        if (!killed && pbd_h5log_finish(log) != PBD_OK) _exit(5);
        _exit(0);
    }
    int status;
    waitpid(pid, &status, 0);
    CU_ASSERT_FATAL(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    char path[1024], partial[1100];
    snprintf(path, sizeof path, "%s/unit/killed.h5", tmpdir);
    snprintf(partial, sizeof partial, "%s.partial-%ld", path, (long)pid);
    CU_ASSERT(exists(killed ? partial : path));
    CU_ASSERT(!exists(killed ? path : partial));
    long rows = -1, cols;
    if (pbd_h5_read_dataset(killed ? partial : path, "/series/time", t, &rows, &cols) != 0)
        rows = -1;
    remove(partial);
    remove(path);
    return rows;
}

/* A run killed before pbd_h5log_finish: nothing under the final name; the temporary file
 * holds the blocks flushed so far and opens as a valid HDF5 file. Flushed every block
 * (flush_seconds < 0): two blocks of 4 of 10 steps; on time (an hour): the first block
 * only, the next 16 steps in the grown buffers, and all 20 in order once finished. */
static void test_interrupted_run(void)
{
    double *d = NULL;
    pbd_h5log_options every = {.block = 4, .flush_seconds = -1};
    CU_ASSERT_EQUAL(killed_or_finished(&every, 10, 1, &d), 8); /* steps 9–10 buffered */
    if (d) CU_ASSERT_DOUBLE_EQUAL(d[7], 0.08, 1e-12);
    free(d);
    d = NULL;
    pbd_h5log_options hourly = {.block = 4, .flush_seconds = 3600};
    CU_ASSERT_EQUAL(killed_or_finished(&hourly, 20, 1, &d), 4);
    free(d);
    d = NULL;
    CU_ASSERT_EQUAL_FATAL(killed_or_finished(&hourly, 20, 0, &d), 20);
    /* t_k = k dt, summed step by step: within 20 ulp(0.2) */
    for (int k = 0; k < 20; k++) CU_ASSERT_DOUBLE_EQUAL(d[k], 0.01 * (k + 1), 20 * 2.8e-17);
    free(d);
}

static void test_discard_and_errors(void)
{
    pbd_world *w = spring_world();
    pbd_h5log *log = pbd_h5log_open(tmpdir, "unit", "discarded", w, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(log);
    char partial[1024];
    snprintf(partial, sizeof partial, "%s", pbd_h5log_partial_path(log));
    pbd_step(w);
    pbd_h5log_step(log, w);
    pbd_h5log_discard(log);
    CU_ASSERT(!exists(partial));
    char path[1024];
    snprintf(path, sizeof path, "%s/unit/discarded.h5", tmpdir);
    CU_ASSERT(!exists(path));
    /* an output "directory" that is a file: NULL and one error line naming it */
    char file[1024];
    snprintf(file, sizeof file, "%s/plainfile", tmpdir);
    FILE *f = fopen(file, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fclose(f);
    CU_ASSERT_PTR_NULL(pbd_h5log_open(file, "unit", "x", w, NULL));
    CU_ASSERT(strstr(pbd_last_error(), "plainfile") != NULL);
    CU_ASSERT_PTR_NULL(pbd_h5log_open(tmpdir, "unit", "bad/name", w, NULL));
    pbd_world_free(w);
}

void register_h5log_tests(void)
{
    CU_pSuite s = CU_add_suite("h5log", suite_init, suite_clean);
    CU_add_test(s, "series_shapes_and_values", test_series_shapes_and_values);
    CU_add_test(s, "xdmf_sidecar", test_xdmf_sidecar);
    CU_add_test(s, "xdmf_orientations", test_xdmf_orientations);
    CU_add_test(s, "interrupted_run", test_interrupted_run);
    CU_add_test(s, "discard_and_errors", test_discard_and_errors);
}
