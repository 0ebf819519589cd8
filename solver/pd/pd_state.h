/* Private to solver/pd/: Projective Dynamics' state between iterations (pd.c) and its
 * gathered right side with the interleaved LDLᵀ solve (pd_gather.c). */
#ifndef PBD_PD_STATE_H
#define PBD_PD_STATE_H

#include "solver/families.h"

#include <cholmod.h>

enum { PD_SPRING, PD_ATTACH, PD_TET };

/* One term of a row of Σ_j w_j S_jᵀA_jᵀ p_j: coef · target[slot + stride · a] for
 * coordinate a (springs and attachments stride 1, tets 3: p = R is stored by rows). */
typedef struct pd_term {
    double coef;
    int32_t slot, stride;
} pd_term;

typedef struct pd_state {
    uint64_t key;           /* topology (fw->key), h, compliances, masses and tet rests it was
                             * factored for */
    int n, nf, m;
    int32_t *free_of;       /* particle -> free index or -1 */
    double *target;         /* per constraint (global numbering) 9 doubles: p_j (3) or R (9) */
    double *rhs;            /* nf × 3, column-major */
    cholmod_common cc;
    cholmod_factor *L;
    cholmod_dense *X, *Y, *E; /* cholmod_solve2's solution and workspaces, kept between
                               * iterations */
    int started;
    /* the gathered path (pd_gather.c), in the factor's order k = 0..nf−1 */
    int gathered;           /* built: def.kernels and a simplicial LDLᵀ factor */
    int32_t *particle_of;   /* k -> particle */
    int32_t *term_ptr;      /* k -> its terms term[term_ptr[k] .. term_ptr[k+1]) */
    pd_term *term;
    int32_t *fixed_ptr;     /* k -> its fixed particles' terms (coef, particle in slot) */
    pd_term *fixed;
    double *b0;             /* 4 × nf: M y/h² − Σ w SᵀAᵀA S x_fixed, once per step */
    double *x4;             /* 4 × nf: the right side, then the solution (x, y, z, 0) */
    int32_t *row_ptr, *row_j; /* L's strict lower triangle by rows */
    double *row_x;
    int best_threads;       /* the faster of 1 and the step's count for the parallel parts */
    unsigned calls, every;  /* iterations since the last try of the other count, between tries */
    double cost[2];         /* their last seconds on 1 and on the step's count */
} pd_state;

/* The local step (PD Sec. 3) into pd->target; skip_springs: all sets but the springs'. */
void pbd_pd_local_step(pbd_world *w, pbd_family_ws *fw, pd_state *pd, int threads,
                       int skip_springs);
int pbd_pd_kind(const pbd_constraint_type *t);
int pbd_pd_rows(const pbd_constraint_set *set, int c, int kind, double *coef, double *wt);

/* One constraint of the static sets, its rows A_j S_j (pbd_pd_rows: coef, wt, nr), visited
 * in order by pbd_pd_next from pd_visit v = {.c = -1}: 1, or 0 after the last. */
typedef struct pd_visit {
    int s, c, kind, nr;
    double coef[12], wt;
    const int32_t *idx;
} pd_visit;
int pbd_pd_next(const pbd_world *w, const pbd_family_ws *fw, pd_visit *v);

/* pd_gather.c */
pbd_status pbd_pd_gather_build(const pbd_world *w, const pbd_family_ws *fw, pd_state *pd);
void pbd_pd_gather_free(pd_state *pd);
/* pd->L's strict lower triangle by rows into row_ptr, row_j, row_x; sets pd->gathered. */
pbd_status pbd_pd_factor_rows(pd_state *pd);
void pbd_pd_gather_iteration(pbd_world *w, pbd_family_ws *fw, pd_state *pd, double h, int it,
                             int threads);
void pbd_pd_ldl_solve4(const cholmod_factor *L, const int32_t *row_ptr, const int32_t *row_j,
                       const double *row_x, double *x4);

#endif
