/* The experiment suite: one driver file experiments/drivers/exp_<name>.c per row. */
#include "pbd_drivers.h"

#include <string.h>

extern const pbd_experiment pbd_exp_spring_oscillator;
extern const pbd_experiment pbd_exp_scaling;
extern const pbd_experiment pbd_exp_stretch_bend_independence;
extern const pbd_experiment pbd_exp_balloon_pressure;
extern const pbd_experiment pbd_exp_tet_inversion;
extern const pbd_experiment pbd_exp_momentum_drift;
extern const pbd_experiment pbd_exp_convergence;
extern const pbd_experiment pbd_exp_xpbd_vs_implicit;
extern const pbd_experiment pbd_exp_chain_forces;
extern const pbd_experiment pbd_exp_gradcheck;
extern const pbd_experiment pbd_exp_substeps_vs_iterations;
extern const pbd_experiment pbd_exp_stiffness_vs_iterations;
extern const pbd_experiment pbd_exp_material_beam;
extern const pbd_experiment pbd_exp_poisson;
extern const pbd_experiment pbd_exp_long_range_attachments;
extern const pbd_experiment pbd_exp_solver_families;
extern const pbd_experiment pbd_exp_fluid_density;
extern const pbd_experiment pbd_exp_rod_cantilever;
extern const pbd_experiment pbd_exp_rod_twist;
extern const pbd_experiment pbd_exp_contact;
extern const pbd_experiment pbd_exp_rigid_pendulum;
extern const pbd_experiment pbd_exp_rigid_free_body;
extern const pbd_experiment pbd_exp_rigid_friction;
extern const pbd_experiment pbd_exp_rigid_restitution;
extern const pbd_experiment pbd_exp_rigid_stack;

static const pbd_experiment *const experiments[] = {
    &pbd_exp_stiffness_vs_iterations,
    &pbd_exp_spring_oscillator,
    &pbd_exp_chain_forces,
    &pbd_exp_convergence,
    &pbd_exp_xpbd_vs_implicit,
    &pbd_exp_substeps_vs_iterations,
    &pbd_exp_momentum_drift,
    &pbd_exp_stretch_bend_independence,
    &pbd_exp_balloon_pressure,
    &pbd_exp_tet_inversion,
    &pbd_exp_material_beam,
    &pbd_exp_poisson,
    &pbd_exp_long_range_attachments,
    &pbd_exp_solver_families,
    &pbd_exp_fluid_density,
    &pbd_exp_rod_cantilever,
    &pbd_exp_rod_twist,
    &pbd_exp_contact,
    &pbd_exp_rigid_pendulum,
    &pbd_exp_rigid_free_body,
    &pbd_exp_rigid_friction,
    &pbd_exp_rigid_restitution,
    &pbd_exp_rigid_stack,
    &pbd_exp_scaling,
    &pbd_exp_gradcheck,
};

int pbd_experiment_count(void) { return (int)(sizeof experiments / sizeof experiments[0]); }

const pbd_experiment *pbd_experiment_at(int i)
{
    return (i >= 0 && i < pbd_experiment_count()) ? experiments[i] : NULL;
}

const pbd_experiment *pbd_experiment_find(const char *name)
{
    for (int i = 0; i < pbd_experiment_count(); i++)
        if (strcmp(experiments[i]->name, name) == 0) return experiments[i];
    return NULL;
}
