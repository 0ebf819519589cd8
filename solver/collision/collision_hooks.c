/* generateCollisionConstraints (line 8) and velocityUpdate (line 16) of PBD Algorithm 1
 * (PBD Sec. 3.4, 4.2, 4.3).
 *
 * Line 8, for a substep Δt: the rigid bodies predict their pose (solver/collision/rigid.c);
 * every free particle's ray x_i -> p_i is tested against every collider (static or a body's
 * shape): entering at q_c with normal n_c, or lying inside with the closest point q_s and
 * normal n_s, gives a plane_collision row {q, n}, k = 1, α = 0, in the contact set (so does a
 * p that ends outside within the contact margin, at its closest surface point: inactive
 * unless the projection pushes the particle in); then self collision and the boxes' corners
 * add their rows (solver/collision/collision_self.c). The contact sets are emptied and
 * refilled every substep and projected with the other constraints.
 *
 * Line 16, the friction and restitution model. For a contact of particle i (inverse mass
 * w_i, now at x_i on the contact plane next to q) with normal n: v_s is the surface's
 * velocity there (0 for a static collider, v_b + ω × (x_i - x_b) for a body), v = v_i - v_s
 * the relative velocity, v_n = v·n, v_t = v - v_n n, w_s(d) = 1/M + (r × d)·I⁻¹(r × d) the
 * body's inverse effective mass there along d (0 for a static collider), and v_n,pre < 0
 * the relative normal velocity of the predicted motion (x_i -> p_i), stored when the
 * contact was made.
 *
 *  (0) What the projection did. Its multiplier λ (Δp_i = λ w_i n summed over the
 *      iterations; λ > 0 when the contact pushed) is a normal impulse J_p = λ/Δt on the
 *      particle. It left v_n between v_n,pre and 0 (just enough to reach the surface):
 *      a perfectly inelastic impact. A body receives -J_p n at q: m_i Δp_i / Δt
 *      (PBD Sec. 4.2), so the exchange conserves linear momentum exactly. It acts at the
 *      particle's start position x_i rather than at q: the particle's own angular momentum
 *      changes by x_i × m_i Δp_i/Δt, so this choice conserves the discrete angular
 *      momentum Σ x × m v + x_b × M v_b + L exactly (the body keeps its predicted pose);
 *      the two points differ by the particle's motion within the substep, O(Δt |v_i|).
 *      The body reacts in its velocity: its pose for this substep stays the one the
 *      particles were projected against (one substep of lag, like an explicit force).
 *      The body is kinematic during the projection (k = 1, α = 0 like every contact).
 *      Limitation: when the particle cannot give way (cloth pulled taut between
 *      attachments, no slack), the contact and the cloth fight in every iteration, λ grows
 *      with the iteration count and the body is thrown back; cloth with some slack and a
 *      contact margin (pbd_world_set_contact_margin) behave (tests/test_rigid.c).
 *      Contacts with λ = 0 never acted and are skipped.
 *  (1) Restitution: the target is v_n' = -e v_n,pre when the approach was faster than
 *      2 |g| Δt (what gravity adds in two substeps; slower, resting contacts get e = 0 so
 *      that they do not jitter), else v_n' = 0. The normal impulse
 *          j_n = max(0, v_n' - v_n) / (w_i + w_s(n))
 *      moves v_i by w_i j_n n and the body by -j_n n at x_i.
 *  (2) Coulomb friction with the substep's normal impulse J_n = J_p + j_n. The impulse
 *      that stops the sliding is j_stick = |v_t| / (w_i + w_s(t)), t = v_t/|v_t|:
 *          static:   j_stick <= μs J_n  ->  j_t = j_stick   (v_t = 0, the contact sticks)
 *          kinetic:  otherwise          ->  j_t = min(μk J_n, j_stick)
 *      v_i -= w_i j_t t, the body gets +j_t t. On a static surface this reads: stick if
 *      |v_t| <= μs |Δv_n|, else |v_t| <- max(0, |v_t| - μk |Δv_n|), Δv_n = w_i J_n the normal
 *      velocity change of the substep. The same impulse is applied to the substep's motion,
 *      x_i -= Δt w_i j_t t, so that a sticking particle does not creep by Δt v_t per substep
 *      (position-level static friction, as Macklin et al. 2014 do in the projection); the
 *      change is tangential, so the contact stays satisfied. With it the particle's
 *      x × m v changes as if the impulse acted at x_i - Δt v_i, and that is where the body
 *      takes it (exact angular momentum again).
 *  Corner contacts (point_triangle with the corner as a fixed particle) give the body the
 *  reaction of what the projection did to the triangle, +λ ∇_q C / Δt at the corner's start
 *  position, with ∇_q C at the predicted positions where the projection starts (λ sums the
 *  iterations' multipliers, each with its own gradient; the first, largest one sees these
 *  positions: the linear momentum is then exchanged to ~1e-4, tests/test_rigid.c); they
 *  have no friction or restitution. Self collision is internal: it needs no velocity pass.
 *  Finally the bodies take their predicted pose. */
