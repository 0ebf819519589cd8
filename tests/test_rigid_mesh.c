/* Mass properties of closed triangle meshes (solver/rigid/mesh_inertia.c, Eberly's volume
 * integrals): a unit cube and a box against m(b² + c²)/12, a square pyramid (its centre of
 * mass off its vertices' mean) and a regular tetrahedron against their closed forms, a turned
 * and moved pyramid against R I Rᵀ about R c + t (the parallel-axis theorem), the refusals,
 * and a body made from a turned mesh. */
#include "tests.h"
#include "constraints/pbd_constraint.h"
#include "solver/rigid/pbd_rigid.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* The box's corners i = x + 2y + 4z and its 12 triangles, counter-clockwise from outside */
static const int BOX_TRIS[12][3] = {
    {0, 4, 6}, {0, 6, 2}, {1, 3, 7}, {1, 7, 5}, {0, 1, 5}, {0, 5, 4},
    {2, 6, 7}, {2, 7, 3}, {0, 2, 3}, {0, 3, 1}, {4, 5, 7}, {4, 7, 6},
};

/* The square pyramid of base side a (corners 0-3 at z = 0) and apex 4 at height h, its base
 * centred at c: its vertices' mean (h/5 up) is not its centre of mass (h/4 up), so the first
 * moments and the parallel-axis terms do not vanish */
static const int PYRAMID_TRIS[6][3] = {{0, 2, 1}, {0, 3, 2}, {0, 1, 4}, {1, 2, 4}, {2, 3, 4},
                                       {3, 0, 4}};
static void pyramid(double a, double h, const double c[3], double v[5][3])
{
    static const double s[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    for (int i = 0; i < 4; i++) {
        v[i][0] = c[0] + 0.5 * a * s[i][0];
        v[i][1] = c[1] + 0.5 * a * s[i][1];
        v[i][2] = c[2];
    }
    v[4][0] = c[0];
    v[4][1] = c[1];
    v[4][2] = c[2] + h;
}

/* its closed forms: m = ρ a² h/3, centre h/4 above the base, I = m (a²/20 + 3h²/80) across,
 * m a²/10 about its axis */
static void pyramid_closed(double a, double h, double rho, const double c[3], double *m,
                           double com[3], double I[3][3])
{
    *m = rho * a * a * h / 3.0;
    com[0] = c[0];
    com[1] = c[1];
    com[2] = c[2] + h / 4.0;
    memset(I, 0, 9 * sizeof(double));
    I[0][0] = I[1][1] = *m * (a * a / 20.0 + 3.0 * h * h / 80.0);
    I[2][2] = *m * a * a / 10.0;
}

/* a box of full edges e centred at c */
static void box(const double e[3], const double c[3], double v[8][3])
{
    for (int i = 0; i < 8; i++)
        for (int k = 0; k < 3; k++) v[i][k] = c[k] + ((i >> k & 1) ? 0.5 : -0.5) * e[k];
}

/* The rounding bound of the tensor's entries: each is a sum over nt triangles of terms
 * ρ d_t f(coordinates), |f| <= (3L)³ (L the largest distance from the vertices' mean), each
 * computed in <= 30 rounded operations, so the error is <= (30 + nt) ε ρ Σ|d_t| (3L)³; the
 * centre's parallel-axis terms add 8 ε m L². */
static double bound(const double *v, int nv, const int (*tri)[3], int nt, double rho, double m)
{
    double ref[3] = {0, 0, 0}, L = 0.0, sd = 0.0;
    for (int i = 0; i < nv; i++)
        for (int k = 0; k < 3; k++) ref[k] += v[3 * i + k] / nv;
    for (int i = 0; i < nv; i++) {
        double d[3] = {v[3 * i] - ref[0], v[3 * i + 1] - ref[1], v[3 * i + 2] - ref[2]};
        L = fmax(L, sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]));
    }
    for (int t = 0; t < nt; t++) {
        const double *a = v + 3 * tri[t][0], *b = v + 3 * tri[t][1], *c = v + 3 * tri[t][2];
        double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        double e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        double d[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                       e1[0] * e2[1] - e1[1] * e2[0]};
        sd += sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    }
    return (30.0 + nt) * DBL_EPSILON * rho * sd * 27.0 * L * L * L + 8.0 * DBL_EPSILON * m * L * L;
}

