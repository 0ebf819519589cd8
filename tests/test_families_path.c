/* The solver families' path, iteration by iteration, against the test's own closed forms:
 * the shared step (inertial target, initial guesses, velocity update), VBD's local 3×3 Newton
 * step with damping and Chebyshev acceleration, AVBD's multiplier, penalty, warm start and
 * error reduction, PD's local projections and global solve, and the Newton reference's line
 * search. Tolerances are rounding bounds: ε times a condition number times the magnitudes
 * the quantity is computed from (each test says which). */
#include "tests.h"
#include "solver/families.h"

#include <float.h>
#include <gsl/gsl_linalg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EPS DBL_EPSILON

/* x = A⁻¹ b, A n×n row-major (n <= 8): GSL's LU with partial pivoting, independent of the
 * solver's own eliminations. */
static void dense_solve(int n, const double *A_in, const double *b, double *x)
{
    double A[64], r[8];
    memcpy(A, A_in, (size_t)n * n * sizeof *A);
    memcpy(r, b, (size_t)n * sizeof *r);
    gsl_matrix_view M = gsl_matrix_view_array(A, (size_t)n, (size_t)n);
    gsl_vector_view B = gsl_vector_view_array(r, (size_t)n), X = gsl_vector_view_array(x, (size_t)n);
    gsl_permutation *perm = gsl_permutation_alloc((size_t)n);
    int sign = 0;
    gsl_linalg_LU_decomp(&M.matrix, perm, &sign);
    gsl_linalg_LU_solve(&M.matrix, perm, &B.vector, &X.vector);
    gsl_permutation_free(perm);
}

/* κ∞(A) = ‖A‖∞ ‖A⁻¹‖∞ (n <= 8). */
static double cond_inf(int n, const double *A)
{
    double inv[64], e[8], col[8], na = 0.0, ni = 0.0;
    for (int c = 0; c < n; c++) {
        for (int i = 0; i < n; i++) e[i] = i == c;
        dense_solve(n, A, e, col);
        for (int i = 0; i < n; i++) inv[i * n + c] = col[i];
    }
    for (int i = 0; i < n; i++) {
        double ra = 0.0, ri = 0.0;
        for (int k = 0; k < n; k++) {
            ra += fabs(A[i * n + k]);
            ri += fabs(inv[i * n + k]);
        }
        na = fmax(na, ra);
        ni = fmax(ni, ri);
    }
    return na * ni;
}

static double norm3(const double *v) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

static double dist3(const double *a, const double *b)
{
    double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    return norm3(d);
}

/* A spring of rest length d and compliance α from a fixed anchor a to the free vertex (d = 0:
 * an attachment, C = |x − a|). hard: α = 0 (AVBD). */
typedef struct {
    double a[3], d, alpha;
} hand_spring;

/* C, n = ∇C = (x − a)/r and r = |x − a| of spring s at x. */
static double spring_eval(const hand_spring *s, const double *x, double *n, double *r)
{
    double u[3] = {x[0] - s->a[0], x[1] - s->a[1], x[2] - s->a[2]};
    *r = norm3(u);
    for (int k = 0; k < 3; k++) n[k] = u[k] / *r;
    return *r - s->d;
}

/* One VBD vertex step (VBD Sec. 3: x += H⁻¹f, f = −(m/h²)(x − y) − Σ ∇E, H = (m/h²)I + Σ ∇²E,
 * ∇²E = (nnᵀ + C (I − nnᵀ)/r)/α; "Damping": f −= (k_d/h)∇²E (x − x_t), H += (k_d/h)∇²E) of
 * the one free vertex at x; *kappa gets κ∞(H). */
static void vbd_hand(double m, double h, const double *y, const double *xt, double kd,
                     const hand_spring *sp, int ns, double *x, double *kappa)
{
    double mh = m / (h * h), f[3], H[9] = {0}, dx[3];
    for (int k = 0; k < 3; k++) {
        f[k] = -mh * (x[k] - y[k]);
        H[4 * k] = mh;
    }
    for (int s = 0; s < ns; s++) {
        double n[3], r, C = spring_eval(&sp[s], x, n, &r), k = 1.0 / sp[s].alpha, Hl[9];
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                Hl[3 * a + b] = k * (n[a] * n[b] + C * ((a == b) - n[a] * n[b]) / r);
        for (int a = 0; a < 3; a++) {
            f[a] -= k * C * n[a];
            for (int b = 0; b < 3; b++) {
                f[a] -= kd / h * Hl[3 * a + b] * (x[b] - xt[b]);
                H[3 * a + b] += (1.0 + kd / h) * Hl[3 * a + b];
            }
        }
    }
    dense_solve(3, H, f, dx);
    for (int k = 0; k < 3; k++) x[k] += dx[k];
    *kappa = cond_inf(3, H);
}

/* A world of one fixed particle 0 at the origin and free particle 1 at x0 moving at v0, gravity
 * g, and the springs sp (anchors at the origin: distance constraints to particle 0; d = 0 with
 * another anchor: attachments). */
static pbd_world *one_vertex(const double *x0, const double *v0, double m, const double *g,
                             const hand_spring *sp, int ns, pbd_method method, double h)
{
    double o[3] = {0, 0, 0};
    pbd_world *w = test_two_particles(o, x0, INFINITY, m);
    pbd_world_set_particle(w, 1, x0, v0, m);
    for (int k = 0; k < 3; k++) w->def.gravity[k] = g[k];
    for (int s = 0; s < ns; s++) {
        if (sp[s].d > 0.0 || norm3(sp[s].a) == 0.0) {
            int set = pbd_world_add_set(w, &pbd_distance_type, 0);
            int32_t idx[2] = {0, 1};
            pbd_set_add(w, set, idx, &sp[s].d, 1.0, sp[s].alpha);
        } else {
            int set = pbd_world_add_set(w, &pbd_attachment_type, 0);
            int32_t idx[1] = {1};
            pbd_set_add(w, set, idx, sp[s].a, 1.0, sp[s].alpha);
        }
    }
    w->def.method = method;
    w->def.dt = h;
    return w;
}

static const double G_EARTH[3] = {0.0, -9.81, 0.0};

/* ---- the shared step ------------------------------------------------------------------ */

/* A free particle and a moving fixed one, no constraints, VBD damping on: implicit Euler's
 * v ← v + h g, x ← x + h v per substep (y = x + h v + h² g, v = (x − x_t)/h), the fixed one at
 * x + h v without g; VBD's damping acts through energies only, so it leaves them alone. Bound:
 * each substep rounds x and v at a few ε of their magnitudes; N substeps add up. */
static void test_shared_free_particle(void)
{
    const pbd_method methods[3] = {PBD_METHOD_VBD, PBD_METHOD_AVBD, PBD_METHOD_PD};
    const double x0[3] = {0.3, 1.7, -0.4}, v0[3] = {0.8, 2.5, -1.1}, vf[3] = {-0.6, 0.2, 0.9};
    const double dt = 0.01;
    const int steps = 5, sub = 2, N = steps * sub;
    for (int k = 0; k < 3; k++) {
        double o[3] = {1, 0, 0};
        pbd_world *w = test_two_particles(o, x0, INFINITY, 0.7);
        pbd_world_set_particle(w, 0, o, vf, INFINITY);
        pbd_world_set_particle(w, 1, x0, v0, 0.7);
        for (int c = 0; c < 3; c++) w->def.gravity[c] = G_EARTH[c];
        w->def.method = methods[k];
        w->def.dt = dt;
        w->def.substeps = sub;
        w->def.iterations = 2;
        w->def.vbd_damping = 0.05;
        for (int s = 0; s < steps; s++) CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
        const double h = dt / sub;
        for (int c = 0; c < 3; c++) {
            double x = x0[c] + N * h * v0[c] + h * h * G_EARTH[c] * N * (N + 1) / 2.0;
            double v = v0[c] + N * h * G_EARTH[c];
            double tol_x = 4.0 * N * EPS * (fabs(x0[c]) + N * h * (fabs(v0[c]) + 9.81 * N * h));
            double tol_v = 4.0 * N * EPS * (fabs(v0[c]) + 9.81 * N * h) + 2.0 * tol_x / h;
            CU_ASSERT(fabs(w->x[3 + c] - x) <= tol_x);
            CU_ASSERT(fabs(w->v[3 + c] - v) <= tol_v);
            double xf = o[c] + N * h * vf[c];
            CU_ASSERT(fabs(w->x[c] - xf) <= 4.0 * N * EPS * (fabs(o[c]) + N * h * fabs(vf[c])));
            CU_ASSERT(fabs(w->v[c] - vf[c]) <= 8.0 * N * EPS * (fabs(o[c]) + 1.0) / h);
        }
        CU_ASSERT(fabs(w->time - N * h) <= N * EPS * N * h);
        pbd_world_free(w);
    }
}

