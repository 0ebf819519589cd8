/* --reference=newton: XPBD or PBD measured against the implicit step (solver/newton/newton.c) from
 * the same start state, step by step (pbd-run, xpbd_vs_implicit). Before each step the
 * Newton reference solves the implicit step of XPBD Eq. 8–9 with Δt = def.dt from the
 * world's state; after it, the distance of the step's positions to Newton's (max and RMS
 * over particles) and, per constraint set, the relative error of the forces,
 *   ||f - f_N||_2 / ||f_N||_2,   f = λ/h² (h = dt/substeps, the last substep's λ),
 *   f_N = λ_N/Δt²,
 * (XPBD Sec. 4: the constraint force is ∇Cᵀλ/Δt²; both λ use the same sign convention,
 * Δx = M⁻¹∇Cᵀλ). */
#include "pbd_drivers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pbd_exp_reference_free(pbd_exp_reference *r)
{
    free(r->x);
    free(r->lambda);
    free(r->force_error);
    free(r->c_force);
    memset(r, 0, sizeof *r);
}

pbd_status pbd_exp_reference_init(pbd_exp_reference *r, const pbd_world *w, pbd_h5log *log,
                                  int record_failures)
{
    memset(r, 0, sizeof *r);
    r->n = w->n;
    r->n_sets = w->n_sets;
    for (int s = 0; s < w->n_sets; s++) r->m += w->sets[s].count;
    r->x = malloc(3 * (size_t)(w->n > 0 ? w->n : 1) * sizeof *r->x);
    r->lambda = malloc((size_t)(r->m > 0 ? r->m : 1) * sizeof *r->lambda);
    r->force_error = malloc((size_t)(w->n_sets > 0 ? w->n_sets : 1) * sizeof *r->force_error);
    r->c_force = malloc((size_t)(w->n_sets > 0 ? w->n_sets : 1) * sizeof *r->c_force);
    if (!r->x || !r->lambda || !r->force_error || !r->c_force) {
        pbd_exp_reference_free(r);
        return pbd_error(PBD_ENOMEM, "--reference=newton: out of memory");
    }
    r->log = log;
    r->record_failures = record_failures;
    r->c_max = r->c_rms = r->c_it = r->c_res = r->c_min = r->c_failed = -1;
    for (int s = 0; s < w->n_sets; s++) r->c_force[s] = -1;
    if (!log) return PBD_OK;
    r->c_max = pbd_h5log_column(log, "newton_max_distance", 1, "m");
    r->c_rms = pbd_h5log_column(log, "newton_rms_distance", 1, "m");
    r->c_it = pbd_h5log_column(log, "newton_reference_iterations", 1, "1");
    r->c_res = pbd_h5log_column(log, "newton_reference_residual", 1,
                               "kg m (g), constraint units (h)");
    r->c_min = pbd_h5log_column(log, "newton_reference_minimum", 1, "1");
    int bad = r->c_max < 0 || r->c_rms < 0 || r->c_it < 0 || r->c_res < 0 || r->c_min < 0;
    for (int s = 0; s < w->n_sets && !bad; s++) {
        char name[96];
        snprintf(name, sizeof name, "newton_force_error_%02d_%s", s, w->sets[s].type->name);
        r->c_force[s] = pbd_h5log_column(log, name, 1, "1");
        bad = r->c_force[s] < 0;
    }
    if (!bad && record_failures) {
        r->c_failed = pbd_h5log_column_described(
            log, "newton_reference_failed", 1, "1",
            "1 where the Newton reference failed at this step (the reasons: root attribute "
            "reference_failures): its distances and force errors are NaN there; 0 otherwise");
        bad = r->c_failed < 0;
    }
    pbd_status st = bad ? PBD_EIO : pbd_h5log_attr_string(log, "reference", "newton");
    if (st == PBD_OK && record_failures) st = pbd_h5log_attr_int(log, "reference_failed_steps", 0);
    if (st != PBD_OK) pbd_exp_reference_free(r);
    return st;
}

/* The reference of the coming step did not converge: the step is still made and measured,
 * its reference columns are NaN, and the reason goes to the file (the first few) and to
 * stderr (the first few; the rest are counted). */
