/* The solver families' contacts (method vbd, avbd, pd): what they take of the collision
 * room's (solver/collision/, through pbd_step_stages), and the contacts of a (sub)step
 * numbered after the scene's constraints with their vertex adjacency (solver/families.h). The
 * methods' contact terms are in solver/vbd/vbd_contact.c and solver/pd/pd_contact.c. */
#include "solver/families.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int pbd_family_static_sets(const pbd_world *w)
{
    const pbd_step_stages *cs = w->collision_stages;
    if (!cs || !cs->contact_kind) return w->n_sets;
    for (int s = 0; s < w->n_sets; s++)
        if (cs->contact_kind(w, s) != PBD_CONTACT_NONE) return s;
    return w->n_sets;
}

double pbd_friction_f1_over_u(double u, double eps)
{
    return u < eps ? 2.0 / eps - u / (eps * eps) : 1.0 / u;
}

pbd_status pbd_family_check_contacts(const pbd_world *w, const char *name)
{
    const pbd_step_stages *cs = w->collision_stages;
    const char *why = cs && cs->family_refusal ? cs->family_refusal(w) : NULL;
    if (cs && !cs->contact_kind)
        why = "expected contact stages that name their contact sets, found others";
    if (why) return pbd_error(PBD_EINVAL, "%s: contacts: %s", name, why);
    int first = pbd_family_static_sets(w);
    for (int s = first; s < w->n_sets; s++) {
        int kind = cs->contact_kind(w, s);
        if (kind == PBD_CONTACT_NONE)
            return pbd_error(PBD_EINVAL, "%s: set %d (%s): expected the contact sets last (add "
                             "colliders after the scene's sets), found it after contact set %d: "
                             "the families number the scene's constraints before the contacts",
                             name, s, w->sets[s].type->name, first);
        if (kind == PBD_CONTACT_OTHER && w->sets[s].count > 0)
            return pbd_error(PBD_EINVAL, "%s: set %d (%s): expected particle-collider and self "
                             "contacts only, found rigid bodies' corner contacts", name, s,
                             w->sets[s].type->name);
    }
    return PBD_OK;
}

/* realloc that keeps *p on failure */
static int grow(void *pp, size_t bytes)
{
    void **p = pp, *q = realloc(*p, bytes ? bytes : 1);
    if (!q) return 0;
    *p = q;
    return 1;
}

/* After the initial guess: the (sub)step's contacts, detected on the ray from x_t to the
 * initial guess (PBD Algorithm 1 line 8, solver/collision/), numbered after the scene's
 * constraints, their vertex adjacency, μ, VBD's k_c and its displacement bound (VBD Sec. 4:
 * b = γ_p d with d the distance no undetected pair comes within, here the detection's gap
 * plus the prediction's largest displacement: two vertices moving b each close a gap by at
 * most 2b < d; ours: one uniform bound from the detection instead of the paper's per-vertex
 * distances). Allocates only when the contacts outgrow what the last substeps needed. */
