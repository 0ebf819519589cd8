/* The BLAS that serves the sparse factorisations of the Newton reference and of Projective
 * Dynamics (solver/newton/README.md "The BLAS"): which library it is and on how many threads
 * it runs, and CHOLMOD's and UMFPACK's status words.
 *
 * CHOLMOD's supernodal factorisation spends its time in dgemm_/dsyrk_/dtrsm_/dpotrf_.
 * The build links OpenBLAS (Debian's libopenblas0-openmp) ahead of CHOLMOD unless
 * BLAS=netlib, so that its symbols serve CHOLMOD's calls whatever the system's libblas.so.3
 * alternative says (scripts/configure.sh). What is actually used is asked at run time: the
 * library that defines the dgemm_ the process resolves (dladdr), and, when that library is
 * OpenBLAS, its openblas_get_config(). Nothing is linked for that: a netlib build has no
 * OpenBLAS symbol, and then the answer is "netlib" with the library's path.
 *
 * Threads: OpenBLAS's OpenMP build takes its thread count from the caller's
 * omp_get_max_threads() at every call and runs single-threaded inside a parallel region, so
 * it shares libgomp's threads with pbdlab's own parallel loops and never adds to them. The
 * Newton step and Projective Dynamics' prefactorisation run outside them: pbd_blas_begin()
 * sets the count for a factorisation or solve explicitly (below) and pbd_blas_end()
 * restores the caller's OpenMP and BLAS settings. */
#define _GNU_SOURCE
#include "solver_private.h"

#include <cholmod.h>
#include <umfpack.h>

#include <dlfcn.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef char *(*config_fn)(void);
typedef int (*int_fn)(void);
typedef void (*set_fn)(int);

static struct {
    int ready, openblas, threads, parallel;
    int requested; /* PBD_BLAS_THREADS or the set count, whatever the BLAS (0: default) */
    set_fn set_threads;
    int_fn get_threads;
    char name[512];
} blas;

/* A symbol of the library `handle`, or NULL. */
static void *symbol(void *handle, const char *name) { return handle ? dlsym(handle, name) : NULL; }

static void probe(void)
{
    if (blas.ready) return;
    blas.ready = 1;
    void *dgemm = dlsym(RTLD_DEFAULT, "dgemm_");
    Dl_info di;
    const char *path = dgemm && dladdr(dgemm, &di) && di.dli_fname ? di.dli_fname : "not loaded";
    void *lib = dgemm ? dlopen(path, RTLD_LAZY | RTLD_NOLOAD) : NULL;
    config_fn config = (config_fn)symbol(lib, "openblas_get_config");
    int_fn parallel = (int_fn)symbol(lib, "openblas_get_parallel");
    blas.set_threads = (set_fn)symbol(lib, "openblas_set_num_threads");
    blas.get_threads = (int_fn)symbol(lib, "openblas_get_num_threads");
    blas.openblas = config != NULL;
    blas.parallel = parallel ? parallel() : 0; /* 0 serial, 1 pthreads, 2 OpenMP */
    const char *env = getenv("PBD_BLAS_THREADS");
    blas.requested = env && atoi(env) > 0 ? atoi(env) : 0;
    blas.threads = !(blas.openblas && blas.parallel) ? 1 : blas.requested;
    if (blas.openblas)
        snprintf(blas.name, sizeof blas.name, "%s (%s)", config(), path);
    else
        snprintf(blas.name, sizeof blas.name, "netlib (%s)", path);
    if (lib) dlclose(lib);
}

const char *pbd_blas_name(void)
{
    probe();
    return blas.name;
}

/* The threads of the next factorisation: the set count (PBD_BLAS_THREADS), else 1. Not
 * chosen by the load: a BLAS on 2 threads sums in another order, so the Newton reference's
 * last bits would depend on the machine's load and a re-run (make test-slurm) would differ;
 * and on a busy machine a second BLAS thread can make the step slower (the bench's Newton
 * rows measure both counts). */
int pbd_blas_threads(void)
{
    probe();
    return blas.threads > 0 ? blas.threads : 1;
}

void pbd_blas_set_threads(int threads)
{
    probe();
    blas.requested = threads >= 1 ? threads : 0;
    if (blas.openblas && blas.parallel) blas.threads = blas.requested;
}

