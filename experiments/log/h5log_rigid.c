/* A rigid world's run file through a stand-in particle world (pbd_log_rigid.h). */
#include "experiments/log/pbd_log_rigid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

pbd_world *pbd_rigid_mirror_create(const pbd_rigid_world *rw)
{
    pbd_world *m = pbd_world_create(rw->n_bodies);
    if (!m) return NULL;
    m->def.method = PBD_METHOD_XPBD;
    m->def.dt = rw->dt;
    m->def.substeps = rw->substeps;
    m->def.iterations = rw->iterations;
    m->def.watch_position = rw->watch_position;
    for (int k = 0; k < 3; k++) m->def.gravity[k] = rw->gravity[k];
    for (int i = 0; i < rw->n_bodies; i++) {
        const pbd_rigid_body *b = &rw->bodies[i];
        if (pbd_world_set_particle_w(m, i, b->x, b->v, b->inv_mass) != PBD_OK ||
            pbd_world_add_orientation(m, b->q, b->omega, b->inv_inertia) < 0) {
            pbd_world_free(m);
            return NULL;
        }
    }
    pbd_rigid_mirror_sync(m, rw);
    m->stats.step = 0;
    return m;
}

void pbd_rigid_mirror_sync(pbd_world *m, const pbd_rigid_world *rw)
{
    for (int i = 0; i < rw->n_bodies && i < m->n && i < m->n_orient; i++) {
        const pbd_rigid_body *b = &rw->bodies[i];
        memcpy(m->x + 3 * i, b->x, sizeof b->x);
        memcpy(m->p + 3 * i, b->x, sizeof b->x);
        memcpy(m->v + 3 * i, b->v, sizeof b->v);
        memcpy(m->q + 4 * i, b->q, sizeof b->q);
        memcpy(m->omega + 3 * i, b->omega, sizeof b->omega);
    }
    m->time = rw->time;
    m->step_count = rw->steps_done;
    pbd_rigid_measures r;
    pbd_rigid_measure(rw, &r);
    pbd_step_stats *s = &m->stats;
    s->max_c = s->l2_c = s->xpbd_residual = s->elastic_energy = NAN;
    for (int k = 0; k < 3; k++) {
        s->linear_momentum[k] = r.momentum[k];
        s->angular_momentum[k] = r.angular_momentum[k];
    }
    s->kinetic_energy = r.kinetic_translational + r.kinetic_rotational;
    s->gravitational_energy = r.potential;
    s->total_energy = s->kinetic_energy + r.potential;
    s->step = m->step_count;
    s->threads = 1;
}

pbd_status pbd_rigid_log_begin(pbd_rigid_log *rl, pbd_h5log *log)
{
    const pbd_rigid_world *w = rl->rigid;
    rl->log = log;
    rl->c_kt = pbd_h5log_column(log, "kinetic_translational", 1, "J");
    rl->c_kr = pbd_h5log_column(log, "kinetic_rotational", 1, "J");
    rl->c_pot = pbd_h5log_column(log, "potential", 1, "J");
    rl->c_p = pbd_h5log_column(log, "rigid_momentum", 3, "kg m/s");
    rl->c_l = pbd_h5log_column(log, "rigid_angular_momentum", 3, "kg m^2/s");
    rl->c_vmax = pbd_h5log_column_described(log, "max_body_speed", 1, "m/s",
                                            "the largest |v| of a body's centre");
    if (rl->c_kt < 0 || rl->c_kr < 0 || rl->c_pot < 0 || rl->c_p < 0 || rl->c_l < 0 ||
        rl->c_vmax < 0)
        return PBD_EIO;
    pbd_status st = PBD_OK;
    const struct {
        const char *name;
        double v;
    } a[] = {{"rigid.dt", w->dt}, {"rigid.substeps", w->substeps},
             {"rigid.iterations", w->iterations}, {"rigid.bodies", w->n_bodies},
             {"rigid.joints", w->n_joints}, {"rigid.ground", w->ground},
             {"rigid.body_contacts", w->body_contacts},
             {"rigid.friction_form", w->friction_form},
             {"rigid.velocity_passes", w->velocity_passes}};
    for (unsigned k = 0; k < sizeof a / sizeof a[0] && st == PBD_OK; k++)
        st = pbd_h5log_attr_double(log, a[k].name, a[k].v);
    if (st != PBD_OK || w->n_bodies == 0) return st;
    double *rows = malloc((size_t)w->n_bodies * 6 * sizeof *rows);
    if (!rows) return pbd_error(PBD_ENOMEM, "rigid log: out of memory");
    for (int i = 0; i < w->n_bodies; i++) {
        const pbd_rigid_body *b = &w->bodies[i];
        double *r = rows + 6 * i;
        r[0] = (double)b->shape.kind;
        r[1] = b->inv_mass > 0.0 ? 1.0 / b->inv_mass : 0.0;
        r[2] = b->shape.radius;
        for (int k = 0; k < 3; k++) r[3 + k] = b->shape.half[k];
    }
    st = pbd_h5log_dataset(log, "rigid_bodies", rows, w->n_bodies, 6, "1 kg m m m m",
                           "per body: shape (0 sphere, 1 box, 2 capsule, 3 none, 5 mesh "
                           "collider), mass (0: "
                           "fixed), radius, half extents x y z (capsule: x is the segment's "
                           "half length)");
    free(rows);
    return st;
}

pbd_status pbd_rigid_log_step(pbd_rigid_log *rl)
{
    const pbd_rigid_world *w = rl->rigid;
    pbd_rigid_mirror_sync(rl->mirror, w);
    pbd_rigid_measures m;
    pbd_rigid_measure(w, &m);
    double vmax = 0.0;
    for (int i = 0; i < w->n_bodies; i++) {
        const double *v = w->bodies[i].v;
        vmax = fmax(vmax, sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]));
    }
    pbd_h5log_set1(rl->log, rl->c_kt, m.kinetic_translational);
    pbd_h5log_set1(rl->log, rl->c_kr, m.kinetic_rotational);
    pbd_h5log_set1(rl->log, rl->c_pot, m.potential);
    pbd_h5log_set(rl->log, rl->c_p, m.momentum);
    pbd_h5log_set(rl->log, rl->c_l, m.angular_momentum);
    pbd_h5log_set1(rl->log, rl->c_vmax, vmax);
    return pbd_h5log_step(rl->log, rl->mirror);
}
