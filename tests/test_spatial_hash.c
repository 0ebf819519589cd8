/* The spatial hash (solver/spatial_hash.c) against brute force. */
#include "tests.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Distance from y to the triangle (a, b, c): the plane when y projects inside, else the
 * nearest of the three edges (an independent formula, not the solver's). */
static double seg_dist(const double *y, const double *a, const double *b)
{
    double ab[3], ay[3];
    for (int k = 0; k < 3; k++) {
        ab[k] = b[k] - a[k];
        ay[k] = y[k] - a[k];
    }
    double l2 = ab[0] * ab[0] + ab[1] * ab[1] + ab[2] * ab[2];
    double t = l2 > 0 ? (ay[0] * ab[0] + ay[1] * ab[1] + ay[2] * ab[2]) / l2 : 0.0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    double d2 = 0;
    for (int k = 0; k < 3; k++) {
        double e = ay[k] - t * ab[k];
        d2 += e * e;
    }
    return sqrt(d2);
}

static double tri_dist(const double *y, const double *a, const double *b, const double *c)
{
    double ab[3], ac[3], n[3], ay[3];
    for (int k = 0; k < 3; k++) {
        ab[k] = b[k] - a[k];
        ac[k] = c[k] - a[k];
        ay[k] = y[k] - a[k];
    }
    n[0] = ab[1] * ac[2] - ab[2] * ac[1];
    n[1] = ab[2] * ac[0] - ab[0] * ac[2];
    n[2] = ab[0] * ac[1] - ab[1] * ac[0];
    double nn = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    double best = fmin(seg_dist(y, a, b), fmin(seg_dist(y, b, c), seg_dist(y, c, a)));
    if (nn > 0) {
        double h = (ay[0] * n[0] + ay[1] * n[1] + ay[2] * n[2]) / nn, proj[3];
        for (int k = 0; k < 3; k++) proj[k] = y[k] - h * n[k] / nn;
        /* inside when the three sub-areas all have n's orientation */
        const double *v[3] = {a, b, c};
        int in = 1;
        for (int e = 0; e < 3; e++) {
            const double *p = v[e], *q = v[(e + 1) % 3];
            double pq[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]};
            double pp[3] = {proj[0] - p[0], proj[1] - p[1], proj[2] - p[2]};
            double cr[3] = {pq[1] * pp[2] - pq[2] * pp[1], pq[2] * pp[0] - pq[0] * pp[2],
                            pq[0] * pp[1] - pq[1] * pp[0]};
            if (cr[0] * n[0] + cr[1] * n[1] + cr[2] * n[2] < 0) in = 0;
        }
        if (in) best = fmin(best, fabs(h));
    }
    return best;
}

/* For random points and triangles: (1) a box query returns exactly the points inside the
 * box, each once; (2) every (point, triangle) pair closer than r (brute force over all
 * pairs) is among the candidates of the triangle's bounding box grown by r. Cell sizes
 * from much smaller than the triangles (the scan fallback) to much larger. */
static void test_vs_brute_force(void)
{
    const int n_pts = 1500, n_tri = 200;
    double *pts = malloc(3 * n_pts * sizeof *pts), *tv = malloc(9 * n_tri * sizeof *tv);
    int32_t *out = malloc(n_pts * sizeof *out);
    char *hit = malloc(n_pts);
    const double cells[] = {0.003, 0.05, 0.12, 0.5, 3.0};
    long pairs = 0, candidates = 0;
    for (unsigned seed = 1; seed <= 3; seed++) {
        pbd_rng r;
        pbd_rng_seed(&r, seed);
        for (int i = 0; i < 3 * n_pts; i++) pts[i] = pbd_rng_range(&r, -1.0, 1.0);
        for (int t = 0; t < n_tri; t++) {
            double c[3];
            for (int k = 0; k < 3; k++) c[k] = pbd_rng_range(&r, -1.0, 1.0);
            for (int j = 0; j < 3; j++)
                for (int k = 0; k < 3; k++) tv[9 * t + 3 * j + k] = c[k] + pbd_rng_range(&r, -0.1, 0.1);
        }
        for (unsigned ci = 0; ci < sizeof cells / sizeof cells[0]; ci++) {
            pbd_spatial_hash *h = pbd_spatial_hash_create(n_pts, cells[ci]);
            CU_ASSERT_PTR_NOT_NULL_FATAL(h);
            CU_ASSERT_EQUAL(pbd_spatial_hash_build(h, pts, NULL, n_pts), PBD_OK);
            const double rq = 0.04;
            for (int t = 0; t < n_tri; t++) {
                const double *a = tv + 9 * t, *b = a + 3, *c = a + 6;
                double lo[3], hi[3];
                for (int k = 0; k < 3; k++) {
                    lo[k] = fmin(a[k], fmin(b[k], c[k])) - rq;
                    hi[k] = fmax(a[k], fmax(b[k], c[k])) + rq;
                }
                int m = pbd_spatial_hash_query(h, lo, hi, out, n_pts);
                CU_ASSERT_FATAL(m <= n_pts);
                memset(hit, 0, n_pts);
                int dup = 0;
                for (int j = 0; j < m; j++) dup += hit[out[j]]++ > 0;
                CU_ASSERT_EQUAL(dup, 0);
                for (int i = 0; i < n_pts; i++) {
                    const double *y = pts + 3 * i;
                    int in_box = y[0] >= lo[0] && y[0] <= hi[0] && y[1] >= lo[1] &&
                                 y[1] <= hi[1] && y[2] >= lo[2] && y[2] <= hi[2];
                    CU_ASSERT_EQUAL(in_box, hit[i]); /* exactly the points in the box */
                    if (tri_dist(y, a, b, c) <= rq) {
                        pairs++;
                        CU_ASSERT(hit[i]); /* the brute-force pair is a candidate */
                    }
                }
                candidates += m;
            }
            pbd_spatial_hash_free(h);
        }
    }
    printf("\n    %ld brute-force pairs within r, all among %ld candidates ", pairs, candidates);
    CU_ASSERT(pairs > 100); /* the test exercised something */
    free(pts);
    free(tv);
    free(out);
    free(hit);
}

