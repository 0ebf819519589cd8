/* Private to solver/: one method of the step, as a table of what the rest of solver/ needs
 * to know about it (in the manner of the constraint types, constraints/pbd_constraint.h).
 * The table lists them in the order of pbd_method (solver/methods.c); pbd_step runs one
 * prologue, the entry's step, and one epilogue for every method (solver/step.c;
 * solver/README.md "The method table"). */
#ifndef PBD_METHOD_H
#define PBD_METHOD_H

#include "solver/pbd.h"

struct pbd_variants_state;

typedef struct pbd_method_ops {
    const char *name; /* --method=NAME */
    /* Whether it can take the world: PBD_OK, or PBD_EINVAL with one line naming what it
     * refuses and why. pbd_step calls it before every step; NULL: it takes every world
     * the prologue takes. */
    pbd_status (*check)(const pbd_world *w);
    /* Its workspace for the world's current topology, made or kept (*ws), before each step;
     * NULL when the method makes its own inside the step (PBD/XPBD after the contacts of
     * each substep, Newton with its symbolic analysis). */
    pbd_status (*workspace)(pbd_world *w, void **ws);
    /* Frees what it keeps in the world's variant state (idempotent; NULL: nothing). */
    void (*workspace_free)(struct pbd_variants_state *vs);
    /* def.substeps (sub)steps of h = dt/substeps: x, v, λ, time and stats.threads (not
     * step_count); threads: the prologue's threads for per-particle loops. */
    pbd_status (*step)(pbd_world *w, void *ws, double h, int threads);
    /* What a stop request's message names as running while it steps (NULL: leave it). */
    const char *running;
    /* Projections with XPBD's α̃ = α/h² and λ (XPBD Eq. 18); else with PBD's k. */
    int compliance;
    /* The constraints are energies C²/(2α) and λ is XPBD's after a step: the measure stage
     * measures the elastic energy (not PBD's k, which has none). */
    int energy;
    /* The Newton reference: iterates to a tolerance and logs every iterate. */
    int reference;
    /* AVBD's augmented Lagrangian instead of VBD's energies (solver/vbd/avbd.c). */
    int augmented;
    /* Bytes of its workspace on a world of shape s (solver/memory.c); *fill names the
     * factor's fill bound when it has a factor. NULL: none beyond the world's. */
    double (*memory)(const pbd_memory_shape *s, const char **fill);
} pbd_method_ops;

/* The rows' workspace estimates (solver/memory.c): the families' adjacency and vectors, PD's
 * factor besides them, the Newton reference's system and factor. */
double pbd_memory_family(const pbd_memory_shape *s, const char **fill);
double pbd_memory_pd(const pbd_memory_shape *s, const char **fill);
double pbd_memory_newton(const pbd_memory_shape *s, const char **fill);

/* The entry of d->method (d validated: pbd_solver_def_validate), of method number i (in
 * 0 .. pbd_method_count() - 1). */
const pbd_method_ops *pbd_method_of(const pbd_solver_def *d);
const pbd_method_ops *pbd_method_at(int i);

#endif
