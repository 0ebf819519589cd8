/* The registry: one row per constraint type, and the only place a new type is named.
 * Adding a type = one file (defining `const pbd_constraint_type pbd_NAME_type`) + one row
 * PBD_TYPE(NAME) below (constraints/README.md "Adding a constraint"). The list is expanded
 * twice: once into the types' declarations, once into the table, so that a new type needs no
 * `extern` anywhere else (pbd_constraint.h declares the existing ones for builders that name
 * a type at compile time; that is optional). */
#include "pbd_constraint.h"

#include <string.h>

#define PBD_REGISTRY(PBD_TYPE)                                                             \
    PBD_TYPE(distance)                                                                     \
    /* bending rows */                                                                     \
    PBD_TYPE(bend_dihedral)                                                                \
    PBD_TYPE(bend_isometric)                                                               \
    /* solids, collisions, pressure, attachment rows */                                    \
    PBD_TYPE(tet_volume)                                                                   \
    PBD_TYPE(tet_plane)                                                                    \
    PBD_TYPE(plane_collision)                                                              \
    PBD_TYPE(point_triangle)                                                               \
    PBD_TYPE(self_collision)                                                               \
    PBD_TYPE(balloon_volume)                                                               \
    PBD_TYPE(attachment)                                                                   \
    /* materials: Stable Neo-Hookean, FEM energy constraints, strain-based */             \
    PBD_TYPE(snh_tet)                                                                      \
    PBD_TYPE(fem_tet_stvk)                                                                 \
    PBD_TYPE(fem_tet_corotated)                                                            \
    PBD_TYPE(fem_triangle)                                                                 \
    PBD_TYPE(strain_tet)                                                                   \
    PBD_TYPE(strain_tet_normalized)                                                        \
    PBD_TYPE(strain_triangle)                                                              \
    PBD_TYPE(strain_triangle_normalized)                                                   \
    /* cloth: long-range attachments; clusters: shape matching (no scalar C) */            \
    PBD_TYPE(long_range_attachment)                                                        \
    PBD_TYPE(shape_match)                                                                  \
    /* fluids: Position Based Fluids' density constraint */                                \
    PBD_TYPE(fluid_density)                                                                \
    /* rods: Cosserat rods with an orientation per segment */                               \
    PBD_TYPE(rod_stretch_shear)                                                            \
    PBD_TYPE(rod_bend_twist)                                                               \
    /* new rows above this line: PBD_TYPE(name) \ for pbd_name_type */

#define PBD_DECLARE(name) extern const pbd_constraint_type pbd_##name##_type;
#define PBD_ROW(name) &pbd_##name##_type,
PBD_REGISTRY(PBD_DECLARE)

static const pbd_constraint_type *const registry[] = {PBD_REGISTRY(PBD_ROW)};

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
