/* The fluid's velocity pass after v = (p − x)/Δt (PBF Algorithm 1, lines 22–24), with the
 * (sub)step's neighbour lists, V = m/ρ0 the particle volume and v_ij = v_j − v_i:
 *   vorticity  ω_i = Σ_j V v_ij × ∇_j W_ij,  ∇_j W_ij = −∇W(x_i − x_j)          (PBF Eq. 15)
 *   confinement: η_i = Σ_j V (|ω_j| − |ω_i|) ∇W(x_i − x_j) (the SPH gradient of |ω|),
 *              N = η/|η|, v_i += Δt ε_v (N × ω_i)                             (PBF Eq. 16)
 *   XSPH       v_i += c Σ_j V v_ij W_ij                                       (PBF Eq. 17)
 * The paper writes the sums without V: with it ω is a curl (1/s), ε_v is in m/s and
 * Σ_j V W_ij ≈ 1 makes c the fraction of the neighbours' mean relative velocity taken.
 * Kernels: the density kernel's W and gradient (PBD_SPH_PBF: poly6's W, spiky's ∇W). Each
 * pass writes only its own particle (into scratch, applied after): thread independent. */
#include "fluid_private.h"

#include <math.h>

static const int32_t *row_of(const pbd_world *w, const struct pbd_fluid_state *fs, int k,
                             int *cnt)
{
    const pbd_constraint_set *set = &w->sets[fs->set];
    *cnt = (int)set->rest[(size_t)k * PBD_FLUID_N_REST + 4];
    return set->idx + (size_t)k * fs->arity;
}

/* ∇W(x_i − x_j) with d = x_i − x_j; 0 outside the support or at r = 0. */
static void grad_w(const pbd_fluid_def *d, const double *dd, double *g)
{
    double r = v3_norm(dd);
    v3_zero(g);
    if (r > 0.0 && r < d->h) v3_scale(g, dd, pbd_sph_kernel_dr(d->kernel, r, d->h) / r);
}

static void vorticity_of(const pbd_world *w, const struct pbd_fluid_state *fs, int k)
{
    int cnt;
    const int32_t *row = row_of(w, fs, k, &cnt);
    const double vol = fs->mass / fs->def.rest_density;
    const double *xi = w->x + 3 * (size_t)row[0], *vi = w->v + 3 * (size_t)row[0];
    double om[3] = {0, 0, 0};
    for (int q = 1; q < cnt; q++) {
        double dd[3], g[3], vij[3], c[3];
        v3_sub(dd, xi, w->x + 3 * (size_t)row[q]);
        grad_w(&fs->def, dd, g);
        v3_sub(vij, w->v + 3 * (size_t)row[q], vi);
        v3_cross(c, vij, g); /* v_ij × ∇_j W_ij = −v_ij × ∇W(x_i − x_j) */
        v3_axpy(om, -vol, c);
    }
    v3_copy(fs->omega + 3 * (size_t)k, om);
}

static void new_velocity(const pbd_world *w, struct pbd_fluid_state *fs, int k, double h)
{
    const pbd_fluid_def *d = &fs->def;
    int cnt;
    const int32_t *row = row_of(w, fs, k, &cnt);
    const double vol = fs->mass / d->rest_density;
    const double *xi = w->x + 3 * (size_t)row[0], *vi = w->v + 3 * (size_t)row[0];
    const double *oi = fs->omega + 3 * (size_t)k;
    double eta[3] = {0, 0, 0}, visc[3] = {0, 0, 0}, oin = v3_norm(oi);
    for (int q = 1; q < cnt; q++) {
        int j = row[q];
        double dd[3], g[3], vij[3];
        v3_sub(dd, xi, w->x + 3 * (size_t)j);
        if (d->vorticity > 0.0) {
            grad_w(d, dd, g);
            v3_axpy(eta, vol * (v3_norm(fs->omega + 3 * (size_t)(j - fs->first)) - oin), g);
        }
        if (d->xsph > 0.0) {
            v3_sub(vij, w->v + 3 * (size_t)j, vi);
            v3_axpy(visc, vol * pbd_sph_kernel(d->kernel, v3_norm(dd), d->h), vij);
        }
    }
    double *vn = fs->vnew + 3 * (size_t)k;
    v3_copy(vn, vi);
    v3_axpy(vn, d->xsph, visc);
    double en = v3_norm(eta);
    if (d->vorticity > 0.0 && en > 0.0) {
        double N[3], f[3];
        v3_scale(N, eta, 1.0 / en);
        v3_cross(f, N, oi);
        v3_axpy(vn, h * d->vorticity, f);
    }
}

void fluid_velocity_update(pbd_world *w, double h)
{
    struct pbd_fluid_state *fs = w->fluid;
    if (!(fs->def.vorticity > 0.0) && !(fs->def.xsph > 0.0)) return;
    const int n = fs->count, nt = fs->threads;
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        if (fs->def.vorticity > 0.0) {
#pragma omp for schedule(static)
            for (int k = 0; k < n; k++) vorticity_of(w, fs, k);
        }
#pragma omp for schedule(static)
        for (int k = 0; k < n; k++) new_velocity(w, fs, k, h);
#pragma omp for schedule(static)
        for (int k = 0; k < n; k++) v3_copy(w->v + 3 * (size_t)(fs->first + k), fs->vnew + 3 * (size_t)k);
    }
}
