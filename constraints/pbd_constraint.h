/* pbdlab — the constraint as the unit (DESIGN.md "The constraint is the unit").
 *
 * A constraint type is a const table of functions, like GSL's algorithm types:
 * it evaluates C(x) and, when asked, the analytic gradient side by side, computes
 * rest values from a configuration, and can draw random instances for the
 * gradient checker. The solver never switches on the type. */
#ifndef PBD_CONSTRAINT_H
#define PBD_CONSTRAINT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status of an evaluation. */
enum {
    PBD_EVAL_OK = 0,
    PBD_EVAL_DEGENERATE = 1 /* geometry without a defined gradient: skip this constraint */
};

/* Small deterministic random generator (splitmix64), shared by the gradient checker,
 * the scene builders and the tests, so that a seed means the same thing everywhere. */
typedef struct pbd_rng {
    uint64_t state;
} pbd_rng;

void pbd_rng_seed(pbd_rng *r, uint64_t seed);
uint64_t pbd_rng_next(pbd_rng *r);
double pbd_rng_uniform(pbd_rng *r);                 /* [0, 1) */
double pbd_rng_range(pbd_rng *r, double lo, double hi);
double pbd_rng_gaussian(pbd_rng *r);                /* N(0, 1) */
/* A unit vector uniform on the sphere in n dimensions (a normalised Gaussian n-vector, drawn
 * again while its norm is below min_norm). */
void pbd_rng_unit(pbd_rng *r, double *v, int n, double min_norm);

/* One evaluation's inputs. x holds the arity particles' positions gathered in the
 * order of the constraint's index row (3 doubles each; an orientation type's quaternions
 * follow its particles', 4 doubles each, see n_orient below); aux is per-set topology in
 * local indices (the balloon's triangles), NULL for the other types. */
typedef struct pbd_eval_input {
    const double *x;
    int arity;
    const double *rest;
    const int32_t *aux;
    int n_aux;
} pbd_eval_input;

/* Evaluate C and, if grad != NULL, ∇C (3·arity doubles). Returns PBD_EVAL_OK or
 * PBD_EVAL_DEGENERATE (then C and grad are unspecified but finite). */
typedef int (*pbd_eval_fn)(const pbd_eval_input *in, double *C, double *grad);

/* Optional analytic Hessian ∇²C at in->x: H gets (3·arity)² doubles, row-major and symmetric,
 * H[(3i+a)·3·arity + 3k+b] = ∂²C / ∂x_i^a ∂x_k^b (DESIGN.md "The constraint is the unit").
 * Returns PBD_EVAL_OK or PBD_EVAL_DEGENERATE (where eval does; H then finite). The gradient
 * checker holds it to central differences of eval's gradient; a type without one (NULL)
 * gets exactly those differences from its users (the Newton reference, solver/newton/newton.c). */
typedef int (*pbd_hessian_fn)(const pbd_eval_input *in, double *H);

/* Rest values from a configuration (e.g. rest length). NULL when the builder sets
 * them (collision constraints get q and n from the collision detection). */
typedef void (*pbd_rest_fn)(const pbd_eval_input *in, double *rest);

/* A random instance for the gradient checker: fills x (3·arity), rest and aux and
 * returns the arity. degenerate != 0 asks for a near-degenerate configuration
 * (almost flat hinges, slivers, nearly coincident points). Buffers hold
 * PBD_SAMPLE_MAX_ARITY particles and PBD_SAMPLE_MAX_AUX ints. */
#define PBD_SAMPLE_MAX_ARITY 64
#define PBD_SAMPLE_MAX_AUX 512
typedef int (*pbd_sample_fn)(pbd_rng *r, int degenerate, double *x, double *rest,
                             int32_t *aux, int *n_aux);

/* Optional closed-form projection (PBD Eq. 10/11, Eq. 28): moves the gathered x in
 * place with inverse masses w and stiffness k; a test holds it equal to the generic
 * path. Returns PBD_EVAL_OK or PBD_EVAL_DEGENERATE (nothing moved). */
typedef int (*pbd_project_fn)(const pbd_eval_input *in, const double *w, double k,
                              double *x_out);

