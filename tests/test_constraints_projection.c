/* The solid, collision, pressure and attachment constraint types projected (suite
 * `constraints_projection`): the generic projection (PBD Eq. 6–9) on equalities and
 * inequalities, degenerate input, an inverted tetrahedron and an inflated balloon
 * (PBD Sec. 4.4). */
#include "tests.h"
#include "constraints_check.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- projection ------------------------------------------------------------------------ */

/* Project once with the generic path (PBD Eq. 8–9, k = 1); returns its status. */
static int project(const pbd_constraint_type *t, const sample *s, double *x, const double *w)
{
    double grad[MAX_X];
    pbd_eval_input in = input_of(s, x);
    return pbd_project_generic(t, &in, w, 1.0, x, grad);
}

/* Equalities: from a configuration near rest, one projection reduces |C| and a few drive
 * it to zero. Inequalities: a violated one ends with C >= 0 (up to round-off), a satisfied
 * one is not moved at all. Internal types conserve Σ m_i Δp_i. */
static void test_projection(void)
{
    printf("\n");
    pbd_rng r;
    pbd_rng_seed(&r, 4242);
    for (int k = 0; k < N_TYPES; k++) {
        const pbd_constraint_type *t = types[k];
        int violated = 0, satisfied = 0, reduced = 0, converged = 0;
        for (int n = 0; n < N_SAMPLES; n++) {
            sample s;
            draw(t, &r, 0, &s);
            double w[PBD_SAMPLE_MAX_ARITY], x[MAX_X], x0[MAX_X];
            int m = 3 * s.arity;
            for (int j = 0; j < s.arity; j++) w[j] = 1.0 / rng_mass(&r);
            if (s.arity > 1 && n % 5 == 0) w[0] = 0.0; /* a fixed particle */
            if (!t->inequality) {
                /* rest at the configuration, then a random displacement of 5% of its size */
                if (t->rest) {
                    pbd_eval_input in = input_of(&s, s.x);
                    t->rest(&in, s.rest);
                    if (t == &pbd_balloon_volume_type) s.rest[1] = pbd_rng_range(&r, 0.9, 1.1);
                }
                double size = 0.0;
                for (int i = 3; i < m; i++) size = fmax(size, fabs(s.x[i] - s.x[i % 3]));
                if (s.arity == 1) size = 1.0;
                for (int i = 0; i < m; i++) s.x[i] += 0.05 * size * pbd_rng_gaussian(&r);
            }
            memcpy(x, s.x, (size_t)m * sizeof *x);
            memcpy(x0, s.x, (size_t)m * sizeof *x);
            double c0 = eval_c(t, &s, x);
            int st = project(t, &s, x, w);
            CU_ASSERT(test_all_finite(x, m));
            for (int j = 0; j < s.arity; j++)
                if (w[j] == 0.0)
                    CU_ASSERT(memcmp(x + 3 * j, x0 + 3 * j, 3 * sizeof(double)) == 0);
            if (t->internal) {
                double lin[3] = {0, 0, 0}, mom = 0.0;
                for (int j = 0; j < s.arity; j++) {
                    if (w[j] == 0.0) continue;
                    for (int c = 0; c < 3; c++) {
                        lin[c] += (x[3 * j + c] - x0[3 * j + c]) / w[j];
                        mom = fmax(mom, fabs(x[3 * j + c] - x0[3 * j + c]) / w[j]);
                    }
                }
                /* with a fixed particle momentum is not conserved (it absorbs it) */
                if (w[0] != 0.0) CU_ASSERT(max_abs(lin, 3) <= 1e-12 * fmax(mom, 1e-300) * s.arity);
            }
            double c1 = eval_c(t, &s, x);
            if (t->inequality && c0 >= 0.0) {
                satisfied++;
                CU_ASSERT_EQUAL(st, -1);
                CU_ASSERT(memcmp(x, x0, (size_t)m * sizeof *x) == 0);
                continue;
            }
            CU_ASSERT_EQUAL(st, PBD_EVAL_OK);
            if (t->inequality) violated++;
            if (fabs(c1) < fabs(c0)) reduced++;
            for (int it = 0; it < 20 && project(t, &s, x, w) == PBD_EVAL_OK; it++) {
            }
            double c2 = eval_c(t, &s, x), tol = 1e-10 * fmax(1.0, fabs(c0));
            if (t->inequality ? c2 >= -tol : fabs(c2) <= tol) converged++;
        }
        int projected = t->inequality ? violated : N_SAMPLES;
        printf("    %-16s projected %d (reduced |C| %d, converged %d), satisfied %d\n", t->name,
               projected, reduced, converged, satisfied);
        CU_ASSERT_EQUAL(reduced, projected);
        CU_ASSERT_EQUAL(converged, projected);
        if (t->inequality) {
            CU_ASSERT(violated > N_SAMPLES / 10);
            CU_ASSERT(satisfied > N_SAMPLES / 10);
        }
    }
}

