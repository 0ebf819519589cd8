/* pbd-run SCENE [options]: build a scene, step it, print the per-step residual.
 * pbd-run EXPERIMENT [options]: run an experiment of the suite (experiments/drivers/exp_*.c). */
#include "experiments/pbd_experiments.h"
#include "experiments/programs/bench.h"
#include "experiments/programs/run_rigid.h"
#include "solver/test_hooks.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The up-front estimate of what the run will hold (pbd_memory_estimate_run) against the
 * memory available (pbd_memory_limit): PBD_ENOMEM with one line giving both, by part, and
 * what to try; PBD_EINVAL for a malformed limit. A scene read from a file is not estimated
 * here (the Newton reference still estimates from its analysis). */
static pbd_status memory_check(const pbd_scene_entry *scene, const pbd_scene_params *sp,
                               int method, int reference, int out, int frame_velocities,
                               pbd_memory_estimate *mem)
{
    pbd_memory_shape shape;
    if (!pbd_scene_shape(scene, sp, &shape)) return PBD_OK;
    *mem = pbd_memory_estimate_run(&shape, method, reference, out, frame_velocities);
    size_t limit;
    const char *source;
    if (pbd_memory_limit(&limit, &source) != PBD_OK) {
        fprintf(stderr, "pbd-run: %s\n", pbd_last_error());
        return PBD_EINVAL;
    }
    if (!(mem->total > (double)limit)) return PBD_OK;
    const int family = method != PBD_METHOD_PBD && method != PBD_METHOD_XPBD;
    char parts[512];
    int k = snprintf(parts, sizeof parts, "world %.0f MB, scene set-up %.0f MB",
                     mem->world / 1e6, mem->build / 1e6);
    if (mem->method > 0.0) /* PBD and XPBD: the world's own workspaces */
        k += snprintf(parts + k, sizeof parts - (size_t)k, ", %s %.0f MB",
                      pbd_method_name(method), mem->method / 1e6);
    if (reference)
        k += snprintf(parts + k, sizeof parts - (size_t)k, ", Newton reference %.0f MB",
                      mem->reference / 1e6);
    if (out)
        k += snprintf(parts + k, sizeof parts - (size_t)k, ", output %.0f MB", mem->output / 1e6);
    snprintf(parts + k, sizeof parts - (size_t)k, ", fixed %.0f MB%s%s", mem->fixed / 1e6,
             *mem->fill ? "; " : "", mem->fill);
    fprintf(stderr, "pbd-run: %s: expected the run to fit in memory, found it needs an "
            "estimated %.0f MB (%s) with %.0f MB available (%s); try a smaller --resolution%s\n",
            scene->name, mem->total / 1e6, parts, limit / 1e6, source,
            reference ? " or no --reference=newton"
            : family ? " or --method=xpbd (no matrix, no per-vertex blocks)" : "");
    return PBD_ENOMEM;
}

