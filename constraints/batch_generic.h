/* Batched kernels that do exactly the generic projection's arithmetic (private to
 * constraints/). A type file instantiates them with its own eval, which the compiler then
 * inlines: no function pointer, no copy through the solver's workspace, but the same
 * operations in the same order as pbd_project_generic (PBD Eq. 8–9) and XPBD Eq. 18 with
 * γ = 0 (solver/xpbd/project.c), so the results are bit for bit those of the generic path —
 * positions and multipliers (PBD's Δλ = -k C / Σ w|∇C|², which the contact response reads). */
#ifndef PBD_BATCH_GENERIC_H
#define PBD_BATCH_GENERIC_H

#include "pbd_constraint.h"

#include <math.h>
#include <stddef.h>

#define BG_MAX_ARITY 4
#define BG_MIN_DENOMINATOR 1e-300 /* solver/xpbd/project.c's PBD_MIN_DENOMINATOR */

/* Project rows[begin .. end) of a set of a fixed-arity type with eval; xpbd selects XPBD
 * Eq. 18 (else PBD Eq. 8–9). Returns the number of constraints skipped as degenerate. */
static inline int bg_project(const pbd_batch *b, const int32_t *rows, int begin, int end,
                             int arity, int n_rest, int inequality, pbd_eval_fn eval, int xpbd)
{
    double x[3 * BG_MAX_ARITY], g[3 * BG_MAX_ARITY], w[BG_MAX_ARITY];
    int skipped = 0;
    for (int q = begin; q < end; q++) {
        int c = rows ? rows[q] : q;
        const int32_t *idx = b->idx + (size_t)c * arity;
        for (int j = 0; j < arity; j++) {
            const double *src = b->pos + 3 * (size_t)idx[j];
            x[3 * j] = src[0];
            x[3 * j + 1] = src[1];
            x[3 * j + 2] = src[2];
            w[j] = b->inv_mass[idx[j]];
        }
        pbd_eval_input in = {x, arity, b->rest + (size_t)c * n_rest, NULL, 0};
        double C;
        int st = eval(&in, &C, g);
        if (st != PBD_EVAL_OK) {
            skipped += st == PBD_EVAL_DEGENERATE;
            continue;
        }
        if (inequality && C >= 0.0) continue; /* inactive */
        double denom = 0.0;                   /* Σ_j w_j |∇_j C|² */
        for (int j = 0; j < arity; j++) {
            const double *gj = g + 3 * j;
            denom += w[j] * (gj[0] * gj[0] + gj[1] * gj[1] + gj[2] * gj[2]);
        }
        if (!(denom > BG_MIN_DENOMINATOR) || !isfinite(C)) {
            skipped++;
            continue;
        }
        if (xpbd) {
            double alpha_tilde = b->compliance[c] * b->alpha_scale;
            double dl = (-C - alpha_tilde * b->lambda[c]) / (denom + alpha_tilde); /* Eq. 18 */
            b->lambda[c] += dl;
            for (int j = 0; j < arity; j++)
                for (int k = 0; k < 3; k++) x[3 * j + k] += dl * w[j] * g[3 * j + k];
        } else {
            double k_eff = b->stiffness[c], s = C / denom; /* Eq. 8 */
            for (int j = 0; j < arity; j++)
                for (int k = 0; k < 3; k++) x[3 * j + k] -= k_eff * s * w[j] * g[3 * j + k];
            b->lambda[c] += -k_eff * s; /* the multiplier: Δx_j = Δλ w_j ∇_j C */
        }
        for (int j = 0; j < arity; j++) {
            if (w[j] <= 0.0) continue;
            double *dst = b->pos + 3 * (size_t)idx[j];
            dst[0] = x[3 * j];
            dst[1] = x[3 * j + 1];
            dst[2] = x[3 * j + 2];
        }
    }
    return skipped;
}

/* The Gauss–Seidel kernels of a type with eval function EVAL, as static functions
 * PREFIX_gs_pbd and PREFIX_gs_xpbd. */
#define BG_DEFINE_GS_KERNELS(PREFIX, ARITY, N_REST, INEQUALITY, EVAL)                        \
    static int PREFIX##_gs_pbd(const pbd_batch *b, const int32_t *rows, int begin, int end) \
    {                                                                                        \
        return bg_project(b, rows, begin, end, ARITY, N_REST, INEQUALITY, EVAL, 0);         \
    }                                                                                        \
    static int PREFIX##_gs_xpbd(const pbd_batch *b, const int32_t *rows, int begin, int end) \
    {                                                                                        \
        return bg_project(b, rows, begin, end, ARITY, N_REST, INEQUALITY, EVAL, 1);         \
    }

/* The four kernels of a type with eval function EVAL (a colour is a special case of
 * Gauss–Seidel order, so the Gauss–Seidel kernels serve both) and the table PREFIX_kernels. */
#define BG_DEFINE_KERNELS(PREFIX, ARITY, N_REST, INEQUALITY, EVAL)                           \
    BG_DEFINE_GS_KERNELS(PREFIX, ARITY, N_REST, INEQUALITY, EVAL);                           \
    static const pbd_kernels PREFIX##_kernels = {PREFIX##_gs_pbd, PREFIX##_gs_xpbd,         \
                                                 PREFIX##_gs_pbd, PREFIX##_gs_xpbd, 0}

#endif
