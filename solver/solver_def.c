/* The solver definition: defaults and validation. */
#include "pbd.h"
#include "solver/method.h"

#include <math.h>
#include <stdio.h>

pbd_solver_def pbd_solver_def_default(void)
{
    pbd_solver_def d = {
        .dt = 1.0 / 60.0,
        .iterations = 10,
        .substeps = 1,
        .gravity = {0.0, -9.81, 0.0},
        .method = PBD_METHOD_PBD,
        .linearize_stiffness = 0,
        .scheme = PBD_SCHEME_GAUSS_SEIDEL,
        .sor_omega = 1.0,
        .threads = 0,
        .damping = PBD_DAMPING_NONE,
        .k_damping = 0.0,
        .xpbd_beta = 0.0,
        .record_iterations = 0,
        .rod_projection = PBD_ROD_GENERIC,
        .kernels = 1,
        .sort_by_colour = 0,
        .measure_every = 1,
        .watch_position = 1e6,
        .watch_residual = 1e6,
        .newton_tol = 1e-8,
        .newton_max_iterations = 200,
        .newton_solver = PBD_NEWTON_AUTO,
        .vbd_init = PBD_VBD_INIT_ADAPTIVE,
        .vbd_chebyshev_rho = 0.0,
        .vbd_order = PBD_VBD_ORDER_COLOUR,
        .vbd_damping = 0.0,
        .vbd_contact_stiffness = 0.0,
        .avbd_beta = 1e5,
        .avbd_alpha = 0.95,
        .avbd_gamma = 0.99,
        .avbd_k_start = 0.0,
    };
    return d;
}

