/* bend_dihedral: C(p1, p2, p3, p4) = acos(n1·n2) - φ0   (PBD Sec. 4.1, Appendix A Eq. 16–28)
 *
 * Stencil (the contract in pbd_constraint.h): p1–p2 is the shared edge, the triangles are
 * (p1, p2, p3) and (p1, p2, p4). With e = p2 - p1, a = p3 - p1, b = p4 - p1 (PBD App. A puts
 * p1 at the origin):
 *     n1 = e×a / |e×a|,   n2 = e×b / |e×b|,   d = n1·n2,   φ = acos(d).
 *
 * φ is UNSIGNED (in [0, π]): it is the opening angle between the hinge's two half-planes.
 * Flat cloth (p3 and p4 on opposite sides of the edge) has d = -1, φ = π; a hinge folded
 * onto itself (p3, p4 on the same side) has d = +1, φ = 0. Bending by +β or -β out of a
 * configuration gives the same C. The rest angle φ0 comes from a configuration via rest().
 *
 * Degenerate geometry (DESIGN.md "Errors"): eval returns PBD_EVAL_DEGENERATE, with C and ∇C
 * finite, for
 *   - a zero-area triangle, a (nearly) zero-length edge or coincident points: the normals
 *     are undefined (edge length or a triangle's height below BEND_MIN_REL × hinge size);
 *   - d = ±1 (flat or fully folded, |sin φ| <= BEND_MIN_SIN): the unsigned angle has a kink
 *     there (∇φ flips direction across it), so no gradient exists. C is still returned.
 * Everywhere else the gradient is computed in a bounded form (below), never as
 * q / √(1-d²), so it stays finite and accurate arbitrarily close to the kink. */
#include "pbd_constraint.h"
#include "batch_generic.h"
#include "dihedral_simd.h"
#include "hessian3.h"
#include "hinge_sample.h"

#include <math.h>

#define BEND_MIN_REL 1e-10   /* edge length, triangle heights below this × hinge size */
#define BEND_MIN_SIZE 1e-100 /* m: a smaller hinge is degenerate (keeps 1/h² finite) */
#define BEND_MIN_SIN 1e-12   /* |sin φ| at or below this: on the kink at d = ±1 */
#define BEND_MIN_DENOMINATOR 1e-300

enum { HINGE_OK = 0, HINGE_ZERO_AREA = 1, HINGE_KINK = 2 };

/* The hinge's geometry, PBD Appendix A with p1 at the origin. */
typedef struct hinge {
    double e[3], a[3], b[3]; /* p2 - p1, p3 - p1, p4 - p1 */
    double elen;             /* |e| */
    double c1n, c2n;         /* |e×a|, |e×b| (twice the triangles' areas) */
    double n1[3], n2[3];
    double d;                /* n1·n2, clamped to [-1, 1] */
    double sin_signed;       /* ê·(n1×n2) = σ sin φ, σ = ±1 the side n2 lies on */
    double phi;              /* acos(d) in [0, π] */
} hinge;

static int hinge_compute(const double *x, hinge *h)
{
    v3_sub(h->e, x + 3, x);
    v3_sub(h->a, x + 6, x);
    v3_sub(h->b, x + 9, x);
    h->elen = v3_norm(h->e);
    double size = fmax(h->elen, fmax(v3_norm(h->a), v3_norm(h->b)));
    double c1[3], c2[3];
    v3_cross(c1, h->e, h->a);
    v3_cross(c2, h->e, h->b);
    h->c1n = v3_norm(c1);
    h->c2n = v3_norm(c2);
    double tol = BEND_MIN_REL * size;
    /* the heights of p3 and p4 over the edge's line are |e×a|/|e| and |e×b|/|e| */
    if (!(size > BEND_MIN_SIZE) || !(size < INFINITY) || !(h->elen > tol) ||
        !(h->c1n > tol * h->elen) || !(h->c2n > tol * h->elen))
        return HINGE_ZERO_AREA;
    v3_scale(h->n1, c1, 1.0 / h->c1n);
    v3_scale(h->n2, c2, 1.0 / h->c2n);
    double d = v3_dot(h->n1, h->n2);
    h->d = d < -1.0 ? -1.0 : d > 1.0 ? 1.0 : d; /* clamp: rounding may leave |d| > 1 */
    double n12[3];
    v3_cross(n12, h->n1, h->n2);
    h->sin_signed = v3_dot(n12, h->e) / h->elen; /* n1×n2 is parallel to e */
    /* acos(d), computed as atan2(sin φ, cos φ): the same value in [0, π], but without acos's
     * loss of precision near d = ±1 */
    h->phi = atan2(fabs(h->sin_signed), h->d);
    return fabs(h->sin_signed) > BEND_MIN_SIN ? HINGE_OK : HINGE_KINK;
}