/* ---- degenerate input -------------------------------------------------------------------- */

/* Evaluate and project; the result must be finite, and a degenerate (skipped) or inactive
 * constraint must not move anything. Returns the projection's status. */
static int check_robust(const pbd_constraint_type *t, double *x, int arity, const double *rest,
                        const int32_t *aux, int n_aux, const double *w)
{
    double C, g[MAX_X], x0[MAX_X];
    pbd_eval_input in = {x, arity, rest, aux, n_aux};
    int st_eval = t->eval(&in, &C, g);
    CU_ASSERT(isfinite(C));
    CU_ASSERT(test_all_finite(g, 3 * arity));
    memcpy(x0, x, 3 * (size_t)arity * sizeof *x);
    int st = pbd_project_generic(t, &in, w, 1.0, x, g);
    CU_ASSERT(test_all_finite(x, 3 * arity));
    if (st_eval == PBD_EVAL_DEGENERATE) CU_ASSERT_EQUAL(st, PBD_EVAL_DEGENERATE);
    if (st != PBD_EVAL_OK) CU_ASSERT(memcmp(x, x0, 3 * (size_t)arity * sizeof *x) == 0);
    return st;
}

static void test_degenerate_inputs(void)
{
    const double ones[PBD_SAMPLE_MAX_ARITY] = {1, 1, 1, 1, 1, 1, 1, 1};
    double v0 = 0.5, d = 1.0, plus = 1.0, sc[2] = {0.01, 1.0};

    /* coincident points and collinear points: no volume gradient, no plane */
    double same[12] = {1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3};
    double line[12] = {0, 0, 0, 1, 1, 1, 2, 2, 2, -1, -1, -1};
    double x[MAX_X];
    memcpy(x, same, sizeof same);
    CU_ASSERT_EQUAL(check_robust(&pbd_tet_volume_type, x, 4, &v0, NULL, 0, ones),
                    PBD_EVAL_DEGENERATE);
    memcpy(x, line, sizeof line);
    CU_ASSERT_EQUAL(check_robust(&pbd_tet_volume_type, x, 4, &v0, NULL, 0, ones),
                    PBD_EVAL_DEGENERATE);
    memcpy(x, same, sizeof same);
    CU_ASSERT_EQUAL(check_robust(&pbd_tet_plane_type, x, 4, &d, NULL, 0, ones),
                    PBD_EVAL_DEGENERATE);
    memcpy(x, line, sizeof line);
    CU_ASSERT_EQUAL(check_robust(&pbd_point_triangle_type, x, 4, &plus, NULL, 0, ones),
                    PBD_EVAL_DEGENERATE);
    memcpy(x, same, sizeof same);
    CU_ASSERT_EQUAL(check_robust(&pbd_self_collision_type, x, 4, sc, NULL, 0, ones),
                    PBD_EVAL_DEGENERATE);

    /* zero-area triangles: tet_plane's base p0, p2, p3 on a line with p1 off it;
     * self_collision's triangle on a line (q below it by the thickness); point_triangle
     * has C = 0 there: inactive */
    double flat_base[12] = {0, 0, 0, 0.3, 0.4, 1.0, 1, 0, 0, 2, 0, 0};
    memcpy(x, flat_base, sizeof flat_base);
    CU_ASSERT_EQUAL(check_robust(&pbd_tet_plane_type, x, 4, &d, NULL, 0, ones),
                    PBD_EVAL_DEGENERATE);
    double zero_tri[12] = {0.3, 0.4, -1.0, 0, 0, 0, 1, 0, 0, 2, 0, 0};
    memcpy(x, zero_tri, sizeof zero_tri);
    CU_ASSERT_EQUAL(check_robust(&pbd_self_collision_type, x, 4, sc, NULL, 0, ones),
                    PBD_EVAL_DEGENERATE);
    memcpy(x, zero_tri, sizeof zero_tri);
    CU_ASSERT_EQUAL(check_robust(&pbd_point_triangle_type, x, 4, &plus, NULL, 0, ones), -1);
    double two_equal[12] = {0.3, 0.4, -1.0, 0, 0, 0, 1, 1, 0, 1, 1, 0};
    memcpy(x, two_equal, sizeof two_equal);
    CU_ASSERT_EQUAL(check_robust(&pbd_self_collision_type, x, 4, sc, NULL, 0, ones),
                    PBD_EVAL_DEGENERATE);

    /* a flat but otherwise sound tet is not degenerate for tet_volume: it is pushed back
     * to its rest volume, finitely */
    double flat_tet[12] = {0, 0, 0, 0.3, 0.3, 0, 1, 0, 0, 0, 1, 0};
    memcpy(x, flat_tet, sizeof flat_tet);
    CU_ASSERT_EQUAL(check_robust(&pbd_tet_volume_type, x, 4, &v0, NULL, 0, ones), PBD_EVAL_OK);
    double C;
    pbd_eval_input fin = {x, 4, &v0, NULL, 0};
    pbd_tet_volume_type.eval(&fin, &C, NULL);
    CU_ASSERT(fabs(C) < 0.5 * v0);

    /* a missing collision normal; a particle on its attachment target */
    double pc[6] = {0, 0, 0, 0, 0, 0}, p[3] = {0, 0, -1};
    CU_ASSERT_EQUAL(check_robust(&pbd_plane_collision_type, p, 1, pc, NULL, 0, ones),
                    PBD_EVAL_DEGENERATE);
    double t[3] = {0.5, -2, 7}, pt[3] = {0.5, -2, 7};
    CU_ASSERT_EQUAL(check_robust(&pbd_attachment_type, pt, 1, t, NULL, 0, ones),
                    PBD_EVAL_DEGENERATE);

    /* a balloon collapsed onto one point */
    double ball[18], brest[2] = {8.0, 1.0};
    for (int i = 0; i < 18; i++) ball[i] = (double)(i % 3);
    CU_ASSERT_EQUAL(check_robust(&pbd_balloon_volume_type, ball, 6, brest, octahedron_tris, 24,
                                 ones),
                    PBD_EVAL_DEGENERATE);

    /* every type: its sampler's near-degenerate instances give finite values, gradients and
     * projections (slivers, nearly coincident points, tiny triangles, ...), and with all
     * w = 0 nothing moves */
    pbd_rng r;
    pbd_rng_seed(&r, 5);
    printf("\n");
    const double none[PBD_SAMPLE_MAX_ARITY] = {0};
    for (int k = 0; k < N_TYPES; k++) {
        const pbd_constraint_type *ty = types[k];
        int skipped = 0;
        for (int n = 0; n < N_SAMPLES; n++) {
            sample s;
            double w[PBD_SAMPLE_MAX_ARITY];
            for (int j = 0; j < PBD_SAMPLE_MAX_ARITY; j++) w[j] = 1.0 / rng_mass(&r);
            draw(ty, &r, 1, &s);
            if (check_robust(ty, s.x, s.arity, s.rest, s.aux, s.n_aux, w) == PBD_EVAL_DEGENERATE)
                skipped++;
            draw(ty, &r, n % 2, &s);
            int st = check_robust(ty, s.x, s.arity, s.rest, s.aux, s.n_aux, none);
            CU_ASSERT(st == PBD_EVAL_DEGENERATE || st == -1);
        }
        printf("    %-16s near-degenerate samples skipped: %d of %d\n", ty->name, skipped,
               N_SAMPLES);
        /* a plane collision has a unit normal by contract: it is never degenerate */
        if (ty != &pbd_plane_collision_type) CU_ASSERT(skipped > 0);
    }
}