static double tensor_err(const double A[3][3], const double B[3][3])
{
    double e = 0.0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) e = fmax(e, fabs(A[i][j] - B[i][j]));
    return e;
}

static void check_box(const double e[3], const double c[3], double rho)
{
    double v[8][3];
    box(e, c, v);
    pbd_rigid_mass_properties mp;
    CU_ASSERT_EQUAL_FATAL(pbd_rigid_mesh_mass_properties(&v[0][0], 8, &BOX_TRIS[0][0], 12, rho,
                                                         &mp), PBD_OK);
    double m = rho * e[0] * e[1] * e[2];
    double I[3][3] = {{m * (e[1] * e[1] + e[2] * e[2]) / 12, 0, 0},
                      {0, m * (e[0] * e[0] + e[2] * e[2]) / 12, 0},
                      {0, 0, m * (e[0] * e[0] + e[1] * e[1]) / 12}};
    double tol = bound(&v[0][0], 8, BOX_TRIS, 12, rho, m), ce = 0.0;
    for (int k = 0; k < 3; k++) ce = fmax(ce, fabs(mp.com[k] - c[k]));
    printf("\n    box %g x %g x %g at (%g, %g, %g): |Δm| %.2g, |Δc| %.2g, |ΔI| %.2g (bound %.2g)",
           e[0], e[1], e[2], c[0], c[1], c[2], fabs(mp.mass - m), ce, tensor_err(mp.inertia, I),
           tol);
    CU_ASSERT(fabs(mp.mass - m) <= 64 * DBL_EPSILON * m);
    CU_ASSERT(ce <= 64 * DBL_EPSILON * (e[0] + e[1] + e[2] + fabs(c[0]) + fabs(c[1]) + fabs(c[2])));
    CU_ASSERT(tensor_err(mp.inertia, I) <= tol);
}

static void test_boxes(void)
{
    check_box((double[3]){1, 1, 1}, (double[3]){0.5, 0.5, 0.5}, 1.0); /* the unit cube */
    check_box((double[3]){0.4, 0.2, 0.3}, (double[3]){0, 0, 0}, 700.0);
}

static void test_pyramid(void)
{
    double a = 0.6, h = 0.9, rho = 1200.0, c[3] = {0.2, -0.1, 0.3}, v[5][3], m, com[3], I[3][3];
    pyramid(a, h, c, v);
    pyramid_closed(a, h, rho, c, &m, com, I);
    pbd_rigid_mass_properties mp;
    CU_ASSERT_EQUAL_FATAL(pbd_rigid_mesh_mass_properties(&v[0][0], 5, &PYRAMID_TRIS[0][0], 6,
                                                         rho, &mp), PBD_OK);
    double tol = bound(&v[0][0], 5, PYRAMID_TRIS, 6, rho, m), ce = 0.0;
    for (int k = 0; k < 3; k++) ce = fmax(ce, fabs(mp.com[k] - com[k]));
    printf("\n    pyramid a %g h %g: |Δm| %.2g, |Δc| %.2g, |ΔI| %.2g (bound %.2g)", a, h,
           fabs(mp.mass - m), ce, tensor_err(mp.inertia, I), tol);
    CU_ASSERT(fabs(mp.mass - m) <= 64 * DBL_EPSILON * m);
    CU_ASSERT(ce <= 64 * DBL_EPSILON * (a + h + 1.0));
    CU_ASSERT(tensor_err(mp.inertia, I) <= tol);
}

/* The regular tetrahedron of edge a: V = a³/(6√2), I = m a²/20 about every axis through its
 * centroid */
