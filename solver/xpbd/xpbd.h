/* Private to solver/xpbd/: the stages of PBD/XPBD's step (solver/xpbd/xpbd_step.c) that live
 * in their own files of this room (solver/xpbd/README.md). */
#ifndef PBD_XPBD_H
#define PBD_XPBD_H

#include "solver/pbd.h"
#include "solver/variants.h"

/* Stages of Algorithm 1 that live in their own files. */
void pbd_damp_velocities(pbd_world *w);
/* One projection sweep over all constraint sets with the scheme of w->def. Returns the
 * number of constraints skipped as degenerate. */
int pbd_project_iteration(pbd_world *w, double h);
/* `iterations` such sweeps (the coloured scheme in one parallel region); returns the
 * number skipped in the last one. */
int pbd_project_iterations(pbd_world *w, double h, int iterations);

/* The world's own buffers as a workspace. */
pbd_workspace pbd_world_workspace(pbd_world *w);

/* Gather constraint c of set s from positions pos into ws (x, w). */
void pbd_gather_ws(const pbd_world *w, pbd_workspace *ws, const pbd_constraint_set *s, int c,
                   const double *pos, pbd_eval_input *in);
/* Write ws->x back to pos, skipping fixed particles (w = 0), which never move. */
void pbd_scatter_ws(const pbd_world *w, const pbd_workspace *ws, const pbd_constraint_set *s,
                    int c, double *pos);

/* XPBD with constraint damping (XPBD Eq. 26): computes ∇C into grad and
 *   Δλ = (-C - α̃λ - γ ∇C·(x - x_n)) / ((1 + γ) Σ w|∇C|² + α̃),
 * without moving anything. x_prev (x_n gathered) is read only when gamma > 0.
 * Returns PBD_EVAL_OK, PBD_EVAL_DEGENERATE or -1 (inactive inequality). */
int pbd_xpbd_delta(const pbd_constraint_type *type, const pbd_eval_input *in, const double *w,
                   double alpha_tilde, double gamma, const double *x_prev, double lambda,
                   double *grad, double *dlambda);

/* Project constraint c of set s, gathered from pos, into ws->x with the method of w->def
 * on a (sub)step h; nothing is written back and λ is not changed: *dlambda gets the
 * multiplier with Δx = Δλ w ∇C (XPBD's Δλ; for PBD -k C/Σ w|∇C|², which the contact
 * response reads as the impulse λ∇C/Δt). ws->grad holds ∇C at the gathered positions
 * afterwards. */
int pbd_project_into(const pbd_world *w, pbd_workspace *ws, const pbd_constraint_set *s, int c,
                     double h, const double *pos, double *dlambda);


/* Rows in the block that starts at row c of a set whose type has block > 1 (pbd_constraint.h):
 * min(block, count − c); 1 for other types. */
static inline int pbd_block_rows(const pbd_constraint_set *s, int c)
{
    int b = s->type->block > 1 ? s->type->block : 1;
    return c + b <= s->count ? b : s->count - c;
}
static inline int pbd_rows_at(const pbd_world *w, const pbd_constraint_set *s, int c)
{
    if (w->def.rod_projection == PBD_ROD_CLOSED_FORM && s->type->project_element)
        return c + s->type->n_components <= s->count ? s->type->n_components : s->count - c;
    return pbd_block_rows(s, c);
}
/* Project the block of nb rows starting at row c together (solver/xpbd/project.c): ws->x (gathered
 * from pos) gets the projected positions, dlambda[0 .. nb) each row's Δλ. Returns
 * PBD_EVAL_OK, or PBD_EVAL_DEGENERATE when no row of the block could be projected. */
int pbd_project_block_into(const pbd_world *w, pbd_workspace *ws, const pbd_constraint_set *s,
                           int c, int nb, double h, const double *pos, double *dlambda);

/* Colour every set greedily (solver/xpbd/colouring.c); the workspace must exist. */
pbd_status pbd_colour_sets(pbd_world *w);
/* Sort every coloured set's arrays by colour (solver/xpbd/layout.c); the colouring must be
 * valid. Updates the colourings (identity) and the fingerprint. */
pbd_status pbd_sort_sets_by_colour(pbd_world *w);

/* Sweeps (one iteration each); they return the constraints skipped as degenerate. */
int pbd_sweep_jacobi(pbd_world *w, double h);
int pbd_sweep_coloured(pbd_world *w, double h);

/* Momentum-conserving damping (PBD Sec. 3.5) of the free particles' velocities. */
void pbd_damp_momentum(pbd_world *w, double k_damping);

/* Make the variant workspaces match the world and its definition (colouring, Jacobi,
 * thread buffers); allocates only when they do not. Called by the step before the
 * projection of every (sub)step. */
pbd_status pbd_variants_prepare(pbd_world *w);

/* Orientation types (pbd_constraint_type.n_orient; solver/xpbd/orient_project.c): the
 * projection of row c of set s, PBD Eq. 8–9 or XPBD Eq. 18 with the orientations'
 * generalised inverse mass W = R diag(inv_inertia) Rᵀ, Δθ = Δλ W ∇_θ C and q ← exp(Δθ/2) q
 * (Kugelstadt & Schömer 2016 Eq. 33). Like pbd_project_into, but the orientations are
 * written to w->u at once. */
int pbd_project_orient_into(const pbd_world *w, pbd_workspace *ws, const pbd_constraint_set *s,
                            int c, double alpha_scale, const double *pos, double *dlambda);
/* The closed form of an orientation type's element (pbd_constraint_type.project_element):
 * rows c .. c + n_components − 1 of s together, ws->x (gathered from pos) and w->u moved,
 * dlambda per row; def.rod_projection = closed-form. */
int pbd_project_orient_element_into(const pbd_world *w, pbd_workspace *ws,
                                    const pbd_constraint_set *s, int c, double alpha_scale,
                                    const double *pos, double *dlambda);
/* The orientation stages of the step: gyroscopic term and damping (after the external
 * forces), prediction u = q + ½ h ω q normalised, and the update ω = 2 Im(u q̄)/h, q = u
 * (Kugelstadt & Schömer 2016 Algorithm 1); nothing without orientations. */
void pbd_orient_forces(pbd_world *w, double h);
void pbd_orient_predict(pbd_world *w, double h);
void pbd_orient_update(pbd_world *w, double h);

#endif
