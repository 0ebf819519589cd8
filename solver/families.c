/* The step of the solver families (method vbd, avbd, pd): implicit Euler as the minimisation
 *   G(x) = 1/(2h²) ‖x − y‖²_M + Σ_j E_j(x),   y = x_t + h v_t + h² g,   E_j = C_j²/(2α_j)
 * (VBD Sec. 3, "variational implicit Euler"; Projective Dynamics Sec. 3), whose stationary
 * point is the Newton reference's implicit step (XPBD Eq. 8–9 with λ = −C/α̃). What the methods share lives here:
 * refusals, the inertial target and fixed particles, the per-vertex adjacency and its vertex
 * colouring, the iteration log and the end of a step; the iterations are in solver/vbd/ and
 * solver/pd/. */
#include "solver/families.h"
#include "solver/method.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

pbd_status pbd_family_check_shared(const pbd_world *w)
{
    const pbd_solver_def *d = &w->def;
    pbd_status st = pbd_solver_def_validate(d);
    if (st != PBD_OK) return st;
    const char *name = pbd_method_of(d)->name;
    if ((st = pbd_family_check_contacts(w, name)) != PBD_OK) return st;
    if (w->n_orient > 0)
        return pbd_error(PBD_EINVAL, "%s: expected a world of particles only, found %d "
                         "orientations (rods): the families' local solves have no rotational "
                         "unknowns (solver/README.md \"Orientations\")", name, w->n_orient);
    if (w->fluid)
        return pbd_error(PBD_EINVAL, "%s: expected a world without a fluid, found one: the "
                         "density constraints' neighbour rows change every step and are "
                         "projected by the fluid's own Jacobi sweep (solver/fluid/README.md)",
                         name);
    if (w->post_step)
        return pbd_error(PBD_EINVAL, "%s: expected a world without a post-step hook, found one "
                         "(tearing): the families step a fixed topology", name);
    if (d->damping != PBD_DAMPING_NONE || d->xpbd_beta > 0.0)
        return pbd_error(PBD_EINVAL, "%s: damping: expected none of PBD's or XPBD's (VBD and "
                         "AVBD damp through --vbd-damping), found damping %d, xpbd-damping %g",
                         name, (int)d->damping, d->xpbd_beta);
    if (d->linearize_stiffness)
        return pbd_error(PBD_EINVAL, "%s: linearize: expected no PBD stiffness linearisation "
                         "(the families read the compliance α as the energy C²/(2α))", name);
    return PBD_OK;
}

void pbd_family_free(pbd_family_ws *fw)
{
    if (!fw) return;
    pbd_pd_free(fw->pd);
    pbd_vbd_plan_free(fw->vbd_plan[0]);
    pbd_vbd_plan_free(fw->vbd_plan[1]);
    for (int t = 0; t < fw->n_scratch && fw->scratch; t++) {
        free(fw->scratch[t].xl);
        free(fw->scratch[t].grad);
        free(fw->scratch[t].gp);
        free(fw->scratch[t].gm);
        free(fw->scratch[t].H);
        free(fw->scratch[t].terms);
        free(fw->scratch[t].have);
        free(fw->scratch[t].pair_c);
        free(fw->scratch[t].pair_o);
        free(fw->scratch[t].count);
    }
    free(fw->scratch);
    free(fw->set_c);
    free(fw->adj_ptr);
    free(fw->adj_s);
    free(fw->adj_c);
    free(fw->adj_j);
    free(fw->col_order);
    free(fw->col_start);
    free(fw->y);
    free(fw->x_t);
    free(fw->v_prev);
    free(fw->cheb1);
    free(fw->cheb2);
    free(fw->k);
    free(fw->lam);
    free(fw->c0);
    free(fw->cadj_ptr);
    free(fw->cadj_s);
    free(fw->cadj_c);
    free(fw->cadj_j);
    free(fw->cmu);
    free(fw->ct_lam);
    free(fw->ct_k);
    free(fw->cforce);
    free(fw->x_detect);
    free(fw->warm_k);
    free(fw->warm_lam);
    free(fw->warm_kt);
    free(fw->warm_lt);
    free(fw->warm_lam_next);
    free(fw);
}

/* Greedy vertex colouring in particle order (as solver/xpbd/colouring.c colours constraints): a
 * free particle takes the smallest colour none of the particles sharing a constraint with it
 * has, so that the particles of one colour can be updated in parallel (VBD "Parallelization"). */
