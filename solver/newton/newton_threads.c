/* The threads of the Newton step's own loops; the BLAS's are set in solver/blas.c. */
#include "newton_private.h"

#include <omp.h>

/* The threads of the Newton step's own loops (the assembly, MINRES' product with A):
 * pbd_newton_set_threads', else the same setting as the BLAS's (PBD_BLAS_THREADS, default
 * 1), also where the BLAS itself is single-threaded; at most the cores. Not the world's
 * thread count: those loops' results do not depend on it (newton_system.c: every entry
 * summed in the same order), but a second OpenMP thread waits at every barrier for a core
 * that other processes may hold (the bench's BLAS rows), so the step's threads are one
 * choice, made for the whole step. */
static int newton_own_threads; /* pbd_newton_set_threads: 0 follows the BLAS's setting */

void pbd_newton_set_threads(int threads) { newton_own_threads = threads >= 1 ? threads : 0; }

int newton_threads(void)
{
    int req = pbd_blas_requested();
    int t = newton_own_threads > 0 ? newton_own_threads : req > 0 ? req : 1;
    int cores = omp_get_num_procs();
    return t < cores ? t : cores > 0 ? cores : 1;
}
