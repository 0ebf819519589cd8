/* Vertex Block Descent (Chen, Liu, Yang, Yuksel 2024) and its augmented form (AVBD, Giles,
 * Diaz, Yuksel 2025) on the constraint table: each constraint is the energy E = C²/(2α), so
 *   ∇_iE = (C/α) ∇_iC,   ∇²_iiE = (∇_iC ∇_iCᵀ + C ∇²_iiC)/α.
 * One iteration visits the free particles colour by colour (VBD "Parallelization": the particles of
 * one colour share no constraint, so they are updated in parallel, and the result does not
 * depend on the thread count), or with def.vbd_order = index one after the other in index
 * order (serial Gauss–Seidel over the vertices); particle i takes one Newton step on G with the others fixed
 * (VBD Sec. 3, the local system):
 *   f_i = −(m_i/h²)(x_i − y_i) − Σ_j ∇_iE_j,   H_i = (m_i/h²) I + Σ_j ∇²_iiE_j,   x_i += H_i⁻¹ f_i,
 * skipped when |det H_i| is below 1e-12 of its scale (VBD: "when |det H_i| < ε we skip the
 * update"). VBD keeps the full local Hessian, C∇²C included, and relies on that test for
 * indefinite ones; so do we. AVBD replaces the energy of a constraint by its augmented
 * Lagrangian ½ k C² + λ C (solver/vbd/avbd.c) and the term λ⁺∇²C by the diagonal of its
 * columns' norms times |λ⁺| (AVBD "Hessian approximation": positive semi-definite).
 * Damping (VBD "Damping"): each energy adds the force −(k_d/h) ∇²_iiE_j (x_i − x_t,i) and the
 * Hessian (k_d/h) ∇²_iiE_j. Chebyshev acceleration (VBD Sec. 3.8, after Wang 2015):
 *   x^(n+1) = ω_{n+1} (x̂^(n+1) − x^(n−1)) + x^(n−1),  ω_1 = 1, ω_2 = 2/(2 − ρ²),
 *   ω_{n+1} = 4/(4 − ρ² ω_n). */
#include "solver/families.h"
#include "solver/method.h"
#include "solver/solver_private.h"

#include <math.h>
#include <omp.h>

/* The force multiplier λ⁺ (force −λ⁺ ∇_iC) and stiffness k of constraint c of a scene set
 * (s < n_static) for VBD: k = 1/α, λ⁺ = kC; an inequality only while C < 0 (VBD's
 * collisions are penalty energies of the penetration). */
static inline int vbd_scene_force(const pbd_constraint_set *set, int c, double C,
                                  double *lam_plus, double *k)
{
    if (set->type->inequality && C >= 0.0) return 0;
    *k = 1.0 / set->compliance[c];
    *lam_plus = *k * C;
    return 1;
}

/* The same for any set and method; a contact row (s >= n_static) takes VBD Sec. 4's penalty
 * ½ k_c C² (solver/vbd/vbd_contact.c). 0 when it exerts no force. */
int pbd_vbd_force(const pbd_world *w, const pbd_family_ws *fw, int s, int c, double C,
                  double *lam_plus, double *k)
{
    const pbd_constraint_set *set = &w->sets[s];
    if (pbd_method_of(&w->def)->augmented) return pbd_avbd_force(w, fw, s, c, C, lam_plus, k);
    if (s < fw->n_static) return vbd_scene_force(set, c, C, lam_plus, k);
    if (set->type->inequality && C >= 0.0) return 0;
    *k = fw->k_contact;
    *lam_plus = *k * C;
    return 1;
}

static double det3(const double *A)
{
    return A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) +
           A[2] * (A[3] * A[7] - A[4] * A[6]);
}

/* A symmetric 3×3 is positive definite: its leading minors are positive (Sylvester). */
static int positive_definite(const double *A)
{
    return A[0] > 0.0 && A[0] * A[4] - A[1] * A[3] > 0.0 && det3(A) > 0.0;
}

/* C, ∇_jC (g) and, when hess_ok, ∇²_jjC (B) of a constraint at w->p for its particle j:
 * terms_eval takes them from the type's vertex_block (def.kernels on), else C and g from eval
 * and, only when terms_hessian asks, B from hessian or the differences (solver/hessian.c);
 * the same bits either way (tests/test_vertex_block.c). terms_eval returns eval's status. */
