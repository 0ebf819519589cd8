/* distance (stretch): C(p1, p2) = |p1 - p2| - d   (PBD Sec. 3.3, Sec. 4.1) */
#include "pbd_constraint.h"
#include "dihedral_simd.h"
#include "hessian3.h"

#include <stddef.h>

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

/* ∇²C: with n = d/|d|, dn = (I - n nᵀ) dd/|d| and dd = dp1 - dp2, so
 *   ∇²C = [B -B; -B B],  B = (I - n nᵀ)/|d|   (the geometric stiffness of a spring). */
static int distance_hessian(const pbd_eval_input *in, double *H)
{
    double d[3], n[3], B[9];
    v3_sub(d, in->x, in->x + 3);
    double len = v3_norm(d);
    for (int i = 0; i < 36; i++) H[i] = 0.0;
    if (len < DISTANCE_MIN_LENGTH) return PBD_EVAL_DEGENERATE;
    v3_scale(n, d, 1.0 / len);
    m3_projector(B, n, 1.0 / len);
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 2; k++) h3_add_block(H, 6, i, k, i == k ? 1.0 : -1.0, B, 0);
    return PBD_EVAL_OK;
}

/* One particle's row and block (pbd_vertex_block_fn): ∇_jC = ±n, ∇²_jjC = B, the same
 * operations as eval and hessian. */
static int distance_vertex_block(const pbd_eval_input *in, int j, double *C, double *g,
                                 double *B, int *hess_ok)
{
    double d[3], n[3];
    v3_sub(d, in->x, in->x + 3);
    double len = v3_norm(d);
    *C = len - in->rest[0];
    *hess_ok = !(len < DISTANCE_MIN_LENGTH); /* as eval and hessian */
    if (!*hess_ok) return PBD_EVAL_DEGENERATE;
    v3_scale(g, d, j == 0 ? 1.0 / len : -1.0 / len);
    v3_scale(n, d, 1.0 / len);
    m3_projector(B, n, 1.0 / len);
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

/* Batched kernels (solver/xpbd/README.md "Performance"), PBD Eq. 10/11 as in distance_project:
 *   s = k (|d| - d0) / ((w1 + w2) |d|),  p1 -= w1 s d,  p2 += w2 s d,  d = p1 - p2,
 * with the multiplier Δλ = -k C/(w1 + w2) = -s |d| (the generic path's -k C / Σ w|∇C|²),
 * and XPBD Eq. 18 with Σ_j w_j |∇_j C|² = w1 + w2 (|∇C| = 1 for both particles):
 *   Δλ = (-C - α̃λ) / (w1 + w2 + α̃),  p1 += w1 Δλ d/|d|,  p2 -= w2 Δλ d/|d|,
 * computed as t = Δλ/|d| with one division. Degenerate, as in the generic path: coincident
 * points (or a non-finite length) and two fixed particles. */
static inline int distance_pbd_one(const pbd_batch *b, int c)
{
    int i = b->idx[2 * c], j = b->idx[2 * c + 1];
    double *p1 = b->pos + 3 * (size_t)i, *p2 = b->pos + 3 * (size_t)j;
    double w1 = b->inv_mass[i], w2 = b->inv_mass[j], d[3];
    v3_sub(d, p1, p2);
    double len = v3_norm(d), wsum = w1 + w2;
    if (!(wsum > 0.0) || !(len >= DISTANCE_MIN_LENGTH)) return 1;
    double s = b->stiffness[c] * (len - b->rest[c]) / (wsum * len);
    b->lambda[c] += -s * len; /* Δλ = -k C/(w1 + w2): Δp1 = Δλ w1 n */
    if (w1 > 0.0) v3_axpy(p1, -w1 * s, d);
    if (w2 > 0.0) v3_axpy(p2, w2 * s, d);
    return 0;
}

static inline int distance_xpbd_one(const pbd_batch *b, int c)
{
    int i = b->idx[2 * c], j = b->idx[2 * c + 1];
    double *p1 = b->pos + 3 * (size_t)i, *p2 = b->pos + 3 * (size_t)j;
    double w1 = b->inv_mass[i], w2 = b->inv_mass[j], d[3];
    v3_sub(d, p1, p2);
    double len = v3_norm(d), wsum = w1 + w2;
    if (!(wsum > 0.0) || !(len >= DISTANCE_MIN_LENGTH)) return 1;
    double alpha_tilde = b->compliance[c] * b->alpha_scale;
    /* -C = d0 - |d|: one operation on the chain through |d| where -(|d| - d0) takes two
     * (serial Gauss–Seidel is one dependency chain, solver/xpbd/README.md "Performance"); the
     * same value, only a zero may differ in sign from the generic path's -C */
    double t = ((b->rest[c] - len) - alpha_tilde * b->lambda[c]) / ((wsum + alpha_tilde) * len);
    b->lambda[c] += t * len;
    if (w1 > 0.0) v3_axpy(p1, w1 * t, d);
    if (w2 > 0.0) v3_axpy(p2, -w2 * t, d);
    return 0;
}

static int distance_gs_pbd(const pbd_batch *b, const int32_t *rows, int begin, int end)
{
    int skipped = 0;
    for (int q = begin; q < end; q++) skipped += distance_pbd_one(b, rows ? rows[q] : q);
    return skipped;
}

static int distance_gs_xpbd(const pbd_batch *b, const int32_t *rows, int begin, int end)
{
    int skipped = 0;
    for (int q = begin; q < end; q++) skipped += distance_xpbd_one(b, rows ? rows[q] : q);
    return skipped;
}

/* One colour: no two constraints share a particle, so 2, 4 or 8 at a time, one per lane of a
 * SIMD vector (constraints/distance_simd.c, the same operations as the two functions above,
 * bit for bit). */
static const pbd_kernels distance_kernels = {distance_gs_pbd, distance_gs_xpbd,
                                             pbd_distance_colour_pbd, pbd_distance_colour_xpbd, 0};

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
    .unit = "m",
    .arity = 2,
    .n_rest = 1,
    .inequality = 0,
    .internal = 1,
    .eval = distance_eval,
    .hessian = distance_hessian,
    .rest = distance_rest,
    .sample = distance_sample,
    .project_closed_form = distance_project,
    .kernels = &distance_kernels,
    .vertex_block = distance_vertex_block,
    .vertex_block_batch = pbd_distance_vertex_block_batch,
};
