/* The Newton reference's refusal of a stiff membrane without out-of-plane stiffness
 * (solver/newton/README.md "Newton reference"): triangle elements in the potential form
 * (fem_triangle, strain_triangle with α > 0) whose particles no other constraint holds out of
 * the plane (no bending hinge, no volume, no tet). Such a sheet resists a normal displacement
 * w only through the mass, m w²/(2Δt²), and through the stretch it causes, which grows like
 * w⁴ — the stiffer the membrane against the mass, the longer Newton's damped phase (and
 * where the sheet is compressed, it wrinkles: the step's minimiser is marginal, its Hessian
 * nearly singular, and Newton's rate there is linear). κ below is that ratio; newton_check.c
 * refuses κ > 1/√ε before the first step. Sheets of two-particle rows (the distance cloth's
 * springs) count by their triangles, each spring's stiffness |∇C|²Δt²/α (infinite when
 * rigid). A triangle of rigid springs counts even where a bending hinge (but no volume, tet
 * or attachment) holds its particles: flat, the rigid rows' gradients all lie in its plane,
 * so the normal motion the step's load asks for is in the null space of their linearisation
 * (first order leaves every length unchanged), the rows are dependent (about 3 per particle
 * for its 2 in-plane unknowns), and the positions they allow near flat are folds of the
 * sheet: no regular solution for Newton's KKT iteration (cloth_bend --compliance=0
 * --bend-compliance=1e-3 failed at step 1 at 1, 4 and 16 substeps; solver/newton/README.md
 * "Newton reference"). */
#include "newton_private.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#define FD_REL_STEP 6e-6 /* as newton_system.c's */

/* The largest eigenvalue of ∇²Σ_r ½C_r²/α̃_r (kg: the unit of M in G) of the element whose
 * first row is c, at its rest shape — the positions x of the world now — by central
 * differences of its force; -1 when undefined. */
static double element_stiffness(const pbd_constraint_set *set, int c, int nb, const double *x,
                                double h)
{
    const int a = set->arity, n3 = 3 * a;
    if (n3 > PBD_SYM_EIGEN_MAX) return -1.0;
    double xl[PBD_SYM_EIGEN_MAX], fp[PBD_SYM_EIGEN_MAX], fm[PBD_SYM_EIGEN_MAX];
    double H[PBD_SYM_EIGEN_MAX * PBD_SYM_EIGEN_MAX], V[PBD_SYM_EIGEN_MAX * PBD_SYM_EIGEN_MAX];
    double ev[PBD_SYM_EIGEN_MAX], at[PBD_SYM_EIGEN_MAX], row[PBD_SYM_EIGEN_MAX], size = 0.0;
    if (nb > PBD_SYM_EIGEN_MAX) return -1.0;
    for (int r = 0; r < nb; r++) at[r] = set->compliance[c + r] / (h * h); /* α̃ = α/Δt² */
    const int32_t *idx = set->idx + (size_t)c * a;
    for (int j = 0; j < a; j++)
        for (int k = 0; k < 3; k++) xl[3 * j + k] = x[3 * (size_t)idx[j] + k];
    for (int j = 1; j < a; j++)
        for (int k = 0; k < 3; k++) size = fmax(size, fabs(xl[3 * j + k] - xl[k]));
    const double eps = FD_REL_STEP * (size > 0.0 ? size : 1.0);
    for (int col = 0; col < n3; col++) {
        double keep = xl[col];
        xl[col] = keep + eps;
        int bad = newton_scaled_grad(set, c, nb, xl, at, fp, row);
        xl[col] = keep - eps;
        bad |= newton_scaled_grad(set, c, nb, xl, at, fm, row);
        xl[col] = keep;
        if (bad) return -1.0;
        for (int row = 0; row < n3; row++) H[row * n3 + col] = (fp[row] - fm[row]) / (2.0 * eps);
    }
    newton_symmetrise(H, n3);
    if (pbd_sym_eigen(n3, H, ev, V) != 0) return -1.0;
    double top = 0.0;
    for (int k = 0; k < n3; k++) top = fmax(top, ev[k]);
    return top;
}

