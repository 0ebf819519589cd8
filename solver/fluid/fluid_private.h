/* Private to solver/fluid/: the fluid state a world holds (pbd_world.fluid). */
#ifndef PBD_FLUID_PRIVATE_H
#define PBD_FLUID_PRIVATE_H

#include "constraints/vec3.h"
#include "pbd_fluid.h"

struct pbd_fluid_state {
    pbd_fluid_def def;
    int first, count;     /* the fluid's particles */
    int set;              /* the fluid_density set's index in w->sets */
    int arity;            /* 1 + def.max_neighbours */
    double mass, inv_mass;
    int threads;
    /* the cell list (fluid_neighbours.c): a grid of cells of edge h over the box grown by
     * 2h, particles counting-sorted by cell */
    int dims[3];
    double origin[3];
    int32_t *cell_start;  /* n_cells + 1 */
    int32_t *sorted;      /* count: fluid-local indices, cell by cell */
    int32_t *cell_of;     /* count */
    long n_cells;
    /* per particle (fluid-local), the projection's and velocity pass's scratch */
    double *lam;          /* λ this iteration (PBD) or Δλ (XPBD) */
    double *dp;           /* 3 per particle */
    double *omega;        /* 3 per particle: vorticity */
    double *vnew;         /* 3 per particle */
    double *cval;         /* per particle: this iteration's density error (the stats) */
    double *err_max, *err_mean; /* iteration + 1 values of the last substep */
    /* the walls' density (fluid_wall.c): I(δ) and A(δ) at FLUID_WALL_TABLE points of [0, h] */
#define FLUID_WALL_TABLE 512
    double wall_i[FLUID_WALL_TABLE], wall_a[FLUID_WALL_TABLE];
    int err_capacity, iteration;
    pbd_fluid_stats stats;
};

/* fluid_neighbours.c: rebuild every row of the density set from the positions p. */
void fluid_neighbours(pbd_world *w, struct pbd_fluid_state *fs);
/* fluid_project.c: one Jacobi density iteration (returns skipped rows), and the density error
 * at positions pos (max and mean of |C| or max(C, 0)). */
int fluid_project(pbd_world *w, double h);
void fluid_errors(const pbd_world *w, const struct pbd_fluid_state *fs, const double *pos,
                  double *max, double *mean);
/* C_i of fluid particle k at positions pos (its row), with its kernel's density. */
double fluid_constraint(const pbd_world *w, const struct pbd_fluid_state *fs,
                        const double *pos, int k);
/* fluid_wall.c: tabulate the walls' density; the walls' ρ_wall/ρ0 at x (0 unless
 * def.walls) and, when grad != NULL, its gradient (1/m). */
void fluid_wall_table(struct pbd_fluid_state *fs);
double fluid_wall(const struct pbd_fluid_state *fs, const double *x, double *grad);
/* fluid_velocity.c: vorticity confinement and XSPH after the velocity update. */
void fluid_velocity_update(pbd_world *w, double h);

#endif