static pbd_status colour_vertices(const pbd_world *w, pbd_family_ws *fw)
{
    int n = w->n;
    int32_t *colour = malloc((size_t)(n > 0 ? n : 1) * sizeof *colour);
    int32_t *seen = malloc((size_t)(n + 1) * sizeof *seen);
    if (!colour || !seen) {
        free(colour);
        free(seen);
        return pbd_error(PBD_ENOMEM, "vertex colouring: out of memory for %d particles", n);
    }
    for (int i = 0; i <= n; i++) seen[i] = -1;
    for (int i = 0; i < n; i++) colour[i] = -1;
    int n_col = 0;
    for (int i = 0; i < n; i++) {
        if (w->w[i] <= 0.0) continue;
        for (int a = fw->adj_ptr[i]; a < fw->adj_ptr[i + 1]; a++) {
            const pbd_constraint_set *set = &w->sets[fw->adj_s[a]];
            const int32_t *idx = set->idx + (size_t)fw->adj_c[a] * set->arity;
            for (int j = 0; j < set->arity; j++)
                if (idx[j] != i && colour[idx[j]] >= 0) seen[colour[idx[j]]] = i;
        }
        int c = 0;
        while (seen[c] == i) c++;
        colour[i] = c;
        if (c + 1 > n_col) n_col = c + 1;
    }
    free(seen);
    fw->n_colours = n_col;
    fw->col_start = calloc((size_t)n_col + 2, sizeof *fw->col_start);
    fw->col_order = malloc((size_t)(n > 0 ? n : 1) * sizeof *fw->col_order);
    if (!fw->col_start || !fw->col_order) {
        free(colour);
        return pbd_error(PBD_ENOMEM, "vertex colouring: out of memory");
    }
    for (int i = 0; i < n; i++)
        if (colour[i] >= 0) fw->col_start[colour[i] + 1]++;
    for (int c = 0; c < n_col; c++) fw->col_start[c + 1] += fw->col_start[c];
    int32_t *fill = malloc((size_t)(n_col > 0 ? n_col : 1) * sizeof *fill);
    if (!fill) {
        free(colour);
        return pbd_error(PBD_ENOMEM, "vertex colouring: out of memory");
    }
    for (int c = 0; c < n_col; c++) fill[c] = fw->col_start[c];
    for (int i = 0; i < n; i++)
        if (colour[i] >= 0) fw->col_order[fill[colour[i]]++] = i;
    free(fill);
    free(colour);
    return PBD_OK;
}

