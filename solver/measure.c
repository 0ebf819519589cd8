/* Residuals, momenta and energies that the step reports: per constraint set, in the unit of
 * its type's C (DESIGN.md "The constraint is the unit"), and over the world. */
#include "pbd.h"
#include "solver_private.h"
#include "variants.h"

#include <math.h>

/* One set at pos: max |C| and ||C||_2 over its equality constraints and violated
 * inequalities (C < 0), the XPBD residual ||C + α̃λ||_2 (α̃ = α alpha_scale, XPBD Eq. 9)
 * over the same constraints plus inequalities holding a multiplier (λ != 0), and, when
 * energy != 0, the elastic energy Σ C²/(2α) of its counted constraints with α > 0 (XPBD
 * Eq. 4: U = ½ Cᵀ α⁻¹ C). A degenerate evaluation counts when its C is finite. A type
 * without a scalar C (shape matching) has no residual and no energy: zeros. */
static void set_residuals(pbd_world *w, const pbd_constraint_set *set, const double *pos,
                          double alpha_scale, int energy, pbd_set_stats *out)
{
    double mx = 0.0, sum = 0.0, sum_x = 0.0, elastic = 0.0;
    int active = 0, at = -1, degenerate = 0;
    for (int c = 0; set->type->eval && c < set->count; c++) { /* no scalar C: no residual */
        pbd_eval_input in;
        pbd_gather(w, set, c, pos, &in);
        double C;
        int st = set->type->eval(&in, &C, NULL);
        degenerate += st != PBD_EVAL_OK;
        if (st != PBD_EVAL_OK && !isfinite(C)) continue;
        double lambda = set->lambda[c], alpha = set->compliance[c];
        double r = C + alpha * alpha_scale * lambda;
        if (set->type->inequality && C >= 0.0) {
            if (lambda != 0.0) sum_x += r * r;
            continue;
        }
        if (set->type->inequality && lambda == 0.0) r = C;
        sum_x += r * r;
        double a = fabs(C);
        if (a > mx) {
            mx = a;
            at = c;
        }
        sum += C * C;
        active++;
        if (energy && alpha > 0.0) elastic += C * C / (2.0 * alpha);
    }
    out->max_c = mx;
    out->l2_c = sqrt(sum);
    out->xpbd_residual = sqrt(sum_x);
    out->elastic_energy = energy ? elastic : NAN;
    out->active = active;
    out->max_at = at;
    out->degenerate = degenerate;
}

void pbd_world_residuals_per_set(pbd_world *w, const double *pos, double alpha_scale,
                                 double *per_set, double *max_c, double *l2_c, double *xpbd)
{
    double mx = 0.0, sum = 0.0, sum_x = 0.0;
    for (int s = 0; s < w->n_sets; s++) {
        pbd_set_stats st;
        set_residuals(w, &w->sets[s], pos, alpha_scale, 0, &st);
        if (per_set) {
            per_set[3 * s] = st.max_c;
            per_set[3 * s + 1] = st.l2_c;
            per_set[3 * s + 2] = st.xpbd_residual;
        }
        mx = fmax(mx, st.max_c);
        sum += st.l2_c * st.l2_c;
        sum_x += st.xpbd_residual * st.xpbd_residual;
    }
    *max_c = mx;
    *l2_c = sqrt(sum);
    *xpbd = sqrt(sum_x);
}

void pbd_world_residuals(pbd_world *w, const double *pos, double alpha_scale, double *max_c,
                         double *l2_c, double *xpbd)
{
    pbd_world_residuals_per_set(w, pos, alpha_scale, NULL, max_c, l2_c, xpbd);
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

double pbd_xpbd_restart_move(pbd_world *w, double h, int *set_out)
{
    double worst = 0.0;
    *set_out = -1;
    for (int s = 0; s < w->n_sets; s++) {
        pbd_constraint_set *set = &w->sets[s];
        if (!set->type->eval || set->type->inequality || set->type->n_orient) continue;
        for (int c = 0; c < set->count; c++) {
            if (!(set->compliance[c] > 0.0)) continue;
            pbd_eval_input in;
            double C;
            pbd_gather(w, set, c, w->x, &in);
            if (set->type->eval(&in, &C, w->work_grad) != PBD_EVAL_OK || !isfinite(C)) continue;
            double den = set->compliance[c] / (h * h), gmax = 0.0;
            for (int j = 0; j < set->arity; j++) {
                const double *g = w->work_grad + 3 * j;
                double g2 = g[0] * g[0] + g[1] * g[1] + g[2] * g[2];
                den += w->work_w[j] * g2;
                gmax = fmax(gmax, w->work_w[j] * sqrt(g2));
            }
            double move = den > 0.0 ? fabs(C) * gmax / den : 0.0;
            if (move > worst) {
                worst = move;
                *set_out = s;
            }
        }
    }
    return worst;
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
    if (w->n_orient) { /* the segments' spin, at the world's own orientations (rods) */
        double spin[3];
        pbd_orientation_momentum(w, spin, NULL);
        for (int k = 0; k < 3; k++) ang[k] += spin[k];
    }
}

/* Stats after a step whose last (sub)step was h: per set and overall residuals (the XPBD
 * one with that substep's α̃ = α/h²), elastic energy when `energy` (the compliance α is the
 * model: XPBD, the Newton reference; PBD's stiffness k has no energy: NaN), momenta, kinetic and gravitational energy of the free particles, at x and v of
 * the step's end (v of its last substep). */
void pbd_measure(pbd_world *w, double h, int energy)
{
    pbd_step_stats *st = &w->stats;
    double mx = 0.0, sum = 0.0, sum_x = 0.0, elastic = energy ? 0.0 : NAN;
    st->degenerate = 0;
    for (int s = 0; s < w->n_sets; s++) {
        pbd_set_stats *ss = &w->sets[s].stats;
        set_residuals(w, &w->sets[s], w->x, 1.0 / (h * h), energy, ss);
        st->degenerate += ss->degenerate;
        mx = fmax(mx, ss->max_c);
        sum += ss->l2_c * ss->l2_c;
        sum_x += ss->xpbd_residual * ss->xpbd_residual;
        if (energy) elastic += ss->elastic_energy;
        ss->step = w->step_count;
    }
    st->max_c = mx;
    st->l2_c = sqrt(sum);
    st->xpbd_residual = sqrt(sum_x);
    pbd_momentum(w, w->x, w->v, st->linear_momentum, st->angular_momentum);
    double ke = 0.0, pe = 0.0;
    for (int i = 0; i < w->n; i++) {
        if (w->w[i] <= 0.0) continue;
        double m = 1.0 / w->w[i];
        const double *v = w->v + 3 * i, *x = w->x + 3 * i;
        ke += 0.5 * m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        pe -= m * (w->def.gravity[0] * x[0] + w->def.gravity[1] * x[1] + w->def.gravity[2] * x[2]);
    }
    if (w->n_orient) { /* rods: ½ ω·I ω of the segments */
        double spin[3], ke_rot;
        pbd_orientation_momentum(w, spin, &ke_rot);
        ke += ke_rot;
    }
    st->kinetic_energy = ke;
    st->gravitational_energy = pe;
    st->elastic_energy = elastic;
    st->total_energy = ke + pe + (energy ? elastic : 0.0);
    st->step = w->step_count;
}
