/* fluid_density: the density constraint of Position Based Fluids (Macklin & Müller 2013)
 *
 *   C_i = ρ_i/ρ0 − 1,   ρ_i = Σ_j m W(x_i − x_j, h)                 (PBF Eq. 1–2)
 *   ∇_{x_i} C_i = (m/ρ0) Σ_j ∇W(x_i − x_j, h),
 *   ∇_{x_j} C_i = −(m/ρ0) ∇W(x_i − x_j, h)        (j a neighbour)     (PBF Eq. 8)
 *
 * One constraint per fluid particle: the row is (i, its neighbours …, pads); the set's arity
 * is the largest row (variable arity, as the balloon's), rest {ρ0, h, m, kernel, count, b}: only
 * the first `count` slots are particles (slot 0 is i itself, whose own term m W(0, h) is in
 * ρ_i, PBF Eq. 2's sum over j including i); slots from count on are padding, ignored (gradient
 * zero). b (dimensionless) is a constant added to ρ_i/ρ0: the density the container's walls
 * contribute (solver/fluid/fluid_wall.c), fixed for the row at the neighbour search; 0 away
 * from walls. All particles of a fluid have the same mass m (kg). C is dimensionless: the
 * density error in units of ρ0.
 *
 * Kernels (support radius h: W = 0 for r >= h in all three):
 *   0 poly6   W = 315/(64π h⁹) (h² − r²)³                  (Müller et al. 2003; PBF Sec. 3)
 *   1 spiky   W = 15/(π h⁶) (h − r)³                        (Müller et al. 2003)
 *   2 cubic   W = 8/(π h³) {6q³ − 6q² + 1, q <= ½; 2(1 − q)³, q <= 1}, q = r/h (Monaghan's
 *             cubic spline, 1992, written with its support h, as e.g. Bender's PBD library does)
 *   3 pbf     density with poly6, gradient with spiky's dW/dr: the paper's choice (Sec. 3: the
 *             spiky gradient does not vanish at r → 0, so particles do not clump). Its ∇C is
 *             then NOT the gradient of C; the checker samples kernels 0–2 only.
 * The spiky kernel (and pbf) has no gradient at r = 0 (dW/dr → −45/(πh⁴) from every
 * direction): a neighbour on top of i is degenerate there; poly6 and cubic have ∇W(0) = 0.
 *
 * Internal: C depends on distances only, so Σ ∇C = 0 and Σ x × ∇C = 0. */
#include "pbd_constraint.h"
#include "sample_shapes.h"

#include <math.h>

/* h^k by multiplication (the fluid's hot loops call these per neighbour pair). */
static double pow6(double h) { double h3 = h * h * h; return h3 * h3; }

double pbd_sph_kernel(int kernel, double r, double h)
{
    if (!(r < h) || h <= 0.0) return 0.0;
    if (kernel == PBD_SPH_SPIKY) {
        double d = h - r;
        return 15.0 / (M_PI * pow6(h)) * d * d * d;
    }
    if (kernel == PBD_SPH_CUBIC) {
        double q = r / h, k = 8.0 / (M_PI * h * h * h);
        if (q <= 0.5) return k * (6.0 * q * q * q - 6.0 * q * q + 1.0);
        double d = 1.0 - q;
        return 2.0 * k * d * d * d;
    }
    double d = h * h - r * r; /* poly6, and pbf's density */
    return 315.0 / (64.0 * M_PI * pow6(h) * h * h * h) * d * d * d;
}

double pbd_sph_kernel_dr(int kernel, double r, double h)
{
    if (!(r < h) || h <= 0.0) return 0.0;
    if (kernel == PBD_SPH_SPIKY || kernel == PBD_SPH_PBF) {
        double d = h - r;
        return -45.0 / (M_PI * pow6(h)) * d * d;
    }
    if (kernel == PBD_SPH_CUBIC) {
        double q = r / h, k = 8.0 / (M_PI * h * h * h);
        if (q <= 0.5) return k * (18.0 * q * q - 12.0 * q) / h;
        double d = 1.0 - q;
        return -6.0 * k * d * d / h;
    }
    double d = h * h - r * r; /* poly6 */
    return -945.0 / (32.0 * M_PI * pow6(h) * h * h * h) * r * d * d;
}

/* C and ∇C (above); degenerate for bad rest values, or a neighbour on top of i with a
 * kernel whose gradient is undefined there (spiky, pbf). */
