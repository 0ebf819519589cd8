/* The dihedral bending constraint's colour kernels (PBD Eq. 28 through the generic
 * projection, Eq. 8–9, and XPBD Eq. 18), several hinges per SIMD vector: the hinges of one
 * colour share no particle, so each lane projects one with the scalar kernel's operations
 * (constraints/dihedral_simd_body.h). The angle atan2(|sin φ|, cos φ) comes from SLEEF's
 * vector functions (the deterministic "u35" variants, at most 3.5 ulp: the 1-ulp "u10" ones
 * took a fifth of the kernel's time, 2.5× the u35's), so a lane agrees with the scalar kernel
 * (glibc's atan2) to a few ulp of φ, not bit for bit (tests/test_fastpath.c holds it to 1e-12
 * relative); the rest of the arithmetic is the same, without FMA contraction.
 *
 * Runtime dispatch keeps the default build portable: AVX-512 (8 lanes) or AVX2 (4 lanes)
 * where the CPU has them, else SSE2 (2 lanes). SLEEF's "finz" functions (with FMA) give the
 * same bits on AVX-512 and AVX2, its "cinz" SSE2 function (no FMA) may differ from them by
 * an ulp. The result of a hinge does not depend on its lane or on how a colour is cut, so
 * 1 and 2 threads give the same bits. */
#include "pbd_constraint.h"
#include "simd_target.h"
#include "batch_generic.h"

#include <float.h>
#include <immintrin.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BEND_MIN_REL 1e-10 /* as constraints/bend_dihedral.c */
#define BEND_MIN_SIZE 1e-100
#define BEND_MIN_SIN 1e-12

int pbd_test_simd_width = 0;

/* SLEEF's deterministic atan2 (libsleef; declared here for the vector types below, as its
 * header declares each only when the translation unit is built for that instruction set) */
typedef double ds_v2 __attribute__((vector_size(16)));
typedef long ds_l2 __attribute__((vector_size(16)));
extern __m128d Sleef_cinz_atan2d2_u35sse2(__m128d, __m128d);

#define DS_W 2
#define DS_V ds_v2
#define DS_VI ds_l2
#define DS_NAME(x) ds2_##x
#define DS_SQRT(v) ((ds_v2)_mm_sqrt_pd((__m128d)(v)))
#define DS_ATAN2(y, x) ((ds_v2)Sleef_cinz_atan2d2_u35sse2((__m128d)(y), (__m128d)(x)))
#define DS_FN dihedral_colour_sse2
#include "dihedral_simd_body.h"
#undef DS_W
#undef DS_V
#undef DS_VI
#undef DS_NAME
#undef DS_SQRT
#undef DS_ATAN2
#undef DS_FN

PBD_SIMD_TARGET_AVX2
typedef double ds_v4 __attribute__((vector_size(32)));
typedef long ds_l4 __attribute__((vector_size(32)));
extern __m256d Sleef_finz_atan2d4_u35avx2(__m256d, __m256d);
/* 4 hinges' index rows (4 each, contiguous): ix[j] = the j-th index of each, a 4×4
 * transpose of 32-bit words */
static inline void ds4_contiguous(const int32_t *idx, int32_t ix[4][4])
{
    __m128i r0 = _mm_loadu_si128((const __m128i *)idx), r1 = _mm_loadu_si128((const __m128i *)(idx + 4));
    __m128i r2 = _mm_loadu_si128((const __m128i *)(idx + 8)), r3 = _mm_loadu_si128((const __m128i *)(idx + 12));
    __m128i t0 = _mm_unpacklo_epi32(r0, r1), t1 = _mm_unpacklo_epi32(r2, r3); /* a0 a1 b0 b1, a2 a3 b2 b3 */
    __m128i t2 = _mm_unpackhi_epi32(r0, r1), t3 = _mm_unpackhi_epi32(r2, r3); /* c0 c1 d0 d1, ... */
    _mm_storeu_si128((__m128i *)ix[0], _mm_unpacklo_epi64(t0, t1));
    _mm_storeu_si128((__m128i *)ix[1], _mm_unpackhi_epi64(t0, t1));
    _mm_storeu_si128((__m128i *)ix[2], _mm_unpacklo_epi64(t2, t3));
    _mm_storeu_si128((__m128i *)ix[3], _mm_unpackhi_epi64(t2, t3));
}
#include "simd4.h"
#define DS_CONTIGUOUS ds4_contiguous
#define DS_LOAD_XYZ simd4_load_xyz
#define DS_GATHERW simd4_gather1
#define DS_SCATTER simd4_store_xyz
#define DS_STORE_MASKED simd4_store_masked
#define DS_W 4
#define DS_V ds_v4
#define DS_VI ds_l4
#define DS_NAME(x) ds4_##x
#define DS_SQRT(v) ((ds_v4)_mm256_sqrt_pd((__m256d)(v)))
#define DS_ATAN2(y, x) ((ds_v4)Sleef_finz_atan2d4_u35avx2((__m256d)(y), (__m256d)(x)))
#define DS_FN dihedral_colour_avx2
#include "dihedral_simd_body.h"
#undef DS_CONTIGUOUS
#undef DS_LOAD_XYZ
#undef DS_GATHERW
#undef DS_SCATTER
#undef DS_STORE_MASKED
#undef DS_W
#undef DS_V
#undef DS_VI
#undef DS_NAME
#undef DS_SQRT
#undef DS_ATAN2
#undef DS_FN
PBD_SIMD_TARGET_END

