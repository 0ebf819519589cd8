/* pbdlab — the constraint as the unit (DESIGN.md "The constraint is the unit").
 *
 * A constraint type is a const table of functions, like GSL's algorithm types:
 * it evaluates C(x) and, when asked, the analytic gradient side by side, computes
 * rest values from a configuration, and can draw random instances for the
 * gradient checker. The solver never switches on the type. */
#ifndef PBD_CONSTRAINT_H
#define PBD_CONSTRAINT_H

#include <stdint.h>

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

/* One evaluation's inputs. x holds the arity particles' positions gathered in the
 * order of the constraint's index row (3 doubles each); aux is per-set topology in
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

typedef struct pbd_constraint_type {
    const char *name;
    const char *description;
    int arity;      /* particles per constraint; 0 = variable, fixed per constraint set */
    int n_rest;     /* doubles of rest data per constraint */
    int inequality; /* 1: admissible when C >= 0, projected only when C < 0 */
    int internal;   /* invariant to rigid motion, so projection conserves momentum */
    pbd_eval_fn eval;
    pbd_rest_fn rest;
    pbd_sample_fn sample;
    pbd_project_fn project_closed_form; /* may be NULL */
} pbd_constraint_type;

/* The registry (constraints/registry.c). */
int pbd_constraint_type_count(void);
const pbd_constraint_type *pbd_constraint_type_at(int i);
const pbd_constraint_type *pbd_constraint_type_find(const char *name);

/* Each type's table, for builders that need one by name at compile time. */
extern const pbd_constraint_type pbd_distance_type;

#endif
