/* tet_plane: C(p0, p1, p2, p3) = (p1-p0)·n - d,  n = (p2-p0)×(p3-p0) / |(p2-p0)×(p3-p0)|
 * (seed "tetrahedron constraint gradients"): keeps p1 at the signed distance d from the
 * plane through p0, p2, p3. An equality with a signed rest d, so that an inverted tet
 * (p1 on the wrong side) is pulled back through the plane; four of them per tet, one per
 * vertex, hold a tet without edge constraints. Same function as self collision (PBD
 * Eq. 12) with p1 as the point. */
#include "pbd_constraint.h"
#include "plane_geometry.h"
#include "sample_shapes.h"

/* With e_i = p_i - p0, m = e2×e3, n = m/|m|, u = (e1 - (e1·n) n)/|m| (derivation in
 * plane_geometry.h, PBD Appendix A Eq. 18–19):
 *   ∇_{p1} C = n,  ∇_{p2} C = e3×u,  ∇_{p3} C = u×e2,  ∇_{p0} C = -(∇_{p1}+∇_{p2}+∇_{p3}).
 * Degenerate when the triangle p0, p2, p3 has (almost) no area: n is undefined. */
static int tet_plane_eval(const pbd_eval_input *in, double *C, double *grad)
{
    const double *x = in->x;
    double D;
    int st = grad ? pg_plane_distance(x, x + 3, x + 6, x + 9, &D, grad, grad + 3, grad + 6,
                                      grad + 9)
                  : pg_plane_distance(x, x + 3, x + 6, x + 9, &D, NULL, NULL, NULL, NULL);
    *C = st == PBD_EVAL_OK ? D - in->rest[0] : 0.0;
    return st;
}

/* d = p1's signed distance at the configuration (0 when the plane is undefined). */
static void tet_plane_rest(const pbd_eval_input *in, double *rest)
{
    const double *x = in->x;
    double D;
    pg_plane_distance(x, x + 3, x + 6, x + 9, &D, NULL, NULL, NULL, NULL);
    rest[0] = D;
}

/* Well-shaped tets of either orientation, rest d of either sign; degenerate != 0: the
 * plane's triangle p0, p2, p3 a sliver (p3 within 1e-9 of the line p0–p2), p2 and p0
 * nearly or exactly coincident, or a flat tet (p1 in the plane, gradient still defined). */
static int tet_plane_sample(pbd_rng *r, int degenerate, double *x, double *rest, int32_t *aux,
                            int *n_aux)
{
    (void)aux;
    *n_aux = 0;
    ss_well_shaped(r, x, 4);
    double D;
    pg_plane_distance(x, x + 3, x + 6, x + 9, &D, NULL, NULL, NULL, NULL);
    rest[0] = D * pbd_rng_range(r, 0.5, 1.5) * (pbd_rng_uniform(r) < 0.2 ? -1.0 : 1.0);
    if (!degenerate) return 4;
    double e2[3];
    v3_sub(e2, x + 6, x);
    switch (pbd_rng_next(r) % 4) {
    case 0: /* sliver: p3 nearly on the line p0–p2 */
        ss_gauss3(r, x + 9, x, 1e-9);
        v3_axpy(x + 9, pbd_rng_range(r, -2.0, 2.0), e2);
        break;
    case 1: /* p2 nearly coincident with p0 */
        ss_gauss3(r, x + 6, x, 1e-9);
        break;
    case 2: /* p2 and p3 exactly on p0 */
        v3_copy(x + 6, x);
        v3_copy(x + 9, x);
        break;
    default: { /* flat tet: p1 in the plane p0, p2, p3 */
        double e1[3], e3[3], m[3];
        v3_sub(e1, x + 3, x);
        v3_sub(e3, x + 9, x);
        v3_cross(m, e2, e3);
        v3_axpy(x + 3, -v3_dot(e1, m) / v3_dot(m, m), m);
        break;
    }
    }
    return 4;
}

const pbd_constraint_type pbd_tet_plane_type = {
    .name = "tet_plane",
    .description = "(p1-p0)·n - d, n = unit normal of plane p0,p2,p3 (signed distance)",
    .unit = "m",
    .arity = 4,
    .n_rest = 1,
    .inequality = 0,
    .internal = 1,
    .eval = tet_plane_eval,
    .rest = tet_plane_rest,
    .sample = tet_plane_sample,
    .project_closed_form = NULL,
};