#include "collide.h"

#include <string.h>

static void reset_sets(pbd_world *w)
{
    struct pbd_collision_state *cs = w->collision;
    if (cs->contact_set >= 0) w->sets[cs->contact_set].count = 0;
    if (cs->self_set >= 0) w->sets[cs->self_set].count = 0;
    if (cs->corner_set >= 0) w->sets[cs->corner_set].count = 0;
    cs->stats.contacts = cs->stats.self_contacts = cs->stats.corner_contacts = 0;
}

static const rigid_body *body_of(const struct pbd_collision_state *cs, int collider)
{
    int b = cs->colliders[collider].body;
    return b >= 0 ? &cs->bodies[b] : NULL;
}

static void particle_contacts(pbd_world *w, double h)
{
    struct pbd_collision_state *cs = w->collision;
    for (int i = 0; i < w->n; i++) {
        if (w->w[i] <= 0.0) continue; /* fixed particles and corners are not projected */
        const double *x = w->x + 3 * i, *p = w->p + 3 * i;
        for (int c = 0; c < cs->n_colliders; c++) {
            double rest[6];
            if (shape_contact(&cs->colliders[c].shape, x, p, cs->margin, rest, rest + 3) ==
                CONTACT_NONE)
                continue;
            const int32_t idx = i;
            int row = collision_push(w, cs->contact_set, &idx, rest);
            if (row < 0) continue;
            double v[3], vs[3] = {0, 0, 0};
            for (int k = 0; k < 3; k++) v[k] = (p[k] - x[k]) / h;
            const rigid_body *b = body_of(cs, c);
            if (b) rigid_point_velocity(b, rest, vs);
            cs->contact[row].collider = c;
            v3_sub(v, v, vs);
            cs->contact[row].vn_pre = v3_dot(v, rest + 3);
            cs->stats.contacts++;
        }
    }
}

void collision_generate(pbd_world *w, double h)
{
    struct pbd_collision_state *cs = w->collision;
    if (!cs) return;
    /* the particle count grows only when something was added to the world (a body's
     * corners, a torn vertex): then, and only then, the buffers follow */
    if (cs->n_particles != w->n && collision_reserve(w) != PBD_OK) return;
    reset_sets(w);
    contact_stats_begin(w);
    if (cs->n_bodies > 0) rigid_predict(w, h);
    if (cs->contact_set >= 0) particle_contacts(w, h);
    collision_self_generate(w, h);
}

/* (1) and (2) of the model above for row r of the contact set. Relative velocities and
 * effective masses are taken where the particle is (on the contact plane, next to q); the
 * body's side of the restitution impulse acts there too, so that the particle's
 * x_i × m_i Δv_i and the body's change cancel and the angular momentum is kept. */
