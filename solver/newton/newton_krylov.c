/* The Newton reference's Krylov solve (solver/newton/README.md "Newton reference", "The modified
 * factorisation"): MINRES (Paige & Saunders 1975) with a symmetric positive definite
 * preconditioner, in the form of Elman, Silvester & Wathen, "Finite Elements and Fast
 * Iterative Solvers" (2005) (preconditioned MINRES), on the exact Schur
 * complement A — symmetric, indefinite where compressed constraints' geometric stiffness
 * outweighs the mass — preconditioned by the LLᵀ of P, the same matrix with that indefinite
 * part left out (positive definite, so CHOLMOD's supernodal, BLAS-3 factorisation takes it).
 * The recurrence minimises ||b - A x|| in P⁻¹'s norm; the 2-norm residual the caller asks
 * for is carried along (r -= c η A w, A w by the same recurrence as w), never estimated.
 * Also the semi-definiteness test of one constraint's block that decides what P keeps. */
#include "newton_private.h"

#include <math.h>
#include <string.h>

int newton_block_psd(const double *G, int n, double scale, double *work)
{
    double dmax = 0.0;
    for (int i = 0; i < n; i++) dmax = fmax(dmax, fabs(scale * G[i * n + i]));
    if (dmax == 0.0) { /* semi-definite with a zero diagonal only when it is all zero */
        for (int i = 0; i < n * n; i++)
            if (G[i] != 0.0) return 0;
        return 1;
    }
    const double tau = 1e-10 * dmax;
    /* Cholesky of scale·G + τI without pivoting (lower triangle into work): it exists iff
     * the matrix is positive definite, i.e. G's eigenvalues ≥ -τ */
    for (int j = 0; j < n; j++) {
        double d = scale * G[j * n + j] + tau;
        for (int k = 0; k < j; k++) d -= work[j * n + k] * work[j * n + k];
        if (!(d > 0.0)) return 0;
        d = sqrt(d);
        work[j * n + j] = d;
        for (int i = j + 1; i < n; i++) {
            double v = scale * G[i * n + j];
            for (int k = 0; k < j; k++) v -= work[i * n + k] * work[j * n + k];
            work[i * n + j] = v / d;
        }
    }
    return 1;
}

/* y = A x on the full symmetric pattern: column col lists rows Ai[Ap[col] .. Ap[col+1]),
 * and A = Aᵀ, so that column is row col too — gathered, y[col] written once, by one thread
 * in the same order on any number of them (newton_threads(): the same bits). */
static void matvec_columns(const newton_system *s, const double *x, double *y, int c0, int c1)
{
    for (int col = c0; col < c1; col++) {
        double acc = 0.0;
        for (int q = s->Ap[col]; q < s->Ap[col + 1]; q++) acc += s->Ax[q] * x[s->Ai[q]];
        y[col] = acc;
    }
}

static void matvec(const newton_system *s, const double *x, double *y)
{
    const int threads = s->N > 4096 ? newton_threads() : 1;
    if (threads <= 1) { /* no parallel region at all on 1 thread (nothing of libgomp's) */
        matvec_columns(s, x, y, 0, s->N);
        return;
    }
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int t = 0; t < threads; t++)
        matvec_columns(s, x, y, (int)((long)s->N * t / threads),
                       (int)((long)s->N * (t + 1) / threads));
}

static void swap(double **a, double **b)
{
    double *t = *a;
    *a = *b;
    *b = t;
}

static double dot(const double *a, const double *b, int n)
{
    double d = 0.0;
    for (int k = 0; k < n; k++) d += a[k] * b[k];
    return d;
}