static int fluid_density_eval(const pbd_eval_input *in, double *C, double *grad)
{
    const double rho0 = in->rest[0], h = in->rest[1], m = in->rest[2];
    const int kernel = (int)in->rest[3];
    int count = (int)in->rest[4];
    if (count > in->arity) count = in->arity;
    if (grad)
        for (int k = 0; k < 3 * in->arity; k++) grad[k] = 0.0;
    if (!(rho0 > 0.0) || !(h > 0.0) || !(m > 0.0) || count < 1) {
        *C = 0.0;
        return PBD_EVAL_DEGENERATE;
    }
    const double *xi = in->x;
    double rho = m * pbd_sph_kernel(kernel, 0.0, h), s = m / rho0;
    int status = PBD_EVAL_OK;
    for (int j = 1; j < count; j++) {
        double d[3];
        v3_sub(d, xi, in->x + 3 * j);
        double r = v3_norm(d);
        rho += m * pbd_sph_kernel(kernel, r, h);
        if (!grad || !(r < h)) continue;
        if (r < 1e-12 * h) { /* ∇W(0): 0 for poly6 and cubic, undefined for spiky */
            if (kernel == PBD_SPH_SPIKY || kernel == PBD_SPH_PBF) status = PBD_EVAL_DEGENERATE;
            continue;
        }
        double f = s * pbd_sph_kernel_dr(kernel, r, h) / r; /* (m/ρ0) ∇W = f d */
        v3_axpy(grad, f, d);
        v3_axpy(grad + 3 * j, -f, d);
    }
    *C = rho / rho0 + in->rest[5] - 1.0;
    if (!isfinite(*C)) return PBD_EVAL_DEGENERATE;
    return status;
}

/* Rest values from a configuration, for a particle whose neighbourhood x is at rest: h =
 * 1.2 × the farthest neighbour's distance (every slot a neighbour inside the support), m = 1
 * kg, poly6, count = the arity, no wall, ρ0 = ρ_i(x). Fluid builders set their own (pbd_fluid.h). */
static void fluid_density_rest(const pbd_eval_input *in, double *rest)
{
    double far = 0.0;
    for (int j = 1; j < in->arity; j++) far = fmax(far, sqrt(ss_dist2(in->x, in->x + 3 * j)));
    rest[1] = far > 0.0 ? 1.2 * far : 1.0;
    rest[2] = 1.0;
    rest[3] = PBD_SPH_POLY6;
    rest[4] = in->arity;
    rest[5] = 0.0;
    double rho = 0.0;
    for (int j = 0; j < in->arity; j++)
        rho += pbd_sph_kernel(PBD_SPH_POLY6, sqrt(ss_dist2(in->x, in->x + 3 * j)), rest[1]);
    rest[0] = rho;
}

/* A particle and 1–39 neighbours: most inside the support at r in [0.15, 0.97] h, some
 * outside ([1.02, 1.4] h: no contribution), up to 2 padding slots; h in [0.05, 2], m in
 * [0.1, 10], kernel poly6, spiky or cubic, ρ0 = ρ_i × [0.7, 1.3]. degenerate != 0: a
 * neighbour 1e-9 h inside the support's edge, one on top of i (spiky: no gradient), or
 * every neighbour outside the support (∇C = 0). */
static int fluid_density_sample(pbd_rng *r, int degenerate, double *x, double *rest,
                                int32_t *aux, int *n_aux)
{
    (void)aux;
    *n_aux = 0;
    int n = 2 + (int)(pbd_rng_next(r) % 39), pads = (int)(pbd_rng_next(r) % 3);
    if (n - pads < 2) pads = 0;
    double h = pbd_rng_range(r, 0.05, 2.0), m = pbd_rng_range(r, 0.1, 10.0);
    int kernel = (int)(pbd_rng_next(r) % 3);
    ss_box(r, x);
    for (int j = 1; j < n; j++) {
        double u[3];
        ss_unit(r, u);
        double rr = pbd_rng_uniform(r) < 0.8 ? pbd_rng_range(r, 0.15, 0.97) * h
                                               : pbd_rng_range(r, 1.02, 1.4) * h;
        v3_copy(x + 3 * j, x);
        v3_axpy(x + 3 * j, rr, u);
    }
    int mode = degenerate ? (int)(pbd_rng_next(r) % 3) : -1;
    if (mode == 0 || mode == 1) {
        double u[3];
        ss_unit(r, u);
        v3_copy(x + 3, x);
        v3_axpy(x + 3, mode == 0 ? h * (1.0 - 1e-9) : 0.0, u);
    }
    if (mode == 2)
        for (int j = 1; j < n; j++) {
            double d[3];
            v3_sub(d, x + 3 * j, x);
            v3_scale(d, d, 1.5 * h / v3_norm(d));
            v3_add(x + 3 * j, x, d);
        }
    rest[0] = 1.0;
    rest[1] = h;
    rest[2] = m;
    rest[3] = kernel;
    rest[4] = n - pads;
    rest[5] = 0.0;
    pbd_eval_input in = {x, n, rest, NULL, 0};
    double C;
    fluid_density_eval(&in, &C, NULL);
    rest[0] = (C + 1.0) * pbd_rng_range(r, 0.7, 1.3); /* ρ_i (ρ0 = 1 above) scaled */
    rest[5] = pbd_rng_uniform(r) < 0.5 ? 0.0 : pbd_rng_range(r, 0.0, 0.6); /* a wall's */
    return n;
}

const pbd_constraint_type pbd_fluid_density_type = {
    .name = "fluid_density",
    .description = "rho_i/rho0 - 1, rho_i = sum_j m W(x_i - x_j, h) (PBF Eq. 1-2, 8)",
    .unit = "1",
    .arity = 0,
    .n_rest = 6,
    .inequality = 0,
    .internal = 1,
    .eval = fluid_density_eval,
    .rest = fluid_density_rest,
    .sample = fluid_density_sample,
    .project_closed_form = NULL,
};
