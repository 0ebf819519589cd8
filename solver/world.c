/* The world: particle store, constraint sets, attachments and the step's workspace.
 * Everything is allocated here, while the world is built; pbd_step allocates nothing. */
#include "pbd.h"
#include "variants.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

pbd_world *pbd_world_create(int n)
{
    if (n < 0) return NULL;
    pbd_world *w = calloc(1, sizeof *w);
    if (!w) {
        pbd_error(PBD_ENOMEM, "out of memory for a world of %d particles", n);
        return NULL;
    }
    size_t m = n > 0 ? (size_t)n : 1;
    w->n = n;
    w->x = calloc(3 * m, sizeof(double));
    w->p = calloc(3 * m, sizeof(double));
    w->v = calloc(3 * m, sizeof(double));
    w->w = calloc(m, sizeof(double));
    w->def = pbd_solver_def_default();
    if (!w->x || !w->p || !w->v || !w->w) {
        pbd_world_free(w);
        pbd_error(PBD_ENOMEM, "out of memory for a world of %d particles", n);
        return NULL;
    }
    for (int i = 0; i < n; i++) w->w[i] = 1.0;
    return w;
}

static void set_free(pbd_constraint_set *s)
{
    free(s->idx);
    free(s->rest);
    free(s->stiffness);
    free(s->compliance);
    free(s->lambda);
    free(s->k_eff);
    free(s->aux);
    free(s->origin);
}

void pbd_world_free(pbd_world *w)
{
    if (!w) return;
    if (w->collision_stages) w->collision_stages->free(w);
    if (w->fluid_stages) w->fluid_stages->free(w);
    for (int s = 0; s < w->n_sets; s++) set_free(&w->sets[s]);
    free(w->sets);
    free(w->x);
    free(w->p);
    free(w->v);
    free(w->w);
    free(w->attach_idx);
    free(w->attach_anchor);
    free(w->attach_target);
    free(w->work_x);
    free(w->work_w);
    free(w->work_grad);
    free(w->work_x0);
    free(w->iter_max_c);
    free(w->iter_l2_c);
    free(w->iter_sets);
    free(w->iter_xpbd);
    free(w->iter_newton);
    pbd_variants_free(w);
    free(w->particle_origin);
    free(w->q);
    free(w->u);
    free(w->omega);
    free(w->inv_inertia);
    if (w->post_step_free) w->post_step_free(w->post_step_user);
    free(w);
}

void pbd_world_set_particle(pbd_world *w, int i, const double x[3], const double v[3],
                            double mass)
{
    for (int k = 0; k < 3; k++) {
        w->x[3 * i + k] = w->p[3 * i + k] = x[k];
        w->v[3 * i + k] = v ? v[k] : 0.0;
    }
    w->w[i] = (mass > 0.0 && isfinite(mass)) ? 1.0 / mass : 0.0;
}

pbd_status pbd_world_set_particle_w(pbd_world *w, int i, const double x[3], const double v[3],
                                    double inv_mass)
{
    if (i < 0 || i >= w->n)
        return pbd_error(PBD_EINVAL, "pbd_world_set_particle_w: expected a particle index in "
                         "[0, %d), found %d", w->n, i);
    if (!(isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2])) ||
        (v && !(isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]))))
        return pbd_error(PBD_EINVAL, "pbd_world_set_particle_w: particle %d: expected a finite "
                         "position and velocity, found x = (%g, %g, %g)", i, x[0], x[1], x[2]);
    if (!(inv_mass >= 0.0 && isfinite(inv_mass)))
        return pbd_error(PBD_EINVAL, "pbd_world_set_particle_w: particle %d: expected a finite "
                         "inverse mass >= 0 (0: fixed), found %g", i, inv_mass);
    pbd_world_set_particle(w, i, x, v, 1.0);
    w->w[i] = inv_mass; /* stored as given: no 1/(1/w) round trip */
    return PBD_OK;
}

/* The colouring and the Jacobi workspace no longer match the constraints; the step
 * rebuilds them (its fingerprint would notice too: this makes it explicit). */
static void invalidate_variants(pbd_world *w)
{
    if (!w->variants) return;
    w->variants->col_valid = 0;
    w->variants->jac_valid = 0;
}