pbd_status pbd_solver_def_validate(const pbd_solver_def *d)
{
    if (!(isfinite(d->dt) && d->dt > 0.0))
        return pbd_error(PBD_EINVAL, "dt: expected a finite number > 0, found %g", d->dt);
    if (d->iterations < 1)
        return pbd_error(PBD_EINVAL, "iterations: expected an integer >= 1, found %d",
                         d->iterations);
    if (d->substeps < 1)
        return pbd_error(PBD_EINVAL, "substeps: expected an integer >= 1, found %d", d->substeps);
    for (int i = 0; i < 3; i++)
        if (!(isfinite(d->gravity[i]) && fabs(d->gravity[i]) <= 1e100))
            return pbd_error(PBD_EINVAL, "gravity: expected components of at most 1e100 m/s^2, "
                             "found %g", d->gravity[i]);
    /* what a step cannot run: the XPBD α̃ = α/h² and the PBD velocity (p - x)/h need 1/h²
     * finite, and one (sub)step's free fall h²|g| must leave room for squared distances */
    double h = d->dt / d->substeps;
    if (!isfinite(1.0 / (h * h)) || d->dt > 1e6)
        return pbd_error(PBD_EINVAL, "dt: expected a time step in [1e-150, 1e6] s per substep "
                         "(1/dt^2 finite), found dt = %g s over %d substeps", d->dt, d->substeps);
    double g = fabs(d->gravity[0]) + fabs(d->gravity[1]) + fabs(d->gravity[2]);
    if (h * h * g > 1e100)
        return pbd_error(PBD_EINVAL, "dt, gravity: expected a free fall per substep dt^2 |g| of "
                         "at most 1e100 m, found %g m (dt %g s, |g| %g m/s^2)", h * h * g, h, g);
    if (!(isfinite(d->sor_omega) && d->sor_omega > 0.0 && d->sor_omega <= 2.0))
        return pbd_error(PBD_EINVAL, "sor-omega: expected a number in (0, 2], found %g",
                         d->sor_omega);
    if (!(isfinite(d->k_damping) && d->k_damping >= 0.0 && d->k_damping <= 1.0))
        return pbd_error(PBD_EINVAL, "k-damping: expected a number in [0, 1], found %g",
                         d->k_damping);
    if (!(isfinite(d->xpbd_beta) && d->xpbd_beta >= 0.0))
        return pbd_error(PBD_EINVAL, "xpbd-damping: expected a finite number >= 0, found %g",
                         d->xpbd_beta);
    if ((int)d->method < 0 || (int)d->method >= pbd_method_count()) {
        char names[256] = "";
        for (int i = 0, at = 0; i < pbd_method_count() && at < (int)sizeof names; i++)
            at += snprintf(names + at, sizeof names - (size_t)at, "%s%d (%s)", i ? ", " : "",
                           i, pbd_method_name(i));
        return pbd_error(PBD_EINVAL, "method: expected one of %s, found %d", names,
                         (int)d->method);
    }
    if ((int)d->vbd_init < 0 || d->vbd_init > PBD_VBD_INIT_ADAPTIVE)
        return pbd_error(PBD_EINVAL, "vbd-init: expected 0 .. 3 (previous, inertia, "
                         "acceleration, adaptive), found %d", (int)d->vbd_init);
    if (!(d->vbd_chebyshev_rho >= 0.0 && d->vbd_chebyshev_rho < 1.0))
        return pbd_error(PBD_EINVAL, "vbd-chebyshev: expected a spectral radius rho in [0, 1), "
                         "found %g", d->vbd_chebyshev_rho);
    if ((int)d->rod_projection < 0 || d->rod_projection > PBD_ROD_CLOSED_FORM)
        return pbd_error(PBD_EINVAL, "rod-projection: expected 0 or 1 (generic, closed-form), "
                         "found %d", (int)d->rod_projection);
    if ((int)d->vbd_order < 0 || d->vbd_order > PBD_VBD_ORDER_INDEX)
        return pbd_error(PBD_EINVAL, "vbd-order: expected 0 or 1 (colour, index), found %d",
                         (int)d->vbd_order);
    if (!(isfinite(d->vbd_damping) && d->vbd_damping >= 0.0))
        return pbd_error(PBD_EINVAL, "vbd-damping: expected a finite number >= 0 (s), found %g",
                         d->vbd_damping);
    if (!(isfinite(d->vbd_contact_stiffness) && d->vbd_contact_stiffness >= 0.0))
        return pbd_error(PBD_EINVAL, "vbd-contact-stiffness: expected a finite number >= 0 "
                         "(N/m; 0: auto), found %g", d->vbd_contact_stiffness);
    if (!(isfinite(d->avbd_beta) && d->avbd_beta >= 0.0))
        return pbd_error(PBD_EINVAL, "avbd-beta: expected a finite number >= 0, found %g",
                         d->avbd_beta);
    if (!(d->avbd_alpha >= 0.0 && d->avbd_alpha <= 1.0))
        return pbd_error(PBD_EINVAL, "avbd-alpha: expected a number in [0, 1], found %g",
                         d->avbd_alpha);
    if (!(d->avbd_gamma >= 0.0 && d->avbd_gamma <= 1.0))
        return pbd_error(PBD_EINVAL, "avbd-gamma: expected a number in [0, 1], found %g",
                         d->avbd_gamma);
    if (!(isfinite(d->avbd_k_start) && d->avbd_k_start >= 0.0))
        return pbd_error(PBD_EINVAL, "avbd-k-start: expected a finite number >= 0 (0: auto), "
                         "found %g", d->avbd_k_start);
    if (!(isfinite(d->newton_tol) && d->newton_tol >= 0.0))
        return pbd_error(PBD_EINVAL, "newton-tol: expected a finite number >= 0, found %g",
                         d->newton_tol);
    if (d->newton_max_iterations < 1 || d->newton_max_iterations > 10000)
        return pbd_error(PBD_EINVAL, "newton-max-iterations: expected an integer in [1, 10000], "
                         "found %d", d->newton_max_iterations);
    if ((int)d->newton_solver < 0 || d->newton_solver > PBD_NEWTON_DENSE)
        return pbd_error(PBD_EINVAL, "newton-solver: expected 0 .. 3 (auto, umfpack, cholmod, "
                         "dense), found %d", (int)d->newton_solver);
    if ((int)d->scheme < 0 || d->scheme > PBD_SCHEME_COLORED_GS)
        return pbd_error(PBD_EINVAL, "scheme: expected 0, 1 or 2 (gauss-seidel, jacobi, "
                         "colored), found %d", (int)d->scheme);
    if ((int)d->damping < 0 || d->damping > PBD_DAMPING_MOMENTUM)
        return pbd_error(PBD_EINVAL, "damping: expected 0, 1 or 2 (none, scale, momentum), "
                         "found %d", (int)d->damping);
    if (d->kernels != 0 && d->kernels != 1)
        return pbd_error(PBD_EINVAL, "kernels: expected 0 or 1, found %d", d->kernels);
    if (d->sort_by_colour != 0 && d->sort_by_colour != 1)
        return pbd_error(PBD_EINVAL, "sort-by-colour: expected 0 or 1, found %d",
                         d->sort_by_colour);
    if (pbd_method_of(d)->reference &&
        (long long)(d->newton_max_iterations + 1) * d->substeps > 100000000LL)
        return pbd_error(PBD_EINVAL, "newton-max-iterations: expected (newton-max-iterations + "
                         "1) x substeps of at most 1e8 (a residual per Newton iterate of a "
                         "step), found %d x %d", d->newton_max_iterations + 1, d->substeps);
    if (d->record_iterations && (long long)d->iterations * d->substeps > 100000000LL)
        return pbd_error(PBD_EINVAL, "record-iterations: expected iterations x substeps of at "
                         "most 1e8 (a residual per iteration of a step), found %d x %d",
                         d->iterations, d->substeps);
    if (d->measure_every < 0)
        return pbd_error(PBD_EINVAL, "measure-every: expected an integer >= 0, found %d",
                         d->measure_every);
    if (!(isfinite(d->watch_position) && d->watch_position >= 0.0))
        return pbd_error(PBD_EINVAL, "watch-position: expected a finite number >= 0, found %g",
                         d->watch_position);
    if (!(isfinite(d->watch_residual) && d->watch_residual >= 0.0))
        return pbd_error(PBD_EINVAL, "watch-residual: expected a finite number >= 0, found %g",
                         d->watch_residual);
    if (d->threads < 0)
        return pbd_error(PBD_EINVAL, "threads: expected an integer >= 0, found %d", d->threads);
    return PBD_OK;
}

int pbd_iteration_log_width(const pbd_solver_def *d)
{
    int per = pbd_method_of(d)->reference ? d->newton_max_iterations + 1 : d->iterations;
    return per * d->substeps;
}
