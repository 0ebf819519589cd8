/* The dihedral bending constraint's batched vertex block (pbd_vertex_block_batch_fn, for VBD
 * and AVBD's vertex solves, solver/vbd/): several (hinge, particle j) pairs per SIMD vector,
 * each lane with the operations of the scalar dihedral_vertex_block (PBD App. A's geometry,
 * the bounded gradient, the block of ∇²C; constraints/bend_dihedral.c) in the same order and
 * glibc's atan2, so the results are the scalar ones bit for bit
 * (constraints/dihedral_vblock_body.h; no FMA contraction: the build is ISO C, and the
 * kernels' arithmetic is written operation by operation).
 *
 * Runtime dispatch as the colour kernels' (constraints/bend_dihedral_simd.c, pbd_simd_width):
 * AVX-512 (8 lanes) or AVX2 (4 lanes) where the CPU has them, else SSE2 (2 lanes). */
#include "pbd_constraint.h"
#include "dihedral_simd.h"
#include "simd_target.h"

#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define BEND_MIN_REL 1e-10 /* as constraints/bend_dihedral.c */
#define BEND_MIN_SIZE 1e-100
#define BEND_MIN_SIN 1e-12
enum { TRI_VV = 1, TRI_VE = 2, TRI_EE = 4, TRI_ALL = 7 };

typedef double vb_v2 __attribute__((vector_size(16)));
typedef long vb_l2 __attribute__((vector_size(16)));
#define VB_W 2
#define VB_V vb_v2
#define VB_VI vb_l2
#define VB_NAME(x) vb2_##x
#define VB_SQRT(v) ((vb_v2)_mm_sqrt_pd((__m128d)(v)))
#define VB_FN dihedral_vblock_sse2
#include "dihedral_vblock_body.h"
#undef VB_W
#undef VB_V
#undef VB_VI
#undef VB_NAME
#undef VB_SQRT
#undef VB_FN

PBD_SIMD_TARGET_AVX2
typedef double vb_v4 __attribute__((vector_size(32)));
typedef long vb_l4 __attribute__((vector_size(32)));
#define VB_W 4
#define VB_V vb_v4
#define VB_VI vb_l4
#define VB_NAME(x) vb4_##x
#define VB_SQRT(v) ((vb_v4)_mm256_sqrt_pd((__m256d)(v)))
#define VB_FN dihedral_vblock_avx2
#include "dihedral_vblock_body.h"
#undef VB_W
#undef VB_V
#undef VB_VI
#undef VB_NAME
#undef VB_SQRT
#undef VB_FN
PBD_SIMD_TARGET_END

PBD_SIMD_TARGET_AVX512
typedef double vb_v8 __attribute__((vector_size(64)));
typedef long vb_l8 __attribute__((vector_size(64)));
#define VB_W 8
#define VB_V vb_v8
#define VB_VI vb_l8
#define VB_NAME(x) vb8_##x
#define VB_SQRT(v) ((vb_v8)_mm512_sqrt_pd((__m512d)(v)))
#define VB_FN dihedral_vblock_avx512
#include "dihedral_vblock_body.h"
#undef VB_W
#undef VB_V
#undef VB_VI
#undef VB_NAME
#undef VB_SQRT
#undef VB_FN
PBD_SIMD_TARGET_END

void pbd_dihedral_vertex_block_batch(const double *pos, const int32_t *idx, const double *rest,
                                     int j, const int32_t *c, const int32_t *o, int n,
                                     pbd_vertex_terms *out)
{
    switch (pbd_simd_width()) {
    case 8:
        dihedral_vblock_avx512(pos, idx, rest, j, c, o, n, out);
        break;
    case 4:
        dihedral_vblock_avx2(pos, idx, rest, j, c, o, n, out);
        break;
    default:
        dihedral_vblock_sse2(pos, idx, rest, j, c, o, n, out);
    }
}