/* PBD Eq. 24–27 (p1 at the origin, so p2 → e, p3 → a, p4 → b):
 *   q3 = (p2×n2 + (n1×p2) d) / |p2×p3|
 *   q4 = (p2×n1 + (n2×p2) d) / |p2×p4|
 *   q2 = -(p3×n2 + (n1×p3) d) / |p2×p3| - (p4×n1 + (n2×p4) d) / |p2×p4|
 *   q1 = -q2 - q3 - q4
 * Sign convention: with (∂n1/∂p3)ᵀ n2 = -q3 (from Eq. 19) Eq. 20–23 give
 * ∇_i C = +q_i / √(1-d²), so Eq. 28 is exactly PBD Eq. 8–9. */
static void hinge_q(const hinge *h, double q[12])
{
    double t[3], u[3], d = h->d;
    double *q1 = q, *q2 = q + 3, *q3 = q + 6, *q4 = q + 9;
    v3_cross(t, h->e, h->n2); /* Eq. 24 */
    v3_cross(u, h->n1, h->e);
    v3_axpy(t, d, u);
    v3_scale(q3, t, 1.0 / h->c1n);
    v3_cross(t, h->e, h->n1); /* Eq. 25 */
    v3_cross(u, h->n2, h->e);
    v3_axpy(t, d, u);
    v3_scale(q4, t, 1.0 / h->c2n);
    v3_cross(t, h->a, h->n2); /* Eq. 26 */
    v3_cross(u, h->n1, h->a);
    v3_axpy(t, d, u);
    v3_scale(q2, t, -1.0 / h->c1n);
    v3_cross(t, h->b, h->n1);
    v3_cross(u, h->n2, h->b);
    v3_axpy(t, d, u);
    v3_axpy(q2, -1.0 / h->c2n, t);
    for (int c = 0; c < 3; c++) q1[c] = -q2[c] - q3[c] - q4[c]; /* Eq. 27 */
}

/* ∇C, PBD Eq. 20–27 divided through by √(1-d²) analytically. Write n2 - d n1 = σ sin φ (ê×n1)
 * and n1 - d n2 = -σ sin φ (ê×n2) (both normals are ⊥ e; σ = sign ê·(n1×n2)). Then
 *   q3 = e×(n2 - d n1)/|e×a|  ⇒  ∇_{p3} C = q3/sin φ = -σ |e| n1 / |e×a|
 *   q4 = e×(n1 - d n2)/|e×b|  ⇒  ∇_{p4} C = q4/sin φ = +σ |e| n2 / |e×b|
 *   q2 (Eq. 26)               ⇒  ∇_{p2} C = σ [ (a·ê) n1 / |e×a| - (b·ê) n2 / |e×b| ]
 *   Eq. 23/27                 ⇒  ∇_{p1} C = -∇_{p2} C - ∇_{p3} C - ∇_{p4} C
 * (the known bounded form of the dihedral-angle gradient, e.g. Bridson et al. 2003; |∇_{p3}C|
 * is 1 / height of p3 over the edge). The factor σ is where the unsigned angle's kink sits. */
static void hinge_grad(const hinge *h, double *grad)
{
    double sigma = h->sin_signed > 0.0 ? 1.0 : -1.0;
    double ae = v3_dot(h->a, h->e) / h->elen, be = v3_dot(h->b, h->e) / h->elen;
    double *g1 = grad, *g2 = grad + 3, *g3 = grad + 6, *g4 = grad + 9;
    v3_scale(g3, h->n1, -sigma * h->elen / h->c1n);
    v3_scale(g4, h->n2, sigma * h->elen / h->c2n);
    v3_scale(g2, h->n1, sigma * ae / h->c1n);
    v3_axpy(g2, -sigma * be / h->c2n, h->n2);
    for (int c = 0; c < 3; c++) g1[c] = -g2[c] - g3[c] - g4[c];
}

