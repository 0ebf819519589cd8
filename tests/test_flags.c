/* Flags that cannot act (issue 24, suite `flags`): each is refused with exit status 2 and one
 * line on stderr that names it, and the same flag where it acts still runs (exit 0). Before,
 * every case below ran with exit 0 and the flag ignored. */
#include "tests.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char dir[256], err_path[300];

static int suite_init(void)
{
    snprintf(dir, sizeof dir, "/tmp/pbd-test-flags-XXXXXX");
    if (!mkdtemp(dir)) return 1;
    snprintf(err_path, sizeof err_path, "%s/err", dir);
    return 0;
}

static int suite_clean(void) { return test_remove_dir(dir) == 0 ? 0 : 1; }

/* build/PROG ARGS SUFFIX (stdout dropped, stderr to err_path); the exit status and, in err,
 * what it printed on stderr. */
static int run_program(const char *prog, const char *args, const char *suffix, char *err,
                       size_t size)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s/%s %s %s >/dev/null 2>%s", test_bin_dir(), prog, args, suffix,
             err_path);
    return test_run_stderr(cmd, err_path, err, size);
}

/* pbd-run ARGS --steps=1 --quiet */
static int run(const char *args, char *err, size_t size)
{
    return run_program("pbd-run", args, "--steps=1 --quiet", err, size);
}

