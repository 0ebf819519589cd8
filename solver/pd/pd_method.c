/* The method table's row for Projective Dynamics (solver/method.h): the families' shared
 * refusals and PD's own (solver/pd/pd.c), its iteration on the families' step
 * (solver/families.c). */
#include "solver/families.h"
#include "solver/method.h"

static pbd_status pd_check(const pbd_world *w)
{
    pbd_status st = pbd_family_check_shared(w);
    return st != PBD_OK ? st : pbd_pd_check(w);
}

static pbd_status pd_iteration(pbd_world *w, pbd_family_ws *fw, double h, int it, int threads)
{
    return pbd_pd_iteration(w, fw, h, it, threads);
}

/* PD's energies are VBD's (the sets' λ after a step: pbd_vbd_force); its initial guess is
 * the inertial target y (solver/README.md "Solver families"). */
static const pbd_family_iteration pd_family_iteration = {
    .begin = pbd_pd_begin,
    .iteration = pd_iteration,
    .force = pbd_pd_force,
    .from_target = 1,
    .contact_forces = pbd_pd_contact_forces,
};

static pbd_status pd_step(pbd_world *w, void *ws, double h, int threads)
{
    (void)threads; /* the families choose their own (PBD_FAMILY_PARALLEL_MIN) */
    return pbd_family_step(w, ws, h, &pd_family_iteration);
}

const pbd_method_ops pbd_pd_method = {
    .name = "pd",
    .check = pd_check,
    .workspace = pbd_family_make,
    .workspace_free = pbd_family_release,
    .step = pd_step,
    .running = "a --method=pd iteration, which looks at the stop flag only between iterations",
    .energy = 1,
    .memory = pbd_memory_pd,
};
