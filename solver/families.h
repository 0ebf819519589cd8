/* Private to solver/: the step of the solver families (method vbd, avbd, pd) and what they
 * share — the inertial target, the initial guess, the per-vertex adjacency and its vertex
 * colouring, the iteration log, the end of the step (solver/families.c). The methods
 * themselves live in the inner rooms solver/vbd/ (VBD, AVBD) and solver/pd/ (Projective
 * Dynamics), behind solver/pbd.h; solver/README.md "Solver families". */
#ifndef PBD_FAMILIES_H
#define PBD_FAMILIES_H

#include "solver/pbd.h"
#include "solver/variants.h"

#include <stdint.h>

/* VBD/AVBD's batched sweep (solver/vbd/vbd_batch.c): the most (vertex, constraint) pairs
 * of one block of a colour's vertices evaluated together */
#define PBD_VBD_BATCH_PAIRS 1024

/* One thread's scratch for one constraint: gathered positions, gradient, ± gradients of the
 * differences and the (3a)² Hessian; for the batched sweep, a block's pairs' terms (terms,
 * have: precomputed or not), their lists by (set, slot) (pair_c: constraint, pair_o: the
 * pair's place in terms) and the lists' counts (4 per scene set). */
typedef struct family_scratch {
    double *xl, *grad, *gp, *gm, *H;
    pbd_vertex_terms *terms;
    unsigned char *have;
    int32_t *pair_c, *pair_o, *count;
} family_scratch;

struct pd_state; /* solver/pd/ */

/* Worlds of fewer particles run the families on one thread: a colour of a small world holds
 * too few vertices to pay for OpenMP's barrier between colours (on a busy machine two threads
 * made the 12² cloth 100× slower than one). The result is the same either way. */
#define PBD_FAMILY_PARALLEL_MIN 2048
/* VBD/AVBD: the most particles of one constraint (a sweep visits each; families.c) */
#define PBD_FAMILY_MAX_ARITY 64

typedef struct pbd_family_ws {
    uint64_t key;         /* topology fingerprint the adjacency and colouring were built for */
    int n, m, n_sets, arity, n_scratch;
    int32_t *set_c;       /* n_sets + 1: the sets' first constraint in the global numbering */
    /* vertex i's incident constraints: adj_s/adj_c/adj_j[adj_ptr[i] .. adj_ptr[i+1]) = (set,
     * constraint, slot of i in its index row) */
    int32_t *adj_ptr, *adj_s, *adj_c, *adj_j;
    /* vertex colouring of the free particles: col_order[col_start[k] .. col_start[k+1]) */
    int32_t *col_order, *col_start;
    int n_colours;
    double *y;            /* 3n: inertial target x_t + h v_t + h² g (fixed: where they go) */
    double *x_t;          /* 3n: positions at the start of the (sub)step */
    double *v_prev;       /* 3n: velocities at the start of the previous (sub)step */
    int have_v_prev;
    double *cheb1, *cheb2;/* 3n: Chebyshev's x^(n), x^(n-1) */
    double cheb_omega;    /* Chebyshev's last ω */
    /* AVBD: per constraint (global numbering) penalty k, multiplier λ, C*(x_t); kept from step
     * to step for the warm start while the topology stays */
    double *k, *lam, *c0;
    int avbd_ready;
    /* Contacts (solver/collision/ through pbd_step_stages): sets [0, n_static) are the
     * scene's, [n_static, n_sets) the contact sets, refilled every (sub)step after the initial
     * guess. Their rows follow the scene's m_static constraints in the global numbering
     * (k, lam, c0 and the arrays below hold m_cap); vertex i's contact rows are
     * cadj_s/c/j[cadj_ptr[i] .. cadj_ptr[i+1]) like the scene's adjacency. */
    int n_static, m_static, m_cap, cadj_cap, n_contacts, self_rows, self_set;
    int32_t *cadj_ptr, *cadj_s, *cadj_c, *cadj_j;
    double *cmu;      /* m_cap: a collider row's friction coefficient μ (0: none, self rows) */
    double *ct_lam;   /* 3 m_cap: AVBD's friction multiplier, a vector in the tangent plane */
    double *ct_k;     /* m_cap: AVBD's friction penalty */
    double *cforce;   /* 2 m_cap: |f_n|, |f_t| (N) of each row after the (sub)step */
    double k_contact; /* VBD's contact stiffness k_c this (sub)step (N/m) */
    double bound;     /* VBD's displacement bound per (sub)step with self collision, else inf */
    double *x_detect; /* 3n: the positions the contacts were detected at (the initial guess) */
    /* n (3n): AVBD's warm start of a particle's collider row from the last (sub)step: k, λ,
     * k_t, λ_t (warm_k = 0: none) */
    double *warm_k, *warm_lam, *warm_kt, *warm_lt;
    double *warm_lam_next; /* n: VBD's lagged friction λ being gathered (vbd_contact.c) */
    family_scratch *scratch; /* one per thread */
    struct pbd_vbd_plan *vbd_plan[2]; /* VBD's batched blocks for 1 and N threads (vbd_batch.c) */
    struct pd_state *pd;
} pbd_family_ws;

