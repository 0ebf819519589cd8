/* Drives of the hinge (its angle about body 1's axis) and the prismatic joint (the offset
 * along it): one XPBD constraint C = target − s on that coordinate s with compliance α and
 * damping β (the damped update of XPBD, Macklin, Müller and Chentanez 2016):
 *
 *     Δλ = (−C − α̃ λ − γ ΔC)/((1 + γ) w + α̃),  α̃ = α/h²,  γ = α β / h,
 *
 * ΔC the change of C over the substep so far, w the generalized inverse masses along the axis
 * (Sec. 3.3). ∇C = −∇s (joint_hinge.c, joint_prismatic.c). Ours: this form, the velocity
 * drive as a target moving at the set rate, the damping term and solving it last in its
 * joint (README "Drives"). */
#include "rigid_private.h"

#include <math.h>

double rigid_wrap_angle(double x)
{
    x = fmod(x, 2.0 * M_PI); /* in (-2π, 2π) */
    if (x > M_PI) x -= 2.0 * M_PI;
    else if (x <= -M_PI) x += 2.0 * M_PI;
    return x;
}

const pbd_rigid_joint_drive_type rigid_drive_hinge = {pbd_rigid_hinge_angle, 1};
const pbd_rigid_joint_drive_type rigid_drive_slider = {pbd_rigid_slider_offset, 0};

/* the body with its pose at the substep's start */
static pbd_rigid_body at_start(const pbd_rigid_body *b)
{
    pbd_rigid_body s = *b;
    v3_copy(s.x, b->x_prev);
    for (int k = 0; k < 4; k++) s.q[k] = b->q_prev[k];
    return s;
}

double rigid_drive_coordinate(const pbd_rigid_joint *j, const pbd_rigid_body *b1,
                              const pbd_rigid_body *b2, int start)
{
    if (start) {
        pbd_rigid_body s1 = at_start(b1), s2 = at_start(b2);
        return rigid_drive_coordinate(j, &s1, &s2, 0);
    }
    return pbd_rigid_joint_type_of(j->kind)->drive->coordinate(j, b1, b2);
}

/* C = target − s (to be wrapped for an angle) */
static double violation(const pbd_rigid_joint *j, const pbd_rigid_body *b1,
                        const pbd_rigid_body *b2)
{
    double target = j->drive == PBD_DRIVE_VELOCITY ? j->drive_at : j->drive_target;
    return target - rigid_drive_coordinate(j, b1, b2, 0);
}

static void project(pbd_rigid_joint *j, pbd_rigid_body *b1, pbd_rigid_body *b2, double h,
                    int angular)
{
    if (j->drive == PBD_DRIVE_NONE) return;
    int vel = j->drive == PBD_DRIVE_VELOCITY;
    double target0 = vel ? j->drive_at - j->drive_target * h : j->drive_target;
    double C = violation(j, b1, b2);
    double dC = C - (target0 - rigid_drive_coordinate(j, b1, b2, 1));
    if (angular) {
        C = rigid_wrap_angle(C);
        dC = rigid_wrap_angle(dC);
    }
    double n[3], r1[3], r2[3], w;
    pbd_quat_rotate(b1->q, j->axis[0], n);
    if (angular) {
        w = pbd_rigid_inverse_mass_angular(b1, n) + pbd_rigid_inverse_mass_angular(b2, n);
    } else { /* both impulses at p2, as the slider's other corrections */
        rigid_world_offset(b2, j->anchor[1], r2);
        for (int k = 0; k < 3; k++) r1[k] = b2->x[k] + r2[k] - b1->x[k];
        w = pbd_rigid_inverse_mass_positional(b1, r1, n) +
            pbd_rigid_inverse_mass_positional(b2, r2, n);
    }
    double at = j->drive_compliance / (h * h), gamma = j->drive_compliance * j->drive_damping / h;
    double den = (1.0 + gamma) * w + at;
    if (!(den > 0.0)) return;
    double dl = (-C - at * j->lambda[4] - gamma * dC) / den;
    j->lambda[4] += dl;
    double p[3];
    v3_scale(p, n, dl); /* body 1 has C n too much: p = Δλ n moves it back */
    if (angular) rigid_apply_angular(b1, b2, p);
    else rigid_apply_positional(b1, b2, r1, r2, p);
}

static int eval(const pbd_rigid_joint *j, const pbd_rigid_body *b1, const pbd_rigid_body *b2,
                double *C, double g[12], int angular)
{
    *C = 0.0;
    rigid_gradient_pair(g, NULL, NULL, NULL, NULL);
    if (j->drive == PBD_DRIVE_NONE) return 1;
    *C = violation(j, b1, b2);
    if (angular) *C = rigid_wrap_angle(*C);
    if (angular) rigid_hinge_angle_gradient(j, b1, b2, g);
    else rigid_slider_offset_gradient(j, b1, b2, g);
    for (int k = 0; k < 12; k++) g[k] = -g[k];
    return 0;
}

static int hinge_eval(const pbd_rigid_joint *j, const pbd_rigid_body *b1,
                      const pbd_rigid_body *b2, double *C, double g[12])
{
    return eval(j, b1, b2, C, g, 1);
}

static void hinge_project(pbd_rigid_joint *j, pbd_rigid_body *b1, pbd_rigid_body *b2, double h)
{
    project(j, b1, b2, h, 1);
}

static int slider_eval(const pbd_rigid_joint *j, const pbd_rigid_body *b1,
                       const pbd_rigid_body *b2, double *C, double g[12])
{
    return eval(j, b1, b2, C, g, 0);
}

static void slider_project(pbd_rigid_joint *j, pbd_rigid_body *b1, pbd_rigid_body *b2,
                           double h)
{
    project(j, b1, b2, h, 0);
}

const pbd_rigid_joint_row rigid_row_hinge_drive = {
    "hinge_drive", 4, PBD_JOINT_ALPHA_DRIVE, hinge_eval, hinge_project,
};
const pbd_rigid_joint_row rigid_row_slider_drive = {
    "slider_drive", 4, PBD_JOINT_ALPHA_DRIVE, slider_eval, slider_project,
};
