/* The threads of the sparse factorisations (solver/blas.c, pbd_blas_begin): OpenBLAS's
 * threaded level-3 kernels hand out parts to as many threads as omp_get_max_threads() says
 * and wait for each part; a region that opens with fewer threads waits forever. So the
 * count the BLAS reads must be what a region delivers, under every OpenMP setting, and a
 * factorisation must finish with the BLAS on 2 threads and the step on 1, and the reverse. */
#define _GNU_SOURCE
#include "tests.h"

#include "solver/solver_private.h"

#include <dlfcn.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*int_fn)(void);

/* OpenBLAS's own thread count (the pthreads build's; the OpenMP build's last setting), or 0
 * where the BLAS is not OpenBLAS. */
static int openblas_threads(void)
{
    int_fn get = (int_fn)dlsym(RTLD_DEFAULT, "openblas_get_num_threads");
    return get ? get() : 0;
}

/* Under every (max-active-levels, dynamic, asked threads, serial regions): inside
 * pbd_blas_begin the count OpenBLAS reads (omp_get_max_threads, and its own count) equals
 * what a region opened there gets; with serial regions and 1 thread every region is
 * inactive (CHOLMOD's teams of 4); pbd_blas_end restores the caller's settings. Fails on a
 * begin that leaves omp_get_max_threads at 2 while regions are inactive (the livelock). */
static void test_region_gets_what_blas_reads(void)
{
    const int levels0 = omp_get_max_active_levels(), dynamic0 = omp_get_dynamic();
    const int threads0 = omp_get_max_threads();
    int cases = 0;
    for (int levels = 0; levels <= 1; levels++)
        for (int dynamic = 0; dynamic <= 1; dynamic++)
            for (int want = 1; want <= 2; want++)
                for (int serial = 0; serial <= 1; serial++) {
                    omp_set_max_active_levels(levels);
                    omp_set_dynamic(dynamic);
                    omp_set_num_threads(2);
                    pbd_blas_saved saved = pbd_blas_begin(want, serial);
                    const int reads = omp_get_max_threads(), own = openblas_threads();
                    int got = 0, cholmod_team = 0;
#pragma omp parallel
                    {
#pragma omp single
                        got = omp_get_num_threads();
                    }
#pragma omp parallel num_threads(4)
                    {
#pragma omp single
                        cholmod_team = omp_get_num_threads();
                    }
                    pbd_blas_end(saved);
                    CU_ASSERT_EQUAL(got, reads);
                    if (own > 0) CU_ASSERT_EQUAL(own, reads);
                    CU_ASSERT(reads <= want);
                    if (levels == 0) CU_ASSERT_EQUAL(reads, 1);
                    if (levels == 1 && want == 2 && omp_get_thread_limit() >= 2)
                        CU_ASSERT_EQUAL(reads, 2);
                    if (serial && reads == 1) CU_ASSERT_EQUAL(cholmod_team, 1);
                    CU_ASSERT_EQUAL(omp_get_max_active_levels(), levels);
                    CU_ASSERT_EQUAL(omp_get_dynamic(), dynamic);
                    CU_ASSERT_EQUAL(omp_get_max_threads(), 2);
                    if (got != reads)
                        fprintf(stderr, "levels %d dynamic %d want %d: BLAS reads %d, region %d\n",
                                levels, dynamic, want, reads, got);
                    cases++;
                }
    CU_ASSERT_EQUAL(cases, 16);
    omp_set_max_active_levels(levels0);
    omp_set_dynamic(dynamic0);
    omp_set_num_threads(threads0);
}

/* Run pbd-run with args and the environment variables `env` ("NAME=value" or "NAME=" to
 * unset, NULL-terminated) set for the child only; its exit status (-1: killed after a
 * minute, i.e. it hung). */
static int run_with_env(const char *const *env, const char *const *args)
{
    char saved[8][256];
    int had[8], n = 0;
    for (; env[n] && n < 8; n++) {
        char name[64];
        const char *eq = strchr(env[n], '=');
        snprintf(name, sizeof name, "%.*s", (int)(eq - env[n]), env[n]);
        const char *old = getenv(name);
        had[n] = old != NULL;
        snprintf(saved[n], sizeof saved[n], "%s", old ? old : "");
        if (eq[1]) setenv(name, eq + 1, 1);
        else unsetenv(name);
    }
    int status = -1;
    test_run_threads("pbd-run", args, &status);
    for (int i = 0; i < n; i++) {
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(strchr(env[i], '=') - env[i]), env[i]);
        if (had[i]) setenv(name, saved[i], 1);
        else unsetenv(name);
    }
    return status;
}

/* The factorisations finish (within test_run_threads' minute) with the BLAS on 2 threads
 * and the step on 1 and the reverse, under the kernel the environment picks and under
 * OpenBLAS's Haswell kernels, whose threaded dpotrf reaches the 64² cloth's factor (the
 * livelock seen: PD's --threads=1 left OpenMP's count at 2 with every region inactive). */
static void test_factorisations_finish(void)
{
    const char *pd1[] = {"cloth", "--resolution=64", "--method=pd", "--compliance=1e-7",
                         "--steps=2", "--threads=1", "--quiet", NULL};
    const char *pd2[] = {"cloth", "--resolution=64", "--method=pd", "--compliance=1e-7",
                         "--steps=2", "--threads=2", "--quiet", NULL};
    const char *newton[] = {"cloth", "--resolution=64", "--method=newton", "--compliance=1e-7",
                            "--steps=1", "--quiet", NULL};
    const int haswell = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    for (int kernel = 0; kernel <= haswell; kernel++) {
        const char *coretype = kernel ? "OPENBLAS_CORETYPE=Haswell" : "PBD_UNUSED=";
        const char *blas2_step1[] = {coretype, "OMP_NUM_THREADS=2", NULL};
        const char *limit1[] = {coretype, "OMP_THREAD_LIMIT=1", NULL};
        const char *levels0[] = {coretype, "OMP_MAX_ACTIVE_LEVELS=0", NULL};
        const char *newton_blas2[] = {coretype, "PBD_BLAS_THREADS=2", NULL};
        const char *newton_blas2_levels0[] = {coretype, "PBD_BLAS_THREADS=2",
                                              "OMP_MAX_ACTIVE_LEVELS=0", NULL};
        const char *newton_blas1_omp2[] = {coretype, "PBD_BLAS_THREADS=1", "OMP_NUM_THREADS=2",
                                           NULL};
        CU_ASSERT_EQUAL(run_with_env(blas2_step1, pd1), 0);    /* OpenMP 2, PD's step 1 */
        CU_ASSERT_EQUAL(run_with_env(limit1, pd2), 0);         /* step asks 2, limit 1 */
        CU_ASSERT_EQUAL(run_with_env(levels0, pd2), 0);        /* regions all inactive */
        CU_ASSERT_EQUAL(run_with_env(newton_blas2, newton), 0); /* BLAS 2, own loops 2 */
        CU_ASSERT_EQUAL(run_with_env(newton_blas2_levels0, newton), 0);
        CU_ASSERT_EQUAL(run_with_env(newton_blas1_omp2, newton), 0); /* BLAS 1, OpenMP 2 */
    }
}

void register_blas_threads_tests(void)
{
    CU_pSuite s = CU_add_suite("blas_threads", NULL, NULL);
    CU_add_test(s, "region_gets_what_blas_reads", test_region_gets_what_blas_reads);
    CU_add_test(s, "factorisations_finish", test_factorisations_finish);
}
