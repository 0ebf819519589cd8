/* Scenes the experiments share: the cloth grid of the XPBD paper's hanging-cloth test. */
#include "pbd_drivers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int add_edge(pbd_world *w, int set, int a, int b, const pbd_exp_cloth *c)
{
    int32_t idx[2] = {a, b};
    return pbd_set_add(w, set, idx, NULL, c->stiffness, c->compliance);
}

pbd_world *pbd_exp_cloth_build(const pbd_exp_cloth *c, int32_t **triangles, int *n_triangles)
{
    int r = c->resolution;
    if (r < 2) {
        pbd_error(PBD_EINVAL, "cloth: resolution: expected an integer >= 2, found %d", r);
        return NULL;
    }
    pbd_world *w = pbd_world_create(r * r);
    if (!w) return NULL;
    double h = c->size / (r - 1), m = c->mass / ((double)r * r);
    for (int j = 0; j < r; j++)
        for (int i = 0; i < r; i++) {
            double x[3] = {h * i, c->horizontal ? 0.0 : -h * j, c->horizontal ? h * j : 0.0};
            pbd_world_set_particle(w, j * r + i, x, NULL, m);
        }
    int set = pbd_world_add_set(w, &pbd_distance_type, 0);
    if (set < 0) goto fail;
    for (int j = 0; j < r; j++)
        for (int i = 0; i < r; i++) {
            int v = j * r + i;
            if (i + 1 < r && add_edge(w, set, v, v + 1, c) < 0) goto fail;
            if (j + 1 < r && add_edge(w, set, v, v + r, c) < 0) goto fail;
            if (c->shear && i + 1 < r && j + 1 < r &&
                (add_edge(w, set, v, v + r + 1, c) < 0 || add_edge(w, set, v + 1, v + r, c) < 0))
                goto fail;
            if (c->bend && i + 2 < r && add_edge(w, set, v, v + 2, c) < 0) goto fail;
            if (c->bend && j + 2 < r && add_edge(w, set, v, v + 2 * r, c) < 0) goto fail;
        }
    if (c->pinned) {
        pbd_world_attach(w, 0);
        pbd_world_attach(w, r - 1);
    }
    if (triangles) {
        int nt = 2 * (r - 1) * (r - 1);
        int32_t *t = malloc((size_t)nt * 3 * sizeof *t);
        if (!t) goto fail;
        int k = 0;
        for (int j = 0; j + 1 < r; j++)
            for (int i = 0; i + 1 < r; i++) {
                int v = j * r + i;
                t[k++] = v; t[k++] = v + r; t[k++] = v + r + 1;
                t[k++] = v; t[k++] = v + r + 1; t[k++] = v + 1;
            }
        *triangles = t;
        *n_triangles = nt;
    }
    return w;
fail:
    pbd_world_free(w);
    return NULL;
}

pbd_status pbd_exp_cloth_attrs(pbd_h5log *log, const pbd_exp_cloth *c)
{
    pbd_status st = pbd_h5log_attr_int(log, "scene.resolution", c->resolution);
    if (st == PBD_OK) st = pbd_h5log_attr_double(log, "scene.size", c->size);
    if (st == PBD_OK) st = pbd_h5log_attr_double(log, "scene.mass", c->mass);
    if (st == PBD_OK) st = pbd_h5log_attr_int(log, "scene.shear", c->shear);
    if (st == PBD_OK) st = pbd_h5log_attr_int(log, "scene.bend", c->bend);
    if (st == PBD_OK) st = pbd_h5log_attr_int(log, "scene.pinned", c->pinned);
    if (st == PBD_OK) st = pbd_h5log_attr_int(log, "scene.horizontal", c->horizontal);
    if (st == PBD_OK) st = pbd_h5log_attr_double(log, "scene.stiffness", c->stiffness);
    if (st == PBD_OK) st = pbd_h5log_attr_double(log, "scene.compliance", c->compliance);
    return st;
}

/* Strain e = (|d| − d0)/d0 of every distance row of the set: its mean, the largest stretch
 * max(0, max e) and the largest compression max(0, max −e). */
static void edge_strains(const pbd_world *w, int set, double *mean, double *stretch,
                         double *compression)
{
    const pbd_constraint_set *s = &w->sets[set];
    double sum = 0.0, hi = 0.0, lo = 0.0;
    for (int c = 0; c < s->count; c++) {
        const double *a = w->x + 3 * (size_t)s->idx[2 * c], *b = w->x + 3 * (size_t)s->idx[2 * c + 1];
        double d = sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                        (a[2] - b[2]) * (a[2] - b[2]));
        double e = (d - s->rest[c]) / s->rest[c];
        sum += e;
        hi = fmax(hi, e);
        lo = fmax(lo, -e);
    }
    *mean = s->count ? sum / s->count : 0.0;
    *stretch = hi;
    if (compression) *compression = lo;
}

void pbd_exp_stretch(const pbd_world *w, int set, double *mean, double *max)
{
    edge_strains(w, set, mean, max, NULL);
}

double pbd_exp_compression(const pbd_world *w, int set)
{
    double mean, stretch, compression;
    edge_strains(w, set, &mean, &stretch, &compression);
    return compression;
}

double pbd_exp_step_seconds(const pbd_world *w)
{
    double t = 0.0;
    for (int k = 0; k < PBD_STAGE_COUNT; k++)
        if (k != PBD_STAGE_MEASURE) t += w->stats.stage_seconds[k];
    return t;
}

static double over_unit(const pbd_world *w, const char *unit, int kind)
{
    double acc = 0.0;
    for (int s = 0; s < w->n_sets; s++) {
        const pbd_constraint_set *set = &w->sets[s];
        if (strcmp(set->type->unit, unit) != 0) continue;
        double v = kind == 0 ? set->stats.max_c : kind == 1 ? set->stats.l2_c : set->stats.xpbd_residual;
        acc = kind == 0 ? fmax(acc, v) : acc + v * v;
    }
    return kind == 0 ? acc : sqrt(acc);
}

double pbd_exp_max_c(const pbd_world *w, const char *unit) { return over_unit(w, unit, 0); }
double pbd_exp_l2_c(const pbd_world *w, const char *unit) { return over_unit(w, unit, 1); }
double pbd_exp_xpbd_residual(const pbd_world *w, const char *unit) { return over_unit(w, unit, 2); }