static void respond(pbd_world *w, const pbd_constraint_set *s, int r, double h)
{
    struct pbd_collision_state *cs = w->collision;
    double lambda = s->lambda[r];
    int i = s->idx[r];
    double wi = w->w[i];
    if (!(lambda > 0.0) || wi <= 0.0) return;
    pbd_contact_stats *cst = &cs->cstats;
    cst->active++;
    const double *n = s->rest + 6 * r + 3;
    const contact_info *ci = &cs->contact[r];
    const pbd_material *mat = &cs->colliders[ci->collider].mat;
    int bi = cs->colliders[ci->collider].body;
    rigid_body *b = bi >= 0 ? &cs->bodies[bi] : NULL;
    double *vi = w->v + 3 * i, *xi = w->x + 3 * i, at[3], vs[3] = {0, 0, 0}, v[3], J[3];
    v3_copy(at, xi);

    /* (1) restitution */
    if (b) rigid_point_velocity(b, at, vs);
    v3_sub(v, vi, vs);
    double vn = v3_dot(v, n);
    double g = v3_norm(w->def.gravity);
    double target = ci->vn_pre < -2.0 * g * h ? -mat->restitution * ci->vn_pre : 0.0;
    double jn = 0.0;
    if (vn < target) {
        jn = (target - vn) / (wi + (b ? rigid_inv_mass_at(b, at, n) : 0.0));
        v3_axpy(vi, wi * jn, n);
        if (b) {
            v3_scale(J, n, -jn);
            rigid_apply_impulse(b, J, at);
        }
    }

    /* (2) Coulomb friction with the substep's normal impulse */
    double Jn = lambda / h + jn;
    cst->impulse_normal += Jn;
    if (b) rigid_point_velocity(b, at, vs);
    v3_sub(v, vi, vs);
    vn = v3_dot(v, n);
    double vt[3];
    v3_copy(vt, v);
    v3_axpy(vt, -vn, n);
    double speed = v3_norm(vt);
    int friction = mat->mu_static > 0.0 || mat->mu_kinetic > 0.0;
    if (!(speed > 0.0) || !friction) {
        if (speed > 0.0) cst->sliding++;
        else cst->sticking++;
        return;
    }
    double t[3];
    v3_scale(t, vt, 1.0 / speed);
    double j_stick = speed / (wi + (b ? rigid_inv_mass_at(b, at, t) : 0.0));
    double jt = j_stick <= mat->mu_static * Jn ? j_stick : fmin(mat->mu_kinetic * Jn, j_stick);
    if (jt >= j_stick) cst->sticking++;
    else cst->sliding++;
    cst->impulse_tangential += jt;
    /* with the position correction the particle's x × m v changes by (x - Δt v) × m Δv:
     * the body takes the reaction at that point (the lever arm that keeps L exact) */
    double at_f[3];
    v3_copy(at_f, xi);
    v3_axpy(at_f, -h, vi);
    v3_axpy(vi, -wi * jt, t);
    v3_axpy(xi, -h * wi * jt, t);
    if (b) {
        v3_scale(J, t, jt);
        rigid_apply_impulse(b, J, at_f);
    }
}

/* Where the body takes the reaction to particle i's projection impulse: the particle's
 * start position x_i = x - Δt v (the model above). */
static void reaction_point(const pbd_world *w, int i, double h, double at[3])
{
    for (int k = 0; k < 3; k++) at[k] = w->x[3 * i + k] - h * w->v[3 * i + k];
}

/* (0) for the bodies: the reaction to every projection impulse. */
static void projection_reactions(pbd_world *w, double h)
{
    struct pbd_collision_state *cs = w->collision;
    if (cs->contact_set >= 0) {
        const pbd_constraint_set *s = &w->sets[cs->contact_set];
        for (int r = 0; r < s->count; r++) {
            int bi = cs->colliders[cs->contact[r].collider].body;
            if (bi < 0 || !(s->lambda[r] > 0.0)) continue;
            rigid_body *b = &cs->bodies[bi];
            double J[3], at[3];
            v3_scale(J, s->rest + 6 * r + 3, -s->lambda[r] / h); /* -m_i Δp_i / Δt */
            reaction_point(w, s->idx[r], h, at);
            rigid_apply_impulse(b, J, at);
        }
    }
    if (cs->corner_set >= 0) {
        const pbd_constraint_set *s = &w->sets[cs->corner_set];
        for (int r = 0; r < s->count; r++) {
            if (!(s->lambda[r] > 0.0)) continue;
            const corner_info *ki = &cs->corner[r];
            rigid_body *b = &cs->bodies[ki->body];
            double J[3], at[3];
            v3_scale(J, ki->grad_q, s->lambda[r] / h); /* +λ ∇_q C / Δt */
            reaction_point(w, s->idx[4 * r], h, at); /* the corner's start position */
            rigid_apply_impulse(b, J, at);
        }
    }
}

void collision_velocity_update(pbd_world *w, double h)
{
    struct pbd_collision_state *cs = w->collision;
    if (!cs) return;
    contact_crossings_start(w, h); /* before restitution changes v: x - h v is the start */
    if (cs->n_bodies > 0) projection_reactions(w, h);
    if (cs->contact_set >= 0) {
        const pbd_constraint_set *s = &w->sets[cs->contact_set];
        for (int r = 0; r < s->count; r++) respond(w, s, r, h);
    }
    contact_stats_end(w); /* against the bodies' predicted pose, which they now take */
    if (cs->n_bodies > 0) rigid_commit(w);
}

