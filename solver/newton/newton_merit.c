/* The Newton reference's globalisation for energy constraints (pbd_constraint_type.energy,
 * C = √(2ΨV) >= 0, constraints/fem.h) with compliance α > 0: their potential form.
 *
 * Eliminating λ_c = −C_c/α̃_c from XPBD Eq. 9 (h = 0) turns Eq. 8 into the gradient of the
 * incremental potential of implicit Euler (scaled by 1/Δt²),
 *   G(x) = ½ (x − x̃)ᵀ M (x − x̃) + Σ_c C_c(x)² / (2 α̃_c),
 * whose constraint terms ½C²/α̃ = ΨV Δt²/α are smooth through rest, where ∇C of the square
 * root is not (its direction at C → 0 is that of the rounding in F: the KKT form's Jacobian
 * ∇C∇Cᵀ/α̃ is then rank-one noise, and the iteration stalled at ‖(g, h)‖ ≈ 0.15 on the
 * tet beam's first step). For these constraints the iteration
 *  - keeps λ = −C/α̃ at every iterate (newton.c's residual), so ‖(g, h)‖ = ‖∇G‖;
 *  - uses ∇²(½C²/α̃) as the constraint's block of the Newton matrix, by central differences
 *    of C∇C/α̃ = V∇Ψ Δt²/α (smooth), projected to positive semi-definite per element
 *    (Teran et al. 2005, "Robust quasistatic finite elements"): the matrix M + Σ H⁺ is
 *    positive definite, so the step is a descent direction of G even where StVK's
 *    stiffness is indefinite (compression) and the step's converged answer is unchanged;
 *  - when every constraint is of this kind, backtracks on G (Armijo, with a descent check)
 *    instead of ‖(g, h)‖, and never accepts a step that turns a tet inside out (the sign of
 *    det D_s against the iterate's: a prediction x̃ that is already inverted may stay so),
 *    shortening it instead.
 * A step the KKT form cannot solve from x̃ nor x is solved once more with every compliant
 * single row (distance springs, ...) in this form too (newton_kkt_to_potential: the spring
 * sheet without bending, solver/newton/README.md "Newton reference"). */
#include "newton_private.h"

#include <math.h>

#define POT_FD_REL_STEP 6e-6 /* as newton_system.c's FD_REL_STEP */

/* Σ_r (C_r/α̃_r)∇C_r over the nb rows c, c+1, … (one element) at the gathered xl into out;
 * 0, or 1 when degenerate. A row of a block whose C is degenerate there (Stable
 * Neo-Hookean's collapsed tet) makes the element's Hessian undefined. */
int newton_scaled_grad(const pbd_constraint_set *set, int c, int nb, const double *xl,
                       const double *at, double *out, double *row)
{
    int nr = set->type->n_rest;
    for (int k = 0; k < 3 * set->arity; k++) out[k] = 0.0;
    for (int r = 0; r < nb; r++) {
        pbd_eval_input in = {xl, set->arity, set->rest + (size_t)(c + r) * (nr > 0 ? nr : 1),
                             set->aux, set->n_aux};
        double C;
        if (set->type->eval(&in, &C, row) != PBD_EVAL_OK || !isfinite(C)) return 1;
        for (int k = 0; k < 3 * set->arity; k++) out[k] += row[k] * C / at[r];
    }
    return 0;
}

int newton_potential_hessian(struct pbd_newton_workspace *nw, const pbd_constraint_set *set,
                             int c, const double *at)
{
    const int a = set->arity, n3 = 3 * a;
    /* a block (Stable Neo-Hookean's hydrostatic and deviatoric rows of one tet) is one
     * element: the rows' separate Hessians are indefinite at rest (their rest-state
     * multipliers balance only together), their sum is the material's stiffness */
    const int nb = newton_element_rows(set->type);
    if (c % nb) return 2;
    if (n3 > PBD_SYM_EIGEN_MAX) return 1;
    double grad_r[PBD_SYM_EIGEN_MAX]; /* one row's gradient */
    const int32_t *idx = set->idx + (size_t)c * a;
    double size = 0.0;
    for (int j = 0; j < a; j++)
        for (int k = 0; k < 3; k++) nw->xl[3 * j + k] = nw->x[3 * (size_t)idx[j] + k];
    for (int j = 1; j < a; j++)
        for (int k = 0; k < 3; k++) size = fmax(size, fabs(nw->xl[3 * j + k] - nw->xl[k]));
    const double eps = POT_FD_REL_STEP * (size > 0.0 ? size : 1.0);
    for (int col = 0; col < n3; col++) {
        double keep = nw->xl[col];
        nw->xl[col] = keep + eps;
        int bad = newton_scaled_grad(set, c, nb, nw->xl, at, nw->gp, grad_r);
        nw->xl[col] = keep - eps;
        bad |= newton_scaled_grad(set, c, nb, nw->xl, at, nw->gm, grad_r);
        nw->xl[col] = keep;
        if (bad) return 1;
        for (int row = 0; row < n3; row++)
            nw->H[(size_t)row * n3 + col] = (nw->gp[row] - nw->gm[row]) / (2.0 * eps);
    }
    newton_symmetrise(nw->H, n3);
    return nw->exact_potential ? 0 : pbd_sym_project_psd(n3, nw->H, 0.0) < 0;
}