/* 1 when the step's prediction Δt v + Δt² g moves the triangle's particles along its normal
 * beyond the rounding of that motion (a horizontal sheet under gravity; not a vertical one
 * hanging in its plane, which the mass and its in-plane stiffness carry alone). */
static int normal_load(const pbd_world *w, const int32_t *idx, double h)
{
    const double *p0 = w->x + 3 * (size_t)idx[0], *p1 = w->x + 3 * (size_t)idx[1],
                 *p2 = w->x + 3 * (size_t)idx[2];
    double e1[3], e2[3], n[3];
    for (int k = 0; k < 3; k++) e1[k] = p1[k] - p0[k], e2[k] = p2[k] - p0[k];
    n[0] = e1[1] * e2[2] - e1[2] * e2[1];
    n[1] = e1[2] * e2[0] - e1[0] * e2[2];
    n[2] = e1[0] * e2[1] - e1[1] * e2[0];
    double nn = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]), normal = 0.0, size = 0.0;
    if (!(nn > 0.0)) return 0;
    for (int j = 0; j < 3; j++) {
        double d[3], dn = 0.0, dd = 0.0;
        for (int k = 0; k < 3; k++) {
            d[k] = h * w->v[3 * (size_t)idx[j] + k] + h * h * w->def.gravity[k];
            dn += d[k] * n[k] / nn;
            dd += d[k] * d[k];
        }
        normal = fmax(normal, fabs(dn));
        size = fmax(size, sqrt(dd));
    }
    return normal > 4.0 * DBL_EPSILON * size;
}

static int membrane_set(const pbd_constraint_set *set)
{
    return set->arity == 3 && set->count > 0 && newton_potential(set, 0);
}

/* A spring's stiffness |∇C|²Δt²/α (kg, the top eigenvalue of ∇C∇Cᵀ/α̃), infinite when rigid;
 * 0 where its gradient is undefined. */
static double spring_stiffness(const pbd_world *w, const pbd_constraint_set *set, int c,
                               double h)
{
    double C, grad[6], xl[6], gg = 0.0;
    const int nr = set->type->n_rest;
    for (int j = 0; j < 2; j++)
        for (int k = 0; k < 3; k++) xl[3 * j + k] = w->x[3 * (size_t)set->idx[2 * (size_t)c + j] + k];
    pbd_eval_input in = {xl, 2, set->rest + (size_t)c * (nr > 0 ? nr : 1), set->aux, set->n_aux};
    if (set->type->eval(&in, &C, grad) != PBD_EVAL_OK || !isfinite(C)) return 0.0;
    for (int k = 0; k < 6; k++) gg += grad[k] * grad[k];
    return set->compliance[c] > 0.0 ? gg * h * h / set->compliance[c] : INFINITY;
}

/* One endpoint's view of a two-particle row: the other particle, the row's stiffness. */
typedef struct spring_end {
    int32_t other;
    double k;
} spring_end;

/* The largest κ over triangles of springs (rows of two particles, e.g. the distance cloth's
 * edges: a sheet, where a chain of them is not) with a free unheld particle under a normal
 * load, above kappa; -1 out of memory. */
