/* Orientations beside the particles (Cosserat rods, Kugelstadt & Schömer 2016): one unit
 * quaternion per rod segment with its principal inverse inertias, counted in the momenta
 * (the spin) and checked by every method's step; PBD/XPBD predict, project and update them
 * like the positions (solver/xpbd/orient_project.c, K&S Algorithm 1). A world without
 * orientations (n_orient = 0) runs none of this. */
#include "pbd.h"
#include "solver_private.h"
#include "variants.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


int pbd_world_add_orientation(pbd_world *w, const double q[4], const double omega[3],
                              const double inv_inertia[3])
{
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(n > 1e-12 && isfinite(n))) {
        pbd_error(PBD_EINVAL, "pbd_world_add_orientation: expected a non-zero finite quaternion, "
                  "found (%g, %g, %g, %g)", q[0], q[1], q[2], q[3]);
        return -1;
    }
    for (int k = 0; k < 3; k++)
        if (!(inv_inertia[k] >= 0.0 && isfinite(inv_inertia[k])) ||
            (omega && !isfinite(omega[k]))) {
            pbd_error(PBD_EINVAL, "pbd_world_add_orientation: expected finite inverse inertias "
                      ">= 0 and a finite angular velocity, found inverse inertia %g, omega %g",
                      inv_inertia[k], omega ? omega[k] : 0.0);
            return -1;
        }
    size_t m = (size_t)w->n_orient + 1;
    double *a = realloc(w->q, 4 * m * sizeof *a);
    if (a) w->q = a;
    double *b = realloc(w->u, 4 * m * sizeof *b);
    if (b) w->u = b;
    double *c = realloc(w->omega, 3 * m * sizeof *c);
    if (c) w->omega = c;
    double *d = realloc(w->inv_inertia, 3 * m * sizeof *d);
    if (d) w->inv_inertia = d;
    if (!a || !b || !c || !d) {
        pbd_error(PBD_ENOMEM, "pbd_world_add_orientation: out of memory for %zu orientations", m);
        return -1;
    }
    int i = w->n_orient++;
    for (int k = 0; k < 4; k++) w->q[4 * i + k] = w->u[4 * i + k] = q[k] / n;
    for (int k = 0; k < 3; k++) {
        w->omega[3 * i + k] = omega ? omega[k] : 0.0;
        w->inv_inertia[3 * i + k] = inv_inertia[k];
    }
    return i;
}

/* out = R diag(s) Rᵀ g (W g for s the inverse inertias, I ω for s the inertias); returns
 * gᵀ R diag(s) Rᵀ g */
double pbd_orient_frame_apply(const double *q, const double *s, const double *g, double *out)
{
    double b[3];
    pbd_quat_rotate_inv(q, g, b);
    double quad = s[0] * b[0] * b[0] + s[1] * b[1] * b[1] + s[2] * b[2] * b[2];
    if (out) {
        for (int k = 0; k < 3; k++) b[k] *= s[k];
        pbd_quat_rotate(q, b, out);
    }
    return quad;
}

static void inertia_of(const double *iinv, double *I)
{
    for (int k = 0; k < 3; k++) I[k] = 1.0 / iinv[k];
}

void pbd_orientation_momentum(const pbd_world *w, double spin[3], double *kinetic)
{
    spin[0] = spin[1] = spin[2] = 0.0;
    double ke = 0.0;
    for (int i = 0; i < w->n_orient; i++) {
        const double *iinv = w->inv_inertia + 3 * i, *om = w->omega + 3 * i;
        if (!pbd_orient_all_free(iinv)) continue;
        double I[3], L[3];
        inertia_of(iinv, I);
        ke += 0.5 * pbd_orient_frame_apply(w->q + 4 * i, I, om, L);
        for (int k = 0; k < 3; k++) spin[k] += L[k];
    }
    if (kinetic) *kinetic = ke;
}

pbd_status pbd_orient_check(const pbd_world *w, int after_step)
{
    int rods = w->n_orient > 0;
    for (int s = 0; s < w->n_sets && !rods; s++) rods = w->sets[s].type->n_orient > 0;
    if (!rods) return PBD_OK;
    if (!after_step) {
        if (w->def.scheme != PBD_SCHEME_GAUSS_SEIDEL)
            return pbd_error(PBD_EINVAL, "scheme: expected gauss-seidel for a world with "
                             "orientations (rods), found %s: the Jacobi and coloured sweeps "
                             "move particles only (solver/README.md \"Orientations\")",
                             w->def.scheme == PBD_SCHEME_JACOBI ? "jacobi" : "colored");
        if (w->def.rod_projection == PBD_ROD_CLOSED_FORM)
            for (int s = 0; s < w->n_sets; s++) { /* an element's rows: consecutive, one stencil */
                const pbd_constraint_set *set = &w->sets[s];
                const int nb = set->type->n_components;
                if (!set->type->project_element) continue;
                for (int c = 0; c < set->count; c++)
                    if (set->count % nb != 0 ||
                        memcmp(set->idx + (size_t)c * set->arity,
                               set->idx + (size_t)(c - c % nb) * set->arity,
                               (size_t)set->arity * sizeof *set->idx) != 0)
                        return pbd_error(PBD_EINVAL, "rod-projection: expected set %d (%s) in "
                                         "elements of %d rows on one stencil for the closed "
                                         "form, found %d rows, row %d apart from its element",
                                         s, set->type->name, nb, set->count, c);
            }
        return PBD_OK;
    }
    for (int i = 0; i < w->n_orient; i++) {
        int ok = 1;
        for (int k = 0; k < 4; k++) ok &= isfinite(w->q[4 * i + k]);
        for (int k = 0; k < 3; k++) ok &= isfinite(w->omega[3 * i + k]);
        if (!ok)
            return pbd_error(PBD_ENUMERIC, "step %ld: orientation %d has a non-finite quaternion "
                             "or angular velocity", w->step_count, i);
    }
    return PBD_OK;
}
