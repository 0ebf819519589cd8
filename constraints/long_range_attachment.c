/* long_range_attachment: C(p, a) = ℓ − |p − a| >= 0, an inequality (Kim, Chentanez, Müller
 * 2012, "Long Range Attachments — A Method to Simulate Inextensible Clothing in Computer
 * Games", Sec. 3): particle p may not be farther from the attached particle a than ℓ, the
 * rest length of the shortest path from a to p along the mesh (the builder computes it:
 * pbd_trimesh_geodesic in experiments/mesh; rest() from x gives the straight distance). Only
 * a violated constraint (|p − a| > ℓ) is projected, so the cloth stays free to fold; with a
 * fixed (w = 0) all the motion goes to p, as in the paper. Internal, like distance. */
#include "pbd_constraint.h"
#include "batch_generic.h"
#include "sample_shapes.h"

#define LRA_MIN_LENGTH 1e-12 /* below this the direction p − a is undefined: skip */

/* ∇_p C = −(p − a)/|p − a|, ∇_a C = +(p − a)/|p − a| (the distance constraint's gradient,
 * PBD Sec. 3.3, with the sign of C reversed). */
static int lra_eval(const pbd_eval_input *in, double *C, double *grad)
{
    double d[3];
    v3_sub(d, in->x, in->x + 3);
    double len = v3_norm(d);
    *C = in->rest[0] - len;
    if (!(len >= LRA_MIN_LENGTH) || !isfinite(len)) {
        if (!isfinite(*C)) *C = 0.0;
        if (grad) v3_zero(grad), v3_zero(grad + 3);
        return PBD_EVAL_DEGENERATE;
    }
    if (grad) {
        v3_scale(grad, d, -1.0 / len);
        v3_scale(grad + 3, d, 1.0 / len);
    }
    return PBD_EVAL_OK;
}

/* ∇²C = −(I − n nᵀ)/|d| ⊗ [[1, −1], [−1, 1]], n = d/|d|, d = p − a (C = ℓ − |d|). */
static int lra_hessian(const pbd_eval_input *in, double *H)
{
    double C, d[3];
    for (int k = 0; k < 36; k++) H[k] = 0.0;
    int st = lra_eval(in, &C, NULL);
    if (st != PBD_EVAL_OK) return st;
    v3_sub(d, in->x, in->x + 3);
    double len = v3_norm(d);
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            double v = -((a == b) - d[a] * d[b] / (len * len)) / len;
            H[6 * a + b] = H[6 * (3 + a) + 3 + b] = v;
            H[6 * a + 3 + b] = H[6 * (3 + a) + b] = -v;
        }
    return PBD_EVAL_OK;
}

static void lra_rest(const pbd_eval_input *in, double *rest)
{
    double d[3];
    v3_sub(d, in->x, in->x + 3);
    rest[0] = v3_norm(d);
}

/* Either side of the limit (the checker tests C where it is smooth, inactive or not);
 * degenerate != 0: p within 1e-9 of a, or on it. */
static int lra_sample(pbd_rng *r, int degenerate, double *x, double *rest, int32_t *aux,
                      int *n_aux)
{
    (void)aux;
    *n_aux = 0;
    double dir[3];
    ss_box(r, x + 3);
    ss_unit(r, dir);
    v3_copy(x, x + 3);
    double len = degenerate ? (pbd_rng_uniform(r) < 0.5 ? pbd_rng_range(r, 0.0, 1e-9) : 0.0)
                            : pbd_rng_range(r, 0.2, 2.0);
    v3_axpy(x, len, dir);
    rest[0] = len * pbd_rng_range(r, 0.5, 1.5);
    return 2;
}

/* Batched kernels: eval inlined into the generic projection (bit for bit the generic path). */
BG_DEFINE_KERNELS(lra, 2, 1, 1, lra_eval);

const pbd_constraint_type pbd_long_range_attachment_type = {
    .name = "long_range_attachment",
    .description = "l - |p - a| >= 0: p within the geodesic rest distance l of the attached "
                   "particle a (Kim et al. 2012)",
    .unit = "m",
    .arity = 2,
    .n_rest = 1,
    .inequality = 1,
    .internal = 1,
    .eval = lra_eval,
    .rest = lra_rest,
    .sample = lra_sample,
    .project_closed_form = NULL,
    .kernels = &lra_kernels,
    .hessian = lra_hessian,
};