/* Orientation types (n_orient > 0, see below): the paper's closed-form projection of one
 * element's n_components rows together, beside the generic row-by-row projection on SO(3)
 * (constraints/README.md "Rods"). in->x as for eval (positions, then unit quaternions) and
 * in->rest the element's rows' rest values one row after the other; w the particles' inverse
 * masses, then per orientation its three principal inverse inertias (body frame); per row
 * alpha_tilde and lambda (XPBD Eq. 18; 0 for PBD) and k (the PBD stiffness; 1 for XPBD).
 * Moves x_out (in->x's layout) in place, quaternions normalised, and writes each row's Δλ.
 * Returns PBD_EVAL_OK, or PBD_EVAL_DEGENERATE (nothing moved: the rows are not one element's
 * components in order, or the geometry is degenerate). */
typedef int (*pbd_element_project_fn)(const pbd_eval_input *in, const double *w,
                                      const double *alpha_tilde, const double *lambda,
                                      const double *k, double *x_out, double *dlambda);

/* Batched projection, the solver's hot loop (solver/xpbd/README.md "Performance"). A
 * kernel projects the constraints rows[begin .. end) of one set (rows == NULL: the
 * constraints begin .. end-1) in place on pos, reading the set's parallel arrays directly,
 * and returns how many it skipped as degenerate. Particles with w = 0 are never written.
 * Each kernel is equal to the generic path (pbd_project_generic, XPBD Eq. 18 with γ = 0)
 * constraint by constraint: bit for bit where it does the same arithmetic, to rounding where
 * it uses a closed form; tests/test_fastpath.c holds them to it. */
typedef struct pbd_batch {
    double *pos;              /* 3 doubles per particle, moved in place */
    const double *inv_mass;   /* w per particle */
    const int32_t *idx;       /* the set's index rows, arity per constraint */
    const double *rest;       /* the set's rest values, n_rest per constraint */
    const double *stiffness;  /* PBD: the k used this step (the set's k_eff) */
    const double *compliance; /* XPBD: α per constraint */
    double *lambda;           /* λ per constraint, incremented by Δλ (PBD: Δλ = -k C/Σ w|∇C|²,
                               * so that Δx_j = Δλ w_j ∇_j C as in XPBD) */
    double alpha_scale;       /* XPBD: α̃ = α · alpha_scale = α/Δt², Δt the (sub)step */
    int arity;
} pbd_batch;
typedef int (*pbd_batch_fn)(const pbd_batch *b, const int32_t *rows, int begin, int end);

/* Optional, for the vertex solves of VBD and AVBD (solver/vbd/): at in->x, C, the gradient
 * row ∇_jC of the element's particle j (3 doubles) and the diagonal block ∇²_jjC (9 doubles,
 * row-major), without the element's whole gradient or Hessian (a vertex visit reads only
 * these). Returns eval's status (PBD_EVAL_DEGENERATE: C, grad_j unspecified but finite); *hess_ok
 * = 0 where eval is OK but ∇²C is not defined (where `hessian` reports degenerate), hess_jj
 * then unspecified. Equal to eval's ∇_jC and the (j, j) block of `hessian` (or of the
 * differences, for a type without one) to rounding; tests/test_vertex_block.c holds them to it. */
typedef int (*pbd_vertex_block_fn)(const pbd_eval_input *in, int j, double *C, double *grad_j,
                                   double *hess_jj, int *hess_ok);

/* One (constraint, particle j) pair's vertex_block results. */
typedef struct pbd_vertex_terms {
    double C, g[3], B[9];
    int status, hess_ok;
} pbd_vertex_terms;

/* Optional, batched vertex_block (solver/vbd/): n pairs of one set, all for the same particle
 * slot j; pair k is constraint c[k] (index row idx + arity c[k], rest + n_rest c[k]) at pos,
 * its results go to out[o[k]]. Equal to vertex_block on each pair, bit for bit but for
 * vector math (the dihedral's atan2: SLEEF's), held within its stated bound
 * (tests/test_vertex_block.c).
 * TEST HOOK: pbd_test_vblock_scalar_math = 1 makes the batches take the scalar math
 * (glibc's atan2, lane by lane): then they give vertex_block's bits. */
extern int pbd_test_vblock_scalar_math;
typedef void (*pbd_vertex_block_batch_fn)(const double *pos, const int32_t *idx,
                                          const double *rest, int j, const int32_t *c,
                                          const int32_t *o, int n, pbd_vertex_terms *out);

