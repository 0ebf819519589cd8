/* pbdlab — fluids: Position Based Fluids (Macklin & Müller 2013) on the world's particles:
 * the density constraints (constraints/fluid_density.c), a neighbour search rebuilt once per
 * (sub)step, the paper's Jacobi density update with its relaxation ε, the artificial pressure
 * s_corr, vorticity confinement and XSPH viscosity, and the container box
 * (solver/fluid/; README there). */
#ifndef PBD_FLUID_H
#define PBD_FLUID_H

#include "solver/pbd.h"

/* Every value here is written into a fluid run's result file (experiments). */
typedef struct pbd_fluid_def {
    double rest_density;  /* ρ0, kg/m³ (> 0) */
    double h;             /* kernel support radius, m (> 0): W = 0 beyond */
    int kernel;           /* PBD_SPH_PBF (the paper: poly6 density, spiky gradient),
                           * PBD_SPH_POLY6, PBD_SPH_SPIKY or PBD_SPH_CUBIC (pbd_constraint.h) */
    double epsilon;       /* PBF Eq. 11's relaxation ε (constraint-force mixing), 1/m²:
                           * λ_i = −C_i / (Σ_k |∇_k C_i|² + ε) for unit masses; >= 0. Method
                           * PBD only; XPBD uses the set's compliance α instead (α̃ = α/Δt²) */
    int unilateral;       /* 1: C_i = max(ρ_i/ρ0 − 1, 0) in the update (no attraction where
                           * the density is low: a free surface, a wall); 0: the paper's C_i */
    int s_corr;           /* 1: the artificial pressure of PBF Eq. 13–14 */
    double s_corr_k;      /* its k (paper: 0.1), >= 0 */
    double s_corr_n;      /* its n (paper: 4), > 0 */
    double s_corr_dq;     /* its |Δq| as a fraction of h (paper: 0.1 … 0.3), in (0, 1) */
    double vorticity;     /* vorticity confinement's ε (PBF Eq. 15–16), m/s; 0 = off */
    double xsph;          /* XSPH viscosity's c (PBF Eq. 17), in [0, 1]; 0 = off */
    double box_lo[3], box_hi[3]; /* the container, m: particle centres kept inside after
                           * every iteration (the paper's per-iteration collision response) */
    int walls;            /* 1: the box's walls add the density of the fluid beyond them
                           * (solver/fluid/fluid_wall.c), so particles at a wall have their
                           * missing neighbours; 0: the clamp alone */
    int max_neighbours;   /* per particle; beyond it neighbours are dropped and counted */
    int threads;          /* for the density loops; 0 = the world's def.threads (0: OpenMP's
                           * default). The result does not depend on it (Jacobi) */
} pbd_fluid_def;

/* ρ0 = 1000 kg/m³, h = 0.1 m, PBD_SPH_PBF, ε = 100 1/m² (see the README), two-sided C, s_corr
 * off (k 0.1, n 4, |Δq| 0.2 h: see the README), vorticity and XSPH off, box [0, 1]³, walls
 * on, 96 neighbours, threads 0. */
pbd_fluid_def pbd_fluid_def_default(void);
/* PBD_OK, or PBD_EINVAL naming the field. */
pbd_status pbd_fluid_def_validate(const pbd_fluid_def *def);

/* The density rows' rest values: {ρ0, h, m, kernel, count, the walls' ρ/ρ0 at the neighbour
 * search} (pbd_fluid_density_type.n_rest). */
#define PBD_FLUID_N_REST 6

/* Make particles [first, first + count) of w a fluid (they must have one mass, m = 1/w > 0:
 * ρ_i = Σ m W). Adds the world's fluid_density set (one row per fluid particle, arity 1 +
 * max_neighbours: the particle, its neighbours, then itself again as padding; rest values as
 * above; its compliance α is `compliance`), plugs the fluid's stages into the step and
 * returns the set's index, or -1 (pbd_last_error). The density update replaces the step's
 * generic sweep, so the world may hold no other set, collider or attachment, and the scheme
 * must be Gauss–Seidel (the default; the fluid's own update is Jacobi): refused here, and by
 * the step if added later. One fluid per world. */
int pbd_world_add_fluid(pbd_world *w, int first, int count, const pbd_fluid_def *def,
                        double compliance);

/* What the fluid's last step found. Density errors are |C_i| = |ρ_i/ρ0 − 1| (units of ρ0;
 * with unilateral, max(C_i, 0)) over the fluid's particles, at the positions the projection
 * left in its last substep, with that substep's neighbours. */
typedef struct pbd_fluid_stats {
    double error_max, error_mean;   /* after the projection */
    double error_max0, error_mean0; /* before it (the predicted positions) */
    double neighbours_mean;         /* neighbours per particle (itself not counted) */
    int neighbours_max;
    long dropped;                   /* neighbours dropped (beyond max_neighbours) last step */
} pbd_fluid_stats;
pbd_fluid_stats pbd_world_fluid_stats(const pbd_world *w);
/* The last substep's density error after each iteration: max[k], mean[k] for k = 0 (before
 * the first) … iterations; returns iterations + 1, or 0 without a fluid. */
int pbd_world_fluid_iteration_errors(const pbd_world *w, const double **max,
                                     const double **mean);
/* The fluid particles' SPH densities ρ_i (kg/m³, count values) at the world's positions x
 * with the last neighbour lists. Returns PBD_EINVAL without a fluid. */
pbd_status pbd_world_fluid_density(const pbd_world *w, double *rho);
/* Each fluid particle's pressure, Pa: the constraint force of its density constraint,
 * p_i = −λ_i / (Δt² V) with λ the multiplier accumulated over the last substep (XPBD's λ; for
 * PBD the sum of the steps' λ) and V = m/ρ0 the particle's volume (XPBD Eq. 9: f = ∇Cᵀλ/Δt²;
 * a pressure p gives ρ0 ∇C ~ the force per volume). Compared with ρ g depth in
 * experiments (fluid_density). */
pbd_status pbd_world_fluid_pressure(const pbd_world *w, double *pressure);
/* PBD_OK when w has no fluid or the step can run it; else PBD_EINVAL with the reason: other
 * sets, colliders or attachments beside it, a scheme other than Gauss–Seidel (the fluid's
 * update is its own Jacobi iteration), or --method=xpbd with compliance 0 (PBF without its
 * relaxation ε, Eq. 11: the denominator Σ|∇C|² vanishes for a particle with few neighbours;
 * solver/fluid/README.md "Known limits"). Called by the step and up front by pbd-run. */
pbd_status pbd_fluid_check(const pbd_world *w);
/* The index of the fluid's first particle and their count (0 without a fluid). */
int pbd_world_fluid_particles(const pbd_world *w, int *first);

#endif
