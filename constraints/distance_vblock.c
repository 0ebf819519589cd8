/* The distance constraint's batched vertex block (pbd_vertex_block_batch_fn, for VBD and
 * AVBD's vertex solves, solver/vbd/): several (spring, particle j) pairs per SIMD vector,
 * each lane with the operations of the scalar distance_vertex_block (∇_jC = ±n, ∇²_jjC =
 * (I − n nᵀ)/|d|; constraints/distance.c) in the same order, so the results are the scalar
 * ones bit for bit (constraints/distance_vblock_body.h). Runtime dispatch as the colour
 * kernels' (pbd_simd_width): 8, 4 or 2 lanes. */
#include "pbd_constraint.h"
#include "dihedral_simd.h"
#include "simd_target.h"

#include <stdint.h>
#include <string.h>

#define DISTANCE_MIN_LENGTH 1e-12 /* as constraints/distance.c */

#define VB_BODY "distance_vblock_body.h"
#define VB_PREFIX distance_vblock
#define VB_DISPATCH pbd_distance_vertex_block_batch
#include "vblock_widths.h"
