/* The Newton reference at scale (issue 23; solver/newton/README.md "Newton reference"): no heap
 * allocation inside a step after the first (tests/alloc_count.c counts every allocation of
 * the process), the memory estimated up front and a run that would not fit refused with the
 * estimate before any step, and the BLAS in the result files' provenance. */
#include "tests.h"
#include "tests/alloc_count.h"

#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A 16² cloth of XPBD Table 1 (structural, shear, bend springs, α = 1e-7 m/N: the Schur
 * complement turns indefinite after the first iteration, so LLᵀ, LDLᵀ and their switch
 * are all inside every step), or a 12² cloth with dihedral bending. */
static pbd_world *scene_sized(int bending, int resolution)
{
    if (!bending) {
        pbd_exp_cloth c = {.resolution = resolution, .size = 1.0, .mass = 1.0, .shear = 1,
                           .bend = 1, .pinned = 1, .stiffness = 1.0, .compliance = 1e-7};
        return pbd_exp_cloth_build(&c, NULL, NULL);
    }
    pbd_scene_params sp = pbd_scene_params_default();
    sp.resolution = resolution;
    sp.compliance = 1e-7;
    sp.k_bend = 1.0;
    sp.bend_compliance = 1e-3;
    return pbd_scene_cloth_bend(&sp);
}

static pbd_world *scene(int bending) { return scene_sized(bending, bending ? 12 : 16); }

/* Steps 2..6 of --method=newton allocate nothing, with every sparse solver: the pattern,
 * the assembly maps, the symbolic analyses and SuiteSparse's numeric memory
 * (solver/newton/newton_pool.c) are made in step 1 and reused. What libgomp allocates for the
 * teams of CHOLMOD's own OpenMP loops, and OpenBLAS for its threaded GEMM's buffers, is
 * theirs (counted apart and printed; solver/README.md). The dense oracle is not held to it:
 * GSL's LU allocates its own temporary; nor is UMFPACK on the bending cloth (below). */
static void test_no_allocation_after_the_first_step(void)
{
    static const int solvers[] = {PBD_NEWTON_AUTO, PBD_NEWTON_CHOLMOD, PBD_NEWTON_UMFPACK};
    for (int bending = 0; bending < 2; bending++)
        for (unsigned k = 0; k < sizeof solvers / sizeof *solvers; k++) {
            pbd_world *w = scene(bending);
            CU_ASSERT_PTR_NOT_NULL_FATAL(w);
            w->def.method = PBD_METHOD_NEWTON;
            w->def.newton_solver = solvers[k];
            CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
            alloc_count_start();
            int ok = 1;
            for (int s = 2; s <= 6 && ok; s++) ok = pbd_step(w) == PBD_OK;
            alloc_counts n = alloc_count_stop();
            CU_ASSERT(ok);
            pbd_newton_info info;
            pbd_newton_last_info(w, &info);
            CU_ASSERT(info.iterations >= 2); /* real Newton steps, not a trivial solve */
            long ours = n.total - n.openmp - n.openblas;
            if (n.total != 0)
                fprintf(stderr, "\n  %s, solver %d: steps 2..6 allocated %ld times (libgomp %ld, "
                        "OpenBLAS %ld, the rest %ld)", bending ? "bending cloth" : "cloth",
                        solvers[k], n.total, n.openmp, n.openblas, ours);
            /* UMFPACK's numeric memory grows, once, when its pivot sequence changes with the
             * values (the bending cloth: one block of 3 MB in step 3) */
            if (n.by_caller && !(bending && solvers[k] == PBD_NEWTON_UMFPACK))
                CU_ASSERT_EQUAL(ours, 0);
            pbd_world_free(w);
        }
}

/* The estimate comes from the symbolic analysis before any step; with less memory than it
 * (PBD_NEWTON_MEMORY_LIMIT) pbd_newton_prepare and the step refuse with the number and
 * leave the world as it was; a malformed limit is refused by name. */