/* A type's kernels; any may be NULL (the solver then uses the generic path). */
typedef struct pbd_kernels {
    /* Gauss–Seidel: in order, each constraint sees its predecessors' result */
    pbd_batch_fn gauss_seidel_pbd, gauss_seidel_xpbd;
    /* one colour: no two constraints of the batch share a particle, so any order gives the
     * same result and the kernel may vectorise across constraints */
    pbd_batch_fn colour_pbd, colour_xpbd;
    /* 1: the colour kernels take a function from a vector math library (SLEEF's atan2 for the
     * dihedral angle) that rounds differently from libm's, so they equal the generic path to
     * about one ulp of that function (tests: 1e-12 relative), not bit for bit */
    int colour_vector_math;
} pbd_kernels;

/* Materials (the element types: snh_tet, fem_*, strain_*): the rest values of component
 * `component` (0 <= component < n_components) of the element at in->x for Young's modulus E
 * and Poisson ratio ν (tets: E in Pa; triangles: the membrane's E·h in N/m), written to rest
 * (n_rest doubles); returns the XPBD compliance α that gives the constraint that material, or
 * NaN when (E, ν) is outside the material's range (E > 0, −1 < ν <= 1/2, ν < 1/2 where the
 * material has no incompressible limit). A builder adds n_components constraints per element,
 * each with the rest values and compliance this returns. */
typedef double (*pbd_material_fn)(const pbd_eval_input *in, double youngs_modulus,
                                  double poisson_ratio, int component, double *rest);

typedef struct pbd_constraint_type {
    const char *name;
    const char *description;
    /* the unit of C (SI; "1" dimensionless): residuals, λ and elastic energy are logged per
     * set in it (DESIGN.md "The constraint is the unit"). "m", "rad", "m^3", "1"; a test
     * checks it against how C scales with the positions (C(s x) = s^k C(x), m^k) */
    const char *unit;
    int arity;      /* particles per constraint; 0 = variable, fixed per constraint set */
    int n_rest;     /* doubles of rest data per constraint */
    int inequality; /* 1: admissible when C >= 0, projected only when C < 0 */
    int internal;   /* invariant to rigid motion, so projection conserves momentum */
    pbd_eval_fn eval; /* NULL: a type without a scalar C (see project_goal) */
    pbd_rest_fn rest;
    pbd_sample_fn sample;
    pbd_project_fn project_closed_form; /* may be NULL */
    const pbd_kernels *kernels;         /* may be NULL: batched projection (see above) */
    pbd_hessian_fn hessian;             /* may be NULL: ∇²C by differences of ∇C (above) */
    /* Types without a scalar C (shape matching, Müller et al. 2005): eval is NULL, and
     * project_goal adds to x_out the move of the gathered in->x toward the type's goal
     * positions by the fraction k of the way (x_out == in->x: in place; k = the set's
     * stiffness, linearized or not, under PBD and XPBD alike; λ stays 0). The gradient
     * checker tests it instead of ∇C: a rigidly moved configuration is reproduced exactly, the projection conserves linear and angular
     * momentum, and k moves a fraction k of the way (analysis/goalcheck.c). Residuals,
     * the Newton reference and per-constraint multipliers do not apply to it. */
    pbd_project_fn project_goal;
    int max_arity;  /* variable arity (arity 0): the largest a set may choose; 0 = no limit */
    int n_components;          /* materials and rods: scalar constraints per element (the
                                * rows of an element are consecutive); 0 otherwise */
    pbd_material_fn material; /* NULL unless a material (above) */
    /* Coupled components (0 or 1: none): the set's rows come in blocks of `block` consecutive
     * rows on the same particles (an element's components, added together: rows b·k ..
     * b·k + b − 1), and the solver projects each block at once, solving the small system
     *   (J W Jᵀ + α̃) Δλ = −C − α̃λ,   Δx = W Jᵀ Δλ   (PBD: α̃ = 0 and Δx scaled by k)
     * instead of the rows one after the other (the coupled solve of Macklin & Müller 2021;
     * XPBD Eq. 18 for a block). For fixed arity <= 4 and block <= PBD_MAX_BLOCK. XPBD
     * constraint damping (β) is not applied to blocks. The Newton reference, residuals and
     * the checker see the rows one by one. */
    int block;
    /* 1: an energy constraint C = √(2ΨV) >= 0 (constraints/fem.h): ½C²/α is the element's
     * elastic energy, smooth through rest where C's gradient is not; the Newton reference
     * solves these in their potential form (solver/newton/newton_merit.c) */
    int energy;
    /* Orientation types (Cosserat rods, constraints/README.md "Rods"): the last n_orient
     * entries of an index row are orientations (indices into the world's orientations,
     * solver/README.md "Orientations"), the first np = arity − n_orient particles. in->x
     * holds the np positions (3 doubles each) and then the orientations' unit quaternions
     * (w, x, y, z; 4 doubles each, from in->x + 3 np). eval writes ∇C as 3 doubles per entry in row order: ∂C/∂x
     * for a particle, and for an orientation the derivative on SO(3), ∂C/∂θ at θ = 0 of
     * q ← exp(θ/2)·q (θ a world-frame rotation vector, exp the quaternion exponential of
     * (0, θ/2)). Internal means invariant to rigid motions of positions and orientations
     * together: Σ ∇_x C = 0 and Σ x × ∇_x C + Σ ∇_θ C = 0 (momentum with the spin). sample()
     * writes x in the same layout. */
    int n_orient;
    /* Orientation types: the closed form of the element's rows together (Kugelstadt &
     * Schömer 2016 Eq. 37, Eq. 40), used with def.rod_projection = closed-form; NULL: none */
    pbd_element_project_fn project_element;
    /* may be NULL: VBD and AVBD then take ∇_jC from eval and ∇²_jjC from hessian (above) */
    pbd_vertex_block_fn vertex_block;
    /* may be NULL: vertex_block on several pairs at once (SIMD lanes), used with def.kernels */
    pbd_vertex_block_batch_fn vertex_block_batch;
} pbd_constraint_type;

