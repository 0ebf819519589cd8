/* Command-line rows shared by every program that builds a scene and steps it:
 * the solver definition's fields and the scene parameters. */
#include "pbd_cli.h"

#include <math.h>

/* the method table's names (solver/methods.c), filled by pbd_solver_options */
static const char *method_names[64 + 1];
static const char *const vbd_init_names[] = {"previous", "inertia", "acceleration", "adaptive",
                                             NULL};
static const char *const rod_projection_names[] = {"generic", "closed-form", NULL};
static const char *const vbd_order_names[] = {"colour", "index", NULL};
static const char *const newton_solver_names[] = {"auto", "umfpack", "cholmod", "dense", NULL};
static const char *const scheme_names[] = {"gauss-seidel", "jacobi", "colored", NULL};
static const char *const damping_names[] = {"none", "scale", "momentum", NULL};
/* in the order of PBD_SPH_* (constraints/pbd_constraint.h) */
static const char *const fluid_kernel_names[] = {"poly6", "spiky", "cubic", "pbf", NULL};

const char *pbd_scheme_name(int s) { return scheme_names[s]; }
const char *pbd_damping_name(int d) { return damping_names[d]; }

int pbd_solver_options(pbd_solver_def *d, cli_option *out)
{
    for (int i = 0; i < pbd_method_count() && i < 64; i++) method_names[i] = pbd_method_name(i);
    const cli_option rows[] = {
        {"dt", CLI_DOUBLE, &d->dt, 0, 1e6, 1, "time step in s", NULL},
        {"iterations", CLI_INT, &d->iterations, 1, 1e6, 0, "solver iterations per (sub)step", NULL},
        {"substeps", CLI_INT, &d->substeps, 1, 1e6, 0, "substeps per step (Small Steps)", NULL},
        {"method", CLI_CHOICE, &d->method, 0, 0, 0,
         "solver (newton: the implicit step XPBD approximates, solved by Newton's method; "
         "solver/README.md)", method_names},
        {"linearize", CLI_FLAG, &d->linearize_stiffness, 0, 0, 0,
         "use k' = 1-(1-k)^(1/iterations) (PBD)", NULL},
        {"scheme", CLI_CHOICE, &d->scheme, 0, 0, 0, "iteration scheme", scheme_names},
        {"sor-omega", CLI_DOUBLE, &d->sor_omega, 0, 2, 1, "Jacobi over-relaxation factor", NULL},
        {"threads", CLI_INT, &d->threads, 0, 1024, 0, "threads for coloured GS (0: OMP default)",
         NULL},
        {"damping", CLI_CHOICE, &d->damping, 0, 0, 0, "velocity damping model", damping_names},
        {"k-damping", CLI_DOUBLE, &d->k_damping, 0, 1, 0, "damping coefficient", NULL},
        {"xpbd-damping", CLI_DOUBLE, &d->xpbd_beta, 0, INFINITY, 0,
         "XPBD constraint damping beta (XPBD Eq. 26: gamma = alpha beta / dt; 0: off)", NULL},
        {"rod-projection", CLI_CHOICE, &d->rod_projection, 0, 0, 0,
         "rods (PBD/XPBD): generic (row by row on SO(3)) or closed-form (an element's rows "
         "together, Kugelstadt & Schoemer 2016 Eq. 37/40; constraints/README.md \"Rods\")",
         rod_projection_names},
        {"gravity", CLI_DOUBLE, &d->gravity[1], -1e100, 1e100, 0,
         "vertical gravity component in m/s^2", NULL},
        {"kernels", CLI_INT, &d->kernels, 0, 1, 0,
         "1: the constraint types' batched kernels; 0: the generic projection (reference)", NULL},
        {"sort-by-colour", CLI_INT, &d->sort_by_colour, 0, 1, 0,
         "coloured GS: keep each set's constraints sorted by colour (indices change)", NULL},
        {"measure-every", CLI_INT, &d->measure_every, 0, 1e9, 0,
         "measure residuals/momenta/energy after every N-th step (0: never)", NULL},
        {"watch-position", CLI_DOUBLE, &d->watch_position, 0, 1e100, 0,
         "divergence watchdog: stop (exit 5) when a particle is farther than this x the scene's "
         "initial extent (+ free fall) from its initial centre (0: off)", NULL},
        {"watch-residual", CLI_DOUBLE, &d->watch_residual, 0, 1e100, 0,
         "divergence watchdog: stop (exit 5) when a constraint set's max |C| exceeds this, in "
         "the set's units (0: off)", NULL},
        {"record-iterations", CLI_FLAG, &d->record_iterations, 0, 0, 0,
         "with --out: residuals after every iteration to /iterations (always for newton)", NULL},
        {"newton-tol", CLI_DOUBLE, &d->newton_tol, 0, INFINITY, 0,
         "Newton: stop at ||g|| <= this x ||M(x~ - x)|| and ||h/|grad C||| <= this x ||x~ - x|| "
         "(relative to the step; XPBD Eq. 8-9)", NULL},
        {"newton-max-iterations", CLI_INT, &d->newton_max_iterations, 1, 10000, 0,
         "Newton: iterations per (sub)step at most", NULL},
        {"newton-solver", CLI_CHOICE, &d->newton_solver, 0, 0, 0,
         "Newton's linear solver (dense: GSL's LU, small scenes)", newton_solver_names},
        {"vbd-init", CLI_CHOICE, &d->vbd_init, 0, 0, 0,
         "VBD/AVBD initial guess (VBD \"Initialization\")", vbd_init_names},
        {"vbd-chebyshev", CLI_DOUBLE, &d->vbd_chebyshev_rho, 0, 0.999999, 0,
         "VBD/AVBD Chebyshev acceleration rho (VBD Sec. 3.8; 0: off)", NULL},
        {"vbd-order", CLI_CHOICE, &d->vbd_order, 0, 0, 0,
         "VBD/AVBD sweep: colour (colour after colour, in parallel; VBD \"Parallelization\") "
         "or index (serial Gauss-Seidel over the particles 0..n-1)", vbd_order_names},
        {"vbd-damping", CLI_DOUBLE, &d->vbd_damping, 0, 1e100, 0,
         "VBD/AVBD damping k_d in s: force -(k_d/h) Hessian (x - x_t) per energy (0: off)", NULL},
        {"vbd-contact-stiffness", CLI_DOUBLE, &d->vbd_contact_stiffness, 0, 1e100, 0,
         "VBD contact penalty k_c in N/m (VBD Sec. 4; 0: the larger of 1e3 m/h^2 and 1/alpha)",
         NULL},
        {"avbd-beta", CLI_DOUBLE, &d->avbd_beta, 0, 1e100, 0,
         "AVBD penalty ramp k <- k + beta |C| (stiffness unit per C unit)", NULL},
        {"avbd-alpha", CLI_DOUBLE, &d->avbd_alpha, 0, 1, 0,
         "AVBD error reduction C - alpha C(x_t) of hard constraints, warm start of lambda", NULL},
        {"avbd-gamma", CLI_DOUBLE, &d->avbd_gamma, 0, 1, 0,
         "AVBD warm start: k <- max(gamma k, k_start), lambda <- alpha gamma lambda", NULL},
        {"avbd-k-start", CLI_DOUBLE, &d->avbd_k_start, 0, 1e100, 0,
         "AVBD smallest penalty k_start (0: soft: the mean m/h^2 of its particles, hard: the "
         "largest m/h^2)",
         NULL},
    };
    int n = (int)(sizeof rows / sizeof rows[0]);
    for (int i = 0; i < n; i++) out[i] = rows[i];
    return n;
}

