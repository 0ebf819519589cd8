/* The joint catalogue's rows (solver/rigid/joint_*.c, README "Joint types"): every row's
 * generalized gradient (∂x1, ∂θ1, ∂x2, ∂θ2) against central differences on SO(3), the rods'
 * convention (analysis/orientcheck.c: q ← normalize(exp(δθ/2)·q), pbd_quat_perturb, δθ a
 * world-frame rotation vector), and one XPBD projection of every row against
 * Δλ = −(C + α̃λ)/(w1 + w2 + α̃) with w_i = ∇x_iᵀ ∇x_i/m_i + ∇θ_iᵀ I_i⁻¹ ∇θ_i (Müller et al.
 * 2020 Eqs. 2–3, Sec. 3.3) built from the row's own gradient: the path, not the converged
 * answer. */
#include "tests.h"
#include "constraints/pbd_constraint.h"
#include "solver/rigid/pbd_rigid.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SAMPLES 40

static double dot3(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross3(double out[3], const double a[3], const double b[3])
{
    double t[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                   a[0] * b[1] - a[1] * b[0]};
    memcpy(out, t, sizeof t);
}

static void random_unit(pbd_rng *r, double v[3]) { pbd_rng_unit(r, v, 3, 0.1); }

/* a unit vector normal to the unit a */
static void random_normal(pbd_rng *r, const double a[3], double u[3])
{
    double v[3];
    random_unit(r, v);
    cross3(u, a, v);
    double n = sqrt(dot3(u, u));
    for (int k = 0; k < 3; k++) u[k] /= n;
}

/* A dynamic body at a random pose with random inverse mass and principal inverse inertias
 * (in [0.7, 1.3]: the triangle inequality holds) */
static void random_body(pbd_rng *r, pbd_rigid_body *b)
{
    memset(b, 0, sizeof *b);
    for (int k = 0; k < 3; k++) b->x[k] = pbd_rng_range(r, -1.0, 1.0);
    pbd_quat_random(r, b->q);
    b->inv_mass = pbd_rng_range(r, 0.2, 5.0);
    for (int k = 0; k < 3; k++) b->inv_inertia[k] = pbd_rng_range(r, 0.7, 1.3);
    memcpy(b->x_prev, b->x, sizeof b->x);
    memcpy(b->q_prev, b->q, sizeof b->q);
}

/* A joint of the kind whose row `row` acts: random anchors, axes and references, the limits
 * and drives on */
static pbd_rigid_joint random_joint(pbd_rng *r, pbd_joint_kind kind)
{
    pbd_rigid_joint j;
    memset(&j, 0, sizeof j);
    j.kind = kind;
    for (int s = 0; s < 2; s++) {
        for (int k = 0; k < 3; k++) j.anchor[s][k] = pbd_rng_range(r, -0.5, 0.5);
        random_unit(r, j.axis[s]);
        random_normal(r, j.axis[s], j.ref[s]);
    }
    pbd_quat_random(r, j.q_rel);
    j.has_limit = 1;
    j.lower = kind == PBD_JOINT_PRISMATIC ? -0.1 : -0.3;
    j.upper = kind == PBD_JOINT_PRISMATIC ? 0.1 : 0.3;
    j.has_swing_limit = j.has_twist_limit = kind == PBD_JOINT_BALL;
    j.swing_limit = 0.5;
    j.twist_lower = -0.3;
    j.twist_upper = 0.3;
    if (kind == PBD_JOINT_HINGE || kind == PBD_JOINT_PRISMATIC) {
        j.drive = PBD_DRIVE_POSITION;
        j.drive_target = 0.4;
    }
    return j;
}

/* The state: 12 tangent coordinates, x1, θ1, x2, θ2 */
typedef struct {
    const pbd_rigid_joint_row *row;
    pbd_rigid_joint j;
    pbd_rigid_body b[2];
} sample;

/* C at the sample moved by t along tangent coordinate i (additive in x, exp-map in θ) */
static double C_at(const sample *s, int i, double t)
{
    pbd_rigid_body b[2] = {s->b[0], s->b[1]};
    int body = i / 6, part = i % 6;
    if (part < 3) {
        b[body].x[part] += t;
    } else {
        double th[3] = {0, 0, 0};
        th[part - 3] = t;
        pbd_quat_perturb(b[body].q, th, b[body].q);
    }
    double C, g[12];
    s->row->eval(&s->j, &b[0], &b[1], &C, g);
    return C;
}

/* A sample fit for differencing: the row active, |C| >= 0.02, |∇C| <= 20 (away from the
 * degenerate poses where a gradient blows up) and no jump (an angle's wrap, a limit's edge)
 * within ±2 h3 along any coordinate */
static int fit(const sample *s, double C, const double g[12], double h3)
{
    if (fabs(C) < 0.02) return 0;
    for (int i = 0; i < 12; i++) {
        if (!(fabs(g[i]) <= 20.0)) return 0;
        for (int k = -2; k <= 2; k++) {
            if (k == 0) continue;
            double Ck = C_at(s, i, k * h3);
            if (!(fabs(Ck - C) <= abs(k) * h3 * 2.0 * (fabs(g[i]) + 1.0))) return 0;
        }
    }
    return 1;
}

static const pbd_rigid_joint_row *find_row(pbd_joint_kind kind, const char *name)
{
    const pbd_rigid_joint_type *t = pbd_rigid_joint_type_of(kind);
    for (int r = 0; t && r < t->n_rows; r++)
        if (strcmp(t->rows[r]->name, name) == 0) return t->rows[r];
    return NULL;
}

typedef struct {
    pbd_joint_kind kind;
    const char *row;
} row_case;

/* every row of every type, once */
static const row_case CASES[] = {
    {PBD_JOINT_BALL, "point"},           {PBD_JOINT_FIXED, "fixed_alignment"},
    {PBD_JOINT_HINGE, "hinge_alignment"}, {PBD_JOINT_HINGE, "hinge_limit"},
    {PBD_JOINT_BALL, "swing_limit"},     {PBD_JOINT_BALL, "twist_limit"},
    {PBD_JOINT_PRISMATIC, "slider_normal"}, {PBD_JOINT_PRISMATIC, "slider_limit"},
    {PBD_JOINT_HINGE, "hinge_drive"},    {PBD_JOINT_PRISMATIC, "slider_drive"},
};
#define N_CASES ((int)(sizeof CASES / sizeof CASES[0]))

/* The catalogue: a type for every kind, none beyond; every row named and with both parts;
 * every case's row in its type; every type's row is a case */
static void test_catalogue(void)
{
    CU_ASSERT_EQUAL(pbd_rigid_joint_type_count(), 4);
    CU_ASSERT_PTR_NULL(pbd_rigid_joint_type_of((pbd_joint_kind)pbd_rigid_joint_type_count()));
    CU_ASSERT_PTR_NULL(pbd_rigid_joint_type_of((pbd_joint_kind)-1));
    for (int k = 0; k < pbd_rigid_joint_type_count(); k++) {
        const pbd_rigid_joint_type *t = pbd_rigid_joint_type_of((pbd_joint_kind)k);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t);
        CU_ASSERT(t->name && t->check && t->n_rows > 0 && t->n_rows <= PBD_JOINT_MAX_ROWS);
        for (int r = 0; r < t->n_rows; r++) {
            const pbd_rigid_joint_row *row = t->rows[r];
            CU_ASSERT(row && row->name && row->eval && row->project);
            int listed = 0;
            for (int c = 0; c < N_CASES; c++) listed |= strcmp(CASES[c].row, row->name) == 0;
            CU_ASSERT(listed);
        }
    }
    for (int c = 0; c < N_CASES; c++) CU_ASSERT_PTR_NOT_NULL(find_row(CASES[c].kind, CASES[c].row));
}

