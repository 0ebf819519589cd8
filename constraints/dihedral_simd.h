/* Private to constraints/: the SIMD colour kernels of the dihedral bending constraint
 * (constraints/bend_dihedral_simd.c) and of the distance constraint (distance_simd.c), and
 * the batched vertex blocks of both (constraints/bend_dihedral_vblock.c, distance_vblock.c),
 * for their type tables. */
#ifndef PBD_DIHEDRAL_SIMD_H
#define PBD_DIHEDRAL_SIMD_H

#include "pbd_constraint.h"

int pbd_dihedral_colour_pbd(const pbd_batch *b, const int32_t *rows, int begin, int end);
int pbd_dihedral_colour_xpbd(const pbd_batch *b, const int32_t *rows, int begin, int end);
int pbd_distance_colour_pbd(const pbd_batch *b, const int32_t *rows, int begin, int end);
int pbd_distance_colour_xpbd(const pbd_batch *b, const int32_t *rows, int begin, int end);
void pbd_distance_vertex_block_batch(const double *pos, const int32_t *idx, const double *rest,
                                     int j, const int32_t *c, const int32_t *o, int n,
                                     pbd_vertex_terms *out);
void pbd_dihedral_vertex_block_batch(const double *pos, const int32_t *idx, const double *rest,
                                     int j, const int32_t *c, const int32_t *o, int n,
                                     pbd_vertex_terms *out);

#endif