static pbd_status build(pbd_world *w, pbd_family_ws *fw, int threads)
{
    int n = w->n, m = 0, a = w->max_arity > 0 ? w->max_arity : 1, ns = pbd_family_static_sets(w);
    for (int s = 0; s < w->n_sets; s++) {
        if (s < ns) m += w->sets[s].count;
        if (w->sets[s].arity > a) a = w->sets[s].arity;
    }
    size_t n3 = 3 * (size_t)(n > 0 ? n : 1), mm = m > 0 ? (size_t)m : 1;
    fw->n = n;
    fw->m = m;
    fw->n_static = ns;
    fw->m_static = fw->m_cap = m;
    fw->n_contacts = 0;
    fw->n_sets = w->n_sets;
    fw->arity = a;
    fw->set_c = malloc((size_t)(w->n_sets + 1) * sizeof *fw->set_c);
    fw->adj_ptr = calloc((size_t)n + 1, sizeof *fw->adj_ptr);
    fw->y = malloc(n3 * sizeof(double));
    fw->x_t = malloc(n3 * sizeof(double));
    fw->v_prev = malloc(n3 * sizeof(double));
    fw->cheb1 = malloc(n3 * sizeof(double));
    fw->cheb2 = malloc(n3 * sizeof(double));
    fw->k = malloc(mm * sizeof(double));
    fw->lam = malloc(mm * sizeof(double));
    fw->c0 = malloc(mm * sizeof(double));
    fw->scratch = calloc((size_t)threads, sizeof *fw->scratch);
    if (!fw->set_c || !fw->adj_ptr || !fw->y || !fw->x_t || !fw->v_prev || !fw->cheb1 ||
        !fw->cheb2 || !fw->k || !fw->lam || !fw->c0 || !fw->scratch)
        return pbd_error(PBD_ENOMEM, "solver families: out of memory for %d particles", n);
    fw->n_scratch = threads;
    size_t a3 = 3 * (size_t)a;
    for (int t = 0; t < threads; t++) {
        family_scratch *sc = &fw->scratch[t];
        sc->xl = malloc(a3 * sizeof(double));
        sc->grad = malloc(a3 * sizeof(double));
        sc->gp = malloc(a3 * sizeof(double));
        sc->gm = malloc(a3 * sizeof(double));
        sc->H = malloc(a3 * a3 * sizeof(double));
        sc->terms = malloc(PBD_VBD_BATCH_PAIRS * sizeof *sc->terms);
        sc->have = malloc(PBD_VBD_BATCH_PAIRS);
        sc->pair_c = malloc(PBD_VBD_BATCH_PAIRS * sizeof *sc->pair_c);
        sc->pair_o = malloc(PBD_VBD_BATCH_PAIRS * sizeof *sc->pair_o);
        sc->count = malloc((4 * (size_t)ns + 1) * sizeof *sc->count);
        if (!sc->xl || !sc->grad || !sc->gp || !sc->gm || !sc->H || !sc->terms || !sc->have ||
            !sc->pair_c || !sc->pair_o || !sc->count)
            return pbd_error(PBD_ENOMEM, "solver families: out of memory for the scratch of "
                             "arity %d", a);
    }
    fw->set_c[0] = 0;
    long total = 0;
    for (int s = 0; s < w->n_sets; s++) {
        const pbd_constraint_set *set = &w->sets[s];
        fw->set_c[s + 1] = fw->set_c[s] + (s < ns ? set->count : 0);
        if (s >= ns) continue;
        for (long q = 0; q < (long)set->count * set->arity; q++) fw->adj_ptr[set->idx[q] + 1]++;
        total += (long)set->count * set->arity;
    }
    for (int i = 0; i < n; i++) fw->adj_ptr[i + 1] += fw->adj_ptr[i];
    size_t t1 = total > 0 ? (size_t)total : 1;
    fw->adj_s = malloc(t1 * sizeof *fw->adj_s);
    fw->adj_c = malloc(t1 * sizeof *fw->adj_c);
    fw->adj_j = malloc(t1 * sizeof *fw->adj_j);
    int32_t *fill = malloc((size_t)(n > 0 ? n : 1) * sizeof *fill);
    if (!fw->adj_s || !fw->adj_c || !fw->adj_j || !fill) {
        free(fill);
        return pbd_error(PBD_ENOMEM, "solver families: out of memory for the adjacency");
    }
    for (int i = 0; i < n; i++) fill[i] = fw->adj_ptr[i];
    for (int s = 0; s < ns; s++) { /* in set, constraint order: a fixed summation order */
        const pbd_constraint_set *set = &w->sets[s];
        for (int c = 0; c < set->count; c++)
            for (int j = 0; j < set->arity; j++) {
                int i = set->idx[(size_t)c * set->arity + j], q = fill[i]++;
                fw->adj_s[q] = s;
                fw->adj_c[q] = c;
                fw->adj_j[q] = j;
            }
    }
    free(fill);
    fw->have_v_prev = 0;
    fw->avbd_ready = 0;
    return colour_vertices(w, fw);
}

pbd_status pbd_family_workspace(pbd_world *w, pbd_family_ws **out)
{
    struct pbd_variants_state *vs = pbd_variants_state_of(w);
    if (!vs) return pbd_error(PBD_ENOMEM, "solver families: out of memory");
    int threads = pbd_variants_threads(w);
    pbd_world scene = *w; /* the scene's sets: the contacts change every step */
    scene.n_sets = pbd_family_static_sets(w);
    uint64_t key = pbd_topology_key(&scene);
    for (int i = 0; i < w->n; i++) key = key * 1099511628211ULL ^ (uint64_t)(w->w[i] > 0.0);
    pbd_family_ws *fw = vs->family;
    if (fw && fw->key == key && fw->n == w->n && fw->n_sets == w->n_sets &&
        fw->n_scratch >= threads) {
        *out = fw;
        return PBD_OK;
    }
    pbd_family_free(fw);
    vs->family = fw = calloc(1, sizeof *fw);
    if (!fw) return pbd_error(PBD_ENOMEM, "solver families: out of memory");
    pbd_status st = build(w, fw, threads);
    if (st != PBD_OK) {
        pbd_family_free(fw);
        vs->family = NULL;
        return st;
    }
    fw->key = key;
    *out = fw;
    return PBD_OK;
}