static int dihedral_eval(const pbd_eval_input *in, double *C, double *grad)
{
    hinge h;
    int st = hinge_compute(in->x, &h);
    if (st == HINGE_ZERO_AREA) {
        *C = 0.0; /* the angle is undefined; any finite value will do */
        if (grad) for (int i = 0; i < 12; i++) grad[i] = 0.0;
        return PBD_EVAL_DEGENERATE;
    }
    *C = h.phi - in->rest[0];
    if (st == HINGE_KINK) {
        if (grad) for (int i = 0; i < 12; i++) grad[i] = 0.0;
        return PBD_EVAL_DEGENERATE;
    }
    if (grad) hinge_grad(&h, grad);
    return PBD_EVAL_OK;
}

/* ∇²C, by differentiating the bounded gradient above in (e, a, b) = (p2, p3, p4) - p1 (σ is
 * constant away from the kink). With m1 = e×a, A1 = |m1|, u1 = m1/A1² (u2, m2, A2 with b),
 * s_a = a·ê, s_b = b·ê, the gradient reads
 *   ∇_a C = -σ|e| u1,  ∇_b C = σ|e| u2,  ∇_e C = σ (s_a u1 - s_b u2).
 * du = P dm with P = (I - 2 n nᵀ)/A² (n = m/A), dm1 = -[a]× de + [e]× da, d|e| = ê·de,
 * ds_a = (a - s_a ê)·de/|e| + ê·da, hence
 *   G_aa = -σ|e| P1[e]×,   G_ae = -σ (u1 êᵀ - |e| P1[a]×),   G_ab = 0,
 *   G_bb =  σ|e| P2[e]×,   G_be =  σ (u2 êᵀ - |e| P2[b]×),
 *   G_ee =  σ [u1 (a - s_a ê)ᵀ/|e| - s_a P1[a]× - u2 (b - s_b ê)ᵀ/|e| + s_b P2[b]×],
 * G_ea = G_aeᵀ, G_eb = G_beᵀ; p1's rows and columns follow from the differences
 * (h3_expand_relative). Degenerate where eval is (zero area, the kink at d = ±1). */
/* Triangle t's terms of G (t = 0: v = a, sgn = −1; t = 1: v = b, sgn = +1; ∇_v C = sgn σ|e| u):
 *   vv = P[e]×                            G_vv = sgn σ|e| vv
 *   ve = u êᵀ − |e| P[v]×                 G_ve = sgn σ ve,  G_ev = G_veᵀ
 *   ee = u (v − s_v ê)ᵀ/|e| − s_v P[v]×   G_ee gets −sgn σ ee (∇_e C has −s_b u2)
 * need: which of them (TRI_VV | TRI_VE | TRI_EE). */
typedef struct hinge_tri {
    double vv[9], ve[9], ee[9];
} hinge_tri;

enum { TRI_VV = 1, TRI_VE = 2, TRI_EE = 4, TRI_ALL = 7 };

/* r = P [v]×, the product m3_mul(r, P, [v]×) without its three terms P_ik·0: the same value
 * (a term ±0 added to a sum changes at most the sign of an exact zero, and every entry of G
 * and of a vertex block is formed as 0 + …, which makes any zero +0). */
static inline void m3_mul_skew(double *r, const double *P, const double *v)
{
    for (int i = 0; i < 3; i++) {
        const double *p = P + 3 * i;
        r[3 * i] = p[1] * v[2] + p[2] * -v[1];
        r[3 * i + 1] = p[0] * -v[2] + p[2] * v[0];
        r[3 * i + 2] = p[0] * v[1] + p[1] * -v[0];
    }
}

