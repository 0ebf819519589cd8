/* Cosserat rods (Kugelstadt & Schömer 2016): particles on the centre line, one orientation
 * per segment, a rod_stretch_shear row per segment and director and a rod_bend_twist row per
 * pair of segments and component, with the XPBD compliances of E, G and a circular cross
 * section (constraints/README.md "Rods"). Scenes: `rod`, a horizontal cantilever; `helix`, a
 * hanging helix with a twisted material frame. */
#include "scene_private.h"

#include <math.h>
#include <string.h>

pbd_rod_spec pbd_rod_spec_default(void)
{
    pbd_rod_spec r = {
        .segments = 20, .length = 1.0, .radius = 0.05, .density = 1000.0,
        .youngs_modulus = 1e6, .shear_modulus = 1e6 / 2.6,
        .helix_radius = 0.0, .helix_pitch = 0.0, .twist = 0.0, .clamp = 1,
        .k_stretch = 1.0, .k_bend = 1.0, .origin = {0.0, 0.0, 0.0}, .inertia_scale = 1.0,
    };
    return r;
}

/* The centre line at arclength s: along +x, or a helix about −y of radius R and pitch p
 * (R, p > 0), starting at the origin. */
static void centre_line(const pbd_rod_spec *r, double s, double out[3])
{
    if (!(r->helix_radius > 0.0)) {
        out[0] = s; out[1] = 0.0; out[2] = 0.0;
        return;
    }
    double R = r->helix_radius, c = r->helix_pitch / (2.0 * M_PI), phi = s / sqrt(R * R + c * c);
    out[0] = R * (cos(phi) - 1.0); out[1] = -c * phi; out[2] = R * sin(phi);
}

