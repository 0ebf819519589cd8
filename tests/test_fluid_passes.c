/* Position Based Fluids (Macklin & Müller 2013; solver/fluid/) against the paper's equations
 * on small hand-made neighbourhoods: the density multiplier λ_i (Eq. 11) and the position
 * update Δp_i (Eq. 14), s_corr (Eq. 13) and its symmetric use in Δp, vorticity ω_i (Eq. 15)
 * and the confinement force ε N × ω_i (Eq. 16), XSPH (Eq. 17) with its linear momentum and its
 * dissipation. The kernels are written out here (poly6 W, spiky ∇W: the PBF pair), not taken
 * from the library; the sums carry the particle volume V = m/ρ0 as the code documents. */
#include "tests.h"
#include "solver/fluid/fluid_private.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define H 0.1        /* support radius, m */
#define RHO0 1000.0  /* kg/m³ */
#define MASS 0.1     /* kg: V = 1e-4 m³, so Σ V W ~ 0.1 … 1 */
#define VOL (MASS / RHO0)
#define MAXN 32

static double W6(double r) /* poly6 */
{
    if (!(r < H)) return 0.0;
    double d = H * H - r * r;
    return 315.0 / (64.0 * M_PI * pow(H, 9)) * d * d * d;
}

static double dWs(double r) /* spiky's dW/dr */
{
    if (!(r < H)) return 0.0;
    return -45.0 / (M_PI * pow(H, 6)) * (H - r) * (H - r);
}

static double dist(const double *a, const double *b)
{
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                (a[2] - b[2]) * (a[2] - b[2]));
}

static double norm3(const double *a) { return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]); }

static void cross(const double *a, const double *b, double *c)
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

/* ∇W(x_i − x_j) (spiky), 0 at r = 0 or beyond h */
static void gradW(const double *xi, const double *xj, double *g)
{
    double r = dist(xi, xj);
    for (int k = 0; k < 3; k++) g[k] = r > 0.0 && r < H ? dWs(r) * (xi[k] - xj[k]) / r : 0.0;
}

/* n particles at x with velocities v, made a fluid: walls off, a box far away, one thread;
 * the neighbour rows built for these positions (p = x). */
