/* Self collision (PBD Sec. 4.3, Eq. 12–13; solver/collision/collision_self.c), suite
 * `collision_self`: a folded strip keeps its layers apart, and a fast particle does not
 * pass through a cloth patch. */
#include "tests.h"
#include "collision_check.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- self collision ------------------------------------------------------------------ */

/* Signed height of q over triangle tri (upward normal) when q's x-z projection lies in the
 * triangle's x-z projection (or anywhere when `extended`); NAN otherwise. */
static double height_over_plane(const pbd_world *w, const int32_t *tri, const double *q,
                                int extended)
{
    const double *p1 = w->x + 3 * tri[0], *p2 = w->x + 3 * tri[1], *p3 = w->x + 3 * tri[2];
    double e1[3], e2[3], nn[3], d[3];
    for (int i = 0; i < 3; i++) {
        e1[i] = p2[i] - p1[i];
        e2[i] = p3[i] - p1[i];
        d[i] = q[i] - p1[i];
    }
    double det = e1[0] * e2[2] - e1[2] * e2[0];
    if (det == 0.0) return NAN;
    double bu = (d[0] * e2[2] - d[2] * e2[0]) / det, bv = (e1[0] * d[2] - e1[2] * d[0]) / det;
    if (!extended && (bu < 0 || bv < 0 || bu + bv > 1)) return NAN;
    nn[0] = e1[1] * e2[2] - e1[2] * e2[1];
    nn[1] = e1[2] * e2[0] - e1[0] * e2[2];
    nn[2] = e1[0] * e2[1] - e1[1] * e2[0];
    double len = norm3(nn);
    if (nn[1] < 0) len = -len; /* upward normal */
    return (d[0] * nn[0] + d[1] * nn[1] + d[2] * nn[2]) / len;
}

static double height_over(const pbd_world *w, const int32_t *tri, const double *q)
{
    return height_over_plane(w, tri, q, 0);
}

/* A strip of cloth folded like a hairpin: the lower layer (y = 0) lies on a ground plane,
 * the upper layer starts `gap` above it and falls onto it under gravity. With self collision
 * (thickness h = 1 cm) no upper vertex may pass through a lower triangle: every upper vertex
 * over the lower layer ends at least 0.5 h above it. Without self collision the upper layer
 * falls through (the control shows the check can fail). */