/* ---- an inverted tetrahedron (seed "tetrahedron constraint gradients") ----------------- */

static const int32_t tet_edges[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};

static double signed_volume(const double *x)
{
    double C, zero = 0.0;
    pbd_eval_input in = {x, 4, &zero, NULL, 0};
    pbd_tet_volume_type.eval(&in, &C, NULL);
    return C;
}

/* Gauss–Seidel over one constraint of `type` on particles idx of x. */
static void project_row(const pbd_constraint_type *type, const int32_t *idx, const double *rest,
                        double *x, const double *w)
{
    double xl[12], wl[4] = {0, 0, 0, 0}, g[12];
    int a = type->arity;
    for (int j = 0; j < a; j++) {
        memcpy(xl + 3 * j, x + 3 * idx[j], 3 * sizeof(double));
        wl[j] = w[idx[j]];
    }
    pbd_eval_input in = {xl, a, rest, NULL, 0};
    if (pbd_project_generic(type, &in, wl, 1.0, xl, g) == PBD_EVAL_OK)
        for (int j = 0; j < a; j++) memcpy(x + 3 * idx[j], xl + 3 * j, 3 * sizeof(double));
}

/* The four tet_plane rows of a tet: vertex i against the plane of the other three. */
static void plane_rows(int32_t rows[4][4])
{
    for (int i = 0; i < 4; i++) {
        int32_t o[3], n = 0;
        for (int j = 0; j < 4; j++)
            if (j != i) o[n++] = j;
        rows[i][0] = o[0];
        rows[i][1] = i;
        rows[i][2] = o[1];
        rows[i][3] = o[2];
    }
}