static double spring_sheets(const pbd_world *w, const char *held, double h, double kappa,
                            int *set_out, int *element_out)
{
    int32_t *start = calloc((size_t)w->n + 1, sizeof *start);
    long total = 0;
    for (int s = 0; s < w->n_sets; s++)
        if (w->sets[s].arity == 2 && w->sets[s].type->eval) total += 2L * w->sets[s].count;
    spring_end *ends = malloc((size_t)(total > 0 ? total : 1) * sizeof *ends);
    int32_t *fill = calloc((size_t)w->n + 1, sizeof *fill);
    if (!start || !ends || !fill) {
        free(start), free(ends), free(fill);
        return -1.0;
    }
    for (int s = 0; s < w->n_sets; s++)
        if (w->sets[s].arity == 2 && w->sets[s].type->eval)
            for (int c = 0; c < w->sets[s].count; c++)
                for (int j = 0; j < 2; j++) start[w->sets[s].idx[2 * (size_t)c + j] + 1]++;
    for (int i = 0; i < w->n; i++) start[i + 1] += start[i];
    for (int s = 0; s < w->n_sets; s++) {
        const pbd_constraint_set *set = &w->sets[s];
        if (set->arity != 2 || !set->type->eval) continue;
        for (int c = 0; c < set->count; c++) {
            const int32_t a = set->idx[2 * (size_t)c], b = set->idx[2 * (size_t)c + 1];
            const double k = spring_stiffness(w, set, c, h);
            ends[start[a] + fill[a]++] = (spring_end){b, k};
            ends[start[b] + fill[b]++] = (spring_end){a, k};
        }
    }
    for (int32_t a = 0; a < w->n; a++)
        for (int32_t p = start[a]; p < start[a + 1]; p++) {
            const int32_t b = ends[p].other;
            if (b <= a) continue;
            for (int32_t q = start[a]; q < start[a + 1]; q++) {
                const int32_t c = ends[q].other;
                if (c <= b) continue;
                double kbc = -1.0;
                for (int32_t r = start[b]; r < start[b + 1] && kbc < 0.0; r++)
                    if (ends[r].other == c) kbc = ends[r].k;
                if (kbc < 0.0) continue; /* not a triangle */
                const int32_t tri[3] = {a, b, c};
                const double k = fmax(fmax(ends[p].k, ends[q].k), kbc);
                /* a rigid triangle: a hinge's finite stiffness (kinked at flat) leaves the
                 * rigid rows' linearisation without the normal direction (see the top); a
                 * volume or a tet holds the particles */
                double m_min = INFINITY;
                for (int j = 0; j < 3; j++)
                    if (w->w[tri[j]] > 0.0 && (!held[tri[j]] || (isinf(k) && held[tri[j]] < 2)))
                        m_min = fmin(m_min, 1.0 / w->w[tri[j]]);
                if (!isfinite(m_min) || !normal_load(w, tri, h)) continue;
                if (k / m_min > kappa) {
                    kappa = k / m_min;
                    if (set_out) *set_out = -1; /* springs: named by their particles */
                    if (element_out) *element_out = a;
                }
            }
        }
    free(start), free(ends), free(fill);
    return kappa;
}

double newton_membrane_ratio(const pbd_world *w, double h, int *set_out, int *element_out)
{
    /* the particles something holds out of the plane: any constraint of another kind but the
     * two-particle rows (springs, which pull along their own line) */
    char *held = calloc((size_t)(w->n > 0 ? w->n : 1), 1);
    if (!held) return -1.0;
    for (int s = 0; s < w->n_sets; s++) {
        const pbd_constraint_set *set = &w->sets[s];
        if (membrane_set(set) || set->arity == 2) continue;
        /* 1: held only by bending hinges (finite, kinked at flat), 2: by a volume, a tet, an
         * attachment … (what a rigid triangle's particles need, see the top) */
        const char by =
            (set->type == &pbd_bend_dihedral_type || set->type == &pbd_bend_isometric_type) ? 1 : 2;
        for (size_t k = 0; k < (size_t)set->count * set->arity; k++)
            if (held[set->idx[k]] < by) held[set->idx[k]] = by;
    }
    double kappa = spring_sheets(w, held, h, 0.0, set_out, element_out);
    if (kappa < 0.0) {
        free(held);
        return -1.0;
    }
    for (int s = 0; s < w->n_sets; s++) {
        const pbd_constraint_set *set = &w->sets[s];
        if (!membrane_set(set)) continue;
        const int nb = newton_element_rows(set->type);
        for (int c = 0; c + nb <= set->count; c += nb) {
            if (!newton_potential(set, c)) continue;
            const int32_t *idx = set->idx + (size_t)c * set->arity;
            double m_min = INFINITY;
            for (int j = 0; j < set->arity; j++)
                if (w->w[idx[j]] > 0.0 && !held[idx[j]]) m_min = fmin(m_min, 1.0 / w->w[idx[j]]);
            if (!isfinite(m_min)) continue; /* every particle fixed or held */
            if (!normal_load(w, idx, h)) continue;
            double k = element_stiffness(set, c, nb, w->x, h);
            if (k / m_min > kappa) {
                kappa = k / m_min;
                if (set_out) *set_out = s;
                if (element_out) *element_out = c;
            }
        }
    }
    free(held);
    return kappa;
}