int pbd_world_add_particle(pbd_world *w, const double x[3], const double v[3], double mass)
{
    if (!(isfinite(x[0]) && isfinite(x[1]) && isfinite(x[2])) ||
        (v && !(isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2])))) {
        pbd_error(PBD_EINVAL, "pbd_world_add_particle: expected a finite position and "
                  "velocity, found x = (%g, %g, %g)", x[0], x[1], x[2]);
        return -1;
    }
    if (!(mass >= 0.0) || w->n == INT32_MAX) {
        pbd_error(PBD_EINVAL, "pbd_world_add_particle: expected a mass >= 0 (0 or inf: fixed) "
                  "and fewer than 2^31-1 particles, found mass %g with %d particles", mass, w->n);
        return -1;
    }
    size_t n = (size_t)w->n + 1;
    double *xs = realloc(w->x, 3 * n * sizeof *xs);
    if (xs) w->x = xs;
    double *ps = realloc(w->p, 3 * n * sizeof *ps);
    if (ps) w->p = ps;
    double *vs = realloc(w->v, 3 * n * sizeof *vs);
    if (vs) w->v = vs;
    double *ws = realloc(w->w, n * sizeof *ws);
    if (ws) w->w = ws;
    if (!xs || !ps || !vs || !ws) {
        pbd_error(PBD_ENOMEM, "pbd_world_add_particle: out of memory for %zu particles", n);
        return -1;
    }
    if (w->particle_origin) { /* renumbered before (solver/reorder.c): a new one is itself */
        int32_t *o = realloc(w->particle_origin, n * sizeof *o);
        if (!o) {
            pbd_error(PBD_ENOMEM, "pbd_world_add_particle: out of memory for %zu particles", n);
            return -1;
        }
        w->particle_origin = o;
        o[w->n] = w->n;
    }
    int i = w->n++;
    pbd_world_set_particle(w, i, x, v, mass);
    invalidate_variants(w);
    return i;
}

/* Grow the per-constraint workspace to hold `arity` particles. */
static pbd_status reserve_workspace(pbd_world *w, int arity)
{
    if (arity <= w->max_arity) return PBD_OK;
    /* 4 per entry: an orientation type's quaternions (pbd_constraint_type.n_orient) */
    double *x = realloc(w->work_x, 4 * (size_t)arity * sizeof(double));
    if (x) w->work_x = x;
    double *wm = realloc(w->work_w, (size_t)arity * sizeof(double));
    if (wm) w->work_w = wm;
    double *g = realloc(w->work_grad, 3 * (size_t)arity * sizeof(double));
    if (g) w->work_grad = g;
    double *x0 = realloc(w->work_x0, 3 * (size_t)arity * sizeof(double));
    if (x0) w->work_x0 = x0;
    if (!x || !wm || !g || !x0) return pbd_error(PBD_ENOMEM, "out of memory for a constraint of arity %d", arity);
    w->max_arity = arity;
    return PBD_OK;
}

int pbd_world_add_set(pbd_world *w, const pbd_constraint_type *type, int arity)
{
    if (!type) return -1;
    if (type->arity > 0) arity = type->arity;
    if (type->arity == 0 && type->max_arity > 0 && arity > type->max_arity) {
        pbd_error(PBD_EINVAL, "constraint set %s: expected an arity of at most %d, found %d",
                  type->name, type->max_arity, arity);
        return -1;
    }
    if (arity < 1) {
        pbd_error(PBD_EINVAL, "constraint set %s: arity must be >= 1, found %d", type->name, arity);
        return -1;
    }
    if (reserve_workspace(w, arity) != PBD_OK) return -1;
    pbd_constraint_set *sets = realloc(w->sets, (size_t)(w->n_sets + 1) * sizeof *sets);
    if (!sets) return -1;
    w->sets = sets;
    pbd_constraint_set *s = &sets[w->n_sets];
    memset(s, 0, sizeof *s);
    s->type = type;
    s->arity = arity;
    return w->n_sets++;
}

