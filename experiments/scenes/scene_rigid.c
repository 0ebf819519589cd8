/* The rigid scenes (solver/rigid/, Müller et al. 2020): worlds of rigid bodies that pbd-run
 * steps with the rigid solver and logs through a stand-in particle world
 * (experiments/log/pbd_log_rigid.h). One row per scene, as the particle scenes' table. */
#include "scene_private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A hinge about z between body a (anchor ra) and body b (anchor rb), angles from −y */
static int hinge_z(pbd_rigid_world *w, int a, const double ra[3], int b, const double rb[3])
{
    pbd_rigid_joint j;
    memset(&j, 0, sizeof j);
    j.kind = PBD_JOINT_HINGE;
    j.body[0] = a;
    j.body[1] = b;
    memcpy(j.anchor[0], ra, sizeof j.anchor[0]);
    memcpy(j.anchor[1], rb, sizeof j.anchor[1]);
    j.axis[0][2] = j.axis[1][2] = 1.0;
    j.ref[0][1] = j.ref[1][1] = -1.0;
    return pbd_rigid_add_joint(w, &j);
}

pbd_rigid_world *pbd_rigid_chain_world(int n, double l, double mass, const double *th,
                                       double dt, int substeps, int iterations)
{
    pbd_rigid_world *w = pbd_rigid_world_create(dt, substeps, iterations);
    if (!w) return NULL;
    const double zero[3] = {0, 0, 0};
    int prev = pbd_rigid_add_body_inertia(w, 0.0, zero, NULL, zero, NULL);
    double top[3] = {0, 0, 0};
    for (int i = 0; i < n && prev >= 0; i++) {
        pbd_rigid_shape s = {.kind = PBD_RIGID_BOX,
                             .half = {PBD_RIGID_LINK_HALF_WIDTH, 0.5 * l,
                                      PBD_RIGID_LINK_HALF_WIDTH}};
        double e[3] = {sin(th[i]), -cos(th[i]), 0}, c[3], rv[3] = {0, 0, th[i]}, q[4];
        for (int k = 0; k < 3; k++) c[k] = top[k] + 0.5 * l * e[k];
        pbd_quat_from_rotvec(rv, q);
        int b = pbd_rigid_add_body(w, &s, mass, c, q);
        double ra[3] = {0, i > 0 ? -0.5 * l : 0.0, 0}, rb[3] = {0, 0.5 * l, 0};
        prev = b < 0 || hinge_z(w, prev, ra, b, rb) < 0 ? -1 : b;
        for (int k = 0; k < 3; k++) top[k] += l * e[k];
    }
    if (prev < 0) {
        pbd_rigid_world_free(w);
        return NULL;
    }
    return w;
}

int pbd_rigid_add_stack(pbd_rigid_world *w, int n, const double half[3], double mass,
                        const double base[3], const pbd_rigid_material *mat)
{
    pbd_rigid_shape s = {.kind = PBD_RIGID_BOX, .half = {half[0], half[1], half[2]}};
    int first = -1;
    for (int i = 0; i < n; i++) {
        double x[3] = {base[0], base[1] + half[1] * (2 * i + 1), base[2]};
        int b = pbd_rigid_add_body(w, &s, mass, x, NULL);
        if (b < 0) return -1;
        if (mat) pbd_rigid_set_material(&w->bodies[b], mat);
        if (first < 0) first = b;
    }
    return first;
}

int pbd_rigid_add_pyramid(pbd_rigid_world *w, int rows, const double half[3], double mass,
                          double gap, const pbd_rigid_material *mat)
{
    pbd_rigid_shape s = {.kind = PBD_RIGID_BOX, .half = {half[0], half[1], half[2]}};
    int first = -1;
    for (int r = 0; r < rows; r++)
        for (int i = 0; i < rows - r; i++) {
            double pitch = 2.0 * half[0] + gap;
            double x[3] = {(i - 0.5 * (rows - r - 1)) * pitch, half[1] * (2 * r + 1), 0};
            int b = pbd_rigid_add_body(w, &s, mass, x, NULL);
            if (b < 0) return -1;
            if (mat) pbd_rigid_set_material(&w->bodies[b], mat);
            if (first < 0) first = b;
        }
    return first;
}

