/* The dihedral bending constraint's batched vertex block (pbd_vertex_block_batch_fn, for VBD
 * and AVBD's vertex solves, solver/vbd/): several (hinge, particle j) pairs per SIMD vector,
 * each lane with the operations of the scalar dihedral_vertex_block (PBD App. A's geometry,
 * the bounded gradient, the block of ∇²C; constraints/bend_dihedral.c) in the same order, so
 * ∇_jC and ∇²_jjC are the scalar ones bit for bit (no FMA contraction: the build is ISO C,
 * and the kernels' arithmetic is written operation by operation); the angle's atan2 is
 * SLEEF's vector one (3.5 ulp, as the colour kernels'), so C is the scalar one to a few ulp
 * of φ, not bit for bit (constraints/dihedral_vblock_body.h; the bound in
 * tests/test_vertex_block.c). Every width has its own SLEEF function; a pair's result does
 * not depend on its lane or on how a colour is cut, so 1 and N threads give the same bits.
 *
 * Runtime dispatch as the colour kernels' (constraints/bend_dihedral_simd.c, pbd_simd_width):
 * AVX-512 (8 lanes) or AVX2 (4 lanes) where the CPU has them, else SSE2 (2 lanes). */
#include "pbd_constraint.h"
#include "dihedral_simd.h"
#include "simd_target.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define BEND_MIN_REL 1e-10 /* as constraints/bend_dihedral.c */
#define BEND_MIN_SIZE 1e-100
#define BEND_MIN_SIN 1e-12
enum { TRI_VV = 1, TRI_VE = 2, TRI_EE = 4, TRI_ALL = 7 };

int pbd_test_vblock_scalar_math = 0;

#define VB_BODY "dihedral_vblock_body.h"
#define VB_PREFIX dihedral_vblock
#define VB_DISPATCH pbd_dihedral_vertex_block_batch
#include "vblock_widths.h"
