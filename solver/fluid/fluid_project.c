/* The density update of Position Based Fluids, one Jacobi iteration (PBF Algorithm 1, lines
 * 9–20), in place of the step's generic sweep.
 *
 * With C_i = ρ_i/ρ0 − 1 (constraints/fluid_density.c), V = m/ρ0 the particle volume, all
 * particles of mass m = 1/w and ∇W the kernel's gradient:
 *   ∇_i C_i = V Σ_j ∇W_ij,  ∇_j C_i = −V ∇W_ij                             (PBF Eq. 8)
 *   PBD:  λ_i = −C_i / (Σ_k w|∇_k C_i|² + w ε)                   (PBF Eq. 11, m = 1 there)
 *   XPBD: Δλ_i = (−C_i − α̃ λ_i) / (Σ_k w|∇_k C_i|² + α̃),  α̃ = α/Δt² (XPBD Eq. 18;
 *         ε is α̃/w: the paper's ε is XPBD's compliance without the α̃λ term)
 *   Δp_i = V Σ_j (wλ_i + wλ_j + s_corr_ij) ∇W_ij                           (PBF Eq. 14)
 *   s_corr_ij = −k (W(|x_i − x_j|)/W(|Δq|))^n,  |Δq| = s_corr_dq h        (PBF Eq. 13)
 * Σ_j over the row's neighbours (not i). With walls (fluid_wall.c) C_i adds ρ_wall(x_i)/ρ0,
 * ∇_i C_i its gradient and Δp_i the term wλ_i ∇ρ_wall/ρ0 (the walls do not move). wλ is the paper's λ (m², unit mass); s_corr is
 * dimensionless in the paper and is added to it as written, so its strength depends on the
 * length scale (the paper's scenes: h ~ 0.1 m). Every λ_i is computed from the same positions
 * (pass 1), then every Δp_i (pass 2), then all are applied and clamped into the container
 * (pass 3, the per-iteration collision response, lines 17–19): the passes write only their
 * own particle, so the result is the same on any number of threads, bit for bit. */
#include "fluid_private.h"
#include "solver/method.h"

#include <math.h>

double fluid_constraint(const pbd_world *w, const struct pbd_fluid_state *fs,
                        const double *pos, int k)
{
    const pbd_fluid_def *d = &fs->def;
    const pbd_constraint_set *set = &w->sets[fs->set];
    const int32_t *row = set->idx + (size_t)k * fs->arity;
    const int cnt = (int)set->rest[(size_t)k * PBD_FLUID_N_REST + 4];
    const double *xi = pos + 3 * (size_t)row[0];
    double rho = fs->mass * pbd_sph_kernel(d->kernel, 0.0, d->h);
    for (int q = 1; q < cnt; q++) {
        double dd[3];
        v3_sub(dd, xi, pos + 3 * (size_t)row[q]);
        rho += fs->mass * pbd_sph_kernel(d->kernel, v3_norm(dd), d->h);
    }
    return rho / d->rest_density + fluid_wall(fs, xi, NULL) - 1.0;
}

/* The error a particle's C counts as: |C|, or max(C, 0) for a unilateral fluid. */
static double error_of(const pbd_fluid_def *d, double C)
{
    return d->unilateral ? (C > 0.0 ? C : 0.0) : fabs(C);
}

static void summarize(const struct pbd_fluid_state *fs, double *max, double *mean)
{
    double m = 0.0, s = 0.0;
    for (int k = 0; k < fs->count; k++) { /* serial: the same sum on any threads */
        if (fs->cval[k] > m) m = fs->cval[k];
        s += fs->cval[k];
    }
    *max = m;
    *mean = fs->count > 0 ? s / fs->count : 0.0;
}

void fluid_errors(const pbd_world *w, const struct pbd_fluid_state *fs, const double *pos,
                  double *max, double *mean)
{
#pragma omp parallel for num_threads(fs->threads) if (fs->threads > 1) schedule(static)
    for (int k = 0; k < fs->count; k++)
        fs->cval[k] = error_of(&fs->def, fluid_constraint(w, fs, pos, k));
    summarize(fs, max, mean);
}

/* Pass 1: λ_i (PBD) or Δλ_i (XPBD) of row k into fs->lam[k], λ accumulated in the set; the
 * error into fs->cval[k]. Returns 1 when the row had nothing to move (skipped). */
static int multiplier(pbd_world *w, struct pbd_fluid_state *fs, int k, double alpha_tilde,
                      int xpbd)
{
    const pbd_fluid_def *d = &fs->def;
    pbd_constraint_set *set = &w->sets[fs->set];
    const int32_t *row = set->idx + (size_t)k * fs->arity;
    const int cnt = (int)set->rest[(size_t)k * PBD_FLUID_N_REST + 4];
    const double *xi = w->p + 3 * (size_t)row[0], vol = fs->mass / d->rest_density;
    double rho = fs->mass * pbd_sph_kernel(d->kernel, 0.0, d->h), gi[3] = {0, 0, 0}, sum2 = 0.0;
    for (int q = 1; q < cnt; q++) {
        double dd[3];
        v3_sub(dd, xi, w->p + 3 * (size_t)row[q]);
        double r = v3_norm(dd);
        rho += fs->mass * pbd_sph_kernel(d->kernel, r, d->h);
        if (!(r > 0.0)) continue; /* coincident: no direction (spiky), ∇W = 0 (poly6) */
        double f = vol * pbd_sph_kernel_dr(d->kernel, r, d->h) / r; /* ∇_j C_i = −f dd */
        v3_axpy(gi, f, dd);
        sum2 += f * f * v3_dot(dd, dd);
    }
    double gw[3]; /* the walls: ρ_wall/ρ0 and its gradient (fluid_wall.c) */
    double C = rho / d->rest_density + fluid_wall(fs, xi, gw) - 1.0;
    v3_add(gi, gi, gw);
    if (d->unilateral && C < 0.0) C = 0.0;
    fs->cval[k] = fabs(C);
    double denom = fs->inv_mass * (v3_dot(gi, gi) + sum2);
    double dl;
    if (xpbd) {
        denom += alpha_tilde;
        dl = denom > 0.0 ? (-C - alpha_tilde * set->lambda[k]) / denom : 0.0;
    } else {
        denom += fs->inv_mass * d->epsilon;
        dl = denom > 0.0 ? -C / denom : 0.0;
    }
    fs->lam[k] = dl;
    set->lambda[k] += dl;
    return !(denom > 0.0);
}

