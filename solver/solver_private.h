/* Private to solver/: the stages and helpers the step is made of. */
#ifndef PBD_SOLVER_PRIVATE_H
#define PBD_SOLVER_PRIVATE_H

#include "pbd.h"

void pbd_gather(pbd_world *w, const pbd_constraint_set *s, int c, const double *pos,
                pbd_eval_input *in);
void pbd_scatter(pbd_world *w, const pbd_constraint_set *s, int c, double *pos);
/* Project one constraint in place on w->p with the method of w->def; alpha_scale = 1/h². */
int pbd_project_one(pbd_world *w, pbd_constraint_set *s, int c, double alpha_scale);

/* ∇²C of one constraint at in->x == xl (3·arity, writable: moved and restored by the
 * differences) into H ((3·arity)², row-major, symmetric): the type's analytic Hessian, or
 * central differences of its analytic gradient (step 6e-6 of the constraint's size), gp and
 * gm 3·arity doubles of scratch (solver/hessian.c). Returns 0, or 1 when it is undefined
 * there (degenerate). */
int pbd_constraint_hessian(const pbd_constraint_type *type, pbd_eval_input *in, double *xl,
                           double *gp, double *gm, double *H);
/* Its diagonal block ∇²_jjC of particle j alone into B (9 doubles, row-major), bit for bit
 * the block of the above: the analytic Hessian (H its scratch), or the differences in
 * particle j's three coordinates only (6 evaluations instead of 6·arity). Returns 0, or 1
 * when the Hessian is degenerate, or (differences) an evaluation at particle j's six
 * displaced positions is. */
int pbd_constraint_hessian_block(const pbd_constraint_type *type, pbd_eval_input *in, int j,
                                 double *xl, double *gp, double *gm, double *H, double *B);

/* The BLAS and OpenMP threads of a sparse factorisation or solve, set explicitly so that no
 * threaded BLAS kernel waits for a thread its region did not get (solver/blas.c). */
typedef struct {
    int max_threads, levels, dynamic, blas_threads;
} pbd_blas_saved;
pbd_blas_saved pbd_blas_begin(int threads, int serial_regions);
void pbd_blas_end(pbd_blas_saved saved);
/* PBD_BLAS_THREADS or pbd_blas_set_threads' count, whatever the BLAS (0: not set) */
int pbd_blas_requested(void);

/* CHOLMOD's and UMFPACK's status as words, e.g. "CHOLMOD_OUT_OF_MEMORY: out of memory"
 * (solver/blas.c). */
const char *pbd_cholmod_status_name(int status);
const char *pbd_umfpack_status_name(int status);

/* CLOCK_MONOTONIC in seconds (solver/step.c), and the stage timer of the step: adds the
 * time since t0 to stage id and restarts t0. */
double pbd_now_seconds(void);
#define STAGE(w, id, t0)                                                    \
    do {                                                                    \
        double t1_ = pbd_now_seconds();                                     \
        (w)->stats.stage_seconds[id] += t1_ - (t0);                         \
        (t0) = t1_;                                                         \
    } while (0)


#endif