/* VBD's initial guesses (VBD "Initialization"), each followed by one local Newton step of a
 * stretched off-axis spring, over two steps: previous x_t, inertia x_t + h v, acceleration y,
 * adaptive x_t + h v + h² ã (first step ã = g; then ã = ĝ clamp((v_t − v_{t−1})·ĝ/h, 0, |g|)).
 * Bound: the local solve's 16 ε κ(H) (|x| + |Δx|) per step. */
static void test_shared_initial_guess(void)
{
    const double h = 1.0 / 60.0, m = 0.05;
    const double x0[3] = {0.8, 0.5, 0.1}, v0[3] = {0.3, -2.0, 0.4};
    hand_spring sp = {{0, 0, 0}, 0.9, 1e-4};
    for (int init = 0; init < 4; init++) {
        pbd_world *w = one_vertex(x0, v0, m, G_EARTH, &sp, 1, PBD_METHOD_VBD, h);
        w->def.iterations = 1;
        w->def.vbd_init = (pbd_vbd_init)init;
        double vprev[3] = {0, 0, 0};
        for (int step = 0; step < 2; step++) {
            double xt[3], vt[3], y[3], p[3], kappa;
            memcpy(xt, w->x + 3, sizeof xt);
            memcpy(vt, w->v + 3, sizeof vt);
            double along = 9.81; /* ã along ĝ = −e_y */
            if (step > 0) along = fmin(fmax(-(vt[1] - vprev[1]) / h, 0.0), 9.81);
            for (int c = 0; c < 3; c++) {
                y[c] = xt[c] + h * vt[c] + h * h * G_EARTH[c];
                double acc = c == 1 ? -along : 0.0;
                p[c] = init == 0 ? xt[c] : init == 1 ? xt[c] + h * vt[c] : init == 2 ? y[c]
                                                                       : xt[c] + h * vt[c] + h * h * acc;
            }
            double p0[3];
            memcpy(p0, p, sizeof p0);
            vbd_hand(m, h, y, xt, 0.0, &sp, 1, p, &kappa);
            CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
            double tol = 16.0 * EPS * kappa * (norm3(p) + dist3(p, p0));
            CU_ASSERT(dist3(w->x + 3, p) <= tol);
            for (int c = 0; c < 3; c++)
                CU_ASSERT(fabs(w->v[3 + c] - (p[c] - xt[c]) / h) <= (tol + 2 * EPS * norm3(p)) / h);
            memcpy(vprev, vt, sizeof vprev);
        }
        pbd_world_free(w);
    }
}

/* ---- VBD ------------------------------------------------------------------------------ */

/* K iterations of VBD on one free vertex with a stretched off-axis spring and an attachment
 * (VBD Sec. 3), with and without damping, equal K hand Newton steps of its local energy; after
 * the step v = (x − x_t)/h and λ = −h²C/α (XPBD's convention). Bound: 16 ε κ(H)(|x| + |Δx|)
 * per iteration, summed. */
static void test_vbd_local_newton(void)
{
    const double h = 1.0 / 60.0, m = 0.05;
    const double x0[3] = {0.8, 0.5, 0.1}, v0[3] = {0.3, -0.2, 0.4};
    hand_spring sp[2] = {{{0, 0, 0}, 0.9, 1e-4}, {{0.7, 0.9, -0.2}, 0.0, 3e-3}};
    for (int damped = 0; damped < 2; damped++)
        for (int K = 1; K <= 4; K++) {
            const double kd = damped ? 2e-2 : 0.0;
            pbd_world *w = one_vertex(x0, v0, m, G_EARTH, sp, 2, PBD_METHOD_VBD, h);
            w->def.iterations = K;
            w->def.vbd_init = PBD_VBD_INIT_PREVIOUS;
            w->def.vbd_damping = kd;
            double y[3], x[3], tol = 0.0, kappa;
            for (int c = 0; c < 3; c++) y[c] = x0[c] + h * v0[c] + h * h * G_EARTH[c];
            memcpy(x, x0, sizeof x);
            for (int it = 0; it < K; it++) {
                double before[3];
                memcpy(before, x, sizeof before);
                vbd_hand(m, h, y, x0, kd, sp, 2, x, &kappa);
                tol += 16.0 * EPS * kappa * (norm3(x) + dist3(x, before));
            }
            CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
            CU_ASSERT(dist3(w->x + 3, x) <= tol);
            if (!(dist3(w->x + 3, x) <= tol))
                fprintf(stderr, "vbd_local_newton: K %d damped %d: %.3e > %.3e\n", K, damped,
                        dist3(w->x + 3, x), tol);
            for (int c = 0; c < 3; c++)
                CU_ASSERT(fabs(w->v[3 + c] - (x[c] - x0[c]) / h) <= (tol + 2 * EPS * norm3(x)) / h);
            double n[3], r, C = spring_eval(&sp[0], x, n, &r);
            CU_ASSERT(fabs(w->sets[0].lambda[0] + h * h * C / sp[0].alpha) <=
                      h * h / sp[0].alpha * (tol + 4 * EPS * r));
            pbd_world_free(w);
        }
}

/* The converged damped step of an on-axis spring (VBD "Damping"): f = 0 at
 *   (m/h²)(x − y) + (x − d)/α + (k_d/(hα))(x − x_t) = 0,
 * so x = (m y/h² + d/α + k_d x_t/(hα)) / (m/h² + (1 + k_d/h)/α), and v = (x − x_t)/h, in one
 * step and in two substeps of dt/2 (each from the last's x and v; the time ends at dt): the
 * damping's integral effect. Bound: a few ε of the terms' magnitudes over the denominator,
 * per substep. */
static void test_vbd_damping_converged(void)
{
    const double dt = 0.02, m = 0.3, d = 1.0, alpha = 2e-3, x0 = 1.2, v0 = -0.7;
    for (int k = 0; k < 3; k++)
        for (int sub = 1; sub <= 2; sub++) {
            const double kd = (double[]){0.0, 1e-2, 0.3}[k], h = dt / sub;
            double p[3] = {x0, 0, 0}, v[3] = {v0, 0, 0}, g[3] = {0, 0, 0};
            hand_spring sp = {{0, 0, 0}, d, alpha};
            pbd_world *w = one_vertex(p, v, m, g, &sp, 1, PBD_METHOD_VBD, dt);
            w->def.iterations = 40;
            w->def.substeps = sub;
            w->def.vbd_damping = kd;
            double x = x0, vx = v0, tol = 0.0;
            for (int s = 0; s < sub; s++) {
                double y = x + h * vx, den = m / (h * h) + (1 + kd / h) / alpha;
                double xn = (m * y / (h * h) + d / alpha + kd * x / (h * alpha)) / den;
                tol += 8.0 * EPS * (m * fabs(y) / (h * h) + d / alpha + kd * x / (h * alpha)) / den;
                vx = (xn - x) / h;
                x = xn;
            }
            CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
            CU_ASSERT(fabs(w->x[3] - x) <= tol);
            CU_ASSERT(fabs(w->v[3] - vx) <= (2 * tol + 2 * EPS * x0) / h);
            CU_ASSERT(fabs(w->time - dt) <= 2 * EPS * dt);
            pbd_world_free(w);
        }
}

/* Chebyshev acceleration (VBD Sec. 3.8): K iterations equal the hand recurrence
 *   x^(n+1) = ω_{n+1}(x̂^(n+1) − x^(n−1)) + x^(n−1),  ω_1 = 1, ω_2 = 2/(2 − ρ²),
 *   ω_{n+1} = 4/(4 − ρ²ω_n),
 * x̂ the hand local Newton step, and the workspace's last ω equals ω_K. Bound: as for the local
 * step, times the extrapolation's gain (ω <= 2, so 3 per iteration). */