int pbd_scene_options(pbd_scene_params *sp, cli_option *out)
{
    const cli_option rows[] = {
        {"stiffness", CLI_DOUBLE, &sp->stiffness, 0, 1, 0, "PBD stiffness k of every constraint",
         NULL},
        {"compliance", CLI_DOUBLE, &sp->compliance, 0, 1e100, 0,
         "XPBD compliance alpha of every constraint", NULL},
        {"resolution", CLI_INT, &sp->resolution, 0, 1e5, 0,
         "chain particles, cloth side, bag/beam cubes, balloon level (0: scene default)", NULL},
        {"size", CLI_DOUBLE, &sp->size, 0, INFINITY, 1, "chain length / cloth side in m", NULL},
        {"mass", CLI_DOUBLE, &sp->total_mass, 0, INFINITY, 1, "total mass in kg", NULL},
        {"diagonal", CLI_CHOICE, &sp->diagonal, 0, 0, 0,
         "diagonals of the generated cloth grid and bag", pbd_diagonal_names},
        {"k-bend", CLI_DOUBLE, &sp->k_bend, 0, 1, 0,
         "PBD stiffness of the bending constraints (0: none)", NULL},
        {"bend-compliance", CLI_DOUBLE, &sp->bend_compliance, 0, 1e100, 0,
         "XPBD compliance of the bending constraints", NULL},
        {"k-pressure", CLI_DOUBLE, &sp->k_pressure, 0, 100, 1,
         "balloon overpressure factor (target volume k_pressure V0)", NULL},
        {"tets-per-cube", CLI_INT, &sp->tets_per_cube, 5, 6, 0, "tet_beam: 5 or 6 tets per cube",
         NULL},
        {"mesh", CLI_STRING, &sp->mesh_path, 0, 0, 0,
         "FILE.obj: a surface replacing the scene's generated one", NULL},
        {"tet", CLI_STRING, &sp->tet_path, 0, 0, 0,
         "FILE.node (the .ele beside it): tets replacing the generated ones", NULL},
        {"tear-threshold", CLI_DOUBLE, &sp->tear_threshold, 0, INFINITY, 0,
         "tear scene: relative stretch (|x_a - x_b| - L)/L at which an edge tears (0: off)",
         NULL},
        {"material", CLI_CHOICE, &sp->material, 0, 0, 0,
         "tet_beam: the solid's constraints (the materials take E and nu; use --method=xpbd)",
         pbd_material_names},
        {"youngs-modulus", CLI_DOUBLE, &sp->youngs_modulus, 0, INFINITY, 1,
         "E of --material (Pa) and of --stretch=fem|strain (E x thickness, N/m)", NULL},
        {"poisson-ratio", CLI_DOUBLE, &sp->poisson_ratio, -1, 0.5, 1,
         "nu of the materials, in (-1, 0.5] (0.5: incompressible, neo-hookean only)", NULL},
        {"stretch", CLI_CHOICE, &sp->stretch, 0, 0, 0,
         "cloth scenes: distance on every edge, fem (StVK membrane) or strain triangles",
         pbd_stretch_names},
        {"long-range-attachments", CLI_FLAG, &sp->long_range_attachments, 0, 0, 0,
         "cloth scenes: l - |p - a| >= 0 from every attached particle a (Kim et al. 2012)",
         NULL},
        /* fluids (solver/fluid/README.md) */
        {"fluid-density", CLI_DOUBLE, &sp->fluid.rest_density, 0, 1e6, 1,
         "fluid scenes: rest density rho0 in kg/m^3", NULL},
        {"fluid-kernel", CLI_CHOICE, &sp->fluid.kernel, 0, 0, 0,
         "fluid scenes: SPH kernel (pbf: poly6 density, spiky gradient, the paper's)",
         fluid_kernel_names},
        {"fluid-epsilon", CLI_DOUBLE, &sp->fluid.epsilon, 0, 1e100, 0,
         "fluid scenes, method pbd: PBF relaxation epsilon in 1/m^2 (PBF Eq. 11)", NULL},
        {"fluid-unilateral", CLI_INT, &sp->fluid.unilateral, 0, 1, 0,
         "fluid scenes: 1 projects only C = rho/rho0 - 1 > 0 (no attraction at low density)",
         NULL},
        {"fluid-walls", CLI_INT, &sp->fluid.walls, 0, 1, 0,
         "fluid scenes: 1 counts the fluid beyond the box's walls in the density (0: clamp only)",
         NULL},
        {"fluid-s-corr", CLI_INT, &sp->fluid.s_corr, 0, 1, 0,
         "fluid scenes: 1 adds the artificial pressure s_corr (PBF Eq. 13)", NULL},
        {"fluid-s-corr-k", CLI_DOUBLE, &sp->fluid.s_corr_k, 0, 1e6, 0, "s_corr's k (paper: 0.1)",
         NULL},
        {"fluid-s-corr-n", CLI_DOUBLE, &sp->fluid.s_corr_n, 0, 16, 1, "s_corr's n (paper: 4)",
         NULL},
        {"fluid-s-corr-dq", CLI_DOUBLE, &sp->fluid.s_corr_dq, 0, 1, 3, /* W(h) = 0 */
         "s_corr's |dq| as a fraction of h (paper: 0.1-0.3)", NULL},
        {"fluid-vorticity", CLI_DOUBLE, &sp->fluid.vorticity, 0, 1e6, 0,
         "fluid scenes: vorticity confinement epsilon in m/s (PBF Eq. 16; 0: off)", NULL},
        {"fluid-xsph", CLI_DOUBLE, &sp->fluid.xsph, 0, 1, 0,
         "fluid scenes: XSPH viscosity c (PBF Eq. 17; 0: off)", NULL},
        {"rod-radius", CLI_DOUBLE, &sp->rod_radius, 1e-50, 1e50, 0,
         "rod, helix: radius of the circular cross section in m", NULL},
        /* contact scenes (scene_contact.c; solver/collision/README.md) */
        {"mu-static", CLI_DOUBLE, &sp->mu_static, 0, 1e6, 0,
         "contact scenes: static friction coefficient mu_s of the colliders and bodies", NULL},
        {"mu-kinetic", CLI_DOUBLE, &sp->mu_kinetic, 0, 1e6, 0,
         "contact scenes: kinetic friction coefficient mu_k (<= --mu-static)", NULL},
        {"restitution", CLI_DOUBLE, &sp->restitution, 0, 1, 0,
         "contact scenes: coefficient of restitution e (v_n <- -e v_n)", NULL},
        {"contact-margin", CLI_DOUBLE, &sp->contact_margin, 0, 1e6, 0,
         "contact scenes: rows for particles ending within this of a collider, in m", NULL},
        {"collider", CLI_STRING, &sp->collider_path, 0, 0, 0,
         "contact scenes: FILE.obj, a static triangle-mesh collider (counter-clockwise seen from "
         "outside; in cloth_sphere it replaces the sphere)", NULL},
        {"sphere-radius", CLI_DOUBLE, &sp->sphere_radius, 0, 1e6, 1,
         "cloth_sphere: radius of the fixed sphere in m", NULL},
        {"self-collision", CLI_INT, &sp->self_collision, 0, 1, 0,
         "cloth_fold: 1 self collision on (PBD Sec. 4.3), 0 off", NULL},
        {"thickness", CLI_DOUBLE, &sp->thickness, 0, 1e6, 0,
         "cloth_fold: cloth thickness h of self collision in m (0: a quarter of the mean edge)",
         NULL},
        {"launch-speed", CLI_DOUBLE, &sp->launch_speed, -1e6, 1e6, 0,
         "cloth_ground_slide: initial speed down the slope (+x on flat ground) in m/s", NULL},
        {"drop-height", CLI_DOUBLE, &sp->drop_height, 0, 1e6, 0,
         "cloth_ground_slide: initial height over the ground in m", NULL},
        {"ramp-angle", CLI_DOUBLE, &sp->ramp_angle, 0, 80, 0,
         "cloth_ground_slide: slope of the ground in degrees (descending along +x)", NULL},
        {"body", CLI_CHOICE, &sp->body, 0, 0, 0, "rigid_coupling: the rigid body", pbd_body_names},
        {"body-mass", CLI_DOUBLE, &sp->body_mass, 0, 1e6, 1, "rigid_coupling: body mass in kg",
         NULL},
        {"body-size", CLI_DOUBLE, &sp->body_size, 0, 1e6, 1,
         "rigid_coupling: the box's half side or the sphere's radius in m", NULL},
        {"body-speed", CLI_DOUBLE, &sp->body_speed, -1e6, 1e6, 0,
         "rigid_coupling: the body's initial downward speed in m/s", NULL},
        {"pin-corners", CLI_INT, &sp->pin_corners, 0, 1, 0,
         "rigid_coupling: 1 the cloth's four corners held (a hammock), 0 a free cloth", NULL},
        {"velocity-passes", CLI_INT, &sp->velocity_passes, 1, 1000, 0,
         "rigid_tower, rigid_ramp, rigid_mesh_bowl: passes of the contacts' velocity solve per substep (1: the "
         "paper's, Mueller et al. 2020 Sec. 3.6; more: restitution only after the first; "
         "solver/rigid/README.md)", NULL},
        {"pin", CLI_STRING, &sp->pin, 0, 0, 0,
         "mesh scenes (cloth, cloth_bend, cloth_bag, balloon, tet_beam; --mesh/--tet too): the "
         "pinned vertices in place of the scene's: 0-based indices I,J,..., "
         "box:XMIN,YMIN,ZMIN,XMAX,YMAX,ZMAX (m, bounds included), top (the vertices at the "
         "largest y) or boundary (the surface's open edges); selecting none is an error", NULL},
    };
    int n = (int)(sizeof rows / sizeof rows[0]);
    for (int i = 0; i < n; i++) out[i] = rows[i];
    return n;
}
