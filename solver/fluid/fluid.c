/* The fluid state of a world: its definition, the density set, the stages it plugs into the
 * step (pbd_step_stages: neighbour search, the Jacobi density update, the velocity pass) and
 * what the last step found. Everything is allocated here; the step allocates nothing. */
#include "fluid_private.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

pbd_fluid_def pbd_fluid_def_default(void)
{
    pbd_fluid_def d = {
        .rest_density = 1000.0,
        .h = 0.1,
        .kernel = PBD_SPH_PBF,
        .epsilon = 100.0,
        .unilateral = 0,
        .s_corr = 0,
        .s_corr_k = 0.1,
        .s_corr_n = 4.0,
        .s_corr_dq = 0.2,
        .vorticity = 0.0,
        .xsph = 0.0,
        .box_lo = {0.0, 0.0, 0.0},
        .box_hi = {1.0, 1.0, 1.0},
        .walls = 1,
        .max_neighbours = 96,
        .threads = 0,
    };
    return d;
}

pbd_status pbd_fluid_def_validate(const pbd_fluid_def *d)
{
#define BAD(field, expected, value)                                                         \
    return pbd_error(PBD_EINVAL, "fluid: %s: expected %s, found %g", field, expected,       \
                     (double)(value))
    if (!(d->rest_density > 0.0 && isfinite(d->rest_density)))
        BAD("rest_density", "a finite value > 0 kg/m^3", d->rest_density);
    if (!(d->h > 0.0 && isfinite(d->h))) BAD("h", "a finite support radius > 0 m", d->h);
    if (d->kernel < PBD_SPH_POLY6 || d->kernel > PBD_SPH_PBF)
        BAD("kernel", "0 poly6, 1 spiky, 2 cubic or 3 pbf", d->kernel);
    if (!(d->epsilon >= 0.0 && isfinite(d->epsilon))) BAD("epsilon", ">= 0 1/m^2", d->epsilon);
    if (!(d->s_corr_k >= 0.0 && isfinite(d->s_corr_k))) BAD("s_corr_k", ">= 0", d->s_corr_k);
    if (!(d->s_corr_n > 0.0 && d->s_corr_n <= 16.0)) BAD("s_corr_n", "in (0, 16]", d->s_corr_n);
    if (!(d->s_corr_dq > 0.0 && d->s_corr_dq < 1.0))
        BAD("s_corr_dq", "a fraction of h in (0, 1)", d->s_corr_dq);
    if (!(d->vorticity >= 0.0 && isfinite(d->vorticity)))
        BAD("vorticity", ">= 0 m/s", d->vorticity);
    if (!(d->xsph >= 0.0 && d->xsph <= 1.0)) BAD("xsph", "c in [0, 1]", d->xsph);
    for (int k = 0; k < 3; k++)
        if (!(d->box_hi[k] > d->box_lo[k]) || !isfinite(d->box_lo[k]) || !isfinite(d->box_hi[k]))
            BAD("box", "lo < hi along each axis (finite)", d->box_hi[k] - d->box_lo[k]);
    if (d->walls != 0 && d->walls != 1) BAD("walls", "0 or 1", d->walls);
    if (d->max_neighbours < 1 || d->max_neighbours > 4096)
        BAD("max_neighbours", "1 .. 4096", d->max_neighbours);
    if (d->threads < 0) BAD("threads", ">= 0", d->threads);
    double cells = 1.0;
    for (int k = 0; k < 3; k++) cells *= (d->box_hi[k] - d->box_lo[k]) / d->h + 5.0;
    if (!(cells <= 1e8)) BAD("box / h", "at most 1e8 cells of edge h in the box", cells);
#undef BAD
    return PBD_OK;
}

static void fluid_free(pbd_world *w)
{
    struct pbd_fluid_state *fs = w ? w->fluid : NULL;
    if (!fs) return;
    free(fs->cell_start);
    free(fs->sorted);
    free(fs->cell_of);
    free(fs->lam);
    free(fs->dp);
    free(fs->omega);
    free(fs->vnew);
    free(fs->cval);
    free(fs->err_max);
    free(fs->err_mean);
    free(fs);
    w->fluid = NULL;
}

