/* pbd-run SCENE [options]: build a scene, step it, print the per-step residual.
 * pbd-run EXPERIMENT [options]: run an experiment of the suite (experiments/exp_*.c). */
#include "pbd_experiments.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    const pbd_experiment *experiment = argc > 1 ? pbd_experiment_find(argv[1]) : NULL;
    if (experiment) return pbd_experiment_main(experiment, argc - 1, argv + 1);

    pbd_solver_def def = pbd_solver_def_default();
    pbd_scene_params sp = pbd_scene_params_default();
    int steps = 100, every = 1, quiet = 0, list_experiments = 0;
    cli_option opts[PBD_MAX_OPTIONS];
    int n_opts = 0;
    const cli_option own[] = {
        {"steps", CLI_INT, &steps, 1, 1e9, 0, "number of steps", NULL},
        {"every", CLI_INT, &every, 1, 1e9, 0, "print every N-th step", NULL},
        {"quiet", CLI_FLAG, &quiet, 0, 0, 0, "print only the final line", NULL},
        {"list-experiments", CLI_FLAG, &list_experiments, 0, 0, 0,
         "print each experiment's name and 1 if it measures wall time (run alone), and exit",
         NULL},
    };
    for (unsigned i = 0; i < sizeof own / sizeof own[0]; i++) opts[n_opts++] = own[i];
    n_opts += pbd_solver_options(&def, opts + n_opts);
    n_opts += pbd_scene_options(&sp, opts + n_opts);
    const char *positional[1];
    int np = 0;
    int rc = cli_parse("pbd-run", "pbd-run SCENE [options]\n       pbd-run EXPERIMENT [options] "
                       "(pbd-run EXPERIMENT --help lists its parameters)", argc, argv, 1, opts,
                       n_opts, positional, 1, &np);
    if (rc == CLI_EXIT_OK) {
        int help = 0;
        for (int i = 1; i < argc; i++) help |= !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h");
        if (!help) return 0;
        printf("\nScenes:\n");
        for (int i = 0; i < pbd_scene_count(); i++)
            printf("  %-24s %s\n", pbd_scene_at(i)->name, pbd_scene_at(i)->description);
        printf("\nExperiments (results under data/results/<experiment>/):\n");
        for (int i = 0; i < pbd_experiment_count(); i++)
            printf("  %-24s %s\n", pbd_experiment_at(i)->name, pbd_experiment_at(i)->description);
        return 0;
    }
    if (rc != CLI_OK) return 2;
    if (list_experiments) {
        for (int i = 0; i < pbd_experiment_count(); i++)
            printf("%s %d\n", pbd_experiment_at(i)->name, pbd_experiment_at(i)->timing);
        return 0;
    }
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
    pbd_world *w = scene->build(&sp);
    if (!w) {
        fprintf(stderr, "pbd-run: cannot build scene %s: %s\n", scene->name, pbd_last_error());
        return 1;
    }
    w->def = def;
    printf("# pbd-run %s: %d particles, dt=%g s, iterations=%d, substeps=%d, method=%s, "
           "stiffness=%g%s, compliance=%g\n",
           scene->name, w->n, def.dt, def.iterations, def.substeps, pbd_method_name(def.method),
           sp.stiffness, def.linearize_stiffness ? " (linearized)" : "", sp.compliance);
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