#define PBD_MAX_BLOCK 6

/* The registry (constraints/registry.c, the one place that names a new type). */
int pbd_constraint_type_count(void);
const pbd_constraint_type *pbd_constraint_type_at(int i);
const pbd_constraint_type *pbd_constraint_type_find(const char *name);

/* Each type's table, for builders that need one at compile time (optional for a new type:
 * the registry declares its own; constraints/README.md "Adding a constraint"). The contract of each
 * (particle order in the index row; rest layout) — the files implement exactly this:
 *
 *  distance         arity 2  (p1, p2)            rest {d}
 *  bend_dihedral    arity 4  (p1, p2, p3, p4)    rest {phi0}; p1–p2 the shared edge,
 *                   triangles (p1, p2, p3) and (p1, p2, p4) (PBD Sec. 4.1, Appendix A)
 *  bend_isometric   arity 4  (same stencil)      rest: Q and its rest energy, see the file
 *  tet_volume       arity 4  (p0, p1, p2, p3)    rest {V0}, signed
 *  tet_plane        arity 4  (p0, p1, p2, p3)    rest {d}: p1's signed distance to the
 *                   plane through p0, p2, p3
 *  plane_collision  arity 1  (p)                 rest {qx, qy, qz, nx, ny, nz}, inequality
 *                   C = (p - q)·n >= 0 (q = entry point q_c or closest point q_s)
 *  point_triangle   arity 4  (q, p1, p2, p3)     rest {sign}: C = sign (q-p1)·[(p2-p1)×(p3-p1)]
 *                   >= 0, inequality
 *  self_collision   arity 4  (q, p1, p2, p3)     rest {h, sign}: sign +1 is Eq. 12, -1 is
 *                   Eq. 13; C = sign (q-p1)·n̂ - h >= 0, inequality
 *  balloon_volume   arity variable (all mesh vertices), aux = triangles (local indices,
 *                   3 per triangle)             rest {V0, k_pressure} (Eq. 14–15)
 *  attachment       arity 1  (p)                 rest {tx, ty, tz}: C = |p - t|
 *  snh_tet          arity 4  (x0, x1, x2, x3)    rest {D_m⁻¹ row-major (9), V0, component, γ}:
 *                   component 0: C = det F − γ (hydrostatic), 1: C = ‖F‖_F (deviatoric),
 *                   F = D_s D_m⁻¹ (Macklin & Müller 2021)
 *  fem_tet_stvk, fem_tet_corotated
 *                   arity 4  (x0, x1, x2, x3)    rest {D_m⁻¹ (9), V0, μ, λ}: C = √(2ΨV)
 *  fem_triangle     arity 3  (x0, x1, x2)        rest {D_m⁻¹ 2×2 (4), A0, μ, λ}: C = √(2ΨA),
 *                   StVK membrane in the rest frame of constraints/fem.h
 *  strain_tet, strain_tet_normalized
 *                   arity 4                      rest {D_m⁻¹ (9), component}: component 0–2 the
 *                   stretch S_ii, 3–5 the shear S_01, S_02, S_12 (S = FᵀF; Müller et al. 2014)
 *  strain_triangle, strain_triangle_normalized
 *                   arity 3                      rest {D_m⁻¹ (4), component}: 0–1 stretch, 2 shear
 *  long_range_attachment
 *                   arity 2  (p, a)              rest {ℓ}: C = ℓ − |p − a| >= 0, inequality
 *                   (Kim, Chentanez, Müller 2012; a the attached particle)
 *  rod_stretch_shear arity 3  (p0, p1, q)   rest {ℓ, k}: n_orient 1, C = d_k(q)·(p1 − p0) − ℓ δ_k2
 *                   in m, d_k = R(q) e_k the segment's directors, d_2 its tangent
 *                   (Kugelstadt & Schömer 2016 Sec. 4.1, in the material frame)
 *  rod_bend_twist   arity 2  (q0, q1)       rest {r (4), k}: n_orient 2, C = 2 Im(s q̄0 q1 − r)_k
 *                   in rad, r = q̄0 q1 at rest, s = ±1 the sign with ⟨s q̄0 q1, r⟩ >= 0
 *                   (Kugelstadt & Schömer 2016 Sec. 4.2: the Darboux vector times ℓ)
 *  shape_match      arity variable (the cluster, at most 64 particles), no scalar C
 *                   (project_goal)             rest {the cluster's rest positions x0, 3 per
 *                   particle, then zeros up to 192}
 *  fluid_density    arity variable (i, its neighbours, padding)  rest {ρ0, h, m, kernel,
 *                   count, b}: C = ρ_i/ρ0 + b − 1 over the first count slots (PBF Eq. 1–2;
 *                   b the walls' density, a constant of the row)
 */
