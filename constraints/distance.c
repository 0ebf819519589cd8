/* distance (stretch): C(p1, p2) = |p1 - p2| - d   (PBD Sec. 3.3, Sec. 4.1) */
#include "pbd_constraint.h"
#include "vec3.h"

/* Below this length the direction n = (p1-p2)/|p1-p2| is undefined: skip. */
#define DISTANCE_MIN_LENGTH 1e-12

/* ∇_{p1} C = n, ∇_{p2} C = -n with n = (p1 - p2)/|p1 - p2|  (PBD Sec. 3.3 example) */
static int distance_eval(const pbd_eval_input *in, double *C, double *grad)
{
    double d[3];
    v3_sub(d, in->x, in->x + 3);
    double len = v3_norm(d);
    *C = len - in->rest[0];
    if (len < DISTANCE_MIN_LENGTH) {
        if (grad) for (int i = 0; i < 6; i++) grad[i] = 0.0;
        return PBD_EVAL_DEGENERATE;
    }
    if (grad) {
        v3_scale(grad, d, 1.0 / len);
        v3_scale(grad + 3, d, -1.0 / len);
    }
    return PBD_EVAL_OK;
}

static void distance_rest(const pbd_eval_input *in, double *rest)
{
    double d[3];
    v3_sub(d, in->x, in->x + 3);
    rest[0] = v3_norm(d);
}

/* Closed form, PBD Eq. 10/11:
 *   Δp1 = -w1/(w1+w2) (|p1-p2| - d) n,   Δp2 = +w2/(w1+w2) (|p1-p2| - d) n,
 * scaled by the stiffness k. */
static int distance_project(const pbd_eval_input *in, const double *w, double k, double *x)
{
    double wsum = w[0] + w[1];
    double d[3];
    v3_sub(d, x, x + 3);
    double len = v3_norm(d);
    if (wsum <= 0.0 || len < DISTANCE_MIN_LENGTH) return PBD_EVAL_DEGENERATE;
    double s = k * (len - in->rest[0]) / (wsum * len);
    v3_axpy(x, -w[0] * s, d);
    v3_axpy(x + 3, w[1] * s, d);
    return PBD_EVAL_OK;
}

static int distance_sample(pbd_rng *r, int degenerate, double *x, double *rest, int32_t *aux,
                           int *n_aux)
{
    (void)aux;
    *n_aux = 0;
    for (int i = 0; i < 3; i++) x[i] = pbd_rng_gaussian(r);
    double scale = degenerate ? 1e-6 : 1.0; /* nearly coincident points */
    for (int i = 0; i < 3; i++) x[3 + i] = x[i] + scale * pbd_rng_gaussian(r);
    rest[0] = pbd_rng_range(r, 0.1, 2.0);
    return 2;
}

const pbd_constraint_type pbd_distance_type = {
    .name = "distance",
    .description = "|p1 - p2| - d (PBD Sec. 3.3, Eq. 10/11)",
    .arity = 2,
    .n_rest = 1,
    .inequality = 0,
    .internal = 1,
    .eval = distance_eval,
    .rest = distance_rest,
    .sample = distance_sample,
    .project_closed_form = distance_project,
};