/* Clustered points (all in one cell), negative coordinates, an id list, truncation. */
static void test_ids_cluster_truncation(void)
{
    const int n = 64;
    double pts[3 * 64];
    int32_t ids[32], out[64];
    for (int i = 0; i < n; i++) {
        pts[3 * i] = -5.0 + 1e-4 * i;
        pts[3 * i + 1] = -5.0;
        pts[3 * i + 2] = -5.0 - 1e-4 * (i % 3);
    }
    for (int k = 0; k < 32; k++) ids[k] = 2 * k; /* every other point */
    pbd_spatial_hash *h = pbd_spatial_hash_create(32, 1.0);
    CU_ASSERT_EQUAL(pbd_spatial_hash_build(h, pts, ids, 32), PBD_OK);
    const double lo[3] = {-6, -6, -6}, hi[3] = {-4, -4, -4};
    int m = pbd_spatial_hash_query(h, lo, hi, out, 64);
    CU_ASSERT_EQUAL(m, 32);
    for (int j = 0; j < m; j++) CU_ASSERT_EQUAL(out[j] % 2, 0);
    CU_ASSERT_EQUAL(pbd_spatial_hash_query(h, lo, hi, out, 5), 32); /* count beyond max_out */
    const double lo2[3] = {-5.00005, -5.1, -5.1}, hi2[3] = {-4.99985, -4.9, -4.9};
    CU_ASSERT_EQUAL(pbd_spatial_hash_query(h, lo2, hi2, out, 64), 1); /* only x = -5 + 2e-4·0 */
    CU_ASSERT_EQUAL(pbd_spatial_hash_build(h, pts, NULL, 33), PBD_EINVAL); /* over capacity */
    CU_ASSERT_EQUAL(pbd_spatial_hash_set_cell_size(h, 0.0), PBD_EINVAL);
    CU_ASSERT_EQUAL(pbd_spatial_hash_set_cell_size(h, NAN), PBD_EINVAL);
    CU_ASSERT_DOUBLE_EQUAL(pbd_spatial_hash_cell_size(h), 1.0, 0.0);
    const double bad_lo[3] = {NAN, 0, 0};
    CU_ASSERT_EQUAL(pbd_spatial_hash_query(h, bad_lo, hi, out, 64), 0);
    pbd_spatial_hash_free(h);
}

/* Mean edge length: a 3-4-5 triangle and a unit square of two triangles. */
static void test_mean_edge(void)
{
    const double x[] = {0, 0, 0, 3, 0, 0, 0, 4, 0, 3, 4, 0};
    const int32_t one[] = {0, 1, 2}, two[] = {0, 1, 3, 0, 3, 2};
    CU_ASSERT_DOUBLE_EQUAL(pbd_mean_edge_length(x, one, 1), 4.0, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(pbd_mean_edge_length(x, two, 2), (3 + 4 + 5 + 5 + 4 + 3) / 6.0, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(pbd_mean_edge_length(x, one, 0), 0.0, 0.0);
}

void register_spatial_hash_tests(void)
{
    CU_pSuite s = CU_add_suite("spatial_hash", NULL, NULL);
    CU_add_test(s, "vs_brute_force", test_vs_brute_force);
    CU_add_test(s, "ids_cluster_truncation", test_ids_cluster_truncation);
    CU_add_test(s, "mean_edge", test_mean_edge);
}
