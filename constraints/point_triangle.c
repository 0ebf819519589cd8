/* point_triangle: C(q, p1, p2, p3) = sign (q - p1)·[(p2 - p1)×(p3 - p1)] >= 0, an
 * inequality (PBD Sec. 3.4): keeps the point q of one object on its side (sign = ±1) of
 * the triangle p1, p2, p3 of another. Rest {sign}, set by the collision detection.
 * Internal: a triple product of edge vectors is invariant to translation and rotation,
 * so projecting it conserves linear and angular momentum (PBD Sec. 3.3, Eq. 1–2). */
#include "pbd_constraint.h"
#include "plane_geometry.h"
#include "sample_shapes.h"

/* With a = q - p1, b = p2 - p1, c = p3 - p1 and T = a·(b×c) (plane_geometry.h):
 *   ∇_q C = sign b×c,  ∇_{p2} C = sign c×a,  ∇_{p3} C = sign a×b,
 *   ∇_{p1} C = -(∇_q + ∇_{p2} + ∇_{p3}).
 * The triangle's normal is not normalised, so the gradient stays defined for zero-area
 * triangles (C = 0 there: inactive). Degenerate only when all four points are collinear
 * or coincident. */
static int point_triangle_eval(const pbd_eval_input *in, double *C, double *grad)
{
    const double *q = in->x, *p1 = in->x + 3, *p2 = in->x + 6, *p3 = in->x + 9;
    double sign = in->rest[0], T;
    int st = grad ? pg_triple_product(p1, q, p2, p3, &T, grad + 3, grad, grad + 6, grad + 9)
                  : pg_triple_product(p1, q, p2, p3, &T, NULL, NULL, NULL, NULL);
    *C = sign * T;
    if (grad)
        for (int i = 0; i < 12; i++) grad[i] *= sign;
    return st;
}

/* Four well-shaped points (q, p1, p2, p3) with sign = ±1; degenerate != 0: a tiny
 * triangle (1e-8), a zero-area triangle, q in the triangle's plane, or all points on one
 * line. */
static int point_triangle_sample(pbd_rng *r, int degenerate, double *x, double *rest,
                                 int32_t *aux, int *n_aux)
{
    (void)aux;
    *n_aux = 0;
    ss_well_shaped(r, x, 4);
    rest[0] = pbd_rng_uniform(r) < 0.5 ? -1.0 : 1.0;
    if (!degenerate) return 4;
    double *q = x, *p1 = x + 3, *p2 = x + 6, *p3 = x + 9, b[3], c[3], m[3], a[3];
    v3_sub(b, p2, p1);
    switch (pbd_rng_next(r) % 4) {
    case 0: /* tiny triangle */
        ss_gauss3(r, p2, p1, 1e-8);
        ss_gauss3(r, p3, p1, 1e-8);
        break;
    case 1: /* zero-area triangle: p3 on the line p1–p2 */
        v3_copy(p3, p1);
        v3_axpy(p3, pbd_rng_range(r, -1.0, 2.0), b);
        break;
    case 2: /* q in the plane of the triangle */
        v3_sub(c, p3, p1);
        v3_cross(m, b, c);
        v3_sub(a, q, p1);
        v3_axpy(q, -v3_dot(a, m) / v3_dot(m, m), m);
        break;
    default: /* all on one line */
        for (int i = 0; i < 4; i++) {
            if (i == 1) continue;
            v3_copy(x + 3 * i, p1);
            v3_axpy(x + 3 * i, pbd_rng_range(r, -1.0, 1.0), b);
        }
        break;
    }
    return 4;
}

const pbd_constraint_type pbd_point_triangle_type = {
    .name = "point_triangle",
    .description = "sign (q-p1)·((p2-p1)×(p3-p1)) >= 0 (PBD Sec. 3.4)",
    .unit = "m^3",
    .arity = 4,
    .n_rest = 1,
    .inequality = 1,
    .internal = 1,
    .eval = point_triangle_eval,
    .rest = NULL,
    .sample = point_triangle_sample,
    .project_closed_form = NULL,
};
