/* The logs' last contradictions (issue 24, suite `log_truths`): each name measures what it
 * says. long_range_attachments' max_stretch is the largest stretch, not the largest |strain|
 * (its edges near the corners are compressed); the `command` attribute is the true argv in
 * experiment mode too; --compliance does not reach the long-range attachments (hard);
 * `degenerate` counts the rows degenerate at the logged positions (`skipped` is the last
 * iteration's, mid-step); shape matching's projection adds its move to x_out as
 * pbd_project_generic documents. */
#include "tests.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char dir[256];

static int suite_init(void)
{
    snprintf(dir, sizeof dir, "/tmp/pbd-test-log-truths-XXXXXX");
    return mkdtemp(dir) ? 0 : 1;
}

static int suite_clean(void) { return test_remove_dir(dir) == 0 ? 0 : 1; }

/* One edge 1 % longer than its rest length, one 5 % shorter: the largest stretch is 0.01
 * (it was 0.05, the compression), the largest compression 0.05, the mean strain -0.02. */
static void test_stretch_is_not_compression(void)
{
    const double p0[3] = {0, 0, 0}, p1[3] = {1.01, 0, 0}, p2[3] = {1.01, 0.95, 0};
    pbd_world *w = pbd_world_create(3);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    pbd_world_set_particle(w, 0, p0, NULL, 1.0);
    pbd_world_set_particle(w, 1, p1, NULL, 1.0);
    pbd_world_set_particle(w, 2, p2, NULL, 1.0);
    int s = pbd_world_add_set(w, &pbd_distance_type, 2);
    const int32_t e01[2] = {0, 1}, e12[2] = {1, 2};
    const double one = 1.0;
    CU_ASSERT_EQUAL(pbd_set_add(w, s, e01, &one, 1.0, 0.0), 0);
    CU_ASSERT_EQUAL(pbd_set_add(w, s, e12, &one, 1.0, 0.0), 1);
    double mean, max;
    pbd_exp_stretch(w, s, &mean, &max);
    CU_ASSERT_DOUBLE_EQUAL(max, 0.01, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(mean, -0.02, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(pbd_exp_compression(w, s), 0.05, 1e-12);
    /* all compressed: no stretch at all */
    const double p1c[3] = {0.9, 0, 0};
    pbd_world_set_particle(w, 1, p1c, NULL, 1.0);
    pbd_world_set_particle(w, 2, (const double[3]){0.9, 0.95, 0}, NULL, 1.0);
    pbd_exp_stretch(w, s, &mean, &max);
    CU_ASSERT_EQUAL(max, 0.0);
    CU_ASSERT_DOUBLE_EQUAL(pbd_exp_compression(w, s), 0.1, 1e-12);
    pbd_world_free(w);
}

/* pbd-run EXPERIMENT --quick --only=RUN --quiet --out=dir; path gets the run's file. */
static int run_experiment(const char *experiment, const char *run, char *path, size_t size)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s/pbd-run %s --quick --only=%s --quiet --out=%s >/dev/null 2>&1",
             test_bin_dir(), experiment, run, dir);
    snprintf(path, size, "%s/%s/%s.h5", dir, experiment, run);
    return test_run(cmd);
}

/* The mean of a /series column over the rows 2s > steps (the experiment's last half). */
static double last_half_mean(const char *path, const char *column)
{
    double *v = NULL, sum = 0.0;
    long rows = 0, cols = 0, n = 0;
    if (pbd_h5_read_dataset(path, column, &v, &rows, &cols) != 0 || cols != 1) return NAN;
    for (long s = 1; s <= rows; s++)
        if (2 * s > rows) {
            sum += v[s - 1];
            n++;
        }
    free(v);
    return n ? sum / n : NAN;
}

/* The experiment's run file: result.max_stretch is the time average of the max_stretch
 * column's last half and result.max_compression that of max_compression; with long-range
 * attachments at one iteration the compression is the larger (the old max_stretch was it). */
