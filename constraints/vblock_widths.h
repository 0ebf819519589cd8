/* The batched vertex blocks' instances (pbd_vertex_block_batch_fn): a kernel body, a header
 * written once for any width, compiled at 2 (SSE2), 4 (AVX2) and 8 (AVX-512) lanes under
 * the target pragmas of constraints/simd_target.h, and the function that picks one by
 * pbd_simd_width() at run time, as the colour kernels do. Before including, define VB_BODY
 * (the body's header, a string), VB_PREFIX (the instances are VB_PREFIX_sse2, _avx2, _avx512)
 * and VB_DISPATCH (the name of the dispatching function). The body sees VB_W lanes, vector
 * types VB_V / VB_VI, VB_SQRT, VB_ATAN2 (SLEEF's deterministic 3.5-ulp atan2 at that width,
 * as the dihedral colour kernels', constraints/bend_dihedral_simd.c), VB_NAME(x) for its
 * helpers and VB_FN for its kernel. */
#include <immintrin.h>
#include <stdint.h>

#define VB_CAT2(a, b) a##b
#define VB_CAT(a, b) VB_CAT2(a, b)

typedef double vbw_v2 __attribute__((vector_size(16)));
typedef long vbw_l2 __attribute__((vector_size(16)));
extern __m128d Sleef_cinz_atan2d2_u35sse2(__m128d, __m128d);
#define VB_W 2
#define VB_V vbw_v2
#define VB_VI vbw_l2
#define VB_NAME(x) vb2_##x
#define VB_SQRT(v) ((vbw_v2)_mm_sqrt_pd((__m128d)(v)))
#define VB_ATAN2(y, x) ((vbw_v2)Sleef_cinz_atan2d2_u35sse2((__m128d)(y), (__m128d)(x)))
#define VB_FN VB_CAT(VB_PREFIX, _sse2)
#include VB_BODY
#undef VB_W
#undef VB_V
#undef VB_VI
#undef VB_NAME
#undef VB_SQRT
#undef VB_ATAN2
#undef VB_FN

PBD_SIMD_TARGET_AVX2
typedef double vbw_v4 __attribute__((vector_size(32)));
typedef long vbw_l4 __attribute__((vector_size(32)));
extern __m256d Sleef_finz_atan2d4_u35avx2(__m256d, __m256d);
#define VB_W 4
#define VB_V vbw_v4
#define VB_VI vbw_l4
#define VB_NAME(x) vb4_##x
#define VB_SQRT(v) ((vbw_v4)_mm256_sqrt_pd((__m256d)(v)))
#define VB_ATAN2(y, x) ((vbw_v4)Sleef_finz_atan2d4_u35avx2((__m256d)(y), (__m256d)(x)))
#define VB_FN VB_CAT(VB_PREFIX, _avx2)
#include VB_BODY
#undef VB_W
#undef VB_V
#undef VB_VI
#undef VB_NAME
#undef VB_SQRT
#undef VB_ATAN2
#undef VB_FN
PBD_SIMD_TARGET_END

PBD_SIMD_TARGET_AVX512
typedef double vbw_v8 __attribute__((vector_size(64)));
typedef long vbw_l8 __attribute__((vector_size(64)));
extern __m512d Sleef_finz_atan2d8_u35avx512f(__m512d, __m512d);
#define VB_W 8
#define VB_V vbw_v8
#define VB_VI vbw_l8
#define VB_NAME(x) vb8_##x
#define VB_SQRT(v) ((vbw_v8)_mm512_sqrt_pd((__m512d)(v)))
#define VB_ATAN2(y, x) ((vbw_v8)Sleef_finz_atan2d8_u35avx512f((__m512d)(y), (__m512d)(x)))
#define VB_FN VB_CAT(VB_PREFIX, _avx512)
#include VB_BODY
#undef VB_W
#undef VB_V
#undef VB_VI
#undef VB_NAME
#undef VB_SQRT
#undef VB_ATAN2
#undef VB_FN
PBD_SIMD_TARGET_END

void VB_DISPATCH(const double *pos, const int32_t *idx, const double *rest, int j,
                 const int32_t *c, const int32_t *o, int n, pbd_vertex_terms *out)
{
    switch (pbd_simd_width()) {
    case 8:
        VB_CAT(VB_PREFIX, _avx512)(pos, idx, rest, j, c, o, n, out);
        break;
    case 4:
        VB_CAT(VB_PREFIX, _avx2)(pos, idx, rest, j, c, o, n, out);
        break;
    default:
        VB_CAT(VB_PREFIX, _sse2)(pos, idx, rest, j, c, o, n, out);
    }
}