static void test_vbd_chebyshev_path(void)
{
    const double h = 1.0 / 60.0, m = 0.05, rho = 0.9;
    const double x0[3] = {0.8, 0.5, 0.1}, v0[3] = {0.3, -0.2, 0.4};
    hand_spring sp[2] = {{{0, 0, 0}, 0.9, 1e-4}, {{0.7, 0.9, -0.2}, 0.0, 3e-3}};
    for (int K = 1; K <= 6; K++) {
        pbd_world *w = one_vertex(x0, v0, m, G_EARTH, sp, 2, PBD_METHOD_VBD, h);
        w->def.iterations = K;
        w->def.vbd_init = PBD_VBD_INIT_PREVIOUS;
        w->def.vbd_chebyshev_rho = rho;
        double y[3], hist[8][3], omega = 1.0, tol = 0.0, kappa;
        for (int c = 0; c < 3; c++) y[c] = x0[c] + h * v0[c] + h * h * G_EARTH[c];
        memcpy(hist[0], x0, sizeof hist[0]);
        for (int n = 0; n < K; n++) {
            double xh[3];
            memcpy(xh, hist[n], sizeof xh);
            vbd_hand(m, h, y, x0, 0.0, sp, 2, xh, &kappa);
            omega = n == 0 ? 1.0 : n == 1 ? 2.0 / (2.0 - rho * rho) : 4.0 / (4.0 - rho * rho * omega);
            for (int c = 0; c < 3; c++)
                hist[n + 1][c] = n == 0 ? xh[c] : omega * (xh[c] - hist[n - 1][c]) + hist[n - 1][c];
            tol = 3.0 * tol + 16.0 * EPS * kappa * (norm3(xh) + dist3(xh, hist[n]));
        }
        CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
        CU_ASSERT(dist3(w->x + 3, hist[K]) <= tol);
        if (!(dist3(w->x + 3, hist[K]) <= tol))
            fprintf(stderr, "chebyshev_path: K %d: %.3e > %.3e\n", K, dist3(w->x + 3, hist[K]), tol);
        pbd_family_ws *fw = NULL;
        CU_ASSERT_EQUAL_FATAL(pbd_family_workspace(w, &fw), PBD_OK);
        CU_ASSERT(fabs(fw->cheb_omega - omega) <= 4.0 * K * EPS * omega);
        pbd_world_free(w);
    }
}

/* ---- AVBD ----------------------------------------------------------------------------- */

/* The hand AVBD state of one hard spring (index 0) and one soft attachment (index 1). */
typedef struct {
    double k[2], lam[2], c0;
} avbd_hand_state;

/* λ⁺ of constraint s at x (AVBD: hard k C̃ + λ, C̃ = C − α_avbd C(x_t); soft k C) and C̃. */
static double avbd_lambda_plus(const avbd_hand_state *st, const hand_spring *sp, int s,
                               const double *x, double alpha_avbd, double *Ct)
{
    double n[3], r, C = spring_eval(&sp[s], x, n, &r);
    *Ct = sp[s].alpha == 0.0 ? C - alpha_avbd * st->c0 : C;
    return st->k[s] * *Ct + (sp[s].alpha == 0.0 ? st->lam[s] : 0.0);
}

/* One AVBD iteration on the free vertex: the local step with force −λ⁺∇C, Hessian
 * k∇C∇Cᵀ + |λ⁺| diag(‖columns of ∇²C‖) (AVBD "Hessian approximation"; for ∇²C = (I − nnᵀ)/r
 * the column norms are √(1 − n_a²)/r), then λ ← λ⁺ (hard) and k ← k + β|C̃| (soft: up to 1/α),
 * AVBD Algorithm 1. *kappa gets κ∞(H). */
static void avbd_hand_iteration(avbd_hand_state *st, const hand_spring *sp, double m, double h,
                                const double *y, const pbd_solver_def *d, double *x, double *kappa)
{
    double mh = m / (h * h), f[3], H[9] = {0}, dx[3];
    for (int k = 0; k < 3; k++) {
        f[k] = -mh * (x[k] - y[k]);
        H[4 * k] = mh;
    }
    for (int s = 0; s < 2; s++) {
        double n[3], r, Ct;
        spring_eval(&sp[s], x, n, &r);
        double lp = avbd_lambda_plus(st, sp, s, x, d->avbd_alpha, &Ct);
        for (int a = 0; a < 3; a++) {
            f[a] -= lp * n[a];
            for (int b = 0; b < 3; b++) H[3 * a + b] += st->k[s] * n[a] * n[b];
            H[4 * a] += fabs(lp) * sqrt(fmax(1.0 - n[a] * n[a], 0.0)) / r;
        }
    }
    dense_solve(3, H, f, dx);
    for (int k = 0; k < 3; k++) x[k] += dx[k];
    *kappa = cond_inf(3, H);
    for (int s = 0; s < 2; s++) {
        double Ct, lp = avbd_lambda_plus(st, sp, s, x, d->avbd_alpha, &Ct);
        if (sp[s].alpha == 0.0) st->lam[s] = lp;
        st->k[s] += d->avbd_beta * fabs(Ct);
        if (sp[s].alpha > 0.0) st->k[s] = fmin(st->k[s], 1.0 / sp[s].alpha);
    }
}

/* Three AVBD steps of three iterations on one free vertex (m = 2 kg) held by a hard spring
 * stretched at the start and a soft attachment: after each step x, v, the penalties k, the
 * hard multiplier λ, C(x_t) of the error reduction and the sets' λ = −h²λ⁺ equal the hand
 * AVBD: start k = k_start (hard: the world's largest m/h²; soft: its particle's m/h², capped
 * to 1/α), λ = 0; warm start (AVBD "Warm starting") k ← max(γk, k_start), λ ← αγλ. Bounds:
 * positions 16 ε κ(H)(|x| + |Δx|) per iteration, summed over the steps; k and λ move with C̃
 * (k by β|C̃|, λ by k C̃): β (resp. k) times the position bound, plus ε of their size per
 * update. */
static void test_avbd_path(void)
{
    const double h = 1.0 / 60.0, m = 2.0;
    const double x0[3] = {0.9, -0.55, 0.2}, v0[3] = {0.5, 0.3, -0.2};
    hand_spring sp[2] = {{{0, 0, 0}, 1.0, 0.0}, {{0.8, -0.9, 0.4}, 0.0, 2e-4}};
    pbd_world *w = one_vertex(x0, v0, m, G_EARTH, sp, 2, PBD_METHOD_AVBD, h);
    const int iters = 3;
    w->def.iterations = iters;
    w->def.vbd_init = PBD_VBD_INIT_INERTIA;
    const pbd_solver_def *d = &w->def;
    avbd_hand_state st;
    const double k0 = m / (h * h);
    st.k[0] = k0;
    st.k[1] = fmin(k0, 1.0 / sp[1].alpha);
    st.lam[0] = st.lam[1] = 0.0;
    double tol_x = 0.0;
    for (int step = 0; step < 3; step++) {
        double xt[3], vt[3], y[3], x[3], kappa, n[3], r;
        memcpy(xt, w->x + 3, sizeof xt);
        memcpy(vt, w->v + 3, sizeof vt);
        if (step > 0) {
            st.k[0] = fmax(d->avbd_gamma * st.k[0], k0);
            st.lam[0] *= d->avbd_alpha * d->avbd_gamma;
            st.k[1] = fmin(fmax(d->avbd_gamma * st.k[1], k0), 1.0 / sp[1].alpha);
        }
        st.c0 = spring_eval(&sp[0], xt, n, &r);
        for (int c = 0; c < 3; c++) {
            y[c] = xt[c] + h * vt[c] + h * h * G_EARTH[c];
            x[c] = xt[c] + h * vt[c];
        }
        for (int it = 0; it < iters; it++) {
            double before[3];
            memcpy(before, x, sizeof before);
            avbd_hand_iteration(&st, sp, m, h, y, d, x, &kappa);
            tol_x += 16.0 * EPS * kappa * (norm3(x) + dist3(x, before));
        }
        CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
        pbd_family_ws *fw = NULL;
        CU_ASSERT_EQUAL_FATAL(pbd_family_workspace(w, &fw), PBD_OK);
        CU_ASSERT(dist3(w->x + 3, x) <= tol_x);
        if (!(dist3(w->x + 3, x) <= tol_x))
            fprintf(stderr, "avbd_path: step %d: x off by %.3e > %.3e\n", step,
                    dist3(w->x + 3, x), tol_x);
        for (int c = 0; c < 3; c++)
            CU_ASSERT(fabs(w->v[3 + c] - (x[c] - xt[c]) / h) <= (tol_x + 2 * EPS * norm3(x)) / h);
        double tol_k = iters * (d->avbd_beta * 2.0 * tol_x + 4.0 * EPS * st.k[0]);
        double tol_l = iters * (st.k[0] * 2.0 * tol_x + 4.0 * EPS * (fabs(st.lam[0]) + st.k[0]));
        CU_ASSERT(fabs(fw->k[0] - st.k[0]) <= tol_k);
        CU_ASSERT(fabs(fw->k[1] - st.k[1]) <= iters * (d->avbd_beta * 2.0 * tol_x +
                                                      4.0 * EPS * st.k[1]));
        CU_ASSERT(fabs(fw->lam[0] - st.lam[0]) <= tol_l);
        CU_ASSERT(fw->lam[1] == 0.0);
        CU_ASSERT(fabs(fw->c0[0] - st.c0) <= 4.0 * EPS * r);
        if (!(fabs(fw->k[0] - st.k[0]) <= tol_k) || !(fabs(fw->lam[0] - st.lam[0]) <= tol_l))
            fprintf(stderr, "avbd_path: step %d: k %.17g (hand %.17g) lam %.17g (hand %.17g)\n",
                    step, fw->k[0], st.k[0], fw->lam[0], st.lam[0]);
        for (int s = 0; s < 2; s++) { /* λ in XPBD's convention, from the updated k and λ */
            double Ct, lp = avbd_lambda_plus(&st, sp, s, x, d->avbd_alpha, &Ct);
            CU_ASSERT(fabs(w->sets[s].lambda[0] + h * h * lp) <=
                      h * h * (tol_l + st.k[s] * 2.0 * tol_x + tol_k * fabs(Ct) +
                               4.0 * EPS * fabs(lp)));
        }
    }
    pbd_world_free(w);
}