static void test_inverted_tet(void)
{
    printf("\n");
    const double rest_x[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    /* p1 pushed through the face p0, p2, p3 (nearly its mirror image): inverted */
    const double inverted[12] = {0, 0, 0, -0.9, 0.05, 0.1, 0, 1, 0, 0, 0, 1};
    const double w[4] = {1.0, 0.5, 2.0, 1.0};
    double len[6], v0, d[4];
    int32_t rows[4][4];
    plane_rows(rows);
    for (int e = 0; e < 6; e++) {
        int32_t idx[2] = {tet_edges[e][0], tet_edges[e][1]};
        double two[6];
        memcpy(two, rest_x + 3 * idx[0], 3 * sizeof(double));
        memcpy(two + 3, rest_x + 3 * idx[1], 3 * sizeof(double));
        pbd_eval_input in = {two, 2, NULL, NULL, 0};
        pbd_distance_type.rest(&in, &len[e]);
    }
    pbd_eval_input tin = {rest_x, 4, NULL, NULL, 0};
    pbd_tet_volume_type.rest(&tin, &v0);
    for (int i = 0; i < 4; i++) {
        double xl[12];
        for (int j = 0; j < 4; j++) memcpy(xl + 3 * j, rest_x + 3 * rows[i][j], 3 * sizeof(double));
        pbd_eval_input in = {xl, 4, NULL, NULL, 0};
        pbd_tet_plane_type.rest(&in, &d[i]);
        CU_ASSERT(fabs(d[i]) > 0.1); /* its sign depends on the row's order */
    }
    CU_ASSERT(signed_volume(inverted) < 0.0);
    const int32_t vrow[4] = {0, 1, 2, 3};

    /* 1. distances alone: the edge lengths are restored, the tet stays inverted */
    double x[12];
    memcpy(x, inverted, sizeof x);
    for (int it = 0; it < 200; it++)
        for (int e = 0; e < 6; e++) project_row(&pbd_distance_type, tet_edges[e], &len[e], x, w);
    double worst = 0.0;
    for (int e = 0; e < 6; e++) {
        const double *a = x + 3 * tet_edges[e][0], *b = x + 3 * tet_edges[e][1];
        double l = sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                        (a[2] - b[2]) * (a[2] - b[2]));
        worst = fmax(worst, fabs(l - len[e]));
    }
    CU_ASSERT(worst < 1e-9);
    CU_ASSERT(signed_volume(x) < 0.0);
    CU_ASSERT_DOUBLE_EQUAL(signed_volume(x), -v0, 1e-8); /* the mirror image */

    /* 2. distances and the signed volume: un-inverted, at the rest volume */
    memcpy(x, inverted, sizeof x);
    for (int it = 0; it < 200; it++) {
        for (int e = 0; e < 6; e++) project_row(&pbd_distance_type, tet_edges[e], &len[e], x, w);
        project_row(&pbd_tet_volume_type, vrow, &v0, x, w);
    }
    printf("    distances + tet_volume: V = %.12f (V0 = %.12f)\n", signed_volume(x), v0);
    CU_ASSERT(signed_volume(x) > 0.0);
    CU_ASSERT_DOUBLE_EQUAL(signed_volume(x), v0, 1e-6);

    /* 3. the four tet_plane constraints alone: un-inverted, back to the rest shape's
     * heights */
    memcpy(x, inverted, sizeof x);
    for (int it = 0; it < 200; it++)
        for (int i = 0; i < 4; i++) project_row(&pbd_tet_plane_type, rows[i], &d[i], x, w);
    printf("    tet_plane x4: V = %.12f\n", signed_volume(x));
    CU_ASSERT(signed_volume(x) > 0.0);
    for (int i = 0; i < 4; i++) {
        double xl[12], C;
        for (int j = 0; j < 4; j++) memcpy(xl + 3 * j, x + 3 * rows[i][j], 3 * sizeof(double));
        pbd_eval_input in = {xl, 4, &d[i], NULL, 0};
        CU_ASSERT_EQUAL(pbd_tet_plane_type.eval(&in, &C, NULL), PBD_EVAL_OK);
        CU_ASSERT(fabs(C) < 1e-9);
    }
}

