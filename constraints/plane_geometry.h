/* Two geometric primitives, each with its gradient, shared by the solid and collision
 * constraints (private to constraints/):
 *   - the triple product  T = (a-o)·[(b-o)×(c-o)]  (6× the signed volume of the tet o,a,b,c)
 *     used by tet_volume (PBD Sec. 4.2, seed "tetrahedron constraint gradients") and
 *     point_triangle (PBD Sec. 3.4);
 *   - the signed distance D = (a-o)·n̂, n̂ = (b-o)×(c-o)/|(b-o)×(c-o)|, of a from the
 *     plane through o, b, c, used by tet_plane (seed) and self_collision (PBD Eq. 12/13). */
#ifndef PBD_PLANE_GEOMETRY_H
#define PBD_PLANE_GEOMETRY_H

#include "pbd_constraint.h"
#include "vec3.h"

#include <stddef.h>

/* A gradient whose norm is below this fraction of its natural scale (an area, L², for the
 * triple product; |(b-o)×(c-o)| against L² for the normal) is treated as undefined. */
#define PBD_PLANE_REL_EPS 1e-12

/* Largest squared distance between any two of the four points: the length scale L². */
static inline double pg_max_edge2(const double *o, const double *a, const double *b,
                                  const double *c)
{
    const double *p[4] = {o, a, b, c};
    double m = 0.0;
    for (int i = 0; i < 4; i++)
        for (int j = i + 1; j < 4; j++) {
            double d[3];
            v3_sub(d, p[i], p[j]);
            double l2 = v3_dot(d, d);
            if (l2 > m) m = l2;
        }
    return m;
}

/* T = e_a·(e_b×e_c) with e_x = x - o. T is linear in each edge vector, so
 *   ∇_a T = e_b×e_c,  ∇_b T = e_c×e_a,  ∇_c T = e_a×e_b,  ∇_o T = -(∇_a + ∇_b + ∇_c)
 * (cyclic invariance of the triple product; the seed's ∇p2 = -(1/6) p1×p3 is the same
 * thing scaled by 1/6). Gradients (3 doubles each) are written when g_o != NULL.
 * Returns PBD_EVAL_DEGENERATE when all four face areas vanish against L² (the points are
 * coincident or collinear: no direction changes T to first order). */
static inline int pg_triple_product(const double *o, const double *a, const double *b,
                                    const double *c, double *T, double *g_o, double *g_a,
                                    double *g_b, double *g_c)
{
    double ea[3], eb[3], ec[3], ga[3], gb[3], gc[3];
    v3_sub(ea, a, o);
    v3_sub(eb, b, o);
    v3_sub(ec, c, o);
    v3_cross(ga, eb, ec);
    v3_cross(gb, ec, ea);
    v3_cross(gc, ea, eb);
    *T = v3_dot(ea, ga);
    double go[3] = {-(ga[0] + gb[0] + gc[0]), -(ga[1] + gb[1] + gc[1]), -(ga[2] + gb[2] + gc[2])};
    if (g_o) {
        v3_copy(g_o, go);
        v3_copy(g_a, ga);
        v3_copy(g_b, gb);
        v3_copy(g_c, gc);
    }
    double g2 = v3_dot(go, go) + v3_dot(ga, ga) + v3_dot(gb, gb) + v3_dot(gc, gc);
    double area_scale = PBD_PLANE_REL_EPS * pg_max_edge2(o, a, b, c);
    if (!(g2 > area_scale * area_scale) || !isfinite(g2)) return PBD_EVAL_DEGENERATE;
    return PBD_EVAL_OK;
}

/* D = e_a·n̂, n̂ = m/|m|, m = e_b×e_c. Derivation (PBD Appendix A, Eq. 18–19, in vector
 * form): dn̂ = (I - n̂n̂ᵀ) dm/|m|, so with u = (e_a - (e_a·n̂) n̂)/|m|
 *   dD = de_a·n̂ + u·(de_b×e_c + e_b×de_c) = de_a·n̂ + de_b·(e_c×u) + de_c·(u×e_b),
 *   ∇_a D = n̂,  ∇_b D = e_c×u,  ∇_c D = u×e_b,  ∇_o D = -(∇_a + ∇_b + ∇_c).
 * (Checked against the seed: e_c×u = [e_c×e_a + (n̂×e_c)(n̂·e_a)]/|m| and
 * u×e_b = -[e_b×e_a + (n̂×e_b)(n̂·e_a)]/|m| — the seed's ∇p2, ∇p3 are right.)
 * Returns PBD_EVAL_DEGENERATE (D = 0, zero gradient) when |m| <= eps (|e_b|² + |e_c|²):
 * a zero-area triangle o, b, c has no normal. */
static inline int pg_plane_distance(const double *o, const double *a, const double *b,
                                    const double *c, double *D, double *g_o, double *g_a,
                                    double *g_b, double *g_c)
{
    double ea[3], eb[3], ec[3], m[3];
    v3_sub(ea, a, o);
    v3_sub(eb, b, o);
    v3_sub(ec, c, o);
    v3_cross(m, eb, ec);
    double mlen = v3_norm(m);
    if (!(mlen > PBD_PLANE_REL_EPS * (v3_dot(eb, eb) + v3_dot(ec, ec))) || !isfinite(mlen)) {
        *D = 0.0;
        if (g_o) {
            v3_zero(g_o);
            v3_zero(g_a);
            v3_zero(g_b);
            v3_zero(g_c);
        }
        return PBD_EVAL_DEGENERATE;
    }
    double n[3];
    v3_scale(n, m, 1.0 / mlen);
    *D = v3_dot(ea, n);
    if (g_o) {
        double u[3];
        v3_copy(u, ea);
        v3_axpy(u, -*D, n);
        v3_scale(u, u, 1.0 / mlen);
        v3_copy(g_a, n);
        v3_cross(g_b, ec, u);
        v3_cross(g_c, u, eb);
        for (int k = 0; k < 3; k++) g_o[k] = -(g_a[k] + g_b[k] + g_c[k]);
    }
    return PBD_EVAL_OK;
}

#endif