/* AVBD's error reduction (AVBD "Error reduction") in its converged form: a hard spring
 * stretched by C(x_t) at rest, no gravity, many iterations: C̃ = C(x) − αC(x_t) → 0, so the
 * step ends at C(x) = α C(x_t) (α = 0.95: only 5 % of the old error corrected), for two α.
 * Bound: the stopping error of the augmented Lagrangian, 1e-9 of C(x_t) after 200 iterations,
 * far above rounding and far below the 5e-2 C(x_t) the shift makes. */
static void test_avbd_error_reduction(void)
{
    const double h = 1.0 / 60.0, m = 0.5, c0 = 0.05;
    for (int k = 0; k < 2; k++) {
        double x0[3] = {1.0 + c0, 0, 0}, v0[3] = {0, 0, 0}, g[3] = {0, 0, 0};
        hand_spring sp = {{0, 0, 0}, 1.0, 0.0};
        pbd_world *w = one_vertex(x0, v0, m, g, &sp, 1, PBD_METHOD_AVBD, h);
        w->def.iterations = 200;
        w->def.avbd_alpha = k ? 0.5 : 0.95;
        CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
        double n[3], r, C = spring_eval(&sp, w->x + 3, n, &r);
        CU_ASSERT(fabs(C - w->def.avbd_alpha * c0) <= 1e-9 * c0);
        if (!(fabs(C - w->def.avbd_alpha * c0) <= 1e-9 * c0))
            fprintf(stderr, "avbd_error_reduction: C %.17g, expected %.17g\n", C,
                    w->def.avbd_alpha * c0);
        pbd_world_free(w);
    }
}

/* The warm start's integral effect: a pendulum of one particle on a hard spring hanging at rest
 * under gravity, one iteration per step, 30 steps. With k and λ carried over (k ← max(γk,
 * k_start), λ ← αγλ) the spring's tension is there from the first iteration of a step and the
 * sag stays small; without (γ = 0: k_start, λ = 0 every step) each step sags by about
 * m g/k_start. Bound: the sag measured once, 3.4e-3 m (γ = 0.99; γ = 0: 4.3e-2 m), kept
 * under 5e-3 m. */
static void test_avbd_warm_start_sag(void)
{
    const double h = 1.0 / 60.0, m = 1.0;
    double x0[3] = {0, -1.0, 0}, v0[3] = {0, 0, 0};
    hand_spring sp = {{0, 0, 0}, 1.0, 0.0};
    pbd_world *w = one_vertex(x0, v0, m, G_EARTH, &sp, 1, PBD_METHOD_AVBD, h);
    w->def.iterations = 1;
    double sag = 0.0;
    for (int s = 0; s < 30; s++) {
        CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
        double n[3], r;
        sag = fmax(sag, fabs(spring_eval(&sp, w->x + 3, n, &r)));
    }
    CU_ASSERT(sag < 5e-3);
    if (!(sag < 5e-3)) fprintf(stderr, "avbd_warm_start_sag: %.3e m\n", sag);
    pbd_world_free(w);
}

/* ---- PD ------------------------------------------------------------------------------- */

/* PD on particle 0 fixed at the origin, 1 and 2 free: springs (0,1), (1,2), an attachment of
 * 2 to t. One iteration, by hand: local p_01 = d01 (x0 − x1)/|x0 − x1|, p_12 likewise, p_2 = t
 * (PD Sec. 5); global, per coordinate, the dense 2×2 solve of
 *   (M/h² + Σ w SᵀAᵀAS) x = M y/h² + Σ w SᵀAᵀ(p − A S x_fixed)      (PD Sec. 3)
 * from the initial guess y. Bound: 16 ε κ(A) (|x| + |rhs|/min diag) per iteration. */
static void pd_hand_iteration(const double *m, const double *xfix, double h, const double *y,
                              const double *d, const double *alpha, const double *t, double *x,
                              double *kappa)
{
    double *x1 = x, *x2 = x + 3;
    double w01 = 1.0 / alpha[0], w12 = 1.0 / alpha[1], w2 = 1.0 / alpha[2];
    double u01[3], u12[3], p01[3], p12[3];
    for (int c = 0; c < 3; c++) {
        u01[c] = xfix[c] - x1[c];
        u12[c] = x1[c] - x2[c];
    }
    for (int c = 0; c < 3; c++) {
        p01[c] = d[0] * u01[c] / norm3(u01);
        p12[c] = d[1] * u12[c] / norm3(u12);
    }
    /* E = w01/2|x0 − x1 − p01|² + w12/2|x1 − x2 − p12|² + w2/2|x2 − t|² */
    double A[4] = {m[0] / (h * h) + w01 + w12, -w12, -w12, m[1] / (h * h) + w12 + w2};
    for (int c = 0; c < 3; c++) {
        double b[2] = {m[0] / (h * h) * y[c] + w01 * (xfix[c] - p01[c]) + w12 * p12[c],
                       m[1] / (h * h) * y[3 + c] - w12 * p12[c] + w2 * t[c]};
        double s[2];
        dense_solve(2, A, b, s);
        x1[c] = s[0];
        x2[c] = s[1];
    }
    *kappa = cond_inf(2, A);
}

static pbd_world *pd_world(const double *m, const double *xs, const double *vs, const double *d,
                           const double *alpha, const double *t)
{
    pbd_world *w = pbd_world_create(3);
    pbd_world_set_particle(w, 0, xs, vs, INFINITY);
    pbd_world_set_particle(w, 1, xs + 3, vs + 3, m[0]);
    pbd_world_set_particle(w, 2, xs + 6, vs + 6, m[1]);
    for (int c = 0; c < 3; c++) w->def.gravity[c] = G_EARTH[c];
    int s = pbd_world_add_set(w, &pbd_distance_type, 0);
    int32_t i01[2] = {0, 1}, i12[2] = {1, 2}, i2[1] = {2};
    pbd_set_add(w, s, i01, &d[0], 1.0, alpha[0]);
    pbd_set_add(w, s, i12, &d[1], 1.0, alpha[1]);
    s = pbd_world_add_set(w, &pbd_attachment_type, 0);
    pbd_set_add(w, s, i2, t, 1.0, alpha[2]);
    w->def.method = PBD_METHOD_PD;
    return w;
}

/* G(x) = Σ m/(2h²)|x − y|² + Σ C²/(2α), the implicit step's objective PD minimises. */
static double pd_objective(const double *m, const double *xfix, const double *y, double h,
                           const double *d, const double *alpha, const double *t, const double *x)
{
    double G = 0.0;
    for (int i = 0; i < 2; i++)
        for (int c = 0; c < 3; c++) G += m[i] / (2 * h * h) * pow(x[3 * i + c] - y[3 * i + c], 2);
    double C0 = dist3(xfix, x) - d[0], C1 = dist3(x, x + 3) - d[1], C2 = dist3(x + 3, t);
    return G + C0 * C0 / (2 * alpha[0]) + C1 * C1 / (2 * alpha[1]) + C2 * C2 / (2 * alpha[2]);
}

/* K = 1..3 PD iterations equal K hand local–global iterations; the fixed particle moves to
 * x + h v and enters the right side; v = (x − x_t)/h. */
