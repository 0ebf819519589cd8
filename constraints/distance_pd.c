/* The distance constraint's projection for Projective Dynamics' local step (PD, Bouaziz et
 * al. 2014, Sec. 5 "springs"): p = d (x_a − x_b)/|x_a − x_b|, written (d/ℓ)(x_a − x_b), 3
 * doubles per constraint; ℓ = 0 gives p = x_a − x_b. Four springs at a time with AVX2 where
 * the CPU has it (pbd_simd_width() ≥ 4), the same operations in the same order as the scalar
 * loop: the same bits. */
#include "pbd_constraint.h"
#include "simd_target.h"

#include <math.h>
#include <stddef.h>

static void targets_scalar(const double *x, const int32_t *idx, const double *rest, int n_rest,
                           int lo, int hi, double *t)
{
    for (int c = lo; c < hi; c++) {
        const double *a = x + 3 * (size_t)idx[2 * c], *b = x + 3 * (size_t)idx[2 * c + 1];
        const double d0 = a[0] - b[0], d1 = a[1] - b[1], d2 = a[2] - b[2];
        const double len = sqrt(d0 * d0 + d1 * d1 + d2 * d2);
        const double sc = len > 0.0 ? rest[(size_t)c * n_rest] / len : 1.0;
        t[3 * (size_t)c] = sc * d0;
        t[3 * (size_t)c + 1] = sc * d1;
        t[3 * (size_t)c + 2] = sc * d2;
    }
}

PBD_SIMD_TARGET_AVX2
#include "simd4.h"

static void targets_avx2(const double *x, const int32_t *idx, const double *rest, int n_rest,
                         int lo, int hi, double *t)
{
    int c = lo;
    for (; c + 4 <= hi; c += 4) {
        const int32_t *q = idx + 2 * (size_t)c;
        const int32_t ia[4] = {q[0], q[2], q[4], q[6]}, ib[4] = {q[1], q[3], q[5], q[7]};
        simd4_v ax, ay, az, bx, by, bz;
        simd4_load_xyz(x, ia, &ax, &ay, &az);
        simd4_load_xyz(x, ib, &bx, &by, &bz);
        const simd4_v dx = ax - bx, dy = ay - by, dz = az - bz;
        const simd4_v len = (simd4_v)_mm256_sqrt_pd((__m256d)(dx * dx + dy * dy + dz * dz));
        const double *r = rest + (size_t)c * n_rest;
        const simd4_v d = {r[0], r[n_rest], r[2 * n_rest], r[3 * n_rest]};
        const simd4_v one = {1.0, 1.0, 1.0, 1.0};
        const simd4_v sc = (simd4_v)_mm256_blendv_pd((__m256d)one, (__m256d)(d / len),
                                                     (__m256d)(len > 0.0));
        const simd4_v tx = sc * dx, ty = sc * dy, tz = sc * dz;
        double *o = t + 3 * (size_t)c;
        for (int l = 0; l < 4; l++) {
            o[3 * l] = tx[l];
            o[3 * l + 1] = ty[l];
            o[3 * l + 2] = tz[l];
        }
    }
    targets_scalar(x, idx, rest, n_rest, c, hi, t);
}
PBD_SIMD_TARGET_END

void pbd_distance_pd_targets(const double *x, const int32_t *idx, const double *rest,
                             int n_rest, int lo, int hi, double *t)
{
    if (pbd_simd_width() >= 4) targets_avx2(x, idx, rest, n_rest, lo, hi, t);
    else targets_scalar(x, idx, rest, n_rest, lo, hi, t);
}
