/* The measure stage of the step: residuals, momenta and energies. */
#include "pbd.h"
#include "solver_private.h"
#include "variants.h"

#include <math.h>

/* max |C| and ||C||_2 over equality constraints and violated inequalities at pos, and the
 * XPBD residual ||C + α̃λ||_2 (α̃ = α alpha_scale) of XPBD Eq. 9 over the same constraints
 * plus inequalities holding a multiplier (λ != 0). */
void pbd_world_residuals(pbd_world *w, const double *pos, double alpha_scale, double *max_c,
                         double *l2_c, double *xpbd)
{
    double mx = 0.0, sum = 0.0, sum_x = 0.0;
    for (int s = 0; s < w->n_sets; s++) {
        pbd_constraint_set *set = &w->sets[s];
        if (!set->type->eval) continue; /* no scalar C: no residual (shape matching) */
        for (int c = 0; c < set->count; c++) {
            pbd_eval_input in;
            pbd_gather(w, set, c, pos, &in);
            double C;
            if (set->type->eval(&in, &C, NULL) != PBD_EVAL_OK && !isfinite(C)) continue;
            double lambda = set->lambda[c];
            double r = C + set->compliance[c] * alpha_scale * lambda;
            if (set->type->inequality && C >= 0.0) {
                if (lambda != 0.0) sum_x += r * r;
                continue;
            }
            if (set->type->inequality && lambda == 0.0) r = C;
            sum_x += r * r;
            double a = fabs(C);
            if (a > mx) mx = a;
            sum += C * C;
        }
    }
    *max_c = mx;
    *l2_c = sqrt(sum);
    *xpbd = sqrt(sum_x);
}

void pbd_world_residual(pbd_world *w, const double *pos, double *max_c, double *l2_c)
{
    double xpbd;
    pbd_world_residuals(w, pos, 0.0, max_c, l2_c, &xpbd);
}

double pbd_world_xpbd_residual(pbd_world *w, const double *pos, double alpha_scale)
{
    double max_c, l2_c, xpbd;
    pbd_world_residuals(w, pos, alpha_scale, &max_c, &l2_c, &xpbd);
    return xpbd;
}

void pbd_momentum(const pbd_world *w, const double *pos, const double *vel, double lin[3],
                  double ang[3])
{
    for (int k = 0; k < 3; k++) lin[k] = ang[k] = 0.0;
    for (int i = 0; i < w->n; i++) {
        if (w->w[i] <= 0.0) continue;
        double m = 1.0 / w->w[i];
        const double *x = pos + 3 * i, *v = vel + 3 * i;
        lin[0] += m * v[0]; lin[1] += m * v[1]; lin[2] += m * v[2];
        ang[0] += m * (x[1] * v[2] - x[2] * v[1]);
        ang[1] += m * (x[2] * v[0] - x[0] * v[2]);
        ang[2] += m * (x[0] * v[1] - x[1] * v[0]);
    }
}

/* Stats after a step whose last (sub)step was h: residuals (the XPBD one with that
 * substep's α̃ = α/h²), momenta and energies. */
void pbd_measure(pbd_world *w, double h)
{
    pbd_step_stats *st = &w->stats;
    pbd_world_residuals(w, w->x, 1.0 / (h * h), &st->max_c, &st->l2_c, &st->xpbd_residual);
    pbd_momentum(w, w->x, w->v, st->linear_momentum, st->angular_momentum);
    double ke = 0.0, pe = 0.0;
    for (int i = 0; i < w->n; i++) {
        if (w->w[i] <= 0.0) continue;
        double m = 1.0 / w->w[i];
        const double *v = w->v + 3 * i, *x = w->x + 3 * i;
        ke += 0.5 * m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        pe -= m * (w->def.gravity[0] * x[0] + w->def.gravity[1] * x[1] + w->def.gravity[2] * x[2]);
    }
    st->kinetic_energy = ke;
    st->potential_energy = pe;
}