int pbd_family_eval(const pbd_world *w, const pbd_constraint_set *set, int c, const double *pos,
                    family_scratch *sc, pbd_eval_input *in, double *C)
{
    (void)w;
    const int32_t *idx = set->idx + (size_t)c * set->arity;
    for (int q = 0; q < set->arity; q++)
        for (int k = 0; k < 3; k++) sc->xl[3 * q + k] = pos[3 * (size_t)idx[q] + k];
    int nr = set->type->n_rest;
    pbd_eval_input e = {sc->xl, set->arity, set->rest + (size_t)c * (nr > 0 ? nr : 1), set->aux,
                        set->n_aux};
    *in = e;
    return set->type->eval(in, C, sc->grad);
}

double pbd_family_gradient_norm(pbd_world *w, pbd_family_ws *fw, const double *pos, double h)
{
    family_scratch *sc = &fw->scratch[0];
    double sum = 0.0, g[3];
    for (int i = 0; i < w->n; i++) {
        if (w->w[i] <= 0.0) continue;
        double m = 1.0 / w->w[i];
        for (int k = 0; k < 3; k++) g[k] = m * (pos[3 * i + k] - fw->y[3 * i + k]);
        for (int a = fw->adj_ptr[i]; a < fw->adj_ptr[i + 1]; a++) {
            const pbd_constraint_set *set = &w->sets[fw->adj_s[a]];
            int c = fw->adj_c[a], j = fw->adj_j[a];
            double alpha = set->compliance[c], C;
            if (!(alpha > 0.0)) continue;
            pbd_eval_input in;
            if (pbd_family_eval(w, set, c, pos, sc, &in, &C) != PBD_EVAL_OK) continue;
            if (set->type->inequality && C >= 0.0) continue;
            for (int k = 0; k < 3; k++) g[k] += h * h * C / alpha * sc->grad[3 * j + k];
        }
        sum += g[0] * g[0] + g[1] * g[1] + g[2] * g[2];
    }
    return sqrt(sum);
}

/* y, x_t, and the fixed particles where the step puts them: x + h v, attachments at their
 * targets at t + h (as the Newton reference does). */
static void predict(pbd_world *w, pbd_family_ws *fw, double h)
{
    for (int i = 0; i < w->n; i++) {
        int is_free = w->w[i] > 0.0;
        for (int k = 0; k < 3; k++) {
            fw->x_t[3 * i + k] = w->x[3 * i + k];
            fw->y[3 * i + k] = w->x[3 * i + k] + h * w->v[3 * i + k] +
                               (is_free ? h * h * w->def.gravity[k] : 0.0);
        }
    }
    for (int a = 0; a < w->n_attach; a++) {
        double *t = w->attach_target + 3 * a;
        if (w->attach_motion) w->attach_motion(a, w->time + h, w->attach_anchor + 3 * a, t,
                                               w->attach_user);
        for (int k = 0; k < 3; k++) fw->y[3 * (size_t)w->attach_idx[a] + k] = t[k];
    }
}

/* The initial guess in w->p (VBD "Initialization"); fixed particles at y. */
static void initial_guess(pbd_world *w, pbd_family_ws *fw, double h, int from_target)
{
    const pbd_solver_def *d = &w->def;
    double g = sqrt(d->gravity[0] * d->gravity[0] + d->gravity[1] * d->gravity[1] +
                    d->gravity[2] * d->gravity[2]);
    for (int i = 0; i < w->n; i++) {
        double *p = w->p + 3 * i, *x = w->x + 3 * i, *v = w->v + 3 * i;
        if (w->w[i] <= 0.0 || from_target ||
            d->vbd_init == PBD_VBD_INIT_ACCELERATION) {
            for (int k = 0; k < 3; k++) p[k] = fw->y[3 * i + k];
            continue;
        }
        double acc[3] = {0, 0, 0};
        if (d->vbd_init == PBD_VBD_INIT_ADAPTIVE && g > 0.0) {
            /* ã = â (a_t·â) clamped to [0, |a_ext|], a_t = (v_t − v_{t−1})/h; the first step
             * has no a_t and takes a_ext */
            double along = g;
            if (fw->have_v_prev) {
                along = 0.0;
                for (int k = 0; k < 3; k++)
                    along += (v[k] - fw->v_prev[3 * i + k]) / h * d->gravity[k] / g;
                along = fmin(fmax(along, 0.0), g);
            }
            for (int k = 0; k < 3; k++) acc[k] = along * d->gravity[k] / g;
        }
        int inertia = d->vbd_init != PBD_VBD_INIT_PREVIOUS;
        for (int k = 0; k < 3; k++) p[k] = x[k] + (inertia ? h * v[k] : 0.0) + h * h * acc[k];
    }
    for (int i = 0; i < 3 * w->n; i++) fw->v_prev[i] = w->v[i];
    fw->have_v_prev = 1;
}