enum { REFERENCE_FAILURES_SHOWN = 5 };
static pbd_status record_failure(pbd_exp_reference *r, const pbd_world *w)
{
    r->failed = 1;
    r->n_failed++;
    long step = w->step_count + 1;
    if (r->n_failed <= REFERENCE_FAILURES_SHOWN) {
        fprintf(stderr, "pbd-run: --reference=newton: step %ld: %s; recorded, the run goes on "
                "(--reference-failure=stop: stop instead)\n", step, pbd_last_error());
        size_t len = strlen(r->failures);
        snprintf(r->failures + len, sizeof r->failures - len, "%sstep %ld: %s",
                 len ? "; " : "", step, pbd_last_error());
    }
    if (!r->log) return PBD_OK;
    char text[sizeof r->failures + 96];
    snprintf(text, sizeof text, "%ld steps failed%s: %s", r->n_failed,
             r->n_failed > REFERENCE_FAILURES_SHOWN ? " (the first listed)" : "", r->failures);
    pbd_status st = pbd_h5log_attr_string(r->log, "reference_failures", text);
    return st == PBD_OK ? pbd_h5log_attr_int(r->log, "reference_failed_steps", r->n_failed) : st;
}

pbd_status pbd_exp_reference_solve(pbd_exp_reference *r, pbd_world *w)
{
    if (w->n != r->n || w->n_sets != r->n_sets)
        return pbd_error(PBD_EINVAL, "--reference=newton: expected the world it was made for (%d "
                         "particles, %d sets), found %d and %d (topology changes are not "
                         "followed)", r->n, r->n_sets, w->n, w->n_sets);
    int m = 0;
    for (int s = 0; s < w->n_sets; s++) m += w->sets[s].count;
    if (m != r->m)
        return pbd_error(PBD_EINVAL, "--reference=newton: expected %d constraints, found %d "
                         "(topology changes are not followed)", r->m, m);
    pbd_status st = pbd_newton_solve(w, w->def.newton_max_iterations, w->def.newton_tol, r->x,
                                     r->lambda, NULL, &r->iterations);
    pbd_newton_info info;
    pbd_newton_last_info(w, &info);
    r->residual = info.residual;
    r->minimum = info.minimum; /* a saddle is refused (st below): a failed step, not measured */
    r->failed = 0;
    if (st == PBD_ENUMERIC && r->record_failures) return record_failure(r, w);
    if (st != PBD_OK)
        return pbd_error(st, "--reference=newton: step %ld: %s", w->step_count + 1,
                         pbd_last_error());
    return PBD_OK;
}

void pbd_exp_reference_compare(pbd_exp_reference *r, const pbd_world *w)
{
    if (r->failed) { /* no reference for this step */
        r->max_distance = r->rms_distance = NAN;
        for (int s = 0; s < w->n_sets; s++) r->force_error[s] = NAN;
        pbd_exp_reference_compare_log(r, w);
        return;
    }
    double max_d = 0.0, sum = 0.0;
    for (int i = 0; i < w->n; i++) {
        double d2 = 0.0;
        for (int k = 0; k < 3; k++) d2 += pow(w->x[3 * i + k] - r->x[3 * i + k], 2);
        max_d = fmax(max_d, sqrt(d2));
        sum += d2;
    }
    r->max_distance = max_d;
    r->rms_distance = w->n > 0 ? sqrt(sum / w->n) : 0.0;
    double h = w->def.dt / w->def.substeps, dt = w->def.dt;
    for (int s = 0, off = 0; s < w->n_sets; s++) {
        const pbd_constraint_set *set = &w->sets[s];
        double num = 0.0, den = 0.0;
        for (int c = 0; c < set->count; c++) {
            double f = set->lambda[c] / (h * h), fn = r->lambda[off + c] / (dt * dt);
            num += (f - fn) * (f - fn);
            den += fn * fn;
        }
        r->force_error[s] = den > 0.0 ? sqrt(num / den) : NAN;
        off += set->count;
    }
    pbd_exp_reference_compare_log(r, w);
}

void pbd_exp_reference_compare_log(pbd_exp_reference *r, const pbd_world *w)
{
    if (!r->log) return;
    pbd_h5log_set1(r->log, r->c_max, r->max_distance);
    pbd_h5log_set1(r->log, r->c_rms, r->rms_distance);
    pbd_h5log_set1(r->log, r->c_it, r->iterations);
    pbd_h5log_set1(r->log, r->c_res, r->residual);
    pbd_h5log_set1(r->log, r->c_min, r->minimum);
    for (int s = 0; s < w->n_sets; s++) pbd_h5log_set1(r->log, r->c_force[s], r->force_error[s]);
    pbd_h5log_set1(r->log, r->c_failed, r->failed);
}