static void hinge_tri_terms(const hinge *h, int t, int need, hinge_tri *o)
{
    const double *v = t == 0 ? h->a : h->b, *n = t == 0 ? h->n1 : h->n2;
    double area = t == 0 ? h->c1n : h->c2n, el = h->elen, a2 = area * area, eh[3];
    double u[3], P[9], PS[9], w[3];
    for (int a = 0; a < 3; a++) /* (I − 2 n nᵀ)/A² */
        for (int b = 0; b < 3; b++) P[3 * a + b] = ((a == b) + -2.0 * n[a] * n[b]) / a2;
    if (need & TRI_VV) m3_mul_skew(o->vv, P, h->e); /* P[e]× */
    if (!(need & (TRI_VE | TRI_EE))) return;
    v3_scale(u, n, 1.0 / area);
    v3_scale(eh, h->e, 1.0 / el);
    m3_mul_skew(PS, P, v); /* P[v]× */
    if (need & TRI_VE) {
        for (int i = 0; i < 9; i++) o->ve[i] = -el * PS[i];
        m3_add_outer(o->ve, 1.0, u, eh);
    }
    if (need & TRI_EE) {
        double sv = v3_dot(v, eh);
        v3_copy(w, v);
        v3_axpy(w, -sv, eh);
        for (int i = 0; i < 9; i++) o->ee[i] = -sv * PS[i];
        m3_add_outer(o->ee, 1.0 / el, u, w);
    }
}

static void dihedral_G(const hinge *h, double *G)
{
    double sigma = h->sin_signed > 0.0 ? 1.0 : -1.0, el = h->elen;
    for (int i = 0; i < 81; i++) G[i] = 0.0;
    for (int t = 0; t < 2; t++) {
        double sgn = t == 0 ? -1.0 : 1.0;
        hinge_tri o;
        hinge_tri_terms(h, t, TRI_ALL, &o);
        h3_add_block(G, 9, 1 + t, 1 + t, sgn * sigma * el, o.vv, 0);
        h3_add_block(G, 9, 1 + t, 0, sgn * sigma, o.ve, 1); /* G_ve and G_ev = G_veᵀ */
        h3_add_block(G, 9, 0, 0, -sgn * sigma, o.ee, 0);
    }
}

static int dihedral_hessian(const pbd_eval_input *in, double *H)
{
    hinge h;
    if (hinge_compute(in->x, &h) != HINGE_OK) {
        for (int i = 0; i < 144; i++) H[i] = 0.0;
        return PBD_EVAL_DEGENERATE;
    }
    double G[81];
    dihedral_G(&h, G);
    h3_expand_relative(G, H);
    return PBD_EVAL_OK;
}

/* H_jj of dihedral_hessian alone: the terms of G it sums (h3_relative_entry: from 0, in the
 * order G_ee, G_ea, G_eb, G_ae, G_aa, G_ab, G_be, G_ba, G_bb for p1; one block for the
 * others), each G entry formed as dihedral_G forms it (0 + s·term), so the same bits. */
static void hinge_block(const hinge *h, int j, double *B)
{
    double sigma = h->sin_signed > 0.0 ? 1.0 : -1.0, el = h->elen;
    const double s_vv[2] = {-1.0 * sigma * el, 1.0 * sigma * el};
    const double s_ve[2] = {-1.0 * sigma, 1.0 * sigma}, s_ee[2] = {1.0 * sigma, -1.0 * sigma};
    hinge_tri o[2];
    if (j >= 2) { /* p3, p4: G_aa, G_bb */
        hinge_tri_terms(h, j - 2, TRI_VV, &o[0]);
        for (int k = 0; k < 9; k++) B[k] = 0.0 + (0.0 + s_vv[j - 2] * o[0].vv[k]);
        return;
    }
    int need = j == 1 ? TRI_EE : TRI_ALL; /* p2: G_ee alone */
    hinge_tri_terms(h, 0, need, &o[0]);
    hinge_tri_terms(h, 1, need, &o[1]);
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            int k = 3 * a + b, kt = 3 * b + a;
            double ee = (0.0 + s_ee[0] * o[0].ee[k]) + s_ee[1] * o[1].ee[k];
            if (j == 1) {
                B[k] = 0.0 + ee;
                continue;
            }
            double s = 0.0 + ee;
            s += 0.0 + s_ve[0] * o[0].ve[kt]; /* G_ea */
            s += 0.0 + s_ve[1] * o[1].ve[kt]; /* G_eb */
            s += 0.0 + s_ve[0] * o[0].ve[k];  /* G_ae */
            s += 0.0 + s_vv[0] * o[0].vv[k];  /* G_aa */
            s += 0.0;                         /* G_ab */
            s += 0.0 + s_ve[1] * o[1].ve[k];  /* G_be */
            s += 0.0;                         /* G_ba */
            s += 0.0 + s_vv[1] * o[1].vv[k];  /* G_bb */
            B[k] = s;
        }
}