typedef struct vertex_terms {
    double C, g[3], B[9];
    int hess_ok, fast;
    pbd_eval_input in;
    double xl[12]; /* the gathered positions of a constraint of at most 4 particles */
} vertex_terms;

/* Constraint c's particles from pos, 3 doubles each, into xl. */
static inline void gather(const int32_t *restrict idx, int arity, const double *restrict pos,
                          double *restrict xl)
{
    for (int q = 0; q < arity; q++) {
        const double *x = pos + 3 * (size_t)idx[q];
        xl[3 * q] = x[0];
        xl[3 * q + 1] = x[1];
        xl[3 * q + 2] = x[2];
    }
}

static inline int terms_eval(const pbd_world *w, const pbd_constraint_set *set, int c, int j,
                             pbd_vertex_block_fn vb, family_scratch *sc, vertex_terms *t)
{
    t->fast = vb != NULL;
    if (!vb) {
        int st = pbd_family_eval(w, set, c, w->p, sc, &t->in, &t->C);
        for (int k = 0; k < 3; k++) t->g[k] = sc->grad[3 * j + k];
        t->hess_ok = 0;
        return st;
    }
    const int arity = set->arity, nr = set->type->n_rest;
    double *xl = arity <= 4 ? t->xl : sc->xl;
    gather(set->idx + (size_t)c * arity, arity, w->p, xl);
    pbd_eval_input e = {xl, arity, set->rest + (size_t)c * (nr > 0 ? nr : 1), set->aux,
                        set->n_aux};
    return vb(&e, j, &t->C, t->g, t->B, &t->hess_ok);
}

static int terms_hessian(const pbd_constraint_set *set, int j, family_scratch *sc,
                         vertex_terms *t)
{
    if (!t->fast)
        t->hess_ok = pbd_constraint_hessian_block(set->type, &t->in, j, sc->xl, sc->gp, sc->gm,
                                                  sc->H, t->B) == 0;
    return t->hess_ok;
}

/* The local Newton step of free particle i on w->p. */
void pbd_vbd_vertex_update(pbd_world *w, pbd_family_ws *fw, family_scratch *sc, int i, double h)
{
    pbd_vbd_vertex_update_pre(w, fw, sc, i, h, NULL, NULL);
}

/* The sums of f_i and H_i (and Hgn, the Gauss–Newton part, with contacts) over particle i's
 * pairs (its adjacency from a0), the precomputed terms pre where have is set. AVBD, CONTACTS
 * and DAMPED are constants where it is inlined (pbd_vbd_vertex_update_pre): the common
 * cases without contacts and damping get a loop of their own; the same operations in the
 * same order in every case. */
