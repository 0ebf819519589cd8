/* self_collision: C(q, p1, p2, p3) = sign (q - p1)·n̂ - h >= 0, an inequality
 * (PBD Sec. 4.3): n̂ = (p2-p1)×(p3-p1)/|…| with sign = +1 is Eq. 12 (q above the triangle
 * by the cloth thickness h); sign = -1 flips the normal to (p3-p1)×(p2-p1), Eq. 13 (q kept
 * on its original side below). Rest {h, sign}, set by the collision detection.
 * Internal: the signed distance is invariant to rigid motion (PBD Sec. 4.3: projecting
 * these constraints conserves linear and angular momentum). */
#include "pbd_constraint.h"
#include "plane_geometry.h"
#include "sample_shapes.h"

/* With a = q - p1, b = p2 - p1, c = p3 - p1, m = b×c, n̂ = m/|m|,
 * u = (a - (a·n̂) n̂)/|m| (derivation in plane_geometry.h, PBD Appendix A Eq. 18–19):
 *   ∇_q C = sign n̂,  ∇_{p2} C = sign c×u,  ∇_{p3} C = sign u×b,
 *   ∇_{p1} C = -(∇_q + ∇_{p2} + ∇_{p3}).
 * Degenerate (skip) for a zero-area triangle: n̂ is undefined. */
static int self_collision_eval(const pbd_eval_input *in, double *C, double *grad)
{
    const double *q = in->x, *p1 = in->x + 3, *p2 = in->x + 6, *p3 = in->x + 9;
    double h = in->rest[0], sign = in->rest[1], D;
    int st = grad ? pg_plane_distance(p1, q, p2, p3, &D, grad + 3, grad, grad + 6, grad + 9)
                  : pg_plane_distance(p1, q, p2, p3, &D, NULL, NULL, NULL, NULL);
    if (st != PBD_EVAL_OK) {
        *C = 0.0;
        return st;
    }
    *C = sign * D - h;
    if (grad)
        for (int i = 0; i < 12; i++) grad[i] *= sign;
    return PBD_EVAL_OK;
}

/* A well-shaped triangle and a point q, thickness h in [0.001, 0.1], sign = ±1;
 * degenerate != 0: a tiny triangle (1e-9), a zero-area (collinear) triangle, or a
 * triangle with two coincident corners. */
static int self_collision_sample(pbd_rng *r, int degenerate, double *x, double *rest,
                                 int32_t *aux, int *n_aux)
{
    (void)aux;
    *n_aux = 0;
    ss_well_shaped(r, x + 3, 3);
    double centre[3] = {(x[3] + x[6] + x[9]) / 3, (x[4] + x[7] + x[10]) / 3,
                        (x[5] + x[8] + x[11]) / 3};
    ss_gauss3(r, x, centre, 1.0);
    rest[0] = pbd_rng_range(r, 0.001, 0.1);
    rest[1] = pbd_rng_uniform(r) < 0.5 ? -1.0 : 1.0;
    if (!degenerate) return 4;
    double *p1 = x + 3, *p2 = x + 6, *p3 = x + 9, b[3];
    v3_sub(b, p2, p1);
    switch (pbd_rng_next(r) % 3) {
    case 0: /* tiny triangle */
        ss_gauss3(r, p2, p1, 1e-9);
        ss_gauss3(r, p3, p1, 1e-9);
        break;
    case 1: /* zero-area: p3 on the line p1–p2 */
        v3_copy(p3, p1);
        v3_axpy(p3, pbd_rng_range(r, -1.0, 2.0), b);
        break;
    default: /* p3 on p2 */
        v3_copy(p3, p2);
        break;
    }
    return 4;
}

const pbd_constraint_type pbd_self_collision_type = {
    .name = "self_collision",
    .description = "sign (q-p1)·n̂ - h >= 0, n̂ = unit normal of p1,p2,p3 (PBD Eq. 12/13)",
    .unit = "m",
    .arity = 4,
    .n_rest = 2,
    .inequality = 1,
    .internal = 1,
    .eval = self_collision_eval,
    .rest = NULL,
    .sample = self_collision_sample,
    .project_closed_form = NULL,
};