static pbd_rigid_material material_of(const pbd_scene_params *sp)
{
    pbd_rigid_material m = {sp->mu_static, sp->mu_kinetic, sp->restitution};
    return m;
}

/* rigid_chain: --resolution links (1: the single pendulum, 3: the triple) of --size m
 * each (default 1), --mass kg each, released at 1 rad (single) or (0.6, 0.3, −0.2) rad and
 * then 0.1 rad per further link */
static pbd_rigid_world *scene_rigid_chain(const pbd_scene_params *sp, double dt,
                                             int substeps, int iterations)
{
    int n = sp->resolution > 0 ? sp->resolution : 1;
    if (n > 100) {
        pbd_error(PBD_EINVAL, "rigid_chain --resolution: expected 1 to 100 links, found %d",
                  n);
        return NULL;
    }
    double th[100];
    const double three[3] = {0.6, 0.3, -0.2};
    for (int i = 0; i < n; i++) th[i] = n == 1 ? 1.0 : i < 3 ? three[i] : 0.1;
    double l = n == 1 ? sp->size : sp->size / n;
    return pbd_rigid_chain_world(n, l, sp->total_mass, th, dt, substeps, iterations);
}

/* rigid_tower: --resolution boxes (default 5) of half side --body-size m (0.1), --body-mass
 * kg each, stacked on the ground, with --mu-static, --mu-kinetic, --restitution */
static pbd_rigid_world *scene_rigid_tower(const pbd_scene_params *sp, double dt, int substeps,
                                          int iterations)
{
    int n = sp->resolution > 0 ? sp->resolution : 5;
    if (n > 1000) {
        pbd_error(PBD_EINVAL, "rigid_tower --resolution: expected 1 to 1000 boxes, found %d", n);
        return NULL;
    }
    pbd_rigid_world *w = pbd_rigid_world_create(dt, substeps, iterations);
    if (!w) return NULL;
    w->ground = 1;
    double half[3] = {sp->body_size, sp->body_size, sp->body_size}, base[3] = {0, 0, 0};
    pbd_rigid_material m = material_of(sp);
    if (pbd_rigid_add_stack(w, n, half, sp->body_mass, base, &m) < 0) {
        pbd_rigid_world_free(w);
        return NULL;
    }
    return w;
}

pbd_rigid_world *pbd_rigid_ramp_world(double theta, const double half[3], double mass,
                                      const pbd_rigid_material *mat, double speed, double dt,
                                      int substeps, int iterations)
{
    pbd_rigid_world *w = pbd_rigid_world_create(dt, substeps, iterations);
    if (!w) return NULL;
    w->ground = 1;
    /* the plane through the origin with normal (sin θ, cos θ, 0): down the slope is +x */
    w->ground_normal[0] = sin(theta);
    w->ground_normal[1] = cos(theta);
    double rv[3] = {0, 0, -theta}, q[4], x[3];
    pbd_quat_from_rotvec(rv, q);
    for (int k = 0; k < 3; k++) x[k] = half[1] * w->ground_normal[k];
    pbd_rigid_shape s = {.kind = PBD_RIGID_BOX, .half = {half[0], half[1], half[2]}};
    int b = pbd_rigid_add_body(w, &s, mass, x, q);
    if (b < 0) {
        pbd_rigid_world_free(w);
        return NULL;
    }
    pbd_rigid_set_material(&w->bodies[b], mat);
    w->bodies[b].v[0] = speed * cos(theta);
    w->bodies[b].v[1] = -speed * sin(theta);
    return w;
}

/* rigid_ramp: a box of half extents (2, 1, 1.5) × --body-size m, --body-mass kg, at rest on
 * a plane tilted by --ramp-angle degrees (0: 20°) about z, launched down the slope at
 * --launch-speed m/s (default 2; 0: released at rest) */
