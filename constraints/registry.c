/* The registry: one row per constraint type. Adding a type = one file + one row. */
#include "pbd_constraint.h"

#include <string.h>

static const pbd_constraint_type *const registry[] = {
    &pbd_distance_type,
    /* bending rows */
    &pbd_bend_dihedral_type,
    &pbd_bend_isometric_type,
    /* solids, collisions, pressure, attachment rows */
    &pbd_tet_volume_type,
    &pbd_tet_plane_type,
    &pbd_plane_collision_type,
    &pbd_point_triangle_type,
    &pbd_self_collision_type,
    &pbd_balloon_volume_type,
    &pbd_attachment_type,
    /* materials (issue 15): Stable Neo-Hookean, FEM energy constraints, strain-based dynamics */
    &pbd_snh_tet_type,
    &pbd_fem_tet_stvk_type,
    &pbd_fem_tet_corotated_type,
    &pbd_fem_triangle_type,
    &pbd_strain_tet_type,
    &pbd_strain_tet_normalized_type,
    &pbd_strain_triangle_type,
    &pbd_strain_triangle_normalized_type,
    /* cloth: long-range attachments; clusters: shape matching (no scalar C) */
    &pbd_long_range_attachment_type,
    &pbd_shape_match_type,
    /* rods (issue 22): Cosserat rods with an orientation per segment */
    &pbd_rod_stretch_shear_type,
    &pbd_rod_bend_twist_type,
};

int pbd_constraint_type_count(void) { return (int)(sizeof registry / sizeof registry[0]); }

const pbd_constraint_type *pbd_constraint_type_at(int i)
{
    return (i >= 0 && i < pbd_constraint_type_count()) ? registry[i] : NULL;
}

const pbd_constraint_type *pbd_constraint_type_find(const char *name)
{
    for (int i = 0; i < pbd_constraint_type_count(); i++)
        if (strcmp(registry[i]->name, name) == 0) return registry[i];
    return NULL;
}
