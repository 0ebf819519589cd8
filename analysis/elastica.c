/* The elastica of a cantilever under its own weight (Euler–Bernoulli, inextensible, large
 * deflection): the analytic reference of the rod_cantilever experiment. With s the arclength
 * from the clamp over the length L, θ(s) the tangent's angle below the horizontal and
 * Λ = w L³/(E I) the load (w the weight per length), the moment balance M'(s) = −w (L − s)
 * cos θ with M = E I θ' gives, in s̃ = s/L,
 *   θ'' = −Λ (1 − s̃) cos θ,   θ(0) = 0 (clamped),   θ'(1) = 0 (free end: no moment),
 * a boundary value problem solved by shooting on κ0 = θ'(0): GSL's Runge–Kutta–Prince–Dormand
 * (8, 9) integrator (gsl_odeiv2) from s̃ = 0 to 1, and Brent's method (gsl_root) on
 * θ'(1; κ0) = 0 in [0, Λ/2]: at κ0 = 0 the end bends back (θ'(1) < 0), at the small-
 * deflection value κ0 = Λ/2 it does not (θ'(1) >= 0 since cos θ <= 1). The tip's deflection
 * and reach are δ/L = ∫ sin θ ds̃ and x/L = ∫ cos θ ds̃ (integrated alongside). Small loads:
 * θ ≈ Λ (1 − (1 − s̃)³)/6, δ/L ≈ Λ/8, i.e. δ = wL⁴/(8EI). */
#include "analysis_private.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>
#include <gsl/gsl_roots.h>

typedef struct elastica {
    double load;
} elastica;

/* y = (θ, θ', x̃, ỹ) */
static int rhs(double s, const double y[], double dyds[], void *params)
{
    const elastica *e = params;
    dyds[0] = y[1];
    dyds[1] = -e->load * (1.0 - s) * cos(y[0]);
    dyds[2] = cos(y[0]);
    dyds[3] = sin(y[0]);
    return GSL_SUCCESS;
}

static int shoot(double load, double kappa0, double y[4])
{
    elastica e = {load};
    gsl_odeiv2_system sys = {rhs, NULL, 4, &e};
    gsl_odeiv2_driver *d = gsl_odeiv2_driver_alloc_y_new(&sys, gsl_odeiv2_step_rk8pd, 1e-4,
                                                         1e-13, 1e-13);
    if (!d) return GSL_ENOMEM;
    double s = 0.0;
    y[0] = 0.0; y[1] = kappa0; y[2] = 0.0; y[3] = 0.0;
    int st = gsl_odeiv2_driver_apply(d, &s, 1.0, y);
    gsl_odeiv2_driver_free(d);
    return st;
}

static double end_moment(double kappa0, void *params)
{
    double y[4];
    if (shoot(*(const double *)params, kappa0, y) != GSL_SUCCESS) return NAN;
    return y[1];
}

pbd_status pbd_elastica_cantilever(double load, double *deflection, double *reach,
                                   double *root_curvature)
{
    if (!(load >= 0.0 && load <= 1e4))
        return pbd_error(PBD_EINVAL, "elastica: load w L^3/(E I): expected a value in [0, 1e4], "
                         "found %g", load);
    double kappa = 0.0, y[4] = {0, 0, 1, 0};
    if (load > 0.0) {
        gsl_error_handler_t *old = gsl_set_error_handler_off();
        gsl_function f = {end_moment, &load};
        gsl_root_fsolver *rs = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
        int st = rs ? gsl_root_fsolver_set(rs, &f, 0.0, 0.5 * load) : GSL_ENOMEM;
        for (int it = 0; st == GSL_SUCCESS && it < 200; it++) {
            st = gsl_root_fsolver_iterate(rs);
            kappa = gsl_root_fsolver_root(rs);
            double lo = gsl_root_fsolver_x_lower(rs), hi = gsl_root_fsolver_x_upper(rs);
            if (gsl_root_test_interval(lo, hi, 0.0, 1e-14) == GSL_SUCCESS) break;
        }
        if (rs) gsl_root_fsolver_free(rs);
        if (st == GSL_SUCCESS) st = shoot(load, kappa, y);
        gsl_set_error_handler(old);
        if (st != GSL_SUCCESS)
            return pbd_error(PBD_ENUMERIC, "elastica: load %g: the shooting did not converge "
                             "(%s)", load, gsl_strerror(st));
    }
    if (deflection) *deflection = y[3]; /* δ/L: θ is measured downward */
    if (reach) *reach = y[2];
    if (root_curvature) *root_curvature = kappa;
    return PBD_OK;
}