/* Grow the parallel arrays of a set to hold cap rows (nothing happens when they do). */
pbd_status pbd_set_reserve(pbd_constraint_set *s, int cap)
{
    if (cap <= s->capacity) return PBD_OK;
    int32_t *idx = realloc(s->idx, (size_t)cap * s->arity * sizeof *idx);
    if (idx) s->idx = idx;
    size_t nr = s->type->n_rest > 0 ? (size_t)s->type->n_rest : 1;
    double *rest = realloc(s->rest, (size_t)cap * nr * sizeof *rest);
    if (rest) s->rest = rest;
    double *k = realloc(s->stiffness, (size_t)cap * sizeof *k);
    if (k) s->stiffness = k;
    double *a = realloc(s->compliance, (size_t)cap * sizeof *a);
    if (a) s->compliance = a;
    double *l = realloc(s->lambda, (size_t)cap * sizeof *l);
    if (l) s->lambda = l;
    double *ke = realloc(s->k_eff, (size_t)cap * sizeof *ke);
    if (ke) s->k_eff = ke;
    int32_t *o = s->origin ? realloc(s->origin, (size_t)cap * sizeof *o) : NULL;
    if (o) s->origin = o;
    if (!idx || !rest || !k || !a || !l || !ke || (s->origin && !o))
        return pbd_error(PBD_ENOMEM, "out of memory for %d %s constraints", cap, s->type->name);
    s->capacity = cap;
    return PBD_OK;
}

int pbd_set_add(pbd_world *w, int set, const int32_t *idx, const double *rest, double stiffness,
                double compliance)
{
    if (set < 0 || set >= w->n_sets) return -1;
    pbd_constraint_set *s = &w->sets[set];
    const int np = s->arity - s->type->n_orient; /* then the orientations (rods) */
    for (int j = 0; j < s->arity; j++) {
        int n = j < np ? w->n : w->n_orient;
        if (idx[j] < 0 || idx[j] >= n) {
            pbd_error(PBD_EINVAL, "constraint %s: %s index %d out of range [0, %d)",
                      s->type->name, j < np ? "particle" : "orientation", idx[j], n);
            return -1;
        }
    }
    if (!(stiffness >= 0.0 && stiffness <= 1.0)) {
        pbd_error(PBD_EINVAL, "constraint %s: stiffness must be in [0, 1], found %g",
                  s->type->name, stiffness);
        return -1;
    }
    if (!(compliance >= 0.0 && isfinite(compliance))) {
        pbd_error(PBD_EINVAL, "constraint %s: compliance must be finite and >= 0, found %g",
                  s->type->name, compliance);
        return -1;
    }
    if (s->count == s->capacity &&
        pbd_set_reserve(s, s->capacity ? 2 * s->capacity : 16) != PBD_OK) {
        pbd_error(PBD_ENOMEM, "out of memory adding a %s constraint", s->type->name);
        return -1;
    }
    int c = s->count;
    memcpy(s->idx + (size_t)c * s->arity, idx, (size_t)s->arity * sizeof *idx);
    int nr = s->type->n_rest;
    double *r = s->rest + (size_t)c * (nr > 0 ? nr : 1);
    if (rest) {
        memcpy(r, rest, (size_t)nr * sizeof *r);
    } else if (s->type->rest) {
        for (int j = 0; j < np; j++)
            memcpy(w->work_x + 3 * j, w->x + 3 * (size_t)idx[j], 3 * sizeof(double));
        for (int j = np; j < s->arity; j++)
            memcpy(w->work_x + 3 * np + 4 * (j - np), w->q + 4 * (size_t)idx[j],
                   4 * sizeof(double));
        pbd_eval_input in = {w->work_x, s->arity, NULL, s->aux, s->n_aux};
        s->type->rest(&in, r);
    } else {
        pbd_error(PBD_EINVAL, "constraint %s: rest values must be given", s->type->name);
        return -1;
    }
    s->stiffness[c] = stiffness;
    s->compliance[c] = compliance;
    s->lambda[c] = 0.0;
    s->k_eff[c] = stiffness;
    if (s->origin) s->origin[c] = c; /* a sorted set: added as number c */
    return s->count++;
}