static void fold(int self, double gap, int substeps, double *min_gap, int *through)
{
    const int nx = 11, nz = 4;          /* columns along x per layer, rows along z */
    const double a = 0.05;              /* edge length */
    /* vertices: lower layer (j = 0..nx-1) at y = 0, then the bend (one column at x = nx a,
     * y = gap/2), then the upper layer back from x = (nx-1) a to 0 at y = gap */
    const int cols = 2 * nx + 1, n = cols * nz;
    pbd_world *w = pbd_world_create(n);
    for (int c = 0; c < cols; c++)
        for (int k = 0; k < nz; k++) {
            double x[3];
            if (c < nx) { x[0] = a * c; x[1] = 0.0; }
            else if (c == nx) { x[0] = a * nx; x[1] = gap / 2; }
            else { x[0] = a * (2 * nx - c); x[1] = gap; }
            x[2] = a * k;
            pbd_world_set_particle(w, c * nz + k, x, NULL, 0.001);
        }
    int set = pbd_world_add_set(w, &pbd_distance_type, 0);
    int32_t tris[2 * 3 * 2 * 24 * 4];
    int nt = 0;
    for (int c = 0; c + 1 < cols; c++)
        for (int k = 0; k < nz; k++) {
            int v = c * nz + k;
            const int32_t e1[2] = {v, v + nz};
            pbd_set_add(w, set, e1, NULL, 1.0, 0.0);
            if (k + 1 < nz) {
                const int32_t e2[2] = {v, v + 1}, e3[2] = {v, v + nz + 1};
                pbd_set_add(w, set, e2, NULL, 1.0, 0.0);
                pbd_set_add(w, set, e3, NULL, 1.0, 0.0);
                const int32_t t1[3] = {v, v + 1, v + nz + 1}, t2[3] = {v, v + nz + 1, v + nz};
                memcpy(tris + 3 * nt++, t1, sizeof t1);
                memcpy(tris + 3 * nt++, t2, sizeof t2);
            }
        }
    for (int k = 0; k + 1 < nz; k++) { /* last column's rows */
        const int32_t e[2] = {(cols - 1) * nz + k, (cols - 1) * nz + k + 1};
        pbd_set_add(w, set, e, NULL, 1.0, 0.0);
    }
    const double o[3] = {0, 0, 0}, up[3] = {0, 1, 0};
    pbd_material m = mat(0.5, 0.4, 0.0);
    pbd_world_add_plane(w, o, up, &m);
    const double h = 0.01;
    if (self) CU_ASSERT_EQUAL(pbd_world_enable_self_collision(w, tris, nt, h), PBD_OK);
    w->def.dt = 1.0 / 60.0;
    w->def.substeps = substeps;
    w->def.iterations = 10;
    for (int s = 0; s < 120; s++) CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
    /* upper vertices (columns nx+2 .. 2nx, away from the bend) against the lower layer's
     * triangles (columns 0 .. nx-2): height over the lower layer where they lie over it */
    *min_gap = INFINITY;
    *through = 0;
    for (int c = nx + 2; c < cols; c++)
        for (int k = 0; k < nz; k++) {
            const double *q = w->x + 3 * (c * nz + k);
            for (int t = 0; t < nt; t++) {
                const int32_t *tri = tris + 3 * t;
                if (tri[0] / nz >= nx - 1) continue; /* lower layer only */
                double height = height_over(w, tri, q);
                if (isnan(height)) continue;
                *min_gap = fmin(*min_gap, height);
                if (height < 0.0) (*through)++;
            }
        }
    if (self) CU_ASSERT(pbd_world_collision_stats(w).dropped == 0);
    pbd_world_free(w);
}

static void test_self_collision_fold(void)
{
    const double h = 0.01;
    /* from 4 cm with 4 substeps (the upper layer approaches by less than h per substep: the
     * proximity test), and from 25 cm with 1 substep (about 2.2 m/s at impact, 3.7 cm per
     * step: it would jump the thickness, the continuous test has to catch it) */
    const double gaps[2] = {0.04, 0.25};
    const int subs[2] = {4, 1};
    for (int k = 0; k < 2; k++) {
        double gap_on, gap_off;
        int through_on, through_off;
        fold(1, gaps[k], subs[k], &gap_on, &through_on);
        fold(0, gaps[k], subs[k], &gap_off, &through_off);
        printf("\n    fold from %.2f m, %d substep(s): with self collision the upper layer ends "
               "%.4f m over the lower (h = %.2f), %d vertices through; without: %.4f m, %d through ",
               gaps[k], subs[k], gap_on, h, through_on, gap_off, through_off);
        CU_ASSERT(isfinite(gap_on));
        CU_ASSERT_EQUAL(through_on, 0);
        CU_ASSERT(gap_on >= 0.5 * h);
        CU_ASSERT(gap_off < 0.5 * h); /* the control: without it the layers meet or cross */
    }
}

/* A fast free particle shot at a cloth patch with a pinned border: with self collision it
 * stays on its side (continuous test: it would cross in one substep), without it passes. */
/* ...; *first: after the first step, the particle's height over the (extended) plane of the
 * patch triangle its straight path crosses. */
