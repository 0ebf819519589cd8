/* --pin on the mesh scenes (suite `pin`): indices, a box, the top row and the open boundary
 * of an OBJ written here (a disc: its centre and 8 rim vertices), the pin acting in a run
 * (pinned particles never move), and each refusal: one line naming --pin, exit status 2. */
#include "tests.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RIM 8
static char dir[64];
static char disc[128]; /* vertex 0 the centre, 1 + k the rim vertex at angle 2πk/RIM */
static double disc_x[RIM + 1][3];

static int suite_init(void)
{
    snprintf(dir, sizeof dir, "/tmp/pbd-pin-XXXXXX");
    if (!mkdtemp(dir)) return 1;
    snprintf(disc, sizeof disc, "%s/disc.obj", dir);
    FILE *f = fopen(disc, "w");
    if (!f) return 1;
    fprintf(f, "# a disc of radius 0.5 m in the x-y plane\nv 0 0 0\n");
    for (int k = 0; k < RIM; k++) { /* %.6f: cos(pi/2) is written (and read back) as 0 */
        double a = 2.0 * M_PI * k / RIM;
        fprintf(f, "v %.6f %.6f 0\n", 0.5 * cos(a), 0.5 * sin(a));
    }
    for (int k = 0; k < RIM; k++) fprintf(f, "f 1 %d %d\n", 2 + k, 2 + (k + 1) % RIM);
    fclose(f);
    /* the coordinates as the loader reads them, for the expectations below */
    f = fopen(disc, "r");
    char line[128];
    int v = 0;
    while (f && fgets(line, sizeof line, f) && v <= RIM)
        if (sscanf(line, "v %lf %lf %lf", &disc_x[v][0], &disc_x[v][1], &disc_x[v][2]) == 3) v++;
    if (f) fclose(f);
    return v == RIM + 1 ? 0 : 1;
}

static int suite_clean(void) { return test_remove_dir(dir) != 0; }

/* The disc cloth with --pin=text: the attached indices as a 0/1 mark per vertex (NULL world:
 * refused, the error in pbd_last_error()). */
static pbd_world *disc_cloth(const char *text, int mark[RIM + 1])
{
    pbd_scene_params sp = pbd_scene_params_default();
    sp.mesh_path = disc;
    sp.pin = text;
    pbd_world *w = pbd_scene_cloth(&sp);
    for (int i = 0; i <= RIM; i++) mark[i] = 0;
    for (int a = 0; w && a < w->n_attach; a++) mark[w->attach_idx[a]]++;
    return w;
}

static void expect_marks(const int got[RIM + 1], const int want[RIM + 1], const char *what)
{
    int same = 1;
    for (int i = 0; i <= RIM; i++) same &= got[i] == want[i];
    if (!same) {
        fprintf(stderr, "\n%s: pinned", what);
        for (int i = 0; i <= RIM; i++) if (got[i]) fprintf(stderr, " %d", i);
        fprintf(stderr, ", expected");
        for (int i = 0; i <= RIM; i++) if (want[i]) fprintf(stderr, " %d", i);
        fprintf(stderr, "\n");
    }
    CU_ASSERT(same);
}

static void test_indices(void)
{
    int got[RIM + 1], want[RIM + 1] = {0};
    pbd_world *w = disc_cloth("0,3,8", got);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    want[0] = want[3] = want[8] = 1; /* 0-based particle indices, each once */
    expect_marks(got, want, "--pin=0,3,8");
    for (int i = 0; i <= RIM; i++) CU_ASSERT_EQUAL(w->w[i] == 0.0, want[i]);
    pbd_world_free(w);
}

/* box:-1,-1,-1,0,1,1 holds x <= 0: bounds included, so the vertices at x = 0 exactly (the
 * centre and the rim at ±90°) are in; expected from the file's own coordinates. */
static void test_box(void)
{
    int got[RIM + 1], want[RIM + 1];
    for (int i = 0; i <= RIM; i++) want[i] = disc_x[i][0] <= 0.0;
    CU_ASSERT(want[0] && want[3] && want[7]); /* the bound passes through vertices */
    pbd_world *w = disc_cloth("box:-1,-1,-1,0,1,1", got);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    expect_marks(got, want, "--pin=box:-1,-1,-1,0,1,1");
    pbd_world_free(w);
}

/* top: the vertices at the largest y; on the disc the one rim vertex at 90°, on a generated
 * 5 × 5 grid the whole top row of 5 (the scene's own rule pins only its two corners). */
static void test_top(void)
{
    int got[RIM + 1], want[RIM + 1] = {0};
    want[3] = 1;
    pbd_world *w = disc_cloth("top", got);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    expect_marks(got, want, "--pin=top");
    pbd_world_free(w);

    pbd_scene_params sp = pbd_scene_params_default();
    sp.resolution = 5;
    sp.pin = "top";
    w = pbd_scene_cloth(&sp);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    CU_ASSERT_EQUAL(w->n_attach, 5);
    double top = -INFINITY;
    for (int i = 0; i < w->n; i++) top = fmax(top, w->x[3 * i + 1]);
    for (int a = 0; a < w->n_attach; a++) CU_ASSERT_EQUAL(w->x[3 * w->attach_idx[a] + 1], top);
    pbd_world_free(w);
}

/* boundary: every rim vertex (each on two edges of one triangle), never the centre; a closed
 * surface (the balloon) has none: refused. */