PBD_SIMD_TARGET_AVX512
typedef double ds_v8 __attribute__((vector_size(64)));
typedef long ds_l8 __attribute__((vector_size(64)));
extern __m512d Sleef_finz_atan2d8_u35avx512f(__m512d, __m512d);
/* 8 hinges' index rows (4 each, contiguous): ix[j] = the j-th index of each */
static inline void ds8_contiguous(const int32_t *idx, int32_t ix[4][8])
{
    __m512i lo = _mm512_loadu_si512((const void *)idx), hi = _mm512_loadu_si512((const void *)(idx + 16));
    for (int j = 0; j < 4; j++) {
        __m512i sel = _mm512_setr_epi32(j, j + 4, j + 8, j + 12, j + 16, j + 20, j + 24, j + 28,
                                        0, 0, 0, 0, 0, 0, 0, 0);
        _mm256_storeu_si256((__m256i *)ix[j],
                            _mm512_castsi512_si256(_mm512_permutex2var_epi32(lo, sel, hi)));
    }
}
#include "simd8.h"
#define DS_CONTIGUOUS ds8_contiguous
#define DS_LOAD_XYZ simd8_load_xyz
#define DS_GATHERW simd8_gather1
#define DS_SCATTER simd8_store_xyz
#define DS_STORE_MASKED simd8_store_masked
#define DS_W 8
#define DS_V ds_v8
#define DS_VI ds_l8
#define DS_NAME(x) ds8_##x
#define DS_SQRT(v) ((ds_v8)_mm512_sqrt_pd((__m512d)(v)))
#define DS_ATAN2(y, x) ((ds_v8)Sleef_finz_atan2d8_u35avx512f((__m512d)(y), (__m512d)(x)))
#define DS_FN dihedral_colour_avx512
#include "dihedral_simd_body.h"
#undef DS_CONTIGUOUS
#undef DS_LOAD_XYZ
#undef DS_GATHERW
#undef DS_SCATTER
#undef DS_STORE_MASKED
#undef DS_W
#undef DS_V
#undef DS_VI
#undef DS_NAME
#undef DS_SQRT
#undef DS_ATAN2
#undef DS_FN
PBD_SIMD_TARGET_END

/* PBD_SIMD_WIDTH (2, 4 or 8) caps the width, read once: e.g. 4 measures the AVX2 path on an
 * AVX-512 machine (experiments/programs/README.md). An unset variable is 0 (no cap), a value
 * other than 2, 4, 8 is -1: ignored here, refused up front by the programs
 * (pbd_simd_width_forced). */
int pbd_simd_width_forced(void)
{
    static _Atomic int cached = -2; /* -2: not read yet */
    int v = atomic_load_explicit(&cached, memory_order_relaxed);
    if (v == -2) {
        const char *e = getenv("PBD_SIMD_WIDTH");
        v = !e || !*e ? 0 : strcmp(e, "8") == 0 ? 8 : strcmp(e, "4") == 0 ? 4 : strcmp(e, "2") == 0 ? 2 : -1;
        atomic_store_explicit(&cached, v, memory_order_relaxed);
    }
    return v;
}

/* The widest the CPU allows, capped by the test hook pbd_test_simd_width, else by
 * PBD_SIMD_WIDTH. */
int pbd_simd_width(void)
{
    int forced = pbd_simd_width_forced();
    int want = pbd_test_simd_width > 0 ? pbd_test_simd_width : forced > 0 ? forced : 8;
    if (want >= 8 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512dq"))
        return 8;
    if (want >= 4 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return 4;
    return 2;
}

const char *pbd_simd_isa(int width)
{
    return width >= 8 ? "AVX-512" : width == 4 ? "AVX2" : "SSE2";
}

static int dihedral_colour(const pbd_batch *b, const int32_t *rows, int begin, int end, int xpbd)
{
    switch (pbd_simd_width()) {
    case 8:
        return dihedral_colour_avx512(b, rows, begin, end, xpbd);
    case 4:
        return dihedral_colour_avx2(b, rows, begin, end, xpbd);
    default:
        return dihedral_colour_sse2(b, rows, begin, end, xpbd);
    }
}

int pbd_dihedral_colour_pbd(const pbd_batch *b, const int32_t *rows, int begin, int end)
{
    return dihedral_colour(b, rows, begin, end, 0);
}

int pbd_dihedral_colour_xpbd(const pbd_batch *b, const int32_t *rows, int begin, int end)
{
    return dihedral_colour(b, rows, begin, end, 1);
}