/* The sets' λ in XPBD's convention (the constraint force on particle j is ∇_jC λ/h², XPBD
 * Eq. 9): λ = −h² λ⁺, so that C + α̃λ = 0 at the energies of VBD and PD, and the measure
 * stage's XPBD residual says how far AVBD's penalties are from the material (or, hard, C
 * from 0). */
static void store_lambda(pbd_world *w, pbd_family_ws *fw, double h,
                         const pbd_family_iteration *fi)
{
    family_scratch *sc = &fw->scratch[0];
    for (int s = 0; s < w->n_sets; s++) {
        pbd_constraint_set *set = &w->sets[s];
        for (int c = 0; c < set->count; c++) {
            pbd_eval_input in;
            double C, lam = 0.0, k;
            set->lambda[c] = 0.0;
            if (pbd_family_eval(w, set, c, w->p, sc, &in, &C) != PBD_EVAL_OK) continue;
            if (fi->force(w, fw, s, c, C, &lam, &k)) set->lambda[c] = -h * h * lam;
        }
    }
}

static void log_iteration(pbd_world *w, pbd_family_ws *fw, double h, int k)
{
    pbd_world_residuals_per_set(w, w->p, 1.0 / (h * h), w->iter_sets + (size_t)k * w->n_sets * 3,
                                &w->iter_max_c[k], &w->iter_l2_c[k], &w->iter_xpbd[k]);
    w->iter_newton[k] = pbd_family_gradient_norm(w, fw, w->p, h);
}

pbd_status pbd_family_step(pbd_world *w, pbd_family_ws *fw, double h,
                           const pbd_family_iteration *fi)
{
    const pbd_solver_def *d = &w->def;
    pbd_status st;
    int threads = pbd_variants_threads(w);
    if (w->n < PBD_FAMILY_PARALLEL_MIN) threads = 1;
    double t0 = now_seconds();
    for (int sub = 0; sub < d->substeps; sub++) {
        predict(w, fw, h);
        initial_guess(w, fw, h, fi->from_target);
        if ((st = pbd_family_contacts_begin(w, fw, h)) != PBD_OK) return st;
        if ((st = fi->begin(w, fw, h)) != PBD_OK) return st;
        /* a self contact joins particles of one colour: their sweep runs on one thread */
        int th = fw->self_rows > 0 ? 1 : threads;
        for (int it = 0; it < d->iterations; it++) {
            if (pbd_stop_requested())
                return pbd_error(PBD_EINTR, "%s: step %ld abandoned in substep %d at iteration "
                                 "%d on a stop request", pbd_method_of(d)->name,
                                 w->step_count + 1, sub + 1, it);
            if ((st = fi->iteration(w, fw, h, it, th)) != PBD_OK) return st;
            if (d->record_iterations) {
                store_lambda(w, fw, h, fi); /* for the XPBD residual */
                log_iteration(w, fw, h, sub * d->iterations + it);
            }
        }
        store_lambda(w, fw, h, fi);
        if (fw->n_contacts > 0 && fi->contact_forces) fi->contact_forces(w, fw, h);
        for (int i = 0; i < 3 * w->n; i++) {
            w->v[i] = (w->p[i] - w->x[i]) / h;
            w->x[i] = w->p[i];
        }
        if (w->collision_stages && w->collision_stages->family_measure)
            w->collision_stages->family_measure(w, h, PBD_FAMILY_FRICTION_EPS_V);
        w->time += h;
    }
    w->stats.stage_seconds[PBD_STAGE_PROJECT] = now_seconds() - t0;
    w->stats.threads = threads;
    w->stats.skipped = 0;
    return PBD_OK;
}

pbd_status pbd_family_make(pbd_world *w, void **ws)
{
    pbd_family_ws *fw = NULL;
    pbd_status st = pbd_family_workspace(w, &fw);
    *ws = fw;
    return st;
}

void pbd_family_release(struct pbd_variants_state *vs)
{
    pbd_family_free(vs->family);
    vs->family = NULL;
}

pbd_status pbd_family_check(const pbd_world *w) { return pbd_method_check(w); }