int pbd_blas_requested(void)
{
    probe();
    return blas.requested;
}

/* How many threads an OpenMP region opened here gets when it asks for `want`: not more
 * than OMP_THREAD_LIMIT, and 1 where nested regions are inactive (the caller is at the
 * deepest active level max-active-levels allows). */
static int region_threads(int want)
{
    int t = want >= 1 ? want : 1, limit = omp_get_thread_limit();
    if (limit >= 1 && t > limit) t = limit;
    if (omp_get_active_level() >= omp_get_max_active_levels()) t = 1;
    return t;
}

/* The BLAS's threads set explicitly for a factorisation or solve. OpenBLAS's OpenMP build
 * asks for omp_get_max_threads() threads in every call, and its threaded level-3 kernels
 * (dsyrk under dpotrf, dgemm) hand out parts to that many and wait in sched_yield for
 * each part to be done: a region that opens with fewer threads than it asked for (inactive
 * regions, a thread limit, dynamic adjustment) waits forever. So the count OpenBLAS reads,
 * its own count (the pthreads build) and what a region delivers are made the same here:
 * t = region_threads(threads), dynamic adjustment off. With `serial_regions` and t = 1,
 * every region is made inactive too (max-active-levels 0): CHOLMOD 3.0 (Debian's SuiteSparse
 * 5.12) runs the scatter and clear loops of its supernodal factorisation in OpenMP teams of
 * CHOLMOD_OMP_NUM_THREADS = 4 threads, a constant of its build that omp_set_num_threads does
 * not reach (~3000 regions per factorisation of the 100² bending cloth, each waking 3
 * threads); that is safe because OpenBLAS then reads 1 thread and runs serially. */
pbd_blas_saved pbd_blas_begin(int threads, int serial_regions)
{
    probe();
    pbd_blas_saved saved = {omp_get_max_threads(), omp_get_max_active_levels(),
                            omp_get_dynamic(), blas.get_threads ? blas.get_threads() : 0};
    int t = region_threads(threads);
    omp_set_dynamic(0);
    omp_set_num_threads(t);
    if (blas.set_threads) blas.set_threads(t);
    if (serial_regions && t == 1) omp_set_max_active_levels(0);
    return saved;
}

void pbd_blas_end(pbd_blas_saved saved)
{
    omp_set_max_active_levels(saved.levels);
    omp_set_num_threads(saved.max_threads);
    omp_set_dynamic(saved.dynamic);
    if (blas.set_threads && saved.blas_threads >= 1) blas.set_threads(saved.blas_threads);
}

const char *pbd_cholmod_status_name(int status)
{
    switch (status) {
    case CHOLMOD_OK: return "CHOLMOD_OK";
    case CHOLMOD_NOT_INSTALLED: return "CHOLMOD_NOT_INSTALLED: a method not installed";
    case CHOLMOD_OUT_OF_MEMORY: return "CHOLMOD_OUT_OF_MEMORY: out of memory";
    case CHOLMOD_TOO_LARGE: return "CHOLMOD_TOO_LARGE: the factor's size overflows an integer";
    case CHOLMOD_INVALID: return "CHOLMOD_INVALID: invalid input";
    case CHOLMOD_NOT_POSDEF: return "CHOLMOD_NOT_POSDEF: not positive definite";
    case CHOLMOD_DSMALL: return "CHOLMOD_DSMALL: a tiny diagonal entry";
    }
    return "an unknown CHOLMOD status";
}

const char *pbd_umfpack_status_name(int status)
{
    switch (status) {
    case UMFPACK_OK: return "UMFPACK_OK";
    case UMFPACK_WARNING_singular_matrix: return "UMFPACK_WARNING_singular_matrix";
    case UMFPACK_ERROR_out_of_memory: return "UMFPACK_ERROR_out_of_memory: out of memory";
    case UMFPACK_ERROR_invalid_matrix: return "UMFPACK_ERROR_invalid_matrix";
    case UMFPACK_ERROR_internal_error: return "UMFPACK_ERROR_internal_error";
    case UMFPACK_ERROR_ordering_failed: return "UMFPACK_ERROR_ordering_failed";
    }
    return "an UMFPACK error";
}
