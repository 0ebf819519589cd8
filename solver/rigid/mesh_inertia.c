/* Mass properties of a closed triangle mesh of uniform density by its volume integrals:
 * Eberly, "Polyhedral Mass Properties (Revisited)" (Geometric Tools, 2002), the divergence
 * theorem reducing ∫1, ∫x, ∫x², ∫xy over the solid to sums over the triangles; and a body
 * made from it, its frame the principal axes at the centre of mass. */
#include "rigid_private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int a, b, tri;
} edge;

static int edge_cmp(const void *p, const void *q)
{
    const edge *e = p, *f = q;
    if (e->a != f->a) return e->a < f->a ? -1 : 1;
    return e->b < f->b ? -1 : e->b > f->b;
}

/* Every directed edge once and its reverse once: closed (each edge has a second triangle)
 * and consistently oriented (that triangle runs it the other way) */
static pbd_status check_topology(const int *tri, int nt)
{
    size_t n = 3 * (size_t)nt;
    edge *e = malloc(n * sizeof *e);
    if (!e) return pbd_error(PBD_ENOMEM, "rigid mesh: out of memory for %zu edges", n);
    for (int t = 0; t < nt; t++)
        for (int k = 0; k < 3; k++)
            e[3 * t + k] = (edge){tri[3 * t + k], tri[3 * t + (k + 1) % 3], t};
    qsort(e, n, sizeof *e, edge_cmp);
    pbd_status st = PBD_OK;
    for (size_t i = 0; i < n && st == PBD_OK; i++) {
        if (i + 1 < n && !edge_cmp(&e[i], &e[i + 1]))
            st = pbd_error(PBD_EINVAL, "rigid mesh triangles: expected a consistently oriented "
                           "surface (each edge run once each way), found edge %d→%d in "
                           "triangles %d and %d", e[i].a, e[i].b, e[i].tri, e[i + 1].tri);
        edge r = {e[i].b, e[i].a, 0};
        if (st == PBD_OK && !bsearch(&r, e, n, sizeof *e, edge_cmp))
            st = pbd_error(PBD_EINVAL, "rigid mesh triangles: expected a closed surface (each "
                           "edge shared by two triangles), found edge %d-%d of triangle %d "
                           "open", e[i].a, e[i].b, e[i].tri);
    }
    free(e);
    return st;
}

/* Eberly's subexpressions of one coordinate over a triangle: f1 = Σw, f2, f3 and g_i */
static void subexpressions(double w0, double w1, double w2, double *f1, double *f2, double *f3,
                           double g[3])
{
    double t0 = w0 + w1, t1 = w0 * w0, t2 = t1 + w1 * t0;
    *f1 = t0 + w2;
    *f2 = t2 + w2 * *f1;
    *f3 = w0 * t1 + w1 * t2 + w2 * *f2;
    g[0] = *f2 + w0 * (*f1 + w0);
    g[1] = *f2 + w1 * (*f1 + w1);
    g[2] = *f2 + w2 * (*f1 + w2);
}

