/* The solid, collision, pressure and attachment constraint types (one file each in
 * constraints/), their values and gradients (suite `constraints`): the registry rows,
 * hand-checked values, ∇C against central finite differences, rigid-motion invariance of
 * the internal types. Projection (PBD Eq. 6–9), degenerate input, an inverted tet and an
 * inflated balloon are suite `constraints_projection` (tests/test_constraints_projection.c). */
#include "analysis/pbd_analysis.h"
#include "tests.h"
#include "constraints_check.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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

void register_constraints_tests(void)
{
    CU_pSuite s = CU_add_suite("constraints", NULL, NULL);
    CU_add_test(s, "registry_rows", test_registry_rows);
    CU_add_test(s, "values", test_values);
    CU_add_test(s, "gradients_fd", test_gradients_fd);
    CU_add_test(s, "rigid_invariance", test_rigid_invariance);
    CU_add_test(s, "balloon_closed_mesh", test_balloon_closed_mesh);
}
