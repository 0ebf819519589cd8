/* attachment: C(p) = |p - t|, a soft attachment of one particle to a target point t
 * (rest {tx, ty, tz}). With XPBD's compliance α it is a zero-length spring to t; with
 * PBD stiffness k = 1 it pins p to t like PBD Sec. 3.6's hard attachment (which instead
 * sets w = 0 and moves p itself). Not internal: t is fixed in space. */
#include "pbd_constraint.h"
#include "hessian3.h"
#include "sample_shapes.h"

/* Below this distance the direction to the target is undefined: skip (p is there). */
#define ATTACHMENT_MIN_LENGTH 1e-12

/* ∇_p C = (p - t)/|p - t|, as for the distance constraint (PBD Sec. 3.3) with d = 0. */
static int attachment_eval(const pbd_eval_input *in, double *C, double *grad)
{
    double d[3];
    v3_sub(d, in->x, in->rest);
    double len = v3_norm(d);
    if (!(len >= ATTACHMENT_MIN_LENGTH) || !isfinite(len)) {
        *C = 0.0;
        if (grad) v3_zero(grad);
        return PBD_EVAL_DEGENERATE;
    }
    *C = len;
    if (grad) v3_scale(grad, d, 1.0 / len);
    return PBD_EVAL_OK;
}

/* ∇²C = (I - n nᵀ)/|p - t|, n = (p - t)/|p - t| (the distance's B with d = 0). */
static int attachment_hessian(const pbd_eval_input *in, double *H)
{
    double d[3], n[3];
    v3_sub(d, in->x, in->rest);
    double len = v3_norm(d);
    if (!(len >= ATTACHMENT_MIN_LENGTH) || !isfinite(len)) {
        for (int i = 0; i < 9; i++) H[i] = 0.0;
        return PBD_EVAL_DEGENERATE;
    }
    v3_scale(n, d, 1.0 / len);
    m3_projector(H, n, 1.0 / len);
    return PBD_EVAL_OK;
}

/* t = the particle's position when the attachment is made (C = 0 at rest). */
static void attachment_rest(const pbd_eval_input *in, double *rest)
{
    v3_copy(rest, in->x);
}

/* p at a distance in [0.2, 2] from t; degenerate != 0: p within 1e-9 of t, or on it. */
static int attachment_sample(pbd_rng *r, int degenerate, double *x, double *rest,
                             int32_t *aux, int *n_aux)
{
    (void)aux;
    *n_aux = 0;
    double dir[3];
    ss_box(r, rest);
    ss_unit(r, dir);
    v3_copy(x, rest);
    double len = degenerate ? (pbd_rng_uniform(r) < 0.5 ? pbd_rng_range(r, 0.0, 1e-9) : 0.0)
                            : pbd_rng_range(r, 0.2, 2.0);
    v3_axpy(x, len, dir);
    return 1;
}

const pbd_constraint_type pbd_attachment_type = {
    .name = "attachment",
    .description = "|p - t|, soft attachment to a target t (XPBD with compliance)",
    .unit = "m",
    .arity = 1,
    .n_rest = 3,
    .inequality = 0,
    .internal = 0,
    .eval = attachment_eval,
    .hessian = attachment_hessian,
    .rest = attachment_rest,
    .sample = attachment_sample,
    .project_closed_form = NULL,
};