#define FLUID_PARALLEL_MIN 4096

/* The neighbour search, and the per-iteration error buffers grown to the definition's
 * iterations (the only allocation a step can make: when def.iterations grew). */
static void generate(pbd_world *w, double h)
{
    (void)h;
    struct pbd_fluid_state *fs = w->fluid;
    if (w->def.iterations + 1 > fs->err_capacity) {
        int n = w->def.iterations + 1;
        double *a = realloc(fs->err_max, (size_t)n * sizeof *a);
        if (a) fs->err_max = a;
        double *b = realloc(fs->err_mean, (size_t)n * sizeof *b);
        if (b) fs->err_mean = b;
        if (a && b) fs->err_capacity = n;
    }
    /* threads: the definition's, else the world's, else OpenMP's default; below
     * FLUID_PARALLEL_MIN particles one (a parallel loop's fork and barriers would cost more) */
    int t = fs->def.threads > 0 ? fs->def.threads : w->def.threads;
    fs->threads = t > 0 ? t : omp_get_max_threads();
    if (fs->def.threads == 0 && fs->count < FLUID_PARALLEL_MIN) fs->threads = 1;
    fluid_neighbours(w, fs);
    fs->iteration = 0;
}

static const pbd_step_stages fluid_stages = {
    .generate_collisions = generate,
    .velocity_update = fluid_velocity_update,
    .free = fluid_free,
    .project = fluid_project,
};

int pbd_world_add_fluid(pbd_world *w, int first, int count, const pbd_fluid_def *def,
                        double compliance)
{
    if (pbd_fluid_def_validate(def) != PBD_OK) return -1;
    if (w->fluid)
        return pbd_error(PBD_EINVAL, "fluid: expected one fluid per world, found a second"), -1;
    if (first < 0 || count < 1 || first + count > w->n)
        return pbd_error(PBD_EINVAL, "fluid: particles [%d, %d) outside the world's %d", first,
                         first + count, w->n), -1;
    if (w->n_sets > 0 || w->collision_stages || w->n_attach > 0)
        return pbd_error(PBD_EINVAL, "fluid: expected a world with no constraint set, collider "
                         "or attachment, found %d sets%s%s: the fluid's density update "
                         "replaces the generic sweep (solver/fluid/README.md)", w->n_sets,
                         w->collision_stages ? ", colliders" : "",
                         w->n_attach ? ", attachments" : ""), -1;
    if (!(compliance >= 0.0 && isfinite(compliance)))
        return pbd_error(PBD_EINVAL, "fluid: compliance: expected >= 0, found %g", compliance),
               -1;
    double inv = w->w[first];
    for (int i = first; i < first + count; i++)
        if (!(w->w[i] > 0.0) || w->w[i] != inv)
            return pbd_error(PBD_EINVAL, "fluid: particle %d: expected the fluid's one mass "
                             "(inverse mass %g 1/kg), found inverse mass %g", i, inv, w->w[i]),
                   -1;
    struct pbd_fluid_state *fs = calloc(1, sizeof *fs);
    if (!fs) return pbd_error(PBD_ENOMEM, "fluid: out of memory"), -1;
    fs->def = *def;
    fs->first = first;
    fs->count = count;
    fs->arity = 1 + def->max_neighbours;
    fs->threads = 1; /* until the first step chooses (generate) */
    fs->inv_mass = inv;
    fs->mass = 1.0 / inv;
    size_t n = (size_t)count;
    for (int k = 0; k < 3; k++) {
        fs->origin[k] = def->box_lo[k] - 2.0 * def->h;
        fs->dims[k] = (int)ceil((def->box_hi[k] - def->box_lo[k] + 4.0 * def->h) / def->h);
    }
    fs->n_cells = (long)fs->dims[0] * fs->dims[1] * fs->dims[2];
    fs->cell_start = calloc((size_t)fs->n_cells + 1, sizeof *fs->cell_start);
    fs->sorted = malloc(n * sizeof *fs->sorted);
    fs->cell_of = malloc(n * sizeof *fs->cell_of);
    fs->lam = calloc(n, sizeof *fs->lam);
    fs->dp = calloc(3 * n, sizeof *fs->dp);
    fs->omega = calloc(3 * n, sizeof *fs->omega);
    fs->vnew = calloc(3 * n, sizeof *fs->vnew);
    fs->cval = calloc(n, sizeof *fs->cval);
    w->fluid = fs;
    w->fluid_stages = &fluid_stages;
    if (!fs->cell_start || !fs->sorted || !fs->cell_of || !fs->lam || !fs->dp || !fs->omega ||
        !fs->vnew || !fs->cval) {
        fluid_free(w);
        w->fluid_stages = NULL;
        return pbd_error(PBD_ENOMEM, "fluid: out of memory for %d particles", count), -1;
    }
    int set = pbd_world_add_set(w, &pbd_fluid_density_type, fs->arity);
    if (set < 0 || pbd_set_reserve(&w->sets[set], count) != PBD_OK) return -1;
    fs->set = set;
    fluid_wall_table(fs);
    /* rows: the particle alone until the first neighbour search (rest count 1) */
    int32_t *row = malloc((size_t)fs->arity * sizeof *row);
    if (!row) return pbd_error(PBD_ENOMEM, "fluid: out of memory"), -1;
    for (int k = 0; k < count; k++) {
        for (int j = 0; j < fs->arity; j++) row[j] = first + k;
        double rest[PBD_FLUID_N_REST] = {def->rest_density, def->h, fs->mass, def->kernel, 1, 0};
        if (pbd_set_add(w, set, row, rest, 1.0, compliance) < 0) {
            free(row);
            return -1;
        }
    }
    free(row);
    w->sets[set].fixed_order = 1; /* row k is fluid particle k: never sorted */
    fluid_neighbours(w, fs); /* rows for the initial positions (p = x until the first step) */
    return set;
}