int main(int argc, char **argv)
{
    const pbd_experiment *experiment = argc > 1 ? pbd_experiment_find(argv[1]) : NULL;
    if (experiment) return pbd_experiment_main(experiment, argc - 1, argv + 1);

    pbd_solver_def def = pbd_solver_def_default();
    pbd_scene_params sp = pbd_scene_params_default();
    int steps = 100, every = 1, quiet = 0, list_experiments = 0, frames = 0, fault_step = 0,
        frame_velocities = 0, fault_kind = 0;
    static const char *const fault_kinds[] = {"nan", "oom", "hang", NULL};
    int reference = 0, reference_failure = 0;
    static const char *const reference_names[] = {"none", "newton", NULL};
    static const char *const reference_failure_names[] = {"record", "stop", NULL};
    const char *out_dir = NULL, *run = "run", *sweep_file = NULL, *sweep_hash = NULL;
    cli_option opts[PBD_MAX_OPTIONS];
    int n_opts = 0;
    const cli_option own[] = {
        {"steps", CLI_INT, &steps, 1, 1e9, 0, "number of steps", NULL},
        {"every", CLI_INT, &every, 1, 1e9, 0, "print every N-th step", NULL},
        {"quiet", CLI_FLAG, &quiet, 0, 0, 0, "print only the final line", NULL},
        {"list-experiments", CLI_FLAG, &list_experiments, 0, 0, 0,
         "print each experiment's name and 1 if it measures wall time (run alone), and exit",
         NULL},
        {"out", CLI_STRING, &out_dir, 0, 0, 0,
         "log the run to DIR/<scene>/<run>.h5 (HDF5 schema: experiments/README.md "
         "\"HDF5 results\")", NULL},
        {"run", CLI_STRING, &run, 0, 0, 0, "the file's name with --out (default run)", NULL},
        {"sweep", CLI_STRING, &sweep_file, 0, 0, 0,
         "FILE: run the grid of a sweep file (lines KEY = V1, V2, ...: scene and any option "
         "here) into --out=DIR, one run and file each, and merge them into "
         "DIR/<scene>/summary.h5 (experiments/README.md \"Your own sweep\"; pbd-run "
         "--sweep=FILE --help lists its options)", NULL},
        {"sweep-hash", CLI_STRING, &sweep_hash, 0, 0, 0,
         "with --out: the run file's sweep_hash attribute, 16 hex digits (set by --sweep for "
         "each of its runs: the merge takes only its own sweep's files)", NULL},
        {"frames", CLI_INT, &frames, 0, 1e9, 0, "with --out: /frames every N steps (0: none)",
         NULL},
        {"frame-velocities", CLI_FLAG, &frame_velocities, 0, 0, 0,
         "with --frames: velocities in every frame too", NULL},
        {"reference", CLI_CHOICE, &reference, 0, 0, 0,
         "newton: each step is also solved by the Newton reference from the same state; the "
         "distance to it (max, RMS) and per set the force error go to the output",
         reference_names},
        {"reference-failure", CLI_CHOICE, &reference_failure, 0, 0, 0,
         "with --reference=newton, a step whose reference does not converge: record (NaN in "
         "its reference columns, the reason in the file's attribute reference_failures; the "
         "run goes on) or stop (the run stops there, exit status 5)",
         reference_failure_names},
        {"test-fault-step", CLI_INT, &fault_step, 0, 1e9, 0,
         "TEST ONLY: step N gets a NaN velocity, so that the watchdog stops the run (0: off)",
         NULL},
        {"test-fault", CLI_CHOICE, &fault_kind, 0, 0, 0,
         "TEST ONLY: what --test-fault-step does (oom: the step runs out of memory; hang: the "
         "step never ends, as a stuck factorisation)", fault_kinds},
    };
    for (unsigned i = 0; i < sizeof own / sizeof own[0]; i++) opts[n_opts++] = own[i];
    const int solver_first = n_opts;
    n_opts += pbd_solver_options(&def, opts + n_opts);
    const int scene_first = n_opts;
    n_opts += pbd_scene_options(&sp, opts + n_opts);
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) /* a sweep: sweep_run.c */
        if (!strncmp(argv[i], "--sweep=", 8) || !strcmp(argv[i], "--sweep"))
            return pbd_sweep_main(argc, argv, opts, n_opts);
    const char *positional[1];
    int np = 0;
    int rc = cli_parse("pbd-run", "pbd-run SCENE [options]\n       pbd-run EXPERIMENT [options] "
                       "(pbd-run EXPERIMENT --help lists its parameters)\n       pbd-run "
                       "[SCENE] --sweep=FILE --out=DIR (pbd-run --sweep=FILE --help)", argc, argv, 1, opts,
                       n_opts, positional, 1, &np);
    if (rc == CLI_EXIT_OK) {
        int help = 0;
        for (int i = 1; i < argc; i++) help |= !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h");
        if (!help) return 0;
        printf("\nScenes:\n");
        for (int i = 0; i < pbd_scene_count(); i++)
            printf("  %-24s %s\n", pbd_scene_at(i)->name, pbd_scene_at(i)->description);
        for (int i = 0; i < pbd_rigid_scene_count(); i++)
            printf("  %-24s %s\n", pbd_rigid_scene_at(i)->name,
                   pbd_rigid_scene_at(i)->description);
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
    const pbd_scene_entry *scene = np < 1 ? NULL : pbd_scene_find(positional[0]);
    const pbd_rigid_scene_entry *rigid = np < 1 || scene ? NULL : pbd_rigid_scene_find(positional[0]);
    if (!scene && !rigid) {
        fprintf(stderr, np < 1 ? "pbd-run: expected a SCENE (one of:" : "pbd-run: SCENE: expected one of");
        for (int i = 0; i < pbd_scene_count(); i++) fprintf(stderr, " %s", pbd_scene_at(i)->name);
        for (int i = 0; i < pbd_rigid_scene_count(); i++)
            fprintf(stderr, " %s", pbd_rigid_scene_at(i)->name);
        if (np < 1) fprintf(stderr, "), found nothing (see --help)\n");
        else fprintf(stderr, ", found '%s'\n", positional[0]);
        return 2;
    }
    if (out_dir && !*out_dir) {
        fprintf(stderr, "pbd-run: --out: expected a directory, found ''\n");
        return 2;
    }
    if (sweep_hash && (strlen(sweep_hash) != 16 || strspn(sweep_hash, "0123456789abcdef") != 16)) {
        fprintf(stderr, "pbd-run: --sweep-hash: expected 16 hex digits, found '%s'\n", sweep_hash);
        return 2;
    }
    if (!*run || strlen(run) > 200 || strpbrk(run, "/ \t\n") || run[0] == '.') {
        fprintf(stderr, "pbd-run: --run: expected a file name without '/' or spaces, not "
                "starting with '.' (at most 200 bytes), found '%s'\n", run);
        return 2;
    }
    /* before any expensive set-up (a 1000² cloth takes seconds to build): a signal from now
     * on stops the program within the grace time, leaving nothing or a readable file */
    pbd_interrupt_install();
    /* A given option that cannot act is refused, naming it and why (exit 2) */
    const char *unread = NULL, *unread_why = NULL;
    if (cli_given(&frames) && !out_dir)
        unread = "frames", unread_why = "frames are written to the run file: give --out";
    else if (cli_given(&frame_velocities) && frames <= 0)
        unread = "frame-velocities", unread_why = "velocities go into the frames: give --frames=N";
    else if (cli_given(&run) && !out_dir)
        unread = "run", unread_why = "it names the file --out writes: give --out";
    else if (cli_given(&sweep_hash) && !out_dir)
        unread = "sweep-hash", unread_why = "it is written into the run file: give --out";
    else if (cli_given(&fault_kind) && fault_step == 0)
        unread = "test-fault", unread_why = "it says what --test-fault-step does: give "
                                            "--test-fault-step=N";
    else if (cli_given(&reference_failure) && !reference)
        unread = "reference-failure", unread_why = "it says what a failure of the Newton "
                                                   "reference does: give --reference=newton";
    else if (cli_given(&every) && quiet)
        unread = "every", unread_why = "--quiet prints only the final line";
    cli_option rows[PBD_MAX_OPTIONS];
    int n_rows = pbd_scene_options(&sp, rows);
    for (int i = 0; i < n_rows && !unread && scene; i++)
        if (cli_given(rows[i].value) &&
            (unread_why = pbd_scene_unread(scene, &sp, def.method, reference, rows[i].name)))
            unread = rows[i].name;
    if (unread) {
        fprintf(stderr, "pbd-run: --%s: cannot act here: %s\n", unread, unread_why);
        return 2;
    }
    if (rigid) { /* the rigid solver's own loop (run_rigid.c) */
        pbd_test_fault_step = fault_step;
        const pbd_rigid_run rr = {
            .scene = rigid, .sp = &sp, .def = &def, .solver_rows = opts + solver_first,
            .n_solver_rows = scene_first - solver_first, .scene_rows = opts + scene_first,
            .n_scene_rows = n_opts - scene_first, .steps = steps, .every = every, .quiet = quiet,
            .frames = frames, .frame_velocities = frame_velocities, .reference = reference,
            .out_dir = out_dir, .run = run, .sweep_hash = sweep_hash};
        return pbd_run_rigid(&rr);
    }
    /* a run that would not fit in memory is refused before the scene is built (exit 4) */
    const long rss_start = bench_resident_kb("VmRSS:");
    pbd_memory_estimate mem = {0};
    pbd_status mst = memory_check(scene, &sp, def.method, reference, out_dir != NULL,
                                  frame_velocities, &mem);
    if (mst != PBD_OK) return pbd_exit_status(mst);
    pbd_error(PBD_EINPUT, "no reason given");
    pbd_scene_cells cells;
    pbd_running_set("the scene's set-up, which does not look at the stop flag");
    pbd_world *w = pbd_scene_build(scene, &sp, &cells);
    pbd_running_set(NULL);
    if (!w) { /* bad input (1), a parameter out of range (2) or out of memory (4) */
        pbd_status why = pbd_last_status();
        fprintf(stderr, "pbd-run: cannot build scene %s: %s\n", scene->name, pbd_last_error());
        return pbd_exit_status(why == PBD_EINVAL || why == PBD_ENOMEM ? why : PBD_EINPUT);
    }
    pbd_test_fault_step = fault_step;
    pbd_test_fault_oom = fault_kind == 1;
    pbd_test_fault_hang = fault_kind == 2;
    /* what cannot act or run here, before any step (exit 2): run_refusals.c */
    pbd_solver_context sctx = {.fluid = w->fluid != NULL, .reference = reference,
                               .out = out_dir != NULL};
    const char *refused = pbd_run_refusal(w, &def, &sctx);
    if (refused) {
        fprintf(stderr, "pbd-run: %s\n", refused);
        pbd_scene_cells_free(&cells);
        pbd_world_free(w);
        return 2;
    }
    if (reference && def.method == PBD_METHOD_XPBD) { /* a comparison known meaningless */
        int ws = -1;
        const double h = def.dt / def.substeps, g = fabs(def.gravity[1]) * h * h;
        const double move = pbd_xpbd_restart_move(w, h, &ws);
        if (ws >= 0 && move > 10.0 * g && move > 1e-9)
            fprintf(stderr, "pbd-run: warning: --reference=newton: XPBD's first projection "
                    "from lambda = 0 moves set %d (%s) by up to %.3g m (free fall per substep "
                    "%.3g m): a state that rests on multipliers lambda = -C/alpha~ is rebuilt "
                    "from 0 every substep and XPBD's step is then not the implicit one "
                    "(solver/xpbd/README.md \"Solver variants\"); more substeps shrink it\n",
                    ws, w->sets[ws].type->name, move, g);
    }
    /* the Newton reference's pattern and symbolic analysis now: a run that would not fit in
     * memory is refused with the estimate before any step (exit status 4) */
    const long rss0 = bench_resident_kb("VmRSS:"); /* the estimate against what the run holds */
    size_t estimate = 0;
    pbd_status nst = def.method == PBD_METHOD_NEWTON || reference
                         ? pbd_newton_prepare(w, &estimate) : PBD_OK;
    if (nst != PBD_OK) {
        fprintf(stderr, "pbd-run: %s%s\n", reference ? "--reference=newton: " : "",
                pbd_last_error());
        pbd_scene_cells_free(&cells);
        pbd_world_free(w);
        return pbd_exit_status(nst);
    }
    pbd_h5log *log = NULL;
    if (out_dir) {
        pbd_h5log_options o = {.frames_every = frames, .frame_velocities = frame_velocities,
                               .triangles = cells.triangles, .n_triangles = cells.n_triangles,
                               .tets = cells.tets, .n_tets = cells.n_tets};
        log = pbd_h5log_open(out_dir, scene->name, run, w, &o);
        pbd_status st = log ? pbd_h5log_scene_params(log, &sp) : PBD_EIO;
        if (st == PBD_OK && sweep_hash) st = pbd_h5log_attr_string(log, "sweep_hash", sweep_hash);
        if (st != PBD_OK) {
            pbd_status code = log ? st : PBD_EIO;
            fprintf(stderr, "pbd-run: %s\n", pbd_last_error());
            if (log) pbd_h5log_discard(log);
            pbd_scene_cells_free(&cells);
            pbd_world_free(w);
            return pbd_exit_status(code);
        }
    }
    if (pbd_interrupt_signal()) { /* during the set-up: no step was made, nothing is kept */
        fprintf(stderr, "pbd-run: interrupted by %s before step 1; nothing kept\n",
                pbd_signal_name(pbd_interrupt_signal()));
        if (log) pbd_h5log_discard(log);
        pbd_interrupt_done();
        pbd_scene_cells_free(&cells);
        pbd_world_free(w);
        return pbd_exit_status(PBD_EINTR);
    }
    pbd_exp_reference ref = {0};
    if (reference) {
        pbd_status rs = pbd_exp_reference_init(&ref, w, log, reference_failure == 0);
        if (rs != PBD_OK) {
            fprintf(stderr, "pbd-run: %s\n", pbd_last_error());
            if (log) pbd_h5log_discard(log);
            pbd_scene_cells_free(&cells);
            pbd_world_free(w);
            return pbd_exit_status(rs);
        }
    }
    const int newton = def.method == PBD_METHOD_NEWTON;
    printf("# pbd-run %s: %d particles, dt=%g s, iterations=%d, substeps=%d, method=%s, "
           "stiffness=%g%s, compliance=%g\n",
           scene->name, w->n, def.dt, def.iterations, def.substeps, pbd_method_name(def.method),
           sp.stiffness, def.linearize_stiffness ? " (linearized)" : "", sp.compliance);
    if (sp.pin || sp.mesh_path || sp.tet_path) /* a user's mesh: say what holds it */
        printf("# pinned %d of %d particles (%s)\n", w->n_attach, w->n,
               sp.pin ? "--pin" : "the scene's own rule; --pin chooses them");
    if (!quiet) { /* max |C| per constraint set, each in its type's unit */
        printf("# step  time_s");
        for (int k = 0; k < w->n_sets; k++)
            printf("  max|C|:%s[%s]", w->sets[k].type->name, w->sets[k].type->unit);
        printf("%s%s\n", newton ? "  newton_iterations  newton_residual  newton_seconds" : "",
               reference ? "  newton_max_distance[m]  newton_rms_distance[m]" : "");
    }
    pbd_status st = PBD_OK;
    for (int s = 1; s <= steps && st == PBD_OK; s++) {
        if (reference && (st = pbd_exp_reference_solve(&ref, w)) != PBD_OK) break;
        if ((st = pbd_step(w)) != PBD_OK) break;
        if (reference) pbd_exp_reference_compare(&ref, w);
        if ((!quiet && s % every == 0) || s == steps) {
            printf("%6d %8.4f", s, w->time);
            for (int k = 0; k < w->n_sets; k++) { /* "-" when the step was not measured */
                if (w->sets[k].stats.step == w->step_count)
                    printf(" %.6e", w->sets[k].stats.max_c);
                else
                    printf(" -");
            }
            if (newton) {
                pbd_newton_info info;
                pbd_newton_last_info(w, &info);
                printf(" %3d %.3e %.3f", info.iterations, info.residual, info.seconds_total);
            }
            if (reference && ref.failed) printf(" - -"); /* no reference at this step */
            else if (reference) printf(" %.6e %.6e", ref.max_distance, ref.rms_distance);
            printf("\n");
        }
        if (log) st = pbd_h5log_step(log, w);
    }
    if (ref.n_failed > 0)
        printf("# newton reference: failed at %ld of %ld steps, recorded (NaN; the reasons: "
               "attribute reference_failures)\n", ref.n_failed, w->step_count);
    pbd_exp_reference_free(&ref);
    long hwm = bench_resident_kb("VmHWM:");
    if (estimate > 0 && st == PBD_OK && rss0 > 0 && hwm > 0)
        printf("# newton reference: estimated %.1f MB up front; resident memory %.1f MB before "
               "its set-up, %.1f MB at the peak (VmHWM): %.1f MB more\n", estimate / 1e6,
               rss0 * 1024 / 1e6, hwm * 1024 / 1e6, (hwm - rss0) * 1024 / 1e6);
    if (mem.total > 0.0 && st == PBD_OK && rss_start > 0 && hwm > 0)
        printf("# memory: estimated %.1f MB up front; resident memory %.1f MB before the "
               "scene, %.1f MB at the peak (VmHWM): %.1f MB more\n", mem.total / 1e6,
               rss_start * 1024 / 1e6, hwm * 1024 / 1e6, (hwm - rss_start) * 1024 / 1e6);
    fflush(stdout);
    if (log && st == PBD_OK) {
        char path[4096];
        snprintf(path, sizeof path, "%s", pbd_h5log_path(log));
        if ((st = pbd_h5log_finish(log)) == PBD_OK && !quiet) printf("# wrote %s\n", path);
    } else if (log) {
        pbd_h5log_stop(log, st);
    }
    pbd_report_status("pbd-run", st);
    pbd_interrupt_done();
    pbd_scene_cells_free(&cells);
    pbd_world_free(w);
    return pbd_exit_status(st);
}