static pbd_rigid_world *scene_rigid_ramp(const pbd_scene_params *sp, double dt, int substeps,
                                         int iterations)
{
    double th = (sp->ramp_angle > 0.0 ? sp->ramp_angle : 20.0) * M_PI / 180.0;
    double a = sp->body_size, half[3] = {2 * a, a, 1.5 * a};
    pbd_rigid_material m = material_of(sp);
    return pbd_rigid_ramp_world(th, half, sp->body_mass, &m, sp->launch_speed, dt, substeps,
                                iterations);
}

/* rigid_slider: a box of half side --body-size m (0.1), --body-mass kg, on a prismatic joint
 * along a rail through a fixed anchor, tilted down by --ramp-angle degrees (0: 30°) about z;
 * the offset along the rail (down positive) limited to [-0.5, 0.25] m and held by a position
 * drive to 0 with compliance 0.01 m/N and damping 2 N s/m (it settles at 0.01 m g sin θ down
 * the rail); launched down the rail at --launch-speed m/s (2), so that it hits the limit */
static pbd_rigid_world *scene_rigid_slider(const pbd_scene_params *sp, double dt, int substeps,
                                           int iterations)
{
    double th = (sp->ramp_angle > 0.0 ? sp->ramp_angle : 30.0) * M_PI / 180.0;
    pbd_rigid_world *w = pbd_rigid_world_create(dt, substeps, iterations);
    if (!w) return NULL;
    const double zero[3] = {0, 0, 0};
    pbd_rigid_shape s = {.kind = PBD_RIGID_BOX,
                         .half = {sp->body_size, sp->body_size, sp->body_size}};
    int a = pbd_rigid_add_body_inertia(w, 0.0, zero, NULL, zero, NULL);
    int b = a < 0 ? -1 : pbd_rigid_add_body(w, &s, sp->body_mass, zero, NULL);
    pbd_rigid_joint j;
    memset(&j, 0, sizeof j);
    j.kind = PBD_JOINT_PRISMATIC;
    j.body[0] = a;
    j.body[1] = b;
    j.axis[0][0] = cos(th);
    j.axis[0][1] = -sin(th);
    j.has_limit = 1;
    j.lower = -0.5;
    j.upper = 0.25;
    j.drive = PBD_DRIVE_POSITION;
    j.drive_compliance = 0.01;
    j.drive_damping = 2.0;
    if (b < 0 || pbd_rigid_add_joint(w, &j) < 0) {
        pbd_rigid_world_free(w);
        return NULL;
    }
    w->bodies[b].v[0] = sp->launch_speed * cos(th);
    w->bodies[b].v[1] = -sp->launch_speed * sin(th);
    return w;
}

