/* pbd-run refuses a run too large for memory before it builds the scene (exit 4, one line
 * with the estimate by part and the memory available), runs that fit go on, and the estimate
 * is an upper one within a bounded factor of what a run holds. */
#include "tests.h"

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The methods' command lines; the last is XPBD with the Newton reference. */
static const char *const methods[][3] = {
    {"--method=pd", "--compliance=1e-7", NULL},
    {"--method=vbd", "--compliance=1e-7", NULL},
    {"--method=newton", "--compliance=1e-7", NULL},
    {"--reference=newton", "--compliance=1e-7", NULL},
};
#define N_METHODS 4

/* pbd-run cloth `res` --steps=2 --quiet with methods[m] under the limit variable `var`
 * = `limit`: its exit status within `seconds` (-1: still running then, killed), stderr in
 * err. */
static int run_limited(int m, const char *res, const char *var, const char *limit,
                       double seconds, char *err, size_t size)
{
    char path[] = "/tmp/pbd-memory-refusal-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return -2;
    close(fd);
    const char *args[12] = {"cloth", res, "--steps=2", "--quiet"};
    int n = 4;
    for (int k = 0; k < 3 && methods[m][k]; k++) args[n++] = methods[m][k];
    args[n] = NULL;
    setenv(var, limit, 1);
    pid_t pid = test_spawn("pbd-run", args, path, 0);
    unsetenv(var);
    int status = pid < 0 ? -2 : test_wait_within(pid, seconds, path, err, size);
    remove(path);
    return status;
}

/* A 3000² cloth (9·10⁶ particles) under a 64 MB limit: exit 4 within 2 s, before the scene
 * is built (which takes longer), one line naming the estimate, the limit and what to try;
 * the older variable PBD_NEWTON_MEMORY_LIMIT acts the same. */
static void test_refused_before_building(void)
{
    static const char *const vars[] = {"PBD_MEMORY_LIMIT", "PBD_NEWTON_MEMORY_LIMIT"};
    for (int v = 0; v < 2; v++)
        for (int m = 0; m < N_METHODS; m++) {
            char err[2048] = "";
            int status = run_limited(m, "--resolution=3000", vars[v], "64M", 2.0, err,
                                     sizeof err);
            char want[96];
            snprintf(want, sizeof want, "MB available (%s)", vars[v]);
            if (status != 4 || test_count_lines(err) != 1 || !strstr(err, want))
                fprintf(stderr, "\n  %s, %s: exit %d, stderr: %s", methods[m][0], vars[v],
                        status, err);
            CU_ASSERT_EQUAL(status, 4);
            CU_ASSERT_EQUAL(test_count_lines(err), 1);
            CU_ASSERT(strstr(err, "needs an estimated") != NULL);
            CU_ASSERT(strstr(err, want) != NULL);
            CU_ASSERT(strstr(err, "world ") != NULL);
            CU_ASSERT(strstr(err, "try a smaller --resolution") != NULL);
            if (m != 1) /* a factor: the fill bound used */
                CU_ASSERT(strstr(err, "nested dissection") != NULL);
            if (m == 3) CU_ASSERT(strstr(err, "Newton reference ") != NULL);
        }
}

/* The same runs on a 32² cloth fit the same limit raised to 512 MB: not refused. */
static void test_fitting_runs_go_on(void)
{
    for (int m = 0; m < N_METHODS; m++) {
        char err[2048] = "";
        int status = run_limited(m, "--resolution=32", "PBD_MEMORY_LIMIT", "512M", 120.0, err,
                                 sizeof err);
        if (status != 0) fprintf(stderr, "\n  %s: exit %d: %s", methods[m][0], status, err);
        CU_ASSERT_EQUAL(status, 0);
    }
}

/* The estimate against the growth of the resident memory from main to the peak (VmHWM),
 * pbd-run's "# memory:" line: never below it, at most K_OVER times it, on runs that grow by
 * 25 MB or more (below, the estimate's fixed 16 MB dominates). */