void newton_symmetrise(double *H, int n)
{
    for (int row = 0; row < n; row++)
        for (int col = row + 1; col < n; col++) {
            double avg = 0.5 * (H[(size_t)row * n + col] + H[(size_t)col * n + row]);
            H[(size_t)row * n + col] = H[(size_t)col * n + row] = avg;
        }
}

int newton_all_potential(const pbd_world *w, const struct pbd_newton_workspace *nw)
{
    int any = 0;
    for (int s = 0; s < w->n_sets; s++)
        for (int c = 0; c < w->sets[s].count; c++) {
            if (!newton_row_potential(nw, &w->sets[s], c)) return 0;
            any = 1;
        }
    return any;
}

int newton_objective(const pbd_world *w)
{
    int any = 0;
    for (int s = 0; s < w->n_sets; s++)
        for (int c = 0; c < w->sets[s].count; c++) {
            if (!(w->sets[s].compliance[c] > 0.0)) return 0;
            any = 1;
        }
    return any;
}

/* ∇G·dx with ∇G = M(x − x̃) + Σ_c (C_c/α̃_c)∇C_c = g + Σ_c (h_c/α̃_c)∇C_c, since
 * g = M(x − x̃) − Σ_c λ_c∇C_c and h_c = C_c + α̃_c λ_c (XPBD Eq. 8–9): a KKT row's λ is its
 * own unknown, a potential row's is −C/α̃ (h = 0), so the same sum serves both. */
double newton_objective_slope(const pbd_world *w, const struct pbd_newton_workspace *nw)
{
    double slope = newton_slope(nw);
    const int nf3 = 3 * nw->n_free;
    for (int s = 0; s < w->n_sets; s++) {
        const pbd_constraint_set *set = &w->sets[s];
        const int a = set->arity;
        for (int c = 0; c < set->count; c++) {
            const int gc = nw->set_c[s] + c;
            const double q = nw->r[nf3 + gc] / nw->alpha_tilde[gc];
            if (q == 0.0) continue;
            const double *grad = nw->grad + nw->set_g[s] + 3 * (size_t)a * c;
            const int32_t *idx = set->idx + (size_t)c * a;
            for (int j = 0; j < a; j++) {
                const int f = nw->free_of[idx[j]];
                for (int k = 0; f >= 0 && k < 3; k++) slope += q * grad[3 * j + k] * nw->dx[3 * f + k];
            }
        }
    }
    return slope;
}

static int has_compliant_rows(const pbd_world *w)
{
    for (int s = 0; s < w->n_sets; s++) {
        const pbd_constraint_set *set = &w->sets[s];
        if (set->type->energy || newton_element_rows(set->type) != 1) continue;
        for (int c = 0; c < set->count; c++)
            if (set->compliance[c] > 0.0) return 1;
    }
    return 0;
}

double newton_merit(const pbd_world *w, const struct pbd_newton_workspace *nw, const double *x)
{
    double G = 0.0;
    for (int i = 0; i < w->n; i++) {
        if (nw->free_of[i] < 0) continue;
        double m = 1.0 / w->w[i];
        for (int k = 0; k < 3; k++) G += 0.5 * m * pow(x[3 * i + k] - nw->xt[3 * i + k], 2);
    }
    for (int s = 0; s < w->n_sets; s++)
        for (int c = 0; c < w->sets[s].count; c++) {
            int gc = nw->set_c[s] + c;
            G += nw->C[gc] * nw->C[gc] / (2.0 * nw->alpha_tilde[gc]);
        }
    return G;
}

static double orientation(const double *x, const int32_t *idx)
{
    const double *p0 = x + 3 * (size_t)idx[0];
    double e[3][3];
    for (int j = 0; j < 3; j++)
        for (int k = 0; k < 3; k++) e[j][k] = x[3 * (size_t)idx[j + 1] + k] - p0[k];
    return e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) -
           e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
           e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]);
}

int newton_inverts(const pbd_world *w, const double *from, const double *x)
{
    for (int s = 0; s < w->n_sets; s++) {
        const pbd_constraint_set *set = &w->sets[s];
        if (!set->type->energy || set->arity != 4) continue;
        for (int c = 0; c < set->count; c++) {
            const int32_t *idx = set->idx + (size_t)c * 4;
            double before = orientation(from, idx), after = orientation(x, idx);
            if ((before > 0.0 && !(after > 0.0)) || (before < 0.0 && !(after < 0.0))) return 1;
        }
    }
    return 0;
}

/* The KKT form stalled on this step from x̃ and from x: once, the step anew from x̃ with the
 * compliant single rows in potential form too (newton_row_potential; a spring sheet without
 * bending, whose compressed springs wrinkle it: ‖(g, h)‖ has local minima that are not roots,
 * G is bounded below and decreases at every accepted step). 1 when that is to be done. */
int newton_kkt_to_potential(const pbd_world *w, struct pbd_newton_workspace *nw, int *potential,
                            int *restarted)
{
    if (nw->rows_potential || !has_compliant_rows(w)) return 0;
    nw->rows_potential = 1;
    *potential = newton_all_potential(w, nw);
    *restarted = 0;
    return 1;
}
