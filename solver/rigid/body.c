/* Rigid bodies: the world, the bodies with their shapes' inertias, and the measures
 * (momenta, energies). */
#include "rigid_private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

pbd_rigid_world *pbd_rigid_world_create(double dt, int substeps, int iterations)
{
    if (!(dt > 0.0 && isfinite(dt)) || substeps < 1 || iterations < 1) {
        pbd_error(PBD_EINVAL, "rigid world: expected dt > 0, substeps >= 1, iterations >= 1, "
                  "found dt %g, substeps %d, iterations %d", dt, substeps, iterations);
        return NULL;
    }
    pbd_rigid_world *w = calloc(1, sizeof *w);
    if (!w) {
        pbd_error(PBD_ENOMEM, "rigid world: out of memory");
        return NULL;
    }
    w->dt = dt;
    w->substeps = substeps;
    w->iterations = iterations;
    w->gravity[1] = -9.81;
    w->ground_normal[1] = 1.0;
    w->body_contacts = 1;
    w->watch_position = 1e6;
    w->velocity_passes = 1;
    return w;
}

void pbd_rigid_world_free(pbd_rigid_world *w)
{
    if (!w) return;
    free(w->bodies);
    free(w->joints);
    free(w->contacts);
    rigid_mesh_colliders_free(w);
    free(w);
}

static int positive(double a) { return a > 0.0 && isfinite(a); }

pbd_status pbd_rigid_shape_inertia(const pbd_rigid_shape *s, double m, double I[3])
{
    if (!positive(m))
        return pbd_error(PBD_EINVAL, "rigid body mass: expected > 0 and finite, found %g", m);
    double r = s->radius;
    switch (s->kind) {
    case PBD_RIGID_SPHERE:
        if (!positive(r))
            return pbd_error(PBD_EINVAL, "sphere radius: expected > 0 m, found %g", r);
        I[0] = I[1] = I[2] = 0.4 * m * r * r;
        return PBD_OK;
    case PBD_RIGID_BOX: {
        const double *a = s->half;
        if (!(positive(a[0]) && positive(a[1]) && positive(a[2])))
            return pbd_error(PBD_EINVAL, "box half extents: expected > 0 m, found %g %g %g",
                             a[0], a[1], a[2]);
        /* m (b² + c²)/12 of full edges 2a */
        I[0] = m * (a[1] * a[1] + a[2] * a[2]) / 3.0;
        I[1] = m * (a[0] * a[0] + a[2] * a[2]) / 3.0;
        I[2] = m * (a[0] * a[0] + a[1] * a[1]) / 3.0;
        return PBD_OK;
    }
    case PBD_RIGID_CAPSULE: {
        double a = s->half[0]; /* half length of the segment along x */
        if (!positive(r) || !(a >= 0.0 && isfinite(a)))
            return pbd_error(PBD_EINVAL, "capsule: expected radius > 0 and half length >= 0 m, "
                             "found radius %g, half length %g", r, a);
        double vc = 2.0 * M_PI * r * r * a, vs = 4.0 / 3.0 * M_PI * r * r * r;
        double mc = m * vc / (vc + vs), ms = m * vs / (vc + vs);
        /* cylinder: m r²/2 about its axis, m (r²/4 + L²/12) across; the two hemispheres:
         * 2/5 m r² about the axis, across by the parallel axis theorem from their centroids
         * at a + 3r/8: ms (83/320 r² + (a + 3r/8)²) = ms (2/5 r² + a² + 3ar/4) */
        I[0] = mc * r * r / 2.0 + ms * 0.4 * r * r;
        I[1] = I[2] = mc * (r * r / 4.0 + a * a / 3.0) + ms * (0.4 * r * r + a * a + 0.75 * a * r);
        return PBD_OK;
    }
    case PBD_RIGID_CYLINDER: {
        double a = s->half[0]; /* half length along x */
        if (!positive(r) || !positive(a))
            return pbd_error(PBD_EINVAL, "cylinder: expected radius > 0 and half length > 0 m, "
                             "found radius %g, half length %g", r, a);
        /* the solid cylinder of length L = 2a: m r²/2 about its axis, m (3r² + L²)/12 across */
        I[0] = 0.5 * m * r * r;
        I[1] = I[2] = m * (3.0 * r * r + 4.0 * a * a) / 12.0;
        return PBD_OK;
    }
    case PBD_RIGID_MESH:
        return pbd_error(PBD_EINVAL, "rigid shape: a mesh's inertia comes from its triangles "
                         "(pbd_rigid_mesh_mass_properties), not from a size");
    case PBD_RIGID_NO_SHAPE:
        break;
    }
    return pbd_error(PBD_EINVAL, "rigid shape: expected a sphere, box, capsule or cylinder for "
                     "an inertia, found kind %d", (int)s->kind);
}

static int grow(pbd_rigid_world *w)
{
    size_t n = (size_t)w->n_bodies + 1;
    pbd_rigid_body *b = realloc(w->bodies, n * sizeof *b);
    if (b) w->bodies = b;
    if (!b) {
        pbd_error(PBD_ENOMEM, "rigid world: out of memory for %zu bodies", n);
        return -1;
    }
    return 0;
}

int rigid_unit_pose(const double x[3], const double q[4], double qu[4])
{
    static const double identity[4] = {1, 0, 0, 0};
    if (!q) q = identity;
    double qn = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(qn > 1e-12 && isfinite(qn)) || !(isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2]))) {
        pbd_error(PBD_EINVAL, "rigid body pose: expected a finite position and a non-zero finite "
                  "quaternion, found x (%g, %g, %g), |q| %g", x[0], x[1], x[2], qn);
        return -1;
    }
    for (int k = 0; k < 4; k++) qu[k] = q[k] / qn;
    return 0;
}