pbd_status pbd_rigid_mesh_mass_properties(const double *v, int nv, const int *tri, int nt,
                                          double density, pbd_rigid_mass_properties *out)
{
    if (!(density > 0.0 && isfinite(density)))
        return pbd_error(PBD_EINVAL, "rigid mesh density: expected > 0 and finite kg/m^3, "
                         "found %g", density);
    if (nv < 4 || nt < 4)
        return pbd_error(PBD_EINVAL, "rigid mesh: expected a closed surface of >= 4 vertices "
                         "and >= 4 triangles, found %d and %d", nv, nt);
    double ref[3] = {0, 0, 0}; /* the vertices' mean: the integrals about it lose no digits
                                * to a far origin */
    for (int i = 0; i < nv; i++)
        for (int k = 0; k < 3; k++) {
            if (!isfinite(v[3 * i + k]))
                return pbd_error(PBD_EINVAL, "rigid mesh vertex %d: expected finite "
                                 "coordinates, found (%g, %g, %g)", i, v[3 * i], v[3 * i + 1],
                                 v[3 * i + 2]);
            ref[k] += v[3 * i + k] / nv;
        }
    for (int t = 0; t < nt; t++) {
        const int *c = tri + 3 * t;
        for (int k = 0; k < 3; k++)
            if (c[k] < 0 || c[k] >= nv)
                return pbd_error(PBD_EINVAL, "rigid mesh triangle %d: expected vertex indices "
                                 "in 0..%d, found %d %d %d", t, nv - 1, c[0], c[1], c[2]);
        if (c[0] == c[1] || c[1] == c[2] || c[0] == c[2])
            return pbd_error(PBD_EINVAL, "rigid mesh triangle %d: expected three different "
                             "vertices, found %d %d %d", t, c[0], c[1], c[2]);
    }
    pbd_status st = check_topology(tri, nt);
    if (st != PBD_OK) return st;
    /* ∫1, ∫x, ∫y, ∫z, ∫x², ∫y², ∫z², ∫xy, ∫yz, ∫zx about ref */
    double in[10] = {0};
    for (int t = 0; t < nt; t++) {
        double p[3][3], e1[3], e2[3], d[3], f1[3], f2[3], f3[3], g[3][3];
        for (int i = 0; i < 3; i++)
            for (int k = 0; k < 3; k++) p[i][k] = v[3 * tri[3 * t + i] + k] - ref[k];
        v3_sub(e1, p[1], p[0]);
        v3_sub(e2, p[2], p[0]);
        v3_cross(d, e1, e2);
        for (int k = 0; k < 3; k++)
            subexpressions(p[0][k], p[1][k], p[2][k], &f1[k], &f2[k], &f3[k], g[k]);
        in[0] += d[0] * f1[0];
        for (int k = 0; k < 3; k++) {
            in[1 + k] += d[k] * f2[k];
            in[4 + k] += d[k] * f3[k];
        }
        in[7] += d[0] * (p[0][1] * g[0][0] + p[1][1] * g[0][1] + p[2][1] * g[0][2]);
        in[8] += d[1] * (p[0][2] * g[1][0] + p[1][2] * g[1][1] + p[2][2] * g[1][2]);
        in[9] += d[2] * (p[0][0] * g[2][0] + p[1][0] * g[2][1] + p[2][0] * g[2][2]);
    }
    static const double mult[10] = {1.0 / 6, 1.0 / 24, 1.0 / 24, 1.0 / 24, 1.0 / 60, 1.0 / 60,
                                     1.0 / 60, 1.0 / 120, 1.0 / 120, 1.0 / 120};
    for (int k = 0; k < 10; k++) in[k] *= mult[k] * density;
    double m = in[0];
    if (!(m > 0.0 && isfinite(m)))
        return pbd_error(PBD_EINVAL, "rigid mesh volume: expected > 0 (triangles counter-"
                         "clockwise seen from outside), found %g m^3", m / density);
    double c[3] = {in[1] / m, in[2] / m, in[3] / m};
    out->mass = m;
    for (int k = 0; k < 3; k++) out->com[k] = ref[k] + c[k];
    /* about the centre of mass (parallel-axis theorem) */
    double (*I)[3] = out->inertia;
    I[0][0] = in[5] + in[6] - m * (c[1] * c[1] + c[2] * c[2]);
    I[1][1] = in[4] + in[6] - m * (c[2] * c[2] + c[0] * c[0]);
    I[2][2] = in[4] + in[5] - m * (c[0] * c[0] + c[1] * c[1]);
    I[0][1] = I[1][0] = -(in[7] - m * c[0] * c[1]);
    I[1][2] = I[2][1] = -(in[8] - m * c[1] * c[2]);
    I[0][2] = I[2][0] = -(in[9] - m * c[2] * c[0]);
    return PBD_OK;
}

/* D = Rᵀ A R of the unit quaternion q */
static void rotated(const double A[3][3], const double q[4], double D[3][3])
{
    double R[3][3], e[3];
    for (int c = 0; c < 3; c++) {
        double u[3] = {c == 0, c == 1, c == 2};
        pbd_quat_rotate(q, u, e);
        for (int r = 0; r < 3; r++) R[r][c] = e[r];
    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double s = 0.0;
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++) s += R[a][i] * A[a][b] * R[b][j];
            D[i][j] = s;
        }
}

void pbd_rigid_principal_axes(const double A[3][3], double q[4], double d[3])
{
    double D[3][3];
    q[0] = 1.0; q[1] = q[2] = q[3] = 0.0;
    for (int it = 0; it < 64; it++) {
        rotated(A, q, D);
        int k = 0; /* the axis of the largest off-diagonal pair (p, r) = (k+1, k+2) */
        for (int a = 1; a < 3; a++)
            if (fabs(D[(a + 1) % 3][(a + 2) % 3]) > fabs(D[(k + 1) % 3][(k + 2) % 3])) k = a;
        int p = (k + 1) % 3, r = (k + 2) % 3;
        double scale = fabs(D[0][0]) + fabs(D[1][1]) + fabs(D[2][2]);
        if (!(fabs(D[p][r]) > 1e-17 * scale)) break;
        /* a Jacobi rotation by φ about e_k zeroes D_pr: tan 2φ = 2 D_pr/(D_pp − D_rr) */
        double phi = 0.5 * atan2(2.0 * D[p][r], D[p][p] - D[r][r]);
        double qk[4] = {cos(0.5 * phi), 0, 0, 0}, t[4];
        qk[1 + k] = sin(0.5 * phi);
        pbd_quat_mul(q, qk, t);
        double n = sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2] + t[3] * t[3]);
        for (int a = 0; a < 4; a++) q[a] = t[a] / n;
    }
    rotated(A, q, D);
    for (int k = 0; k < 3; k++) d[k] = D[k][k];
}

int pbd_rigid_add_body_mesh(pbd_rigid_world *w, const double *v, int nv, const int *tri, int nt,
                            double density, const double x[3], const double q[4])
{
    pbd_rigid_mass_properties mp;
    double qu[4], qp[4], qb[4], I[3], c[3];
    if (pbd_rigid_mesh_mass_properties(v, nv, tri, nt, density, &mp) != PBD_OK ||
        rigid_unit_pose(x, q, qu))
        return -1;
    pbd_rigid_principal_axes(mp.inertia, qp, I);
    pbd_quat_mul(qu, qp, qb); /* mesh frame to world after the principal axes to the mesh */
    pbd_quat_rotate(qu, mp.com, c);
    v3_add(c, c, x);
    return pbd_rigid_add_body_inertia(w, mp.mass, I, NULL, c, qb);
}