static void test_pd_local_global(void)
{
    const double h = 0.01, m[2] = {0.2, 0.35}, d[2] = {0.5, 0.4}, alpha[3] = {1e-4, 5e-5, 1e-3};
    const double xs[9] = {0.0, 0.0, 0.0, 0.45, -0.3, 0.1, 0.8, -0.55, 0.3};
    const double vs[9] = {0.4, -0.2, 0.1, 1.0, 0.5, -0.3, -0.6, 0.2, 0.7};
    const double t[3] = {0.7, -0.8, 0.2};
    for (int K = 1; K <= 3; K++) {
        pbd_world *w = pd_world(m, xs, vs, d, alpha, t);
        w->def.dt = h;
        w->def.iterations = K;
        double xfix[3], y[6], x[6], tol = 0.0, kappa;
        for (int c = 0; c < 3; c++) {
            xfix[c] = xs[c] + h * vs[c];
            for (int i = 0; i < 2; i++)
                y[3 * i + c] = xs[3 + 3 * i + c] + h * vs[3 + 3 * i + c] + h * h * G_EARTH[c];
        }
        memcpy(x, y, sizeof x);
        for (int it = 0; it < K; it++) {
            pd_hand_iteration(m, xfix, h, y, d, alpha, t, x, &kappa);
            tol += 16.0 * EPS * kappa * (norm3(x) + norm3(x + 3) + norm3(y) + norm3(y + 3) + 1.0);
        }
        CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
        double err = fmax(dist3(w->x + 3, x), dist3(w->x + 6, x + 3));
        CU_ASSERT(err <= tol);
        if (!(err <= tol)) fprintf(stderr, "pd_local_global: K %d: %.3e > %.3e\n", K, err, tol);
        CU_ASSERT(dist3(w->x, xfix) <= 4 * EPS * (norm3(xs) + h * norm3(vs)));
        for (int c = 0; c < 3; c++)
            CU_ASSERT(fabs(w->v[3 + c] - (x[c] - xs[3 + c]) / h) <= (tol + 2 * EPS) / h);
        pbd_world_free(w);
    }
}

/* PD's integral guarantee (PD Sec. 3: the local step minimises over p, the global over x, so
 * G never increases): G after K = 1..12 iterations falls monotonically from G(y), and ends
 * at the Newton reference's step. Bound: G's rounding, 8 ε times the sum of its terms'
 * magnitudes; the Newton step at 1e-6 of the distance PD moves. */
static void test_pd_objective_descent(void)
{
    const double h = 0.01, m[2] = {0.2, 0.35}, d[2] = {0.5, 0.4}, alpha[3] = {1e-4, 5e-5, 1e-3};
    const double xs[9] = {0.0, 0.0, 0.0, 0.45, -0.3, 0.1, 0.8, -0.55, 0.3};
    const double vs[9] = {0.4, -0.2, 0.1, 1.0, 0.5, -0.3, -0.6, 0.2, 0.7};
    const double t[3] = {0.7, -0.8, 0.2};
    double xfix[3], y[6];
    for (int c = 0; c < 3; c++) {
        xfix[c] = xs[c] + h * vs[c];
        for (int i = 0; i < 2; i++)
            y[3 * i + c] = xs[3 + 3 * i + c] + h * vs[3 + 3 * i + c] + h * h * G_EARTH[c];
    }
    double prev = pd_objective(m, xfix, y, h, d, alpha, t, y), x[6];
    const double G0 = prev;
    for (int K = 1; K <= 12; K++) {
        pbd_world *w = pd_world(m, xs, vs, d, alpha, t);
        w->def.dt = h;
        w->def.iterations = K;
        CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
        memcpy(x, w->x + 3, sizeof x);
        double G = pd_objective(m, xfix, y, h, d, alpha, t, x);
        CU_ASSERT(G <= prev + 8 * EPS * G0);
        if (!(G <= prev + 8 * EPS * G0)) fprintf(stderr, "pd_descent: K %d: G %.17g > %.17g\n", K, G, prev);
        prev = G;
        pbd_world_free(w);
    }
    CU_ASSERT(prev < 0.6 * G0); /* measured: 102 -> 53.5 */
    /* the fixed point: the Newton reference's step from the same state */
    pbd_world *w = pd_world(m, xs, vs, d, alpha, t);
    w->def.dt = h;
    w->def.iterations = 400;
    double xn[9];
    CU_ASSERT_EQUAL_FATAL(pbd_newton_solve(w, 40, 1e-13, xn, NULL, NULL, NULL), PBD_OK);
    CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
    double move = fmax(dist3(xn + 3, y), dist3(xn + 6, y + 3));
    CU_ASSERT(fmax(dist3(w->x + 3, xn + 3), dist3(w->x + 6, xn + 6)) <= 1e-6 * move);
    pbd_world_free(w);
}

/* ---- the Newton reference's line search ------------------------------------------------ */

/* The hand Newton iteration on (x, λ) for one free particle (mass m, target x̃) held by ns
 * springs to fixed anchors (XPBD Eq. 8–11 with the exact Jacobian):
 *   g = m(x − x̃) − Σ λ_c n_c,  h_c = C_c + α̃_c λ_c,
 *   [mI − Σ λ_c (I − n_c n_cᵀ)/r_c, −n_c; n_cᵀ, α̃_c] (Δx, Δλ) = −(g, h),
 * then t = 1, ½, ¼, … until ‖r(x + tΔx, λ + tΔλ)‖ < (1 − 10⁻⁴ t)‖r‖. Returns the norm after
 * the iteration; *halvings counts the halvings, *kappa the system's κ∞. */
static double newton_residual(const hand_spring *sp, int ns, double m, const double *xt,
                              const double *at, const double *x, const double *lam, double *r)
{
    double s = 0.0;
    for (int k = 0; k < 3; k++) r[k] = m * (x[k] - xt[k]);
    for (int c = 0; c < ns; c++) {
        double n[3], rr, C = spring_eval(&sp[c], x, n, &rr);
        for (int k = 0; k < 3; k++) r[k] -= lam[c] * n[k];
        r[3 + c] = C + at[c] * lam[c];
    }
    for (int k = 0; k < 3 + ns; k++) s += r[k] * r[k];
    return sqrt(s);
}

static double newton_hand_iteration(const hand_spring *sp, int ns, double m, const double *xt,
                                    const double *at, double norm0, double *x, double *lam,
                                    int *halvings, double *kappa)
{
    const int N = 3 + ns;
    double r[8], J[64] = {0}, dz[8], rhs[8];
    double norm = newton_residual(sp, ns, m, xt, at, x, lam, r);
    const double mu = fmax(1e-4 * pow(fmin(1.0, norm / norm0), 3), 1e-10);
    for (int k = 0; k < 3; k++) J[k * N + k] = m;
    for (int c = 0; c < ns; c++) {
        double n[3], rr;
        spring_eval(&sp[c], x, n, &rr);
        for (int a = 0; a < 3; a++) {
            for (int b = 0; b < 3; b++) J[a * N + b] -= lam[c] * ((a == b) - n[a] * n[b]) / rr;
            J[a * N + 3 + c] = -n[a];
            J[(3 + c) * N + a] = n[a];
        }
        J[(3 + c) * N + 3 + c] = at[c] + mu / m;
    }
    for (int k = 0; k < N; k++) rhs[k] = -r[k];
    dense_solve(N, J, rhs, dz);
    *kappa = cond_inf(N, J);
    double t = 1.0;
    for (int ls = 0; ls < 40; ls++, t *= 0.5) {
        double xx[3], ll[4];
        for (int k = 0; k < 3; k++) xx[k] = x[k] + t * dz[k];
        for (int c = 0; c < ns; c++) ll[c] = lam[c] + t * dz[3 + c];
        double trial = newton_residual(sp, ns, m, xt, at, xx, ll, r);
        if (trial < (1.0 - 1e-4 * t) * norm) {
            memcpy(x, xx, sizeof xx);
            memcpy(lam, ll, (size_t)ns * sizeof *ll);
            return trial;
        }
        ++*halvings;
    }
    return -1.0;
}

/* A particle dropped between two anchors whose springs are far too long for the gap (each
 * wants 1.5 m across 2 m): the linearised constraints disagree, the full Newton step
 * overshoots and the line search halves it. The hand iteration includes the reference's
 * regularisation δ = μ w|∇C|² on the (λ, λ) block, μ = max(1e-10, 1e-4 min(1, ‖r‖/‖r_0‖)³)
 * (solver/newton/newton_system.c). */
typedef struct {
    double hand[64], kappa[64], x[3];
    int n, halvings;
} newton_hand_run;

static const double NL_H = 1.0 / 60.0, NL_M = 0.5;
static const hand_spring NL_SP[2] = {{{-1.0, 0, 0}, 1.5, 1e-6}, {{1.0, 0, 0}, 1.5, 2e-6}};
static const double NL_X0[3] = {0.1, 0.05, 0.02}, NL_V0[3] = {0.3, 0.6, 0.0};

