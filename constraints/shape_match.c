/* shape_match: meshless shape matching of a cluster of particles (Müller, Heidelberger,
 * Teschner, Gross 2005, "Meshless deformations based on shape matching", Sec. 3).
 * It has no scalar C (the type's eval is NULL): each projection computes goal positions
 *   g_i = R (x0_i − c0) + c,
 * c and c0 the mass-weighted centroids of the current and rest positions, R the rotation of
 * the polar decomposition of A_pq = Σ m_i (x_i − c)(x0_i − c0)ᵀ — the rotation that best
 * matches the rest shape to the current one in the least-squares sense — and moves each free
 * particle the fraction k of the way, x_i += k (g_i − x_i) (the paper's integration moves
 * velocities by α (g_i − x_i)/h; written for positions as in PBD, with k = their α).
 *
 * R comes from GSL's SVD (constraints/fem.c, fem_polar_rotation), not from the paper's
 * R = A_pq S⁻¹ with S = (A_pqᵀ A_pq)^½, which needs S invertible: a flat or collinear
 * cluster, or one crushed flat, still gets a rotation (and a reflection never: det R = +1).
 *
 * Conservation: Σ m_i (g_i − x_i) = 0 as both sets are centred on c; Σ m_i x_i × (g_i − x_i)
 * = Σ m_i (x_i − c) × R q_i is the axial vector of A_pq Rᵀ = R S Rᵀ, symmetric, so zero: the
 * projection conserves linear and angular momentum for any k (the checker tests it). Fixed
 * particles (w = 0) count in the match with the cluster's largest finite mass and are not
 * moved (then momentum is not conserved, as with any attachment); a cluster of fixed
 * particles only is skipped.
 *
 * Rest: the cluster's rest positions x0 (3 per particle; zeros after them up to 192). */
#include "fem.h"
#include "sample_shapes.h"

#include <string.h>

#define SM_MAX PBD_SAMPLE_MAX_ARITY

/* Müller et al. 2005 Sec. 3: g_i = R(x0_i − c0) + c, R = rot(A_pq); x_i += k (g_i − x_i).
 * The move is computed at in->x and added to x_out (pbd_project_generic's contract; x_out ==
 * in->x: in place, as the solver calls it). */
static int shape_match_project(const pbd_eval_input *in, const double *w, double k,
                               double *x_out)
{
    const int n = in->arity;
    const double *x = in->x, *x0 = in->rest;
    if (n < 1 || n > SM_MAX) return PBD_EVAL_DEGENERATE;
    double mmax = 0.0;
    for (int i = 0; i < n; i++)
        if (w[i] > 0.0) mmax = fmax(mmax, 1.0 / w[i]);
    if (!(mmax > 0.0) || !isfinite(mmax)) return PBD_EVAL_DEGENERATE; /* all fixed */
    double M = 0.0, c[3] = {0, 0, 0}, c0[3] = {0, 0, 0};
    for (int i = 0; i < n; i++) {
        double m = w[i] > 0.0 ? 1.0 / w[i] : mmax;
        M += m;
        v3_axpy(c, m, x + 3 * i);
        v3_axpy(c0, m, x0 + 3 * i);
    }
    v3_scale(c, c, 1.0 / M);
    v3_scale(c0, c0, 1.0 / M);
    double A[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0}, R[9];
    for (int i = 0; i < n; i++) {
        double m = w[i] > 0.0 ? 1.0 / w[i] : mmax, p[3], q[3];
        v3_sub(p, x + 3 * i, c);
        v3_sub(q, x0 + 3 * i, c0);
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) A[3 * a + b] += m * p[a] * q[b];
    }
    if (fem_polar_rotation(A, R) != PBD_EVAL_OK || !isfinite(c[0] + c[1] + c[2]))
        return PBD_EVAL_DEGENERATE;
    for (int i = 0; i < n; i++) {
        if (!(w[i] > 0.0)) continue;
        double q[3], g[3];
        v3_sub(q, x0 + 3 * i, c0);
        for (int a = 0; a < 3; a++)
            g[a] = c[a] + R[3 * a] * q[0] + R[3 * a + 1] * q[1] + R[3 * a + 2] * q[2];
        for (int a = 0; a < 3; a++) x_out[3 * i + a] += k * (g[a] - x[3 * i + a]);
    }
    return PBD_EVAL_OK;
}