/* Pass 2: Δp of row k into fs->dp (PBF Eq. 13–14). */
static void correction(const pbd_world *w, struct pbd_fluid_state *fs, int k, double w_scorr0)
{
    const pbd_fluid_def *d = &fs->def;
    const pbd_constraint_set *set = &w->sets[fs->set];
    const int32_t *row = set->idx + (size_t)k * fs->arity;
    const int cnt = (int)set->rest[(size_t)k * PBD_FLUID_N_REST + 4];
    const double *xi = w->p + 3 * (size_t)row[0], vol = fs->mass / d->rest_density;
    const double wl = fs->inv_mass * fs->lam[k];
    double dp[3];
    fluid_wall(fs, xi, dp); /* the walls' part of ∇_i C_i: w λ_i ∇ρ_wall/ρ0 */
    v3_scale(dp, dp, wl);
    for (int q = 1; q < cnt; q++) {
        double dd[3];
        v3_sub(dd, xi, w->p + 3 * (size_t)row[q]);
        double r = v3_norm(dd);
        if (!(r > 0.0) || !(r < d->h)) continue;
        double s = wl + fs->inv_mass * fs->lam[row[q] - fs->first];
        if (d->s_corr && w_scorr0 > 0.0)
            s -= d->s_corr_k * pow(pbd_sph_kernel(d->kernel, r, d->h) / w_scorr0, d->s_corr_n);
        v3_axpy(dp, s * vol * pbd_sph_kernel_dr(d->kernel, r, d->h) / r, dd);
    }
    v3_copy(fs->dp + 3 * (size_t)k, dp);
}

pbd_status pbd_fluid_check(const pbd_world *w)
{
    static const char *const schemes[] = {"gauss-seidel", "jacobi", "colored"};
    const struct pbd_fluid_state *fs = w->fluid;
    if (!fs) return PBD_OK;
    if (w->n_sets != 1 || w->collision_stages || w->n_attach > 0 ||
        w->def.scheme != PBD_SCHEME_GAUSS_SEIDEL)
        return pbd_error(PBD_EINVAL, "fluid: expected the fluid's density set alone (no other "
                         "set, collider or attachment) and scheme gauss-seidel, found %d sets, "
                         "%d attachments, scheme %s: the fluid's update is its own Jacobi "
                         "iteration (solver/fluid/README.md)", w->n_sets, w->n_attach,
                         (unsigned)w->def.scheme < 3 ? schemes[w->def.scheme] : "?");
    if (pbd_method_of(&w->def)->compliance && !(w->sets[fs->set].compliance[0] > 0.0))
        return pbd_error(PBD_EINVAL, "fluid: expected a compliance > 0 under --method=xpbd, found "
                         "0: XPBD's compliance is the density update's relaxation (PBF's "
                         "epsilon, Eq. 11, is alpha/(w dt^2)), without it the denominator "
                         "vanishes for a particle with few neighbours (solver/fluid/README.md "
                         "\"Known limits\")");
    return PBD_OK;
}

int fluid_project(pbd_world *w, double h)
{
    struct pbd_fluid_state *fs = w->fluid;
    const pbd_fluid_def *d = &fs->def;
    if (pbd_fluid_check(w) != PBD_OK) return -1;
    const int xpbd = pbd_method_of(&w->def)->compliance, n = fs->count, nt = fs->threads;
    const double alpha_tilde = w->sets[fs->set].compliance[0] / (h * h);
    const double w_scorr0 = pbd_sph_kernel(d->kernel, d->s_corr_dq * d->h, d->h);
    int skipped = 0;
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
#pragma omp for schedule(static) reduction(+ : skipped)
        for (int k = 0; k < n; k++) skipped += multiplier(w, fs, k, alpha_tilde, xpbd);
#pragma omp for schedule(static)
        for (int k = 0; k < n; k++) correction(w, fs, k, w_scorr0);
#pragma omp for schedule(static)
        for (int k = 0; k < n; k++) {
            double *p = w->p + 3 * (size_t)(fs->first + k);
            for (int c = 0; c < 3; c++) {
                double v = p[c] + fs->dp[3 * (size_t)k + c];
                p[c] = v < d->box_lo[c] ? d->box_lo[c] : v > d->box_hi[c] ? d->box_hi[c] : v;
            }
        }
    }
    int it = fs->iteration;
    double emax, emean;
    summarize(fs, &emax, &emean); /* the errors before this iteration's update */
    if (it < fs->err_capacity) {
        fs->err_max[it] = emax;
        fs->err_mean[it] = emean;
    }
    if (it == 0) {
        fs->stats.error_max0 = emax;
        fs->stats.error_mean0 = emean;
    }
    fs->iteration = ++it;
    if (it == w->def.iterations) { /* after the last: the step's density error */
        fluid_errors(w, fs, w->p, &fs->stats.error_max, &fs->stats.error_mean);
        if (it < fs->err_capacity) {
            fs->err_max[it] = fs->stats.error_max;
            fs->err_mean[it] = fs->stats.error_mean;
        }
    }
    return skipped;
}