/* Central differences with h = ε^(1/3) (m and rad; the sampled lengths are O(1 m)) against
 * ∇C, per coordinate. Bound: truncation h² |C'''|/6, |C'''| estimated per coordinate by the
 * third difference at h3 = 1e-2 (floored at 1), plus rounding 2 δC/(2h) with δC = 16 ε S the
 * rounding of one evaluation of C (at most 16 rounded operations deep on quantities of size
 * S = 1 + |C| + |x1| + |x2|); the error must stay within 4× that bound. */
static void test_gradients(void)
{
    const double eps = DBL_EPSILON, h = cbrt(eps), h3 = 1e-2;
    pbd_rng rng;
    pbd_rng_seed(&rng, 20200);
    for (int c = 0; c < N_CASES; c++) {
        sample s;
        s.row = find_row(CASES[c].kind, CASES[c].row);
        CU_ASSERT_PTR_NOT_NULL_FATAL(s.row);
        int done = 0, tries = 0;
        double worst = 0.0, worst_abs = 0.0;
        while (done < SAMPLES && tries < 100 * SAMPLES) {
            tries++;
            s.j = random_joint(&rng, CASES[c].kind);
            random_body(&rng, &s.b[0]);
            random_body(&rng, &s.b[1]);
            double C, g[12];
            if (s.row->eval(&s.j, &s.b[0], &s.b[1], &C, g) != 0 || !fit(&s, C, g, h3)) continue;
            double S = 1.0 + fabs(C) + sqrt(dot3(s.b[0].x, s.b[0].x)) +
                       sqrt(dot3(s.b[1].x, s.b[1].x));
            for (int i = 0; i < 12; i++) {
                double fd = (C_at(&s, i, h) - C_at(&s, i, -h)) / (2.0 * h);
                double d3 = (C_at(&s, i, 2 * h3) - 2 * C_at(&s, i, h3) + 2 * C_at(&s, i, -h3) -
                             C_at(&s, i, -2 * h3)) / (2 * h3 * h3 * h3);
                double bound = h * h * fmax(fabs(d3), 1.0) / 6.0 + 16.0 * eps * S / h;
                worst = fmax(worst, fabs(fd - g[i]) / bound);
                worst_abs = fmax(worst_abs, fabs(fd - g[i]));
            }
            done++;
        }
        printf("\n    %-16s %d samples (%d drawn): |FD − ∇C| <= %.2g, %.2g of the bound",
               s.row->name, done, tries, worst_abs, worst);
        CU_ASSERT(done == SAMPLES);
        CU_ASSERT(worst <= 4.0);
    }
}