static void shape_match_rest(const pbd_eval_input *in, double *rest)
{
    int n = in->arity < SM_MAX ? in->arity : SM_MAX;
    memset(rest, 0, 3 * SM_MAX * sizeof *rest);
    memcpy(rest, in->x, 3 * (size_t)(n > 0 ? n : 0) * sizeof *rest);
}

/* A cluster of 4–20 particles: a Gaussian cloud at rest, its current shape a random rotation
 * and translation of a random stretch/shear plus noise. degenerate != 0: a collinear or
 * planar rest cluster, a current shape crushed onto a plane, a line or a point, a single
 * particle. */
static int shape_match_sample(pbd_rng *r, int degenerate, double *x, double *rest,
                              int32_t *aux, int *n_aux)
{
    (void)aux;
    *n_aux = 0;
    int mode = degenerate ? (int)(pbd_rng_next(r) % 6) : -1;
    int n = mode == 5 ? 1 : 4 + (int)(pbd_rng_next(r) % 17);
    double c[3], s = pbd_rng_range(r, 0.3, 2.0), dir[3];
    ss_box(r, c);
    ss_unit(r, dir);
    for (int i = 0; i < n; i++) {
        ss_gauss3(r, x + 3 * i, c, s);
        if (mode == 0) { /* collinear at rest */
            double t = pbd_rng_gaussian(r) * s;
            ss_gauss3(r, x + 3 * i, c, 1e-10 * s);
            v3_axpy(x + 3 * i, t, dir);
        } else if (mode == 1) { /* planar at rest */
            v3_axpy(x + 3 * i, -v3_dot(dir, x + 3 * i) + v3_dot(dir, c), dir);
        }
    }
    pbd_eval_input in = {x, n, NULL, NULL, 0};
    shape_match_rest(&in, rest);
    /* current: x = t + Q (I + 0.3 G)(x0 − c) + noise */
    double q[4], qn = 0.0, t[3];
    for (int k = 0; k < 4; k++) {
        q[k] = pbd_rng_gaussian(r);
        qn += q[k] * q[k];
    }
    qn = sqrt(qn);
    double a = q[0] / qn, b = q[1] / qn, cc = q[2] / qn, d = q[3] / qn;
    double Q[9] = {1 - 2 * (cc * cc + d * d), 2 * (b * cc - a * d), 2 * (b * d + a * cc),
                   2 * (b * cc + a * d), 1 - 2 * (b * b + d * d), 2 * (cc * d - a * b),
                   2 * (b * d - a * cc), 2 * (cc * d + a * b), 1 - 2 * (b * b + cc * cc)};
    double G[9], A[9];
    for (int k = 0; k < 9; k++) G[k] = (k % 4 == 0 ? 1.0 : 0.0) + 0.3 * pbd_rng_gaussian(r);
    m3_mul(A, Q, G);
    ss_box(r, t);
    for (int i = 0; i < n; i++) {
        double p[3];
        v3_sub(p, rest + 3 * i, c);
        for (int k = 0; k < 3; k++)
            x[3 * i + k] = t[k] + A[3 * k] * p[0] + A[3 * k + 1] * p[1] + A[3 * k + 2] * p[2] +
                           0.1 * s * pbd_rng_gaussian(r);
        if (mode == 2) x[3 * i + 2] = t[2];                           /* crushed onto a plane */
        if (mode == 3) x[3 * i + 1] = t[1], x[3 * i + 2] = t[2];      /* onto a line */
        if (mode == 4) v3_copy(x + 3 * i, t);                         /* onto a point */
    }
    return n;
}

const pbd_constraint_type pbd_shape_match_type = {
    .name = "shape_match",
    .description = "shape matching of a cluster: goal positions from the optimal rotation, "
                   "moved a fraction k of the way (Mueller et al. 2005); no scalar C",
    .unit = "m", /* no C: the unit of the displacements it makes */
    .arity = 0,
    .n_rest = 3 * SM_MAX,
    .inequality = 0,
    .internal = 1,
    .eval = NULL,
    .rest = shape_match_rest,
    .sample = shape_match_sample,
    .project_goal = shape_match_project,
    .max_arity = SM_MAX,
};