static inline __attribute__((always_inline)) void
sum_pairs(pbd_world *w, pbd_family_ws *fw, family_scratch *sc, int i, double h,
          const pbd_vertex_terms *pre, const unsigned char *have, double *f, double *H,
          double *Hgn, const int avbd, const int contacts, const int damped)
{
    const double kd = damped ? w->def.vbd_damping : 0.0, kdh = kd / h, damp = 1.0 + kd / h;
    const double *xi = w->p + 3 * (size_t)i;
    const int32_t *adj_s = fw->adj_s, *adj_c = fw->adj_c, *adj_j = fw->adj_j;
    const int a0 = fw->adj_ptr[i];
    for (int a = a0; a < fw->adj_ptr[i + 1]; a++) {
        int s = adj_s[a], c = adj_c[a], j = adj_j[a];
        const pbd_constraint_set *set = &w->sets[s];
        vertex_terms t;
        double lam, k;
        const double *g = t.g, *B = t.B;
        if (have && have[a - a0]) { /* the batched sweep's: vertex_block's terms */
            const pbd_vertex_terms *p = &pre[a - a0];
            if (p->status != PBD_EVAL_OK) continue;
            t.C = p->C;
            t.hess_ok = p->hess_ok;
            t.fast = 1;
            g = p->g;
            B = p->B;
        } else {
            pbd_vertex_block_fn vb = w->def.kernels ? set->type->vertex_block : NULL;
            if (terms_eval(w, set, c, j, vb, sc, &t) != PBD_EVAL_OK) continue;
        }
        if (!(avbd ? pbd_avbd_force(w, fw, s, c, t.C, &lam, &k)
                   : vbd_scene_force(set, c, t.C, &lam, &k)))
            continue;
        double Hl[9];
        for (int r = 0; r < 3; r++) {
            f[r] -= lam * g[r];
            for (int q = 0; q < 3; q++) Hl[3 * r + q] = k * g[r] * g[q];
        }
        if (contacts)
            for (int q = 0; q < 9; q++) Hgn[q] += damp * Hl[q];
        if (lam != 0.0 && terms_hessian(set, j, sc, &t)) {
            if (avbd) /* AVBD "Hessian approximation": diag(column norms of ∇²_iiC)·|λ⁺| */
                for (int r = 0; r < 3; r++)
                    Hl[4 * r] += fabs(lam) * sqrt(B[r] * B[r] + B[3 + r] * B[3 + r] +
                                                  B[6 + r] * B[6 + r]);
            else
                for (int q = 0; q < 9; q++) Hl[q] += lam * B[q];
        }
        if (kd > 0.0) {
            const double *xt = fw->x_t + 3 * (size_t)i;
            for (int r = 0; r < 3; r++)
                for (int q = 0; q < 3; q++) f[r] -= kdh * Hl[3 * r + q] * (xi[q] - xt[q]);
        }
        if (damp != 1.0)
            for (int q = 0; q < 9; q++) H[q] += damp * Hl[q];
        else /* without damping: 1·Hl = Hl, the same sums */
            for (int q = 0; q < 9; q++) H[q] += Hl[q];
    }
}

void pbd_vbd_vertex_update_pre(pbd_world *w, pbd_family_ws *fw, family_scratch *sc, int i,
                               double h, const pbd_vertex_terms *pre, const unsigned char *have)
{
    const int avbd = pbd_method_of(&w->def)->augmented, contacts = fw->n_contacts > 0;
    double *xi = w->p + 3 * (size_t)i;
    double mh = 1.0 / (w->w[i] * h * h), f[3], H[9] = {0}, Hgn[9] = {0};
    for (int k = 0; k < 3; k++) {
        f[k] = -mh * (xi[k] - fw->y[3 * (size_t)i + k]);
        H[4 * k] = Hgn[4 * k] = mh;
    }
    if (contacts || w->def.vbd_damping != 0.0) /* every case, read at run time */
        sum_pairs(w, fw, sc, i, h, pre, have, f, H, Hgn, avbd, contacts, 1);
    else if (avbd)
        sum_pairs(w, fw, sc, i, h, pre, have, f, H, Hgn, 1, 0, 0);
    else
        sum_pairs(w, fw, sc, i, h, pre, have, f, H, Hgn, 0, 0, 0);
    if (fw->n_contacts > 0) {
        double Hc[9] = {0};
        pbd_vbd_contact_terms(w, fw, sc, i, h, f, Hc);
        for (int q = 0; q < 9; q++) {
            H[q] += Hc[q];
            Hgn[q] += Hc[q];
        }
        /* ours: contacts crumple the cloth, and a compressed element's C∇²C made H_i
         * indefinite with det > 0 — a step uphill that threw a stiff cloth off the ground
         * (measured); then the Gauss–Newton part, positive definite */
        if (!positive_definite(H))
            for (int q = 0; q < 9; q++) H[q] = Hgn[q];
    }
    double det = det3(H), scale = fmax(fabs(H[0]), fmax(fabs(H[4]), fabs(H[8])));
    if (!(fabs(det) > 1e-12 * scale * scale * scale)) return;
    double inv[9] = {H[4] * H[8] - H[5] * H[7], H[2] * H[7] - H[1] * H[8],
                     H[1] * H[5] - H[2] * H[4], H[5] * H[6] - H[3] * H[8],
                     H[0] * H[8] - H[2] * H[6], H[2] * H[3] - H[0] * H[5],
                     H[3] * H[7] - H[4] * H[6], H[1] * H[6] - H[0] * H[7],
                     H[0] * H[4] - H[1] * H[3]}; /* the adjugate: H⁻¹ = inv/det */
    for (int r = 0; r < 3; r++)
        xi[r] += (inv[3 * r] * f[0] + inv[3 * r + 1] * f[1] + inv[3 * r + 2] * f[2]) / det;
    if (fw->bound < INFINITY) { /* VBD Sec. 4: |x_i − x_detect| ≤ b (solver/families.c) */
        const double *x0 = fw->x_detect + 3 * (size_t)i;
        double dx[3] = {xi[0] - x0[0], xi[1] - x0[1], xi[2] - x0[2]};
        double len = sqrt(dx[0] * dx[0] + dx[1] * dx[1] + dx[2] * dx[2]);
        if (len > fw->bound)
            for (int r = 0; r < 3; r++) xi[r] = x0[r] + dx[r] * (fw->bound / len);
    }
}