static double row_alpha(const pbd_rigid_joint_row *row, const pbd_rigid_joint *j)
{
    switch (row->alpha) {
    case PBD_JOINT_ALPHA_POSITIONAL: return j->compliance;
    case PBD_JOINT_ALPHA_ANGULAR: return j->angular_compliance;
    case PBD_JOINT_ALPHA_DRIVE: return j->drive_compliance;
    case PBD_JOINT_ALPHA_NONE: break;
    }
    return 0.0;
}

/* The projection's path: body i moves by Δx_i = ∇x_i Δλ/m_i and turns by
 * Δθ_i = I_i⁻¹ ∇θ_i Δλ through the first-order update q ← normalize(q + ½ (0, Δθ) q). The
 * row's eval and the solver reach the same numbers by different sequences of at most ~100
 * rounded operations on O(1) quantities (Higham's γ_n = nε/(1 − nε) per chain), so they agree
 * within 256 ε of the magnitudes involved. Angular rows are checked at poses where their
 * correction direction is their gradient's: the hinge limit, hinge drive and twist limit with
 * the axes aligned (a2 = a1, where ∇ = ±(0, a1, 0, −a1) exactly); the alignment rows, which
 * turn along n where ∇θ1 C = cos n (cos = |d_w| or a1·a2), with ∇C/cos (the paper's unit
 * rotation axis, Sec. 3.3.2; the exact gradient's step would be cos times the solver's). */