/* The world's family workspace for its current topology (built or rebuilt as needed). */
pbd_status pbd_family_workspace(pbd_world *w, pbd_family_ws **out);
void pbd_family_free(pbd_family_ws *fw);
/* The same for the method table (solver/method.h): made or kept into *ws; freed from the
 * world's variant state. */
pbd_status pbd_family_make(pbd_world *w, void **ws);
void pbd_family_release(struct pbd_variants_state *vs);
/* What every family refuses (colliders, rods, fluids, post-step hooks, PBD's and XPBD's
 * damping, PBD's linearisation), named by the method: PBD_OK or PBD_EINVAL. */
pbd_status pbd_family_check_shared(const pbd_world *w);

/* One family method's iteration on the shared step (solver/vbd/, solver/pd/). */
typedef struct pbd_family_iteration {
    /* at the start of each (sub)step, after the initial guess */
    pbd_status (*begin)(pbd_world *w, pbd_family_ws *fw, double h);
    /* iteration it (0-based) on w->p */
    pbd_status (*iteration)(pbd_world *w, pbd_family_ws *fw, double h, int it, int threads);
    /* constraint c of set s at C: its force multiplier λ⁺ and stiffness k (pbd_vbd_force) */
    int (*force)(const pbd_world *w, const pbd_family_ws *fw, int s, int c, double C,
                 double *lam_plus, double *k);
    int from_target; /* the initial guess is y, not def.vbd_init's */
    /* NULL, or after the (sub)step: fw->cforce of every contact row at w->p */
    void (*contact_forces)(pbd_world *w, pbd_family_ws *fw, double h);
} pbd_family_iteration;
/* def.substeps (sub)steps of h with the method's iteration: the inertial target, the initial
 * guess, def.iterations iterations (logged with def.record_iterations), λ, v and x
 * (solver/families.c). */
pbd_status pbd_family_step(pbd_world *w, pbd_family_ws *fw, double h,
                           const pbd_family_iteration *fi);

/* The contacts (solver/families_contact.c): what the families take of the collision room's
 * (PBD_OK, or PBD_EINVAL with the reason, named by the method), and after the initial guess
 * the (sub)step's contacts, numbered after the scene's, with their adjacency, μ, k_c and the
 * displacement bound. */
pbd_status pbd_family_check_contacts(const pbd_world *w, const char *name);
pbd_status pbd_family_contacts_begin(pbd_world *w, pbd_family_ws *fw, double h);
/* The index of the first contact set (solver/collision/'s, pbd_step_stages.contact_kind),
 * w->n_sets when there is none. */
int pbd_family_static_sets(const pbd_world *w);
/* IPC's smoothed friction (Li et al. 2020 Eq. 14, VBD Sec. 4): f1(u)/u for a tangential
 * displacement u ≥ 0 and ε = ε_v h: (2/ε − u/ε²) below ε, 1/u above. */