pbd_status pbd_vbd_begin(pbd_world *w, pbd_family_ws *fw, double h)
{
    if (pbd_method_of(&w->def)->augmented) pbd_avbd_begin(w, fw, h);
    for (int i = 0; i < 3 * w->n; i++) fw->cheb1[i] = w->p[i];
    fw->cheb_omega = 1.0;
    return PBD_OK;
}

/* Chebyshev's extrapolation after iteration it (0-based) of the free particles. */
static void chebyshev(pbd_world *w, pbd_family_ws *fw, int it)
{
    double rho2 = w->def.vbd_chebyshev_rho * w->def.vbd_chebyshev_rho;
    double omega = it == 0   ? 1.0
                   : it == 1 ? 2.0 / (2.0 - rho2)
                             : 4.0 / (4.0 - rho2 * fw->cheb_omega);
    fw->cheb_omega = omega;
    for (int i = 0; i < w->n; i++) {
        if (w->w[i] <= 0.0) continue;
        for (int k = 0; k < 3; k++) {
            size_t q = 3 * (size_t)i + k;
            double prev = fw->cheb1[q];
            if (it > 0) w->p[q] = omega * (w->p[q] - fw->cheb2[q]) + fw->cheb2[q];
            fw->cheb2[q] = prev;
            fw->cheb1[q] = w->p[q];
        }
    }
}

void (*pbd_test_vbd_sweep)(pbd_world *w, pbd_family_ws *fw, double h) = NULL;

pbd_status pbd_vbd_iteration(pbd_world *w, pbd_family_ws *fw, double h, int it, int threads)
{
    if (pbd_test_vbd_sweep) {
        pbd_test_vbd_sweep(w, fw, h);
    } else if (w->def.vbd_order == PBD_VBD_ORDER_INDEX) { /* serial, particles 0 .. n−1 */
        for (int i = 0; i < w->n; i++)
            if (w->w[i] > 0.0) pbd_vbd_vertex_update(w, fw, &fw->scratch[0], i, h);
    } else {
        const int nt_plan = threads > 1 ? threads : 1;
        if (w->def.kernels && !pbd_vbd_plan_ready(w, fw, nt_plan))
            return pbd_error(PBD_ENOMEM, "vbd: out of memory for the batched sweep's lists");
#pragma omp parallel num_threads(threads) if (threads > 1)
        {
            const int nt = omp_get_num_threads(), tid = omp_get_thread_num();
            family_scratch *sc = &fw->scratch[tid];
            for (int col = 0; col < fw->n_colours; col++) {
                /* the colour cut in nt equal parts: its particles share no constraint, so
                 * any cut gives the same bits */
                int b = fw->col_start[col], len = fw->col_start[col + 1] - b;
                int lo = b + (int)((long)len * tid / nt), hi = b + (int)((long)len * (tid + 1) / nt);
                if (w->def.kernels && nt == nt_plan) { /* the plan's cut is this one */
                    pbd_vbd_sweep_planned(w, fw, sc, nt, col, tid, h);
                } else {
                    for (int q = lo; q < hi; q++)
                        pbd_vbd_vertex_update(w, fw, sc, fw->col_order[q], h);
                }
#pragma omp barrier
            }
        }
    }
    if (w->def.vbd_chebyshev_rho > 0.0) chebyshev(w, fw, it);
    if (pbd_method_of(&w->def)->augmented) {
        pbd_avbd_friction_update(w, fw); /* with the normal rows' λ of this iteration */
        pbd_avbd_update(w, fw, threads);
    }
    return PBD_OK;
}