static pbd_world *newton_two_springs(pbd_newton_solver solver, newton_hand_run *run)
{
    pbd_world *w = pbd_world_create(3);
    pbd_world_set_particle(w, 0, NL_SP[0].a, NULL, INFINITY);
    pbd_world_set_particle(w, 1, NL_SP[1].a, NULL, INFINITY);
    pbd_world_set_particle(w, 2, NL_X0, NL_V0, NL_M);
    for (int c = 0; c < 3; c++) w->def.gravity[c] = G_EARTH[c];
    w->def.dt = NL_H;
    w->def.method = PBD_METHOD_NEWTON;
    w->def.newton_solver = solver;
    int s = pbd_world_add_set(w, &pbd_distance_type, 0);
    for (int c = 0; c < 2; c++) {
        int32_t idx[2] = {c, 2};
        pbd_set_add(w, s, idx, &NL_SP[c].d, 1.0, NL_SP[c].alpha);
    }
    double at[2] = {NL_SP[0].alpha / (NL_H * NL_H), NL_SP[1].alpha / (NL_H * NL_H)};
    double xt[3], lam[2] = {0, 0}, rr[8];
    for (int c = 0; c < 3; c++)
        run->x[c] = xt[c] = NL_X0[c] + NL_H * NL_V0[c] + NL_H * NL_H * G_EARTH[c];
    run->n = run->halvings = 0;
    run->hand[0] = newton_residual(NL_SP, 2, NL_M, xt, at, run->x, lam, rr);
    while (run->n < 60 && run->hand[run->n] > 1e-13 * run->hand[0]) {
        run->hand[run->n + 1] = newton_hand_iteration(NL_SP, 2, NL_M, xt, at, run->hand[0], run->x,
                                                      lam, &run->halvings, &run->kappa[run->n]);
        run->n++;
    }
    return w;
}

/* With the direct solvers (the dense oracle, UMFPACK) the reference's per-iteration ‖(g, h)‖
 * and its number of halvings equal the hand iteration's. Bound: each residual to
 * 64 ε κ(J) ‖r_0‖ (the solve's forward error on the step, carried into the norm), compared
 * while above that; the halvings exactly. */
static void test_newton_line_search(void)
{
    const pbd_newton_solver solvers[2] = {PBD_NEWTON_DENSE, PBD_NEWTON_UMFPACK};
    for (int k = 0; k < 2; k++) {
        newton_hand_run run;
        pbd_world *w = newton_two_springs(solvers[k], &run);
        double res[64], xs[9];
        int n_iter = 0;
        CU_ASSERT_EQUAL_FATAL(pbd_newton_solve(w, 60, 1e-12, xs, NULL, res, &n_iter), PBD_OK);
        pbd_newton_info info;
        pbd_newton_last_info(w, &info);
        CU_ASSERT(run.halvings >= 4); /* the line search acts */
        CU_ASSERT_EQUAL(info.line_search_halvings, run.halvings);
        int compared = 0;
        for (int i = 0; i <= n_iter && i <= run.n; i++) {
            double tol = 64.0 * EPS * (i ? run.kappa[i - 1] : 1.0) * run.hand[0];
            if (run.hand[i] < tol) break;
            CU_ASSERT(fabs(res[i] - run.hand[i]) <= tol);
            compared++;
        }
        CU_ASSERT(compared >= 5);
        pbd_world_free(w);
    }
}

/* The integral view, on the default solver (CHOLMOD with MINRES refinement, whose directions
 * are exact only to its tolerance): the same number of iterations and halvings as the hand
 * Newton, and the same step, to 1e-9 m (the solve's tolerance 1e-12 of the step's scale, the
 * hand run's 1e-13 of ‖r_0‖). */
static void test_newton_line_search_default(void)
{
    newton_hand_run run;
    pbd_world *w = newton_two_springs(PBD_NEWTON_AUTO, &run);
    double res[64], xs[9];
    int n_iter = 0;
    CU_ASSERT_EQUAL_FATAL(pbd_newton_solve(w, 60, 1e-12, xs, NULL, res, &n_iter), PBD_OK);
    pbd_newton_info info;
    pbd_newton_last_info(w, &info);
    CU_ASSERT_EQUAL(info.line_search_halvings, run.halvings);
    CU_ASSERT(n_iter >= run.n - 1 && n_iter <= run.n);
    CU_ASSERT(dist3(xs + 6, run.x) <= 1e-9);
    pbd_world_free(w);
}

/* A free-falling cloth (nothing fixed, springs at rest): the implicit step is the rigid
 * x ← x + h v + h² g, which VBD and AVBD reach in one iteration from the guess y (acceleration;
 * adaptive: the first step takes g, later ones the measured (v_t − v_{t−1})/h = g) and PD from
 * its guess y; over ten steps x_N = x_0 + N h v_0 + h² g N(N+1)/2. Integral check of the
 * inertial target, the initial guesses and the velocity update. Bound: 8 ε N (|x| + N h|v|)
 * per coordinate (each step rounds x, v and y at a few ε), for PD times its global matrix's
 * condition bound 1 + 16 h²/(α m) (M/h² plus a spring Laplacian of degree <= 8). */
static void test_shared_free_fall_cloth(void)
{
    const pbd_method methods[3] = {PBD_METHOD_VBD, PBD_METHOD_AVBD, PBD_METHOD_PD};
    const int N = 10;
    for (int k = 0; k < 4; k++) {
        pbd_scene_params sp = pbd_scene_params_default();
        sp.resolution = 6;
        sp.compliance = 1e-4;
        pbd_world *w = pbd_scene_cloth(&sp);
        w->n_attach = 0;
        for (int i = 0; i < w->n; i++) {
            w->w[i] = 1.0 / 0.02;
            w->v[3 * i] = 0.4;
            w->v[3 * i + 2] = -0.3;
        }
        w->def.method = methods[k < 2 ? 0 : k - 1];
        w->def.vbd_init = k == 1 ? PBD_VBD_INIT_ACCELERATION : PBD_VBD_INIT_ADAPTIVE;
        w->def.iterations = 1;
        double *x0 = malloc(6 * (size_t)w->n * sizeof *x0), *v0 = x0 + 3 * w->n;
        memcpy(x0, w->x, 3 * (size_t)w->n * sizeof *x0);
        memcpy(v0, w->v, 3 * (size_t)w->n * sizeof *v0);
        for (int s = 0; s < N; s++) CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
        const double h = w->def.dt, *g = w->def.gravity;
        double err = 0.0, tol = 0.0;
        const double kappa = k == 3 ? 1.0 + 16.0 * h * h / (sp.compliance * 0.02) : 1.0;
        for (int i = 0; i < 3 * w->n; i++) {
            double x = x0[i] + N * h * v0[i] + h * h * g[i % 3] * N * (N + 1) / 2.0;
            err = fmax(err, fabs(w->x[i] - x));
            tol = fmax(tol, 8.0 * EPS * N * kappa *
                                (fabs(x0[i]) + N * h * (fabs(v0[i]) + N * h * norm3(g))));
        }
        CU_ASSERT(err <= tol);
        if (!(err <= tol)) fprintf(stderr, "free_fall_cloth: case %d: %.3e > %.3e\n", k, err, tol);
        free(x0);
        pbd_world_free(w);
    }
}

/* The swinging 8² cloth (α = 1e-4 m/N) after 3 XPBD steps of 20 iterations, then set to
 * `method` at 300 iterations a step with the iterations recorded. */
static pbd_world *swinging_cloth(int method)
{
    pbd_scene_params sp = pbd_scene_params_default();
    sp.resolution = 8;
    sp.compliance = 1e-4;
    pbd_world *w = pbd_scene_cloth(&sp);
    w->def.iterations = 20;
    for (int s = 0; s < 3; s++)
        if (pbd_step(w) != PBD_OK) {
            pbd_world_free(w);
            return NULL;
        }
    w->def.method = method;
    w->def.iterations = 300;
    w->def.record_iterations = 1;
    return w;
}

/* Chebyshev's integral effect (VBD Sec. 3.8): on the swinging 8² cloth (α = 1e-4 m/N) VBD with
 * ρ = 0.9 takes 166 iterations to cut ‖M(x − y) + h²∇E‖ by 10³ (measured; plain VBD: > 300;
 * a constant ω = 4/(4 − ρ²) instead of the recurrence: 231). Range: ±8 %. */
static void test_vbd_chebyshev_count(void)
{
    pbd_world *w = swinging_cloth(PBD_METHOD_VBD);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    w->def.vbd_chebyshev_rho = 0.9;
    CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
    int k = 0;
    while (k < 300 && !(w->iter_newton[k] < 1e-3 * w->iter_newton[0])) k++;
    CU_ASSERT(k >= 153 && k <= 179);
    if (!(k >= 153 && k <= 179)) fprintf(stderr, "vbd_chebyshev_count: %d iterations\n", k);
    pbd_world_free(w);
}

