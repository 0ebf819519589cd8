/* plane_collision: C(p) = (p - q)·n >= 0, an inequality (PBD Sec. 3.4). One function for
 * both cases of the collision detection: continuous (the ray x -> p enters an object at q_c
 * with surface normal n_c) and static (the ray lies inside: q_s is the closest surface
 * point, n_s its normal). Rest {qx, qy, qz, nx, ny, nz}, n of unit length, set by the
 * collision detection (no rest function). Not internal: the object is not simulated. */
#include "pbd_constraint.h"
#include "sample_shapes.h"

/* Below this |n|² the normal is missing: skip. */
#define PLANE_COLLISION_MIN_NORMAL2 1e-24

/* C is linear in p: ∇_p C = n (PBD Sec. 3.4). A non-unit n only scales C and ∇C together,
 * which leaves the projection (PBD Eq. 8–9) unchanged. */
static int plane_collision_eval(const pbd_eval_input *in, double *C, double *grad)
{
    const double *q = in->rest, *n = in->rest + 3;
    double d[3];
    v3_sub(d, in->x, q);
    *C = v3_dot(d, n);
    if (grad) v3_copy(grad, n);
    if (!(v3_dot(n, n) > PLANE_COLLISION_MIN_NORMAL2)) {
        *C = 0.0;
        if (grad) v3_zero(grad);
        return PBD_EVAL_DEGENERATE;
    }
    return PBD_EVAL_OK;
}

/* A random point at a signed distance in [-2, 2] from a random plane; degenerate != 0: the
 * point (nearly) on the surface point q itself, where C ~ 0. */
static int plane_collision_sample(pbd_rng *r, int degenerate, double *x, double *rest,
                                  int32_t *aux, int *n_aux)
{
    (void)aux;
    *n_aux = 0;
    ss_box(r, rest);
    ss_unit(r, rest + 3);
    if (degenerate) {
        ss_gauss3(r, x, rest, pbd_rng_uniform(r) < 0.5 ? 1e-12 : 0.0);
    } else {
        ss_gauss3(r, x, rest, 1.0);
        double h = pbd_rng_range(r, -2.0, 2.0), d[3];
        v3_sub(d, x, rest);
        v3_axpy(x, h - v3_dot(d, rest + 3), rest + 3);
    }
    return 1;
}

const pbd_constraint_type pbd_plane_collision_type = {
    .name = "plane_collision",
    .description = "(p - q)·n >= 0, q = entry point q_c or closest point q_s (PBD Sec. 3.4)",
    .unit = "m",
    .arity = 1,
    .n_rest = 6,
    .inequality = 1,
    .internal = 0,
    .eval = plane_collision_eval,
    .rest = NULL,
    .sample = plane_collision_sample,
    .project_closed_form = NULL,
};