static void test_memory_refusal(void)
{
    pbd_world *w = scene(1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    w->def.method = PBD_METHOD_NEWTON;
    size_t bytes = 0;
    CU_ASSERT_EQUAL(pbd_newton_prepare(w, &bytes), PBD_OK);
    CU_ASSERT(bytes > 100000); /* the 12² bending cloth: ~1 MB */
    pbd_world *v = scene(1);
    v->def.method = PBD_METHOD_NEWTON;
    setenv("PBD_NEWTON_MEMORY_LIMIT", "100k", 1);
    size_t refused = 0;
    CU_ASSERT_EQUAL(pbd_newton_prepare(v, &refused), PBD_ENOMEM);
    CU_ASSERT_EQUAL(refused, bytes);
    char expect[64];
    snprintf(expect, sizeof expect, "needs an estimated %.0f MB", bytes / 1e6);
    CU_ASSERT(strstr(pbd_last_error(), expect) != NULL);
    CU_ASSERT(strstr(pbd_last_error(), "PBD_NEWTON_MEMORY_LIMIT") != NULL);
    double x0 = v->x[3 * 5 + 1];
    CU_ASSERT_EQUAL(pbd_step(v), PBD_ENOMEM);
    CU_ASSERT_EQUAL(v->x[3 * 5 + 1], x0);
    CU_ASSERT_EQUAL(v->step_count, 0);
    setenv("PBD_NEWTON_MEMORY_LIMIT", "lots", 1);
    CU_ASSERT_EQUAL(pbd_newton_prepare(v, NULL), PBD_EINVAL);
    CU_ASSERT(strstr(pbd_last_error(), "found 'lots'") != NULL);
    setenv("PBD_NEWTON_MEMORY_LIMIT", "64M", 1);
    CU_ASSERT_EQUAL(pbd_step(v), PBD_OK);
    unsetenv("PBD_NEWTON_MEMORY_LIMIT");
    CU_ASSERT_EQUAL(pbd_step(w), PBD_OK);
    pbd_newton_info info;
    pbd_newton_last_info(w, &info);
    CU_ASSERT_EQUAL(info.estimate_bytes, bytes);
    /* an upper estimate: what the step used (the library's peak and the workspace) */
    CU_ASSERT(info.bytes <= bytes);
    pbd_world_free(v);
    pbd_world_free(w);
}

/* pbd-run refuses the run before its first step, with exit status 4 and the estimate. */
static void test_run_refused_up_front(void)
{
    char dir[] = "/tmp/pbd-newton-scale-XXXXXX", cmd[1024], err[1200];
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, "PBD_NEWTON_MEMORY_LIMIT=1M %s/pbd-run cloth --resolution=32 "
             "--method=newton --compliance=1e-7 --steps=2 --out=%s 2> %s/err", test_bin_dir(),
             dir, dir);
    CU_ASSERT_EQUAL(test_run(cmd), 4);
    snprintf(err, sizeof err, "%s/err", dir);
    FILE *f = fopen(err, "r");
    char line[1024] = "";
    if (f) {
        if (!fgets(line, sizeof line, f)) line[0] = '\0';
        fclose(f);
    }
    CU_ASSERT(strstr(line, "needs an estimated") != NULL);
    CU_ASSERT(strstr(line, "with 1 MB available (PBD_NEWTON_MEMORY_LIMIT)") != NULL);
    test_remove_dir(dir);
}

/* Every result file names the BLAS in use: the library that defines the dgemm_ CHOLMOD
 * calls (solver/blas.c), with its threads. */
static void test_blas_in_provenance(void)
{
    const char *name = pbd_blas_name();
    CU_ASSERT(strncmp(name, "OpenBLAS", 8) == 0 || strncmp(name, "netlib", 6) == 0);
    CU_ASSERT(strstr(name, ".so") != NULL);
    CU_ASSERT(pbd_blas_threads() >= 1);
    pbd_blas_set_threads(1); /* not the automatic choice, which follows the load */
    char path[] = "/tmp/pbd-newton-blas-XXXXXX";
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    CU_ASSERT_FATAL(file >= 0);
    CU_ASSERT_EQUAL(pbd_h5_write_provenance(file), 0);
    H5Fclose(file);
    char got[512] = "";
    double threads = 0.0;
    CU_ASSERT_EQUAL(pbd_h5_read_attr_string(path, "blas", got, sizeof got), 0);
    CU_ASSERT_STRING_EQUAL(got, name);
    CU_ASSERT_EQUAL(pbd_h5_read_attr_double(path, "blas_threads", &threads), 0);
    CU_ASSERT_EQUAL(threads, pbd_blas_threads());
    pbd_blas_set_threads(0);
    remove(path);
}