int newton_minres(newton_system *s, newton_precond apply, const double *b, double *x,
                  double tol, int max_it, int *its, double *res)
{
    const int n = s->N;
    double *v_old = s->kv, *v = v_old + n, *z = v + n, *az = z + n, *w_old = az + n,
           *w = w_old + n, *aw_old = w + n, *aw = aw_old + n, *r = aw + n, *zn = r + n,
           *best = zn + n; /* NEWTON_KRYLOV_VECTORS = 11 */
    *its = 0;
    /* r = v1 = b - A x0, z1 = P⁻¹ v1, γ1 = √(z1ᵀ v1) */
    matvec(s, x, az);
    for (int k = 0; k < n; k++) r[k] = v[k] = b[k] - az[k];
    *res = sqrt(dot(r, r, n));
    if (*res <= tol) return 0;
    if (apply(s, v, z) != 0) return -1;
    double gamma = sqrt(fmax(dot(z, v, n), 0.0)), gamma_old = 1.0;
    if (!(gamma > 0.0)) return 1; /* P⁻¹ not positive definite on v */
    double eta = gamma, s_old = 0.0, s_cur = 0.0, c_old = 1.0, c_cur = 1.0;
    memset(v_old, 0, (size_t)n * sizeof *v_old);
    memset(w_old, 0, (size_t)n * sizeof *w_old);
    memset(w, 0, (size_t)n * sizeof *w);
    memset(aw_old, 0, (size_t)n * sizeof *aw_old);
    memset(aw, 0, (size_t)n * sizeof *aw);
    double best_res = *res;
    memcpy(best, x, (size_t)n * sizeof *best);
    for (int j = 1; j <= max_it; j++) {
        *its = j;
        for (int k = 0; k < n; k++) z[k] /= gamma;
        matvec(s, z, az);
        const double delta = dot(az, z, n);
        /* v_{j+1} = A z_j - (δ/γ_j) v_j - (γ_j/γ_{j-1}) v_{j-1}, into v_old */
        for (int k = 0; k < n; k++)
            v_old[k] = az[k] - (delta / gamma) * v[k] - (gamma / gamma_old) * v_old[k];
        swap(&v_old, &v);
        if (apply(s, v, zn) != 0) return -1;
        const double gamma_new = sqrt(fmax(dot(zn, v, n), 0.0));
        const double a0 = c_cur * delta - c_old * s_cur * gamma;
        const double a1 = sqrt(a0 * a0 + gamma_new * gamma_new);
        const double a2 = s_cur * delta + c_old * c_cur * gamma;
        const double a3 = s_old * gamma;
        if (!(a1 > 0.0)) break; /* breakdown: A singular on the Krylov space */
        const double c_new = a0 / a1, s_new = gamma_new / a1;
        /* w_{j+1} = (z_j - a3 w_{j-1} - a2 w_j)/a1 (and A w by the same recurrence), into
         * w_old; x += c η w_{j+1}; r -= c η A w_{j+1} */
        double rr = 0.0;
        for (int k = 0; k < n; k++) {
            w_old[k] = (z[k] - a3 * w_old[k] - a2 * w[k]) / a1;
            aw_old[k] = (az[k] - a3 * aw_old[k] - a2 * aw[k]) / a1;
            x[k] += c_new * eta * w_old[k];
            r[k] -= c_new * eta * aw_old[k];
            rr += r[k] * r[k];
        }
        swap(&w_old, &w);
        swap(&aw_old, &aw);
        swap(&z, &zn);
        eta = -s_new * eta;
        gamma_old = gamma, gamma = gamma_new;
        s_old = s_cur, s_cur = s_new;
        c_old = c_cur, c_cur = c_new;
        *res = sqrt(rr);
        if (*res < best_res) {
            best_res = *res;
            memcpy(best, x, (size_t)n * sizeof *best);
        }
        if (*res <= tol) return 0;
        if (!(gamma > 0.0)) break; /* the Krylov space is exhausted: x is the solution */
    }
    /* the carried residual drifts from b - A x in rounding: the caller's x is the best one */
    memcpy(x, best, (size_t)n * sizeof *x);
    *res = best_res;
    return *res <= tol ? 0 : 1;
}
