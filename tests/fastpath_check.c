/* Helpers of the fast-path suites (tests/fastpath_check.h). */
#include "fastpath_check.h"

#include <math.h>

double max_abs_diff(const double *a, const double *b, size_t n)
{
    double d = 0.0;
    for (size_t i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i]));
    return d;
}

pbd_world *scene(int which, int method)
{
    pbd_scene_params sp = pbd_scene_params_default();
    sp.stiffness = 0.9;
    sp.compliance = 1e-6;
    sp.k_bend = 0.5;
    sp.bend_compliance = 1e-3;
    pbd_world *w = NULL;
    switch (which) {
    case SCENE_CLOTH_DIHEDRAL: /* horizontal, draping from two corners: the hinges fold */
        sp.resolution = 14;
        w = pbd_scene_cloth_bend(&sp);
        break;
    case SCENE_CLOTH_ISOMETRIC: { /* the same cloth, its hinges as isometric bending */
        sp.resolution = 14;
        w = pbd_scene_cloth_bend(&sp);
        int iso = pbd_world_add_set(w, &pbd_bend_isometric_type, 0);
        pbd_constraint_set *dihedral = &w->sets[1]; /* after add_set: sets may move */
        for (int c = 0; c < dihedral->count; c++)
            pbd_set_add(w, iso, dihedral->idx + 4 * c, NULL, 0.5, 1e-3);
        dihedral->count = 0;
        break;
    }
    case SCENE_TET_BEAM: /* 8 × 2 × 2 cubes, 6 tets each */
        sp.resolution = 8;
        sp.size = 0.8;
        w = pbd_scene_tet_beam(&sp);
        break;
    default:
        sp.resolution = 40;
        w = pbd_scene_chain(&sp);
        break;
    }
    w->def.method = method;
    w->def.iterations = 6;
    return w;
}

/* Run a and b for `steps` steps; the largest position difference relative to the scene's
 * size, and the largest λ difference relative to max |λ|. */
void run_pair(pbd_world *a, pbd_world *b, int steps, double *dx, double *dl)
{
    for (int s = 0; s < steps; s++) {
        CU_ASSERT_EQUAL_FATAL(pbd_step(a), PBD_OK);
        CU_ASSERT_EQUAL_FATAL(pbd_step(b), PBD_OK);
    }
    *dx = max_abs_diff(a->x, b->x, 3 * (size_t)a->n);
    *dl = 0.0;
    for (int s = 0; s < a->n_sets; s++) {
        double top = 1e-30;
        for (int c = 0; c < a->sets[s].count; c++) top = fmax(top, fabs(b->sets[s].lambda[c]));
        *dl = fmax(*dl, max_abs_diff(a->sets[s].lambda, b->sets[s].lambda,
                                     (size_t)a->sets[s].count) / top);
    }
}
