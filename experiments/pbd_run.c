/* pbd-run SCENE [options]: build a scene, step it, print the per-step residual. */
#include "pbd_experiments.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const method_names[] = {"pbd", "xpbd", NULL};

int main(int argc, char **argv)
{
    pbd_solver_def def = pbd_solver_def_default();
    pbd_scene_params sp = pbd_scene_params_default();
    int steps = 100, every = 1, quiet = 0, method = 0;
    double stiffness = 1.0, compliance = 0.0, size = 1.0, mass = 1.0;
    int resolution = 0;
    cli_option opts[] = {
        {"dt", CLI_DOUBLE, &def.dt, 0, INFINITY, 1, "time step in s", NULL},
        {"steps", CLI_INT, &steps, 1, 1e9, 0, "number of steps", NULL},
        {"iterations", CLI_INT, &def.iterations, 1, 1e6, 0, "solver iterations per step", NULL},
        {"substeps", CLI_INT, &def.substeps, 1, 1e6, 0, "substeps per step (Small Steps)", NULL},
        {"method", CLI_CHOICE, &method, 0, 0, 0, "solver", method_names},
        {"stiffness", CLI_DOUBLE, &stiffness, 0, 1, 0, "PBD stiffness k of every constraint", NULL},
        {"linearize", CLI_FLAG, &def.linearize_stiffness, 0, 0, 0,
         "use k' = 1-(1-k)^(1/iterations) (PBD)", NULL},
        {"compliance", CLI_DOUBLE, &compliance, 0, INFINITY, 0,
         "XPBD compliance alpha of every constraint (m/N)", NULL},
        {"resolution", CLI_INT, &resolution, 0, 1e5, 0,
         "particles along the chain / cloth side (0: scene default)", NULL},
        {"size", CLI_DOUBLE, &size, 0, INFINITY, 1, "chain length / cloth side in m", NULL},
        {"mass", CLI_DOUBLE, &mass, 0, INFINITY, 1, "total mass in kg", NULL},
        {"every", CLI_INT, &every, 1, 1e9, 0, "print every N-th step", NULL},
        {"quiet", CLI_FLAG, &quiet, 0, 0, 0, "print only the final line", NULL},
    };
    int n_opts = (int)(sizeof opts / sizeof opts[0]);
    const char *positional[1];
    int np = 0;
    int rc = cli_parse("pbd-run", "pbd-run SCENE [options]", argc, argv, 1, opts, n_opts,
                       positional, 1, &np);
    if (rc == CLI_EXIT_OK) {
        printf("\nScenes:\n");
        for (int i = 0; i < pbd_scene_count(); i++)
            printf("  %-24s %s\n", pbd_scene_at(i)->name, pbd_scene_at(i)->description);
        return 0;
    }
    if (rc != CLI_OK) return 2;
    if (np < 1) {
        fprintf(stderr, "pbd-run: expected a SCENE (one of:");
        for (int i = 0; i < pbd_scene_count(); i++) fprintf(stderr, " %s", pbd_scene_at(i)->name);
        fprintf(stderr, "), found nothing (see --help)\n");
        return 2;
    }
    const pbd_scene_entry *scene = pbd_scene_find(positional[0]);
    if (!scene) {
        fprintf(stderr, "pbd-run: SCENE: expected one of");
        for (int i = 0; i < pbd_scene_count(); i++) fprintf(stderr, " %s", pbd_scene_at(i)->name);
        fprintf(stderr, ", found '%s'\n", positional[0]);
        return 2;
    }
    def.method = (pbd_method)method;
    sp.resolution = resolution;
    sp.size = size;
    sp.total_mass = mass;
    sp.stiffness = stiffness;
    sp.compliance = compliance;
    pbd_world *w = scene->build(&sp);
    if (!w) {
        fprintf(stderr, "pbd-run: cannot build scene %s: %s\n", scene->name, pbd_last_error());
        return 1;
    }
    w->def = def;
    printf("# pbd-run %s: %d particles, dt=%g s, iterations=%d, substeps=%d, method=%s, "
           "stiffness=%g%s, compliance=%g\n",
           scene->name, w->n, def.dt, def.iterations, def.substeps, method_names[method],
           stiffness, def.linearize_stiffness ? " (linearized)" : "", compliance);
    if (!quiet) printf("# step  time_s  max_abs_C  l2_C\n");
    int status = 0;
    for (int s = 1; s <= steps; s++) {
        pbd_status st = pbd_step(w);
        if (st != PBD_OK) {
            fprintf(stderr, "pbd-run: %s\n", pbd_last_error());
            status = 1;
            break;
        }
        if ((!quiet && s % every == 0) || s == steps)
            printf("%6d %8.4f %.6e %.6e\n", s, w->time, w->stats.max_c, w->stats.l2_c);
    }
    pbd_world_free(w);
    return status;
}
