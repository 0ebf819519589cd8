/* Materials in the scenes: the tet beam's --material, the cloth's --stretch, and
 * the cloth's --long-range-attachments. The constraint types say how a material is made
 * (pbd_constraint_type.material: the rest values and compliance of each component for Young's
 * modulus and Poisson ratio); these builders only choose the type and loop over elements. */
#include "scene_private.h"

#include <math.h>
#include <stdlib.h>

const char *const pbd_material_names[] = {"distance-volume", "neo-hookean", "stvk", "corotated",
                                          "strain", "strain-normalized", NULL};
const char *const pbd_stretch_names[] = {"distance", "fem", "strain", NULL};

/* The type of each --material (distance-volume: none, the scene's edges and volumes). */
static const pbd_constraint_type *const material_types[] = {
    NULL, &pbd_snh_tet_type, &pbd_fem_tet_stvk_type, &pbd_fem_tet_corotated_type,
    &pbd_strain_tet_type, &pbd_strain_tet_normalized_type};
/* ... and of each --stretch (distance: none, the edges) */
static const pbd_constraint_type *const stretch_types[] = {NULL, &pbd_fem_triangle_type,
                                                           &pbd_strain_triangle_type};

const pbd_constraint_type *pbd_scene_material_type(int material)
{
    return material > 0 && material < (int)(sizeof material_types / sizeof *material_types)
               ? material_types[material]
               : NULL;
}

const pbd_constraint_type *pbd_scene_stretch_type(int stretch)
{
    return stretch > 0 && stretch < (int)(sizeof stretch_types / sizeof *stretch_types)
               ? stretch_types[stretch]
               : NULL;
}

pbd_status scene_material_inputs(const pbd_scene_params *sp, const char *scene,
                                 int takes_material, int takes_stretch)
{
    if (sp->material != 0 && !takes_material)
        return pbd_error(PBD_EINVAL, "--material: expected a scene built on tetrahedra "
                         "(tet_beam), found %s, which takes none", scene);
    if ((sp->stretch != 0 || sp->long_range_attachments) && !takes_stretch)
        return pbd_error(PBD_EINVAL, "--%s: expected a cloth scene (cloth, cloth_bend, "
                         "cloth_bag, balloon), found %s",
                         sp->stretch != 0 ? "stretch" : "long-range-attachments", scene);
    return PBD_OK;
}

int scene_add_material(pbd_world *w, const pbd_constraint_type *type, int n_elem,
                       const int32_t *elem, const pbd_scene_params *sp, const char *scene)
{
    int set = pbd_world_add_set(w, type, 0);
    if (set < 0) return -1;
    const int a = type->arity;
    double x[3 * 4], rest[16];
    for (int e = 0; e < n_elem; e++) {
        const int32_t *idx = elem + (size_t)a * e;
        for (int j = 0; j < a; j++)
            for (int k = 0; k < 3; k++) x[3 * j + k] = w->x[3 * (size_t)idx[j] + k];
        pbd_eval_input in = {x, a, NULL, NULL, 0};
        for (int c = 0; c < type->n_components; c++) {
            double alpha = type->material(&in, sp->youngs_modulus, sp->poisson_ratio, c, rest);
            if (isnan(alpha)) {
                pbd_error(PBD_EINVAL, "%s: --poisson-ratio: expected a value below 0.5 for "
                          "%s (it has no incompressible limit), found %g",
                          scene, type->name, sp->poisson_ratio);
                return -1;
            }
            if (pbd_set_add(w, set, idx, rest, sp->stiffness, alpha) < 0) return -1;
        }
    }
    return set;
}

int scene_add_long_range_attachments(pbd_world *w, const pbd_trimesh *m)
{
    double *dist = malloc((size_t)m->n_vertices * sizeof *dist);
    if (!dist) {
        pbd_error(PBD_ENOMEM, "long-range attachments: out of memory");
        return -1;
    }
    int set = pbd_world_add_set(w, &pbd_long_range_attachment_type, 0);
    for (int a = 0; set >= 0 && a < w->n_attach; a++) {
        int anchor = w->attach_idx[a];
        if (anchor >= m->n_vertices || pbd_trimesh_geodesic(m, anchor, dist) != 0) {
            set = -1;
            break;
        }
        for (int v = 0; set >= 0 && v < m->n_vertices; v++) {
            if (v == anchor || !(w->w[v] > 0.0) || !isfinite(dist[v])) continue;
            int32_t idx[2] = {v, anchor};
            double rest = dist[v];
            /* hard, as in Kim et al. 2012: the cloth may not get farther than ℓ */
            if (pbd_set_add(w, set, idx, &rest, 1.0, 0.0) < 0) set = -1;
        }
    }
    free(dist);
    return set;
}