/* ---- an inflated balloon (PBD Sec. 4.4) ------------------------------------------------- */

/* An octahedron whose rest values come from the world (V0 = 8, k_pressure = 1), then
 * k_pressure = 1.5: repeated projections reach a volume of 1.5 × the rest volume, the centre
 * of mass does not move (equal masses, internal constraint). */
static void test_balloon_inflates(void)
{
    printf("\n");
    pbd_world *w = pbd_world_create(6);
    for (int i = 0; i < 6; i++) pbd_world_set_particle(w, i, octahedron + 3 * i, NULL, 1.0);
    int s = pbd_world_add_set(w, &pbd_balloon_volume_type, 6);
    CU_ASSERT_FATAL(s >= 0);
    CU_ASSERT_EQUAL(pbd_set_aux(w, s, octahedron_tris, 24), PBD_OK);
    const int32_t idx[6] = {0, 1, 2, 3, 4, 5};
    CU_ASSERT_EQUAL_FATAL(pbd_set_add(w, s, idx, NULL, 1.0, 0.0), 0);
    pbd_constraint_set *set = &w->sets[s];
    CU_ASSERT_DOUBLE_EQUAL(set->rest[0], 8.0, 1e-14);
    CU_ASSERT_EQUAL(set->rest[1], 1.0);
    set->rest[1] = 1.5;

    double x[18], g[18], C = 0.0;
    memcpy(x, w->x, sizeof x);
    double ones[6] = {1, 1, 1, 1, 1, 1};
    pbd_eval_input in = {x, 6, set->rest, set->aux, set->n_aux};
    int it = 0;
    for (; it < 50; it++) {
        pbd_balloon_volume_type.eval(&in, &C, NULL);
        if (fabs(C) < 1e-9 * set->rest[0]) break;
        CU_ASSERT_EQUAL_FATAL(pbd_project_generic(&pbd_balloon_volume_type, &in, ones, 1.0, x, g),
                              PBD_EVAL_OK);
    }
    printf("    balloon: |C| = %.2e after %d projections\n", fabs(C), it);
    CU_ASSERT(fabs(C) < 1e-9 * set->rest[0]);
    /* the volume (1/6 of the sum) is 1.5 × 4/3 = 2 */
    pbd_eval_input vin = {x, 6, NULL, set->aux, set->n_aux};
    double v[2];
    pbd_balloon_volume_type.rest(&vin, v);
    CU_ASSERT_DOUBLE_EQUAL(v[0] / 6.0, 2.0, 1e-8);
    for (int c = 0; c < 3; c++) {
        double com = 0.0;
        for (int i = 0; i < 6; i++) com += x[3 * i + c];
        CU_ASSERT(fabs(com) < 1e-12);
    }
    pbd_world_free(w);
}

void register_constraints_projection_tests(void)
{
    CU_pSuite s = CU_add_suite("constraints_projection", NULL, NULL);
    CU_add_test(s, "projection", test_projection);
    CU_add_test(s, "degenerate_inputs", test_degenerate_inputs);
    CU_add_test(s, "inverted_tet", test_inverted_tet);
    CU_add_test(s, "balloon_inflates", test_balloon_inflates);
}