static void test_tetrahedron(void)
{
    double s = 0.35, v[4][3] = {{s, s, s}, {s, -s, -s}, {-s, s, -s}, {-s, -s, s}};
    int tri[4][3];
    for (int f = 0; f < 4; f++) { /* the face opposite vertex f, turned outward */
        int k = 0;
        for (int i = 0; i < 4; i++)
            if (i != f) tri[f][k++] = i;
        const double *a = v[tri[f][0]], *b = v[tri[f][1]], *c = v[tri[f][2]];
        double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        double e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                       e1[0] * e2[1] - e1[1] * e2[0]};
        if (n[0] * a[0] + n[1] * a[1] + n[2] * a[2] < 0.0) {
            int t = tri[f][1];
            tri[f][1] = tri[f][2];
            tri[f][2] = t;
        }
    }
    double rho = 2.5, a = 2.0 * sqrt(2.0) * s, m = rho * a * a * a / (6.0 * sqrt(2.0));
    pbd_rigid_mass_properties mp;
    CU_ASSERT_EQUAL_FATAL(pbd_rigid_mesh_mass_properties(&v[0][0], 4, &tri[0][0], 4, rho, &mp),
                          PBD_OK);
    double I[3][3] = {{m * a * a / 20, 0, 0}, {0, m * a * a / 20, 0}, {0, 0, m * a * a / 20}};
    double tol = bound(&v[0][0], 4, (const int(*)[3])tri, 4, rho, m);
    printf("\n    tetrahedron a = %g: m %.15g (closed form %.15g), |ΔI| %.2g (bound %.2g)", a,
           mp.mass, m, tensor_err(mp.inertia, I), tol);
    CU_ASSERT(fabs(mp.mass - m) <= 64 * DBL_EPSILON * m);
    for (int k = 0; k < 3; k++) CU_ASSERT(fabs(mp.com[k]) <= 64 * DBL_EPSILON * a);
    CU_ASSERT(tensor_err(mp.inertia, I) <= tol);
}

static void rotation_matrix(const double q[4], double R[3][3])
{
    for (int c = 0; c < 3; c++) {
        double u[3] = {c == 0, c == 1, c == 2}, e[3];
        pbd_quat_rotate(q, u, e);
        for (int r = 0; r < 3; r++) R[r][c] = e[r];
    }
}

/* v turned by q and moved by t */
static void place(const double q[4], const double t[3], const double v[][3], double w[][3],
                  int n)
{
    for (int i = 0; i < n; i++) {
        pbd_quat_rotate(q, v[i], w[i]);
        for (int k = 0; k < 3; k++) w[i][k] += t[k];
    }
}

static void unit_quat(double q[4])
{
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int k = 0; k < 4; k++) q[k] /= n;
}

/* R I Rᵀ */
static void turn_tensor(const double R[3][3], const double I[3][3], double out[3][3])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double s = 0.0;
            for (int k = 0; k < 3; k++)
                for (int l = 0; l < 3; l++) s += R[i][k] * I[k][l] * R[j][l];
            out[i][j] = s;
        }
}

/* A pyramid turned by R and moved by t: centre R c + t, tensor R I Rᵀ about it (the far
 * origin's parallel-axis terms removed), against the closed forms */
static void test_moved_mesh(void)
{
    double a = 0.6, h = 0.9, rho = 1200.0, c[3] = {0.2, -0.1, 0.3}, t[3] = {3.0, -2.0, 5.0};
    double q[4] = {0.8, 0.2, -0.4, 0.4}, v[5][3], w[5][3], R[3][3], m, com[3], I0[3][3], I[3][3];
    unit_quat(q);
    rotation_matrix(q, R);
    pyramid(a, h, c, v);
    place(q, t, v, w, 5);
    pyramid_closed(a, h, rho, c, &m, com, I0);
    turn_tensor(R, I0, I);
    pbd_rigid_mass_properties b;
    CU_ASSERT_EQUAL_FATAL(pbd_rigid_mesh_mass_properties(&w[0][0], 5, &PYRAMID_TRIS[0][0], 6,
                                                         rho, &b), PBD_OK);
    double cw[3], ce = 0.0, tn = sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
    pbd_quat_rotate(q, com, cw);
    for (int k = 0; k < 3; k++) ce = fmax(ce, fabs(b.com[k] - (cw[k] + t[k])));
    /* the mesh's bound, the vertices' rounding when moved (3 ε (|t| + L) each, carried to I
     * by 2 m L) and the 9-term sums of R I Rᵀ (9 ε |I|) */
    double tol = bound(&w[0][0], 5, PYRAMID_TRIS, 6, rho, m) +
                 6.0 * DBL_EPSILON * (tn + 1.0) * m + 27.0 * DBL_EPSILON * I0[0][0];
    printf("\n    moved pyramid: |Δm| %.2g, |Δc| %.2g, |I' − R I Rᵀ| %.2g (bound %.2g)",
           fabs(b.mass - m), ce, tensor_err(b.inertia, I), tol);
    CU_ASSERT(fabs(b.mass - m) <= 64 * DBL_EPSILON * m);
    CU_ASSERT(ce <= 64 * DBL_EPSILON * (tn + 1.0));
    CU_ASSERT(tensor_err(b.inertia, I) <= tol);
}

