/* Private to constraints/: the SIMD colour kernels of the dihedral bending constraint
 * (constraints/bend_dihedral_simd.c) and of the distance constraint (distance_simd.c), for
 * their type tables. */
#ifndef PBD_DIHEDRAL_SIMD_H
#define PBD_DIHEDRAL_SIMD_H

#include "pbd_constraint.h"

int pbd_dihedral_colour_pbd(const pbd_batch *b, const int32_t *rows, int begin, int end);
int pbd_dihedral_colour_xpbd(const pbd_batch *b, const int32_t *rows, int begin, int end);
int pbd_distance_colour_pbd(const pbd_batch *b, const int32_t *rows, int begin, int end);
int pbd_distance_colour_xpbd(const pbd_batch *b, const int32_t *rows, int begin, int end);

#endif