/* The Schur form's solves by MINRES with a kept factor (solver/newton/README.md "The modified
 * factorisation") give the steps a factorisation every iteration gives, to 1e-12 m, on the
 * spring cloth (indefinite after the first iteration) and the bending cloth; after the first
 * step fewer factorisations than Newton iterations. */
static void test_krylov_matches_direct(void)
{
    /* the 16² spring cloth, the 12² and the 32² bending cloths (MINRES' floor at a tenth of
     * the stop's bound on ||g||, newton_linear.c, sets the tolerance of 4 and 3 of the bending
     * cloths' solves over the 4 steps) */
    static const int kinds[][2] = {{0, 16}, {1, 12}, {1, 32}};
    for (int kind = 0; kind < 3; kind++) {
        const int bending = kinds[kind][0];
        pbd_world *w[2];
        for (int krylov = 0; krylov < 2; krylov++) {
            pbd_newton_set_krylov(krylov);
            w[krylov] = scene_sized(bending, kinds[kind][1]);
            CU_ASSERT_PTR_NOT_NULL_FATAL(w[krylov]);
            w[krylov]->def.method = PBD_METHOD_NEWTON;
            int its = 0, facts = 0;
            for (int s = 1; s <= 4; s++) {
                CU_ASSERT_EQUAL_FATAL(pbd_step(w[krylov]), PBD_OK);
                pbd_newton_info info;
                pbd_newton_last_info(w[krylov], &info);
                if (s == 1) continue;
                its += info.iterations;
                facts += info.factorisations;
                CU_ASSERT(krylov ? info.krylov_iterations > 0 : info.krylov_iterations == 0);
            }
            CU_ASSERT(krylov ? facts < its : facts >= its);
        }
        pbd_newton_set_krylov(1);
        double dx = 0.0;
        for (int i = 0; i < 3 * w[0]->n; i++) dx = fmax(dx, fabs(w[0]->x[i] - w[1]->x[i]));
        printf("\n    krylov_matches_direct: %d² %s cloth, max |x_krylov - x_direct| after 4 "
               "steps %.2e m\n", kinds[kind][1], bending ? "bending" : "spring", dx);
        CU_ASSERT(dx <= 1e-12);
        pbd_world_free(w[0]);
        pbd_world_free(w[1]);
    }
}

/* MINRES' preconditioner with L's values in float (solver/newton/newton_precond.c): pbdlab's own
 * supernodal substitution z = Pᵀ L⁻ᵀ L⁻¹ P v over a double copy of the kept factor equals
 * cholmod_solve's to 1e-12 (the traversal of the supernodes and the permutation are
 * CHOLMOD's), and over the float copy differs from it by the rounding of L to float,
 * |ΔL| ≤ 2⁻²⁴|L| amplified by L's conditioning: more than the double copy does (it does
 * round: 9e-11…9e-7 measured here) and at most 1e-5 (2.8e-6 on the 100² bending cloth).
 * Both kept slots, after 2 steps of the 16² spring cloth and the 32² bending cloth. */