static void refused(const double *v, int nv, const int *tri, int nt, double rho, const char *what)
{
    pbd_rigid_mass_properties mp;
    CU_ASSERT_EQUAL(pbd_rigid_mesh_mass_properties(v, nv, tri, nt, rho, &mp), PBD_EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(pbd_last_error(), what));
    printf("\n    refused: %s", pbd_last_error());
}

static void test_refusals(void)
{
    double v[8][3];
    int tri[12][3];
    box((double[3]){1, 1, 1}, (double[3]){0, 0, 0}, v);
    memcpy(tri, BOX_TRIS, sizeof tri);
    refused(&v[0][0], 8, &tri[0][0], 11, 1.0, "closed surface"); /* a triangle missing */
    int t = tri[3][1];
    tri[3][1] = tri[3][2];
    tri[3][2] = t;
    refused(&v[0][0], 8, &tri[0][0], 12, 1.0, "consistently oriented"); /* one flipped */
    for (int f = 0; f < 12; f++) { /* every one flipped: inside out */
        t = BOX_TRIS[f][1];
        tri[f][0] = BOX_TRIS[f][0];
        tri[f][1] = BOX_TRIS[f][2];
        tri[f][2] = t;
    }
    refused(&v[0][0], 8, &tri[0][0], 12, 1.0, "volume");
    memcpy(tri, BOX_TRIS, sizeof tri);
    v[5][1] = NAN;
    refused(&v[0][0], 8, &tri[0][0], 12, 1.0, "vertex 5");
    v[5][1] = 0.5;
    tri[7][2] = 8;
    refused(&v[0][0], 8, &tri[0][0], 12, 1.0, "triangle 7");
    tri[7][2] = BOX_TRIS[7][2];
    refused(&v[0][0], 8, &tri[0][0], 12, 0.0, "density");
    for (int i = 0; i < 8; i++) v[i][2] = 0.0; /* flat: zero volume */
    refused(&v[0][0], 8, &tri[0][0], 12, 1.0, "volume");
    /* a mesh is no contact shape yet */
    pbd_rigid_world *w = pbd_rigid_world_create(0.01, 1, 1);
    pbd_rigid_shape s = {PBD_RIGID_MESH, 0.0, {0, 0, 0}};
    double x[3] = {0, 0, 0}, I[3] = {1, 1, 1};
    CU_ASSERT_EQUAL(pbd_rigid_add_body_inertia(w, 1.0, I, &s, x, NULL), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(pbd_last_error(), "mesh"));
    printf("\n    refused: %s", pbd_last_error());
    CU_ASSERT_EQUAL(pbd_rigid_add_body(w, &s, 1.0, x, NULL), -1);
    pbd_rigid_world_free(w);
}

/* A body from a pyramid turned within its mesh frame by q0 (so that its tensor there is
 * not diagonal and the principal axes take Jacobi rotations) and placed by x, q: its centre
 * x + R(q) c, its world inertia R(q q0) I R(q q0)ᵀ with I the closed form, its principal
 * inertias the closed form's */