double pbd_friction_f1_over_u(double u, double eps);
/* The families' static-friction speed ε_v (m/s): IPC's smoothing below it, and the measure's
 * sticking threshold (ours). */
#define PBD_FAMILY_FRICTION_EPS_V 1e-3
/* VBD's contact stiffness k_c when def.vbd_contact_stiffness = 0: the larger of this × the
 * free particles' largest m/h² and the scene's stiffest 1/α (ours: the contact outweighs the
 * inertia and is as stiff as the stiffest material pulling a particle in; a resting particle
 * sinks m g/k_c). */
#define PBD_VBD_CONTACT_RATIO 1e3
/* VBD Sec. 4's relaxation γ_p of the conservative displacement bound. */
#define PBD_VBD_BOUND_GAMMA 0.4

/* ‖M(x - y) + h² Σ_j ∇E_j(x)‖₂ at pos (kg m; h² ∇G, G the implicit step's objective), the
 * energies E_j = C_j²/(2α_j) (equalities; inequalities while C < 0), the hard ones (α = 0)
 * left out. */
double pbd_family_gradient_norm(pbd_world *w, pbd_family_ws *fw, const double *pos, double h);

/* The methods' iterations on w->p (the iterate), y = fw->y (solver/vbd/, solver/pd/). */
pbd_status pbd_vbd_begin(pbd_world *w, pbd_family_ws *fw, double h);
/* AVBD's augmented Lagrangian (solver/vbd/avbd.c): the warm start at the start of a
 * (sub)step, the multiplier and penalty updates after each iteration, and one constraint's
 * force multiplier λ⁺ (the force on particle j is −λ⁺ ∇_jC) with its penalty k; returns 0
 * when the constraint exerts no force (a clamped inequality). */
void pbd_avbd_begin(pbd_world *w, pbd_family_ws *fw, double h);
void pbd_avbd_update(pbd_world *w, pbd_family_ws *fw, int threads);
/* After a (sub)step: each particle's collider row's k, λ, k_t, λ_t for the next one's warm
 * start (fw->warm_*). */
void pbd_avbd_keep_contacts(pbd_world *w, pbd_family_ws *fw);
/* AVBD's λ⁺ of constraint c of set s at C(x) = C and C̃ (hard: C − α C(x_t), soft: C); 0
 * when clamped (an inequality at λ⁺ = 0). Inline: the vertex visit reads it per pair. */
static inline int pbd_avbd_lambda_plus(const pbd_world *w, const pbd_family_ws *fw, int s,
                                       int c, double C, double *lam_plus, double *Ct)
{
    const pbd_constraint_set *set = &w->sets[s];
    int g = fw->set_c[s] + c;
    int hard = set->compliance[c] == 0.0;
    *Ct = hard ? C - w->def.avbd_alpha * fw->c0[g] : C;
    *lam_plus = fw->k[g] * *Ct + (hard ? fw->lam[g] : 0.0);
    if (set->type->inequality && *lam_plus > 0.0) *lam_plus = 0.0;
    return !(set->type->inequality && *lam_plus == 0.0);
}
/* AVBD's force of constraint c of set s at C(x) = C: λ⁺ and the penalty k; 0 when clamped */
static inline int pbd_avbd_force(const pbd_world *w, const pbd_family_ws *fw, int s, int c,
                                 double C, double *lam_plus, double *k)
{
    double Ct;
    *k = fw->k[fw->set_c[s] + c];
    return pbd_avbd_lambda_plus(w, fw, s, c, C, lam_plus, &Ct);
}
/* Gather constraint c of set s from pos into sc->xl and evaluate C and ∇C (sc->grad);
 * in_out gets the evaluation input (for the Hessian). Returns the type's status. */
int pbd_family_eval(const pbd_world *w, const pbd_constraint_set *set, int c, const double *pos,
                    family_scratch *sc, pbd_eval_input *in_out, double *C);
pbd_status pbd_vbd_iteration(pbd_world *w, pbd_family_ws *fw, double h, int it, int threads);
/* The contact terms of free particle i at w->p (solver/vbd/vbd_contact.c): the force f and
 * 3×3 Hessian H of its contact rows (VBD's penalty and friction, or AVBD's rows) added. */
