/* A planar chain of rigid links pinned end to end, the first to a fixed pivot, swinging under
 * gravity: the independent reference for the XPBD hinge chains (solver/rigid/). Angles θ_j
 * from the downward vertical; link i's centre c_i = Σ_{j<i} l_j e(θ_j) + a_i e(θ_i),
 * e(θ) = (sin θ, −cos θ). With L_ij = l_j (j < i), a_i (j = i), 0 (j > i) the Lagrangian
 * T − V, T = ½ Σ_i (m_i |ċ_i|² + I_i θ̇_i²), V = −g Σ_j ν_j cos θ_j, ν_j = Σ_i m_i L_ij,
 * gives, with μ_jk = Σ_i m_i L_ij L_ik and M_jk = μ_jk cos(θ_j − θ_k) + δ_jk I_j,
 *   Σ_k M_jk θ̈_k = −Σ_k μ_jk sin(θ_j − θ_k) θ̇_k² − g ν_j sin θ_j,
 * solved for θ̈ by LU (gsl_linalg) and integrated by gsl_odeiv2's rk8pd. */
#include "pbd_analysis.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_odeiv2.h>
#include <math.h>
#include <string.h>

typedef struct {
    int n;
    double mu[PBD_CHAIN_MAX * PBD_CHAIN_MAX], nu[PBD_CHAIN_MAX], inertia[PBD_CHAIN_MAX], g;
} chain;

static int rhs(double t, const double *y, double *dy, void *p)
{
    (void)t;
    const chain *c = p;
    int n = c->n;
    double M[PBD_CHAIN_MAX * PBD_CHAIN_MAX], b[PBD_CHAIN_MAX], acc[PBD_CHAIN_MAX];
    for (int j = 0; j < n; j++) {
        b[j] = -c->g * c->nu[j] * sin(y[j]);
        for (int k = 0; k < n; k++) {
            double mu = c->mu[j * n + k];
            M[j * n + k] = mu * cos(y[j] - y[k]) + (j == k ? c->inertia[j] : 0.0);
            b[j] -= mu * sin(y[j] - y[k]) * y[n + k] * y[n + k];
        }
    }
    gsl_matrix_view Mv = gsl_matrix_view_array(M, (size_t)n, (size_t)n);
    gsl_vector_view bv = gsl_vector_view_array(b, (size_t)n), av = gsl_vector_view_array(acc, (size_t)n);
    gsl_permutation perm = {(size_t)n, (size_t *)NULL};
    size_t pd[PBD_CHAIN_MAX];
    perm.data = pd;
    int sign;
    if (gsl_linalg_LU_decomp(&Mv.matrix, &perm, &sign) ||
        gsl_linalg_LU_solve(&Mv.matrix, &perm, &bv.vector, &av.vector))
        return GSL_EBADFUNC;
    for (int j = 0; j < n; j++) {
        dy[j] = y[n + j];
        dy[n + j] = acc[j];
    }
    return GSL_SUCCESS;
}

pbd_status pbd_planar_chain(int n, const double *mass, const double *length,
                            const double *inertia, double g, const double *theta0,
                            double t_end, int samples, double *theta)
{
    if (n < 1 || n > PBD_CHAIN_MAX || samples < 1 || !(t_end > 0.0))
        return pbd_error(PBD_EINVAL, "planar chain: expected 1..%d links, samples >= 1 and "
                         "t_end > 0, found %d links, %d samples, t_end %g", PBD_CHAIN_MAX, n,
                         samples, t_end);
    chain c;
    memset(&c, 0, sizeof c);
    c.n = n;
    c.g = g;
    for (int i = 0; i < n; i++) {
        if (!(mass[i] > 0.0 && length[i] > 0.0 && inertia[i] > 0.0))
            return pbd_error(PBD_EINVAL, "planar chain link %d: expected mass, length and "
                             "inertia > 0, found %g kg, %g m, %g kg m^2", i, mass[i],
                             length[i], inertia[i]);
        c.inertia[i] = inertia[i];
        for (int j = 0; j <= i; j++) {
            double Lij = j < i ? length[j] : 0.5 * length[i];
            c.nu[j] += mass[i] * Lij;
            for (int k = 0; k <= i; k++) {
                double Lik = k < i ? length[k] : 0.5 * length[i];
                c.mu[j * n + k] += mass[i] * Lij * Lik;
            }
        }
    }
    gsl_odeiv2_system sys = {rhs, NULL, (size_t)(2 * n), &c};
    gsl_odeiv2_driver *d = gsl_odeiv2_driver_alloc_y_new(&sys, gsl_odeiv2_step_rk8pd, 1e-6,
                                                         1e-13, 1e-13);
    if (!d) return pbd_error(PBD_ENOMEM, "planar chain: out of memory for the integrator");
    double y[2 * PBD_CHAIN_MAX] = {0}, t = 0.0;
    for (int j = 0; j < n; j++) y[j] = theta0[j];
    pbd_status st = PBD_OK;
    for (int s = 1; s <= samples && st == PBD_OK; s++) {
        if (gsl_odeiv2_driver_apply(d, &t, t_end * s / samples, y) != GSL_SUCCESS)
            st = pbd_error(PBD_ENUMERIC, "planar chain: the integrator failed at t = %g s", t);
        for (int j = 0; j < n; j++) theta[(s - 1) * n + j] = y[j];
    }
    gsl_odeiv2_driver_free(d);
    return st;
}