static void test_precond_float_substitution(void)
{
    static const int kinds[][2] = {{0, 16}, {1, 32}};
    for (int kind = 0; kind < 2; kind++) {
        pbd_world *w = scene_sized(kinds[kind][0], kinds[kind][1]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(w);
        w->def.method = PBD_METHOD_NEWTON;
        double rd, rf;
        CU_ASSERT_EQUAL(pbd_newton_precond_check(w, 0, &rd, &rf), PBD_EINVAL); /* no step yet */
        for (int s = 1; s <= 2; s++) CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
        for (int slot = 0; slot < 2; slot++) {
            CU_ASSERT_EQUAL_FATAL(pbd_newton_precond_check(w, slot, &rd, &rf), PBD_OK);
            printf("\n    precond_float_substitution: %d² %s cloth, slot %d: |z - z_cholmod| / "
                   "|z_cholmod| %.2e (L in double), %.2e (L in float)", kinds[kind][1],
                   kinds[kind][0] ? "bending" : "spring", slot, rd, rf);
            CU_ASSERT(rd <= 1e-12);
            CU_ASSERT(rf > 10.0 * rd && rf <= 1e-5);
        }
        pbd_world_free(w);
    }
    printf("\n");
}

/* The Newton steps with the float preconditioner give the double preconditioner's and the
 * direct path's positions to 1e-12 m (the stop's scale: krylov_matches_direct): 4 steps of
 * the 16² spring cloth and the 32² bending cloth, MINRES' iterations about alike. */
static void test_precond_float_matches_double(void)
{
    static const int kinds[][2] = {{0, 16}, {1, 32}};
    for (int kind = 0; kind < 2; kind++) {
        pbd_world *w[3]; /* float, double preconditioner, direct */
        int kits[3] = {0, 0, 0};
        for (int v = 0; v < 3; v++) {
            pbd_newton_set_precond_float(v == 0);
            pbd_newton_set_krylov(v < 2);
            w[v] = scene_sized(kinds[kind][0], kinds[kind][1]);
            CU_ASSERT_PTR_NOT_NULL_FATAL(w[v]);
            w[v]->def.method = PBD_METHOD_NEWTON;
            for (int s = 1; s <= 4; s++) {
                CU_ASSERT_EQUAL_FATAL(pbd_step(w[v]), PBD_OK);
                pbd_newton_info info;
                pbd_newton_last_info(w[v], &info);
                kits[v] += info.krylov_iterations;
            }
        }
        pbd_newton_set_precond_float(1);
        pbd_newton_set_krylov(1);
        double dd = 0.0, dr = 0.0;
        for (int i = 0; i < 3 * w[0]->n; i++) {
            dd = fmax(dd, fabs(w[0]->x[i] - w[1]->x[i]));
            dr = fmax(dr, fabs(w[0]->x[i] - w[2]->x[i]));
        }
        printf("\n    precond_float_matches_double: %d² %s cloth, 4 steps: MINRES iterations %d "
               "(float) and %d (double); max |x_float - x_double| %.2e m, |x_float - x_direct| "
               "%.2e m\n", kinds[kind][1], kinds[kind][0] ? "bending" : "spring", kits[0], kits[1],
               dd, dr);
        CU_ASSERT(kits[0] > 0 && kits[1] > 0 && kits[2] == 0);
        CU_ASSERT(abs(kits[0] - kits[1]) <= kits[1] / 4 + 2);
        CU_ASSERT(dd <= 1e-12);
        CU_ASSERT(dr <= 1e-12);
        for (int v = 0; v < 3; v++) pbd_world_free(w[v]);
    }
}

/* The Newton step's own loops on 2 threads (newton_system.c's assembly by parts, MINRES'
 * product with A) give the same bits as on 1: the 40² bending cloth (N = 4800 unknowns, so
 * the product runs on 2 threads too) and the tet beam in StVK (the potential form's
 * Hessians in each thread's scratch), 3 steps each, the BLAS on 1 thread in both. */
static pbd_world *beam_stvk(void)
{
    pbd_scene_params sp = pbd_scene_params_default();
    for (int i = 0; pbd_material_names[i]; i++)
        if (strcmp(pbd_material_names[i], "stvk") == 0) sp.material = i;
    return pbd_scene_find("tet_beam")->build(&sp);
}

static void test_assembly_threads_bitwise(void)
{
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
        printf("\n    assembly_threads_bitwise: one core, nothing to compare\n");
        return;
    }
    pbd_blas_set_threads(1);
    for (int kind = 0; kind < 2; kind++) {
        pbd_world *w[2];
        int its[2] = {0, 0};
        for (int t = 0; t < 2; t++) {
            pbd_newton_set_threads(t + 1);
            w[t] = kind == 0 ? scene_sized(1, 40) : beam_stvk();
            CU_ASSERT_PTR_NOT_NULL_FATAL(w[t]);
            w[t]->def.method = PBD_METHOD_NEWTON;
            for (int s = 1; s <= 3; s++) {
                CU_ASSERT_EQUAL_FATAL(pbd_step(w[t]), PBD_OK);
                pbd_newton_info info;
                pbd_newton_last_info(w[t], &info);
                its[t] += info.iterations;
            }
        }
        pbd_newton_set_threads(0);
        long differ = 0;
        for (int i = 0; i < 3 * w[0]->n; i++)
            differ += memcmp(&w[0]->x[i], &w[1]->x[i], sizeof(double)) != 0;
        printf("\n    assembly_threads_bitwise: %s, 1 and 2 threads: %d and %d Newton iterations, "
               "%ld of %d coordinates differ\n", kind ? "tet beam (stvk)" : "40² bending cloth",
               its[0], its[1], differ, 3 * w[0]->n);
        CU_ASSERT_EQUAL(differ, 0);
        CU_ASSERT_EQUAL(its[0], its[1]);
        CU_ASSERT(its[0] > 3);
        pbd_world_free(w[0]);
        pbd_world_free(w[1]);
    }
    pbd_blas_set_threads(0);
}