static pbd_world *cluster(int n, const double *x, const double *v, double eps, double vort,
                          double xsph, int s_corr, double k, double nexp, double dq)
{
    pbd_world *w = pbd_world_create(n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    memcpy(w->x, x, 3 * (size_t)n * sizeof(double));
    memcpy(w->p, x, 3 * (size_t)n * sizeof(double));
    if (v) memcpy(w->v, v, 3 * (size_t)n * sizeof(double));
    for (int i = 0; i < n; i++) w->w[i] = 1.0 / MASS;
    pbd_fluid_def d = pbd_fluid_def_default();
    d.h = H;
    d.rest_density = RHO0;
    d.walls = 0;
    d.epsilon = eps;
    d.vorticity = vort;
    d.xsph = xsph;
    d.s_corr = s_corr;
    d.s_corr_k = k;
    d.s_corr_n = nexp;
    d.s_corr_dq = dq;
    d.max_neighbours = MAXN;
    d.threads = 1;
    for (int c = 0; c < 3; c++) {
        d.box_lo[c] = -1.0;
        d.box_hi[c] = 1.0;
    }
    CU_ASSERT_FATAL(pbd_world_add_fluid(w, 0, n, &d, 0.0) >= 0);
    w->def.dt = 0.01;
    w->fluid_stages->generate_collisions(w, w->def.dt);
    return w;
}

/* A random cluster of n particles in a ball of radius 0.6 h (everyone a neighbour of most). */
static void random_cluster(int n, unsigned seed, double *x, double *v)
{
    pbd_rng r;
    pbd_rng_seed(&r, seed);
    for (int i = 0; i < n; i++)
        for (;;) {
            double p[3];
            for (int k = 0; k < 3; k++) p[k] = pbd_rng_range(&r, -0.6 * H, 0.6 * H);
            if (norm3(p) > 0.6 * H) continue;
            memcpy(x + 3 * i, p, sizeof p);
            for (int k = 0; k < 3; k++) v[3 * i + k] = pbd_rng_range(&r, -1.0, 1.0);
            break;
        }
}

/* ---- XSPH (Eq. 17) ------------------------------------------------------------------- */

/* Three particles, c = 0.1: v_i' = v_i + c Σ_j V W(r_ij)(v_j − v_i). By hand, h = 0.1,
 * V W(r) = 1e-4 · 315/(64π h⁹) (h² − r²)³: r01 = 0.03 → 0.11806, r02 = 0.05 → 0.06610,
 * r12 = √0.0034 → 0.04504 (poly6 at 1e-4 m³). */
static void test_xsph_hand(void)
{
    const double x[9] = {0, 0, 0, 0.03, 0, 0, 0, 0.05, 0};
    const double v[9] = {1, 0, 0, 0, 2, 0, 0, 0, -1};
    pbd_world *w = cluster(3, x, v, 100.0, 0.0, 0.1, 0, 0, 4, 0.2);
    w->fluid_stages->velocity_update(w, w->def.dt);
    const double c = 0.1, a = VOL * W6(0.03), b = VOL * W6(0.05), e = VOL * W6(sqrt(0.0034));
    CU_ASSERT(fabs(a - 0.11806) < 1e-5 && fabs(b - 0.06610) < 1e-5 && fabs(e - 0.04504) < 1e-5);
    /* v0' = v0 + c (a (v1 − v0) + b (v2 − v0)), and so on */
    const double want[9] = {
        1 + c * (a * (0 - 1) + b * (0 - 1)), c * (a * 2 + b * 0), c * (a * 0 + b * (-1)),
        c * (a * (1 - 0) + e * (0 - 0)), 2 + c * (a * (0 - 2) + e * (0 - 2)), c * (a * 0 + e * -1),
        c * (b * 1 + e * 0), c * (b * 0 + e * 2), -1 + c * (b * (0 + 1) + e * (0 + 1))};
    /* each term c V W v_ij carries a few ε; the sum of 2 of them: 16 ε of the largest |v| */
    const double tol = 16.0 * DBL_EPSILON * 2.0;
    for (int i = 0; i < 9; i++) {
        if (!(fabs(w->v[i] - want[i]) <= tol))
            printf("\n    v[%d] = %.17g, by hand %.17g", i, w->v[i], want[i]);
        CU_ASSERT(fabs(w->v[i] - want[i]) <= tol);
    }
    pbd_world_free(w);
}

/* Equal masses, W symmetric: Σ_i Σ_j V W_ij (v_j − v_i) = 0, so Σ m v is kept to rounding
 * (bound: 8 ε times Σ |the terms|); and for c Σ_j V W_ij ≤ 1 the pass is v ← (I − cL)v with L
 * the graph Laplacian of the weights V W_ij (symmetric, eigenvalues in [0, 2 max_i Σ_j V W]),
 * so the kinetic energy does not grow. */
static void test_xsph_momentum_dissipation(void)
{
    enum { N = 24 };
    double x[3 * N], v[3 * N];
    random_cluster(N, 11, x, v);
    const double c = 0.3;
    pbd_world *w = cluster(N, x, v, 100.0, 0.0, c, 0, 0, 4, 0.2);
    double p0[3] = {0, 0, 0}, k0 = 0.0, terms = 0.0, deg = 0.0;
    for (int i = 0; i < N; i++) {
        double di = 0.0;
        for (int k = 0; k < 3; k++) {
            p0[k] += MASS * v[3 * i + k];
            k0 += 0.5 * MASS * v[3 * i + k] * v[3 * i + k];
        }
        for (int j = 0; j < N; j++) {
            if (j == i) continue;
            double vw = VOL * W6(dist(x + 3 * i, x + 3 * j));
            di += vw;
            for (int k = 0; k < 3; k++) terms += MASS * c * vw * fabs(v[3 * j + k] - v[3 * i + k]);
        }
        deg = fmax(deg, c * di);
    }
    CU_ASSERT_FATAL(deg <= 1.0 && deg > 0.05); /* a real neighbourhood, inside the bound */
    w->fluid_stages->velocity_update(w, w->def.dt);
    double p1[3] = {0, 0, 0}, k1 = 0.0, moved = 0.0;
    for (int i = 0; i < N; i++)
        for (int k = 0; k < 3; k++) {
            p1[k] += MASS * w->v[3 * i + k];
            k1 += 0.5 * MASS * w->v[3 * i + k] * w->v[3 * i + k];
            moved = fmax(moved, fabs(w->v[3 * i + k] - v[3 * i + k]));
        }
    printf("\n    XSPH: |Δ Σ m v| %.3g (bound %.3g), kinetic %.6g -> %.6g J", 
           fabs(p1[0] - p0[0]) + fabs(p1[1] - p0[1]) + fabs(p1[2] - p0[2]),
           8.0 * DBL_EPSILON * terms, k0, k1);
    for (int k = 0; k < 3; k++) CU_ASSERT(fabs(p1[k] - p0[k]) <= 8.0 * DBL_EPSILON * terms);
    CU_ASSERT(k1 < k0);
    CU_ASSERT(moved > 1e-3); /* the pass did act */
    pbd_world_free(w);
}

/* ---- vorticity (Eq. 15–16) ----------------------------------------------------------- */

/* A centre particle at rest and six on a ring of radius a = 0.04 m in the xy plane turning
 * rigidly, v_j = Ω ẑ × x_j: ω_0 = Σ_j V v_j × ∇_j W_0j with ∇_j W_0j = −∇W(x_0 − x_j) =
 * W'(a) x_j/a gives (ẑ × x_j) × x_j = −a² ẑ per particle, so ω_0 = 6 V Ω a |W'(a)| ẑ
 * (spiky W'(0.04) = −45 (0.06)²/(π h⁶) = −51566 1/m⁴: ω_0 = 6.188 1/s for Ω = 5 rad/s). */
static void test_vorticity_ring(void)
{
    const double a = 0.04, Om = 5.0;
    double x[21] = {0, 0, 0}, v[21] = {0, 0, 0};
    for (int j = 1; j <= 6; j++) {
        double t = (j - 1) * M_PI / 3.0;
        x[3 * j] = a * cos(t);
        x[3 * j + 1] = a * sin(t);
        x[3 * j + 2] = 0.0;
        v[3 * j] = -Om * x[3 * j + 1];
        v[3 * j + 1] = Om * x[3 * j];
        v[3 * j + 2] = 0.0;
    }
    pbd_world *w = cluster(7, x, v, 100.0, 0.05, 0.0, 0, 0, 4, 0.2);
    w->fluid_stages->velocity_update(w, w->def.dt);
    const double *om = w->fluid->omega, want = 6.0 * VOL * Om * a * fabs(dWs(a));
    CU_ASSERT(fabs(want - 6.188) < 1e-3);
    printf("\n    ring: omega_0 = (%.3g, %.3g, %.10g), 6 V Ω a |W'(a)| = %.10g", om[0], om[1],
           om[2], want);
    /* six terms of ~10 flops each on values of size want: 64 ε want */
    const double tol = 64.0 * DBL_EPSILON * want;
    CU_ASSERT(fabs(om[0]) <= tol && fabs(om[1]) <= tol);
    CU_ASSERT(fabs(om[2] - want) <= tol);
    for (int j = 2; j <= 6; j++) { /* the ring's: along z, all alike (the symmetry) */
        CU_ASSERT(fabs(om[3 * j] ) <= tol && fabs(om[3 * j + 1]) <= tol);
        CU_ASSERT(fabs(om[3 * j + 2] - om[5]) <= tol);
    }
    pbd_world_free(w);
}

/* Three particles on the x axis at 0, a, 2a, the middle one moving along y at u, the others
 * at rest (vorticity only). By hand, with g = |W'(a)| (spiky) and ∇W(±a x̂) = ∓g x̂:
 *   ω_0 = V u g ẑ, ω_1 = 0, ω_2 = −V u g ẑ (the shear on either side of the middle one);
 *   η_0 = V (|ω_1| − |ω_0|) ∇W(−a x̂) = −V |ω_0| g x̂: N_0 = −x̂, and N_2 = +x̂;
 *   Δv_0 = Δt ε N_0 × ω_0 = Δt ε V u g ŷ = Δv_2 (along u: the confinement feeds the shear),
 *   Δv_1 = 0. a = 0.03 m: g = 70187 1/m⁴, |ω_0| = 7.0187 1/s, Δv = 3.5093e-3 m/s for
 * ε = 0.05 m/s, Δt = 0.01 s, u = 1 m/s. */
static void test_vorticity_shear_hand(void)
{
    const double a = 0.03, u = 1.0, eps = 0.05;
    const double x[9] = {0, 0, 0, a, 0, 0, 2 * a, 0, 0}, v[9] = {0, 0, 0, 0, u, 0, 0, 0, 0};
    pbd_world *w = cluster(3, x, v, 100.0, eps, 0.0, 0, 0, 4, 0.2);
    w->fluid_stages->velocity_update(w, w->def.dt);
    const double g = fabs(dWs(a)), om = VOL * u * g, dv = w->def.dt * eps * om;
    CU_ASSERT(fabs(dv - 3.5093e-3) < 1e-7);
    printf("\n    shear: dv0 (%.3g, %.10g, %.3g), dv2 y %.10g, dv1 y %.3g; by hand %.10g",
           w->v[0], w->v[1], w->v[2], w->v[7], w->v[4] - u, dv);
    const double tol = 64.0 * DBL_EPSILON * dv; /* a few terms, a few ε each */
    const double *o = w->fluid->omega;
    CU_ASSERT(fabs(o[2] - om) <= 64.0 * DBL_EPSILON * om && fabs(o[8] + om) <= 64.0 * DBL_EPSILON * om);
    CU_ASSERT(fabs(o[5]) <= 64.0 * DBL_EPSILON * om);
    CU_ASSERT(fabs(w->v[1] - dv) <= tol && fabs(w->v[7] - dv) <= tol);
    CU_ASSERT(fabs(w->v[4] - u) <= tol);
    for (int i = 0; i < 3; i++) CU_ASSERT(w->v[3 * i] == 0.0 && w->v[3 * i + 2] == 0.0);
    pbd_world_free(w);
}

/* The whole velocity pass on a random cluster against Eq. 15–17 written out here:
 *   ω_i = Σ_j V (v_j − v_i) × (−∇W(x_i − x_j)),  η_i = Σ_j V (|ω_j| − |ω_i|) ∇W(x_i − x_j),
 *   v_i' = v_i + c Σ_j V W_ij (v_j − v_i) + Δt ε (η_i/|η_i|) × ω_i,
 * to rounding (each component within 256 ε of the sum of its terms' magnitudes, N's error
 * |δη|/|η| included); and with XSPH off the change Δv_i = Δt ε N × ω_i is normal to ω_i. */
static void reference_pass(int n, const double *x, const double *v, double c, double eps,
                           double dt, double *out, double *tol, double *om)
{
    double *mag = om + 3 * n;
    for (int i = 0; i < n; i++) {
        double o[3] = {0, 0, 0};
        for (int j = 0; j < n; j++) {
            if (j == i) continue;
            double g[3], vij[3], cr[3];
            gradW(x + 3 * i, x + 3 * j, g);
            for (int k = 0; k < 3; k++) vij[k] = v[3 * j + k] - v[3 * i + k];
            cross(vij, g, cr);
            for (int k = 0; k < 3; k++) o[k] -= VOL * cr[k];
        }
        memcpy(om + 3 * i, o, sizeof o);
        mag[i] = norm3(o);
    }
    for (int i = 0; i < n; i++) {
        double eta[3] = {0, 0, 0}, visc[3] = {0, 0, 0}, eta_abs = 0.0, visc_abs = 0.0;
        for (int j = 0; j < n; j++) {
            if (j == i) continue;
            double g[3], r = dist(x + 3 * i, x + 3 * j);
            gradW(x + 3 * i, x + 3 * j, g);
            for (int k = 0; k < 3; k++) {
                eta[k] += VOL * (mag[j] - mag[i]) * g[k];
                eta_abs += VOL * (mag[j] + mag[i]) * fabs(g[k]);
                visc[k] += VOL * W6(r) * (v[3 * j + k] - v[3 * i + k]);
                visc_abs += VOL * W6(r) * (fabs(v[3 * j + k]) + fabs(v[3 * i + k]));
            }
        }
        double en = norm3(eta), f[3] = {0, 0, 0}, N[3];
        if (eps > 0.0 && en > 0.0) {
            for (int k = 0; k < 3; k++) N[k] = eta[k] / en;
            cross(N, om + 3 * i, f);
        }
        for (int k = 0; k < 3; k++) out[3 * i + k] = v[3 * i + k] + c * visc[k] + dt * eps * f[k];
        tol[i] = 256.0 * DBL_EPSILON *
                 (norm3(v + 3 * i) + c * visc_abs + dt * eps * mag[i] * (1.0 + eta_abs / en));
    }
}

static void test_velocity_pass_reference(void)
{
    enum { N = 16 };
    double x[3 * N], v[3 * N], want[3 * N], tol[N], om[4 * N];
    const double c = 0.2, eps = 0.5;
    random_cluster(N, 23, x, v);
    for (int pass = 0; pass < 2; pass++) { /* XSPH and vorticity; vorticity alone */
        const double cc = pass == 0 ? c : 0.0;
        pbd_world *w = cluster(N, x, v, 100.0, eps, cc, 0, 0, 4, 0.2);
        w->fluid_stages->velocity_update(w, w->def.dt);
        reference_pass(N, x, v, cc, eps, w->def.dt, want, tol, om);
        double worst = 0.0, dv = 0.0, normal = 0.0;
        for (int i = 0; i < N; i++) {
            for (int k = 0; k < 3; k++) {
                worst = fmax(worst, fabs(w->v[3 * i + k] - want[3 * i + k]) / tol[i]);
                dv = fmax(dv, fabs(w->v[3 * i + k] - v[3 * i + k]));
            }
            for (int k = 0; k < 3; k++) /* the code's ω equals Eq. 15's */
                CU_ASSERT(fabs(w->fluid->omega[3 * i + k] - om[3 * i + k]) <= tol[i]);
            if (pass == 1) { /* Δv_i · ω_i = 0: the force is N × ω */
                double d[3] = {w->v[3 * i] - v[3 * i], w->v[3 * i + 1] - v[3 * i + 1],
                               w->v[3 * i + 2] - v[3 * i + 2]};
                double o = norm3(om + 3 * i), dot = d[0] * om[3 * i] + d[1] * om[3 * i + 1] +
                                                    d[2] * om[3 * i + 2];
                normal = fmax(normal, fabs(dot) / (tol[i] * o));
            }
        }
        printf("\n    velocity pass (%s): worst |v - Eq. 15-17| / bound %.3g, largest change "
               "%.3g m/s%s", pass == 0 ? "XSPH + vorticity" : "vorticity", worst, dv,
               pass == 1 ? "" : "");
        CU_ASSERT(worst <= 1.0);
        CU_ASSERT(dv > 1e-3); /* the passes did act */
        if (pass == 1) CU_ASSERT(normal <= 1.0);
        pbd_world_free(w);
    }
}

/* ---- the density update (Eq. 11, 13, 14) --------------------------------------------- */

/* One Jacobi iteration on a tiny cluster (s_corr off), against Eq. 11 and 14 written out:
 *   C_i = Σ_j m W_ij/ρ0 − 1 (j = i included), ∇_i C_i = V Σ_j ∇W(x_i − x_j),
 *   ∇_j C_i = −V ∇W(x_i − x_j),  λ_i = −C_i / (w Σ_k |∇_k C_i|² + w ε)  (w = 1/m),
 *   Δp_i = V Σ_j (wλ_i + wλ_j) ∇W(x_i − x_j).
 * By hand for two particles at r = 0.05 m (m = 0.1 kg, ε = 100 1/m²): W(0) = 1566.68,
 * W(0.05) = 660.94 1/m³, C = 0.1 (1566.68 + 660.94)/1000 − 1 = −0.77724, W'(0.05) =
 * −35809.9 1/m⁴, Σ|∇C|² = 2 (1e-4 · 35809.9)² = 25.647, λ = 0.77724/(10 · 125.647) =
 * 6.1859e-4. Rounding: C is a sum of m + 1 positive terms less 1 (its error (m + 2) ε ρ/ρ0
 * absolute), the denominator of positive terms (relative 4(m + 2) ε): 16 (m + 4) ε of
 * (|C| + ρ/ρ0)/denominator bounds λ's. */
/* Eq. 11 at positions x: the multipliers dl (PBD: λ_i = −C_i/(w Σ|∇C|² + w reg), reg = ε;
 * XPBD: Δλ_i = (−C_i − reg λ_i)/(w Σ|∇C|² + reg), reg = α̃, λ_i = prev) and their rounding
 * bounds; then Eq. 14's Δp from them, with the bound on each component. */
static void expected_update(int n, const double *x, double reg, int xpbd, const double *prev,
                            double *dl, double *dl_tol, double *dp, double *dp_tol)
{
    const double wi = 1.0 / MASS;
    for (int i = 0; i < n; i++) {
        double rho = MASS * W6(0.0), gi[3] = {0, 0, 0}, sum2 = 0.0;
        for (int j = 0; j < n; j++) {
            if (j == i) continue;
            double g[3];
            rho += MASS * W6(dist(x + 3 * i, x + 3 * j));
            gradW(x + 3 * i, x + 3 * j, g);
            for (int k = 0; k < 3; k++) gi[k] += VOL * g[k];
            sum2 += VOL * VOL * (g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
        }
        double C = rho / RHO0 - 1.0, den = wi * (norm3(gi) * norm3(gi) + sum2);
        double lp = xpbd ? prev[i] : 0.0;
        den += xpbd ? reg : wi * reg;
        dl[i] = (-C - (xpbd ? reg * lp : 0.0)) / den;
        dl_tol[i] = 16.0 * (n + 4) * DBL_EPSILON * (fabs(C) + rho / RHO0 + fabs(reg * lp)) / den;
    }
    for (int i = 0; i < n; i++) {
        double mag = 0.0;
        for (int k = 0; k < 3; k++) dp[3 * i + k] = 0.0;
        for (int j = 0; j < n; j++) {
            if (j == i) continue;
            double g[3];
            gradW(x + 3 * i, x + 3 * j, g);
            for (int k = 0; k < 3; k++) {
                dp[3 * i + k] += VOL * wi * (dl[i] + dl[j]) * g[k];
                mag += VOL * wi * (fabs(dl[i]) + fabs(dl[j]) + dl_tol[i] + dl_tol[j]) * fabs(g[k]);
            }
        }
        dp_tol[i] = 16.0 * (n + 4) * DBL_EPSILON * mag + 4.0 * DBL_EPSILON * norm3(x + 3 * i);
    }
}

/* One Jacobi iteration of PBD (ε) against Eq. 11 and 14: the worst |λ − Eq. 11| and
 * |Δp − Eq. 14| over their bounds. */
static void check_density_update(int n, const double *x, double eps, double *worst_l,
                                 double *worst_p)
{
    pbd_world *w = cluster(n, x, NULL, eps, 0.0, 0.0, 0, 0, 4, 0.2);
    CU_ASSERT_EQUAL(w->fluid_stages->project(w, w->def.dt), 0);
    double dl[MAXN], dlt[MAXN], dp[3 * MAXN], dpt[MAXN];
    expected_update(n, x, eps, 0, NULL, dl, dlt, dp, dpt);
    *worst_l = *worst_p = 0.0;
    for (int i = 0; i < n; i++) {
        *worst_l = fmax(*worst_l, fabs(w->sets[0].lambda[i] - dl[i]) / dlt[i]);
        for (int k = 0; k < 3; k++)
            *worst_p = fmax(*worst_p, fabs(w->p[3 * i + k] - x[3 * i + k] - dp[3 * i + k]) / dpt[i]);
    }
    pbd_world_free(w);
}

/* XPBD's form (Eq. 18 with α̃ = α/Δt² = w ε: PBF's ε as a compliance): the first iteration's Δλ
 * equals PBD's λ, the second carries −α̃λ: Δλ_2 = (−C(p_1) − α̃ λ_1)/(w Σ|∇C(p_1)|² + α̃), and
 * each iteration moves by Eq. 14 with its Δλ; λ accumulates. */
static void test_density_update_xpbd(void)
{
    enum { N = 4 };
    const double x[3 * N] = {0, 0, 0, 0.04, 0, 0, 0.01, 0.05, 0, 0.02, 0.01, 0.045};
    const double eps = 100.0, at = eps / MASS;
    pbd_world *w = cluster(N, x, NULL, eps, 0.0, 0.0, 0, 0, 4, 0.2);
    w->def.method = PBD_METHOD_XPBD;
    for (int k = 0; k < N; k++) w->sets[0].compliance[k] = at * w->def.dt * w->def.dt;
    double dl[N], dlt[N], dp[3 * N], dpt[N], pos[3 * N], lam[N], worst = 0.0;
    memcpy(pos, x, sizeof pos);
    for (int k = 0; k < N; k++) lam[k] = 0.0;
    for (int it = 0; it < 2; it++) {
        expected_update(N, pos, at, 1, lam, dl, dlt, dp, dpt);
        CU_ASSERT_EQUAL(w->fluid_stages->project(w, w->def.dt), 0);
        for (int i = 0; i < N; i++) {
            lam[i] += dl[i];
            worst = fmax(worst, fabs(w->sets[0].lambda[i] - lam[i]) / (2.0 * dlt[i]));
            for (int k = 0; k < 3; k++) {
                pos[3 * i + k] += dp[3 * i + k];
                worst = fmax(worst, fabs(w->p[3 * i + k] - pos[3 * i + k]) / (2.0 * dpt[i]));
            }
        }
        memcpy(pos, w->p, sizeof pos); /* the next iteration from the code's positions */
    }
    printf("\n    XPBD, two iterations: worst |λ, p − Eq. 11, 14| / bound %.3g", worst);
    CU_ASSERT(worst <= 1.0);
    pbd_world_free(w);
}

static void test_density_update_hand(void)
{
    const double two[6] = {0, 0, 0, 0.05, 0, 0};
    pbd_world *w = cluster(2, two, NULL, 100.0, 0.0, 0.0, 0, 0, 4, 0.2);
    w->fluid_stages->project(w, w->def.dt);
    printf("\n    two particles: lambda %.6g (by hand 6.1859e-4)", w->sets[0].lambda[0]);
    CU_ASSERT(fabs(w->sets[0].lambda[0] - 6.1859e-4) < 1e-8);
    CU_ASSERT(w->sets[0].lambda[0] == w->sets[0].lambda[1]);
    pbd_world_free(w);
    double wl, wp;
    check_density_update(2, two, 100.0, &wl, &wp);
    CU_ASSERT(wl <= 1.0 && wp <= 1.0);
    const double tri[12] = {0, 0, 0, 0.04, 0, 0, 0.01, 0.05, 0, 0.02, 0.01, 0.045};
    check_density_update(4, tri, 100.0, &wl, &wp);
    printf("; four particles: |λ − Eq. 11| / bound %.3g, |Δp − Eq. 14| / bound %.3g", wl, wp);
    CU_ASSERT(wl <= 1.0 && wp <= 1.0);
    enum { N = 12 };
    double x[3 * N], v[3 * N];
    random_cluster(N, 5, x, v);
    check_density_update(N, x, 10.0, &wl, &wp);
    printf("; twelve: %.3g, %.3g", wl, wp);
    CU_ASSERT(wl <= 1.0 && wp <= 1.0);
}

/* s_corr (Eq. 13–14) alone: ε = 1e30 makes every λ ~1e-31 (C = O(1)), so two particles at
 * r move by Δp_0 = V s_corr ∇W(x_0 − x_1), s_corr = −k (W(r)/W(|Δq|))ⁿ, |Δq| = dq h, and
 * Δp_1 = −Δp_0 (the pair term is symmetric): apart, by V k (W(r)/W(Δq))ⁿ |W'(r)|. At
 * r = 0.03, dq = 0.2 (Δq = 0.02 m), n = 4, k = 0.001: (W(r)/W(Δq))⁴ = (0.0091/0.0096)¹² =
 * 0.52631, |W'| = 70187 1/m⁴: 3.6940e-3 m. Rounding: pow and the kernels, 32 ε relative. */
static void test_s_corr(void)
{
    const double x[6] = {0, 0, 0, 0.03, 0, 0};
    const double ks[2] = {0.001, 0.002}, ns[2] = {4.0, 3.0}, dqs[2] = {0.2, 0.25};
    for (int c = 0; c < 2; c++) {
        pbd_world *w = cluster(2, x, NULL, 1e30, 0.0, 0.0, 1, ks[c], ns[c], dqs[c]);
        w->fluid_stages->project(w, w->def.dt);
        double r = 0.03, sc = ks[c] * pow(W6(r) / W6(dqs[c] * H), ns[c]);
        double want = VOL * sc * fabs(dWs(r)); /* along −x for particle 0, +x for 1 */
        if (c == 0) CU_ASSERT(fabs(want - 3.6940e-3) < 1e-7);
        double d0 = w->p[0] - x[0], d1 = w->p[3] - x[3];
        printf("\n    s_corr k %g n %g dq %g: dp %.10g, %.10g (Eq. 13: -+%.10g)", ks[c], ns[c],
               dqs[c], d0, d1, want);
        CU_ASSERT(fabs(d0 + want) <= 32.0 * DBL_EPSILON * want);
        CU_ASSERT(fabs(d1 - want) <= 32.0 * DBL_EPSILON * want + 4.0 * DBL_EPSILON * x[3]);
        CU_ASSERT(fabs(w->p[3] - x[3] + (w->p[0] - x[0])) <= 4.0 * DBL_EPSILON * x[3]);
        for (int k = 1; k < 3; k++) CU_ASSERT(w->p[k] == 0.0 && w->p[3 + k] == 0.0);
        pbd_world_free(w);
    }
}

/* s_corr's shape, independent of a hand value: at r = |Δq| = dq h the ratio W(r)/W(Δq) is 1,
 * so Δp = V k |W'(Δq)| whatever n is (a slip in Δq's scale moves it); between two distances
 * the displacements scale as (W(r1)/W(r2))ⁿ W'(r1)/W'(r2), whatever k and Δq are (a slip in
 * n changes the power). Rounding: 32 ε relative each. */
static double s_corr_push(double r, double k, double n, double dq)
{
    const double x[6] = {0, 0, 0, r, 0, 0};
    pbd_world *w = cluster(2, x, NULL, 1e30, 0.0, 0.0, 1, k, n, dq);
    w->fluid_stages->project(w, w->def.dt);
    double d = w->p[3] - r;
    pbd_world_free(w);
    return d;
}

static void test_s_corr_scaling(void)
{
    const double k = 0.001, dq = 0.3;
    for (double n = 2.0; n <= 4.0; n += 2.0) {
        double at = s_corr_push(dq * H, k, n, dq), want = VOL * k * fabs(dWs(dq * H));
        CU_ASSERT(fabs(at - want) <= 32.0 * DBL_EPSILON * want + 4.0 * DBL_EPSILON * dq * H);
        double r1 = 0.02, r2 = 0.05, d1 = s_corr_push(r1, k, n, dq), d2 = s_corr_push(r2, k, n, dq);
        double ratio = pow(W6(r1) / W6(r2), n) * dWs(r1) / dWs(r2);
        printf("\n    s_corr n %g: at |dq| %.10g (V k |W'| %.10g); ratio %.10g (Eq. 13: %.10g)", n,
               at, want, d1 / d2, ratio);
        CU_ASSERT(fabs(d1 / d2 - ratio) <= 64.0 * DBL_EPSILON * ratio);
    }
}

void register_fluid_passes_tests(void)
{
    CU_pSuite s = CU_add_suite("fluid_passes", NULL, NULL);
    CU_add_test(s, "xsph_hand", test_xsph_hand);
    CU_add_test(s, "xsph_momentum_dissipation", test_xsph_momentum_dissipation);
    CU_add_test(s, "vorticity_ring", test_vorticity_ring);
    CU_add_test(s, "velocity_pass_reference", test_velocity_pass_reference);
    CU_add_test(s, "density_update_hand", test_density_update_hand);
    CU_add_test(s, "s_corr", test_s_corr);
    CU_add_test(s, "s_corr_scaling", test_s_corr_scaling);
    CU_add_test(s, "vorticity_shear_hand", test_vorticity_shear_hand);
    CU_add_test(s, "density_update_xpbd", test_density_update_xpbd);
}
