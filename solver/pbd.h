/* pbdlab — the solver core: particles, constraint sets, attachments and the step.
 * Public header of solver/ (DESIGN.md "Data", "The step"). */
#ifndef PBD_H
#define PBD_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "constraints/pbd_constraint.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PBD_VERSION "0.1.0"

/* ---- errors (DESIGN.md "Errors") --------------------------------------------------- */

typedef enum pbd_status {
    PBD_OK = 0,
    PBD_EINVAL = 2,  /* bad parameter or flag: the programs exit with status 2 */
    PBD_EINPUT = 1,  /* missing or malformed input file: exit status 1 */
    PBD_EIO = 3,     /* cannot write output */
    PBD_ENOMEM = 4,
    PBD_ENUMERIC = 5, /* the step produced a non-finite value or diverged (the watchdog) */
    PBD_EINTR = 6     /* stopped on request (SIGINT/SIGTERM): exit status 128 + signal */
} pbd_status;

/* Record one clear line (file, place, expected, found) and return status. */
pbd_status pbd_error(pbd_status status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
const char *pbd_last_error(void);
/* The status that pbd_last_error() was recorded with (a builder that returns NULL says
 * through it whether the input was bad, PBD_EINVAL/PBD_EINPUT, or memory ran out). */
pbd_status pbd_last_status(void);

/* ---- being asked to stop (SIGINT/SIGTERM) ------------------------------------------- */

/* Register the flag a signal handler sets (NULL: none). The projection loops check it once
 * per iteration (and per set in Gauss–Seidel, per Newton iteration), so that pbd_step and
 * pbd_newton_step return PBD_EINTR within one iteration of a request, abandoning the step
 * in flight: the world is then mid-step and must not be logged or stepped again. */
void pbd_set_stop_flag(const volatile sig_atomic_t *flag);
/* 1 when the registered flag is set. */
int pbd_stop_requested(void);
/* What is running that looks at the flag seldom or never (NULL: nothing such), for a signal
 * handler's message when the grace time ends it: a text with static storage, e.g. "a CHOLMOD
 * ordering or factorisation (no interrupt callback)". pbd_running_set returns the previous one
 * (to be given back). */
const char *pbd_running_set(const char *what);
const char *pbd_running(void);

/* ---- solver definition ------------------------------------------------------------- */

/* PBD, XPBD, or the implicit step they approximate solved by Newton's method (the Newton
 * reference below, as a method of the step), or another solver family on the same
 * constraints read as energies E = C²/(2α) (solver/README.md "Solver families"): Vertex Block
 * Descent (Chen et al. 2024, solver/vbd/), Augmented VBD (Giles et al. 2025, solver/vbd/),
 * Projective Dynamics (Bouaziz et al. 2014, solver/pd/). */
typedef enum {
    PBD_METHOD_PBD = 0,
    PBD_METHOD_XPBD = 1,
    PBD_METHOD_NEWTON = 2,
    PBD_METHOD_VBD = 3,
    PBD_METHOD_AVBD = 4,
    PBD_METHOD_PD = 5
} pbd_method;
/* The method table (solver/methods.c; solver/README.md "The method table"): the number of
 * methods (the values of def.method: pbd_method's and any added after them), the name of
 * method i ("xpbd"; NULL outside 0 .. count - 1), the number of a name (-1: none), and
 * whether def.method can take the world: its up-front refusals, PBD_OK or PBD_EINVAL with
 * one line (pbd_step checks the same before every step). */
struct pbd_world;
int pbd_method_count(void);
const char *pbd_method_name(int method);
int pbd_method_find(const char *name);
pbd_status pbd_method_check(const struct pbd_world *w);
/* VBD's initial guess of the step's positions (VBD "Initialization"). */
typedef enum {
    PBD_VBD_INIT_PREVIOUS = 0,     /* x_t */
    PBD_VBD_INIT_INERTIA = 1,      /* x_t + h v_t */
    PBD_VBD_INIT_ACCELERATION = 2, /* x_t + h v_t + h² a_ext = y, the inertial target */
    PBD_VBD_INIT_ADAPTIVE = 3      /* x_t + h v_t + h² ã, ã the previous step's acceleration's
                                    * component along a_ext, clamped to [0, |a_ext|] */
} pbd_vbd_init;
/* How PBD/XPBD project the rods' constraints (constraints/README.md "Rods"). */
typedef enum {
    PBD_ROD_GENERIC = 0,     /* row by row, the generic projection on SO(3) (Δθ = Δλ W ∇_θC) */
    PBD_ROD_CLOSED_FORM = 1  /* an element's rows together in the closed form of Kugelstadt &
                              * Schömer 2016 (Eq. 37, Eq. 40; pbd_constraint_type.project_element) */
} pbd_rod_projection;
/* The order of VBD's/AVBD's vertex sweep. */
typedef enum {
    PBD_VBD_ORDER_COLOUR = 0, /* colour after colour, each colour in parallel (VBD
                               * "Parallelization") */
    PBD_VBD_ORDER_INDEX = 1   /* serial Gauss–Seidel over the free particles 0 .. n−1 (the
                               * order of a plain serial sweep, for comparing iterate by
                               * iterate with serial reference code) */
} pbd_vbd_order;
/* The Newton reference's linear solver (solver/newton/newton_linear.c; solver/README.md). */
typedef enum {
    PBD_NEWTON_AUTO = 0,    /* CHOLMOD on the Schur complement, 3 unknowns per free particle:
                             * supernodal LLᵀ, then LDLᵀ once it is indefinite (buckling),
                             * then UMFPACK when LDLᵀ meets a zero pivot or an inaccurate solve */
    PBD_NEWTON_UMFPACK = 1, /* UMFPACK (sparse LU) on the full KKT system, XPBD Eq. 10-11 */
    PBD_NEWTON_CHOLMOD = 2, /* CHOLMOD on the Schur complement, without the fallback */
    PBD_NEWTON_DENSE = 3    /* GSL's dense LU on the full KKT system: the test oracle, small
                             * scenes only (at most 4000 unknowns) */
} pbd_newton_solver;
typedef enum {
    PBD_SCHEME_GAUSS_SEIDEL = 0,
    PBD_SCHEME_JACOBI = 1,
    PBD_SCHEME_COLORED_GS = 2
} pbd_scheme;
typedef enum {
    PBD_DAMPING_NONE = 0,
    PBD_DAMPING_SCALE = 1,    /* v <- (1 - k_damping) v */
    PBD_DAMPING_MOMENTUM = 2  /* PBD Sec. 3.5, conserves linear and angular momentum */
} pbd_damping;

/* Every value here is written into every output file. */
typedef struct pbd_solver_def {
    double dt;                /* s, time per step (split into substeps) */
    int iterations;           /* solver iterations per (sub)step */
    int substeps;             /* Small Steps: n substeps of dt/n */
    double gravity[3];        /* m/s^2 */
    pbd_method method;
    int linearize_stiffness;  /* PBD: k' = 1 - (1-k)^(1/n) */
    pbd_scheme scheme;
    double sor_omega;         /* Jacobi over-relaxation factor */
    int threads;              /* coloured GS; 0 = OMP_NUM_THREADS / default */
    pbd_damping damping;
    double k_damping;         /* [0, 1] */
    double xpbd_beta;         /* XPBD constraint damping β (XPBD Eq. 26), >= 0; 0 = off */
    int record_iterations;    /* measure residuals after every iteration */
    pbd_rod_projection rod_projection; /* rods: generic or closed-form (PBD/XPBD) */
    /* performance (solver/xpbd/README.md "Performance") */
    int kernels;              /* 1: the types' batched kernels where they have them; 0: the
                               * generic projection for every constraint (the reference) */
    int sort_by_colour;       /* coloured GS: keep each set's arrays sorted by colour; constraint
                               * indices then change (set->origin maps back) */
    int measure_every;        /* measure stage (residuals, momenta, energy) after every N-th
                               * step, 0 = never (stats then keep their last values) */
    /* divergence watchdog (solver/step.c), beside the non-finite one; 0 = off */
    double watch_position;    /* a particle farther than this × max(L, 1 m) + |v0| t + |g| t²/2
                               * from the scene's initial centre stops the run (L: the initial
                               * bounding box's diagonal, v0 the fastest initial speed) */
    double watch_residual;    /* a set's max |C| above this, in the set's units (m, rad, m³ …),
                               * stops the run (checked on the steps that measure) */
    /* the Newton reference (method newton, pbd_newton_*) */
    double newton_tol;        /* stop at ||(g, h)||_2 <= this */
    int newton_max_iterations;/* Newton iterations per (sub)step at most */
    pbd_newton_solver newton_solver;
    /* the solver families (method vbd, avbd, pd; solver/README.md "Solver families") */
    pbd_vbd_init vbd_init;    /* VBD/AVBD initial guess (VBD "Initialization") */
    double vbd_chebyshev_rho; /* VBD/AVBD Chebyshev acceleration's ρ in [0, 1) (VBD Sec. 3.8,
                               * Wang 2015); 0 = off */
    pbd_vbd_order vbd_order;  /* VBD/AVBD sweep order (colour or index) */
    double vbd_contact_stiffness; /* VBD's contact penalty k_c in N/m (VBD Sec. 4: ½ k_c d²);
                               * 0 = the larger of 1e3 × the free particles' largest m/h²
                               * and the scene's largest 1/α (ours) */
    double vbd_damping;       /* VBD/AVBD damping k_d in s ("Damping"): each energy adds the
                               * force -(k_d/h) ∇²E (x - x_t); 0 = off */
    double avbd_beta;         /* AVBD penalty ramp k <- k + β|C| (AVBD "Hard constraints"),
                               * in the stiffness' unit per C unit (N/m² for distances) */
    double avbd_alpha;        /* AVBD error reduction C = C* - α C*(x_t) for hard constraints
                               * and warm start λ <- αγλ (AVBD "Error reduction", "Warm
                               * starting"), in [0, 1] */
    double avbd_gamma;        /* AVBD warm start k <- max(γ k, k_start) (AVBD "Warm
                               * starting"), [0, 1] */
    double avbd_k_start;      /* AVBD's smallest penalty k_start (its unit as k); 0 = soft:
                               * the mean m/h² of its free particles, hard: the world's
                               * largest m/h² (ours) */
} pbd_solver_def;

pbd_solver_def pbd_solver_def_default(void);
/* Check a definition: returns PBD_OK or PBD_EINVAL with pbd_last_error() naming the field. */
pbd_status pbd_solver_def_validate(const pbd_solver_def *def);
/* Columns of a step's per-iteration residuals (w->iter_*, /iterations): iterations × substeps,
 * or for method newton (newton_max_iterations + 1) × substeps (the start and each iterate). */
int pbd_iteration_log_width(const pbd_solver_def *def);

/* ---- constraint sets --------------------------------------------------------------- */

/* What the measure stage found for one constraint set after a step, in the unit of its
 * type's C (type->unit); see pbd_step_stats for when it runs. */
typedef struct pbd_set_stats {
    double max_c;          /* max |C| over its equalities and violated inequalities (C < 0) */
    double l2_c;           /* ||C||_2 over the same */
    double xpbd_residual;  /* ||C + α̃λ||_2 (XPBD Eq. 9), α̃ = α/h² of the last substep h, over
                            * the same plus inequalities holding a multiplier (λ != 0) */
    double elastic_energy; /* J: Σ C²/(2α) over the same with α > 0 (XPBD Eq. 3); NaN for PBD,
                            * whose stiffness k defines no energy */
    int active;            /* constraints counted in max_c and l2_c */
    int degenerate;        /* rows whose eval says PBD_EVAL_DEGENERATE at the measured positions
                            * (they still count in max_c when their C is finite) */
    int max_at;            /* the row of max_c (-1: none counted), named by the watchdog */
    long step;             /* w->step_count when measured (0: never) */
} pbd_set_stats;

/* One type's constraints as parallel arrays (DESIGN.md "Data"). */
typedef struct pbd_constraint_set {
    const pbd_constraint_type *type;
    int arity;          /* particles per row (the type's, or chosen for variable arity) */
    int count, capacity;
    int32_t *idx;       /* count × arity particle indices */
    double *rest;       /* count × type->n_rest */
    double *stiffness;  /* PBD k in [0, 1] */
    double *compliance; /* XPBD α (m/N for distances), >= 0 */
    double *lambda;     /* XPBD multiplier, reset every (sub)step */
    double *k_eff;      /* stiffness used this step (linearized or raw) */
    int32_t *aux;       /* per-set topology in local indices (balloon triangles) */
    int n_aux;
    int32_t *origin;    /* NULL, or after sorting (by colour, or pbd_world_reorder): origin[c]
                         * = the index that constraint c had when it was added
                         * (pbd_set_add's return value) */
    int fixed_order;    /* 1: never sorted (a side table elsewhere indexes the rows, e.g. the
                         * collision module's contact sets) */
    pbd_set_stats stats; /* the last measure stage's values for this set */
} pbd_constraint_set;

/* ---- the world --------------------------------------------------------------------- */

enum {
    PBD_STAGE_EXTERNAL_FORCES,
    PBD_STAGE_DAMP_VELOCITIES,
    PBD_STAGE_PREDICT,
    PBD_STAGE_GENERATE_COLLISIONS,
    PBD_STAGE_PROJECT,
    PBD_STAGE_UPDATE,
    PBD_STAGE_VELOCITY_UPDATE,
    PBD_STAGE_MEASURE,
    PBD_STAGE_NEIGHBOUR_SEARCH, /* a fluid's neighbour lists (solver/fluid/), after predict */
    PBD_STAGE_COUNT
};
extern const char *const pbd_stage_names[PBD_STAGE_COUNT];

/* What the last measure stage found (for the experiments' /series). It runs after every
 * def.measure_every-th step; `step` says after which (the values are stale when it is not
 * w->step_count). Per set values, in each type's unit, are in set->stats; the overall
 * max_c, l2_c and xpbd_residual take every set together and so mix units (m, rad, m³)
 * unless all sets have the same one. Velocities are those of the last substep,
 * v = (x_end - x_start)/h after velocityUpdate. */
typedef struct pbd_step_stats {
    double max_c;          /* max |C| over the sets' counted constraints (see pbd_set_stats) */
    double l2_c;           /* ||C||_2 */
    double xpbd_residual;  /* ||C + α̃ λ||_2 */
    double linear_momentum[3];      /* kg m/s, free particles */
    double angular_momentum[3];     /* kg m²/s about the origin */
    double kinetic_energy;          /* J, Σ ½ m |v|² (free particles) */
    double gravitational_energy;    /* J, -Σ m g·x (free particles) */
    double elastic_energy;          /* J, Σ of the sets' (XPBD); NaN for PBD */
    double total_energy;            /* J, kinetic + gravitational + elastic (XPBD) */
    long step;                      /* w->step_count when measured (0: never) */
    double stage_seconds[PBD_STAGE_COUNT]; /* this step's, always */
    int skipped;           /* constraints the last iteration skipped (always), at the positions
                            * that iteration saw them: degenerate geometry, or Σ w|∇C|² = 0
                            * (every particle pinned); method newton: the rows degenerate at the
                            * last iterate (pinned rows are in its system, not skipped) */
    int degenerate;        /* measured: rows degenerate at the step's end positions x (the
                            * sets' stats.degenerate; pinned rows are not degenerate there) */
    int threads;           /* the most threads this step's parallel loops ran on (always) */
    int newton_iterations; /* method newton: Newton iterations of the last (sub)step */
    int newton_minimum;    /* method newton: its answer checked, PBD_NEWTON_MINIMUM_* */
} pbd_step_stats;

/* Kinematic attachment target: target(t) for attachment a, given its anchor. */
typedef void (*pbd_attachment_motion)(int a, double t, const double anchor[3], double target[3],
                                      void *user);

/* Stages that a room above the core plugs into the step (solver/collision/ does, when a world
 * gets its first collider, rigid body or cloth triangles): PBD Algorithm 1 line (8)
 * generateCollisionConstraints(x_i -> p_i), line (16) velocityUpdate, and freeing its state
 * with the world. The core calls them without knowing what they do. */
struct pbd_world;
typedef struct pbd_step_stages {
    void (*generate_collisions)(struct pbd_world *w, double h);
    void (*velocity_update)(struct pbd_world *w, double h);
    void (*free)(struct pbd_world *w);
    /* NULL, or one projection sweep in place of the generic one (lines 9–11): a fluid's
     * Jacobi density update (solver/fluid/). Returns the constraints skipped, or -1 with
     * pbd_last_error() set (the step then returns PBD_EINVAL). */
    int (*project)(struct pbd_world *w, double h);
    /* NULL, or what the solver families (VBD, AVBD, PD: solver/families.c) ask of the
     * contacts, which they solve in their own iterations instead of lines 9–11 and 16:
     * contact_kind: 0 for an ordinary set, PBD_CONTACT_COLLIDER for set s's particle–collider
     * rows (plane_collision {q, n}), PBD_CONTACT_SELF for self collision, PBD_CONTACT_OTHER
     * for any other (rigid bodies' corners); contact_mu: the friction coefficient μk of row r
     * of the collider set; family_refusal: NULL, or why the families cannot take the world's
     * contacts (one line); family_measure: the contact measures after a substep (penetration,
     * active rows λ > 0, the normal impulse λ/h, sticking when the tangential speed is at
     * most v_stick, self crossings), in place of velocity_update. */
    int (*contact_kind)(const struct pbd_world *w, int s);
    double (*contact_mu)(const struct pbd_world *w, int s, int r);
    /* contact_gap: how close beyond the prediction's largest displacement a pair of contact
     * set s must come to get a row (self collision: twice the thickness; colliders: the
     * contact margin), m */
    double (*contact_gap)(const struct pbd_world *w, int s);
    const char *(*family_refusal)(const struct pbd_world *w);
    void (*family_measure)(struct pbd_world *w, double h, double v_stick);
    /* push_out: every free particle of x (w > 0, a rigid body's corners aside) inside a
     * static plane, sphere or box collider onto its closest surface point; the count moved.
     * For a method whose global step can carry particles into a collider that has no row for
     * them (PD: solver/pd/pd_contact.c) */
    int (*push_out)(const struct pbd_world *w, double *x);
} pbd_step_stages;
enum { PBD_CONTACT_NONE = 0, PBD_CONTACT_COLLIDER = 1, PBD_CONTACT_SELF = 2, PBD_CONTACT_OTHER = 3 };

typedef struct pbd_world {
    /* particles: flat arrays, n × 3 and n (DESIGN.md "Data") */
    int n;
    double *x, *p, *v, *w;
    /* constraint sets */
    int n_sets;
    pbd_constraint_set *sets;
    /* attachments (PBD Sec. 3.6): particle, anchor and current target */
    int n_attach;
    int32_t *attach_idx;
    double *attach_anchor, *attach_target;
    pbd_attachment_motion attach_motion;
    void *attach_user;
    /* solver */
    pbd_solver_def def;
    double time;
    long step_count;
    /* workspace, sized while the world is built: nothing is allocated in a step */
    int max_arity;
    double *work_x, *work_w, *work_grad;
    double *work_x0;                     /* x_n gathered (XPBD damping, Eq. 26) */
    double *iter_max_c, *iter_l2_c; /* def.iterations × substeps values of the last step */
    double *iter_xpbd;                   /* ||C + α̃λ||_2 per iteration, same shape */
    double *iter_newton;                 /* method newton: ||(g, h)||_2 per iterate, same shape */
    double *iter_sets;  /* per iteration k and set s, at [(k n_sets + s) 3 + {0,1,2}]: max |C|,
                         * ||C||_2, ||C + α̃λ||_2 of that set (its unit) */
    int iter_sets_n;    /* the n_sets iter_sets was laid out for */
    struct pbd_variants_state *variants; /* Jacobi, colouring, Newton workspace; NULL at first */
    int iter_capacity;
    pbd_step_stats stats;
    /* colliders, contacts and rigid bodies (solver/collision/, pbd_collision.h): its state
     * and the step stages it plugs in, both NULL when the world has none */
    struct pbd_collision_state *collision;
    const struct pbd_step_stages *collision_stages;
    /* post-step hook: called at the end of pbd_step, after the step is complete and its
     * results checked finite (topology changes such as tearing go here); a status other
     * than PBD_OK is returned by pbd_step. post_step_free(post_step_user), when set, is
     * called by pbd_world_free. */
    pbd_status (*post_step)(struct pbd_world *w, void *user);
    void *post_step_user;
    void (*post_step_free)(void *user);
    /* NULL, or after pbd_world_reorder: the index particle i had before (solver/reorder.c) */
    int32_t *particle_origin;
    /* a fluid (solver/fluid/, pbd_fluid.h): its state and stages, NULL when the world has
     * none. Its generate_collisions is the neighbour search (stage neighbour_search), its
     * project replaces the generic sweep, its velocity_update runs after the collisions' */
    struct pbd_fluid_state *fluid;
    const struct pbd_step_stages *fluid_stages;
    /* the divergence watchdog's reference, taken at the world's first step (solver/step.c):
     * the initial bounding box's centre and diagonal, the fastest initial speed and time */
    int watch_ready;
    double watch_centre[3], watch_extent, watch_speed, watch_time0;
    /* orientations (Cosserat rods; solver/orient.c, solver/README.md "Orientations"): optional
     * state beside the particles, n_orient = 0 and NULL arrays in a world without them: unit
     * quaternions q (4 each, (w, x, y, z)), their predicted and projected values u (the
     * orientations' p), world-frame angular velocities omega (rad/s, 3 each) and the body
     * frame's principal inverse inertias inv_inertia (1/(kg m²), 3 each; all three 0: fixed) */
    int n_orient;
    double *q, *u, *omega, *inv_inertia;
} pbd_world;

pbd_world *pbd_world_create(int n_particles);
void pbd_world_free(pbd_world *w);

/* Particle i's position x, velocity v (NULL: 0) and mass m: m > 0 gives w = 1/m, m = 0 or
 * INFINITY a fixed particle (w = 0). The world keeps only w, so an inverse mass passed as
 * m = 1/w comes back as 1/(1/w), which is not always w (0.11 gives 0.10999999999999999):
 * give inverse masses with pbd_world_set_particle_w. No checks (i must be < w->n). */
void pbd_world_set_particle(pbd_world *w, int i, const double x[3], const double v[3],
                            double mass);
/* The same with the inverse mass itself: w->w[i] = inv_mass exactly, in 1/kg; 0 pins the
 * particle (PBD Sec. 3.6: no constraint moves it, gravity does not act on it). PBD_EINVAL
 * (pbd_last_error names the argument) for i outside [0, w->n), a non-finite x or v, or an
 * inv_mass that is negative or not finite; nothing is changed then. For a new particle:
 * pbd_world_add_particle with any mass, then this. */
pbd_status pbd_world_set_particle_w(pbd_world *w, int i, const double x[3], const double v[3],
                                    double inv_mass);
/* Append one particle (between steps, never inside one): position x, velocity v (NULL: 0)
 * and mass as for pbd_world_set_particle. x, p, v and w grow by one; the solver variants'
 * per-particle workspaces follow at the next step (their fingerprint holds n). Pointers
 * into w->x, w->p, w->v, w->w taken before are invalid afterwards. Returns the new
 * particle's index (the old n) or -1 (pbd_last_error tells why). */
int pbd_world_add_particle(pbd_world *w, const double x[3], const double v[3], double mass);

/* Add an (empty) constraint set; arity 0 means the type's own. Returns its index or -1. */
int pbd_world_add_set(pbd_world *w, const pbd_constraint_type *type, int arity);
/* Add one constraint. rest == NULL computes rest values from the current positions x.
 * Returns the constraint's index in the set, or -1 (pbd_last_error tells why). */
int pbd_set_add(pbd_world *w, int set, const int32_t *idx, const double *rest,
                double stiffness, double compliance);
/* Grow a set's parallel arrays to hold cap rows, so that rows can be added inside a step
 * without allocating (the contact sets of solver/collision/ are refilled every substep). */
pbd_status pbd_set_reserve(pbd_constraint_set *s, int cap);
/* Between steps: rewrite constraint c's index row in place (rest, stiffness and
 * compliance stay), or remove constraint c (the ones after it move down by one). Both
 * invalidate the colouring and the Jacobi workspace, which are rebuilt at the next step.
 * PBD_EINVAL for a bad set, constraint or particle index. */
pbd_status pbd_set_rewrite(pbd_world *w, int set, int c, const int32_t *idx);
pbd_status pbd_set_remove(pbd_world *w, int set, int c);
/* Give a set its auxiliary topology (copied). */
pbd_status pbd_set_aux(pbd_world *w, int set, const int32_t *aux, int n_aux);

/* Append one orientation (between steps): unit quaternion q (normalised here), world-frame
 * angular velocity omega (NULL: 0, rad/s), principal inverse inertias of the body frame
 * inv_inertia (1/(kg m²); {0, 0, 0}: a fixed orientation that no constraint turns, a clamp).
 * Returns its index or -1 (pbd_last_error: a zero or non-finite q, a negative or non-finite
 * inverse inertia, out of memory). Worlds with orientations take Gauss–Seidel only
 * (solver/README.md "Orientations"). */
int pbd_world_add_orientation(pbd_world *w, const double q[4], const double omega[3],
                              const double inv_inertia[3]);
/* Angular momentum of the orientations' spin, Σ R I Rᵀ ω (kg m²/s), and their kinetic energy
 * ½ Σ ω·R I Rᵀ ω (J), over orientations with all three inverse inertias > 0; zeros in a world
 * without orientations. pbd_momentum and the measure stage add these. */
void pbd_orientation_momentum(const pbd_world *w, double spin[3], double *kinetic);

/* Pin particle i (w = 0) to its current position, moved by attach_motion if set. */
int pbd_world_attach(pbd_world *w, int i);

/* ---- the step ---------------------------------------------------------------------- */

/* One time step of def.dt (PBD Algorithm 1). Returns PBD_OK, PBD_ENUMERIC (a non-finite
 * value, or the divergence watchdog: def.watch_position, def.watch_residual), PBD_EINTR (a
 * stop request, pbd_set_stop_flag) or PBD_ENOMEM. */
pbd_status pbd_step(pbd_world *w);

/* ---- single projections: one constraint, no world (solver/xpbd/project.c) --------------
 *
 * The projection of one constraint of any registered type, the one the step does (with
 * def.kernels = 0), callable on its own to check a published formula. Arguments:
 *   type       the constraint type (pbd_distance_type, ..., or pbd_constraint_type_find)
 *   in         its particles gathered in index-row order: in->x (3·arity doubles, read
 *              only) is where C and ∇C are evaluated; in->arity, in->rest (type->n_rest
 *              doubles), in->aux / in->n_aux (balloon triangles, else NULL / 0)
 *   w          arity inverse masses, 1/kg; w_j = 0 is a fixed particle (never moved)
 *   x_out      3·arity doubles the correction is ADDED to: x_out_j += Δx_j, with Δx computed
 *              at in->x. The caller initialises it; normally a copy of in->x (then x_out
 *              receives in->x + Δx), or in->x itself (in place, as the solver does: C and
 *              ∇C are evaluated before x_out is written).
 *   grad_work  3·arity doubles of scratch; receives ∇C(in->x) (unspecified when degenerate)
 * Orientation types (rods, pbd_constraint_type.n_orient): in->x and x_out hold the particles'
 * positions and then the orientations' quaternions; w_j of an orientation is an isotropic
 * inverse inertia (1/(kg m²)) and its entry turns by Δθ_j = Δλ w_j ∇_θ C, q ← exp(Δθ/2) q.
 * Both return PBD_EVAL_OK (x_out moved), PBD_EVAL_DEGENERATE (nothing moved: the gradient
 * is undefined, Σ_j w_j |∇_j C|² <= 1e-300 as when every particle is fixed, or C is not
 * finite) or -1 (nothing moved: an inequality constraint, C >= 0, is satisfied).
 * Neither allocates; neither reads or writes anything but its arguments (thread safe). */

/* PBD (Müller et al. 2006, Eq. 6–9) with stiffness k in [0, 1] (dimensionless; 1 = the
 * full projection; the step passes the set's k_eff, linearized when def says so):
 *   s = C / Σ_j w_j |∇_j C|²  (Eq. 8),   x_out_j -= k s w_j ∇_j C  (Eq. 9 with k, Sec. 3.3).
 * For a distance constraint this is Eq. 10–11 (pbd_distance_type.project_closed_form). */
int pbd_project_generic(const pbd_constraint_type *type, const pbd_eval_input *in,
                        const double *w, double k, double *x_out, double *grad_work);

/* XPBD (Macklin et al. 2016, Eq. 18; no constraint damping, i.e. Eq. 26 with γ = 0), one
 * Gauss–Seidel update of one constraint:
 *   Δλ = (-C - α̃ λ) / (Σ_j w_j |∇_j C|² + α̃),   λ += Δλ,   x_out_j += Δλ w_j ∇_j C  (Eq. 17).
 * alpha_tilde = α̃ = α/Δt² >= 0 (Eq. 4): α the compliance, the inverse stiffness (m/N for a
 * distance, whose α̃ is then in 1/kg like w), Δt the (sub)step; α = 0 is a rigid
 * constraint (Δλ = -C / Σ w|∇C|², PBD with k = 1). *lambda is the constraint's multiplier λ
 * accumulated since the start of the (sub)step (0 before its first iteration; kg·m for a
 * distance), read and updated in place; ∇_j C λ/Δt² is the constraint's force on particle
 * j (Eq. 9). Unchanged unless PBD_EVAL_OK is returned. */
int pbd_project_generic_xpbd(const pbd_constraint_type *type, const pbd_eval_input *in,
                             const double *w, double alpha_tilde, double *lambda,
                             double *x_out, double *grad_work);

/* Residuals of all active constraints at the predicted positions p. */
void pbd_world_residual(pbd_world *w, const double *pos, double *max_c, double *l2_c);

/* Linear and angular momentum (about the origin) of positions pos and velocities vel; with
 * orientations (rods) the angular momentum includes their spin at w->q, w->omega. */
void pbd_momentum(const pbd_world *w, const double *pos, const double *vel, double lin[3],
                  double ang[3]);

/* ---- solver variants (XPBD damping, Jacobi, colouring, Newton reference) ----------- */

/* XPBD residual ||C + α̃λ||_2 at positions pos with α̃ = α · alpha_scale (alpha_scale =
 * 1/h², h the (sub)step). Inequalities count while violated or while λ != 0. */
double pbd_world_xpbd_residual(pbd_world *w, const double *pos, double alpha_scale);
/* The largest particle move of XPBD's first projection from λ = 0 (XPBD Eq. 18:
 * |Δλ| w_j |∇_jC|, Δλ = −C/(Σ w|∇C|² + α̃), α̃ = α/h²) over the soft equalities (α > 0) at
 * w->x, in m; *set_out gets its set (−1: none). Where the state is at rest, a move far above
 * the free fall h²|g| means the rest state holds multipliers λ = −C/α̃ that XPBD rebuilds from
 * 0 every (sub)step (a constraint with C ≠ 0 at rest: the Stable Neo-Hookean ‖F‖_F), and its
 * step is then not the implicit step (solver/xpbd/README.md "Solver variants"). Rods skipped. */
double pbd_xpbd_restart_move(pbd_world *w, double h, int *set_out);

/* Graph colouring for coloured Gauss–Seidel (solver/xpbd/colouring.c): greedy, per set, in
 * constraint order, so that no two constraints of one colour share a particle (fixed ones
 * included). The step colours by itself when the scheme asks for it and the constraints
 * changed; this colours every set now. */
pbd_status pbd_world_colour(pbd_world *w);
/* The colouring of a set: order[start[k] .. start[k+1]) are the constraints of colour k.
 * Returns the number of colours, or -1 when the world has not been coloured. */
int pbd_set_colours(const pbd_world *w, int set, const int32_t **order, const int32_t **start);

/* Newton reference (solver/newton/newton.c, solver/README.md): solves the implicit step of XPBD
 * Eq. 8–9 with Δt = def.dt (substeps ignored) exactly,
 *   g(x, λ) = M(x - x̃) - ∇C(x)ᵀλ = 0,  h(x, λ) = C(x) + α̃λ = 0,  x̃ = x + Δt v + Δt² g,
 * by Newton's method on the KKT system (XPBD Eq. 10–11) with the full Hessian of C (the
 * types' analytic `hessian`, else central differences of the analytic gradient), from
 * x = x̃, λ = 0, with a backtracking line search on ||(g, h)||_2. The linear systems are
 * solved by def.newton_solver (sparse by default: SuiteSparse). Fixed particles (w = 0) are
 * eliminated: they move to x + Δt v, attachments to their targets. It uses the sets'
 * compliance α whatever def.method says, and no damping of either kind. Refused with one
 * line (PBD_EINVAL): inequality constraints and colliders (contacts), and a constraint with
 * PBD stiffness k < 1 and α = 0 (PBD's stiffness has no implicit counterpart). A
 * degenerate constraint (PBD_EVAL_DEGENERATE) has no gradient at that iterate, as in XPBD.
 * x_out (3n) and lambda_out (the sets' counts, set after set) may be NULL.
 * residuals (max_iter + 1 values, may be NULL) gets ||(g, h)||_2 before each iteration
 * and after the last; *n_iter the Newton iterations taken. Stops at ||(g, h)|| <= tol;
 * PBD_ENUMERIC when it does not get there in max_iter. */
pbd_status pbd_newton_solve(pbd_world *w, int max_iter, double tol, double *x_out,
                            double *lambda_out, double *residuals, int *n_iter);
/* Advance the world by one such step: x, v, λ (set by set), time and stats. */
pbd_status pbd_newton_step(pbd_world *w, int max_iter, double tol, double *residuals,
                           int *n_iter);
/* Whether the Newton reference can take this world (the refusals above, def's newton_*
 * fields): PBD_OK or PBD_EINVAL with the one line. */
pbd_status pbd_newton_check(const pbd_world *w);
/* Whether the solver family of def.method (vbd, avbd, pd) can take this world: PBD_OK, or
 * PBD_EINVAL with one line naming the set, the type and the reason (solver/README.md "Solver
 * families": the method table); pbd_method_check under its older name. pbd_step checks it
 * too, at every step. */
pbd_status pbd_family_check(const pbd_world *w);
/* Everything a Newton step needs before its first iteration, made now and kept for the
 * steps (the workspace, the pattern and assembly maps, the factorisation's symbolic
 * analysis), and the memory the steps will need estimated from that analysis (*bytes, may
 * be NULL): PBD_ENOMEM with that number when it exceeds the memory available
 * (pbd_memory_limit: PBD_MEMORY_LIMIT or PBD_NEWTON_MEMORY_LIMIT in bytes, optionally with
 * k/M/G, else MemAvailable of /proc/meminfo); pbd-run calls it before the first step. The steps check the same. */
pbd_status pbd_newton_prepare(pbd_world *w, size_t *bytes);
/* What the last solve of this world did (zeros before the first). */
typedef struct pbd_newton_info {
    int iterations;          /* Newton iterations */
    double residual;         /* ||(g, h)||_2 at the end */
    int solver;              /* the linear solver used last (PBD_NEWTON_*, never AUTO) */
    int unknowns;            /* of the linear system: 3 n_free (+ m for the KKT form) */
    long nonzeros;           /* of its matrix (the dense one: unknowns²) */
    size_t bytes;            /* the reference's memory: workspace, pattern, matrix and the
                              * factorisation's peak as the library counts it */
    size_t estimate_bytes;   /* the same estimated from the symbolic analysis, up front */
    double seconds_assemble; /* Hessians and assembly, summed over the iterations */
    double seconds_solve;    /* factorisation and solve, summed */
    double seconds_total;    /* the whole solve */
    int line_search_halvings;/* step halvings over the solve */
    int skipped;             /* degenerate constraints at the last iterate */
    int hessians_skipped;    /* constraints whose Hessian was undefined (left out) */
    int factorisations;      /* CHOLMOD's numeric factorisations in the solve (auto,
                              * cholmod: solver/newton/README.md "The modified factorisation") */
    int krylov_iterations;   /* MINRES iterations on the exact matrix, summed */
    int modified;            /* switches to the modified (projected) Newton direction: the
                              * KKT direction was no descent direction of G */
    int escapes;             /* solves after the first, each begun where the one before
                              * ended at a saddle (solver/newton/README.md "A minimum, not a
                              * saddle"; at most 8, then refused); iterations counts all */
    int minimum;             /* the answer checked (solver/newton/README.md "Newton reference"):
                              * PBD_NEWTON_MINIMUM_* below */
    double objective;        /* G at the answer, J (½|x − x̃|²_M/Δt² + Σ ½C²/α); NaN
                              * where a hard row (α = 0) leaves no G */
    int negative_pivots;     /* at a refused saddle: ∇²G's negative eigenvalues (LDLᵀ) */
    double curvature;        /* ... and dᵀ∇²G d/|d|² along the most negative one, J/m² */
    double first_step[4];    /* the first accepted step's line search on G: G(x), ∇G·dx,
                              * the step length t and G(x + t dx) (Armijo's condition:
                              * [3] <= [0] + 1e-4 [2] [1], or [3] within G's rounding of [0]);
                              * NaN where the merit is ||(g, h)|| */
} pbd_newton_info;
/* pbd_newton_info.minimum and pbd_step_stats.newton_minimum: the answer is a minimum of G,
 * proven (∇²G positive definite: by its elements' blocks against the masses, or CHOLMOD's
 * LLᵀ); a saddle (G falls along a direction of negative curvature by more than the stop
 * resolves: solved anew, and after the last solve refused, PBD_ENUMERIC); not checked (a
 * hard row: no G; or a row's Hessian undefined); marginal (negative curvature along which G
 * falls by less than the stop resolves: accepted). */
enum { PBD_NEWTON_MINIMUM_UNCHECKED = -1, PBD_NEWTON_MINIMUM_SADDLE = 0,
       PBD_NEWTON_MINIMUM_PROVEN = 1, PBD_NEWTON_MINIMUM_MARGINAL = 2 };
void pbd_newton_last_info(pbd_world *w, pbd_newton_info *info);
/* The Schur form's linear solves (solvers auto, cholmod), process-wide: 1 (the default)
 * MINRES on the exact matrix preconditioned by a kept supernodal LLᵀ (solver/newton/README.md
 * "The modified factorisation"); 0 a factorisation of the exact matrix in every iteration,
 * LLᵀ then LDLᵀ (the path before it; the bench's baseline). Both stop at the same tolerance. */
void pbd_newton_set_krylov(int on);
/* MINRES' preconditioner, process-wide: 1 (the default) the kept factor's values rounded to
 * float, applied by pbdlab's own supernodal substitution summed in double (half the bytes a
 * solve streams; solver/newton/newton_precond.c); 0 CHOLMOD's solve with the factor in double. */
void pbd_newton_set_precond_float(int on);
/* Check of that substitution on the kept factor of slot 0 (first Newton iteration of a step)
 * or 1 (the later ones) of w's last Newton step: for a fixed v, the relative 2-norm
 * differences from cholmod_solve's (LLᵀ)⁻¹v of the substitution over a double copy of L's
 * values and over the float copy. PBD_EINVAL when that slot holds no factor. */
pbd_status pbd_newton_precond_check(pbd_world *w, int slot, double *rel_double,
                                    double *rel_float);
/* The BLAS that serves the sparse factorisations (Newton, PD; solver/blas.c): the
 * library that defines the process's dgemm_, e.g. "OpenBLAS 0.3.21 ... (path)" or
 * "netlib (path)", and the threads its next factorisation runs on (PBD_BLAS_THREADS, else
 * 1; 1 for a single-threaded BLAS).
 * Result files record both. */
const char *pbd_blas_name(void);
int pbd_blas_threads(void);
/* Set those threads (≥ 1; 0: automatic again; ignored for a single-threaded BLAS). */
void pbd_blas_set_threads(int threads);
/* The threads of the Newton step's own loops (the assembly of the Schur complement and
 * MINRES' product with it; solver/newton/newton_threads.c): ≥ 1, or 0 (the default) to follow the
 * BLAS's setting above (PBD_BLAS_THREADS, default 1). The results are the same bit for bit
 * on any count (every entry summed in the same order); only the BLAS's are not. */
void pbd_newton_set_threads(int threads);

/* Small symmetric matrices (solver/symeig.c, cyclic Jacobi; never aborts): the eigenvalues
 * of the n × n row-major A (n <= PBD_SYM_EIGEN_MAX) into evals and the eigenvectors into
 * the columns of V; A is overwritten. 0, or -1 for n out of range or a non-finite entry. */
#define PBD_SYM_EIGEN_MAX 12
int pbd_sym_eigen(int n, double *A, double *evals, double *V);
/* A replaced by its projection with every eigenvalue below `floor` raised to it (Teran et
 * al. 2005's definiteness fix): the number raised, or -1 as above. */
int pbd_sym_project_psd(int n, double *A, double floor);

/* ---- performance: layout, memory (solver/xpbd/layout.c, reorder.c, memory.c) ------------ */

/* Sort every set's parallel arrays by colour (colouring first if needed), so that the
 * constraints of one colour are contiguous; set->origin maps the new indices back. The step
 * does this by itself for coloured GS when def.sort_by_colour is set. The physics of
 * coloured GS does not change (the colouring of a sorted set is the same colouring). */
pbd_status pbd_world_sort_by_colour(pbd_world *w);
/* Release what the world holds beyond its needs: set arrays trimmed to their counts, the
 * colouring's scratch freed (allocated again if the constraints change). */
pbd_status pbd_world_compact(pbd_world *w);
/* Bytes the world has allocated: particles, sets (by capacity), attachments, workspaces,
 * iteration log, colouring, Jacobi and thread workspaces (not the collision state). */
size_t pbd_world_bytes(const pbd_world *w);
/* The memory a run may use, in bytes: PBD_MEMORY_LIMIT, else PBD_NEWTON_MEMORY_LIMIT (the
 * older name), each a number optionally with k, M or G (powers of 1024), else MemAvailable of
 * /proc/meminfo, else SIZE_MAX; *source names which. PBD_EINVAL on a malformed limit. */
pbd_status pbd_memory_limit(size_t *limit, const char **source);
/* A world's size before it is built (pbd-run's up-front estimate, solver/memory.c). */
typedef struct pbd_memory_shape {
    double n;        /* particles */
    double rows;     /* constraints, summed over the sets */
    double scalars;  /* their scalar rows (n_components each) */
    double indices;  /* particle indices, Σ count·arity */
    double rest;     /* rest values, Σ count·n_rest */
    double pairs;    /* Σ count·arity² (whole-mesh constraints left out): the systems' entries */
    double cells;    /* triangle and tet indices the scene keeps (its result file's /scene) */
    int dim;         /* 2: a curve or surface mesh, 3: a volume (the factors' fill bound) */
} pbd_memory_shape;
/* The estimate by part, in bytes (each an upper estimate, solver/README.md "Memory"). */
typedef struct pbd_memory_estimate {
    double world, build, method, reference, output, fixed, total;
    const char *fill; /* the fill bound used for a factor, or "" */
} pbd_memory_estimate;
/* The bytes a run of `method` (pbd_method) on a world of this shape will hold at its peak,
 * `reference` != 0 adding the Newton reference, `out` != 0 the result file with frames
 * (frame_velocities too). */
pbd_memory_estimate pbd_memory_estimate_run(const pbd_memory_shape *s, int method,
                                            int reference, int out, int frame_velocities);
/* For a sorted set, where[a] (count entries) gets the current index of the constraint added
 * as number a, or -1 when it has been removed since; for an unsorted set where[a] = a. */
void pbd_set_current_index(const pbd_world *w, int set, int32_t *where);

/* Renumber the particles for memory locality, along a Morton (Z-order) curve through their
 * positions x; with sort_constraints, also sort each set's constraints by their first
 * particle's new index (stably; set->origin maps them back). Particle arrays, index rows and
 * attachments move together; w->particle_origin[i] is the index particle i had before
 * (composed over calls). Renumbering alone changes no result: mapped back, the positions are
 * bit for bit those of the original numbering. Sorting constraints changes the Gauss–Seidel
 * order (and the colouring), so the results are equivalent, not identical. For scenes whose
 * numbering has no locality (a shuffled mesh); the built-in grids are in order already.
 * Call it after building and before adding colliders (PBD_EINVAL otherwise). */
pbd_status pbd_world_reorder(pbd_world *w, int sort_constraints);
/* A per-particle array (width doubles per particle) back in the numbering before
 * pbd_world_reorder: out[origin[i]] = in[i]; a plain copy when never reordered. */
void pbd_world_in_input_order(const pbd_world *w, const double *in, int width, double *out);

#ifdef __cplusplus
}
#endif

#endif
