/* Private to constraints/: the dihedral bending constraint's SIMD colour kernels
 * (constraints/bend_dihedral_simd.c), for its type table in bend_dihedral.c. */
#ifndef PBD_DIHEDRAL_SIMD_H
#define PBD_DIHEDRAL_SIMD_H

#include "pbd_constraint.h"

int pbd_dihedral_colour_pbd(const pbd_batch *b, const int32_t *rows, int begin, int end);
int pbd_dihedral_colour_xpbd(const pbd_batch *b, const int32_t *rows, int begin, int end);

#endif
