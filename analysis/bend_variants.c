/* Formula variants of the bending projection, measured on the dihedral type's own random
 * hinges: PBD Eq. 28 (the type's closed form) against the review slides' step
 * (pbd_bend_dihedral_slides_project, which divides by Σ|q_j| instead of Σ w_j |q_j|²).
 *
 * For each we report the residual of the linearized constraint (PBD Eq. 3),
 *   |C(p) + ∇C(p)·Δp| / |C(p)|,
 * which a projection along ∇C scaled by Eq. 8 makes zero, and the nonlinear ratio
 * |C(p + Δp)| / |C(p)| after the one step. */
#include "pbd_analysis.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *a, int n)
{
    if (n == 0) return NAN;
    qsort(a, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? a[n / 2] : 0.5 * (a[n / 2 - 1] + a[n / 2]);
}

static void summarize(double *a, int n, pbd_variant_stats *s)
{
    s->min = INFINITY;
    s->max = 0.0;
    for (int i = 0; i < n; i++) {
        s->min = fmin(s->min, a[i]);
        s->max = fmax(s->max, a[i]);
    }
    s->median = median(a, n);
    if (n == 0) s->min = s->max = NAN;
}

/* |C(x + Δp)| / |C(x)|, or -1 when an evaluation is degenerate or C(x) = 0. */
static double step_ratio(const pbd_constraint_type *t, const pbd_eval_input *in, const double *x1)
{
    double C0, C1;
    pbd_eval_input in1 = *in;
    in1.x = x1;
    if (t->eval(in, &C0, NULL) != PBD_EVAL_OK || t->eval(&in1, &C1, NULL) != PBD_EVAL_OK ||
        C0 == 0.0)
        return -1.0;
    return fabs(C1) / fabs(C0);
}

pbd_status pbd_bend_variants(const pbd_gradcheck_options *opt, pbd_bend_variants_result *r)
{
    memset(r, 0, sizeof *r);
    const pbd_constraint_type *t = &pbd_bend_dihedral_type;
    int N = opt->samples;
    double *buf = malloc(sizeof(double) * 4 * (size_t)N);
    if (!buf)
        return pbd_error(PBD_ENOMEM, "analysis/bend_variants.c: pbd_bend_variants: expected "
                         "memory for %d samples, found none", N);
    double *lin28 = buf, *linsl = buf + N, *rat28 = buf + 2 * N, *ratsl = buf + 3 * N;
    pbd_rng rng;
    pbd_rng_seed(&rng, opt->seed ^ 0xbe4d5a71de5ULL); /* its own stream */
    int n = 0;
    for (int s = 0; s < N; s++) {
        double x[3 * PBD_SAMPLE_MAX_ARITY], rest[1], a[12], b[12], da[12], db[12], w[4];
        int32_t aux[1];
        int n_aux = 0;
        if (t->sample(&rng, 0, x, rest, aux, &n_aux) != 4) continue;
        for (int j = 0; j < 4; j++) w[j] = pbd_rng_range(&rng, 0.1, 10.0);
        pbd_eval_input in = {x, 4, rest, NULL, 0};
        memcpy(a, x, sizeof a);
        memcpy(b, x, sizeof b);
        if (t->project_closed_form(&in, w, 1.0, a) != PBD_EVAL_OK ||
            pbd_bend_dihedral_slides_project(&in, w, 1.0, b) != PBD_EVAL_OK) {
            r->skipped++;
            continue;
        }
        for (int i = 0; i < 12; i++) da[i] = a[i] - x[i], db[i] = b[i] - x[i];
        double la = pbd_linearized_residual(t, &in, da), lb = pbd_linearized_residual(t, &in, db);
        double ra = step_ratio(t, &in, a), rb = step_ratio(t, &in, b);
        if (la < 0 || lb < 0 || ra < 0 || rb < 0) {
            r->skipped++;
            continue;
        }
        lin28[n] = la, linsl[n] = lb, rat28[n] = ra, ratsl[n] = rb;
        n++;
    }
    r->samples = n;
    summarize(lin28, n, &r->eq28_linearized);
    summarize(linsl, n, &r->slides_linearized);
    summarize(rat28, n, &r->eq28_step_ratio);
    summarize(ratsl, n, &r->slides_step_ratio);
    free(buf);
    return PBD_OK;
}
