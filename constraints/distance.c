/* distance (stretch): C(p1, p2) = |p1 - p2| - d   (PBD Sec. 3.3, Sec. 4.1) */
#include "pbd_constraint.h"
#include "vec3.h"

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

/* Batched kernels (solver/README.md "Performance"), PBD Eq. 10/11 as in distance_project:
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
    double t = (-(len - b->rest[c]) - alpha_tilde * b->lambda[c]) / ((wsum + alpha_tilde) * len);
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

/* One colour: no two constraints share a particle, so two at a time, one per lane of a
 * 2-double vector (GCC/Clang vector extensions; SSE2 in the portable build, the compiler's
 * choice with -march=native). Each lane does exactly the operations of distance_pbd_one /
 * distance_xpbd_one, so the results are theirs bit for bit, in any grouping. A pair with a
 * degenerate lane is done one by one; fixed particles (w = 0) are not written. Each
 * projection is a ~70-cycle dependency chain (loads, sqrt, div, stores); two per vector put
 * more independent work in the instruction window: 15-25 % faster than one at a time here,
 * while 4 per AVX vector added ~3 % and compiler-made gathers/scatters (AVX-512) were slower
 * (solver/README.md "Performance"). */
typedef double dist_v2 __attribute__((vector_size(16)));

/* always_inline: inlined, `xpbd` is a constant and the pair loop stays free of calls */
static inline __attribute__((always_inline)) int
distance_pair(const pbd_batch *b, int c0, int c1, int xpbd)
{
    const int32_t *e0 = b->idx + 2 * (size_t)c0, *e1 = b->idx + 2 * (size_t)c1;
    const double *wm = b->inv_mass;
    double *a0 = b->pos + 3 * (size_t)e0[0], *a1 = b->pos + 3 * (size_t)e1[0];
    double *b0 = b->pos + 3 * (size_t)e0[1], *b1 = b->pos + 3 * (size_t)e1[1];
    dist_v2 ax = {a0[0], a1[0]}, ay = {a0[1], a1[1]}, az = {a0[2], a1[2]};
    dist_v2 bx = {b0[0], b1[0]}, by = {b0[1], b1[1]}, bz = {b0[2], b1[2]};
    dist_v2 w1 = {wm[e0[0]], wm[e1[0]]}, w2 = {wm[e0[1]], wm[e1[1]]};
    dist_v2 dx = ax - bx, dy = ay - by, dz = az - bz;
    dist_v2 l2 = dx * dx + dy * dy + dz * dz;
    dist_v2 len = {sqrt(l2[0]), sqrt(l2[1])}, wsum = w1 + w2;
    if (!(wsum[0] > 0.0) || !(len[0] >= DISTANCE_MIN_LENGTH) || !(wsum[1] > 0.0) ||
        !(len[1] >= DISTANCE_MIN_LENGTH))
        return xpbd ? distance_xpbd_one(b, c0) + distance_xpbd_one(b, c1)
                    : distance_pbd_one(b, c0) + distance_pbd_one(b, c1);
    dist_v2 rest = {b->rest[c0], b->rest[c1]}, f1, f2;
    if (xpbd) {
        dist_v2 alpha = {b->compliance[c0], b->compliance[c1]};
        dist_v2 lambda = {b->lambda[c0], b->lambda[c1]};
        dist_v2 alpha_tilde = alpha * b->alpha_scale;
        dist_v2 t = (-(len - rest) - alpha_tilde * lambda) / ((wsum + alpha_tilde) * len);
        lambda += t * len;
        b->lambda[c0] = lambda[0];
        b->lambda[c1] = lambda[1];
        f1 = w1 * t;
        f2 = -w2 * t;
    } else {
        dist_v2 k = {b->stiffness[c0], b->stiffness[c1]};
        dist_v2 s = k * (len - rest) / (wsum * len);
        b->lambda[c0] += -s[0] * len[0];
        b->lambda[c1] += -s[1] * len[1];
        f1 = -w1 * s;
        f2 = w2 * s;
    }
    dist_v2 nax = ax + f1 * dx, nay = ay + f1 * dy, naz = az + f1 * dz;
    dist_v2 nbx = bx + f2 * dx, nby = by + f2 * dy, nbz = bz + f2 * dz;
    if (w1[0] > 0.0) a0[0] = nax[0], a0[1] = nay[0], a0[2] = naz[0];
    if (w1[1] > 0.0) a1[0] = nax[1], a1[1] = nay[1], a1[2] = naz[1];
    if (w2[0] > 0.0) b0[0] = nbx[0], b0[1] = nby[0], b0[2] = nbz[0];
    if (w2[1] > 0.0) b1[0] = nbx[1], b1[1] = nby[1], b1[2] = nbz[1];
    return 0;
}

static inline __attribute__((always_inline)) int
distance_colour(const pbd_batch *b, const int32_t *rows, int begin, int end, int xpbd)
{
    int skipped = 0, q = begin;
    if (rows)
        for (; q + 1 < end; q += 2) skipped += distance_pair(b, rows[q], rows[q + 1], xpbd);
    else
        for (; q + 1 < end; q += 2) skipped += distance_pair(b, q, q + 1, xpbd);
    if (q < end) {
        int c = rows ? rows[q] : q;
        skipped += xpbd ? distance_xpbd_one(b, c) : distance_pbd_one(b, c);
    }
    return skipped;
}

static int distance_colour_pbd(const pbd_batch *b, const int32_t *rows, int begin, int end)
{
    return distance_colour(b, rows, begin, end, 0);
}

static int distance_colour_xpbd(const pbd_batch *b, const int32_t *rows, int begin, int end)
{
    return distance_colour(b, rows, begin, end, 1);
}

static const pbd_kernels distance_kernels = {distance_gs_pbd, distance_gs_xpbd,
                                             distance_colour_pbd, distance_colour_xpbd};

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
    .rest = distance_rest,
    .sample = distance_sample,
    .project_closed_form = distance_project,
    .kernels = &distance_kernels,
};
