/* The Newton reference's rows of the performance table (issue 14's targets): one implicit
 * step (XPBD Eq. 8–9 solved by Newton to ||(g, h)|| ≤ 1e-10 from the prediction x̃, the
 * sparse path of def.newton_solver = auto) of
 *   - the 64² hanging cloth of XPBD Table 1 (structural, shear, bend springs, α = 1e-7 m/N):
 *     target ≤ 1 s per step;
 *   - a 100² cloth with dihedral bending (the cloth_bend scene, α = 1e-7 m/N stretch, 1e-3
 *     bending): target ≤ 5 s per step;
 * wall clock per time step (min and median over the timed steps, after one untimed step),
 * with the Newton iterations, the time per iteration and the memory the reference holds
 * (workspace, pattern, matrix and the factorisation's peak as SuiteSparse counts it). */
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct newton_scene {
    const char *name;
    int bending, resolution, timed;
    double target_seconds;
} newton_scene;

static pbd_world *build(const newton_scene *sc)
{
    if (!sc->bending) {
        pbd_exp_cloth c = {.resolution = sc->resolution, .size = 1.0, .mass = 1.0, .shear = 1,
                           .bend = 1, .pinned = 1, .stiffness = 1.0, .compliance = 1e-7};
        return pbd_exp_cloth_build(&c, NULL, NULL);
    }
    pbd_scene_params sp = pbd_scene_params_default();
    sp.resolution = sc->resolution;
    sp.compliance = 1e-7;
    sp.k_bend = 1.0;
    sp.bend_compliance = 1e-3;
    return pbd_scene_cloth_bend(&sp);
}

int bench_newton(int quick, const char *only, bench_row *rows, int *n_rows, char out[][256],
                 int *n_targets)
{
    const newton_scene full[] = {{"newton-cloth64", 0, 64, 3, 1.0},
                                 {"newton-cloth100-bending", 1, 100, 2, 5.0}};
    const newton_scene small[] = {{"newton-cloth32", 0, 32, 2, 1.0},
                                  {"newton-cloth48-bending", 1, 48, 2, 5.0}};
    const newton_scene *scenes = quick ? small : full;
    for (int k = 0; k < 2; k++) {
        const newton_scene *sc = &scenes[k];
        if (only && !strstr(sc->name, only)) continue;
        double load0 = bench_load_average();
        pbd_world *w = build(sc);
        if (!w) {
            fprintf(stderr, "pbd-bench: cannot build %s: %s\n", sc->name, pbd_last_error());
            return -1;
        }
        double t[8], per_it = 0.0;
        int its = 0;
        pbd_newton_info info = {0};
        for (int s = 0; s <= sc->timed; s++) { /* step 0: symbolic analysis, untimed */
            if (pbd_newton_step(w, 30, 1e-10, NULL, NULL) != PBD_OK) {
                fprintf(stderr, "pbd-bench: %s: %s\n", sc->name, pbd_last_error());
                pbd_world_free(w);
                return -1;
            }
            pbd_newton_last_info(w, &info);
            if (s == 0) continue;
            t[s - 1] = info.seconds_total;
            its += info.iterations;
            per_it += info.seconds_assemble + info.seconds_solve;
        }
        qsort(t, (size_t)sc->timed, sizeof t[0], bench_cmp_double);
        bench_row *r = &rows[(*n_rows)++];
        memset(r, 0, sizeof *r);
        snprintf(r->scene, sizeof r->scene, "%s", sc->name);
        snprintf(r->solver, sizeof r->solver, "newton-%s",
                 info.solver == PBD_NEWTON_CHOLMOD ? "cholmod" : "umfpack");
        r->particles = w->n;
        for (int s = 0; s < w->n_sets; s++) r->constraints += w->sets[s].count;
        r->iterations = (int)lround((double)its / sc->timed);
        r->threads = 1;
        r->steps_timed = sc->timed;
        r->ms_min = 1e3 * t[0];
        r->ms_median = 1e3 * t[sc->timed / 2];
        r->ns_per_projection = r->mproj_per_s = r->x_baseline = r->max_stretch = NAN;
        r->ns_per_particle_step = 1e9 * t[0] / w->n;
        r->bytes_per_particle = (double)info.bytes / w->n;
        r->load_before = load0;
        r->load_after = bench_load_average();
        printf("%-24s %-16s %7d %7d  %2d its  %8.1f ms/step (median %8.1f)  %7.1f ms/iteration  "
               "%d unknowns, %ld nonzeros, %.0f MB (%.0f B/particle)\n", r->scene, r->solver,
               r->particles, r->constraints, r->iterations, r->ms_min, r->ms_median,
               1e3 * per_it / its, info.unknowns, info.nonzeros, info.bytes / 1e6,
               r->bytes_per_particle);
        snprintf(out[(*n_targets)++], 256, "Newton step (to 1e-10), %s: %.2f s (%d iterations, "
                 "%.2f s each), memory %.0f MB, load %.1f (target <= %g s%s): %s", sc->name,
                 t[0], r->iterations, per_it / its, info.bytes / 1e6, r->load_after,
                 sc->target_seconds, quick ? ", full size only" : "",
                 t[0] <= sc->target_seconds ? "met" : "NOT met");
        pbd_world_free(w);
    }
    return 0;
}