static pbd_status check_constraint(const pbd_world *w, int set, int c, const char *what)
{
    if (set < 0 || set >= w->n_sets)
        return pbd_error(PBD_EINVAL, "%s: expected a set in [0, %d), found %d", what, w->n_sets,
                         set);
    if (c < 0 || c >= w->sets[set].count)
        return pbd_error(PBD_EINVAL, "%s: expected a constraint of set %d (%s) in [0, %d), "
                         "found %d", what, set, w->sets[set].type->name, w->sets[set].count, c);
    return PBD_OK;
}

pbd_status pbd_set_rewrite(pbd_world *w, int set, int c, const int32_t *idx)
{
    pbd_status st = check_constraint(w, set, c, "pbd_set_rewrite");
    if (st != PBD_OK) return st;
    pbd_constraint_set *s = &w->sets[set];
    const int np = s->arity - s->type->n_orient; /* then the orientations (rods) */
    for (int j = 0; j < s->arity; j++)
        if (idx[j] < 0 || idx[j] >= (j < np ? w->n : w->n_orient))
            return pbd_error(PBD_EINVAL, "pbd_set_rewrite: constraint %s #%d: expected %s "
                             "indices in [0, %d), found %d", s->type->name, c,
                             j < np ? "particle" : "orientation", j < np ? w->n : w->n_orient,
                             idx[j]);
    memcpy(s->idx + (size_t)c * s->arity, idx, (size_t)s->arity * sizeof *idx);
    invalidate_variants(w);
    return PBD_OK;
}

pbd_status pbd_set_remove(pbd_world *w, int set, int c)
{
    pbd_status st = check_constraint(w, set, c, "pbd_set_remove");
    if (st != PBD_OK) return st;
    pbd_constraint_set *s = &w->sets[set];
    size_t tail = (size_t)(s->count - c - 1), a = (size_t)s->arity;
    size_t nr = s->type->n_rest > 0 ? (size_t)s->type->n_rest : 1;
    memmove(s->idx + c * a, s->idx + (c + 1) * a, tail * a * sizeof *s->idx);
    memmove(s->rest + c * nr, s->rest + (c + 1) * nr, tail * nr * sizeof *s->rest);
    memmove(s->stiffness + c, s->stiffness + c + 1, tail * sizeof *s->stiffness);
    memmove(s->compliance + c, s->compliance + c + 1, tail * sizeof *s->compliance);
    memmove(s->lambda + c, s->lambda + c + 1, tail * sizeof *s->lambda);
    memmove(s->k_eff + c, s->k_eff + c + 1, tail * sizeof *s->k_eff);
    if (s->origin) memmove(s->origin + c, s->origin + c + 1, tail * sizeof *s->origin);
    s->count--;
    invalidate_variants(w);
    return PBD_OK;
}

pbd_status pbd_set_aux(pbd_world *w, int set, const int32_t *aux, int n_aux)
{
    pbd_constraint_set *s = &w->sets[set];
    int32_t *a = malloc((size_t)(n_aux > 0 ? n_aux : 1) * sizeof *a);
    if (!a) return pbd_error(PBD_ENOMEM, "out of memory for set topology");
    memcpy(a, aux, (size_t)n_aux * sizeof *a);
    free(s->aux);
    s->aux = a;
    s->n_aux = n_aux;
    return PBD_OK;
}

int pbd_world_attach(pbd_world *w, int i)
{
    if (i < 0 || i >= w->n) return -1;
    int a = w->n_attach;
    int32_t *idx = realloc(w->attach_idx, (size_t)(a + 1) * sizeof *idx);
    if (idx) w->attach_idx = idx;
    double *an = realloc(w->attach_anchor, 3 * (size_t)(a + 1) * sizeof *an);
    if (an) w->attach_anchor = an;
    double *tg = realloc(w->attach_target, 3 * (size_t)(a + 1) * sizeof *tg);
    if (tg) w->attach_target = tg;
    if (!idx || !an || !tg) return -1;
    idx[a] = i;
    for (int k = 0; k < 3; k++) an[3 * a + k] = tg[3 * a + k] = w->x[3 * i + k];
    w->w[i] = 0.0; /* PBD Sec. 3.6: other constraints must not move it */
    return w->n_attach++;
}
