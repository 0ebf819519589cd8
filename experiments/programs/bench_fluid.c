/* The fluid rows of the performance table: the dam_break scene (Position Based
 * Fluids, solver/fluid/) of 22³ = 10 648 and 47³ = 103 823 particles (--quick: 12³ and 22³),
 * 4 iterations, 1 substep, measure stage off, on 1 and 2 threads (the fluid's own loops:
 * neighbour search, density update, velocity pass). Three rows per size and thread count:
 * the whole step, the neighbour search and the projection, each timed apart from the step's
 * stage clock (stage_seconds: neighbour_search, project); min and median over the timed
 * steps, after 3 untimed ones (the block starts to fall: neighbours as in a running break). */
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FLUID_TIMED 6
enum { PART_STEP, PART_SEARCH, PART_PROJECT, PARTS };
static const char *const part_names[PARTS] = {"step", "neighbour-search", "projection"};

static void fill_row(bench_row *r, const char *scene, int part, int threads, const pbd_world *w,
                     double *t, double load0)
{
    qsort(t, FLUID_TIMED, sizeof t[0], bench_cmp_double);
    memset(r, 0, sizeof *r);
    snprintf(r->scene, sizeof r->scene, "%s", scene);
    snprintf(r->solver, sizeof r->solver, "pbf-4it-%s", part_names[part]);
    r->particles = w->n;
    r->constraints = w->sets[0].count;
    r->iterations = w->def.iterations;
    r->threads = threads;
    r->steps_timed = FLUID_TIMED;
    r->ms_min = 1e3 * t[0];
    r->ms_median = 1e3 * t[FLUID_TIMED / 2];
    r->projections_per_step = part == PART_SEARCH ? 0 : (long)r->constraints * r->iterations;
    r->ns_per_projection = part == PART_SEARCH ? NAN : 1e6 * r->ms_min / r->projections_per_step;
    r->mproj_per_s = part == PART_SEARCH ? NAN : 1e-3 * r->projections_per_step / r->ms_min;
    r->ns_per_particle_step = 1e6 * r->ms_min / w->n;
    r->bytes_per_particle = (double)pbd_world_bytes(w) / w->n;
    r->max_stretch = r->x_baseline = NAN;
    r->load_before = load0;
    r->load_after = bench_load_average();
}

int bench_fluid(int quick, const char *only, bench_row *rows, int *n_rows)
{
    const int full[] = {22, 47}, small[] = {12, 22};
    for (int k = 0; k < 2; k++) {
        int res = quick ? small[k] : full[k];
        char scene[40];
        snprintf(scene, sizeof scene, "dam_break-%d", res * res * res);
        if (!bench_selected(scene, only)) continue;
        for (int threads = 1; threads <= 2; threads++) {
            double load0 = bench_load_average();
            pbd_scene_params sp = pbd_scene_params_default();
            sp.resolution = res;
            sp.fluid.threads = threads;
            pbd_world *w = pbd_scene_dam_break(&sp);
            if (!w) {
                fprintf(stderr, "pbd-bench: cannot build %s: %s\n", scene, pbd_last_error());
                return -1;
            }
            w->def.iterations = 4;
            w->def.measure_every = 0;
            double t[PARTS][FLUID_TIMED];
            for (int s = 0; s < 3 + FLUID_TIMED; s++) {
                if (pbd_step(w) != PBD_OK) {
                    fprintf(stderr, "pbd-bench: %s: %s\n", scene, pbd_last_error());
                    pbd_world_free(w);
                    return -1;
                }
                if (s < 3) continue;
                const double *st = w->stats.stage_seconds;
                double total = 0.0;
                for (int q = 0; q < PBD_STAGE_COUNT; q++) total += st[q];
                t[PART_STEP][s - 3] = total;
                t[PART_SEARCH][s - 3] = st[PBD_STAGE_NEIGHBOUR_SEARCH];
                t[PART_PROJECT][s - 3] = st[PBD_STAGE_PROJECT];
            }
            for (int p = 0; p < PARTS; p++) {
                bench_row *r = &rows[(*n_rows)++];
                fill_row(r, scene, p, threads, w, t[p], load0);
                printf("%-24s %-26s %7d %2d thr  %8.2f ms (median %8.2f)\n", r->scene, r->solver,
                       r->particles, threads, r->ms_min, r->ms_median);
            }
            fflush(stdout);
            pbd_world_free(w);
        }
    }
    return 0;
}