static void test_boundary(void)
{
    int got[RIM + 1], want[RIM + 1];
    for (int i = 0; i <= RIM; i++) want[i] = i > 0;
    pbd_world *w = disc_cloth("boundary", got);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    expect_marks(got, want, "--pin=boundary");
    pbd_world_free(w);

    pbd_scene_params sp = pbd_scene_params_default();
    sp.pin = "boundary";
    CU_ASSERT_PTR_NULL(pbd_scene_balloon(&sp));
    CU_ASSERT(strstr(pbd_last_error(), "closed") != NULL);
}

/* tet_beam: a box around its far end (x = size) pins that end's vertices, and no others. */
static void test_tet_beam(void)
{
    pbd_scene_params sp = pbd_scene_params_default();
    sp.resolution = 4;
    sp.pin = "box:0.99,-1,-1,1.01,1,1";
    pbd_world *w = pbd_scene_tet_beam(&sp);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    int at_end = 0;
    for (int i = 0; i < w->n; i++) at_end += fabs(w->x[3 * i] - 1.0) < 1e-12;
    CU_ASSERT(at_end > 0);
    CU_ASSERT_EQUAL(w->n_attach, at_end);
    for (int a = 0; a < w->n_attach; a++)
        CU_ASSERT(fabs(w->x[3 * w->attach_idx[a]] - 1.0) < 1e-12);
    pbd_world_free(w);
}

/* pbd-run with --pin=ARG on the disc: exit status, stderr in err (size bytes). */
static int run_disc(const char *scene_and_flags, char *err, size_t size)
{
    char cmd[1024], errf[128];
    snprintf(errf, sizeof errf, "%s/err.txt", dir);
    snprintf(cmd, sizeof cmd, "%s/pbd-run %s --steps=5 --quiet --out=%s/out >/dev/null 2>%s",
             test_bin_dir(), scene_and_flags, dir, errf);
    return test_run_stderr(cmd, errf, err, size);
}

/* In a run the pinned particles stay where they started (w = 0) and the file's
 * /scene/attachments lists them. */
static void test_run_file(void)
{
    char args[512], err[2048], file[160];
    snprintf(args, sizeof args, "cloth --mesh=%s --pin=boundary --frames=5", disc);
    CU_ASSERT_EQUAL_FATAL(run_disc(args, err, sizeof err), 0);
    snprintf(file, sizeof file, "%s/out/cloth/run.h5", dir);
    double *att = NULL, *x0 = NULL, *x5 = NULL;
    long n, c, n0, c0, n5, c5;
    CU_ASSERT_FATAL(pbd_h5_read_dataset(file, "/scene/attachments", &att, &n, &c) == 0);
    CU_ASSERT_EQUAL(n, RIM);
    for (long a = 0; a < n; a++) CU_ASSERT_EQUAL(att[a], (double)(a + 1));
    CU_ASSERT_FATAL(pbd_h5_read_dataset(file, "/frames/000000/positions", &x0, &n0, &c0) == 0);
    CU_ASSERT_FATAL(pbd_h5_read_dataset(file, "/frames/000001/positions", &x5, &n5, &c5) == 0);
    CU_ASSERT(x5[1] < x0[1]); /* the free centre fell */
    for (int i = 1; i <= RIM; i++)
        for (int k = 0; k < 3; k++) CU_ASSERT_EQUAL(x5[3 * i + k], x0[3 * i + k]);
    free(att);
    free(x0);
    free(x5);
}

/* Every refusal: exit status 2, one line naming the scene and --pin with what was expected. */
static void test_refusals(void)
{
    static const struct {
        const char *args, *words;
    } cases[] = {
        {"--pin=9", "expected vertex indices in [0, 8]"},
        {"--pin=-1", "expected vertex indices in [0, 8]"},
        {"--pin=1,1", "each index once"},
        {"--pin=0,,1", "0-based vertex indices"},
        {"--pin=top,", "0-based vertex indices"},
        {"--pin=box:2,2,2,3,3,3", "found none"},
        {"--pin=box:1,0,0,0,1,1", "each min <= its max"},
        {"--pin=box:0,0,0,1,1", "box:XMIN"},
        {"--pin=box:0,0,0,1,1,nan", "box:XMIN"},
    };
    char args[512], err[2048];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(args, sizeof args, "cloth --mesh=%s %s", disc, cases[i].args);
        int rc = run_disc(args, err, sizeof err);
        int ok = rc == 2 && test_count_lines(err) == 1 && strstr(err, "--pin") &&
                 strstr(err, cases[i].words);
        if (!ok) fprintf(stderr, "\n%s: exit %d, %s", cases[i].args, rc, err);
        CU_ASSERT(ok);
    }
    /* a closed surface has no open boundary; tets have none either; a scene without a mesh
     * does not read --pin */
    CU_ASSERT_EQUAL(run_disc("balloon --pin=boundary", err, sizeof err), 2);
    CU_ASSERT(strstr(err, "closed") != NULL);
    CU_ASSERT_EQUAL(run_disc("tet_beam --pin=boundary", err, sizeof err), 2);
    CU_ASSERT(strstr(err, "tetrahedra") != NULL);
    CU_ASSERT_EQUAL(run_disc("chain --pin=top", err, sizeof err), 2);
    CU_ASSERT(strstr(err, "--pin: cannot act here") != NULL);
}

void register_pin_tests(void)
{
    CU_pSuite s = CU_add_suite("pin", suite_init, suite_clean);
    CU_add_test(s, "indices", test_indices);
    CU_add_test(s, "box_bounds_included", test_box);
    CU_add_test(s, "top_row", test_top);
    CU_add_test(s, "boundary", test_boundary);
    CU_add_test(s, "tet_beam_box", test_tet_beam);
    CU_add_test(s, "run_file_pinned_still", test_run_file);
    CU_add_test(s, "refusals", test_refusals);
}
