/* Workspace of the solver variants: sized when a definition first steps or when the
 * constraints change (detected by a fingerprint of the topology), never otherwise. */
#include "pbd.h"
#include "variants.h"
#include "solver/method.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* One 64-bit value into the fingerprint (FNV-1a style, a word at a time). */
static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v;
    h *= 1099511628211ULL;
    return h ^ (h >> 29);
}

/* Computed before every (sub)step's projection when the scheme needs a colouring or the
 * Jacobi workspace: one pass over the index rows, a small cost next to the iterations. It
 * catches constraints added or removed and index rows changed in place (tearing). The rows
 * are hashed 64 bits at a time in four independent lanes (four multiply chains in flight
 * instead of one), combined at the end. */
uint64_t pbd_topology_key(const pbd_world *w)
{
    uint64_t h = 14695981039346656037ULL;
    h = mix(h, (uint64_t)w->n);
    h = mix(h, (uint64_t)w->n_sets);
    for (int s = 0; s < w->n_sets; s++) {
        const pbd_constraint_set *set = &w->sets[s];
        h = mix(h, (uint64_t)(uintptr_t)set->type);
        h = mix(h, (uint64_t)set->arity);
        h = mix(h, (uint64_t)set->count);
        size_t n = (size_t)set->count * set->arity, i = 0;
        uint64_t lane[4] = {h, h ^ 1, h ^ 2, h ^ 3};
        for (; i + 8 <= n; i += 8)
            for (int k = 0; k < 4; k++) {
                uint64_t word = (uint64_t)(uint32_t)set->idx[i + 2 * k] |
                                (uint64_t)(uint32_t)set->idx[i + 2 * k + 1] << 32;
                lane[k] = (lane[k] ^ word) * 1099511628211ULL;
            }
        for (int k = 0; k < 4; k++) h = mix(h, lane[k]);
        for (; i < n; i++) h = mix(h, (uint64_t)(uint32_t)set->idx[i]);
    }
    return h;
}

int pbd_variants_threads(const pbd_world *w)
{
    return w->def.threads > 0 ? w->def.threads : omp_get_max_threads();
}

static void free_workspaces(struct pbd_variants_state *vs)
{
    for (int t = 0; t < vs->n_ws; t++) {
        free(vs->ws[t].x);
        free(vs->ws[t].x0);
        free(vs->ws[t].w);
        free(vs->ws[t].grad);
    }
    free(vs->ws);
    vs->ws = NULL;
    vs->n_ws = vs->ws_arity = 0;
}

/* One workspace per thread, each for the world's largest arity. */
pbd_status pbd_variants_reserve_workspaces(struct pbd_variants_state *vs, int threads, int arity)
{
    if (threads <= vs->n_ws && arity <= vs->ws_arity) return PBD_OK;
    free_workspaces(vs);
    if (arity < 1) arity = 1;
    vs->ws = calloc((size_t)threads, sizeof *vs->ws);
    if (!vs->ws) return pbd_error(PBD_ENOMEM, "out of memory for %d thread workspaces", threads);
    vs->n_ws = threads;
    vs->ws_arity = arity;
    for (int t = 0; t < threads; t++) {
        pbd_workspace *ws = &vs->ws[t];
        ws->x = malloc(3 * (size_t)arity * sizeof(double));
        ws->x0 = malloc(3 * (size_t)arity * sizeof(double));
        ws->w = malloc((size_t)arity * sizeof(double));
        ws->grad = malloc(3 * (size_t)arity * sizeof(double));
        if (!ws->x || !ws->x0 || !ws->w || !ws->grad) {
            free_workspaces(vs);
            return pbd_error(PBD_ENOMEM, "out of memory for thread workspaces (arity %d)", arity);
        }
    }
    return PBD_OK;
}

/* Grow *p to hold n elements of size sz (capacity *cap). */
static int grow(void **p, int *cap, int n, size_t sz)
{
    if (n <= *cap) return 0;
    void *q = realloc(*p, (size_t)n * sz);
    if (!q) return -1;
    *p = q;
    *cap = n;
    return 0;
}

/* Jacobi: per-particle accumulators, per-constraint Δλ and Δx (solver/xpbd/jacobi.c). */
pbd_status pbd_variants_reserve_jacobi(pbd_world *w, struct pbd_variants_state *vs)
{
    int m = 0, q = 0;
    for (int s = 0; s < w->n_sets; s++) {
        m += w->sets[s].count;
        q += w->sets[s].count * w->sets[s].arity;
    }
    int n = w->n > 0 ? w->n : 1, cap3 = vs->jac_n_cap * 3;
    m = m > 0 ? m : 1;
    q = q > 0 ? q : 1;
    int sets_cap = vs->jac_sets_cap;
    if (grow((void **)&vs->jac_dp, &cap3, 3 * n, sizeof(double)) ||
        grow((void **)&vs->jac_count, &vs->jac_n_cap, n, sizeof(int32_t)) ||
        grow((void **)&vs->jac_dlambda, &vs->jac_m_cap, m, sizeof(double)) ||
        grow((void **)&vs->jac_delta, &vs->jac_delta_cap, 3 * q, sizeof(double)) ||
        grow((void **)&vs->jac_set_c, &sets_cap, w->n_sets + 1, sizeof(int32_t)) ||
        grow((void **)&vs->jac_set_q, &vs->jac_sets_cap, w->n_sets + 1, sizeof(int32_t)))
        return pbd_error(PBD_ENOMEM, "out of memory for the Jacobi workspace");
    vs->jac_set_c[0] = vs->jac_set_q[0] = 0;
    for (int s = 0; s < w->n_sets; s++) {
        vs->jac_set_c[s + 1] = vs->jac_set_c[s] + w->sets[s].count;
        vs->jac_set_q[s + 1] = vs->jac_set_q[s] + w->sets[s].count * w->sets[s].arity;
    }
    return PBD_OK;
}

struct pbd_variants_state *pbd_variants_state_of(pbd_world *w)
{
    if (!w->variants) w->variants = calloc(1, sizeof *w->variants);
    return w->variants;
}

void pbd_variants_free_buffers(pbd_world *w)
{
    struct pbd_variants_state *vs = w->variants;
    if (!vs) return;
    for (int s = 0; s < vs->n_col_sets; s++) {
        free(vs->col[s].order);
        free(vs->col[s].start);
    }
    free(vs->col);
    free(vs->stamp);
    free(vs->pending);
    free_workspaces(vs);
    free(vs->jac_dp);
    free(vs->jac_count);
    free(vs->jac_dlambda);
    free(vs->jac_delta);
    free(vs->jac_set_c);
    free(vs->jac_set_q);
    free(vs);
    w->variants = NULL;
}

/* The variant state and every method's workspace in it (the method table, solver/method.h). */
void pbd_variants_free(pbd_world *w)
{
    if (!w->variants) return;
    for (int i = 0; i < pbd_method_count(); i++) { /* the methods' workspaces (method.h) */
        const pbd_method_ops *m = pbd_method_at(i);
        if (m->workspace_free) m->workspace_free(w->variants);
    }
    pbd_variants_free_buffers(w);
}