int pbd_rigid_add_bowl(pbd_rigid_world *w, double radius, int segments, int rings, double rim,
                       const pbd_rigid_material *mat)
{
    if (segments < 3 || rings < 1 || !(rim > 0.0 && rim < M_PI) || !(radius > 0.0)) {
        pbd_error(PBD_EINVAL, "rigid bowl: expected >= 3 segments, >= 1 ring, a rim angle in "
                  "(0, pi) and a radius > 0, found %d, %d, %g rad, %g m", segments, rings, rim,
                  radius);
        return -1;
    }
    int nv = 1 + rings * segments, nt = segments * (2 * rings - 1);
    double *v = malloc(3 * (size_t)nv * sizeof *v);
    int *t = malloc(3 * (size_t)nt * sizeof *t);
    if (!v || !t) {
        free(v);
        free(t);
        pbd_error(PBD_ENOMEM, "rigid bowl: out of memory for %d triangles", nt);
        return -1;
    }
    v[0] = v[1] = v[2] = 0.0; /* the bottom; the sphere's centre at (0, radius, 0) */
    for (int i = 1; i <= rings; i++)
        for (int j = 0; j < segments; j++) {
            double phi = rim * i / rings, a = 2.0 * M_PI * j / segments;
            double *p = v + 3 * (1 + (i - 1) * segments + j);
            p[0] = radius * sin(phi) * cos(a);
            p[1] = radius * (1.0 - cos(phi));
            p[2] = radius * sin(phi) * sin(a);
        }
    int n = 0;
    for (int i = 0; i < rings; i++)
        for (int j = 0; j < segments; j++) {
            int jn = (j + 1) % segments, outer = 1 + i * segments, inner = outer - segments;
            int tris[2][3] = {{i ? inner + j : 0, outer + j, outer + jn},
                              {inner + j, outer + jn, inner + jn}};
            for (int k = 0; k < (i ? 2 : 1); k++, n++) {
                double ab[3], ac[3], c[3], *a0 = v + 3 * tris[k][0];
                for (int d = 0; d < 3; d++) {
                    ab[d] = v[3 * tris[k][1] + d] - a0[d];
                    ac[d] = v[3 * tris[k][2] + d] - a0[d];
                }
                c[0] = ab[1] * ac[2] - ab[2] * ac[1];
                c[1] = ab[2] * ac[0] - ab[0] * ac[2];
                c[2] = ab[0] * ac[1] - ab[1] * ac[0];
                /* the front towards the sphere's centre: (centre − a0)·normal > 0 */
                int flip = -a0[0] * c[0] + (radius - a0[1]) * c[1] - a0[2] * c[2] < 0.0;
                t[3 * n] = tris[k][0];
                t[3 * n + 1] = tris[k][flip ? 2 : 1];
                t[3 * n + 2] = tris[k][flip ? 1 : 2];
            }
        }
    const double zero[3] = {0, 0, 0};
    int b = pbd_rigid_add_mesh_collider(w, v, nv, t, nt, zero, NULL, mat);
    free(v);
    free(t);
    return b;
}

/* rigid_mesh_bowl: a bowl, the spherical cap of radius --size m (1) up to 60° from its
 * bottom, of --resolution segments around (32) and resolution/4 rings (a static mesh
 * collider); a ball (radius --body-size, 0.1 m), a capsule (radius 0.6, half length 1.5 ×
 * body-size) and a box (half extents (1, 0.6, 0.8) × body-size), --body-mass kg each,
 * released just above its wall 40° from the bottom at azimuths 0°, 120°, 240° (the capsule's
 * axis and the box's x along the wall's level line), launched along that line at
 * --launch-speed m/s (2; 0: at rest); --mu-static, --mu-kinetic, --restitution for the
 * bodies and the bowl */
