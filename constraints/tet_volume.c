/* tet_volume: C(p0, p1, p2, p3) = (1/6) (p1-p0)·[(p2-p0)×(p3-p0)] - V0, signed
 * (a per-tetrahedron volume constraint in the sense of PBD Sec. 3.3; formula and
 * gradients from the seed "tetrahedron constraint gradients"). A signed rest volume lets an inverted tet un-invert (with edge distance
 * constraints: the volume alone does not fix the shape). */
#include "pbd_constraint.h"
#include "batch_generic.h"
#include "hessian3.h"
#include "plane_geometry.h"
#include "sample_shapes.h"

/* With e_i = p_i - p0 and T = e1·(e2×e3) (plane_geometry.h):
 *   ∇_{p1} C = (1/6) e2×e3,  ∇_{p2} C = (1/6) e3×e1,  ∇_{p3} C = (1/6) e1×e2,
 *   ∇_{p0} C = -(∇_{p1} + ∇_{p2} + ∇_{p3}).
 * Degenerate (skip) only when all four face areas vanish: coincident or collinear points.
 * A flat tet (zero volume, non-collinear points) has a well-defined gradient and is
 * pushed back to V0. */
static int tet_volume_eval(const pbd_eval_input *in, double *C, double *grad)
{
    const double *x = in->x;
    double T;
    int st = grad ? pg_triple_product(x, x + 3, x + 6, x + 9, &T, grad, grad + 3, grad + 6,
                                      grad + 9)
                  : pg_triple_product(x, x + 3, x + 6, x + 9, &T, NULL, NULL, NULL, NULL);
    *C = T / 6.0 - in->rest[0];
    if (grad)
        for (int i = 0; i < 12; i++) grad[i] /= 6.0;
    return st;
}

/* ∇²C: C = (1/6) e1·(e2×e3) is linear in each e_i = p_i - p0, so in (e1, e2, e3) the
 * diagonal blocks vanish and, with ∂(a×b)/∂a = -[b]×, ∂(a×b)/∂b = [a]×,
 *   G_12 = -(1/6)[e3]×,  G_13 = (1/6)[e2]×,  G_23 = -(1/6)[e1]×,  G_kj = G_jkᵀ;
 * the p0 rows and columns follow from e_i = p_i - p0 (h3_expand_relative). Degenerate where
 * eval is (coincident or collinear points), although the polynomial has a Hessian there. */
static int tet_volume_hessian(const pbd_eval_input *in, double *H)
{
    const double *x = in->x;
    double T, e[3][3], G[81] = {0}, m[9];
    int st = pg_triple_product(x, x + 3, x + 6, x + 9, &T, NULL, NULL, NULL, NULL);
    for (int i = 0; i < 3; i++) v3_sub(e[i], x + 3 * (i + 1), x);
    const int pair[3][3] = {{0, 1, 2}, {0, 2, 1}, {1, 2, 0}}; /* (j, k, the third edge) */
    const double sign[3] = {-1.0, 1.0, -1.0};
    for (int p = 0; p < 3; p++) {
        m3_skew(m, e[pair[p][2]], sign[p] / 6.0);
        h3_add_block(G, 9, pair[p][0], pair[p][1], 1.0, m, 1);
    }
    h3_expand_relative(G, H);
    return st;
}

static void tet_volume_rest(const pbd_eval_input *in, double *rest)
{
    const double *x = in->x;
    double T;
    pg_triple_product(x, x + 3, x + 6, x + 9, &T, NULL, NULL, NULL, NULL);
    rest[0] = T / 6.0;
}

/* Random well-shaped tets of either orientation; degenerate != 0: nearly flat tets,
 * nearly coincident points, nearly collinear points, or exactly coincident points. */
static int tet_volume_sample(pbd_rng *r, int degenerate, double *x, double *rest, int32_t *aux,
                             int *n_aux)
{
    (void)aux;
    *n_aux = 0;
    ss_well_shaped(r, x, 4);
    double T;
    pg_triple_product(x, x + 3, x + 6, x + 9, &T, NULL, NULL, NULL, NULL);
    rest[0] = fabs(T) / 6.0 * pbd_rng_range(r, 0.5, 1.5);
    if (!degenerate) return 4;
    switch (pbd_rng_next(r) % 4) {
    case 0: { /* nearly flat: p1 moved to within 1e-9 of the plane p0, p2, p3 */
        double eb[3], ec[3], m[3], e1[3];
        v3_sub(eb, x + 6, x);
        v3_sub(ec, x + 9, x);
        v3_cross(m, eb, ec);
        v3_scale(m, m, 1.0 / v3_norm(m));
        v3_sub(e1, x + 3, x);
        v3_axpy(x + 3, pbd_rng_range(r, -1e-9, 1e-9) - v3_dot(e1, m), m);
        break;
    }
    case 1: /* nearly coincident */
        for (int i = 1; i < 4; i++) ss_gauss3(r, x + 3 * i, x, 1e-8);
        break;
    case 2: { /* nearly collinear */
        double dir[3];
        ss_unit(r, dir);
        for (int i = 1; i < 4; i++) {
            double t = pbd_rng_range(r, -1.0, 1.0);
            ss_gauss3(r, x + 3 * i, x, 1e-9);
            v3_axpy(x + 3 * i, t, dir);
        }
        break;
    }
    default: /* exactly coincident */
        for (int i = 1; i < 4; i++) v3_copy(x + 3 * i, x);
        break;
    }
    return 4;
}

/* Batched kernels: eval inlined into the generic projection (bit for bit the generic path). */
BG_DEFINE_KERNELS(tet_volume, 4, 1, 0, tet_volume_eval);

const pbd_constraint_type pbd_tet_volume_type = {
    .name = "tet_volume",
    .description = "(1/6)(p1-p0)·((p2-p0)×(p3-p0)) - V0, signed tet volume",
    .unit = "m^3",
    .arity = 4,
    .n_rest = 1,
    .inequality = 0,
    .internal = 1,
    .eval = tet_volume_eval,
    .hessian = tet_volume_hessian,
    .rest = tet_volume_rest,
    .sample = tet_volume_sample,
    .project_closed_form = NULL,
    .kernels = &tet_volume_kernels,
};
