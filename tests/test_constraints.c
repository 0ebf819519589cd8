/* The solid, collision, pressure and attachment constraint types (one file each in constraints/):
 * hand-checked values, ∇C against central finite differences, rigid-motion invariance of
 * the internal types, projection (PBD Eq. 6–9), degenerate input, an inverted tet and an
 * inflated balloon. */
#include "analysis/pbd_analysis.h"
#include "tests.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define N_SAMPLES 200
#define MAX_X (3 * PBD_SAMPLE_MAX_ARITY)

/* The types of this file, in registry order. */
static const pbd_constraint_type *const types[] = {
    &pbd_tet_volume_type,      &pbd_tet_plane_type,      &pbd_plane_collision_type,
    &pbd_point_triangle_type,  &pbd_self_collision_type, &pbd_balloon_volume_type,
    &pbd_attachment_type,
};
#define N_TYPES ((int)(sizeof types / sizeof types[0]))

/* One drawn instance. */
typedef struct sample {
    double x[MAX_X], rest[8];
    int32_t aux[PBD_SAMPLE_MAX_AUX];
    int arity, n_aux;
} sample;

static void draw(const pbd_constraint_type *t, pbd_rng *r, int degenerate, sample *s)
{
    memset(s, 0, sizeof *s);
    s->arity = t->sample(r, degenerate, s->x, s->rest, s->aux, &s->n_aux);
}

static pbd_eval_input input_of(const sample *s, const double *x)
{
    pbd_eval_input in = {x, s->arity, s->rest, s->n_aux ? s->aux : NULL, s->n_aux};
    return in;
}

static int eval_at(const pbd_constraint_type *t, const sample *s, const double *x, double *C,
                   double *grad)
{
    pbd_eval_input in = input_of(s, x);
    return t->eval(&in, C, grad);
}

static double eval_c(const pbd_constraint_type *t, const sample *s, const double *x)
{
    double C;
    eval_at(t, s, x, &C, NULL);
    return C;
}

static double max_abs(const double *a, int n)
{
    double m = 0.0;
    for (int i = 0; i < n; i++)
        if (fabs(a[i]) > m) m = fabs(a[i]);
    return m;
}

static double rng_mass(pbd_rng *r) { return pbd_rng_range(r, 0.1, 10.0); }

/* ---- registry ------------------------------------------------------------------------ */

/* Every type is registered under its name, in the order of the catalogue contract, with
 * the contract's arity, rest layout and flags. */
static void test_registry_rows(void)
{
    static const struct {
        const char *name;
        int arity, n_rest, inequality, internal, has_rest;
    } expect[] = {
        {"tet_volume", 4, 1, 0, 1, 1},     {"tet_plane", 4, 1, 0, 1, 1},
        {"plane_collision", 1, 6, 1, 0, 0}, {"point_triangle", 4, 1, 1, 1, 0},
        {"self_collision", 4, 2, 1, 1, 0}, {"balloon_volume", 0, 2, 0, 1, 1},
        {"attachment", 1, 3, 0, 0, 1},
    };
    int first = -1;
    for (int i = 0; i < pbd_constraint_type_count(); i++)
        if (pbd_constraint_type_at(i) == types[0]) first = i;
    CU_ASSERT_FATAL(first >= 0);
    for (int k = 0; k < N_TYPES; k++) {
        const pbd_constraint_type *t = types[k];
        CU_ASSERT_PTR_EQUAL(pbd_constraint_type_find(expect[k].name), t);
        CU_ASSERT_PTR_EQUAL(pbd_constraint_type_at(first + k), t);
        CU_ASSERT_STRING_EQUAL(t->name, expect[k].name);
        CU_ASSERT_EQUAL(t->arity, expect[k].arity);
        CU_ASSERT_EQUAL(t->n_rest, expect[k].n_rest);
        CU_ASSERT_EQUAL(t->inequality, expect[k].inequality);
        CU_ASSERT_EQUAL(t->internal, expect[k].internal);
        CU_ASSERT_EQUAL(t->rest != NULL, expect[k].has_rest);
        CU_ASSERT_PTR_NOT_NULL(t->eval);
        CU_ASSERT_PTR_NOT_NULL(t->sample);
        CU_ASSERT_PTR_NOT_NULL(t->description);
    }
    /* the collision types get their rest values from the collision detection: the world
     * refuses to add one without them */
    pbd_world *w = pbd_world_create(1);
    int s = pbd_world_add_set(w, &pbd_plane_collision_type, 0);
    int32_t idx = 0;
    CU_ASSERT_EQUAL(pbd_set_add(w, s, &idx, NULL, 1.0, 0.0), -1);
    pbd_world_free(w);
}

