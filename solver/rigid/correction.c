/* The positional and angular corrections with generalized inverse masses (paper Sec. 3.3.1
 * and 3.3.2) and the velocity impulses of the velocity solve (Sec. 3.6). Sign convention
 * (README "Conventions"): the violation is what body 1 has too much relative to body 2;
 * Δλ <= 0 moves body 1 against it and body 2 with it. */
#include "rigid_private.h"

#include <math.h>

double pbd_rigid_inverse_mass_positional(const pbd_rigid_body *b, const double r[3],
                                         const double n[3])
{
    if (!rigid_dynamic(b)) return 0.0;
    double rn[3], Irn[3];
    v3_cross(rn, r, n);
    pbd_rigid_inv_inertia_apply(b, rn, Irn);
    return b->inv_mass + v3_dot(rn, Irn); /* w = 1/m + (r × n)ᵀ I⁻¹ (r × n) */
}

double pbd_rigid_inverse_mass_angular(const pbd_rigid_body *b, const double n[3])
{
    if (!rigid_dynamic(b)) return 0.0;
    double In[3];
    pbd_rigid_inv_inertia_apply(b, n, In);
    return v3_dot(n, In); /* w = nᵀ I⁻¹ n */
}

/* Δλ = (−c − α̃ λ)/(w1 + w2 + α̃), α̃ = α/h², λ += Δλ */
static double delta_lambda(double c, double w, double alpha, double h, double *lambda)
{
    double at = alpha / (h * h);
    if (!(w + at > 0.0)) return 0.0; /* both bodies fixed along n */
    double dl = (-c - at * *lambda) / (w + at);
    *lambda += dl;
    return dl;
}

double pbd_rigid_correct_positional(pbd_rigid_body *b1, pbd_rigid_body *b2, const double r1[3],
                                    const double r2[3], const double dx[3], double alpha,
                                    double h, double *lambda)
{
    double c = v3_norm(dx);
    if (!(c > 0.0)) return 0.0;
    double n[3];
    v3_scale(n, dx, 1.0 / c);
    double w = pbd_rigid_inverse_mass_positional(b1, r1, n) +
               pbd_rigid_inverse_mass_positional(b2, r2, n);
    double dl = delta_lambda(c, w, alpha, h, lambda);
    double p[3];
    v3_scale(p, n, dl); /* p = Δλ n */
    rigid_apply_positional(b1, b2, r1, r2, p);
    return dl;
}

void rigid_apply_positional(pbd_rigid_body *b1, pbd_rigid_body *b2, const double r1[3],
                            const double r2[3], const double p[3])
{
    double rp[3], t[3];
    if (rigid_dynamic(b1)) {
        v3_axpy(b1->x, b1->inv_mass, p); /* x1 += p/m1 */
        v3_cross(rp, r1, p);
        pbd_rigid_inv_inertia_apply(b1, rp, t);
        pbd_quat_add_rotation(b1->q, t, 1.0, b1->q); /* q1 += ½ (0, I1⁻¹(r1 × p)) q1 */
    }
    if (rigid_dynamic(b2)) {
        v3_axpy(b2->x, -b2->inv_mass, p); /* x2 −= p/m2 */
        v3_cross(rp, r2, p);
        pbd_rigid_inv_inertia_apply(b2, rp, t);
        pbd_quat_add_rotation(b2->q, t, -1.0, b2->q); /* q2 −= ½ (0, I2⁻¹(r2 × p)) q2 */
    }
}

double pbd_rigid_correct_angular(pbd_rigid_body *b1, pbd_rigid_body *b2, const double dtheta[3],
                                 double alpha, double h, double *lambda)
{
    double theta = v3_norm(dtheta);
    if (!(theta > 0.0)) return 0.0;
    double n[3];
    v3_scale(n, dtheta, 1.0 / theta);
    double w = pbd_rigid_inverse_mass_angular(b1, n) + pbd_rigid_inverse_mass_angular(b2, n);
    double dl = delta_lambda(theta, w, alpha, h, lambda);
    double p[3];
    v3_scale(p, n, dl);
    rigid_apply_angular(b1, b2, p);
    return dl;
}

void rigid_apply_angular(pbd_rigid_body *b1, pbd_rigid_body *b2, const double p[3])
{
    double t[3];
    if (rigid_dynamic(b1)) {
        pbd_rigid_inv_inertia_apply(b1, p, t);
        pbd_quat_add_rotation(b1->q, t, 1.0, b1->q); /* q1 += ½ (0, I1⁻¹ p) q1 */
    }
    if (rigid_dynamic(b2)) {
        pbd_rigid_inv_inertia_apply(b2, p, t);
        pbd_quat_add_rotation(b2->q, t, -1.0, b2->q); /* q2 −= ½ (0, I2⁻¹ p) q2 */
    }
}

void pbd_rigid_apply_impulse(pbd_rigid_body *b1, pbd_rigid_body *b2, const double r1[3],
                             const double r2[3], const double p[3])
{
    double rp[3], t[3];
    if (rigid_dynamic(b1)) {
        v3_axpy(b1->v, b1->inv_mass, p); /* v1 += p/m1, ω1 += I1⁻¹(r1 × p) */
        v3_cross(rp, r1, p);
        pbd_rigid_inv_inertia_apply(b1, rp, t);
        v3_axpy(b1->omega, 1.0, t);
    }
    if (rigid_dynamic(b2)) {
        v3_axpy(b2->v, -b2->inv_mass, p);
        v3_cross(rp, r2, p);
        pbd_rigid_inv_inertia_apply(b2, rp, t);
        v3_axpy(b2->omega, -1.0, t);
    }
}
