/* Private to solver/: workspace and helpers of the solver variants (XPBD damping,
 * Jacobi, coloured Gauss–Seidel, momentum damping, Newton reference). */
#ifndef PBD_VARIANTS_H
#define PBD_VARIANTS_H

#include "solver_private.h"

#include <stdint.h>

/* Buffers for one constraint (max_arity particles): gathered positions, x_n, inverse
 * masses, gradient. The world has one (w->work_*); coloured GS has one per thread. */
typedef struct pbd_workspace {
    double *x, *x0, *w, *grad; /* the world's x: 4 doubles per entry (rods' quaternions) */
} pbd_workspace;






/* Orientations (solver/orient.c): out = R diag(s) Rᵀ g for the unit quaternion q (W g for
 * s the inverse inertias, I ω for s the inertias), returning gᵀ R diag(s) Rᵀ g; out may be
 * NULL. A segment is free when its three inverse inertias are positive, fixed when none is. */
double pbd_orient_frame_apply(const double *q, const double *s, const double *g, double *out);
static inline int pbd_orient_all_free(const double *iinv)
{
    return iinv[0] > 0.0 && iinv[1] > 0.0 && iinv[2] > 0.0;
}
static inline int pbd_orient_all_fixed(const double *iinv)
{
    return !(iinv[0] > 0.0 || iinv[1] > 0.0 || iinv[2] > 0.0);
}
/* PBD_OK, or PBD_EINVAL naming why the world's orientations cannot take def (a scheme other
 * than Gauss–Seidel), or PBD_ENUMERIC for a non-finite orientation after a step */
pbd_status pbd_orient_check(const pbd_world *w, int after_step);

/* Colouring of one set: order[start[k] .. start[k+1]) is colour k. */
typedef struct pbd_set_colouring {
    int32_t *order, *start;
    int n_colours, order_cap, start_cap;
    int identity; /* order[q] == q: the set is sorted by colour (solver/xpbd/layout.c) */
} pbd_set_colouring;

struct pbd_variants_state {
    /* coloured Gauss–Seidel: col[] is valid for the topology with fingerprint col_key */
    uint64_t col_key;
    int col_valid;
    int n_col_sets;
    pbd_set_colouring *col;
    int32_t *stamp;          /* per particle: last colour that took it */
    int32_t *pending;        /* constraints not coloured yet */
    int stamp_cap, pending_cap;
    /* per-thread workspaces */
    int n_ws, ws_arity;
    /* the coloured sweep's thread count (solver/xpbd/iteration.c): it measures the time per
     * projection with all threads and with one, now and then trying the one it does not use,
     * and keeps the faster (another process on the CPUs can make one thread the faster) */
    int sweep_threads;        /* the current choice: 1 or the most allowed; 0 = not chosen */
    double sweep_cost[2];     /* seconds per projection: [0] one thread, [1] all */
    int sweep_since, sweep_every; /* calls since the other count was last tried; interval */
    pbd_workspace *ws;
    /* Jacobi (solver/xpbd/jacobi.c), valid for the topology with fingerprint jac_key */
    uint64_t jac_key;
    int jac_valid;
    double *jac_dp;           /* 3n accumulated corrections */
    int32_t *jac_count;       /* n: constraints that moved each particle this sweep */
    double *jac_dlambda;      /* per constraint: XPBD Δλ of this sweep */
    double *jac_delta;        /* 3 Σ arity: XPBD Δx of each constraint's particles */
    int32_t *jac_set_c, *jac_set_q; /* n_sets + 1 offsets: constraints, slots */
    int jac_n_cap, jac_m_cap, jac_delta_cap, jac_sets_cap;
    /* Newton reference (solver/newton/newton.c) */
    struct pbd_newton_workspace *newton;
    /* the solver families (solver/families.c: method vbd, avbd, pd) */
    struct pbd_family_ws *family;
};

void pbd_variants_free(pbd_world *w);
/* The variants' own buffers (solver/variants.c), sized for the world: */
pbd_status pbd_variants_reserve_workspaces(struct pbd_variants_state *vs, int threads, int arity);
pbd_status pbd_variants_reserve_jacobi(pbd_world *w, struct pbd_variants_state *vs);
/* Free them (the Newton workspace excepted: pbd_variants_free frees both). */
void pbd_variants_free_buffers(pbd_world *w);
/* The world's variant state, created on first use; NULL when out of memory. */
struct pbd_variants_state *pbd_variants_state_of(pbd_world *w);
/* Threads the coloured sweep may use: def.threads, or the OpenMP default. */
int pbd_variants_threads(const pbd_world *w);
/* Threads the step's loops use now: 1 while the coloured sweep finds one thread faster. */
int pbd_sweep_threads_now(const pbd_world *w);
/* Fingerprint of the constraint topology (sets, types, counts, index rows). */
uint64_t pbd_topology_key(const pbd_world *w);


/* The same with each set's three values at per_set[3s .. 3s+2] (NULL: not wanted). */
void pbd_world_residuals_per_set(pbd_world *w, const double *pos, double alpha_scale,
                                 double *per_set, double *max_c, double *l2_c, double *xpbd);
/* All residuals at pos in one pass: max |C|, ||C||_2 and ||C + α̃λ||_2. */
void pbd_world_residuals(pbd_world *w, const double *pos, double alpha_scale, double *max_c,
                         double *l2_c, double *xpbd);
/* The measure stage of the step (solver/measure.c): stats after a step whose last (sub)step
 * was h; energy: the compliances are the model (XPBD, Newton), so elastic energy is defined. */
void pbd_measure(pbd_world *w, double h, int energy);

void pbd_newton_free(struct pbd_newton_workspace *nw);
void pbd_family_free(struct pbd_family_ws *fw);

#endif