/* ---- hand-checked values ------------------------------------------------------------- */

static double value(const pbd_constraint_type *t, const double *x, int arity, const double *rest,
                    const int32_t *aux, int n_aux)
{
    pbd_eval_input in = {x, arity, rest, aux, n_aux};
    double C = NAN;
    CU_ASSERT_EQUAL(t->eval(&in, &C, NULL), PBD_EVAL_OK);
    return C;
}

/* The octahedron with vertices ±e_x, ±e_y, ±e_z, faces counter-clockwise seen from
 * outside; its volume is 4/3. */
static const double octahedron[18] = {1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1};
static const int32_t octahedron_tris[24] = {0, 2, 4, 2, 1, 4, 1, 3, 4, 3, 0, 4,
                                            2, 0, 5, 1, 2, 5, 3, 1, 5, 0, 3, 5};

static void test_values(void)
{
    /* unit right tet: V = 1/6; swapping p2, p3 flips the sign */
    double tet[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    double zero = 0.0, v0 = 0.1;
    CU_ASSERT_DOUBLE_EQUAL(value(&pbd_tet_volume_type, tet, 4, &zero, NULL, 0), 1.0 / 6, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(value(&pbd_tet_volume_type, tet, 4, &v0, NULL, 0), 1.0 / 6 - 0.1,
                           1e-15);
    double inv[12] = {0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 0};
    CU_ASSERT_DOUBLE_EQUAL(value(&pbd_tet_volume_type, inv, 4, &zero, NULL, 0), -1.0 / 6, 1e-15);
    /* a tet of edge vectors (2,0,0), (0,3,0), (1,1,4) at an offset: V = 2·3·4/6 = 4 */
    double big[12] = {1, 2, 3, 3, 2, 3, 1, 5, 3, 2, 3, 7};
    CU_ASSERT_DOUBLE_EQUAL(value(&pbd_tet_volume_type, big, 4, &zero, NULL, 0), 4.0, 1e-13);

    /* tet_plane: p1 at height 2.5 over the plane z = 0 through p0, p2, p3 */
    double tp[12] = {0, 0, 0, 0.3, 0.2, 2.5, 4, 0, 0, 0, 0.5, 0};
    double d = 1.0;
    CU_ASSERT_DOUBLE_EQUAL(value(&pbd_tet_plane_type, tp, 4, &d, NULL, 0), 1.5, 1e-14);
    double tq[12] = {0, 0, 0, 0.3, 0.2, 2.5, 0, 0.5, 0, 4, 0, 0}; /* normal -z */
    CU_ASSERT_DOUBLE_EQUAL(value(&pbd_tet_plane_type, tq, 4, &d, NULL, 0), -3.5, 1e-14);

    /* plane_collision: p at height 2.5 over the plane z = 1 */
    double pc_rest[6] = {7, -2, 1, 0, 0, 1}, p[3] = {5, -3, 3.5};
    CU_ASSERT_DOUBLE_EQUAL(value(&pbd_plane_collision_type, p, 1, pc_rest, NULL, 0), 2.5, 1e-15);
    double pc_tilt[6] = {0, 0, 0, 0.6, 0.8, 0}, pt[3] = {3, 4, 9};
    CU_ASSERT_DOUBLE_EQUAL(value(&pbd_plane_collision_type, pt, 1, pc_tilt, NULL, 0), 5.0, 1e-15);

    /* point_triangle: q at height h = 0.7 over a right triangle with legs 2 and 3:
     * (p2-p1)×(p3-p1) = (0, 0, 6), C = ±6 h */
    double pq[12] = {0.2, 0.3, 1.7, 0, 0, 1, 2, 0, 1, 0, 3, 1};
    double plus = 1.0, minus = -1.0;
    CU_ASSERT_DOUBLE_EQUAL(value(&pbd_point_triangle_type, pq, 4, &plus, NULL, 0), 4.2, 1e-14);
    CU_ASSERT_DOUBLE_EQUAL(value(&pbd_point_triangle_type, pq, 4, &minus, NULL, 0), -4.2, 1e-14);

    /* self_collision on the same stencil: Eq. 12 gives 0.7 - h, Eq. 13 gives -0.7 - h */
    double sc12[2] = {0.05, 1.0}, sc13[2] = {0.05, -1.0};
    CU_ASSERT_DOUBLE_EQUAL(value(&pbd_self_collision_type, pq, 4, sc12, NULL, 0), 0.65, 1e-14);
    CU_ASSERT_DOUBLE_EQUAL(value(&pbd_self_collision_type, pq, 4, sc13, NULL, 0), -0.75, 1e-14);

    /* balloon: the Eq. 14 sum of the octahedron is 6 × 4/3 = 8; scaled by 2 it is 64 */
    double oct[18];
    for (int i = 0; i < 18; i++) oct[i] = 2.0 * octahedron[i] + (i % 3 == 1 ? 5.0 : 0.0);
    double b_rest[2] = {8.0, 1.5};
    CU_ASSERT_DOUBLE_EQUAL(value(&pbd_balloon_volume_type, octahedron, 6, b_rest,
                                 octahedron_tris, 24),
                           8.0 - 12.0, 1e-13);
    CU_ASSERT_DOUBLE_EQUAL(value(&pbd_balloon_volume_type, oct, 6, b_rest, octahedron_tris, 24),
                           64.0 - 12.0, 1e-12);
    double rest_out[2];
    pbd_eval_input in = {octahedron, 6, NULL, octahedron_tris, 24};
    pbd_balloon_volume_type.rest(&in, rest_out);
    CU_ASSERT_DOUBLE_EQUAL(rest_out[0], 8.0, 1e-14);
    CU_ASSERT_EQUAL(rest_out[1], 1.0);

    /* attachment: a 3-4-5 triangle */
    double at[3] = {1, 2, 3}, target[3] = {4, 6, 3};
    CU_ASSERT_DOUBLE_EQUAL(value(&pbd_attachment_type, at, 1, target, NULL, 0), 5.0, 1e-15);
    double t_out[3];
    pbd_eval_input ain = {at, 1, NULL, NULL, 0};
    pbd_attachment_type.rest(&ain, t_out);
    CU_ASSERT(memcmp(t_out, at, sizeof at) == 0);

    /* rest values from a configuration reproduce C = 0 there */
    double r1;
    pbd_eval_input tin = {big, 4, NULL, NULL, 0};
    pbd_tet_volume_type.rest(&tin, &r1);
    CU_ASSERT_DOUBLE_EQUAL(r1, 4.0, 1e-13);
    pbd_eval_input pin = {tp, 4, NULL, NULL, 0};
    pbd_tet_plane_type.rest(&pin, &r1);
    CU_ASSERT_DOUBLE_EQUAL(r1, 2.5, 1e-14);
}

/* ---- gradients ------------------------------------------------------------------------ */

/* ∇C against central differences on N_SAMPLES well-conditioned samples of each type, with
 * the gradient checker's step, metric and threshold (pbd_fd_gradient: per coordinate
 * |g - fd| / max(|g|, |fd|, floor) <= 1e-6, the floor the FD's own expected error). */
static void test_gradients_fd(void)
{
    printf("\n");
    const double tol = pbd_gradcheck_options_default().max_rel_err;
    pbd_rng r;
    pbd_rng_seed(&r, 20240601);
    for (int k = 0; k < N_TYPES; k++) {
        const pbd_constraint_type *t = types[k];
        double worst = 0.0;
        int bad_status = 0;
        for (int n = 0; n < N_SAMPLES; n++) {
            sample s;
            draw(t, &r, 0, &s);
            double C, g[MAX_X], fd[MAX_X], e = INFINITY;
            if (eval_at(t, &s, s.x, &C, g) != PBD_EVAL_OK) bad_status++;
            pbd_eval_input in = input_of(&s, s.x);
            if (pbd_fd_gradient(t, &in, C, g, tol, fd, &e) != PBD_FD_OK) bad_status++;
            worst = fmax(worst, e);
        }
        printf("    %-16s worst relative FD error %.2e over %d samples\n", t->name, worst,
               N_SAMPLES);
        CU_ASSERT_EQUAL(bad_status, 0);
        CU_ASSERT(worst <= tol);
    }
}

/* Internal types: Σ_i ∇_i C = 0 (translation) and Σ_i x_i × ∇_i C = 0 (rotation), so that
 * a projection conserves linear and angular momentum (PBD Sec. 3.3). The non-internal
 * types must fail the first identity, or the flag would be pointless. */
static void test_rigid_invariance(void)
{
    pbd_rng r;
    pbd_rng_seed(&r, 99);
    for (int k = 0; k < N_TYPES; k++) {
        const pbd_constraint_type *t = types[k];
        double worst_lin = 0.0, worst_ang = 0.0, least_lin = INFINITY;
        for (int n = 0; n < N_SAMPLES; n++) {
            sample s;
            draw(t, &r, 0, &s);
            double C, g[MAX_X], lin[3] = {0, 0, 0}, ang[3] = {0, 0, 0};
            eval_at(t, &s, s.x, &C, g);
            double gscale = max_abs(g, 3 * s.arity), xscale = max_abs(s.x, 3 * s.arity);
            for (int j = 0; j < s.arity; j++) {
                const double *x = s.x + 3 * j, *gj = g + 3 * j;
                for (int c = 0; c < 3; c++) lin[c] += gj[c];
                ang[0] += x[1] * gj[2] - x[2] * gj[1];
                ang[1] += x[2] * gj[0] - x[0] * gj[2];
                ang[2] += x[0] * gj[1] - x[1] * gj[0];
            }
            worst_lin = fmax(worst_lin, max_abs(lin, 3) / gscale);
            worst_ang = fmax(worst_ang, max_abs(ang, 3) / (gscale * xscale));
            least_lin = fmin(least_lin, max_abs(lin, 3) / gscale);
        }
        if (t->internal) {
            CU_ASSERT(worst_lin < 1e-12);
            CU_ASSERT(worst_ang < 1e-12);
        } else {
            CU_ASSERT(least_lin > 0.1);
        }
    }
}

/* The balloon's translation invariance needs a closed mesh: without one triangle,
 * Σ_i ∇_i C = -(twice the missing triangle's area vector) ≠ 0. */
static void test_balloon_closed_mesh(void)
{
    double x[18], rest[2] = {8.0, 1.0}, C, g[18];
    for (int i = 0; i < 18; i++) x[i] = octahedron[i] + 0.3 * (i % 3) + 0.05 * sin(i);
    for (int open = 0; open < 2; open++) {
        pbd_eval_input in = {x, 6, rest, octahedron_tris, open ? 21 : 24};
        CU_ASSERT_EQUAL(pbd_balloon_volume_type.eval(&in, &C, g), PBD_EVAL_OK);
        double lin[3] = {0, 0, 0};
        for (int j = 0; j < 6; j++)
            for (int c = 0; c < 3; c++) lin[c] += g[3 * j + c];
        if (!open) CU_ASSERT(max_abs(lin, 3) < 1e-13);
        if (open) {
            /* the missing triangle is (0, 3, 5): its doubled area vector */
            double e1[3], e2[3], a[3];
            for (int c = 0; c < 3; c++) {
                e1[c] = x[9 + c] - x[c];
                e2[c] = x[15 + c] - x[c];
            }
            a[0] = e1[1] * e2[2] - e1[2] * e2[1];
            a[1] = e1[2] * e2[0] - e1[0] * e2[2];
            a[2] = e1[0] * e2[1] - e1[1] * e2[0];
            for (int c = 0; c < 3; c++) CU_ASSERT_DOUBLE_EQUAL(lin[c], -a[c], 1e-13);
            CU_ASSERT(max_abs(lin, 3) > 0.5);
        }
    }
}

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

void register_constraints_tests(void)
{
    CU_pSuite s = CU_add_suite("constraints", NULL, NULL);
    CU_add_test(s, "registry_rows", test_registry_rows);
    CU_add_test(s, "values", test_values);
    CU_add_test(s, "gradients_fd", test_gradients_fd);
    CU_add_test(s, "rigid_invariance", test_rigid_invariance);
    CU_add_test(s, "balloon_closed_mesh", test_balloon_closed_mesh);
    CU_add_test(s, "projection", test_projection);
    CU_add_test(s, "degenerate_inputs", test_degenerate_inputs);
    CU_add_test(s, "inverted_tet", test_inverted_tet);
    CU_add_test(s, "balloon_inflates", test_balloon_inflates);
}
