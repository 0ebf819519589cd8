/* pbd-soak: every standard scene for many steps (default 10^5); reports per scene that
 * positions stayed finite and the body's extent stayed bounded. Not part of `make test`.
 * Every selected scene is built and checked before any is stepped: what pbd-run refuses on
 * that world (pbd_run_refusal, experiments/cli/run_refusals.c) is refused here, exit 2. */
#include "experiments/pbd_experiments.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Largest coordinate extent of the particle cloud (its bounding box diagonal). */
static double extent(const pbd_world *w)
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = 0; i < w->n; i++)
        for (int c = 0; c < 3; c++) {
            double v = w->x[3 * i + c];
            if (!isfinite(v)) return NAN;
            lo[c] = v < lo[c] ? v : lo[c];
            hi[c] = v > hi[c] ? v : hi[c];
        }
    return sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                (hi[2] - lo[2]) * (hi[2] - lo[2]));
}

/* Step one scene; returns 0 when it stayed finite and within bound × its initial extent. */
static int soak(const pbd_scene_entry *scene, pbd_world *w, long steps, double bound,
                int progress)
{
    double e0 = extent(w), emax = e0;
    long s;
    pbd_status st = PBD_OK;
    for (s = 1; s <= steps && st == PBD_OK; s++) {
        st = pbd_step(w);
        if (s % 1000 == 0 || s == steps) {
            double e = extent(w);
            if (!(e <= bound * e0)) {
                emax = e;
                break;
            }
            if (e > emax) emax = e;
            if (progress) fprintf(stderr, "\r%-12s step %ld/%ld", scene->name, s, steps);
        }
    }
    if (progress) fprintf(stderr, "\r%60s\r", "");
    int ok = st == PBD_OK && emax <= bound * e0;
    printf("%-12s %s steps=%ld particles=%d extent0=%.4g max_extent=%.4g max_abs_C=%.3g%s%s\n",
           scene->name, ok ? "PASS" : "FAIL", s - 1, w->n, e0, emax, w->stats.max_c,
           st == PBD_OK ? "" : " ", st == PBD_OK ? "" : pbd_last_error());
    return !ok;
}

int main(int argc, char **argv)
{
    pbd_solver_def def = pbd_solver_def_default();
    int steps = 100000;
    double bound = 10.0;
    const char *only = NULL;
    cli_option opts[PBD_MAX_OPTIONS];
    char scene_help[1024] = "soak only this scene (one of"; /* the values --scene takes */
    for (int i = 0; i < pbd_scene_count(); i++) {
        strncat(scene_help, " ", sizeof scene_help - strlen(scene_help) - 1);
        strncat(scene_help, pbd_scene_at(i)->name, sizeof scene_help - strlen(scene_help) - 1);
    }
    strncat(scene_help, "; default: all)", sizeof scene_help - strlen(scene_help) - 1);
    const cli_option own[] = {
        {"steps", CLI_INT, &steps, 1, 1e9, 0, "steps per scene", NULL},
        {"bound", CLI_DOUBLE, &bound, 1, INFINITY, 0,
         "fail when the extent exceeds this multiple of the initial one", NULL},
        {"scene", CLI_STRING, &only, 0, 0, 0, scene_help, NULL},
    };
    int n = 0;
    for (unsigned i = 0; i < sizeof own / sizeof own[0]; i++) opts[n++] = own[i];
    n += pbd_solver_options(&def, opts + n);
    int rc = cli_parse("pbd-soak", "pbd-soak [options]\n\nSteps every scene (or --scene) at its "
                       "default parameters with the solver options below. Before any step, every "
                       "selected scene is built and checked as pbd-run checks it: a solver option "
                       "that cannot act on one of them (e.g. --sor-omega without --scheme=jacobi), "
                       "a method it cannot take (--method=newton on a fluid) or XPBD with "
                       "compliance 0 on a fluid is refused, one line naming the scene and why.\n"
                       "Exit status: 0 every scene stayed finite and bounded, 1 one did not (or "
                       "could not be built), 2 a bad or refused option, 4 out of memory.",
                       argc, argv, 1, opts, n, NULL, 0, NULL);
    if (rc == CLI_EXIT_OK) return 0;
    if (rc != CLI_OK) return 2;
    if (only && !pbd_scene_find(only)) {
        fprintf(stderr, "pbd-soak: --scene: expected a scene name, found '%s'\n", only);
        return 2;
    }
    /* every selected scene built and checked up front: a given option that cannot act on one
     * of them, or a method it cannot take, is refused before any step (exit 2; --scene
     * soaks one) */
    const int n_scenes = pbd_scene_count();
    pbd_world **worlds = calloc((size_t)n_scenes, sizeof *worlds);
    if (!worlds) {
        fprintf(stderr, "pbd-soak: out of memory for %d scenes\n", n_scenes);
        return 4;
    }
    int refused = 0, failed = 0, progress = isatty(STDERR_FILENO);
    for (int i = 0; i < n_scenes && !refused; i++) {
        const pbd_scene_entry *scene = pbd_scene_at(i);
        if (only && strcmp(only, scene->name) != 0) continue;
        pbd_scene_params sp = pbd_scene_params_default();
        if (!(worlds[i] = scene->build(&sp))) {
            printf("%-12s FAIL cannot build: %s\n", scene->name, pbd_last_error());
            failed++;
            continue;
        }
        pbd_solver_context ctx = {.fluid = worlds[i]->fluid != NULL};
        const char *why = pbd_run_refusal(worlds[i], &def, &ctx);
        if (why) {
            fprintf(stderr, "pbd-soak: %s: %s%s\n", scene->name, why,
                    only ? "" : " (--scene=NAME soaks one scene)");
            refused = 1;
        }
    }
    for (int i = 0; i < n_scenes; i++) {
        if (worlds[i] && !refused) failed += soak(pbd_scene_at(i), worlds[i], steps, bound, progress);
        pbd_world_free(worlds[i]);
    }
    free(worlds);
    if (refused) return 2;
    printf("%d scene(s) failed\n", failed);
    return failed ? 1 : 0;
}
