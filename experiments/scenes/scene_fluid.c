/* Fluid scenes (Position Based Fluids, solver/fluid/): a dam break and a column at
 * rest. A block of resolution³ particles on a cubic lattice of spacing d = size/resolution,
 * kernel support h = 2d, inside the container box (the fluid's own box, particle centres kept
 * inside every iteration: no boundary particles). The particle mass makes the lattice's
 * interior density ρ0 (m = ρ0 / Σ_lattice W(|x_j|, h), the particle's own term included), so
 * C ≈ 0 in the bulk at the start (the 1 % jitter below moves it by ~1e-4); --mass is not used. */
#include "scene_private.h"
#include "solver/fluid/pbd_fluid.h"

#include <math.h>

/* Each particle is moved off the lattice by up to this fraction of d along each axis (random,
 * from --seed): a perfect lattice keeps its columns' x and z through a fall, so particles
 * clamped onto the floor together land on one point, where the spiky gradient has no
 * direction and they never part again (the column then loses half its height). */
#define FLUID_JITTER 0.01

/* Σ_j W(|x_j|, h) over an infinite cubic lattice of spacing d (the origin included). */
static double lattice_kernel_sum(int kernel, double d, double h)
{
    int m = (int)ceil(h / d) + 1;
    double s = 0.0;
    for (int i = -m; i <= m; i++)
        for (int j = -m; j <= m; j++)
            for (int k = -m; k <= m; k++)
                s += pbd_sph_kernel(kernel, d * sqrt((double)(i * i + j * j + k * k)), h);
    return s;
}

/* n³ particles at (i + ½) d + offset, in a box [0, box]; returns the world or NULL. */
static pbd_world *fluid_block(const pbd_scene_params *sp, const char *scene, const double box[3])
{
    if (scene_inputs(sp, scene, 0, 0) != PBD_OK ||
        scene_material_inputs(sp, scene, 0, 0) != PBD_OK)
        return NULL;
    int n = scene_side(sp, scene, 22); /* --resolution=1 refused */
    if (n < 0) return NULL;
    if ((double)n * n * n > 2e7) {
        pbd_error(PBD_EINVAL, "%s: resolution: expected at most 271 (2e7 particles), found %d",
                  scene, n);
        return NULL;
    }
    pbd_fluid_def def = sp->fluid;
    double d = sp->size / n;
    def.h = 2.0 * d;
    for (int k = 0; k < 3; k++) {
        def.box_lo[k] = 0.0;
        def.box_hi[k] = box[k] * sp->size;
    }
    double mass = def.rest_density / lattice_kernel_sum(def.kernel, d, def.h);
    pbd_world *w = pbd_world_create(n * n * n);
    if (!w) return NULL;
    pbd_rng rng;
    pbd_rng_seed(&rng, sp->seed);
    for (int i = 0, q = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++, q++) {
                double x[3] = {(i + 0.5) * d, (j + 0.5) * d, (k + 0.5) * d};
                for (int c = 0; c < 3; c++) x[c] += FLUID_JITTER * d * pbd_rng_range(&rng, -1, 1);
                pbd_world_set_particle(w, q, x, NULL, mass);
            }
    if (pbd_world_add_fluid(w, 0, n * n * n, &def, sp->compliance) < 0) {
        pbd_world_free(w);
        return NULL;
    }
    return w;
}

pbd_world *pbd_scene_dam_break(const pbd_scene_params *sp)
{
    const double box[3] = {4.0, 2.0, 1.0}; /* × size: the block fills the depth (z) */
    return fluid_block(sp, "dam_break", box);
}

pbd_world *pbd_scene_fluid_rest(const pbd_scene_params *sp)
{
    const double box[3] = {1.0, 2.0, 1.0}; /* the column fills the box's floor */
    return fluid_block(sp, "fluid_rest", box);
}
