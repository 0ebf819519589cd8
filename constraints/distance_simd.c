/* The distance constraint's colour kernels (PBD Eq. 10/11 and XPBD Eq. 18, as in
 * constraints/distance.c), several constraints per SIMD vector: the constraints of one colour
 * share no particle, so each lane projects one with the scalar kernel's operations
 * (constraints/distance_simd_body.h); the results are the scalar kernel's bit for bit.
 * Runtime dispatch (pbd_simd_width) picks AVX-512 (8 lanes) or AVX2 (4), particles loaded
 * and stored one by one and transposed in registers (constraints/simd8.h, simd4.h), or SSE2
 * (2). */
#include "pbd_constraint.h"
#include "simd_target.h"
#include "dihedral_simd.h"

#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define DISTANCE_MIN_LENGTH 1e-12 /* as constraints/distance.c */

typedef double dd_v2 __attribute__((vector_size(16)));
typedef long dd_l2 __attribute__((vector_size(16)));
static inline dd_v2 dd2_gather(const double *base, const int32_t *i, int comp)
{
    return (dd_v2){base[3 * (size_t)i[0] + comp], base[3 * (size_t)i[1] + comp]};
}
static inline dd_v2 dd2_gatherw(const double *base, const int32_t *i)
{
    return (dd_v2){base[i[0]], base[i[1]]};
}
#define DS_W 2
#define DS_V dd_v2
#define DS_VI dd_l2
#define DS_NAME(x) dd2_##x
#define DS_SQRT(v) ((dd_v2)_mm_sqrt_pd((__m128d)(v)))
#define DS_GATHER dd2_gather
#define DS_GATHERW dd2_gatherw
#define DS_FN distance_colour_sse2
#include "distance_simd_body.h"
#undef DS_W
#undef DS_V
#undef DS_VI
#undef DS_NAME
#undef DS_SQRT
#undef DS_GATHER
#undef DS_GATHERW
#undef DS_FN

PBD_SIMD_TARGET_AVX2
typedef double dd_v4 __attribute__((vector_size(32)));
typedef long dd_l4 __attribute__((vector_size(32)));
/* 4 index pairs (i1, i2) interleaved: the even and the odd 32-bit words */
static inline void dd4_contiguous(const int32_t *idx, int32_t *i1, int32_t *i2)
{
    __m256i v = _mm256_permutevar8x32_epi32(_mm256_loadu_si256((const __m256i *)idx),
                                            _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7));
    _mm_storeu_si128((__m128i *)i1, _mm256_castsi256_si128(v));
    _mm_storeu_si128((__m128i *)i2, _mm256_extracti128_si256(v, 1));
}
#include "simd4.h"
#define DS_STORE_MASKED simd4_store_masked
#define DS_LOAD_XYZ simd4_load_xyz
#define DS_CONTIGUOUS dd4_contiguous
#define DS_SCATTER simd4_store_xyz
#define DS_W 4
#define DS_V dd_v4
#define DS_VI dd_l4
#define DS_NAME(x) dd4_##x
#define DS_SQRT(v) ((dd_v4)_mm256_sqrt_pd((__m256d)(v)))
#define DS_GATHERW simd4_gather1
#define DS_FN distance_colour_avx2
#include "distance_simd_body.h"
#undef DS_CONTIGUOUS
#undef DS_LOAD_XYZ
#undef DS_STORE_MASKED
#undef DS_SCATTER
#undef DS_W
#undef DS_V
#undef DS_VI
#undef DS_NAME
#undef DS_SQRT
#undef DS_GATHERW
#undef DS_FN
PBD_SIMD_TARGET_END

PBD_SIMD_TARGET_AVX512
typedef double dd_v8 __attribute__((vector_size(64)));
typedef long dd_l8 __attribute__((vector_size(64)));
/* 8 index pairs (i1, i2) interleaved: the even and the odd 32-bit words */
static inline void dd8_contiguous(const int32_t *idx, int32_t *i1, int32_t *i2)
{
    __m512i v = _mm512_loadu_si512((const void *)idx);
    _mm256_storeu_si256((__m256i *)i1, _mm512_cvtepi64_epi32(v));
    _mm256_storeu_si256((__m256i *)i2, _mm512_cvtepi64_epi32(_mm512_srli_epi64(v, 32)));
}
#include "simd8.h"

#define DS_STORE_MASKED simd8_store_masked
#define DS_LOAD_XYZ simd8_load_xyz
#define DS_CONTIGUOUS dd8_contiguous
#define DS_SCATTER simd8_store_xyz
#define DS_W 8
#define DS_V dd_v8
#define DS_VI dd_l8
#define DS_NAME(x) dd8_##x
#define DS_SQRT(v) ((dd_v8)_mm512_sqrt_pd((__m512d)(v)))
#define DS_GATHERW simd8_gather1
#define DS_FN distance_colour_avx512
#include "distance_simd_body.h"
#undef DS_CONTIGUOUS
#undef DS_LOAD_XYZ
#undef DS_STORE_MASKED
#undef DS_SCATTER
#undef DS_W
#undef DS_V
#undef DS_VI
#undef DS_NAME
#undef DS_SQRT
#undef DS_GATHERW
#undef DS_FN
PBD_SIMD_TARGET_END

static int distance_colour(const pbd_batch *b, const int32_t *rows, int begin, int end, int xpbd)
{
    switch (pbd_simd_width()) {
    case 8:
        return distance_colour_avx512(b, rows, begin, end, xpbd);
    case 4:
        return distance_colour_avx2(b, rows, begin, end, xpbd);
    default:
        return distance_colour_sse2(b, rows, begin, end, xpbd);
    }
}

int pbd_distance_colour_pbd(const pbd_batch *b, const int32_t *rows, int begin, int end)
{
    return distance_colour(b, rows, begin, end, 0);
}

int pbd_distance_colour_xpbd(const pbd_batch *b, const int32_t *rows, int begin, int end)
{
    return distance_colour(b, rows, begin, end, 1);
}
