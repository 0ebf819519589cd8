/* What the solver families (VBD, AVBD, PD; solver/families.c) ask of the contacts through
 * pbd_step_stages: which sets hold contacts, a collider row's friction coefficient, what
 * they cannot take, and the contact measures in place of velocityUpdate (the families solve
 * friction in their own iterations, solver/vbd/README.md, solver/pd/README.md). */
#include "collide.h"

static int contact_kind(const pbd_world *w, int s)
{
    const struct pbd_collision_state *cs = w->collision;
    if (!cs) return PBD_CONTACT_NONE;
    if (s == cs->contact_set) return PBD_CONTACT_COLLIDER;
    if (s == cs->self_set) return PBD_CONTACT_SELF;
    if (s == cs->corner_set) return PBD_CONTACT_OTHER;
    return PBD_CONTACT_NONE;
}

/* One coefficient per contact: the kinetic one (the families' friction models have one). */
static double contact_mu(const pbd_world *w, int s, int r)
{
    const struct pbd_collision_state *cs = w->collision;
    if (!cs || s != cs->contact_set) return 0.0;
    return cs->colliders[cs->contact[r].collider].mat.mu_kinetic;
}

static double contact_gap(const pbd_world *w, int s)
{
    const struct pbd_collision_state *cs = w->collision;
    if (!cs) return 0.0;
    return s == cs->self_set ? 2.0 * cs->thickness : cs->margin; /* collision_self.c's detect */
}

static const char *family_refusal(const pbd_world *w)
{
    const struct pbd_collision_state *cs = w->collision;
    if (!cs) return NULL;
    if (cs->n_bodies > 0)
        return "expected no rigid bodies, found some: their two-way coupling is PBD's "
               "velocity-level exchange (solver/collision/README.md), not an energy of the "
               "implicit step";
    for (int c = 0; c < cs->n_colliders; c++)
        if (cs->colliders[c].mat.restitution > 0.0)
            return "expected restitution 0, found a collider with e > 0: the families' "
                   "implicit-Euler contact is perfectly inelastic and they have no velocity "
                   "pass";
    return NULL;
}

/* contact_stats_end's penetration and crossings, and the rows' activity from the families'
 * λ (XPBD's convention: λ > 0 pushed, λ/h the normal impulse); sticking by the tangential
 * speed relative to the (static) collider. */
static void family_measure(pbd_world *w, double h, double v_stick)
{
    struct pbd_collision_state *cs = w->collision;
    if (!cs) return;
    contact_crossings_start(w, h);
    pbd_contact_stats *st = &cs->cstats;
    st->impulse_tangential = NAN; /* not measured: the families' friction is a force */
    if (cs->contact_set >= 0) {
        const pbd_constraint_set *s = &w->sets[cs->contact_set];
        for (int r = 0; r < s->count; r++) {
            if (!(s->lambda[r] > 0.0)) continue;
            st->active++;
            st->impulse_normal += s->lambda[r] / h;
            const double *n = s->rest + 6 * r + 3, *v = w->v + 3 * (size_t)s->idx[r];
            double vt[3], vn = v3_dot(v, n);
            v3_copy(vt, v);
            v3_axpy(vt, -vn, n);
            if (v3_norm(vt) <= v_stick) st->sticking++;
            else st->sliding++;
        }
    }
    contact_stats_end(w);
}

static int push_out(const pbd_world *w, double *x)
{
    const struct pbd_collision_state *cs = w->collision;
    int moved = 0;
    for (int c = 0; cs && c < cs->n_colliders; c++) {
        const shape *sh = &cs->colliders[c].shape;
        if (cs->colliders[c].body >= 0 || sh->kind == SHAPE_MESH) continue;
        for (int i = 0; i < w->n; i++) {
            if (!(w->w[i] > 0.0) || (cs->is_proxy && i < cs->n_particles && cs->is_proxy[i]))
                continue;
            moved += shape_push_out(sh, x + 3 * (size_t)i);
        }
    }
    return moved;
}

const pbd_step_stages collision_stages = {
    .generate_collisions = collision_generate,
    .velocity_update = collision_velocity_update,
    .free = collision_free,
    .contact_kind = contact_kind,
    .contact_mu = contact_mu,
    .contact_gap = contact_gap,
    .family_refusal = family_refusal,
    .family_measure = family_measure,
    .push_out = push_out,
};