static void test_lra_run_file(void)
{
    char path[1024];
    CU_ASSERT_EQUAL_FATAL(run_experiment("long_range_attachments", "lra_it1", path, sizeof path),
                          0);
    double stretch = NAN, compression = NAN;
    CU_ASSERT_EQUAL(pbd_h5_read_attr_double(path, "result.max_stretch", &stretch), 0);
    CU_ASSERT_EQUAL(pbd_h5_read_attr_double(path, "result.max_compression", &compression), 0);
    CU_ASSERT_DOUBLE_EQUAL(stretch, last_half_mean(path, "/series/max_stretch"), 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(compression, last_half_mean(path, "/series/max_compression"), 1e-12);
    CU_ASSERT(stretch >= 0.0 && compression > stretch);
}

/* The command attribute of an experiment's run file is this process's argv as given: the
 * program's path, not the literal "pbd-run" put in its place. */
static void test_command_is_argv(void)
{
    char path[1024], buf[4096], want[1024];
    CU_ASSERT_EQUAL_FATAL(run_experiment("spring_oscillator", "xpbd_it1_hz60", path, sizeof path),
                          0);
    CU_ASSERT_EQUAL_FATAL(pbd_h5_read_attr_string(path, "command", buf, sizeof buf), 0);
    snprintf(want, sizeof want, "%s/pbd-run spring_oscillator --quick --only=xpbd_it1_hz60 "
             "--quiet --out=%s", test_bin_dir(), dir);
    if (strcmp(buf, want) != 0) printf("\n    command '%s', expected '%s'", buf, want);
    CU_ASSERT_STRING_EQUAL(buf, want);
}

/* --compliance is the edges' α; the long-range attachments stay hard (k = 1, α = 0) as
 * constraints/README.md and experiments/README.md say. */
static void test_lra_hard(void)
{
    pbd_scene_params sp = pbd_scene_params_default();
    sp.resolution = 6;
    sp.compliance = 1e-3;
    sp.stiffness = 0.5;
    sp.long_range_attachments = 1;
    pbd_world *w = pbd_scene_cloth(&sp);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    int lra = 0, edges = 0;
    for (int s = 0; s < w->n_sets; s++) {
        const pbd_constraint_set *set = &w->sets[s];
        for (int c = 0; c < set->count; c++) {
            if (set->type == pbd_constraint_type_find("long_range_attachment")) {
                lra++;
                CU_ASSERT_EQUAL(set->compliance[c], 0.0);
                CU_ASSERT_EQUAL(set->stiffness[c], 1.0);
            } else if (set->type == &pbd_distance_type) {
                edges++;
                CU_ASSERT_EQUAL(set->compliance[c], 1e-3);
                CU_ASSERT_EQUAL(set->stiffness[c], 0.5);
            }
        }
    }
    CU_ASSERT(lra > 0 && edges > 0);
    pbd_world_free(w);
}

/* Recount at x what eval calls degenerate; stats.degenerate (and the sets') must say the same.
 * The horizontal cloth_bend under XPBD with one iteration ends its third step with a flat
 * hinge that the last iteration had projected (skipped 0 there): the two counts differ, and
 * each says what its name says. */
static int recount(const pbd_world *w)
{
    int n = 0;
    double x[3 * PBD_SAMPLE_MAX_ARITY], grad[3 * PBD_SAMPLE_MAX_ARITY];
    for (int s = 0; s < w->n_sets; s++) {
        const pbd_constraint_set *set = &w->sets[s];
        if (!set->type->eval || set->arity > PBD_SAMPLE_MAX_ARITY) continue;
        int nr = set->type->n_rest > 0 ? set->type->n_rest : 1, per_set = 0;
        for (int c = 0; c < set->count; c++) {
            const int32_t *idx = set->idx + (size_t)c * set->arity;
            for (int j = 0; j < set->arity; j++)
                for (int k = 0; k < 3; k++) x[3 * j + k] = w->x[3 * (size_t)idx[j] + k];
            pbd_eval_input in = {x, set->arity, set->rest + (size_t)c * nr, set->aux, set->n_aux};
            double C;
            per_set += set->type->eval(&in, &C, grad) != PBD_EVAL_OK;
        }
        CU_ASSERT_EQUAL(set->stats.degenerate, per_set);
        n += per_set;
    }
    return n;
}

static void test_degenerate_counted(void)
{
    pbd_scene_params sp = pbd_scene_params_default();
    pbd_world *w = pbd_scene_cloth_bend(&sp);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    w->def.method = PBD_METHOD_XPBD;
    w->def.iterations = 1;
    for (int s = 0; s < 3; s++) CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
    int n = recount(w);
    CU_ASSERT(n > 0); /* the case that matters: degenerate rows in the logged state */
    CU_ASSERT_EQUAL(w->stats.degenerate, n);
    pbd_world_free(w);
    /* tet_beam: skipped counts its 16 rows of pinned particles, none degenerate at x */
    w = pbd_scene_tet_beam(&sp);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
    int pinned = 0;
    for (int s = 0; s < w->n_sets; s++)
        for (int c = 0; c < w->sets[s].count; c++) {
            int free_particles = 0;
            for (int j = 0; j < w->sets[s].arity; j++)
                free_particles += w->w[w->sets[s].idx[(size_t)c * w->sets[s].arity + j]] > 0.0;
            pinned += free_particles == 0;
        }
    CU_ASSERT(pinned > 0);
    CU_ASSERT_EQUAL(w->stats.skipped, pinned);
    CU_ASSERT_EQUAL(w->stats.degenerate, recount(w));
    pbd_world_free(w);
}

/* pbd_project_generic adds the correction, computed at in->x, to x_out: for shape matching
 * (project_goal) too. With x_out = x + 0.25 the result is the in-place one + 0.25 (it was
 * the in-place one: x_out's own values were overwritten). */
static void test_goal_adds_to_x_out(void)
{
    pbd_rng r;
    pbd_rng_seed(&r, 7);
    double x[3 * PBD_SAMPLE_MAX_ARITY], rest[3 * PBD_SAMPLE_MAX_ARITY], w[PBD_SAMPLE_MAX_ARITY];
    double in_place[3 * PBD_SAMPLE_MAX_ARITY], out[3 * PBD_SAMPLE_MAX_ARITY];
    double grad[3 * PBD_SAMPLE_MAX_ARITY];
    int32_t aux[PBD_SAMPLE_MAX_AUX];
    int n_aux = 0;
    int n = pbd_shape_match_type.sample(&r, 0, x, rest, aux, &n_aux);
    CU_ASSERT_FATAL(n >= 4 && n <= PBD_SAMPLE_MAX_ARITY);
    for (int i = 0; i < n; i++) w[i] = i == 0 ? 0.0 : 0.5 + 0.1 * i; /* one pinned */
    pbd_eval_input in = {x, n, rest, aux, n_aux};
    for (int i = 0; i < 3 * n; i++) {
        in_place[i] = x[i];
        out[i] = x[i] + 0.25;
    }
    pbd_eval_input in2 = {in_place, n, rest, aux, n_aux};
    CU_ASSERT_EQUAL_FATAL(pbd_project_generic(&pbd_shape_match_type, &in2, w, 0.5, in_place, grad),
                          PBD_EVAL_OK);
    CU_ASSERT_EQUAL_FATAL(pbd_project_generic(&pbd_shape_match_type, &in, w, 0.5, out, grad),
                          PBD_EVAL_OK);
    double err = 0.0, moved = 0.0;
    for (int i = 0; i < 3 * n; i++) {
        err = fmax(err, fabs(out[i] - 0.25 - in_place[i]));
        moved = fmax(moved, fabs(in_place[i] - x[i]));
    }
    CU_ASSERT(moved > 1e-3); /* the projection did move something */
    if (!(err < 1e-12)) printf("\n    x_out != x: off by %g from in place + 0.25", err);
    CU_ASSERT(err < 1e-12);
    /* the pinned particle keeps x_out's value */
    for (int k = 0; k < 3; k++) CU_ASSERT_EQUAL(out[k], x[k] + 0.25);
}

void register_log_truths_tests(void)
{
    CU_pSuite s = CU_add_suite("log_truths", suite_init, suite_clean);
    CU_add_test(s, "stretch_is_not_compression", test_stretch_is_not_compression);
    CU_add_test(s, "lra_run_file", test_lra_run_file);
    CU_add_test(s, "command_is_argv", test_command_is_argv);
    CU_add_test(s, "lra_hard", test_lra_hard);
    CU_add_test(s, "degenerate_counted", test_degenerate_counted);
    CU_add_test(s, "goal_adds_to_x_out", test_goal_adds_to_x_out);
}