#define K_OVER 5.0
static void test_estimate_against_resident(void)
{
    static const char *const runs[] = {
        "cloth --resolution=300 --method=xpbd",
        "cloth --resolution=300 --method=vbd --compliance=1e-7",
        "cloth_bend --resolution=200 --method=vbd --compliance=1e-7 --bend-compliance=1e-3",
        "cloth --resolution=150 --method=pd --compliance=1e-7",
        "tet_beam --resolution=40 --material=corotated --poisson-ratio=0 --method=pd",
        "cloth --resolution=64 --method=newton --compliance=1e-7",
        "cloth --resolution=64 --reference=newton --compliance=1e-7",
        "cloth --resolution=300 --method=xpbd --out=DIR --frames=1",
    };
    for (unsigned k = 0; k < sizeof runs / sizeof runs[0]; k++) {
        char dir[] = "/tmp/pbd-memory-rss-XXXXXX", cmd[2048], out[64], args[512];
        CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
        snprintf(out, sizeof out, "%s/out", dir);
        const char *at = strstr(runs[k], "DIR");
        if (at)
            snprintf(args, sizeof args, "%.*s%s%s", (int)(at - runs[k]), runs[k], dir, at + 3);
        else
            snprintf(args, sizeof args, "%s", runs[k]);
        snprintf(cmd, sizeof cmd, "%s/pbd-run %s --steps=3 --quiet > %s", test_bin_dir(), args,
                 out);
        CU_ASSERT_EQUAL(test_run(cmd), 0);
        FILE *f = fopen(out, "r");
        char line[512];
        double estimate = -1.0, before = 0.0, peak = 0.0, more = -1.0;
        while (f && fgets(line, sizeof line, f))
            sscanf(line, "# memory: estimated %lf MB up front; resident memory %lf MB before "
                   "the scene, %lf MB at the peak (VmHWM): %lf MB more", &estimate, &before,
                   &peak, &more);
        if (f) fclose(f);
        fprintf(stderr, "\n  %s: estimated %.1f MB, resident memory grew by %.1f MB (%.2fx)",
                runs[k], estimate, more, estimate / more);
#ifdef __SANITIZE_ADDRESS__ /* make asan: shadow memory and quarantine, not the run's */
        CU_ASSERT(more > 0.0 && estimate > 0.0);
#else
        CU_ASSERT(more > 25.0 && estimate >= more && estimate <= K_OVER * more);
#endif
        test_remove_dir(dir);
    }
}

/* Every built-in scene is estimated before it is built (pbd_scene_shape answers 1 at its
 * default size), and the estimate's particles are those the built world holds: a scene added
 * to the table without a shape would run unrefused at any size. */
static void test_every_scene_has_a_shape(void)
{
    int scenes = 0;
    for (int i = 0; i < pbd_scene_count(); i++) {
        const pbd_scene_entry *e = pbd_scene_at(i);
        pbd_scene_params sp = pbd_scene_params_default();
        pbd_memory_shape shape;
        int known = pbd_scene_shape(e, &sp, &shape);
        if (!known) fprintf(stderr, "\n  scene %s: no up-front shape", e->name);
        CU_ASSERT_EQUAL(known, 1);
        pbd_world *w = known ? pbd_scene_build(e, &sp, NULL) : NULL;
        if (w) {
            /* an upper estimate: tearing's counts twice the particles, the rods' their
             * orientations as particles too (3 n) */
            CU_ASSERT(shape.n >= w->n);
            CU_ASSERT(shape.n <= 3.0 * w->n);
            if (shape.n < w->n || shape.n > 3.0 * w->n)
                fprintf(stderr, "\n  scene %s: shape %g particles, built %d", e->name, shape.n,
                        w->n);
            pbd_world_free(w);
            scenes++;
        }
    }
    CU_ASSERT(scenes >= 15);
}

void register_memory_refusal_tests(void)
{
    CU_pSuite s = CU_add_suite("memory_refusal", NULL, NULL);
    CU_add_test(s, "every_scene_has_a_shape", test_every_scene_has_a_shape);
    CU_add_test(s, "refused_before_building", test_refused_before_building);
    CU_add_test(s, "fitting_runs_go_on", test_fitting_runs_go_on);
    CU_add_test(s, "estimate_against_resident", test_estimate_against_resident);
}
