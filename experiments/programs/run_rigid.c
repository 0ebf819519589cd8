/* pbd-run on a rigid scene (experiments/scenes/scene_rigid.c): the rigid world stepped by
 * XPBD (Müller et al. 2020, Algorithm 2), printed per step and logged as the particles are
 * (experiments/log/pbd_log_rigid.h): the watchdog, stop requests and .partial files alike. */
#include "experiments/programs/run_rigid.h"
#include "experiments/log/pbd_log_rigid.h"
#include "solver/test_hooks.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The solver options the rigid world reads; any other given one is refused */
static const char *const solver_reads[] = {"dt", "substeps", "iterations", "method", "gravity",
                                           "watch-position", NULL};

static const char *refusal(const pbd_rigid_run *r, char *buf, size_t size)
{
    if (cli_given(&r->def->method) && r->def->method != PBD_METHOD_XPBD) {
        snprintf(buf, size, "%s: --method=%s: cannot act here: the rigid bodies are stepped by "
                 "XPBD only (Mueller et al. 2020, Algorithm 2); use --method=xpbd",
                 r->scene->name, pbd_method_name(r->def->method));
        return buf;
    }
    if (r->reference) {
        snprintf(buf, size, "%s: --reference=newton: cannot act here: the Newton reference "
                 "solves particle worlds, not rigid bodies", r->scene->name);
        return buf;
    }
    for (int i = 0; i < r->n_solver_rows; i++) {
        int reads = 0;
        for (int k = 0; solver_reads[k]; k++) reads |= !strcmp(r->solver_rows[i].name, solver_reads[k]);
        if (!reads && cli_given(r->solver_rows[i].value)) {
            snprintf(buf, size, "%s: --%s: cannot act here: the rigid solver reads only --dt, "
                     "--substeps, --iterations, --gravity and --watch-position",
                     r->scene->name, r->solver_rows[i].name);
            return buf;
        }
    }
    for (int i = 0; i < r->n_scene_rows; i++)
        if (cli_given(r->scene_rows[i].value) &&
            !pbd_rigid_scene_reads(r->scene, r->scene_rows[i].name)) {
            snprintf(buf, size, "%s: --%s: cannot act here: this rigid scene reads only %s",
                     r->scene->name, r->scene_rows[i].name, r->scene->reads);
            return buf;
        }
    return NULL;
}