void pbd_vbd_contact_terms(const pbd_world *w, const pbd_family_ws *fw, family_scratch *sc,
                           int i, double h, double f[3], double H[9]);
/* AVBD's friction multipliers after an iteration, and fw->cforce for VBD/AVBD. */
void pbd_avbd_friction_update(pbd_world *w, pbd_family_ws *fw);
void pbd_vbd_contact_forces(pbd_world *w, pbd_family_ws *fw, double h);
/* PD's contact projection after a global solve (solver/pd/pd_contact.c), and its forces. */
void pbd_pd_contacts(pbd_world *w, pbd_family_ws *fw, double h);
void pbd_pd_contact_forces(pbd_world *w, pbd_family_ws *fw, double h);
/* PD's force multiplier: the scene's energies as VBD's (pbd_vbd_force), a contact row's from
 * its last projection (λ⁺ = −m δ/h², fw->lam). */
int pbd_pd_force(const pbd_world *w, const pbd_family_ws *fw, int s, int c, double C,
                 double *lam_plus, double *k);
/* VBD's local Newton step of free particle i on w->p with the scratch sc (VBD Sec. 3, the
 * local system): the one per-vertex solve that every sweep order calls. */
void pbd_vbd_vertex_update(pbd_world *w, pbd_family_ws *fw, family_scratch *sc, int i, double h);
/* The same with the terms of its pairs (its adjacency entries in order) precomputed where
 * have[k] is set (NULL: none), by the batched sweep. */
void pbd_vbd_vertex_update_pre(pbd_world *w, pbd_family_ws *fw, family_scratch *sc, int i,
                               double h, const pbd_vertex_terms *pre, const unsigned char *have);
/* The batched sweep (solver/vbd/vbd_batch.c): the plan of its blocks for nt threads made
 * or kept (0 when out of memory), and with it (made for nt) the free particles of part tid
 * of colour col (pbd_vbd_iteration's cut) with the scratch sc, their pairs with a type's
 * vertex_block_batch evaluated in batches first: pbd_vbd_vertex_update on each, to the
 * batches' vector math (bit for bit without it). */
struct pbd_vbd_plan;
/* Whether a set's (constraint, particle) terms come from its type's vertex_block_batch. */
static inline int pbd_vbd_batchable(const pbd_world *w, const pbd_constraint_set *set)
{
    return w->def.kernels && set->type->vertex_block_batch && set->arity <= 4;
}
int pbd_vbd_plan_ready(pbd_world *w, pbd_family_ws *fw, int nt);
void pbd_vbd_sweep_planned(pbd_world *w, pbd_family_ws *fw, family_scratch *sc, int nt, int col,
                           int tid, double h);
void pbd_vbd_plan_free(struct pbd_vbd_plan *p);
/* TEST HOOK, NULL in every run: when set, pbd_vbd_iteration calls it instead of its sweep
 * over the vertices (Chebyshev and AVBD's updates still follow). */
extern void (*pbd_test_vbd_sweep)(pbd_world *w, pbd_family_ws *fw, double h);
/* The force multiplier λ⁺ (the force on particle j is −λ⁺ ∇_jC) and stiffness k of
 * constraint c of set s at C for VBD (k = 1/α, λ⁺ = kC; an inequality only while C < 0) or
 * AVBD (pbd_avbd_force); 0 when it exerts no force (solver/vbd/vbd.c). PD's energies are
 * VBD's. */
int pbd_vbd_force(const pbd_world *w, const pbd_family_ws *fw, int s, int c, double C,
                  double *lam_plus, double *k);
pbd_status pbd_pd_begin(pbd_world *w, pbd_family_ws *fw, double h);
pbd_status pbd_pd_iteration(pbd_world *w, pbd_family_ws *fw, double h, int it, int threads);
void pbd_pd_free(struct pd_state *pd);
/* What PD takes: PBD_OK or PBD_EINVAL with the reason (solver/pd/pd.c). */
pbd_status pbd_pd_check(const pbd_world *w);

#endif