static double shoot(int self, const double x[3], const double v[3], double *first)
{
    const int r = 5;
    const double a = 0.1;
    pbd_world *w = pbd_world_create(r * r + 1);
    int32_t tris[2 * 3 * 16];
    int nt = 0;
    for (int j = 0; j < r; j++)
        for (int i = 0; i < r; i++) {
            const double x[3] = {a * i, 0.0, a * j};
            int border = i == 0 || j == 0 || i == r - 1 || j == r - 1;
            pbd_world_set_particle(w, j * r + i, x, NULL, border ? 0.0 : 0.01);
            if (i + 1 < r && j + 1 < r) {
                int v = j * r + i;
                const int32_t t1[3] = {v, v + 1, v + r + 1}, t2[3] = {v, v + r + 1, v + r};
                memcpy(tris + 3 * nt++, t1, sizeof t1);
                memcpy(tris + 3 * nt++, t2, sizeof t2);
            }
        }
    int set = pbd_world_add_set(w, &pbd_distance_type, 0);
    for (int t = 0; t < nt; t++)
        for (int e = 0; e < 3; e++) {
            const int32_t ed[2] = {tris[3 * t + e], tris[3 * t + (e + 1) % 3]};
            pbd_set_add(w, set, ed, NULL, 1.0, 0.0);
        }
    pbd_world_set_particle(w, r * r, x, v, 0.002);
    w->def.gravity[1] = 0.0;
    w->def.iterations = 20;
    if (self) pbd_world_enable_self_collision(w, tris, nt, 0.005);
    /* the particle's height over the patch triangle under it, lowest over the run */
    double lowest = INFINITY;
    for (int s = 0; s < 20; s++) {
        pbd_step(w);
        if (s == 0) { /* the triangle whose rest outline (x-z) holds the crossing point c */
            double t = x[1] / (-v[1] * w->def.dt), cx = x[0] + t * v[0] * w->def.dt, cz = x[2];
            *first = NAN;
            for (int k = 0; k < nt; k++) {
                const int32_t *tri = tris + 3 * k;
                double px[3], pz[3];
                for (int j = 0; j < 3; j++) {
                    px[j] = a * (tri[j] % r);
                    pz[j] = a * (tri[j] / r);
                }
                double det = (px[1] - px[0]) * (pz[2] - pz[0]) - (pz[1] - pz[0]) * (px[2] - px[0]);
                double bu = ((cx - px[0]) * (pz[2] - pz[0]) - (cz - pz[0]) * (px[2] - px[0])) / det;
                double bv = ((px[1] - px[0]) * (cz - pz[0]) - (pz[1] - pz[0]) * (cx - px[0])) / det;
                if (bu >= 0 && bv >= 0 && bu + bv <= 1)
                    *first = height_over_plane(w, tri, w->x + 3 * r * r, 1);
            }
        }
        for (int t = 0; t < nt; t++) {
            double hq = height_over(w, tris + 3 * t, w->x + 3 * r * r);
            if (!isnan(hq)) lowest = fmin(lowest, hq);
        }
        if (w->x[3 * r * r + 1] < -1.0) break; /* gone through, far below */
    }
    pbd_world_free(w);
    return lowest;
}

static void test_self_collision_particle_through_patch(void)
{
    /* straight down at 20 m/s: crosses the patch (plane y = 0) within one step */
    const double x[3] = {0.23, 0.05, 0.17}, v[3] = {0, -20, 0};
    double first, with = shoot(1, x, v, &first), without = shoot(0, x, v, &first);
    printf("\n    lowest height of the particle over the patch: %.4f m with self collision "
           "(h = 0.005), %.4f m without ", with, without);
    CU_ASSERT(with >= 0.5 * 0.005);
    CU_ASSERT(without < 0.0);
    /* diagonally: the path crosses the patch at x = 0.345 but ends at x = 0.43, beyond its
     * outline (x <= 0.4), so only the continuous test (crossing inside the triangle) sees it;
     * the constraint keeps it above the triangle's plane */
    const double xd[3] = {0.33, 0.05, 0.25}, vd[3] = {6, -20, 0};
    double h_with, h_without;
    shoot(1, xd, vd, &h_with);
    shoot(0, xd, vd, &h_without);
    printf("\n    diagonal shot, height over the crossed triangle's plane after the step: "
           "%.4f m with, %.4f m without ", h_with, h_without);
    CU_ASSERT(h_with >= 0.5 * 0.005);
    CU_ASSERT(h_without < -0.2);
}

void register_collision_self_tests(void)
{
    CU_pSuite s = CU_add_suite("collision_self", NULL, NULL);
    CU_add_test(s, "self_collision_fold", test_self_collision_fold);
    CU_add_test(s, "self_collision_particle_through_patch", test_self_collision_particle_through_patch);
}