/* SIMD width (doubles per vector) of the colour kernels that vectorise across constraints
 * (constraints/bend_dihedral_simd.c): 8 with AVX-512, 4 with AVX2 + FMA, else 2 (SSE2),
 * chosen at run time. The environment variable PBD_SIMD_WIDTH=2|4|8 caps it (read once: e.g.
 * 4 runs the AVX2 kernels on an AVX-512 machine); pbd_simd_width_forced() returns its value,
 * 0 when unset, -1 when it is none of 2, 4, 8 (then ignored: programs refuse it up front).
 * pbd_simd_isa names a width's instruction set ("AVX-512", "AVX2", "SSE2").
 * TEST HOOK: pbd_test_simd_width > 0 caps it (2, 4 or 8), before PBD_SIMD_WIDTH. */
int pbd_simd_width(void);
int pbd_simd_width_forced(void);
const char *pbd_simd_isa(int width);
extern int pbd_test_simd_width;

extern const pbd_constraint_type pbd_distance_type;
/* Projective Dynamics' spring projections of constraints [lo, hi) (constraints/distance_pd.c):
 * t[3c..3c+2] = d_c (x_a − x_b)/|x_a − x_b| (PD Sec. 5 "springs"). */
void pbd_distance_pd_targets(const double *x, const int32_t *idx, const double *rest,
                             int n_rest, int lo, int hi, double *t);
extern const pbd_constraint_type pbd_bend_dihedral_type;
extern const pbd_constraint_type pbd_bend_isometric_type;
extern const pbd_constraint_type pbd_tet_volume_type;
extern const pbd_constraint_type pbd_tet_plane_type;
extern const pbd_constraint_type pbd_plane_collision_type;
extern const pbd_constraint_type pbd_point_triangle_type;
extern const pbd_constraint_type pbd_self_collision_type;
extern const pbd_constraint_type pbd_balloon_volume_type;
extern const pbd_constraint_type pbd_attachment_type;
extern const pbd_constraint_type pbd_snh_tet_type;
extern const pbd_constraint_type pbd_fem_tet_stvk_type;
extern const pbd_constraint_type pbd_fem_tet_corotated_type;
extern const pbd_constraint_type pbd_fem_triangle_type;
extern const pbd_constraint_type pbd_strain_tet_type;
extern const pbd_constraint_type pbd_strain_tet_normalized_type;
extern const pbd_constraint_type pbd_strain_triangle_type;
extern const pbd_constraint_type pbd_strain_triangle_normalized_type;
extern const pbd_constraint_type pbd_long_range_attachment_type;
extern const pbd_constraint_type pbd_shape_match_type;
extern const pbd_constraint_type pbd_fluid_density_type;

