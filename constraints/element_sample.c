/* Random elements for the material types' `sample` functions (fem.h): a well-shaped rest
 * tetrahedron or triangle, a random material and component, and a deformed current
 * configuration; near-degenerate ones when asked (flat, inverted, collapsed, collinear,
 * exactly at rest, a sliver at rest). */
#include "fem.h"
#include "sample_shapes.h"

/* A random rotation (the unit quaternion of a Gaussian 4-vector). */
static void random_rotation(pbd_rng *r, double *Q)
{
    double q[4];
    pbd_rng_unit(r, q, 4, 1e-3);
    double w = q[0], x = q[1], y = q[2], z = q[3];
    double M[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
                   2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                   2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)};
    for (int k = 0; k < 9; k++) Q[k] = M[k];
}

/* x_i = c' + A (X_i − c), c the centroid, c' a random point. */
static void deform(pbd_rng *r, const double *X, int n, const double *A, double *x)
{
    double c[3] = {0, 0, 0}, c2[3];
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) c[k] += X[3 * i + k] / n;
    ss_box(r, c2);
    for (int i = 0; i < n; i++) {
        double d[3];
        v3_sub(d, X + 3 * i, c);
        for (int a = 0; a < 3; a++)
            x[3 * i + a] = c2[a] + A[3 * a] * d[0] + A[3 * a + 1] * d[1] + A[3 * a + 2] * d[2];
    }
}

/* Point i moved to within 1e-9 (relative) of the plane of the others (n = 4), or of the line
 * through the others (n = 3). */
static void flatten(pbd_rng *r, double *x, int n, int i)
{
    const double *o = x + 3 * ((i + 1) % n), *a = x + 3 * ((i + 2) % n);
    double e[3], d[3];
    v3_sub(e, a, o);
    v3_sub(d, x + 3 * i, o);
    double L = sqrt(fem_longest_edge2(x, n));
    if (n == 4) {
        double f[3], m[3];
        v3_sub(f, x + 3 * ((i + 3) % n), o);
        v3_cross(m, e, f);
        v3_scale(m, m, 1.0 / v3_norm(m));
        v3_axpy(x + 3 * i, pbd_rng_range(r, -1e-9, 1e-9) * L - v3_dot(d, m), m);
    } else {
        double t = v3_dot(d, e) / v3_dot(e, e), p[3], u[3];
        v3_copy(p, o);
        v3_axpy(p, t, e);
        v3_sub(u, x + 3 * i, p);
        double un = v3_norm(u);
        if (un > 0.0) v3_axpy(x + 3 * i, pbd_rng_range(r, -1e-9, 1e-9) * L / un - 1.0, u);
    }
}

/* A rest shape of good quality: 6|V| >= 0.35 L³ (regular tet: 0.71), |e1 × e2| >= 0.5 L²
 * (equilateral: 0.87), L the longest edge — so that the element's thinnest direction, on which
 * its C varies fastest, stays comparable with the checker's length scale. A jittered regular
 * tet or triangle (each coordinate ± 0.12 of the edge), in either orientation, rotated, scaled
 * by [0.5, 2] and placed in the box [-3, 3]³: nearly always accepted at the first draw. */
static void good_shape(pbd_rng *r, double *X, int n)
{
    static const double tet[12] = {1, 1, 1, 1, -1, -1, -1, 1, -1, -1, -1, 1}; /* edge √8 */
    static const double tri[9] = {0, 0, 0, 1, 0, 0, 0.5, 0.8660254037844386, 0};
    for (;;) {
        double Q[9], c[3], s = pbd_rng_range(r, 0.5, 2.0), Y[12];
        random_rotation(r, Q);
        ss_box(r, c);
        for (int i = 0; i < n; i++)
            for (int k = 0; k < 3; k++)
                Y[3 * i + k] = (n == 4 ? tet[3 * i + k] / sqrt(8.0) : tri[3 * i + k]) +
                               pbd_rng_range(r, -0.12, 0.12);
        if (pbd_rng_uniform(r) < 0.5) /* the other orientation */
            for (int k = 0; k < 3; k++) {
                double t = Y[3 + k];
                Y[3 + k] = Y[6 + k];
                Y[6 + k] = t;
            }
        for (int i = 0; i < n; i++)
            for (int a = 0; a < 3; a++)
                X[3 * i + a] = c[a] + s * (Q[3 * a] * Y[3 * i] + Q[3 * a + 1] * Y[3 * i + 1] +
                                           Q[3 * a + 2] * Y[3 * i + 2]);
        double L2 = fem_longest_edge2(X, n), e1[3], e2[3], m[3];
        v3_sub(e1, X + 3, X);
        v3_sub(e2, X + 6, X);
        v3_cross(m, e1, e2);
        if (n == 3 && v3_norm(m) >= 0.5 * L2) return;
        if (n == 4) {
            double e3[3];
            v3_sub(e3, X + 9, X);
            if (fabs(v3_dot(e3, m)) >= 0.35 * L2 * sqrt(L2)) return;
        }
    }
}