pbd_status pbd_family_contacts_begin(pbd_world *w, pbd_family_ws *fw, double h)
{
    const pbd_step_stages *cs = w->collision_stages;
    fw->n_contacts = fw->self_rows = 0;
    fw->self_set = -1;
    fw->bound = INFINITY;
    if (!cs) return PBD_OK;
    cs->generate_collisions(w, h);
    int n = w->n, m = fw->m_static, self_set = -1;
    long total = 0;
    for (int s = fw->n_static; s < w->n_sets; s++) {
        const pbd_constraint_set *set = &w->sets[s];
        fw->set_c[s] = m;
        m += set->count;
        total += (long)set->count * set->arity;
        if (cs->contact_kind(w, s) == PBD_CONTACT_SELF) {
            fw->self_rows += set->count;
            fw->self_set = self_set = s;
        }
    }
    fw->set_c[w->n_sets] = m;
    fw->n_contacts = m - fw->m_static;
    size_t mm = (size_t)m, d = sizeof(double), i4 = sizeof(int32_t);
    if (m > fw->m_cap) {
        if (!grow(&fw->k, mm * d) || !grow(&fw->lam, mm * d) || !grow(&fw->c0, mm * d) ||
            !grow(&fw->cmu, mm * d) || !grow(&fw->ct_lam, 3 * mm * d) ||
            !grow(&fw->ct_k, mm * d) || !grow(&fw->cforce, 2 * mm * d))
            return pbd_error(PBD_ENOMEM, "solver families: out of memory for %d contacts", m);
        fw->m_cap = m;
    }
    size_t n1 = (size_t)(n > 0 ? n : 1);
    if (!fw->cadj_ptr) {
        if (!grow(&fw->cadj_ptr, (n1 + 1) * i4) || !grow(&fw->x_detect, 3 * n1 * d) ||
            !grow(&fw->warm_k, n1 * d) || !grow(&fw->warm_lam, n1 * d) ||
            !grow(&fw->warm_kt, n1 * d) || !grow(&fw->warm_lt, 3 * n1 * d) ||
            !grow(&fw->warm_lam_next, n1 * d))
            return pbd_error(PBD_ENOMEM, "solver families: out of memory for %d particles", n);
        for (int i = 0; i < n; i++) fw->warm_k[i] = 0.0;
    }
    if (total > fw->cadj_cap) {
        size_t t = (size_t)total * i4;
        if (!grow(&fw->cadj_s, t) || !grow(&fw->cadj_c, t) || !grow(&fw->cadj_j, t))
            return pbd_error(PBD_ENOMEM, "solver families: out of memory for %ld contact "
                             "entries", total);
        fw->cadj_cap = (int)total;
    }
    for (int i = 0; i <= n; i++) fw->cadj_ptr[i] = 0;
    for (int s = fw->n_static; s < w->n_sets; s++) {
        const pbd_constraint_set *set = &w->sets[s];
        for (long q = 0; q < (long)set->count * set->arity; q++) fw->cadj_ptr[set->idx[q] + 1]++;
    }
    for (int i = 0; i < n; i++) fw->cadj_ptr[i + 1] += fw->cadj_ptr[i];
    for (int s = fw->n_static; s < w->n_sets; s++) { /* filled back to front: then in order */
        const pbd_constraint_set *set = &w->sets[s];
        int collider = cs->contact_kind(w, s) == PBD_CONTACT_COLLIDER;
        for (int c = 0; c < set->count; c++) {
            fw->cmu[fw->set_c[s] + c] = collider ? cs->contact_mu(w, s, c) : 0.0;
            for (int j = 0; j < set->arity; j++) {
                int q = fw->cadj_ptr[set->idx[(size_t)c * set->arity + j]]++;
                fw->cadj_s[q] = s;
                fw->cadj_c[q] = c;
                fw->cadj_j[q] = j;
            }
        }
    }
    for (int i = n; i > 0; i--) fw->cadj_ptr[i] = fw->cadj_ptr[i - 1];
    fw->cadj_ptr[0] = 0;
    double mh_max = 0.0, dmax = 0.0;
    for (int i = 0; i < n; i++) {
        double dx[3];
        for (int k = 0; k < 3; k++) dx[k] = w->p[3 * i + k] - w->x[3 * i + k];
        dmax = fmax(dmax, sqrt(dx[0] * dx[0] + dx[1] * dx[1] + dx[2] * dx[2]));
        if (w->w[i] > 0.0) mh_max = fmax(mh_max, 1.0 / (w->w[i] * h * h));
    }
    memcpy(fw->x_detect, w->p, 3 * (size_t)n * d);
    double stiff = PBD_VBD_CONTACT_RATIO * mh_max; /* or the scene's stiffest 1/α */
    for (int s = 0; s < fw->n_static; s++)
        for (int c = 0; c < w->sets[s].count; c++)
            if (w->sets[s].compliance[c] > 0.0) stiff = fmax(stiff, 1.0 / w->sets[s].compliance[c]);
    fw->k_contact = w->def.vbd_contact_stiffness > 0.0 ? w->def.vbd_contact_stiffness : stiff;
    if (self_set >= 0 && cs->contact_gap)
        fw->bound = PBD_VBD_BOUND_GAMMA * (cs->contact_gap(w, self_set) + dmax);
    return PBD_OK;
}
