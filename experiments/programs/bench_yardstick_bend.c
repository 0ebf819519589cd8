/* The bench's second yardstick, beside bench_yardstick.c's: the obvious serial code for one
 * PBD step over distance (Eq. 10/11) and dihedral bending constraints (Eq. 28, as the paper
 * writes it, Appendix A), flat arrays, no registry (experiments/programs/README.md). */
#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void cross(double r[3], const double a[3], const double b[3])
{
    r[0] = a[1] * b[2] - a[2] * b[1];
    r[1] = a[2] * b[0] - a[0] * b[2];
    r[2] = a[0] * b[1] - a[1] * b[0];
}

static double dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* PBD Appendix A, with p1 moved to the origin (p2, p3, p4 relative to p1):
 *   n1 = p2×p3/|p2×p3|,  n2 = p2×p4/|p2×p4|,  d = n1·n2
 *   q3 = (p2×n2 + (n1×p2) d)/|p2×p3|                                      (Eq. 24)
 *   q4 = (p2×n1 + (n2×p2) d)/|p2×p4|                                      (Eq. 25)
 *   q2 = -(p3×n2 + (n1×p3) d)/|p2×p3| - (p4×n1 + (n2×p4) d)/|p2×p4|      (Eq. 26)
 *   q1 = -q2 - q3 - q4                                                    (Eq. 27)
 *   Δp_i = -k w_i √(1-d²) (acos(d) - φ0) / Σ_j w_j |q_j|² · q_i            (Eq. 28)
 * Skipped: a zero-area triangle, and Σ_j w_j |q_j|² = 0 (flat or folded: q = 0). */
static void project_hinge(double *pos, const double *w, const int32_t *h, double phi0, double k)
{
    double *x1 = pos + 3 * h[0], *x2 = pos + 3 * h[1], *x3 = pos + 3 * h[2], *x4 = pos + 3 * h[3];
    double p2[3], p3[3], p4[3], c23[3], c24[3];
    for (int c = 0; c < 3; c++) {
        p2[c] = x2[c] - x1[c];
        p3[c] = x3[c] - x1[c];
        p4[c] = x4[c] - x1[c];
    }
    cross(c23, p2, p3);
    cross(c24, p2, p4);
    double l23 = sqrt(dot(c23, c23)), l24 = sqrt(dot(c24, c24));
    if (l23 < 1e-12 || l24 < 1e-12) return;
    double n1[3], n2[3];
    for (int c = 0; c < 3; c++) {
        n1[c] = c23[c] / l23;
        n2[c] = c24[c] / l24;
    }
    double d = dot(n1, n2);
    d = d < -1.0 ? -1.0 : d > 1.0 ? 1.0 : d;
    double q1[3], q2[3], q3[3], q4[3], t[3], u[3];
    cross(t, p2, n2);
    cross(u, n1, p2);
    for (int c = 0; c < 3; c++) q3[c] = (t[c] + u[c] * d) / l23;
    cross(t, p2, n1);
    cross(u, n2, p2);
    for (int c = 0; c < 3; c++) q4[c] = (t[c] + u[c] * d) / l24;
    cross(t, p3, n2);
    cross(u, n1, p3);
    double t2[3], u2[3];
    cross(t2, p4, n1);
    cross(u2, n2, p4);
    for (int c = 0; c < 3; c++) {
        q2[c] = -(t[c] + u[c] * d) / l23 - (t2[c] + u2[c] * d) / l24;
        q1[c] = -q2[c] - q3[c] - q4[c];
    }
    double w1 = w[h[0]], w2 = w[h[1]], w3 = w[h[2]], w4 = w[h[3]];
    double sum = w1 * dot(q1, q1) + w2 * dot(q2, q2) + w3 * dot(q3, q3) + w4 * dot(q4, q4);
    if (!(sum > 1e-300)) return;
    double s = -k * sqrt(1.0 - d * d) * (acos(d) - phi0) / sum;
    for (int c = 0; c < 3; c++) {
        if (w1 > 0.0) x1[c] += s * w1 * q1[c];
        if (w2 > 0.0) x2[c] += s * w2 * q2[c];
        if (w3 > 0.0) x3[c] += s * w3 * q3[c];
        if (w4 > 0.0) x4[c] += s * w4 * q4[c];
    }
}

/* PBD Eq. 10/11, as in bench_yardstick.c. */
static void project_distance(double *p, const double *w, const int32_t *e, double rest, double k)
{
    int i = e[0], j = e[1];
    double *a = p + 3 * i, *b = p + 3 * j;
    double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    double len = sqrt(dx * dx + dy * dy + dz * dz), wsum = w[i] + w[j];
    if (wsum <= 0.0 || len < 1e-12) return;
    double s = k * (len - rest) / (wsum * len);
    if (w[i] > 0.0) {
        a[0] -= w[i] * s * dx;
        a[1] -= w[i] * s * dy;
        a[2] -= w[i] * s * dz;
    }
    if (w[j] > 0.0) {
        b[0] += w[j] * s * dx;
        b[1] += w[j] * s * dy;
        b[2] += w[j] * s * dz;
    }
}

/* The world's distance constraints, then its dihedral ones (the order of a world built by
 * pbd_scene_cloth_bend: distance set first, so Gauss–Seidel visits them in the same order). */
baseline *baseline_bend_of(const pbd_world *wd)
{
    baseline *b = baseline_of(wd);
    if (!b) return NULL;
    for (int s = 0; s < wd->n_sets; s++)
        if (wd->sets[s].type == &pbd_bend_dihedral_type) b->mh += wd->sets[s].count;
    size_t mh = (size_t)(b->mh > 0 ? b->mh : 1);
    b->hidx = malloc(4 * mh * sizeof(int32_t));
    b->hrest = malloc(mh * sizeof(double));
    b->hk = malloc(mh * sizeof(double));
    if (!b->hidx || !b->hrest || !b->hk) {
        baseline_free(b);
        return NULL;
    }
    int c = 0;
    for (int s = 0; s < wd->n_sets; s++) {
        const pbd_constraint_set *set = &wd->sets[s];
        if (set->type != &pbd_bend_dihedral_type) continue;
        memcpy(b->hidx + 4 * (size_t)c, set->idx, 4 * (size_t)set->count * sizeof(int32_t));
        memcpy(b->hrest + c, set->rest, (size_t)set->count * sizeof(double));
        memcpy(b->hk + c, set->stiffness, (size_t)set->count * sizeof(double));
        c += set->count;
    }
    return b;
}

/* One step of PBD Algorithm 1: distances, then hinges, in order, every iteration. */
void baseline_bend_step(baseline *b)
{
    const double h = b->h;
    double *x = b->x, *p = b->p, *v = b->v;
    const double *w = b->w;
    for (int i = 0; i < b->n; i++)
        if (w[i] > 0.0)
            for (int c = 0; c < 3; c++) v[3 * i + c] += h * b->g[c];
    for (int i = 0; i < b->n; i++)
        for (int c = 0; c < 3; c++) p[3 * i + c] = w[i] > 0.0 ? x[3 * i + c] + h * v[3 * i + c] : x[3 * i + c];
    for (int it = 0; it < b->iterations; it++) {
        for (int c = 0; c < b->m; c++) project_distance(p, w, b->idx + 2 * c, b->rest[c], b->k[c]);
        for (int c = 0; c < b->mh; c++) project_hinge(p, w, b->hidx + 4 * c, b->hrest[c], b->hk[c]);
    }
    for (int i = 0; i < 3 * b->n; i++) {
        v[i] = (p[i] - x[i]) / h;
        x[i] = p[i];
    }
}