static void test_projection_path(void)
{
    const double eps = DBL_EPSILON, hs = 0.01;
    pbd_rng rng;
    pbd_rng_seed(&rng, 33);
    for (int c = 0; c < N_CASES; c++) {
        const pbd_rigid_joint_row *row = find_row(CASES[c].kind, CASES[c].row);
        CU_ASSERT_PTR_NOT_NULL_FATAL(row);
        int aligned = !strcmp(row->name, "hinge_limit") || !strcmp(row->name, "hinge_drive") ||
                      !strcmp(row->name, "twist_limit");
        int unit = !strcmp(row->name, "fixed_alignment") || !strcmp(row->name, "hinge_alignment");
        int done = 0, tries = 0;
        double worst = 0.0;
        while (done < 10 && tries < 1000) {
            tries++;
            pbd_rigid_joint j = random_joint(&rng, CASES[c].kind);
            pbd_rigid_body b[2];
            random_body(&rng, &b[0]);
            random_body(&rng, &b[1]);
            if (aligned) { /* body 2's axis on body 1's */
                double a1[3];
                pbd_quat_rotate(b[0].q, j.axis[0], a1);
                pbd_quat_rotate_inv(b[1].q, a1, j.axis[1]);
                random_normal(&rng, j.axis[1], j.ref[1]);
            }
            j.compliance = pbd_rng_range(&rng, 0.0, 2e-4);
            j.angular_compliance = pbd_rng_range(&rng, 0.0, 2e-4);
            j.drive_compliance = pbd_rng_range(&rng, 0.0, 2e-4);
            j.lambda[row->lambda] = pbd_rng_range(&rng, -0.01, 0.01);
            double C, g[12];
            if (row->eval(&j, &b[0], &b[1], &C, g) != 0 || fabs(C) < 0.02) continue;
            if (unit) { /* ∇C/cos with cos = (∇θ1 C)·n, n the rotation's unit axis */
                double n[3] = {g[3], g[4], g[5]};
                if (CASES[c].kind == PBD_JOINT_HINGE) { /* n = a2 × a1/|a2 × a1| */
                    double a1[3], a2[3];
                    pbd_quat_rotate(b[0].q, j.axis[0], a1);
                    pbd_quat_rotate(b[1].q, j.axis[1], a2);
                    cross3(n, a2, a1);
                }
                double cs = dot3(g + 3, n) / sqrt(dot3(n, n));
                for (int k = 0; k < 12; k++) g[k] /= cs;
            }
            double at = row_alpha(row, &j) / (hs * hs), lambda0 = j.lambda[row->lambda];
            double wsum = 0.0, Ig[2][3];
            for (int i = 0; i < 2; i++) {
                pbd_rigid_inv_inertia_apply(&b[i], g + 6 * i + 3, Ig[i]);
                wsum += b[i].inv_mass * dot3(g + 6 * i, g + 6 * i) + dot3(g + 6 * i + 3, Ig[i]);
            }
            double dl = -(C + at * lambda0) / (wsum + at);
            pbd_rigid_body e[2] = {b[0], b[1]};
            double err = 0.0, tol = 256.0 * eps;
            for (int i = 0; i < 2; i++) {
                double th[3];
                for (int k = 0; k < 3; k++) {
                    e[i].x[k] += b[i].inv_mass * g[6 * i + k] * dl;
                    th[k] = Ig[i][k] * dl;
                }
                pbd_quat_add_rotation(e[i].q, th, 1.0, e[i].q);
            }
            row->project(&j, &b[0], &b[1], hs);
            /* a hard limit is corrected as |C| along sign(C) ∇C: its λ, the multiplier of |C|
             * (<= 0), is sign(C) times the signed row's */
            if (row->alpha == PBD_JOINT_ALPHA_NONE && C < 0.0) dl = -dl;
            err = fmax(err, fabs(j.lambda[row->lambda] - (lambda0 + dl)) /
                                (tol * (fabs(lambda0) + fabs(dl))));
            for (int i = 0; i < 2; i++)
                for (int k = 0; k < 4; k++) {
                    if (k < 3) err = fmax(err, fabs(b[i].x[k] - e[i].x[k]) / (tol * 2.0));
                    err = fmax(err, fabs(b[i].q[k] - e[i].q[k]) / (tol * 2.0));
                }
            worst = fmax(worst, err);
            done++;
        }
        printf("\n    %-16s %d projections: |solver − Δλ M⁻¹∇C| <= %.2g of 256 ε", row->name,
               done, worst);
        CU_ASSERT(done == 10);
        CU_ASSERT(worst <= 1.0);
    }
}

void register_joint_gradients_tests(void)
{
    CU_pSuite s = CU_add_suite("joint_gradients", NULL, NULL);
    CU_add_test(s, "catalogue", test_catalogue);
    CU_add_test(s, "gradients", test_gradients);
    CU_add_test(s, "projection_path", test_projection_path);
}
