/* Private to constraints/: 8-lane (AVX-512) helpers of the SIMD colour kernels
 * (distance_simd.c, bend_dihedral_simd.c), included inside their AVX-512 target region:
 * the positions of 8 particles to and from x, y, z vectors, particle by particle (x y as one
 * 128-bit access, z as one 64-bit), transposed in registers, and a masked store of a
 * per-constraint value. Measured on AMD Zen 5 (1000² cloth, out of cache; 316² in L3):
 * hardware gathers, scatters and masked 256-bit loads and stores were all slower, the masked
 * ones by up to 2× once the particles come from memory. */
#ifndef PBD_SIMD8_H
#define PBD_SIMD8_H

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

typedef double simd8_v __attribute__((vector_size(64)));
typedef long simd8_l __attribute__((vector_size(64)));

/* The inverse: x, y, z of lane l back to particle i[l] where m is set, one masked 256-bit
 * store (3 doubles) per particle, transposed in registers (cheaper than three scatters). */
static inline void simd8_store_xyz(double *base, const int32_t *i, simd8_l m, simd8_v x, simd8_v y, simd8_v z)
{
    unsigned k = _mm512_test_epi64_mask((__m512i)m, (__m512i)m);
    __m512d lo = _mm512_unpacklo_pd((__m512d)x, (__m512d)y); /* x0 y0 x2 y2 x4 y4 x6 y6 */
    __m512d hi = _mm512_unpackhi_pd((__m512d)x, (__m512d)y); /* x1 y1 x3 y3 ... */
    __m512d q[4] = {
        _mm512_permutex2var_pd(lo, _mm512_setr_epi64(0, 1, 8, 8, 2, 3, 10, 10), (__m512d)z),
        _mm512_permutex2var_pd(hi, _mm512_setr_epi64(0, 1, 9, 9, 2, 3, 11, 11), (__m512d)z),
        _mm512_permutex2var_pd(lo, _mm512_setr_epi64(4, 5, 12, 12, 6, 7, 14, 14), (__m512d)z),
        _mm512_permutex2var_pd(hi, _mm512_setr_epi64(4, 5, 13, 13, 6, 7, 15, 15), (__m512d)z),
    }; /* q[0] = particles 0, 2; q[1] = 1, 3; q[2] = 4, 6; q[3] = 5, 7 */
    static const int first[4] = {0, 1, 4, 5};
    for (int a = 0; a < 4; a++) {
        int l = first[a], l2 = l + 2;
        __m256d u = _mm512_castpd512_pd256(q[a]), v = _mm512_extractf64x4_pd(q[a], 1);
        if ((k >> l) & 1) {
            double *p = base + 3 * (size_t)i[l];
            _mm_storeu_pd(p, _mm256_castpd256_pd128(u));
            _mm_store_sd(p + 2, _mm256_extractf128_pd(u, 1));
        }
        if ((k >> l2) & 1) {
            double *p = base + 3 * (size_t)i[l2];
            _mm_storeu_pd(p, _mm256_castpd256_pd128(v));
            _mm_store_sd(p + 2, _mm256_extractf128_pd(v, 1));
        }
    }
}
/* The x, y, z of the 8 particles i[0..7], each read as one masked 256-bit load (x y z) and
 * transposed in registers: fewer loads than three gathers. */
static inline void simd8_load_xyz(const double *base, const int32_t *i, simd8_v *x, simd8_v *y, simd8_v *z)
{
    __m512d p[4];
    for (int k = 0; k < 4; k++) {
        const double *pa = base + 3 * (size_t)i[2 * k], *pb = base + 3 * (size_t)i[2 * k + 1];
        __m256d lo = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(pa)), _mm_load_sd(pa + 2), 1);
        __m256d hi = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(pb)), _mm_load_sd(pb + 2), 1);
        p[k] = _mm512_insertf64x4(_mm512_castpd256_pd512(lo), hi, 1);
    }
    /* p[k] = [x y z 0 | x' y' z' 0] of particles 2k, 2k+1 */
    __m512d l1 = _mm512_unpacklo_pd(p[0], p[1]), h1 = _mm512_unpackhi_pd(p[0], p[1]);
    __m512d l2 = _mm512_unpacklo_pd(p[2], p[3]), h2 = _mm512_unpackhi_pd(p[2], p[3]);
    /* l1 = [x0 x2 z0 z2 x1 x3 z1 z3], h1 = [y0 y2 . . y1 y3 . .] */
    __m512i ix = _mm512_setr_epi64(0, 4, 1, 5, 8, 12, 9, 13);
    __m512i iz = _mm512_setr_epi64(2, 6, 3, 7, 10, 14, 11, 15);
    *x = (simd8_v)_mm512_permutex2var_pd(l1, ix, l2);
    *y = (simd8_v)_mm512_permutex2var_pd(h1, ix, h2);
    *z = (simd8_v)_mm512_permutex2var_pd(l1, iz, l2);
}
/* v to p[l] where m is set; returns the lanes not set (the skipped constraints) */
static inline int simd8_store_masked(double *p, simd8_l m, simd8_v v)
{
    __mmask8 k = _mm512_test_epi64_mask((__m512i)m, (__m512i)m);
    if (k == 0xff) _mm512_storeu_pd(p, (__m512d)v);
    else _mm512_mask_storeu_pd(p, k, (__m512d)v);
    return 8 - __builtin_popcount(k);
}

/* base[i[l]] for 8 lanes, by scalar loads (the gather instruction was slower here) */
static inline simd8_v simd8_gather1(const double *base, const int32_t *i)
{
    __m128d a = _mm_loadh_pd(_mm_load_sd(base + i[0]), base + i[1]);
    __m128d b = _mm_loadh_pd(_mm_load_sd(base + i[2]), base + i[3]);
    __m128d c = _mm_loadh_pd(_mm_load_sd(base + i[4]), base + i[5]);
    __m128d d = _mm_loadh_pd(_mm_load_sd(base + i[6]), base + i[7]);
    __m256d lo = _mm256_insertf128_pd(_mm256_castpd128_pd256(a), b, 1);
    __m256d hi = _mm256_insertf128_pd(_mm256_castpd128_pd256(c), d, 1);
    return (simd8_v)_mm512_insertf64x4(_mm512_castpd256_pd512(lo), hi, 1);
}

#endif