/* One particle's row and block (pbd_vertex_block_fn): eval's gradient and the (j, j) block
 * of the expansion of G, the same operations as eval and hessian without the other 15 blocks. */
static int dihedral_vertex_block(const pbd_eval_input *in, int j, double *C, double *g,
                                 double *B, int *hess_ok)
{
    hinge h;
    int hs = hinge_compute(in->x, &h);
    *hess_ok = hs == HINGE_OK;
    if (hs != HINGE_OK) { /* as eval: zero area (C = 0) or the kink */
        *C = hs == HINGE_ZERO_AREA ? 0.0 : h.phi - in->rest[0];
        for (int c = 0; c < 3; c++) g[c] = 0.0;
        return PBD_EVAL_DEGENERATE;
    }
    *C = h.phi - in->rest[0];
    double sigma = h.sin_signed > 0.0 ? 1.0 : -1.0;
    if (j == 2) { /* hinge_grad's rows of p3, p4 alone */
        v3_scale(g, h.n1, -sigma * h.elen / h.c1n);
    } else if (j == 3) {
        v3_scale(g, h.n2, sigma * h.elen / h.c2n);
    } else {
        double grad[12];
        hinge_grad(&h, grad);
        v3_copy(g, grad + 3 * j);
    }
    hinge_block(&h, j, B);
    return PBD_EVAL_OK;
}

static void dihedral_rest(const pbd_eval_input *in, double *rest)
{
    hinge h;
    /* a degenerate rest configuration has no angle: take flat (π), the usual cloth rest */
    rest[0] = hinge_compute(in->x, &h) == HINGE_ZERO_AREA ? M_PI : h.phi;
}

/* Closed form, PBD Eq. 28:
 *   Δp_i = -k w_i √(1-d²) (acos(d) - φ0) / Σ_j w_j |q_j|² · q_i
 * with q_i from Eq. 24–27 and the stiffness k as in the distance constraint. √(1-d²) is
 * taken as |sin φ| = |n1×n2| (the same number, accurate near d = ±1). Degenerate, as in
 * eval: zero-area triangles and the kink at d = ±1 (there q = 0 and Eq. 28 is 0/0). */
static int dihedral_project(const pbd_eval_input *in, const double *w, double k, double *x)
{
    hinge h;
    if (hinge_compute(in->x, &h) != HINGE_OK) return PBD_EVAL_DEGENERATE;
    double q[12];
    hinge_q(&h, q);
    double denom = 0.0;
    for (int j = 0; j < 4; j++) denom += w[j] * v3_dot(q + 3 * j, q + 3 * j);
    if (!(denom > BEND_MIN_DENOMINATOR)) return PBD_EVAL_DEGENERATE;
    double s = k * fabs(h.sin_signed) * (h.phi - in->rest[0]) / denom;
    if (!isfinite(s)) return PBD_EVAL_DEGENERATE;
    for (int i = 0; i < 4; i++) v3_axpy(x + 3 * i, -s * w[i], q + 3 * i);
    return PBD_EVAL_OK;
}

/* The review slides' calBendingConstraint (seed pbd-paper-review-slides.txt), kept to show
 * its slip:  Δp_i = -k s √(1-d²) (acos(d) - φ0) / Σ_j |q_j| · w_i q_i,  s = 4 / Σ_j w_j.
 * It divides by Σ|q_j| where PBD Eq. 28 (i.e. Eq. 8) has Σ w_j |q_j|², so the step does not
 * solve the linearized constraint C + ∇C·Δp = 0 (Eq. 3); it is not even scale invariant
 * (|q| has units 1/m). The slides clamp d only from below; here d is clamped to [-1, 1]
 * and the degenerate cases are those of Eq. 28. */