/* AVBD's soft penalties on the swinging 8² cloth (α = 1e-4 m/N), 300 iterations a step: the
 * ramp k ← k + β|C| from k_start = m/h² (AVBD Algorithm 1) sets how far the first step gets,
 * ‖M(x − y) + h²∇E‖ cut to 0.1426 of its start (measured; 2β: 0.060; k_start m/h instead of
 * m/h²: 0.068; range ±5 %), and the warm start k ← max(γk, k_start) carries the ramp into the
 * next steps: the mean k grows from step to step (without it: falls back). */
static void test_avbd_soft_ramp(void)
{
    pbd_world *w = swinging_cloth(PBD_METHOD_AVBD);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    double mean_k[3];
    for (int s = 0; s < 3; s++) {
        CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
        pbd_family_ws *fw = NULL;
        CU_ASSERT_EQUAL_FATAL(pbd_family_workspace(w, &fw), PBD_OK);
        mean_k[s] = 0.0;
        for (int c = 0; c < fw->m; c++) mean_k[s] += fw->k[c] / fw->m;
        if (s == 0) {
            double ratio = w->iter_newton[299] / w->iter_newton[0];
            CU_ASSERT(ratio > 0.95 * 0.1426 && ratio < 1.05 * 0.1426);
            if (!(ratio > 0.95 * 0.1426 && ratio < 1.05 * 0.1426))
                fprintf(stderr, "avbd_soft_ramp: ratio %.4e\n", ratio);
        }
    }
    CU_ASSERT(mean_k[1] > mean_k[0] && mean_k[2] > mean_k[1]);
    if (!(mean_k[1] > mean_k[0] && mean_k[2] > mean_k[1]))
        fprintf(stderr, "avbd_soft_ramp: mean k %.4e %.4e %.4e\n", mean_k[0], mean_k[1], mean_k[2]);
    pbd_world_free(w);
}

/* AVBD on a soft spring whose k_start is above the material's 1/α: the warm start caps it to
 * 1/α (AVBD "Stiffness ratios"), so AVBD is VBD from the first iteration and one iteration
 * already gives the implicit-Euler step of the on-axis spring,
 * x = (m y/h² + d/α)/(m/h² + 1/α), in each of three steps. Bound: 8 ε of the terms over the
 * denominator per step. */
static void test_avbd_soft_cap(void)
{
    const double h = 0.02, m = 0.3, d = 1.0, alpha = 2e-3;
    double p[3] = {1.2, 0, 0}, v[3] = {-0.7, 0, 0}, g[3] = {0, 0, 0};
    hand_spring sp = {{0, 0, 0}, d, alpha};
    pbd_world *w = one_vertex(p, v, m, g, &sp, 1, PBD_METHOD_AVBD, h);
    w->def.iterations = 1;
    w->def.avbd_k_start = 1e12;
    double x = p[0], vx = v[0], tol = 0.0;
    for (int s = 0; s < 3; s++) {
        double y = x + h * vx, den = m / (h * h) + 1 / alpha;
        double xn = (m * y / (h * h) + d / alpha) / den;
        tol += 8.0 * EPS * (m * fabs(y) / (h * h) + d / alpha) / den;
        vx = (xn - x) / h;
        x = xn;
        CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
        CU_ASSERT(fabs(w->x[3] - x) <= tol);
    }
    pbd_world_free(w);
}

/* AVBD's update after an iteration (AVBD Algorithm 1, pbd_avbd_update) on a 12² bending cloth
 * moved at random, each soft constraint's penalty set to k* = 1/α, 3/4 k* or k_start: for
 * every soft constraint k ← min(k + β|C|, k*) while λ⁺ acts, computed here from eval and
 * pbd_avbd_force, bit for bit (the update skips the constraints at k* without evaluating
 * them: the same bits), with the batched blocks' scalar math (test hook); with their vector
 * math (the dihedral's SLEEF atan2) within β·test_vblock_C_bound + ε k (the one rounding of
 * the sum). */