/* The estimate made up front against what the run then holds: pbd-run's last line for a
 * Newton run compares them — the growth of its resident memory from before the reference's
 * set-up to its peak (VmHWM of the process, which a fresh exec'd process counts from zero) —
 * on the 48² spring cloth (the Schur complement indefinite after the first iteration) and
 * the 32² bending cloth: within 30 %. */
static void test_estimate_against_resident(void)
{
    static const char *const scenes[] = {
        "cloth --resolution=48 --compliance=1e-7",
        "cloth_bend --resolution=32 --compliance=1e-7 --bend-compliance=1e-3"};
    for (int k = 0; k < 2; k++) {
        char dir[] = "/tmp/pbd-newton-rss-XXXXXX", cmd[2048], out[64];
        CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
        snprintf(out, sizeof out, "%s/out", dir);
        snprintf(cmd, sizeof cmd, "%s/pbd-run %s --method=newton --steps=3 --quiet > %s",
                 test_bin_dir(), scenes[k], out);
        CU_ASSERT_EQUAL(test_run(cmd), 0);
        FILE *f = fopen(out, "r");
        char line[512];
        double estimate = -1.0, before = 0.0, peak = 0.0, more = -1.0;
        while (f && fgets(line, sizeof line, f))
            sscanf(line, "# newton reference: estimated %lf MB up front; resident memory %lf "
                   "MB before its set-up, %lf MB at the peak (VmHWM): %lf MB more", &estimate,
                   &before, &peak, &more);
        if (f) fclose(f);
        fprintf(stderr, "\n  %s: estimated %.1f MB, resident memory grew by %.1f MB (%.2fx)",
                scenes[k], estimate, more, estimate / more);
#ifdef __SANITIZE_ADDRESS__ /* make asan: shadow memory and quarantine, not the solver's */
        CU_ASSERT(more > 1.0 && estimate > 0.0);
#else
        CU_ASSERT(more > 1.0 && estimate >= more / 1.3 && estimate <= 1.3 * more);
#endif
        remove(out);
        test_remove_dir(dir);
    }
}

/* With the BLAS on 1 thread (the default) a Newton run is one thread: CHOLMOD's own OpenMP
 * loops in its supernodal factorisation (teams of CHOLMOD_OMP_NUM_THREADS = 4 in Debian's
 * build) run on 1 (solver/blas.c). Before: pbd-run on this 16² bending cloth held 4
 * threads. */
static void test_factorisation_on_one_thread(void)
{
    const char *args[] = {"cloth_bend", "--resolution=16", "--method=newton", "--compliance=1e-7",
                          "--bend-compliance=1e-3", "--steps=3", "--quiet", NULL};
    const char *env = getenv("PBD_BLAS_THREADS");
    char saved[32] = "";
    if (env) snprintf(saved, sizeof saved, "%s", env);
    unsetenv("PBD_BLAS_THREADS"); /* the default: 1 */
    int status = -1, most = test_run_threads("pbd-run", args, &status);
    if (env) setenv("PBD_BLAS_THREADS", saved, 1);
    CU_ASSERT_EQUAL(status, 0);
    CU_ASSERT_EQUAL(most, 1);
    if (most != 1) fprintf(stderr, "factorisation_on_one_thread: %d threads\n", most);
}

void register_newton_scale_tests(void)
{
    CU_pSuite s = CU_add_suite("newton_scale", NULL, NULL);
    CU_add_test(s, "no_allocation_after_the_first_step", test_no_allocation_after_the_first_step);
    CU_add_test(s, "memory_refusal", test_memory_refusal);
    CU_add_test(s, "run_refused_up_front", test_run_refused_up_front);
    CU_add_test(s, "blas_in_provenance", test_blas_in_provenance);
    CU_add_test(s, "krylov_matches_direct", test_krylov_matches_direct);
    CU_add_test(s, "assembly_threads_bitwise", test_assembly_threads_bitwise);
    CU_add_test(s, "precond_float_substitution", test_precond_float_substitution);
    CU_add_test(s, "precond_float_matches_double", test_precond_float_matches_double);
    CU_add_test(s, "estimate_against_resident", test_estimate_against_resident);
    CU_add_test(s, "factorisation_on_one_thread", test_factorisation_on_one_thread);
}