int pbd_bend_dihedral_slides_project(const pbd_eval_input *in, const double *w, double k,
                                     double *x)
{
    hinge h;
    if (hinge_compute(in->x, &h) != HINGE_OK) return PBD_EVAL_DEGENERATE;
    double q[12];
    hinge_q(&h, q);
    double wsum = w[0] + w[1] + w[2] + w[3], qsum = 0.0;
    for (int j = 0; j < 4; j++) qsum += v3_norm(q + 3 * j);
    if (!(wsum > 0.0) || !(qsum > BEND_MIN_DENOMINATOR)) return PBD_EVAL_DEGENERATE;
    double s = 4.0 / wsum;
    double dp = -k * s * fabs(h.sin_signed) * (h.phi - in->rest[0]) / qsum;
    if (!isfinite(dp)) return PBD_EVAL_DEGENERATE;
    for (int i = 0; i < 4; i++) v3_axpy(x + 3 * i, dp * w[i], q + 3 * i);
    return PBD_EVAL_OK;
}

/* Random hinges. Non-degenerate: triangles with heights >= 0.3 × edge, opening angle in
 * [0.15, π - 0.15] (away from the kink by more than any sensible finite-difference step),
 * rest angle in [0.1, π - 0.1] or π. Near-degenerate (for finiteness checks; central
 * differences are meaningless across the kink): almost flat, almost folded (|φ - π| or φ in
 * [1e-14, 1e-4], sometimes exactly 0), sliver triangles (height 1e-13 … 1e-5 × edge),
 * nearly coincident points. */
static int dihedral_sample(pbd_rng *r, int degenerate, double *x, double *rest, int32_t *aux,
                           int *n_aux)
{
    (void)aux;
    *n_aux = 0;
    rest[0] = pbd_rng_uniform(r) < 0.25 ? M_PI : pbd_rng_range(r, 0.1, M_PI - 0.1);
    if (!degenerate) {
        pbd_hinge_random(r, 0.15, x);
        return 4;
    }
    double len = pbd_rng_range(r, 0.5, 2.0);
    double h3 = len * pbd_rng_range(r, 0.3, 1.5), h4 = len * pbd_rng_range(r, 0.3, 1.5);
    double t3 = pbd_rng_range(r, -0.3, 1.3), t4 = pbd_rng_range(r, -0.3, 1.3);
    double tiny = pbd_rng_uniform(r) < 0.1 ? 0.0 : pow(10.0, pbd_rng_range(r, -14.0, -4.0));
    double phi = pbd_rng_range(r, 0.15, M_PI - 0.15);
    switch (pbd_rng_next(r) % 5) {
    case 0: phi = M_PI - tiny; break;                               /* almost flat */
    case 1: phi = tiny; break;                                       /* almost folded */
    case 2: h3 = len * pow(10.0, pbd_rng_range(r, -13.0, -5.0)); break; /* sliver */
    case 3: len *= pow(10.0, pbd_rng_range(r, -13.0, -5.0)); break;  /* p2 ≈ p1 */
    default: h4 *= pow(10.0, pbd_rng_range(r, -13.0, -5.0)); t4 = 0.0; break; /* p4 ≈ p1 */
    }
    pbd_hinge_build(r, len, t3, h3, t4, h4, phi, x);
    return 4;
}

/* Batched kernels: for Gauss–Seidel, eval inlined into the generic projection (bit for bit
 * the generic path); for one colour, the same arithmetic on 2, 4 or 8 hinges per SIMD vector
 * with SLEEF's atan2 (constraints/bend_dihedral_simd.c). */
BG_DEFINE_GS_KERNELS(dihedral, 4, 1, 0, dihedral_eval);
static const pbd_kernels dihedral_kernels = {dihedral_gs_pbd, dihedral_gs_xpbd,
                                             pbd_dihedral_colour_pbd, pbd_dihedral_colour_xpbd, 1};

const pbd_constraint_type pbd_bend_dihedral_type = {
    .name = "bend_dihedral",
    .description = "acos(n1·n2) - phi0, unsigned dihedral angle (PBD Sec. 4.1, App. A Eq. 16-28)",
    .unit = "rad",
    .arity = 4,
    .n_rest = 1,
    .inequality = 0,
    .internal = 1,
    .eval = dihedral_eval,
    .hessian = dihedral_hessian,
    .rest = dihedral_rest,
    .sample = dihedral_sample,
    .project_closed_form = dihedral_project,
    .kernels = &dihedral_kernels,
    .vertex_block = dihedral_vertex_block,
    .vertex_block_batch = pbd_dihedral_vertex_block_batch,
};
