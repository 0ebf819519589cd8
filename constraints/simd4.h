/* Private to constraints/: 4-lane (AVX2) helpers of the SIMD colour kernels
 * (distance_simd.c, bend_dihedral_simd.c), included inside their AVX2 target region; the
 * 4-lane counterparts of simd8.h. Each particle's x y z is read as one 128-bit and one 64-bit
 * load and the four are transposed in registers (and written back the same way), instead of
 * the CPU's gathers (distance) or a copy through the stack (dihedral): measured on an
 * AVX-512 Xeon forced to 4 lanes (experiments/programs/README.md "The AVX2 path"). */
#ifndef PBD_SIMD4_H
#define PBD_SIMD4_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

typedef double simd4_v __attribute__((vector_size(32)));
typedef long simd4_l __attribute__((vector_size(32)));

/* [x y z 0] of particle i */
static inline __m256d simd4_xyz0(const double *base, int32_t i)
{
    const double *p = base + 3 * (size_t)i;
    return _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(p)), _mm_load_sd(p + 2), 1);
}

/* The x, y, z of the 4 particles i[0..3], transposed in registers. */
static inline void simd4_load_xyz(const double *base, const int32_t *i, simd4_v *x, simd4_v *y, simd4_v *z)
{
    __m256d p0 = simd4_xyz0(base, i[0]), p1 = simd4_xyz0(base, i[1]);
    __m256d p2 = simd4_xyz0(base, i[2]), p3 = simd4_xyz0(base, i[3]);
    __m256d t0 = _mm256_unpacklo_pd(p0, p1), t1 = _mm256_unpackhi_pd(p0, p1); /* x0 x1 z0 z1, y0 y1 0 0 */
    __m256d t2 = _mm256_unpacklo_pd(p2, p3), t3 = _mm256_unpackhi_pd(p2, p3);
    *x = (simd4_v)_mm256_permute2f128_pd(t0, t2, 0x20);
    *y = (simd4_v)_mm256_permute2f128_pd(t1, t3, 0x20);
    *z = (simd4_v)_mm256_permute2f128_pd(t0, t2, 0x31);
}

/* The inverse: x, y, z of lane l back to particle i[l] where m is set. */
static inline void simd4_store_xyz(double *base, const int32_t *i, simd4_l m, simd4_v x, simd4_v y, simd4_v z)
{
    int k = _mm256_movemask_pd((__m256d)m);
    if (!k) return;
    __m256d t0 = _mm256_unpacklo_pd((__m256d)x, (__m256d)y); /* x0 y0 x2 y2 */
    __m256d t1 = _mm256_unpackhi_pd((__m256d)x, (__m256d)y); /* x1 y1 x3 y3 */
    __m128d zl = _mm256_castpd256_pd128((__m256d)z), zh = _mm256_extractf128_pd((__m256d)z, 1);
    __m128d xy[4] = {_mm256_castpd256_pd128(t0), _mm256_castpd256_pd128(t1),
                     _mm256_extractf128_pd(t0, 1), _mm256_extractf128_pd(t1, 1)};
    __m128d zz[4] = {zl, _mm_unpackhi_pd(zl, zl), zh, _mm_unpackhi_pd(zh, zh)};
    for (int l = 0; l < 4; l++)
        if ((k >> l) & 1) {
            double *p = base + 3 * (size_t)i[l];
            _mm_storeu_pd(p, xy[l]);
            _mm_store_sd(p + 2, zz[l]);
        }
}

/* v to p[l] where m is set; returns the lanes not set (the skipped constraints) */
static inline int simd4_store_masked(double *p, simd4_l m, simd4_v v)
{
    int k = _mm256_movemask_pd((__m256d)m);
    if (k == 0xf) _mm256_storeu_pd(p, (__m256d)v);
    else _mm256_maskstore_pd(p, (__m256i)m, (__m256d)v);
    return 4 - __builtin_popcount((unsigned)k);
}

/* base[i[l]] for 4 lanes, by scalar loads */
static inline simd4_v simd4_gather1(const double *base, const int32_t *i)
{
    __m128d a = _mm_loadh_pd(_mm_load_sd(base + i[0]), base + i[1]);
    __m128d b = _mm_loadh_pd(_mm_load_sd(base + i[2]), base + i[3]);
    return (simd4_v)_mm256_insertf128_pd(_mm256_castpd128_pd256(a), b, 1);
}

#endif
