/* The distance constraint's batched vertex block (pbd_vertex_block_batch_fn, for VBD and
 * AVBD's vertex solves, solver/vbd/): several (spring, particle j) pairs per SIMD vector,
 * each lane with the operations of the scalar distance_vertex_block (∇_jC = ±n, ∇²_jjC =
 * (I − n nᵀ)/|d|; constraints/distance.c) in the same order, so the results are the scalar
 * ones bit for bit (constraints/distance_vblock_body.h). Runtime dispatch as the colour
 * kernels' (pbd_simd_width): 8, 4 or 2 lanes. */
#include "pbd_constraint.h"
#include "dihedral_simd.h"
#include "simd_target.h"

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#define DISTANCE_MIN_LENGTH 1e-12 /* as constraints/distance.c */

typedef double vd_v2 __attribute__((vector_size(16)));
typedef long vd_l2 __attribute__((vector_size(16)));
#define VB_W 2
#define VB_V vd_v2
#define VB_VI vd_l2
#define VB_SQRT(v) ((vd_v2)_mm_sqrt_pd((__m128d)(v)))
#define VB_FN distance_vblock_sse2
#include "distance_vblock_body.h"
#undef VB_W
#undef VB_V
#undef VB_VI
#undef VB_SQRT
#undef VB_FN

PBD_SIMD_TARGET_AVX2
typedef double vd_v4 __attribute__((vector_size(32)));
typedef long vd_l4 __attribute__((vector_size(32)));
#define VB_W 4
#define VB_V vd_v4
#define VB_VI vd_l4
#define VB_SQRT(v) ((vd_v4)_mm256_sqrt_pd((__m256d)(v)))
#define VB_FN distance_vblock_avx2
#include "distance_vblock_body.h"
#undef VB_W
#undef VB_V
#undef VB_VI
#undef VB_SQRT
#undef VB_FN
PBD_SIMD_TARGET_END

PBD_SIMD_TARGET_AVX512
typedef double vd_v8 __attribute__((vector_size(64)));
typedef long vd_l8 __attribute__((vector_size(64)));
#define VB_W 8
#define VB_V vd_v8
#define VB_VI vd_l8
#define VB_SQRT(v) ((vd_v8)_mm512_sqrt_pd((__m512d)(v)))
#define VB_FN distance_vblock_avx512
#include "distance_vblock_body.h"
#undef VB_W
#undef VB_V
#undef VB_VI
#undef VB_SQRT
#undef VB_FN
PBD_SIMD_TARGET_END

void pbd_distance_vertex_block_batch(const double *pos, const int32_t *idx, const double *rest,
                                     int j, const int32_t *c, const int32_t *o, int n,
                                     pbd_vertex_terms *out)
{
    switch (pbd_simd_width()) {
    case 8:
        distance_vblock_avx512(pos, idx, rest, j, c, o, n, out);
        break;
    case 4:
        distance_vblock_avx2(pos, idx, rest, j, c, o, n, out);
        break;
    default:
        distance_vblock_sse2(pos, idx, rest, j, c, o, n, out);
    }
}