/* ARGS is refused: status 2, one line that names --FLAG and says why */
static void refused(const char *args, const char *flag)
{
    char err[4096], want[128];
    snprintf(want, sizeof want, "--%s: ", flag);
    int rc = run(args, err, sizeof err);
    if (rc != 2 || test_count_lines(err) != 1 || !strstr(err, want))
        printf("\n    pbd-run %s: exit %d, stderr '%s' (expected 2 and one line naming --%s)", args,
               rc, err, flag);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_EQUAL(test_count_lines(err), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
}

static void accepted(const char *args)
{
    char err[4096];
    int rc = run(args, err, sizeof err);
    if (rc != 0) printf("\n    pbd-run %s: exit %d, stderr '%s' (expected 0)", args, rc, err);
    CU_ASSERT_EQUAL(rc, 0);
}

/* Scene options a scene does not read at all, or not with the other options given. */
static void test_scene_options(void)
{
    refused("chain --youngs-modulus=5", "youngs-modulus");
    refused("cloth --poisson-ratio=0.1", "poisson-ratio");
    refused("tet_beam --material=distance-volume --youngs-modulus=5", "youngs-modulus");
    refused("chain --k-bend=0.5", "k-bend");
    refused("cloth --stretch=fem --method=xpbd --compliance=1e-3", "compliance");
    char args[512];
    snprintf(args, sizeof args, "tet_beam --tet=data/meshes/beam_8.node --tets-per-cube=6");
    refused(args, "tets-per-cube");
    refused("cloth --mesh=data/meshes/cloth_16.obj --resolution=8", "resolution");
    /* where they act */
    accepted("tet_beam --material=stvk --method=xpbd --youngs-modulus=5e5 --poisson-ratio=0.3");
    accepted("cloth --stretch=fem --method=xpbd --youngs-modulus=5 --poisson-ratio=0.1");
    accepted("tet_beam --tets-per-cube=6 --resolution=4");
    accepted("tet_beam --tet=data/meshes/beam_8.node");
    accepted("cloth_bend --k-bend=0.5 --bend-compliance=1e-3");
}

/* Under --method=pbd a material's constraints are projected with the stiffness: E changes
 * only the size of C (C = √(2ΨV) ∝ √E) or the compliance, never the motion. Refused there,
 * accepted for xpbd and newton. */
static void test_youngs_modulus_under_pbd(void)
{
    refused("tet_beam --material=stvk --method=pbd --youngs-modulus=5e5", "youngs-modulus");
    refused("cloth --stretch=fem --method=pbd --youngs-modulus=5", "youngs-modulus");
    accepted("tet_beam --material=stvk --method=pbd --poisson-ratio=0.3");
    accepted("cloth --stretch=fem --method=newton --youngs-modulus=5");
}

/* PBD projects with k alone (PBD Eq. 8–9), XPBD with α̃ alone (Eq. 18): --compliance under
 * --method=pbd and --stiffness under --method=xpbd cannot act (the motion is bit-identical
 * with and without them), so they are refused; where they do act they are accepted: the
 * compliance for xpbd, newton, the families and the Newton reference beside pbd; E too for
 * the reference beside pbd (it sets the compliance the reference reads). */
static void test_method_reads(void)
{
    refused("cloth --compliance=1e-3", "compliance");
    refused("chain --method=pbd --compliance=1e-3", "compliance");
    refused("cloth --method=xpbd --stiffness=0.5", "stiffness");
    refused("tet_beam --method=xpbd --compliance=1e-6 --stiffness=0.5", "stiffness");
    accepted("cloth --method=xpbd --compliance=1e-3");
    accepted("cloth --method=newton --compliance=1e-3 --steps=2");
    accepted("cloth --method=vbd --compliance=1e-3");
    accepted("chain --reference=newton --compliance=1e-6 --steps=2");
    accepted("tet_beam --material=stvk --reference=newton --youngs-modulus=5e5 --steps=1");
    accepted("cloth --method=pbd --stiffness=0.5");
}

/* pbd-run's own options that depend on another one. */
static void test_output_options(void)
{
    char args[512];
    refused("cloth --frames=5", "frames");
    snprintf(args, sizeof args, "cloth --out=%s --frame-velocities", dir);
    refused(args, "frame-velocities");
    refused("cloth --run=x", "run");
    refused("cloth --every=5", "every"); /* the helper passes --quiet */
    snprintf(args, sizeof args, "cloth --out=%s --frames=1 --frame-velocities --run=fv", dir);
    accepted(args);
}

/* --resolution=1 made the default 16 × 16 cloth (20-particle chain) silently. */
static void test_resolution_one(void)
{
    refused("cloth --resolution=1", "resolution");
    refused("chain --resolution=1", "resolution");
    refused("tear --resolution=1", "resolution");
    accepted("cloth --resolution=2");
    accepted("balloon --resolution=1"); /* the icosphere's level 1 */
}

/* Solver options that the chosen method or scheme does not read (experiments/cli/
 * solver_reads.c): each ran with exit 0 and did nothing before. */
static void test_solver_options(void)
{
    char args[512];
    refused("chain --method=newton --iterations=50", "iterations");
    refused("chain --method=xpbd --linearize", "linearize");
    refused("chain --sor-omega=1.5", "sor-omega");
    refused("chain --threads=2", "threads");
    refused("chain --method=newton --threads=2", "threads");
    refused("chain --sort-by-colour=1 --scheme=jacobi", "sort-by-colour");
    refused("chain --method=vbd --compliance=1e-6 --scheme=colored", "scheme");
    refused("chain --method=newton --kernels=0", "kernels");
    refused("chain --method=pbd --xpbd-damping=0.1", "xpbd-damping");
    refused("chain --k-damping=0.1", "k-damping");
    refused("chain --newton-tol=1e-8", "newton-tol");
    refused("chain --vbd-chebyshev=0.5 --method=avbd --avbd-beta=5 --method=xpbd", "vbd-chebyshev");
    refused("chain --method=vbd --compliance=1e-6 --avbd-beta=5", "avbd-beta");
    refused("chain --record-iterations", "record-iterations");
    refused("chain --method=xpbd --vbd-order=index", "vbd-order");
    /* where they act */
    accepted("chain --scheme=jacobi --sor-omega=1.5");
    accepted("chain --scheme=colored --threads=2 --sort-by-colour=1 --kernels=0");
    accepted("chain --method=vbd --compliance=1e-6 --threads=2 --vbd-chebyshev=0.5");
    accepted("chain --method=avbd --avbd-beta=5 --vbd-init=inertia");
    accepted("chain --method=vbd --compliance=1e-6 --vbd-order=index");
    accepted("chain --method=xpbd --compliance=1e-6 --xpbd-damping=0.1");
    accepted("chain --damping=scale --k-damping=0.1 --linearize");
    accepted("chain --reference=newton --newton-tol=1e-8 --newton-solver=dense");
    accepted("dam_break --resolution=6 --threads=2");
    snprintf(args, sizeof args, "chain --out=%s --run=ri --record-iterations", dir);
    accepted(args);
}

/* The fluid and rod scenes had no row: every scene option was accepted there and ignored. */
static void test_fluid_and_rod_options(void)
{
    refused("dam_break --resolution=6 --k-bend=0.5", "k-bend");
    refused("fluid_rest --resolution=6 --mass=2", "mass");
    refused("dam_break --resolution=6 --method=xpbd --compliance=1e-6 --fluid-epsilon=5",
            "fluid-epsilon");
    refused("dam_break --resolution=6 --fluid-s-corr-k=0.01", "fluid-s-corr-k");
    refused("rod --fluid-xsph=0.1", "fluid-xsph");
    refused("helix --k-pressure=3", "k-pressure");
    refused("rod --youngs-modulus=1e6", "youngs-modulus");
    refused("rod --method=xpbd --k-bend=0.5", "k-bend");
    refused("chain --method=xpbd --rod-projection=closed-form", "rod-projection");
    refused("rod --method=newton --rod-projection=closed-form", "rod-projection");
    accepted("dam_break --resolution=6 --fluid-s-corr=1 --fluid-s-corr-k=0.01 --fluid-epsilon=50");
    accepted("fluid_rest --resolution=6 --method=xpbd --compliance=1e-8");
    accepted("rod --stiffness=0.5 --k-bend=0.1 --rod-radius=0.02 --resolution=6");
    accepted("helix --method=xpbd --youngs-modulus=1e6 --poisson-ratio=0.4");
    accepted("helix --method=xpbd --rod-projection=closed-form");
}

/* XPBD with compliance 0 on a fluid is PBF without its relaxation: refused up front, one line
 * (before: the column's mean density error grew to 13.8 %, exit 0). */
static void test_fluid_xpbd_without_compliance(void)
{
    char err[4096];
    int rc = run("fluid_rest --resolution=6 --method=xpbd", err, sizeof err);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_EQUAL(test_count_lines(err), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "compliance > 0"));
}