static void test_avbd_update_at_cap(void)
{
    pbd_scene_params sp = pbd_scene_params_default();
    sp.resolution = 12;
    sp.compliance = 1e-4;
    sp.bend_compliance = 1e-6; /* k* = 1e6: a ramped hinge stays below it, its k from C */
    pbd_world *w = pbd_scene_cloth_bend(&sp);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    w->def.method = PBD_METHOD_AVBD;
    w->def.iterations = 1;
    CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
    pbd_family_ws *fw = NULL;
    CU_ASSERT_EQUAL_FATAL(pbd_family_workspace(w, &fw), PBD_OK);
    pbd_rng r;
    pbd_rng_seed(&r, 31);
    for (int i = 0; i < 3 * w->n; i++) w->p[i] = w->x[i] + 0.05 * pbd_rng_range(&r, -1.0, 1.0);
    double *expect = malloc((size_t)fw->m_static * sizeof *expect),
           *bound = malloc((size_t)fw->m_static * sizeof *bound),
           *k0 = malloc((size_t)fw->m_static * sizeof *k0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(expect && bound && k0);
    memcpy(k0, fw->k, (size_t)fw->m_static * sizeof *k0);
    for (int scalar = 1; scalar >= 0; scalar--) {
    pbd_test_vblock_scalar_math = scalar;
    memcpy(fw->k, k0, (size_t)fw->m_static * sizeof *k0);
    long soft = 0, at_cap = 0, ramped = 0, inexact = 0;
    for (int s = 0; s < fw->n_static; s++) {
        const pbd_constraint_set *set = &w->sets[s];
        for (int c = 0; c < set->count; c++) {
            int g = fw->set_c[s] + c;
            double alpha = set->compliance[c], kstar = 1.0 / alpha;
            if (!(alpha > 0.0)) continue;
            fw->k[g] = c % 3 == 0 ? kstar : c % 3 == 1 ? 0.75 * kstar : fw->k[g];
            expect[g] = fw->k[g];
            pbd_eval_input in;
            double C, lam, k;
            if (pbd_family_eval(w, set, c, w->p, &fw->scratch[0], &in, &C) != PBD_EVAL_OK ||
                !pbd_avbd_force(w, fw, s, c, C, &lam, &k))
                continue;
            expect[g] = fmin(fw->k[g] + w->def.avbd_beta * fabs(C), kstar);
            double cb = scalar ? 0.0 : test_vblock_C_bound(set->type, C, set->rest + c);
            bound[g] = cb > 0.0 ? w->def.avbd_beta * cb + DBL_EPSILON * expect[g] : 0.0;
            soft++;
            at_cap += fw->k[g] == kstar;
            ramped += fw->k[g] < kstar && expect[g] > fw->k[g];
        }
    }
    pbd_avbd_update(w, fw, 1);
    long bad = 0;
    for (int s = 0; s < fw->n_static; s++) {
        const pbd_constraint_set *set = &w->sets[s];
        for (int c = 0; c < set->count; c++) {
            int g = fw->set_c[s] + c;
            if (!(set->compliance[c] > 0.0)) continue;
            inexact += fw->k[g] != expect[g];
            bad += bound[g] > 0.0 ? !(fabs(fw->k[g] - expect[g]) <= bound[g])
                                  : memcmp(&fw->k[g], &expect[g], sizeof(double)) != 0;
        }
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(soft > 500 && at_cap > 100 && ramped > 200); /* all three cases ran */
    if (!scalar) CU_ASSERT(inexact > 0); /* the vector atan2 ran */
    }
    pbd_test_vblock_scalar_math = 0;
    free(bound);
    free(k0);
    free(expect);
    pbd_world_free(w);
}

/* R of F = R S (det F > 0) by the polar iteration R ← (R + R⁻ᵀ)/2 from F (Higham 1986), the
 * test's own (PD's is by GSL's SVD). */
static void polar_rotation(const double *F, double *R)
{
    memcpy(R, F, 9 * sizeof *R);
    for (int it = 0; it < 60; it++) {
        double inv[9], e[3], col[3], d = 0.0;
        for (int c = 0; c < 3; c++) {
            for (int i = 0; i < 3; i++) e[i] = i == c;
            dense_solve(3, R, e, col);
            for (int i = 0; i < 3; i++) inv[3 * i + c] = col[i];
        }
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                double v = 0.5 * (R[3 * i + j] + inv[3 * j + i]);
                d = fmax(d, fabs(v - R[3 * i + j]));
                R[3 * i + j] = v;
            }
        if (d <= 4.0 * EPS) break;
    }
}

/* One corotated tet (Lamé λ = 0), particle 0 fixed: K = 1, 2 PD iterations equal the hand
 * local–global iterations. Local: R the rotation of F = D_s D_m⁻¹ (PD Sec. 5 "strain"); global,
 * per coordinate a, the 3×3 solve of
 *   m_k/h² x_k + w Σ_b G_k[b] Σ_l G_l[b] x_l = m_k/h² y_k + w Σ_b G_k[b] (R[a][b] − G_0[b] x_0)
 * with F[a][b] = Σ_k x_k[a] G_k[b], G_k row k − 1 of D_m⁻¹, G_0 = −Σ G_k, w = 2μV/α.
 * Bound: 16 ε κ(A) κ(F) (|x| + |y| + 1) per iteration (R's rounding carried by the solve). */
static void test_pd_tet_local_global(void)
{
    const double h = 0.01, mu = 2e3, alpha = 0.5, m[3] = {0.1, 0.15, 0.12};
    const double X[12] = {0, 0, 0, 0.3, 0, 0, 0, 0.25, 0.02, 0.01, 0.03, 0.35};
    const double xs[12] = {0.01, -0.02, 0.0, 0.33, 0.04, -0.03, -0.05, 0.27, 0.06,
                           0.04, -0.01, 0.31};
    const double vs[12] = {0.2, 0.1, -0.1, 0.5, -0.4, 0.3, -0.2, 0.6, 0.1, 0.3, 0.2, -0.5};
    double Dm[9], Dinv[9], e[3], col[3], G[4][3];
    for (int a = 0; a < 3; a++)
        for (int k = 0; k < 3; k++) Dm[3 * a + k] = X[3 * (k + 1) + a] - X[a];
    for (int c = 0; c < 3; c++) {
        for (int i = 0; i < 3; i++) e[i] = i == c;
        dense_solve(3, Dm, e, col);
        for (int i = 0; i < 3; i++) Dinv[3 * i + c] = col[i];
    }
    double V = fabs(Dm[0] * (Dm[4] * Dm[8] - Dm[5] * Dm[7]) - Dm[1] * (Dm[3] * Dm[8] - Dm[5] * Dm[6]) +
                    Dm[2] * (Dm[3] * Dm[7] - Dm[4] * Dm[6])) / 6.0;
    double rest[12];
    memcpy(rest, Dinv, sizeof Dinv);
    rest[9] = V;
    rest[10] = mu;
    rest[11] = 0.0;
    for (int b = 0; b < 3; b++) {
        G[0][b] = 0.0;
        for (int k = 1; k <= 3; k++) {
            G[k][b] = Dinv[3 * (k - 1) + b];
            G[0][b] -= G[k][b];
        }
    }
    const double wt = 2.0 * mu * V / alpha;
    for (int K = 1; K <= 2; K++) {
        pbd_world *w = pbd_world_create(4);
        pbd_world_set_particle(w, 0, xs, vs, INFINITY);
        for (int i = 1; i < 4; i++) pbd_world_set_particle(w, i, xs + 3 * i, vs + 3 * i, m[i - 1]);
        for (int c = 0; c < 3; c++) w->def.gravity[c] = G_EARTH[c];
        int s = pbd_world_add_set(w, &pbd_fem_tet_corotated_type, 0);
        int32_t idx[4] = {0, 1, 2, 3};
        pbd_set_add(w, s, idx, rest, 1.0, alpha);
        w->def.method = PBD_METHOD_PD;
        w->def.dt = h;
        w->def.iterations = K;
        double x[12], y[12], A[9], tol = 0.0;
        for (int i = 0; i < 4; i++)
            for (int c = 0; c < 3; c++) {
                y[3 * i + c] = xs[3 * i + c] + h * vs[3 * i + c] + (i ? h * h * G_EARTH[c] : 0.0);
                x[3 * i + c] = y[3 * i + c];
            }
        for (int k = 1; k <= 3; k++)
            for (int l = 1; l <= 3; l++) {
                A[3 * (k - 1) + l - 1] = (k == l) * m[k - 1] / (h * h);
                for (int b = 0; b < 3; b++) A[3 * (k - 1) + l - 1] += wt * G[k][b] * G[l][b];
            }
        double kA = cond_inf(3, A);
        for (int it = 0; it < K; it++) {
            double F[9], R[9];
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++) {
                    F[3 * a + b] = 0.0;
                    for (int k = 0; k < 4; k++) F[3 * a + b] += x[3 * k + a] * G[k][b];
                }
            polar_rotation(F, R);
            for (int a = 0; a < 3; a++) {
                double rhs[3], sol[3];
                for (int k = 1; k <= 3; k++) {
                    rhs[k - 1] = m[k - 1] / (h * h) * y[3 * k + a];
                    for (int b = 0; b < 3; b++)
                        rhs[k - 1] += wt * G[k][b] * (R[3 * a + b] - G[0][b] * x[a]);
                }
                dense_solve(3, A, rhs, sol);
                for (int k = 1; k <= 3; k++) x[3 * k + a] = sol[k - 1];
            }
            double xn = 0.0, yn = 0.0;
            for (int q = 0; q < 12; q++) {
                xn += fabs(x[q]);
                yn += fabs(y[q]);
            }
            tol += 16.0 * EPS * kA * cond_inf(3, F) * (xn + yn + 1.0);
        }
        CU_ASSERT_EQUAL_FATAL(pbd_step(w), PBD_OK);
        double err = 0.0;
        for (int q = 0; q < 12; q++) err = fmax(err, fabs(w->x[q] - x[q]));
        CU_ASSERT(err <= tol);
        if (!(err <= tol)) fprintf(stderr, "pd_tet_local_global: K %d: %.3e > %.3e\n", K, err, tol);
        pbd_world_free(w);
    }
}

/* AVBD's k_start for a hard constraint (def.avbd_k_start = 0) is the world's largest m/h²
 * (solver/vbd/avbd.c): a penalty in N/m that scales with the masses, also when every particle
 * is lighter than 1 kg (it had a floor of 1/h², a 1 kg particle's). Checked at the warm start
 * of the first step for masses 0.05, 0.5 and 2 kg. Bound: the quotient's rounding, 4 ε. */
static void test_avbd_k_start_hard(void)
{
    const double h = 1.0 / 60.0, masses[3] = {0.05, 0.5, 2.0};
    for (int k = 0; k < 3; k++) {
        double x0[3] = {1.0, 0, 0}, v0[3] = {0, 0, 0}, g[3] = {0, 0, 0};
        hand_spring sp = {{0, 0, 0}, 1.0, 0.0};
        pbd_world *w = one_vertex(x0, v0, masses[k], g, &sp, 1, PBD_METHOD_AVBD, h);
        pbd_family_ws *fw = NULL;
        CU_ASSERT_EQUAL_FATAL(pbd_family_workspace(w, &fw), PBD_OK);
        pbd_avbd_begin(w, fw, h);
        double k0 = masses[k] / (h * h);
        CU_ASSERT(fabs(fw->k[0] - k0) <= 4.0 * EPS * k0);
        if (!(fabs(fw->k[0] - k0) <= 4.0 * EPS * k0))
            fprintf(stderr, "avbd_k_start_hard: m %g: k %.6e, expected %.6e\n", masses[k],
                    fw->k[0], k0);
        pbd_world_free(w);
    }
}

void register_families_path_tests(void)
{
    CU_pSuite s = CU_add_suite("families_path", NULL, NULL);
    CU_add_test(s, "shared_free_particle", test_shared_free_particle);
    CU_add_test(s, "shared_initial_guess", test_shared_initial_guess);
    CU_add_test(s, "shared_free_fall_cloth", test_shared_free_fall_cloth);
    CU_add_test(s, "vbd_local_newton", test_vbd_local_newton);
    CU_add_test(s, "vbd_damping_converged", test_vbd_damping_converged);
    CU_add_test(s, "vbd_chebyshev_path", test_vbd_chebyshev_path);
    CU_add_test(s, "vbd_chebyshev_count", test_vbd_chebyshev_count);
    CU_add_test(s, "avbd_path", test_avbd_path);
    CU_add_test(s, "avbd_error_reduction", test_avbd_error_reduction);
    CU_add_test(s, "avbd_warm_start_sag", test_avbd_warm_start_sag);
    CU_add_test(s, "avbd_soft_ramp", test_avbd_soft_ramp);
    CU_add_test(s, "avbd_soft_cap", test_avbd_soft_cap);
    CU_add_test(s, "avbd_update_at_cap", test_avbd_update_at_cap);
    CU_add_test(s, "avbd_k_start_hard", test_avbd_k_start_hard);
    CU_add_test(s, "pd_local_global", test_pd_local_global);
    CU_add_test(s, "pd_tet_local_global", test_pd_tet_local_global);
    CU_add_test(s, "pd_objective_descent", test_pd_objective_descent);
    CU_add_test(s, "newton_line_search", test_newton_line_search);
    CU_add_test(s, "newton_line_search_default", test_newton_line_search_default);
}