static pbd_rigid_world *scene_rigid_mesh_bowl(const pbd_scene_params *sp, double dt,
                                              int substeps, int iterations)
{
    int seg = sp->resolution > 0 ? sp->resolution : 32;
    if (seg < 8 || seg > 1024) {
        pbd_error(PBD_EINVAL, "rigid_mesh_bowl --resolution: expected 8 to 1024 segments "
                  "around the bowl, found %d", seg);
        return NULL;
    }
    double R = sp->size, a = sp->body_size;
    if (!(R > 4.0 * a && a > 0.0)) {
        pbd_error(PBD_EINVAL, "rigid_mesh_bowl --size, --body-size: expected a bowl radius > 4 "
                  "times the body size > 0, found %g m and %g m", R, a);
        return NULL;
    }
    pbd_rigid_world *w = pbd_rigid_world_create(dt, substeps, iterations);
    if (!w) return NULL;
    pbd_rigid_material m = material_of(sp);
    const pbd_rigid_shape shapes[3] = {
        {.kind = PBD_RIGID_SPHERE, .radius = a},
        {.kind = PBD_RIGID_CAPSULE, .radius = 0.6 * a, .half = {1.5 * a, 0, 0}},
        {.kind = PBD_RIGID_BOX, .half = {a, 0.6 * a, 0.8 * a}}};
    /* each one's centre's distance from the sphere's centre when it touches the sphere (the
     * capsule's end balls, the box's corners), less a gap over the facets' sag inside the
     * sphere, R (1 − cos(one ring's angle)), and 1 % of R: released a little above the wall
     * (a body started inside would be thrown out by the correction's velocity) */
    int rings = seg / 4 > 1 ? seg / 4 : 2;
    double gap = R * (1.0 - cos(M_PI / 3.0 / rings)) + 0.01 * R;
    const double fit[3] = {R - a, sqrt((R - 0.6 * a) * (R - 0.6 * a) - 2.25 * a * a),
                           sqrt(R * R - 1.64 * a * a) - 0.6 * a};
    int ok = pbd_rigid_add_bowl(w, R, seg, rings, M_PI / 3.0, &m) >= 0;
    for (int k = 0; k < 3 && ok; k++) {
        double phi = 40.0 * M_PI / 180.0, az = 2.0 * M_PI * k / 3.0;
        double d[3] = {sin(phi) * cos(az), -cos(phi), sin(phi) * sin(az)}; /* centre to wall */
        double t[3] = {-sin(az), 0.0, cos(az)}; /* the wall's level line */
        double yaw[3] = {0, -az - 0.5 * M_PI, 0}, tilt[3], qy[4], qt[4], q[4], x[3];
        for (int c = 0; c < 3; c++) {
            tilt[c] = phi * t[c]; /* turns +y onto the wall's inward normal −d */
            x[c] = (fit[k] - gap) * d[c] + (c == 1 ? R : 0.0);
        }
        pbd_quat_from_rotvec(yaw, qy); /* x onto t */
        pbd_quat_from_rotvec(tilt, qt);
        pbd_quat_mul(qt, qy, q);
        int b = pbd_rigid_add_body(w, &shapes[k], sp->body_mass, x, q);
        ok = b >= 0;
        if (!ok) break;
        pbd_rigid_set_material(&w->bodies[b], &m);
        for (int c = 0; c < 3; c++) w->bodies[b].v[c] = sp->launch_speed * t[c];
    }
    if (!ok) {
        pbd_rigid_world_free(w);
        return NULL;
    }
    return w;
}

static const pbd_rigid_scene_entry rigid_scenes[] = {
    {"rigid_chain", "XPBD rigid bodies: a hinged box pendulum (--resolution links: 1 single, "
     "3 triple)", scene_rigid_chain,
     "resolution size mass", 1},
    {"rigid_tower", "XPBD rigid bodies: a stack of boxes on the ground (--resolution boxes)",
     scene_rigid_tower, "resolution body-size body-mass mu-static mu-kinetic restitution velocity-passes", 5},
    {"rigid_ramp", "XPBD rigid bodies: a box launched down a ramp with friction (--ramp-angle, "
     "--launch-speed)", scene_rigid_ramp,
     "body-size body-mass mu-static mu-kinetic restitution ramp-angle launch-speed "
     "velocity-passes", 0},
    {"rigid_slider", "XPBD rigid bodies: a box on a tilted prismatic joint with limits and a "
     "compliant position drive (--ramp-angle, --launch-speed)", scene_rigid_slider,
     "body-size body-mass ramp-angle launch-speed", 0},
    {"rigid_mesh_bowl", "XPBD rigid bodies: a ball, a capsule and a box sliding into a bowl "
     "(a static triangle-mesh collider of --resolution segments around)",
     scene_rigid_mesh_bowl,
     "size resolution body-size body-mass mu-static mu-kinetic restitution launch-speed "
     "velocity-passes", 32},
};

int pbd_rigid_scene_count(void) { return (int)(sizeof rigid_scenes / sizeof rigid_scenes[0]); }

const pbd_rigid_scene_entry *pbd_rigid_scene_at(int i)
{
    return i >= 0 && i < pbd_rigid_scene_count() ? &rigid_scenes[i] : NULL;
}

const pbd_rigid_scene_entry *pbd_rigid_scene_find(const char *name)
{
    for (int i = 0; i < pbd_rigid_scene_count(); i++)
        if (!strcmp(rigid_scenes[i].name, name)) return &rigid_scenes[i];
    return NULL;
}

int pbd_rigid_scene_reads(const pbd_rigid_scene_entry *e, const char *option)
{
    size_t n = strlen(option);
    for (const char *p = e->reads; (p = strstr(p, option)) != NULL; p += n)
        if ((p == e->reads || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return 1;
    return 0;
}