pbd_fluid_stats pbd_world_fluid_stats(const pbd_world *w)
{
    pbd_fluid_stats s;
    memset(&s, 0, sizeof s);
    if (w && w->fluid) s = w->fluid->stats;
    return s;
}

int pbd_world_fluid_iteration_errors(const pbd_world *w, const double **max,
                                     const double **mean)
{
    if (!w || !w->fluid || !w->fluid->err_max) return 0;
    *max = w->fluid->err_max;
    *mean = w->fluid->err_mean;
    return w->fluid->iteration + 1 <= w->fluid->err_capacity ? w->fluid->iteration + 1 : 0;
}

pbd_status pbd_world_fluid_density(const pbd_world *w, double *rho)
{
    const struct pbd_fluid_state *fs = w ? w->fluid : NULL;
    if (!fs) return pbd_error(PBD_EINVAL, "fluid: the world has no fluid");
    for (int k = 0; k < fs->count; k++)
        rho[k] = fs->def.rest_density * (1.0 + fluid_constraint(w, fs, w->x, k));
    return PBD_OK;
}

pbd_status pbd_world_fluid_pressure(const pbd_world *w, double *pressure)
{
    const struct pbd_fluid_state *fs = w ? w->fluid : NULL;
    if (!fs) return pbd_error(PBD_EINVAL, "fluid: the world has no fluid");
    double h = w->def.dt / w->def.substeps, vol = fs->mass / fs->def.rest_density;
    const double *lambda = w->sets[fs->set].lambda;
    for (int k = 0; k < fs->count; k++) pressure[k] = -lambda[k] / (h * h * vol);
    return PBD_OK;
}

int pbd_world_fluid_particles(const pbd_world *w, int *first)
{
    if (!w || !w->fluid) return 0;
    if (first) *first = w->fluid->first;
    return w->fluid->count;
}