int fem_sample_element(pbd_rng *r, int degenerate, int n, pbd_material_fn material,
                       int n_components, double nu_max, double *x, double *rest)
{
    double X[12], A[9], Q[9];
    int mode = degenerate ? (int)(pbd_rng_next(r) % 7) : -1;
    good_shape(r, X, n);
    double E = pbd_rng_range(r, 0.5, 2.0), nu = pbd_rng_range(r, 0.0, nu_max);
    int comp = (int)(pbd_rng_next(r) % (uint64_t)n_components);
    if (mode == 4) flatten(r, X, n, (int)(pbd_rng_next(r) % (uint64_t)n)); /* sliver at rest */
    pbd_eval_input in = {X, n, NULL, NULL, 0};
    material(&in, E, nu, comp, rest);
    for (;;) {
        /* A = Q (I + s G): a rotation of a random stretch/shear, inverted (a reflection) one
         * time in four */
        random_rotation(r, Q);
        double G[9], s = pbd_rng_range(r, 0.15, 0.4);
        for (int k = 0; k < 9; k++) G[k] = (k % 4 == 0 ? 1.0 : 0.0) + s * pbd_rng_gaussian(r);
        if (pbd_rng_uniform(r) < 0.25)
            for (int a = 0; a < 3; a++) G[3 * a + 2] = -G[3 * a + 2];
        m3_mul(A, Q, G);
        deform(r, X, n, A, x);
        if (degenerate) break;
        double F[9], sg[3];
        if (n == 4) fem_tet_F(x, rest, F);
        else fem_tri_F(x, rest, F);
        int cols = n == 4 ? 3 : 2;
        fem_singular_values(F, cols, sg);
        double lo = fabs(sg[cols - 1]), strain = 0.0;
        for (int k = 0; k < cols; k++) strain = fmax(strain, fabs(fabs(sg[k]) - 1.0));
        if (sg[0] > 1.6 || lo < 0.6 || strain < 0.2) continue;
        if (cols == 3 && sg[2] < 0.0 && sg[1] - lo < 0.2) continue;
        break;
    }
    switch (mode) {
    case 0: /* nearly flat (tet) or collinear (triangle) now */
        flatten(r, x, n, (int)(pbd_rng_next(r) % (uint64_t)n));
        break;
    case 1: /* nearly coincident */
        for (int i = 1; i < n; i++) ss_gauss3(r, x + 3 * i, x, 1e-8);
        break;
    case 2: { /* nearly collinear */
        double dir[3];
        ss_unit(r, dir);
        for (int i = 1; i < n; i++) {
            ss_gauss3(r, x + 3 * i, x, 1e-9);
            v3_axpy(x + 3 * i, pbd_rng_range(r, -1.0, 1.0), dir);
        }
        break;
    }
    case 3: /* exactly at rest, rigidly moved: F a rotation (zero energy) */
        deform(r, X, n, Q, x);
        break;
    case 5: { /* one vertex reflected through the others' plane: inverted */
        int i = (int)(pbd_rng_next(r) % (uint64_t)n);
        double keep[3];
        v3_copy(keep, x + 3 * i);
        flatten(r, x, n, i);
        double d[3];
        v3_sub(d, x + 3 * i, keep);
        v3_axpy(x + 3 * i, 1.0, d);
        break;
    }
    case 6: /* exactly coincident */
        for (int i = 1; i < n; i++) v3_copy(x + 3 * i, x);
        break;
    default:
        break;
    }
    return n;
}