/* XPBD against the Newton reference on the Stable Neo-Hookean beam (‖F‖_F = √3 at rest: the rest
 * state holds multipliers λ = −C/α̃ that XPBD rebuilds from 0 every step) is warned about, one
 * line, exit 0; the StVK beam (C = 0 at rest) is not. */
static void test_xpbd_restart_warning(void)
{
    char err[4096];
    CU_ASSERT_EQUAL(run("tet_beam --material=neo-hookean --method=xpbd --reference=newton "
                        "--iterations=5", err, sizeof err), 0);
    CU_ASSERT_EQUAL(test_count_lines(err), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "warning: --reference=newton: XPBD's first projection"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "(snh_tet)"));
    CU_ASSERT_EQUAL(run("tet_beam --material=stvk --method=xpbd --reference=newton --iterations=5",
                        err, sizeof err), 0);
    CU_ASSERT_EQUAL(test_count_lines(err), 0);
}

/* pbd-soak ARGS --steps=1 */
static int soak(const char *args, char *err, size_t size)
{
    return run_program("pbd-soak", args, "--steps=1", err, size);
}

/* pbd-soak ARGS is refused: status 2, one line naming the scene and containing `names` */
static void soak_refused(const char *args, const char *scene, const char *names)
{
    char err[4096];
    int rc = soak(args, err, sizeof err);
    if (rc != 2 || test_count_lines(err) != 1 || !strstr(err, scene) || !strstr(err, names))
        printf("\n    pbd-soak %s: exit %d, stderr '%s' (expected 2 and one line naming %s, %s)",
               args, rc, err, scene, names);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_EQUAL(test_count_lines(err), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, scene));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, names));
}

/* pbd-soak applies pbd-run's refusals (experiments/cli/run_refusals.c): before, each case ran
 * its steps with the option ignored (exit 0) or failed in the step (exit 1). */
static void test_soak_refusals(void)
{
    soak_refused("--scene=chain --sor-omega=1.5", "chain: ", "--sor-omega: cannot act here");
    soak_refused("--scene=chain --method=newton --iterations=5", "chain: ", "--iterations: ");
    soak_refused("--scene=chain --k-damping=0.1", "chain: ", "--k-damping: ");
    soak_refused("--scene=chain --record-iterations", "chain: ", "--record-iterations: ");
    soak_refused("--scene=fluid_rest --method=xpbd", "fluid_rest: ", "compliance > 0");
    soak_refused("--scene=rod --method=newton", "rod: ", "newton");
    soak_refused("--method=newton", "cloth_bend: ", "newton"); /* every scene checked first */
    char err[4096];
    CU_ASSERT_EQUAL(soak("--scene=chain --scheme=jacobi --sor-omega=1.5", err, sizeof err), 0);
    CU_ASSERT_EQUAL(soak("--scene=chain --method=newton --newton-tol=1e-8", err, sizeof err), 0);
}

void register_flags_tests(void)
{
    CU_pSuite s = CU_add_suite("flags", suite_init, suite_clean);
    CU_add_test(s, "scene_options", test_scene_options);
    CU_add_test(s, "youngs_modulus_under_pbd", test_youngs_modulus_under_pbd);
    CU_add_test(s, "method_reads", test_method_reads);
    CU_add_test(s, "output_options", test_output_options);
    CU_add_test(s, "resolution_one", test_resolution_one);
    CU_add_test(s, "solver_options", test_solver_options);
    CU_add_test(s, "fluid_and_rod_options", test_fluid_and_rod_options);
    CU_add_test(s, "fluid_xpbd_without_compliance", test_fluid_xpbd_without_compliance);
    CU_add_test(s, "soak_refusals", test_soak_refusals);
    CU_add_test(s, "xpbd_restart_warning", test_xpbd_restart_warning);
}