static void test_mesh_body(void)
{
    double a = 0.6, h = 0.9, rho = 1200.0, c[3] = {0.2, -0.1, 0.3}, zero[3] = {0, 0, 0};
    double q0[4] = {0.9, -0.3, 0.2, 0.1}, q[4] = {0.8, 0.2, -0.4, 0.4}, x[3] = {1.0, 2.0, -1.0};
    double v[5][3], w[5][3], m, com[3], I0[3][3], I[3][3], R[3][3], qq[4];
    unit_quat(q0);
    unit_quat(q);
    pyramid(a, h, c, v);
    place(q0, zero, v, w, 5);
    pyramid_closed(a, h, rho, c, &m, com, I0);
    pbd_quat_mul(q, q0, qq);
    rotation_matrix(qq, R);
    turn_tensor(R, I0, I);
    pbd_rigid_world *wd = pbd_rigid_world_create(0.01, 1, 1);
    int id = pbd_rigid_add_body_mesh(wd, &w[0][0], 5, &PYRAMID_TRIS[0][0], 6, rho, x, q);
    CU_ASSERT_EQUAL_FATAL(id, 0);
    const pbd_rigid_body *b = &wd->bodies[id];
    double err = 0.0, ce = 0.0, cw[3];
    pbd_quat_rotate(qq, com, cw);
    for (int k = 0; k < 3; k++) ce = fmax(ce, fabs(b->x[k] - (x[k] + cw[k])));
    for (int j = 0; j < 3; j++) { /* column j of the body's world inertia */
        double u[3] = {j == 0, j == 1, j == 2}, got[3];
        pbd_rigid_inertia_apply(b, u, got);
        for (int i = 0; i < 3; i++) err = fmax(err, fabs(got[i] - I[i][j]));
    }
    double Ib[3], Ic[3] = {I0[0][0], I0[1][1], I0[2][2]};
    for (int k = 0; k < 3; k++) Ib[k] = 1.0 / b->inv_inertia[k];
    for (int i = 0; i < 3; i++) /* in some order: compare sorted */
        for (int j = i + 1; j < 3; j++) {
            if (Ib[j] < Ib[i]) { double s = Ib[i]; Ib[i] = Ib[j]; Ib[j] = s; }
            if (Ic[j] < Ic[i]) { double s = Ic[i]; Ic[i] = Ic[j]; Ic[j] = s; }
        }
    double pe = 0.0;
    for (int k = 0; k < 3; k++) pe = fmax(pe, fabs(Ib[k] - Ic[k]));
    /* the mesh's bound; the Jacobi sweeps stop at off-diagonals of 1e-17 of the trace and
     * the rotations and 9-term products round at 64 ε of the largest inertia */
    double tol = 64.0 * DBL_EPSILON * Ic[2] + bound(&w[0][0], 5, PYRAMID_TRIS, 6, rho, m);
    printf("\n    mesh body: |Δx| %.2g, |R I Rᵀ − closed form| %.2g, |ΔI_principal| %.2g "
           "(bound %.2g), m/m_closed − 1 = %.2g", ce, err, pe, tol, 1.0 / (b->inv_mass * m) - 1);
    CU_ASSERT(ce <= 64 * DBL_EPSILON * 4.0);
    CU_ASSERT(err <= tol);
    CU_ASSERT(pe <= tol);
    CU_ASSERT(fabs(b->inv_mass * m - 1.0) <= 64 * DBL_EPSILON);
    CU_ASSERT_EQUAL(b->shape.kind, PBD_RIGID_NO_SHAPE);
    pbd_rigid_world_free(wd);
}

void register_rigid_mesh_tests(void)
{
    CU_pSuite s = CU_add_suite("rigid_mesh", NULL, NULL);
    CU_add_test(s, "boxes", test_boxes);
    CU_add_test(s, "tetrahedron", test_tetrahedron);
    CU_add_test(s, "pyramid", test_pyramid);
    CU_add_test(s, "moved_mesh", test_moved_mesh);
    CU_add_test(s, "refusals", test_refusals);
    CU_add_test(s, "mesh_body", test_mesh_body);
}
