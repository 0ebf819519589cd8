/* When a Newton iteration stops (solver/newton/README.md "Newton reference"): the step's scales,
 * the relative test against them, and the slope of G along the direction. */
#include "newton_private.h"

#include <float.h>
#include <math.h>

/* ‖h‖₂ at the iterate (from nw->r): δ's schedule reads its ratio to the start's
 * (newton_system.c). g = M(x − x̃) − ∇Cᵀλ is in kg m, so ‖(g, h)‖ changes with the unit of
 * mass once g is not 0 (at the start it is); h = C + α̃λ does not. */
double newton_relative_residual(const struct pbd_newton_workspace *nw)
{
    double s = 0.0;
    for (int f = 3 * nw->n_free; f < nw->N; f++) s += nw->r[f] * nw->r[f];
    return sqrt(s);
}

/* ∇G·dx at the iterate (potential form: g = ∇G). */
double newton_slope(const struct pbd_newton_workspace *nw)
{
    double slope = 0.0;
    for (int f = 0; f < 3 * nw->n_free; f++) slope += nw->r[f] * nw->dx[f];
    return slope;
}

/* The step's scales (solver/newton/README.md "Newton reference", the stop): g against
 * S_g = ‖M(x̃ − x)‖₂, the momentum the prediction moves (kg m, the size of M g h² with
 * gravity), and h_c/|∇C_c| (a length) against S_x = ‖x̃ − x‖₂ (m); for a step that predicts
 * no motion, 1e-6 of the same norms of the spread x − x̄ about the centroid. Both scale with
 * the masses and the length unit as g and h/|∇C| do, so the stop does not depend on them. */
void newton_step_scales(const pbd_world *w, struct pbd_newton_workspace *nw)
{
    double sg = 0.0, sx = 0.0, c[3] = {0.0, 0.0, 0.0}, pg = 0.0, px = 0.0;
    int nf = 0;
    for (int i = 0; i < w->n; i++) {
        if (nw->free_of[i] < 0) continue;
        double m = 1.0 / w->w[i];
        for (int k = 0; k < 3; k++) {
            double d = nw->xt[3 * i + k] - w->x[3 * i + k];
            sg += m * m * d * d;
            sx += d * d;
            c[k] += w->x[3 * i + k];
        }
        nf++;
    }
    for (int i = 0; i < w->n && nf > 0; i++) {
        if (nw->free_of[i] < 0) continue;
        double m = 1.0 / w->w[i];
        for (int k = 0; k < 3; k++) {
            double d = w->x[3 * i + k] - c[k] / nf;
            pg += m * m * d * d;
            px += d * d;
        }
    }
    nw->scale_g = sg > 0.0 ? sqrt(sg) : 1e-6 * sqrt(pg);
    nw->scale_x = sx > 0.0 ? sqrt(sx) : 1e-6 * sqrt(px);
}

/* The stop: ‖g‖₂ <= tol S_g and ‖h_c/|∇C_c|‖₂ <= tol S_x, each or its rounding floor. */
int newton_converged(const struct pbd_newton_workspace *nw, double tol)
{
    return nw->g_norm <= fmax(tol * nw->scale_g, nw->floor_g) &&
           nw->hx_norm <= fmax(tol * nw->scale_x, nw->floor_x);
}


/* 1 when the Newton step Δx changes no free position by more than 4 ulps of the largest
 * coordinate: the iterate cannot be improved in double precision. */
int newton_step_below_rounding(const pbd_world *w, const struct pbd_newton_workspace *nw)
{
    double dx = 0.0, x = 0.0;
    for (int i = 0; i < w->n; i++) {
        int f = nw->free_of[i];
        if (f < 0) continue;
        for (int k = 0; k < 3; k++) {
            dx = fmax(dx, fabs(nw->dx[3 * f + k]));
            x = fmax(x, fabs(nw->x[3 * i + k]));
        }
    }
    return dx <= 4.0 * DBL_EPSILON * x;
}