/* SPH kernels of the fluid density constraint (constraints/fluid_density.c; support radius h,
 * W = 0 for r >= h): W(r, h) in 1/m³ and dW/dr in 1/m⁴, ∇W(d) = dW/dr · d/|d|. PBD_SPH_PBF is
 * the paper's pair: poly6's W, spiky's dW/dr (Macklin & Müller 2013, Sec. 3). */
enum { PBD_SPH_POLY6 = 0, PBD_SPH_SPIKY = 1, PBD_SPH_CUBIC = 2, PBD_SPH_PBF = 3 };
double pbd_sph_kernel(int kernel, double r, double h);
double pbd_sph_kernel_dr(int kernel, double r, double h);
extern const pbd_constraint_type pbd_rod_stretch_shear_type;
extern const pbd_constraint_type pbd_rod_bend_twist_type;

/* Rod compliances (the XPBD α of one row, α_k = ℓ/K_k): stretch–shear K = (GA, GA, EA)
 * (Pa, m², ℓ the segment's length in m; α in m/N), bend–twist K = (E I_1, E I_2, G J)
 * (area_moments {I_1, I_2, J} in m⁴, ℓ the two segments' mean length; α in rad²/J). NaN
 * for a modulus, area or length that is not positive and finite. */
double pbd_rod_stretch_shear_compliance(double youngs_modulus, double shear_modulus,
                                        double area, double length, int component);
double pbd_rod_bend_twist_compliance(double youngs_modulus, double shear_modulus,
                                     const double area_moments[3], double length, int component);

/* Unit quaternions q = (w, x, y, z) (constraints/quat.c), for the orientation types, the
 * solver's orientation state and the checker's perturbations. */
void pbd_quat_mul(const double a[4], const double b[4], double out[4]);   /* out = a·b */
void pbd_quat_rotate(const double q[4], const double v[3], double out[3]); /* R(q) v */
void pbd_quat_rotate_inv(const double q[4], const double v[3], double out[3]); /* R(q)ᵀ v */
/* q ← exp(θ/2)·q, normalised: the world-frame rotation by the vector θ (rad) applied to q
 * (in may equal out) */
void pbd_quat_perturb(const double q[4], const double theta[3], double out[4]);
/* A uniformly random rotation (samplers) */
void pbd_quat_random(pbd_rng *r, double q[4]);
/* The quaternion of the rotation by |θ| about θ/|θ| */
void pbd_quat_from_rotvec(const double theta[3], double out[4]);
/* out = normalize(q + s/2 (0, θ) q), s = ±1: the first-order update of q by the world-frame
 * rotation sθ (K&S Algorithm 1; Müller et al. 2020 Algorithm 2 and Sec. 3.3); out may be q */
void pbd_quat_add_rotation(const double q[4], const double theta[3], double s, double out[4]);
/* ω = ±2 Im(q q_prev⁻¹)/h, the sign of the real part: the shorter way round (rad/s) */
void pbd_quat_angular_velocity(const double q[4], const double q_prev[4], double h,
                               double omega[3]);
/* ω += h I⁻¹(τ − ω × Iω) with τ = 0 in the body frame of q, for principal inverse inertias
 * all > 0: the explicit gyroscopic step (world-frame ω in and out) */
void pbd_quat_gyroscopic_step(const double q[4], const double inv_inertia[3], double h,
                              double omega[3]);

/* The Lamé parameters μ = E/(2(1+ν)), λ = Eν/((1+ν)(1−2ν)) (λ = ∞ at ν = 1/2) of Young's
 * modulus E > 0 and Poisson ratio −1 < ν <= 1/2; returns 0 (and leaves them) outside. */
int pbd_lame(double youngs_modulus, double poisson_ratio, double *mu, double *lambda);

/* Bending (constraints/bend_dihedral.c): the review slides' calBendingConstraint step, which
 * divides by Σ|q_j| instead of Eq. 28's Σ w_j|q_j|² and scales by s = 4/Σw; kept to show that
 * it does not solve the linearized constraint. Same arguments and return as a closed form. */
int pbd_bend_dihedral_slides_project(const pbd_eval_input *in, const double *w, double k,
                                     double *x_out);
/* |C + ∇C·dx| / |C| at in->x (|∇C·dx| when C = 0): zero for a step that solves the
 * linearized constraint, PBD Eq. 3. Returns -1 when the evaluation is degenerate.
 * (constraints/linearized.c) */
double pbd_linearized_residual(const pbd_constraint_type *type, const pbd_eval_input *in,
                               const double *dx);

#ifdef __cplusplus
}
#endif

#endif