int pbd_rigid_add_body_inertia(pbd_rigid_world *w, double mass, const double I[3],
                               const pbd_rigid_shape *s, const double x[3], const double q[4])
{
    double qu[4];
    if (rigid_unit_pose(x, q, qu)) return -1;
    if (!(mass >= 0.0 && isfinite(mass))) {
        pbd_error(PBD_EINVAL, "rigid body mass: expected >= 0 kg (0: fixed), found %g", mass);
        return -1;
    }
    if (s && s->kind == PBD_RIGID_CYLINDER) {
        pbd_error(PBD_EINVAL, "rigid body shape: expected a sphere, box, capsule or none, found "
                  "a cylinder: its contacts are not implemented (add it with its inertia from "
                  "pbd_rigid_shape_inertia and no shape)");
        return -1;
    }
    if (s && s->kind == PBD_RIGID_MESH) {
        pbd_error(PBD_EINVAL, "rigid body shape: expected a sphere, box, capsule or none, found "
                  "a mesh: a moving mesh's contacts are not implemented (add it with "
                  "pbd_rigid_add_body_mesh, which gives it the mesh's inertia and no shape; a "
                  "static mesh with pbd_rigid_add_mesh_collider)");
        return -1;
    }
    if (mass > 0.0) {
        for (int k = 0; k < 3; k++)
            if (!positive(I[k])) {
                pbd_error(PBD_EINVAL, "rigid body inertia: expected three principal inertias > 0 "
                          "kg m^2, found %g %g %g", I[0], I[1], I[2]);
                return -1;
            }
        /* a real mass distribution: I_a = ∫(ρ_b² + ρ_c²) <= I_b + I_c; the slack is rounding
         * of the sums (a flat plate meets it with equality) */
        for (int k = 0; k < 3; k++)
            if (I[k] > (I[(k + 1) % 3] + I[(k + 2) % 3]) * (1.0 + 4.0 * DBL_EPSILON)) {
                pbd_error(PBD_EINVAL, "rigid body inertia: expected each principal inertia <= the "
                          "sum of the other two (triangle inequality), found %g %g %g",
                          I[0], I[1], I[2]);
                return -1;
            }
    }
    if (grow(w)) return -1;
    pbd_rigid_body *b = &w->bodies[w->n_bodies];
    memset(b, 0, sizeof *b);
    for (int k = 0; k < 3; k++) b->x[k] = b->x_prev[k] = x[k];
    for (int k = 0; k < 4; k++) b->q[k] = b->q_prev[k] = qu[k];
    b->inv_mass = mass > 0.0 ? 1.0 / mass : 0.0;
    for (int k = 0; k < 3; k++) b->inv_inertia[k] = mass > 0.0 ? 1.0 / I[k] : 0.0;
    if (s) b->shape = *s;
    b->shape.kind = s ? s->kind : PBD_RIGID_NO_SHAPE;
    return w->n_bodies++;
}

int pbd_rigid_add_body(pbd_rigid_world *w, const pbd_rigid_shape *s, double mass,
                       const double x[3], const double q[4])
{
    double I[3] = {0, 0, 0};
    /* a fixed body's shape is still checked, with a unit mass */
    if (pbd_rigid_shape_inertia(s, mass > 0.0 ? mass : 1.0, I) != PBD_OK) return -1;
    if (!(mass >= 0.0 && isfinite(mass))) {
        pbd_error(PBD_EINVAL, "rigid body mass: expected >= 0 kg (0: fixed), found %g", mass);
        return -1;
    }
    return pbd_rigid_add_body_inertia(w, mass, I, s, x, q);
}

/* out = R diag(s) Rᵀ a */
static void frame_apply(const pbd_rigid_body *b, const double s[3], const double a[3],
                        double out[3])
{
    double l[3];
    pbd_quat_rotate_inv(b->q, a, l);
    for (int k = 0; k < 3; k++) l[k] *= s[k];
    pbd_quat_rotate(b->q, l, out);
}

void pbd_rigid_inv_inertia_apply(const pbd_rigid_body *b, const double a[3], double out[3])
{
    frame_apply(b, b->inv_inertia, a, out);
}

void pbd_rigid_inertia_apply(const pbd_rigid_body *b, const double a[3], double out[3])
{
    double I[3];
    for (int k = 0; k < 3; k++) I[k] = b->inv_inertia[k] > 0.0 ? 1.0 / b->inv_inertia[k] : 0.0;
    frame_apply(b, I, a, out);
}

void pbd_rigid_measure(const pbd_rigid_world *w, pbd_rigid_measures *m)
{
    memset(m, 0, sizeof *m);
    for (int i = 0; i < w->n_bodies; i++) {
        const pbd_rigid_body *b = &w->bodies[i];
        if (!(b->inv_mass > 0.0)) continue;
        double mass = 1.0 / b->inv_mass, Iw[3], xv[3];
        pbd_rigid_inertia_apply(b, b->omega, Iw);
        v3_cross(xv, b->x, b->v);
        for (int k = 0; k < 3; k++) {
            m->momentum[k] += mass * b->v[k];
            m->angular_momentum[k] += mass * xv[k] + Iw[k];
        }
        m->kinetic_translational += 0.5 * mass * v3_dot(b->v, b->v);
        m->kinetic_rotational += 0.5 * v3_dot(b->omega, Iw);
        m->potential -= mass * v3_dot(w->gravity, b->x);
    }
}