/* The rotation that takes unit vector a to unit vector b (the shortest one). */
static void quat_between(const double a[3], const double b[3], double q[4])
{
    double d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    double c[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    if (d < -1.0 + 1e-12) { /* opposite: a half turn about any axis normal to a */
        double t[3] = {fabs(a[0]) < 0.9 ? 1.0 : 0.0, fabs(a[0]) < 0.9 ? 0.0 : 1.0, 0.0};
        double ax[3] = {a[1] * t[2] - a[2] * t[1], a[2] * t[0] - a[0] * t[2], a[0] * t[1] - a[1] * t[0]};
        double n = sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
        q[0] = 0.0; q[1] = ax[0] / n; q[2] = ax[1] / n; q[3] = ax[2] / n;
        return;
    }
    double n = sqrt(2.0 * (1.0 + d));
    q[0] = 0.5 * n; q[1] = c[0] / n; q[2] = c[1] / n; q[3] = c[2] / n;
}

static pbd_status check_spec(const pbd_rod_spec *r)
{
    const double v[] = {r->length, r->radius, r->density, r->youngs_modulus, r->shear_modulus};
    const char *names[] = {"length", "radius", "density", "youngs_modulus", "shear_modulus"};
    for (int k = 0; k < 5; k++)
        if (!(v[k] > 0.0 && isfinite(v[k])))
            return pbd_error(PBD_EINVAL, "rod: %s: expected a positive finite value, found %g",
                             names[k], v[k]);
    if (r->segments < 1 || r->segments > 1000000)
        return pbd_error(PBD_EINVAL, "rod: segments: expected 1 .. 1000000, found %d",
                         r->segments);
    if (!(r->k_stretch >= 0.0 && r->k_stretch <= 1.0 && r->k_bend >= 0.0 && r->k_bend <= 1.0))
        return pbd_error(PBD_EINVAL, "rod: expected PBD stiffnesses in [0, 1], found %g and %g",
                         r->k_stretch, r->k_bend);
    if (!(r->inertia_scale > 0.0 && isfinite(r->inertia_scale)))
        return pbd_error(PBD_EINVAL, "rod: inertia_scale: expected a positive finite value, "
                         "found %g", r->inertia_scale);
    if (!isfinite(r->twist) || !(r->helix_radius >= 0.0) || !(r->helix_pitch >= 0.0) ||
        (r->helix_radius > 0.0 && !(r->helix_pitch > 0.0)))
        return pbd_error(PBD_EINVAL, "rod: expected a finite twist and a helix radius >= 0 "
                         "with a pitch > 0, found twist %g, radius %g, pitch %g", r->twist,
                         r->helix_radius, r->helix_pitch);
    return PBD_OK;
}

pbd_status pbd_rod_add(pbd_world *w, const pbd_rod_spec *r, pbd_rod_handles *h)
{
    pbd_status st = check_spec(r);
    if (st != PBD_OK) return st;
    const int N = r->segments;
    const double A = M_PI * r->radius * r->radius, I = 0.25 * M_PI * pow(r->radius, 4);
    const double moments[3] = {I, I, 2.0 * I}; /* I_1 = I_2 = πr⁴/4, J = πr⁴/2 */
    const double ds = r->length / N;
    pbd_rod_handles hh = {w->n, w->n_orient, -1, -1};
    double P[3], Pn[3];
    for (int i = 0; i <= N; i++) { /* particles: ρ A ℓ, half at the ends */
        centre_line(r, ds * i, P);
        for (int k = 0; k < 3; k++) P[k] += r->origin[k];
        double m = r->density * A * ds * ((i == 0 || i == N) ? 0.5 : 1.0);
        if (pbd_world_add_particle(w, P, NULL, m) < 0) return pbd_last_status();
    }
    /* frames: d_3 along each segment, parallel-transported from the first, then turned by
     * the rest twist about d_3 (twist · s at the segment's middle) */
    double q[4] = {1, 0, 0, 0}, t_prev[3] = {0, 0, 1};
    for (int i = 0; i < N; i++) {
        centre_line(r, ds * i, P);
        centre_line(r, ds * (i + 1), Pn);
        double t[3] = {Pn[0] - P[0], Pn[1] - P[1], Pn[2] - P[2]}, tq[4], qn[4];
        double n = sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
        for (int k = 0; k < 3; k++) t[k] /= n;
        quat_between(t_prev, t, tq);
        pbd_quat_mul(tq, q, qn);
        memcpy(q, qn, sizeof q);
        memcpy(t_prev, t, sizeof t);
        double tw[3] = {0.0, 0.0, r->twist * ds * (i + 0.5)}, e[4], qt[4];
        pbd_quat_from_rotvec(tw, e);
        pbd_quat_mul(q, e, qt); /* body frame: about the segment's own d_3 */
        /* inertia of the cross section spinning: ρ ℓ (I_1, I_2, J) */
        double iinv[3];
        for (int k = 0; k < 3; k++)
            iinv[k] = 1.0 / (r->inertia_scale * r->density * ds * moments[k]);
        if (r->clamp && i == 0) iinv[0] = iinv[1] = iinv[2] = 0.0;
        if (pbd_world_add_orientation(w, qt, NULL, iinv) < 0) return pbd_last_status();
    }
    if (r->clamp) w->w[hh.particle0] = 0.0; /* the clamp: p_0 and q_0 held */
    int ss = pbd_world_add_set(w, &pbd_rod_stretch_shear_type, 0);
    int bt = N > 1 ? pbd_world_add_set(w, &pbd_rod_bend_twist_type, 0) : -1;
    if (ss < 0 || (N > 1 && bt < 0)) return pbd_last_status();
    for (int i = 0; i < N; i++)
        for (int k = 0; k < 3; k++) {
            int32_t idx[3] = {hh.particle0 + i, hh.particle0 + i + 1, hh.orient0 + i};
            const double *a0 = w->x + 3 * idx[0], *a1 = w->x + 3 * idx[1];
            double chord = sqrt((a1[0] - a0[0]) * (a1[0] - a0[0]) + (a1[1] - a0[1]) *
                                (a1[1] - a0[1]) + (a1[2] - a0[2]) * (a1[2] - a0[2]));
            double rest[2] = {chord, k}; /* a helix's chord is shorter than its arc */
            double a = pbd_rod_stretch_shear_compliance(r->youngs_modulus, r->shear_modulus, A,
                                                        ds, k);
            if (pbd_set_add(w, ss, idx, rest, r->k_stretch, a) < 0) return pbd_last_status();
        }
    for (int i = 0; i + 1 < N; i++) {
        const double *q0 = w->q + 4 * (hh.orient0 + i), *q1 = w->q + 4 * (hh.orient0 + i + 1);
        double q0c[4] = {q0[0], -q0[1], -q0[2], -q0[3]}, rest[5];
        pbd_quat_mul(q0c, q1, rest);
        if (rest[0] < 0.0) /* the representative with w >= 0 */
            for (int k = 0; k < 4; k++) rest[k] = -rest[k];
        for (int k = 0; k < 3; k++) {
            int32_t idx[2] = {hh.orient0 + i, hh.orient0 + i + 1};
            rest[4] = k;
            double a = pbd_rod_bend_twist_compliance(r->youngs_modulus, r->shear_modulus,
                                                     moments, ds, k);
            if (pbd_set_add(w, bt, idx, rest, r->k_bend, a) < 0) return pbd_last_status();
        }
    }
    hh.stretch_set = ss;
    hh.bend_set = bt;
    if (h) *h = hh;
    return PBD_OK;
}

/* A scene's rod: --size the length, --resolution the segments, --mass the total mass (ρ from
 * it), --rod-radius, --youngs-modulus and --poisson-ratio (G = E/(2(1 + ν))), --stiffness and
 * --k-bend PBD's stiffnesses. */
static pbd_world *scene_rod_world(const pbd_scene_params *sp, const char *scene,
                                  pbd_rod_spec *r, int default_segments)
{
    if (scene_inputs(sp, scene, 0, 0) != PBD_OK || scene_material_inputs(sp, scene, 0, 0) != PBD_OK)
        return NULL;
    /* the frames, inertias and their inverses take squares and fourth powers of these */
    if (!(sp->size >= 1e-50 && sp->size <= 1e50)) {
        pbd_error(PBD_EINVAL, "--size: expected a rod length in [1e-50, 1e50] m, found %g",
                  sp->size);
        return NULL;
    }
    if (!(sp->total_mass >= 1e-100 && sp->total_mass <= 1e100)) {
        pbd_error(PBD_EINVAL, "--mass: expected a rod mass in [1e-100, 1e100] kg, found %g",
                  sp->total_mass);
        return NULL;
    }
    r->segments = sp->resolution > 0 ? sp->resolution : default_segments;
    r->length = sp->size;
    r->radius = sp->rod_radius;
    r->density = sp->total_mass / (M_PI * r->radius * r->radius * r->length);
    r->youngs_modulus = sp->youngs_modulus;
    r->shear_modulus = sp->youngs_modulus / (2.0 * (1.0 + sp->poisson_ratio));
    r->k_stretch = sp->stiffness;
    r->k_bend = sp->k_bend;
    pbd_world *w = pbd_world_create(0);
    if (!w) return NULL;
    if (pbd_rod_add(w, r, NULL) != PBD_OK) {
        pbd_error(pbd_last_status(), "scene %s: %s", scene, pbd_last_error());
        pbd_world_free(w);
        return NULL;
    }
    return w;
}

pbd_world *pbd_scene_rod(const pbd_scene_params *sp)
{
    pbd_rod_spec r = pbd_rod_spec_default();
    return scene_rod_world(sp, "rod", &r, 20);
}

pbd_world *pbd_scene_helix(const pbd_scene_params *sp)
{
    pbd_rod_spec r = pbd_rod_spec_default();
    r.helix_radius = 0.1 * sp->size; /* about 1.5 turns of pitch 0.2 L for a length L */
    r.helix_pitch = 0.2 * sp->size;
    r.twist = M_PI / sp->size;       /* half a turn of the material frame over the rod */
    return scene_rod_world(sp, "helix", &r, 40);
}