int pbd_run_rigid(const pbd_rigid_run *r)
{
    char why[512];
    const char *refused = refusal(r, why, sizeof why);
    if (refused) {
        fprintf(stderr, "pbd-run: %s\n", refused);
        return 2;
    }
    const pbd_solver_def *d = r->def;
    /* the paper's defaults where not given: 20 substeps x 1 iteration */
    int substeps = cli_given(&d->substeps) ? d->substeps : 20;
    int iterations = cli_given(&d->iterations) ? d->iterations : 1;
    pbd_running_set("the scene's set-up, which does not look at the stop flag");
    pbd_rigid_world *w = r->scene->build(r->sp, d->dt, substeps, iterations);
    pbd_running_set(NULL);
    if (!w) {
        pbd_status why_st = pbd_last_status();
        fprintf(stderr, "pbd-run: cannot build scene %s: %s\n", r->scene->name, pbd_last_error());
        return pbd_exit_status(why_st == PBD_EINVAL || why_st == PBD_ENOMEM ? why_st : PBD_EINPUT);
    }
    for (int k = 0; k < 3; k++) w->gravity[k] = d->gravity[k];
    w->watch_position = d->watch_position;
    w->velocity_passes = r->sp->velocity_passes; /* 1 unless the scene reads --velocity-passes */
    pbd_rigid_log rl = {.rigid = w};
    pbd_status st = PBD_OK;
    if (r->out_dir) {
        rl.mirror = pbd_rigid_mirror_create(w);
        pbd_h5log_options o = {.frames_every = r->frames,
                               .frame_velocities = r->frame_velocities};
        pbd_h5log *log = rl.mirror ? pbd_h5log_open(r->out_dir, r->scene->name, r->run,
                                                    rl.mirror, &o) : NULL;
        st = log ? pbd_h5log_scene_params(log, r->sp) : PBD_EIO;
        if (st == PBD_OK) st = pbd_rigid_log_begin(&rl, log);
        if (st == PBD_OK && r->sweep_hash) st = pbd_h5log_attr_string(log, "sweep_hash", r->sweep_hash);
        if (st != PBD_OK) {
            fprintf(stderr, "pbd-run: %s\n", pbd_last_error());
            if (log) pbd_h5log_discard(log);
            pbd_world_free(rl.mirror);
            pbd_rigid_world_free(w);
            return pbd_exit_status(log ? st : PBD_EIO);
        }
    }
    if (pbd_interrupt_signal()) { /* during the set-up: no step was made, nothing is kept */
        fprintf(stderr, "pbd-run: interrupted by %s before step 1; nothing kept\n",
                pbd_signal_name(pbd_interrupt_signal()));
        if (rl.log) pbd_h5log_discard(rl.log);
        pbd_interrupt_done();
        pbd_world_free(rl.mirror);
        pbd_rigid_world_free(w);
        return pbd_exit_status(PBD_EINTR);
    }
    printf("# pbd-run %s: %d rigid bodies, %d joints, dt=%g s, iterations=%d, substeps=%d, "
           "method=xpbd (rigid)\n", r->scene->name, w->n_bodies, w->n_joints, w->dt,
           w->iterations, w->substeps);
    if (!r->quiet)
        printf("# step  time_s  kinetic_translational[J]  kinetic_rotational[J]  potential[J]  "
               "|momentum|[kg m/s]  |angular_momentum|[kg m^2/s]  contacts\n");
    for (int s = 1; s <= r->steps && st == PBD_OK; s++) {
        if (pbd_test_fault_step > 0 && s == pbd_test_fault_step && w->n_bodies > 0)
            w->bodies[w->n_bodies - 1].v[0] = NAN; /* TEST ONLY: the watchdog stops the run */
        if ((st = pbd_rigid_step(w)) != PBD_OK) break;
        if (pbd_stop_requested()) st = pbd_error(PBD_EINTR, "stopped on request");
        if ((!r->quiet && s % r->every == 0) || s == r->steps) {
            pbd_rigid_measures m;
            pbd_rigid_measure(w, &m);
            printf("%6d %8.4f %.6e %.6e %.6e %.6e %.6e %d\n", s, w->time,
                   m.kinetic_translational, m.kinetic_rotational, m.potential,
                   sqrt(m.momentum[0] * m.momentum[0] + m.momentum[1] * m.momentum[1] +
                        m.momentum[2] * m.momentum[2]),
                   sqrt(m.angular_momentum[0] * m.angular_momentum[0] +
                        m.angular_momentum[1] * m.angular_momentum[1] +
                        m.angular_momentum[2] * m.angular_momentum[2]),
                   w->n_contacts);
        }
        if (rl.log) {
            pbd_status ls = pbd_rigid_log_step(&rl);
            if (st == PBD_OK) st = ls;
        }
    }
    fflush(stdout);
    if (rl.log && st == PBD_OK) {
        char path[4096];
        snprintf(path, sizeof path, "%s", pbd_h5log_path(rl.log));
        if ((st = pbd_h5log_finish(rl.log)) == PBD_OK && !r->quiet) printf("# wrote %s\n", path);
    } else if (rl.log) {
        pbd_h5log_stop(rl.log, st);
    }
    pbd_report_status("pbd-run", st);
    pbd_interrupt_done();
    pbd_world_free(rl.mirror);
    pbd_rigid_world_free(w);
    return pbd_exit_status(st);
}
