/* The bench's yardstick: the obvious serial code for one PBD step over distance
 * constraints, against which pbd-bench states its ratios (experiments/programs/README.md). */
#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the yardstick: hand-written serial Gauss–Seidel over the distance constraints ---- */


/* A copy of the world's particles and of its distance constraints (sets in order). */
baseline *baseline_of(const pbd_world *wd)
{
    baseline *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    b->n = wd->n;
    b->iterations = wd->def.iterations;
    b->h = wd->def.dt;
    memcpy(b->g, wd->def.gravity, sizeof b->g);
    for (int s = 0; s < wd->n_sets; s++)
        if (wd->sets[s].type == &pbd_distance_type) b->m += wd->sets[s].count;
    size_t n3 = 3 * (size_t)b->n;
    b->x = malloc(n3 * sizeof(double));
    b->p = malloc(n3 * sizeof(double));
    b->v = malloc(n3 * sizeof(double));
    b->w = malloc((size_t)b->n * sizeof(double));
    b->idx = malloc(2 * (size_t)(b->m > 0 ? b->m : 1) * sizeof(int32_t));
    b->rest = malloc((size_t)(b->m > 0 ? b->m : 1) * sizeof(double));
    b->k = malloc((size_t)(b->m > 0 ? b->m : 1) * sizeof(double));
    if (!b->x || !b->p || !b->v || !b->w || !b->idx || !b->rest || !b->k) {
        free(b);
        return NULL;
    }
    memcpy(b->x, wd->x, n3 * sizeof(double));
    memcpy(b->v, wd->v, n3 * sizeof(double));
    memcpy(b->w, wd->w, (size_t)b->n * sizeof(double));
    int c = 0;
    for (int s = 0; s < wd->n_sets; s++) {
        const pbd_constraint_set *set = &wd->sets[s];
        if (set->type != &pbd_distance_type) continue;
        memcpy(b->idx + 2 * (size_t)c, set->idx, 2 * (size_t)set->count * sizeof(int32_t));
        memcpy(b->rest + c, set->rest, (size_t)set->count * sizeof(double));
        memcpy(b->k + c, set->stiffness, (size_t)set->count * sizeof(double));
        c += set->count;
    }
    return b;
}

void baseline_free(baseline *b)
{
    if (!b) return;
    free(b->x);
    free(b->p);
    free(b->v);
    free(b->w);
    free(b->idx);
    free(b->rest);
    free(b->k);
    free(b);
}

size_t baseline_bytes(const baseline *b)
{
    return sizeof *b + (size_t)b->n * 10 * sizeof(double) +
           (size_t)b->m * (2 * sizeof(int32_t) + 2 * sizeof(double));
}

/* One step of PBD Algorithm 1 with the distance constraints only, written the obvious way. */
void baseline_step(baseline *b)
{
    const double h = b->h;
    double *x = b->x, *p = b->p, *v = b->v;
    const double *w = b->w;
    for (int i = 0; i < b->n; i++)
        if (w[i] > 0.0)
            for (int c = 0; c < 3; c++) v[3 * i + c] += h * b->g[c];
    for (int i = 0; i < b->n; i++) /* fixed particles stay where they are */
        for (int c = 0; c < 3; c++) p[3 * i + c] = w[i] > 0.0 ? x[3 * i + c] + h * v[3 * i + c] : x[3 * i + c];
    for (int it = 0; it < b->iterations; it++)
        for (int c = 0; c < b->m; c++) {
            int i = b->idx[2 * c], j = b->idx[2 * c + 1];
            double *a = p + 3 * i, *e = p + 3 * j;
            double dx = a[0] - e[0], dy = a[1] - e[1], dz = a[2] - e[2];
            double len = sqrt(dx * dx + dy * dy + dz * dz), wsum = w[i] + w[j];
            if (wsum <= 0.0 || len < 1e-12) continue;
            double s = b->k[c] * (len - b->rest[c]) / (wsum * len); /* PBD Eq. 10/11 */
            if (w[i] > 0.0) {
                a[0] -= w[i] * s * dx;
                a[1] -= w[i] * s * dy;
                a[2] -= w[i] * s * dz;
            }
            if (w[j] > 0.0) {
                e[0] += w[j] * s * dx;
                e[1] += w[j] * s * dy;
                e[2] += w[j] * s * dz;
            }
        }
    for (int i = 0; i < 3 * b->n; i++) {
        v[i] = (p[i] - x[i]) / h;
        x[i] = p[i];
    }
}

double baseline_stretch(const baseline *b)
{
    double worst = 0.0;
    for (int c = 0; c < b->m; c++) {
        const double *a = b->x + 3 * b->idx[2 * c], *e = b->x + 3 * b->idx[2 * c + 1];
        double d[3] = {a[0] - e[0], a[1] - e[1], a[2] - e[2]};
        double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        worst = fmax(worst, fabs(len - b->rest[c]) / b->rest[c]);
    }
    return worst;
}
